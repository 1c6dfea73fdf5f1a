//! Opening a table: the header and trailer checks, and block reading and
//! decoding with two caches: the last block of each kind per thread (no
//! lock), then decoded blocks shared by all threads up to a byte budget.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use std::os::unix::fs::{FileExt, OpenOptionsExt};

use super::format::{
    block_crc, check_tiling, decode_body, decode_dte, decode_dte_v2, decode_entry, decode_trailer,
    dte_bytes_bound, BlockEntry, HeaderBody, Trailer, END_MAGIC, INDEX_ENTRY_BYTES, MAGIC,
    OLDEST_VERSION, PLACED_VERSION, TRAILER_BYTES, VERSION,
};
use crate::error::{Error, Result};

/// Which array a block belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Values = 0,
    Distances = 1,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Values => "values",
            Kind::Distances => "distances",
        }
    }
}

/// The raw table: the open file, decoded header and trailer, block index.
///
/// Blocks are read with `pread` into a buffer, not mapped: a table that
/// another process overwrites or truncates while it is open (a server
/// keeps tables open for days) then gives a short read or a checksum
/// mismatch, an error naming the file, where a mapping would kill the
/// process with SIGBUS. The copy costs little next to decompressing the
/// block, and decoded blocks are cached.
pub(crate) struct Raw {
    pub(crate) path: PathBuf,
    file: File,
    /// Bytes of the file when opened.
    len: u64,
    /// The file's format version (`OLDEST_VERSION ..= VERSION`).
    pub(crate) version: u32,
    pub(crate) body: HeaderBody,
    pub(crate) trailer: Trailer,
    pub(crate) header_bytes: u64,
    /// The first state this file holds (0 unless it is a shard).
    pub(crate) first: u64,
    values: Vec<BlockEntry>,
    distances: Vec<BlockEntry>,
    /// Distinguishes tables in the per-thread block cache.
    id: u64,
    /// Decoded blocks shared by every thread probing this table.
    shared: SharedBlocks,
}

/// A decoded block: packed 2-bit values, or distances (kept as u16s, so a
/// decoded distance block is not copied again into bytes).
pub(crate) enum Block {
    Values(Vec<u8>),
    Distances(Vec<u16>),
}

impl Block {
    /// Bytes it holds (the shared cache's budget counts these).
    fn bytes(&self) -> usize {
        match self {
            Block::Values(v) => v.len(),
            Block::Distances(d) => 2 * d.len(),
        }
    }
}

/// A decoded block in the per-thread cache.
struct Cached {
    table: u64,
    block: u64,
    data: Arc<Block>,
}

/// Bytes of decoded blocks a table keeps for all threads. The moves of one
/// position touch blocks of several cop rows (about 3 of each kind), which
/// the one-block-per-thread cache alone decodes again and again; a server
/// answering many positions also finds earlier positions' blocks here.
const SHARED_CACHE_BYTES: usize = 256 << 20;
/// Independent locks, so probing threads rarely wait for each other.
const SHARDS: usize = 16;

/// Decoded blocks by (kind, block), in shards by block number, each shard
/// dropping its oldest blocks past its share of the budget.
struct SharedBlocks {
    shards: Vec<Mutex<Shard>>,
}

#[derive(Default)]
struct Shard {
    blocks: HashMap<(u8, u64), Arc<Block>>,
    order: VecDeque<(u8, u64)>,
    bytes: usize,
}

impl SharedBlocks {
    fn new() -> SharedBlocks {
        SharedBlocks {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
        }
    }

    fn shard(&self, key: (u8, u64)) -> std::sync::MutexGuard<'_, Shard> {
        // A panic while holding the lock leaves the shard consistent (every
        // update completes before the guard drops), so a poisoned lock is
        // still usable.
        self.shards[(key.1 as usize ^ key.0 as usize) % SHARDS]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, key: (u8, u64)) -> Option<Arc<Block>> {
        self.shard(key).blocks.get(&key).cloned()
    }

    fn insert(&self, key: (u8, u64), data: Arc<Block>) {
        let budget = SHARED_CACHE_BYTES / SHARDS;
        let mut shard = self.shard(key);
        if shard.blocks.contains_key(&key) {
            return;
        }
        while shard.bytes + data.bytes() > budget {
            let Some(old) = shard.order.pop_front() else {
                break;
            };
            if let Some(dropped) = shard.blocks.remove(&old) {
                shard.bytes -= dropped.bytes();
            }
        }
        shard.bytes += data.bytes();
        shard.order.push_back(key);
        shard.blocks.insert(key, data);
    }
}

thread_local! {
    /// The last decoded block of each kind, per thread: sequential probes
    /// (a row of a heatmap, the moves of one position) decode once.
    static CACHE: RefCell<[Option<Cached>; 2]> = const { RefCell::new([None, None]) };
    /// A zstd decompression context per thread: creating one per block was
    /// 5% of a cold probe's time.
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { RefCell::new(None) };
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl Raw {
    pub(crate) fn error(&self, location: impl Into<String>, message: impl Into<String>) -> Error {
        table_error(&self.path, location, message)
    }

    /// Opens `path` and reads and checks its header, trailer and index.
    pub(crate) fn open(path: &Path) -> Result<Raw> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = open_regular(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let err = |location: &str, message: String| table_error(path, location, message);
        if len < 16 {
            return Err(err(
                "offset 0",
                format!("truncated: {len} bytes, a table header needs at least 16"),
            ));
        }
        let read = |offset: u64, n: u64| -> Result<Vec<u8>> {
            // Fallible: a length from a damaged or forged file must give an
            // error naming it, not abort the process (a server's included).
            let mut buf = Vec::new();
            usize::try_from(n)
                .ok()
                .and_then(|n| buf.try_reserve_exact(n).ok().map(|()| n))
                .map(|n| buf.resize(n, 0))
                .ok_or_else(|| {
                    err(
                        &format!("offset {offset}"),
                        format!("cannot allocate {n} bytes to read (is the file damaged?)"),
                    )
                })?;
            file.read_exact_at(&mut buf, offset).map_err(|e| {
                err(
                    &format!("offset {offset}"),
                    format!("cannot read {n} bytes: {e} (did the file change while open?)"),
                )
            })?;
            Ok(buf)
        };
        let start = read(0, 16)?;
        if &start[..8] != MAGIC {
            return Err(err(
                "offset 0",
                "wrong magic: not a retrograde tablebase (.rtb) file".into(),
            ));
        }
        let version = u32::from_le_bytes(start[8..12].try_into().unwrap());
        if !(OLDEST_VERSION..=VERSION).contains(&version) {
            return Err(err(
                "offset 8",
                format!("format version {version}, this build reads versions {OLDEST_VERSION} to {VERSION}: re-create the table with this build's solve --save"),
            ));
        }
        let body_len = u32::from_le_bytes(start[12..16].try_into().unwrap()) as u64;
        let header_end = 16 + body_len + 4;
        if header_end > len {
            return Err(err(
                "header",
                format!("truncated: the header needs {header_end} bytes, the file has {len}"),
            ));
        }
        let bytes = read(0, header_end)?;
        let crc_at = (16 + body_len) as usize;
        let stored = u32::from_le_bytes(bytes[crc_at..crc_at + 4].try_into().unwrap());
        if crc32fast::hash(&bytes[..crc_at]) != stored {
            return Err(err(
                "header",
                format!("checksum mismatch over bytes 0..{crc_at}: the file is damaged; re-create it with solve --save"),
            ));
        }
        let body = decode_body(&bytes[16..crc_at], 16, version).map_err(|m| err("header", m))?;
        let min = header_end + TRAILER_BYTES as u64;
        let tail = if len >= min {
            read(len - TRAILER_BYTES as u64, TRAILER_BYTES as u64)?
        } else {
            Vec::new()
        };
        if len < min || &tail[TRAILER_BYTES - 8..] != END_MAGIC {
            return Err(err(
                &format!("offset {}", len.saturating_sub(8)),
                format!("truncated or damaged: a complete table ends with the trailer magic (file is {len} bytes)"),
            ));
        }
        let trailer_at = len - TRAILER_BYTES as u64;
        let trailer_bytes = &tail[..];
        let trailer = decode_trailer(trailer_bytes);
        let index_end = trailer_at;
        if trailer.index_offset < header_end || trailer.index_offset > index_end {
            return Err(err(
                &format!("trailer (offset {trailer_at})"),
                format!(
                    "index offset {} lies outside the file",
                    trailer.index_offset
                ),
            ));
        }
        // The trailer's block counts must be the header's (checksummed)
        // before the index is read: a forged trailer could otherwise make
        // that read allocate the whole file (a sparse one of terabytes).
        let (first, states) = match body.shard {
            Some(sh) => (sh.first_state, sh.end_state - sh.first_state),
            None => (0, body.state_count()),
        };
        let value_blocks = states.div_ceil(body.value_block_states);
        let dte_blocks = if body.has_dte {
            states.div_ceil(body.dte_block_states)
        } else {
            0
        };
        let where_trailer = format!("trailer (offset {trailer_at})");
        let index_len = trailer_at - trailer.index_offset;
        if trailer.states != states
            || trailer.value_blocks != value_blocks
            || trailer.dte_blocks != dte_blocks
            || Some(index_len)
                != (value_blocks.checked_add(dte_blocks))
                    .and_then(|b| b.checked_mul(INDEX_ENTRY_BYTES as u64))
            || [trailer.counts.loss, trailer.counts.draw]
                .iter()
                .try_fold(trailer.counts.win, |sum, &c| sum.checked_add(c))
                != Some(states)
        {
            return Err(err(
                &where_trailer,
                format!("does not match the header: {states} states in {value_blocks} values and {dte_blocks} distance blocks expected"),
            ));
        }
        let index_bytes = read(trailer.index_offset, index_len)?;
        let index = &index_bytes[..];
        let crc_stored = u32::from_le_bytes(
            trailer_bytes[TRAILER_BYTES - 12..TRAILER_BYTES - 8]
                .try_into()
                .unwrap(),
        );
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(index);
        hasher.update(&trailer_bytes[..TRAILER_BYTES - 12]);
        if hasher.finalize() != crc_stored {
            return Err(err(
                &format!("index and trailer (offset {})", trailer.index_offset),
                "checksum mismatch: the file is damaged; re-create it with solve --save".into(),
            ));
        }
        let entries: Vec<BlockEntry> = index
            .chunks_exact(INDEX_ENTRY_BYTES)
            .map(decode_entry)
            .collect();
        for (k, e) in entries.iter().enumerate() {
            let end = e.offset.checked_add(u64::from(e.len));
            if e.offset < header_end || end.is_none_or(|end| end > trailer.index_offset) {
                return Err(err(
                    &format!("index entry {k}"),
                    format!(
                        "block at offset {} of {} bytes lies outside the block area",
                        e.offset, e.len
                    ),
                ));
            }
        }
        let (values, distances) = entries.split_at(value_blocks as usize);
        check_tiling(values, distances, header_end, trailer.index_offset)
            .map_err(|(k, message)| err(&format!("index entry {k}"), message))?;
        Ok(Raw {
            path: path.to_path_buf(),
            version,
            body,
            trailer,
            header_bytes: header_end,
            first,
            values: values.to_vec(),
            distances: distances.to_vec(),
            file,
            len,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            shared: SharedBlocks::new(),
        })
    }

    /// Bytes of the file.
    pub(crate) fn file_bytes(&self) -> u64 {
        self.len
    }

    /// Compressed bytes of the blocks of `kind`.
    pub(crate) fn block_bytes(&self, kind: Kind) -> u64 {
        self.entries(kind).iter().map(|e| u64::from(e.len)).sum()
    }

    pub(crate) fn blocks(&self, kind: Kind) -> u64 {
        self.entries(kind).len() as u64
    }

    fn entries(&self, kind: Kind) -> &[BlockEntry] {
        match kind {
            Kind::Values => &self.values,
            Kind::Distances => &self.distances,
        }
    }

    fn block_states(&self, kind: Kind) -> u64 {
        match kind {
            Kind::Values => self.body.value_block_states,
            Kind::Distances => self.body.dte_block_states,
        }
    }

    /// Expected decoded length of block `b` of `kind`.
    fn raw_len(&self, kind: Kind, b: u64) -> usize {
        let per = self.block_states(kind);
        let states = (self.trailer.states - b * per).min(per);
        match kind {
            Kind::Values => states.div_ceil(4) as usize,
            Kind::Distances => 2 * states as usize,
        }
    }

    /// Checks and decodes values block `b`: packed 2-bit values.
    pub(crate) fn decode_values(&self, b: u64) -> Result<Vec<u8>> {
        match self.decode(Kind::Values, b)? {
            Block::Values(v) => Ok(v),
            Block::Distances(_) => unreachable!("a values block decodes to values"),
        }
    }

    /// Checks and decodes distance block `b`.
    pub(crate) fn decode_distances(&self, b: u64) -> Result<Vec<u16>> {
        match self.decode(Kind::Distances, b)? {
            Block::Distances(d) => Ok(d),
            Block::Values(_) => unreachable!("a distance block decodes to distances"),
        }
    }

    /// Checks and decodes block `b` of `kind`.
    fn decode(&self, kind: Kind, b: u64) -> Result<Block> {
        let e = self.entries(kind)[b as usize];
        let location = format!("block {b} ({}, offset {})", kind.name(), e.offset);
        let mut buf = vec![0u8; e.len as usize];
        self.file.read_exact_at(&mut buf, e.offset).map_err(|err| {
            self.error(
                &location,
                format!(
                    "cannot read {} bytes: {err} (the file changed while open? open it again)",
                    e.len
                ),
            )
        })?;
        let bytes = &buf[..];
        if block_crc(self.version >= PLACED_VERSION, kind as u8, b, bytes) != e.crc {
            return Err(self.error(
                location,
                "checksum mismatch: the file is damaged; re-create it with solve --save",
            ));
        }
        let expected = self.raw_len(kind, b);
        let decompress = |capacity: usize| {
            DECOMPRESSOR
                .with(|d| {
                    let mut d = d.borrow_mut();
                    if d.is_none() {
                        *d = Some(zstd::bulk::Decompressor::new()?);
                    }
                    d.as_mut().expect("just made").decompress(bytes, capacity)
                })
                .map_err(|e| self.error(&location, format!("cannot decompress: {e}")))
        };
        let row = self.body.dte_row();
        if kind == Kind::Distances && self.version >= 3 {
            // Runs and residual bytes: their length is the frame's to say,
            // within what a block of these states can hold.
            let states = expected / 2;
            let bound = dte_bytes_bound(states);
            let size = match zstd::zstd_safe::get_frame_content_size(bytes) {
                Ok(Some(size)) if size <= bound as u64 => size as usize,
                Ok(Some(size)) => {
                    return Err(self.error(
                        location,
                        format!("holds {size} bytes, a block of {states} states at most {bound}"),
                    ))
                }
                _ => {
                    return Err(self.error(
                        location,
                        "cannot decompress: no zstd frame with its content size",
                    ))
                }
            };
            let data = decompress(size)?;
            let d = decode_dte(&data, states, row)
                .map_err(|m| self.error(&location, format!("damaged distances: {m}")))?;
            return Ok(Block::Distances(d));
        }
        let data = decompress(expected)?;
        if data.len() != expected {
            return Err(self.error(
                location,
                format!("decodes to {} bytes, expected {expected}", data.len()),
            ));
        }
        Ok(match kind {
            Kind::Values => Block::Values(data),
            // Version 2: residual planes back to distances.
            Kind::Distances => Block::Distances(decode_dte_v2(&data, row)),
        })
    }

    /// Calls `f` with the decoded block `b` of `kind`: from this thread's
    /// cache when it was the last one it used, else from the shared cache,
    /// else decoded (and kept in both).
    pub(crate) fn with_block<T>(
        &self,
        kind: Kind,
        b: u64,
        f: impl FnOnce(&Block) -> T,
    ) -> Result<T> {
        CACHE.with(|cache| {
            let mut cache = cache.borrow_mut();
            let slot = &mut cache[kind as usize];
            match slot {
                Some(c) if c.table == self.id && c.block == b => {}
                _ => {
                    let key = (kind as u8, b);
                    let data = match self.shared.get(key) {
                        Some(data) => data,
                        None => {
                            let data = Arc::new(self.decode(kind, b)?);
                            self.shared.insert(key, Arc::clone(&data));
                            data
                        }
                    };
                    *slot = Some(Cached {
                        table: self.id,
                        block: b,
                        data,
                    });
                }
            }
            Ok(f(&slot.as_ref().expect("just filled").data))
        })
    }

    /// Raw 2-bit value of state `s` (0 draw, 1 win, 2 loss), a state this
    /// file holds.
    pub(crate) fn value(&self, s: u64) -> Result<u8> {
        let per = self.body.value_block_states;
        let local = s - self.first;
        let (b, i) = (local / per, (local % per) as usize);
        let v = self.with_block(Kind::Values, b, |d| match d {
            Block::Values(d) => (d[i / 4] >> (2 * (i % 4))) & 3,
            Block::Distances(_) => unreachable!("values blocks hold values"),
        })?;
        if v == 3 {
            return Err(self.error(
                format!("block {b} (values)"),
                format!("state {s} has the invalid value code 3: the file is damaged"),
            ));
        }
        Ok(v)
    }

    /// Stored distance of state `s` (the table must have distances).
    pub(crate) fn distance(&self, s: u64) -> Result<u16> {
        let per = self.body.dte_block_states;
        let local = s - self.first;
        let (b, i) = (local / per, (local % per) as usize);
        self.with_block(Kind::Distances, b, |d| match d {
            Block::Distances(d) => d[i],
            Block::Values(_) => unreachable!("distance blocks hold distances"),
        })
    }
}

/// Opens `path` for reading if it is a regular file. The open does not
/// block (`O_NONBLOCK`: a FIFO at a table's name would wait for a writer
/// forever), and the type is checked on the open file, not on the name, so
/// the answer holds for the file actually read.
fn open_regular(path: &Path) -> std::io::Result<File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        return Ok(file);
    }
    let what = if kind.is_dir() {
        "a directory"
    } else {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            "a FIFO (named pipe)"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "a device"
        }
    };
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("is {what}, not a table file"),
    ))
}

pub(crate) fn table_error(
    path: &Path,
    location: impl Into<String>,
    message: impl Into<String>,
) -> Error {
    Error::Table {
        path: path.to_path_buf(),
        location: location.into(),
        message: message.into(),
    }
}
