//! `info` on a several-cops table (from `info`'s command once the table
//! says it holds several cops): the game, the start, counts and sizes,
//! `--check`.

use std::io::Write;

use anyhow::Result;
use retrograde::KTablebase;
use serde::Serialize;

use super::{InfoArgs, TableFacts};
use crate::cli::common::rule_flags;
use crate::cli::ktable::{cell_json, show, show_all};
use crate::cli::Failure;

/// The JSON of `info` on a several-cops table.
#[derive(Serialize, Debug)]
struct KInfoReport {
    table: String,
    version: u32,
    /// Number of cops.
    cops: u32,
    cop_speed: u32,
    thief_speed: u32,
    /// `map` or `graph`.
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cols: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    edges: Option<u64>,
    /// Free cells of a map, vertices of a graph.
    cells: u64,
    exits: u64,
    /// The start cops (ascending) and thief, if the solve had a start.
    start_cops: Option<Vec<serde_json::Value>>,
    start_thief: Option<serde_json::Value>,
    /// Thief cells per tile of the file's state order.
    thief_tile: u32,
    #[serde(flatten)]
    facts: TableFacts,
    checked: bool,
}

/// `info` on a several-cops table.
pub(crate) fn info(args: &InfoArgs, tb: &KTablebase) -> Result<i32, Failure> {
    let started = std::time::Instant::now();
    if args.check {
        tb.check()?;
    }
    let h = tb.header();
    let states = h.states.max(1) as f64;
    let mut rules = rule_flags(h.rules);
    if h.graph {
        // Moves on a graph follow its edges: only passing and the first
        // mover are rules there.
        rules.retain(|f| matches!(*f, "--no-cop-pass" | "--no-thief-pass" | "--thief-first"));
    }
    let r = KInfoReport {
        table: args.table.display().to_string(),
        version: h.version,
        cops: h.cops,
        cop_speed: h.cop_speed,
        thief_speed: h.thief_speed,
        kind: if h.graph { "graph" } else { "map" },
        rows: (!h.graph).then_some(h.rows),
        cols: (!h.graph).then_some(h.cols),
        edges: h.graph.then_some(h.edges),
        cells: h.cells,
        exits: h.exits,
        start_cops: h
            .start
            .as_ref()
            .map(|s| s.cops.iter().map(|&c| cell_json(tb, c)).collect()),
        start_thief: h.start.as_ref().map(|s| cell_json(tb, s.thief)),
        thief_tile: h.thief_tile,
        facts: TableFacts {
            rules,
            states: h.states,
            counts: h.counts.into(),
            levels: h.levels,
            engine: h.engine.clone(),
            distances: h.has_dte,
            bytes: h.file_bytes,
            value_bits_per_state: h.value_bytes as f64 * 8.0 / states,
            dte_bits_per_state: h.dte_bytes as f64 * 8.0 / states,
            blocks: [h.value_blocks, h.dte_blocks],
        },
        checked: args.check,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        serde_json::to_writer(&mut out, &crate::cli::schema::versioned(&r))?;
        writeln!(out)?;
        return Ok(0);
    }
    writeln!(out, "table: {} (format version {})", r.table, r.version)?;
    writeln!(
        out,
        "game: {} cop{}, cop speed {}, thief speed {}",
        r.cops,
        if r.cops == 1 { "" } else { "s" },
        r.cop_speed,
        r.thief_speed
    )?;
    let start = match &h.start {
        Some(s) => format!(
            "cops {}, thief {}",
            show_all(tb, &s.cops, false),
            show(tb, s.thief, false)
        ),
        None => "none".to_string(),
    };
    if h.graph {
        writeln!(
            out,
            "graph: {} vertices, {} edges, {} exits; start: {start}",
            r.cells, h.edges, r.exits
        )?;
    } else {
        writeln!(
            out,
            "map: {} x {}, {} free cells, {} exits; start: {start}",
            h.rows, h.cols, r.cells, r.exits
        )?;
    }
    r.facts.write_lines(&mut out)?;
    writeln!(
        out,
        "order: thief tiles of {} cell{} (by cop multiset within a tile)",
        r.thief_tile,
        if r.thief_tile == 1 { "" } else { "s" }
    )?;
    if args.check {
        writeln!(
            out,
            "check: every block verified in {:.3} s",
            started.elapsed().as_secs_f64()
        )?;
    }
    Ok(0)
}
