//! `play --interactive`: a person plays one side against the table's
//! best moves, one move a line on standard input.

use std::collections::HashMap;
use std::io::{BufRead, Write};

use anyhow::{Context, Result};
use retrograde::{Position, RatedMove, Tablebase, Turn};

use super::ply_line;
use super::text::ending;
use crate::cli::common::parse_coord;
use crate::cli::common::UsageError;
use crate::cli::tables::{read_line_bounded, show_all, too_long, Line};

/// What the person typed: a move, or the end of the game.
enum Choice {
    Move(Position),
    Quit,
}

/// A person plays `human` against the table's best moves; moves are read
/// one per line (a move number from the list, or the target `ROW,COL`;
/// `q` quits).
pub(super) fn interactive(
    tb: &Tablebase,
    start: Position,
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
    let mut seen: HashMap<Position, usize> = HashMap::new();
    // Lines of standard input read so far, to locate an error.
    let mut lines = 0;
    for ply in 0..=max_plies {
        ply_line(out, tb, ply, "", &pos, true)?;
        let moves = tb.rated_moves(&pos)?;
        let count = seen.entry(pos).or_insert(0);
        *count += 1;
        if moves.is_empty() || *count == 3 || ply == max_plies {
            let repeated = *count == 3;
            writeln!(out, "game over: {}", ending(tb, &pos, repeated, ply))?;
            return Ok(0);
        }
        pos = if pos.turn == human {
            match human_move(tb, &pos, &moves, input, &mut lines, out)? {
                Choice::Move(to) => to,
                Choice::Quit => return Ok(0),
            }
        } else {
            table_move(tb, &pos, &moves[0], out)?
        };
    }
    unreachable!("the loop returns at max_plies")
}

/// The table's best move, told.
fn table_move(
    tb: &Tablebase,
    pos: &Position,
    best: &RatedMove,
    out: &mut impl Write,
) -> Result<Position> {
    if best.cells() == pos.mover() {
        writeln!(out, "the {} passes", pos.turn.as_str())?;
    } else {
        writeln!(
            out,
            "the {} moves to {}",
            pos.turn.as_str(),
            show_all(tb, best.cells(), false)
        )?;
    }
    Ok(best.to)
}

/// The person's move, asked until a legal one is typed; `lines` counts
/// the lines read. A line longer than any move ends the game with an
/// error (exit status 2) as soon as it passes the limit.
fn human_move(
    tb: &Tablebase,
    pos: &Position,
    moves: &[RatedMove],
    input: &mut impl BufRead,
    lines: &mut usize,
    out: &mut impl Write,
) -> Result<Choice> {
    // Numbered by cell, not by rating: the list must not give the best
    // move away.
    let mut targets: Vec<&RatedMove> = moves.iter().collect();
    targets.sort_unstable_by(|a, b| a.cells().cmp(b.cells()));
    let list: Vec<String> = targets
        .iter()
        .enumerate()
        .map(|(k, m)| {
            let pass = if m.cells() == pos.mover() {
                " (pass)"
            } else {
                ""
            };
            format!("{}) {}{pass}", k + 1, show_all(tb, m.cells(), false))
        })
        .collect();
    loop {
        writeln!(out, "your move: {}", list.join("  "))?;
        out.flush()?;
        let mut buf = Vec::new();
        *lines += 1;
        let line = match read_line_bounded(input, &mut buf).context("cannot read standard input")? {
            Line::End => {
                writeln!(out, "input ended: game abandoned")?;
                return Ok(Choice::Quit);
            }
            Line::Text(line) => line,
            Line::Bad(why) => {
                writeln!(out, "not a legal move: {why}")?;
                continue;
            }
            Line::TooLong => {
                // Its end may never come: the game ends here.
                out.flush()?;
                return Err(UsageError(too_long(*lines)).into());
            }
        };
        let line = line.trim();
        if line == "q" || line == "quit" {
            writeln!(out, "game abandoned")?;
            return Ok(Choice::Quit);
        }
        let chosen = match line.parse::<usize>() {
            Ok(k) if (1..=targets.len()).contains(&k) => Some(targets[k - 1]),
            _ => typed_cells(tb, line, pos.mover().len())
                .and_then(|cells| targets.iter().copied().find(|m| m.cells() == cells)),
        };
        match chosen {
            Some(m) => return Ok(Choice::Move(m.to)),
            None => writeln!(out, "not a legal move: `{line}`")?,
        }
    }
}

/// The cells of a typed target: one `ROW,COL`, or `want` of them
/// separated by spaces (the cops' move), ascending; `None` unless each is
/// a free cell.
fn typed_cells(tb: &Tablebase, line: &str, want: usize) -> Option<Vec<u32>> {
    let places = if want == 1 {
        vec![parse_coord(line).ok()?]
    } else {
        let words = line.split_whitespace();
        words
            .map(|w| parse_coord(w).ok())
            .collect::<Option<Vec<_>>>()?
    };
    let mut cells = places
        .into_iter()
        .map(|c| tb.cell_at(c))
        .collect::<Option<Vec<_>>>()?;
    cells.sort_unstable();
    Some(cells)
}
