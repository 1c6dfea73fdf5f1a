//! Checkpoints of a partitioned solve: every band of the cluster snapshots
//! after the same level, and a killed cluster resumes from those snapshots.
//!
//! The cluster's first worker asks its [`BandSink`] before each level's
//! exchange whether a snapshot is due, and says so in the high bit of the
//! frontier-size word it sends every other worker anyway (so the bytes
//! exchanged do not change). After that round every worker saves its band
//! (counters, the next level's frontier, distances, the statistics so far)
//! through its process's sink; when the following round is complete every
//! band has saved, and older snapshots may go ([`BandSink::confirmed`]).
//! So a process killed at any moment leaves, in every process, either the
//! newest snapshot or the one before it complete: on resume the processes
//! exchange the newest level each holds completely in the handshake and all
//! continue from the smallest (see `net.rs`).
//!
//! Encoding (little endian, in the fields of `snapshot.rs`, like the
//! bitboard engine's checkpoints): a magic line, the caller's fingerprint
//! fields, the level to drain next and
//! the bookkeeping, the band's range, counters, frontier words, distances if
//! kept, and an FNV-1a 64 checksum of everything before it.

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicU16, AtomicU64, AtomicU8, Ordering::Relaxed};

use crate::error::Result;
use crate::snapshot::{decode_checked, Encoding, Fields, Hashing};
pub use crate::solve::GridBandCheckpoint;

const MAGIC: &[u8] = b"RETROGRADE-BAND-CHECKPOINT-1\n";

pub use crate::snapshot::BandSink;

/// Where a resuming process finds its bands' snapshots.
pub trait BandSource: Send + Sync {
    /// The newest level at which this process holds a complete snapshot
    /// (every band); the cluster resumes from the smallest of these.
    fn latest(&self) -> u32;
    /// Band `band`'s (index within this process) snapshot of `level`.
    ///
    /// # Errors
    /// When it is missing, damaged or of another solve.
    fn load(&self, band: usize, level: u32) -> Result<BandCheckpoint>;
    /// This process's band snapshot of `level` from the partitioned bit
    /// engine ([`solve_bits`](super::solve_bits): one band a process),
    /// checked (its checksum, and that it is of this solve).
    ///
    /// # Errors
    /// When it is missing, damaged or of another solve.
    fn load_grid(&self, level: u32) -> Result<GridBandCheckpoint>;
    /// The cluster agreed to resume from `level`: this process's newer
    /// snapshots (of bands that got further than some other process) are
    /// of no use now, and left behind they could later be taken for a
    /// level the other processes never saved.
    fn chosen(&self, level: u32);
}

/// A worker's bookkeeping between levels (the same in every snapshot of
/// one level, but for the band's own frontier size and bytes sent).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Progress {
    /// The level to drain next.
    pub(super) level: u32,
    /// This band's states in that level's frontier.
    pub(super) in_level: u64,
    /// States decided in all bands, levels before `level`.
    pub(super) decided_total: u64,
    /// The tracked state's distance, when this band owns it and it is
    /// decided.
    pub(super) tracked: Option<u32>,
    /// Bytes this worker sent to other processes so far.
    pub(super) network_bytes: u64,
    /// Bytes this worker sent in each round so far.
    pub(super) bytes_per_level: Vec<u64>,
    /// States decided in all bands at each level so far.
    pub(super) decided_per_level: Vec<u64>,
}

/// One band's snapshot after a finished level, borrowed from its worker.
pub struct BandSnapshot<'a> {
    pub(super) band: usize,
    pub(super) progress: Progress,
    pub(super) range: Range<u64>,
    pub(super) cells: &'a [AtomicU8],
    pub(super) frontier: &'a [AtomicU64],
    pub(super) dte: Option<&'a [AtomicU16]>,
}

/// A band's snapshot writes itself as every kernel's does; its `level` is
/// the level the resumed solve drains first.
impl Encoding for BandSnapshot<'_> {
    const MAGIC: &'static [u8] = MAGIC;

    fn level(&self) -> u32 {
        self.progress.level
    }

    fn band(&self) -> Option<usize> {
        Some(self.band)
    }

    fn put_fields(&self, out: &mut Hashing<'_>) -> std::io::Result<()> {
        let p = &self.progress;
        out.put_u32(p.level)?;
        out.put_u64(p.in_level)?;
        out.put_u64(p.decided_total)?;
        out.put_opt_u32(p.tracked)?;
        out.put_u64(p.network_bytes)?;
        for list in [&p.bytes_per_level, &p.decided_per_level] {
            out.put_array(list.len(), list.iter().map(|w| w.to_le_bytes()))?;
        }
        out.put_u64(self.range.start)?;
        out.put_u64(self.range.end)?;
        out.put_array(
            self.cells.len(),
            self.cells.iter().map(|c| [c.load(Relaxed)]),
        )?;
        out.put_array(
            self.frontier.len(),
            self.frontier.iter().map(|w| w.load(Relaxed).to_le_bytes()),
        )?;
        out.put_optional_array(
            self.dte
                .map(|t| (t.len(), t.iter().map(|d| d.load(Relaxed).to_le_bytes()))),
        )?;
        Ok(())
    }
}

/// A decoded band snapshot to resume from.
#[derive(Debug)]
pub struct BandCheckpoint {
    pub(super) path: std::path::PathBuf,
    fingerprint: Vec<(String, String)>,
    pub(super) progress: Progress,
    pub(super) range: Range<u64>,
    pub(super) cells: Vec<u8>,
    pub(super) frontier: Vec<u64>,
    pub(super) dte: Option<Vec<u16>>,
}

impl BandCheckpoint {
    /// The fingerprint fields it was written with, in order.
    #[must_use]
    pub fn fingerprint(&self) -> &[(String, String)] {
        &self.fingerprint
    }

    /// The level the resumed solve drains first.
    #[must_use]
    pub fn level(&self) -> u32 {
        self.progress.level
    }

    /// Decodes the bytes of a band checkpoint read from `path` (named in
    /// errors, with the byte offset of what is wrong).
    ///
    /// # Errors
    /// [`Error::Checkpoint`](crate::error::Error::Checkpoint) when the bytes are truncated, damaged
    /// (checksum) or not a band checkpoint.
    pub fn decode(path: &Path, bytes: &[u8]) -> Result<BandCheckpoint> {
        decode_checked(path, bytes, MAGIC, "band checkpoint", |r, fingerprint| {
            let level = r.u32()?;
            let in_level = r.u64()?;
            let decided_total = r.u64()?;
            let tracked = r.opt_u32()?;
            let network_bytes = r.u64()?;
            let bytes_per_level = r.array(u64::from_le_bytes)?;
            let decided_per_level = r.array(u64::from_le_bytes)?;
            let range = r.u64()?..r.u64()?;
            let n = r.len(1)? as usize;
            // The cells are bytes already: copied, not decoded one by one.
            let cells = r.take(n)?.to_vec();
            let frontier = r.array(u64::from_le_bytes)?;
            let dte = r.dte_table()?;
            let states = range.end.checked_sub(range.start).ok_or("bad band range")?;
            if cells.len() as u64 != states
                || frontier.len() as u64 != states.div_ceil(64)
                || dte.as_ref().is_some_and(|d| d.len() as u64 != states)
            {
                return Err("array lengths do not match the band".into());
            }
            Ok(BandCheckpoint {
                path: path.to_path_buf(),
                fingerprint,
                progress: Progress {
                    level,
                    in_level,
                    decided_total,
                    tracked,
                    network_bytes,
                    bytes_per_level,
                    decided_per_level,
                },
                range,
                cells,
                frontier,
                dte,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::Snapshot;

    #[test]
    fn a_band_snapshot_round_trips_and_damage_is_caught() {
        let cells: Vec<AtomicU8> = (0..100u8).map(AtomicU8::new).collect();
        let frontier: Vec<AtomicU64> = [5u64, 1 << 40].map(AtomicU64::new).into();
        let dte: Vec<AtomicU16> = (0..100u16).map(|d| AtomicU16::new(d * 3)).collect();
        let progress = Progress {
            level: 7,
            in_level: 3,
            decided_total: 90,
            tracked: Some(4),
            network_bytes: 1234,
            bytes_per_level: vec![1, 2, 3, 4, 5, 6, 7],
            decided_per_level: vec![9, 8, 7, 6, 5, 4, 3],
        };
        let snapshot = BandSnapshot {
            band: 1,
            progress: progress.clone(),
            range: 200..300,
            cells: &cells,
            frontier: &frontier,
            dte: Some(&dte),
        };
        let fingerprint = vec![("map".to_string(), "m".to_string())];
        let mut bytes = Vec::new();
        snapshot.write_to(&fingerprint, &mut bytes).unwrap();
        let path = Path::new("band.rcp");
        let back = BandCheckpoint::decode(path, &bytes).unwrap();
        assert_eq!(back.fingerprint(), &fingerprint[..]);
        assert_eq!(back.progress, progress);
        assert_eq!(back.range, 200..300);
        assert_eq!(back.cells, (0..100u8).collect::<Vec<_>>());
        assert_eq!(back.frontier, vec![5, 1 << 40]);
        assert_eq!(back.dte, Some((0..100u16).map(|d| d * 3).collect()));
        let mut flipped = bytes.clone();
        flipped[bytes.len() / 2] ^= 4;
        let err = BandCheckpoint::decode(path, &flipped).unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
        let err = BandCheckpoint::decode(path, b"RETROGRADE-CHECKPOINT-1\n").unwrap_err();
        assert!(err.to_string().contains("bad magic"), "{err}");
    }

    /// The bytes of a band snapshot, field by field as written before the
    /// encodings shared `snapshot.rs`'s fields: a file written then must
    /// still be read, and one written now read by the same code.
    #[test]
    fn a_band_snapshot_keeps_its_bytes() {
        let cells: Vec<AtomicU8> = [3u8, 0, 7].map(AtomicU8::new).into();
        let frontier: Vec<AtomicU64> = [1u64 << 63].map(AtomicU64::new).into();
        let dte: Vec<AtomicU16> = [0u16, 9, 300].map(AtomicU16::new).into();
        let mut snapshot = BandSnapshot {
            band: 0,
            progress: Progress {
                level: 2,
                in_level: 1,
                decided_total: 5,
                tracked: None,
                network_bytes: 77,
                bytes_per_level: vec![40, 37],
                decided_per_level: vec![2],
            },
            range: 10..13,
            cells: &cells,
            frontier: &frontier,
            dte: Some(&dte),
        };
        let fingerprint = vec![("map".to_string(), "ab".to_string())];
        let mut expected = MAGIC.to_vec();
        let mut put = |bytes: &[u8]| expected.extend_from_slice(bytes);
        put(&1u32.to_le_bytes());
        put(&3u32.to_le_bytes());
        put(b"map");
        put(&2u32.to_le_bytes());
        put(b"ab");
        put(&2u32.to_le_bytes());
        put(&1u64.to_le_bytes());
        put(&5u64.to_le_bytes());
        put(&[0, 0, 0, 0, 0]);
        put(&77u64.to_le_bytes());
        for list in [&[40u64, 37][..], &[2]] {
            put(&(list.len() as u64).to_le_bytes());
            for w in list {
                put(&w.to_le_bytes());
            }
        }
        put(&10u64.to_le_bytes());
        put(&13u64.to_le_bytes());
        put(&3u64.to_le_bytes());
        put(&[3, 0, 7]);
        put(&1u64.to_le_bytes());
        put(&(1u64 << 63).to_le_bytes());
        put(&[1]);
        put(&3u64.to_le_bytes());
        for d in [0u16, 9, 300] {
            put(&d.to_le_bytes());
        }
        let sum = crate::hash::fnv1a(crate::hash::FNV_START, &expected);
        expected.extend_from_slice(&sum.to_le_bytes());
        let mut bytes = Vec::new();
        snapshot.write_to(&fingerprint, &mut bytes).unwrap();
        assert_eq!(bytes, expected);
        // Without a distance table: the flag byte alone.
        snapshot.dte = None;
        let mut without = Vec::new();
        snapshot.write_to(&fingerprint, &mut without).unwrap();
        let body = expected.len() - 8 - (1 + 8 + 6);
        assert_eq!(without[..body], expected[..body]);
        assert_eq!(without[body..without.len() - 8], [0]);
        let back = BandCheckpoint::decode(Path::new("band.rcp"), &without).unwrap();
        assert_eq!(back.dte, None);
        assert_eq!(back.cells, [3, 0, 7]);
    }
}
