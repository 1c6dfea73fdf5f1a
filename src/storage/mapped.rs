//! Read-only mappings of whole files (tablebases).

use std::fs::File;

use memmap2::Mmap;

/// Maps `file` read-only, whole.
///
/// Readers of the mapping never trust its contents: every block a table
/// reads is checked against its CRC-32 before it is decoded, so a file
/// damaged on disk gives an error rather than a wrong answer.
pub(crate) fn map_file(file: &File) -> std::io::Result<Mmap> {
    // SAFETY: the mapping is read-only and private to this process; the
    // bytes are only ever read as plain `u8` (every bit pattern is valid).
    // Another process truncating the file while it is mapped would make a
    // later read fault (SIGBUS) — the same contract as every mmap reader
    // (ripgrep, shakmaty-syzygy); tables are written once, renamed into
    // place and never modified in place.
    unsafe { Mmap::map(file) }
}
