//! The cops' joint move of the k-cop engine, one block of rows per top
//! cell, updating the cops-to-move rows in place from the source rows
//! that changed.
//!
//! The rows of the cops' multisets `C = {c_1 <= ... <= c_k}` with top
//! `c_k = t` are contiguous in rank order (colex): block `t`. Its joint
//! move is k single-cop steps through tables of partly-moved tuples that
//! belong to the block alone, the top cop moved first:
//!
//! - `U_1(B) = OP_{z in R(t)} src(B + z)`, `B` any (k - 1)-multiset;
//! - `U_{j+1}(M, B) = OP_{a' in R(a)} U_j(M - a, B + a')`, `M` a
//!   j-multiset of cells `<= t` (the cops other than the top not moved
//!   yet), `a = min(M)`, `B` any (k - j - 1)-multiset;
//! - the block's row `M + t` is `U_k(M, {})`.
//!
//! So a row reads `k * |R|` rows instead of `|R|^k`, no table outlives its
//! block (a task's tables are a few rows of `n` for two cops, so they stay
//! in its core's cache), and blocks are independent tasks.
//!
//! Both attractors only grow from level to level, and so the step reads
//! only what changed: a block none of whose source rows changed is
//! skipped; for EXISTS (the cops' WIN move into `tl`) a row's new value is
//! its old value OR the moves into changed source rows alone (`U_j` then
//! holds ORs of changed sources only); for FORALL (the cops' LOSS move
//! into `tw`) a row some of whose sources changed is recomputed in full,
//! with only the table rows it needs.
//!
//! Lazy cops (one cop moves a turn) need no tables: row `C` reads the
//! rows `C - c + x` for each distinct cell `c` of `C` and `x` in `R(c)`,
//! `k * |R|` of them, directly ([`Engine::lazy_block`]); EXISTS ORs the
//! changed ones into the row, FORALL recomputes a row with a changed
//! source over all of them.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::super::memory::table_rows;
use super::rows::{cop_word, or_rows};
use super::{Engine, Op, MAX_COPS};
use crate::games::multiset::{multiset_count, next_multiset};

/// What a cop step did: the states it decided, the rows that changed, the
/// least rank of a row that became all WIN, and the least `rank * n +
/// thief` of a state it decided (the summary's longest start placement
/// when no later step decides any).
#[derive(Default)]
pub(super) struct Stepped {
    pub(super) decided: u64,
    pub(super) rows: u64,
    pub(super) full: Option<u64>,
    pub(super) first: Option<u64>,
}

/// One task's tables of partly-moved tuples, `U_1 .. U_{k-1}` (index `j -
/// 1`), sized for the largest block, and per row whether it is dirty (a
/// source changed) and whether a FORALL row needs it.
pub(super) struct Tables {
    pub(super) vals: Vec<Vec<u64>>,
    pub(super) dirty: Vec<Vec<u8>>,
    pub(super) needed: Vec<Vec<u8>>,
    /// Dirty and needed flags of the block's own rows.
    pub(super) out_dirty: Vec<u8>,
    pub(super) row: Vec<u64>,
    pub(super) sources: Vec<usize>,
}

impl Tables {
    fn new(engine: &Engine<'_>) -> Tables {
        let (n, k, words) = (engine.n, engine.k, engine.words);
        let last = n.max(1) - 1;
        let rows = |j: usize| table_rows(n, k, j, last);
        Tables {
            vals: (1..k).map(|j| vec![0u64; rows(j) * words]).collect(),
            dirty: (1..k).map(|j| vec![0u8; rows(j)]).collect(),
            needed: (1..k).map(|j| vec![0u8; rows(j)]).collect(),
            out_dirty: vec![0u8; rows(k)],
            row: vec![0u64; words],
            sources: Vec::new(),
        }
    }
}

/// What a step reads: the source rows (level d), which of them changed
/// since level d - 1 (`None`: all count as changed) and the cells some
/// changed row holds a cop on (`None`: all).
#[derive(Clone, Copy)]
pub(super) struct Source<'s> {
    pub(super) rows: &'s [u64],
    pub(super) changed: Option<&'s [u8]>,
    pub(super) touched: Option<&'s [bool]>,
    /// When few rows changed: per cell `z`, the ranks of `S - z` for the
    /// changed rows `S` that hold a cop on `z` ([`Engine::changed_by_cell`]);
    /// EXISTS then pushes the tables' dirty rows from them.
    pub(super) by_cell: Option<&'s [Vec<u64>]>,
}

/// A cop step pushes from its changed source rows when fewer than one in
/// `SPARSE` changed (three cops on a 200-vertex king's graph: 1 in 8 and 1
/// in 4 alike, 1 in 2 slower).
const SPARSE: usize = 8;

/// Per cell `c`, the highest cell a cop on a cell `<= c` reaches.
pub(super) fn reach_hi(reach: &[Vec<u32>]) -> Vec<u32> {
    let mut hi = 0;
    reach
        .iter()
        .map(|moves| {
            hi = moves.iter().copied().fold(hi, u32::max);
            hi
        })
        .collect()
}

/// Asks for the cache line at `p` ahead of its use.
#[inline(always)]
fn prefetch(p: *const u64) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is a hint: it reads nothing and never faults,
        // whatever the address; SSE is part of every x86_64 target.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// A block's share of a step's outputs: its rows, which words of each
/// changed ([`Engine::group_bit`]) and its distance rows.
pub(super) struct Block<'o> {
    pub(super) t: usize,
    pub(super) rows: &'o mut [u64],
    pub(super) changed: &'o mut [u64],
    /// The bits gained by the first two changed words of each row (empty
    /// when the engine keeps none).
    pub(super) gains: &'o mut [[u64; 2]],
    pub(super) dte: Option<&'o mut [u16]>,
    /// The least `row * n + thief` (the row within the block) of a state
    /// the step decided here; `u64::MAX` while none.
    pub(super) first: u64,
}

impl Engine<'_> {
    /// Calls `f(row, sources, prefix)` for every row of table `j` (1 to k)
    /// of block `t` in order, with the row's source rows (rows of `src` for
    /// `j = 1`, of table `j - 1` otherwise) and its prefix `M` (`j - 1`
    /// cells `<= t`). For `j = 1` only the moves to cells `touched` allows
    /// are listed (all when `None`). With `only`, the rows it flags alone;
    /// with `ahead` (the source rows), the next row's sources are
    /// prefetched.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn visit(
        &self,
        j: usize,
        t: usize,
        touched: Option<&[bool]>,
        only: Option<&[u8]>,
        ahead: Option<&[u64]>,
        sources: &mut Vec<usize>,
        mut f: impl FnMut(usize, &[usize], &[u32]),
    ) {
        let words = self.words;
        let mut next = Vec::with_capacity(sources.capacity());
        let mut terms = Vec::new();
        let (n, k) = (self.n, self.k);
        let sb = k - j;
        let nb = multiset_count(n, sb) as usize;
        let nb_src = multiset_count(n, sb + 1) as usize;
        let mut m = [0u32; MAX_COPS];
        for rm in 0..multiset_count(t + 1, j - 1) as usize {
            // Table j's row (M, B) reads (M - a, B + a') for a' in R(a),
            // a = min(M); table 1 reads src(B + z) for z in R(t).
            let (moves, base) = if j == 1 {
                (&self.reach[t], 0)
            } else {
                let rest = self.ranker.rank(&m[1..j - 1]) as usize;
                (&self.reach[m[0] as usize], rest * nb_src)
            };
            // Per move `x` (those `touched` allows), `base + term(p, x)` by
            // the position `p` it takes.
            terms.clear();
            for &x in moves {
                if j == 1 && touched.is_some_and(|touched| !touched[x as usize]) {
                    continue;
                }
                let mut at = [0u64; MAX_COPS + 1];
                for (p, at) in at.iter_mut().enumerate().take(sb + 1) {
                    *at = base as u64 + self.ranker.term(p, x);
                }
                terms.push((x, at));
            }
            // The row is read by table j + 1's rows that move a cop `a <=
            // min(M)` (`<= t` for j = 1) to a cell of `B`: none when every
            // cell of `B` lies past `reach_hi[min(M)]`, so it is not worked.
            let lim = if sb == 0 {
                u32::MAX
            } else {
                self.reach_hi[if j == 1 { t } else { m[0] as usize }]
            };
            let mut b = [0u32; MAX_COPS];
            let mut pending = None;
            for rb in 0..nb {
                let row = rm * nb + rb;
                if b[0] > lim || only.is_some_and(|only| only[row] == 0) {
                    next_multiset(&mut b[..sb], n);
                    continue;
                }
                // Each source ranked from the row's gaps: ranking each from
                // scratch took a quarter of the cops' step.
                let gap = self.ranker.gaps(&b[..sb]);
                next.clear();
                for (x, at) in &terms {
                    let p = b[..sb].iter().filter(|&&c| c < *x).count();
                    next.push((gap[p] + at[p]) as usize);
                }
                // The next row's sources are fetched while this one is
                // worked: table 1's source rows lie all over the set (3%
                // of the CPU of three cops on the king's graph).
                if let Some(from) = ahead {
                    for &s in &next {
                        prefetch(from.as_ptr().wrapping_add(s * words));
                    }
                }
                if let Some(before) = pending {
                    f(before, sources, &m[..j - 1]);
                }
                std::mem::swap(sources, &mut next);
                pending = Some(row);
                next_multiset(&mut b[..sb], n);
            }
            if let Some(before) = pending {
                f(before, sources, &m[..j - 1]);
            }
            next_multiset(&mut m[..j - 1], t + 1);
        }
    }

    /// The cops' move of one level, in place: `out` (the cops-to-move
    /// attractor of `op`, at level d) becomes level d + 1 from `src` (the
    /// thief-to-move rows of level d), of whose rows `src_changed` flags
    /// those that changed since level d - 1 (`None`: all did, or `out` was
    /// computed from nothing). `out_changed` gets, per row, which of its
    /// words changed ([`Engine::group_bit`]; 0: none); the distance table,
    /// `level` for the states decided.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn cop_step(
        &self,
        op: Op,
        src: &[u64],
        src_changed: Option<&[u8]>,
        out: &mut [u64],
        out_changed: &mut [u64],
        out_gains: &mut [[u64; 2]],
        dte: Option<&mut [u16]>,
        level: u16,
    ) -> Stepped {
        let (n, k, words) = (self.n, self.k, self.words);
        // Few changed source rows: EXISTS pushes the tables' dirty rows from
        // them (per cell `z`, the changed rows less a cop on `z`) rather than
        // pull every table row's sources, which cost as much as a dense
        // level's whole step.
        let by_cell = src_changed.filter(|flags| {
            op == Op::Exists
                && !self.lazy
                && flags.par_iter().filter(|&&f| f != 0).count() * SPARSE < self.ranks
        });
        let by_cell = by_cell.map(|flags| self.changed_by_cell(flags));
        // The cells some changed source row holds a cop on: a block whose
        // top reaches none of them reads no changed row.
        let touched: Option<Vec<bool>> = match (&by_cell, src_changed) {
            (Some(lists), _) => Some(lists.iter().map(|l| !l.is_empty()).collect()),
            (None, Some(flags)) => Some(self.touched_cells(flags)),
            (None, None) => None,
        };
        if touched.as_ref().is_some_and(|t| !t.contains(&true)) {
            out_changed.fill(0);
            return Stepped::default();
        }
        let mut blocks = Vec::with_capacity(n);
        let (mut rows, mut changed, mut dte) = (out, out_changed, dte);
        let mut gains = out_gains;
        for t in 0..n {
            let len = multiset_count(t + 1, k - 1) as usize;
            let (here, more) = std::mem::take(&mut rows).split_at_mut(len * words);
            let (flags, fmore) = std::mem::take(&mut changed).split_at_mut(len);
            let glen = len.min(gains.len());
            let (g, gmore) = std::mem::take(&mut gains).split_at_mut(glen);
            gains = gmore;
            let (d, dmore) = match dte.take() {
                Some(d) => {
                    let (a, b) = d.split_at_mut(len * 2 * n);
                    (Some(a), Some(b))
                }
                None => (None, None),
            };
            blocks.push(Block {
                t,
                rows: here,
                changed: flags,
                gains: g,
                dte: d,
                first: u64::MAX,
            });
            (rows, changed, dte) = (more, fmore, dmore);
        }
        // A partitioned solve's band: its own blocks alone.
        blocks.retain(|b| self.tops.contains(&b.t));
        let full = AtomicU64::new(u64::MAX);
        let touched = touched.as_deref();
        let source = Source {
            rows: src,
            changed: src_changed,
            touched,
            by_cell: by_cell.as_deref(),
        };
        if self.lazy {
            let (decided, rows, first) = blocks
                .into_par_iter()
                .map_init(
                    || (Vec::new(), vec![0u64; words]),
                    |(sources, tmp), mut block| {
                        let (decided, rows) =
                            self.lazy_block(op, source, sources, tmp, &mut block, level, &full);
                        if let Some(paging) = &self.paging {
                            paging.touched(block.rows.len() as u64 * 8);
                        }
                        (decided, rows, self.first_state(&block))
                    },
                )
                .reduce(|| (0, 0, u64::MAX), sum_steps);
            return Stepped::of(decided, rows, full.into_inner(), first);
        }
        let (decided, rows, first) = blocks
            .into_par_iter()
            .map_init(
                || Tables::new(self),
                |tables, mut block| {
                    let t = block.t;
                    if touched.is_some_and(|s| !self.reach[t].iter().any(|&z| s[z as usize])) {
                        block.changed.fill(0);
                        return (0, 0, u64::MAX);
                    }
                    let (decided, rows) = match op {
                        Op::Exists => self.exists_block(source, tables, &mut block, level, &full),
                        Op::ForAll => self.forall_block(source, tables, &mut block, level),
                    };
                    if let Some(paging) = &self.paging {
                        paging.touched(block.rows.len() as u64 * 8);
                    }
                    (decided, rows, self.first_state(&block))
                },
            )
            .reduce(|| (0, 0, u64::MAX), sum_steps);
        Stepped::of(decided, rows, full.into_inner(), first)
    }

    /// The least `rank * n + thief` of a state the step decided in
    /// `block` (`u64::MAX` when none).
    fn first_state(&self, block: &Block<'_>) -> u64 {
        if block.first == u64::MAX {
            return u64::MAX;
        }
        self.ranker.term(self.k - 1, block.t as u32) * self.n as u64 + block.first
    }

    /// EXISTS on block `t`: per row of every table whether a source
    /// changed, and the OR of the changed sources; each of the block's rows
    /// with a changed source gets the OR into its open cells. Kept out of
    /// line, as FORALL's block: inlined into `cop_step`'s closure (which
    /// LLVM did once the level step had one caller, `level.rs`) the pair
    /// cost two cops on maze-32-32-2 2% more CPU.
    #[inline(never)]
    fn exists_block(
        &self,
        source: Source<'_>,
        tables: &mut Tables,
        block: &mut Block<'_>,
        level: u16,
        full: &AtomicU64,
    ) -> (u64, u64) {
        let (k, words) = (self.k, self.words);
        let Source {
            rows: src,
            changed: src_changed,
            touched,
            by_cell,
        } = source;
        if let Some(by_cell) = by_cell {
            self.push_dirty(by_cell, tables, block.t);
            block.changed.fill(0);
        }
        let mut sources = std::mem::take(&mut tables.sources);
        let mut done = (0, 0);
        for j in 1..=k {
            let (before, after) = tables.vals.split_at_mut(j - 1);
            let (dbefore, dafter) = tables.dirty.split_at_mut(j - 1);
            let from: &[u64] = if j == 1 { src } else { &before[j - 2] };
            let from_dirty: Option<&[u8]> = if j == 1 {
                src_changed
            } else {
                Some(&dbefore[j - 2])
            };
            let dirty = |s: usize| from_dirty.is_none_or(|d| d[s] != 0);
            if j < k {
                let to = &mut after[0];
                // Pushed: the rows found dirty alone are worked; pulled:
                // every row, noting which had a changed source.
                let (only, mut to_dirty) = if by_cell.is_some() {
                    (Some(&*dafter[0]), None)
                } else {
                    (None, Some(&mut *dafter[0]))
                };
                self.visit(
                    j,
                    block.t,
                    touched,
                    only,
                    (j == 1).then_some(from),
                    &mut sources,
                    |row, srcs, _| {
                        let target = &mut to[row * words..(row + 1) * words];
                        let any = or_rows(target, from, srcs, dirty);
                        if let Some(flags) = to_dirty.as_deref_mut() {
                            flags[row] = u8::from(any);
                        }
                    },
                );
                continue;
            }
            let only = by_cell.map(|_| &*tables.out_dirty);
            let tmp = &mut tables.row;
            self.visit(
                j,
                block.t,
                touched,
                only,
                (j == 1).then_some(from),
                &mut sources,
                |row, srcs, m| {
                    block.changed[row] = 0;
                    let old = &block.rows[row * words..(row + 1) * words];
                    if !srcs.iter().any(|&s| dirty(s)) || self.row_full(old, m, block.t) {
                        return;
                    }
                    or_rows(tmp, from, srcs, dirty);
                    let got = self.merge_row(block, row, m, tmp, level, Some(full));
                    done.0 += got;
                    done.1 += u64::from(got > 0);
                },
            );
        }
        tables.sources = sources;
        done
    }

    /// Whether a cops-to-move row has no open cell left undecided: every
    /// cell in it, or a cop's, or an exit. (An exit is decided at level 0;
    /// a cop's cell is WIN from level 0 and never LOSS, so a row is full
    /// for `cl` as soon as its open cells are.)
    #[inline]
    pub(super) fn row_full(&self, row: &[u64], m: &[u32], t: usize) -> bool {
        let cops = |w: usize| cop_word(m, w) | cop_word(&[t as u32], w);
        row.iter()
            .zip(&self.open_base)
            .enumerate()
            .all(|(w, (r, o))| o & !r & !cops(w) == 0)
    }

    /// ORs the move's value `val` (the thief cells from which the cops'
    /// move reaches the attractor) into block row `row` (cops `m + t`) on
    /// its open cells; notes the states decided in the distance table and
    /// whether the row changed; an EXISTS row that now holds every cell
    /// is a candidate placement (`full`, the least rank). Returns the
    /// states decided.
    pub(super) fn merge_row(
        &self,
        block: &mut Block<'_>,
        row: usize,
        m: &[u32],
        val: &mut [u64],
        level: u16,
        full: Option<&AtomicU64>,
    ) -> u64 {
        let (n, words) = (self.n, self.words);
        let t = block.t as u32;
        for &c in m.iter().chain(std::iter::once(&t)) {
            val[c as usize / 64] &= !(1 << (c % 64));
        }
        let old = &mut block.rows[row * words..(row + 1) * words];
        let mut decided = 0;
        let mut words_changed = 0u64;
        let mut kept = 0;
        for (w, (o, v)) in old.iter_mut().zip(val.iter()).enumerate() {
            let mut gain = v & self.open_base[w] & !*o;
            if gain == 0 {
                continue;
            }
            if decided == 0 {
                // The row's first state decided (words in ascending order).
                let thief = (w * 64) as u64 + u64::from(gain.trailing_zeros());
                block.first = block.first.min(row as u64 * n as u64 + thief);
            }
            *o |= gain;
            words_changed |= self.group_bit(w);
            if let Some(slot) = block.gains.get_mut(row).filter(|_| kept < 2) {
                slot[kept] = gain;
                kept += 1;
            }
            decided += u64::from(gain.count_ones());
            if let Some(dte) = block.dte.as_deref_mut() {
                let d = &mut dte[row * 2 * n..(row + 1) * 2 * n];
                while gain != 0 {
                    let thief = w * 64 + gain.trailing_zeros() as usize;
                    gain &= gain - 1;
                    d[thief * 2] = level;
                }
            }
        }
        if decided > 0 {
            block.changed[row] = words_changed;
            if let Some(full) = full.filter(|_| old == self.cells.as_slice()) {
                let first = self.ranker.term(self.k - 1, t) as usize;
                full.fetch_min((first + row) as u64, Ordering::Relaxed);
            }
        }
        decided
    }
}

impl Stepped {
    /// A cop step's result from its sums; `full` and `first` are
    /// `u64::MAX` when none.
    fn of(decided: u64, rows: u64, full: u64, first: u64) -> Stepped {
        Stepped {
            decided,
            rows,
            full: (full != u64::MAX).then_some(full),
            first: (first != u64::MAX).then_some(first),
        }
    }
}

/// Two blocks' (decided, rows, first state) together.
fn sum_steps(a: (u64, u64, u64), b: (u64, u64, u64)) -> (u64, u64, u64) {
    (a.0 + b.0, a.1 + b.1, a.2.min(b.2))
}
