//! `retrograde solve MAP --processes N --process I`: one process of a
//! partitioned solve (feature `distributed`), of the one-cop grid game in
//! bands of grid rows or of the several-cops game (`--cops K`, speeds,
//! `--graph`, `--lazy`, built by `cli/several.rs`) in bands of cop
//! multisets. Process 0 prints the local solve's report plus the exchange
//! and each process's peak memory.
//!
//! Faults end the process, never hang it: a peer that cannot be reached
//! fails the connection phase after `--connect-timeout`; a peer that dies
//! mid-solve makes timely's network threads panic, which the panic hook
//! here turns into a clear message and exit status 1; and a watchdog exits
//! when no level finishes within `--progress-timeout` (a peer that hangs
//! without closing its connections).
//!
//! With `--save NAME.rtb` every process writes its own tablebase shard,
//! `NAME.I-of-N.rtb` (see `retrograde::shard_path`), of one cop or several;
//! the table commands open the set from any of them or from `NAME.rtb`.
//!
//! With `--checkpoint DIR` every process keeps snapshots of its bands in
//! `DIR/process-I` (all after the same levels, process 0 deciding when:
//! every `--checkpoint-every` minutes); after a crash, the same command
//! with `--resume DIR` on every process continues from the newest level
//! that every process saved.
//!
//! Under Slurm, a bare `--processes` takes the count from `$SLURM_NTASKS`
//! (or `$SLURM_NPROCS`), and `--process` defaults to `$SLURM_PROCID`.
//!
//! Files: `cluster.rs` the peers' addresses, the panic hook and watchdog;
//! `plan.rs` `--plan`; `band_dir.rs` the checkpoint directory;
//! `report.rs` process 0's report.

mod band_dir;
mod cluster;
mod plan;
mod report;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args as ClapArgs;
use retrograde::distributed::{self, BandSink, BandSource, Cluster, PartitionOptions};
use retrograde::{load_map, CopsGame};

use super::checkpoint;
use super::common::{human_bytes, peak_memory, UsageError};
use super::output::{save_with, Found, Output, OutputTarget, SaveReport, SolveReport};
use super::progress::Reporter;
use super::several::{self, refuse_lazy, SeveralCops};
use super::solving::{self, SolveArgs};
use crate::cli::failure::Failure;
use band_dir::{BandDir, Kernel};
use cluster::{install_fault_handlers, read_hostfile};
use report::print_report;

/// `--processes`: a count, or (bare) the count of the Slurm job step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Processes {
    /// `--processes N`.
    Count(usize),
    /// `--processes` alone: `$SLURM_NTASKS` or `$SLURM_NPROCS`.
    Slurm,
}

fn parse_processes(s: &str) -> Result<Processes, String> {
    if s == "slurm" {
        return Ok(Processes::Slurm);
    }
    s.parse()
        .map(Processes::Count)
        .map_err(|_| format!("expected a number of processes, found `{s}`"))
}

/// A whole number from the environment variable `name`, if it is set.
fn slurm_var(name: &str) -> Result<Option<usize>, Failure> {
    match std::env::var(name) {
        Err(_) => Ok(None),
        Ok(v) => {
            v.trim().parse().map(Some).map_err(|_| {
                UsageError(format!("${name} is `{v}`: expected a whole number")).into()
            })
        }
    }
}

/// Flags of a partitioned solve (all but `--processes` need it).
#[derive(ClapArgs, Debug, Clone)]
pub(crate) struct ClusterArgs {
    /// Solve partitioned over N processes (this is one of them; every
    /// process gets the same flags but --process), one cop or several
    /// (--cops K, speeds, --graph). Without N: the Slurm
    /// job step's $SLURM_NTASKS (or $SLURM_NPROCS).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "slurm", value_parser = parse_processes)]
    pub(crate) processes: Option<Processes>,
    /// This process's index, 0 to N - 1 [default: $SLURM_PROCID when set,
    /// else 0].
    #[arg(long, value_name = "I", requires = "processes")]
    process: Option<usize>,
    /// Addresses of the processes, one `host:port` per line in process
    /// order [default: 127.0.0.1 with ports from --port].
    #[arg(long, value_name = "FILE", requires = "processes")]
    hostfile: Option<PathBuf>,
    /// Worker threads per process; each owns a band of grid rows (of cop
    /// multisets with several cops) [default: all cores].
    #[arg(long, value_name = "W", requires = "processes")]
    workers: Option<usize>,
    /// First loopback port without --hostfile (process i listens on PORT + i).
    #[arg(
        long,
        value_name = "PORT",
        default_value_t = 2101,
        requires = "processes"
    )]
    port: u16,
    /// Seconds to wait for every peer to connect.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 60,
        requires = "processes"
    )]
    connect_timeout: u64,
    /// Seconds without a finished level after which a process gives up (a
    /// peer hangs without closing its connections).
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 600,
        requires = "processes"
    )]
    progress_timeout: u64,
}

/// Where this process stands: the cluster's shape, read from the flags
/// and the Slurm variables.
struct Place {
    processes: usize,
    process: usize,
    workers: usize,
    config: Cluster,
}

/// Runs one process of a partitioned solve; returns the exit status.
pub(crate) fn run(args: &SolveArgs, cluster: &ClusterArgs) -> Result<i32, Failure> {
    let place = place(args, cluster)?;
    if args.plan {
        return plan::plan(args, &place);
    }
    run_game(args, cluster, &place)
}

/// The refusals every partitioned solve shares and the cluster's shape.
fn place(args: &SolveArgs, cluster: &ClusterArgs) -> Result<Place, Failure> {
    let processes = match cluster.processes {
        Some(Processes::Count(n)) => n,
        Some(Processes::Slurm) => match slurm_var("SLURM_NTASKS")? {
            Some(n) => n,
            None => slurm_var("SLURM_NPROCS")?.ok_or_else(|| {
                UsageError(
                    "--processes without a number takes it from $SLURM_NTASKS or $SLURM_NPROCS, and neither is set (outside Slurm, give --processes N)".into(),
                )
            })?,
        },
        None => 1,
    };
    let refuse = |flag: &str| -> Failure {
        UsageError(format!(
            "{flag} is not available with --processes (a partitioned solve runs its own engine; use --workers for threads)"
        ))
        .into()
    };
    let engine = &args.engine;
    if engine.engine.is_some() {
        return Err(refuse("--engine"));
    }
    if engine.threads.is_some() {
        return Err(refuse("--threads"));
    }
    if args.dump.is_some() || args.verify {
        return Err(refuse("--dump and --verify"));
    }
    if processes == 0 {
        return Err(UsageError("--processes must be at least 1".into()).into());
    }
    let (process, from) = match cluster.process {
        Some(i) => (i, "--process"),
        None => match slurm_var("SLURM_PROCID")? {
            Some(i) => (i, "$SLURM_PROCID"),
            None => (0, "--process"),
        },
    };
    if process >= processes {
        return Err(UsageError(format!(
            "{from} {process}: expected an index below the {processes} processes"
        ))
        .into());
    }
    let workers = match cluster.workers {
        Some(0) => return Err(UsageError("--workers must be at least 1".into()).into()),
        Some(w) => w,
        None => std::thread::available_parallelism().map_or(1, usize::from),
    };
    let addresses = match &cluster.hostfile {
        Some(path) => read_hostfile(path, processes)?,
        None => Cluster::loopback(processes, 0, 1, cluster.port).addresses,
    };
    let config = Cluster {
        addresses,
        process,
        workers,
        connect_timeout: Duration::from_secs(cluster.connect_timeout),
    };
    Ok(Place {
        processes,
        process,
        workers,
        config,
    })
}

/// The checkpoint directory to save into and the one to resume from that
/// `--checkpoint` and `--resume` ask for, checked before connecting (a
/// refused resume fails alone, with exit status 2); `extra`: the game's
/// own fingerprint fields.
fn checkpointing(
    args: &SolveArgs,
    place: &Place,
    extra: impl IntoIterator<Item = (String, String)>,
    kernel: Kernel,
) -> Result<Option<(BandDir, Option<BandDir>)>, Failure> {
    let Some(dir) = args.checkpoint.as_ref().or(args.resume.as_ref()) else {
        return Ok(None);
    };
    let Place {
        processes,
        process,
        workers,
        ..
    } = *place;
    let mut fingerprint =
        checkpoint::fingerprint(&args.map, &args.game, "distributed", args.dte_table)?;
    fingerprint.extend([
        ("processes".to_string(), processes.to_string()),
        ("process".to_string(), process.to_string()),
        ("workers".to_string(), workers.to_string()),
    ]);
    fingerprint.extend(extra);
    let resume = args
        .resume
        .as_deref()
        .map(|from| BandDir::open(from, process, &fingerprint, kernel))
        .transpose()?;
    let sink = BandDir::sink(dir, process, args.checkpoint_every, fingerprint)?;
    Ok(Some((sink, resume)))
}

/// A partitioned solve of either cops game; `--save` writes one table
/// shard per process (not with `--lazy`). It runs on the bit engine, each
/// process a band of grid rows (one cop on a map) or of cop multisets, and
/// keeps its band snapshots with `--checkpoint`, several cops with their
/// own fingerprint fields.
fn run_game(args: &SolveArgs, cluster: &ClusterArgs, place: &Place) -> Result<i32, Failure> {
    let Place {
        processes, process, ..
    } = *place;
    if args.kcops.active() {
        refuse_lazy(args, args.kcops.k())?;
    }
    let save = shard_target(args, place)?;
    let (game, several, format, started) = if args.kcops.active() {
        let (started, limits) = (Instant::now(), args.engine.storage.limits(0)?);
        let built = SeveralCops::build(&args.map, &args.game, &args.kcops, &limits, false)?;
        (built.game.clone(), Some(built), "", started)
    } else {
        let map = load_map(&args.map)?;
        let started = Instant::now();
        let game = solving::one_cop_game(&map, &args.game)?;
        let format = map.format.as_str();
        (game, None, format, started)
    };
    // Each engine reads only its own snapshots, checked before connecting.
    let checkpoints = match several {
        Some(_) => checkpointing(args, place, several::fingerprint(args), Kernel::SeveralBits)?,
        None => checkpointing(args, place, [], Kernel::Bits)?,
    };
    let start = game.start_state();
    let bounds = distributed::bit_bands(&game, processes);
    let solve = Bands {
        bounds,
        session: distributed::session(&game, start).expect("a cops game"),
        track: start,
        checkpoints,
        started,
    };
    let reporter = Arc::new(Reporter::new(args.quiet, "solving"));
    let solution = solve_bands(args, cluster, place, &game, solve, &reporter)?;
    let saved = save_shard(save, place, &reporter, |out| {
        distributed::write_shard(&game, &solution, process, processes, "distributed", out)
    })?;
    let Some(summary) = &solution.summary else {
        return Ok(0);
    };
    let (found, seconds) = (found(summary, place), started.elapsed().as_secs_f64());
    let (mut report, bands) = match &several {
        Some(several) => (
            several.report(&args.map, &args.kcops, found, seconds),
            "cop multisets",
        ),
        None => {
            let report = SolveReport::new(&args.map, format, &game, found, seconds);
            (report, "grid rows")
        }
    };
    report.saved = saved;
    print_report(args, place, &report, summary, bands)
}

/// This process's shard of `--save NAME.rtb`, `NAME.I-of-N.rtb`, checked
/// before the solve (each process writes its own).
fn shard_target(args: &SolveArgs, place: &Place) -> Result<Option<OutputTarget>, Failure> {
    let shard = |base| {
        let path = retrograde::shard_path(base, place.process as u32, place.processes as u32);
        OutputTarget::check("--save", &path)
    };
    Ok(args.save.as_deref().map(shard).transpose()?)
}

/// Writes this process's shard with `write` to `target`, if any, saying
/// so on `reporter`.
fn save_shard(
    target: Option<OutputTarget>,
    place: &Place,
    reporter: &Reporter,
    write: impl FnOnce(&mut Output) -> std::io::Result<retrograde::WriteSummary>,
) -> Result<Option<SaveReport>, Failure> {
    let Some(target) = target else {
        return Ok(None);
    };
    reporter.note(&format!(
        "saving shard {} of {} to {}",
        place.process,
        place.processes,
        target.path().display()
    ));
    Ok(Some(save_with(target, write)?))
}

/// What a partitioned solve found, as the local report takes it.
fn found(summary: &distributed::Summary, place: &Place) -> Found {
    Found {
        start: summary.tracked_outcome,
        dte: summary.tracked_dte,
        counts: summary.counts,
        levels: summary.levels,
        sweeps: 0,
        engine: "distributed",
        threads: place.config.total_workers(),
    }
}

/// The game-specific parts of a partitioned solve.
struct Bands {
    /// One band per worker of the cluster (`total_workers + 1` bounds).
    bounds: Vec<u64>,
    /// The game's hash, compared in the handshake.
    session: u64,
    /// The start state, whose value and distance the report gives.
    track: Option<u64>,
    /// `--checkpoint`/`--resume`, checked.
    checkpoints: Option<(BandDir, Option<BandDir>)>,
    /// When the solve began (the game's loading included).
    started: Instant,
}

/// Plans this process's band, connects and solves on the bit engine
/// (`distributed::solve_bits`), with progress on `reporter`; the watchdog
/// rests when it returns. --memory and --scratch (or the temporary folder
/// for a band over the cap) plan the band before anything is allocated,
/// and what cannot fit is refused with exit status 2.
fn solve_bands(
    args: &SolveArgs,
    cluster: &ClusterArgs,
    place: &Place,
    game: &CopsGame,
    solve: Bands,
    reporter: &Arc<Reporter>,
) -> Result<distributed::PartitionedSolution, Failure> {
    let Place {
        processes,
        process,
        workers,
        ref config,
    } = *place;
    let Bands {
        bounds,
        session,
        track,
        checkpoints,
        started,
    } = solve;
    let mut options = PartitionOptions {
        dte_table: args.dte_table,
        track,
        session,
        ..PartitionOptions::default()
    };
    let plural = if workers == 1 { "" } else { "s" };
    // The band in memory or in scratch files (--scratch, or the temporary
    // folder for a band over --memory), paged under the cap; refused (exit
    // status 2) below its minimum.
    let limits = args.engine.storage.limits(0)?;
    let plan =
        distributed::bit_band_plan(game, processes, process, workers, args.dte_table, &limits)?;
    let here = bounds[process + 1] - bounds[process];
    reporter.note(&format!(
        "process {process} of {processes}: {here} of {} states in {workers} band{plural} of the bit engine ({} {}); connecting",
        bounds[processes],
        human_bytes(plan.bytes),
        match &plan.backing {
            retrograde::Backing::Memory => "in memory".to_string(),
            retrograde::Backing::Scratch(dir) => format!(
                "in files under {}, at most {} resident{}",
                dir.display(),
                human_bytes(plan.resident),
                plan.passes.map(super::output::passes_note).unwrap_or_default()
            ),
        }
    ));
    options.memory = limits.memory.map(|m| m.saturating_sub(limits.held));
    options.backing = plan.backing;
    // A sign of life per level, for the watchdog.
    let (heartbeat, observer) = watch(place, cluster, started, reporter);
    if let Some((_, Some(resume))) = &checkpoints {
        reporter.note(&format!(
            "resuming from {} (complete here up to level {})",
            resume.dir.display(),
            resume.latest()
        ));
    }
    let (sink, resume) = checkpoints.unzip();
    options.observer = Some(observer);
    options.process_stat = Some(Arc::new(|| peak_memory().unwrap_or(0)));
    options.checkpoint = sink.map(|s| Arc::new(s) as Arc<dyn BandSink>);
    options.resume = resume.flatten().map(|r| Arc::new(r) as Arc<dyn BandSource>);
    let solution = distributed::solve_bits(game, config, &options);
    let solution = solution.context("partitioned solve failed")?;
    reporter.finish();
    // The solve is over: writing a shard is no level, the watchdog rests.
    heartbeat.store(u64::MAX, Relaxed);
    Ok(solution)
}

/// The fault handlers and the watchdog of this process, and the progress
/// callback that feeds both: each level is a sign of life (the heartbeat),
/// the first one says every process connected, and each goes to
/// `reporter`. Storing `u64::MAX` in the heartbeat rests the watchdog.
fn watch(
    place: &Place,
    cluster: &ClusterArgs,
    started: Instant,
    reporter: &Arc<Reporter>,
) -> (Arc<AtomicU64>, distributed::Observer) {
    let (process, processes) = (place.process, place.processes);
    let heartbeat = Arc::new(AtomicU64::new(0));
    let connected = Arc::new(AtomicBool::new(false));
    install_fault_handlers(process, &heartbeat, cluster, started);
    let observer = {
        let (reporter, heartbeat) = (Arc::clone(reporter), Arc::clone(&heartbeat));
        move |p: &retrograde::Progress| {
            heartbeat.store(started.elapsed().as_millis() as u64, Relaxed);
            if !connected.swap(true, Relaxed) {
                reporter.note(&format!("all {processes} processes connected; solving"));
            }
            reporter.observe(p);
        }
    };
    (heartbeat, Arc::new(observer))
}
