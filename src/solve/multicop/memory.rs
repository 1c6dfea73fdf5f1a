//! What a several-cops solve's arrays need, in bytes: the whole solve's
//! peak ([`kcop_memory_for`]), the cop-number search's worst case over
//! any graph ([`memory_bound`]), a partitioned process's band
//! ([`kcop_band_bytes`]), and the sizes of the engine's tables of
//! partly-moved tuples, which `store.rs` places and `engine/cops.rs`
//! fills.

use crate::games::arena::Arena;
use crate::games::multiset::multiset_count;

/// Bytes a solve of `k` cops on any graph of `n` vertices allocates at its
/// peak in the worst case (an arena where the thief can win somewhere, no
/// distance table), as the cop-number search plans a batch of graphs:
/// six bitsets (four attractors, the thief's two of the next level), the
/// changed-row flags and kept gains of each row (`flag_bytes`), and
/// the tables of partly-moved tuples of each worker thread. [`kcop_memory_for`] is the figure of one
/// arena.
#[must_use]
pub fn memory_bound(n: usize, k: usize) -> u64 {
    memory(n, k, true)
}

/// Bytes a k-cop solve of `arena` allocates at its peak: as
/// [`memory_bound`], but where the thief can win nowhere (no exit, every
/// cell has a move for both sides) only the cops' WIN and the thief's LOSS
/// attractors exist, three bitsets instead of six; plus the distance
/// table (2 bytes a state) when asked for and the thief's neighbour rows.
#[must_use]
pub(crate) fn kcop_memory_for(arena: &Arena, k: usize, dte_table: bool) -> u64 {
    let n = arena.cells() as usize;
    let row = n.div_ceil(64).max(1) as u64 * 8;
    let table = if dte_table {
        multiset_count(n, k).saturating_mul(n as u64 * 2 * 2)
    } else {
        0
    };
    memory(n, k, thief_can_win(arena))
        .saturating_add(table)
        .saturating_add(n as u64 * row)
}

/// Bytes a k-cop solve of `n` cells allocates at least: as
/// [`memory_bound`] where the thief can win nowhere (three bitsets), no
/// distance table. Known before the arena is built.
pub(crate) fn kcop_memory_least(n: usize, k: usize) -> u64 {
    memory(n, k, false)
}

fn memory(n: usize, k: usize, two: bool) -> u64 {
    let row = n.div_ceil(64).max(1) as u64 * 8;
    let sets = if two { 6 } else { 3 };
    let tables = table_bytes(n, k).saturating_mul(rayon::current_num_threads() as u64);
    multiset_count(n, k)
        .saturating_mul(sets * row + flag_bytes(n, two))
        .saturating_add(tables)
}

/// Bytes one process of a partitioned k-cop solve of `arena` holds when
/// its band is `band_rows` of the cop multisets, on `workers` threads
/// (`engine/partition.rs`): the thief's attractors of the `read_rows`
/// its cops' moves read (its band and the others' rows beside it), the
/// cops' attractors and the thief's next-level rows
/// of its band, the per-row bookkeeping of every row, the tables of each
/// worker, the thief's neighbour rows and (with `dte_table`) the band's
/// distances.
#[cfg(feature = "distributed")]
pub(crate) fn kcop_band_bytes(
    arena: &Arena,
    k: usize,
    band_rows: u64,
    read_rows: u64,
    workers: usize,
    dte_table: bool,
) -> u64 {
    let n = arena.cells() as usize;
    let row = n.div_ceil(64).max(1) as u64 * 8;
    let two = thief_can_win(arena);
    let sets = if two { 2 } else { 1 };
    let ranks = multiset_count(n, k);
    let dte = if dte_table {
        band_rows * n as u64 * 4
    } else {
        0
    };
    ranks
        .saturating_mul(flag_bytes(n, two))
        .saturating_add(read_rows.saturating_mul(sets * row))
        .saturating_add(band_rows.saturating_mul(2 * sets * row))
        .saturating_add(table_bytes(n, k).saturating_mul(workers as u64))
        .saturating_add(n as u64 * row)
        .saturating_add(dte)
}

/// Bytes a row of the engine's per-row bookkeeping, at most (the engine's
/// `run`): per cop attractor a mask of the words that changed (8) and,
/// where a mask bit is one word (at most 4,096 cells), the gains of the
/// first two changed words (16); per thief attractor a changed flag for
/// the current and for the next level (2). The cops' LOSS and the
/// thief's WIN attractors exist only where the thief can win (`two`).
fn flag_bytes(n: usize, two: bool) -> u64 {
    let gains = if n.div_ceil(64) <= 64 { 16 } else { 0 };
    let attractors = if two { 2 } else { 1 };
    attractors * (8 + gains + 2)
}

/// Rows of table `j` (1 to k) in block `t`: prefixes `M` of `j - 1` cells
/// `<= t`, times the (k - j)-multisets `B` of all `n` cells.
pub(super) fn table_rows(n: usize, k: usize, j: usize, t: usize) -> usize {
    (multiset_count(t + 1, j - 1) * multiset_count(n, k - j)) as usize
}

/// Bytes of one task's tables (the engine keeps one per worker thread).
fn table_bytes(n: usize, k: usize) -> u64 {
    let words = n.div_ceil(64).max(1) as u64;
    let last = n.max(1) - 1;
    (1..k)
        .map(|j| table_rows(n, k, j, last) as u64 * (words * 8 + 2))
        .sum::<u64>()
        + table_rows(n, k, k, last) as u64
}

/// Whether the thief wins some state: an exit, a cop cell without a move,
/// or a thief cell without one. Otherwise the cops' LOSS and the thief's
/// WIN attractors stay empty and are never allocated.
pub(super) fn thief_can_win(arena: &Arena) -> bool {
    let (cop_passes, thief_passes) = arena.passes();
    let stuck =
        |passes: bool, steps: &dyn Fn(u32) -> bool| !passes && (0..arena.cells()).any(steps);
    arena.exit_count() > 0
        || stuck(cop_passes, &|c| arena.cop_steps(c).is_empty())
        || stuck(thief_passes, &|c| arena.thief_steps(c).is_empty())
}
