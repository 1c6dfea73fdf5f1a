//! The "load a game, plan, solve, save" service the commands that solve
//! share: `solve`'s flags ([`SolveArgs`], read by `solve` and
//! `distributed`) and their first checks ([`check_game_flags`]), the
//! solve options and storage plan of any game ([`options`], [`plan`],
//! [`plan_report`], [`plan_note`]), a map placed ([`one_cop_game`],
//! [`warn_no_exits`]) and solved for `batch` ([`solve_loaded`]), its plan
//! ([`plan_map`]), a table saved ([`save_table`]), the outputs checked
//! before any work ([`check_outputs`]) and a map's refusal
//! ([`not_a_map`]). Not a command itself, so that no command imports
//! another.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args as ClapArgs;
use retrograde::{
    plan_storage, solve, write_tablebase, Backing, CopsGame, Engine, Game, Map, Solution,
    SolveOptions, Speeds, StoragePlan,
};

use super::common::{
    as_typed, human_bytes, EngineConfig, EngineFlags, GameArgs, UsageError, VERTEX,
};
use super::file_kind::hint_for_map;
use super::output::{save_with, Found, OutputTarget, PlanReport, SaveReport, SolveReport};
use super::progress::Reporter;
use crate::cli::failure::Failure;

/// Flags of `solve` (one cop, `--cops K` and `--processes N` alike).
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
    /// Write every state as CSV: cop_row,cop_col,thief_row,thief_col,turn,value,dte
    /// (several cops: cop1_row,cop1_col,...; with --graph one column a
    /// piece); `-` writes it to standard output, the report then to
    /// standard error.
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
    /// verdict, the longest game; with several cops, speeds or --graph the
    /// start placements and the cops' best placement) [default: on in
    /// text, off with --json].
    #[arg(long, overrides_with = "no_summary")]
    pub(crate) summary: bool,
    /// Leave out the whole-map summary.
    #[arg(long)]
    pub(crate) no_summary: bool,
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
    /// the solve); continue it with --resume DIR. A solve that finishes
    /// removes it. With --processes: every process snapshots its bands
    /// after the same levels, into DIR/process-I.
    #[arg(long, value_name = "DIR")]
    pub(crate) checkpoint: Option<PathBuf>,
    /// Minutes between snapshots (fractions allowed: 0.5 is 30 seconds; at
    /// most 525600, 365 days).
    #[arg(long, value_name = "MIN", default_value_t = 30.0)]
    pub(crate) checkpoint_every: f64,
    /// Continue the solve from the snapshot in DIR (same map, placement,
    /// rules and distance-table setting); keeps checkpointing into DIR
    /// unless --checkpoint names another.
    #[arg(long, value_name = "DIR")]
    pub(crate) resume: Option<PathBuf>,
}

/// The checks of `solve`'s start flags before any file is read, for a
/// local and a partitioned solve alike: vertex ids only with `--graph`,
/// several `--cop` only with `--cops K`, standard input for the map or
/// the scenario, not both, and what the several-cops game
/// does not take (`--scen`; its partitioned solve's own refusals are
/// `distributed/`'s).
///
/// # Errors
/// A [`UsageError`] naming the flag.
pub(crate) fn check_game_flags(args: &SolveArgs) -> Result<(), UsageError> {
    let stdin = std::path::Path::new("-");
    if args.map == stdin && args.scen.as_deref() == Some(stdin) {
        // Both would read one stream: the map first, and the scenario
        // then found it empty.
        return Err(UsageError(
            "--scen -: standard input already holds the map; give the scenario as a file".into(),
        ));
    }
    let game = &args.game;
    let mut flags = game.cop.iter().chain(&game.thief).chain(&game.exit);
    if !args.kcops.graph {
        if let Some(&(_, v)) = flags.find(|c| c.0 == VERTEX || c.1 == VERTEX) {
            return Err(UsageError(format!(
                "a bare vertex id `{v}` where a map needs ROW,COL (vertex ids need --graph)"
            )));
        }
    }
    if !args.kcops.active() {
        if game.cop.len() > 1 {
            return Err(UsageError(format!(
                "--cop given {} times: give --cops {} for several cops",
                game.cop.len(),
                game.cop.len()
            )));
        }
        return Ok(());
    }
    if args.scen.is_some() {
        return Err(UsageError(
            "--scen is not available with several cops, speeds or --graph yet".into(),
        ));
    }
    Ok(())
}

/// Writes the table of `game` (one cop, or several with their rules and
/// start) to `target` atomically (temporary file, then rename).
pub(crate) fn save_table(
    target: OutputTarget,
    game: &CopsGame,
    solution: &Solution,
    engine: Engine,
) -> Result<SaveReport> {
    save_with(target, |out| {
        write_tablebase(game, solution, engine.as_str(), out)
    })
}

/// A solved map: the game, its solution and the report.
pub(crate) struct Solved {
    pub(crate) game: CopsGame,
    pub(crate) solution: Solution,
    pub(crate) report: SolveReport,
}

/// Whether `path` is named as a MovingAI scenario (`.scen`).
fn is_scen(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("scen"))
}

/// A map that did not parse, with what to run instead when the file is of
/// another kind (a table, a scenario, a graph: [`retrograde::FileKind`]); the parse error
/// stays as the cause, file:line:column.
pub(crate) fn not_a_map(path: &Path, e: retrograde::Error) -> Failure {
    // A map's own parse error says what is wrong; a `.scen` name is a
    // scenario whatever its content looks like otherwise.
    let kind = retrograde::sniff_path(path)
        .ok()
        .flatten()
        .filter(|k| !matches!(k, retrograde::FileKind::Map(_)))
        .or_else(|| is_scen(path).then_some(retrograde::FileKind::Scenario));
    match kind.and_then(|kind| hint_for_map(kind, path)) {
        Some(hint) => anyhow::Error::from(e).context(hint).into(),
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
    let game = one_cop_game(map, game_args)?;
    plan_report(
        path,
        &game,
        &options(config, dte_table, game.start_state()),
        config,
    )
}

/// What solving `game` with `options` would cost (`--plan`), from the
/// same storage plan a solve follows; a refusal (too large) is part of
/// the report, not an error.
pub(crate) fn plan_report<G: Game>(
    path: &Path,
    game: &G,
    options: &SolveOptions<'_>,
    config: &EngineConfig,
) -> Result<PlanReport> {
    let mut report = PlanReport::new(
        path.display().to_string(),
        game.state_count(),
        config.engine.as_str(),
    );
    report.settle(plan_storage(game, options, &config.storage).map(|p| PlanReport::figures(&p)))?;
    Ok(report)
}

/// The solve options every solve starts from: the engine, its threads,
/// whether distances are kept, and the start whose distance is tracked.
pub(crate) fn options<'a>(
    config: &EngineConfig,
    dte_table: bool,
    start: Option<u64>,
) -> SolveOptions<'a> {
    SolveOptions::new(config.engine)
        .with_threads(config.threads)
        .with_dte_table(dte_table)
        .with_tracked_state(start)
}

/// Plans the storage of solving `game` with `options` (memory or scratch
/// files under the limits, refused with the bytes needed) before anything
/// is allocated, and says what it will hold.
pub(crate) fn plan<G: Game>(
    game: &G,
    options: &SolveOptions<'_>,
    config: &EngineConfig,
    reporter: &Reporter,
) -> Result<StoragePlan> {
    let plan = plan_storage(game, options, &config.storage)?;
    reporter.note(&plan_note(game.state_count(), &plan));
    Ok(plan)
}

/// The one-cop game on `map` under the flags' starts, exits and rules;
/// under `--xy` a refused cell is named as it was typed.
pub(crate) fn one_cop_game(map: &Map, game_args: &GameArgs) -> Result<CopsGame> {
    let placement = game_args.placement();
    let game = CopsGame::from_map(map, &placement, game_args.rules(), 1, Speeds::default());
    Ok(game.map_err(|e| as_typed(e, game_args.xy))?)
}

/// Warns when `game` has no exit cell: not an error (a map may be meant
/// to have none), but the answer is then never an escape, which is rarely
/// what was meant.
pub(crate) fn warn_no_exits(path: &Path, game: &CopsGame, game_args: &GameArgs) {
    if !(0..game.cells()).any(|c| game.is_exit(c)) {
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
}

/// Places and solves a map already read from `path` for `batch`, so that
/// a batch row says what `solve` says.
pub(crate) fn solve_loaded(
    path: &Path,
    map: &Map,
    game_args: &GameArgs,
    config: &EngineConfig,
    dte_table: bool,
    reporter: &Reporter,
) -> Result<Solved> {
    let started = Instant::now();
    let game = one_cop_game(map, game_args)?;
    warn_no_exits(path, &game, game_args);
    let start = game.start_state();
    let observe = |p: &retrograde::Progress| {
        reporter.observe(p);
        retrograde::Flow::Continue
    };
    let options = options(config, dte_table, start);
    let plan = plan(&game, &options, config, reporter)?;
    let options = options.with_plan(&plan).with_observer(&observe);
    let solution = solve(&game, &options).context("solve failed")?;
    reporter.finish();
    let report = SolveReport::new(
        path,
        map.format.as_str(),
        &game,
        found(&solution, start, config),
        started.elapsed().as_secs_f64(),
    );
    Ok(Solved {
        game,
        solution,
        report,
    })
}

/// What `solution` found from `start` under `config`, for a report.
pub(crate) fn found(solution: &Solution, start: Option<u64>, config: &EngineConfig) -> Found {
    Found {
        start: start.map(|s| solution.outcome(s)),
        dte: start.and_then(|s| solution.dte(s)),
        counts: solution.counts(),
        levels: solution.levels(),
        sweeps: solution.sweeps(),
        engine: config.engine.as_str(),
        threads: config.threads,
    }
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
                "in files under {}, at most {} resident{}",
                dir.display(),
                human_bytes(plan.resident),
                plan.passes
                    .map(crate::cli::output::passes_note)
                    .unwrap_or_default()
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
    let (dump, save) = (check("--dump", &args.dump)?, check("--save", &args.save)?);
    // Either must be standard output's only content (the table is binary,
    // the dump CSV).
    OutputTarget::stdout_taken(dump.iter().chain(&save))?;
    Ok((dump, save))
}
