//! The bit-parallel engine for the grid game ([`Engine::Bitboard`]).
//!
//! The three outcomes are two independent attractors: "the cop has won"
//! (captures, then cop-to-move states with SOME move into the set and
//! thief-to-move states with ALL moves into it) and "the thief has won"
//! (escapes, symmetrically). For each cop cell P the engine keeps four
//! bitsets over thief positions, laid out as the free cells' bounding box
//! row by row (one bit per grid position, so a thief move is a constant
//! shift), in one record per P:
//!
//! - `CW`: cop to move, the cop has won (WIN);
//! - `CL`: cop to move, the thief has won (LOSS);
//! - `TL`: thief to move, the cop has won (LOSS);
//! - `TW`: thief to move, the thief has won (WIN).
//!
//! A level is word-wide logic. A cop-to-move row of P becomes the OR (`CW`)
//! and the AND (`CL`) of the thief-to-move rows of the cells the cop can
//! move to; a thief-to-move row becomes the AND (`TL`) and the OR (`TW`) of
//! P's own cop-to-move rows shifted by each thief move, with a per-move
//! mask of the positions where that move exists (walls, the map's edge and
//! blocked diagonals). Terminal positions (exits, the capture) are masked
//! out. A bit set at level k + 1 is computed only from bits of level k or
//! less (see "Level order" below), so the level at which a state's bit sets
//! is its distance to end, exactly as in the counter engines.
//!
//! Only work that can change anything is done: a row is recomputed only
//! when a row it reads changed in the previous level, and only over the
//! word range that changed (widened by one grid row plus a column for the
//! thief's shifts). Levels still sweep the cop cells in order, so rows
//! that did not change cost one range test.
//!
//! Level order. The update is in place. Within a band of grid rows, the
//! cop rows of grid row r are computed into a staging buffer (they read the
//! thief rows of grid rows r - 1, r and r + 1, still at level k); only then
//! are the thief rows of grid row r - 1 updated (they read their own cop
//! rows, still at level k) and the staged cop rows of grid row r - 1
//! committed. Bands run in parallel; the thief rows just outside a band are
//! read from a halo copy taken between levels. A cell of row r - 1 is
//! updated as soon as the cop cells of row r that read it are staged, while
//! its rows are still in cache.
//!
//! Two levels per sweep. The level loop is bound by memory traffic (every
//! level reads each band's changed rows once), so when every band has at
//! least five grid rows, levels k and k + 1 share one pass: level k + 1
//! stages row r - 2 right after level k has updated row r - 1. It leaves
//! out the rows that read another band's rows at level k (the band's first
//! row, and its last two); after a barrier the halos hold level k, and each
//! band finishes them, reading its second row from a copy kept before
//! level k + 1 moved it on.
//!
//! Memory: four bits per (P, grid position) pair, about 0.31 bytes per
//! state on an open map with 20% walls, plus the optional distance table.

use std::ops::Range;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::checkpoint::{Due, Snapshot, State};
use super::{Counts, Progress, SolveOptions};
use crate::error::{Error, Result};
use crate::games::cops::CopsAndThief;
use crate::storage::Region;
use crate::{Dte, Outcome};

mod bands;

pub(super) use bands::banding;

/// Index of each bitset within a cop cell's record.
const CW: usize = 0;
const CL: usize = 1;
const TL: usize = 2;
const TW: usize = 3;
/// Bitsets per cop cell.
const KINDS: usize = 4;

/// Bands of grid rows per worker out of core (windows cut into bands):
/// more bands balance the uneven work of the change-restricted levels,
/// each costs a halo copy per level.
const BANDS_PER_WORKER: usize = 2;

/// Bands per worker in memory: one. With two levels per pass each band
/// also holds a second set of staging rows and a kept row, and one band
/// per worker measured as fast as two (150 x 150: x0.98 wall; Berlin_1_256:
/// x1.02, within noise) with 9 MiB (40 MiB on Berlin) less memory.
const BANDS_PER_WORKER_IN_MEMORY: usize = 1;

/// Word ranges of the rows of the two attractors: "the cop has won" (`CW`
/// or `TL`) and "the thief has won" (`CL` or `TW`). They are tracked apart:
/// the two fronts are usually in different places.
type Spans = [Span; 2];

/// A range of words `lo..hi` of a row; empty when `lo >= hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    lo: u32,
    hi: u32,
}

impl Span {
    const EMPTY: Span = Span {
        lo: u32::MAX,
        hi: 0,
    };

    fn is_empty(self) -> bool {
        self.lo >= self.hi
    }

    fn union(self, other: Span) -> Span {
        Span {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    /// Widened by `margin` words on each side, clipped to `within`.
    fn widen(self, margin: u32, within: Span) -> Span {
        if self.is_empty() {
            return Span::EMPTY;
        }
        Span {
            lo: self.lo.saturating_sub(margin).max(within.lo),
            hi: (self.hi + margin).min(within.hi),
        }
    }

    fn range(self) -> Range<usize> {
        if self.is_empty() {
            0..0
        } else {
            self.lo as usize..self.hi as usize
        }
    }
}

/// Where each state's bit lives.
pub(super) struct Layout {
    /// Free cells C.
    cells: usize,
    /// Words per bitset row.
    words: usize,
    /// Bit position of each free cell in a row.
    pos: Vec<u32>,
    /// Free cell at each bit position (`u32::MAX` elsewhere).
    id_at: Vec<u32>,
    /// First cell id of each row of the bounding box, and C at the end.
    row_cells: Vec<u32>,
    /// The words that hold cell bits.
    span: Span,
    /// Words by which a thief move can shift a bit, rounded up.
    margin: u32,
    /// Width of the bounding box: a row down is this many bits on.
    width: usize,
    /// Per word of a row: the bits of free cells (for reading a row's
    /// cells a word at a time, in cell order).
    free: Vec<u64>,
}

impl Layout {
    /// The layout of `game`'s board, cropped to its free cells' bounding box.
    pub(super) fn new(game: &CopsAndThief) -> Layout {
        let grid = &game.board().grid;
        let cells = grid.cells();
        if cells == 0 {
            return Layout {
                cells: 0,
                words: 0,
                pos: Vec::new(),
                id_at: Vec::new(),
                row_cells: vec![0],
                span: Span::EMPTY,
                margin: 0,
                width: 0,
                free: Vec::new(),
            };
        }
        let coords: Vec<(usize, usize)> = (0..cells as u32).map(|c| grid.coords(c)).collect();
        let top = coords[0].0;
        let bottom = coords[cells - 1].0;
        let left = coords.iter().map(|c| c.1).min().unwrap_or(0);
        let right = coords.iter().map(|c| c.1).max().unwrap_or(0);
        let (height, width) = (bottom - top + 1, right - left + 1);
        // A shift by a thief move reaches width + 1 bits either way; pad
        // each row with whole words so that every shifted read of a word
        // holding cells stays inside the row.
        let margin = (width + 1).div_ceil(64);
        let base = 64 * margin;
        let used = (base + height * width).div_ceil(64);
        let words = used + margin + 1;
        let pos: Vec<u32> = coords
            .iter()
            .map(|&(r, c)| (base + (r - top) * width + (c - left)) as u32)
            .collect();
        let mut id_at = vec![u32::MAX; words * 64];
        for (id, &p) in pos.iter().enumerate() {
            id_at[p as usize] = id as u32;
        }
        let mut row_cells = vec![0u32; height + 1];
        for (id, &(r, _)) in coords.iter().enumerate().rev() {
            row_cells[r - top] = id as u32;
        }
        row_cells[height] = cells as u32;
        // Rows without free cells start where the next row starts.
        for r in (0..height).rev() {
            if coords[row_cells[r] as usize].0 - top != r {
                row_cells[r] = row_cells[r + 1];
            }
        }
        let mut free = vec![0u64; words];
        for &p in &pos {
            free[p as usize / 64] |= 1 << (p % 64);
        }
        Layout {
            cells,
            words,
            free,
            pos,
            id_at,
            row_cells,
            span: Span {
                lo: margin as u32,
                hi: used as u32,
            },
            margin: margin as u32,
            width,
        }
    }

    /// Cells of the bounding box's fullest row.
    fn widest(&self) -> usize {
        (0..self.height())
            .map(|r| self.row(r).len())
            .max()
            .unwrap_or(0)
    }

    /// Rows of the bounding box.
    fn height(&self) -> usize {
        self.row_cells.len() - 1
    }

    /// Words of one cop cell's record.
    fn record(&self) -> usize {
        KINDS * self.words
    }

    /// Bytes of the bitsets.
    pub(super) fn bytes(&self) -> u64 {
        (self.cells * self.record() * 8) as u64
    }

    /// Cells of bounding-box row `r`.
    fn row(&self, r: usize) -> Range<usize> {
        self.row_cells[r] as usize..self.row_cells[r + 1] as usize
    }

    /// Cop cell, turn, row word and bit of state `s`.
    fn track(&self, s: u64) -> (usize, u64, usize, u64) {
        let pair = s >> 1;
        let (cop, thief) = (
            (pair / self.cells as u64) as usize,
            (pair % self.cells as u64) as usize,
        );
        let bit = self.pos[thief] as usize;
        (cop, s & 1, bit / 64, 1 << (bit % 64))
    }

    /// Record word index and bit of state `s` (and whether the thief moves).
    fn locate(&self, s: u64) -> (usize, u64, bool) {
        let (cop, turn, word, bit) = self.track(s);
        (cop * self.record() + word, bit, turn == 1)
    }
}

/// The solved bitsets: what a [`Solution`](super::Solution) of the
/// bitboard engine reads values from.
pub(super) struct Bits {
    layout: Layout,
    region: Region,
    /// Out of core: the most cop cells of a window, whose records (and
    /// distances) are worth keeping resident at a time.
    window: Option<usize>,
}

impl Bits {
    /// Bytes of the bitsets.
    pub(super) fn bytes(&self) -> u64 {
        self.region.bytes() as u64
    }

    fn word(&self, index: usize) -> u64 {
        self.region.atomics::<AtomicU64>()[index].load(Relaxed)
    }

    /// Value of state `s` for the player to move.
    pub(super) fn outcome(&self, s: u64) -> Outcome {
        outcome_in(&self.layout, s, |i| self.word(i))
    }

    /// Values of states `range` packed 2 bits each into `out` (every byte
    /// written, see
    /// [`Solution::fill_values`](super::Solution::fill_values)). From an
    /// even state on (as the table writer asks), whole words at a time:
    /// each word of a cop cell's four bitsets gives the codes of up to 64
    /// thief cells at once (see [`fill_pairs`]); an odd start takes the
    /// state-by-state path.
    pub(super) fn fill_values(&self, range: Range<u64>, out: &mut [u8]) {
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
    fn fill_values_each(&self, range: Range<u64>, out: &mut [u8]) {
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
    pub(super) fn counts_by_parity(&self) -> [Counts; 2] {
        let layout = &self.layout;
        let words = self.region.atomics::<AtomicU64>();
        // Out of core, a window of cop cells at a time, released behind.
        let chunk = self.window.unwrap_or(layout.cells).max(1);
        let mut ones = [0u64; KINDS];
        for first in (0..layout.cells).step_by(chunk) {
            let cells = first..(first + chunk).min(layout.cells);
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
        let per_turn = (layout.cells as u64).pow(2);
        let side = |win: u64, loss: u64| Counts {
            win,
            loss,
            draw: per_turn - win - loss,
        };
        [side(ones[CW], ones[CL]), side(ones[TW], ones[TL])]
    }

    /// Out of core: how many states to read at a time (`None` in memory).
    pub(super) fn window_states(&self) -> Option<u64> {
        self.window
            .map(|cells| cells as u64 * 2 * self.layout.cells as u64)
    }

    /// Out of core: drops the resident pages of the records of states
    /// `range`'s cop cells. A no-op in memory.
    pub(super) fn release(&self, range: Range<u64>) {
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
        let start = (cells.start as u64 * record).saturating_sub(bands::PAGE_WORDS);
        self.region.release(start..cells.end as u64 * record, 8);
    }
}

/// Bits of `x` at the set bits of `mask`, packed to the low end (BMI2's
/// `pext`): with `BMI2` the instruction, else one step per run of set bits
/// (free cells come in runs between walls).
#[inline(always)]
fn pext<const BMI2: bool>(x: u64, mask: u64) -> u64 {
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
fn spread4<const BMI2: bool>(x: u64) -> u64 {
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
unsafe fn fill_pairs_bmi2(bits: &Bits, range: Range<u64>, out: &mut [u8]) {
    fill_pairs::<true>(bits, range, out);
}

/// [`Bits::fill_values`] from an even state: the two states of a (cop,
/// thief) pair make a 4-bit group (cop to move in the low two bits), so
/// for each word of a cop cell's record, `pext` by the free cells' bits
/// packs each bitset's bits in thief-cell order and `spread4` interleaves
/// the four into groups, 16 thief cells (64 bits of output) at a time.
/// No division per state: one per cop row.
#[inline(always)]
fn fill_pairs<const BMI2: bool>(bits: &Bits, range: Range<u64>, out: &mut [u8]) {
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

fn outcome_in(layout: &Layout, s: u64, word: impl Fn(usize) -> u64) -> Outcome {
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

/// What a solve found besides the bitsets.
pub(super) struct Found {
    pub(super) levels: u32,
    pub(super) tracked_dte: Option<Dte>,
    pub(super) deepest: [Option<(Dte, u64)>; 2],
}

/// Solves `game` into bitsets: the engine's entry point.
pub(super) fn solve(
    game: &CopsAndThief,
    options: &SolveOptions<'_>,
    dte_region: Option<&Region>,
) -> Result<(Bits, Found)> {
    let layout = Layout::new(game);
    let mut region = Region::zeroed::<AtomicU64>(
        (layout.cells * layout.record()) as u64,
        &options.backing,
        "bitsets",
    )?;
    let dte = dte_region.map(Region::atomics::<AtomicU16>);
    let mut window = None;
    let found = super::thread_pool(options.threads)?.install(|| {
        let threads = rayon::current_num_threads();
        let rules = Rules::new(game, &layout);
        let mut run = Run::new(&layout, &rules, dte, options, threads);
        let (words, pager) = region.words_with_pager();
        // Out of core, windows of grid rows one at a time (unless one
        // window holds them all).
        if let super::Backing::Scratch(_) = options.backing {
            let room = options.memory_limit.unwrap_or(super::DEFAULT_WINDOW_BYTES);
            let plan = banding(&layout, dte.is_some(), threads, room).map_err(|minimum| {
                Error::TooLarge {
                    what: "an out-of-core bitboard solve (one window of grid rows, its halo rows and the engine's buffers)".to_string(),
                    needed: minimum,
                    available: room,
                    hint: format!("give a memory cap of at least {minimum} bytes"),
                }
            })?;
            if plan.windows.len() > 1 {
                window = Some(plan.window_cells);
                run.bands.clear();
                run.banded = Some(bands::Banded::new(&layout, plan, pager, dte_region, threads));
            }
        }
        run.run(words)
    })?;
    Ok((
        Bits {
            layout,
            region,
            window,
        },
        found,
    ))
}

/// The move structure in bit form.
struct Rules {
    /// Free, non-exit positions: where non-terminal states live.
    open: Vec<u64>,
    /// Exit positions.
    exits: Vec<u64>,
    /// Positions whose thief has no move at all.
    stuck: Vec<u64>,
    /// Each thief move: its shift in bits and where it exists.
    thief: Vec<(isize, Vec<u64>)>,
    /// The cells each cop cell can move to (the cell itself for a pass).
    cop: Vec<Vec<u32>>,
}

impl Rules {
    fn new(game: &CopsAndThief, layout: &Layout) -> Rules {
        let grid = &game.board().grid;
        let row = || vec![0u64; layout.words];
        let set = |row: &mut [u64], bit: u32| row[bit as usize / 64] |= 1 << (bit % 64);
        let (mut open, mut exits, mut stuck) = (row(), row(), row());
        let mut thief: Vec<((i64, i64), Vec<u64>)> = Vec::new();
        for cell in 0..layout.cells as u32 {
            let bit = layout.pos[cell as usize];
            if game.board().exits[cell as usize] {
                set(&mut exits, bit);
            } else {
                set(&mut open, bit);
            }
            let moves = game.thief_targets(cell);
            if moves.is_empty() {
                set(&mut stuck, bit);
            }
            let (r, c) = grid.coords(cell);
            for &to in moves {
                let (tr, tc) = grid.coords(to);
                let step = (tr as i64 - r as i64, tc as i64 - c as i64);
                let k = match thief.iter().position(|(s, _)| *s == step) {
                    Some(k) => k,
                    None => {
                        thief.push((step, row()));
                        thief.len() - 1
                    }
                };
                set(&mut thief[k].1, bit);
            }
        }
        let width = layout.width as i64;
        Rules {
            open,
            exits,
            stuck,
            thief: thief
                .into_iter()
                .map(|((dr, dc), mask)| ((dr * width + dc) as isize, mask))
                .collect(),
            cop: (0..layout.cells as u32)
                .map(|p| game.cop_targets(p).to_vec())
                .collect(),
        }
    }
}

/// Decisions of one level (or part of it).
#[derive(Clone, Copy)]
struct Stats {
    count: u64,
    /// Smallest state decided, per side (`u64::MAX` when none).
    witness: [u64; 2],
    /// Whether the tracked state (the start) was decided.
    tracked: bool,
}

impl Stats {
    const NONE: Stats = Stats {
        count: 0,
        witness: [u64::MAX; 2],
        tracked: false,
    };

    fn merge(self, other: Stats) -> Stats {
        Stats {
            count: self.count + other.count,
            witness: [
                self.witness[0].min(other.witness[0]),
                self.witness[1].min(other.witness[1]),
            ],
            tracked: self.tracked || other.tracked,
        }
    }
}

/// A copy of the thief rows of one grid row just outside a band.
struct Halo {
    cells: Range<usize>,
    /// `TL` then `TW` of each cell, `2 * words` per cell.
    words: Vec<u64>,
    /// The word ranges of each cell's thief rows (`TL`, `TW`) that changed
    /// last level.
    changed: Vec<Spans>,
}

impl Halo {
    fn new(layout: &Layout, row: usize) -> Halo {
        let cells = layout.row(row);
        Halo {
            words: vec![0; cells.len() * 2 * layout.words],
            changed: vec![[Span::EMPTY; 2]; cells.len()],
            cells,
        }
    }

    /// Copies its rows whole, and their changed ranges, from a band's
    /// records (`records` and `changed` indexed from cop cell `first`).
    fn copy_from(&mut self, layout: &Layout, records: &[u64], changed: &[Spans], first: usize) {
        let l = layout.words;
        for (i, p) in self.cells.clone().enumerate() {
            let local = p - first;
            self.changed[i] = changed[local];
            let record = &records[local * layout.record()..(local + 1) * layout.record()];
            self.words[2 * i * l..2 * (i + 1) * l].copy_from_slice(&record[TL * l..(TW + 1) * l]);
        }
    }

    /// Copies the ranges that changed last level from the records.
    fn refresh(&mut self, layout: &Layout, records: &[u64], changed: &[Spans]) {
        let l = layout.words;
        for (i, p) in self.cells.clone().enumerate() {
            let spans = changed[p];
            self.changed[i] = spans;
            let record = &records[p * layout.record()..(p + 1) * layout.record()];
            for (k, kind) in [TL, TW].into_iter().enumerate() {
                let range = spans[k].range();
                let to = &mut self.words[(2 * i + k) * l..(2 * i + k + 1) * l];
                to[range.clone()].copy_from_slice(&record[kind * l..(kind + 1) * l][range]);
            }
        }
    }
}

/// A band of grid rows solved by one task per level, with its buffers.
struct Band {
    rows: Range<usize>,
    cells: Range<usize>,
    above: Option<Halo>,
    below: Option<Halo>,
    /// Staged cop rows of two grid rows (`CW` then `CL` per cell) and
    /// their word ranges.
    staged: [Vec<u64>; 2],
    staged_span: [Vec<Spans>; 2],
    /// The same for the second level of a two-level sweep.
    staged_next: [Vec<u64>; 2],
    staged_next_span: [Vec<Spans>; 2],
    /// Two-level sweeps with a band above: the thief rows of the band's
    /// second grid row at the first level, kept for the second level's
    /// update of the first grid row (done after the halos are refreshed).
    keep: Option<Halo>,
    /// Scratch rows for the thief update.
    scratch: Vec<u64>,
}

impl Band {
    /// A band over grid rows `rows` with its halos and with staging
    /// buffers for rows of up to `widest` cells.
    fn new(
        layout: &Layout,
        widest: usize,
        rows: Range<usize>,
        above: Option<Halo>,
        below: Option<Halo>,
    ) -> Band {
        let l = layout.words;
        Band {
            cells: layout.row_cells[rows.start] as usize..layout.row_cells[rows.end] as usize,
            rows,
            above,
            below,
            staged: [vec![0; widest * 2 * l], vec![0; widest * 2 * l]],
            staged_span: [
                vec![[Span::EMPTY; 2]; widest],
                vec![[Span::EMPTY; 2]; widest],
            ],
            staged_next: [Vec::new(), Vec::new()],
            staged_next_span: [Vec::new(), Vec::new()],
            keep: None,
            scratch: vec![0; 2 * l],
        }
    }
}

/// What a step of a band's sweep reads and writes besides the staging
/// buffers: the band's records and changed ranges, its halos and scratch.
struct RowsOf<'b> {
    records: &'b mut [u64],
    cop_changed: &'b mut [Spans],
    thief_changed: &'b mut [Spans],
    /// The band's first cop cell (the records are indexed from it).
    first: usize,
    above: Option<&'b Halo>,
    below: Option<&'b Halo>,
    kept: Option<&'b Halo>,
    /// Whether staging reads the kept copy instead of the records.
    keep: bool,
    scratch: &'b mut [u64],
}

/// The staging buffers of one level's sweep (two grid rows).
struct Slots<'b> {
    staged: &'b mut [Vec<u64>; 2],
    spans: &'b mut [Vec<Spans>; 2],
}

/// Which steps of a band the next level of a two-level sweep does in its
/// first part.
struct NextSteps {
    /// First row staged and updated.
    first: usize,
    last_staged: usize,
    last_updated: usize,
    /// Whether a band lies above.
    top: bool,
}

impl Band {
    /// The band's buffers for a step: those of this level, or (`next`)
    /// of the next level of a two-level sweep.
    fn parts<'b>(
        &'b mut self,
        records: &'b mut [u64],
        cop_changed: &'b mut [Spans],
        thief_changed: &'b mut [Spans],
        next: bool,
    ) -> (RowsOf<'b>, Slots<'b>) {
        let (staged, spans) = if next {
            (&mut self.staged_next, &mut self.staged_next_span)
        } else {
            (&mut self.staged, &mut self.staged_span)
        };
        (
            RowsOf {
                records,
                cop_changed,
                thief_changed,
                first: self.cells.start,
                above: self.above.as_ref(),
                below: self.below.as_ref(),
                kept: self.keep.as_ref(),
                keep: false,
                scratch: &mut self.scratch,
            },
            Slots { staged, spans },
        )
    }

    /// Whether the band can run two-level sweeps: the next level's first
    /// part must leave out its first row (a band above) and last two rows
    /// (a band below) and still keep them apart.
    fn two_levels_fit(&self) -> bool {
        self.rows.len() >= 5
    }

    /// Allocates the buffers of two-level sweeps.
    fn enable_two_levels(&mut self, layout: &Layout, widest: usize) {
        let l = layout.words;
        self.staged_next = [vec![0; widest * 2 * l], vec![0; widest * 2 * l]];
        self.staged_next_span = [
            vec![[Span::EMPTY; 2]; widest],
            vec![[Span::EMPTY; 2]; widest],
        ];
        if self.above.is_some() {
            self.keep = Some(Halo::new(layout, self.rows.start + 1));
        }
    }
}

/// The per-level state of a solve.
struct Run<'a> {
    layout: &'a Layout,
    rules: &'a Rules,
    dte: Option<&'a [AtomicU16]>,
    options: &'a SolveOptions<'a>,
    bands: Vec<Band>,
    /// Per cop cell: words of its cop rows (`CW`, `CL`) and of its thief
    /// rows (`TL`, `TW`) changed last level.
    cop_changed: Vec<Spans>,
    thief_changed: Vec<Spans>,
    /// Out of core: the windows of grid rows worked on one at a time.
    banded: Option<bands::Banded<'a>>,
    /// Whether levels go two at a time (every band is tall enough).
    two_levels: bool,
    /// The tracked state (the start) as [`Context::track`] wants it.
    track: Option<(usize, u64, usize, u64)>,
}

impl<'a> Run<'a> {
    fn new(
        layout: &'a Layout,
        rules: &'a Rules,
        dte: Option<&'a [AtomicU16]>,
        options: &'a SolveOptions<'a>,
        threads: usize,
    ) -> Run<'a> {
        let height = layout.height();
        let wanted = if threads <= 1 {
            1
        } else {
            threads * BANDS_PER_WORKER_IN_MEMORY
        };
        // Cut at grid rows so that bands hold about equal numbers of cells.
        let mut cuts = vec![0];
        for k in 1..wanted {
            let target = (layout.cells * k / wanted) as u32;
            let r = layout
                .row_cells
                .partition_point(|&c| c < target)
                .min(height);
            if r > *cuts.last().unwrap_or(&0) && r < height {
                cuts.push(r);
            }
        }
        cuts.push(height);
        let widest = layout.widest();
        let bands = cuts
            .windows(2)
            .filter(|w| w[0] < w[1])
            .map(|w| {
                Band::new(
                    layout,
                    widest,
                    w[0]..w[1],
                    (w[0] > 0).then(|| Halo::new(layout, w[0] - 1)),
                    (w[1] < height).then(|| Halo::new(layout, w[1])),
                )
            })
            .collect::<Vec<Band>>();
        Run {
            layout,
            rules,
            dte,
            options,
            two_levels: !bands.is_empty() && bands.iter().all(Band::two_levels_fit),
            bands,
            cop_changed: vec![[layout.span; 2]; layout.cells],
            thief_changed: vec![[layout.span; 2]; layout.cells],
            banded: None,
            track: options
                .track
                .filter(|&t| t < 2 * (layout.cells as u64).pow(2))
                .map(|t| layout.track(t)),
        }
    }

    fn run(&mut self, words: &mut [u64]) -> Result<Found> {
        let layout = self.layout;
        let n = 2 * (layout.cells as u64).pow(2);
        let mut found = Found {
            levels: 0,
            tracked_dte: None,
            deepest: [None; 2],
        };
        let mut decided = 0;
        // The last level done, and the stats of the levels just done (the
        // last of them `level`), still to be accounted; none when resuming
        // (the checkpoint holds them accounted).
        let mut level = 0u32;
        let mut pending = match self.options.resume {
            None => vec![self.start(words)],
            Some(checkpoint) => {
                let state = self.restore(checkpoint, words)?;
                self.release_all();
                level = state.level;
                decided = state.decided;
                found.tracked_dte = state.tracked.map(Dte);
                found.deepest = state.deepest.map(|d| d.map(|(dte, s)| (Dte(dte), s)));
                Vec::new()
            }
        };
        let last = loop {
            let first = level + 1 - pending.len() as u32;
            let mut quiet = None;
            for (at, in_level) in (first..).zip(&pending) {
                if let Some(t) = self.options.track {
                    // Level 0 sets no flags: look at the bits.
                    let now = if at == 0 {
                        outcome_in(layout, t, |i| words[i]) != Outcome::Draw
                    } else {
                        in_level.tracked
                    };
                    if found.tracked_dte.is_none() && now {
                        found.tracked_dte = Some(Dte(at));
                    }
                }
                decided += in_level.count;
                for (deepest, &witness) in found.deepest.iter_mut().zip(&in_level.witness) {
                    if witness != u64::MAX {
                        *deepest = Some((Dte(at), witness));
                    }
                }
                if let Some(observe) = self.options.observer {
                    observe(&Progress {
                        level: at,
                        sweeping: false,
                        decided_in_level: in_level.count,
                        decided,
                        states: n,
                    });
                }
                if in_level.count == 0 {
                    quiet = Some(at);
                    break;
                }
            }
            if let Some(at) = quiet {
                break at;
            }
            if !pending.is_empty() {
                if let Some(sink) = self.options.checkpoint {
                    let due = sink.poll(level);
                    if due != Due::No {
                        sink.save(&self.snapshot(words, level, decided, &found))?;
                        self.release_all();
                    }
                    if due == Due::SaveAndStop {
                        return Err(Error::Stopped { level });
                    }
                }
            }
            pending = self.step(words, level + 1);
            level += pending.len() as u32;
        };
        found.levels = last.saturating_sub(1);
        Ok(found)
    }

    /// The state between levels, for a checkpoint.
    fn snapshot<'w>(
        &self,
        words: &'w [u64],
        level: u32,
        decided: u64,
        found: &Found,
    ) -> Snapshot<'w>
    where
        'a: 'w,
    {
        let spans = self
            .cop_changed
            .iter()
            .chain(&self.thief_changed)
            .map(|s| [s[0].lo, s[0].hi, s[1].lo, s[1].hi])
            .collect();
        Snapshot {
            state: State {
                level,
                decided,
                tracked: found.tracked_dte.map(|d| d.0),
                deepest: found.deepest.map(|d| d.map(|(dte, s)| (dte.0, s))),
                cells: self.layout.cells as u64,
                row_words: self.layout.words as u64,
            },
            words,
            spans,
            dte: self.dte,
        }
    }

    /// Loads a checkpoint's bitsets, changed ranges, distances and halos.
    fn restore(&mut self, checkpoint: &super::Checkpoint, words: &mut [u64]) -> Result<State> {
        let layout = self.layout;
        let state = checkpoint.state;
        let misfit = |message: String| Error::Checkpoint {
            path: std::path::PathBuf::from("checkpoint"),
            offset: 0,
            message,
        };
        if state.cells != layout.cells as u64
            || state.row_words != layout.words as u64
            || checkpoint.words.len() != words.len()
            || checkpoint.spans.len() != 2 * layout.cells
        {
            return Err(misfit(format!(
                "made for a board of {} free cells ({} words a row), this one has {} ({})",
                state.cells, state.row_words, layout.cells, layout.words
            )));
        }
        match (&checkpoint.dte, self.dte) {
            (Some(from), Some(to)) if from.len() == to.len() => {
                for (t, &f) in to.iter().zip(from) {
                    t.store(f, Relaxed);
                }
            }
            (None, None) => {}
            _ => {
                return Err(misfit(
                    "the distance table setting differs (--dte-table / --dump)".to_string(),
                ))
            }
        }
        words.copy_from_slice(&checkpoint.words);
        let span = |lo: u32, hi: u32| Span { lo, hi };
        let (cop, thief) = checkpoint.spans.split_at(layout.cells);
        for (to, s) in self.cop_changed.iter_mut().zip(cop) {
            *to = [span(s[0], s[1]), span(s[2], s[3])];
        }
        for (to, s) in self.thief_changed.iter_mut().zip(thief) {
            *to = [span(s[0], s[1]), span(s[2], s[3])];
        }
        // The halos hold whole rows: copy them in full, then take the
        // changed ranges of the checkpoint's level.
        let full = vec![[layout.span; 2]; layout.cells];
        for band in &mut self.bands {
            for halo in [&mut band.above, &mut band.below].into_iter().flatten() {
                halo.refresh(layout, words, &full);
                for (i, p) in halo.cells.clone().enumerate() {
                    halo.changed[i] = self.thief_changed[p];
                }
            }
        }
        Ok(state)
    }

    /// Level 0: captures, escapes and players without a move.
    fn initialise(&mut self, words: &mut [u64]) -> Stats {
        let layout = self.layout;
        let rules = self.rules;
        if layout.cells == 0 {
            return Stats::NONE;
        }
        let count: u64 = words
            .par_chunks_mut(layout.record())
            .enumerate()
            .map(|(p, record)| init_record(layout, rules, p, record))
            .sum();
        for band in &mut self.bands {
            for halo in [&mut band.above, &mut band.below].into_iter().flatten() {
                halo.refresh(layout, words, &self.thief_changed);
            }
        }
        // Every cop cell's captures are decided: the smallest states of
        // each side are cop cell 0's, thief cell 0.
        Stats {
            count,
            witness: [0, 1],
            tracked: false,
        }
    }

    /// One level: every band in parallel, then the halos.
    fn level(&mut self, words: &mut [u64], level: u32) -> Stats {
        let ctx = self.context(level);
        let stats = self
            .parts(words)
            .into_par_iter()
            .map(|(band, records, cop, thief)| {
                band_work(&ctx, Work::Level, band, records, cop, thief)[0]
            })
            .reduce(|| Stats::NONE, Stats::merge);
        self.refresh_halos(words);
        stats
    }
}

impl<'a> Run<'a> {
    /// Two levels, `level` and the next, in two parts: every band sweeps
    /// both levels (the second leaving out the rows next to other bands),
    /// the halos take the first level, every band finishes the second,
    /// and the halos take it. Each band's rows are read from memory once
    /// for both levels.
    fn two_levels(&mut self, words: &mut [u64], level: u32) -> [Stats; 2] {
        let layout = self.layout;
        if self.bands.iter().any(|band| band.staged_next[0].is_empty()) {
            let widest = layout.widest();
            for band in &mut self.bands {
                band.enable_two_levels(layout, widest);
            }
        }
        let ctx = self.context(level);
        let next = Context {
            level: level + 1,
            ..ctx
        };
        let stats = self
            .parts(words)
            .into_par_iter()
            .map(|(band, records, cop, thief)| {
                band_work(&ctx, Work::Sweep(&next), band, records, cop, thief)
            })
            .reduce(
                || [Stats::NONE; 2],
                |a, b| [a[0].merge(b[0]), a[1].merge(b[1])],
            );
        self.refresh_halos(words);
        let finish = self
            .parts(words)
            .into_par_iter()
            .map(|(band, records, cop, thief)| {
                band_work(&next, Work::Finish, band, records, cop, thief)[0]
            })
            .reduce(|| Stats::NONE, Stats::merge);
        self.refresh_halos(words);
        [stats[0], stats[1].merge(finish)]
    }

    /// What every band reads during level `level`.
    fn context(&self, level: u32) -> Context<'a> {
        Context {
            layout: self.layout,
            rules: self.rules,
            dte: self.dte,
            level,
            track: self.track,
        }
    }

    /// Each band with its records and changed ranges.
    fn parts<'w>(&'w mut self, words: &'w mut [u64]) -> Vec<BandParts<'w>> {
        split_bands(
            &mut self.bands,
            self.layout.record(),
            words,
            &mut self.cop_changed,
            &mut self.thief_changed,
        )
    }

    /// Copies the changed ranges of the rows just outside each band into
    /// its halos.
    fn refresh_halos(&mut self, words: &[u64]) {
        let (layout, thief_changed) = (self.layout, &self.thief_changed);
        self.bands.par_iter_mut().for_each(|band| {
            for halo in [&mut band.above, &mut band.below].into_iter().flatten() {
                halo.refresh(layout, words, thief_changed);
            }
        });
    }
}

/// A band with its records and the changed ranges of its cop cells.
type BandParts<'w> = (
    &'w mut Band,
    &'w mut [u64],
    &'w mut [Spans],
    &'w mut [Spans],
);

/// Cuts consecutive cop cells' `words` (`record` words each) and changed
/// ranges into the parts of `bands`, which cover them in order.
fn split_bands<'w>(
    bands: &'w mut [Band],
    record: usize,
    words: &'w mut [u64],
    cop_changed: &'w mut [Spans],
    thief_changed: &'w mut [Spans],
) -> Vec<BandParts<'w>> {
    let mut parts = Vec::with_capacity(bands.len());
    let (mut rest, mut cop_rest, mut thief_rest) = (words, cop_changed, thief_changed);
    for band in bands {
        let len = band.cells.len();
        let (mine, more) = rest.split_at_mut(len * record);
        let (cop_mine, cop_more) = cop_rest.split_at_mut(len);
        let (thief_mine, thief_more) = thief_rest.split_at_mut(len);
        parts.push((band, mine, cop_mine, thief_mine));
        (rest, cop_rest, thief_rest) = (more, cop_more, thief_more);
    }
    parts
}

/// What a band does in a parallel step (see [`band_work`]).
#[derive(Clone, Copy)]
enum Work<'c, 'a> {
    /// One level ([`Context::band`]).
    Level,
    /// The first part of a two-level sweep, with the next level's context
    /// ([`Context::sweep_band`]).
    Sweep(&'c Context<'a>),
    /// The second part ([`Context::finish_band`], at the context's level).
    Finish,
}

/// One band's part of a parallel step, compiled for AVX2 and AVX-512 as
/// well as the baseline and chosen at run time (the word loops are
/// vectorised, the counts use `popcnt`). Returns the stats of the step's
/// levels (the second is empty for one level).
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+popcnt+bmi1+bmi2+lzcnt",
    "x86_64+avx2+popcnt+bmi1+bmi2+lzcnt"
))]
fn band_work<'c, 'a>(
    ctx: &Context<'a>,
    work: Work<'c, 'a>,
    band: &mut Band,
    records: &mut [u64],
    cop_changed: &mut [Spans],
    thief_changed: &mut [Spans],
) -> [Stats; 2] {
    match work {
        Work::Level => [
            ctx.band(band, records, cop_changed, thief_changed),
            Stats::NONE,
        ],
        Work::Sweep(next) => ctx.sweep_band(next, band, records, cop_changed, thief_changed),
        Work::Finish => [
            ctx.finish_band(band, records, cop_changed, thief_changed),
            Stats::NONE,
        ],
    }
}

/// What every band reads during a level.
struct Context<'a> {
    layout: &'a Layout,
    rules: &'a Rules,
    dte: Option<&'a [AtomicU16]>,
    level: u32,
    /// The state whose deciding level is reported (the start), as cop
    /// cell, turn, row word and bit.
    track: Option<(usize, u64, usize, u64)>,
}

impl Context<'_> {
    /// One level over one band, in place (see the module docs for why the
    /// staging keeps the levels apart).
    #[inline(always)]
    fn band(
        &self,
        band: &mut Band,
        records: &mut [u64],
        cop_changed: &mut [Spans],
        thief_changed: &mut [Spans],
    ) -> Stats {
        let mut stats = Stats::NONE;
        let rows = band.rows.clone();
        let (mut at, mut slots) = band.parts(records, cop_changed, thief_changed, false);
        for r in rows.start..=rows.end {
            self.row_step(
                &mut at,
                &mut slots,
                r,
                r < rows.end,
                r > rows.start,
                &mut stats,
            );
        }
        stats
    }

    /// The first part of a two-level sweep over one band: this level (as
    /// [`Context::band`]) with the next level (`next`) two grid rows
    /// behind it, while the rows it reads are still in cache. The next
    /// level leaves out the grid rows that read a neighbouring band's
    /// rows of this level ([`Context::finish_band`] does them once the
    /// halos hold this level).
    #[inline(always)]
    fn sweep_band(
        &self,
        next: &Context<'_>,
        band: &mut Band,
        records: &mut [u64],
        cop_changed: &mut [Spans],
        thief_changed: &mut [Spans],
    ) -> [Stats; 2] {
        let mut stats = [Stats::NONE; 2];
        let rows = band.rows.clone();
        let (top, bottom) = (band.above.is_some(), band.below.is_some());
        // The next level's steps: staging row r and updating row r - 1.
        let first = rows.start + usize::from(top);
        let last_staged = rows.end - 1 - usize::from(bottom);
        let last_updated = rows.end - 1 - 2 * usize::from(bottom);
        let plan = NextSteps {
            first,
            last_staged,
            last_updated,
            top,
        };
        let steps = first..last_updated + 2;
        for r in rows.start..=rows.end {
            let (mut at, mut slots) = band.parts(records, cop_changed, thief_changed, false);
            self.row_step(
                &mut at,
                &mut slots,
                r,
                r < rows.end,
                r > rows.start,
                &mut stats[0],
            );
            // The next level stages row r - 2 once this level has updated
            // the thief rows of row r - 1 (during step r).
            if r >= 2 && steps.contains(&(r - 2)) {
                next.next_step(
                    &plan,
                    band,
                    records,
                    cop_changed,
                    thief_changed,
                    r - 2,
                    &mut stats[1],
                );
            }
        }
        for r in (rows.end.saturating_sub(1)).max(steps.start)..steps.end {
            next.next_step(
                &plan,
                band,
                records,
                cop_changed,
                thief_changed,
                r,
                &mut stats[1],
            );
        }
        stats
    }

    /// Step `r` of the next level in [`Context::sweep_band`].
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn next_step(
        &self,
        plan: &NextSteps,
        band: &mut Band,
        records: &mut [u64],
        cop_changed: &mut [Spans],
        thief_changed: &mut [Spans],
        r: usize,
        stats: &mut Stats,
    ) {
        if plan.top && r == band.rows.start + 2 {
            // The band's second row is about to move on a level: keep it
            // for the first row's update.
            let first = band.cells.start;
            let keep = band.keep.as_mut().expect("a two-level band below another");
            keep.copy_from(self.layout, records, thief_changed, first);
        }
        let (mut at, mut slots) = band.parts(records, cop_changed, thief_changed, true);
        let update = r > plan.first && r - 1 <= plan.last_updated;
        self.row_step(&mut at, &mut slots, r, r <= plan.last_staged, update, stats);
    }

    /// The second part of a two-level sweep over one band, at the next
    /// level, once the halos hold the first level: the last two grid rows
    /// (when a band lies below) and the first one (when a band lies
    /// above, reading its second row from the copy kept before it moved
    /// on).
    #[inline(always)]
    fn finish_band(
        &self,
        band: &mut Band,
        records: &mut [u64],
        cop_changed: &mut [Spans],
        thief_changed: &mut [Spans],
    ) -> Stats {
        let mut stats = Stats::NONE;
        let rows = band.rows.clone();
        let (top, bottom) = (band.above.is_some(), band.below.is_some());
        let (mut at, mut slots) = band.parts(records, cop_changed, thief_changed, true);
        if bottom {
            self.row_step(&mut at, &mut slots, rows.end - 1, true, true, &mut stats);
            self.row_step(&mut at, &mut slots, rows.end, false, true, &mut stats);
        }
        if top {
            at.keep = true;
            self.row_step(&mut at, &mut slots, rows.start, true, false, &mut stats);
            at.keep = false;
            self.row_step(&mut at, &mut slots, rows.start + 1, false, true, &mut stats);
        }
        stats
    }

    /// One step of a level's sweep over a band: stages the cop rows of
    /// grid row `r` (when `stage`) and updates the thief rows and commits
    /// the cop rows of grid row r - 1 (when `update`).
    ///
    /// A cell of row r - 1 is updated as soon as the last cop cell of row
    /// r that reads it is staged: the cop cells of the next row read it
    /// from at most one column away, so it is ready once a cell two
    /// columns right of it is staged. Done that early, its rows are still
    /// in cache from the staging.
    #[inline(always)]
    fn row_step(
        &self,
        at: &mut RowsOf<'_>,
        slots: &mut Slots<'_>,
        r: usize,
        stage: bool,
        update: bool,
        stats: &mut Stats,
    ) {
        let layout = self.layout;
        let l = layout.words;
        let behind = if update { layout.row(r - 1) } else { 0..0 };
        let mut next = behind.start;
        // Row r stages into one slot while row r - 1 commits from the
        // other.
        let ([even], [odd]) = slots.staged.split_at_mut(1) else {
            unreachable!("two staging slots")
        };
        let ([even_span], [odd_span]) = slots.spans.split_at_mut(1) else {
            unreachable!("two staging slots")
        };
        let (out, out_span, done, done_span) = if r & 1 == 0 {
            (even, even_span, odd, &*odd_span)
        } else {
            (odd, odd_span, even, &*even_span)
        };
        if stage {
            for (i, p) in layout.row(r).enumerate() {
                let thief_rows = ThiefRows {
                    records: &*at.records,
                    changed: &*at.thief_changed,
                    first: at.first,
                    above: at.above,
                    below: at.below,
                    keep: if at.keep { at.kept } else { None },
                    record: layout.record(),
                    words: l,
                };
                out_span[i] = self.cop_rows(p, &thief_rows, &mut out[i * 2 * l..(i + 1) * 2 * l]);
                let reach = layout.pos[p] as usize;
                while next < behind.end && layout.pos[next] as usize + layout.width < reach {
                    self.update_cell(at, next, next - behind.start, done, done_span, stats);
                    next += 1;
                }
            }
        }
        for q in next..behind.end {
            self.update_cell(at, q, q - behind.start, done, done_span, stats);
        }
    }

    /// Updates the thief rows of cop cell `q` (the `i`-th of its grid
    /// row) and commits its staged cop rows from `staged` / `spans`.
    #[inline(always)]
    fn update_cell(
        &self,
        at: &mut RowsOf<'_>,
        q: usize,
        i: usize,
        staged: &mut [u64],
        spans: &[Spans],
        stats: &mut Stats,
    ) {
        let layout = self.layout;
        let (l, local) = (layout.words, q - at.first);
        let record = &mut at.records[local * layout.record()..(local + 1) * layout.record()];
        let (span, s) = self.thief_rows(q, record, at.cop_changed[local], at.scratch);
        at.thief_changed[local] = span;
        *stats = stats.merge(s);
        let staged = &mut staged[i * 2 * l..(i + 1) * 2 * l];
        let (span, s) = self.commit_cop_rows(q, record, staged, spans[i]);
        at.cop_changed[local] = span;
        *stats = stats.merge(s);
    }

    /// Computes cop cell `p`'s new cop-to-move rows (`CW` then `CL`, in
    /// `out`) over the words where a row they read changed last level.
    ///
    /// `CW` is an OR, so it only needs the words of each target's `TL`
    /// that changed (the others are in `CW` already); `CL` is an AND and
    /// needs every target over the union of the changed words.
    #[inline(always)]
    fn cop_rows(&self, p: usize, thief_rows: &ThiefRows<'_>, out: &mut [u64]) -> Spans {
        let l = self.layout.words;
        let targets = &self.rules.cop[p];
        let mut spans = [Span::EMPTY; 2];
        for &to in targets {
            let changed = thief_rows.changed(to as usize);
            spans[0] = spans[0].union(changed[0]);
            spans[1] = spans[1].union(changed[1]);
        }
        let (win, loss) = out.split_at_mut(l);
        if !spans[0].is_empty() {
            win[spans[0].range()].fill(0);
            for &to in targets {
                let range = thief_rows.changed(to as usize)[0].range();
                let tl = thief_rows.row(to as usize, 0);
                for (w, &a) in win[range.clone()].iter_mut().zip(&tl[range]) {
                    *w |= a;
                }
            }
        }
        if !spans[1].is_empty() {
            let range = spans[1].range();
            let loss = &mut loss[range.clone()];
            loss.fill(!0);
            for &to in targets {
                let tw = thief_rows.row(to as usize, 1);
                for (l, &b) in loss.iter_mut().zip(&tw[range.clone()]) {
                    *l &= b;
                }
            }
        }
        spans
    }

    /// Commits staged cop rows into the record of cop cell `p`.
    #[inline(always)]
    fn commit_cop_rows(
        &self,
        p: usize,
        record: &mut [u64],
        staged: &mut [u64],
        spans: Spans,
    ) -> (Spans, Stats) {
        let l = self.layout.words;
        let bit = self.layout.pos[p] as usize;
        let mut changed = [Span::EMPTY; 2];
        let mut stats = Stats::NONE;
        for (k, kind) in [CW, CL].into_iter().enumerate() {
            let range = spans[k].range();
            let row = &mut record[kind * l..(kind + 1) * l][range.clone()];
            let staged = &mut staged[k * l..(k + 1) * l];
            // The capture (cop on the thief) is decided at level 0.
            if range.contains(&(bit / 64)) {
                staged[bit / 64] &= !(1u64 << (bit % 64));
            }
            let staged = &mut staged[range.clone()];
            changed[k] = self.merge_new(p, 0, range.start, row, staged, &mut stats);
        }
        (changed, stats)
    }

    /// Updates cop cell `p`'s thief-to-move rows from its cop-to-move rows
    /// (not yet committed this level), over the words that a thief move
    /// can carry a change of last level to.
    #[inline(always)]
    fn thief_rows(
        &self,
        p: usize,
        record: &mut [u64],
        cop_changed: Spans,
        scratch: &mut [u64],
    ) -> (Spans, Stats) {
        let layout = self.layout;
        let l = layout.words;
        let (cop, thief) = record.split_at_mut(2 * l);
        let bit = layout.pos[p] as usize;
        let mut changed = [Span::EMPTY; 2];
        let mut stats = Stats::NONE;
        // Attractor 0: TL is the AND over thief moves of the shifted CW (a
        // missing move counts as won); attractor 1: TW is the OR over
        // thief moves of the shifted CL.
        for k in 0..2 {
            let span = cop_changed[k].widen(layout.margin, layout.span);
            if span.is_empty() {
                continue;
            }
            let range = span.range();
            let len = range.len();
            let from_row = &cop[k * l..(k + 1) * l];
            let acc = &mut scratch[..len];
            acc.fill(if k == 0 { !0 } else { 0 });
            for (delta, moves) in &self.rules.thief {
                // Word w of the row shifted by `delta` bits is made of
                // words w + q and w + q + 1; the padding keeps both inside
                // the row.
                let q = delta.div_euclid(64);
                let s = delta.rem_euclid(64) as u32;
                let from = (span.lo as isize + q) as usize;
                let (low, high) = (
                    &from_row[from..from + len],
                    &from_row[from + 1..from + len + 1],
                );
                let moves = &moves[range.clone()];
                if k == 0 {
                    for (((a, &x0), &x1), &m) in acc.iter_mut().zip(low).zip(high).zip(moves) {
                        *a &= ((x0 >> s) | ((x1 << (63 - s)) << 1)) | !m;
                    }
                } else {
                    for (((a, &x0), &x1), &m) in acc.iter_mut().zip(low).zip(high).zip(moves) {
                        *a |= ((x0 >> s) | ((x1 << (63 - s)) << 1)) & m;
                    }
                }
            }
            // A thief never wins standing on the cop.
            if k == 1 && range.contains(&(bit / 64)) {
                acc[bit / 64 - range.start] &= !(1u64 << (bit % 64));
            }
            let row = &mut thief[k * l..(k + 1) * l][range.clone()];
            changed[k] = self.merge_new(p, 1, range.start, row, acc, &mut stats);
        }
        (changed, stats)
    }

    /// ORs the open bits of `new` (words `first..` of a row) into `row`,
    /// leaves in `new` the bits that were not set before, accounts for
    /// them and returns the words where there were any.
    ///
    /// The first pass only reads `row`: most words bring nothing new, and
    /// storing them anyway would dirty (and write back) every cache line
    /// of the record the level looks at.
    #[inline(always)]
    fn merge_new(
        &self,
        p: usize,
        turn: u64,
        first: usize,
        row: &mut [u64],
        new: &mut [u64],
        stats: &mut Stats,
    ) -> Span {
        let open = &self.rules.open[first..first + row.len()];
        let mut any = 0;
        for ((&r, n), &o) in row.iter().zip(new.iter_mut()).zip(open) {
            let fresh = *n & o & !r;
            *n = fresh;
            any |= fresh;
        }
        if any == 0 {
            return Span::EMPTY;
        }
        let lo = new.iter().position(|&f| f != 0).unwrap_or(0);
        let hi = new.iter().rposition(|&f| f != 0).map_or(0, |i| i + 1);
        let mut count = 0;
        for (r, &fresh) in row[lo..hi].iter_mut().zip(&new[lo..hi]) {
            if fresh != 0 {
                *r |= fresh;
            }
            count += u64::from(fresh.count_ones());
        }
        stats.count += count;
        if let Some((tp, turn_t, w, bit)) = self.track {
            if tp == p && turn_t == turn && (first + lo..first + hi).contains(&w) {
                stats.tracked |= new[w - first] & bit != 0;
            }
        }
        // States grow with the bit position: the first fresh bit is the
        // call's smallest state.
        let side = turn as usize;
        let smallest = self.state(p, first + lo, new[lo].trailing_zeros(), turn);
        stats.witness[side] = stats.witness[side].min(smallest);
        if let Some(table) = self.dte {
            let dte = self.level.min(u32::from(u16::MAX)) as u16;
            for (i, &fresh) in new[lo..hi].iter().enumerate() {
                let mut rest = fresh;
                while rest != 0 {
                    let state = self.state(p, first + lo + i, rest.trailing_zeros(), turn);
                    table[state as usize].store(dte, Relaxed);
                    rest &= rest - 1;
                }
            }
        }
        Span {
            lo: (first + lo) as u32,
            hi: (first + hi) as u32,
        }
    }

    /// The state of cop cell `p` whose thief stands at bit `bit` of row
    /// word `w`, side `turn`.
    #[inline(always)]
    fn state(&self, p: usize, w: usize, bit: u32, turn: u64) -> u64 {
        let layout = self.layout;
        let thief = layout.id_at[w * 64 + bit as usize] as u64;
        (p as u64 * layout.cells as u64 + thief) * 2 + turn
    }
}

/// The thief-to-move rows a band's cop update reads: its own records, or
/// the halo copies of the grid rows just outside it.
struct ThiefRows<'a> {
    records: &'a [u64],
    changed: &'a [Spans],
    first: usize,
    above: Option<&'a Halo>,
    below: Option<&'a Halo>,
    /// A copy of some of the band's own rows that takes precedence over
    /// the records (see [`Band::keep`]).
    keep: Option<&'a Halo>,
    record: usize,
    words: usize,
}

impl ThiefRows<'_> {
    fn halo(&self, p: usize) -> (&Halo, usize) {
        for halo in [self.above, self.below].into_iter().flatten() {
            if halo.cells.contains(&p) {
                return (halo, p - halo.cells.start);
            }
        }
        unreachable!("cop cell {p} is neither in the band nor in a halo")
    }

    /// The kept copy of cop cell `p`'s rows, if there is one.
    #[inline]
    fn kept(&self, p: usize) -> Option<(&Halo, usize)> {
        self.keep
            .filter(|keep| keep.cells.contains(&p))
            .map(|keep| (keep, p - keep.cells.start))
    }

    #[inline]
    fn changed(&self, p: usize) -> Spans {
        if let Some((keep, i)) = self.kept(p) {
            return keep.changed[i];
        }
        match p.checked_sub(self.first) {
            Some(local) if local < self.changed.len() => self.changed[local],
            _ => {
                let (halo, i) = self.halo(p);
                halo.changed[i]
            }
        }
    }

    /// Row `TL` (`k` = 0) or `TW` (`k` = 1) of cop cell `p`.
    #[inline]
    fn row(&self, p: usize, k: usize) -> &[u64] {
        let l = self.words;
        if let Some((keep, i)) = self.kept(p) {
            return &keep.words[(2 * i + k) * l..(2 * i + k + 1) * l];
        }
        match p.checked_sub(self.first) {
            Some(local) if local < self.changed.len() => {
                let start = local * self.record + (TL + k) * l;
                &self.records[start..start + l]
            }
            _ => {
                let (halo, i) = self.halo(p);
                &halo.words[(2 * i + k) * l..(2 * i + k + 1) * l]
            }
        }
    }
}

/// Level 0 of cop cell `p`'s record: captures, escapes and players
/// without a move; returns the bits set.
fn init_record(layout: &Layout, rules: &Rules, p: usize, record: &mut [u64]) -> u64 {
    let l = layout.words;
    let bit = layout.pos[p] as usize;
    let (word, mask) = (bit / 64, 1u64 << (bit % 64));
    let cop_stuck = rules.cop[p].is_empty();
    let mut ones = 0;
    for w in layout.span.range() {
        let not_here = if w == word { !mask } else { !0 };
        let here = if w == word { mask } else { 0 };
        let cl = (rules.exits[w] | if cop_stuck { rules.open[w] } else { 0 }) & not_here;
        let tl = here | (rules.stuck[w] & rules.open[w] & not_here);
        let tw = rules.exits[w] & not_here;
        record[CW * l + w] = here;
        record[CL * l + w] = cl;
        record[TL * l + w] = tl;
        record[TW * l + w] = tw;
        ones += u64::from(here.count_ones() + cl.count_ones() + tl.count_ones() + tw.count_ones());
    }
    ones
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_map, Board, Engine, Placement};

    /// A small xorshift stream: deterministic test data without a crate.
    fn stream(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// `pext` bit by bit.
    fn pext_naive(x: u64, mask: u64) -> u64 {
        let mut out = 0;
        let mut k = 0;
        for i in 0..64 {
            if mask >> i & 1 == 1 {
                out |= (x >> i & 1) << k;
                k += 1;
            }
        }
        out
    }

    #[test]
    fn bit_tricks_equal_their_definitions() {
        let mut next = stream(0x9e37_79b9_7f4a_7c15);
        for round in 0..4000 {
            let x = next();
            // Dense, sparse, full and empty masks.
            let mask = match round % 4 {
                0 => next(),
                1 => next() & next() & next(),
                2 => u64::MAX,
                _ => next() | next(),
            };
            let want = pext_naive(x, mask);
            assert_eq!(pext::<false>(x, mask), want, "{x:#x} {mask:#x}");
            let spread = (0..16).fold(0, |acc, i| acc | (x >> i & 1) << (4 * i));
            assert_eq!(spread4::<false>(x & 0xffff), spread);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("bmi2") {
                assert_eq!(pext::<true>(x, mask), want);
                assert_eq!(spread4::<true>(x & 0xffff), spread);
            }
        }
    }

    #[test]
    fn word_wise_fill_equals_the_state_by_state_one() {
        // Walls make runs of every length, and a wide map makes rows span
        // several words.
        let mut next = stream(7);
        let (rows, cols) = (9, 150);
        let mut text = format!("{rows} {cols}\n");
        for r in 0..rows {
            for c in 0..cols {
                let ch = match (r, c) {
                    (0, 0) => 'C',
                    (8, 149) => 'T',
                    _ if next().is_multiple_of(5) => '*',
                    _ if next().is_multiple_of(9) => 'E',
                    _ => '.',
                };
                text.push(ch);
            }
            text.push('\n');
        }
        let map = parse_map(text.as_bytes(), "inline").unwrap();
        let board = Board::new(&map, &Placement::default()).unwrap();
        let game = CopsAndThief::new(board, crate::Rules::default());
        let options = SolveOptions::new(Engine::Bitboard);
        let (bits, _) = super::solve(&game, &options, None).unwrap();
        let n = 2 * (bits.layout.cells as u64).pow(2);
        let mut ranges = vec![0..n, 0..0, 2..3, n - 2..n - 1];
        for _ in 0..40 {
            let (a, b) = (next() % (n + 1), next() % (n + 1));
            ranges.push(a.min(b) & !1..a.max(b));
        }
        for range in ranges {
            let len = (range.end - range.start) as usize;
            let mut want = vec![0u8; len.div_ceil(4)];
            bits.fill_values_each(range.clone(), &mut want);
            for (i, s) in range.clone().enumerate() {
                assert_eq!((want[i / 4] >> (2 * (i % 4))) & 3, bits.outcome(s) as u8);
            }
            let mut got = vec![0xa5u8; len.div_ceil(4)];
            fill_pairs::<false>(&bits, range.clone(), &mut got);
            assert_eq!(got, want, "{range:?}");
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("bmi2") {
                let mut got = vec![0x5au8; len.div_ceil(4)];
                // SAFETY: the CPU has BMI2.
                unsafe { fill_pairs_bmi2(&bits, range.clone(), &mut got) };
                assert_eq!(got, want, "{range:?}");
            }
        }
    }
}
