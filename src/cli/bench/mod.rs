//! `retrograde bench MAP...`: the explicit-versus-on-the-fly comparison.
//! Each engine solves each map (same starts, exits and rules); the engines
//! must agree state by state (a hash of every value and the start's
//! distance), and each run reports build and solve time, throughput, edges
//! and its own peak memory, as a table and as JSON, CSV or Markdown.
//!
//! Timing follows hyperfine's conventions: `--warmup` untimed runs first,
//! then `--runs` timed ones summarised by mean and (sample) standard
//! deviation, median, min and max; a progress line on a terminal, plain
//! lines when stderr is piped, nothing with `--quiet`.
//!
//! `report` writes the table, CSV and Markdown from the finished records.

mod report;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{anyhow, Result};
use clap::Args as ClapArgs;
use retrograde::{
    count_edges, load_map, plan_storage, solve, Engine, Game, Map, SolveOptions, StorageLimits,
};
use serde::Serialize;

use super::common::{
    engine_parser, human_bytes, threads_flag, worker_pool, GameArgs, StorageFlags, UsageError,
};
use super::output::OutputTarget;
use super::solving;
use crate::cli::failure::Failure;
use report::{print_table, write_csv, write_markdown};

/// Flags of `bench`.
#[derive(ClapArgs, Debug)]
pub(crate) struct BenchArgs {
    /// Map files (seed text or MovingAI .map).
    #[arg(required = true)]
    maps: Vec<PathBuf>,
    #[command(flatten)]
    game: GameArgs,
    /// Engines to compare, comma-separated, the first the reference the
    /// others must agree with (the sweep engine keeps no distances: it is
    /// compared by values).
    #[arg(
        long,
        value_name = "ENGINE,...",
        value_delimiter = ',',
        value_parser = engine_parser(),
        default_value = "bitboard,explicit,sequential,parallel"
    )]
    engines: Vec<Engine>,
    /// Worker threads for the parallel engine and the explicit build
    /// [default: all cores].
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Timed runs per engine and map (summarised by mean, standard
    /// deviation, median, min and max).
    #[arg(long, alias = "repeat", default_value_t = 3, value_name = "N")]
    runs: usize,
    /// Untimed runs per engine and map before the timed ones (warm caches,
    /// page tables and allocator).
    #[arg(long, default_value_t = 1, value_name = "N")]
    warmup: usize,
    /// No progress output.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    storage: StorageFlags,
    /// Write the records as one JSON object (`schema`, and `results`: one
    /// record per engine and map). With `-` (any export) the export is
    /// all that goes to standard output, the table then going to standard
    /// error; two exports on `-` are refused.
    #[arg(long, value_name = "FILE")]
    export_json: Option<PathBuf>,
    /// Write the records as CSV.
    #[arg(long, value_name = "FILE")]
    export_csv: Option<PathBuf>,
    /// Write a Markdown table (mean ± σ, min, max, relative to the fastest
    /// engine on each map).
    #[arg(long, value_name = "FILE")]
    export_markdown: Option<PathBuf>,
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
    /// Untimed warm-up runs made first (0 for a refused engine).
    warmup: usize,
    /// Timed runs (0 for a refused engine).
    runs: usize,
    /// `ok`, or `refused` when the engine did not run (`error` says why);
    /// a refused engine's times are null, not zero: no run took them.
    status: &'static str,
    /// Mean seconds of a run (build plus solve).
    mean_seconds: Option<f64>,
    /// Sample standard deviation of a run's seconds (null for one run).
    stddev_seconds: Option<f64>,
    /// Median seconds of a run (the mean of the middle two for an even
    /// number of runs).
    median_seconds: Option<f64>,
    /// Fastest run.
    min_seconds: Option<f64>,
    /// Slowest run.
    max_seconds: Option<f64>,
    /// Every timed run's seconds, in order.
    times: Vec<f64>,
    /// Mean seconds to build what the engine needs before solving (the
    /// stored graph for `explicit`, the move tables otherwise).
    build_seconds: Option<f64>,
    /// Mean seconds of the solve itself.
    solve_seconds: Option<f64>,
    /// States per second over the mean run.
    states_per_second: Option<f64>,
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
    let engines = args.engines.clone();
    let limits = args.storage.limits(0)?;
    if args.runs == 0 {
        return Err(UsageError("--runs must be at least 1".into()).into());
    }
    let progress = BenchProgress::new(args.quiet);
    let threads = threads_flag(args.threads)?;
    // Outputs are checked before the runs, not after them, and after the
    // maps are noted: an export never replaces a map it reads.
    for path in &args.maps {
        super::output::note_input("the map", path)?;
    }
    let export_json = args
        .export_json
        .as_deref()
        .map(|p| OutputTarget::check("--export-json", p))
        .transpose()?;
    let export_csv = args
        .export_csv
        .as_deref()
        .map(|p| OutputTarget::check("--export-csv", p))
        .transpose()?;
    let export_markdown = args
        .export_markdown
        .as_deref()
        .map(|p| OutputTarget::check("--export-markdown", p))
        .transpose()?;
    // An export on standard output is all that goes there: the table then
    // goes to standard error; two exports there are refused.
    let export_on_stdout = OutputTarget::stdout_taken(
        export_json
            .iter()
            .chain(&export_csv)
            .chain(&export_markdown),
    )?;
    let mut records = Vec::new();
    for path in &args.maps {
        let map = load_map(path)?;
        // Refused cells are reported before any run.
        solving::one_cop_game(&map, &args.game)?;
        let mut reference: Option<(u64, Option<u32>)> = None;
        for &engine in &engines {
            let threads = if engine == Engine::Sequential {
                1
            } else {
                threads
            };
            let run = Run {
                path,
                map: &map,
                engine,
                threads,
            };
            let record = bench_one(&run, &args, &limits, &progress, &mut reference)?;
            records.push(record);
        }
    }
    progress.finish();
    if export_on_stdout {
        print_table(&mut std::io::stderr().lock(), &records)?;
    } else {
        print_table(&mut std::io::stdout().lock(), &records)?;
    }
    if let Some(target) = export_json {
        target.write_with(|out| {
            let export = ExportJson { results: &records };
            serde_json::to_writer_pretty(&mut *out, &super::schema::versioned(&export))
                .map_err(std::io::Error::other)?;
            writeln!(out)
        })?;
    }
    if let Some(target) = export_markdown {
        target.write_with(|out| write_markdown(out, &records))?;
    }
    if let Some(target) = export_csv {
        target.write_with(|out| write_csv(out, &records))?;
    }
    if records.iter().any(|r| r.agrees == Some(false)) {
        return Err(anyhow!("the engines disagree (see the `agrees` column)").into());
    }
    Ok(0)
}

/// The `--export-json` file: `{"schema": 1, "results": [...]}`.
#[derive(Serialize)]
struct ExportJson<'a> {
    results: &'a [BenchRecord],
}

/// One engine on one map, to be run.
struct Run<'a> {
    path: &'a std::path::Path,
    map: &'a Map,
    engine: Engine,
    threads: usize,
}

/// Progress: a line redrawn in place on a terminal, plain lines when
/// stderr is piped, nothing with `--quiet`.
enum BenchProgress {
    Quiet,
    Bar(indicatif::ProgressBar),
    Plain,
}

impl BenchProgress {
    fn new(quiet: bool) -> BenchProgress {
        if quiet {
            BenchProgress::Quiet
        } else if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.enable_steady_tick(std::time::Duration::from_millis(200));
            BenchProgress::Bar(bar)
        } else {
            BenchProgress::Plain
        }
    }

    /// Reports the run about to start.
    fn run(&self, run: &Run<'_>, what: &str) {
        let line = format!(
            "bench {} {} ({} thread{}): {what}",
            run.path.display(),
            run.engine.as_str(),
            run.threads,
            if run.threads == 1 { "" } else { "s" }
        );
        match self {
            BenchProgress::Quiet => {}
            BenchProgress::Bar(bar) => bar.set_message(line),
            BenchProgress::Plain => say!("{line}"),
        }
    }

    fn finish(&self) {
        if let BenchProgress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

fn bench_one(
    run: &Run<'_>,
    args: &BenchArgs,
    limits: &StorageLimits,
    progress: &BenchProgress,
    reference: &mut Option<(u64, Option<u32>)>,
) -> Result<BenchRecord> {
    let Run {
        path,
        map,
        engine,
        threads,
    } = *run;
    let mut builds = Vec::new();
    let mut solves = Vec::new();
    let mut last = None;
    let mut error = None;
    // Sizes and every engine's fit are known before any run: the
    // library's storage plan under the same --memory and --scratch as
    // `solve`, so nothing is allocated that is not known to fit.
    let probe = solving::one_cop_game(map, &args.game)?;
    let edges = count_edges(&probe);
    let states = probe.state_count();
    let start = probe.start_state();
    let cells = u64::from(probe.cells());
    let sized = SolveOptions::new(engine)
        .with_threads(threads)
        .with_tracked_state(start);
    let plan = match plan_storage(&probe, &sized, limits) {
        Err(retrograde::Error::TooLarge {
            needed, available, ..
        }) => {
            let what = if engine == Engine::Explicit {
                "explicit graph"
            } else {
                engine.as_str()
            };
            error = Some(format!(
                "{what} needs {} but {} are available",
                human_bytes(needed),
                human_bytes(available)
            ));
            None
        }
        Err(e) => return Err(e.into()),
        Ok(fits) => Some(fits),
    };
    drop(probe);
    reset_peak_memory();
    let pool = worker_pool(threads)?;
    let total = if error.is_some() {
        0
    } else {
        args.warmup + args.runs
    };
    for k in 0..total {
        let warm = k < args.warmup;
        progress.run(
            run,
            &if warm {
                format!("warm-up {}/{}", k + 1, args.warmup)
            } else {
                format!("run {}/{}", k + 1 - args.warmup, args.runs)
            },
        );
        let started = Instant::now();
        let game = solving::one_cop_game(map, &args.game)?;
        let start = game.start_state();
        let setup = started.elapsed();
        let Some(plan) = &plan else { break };
        let options = SolveOptions::new(engine)
            .with_threads(threads)
            .with_tracked_state(start)
            .with_plan(plan);
        // The library times its own phases: the explicit engine's graph
        // build, then the propagation.
        let solution = pool.install(|| solve(&game, &options))?;
        let phases = solution.phases();
        if !warm {
            builds.push((setup + phases.build).as_secs_f64());
            solves.push(phases.propagate.as_secs_f64());
        }
        last = Some((game, solution));
    }
    let peak = super::common::peak_memory();
    // A refused engine reports its sizes and the reason, and no times:
    // null, not zero, which would read as runs that took no time.
    let mut record = BenchRecord {
        map: path.display().to_string(),
        engine: engine.as_str(),
        threads,
        cells,
        states,
        edges,
        warmup: 0,
        runs: 0,
        status: "refused",
        mean_seconds: None,
        stddev_seconds: None,
        median_seconds: None,
        min_seconds: None,
        max_seconds: None,
        times: Vec::new(),
        build_seconds: None,
        solve_seconds: None,
        states_per_second: None,
        peak_memory_bytes: None,
        result: None,
        dte: None,
        agrees: None,
        error,
    };
    let Some((game, solution)) = last else {
        return Ok(record);
    };
    let start = game.start_state();
    let dte = start.and_then(|s| solution.dte(s)).map(|d| d.plies());
    let print = (solution.values_hash(), dte);
    record.agrees = match reference {
        None => {
            *reference = Some(print);
            None
        }
        // The sweep engine keeps no distances: its values must agree, and
        // distances only where both engines have one.
        Some(r) => Some(r.0 == print.0 && (r.1 == print.1 || r.1.is_none() || print.1.is_none())),
    };
    let times: Vec<f64> = builds.iter().zip(&solves).map(|(b, s)| b + s).collect();
    let stats = Stats::of(&times);
    record.warmup = args.warmup;
    record.runs = times.len();
    record.status = "ok";
    record.mean_seconds = Some(stats.mean);
    record.stddev_seconds = stats.stddev;
    record.median_seconds = Some(stats.median);
    record.min_seconds = Some(stats.min);
    record.max_seconds = Some(stats.max);
    record.times = times;
    record.build_seconds = Some(Stats::of(&builds).mean);
    record.solve_seconds = Some(Stats::of(&solves).mean);
    record.states_per_second = Some(states as f64 / stats.mean.max(1e-9));
    record.peak_memory_bytes = peak;
    record.result = start.map(|s| game.verdict(solution.outcome(s)).as_str());
    record.dte = dte;
    Ok(record)
}

/// Summary statistics of run times, as hyperfine reports them.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Stats {
    mean: f64,
    /// Sample standard deviation (n - 1); `None` for fewer than two runs.
    stddev: Option<f64>,
    median: f64,
    min: f64,
    max: f64,
}

impl Stats {
    fn of(values: &[f64]) -> Stats {
        if values.is_empty() {
            return Stats {
                mean: 0.0,
                stddev: None,
                median: 0.0,
                min: 0.0,
                max: 0.0,
            };
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let stddev = (values.len() > 1)
            .then(|| (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt());
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let mid = sorted.len() / 2;
        let median = if sorted.len().is_multiple_of(2) {
            (sorted[mid - 1] + sorted[mid]) / 2.0
        } else {
            sorted[mid]
        };
        Stats {
            mean,
            stddev,
            median,
            min: sorted[0],
            max: sorted[sorted.len() - 1],
        }
    }
}

/// Resets the process's peak-RSS mark (Linux `clear_refs` value 5) so each
/// engine's peak is its own; best effort.
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

#[cfg(test)]
mod tests {
    use super::Stats;

    #[test]
    fn stats_as_hyperfine_reports_them() {
        let s = Stats::of(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!((s.mean, s.median, s.min, s.max), (2.5, 2.5, 1.0, 4.0));
        // Sample standard deviation: sqrt(5/3).
        assert!((s.stddev.unwrap() - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        let one = Stats::of(&[0.5]);
        assert_eq!((one.mean, one.stddev, one.median), (0.5, None, 0.5));
    }
}
