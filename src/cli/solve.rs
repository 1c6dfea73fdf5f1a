//! `retrograde solve MAP`: solve one policeman-and-thief map and report the
//! start's verdict, its distance to end and the counts over all states.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args as ClapArgs;
use retrograde::{
    load_map, load_scen, plan_storage, solve, verify_observed, write_tablebase, Backing,
    CopsAndThief, Engine, Game, Map, Outcome, Solution, SolveOptions,
};

use super::checkpoint;
use super::common::{
    human_bytes, worker_pool, EngineConfig, EngineFlags, GameArgs, Kind, UsageError,
};
use super::output::{
    print_text, save_with, Found, OutputTarget, PlanReport, SaveReport, ScenPair, SolveReport,
    SummaryJson, VerifyReport,
};
use super::progress::Reporter;
use super::Failure;

/// Flags of `solve`.
#[derive(ClapArgs, Debug)]
pub(crate) struct SolveArgs {
    /// Map file (seed text or MovingAI .map, detected from content); `-` reads stdin.
    pub(crate) map: PathBuf,
    #[command(flatten)]
    pub(crate) game: GameArgs,
    #[command(flatten)]
    pub(crate) engine: EngineFlags,
    #[command(flatten)]
    pub(crate) kcops: super::common::KCopsArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Write every state as CSV: cop_row,cop_col,thief_row,thief_col,turn,value,dte.
    #[arg(long, value_name = "FILE")]
    pub(crate) dump: Option<PathBuf>,
    /// Keep every state's distance to end (2 bytes per state; implied by
    /// --dump); with --save, the table stores distances too.
    #[arg(long)]
    pub(crate) dte_table: bool,
    /// Save the solve as a tablebase file (map, rules, every state's value,
    /// and distances with --dte-table) for `query`, `play`, `render`, `info`.
    #[arg(long, value_name = "FILE.rtb")]
    pub(crate) save: Option<PathBuf>,
    /// After solving, check every state against its moves (values, and
    /// distances when a table is kept); exit status 1 if any disagrees.
    #[arg(long)]
    pub(crate) verify: bool,
    /// Print the whole-map summary (how every start pair splits by
    /// verdict, the longest game) [default: on in text, off with --json].
    #[arg(long, overrides_with = "no_summary")]
    summary: bool,
    /// Leave out the whole-map summary.
    #[arg(long)]
    no_summary: bool,
    /// Take start pairs from a MovingAI scenario file: each entry's start
    /// is the thief, its goal the cop; one result per pair from one solve.
    #[arg(long, value_name = "FILE.scen", conflicts_with_all = ["cop", "thief"])]
    pub(crate) scen: Option<PathBuf>,
    /// No progress output.
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// Print what the solve would cost (states, memory, engine, whether
    /// the arrays go to scratch files, whether it fits) without solving;
    /// exit status 0 if it fits, else 2.
    #[arg(long)]
    pub(crate) plan: bool,
    /// Bitboard engine: keep a snapshot of the solve in DIR (every
    /// --checkpoint-every minutes, and on Ctrl-C / SIGTERM, which then end
    /// the solve); continue it with --resume DIR. With --processes: every
    /// process snapshots its bands after the same levels, into
    /// DIR/process-I.
    #[arg(long, value_name = "DIR")]
    pub(crate) checkpoint: Option<PathBuf>,
    /// Minutes between snapshots (fractions allowed: 0.5 is 30 seconds).
    #[arg(long, value_name = "MIN", default_value_t = 30.0)]
    pub(crate) checkpoint_every: f64,
    /// Continue the solve from the snapshot in DIR (same map, placement,
    /// rules and distance-table setting); keeps checkpointing into DIR
    /// unless --checkpoint names another.
    #[arg(long, value_name = "DIR")]
    pub(crate) resume: Option<PathBuf>,
}

/// Runs `solve`; returns the exit status.
pub(crate) fn run(args: SolveArgs) -> Result<i32, Failure> {
    let config = args.engine.resolve_grid()?;
    let scenario = args.scen.as_deref().map(load_scen).transpose()?;
    let map = load_map(&args.map).map_err(|e| not_a_map(&args.map, e))?;
    // The scenario is checked against the map before the solve, as batch
    // does: its sizes and every entry's cells.
    if let Some(scenario) = &scenario {
        let board = args.game.board(&map)?;
        scenario.check_size(&board.grid)?;
        for entry in &scenario.entries {
            scenario.cells(entry, &board.grid)?;
        }
    }
    // The dump's path is checked before the solve, not after it.
    let (dump_target, save_target) = check_outputs(&args)?;
    // Every scenario pair's distance comes from the table (an engine that
    // keeps no distances reports values only).
    let dte_table = args.dte_table
        || args.dump.is_some()
        || (scenario.is_some() && config.engine.keeps_distances());
    // The engine's own rule (the sweep engine keeps no distances), before
    // any work.
    SolveOptions::new(config.engine)
        .with_dte_table(dte_table)
        .check_engine()?;
    if args.plan {
        let plan = plan_map(&args.map, &map, &args.game, &config, dte_table)?;
        return Ok(plan.print(args.json)?);
    }
    let checkpoint_dir = args.checkpoint.as_ref().or(args.resume.as_ref());
    let (sink, resume) = match checkpoint_dir {
        None => (None, None),
        Some(dir) => {
            if !config.engine.keeps_checkpoints() {
                return Err(UsageError(format!(
                    "--checkpoint and --resume need --engine bitboard (the default for grid maps), not {}",
                    config.engine
                ))
                .into());
            }
            let fingerprint =
                checkpoint::fingerprint(&args.map, &args.game, config.engine.as_str(), dte_table)?;
            let resume = args
                .resume
                .as_deref()
                .map(|from| checkpoint::load(from, &fingerprint))
                .transpose()?;
            let sink = checkpoint::DirSink::new(dir, args.checkpoint_every, fingerprint)?;
            (Some(sink), resume)
        }
    };
    let reporter = Reporter::new(args.quiet, "solving");
    if let Some(r) = &resume {
        reporter.note(&format!("resuming after level {}", r.level()));
    }
    let resumable = Resumable {
        sink: sink.as_ref().map(|s| s as &dyn retrograde::Sink),
        resume: resume.as_ref(),
    };
    let solved = solve_loaded(
        &args.map, &map, &args.game, &config, dte_table, &reporter, &resumable,
    );
    let mut solved = match solved {
        Err(e) => {
            let stopped = e
                .chain()
                .find_map(|e| match e.downcast_ref::<retrograde::Error>() {
                    Some(retrograde::Error::Stopped { level }) => Some(*level),
                    _ => None,
                });
            match (stopped, &sink) {
                (Some(level), Some(sink)) => {
                    reporter.finish();
                    say!(
                        "stopped: checkpoint after level {level} saved in {}; continue with --resume {}",
                        sink.dir().display(),
                        sink.dir().display()
                    );
                    return Ok(128 + super::output::stop_requested().unwrap_or(0));
                }
                _ => return Err(e.into()),
            }
        }
        Ok(solved) => solved,
    };
    if let Some(scenario) = &scenario {
        let game = &solved.game;
        let grid = &game.board().grid;
        scenario.check_size(grid)?;
        let turn = game.rules().first_mover();
        let mut pairs = Vec::with_capacity(scenario.entries.len());
        for entry in &scenario.entries {
            let (thief, cop) = scenario.cells(entry, grid)?;
            let state = game.state(cop, thief, turn);
            pairs.push(ScenPair {
                line: entry.line,
                bucket: entry.bucket,
                cop: [entry.goal.0, entry.goal.1],
                thief: [entry.start.0, entry.start.1],
                result: game.verdict(solved.solution.outcome(state)).as_str(),
                dte: solved.solution.dte(state).map(|d| d.plies()),
            });
        }
        solved.report.scenario = Some(pairs);
    }
    if args.summary || (!args.json && !args.no_summary) {
        let summary = solved.game.start_pairs(&solved.solution);
        solved.report.summary = Some(SummaryJson::new(&summary, solved.game.rules().thief_first));
    }
    let check = if args.verify {
        reporter.note("verifying every state against its moves");
        let started = Instant::now();
        let pool = worker_pool(config.threads)?;
        let observe = |done: u64, total: u64| reporter.checked(done, total);
        let check = pool.install(|| verify_observed(&solved.game, &solved.solution, &observe));
        reporter.finish();
        solved.report.verified = Some(VerifyReport {
            states: check.states,
            distances: check.distances,
            inconsistent: check.inconsistent,
            seconds: started.elapsed().as_secs_f64(),
        });
        Some(check)
    } else {
        None
    };
    if let Some(target) = dump_target {
        target.write_with(|out| dump(&solved.game, &solved.solution, out))?;
    }
    if let Some(target) = save_target {
        reporter.note(&format!("saving the table to {}", target.path().display()));
        solved.report.saved = Some(save_table(target, &solved, config.engine)?);
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        serde_json::to_writer(&mut out, &super::schema::versioned(&solved.report))?;
        writeln!(out)?;
    } else {
        print_text(&mut out, &solved.report, args.game.xy)?;
    }
    match check.and_then(|c| c.first) {
        Some(bad) => {
            let (cop, thief, turn) = solved.game.decode(bad.state);
            let grid = &solved.game.board().grid;
            let show = |(value, dte): (Outcome, Option<u32>)| match dte {
                Some(d) => format!("{value} in {d}"),
                None => value.to_string(),
            };
            say!(
                "error: verification failed: state {} (cop {:?}, thief {:?}, {:?} to move) is stored as {} but its moves give {}",
                bad.state,
                grid.coords(cop),
                grid.coords(thief),
                turn,
                show(bad.found),
                show(bad.expected)
            );
            Ok(1)
        }
        None => Ok(0),
    }
}

/// Writes the solved map's table to `path` atomically; shared by `solve`
/// and `batch`.
pub(crate) fn save_table(
    target: OutputTarget,
    solved: &Solved,
    engine: Engine,
) -> Result<SaveReport> {
    save_with(target, |out| {
        write_tablebase(&solved.game, &solved.solution, engine.as_str(), out)
    })
}

/// A solved map: the game, its solution and the report.
pub(crate) struct Solved {
    pub(crate) game: CopsAndThief,
    pub(crate) solution: Solution,
    pub(crate) report: SolveReport,
}

/// Whether `path` is named as a MovingAI scenario (`.scen`).
fn is_scen(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("scen"))
}

/// A map that did not parse, with what to run instead when the file is of
/// another kind (a table, a scenario, a graph: [`Kind`]); the parse error
/// stays as the cause, file:line:column.
pub(crate) fn not_a_map(path: &Path, e: retrograde::Error) -> Failure {
    let kind = Kind::sniff(path).or_else(|| is_scen(path).then_some(Kind::Scenario));
    match kind {
        Some(kind) => anyhow::Error::from(e)
            .context(kind.hint_for_map(path))
            .into(),
        None => e.into(),
    }
}

/// What solving `map` would cost under `config`, from the library's
/// storage plan (nothing allocated); shared by `solve --plan` and
/// `batch --plan`.
pub(crate) fn plan_map(
    path: &Path,
    map: &Map,
    game_args: &GameArgs,
    config: &EngineConfig,
    dte_table: bool,
) -> Result<PlanReport> {
    let board = game_args.board(map)?;
    let game = CopsAndThief::new(board, game_args.rules());
    let options = SolveOptions::new(config.engine)
        .with_threads(config.threads)
        .with_dte_table(dte_table)
        .with_tracked_state(game.start());
    let mut report = PlanReport::new(
        path.display().to_string(),
        game.state_count(),
        config.engine.as_str(),
    );
    report
        .settle(plan_storage(&game, &options, &config.limits()).map(|p| PlanReport::figures(&p)))?;
    Ok(report)
}

/// Checkpointing of one solve: where snapshots go, what it resumes from.
#[derive(Default)]
pub(crate) struct Resumable<'a> {
    pub(crate) sink: Option<&'a dyn retrograde::Sink>,
    pub(crate) resume: Option<&'a retrograde::Checkpoint>,
}

/// Places and solves a map already read from `path`; shared by `solve` and
/// `batch`, so a batch row says what `solve` says.
pub(crate) fn solve_loaded(
    path: &Path,
    map: &Map,
    game_args: &GameArgs,
    config: &EngineConfig,
    dte_table: bool,
    reporter: &Reporter,
    resumable: &Resumable<'_>,
) -> Result<Solved> {
    let board = game_args.board(map)?;
    if board.exits.not_any() {
        // Not an error (a map may be meant to have none), but the answer is
        // then never an escape, which is rarely what was meant.
        let why = if game_args.exit.is_empty() && game_args.exits.is_empty() {
            "the map marks none and no --exit or --exits was given"
        } else {
            "the exit flags select none on this map"
        };
        say!(
            "warning: {}: no exit cells, so the thief can never escape ({why}; try --exits rim)",
            path.display()
        );
    }
    let started = Instant::now();
    let game = CopsAndThief::new(board, game_args.rules());
    let start = game.start();
    let observe = |p: &retrograde::Progress| reporter.observe(p);
    let options = SolveOptions::new(config.engine)
        .with_threads(config.threads)
        .with_dte_table(dte_table)
        .with_tracked_state(start)
        .with_checkpoint(resumable.sink)
        .with_resume(resumable.resume);
    let plan = plan_storage(&game, &options, &config.limits())?;
    reporter.note(&plan_note(game.state_count(), &plan));
    let options = options.with_plan(&plan).with_observer(&observe);
    let solution = solve(&game, &options).context("solve failed")?;
    reporter.finish();
    let counts = solution.counts();
    let seconds = started.elapsed().as_secs_f64();
    let report = SolveReport::new(
        path,
        map.format.as_str(),
        &game,
        Found {
            start: start.map(|s| solution.outcome(s)),
            dte: start.and_then(|s| solution.dte(s)),
            counts,
            levels: solution.levels(),
            sweeps: solution.sweeps(),
            engine: config.engine.as_str(),
            threads: config.threads,
        },
        seconds,
    );
    Ok(Solved {
        game,
        solution,
        report,
    })
}

/// Writes every state as a CSV row, in state-index order.
fn dump(game: &CopsAndThief, solution: &Solution, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "cop_row,cop_col,thief_row,thief_col,turn,value,dte")?;
    let grid = &game.board().grid;
    for s in 0..game.state_count() {
        let (cop, thief, turn) = game.decode(s);
        let (cr, cc) = grid.coords(cop);
        let (tr, tc) = grid.coords(thief);
        let turn = turn.as_str();
        let value = solution.outcome(s);
        match solution.dte(s) {
            Some(d) if value != Outcome::Draw => {
                writeln!(out, "{cr},{cc},{tr},{tc},{turn},{value},{d}")?;
            }
            _ => writeln!(out, "{cr},{cc},{tr},{tc},{turn},{value},")?,
        }
    }
    Ok(())
}

/// What a planned solve will hold, for the progress output: its states and
/// arrays, in memory or in scratch files (with the resident cap).
pub(crate) fn plan_note(states: u64, plan: &retrograde::StoragePlan) -> String {
    let arrays = plan.estimate.total() - plan.estimate.graph;
    format!(
        "{states} states: {} of arrays {}",
        human_bytes(arrays),
        match &plan.backing {
            Backing::Memory => "in memory".to_string(),
            Backing::Scratch(dir) => format!(
                "in files under {}, at most {} resident",
                dir.display(),
                human_bytes(plan.resident)
            ),
        }
    )
}

/// `--dump` and `--save` of a solve (one cop or several), checked before
/// any work, after its inputs (the map or graph, a scenario file) are
/// noted: an output never lands on an input or on the other output.
///
/// # Errors
/// A [`UsageError`] naming the flag and why its path cannot take it.
pub(crate) fn check_outputs(
    args: &SolveArgs,
) -> Result<(Option<OutputTarget>, Option<OutputTarget>), UsageError> {
    let input = if args.kcops.graph {
        "the graph"
    } else {
        "the map"
    };
    super::output::note_input(input, &args.map)?;
    if let Some(scen) = &args.scen {
        super::output::note_input("the scenario file", scen)?;
    }
    let check = |flag: &str, path: &Option<PathBuf>| {
        path.as_deref()
            .map(|p| OutputTarget::check(flag, p))
            .transpose()
    };
    Ok((check("--dump", &args.dump)?, check("--save", &args.save)?))
}
