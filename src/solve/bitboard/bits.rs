//! The solved bitsets and their readers: values one state at a time, a
//! range of states packed two bits each (whole words at a time, with
//! BMI2's `pext` / `pdep` when the CPU has them), counts by popcount.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::layout::Layout;
use super::{CL, CW, KINDS, TL, TW};
use crate::outcome::Counts;
use crate::outcome::Outcome;
use crate::storage::Region;

/// The solved bitsets: what a [`Solution`](crate::Solution) of the
/// bitboard engine reads values from.
pub(in crate::solve) struct Bits {
    pub(super) layout: Layout,
    pub(super) region: Region,
    /// Out of core: the most cop cells of a window, whose records (and
    /// distances) are worth keeping resident at a time.
    pub(super) window: Option<usize>,
}

impl Bits {
    /// The first error met writing the bitsets back to their scratch file
    /// (out of core), if any.
    pub(in crate::solve) fn take_write_error(&self) -> Option<std::io::Error> {
        self.region.take_write_error()
    }

    /// Bytes of the bitsets.
    pub(in crate::solve) fn bytes(&self) -> u64 {
        self.region.bytes() as u64
    }

    fn word(&self, index: usize) -> u64 {
        self.region.atomics::<AtomicU64>()[index].load(Relaxed)
    }

    /// Value of state `s` for the player to move.
    pub(in crate::solve) fn outcome(&self, s: u64) -> Outcome {
        outcome_in(&self.layout, s, |i| self.word(i))
    }

    /// Values of states `range` packed 2 bits each into `out` (every byte
    /// written, see
    /// [`Solution::fill_values`](crate::Solution::fill_values)). From an
    /// even state on (as the table writer asks), whole words at a time:
    /// each word of a cop cell's four bitsets gives the codes of up to 64
    /// thief cells at once (see [`fill_pairs`]); an odd start takes the
    /// state-by-state path.
    pub(in crate::solve) fn fill_values(&self, range: Range<u64>, out: &mut [u8]) {
        if range.start % 2 == 1 {
            return self.fill_values_each(range, out);
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("bmi2") {
            // SAFETY: the CPU has BMI2 (checked just above).
            return unsafe { fill_pairs_bmi2(self, range, out) };
        }
        fill_pairs::<false>(self, range, out);
    }

    /// [`Bits::fill_values`] state by state (any start): walks the
    /// states in order, so the cop, thief and record follow by increments
    /// (no division per state), and reads each thief's word of the two
    /// bitsets of the player to move.
    pub(super) fn fill_values_each(&self, range: Range<u64>, out: &mut [u8]) {
        if range.is_empty() {
            return;
        }
        let layout = &self.layout;
        let words = self.region.atomics::<AtomicU64>();
        let cells = layout.cells as u64;
        let record = layout.record();
        let pair = range.start >> 1;
        let mut cop = (pair / cells) as usize;
        let mut thief = (pair % cells) as usize;
        let mut thief_moves = range.start & 1 == 1;
        let mut base = cop * record;
        let len = (range.end - range.start) as usize;
        // The four words holding the current thief cell's bits, loaded once
        // per word (neighbouring thief cells mostly share a word), and the
        // output byte built in a register.
        let row = layout.words;
        let mut current = usize::MAX;
        let mut bits = [0u64; KINDS];
        let mut byte = 0u8;
        for i in 0..len {
            let bit = layout.pos[thief] as usize;
            let at = base + bit / 64;
            if at != current {
                current = at;
                for (kind, b) in bits.iter_mut().enumerate() {
                    *b = words[at + kind * row].load(Relaxed);
                }
            }
            let (win, loss) = if thief_moves { (TW, TL) } else { (CW, CL) };
            let shift = bit % 64;
            let w = (bits[win] >> shift) & 1;
            let l = (bits[loss] >> shift) & 1;
            // WIN first, as in `outcome_in` (both bits are never set).
            let code = (w | ((l & !w) << 1)) as u8;
            byte |= code << (2 * (i % 4));
            if i % 4 == 3 {
                out[i / 4] = byte;
                byte = 0;
            }
            if thief_moves {
                thief += 1;
                if thief == layout.cells {
                    thief = 0;
                    cop += 1;
                    base = cop * record;
                }
            }
            thief_moves = !thief_moves;
        }
        if !len.is_multiple_of(4) {
            out[len / 4] = byte;
        }
    }

    /// WIN / LOSS / DRAW counts over the cop-to-move (even) and the
    /// thief-to-move (odd) states: popcounts of the bitsets (bits outside
    /// free cells, and terminal positions the rules exclude, are never set).
    pub(in crate::solve) fn counts_by_parity(&self) -> [Counts; 2] {
        self.counts_in(0..self.layout.cells)
    }

    /// [`Bits::counts_by_parity`] over the states of cop cells `of` (a
    /// partitioned solve's band).
    pub(super) fn counts_in(&self, of: Range<usize>) -> [Counts; 2] {
        let layout = &self.layout;
        let words = self.region.atomics::<AtomicU64>();
        // Out of core, a window of cop cells at a time, released behind.
        let chunk = self.window.unwrap_or(layout.cells).max(1);
        let mut ones = [0u64; KINDS];
        for first in of.clone().step_by(chunk) {
            let cells = first..(first + chunk).min(of.end);
            let part = cells
                .clone()
                .into_par_iter()
                .map(|p| {
                    let record = &words[p * layout.record()..(p + 1) * layout.record()];
                    let mut ones = [0u64; KINDS];
                    for (kind, n) in ones.iter_mut().enumerate() {
                        *n = record[kind * layout.words..(kind + 1) * layout.words]
                            .iter()
                            .map(|w| u64::from(w.load(Relaxed).count_ones()))
                            .sum();
                    }
                    ones
                })
                .reduce(|| [0; KINDS], |a, b| std::array::from_fn(|k| a[k] + b[k]));
            ones = std::array::from_fn(|k| ones[k] + part[k]);
            self.release_cells(cells);
        }
        let per_turn = of.len() as u64 * layout.cells as u64;
        let side = |win: u64, loss: u64| Counts {
            win,
            loss,
            draw: per_turn - win - loss,
        };
        [side(ones[CW], ones[CL]), side(ones[TW], ones[TL])]
    }

    /// Out of core: how many states to read at a time (`None` in memory).
    pub(in crate::solve) fn window_states(&self) -> Option<u64> {
        self.window
            .map(|cells| cells as u64 * 2 * self.layout.cells as u64)
    }

    /// Out of core: drops the resident pages of the records of states
    /// `range`'s cop cells. A no-op in memory.
    pub(in crate::solve) fn release(&self, range: Range<u64>) {
        let per_cop = 2 * self.layout.cells as u64;
        if per_cop == 0 {
            return;
        }
        let cells = (range.start / per_cop) as usize..range.end.div_ceil(per_cop) as usize;
        self.release_cells(cells.start..cells.end.min(self.layout.cells));
    }

    /// Drops the pages of cop cells `cells`' records, and the page they
    /// share with the record before (already done with: callers go in
    /// order).
    fn release_cells(&self, cells: Range<usize>) {
        let record = self.layout.record() as u64;
        let start = (cells.start as u64 * record).saturating_sub(PAGE_WORDS);
        self.region.release(start..cells.end as u64 * record, 8);
    }
}

/// Words in a 4 KiB page: a window's release also drops the page it
/// shares with the window before (larger pages only leave a few more
/// resident).
const PAGE_WORDS: u64 = 512;

/// Bits of `x` at the set bits of `mask`, packed to the low end (BMI2's
/// `pext`): with `BMI2` the instruction, else one step per run of set bits
/// (free cells come in runs between walls).
#[inline(always)]
pub(super) fn pext<const BMI2: bool>(x: u64, mask: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if BMI2 {
        // SAFETY: only instantiated with BMI2 = true inside
        // `fill_pairs_bmi2`, which runs on CPUs with BMI2.
        return unsafe { std::arch::x86_64::_pext_u64(x, mask) };
    }
    let (mut m, mut out, mut k) = (mask, 0u64, 0u32);
    while m != 0 {
        let s = m.trailing_zeros();
        let run = (!(m >> s)).trailing_zeros();
        let ones = if run == 64 { u64::MAX } else { (1 << run) - 1 };
        out |= ((x >> s) & ones) << k;
        k += run;
        m &= !(ones << s);
    }
    out
}

/// The 16 low bits of `x` spread to every fourth bit (bit i to bit 4 i).
#[inline(always)]
pub(super) fn spread4<const BMI2: bool>(x: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if BMI2 {
        // SAFETY: as in `pext`.
        return unsafe { std::arch::x86_64::_pdep_u64(x, 0x1111_1111_1111_1111) };
    }
    let mut x = x & 0xffff;
    x = (x | (x << 24)) & 0x0000_00ff_0000_00ff;
    x = (x | (x << 12)) & 0x000f_000f_000f_000f;
    x = (x | (x << 6)) & 0x0303_0303_0303_0303;
    (x | (x << 3)) & 0x1111_1111_1111_1111
}

/// Appends bit strings to a byte buffer, 64 bits at a time.
struct BitSink<'a> {
    out: &'a mut [u8],
    at: usize,
    acc: u64,
    filled: u32,
}

impl BitSink<'_> {
    /// Appends the low `n` bits of `bits` (the bits above them are 0),
    /// `n` at most 64.
    #[inline(always)]
    fn push(&mut self, bits: u64, n: u32) {
        self.acc |= bits << self.filled;
        if self.filled + n >= 64 {
            self.out[self.at..self.at + 8].copy_from_slice(&self.acc.to_le_bytes());
            self.at += 8;
            self.acc = if self.filled == 0 {
                0
            } else {
                bits >> (64 - self.filled)
            };
            self.filled = self.filled + n - 64;
        } else {
            self.filled += n;
        }
    }

    /// Writes the bits still held (whole bytes, the last one padded with 0).
    fn finish(self) {
        let bytes = self.filled.div_ceil(8) as usize;
        self.out[self.at..self.at + bytes].copy_from_slice(&self.acc.to_le_bytes()[..bytes]);
    }
}

/// [`fill_pairs`] compiled with BMI2 (`pext`, `pdep`).
///
/// # Safety
/// The CPU must have BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2,popcnt")]
pub(super) unsafe fn fill_pairs_bmi2(bits: &Bits, range: Range<u64>, out: &mut [u8]) {
    fill_pairs::<true>(bits, range, out);
}

/// [`Bits::fill_values`] from an even state: the two states of a (cop,
/// thief) pair make a 4-bit group (cop to move in the low two bits), so
/// for each word of a cop cell's record, `pext` by the free cells' bits
/// packs each bitset's bits in thief-cell order and `spread4` interleaves
/// the four into groups, 16 thief cells (64 bits of output) at a time.
/// No division per state: one per cop row.
#[inline(always)]
pub(super) fn fill_pairs<const BMI2: bool>(bits: &Bits, range: Range<u64>, out: &mut [u8]) {
    let layout = &bits.layout;
    let words = bits.region.atomics::<AtomicU64>();
    let cells = layout.cells as u64;
    let row = layout.words;
    debug_assert!(range.start.is_multiple_of(2));
    let mut sink = BitSink {
        out,
        at: 0,
        acc: 0,
        filled: 0,
    };
    // Whole pairs; an odd end leaves the last pair's cop-to-move state.
    let (first, last) = (range.start / 2, range.end / 2);
    let mut pair = first;
    while pair < last {
        let cop = (pair / cells) as usize;
        let ta = (pair % cells) as usize;
        let tb = (cells.min(ta as u64 + last - pair)) as usize;
        let record = cop * layout.record();
        let (pa, pb) = (layout.pos[ta] as usize, layout.pos[tb - 1] as usize);
        for w in pa / 64..=pb / 64 {
            let mut m = layout.free[w];
            if w == pa / 64 {
                m &= u64::MAX << (pa % 64);
            }
            if w == pb / 64 {
                m &= u64::MAX >> (63 - pb % 64);
            }
            let load = |kind: usize| words[record + kind * row + w].load(Relaxed);
            let (cw, cl, tw, tl) = (load(CW), load(CL), load(TW), load(TL));
            // WIN first, as in `outcome_in` (both bits are never set).
            let a = pext::<BMI2>(cw, m);
            let b = pext::<BMI2>(cl & !cw, m);
            let c = pext::<BMI2>(tw, m);
            let d = pext::<BMI2>(tl & !tw, m);
            let k = m.count_ones();
            let mut done = 0;
            while done < k {
                let group = |x: u64| spread4::<BMI2>((x >> done) & 0xffff);
                let v = group(a) | group(b) << 1 | group(c) << 2 | group(d) << 3;
                sink.push(v, 4 * (k - done).min(16));
                done += 16;
            }
        }
        pair += (tb - ta) as u64;
    }
    if range.end % 2 == 1 {
        let code = outcome_in(layout, range.end - 1, |i| words[i].load(Relaxed)) as u64;
        sink.push(code, 2);
    }
    sink.finish();
}

/// Value of state `s` for the player to move, reading record words
/// through `word`.
pub(super) fn outcome_in(layout: &Layout, s: u64, word: impl Fn(usize) -> u64) -> Outcome {
    let (index, bit, thief) = layout.locate(s);
    let (win, loss) = if thief { (TW, TL) } else { (CW, CL) };
    if word(index + win * layout.words) & bit != 0 {
        Outcome::Win
    } else if word(index + loss * layout.words) & bit != 0 {
        Outcome::Loss
    } else {
        Outcome::Draw
    }
}
