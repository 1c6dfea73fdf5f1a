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
//! The cops' move runs per block of rows with the same top cell
//! (`engine/cops.rs`), each block with tables of its own; all four
//! attractors only grow, so a level reads only the rows whose sources
//! changed at the level before, and the cops' rows are updated in place.
//! Where the thief can win nowhere, `cl` and `tw` are never allocated.
//!
//! Files: `cops.rs` the cops' step, its tables and EXISTS; `forall.rs`
//! FORALL; `push.rs` EXISTS at a level where few rows changed (dirty rows
//! pushed from the changed ones); `lazy.rs` lazy cops; `thief.rs` the
//! thief's step; `terminal.rs` level 0; `rows.rs` whole-row helpers;
//! `level.rs` one level's step and its arrays, which the local loop here
//! and `partition.rs`, the engine on a band of a partitioned solve, share.

#[cfg(feature = "distributed")]
mod band_save;
mod cops;
mod forall;
mod lazy;
mod level;
#[cfg(feature = "distributed")]
mod partition;
mod push;
mod rows;
#[cfg(feature = "distributed")]
mod swap;
mod terminal;
mod thief;

use super::levels::{self, KcopRun};
use super::memory::thief_can_win;
use super::solution::KSolution;
use super::store::Arrays;
use crate::error::Result;
use crate::games::arena::Arena;
use crate::games::multiset::{multiset_count, unrank_multiset, Ranker, MAX_COPS};
use crate::games::position::Position;
use level::Rows;
#[cfg(feature = "distributed")]
pub(crate) use partition::{
    band_tops, below_minimum, process_reads, solve_band, tops_ranks, KBand,
};

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
    /// How the thief's steps are read: `None` picks (nibble tables of the
    /// dilation and word masks of each cell's moves where they fit; else
    /// neighbour lists when every cell has fewer neighbours than a row has
    /// words, else rows); `Some(true)` lists, `Some(false)` rows, both
    /// without the tables, the masks or the kept gains of the cops' rows.
    /// All give the same answer: tests force each on small arenas.
    pub thief_lists: Option<bool>,
}

/// Which of the two attractors a cop step computes.
#[derive(Clone, Copy, PartialEq)]
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
    /// The ranks whose cop rows (and distances) this engine computes: all
    /// of them, or a band of whole blocks `tops` (ranks of the multisets
    /// whose top cell is in `tops`) in a partitioned solve
    /// (`engine/partition.rs`), whose thief rows outside it come from the
    /// other processes.
    band: std::ops::Range<usize>,
    tops: std::ops::Range<usize>,
    /// The ranks whose thief rows this engine reads or writes: all of
    /// them in one process; in a partitioned solve its band and the rows
    /// its cops' moves reach ([`partition::band_reads`]), the only ones
    /// the other processes send it.
    reads: std::ops::Range<usize>,
    ranker: Ranker,
    reach: Vec<Vec<u32>>,
    /// `reach_from[c]`: the cells from which a cop reaches `c`, ascending.
    reach_from: Vec<Vec<u32>>,
    /// `reach_hi[c]`: the highest cell a cop on a cell `<= c` reaches.
    reach_hi: Vec<u32>,
    /// Thief neighbour rows, `n * words`; empty when `lists` is used.
    adj: Vec<u64>,
    /// Whether the thief's steps are read as neighbour lists instead of
    /// rows: when every cell has fewer neighbours than a row has words
    /// (grid maps, sparse graphs), setting a few bits beats OR-ing a row.
    lists: bool,
    cells: Vec<u64>,
    exits: Vec<u64>,
    /// Cells that are not exits: a row's open cells, less its cops'.
    open_base: Vec<u64>,
    /// Whether the thief's move takes its plain paths (forced lists or
    /// rows: [`KcopOptions::thief_lists`]).
    plain: bool,
    /// The pager of a solve with arrays in scratch files, told what the
    /// steps touch ([`Checker::touched`](crate::storage::pager::Checker)).
    paging: Option<crate::storage::pager::Checker>,
    /// Words of a row per bit of a change mask ([`Engine::group_bit`]).
    group: usize,
    /// Per bit of a change mask, the cells from which the thief has a
    /// move (speed 1) into a cell of its words: `masks * words` words.
    near: Vec<u64>,
    /// Per cell, the thief's moves at speed 1 (its steps, and the cell
    /// itself where it may pass) as bits of the row words `base..base +
    /// 4` (fewer at a row's end); `base` is `u32::MAX` where they span
    /// more words (then the steps are read one by one).
    spans: Vec<(u32, [u64; 4])>,
    /// Per nibble of a row (cells `4p..4p + 4`), the first of four words
    /// that hold its cells' thief steps; empty where some nibble's steps
    /// span more (graphs), and then `dilate` walks lists.
    nib_base: Vec<u32>,
    /// Per nibble and value (`p * 16 + v`), the thief steps of the cells
    /// `v` sets, as four words from the nibble's base.
    nib_masks: Vec<[u64; 4]>,
    /// `thief_from[v]`: the cells from which the thief steps to `v`.
    thief_from: Vec<Vec<u32>>,
    /// Cells where the thief has no move at all.
    stuck: Vec<u64>,
    /// Whether some cop cell has no move (then some cop rows have none).
    thief_can_win: bool,
    /// Lazy cops: one cop moves a turn ([`Arena::lazy`]); the cop step
    /// reads each row's `k * |R|` sources directly (`engine/cops.rs`).
    lazy: bool,
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
        let group = words.div_ceil(64);
        let spans = (0..if thief_lists.is_some() { 0 } else { n as u32 })
            .map(|t| {
                let passes = arena.passes().1;
                let moves: Vec<u32> = arena
                    .thief_steps(t)
                    .iter()
                    .copied()
                    .chain(passes.then_some(t))
                    .collect();
                let lo = moves.iter().min().map_or(0, |&v| v as usize / 64);
                let hi = moves.iter().max().map_or(0, |&v| v as usize / 64);
                let base = lo.min(words.saturating_sub(4));
                if hi >= base + 4 {
                    return (u32::MAX, [0; 4]);
                }
                let mut masks = [0u64; 4];
                for &v in &moves {
                    masks[v as usize / 64 - base] |= 1 << (v % 64);
                }
                (base as u32, masks)
            })
            .collect();
        // Forced lists or rows: the plain paths, without the tables.
        let plain = thief_lists.is_some();
        let (nib_base, nib_masks) = if plain {
            (Vec::new(), Vec::new())
        } else {
            thief::nibble_tables(arena, words)
        };
        let mut thief_from = vec![Vec::new(); n];
        for t in 0..n as u32 {
            for &v in arena.thief_steps(t) {
                thief_from[v as usize].push(t);
            }
        }
        let mut near = vec![0u64; words.div_ceil(group) * words];
        for t in 0..n {
            let passes = arena.passes().1;
            let steps = arena.thief_steps(t as u32).iter().map(|&v| v as usize);
            for v in steps.chain(passes.then_some(t)) {
                near[v / 64 / group * words + t / 64] |= 1 << (t % 64);
            }
        }
        debug_assert_eq!(
            thief_can_win,
            arena.exit_count() > 0
                || reach.iter().any(Vec::is_empty)
                || stuck.iter().any(|&w| w != 0)
        );
        Engine {
            paging: None,
            arena,
            n,
            k,
            words,
            ranks,
            band: 0..ranks,
            tops: 0..n,
            reads: 0..ranks,
            ranker: Ranker::new(n),
            reach_from: push::reach_from(&reach),
            reach_hi: cops::reach_hi(&reach),
            reach,
            adj,
            lists,
            cells: bitset(n, words, |_| true),
            exits: bitset(n, words, |t| arena.is_exit(t as u32)),
            open_base: bitset(n, words, |t| !arena.is_exit(t as u32)),
            stuck,
            thief_can_win,
            lazy: arena.lazy(),
            plain,
            group,
            near,
            thief_from,
            spans,
            nib_base,
            nib_masks,
        }
    }

    fn cop_mask(&self, cops: &[u32], out: &mut [u64]) {
        out.fill(0);
        for &c in cops {
            out[c as usize / 64] |= 1 << (c % 64);
        }
    }

    /// The bit of a cop row's change mask that stands for word `w`: with
    /// `g = ceil(words / 64)` words a bit, bit `w / g`.
    #[inline]
    fn group_bit(&self, w: usize) -> u64 {
        1 << (w / self.group)
    }

    /// Rows per parallel task: enough tasks to balance, each long enough
    /// to pay for unranking its first row.
    fn chunk_rows(&self, rows: usize) -> usize {
        (rows / (rayon::current_num_threads() * 16)).clamp(64, 1 << 16)
    }

    fn run(mut self, options: &KcopOptions, with: &KcopRun<'_>) -> Result<KSolution> {
        let (n, k, words, ranks) = (self.n, self.k, self.words, self.ranks);
        let Arrays { dte, sets, next } =
            Arrays::new(self.arena, k, options.dte_table, &with.storage)?;
        // Keeps the resident set under the cap while the steps walk the
        // arrays in scratch files; declared after them, so dropped first.
        let cap = with.storage.memory;
        let [cw, cl, tl, tw] = &sets;
        let [tl2, tw2] = &next;
        let pager = super::store::pager_for(cap, &[cw, cl, tl, tw, tl2, tw2], dte.as_ref());
        self.paging = pager.as_ref().map(|p| p.checker());
        let mut rows = self.rows(sets, next, dte);
        let start = Self::start_of(options);
        let mut sol = self.empty_solution();
        let shape = [n as u64, k as u64, words as u64];
        let mut reporting = levels::Reporting::new(with, (ranks * n * 2) as u64);
        let mut level = 0u32;
        let between = |flow, poll, level, rows: &Rows, sol: &KSolution| {
            let dte = rows.dte.as_deref();
            levels::between(with.sink, flow, poll, level, shape, rows.sets(), dte, sol)
        };
        if let Some(from) = with.resume {
            let (sets, dte) = rows.sets_mut();
            level = levels::restore(from, shape, sets, dte, &mut sol)?;
            let flow = reporting.restored(level, rows.sets());
            between(flow, false, level, &rows, &sol)?;
        } else {
            let (decided, full) = rows.terminal(&self);
            // State 0 (every cop and the thief on cell 0, the cops to move)
            // is a capture, decided at level 0.
            sol.deepest_cops = (n > 0).then_some((0, 0));
            self.note(0, full, start, rows.sets(), &mut sol);
            let flow = reporting.level(0, decided);
            between(flow, false, 0, &rows, &sol)?;
        }
        // The first level after level 0 or a resume reads every row.
        let mut all = true;
        while !(options.stop_when_placed && sol.placement.is_some()) {
            let (done, ()) = self.step(&mut rows, all, level, |_| ());
            all = false;
            if done.rows() == 0 {
                break;
            }
            level += 1;
            // The cops-to-move states decided at this level (a resumed
            // solve knows only the levels it ran: `deepest_cops` stays
            // `None` unless one decides some).
            if let Some(first) = done.first() {
                sol.deepest_cops = Some((level, first * 2));
            }
            if let Some(d) = rows.dte.as_mut() {
                d.release();
            }
            self.note(level, done.win.full, start, rows.sets(), &mut sol);
            let flow = reporting.level(level, done.decided());
            between(flow, true, level, &rows, &sol)?;
        }
        // The pager watches the next-level rows: it stops before they go.
        drop(pager);
        // The next-level rows and the flags go before the solution is
        // built, so the peak stays that of a level (`kcop_memory_for`).
        rows.finish(&mut sol, level);
        // Reading the solution (counts, tables) walks the files again.
        sol.pager =
            super::store::pager_for(cap, &[&sol.cw, &sol.cl, &sol.tl, &sol.tw], sol.dte.as_ref());
        Ok(sol)
    }

    /// Notes what is new at `level`: the first all-WIN row (`full`, its
    /// least rank) and the start's distance once it is decided.
    fn note(
        &self,
        level: u32,
        full: Option<u64>,
        start: Option<(usize, usize, usize)>,
        sets: [&[u64]; 4],
        sol: &mut KSolution,
    ) {
        let words = self.words;
        if sol.placement.is_none() {
            if let Some(r) = full {
                sol.placement = Some((unrank_multiset(r, self.k), level));
            }
        }
        if let Some((r, t, turn)) = start.filter(|_| sol.start_dte.is_none()) {
            let bit = |v: &[u64]| !v.is_empty() && v[r * words + t / 64] >> (t % 64) & 1 == 1;
            let (a, b) = if turn == 0 { (0, 1) } else { (2, 3) };
            if bit(sets[a]) || bit(sets[b]) {
                sol.start_dte = Some(level);
            }
        }
    }
}
