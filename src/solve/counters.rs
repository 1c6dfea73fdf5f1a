//! The counter engines ([`Engine::Sequential`], [`Engine::Parallel`],
//! [`Engine::Sweep`]) on any [`Game`]: a packed label-and-counter array,
//! two frontier bitmaps and an optional distance table, in memory or in
//! scratch files, propagated level by level (`propagate.rs`) or in sweeps
//! (`sweep.rs`). The explicit engine runs its stored graph through here
//! too.

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU8};

use super::common::{thread_pool, write_failed, DEFAULT_WINDOW_BYTES};
use super::engine::Engine;
use super::options::SolveOptions;
use super::plan::WINDOW_QUARTERS;
use super::propagate::{Pager, Propagated, Work};
use super::solution::{ArrayPager, CellStore, Labels, Phases, Solution};
use crate::error::{Error, Result};
use crate::game::Game;
use crate::storage::cells::Cells;
use crate::storage::frontier::Frontier;
use crate::storage::{Backing, Paging, Region};

/// Solves `game` with the counter `engine`.
pub(super) fn solve(
    game: &impl Game,
    engine: Engine,
    options: &SolveOptions<'_>,
) -> Result<Solution> {
    let started = std::time::Instant::now();
    let n = game.state_count();
    let backing = &options.backing;
    // The sweep engine keeps one pending set and no distances.
    let sweep = engine == Engine::Sweep;
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
    let window_bytes = options.memory_limit.unwrap_or(DEFAULT_WINDOW_BYTES) / 4 * WINDOW_QUARTERS;
    let window_states = matches!(options.backing, Backing::Scratch(_)).then(|| {
        (u128::from(window_bytes) * u128::from(n) / u128::from(bytes.max(1)))
            .clamp(1, u128::from(u64::MAX)) as u64
    });
    let pager = ArrayPager {
        cells: &cells,
        dte: dte.as_ref(),
    };
    let window = window_states.map(|states| (states, &pager as &dyn Pager));
    let work = Work {
        game,
        dte: dte.as_ref().map(|r| r.atomics::<AtomicU16>()),
        frontiers: [cur, next],
        track: options.track,
        observer: options.observer,
        window,
    };
    let run = |work: &Work<'_, _>| match &cells {
        CellStore::Narrow(r) => propagate_with(work, r.atomics::<AtomicU8>(), engine),
        CellStore::Wide(r) => propagate_with(work, r.atomics::<AtomicU32>(), engine),
    };
    let result = match engine {
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
    if let Some(level) = result.stopped {
        return Err(Error::Stopped { level });
    }
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

/// Initialises and runs the engine's propagation on the current rayon pool:
/// the level engines level by level, the sweep engine in sweeps. The
/// schedule is decided here, once, inside the pool whose threads it counts.
fn propagate_with<G: Game, C: Cells + ?Sized>(
    work: &Work<'_, G>,
    cells: &C,
    engine: Engine,
) -> Propagated {
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
