//! The pages of a mapped region and how they get back to its scratch
//! file: what [`Region::release`](super::Region::release) and a
//! [`WordPager`](super::WordPager) (which works while the region's words
//! are borrowed mutably elsewhere) both need.

use std::fs::File;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use super::host::{is_private_copy, page_size, pagemap, read_pagemap};
use super::Paging;

/// A mapping's address range, its scratch file (none for anonymous
/// memory) and the first error met writing pages back to it.
#[derive(Clone, Debug)]
pub(super) struct Pages {
    /// The mapping's first byte.
    pub(super) base: usize,
    /// Its length in bytes.
    pub(super) len: usize,
    pub(super) file: Option<Arc<File>>,
    pub(super) paging: Paging,
    /// The bytes of the mapping that map the file, which starts at the
    /// first of them: all of it, or (a partitioned bit solve's band,
    /// `Region::sparse_with_file`) a page-aligned window inside anonymous
    /// memory. Releases, read-ahead and write-backs stay inside it: the
    /// anonymous rest would lose its contents to `MADV_DONTNEED`.
    pub(super) window: Range<u64>,
    /// The first error met writing pages back (they then stay resident).
    write_error: Arc<Mutex<Option<std::io::Error>>>,
}

impl Pages {
    pub(super) fn new(base: usize, len: usize, file: Option<File>, paging: Paging) -> Pages {
        Pages {
            base,
            len,
            file: file.map(Arc::new),
            paging,
            window: 0..len as u64,
            write_error: Arc::new(Mutex::new(None)),
        }
    }

    /// Drops the resident pages that lie entirely inside bytes `bytes`,
    /// after writing the modified ones to the file with
    /// [`Paging::Explicit`] (the kernel does it for [`Paging::Kernel`]);
    /// they come back with the same contents on the next access. A no-op
    /// for anonymous memory, where it would lose the data. Callers must
    /// not modify the range while this runs.
    pub(super) fn release(&self, bytes: Range<u64>) {
        let Some(file) = &self.file else {
            return;
        };
        let page = page_size();
        let start = bytes.start.max(self.window.start).div_ceil(page) * page;
        let end = (bytes.end.min(self.window.end) / page) * page;
        if end <= start {
            return;
        }
        if self.paging == Paging::Explicit {
            if let Err(e) = self.write_back(file, start, end) {
                // Keep the pages (and the data): the solve reports the
                // error when it ends instead of losing states.
                let mut first = self.write_error.lock().unwrap_or_else(|p| p.into_inner());
                first.get_or_insert(e);
                return;
            }
        }
        // SAFETY: the mapping maps a file private to this process (see
        // `Region::zeroed_paged`). For a shared mapping MADV_DONTNEED only
        // unmaps the pages: dirty contents stay in the page cache and
        // reach the file. For a private one it drops the private copies,
        // which `write_back` has just written to the file. Either way the
        // next access faults the same bytes back in, and no reference into
        // the range is invalidated, since the virtual mapping stays in
        // place. Failure is harmless (the pages stay resident).
        unsafe { self.advise(start..end, libc::MADV_DONTNEED) };
    }

    /// Starts reading bytes `bytes` (and the rest of their pages) of a
    /// scratch-file mapping into the page cache (`MADV_WILLNEED`): a hint,
    /// a no-op for anonymous memory.
    pub(super) fn will_need(&self, bytes: Range<u64>) {
        if self.file.is_none() {
            return;
        }
        // SAFETY: MADV_WILLNEED only schedules reads of the file into the
        // page cache; it changes no byte of the mapping.
        unsafe { self.advise(self.covering(bytes), libc::MADV_WILLNEED) };
    }

    /// Maps the pages of bytes `bytes` of a private scratch-file mapping
    /// ([`Paging::Explicit`]) as private copies at once
    /// (`MADV_POPULATE_WRITE`), before anything reads them: a page first
    /// mapped read-only by a read and then written is copied by a second
    /// fault that must flush the other cores' TLBs, which cost four times
    /// the solve's own work on 2 cores (150 x 150, `--memory 50M`). Pages
    /// already mapped are left alone; a no-op for other mappings, and a
    /// refusal (kernels before 5.14) only costs speed.
    pub(super) fn populate(&self, bytes: Range<u64>) {
        if self.file.is_none() || self.paging != Paging::Explicit {
            return;
        }
        // SAFETY: populating only faults pages in as if written, without
        // writing: a private copy holds the same bytes as the file page it
        // copies, so no thread reads anything different.
        unsafe { self.advise(self.covering(bytes), libc::MADV_POPULATE_WRITE) };
    }

    /// The whole pages that hold bytes `bytes`, clipped to the mapping's
    /// file window.
    fn covering(&self, bytes: Range<u64>) -> Range<u64> {
        let page = page_size();
        let start = (bytes.start / page * page).max(self.window.start);
        start..(bytes.end.div_ceil(page) * page).min(self.window.end)
    }

    /// `madvise(advice)` over bytes `bytes` of the mapping (page aligned,
    /// clipped to its length).
    ///
    /// # Safety
    /// The advice must not change what any thread reads from the range.
    unsafe fn advise(&self, bytes: Range<u64>, advice: libc::c_int) {
        if bytes.end <= bytes.start {
            return;
        }
        // SAFETY: `base + start .. base + end` lies inside the live
        // mapping (callers align to pages and clip to `len`); the caller
        // guarantees the advice keeps its contents.
        unsafe {
            libc::madvise(
                (self.base + bytes.start as usize) as *mut libc::c_void,
                (bytes.end - bytes.start) as usize,
                advice,
            );
        }
    }

    /// Writes the pages of bytes `start..end` (page aligned) that this
    /// process modified to the scratch file. Modified pages are the private
    /// copies the kernel made on write, which `/proc/self/pagemap` tells
    /// apart from pages still shared with the file; without a usable
    /// pagemap every page of the range is written.
    fn write_back(&self, file: &File, start: u64, end: u64) -> std::io::Result<()> {
        let page = page_size();
        let Some(pagemap) = pagemap() else {
            return self.write_bytes(file, start, end);
        };
        let first_page = (self.base as u64 + start) / page;
        let pages = (end - start) / page;
        // Pagemap entries of up to 8192 pages at a time (64 KiB).
        let mut entries = vec![0u8; 8 * pages.min(8192) as usize];
        // A run of consecutive modified pages, written with one call.
        let mut run: Option<(u64, u64)> = None;
        let mut done = 0;
        while done < pages {
            let batch = (pages - done).min(entries.len() as u64 / 8) as usize;
            let batch_entries =
                read_pagemap(pagemap, first_page + done, &mut entries[..8 * batch])?;
            for (i, entry) in batch_entries.enumerate() {
                let at = start + (done + i as u64) * page;
                if is_private_copy(entry) {
                    run = match run {
                        Some((s, e)) if e == at => Some((s, at + page)),
                        Some((s, e)) => {
                            self.write_bytes(file, s, e)?;
                            Some((at, at + page))
                        }
                        None => Some((at, at + page)),
                    };
                }
            }
            done += batch as u64;
        }
        if let Some((s, e)) = run {
            self.write_bytes(file, s, e)?;
        }
        Ok(())
    }

    /// Writes bytes `start..end` of the mapping (inside its window) to the
    /// same offsets of the file, counted from the window's start.
    fn write_bytes(&self, file: &File, start: u64, end: u64) -> std::io::Result<()> {
        use std::os::fd::AsRawFd;
        let mut at = start;
        while at < end {
            let chunk = (end - at).min(1 << 30) as usize;
            // SAFETY: `at..at + chunk` lies inside the mapping (callers pass
            // ranges clipped to `len`), which stays mapped for the call;
            // `pwrite` only reads those bytes, and callers guarantee no
            // thread modifies the range meanwhile.
            let written = unsafe {
                libc::pwrite(
                    file.as_raw_fd(),
                    (self.base + at as usize) as *const libc::c_void,
                    chunk,
                    (at - self.window.start) as libc::off_t,
                )
            };
            if written < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            if written == 0 {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::WriteZero,
                    "scratch file write made no progress",
                ));
            }
            at += written as u64;
        }
        Ok(())
    }

    /// The first error met writing pages back to the scratch file, if any
    /// (taken: a second call returns `None`).
    pub(super) fn take_write_error(&self) -> Option<std::io::Error> {
        self.write_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }
}
