//! The lazy cops' move of the k-cop engine (one cop moves a turn): no
//! tables, each row reads its `k * |R|` source rows directly.

use std::sync::atomic::AtomicU64;

use super::cops::{Block, Source};
use super::{Engine, Op, MAX_COPS};
use crate::games::multiset::{multiset_count, next_multiset};

impl Engine<'_> {
    /// The lazy cops' move on block `t`: per row `C = M + t`, its sources
    /// `C - c + x` (each distinct cell `c` of `C`, `x` in `R(c)`); a row
    /// none of whose sources changed, or already full, is left as it is;
    /// EXISTS ORs the changed sources into its open cells, FORALL the AND
    /// of all of them (a row with no move at all was decided at level 0).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lazy_block(
        &self,
        op: Op,
        source: Source<'_>,
        sources: &mut Vec<usize>,
        tmp: &mut [u64],
        block: &mut Block<'_>,
        level: u16,
        full: &AtomicU64,
    ) -> (u64, u64) {
        let (k, words) = (self.k, self.words);
        let t = block.t;
        let src = source.rows;
        let dirty = |s: usize| source.changed.is_none_or(|d| d[s] != 0);
        let mut m = [0u32; MAX_COPS];
        let mut done = (0, 0);
        for row in 0..multiset_count(t + 1, k - 1) as usize {
            block.changed[row] = 0;
            let mut cops = [0u32; MAX_COPS];
            cops[..k - 1].copy_from_slice(&m[..k - 1]);
            cops[k - 1] = t as u32;
            sources.clear();
            for i in (0..k).filter(|&i| i == 0 || cops[i] != cops[i - 1]) {
                for &x in &self.reach[cops[i] as usize] {
                    let mut moved = cops;
                    moved[i] = x;
                    moved[..k].sort_unstable();
                    sources.push(self.ranker.rank(&moved[..k]) as usize);
                }
            }
            let old = &block.rows[row * words..(row + 1) * words];
            let fresh = sources.iter().any(|&s| dirty(s));
            if fresh && !self.row_full(old, &m[..k - 1], t) {
                let got = match op {
                    Op::Exists => {
                        tmp.fill(0);
                        for &s in sources.iter().filter(|&&s| dirty(s)) {
                            let v = &src[s * words..(s + 1) * words];
                            tmp.iter_mut().zip(v).for_each(|(r, v)| *r |= v);
                        }
                        self.merge_row(block, row, &m[..k - 1], tmp, level, Some(full))
                    }
                    Op::ForAll => {
                        tmp.fill(u64::MAX);
                        for &s in sources.iter() {
                            let v = &src[s * words..(s + 1) * words];
                            tmp.iter_mut().zip(v).for_each(|(r, v)| *r &= v);
                        }
                        self.merge_row(block, row, &m[..k - 1], tmp, level, None)
                    }
                };
                done.0 += got;
                done.1 += u64::from(got > 0);
            }
            next_multiset(&mut m[..k - 1], t + 1);
        }
        done
    }
}
