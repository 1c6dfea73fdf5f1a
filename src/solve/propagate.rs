//! Level-synchronous retrograde propagation, shared by the sequential and
//! the parallel engine.
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

use super::{Engine, Progress};
use crate::game::{Game, Initial};
use crate::storage::cells::Cells;
use crate::storage::frontier::{Frontier, STATES_PER_SUMMARY_WORD};
use crate::{Dte, Outcome};

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
    pub(super) observer: Option<&'a (dyn Fn(&Progress) + Sync)>,
    /// Out-of-core mode: how many states to work on before dropping the
    /// pages behind them, and the pager of the arrays.
    pub(super) window: Option<(u64, &'a dyn Pager)>,
}

/// What propagation found besides the labels.
pub(super) struct Outcomes {
    pub(super) levels: u32,
    pub(super) tracked_dte: Option<Dte>,
    /// Per side: the last level at which a state of that side was decided
    /// and the smallest such state.
    pub(super) deepest: [Option<(Dte, u64)>; 2],
    /// Sweeps of the sweep engine (0 for the level engines).
    pub(super) sweeps: u32,
}

/// What one pass over (part of) a level decided.
#[derive(Clone, Copy)]
struct Decided {
    count: u64,
    /// Smallest state decided, per side (`u64::MAX` when none).
    witness: [u64; 2],
}

impl Decided {
    const NONE: Decided = Decided {
        count: 0,
        witness: [u64::MAX; 2],
    };

    fn merge(self, other: Decided) -> Decided {
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
    pub(super) fn run<C: Cells + ?Sized>(&self, cells: &C, engine: Engine) -> Outcomes {
        let parallel = matches!(engine, Engine::Parallel | Engine::Sweep);
        let n = self.game.state_count();
        let chunks = n.div_ceil(INIT_CHUNK);
        // Init chunks cover whole summary words, so no two tasks share a
        // frontier word and plain updates are enough even in parallel.
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
        let mut in_level = if parallel {
            (0..chunks)
                .into_par_iter()
                .map(init)
                .reduce(|| Decided::NONE, Decided::merge)
        } else {
            (0..chunks).map(init).fold(Decided::NONE, Decided::merge)
        };
        let mut deepest = [None; 2];
        let stripe = self.stripe_len();
        let band = self.band_len(stripe);
        if engine == Engine::Sweep {
            return self.run_sweeps(cells, in_level, parallel, stripe, band);
        }
        let mut decided = 0;
        let mut level = 0u32;
        let mut tracked_dte = None;
        let mut current = 0;
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
            if let Some(observe) = self.observer {
                observe(&Progress {
                    level,
                    sweeping: false,
                    decided_in_level: in_level.count,
                    decided,
                    states: n,
                });
            }
            if in_level.count == 0 {
                break;
            }
            let (cur, next) = (&self.frontiers[current], &self.frontiers[1 - current]);
            in_level = match (parallel, stripe, band) {
                (_, Some(stripe), Some(band)) => {
                    self.level_banded::<C>(cells, [cur, next], level, stripe, band, parallel)
                }
                (false, _, _) => {
                    self.drain::<C, false>(cells, cur, next, level, 0..cur.summary_len())
                }
                (true, Some(stripe), None) => {
                    let all = cur.summary_len();
                    self.level_banded::<C>(cells, [cur, next], level, stripe, all, true)
                }
                (true, None, _) => self.level_shared::<C>(cells, cur, next, level),
            };
            level += 1;
            current = 1 - current;
        }
        Outcomes {
            // The last level decided nothing.
            levels: level.saturating_sub(1),
            tracked_dte,
            deepest,
            sweeps: 0,
        }
    }

    /// The value-only engine: instead of one pass over the whole array per
    /// level, sweeps bands of the array alternately forwards and backwards
    /// and drains, inside each band, every pending state before moving on
    /// (states decided ahead of the sweep are handled later in the same
    /// sweep, those behind it in the next one). Values are the unique
    /// fixpoint whatever the order; distances are not computed. Out of core
    /// this turns hundreds of whole-array passes into a few sequential ones.
    fn run_sweeps<C: Cells + ?Sized>(
        &self,
        cells: &C,
        initial: Decided,
        parallel: bool,
        stripe: Option<usize>,
        band: Option<usize>,
    ) -> Outcomes {
        let pending = &self.frontiers[0];
        let n = self.game.state_count();
        let len = pending.summary_len();
        let radius = self.game.predecessor_radius().unwrap_or(n);
        // Windows span two bands, so a band gets half the memory window.
        let band = match (band, stripe) {
            (Some(band), Some(stripe)) => (band / 2).div_ceil(stripe).max(1) * stripe,
            _ => len,
        }
        .max(1);
        let bands: Vec<Range<usize>> = (0..len)
            .step_by(band)
            .map(|b0| b0..(b0 + band).min(len))
            .collect();
        let mut decided = initial.count;
        let observe = |sweep: u32, decided: u64| {
            if let Some(observe) = self.observer {
                observe(&Progress {
                    level: sweep,
                    sweeping: true,
                    decided_in_level: 0,
                    decided,
                    states: n,
                });
            }
        };
        observe(0, decided);
        let mut sweeps = 0u32;
        while pending.any(0..len) {
            let forward = sweeps % 2 == 0;
            // Pages outside [low, high) have been released in this sweep.
            let (mut low, mut high) = (0, n);
            let order: Vec<&Range<usize>> = if forward {
                bands.iter().collect()
            } else {
                bands.iter().rev().collect()
            };
            let mut previous: Option<&Range<usize>> = None;
            // Pages of states before (forward) or from (backward) this
            // edge were prefaulted in this sweep.
            let mut ready = if forward { 0 } else { n };
            for b in order {
                // The window is this band and the one before it in sweep
                // order: dependencies that cross a band boundary back and
                // forth are settled here instead of costing a sweep each.
                let window = match previous {
                    Some(p) => p.start.min(b.start)..p.end.max(b.end),
                    None => b.clone(),
                };
                previous = Some(b);
                if self.window.is_some() && pending.any(window.clone()) {
                    // Everything a drain of this band can touch: the band
                    // and a radius on each side; the part behind is ready.
                    let start = (b.start as u64 * STATES_PER_SUMMARY_WORD).saturating_sub(radius);
                    let end = (b.end as u64 * STATES_PER_SUMMARY_WORD)
                        .saturating_add(radius)
                        .min(n);
                    let (start, end) = if forward {
                        (start.max(ready), end)
                    } else {
                        (start, end.min(ready))
                    };
                    if start < end {
                        self.prefault(start..end);
                        ready = if forward { end } else { start };
                    }
                }
                while pending.any(window.clone()) {
                    let got = match stripe {
                        Some(stripe) => {
                            self.band_pass::<C>(cells, pending, window.clone(), stripe, parallel)
                        }
                        None => self.drain::<C, false>(cells, pending, pending, 0, window.clone()),
                    };
                    decided += got.count;
                    observe(sweeps + 1, decided);
                }
                if self.window.is_some() {
                    // Band `b` stays resident for the next window; what lies
                    // behind it (beyond a radius) is done for this sweep.
                    let start = b.start as u64 * STATES_PER_SUMMARY_WORD;
                    let end = (b.end as u64 * STATES_PER_SUMMARY_WORD).min(n);
                    if forward {
                        let safe = start.saturating_sub(radius);
                        if safe > low {
                            self.release(low..safe);
                            low = safe;
                        }
                    } else {
                        let safe = end.saturating_add(radius).min(n);
                        if safe < high {
                            self.release(safe..high);
                            high = safe;
                        }
                    }
                }
            }
            self.release(low..high);
            sweeps += 1;
        }
        Outcomes {
            levels: 0,
            tracked_dte: None,
            deepest: [None; 2],
            sweeps,
        }
    }

    /// One pass over band `b` of the pending set, in three phases of
    /// stripes (see `level_banded`); states it decides join the same set.
    fn band_pass<C: Cells + ?Sized>(
        &self,
        cells: &C,
        pending: &Frontier,
        b: Range<usize>,
        stripe: usize,
        parallel: bool,
    ) -> Decided {
        striped(b, stripe, parallel, |range| {
            self.drain::<C, false>(cells, pending, pending, 0, range)
        })
    }

    /// Out-of-core mode: drops the resident pages of states `range` from
    /// every array (they stay on disk).
    fn release(&self, range: Range<u64>) {
        if let Some((_, pager)) = self.window {
            pager.release(range.clone());
            for frontier in &self.frontiers {
                frontier.release(range.clone());
            }
        }
    }

    /// Out-of-core mode: maps the pages of states `range` writable in every
    /// array ahead of use.
    fn prefault(&self, range: Range<u64>) {
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
    fn drain<C: Cells + ?Sized, const SHARED: bool>(
        &self,
        cells: &C,
        cur: &Frontier,
        next: &Frontier,
        level: u32,
        range: std::ops::Range<usize>,
    ) -> Decided {
        let mut decided = Decided::NONE;
        let dte = (level + 1).min(u32::from(u16::MAX)) as u16;
        cur.drain(range, |s| {
            let loss = cells.outcome(s as usize) == Outcome::Loss;
            self.game.for_each_predecessor(s, |u| {
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
fn striped(
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
