//! Engines: retrograde analysis of any [`Game`], producing a [`Solution`].
//!
//! Engines never do I/O; a dense state index is the only currency between
//! a game and the counter engines, and only the two kernels of the
//! bitboard engine see their game's board (through
//! [`Shape`](crate::games::Shape)). Besides allocation, only the
//! caller's [`Sink`] and the write-back of scratch pages can fail.
//!
//! - `mod.rs`: [`solve`], which matches on the kernel chosen once, and the
//!   bit engine's two kernels wrapped into a [`Solution`];
//! - `kernel.rs`: the one place an engine is chosen for a game;
//! - `options.rs`: [`SolveOptions`]; `common.rs`: [`Progress`], the
//!   worker pool and what the engines share below `mod.rs`;
//! - `engine.rs`: [`Engine`], its names and what it keeps;
//! - `plan.rs`: [`estimate`], [`plan_storage`] (memory or scratch files,
//!   refused with the bytes needed), [`check_cops_size`];
//! - `counters.rs`: the counter engines' arrays and their propagation;
//! - `propagate.rs`: the level engines (sequential, striped parallel,
//!   banded out of core) and what the sweep engine shares;
//! - `sweep.rs`: the value-only sweep engine;
//! - `explicit.rs`: the explicit engine over a stored graph;
//! - `bitboard/`: the grid kernel of the bitboard engine;
//! - `multicop/`: the several-cops kernel of the bitboard engine;
//! - `checkpoint.rs`: the grid kernel's checkpoints and [`Checkpoint`],
//!   which opens either kernel's;
//! - `solution.rs`: [`Solution`], [`Phases`];
//! - `verify.rs`: every state checked against its successors;
//! - `best.rs`: best moves from a solution;
//! - `analysis.rs`: whole-map analysis of a solved game (start pairs and
//!   placements by verdict, the longest game, the best placement).

pub mod analysis;
mod best;
mod bitboard;
pub(crate) mod checkpoint;
mod common;
mod counters;
mod engine;
mod explicit;
mod kcop_checkpoint;
mod kernel;
pub(crate) mod multicop;
mod options;
mod plan;
mod propagate;
mod solution;
mod sweep;
mod verify;

use std::sync::atomic::AtomicU16;

use crate::error::Result;
use crate::game::Game;
use crate::storage::{Backing, Region};

pub use crate::outcome::Counts;
pub use crate::snapshot::{Due, Sink, Snapshot};
pub use best::best_moves;
pub(crate) use best::rank;
#[cfg(feature = "distributed")]
pub use bitboard::band_checkpoint::GridBandCheckpoint;
#[cfg(feature = "distributed")]
pub(crate) use bitboard::partition::{self as grid_partition, GridBand};
pub use checkpoint::Checkpoint;
pub(crate) use common::thread_pool;
use common::write_failed;
pub use common::{Flow, Progress};
pub use engine::{Engine, UnknownEngine};
use kernel::Kernel;
pub use options::SolveOptions;
#[cfg(feature = "distributed")]
pub(crate) use plan::out_of_core_states;
pub use plan::{
    check_cops_size, estimate, plan_storage, Estimate, Passes, StorageLimits, StoragePlan,
};
use solution::Labels;
pub use solution::{Phases, Solution};
pub use verify::{verify, verify_observed, Inconsistency, Verification};

/// Solves `game`: labels every state WIN / LOSS / DRAW for the player to
/// move by retrograde analysis, level by level, so that the level at which a
/// state is decided is its exact distance to end.
///
/// # Errors
/// Allocation ([`Error::Alloc`](crate::Error::Alloc), [`Error::TooLarge`](crate::Error::TooLarge)) and, with
/// [`Backing::Scratch`], writing the scratch files ([`Error::Scratch`](crate::Error::Scratch), naming
/// the scratch folder).
///
/// # Example
/// See [`Game`].
pub fn solve(game: &impl Game, options: &SolveOptions<'_>) -> Result<Solution> {
    let kernel = Kernel::choose(game, options.engine);
    options.check(kernel)?;
    match kernel {
        Kernel::Explicit => explicit::solve(game, options),
        Kernel::Grid(grid) => solve_bitboard(grid, options),
        Kernel::Several(kcops) => solve_multicop(kcops, options),
        Kernel::Counter(engine) => counters::solve(game, engine, options),
    }
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
