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

use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

use rayon::prelude::*;

use super::{Engine, Progress};
use crate::game::{Game, Initial};
use crate::storage::cells::Cells;
use crate::storage::frontier::{Frontier, STATES_PER_SUMMARY_WORD};
use crate::{Dte, Outcome};

/// States initialised per task: a multiple of the states covered by 64
/// summary words, so tasks never share a frontier word.
const INIT_CHUNK: u64 = STATES_PER_SUMMARY_WORD * 64;

/// Everything a propagation needs besides the cell array.
pub(super) struct Work<'a, G> {
    pub(super) game: &'a G,
    pub(super) dte: Option<&'a [AtomicU16]>,
    pub(super) frontiers: [Frontier; 2],
    pub(super) track: Option<u64>,
    pub(super) observer: Option<&'a (dyn Fn(&Progress) + Sync)>,
}

/// What propagation found besides the labels.
pub(super) struct Outcomes {
    pub(super) levels: u32,
    pub(super) tracked_dte: Option<Dte>,
    /// Per side: the last level at which a state of that side was decided
    /// and the smallest such state.
    pub(super) deepest: [Option<(Dte, u64)>; 2],
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
        let parallel = engine == Engine::Parallel;
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
        let stripe = if parallel { self.stripe_len() } else { None };
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
            for side in 0..2 {
                if in_level.witness[side] != u64::MAX {
                    deepest[side] = Some((Dte(level), in_level.witness[side]));
                }
            }
            if let Some(observe) = self.observer {
                observe(&Progress {
                    level,
                    decided_in_level: in_level.count,
                    decided,
                    states: n,
                });
            }
            if in_level.count == 0 {
                break;
            }
            let (cur, next) = (&self.frontiers[current], &self.frontiers[1 - current]);
            in_level = match (parallel, stripe) {
                (false, _) => self.drain::<C, false>(cells, cur, next, level, 0..cur.summary_len()),
                (true, Some(stripe)) => self.level_striped::<C>(cells, cur, next, level, stripe),
                (true, None) => self.level_shared::<C>(cells, cur, next, level),
            };
            level += 1;
            current = 1 - current;
        }
        Outcomes {
            // The last level decided nothing.
            levels: level.saturating_sub(1),
            tracked_dte,
            deepest,
        }
    }

    /// Stripe length in summary words for striped parallel levels, when the
    /// game bounds its predecessor distance and the array holds at least
    /// three stripes.
    fn stripe_len(&self) -> Option<usize> {
        let radius = self.game.predecessor_radius()?;
        // A stripe at least as long as the radius can only update itself and
        // its two neighbours; whole summary words keep frontier words
        // exclusive too.
        let words = radius.div_ceil(STATES_PER_SUMMARY_WORD).max(1) as usize;
        let total = self.frontiers[0].summary_len();
        (total >= 3 * words).then_some(words)
    }

    /// One level in three phases: stripes `i` with `i % 3 == phase` run in
    /// parallel. Their update zones (the stripe and its two neighbours) are
    /// disjoint, so every update is a plain load and store.
    fn level_striped<C: Cells + ?Sized>(
        &self,
        cells: &C,
        cur: &Frontier,
        next: &Frontier,
        level: u32,
        stripe: usize,
    ) -> Decided {
        let len = cur.summary_len();
        let stripes = len.div_ceil(stripe);
        (0..3)
            .map(|phase| {
                (phase..stripes)
                    .into_par_iter()
                    .step_by(3)
                    .map(|i| {
                        let range = i * stripe..((i + 1) * stripe).min(len);
                        self.drain::<C, false>(cells, cur, next, level, range)
                    })
                    .reduce(|| Decided::NONE, Decided::merge)
            })
            .fold(Decided::NONE, Decided::merge)
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
