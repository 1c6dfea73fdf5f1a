//! The output writers of `bench`: the aligned text table on stdout and the
//! `--export-csv` and `--export-markdown` files, each from the finished
//! `BenchRecord`s. Separate from the command's flow (`mod.rs`: flags, runs,
//! timing, agreement), which only measures, so that the layout of each
//! format lives in one place.

use std::io::Write;

use super::BenchRecord;
use crate::cli::common::human_bytes;
use crate::cli::export::{self, opt};

/// A time of an engine that ran (`Some` for every record without an
/// error, the only ones whose times are printed).
fn ran(seconds: Option<f64>) -> f64 {
    seconds.unwrap_or_default()
}

/// One text row; `width` is the map column's (the longest path's).
fn row(r: &BenchRecord, width: usize) -> String {
    match &r.error {
        Some(e) => format!(
            "{:<width$} {:<10} {:>3}  refused: {e}",
            r.map, r.engine, r.threads
        ),
        None => format!(
            "{:<width$} {:<10} {:>3} {:>14} {:>15} {:>18} {:>17} {:>9.3} {:>9.3} {:>12.3e} {:>11} {:>14} {:>5} {}",
            r.map,
            r.engine,
            r.threads,
            r.states,
            r.edges,
            format!(
                "{:.3} ± {}",
                ran(r.mean_seconds),
                r.stddev_seconds
                    .map_or_else(|| "-".to_string(), |s| format!("{s:.3}"))
            ),
            format!("{:.3} … {:.3}", ran(r.min_seconds), ran(r.max_seconds)),
            ran(r.build_seconds),
            ran(r.solve_seconds),
            ran(r.states_per_second),
            r.peak_memory_bytes
                .map_or_else(|| "?".to_string(), human_bytes),
            r.result.unwrap_or("-"),
            r.dte.map_or_else(|| "-".to_string(), |d| d.to_string()),
            match r.agrees {
                None => "reference",
                Some(true) => "agrees",
                Some(false) => "DISAGREES",
            }
        ),
    }
}

/// The aligned text table, to `out` (standard output, or standard error
/// when an export goes to standard output).
pub(super) fn print_table(out: &mut impl Write, records: &[BenchRecord]) -> std::io::Result<()> {
    // The map column is as wide as the longest path, so that long paths
    // do not push their rows out of line.
    let width = records
        .iter()
        .map(|r| r.map.chars().count())
        .max()
        .unwrap_or(0)
        .max(28);
    writeln!(
        out,
        "{:<width$} {:<10} {:>3} {:>14} {:>15} {:>18} {:>17} {:>9} {:>9} {:>12} {:>11} {:>14} {:>5} check",
        "map",
        "engine",
        "thr",
        "states",
        "edges",
        "mean ± σ s",
        "min … max s",
        "build s",
        "solve s",
        "states/s",
        "peak mem",
        "result",
        "dte"
    )?;
    for r in records {
        writeln!(out, "{}", row(r, width))?;
    }
    Ok(())
}

/// Column names of `--export-csv`; a refused engine's times are empty.
const CSV_COLUMNS: [&str; 22] = [
    "map",
    "engine",
    "threads",
    "cells",
    "states",
    "edges",
    "warmup",
    "runs",
    "status",
    "mean_seconds",
    "stddev_seconds",
    "median_seconds",
    "min_seconds",
    "max_seconds",
    "build_seconds",
    "solve_seconds",
    "states_per_second",
    "peak_memory_bytes",
    "result",
    "dte",
    "agrees",
    "error",
];

pub(super) fn write_csv(out: &mut impl Write, records: &[BenchRecord]) -> std::io::Result<()> {
    export::write_csv(
        out,
        &CSV_COLUMNS,
        records.iter().map(|r| {
            [
                r.map.clone(),
                r.engine.to_string(),
                r.threads.to_string(),
                r.cells.to_string(),
                r.states.to_string(),
                r.edges.to_string(),
                r.warmup.to_string(),
                r.runs.to_string(),
                r.status.to_string(),
                opt(r.mean_seconds),
                opt(r.stddev_seconds),
                opt(r.median_seconds),
                opt(r.min_seconds),
                opt(r.max_seconds),
                opt(r.build_seconds),
                opt(r.solve_seconds),
                opt(r.states_per_second),
                opt(r.peak_memory_bytes),
                r.result.unwrap_or("").to_string(),
                opt(r.dte),
                opt(r.agrees),
                r.error.clone().unwrap_or_default(),
            ]
        }),
    )
}

/// A Markdown table in hyperfine's layout, one row per engine and map;
/// `relative` is the mean over the fastest mean on the same map.
pub(super) fn write_markdown(out: &mut impl Write, records: &[BenchRecord]) -> std::io::Result<()> {
    writeln!(
        out,
        "| map | engine | threads | mean [s] | min [s] | max [s] | relative | states/s | peak memory | check |"
    )?;
    writeln!(out, "|:---|:---|---:|---:|---:|---:|---:|---:|---:|:---|")?;
    for r in records {
        if let Some(e) = &r.error {
            writeln!(
                out,
                "| `{}` | {} | {} | | | | | | | refused: {} |",
                r.map,
                r.engine,
                r.threads,
                e.replace('|', "\\|")
            )?;
            continue;
        }
        let fastest = records
            .iter()
            .filter(|o| o.map == r.map && o.error.is_none())
            .map(|o| ran(o.mean_seconds))
            .fold(f64::INFINITY, f64::min);
        writeln!(
            out,
            "| `{}` | {} | {} | {:.3} ± {} | {:.3} | {:.3} | {:.2} | {:.3e} | {} | {} |",
            r.map,
            r.engine,
            r.threads,
            ran(r.mean_seconds),
            r.stddev_seconds
                .map_or_else(|| "-".to_string(), |s| format!("{s:.3}")),
            ran(r.min_seconds),
            ran(r.max_seconds),
            ran(r.mean_seconds) / fastest.max(1e-12),
            ran(r.states_per_second),
            r.peak_memory_bytes
                .map_or_else(|| "?".to_string(), human_bytes),
            match r.agrees {
                None => "reference",
                Some(true) => "agrees",
                Some(false) => "DISAGREES",
            }
        )?;
    }
    Ok(())
}
