//! `retrograde play FILE.rtb`: the optimal game from the start (or a
//! given position) as text frames and optionally a GIF; `--interactive`:
//! a person plays one side against the table.

/// Several-cops tables (this command's part).
mod kcops;

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args as ClapArgs;
use retrograde::render::{game_frames, write_gif};
use retrograde::{Coord, GridPosition, GridTablebase, Outcome, Probe, Turn};

use super::common::{parse_coord, parse_place, UsageError};
use super::output::{note_input, OutputTarget};
use super::tables::{mover_cell, open_any_table, read_line_bounded, value_text, Line, Side};
use super::Failure;

/// Flags of `play`.
#[derive(ClapArgs, Debug)]
pub(crate) struct PlayArgs {
    /// Table file written by `solve --save` (for a partitioned solve: any
    /// shard, or the name it was saved under).
    pub(crate) table: PathBuf,
    /// The cop's cell ROW,COL [default: the map's start]; a table of K
    /// cops takes it K times, a graph's table vertex ids V.
    #[arg(long, value_name = "ROW,COL", value_parser = parse_place, requires = "thief")]
    pub(crate) cop: Vec<Coord>,
    /// The thief's cell ROW,COL (V on a graph) [default: the map's start].
    #[arg(long, value_name = "ROW,COL", value_parser = parse_place, requires = "cop")]
    pub(crate) thief: Option<Coord>,
    /// Who moves first [default: the rules' first mover].
    #[arg(long, value_enum)]
    pub(crate) turn: Option<Side>,
    /// Also write the game as an animated GIF.
    #[arg(long, value_name = "OUT.gif", conflicts_with = "interactive")]
    pub(crate) gif: Option<PathBuf>,
    /// Play one side yourself (moves read from stdin) against the table.
    #[arg(long)]
    pub(crate) interactive: bool,
    /// The side you play with --interactive [default: the side to move].
    #[arg(long, value_enum, requires = "interactive")]
    pub(crate) side: Option<Side>,
    /// One line per ply (the move and the value), no board: the default
    /// on maps over 40 rows or 80 columns, and on graphs.
    #[arg(long, conflicts_with_all = ["board", "interactive"])]
    pub(crate) moves: bool,
    /// The board after every ply, whatever the map's size.
    #[arg(long)]
    pub(crate) board: bool,
    /// Stop after this many plies.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub(crate) max_plies: usize,
}

/// The map as text with the pieces: `#` wall, `E` exit, `C` cop, `T`
/// thief, `X` both on one cell (caught).
fn board_text(tb: &GridTablebase, pos: &GridPosition) -> String {
    let mut s = String::new();
    for r in 0..tb.rows() {
        for c in 0..tb.cols() {
            let here = (r, c);
            s.push(if here == pos.cop && here == pos.thief {
                'X'
            } else if here == pos.cop {
                'C'
            } else if here == pos.thief {
                'T'
            } else if !tb.is_free(here) {
                '#'
            } else if tb.is_exit(here) {
                'E'
            } else {
                '.'
            });
        }
        s.push('\n');
    }
    s
}

/// The value for the cops' side told as words; `cops_win` names their
/// win ("the cop wins", "the cops win").
fn value_words(p: &Probe, turn: Turn, cops_win: &str) -> String {
    let cops = if turn == Turn::Cop {
        p.value
    } else {
        p.value.flip()
    };
    let what = match cops {
        Outcome::Win => cops_win,
        Outcome::Loss => "the thief escapes",
        Outcome::Draw => "a draw",
    };
    match p.dte {
        Some(d) => format!(
            "{what} in {d} {}",
            if d.plies() == 1 { "ply" } else { "plies" }
        ),
        None => what.to_string(),
    }
}

/// A board larger than this (rows, columns) is not printed every ply
/// unless `--board` asks: 40 x 80 fits a terminal, and a 194 x 194 map
/// would print thousands of lines for one game.
pub(crate) const BOARD_LIMIT: (usize, usize) = (40, 80);

/// The ply that led from `before` to `after`, in words.
fn move_words(before: &GridPosition, after: &GridPosition) -> String {
    let from = mover_cell(before);
    let to = match before.turn {
        Turn::Cop => after.cop,
        Turn::Thief => after.thief,
    };
    if from == to {
        format!("the {} passes", before.turn.as_str())
    } else {
        format!(
            "the {} moves {},{} -> {},{}",
            before.turn.as_str(),
            from.0,
            from.1,
            to.0,
            to.1
        )
    }
}

/// A ply as one line, without the board (`--moves`).
fn move_line(
    out: &mut impl Write,
    tb: &GridTablebase,
    ply: usize,
    before: Option<&GridPosition>,
    pos: &GridPosition,
) -> Result<()> {
    let p = tb.probe(pos)?;
    let what = before.map_or("start".to_string(), |b| move_words(b, pos));
    writeln!(
        out,
        "ply {ply}: {what}; {} to move (cop {},{}, thief {},{}): {} ({})",
        pos.turn.as_str(),
        pos.cop.0,
        pos.cop.1,
        pos.thief.0,
        pos.thief.1,
        value_text(p.value, p.dte),
        value_words(&p, pos.turn, "the cop wins")
    )?;
    Ok(())
}

fn frame(out: &mut impl Write, tb: &GridTablebase, ply: usize, pos: &GridPosition) -> Result<()> {
    let p = tb.probe(pos)?;
    writeln!(
        out,
        "ply {ply}: {} to move (cop {},{}, thief {},{}): {} ({})",
        pos.turn.as_str(),
        pos.cop.0,
        pos.cop.1,
        pos.thief.0,
        pos.thief.1,
        value_text(p.value, p.dte),
        value_words(&p, pos.turn, "the cop wins")
    )?;
    write!(out, "{}", board_text(tb, pos))?;
    Ok(())
}

/// The end of a game at a repeated position, in words, from what the
/// table says of it (`value`): a draw only when the table says so.
fn repeated_words(value: retrograde::Result<Outcome>, turn: Turn, plies: usize) -> String {
    match value {
        Ok(Outcome::Draw) => {
            format!("the position repeats after {plies} plies: a draw (the thief evades forever)")
        }
        Ok(value) => format!(
            "stopped after {plies} plies at a repeated position: the table says {} for the {} to move, but it keeps no distances (saved without --dte-table), so the game cannot be played out to its end",
            value.as_str().to_uppercase(),
            turn.as_str()
        ),
        Err(e) => format!("stopped after {plies} plies: {e}"),
    }
}

/// How a game ended, in words.
fn ending(tb: &GridTablebase, pos: &GridPosition, repeated: bool, plies: usize) -> String {
    if pos.cop == pos.thief {
        format!("the cop catches the thief after {plies} plies")
    } else if tb.is_exit(pos.thief) {
        format!("the thief escapes after {plies} plies")
    } else if repeated {
        // Without distances the moves keep the value but need not make
        // progress: a decided position can cycle, and the verdict is then
        // the table's, never "a draw".
        repeated_words(tb.probe(pos).map(|p| p.value), pos.turn, plies)
    } else if tb.rated_moves(pos).map(|m| m.is_empty()).unwrap_or(false) {
        format!(
            "{} cannot move after {plies} plies and loses",
            pos.turn.as_str()
        )
    } else {
        format!("stopped after {plies} plies (--max-plies)")
    }
}

fn start_position(args: &PlayArgs, tb: &GridTablebase) -> Result<GridPosition> {
    match (args.cop.is_empty(), args.thief) {
        (false, Some(t)) => {
            let turn = args.turn.map_or(tb.first_mover(), Turn::from);
            let c = super::tables::one_cop(&args.cop)?;
            Ok(tb.position(c, super::tables::one_cell("--thief", t)?, turn)?)
        }
        _ => {
            let mut start = tb.start().ok_or_else(|| {
                UsageError(
                    "the table's map has no cop and thief start: give --cop and --thief".into(),
                )
            })?;
            if let Some(t) = args.turn {
                start.turn = t.into();
            }
            Ok(start)
        }
    }
}

/// Runs `play`; returns the exit status.
pub(crate) fn run(args: PlayArgs) -> Result<i32, Failure> {
    // The picture's path is checked before any work.
    note_input("the table", &args.table)?;
    let gif_target = args
        .gif
        .as_deref()
        .map(|p| OutputTarget::check("--gif", p))
        .transpose()?;
    let tb = match open_any_table(&args.table)? {
        retrograde::AnyTablebase::One(tb) => tb,
        retrograde::AnyTablebase::Several(tb) => {
            return kcops::run(&args, &tb, gif_target.is_some())
        }
    };
    let start = start_position(&args, &tb)?;
    if args.interactive {
        let human = args.side.map_or(start.turn, Turn::from);
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        return Ok(interactive(
            &tb,
            start,
            human,
            args.max_plies,
            &mut stdin.lock(),
            &mut stdout.lock(),
        )?);
    }
    let game = tb.optimal_game(&start, args.max_plies)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if !tb.header().has_dte {
        writeln!(
            out,
            "note: this table has no distances (saved without --dte-table): moves keep the value but may not be the fastest"
        )?;
    }
    let large = tb.rows() > BOARD_LIMIT.0 || tb.cols() > BOARD_LIMIT.1;
    let boards = !args.moves && (args.board || !large);
    if large && !args.moves && !args.board {
        writeln!(
            out,
            "note: the map is {} x {}: one line per ply (--board prints the board every ply)",
            tb.rows(),
            tb.cols()
        )?;
    }
    for (ply, pos) in game.iter().enumerate() {
        if boards {
            frame(&mut out, &tb, ply, pos)?;
        } else {
            let before = ply.checked_sub(1).map(|k| &game[k]);
            move_line(&mut out, &tb, ply, before, pos)?;
        }
    }
    let last = game.last().expect("a game has its start");
    let repeated = game[..game.len() - 1].contains(last);
    writeln!(out, "{}", ending(&tb, last, repeated, game.len() - 1))?;
    if let Some(target) = gif_target {
        let frames = game_frames(&tb, &game)?;
        // Encoded first, as render's PNG: a closed pipe stays visible.
        let mut gif = Vec::new();
        write_gif(&frames, &mut gif)?;
        target.write_with(|f| f.write_all(&gif))?;
    }
    Ok(0)
}

/// A person plays `human` against the table's best moves; moves are read
/// one per line (a move number from the list, or the target `ROW,COL`;
/// `q` quits).
fn interactive(
    tb: &GridTablebase,
    start: GridPosition,
    human: Turn,
    max_plies: usize,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<i32> {
    writeln!(
        out,
        "you play the {}; moves: a number from the list or a target cell ROW,COL; q quits",
        human.as_str()
    )?;
    let mut pos = start;
    let mut seen: HashMap<GridPosition, usize> = HashMap::new();
    for ply in 0..=max_plies {
        frame(out, tb, ply, &pos)?;
        let moves = tb.rated_moves(&pos)?;
        let count = seen.entry(pos).or_insert(0);
        *count += 1;
        if moves.is_empty() || *count == 3 || ply == max_plies {
            let repeated = *count == 3;
            writeln!(out, "game over: {}", ending(tb, &pos, repeated, ply))?;
            return Ok(0);
        }
        let from = mover_cell(&pos);
        let to = if pos.turn == human {
            // Numbered by cell, not by rating: the list must not give the
            // best move away.
            let mut targets: Vec<Coord> = moves.iter().map(|m| m.to).collect();
            targets.sort_unstable();
            let list: Vec<String> = targets
                .iter()
                .enumerate()
                .map(|(k, c)| {
                    let pass = if *c == from { " (pass)" } else { "" };
                    format!("{}) {},{}{pass}", k + 1, c.0, c.1)
                })
                .collect();
            loop {
                writeln!(out, "your move: {}", list.join("  "))?;
                out.flush()?;
                let mut buf = Vec::new();
                let line = match read_line_bounded(input, &mut buf)
                    .context("cannot read standard input")?
                {
                    Line::End => {
                        writeln!(out, "input ended: game abandoned")?;
                        return Ok(0);
                    }
                    Line::Text(line) => line,
                    Line::Bad(why) => {
                        writeln!(out, "not a legal move: {why}")?;
                        continue;
                    }
                };
                let line = line.trim();
                if line == "q" || line == "quit" {
                    writeln!(out, "game abandoned")?;
                    return Ok(0);
                }
                let chosen = match line.parse::<usize>() {
                    Ok(k) if (1..=targets.len()).contains(&k) => Some(targets[k - 1]),
                    _ => parse_coord(line).ok().filter(|c| targets.contains(c)),
                };
                match chosen {
                    Some(c) => break c,
                    None => writeln!(out, "not a legal move: `{line}`")?,
                }
            }
        } else {
            let best = moves[0];
            if best.to == from {
                writeln!(out, "the {} passes", pos.turn.as_str())?;
            } else {
                writeln!(
                    out,
                    "the {} moves to {},{}",
                    pos.turn.as_str(),
                    best.to.0,
                    best.to.1
                )?;
            }
            best.to
        };
        pos = match pos.turn {
            Turn::Cop => GridPosition {
                cop: to,
                turn: Turn::Thief,
                ..pos
            },
            Turn::Thief => GridPosition {
                thief: to,
                turn: Turn::Cop,
                ..pos
            },
        };
    }
    unreachable!("the loop returns at max_plies")
}
