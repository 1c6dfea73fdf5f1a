//! Engines: retrograde analysis of any [`Game`], producing a [`Solution`].
//!
//! Engines never do I/O and never see a grid or a file format; a dense state
//! index is the only currency. The only failure is allocation.

pub mod analysis;
mod best;
mod bitboard;
pub(crate) mod checkpoint;
mod common;
mod engine;
mod explicit;
pub(crate) mod multicop;
mod options;
mod plan;
mod propagate;
mod solution;
mod sweep;
mod verify;

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU8};

use crate::error::{Error, Result};
use crate::game::Game;
use crate::games::Special as _;
use crate::storage::cells::Cells;
use crate::storage::frontier::Frontier;
use crate::storage::{Backing, Paging, Region};

pub use crate::outcome::Counts;
pub use crate::snapshot::{Due, Sink, Snapshot};
pub use best::best_moves;
pub(crate) use best::rank;
#[cfg(feature = "distributed")]
pub(crate) use bitboard::partition::{self as grid_partition, GridBand};
pub use checkpoint::Checkpoint;
pub(crate) use common::thread_pool;
pub use common::Progress;
use common::{write_failed, DEFAULT_WINDOW_BYTES};
pub use engine::{Engine, UnknownEngine};
pub use options::SolveOptions;
#[cfg(feature = "distributed")]
pub(crate) use plan::out_of_core_states;
pub use plan::{
    check_cops_size, estimate, plan_storage, Estimate, Passes, StorageLimits, StoragePlan,
};
use solution::{ArrayPager, CellStore, Labels};
pub use solution::{Phases, Solution};
pub use verify::{verify, verify_observed, Inconsistency, Verification};

/// Solves `game`: labels every state WIN / LOSS / DRAW for the player to
/// move by retrograde analysis, level by level, so that the level at which a
/// state is decided is its exact distance to end.
///
/// # Errors
/// Allocation ([`Error::Alloc`], [`Error::TooLarge`]) and, with
/// [`Backing::Scratch`], writing the scratch files ([`Error::Scratch`], naming
/// the scratch folder).
///
/// # Example
/// See [`Game`].
pub fn solve(game: &impl Game, options: &SolveOptions<'_>) -> Result<Solution> {
    options.check(game)?;
    if options.engine == Engine::Explicit {
        return explicit::solve(game, options);
    }
    if options.engine == Engine::Bitboard {
        if let Some(kcops) = game.as_several_cops() {
            return solve_multicop(kcops, options);
        }
        let Some(grid) = game.as_cops_and_thief() else {
            let mut parallel = options.clone();
            parallel.engine = Engine::Parallel;
            return solve(game, &parallel);
        };
        return solve_bitboard(grid, options);
    }
    let started = std::time::Instant::now();
    let n = game.state_count();
    let backing = &options.backing;
    // The sweep engine keeps one pending set and no distances.
    let sweep = options.engine == Engine::Sweep;
    // The sweep engine keeps a window resident for many passes: its pages
    // go back to the files explicitly, once per release. The level engines
    // modify a band in one short pass per level, where the kernel's own
    // write-back of a shared mapping costs no copies (1.06e9 states at
    // --memory 256M: 86 s shared, 290 s private; docs/measurements.md).
    let paging = if sweep {
        Paging::Explicit
    } else {
        Paging::Kernel
    };
    let next = Frontier::new(if sweep { 0 } else { n }, backing, paging)?;
    let cur = Frontier::new(n, backing, paging)?;
    let dte = if options.dte_table {
        Some(Region::zeroed::<AtomicU16>(n, backing, "distance table")?)
    } else {
        None
    };
    let narrow = game.max_moves() <= <[AtomicU8] as Cells>::MAX_MOVES;
    if !narrow && game.max_moves() > <[AtomicU32] as Cells>::MAX_MOVES {
        return Err(Error::TooLarge {
            what: "a state's move counter".to_string(),
            needed: u64::from(game.max_moves()),
            available: u64::from(<[AtomicU32] as Cells>::MAX_MOVES),
            hint: "no state may have more than 2^30 - 1 moves".to_string(),
        });
    }
    let cells = if narrow {
        CellStore::Narrow(Region::zeroed_paged::<AtomicU8>(
            n,
            backing,
            "state array",
            paging,
        )?)
    } else {
        CellStore::Wide(Region::zeroed_paged::<AtomicU32>(
            n,
            backing,
            "state array",
            paging,
        )?)
    };
    let bytes = (cur.bytes()
        + next.bytes()
        + dte.as_ref().map_or(0, Region::bytes)
        + match &cells {
            CellStore::Narrow(r) | CellStore::Wide(r) => r.bytes(),
        }) as u64;
    // Out of core, work proceeds in bands of states and drops the pages
    // behind each band, so resident memory stays near the window.
    // Three quarters of the limit go to the window; the rest covers the
    // radius of pages kept on each side of it, the summaries and the heap.
    let window_bytes =
        options.memory_limit.unwrap_or(DEFAULT_WINDOW_BYTES) / 4 * plan::WINDOW_QUARTERS;
    let window_states = matches!(options.backing, Backing::Scratch(_)).then(|| {
        (u128::from(window_bytes) * u128::from(n) / u128::from(bytes.max(1)))
            .clamp(1, u128::from(u64::MAX)) as u64
    });
    let pager = ArrayPager {
        cells: &cells,
        dte: dte.as_ref(),
    };
    let window = window_states.map(|states| (states, &pager as &dyn propagate::Pager));
    let work = propagate::Work {
        game,
        dte: dte.as_ref().map(|r| r.atomics::<AtomicU16>()),
        frontiers: [cur, next],
        track: options.track,
        observer: options.observer,
        window,
    };
    let run = |work: &propagate::Work<'_, _>| match &cells {
        CellStore::Narrow(r) => propagate_with(work, r.atomics::<AtomicU8>(), options.engine),
        CellStore::Wide(r) => propagate_with(work, r.atomics::<AtomicU32>(), options.engine),
    };
    let result = match options.engine {
        Engine::Sequential | Engine::Explicit => run(&work),
        Engine::Parallel | Engine::Sweep | Engine::Bitboard => {
            thread_pool(options.threads)?.install(|| run(&work))
        }
    };
    let write_error = work
        .frontiers
        .iter()
        .find_map(Frontier::take_write_error)
        .or_else(|| dte.as_ref().and_then(Region::take_write_error))
        .or_else(|| cells.region().take_write_error());
    write_failed(write_error, &options.backing)?;
    Ok(Solution {
        phases: Phases {
            build: std::time::Duration::ZERO,
            propagate: started.elapsed(),
        },
        labels: Labels::Cells(cells),
        dte,
        states: n,
        levels: result.levels,
        tracked: options.track.map(|s| (s, result.tracked_dte)),
        deepest: result.deepest,
        sweeps: result.sweeps,
        window: window_states,
        bytes,
    })
}

/// [`Engine::Bitboard`] on the grid game.
fn solve_bitboard(
    game: &crate::games::cops::CopsAndThief,
    options: &SolveOptions<'_>,
) -> Result<Solution> {
    let started = std::time::Instant::now();
    let n = game.state_count();
    let dte = if options.dte_table {
        Some(Region::zeroed_paged::<AtomicU16>(
            n,
            &options.backing,
            "distance table",
            bitboard::PIPELINE_PAGING,
        )?)
    } else {
        None
    };
    let (bits, found) = bitboard::solve(game, options, dte.as_ref())?;
    let write_error = bits
        .take_write_error()
        .or_else(|| dte.as_ref().and_then(Region::take_write_error));
    write_failed(write_error, &options.backing)?;
    let window = bits.window_states();
    let bytes = bits.bytes() + dte.as_ref().map_or(0, |r| r.bytes() as u64);
    Ok(Solution {
        phases: Phases {
            build: std::time::Duration::ZERO,
            propagate: started.elapsed(),
        },
        labels: Labels::Bits(bits),
        dte,
        states: n,
        levels: found.levels,
        tracked: options.track.map(|s| (s, found.tracked_dte)),
        deepest: found.deepest,
        sweeps: 0,
        bytes,
        window,
    })
}

/// [`Engine::Bitboard`] on the several-cops game: `options`' threads,
/// distance table, tracked start, storage (its memory cap and scratch
/// folder, as [`plan_storage`] chose them), checkpoints and resume, through
/// the kernel, whose solution is wrapped here in a [`Solution`] (so that
/// the kernel, like `bitboard`, imports nothing of the solve above it).
fn solve_multicop(
    game: &crate::games::kcops::KCops,
    options: &SolveOptions<'_>,
) -> Result<Solution> {
    let started = std::time::Instant::now();
    let kernel = multicop::KcopOptions {
        cops: game.cops() as usize,
        dte_table: options.dte_table,
        start: options.track.map(|s| game.decode(s)),
        stop_when_placed: false,
        thief_lists: None,
    };
    let run = multicop::KcopRun {
        storage: multicop::KcopStorage {
            memory: options.memory_limit,
            scratch: match &options.backing {
                Backing::Scratch(dir) => Some(dir.clone()),
                Backing::Memory => None,
            },
        },
        sink: options.checkpoint,
        resume: options.resume.map(|c| c.multicop()).transpose()?,
        observer: options.observer,
    };
    let bytes =
        multicop::kcop_plan(game.arena(), kernel.cops, kernel.dte_table, &run.storage).needed;
    let solved = thread_pool(options.threads)?
        .install(|| multicop::solve_kcops_with(game.arena(), &kernel, &run))?;
    Ok(Solution {
        phases: Phases {
            build: std::time::Duration::ZERO,
            propagate: started.elapsed(),
        },
        states: solved.states(),
        levels: solved.levels,
        tracked: options
            .track
            .map(|s| (s, solved.start_dte.map(crate::outcome::Dte))),
        deepest: [
            solved
                .deepest_cops
                .map(|(d, s)| (crate::outcome::Dte(d), s)),
            None,
        ],
        sweeps: 0,
        bytes,
        window: None,
        dte: None,
        labels: Labels::Multicop(Box::new(solved)),
    })
}

/// Initialises and runs the engine's propagation on the current rayon pool:
/// the level engines level by level, the sweep engine in sweeps. The
/// schedule is decided here, once, inside the pool whose threads it counts.
fn propagate_with<G: Game, C: Cells + ?Sized>(
    work: &propagate::Work<'_, G>,
    cells: &C,
    engine: Engine,
) -> propagate::Propagated {
    let parallel = matches!(engine, Engine::Parallel | Engine::Sweep);
    let initial = work.initialise(cells, parallel);
    let schedule = work.schedule(parallel);
    match engine {
        Engine::Sweep => work.sweeps(cells, initial, schedule),
        Engine::Sequential | Engine::Parallel | Engine::Explicit | Engine::Bitboard => {
            work.levels(cells, initial, schedule)
        }
    }
}
