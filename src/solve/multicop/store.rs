//! Where the k-cop engine's big arrays live: on the heap, or in scratch
//! files mapped into memory when a memory cap leaves no room for them
//! ([`KcopStorage`], [`kcop_plan`]).
//!
//! The arrays are the attractor bitsets (four, or two where the thief can
//! win nowhere), the thief's rows of the next level (two, or one) and the
//! distance table. A plan moves the largest of them to scratch files
//! first until what stays in memory fits the cap: the distance table (16
//! times a bitset on a 64-cell row), then the bitsets. The engine reads and writes every array as a plain
//! slice either way ([`Words`]), so its kernels do not know where it is.

use std::ops::{Deref, DerefMut};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU16, AtomicU64};

use crate::error::{Error, Result};
use crate::games::arena::Arena;
use crate::games::multiset::multiset_count;
use crate::storage::pager::Pager;
use crate::storage::{Backing, Plain, Region};

#[cfg(feature = "distributed")]
use super::memory::kcop_band_bytes;
use super::memory::{kcop_memory_for, thief_can_win};

/// What a k-cop solve may use: a cap on the bytes of its arrays in memory,
/// and a folder for the scratch files of those that do not fit.
#[derive(Clone, Debug, Default)]
pub struct KcopStorage {
    /// Cap on the bytes the solve keeps in memory (the whole of
    /// [`kcop_memory_for`] when everything fits); `None`: no cap.
    pub memory: Option<u64>,
    /// Folder for scratch files (created there and unlinked at once).
    pub scratch: Option<PathBuf>,
}

/// Where a k-cop solve's arrays go, by [`kcop_plan`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KcopPlan {
    /// Bytes the solve needs in all ([`kcop_memory_for`]).
    pub needed: u64,
    /// Bytes of the arrays in scratch files (0: all in memory).
    pub scratch: u64,
    /// Names of the arrays in scratch files, largest first.
    pub scratch_arrays: Vec<String>,
    /// Bytes of the scratch files resident at once by design: the block
    /// of the distance table written at a time ([`block_rows`]); the
    /// other arrays' pages are the kernel's to page.
    pub window: u64,
    /// Whether the plan keeps to the cap (else the solve is refused).
    pub fits: bool,
}

impl KcopPlan {
    /// Bytes in memory: what is needed less what goes to scratch files,
    /// plus the window of them kept resident.
    #[must_use]
    pub fn in_memory(&self) -> u64 {
        self.needed - self.scratch + self.window
    }
}

/// Most bytes of a scratch-file distance table filled and written at a
/// time ([`Words::by_blocks`]).
const BLOCK_BYTES: u64 = 32 << 20;

/// Rows of `row` bytes in a block of an array of `len` bytes: an eighth
/// of the array, at most [`BLOCK_BYTES`], at least one row.
fn block_rows(len: u64, row: u64) -> u64 {
    (len.div_ceil(8).min(BLOCK_BYTES) / row.max(1)).max(1)
}

/// The movable arrays of a solve, in the engine's order: the distance
/// table, the bitsets `cw, cl, tl, tw`, then the thief's rows of the next
/// level `tl, tw` (`cl` and `tw` of size 0 where the thief can win
/// nowhere).
fn arrays(arena: &Arena, k: usize, dte_table: bool) -> Vec<(String, u64)> {
    let n = arena.cells() as usize;
    let row = n.div_ceil(64).max(1) as u64 * 8;
    let ranks = multiset_count(n, k);
    let set = ranks.saturating_mul(row);
    let two = thief_can_win(arena);
    let mut all = vec![(
        "distance table".to_string(),
        if dte_table {
            ranks.saturating_mul(n as u64 * 4)
        } else {
            0
        },
    )];
    for (name, on) in [
        ("cw", true),
        ("cl", two),
        ("tl", true),
        ("tw", two),
        ("tl (next level)", true),
        ("tw (next level)", two),
    ] {
        all.push((name.to_string(), if on { set } else { 0 }));
    }
    all
}

/// Plans where the arrays of a k-cop solve of `arena` go under `storage`:
/// all in memory when [`kcop_memory_for`] fits the cap; else, with a
/// scratch folder, the largest arrays to scratch files until the rest
/// fits under the pager's threshold (an eighth of the cap, at least 64
/// MiB, below it), where it can. Without a folder, or when even the
/// arrays that cannot move (the thief's neighbour rows, the changed-row
/// flags) exceed the cap, `fits` is false.
#[must_use]
pub fn kcop_plan(arena: &Arena, k: usize, dte_table: bool, storage: &KcopStorage) -> KcopPlan {
    plan_arrays(arena, k, dte_table, storage).0
}

/// [`kcop_plan`], with per array (in [`arrays`] order) whether it goes to
/// a scratch file.
fn plan_arrays(
    arena: &Arena,
    k: usize,
    dte_table: bool,
    storage: &KcopStorage,
) -> (KcopPlan, Vec<bool>) {
    let needed = kcop_memory_for(arena, k, dte_table);
    let n = arena.cells() as usize;
    place(&arrays(arena, k, dte_table), needed, n, storage)
}

/// Where the arrays `all` (in [`arrays`] order) of a solve of `n` cells
/// that needs `needed` bytes go under `storage`: all in memory when they
/// fit the cap; else, with a scratch folder, the largest to scratch files
/// until the rest fits under the pager's threshold, where it can.
fn place(
    all: &[(String, u64)],
    needed: u64,
    n: usize,
    storage: &KcopStorage,
) -> (KcopPlan, Vec<bool>) {
    let mut to_scratch = vec![false; all.len()];
    let cap = storage.memory.unwrap_or(u64::MAX);
    let mut plan = KcopPlan {
        needed,
        scratch: 0,
        scratch_arrays: Vec::new(),
        window: 0,
        fits: needed <= cap,
    };
    if plan.fits || storage.scratch.is_none() {
        return (plan, to_scratch);
    }
    let mut order: Vec<usize> = (0..all.len()).filter(|&i| all[i].1 > 0).collect();
    // The thief's rows of the current level (`tl`, `tw`: 3 and 4) go last:
    // the cops' step reads them all over the array, a few scattered rows
    // per row it writes, so in a file whose pages the pager keeps dropping
    // they would fault in again and again; every other array is read and
    // written row after row. Largest first within each kind; equal sizes
    // in the engine's order (stable sort).
    order.sort_by_key(|&i| (matches!(i, 3 | 4), std::cmp::Reverse(all[i].1)));
    // What stays in memory must fit under the pager's threshold, not just
    // the cap: the pages of the files fault in above it, and a plan that
    // kept more than the threshold let the resident set pass the cap
    // under load (the pager dropped pages no faster than they came back).
    let target = pager_threshold(cap);
    for i in order {
        if plan.in_memory() <= target {
            break;
        }
        to_scratch[i] = true;
        plan.scratch += all[i].1;
        plan.scratch_arrays.push(all[i].0.clone());
        if i == 0 {
            let row = (n as u64 * 4).max(1);
            plan.window = (block_rows(all[i].1, row) * row).min(all[i].1);
        }
    }
    plan.fits = plan.in_memory() <= cap;
    (plan, to_scratch)
}

/// The movable arrays of one process's band of a partitioned k-cop solve
/// (`engine/partition.rs`), in [`arrays`] order, of `band_rows` cop
/// multisets reading the thief rows of `read_rows`: the band's distances
/// and cops' rows, the thief's rows it reads (its band's and the others'
/// its cops reach), and its band's thief rows of the next level.
#[cfg(feature = "distributed")]
fn band_arrays(
    arena: &Arena,
    (band_rows, read_rows): (u64, u64),
    dte_table: bool,
) -> Vec<(String, u64)> {
    let n = arena.cells() as usize;
    let row = n.div_ceil(64).max(1) as u64 * 8;
    let two = thief_can_win(arena);
    let rows = |on: bool, rows: u64| if on { rows.saturating_mul(row) } else { 0 };
    let dte = if dte_table {
        band_rows.saturating_mul(n as u64 * 4)
    } else {
        0
    };
    [
        ("distance table", dte),
        ("cw", rows(true, band_rows)),
        ("cl", rows(two, band_rows)),
        ("tl", rows(true, read_rows)),
        ("tw", rows(two, read_rows)),
        ("tl (next level)", rows(true, band_rows)),
        ("tw (next level)", rows(two, band_rows)),
    ]
    .into_iter()
    .map(|(name, bytes)| (name.to_string(), bytes))
    .collect()
}

/// Where the arrays of one process's band of a partitioned k-cop solve
/// go under `storage`, as [`kcop_plan`] places a local solve's: the band
/// of `band_rows` cop multisets, reading the thief rows of `read_rows`,
/// on `workers` threads; its bytes in all are [`kcop_band_bytes`]. Per
/// array (in [`arrays`] order), whether it goes to a scratch file of its
/// band's rows.
#[cfg(feature = "distributed")]
pub(crate) fn kcop_band_plan(
    arena: &Arena,
    k: usize,
    (band_rows, read_rows): (u64, u64),
    workers: usize,
    dte_table: bool,
    storage: &KcopStorage,
) -> (KcopPlan, Vec<bool>) {
    let needed = kcop_band_bytes(arena, k, band_rows, read_rows, workers, dte_table);
    let all = band_arrays(arena, (band_rows, read_rows), dte_table);
    place(&all, needed, arena.cells() as usize, storage)
}

/// The engine's arrays, allocated by the plan ([`Arrays::new`]).
pub(super) struct Arrays {
    pub(super) dte: Option<Words<u16>>,
    /// `cw, cl, tl, tw` of the current level.
    pub(super) sets: [Words<u64>; 4],
    /// The thief's rows `tl, tw` of the next level.
    pub(super) next: [Words<u64>; 2],
}

impl Arrays {
    /// Allocates the arrays of a solve of `arena` with `k` cops where
    /// [`kcop_plan`] puts them: zero bitsets, a distance table of
    /// `u16::MAX` (undecided).
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the plan does not fit, [`Error::Alloc`]
    /// when a scratch file cannot be made.
    pub(super) fn new(
        arena: &Arena,
        k: usize,
        dte_table: bool,
        storage: &KcopStorage,
    ) -> Result<Arrays> {
        let (plan, to_scratch) = plan_arrays(arena, k, dte_table, storage);
        if !plan.fits {
            return Err(Error::TooLarge {
                what: format!("{k} cops on {} cells (bitboard engine)", arena.cells()),
                needed: plan.needed,
                available: storage.memory.unwrap_or(u64::MAX),
                hint: "raise --memory, or give --scratch DIR".into(),
            });
        }
        let sizes = arrays(arena, k, dte_table);
        let backing = |i: usize| match (&storage.scratch, to_scratch[i]) {
            (Some(dir), true) => Backing::Scratch(dir.clone()),
            _ => Backing::Memory,
        };
        let words = |i: usize| -> Result<Words<u64>> {
            Words::zeroed::<AtomicU64>(sizes[i].1 / 8, &backing(i), &sizes[i].0)
        };
        let dte = if dte_table {
            let mut table =
                Words::zeroed::<AtomicU16>(sizes[0].1 / 2, &backing(0), "distance table")?;
            table.by_blocks(1, |_, block| block.fill(u16::MAX));
            Some(table)
        } else {
            None
        };
        let set = |i: usize| words(1 + i);
        Ok(Arrays {
            dte,
            sets: [set(0)?, set(1)?, set(2)?, set(3)?],
            next: [set(4)?, set(5)?],
        })
    }
}

/// Starts a [`Pager`] over the bitsets `sets` and the distance table
/// `dte`, those of them in scratch files, that drops their pages whenever
/// the resident set passes the threshold of a solve capped at `cap` bytes
/// ([`pager_threshold`]); `None` without a cap or without an array in a
/// file. The pager must be dropped before the arrays.
pub(super) fn pager_for(
    cap: Option<u64>,
    sets: &[&Words<u64>],
    dte: Option<&Words<u16>>,
) -> Option<Pager> {
    let regions: Vec<&Region> = sets
        .iter()
        .map(|w| w.region())
        .chain([dte.and_then(Words::region)])
        .flatten()
        .collect();
    Pager::start(&regions, pager_threshold(cap?))
}

/// The resident set past which a solve capped at `cap` bytes drops its
/// scratch pages: an eighth of the cap (at least 64 MiB) below it, room
/// for what faults in between two looks of the pager.
fn pager_threshold(cap: u64) -> u64 {
    cap.saturating_sub((cap / 8).max(64 << 20))
}

/// An array of plain integers on the heap or in a mapped region (a
/// scratch file), used as a slice either way.
pub(crate) enum Words<T: Plain> {
    /// A heap vector: the in-memory case, as before there were scratch
    /// files (an anonymous mapping per array would cost `copnumber`,
    /// which solves millions of tiny arenas, a system call each).
    Heap(Vec<T>),
    /// A scratch-file region.
    Mapped(Box<Region>),
}

impl<T: Plain + Default> Words<T> {
    /// `count` zeros on the heap or, with a scratch backing, in a file.
    fn zeroed<A: crate::storage::Atomic>(
        count: u64,
        backing: &Backing,
        what: &str,
    ) -> Result<Self> {
        debug_assert_eq!(std::mem::size_of::<A>(), std::mem::size_of::<T>());
        Ok(match backing {
            Backing::Memory => Words::Heap(vec![T::default(); count as usize]),
            Backing::Scratch(_) => {
                Words::Mapped(Box::new(Region::zeroed::<A>(count, backing, what)?))
            }
        })
    }
}

impl<T: Plain> Words<T> {
    /// Calls `f(first, block)` on the whole array, or, in a scratch file,
    /// on blocks of whole rows of `row` elements (an eighth of it, at most
    /// 32 MiB: [`block_rows`]) in turn,
    /// dropping each block's resident pages after (they stay in the page
    /// cache and the file, and fault back in when read): the distance
    /// table, written sparsely once a level, then keeps only a block
    /// resident. `first` is the block's first row.
    pub(super) fn by_blocks(&mut self, row: usize, f: impl Fn(usize, &mut [T])) {
        let size = std::mem::size_of::<T>();
        let Words::Mapped(region) = self else {
            f(0, self);
            return;
        };
        let rows = block_rows(region.bytes() as u64, (row * size) as u64) as usize;
        let len = region.bytes() / size;
        for (i, start) in (0..len).step_by(rows * row).enumerate() {
            let end = (start + rows * row).min(len);
            f(i * rows, &mut region.plain_mut::<T>()[start..end]);
            region.release(start as u64..end as u64, size as u64);
        }
    }
}

#[cfg(feature = "distributed")]
impl<T: Plain> Words<T> {
    /// `count` zeros mapped without reserving memory (a partitioned
    /// process touches only its band's and its reads' rows), elements
    /// `window` of them in a scratch file under `dir` when given: the
    /// file is the window's size, not the state space's.
    ///
    /// # Errors
    /// [`Error::Alloc`] for the mappings, [`Error::Scratch`] for the file.
    pub(super) fn sparse<A: crate::storage::Atomic>(
        count: u64,
        window: std::ops::Range<u64>,
        dir: Option<&std::path::Path>,
        what: &str,
    ) -> Result<Self> {
        debug_assert_eq!(std::mem::size_of::<A>(), std::mem::size_of::<T>());
        if count == 0 {
            return Ok(Words::Heap(Vec::new()));
        }
        Ok(Words::Mapped(Box::new(match dir {
            Some(dir) => Region::sparse_with_file::<A>(
                count,
                window,
                dir,
                what,
                crate::storage::Paging::Kernel,
            )?,
            None => Region::zeroed_sparse::<A>(count, what)?,
        })))
    }

    /// Sets elements `range` to `value` in blocks of at most 32 MiB,
    /// dropping each block's pages of a scratch file after: a band's
    /// distances start undecided without ever being resident at once.
    pub(super) fn fill_range(&mut self, range: std::ops::Range<usize>, value: T) {
        let size = std::mem::size_of::<T>();
        let block = (BLOCK_BYTES as usize / size).max(1);
        for start in range.clone().step_by(block) {
            let end = (start + block).min(range.end);
            self[start..end].fill(value);
            if let Words::Mapped(region) = self {
                region.release(start as u64..end as u64, size as u64);
            }
        }
    }
}

impl<T: Plain> Words<T> {
    /// The scratch-file region behind the array (`None` on the heap).
    pub(super) fn region(&self) -> Option<&Region> {
        match self {
            Words::Mapped(region) => Some(region),
            Words::Heap(_) => None,
        }
    }

    /// Drops the resident pages of a scratch-file array (they stay in the
    /// page cache and the file, and fault back in when read); nothing for
    /// a heap array. The distance table, written sparsely once a level,
    /// then keeps few pages resident.
    pub(super) fn release(&mut self) {
        if let Words::Mapped(region) = self {
            let len = region.bytes() as u64;
            region.release(0..len, 1);
        }
    }
}

impl<T: Plain> Deref for Words<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match self {
            Words::Heap(v) => v,
            // SAFETY: a `Words` owns its region and never views it as
            // atomics, so nothing modifies it while this slice lives.
            Words::Mapped(r) => unsafe { r.plain::<T>() },
        }
    }
}

impl<T: Plain> DerefMut for Words<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Words::Heap(v) => v,
            Words::Mapped(r) => r.plain_mut::<T>(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn storage(memory: u64, scratch: bool) -> KcopStorage {
        KcopStorage {
            memory: Some(memory),
            scratch: scratch.then(std::env::temp_dir),
        }
    }

    /// The plan moves the largest arrays first and only as many as needed,
    /// and refuses without a folder or below the unmovable bytes.
    #[test]
    fn plan_moves_largest_arrays_first() {
        // Rows of several words, so that the bitsets outweigh the per-row
        // bookkeeping that cannot move (on a path of 40 cells it does not).
        let arena =
            Arena::from_edges(400, &(0..399).map(|i| (i, i + 1)).collect::<Vec<_>>()).unwrap();
        let needed = kcop_memory_for(&arena, 2, true);
        let all = kcop_plan(&arena, 2, true, &KcopStorage::default());
        assert!(all.fits && all.scratch == 0 && all.needed == needed);
        let refused = kcop_plan(&arena, 2, true, &storage(needed - 1, false));
        assert!(!refused.fits);
        let table = kcop_plan(&arena, 2, true, &storage(needed - 1, true));
        assert!(table.fits);
        assert_eq!(table.scratch_arrays, vec!["distance table".to_string()]);
        let tiny = kcop_plan(&arena, 2, true, &storage(1, true));
        assert!(!tiny.fits);
        assert!(tiny.scratch_arrays.len() > 3);
        let bare = kcop_memory_for(&arena, 2, false);
        let none = kcop_plan(&arena, 2, false, &storage(bare / 2, true));
        assert!(none.fits && none.in_memory() <= bare / 2);
        assert_eq!(none.scratch_arrays[0], "cw");
    }
}
