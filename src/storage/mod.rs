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

use memmap2::{Advice, MmapMut, MmapOptions};

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
        Ok(Region { map, len })
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
