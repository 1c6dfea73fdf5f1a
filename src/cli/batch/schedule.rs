//! Sizing and running the maps of a batch.
//!
//! Scheduling never nests parallelism: maps up to `--large-states` run in
//! parallel with each other, each on the sequential engine inside its own
//! one-thread rayon pool; larger maps run one at a time with the parallel
//! engine and every thread. Each map is read once (when it is sized) and
//! solved through [`solve_loaded`], so its result, distance to end and
//! counts are those of `retrograde solve`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::Result;
use rayon::prelude::*;
use retrograde::{load_map, CopsGame, Engine, Map};

use super::results::{Row, Sink, OK, TOO_LARGE};
use super::scen::{with_pair, Pairs};
use crate::cli::common::{peak_memory, worker_pool, EngineConfig, GameArgs};
use crate::cli::output::{stop_requested, OutputTarget, SummaryJson};
use crate::cli::progress::{MapsProgress, Reporter};
use crate::cli::solving::{save_table, solve_loaded};

/// A map waiting to be solved, read once, with its size.
pub(super) struct Job {
    key: PathBuf,
    map: Map,
    states: u64,
}

/// What every map of a batch shares.
pub(super) struct Batch<'a> {
    /// `--save-dir`: the table file of each map.
    pub(super) tables: Option<&'a std::collections::HashMap<PathBuf, PathBuf>>,
    /// `--dte-table`.
    pub(super) dte_table: bool,
    /// Start, exit and rule flags.
    pub(super) game: &'a GameArgs,
    /// Those flags as recorded in each row.
    pub(super) flags: &'a str,
    /// Engine flags as given.
    pub(super) config: &'a EngineConfig,
    /// `--max-states`.
    pub(super) max_states: Option<u64>,
    /// `--large-states`.
    pub(super) large_states: u64,
    /// `--scen`: the pairs to answer, by map (rows per pair instead of
    /// per map).
    pub(super) pairs: Option<&'a Pairs>,
}

impl Batch<'_> {
    /// The rows of a map that ends as `row` before it is solved: one per
    /// pair with `--scen`.
    fn rows(&self, map: &Path, row: Row) -> Vec<Row> {
        match self.pairs {
            Some(pairs) => pairs.spread(map, row),
            None => vec![row],
        }
    }
}

/// Collects rows: appends each to the results file, reports it, and keeps
/// it for the summary. The first write error stops the batch.
pub(super) struct Collector<'a> {
    sink: &'a Sink,
    progress: &'a MapsProgress,
    rows: Mutex<Vec<Row>>,
    error: Mutex<Option<std::io::Error>>,
    stop: AtomicBool,
}

impl<'a> Collector<'a> {
    /// A collector writing to `sink` and reporting to `progress`.
    pub(super) fn new(sink: &'a Sink, progress: &'a MapsProgress) -> Collector<'a> {
        Collector {
            sink,
            progress,
            rows: Mutex::new(Vec::new()),
            error: Mutex::new(None),
            stop: AtomicBool::new(false),
        }
    }

    /// Takes the finished rows of one map (one, or one per pair).
    pub(super) fn add(&self, rows: Vec<Row>) {
        for row in &rows {
            if let Err(e) = self.sink.append(row) {
                self.stop.store(true, Ordering::Relaxed);
                self.error.lock().expect("error lock").get_or_insert(e);
                return;
            }
        }
        if let Some(first) = rows.first() {
            let what = match rows.len() {
                1 => first.summary(),
                n if first.status == OK => format!("{n} pairs answered"),
                n => format!("{n} pairs: {}", first.status),
            };
            let failed = rows.iter().any(Row::is_failure);
            self.progress
                .finished(&first.path, &what, failed, first.seconds);
        }
        self.rows.lock().expect("rows lock").extend(rows);
    }

    /// Whether a write failed or a stop was asked for (Ctrl-C, SIGTERM,
    /// SIGHUP), so that no more maps should start.
    pub(super) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || stop_requested().is_some()
    }

    /// The rows, or the first write error.
    pub(super) fn finish(self) -> Result<Vec<Row>, std::io::Error> {
        match self.error.into_inner().expect("error lock") {
            Some(e) => Err(e),
            None => Ok(self.rows.into_inner().expect("rows lock")),
        }
    }
}

/// A map read and sized, or the row it ended with.
pub(super) type Plan = Result<Job, Vec<Row>>;

/// Reads and sizes every map, on all workers (parsing a large MovingAI
/// map is not free); with `--scen`, checks every pair against its map, so
/// that a bad entry stops the batch before anything is written.
///
/// # Errors
/// A worker pool that cannot start; with `--scen`, the first entry that
/// does not fit its map (an input error).
pub(super) fn plan_all(batch: &Batch<'_>, todo: &[&PathBuf]) -> Result<Vec<Plan>> {
    let workers = batch.config.threads.max(1);
    let plans: Vec<Plan> =
        worker_pool(workers)?.install(|| todo.par_iter().map(|path| plan(path, batch)).collect());
    if let Some(pairs) = batch.pairs {
        for job in plans.iter().flatten() {
            pairs.cells(&job.key, &job.map.grid)?;
        }
    }
    Ok(plans)
}

/// Solves the planned maps, the small ones side by side and the large
/// ones one at a time on every thread; rows go to `collector`.
pub(super) fn run_all(
    batch: &Batch<'_>,
    plans: Vec<Plan>,
    collector: &Collector<'_>,
) -> Result<()> {
    let config = batch.config;
    let workers = config.threads.max(1);
    let mut small = Vec::new();
    let mut large = Vec::new();
    for planned in plans {
        match planned {
            Err(rows) => collector.add(rows),
            Ok(job) if job.states > batch.large_states && workers > 1 => large.push(job),
            Ok(job) => small.push(job),
        }
    }
    // Largest first: the long maps start early and the short ones fill in
    // around them, which keeps every worker busy to the end.
    small.sort_by(|a, b| b.states.cmp(&a.states).then_with(|| a.key.cmp(&b.key)));
    large.sort_by(|a, b| a.key.cmp(&b.key));

    let small_config = EngineConfig {
        engine: if config.engine == Engine::Parallel {
            Engine::Sequential
        } else {
            config.engine
        },
        threads: 1,
        ..config.clone()
    };
    let next = AtomicUsize::new(0);
    let progress = collector.progress;
    std::thread::scope(|scope| -> Result<()> {
        let (small, next, small_config) = (&small, &next, &small_config);
        for _ in 0..workers.min(small.len()) {
            // One-thread pools: any rayon call inside a solve (the sweeps)
            // stays on this worker instead of stealing work from, or being
            // stolen by, the other maps.
            let own = worker_pool(1)?;
            scope.spawn(move || {
                own.install(|| loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= small.len() || collector.stopped() {
                        break;
                    }
                    progress.started(&small[k].key.display().to_string());
                    collector.add(solve_job(&small[k], batch, small_config, &Reporter::Quiet));
                });
            });
        }
        Ok(())
    })?;

    let all = worker_pool(workers)?;
    for job in &large {
        if collector.stopped() {
            break;
        }
        progress.started(&job.key.display().to_string());
        // Resetting the high-water mark makes this map's peak memory its
        // own (Linux; harmless where it fails).
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        let reporter = progress.states();
        let row = all.install(|| solve_job(job, batch, config, &reporter));
        collector.add(row);
    }
    progress.finish();
    Ok(())
}

/// Reads a map to learn its size; returns the job, or the finished rows
/// when it cannot be loaded or placed or exceeds `--max-states`.
fn plan(path: &Path, batch: &Batch<'_>) -> Plan {
    let failed = |e: retrograde::Error| {
        batch.rows(
            path,
            Row::failed(path, batch.flags, &anyhow::Error::from(e)),
        )
    };
    let map = load_map(path).map_err(failed)?;
    // Placement errors (a --cop outside this map) are found here, before
    // any map is solved.
    let board = batch.game.board(&map).map_err(failed)?;
    let states = CopsGame::state_count_of(&board);
    if batch.max_states.is_some_and(|max| states > max) {
        return Err(batch.rows(
            path,
            Row {
                format: Some(map.format.as_str()),
                width: Some(map.grid.width()),
                height: Some(map.grid.height()),
                cells: Some(map.grid.cells() as u64),
                // The exits are known without solving: a skipped row still
                // shows whether the exit flags found any on this map.
                exits: Some(board.exits.count_ones() as u64),
                exit_checksum: Some(format!("{:016x}", board.exit_checksum())),
                states: Some(states),
                status: TOO_LARGE.to_string(),
                ..Row::new(path, batch.flags)
            },
        ));
    }
    Ok(Job {
        key: path.to_path_buf(),
        map,
        states,
    })
}

/// Solves one map and adds the library's start-pair analysis. Runs inside
/// the rayon pool whose threads it may use for the sweeps.
fn solve_job(job: &Job, batch: &Batch<'_>, config: &EngineConfig, reporter: &Reporter) -> Vec<Row> {
    let failed = |e: &anyhow::Error| batch.rows(&job.key, Row::failed(&job.key, batch.flags, e));
    let started = Instant::now();
    let solved = match solve_loaded(
        &job.key,
        &job.map,
        batch.game,
        config,
        batch.dte_table,
        reporter,
    ) {
        Ok(solved) => solved,
        Err(e) => return failed(&e),
    };
    if let Some(table) = batch.tables.and_then(|t| t.get(&job.key)) {
        // A FIFO or device at a table's name would take the bytes straight
        // (a FIFO without a reader blocks the batch forever): a table is a
        // regular file, so this map's table is refused and the batch goes on.
        if let Ok(meta) = std::fs::metadata(table) {
            if !meta.is_file() {
                let e = anyhow::Error::from(super::super::common::UsageError(format!(
                    "--save-dir {}: not a regular file (a FIFO, device or directory): a table is saved as a file",
                    table.display()
                )));
                return failed(&e);
            }
        }
        let saved = OutputTarget::check("--save-dir", table)
            .map_err(anyhow::Error::from)
            .and_then(|target| save_table(target, &solved.game, &solved.solution, config.engine));
        if let Err(e) = saved {
            return failed(&e);
        }
    }
    let pairs = solved
        .game
        .start_pairs(&solved.solution)
        .expect("one cop on a map");
    // As `solve --summary` gives them; no share of no pairs.
    let summary = SummaryJson::new(&pairs, false);
    let share = (pairs.pairs > 0).then_some(summary.share);
    let longest = summary.longest;
    let report = &solved.report;
    let row = Row {
        format: Some(report.format),
        width: report.width,
        height: report.height,
        cells: Some(report.cells),
        exits: Some(report.exits),
        exit_checksum: report.exit_checksum.clone(),
        states: Some(report.states),
        result: report.result,
        dte: report.dte,
        counts: Some(report.counts),
        pairs: Some(pairs.pairs),
        share,
        longest,
        engine: Some(report.engine),
        threads: Some(report.threads),
        seconds: Some(started.elapsed().as_secs_f64()),
        array_bytes: Some(solved.solution.bytes()),
        peak_memory_bytes: peak_memory(),
        status: OK.to_string(),
        ..Row::new(&job.key, batch.flags)
    };
    let Some(pairs) = batch.pairs else {
        return vec![row];
    };
    // Checked before the batch started (plan_all): cannot fail here.
    let cells = match pairs.cells(&job.key, &job.map.grid) {
        Ok(cells) => cells,
        Err(e) => return failed(&e.into()),
    };
    let game = &solved.game;
    let turn = game.rules().first_mover();
    cells
        .into_iter()
        .map(|pair| {
            let cops = retrograde::Cops::one(pair.cop);
            let state = game.index(&retrograde::Position {
                cops,
                thief: pair.thief,
                turn,
            });
            with_pair(
                &pair.row,
                Row {
                    result: Some(game.verdict(solved.solution.outcome(state)).as_str()),
                    dte: solved.solution.dte(state).map(|d| d.plies()),
                    ..row.clone()
                },
            )
        })
        .collect()
}
