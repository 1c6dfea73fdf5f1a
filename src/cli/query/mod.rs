//! `retrograde query FILE.rtb`: one position's value, distance and rated
//! moves from a saved table (from flags, one position per stdin line, or
//! one per entry of a MovingAI scenario with `--scen`).

/// Several-cops tables (this command's part).
mod kcops;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args as ClapArgs;
use retrograde::{load_scen, AnyTablebase, Coord, GridPosition, GridTablebase, Turn};

use super::common::{as_typed, parse_coord, parse_place, UsageError};
use super::tables::{
    grid_position_json, mover_cell, one_cell, one_cop, open_any_table, read_line_bounded,
    value_text, Line, Side,
};
use super::Failure;

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

/// A cell typed or shown as `row,col`, or `x,y` with `--xy`: the same
/// swap both ways.
fn swap_if(xy: bool, (a, b): Coord) -> Coord {
    if xy {
        (b, a)
    } else {
        (a, b)
    }
}

fn print_text(
    out: &mut impl Write,
    tb: &GridTablebase,
    pos: &GridPosition,
    xy: bool,
) -> Result<()> {
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
fn scen_positions(tb: &GridTablebase, path: &Path, turn: Turn) -> Result<Vec<GridPosition>> {
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

/// Runs `query`; returns the exit status.
pub(crate) fn run(args: QueryArgs) -> Result<i32, Failure> {
    let tb = match open_any_table(&args.table)? {
        AnyTablebase::One(tb) => tb,
        AnyTablebase::Several(tb) => return kcops::query(&args, &tb),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let answer = |out: &mut std::io::StdoutLock<'_>, pos: &GridPosition| -> Result<()> {
        if args.json {
            serde_json::to_writer(&mut *out, &grid_position_json(&tb, pos)?)?;
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
