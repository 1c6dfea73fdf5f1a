//! The cops' EXISTS move at a level where few source rows changed: the
//! tables' dirty rows are pushed from the changed rows instead of found by
//! pulling every table row's sources, which cost as much as a dense level.
//! Three cops on the 10 x 20 king's graph: the levels after the 18th change
//! 7% of the rows or fewer, and pulled they took a third of the solve.

use rayon::prelude::*;

use super::cops::Tables;
use super::Engine;
use crate::games::multiset::{multiset_count, MAX_COPS};
use crate::solve::multicop::memory::table_rows;

/// The cells from which each cell is reached, ascending.
pub(super) fn reach_from(reach: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let mut from = vec![Vec::new(); reach.len()];
    for (a, moves) in reach.iter().enumerate() {
        for &x in moves {
            from[x as usize].push(a as u32);
        }
    }
    from
}

impl Engine<'_> {
    /// The cells some row that `flags` marks holds a cop on.
    pub(super) fn touched_cells(&self, flags: &[u8]) -> Vec<bool> {
        let (n, k) = (self.n, self.k);
        flags
            .par_chunks(1 << 14)
            .enumerate()
            .fold(
                || vec![false; n],
                |mut seen, (ci, chunk)| {
                    let (mut cops, mut held) = ([0u32; MAX_COPS], None);
                    for (i, _) in chunk.iter().enumerate().filter(|(_, &f)| f != 0) {
                        let rank = ((ci << 14) + i) as u64;
                        self.ranker.seek(&mut held, rank, &mut cops[..k]);
                        for &c in &cops[..k] {
                            seen[c as usize] = true;
                        }
                    }
                    seen
                },
            )
            .reduce(
                || vec![false; n],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x |= y);
                    a
                },
            )
    }

    /// Per cell `z`, the ranks of `S - z` (one cop on `z` taken off) for the
    /// rows `S` that `flags` marks changed and that hold a cop on `z`.
    pub(super) fn changed_by_cell(&self, flags: &[u8]) -> Vec<Vec<u64>> {
        let (n, k) = (self.n, self.k);
        flags
            .par_chunks(1 << 14)
            .enumerate()
            .fold(
                || vec![Vec::new(); n],
                |mut lists, (ci, chunk)| {
                    let (mut cops, mut held) = ([0u32; MAX_COPS], None);
                    for (i, _) in chunk.iter().enumerate().filter(|(_, &f)| f != 0) {
                        let rank = ((ci << 14) + i) as u64;
                        self.ranker.seek(&mut held, rank, &mut cops[..k]);
                        for p in (0..k).filter(|&p| p == 0 || cops[p] != cops[p - 1]) {
                            lists[cops[p] as usize].push(self.ranker.rank_without(&cops[..k], p));
                        }
                    }
                    lists
                },
            )
            .reduce(
                || vec![Vec::new(); n],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(a, b)| a.extend(b));
                    a
                },
            )
    }

    /// The dirty rows of block `t`'s tables (`tables.dirty`, and
    /// `tables.out_dirty` for its own rows), pushed from the changed source
    /// rows instead of pulled: table 1's row `B` reads `B + z` for `z` in
    /// `R(t)`, so it is dirty when `B = S - z` for a changed `S`; table `j +
    /// 1`'s row `(M' + a, B - a')` reads table `j`'s row `(M', B)` for every
    /// cell `a'` of `B` and `a` with `a'` in `R(a)`, `a <= min(M')` (`<= t`
    /// for `j = 1`).
    pub(super) fn push_dirty(&self, by_cell: &[Vec<u64>], tables: &mut Tables, t: usize) {
        let (n, k) = (self.n, self.k);
        let Tables {
            dirty, out_dirty, ..
        } = tables;
        let out_rows = table_rows(n, k, k, t);
        out_dirty[..out_rows].fill(0);
        for (j, flags) in dirty.iter_mut().enumerate() {
            flags[..table_rows(n, k, j + 1, t)].fill(0);
        }
        {
            let first: &mut [u8] = if k == 1 { out_dirty } else { &mut dirty[0] };
            for &z in &self.reach[t] {
                for &r in &by_cell[z as usize] {
                    first[r as usize] = 1;
                }
            }
        }
        for j in 1..k {
            let (below, above) = dirty.split_at_mut(j);
            let flags = &below[j - 1];
            let next: &mut [u8] = if j + 1 == k { out_dirty } else { &mut above[0] };
            let (nb, nb_next) = (
                multiset_count(n, k - j) as usize,
                multiset_count(n, k - j - 1) as usize,
            );
            let (mut m, mut b) = ([0u32; MAX_COPS], [0u32; MAX_COPS]);
            let (mut held_m, mut held_b) = (None, None);
            let rows = table_rows(n, k, j, t);
            for (r, _) in flags[..rows].iter().enumerate().filter(|(_, &f)| f != 0) {
                // m[0] is left for the cop that moves next; M' follows.
                self.ranker.seek(&mut held_m, (r / nb) as u64, &mut m[1..j]);
                self.ranker
                    .seek(&mut held_b, (r % nb) as u64, &mut b[..k - j]);
                let top = if j == 1 { t as u32 } else { m[1] };
                for p in (0..k - j).filter(|&p| p == 0 || b[p] != b[p - 1]) {
                    let rb = self.ranker.rank_without(&b[..k - j], p) as usize;
                    for &a in self.reach_from[b[p] as usize].iter().filter(|&&a| a <= top) {
                        m[0] = a;
                        next[self.ranker.rank(&m[..j]) as usize * nb_next + rb] = 1;
                    }
                }
            }
        }
    }
}
