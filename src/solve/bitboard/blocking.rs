//! Out of core for the bit-parallel engine: several levels per pass over
//! the records (temporal blocking).
//!
//! When the bitsets (and the distance table) live in a scratch file and do
//! not fit under the memory cap, each pass over the file does `L` levels
//! at once, `L` chosen from the cap ([`blocking`]). The levels run as a
//! pipeline down the grid rows: level `k + j` does its step at grid row
//! `t - LAG * j` while level `k` does row `t`. A level's step at row `r`
//! is the in-memory one (see the module docs of `mod.rs`): stage the cop
//! rows of row `r` (they read the thief rows of rows `r - 1 ..= r + 1`),
//! then update the thief rows of row `r - 1` and commit its staged cop
//! rows. Each level keeps its own two staging slots.
//!
//! Why a lag of three rows: level `k + j + 1` stages row `r - 3` from the
//! thief rows of rows `r - 4 ..= r - 2`, which level `k + j` moved to its
//! level in earlier steps (row `r - 2` in the step before) and which level
//! `k + j + 1` has not touched yet; and the rows each level reads and
//! writes in one step (`r - 1 ..= r + 1` for row `r`) are disjoint from
//! every other level's. So within a step every level stages at once, in
//! parallel over levels and cop cells, and then every level updates at
//! once. The per-cell change ranges need no second copy: a level reads a
//! row's range of the level before and replaces it in the same step as
//! the in-memory sweep does.
//!
//! Memory: what is resident is the rows between the last level's step and
//! the first's (`LAG * L` grid rows) plus each level's staging slots (a
//! grid row's worth of cop rows). Rows behind the last level are dropped
//! from memory as it leaves them (a shared file mapping: the page cache
//! and the file keep them), and the rows ahead of the first level are
//! read ahead (`MADV_WILLNEED`) so the file is read in order, once per
//! pass. A row that no level needs (nothing it reads changed) is never
//! touched, so late passes read little.
//!
//! [`blocking`] sizes `L` from the cap; [`plan_storage`]
//! (super::super::plan_storage) asks it too, so the resident figure and
//! levels per pass it prints and the minimum it refuses below are the
//! engine's own.

use std::ops::Range;

use rayon::prelude::*;

use super::halo::ThiefRows;
use super::kernel::{stage_cells, update_cells, Context, Decisions};
use super::layout::{Layout, Span, Spans};
use crate::storage::{Region, WordPager};

/// Grid rows between one level's step and the next level's in a pass.
pub(crate) const LAG: usize = 3;

/// Grid rows read ahead of the first level of a pass.
const AHEAD: usize = 2;

/// Cop cells per parallel task within a grid row.
const CHUNK: usize = 8;

/// Words in a 4 KiB page: a release also drops the page it shares with
/// the rows released before (larger pages only leave a few more resident).
pub(crate) const PAGE_WORDS: u64 = 512;

/// Words in the block of pages the kernel maps around a read fault
/// (`fault_around_bytes`, 64 KiB).
const FAULT_AROUND_WORDS: u64 = 8192;

/// Bytes allowed per mapped array beyond the rows a pass holds: the pages
/// the kernel maps around a fault (64 KiB) at both ends and the pages
/// shared between rows.
const SLACK_PER_ARRAY: u64 = 256 << 10;

/// How an out-of-core bitboard solve runs under a memory cap.
#[derive(Clone, Debug)]
pub(crate) struct Blocking {
    /// Whether the records fit under the cap as a whole (the engine then
    /// runs as in memory, on the mapped file).
    pub(crate) whole: bool,
    /// Levels done per pass over the records.
    pub(crate) levels: usize,
    /// Cop cells read at a time after the solve (counts, tables).
    pub(crate) window_cells: usize,
    /// Bytes resident at most: the rows a pass holds, the staging slots,
    /// the engine's bookkeeping and the slack of [`SLACK_PER_ARRAY`].
    pub(crate) resident: u64,
    /// The smallest cap: one level per pass.
    pub(crate) minimum: u64,
    /// Bytes of the records (and distances): a pass reads each at most
    /// once and writes each at most once.
    pub(crate) pass_bytes: u64,
}

/// Plans an out-of-core solve of `layout` with `threads` workers (and a
/// distance table when `dte`) under `room` bytes; `Err` with the smallest
/// cap that can when `room` is below it.
///
/// # Errors
/// The minimum cap, when `room` cannot hold one level's rows (four grid
/// rows), its staging slots and the engine's bookkeeping.
pub(crate) fn blocking(
    layout: &Layout,
    dte: bool,
    threads: usize,
    room: u64,
) -> Result<Blocking, u64> {
    let cells = layout.cells as u64;
    let record = layout.record() as u64 * 8;
    let row_words = layout.words as u64 * 8;
    let dte_cell = if dte { 4 * cells } else { 0 };
    let widest = layout.widest() as u64;
    // One grid row's records and distances, at most.
    let row = widest * (record + dte_cell);
    // A level's two staging slots: CW and CL of each cell, and their
    // ranges.
    let stage = 2 * widest * (2 * row_words + 16);
    // Changed ranges, cell positions, cop targets, the cell at each bit,
    // the move masks' rows, and each worker's scratch rows.
    let bookkeeping = cells * (4 * 16 + 4 + 24 + 9 * 4)
        + layout.words as u64 * 64 * 4
        + 11 * row_words
        + threads.max(1) as u64 * 2 * row_words;
    let fixed = bookkeeping + SLACK_PER_ARRAY * if dte { 2 } else { 1 };
    let per_level = LAG as u64 * row + stage;
    // Besides each level's rows, the row the first level maps at the
    // start of a step before the last one's row above is dropped.
    let fixed = fixed + row;
    let minimum = fixed + per_level;
    let all = cells * (record + dte_cell);
    // In memory the engine holds a band's staging per worker besides.
    let whole = fixed + all + threads.max(1) as u64 * 2 * stage <= room;
    if room < minimum && !whole {
        return Err(minimum);
    }
    let budget = room.saturating_sub(fixed);
    let levels = (budget / per_level.max(1)).max(1) as usize;
    let resident = if whole {
        fixed + all + threads.max(1) as u64 * 2 * stage
    } else {
        fixed + levels as u64 * per_level
    };
    Ok(Blocking {
        whole,
        levels,
        // Half the budget: reading a window, the kernel maps pages
        // around each fault beyond it.
        window_cells: (budget / 2 / (record + dte_cell).max(1)).clamp(1, cells.max(1)) as usize,
        resident,
        minimum: minimum.min(fixed + all),
        pass_bytes: all,
    })
}

/// A level's staging slots: the cop rows of two grid rows (`CW` then `CL`
/// per cell) and their word ranges.
struct Stage {
    staged: [Vec<u64>; 2],
    spans: [Vec<Spans>; 2],
}

/// The out-of-core state of a solve: levels per pass, the pages to
/// release, and each level's staging slots.
pub(crate) struct Blocked<'a> {
    pub(super) levels: usize,
    pub(super) window_cells: usize,
    pager: WordPager,
    dte: Option<&'a Region>,
    stages: Vec<Stage>,
    /// Whether the next pass goes down the grid rows (else up).
    down: bool,
}

impl<'a> Blocked<'a> {
    pub(crate) fn new(
        layout: &Layout,
        plan: &Blocking,
        pager: WordPager,
        dte: Option<&'a Region>,
    ) -> Blocked<'a> {
        let widest = layout.widest();
        let slot = widest * 2 * layout.words;
        let stages = (0..plan.levels)
            .map(|_| Stage {
                staged: [vec![0; slot], vec![0; slot]],
                spans: [
                    vec![[Span::EMPTY; 2]; widest],
                    vec![[Span::EMPTY; 2]; widest],
                ],
            })
            .collect();
        Blocked {
            levels: plan.levels,
            window_cells: plan.window_cells,
            pager,
            dte,
            stages,
            down: true,
        }
    }

    /// Drops the pages of the records (and distances) of cop cells
    /// `cells`, and those they share with the cells before.
    pub(super) fn release(&self, layout: &Layout, cells: Range<usize>) {
        self.release_behind(layout, cells, true);
    }

    /// Drops the pages of the records (and distances) of cop cells
    /// `cells`, released going down (`down`) or up: with the pages within
    /// a fault-around block ([`FAULT_AROUND_WORDS`]) behind them, which a
    /// fault just ahead maps again after the release before.
    fn release_behind(&self, layout: &Layout, cells: Range<usize>, down: bool) {
        let widen = |start: u64, end: u64, margin: u64| {
            if down {
                start.saturating_sub(margin)..end
            } else {
                start..end + margin
            }
        };
        let record = layout.record() as u64;
        self.pager.release(widen(
            cells.start as u64 * record,
            cells.end as u64 * record,
            FAULT_AROUND_WORDS,
        ));
        if let Some(table) = self.dte {
            let per_cop = 2 * layout.cells as u64;
            // u16 distances: four entries a word.
            table.release(
                widen(
                    cells.start as u64 * per_cop,
                    cells.end as u64 * per_cop,
                    4 * FAULT_AROUND_WORDS,
                ),
                2,
            );
        }
    }

    /// Starts reading the records (and distances) of cop cells `cells`
    /// into the page cache.
    fn read_ahead(&self, layout: &Layout, cells: Range<usize>) {
        let record = layout.record() as u64;
        self.pager
            .will_need(cells.start as u64 * record..cells.end as u64 * record);
        if let Some(table) = self.dte {
            let per_cop = 2 * layout.cells as u64;
            table.will_need(cells.start as u64 * per_cop..cells.end as u64 * per_cop, 2);
        }
    }

    /// One pass: levels `base.level ..` (as many as the plan holds), the
    /// stats of each. Passes alternate direction, down the grid rows and
    /// back up, so that the rows a pass ends on (still resident) are the
    /// first the next one reads.
    pub(super) fn pass(
        &mut self,
        base: &Context<'_>,
        words: &mut [u64],
        cop_changed: &mut [Spans],
        thief_changed: &mut [Spans],
    ) -> Vec<Decisions> {
        let layout = base.layout;
        let height = layout.height();
        let levels = self.levels;
        let contexts: Vec<Context<'_>> = (0..levels)
            .map(|j| Context {
                level: base.level + j as u32,
                ..*base
            })
            .collect();
        let order = Order {
            down: self.down,
            height,
        };
        let mut stats = vec![Decisions::NONE; levels];
        // Cop cells of the rows at steps `from..to`, in either direction.
        let cells = |from: usize, to: usize| {
            let (a, b) = order.rows(from, to);
            layout.row_cells[a] as usize..layout.row_cells[b] as usize
        };
        let last = height + LAG * (levels - 1);
        // Steps whose rows are released, and read ahead.
        let (mut released, mut advised) = (0, 0);
        for t in 0..=last {
            // The first level reads the rows of steps up to t + 1 now.
            let ahead = (t + 2 + AHEAD).min(height);
            if advised < ahead {
                self.read_ahead(layout, cells(advised.max(t + 2).min(ahead), ahead));
                advised = ahead;
            }
            self.stage(&contexts, order, t, words, thief_changed);
            for (j, s) in self.update(&contexts, order, t, words, cop_changed, thief_changed) {
                stats[j] = stats[j].merge(s);
            }
            // The last level is done with the rows behind its step's. The
            // last rows of the pass stay: the next pass starts on them.
            let done = t.saturating_sub(LAG * (levels - 1)).min(height);
            let keep = height.saturating_sub(LAG * levels + 1);
            let done = done.min(keep);
            if done > released {
                self.release_behind(layout, cells(released, done), order.down);
                released = done;
            }
        }
        self.down = !self.down;
        stats
    }

    /// The first half of step `t`: each level stages the cop rows of its
    /// step's grid row.
    fn stage(
        &mut self,
        contexts: &[Context<'_>],
        order: Order,
        t: usize,
        words: &[u64],
        thief_changed: &[Spans],
    ) {
        let layout = contexts[0].layout;
        let height = layout.height();
        let rows = ThiefRows {
            records: words,
            changed: thief_changed,
            first: 0,
            above: None,
            below: None,
            keep: None,
            record: layout.record(),
            words: layout.words,
        };
        let per_cell = 2 * layout.words;
        self.stages
            .par_iter_mut()
            .zip(contexts)
            .enumerate()
            .for_each(|(j, (stage, ctx))| {
                let Some(step) = t.checked_sub(LAG * j).filter(|&s| s < height) else {
                    return;
                };
                let cells = layout.row(order.row(step));
                let n = cells.len();
                let out = &mut stage.staged[step & 1][..n * per_cell];
                let spans = &mut stage.spans[step & 1][..n];
                out.par_chunks_mut(CHUNK * per_cell)
                    .zip(spans.par_chunks_mut(CHUNK))
                    .enumerate()
                    .for_each(|(c, (out, spans))| {
                        let first = cells.start + c * CHUNK;
                        stage_cells(ctx, first..first + spans.len(), &rows, out, spans);
                    });
            });
    }

    /// The second half of step `t`: each level updates the thief rows and
    /// commits the cop rows of the grid row of its step before. Returns
    /// the stats by level.
    fn update(
        &mut self,
        contexts: &[Context<'_>],
        order: Order,
        t: usize,
        words: &mut [u64],
        cop_changed: &mut [Spans],
        thief_changed: &mut [Spans],
    ) -> Vec<(usize, Decisions)> {
        let layout = contexts[0].layout;
        let height = layout.height();
        let (record, per_cell) = (layout.record(), 2 * layout.words);
        // Each level's row, cut from the arrays in row order.
        let mut rows: Vec<(usize, usize, usize, &mut Stage)> = self
            .stages
            .iter_mut()
            .enumerate()
            .filter_map(|(j, stage)| {
                let step = t.checked_sub(LAG * j).filter(|&s| s >= 1 && s <= height)? - 1;
                Some((order.row(step), step, j, stage))
            })
            .collect();
        rows.sort_unstable_by_key(|&(row, ..)| row);
        let mut units = Vec::with_capacity(rows.len());
        let (mut rest, mut cop_rest, mut thief_rest) = (words, cop_changed, thief_changed);
        let mut offset = 0;
        for (row, step, j, stage) in rows {
            let cells = layout.row(row);
            let (skip, n) = (cells.start - offset, cells.len());
            let (_, tail) = std::mem::take(&mut rest).split_at_mut(skip * record);
            let (records, tail) = tail.split_at_mut(n * record);
            rest = tail;
            let (_, tail) = std::mem::take(&mut cop_rest).split_at_mut(skip);
            let (cop, tail) = tail.split_at_mut(n);
            cop_rest = tail;
            let (_, tail) = std::mem::take(&mut thief_rest).split_at_mut(skip);
            let (thief, tail) = tail.split_at_mut(n);
            thief_rest = tail;
            offset = cells.end;
            let Stage { staged, spans } = stage;
            units.push((
                j,
                cells.start,
                records,
                cop,
                thief,
                &mut staged[step & 1][..n * per_cell],
                &spans[step & 1][..n],
            ));
        }
        units
            .into_par_iter()
            .map(|(j, first, records, cop, thief, staged, spans)| {
                let ctx = &contexts[j];
                let s = records
                    .par_chunks_mut(CHUNK * record)
                    .zip(cop.par_chunks_mut(CHUNK))
                    .zip(thief.par_chunks_mut(CHUNK))
                    .zip(staged.par_chunks_mut(CHUNK * per_cell))
                    .zip(spans.par_chunks(CHUNK))
                    .enumerate()
                    .map_init(
                        || vec![0u64; per_cell],
                        |scratch, (c, ((((records, cop), thief), staged), spans))| {
                            update_cells(
                                ctx,
                                first + c * CHUNK,
                                records,
                                cop,
                                thief,
                                staged,
                                spans,
                                scratch,
                            )
                        },
                    )
                    .reduce(|| Decisions::NONE, Decisions::merge);
                (j, s)
            })
            .collect()
    }
}

/// The direction of a pass: step `s` works on grid row `s` going down, on
/// row `height - 1 - s` going up.
#[derive(Clone, Copy)]
struct Order {
    down: bool,
    height: usize,
}

impl Order {
    /// The grid row of step `s`.
    #[inline]
    fn row(self, s: usize) -> usize {
        if self.down {
            s
        } else {
            self.height - 1 - s
        }
    }

    /// The grid rows of steps `from..to`, as a range `a..b` of rows.
    fn rows(self, from: usize, to: usize) -> (usize, usize) {
        if self.down {
            (from, to)
        } else {
            (self.height - to, self.height - from)
        }
    }
}
