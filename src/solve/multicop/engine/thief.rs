//! The thief's move of the k-cop engine: a level's thief rows from the
//! cop rows before it, each row's predecessor set a dilation of the target
//! cells (a neighbour-list walk or an OR of neighbour rows), masked by the
//! cops' cells for speeds over one.

use rayon::prelude::*;

use super::cops::Stepped;
use super::Engine;
use crate::games::arena::Arena;
use crate::games::multiset::{next_multiset, unrank_multiset, MAX_COPS};

/// Which words of each cop row changed at the last cop step, and the bits
/// its first two changed words gained (empty when not kept).
pub(super) type CopChanges<'a> = (&'a [u64], &'a [[u64; 2]]);

impl Engine<'_> {
    /// The cells from which the thief reaches `x` in one move with cops on
    /// `cm` (walks of 1..=S steps through cells without a cop, plus
    /// staying). `tmp` is scratch of one row.
    fn thief_pre(&self, x: &[u64], cm: &[u64], out: &mut [u64], tmp: &mut [u64]) {
        let words = self.words;
        let set: u32 = x.iter().map(|w| w.count_ones()).sum();
        let dense = set as usize > self.n / 2;
        if self.nib_base.is_empty() && self.arena.speeds().1 == 1 && self.arena.passes().1 && dense
        {
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

    /// The cells of `cand` from which every move of the thief (`all`) or
    /// some move lands in `target`, at thief speed 1: a step to a
    /// neighbour, or staying where the thief may pass. Reads the moves of
    /// the candidates only, each check stopping at its first answer.
    fn moves_into(&self, all: bool, target: &[u64], cand: &[u64], out: &mut [u64]) {
        let passes = self.arena.passes().1;
        let bit = |v: u32| target[v as usize / 64] >> (v % 64) & 1 == 1;
        out.fill(0);
        for (w, &cw) in cand.iter().enumerate() {
            let mut bits = cw;
            while bits != 0 {
                let t = (w * 64) as u32 + bits.trailing_zeros();
                bits &= bits - 1;
                let hit = match self.spans.get(t as usize) {
                    // The moves as masks of at most four words: an AND a
                    // word instead of a test a move.
                    Some(&(base, masks)) if base != u32::MAX => {
                        let base = base as usize;
                        let target = &target[base..];
                        if all {
                            masks.iter().zip(target).all(|(m, t)| m & !t == 0)
                        } else {
                            masks.iter().zip(target).any(|(m, t)| m & t != 0)
                        }
                    }
                    _ => {
                        let steps = self.arena.thief_steps(t);
                        if all {
                            (!passes || bit(t)) && steps.iter().all(|&v| bit(v))
                        } else {
                            (passes && bit(t)) || steps.iter().any(|&v| bit(v))
                        }
                    }
                };
                if hit {
                    out[w] |= 1 << (t % 64);
                }
            }
        }
    }

    /// `out = OR over u in z of the thief's neighbours of u`.
    fn dilate(&self, z: &[u64], out: &mut [u64]) {
        let words = self.words;
        out.fill(0);
        if !self.nib_base.is_empty() {
            // Four cells at a time: the neighbours of a nibble's cells are
            // four words from its base, read from the nibble table.
            for (w, &zw) in z.iter().enumerate() {
                let mut rest = zw;
                while rest != 0 {
                    let q = rest.trailing_zeros() as usize / 4;
                    let v = (rest >> (4 * q)) as usize & 15;
                    rest &= !(15 << (4 * q));
                    let p = w * 16 + q;
                    let base = self.nib_base[p] as usize;
                    let masks = &self.nib_masks[p * 16 + v];
                    out[base..].iter_mut().zip(masks).for_each(|(o, m)| *o |= m);
                }
            }
            return;
        }
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

    /// The thief's move of one level: the thief-to-move rows of level
    /// d + 1 (`tl`, and `tw` where the thief can win) from the
    /// cops-to-move rows of level d (`cw`, `cl`), for the rows whose cop
    /// row changed at the last cop step (`cops_changed`, which words of
    /// each row; `None`: all).
    /// A row that changes gets its new value in `next` and its flag in
    /// `next_changed` (the old value stays in `now` until the level is
    /// committed, since the cops' move of the same level reads it); the
    /// distance table gets `level` for the states decided.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn thief_step(
        &self,
        cops: [&[u64]; 2],
        cops_changed: Option<[CopChanges<'_>; 2]>,
        now: [&[u64]; 2],
        next: [&mut [u64]; 2],
        next_changed: [&mut [u8]; 2],
        dte: Option<&mut [u16]>,
        level: u16,
    ) -> Stepped {
        let (n, k, words) = (self.n, self.k, self.words);
        let two = !now[1].is_empty();
        let one_step = self.arena.speeds().1 == 1;
        // Candidates tested one by one cost about what a nibble of a
        // dilation costs; past that the whole row is dilated.
        let few = |x: &[u64]| {
            let count: u32 = x.iter().map(|w| w.count_ones()).sum();
            self.nib_base.is_empty() || (count as usize) < words * 4
        };
        let chunk = self.chunk_rows(self.ranks);
        let [tl2, tw2] = next;
        let [tl_changed, tw_changed] = next_changed;
        let mut tw_parts: Vec<Option<(&mut [u64], &mut [u8])>> = if two {
            tw2.chunks_mut(chunk * words)
                .zip(tw_changed.chunks_mut(chunk))
                .map(Some)
                .collect()
        } else {
            Vec::new()
        };
        tw_parts.resize_with(self.ranks.div_ceil(chunk), || None);
        let mut dte_parts: Vec<Option<&mut [u16]>> = match dte {
            Some(d) => d.chunks_mut((chunk * 2 * n).max(1)).map(Some).collect(),
            None => Vec::new(),
        };
        dte_parts.resize_with(self.ranks.div_ceil(chunk), || None);
        let (decided, rows) = tl2
            .par_chunks_mut(chunk * words)
            .zip(tl_changed.par_chunks_mut(chunk))
            .zip(tw_parts)
            .zip(dte_parts)
            .enumerate()
            .map(|(ci, (((tl_rows, tl_flags), tw_part), mut dte))| {
                let first = ci * chunk;
                let mut tw_part = tw_part;
                if first >= self.band.end || first + tl_flags.len() <= self.band.start {
                    // Wholly outside a partitioned solve's band.
                    tl_flags.fill(0);
                    if let Some((_, tw_flags)) = tw_part.as_mut() {
                        tw_flags.fill(0);
                    }
                    return (0, 0);
                }
                let mut cops_now = [0u32; MAX_COPS];
                cops_now[..k].copy_from_slice(&unrank_multiset(first as u64, k));
                let (mut cm, mut y, mut tmp, mut x) = (
                    vec![0u64; words],
                    vec![0u64; words],
                    vec![0u64; words],
                    vec![0u64; words],
                );
                let (mut decided, mut rows) = (0u64, 0u64);
                for i in 0..tl_flags.len() {
                    let r = first + i;
                    if !self.band.contains(&r) {
                        tl_flags[i] = 0;
                        if let Some((_, tw_flags)) = tw_part.as_mut() {
                            tw_flags[i] = 0;
                        }
                        next_multiset(&mut cops_now[..k], n);
                        continue;
                    }
                    let span = r * words..(r + 1) * words;
                    let redo = |side: usize| cops_changed.is_none_or(|c| c[side].0[r] != 0);
                    // At speed 1 a state can change only if a move of the
                    // thief lands in a word of the cop row that changed.
                    let near = |side: usize, near: &mut [u64]| match cops_changed {
                        None => near.copy_from_slice(&self.cells),
                        Some(c) if c[side].0[r].count_ones() <= 2 && !c[side].1.is_empty() => {
                            // The moves into the bits gained.
                            near.fill(0);
                            let passes = self.arena.passes().1;
                            let mut mask = c[side].0[r];
                            // The gains of the mask's (at most two) words,
                            // in order.
                            for gain in c[side].1[r] {
                                if mask == 0 {
                                    break;
                                }
                                let w = mask.trailing_zeros() as usize;
                                mask &= mask - 1;
                                let mut bits = gain;
                                while bits != 0 {
                                    let v = w * 64 + bits.trailing_zeros() as usize;
                                    bits &= bits - 1;
                                    if passes {
                                        near[w] |= 1 << (v % 64);
                                    }
                                    for &t in &self.thief_from[v] {
                                        near[t as usize / 64] |= 1 << (t % 64);
                                    }
                                }
                            }
                        }
                        Some(c) => {
                            near.fill(0);
                            let mut mask = c[side].0[r];
                            while mask != 0 {
                                let g = mask.trailing_zeros() as usize;
                                mask &= mask - 1;
                                let from = &self.near[g * words..(g + 1) * words];
                                near.iter_mut().zip(from).for_each(|(a, b)| *a |= b);
                            }
                        }
                    };
                    self.cop_mask(&cops_now[..k], &mut cm);
                    let note =
                        |gain_row: &[u64], old: &[u64], turn_rows: &mut Option<&mut [u16]>| {
                            let mut got = 0;
                            for w in 0..words {
                                let mut gain = gain_row[w] & !old[w];
                                got += u64::from(gain.count_ones());
                                if let Some(d) = turn_rows.as_deref_mut() {
                                    let d = &mut d[i * 2 * n..(i + 1) * 2 * n];
                                    while gain != 0 {
                                        let t = w * 64 + gain.trailing_zeros() as usize;
                                        gain &= gain - 1;
                                        d[t * 2 + 1] = level;
                                    }
                                }
                            }
                            got
                        };
                    tl_flags[i] = 0;
                    if redo(0) {
                        let cw_row = &cops[0][span.clone()];
                        let old = &now[0][span.clone()];
                        let row = &mut tl_rows[i * words..(i + 1) * words];
                        if one_step && {
                            // Only the undecided states can change: those
                            // whose every move lands in `cw`; when few,
                            // they are tested one by one.
                            near(0, &mut tmp);
                            for w in 0..words {
                                let other = if two { now[1][span.start + w] } else { 0 };
                                x[w] = tmp[w] & self.open_base[w] & !cm[w] & !old[w] & !other;
                            }
                            few(&x)
                        } {
                            self.moves_into(true, cw_row, &x, &mut y);
                            for w in 0..words {
                                row[w] = old[w] | y[w];
                            }
                        } else {
                            for w in 0..words {
                                x[w] = self.cells[w] & !cw_row[w];
                            }
                            self.thief_pre(&x, &cm, &mut y, &mut tmp);
                            for w in 0..words {
                                let open = self.cells[w] & !cm[w] & !self.exits[w];
                                row[w] = old[w] | (open & !y[w]);
                            }
                        }
                        if row != old {
                            decided += note(row, old, &mut dte);
                            tl_flags[i] = 1;
                            rows += 1;
                        }
                    }
                    if let Some((tw_rows, tw_flags)) = tw_part.as_mut() {
                        tw_flags[i] = 0;
                        if redo(1) {
                            let cl_row = &cops[1][span.clone()];
                            let old = &now[1][span.clone()];
                            let row = &mut tw_rows[i * words..(i + 1) * words];
                            if one_step && {
                                // The undecided states with a move into `cl`
                                // (none of `tl`'s new states has one).
                                near(1, &mut tmp);
                                for w in 0..words {
                                    x[w] = tmp[w]
                                        & self.open_base[w]
                                        & !cm[w]
                                        & !old[w]
                                        & !now[0][span.start + w];
                                }
                                few(&x)
                            } {
                                self.moves_into(false, cl_row, &x, &mut y);
                                for w in 0..words {
                                    row[w] = old[w] | y[w];
                                }
                            } else {
                                self.thief_pre(cl_row, &cm, &mut y, &mut tmp);
                                for w in 0..words {
                                    let open = self.cells[w] & !cm[w] & !self.exits[w];
                                    row[w] = old[w] | (open & y[w]);
                                }
                            }
                            if row != old {
                                decided += note(row, old, &mut dte);
                                tw_flags[i] = 1;
                                rows += 1;
                            }
                        }
                    }
                    next_multiset(&mut cops_now[..k], n);
                    if let Some(paging) = self.paging.as_ref().filter(|_| i % 1024 == 1023) {
                        // 1024 rows of the cops' two sets and the thief's
                        // current and next ones.
                        paging.touched((1024 * words * 8 * 4) as u64);
                    }
                }
                (decided, rows)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        Stepped {
            decided,
            rows,
            ..Stepped::default()
        }
    }
}

/// The nibble tables of the thief's dilation ([`Engine::nib_base`]):
/// empty when some nibble's steps span more than four words.
pub(super) fn nibble_tables(arena: &Arena, words: usize) -> (Vec<u32>, Vec<[u64; 4]>) {
    let n = arena.cells() as usize;
    let positions = words * 16;
    let mut base = vec![0u32; positions];
    let mut masks = vec![[0u64; 4]; positions * 16];
    for p in 0..positions {
        let cells: Vec<usize> = (4 * p..(4 * p + 4).min(n)).collect();
        let steps = |c: usize| arena.thief_steps(c as u32).iter().map(|&v| v as usize / 64);
        let (lo, hi) = cells
            .iter()
            .flat_map(|&c| steps(c))
            .fold((usize::MAX, 0), |(lo, hi), w| (lo.min(w), hi.max(w)));
        let b = if lo == usize::MAX {
            0
        } else {
            lo.min(words.saturating_sub(4))
        };
        if lo != usize::MAX && hi >= b + 4 {
            return (Vec::new(), Vec::new());
        }
        base[p] = b as u32;
        for v in 1..16usize {
            let m = &mut masks[p * 16 + v];
            for (i, &c) in cells.iter().enumerate().filter(|(i, _)| v >> i & 1 == 1) {
                let _ = i;
                for &u in arena.thief_steps(c as u32) {
                    m[u as usize / 64 - b] |= 1 << (u % 64);
                }
            }
        }
    }
    (base, masks)
}
