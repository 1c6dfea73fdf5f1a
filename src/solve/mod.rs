//! Engines: retrograde analysis of any [`Game`], producing a [`Solution`].
//!
//! Engines never do I/O and never see a grid or a file format; a dense state
//! index is the only currency. The only failure is allocation.

mod propagate;

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::game::Game;
use crate::storage::cells::Cells;
use crate::storage::frontier::Frontier;
use crate::storage::{Backing, Region};
use crate::{Dte, Outcome};

/// Which algorithm solves the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// One thread, level-synchronous propagation over bitmap frontiers,
    /// plain (non-atomic) updates.
    Sequential,
    /// The same propagation split among rayon workers by state-index ranges,
    /// with atomic updates; identical values and distances at any thread
    /// count.
    Parallel,
}

impl Engine {
    /// Name used on the command line.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Sequential => "sequential",
            Engine::Parallel => "parallel",
        }
    }
}

/// Per-level progress report passed to an observer.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Levels finished so far (level 0 is initialisation).
    pub level: u32,
    /// States decided in that level.
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
        }
    }

    /// Worker threads for the parallel engine; 0 means all cores.
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Store every state's distance to end (a u16 per state).
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

    /// The chosen engine.
    #[must_use]
    pub fn engine(&self) -> Engine {
        self.engine
    }
}

/// Bytes a solve will use, by array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    /// Packed label + counter array.
    pub cells: u64,
    /// The two frontier bitmaps with their summaries.
    pub frontiers: u64,
    /// The distance table, if requested.
    pub dte: u64,
}

impl Estimate {
    /// Sum of all arrays.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.cells + self.frontiers + self.dte
    }
}

/// Sizes the arrays `solve` would allocate for `game` with `options`.
#[must_use]
pub fn estimate(game: &impl Game, options: &SolveOptions<'_>) -> Estimate {
    let n = game.state_count();
    let cell = if game.max_moves() <= <[AtomicU8] as Cells>::MAX_MOVES {
        1
    } else {
        4
    };
    let words = n.div_ceil(64);
    Estimate {
        cells: n * cell,
        frontiers: 2 * 8 * (words + words.div_ceil(64)),
        dte: if options.dte_table { 2 * n } else { 0 },
    }
}

/// Counts of states by value for the player to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// WIN states.
    pub win: u64,
    /// LOSS states.
    pub loss: u64,
    /// DRAW states.
    pub draw: u64,
}

enum CellStore {
    Narrow(Region),
    Wide(Region),
}

impl CellStore {
    fn outcome(&self, s: usize) -> Outcome {
        match self {
            CellStore::Narrow(r) => r.atomics::<AtomicU8>().outcome(s),
            CellStore::Wide(r) => r.atomics::<AtomicU32>().outcome(s),
        }
    }
}

/// The solved game: every state's value, optionally its distance to end.
pub struct Solution {
    cells: CellStore,
    dte: Option<Region>,
    states: u64,
    levels: u32,
    tracked: Option<(u64, Option<Dte>)>,
    deepest: [Option<(Dte, u64)>; 2],
    bytes: u64,
}

impl Solution {
    /// Value of state `s` for the player to move.
    ///
    /// # Panics
    /// If `s` is not a state index.
    #[must_use]
    pub fn outcome(&self, s: u64) -> Outcome {
        self.cells.outcome(s as usize)
    }

    /// Distance to end of state `s`: `None` for a draw, or when the solve
    /// kept no distance table and `s` is not the tracked state. Distances of
    /// 65535 plies or more are stored as 65535.
    #[must_use]
    pub fn dte(&self, s: u64) -> Option<Dte> {
        if self.outcome(s) == Outcome::Draw {
            return None;
        }
        if let Some((tracked, dte)) = self.tracked {
            if tracked == s {
                return dte;
            }
        }
        let table = self.dte.as_ref()?;
        Some(Dte(u32::from(
            table.atomics::<AtomicU16>()[s as usize].load(Relaxed),
        )))
    }

    /// Whether a full distance table was kept.
    #[must_use]
    pub fn has_dte_table(&self) -> bool {
        self.dte.is_some()
    }

    /// Number of states.
    #[must_use]
    pub fn states(&self) -> u64 {
        self.states
    }

    /// Number of propagation levels after level 0: the largest distance to
    /// end of any decided state.
    #[must_use]
    pub fn levels(&self) -> u32 {
        self.levels
    }

    /// For the player `side` (see [`Game::side`]): the largest distance to
    /// end of any decided state with that player to move, and the smallest
    /// state index that has it. Needs no distance table.
    #[must_use]
    pub fn deepest(&self, side: usize) -> Option<(Dte, u64)> {
        self.deepest.get(side).copied().flatten()
    }

    /// Bytes of per-state arrays the solve allocated.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// WIN / LOSS / DRAW counts over all states (a parallel sweep).
    #[must_use]
    pub fn counts(&self) -> Counts {
        const CHUNK: u64 = 1 << 16;
        (0..self.states.div_ceil(CHUNK))
            .into_par_iter()
            .map(|k| {
                let mut c = Counts::default();
                for s in k * CHUNK..((k + 1) * CHUNK).min(self.states) {
                    match self.outcome(s) {
                        Outcome::Win => c.win += 1,
                        Outcome::Loss => c.loss += 1,
                        Outcome::Draw => c.draw += 1,
                    }
                }
                c
            })
            .reduce(Counts::default, |a, b| Counts {
                win: a.win + b.win,
                loss: a.loss + b.loss,
                draw: a.draw + b.draw,
            })
    }
}

/// Solves `game`: labels every state WIN / LOSS / DRAW for the player to
/// move by retrograde analysis, level by level, so that the level at which a
/// state is decided is its exact distance to end.
///
/// # Errors
/// Only allocation can fail ([`Error::Alloc`], [`Error::TooLarge`]).
///
/// # Example
/// See [`Game`].
pub fn solve(game: &impl Game, options: &SolveOptions<'_>) -> Result<Solution> {
    let n = game.state_count();
    let backing = &options.backing;
    let next = Frontier::new(n, backing)?;
    let cur = Frontier::new(n, backing)?;
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
        CellStore::Narrow(Region::zeroed::<AtomicU8>(n, backing, "state array")?)
    } else {
        CellStore::Wide(Region::zeroed::<AtomicU32>(n, backing, "state array")?)
    };
    let bytes = (cur.bytes()
        + next.bytes()
        + dte.as_ref().map_or(0, Region::bytes)
        + match &cells {
            CellStore::Narrow(r) | CellStore::Wide(r) => r.bytes(),
        }) as u64;
    let work = propagate::Work {
        game,
        dte: dte.as_ref().map(|r| r.atomics::<AtomicU16>()),
        frontiers: [cur, next],
        track: options.track,
        observer: options.observer,
    };
    let run = |work: &propagate::Work<'_, _>| match &cells {
        CellStore::Narrow(r) => work.run(r.atomics::<AtomicU8>(), options.engine),
        CellStore::Wide(r) => work.run(r.atomics::<AtomicU32>(), options.engine),
    };
    let result = match options.engine {
        Engine::Sequential => run(&work),
        Engine::Parallel => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(options.threads)
                .build()
                .map_err(|e| Error::Alloc {
                    what: "worker threads".to_string(),
                    bytes: 0,
                    source: std::io::Error::other(e.to_string()),
                })?;
            pool.install(|| run(&work))
        }
    };
    Ok(Solution {
        cells,
        dte,
        states: n,
        levels: result.levels,
        tracked: options.track.map(|s| (s, result.tracked_dte)),
        deepest: result.deepest,
        bytes,
    })
}
