//! Flat per-state arrays backed by memmap2: anonymous memory, or a scratch
//! file when the arrays exceed RAM.
//!
//! This is the only module with `unsafe`: reinterpreting mapped bytes as
//! atomics ([`Region::atomics`]) and mapping scratch files. Everything above
//! works on `&[AtomicU8]`, `&[AtomicU32]` or `&[AtomicU64]` slices.

pub(crate) mod cells;
pub(crate) mod frontier;

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering};

use memmap2::{Advice, MmapMut, MmapOptions, UncheckedAdvice};

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

/// A zero-filled, page-aligned mapped array of bytes.
#[derive(Debug)]
pub(crate) struct Region {
    map: MmapMut,
    len: usize,
    /// Whether the region is a scratch file mapping (pages can be released
    /// from memory without losing their contents).
    file_backed: bool,
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

static SCRATCH_SEQUENCE: AtomicUsize = AtomicUsize::new(0);

impl Region {
    /// A zero-filled region of `count` elements of `T`, mapped according to
    /// `backing`. `what` names the array in error messages.
    pub(crate) fn zeroed<T: Atomic>(count: u64, backing: &Backing, what: &str) -> Result<Region> {
        let bytes = count
            .checked_mul(std::mem::size_of::<T>() as u64)
            .filter(|&b| b <= isize::MAX as u64)
            .ok_or_else(|| Error::Alloc {
                what: what.to_string(),
                bytes: u64::MAX,
                source: std::io::Error::other("size overflows the address space"),
            })?;
        let alloc_error = |source| Error::Alloc {
            what: what.to_string(),
            bytes,
            source,
        };
        let len = bytes as usize;
        // A zero-length mapping is an error for mmap; map one page instead.
        let map_len = len.max(1);
        let map = match backing {
            Backing::Memory => {
                let map = MmapMut::map_anon(map_len).map_err(alloc_error)?;
                // Transparent huge pages cut the cost of a random byte update
                // by about a third on the big arrays (fewer TLB misses); the
                // hint is best effort, so a refusal is not an error.
                let _ = map.advise(Advice::HugePage);
                map
            }
            Backing::Scratch(dir) => {
                let file = scratch_file(dir, map_len as u64).map_err(alloc_error)?;
                // SAFETY: the file was created by this process with
                // `create_new` and mode 0600, and is unlinked right after
                // mapping (inside `scratch_file`, before this call returns
                // the handle), so no other process can open it by name and
                // modify it under us. What remains is the usual risk of any
                // file mapping: if the disk fills up while pages are written
                // back, the process gets SIGBUS. Sizes are checked against
                // free disk before a solve starts to keep that unlikely.
                let map = unsafe { MmapOptions::new().len(map_len).map_mut(&file) };
                let map = map.map_err(alloc_error)?;
                // Work on scratch arrays is ordered by state index, so the
                // kernel's default read-ahead helps; random access hints
                // would hurt.
                let _ = map.advise(Advice::Sequential);
                map
            }
        };
        Ok(Region {
            map,
            len,
            file_backed: matches!(backing, Backing::Scratch(_)),
        })
    }

    /// Drops the resident pages that lie entirely inside elements
    /// `range` of a scratch-file region (of element size `elem` bytes); they
    /// stay in the file and come back on the next access. A no-op for
    /// anonymous memory, where it would lose the data.
    pub(crate) fn release(&self, range: std::ops::Range<u64>, elem: u64) {
        if !self.file_backed {
            return;
        }
        const PAGE: u64 = 4096;
        let start = (range.start * elem).div_ceil(PAGE) * PAGE;
        let end = ((range.end * elem).min(self.len as u64) / PAGE) * PAGE;
        if end <= start {
            return;
        }
        // SAFETY: the mapping is a MAP_SHARED mapping of a file private to
        // this process (see `zeroed`). For shared file mappings
        // MADV_DONTNEED only unmaps the pages: dirty contents are kept in the
        // page cache and written back to the file, and the next access faults
        // them in again with the same bytes. No reference into the range is
        // invalidated, since the virtual mapping stays in place. Failure is
        // harmless (the pages simply stay resident).
        let _ = unsafe {
            self.map.unchecked_advise_range(
                UncheckedAdvice::DontNeed,
                start as usize,
                (end - start) as usize,
            )
        };
    }

    /// Views the region as a slice of atomics.
    pub(crate) fn atomics<T: Atomic>(&self) -> &[T] {
        let size = std::mem::size_of::<T>();
        debug_assert_eq!(self.len % size, 0);
        debug_assert_eq!(self.map.as_ptr() as usize % std::mem::align_of::<T>(), 0);
        // SAFETY: the mapping is page aligned (so aligned for any atomic),
        // at least `len` bytes long and lives as long as `self`. `T` is an
        // atomic with a plain integer representation (the `Atomic`
        // contract), so any bytes are valid values, and all mutation after
        // this point goes through the atomics: `Region` never hands out
        // `&mut [u8]`, so no non-atomic alias exists.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<T>(), self.len / size) }
    }

    /// Length in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.len
    }
}

/// Bytes of memory this process can still use: `MemAvailable`, capped by
/// the cgroup limit when there is one; `u64::MAX` when neither is known.
#[must_use]
pub fn available_memory() -> u64 {
    fn read_u64(path: &str) -> Option<u64> {
        std::fs::read_to_string(path).ok()?.trim().parse().ok()
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024)
        });
    let cgroup = read_u64("/sys/fs/cgroup/memory.max")
        .map(|max| max.saturating_sub(read_u64("/sys/fs/cgroup/memory.current").unwrap_or(0)));
    match (meminfo, cgroup) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => u64::MAX,
    }
}

/// Free bytes on the file system holding `dir` (for unprivileged users).
///
/// # Errors
/// [`Error::Io`] when the file system cannot be queried.
pub fn free_disk(dir: &Path) -> Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let io_error = |source| Error::Io {
        path: dir.to_path_buf(),
        source,
    };
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|e| io_error(std::io::Error::other(e)))?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string that outlives the call and
    // `stat` points to writable memory of the right type; statvfs only
    // writes into it and we read it only when the call succeeded.
    let stat = unsafe {
        if libc::statvfs(path.as_ptr(), stat.as_mut_ptr()) != 0 {
            return Err(io_error(std::io::Error::last_os_error()));
        }
        stat.assume_init()
    };
    // The field types differ between platforms (u32 on some), hence `as`.
    #[allow(clippy::unnecessary_cast)]
    Ok(stat.f_bavail as u64 * stat.f_frsize as u64)
}

/// Creates, sizes and immediately unlinks a private scratch file in `dir`.
fn scratch_file(dir: &Path, bytes: u64) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let name = format!(
        "retrograde-{}-{}.scratch",
        std::process::id(),
        SCRATCH_SEQUENCE.fetch_add(1, Ordering::Relaxed)
    );
    let path = dir.join(name);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)?;
    // Unlink first: from here on no error path and no signal can leave the
    // file behind, and the open handle keeps its blocks alive.
    std::fs::remove_file(&path)?;
    file.set_len(bytes)?;
    Ok(file)
}
