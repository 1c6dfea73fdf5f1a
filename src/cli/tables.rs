//! A saved one-cop or several-cops table as the commands that read one
//! (`query`, `play`, `render`, `info`, `serve`) share it: opening it, the
//! one-cop position from the flags, a position's JSON ([`position_json`])
//! and text, the side flag and input lines read with a bound. Not a
//! command itself, so that no command imports another.

use anyhow::{Context, Result};
use clap::ValueEnum;
use retrograde::{AnyTablebase, Coord, Dte, Position, Tablebase, Turn};
use serde::Serialize;

use super::common::{UsageError, VERTEX};

/// A side on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Side {
    /// The cop (policeman).
    Cop,
    /// The thief.
    Thief,
}

impl From<Side> for Turn {
    fn from(s: Side) -> Turn {
        match s {
            Side::Cop => Turn::Cop,
            Side::Thief => Turn::Thief,
        }
    }
}

/// The one cell of `--cop` or `--thief` for a one-cop table: a map cell
/// `ROW,COL`, never a vertex id.
pub(crate) fn one_cell(flag: &str, place: Coord) -> Result<Coord, UsageError> {
    match place {
        (VERTEX, v) => Err(UsageError(format!(
            "{flag} {v}: expected ROW,COL (two 0-based integers; X,Y with --xy); vertex ids are for tables of graphs"
        ))),
        c => Ok(c),
    }
}

/// The cop of a one-cop table's `--cop` flags: exactly one.
pub(crate) fn one_cop(cops: &[Coord]) -> Result<Coord, UsageError> {
    match cops {
        [c] => one_cell("--cop", *c),
        _ => Err(super::ktable::count_error(1, cops.len())),
    }
}

/// One rated move in [`PositionJson`].
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct MoveJson {
    /// The mover's cell after the move, `[row, column]`.
    to: [usize; 2],
    /// Its value for the player who moves.
    value: &'static str,
    /// Its distance to end (null for a draw or a table without distances).
    dte: Option<u32>,
}

/// The JSON of one position (`query --json`, `serve`'s `/api/query`):
/// `"schema"` first, the position, its value and distance for the player
/// to move, and every move rated, best first. A struct rather than a
/// `json!` map so that the keys keep this order.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct PositionJson {
    schema: u32,
    cop: [usize; 2],
    thief: [usize; 2],
    turn: &'static str,
    value: &'static str,
    dte: Option<u32>,
    moves: Vec<MoveJson>,
}

/// The JSON of one position: its value and distance for the player to
/// move, and every move rated, best first.
pub(crate) fn position_json(tb: &Tablebase, pos: &Position) -> Result<PositionJson> {
    let probe = tb.probe(pos)?;
    let moves = tb
        .rated_moves(pos)?
        .iter()
        .map(|m| MoveJson {
            to: [m.to.0, m.to.1],
            value: m.value.as_str(),
            dte: m.dte.map(|d| d.plies()),
        })
        .collect();
    Ok(PositionJson {
        schema: super::schema::SCHEMA,
        cop: [pos.cop.0, pos.cop.1],
        thief: [pos.thief.0, pos.thief.1],
        turn: pos.turn.as_str(),
        value: probe.value.as_str(),
        dte: probe.dte.map(|d| d.plies()),
        moves,
    })
}

/// A value with its distance, as text: `win in 7`, `draw`.
pub(crate) fn value_text(value: retrograde::Outcome, dte: Option<Dte>) -> String {
    match dte {
        Some(d) => format!("{value} in {d}"),
        None => value.to_string(),
    }
}

/// The cell of the player to move.
pub(crate) fn mover_cell(pos: &Position) -> Coord {
    match pos.turn {
        Turn::Cop => pos.cop,
        Turn::Thief => pos.thief,
    }
}

/// Opens a table of either game with the file named in errors.
pub(crate) fn open_any_table(path: &std::path::Path) -> Result<AnyTablebase> {
    AnyTablebase::open(path).with_context(|| format!("cannot open table {}", path.display()))
}

/// Longest input line `query --stdin` and `play --interactive` accept: a
/// position is a few dozen bytes, and a longer line is skipped as it is
/// read, never held whole.
pub(crate) const MAX_LINE_BYTES: usize = 4096;

/// One line of input, as [`read_line_bounded`] read it.
pub(crate) enum Line {
    /// The input ended.
    End,
    /// A line (without its newline).
    Text(String),
    /// A line too long or not UTF-8: why, to report; it was consumed.
    Bad(String),
}

/// Reads one line holding at most [`MAX_LINE_BYTES`] of it in `buf`.
pub(crate) fn read_line_bounded(
    input: &mut impl std::io::BufRead,
    buf: &mut Vec<u8>,
) -> std::io::Result<Line> {
    buf.clear();
    let mut total = 0usize;
    let mut any = false;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        let room = (MAX_LINE_BYTES + 1).saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..take.min(room)]);
        total = total.saturating_add(take);
        input.consume(take + usize::from(done));
        if done {
            break;
        }
    }
    if !any {
        return Ok(Line::End);
    }
    if total > MAX_LINE_BYTES {
        return Ok(Line::Bad(format!(
            "line of {total} bytes, longer than the {MAX_LINE_BYTES} a position needs: skipped"
        )));
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    match std::str::from_utf8(buf) {
        Ok(s) => Ok(Line::Text(s.to_string())),
        Err(e) => Ok(Line::Bad(format!(
            "not UTF-8 text (invalid byte at column {}): skipped",
            e.valid_up_to() + 1
        ))),
    }
}
