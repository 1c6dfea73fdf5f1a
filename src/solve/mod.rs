//! Engines: retrograde analysis of any [`Game`], producing a [`Solution`].
//!
//! Engines never do I/O and never see a grid or a file format; a dense state
//! index is the only currency. The only failure is allocation.

mod best;
mod bitboard;
pub(crate) mod checkpoint;
mod explicit;
mod plan;
mod propagate;
mod sweep;
mod verify;

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::game::Game;
use crate::storage::cells::Cells;
use crate::storage::frontier::Frontier;
use crate::storage::{Backing, Paging, Region};
use crate::{Dte, Outcome};

pub use best::best_moves;
pub use checkpoint::{Checkpoint, CheckpointSink, Due, Snapshot};
#[cfg(feature = "distributed")]
pub(crate) use plan::out_of_core_states;
pub use plan::{plan_storage, StorageLimits, StoragePlan};
pub use verify::{verify, verify_observed, Inconsistency, Verification};

/// Which algorithm solves the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// One thread, level-synchronous propagation over bitmap frontiers,
    /// plain (non-atomic) updates.
    Sequential,
    /// The same propagation split among rayon workers by state-index ranges:
    /// stripes at least one predecessor radius long run three phases apart
    /// with plain updates (atomic updates only for games without a radius);
    /// identical values and distances at any thread count.
    Parallel,
    /// The classic baseline: materialise the game into an
    /// [`ExplicitGraph`](crate::ExplicitGraph) (forward and reverse CSR,
    /// built in parallel), then run the sequential propagation over the
    /// stored edges. Same values and distances; refuses with
    /// [`Error::TooLarge`] when the graph would not fit (see
    /// [`SolveOptions::with_memory_limit`]).
    Explicit,
    /// Value-only sweeps for arrays larger than memory: bands of the state
    /// array are drained to completion in alternating forward and backward
    /// sweeps, in parallel stripes. Same values as the level engines; no
    /// distances (the start's distance is not reported).
    Sweep,
    /// The grid game only: bit-parallel levels over per-cop-cell bitsets
    /// of thief cells (`solve/bitboard.rs`), in parallel over bands of
    /// cop rows. Same values and distances as the level engines, about
    /// 0.3 bytes per state. Any other game is solved by
    /// [`Engine::Parallel`].
    Bitboard,
}

impl Engine {
    /// Name used on the command line.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Sequential => "sequential",
            Engine::Parallel => "parallel",
            Engine::Explicit => "explicit",
            Engine::Sweep => "sweep",
            Engine::Bitboard => "bitboard",
        }
    }
}

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
    checkpoint: Option<&'a dyn CheckpointSink>,
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

    /// Store every state's distance to end (a u16 per state). Ignored by
    /// [`Engine::Sweep`], which computes no distances.
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

    /// [`Engine::Bitboard`] on the grid game: offer a snapshot to `sink`
    /// after every level; the solve ends with [`Error::Stopped`] when the
    /// sink asks for it. Other engines refuse it.
    #[must_use]
    pub fn with_checkpoint(mut self, sink: Option<&'a dyn CheckpointSink>) -> Self {
        self.checkpoint = sink;
        self
    }

    /// [`Engine::Bitboard`] on the grid game: continue from `checkpoint`
    /// instead of level 0. It must come from the same game and distance
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
    /// The stored graph of the explicit engine (0 for the others).
    pub graph: u64,
}

impl Estimate {
    /// Sum of all arrays.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.cells + self.frontiers + self.dte + self.graph
    }
}

/// Sizes the arrays `solve` would allocate for `game` with `options`.
/// For [`Engine::Explicit`] this includes the stored graph, whose edge
/// count takes one parallel pass over the game's move counts.
#[must_use]
pub fn estimate(game: &impl Game, options: &SolveOptions<'_>) -> Estimate {
    let n = game.state_count();
    if let (Engine::Bitboard, Some(grid)) = (options.engine, game.as_cops_and_thief()) {
        return Estimate {
            cells: bitboard::Layout::new(grid).bytes(),
            frontiers: 0,
            dte: if options.dte_table { 2 * n } else { 0 },
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
        cells: n * cell,
        frontiers: if options.engine == Engine::Sweep {
            1
        } else {
            2
        } * 8
            * (words + words.div_ceil(64)),
        dte: if options.dte_table && options.engine != Engine::Sweep {
            2 * n
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

    fn region(&self) -> &Region {
        match self {
            CellStore::Narrow(r) | CellStore::Wide(r) => r,
        }
    }

    /// Bytes per cell.
    fn elem(&self) -> u64 {
        match self {
            CellStore::Narrow(_) => 1,
            CellStore::Wide(_) => 4,
        }
    }

    /// Drops resident pages of states `range` (scratch backing only).
    fn release(&self, range: std::ops::Range<u64>) {
        self.region().release(range, self.elem());
    }
}

/// Packs the values of cells `start .. start + len` 2 bits each into
/// `out` (zeroed): monomorphic, so the loop has no dispatch.
fn pack_cells<C: Cells + ?Sized>(cells: &C, start: usize, len: usize, out: &mut [u8]) {
    for (k, byte) in out.iter_mut().enumerate() {
        let first = 4 * k;
        let mut b = 0u8;
        for j in 0..(len - first).min(4) {
            b |= (cells.outcome(start + first + j) as u8) << (2 * j);
        }
        *byte = b;
    }
}

/// The arrays of a solve as the propagation pages them out of core.
struct ArrayPager<'a> {
    cells: &'a CellStore,
    dte: Option<&'a Region>,
}

impl propagate::Pager for ArrayPager<'_> {
    fn release(&self, range: std::ops::Range<u64>) {
        self.cells.release(range.clone());
        if let Some(table) = self.dte {
            table.release(range, 2);
        }
    }

    fn prefault(&self, range: std::ops::Range<u64>) {
        self.cells
            .region()
            .prefault(range.clone(), self.cells.elem());
        if let Some(table) = self.dte {
            table.prefault(range, 2);
        }
    }
}

/// Wall-clock time of a solve's phases.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Phases {
    /// Materialising the game ([`Engine::Explicit`]'s graph build; zero for
    /// the engines that work on the fly).
    pub build: std::time::Duration,
    /// Allocating the arrays and propagating.
    pub propagate: std::time::Duration,
}

/// Where a solution's values live.
enum Labels {
    /// The counter engines' per-state cells.
    Cells(CellStore),
    /// The bitboard engine's bitsets.
    Bits(bitboard::Bits),
}

/// The solved game: every state's value, optionally its distance to end.
pub struct Solution {
    phases: Phases,
    labels: Labels,
    dte: Option<Region>,
    states: u64,
    levels: u32,
    tracked: Option<(u64, Option<Dte>)>,
    deepest: [Option<(Dte, u64)>; 2],
    sweeps: u32,
    bytes: u64,
    /// Out of core: states to work on at a time to stay under the cap.
    window: Option<u64>,
}

impl Solution {
    /// Value of state `s` for the player to move.
    ///
    /// # Panics
    /// If `s` is not a state index.
    #[inline]
    #[must_use]
    pub fn outcome(&self, s: u64) -> Outcome {
        match &self.labels {
            Labels::Cells(cells) => cells.outcome(s as usize),
            Labels::Bits(bits) => bits.outcome(s),
        }
    }

    /// Distance to end of state `s`: `None` for a draw, or when the solve
    /// kept no distance table and `s` is not the tracked state. Distances of
    /// 65535 plies or more are stored as 65535.
    #[inline]
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

    /// Values of states `range`, packed 2 bits each: the code of state
    /// `range.start + i` (`Outcome as u8`: draw 0, win 1, loss 2) in bits
    /// `2 * (i % 4)` of `out[i / 4]`; the spare bits of the last byte are 0.
    /// Equal to [`Solution::outcome`] state by state, but one dispatch per
    /// call and a tight loop per storage kind, for tables and scans.
    ///
    /// # Panics
    /// If `range` reaches past the last state or `out` does not have
    /// `range`'s length divided by 4, rounded up, bytes.
    pub fn fill_values(&self, range: std::ops::Range<u64>, out: &mut [u8]) {
        assert!(range.start <= range.end && range.end <= self.states);
        let len = (range.end - range.start) as usize;
        assert_eq!(out.len(), len.div_ceil(4), "fill_values: wrong buffer size");
        match &self.labels {
            Labels::Cells(CellStore::Narrow(r)) => {
                out.fill(0);
                pack_cells(r.atomics::<AtomicU8>(), range.start as usize, len, out);
            }
            Labels::Cells(CellStore::Wide(r)) => {
                out.fill(0);
                pack_cells(r.atomics::<AtomicU32>(), range.start as usize, len, out);
            }
            Labels::Bits(bits) => bits.fill_values(range, out),
        }
    }

    /// Distances to end of states `range` into `out` (one per state): what
    /// [`Solution::dte`] gives, in plies, with 0 for `None` (draws, and
    /// states without a stored distance).
    ///
    /// # Panics
    /// If `range` reaches past the last state or `out` is not as long as
    /// `range`.
    pub fn fill_dte(&self, range: std::ops::Range<u64>, out: &mut [u16]) {
        // Values a chunk at a time, so no buffer grows with `range`.
        const CHUNK: u64 = 1 << 12;
        assert_eq!(out.len() as u64, range.end.saturating_sub(range.start));
        let mut values = [0u8; (CHUNK / 4) as usize];
        let mut first = range.start;
        for chunk in out.chunks_mut(CHUNK as usize) {
            let last = first + chunk.len() as u64;
            let values = &mut values[..chunk.len().div_ceil(4)];
            self.fill_values(first..last, values);
            self.fill_dte_with(first..last, values, chunk);
            first = last;
        }
    }

    /// [`Solution::fill_dte`] given the packed values of `range` (from
    /// [`Solution::fill_values`]), so a caller that has them reads the
    /// labels once.
    pub(crate) fn fill_dte_with(
        &self,
        range: std::ops::Range<u64>,
        values: &[u8],
        out: &mut [u16],
    ) {
        assert!(range.start <= range.end && range.end <= self.states);
        assert_eq!(out.len() as u64, range.end - range.start);
        assert_eq!(values.len(), out.len().div_ceil(4));
        match &self.dte {
            Some(table) => copy_decided(
                &table.atomics::<AtomicU16>()[range.start as usize..range.end as usize],
                values,
                out,
            ),
            None => out.fill(0),
        }
        // The tracked state's distance wins over the table (as in `dte`).
        if let Some((tracked, dte)) = self.tracked {
            if range.contains(&tracked) {
                let i = (tracked - range.start) as usize;
                if (values[i / 4] >> (2 * (i % 4))) & 3 != Outcome::Draw as u8 {
                    out[i] = dte.map_or(0, |d| d.plies().min(u32::from(u16::MAX)) as u16);
                }
            }
        }
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

    /// Sweeps made by [`Engine::Sweep`] (0 for the other engines).
    #[must_use]
    pub fn sweeps(&self) -> u32 {
        self.sweeps
    }

    /// How long the solve's build and propagation took.
    #[must_use]
    pub fn phases(&self) -> Phases {
        self.phases
    }

    /// Bytes of per-state arrays the solve allocated.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Out of core: how many states to check or scan at a time to stay
    /// under the memory cap (`None` in memory).
    pub(crate) fn window(&self) -> Option<u64> {
        self.window
    }

    /// Out of core: drops the resident pages of states `range` (written
    /// back to the scratch files first). A no-op in memory.
    pub(crate) fn release(&self, range: std::ops::Range<u64>) {
        use propagate::Pager as _;
        match &self.labels {
            Labels::Cells(cells) => ArrayPager {
                cells,
                dte: self.dte.as_ref(),
            }
            .release(range),
            Labels::Bits(bits) => {
                bits.release(range.clone());
                if let Some(table) = &self.dte {
                    table.release(range, 2);
                }
            }
        }
    }

    /// WIN / LOSS / DRAW counts over all states (a parallel sweep).
    #[must_use]
    pub fn counts(&self) -> Counts {
        let [even, odd] = self.counts_by_parity();
        even + odd
    }

    /// WIN / LOSS / DRAW counts over the even and the odd states apart (a
    /// parallel sweep). In the grid game a state's parity is the player to
    /// move (0 the cop, 1 the thief), so whole-map statistics for one side
    /// to move read this instead of probing every state: the bitboard
    /// engine answers it with popcounts.
    #[must_use]
    pub fn counts_by_parity(&self) -> [Counts; 2] {
        const CHUNK: u64 = 1 << 16;
        let cells = match &self.labels {
            Labels::Cells(cells) => cells,
            Labels::Bits(bits) => return bits.counts_by_parity(),
        };
        (0..self.states.div_ceil(CHUNK))
            .into_par_iter()
            .map(|k| {
                let mut c = [Counts::default(); 2];
                let range = k * CHUNK..((k + 1) * CHUNK).min(self.states);
                for s in range.clone() {
                    let c = &mut c[(s & 1) as usize];
                    match self.outcome(s) {
                        Outcome::Win => c.win += 1,
                        Outcome::Loss => c.loss += 1,
                        Outcome::Draw => c.draw += 1,
                    }
                }
                // Out of core, keep the sweep from pulling the whole array
                // into memory.
                cells.release(range);
                c
            })
            .reduce(|| [Counts::default(); 2], |a, b| [a[0] + b[0], a[1] + b[1]])
    }
}

impl std::ops::Add for Counts {
    type Output = Counts;

    fn add(self, other: Counts) -> Counts {
        Counts {
            win: self.win + other.win,
            loss: self.loss + other.loss,
            draw: self.draw + other.draw,
        }
    }
}

/// Solves `game`: labels every state WIN / LOSS / DRAW for the player to
/// move by retrograde analysis, level by level, so that the level at which a
/// state is decided is its exact distance to end.
///
/// # Errors
/// Allocation ([`Error::Alloc`], [`Error::TooLarge`]) and, with
/// [`Backing::Scratch`], writing the scratch files ([`Error::Io`], naming
/// the scratch folder).
///
/// # Example
/// See [`Game`].
pub fn solve(game: &impl Game, options: &SolveOptions<'_>) -> Result<Solution> {
    let grid = game.as_cops_and_thief();
    if (options.checkpoint.is_some() || options.resume.is_some())
        && (options.engine != Engine::Bitboard || grid.is_none())
    {
        return Err(Error::Placement {
            what: "checkpoint".to_string(),
            message: "checkpoints are kept by the bitboard engine on grid maps only".to_string(),
        });
    }
    if options.engine == Engine::Explicit {
        return explicit::solve(game, options);
    }
    if options.engine == Engine::Bitboard {
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
    let dte = if options.dte_table && !sweep {
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
    // Out of core, a failed write-back kept its pages resident (no state
    // was lost) but the solve cannot vouch for its limits: report it.
    let write_error = work
        .frontiers
        .iter()
        .find_map(Frontier::take_write_error)
        .or_else(|| dte.as_ref().and_then(Region::take_write_error))
        .or_else(|| cells.region().take_write_error());
    if let (Some(source), Backing::Scratch(dir)) = (write_error, &options.backing) {
        return Err(Error::Io {
            path: dir.clone(),
            source,
        });
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

/// [`Engine::Bitboard`] on the grid game.
fn solve_bitboard(game: &crate::CopsAndThief, options: &SolveOptions<'_>) -> Result<Solution> {
    let started = std::time::Instant::now();
    let n = game.state_count();
    let dte = if options.dte_table {
        Some(Region::zeroed::<AtomicU16>(
            n,
            &options.backing,
            "distance table",
        )?)
    } else {
        None
    };
    let (bits, found) = bitboard::solve(game, options, dte.as_ref())?;
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

/// Per byte of packed 2-bit codes, a mask of four u16 lanes: all ones for
/// a decided state, 0 for a draw (lane `j`, state `j` of the byte, in a
/// little-endian word).
const DECIDED_LANES: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 4 {
            if (b >> (2 * j)) & 3 != 0 {
                t[b] |= 0xffff << (16 * j);
            }
            j += 1;
        }
        b += 1;
    }
    t
};

/// The distances of `table` into `out`, 0 for the draws among `values`
/// (their packed codes, the first state at bit 0), whatever the table
/// holds for them. Four states per step: one 64-bit load and one mask
/// (the state-at-a-time loop over `AtomicU16` was 5% of a `--dte-table
/// --save` run).
fn copy_decided(table: &[AtomicU16], values: &[u8], out: &mut [u16]) {
    let mut done = 0;
    #[cfg(target_endian = "little")]
    if (table.as_ptr() as usize).is_multiple_of(std::mem::align_of::<AtomicU64>()) {
        let words = out.len() / 4;
        // SAFETY: `table` starts aligned for u64 and holds at least
        // `4 * words` u16s, so they are `words` whole u64s in bounds;
        // `AtomicU64` has u64's representation and every bit pattern is
        // valid. These loads only read, and the table is written (through
        // `AtomicU16`) only by the solve that produced this `Solution`,
        // which finished before it was returned, so the differently sized
        // accesses never race (what mixed-size atomics require).
        let wide = unsafe { std::slice::from_raw_parts(table.as_ptr().cast::<AtomicU64>(), words) };
        for ((o, w), &b) in out.chunks_exact_mut(4).zip(wide).zip(values) {
            let x = w.load(Relaxed) & DECIDED_LANES[usize::from(b)];
            o.copy_from_slice(&[
                x as u16,
                (x >> 16) as u16,
                (x >> 32) as u16,
                (x >> 48) as u16,
            ]);
        }
        done = 4 * words;
    }
    for (i, (d, t)) in out.iter_mut().zip(table).enumerate().skip(done) {
        let code = (values[i / 4] >> (2 * (i % 4))) & 3;
        *d = t.load(Relaxed) & 0u16.wrapping_sub(u16::from(code != 0));
    }
}
