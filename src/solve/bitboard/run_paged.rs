//! The driver's out-of-core steps (`run.rs`'s [`Run`] over the passes of
//! `blocking.rs`): level 0 a window of cop cells at a time, a pass of
//! several levels, and dropping every page after a checkpoint.

use rayon::prelude::*;

use super::bits::outcome_in;
use super::kernel::Decisions;
use super::masks::init_record;
use super::run::Run;
use crate::error::Result;
use crate::outcome::Outcome;
use crate::solve::common::write_failed;

/// Out of core (the passes of `blocking.rs`).
impl Run<'_> {
    /// Level 0, a window of cop cells at a time out of core (of this
    /// process's band and its halo rows in a partitioned run, which counts
    /// its band's decisions and swaps them).
    ///
    /// # Errors
    /// What the link meets (a partitioned run only).
    pub(super) fn start(&mut self, words: &mut [u64]) -> Result<Decisions> {
        let Some(blocked) = self.blocked.take() else {
            return self.initialise(words);
        };
        let (layout, masks) = (self.layout, self.masks);
        let record = layout.record();
        let all = self.cells.clone();
        // A band's halo rows too: level 0 reads nothing beyond its cell.
        let computed = if blocked.band {
            blocked.cells(layout)
        } else {
            all.clone()
        };
        let mut count = 0;
        for first in computed.clone().step_by(blocked.window_cells.max(1)) {
            let cells = first..(first + blocked.window_cells).min(computed.end);
            count += words[cells.start * record..cells.end * record]
                .par_chunks_mut(record)
                .enumerate()
                .map(|(i, r)| {
                    let p = cells.start + i;
                    let decided = init_record(layout, masks, p, r);
                    if all.contains(&p) {
                        decided
                    } else {
                        0
                    }
                })
                .sum::<u64>();
            blocked.release(layout, cells);
        }
        self.blocked = Some(blocked);
        // Every cop cell's captures are decided: the smallest states of
        // each side are the first cop cell's, thief cell 0.
        let first = 2 * all.start as u64 * layout.cells as u64;
        let mut stats = [Decisions {
            count,
            witness: if all.is_empty() && self.link.is_some() {
                [u64::MAX; 2]
            } else {
                [first, first + 1]
            },
            tracked: false,
        }];
        if self.link.is_some() {
            if let Some(t) = self.options.track {
                let (cop, ..) = layout.track(t);
                stats[0].tracked =
                    all.contains(&cop) && outcome_in(layout, t, |i| words[i]) != Outcome::Draw;
            }
            self.exchange(words, &mut stats)?;
        }
        Ok(stats[0])
    }

    /// Out of core: drops every page of the records and distances (after
    /// a checkpoint read or wrote them all). A no-op in memory.
    pub(super) fn release_all(&self) {
        if let Some(blocked) = &self.blocked {
            blocked.release(self.layout, 0..self.layout.cells);
        }
    }

    /// The next levels from `level` on: one, or two at a time in memory
    /// when the bands are tall enough, or a pass of several out of core.
    /// Returns each level's stats.
    ///
    /// # Errors
    /// Out of core, [`Error::Scratch`] when a pass could not write its rows
    /// back to the scratch files (a full disk): the rows stayed in memory,
    /// so no state is lost, but the next passes would pile them up past
    /// the cap.
    pub(super) fn step(&mut self, words: &mut [u64], level: u32) -> Result<Vec<Decisions>> {
        let Some(mut blocked) = self.blocked.take() else {
            return Ok(if self.two_levels {
                self.two_levels(words, level)?.to_vec()
            } else {
                vec![self.level(words, level)?]
            });
        };
        let ctx = self.context(level);
        let mut stats = blocked.pass(&ctx, words, &mut self.cop_changed, &mut self.thief_changed);
        let failed = blocked.take_write_error();
        self.blocked = Some(blocked);
        write_failed(failed, &self.options.backing)?;
        // A partitioned band's pass: its edge rows go to the neighbours
        // and theirs come back before the next.
        if self.link.is_some() {
            self.exchange(words, &mut stats)?;
        }
        Ok(stats)
    }

    /// After a partitioned band's pass (or level 0): the deep halo swap
    /// of its `L` levels ([`Swap::swap_deep`](super::run::Swap)), the
    /// stats becoming the cluster's.
    fn exchange(&mut self, words: &mut [u64], stats: &mut [Decisions]) -> Result<()> {
        let Run {
            layout,
            blocked,
            link,
            cop_changed,
            thief_changed,
            cells,
            ..
        } = self;
        match (blocked.as_ref().filter(|b| b.band), link.as_deref_mut()) {
            (Some(blocked), Some(peers)) => peers.swap_deep(
                layout,
                words,
                [cop_changed, thief_changed],
                &blocked.grown,
                cells.clone(),
                stats,
            ),
            _ => self.after_step(words, stats),
        }
    }
}
