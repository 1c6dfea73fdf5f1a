//! What every checkpoint encoding shares (the one-cop grid kernel's in
//! `solve/checkpoint.rs`, the several-cops kernel's in
//! `solve/kcop_checkpoint.rs`, the band checkpoints of `distributed`):
//! the one [`Sink`] a solve hands its [`Snapshot`]s to, what a sink
//! answers between levels ([`Due`]), and the fields every encoding is made
//! of, written and read here once: the common header (magic, the caller's
//! fingerprint), little-endian integers, optional `u32`s, arrays (a `u64`
//! count and the items), the optional distance table that ends every file
//! (a flag byte, then an array) and the FNV-1a 64 checksum after it. The
//! writer [`Hashing`] keeps the checksum as it goes; the readers share
//! [`Fields`], over bytes in memory (`Reader`, inside `decode_checked`: the
//! band checkpoints of `distributed`) or a file streamed ([`Stream`], after
//! [`check_streamed`]: the one-cop and several-cops kernels', whose arrays
//! a resume reads straight into the engine's, never whole into memory). So each kernel's codec keeps only the order of its
//! own fields.

use std::fs::File;
use std::io::{BufReader, Write};
use std::path::Path;

use crate::error::{Error, Result};
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

/// A kernel's snapshot encoding: its magic line and its own fields, in
/// order. Every encoding is a [`Snapshot`] whose file is the common header
/// (the magic, the caller's fingerprint), these fields, and the checksum;
/// so a kernel writes only what is its own.
pub(crate) trait Encoding {
    /// The first line of the kernel's files, which tells them apart.
    const MAGIC: &'static [u8];
    /// The level the snapshot was taken after ([`Snapshot::level`]).
    fn level(&self) -> u32;
    /// The band it holds ([`Snapshot::band`]).
    fn band(&self) -> Option<usize> {
        None
    }
    /// Writes the kernel's fields, between the header and the checksum.
    ///
    /// # Errors
    /// Whatever `out` returns.
    fn put_fields(&self, out: &mut Hashing<'_>) -> std::io::Result<()>;
}

impl<T: Encoding> Snapshot for T {
    fn level(&self) -> u32 {
        Encoding::level(self)
    }

    fn write_to(
        &self,
        fingerprint: &[(String, String)],
        out: &mut dyn Write,
    ) -> std::io::Result<()> {
        let mut out = Hashing::start(out, T::MAGIC, fingerprint)?;
        self.put_fields(&mut out)?;
        out.finish()
    }

    fn band(&self) -> Option<usize> {
        Encoding::band(self)
    }
}

/// Receives the bands' snapshots of a partitioned solve: the one
/// [`Sink`](crate::Sink), asked on the cluster's first worker (process 0)
/// before level `level`'s exchange whether every band snapshots after it
/// (anything but [`Due::No`](crate::Due::No) means yes), and handed each
/// band's [`BandSnapshot`](crate::distributed::BandSnapshot) (whose [`Snapshot::band`](crate::Snapshot::band) names the band) by
/// that band's worker thread; a failed save ends the solve (the worker
/// panics, which ends the process so that its peers see it go). Beyond the
/// one sink: older snapshots may go once the whole cluster has saved.
#[cfg(feature = "distributed")]
pub trait BandSink: Sink + Send {
    /// Every band of the cluster has saved its snapshot of `level`: band
    /// `band` (index within this process) may drop older ones.
    fn confirmed(&self, band: usize, level: u32);
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

/// What a reader says of a file whose checksum does not match.
pub(crate) const DAMAGED: &str =
    "checksum mismatch: the file is truncated or damaged; delete it or resume from another";

/// A writer that keeps the FNV-1a 64 checksum of what went through it:
/// every encoding's fields, in the order its reader reads them back.
pub(crate) struct Hashing<'a> {
    inner: &'a mut dyn Write,
    sum: u64,
}

impl<'a> Hashing<'a> {
    /// Starts a file with what every kind of checkpoint file starts with:
    /// `magic`, then the fingerprint's (name, value) pairs (a `u32` count,
    /// then each string as a `u32` length and its bytes).
    pub(crate) fn start(
        inner: &'a mut dyn Write,
        magic: &[u8],
        fingerprint: &[(String, String)],
    ) -> std::io::Result<Hashing<'a>> {
        let mut out = Hashing {
            inner,
            sum: FNV_START,
        };
        out.put(magic)?;
        out.put_u32(fingerprint.len() as u32)?;
        for (name, value) in fingerprint {
            for s in [name, value] {
                out.put_u32(s.len() as u32)?;
                out.put(s.as_bytes())?;
            }
        }
        Ok(out)
    }

    pub(crate) fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.sum = fnv(self.sum, bytes);
        self.inner.write_all(bytes)
    }

    pub(crate) fn put_u32(&mut self, v: u32) -> std::io::Result<()> {
        self.put(&v.to_le_bytes())
    }

    pub(crate) fn put_u64(&mut self, v: u64) -> std::io::Result<()> {
        self.put(&v.to_le_bytes())
    }

    /// An optional `u32` as a flag byte (0 or 1) and the value (0 when
    /// absent): five bytes either way.
    pub(crate) fn put_opt_u32(&mut self, v: Option<u32>) -> std::io::Result<()> {
        let mut b = [0; 5];
        if let Some(v) = v {
            b[0] = 1;
            b[1..].copy_from_slice(&v.to_le_bytes());
        }
        self.put(&b)
    }

    /// An array: its `count` of items as a `u64`, then `items`, each
    /// already as its little-endian bytes, through a buffer of 64 KiB (an
    /// array of any length, never copied whole).
    pub(crate) fn put_array<const N: usize>(
        &mut self,
        count: usize,
        items: impl Iterator<Item = [u8; N]>,
    ) -> std::io::Result<()> {
        self.put_u64(count as u64)?;
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

    /// An optional array (the distance table, when the solve keeps one):
    /// a flag byte, 0 or 1, then the array if there is one.
    pub(crate) fn put_optional_array<const N: usize>(
        &mut self,
        array: Option<(usize, impl Iterator<Item = [u8; N]>)>,
    ) -> std::io::Result<()> {
        match array {
            None => self.put(&[0]),
            Some((count, items)) => {
                self.put(&[1])?;
                self.put_array(count, items)
            }
        }
    }

    /// Ends the file: the checksum of everything written, then a flush.
    pub(crate) fn finish(mut self) -> std::io::Result<()> {
        let sum = self.sum;
        self.put(&sum.to_le_bytes())?;
        self.inner.flush()
    }
}

/// Reads the fields [`Hashing`] writes, from the bytes between the magic
/// line and the checksum; an error is a message, which the caller turns
/// into [`Error::Checkpoint`] at the offset reached.
pub(crate) trait Fields {
    /// Fills `to` with the next bytes.
    ///
    /// # Errors
    /// When fewer are left (or the file cannot be read).
    fn fill(&mut self, to: &mut [u8]) -> std::result::Result<(), String>;

    /// How many bytes are left before the checksum.
    fn left(&self) -> u64;

    fn u8(&mut self) -> std::result::Result<u8, String> {
        let mut b = [0; 1];
        self.fill(&mut b)?;
        Ok(b[0])
    }

    fn u32(&mut self) -> std::result::Result<u32, String> {
        let mut b = [0; 4];
        self.fill(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn u64(&mut self) -> std::result::Result<u64, String> {
        let mut b = [0; 8];
        self.fill(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// An array's count of items of `size` bytes, which must fit in what
    /// is left.
    fn len(&mut self, size: usize) -> std::result::Result<u64, String> {
        let n = self.u64()?;
        if n.checked_mul(size as u64).is_none_or(|b| b > self.left()) {
            return Err(format!("length {n} exceeds the file"));
        }
        Ok(n)
    }

    fn opt_u32(&mut self) -> std::result::Result<Option<u32>, String> {
        let flag = self.u8()?;
        let v = self.u32()?;
        match flag {
            0 => Ok(None),
            1 => Ok(Some(v)),
            other => Err(format!("bad flag {other}")),
        }
    }

    /// The flag byte of the optional distance table: whether it follows.
    fn dte_flag(&mut self) -> std::result::Result<bool, String> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(format!("bad distance-table flag {other}")),
        }
    }

    fn string(&mut self) -> std::result::Result<String, String> {
        let n = self.u32()?;
        if u64::from(n) > self.left() {
            return Err(format!("string of {n} bytes exceeds the file"));
        }
        let mut b = vec![0; n as usize];
        self.fill(&mut b)?;
        String::from_utf8(b).map_err(|_| "fingerprint field is not UTF-8".to_string())
    }

    /// The caller's fingerprint, right after the magic line.
    fn fingerprint(&mut self) -> std::result::Result<Vec<(String, String)>, String> {
        let fields = self.u32()?;
        let mut fingerprint = Vec::new();
        for _ in 0..fields {
            let name = self.string()?;
            let value = self.string()?;
            fingerprint.push((name, value));
        }
        Ok(fingerprint)
    }

    /// Nothing may follow the distance table, the last field of every
    /// encoding.
    fn end(&self) -> std::result::Result<(), String> {
        if self.left() != 0 {
            return Err("unexpected bytes after the distance table".into());
        }
        Ok(())
    }
}

/// Reads a checkpoint's fields from its bytes in memory, with the offset
/// for errors.
#[cfg(feature = "distributed")]
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

#[cfg(feature = "distributed")]
impl Fields for Reader<'_> {
    fn fill(&mut self, to: &mut [u8]) -> std::result::Result<(), String> {
        to.copy_from_slice(self.take(to.len())?);
        Ok(())
    }

    fn left(&self) -> u64 {
        (self.bytes.len() - self.at) as u64
    }
}

#[cfg(feature = "distributed")]
impl Reader<'_> {
    /// The next `n` bytes, borrowed.
    pub(crate) fn take(&mut self, n: usize) -> std::result::Result<&[u8], String> {
        if self.bytes.len() - self.at < n {
            return Err(format!("truncated: {n} more bytes expected"));
        }
        self.at += n;
        Ok(&self.bytes[self.at - n..self.at])
    }

    /// An array of items of `B` bytes each, decoded by `decode`.
    pub(crate) fn array<T, const B: usize>(
        &mut self,
        decode: impl Fn([u8; B]) -> T,
    ) -> std::result::Result<Vec<T>, String> {
        let n = self.len(B)? as usize;
        Ok(self
            .take(n * B)?
            .chunks_exact(B)
            .map(|c| decode(c.try_into().expect("B bytes")))
            .collect())
    }

    /// The optional distance table that ends every encoding, and the check
    /// that nothing follows it.
    pub(crate) fn dte_table(&mut self) -> std::result::Result<Option<Vec<u16>>, String> {
        let dte = if self.dte_flag()? {
            Some(self.array(u16::from_le_bytes)?)
        } else {
            None
        };
        self.end()?;
        Ok(dte)
    }
}

/// What every kind of checkpoint file read whole shares: checks `magic`
/// and the trailing checksum of `bytes`, reads the fingerprint, then runs
/// `body` over the rest; an error from `body` becomes
/// [`Error::Checkpoint`] at the offset it reached. `kind` names the file in
/// the bad-magic message.
#[cfg(feature = "distributed")]
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
        return Err(bad(body_len, DAMAGED.into()));
    }
    let mut r = Reader {
        bytes: &bytes[..body_len],
        at: magic.len(),
    };
    let inner = |r: &mut Reader<'_>| {
        let fingerprint = r.fingerprint()?;
        body(r, fingerprint)
    };
    inner(&mut r).map_err(|message| bad(r.at, message))
}

/// Opens the checkpoint file at `path` to be read as a stream, never whole
/// into memory: checks its `magic` line (`bad_magic` says, from the bytes
/// found there, what the file is instead) and its trailing checksum,
/// reading it once, then reads its header after the magic with `header`.
/// The open file and the header; the file is kept open, so a snapshot that
/// replaces it meanwhile does not change what is resumed.
///
/// # Errors
/// [`Error::Io`] when it cannot be read, [`Error::Checkpoint`] (with the
/// byte offset) when the magic or the checksum is wrong or `header` fails.
pub(crate) fn check_streamed<T>(
    path: &Path,
    magic: &[u8],
    bad_magic: impl FnOnce(&[u8]) -> String,
    header: impl FnOnce(&mut Stream<BufReader<&mut File>>) -> std::result::Result<T, String>,
) -> Result<(File, T)> {
    use std::io::{Read, Seek, SeekFrom};
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let bad = |offset: u64, message: String| Error::Checkpoint {
        path: path.to_path_buf(),
        offset,
        message,
    };
    let mut file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut head = vec![0u8; magic.len().min(len as usize)];
    file.read_exact(&mut head).map_err(io)?;
    if head != magic {
        return Err(bad(0, bad_magic(&head)));
    }
    let body = len.checked_sub(8).filter(|&b| b >= magic.len() as u64);
    let Some(body) = body else {
        return Err(bad(len, "truncated: no checksum".into()));
    };
    file.rewind().map_err(io)?;
    let mut sum = FNV_START;
    let mut reader = BufReader::with_capacity(1 << 20, &mut file);
    let mut left = body;
    let mut buf = vec![0u8; 1 << 20];
    while left > 0 {
        let n = left.min(buf.len() as u64) as usize;
        reader.read_exact(&mut buf[..n]).map_err(io)?;
        sum = fnv(sum, &buf[..n]);
        left -= n as u64;
    }
    let mut stored = [0u8; 8];
    reader.read_exact(&mut stored).map_err(io)?;
    drop(reader);
    if sum != u64::from_le_bytes(stored) {
        return Err(bad(body, DAMAGED.into()));
    }
    file.seek(SeekFrom::Start(magic.len() as u64)).map_err(io)?;
    let mut r = Stream {
        inner: BufReader::new(&mut file),
        at: magic.len() as u64,
        end: body,
    };
    let header = header(&mut r);
    let at = r.at;
    drop(r);
    Ok((file, header.map_err(|message| bad(at, message))?))
}

/// Reads `to.len()` items of `B` bytes each from `file` (at `path`, named
/// in errors) at byte `at`, decoded by `decode`, a chunk at a time.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read there.
pub(crate) fn read_at<T, const B: usize>(
    file: &std::fs::File,
    path: &Path,
    at: u64,
    to: &mut [T],
    decode: impl Fn([u8; B]) -> T,
) -> Result<()> {
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0u8; B * 8192];
    for (i, chunk) in to.chunks_mut(8192).enumerate() {
        let bytes = &mut buf[..chunk.len() * B];
        let offset = at + (i * 8192 * B) as u64;
        file.read_exact_at(bytes, offset)
            .map_err(|source| Error::Io {
                path: path.to_path_buf(),
                source,
            })?;
        for (t, b) in chunk.iter_mut().zip(bytes.chunks_exact(B)) {
            *t = decode(b.try_into().expect("B bytes"));
        }
    }
    Ok(())
}

/// Reads `to.len()` little-endian distances at `at` of `file` into `to`,
/// a chunk at a time (the distance table of a grid checkpoint or of a
/// band snapshot, streamed into the engine's array).
pub(crate) fn read_dte_at(
    file: &std::fs::File,
    path: &Path,
    at: u64,
    to: &[std::sync::atomic::AtomicU16],
) -> Result<()> {
    const CHUNK: usize = 1 << 16;
    let mut buf = vec![0u16; CHUNK.min(to.len())];
    for (i, chunk) in to.chunks(CHUNK).enumerate() {
        let part = &mut buf[..chunk.len()];
        let offset = at + (i * CHUNK * 2) as u64;
        read_at(file, path, offset, part, u16::from_le_bytes)?;
        for (t, &v) in chunk.iter().zip(part.iter()) {
            t.store(v, std::sync::atomic::Ordering::Relaxed);
        }
    }
    Ok(())
}

/// Reads a checkpoint's fields from a stream (after [`check_streamed`]),
/// with the offset for errors; its arrays are skipped, to be read later
/// straight into the engine's ([`read_at`]).
pub(crate) struct Stream<R> {
    /// The file, positioned at `at`.
    pub(crate) inner: R,
    /// The offset reached.
    pub(crate) at: u64,
    /// Where the checksum starts.
    pub(crate) end: u64,
}

impl<R: std::io::Read + std::io::Seek> Fields for Stream<R> {
    fn fill(&mut self, to: &mut [u8]) -> std::result::Result<(), String> {
        if self.left() < to.len() as u64 {
            return Err(format!("truncated: {} more bytes expected", to.len()));
        }
        self.inner.read_exact(to).map_err(|e| e.to_string())?;
        self.at += to.len() as u64;
        Ok(())
    }

    fn left(&self) -> u64 {
        self.end - self.at
    }
}

impl<R: std::io::Read + std::io::Seek> Stream<R> {
    /// Skips `n` bytes (an array read later).
    pub(crate) fn skip(&mut self, n: u64) -> std::result::Result<(), String> {
        let n = i64::try_from(n).map_err(|_| "length overflows".to_string())?;
        self.inner.seek_relative(n).map_err(|e| e.to_string())?;
        self.at += n as u64;
        Ok(())
    }

    /// An array of items of `size` bytes, skipped: its offset and count.
    pub(crate) fn skip_array(&mut self, size: usize) -> std::result::Result<(u64, u64), String> {
        let n = self.len(size)?;
        let at = self.at;
        self.skip(n * size as u64)?;
        Ok((at, n))
    }

    /// The optional distance table that ends every checkpoint, skipped (its
    /// offset and count), and the check that nothing follows it.
    pub(crate) fn dte_end(&mut self) -> std::result::Result<Option<(u64, u64)>, String> {
        let dte = if self.dte_flag()? {
            Some(self.skip_array(2)?)
        } else {
            None
        };
        self.end()?;
        Ok(dte)
    }
}
