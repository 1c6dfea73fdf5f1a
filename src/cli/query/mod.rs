//! `retrograde query FILE.rtb`: one position's value, distance and rated
//! moves from a saved table (from flags, one position per stdin line, or
//! one per entry of a MovingAI scenario with `--scen`).
//! [`position_json`] is the JSON of one position, shared with the server.

/// Several-cops tables (this command's part).
mod kcops;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args as ClapArgs, ValueEnum};
use retrograde::{load_scen, AnyTablebase, Coord, Dte, Position, Tablebase, Turn};
use serde::Serialize;

use super::common::{as_typed, parse_coord, parse_place, UsageError, VERTEX};
use super::Failure;

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

/// Flags of `query`.
#[derive(ClapArgs, Debug)]
pub(crate) struct QueryArgs {
    /// Table file written by `solve --save` (for a partitioned solve: any
    /// shard, or the name it was saved under).
    pub(crate) table: PathBuf,
    /// The cop's cell ROW,COL (0-based; X,Y with --xy); a table of K cops
    /// takes it K times, and a graph's table vertex ids V.
    #[arg(long, value_name = "ROW,COL", value_parser = parse_place, required_unless_present_any = ["stdin", "scen"])]
    pub(crate) cop: Vec<Coord>,
    /// The thief's cell ROW,COL (0-based; X,Y with --xy; V on a graph).
    #[arg(long, value_name = "ROW,COL", value_parser = parse_place, required_unless_present_any = ["stdin", "scen"])]
    pub(crate) thief: Option<Coord>,
    /// Who moves [default: the rules' first mover].
    #[arg(long, value_enum)]
    pub(crate) turn: Option<Side>,
    /// Positions from standard input, one per line: `R,C R,C [cop|thief]`
    /// (cop cell, thief cell, turn; K cop cells for a table of K cops).
    #[arg(long, conflicts_with_all = ["cop", "thief", "turn", "scen"])]
    pub(crate) stdin: bool,
    /// Positions from a MovingAI scenario file: each entry's start is the
    /// thief, its goal the cop; one answer per entry, in file order.
    #[arg(long, value_name = "FILE.scen", conflicts_with_all = ["cop", "thief"])]
    pub(crate) scen: Option<PathBuf>,
    /// Cells as X,Y (column, row: MovingAI's order) in --cop, --thief,
    /// stdin lines and text output; JSON keeps [row, column].
    #[arg(long)]
    pub(crate) xy: bool,
    /// One JSON object per position instead of text.
    #[arg(long)]
    pub(crate) json: bool,
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

/// A cell typed or shown as `row,col`, or `x,y` with `--xy`: the same
/// swap both ways.
fn swap_if(xy: bool, (a, b): Coord) -> Coord {
    if xy {
        (b, a)
    } else {
        (a, b)
    }
}

fn print_text(out: &mut impl Write, tb: &Tablebase, pos: &Position, xy: bool) -> Result<()> {
    let probe = tb.probe(pos)?;
    let moves = tb.rated_moves(pos)?;
    let (cop, thief) = (swap_if(xy, pos.cop), swap_if(xy, pos.thief));
    writeln!(
        out,
        "cop {},{} thief {},{}, {} to move: {}",
        cop.0,
        cop.1,
        thief.0,
        thief.1,
        pos.turn.as_str(),
        value_text(probe.value, probe.dte)
    )?;
    if moves.is_empty() {
        writeln!(out, "  no moves: the game is over")?;
    }
    for m in &moves {
        let what = if m.to == mover_cell(pos) {
            " (pass)"
        } else {
            ""
        };
        let to = swap_if(xy, m.to);
        writeln!(
            out,
            "  {},{}{what}: {}",
            to.0,
            to.1,
            value_text(m.value, m.dte)
        )?;
    }
    Ok(())
}

/// The cell of the player to move.
pub(crate) fn mover_cell(pos: &Position) -> Coord {
    match pos.turn {
        Turn::Cop => pos.cop,
        Turn::Thief => pos.thief,
    }
}

/// Parses a stdin line `R,C R,C [cop|thief]`.
fn parse_line(line: &str, default: Turn) -> Result<(Coord, Coord, Turn), String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let turn = match words.get(2) {
        None => default,
        Some(&"cop") => Turn::Cop,
        Some(&"thief") => Turn::Thief,
        Some(w) => {
            return Err(format!(
                "expected `cop` or `thief` as the turn, found `{w}`"
            ))
        }
    };
    if words.len() < 2 || words.len() > 3 {
        return Err(format!(
            "expected `ROW,COL ROW,COL [cop|thief]` (cop cell, thief cell, turn), found `{line}`"
        ));
    }
    Ok((parse_coord(words[0])?, parse_coord(words[1])?, turn))
}

/// The positions of a scenario's entries (start = thief, goal = cop),
/// every entry checked against the table's map before any is answered.
fn scen_positions(tb: &Tablebase, path: &Path, turn: Turn) -> Result<Vec<Position>> {
    let scenario = load_scen(path)?;
    let grid = &tb.game().board().grid;
    scenario.check_size(grid)?;
    scenario
        .entries
        .iter()
        .map(|entry| {
            scenario.cells(entry, grid)?;
            Ok(tb.position(entry.goal, entry.start, turn)?)
        })
        .collect()
}

/// Opens a table of either game with the file named in errors.
pub(crate) fn open_any_table(path: &std::path::Path) -> Result<AnyTablebase> {
    AnyTablebase::open(path).with_context(|| format!("cannot open table {}", path.display()))
}

/// Runs `query`; returns the exit status.
pub(crate) fn run(args: QueryArgs) -> Result<i32, Failure> {
    let tb = match open_any_table(&args.table)? {
        AnyTablebase::One(tb) => tb,
        AnyTablebase::Several(tb) => return kcops::query(&args, &tb),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let answer = |out: &mut std::io::StdoutLock<'_>, pos: &Position| -> Result<()> {
        if args.json {
            serde_json::to_writer(&mut *out, &position_json(&tb, pos)?)?;
            writeln!(out)?;
        } else {
            print_text(out, &tb, pos, args.xy)?;
        }
        Ok(())
    };
    let turn = args.turn.map_or(tb.first_mover(), Turn::from);
    if let Some(scen) = &args.scen {
        for pos in scen_positions(&tb, scen, turn)? {
            answer(&mut out, &pos)?;
        }
        return Ok(0);
    }
    if !args.stdin {
        let cop = one_cop(&args.cop)?;
        let thief = one_cell("--thief", args.thief.expect("clap"))?;
        let pos = tb
            .position(swap_if(args.xy, cop), swap_if(args.xy, thief), turn)
            .map_err(|e| as_typed(e, args.xy))?;
        answer(&mut out, &pos)?;
        return Ok(0);
    }
    // Like a batch: a bad line is reported and skipped, the status says so
    // at the end.
    let mut status = 0;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    let mut number = 0;
    loop {
        let line =
            match read_line_bounded(&mut input, &mut buf).context("cannot read standard input")? {
                Line::End => break,
                Line::Text(line) => line,
                Line::Bad(why) => {
                    out.flush()?;
                    say!("error: stdin:{}: {why}", number + 1);
                    status = super::EXIT_INPUT;
                    number += 1;
                    continue;
                }
            };
        number += 1;
        let number = number - 1;
        if line.trim().is_empty() {
            continue;
        }
        let parsed = parse_line(&line, tb.first_mover())
            .map_err(|m| anyhow::Error::new(UsageError(m)))
            .and_then(|(c, t, turn)| {
                Ok(tb
                    .position(swap_if(args.xy, c), swap_if(args.xy, t), turn)
                    .map_err(|e| as_typed(e, args.xy))?)
            });
        match parsed {
            Ok(pos) => answer(&mut out, &pos)?,
            Err(e) => {
                out.flush()?;
                say!("error: stdin:{}: {e:#}", number + 1);
                status = super::EXIT_INPUT;
            }
        }
    }
    Ok(status)
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
