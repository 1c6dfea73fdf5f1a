//! What the machine offers the storage: memory left to this process
//! (`MemAvailable` under the cgroup limit), free disk space, the page
//! size, scratch files (created unlinked), and `/proc/self/pagemap` to
//! tell which pages of a private mapping were copied.

use std::fs::{File, OpenOptions};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use memmap2::MmapOptions;

use crate::error::{Error, Result};

/// Numbers the scratch files of this process.
static SCRATCH_SEQUENCE: AtomicUsize = AtomicUsize::new(0);

/// Bytes of memory this process can still use: `MemAvailable`, capped by
/// the cgroup limit and by the address-space limit when there are ones;
/// `u64::MAX` when none is known.
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
    let memory = match (meminfo, cgroup) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => u64::MAX,
    };
    memory.min(address_space_left())
}

/// Bytes of address space this process may still map under its own limit
/// (`ulimit -v`, `RLIMIT_AS`, as shared machines and batch schedulers
/// set): the limit less what is mapped already (`VmSize`). A plan within
/// `MemAvailable` but past this limit failed its allocation and aborted
/// instead of being refused (issue 33, item 14). `u64::MAX` when there is
/// no limit.
pub(crate) fn address_space_left() -> u64 {
    let mut limit = std::mem::MaybeUninit::<libc::rlimit>::uninit();
    // SAFETY: `limit` points to writable memory of the right type;
    // getrlimit only writes into it, and it is read only on success.
    let limit = unsafe {
        if libc::getrlimit(libc::RLIMIT_AS, limit.as_mut_ptr()) != 0 {
            return u64::MAX;
        }
        limit.assume_init()
    };
    if limit.rlim_cur == libc::RLIM_INFINITY {
        return u64::MAX;
    }
    let mapped = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("VmSize:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024)
        })
        .unwrap_or(0);
    // `rlim_t` is u64 on Linux; `as` keeps other widths compiling.
    #[allow(clippy::unnecessary_cast)]
    (limit.rlim_cur as u64).saturating_sub(mapped)
}

/// Refuses `needed` bytes of scratch files under `dir` (`what`) when its
/// file system has less free.
///
/// # Errors
/// [`Error::TooLarge`] naming both, [`Error::Io`] as [`free_disk`].
pub(crate) fn disk_room(dir: &Path, needed: u64, what: String) -> Result<()> {
    let available = free_disk(dir)?;
    if needed > available {
        let hint = "free disk space or point --scratch at a larger disk".into();
        return Err(Error::TooLarge {
            what,
            needed,
            available,
            hint,
        });
    }
    Ok(())
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
pub(super) fn scratch_file(dir: &Path, bytes: u64) -> std::io::Result<File> {
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
    reserve(&file, bytes)?;
    Ok(file)
}

/// Allocates the blocks of the first `bytes` of `file` now (`fallocate`),
/// so that a disk too full for them is an error here, before any page is
/// touched: the mapped pages of a sparse file that can no longer get a
/// block raise SIGBUS when written (or, on a tmpfs, read), which killed an
/// out-of-core solve whose disk filled up. A file system without
/// `fallocate` keeps the file sparse, as before.
fn reserve(file: &File, bytes: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let Ok(len) = libc::off_t::try_from(bytes) else {
        return Err(std::io::Error::from_raw_os_error(libc::EFBIG));
    };
    loop {
        // SAFETY: a plain system call on a descriptor this function's
        // caller owns; it touches no memory of this process.
        if unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, len) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EOPNOTSUPP | libc::ENOSYS) => return Ok(()),
            _ => return Err(e),
        }
    }
}

/// The system's page size in bytes.
pub(super) fn page_size() -> u64 {
    static PAGE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *PAGE.get_or_init(|| {
        // SAFETY: sysconf has no preconditions.
        let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        u64::try_from(size).ok().filter(|&s| s > 0).unwrap_or(4096)
    })
}

/// Pagemap entry bit: the page is in memory.
pub(super) const PAGEMAP_PRESENT: u64 = 1 << 63;

/// Whether a pagemap entry is a page this process modified in a private
/// file mapping: present and anonymous (a copy-on-write copy), or swapped
/// out (only private copies can be).
pub(super) fn is_private_copy(entry: u64) -> bool {
    const SWAPPED: u64 = 1 << 62;
    const FILE_OR_SHARED: u64 = 1 << 61;
    entry & SWAPPED != 0 || (entry & PAGEMAP_PRESENT != 0 && entry & FILE_OR_SHARED == 0)
}

/// Reads into `buffer` the pagemap entries (8 bytes each) of
/// `buffer.len() / 8` pages from virtual page number `first`, and returns
/// them.
pub(super) fn read_pagemap<'a>(
    pagemap: &File,
    first: u64,
    buffer: &'a mut [u8],
) -> std::io::Result<impl Iterator<Item = u64> + 'a> {
    use std::os::unix::fs::FileExt;
    pagemap.read_exact_at(buffer, first * 8)?;
    Ok(buffer
        .chunks_exact(8)
        .map(|b| u64::from_ne_bytes(b.try_into().expect("8 bytes"))))
}

/// `/proc/self/pagemap`, when it is readable and tells private copies from
/// file pages: checked once on a private file mapping of our own, with one
/// page written and one only read. `None` makes write-back write whole
/// ranges, which is correct, only slower.
pub(super) fn pagemap() -> Option<&'static File> {
    static PAGEMAP: std::sync::OnceLock<Option<File>> = std::sync::OnceLock::new();
    PAGEMAP
        .get_or_init(|| {
            let pagemap = File::open("/proc/self/pagemap").ok()?;
            let page = page_size();
            let dir = std::env::temp_dir();
            let file = scratch_file(&dir, 2 * page).ok()?;
            // SAFETY: a private mapping of an unlinked file only this
            // process holds; it is dropped at the end of this block.
            let mut map =
                unsafe { MmapOptions::new().len(2 * page as usize).map_copy(&file) }.ok()?;
            let written = map.as_ptr() as u64 / page;
            map[0] = 1;
            std::hint::black_box(map[page as usize]);
            let mut buffer = [0u8; 16];
            let mut entries = read_pagemap(&pagemap, written, &mut buffer).ok()?;
            let (written, read) = (entries.next()?, entries.next()?);
            (is_private_copy(written) && !is_private_copy(read) && read & PAGEMAP_PRESENT != 0)
                .then_some(pagemap)
        })
        .as_ref()
}
