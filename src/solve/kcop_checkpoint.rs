//! Checkpoints of the several-cops kernel: the state between two levels
//! (the attractor bitsets, the level, the distance table, the start's
//! distance and the placement found), handed to the caller's
//! [`Sink`](crate::Sink) as a [`Snapshot`](crate::Snapshot) on the grid
//! kernel's rules, and the checkpoint a solve resumes from
//! ([`Checkpoint`](crate::Checkpoint) opens either kind).
//!
//! The incremental bookkeeping (which rows changed, the tables of
//! partly-moved tuples) is not saved: the first level after a resume runs
//! in full, which gives the same sets.
//!
//! Encoding (little endian, in the fields of `snapshot.rs`, which writes
//! and reads them for every kernel), after the shared header (magic, the
//! caller's fingerprint): level, the start's distance, the placement (its
//! level, its cells), cells, cops, words a row, the four bitsets (a length
//! and the words; length 0 for a set not kept), the distance table if
//! kept, and an FNV-1a 64 checksum of everything before it. A resume reads the
//! file twice as a stream (the checksum, then the arrays straight into
//! the engine's, which may be scratch files), never whole into memory.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::snapshot::{check_streamed, read_at, Encoding, Fields, Hashing};

pub(crate) const MAGIC: &[u8] = b"RETROGRADE-KCOPS-CHECKPOINT-1\n";

/// A snapshot of a k-cop solve after a finished level, borrowed from the
/// running engine.
pub(crate) struct MulticopSnapshot<'a> {
    pub(super) level: u32,
    pub(super) start_dte: Option<u32>,
    pub(super) placement: Option<(&'a [u32], u32)>,
    pub(super) shape: [u64; 3],
    pub(super) sets: [&'a [u64]; 4],
    pub(super) dte: Option<&'a [u16]>,
}

impl Encoding for MulticopSnapshot<'_> {
    const MAGIC: &'static [u8] = MAGIC;

    fn level(&self) -> u32 {
        self.level
    }

    fn put_fields(&self, out: &mut Hashing<'_>) -> std::io::Result<()> {
        out.put_u32(self.level)?;
        out.put_opt_u32(self.start_dte)?;
        out.put_opt_u32(self.placement.map(|p| p.1))?;
        let cells = self.placement.map_or(&[][..], |p| p.0);
        out.put_u32(cells.len() as u32)?;
        for &c in cells {
            out.put_u32(c)?;
        }
        for v in self.shape {
            out.put_u64(v)?;
        }
        for set in self.sets {
            out.put_array(set.len(), set.iter().map(|w| w.to_le_bytes()))?;
        }
        out.put_optional_array(
            self.dte
                .map(|t| (t.len(), t.iter().map(|d| d.to_le_bytes()))),
        )?;
        Ok(())
    }
}

/// A checked k-cop checkpoint file to resume from: its header read, its
/// checksum verified, its arrays still in the file.
#[derive(Debug)]
pub(crate) struct MulticopCheckpoint {
    path: PathBuf,
    file: File,
    fingerprint: Vec<(String, String)>,
    pub(super) level: u32,
    pub(super) start_dte: Option<u32>,
    pub(super) placement: Option<(Vec<u32>, u32)>,
    pub(super) shape: [u64; 3],
    /// Offset and length (in words) of each bitset.
    sets: [(u64, u64); 4],
    /// Offset and length (in entries) of the distance table.
    dte: Option<(u64, u64)>,
}

impl MulticopCheckpoint {
    /// Opens the checkpoint at `path`: checks its magic and checksum and
    /// reads its header. The open file is kept, so a snapshot that
    /// replaces it meanwhile does not change what is resumed.
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be read, [`Error::Checkpoint`] (with
    /// the byte offset) when it is truncated, damaged or not a k-cop
    /// checkpoint.
    pub(crate) fn open(path: &Path) -> Result<MulticopCheckpoint> {
        let bad_magic = |head: &[u8]| {
            let what = if head.starts_with(b"RETROGRADE-CHECKPOINT") {
                " (a one-cop checkpoint)"
            } else {
                ""
            };
            format!("not a retrograde k-cop checkpoint (bad magic){what}")
        };
        let (file, header) = check_streamed(path, MAGIC, bad_magic, |r| {
            let fingerprint = r.fingerprint()?;
            let level = r.u32()?;
            let start_dte = r.opt_u32()?;
            let placed = r.opt_u32()?;
            let count = r.u32()?;
            if count > 64 {
                return Err(format!("{count} cops in the placement"));
            }
            let cells = (0..count)
                .map(|_| r.u32())
                .collect::<std::result::Result<_, _>>()?;
            let shape = [r.u64()?, r.u64()?, r.u64()?];
            let mut sets = [(0, 0); 4];
            for set in &mut sets {
                *set = r.skip_array(8)?;
            }
            let dte = r.dte_end()?;
            Ok((
                fingerprint,
                level,
                start_dte,
                placed.map(|l| (cells, l)),
                shape,
                sets,
                dte,
            ))
        })?;
        let (fingerprint, level, start_dte, placement, shape, sets, dte) = header;
        Ok(MulticopCheckpoint {
            path: path.to_path_buf(),
            file,
            fingerprint,
            level,
            start_dte,
            placement,
            shape,
            sets,
            dte,
        })
    }

    /// The fingerprint fields it was written with, in order.
    #[must_use]
    pub(crate) fn fingerprint(&self) -> &[(String, String)] {
        &self.fingerprint
    }

    /// The level finished when it was taken.
    #[must_use]
    pub(crate) fn level(&self) -> u32 {
        self.level
    }

    /// An error about this file.
    pub(super) fn misfit(&self, message: String) -> Error {
        Error::Checkpoint {
            path: self.path.clone(),
            offset: 0,
            message,
        }
    }

    /// Reads bitset `i` into `to`, which must have its length.
    pub(super) fn read_set(&self, i: usize, to: &mut [u64]) -> Result<()> {
        let (at, n) = self.sets[i];
        if n != to.len() as u64 {
            return Err(self.misfit(format!("bitset {i} has {n} words, this solve {}", to.len())));
        }
        self.read_into(at, to, u64::from_le_bytes)
    }

    /// Reads the distance table into `to` (of its length), or says that
    /// the setting differs.
    pub(super) fn read_dte(&self, to: Option<&mut [u16]>) -> Result<()> {
        match (self.dte, to) {
            (None, None) => Ok(()),
            (Some((at, n)), Some(to)) if n == to.len() as u64 => {
                self.read_into(at, to, u16::from_le_bytes)
            }
            _ => Err(self
                .misfit("the distance table setting differs (--dte-table / --dump)".to_string())),
        }
    }

    fn read_into<T, const B: usize>(
        &self,
        at: u64,
        to: &mut [T],
        decode: impl Fn([u8; B]) -> T,
    ) -> Result<()> {
        read_at(&self.file, &self.path, at, to, decode)
    }
}
