//! Level 0 of the k-cop engine: the terminal states of every row.

use rayon::prelude::*;

use super::rows::cop_word;
use super::Engine;
use crate::games::multiset::{next_multiset, unrank_multiset, MAX_COPS};

impl Engine<'_> {
    /// Level 0: the terminal states of every row, with distance 0.
    /// Returns the states decided and the least rank of a row that is all
    /// WIN (cops on every cell).
    pub(super) fn terminal(
        &self,
        sets: [&mut [u64]; 4],
        dte: Option<&mut [u16]>,
    ) -> (u64, Option<u64>) {
        let (n, k, words) = (self.n, self.k, self.words);
        let chunk = self.chunk_rows(self.ranks);
        let [cw, cl, tl, tw] = sets;
        let blocks = self.ranks.div_ceil(chunk);
        fn part(v: &mut [u64], len: usize, blocks: usize) -> Vec<Option<&mut [u64]>> {
            let mut parts: Vec<_> = v.chunks_mut(len).map(Some).collect();
            parts.resize_with(blocks, || None);
            parts
        }
        let mut dte_parts: Vec<Option<&mut [u16]>> = match dte {
            Some(d) => d.chunks_mut((chunk * 2 * n).max(1)).map(Some).collect(),
            None => Vec::new(),
        };
        dte_parts.resize_with(self.ranks.div_ceil(chunk), || None);
        let full = std::sync::atomic::AtomicU64::new(u64::MAX);
        let decided = cw
            .par_chunks_mut(chunk * words)
            .zip(tl.par_chunks_mut(chunk * words))
            .zip(part(cl, chunk * words, blocks))
            .zip(part(tw, chunk * words, blocks))
            .zip(dte_parts)
            .enumerate()
            .map(|(ci, ((((cw, tl), mut cl), mut tw), mut dte))| {
                let first = ci * chunk;
                if first >= self.reads.end || first + cw.len() / words <= self.reads.start {
                    return 0;
                }
                let mut cops = [0u32; MAX_COPS];
                cops[..k].copy_from_slice(&unrank_multiset(first as u64, k));
                let mut decided = 0u64;
                for i in 0..cw.len() / words {
                    // Outside a band only the thief's rows it reads (the
                    // others' rows its cops reach), and none else: an
                    // untouched row costs a partitioned process no memory.
                    if !self.reads.contains(&(first + i)) {
                        next_multiset(&mut cops[..k], n);
                        continue;
                    }
                    let inside = self.band.contains(&(first + i));
                    // Plain cops have no move when one of them has none;
                    // lazy ones when all have none.
                    let stuck = |c: &u32| self.reach[*c as usize].is_empty();
                    let no_move = if self.lazy {
                        cops[..k].iter().all(stuck)
                    } else {
                        cops[..k].iter().any(stuck)
                    };
                    let span = i * words..(i + 1) * words;
                    for w in 0..words {
                        let cm = cop_word(&cops[..k], w);
                        let open = self.cells[w] & !cm & !self.exits[w];
                        let rows = [
                            (inside.then(|| &mut cw[span.start + w]), cm, 0),
                            (
                                cl.as_deref_mut()
                                    .filter(|_| inside)
                                    .map(|v| &mut v[span.start + w]),
                                (self.exits[w] & !cm) | if no_move { open } else { 0 },
                                0,
                            ),
                            (
                                Some(&mut tl[span.start + w]),
                                cm | (self.stuck[w] & open),
                                1,
                            ),
                            (
                                tw.as_deref_mut().map(|v| &mut v[span.start + w]),
                                self.exits[w] & !cm,
                                1,
                            ),
                        ];
                        for (slot, value, turn) in rows {
                            let Some(slot) = slot else { continue };
                            *slot = value;
                            if !inside {
                                continue;
                            }
                            decided += u64::from(value.count_ones());
                            if let Some(d) = dte.as_deref_mut() {
                                let mut bits = value;
                                while bits != 0 {
                                    let t = w * 64 + bits.trailing_zeros() as usize;
                                    bits &= bits - 1;
                                    d[i * 2 * n + t * 2 + turn] = 0;
                                }
                            }
                        }
                    }
                    if inside && cw[span] == self.cells[..] {
                        full.fetch_min((first + i) as u64, std::sync::atomic::Ordering::Relaxed);
                    }
                    next_multiset(&mut cops[..k], n);
                }
                decided
            })
            .sum();
        let full = full.into_inner();
        (decided, (full != u64::MAX).then_some(full))
    }
}
