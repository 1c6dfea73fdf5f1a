//! The out-of-core entry points of the kernel: one level's staging and
//! update of one grid row, for the passes of several levels
//! (`blocking.rs`), over the same `#[inline(always)]` helpers of
//! [`Context`] as the in-memory sweep.

use std::ops::Range;

use super::super::halo::ThiefRows;
use super::super::layout::Spans;
use super::{Context, Decisions};

/// Out of core ([`blocking`](super::super::blocking)): stages the cop rows of cop cells
/// `cells` (part of one grid row) into `out` and their word ranges into
/// `spans`, reading the thief rows through `rows`. Compiled as
/// [`band_work`](super::band_work) is.
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+popcnt+bmi1+bmi2+lzcnt",
    "x86_64+avx2+popcnt+bmi1+bmi2+lzcnt"
))]
pub(in crate::solve::bitboard) fn stage_cells<'a, 'r>(
    ctx: &Context<'a>,
    cells: Range<usize>,
    rows: &ThiefRows<'r>,
    out: &mut [u64],
    spans: &mut [Spans],
) {
    let per_cell = 2 * ctx.layout.words;
    for (i, p) in cells.enumerate() {
        spans[i] = ctx.cop_rows(p, rows, &mut out[i * per_cell..(i + 1) * per_cell]);
    }
}

/// Out of core ([`blocking`](super::super::blocking)): updates the thief rows of the cop
/// cells from `first` on (`records`, `cop_changed` and `thief_changed`
/// indexed from it, part of one grid row) and commits their cop rows
/// staged in `staged` / `spans`: the second half of a level's step, as
/// [`Context::row_step`] does it for a band.
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+popcnt+bmi1+bmi2+lzcnt",
    "x86_64+avx2+popcnt+bmi1+bmi2+lzcnt"
))]
#[allow(clippy::too_many_arguments)]
pub(in crate::solve::bitboard) fn update_cells<'a>(
    ctx: &Context<'a>,
    first: usize,
    records: &mut [u64],
    cop_changed: &mut [Spans],
    thief_changed: &mut [Spans],
    staged: &mut [u64],
    spans: &[Spans],
    scratch: &mut [u64],
) -> Decisions {
    let layout = ctx.layout;
    let (per_cell, record) = (2 * layout.words, layout.record());
    let mut stats = Decisions::NONE;
    for i in 0..cop_changed.len() {
        stats = stats.merge(ctx.update_record(
            first + i,
            &mut records[i * record..(i + 1) * record],
            &mut cop_changed[i],
            &mut thief_changed[i],
            &mut staged[i * per_cell..(i + 1) * per_cell],
            spans[i],
            scratch,
        ));
    }
    stats
}
