//! The game-theory toolkit commands: `subtraction`, `nim`, `grundy` and
//! `empty-cell`. Each parses its flags, calls one `retrograde::theory`
//! function, and prints text or one JSON object.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::{Args as ClapArgs, Subcommand};
use retrograde::theory::empty_cell::read_contest;
use retrograde::theory::nim::{nim_sum, winning_moves};
use retrograde::theory::subtraction::{Analysis, Answers, SubtractionGame};
use serde::Serialize;

use super::common::UsageError;
use crate::cli::failure::Failure;

mod grundy;

use grundy::{grundy, GrundyArgs};

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
        Err(e) if super::output::is_closed_stdout(&e) => Ok(0),
        Err(e) => Err(e.into()),
    }
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
struct SubtractionReport<'a> {
    /// The subtraction set, sorted.
    moves: Vec<u64>,
    /// Preperiod of the win/loss pattern (null when not found).
    preperiod: Option<u64>,
    /// Period of the win/loss pattern (null when not found).
    period: Option<u64>,
    /// Preperiod of the Grundy sequence (null when not found).
    grundy_preperiod: Option<u64>,
    /// Period of the Grundy sequence (null when not found).
    grundy_period: Option<u64>,
    /// Why the period was not found, when every heap asked is below the
    /// smallest move and was answered without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    no_period: Option<String>,
    /// `--upto N`: N.
    #[serde(skip_serializing_if = "Option::is_none")]
    upto: Option<u64>,
    /// `--upto`: the heap sizes <= N that lose for the player to move.
    #[serde(skip_serializing_if = "Option::is_none")]
    losing: Option<Heaps<'a>>,
    /// `--upto`: the Grundy value of every heap size 0..=N.
    #[serde(skip_serializing_if = "Option::is_none")]
    grundy: Option<Heaps<'a>>,
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

/// A list over the heaps 0..=N, written as it is computed: `--upto` may
/// be as large as a u64 and memory stays bounded.
struct Heaps<'a> {
    answers: &'a Answers,
    upto: u64,
    /// Grundy values of every heap, or the losing heaps.
    grundy: bool,
}

impl Serialize for Heaps<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let heaps = 0..=self.upto;
        let answers = self.answers;
        if self.grundy {
            s.collect_seq(heaps.map(|h| answers.grundy(h)))
        } else {
            s.collect_seq(heaps.filter(|&h| !answers.wins(h)))
        }
    }
}

fn subtraction(args: &SubtractionArgs, out: &mut impl Write) -> Result<()> {
    let game = SubtractionGame::new(&args.moves).map_err(|e| usage(format!("--moves: {e}")))?;
    let smallest = game.moves()[0];
    // Heaps below the smallest move have no move: they need no period.
    let largest = args.upto.unwrap_or(0).max(args.heap.unwrap_or(0));
    let answers = game
        .answers(args.search_limit, largest)
        .map_err(|e| usage(format!("{e} (--search-limit)")))?;
    let no_period = match &answers {
        Answers::BelowSmallestMove { why, .. } => Some(format!("{why} (--search-limit)")),
        Answers::Periodic(_) => None,
    };
    let answers = &answers;
    let outcome = answers.analysis().map(Analysis::outcome_periodicity);
    let values = answers.analysis().map(Analysis::grundy_periodicity);
    // Every list below is streamed, never collected.
    let upto = args.upto;
    let moves = game.moves().to_vec();
    if args.json {
        let report = SubtractionReport {
            moves,
            preperiod: outcome.map(|p| p.preperiod),
            period: outcome.map(|p| p.period),
            grundy_preperiod: values.map(|p| p.preperiod),
            grundy_period: values.map(|p| p.period),
            no_period,
            upto: args.upto,
            losing: upto.map(|upto| Heaps {
                answers,
                upto,
                grundy: false,
            }),
            grundy: upto.map(|upto| Heaps {
                answers,
                upto,
                grundy: true,
            }),
            heap: args.heap,
            winner: args.heap.map(|h| winner(answers.wins(h))),
            r#move: args.heap.map(|h| answers.winning_move(h)),
            heap_grundy: args.heap.map(|h| answers.grundy(h)),
        };
        serde_json::to_writer(&mut *out, &super::schema::versioned(&report))?;
        writeln!(out)?;
        return Ok(());
    }
    let set: Vec<String> = moves.iter().map(u64::to_string).collect();
    writeln!(out, "subtraction set: {{{}}}", set.join(", "))?;
    if let Some(n) = upto {
        writeln!(out, "heap\tto move\tgrundy")?;
        for h in 0..=n {
            let result = if answers.wins(h) { "win" } else { "loss" };
            writeln!(out, "{h}\t{result}\t{}", answers.grundy(h))?;
        }
        write!(out, "losing heaps up to {n}:")?;
        for h in (0..=n).filter(|&h| !answers.wins(h)) {
            write!(out, " {h}")?;
        }
        writeln!(out)?;
    }
    match (outcome, values, no_period) {
        (Some(outcome), Some(values), _) => {
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
        }
        (_, _, why) => {
            writeln!(out, "period: unknown ({})", why.unwrap_or_default())?;
            writeln!(
                out,
                "heaps 0 to {}, below the smallest move, lose with grundy 0 (no move is possible)",
                smallest - 1
            )?;
        }
    }
    if let Some(h) = args.heap {
        match answers.winning_move(h) {
            Some(m) => writeln!(
                out,
                "heap {h}: the first player (to move) wins, grundy {}; winning move: take {m}, leaving {}",
                answers.grundy(h),
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
    // Read a token at a time: a bad input is rejected at its first bad
    // token, not after reading it all.
    let input = if args.file.as_os_str() == "-" {
        read_contest(io::stdin().lock(), &args.file)?
    } else {
        let file = std::fs::File::open(&args.file).map_err(|source| retrograde::Error::Io {
            path: args.file.clone(),
            source,
        })?;
        read_contest(io::BufReader::with_capacity(1 << 16, file), &args.file)?
    };
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
