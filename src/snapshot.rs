//! What every checkpoint encoding shares (the one-cop grid kernel's in
//! `solve/checkpoint.rs`, the several-cops kernel's in
//! `solve/multicop/checkpoint.rs`, the band checkpoints of `distributed`):
//! the one [`Sink`] a solve hands its [`Snapshot`]s to, what a sink
//! answers between levels ([`Due`]), and the writer that keeps the file's
//! FNV-1a 64 checksum as it goes, with the common header (magic, the
//! caller's fingerprint).

use std::io::Write;

use crate::hash::{fnv1a as fnv, FNV_START};

/// What a checkpoint sink wants at the end of a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Due {
    /// Keep solving.
    No,
    /// Save a snapshot, then keep solving.
    Save,
    /// Save a snapshot, then stop with
    /// [`Error::Stopped`](crate::Error::Stopped).
    SaveAndStop,
}

/// A snapshot of a solve after a finished level, borrowed from the running
/// engine and handed to its [`Sink`]: it writes itself in its kernel's
/// encoding (the one-cop grid kernel's or the several-cops kernel's),
/// after the common header with the caller's fingerprint.
pub trait Snapshot {
    /// The level finished when it was taken.
    fn level(&self) -> u32;
    /// Writes the snapshot with the caller's `fingerprint` (name, value
    /// pairs that a resume must match: the map, the rules, the engine).
    ///
    /// # Errors
    /// Whatever `out` returns.
    fn write_to(
        &self,
        fingerprint: &[(String, String)],
        out: &mut dyn Write,
    ) -> std::io::Result<()>;

    /// The band of a partitioned solve this snapshot holds (its index
    /// within its process); `None` for a whole solve's snapshot.
    fn band(&self) -> Option<usize> {
        None
    }
}

/// Receives a solve's snapshots between levels
/// ([`SolveOptions::with_checkpoint`](crate::SolveOptions::with_checkpoint)),
/// whichever kernel runs it: the engine asks whether one is due and hands
/// it over; the sink decides where the bytes go.
pub trait Sink: Sync {
    /// Called after every level (not after the last): whether to save.
    fn poll(&self, level: u32) -> Due;
    /// Stores `snapshot`; an error ends the solve with it.
    ///
    /// # Errors
    /// Whatever storing it met.
    fn save(&self, snapshot: &dyn Snapshot) -> crate::error::Result<()>;
}

/// An optional `u32` as a flag byte and the value.
pub(crate) fn opt_u32(v: Option<u32>) -> [u8; 5] {
    let mut b = [0; 5];
    if let Some(v) = v {
        b[0] = 1;
        b[1..].copy_from_slice(&v.to_le_bytes());
    }
    b
}

/// A writer that keeps the FNV-1a 64 checksum of what went through it.
pub(crate) struct Hashing<'a> {
    pub(crate) inner: &'a mut dyn Write,
    pub(crate) sum: u64,
}

impl<'a> Hashing<'a> {
    pub(crate) fn new(inner: &'a mut dyn Write) -> Hashing<'a> {
        Hashing {
            inner,
            sum: FNV_START,
        }
    }

    /// Writes what every kind of checkpoint file starts with: `magic`,
    /// then the fingerprint's (name, value) pairs (each a `u32` length and
    /// its bytes), as the readers read them back.
    pub(crate) fn put_header(
        &mut self,
        magic: &[u8],
        fingerprint: &[(String, String)],
    ) -> std::io::Result<()> {
        self.put(magic)?;
        self.put(&(fingerprint.len() as u32).to_le_bytes())?;
        for (name, value) in fingerprint {
            for s in [name, value] {
                self.put(&(s.len() as u32).to_le_bytes())?;
                self.put(s.as_bytes())?;
            }
        }
        Ok(())
    }

    pub(crate) fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.sum = fnv(self.sum, bytes);
        self.inner.write_all(bytes)
    }

    /// Writes `items`, each already as its little-endian bytes, through a
    /// buffer of 64 KiB (an array of any length, never copied whole).
    pub(crate) fn put_all<const N: usize>(
        &mut self,
        items: impl Iterator<Item = [u8; N]>,
    ) -> std::io::Result<()> {
        let mut buf = Vec::with_capacity(1 << 16);
        for item in items {
            buf.extend_from_slice(&item);
            if buf.len() >= 1 << 16 {
                self.put(&buf)?;
                buf.clear();
            }
        }
        self.put(&buf)
    }

    /// Ends the file: the checksum of everything written, then a flush.
    pub(crate) fn finish(mut self) -> std::io::Result<()> {
        let sum = self.sum;
        self.put(&sum.to_le_bytes())?;
        self.inner.flush()
    }
}
