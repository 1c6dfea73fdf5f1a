//! Checkpoints of [`Engine::Bitboard`](crate::Engine::Bitboard): the grid
//! kernel's snapshot between two levels, handed to the caller's
//! [`Sink`](crate::Sink), and the [`Checkpoint`] a solve resumes from (of
//! either kernel: the file's magic line tells which).
//!
//! The engine never touches files or signals: between levels it asks the
//! sink whether a snapshot is due ([`Sink::poll`](crate::Sink::poll)) and
//! hands it one ([`Sink::save`](crate::Sink::save)); the sink decides
//! where the bytes go ([`Snapshot::write_to`]). After a stop request the
//! solve ends with [`Error::Stopped`](crate::Error::Stopped).
//!
//! The grid kernel's encoding (little endian): a magic line, the caller's fingerprint
//! fields (name, value pairs compared on resume), the level and the
//! bookkeeping the levels after it need (states decided so far, the
//! tracked state's distance, the deepest decided states), the bitsets,
//! the per-cop-cell changed word ranges, the distance table if kept, and
//! an FNV-1a 64 checksum of everything before it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

use crate::error::{Error, Result};

const MAGIC: &[u8] = b"RETROGRADE-CHECKPOINT-1\n";

pub use crate::snapshot::Due;
use crate::snapshot::Snapshot;

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

impl Snapshot for GridSnapshot<'_> {
    fn level(&self) -> u32 {
        self.state.level
    }

    fn write_to(
        &self,
        fingerprint: &[(String, String)],
        out: &mut dyn Write,
    ) -> std::io::Result<()> {
        let mut out = Hashing::new(out);
        out.put_header(MAGIC, fingerprint)?;
        let s = &self.state;
        out.put(&s.level.to_le_bytes())?;
        out.put(&s.decided.to_le_bytes())?;
        out.put(&opt_u32(s.tracked))?;
        for d in s.deepest {
            out.put(&opt_u32(d.map(|d| d.0)))?;
            out.put(&d.map_or(0, |d| d.1).to_le_bytes())?;
        }
        out.put(&s.cells.to_le_bytes())?;
        out.put(&s.row_words.to_le_bytes())?;
        out.put(&(self.words.len() as u64).to_le_bytes())?;
        out.put_all(self.words.iter().map(|w| w.to_le_bytes()))?;
        out.put(&(self.spans.len() as u64).to_le_bytes())?;
        out.put_all(self.spans.iter().flatten().map(|w| w.to_le_bytes()))?;
        match self.dte {
            None => out.put(&[0])?,
            Some(table) => {
                out.put(&[1])?;
                out.put(&(table.len() as u64).to_le_bytes())?;
                out.put_all(table.iter().map(|d| d.load(Relaxed).to_le_bytes()))?;
            }
        }
        out.finish()
    }
}

pub(crate) use crate::hash::{fnv1a as fnv, FNV_START};
pub(crate) use crate::snapshot::{opt_u32, Hashing};

/// A decoded checkpoint of the grid kernel.
#[derive(Debug)]
pub(crate) struct GridCheckpoint {
    fingerprint: Vec<(String, String)>,
    pub(super) state: State,
    pub(super) words: Vec<u64>,
    pub(super) spans: Vec<[u32; 4]>,
    pub(super) dte: Option<Vec<u16>>,
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

    /// Decodes the bytes of a checkpoint file read from `path` (named in
    /// errors, with the byte offset of what is wrong).
    ///
    /// # Errors
    /// [`Error::Checkpoint`] when the bytes are truncated, damaged
    /// (checksum) or not a checkpoint.
    pub(crate) fn decode(path: &Path, bytes: &[u8]) -> Result<GridCheckpoint> {
        decode_checked(path, bytes, MAGIC, "checkpoint", |r, fingerprint| {
            let level = r.u32()?;
            let decided = r.u64()?;
            let tracked = r.opt_u32()?;
            let mut deepest = [None; 2];
            for d in &mut deepest {
                let dte = r.opt_u32()?;
                let state = r.u64()?;
                *d = dte.map(|dte| (dte, state));
            }
            let cells = r.u64()?;
            let row_words = r.u64()?;
            let n = r.len(8)?;
            let words = r
                .take(n * 8)?
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("8")))
                .collect();
            let n = r.len(16)?;
            let spans = r
                .take(n * 16)?
                .chunks_exact(16)
                .map(|c| {
                    let w =
                        |i: usize| u32::from_le_bytes(c[4 * i..4 * i + 4].try_into().expect("4"));
                    [w(0), w(1), w(2), w(3)]
                })
                .collect();
            let dte = match r.take(1)?[0] {
                0 => None,
                1 => {
                    let n = r.len(2)?;
                    Some(
                        r.take(n * 2)?
                            .chunks_exact(2)
                            .map(|c| u16::from_le_bytes([c[0], c[1]]))
                            .collect(),
                    )
                }
                other => return Err(format!("bad distance-table flag {other}")),
            };
            if r.at != r.bytes.len() {
                return Err("unexpected bytes after the distance table".into());
            }
            Ok(GridCheckpoint {
                fingerprint,
                state: State {
                    level,
                    decided,
                    tracked,
                    deepest,
                    cells,
                    row_words,
                },
                words,
                spans,
                dte,
            })
        })
    }
}

/// What every kind of checkpoint file shares: checks `magic` and the
/// trailing checksum of `bytes`, reads the fingerprint, then runs `body`
/// over the rest; an error from `body` becomes [`Error::Checkpoint`] at the
/// offset it reached. `kind` names the file in the bad-magic message.
pub(crate) fn decode_checked<T>(
    path: &Path,
    bytes: &[u8],
    magic: &[u8],
    kind: &str,
    body: impl FnOnce(&mut Reader<'_>, Vec<(String, String)>) -> std::result::Result<T, String>,
) -> Result<T> {
    let bad = |offset: usize, message: String| Error::Checkpoint {
        path: path.to_path_buf(),
        offset: offset as u64,
        message,
    };
    if bytes.len() < magic.len() || &bytes[..magic.len()] != magic {
        return Err(bad(0, format!("not a retrograde {kind} (bad magic)")));
    }
    if bytes.len() < magic.len() + 8 {
        return Err(bad(bytes.len(), "truncated: no checksum".into()));
    }
    let body_len = bytes.len() - 8;
    let stored = u64::from_le_bytes(bytes[body_len..].try_into().expect("8 bytes"));
    if fnv(FNV_START, &bytes[..body_len]) != stored {
        return Err(bad(
            body_len,
            "checksum mismatch: the file is truncated or damaged; delete it or resume from another"
                .into(),
        ));
    }
    let mut r = Reader {
        bytes: &bytes[..body_len],
        at: magic.len(),
    };
    let inner = |r: &mut Reader<'_>| -> std::result::Result<T, String> {
        let fields = r.u32()?;
        let mut fingerprint = Vec::new();
        for _ in 0..fields {
            let name = r.string()?;
            let value = r.string()?;
            fingerprint.push((name, value));
        }
        body(r, fingerprint)
    };
    inner(&mut r).map_err(|message| bad(r.at, message))
}

/// Reads the fields of a checkpoint's body, with the offset for errors.
pub(crate) struct Reader<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) at: usize,
}

impl Reader<'_> {
    pub(crate) fn take(&mut self, n: usize) -> std::result::Result<&[u8], String> {
        if self.bytes.len() - self.at < n {
            return Err(format!("truncated: {n} more bytes expected"));
        }
        self.at += n;
        Ok(&self.bytes[self.at - n..self.at])
    }

    pub(crate) fn u32(&mut self) -> std::result::Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4")))
    }

    pub(crate) fn u64(&mut self) -> std::result::Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }

    /// A length of items of `size` bytes that must fit in what is left.
    pub(crate) fn len(&mut self, size: usize) -> std::result::Result<usize, String> {
        let n = self.u64()?;
        let left = (self.bytes.len() - self.at) as u64;
        if n.checked_mul(size as u64).is_none_or(|b| b > left) {
            return Err(format!("length {n} exceeds the file"));
        }
        Ok(n as usize)
    }

    pub(crate) fn opt_u32(&mut self) -> std::result::Result<Option<u32>, String> {
        let flag = self.take(1)?[0];
        let v = self.u32()?;
        match flag {
            0 => Ok(None),
            1 => Ok(Some(v)),
            other => Err(format!("bad flag {other}")),
        }
    }

    pub(crate) fn string(&mut self) -> std::result::Result<String, String> {
        let n = self.u32()? as usize;
        let b = self.take(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| "fingerprint field is not UTF-8".to_string())
    }
}

/// A checkpoint file to resume a solve from
/// ([`SolveOptions::with_resume`](super::SolveOptions::with_resume)), of
/// either kernel of [`Engine::Bitboard`](crate::Engine::Bitboard): the
/// grid kernel's (one cop on a map), read whole and checked, or the
/// several-cops kernel's, checked and then streamed into the engine's
/// arrays (which may be scratch files) at the resume.
#[derive(Debug)]
pub struct Checkpoint {
    pub(crate) saved: Saved,
    path: PathBuf,
}

/// Which kernel wrote a [`Checkpoint`].
#[derive(Debug)]
pub(crate) enum Saved {
    Grid(GridCheckpoint),
    Multicop(crate::solve::multicop::MulticopCheckpoint),
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
        if head[..got].starts_with(crate::solve::multicop::MAGIC) {
            let saved = Saved::Multicop(crate::solve::multicop::MulticopCheckpoint::open(path)?);
            return Ok(Checkpoint {
                saved,
                path: path.to_path_buf(),
            });
        }
        let bytes = std::fs::read(path).map_err(io)?;
        Ok(Checkpoint {
            saved: Saved::Grid(GridCheckpoint::decode(path, &bytes)?),
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
    pub(crate) fn multicop(&self) -> Result<&crate::solve::multicop::MulticopCheckpoint> {
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
