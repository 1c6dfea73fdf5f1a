//! `retrograde query FILE.rtb`: one position's value, distance and rated
//! moves from a saved table of any number of cops (from flags, one
//! position per stdin line, or one per entry of a MovingAI scenario with
//! `--scen`), in the table's shape ([`one_cop_shape`]): stdin lines `R,C
//! R,C [cop|thief]` for one cop, `P1 .. Pk T [cop|thief]` otherwise.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args as ClapArgs;
use retrograde::{load_scen, Coord, Position, Tablebase, Turn};

use super::common::{parse_coord, parse_place, UsageError};
use super::tables::{
    flag_position, map_position, one_cop_shape, open_table, pieces_text, position_json,
    read_line_bounded, show, show_all, too_long, value_text, Line, Side,
};
use crate::cli::failure::Failure;

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

/// Parses a one-cop table's stdin line `R,C R,C [cop|thief]` (the turn
/// checked first, then the count, then the cells).
fn parse_one_cop_line(line: &str, default: Turn) -> Result<(Coord, Coord, Turn), String> {
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

/// Parses a stdin line `P1 .. Pk T [cop|thief]` of a table with the game
/// section (`k` cops).
fn parse_cops_line(tb: &Tablebase, line: &str, xy: bool) -> Result<Position> {
    let mut words: Vec<&str> = line.split_whitespace().collect();
    let turn = match words.last() {
        Some(&"cop") => Some(Turn::Cop),
        Some(&"thief") => Some(Turn::Thief),
        _ => None,
    };
    if turn.is_some() {
        words.pop();
    }
    let k = tb.cops() as usize;
    let cell = if tb.grid().is_some() { "ROW,COL" } else { "V" };
    if words.len() != k + 1 {
        return Err(UsageError(format!(
            "expected {k} cop cell{} and the thief's ({cell}), then an optional `cop` or `thief`; found {} cells in `{line}`",
            if k == 1 { "" } else { "s" },
            words.len()
        ))
        .into());
    }
    let places = words
        .iter()
        .map(|w| parse_place(w).map_err(UsageError))
        .collect::<Result<Vec<_>, _>>()?;
    let turn = turn.unwrap_or(tb.first_mover());
    flag_position(tb, &places[..k], places[k], turn, xy)
}

/// The positions of a scenario's entries (start = thief, goal = cop),
/// every entry checked against the table's map before any is answered.
/// Only a one-cop table takes a scenario: an entry places one cop.
fn scen_positions(tb: &Tablebase, path: &Path, turn: Turn) -> Result<Vec<Position>> {
    let grid = match tb.grid() {
        Some(grid) if one_cop_shape(tb) => grid,
        _ => {
            return Err(UsageError(format!(
                "--scen places one cop per entry: the table is of {} cops",
                tb.cops()
            ))
            .into())
        }
    };
    let scenario = load_scen(path)?;
    scenario.check_size(grid)?;
    scenario
        .entries
        .iter()
        .map(|entry| {
            scenario.cells(entry, grid)?;
            map_position(tb, entry.goal, entry.start, turn, false)
        })
        .collect()
}

/// Writes a position's value and every move rated, as text.
fn print_text(out: &mut impl Write, tb: &Tablebase, pos: &Position, xy: bool) -> Result<()> {
    let probe = tb.probe(pos)?;
    let moves = tb.rated_moves(pos)?;
    writeln!(
        out,
        "{}, {} to move: {}",
        pieces_text(tb, pos, xy),
        pos.turn.as_str(),
        value_text(probe.value, probe.dte)
    )?;
    if moves.is_empty() {
        writeln!(out, "  no moves: the game is over")?;
    }
    for m in &moves {
        let (to, pass) = match pos.turn {
            Turn::Cop => (show_all(tb, &m.to.cops, xy), m.to.cops == pos.cops),
            Turn::Thief => (show(tb, m.to.thief, xy), m.to.thief == pos.thief),
        };
        let what = if pass { " (pass)" } else { "" };
        writeln!(out, "  {to}{what}: {}", value_text(m.value, m.dte))?;
    }
    Ok(())
}

/// Writes one position's answer, as JSON or text.
fn answer(out: &mut impl Write, tb: &Tablebase, pos: &Position, args: &QueryArgs) -> Result<()> {
    if args.json {
        serde_json::to_writer(&mut *out, &position_json(tb, pos)?)?;
        writeln!(out)?;
    } else {
        print_text(out, tb, pos, args.xy)?;
    }
    Ok(())
}

/// Answers every stdin line; returns the exit status. Like a batch: a bad
/// line is reported and skipped, and the status says so at the end.
fn answer_stdin(out: &mut impl Write, tb: &Tablebase, args: &QueryArgs) -> Result<i32> {
    let mut status = 0;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    let mut number = 0;
    loop {
        number += 1;
        let parsed =
            match read_line_bounded(&mut input, &mut buf).context("cannot read standard input")? {
                Line::End => break,
                Line::Text(line) if line.trim().is_empty() => continue,
                Line::Text(line) if !one_cop_shape(tb) => parse_cops_line(tb, &line, args.xy),
                Line::Text(line) => parse_one_cop_line(&line, tb.first_mover())
                    .map_err(|m| anyhow::Error::new(UsageError(m)))
                    .and_then(|(cop, thief, turn)| map_position(tb, cop, thief, turn, args.xy)),
                Line::Bad(why) => Err(anyhow::anyhow!(why)),
                Line::TooLong => {
                    // Its end may never come: the reading stops here.
                    out.flush()?;
                    say!("error: {}", too_long(number));
                    return Ok(crate::cli::failure::EXIT_INPUT);
                }
            };
        match parsed {
            Ok(pos) => answer(out, tb, &pos, args)?,
            Err(e) => {
                // Answers so far first, then the error, in input order.
                out.flush()?;
                say!("error: stdin:{number}: {e:#}");
                status = crate::cli::failure::EXIT_INPUT;
            }
        }
    }
    Ok(status)
}

/// Runs `query`; returns the exit status.
pub(crate) fn run(args: QueryArgs) -> Result<i32, Failure> {
    let tb = open_table(&args.table)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if let Some(scen) = &args.scen {
        let turn = args.turn.map_or(tb.first_mover(), Turn::from);
        for pos in scen_positions(&tb, scen, turn)? {
            answer(&mut out, &tb, &pos, &args)?;
        }
        return Ok(0);
    }
    if args.stdin {
        return Ok(answer_stdin(&mut out, &tb, &args)?);
    }
    let turn = args.turn.map_or(tb.first_mover(), Turn::from);
    let thief = args.thief.expect("clap requires --thief without --stdin");
    let pos = flag_position(&tb, &args.cop, thief, turn, args.xy)?;
    answer(&mut out, &tb, &pos, &args)?;
    Ok(0)
}
