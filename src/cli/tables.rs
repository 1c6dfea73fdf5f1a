//! A saved one-cop or several-cops table as the commands that read one
//! (`query`, `play`, `render`, `info`, `serve`) share it: opening it, the
//! one-cop position from the flags, a position's JSON ([`position_json`])
//! and text, the side flag and input lines read with a bound. Not a
//! command itself, so that no command imports another.

use anyhow::{Context, Result};
use clap::ValueEnum;
use retrograde::{Coord, Dte, Position, Tablebase, Turn};
use serde::Serialize;

use super::common::{swap_xy, UsageError, VERTEX};

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
fn one_cell(flag: &str, place: Coord) -> Result<Coord, UsageError> {
    match place {
        (VERTEX, v) => Err(UsageError(format!(
            "{flag} {v}: expected ROW,COL (two 0-based integers; X,Y with --xy); vertex ids are for tables of graphs"
        ))),
        c => Ok(c),
    }
}

/// A value with its distance, as text: `win in 7`, `draw`.
pub(crate) fn value_text(value: retrograde::Outcome, dte: Option<Dte>) -> String {
    match dte {
        Some(d) => format!("{value} in {d}"),
        None => value.to_string(),
    }
}

/// Longest input line `query --stdin` and `play --interactive` accept: a
/// position is a few dozen bytes. A longer line ends the reading as soon
/// as its first byte past the limit is read ([`Line::TooLong`]): it is
/// never held whole, nor waited for to end (`/dev/zero` never does).
pub(crate) const MAX_LINE_BYTES: usize = 4096;

/// One line of input, as [`read_line_bounded`] read it.
pub(crate) enum Line {
    /// The input ended.
    End,
    /// A line (without its newline).
    Text(String),
    /// A line not UTF-8: why, to report; it was consumed.
    Bad(String),
    /// A line longer than [`MAX_LINE_BYTES`]: read up to its first byte
    /// past the limit, and no further ([`too_long`] says so).
    TooLong,
}

/// The error for line `number` of standard input being longer than
/// [`MAX_LINE_BYTES`], located at its first byte past the limit.
pub(crate) fn too_long(number: usize) -> String {
    format!(
        "stdin:{number}:{}: line longer than the {MAX_LINE_BYTES} bytes a position needs; the input is not read further",
        MAX_LINE_BYTES + 1
    )
}

/// Reads one line holding at most [`MAX_LINE_BYTES`] of it in `buf`; a
/// longer line is [`Line::TooLong`] as soon as its next byte is read.
pub(crate) fn read_line_bounded(
    input: &mut impl std::io::BufRead,
    buf: &mut Vec<u8>,
) -> std::io::Result<Line> {
    buf.clear();
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
        let room = MAX_LINE_BYTES - buf.len();
        if take > room {
            input.consume(room + 1);
            buf.clear();
            return Ok(Line::TooLong);
        }
        buf.extend_from_slice(&chunk[..take]);
        input.consume(take + usize::from(done));
        if done {
            break;
        }
    }
    if !any {
        return Ok(Line::End);
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

/// Opens a table of any number of cops with the file named in errors.
pub(crate) fn open_table(path: &std::path::Path) -> Result<Tablebase> {
    Tablebase::open(path).with_context(|| format!("cannot open table {}", path.display()))
}

/// The refusal of a wrong number of `--cop` for a table of `k` cops.
pub(crate) fn count_error(k: u32, found: usize) -> UsageError {
    if k == 1 {
        UsageError(format!(
            "the table is of one cop: give --cop once, found {found}"
        ))
    } else {
        UsageError(format!(
            "the table is of {k} cops: give --cop {k} times (one per cop), found {found}"
        ))
    }
}

/// A typed place (`ROW,COL`, `X,Y` with `xy`, or a vertex id) as a cell of
/// the table's game; errors echo the place as typed.
fn cell_of(tb: &Tablebase, what: &str, place: Coord, xy: bool) -> Result<u32> {
    Ok(match place {
        (VERTEX, v) => tb.vertex(what, v as u64)?,
        c => tb
            .map_cell(what, swap_xy(xy, c))
            .map_err(|e| super::common::as_typed(e, xy))?,
    })
}

/// The position of a one-cop table's map cells as typed (`x,y` with
/// `xy`): errors name the pieces `cop` and `thief` and echo the cells as
/// typed; both are checked before either is used, cop first, as the
/// one-cop reader did.
pub(crate) fn map_position(
    tb: &Tablebase,
    cop: Coord,
    thief: Coord,
    turn: Turn,
    xy: bool,
) -> Result<Position> {
    let cell = |what: &str, c: Coord| {
        tb.map_cell(what, swap_xy(xy, c))
            .map_err(|e| super::common::as_typed(e, xy))
    };
    let cop = cell("cop", cop)?;
    let thief = cell("thief", thief)?;
    Ok(tb.position(&[cop], thief, turn)?)
}

/// The position of `--cop` (k times), `--thief` and the turn (a one-cop
/// table's by [`map_position`]).
pub(crate) fn flag_position(
    tb: &Tablebase,
    cops: &[Coord],
    thief: Coord,
    turn: Turn,
    xy: bool,
) -> Result<Position> {
    if one_cop_shape(tb) {
        // A one-cop table (no game section) refuses a count or a vertex
        // id before any cell is looked up, as it always did.
        let [cop] = cops else {
            return Err(count_error(1, cops.len()).into());
        };
        let cop = one_cell("--cop", *cop)?;
        return map_position(tb, cop, one_cell("--thief", thief)?, turn, xy);
    }
    if cops.len() != tb.cops() as usize {
        return Err(count_error(tb.cops(), cops.len()).into());
    }
    let cells = cops
        .iter()
        .map(|&c| cell_of(tb, "--cop", c, xy))
        .collect::<Result<Vec<_>>>()?;
    let thief = cell_of(tb, "--thief", thief, xy)?;
    Ok(tb.position(&cells, thief, turn)?)
}

/// A cell as text: `row,col` (`x,y` with `xy`) on a map, the vertex id on
/// a graph.
pub(crate) fn show(tb: &Tablebase, cell: u32, xy: bool) -> String {
    match tb.coords(cell) {
        Some((r, c)) if xy => format!("{c},{r}"),
        Some((r, c)) => format!("{r},{c}"),
        None => cell.to_string(),
    }
}

/// Cells as text, space-separated.
pub(crate) fn show_all(tb: &Tablebase, cells: &[u32], xy: bool) -> String {
    let shown: Vec<String> = cells.iter().map(|&c| show(tb, c, xy)).collect();
    shown.join(" ")
}

/// `cops 0,0 0,3 thief 1,2` (`cop 0,0 thief 1,2` for one cop): a
/// position's pieces as text.
pub(crate) fn pieces_text(tb: &Tablebase, pos: &Position, xy: bool) -> String {
    format!(
        "cop{} {} thief {}",
        if pos.cops.len() == 1 { "" } else { "s" },
        show_all(tb, &pos.cops, xy),
        show(tb, pos.thief, xy)
    )
}

/// A cell as JSON: `[row, column]` on a map, the vertex id on a graph.
pub(crate) fn cell_json(tb: &Tablebase, cell: u32) -> serde_json::Value {
    match tb.coords(cell) {
        Some((r, c)) => serde_json::json!([r, c]),
        None => serde_json::json!(cell),
    }
}

/// Whether positions of `tb` are shown as one cop's: one cop on a map
/// (`"cop": [row, column]`, each move's `to` one cell), the JSON of the
/// one-cop game from the start. Several cops, or any cops on a graph,
/// show `"cops"`, a list, and so does one cop on a map in a table with
/// the game section (a faster cop or thief): as the several-cops reader
/// showed it.
pub(crate) fn one_cop_shape(tb: &Tablebase) -> bool {
    // A table without the game section (formats 2, 3 and 6) holds one cop
    // on a map.
    !tb.header().game_section
}

/// One rated move of a position's JSON.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct MoveJson {
    /// The mover's cells after the move: the cops' (a list, but one cop's
    /// cell alone in the one-cop shape) or the thief's.
    to: serde_json::Value,
    value: &'static str,
    dte: Option<u32>,
}

/// The JSON of one position (`query --json`, `serve`'s `/api/query`):
/// `"schema"` first, the position, its value and distance for the player
/// to move, every move rated best first. One cop on a map keeps the
/// one-cop key `"cop"`; otherwise `"cops"` lists the cops ascending. A
/// struct rather than a `json!` map so that the keys keep this order.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct PositionJson {
    schema: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    cop: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cops: Option<Vec<serde_json::Value>>,
    thief: serde_json::Value,
    turn: &'static str,
    value: &'static str,
    dte: Option<u32>,
    moves: Vec<MoveJson>,
}

/// The JSON of one position.
pub(crate) fn position_json(tb: &Tablebase, pos: &Position) -> Result<PositionJson> {
    let probe = tb.probe(pos)?;
    let one = one_cop_shape(tb);
    let cells = |cops: &[u32]| -> Vec<serde_json::Value> {
        cops.iter().map(|&c| cell_json(tb, c)).collect()
    };
    let moves = tb
        .rated_moves(pos)?
        .iter()
        .map(|m| MoveJson {
            to: match pos.turn {
                Turn::Cop if one => cell_json(tb, m.to.cops[0]),
                Turn::Cop => cells(&m.to.cops).into(),
                Turn::Thief => cell_json(tb, m.to.thief),
            },
            value: m.value.as_str(),
            dte: m.dte.map(|d| d.plies()),
        })
        .collect();
    Ok(PositionJson {
        schema: super::schema::SCHEMA,
        cop: one.then(|| cell_json(tb, pos.cops[0])),
        cops: (!one).then(|| cells(&pos.cops)),
        thief: cell_json(tb, pos.thief),
        turn: pos.turn.as_str(),
        value: probe.value.as_str(),
        dte: probe.dte.map(|d| d.plies()),
        moves,
    })
}
