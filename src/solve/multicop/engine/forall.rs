//! The cops' FORALL move of the k-cop engine (their LOSS move into the
//! thief's WIN rows, which exists only with exits): a row some of whose
//! sources changed is recomputed in full, with only the table rows it
//! needs.

use super::cops::{Block, Source, Tables};
use super::Engine;

impl Engine<'_> {
    /// FORALL on block `t`: the dirty rows of every table (a source
    /// changed), then the table rows that the block's dirty rows read, in
    /// full (an AND over every move), then those rows' ANDs into their open
    /// cells. Kept out of line (see `exists_block`).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn forall_block(
        &self,
        source: Source<'_>,
        tables: &mut Tables,
        block: &mut Block<'_>,
        level: u16,
    ) -> (u64, u64) {
        let (k, words) = (self.k, self.words);
        let Source {
            rows: src,
            changed: src_changed,
            touched,
            ..
        } = source;
        let t = block.t;
        let mut sources = std::mem::take(&mut tables.sources);
        // Dirty rows, bottom up.
        for j in 1..=k {
            let (dbefore, dafter) = tables.dirty.split_at_mut(j - 1);
            let to: &mut [u8] = if j == k {
                &mut tables.out_dirty
            } else {
                &mut dafter[0]
            };
            let rows = &*block.rows;
            self.visit(j, t, touched, None, None, &mut sources, |row, srcs, m| {
                let dirty = srcs.iter().any(|&s| {
                    if j == 1 {
                        src_changed.is_none_or(|c| c[s] != 0)
                    } else {
                        dbefore[j - 2][s] != 0
                    }
                });
                to[row] = u8::from(
                    dirty && (j < k || !self.row_full(&rows[row * words..(row + 1) * words], m, t)),
                );
            });
        }
        // Needed rows, top down: the sources of needed rows.
        for j in (2..=k).rev() {
            let (nbefore, nafter) = tables.needed.split_at_mut(j - 1);
            let need: &[u8] = if j == k {
                &tables.out_dirty
            } else {
                &nafter[0]
            };
            let below = &mut nbefore[j - 2];
            below.fill(0);
            self.visit(j, t, None, None, None, &mut sources, |row, srcs, _| {
                if need[row] != 0 {
                    for &s in srcs {
                        below[s] = 1;
                    }
                }
            });
        }
        // Values of the needed rows, bottom up, and the block's rows.
        let mut done = (0, 0);
        for j in 1..=k {
            let (before, after) = tables.vals.split_at_mut(j - 1);
            let from: &[u64] = if j == 1 { src } else { &before[j - 2] };
            let need: &[u8] = if j == k {
                &tables.out_dirty
            } else {
                &tables.needed[j - 1]
            };
            let tmp = &mut tables.row;
            let mut to = after.first_mut();
            self.visit(j, t, None, None, None, &mut sources, |row, srcs, m| {
                if j == k {
                    block.changed[row] = 0;
                }
                if need[row] == 0 {
                    return;
                }
                tmp.fill(u64::MAX);
                for &s in srcs {
                    let v = &from[s * words..(s + 1) * words];
                    tmp.iter_mut().zip(v).for_each(|(r, v)| *r &= v);
                }
                match to.as_deref_mut() {
                    Some(to) if j < k => to[row * words..(row + 1) * words].copy_from_slice(tmp),
                    _ => {
                        let got = self.merge_row(block, row, m, tmp, level, None);
                        done.0 += got;
                        done.1 += u64::from(got > 0);
                    }
                }
            });
        }
        tables.sources = sources;
        done
    }
}
