//! The bit-parallel k-cop engine from the command line: where its arrays
//! go (`--memory`, `--scratch`: memory when they fit the cap, else the
//! largest of them in scratch files, else a refusal with the bytes
//! needed) and its checkpoints (`--checkpoint DIR`, `--resume DIR`, on
//! the one-cop engine's timer and signal rules, `cli/checkpoint.rs`).

use retrograde::copnumber::{
    kcop_plan, solve_kcops_with, KArena, KCheckpoint, KSolution, KState, KcopOptions, KcopPlan,
    KcopRun, KcopStorage,
};
use retrograde::{Game, KCops, Turn};

use super::super::checkpoint::{self, DirSink};
use super::super::common::{human_bytes, worker_pool, EngineConfig, UsageError};
use super::super::progress::Reporter;
use super::super::solve::SolveArgs;
use super::super::Failure;

/// How a bit-engine solve ended: solved, or stopped after a checkpoint
/// (the exit status to return).
pub(super) enum Bits {
    Solved(Box<KSolution>),
    Stopped(i32),
}

/// Where the bit engine's arrays go under `config`'s `--memory` and
/// `--scratch` (the available memory when no cap is given; a scratch
/// folder alone asks for files), and the plan; a plan that cannot keep
/// to the cap, or scratch files the disk cannot hold, is refused with
/// the bytes needed. Nothing is allocated.
pub(super) fn place(
    arena: &KArena,
    k: usize,
    dte_table: bool,
    config: &EngineConfig,
) -> retrograde::Result<(KcopStorage, KcopPlan)> {
    let limits = &config.storage;
    let cap = limits
        .memory
        .unwrap_or_else(retrograde::available_memory)
        .saturating_sub(limits.held);
    let mut storage = KcopStorage {
        memory: Some(cap),
        scratch: limits.scratch.clone(),
    };
    if limits.scratch.is_some() && limits.memory.is_none() {
        // A scratch folder alone is a request for files (as for one cop):
        // every array that can go there does.
        let least = KcopStorage {
            memory: Some(0),
            ..storage.clone()
        };
        storage.memory = Some(kcop_plan(arena, k, dte_table, &least).in_memory().min(cap));
    }
    let plan = kcop_plan(arena, k, dte_table, &storage);
    let what = format!(
        "{k} cop{} on {} cells (bitboard engine)",
        if k == 1 { "" } else { "s" },
        arena.n
    );
    if !plan.fits {
        let hint = if storage.scratch.is_some() {
            "raise --memory: the arrays that cannot go to scratch files exceed it"
        } else {
            "raise --memory, or give --scratch DIR to keep the largest arrays in files"
        };
        // With a scratch folder, what cannot go to files.
        let needed = if storage.scratch.is_some() {
            plan.in_memory()
        } else {
            plan.needed
        };
        return Err(retrograde::Error::TooLarge {
            what: format!("{what}, in memory"),
            needed,
            available: cap,
            hint: hint.into(),
        });
    }
    if let (Some(dir), true) = (&storage.scratch, plan.scratch > 0) {
        let free = retrograde::free_disk(dir)?;
        if plan.scratch > free {
            return Err(retrograde::Error::TooLarge {
                what: format!("{what}, scratch files in {}", dir.display()),
                needed: plan.scratch,
                available: free,
                hint: "free disk space, or give --scratch another folder".into(),
            });
        }
    }
    Ok((storage, plan))
}

/// Solves with the bit-parallel k-cop engine: its arrays (`kcop_plan`,
/// the distance table included) are placed under `--memory` or the
/// available memory before anything is allocated, the largest in
/// `--scratch` files when they do not fit; checkpoints as `args` asks.
pub(super) fn solve_bits(
    args: &SolveArgs,
    game: &KCops,
    start: Option<u64>,
    dte_table: bool,
    config: &EngineConfig,
    reporter: &Reporter,
) -> Result<Bits, Failure> {
    let arena = KArena::from_arena(game.arena());
    let k = game.cops() as usize;
    let (storage, plan) = place(&arena, k, dte_table, config)?;
    if plan.scratch > 0 {
        reporter.note(&format!(
            "{} states: {} of bitsets, {} of them in scratch files ({})",
            game.state_count(),
            human_bytes(plan.needed),
            human_bytes(plan.scratch),
            plan.scratch_arrays.join(", ")
        ));
    } else {
        reporter.note(&format!(
            "{} states: {} of bitsets in memory",
            game.state_count(),
            human_bytes(plan.needed)
        ));
    }
    let (sink, resume) = checkpoints(args, dte_table)?;
    if let Some(r) = &resume {
        reporter.note(&format!("resuming after level {}", r.level()));
    }
    let options = KcopOptions {
        cops: k,
        dte_table,
        start: start.map(|s| {
            let (cops, thief, turn) = game.decode(s);
            KState {
                cops,
                thief,
                cops_to_move: turn == Turn::Cop,
            }
        }),
        stop_when_placed: false,
        thief_lists: None,
    };
    let run = KcopRun {
        storage,
        sink: sink
            .as_ref()
            .map(|s| s as &dyn retrograde::copnumber::KcopSink),
        resume: resume.as_ref(),
    };
    let pool = worker_pool(config.threads)?;
    match pool.install(|| solve_kcops_with(&arena, &options, &run)) {
        Ok(sol) => Ok(Bits::Solved(Box::new(sol))),
        Err(retrograde::Error::Stopped { level }) => {
            let dir = sink.as_ref().map(|s| s.dir().display().to_string());
            let dir = dir.unwrap_or_default();
            reporter.finish();
            say!("stopped: checkpoint after level {level} saved in {dir}; continue with --resume {dir}");
            Ok(Bits::Stopped(
                128 + super::super::output::stop_requested().unwrap_or(0),
            ))
        }
        Err(e) => Err(e.into()),
    }
}

/// The checkpoint sink and the checkpoint to resume from that `--checkpoint`
/// and `--resume` ask for; the fingerprint is the one-cop solve's plus the
/// cops, speeds and kind of input.
fn checkpoints(
    args: &SolveArgs,
    dte_table: bool,
) -> Result<(Option<DirSink>, Option<KCheckpoint>), Failure> {
    let Some(dir) = args.checkpoint.as_ref().or(args.resume.as_ref()) else {
        return Ok((None, None));
    };
    let mut fingerprint = checkpoint::fingerprint(&args.map, &args.game, "bitboard", dte_table)?;
    let kcops = &args.kcops;
    fingerprint.extend([
        ("cops".to_string(), kcops.k().to_string()),
        (
            "speeds".to_string(),
            format!(
                "cop {}, thief {}",
                kcops.speeds.cop_speed, kcops.speeds.thief_speed
            ),
        ),
        (
            "input".to_string(),
            if kcops.graph { "graph" } else { "map" }.to_string(),
        ),
        (
            "first mover".to_string(),
            if args.game.thief_first {
                "thief"
            } else {
                "cops"
            }
            .to_string(),
        ),
    ]);
    let resume = match &args.resume {
        None => None,
        Some(from) => {
            let ck = KCheckpoint::open(&checkpoint::resume_file_in(from)?)?;
            checkpoint::check_fingerprint(from, ck.fingerprint(), &fingerprint)?;
            Some(ck)
        }
    };
    let sink = DirSink::new(dir, args.checkpoint_every, fingerprint)?;
    Ok((Some(sink), resume))
}

/// `--checkpoint` and `--resume` with a counter engine: refused, as the
/// one-cop path refuses them for engines that keep none.
pub(super) fn refuse_checkpoints(args: &SolveArgs, engine: &str) -> Result<(), UsageError> {
    if args.checkpoint.is_some() || args.resume.is_some() {
        return Err(UsageError(format!(
            "--checkpoint and --resume need --engine bitboard (the default), not {engine}"
        )));
    }
    Ok(())
}
