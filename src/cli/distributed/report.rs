//! Process 0's report of a partitioned solve: the local solve's report
//! with the cluster's lines (processes, kernel, the exchange, each
//! process's peak memory), as text or `--json`.

use std::io::Write;

use retrograde::distributed;
use serde::Serialize;

use super::super::common::human_bytes;
use super::super::output::{print_text, SolveReport};
use super::super::solving::SolveArgs;
use super::Place;
use crate::cli::failure::Failure;

/// What a partitioned solve adds to the local report.
#[derive(Serialize)]
struct ClusterReport<'a> {
    #[serde(flatten)]
    base: &'a SolveReport,
    processes: usize,
    workers: usize,
    /// What a band is made of (grid rows, cop multisets), for the text.
    #[serde(skip)]
    bands: &'static str,
    /// What runs each band: `bitboard`, the bit engine's kernels (the
    /// field stays for readers of the earlier `counter`).
    kernel: &'static str,
    /// With `--save`: every shard's file, in process order (each process
    /// writes its own; `saved` is process 0's).
    #[serde(skip_serializing_if = "Option::is_none")]
    shards: Option<Vec<String>>,
    exchange: Exchange,
    peak_memory_per_process: Vec<u64>,
}

/// Bytes sent between workers (see `retrograde::distributed::Summary`).
#[derive(Serialize)]
struct Exchange {
    bytes: u64,
    network_bytes: u64,
    bytes_per_level: Vec<u64>,
    decided_per_level: Vec<u64>,
}

/// Process 0's report: the local one with the cluster's lines (`bands`:
/// what a band is made of, for the engine line).
pub(super) fn print_report(
    args: &SolveArgs,
    place: &Place,
    report: &SolveReport,
    summary: &distributed::Summary,
    bands: &'static str,
) -> Result<i32, Failure> {
    let processes = place.processes;
    let full = ClusterReport {
        base: report,
        processes,
        workers: place.workers,
        bands,
        kernel: "bitboard",
        shards: args.save.as_deref().map(|base| {
            (0..processes)
                .map(|i| {
                    retrograde::shard_path(base, i as u32, processes as u32)
                        .display()
                        .to_string()
                })
                .collect()
        }),
        exchange: Exchange {
            bytes: summary.bytes(),
            network_bytes: summary.network_bytes,
            bytes_per_level: summary.bytes_per_level.clone(),
            decided_per_level: summary.decided_per_level.clone(),
        },
        peak_memory_per_process: summary.process_stats.clone(),
    };
    super::super::schema::print(args.json, &full, print_cluster_text)?;
    Ok(0)
}

/// The local text report with the engine line for the cluster, then the
/// exchange and memory lines.
fn print_cluster_text(out: &mut impl Write, r: &ClusterReport<'_>) -> std::io::Result<()> {
    let mut base = Vec::new();
    print_text(&mut base, r.base, false)?;
    for line in String::from_utf8_lossy(&base).lines() {
        if line.starts_with("engine: ") {
            writeln!(
                out,
                "engine: distributed ({} process{} x {} worker{}, {} bands of {}), {} levels ({} kernel)",
                r.processes,
                if r.processes == 1 { "" } else { "es" },
                r.workers,
                if r.workers == 1 { "" } else { "s" },
                r.processes * r.workers,
                r.bands,
                r.base.levels,
                r.kernel
            )?;
        } else {
            writeln!(out, "{line}")?;
        }
    }
    let levels = r.exchange.bytes_per_level.len().max(1) as u64;
    writeln!(
        out,
        "exchanged: {} in {} rounds ({} between processes); per round: mean {}, max {}",
        human_bytes(r.exchange.bytes),
        r.exchange.bytes_per_level.len(),
        human_bytes(r.exchange.network_bytes),
        human_bytes(r.exchange.bytes / levels),
        human_bytes(
            r.exchange
                .bytes_per_level
                .iter()
                .copied()
                .max()
                .unwrap_or(0)
        ),
    )?;
    if let Some(shards) = &r.shards {
        writeln!(
            out,
            "shards: {} files, {} to {}, one written by each process (open any of them)",
            shards.len(),
            shards[0],
            shards[shards.len() - 1]
        )?;
    }
    let peaks: Vec<String> = r
        .peak_memory_per_process
        .iter()
        .map(|&b| human_bytes(b))
        .collect();
    writeln!(out, "peak memory per process: {}", peaks.join(", "))
}
