//! What `copnumber census` and `copnumber merge` print: the merged
//! census in words (the counts, the capture-time histograms, the first
//! extreme graphs, the checksum) or as one JSON object with every listed
//! graph.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use anyhow::Result;
use retrograde::copnumber::{Census, Listed};
use serde::Serialize;

use super::super::report::plural;
use crate::cli::schema::versioned;

/// Listed graphs shown per extreme in the text (the file and the JSON
/// have them all).
const SHOWN: usize = 10;

#[derive(Serialize)]
struct ListedJson<'a> {
    graph6: &'a str,
    /// Empty for a graph needing more than the most cops.
    placement: &'a [u32],
    /// Null for a graph needing more than the most cops.
    capture_time: Option<u32>,
    capture_time_plies: Option<u32>,
}

#[derive(Serialize)]
struct ExtremeJson<'a> {
    /// Null: more than the most cops.
    cop_number: Option<u32>,
    /// Null for "more".
    capture_time: Option<u32>,
    /// Graphs in all.
    graphs: u64,
    /// The first of them (at most 1000).
    listed: Vec<ListedJson<'a>>,
}

#[derive(Serialize)]
struct ShardJson<'a> {
    shard: u32,
    graphs: u64,
    sha256: &'a str,
}

/// What `census --check` confirmed in this run: shards and graphs
/// checked, the dismantlable ones among them.
#[derive(Serialize)]
pub(super) struct CheckSummary {
    /// Shards computed (and checked) by this run.
    pub(super) shards: u32,
    /// Their graphs.
    pub(super) graphs: u64,
    /// Those corner elimination dismantles: exactly those of cop number 1.
    pub(super) dismantlable: u64,
}

#[derive(Serialize)]
struct CensusJson<'a> {
    source: &'a str,
    vertices: Option<u32>,
    shards: u32,
    max_cops: u32,
    graphs: u64,
    /// Graphs by cop number (`more`: more than `max_cops`).
    cop_number: BTreeMap<String, u64>,
    /// By cop number, graphs by capture time in rounds.
    capture_time: BTreeMap<String, BTreeMap<u32, u64>>,
    largest_cop_number: Option<ExtremeJson<'a>>,
    /// By cop number, the longest capture time and its graphs.
    longest_capture_time: BTreeMap<String, ExtremeJson<'a>>,
    shard_graphs: Vec<ShardJson<'a>>,
    /// The SHA-256 the census file ends with.
    sha256: String,
    /// What `sha256sum` prints for the census file: the SHA-256 of all of
    /// it, its last line (`sha256` above) included.
    sha256sum: String,
    /// The census file written, if any.
    file: Option<String>,
    /// With `--check` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    check: Option<&'a CheckSummary>,
}

/// The SHA-256 of the whole census file, as `sha256sum` prints it (the
/// file's own last line holds that of the lines before it).
fn file_sha256(census: &Census) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(census.to_text().as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn word(c: Option<u32>) -> String {
    c.map_or_else(|| "more".to_string(), |c| c.to_string())
}

fn listed_json(l: &Listed, timed: bool) -> ListedJson<'_> {
    ListedJson {
        graph6: &l.graph6,
        placement: &l.placement,
        capture_time: timed.then_some(l.plies.div_ceil(2)),
        capture_time_plies: timed.then_some(l.plies),
    }
}

/// Prints the census: text, or with `json` one object; `check` is what
/// `--check` confirmed.
pub(super) fn print_census(
    census: &Census,
    file: Option<&Path>,
    json: bool,
    check: Option<&CheckSummary>,
) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let t = &census.tally;
    let key = &census.key;
    if json {
        let largest = t.largest_cop_number().map(|c| ExtremeJson {
            cop_number: c,
            capture_time: None,
            graphs: t.classes[&c].graphs,
            listed: t
                .largest
                .iter()
                .map(|l| listed_json(l, c.is_some()))
                .collect(),
        });
        let j = CensusJson {
            source: &key.source,
            vertices: key.vertices,
            shards: key.shards,
            max_cops: key.max_cops,
            graphs: t.graphs,
            cop_number: t
                .classes
                .iter()
                .map(|(&c, k)| (word(c), k.graphs))
                .collect(),
            capture_time: t
                .classes
                .iter()
                .filter(|(c, _)| c.is_some())
                .map(|(&c, k)| {
                    let h = (0u32..)
                        .zip(&k.capture_times)
                        .filter(|(_, &g)| g > 0)
                        .map(|(r, &g)| (r, g))
                        .collect();
                    (word(c), h)
                })
                .collect(),
            largest_cop_number: largest,
            longest_capture_time: t
                .classes
                .iter()
                .filter_map(|(&c, k)| {
                    let l = k.longest.as_ref()?;
                    Some((
                        word(c),
                        ExtremeJson {
                            cop_number: c,
                            capture_time: Some(l.rounds),
                            graphs: l.graphs,
                            listed: l.listed.iter().map(|g| listed_json(g, true)).collect(),
                        },
                    ))
                })
                .collect(),
            shard_graphs: census
                .shards
                .iter()
                .map(|s| ShardJson {
                    shard: s.index,
                    graphs: s.graphs,
                    sha256: &s.sha256,
                })
                .collect(),
            sha256: census.sha256(),
            sha256sum: file_sha256(census),
            file: file.map(|f| f.display().to_string()),
            check,
        };
        serde_json::to_writer(&mut out, &versioned(&j))?;
        writeln!(out)?;
        return Ok(());
    }
    let vertices = key.vertices.map_or_else(String::new, |n| {
        format!(", {}", plural(n, "vertex", "vertices"))
    });
    writeln!(
        out,
        "census: {}{vertices}, {} shards, at most {}",
        key.source,
        key.shards,
        plural(key.max_cops, "cop", "cops")
    )?;
    writeln!(out, "graphs: {}", t.graphs)?;
    for (&c, k) in &t.classes {
        match c {
            Some(c) => writeln!(out, "cop number {c}: {}", k.graphs)?,
            None => writeln!(out, "cop number more than {}: {}", key.max_cops, k.graphs)?,
        }
    }
    for (&c, k) in &t.classes {
        let Some(c) = c else { continue };
        let h: Vec<String> = (0u32..)
            .zip(&k.capture_times)
            .filter(|(_, &g)| g > 0)
            .map(|(r, g)| format!("{r}: {g}"))
            .collect();
        writeln!(
            out,
            "capture time (rounds), cop number {c}: {}",
            h.join(", ")
        )?;
    }
    let show = |out: &mut dyn Write, listed: &[Listed], all: u64| -> std::io::Result<()> {
        for l in listed.iter().take(SHOWN) {
            if l.placement.is_empty() {
                writeln!(out, "  {}", l.graph6)?;
            } else {
                let p: Vec<String> = l.placement.iter().map(u32::to_string).collect();
                writeln!(
                    out,
                    "  {}\tplacement {}\tcapture time {} ({})",
                    l.graph6,
                    p.join(","),
                    plural(l.plies.div_ceil(2), "round", "rounds"),
                    plural(l.plies, "ply", "plies")
                )?;
            }
        }
        if all > listed.len().min(SHOWN) as u64 {
            let shown = listed.len().min(SHOWN);
            let kept = if all > listed.len() as u64 {
                format!("; the first {} in the census file", listed.len())
            } else {
                "; all in the census file".to_string()
            };
            writeln!(out, "  ... {} more{kept}", all - shown as u64)?;
        }
        Ok(())
    };
    if let Some(c) = t.largest_cop_number() {
        let all = t.classes[&c].graphs;
        let c = c.map_or_else(|| format!("more than {}", key.max_cops), |c| c.to_string());
        writeln!(
            out,
            "largest cop number: {c} ({all} graph{})",
            if all == 1 { "" } else { "s" }
        )?;
        show(&mut out, &t.largest, all)?;
    }
    for (&c, k) in &t.classes {
        let (Some(c), Some(l)) = (c, &k.longest) else {
            continue;
        };
        writeln!(
            out,
            "longest capture time, cop number {c}: {} ({} graph{})",
            plural(l.rounds, "round", "rounds"),
            l.graphs,
            if l.graphs == 1 { "" } else { "s" }
        )?;
        show(&mut out, &l.listed, l.graphs)?;
    }
    if let Some(c) = check {
        let before = key.shards - c.shards;
        let unchecked = if before > 0 {
            format!(
                "; {} computed before this run, not checked",
                plural(before, "shard was", "shards were")
            )
        } else {
            String::new()
        };
        writeln!(
            out,
            "check: corner elimination agrees on the {} graphs of {} run: {} dismantlable, exactly those of cop number 1{unchecked}",
            c.graphs,
            plural(c.shards, "shard", "shards"),
            c.dismantlable
        )?;
    }
    // What `sha256sum census.txt` prints, and data/census/README.md lists.
    writeln!(out, "sha256: {}", file_sha256(census))?;
    if let Some(f) = file {
        writeln!(out, "written: {}", f.display())?;
    }
    Ok(())
}
