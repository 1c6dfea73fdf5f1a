//! Out of core for the bit-parallel engine: windows of grid rows.
//!
//! When the bitsets (and the distance table) live in scratch files and do
//! not fit under the memory cap, a level runs over windows of consecutive
//! grid rows, one window at a time and in order. Each window is cut into
//! bands solved in parallel exactly as in memory, and reads only its own
//! records plus the thief rows (`TL`, `TW`) of the grid row on each side:
//!
//! - the row below (the next window's first row) is still at the previous
//!   level when the window runs, so it is copied from the file just
//!   before;
//! - the row above (the previous window's last row) has already moved on
//!   by then, so it is copied before the previous window runs (the carry).
//!
//! Halo copies are taken over the word ranges that can be read: each
//! cell's own changed range of `TL`, and for `TW` the union of the changed
//! ranges of the grid rows within two of it (a cop row reads its targets'
//! `TW` over the union of their changed ranges). When a window is done its
//! records' pages, and its distances', are dropped from memory (a shared
//! file mapping: the page cache and the file keep them), so what is
//! resident stays near one window. A window none of whose rows (nor the
//! rows beside it) changed in the previous level is skipped without
//! touching its pages.
//!
//! This file plans the windows and holds their state ([`Banded`], the halo
//! copies); the level loop over them is `run.rs`'s.
//!
//! [`banding`] sizes the windows from the cap; [`plan_storage`]
//! (super::super::plan_storage) asks it too, so the resident figure it
//! prints and the minimum it refuses below are the engine's own.

use std::ops::Range;

use super::halo::{Band, Halo};
use super::layout::{Layout, Span, Spans};
use super::{BANDS_PER_WORKER, TL, TW};
use crate::storage::{Region, WordPager};

/// Words in a 4 KiB page: a window's release also drops the page it
/// shares with the window before (larger pages only leave a few more
/// resident).
pub(crate) const PAGE_WORDS: u64 = 512;

/// Bytes allowed per mapped array beyond a window's own: the pages the
/// kernel maps around a fault (64 KiB) at both ends and the pages a window
/// shares with its neighbours.
const SLACK_PER_ARRAY: u64 = 256 << 10;

/// How an out-of-core bitboard solve runs under a memory cap.
#[derive(Clone, Debug)]
pub(crate) struct Banding {
    /// Grid rows of each window, in order.
    pub(crate) windows: Vec<Range<usize>>,
    /// Cop cells of the largest window.
    pub(crate) window_cells: usize,
    /// Bytes resident at most: the largest window's records and distances,
    /// the halo row read from the file, the engine's buffers and
    /// bookkeeping, and the slack of [`SLACK_PER_ARRAY`].
    pub(crate) resident: u64,
    /// The smallest cap that holds one grid row with its halo and the
    /// buffers.
    pub(crate) minimum: u64,
}

/// Cuts the grid rows of `layout` into windows that keep a solve with
/// `threads` workers (and a distance table when `dte`) under `room` bytes;
/// `Err` with the smallest cap that can when `room` is below it.
///
/// # Errors
/// The minimum cap, when `room` cannot hold the widest grid row with its
/// halo row and the engine's buffers.
pub(crate) fn banding(
    layout: &Layout,
    dte: bool,
    threads: usize,
    room: u64,
) -> Result<Banding, u64> {
    let height = layout.height();
    let cells = layout.cells as u64;
    let record = layout.record() as u64 * 8;
    let row_words = layout.words as u64 * 8;
    let dte_cell = if dte { 4 * cells } else { 0 };
    let widest = (0..height).map(|r| layout.row(r).len()).max().unwrap_or(0) as u64;
    let bands = subbands(threads) as u64;
    // TL and TW of one grid row.
    let halo = widest * 2 * row_words;
    let buffers = bands * (widest * record + 2 * row_words + 2 * halo) + 2 * halo;
    // Changed ranges, cell positions, cop targets, the cell at each bit and
    // the move masks' rows.
    let bookkeeping =
        cells * (4 * 16 + 4 + 24 + 9 * 4) + layout.words as u64 * 64 * 4 + 11 * row_words;
    let fixed = buffers + bookkeeping + SLACK_PER_ARRAY * if dte { 2 } else { 1 };
    let row_bytes = |r: usize| layout.row(r).len() as u64 * (record + dte_cell);
    // The next window's first row, read for the halo below.
    let below = |end: usize| {
        if end < height {
            layout.row(end).len() as u64 * record
        } else {
            0
        }
    };
    let minimum = fixed
        + (0..height)
            .map(|r| row_bytes(r) + below(r + 1))
            .max()
            .unwrap_or(0);
    if room < minimum {
        return Err(minimum);
    }
    let budget = room - fixed;
    let mut windows = Vec::new();
    let mut largest = 0;
    let mut start = 0;
    while start < height {
        let mut end = start + 1;
        let mut mapped = row_bytes(start);
        while end < height && mapped + row_bytes(end) + below(end + 1) <= budget {
            mapped += row_bytes(end);
            end += 1;
        }
        largest = largest.max(mapped + below(end));
        windows.push(start..end);
        start = end;
    }
    let window_cells = windows
        .iter()
        .map(|w| layout.row_cells[w.end] as usize - layout.row_cells[w.start] as usize)
        .max()
        .unwrap_or(0);
    Ok(Banding {
        windows,
        window_cells,
        resident: fixed + largest,
        minimum,
    })
}

/// Bands a window is cut into for `threads` workers.
fn subbands(threads: usize) -> usize {
    if threads <= 1 {
        1
    } else {
        threads * BANDS_PER_WORKER
    }
}

/// The out-of-core state of a solve: windows, the pages to release, and
/// buffers reused by every window.
pub(crate) struct Banded<'a> {
    pub(super) windows: Vec<Range<usize>>,
    pager: WordPager,
    dte: Option<&'a Region>,
    /// The bands of the current window (their halos hold up to the widest
    /// grid row).
    pub(super) pool: Vec<Band>,
    /// The last grid row of the window before, copied before it ran.
    pub(super) carry: Halo,
    /// The next carry, copied before the current window runs.
    pub(super) spare: Halo,
}

impl<'a> Banded<'a> {
    pub(crate) fn new(
        layout: &Layout,
        plan: Banding,
        pager: WordPager,
        dte: Option<&'a Region>,
        threads: usize,
    ) -> Banded<'a> {
        let widest = layout.widest();
        let most_rows = plan.windows.iter().map(|w| w.len()).max().unwrap_or(1);
        let pool = (0..subbands(threads).min(most_rows))
            .map(|_| {
                Band::new(
                    layout,
                    widest,
                    0..0,
                    Some(Halo::empty(layout, widest)),
                    Some(Halo::empty(layout, widest)),
                )
            })
            .collect();
        Banded {
            windows: plan.windows,
            pager,
            dte,
            pool,
            carry: Halo::empty(layout, widest),
            spare: Halo::empty(layout, widest),
        }
    }

    /// Drops the pages of the records (and distances) of cop cells
    /// `cells`, and those they share with the window before.
    pub(super) fn release(&self, layout: &Layout, cells: Range<usize>) {
        let record = layout.record() as u64;
        let start = cells.start as u64 * record;
        self.pager
            .release(start.saturating_sub(PAGE_WORDS)..cells.end as u64 * record);
        if let Some(table) = self.dte {
            let per_cop = 2 * layout.cells as u64;
            // u16 distances: a page is four times as many entries.
            let start = (cells.start as u64 * per_cop).saturating_sub(4 * PAGE_WORDS);
            table.release(start..cells.end as u64 * per_cop, 2);
        }
    }
}

impl Halo {
    /// A halo with room for `widest` cells, holding no row.
    fn empty(layout: &Layout, widest: usize) -> Halo {
        Halo {
            cells: 0..0,
            words: vec![0; widest * 2 * layout.words],
            changed: vec![[Span::EMPTY; 2]; widest],
        }
    }

    /// Copies grid row `row`'s thief rows from the records over the word
    /// ranges a neighbouring band can read this level (see the module
    /// docs), with their changed ranges.
    ///
    /// `carried` is the union of the carried row's `TW` ranges: rows of the
    /// window before have moved on in `changed`, and only the carried one
    /// is read.
    pub(super) fn load(
        &mut self,
        layout: &Layout,
        row: usize,
        records: &[u64],
        changed: &[Spans],
        carried: Span,
    ) {
        let l = layout.words;
        let record = layout.record();
        let near = layout.row_cells[row.saturating_sub(2)] as usize
            ..layout.row_cells[(row + 3).min(layout.height())] as usize;
        let wide = changed[near].iter().fold(carried, |acc, s| acc.union(s[1]));
        let cells = layout.row(row);
        for (i, p) in cells.clone().enumerate() {
            self.changed[i] = changed[p];
            let from = &records[p * record..(p + 1) * record];
            for (k, kind, span) in [(0, TL, changed[p][0]), (1, TW, wide)] {
                let range = span.range();
                self.words[(2 * i + k) * l..(2 * i + k + 1) * l][range.clone()]
                    .copy_from_slice(&from[kind * l..(kind + 1) * l][range]);
            }
        }
        self.cells = cells;
    }
}
