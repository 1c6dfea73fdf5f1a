//! The distance codec: a distance block's u16 distances (0 for draws;
//! 65535 or more stored as 65535) as residuals against a prediction, and
//! its encoder's SIMD bodies (SSE2, and AVX-512BW with BMI2 where the CPU
//! has them).
//!
//! Prediction: state `k` of a block is predicted by state `k - R` (the same
//! thief cell and turn, the previous cop cell; `R = 2 C` states per cop
//! cell) when that is in the block, else by state `k - 2` (the previous
//! thief cell, same turn), else by 0; the residual `d - prediction` (mod
//! 2^16, as an i16) is zigzag-coded (0, -1, 1, -2, ... to 0, 1, 2, 3, ...).
//! Past the block's first row of `R` states (or the whole block, if
//! shorter) most residuals are 0 (98% on a 150 x 150 map), in runs; in the
//! first row most are -2 or +2 (74%: the next thief cell, a step of 2
//! plies). So a block stores (version 3 on), before compression:
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
//! the file is smaller ([`DteEncoder`] writes it). Version 2 blocks are
//! still read ([`decode_dte_v2`]).
//!
//! This file holds what encoding needs (zigzag, the prediction's residuals
//! for the tests, the SIMD masks, [`DteEncoder`]); the decoders are in
//! `decode`.

mod decode;

#[cfg(test)]
pub(crate) use decode::encode_dte_v2;
pub(crate) use decode::{decode_dte, decode_dte_v2};

/// Zigzag code of a residual: 0, -1, 1, -2, ... to 0, 1, 2, 3, ...
#[inline]
fn zigzag(r: u16) -> u16 {
    let r = r as i16;
    ((r << 1) ^ (r >> 15)) as u16
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

/// The stored bytes of a distance block (version 3 on): see [`DteEncoder`].
#[cfg(test)]
pub(crate) fn encode_dte(d: &[u16], row: usize) -> Vec<u8> {
    let mut e = DteEncoder::default();
    e.encode(d, row);
    e.out
}

/// The most bytes a distance block of `m` states (version 3 on) can hold: per
/// state at most a code, an escaped byte and a wide value (first row) or a
/// pair of varints (5 bytes each at most), a low byte and a wide value
/// (the runs).
pub(crate) fn dte_bytes_bound(m: usize) -> usize {
    13 * m + 16
}

#[cfg(test)]
mod tests;
