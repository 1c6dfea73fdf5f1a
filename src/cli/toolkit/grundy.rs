//! `retrograde grundy`: Grundy numbers of a piece moving by fixed offsets
//! on a board, and compounds (sums) of several pieces.

use std::io::{self, Write};

use anyhow::{Context, Result};
use clap::{Args as ClapArgs, ValueEnum};
use retrograde::theory::compound::{
    conjunctive, disjunctive, remoteness, selective, CompoundMove, ConjunctiveGame,
};
use retrograde::theory::piece::PieceGame;
use retrograde::{solve, Engine, Game, SolveOptions};
use serde::Serialize;

use super::{usage, winner};
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
        .map(crate::cli::common::parse_coord)
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

pub(super) fn grundy(args: &GrundyArgs, out: &mut impl Write) -> Result<()> {
    if args
        .rows
        .checked_mul(args.cols)
        .is_none_or(|cells| cells > MAX_CELLS)
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
        serde_json::to_writer(&mut *out, &crate::cli::schema::versioned(&report))?;
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
        .is_none_or(|work| work > PRODUCT_WORK)
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
