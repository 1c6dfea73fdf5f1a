//! The thief's move of the k-cop engine: a level's thief rows from the
//! cop rows before it, each row's predecessor set a dilation of the target
//! cells (a neighbour-list walk or an OR of neighbour rows), masked by the
//! cops' cells for speeds over one.

use rayon::prelude::*;

use super::Engine;
use crate::games::multiset::{next_multiset, unrank_multiset, MAX_COPS};

impl Engine<'_> {
    /// The cells from which the thief reaches `x` in one move with cops on
    /// `cm` (walks of 1..=S steps through cells without a cop, plus
    /// staying). `tmp` is scratch of one row.
    fn thief_pre(&self, x: &[u64], cm: &[u64], out: &mut [u64], tmp: &mut [u64]) {
        let words = self.words;
        let set: u32 = x.iter().map(|w| w.count_ones()).sum();
        if self.arena.speeds().1 == 1 && self.arena.passes().1 && set as usize > self.n / 2 {
            // Dense target: walk the few cells outside it instead; such a
            // cell is out of reach only if it and all its neighbours are.
            out.copy_from_slice(&self.cells);
            for w in 0..words {
                let mut bits = self.cells[w] & !x[w];
                while bits != 0 {
                    let t = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    if !self.reaches(t, x) {
                        out[w] &= !(1 << (t % 64));
                    }
                }
            }
            return;
        }
        self.dilate(x, out);
        for _ in 1..self.arena.speeds().1 {
            for w in 0..words {
                tmp[w] = x[w] | (out[w] & !cm[w]);
            }
            self.dilate(tmp, out);
        }
        if self.arena.passes().1 {
            for w in 0..words {
                out[w] |= x[w];
            }
        }
    }

    /// Whether the thief on `t` has a neighbour in `x`.
    #[inline]
    fn reaches(&self, t: usize, x: &[u64]) -> bool {
        if self.lists {
            let nb = self.arena.thief_steps(t as u32);
            nb.iter().any(|&v| x[v as usize / 64] >> (v % 64) & 1 == 1)
        } else {
            let words = self.words;
            let a = &self.adj[t * words..(t + 1) * words];
            a.iter().zip(x).any(|(a, x)| a & x != 0)
        }
    }

    /// `out = OR over u in z of the thief's neighbours of u`.
    fn dilate(&self, z: &[u64], out: &mut [u64]) {
        let words = self.words;
        out.fill(0);
        if self.lists {
            for (w, &zw) in z.iter().enumerate() {
                let mut bits = zw;
                while bits != 0 {
                    let u = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    for &v in self.arena.thief_steps(u as u32) {
                        out[v as usize / 64] |= 1 << (v % 64);
                    }
                }
            }
            return;
        }
        for (w, &zw) in z.iter().enumerate() {
            let mut bits = zw;
            while bits != 0 {
                let u = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let a = &self.adj[u * words..(u + 1) * words];
                out.iter_mut().zip(a).for_each(|(o, v)| *o |= v);
            }
        }
    }

    /// Thief rows of level d + 1 from the cop rows of level d; `tw` is
    /// empty when the thief cannot win anywhere.
    ///
    /// `prev` holds level d's thief rows and level d - 1's cop rows: a row
    /// whose cop row did not change keeps its thief row.
    pub(super) fn thief_move(
        &self,
        cw: &[u64],
        cl: &[u64],
        prev: Option<[&[u64]; 4]>,
        tl: &mut [u64],
        tw: &mut [u64],
        tl_changed: &mut [u8],
    ) {
        let (n, k, words) = (self.n, self.k, self.words);
        let chunk = self.chunk_rows(self.ranks);
        let body =
            |ci: usize, tl_rows: &mut [u64], flags: &mut [u8], mut tw_rows: Option<&mut [u64]>| {
                let first = ci * chunk;
                let mut cops = [0u32; MAX_COPS];
                cops[..k].copy_from_slice(&unrank_multiset(first as u64, k));
                let (mut cm, mut x, mut y, mut tmp) = (
                    vec![0u64; words],
                    vec![0u64; words],
                    vec![0u64; words],
                    vec![0u64; words],
                );
                for (i, tl_row) in tl_rows.chunks_mut(words).enumerate() {
                    let r = first + i;
                    let span = r * words..(r + 1) * words;
                    let same =
                        |now: &[u64], before: &[u64]| now[span.clone()] == before[span.clone()];
                    self.cop_mask(&cops[..k], &mut cm);
                    let cw_row = &cw[span.clone()];
                    match prev {
                        Some([tl_old, _, cw_old, _]) if same(cw, cw_old) => {
                            tl_row.copy_from_slice(&tl_old[span.clone()]);
                            flags[i] = 0;
                        }
                        _ => {
                            for w in 0..words {
                                x[w] = self.cells[w] & !cw_row[w];
                            }
                            self.thief_pre(&x, &cm, &mut y, &mut tmp);
                            for w in 0..words {
                                let open = self.cells[w] & !cm[w] & !self.exits[w];
                                let term = cm[w] | (self.stuck[w] & open);
                                tl_row[w] = term | (open & !y[w]);
                            }
                            flags[i] = match prev {
                                Some([tl_old, ..]) => u8::from(tl_row != &tl_old[span.clone()]),
                                None => 1,
                            };
                        }
                    }
                    if let Some(tw_rows) = tw_rows.as_deref_mut() {
                        if let Some([_, tw_old, _, cl_old]) = prev {
                            if same(cl, cl_old) {
                                tw_rows[i * words..(i + 1) * words]
                                    .copy_from_slice(&tw_old[span.clone()]);
                                next_multiset(&mut cops[..k], n);
                                continue;
                            }
                        }
                        let cl_row = &cl[r * words..(r + 1) * words];
                        self.thief_pre(cl_row, &cm, &mut y, &mut tmp);
                        let tw_row = &mut tw_rows[i * words..(i + 1) * words];
                        for w in 0..words {
                            let open = self.cells[w] & !cm[w] & !self.exits[w];
                            tw_row[w] = (self.exits[w] & !cm[w]) | (open & y[w]);
                        }
                    }
                    next_multiset(&mut cops[..k], n);
                }
            };
        if tw.is_empty() {
            tl.par_chunks_mut(chunk * words)
                .zip(tl_changed.par_chunks_mut(chunk))
                .enumerate()
                .for_each(|(ci, (a, f))| body(ci, a, f, None));
        } else {
            tl.par_chunks_mut(chunk * words)
                .zip(tl_changed.par_chunks_mut(chunk))
                .zip(tw.par_chunks_mut(chunk * words))
                .enumerate()
                .for_each(|(ci, ((a, f), b))| body(ci, a, f, Some(b)));
        }
    }
}
