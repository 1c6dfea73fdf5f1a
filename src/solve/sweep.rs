//! The sweep engine ([`Engine::Sweep`](super::Engine::Sweep)): value-only
//! propagation for arrays larger than memory.
//!
//! Instead of one pass over the whole array per level, it sweeps bands of
//! the array alternately forwards and backwards and drains, inside a window
//! of two adjacent bands, every pending state before moving on (states
//! decided ahead of the sweep are handled later in the same sweep, those
//! behind it in the next one). Values are the unique fixpoint whatever the
//! order; distances are not computed. Out of core this turns hundreds of
//! whole-array passes into a few sequential ones.

use std::ops::Range;

use super::common::{Flow, Progress};
use super::propagate::{striped, Decided, Propagated, Schedule, Work};
use crate::game::Game;
use crate::storage::cells::Cells;
use crate::storage::frontier::{Frontier, STATES_PER_SUMMARY_WORD};

impl<G: Game> Work<'_, G> {
    /// Runs sweeps from the pending states of `initial` (the first
    /// frontier) until none is pending.
    pub(super) fn sweeps<C: Cells + ?Sized>(
        &self,
        cells: &C,
        initial: Decided,
        schedule: Schedule,
    ) -> Propagated {
        // Only stripes and the out-of-core band matter here: without a
        // radius a window is drained on the calling thread.
        let (stripe, band, parallel) = match schedule {
            Schedule::Striped {
                stripe,
                band,
                parallel,
            } => (Some(stripe), band, parallel),
            Schedule::Whole | Schedule::Shared => (None, None, false),
        };
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
        // Whether the observer said stop, honoured between sweeps: the
        // level a stop reports counts whole sweeps, as the observer's do.
        let stop = std::cell::Cell::new(false);
        let observe = |sweep: u32, decided: u64| {
            if let Some(observe) = self.observer {
                let flow = observe(&Progress {
                    level: sweep,
                    sweeping: true,
                    decided_in_level: 0,
                    decided,
                    states: n,
                });
                if flow == Flow::Stop {
                    stop.set(true);
                }
            }
        };
        observe(0, decided);
        let mut sweeps = 0u32;
        let mut stopped = None;
        while pending.any(0..len) {
            if stop.get() {
                stopped = Some(sweeps);
                break;
            }
            let forward = sweeps.is_multiple_of(2);
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
        Propagated {
            levels: 0,
            tracked_dte: None,
            deepest: [None; 2],
            sweeps,
            stopped,
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
}
