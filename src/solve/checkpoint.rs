//! Checkpoints of [`Engine::Bitboard`](crate::Engine::Bitboard): the grid
//! kernel's snapshot between two levels, handed to the caller's
//! [`Sink`](crate::Sink), and the [`Checkpoint`] a solve resumes from (of
//! either kernel: the file's magic line tells which).
//!
//! The engine never touches files or signals: between levels it asks the
//! sink whether a snapshot is due ([`Sink::poll`](crate::Sink::poll)) and
//! hands it one ([`Sink::save`](crate::Sink::save)); the sink decides
//! where the bytes go ([`Snapshot::write_to`](crate::Snapshot::write_to)).
//! After a stop request the solve ends with
//! [`Error::Stopped`](crate::Error::Stopped).
//!
//! The grid kernel's encoding (little endian, in the fields of
//! `snapshot.rs`, which writes and reads them for every kernel): the
//! common header (a magic line, the caller's fingerprint fields: name,
//! value pairs compared on resume), the level and the bookkeeping the
//! levels after it need (states decided so far, the tracked state's
//! distance, the deepest decided states), the bitsets, the per-cop-cell
//! changed word ranges, the distance table if kept, and an FNV-1a 64
//! checksum of everything before it. Only this order is the grid
//! kernel's own.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

use crate::error::{Error, Result};

const MAGIC: &[u8] = b"RETROGRADE-CHECKPOINT-1\n";

pub use crate::snapshot::Due;
use crate::snapshot::{check_streamed, read_at, read_dte_at, Encoding, Fields, Hashing};

/// A snapshot of a bitboard solve after a finished level, borrowed from
/// the running engine.
pub(crate) struct GridSnapshot<'a> {
    pub(super) state: State,
    pub(super) words: &'a [u64],
    pub(super) spans: Vec<[u32; 4]>,
    pub(super) dte: Option<&'a [AtomicU16]>,
}

/// The engine's bookkeeping between levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct State {
    pub(super) level: u32,
    pub(super) decided: u64,
    pub(super) tracked: Option<u32>,
    pub(super) deepest: [Option<(u32, u64)>; 2],
    pub(super) cells: u64,
    pub(super) row_words: u64,
}

impl State {
    /// Writes the bookkeeping, in the order every grid checkpoint (and
    /// band checkpoint of the bit engine) holds it.
    pub(super) fn put(&self, out: &mut Hashing<'_>) -> std::io::Result<()> {
        out.put_u32(self.level)?;
        out.put_u64(self.decided)?;
        out.put_opt_u32(self.tracked)?;
        for d in self.deepest {
            out.put_opt_u32(d.map(|d| d.0))?;
            out.put_u64(d.map_or(0, |d| d.1))?;
        }
        out.put_u64(self.cells)?;
        out.put_u64(self.row_words)
    }

    /// Reads the bookkeeping [`State::put`] wrote.
    pub(super) fn get(r: &mut impl Fields) -> std::result::Result<State, String> {
        let (level, decided, tracked) = (r.u32()?, r.u64()?, r.opt_u32()?);
        let mut deepest = [None; 2];
        for d in &mut deepest {
            let dte = r.opt_u32()?;
            let state = r.u64()?;
            *d = dte.map(|dte| (dte, state));
        }
        let (cells, row_words) = (r.u64()?, r.u64()?);
        Ok(State {
            level,
            decided,
            tracked,
            deepest,
            cells,
            row_words,
        })
    }
}

impl Encoding for GridSnapshot<'_> {
    const MAGIC: &'static [u8] = MAGIC;

    fn level(&self) -> u32 {
        self.state.level
    }

    fn put_fields(&self, out: &mut Hashing<'_>) -> std::io::Result<()> {
        self.state.put(out)?;
        out.put_array(self.words.len(), self.words.iter().map(|w| w.to_le_bytes()))?;
        out.put_array(self.spans.len(), self.spans.iter().map(span_bytes))?;
        out.put_optional_array(
            self.dte
                .map(|t| (t.len(), t.iter().map(|d| d.load(Relaxed).to_le_bytes()))),
        )?;
        Ok(())
    }
}

/// A changed word range entry as its 16 little-endian bytes.
pub(super) fn span_bytes(span: &[u32; 4]) -> [u8; 16] {
    let mut b = [0; 16];
    for (to, w) in b.chunks_exact_mut(4).zip(span) {
        to.copy_from_slice(&w.to_le_bytes());
    }
    b
}

/// Reads the changed word ranges [`span_bytes`] wrote, after their count.
pub(super) fn get_spans(r: &mut impl Fields) -> std::result::Result<Vec<[u32; 4]>, String> {
    let count = r.len(16)?;
    let mut spans = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let mut b = [0u8; 16];
        r.fill(&mut b)?;
        let w = |i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().expect("4"));
        spans.push([w(0), w(1), w(2), w(3)]);
    }
    Ok(spans)
}

/// A checked checkpoint of the grid kernel to resume from: its checksum
/// verified, its header and changed word ranges read, its bitsets and
/// distance table still in the file, read by the resume straight into
/// the engine's arrays (which may be scratch files): a resume never holds
/// a second copy of them (it read the file whole, then kept its decoded
/// arrays beside the engine's, twice the solve's memory).
#[derive(Debug)]
pub(crate) struct GridCheckpoint {
    fingerprint: Vec<(String, String)>,
    pub(super) state: State,
    pub(super) spans: Vec<[u32; 4]>,
    /// The bitsets and the distance table.
    pub(super) arrays: InFile,
}

/// A checked checkpoint's arrays, left in its open file (so that a
/// snapshot replacing it meanwhile changes nothing) until the resume
/// reads them straight into the engine's.
#[derive(Debug)]
pub(crate) struct InFile {
    pub(super) path: PathBuf,
    file: File,
    /// Offset and length (in words) of the bitsets or kept records.
    words: (u64, u64),
    /// Offset and length (in entries) of the distances.
    dte: Option<(u64, u64)>,
}

impl InFile {
    /// The arrays of the checkpoint at `path`, opened as `file`: `words`
    /// and `dte` as (offset, count).
    pub(super) fn new(path: &Path, file: File, words: (u64, u64), dte: Option<(u64, u64)>) -> Self {
        let path = path.to_path_buf();
        InFile {
            path,
            file,
            words,
            dte,
        }
    }

    /// The words' length.
    pub(crate) fn word_count(&self) -> u64 {
        self.words.1
    }

    /// Reads the words into `to` (of [`InFile::word_count`] words).
    pub(crate) fn read_words(&self, to: &mut [u64]) -> Result<()> {
        self.read_words_at(0, to)
    }

    /// Reads `to.len()` words from word `first` on (one set of a
    /// several-cops band's).
    pub(crate) fn read_words_at(&self, first: u64, to: &mut [u64]) -> Result<()> {
        let at = self.words.0 + 8 * first;
        read_at(&self.file, &self.path, at, to, u64::from_le_bytes)
    }

    /// The distances' length, if it has them.
    pub(crate) fn dte_len(&self) -> Option<u64> {
        self.dte.map(|d| d.1)
    }

    /// Reads the distances into `to` (of their length), a chunk at a time.
    pub(crate) fn read_dte(&self, to: &[AtomicU16]) -> Result<()> {
        match self.dte {
            Some((at, _)) => read_dte_at(&self.file, &self.path, at, to),
            None => Ok(()),
        }
    }

    /// Reads the distances into `to`, of their length (a several-cops
    /// band's table).
    #[cfg(feature = "distributed")]
    pub(crate) fn read_dte_into(&self, to: &mut [u16]) -> Result<()> {
        match self.dte {
            Some((at, _)) => read_at(&self.file, &self.path, at, to, u16::from_le_bytes),
            None => Ok(()),
        }
    }
}

impl GridCheckpoint {
    /// The fingerprint fields it was written with, in order.
    #[must_use]
    pub(crate) fn fingerprint(&self) -> &[(String, String)] {
        &self.fingerprint
    }

    /// The level finished when it was taken.
    #[must_use]
    pub fn level(&self) -> u32 {
        self.state.level
    }

    /// Opens the checkpoint file at `path`: checks its magic and checksum
    /// (reading it once as a stream) and reads its header and changed
    /// word ranges.
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be read, [`Error::Checkpoint`] (with
    /// the byte offset) when it is truncated, damaged or not a checkpoint.
    pub(crate) fn open(path: &Path) -> Result<GridCheckpoint> {
        let bad_magic = |_: &[u8]| "not a retrograde checkpoint (bad magic)".to_string();
        let (file, header) = check_streamed(path, MAGIC, bad_magic, |r| {
            let fingerprint = r.fingerprint()?;
            let state = State::get(r)?;
            let words = r.skip_array(8)?;
            let spans = get_spans(r)?;
            let dte = r.dte_end()?;
            Ok((fingerprint, state, words, spans, dte))
        })?;
        let (fingerprint, state, words, spans, dte) = header;
        let arrays = InFile::new(path, file, words, dte);
        Ok(GridCheckpoint {
            fingerprint,
            state,
            spans,
            arrays,
        })
    }
}

/// A checkpoint file to resume a solve from
/// ([`SolveOptions::with_resume`](super::SolveOptions::with_resume)), of
/// either kernel of [`Engine::Bitboard`](crate::Engine::Bitboard): the
/// grid kernel's (one cop on a map) or the several-cops kernel's, each
/// checked and then streamed into the engine's arrays (which may be
/// scratch files) at the resume.
#[derive(Debug)]
pub struct Checkpoint {
    pub(crate) saved: Saved,
    path: PathBuf,
}

/// Which kernel wrote a [`Checkpoint`].
#[derive(Debug)]
pub(crate) enum Saved {
    Grid(GridCheckpoint),
    Multicop(super::kcop_checkpoint::MulticopCheckpoint),
}

impl Checkpoint {
    /// Opens the checkpoint at `path` and checks it: its magic line (which
    /// kernel wrote it), its checksum and its header.
    ///
    /// # Errors
    /// [`Error::Io`] when it cannot be read, [`Error::Checkpoint`] (with the
    /// byte offset) when it is truncated, damaged or not a checkpoint.
    pub fn open(path: &Path) -> Result<Checkpoint> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut head = [0u8; 64];
        let mut file = std::fs::File::open(path).map_err(io)?;
        let got = std::io::Read::read(&mut file, &mut head).map_err(io)?;
        if head[..got].starts_with(super::kcop_checkpoint::MAGIC) {
            let saved = Saved::Multicop(super::kcop_checkpoint::MulticopCheckpoint::open(path)?);
            return Ok(Checkpoint {
                saved,
                path: path.to_path_buf(),
            });
        }
        drop(file);
        Ok(Checkpoint {
            saved: Saved::Grid(GridCheckpoint::open(path)?),
            path: path.to_path_buf(),
        })
    }

    /// The fingerprint fields it was written with, in order.
    #[must_use]
    pub fn fingerprint(&self) -> &[(String, String)] {
        match &self.saved {
            Saved::Grid(c) => c.fingerprint(),
            Saved::Multicop(c) => c.fingerprint(),
        }
    }

    /// Refuses a checkpoint of the other kernel before any solve: the
    /// several-cops kernel's when `several_cops` is false, the grid
    /// kernel's when it is true (a solve resumed from it would refuse it
    /// too, after the caller's own checks).
    ///
    /// # Errors
    /// [`Error::Checkpoint`] naming the file and what it holds.
    pub fn check_kernel(&self, several_cops: bool) -> Result<()> {
        if several_cops {
            self.multicop().map(drop)
        } else {
            self.grid().map(drop)
        }
    }

    /// The grid kernel's checkpoint, or the refusal naming the file.
    pub(crate) fn grid(&self) -> Result<&GridCheckpoint> {
        match &self.saved {
            Saved::Grid(c) => Ok(c),
            Saved::Multicop(_) => Err(self.misfit(
                "not a retrograde checkpoint of one cop on a map (a several-cops checkpoint)",
            )),
        }
    }

    /// The several-cops kernel's checkpoint, or the refusal naming the
    /// file.
    pub(crate) fn multicop(&self) -> Result<&super::kcop_checkpoint::MulticopCheckpoint> {
        match &self.saved {
            Saved::Multicop(c) => Ok(c),
            Saved::Grid(_) => {
                Err(self.misfit("not a retrograde k-cop checkpoint (a one-cop checkpoint)"))
            }
        }
    }

    fn misfit(&self, message: &str) -> Error {
        Error::Checkpoint {
            path: self.path.clone(),
            offset: 0,
            message: message.to_string(),
        }
    }

    /// The level finished when it was taken.
    #[must_use]
    pub fn level(&self) -> u32 {
        match &self.saved {
            Saved::Grid(c) => c.level(),
            Saved::Multicop(c) => c.level(),
        }
    }
}
