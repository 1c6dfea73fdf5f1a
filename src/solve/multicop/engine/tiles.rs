//! The order in which a cop step visits its rows: in tiles, so that the
//! source rows stay in cache while they are read.
//!
//! A row `(A + a, B)` of table `j + 1` (`a` the top of `A + a`) reads
//! `S_j(A, B + x)` for `x` in `R(a)`; in rank order (`a` slowest, `B`
//! fastest) consecutive rows read `|R|` streams far apart, and each source
//! row comes from memory again for every `a` that reaches it. Here a task
//! owns a range of tops (a contiguous range of rows, as ranks are
//! colex), and within it visits, per prefix `A`, blocks of `T` consecutive
//! `B`s, every top of the range for each block: the block's sources (`T`
//! times the cells the range's tops reach) fit in the core's cache and are
//! read from memory about once per block instead of once per top.

use rayon::prelude::*;

use super::{next_multiset, Engine, MAX_COPS};
use crate::games::multiset::multiset_count;

/// Bytes of source rows a tile aims to keep in cache (half of this box's
/// 1 MiB L2 per core is a safe share on most machines).
const TILE_BYTES: usize = 256 << 10;

impl Engine<'_> {
    /// Calls `f(A, B, index, row, scratch, flag)` for every row of table
    /// `j + 1` (shape `(j + 1, k - j - 1)`, row `rank(A) * C(n + k - j - 2,
    /// k - j - 1) + rank(B)`), in parallel, in tiles; `scratch` is one row
    /// of the task's own. When `changed` is not empty, `flag` is the row's
    /// byte in it before the call (0 otherwise), and the byte then gets
    /// whether `f` said the row changed.
    pub(super) fn par_tiles(
        &self,
        j: usize,
        out: &mut [u64],
        changed: &mut [u8],
        f: impl Fn(&[u32], &[u32], usize, &mut [u64], &mut [u64], u8) -> bool + Sync,
    ) {
        let (n, k, words) = (self.n, self.k, self.words);
        let sb = k - j - 1;
        let nb = multiset_count(n, sb) as usize;
        // Rows of table j + 1 whose top is below t: C(t + j, j + 1) * nb.
        let first_row = |t: usize| self.ranker.term(j, t as u32) as usize * nb;
        let rows = out.len() / words;
        let per_task = (rows / (rayon::current_num_threads() * 4)).max(1);
        // Ranges of tops, each about `per_task` rows, and their rows.
        let mut tasks = Vec::new();
        let (mut rest, mut flags) = (out, changed);
        let mut t0 = 0;
        while t0 < n {
            let mut t1 = t0 + 1;
            while t1 < n && first_row(t1 + 1) - first_row(t0) <= per_task {
                t1 += 1;
            }
            let len = first_row(t1) - first_row(t0);
            let (here, more) = rest.split_at_mut(len * words);
            let (fl, fmore) = if flags.is_empty() {
                (&mut [][..], flags)
            } else {
                flags.split_at_mut(len)
            };
            tasks.push((t0, t1, here, fl));
            rest = more;
            flags = fmore;
            t0 = t1;
        }
        tasks.into_par_iter().for_each(|(t0, t1, rows, flags)| {
            let base = first_row(t0);
            let mut seen = vec![false; n];
            for t in t0..t1 {
                for &x in &self.reach[t] {
                    seen[x as usize] = true;
                }
            }
            let reached = seen.iter().filter(|&&s| s).count().max(1);
            let tile = (TILE_BYTES / (reached * words * 8)).max(8).min(nb.max(1));
            let mut scratch = vec![0u64; words];
            let mut a = [0u32; MAX_COPS];
            let mut block = vec![[0u32; MAX_COPS]; tile];
            // Every prefix (j cells) whose top is below t1, in rank order.
            for rp in 0..multiset_count(t1, j) as usize {
                let low = if j == 0 {
                    t0
                } else {
                    t0.max(a[j - 1] as usize)
                };
                for b0 in (0..nb).step_by(tile) {
                    let len = tile.min(nb - b0);
                    let mut b = [0u32; MAX_COPS];
                    self.ranker.unrank(b0 as u64, &mut b[..sb]);
                    for slot in &mut block[..len] {
                        *slot = b;
                        next_multiset(&mut b[..sb], n);
                    }
                    for top in low..t1 {
                        a[j] = top as u32;
                        let ra = rp + self.ranker.term(j, top as u32) as usize;
                        for (i, b) in block[..len].iter().enumerate() {
                            let index = ra * nb + b0 + i;
                            let local = index - base;
                            let row = &mut rows[local * words..(local + 1) * words];
                            let flag = flags.get(local).copied().unwrap_or(0);
                            let change = f(&a[..=j], &b[..sb], index, row, &mut scratch, flag);
                            if let Some(fl) = flags.get_mut(local) {
                                *fl = u8::from(change);
                            }
                        }
                    }
                }
                next_multiset(&mut a[..j], n);
            }
        });
    }
}
