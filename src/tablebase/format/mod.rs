//! The `.rtb` file layout: header, blocks, block index and trailer. Only
//! this module knows the byte layout (the distance blocks' inside in
//! [`dte`]); the writer and the reader go through it.
//!
//! ```text
//! offset 0   magic "RTGTBL\r\n" (8 bytes; the \r\n catches text-mode mangling)
//!        8   format version, u32
//!       12   header body length B, u32
//!       16   header body (B bytes, below)
//!   16 + B   CRC-32 of bytes 0 .. 16 + B
//!            blocks: zstd frames, each independently decodable, in state
//!            order (a values block, then the distance blocks of the same
//!            states)
//!   index    per values block, then per distance block: offset u64,
//!            compressed length u32, CRC-32 of the compressed bytes u32
//!   trailer  index offset u64, values blocks u64, distance blocks u64,
//!            states u64, win u64, loss u64, draw u64, levels u32,
//!            largest stored distance u32, CRC-32 of index + trailer up to
//!            here u32, end magic "RTGTEND\n"
//! ```
//!
//! Header body: rows u32, columns u32, rules u8 (bits: cop diagonal, thief
//! diagonal, cop passes, thief passes, corner cutting, thief first), flags
//! u8 (bit 0: distances included; bit 1: a shard; bit 2: a several-cops
//! game section), cop start row u32 and
//! column u32 (`u32::MAX` for none), thief start likewise, states per
//! values block u64, states per distance block u64, engine name (a u8
//! length, then the bytes), the free-cell bitmap (rows * columns bits,
//! row-major, LSB first), the exit bitmap (one bit per free cell id);
//! then the game section of several cops (below), then, for a shard only:
//! shard index u32, shard count u32, first state u64, end state u64, first
//! cop row u32, end cop row u32 (both 0 in a several-cops shard).
//!
//! A shard (one per process of a partitioned solve) holds the states
//! `first .. end`: the cop cells of rows `first row .. end row` (one cop),
//! or the cop multisets of ranks `first / 2n .. end / 2n` (several cops on
//! `n` cells, from version 6 on). Its blocks, index and trailer (states,
//! counts) are those of that range alone, block 0 starting at state
//! `first`; levels are the whole solve's. A several-cops shard orders its
//! states in thief tiles as a whole table does, over its own multisets:
//! the state `first + i` of its band is at the place a table of those
//! multisets alone would give `i`.
//!
//! Placed block checksums (version 6 on): a block's CRC-32 covers its
//! kind (u8: 0 values, 1 distances) and its number in the file (u64)
//! before its bytes, so a block copied over another, or two blocks
//! swapped with their index entries, fail their checks instead of
//! answering for the wrong states. Older tables are still read, their
//! CRCs over the bytes alone.
//!
//! Counts live in the trailer because the writer streams: they are known
//! only after the last block. All integers are little-endian.
//!
//! Values: 2 bits per state (0 draw, 1 win, 2 loss, for the player to move;
//! state `i` of a block at byte `i / 4`, bits `2 * (i % 4)`). Distances: a
//! u16 `d` per state (0 for draws; distances of 65535 or more are 65535),
//! stored as residuals against a prediction, coded as [`dte`] describes.
//! Version 2 tables (same header, values and prediction) are still read;
//! version 1 (plain u16 distances in blocks of 2^17 states) is refused.
//!
//! Versions 4 and 5 are the several-cops game (`KCops` (`games/kcops.rs`)):
//! the same layout, with flag bit 2 set and a game section after the exit
//! bitmap ([`kcops`] describes it). Version 5 stores the states in thief
//! tiles: the thief cells in tiles of `T` consecutive cells (the section
//! says `T`), and within a tile by cop multiset rank, thief cell, turn
//! ([`kcops`] gives the index); a distance row is one multiset's `2 * T`
//! states of a tile. Version 4 (still read) is one tile of every cell:
//! states `(rank(cops) * n + thief) * 2 + turn`.
//!
//! Version 6 (written for every game) is version 3 for one cop and version
//! 5 for several cops (flag bit 2 tells them apart) with placed block
//! checksums: the layout is the same byte for byte but for the version and
//! the checksums.

use bitvec::vec::BitVec;

use crate::games::cops::Rules;
use crate::solve::Counts;

mod dte;
pub(crate) mod kcops;
#[cfg(test)]
mod tests;
mod tiling;

pub(crate) use dte::{decode_dte, decode_dte_v2, dte_bytes_bound, DteEncoder};
pub(crate) use kcops::KSection;
pub(crate) use tiling::check_tiling;

/// First bytes of every table.
pub(crate) const MAGIC: &[u8; 8] = b"RTGTBL\r\n";
/// Last bytes of every complete table.
pub(crate) const END_MAGIC: &[u8; 8] = b"RTGTEND\n";
/// The format version this build writes for every table, the newest it
/// reads: placed block checksums ([`block_crc`]).
pub(crate) const VERSION: u32 = 6;
/// The first version with placed block checksums.
pub(crate) const PLACED_VERSION: u32 = 6;
/// The first several-cops version: version 4 stores states by cop
/// multiset (one thief tile of every cell); still read. Versions 4 and 5
/// are several-cops tables only; from version 6 flag bit 2 says.
pub(crate) const KCOPS_FIRST_VERSION: u32 = 4;
/// The oldest version this build still reads: version 2 differs only in
/// how a distance block lays out its residuals ([`decode_dte_v2`]).
pub(crate) const OLDEST_VERSION: u32 = 2;
/// Bytes of the fixed trailer, end magic included.
pub(crate) const TRAILER_BYTES: usize = 8 * 7 + 4 + 4 + 4 + 8;
/// Bytes of one index entry.
pub(crate) const INDEX_ENTRY_BYTES: usize = 8 + 4 + 4;
/// States per values block: 64 KiB of packed values.
pub(crate) const VALUE_BLOCK_STATES: u64 = 1 << 18;
/// States per distance block: 512 KiB of u16 distances, as many states as
/// a values block. Measured on a 150 x 150 map with 20% walls, blocks of
/// 2^17 states took 0.68 bits per state, 2^18 0.44: a block holds about
/// 2^18 / R cop rows and only its first row lacks a prediction.
pub(crate) const DTE_BLOCK_STATES: u64 = 1 << 18;
/// zstd level: level 3 measured 0.04 bits per state for values (design.md
/// section 10) at a few hundred MB/s.
pub(crate) const ZSTD_LEVEL: i32 = 3;
/// zstd level of the distance blocks: on a 150 x 150 map level 1 took
/// 0.42 bits per state against level 3's 0.41, in two thirds of the time
/// (docs/measurements.md).
pub(crate) const DTE_ZSTD_LEVEL: i32 = 1;

/// The decoded header body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HeaderBody {
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) rules: Rules,
    pub(crate) has_dte: bool,
    pub(crate) cop: Option<(usize, usize)>,
    pub(crate) thief: Option<(usize, usize)>,
    pub(crate) value_block_states: u64,
    pub(crate) dte_block_states: u64,
    pub(crate) engine: String,
    pub(crate) free: BitVec,
    pub(crate) exits: BitVec,
    /// Which part of a partitioned solve this file holds (`None`: all).
    pub(crate) shard: Option<ShardInfo>,
    /// The several-cops game section (versions 4 and 5, and 6 with flag
    /// bit 2).
    pub(crate) kcops: Option<KSection>,
}

impl HeaderBody {
    /// The states the whole table holds: `2 * C^2` for one cop,
    /// `2 * n * C(n + k - 1, k)` for `k` cops on `n` cells (checked to fit
    /// when the header was decoded).
    pub(crate) fn state_count(&self) -> u64 {
        let cells = self.exits.len() as u64;
        match &self.kcops {
            Some(k) => kcops::state_count(cells, k.cops).unwrap_or(u64::MAX),
            None => 2 * cells * cells,
        }
    }

    /// The distance codec's row (states between a state and its
    /// prediction, [`dte`]): one cop cell's `2 * cells` states in a
    /// one-cop table, one cop multiset's states of a thief tile in a
    /// several-cops table.
    pub(crate) fn dte_row(&self) -> usize {
        let cells = self.exits.len();
        match &self.kcops {
            Some(k) => 2 * (k.thief_tile as usize).min(cells),
            None => 2 * cells,
        }
    }
}

/// The shard fields of a header: which shard of how many, and its band.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ShardInfo {
    pub(crate) index: u32,
    pub(crate) count: u32,
    pub(crate) first_state: u64,
    pub(crate) end_state: u64,
    pub(crate) first_row: u32,
    pub(crate) end_row: u32,
}

/// The decoded trailer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Trailer {
    pub(crate) index_offset: u64,
    pub(crate) value_blocks: u64,
    pub(crate) dte_blocks: u64,
    pub(crate) states: u64,
    pub(crate) counts: Counts,
    pub(crate) levels: u32,
    pub(crate) max_dte: u32,
}

/// The CRC-32 of block `number` of `kind` (0 values, 1 distances) holding
/// `bytes`: over the kind and number first when the table's checksums are
/// `placed` (version 6 on), over the bytes alone in older tables.
pub(crate) fn block_crc(placed: bool, kind: u8, number: u64, bytes: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    if placed {
        hasher.update(&[kind]);
        hasher.update(&number.to_le_bytes());
    }
    hasher.update(bytes);
    hasher.finalize()
}

/// One entry of the block index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockEntry {
    pub(crate) offset: u64,
    pub(crate) len: u32,
    pub(crate) crc: u32,
}

pub(crate) fn rules_bits(r: Rules) -> u8 {
    u8::from(r.cop_diagonal)
        | u8::from(r.thief_diagonal) << 1
        | u8::from(r.cop_passes) << 2
        | u8::from(r.thief_passes) << 3
        | u8::from(r.corner_cutting) << 4
        | u8::from(r.thief_first) << 5
}

fn rules_from_bits(b: u8) -> Option<Rules> {
    (b < 64).then_some(Rules {
        cop_diagonal: b & 1 != 0,
        thief_diagonal: b & 2 != 0,
        cop_passes: b & 4 != 0,
        thief_passes: b & 8 != 0,
        corner_cutting: b & 16 != 0,
        thief_first: b & 32 != 0,
    })
}

fn push_bits(out: &mut Vec<u8>, bits: &BitVec) {
    let mut bytes = vec![0u8; bits.len().div_ceil(8)];
    for i in bits.iter_ones() {
        bytes[i / 8] |= 1 << (i % 8);
    }
    out.extend_from_slice(&bytes);
}

/// The whole header: magic, version, length, body and checksum.
pub(crate) fn encode_header(h: &HeaderBody) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&(h.rows as u32).to_le_bytes());
    body.extend_from_slice(&(h.cols as u32).to_le_bytes());
    body.push(rules_bits(h.rules));
    body.push(
        u8::from(h.has_dte) | u8::from(h.shard.is_some()) << 1 | u8::from(h.kcops.is_some()) << 2,
    );
    for start in [h.cop, h.thief] {
        let (r, c) = start.map_or((u32::MAX, u32::MAX), |(r, c)| (r as u32, c as u32));
        body.extend_from_slice(&r.to_le_bytes());
        body.extend_from_slice(&c.to_le_bytes());
    }
    body.extend_from_slice(&h.value_block_states.to_le_bytes());
    body.extend_from_slice(&h.dte_block_states.to_le_bytes());
    let engine = &h.engine.as_bytes()[..h.engine.len().min(255)];
    body.push(engine.len() as u8);
    body.extend_from_slice(engine);
    push_bits(&mut body, &h.free);
    push_bits(&mut body, &h.exits);
    if let Some(k) = &h.kcops {
        k.encode(&mut body);
    }
    if let Some(sh) = h.shard {
        body.extend_from_slice(&sh.index.to_le_bytes());
        body.extend_from_slice(&sh.count.to_le_bytes());
        body.extend_from_slice(&sh.first_state.to_le_bytes());
        body.extend_from_slice(&sh.end_state.to_le_bytes());
        body.extend_from_slice(&sh.first_row.to_le_bytes());
        body.extend_from_slice(&sh.end_row.to_le_bytes());
    }
    let mut out = Vec::with_capacity(body.len() + 20);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// A little-endian cursor that reports where it ran out.
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(bytes: &'a [u8], pos: usize) -> Cursor<'a> {
        Cursor { bytes, pos }
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        match end {
            Some(end) => {
                let s = &self.bytes[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => Err(format!(
                "needs {n} bytes at offset {}, the data ends at {}",
                self.pos,
                self.bytes.len()
            )),
        }
    }

    pub(crate) fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    pub(crate) fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
}

fn read_bits(c: &mut Cursor<'_>, len: usize) -> Result<BitVec, String> {
    let bytes = c.take(len.div_ceil(8))?;
    let mut bits = BitVec::repeat(false, len);
    for i in 0..len {
        if bytes[i / 8] >> (i % 8) & 1 != 0 {
            bits.set(i, true);
        }
    }
    Ok(bits)
}

/// Decodes a header body of format `version` that passed its checksum.
/// Errors say what is inconsistent (a body with a valid checksum but
/// nonsense inside was written by something else).
pub(crate) fn decode_body(body: &[u8], base: usize, version: u32) -> Result<HeaderBody, String> {
    let mut c = Cursor::new(body, 0);
    let wrap = |e: String| format!("header body (from offset {base}): {e}");
    let rows = c.u32().map_err(wrap)? as usize;
    let cols = c.u32().map_err(wrap)? as usize;
    if rows == 0 || cols == 0 || rows.saturating_mul(cols) >= u32::MAX as usize {
        return Err(format!("header: a {rows} x {cols} grid is not a map"));
    }
    let rules = rules_from_bits(c.u8().map_err(wrap)?).ok_or("header: unknown rule bits")?;
    let flags = c.u8().map_err(wrap)?;
    // Versions 4 and 5 are exactly the tables with a game section (and no
    // shards); from version 6 flag bit 2 says.
    let several = if version >= PLACED_VERSION {
        flags & 4 != 0
    } else {
        version >= KCOPS_FIRST_VERSION
    };
    // Several-cops shards (flag bits 1 and 2) are version 6 on.
    let known = match (several, version >= PLACED_VERSION) {
        (false, _) => 3,
        (true, true) => 7,
        (true, false) => 5,
    };
    if flags & !known != 0 || several != (flags & 4 != 0) {
        return Err(format!(
            "header: unknown flags {flags:#x} for format version {version}"
        ));
    }
    let mut start = || -> Result<Option<(usize, usize)>, String> {
        let r = c.u32().map_err(wrap)?;
        let col = c.u32().map_err(wrap)?;
        Ok((r != u32::MAX).then_some((r as usize, col as usize)))
    };
    let cop = start()?;
    let thief = start()?;
    let value_block_states = c.u64().map_err(wrap)?;
    let dte_block_states = c.u64().map_err(wrap)?;
    if value_block_states == 0
        || value_block_states % 4 != 0
        || value_block_states > 1 << 24
        || dte_block_states == 0
        || dte_block_states > 1 << 24
        || value_block_states % dte_block_states != 0
    {
        return Err(format!(
            "header: unusable block sizes {value_block_states} / {dte_block_states} states"
        ));
    }
    let len = c.u8().map_err(wrap)? as usize;
    let engine = String::from_utf8_lossy(c.take(len).map_err(wrap)?).into_owned();
    let free = read_bits(&mut c, rows * cols).map_err(wrap)?;
    let cells = free.count_ones();
    let exits = read_bits(&mut c, cells).map_err(wrap)?;
    let kcops = if flags & 4 != 0 {
        Some(KSection::decode(&mut c, rows, cols, cells, version).map_err(wrap)?)
    } else {
        None
    };
    let shard = if flags & 2 != 0 {
        let index = c.u32().map_err(wrap)?;
        let count = c.u32().map_err(wrap)?;
        let first_state = c.u64().map_err(wrap)?;
        let end_state = c.u64().map_err(wrap)?;
        let first_row = c.u32().map_err(wrap)?;
        let end_row = c.u32().map_err(wrap)?;
        // A band starts and ends at a cop cell (one cop) or a cop
        // multiset (several): both hold `2 * cells` states.
        let block = 2 * cells as u64;
        let (states, rows_fit) = match &kcops {
            Some(k) => (
                kcops::state_count(cells as u64, k.cops).unwrap_or(u64::MAX),
                first_row == 0 && end_row == 0,
            ),
            None => (
                block * cells as u64,
                first_row <= end_row && end_row as usize <= rows,
            ),
        };
        if index >= count
            || first_state > end_state
            || end_state > states
            || first_state % block.max(1) != 0
            || end_state % block.max(1) != 0
            || !rows_fit
        {
            return Err(format!(
                "header: shard {index} of {count} with states {first_state}..{end_state} and rows {first_row}..{end_row} does not fit a map of {cells} free cells and {rows} rows"
            ));
        }
        Some(ShardInfo {
            index,
            count,
            first_state,
            end_state,
            first_row,
            end_row,
        })
    } else {
        None
    };
    if c.pos != body.len() {
        return Err(format!(
            "header: {} unexpected bytes after the exit bitmap",
            body.len() - c.pos
        ));
    }
    for (what, s) in [("cop", cop), ("thief", thief)] {
        if let Some((r, col)) = s {
            if r >= rows || col >= cols || !free[r * cols + col] {
                return Err(format!(
                    "header: the {what} start {r},{col} is not a free cell"
                ));
            }
        }
    }
    Ok(HeaderBody {
        rows,
        cols,
        rules,
        has_dte: flags & 1 != 0,
        cop,
        thief,
        value_block_states,
        dte_block_states,
        engine,
        free,
        exits,
        shard,
        kcops,
    })
}

/// The trailer bytes for `t`, with the checksum over `index` and the
/// trailer fields.
pub(crate) fn encode_trailer(index: &[u8], t: &Trailer) -> Vec<u8> {
    let mut out = Vec::with_capacity(TRAILER_BYTES);
    for v in [
        t.index_offset,
        t.value_blocks,
        t.dte_blocks,
        t.states,
        t.counts.win,
        t.counts.loss,
        t.counts.draw,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&t.levels.to_le_bytes());
    out.extend_from_slice(&t.max_dte.to_le_bytes());
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(index);
    hasher.update(&out);
    out.extend_from_slice(&hasher.finalize().to_le_bytes());
    out.extend_from_slice(END_MAGIC);
    out
}

/// Decodes trailer fields (checksum and magic checked by the caller).
pub(crate) fn decode_trailer(bytes: &[u8]) -> Trailer {
    let mut c = Cursor::new(bytes, 0);
    // The caller passes exactly TRAILER_BYTES bytes.
    let mut next = || c.u64().expect("trailer length checked");
    let index_offset = next();
    let value_blocks = next();
    let dte_blocks = next();
    let states = next();
    let counts = Counts {
        win: next(),
        loss: next(),
        draw: next(),
    };
    let mut c = Cursor::new(bytes, 56);
    Trailer {
        index_offset,
        value_blocks,
        dte_blocks,
        states,
        counts,
        levels: c.u32().expect("trailer length checked"),
        max_dte: c.u32().expect("trailer length checked"),
    }
}

pub(crate) fn encode_entry(e: &BlockEntry, out: &mut Vec<u8>) {
    out.extend_from_slice(&e.offset.to_le_bytes());
    out.extend_from_slice(&e.len.to_le_bytes());
    out.extend_from_slice(&e.crc.to_le_bytes());
}

pub(crate) fn decode_entry(bytes: &[u8]) -> BlockEntry {
    let mut c = Cursor::new(bytes, 0);
    BlockEntry {
        offset: c.u64().expect("entry length checked"),
        len: c.u32().expect("entry length checked"),
        crc: c.u32().expect("entry length checked"),
    }
}
