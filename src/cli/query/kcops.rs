//! `query` on a several-cops table (from `query`'s command once the table
//! says it holds several cops): one position from flags or lines of
//! `--stdin`, its value and every move rated.

use std::io::Write;

use anyhow::{Context, Result};
use retrograde::{KPosition, KTablebase, Turn};

use super::QueryArgs;
use crate::cli::common::{parse_place, UsageError};
use crate::cli::ktable::{flag_position, kposition_json, pieces_text, show, show_all};
use crate::cli::tables::{read_line_bounded, value_text, Line};
use crate::cli::Failure;

fn print_text(out: &mut impl Write, tb: &KTablebase, pos: &KPosition, xy: bool) -> Result<()> {
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

/// Parses a stdin line `P1 .. Pk T [cop|thief]` of a table of `k` cops.
fn parse_line(tb: &KTablebase, line: &str, xy: bool) -> Result<KPosition> {
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

/// `query` on a several-cops table.
pub(crate) fn query(args: &QueryArgs, tb: &KTablebase) -> Result<i32, Failure> {
    if args.scen.is_some() {
        return Err(UsageError(format!(
            "--scen places one cop per entry: the table is of {} cops",
            tb.cops()
        ))
        .into());
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let answer = |out: &mut std::io::StdoutLock<'_>, pos: &KPosition| -> Result<()> {
        if args.json {
            serde_json::to_writer(&mut *out, &kposition_json(tb, pos)?)?;
            writeln!(out)?;
        } else {
            print_text(out, tb, pos, args.xy)?;
        }
        Ok(())
    };
    if !args.stdin {
        let turn = args.turn.map_or(tb.first_mover(), Turn::from);
        let thief = args.thief.expect("clap requires --thief without --stdin");
        let pos = flag_position(tb, &args.cop, thief, turn, args.xy)?;
        answer(&mut out, &pos)?;
        return Ok(0);
    }
    // As for one cop: a bad line is reported and skipped.
    let mut status = 0;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    let mut number = 0;
    loop {
        number += 1;
        let line =
            match read_line_bounded(&mut input, &mut buf).context("cannot read standard input")? {
                Line::End => break,
                Line::Text(line) => line,
                Line::Bad(why) => {
                    out.flush()?;
                    say!("error: stdin:{number}: {why}");
                    status = crate::cli::EXIT_INPUT;
                    continue;
                }
            };
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(tb, &line, args.xy) {
            Ok(pos) => answer(&mut out, &pos)?,
            Err(e) => {
                out.flush()?;
                say!("error: stdin:{number}: {e:#}");
                status = crate::cli::EXIT_INPUT;
            }
        }
    }
    Ok(status)
}
