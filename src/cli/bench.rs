//! `retrograde bench MAP...`: the explicit-versus-on-the-fly comparison.
//! Each engine solves each map (same starts, exits and rules); the engines
//! must agree state by state (a fingerprint of every value and the start's
//! distance), and each run reports build and solve time, throughput, edges
//! and its own peak memory, as a table and as JSON or CSV.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{anyhow, Result};
use clap::Args as ClapArgs;
use rayon::prelude::*;
use retrograde::{
    count_edges, load_map, plan_storage, solve, Board, CopsAndThief, Engine, Game, Outcome,
    Solution, SolveOptions, StorageLimits,
};
use serde::Serialize;

use super::common::{human_bytes, parse_size, worker_pool, GameArgs, UsageError};
use super::export::{self, opt};
use super::output::write_atomically;
use super::Failure;

/// Flags of `bench`.
#[derive(ClapArgs, Debug)]
pub(crate) struct BenchArgs {
    /// Map files (seed text or MovingAI .map).
    #[arg(required = true)]
    maps: Vec<PathBuf>,
    #[command(flatten)]
    game: GameArgs,
    /// Engines to compare, comma-separated: explicit, sequential, parallel.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "explicit,sequential,parallel"
    )]
    engines: Vec<String>,
    /// Worker threads for the parallel engine and the explicit build
    /// [default: all cores].
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Runs per engine and map; times are the median.
    #[arg(long, default_value_t = 1, value_name = "N")]
    repeat: usize,
    /// Memory the explicit engine may use [default: available memory].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    memory: Option<u64>,
    /// Write the records as a JSON array.
    #[arg(long, value_name = "FILE")]
    export_json: Option<PathBuf>,
    /// Write the records as CSV.
    #[arg(long, value_name = "FILE")]
    export_csv: Option<PathBuf>,
}

/// One engine on one map.
#[derive(Serialize, Debug, Clone)]
pub(crate) struct BenchRecord {
    /// The map file.
    map: String,
    /// Engine name.
    engine: &'static str,
    /// Worker threads.
    threads: usize,
    /// Free cells.
    cells: u64,
    /// States (2 * cells^2).
    states: u64,
    /// Moves over all states (edges of the game graph).
    edges: u64,
    /// Median seconds to build what the engine needs before solving (the
    /// stored graph for `explicit`, the move tables otherwise).
    build_seconds: f64,
    /// Median seconds of the solve itself.
    solve_seconds: f64,
    /// States per second over build plus solve.
    states_per_second: f64,
    /// Peak resident memory of this engine's runs, in bytes (the process
    /// high-water mark, reset before each engine).
    peak_memory_bytes: Option<u64>,
    /// The start's verdict, if the map has starts.
    result: Option<&'static str>,
    /// The start's distance to end.
    dte: Option<u32>,
    /// Whether every state's value (and the start's distance) equals the
    /// first engine's on this map.
    agrees: Option<bool>,
    /// Why the engine did not run (e.g. the explicit graph does not fit).
    error: Option<String>,
}

/// Runs `bench`; returns the exit status.
pub(crate) fn run(args: BenchArgs) -> Result<i32, Failure> {
    let engines = args
        .engines
        .iter()
        .map(|name| match name.as_str() {
            "explicit" => Ok(Engine::Explicit),
            "sequential" => Ok(Engine::Sequential),
            "parallel" => Ok(Engine::Parallel),
            other => Err(UsageError(format!(
                "--engines: unknown engine `{other}`; expected explicit, sequential or parallel"
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if args.repeat == 0 {
        return Err(UsageError("--repeat must be at least 1".into()).into());
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let mut records = Vec::new();
    for path in &args.maps {
        let map = load_map(path)?;
        let board = Board::new(&map, &args.game.placement())?;
        let rules = args.game.rules();
        let mut reference: Option<(u64, Option<u32>)> = None;
        for &engine in &engines {
            let threads = if engine == Engine::Sequential {
                1
            } else {
                threads
            };
            let record = bench_one(path, &board, rules, engine, threads, &args, &mut reference)?;
            records.push(record);
        }
    }
    print_table(&records)?;
    if let Some(path) = &args.export_json {
        write_atomically(path, |out| {
            serde_json::to_writer_pretty(&mut *out, &records).map_err(std::io::Error::other)?;
            writeln!(out)
        })?;
    }
    if let Some(path) = &args.export_csv {
        write_atomically(path, |out| write_csv(out, &records))?;
    }
    if records.iter().any(|r| r.agrees == Some(false)) {
        return Err(anyhow!("the engines disagree (see the `agrees` column)").into());
    }
    Ok(0)
}

fn bench_one(
    path: &std::path::Path,
    board: &Board,
    rules: retrograde::Rules,
    engine: Engine,
    threads: usize,
    args: &BenchArgs,
    reference: &mut Option<(u64, Option<u32>)>,
) -> Result<BenchRecord> {
    let mut builds = Vec::new();
    let mut solves = Vec::new();
    let mut last = None;
    let mut error = None;
    // Sizes and the explicit engine's fit are known before any timed run:
    // the library's storage plan, in memory (bench never spills to files).
    let probe = CopsAndThief::new(board.clone(), rules);
    let edges = count_edges(&probe);
    let states = probe.state_count();
    let mut plan = None;
    if engine == Engine::Explicit {
        let limits = StorageLimits {
            memory: args.memory,
            ..StorageLimits::default()
        };
        match plan_storage(&probe, &SolveOptions::new(engine), &limits) {
            Err(retrograde::Error::TooLarge {
                needed, available, ..
            }) => {
                error = Some(format!(
                    "explicit graph needs {} but {} are available",
                    human_bytes(needed),
                    human_bytes(available)
                ));
            }
            Err(e) => return Err(e.into()),
            Ok(fits) => plan = Some(fits),
        }
    }
    drop(probe);
    reset_peak_memory();
    let pool = worker_pool(threads)?;
    for _ in 0..if error.is_some() { 0 } else { args.repeat } {
        let started = Instant::now();
        let game = CopsAndThief::new(board.clone(), rules);
        let start = game.start();
        let setup = started.elapsed();
        let mut options = SolveOptions::new(engine)
            .with_threads(threads)
            .with_tracked_state(start);
        if let Some(plan) = &plan {
            options = options.with_plan(plan);
        }
        // The library times its own phases: the explicit engine's graph
        // build, then the propagation.
        let solution = pool.install(|| solve(&game, &options))?;
        let phases = solution.phases();
        builds.push((setup + phases.build).as_secs_f64());
        solves.push(phases.propagate.as_secs_f64());
        last = Some((game, solution));
    }
    let peak = super::common::peak_memory();
    let cells = board.grid.cells() as u64;
    // A refused engine reports its sizes and the reason, and no times.
    let mut record = BenchRecord {
        map: path.display().to_string(),
        engine: engine.as_str(),
        threads,
        cells,
        states,
        edges,
        build_seconds: 0.0,
        solve_seconds: 0.0,
        states_per_second: 0.0,
        peak_memory_bytes: None,
        result: None,
        dte: None,
        agrees: None,
        error,
    };
    let Some((game, solution)) = last else {
        return Ok(record);
    };
    let start = game.start();
    let dte = start.and_then(|s| solution.dte(s)).map(|d| d.plies());
    let print = (fingerprint(&solution), dte);
    record.agrees = match reference {
        None => {
            *reference = Some(print);
            None
        }
        Some(r) => Some(*r == print),
    };
    let (build, solve) = (median(&mut builds), median(&mut solves));
    record.build_seconds = build;
    record.solve_seconds = solve;
    record.states_per_second = states as f64 / (build + solve).max(1e-9);
    record.peak_memory_bytes = peak;
    record.result = start.map(|s| game.verdict(solution.outcome(s)).as_str());
    record.dte = dte;
    Ok(record)
}

/// A hash of every state's value in state order (FNV-1a per chunk, chunks
/// combined in order), so two solutions can be compared without keeping
/// both in memory.
fn fingerprint(solution: &Solution) -> u64 {
    const CHUNK: u64 = 1 << 20;
    let n = solution.states();
    let hashes: Vec<u64> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|k| {
            let mut h = 0xcbf2_9ce4_8422_2325u64;
            for s in k * CHUNK..((k + 1) * CHUNK).min(n) {
                let v = match solution.outcome(s) {
                    Outcome::Draw => 0u64,
                    Outcome::Win => 1,
                    Outcome::Loss => 2,
                };
                h = (h ^ v).wrapping_mul(0x100_0000_01b3);
            }
            h
        })
        .collect();
    hashes.iter().fold(0u64, |acc, &h| {
        (acc ^ h).wrapping_mul(0x100_0000_01b3).rotate_left(7)
    })
}

fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Resets the process's peak-RSS mark (Linux `clear_refs` value 5) so each
/// engine's peak is its own; best effort.
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn row(r: &BenchRecord) -> String {
    match &r.error {
        Some(e) => format!(
            "{:<28} {:<10} {:>3}  refused: {e}",
            r.map, r.engine, r.threads
        ),
        None => format!(
            "{:<28} {:<10} {:>3} {:>14} {:>15} {:>9.3} {:>9.3} {:>12.3e} {:>11} {:>14} {:>5} {}",
            r.map,
            r.engine,
            r.threads,
            r.states,
            r.edges,
            r.build_seconds,
            r.solve_seconds,
            r.states_per_second,
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

fn print_table(records: &[BenchRecord]) -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    writeln!(
        out,
        "{:<28} {:<10} {:>3} {:>14} {:>15} {:>9} {:>9} {:>12} {:>11} {:>14} {:>5} check",
        "map",
        "engine",
        "thr",
        "states",
        "edges",
        "build s",
        "solve s",
        "states/s",
        "peak mem",
        "result",
        "dte"
    )?;
    for r in records {
        writeln!(out, "{}", row(r))?;
    }
    Ok(())
}

/// Column names of `--export-csv`.
const CSV_COLUMNS: [&str; 14] = [
    "map",
    "engine",
    "threads",
    "cells",
    "states",
    "edges",
    "build_seconds",
    "solve_seconds",
    "states_per_second",
    "peak_memory_bytes",
    "result",
    "dte",
    "agrees",
    "error",
];

fn write_csv(out: &mut impl Write, records: &[BenchRecord]) -> std::io::Result<()> {
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
                r.build_seconds.to_string(),
                r.solve_seconds.to_string(),
                r.states_per_second.to_string(),
                opt(r.peak_memory_bytes),
                r.result.unwrap_or("").to_string(),
                opt(r.dte),
                opt(r.agrees),
                r.error.clone().unwrap_or_default(),
            ]
        }),
    )
}
