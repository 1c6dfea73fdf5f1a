//! The `.rtb` file layout: header, blocks, block index and trailer. Only
//! this file knows the byte layout; the writer and the reader go through it.
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
//! u8 (bit 0: distances included; bit 1: a shard), cop start row u32 and
//! column u32 (`u32::MAX` for none), thief start likewise, states per
//! values block u64, states per distance block u64, engine name (a u8
//! length, then the bytes), the free-cell bitmap (rows * columns bits,
//! row-major, LSB first), the exit bitmap (one bit per free cell id);
//! then, for a shard only: shard index u32, shard count u32, first state
//! u64, end state u64, first cop row u32, end cop row u32.
//!
//! A shard (one per process of a partitioned solve) holds the states
//! `first .. end` (the cop cells of rows `first row .. end row`): its
//! blocks, index and trailer (states, counts) are those of that range
//! alone, block 0 starting at state `first`; levels are the whole solve's.
//!
//! Counts live in the trailer because the writer streams: they are known
//! only after the last block. All integers are little-endian.
//!
//! Values: 2 bits per state (0 draw, 1 win, 2 loss, for the player to move;
//! state `i` of a block at byte `i / 4`, bits `2 * (i % 4)`). Distances: a
//! u16 `d` per state (0 for draws; distances of 65535 or more are 65535),
//! stored as residuals against a prediction (see [`encode_dte_into`]):
//! state `k` of a block is predicted by state `k - R` (the same thief cell
//! and turn, the previous cop cell; `R = 2 C` states per cop cell) when
//! that is in the block, else by state `k - 2` (the previous thief cell,
//! same turn), else by 0; the residual `d - prediction` (mod 2^16, as an
//! i16) is zigzag-coded (0, -1, 1, -2, ... to 0, 1, 2, 3, ...). Past the
//! block's first row of `R` states (or the whole block, if shorter) most
//! residuals are 0 (98% on a 150 x 150 map), in runs; in the first row
//! most are -2 or +2 (74%: the next thief cell, a step of 2 plies). So a
//! block stores (version 3), before compression:
//!
//! ```text
//! codes    the first row: a 2-bit code per state, 4 to a byte (state i
//!          at bits 2 (i % 4) of byte i / 4): 0 for a residual of 0, 1 for
//!          -2, 2 for +2, 3 for an escape
//! escaped  per escape, in order: its residual's low byte (below)
//! runs     the rest: pairs of LEB128 varints (zeros, then non-zeros)
//!          covering its states in order; only the first count of zeros
//!          and the last count of non-zeros may be 0, never both of a pair
//! low      per non-zero residual of the runs, in order: its low byte
//! wide     per low byte 255 (escaped or low, in that order): the zigzag
//!          value, u16
//! ```
//!
//! A low byte is the zigzag value when it is under 255, else 255 (the
//! value is in `wide`). zstd (level 1) then sees a twentieth of the bytes of
//! the version 2 layout (every residual, low bytes then high bytes), which
//! made compressing distances the largest part of `--save`'s cost, and
//! the file is smaller. Version 2 tables (same header, values and
//! prediction) are still read; version 1 (plain u16 distances in blocks of
//! 2^17 states) is refused.

use bitvec::vec::BitVec;

use crate::{Counts, Rules};

/// First bytes of every table.
pub(crate) const MAGIC: &[u8; 8] = b"RTGTBL\r\n";
/// Last bytes of every complete table.
pub(crate) const END_MAGIC: &[u8; 8] = b"RTGTEND\n";
/// The format version this build writes (and reads).
pub(crate) const VERSION: u32 = 3;
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
    body.push(u8::from(h.has_dte) | u8::from(h.shard.is_some()) << 1);
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

/// Decodes a header body that passed its checksum. Errors say what is
/// inconsistent (a body with a valid checksum but nonsense inside was
/// written by something else).
pub(crate) fn decode_body(body: &[u8], base: usize) -> Result<HeaderBody, String> {
    let mut c = Cursor::new(body, 0);
    let wrap = |e: String| format!("header body (from offset {base}): {e}");
    let rows = c.u32().map_err(wrap)? as usize;
    let cols = c.u32().map_err(wrap)? as usize;
    if rows == 0 || cols == 0 || rows.saturating_mul(cols) >= u32::MAX as usize {
        return Err(format!("header: a {rows} x {cols} grid is not a map"));
    }
    let rules = rules_from_bits(c.u8().map_err(wrap)?).ok_or("header: unknown rule bits")?;
    let flags = c.u8().map_err(wrap)?;
    if flags > 3 {
        return Err(format!("header: unknown flags {flags:#x}"));
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
    let shard = if flags & 2 != 0 {
        let index = c.u32().map_err(wrap)?;
        let count = c.u32().map_err(wrap)?;
        let first_state = c.u64().map_err(wrap)?;
        let end_state = c.u64().map_err(wrap)?;
        let first_row = c.u32().map_err(wrap)?;
        let end_row = c.u32().map_err(wrap)?;
        let block = 2 * cells as u64;
        let states = block * cells as u64;
        if index >= count
            || first_state > end_state
            || end_state > states
            || first_state % block.max(1) != 0
            || end_state % block.max(1) != 0
            || first_row > end_row
            || end_row as usize > rows
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

/// Zigzag code of a residual: 0, -1, 1, -2, ... to 0, 1, 2, 3, ...
#[inline]
fn zigzag(r: u16) -> u16 {
    let r = r as i16;
    ((r << 1) ^ (r >> 15)) as u16
}

/// Inverse of [`zigzag`].
#[inline]
fn unzigzag(z: u16) -> u16 {
    (z >> 1) ^ 0u16.wrapping_sub(z & 1)
}

/// Zigzag-coded residuals of a distance block against its prediction
/// (module documentation) into `z`, which ends with `d.len()` entries.
/// Three plain loops without a branch per state, so they vectorise.
#[cfg(test)]
fn residuals(d: &[u16], row: usize, z: &mut Vec<u16>) {
    // A map has at least one cell, so R >= 2; the guard keeps a zero from
    // ever predicting a state by itself.
    let row = row.max(2);
    let m = d.len();
    // Every entry is written below: resizing only fills what is new.
    z.resize(m, 0);
    let first = m.min(row);
    for k in 0..first.min(2) {
        z[k] = zigzag(d[k]);
    }
    if first > 2 {
        for (z, (x, p)) in z[2..first].iter_mut().zip(d[2..first].iter().zip(d)) {
            *z = zigzag(x.wrapping_sub(*p));
        }
    }
    if m > row {
        for (z, (x, p)) in z[row..].iter_mut().zip(d[row..].iter().zip(d)) {
            *z = zigzag(x.wrapping_sub(*p));
        }
    }
}

/// Undoes the prediction in place: residuals (already unzigzagged) to
/// distances.
fn undo_prediction(d: &mut [u16], row: usize) {
    let row = row.max(2);
    let m = d.len();
    // The first row: each state adds to the one two before it.
    let first = m.min(row);
    for k in 2..first {
        d[k] = d[k].wrapping_add(d[k - 2]);
    }
    // Later rows add the row above, a whole row at a time (no overlap, so
    // the loop vectorises).
    let mut k = first;
    while k < m {
        let end = (k + row).min(m);
        let (done, rest) = d.split_at_mut(k);
        for (x, p) in rest[..end - k].iter_mut().zip(&done[k - row..]) {
            *x = x.wrapping_add(*p);
        }
        k = end;
    }
}

/// The low byte that stands for a wide residual (255 or more).
const ESCAPE: u8 = 255;

fn push_varint(mut x: usize, out: &mut Vec<u8>) {
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// The first-row code whose residual is in the escape bytes.
#[cfg(test)]
const HEAD_ESCAPE: u8 = 3;
/// Per byte of 4 first-row codes, their 4 residuals (u16 lanes of a
/// word, the first code in the low lane; 0 for an escape, filled in
/// later).
const HEAD_RESIDUALS: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 4 {
            // Codes 1 and 2: the residuals -2 and +2 (zigzag 3 and 4).
            let r: u64 = match (b >> (2 * j)) & 3 {
                1 => 0xfffe,
                2 => 2,
                _ => 0,
            };
            t[b] |= r << (16 * j);
            j += 1;
        }
        b += 1;
    }
    t
};

/// For 16 lanes, bit `j` of each mask set when `a[j] - b[j]` (mod 2^16)
/// is one of `steps` (each mask one step).
#[inline(always)]
fn step_masks<const N: usize>(a: &[u16; 16], b: &[u16; 16], steps: [u16; N]) -> [u32; N] {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi16, _mm_loadu_si128, _mm_movemask_epi8, _mm_packs_epi16,
            _mm_set1_epi16, _mm_sub_epi16,
        };
        // SAFETY: each array holds 16 lanes, 32 bytes: the two unaligned
        // 16-byte loads from its start (lanes 0..8, 8..16) stay inside it.
        // The intrinsics need SSE2, which every x86_64 CPU has.
        unsafe {
            let (p, q) = (a.as_ptr().cast::<__m128i>(), b.as_ptr().cast::<__m128i>());
            let r0 = _mm_sub_epi16(_mm_loadu_si128(p), _mm_loadu_si128(q));
            let r1 = _mm_sub_epi16(_mm_loadu_si128(p.add(1)), _mm_loadu_si128(q.add(1)));
            // A lane compares to all ones or zero; the signed saturating
            // pack keeps that in a byte, one mask bit per byte.
            steps.map(|s| {
                let s = _mm_set1_epi16(s as i16);
                let packed = _mm_packs_epi16(_mm_cmpeq_epi16(r0, s), _mm_cmpeq_epi16(r1, s));
                _mm_movemask_epi8(packed) as u32
            })
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        steps.map(|s| (0..16).fold(0, |m, j| m | u32::from(a[j].wrapping_sub(b[j]) == s) << j))
    }
}

/// For 32 lanes, bit `j` of each mask set when `a[j] - b[j]` (mod 2^16)
/// is that mask's step: one AVX-512 compare per step with `WIDE` (only
/// instantiated so inside [`DteEncoder::encode_avx512`]), else two SSE2
/// halves.
#[inline(always)]
fn step_masks32<const WIDE: bool, const N: usize>(
    a: &[u16; 32],
    b: &[u16; 32],
    steps: [u16; N],
) -> [u32; N] {
    #[cfg(target_arch = "x86_64")]
    if WIDE {
        use std::arch::x86_64::{
            _mm512_cmpeq_epi16_mask, _mm512_loadu_si512, _mm512_set1_epi16, _mm512_sub_epi16,
        };
        // SAFETY: each array holds 32 lanes, 64 bytes: one unaligned
        // 64-byte load from its start stays inside it. Instantiated with
        // `WIDE` only inside `encode_avx512`, which runs on CPUs with
        // AVX-512F and BW (checked by its caller).
        return unsafe {
            let r = _mm512_sub_epi16(
                _mm512_loadu_si512(a.as_ptr().cast()),
                _mm512_loadu_si512(b.as_ptr().cast()),
            );
            // A loop, not a closure: a closure is compiled without the
            // caller's target features, and the compares would not inline.
            let mut masks = [0u32; N];
            for (m, s) in masks.iter_mut().zip(steps) {
                *m = _mm512_cmpeq_epi16_mask(r, _mm512_set1_epi16(s as i16));
            }
            masks
        };
    }
    let half = |h: usize| {
        step_masks(
            a[16 * h..16 * h + 16].try_into().expect("16 lanes"),
            b[16 * h..16 * h + 16].try_into().expect("16 lanes"),
            steps,
        )
    };
    let (low, high) = (half(0), half(1));
    std::array::from_fn(|i| low[i] | high[i] << 16)
}

/// Bit `j` of the result is bit `j` of `x` moved to bit `2 j` (`pdep`
/// with `WIDE`, see [`step_masks32`]).
#[inline(always)]
fn spread<const WIDE: bool>(x: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if WIDE {
        // SAFETY: instantiated with `WIDE` only inside `encode_avx512`,
        // which runs on CPUs with BMI2 (checked by its caller).
        return unsafe { std::arch::x86_64::_pdep_u64(u64::from(x), 0x5555_5555_5555_5555) };
    }
    let mut x = u64::from(x);
    x = (x | x << 16) & 0x0000_ffff_0000_ffff;
    x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
    x = (x | x << 4) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | x << 2) & 0x3333_3333_3333_3333;
    (x | x << 1) & 0x5555_5555_5555_5555
}

/// The residuals `cur[j] - pred[j]` of the lanes `j` set in `lanes`, in
/// order: each zigzag value's low byte onto `low` ([`ESCAPE`] when it is
/// wide, the value then onto `wide`).
#[inline(always)]
fn push_residuals(
    mut lanes: u64,
    cur: &[u16],
    pred: &[u16],
    low: &mut Vec<u8>,
    wide: &mut Vec<u8>,
) {
    while lanes != 0 {
        let j = lanes.trailing_zeros() as usize;
        let z = zigzag(cur[j].wrapping_sub(pred[j]));
        low.push(z.min(u16::from(ESCAPE)) as u8);
        if z >= u16::from(ESCAPE) {
            wide.extend_from_slice(&z.to_le_bytes());
        }
        lanes &= lanes - 1;
    }
}

/// `N` lanes of `d` from `at` and of its prediction from `at - back`:
/// borrowed in the middle of `d`; copied into `cur` and `pred` at its
/// ends, with zeros outside `d` (for both, so past the end the pair is
/// equal). Also the number of lanes inside `d`.
#[inline(always)]
fn lanes<'a, const N: usize>(
    d: &'a [u16],
    at: usize,
    back: usize,
    cur: &'a mut [u16; N],
    pred: &'a mut [u16; N],
) -> (&'a [u16; N], &'a [u16; N], usize) {
    let len = (d.len() - at).min(N);
    if len == N && at >= back {
        return (
            d[at..at + N].try_into().expect("N lanes"),
            d[at - back..at - back + N].try_into().expect("N lanes"),
            N,
        );
    }
    for j in 0..N {
        let k = at + j;
        cur[j] = if j < len { d[k] } else { 0 };
        pred[j] = if j < len && k >= back { d[k - back] } else { 0 };
    }
    (cur, pred, len)
}

/// A distance block's encoder, its buffers kept across blocks (a writer
/// encodes thousands of blocks per worker).
#[derive(Default)]
pub(crate) struct DteEncoder {
    runs: Vec<u8>,
    low: Vec<u8>,
    wide: Vec<u8>,
    /// The stored bytes of the last block encoded.
    pub(crate) out: Vec<u8>,
}

impl DteEncoder {
    /// Encodes a distance block (`row` is R = 2 C) into `self.out` (module
    /// documentation), in one pass over the distances: residuals are
    /// compared 32 lanes at a time (AVX-512BW where the CPU has it, else
    /// SSE2) and only the non-zero ones (a few per cent past the first
    /// row) are computed one by one. On a 150 x 150 map's save this took
    /// 0.15 s of CPU time, against 0.30 s for a version that first stored
    /// every residual and then scanned them for runs (the tests'
    /// `reference_encoder` is its plain twin).
    pub(crate) fn encode(&mut self, d: &[u16], row: usize) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("bmi2")
        {
            // SAFETY: the CPU has AVX-512F and BW (BW implies F) and BMI2,
            // checked just above.
            return unsafe { self.encode_avx512(d, row) };
        }
        self.encode_with::<false>(d, row);
    }

    /// [`DteEncoder::encode`] with 32-lane compares (AVX-512BW) and `pdep`.
    ///
    /// # Safety
    /// The CPU must have AVX-512F, AVX-512BW and BMI2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,bmi2")]
    unsafe fn encode_avx512(&mut self, d: &[u16], row: usize) {
        self.encode_with::<true>(d, row);
    }

    /// [`DteEncoder::encode`]'s body, for both instruction sets.
    #[inline(always)]
    fn encode_with<const WIDE: bool>(&mut self, d: &[u16], row: usize) {
        let row = row.max(2);
        let head = d.len().min(row);
        self.out.clear();
        self.runs.clear();
        self.low.clear();
        self.wide.clear();
        self.encode_head::<WIDE>(&d[..head]);
        self.out.extend_from_slice(&self.low);
        self.low.clear();
        self.encode_runs::<WIDE>(d, head, row);
        self.out.extend_from_slice(&self.runs);
        self.out.extend_from_slice(&self.low);
        self.out.extend_from_slice(&self.wide);
    }

    /// The first row `d` (predicted by the state two before): its codes
    /// onto `out`, the escaped residuals onto `low` and `wide`. 32 states
    /// per step: masks of the residuals 0, -2 and +2, spread into the
    /// 2-bit codes of 8 bytes.
    #[inline(always)]
    fn encode_head<const WIDE: bool>(&mut self, d: &[u16]) {
        let n = d.len();
        let at = self.out.len();
        self.out.resize(at + n.div_ceil(4), 0);
        let (mut cur_end, mut pred_end) = ([0u16; 32], [0u16; 32]);
        for c in (0..n).step_by(32) {
            let (cur, pred, len) = lanes(d, c, 2, &mut cur_end, &mut pred_end);
            let [zero, minus, plus] = step_masks32::<WIDE, 3>(cur, pred, [0, 0xfffe, 2]);
            let valid = u32::MAX >> (32 - len);
            let escapes = valid & !(zero | minus | plus);
            let codes = spread::<WIDE>(minus | escapes) | spread::<WIDE>(plus | escapes) << 1;
            let bytes = len.div_ceil(4);
            self.out[at + c / 4..at + c / 4 + bytes].copy_from_slice(&codes.to_le_bytes()[..bytes]);
            push_residuals(escapes.into(), cur, pred, &mut self.low, &mut self.wide);
        }
    }

    /// The states `head ..` of `d` (predicted by the state `row` before):
    /// their runs onto `runs`, their non-zero residuals onto `low` and
    /// `wide`. 64 states per step: a mask of the non-zero residuals; a
    /// step inside a zero run costs only the mask, the runs' ends are its
    /// bit changes.
    #[inline(always)]
    fn encode_runs<const WIDE: bool>(&mut self, d: &[u16], head: usize, row: usize) {
        let m = d.len();
        if head >= m {
            return;
        }
        // `zeros`: where the current pair's zero run began; `ones`: where
        // its non-zero run began; `last`: 1 when the state before the step
        // is non-zero.
        let (mut zeros, mut ones, mut last) = (head, head, 0u64);
        let (mut cur_end, mut pred_end) = ([0u16; 64], [0u16; 64]);
        let mut c = head;
        while c < m {
            let (cur, pred, len) = lanes(d, c, row, &mut cur_end, &mut pred_end);
            let mut equal = 0u64;
            for h in 0..2 {
                let [e] = step_masks32::<WIDE, 1>(
                    cur[32 * h..32 * h + 32].try_into().expect("32 lanes"),
                    pred[32 * h..32 * h + 32].try_into().expect("32 lanes"),
                    [0],
                );
                equal |= u64::from(e) << (32 * h);
            }
            let valid = u64::MAX >> (64 - len);
            let nonzero = !equal & valid;
            if nonzero | last != 0 {
                let mut changes = (nonzero ^ (nonzero << 1 | last)) & valid;
                while changes != 0 {
                    let j = changes.trailing_zeros() as usize;
                    if nonzero >> j & 1 == 1 {
                        ones = c + j;
                    } else {
                        push_varint(ones - zeros, &mut self.runs);
                        push_varint(c + j - ones, &mut self.runs);
                        zeros = c + j;
                    }
                    changes &= changes - 1;
                }
                push_residuals(nonzero, cur, pred, &mut self.low, &mut self.wide);
                last = nonzero >> (len - 1) & 1;
            }
            c += len;
        }
        // The last pair: a non-zero run to the end, or a zero run without
        // non-zeros.
        if last == 1 {
            push_varint(ones - zeros, &mut self.runs);
            push_varint(m - ones, &mut self.runs);
        } else {
            push_varint(m - zeros, &mut self.runs);
            push_varint(0, &mut self.runs);
        }
    }
}

/// The stored bytes of a distance block (version 3): see [`DteEncoder`].
#[cfg(test)]
pub(crate) fn encode_dte(d: &[u16], row: usize) -> Vec<u8> {
    let mut e = DteEncoder::default();
    e.encode(d, row);
    e.out
}

/// The most bytes a version 3 distance block of `m` states can hold: per
/// state at most a code, an escaped byte and a wide value (first row) or a
/// pair of varints (5 bytes each at most), a low byte and a wide value
/// (the runs).
pub(crate) fn dte_bytes_bound(m: usize) -> usize {
    13 * m + 16
}

/// Inverse of [`encode_dte`]: the `m` distances of a version 3 block from
/// its stored bytes, or what is wrong with them.
pub(crate) fn decode_dte(bytes: &[u8], m: usize, row: usize) -> Result<Vec<u16>, String> {
    // The first row: 2-bit codes, then the escaped residuals' bytes.
    let head = m.min(row.max(2));
    let codes = head.div_ceil(4);
    let Some(packed) = bytes.get(..codes) else {
        return Err(format!(
            "{} bytes, the first row's codes need {codes}",
            bytes.len()
        ));
    };
    // The escapes of 32 states (a word of codes: both bits set), codes
    // past the first row (padding) left out.
    let words = codes.div_ceil(8);
    let escapes_in = |w: usize| -> u64 {
        let chunk = &packed[8 * w..codes.min(8 * w + 8)];
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        let p = u64::from_le_bytes(word);
        let states = (head - 32 * w).min(32);
        let valid = u64::MAX >> (64 - 2 * states);
        p & (p >> 1) & 0x5555_5555_5555_5555 & valid
    };
    let head_escapes: usize = (0..words)
        .map(|w| escapes_in(w).count_ones() as usize)
        .sum();
    let mut pos = codes + head_escapes;
    let Some(escaped) = bytes.get(codes..pos) else {
        return Err(format!(
            "{} bytes, the first row's codes and escapes need {pos}",
            bytes.len()
        ));
    };
    let mut varint = |what: &str| -> Result<usize, String> {
        let mut x = 0usize;
        for shift in (0..35).step_by(7) {
            let Some(&b) = bytes.get(pos) else {
                return Err(format!("the runs end inside a {what} count at byte {pos}"));
            };
            pos += 1;
            x |= usize::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(x);
            }
        }
        Err(format!(
            "a {what} count longer than 5 bytes ends at byte {pos}"
        ))
    };
    // Then the non-zero runs, as (first state, length).
    let mut runs = Vec::new();
    let mut k = head;
    let mut nonzero = 0;
    while k < m {
        let zeros = varint("zero")?;
        let ones = varint("non-zero")?;
        if zeros + ones == 0 || zeros + ones > m - k {
            return Err(format!(
                "a run of {zeros} zero and {ones} non-zero residuals at state {k} of {m}"
            ));
        }
        k += zeros;
        runs.push((k, ones));
        k += ones;
        nonzero += ones;
    }
    let low_end = pos + nonzero;
    let Some(low) = bytes.get(pos..low_end) else {
        return Err(format!(
            "{nonzero} residual bytes from byte {pos}, the block has {}",
            bytes.len()
        ));
    };
    // Two counts, not one over a chain: each vectorises.
    let wides = escaped.iter().filter(|&&b| b == ESCAPE).count()
        + low.iter().filter(|&&b| b == ESCAPE).count();
    if bytes.len() != low_end + 2 * wides {
        return Err(format!(
            "{} bytes, the residuals need {}",
            bytes.len(),
            low_end + 2 * wides
        ));
    }
    let mut wide = bytes[low_end..]
        .chunks_exact(2)
        .map(|w| u16::from_le_bytes([w[0], w[1]]));
    let mut widen = |b: u8, at: usize| -> Result<u16, String> {
        if b != ESCAPE {
            return Ok(u16::from(b));
        }
        let w = wide.next().expect("one wide value per escape, counted");
        if w < u16::from(ESCAPE) {
            return Err(format!("the wide residual {w} of state {at} fits a byte"));
        }
        Ok(w)
    };
    let mut d = vec![0u16; m];
    // The first row: 4 residuals per code byte from a table, then the
    // escaped ones in their places.
    for (x, &b) in d[..head].chunks_mut(4).zip(packed) {
        let four = HEAD_RESIDUALS[usize::from(b)];
        for (j, x) in x.iter_mut().enumerate() {
            *x = (four >> (16 * j)) as u16;
        }
    }
    let mut escaped = escaped.iter();
    for w in 0..words {
        let mut hits = escapes_in(w);
        while hits != 0 {
            let i = 32 * w + hits.trailing_zeros() as usize / 2;
            d[i] = unzigzag(widen(*escaped.next().expect("counted"), i)?);
            hits &= hits - 1;
        }
    }
    // The runs: a residual per low byte, in a loop without a branch per
    // residual; the rare wide ones after.
    if low.contains(&0) {
        return Err("a zero residual in a run of non-zero ones".into());
    }
    let mut at = 0;
    for &(start, len) in &runs {
        for (x, &b) in d[start..start + len].iter_mut().zip(&low[at..at + len]) {
            *x = unzigzag(u16::from(b));
        }
        at += len;
    }
    // Escapes found 8 low bytes at a time (a byte 255 is a zero byte of
    // the complement); runs walked alongside to place them.
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let (mut run, mut run_at) = (0, 0);
    for (w, chunk) in low.chunks(8).enumerate() {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        let v = !u64::from_le_bytes(word);
        // The top bit of each byte of `v` that is not zero (exact: no
        // carry crosses a byte).
        let nonzero = (((v & LOW7) + LOW7) | v) & !LOW7;
        let mut hits = !nonzero & !LOW7;
        while hits != 0 {
            let j = 8 * w + hits.trailing_zeros() as usize / 8;
            while j >= run_at + runs[run].1 {
                run_at += runs[run].1;
                run += 1;
            }
            let state = runs[run].0 + (j - run_at);
            d[state] = unzigzag(widen(ESCAPE, state)?);
            hits &= hits - 1;
        }
    }
    undo_prediction(&mut d, row);
    Ok(d)
}

/// The version 2 layout of a distance block: all zigzag residuals, low
/// bytes then high bytes.
#[cfg(test)]
pub(crate) fn encode_dte_v2(d: &[u16], row: usize) -> Vec<u8> {
    let mut z = Vec::new();
    residuals(d, row, &mut z);
    let mut out: Vec<u8> = z.iter().map(|&v| v as u8).collect();
    out.extend(z.iter().map(|&v| (v >> 8) as u8));
    out
}

/// Distances of a version 2 distance block (`bytes` has 2 bytes per
/// state).
pub(crate) fn decode_dte_v2(bytes: &[u8], row: usize) -> Vec<u16> {
    let m = bytes.len() / 2;
    let (lo, hi) = bytes.split_at(m);
    let mut d: Vec<u16> = lo
        .iter()
        .zip(hi)
        .map(|(&l, &h)| unzigzag(u16::from(l) | u16::from(h) << 8))
        .collect();
    undo_prediction(&mut d, row);
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// Distance blocks of every shape the coding must survive: random
    /// jumps, the extremes and wrapping residuals; all draws (all zero);
    /// equal rows (zero runs past the first row, long enough for 2- and
    /// 3-byte run counts); residuals of every size in runs.
    fn blocks() -> Vec<(Vec<u16>, usize)> {
        let mut next = xorshift(12345);
        let mut out = Vec::new();
        for (m, row) in [
            (0, 4),
            (50, 0),
            (1, 4),
            (2, 2),
            (3, 2),
            (1000, 6),
            (1000, 998),
            (1000, 2000),
            (999, 10),
        ] {
            let d: Vec<u16> = (0..m)
                .map(|k| match next() % 6 {
                    0 => 0,
                    1 => u16::MAX,
                    2 => (next() % 65536) as u16,
                    _ => (k % 300) as u16,
                })
                .collect();
            out.push((d, row));
        }
        out.push((vec![0; 40_000], 100));
        out.push((vec![7; 40_000], 100));
        let row: Vec<u16> = (0..300).map(|k| (k % 17) as u16 * 2 + 1).collect();
        out.push((row.iter().copied().cycle().take(60_000).collect(), 300));
        // Rows that differ from the row above in a few runs of residuals of
        // every size (1 byte, escaped, the largest).
        let mut d: Vec<u16> = row.iter().copied().cycle().take(30_000).collect();
        for k in 300..d.len() {
            d[k] = d[k - 300];
            if (k / 37) % 11 == 0 {
                d[k] = d[k].wrapping_add([2, 65534, 300, 32768, 127, 128][k % 6]);
            }
        }
        out.push((d, 300));
        out
    }

    #[test]
    fn distance_coding_round_trips() {
        for (d, row) in blocks() {
            let m = d.len();
            let bytes = encode_dte(&d, row);
            assert!(bytes.len() <= dte_bytes_bound(m));
            assert_eq!(decode_dte(&bytes, m, row).unwrap(), d, "m {m} row {row}");
            let v2 = encode_dte_v2(&d, row);
            assert_eq!(v2.len(), 2 * m);
            assert_eq!(decode_dte_v2(&v2, row), d, "v2: m {m} row {row}");
        }
        // All draws: the first row's zero codes and one pair of run counts.
        assert_eq!(encode_dte(&[0; 40_000], 100).len(), 25 + 3 + 1);
        // Equal rows: after the first row only zeros, so the residual
        // bytes are those of the first row alone (codes and 8 escapes).
        let d: Vec<u16> = (0..4000).map(|k| (k % 8) as u16 * 3 + 1).collect();
        let bytes = encode_dte(&d, 8);
        assert_eq!(bytes.len(), 2 + 8 + 3, "{bytes:?}");
        // Steps of 2 plies in the first row have codes of their own.
        // Four equal rows of 8: codes (3 3 2 2, 2 2 2 2, the first state
        // of each turn escaped: zigzag 20), then 24 zeros, no non-zero.
        let d: Vec<u16> = (0..32).map(|k| 10 + 2 * (k % 8 / 2) as u16).collect();
        assert_eq!(encode_dte(&d, 8), [0b1010_1111, 0b1010_1010, 20, 20, 24, 0]);
    }

    /// The version 3 layout written plainly (module documentation): every
    /// residual first, then the first row's codes and escapes, then the
    /// runs found a residual at a time. The encoder must match it byte for
    /// byte.
    pub(super) fn reference_encoder(d: &[u16], row: usize) -> Vec<u8> {
        fn push(v: u16, low: &mut Vec<u8>, wide: &mut Vec<u8>) {
            low.push(v.min(u16::from(ESCAPE)) as u8);
            if v >= u16::from(ESCAPE) {
                wide.extend_from_slice(&v.to_le_bytes());
            }
        }
        let mut z = Vec::new();
        residuals(d, row, &mut z);
        let m = z.len();
        let head = m.min(row.max(2));
        let mut out = vec![0u8; head.div_ceil(4)];
        let (mut escaped, mut runs, mut low, mut wide) = (vec![], vec![], vec![], vec![]);
        for (i, &v) in z[..head].iter().enumerate() {
            let code = match v {
                0 => 0,
                3 => 1,
                4 => 2,
                _ => HEAD_ESCAPE,
            };
            out[i / 4] |= code << (2 * (i % 4));
            if code == HEAD_ESCAPE {
                push(v, &mut escaped, &mut wide);
            }
        }
        let mut k = head;
        while k < m {
            let start = (k..m).find(|&i| z[i] != 0).unwrap_or(m);
            let end = (start..m).find(|&i| z[i] == 0).unwrap_or(m);
            for &v in &z[start..end] {
                push(v, &mut low, &mut wide);
            }
            push_varint(start - k, &mut runs);
            push_varint(end - start, &mut runs);
            k = end;
        }
        for part in [escaped, runs, low, wide] {
            out.extend(part);
        }
        out
    }

    /// The encoder against [`reference_encoder`] on random blocks: every
    /// length around the 32- and 64-state steps, rows shorter and longer
    /// than a step, runs of every length (starting and ending anywhere
    /// in a step), residuals of every size.
    #[test]
    fn encoder_matches_the_reference() {
        let mut next = xorshift(99);
        let mut encoder = DteEncoder::default();
        // Both instruction sets, whichever `encode` picks on this CPU.
        let mut check = |d: &[u16], row: usize| {
            let want = reference_encoder(d, row);
            encoder.encode(d, row);
            assert_eq!(encoder.out, want, "m {} row {row}", d.len());
            encoder.encode_with::<false>(d, row);
            assert_eq!(encoder.out, want, "SSE2: m {} row {row}", d.len());
        };
        for (d, row) in blocks() {
            check(&d, row);
        }
        for case in 0..3000 {
            let m = match case % 3 {
                0 => (next() % 200) as usize,
                1 => (next() % 2000) as usize,
                _ => 64 * (next() % 40) as usize + (next() % 3) as usize,
            };
            let row = (next() % 140) as usize;
            // A row, then rows that copy the one above but for runs of
            // changes of random lengths and sizes.
            let change_rate = 1 + next() % 40;
            let mut d: Vec<u16> = Vec::with_capacity(m);
            let mut changing = 0u64;
            for k in 0..m {
                let above = if k >= row.max(2) {
                    Some(d[k - row.max(2)])
                } else {
                    None
                };
                let x = match above {
                    None => match next() % 5 {
                        0 => (next() % 65536) as u16,
                        _ => (k % 50) as u16 * 2,
                    },
                    Some(a) => {
                        if changing == 0 && next().is_multiple_of(change_rate) {
                            changing = 1 + next() % 100;
                        }
                        if changing > 0 {
                            changing -= 1;
                            a.wrapping_add(
                                [2, 65534, 1, 300, 32768, 254, 255, 0][(next() % 8) as usize],
                            )
                        } else {
                            a
                        }
                    }
                };
                d.push(x);
            }
            check(&d, row);
            assert_eq!(
                decode_dte(&encode_dte(&d, row), m, row).unwrap(),
                d,
                "m {m} row {row}"
            );
        }
    }

    /// Damaged run counts, residual bytes or wide values are errors (never
    /// a panic or a silent wrong block).
    #[test]
    fn damaged_distance_blocks_are_errors() {
        let (d, row) = blocks().pop().unwrap();
        let m = d.len();
        let bytes = encode_dte(&d, row);
        let expect_err = |b: &[u8], m: usize, what: &str| {
            let e = decode_dte(b, m, row).expect_err(what);
            assert!(!e.is_empty());
        };
        expect_err(&bytes[..bytes.len() - 1], m, "one byte short");
        let mut longer = bytes.clone();
        longer.push(1);
        expect_err(&longer, m, "one byte more");
        expect_err(&bytes, m - 1, "runs past the block");
        expect_err(&bytes, m + 1, "runs short of the block");
        // Small blocks of rows of 2 states: the first 2 as codes (one
        // byte), their escapes, then runs.
        let small = |b: &[u8], m: usize| decode_dte(b, m, 2);
        assert!(small(&[], 5).is_err(), "no runs");
        assert!(small(&[0, 0, 0], 5)
            .unwrap_err()
            .contains("a run of 0 zero and 0 non-zero"));
        let endless = [0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
        assert!(small(&endless, 5)
            .unwrap_err()
            .contains("longer than 5 bytes"));
        assert_eq!(small(&[0b1010, 0, 1, 2], 3).unwrap(), [2, 2, 3]);
        assert!(small(&[0b1010, 0, 1, 0], 3).is_err(), "a zero in a run");
        // A wide value (after an escape) that fits a byte.
        assert_eq!(small(&[3, ESCAPE, 0, 1], 1).unwrap(), [128]);
        assert!(small(&[3, ESCAPE, 5, 0], 1).is_err(), "a narrow wide value");
        // Any damage is an error or some block: never a panic.
        let mut next = xorshift(99);
        for _ in 0..2000 {
            let mut copy = bytes.clone();
            let i = next() as usize % copy.len();
            copy[i] ^= 1 << (next() % 8);
            if let Ok(decoded) = decode_dte(&copy, m, row) {
                assert_eq!(decoded.len(), m);
            }
        }
    }

    #[test]
    fn header_round_trips() {
        let mut free = BitVec::repeat(true, 6);
        free.set(4, false);
        let mut exits = BitVec::repeat(false, 5);
        exits.set(2, true);
        let h = HeaderBody {
            rows: 2,
            cols: 3,
            rules: Rules {
                thief_first: true,
                ..Rules::default()
            },
            has_dte: true,
            cop: Some((0, 0)),
            thief: None,
            value_block_states: VALUE_BLOCK_STATES,
            dte_block_states: DTE_BLOCK_STATES,
            engine: "parallel".into(),
            free,
            exits,
            shard: None,
        };
        let bytes = encode_header(&h);
        assert_eq!(&bytes[..8], MAGIC);
        let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        assert_eq!(decode_body(&bytes[16..16 + len], 16).unwrap(), h);
        // A shard: 5 cells, 50 states, cop cells 2..5 (row 1 on).
        let shard = HeaderBody {
            shard: Some(ShardInfo {
                index: 1,
                count: 2,
                first_state: 20,
                end_state: 50,
                first_row: 1,
                end_row: 2,
            }),
            ..h.clone()
        };
        let bytes = encode_header(&shard);
        let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        assert_eq!(decode_body(&bytes[16..16 + len], 16).unwrap(), shard);
        // A band that does not start at a cop cell is refused.
        let bad = HeaderBody {
            shard: Some(ShardInfo {
                first_state: 21,
                ..shard.shard.unwrap()
            }),
            ..h
        };
        let bytes = encode_header(&bad);
        let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        assert!(decode_body(&bytes[16..16 + len], 16)
            .unwrap_err()
            .contains("does not fit"));
        for bits in 0..64 {
            assert_eq!(rules_bits(rules_from_bits(bits).unwrap()), bits);
        }
    }

    #[test]
    fn trailer_round_trips() {
        let t = Trailer {
            index_offset: 99,
            value_blocks: 3,
            dte_blocks: 6,
            states: 12345,
            counts: Counts {
                win: 1,
                loss: 2,
                draw: 3,
            },
            levels: 17,
            max_dte: 16,
        };
        let bytes = encode_trailer(b"index", &t);
        assert_eq!(bytes.len(), TRAILER_BYTES);
        assert_eq!(decode_trailer(&bytes), t);
    }
}
