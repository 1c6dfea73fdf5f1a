//! `copnumber MAP`: the cop number of a grid map (seed text or MovingAI)
//! under `solve`'s rule and exit flags (by default the standard rules:
//! cops in 8 directions, the thief in 4, both may pass; the map's exits),
//! with a winning placement as `row,col` cells and its capture time, and
//! under `--cop-speed` / `--thief-speed` with fast pieces. Told from graphs
//! by content, before the graph reader.

use std::io::{BufRead, Write};
use std::path::Path;

use anyhow::Result;
use retrograde::copnumber::OutOfMemory;
use retrograde::{parse_map, Arena};
use serde::Serialize;

use super::super::common::rule_flags;
use super::super::common::UsageError;
use super::super::schema::versioned;
use super::{speed_note, CopNumberArgs, VariantJson};
use crate::cli::failure::Failure;

/// Bytes of the input looked at to tell a map from a graph.
const PEEK: usize = retrograde::SNIFF_BYTES;

/// The first bytes of `input` without consuming them.
pub(super) fn peek(input: &mut dyn BufRead) -> std::io::Result<Vec<u8>> {
    Ok(input.fill_buf()?[..].iter().take(PEEK).copied().collect())
}

#[derive(Serialize)]
struct MapJson<'a> {
    map: &'a str,
    format: &'static str,
    height: usize,
    width: usize,
    cells: usize,
    exits: usize,
    /// The rule variant, as `solve` flags (`info`'s vocabulary; empty for
    /// the standard rules).
    rules: Vec<&'static str>,
    /// The exit flags given (`--exit ROW,COL`, `--exits RULE`), empty when
    /// the map's own exits were used.
    exit_flags: Vec<String>,
    #[serde(flatten)]
    variant: VariantJson,
    cop_number: Option<u32>,
    /// Set when the search stopped before `--max-cops` for memory: the
    /// cops not tried, the bytes they would need and the cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    out_of_memory: Option<OutOfMemoryJson>,
    /// The winning placement's cells as `[row, column]`.
    placement: Vec<[usize; 2]>,
    /// Null when the cops cannot win, as for graphs.
    capture_time: Option<u32>,
    capture_time_plies: Option<u32>,
}

/// `out_of_memory` of the JSON objects: `k` cops would need `needed`
/// bytes, more than `cap`; the cop number is more than `k - 1`.
#[derive(Serialize)]
pub(super) struct OutOfMemoryJson {
    cops: u32,
    needed: u64,
    cap: u64,
}

impl From<&OutOfMemory> for OutOfMemoryJson {
    fn from(o: &OutOfMemory) -> OutOfMemoryJson {
        OutOfMemoryJson {
            cops: o.cops,
            needed: o.needed,
            cap: o.cap,
        }
    }
}

/// Reads the map from `input` and prints its cop number.
pub(super) fn run(
    args: &CopNumberArgs,
    path: &Path,
    mut input: Box<dyn BufRead>,
) -> Result<i32, Failure> {
    let mut bytes = Vec::new();
    input
        .read_to_end(&mut bytes)
        .map_err(|source| retrograde::Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
    let name = path.display().to_string();
    let game = &args.game;
    if !game.cop.is_empty() || game.thief.is_some() {
        return Err(UsageError(
            "--cop / --thief: the cop number tries every placement of the cops and every thief cell; starts are for solve"
                .into(),
        )
        .into());
    }
    if game.thief_first {
        return Err(UsageError(
            "--thief-first: the cop number places the cops, then the thief, and the cops move first (docs/rules.md, \"Several cops\"); solve --cops K --thief-first answers a thief-first game"
                .into(),
        )
        .into());
    }
    let map = parse_map(&bytes, &name)?;
    let walls = retrograde::Map {
        cop: None,
        thief: None,
        ..map
    };
    // As `solve --cops K` builds its arena: the map's starts left out, the
    // exits from the flags (or the map's), the rules from the flags.
    let board = game.board(&walls)?;
    let rules = game.rules();
    let (cop_speed, thief_speed) = (args.speeds.cop_speed, args.speeds.thief_speed);
    let arena = Arena::from_board(&board, rules)
        .with_speeds(cop_speed, thief_speed)
        .with_lazy(args.lazy);
    // No free cell: no cop number (no number of cops "fails" on it), as a
    // graph with no vertices is refused.
    if arena.cells() == 0 {
        return Err(retrograde::Error::Parse {
            path: name,
            line: 1,
            column: 1,
            message: "expected a map with at least one free cell, found none (a map with no free cell has no cop number)".into(),
        }
        .into());
    }
    let exit_flags: Vec<String> = game
        .answer_flags()
        .into_iter()
        .filter(|f| f.starts_with("--exit"))
        .collect();
    let mut rule_words: Vec<String> = exit_flags.clone();
    rule_words.extend(rule_flags(rules).iter().map(|f| f.to_string()));
    if args.counts {
        return Err(super::super::common::UsageError(
            "--counts summarises a stream of graphs; a map has one answer (leave --counts out)"
                .into(),
        )
        .into());
    }
    if let Some(k) = args.full_solve {
        args.check_fits(&name, &arena, k)?;
        let stdout = std::io::stdout();
        super::search::full_solve(&mut stdout.lock(), &arena, k)?;
        return Ok(0);
    }
    if args.plan {
        let stdout = std::io::stdout();
        args.write_plan(&mut stdout.lock(), &name, &arena, "cells")?;
        return Ok(0);
    }
    let Some(r) = args.search(&arena, true, None)? else {
        return Ok(128 + super::stop_requested().unwrap_or(0));
    };
    let grid = &board.grid;
    // Text output writes cells as x,y under --xy, as solve does.
    let show = |&[r, c]: &[usize; 2]| {
        if game.xy {
            format!("{c},{r}")
        } else {
            format!("{r},{c}")
        }
    };
    let mut told = if rule_words.is_empty() {
        String::new()
    } else {
        format!("\trules {}", rule_words.join(" "))
    };
    if let Some(speeds) = speed_note(cop_speed, thief_speed) {
        told = format!("{told}\t{speeds}");
    }
    if args.lazy {
        told = format!("{told}\tlazy cops");
    }
    let cells: Vec<[usize; 2]> = r
        .placement
        .iter()
        .map(|&c| {
            let (row, col) = grid.coords(c);
            [row, col]
        })
        .collect();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        let j = MapJson {
            map: &name,
            format: walls.format.as_str(),
            height: grid.height(),
            width: grid.width(),
            cells: arena.cells() as usize,
            exits: arena.exit_count(),
            rules: rule_flags(rules),
            exit_flags,
            variant: VariantJson::of(args),
            cop_number: r.cop_number,
            out_of_memory: r.out_of_memory.as_ref().map(OutOfMemoryJson::from),
            placement: cells,
            capture_time: r.cop_number.map(|_| r.capture_time_rounds),
            capture_time_plies: r.cop_number.map(|_| r.capture_time_plies),
        };
        serde_json::to_writer(&mut out, &versioned(&j))?;
        writeln!(out)?;
        return finish(args, &name, &r);
    }
    match r.cop_number {
        Some(c) => {
            let p: Vec<String> = cells.iter().map(show).collect();
            writeln!(
                out,
                "{name}\tcop number {c}\tplacement {}\tcapture time {} rounds ({} plies){told}",
                p.join(" "),
                r.capture_time_rounds,
                r.capture_time_plies
            )?;
        }
        None => {
            let known = r.out_of_memory.map_or(args.max_cops, |o| o.cops - 1);
            writeln!(out, "{name}\tcop number more than {known}{told}")?;
        }
    }
    finish(args, &name, &r)
}

/// Exit status 0, or the error of a search stopped for memory.
fn finish(
    args: &CopNumberArgs,
    name: &str,
    r: &retrograde::copnumber::CopNumber,
) -> Result<i32, Failure> {
    std::io::stdout().flush()?;
    match &r.out_of_memory {
        Some(o) => Err(args.out_of_memory(name, o)),
        None => Ok(0),
    }
}
