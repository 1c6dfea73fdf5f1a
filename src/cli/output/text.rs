//! Text printers shared by the commands that solve (`solve`, and a
//! partitioned solve's process 0) and the one way a table is saved.

use std::io::Write;
use std::time::Instant;

use anyhow::Result;
use retrograde::WriteSummary;

use super::{Output, OutputTarget, SaveReport, ShareJson, SolveReport, StartJson};
use crate::cli::common::human_bytes;

/// Writes a table (or a shard) to `target` atomically with `write`, and
/// reports it; shared by every way of saving.
pub(crate) fn save_with(
    target: OutputTarget,
    write: impl FnOnce(&mut Output) -> std::io::Result<WriteSummary>,
) -> Result<SaveReport> {
    let started = Instant::now();
    let path = target.path().to_path_buf();
    let mut summary = None;
    target.write_with(|out| {
        summary = Some(write(out)?);
        Ok(())
    })?;
    let summary = summary.expect("written");
    let states = summary.states.max(1) as f64;
    Ok(SaveReport {
        path: path.display().to_string(),
        bytes: summary.bytes,
        distances: summary.has_dte,
        value_bits_per_state: summary.value_bytes as f64 * 8.0 / states,
        dte_bits_per_state: summary.dte_bytes as f64 * 8.0 / states,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// A cell for text output: `row,col`, or `x,y` with --xy.
fn show_cell(cell: [usize; 2], xy: bool) -> String {
    if xy {
        format!("{},{}", cell[1], cell[0])
    } else {
        format!("{},{}", cell[0], cell[1])
    }
}

/// The text report of a solve (one cop, or several on a map or graph).
pub(crate) fn print_text(out: &mut impl Write, r: &SolveReport, xy: bool) -> std::io::Result<()> {
    if let Some(line) = result_line(r) {
        writeln!(out, "{line}")?;
    }
    if let Some(start) = &r.start {
        writeln!(out, "{}", start_line(start, xy))?;
    }
    writeln!(out, "{}", board_line(r))?;
    writeln!(out, "{}", r.counts.states_line(r.states))?;
    writeln!(
        out,
        "engine: {} ({} thread{}), {}",
        r.engine,
        r.threads,
        if r.threads == 1 { "" } else { "s" },
        if r.sweeps > 0 {
            format!("{} sweeps (values only, no distances)", r.sweeps)
        } else {
            format!("{} levels", r.levels)
        }
    )?;
    writeln!(
        out,
        "time: {:.3} s, peak memory: {}",
        r.seconds,
        r.peak_memory_bytes
            .map_or_else(|| "unknown".to_string(), human_bytes)
    )?;
    let order = if xy { "x,y" } else { "row,col" };
    if let Some(s) = &r.summary {
        let mover = if s.thief_first { "thief" } else { "cop" };
        let line = shares_line("start pairs", s.pairs, mover, "cop wins", &s.share);
        writeln!(out, "{line}")?;
        if let Some(l) = &s.longest {
            writeln!(
                out,
                "longest: {} plies, cop {} thief {} ({order})",
                l.dte,
                show_cell(l.cop, xy),
                show_cell(l.thief, xy)
            )?;
        }
    }
    if let Some(p) = &r.placements {
        placements_lines(out, p, r.pieces.as_ref().map_or(0, |p| p.cops), xy)?;
    }
    if let Some(pairs) = &r.scenario {
        writeln!(
            out,
            "scenario: {} pairs (thief at the start, cop at the goal; {order})",
            pairs.len()
        )?;
        writeln!(out, "line\tthief\tcop\tresult\tdte")?;
        for p in pairs {
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}",
                p.line,
                show_cell(p.thief, xy),
                show_cell(p.cop, xy),
                p.result,
                p.dte.map_or_else(|| "-".to_string(), |d| d.to_string())
            )?;
        }
    }
    if let Some(t) = &r.saved {
        let dte = format!(", distances {:.3} bits/state", t.dte_bits_per_state);
        writeln!(
            out,
            "saved: {} ({}, values {:.3} bits/state{}) in {:.3} s",
            t.path,
            human_bytes(t.bytes),
            t.value_bits_per_state,
            if t.distances { &dte } else { "" },
            t.seconds
        )?;
    }
    if let Some(v) = &r.verified {
        let what = if v.distances {
            "values and distances"
        } else {
            "values"
        };
        writeln!(
            out,
            "verified: {} of {} states consistent with their moves ({what}) in {:.3} s",
            v.states - v.inconsistent,
            v.states,
            v.seconds
        )?;
    }
    Ok(())
}

/// A summary's first line: how many starts (`what`), who moves, and the
/// share of each verdict.
fn shares_line(what: &str, starts: u64, mover: &str, cops_win: &str, share: &ShareJson) -> String {
    format!(
        "{what}: {starts} ({mover} to move): {cops_win} {:.1}%, thief escapes {:.1}%, draw {:.1}%",
        100.0 * share.cop_wins,
        100.0 * share.thief_escapes,
        100.0 * share.draw
    )
}

/// The `start:` line of a solve: the cells it solved from, as the report
/// shows cells (`row,col`, or `x,y` with `--xy`; vertex ids on a graph),
/// and who moves first.
fn start_line(start: &StartJson, xy: bool) -> String {
    let mut on_map = false;
    let mut show = |cell: &serde_json::Value| match cell.as_array().map(Vec::as_slice) {
        Some([r, c]) => {
            on_map = true;
            let at = |v: &serde_json::Value| v.as_u64().unwrap_or_default() as usize;
            show_cell([at(r), at(c)], xy)
        }
        _ => cell.to_string(),
    };
    let cops: Vec<String> = start.cops.iter().map(&mut show).collect();
    let thief = show(&start.thief);
    let several = start.cops.len() > 1;
    let order = match (on_map, xy) {
        (false, _) => "",
        (true, false) => " (row,col)",
        (true, true) => " (x,y)",
    };
    let mover = match (start.turn, several) {
        ("cop", true) => "cops",
        (turn, _) => turn,
    };
    format!(
        "start: cop{} {} thief {thief}{order}, {mover} to move",
        if several { "s" } else { "" },
        cops.join(" ")
    )
}

/// A cell of a several-cops report: `row,col` (`x,y` with `--xy`) on a
/// map, the vertex id on a graph.
pub(crate) fn show_value(cell: &serde_json::Value, xy: bool) -> String {
    match cell.as_array().map(|a| a.as_slice()) {
        Some([r, c]) if xy => format!("{c},{r}"),
        Some([r, c]) => format!("{r},{c}"),
        _ => cell.to_string(),
    }
}

/// The several-cops summary's lines: the placements by verdict, a
/// longest one, the best placement of the `k` cops.
fn placements_lines(
    out: &mut impl Write,
    p: &super::PlacementsJson,
    k: u32,
    xy: bool,
) -> std::io::Result<()> {
    let cells = |cells: &[serde_json::Value]| {
        let shown: Vec<String> = cells.iter().map(|c| show_value(c, xy)).collect();
        shown.join(" ")
    };
    let order = match p.longest.as_ref().map(|l| l.thief.is_array()) {
        Some(false) => "vertices",
        _ if xy => "x,y",
        _ => "row,col",
    };
    let mover = if p.thief_first { "thief" } else { "cops" };
    let line = shares_line(
        "start placements",
        p.placements,
        mover,
        "cops win",
        &p.share,
    );
    writeln!(out, "{line}")?;
    match &p.longest {
        Some(l) => writeln!(
            out,
            "longest: {} plies, cops {} thief {} ({order})",
            l.dte,
            cells(&l.cops),
            show_value(&l.thief, xy)
        )?,
        // Decided placements but none named: the engine kept no distance
        // to tell (said, not left out).
        None if p.share.draw < 1.0 && p.placements > 0 => writeln!(
            out,
            "longest: unknown (this solve keeps no distances for it: --dte-table with a level engine finds it)"
        )?,
        None => {}
    }
    match (&p.best_placement, p.best_placement_known) {
        (Some(b), _) => writeln!(
            out,
            "best placement: cops {}, capture in {} plies ({} rounds)",
            cells(&b.cops),
            b.capture_plies,
            b.capture_rounds
        ),
        (None, true) => writeln!(
            out,
            "best placement: none (no placement of {k} cops wins against every thief cell)"
        ),
        (None, false) => writeln!(
            out,
            "best placement: unknown (this engine keeps no distances: --dte-table, or the bitboard engine, finds it)"
        ),
    }
}

/// The `result:` line of a solve (none for a scenario's solve without a
/// start: its pairs are the results).
fn result_line(r: &SolveReport) -> Option<String> {
    Some(match (r.result, r.dte, r.over) {
        // A start at distance 0 is already over: the one-cop game says why.
        (Some(result), Some(0), Some(over)) => format!("result: {result} in 0 plies ({over})"),
        (Some(result), Some(dte), _) => format!("result: {result} in {dte} plies"),
        (Some(result), None, _) => format!("result: {result}"),
        (None, _, _) if r.scenario.is_some() => return None,
        (None, _, _) if r.pieces.is_some() => {
            "result: none (no start; give --cop once per cop and --thief)".into()
        }
        (None, _, _) => {
            "result: none (the map has no cop and thief start; give --cop and --thief)".into()
        }
    })
}

/// The `map:` (or `graph:`) line of a solve: the board, and the pieces of
/// a several-cops game.
fn board_line(r: &SolveReport) -> String {
    let speeds = r.pieces.as_ref().map_or_else(String::new, |p| {
        format!(
            "; {} {}cop{}, cop speed {}, thief speed {}",
            p.cops,
            if p.lazy { "lazy " } else { "" },
            if p.cops == 1 { "" } else { "s" },
            p.cop_speed,
            p.thief_speed
        )
    });
    match (r.height, r.width) {
        (Some(h), Some(w)) => format!(
            "map: {} ({}, {h} x {w}, {} free cells, {} exits){speeds}",
            r.map, r.format, r.cells, r.exits
        ),
        _ => format!(
            "graph: {} ({} vertices, {} edges, {} exits){speeds}",
            r.map,
            r.cells,
            r.edges.unwrap_or(0),
            r.exits
        ),
    }
}

/// A plan's figures for a [`PlanReport`]: bytes of arrays, bytes
/// resident, the scratch folder, and the passes out of core.
pub(crate) type Figures = (u64, u64, Option<String>, Option<retrograde::Passes>);

/// What one solve would cost, from the library's storage plan, without
/// solving (`solve --plan`, one per map with `batch --plan`).
#[derive(serde::Serialize, Debug)]
pub(crate) struct PlanReport {
    /// The map file.
    pub(crate) map: String,
    /// States of the game.
    pub(crate) states: u64,
    /// The engine that would solve it.
    pub(crate) engine: &'static str,
    /// Bytes of every array the solve would allocate.
    pub(crate) bytes: u64,
    /// Bytes of those resident at most.
    pub(crate) resident: u64,
    /// The folder of the scratch files the arrays would go to (null: in
    /// memory).
    pub(crate) scratch: Option<String>,
    /// Out of core with the bitboard engine: levels per pass over the
    /// scratch files and the bytes a pass reads and writes at most.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) passes: Option<retrograde::Passes>,
    /// Whether the solve fits the limits (else it would be refused).
    pub(crate) fits: bool,
    /// Why it would be refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) refused: Option<String>,
}

impl PlanReport {
    /// A report of `states` states under `engine`, not yet planned.
    pub(crate) fn new(map: String, states: u64, engine: &'static str) -> PlanReport {
        PlanReport {
            map,
            states,
            engine,
            bytes: 0,
            resident: 0,
            scratch: None,
            passes: None,
            fits: false,
            refused: None,
        }
    }

    /// Records a plan: `(bytes, resident, scratch folder)` when it fits;
    /// a refusal (too large, unsupported) as the reason; any other error
    /// is returned.
    pub(crate) fn settle(
        &mut self,
        planned: retrograde::Result<Figures>,
    ) -> retrograde::Result<()> {
        match planned {
            Ok((bytes, resident, scratch, passes)) => {
                (self.bytes, self.resident, self.scratch, self.passes) =
                    (bytes, resident, scratch, passes);
                self.fits = true;
            }
            Err(
                e @ (retrograde::Error::TooLarge { .. } | retrograde::Error::Unsupported { .. }),
            ) => self.refused = Some(e.to_string()),
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// The figures of a one-cop or counter-engine storage plan.
    pub(crate) fn figures(plan: &retrograde::StoragePlan) -> Figures {
        let scratch = match &plan.backing {
            retrograde::Backing::Memory => None,
            retrograde::Backing::Scratch(dir) => Some(dir.display().to_string()),
        };
        (plan.estimate.total(), plan.resident, scratch, plan.passes)
    }

    /// Prints the report (JSON or a line) to standard output; the exit
    /// status: 0 when it fits, 2 when the solve would be refused.
    pub(crate) fn print(&self, json: bool) -> Result<i32> {
        crate::cli::schema::print(json, self, print_plan)?;
        Ok(if self.fits {
            0
        } else {
            crate::cli::failure::EXIT_INPUT
        })
    }
}

/// One line of text for a [`PlanReport`].
pub(crate) fn print_plan(out: &mut impl Write, p: &PlanReport) -> std::io::Result<()> {
    let verdict = match &p.refused {
        None => "fits".to_string(),
        Some(why) => format!("does not fit: {why}"),
    };
    if p.refused.is_some() && p.bytes == 0 {
        return writeln!(
            out,
            "plan: {}: {} states, engine {}: {verdict}",
            p.map, p.states, p.engine
        );
    }
    writeln!(
        out,
        "plan: {}: {} states, engine {}, {} of arrays {}: {verdict}",
        p.map,
        p.states,
        p.engine,
        human_bytes(p.bytes),
        match &p.scratch {
            None => "in memory".to_string(),
            Some(dir) => format!(
                "paged out of core through scratch files under {dir}, at most {} resident{}",
                human_bytes(p.resident),
                p.passes.map(passes_note).unwrap_or_default()
            ),
        }
    )
}

/// ", L levels per pass, each reading and writing at most B" for an
/// out-of-core bitboard plan.
pub(crate) fn passes_note(passes: retrograde::Passes) -> String {
    let levels = passes.levels_per_pass;
    format!(
        ", {levels} level{} per pass, each reading and writing at most {}",
        if levels == 1 { "" } else { "s" },
        human_bytes(passes.bytes_per_pass)
    )
}
