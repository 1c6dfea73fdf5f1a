//! How an out-of-core solve of the bit engine is sized under a memory
//! cap: the levels per pass, the bytes resident and the smallest cap
//! ([`blocking`]), for a whole solve or a partitioned process's band
//! ([`band_blocking`]). The pass itself is `blocking.rs`.

use super::layout::Layout;

/// Grid rows between one level's step and the next level's in a pass.
pub(crate) const LAG: usize = 2;

/// Requests a pass's I/O thread may have queued before the pass waits for
/// it: what it holds beyond the rows the pass works on is bounded by
/// this (see [`IO_ROWS`]).
pub(super) const IO_QUEUE: usize = 2;

/// Grid rows resident besides a pass's levels because of its I/O thread:
/// the rows mapped ahead of the first level, and the rows behind the last
/// one still waiting to be written back ([`IO_QUEUE`] requests and the one
/// in progress).
const IO_ROWS: u64 = 2 + IO_QUEUE as u64 + 1;

/// Bytes allowed per mapped array beyond the rows a pass holds: the pages
/// the kernel maps around a fault (64 KiB) at both ends and the pages
/// shared between rows.
const SLACK_PER_ARRAY: u64 = 256 << 10;

/// Bytes a process of a partitioned solve holds besides its band's
/// arrays and buffers, left out of the rows its band keeps resident
/// ([`Blocking::keep`]): the binary and its libraries, the connections'
/// buffers (2 MiB a peer) and the pages a level maps around what it reads
/// (a process of the 150 x 150 map peaked 16.6 MiB above its plan's
/// resident bytes).
#[cfg(feature = "distributed")]
const PROCESS_PAGES: u64 = 16 << 20;

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
    /// Bytes resident whatever the levels per pass: bookkeeping, slack
    /// and the rows of the pass's I/O thread.
    #[cfg_attr(not(feature = "distributed"), allow(dead_code))]
    fixed: u64,
    /// Bytes resident for each level of a pass: its rows and staging.
    #[cfg_attr(not(feature = "distributed"), allow(dead_code))]
    per_level: u64,
    /// A partitioned band ([`band_blocking`]): bytes of its records (and
    /// distances) it keeps resident from level to level, its first rows,
    /// with what the cap leaves above the minimum.
    #[cfg_attr(not(feature = "distributed"), allow(dead_code))]
    pub(crate) keep: u64,
}

/// Plans an out-of-core solve of `layout` with `threads` workers (and a
/// distance table when `dte`) under `room` bytes; `Err` with the smallest
/// cap that can when `room` is below it.
///
/// # Errors
/// The minimum cap, when `room` cannot hold one level's rows (two grid
/// rows and one more), its staging slots and the engine's bookkeeping.
pub(crate) fn blocking(
    layout: &Layout,
    dte: bool,
    threads: usize,
    room: u64,
) -> Result<Blocking, u64> {
    blocking_of(layout, layout.cells as u64, dte, threads, room)
}

/// Plans a partitioned process's band out of core: the records of `held`
/// cop cells (its band and the halo rows beside it) in its scratch file,
/// `in_memory` bytes held when they all stay resident
/// (`partition::band_bytes`), `L` levels per pass chosen from the cap as
/// for a local solve, at most `most` (each process then computes `L` halo
/// rows on each side besides its band, see `partition.rs`), and besides a
/// pass's rows the messages of the halo swap, one grid row of records
/// each way per neighbour at a time. `Err` with the smallest cap (one
/// level per pass), when `room` is below it and below `in_memory`.
///
/// # Errors
/// The minimum cap, as for [`blocking`].
#[cfg(feature = "distributed")]
pub(crate) fn band_blocking(
    layout: &Layout,
    held: u64,
    in_memory: u64,
    (dte, threads): (bool, usize),
    room: u64,
    most: usize,
) -> Result<Blocking, u64> {
    // A grid row's records and their changed ranges, to and from each
    // side.
    let swap = 2 * 2 * layout.widest() as u64 * (layout.record() as u64 * 8 + 8 * 8);
    // Under no cap: the figures that do not depend on it.
    let plan = blocking_of(layout, held, dte, threads, u64::MAX)?;
    let minimum = plan.fixed + plan.per_level + swap;
    let whole = in_memory <= room;
    if room < minimum && !whole {
        // A band smaller than a pass's rows fits whole under less.
        return Err(minimum.min(in_memory));
    }
    let budget = room.saturating_sub(plan.fixed + swap);
    let record = layout.record() as u64 * 8 + if dte { 4 * layout.cells as u64 } else { 0 };
    // As many levels as the cap holds beside the process's own pages
    // (under a cap within twice them of the minimum, which cannot promise
    // a peak under the cap anyway, beside half of what it leaves): each
    // saves a pass over the band's file.
    let reserve = PROCESS_PAGES.min(room.saturating_sub(minimum) / 2);
    let levels = (room.saturating_sub(plan.fixed + swap + reserve) / plan.per_level.max(1))
        .clamp(1, most.max(1) as u64) as usize;
    let used = plan.fixed + swap + levels as u64 * plan.per_level;
    // What the cap leaves above a pass's rows and the process's own pages
    // keeps the band's first rows resident: a pass then pages only the
    // rest of the band.
    let keep = if whole {
        0
    } else {
        room.saturating_sub(used + PROCESS_PAGES)
            .min(plan.pass_bytes)
    };
    Ok(Blocking {
        whole,
        levels,
        window_cells: (budget / 2 / record.max(1)).clamp(1, held.max(1)) as usize,
        resident: if whole { in_memory } else { used + keep },
        keep,
        minimum: minimum.min(in_memory),
        pass_bytes: plan.pass_bytes,
        fixed: plan.fixed,
        per_level: plan.per_level,
    })
}

/// [`blocking`] for the records of `held` cop cells.
fn blocking_of(
    layout: &Layout,
    held: u64,
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
    // Besides each level's rows, the row the first level maps at the
    // start of a step before the last one's row above is dropped, and the
    // rows the I/O thread holds.
    let fixed = bookkeeping + SLACK_PER_ARRAY * if dte { 2 } else { 1 } + (1 + IO_ROWS) * row;
    let per_level = LAG as u64 * row + stage;
    let minimum = fixed + per_level;
    let all = held * (record + dte_cell);
    // In memory the engine holds a band's staging per worker besides.
    let in_memory = fixed + all + threads.max(1) as u64 * 2 * stage;
    let whole = in_memory <= room;
    if room < minimum && !whole {
        return Err(minimum);
    }
    let budget = room.saturating_sub(fixed);
    let levels = (budget / per_level.max(1)).clamp(1, 1 << 20) as usize;
    let resident = if whole {
        in_memory
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
        fixed,
        per_level,
        keep: 0,
    })
}
