//! The incremental EXISTS cop step: one single-cop step of the cops' WIN
//! move when only some source rows grew since the last level.
//!
//! Where the thief can win nowhere, `tl` only grows from level to level,
//! and so do the tables of partly-moved tuples and `cw` (ORs of growing
//! rows). A row's new value is then its old value OR the changed sources
//! alone: `S_{j+1}(A + a, B) = old | OR_{a' in R(a), changed} S_j(A, B +
//! a')`, and `cw = old | (open & that)`. So a step reads only the source
//! rows that changed, never a row with no open bit left, and, when few
//! rows changed (late levels, and every other level, where `tl` does not
//! change at all), finds the rows to redo by pushing from each changed
//! source to the rows that read it instead of every row polling its `|R|`
//! sources' flags.

use rayon::prelude::*;

use super::{Engine, MAX_COPS};
use crate::games::multiset::multiset_count;

impl Engine<'_> {
    /// Step `j` of the incremental EXISTS move: `to` (shape `(j + 1, k - j
    /// - 1)`) from `from` (shape `(j, k - j)`) whose changed rows
    /// `from_changed` flags. `to` holds the previous level's rows, or for
    /// the last step (`prev_out` given) `prev_out` does and `to` gets
    /// overwritten. `mark` gets, per row of `to`, whether it changed.
    ///
    /// Every source row must have only gained bits since the rows of `to`
    /// (or `prev_out`) were computed from it.
    pub(super) fn exists_step(
        &self,
        j: usize,
        from: &[u64],
        from_changed: &[u8],
        to: &mut [u64],
        mark: &mut [u8],
        prev_out: Option<&[u64]>,
    ) {
        let (n, k, words) = (self.n, self.k, self.words);
        let count = from_changed
            .par_chunks(1 << 16)
            .map(|c| c.iter().filter(|&&f| f != 0).count())
            .sum::<usize>();
        if count == 0 {
            mark.fill(0);
            if let Some(prev) = prev_out {
                to.copy_from_slice(prev);
            }
            return;
        }
        // Push when it writes fewer marks than half the rows: polling
        // reads `|R|` flags for every row of `to`.
        let fan = (k - j) * self.rev.iter().map(Vec::len).max().unwrap_or(0);
        let push = count.saturating_mul(fan).saturating_mul(2) <= mark.len();
        if push {
            self.push_marks(j, from_changed, mark);
        }
        let nb_src = multiset_count(n, k - j) as usize;
        let last = prev_out.is_some();
        self.par_tiles(j, to, mark, |a, b, index, row, room, dirty| {
            let span = index * words..(index + 1) * words;
            if let Some(prev) = prev_out {
                row.copy_from_slice(&prev[span]);
            }
            if push && dirty == 0 {
                return false;
            }
            // `room`: the bits the row could still gain, open cells for
            // `cw`, any cell for an intermediate table.
            room.copy_from_slice(&self.cells);
            if last {
                room.iter_mut().zip(&self.exits).for_each(|(r, e)| *r &= !e);
                for &c in a {
                    room[c as usize / 64] &= !(1 << (c % 64));
                }
            }
            room.iter_mut().zip(&*row).for_each(|(r, o)| *r &= !o);
            if room.iter().all(|&r| r == 0) {
                return false;
            }
            let top = a[j];
            let base = (self.ranker.rank(a) - self.ranker.term(j, top)) as usize * nb_src;
            let mut change = false;
            for &x in &self.reach[top as usize] {
                let s = base + self.ranker.rank_with(b, x) as usize;
                if from_changed[s] == 0 {
                    continue;
                }
                let src = &from[s * words..(s + 1) * words];
                for ((r, o), v) in room.iter_mut().zip(row.iter_mut()).zip(src) {
                    let gain = *r & v;
                    *r &= !gain;
                    *o |= gain;
                    change |= gain != 0;
                }
            }
            change
        });
    }

    /// Sets `mark` to 1 on the rows of table `j + 1` that read a changed
    /// row of table `j`, 0 elsewhere: a source `(A, C)` is read by the rows
    /// `(A + a, C - c)` with `c` in `C`, `a` reaching `c`, `a >= max(A)`.
    fn push_marks(&self, j: usize, from_changed: &[u8], mark: &mut [u8]) {
        let (n, k) = (self.n, self.k);
        let nb_src = multiset_count(n, k - j) as usize;
        let nb_dst = multiset_count(n, k - j - 1) as usize;
        mark.fill(0);
        let mut a = [0u32; MAX_COPS];
        let mut c = [0u32; MAX_COPS];
        let mut rest = [0u32; MAX_COPS];
        for (s, _) in from_changed.iter().enumerate().filter(|(_, &f)| f != 0) {
            let (ra, rc) = (s / nb_src, s % nb_src);
            self.ranker.unrank(ra as u64, &mut a[..j]);
            self.ranker.unrank(rc as u64, &mut c[..k - j]);
            let low = if j == 0 { 0 } else { a[j - 1] };
            for i in 0..k - j {
                if i > 0 && c[i] == c[i - 1] {
                    continue;
                }
                rest[..i].copy_from_slice(&c[..i]);
                rest[i..k - j - 1].copy_from_slice(&c[i + 1..k - j]);
                let r_rest = self.ranker.rank(&rest[..k - j - 1]) as usize;
                for &x in self.rev[c[i] as usize].iter().filter(|&&x| x >= low) {
                    let ra2 = ra + self.ranker.term(j, x) as usize;
                    mark[ra2 * nb_dst + r_rest] = 1;
                }
            }
        }
    }
}
