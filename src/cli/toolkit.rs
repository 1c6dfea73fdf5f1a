//! The game-theory toolkit commands: `subtraction`, `nim`, `grundy` and
//! `empty-cell`. Each parses its flags, calls one `retrograde::theory`
//! function, and prints text or one JSON object.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args as ClapArgs, Subcommand, ValueEnum};
use retrograde::theory::compound::{
    conjunctive, disjunctive, remoteness, selective, CompoundMove, ConjunctiveGame,
};
use retrograde::theory::empty_cell::parse_contest;
use retrograde::theory::nim::{nim_sum, winning_moves};
use retrograde::theory::piece::PieceGame;
use retrograde::theory::subtraction::SubtractionGame;
use retrograde::{solve, Engine, Game, SolveOptions};
use serde::Serialize;

use super::common::UsageError;
use super::Failure;

/// The toolkit's subcommands (flattened into the top-level command list).
#[derive(Subcommand, Debug)]
pub(crate) enum ToolkitCommand {
    /// Subtraction game: win/loss and Grundy value of every heap, the proven
    /// period, and instant answers for huge heaps.
    Subtraction(SubtractionArgs),
    /// Nim: the nim-sum, who wins, and every winning move.
    Nim(NimArgs),
    /// Grundy numbers of a piece moving by fixed offsets on a board, and
    /// compounds (sums) of several pieces.
    Grundy(GrundyArgs),
    /// The empty-cell game (NOI 2011 "rabbit and egg"): the rounds in which
    /// the first player threw away a win.
    EmptyCell(EmptyCellArgs),
}

/// Runs a toolkit command; returns the exit status.
pub(crate) fn run(command: ToolkitCommand) -> Result<i32, Failure> {
    let out = io::stdout().lock();
    let mut out = BufWriter::with_capacity(1 << 16, out);
    let written = match command {
        ToolkitCommand::Subtraction(a) => subtraction(&a, &mut out),
        ToolkitCommand::Nim(a) => nim(&a, &mut out),
        ToolkitCommand::Grundy(a) => grundy(&a, &mut out),
        ToolkitCommand::EmptyCell(a) => empty_cell(&a, &mut out),
    };
    match written.and_then(|()| out.flush().map_err(anyhow::Error::from)) {
        Ok(()) => Ok(0),
        // A reader that stops early (`| head`) is not an error.
        Err(e) if is_broken_pipe(&e) => Ok(0),
        Err(e) => Err(e.into()),
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .any(|e| matches!(e.downcast_ref::<io::Error>(), Some(e) if e.kind() == io::ErrorKind::BrokenPipe))
}

fn usage(message: String) -> anyhow::Error {
    UsageError(message).into()
}

fn winner(first: bool) -> &'static str {
    if first {
        "first"
    } else {
        "second"
    }
}

// ---------------------------------------------------------------- subtraction

/// Flags of `subtraction`.
#[derive(ClapArgs, Debug)]
#[command(group = clap::ArgGroup::new("query").required(true).multiple(true).args(["upto", "heap"]))]
pub(crate) struct SubtractionArgs {
    /// The subtraction set: how many tokens a move may take, e.g. 1,3,4.
    #[arg(long, value_name = "M,M,...", value_delimiter = ',', required = true)]
    moves: Vec<u64>,
    /// List every heap size from 0 to N.
    #[arg(long, value_name = "N")]
    upto: Option<u64>,
    /// Answer one heap of any size (up to 2^64 - 1) with a winning move.
    #[arg(long, value_name = "H")]
    heap: Option<u64>,
    /// Give up the period search after this many heap sizes.
    #[arg(long, value_name = "N", default_value = "1e7", value_parser = super::numbers::parse_count)]
    search_limit: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// `subtraction --json`.
#[derive(Serialize)]
struct SubtractionReport {
    /// The subtraction set, sorted.
    moves: Vec<u64>,
    /// Preperiod of the win/loss pattern.
    preperiod: u64,
    /// Period of the win/loss pattern.
    period: u64,
    /// Preperiod of the Grundy sequence.
    grundy_preperiod: u64,
    /// Period of the Grundy sequence.
    grundy_period: u64,
    /// `--upto N`: N.
    #[serde(skip_serializing_if = "Option::is_none")]
    upto: Option<u64>,
    /// `--upto`: the heap sizes <= N that lose for the player to move.
    #[serde(skip_serializing_if = "Option::is_none")]
    losing: Option<Vec<u64>>,
    /// `--upto`: the Grundy value of every heap size 0..=N.
    #[serde(skip_serializing_if = "Option::is_none")]
    grundy: Option<Vec<u32>>,
    /// `--heap H`: H.
    #[serde(skip_serializing_if = "Option::is_none")]
    heap: Option<u64>,
    /// `--heap`: `first` (the player to move) or `second`.
    #[serde(skip_serializing_if = "Option::is_none")]
    winner: Option<&'static str>,
    /// `--heap`: how many to take to win, null when every move loses.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[allow(clippy::option_option)]
    r#move: Option<Option<u64>>,
    /// `--heap`: the heap's Grundy value.
    #[serde(skip_serializing_if = "Option::is_none")]
    heap_grundy: Option<u32>,
}

fn subtraction(args: &SubtractionArgs, out: &mut impl Write) -> Result<()> {
    let game = SubtractionGame::new(&args.moves).map_err(|e| usage(format!("--moves: {e}")))?;
    let analysis = game
        .analyse(args.search_limit)
        .map_err(|e| usage(format!("{e} (--search-limit)")))?;
    let outcome = analysis.outcome_periodicity();
    let values = analysis.grundy_periodicity();
    let upto = args
        .upto
        .map(|n| {
            usize::try_from(n)
                .ok()
                .filter(|&n| n < 1 << 32)
                .ok_or_else(|| {
                    usage(format!(
                        "--upto {n} lists too many heaps; use --heap for one huge heap"
                    ))
                })
        })
        .transpose()?;
    let moves = game.moves().to_vec();
    if args.json {
        let report = SubtractionReport {
            moves,
            preperiod: outcome.preperiod,
            period: outcome.period,
            grundy_preperiod: values.preperiod,
            grundy_period: values.period,
            upto: args.upto,
            losing: upto.map(|n| (0..=n as u64).filter(|&h| !analysis.wins(h)).collect()),
            grundy: upto.map(|n| (0..=n as u64).map(|h| analysis.grundy(h)).collect()),
            heap: args.heap,
            winner: args.heap.map(|h| winner(analysis.wins(h))),
            r#move: args.heap.map(|h| analysis.winning_move(h)),
            heap_grundy: args.heap.map(|h| analysis.grundy(h)),
        };
        serde_json::to_writer(&mut *out, &super::schema::versioned(&report))?;
        writeln!(out)?;
        return Ok(());
    }
    let set: Vec<String> = moves.iter().map(u64::to_string).collect();
    writeln!(out, "subtraction set: {{{}}}", set.join(", "))?;
    if let Some(n) = upto {
        writeln!(out, "heap\tto move\tgrundy")?;
        for h in 0..=n as u64 {
            let result = if analysis.wins(h) { "win" } else { "loss" };
            writeln!(out, "{h}\t{result}\t{}", analysis.grundy(h))?;
        }
        let losing: Vec<String> = (0..=n as u64)
            .filter(|&h| !analysis.wins(h))
            .map(|h| h.to_string())
            .collect();
        writeln!(out, "losing heaps up to {n}: {}", losing.join(" "))?;
    }
    writeln!(
        out,
        "win/loss pattern: preperiod {}, period {}",
        outcome.preperiod, outcome.period
    )?;
    writeln!(
        out,
        "grundy values: preperiod {}, period {} (proven: a window of {} values, the largest move, repeats)",
        values.preperiod,
        values.period,
        game.max_move()
    )?;
    if let Some(h) = args.heap {
        match analysis.winning_move(h) {
            Some(m) => writeln!(
                out,
                "heap {h}: the first player (to move) wins, grundy {}; winning move: take {m}, leaving {}",
                analysis.grundy(h),
                h - m
            )?,
            None => writeln!(
                out,
                "heap {h}: the second player wins, grundy 0; every move loses"
            )?,
        }
    }
    Ok(())
}

// ------------------------------------------------------------------------ nim

/// Flags of `nim`.
#[derive(ClapArgs, Debug)]
pub(crate) struct NimArgs {
    /// Heap sizes (up to 2^64 - 1 each).
    #[arg(required = true, value_name = "HEAP")]
    heaps: Vec<u64>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// `nim --json`.
#[derive(Serialize)]
struct NimReport {
    /// The heaps as given.
    heaps: Vec<u64>,
    /// The xor of the heaps.
    nim_sum: u64,
    /// `first` (the player to move) or `second`.
    winner: &'static str,
    /// Every winning move, by heap index.
    moves: Vec<NimMoveJson>,
}

/// One winning Nim move.
#[derive(Serialize)]
struct NimMoveJson {
    /// Heap index, from 0.
    heap: usize,
    /// Tokens to take.
    take: u64,
    /// Tokens left in that heap.
    leaves: u64,
}

fn nim(args: &NimArgs, out: &mut impl Write) -> Result<()> {
    let sum = nim_sum(&args.heaps);
    let moves: Vec<NimMoveJson> = winning_moves(&args.heaps)
        .into_iter()
        .map(|m| NimMoveJson {
            heap: m.heap,
            take: m.take,
            leaves: args.heaps[m.heap] - m.take,
        })
        .collect();
    if args.json {
        let report = NimReport {
            heaps: args.heaps.clone(),
            nim_sum: sum,
            winner: winner(sum != 0),
            moves,
        };
        serde_json::to_writer(&mut *out, &super::schema::versioned(&report))?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "nim-sum: {sum}")?;
    if sum == 0 {
        writeln!(out, "winner: second (every move leaves a non-zero nim-sum)")?;
        return Ok(());
    }
    writeln!(out, "winner: first (the player to move)")?;
    writeln!(out, "winning moves (heaps numbered from 0):")?;
    for m in &moves {
        writeln!(
            out,
            "  heap {}: take {} ({} -> {})",
            m.heap, m.take, args.heaps[m.heap], m.leaves
        )?;
    }
    Ok(())
}

// --------------------------------------------------------------------- grundy

/// How several pieces combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
enum CompoundArg {
    /// Move exactly one piece (the sum of games): xor of Grundy values.
    Disjunctive,
    /// Move any non-empty set of pieces: lost iff every piece is on a 0.
    Selective,
    /// Move every piece; play ends when some piece cannot move: remoteness.
    Conjunctive,
}

/// Most cells of a `grundy` board.
const MAX_CELLS: usize = 1 << 26;
/// Largest conjunctive product game (states x moves) solved directly.
const PRODUCT_WORK: u64 = 1 << 26;

/// Flags of `grundy`.
#[derive(ClapArgs, Debug)]
pub(crate) struct GrundyArgs {
    /// Board rows.
    #[arg(long, value_name = "R")]
    rows: usize,
    /// Board columns.
    #[arg(long, value_name = "C")]
    cols: usize,
    /// The piece's moves as (row, column) offsets: "DR,DC DR,DC ...".
    #[arg(long, value_name = "\"DR,DC ...\"", allow_hyphen_values = true, value_parser = parse_offsets)]
    moves: Offsets,
    /// Pieces on the board, "R,C R,C ..." (0-based, any number per cell): play
    /// their compound and report the winner and a winning move.
    #[arg(long, value_name = "\"R,C ...\"", num_args = 1.., value_parser = parse_cells)]
    pieces: Vec<Vec<(usize, usize)>>,
    /// How the pieces combine.
    #[arg(long, value_enum, default_value_t = CompoundArg::Disjunctive)]
    compound: CompoundArg,
    /// Also print the Grundy table when --pieces is given.
    #[arg(long)]
    table: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Debug)]
struct Offsets(Vec<(i64, i64)>);

fn parse_offsets(text: &str) -> Result<Offsets, String> {
    let offsets: Vec<(i64, i64)> = text
        .split_whitespace()
        .map(|pair| {
            let parsed = pair.split_once(',').and_then(|(r, c)| {
                Some((r.trim().parse::<i64>().ok()?, c.trim().parse::<i64>().ok()?))
            });
            parsed.ok_or_else(|| format!("expected DR,DC (two integers), found `{pair}`"))
        })
        .collect::<Result<_, _>>()?;
    if offsets.is_empty() {
        return Err("give at least one offset DR,DC".into());
    }
    Ok(Offsets(offsets))
}

fn parse_cells(text: &str) -> Result<Vec<(usize, usize)>, String> {
    text.split_whitespace()
        .map(super::common::parse_coord)
        .collect()
}

/// A piece in `grundy --json`.
#[derive(Serialize)]
struct PieceJson {
    /// Row, 0-based.
    row: usize,
    /// Column, 0-based.
    col: usize,
    /// Grundy value of its cell.
    grundy: u32,
    /// Remoteness of its cell (conjunctive compounds only).
    #[serde(skip_serializing_if = "Option::is_none")]
    remoteness: Option<u32>,
}

/// One piece's step in `grundy --json`.
#[derive(Serialize)]
struct StepJson {
    /// Index of the piece, from 0.
    piece: usize,
    /// Its cell before the move.
    from: [usize; 2],
    /// Its cell after the move.
    to: [usize; 2],
}

/// `grundy --json`.
#[derive(Serialize)]
struct GrundyReport {
    /// Board rows.
    rows: usize,
    /// Board columns.
    cols: usize,
    /// The offsets, without repeats.
    moves: Vec<[i64; 2]>,
    /// The Grundy table, row 0 first (without --pieces, or with --table).
    #[serde(skip_serializing_if = "Option::is_none")]
    grundy: Option<Vec<Vec<u32>>>,
    /// The compound rule (with --pieces).
    #[serde(skip_serializing_if = "Option::is_none")]
    compound: Option<CompoundArg>,
    /// The pieces (with --pieces).
    #[serde(skip_serializing_if = "Option::is_none")]
    pieces: Option<Vec<PieceJson>>,
    /// Disjunctive: the xor of the pieces' Grundy values.
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<u32>,
    /// Conjunctive: the compound's remoteness (the least of the pieces').
    #[serde(skip_serializing_if = "Option::is_none")]
    remoteness: Option<u32>,
    /// Conjunctive: the remoteness found by solving the product game with
    /// the engine, when it is small enough.
    #[serde(skip_serializing_if = "Option::is_none")]
    product_remoteness: Option<u32>,
    /// `first` (the player to move) or `second` (with --pieces).
    #[serde(skip_serializing_if = "Option::is_none")]
    winner: Option<&'static str>,
    /// A winning move for the player to move: the pieces that move and where
    /// (empty when the player to move loses). Conjunctive: the optimal move,
    /// also for the loser (every piece moves).
    #[serde(skip_serializing_if = "Option::is_none")]
    r#move: Option<Vec<StepJson>>,
}

fn grundy(args: &GrundyArgs, out: &mut impl Write) -> Result<()> {
    if args
        .rows
        .checked_mul(args.cols)
        .map_or(true, |cells| cells > MAX_CELLS)
    {
        return Err(usage(format!(
            "a {} x {} board is too large: at most {MAX_CELLS} cells (e.g. 4096 x 4096)",
            args.rows, args.cols
        )));
    }
    let game =
        PieceGame::new(args.rows, args.cols, &args.moves.0).map_err(|e| usage(e.to_string()))?;
    let values = game.grundy_values().map_err(|e| match e {
        retrograde::theory::grundy::GrundyError::Cycle { state } => {
            let (r, c) = game.coord(state);
            usage(format!(
                "the moves allow a cycle through cell {r},{c}: a piece could move forever, so Grundy \
                 values are not defined; use offsets that all decrease some measure such as the row"
            ))
        }
        other => usage(other.to_string()),
    })?;
    let pieces: Vec<(usize, usize)> = args.pieces.iter().flatten().copied().collect();
    for &(r, c) in &pieces {
        if r >= args.rows || c >= args.cols {
            return Err(usage(format!(
                "--pieces {r},{c} is off the {} x {} board",
                args.rows, args.cols
            )));
        }
    }
    let show_table = pieces.is_empty() || args.table;
    let mut report = GrundyReport {
        rows: args.rows,
        cols: args.cols,
        moves: game.offsets().iter().map(|&(r, c)| [r, c]).collect(),
        grundy: None,
        compound: None,
        pieces: None,
        value: None,
        remoteness: None,
        product_remoteness: None,
        winner: None,
        r#move: None,
    };
    if !pieces.is_empty() {
        compound_report(args.compound, &game, &values, &pieces, &mut report)?;
    }
    if args.json {
        if show_table {
            report.grundy = Some(values.chunks(args.cols).map(<[u32]>::to_vec).collect());
        }
        serde_json::to_writer(&mut *out, &super::schema::versioned(&report))?;
        writeln!(out)?;
        return Ok(());
    }
    if show_table {
        write_table(out, &values, args.cols)?;
    }
    if !pieces.is_empty() {
        write_compound(out, &report)?;
    }
    Ok(())
}

/// Rows of space-separated numbers, formatted by hand: a 4096 x 4096 table
/// is 16 million numbers.
fn write_table(out: &mut impl Write, values: &[u32], cols: usize) -> io::Result<()> {
    let mut line = Vec::with_capacity(cols * 4);
    for row in values.chunks(cols) {
        line.clear();
        for (i, &v) in row.iter().enumerate() {
            if i > 0 {
                line.push(b' ');
            }
            if v < 10 {
                line.push(b'0' + v as u8);
            } else {
                line.extend_from_slice(v.to_string().as_bytes());
            }
        }
        line.push(b'\n');
        out.write_all(&line)?;
    }
    Ok(())
}

fn compound_report(
    rule: CompoundArg,
    game: &PieceGame,
    values: &[u32],
    pieces: &[(usize, usize)],
    report: &mut GrundyReport,
) -> Result<()> {
    let states: Vec<u64> = pieces.iter().map(|&(r, c)| game.cell(r, c)).collect();
    let steps = |moves: &[CompoundMove]| -> Vec<StepJson> {
        moves
            .iter()
            .map(|m| {
                let (r, c) = pieces[m.piece];
                let (tr, tc) = game.coord(m.to);
                StepJson {
                    piece: m.piece,
                    from: [r, c],
                    to: [tr, tc],
                }
            })
            .collect()
    };
    let mut remoteness_of = None;
    let first_wins = match rule {
        CompoundArg::Disjunctive => {
            let (value, winning) = disjunctive(game, values, &states);
            report.value = Some(value);
            report.r#move = Some(steps(&winning.into_iter().collect::<Vec<_>>()));
            value != 0
        }
        CompoundArg::Selective => {
            let winning = selective(game, values, &states);
            report.r#move = Some(steps(winning.as_deref().unwrap_or(&[])));
            winning.is_some()
        }
        CompoundArg::Conjunctive => {
            let r = remoteness(game, Engine::Sequential).context("remoteness")?;
            let verdict = conjunctive(game, &r, &states);
            report.remoteness = Some(verdict.remoteness);
            report.product_remoteness = product_remoteness(game, &states)?;
            if let Some(p) = report.product_remoteness {
                anyhow::ensure!(
                    p == verdict.remoteness,
                    "internal error: the product game has remoteness {p} but the pieces' least is {}",
                    verdict.remoteness
                );
            }
            report.r#move = Some(steps(&verdict.best_move));
            remoteness_of = Some(r);
            verdict.mover_wins()
        }
    };
    report.compound = Some(rule);
    report.winner = Some(winner(first_wins));
    report.pieces = Some(
        pieces
            .iter()
            .zip(&states)
            .map(|(&(row, col), &s)| PieceJson {
                row,
                col,
                grundy: values[s as usize],
                remoteness: remoteness_of.as_ref().map(|r| r[s as usize]),
            })
            .collect(),
    );
    Ok(())
}

/// Solves the conjunctive product game itself with the engine when it is
/// small enough, and returns the start's distance to end (its remoteness).
fn product_remoteness(game: &PieceGame, states: &[u64]) -> Result<Option<u32>> {
    let Some(product) = ConjunctiveGame::new(game, states.len()) else {
        return Ok(None);
    };
    if product
        .state_count()
        .checked_mul(u64::from(product.max_moves()))
        .map_or(true, |work| work > PRODUCT_WORK)
    {
        return Ok(None);
    }
    let start = product.encode(states);
    let solution = solve(
        &product,
        &SolveOptions::new(Engine::Sequential).with_tracked_state(Some(start)),
    )
    .context("solving the product game")?;
    Ok(solution.dte(start).map(|d| d.plies()))
}

fn write_compound(out: &mut impl Write, r: &GrundyReport) -> io::Result<()> {
    let pieces = r.pieces.as_deref().unwrap_or(&[]);
    let listed: Vec<String> = pieces
        .iter()
        .map(|p| match p.remoteness {
            Some(rem) => format!(
                "{},{} (grundy {}, remoteness {rem})",
                p.row, p.col, p.grundy
            ),
            None => format!("{},{} (grundy {})", p.row, p.col, p.grundy),
        })
        .collect();
    writeln!(out, "pieces: {}", listed.join(", "))?;
    match r.compound {
        Some(CompoundArg::Disjunctive) => writeln!(
            out,
            "compound: disjunctive (move one piece): xor of the Grundy values = {}",
            r.value.unwrap_or(0)
        )?,
        Some(CompoundArg::Selective) => writeln!(
            out,
            "compound: selective (move any non-empty set of pieces): lost iff every piece is on a Grundy-0 cell"
        )?,
        _ => {
            write!(
                out,
                "compound: conjunctive (move every piece; play ends when a piece cannot move): remoteness {} (the least of the pieces')",
                r.remoteness.unwrap_or(0)
            )?;
            match r.product_remoteness {
                Some(p) => writeln!(out, "; the product game solved by the engine agrees: {p}")?,
                None => writeln!(out)?,
            }
        }
    }
    let first = r.winner == Some("first");
    writeln!(
        out,
        "winner: {}",
        if first {
            "first (the player to move)"
        } else {
            "second (the player to move loses)"
        }
    )?;
    let steps = r.r#move.as_deref().unwrap_or(&[]);
    let text: Vec<String> = steps
        .iter()
        .map(|s| {
            format!(
                "piece {} {},{} -> {},{}",
                s.piece, s.from[0], s.from[1], s.to[0], s.to[1]
            )
        })
        .collect();
    if first {
        writeln!(out, "winning move: {}", text.join("; "))?;
    } else if text.is_empty() {
        writeln!(out, "winning move: none (every move loses)")?;
    } else {
        writeln!(out, "best move (holds out longest): {}", text.join("; "))?;
    }
    Ok(())
}

// ----------------------------------------------------------------- empty-cell

/// Flags of `empty-cell`.
#[derive(ClapArgs, Debug)]
pub(crate) struct EmptyCellArgs {
    /// Contest input: `n m`, n rows of O/X/., `k`, then 2k lines `row col`
    /// (1-based); `-` reads stdin.
    file: PathBuf,
    /// Print one JSON object instead of the contest output.
    #[arg(long)]
    json: bool,
}

/// `empty-cell --json`.
#[derive(Serialize)]
struct EmptyCellReport {
    /// Number of rounds in which the first player threw away a win.
    count: usize,
    /// Those rounds, 1-based, increasing.
    rounds: Vec<usize>,
}

fn empty_cell(args: &EmptyCellArgs, out: &mut impl Write) -> Result<()> {
    let name = args.file.display().to_string();
    let text = if name == "-" {
        io::read_to_string(io::stdin()).context("reading standard input")?
    } else {
        std::fs::read_to_string(&args.file).map_err(|source| retrograde::Error::Io {
            path: args.file.clone(),
            source,
        })?
    };
    let input = parse_contest(&text, &name)?;
    let rounds = input.mistakes()?;
    if args.json {
        serde_json::to_writer(
            &mut *out,
            &super::schema::versioned(&EmptyCellReport {
                count: rounds.len(),
                rounds,
            }),
        )?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "{}", rounds.len())?;
    for round in rounds {
        writeln!(out, "{round}")?;
    }
    Ok(())
}
