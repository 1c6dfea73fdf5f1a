//! What a k-cop solve returns ([`KSolution`]: the attractors, levels, the
//! distances asked for) and what it needs ([`kcop_memory_for`]), apart
//! from the engine that fills it.

use super::store::Words;
use crate::games::multiset::multiset_count;
use crate::outcome::{Dte, Outcome};

/// The result of a k-cop solve: the four attractors, levels, and the
/// distances asked for.
pub struct KSolution {
    /// Keeps the resident set under the solve's cap while the arrays in
    /// scratch files are read; first, so it stops before they are unmapped.
    pub(super) pager: Option<crate::storage::pager::Pager>,
    pub(super) n: usize,
    pub(super) k: usize,
    pub(super) words: usize,
    pub(super) cw: Words<u64>,
    pub(super) cl: Words<u64>,
    pub(super) tl: Words<u64>,
    pub(super) tw: Words<u64>,
    /// Levels computed (the largest distance to end found).
    pub levels: u32,
    pub(super) dte: Option<Words<u16>>,
    /// Distance of [`KcopOptions::start`](super::KcopOptions::start) if decided.
    pub start_dte: Option<u32>,
    /// The smallest-rank multiset whose cops-to-move row is all WIN at the
    /// least level, with that level (its capture time in plies).
    pub placement: Option<(Vec<u32>, u32)>,
    /// The largest distance to end of a cops-to-move state and the least
    /// state index at it (as [`Solution::deepest`](crate::Solution::deepest)
    /// for side 0); `None` after a resume, whose earlier levels it does
    /// not know, unless a level after it decided some.
    pub deepest_cops: Option<(u32, u64)>,
}

impl KSolution {
    /// Number of cells.
    #[must_use]
    pub fn cells(&self) -> usize {
        self.n
    }

    /// States by side to move and value: `[cops win, cops lose, cops
    /// draw, thief wins, thief loses, thief draws]`.
    #[must_use]
    pub fn counts(&self) -> [u64; 6] {
        let ones = |v: &[u64]| v.iter().map(|w| u64::from(w.count_ones())).sum::<u64>();
        let per_side = multiset_count(self.n, self.k) * self.n as u64;
        let (cw, cl, tw, tl) = (
            ones(&self.cw),
            ones(&self.cl),
            ones(&self.tw),
            ones(&self.tl),
        );
        [cw, cl, per_side - cw - cl, tw, tl, per_side - tw - tl]
    }

    /// [`KSolution::state_value`] of the state of `s` (the unit tests'
    /// reading by position).
    #[cfg(test)]
    pub(crate) fn value(&self, s: &crate::games::position::Position) -> (Outcome, Option<Dte>) {
        let r = crate::games::multiset::rank_multiset(&s.cops);
        let turn = u64::from(s.turn == crate::games::cops::Turn::Thief);
        self.state_value((r * self.n as u64 + u64::from(s.thief)) * 2 + turn)
    }

    /// Value of the state for the side to move, with its distance to end
    /// when decided and the distance table was kept (`None`: no table or a
    /// draw), of the state with index `(rank(cops) * n + thief) * 2 + turn`, turn 0 for the
    /// cops to move: the layout of `KCops` (`games/kcops.rs`), so its state
    /// indices read this solution directly.
    ///
    /// # Panics
    /// If `index` is not below `C(n + k - 1, k) * n * 2`.
    #[must_use]
    pub fn state_value(&self, index: u64) -> (Outcome, Option<Dte>) {
        let (rt, cops_to_move) = ((index / 2) as usize, index.is_multiple_of(2));
        let (r, t) = (rt / self.n, rt % self.n);
        let outcome = self.outcome_at(r, t, cops_to_move);
        let dte = self.dte.as_ref().and_then(|d| {
            let v = d[index as usize];
            (v != u16::MAX).then_some(Dte(u32::from(v)))
        });
        (outcome, dte)
    }

    /// The value of the state with index `index` (as
    /// [`KSolution::state_value`]) without its distance.
    #[inline]
    pub(crate) fn outcome(&self, index: u64) -> Outcome {
        let rt = (index / 2) as usize;
        self.outcome_at(rt / self.n, rt % self.n, index.is_multiple_of(2))
    }

    /// The value of multiset rank `r`, thief cell `t`, for the side to
    /// move.
    #[inline]
    fn outcome_at(&self, r: usize, t: usize, cops_to_move: bool) -> Outcome {
        // `cl` and `tw` are empty where the thief can win nowhere.
        let bit = |v: &[u64]| !v.is_empty() && v[r * self.words + t / 64] >> (t % 64) & 1 == 1;
        let (win, loss) = if cops_to_move {
            (bit(&self.cw), bit(&self.cl))
        } else {
            (bit(&self.tw), bit(&self.tl))
        };
        if win {
            Outcome::Win
        } else if loss {
            Outcome::Loss
        } else {
            Outcome::Draw
        }
    }

    /// Packed 2-bit values of the states `range` (state `range.start + i`
    /// at bits `2 (i % 4)` of byte `i / 4`; 0 draw, 1 win, 2 loss for the
    /// player to move): what a table's values block holds. The cells and
    /// turns are stepped, not divided out per state, since a table's writer
    /// reads every state.
    pub(crate) fn fill_value_codes(&self, range: std::ops::Range<u64>, out: &mut [u8]) {
        out.fill(0);
        let n = self.n as u64;
        let (mut r, mut t) = (
            ((range.start >> 1) / n) as usize,
            ((range.start >> 1) % n) as usize,
        );
        let mut thief_moves = range.start & 1 == 1;
        for i in 0..(range.end - range.start) as usize {
            let code = self.outcome_at(r, t, !thief_moves);
            out[i / 4] |= (code as u8) << (2 * (i % 4));
            if thief_moves {
                t += 1;
                if t == self.n {
                    t = 0;
                    r += 1;
                }
            }
            thief_moves = !thief_moves;
        }
    }

    /// Distances to end of the states `range` in plies, 0 where none is
    /// stored (draws), as a table's distance block holds them; all 0
    /// without a distance table.
    pub(crate) fn fill_distances(&self, range: std::ops::Range<u64>, out: &mut [u16]) {
        match &self.dte {
            Some(d) => {
                let from = &d[range.start as usize..range.end as usize];
                for (o, &v) in out.iter_mut().zip(from) {
                    *o = if v == u16::MAX { 0 } else { v };
                }
            }
            None => out.fill(0),
        }
    }

    /// Whether a per-state distance table was kept.
    #[must_use]
    pub fn has_dte_table(&self) -> bool {
        self.dte.is_some()
    }

    /// Number of states, `C(n + k - 1, k) * n * 2`.
    #[must_use]
    pub fn states(&self) -> u64 {
        multiset_count(self.n, self.k) * self.n as u64 * 2
    }
}
