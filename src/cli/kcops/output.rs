//! What a several-cops solve prints: the report (text and `--json`) and
//! the `--dump` CSV, read from the [`Solution`] of whichever engine ran, so
//! that they differ only in the engine, time and memory lines.

use std::io::Write;

use retrograde::{Game, KCops, Outcome, Solution, Turn};
use serde::Serialize;

use super::super::output::{
    engine_line, time_line, verified_line, CountsJson, SaveReport, VerifyReport,
};

/// The report of a several-cops solve (`--json`).
#[derive(Serialize)]
pub(super) struct Report {
    pub(super) map: String,
    pub(super) format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) width: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) height: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) edges: Option<usize>,
    pub(super) cops: u32,
    pub(super) cop_speed: u32,
    pub(super) thief_speed: u32,
    /// The cops' start cells ([row, column] on maps, vertex ids on graphs).
    pub(super) start_cops: Option<Vec<serde_json::Value>>,
    pub(super) start_thief: Option<serde_json::Value>,
    pub(super) result: Option<&'static str>,
    pub(super) dte: Option<u32>,
    pub(super) cells: u64,
    pub(super) exits: u64,
    pub(super) states: u64,
    pub(super) counts: CountsJson,
    pub(super) levels: u32,
    pub(super) sweeps: u32,
    pub(super) engine: &'static str,
    pub(super) threads: usize,
    pub(super) seconds: f64,
    pub(super) peak_memory_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) verified: Option<VerifyReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) saved: Option<SaveReport>,
}

pub(super) fn print_text(out: &mut impl Write, r: &Report) -> std::io::Result<()> {
    match (r.result, r.dte) {
        (Some(result), Some(dte)) => writeln!(out, "result: {result} in {dte} plies")?,
        (Some(result), None) => writeln!(out, "result: {result}")?,
        (None, _) => writeln!(
            out,
            "result: none (no start; give --cop once per cop and --thief)"
        )?,
    }
    let speeds = format!(
        "{} cop{}, cop speed {}, thief speed {}",
        r.cops,
        if r.cops == 1 { "" } else { "s" },
        r.cop_speed,
        r.thief_speed
    );
    match (r.height, r.width, r.edges) {
        (Some(h), Some(w), _) => writeln!(
            out,
            "map: {} ({}, {h} x {w}, {} free cells, {} exits); {speeds}",
            r.map, r.format, r.cells, r.exits
        )?,
        (_, _, edges) => writeln!(
            out,
            "graph: {} ({} vertices, {} edges, {} exits); {speeds}",
            r.map,
            r.cells,
            edges.unwrap_or(0),
            r.exits
        )?,
    }
    writeln!(out, "{}", r.counts.states_line(r.states))?;
    writeln!(
        out,
        "{}",
        engine_line(r.engine, r.threads, r.sweeps, r.levels)
    )?;
    writeln!(out, "{}", time_line(r.seconds, r.peak_memory_bytes))?;
    if let Some(t) = &r.saved {
        writeln!(out, "{}", super::super::output::saved_line(t))?;
    }
    if let Some(v) = &r.verified {
        writeln!(out, "{}", verified_line(v))?;
    }
    Ok(())
}

/// Every state as a CSV row in state-index order, the cops ascending:
/// `cop1_row,cop1_col,...,thief_row,thief_col,turn,value,dte` on maps,
/// `cop1,...,thief,turn,value,dte` on graphs.
pub(super) fn dump(game: &KCops, solution: &Solution, out: &mut impl Write) -> std::io::Result<()> {
    let k = game.cops();
    let grid = game.arena().grid();
    let mut header = Vec::new();
    for i in 1..=k {
        match grid {
            Some(_) => header.extend([format!("cop{i}_row"), format!("cop{i}_col")]),
            None => header.push(format!("cop{i}")),
        }
    }
    match grid {
        Some(_) => header.extend(["thief_row".to_string(), "thief_col".to_string()]),
        None => header.push("thief".to_string()),
    }
    header.extend(["turn", "value", "dte"].map(String::from));
    writeln!(out, "{}", header.join(","))?;
    let mut line = String::new();
    for s in 0..game.state_count() {
        use std::fmt::Write as _;
        let (cops, thief, turn) = game.decode(s);
        line.clear();
        for cell in cops.iter().chain([&thief]) {
            let _ = match grid {
                Some(grid) => {
                    let (r, c) = grid.coords(*cell);
                    write!(line, "{r},{c},")
                }
                None => write!(line, "{cell},"),
            };
        }
        let turn = match turn {
            Turn::Cop => "cop",
            Turn::Thief => "thief",
        };
        let (value, dte) = (solution.outcome(s), solution.dte(s));
        match dte {
            Some(d) if value != Outcome::Draw => writeln!(out, "{line}{turn},{value},{d}")?,
            _ => writeln!(out, "{line}{turn},{value},")?,
        }
    }
    Ok(())
}
