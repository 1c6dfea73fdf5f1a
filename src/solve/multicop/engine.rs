//! The bit-parallel k-cop engine.
//!
//! Four bitsets, each one row of thief cells per cop multiset (rank `r`):
//! `cw` cops to move and the cops have won, `cl` cops to move and lost,
//! `tl` thief to move and lost, `tw` thief to move and won. Each holds the
//! states decided up to the current level, so with `d` the level:
//!
//! - `cw[d+1] = capture | (open & EXISTS joint cop move into tl[d])`
//! - `cl[d+1] = term_cl | (open & FORALL joint cop moves into tw[d])`
//! - `tl[d+1] = term_tl | (open & FORALL thief moves into cw[d])`
//! - `tw[d+1] = exits   | (open & EXISTS thief move into cl[d])`
//!
//! and a state's level is exactly its distance to end (WIN = 1 + min over
//! LOSS successors, LOSS = 1 + max over successors). The joint cop move
//! is k single-cop steps through tables of partly-moved tuples: `S_j(A, B)`
//! with `A` the j cops not yet moved and `B` the k - j destinations
//! already chosen, `S_0 = tl`, `S_{j+1}(A + a, B) = OP_{a' in R(a)}
//! S_j(A, B + a')`; so a row reads `k * |R|` rows instead of `|R|^k`. The
//! thief's move reads only its own row: an OR of neighbour rows of the
//! graph (a dilation), `S` of them for speed `S`, intermediate cells masked
//! by the cops' cells.
//!
//! A cop step visits its rows in cache-sized tiles (`engine/tiles.rs`);
//! where the thief can win nowhere the EXISTS steps run incrementally,
//! reading only the source rows that changed (`engine/delta.rs`).

mod delta;
mod thief;
mod tiles;

use rayon::prelude::*;

use super::levels::{self, KcopRun};
use super::solution::KSolution;
use super::store::thief_can_win;
use super::store::{Arrays, Words};
use crate::error::Result;
use crate::games::arena::Arena;
use crate::games::cops::Turn;
use crate::games::multiset::{multiset_count, next_multiset, unrank_multiset, Ranker, MAX_COPS};
use crate::games::position::Position;

/// Options of a k-cop solve.
#[derive(Clone, Debug, Default)]
pub struct KcopOptions {
    /// Number of cops, 1 to 4.
    pub cops: usize,
    /// Keep a per-state distance table (2 bytes a state).
    pub dte_table: bool,
    /// A state whose distance to record.
    pub start: Option<Position>,
    /// Stop at the first level where some placement wins against every
    /// thief cell (the cop number's question); values are then partial.
    pub stop_when_placed: bool,
    /// How the thief's steps are read: `None` picks (neighbour lists when
    /// every cell has fewer neighbours than a row has words, else rows);
    /// `Some(true)` lists, `Some(false)` rows. Both give the same answer:
    /// tests force each on small arenas.
    pub thief_lists: Option<bool>,
}

/// Which of the two attractors a cop step computes.
#[derive(Clone, Copy)]
enum Op {
    Exists,
    ForAll,
}

/// Solves the k-cop game on `arena`.
///
/// # Panics
/// If `options.cops` is not 1 to 4, an arena field has the wrong length, or
/// the state space does not fit this machine's `usize`.
#[must_use]
pub fn solve_kcops(arena: &Arena, options: &KcopOptions) -> KSolution {
    solve_kcops_with(arena, options, &KcopRun::default())
        .expect("a solve in memory without checkpoints does not fail")
}

/// As [`solve_kcops`], with the arrays where `with.storage` puts them
/// (scratch files under a memory cap) and checkpoints between levels
/// (`with.sink`), or resumed from one (`with.resume`).
///
/// # Errors
/// [`Error::TooLarge`](crate::Error::TooLarge) when the arrays do not fit
/// the storage, [`Error::Alloc`](crate::Error::Alloc) when a scratch file
/// cannot be made, [`Error::Checkpoint`](crate::Error::Checkpoint) when
/// the checkpoint resumed from does not fit this solve, what the sink
/// returns, and [`Error::Stopped`](crate::Error::Stopped) when the sink
/// asked to stop after a snapshot.
///
/// # Panics
/// As [`solve_kcops`].
pub fn solve_kcops_with(
    arena: &Arena,
    options: &KcopOptions,
    with: &KcopRun<'_>,
) -> Result<KSolution> {
    let k = options.cops;
    assert!((1..=MAX_COPS).contains(&k), "1 to {MAX_COPS} cops");
    Engine::new(arena, k, options.thief_lists).run(options, with)
}

struct Engine<'a> {
    arena: &'a Arena,
    n: usize,
    k: usize,
    words: usize,
    ranks: usize,
    ranker: Ranker,
    reach: Vec<Vec<u32>>,
    /// `rev[x]`: the cells whose cop reaches `x` (`reach` reversed).
    rev: Vec<Vec<u32>>,
    /// Thief neighbour rows, `n * words`; empty when `lists` is used.
    adj: Vec<u64>,
    /// Whether the thief's steps are read as neighbour lists instead of
    /// rows: when every cell has fewer neighbours than a row has words
    /// (grid maps, sparse graphs), setting a few bits beats OR-ing a row.
    lists: bool,
    cells: Vec<u64>,
    exits: Vec<u64>,
    /// Cells where the thief has no move at all.
    stuck: Vec<u64>,
    /// Whether some cop cell has no move (then some cop rows have none).
    thief_can_win: bool,
}

fn bitset(n: usize, words: usize, f: impl Fn(usize) -> bool) -> Vec<u64> {
    let mut v = vec![0u64; words];
    for i in (0..n).filter(|&i| f(i)) {
        v[i / 64] |= 1 << (i % 64);
    }
    v
}

impl<'a> Engine<'a> {
    fn new(arena: &'a Arena, k: usize, thief_lists: Option<bool>) -> Engine<'a> {
        let n = arena.cells() as usize;
        let words = n.div_ceil(64).max(1);
        let ranks = usize::try_from(multiset_count(n, k)).expect("state space fits usize");
        let reach: Vec<Vec<u32>> = (0..n as u32).map(|c| arena.cop_reach(c).to_vec()).collect();
        let mut rev = vec![Vec::new(); n];
        for (c, r) in reach.iter().enumerate() {
            for &x in r {
                rev[x as usize].push(c as u32);
            }
        }
        let max_degree = (0..n as u32)
            .map(|c| arena.thief_steps(c).len())
            .max()
            .unwrap_or(0);
        let lists = thief_lists.unwrap_or(max_degree < words);
        let mut adj = vec![0u64; if lists { 0 } else { n * words }];
        for u in (0..n).filter(|_| !lists) {
            for &v in arena.thief_steps(u as u32) {
                adj[u * words + v as usize / 64] |= 1 << (v % 64);
            }
        }
        let stuck = bitset(n, words, |t| {
            !arena.passes().1 && arena.thief_steps(t as u32).is_empty()
        });
        let thief_can_win = thief_can_win(arena);
        debug_assert_eq!(
            thief_can_win,
            arena.exit_count() > 0
                || reach.iter().any(Vec::is_empty)
                || stuck.iter().any(|&w| w != 0)
        );
        Engine {
            arena,
            n,
            k,
            words,
            ranks,
            ranker: Ranker::new(n),
            reach,
            rev,
            adj,
            lists,
            cells: bitset(n, words, |_| true),
            exits: bitset(n, words, |t| arena.is_exit(t as u32)),
            stuck,
            thief_can_win,
        }
    }

    fn cop_mask(&self, cops: &[u32], out: &mut [u64]) {
        out.fill(0);
        for &c in cops {
            out[c as usize / 64] |= 1 << (c % 64);
        }
    }

    /// Rows per parallel task: enough tasks to balance, each long enough
    /// to pay for unranking its first row.
    fn chunk_rows(&self, rows: usize) -> usize {
        (rows / (rayon::current_num_threads() * 16)).clamp(64, 1 << 16)
    }

    /// One joint cop move over `src` (shape `(0, k)`) into `out` (shape
    /// `(k, 0)`), through the intermediate tables `inter[j]` (shape `(j, k -
    /// j)`), then the terminal and open masks of `op`'s attractor.
    ///
    /// Incremental when `delta` is given: `(src_changed, prev_out)`, the
    /// source rows that changed since the previous call of this same op
    /// and that call's output. A row whose sources did not change keeps
    /// its value (the intermediate tables still hold it; an output row is
    /// copied from `prev_out`), so late levels, where few rows change,
    /// read a byte a row instead of `|R|` rows. `changed[j]` holds, per
    /// row of table `j` (the last is `out`), whether it changed. For
    /// EXISTS the sources must only have grown since that call (so rows
    /// only OR in their changed sources: `delta.rs`); for FORALL a row with
    /// a changed source is recomputed.
    fn cop_move(
        &self,
        op: Op,
        src: &[u64],
        inter: &mut [Words<u64>],
        changed: &mut [Vec<u8>],
        delta: Option<(&[u8], &[u64])>,
        out: &mut [u64],
    ) {
        let (n, k, words) = (self.n, self.k, self.words);
        let fill = match op {
            Op::Exists => 0,
            Op::ForAll => u64::MAX,
        };
        for j in 0..k {
            let (before, after) = inter.split_at_mut(j + 1);
            let from: &[u64] = if j == 0 { src } else { &before[j] };
            let to: &mut [u64] = if j + 1 == k { &mut *out } else { &mut after[0] };
            let (seen, mark) = changed.split_at_mut(j);
            let from_changed: Option<&[u8]> = match delta {
                None => None,
                Some((src_changed, _)) if j == 0 => Some(src_changed),
                Some(_) => Some(&seen[j - 1]),
            };
            let mark: &mut [u8] = if delta.is_some() {
                &mut mark[0]
            } else {
                &mut []
            };
            let prev_out = delta.map(|d| d.1);
            let last = j + 1 == k;
            if let (Op::Exists, Some(from_changed)) = (op, from_changed) {
                let prev_out = prev_out.filter(|_| last);
                self.exists_step(j, from, from_changed, to, mark, prev_out);
                continue;
            }
            let nb_src = multiset_count(n, k - j) as usize;
            // All-zero sources (the terminal level's `empty`): every row
            // is `fill` (no move) or zero, without reading a source.
            let zero = from.par_chunks(1 << 16).all(|c| c.iter().all(|&w| w == 0));
            self.par_tiles(j, to, mark, |a, b, index, row, scratch, _| {
                let top = a[j];
                let ra = (self.ranker.rank(a) - self.ranker.term(j, top)) as usize;
                let base = ra * nb_src;
                let reach = &self.reach[top as usize];
                let source = |x: u32| base + self.ranker.rank_with(b, x) as usize;
                if let Some(from_changed) = from_changed {
                    if reach.iter().all(|&x| from_changed[source(x)] == 0) {
                        if let (true, Some(prev)) = (last, prev_out) {
                            row.copy_from_slice(&prev[index * words..(index + 1) * words]);
                        }
                        return false;
                    }
                }
                scratch.fill(fill);
                if zero && !reach.is_empty() {
                    scratch.fill(0);
                }
                for &x in reach.iter().filter(|_| !zero) {
                    let s = source(x) * words;
                    let s = &from[s..s + words];
                    match op {
                        Op::Exists => scratch.iter_mut().zip(s).for_each(|(r, v)| *r |= v),
                        Op::ForAll => scratch.iter_mut().zip(s).for_each(|(r, v)| *r &= v),
                    }
                }
                if last {
                    self.finish_cop_row(op, a, scratch);
                }
                let old: &[u64] = match (last, prev_out) {
                    (true, Some(prev)) => &prev[index * words..(index + 1) * words],
                    _ => row,
                };
                let change = old != &scratch[..];
                row.copy_from_slice(scratch);
                change
            });
        }
    }

    /// Masks a freshly moved cops-to-move row: terminal states at their
    /// level-0 value, open states as computed.
    fn finish_cop_row(&self, op: Op, cops: &[u32], row: &mut [u64]) {
        let no_move = cops.iter().any(|&c| self.reach[c as usize].is_empty());
        for (w, r) in row.iter_mut().enumerate() {
            let cm = cop_word(cops, w);
            let open = self.cells[w] & !cm & !self.exits[w];
            *r = match op {
                Op::Exists => cm | (open & *r),
                Op::ForAll => {
                    let term = (self.exits[w] & !cm) | if no_move { open } else { 0 };
                    term | (open & *r)
                }
            };
        }
    }

    fn run(self, options: &KcopOptions, with: &KcopRun<'_>) -> Result<KSolution> {
        let (n, k, words, ranks) = (self.n, self.k, self.words, self.ranks);
        let two = self.thief_can_win;
        let arrays = Arrays::new(self.arena, k, options.dte_table, &with.storage)?;
        let Arrays {
            mut dte,
            mut inter,
            sets: [mut cw, mut cl, mut tl, mut tw],
            next: [mut cw2, mut cl2, mut tl2, mut tw2],
        } = arrays;
        // Where the thief can win nowhere, the cops' WIN move is the only
        // one and runs incrementally (`cop_move`): one byte a row of every
        // table says whether it changed at the last level.
        let mut changed: Vec<Vec<u8>> = (0..k)
            .map(|j| {
                let rows = multiset_count(n, j + 1) * multiset_count(n, k - j - 1);
                vec![0u8; if two { 0 } else { rows as usize }]
            })
            .collect();
        let (mut tl_changed, mut tl_changed2) = (vec![0u8; ranks], vec![0u8; ranks]);
        let start = options.start.as_ref().map(|s| {
            (
                crate::games::multiset::rank_multiset(&s.cops) as usize,
                s.thief as usize,
                usize::from(s.turn == Turn::Thief),
            )
        });
        let mut sol = KSolution {
            n,
            k,
            words,
            cw: Words::Heap(Vec::new()),
            cl: Words::Heap(Vec::new()),
            tl: Words::Heap(Vec::new()),
            tw: Words::Heap(Vec::new()),
            levels: 0,
            dte: None,
            start_dte: None,
            placement: None,
        };
        let shape = [n as u64, k as u64, words as u64];
        let mut reporting = levels::Reporting::new(with, (ranks * n * 2) as u64);
        let mut level = 0u32;
        if let Some(from) = with.resume {
            level = levels::restore(
                from,
                shape,
                [&mut cw, &mut cl, &mut tl, &mut tw],
                &mut dte,
                &mut sol,
            )?;
        } else {
            // Level 0: the terminal states, as the level-d formulas give
            // them from empty attractors (`cw2`, still all zero).
            let empty = &cw2;
            self.cop_move(Op::Exists, empty, &mut inter, &mut changed, None, &mut cw);
            if two {
                // FORALL over moves into nothing holds only without a move.
                self.cop_move(Op::ForAll, empty, &mut inter, &mut changed, None, &mut cl);
            }
            self.thief_move(empty, empty, None, &mut tl, &mut tw, &mut tl_changed);
            self.record(
                0,
                [empty; 4],
                [&cw, &cl, &tl, &tw],
                &mut dte,
                start,
                &mut sol,
            );
        }
        reporting.level(level, [&cw, &cl, &tl, &tw], false);
        // After a resume the first level runs in full: the tables of
        // partly-moved tuples and the changed-row flags are not saved.
        let mut fresh = with.resume.is_some();
        while !(options.stop_when_placed && sol.placement.is_some()) {
            // Thief rows first: `cw2` and `cl2` still hold level d - 1.
            let prev = (level > 0 && !fresh).then_some([&tl[..], &tw[..], &cw2[..], &cl2[..]]);
            self.thief_move(&cw, &cl, prev, &mut tl2, &mut tw2, &mut tl_changed2);
            // `tl_changed`: the rows where `tl` (level d) differs from
            // level d - 1, whose values the tables still hold.
            let delta = (!two && !fresh).then_some((&tl_changed[..], &cw[..]));
            self.cop_move(Op::Exists, &tl, &mut inter, &mut changed, delta, &mut cw2);
            if two {
                self.cop_move(Op::ForAll, &tw, &mut inter, &mut changed, None, &mut cl2);
            }
            fresh = false;
            if cw2[..] == cw[..] && tl2[..] == tl[..] && cl2[..] == cl[..] && tw2[..] == tw[..] {
                break;
            }
            level += 1;
            self.record(
                level,
                [&cw, &cl, &tl, &tw],
                [&cw2, &cl2, &tl2, &tw2],
                &mut dte,
                start,
                &mut sol,
            );
            std::mem::swap(&mut cw, &mut cw2);
            std::mem::swap(&mut cl, &mut cl2);
            std::mem::swap(&mut tl, &mut tl2);
            std::mem::swap(&mut tw, &mut tw2);
            std::mem::swap(&mut tl_changed, &mut tl_changed2);
            reporting.level(level, [&cw, &cl, &tl, &tw], false);
            if let Some(sink) = with.sink {
                levels::checkpoint(
                    sink,
                    level,
                    shape,
                    [&cw, &cl, &tl, &tw],
                    dte.as_deref(),
                    &sol,
                )?;
            }
        }
        reporting.finish(level, [&cw, &cl, &tl, &tw]);
        // The next-level sets and the tables go before the solution is
        // built, so the peak stays that of a level (`kcop_memory_for`).
        drop((cw2, tl2, cl2, tw2, inter, changed, tl_changed, tl_changed2));
        sol.cw = cw;
        sol.tl = tl;
        sol.cl = cl;
        sol.tw = tw;
        sol.levels = level;
        sol.dte = dte;
        Ok(sol)
    }

    /// Notes the states new at `level` (in `next`, not in `prev`): the
    /// distance table, the start, and the first all-WIN placement row.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        level: u32,
        prev: [&[u64]; 4],
        next: [&[u64]; 4],
        dte: &mut Option<Words<u16>>,
        start: Option<(usize, usize, usize)>,
        sol: &mut KSolution,
    ) {
        let (n, words) = (self.n, self.words);
        let d16 = u16::try_from(level).unwrap_or(u16::MAX - 1);
        let bit = |v: &[u64], r: usize, t: usize| {
            !v.is_empty() && v[r * words + t / 64] >> (t % 64) & 1 == 1
        };
        if let Some((r, t, turn)) = start {
            if sol.start_dte.is_none() {
                let (a, b) = if turn == 0 { (0, 1) } else { (2, 3) };
                if bit(next[a], r, t) || bit(next[b], r, t) {
                    sol.start_dte = Some(level);
                }
            }
        }
        if sol.placement.is_none() {
            let found = next[0]
                .par_chunks(words)
                .position_first(|row| row == self.cells.as_slice());
            if let Some(r) = found {
                sol.placement = Some((unrank_multiset(r as u64, self.k), level));
            }
        }
        // No cells, no rows: `par_chunks_mut` takes no empty chunk.
        if let Some(d) = dte.as_mut().filter(|_| n > 0) {
            // Out of core a block of rows at a time, each dropped after.
            d.by_blocks(2 * n, |first, rows| {
                rows.par_chunks_mut(2 * n).enumerate().for_each(|(i, out)| {
                    let r = first + i;
                    for (set, turn) in [(0, 0), (1, 0), (2, 1), (3, 1)] {
                        if next[set].is_empty() {
                            continue;
                        }
                        for w in 0..words {
                            let old = if prev[set].is_empty() {
                                0
                            } else {
                                prev[set][r * words + w]
                            };
                            let mut new = next[set][r * words + w] & !old;
                            while new != 0 {
                                let t = w * 64 + new.trailing_zeros() as usize;
                                new &= new - 1;
                                out[t * 2 + turn] = d16;
                            }
                        }
                    }
                });
            });
        }
    }
}

/// The bits of word `w` of a cop multiset's cells.
#[inline]
fn cop_word(cops: &[u32], w: usize) -> u64 {
    cops.iter()
        .filter(|&&c| c as usize / 64 == w)
        .fold(0, |m, &c| m | 1 << (c % 64))
}
