//! Flat per-state arrays backed by memmap2: anonymous memory, or a scratch
//! file when the arrays exceed RAM.
//!
//! Most of the library's `unsafe` is here: reinterpreting mapped bytes as
//! atomics ([`Region::atomics`]), mapping scratch files, and the system
//! calls of `host.rs`, `pages.rs` and `pager.rs`. Everything above works on
//! `&[AtomicU8]`, `&[AtomicU32]` or `&[AtomicU64]` slices.
//!
//! - `mod.rs`: [`Region`], [`Backing`], [`Paging`] and `WordPager`;
//! - `cells.rs`: the packed per-state counters and labels;
//! - `frontier.rs`: a level's frontier as a two-level bitmap;
//! - `host.rs`: what the machine offers (memory left, free disk, page
//!   size, unlinked scratch files, the pagemap);
//! - `pages.rs`: a mapping's pages and how they go back to its file;
//! - `pager.rs`: the watcher that drops shared scratch-file pages when the
//!   resident set nears the cap;
//! - `tests.rs`: scratch-file regions against their files.

pub(crate) mod cells;
pub(crate) mod frontier;
mod host;
pub(crate) mod pager;
mod pages;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8};

use memmap2::{Advice, MmapMut, MmapOptions};

pub(crate) use host::address_space_left;
pub(crate) use host::disk_room;
pub use host::{available_memory, free_disk};
#[cfg(test)]
use host::{is_private_copy, pagemap, read_pagemap};
use host::{page_size, scratch_file};
use pages::Pages;

use crate::error::{Error, Result};

/// Where the per-state arrays of a solve live.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Backing {
    /// Anonymous memory (the default): fastest, limited by RAM.
    #[default]
    Memory,
    /// Files in this directory, mapped into memory: a solve can exceed RAM.
    /// The files are unlinked as soon as they are mapped, so they vanish
    /// when the process ends, however it ends.
    Scratch(PathBuf),
}

/// How the pages of a scratch-file region get back to their file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Paging {
    /// A shared mapping: the kernel writes modified pages back by itself.
    /// No copies, but a page modified over a long time is written again
    /// every few seconds. Best for arrays written in one pass (graphs) and
    /// for the level engines, which modify each band in one short pass per
    /// level.
    Kernel,
    /// A private (copy-on-write) mapping written back by
    /// [`Region::release`] only: each page costs a copy on first write and
    /// a `pwrite`, but reaches the disk once per release however often it
    /// was modified. For the sweep engine, whose window stays resident for
    /// many passes, and the bitboard engine out of core, whose pass keeps a
    /// pipeline of rows resident while many levels change them.
    Explicit,
}

/// A zero-filled, page-aligned mapped array of bytes.
///
/// A scratch region with [`Paging::Explicit`] is a *private* mapping of
/// its file: the kernel never writes modified pages back by itself, so a
/// page that is updated again and again while it stays resident costs no
/// disk traffic. [`Region::release`] writes the modified pages of a range
/// to the file once, with `pwrite`, and only then drops them; the next
/// access faults the new contents back in from the file. (A shared mapping
/// let the kernel flush the same hot pages of the sweep engine's window
/// over and over: 322 GB written for a 43 GB array in 20 minutes.)
#[derive(Debug)]
pub(crate) struct Region {
    map: MmapMut,
    /// The mapping's range and scratch file (pages of a file-backed
    /// region can be released from memory without losing their contents).
    pages: Pages,
}

/// Element types a [`Region`] can be viewed as.
///
/// # Safety
/// Implementors must be atomics with the size and alignment of a plain
/// integer of `size_of::<Self>()` bytes, for which every bit pattern is valid
/// (including all zeros).
pub(crate) unsafe trait Atomic: Sized + Sync {}
// SAFETY: the std atomics have the same in-memory representation as the
// integer they wrap, and every bit pattern is a valid integer.
unsafe impl Atomic for AtomicU8 {}
// SAFETY: as above.
unsafe impl Atomic for AtomicU16 {}
// SAFETY: as above.
unsafe impl Atomic for AtomicU32 {}
// SAFETY: as above.
unsafe impl Atomic for AtomicU64 {}

/// Plain integer types a [`Region`] can be viewed as
/// ([`Region::plain_mut`]).
///
/// # Safety
/// Implementors must be plain integers, valid for every bit pattern.
pub(crate) unsafe trait Plain: Copy + Send + Sync {}
// SAFETY: integers are valid for every bit pattern.
unsafe impl Plain for u16 {}
// SAFETY: as above.
unsafe impl Plain for u64 {}

/// The bytes of `count` items of `T`, refused past the address space.
fn byte_len<T>(count: u64, what: &str) -> Result<u64> {
    count
        .checked_mul(std::mem::size_of::<T>() as u64)
        .filter(|&b| b <= isize::MAX as u64)
        .ok_or_else(|| Error::Alloc {
            what: what.to_string(),
            bytes: u64::MAX,
            source: std::io::Error::other("size overflows the address space"),
        })
}

impl Region {
    /// A zero-filled region of `count` elements of `T`, mapped according to
    /// `backing`. `what` names the array in error messages.
    pub(crate) fn zeroed<T: Atomic>(count: u64, backing: &Backing, what: &str) -> Result<Region> {
        Region::zeroed_paged::<T>(count, backing, what, Paging::Kernel)
    }

    /// As [`Region::zeroed`], with the given paging for a scratch file.
    pub(crate) fn zeroed_paged<T: Atomic>(
        count: u64,
        backing: &Backing,
        what: &str,
        paging: Paging,
    ) -> Result<Region> {
        let bytes = byte_len::<T>(count, what)?;
        let alloc_error = |source| Error::Alloc {
            what: what.to_string(),
            bytes,
            source,
        };
        let len = bytes as usize;
        // A zero-length mapping is an error for mmap; map one page instead.
        let map_len = len.max(1);
        let (map, file) = match backing {
            Backing::Memory => {
                let map = MmapMut::map_anon(map_len).map_err(alloc_error)?;
                // Transparent huge pages cut the cost of a random byte update
                // by about a third on the big arrays (fewer TLB misses); the
                // hint is best effort, so a refusal is not an error.
                let _ = map.advise(Advice::HugePage);
                (map, None)
            }
            Backing::Scratch(dir) => {
                let file = scratch_file(dir, map_len as u64)
                    .map_err(|source| Error::scratch(dir, map_len as u64, source))?;
                let mut options = MmapOptions::new();
                options.len(map_len);
                // SAFETY: the file was created by this process with
                // `create_new` and mode 0600, and is unlinked right after
                // creation (inside `scratch_file`, before it returns the
                // handle), so no other process can open it by name and
                // modify it under us. The file's blocks are allocated
                // (`scratch_file` reserves them), so a disk that fills up
                // later cannot fault a page of it with SIGBUS, as a sparse
                // file's could (on file systems without `fallocate` that
                // risk remains; sizes are checked against free disk before
                // a solve starts). A private mapping's pages are only ever written by
                // `release`, with `pwrite`, whose errors are reported; it
                // reserves no swap, since a private writable mapping larger
                // than RAM is otherwise refused and `release` keeps the
                // private copies to a window anyway.
                let map = unsafe {
                    match paging {
                        Paging::Kernel => options.map_mut(&file),
                        Paging::Explicit => options.no_reserve_swap().map_copy(&file),
                    }
                };
                let map = map.map_err(alloc_error)?;
                // Work on scratch arrays is ordered by state index, so the
                // kernel's default read-ahead helps; random access hints
                // would hurt.
                let _ = map.advise(Advice::Sequential);
                (map, Some(file))
            }
        };
        let pages = Pages::new(map.as_ptr() as usize, len, file, paging);
        Ok(Region { map, pages })
    }

    /// A zero-filled region of `count` elements of `T` in anonymous memory
    /// that reserves no swap (`MAP_NORESERVE`): a partitioned bit solve
    /// maps the whole state space's bitsets and touches only its own band
    /// and the halo rows beside it. Pages never touched cost no memory, but
    /// without `MAP_NORESERVE` the kernel's overcommit check would refuse a
    /// mapping larger than memory that this process never fills.
    #[cfg(feature = "distributed")]
    pub(crate) fn zeroed_sparse<T: Atomic>(count: u64, what: &str) -> Result<Region> {
        let bytes = byte_len::<T>(count, what)?;
        let len = bytes as usize;
        let map = MmapOptions::new()
            .len(len.max(1))
            .no_reserve_swap()
            .map_anon()
            .map_err(|source| Error::Alloc {
                what: what.to_string(),
                bytes,
                source,
            })?;
        let _ = map.advise(Advice::HugePage);
        let pages = Pages::new(map.as_ptr() as usize, len, None, Paging::Kernel);
        Ok(Region { map, pages })
    }

    /// As [`Region::zeroed_sparse`], with elements `window` in a scratch
    /// file under `dir` instead of anonymous memory (unlinked at once, as
    /// every scratch file is): a partitioned bit solve's band (and its
    /// halo rows) out of core. The file holds the window's pages only, so
    /// its size is the band's, not the state space's; releases and
    /// read-ahead ([`Region::release`], [`WordPager`]) act on the window
    /// alone. With `paging` [`Paging::Kernel`] the mapping is shared: a
    /// band paged one level per pass writes each row once and then drops
    /// it, so the private copies and write-backs of [`Paging::Explicit`]
    /// would only copy every written page twice more; the kernel writes
    /// the dirty pages back by itself, a page changed at several levels in
    /// a row once. Measured, 2 processes at one level per pass: a winding
    /// 81 x 60 map of 4,838 levels under 8 MiB each, 11.3 s shared against
    /// 62 s private; the 150 x 150 map (330 levels) under half its bands,
    /// 57.9 s shared against 45.5 s private, where every first write to a
    /// clean page goes through the file system's `page_mkwrite` for its
    /// whole folio. A band paged several levels per pass keeps a pipeline
    /// of rows that its levels change again and again, as the local engine
    /// out of core does, and maps its file private ([`Paging::Explicit`]).
    ///
    /// # Errors
    /// [`Error::Alloc`] for the mappings, [`Error::Scratch`] naming `dir`
    /// for the file.
    #[cfg(feature = "distributed")]
    pub(crate) fn sparse_with_file<T: Atomic>(
        count: u64,
        window: std::ops::Range<u64>,
        dir: &std::path::Path,
        what: &str,
        paging: Paging,
    ) -> Result<Region> {
        let mut region = Region::zeroed_sparse::<T>(count, what)?;
        let (size, page) = (std::mem::size_of::<T>() as u64, page_size());
        let len = region.pages.len as u64;
        let start = (window.start * size / page * page).min(len);
        let end = (window.end * size)
            .div_ceil(page)
            .saturating_mul(page)
            .min(len);
        if end <= start {
            region.pages.window = 0..0;
            return Ok(region);
        }
        let file = scratch_file(dir, end - start)
            .map_err(|source| Error::scratch(dir, end - start, source))?;
        let at = region.map.as_mut_ptr() as usize + start as usize;
        // SAFETY: `at .. at + (end - start)` (rounded up to a page) lies
        // inside the anonymous mapping just made, which `region` owns and
        // nothing has read or borrowed yet, so replacing those pages
        // (MAP_FIXED) invalidates no reference; the region's own unmapping
        // on drop covers the new mapping too. The file was created by this
        // process with mode 0600 and unlinked at once, so no other process
        // can modify it under us, and its blocks are allocated, so a full
        // disk cannot fault a page with SIGBUS (as in
        // `Region::zeroed_paged`).
        let mapped = unsafe {
            libc::mmap(
                at as *mut libc::c_void,
                (end - start) as usize,
                libc::PROT_READ | libc::PROT_WRITE,
                match paging {
                    Paging::Kernel => libc::MAP_SHARED,
                    Paging::Explicit => libc::MAP_PRIVATE,
                } | libc::MAP_FIXED,
                std::os::fd::AsRawFd::as_raw_fd(&file),
                0,
            )
        };
        if mapped == libc::MAP_FAILED || mapped as usize != at {
            return Err(Error::Alloc {
                what: what.to_string(),
                bytes: end - start,
                source: std::io::Error::last_os_error(),
            });
        }
        region.pages.file = Some(std::sync::Arc::new(file));
        region.pages.paging = paging;
        region.pages.window = start..end;
        // As for any scratch region: work goes in state order.
        // SAFETY: the advice changes no byte of the mapping.
        unsafe {
            libc::madvise(mapped, (end - start) as usize, libc::MADV_SEQUENTIAL);
        }
        Ok(region)
    }

    /// Drops the resident pages that lie entirely inside elements
    /// `range` of a scratch-file region (of element size `elem` bytes),
    /// after writing the modified ones to the file (with
    /// [`Paging::Explicit`]; the kernel does it for [`Paging::Kernel`]);
    /// they come back with the same contents on the next access. A no-op
    /// for anonymous memory, where it would lose the data. Callers must not
    /// modify the range while this runs.
    pub(crate) fn release(&self, range: std::ops::Range<u64>, elem: u64) {
        self.pages.release(range.start * elem..range.end * elem);
    }

    /// Maps the pages of elements `range` (of `elem` bytes) of a private
    /// scratch-file region writable ahead of use ([`Paging::Explicit`];
    /// see `Pages::populate`). Pages already mapped are left alone; best
    /// effort (a refusal only costs speed).
    pub(crate) fn prefault(&self, range: std::ops::Range<u64>, elem: u64) {
        self.pages.populate(range.start * elem..range.end * elem);
    }

    /// Starts reading elements `range` (of `elem` bytes) of a scratch-file
    /// region into the page cache (`MADV_WILLNEED`), so that a pass that
    /// reaches them soon finds them there instead of waiting on a fault.
    /// A hint: a no-op for anonymous memory, and failure only costs speed.
    pub(crate) fn will_need(&self, range: std::ops::Range<u64>, elem: u64) {
        self.pages.will_need(range.start * elem..range.end * elem);
    }

    /// The first error met writing pages back to the scratch file, if any
    /// (taken: a second call returns `None`).
    pub(crate) fn take_write_error(&self) -> Option<std::io::Error> {
        self.pages.take_write_error()
    }

    /// Views the region as a slice of atomics.
    pub(crate) fn atomics<T: Atomic>(&self) -> &[T] {
        let size = std::mem::size_of::<T>();
        debug_assert_eq!(self.pages.len % size, 0);
        debug_assert_eq!(self.map.as_ptr() as usize % std::mem::align_of::<T>(), 0);
        // SAFETY: the mapping is page aligned (so aligned for any atomic),
        // at least `len` bytes long and lives as long as `self`. `T` is an
        // atomic with a plain integer representation (the `Atomic`
        // contract), so any bytes are valid values, and all mutation after
        // this point goes through the atomics: `Region` never hands out
        // `&mut [u8]`, so no non-atomic alias exists.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<T>(), self.pages.len / size) }
    }

    /// Views a region created for `AtomicU64` elements as plain words for
    /// exclusive use (the bit-parallel engine splits them among workers by
    /// disjoint ranges, so it needs no atomic instructions).
    pub(crate) fn words_mut(&mut self) -> &mut [u64] {
        self.plain_mut()
    }

    /// Views the region as plain integers for exclusive use (the k-cop
    /// engine's bitsets and distance table, `copnumber/store.rs`; the
    /// bit-parallel engine's words through [`Region::words_mut`]).
    pub(crate) fn plain_mut<T: Plain>(&mut self) -> &mut [T] {
        let size = std::mem::size_of::<T>();
        debug_assert_eq!(self.pages.len % size, 0);
        debug_assert_eq!(self.map.as_ptr() as usize % std::mem::align_of::<T>(), 0);
        // SAFETY: the mapping is page aligned (so aligned for any
        // integer), at least `len` bytes long and lives as long as `self`;
        // every bit pattern is a valid `T` (the `Plain` contract). The
        // `&mut self` borrow excludes every other view (`atomics` borrows
        // `self` shared) for the lifetime of the returned slice, so the
        // slice is the only alias.
        unsafe {
            std::slice::from_raw_parts_mut(self.map.as_mut_ptr().cast::<T>(), self.pages.len / size)
        }
    }

    /// Views the region as plain integers, shared.
    ///
    /// # Safety
    /// No atomic view of this region ([`Region::atomics`]) may be used to
    /// modify it while the returned slice lives (the k-cop engine's
    /// regions are never viewed as atomics).
    pub(crate) unsafe fn plain<T: Plain>(&self) -> &[T] {
        let size = std::mem::size_of::<T>();
        debug_assert_eq!(self.pages.len % size, 0);
        // SAFETY: aligned, long enough and live as in `plain_mut`; the
        // caller guarantees that nothing modifies the bytes meanwhile.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<T>(), self.pages.len / size) }
    }

    /// As [`Region::words_mut`], with a [`WordPager`] that releases pages
    /// of those words while the slice is borrowed (the bit-parallel engine
    /// out of core releases each row of records as its passes leave it).
    pub(crate) fn words_with_pager(&mut self) -> (&mut [u64], WordPager) {
        let pager = WordPager(self.pages.clone());
        (self.words_mut(), pager)
    }

    /// Length in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.pages.len
    }
}

/// Releases resident pages of a scratch-file [`Region`] whose words are
/// borrowed mutably elsewhere ([`Region::words_with_pager`]), as
/// [`Region::release`] does: modified pages of a private mapping are
/// written to the file first. A no-op for anonymous memory.
#[derive(Clone, Debug)]
pub(crate) struct WordPager(Pages);

impl WordPager {
    /// Releases the pages that lie entirely inside words `range` (see
    /// [`Region::release`]). Callers must not modify the range meanwhile.
    pub(crate) fn release(&self, range: std::ops::Range<u64>) {
        self.0.release(range.start * 8..range.end * 8);
    }

    /// Starts reading words `range` (and the rest of their pages) into the
    /// page cache (`MADV_WILLNEED`): a hint.
    pub(crate) fn will_need(&self, range: std::ops::Range<u64>) {
        self.0.will_need(range.start * 8..range.end * 8);
    }

    /// The first error met writing pages back to the scratch file, if any
    /// (taken: a second call returns `None`).
    pub(crate) fn take_write_error(&self) -> Option<std::io::Error> {
        self.0.take_write_error()
    }

    /// Maps the pages of words `range` of a private scratch-file mapping
    /// writable ahead of use (see [`Region::prefault`]).
    pub(crate) fn prefault(&self, range: std::ops::Range<u64>) {
        self.0.populate(range.start * 8..range.end * 8);
    }
}

#[cfg(test)]
mod tests;
