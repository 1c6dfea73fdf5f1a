//! Where an in-memory run cuts its bands of grid rows, and the bytes of
//! the buffers it then holds (what the storage plan counts besides the
//! bitsets).

use std::ops::Range;

use super::layout::{Layout, Spans};
use super::BANDS_PER_WORKER_IN_MEMORY;

/// The grid rows of each band of an in-memory run on `threads` workers:
/// cut at grid rows so that bands hold about equal numbers of cells.
pub(super) fn band_rows(layout: &Layout, threads: usize) -> Vec<Range<usize>> {
    let wanted = if threads <= 1 {
        1
    } else {
        threads * BANDS_PER_WORKER_IN_MEMORY
    };
    let mut cuts = cut_rows(layout, 0..layout.height(), wanted);
    cuts.dedup();
    cuts.windows(2)
        .filter(|w| w[0] < w[1])
        .map(|w| w[0]..w[1])
        .collect()
}

/// `parts + 1` grid-row cuts from `rows.start` to `rows.end` that split
/// `rows` into `parts` runs of about equal numbers of cells (a run may be
/// empty when rows are fewer than parts).
pub(super) fn cut_rows(layout: &Layout, rows: Range<usize>, parts: usize) -> Vec<usize> {
    let first = layout.row_cells[rows.start] as usize;
    let cells = layout.row_cells[rows.end] as usize - first;
    let mut cuts = vec![rows.start];
    for k in 1..parts.max(1) {
        let target = (first + cells * k / parts) as u32;
        let r = layout.row_cells[rows.start..rows.end]
            .partition_point(|&c| c < target)
            .saturating_add(rows.start)
            .clamp(*cuts.last().unwrap_or(&rows.start), rows.end);
        cuts.push(r);
    }
    cuts.push(rows.end);
    cuts
}

/// Bytes an in-memory run on `threads` workers holds besides the bitsets
/// and the distances: each band's staging rows (a second set for two
/// levels at a time), halo rows and scratch rows, every cop cell's changed
/// ranges and targets, and the move masks. On a map of few, wide rows the
/// staging rows weigh as much as the bitsets (1 x 30,000: a plan that left
/// them out let a solve through that then failed to allocate), so the plan
/// counts them.
pub(in crate::solve) fn working_bytes(layout: &Layout, threads: usize) -> u64 {
    let (cells, words) = (layout.cells as u64, layout.words as u64);
    // Cell positions, cop targets (a vector of up to nine cells), and the
    // masks' rows (open, exits, stuck, up to eight thief moves).
    run_buffers(layout, threads) + cells * (4 + 24 + 9 * 4) + 11 * words * 8
}

/// The buffers [`Run::new`] and two-level sweeps allocate on `threads`
/// workers: the bands' and every cop cell's changed ranges.
pub(super) fn run_buffers(layout: &Layout, threads: usize) -> u64 {
    let words = layout.words as u64;
    let widest = layout.widest() as u64;
    let spans = std::mem::size_of::<Spans>() as u64;
    // One level's staging: two grid rows' CW and CL, and their ranges.
    let stage = 2 * widest * (2 * words * 8 + spans);
    // A halo: one grid row's TL and TW, and their ranges.
    let halo = |r: usize| layout.row(r).len() as u64 * (2 * words * 8 + spans);
    let bands = band_rows(layout, threads);
    let two_levels = bands.iter().all(|rows| rows.len() >= 5);
    let height = layout.height();
    let per_band: u64 = bands
        .iter()
        .map(|rows| {
            let above = if rows.start > 0 {
                halo(rows.start - 1)
            } else {
                0
            };
            let below = if rows.end < height { halo(rows.end) } else { 0 };
            let kept = if two_levels && rows.start > 0 {
                halo(rows.start + 1)
            } else {
                0
            };
            let staging = if two_levels { 2 * stage } else { stage };
            staging + above + below + kept + 2 * words * 8
        })
        .sum();
    // Every cop cell's changed ranges, cop and thief.
    per_band + layout.cells as u64 * 2 * spans
}
