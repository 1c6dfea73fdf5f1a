//! What `copnumber` prints: one line or JSON object per graph, and the
//! summary of a stream (counts by cop number, the graphs with the largest
//! cop number and the longest capture time).

use std::collections::BTreeMap;
use std::io::Write;

use anyhow::Result;
use retrograde::copnumber::CopNumber;
use serde::Serialize;

use super::map::OutOfMemoryJson;
use super::{speed_note, CopNumberArgs, VariantJson};
use crate::cli::schema::versioned;

#[derive(Serialize)]
pub(super) struct GraphJson<'a> {
    graph: u64,
    line: usize,
    /// The graph in graph6 (as read from a stream, encoded from an edge
    /// list), as `--out`'s records and the summary name graphs.
    graph6: &'a str,
    vertices: usize,
    edges: usize,
    cop_number: Option<u32>,
    /// Set when the search stopped before `--max-cops` for memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    out_of_memory: Option<OutOfMemoryJson>,
    placement: &'a [u32],
    /// Null when the cops cannot win (no capture time to give), as in
    /// the `--out` records.
    capture_time: Option<u32>,
    capture_time_plies: Option<u32>,
    #[serde(flatten)]
    variant: VariantJson,
}

/// `--json --counts`: the counts alone, the object of the issue.
#[derive(Serialize)]
pub(super) struct CountsJson {
    graphs: u64,
    cop_number: BTreeMap<String, u64>,
    #[serde(flatten)]
    variant: VariantJson,
}

/// The `--json` summary: the counts and the first graphs with the largest
/// cop number and the longest capture time.
#[derive(Serialize)]
pub(super) struct SummaryJson {
    #[serde(flatten)]
    counts: CountsJson,
    /// Named apart from the batch rows' `longest` (a distance to end and
    /// its cells), as the JSON vocabulary keeps one meaning per key.
    largest_cop_number: Option<NotedJson>,
    longest_capture_time: Option<NotedJson>,
}

/// A graph named in the summary.
#[derive(Serialize)]
pub(super) struct NotedJson {
    graph: u64,
    line: usize,
    graph6: String,
    cop_number: Option<u32>,
    capture_time: Option<u32>,
}

/// A graph kept for the summary.
#[derive(Clone)]
pub(super) struct Noted {
    graph: u64,
    line: usize,
    text: String,
    c: Option<u32>,
    rounds: u32,
    /// Whether `rounds` was computed.
    timed: bool,
}

#[derive(Default)]
pub(super) struct Summary {
    /// Graphs read so far (resumed ones included).
    pub(super) graphs: u64,
    counts: BTreeMap<Option<u32>, u64>,
    largest: Option<Noted>,
    longest: Option<Noted>,
}

impl Summary {
    /// Counts graph `graph` (from 0): its cop number `c` and, when it was
    /// computed, its capture time in rounds.
    pub(super) fn add(
        &mut self,
        graph: u64,
        line: usize,
        text: &[u8],
        c: Option<u32>,
        rounds: Option<u32>,
    ) {
        self.graphs += 1;
        *self.counts.entry(c).or_default() += 1;
        let c_key = |c: Option<u32>| c.unwrap_or(u32::MAX);
        let note = || Noted {
            graph,
            line,
            text: String::from_utf8_lossy(text).into_owned(),
            c,
            rounds: rounds.unwrap_or(0),
            timed: rounds.is_some(),
        };
        if self.largest.as_ref().is_none_or(|l| c_key(c) > c_key(l.c)) {
            self.largest = Some(note());
        }
        if let Some(rounds) = rounds.filter(|_| c.is_some()) {
            if self.longest.as_ref().is_none_or(|l| rounds > l.rounds) {
                self.longest = Some(note());
            }
        }
    }

    /// Counts a solved graph.
    pub(super) fn add_solved(&mut self, graph: u64, line: usize, text: &[u8], r: &CopNumber) {
        let rounds = r.timed.then_some(r.capture_time_rounds);
        self.add(graph, line, text, r.cop_number, rounds);
    }

    fn counts_json(&self, args: &CopNumberArgs) -> CountsJson {
        CountsJson {
            variant: VariantJson::of(args),
            graphs: self.graphs,
            cop_number: self
                .counts
                .iter()
                .map(|(c, n)| (c.map_or_else(|| "more".to_string(), |c| c.to_string()), *n))
                .collect(),
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn write_graph(
    out: &mut impl Write,
    args: &CopNumberArgs,
    index: u64,
    line: usize,
    n: usize,
    edges: usize,
    (text, graph6): (&[u8], &str),
    r: &CopNumber,
) -> Result<()> {
    let (cop_speed, thief_speed) = (args.speeds.cop_speed, args.speeds.thief_speed);
    if args.json {
        let g = GraphJson {
            variant: VariantJson::of(args),
            graph: index + 1,
            line,
            graph6,
            vertices: n,
            edges,
            cop_number: r.cop_number,
            out_of_memory: r.out_of_memory.as_ref().map(OutOfMemoryJson::from),
            placement: &r.placement,
            capture_time: r.cop_number.map(|_| r.capture_time_rounds),
            capture_time_plies: r.cop_number.map(|_| r.capture_time_plies),
        };
        serde_json::to_writer(&mut *out, &versioned(&g))?;
        writeln!(out)?;
    } else {
        let text = String::from_utf8_lossy(text);
        let mut speeds =
            speed_note(cop_speed, thief_speed).map_or_else(String::new, |s| format!("\t{s}"));
        if args.lazy {
            speeds.push_str("\tlazy cops");
        }
        match r.cop_number {
            Some(c) => {
                let p: Vec<String> = r.placement.iter().map(u32::to_string).collect();
                writeln!(
                    out,
                    "{text}\tcop number {c}\tplacement {}\tcapture time {} ({}){speeds}",
                    p.join(","),
                    plural(r.capture_time_rounds, "round", "rounds"),
                    plural(r.capture_time_plies, "ply", "plies")
                )?;
            }
            None => match &r.out_of_memory {
                Some(o) => writeln!(out, "{text}\tcop number more than {}{speeds}", o.cops - 1)?,
                None => writeln!(
                    out,
                    "{text}\tcop number more than {}{speeds}",
                    args.max_cops
                )?,
            },
        }
    }
    Ok(())
}

/// The summary: counts by cop number and, but for `--counts`, the first
/// graphs with the largest cop number and the longest capture time. A
/// lone graph gets none unless asked (`--counts`) or its line went to
/// `--out` (`to_file`).
pub(super) fn write_summary(
    out: &mut impl Write,
    args: &CopNumberArgs,
    s: &Summary,
    to_file: bool,
) -> Result<()> {
    if args.json {
        if args.counts {
            serde_json::to_writer(&mut *out, &versioned(&s.counts_json(args)))?;
            writeln!(out)?;
        } else {
            let noted = |l: &Noted, timed: bool| NotedJson {
                graph: l.graph + 1,
                line: l.line,
                graph6: l.text.clone(),
                cop_number: l.c,
                capture_time: (timed && l.c.is_some()).then_some(l.rounds),
            };
            let summary = SummaryJson {
                counts: s.counts_json(args),
                largest_cop_number: s.largest.as_ref().map(|l| noted(l, l.timed)),
                longest_capture_time: s.longest.as_ref().map(|l| noted(l, true)),
            };
            serde_json::to_writer(&mut *out, &versioned(&summary))?;
            writeln!(out)?;
        }
        return Ok(());
    }
    if s.graphs <= 1 && !args.counts && !to_file {
        return Ok(());
    }
    writeln!(out, "graphs: {}", s.graphs)?;
    if let Some(speeds) = speed_note(args.speeds.cop_speed, args.speeds.thief_speed) {
        writeln!(out, "speeds: {speeds}")?;
    }
    if args.lazy {
        writeln!(out, "rules: lazy cops")?;
    }
    for (c, n) in &s.counts {
        match c {
            Some(c) => writeln!(out, "cop number {c}: {n}")?,
            None => writeln!(out, "cop number more than {}: {n}", args.max_cops)?,
        }
    }
    if let Some(l) = &s.largest {
        let c =
            l.c.map_or_else(|| format!("more than {}", args.max_cops), |c| c.to_string());
        writeln!(
            out,
            "largest cop number: {c} (graph {}, line {}: {})",
            l.graph + 1,
            l.line,
            l.text
        )?;
    }
    if let Some(l) = s.longest.as_ref().filter(|_| !args.counts) {
        writeln!(
            out,
            "longest capture time: {} (graph {}, line {}: {})",
            plural(l.rounds, "round", "rounds"),
            l.graph + 1,
            l.line,
            l.text
        )?;
    }
    Ok(())
}

/// `1 round`, `2 rounds`.
pub(super) fn plural(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
