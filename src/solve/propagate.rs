//! Level-synchronous retrograde propagation: the sequential and the parallel
//! engine, and the pieces the sweep engine (`sweep.rs`) shares with them
//! (initialisation, draining a frontier range, stripes, out-of-core paging).
//!
//! Level 0 holds the decided states of initialisation. Draining level k, each
//! state's predecessors are visited: from a LOSS state an undecided
//! predecessor becomes WIN, from a WIN state the predecessor loses one move
//! and becomes LOSS when none is left; either way it joins level k + 1. A
//! WIN decided at level k + 1 has no LOSS successor below level k and one at
//! level k, so k + 1 is 1 + its nearest LOSS successor's distance; a LOSS
//! decided at level k + 1 saw its last successor turn WIN at level k, so
//! k + 1 is 1 + its farthest successor's distance: the level is exactly the
//! distance to end, whatever order states are drained in within a level.
//! That is why the parallel engine reproduces the sequential one bit for bit.

use std::ops::Range;
use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

use rayon::prelude::*;

use super::common::{Flow, Observer, Progress};
use crate::game::{Game, Initial};
use crate::outcome::{Dte, Outcome};
use crate::storage::cells::Cells;
use crate::storage::frontier::{Frontier, STATES_PER_SUMMARY_WORD};

/// Stripes per worker in each phase of a striped level (see `stripe_len`).
const STRIPES_PER_WORKER: usize = 4;

/// States initialised per task: a multiple of the states covered by 64
/// summary words, so tasks never share a frontier word.
const INIT_CHUNK: u64 = STATES_PER_SUMMARY_WORD * 64;

/// Out-of-core paging of the solve's per-state arrays, by state range.
pub(super) trait Pager: Sync {
    /// Drops the resident pages of states `range` from every array, after
    /// writing the modified ones to their scratch files.
    fn release(&self, range: Range<u64>);
    /// Maps the pages of states `range` writable ahead of use: one fault
    /// per page instead of a read fault and then a copy-on-write fault with
    /// its TLB shootdown.
    fn prefault(&self, range: Range<u64>);
}

/// Everything a propagation needs besides the cell array.
pub(super) struct Work<'a, G> {
    pub(super) game: &'a G,
    pub(super) dte: Option<&'a [AtomicU16]>,
    pub(super) frontiers: [Frontier; 2],
    pub(super) track: Option<u64>,
    pub(super) observer: Option<Observer<'a>>,
    /// Out-of-core mode: how many states to work on before dropping the
    /// pages behind them, and the pager of the arrays.
    pub(super) window: Option<(u64, &'a dyn Pager)>,
}

/// How the work of a level (or a sweep's window) is cut, computed once per
/// solve by [`Work::schedule`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Schedule {
    /// One pass over the whole frontier on the calling thread.
    Whole,
    /// Stripes of `stripe` summary words (at least one predecessor radius),
    /// three phases apart when `parallel`, so every update is a plain load
    /// and store. Out of core, `band` (a whole number of stripes that fits
    /// the memory window) bounds the resident pages; `None` in memory.
    Striped {
        stripe: usize,
        band: Option<usize>,
        parallel: bool,
    },
    /// Games without a predecessor radius, in parallel: small ranges of the
    /// frontier with atomic updates.
    Shared,
}

/// What propagation found besides the labels.
pub(super) struct Propagated {
    pub(super) levels: u32,
    pub(super) tracked_dte: Option<Dte>,
    /// Per side: the last level at which a state of that side was decided
    /// and the smallest such state.
    pub(super) deepest: [Option<(Dte, u64)>; 2],
    /// Sweeps of the sweep engine (0 for the level engines).
    pub(super) sweeps: u32,
    /// The level (the sweep engine: the sweep) after which the observer's
    /// [`Flow::Stop`] ended the propagation with states still pending;
    /// `None` when it ran to the end.
    pub(super) stopped: Option<u32>,
}

/// What one pass over (part of) a level decided.
#[derive(Clone, Copy)]
pub(super) struct Decided {
    pub(super) count: u64,
    /// Smallest state decided, per side (`u64::MAX` when none).
    witness: [u64; 2],
}

impl Decided {
    pub(super) const NONE: Decided = Decided {
        count: 0,
        witness: [u64::MAX; 2],
    };

    pub(super) fn merge(self, other: Decided) -> Decided {
        Decided {
            count: self.count + other.count,
            witness: [
                self.witness[0].min(other.witness[0]),
                self.witness[1].min(other.witness[1]),
            ],
        }
    }

    #[inline]
    fn add(&mut self, side: usize, s: u64) {
        self.count += 1;
        self.witness[side] = self.witness[side].min(s);
    }
}

impl<G: Game> Work<'_, G> {
    /// Level 0: every state's initial value or move count; decided states
    /// join the first frontier. Init chunks cover whole summary words, so
    /// no two tasks share a frontier word and plain updates are enough even
    /// in parallel.
    pub(super) fn initialise<C: Cells + ?Sized>(&self, cells: &C, parallel: bool) -> Decided {
        let n = self.game.state_count();
        let chunks = n.div_ceil(INIT_CHUNK);
        let init = |k: u64| -> Decided {
            let mut decided = Decided::NONE;
            let range = k * INIT_CHUNK..((k + 1) * INIT_CHUNK).min(n);
            self.game.for_each_initial(range, |s, initial| {
                cells.init(s as usize, initial);
                if let Initial::Decided(_) = initial {
                    self.frontiers[0].insert::<false>(s);
                    decided.add(self.game.side(s), s);
                }
            });
            self.release(k * INIT_CHUNK..((k + 1) * INIT_CHUNK).min(n));
            decided
        };
        if parallel {
            (0..chunks)
                .into_par_iter()
                .map(init)
                .reduce(|| Decided::NONE, Decided::merge)
        } else {
            (0..chunks).map(init).fold(Decided::NONE, Decided::merge)
        }
    }

    /// How levels (or sweeps) are cut into work, decided once per solve
    /// from the game's radius, the thread count of the current pool and the
    /// out-of-core window.
    pub(super) fn schedule(&self, parallel: bool) -> Schedule {
        let stripe = self.stripe_len();
        let band = self.band_len(stripe);
        match (parallel, stripe) {
            (true, Some(stripe)) => Schedule::Striped {
                stripe,
                band,
                parallel: true,
            },
            (true, None) => Schedule::Shared,
            // One thread: stripes matter only out of core, where bands of
            // whole stripes bound the resident pages.
            (false, Some(stripe)) if band.is_some() => Schedule::Striped {
                stripe,
                band,
                parallel: false,
            },
            (false, _) => Schedule::Whole,
        }
    }

    /// The level engines (sequential and parallel): drains level after
    /// level from `initial` (level 0) until a level decides nothing.
    pub(super) fn levels<C: Cells + ?Sized>(
        &self,
        cells: &C,
        initial: Decided,
        schedule: Schedule,
    ) -> Propagated {
        let n = self.game.state_count();
        let mut in_level = initial;
        let mut deepest = [None; 2];
        let mut decided = 0;
        let mut level = 0u32;
        let mut tracked_dte = None;
        let mut current = 0;
        let mut stopped = None;
        loop {
            if let Some(t) = self.track {
                if tracked_dte.is_none() && cells.outcome(t as usize) != Outcome::Draw {
                    tracked_dte = Some(Dte(level));
                }
            }
            decided += in_level.count;
            for (deepest, &witness) in deepest.iter_mut().zip(&in_level.witness) {
                if witness != u64::MAX {
                    *deepest = Some((Dte(level), witness));
                }
            }
            let flow = self.observer.map_or(Flow::Continue, |observe| {
                observe(&Progress {
                    level,
                    sweeping: false,
                    decided_in_level: in_level.count,
                    decided,
                    states: n,
                })
            });
            if in_level.count == 0 {
                break;
            }
            if flow == Flow::Stop {
                stopped = Some(level);
                break;
            }
            let (cur, next) = (&self.frontiers[current], &self.frontiers[1 - current]);
            in_level = match schedule {
                Schedule::Whole => {
                    self.drain::<C, false>(cells, cur, next, level, 0..cur.summary_len())
                }
                Schedule::Striped {
                    stripe,
                    band,
                    parallel,
                } => {
                    let band = band.unwrap_or(cur.summary_len());
                    self.level_banded::<C>(cells, [cur, next], level, stripe, band, parallel)
                }
                Schedule::Shared => self.level_shared::<C>(cells, cur, next, level),
            };
            level += 1;
            current = 1 - current;
        }
        Propagated {
            // The last level decided nothing.
            levels: level.saturating_sub(1),
            tracked_dte,
            deepest,
            sweeps: 0,
            stopped,
        }
    }

    /// Out-of-core mode: drops the resident pages of states `range` from
    /// every array (they stay on disk).
    pub(super) fn release(&self, range: Range<u64>) {
        if let Some((_, pager)) = self.window {
            pager.release(range.clone());
            for frontier in &self.frontiers {
                frontier.release(range.clone());
            }
        }
    }

    /// Out-of-core mode: maps the pages of states `range` writable in every
    /// array ahead of use.
    pub(super) fn prefault(&self, range: Range<u64>) {
        if let Some((_, pager)) = self.window {
            pager.prefault(range.clone());
            for frontier in &self.frontiers {
                frontier.prefault(range.clone());
            }
        }
    }

    /// Stripe length in summary words for striped levels, when the game
    /// bounds its predecessor distance and the array holds at least three
    /// stripes.
    fn stripe_len(&self) -> Option<usize> {
        let radius = self.game.predecessor_radius()?;
        // A stripe at least as long as the radius can only update itself and
        // its two neighbours; whole summary words keep frontier words
        // exclusive too.
        let radius_words = radius.div_ceil(STATES_PER_SUMMARY_WORD).max(1) as usize;
        let total = self.frontiers[0].summary_len();
        if total < 3 * radius_words {
            return None;
        }
        // Longer stripes than the radius pay: a stripe's updates reach one
        // radius beyond each end, so a stripe of one radius touches three
        // radii of memory that is cold when it starts. Aim at a few stripes
        // per worker and phase (for load balance), each several radii long.
        let threads = rayon::current_num_threads().max(1);
        // Out of core the same balance applies within one band (the window).
        let span = match self.window {
            Some((window, _)) => total.min((window / STATES_PER_SUMMARY_WORD) as usize),
            None => total,
        };
        Some((span / (3 * threads * STRIPES_PER_WORKER)).max(radius_words))
    }

    /// Band length in summary words for out-of-core levels: a whole number
    /// of stripes that fits the window.
    fn band_len(&self, stripe: Option<usize>) -> Option<usize> {
        let (window, _) = self.window?;
        let stripe = stripe?;
        let stripes = (window / STATES_PER_SUMMARY_WORD) as usize / stripe;
        Some(stripe * stripes.max(1))
    }

    /// One level, band after band in state order; within a band, stripes
    /// `i` with the same `i % 3` run concurrently in three phases (when
    /// `parallel`). Concurrent stripes' update zones (the stripe and its
    /// two neighbours) are disjoint, so every update is a plain load and
    /// store. In out-of-core mode, pages that no later band can touch are
    /// dropped after each band, which bounds resident memory by about one
    /// band plus two radii.
    fn level_banded<C: Cells + ?Sized>(
        &self,
        cells: &C,
        [cur, next]: [&Frontier; 2],
        level: u32,
        stripe: usize,
        band: usize,
        parallel: bool,
    ) -> Decided {
        let len = cur.summary_len();
        let n = self.game.state_count();
        let radius = self.game.predecessor_radius().unwrap_or(n);
        let mut decided = Decided::NONE;
        let mut released = 0;
        for b0 in (0..len).step_by(band) {
            let b1 = (b0 + band).min(len);
            let in_band = striped(b0..b1, stripe, parallel, |range| {
                self.drain::<C, false>(cells, cur, next, level, range)
            });
            decided = decided.merge(in_band);
            if self.window.is_some() {
                let safe = (b1 as u64 * STATES_PER_SUMMARY_WORD)
                    .saturating_sub(radius)
                    .min(n);
                if safe > released {
                    self.release(released..safe);
                    released = safe;
                }
            }
        }
        self.release(released..n);
        decided
    }

    /// One level for games without a locality bound: workers take small
    /// ranges of the frontier and update shared cells atomically.
    fn level_shared<C: Cells + ?Sized>(
        &self,
        cells: &C,
        cur: &Frontier,
        next: &Frontier,
        level: u32,
    ) -> Decided {
        let len = cur.summary_len();
        // Enough tasks for load balance (work per region varies a lot), few
        // enough that empty tasks cost little.
        let threads = rayon::current_num_threads().max(1);
        let per_task = (len / (threads * 16)).clamp(1, 256);
        (0..len.div_ceil(per_task))
            .into_par_iter()
            .map(|t| {
                let range = t * per_task..((t + 1) * per_task).min(len);
                self.drain::<C, true>(cells, cur, next, level, range)
            })
            .reduce(|| Decided::NONE, Decided::merge)
    }

    /// Drains `cur` over `range` (summary words) and decides predecessors
    /// into `next`; returns what it decided.
    #[inline]
    pub(super) fn drain<C: Cells + ?Sized, const SHARED: bool>(
        &self,
        cells: &C,
        cur: &Frontier,
        next: &Frontier,
        level: u32,
        range: std::ops::Range<usize>,
    ) -> Decided {
        let mut decided = Decided::NONE;
        let dte = (level + 1).min(u32::from(u16::MAX)) as u16;
        // Stripes, bands and page releases all trust the radius: a
        // predecessor beyond it would be updated by two stripes at once or
        // after its pages were released, and silently lost.
        let radius = if cfg!(debug_assertions) {
            self.game.predecessor_radius()
        } else {
            None
        };
        cur.drain(range, |s| {
            let loss = cells.outcome(s as usize) == Outcome::Loss;
            self.game.for_each_predecessor(s, |u| {
                debug_assert!(
                    radius.is_none_or(|r| u.abs_diff(s) <= r),
                    "predecessor {u} of state {s} lies beyond the game's predecessor radius {radius:?}"
                );
                let now = if loss {
                    cells.try_win::<SHARED>(u as usize)
                } else {
                    cells.try_refute::<SHARED>(u as usize)
                };
                if now {
                    next.insert::<SHARED>(u);
                    if let Some(table) = self.dte {
                        table[u as usize].store(dte, Relaxed);
                    }
                    decided.add(self.game.side(u), u);
                }
            });
        });
        decided
    }
}

/// Runs `drain` over `range` (summary words) cut into stripes of `stripe`
/// words. In parallel, stripes `i` with the same `i % 3` run concurrently,
/// one phase after another: a stripe at least one predecessor radius long
/// only updates itself and its two neighbours, so concurrent stripes never
/// touch the same cell or frontier word and `drain` may use plain updates.
pub(super) fn striped(
    range: Range<usize>,
    stripe: usize,
    parallel: bool,
    drain: impl Fn(Range<usize>) -> Decided + Sync,
) -> Decided {
    let stripes = (range.end - range.start).div_ceil(stripe);
    let run =
        |i: usize| drain(range.start + i * stripe..(range.start + (i + 1) * stripe).min(range.end));
    if parallel {
        (0..3)
            .map(|phase| {
                (phase..stripes)
                    .into_par_iter()
                    .step_by(3)
                    .map(run)
                    .reduce(|| Decided::NONE, Decided::merge)
            })
            .fold(Decided::NONE, Decided::merge)
    } else {
        (0..stripes).map(run).fold(Decided::NONE, Decided::merge)
    }
}
