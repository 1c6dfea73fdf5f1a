//! Band checkpoints of the partitioned bit engine (`partition.rs`): one
//! file per process, holding its band of grid rows between two levels.
//!
//! A process keeps the records (`CW`, `CL`, `TL`, `TW`) of its band's cop
//! cells and, filled by its neighbours, the thief rows of the grid rows
//! just outside it (its halo rows), which the next level reads. So a
//! snapshot holds the records of the band and its halo rows (`kept`),
//! their changed word ranges, the band's distances if kept, and the
//! run's bookkeeping: the level, the states decided so far (and per
//! level, with the bytes sent per step, so that a resumed solve reports
//! what an uninterrupted one does), the tracked state's distance and the
//! deepest decided states, which every process holds alike (the stats
//! travel with every swap).
//!
//! Encoding (little endian, in the fields of `snapshot.rs`): a magic line,
//! the caller's fingerprint, the process and the process count, the
//! band's cop cells and the kept ones, the bookkeeping of the local
//! engine's checkpoints (`solve/checkpoint.rs`), the decided states per
//! level and bytes per step, the kept records, their changed ranges (cop
//! rows, then thief rows), the distances if kept, and an FNV-1a 64
//! checksum. A resume checks the file whole as a stream, then reads the
//! records and distances straight into the engine's arrays.

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

use crate::error::{Error, Result};
use crate::snapshot::{check_streamed, Encoding, Fields, Hashing};
use crate::solve::checkpoint::{InFile, State};

/// The first line of a band checkpoint of the partitioned bit engine.
pub(crate) const MAGIC: &[u8] = b"RETROGRADE-GRID-BAND-CHECKPOINT-1\n";

/// The first line of a band checkpoint of the several-cops partitioned
/// bit engine: the same fields, its band and kept rows ranks of cop
/// multisets, its records the band's `cw`, `cl`, `tl` and `tw` rows one
/// set after the other (`cl` and `tw` absent where the thief wins
/// nowhere), no changed ranges.
pub(crate) const MAGIC_SEVERAL: &[u8] = b"RETROGRADE-KCOPS-BAND-CHECKPOINT-1\n";

/// One process's band after a finished level, borrowed from its run.
pub(crate) struct GridBandSnapshot<'a> {
    pub(super) process: u64,
    pub(super) processes: u64,
    /// The band's cop cells.
    pub(super) cells: Range<u64>,
    /// The cop cells whose records are kept: the band and its halo rows.
    pub(super) kept: Range<u64>,
    pub(super) state: State,
    pub(super) decided: &'a [u64],
    pub(super) bytes: &'a [u64],
    /// The records of `kept`.
    pub(super) words: &'a [u64],
    /// Changed ranges of `kept`: the cop rows' of every cell, then the
    /// thief rows'.
    pub(super) spans: Vec<[u32; 4]>,
    /// The distances of the band's states.
    pub(super) dte: Option<&'a [AtomicU16]>,
}

impl Encoding for GridBandSnapshot<'_> {
    const MAGIC: &'static [u8] = MAGIC;

    fn level(&self) -> u32 {
        self.state.level
    }

    /// A process holds one band of the bit engine: band 0.
    fn band(&self) -> Option<usize> {
        Some(0)
    }

    fn put_fields(&self, out: &mut Hashing<'_>) -> std::io::Result<()> {
        let head = BandHead {
            process: self.process,
            processes: self.processes,
            cells: self.cells.clone(),
            kept: self.kept.clone(),
            state: self.state,
            decided: self.decided,
            bytes: self.bytes,
        };
        let dte = self
            .dte
            .map(|t| (t.len(), t.iter().map(|d| d.load(Relaxed).to_le_bytes())));
        put_band(out, &head, &[self.words], &self.spans, dte)
    }
}

/// What every band snapshot of the bit engine holds before its arrays,
/// one cop's ([`GridBandSnapshot`]) and several cops' (`MAGIC_SEVERAL`,
/// written by `solve/multicop/engine/band_save.rs`): the process and the
/// process count, the band (cop cells, or ranks of cop multisets) and the
/// kept rows, the bookkeeping, and the decided states per level and bytes
/// per step.
pub(in crate::solve) struct BandHead<'a> {
    pub(in crate::solve) process: u64,
    pub(in crate::solve) processes: u64,
    pub(in crate::solve) cells: Range<u64>,
    pub(in crate::solve) kept: Range<u64>,
    pub(in crate::solve) state: State,
    pub(in crate::solve) decided: &'a [u64],
    pub(in crate::solve) bytes: &'a [u64],
}

/// Writes a band snapshot's fields: `head`, the kept records (`words`,
/// its parts one after the other as one array), the changed ranges and
/// the distances.
pub(in crate::solve) fn put_band(
    out: &mut Hashing<'_>,
    head: &BandHead<'_>,
    words: &[&[u64]],
    spans: &[[u32; 4]],
    dte: Option<(usize, impl Iterator<Item = [u8; 2]>)>,
) -> std::io::Result<()> {
    out.put_u64(head.process)?;
    out.put_u64(head.processes)?;
    for r in [&head.cells, &head.kept] {
        out.put_u64(r.start)?;
        out.put_u64(r.end)?;
    }
    head.state.put(out)?;
    for list in [head.decided, head.bytes] {
        out.put_array(list.len(), list.iter().map(|w| w.to_le_bytes()))?;
    }
    let count = words.iter().map(|p| p.len()).sum();
    let all = words.iter().flat_map(|p| p.iter());
    out.put_array(count, all.map(|w| w.to_le_bytes()))?;
    out.put_array(
        spans.len(),
        spans.iter().map(crate::solve::checkpoint::span_bytes),
    )?;
    out.put_optional_array(dte)
}

/// A checked band checkpoint of the partitioned bit engine to resume
/// from: its checksum verified and its header, changed ranges and
/// bookkeeping read; its records and distances still in the file, read
/// by the resume straight into the engine's arrays.
#[derive(Debug)]
pub struct GridBandCheckpoint {
    fingerprint: Vec<(String, String)>,
    pub(in crate::solve) process: u64,
    pub(in crate::solve) processes: u64,
    pub(in crate::solve) cells: Range<u64>,
    pub(in crate::solve) kept: Range<u64>,
    pub(in crate::solve) state: State,
    pub(in crate::solve) decided: Vec<u64>,
    pub(in crate::solve) bytes: Vec<u64>,
    pub(in crate::solve) spans: Vec<[u32; 4]>,
    /// The kept records and the distances.
    pub(in crate::solve) arrays: InFile,
}

impl GridBandCheckpoint {
    /// Opens the band checkpoint at `path`: checks its magic line and its
    /// checksum (reading it once as a stream) and reads its header.
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be read, [`Error::Checkpoint`] (with
    /// the byte offset) when it is truncated, damaged or not a band
    /// checkpoint of the bit engine with one cop (one of the counter
    /// engine's, or of several cops, says so).
    pub fn open(path: &Path) -> Result<GridBandCheckpoint> {
        Self::open_as(path, false)
    }

    /// As [`GridBandCheckpoint::open`], a band checkpoint of the
    /// several-cops bit engine (bands of cop multisets).
    ///
    /// # Errors
    /// As [`GridBandCheckpoint::open`]; one of one cop's says so.
    pub fn open_several(path: &Path) -> Result<GridBandCheckpoint> {
        Self::open_as(path, true)
    }

    fn open_as(path: &Path, several: bool) -> Result<GridBandCheckpoint> {
        let magic = if several { MAGIC_SEVERAL } else { MAGIC };
        let bad_magic = |head: &[u8]| {
            if head.starts_with(b"RETROGRADE-BAND-CHECKPOINT-1\n") {
                "a band checkpoint of the counter engine (a partitioned solve under a \
                 --memory cap its bit bands did not fit under, without --scratch): resume it \
                 with the flags it was made with"
                    .to_string()
            } else if head.starts_with(b"RETROGRADE-KCOPS-BAND-") {
                "a band checkpoint of the bit engine with several cops, and this solve has one"
                    .to_string()
            } else if head.starts_with(b"RETROGRADE-GRID-BAND-") {
                "a band checkpoint of the bit engine with one cop, and this solve has several"
                    .to_string()
            } else {
                "not a band checkpoint of the partitioned bit engine (bad magic)".to_string()
            }
        };
        let (file, header) = check_streamed(path, magic, bad_magic, |r| {
            let fingerprint = r.fingerprint()?;
            let process = r.u64()?;
            let processes = r.u64()?;
            let cells = r.u64()?..r.u64()?;
            let kept = r.u64()?..r.u64()?;
            let state = State::get(r)?;
            let mut lists = [Vec::new(), Vec::new()];
            for list in &mut lists {
                let n = r.len(8)?;
                for _ in 0..n {
                    list.push(r.u64()?);
                }
            }
            let words = r.skip_array(8)?;
            let spans = crate::solve::checkpoint::get_spans(r)?;
            let dte = r.dte_end()?;
            if cells.start < kept.start || cells.end > kept.end || cells.start > cells.end {
                return Err("the band's cells lie outside the kept ones".into());
            }
            // Several cops' records change whole rows: no ranges.
            let per = if several { 0 } else { 2 };
            if spans.len() as u64 != per * (kept.end - kept.start) {
                return Err("the changed ranges do not match the kept cells".into());
            }
            let [decided_per_level, bytes] = lists;
            Ok((
                fingerprint,
                (process, processes, cells, kept),
                state,
                (decided_per_level, bytes),
                words,
                spans,
                dte,
            ))
        })?;
        let (
            fingerprint,
            (process, processes, cells, kept),
            state,
            (decided, bytes),
            words,
            spans,
            dte,
        ) = header;
        Ok(GridBandCheckpoint {
            fingerprint,
            process,
            processes,
            cells,
            kept,
            state,
            decided,
            bytes,
            spans,
            arrays: InFile::new(path, file, words, dte),
        })
    }

    /// The fingerprint fields it was written with, in order.
    #[must_use]
    pub fn fingerprint(&self) -> &[(String, String)] {
        &self.fingerprint
    }

    /// The level finished when it was taken.
    #[must_use]
    pub fn level(&self) -> u32 {
        self.state.level
    }

    /// The file it was read from.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.arrays.path
    }

    /// A refusal naming the file: it does not fit the solve resuming.
    pub(in crate::solve) fn misfit(&self, message: String) -> Error {
        Error::Checkpoint {
            path: self.arrays.path.clone(),
            offset: 0,
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::Snapshot;

    /// A band snapshot written and opened again gives back every field
    /// and array; a flipped byte is caught by the checksum, and a counter
    /// engine's band snapshot is named as such.
    #[test]
    fn a_grid_band_snapshot_round_trips_and_damage_is_caught() {
        let words: Vec<u64> = (0..40u64)
            .map(|w| w.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        let dte: Vec<AtomicU16> = (0..24u16).map(|d| AtomicU16::new(d * 7)).collect();
        let state = State {
            level: 9,
            decided: 1234,
            tracked: Some(5),
            deepest: [Some((8, 77)), None],
            cells: 30,
            row_words: 2,
        };
        let spans: Vec<[u32; 4]> = (0..20u32).map(|i| [i, i + 1, u32::MAX, 0]).collect();
        let snapshot = GridBandSnapshot {
            process: 1,
            processes: 3,
            cells: 12..18,
            kept: 10..20,
            state,
            decided: &[100, 50, 0],
            bytes: &[8, 16, 24],
            words: &words,
            spans: spans.clone(),
            dte: Some(&dte),
        };
        let fingerprint = vec![("map".to_string(), "m".to_string())];
        let mut bytes = Vec::new();
        snapshot.write_to(&fingerprint, &mut bytes).unwrap();
        let path = std::env::temp_dir().join(format!("grid-band-{}.rcp", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let back = GridBandCheckpoint::open(&path).unwrap();
        assert_eq!(back.fingerprint(), &fingerprint[..]);
        assert_eq!((back.process, back.processes), (1, 3));
        assert_eq!((back.cells.clone(), back.kept.clone()), (12..18, 10..20));
        assert_eq!(back.state, state);
        assert_eq!(
            (back.decided.clone(), back.bytes.clone()),
            (vec![100, 50, 0], vec![8, 16, 24])
        );
        assert_eq!(back.spans, spans);
        let mut read = vec![0u64; back.arrays.word_count() as usize];
        back.arrays.read_words(&mut read).unwrap();
        assert_eq!(read, words);
        assert_eq!(back.arrays.dte_len(), Some(24));
        let table: Vec<AtomicU16> = (0..24).map(|_| AtomicU16::new(0)).collect();
        back.arrays.read_dte(&table).unwrap();
        assert!(table
            .iter()
            .zip(&dte)
            .all(|(a, b)| a.load(Relaxed) == b.load(Relaxed)));
        drop(back);

        let mut flipped = bytes.clone();
        flipped[bytes.len() / 2] ^= 4;
        std::fs::write(&path, &flipped).unwrap();
        let err = GridBandCheckpoint::open(&path).unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
        std::fs::write(&path, b"RETROGRADE-BAND-CHECKPOINT-1\nrest").unwrap();
        let err = GridBandCheckpoint::open(&path).unwrap_err();
        assert!(err.to_string().contains("counter engine"), "{err}");
        std::fs::write(&path, b"RETROGRADE-CHECKPOINT-1\nrest of a file").unwrap();
        let err = GridBandCheckpoint::open(&path).unwrap_err();
        assert!(err.to_string().contains("bad magic"), "{err}");
        let _ = std::fs::remove_file(&path);
    }
}
