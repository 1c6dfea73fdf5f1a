//! Engines: retrograde analysis of any [`Game`], producing a [`Solution`].
//!
//! Engines never do I/O and never see a grid or a file format; a dense state
//! index is the only currency. The only failure is allocation.

pub mod analysis;
mod best;
mod bitboard;
pub(crate) mod checkpoint;
mod engine;
mod explicit;
pub(crate) mod multicop;
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

pub use crate::snapshot::{Due, Sink, Snapshot};
pub use best::best_moves;
#[cfg(feature = "distributed")]
pub use bitboard::band_checkpoint::GridBandCheckpoint;
#[cfg(feature = "distributed")]
pub(crate) use bitboard::partition::{self as grid_partition, GridBand};
pub use checkpoint::Checkpoint;
pub use engine::{Engine, UnknownEngine};
#[cfg(feature = "distributed")]
pub(crate) use plan::out_of_core_states;
pub use plan::{check_cops_size, plan_storage, Passes, StorageLimits, StoragePlan};
use solution::{ArrayPager, CellStore, Labels};
pub use solution::{Counts, Phases, Solution};
pub use verify::{verify, verify_observed, Inconsistency, Verification};

/// Progress report passed to an observer: after each level of the level
/// engines, after each pass over a window of the sweep engine.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Level engines: levels finished so far (level 0 is initialisation).
    /// Sweep engine: the sweep in progress, from 1 (0 after
    /// initialisation).
    pub level: u32,
    /// Whether `level` counts sweeps of [`Engine::Sweep`].
    pub sweeping: bool,
    /// States decided in that level (0 for sweeps).
    pub decided_in_level: u64,
    /// States decided so far in all.
    pub decided: u64,
    /// Total number of states.
    pub states: u64,
}

/// How to solve: engine, threads, storage, and what to record.
#[derive(Clone)]
pub struct SolveOptions<'a> {
    engine: Engine,
    threads: usize,
    dte_table: bool,
    track: Option<u64>,
    backing: Backing,
    observer: Option<&'a (dyn Fn(&Progress) + Sync)>,
    memory_limit: Option<u64>,
    /// The explicit engine's edge count from a [`StoragePlan`] that already
    /// checked its fit.
    planned_edges: Option<u64>,
    /// Where [`Engine::Bitboard`] hands its snapshots between levels.
    checkpoint: Option<&'a dyn Sink>,
    /// The snapshot [`Engine::Bitboard`] continues from.
    resume: Option<&'a Checkpoint>,
}

impl<'a> SolveOptions<'a> {
    /// Options for `engine` with defaults: all cores (parallel engine), no
    /// distance table, in-memory arrays, no tracked state, no observer.
    #[must_use]
    pub fn new(engine: Engine) -> SolveOptions<'a> {
        SolveOptions {
            engine,
            threads: 0,
            dte_table: false,
            track: None,
            backing: Backing::Memory,
            observer: None,
            memory_limit: None,
            planned_edges: None,
            checkpoint: None,
            resume: None,
        }
    }

    /// Worker threads for the parallel engine; 0 means all cores.
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// The workers the solve's pool will have: the count of
    /// [`with_threads`](Self::with_threads), or for 0 the default pool's
    /// (one per core), as [`thread_pool`] builds it.
    pub(crate) fn pool_threads(&self) -> usize {
        match self.threads {
            0 => rayon::current_num_threads(),
            t => t,
        }
    }

    /// Store every state's distance to end (a u16 per state).
    /// [`Engine::Sweep`] computes no distances: [`solve`] and
    /// [`plan_storage`] refuse it with [`Error::Unsupported`].
    #[must_use]
    pub fn with_dte_table(mut self, yes: bool) -> Self {
        self.dte_table = yes;
        self
    }

    /// Record the exact distance to end of this one state (the start)
    /// without a distance table: it is the level at which it is decided.
    #[must_use]
    pub fn with_tracked_state(mut self, state: Option<u64>) -> Self {
        self.track = state;
        self
    }

    /// Where the per-state arrays live.
    #[must_use]
    pub fn with_backing(mut self, backing: Backing) -> Self {
        self.backing = backing;
        self
    }

    /// Called after initialisation and after every level.
    #[must_use]
    pub fn with_observer(mut self, observer: &'a (dyn Fn(&Progress) + Sync)) -> Self {
        self.observer = Some(observer);
        self
    }

    /// Bytes of memory the solve may use: the explicit engine's graph and
    /// arrays must fit under it, and out of core it sizes the window of
    /// states kept resident. `None` (the default) means what the system has
    /// available (MemAvailable, capped by a cgroup limit) for the explicit
    /// engine and a 1 GiB cap out of core. [`plan_storage`] decides it.
    #[must_use]
    pub fn with_memory_limit(mut self, bytes: Option<u64>) -> Self {
        self.memory_limit = bytes;
        self
    }

    /// Applies a [`StoragePlan`] from [`plan_storage`]: its backing and
    /// memory cap, and (explicit engine) the fit it already checked.
    #[must_use]
    pub fn with_plan(mut self, plan: &StoragePlan) -> Self {
        self.backing = plan.backing.clone();
        self.memory_limit = Some(plan.memory_limit);
        self.planned_edges = plan.edges;
        self
    }

    /// [`Engine::Bitboard`] on the grid game or the several-cops game:
    /// offer a snapshot to `sink` after every level; the solve ends with
    /// [`Error::Stopped`] when the sink asks for it. Other engines refuse
    /// it.
    #[must_use]
    pub fn with_checkpoint(mut self, sink: Option<&'a dyn Sink>) -> Self {
        self.checkpoint = sink;
        self
    }

    /// [`Engine::Bitboard`] on the grid game or the several-cops game:
    /// continue from `checkpoint` instead of level 0 (one written by the
    /// same kernel). It must come from the same game and distance
    /// table setting (the caller compares the fingerprints; the engine
    /// checks the sizes). Other engines refuse it.
    #[must_use]
    pub fn with_resume(mut self, checkpoint: Option<&'a Checkpoint>) -> Self {
        self.resume = checkpoint;
        self
    }

    /// The chosen engine.
    #[must_use]
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// Refuses what the engine does not keep, before any game is seen: a
    /// distance table from [`Engine::Sweep`], checkpoints from any engine
    /// but [`Engine::Bitboard`]. The one place that rule lives: [`solve`]
    /// and [`plan_storage`] ask it (and refuse checkpoints on a game that is
    /// not the grid game); callers may ask it up front.
    ///
    /// # Errors
    /// [`Error::Unsupported`], naming the engine and what it does not keep.
    pub fn check_engine(&self) -> Result<()> {
        if self.dte_table && !self.engine.keeps_distances() {
            return Err(self.engine.refuse("a distance table"));
        }
        if (self.checkpoint.is_some() || self.resume.is_some()) && !self.engine.keeps_checkpoints()
        {
            return Err(self.engine.refuse("checkpoints"));
        }
        Ok(())
    }

    /// [`SolveOptions::check_engine`] for `game`: checkpoints need the
    /// grid game or the several-cops game too.
    pub(crate) fn check(&self, game: &impl Game) -> Result<()> {
        self.check_engine()?;
        if (self.checkpoint.is_some() || self.resume.is_some())
            && game.as_cops_and_thief().is_none()
            && game.as_several_cops().is_none()
        {
            return Err(self
                .engine
                .refuse("checkpoints on a game other than cops and a thief"));
        }
        Ok(())
    }
}

/// Bytes a solve will use, by array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    /// Packed label + counter array.
    pub cells: u64,
    /// The working arrays besides the per-state ones: the counter
    /// engines' two frontier bitmaps with their summaries, or the bitboard
    /// engine's staging rows, halo rows and per-cell bookkeeping (which
    /// grow with the threads: one band of rows each).
    pub frontiers: u64,
    /// The distance table, if requested.
    pub dte: u64,
    /// The stored graph of the explicit engine (0 for the others).
    pub graph: u64,
}

impl Estimate {
    /// Sum of all arrays.
    #[must_use]
    pub fn total(&self) -> u64 {
        // Saturating: near 2^64 states the sum wrapped to a small need.
        self.cells
            .saturating_add(self.frontiers)
            .saturating_add(self.dte)
            .saturating_add(self.graph)
    }
}

/// Sizes the arrays `solve` would allocate for `game` with `options`.
/// For [`Engine::Explicit`] this includes the stored graph, whose edge
/// count takes one parallel pass over the game's move counts.
#[must_use]
pub fn estimate(game: &impl Game, options: &SolveOptions<'_>) -> Estimate {
    let n = game.state_count();
    if let (Engine::Bitboard, Some(kcops)) = (options.engine, game.as_several_cops()) {
        let bytes = multicop::kcop_memory_for(kcops.arena(), kcops.cops() as usize, false);
        let with_table = if options.dte_table {
            multicop::kcop_memory_for(kcops.arena(), kcops.cops() as usize, true)
        } else {
            bytes
        };
        return Estimate {
            cells: bytes,
            frontiers: 0,
            dte: with_table - bytes,
            graph: 0,
        };
    }
    if let (Engine::Bitboard, Some(grid)) = (options.engine, game.as_cops_and_thief()) {
        let layout = bitboard::Layout::new(grid);
        return Estimate {
            cells: layout.bytes(),
            frontiers: bitboard::working_bytes(&layout, options.pool_threads()),
            dte: if options.dte_table {
                n.saturating_mul(2)
            } else {
                0
            },
            graph: 0,
        };
    }
    let cell = if game.max_moves() <= <[AtomicU8] as Cells>::MAX_MOVES {
        1
    } else {
        4
    };
    let words = n.div_ceil(64);
    Estimate {
        cells: n.saturating_mul(cell),
        frontiers: if options.engine == Engine::Sweep {
            8
        } else {
            16
        } * (words + words.div_ceil(64)),
        dte: if options.dte_table && options.engine.keeps_distances() {
            n.saturating_mul(2)
        } else {
            0
        },
        // Needs the edge count: one pass over the move counts.
        graph: if options.engine == Engine::Explicit {
            crate::csr::explicit_estimate(game)
        } else {
            0
        },
    }
}

/// Resident bytes an out-of-core solve aims for when no memory limit is set.
const DEFAULT_WINDOW_BYTES: u64 = 1 << 30;

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

/// Out of core, a failed write-back kept its pages resident (no state was
/// lost) but the solve cannot vouch for its limits: an error naming the
/// scratch directory.
fn write_failed(error: Option<std::io::Error>, backing: &Backing) -> Result<()> {
    match (error, backing) {
        (Some(source), Backing::Scratch(dir)) => Err(Error::Scratch {
            dir: dir.clone(),
            message: "could not take the pages written back (none was lost; the solve stopped)"
                .to_string(),
            source,
        }),
        _ => Ok(()),
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

/// [`Engine::Bitboard`] on the several-cops game.
fn solve_multicop(
    game: &crate::games::kcops::KCops,
    options: &SolveOptions<'_>,
) -> Result<Solution> {
    let started = std::time::Instant::now();
    let (solved, bytes) = multicop::solve(game, options)?;
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

/// A rayon pool of `threads` workers (0: one per core).
pub(crate) fn thread_pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Alloc {
            what: "worker threads".to_string(),
            bytes: 0,
            source: std::io::Error::other(e.to_string()),
        })
}
