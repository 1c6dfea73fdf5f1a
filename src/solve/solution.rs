//! A solve's result: every state's value (the counter engines' cells or
//! the bitboard engine's bitsets), the optional distance table, and the
//! readers the tables and scans use.

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;

use super::{bitboard, multicop, propagate};
use crate::outcome::{Counts, Dte, Outcome};
use crate::storage::cells::Cells;
use crate::storage::Region;

pub(super) enum CellStore {
    Narrow(Region),
    Wide(Region),
}

impl CellStore {
    fn outcome(&self, s: usize) -> Outcome {
        match self {
            CellStore::Narrow(r) => r.atomics::<AtomicU8>().outcome(s),
            CellStore::Wide(r) => r.atomics::<AtomicU32>().outcome(s),
        }
    }

    pub(super) fn region(&self) -> &Region {
        match self {
            CellStore::Narrow(r) | CellStore::Wide(r) => r,
        }
    }

    /// Bytes per cell.
    fn elem(&self) -> u64 {
        match self {
            CellStore::Narrow(_) => 1,
            CellStore::Wide(_) => 4,
        }
    }

    /// Drops resident pages of states `range` (scratch backing only).
    fn release(&self, range: std::ops::Range<u64>) {
        self.region().release(range, self.elem());
    }
}

/// Packs the values of cells `start .. start + len` 2 bits each into
/// `out` (zeroed): monomorphic, so the loop has no dispatch.
fn pack_cells<C: Cells + ?Sized>(cells: &C, start: usize, len: usize, out: &mut [u8]) {
    for (k, byte) in out.iter_mut().enumerate() {
        let first = 4 * k;
        let mut b = 0u8;
        for j in 0..(len - first).min(4) {
            b |= (cells.outcome(start + first + j) as u8) << (2 * j);
        }
        *byte = b;
    }
}

/// The arrays of a solve as the propagation pages them out of core.
pub(super) struct ArrayPager<'a> {
    pub(super) cells: &'a CellStore,
    pub(super) dte: Option<&'a Region>,
}

impl propagate::Pager for ArrayPager<'_> {
    fn release(&self, range: std::ops::Range<u64>) {
        self.cells.release(range.clone());
        if let Some(table) = self.dte {
            table.release(range, 2);
        }
    }

    fn prefault(&self, range: std::ops::Range<u64>) {
        self.cells
            .region()
            .prefault(range.clone(), self.cells.elem());
        if let Some(table) = self.dte {
            table.prefault(range, 2);
        }
    }
}

/// Wall-clock time of a solve's phases.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Phases {
    /// Materialising the game ([`Engine::Explicit`](crate::Engine::Explicit)'s graph build; zero for
    /// the engines that work on the fly).
    pub build: std::time::Duration,
    /// Allocating the arrays and propagating.
    pub propagate: std::time::Duration,
}

/// Where a solution's values live.
pub(super) enum Labels {
    /// The counter engines' per-state cells.
    Cells(CellStore),
    /// The bitboard engine's bitsets (one cop on a grid map).
    Bits(bitboard::Bits),
    /// The several-cops kernel's attractor bitsets, with its distance
    /// table (`u16::MAX` where undecided) when kept.
    Multicop(Box<multicop::KSolution>),
}

/// The solved game: every state's value, optionally its distance to end.
pub struct Solution {
    pub(super) phases: Phases,
    pub(super) labels: Labels,
    pub(super) dte: Option<Region>,
    pub(super) states: u64,
    pub(super) levels: u32,
    pub(super) tracked: Option<(u64, Option<Dte>)>,
    pub(super) deepest: [Option<(Dte, u64)>; 2],
    pub(super) sweeps: u32,
    pub(super) bytes: u64,
    /// Out of core: states to work on at a time to stay under the cap.
    pub(super) window: Option<u64>,
}

impl Solution {
    /// Value of state `s` for the player to move.
    ///
    /// # Panics
    /// If `s` is not a state index.
    #[inline]
    #[must_use]
    pub fn outcome(&self, s: u64) -> Outcome {
        match &self.labels {
            Labels::Cells(cells) => cells.outcome(s as usize),
            Labels::Bits(bits) => bits.outcome(s),
            Labels::Multicop(sol) => sol.outcome(s),
        }
    }

    /// Distance to end of state `s`: `None` for a draw, or when the solve
    /// kept no distance table and `s` is not the tracked state. Distances of
    /// 65535 plies or more are stored as 65535.
    #[inline]
    #[must_use]
    pub fn dte(&self, s: u64) -> Option<Dte> {
        if self.outcome(s) == Outcome::Draw {
            return None;
        }
        if let Some((tracked, dte)) = self.tracked {
            if tracked == s {
                return dte;
            }
        }
        if let Labels::Multicop(sol) = &self.labels {
            return sol.state_value(s).1;
        }
        let table = self.dte.as_ref()?;
        Some(Dte(u32::from(
            table.atomics::<AtomicU16>()[s as usize].load(Relaxed),
        )))
    }

    /// Values of states `range`, packed 2 bits each: the code of state
    /// `range.start + i` (`Outcome as u8`: draw 0, win 1, loss 2) in bits
    /// `2 * (i % 4)` of `out[i / 4]`; the spare bits of the last byte are 0.
    /// Equal to [`Solution::outcome`] state by state, but one dispatch per
    /// call and a tight loop per storage kind, for tables and scans.
    ///
    /// # Panics
    /// If `range` reaches past the last state or `out` does not have
    /// `range`'s length divided by 4, rounded up, bytes.
    pub fn fill_values(&self, range: std::ops::Range<u64>, out: &mut [u8]) {
        assert!(range.start <= range.end && range.end <= self.states);
        let len = (range.end - range.start) as usize;
        assert_eq!(out.len(), len.div_ceil(4), "fill_values: wrong buffer size");
        match &self.labels {
            Labels::Cells(CellStore::Narrow(r)) => {
                out.fill(0);
                pack_cells(r.atomics::<AtomicU8>(), range.start as usize, len, out);
            }
            Labels::Cells(CellStore::Wide(r)) => {
                out.fill(0);
                pack_cells(r.atomics::<AtomicU32>(), range.start as usize, len, out);
            }
            Labels::Bits(bits) => bits.fill_values(range, out),
            Labels::Multicop(sol) => sol.fill_value_codes(range, out),
        }
    }

    /// Distances to end of states `range` into `out` (one per state): what
    /// [`Solution::dte`] gives, in plies, with 0 for `None` (draws, and
    /// states without a stored distance).
    ///
    /// # Panics
    /// If `range` reaches past the last state or `out` is not as long as
    /// `range`.
    pub fn fill_dte(&self, range: std::ops::Range<u64>, out: &mut [u16]) {
        // Values a chunk at a time, so no buffer grows with `range`.
        const CHUNK: u64 = 1 << 12;
        assert_eq!(out.len() as u64, range.end.saturating_sub(range.start));
        let mut values = [0u8; (CHUNK / 4) as usize];
        let mut first = range.start;
        for chunk in out.chunks_mut(CHUNK as usize) {
            let last = first + chunk.len() as u64;
            let values = &mut values[..chunk.len().div_ceil(4)];
            self.fill_values(first..last, values);
            self.fill_dte_with(first..last, values, chunk);
            first = last;
        }
    }

    /// [`Solution::fill_dte`] given the packed values of `range` (from
    /// [`Solution::fill_values`]), so a caller that has them reads the
    /// labels once.
    pub(crate) fn fill_dte_with(
        &self,
        range: std::ops::Range<u64>,
        values: &[u8],
        out: &mut [u16],
    ) {
        assert!(range.start <= range.end && range.end <= self.states);
        assert_eq!(out.len() as u64, range.end - range.start);
        assert_eq!(values.len(), out.len().div_ceil(4));
        match (&self.dte, &self.labels) {
            // Undecided states hold no distance there (0 out).
            (_, Labels::Multicop(sol)) => sol.fill_distances(range.clone(), out),
            (Some(table), _) => copy_decided(
                &table.atomics::<AtomicU16>()[range.start as usize..range.end as usize],
                values,
                out,
            ),
            (None, _) => out.fill(0),
        }
        // The tracked state's distance wins over the table (as in `dte`).
        if let Some((tracked, dte)) = self.tracked {
            if range.contains(&tracked) {
                let i = (tracked - range.start) as usize;
                if (values[i / 4] >> (2 * (i % 4))) & 3 != Outcome::Draw as u8 {
                    out[i] = dte.map_or(0, |d| d.plies().min(u32::from(u16::MAX)) as u16);
                }
            }
        }
    }

    /// Whether a full distance table was kept.
    #[must_use]
    pub fn has_dte_table(&self) -> bool {
        match &self.labels {
            Labels::Multicop(sol) => sol.has_dte_table(),
            _ => self.dte.is_some(),
        }
    }

    /// Number of states.
    #[must_use]
    pub fn states(&self) -> u64 {
        self.states
    }

    /// Number of propagation levels after level 0: the largest distance to
    /// end of any decided state.
    #[must_use]
    pub fn levels(&self) -> u32 {
        self.levels
    }

    /// For the player `side` (see [`Game::side`](crate::Game::side)): the largest distance to
    /// end of any decided state with that player to move, and the smallest
    /// state index that has it. Needs no distance table. The several-cops
    /// kernel tracks the cops' side alone (`None` for the thief's, and
    /// for the cops' after a resume whose later levels decided none of
    /// theirs).
    #[must_use]
    pub fn deepest(&self, side: usize) -> Option<(Dte, u64)> {
        self.deepest.get(side).copied().flatten()
    }

    /// The several-cops kernel: the placement of the cops (cells ascending,
    /// the smallest multiset rank on ties) whose cops-to-move states win
    /// against every thief cell at the least level, with that level (the
    /// capture time in plies). `None` when no placement wins everywhere, and
    /// from every other engine.
    #[must_use]
    pub fn winning_placement(&self) -> Option<(Vec<u32>, u32)> {
        match &self.labels {
            Labels::Multicop(sol) => sol.placement.clone(),
            _ => None,
        }
    }

    /// Sweeps made by [`Engine::Sweep`](crate::Engine::Sweep) (0 for the other engines).
    #[must_use]
    pub fn sweeps(&self) -> u32 {
        self.sweeps
    }

    /// How long the solve's build and propagation took.
    #[must_use]
    pub fn phases(&self) -> Phases {
        self.phases
    }

    /// Bytes of per-state arrays the solve allocated.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Out of core: how many states to check or scan at a time to stay
    /// under the memory cap (`None` in memory).
    pub(crate) fn window(&self) -> Option<u64> {
        self.window
    }

    /// Out of core: drops the resident pages of states `range` (written
    /// back to the scratch files first). A no-op in memory.
    pub(crate) fn release(&self, range: std::ops::Range<u64>) {
        use propagate::Pager as _;
        match &self.labels {
            Labels::Cells(cells) => ArrayPager {
                cells,
                dte: self.dte.as_ref(),
            }
            .release(range),
            Labels::Bits(bits) => {
                bits.release(range.clone());
                if let Some(table) = &self.dte {
                    table.release(range, 2);
                }
            }
            // Its scratch files are paged by the kernel.
            Labels::Multicop(_) => {}
        }
    }

    /// A hash of every state's value in state order (FNV-1a over the value
    /// codes per chunk of 2^20 states, chunks combined in order): two
    /// solutions of one game agree on every value exactly when (but for
    /// collisions) their hashes are equal, without keeping both.
    #[must_use]
    pub fn values_hash(&self) -> u64 {
        const CHUNK: u64 = 1 << 20;
        let n = self.states;
        let hashes: Vec<u64> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|k| {
                let range = k * CHUNK..((k + 1) * CHUNK).min(n);
                range.fold(crate::hash::FNV_START, |h, s| {
                    crate::hash::fnv1a(h, &[self.outcome(s) as u8])
                })
            })
            .collect();
        hashes.into_iter().fold(0, crate::hash::combine)
    }

    /// WIN / LOSS / DRAW counts over all states (a parallel sweep).
    #[must_use]
    pub fn counts(&self) -> Counts {
        let [even, odd] = self.counts_by_parity();
        even + odd
    }

    /// WIN / LOSS / DRAW counts over the even and the odd states apart (a
    /// parallel sweep). In the grid game a state's parity is the player to
    /// move (0 the cop, 1 the thief), so whole-map statistics for one side
    /// to move read this instead of probing every state: the bitboard
    /// engine answers it with popcounts.
    #[must_use]
    pub fn counts_by_parity(&self) -> [Counts; 2] {
        const CHUNK: u64 = 1 << 16;
        let cells = match &self.labels {
            Labels::Cells(cells) => cells,
            Labels::Bits(bits) => return bits.counts_by_parity(),
            Labels::Multicop(sol) => {
                let c = sol.counts();
                return [
                    Counts {
                        win: c[0],
                        loss: c[1],
                        draw: c[2],
                    },
                    Counts {
                        win: c[3],
                        loss: c[4],
                        draw: c[5],
                    },
                ];
            }
        };
        (0..self.states.div_ceil(CHUNK))
            .into_par_iter()
            .map(|k| {
                let mut c = [Counts::default(); 2];
                let range = k * CHUNK..((k + 1) * CHUNK).min(self.states);
                for s in range.clone() {
                    let c = &mut c[(s & 1) as usize];
                    match self.outcome(s) {
                        Outcome::Win => c.win += 1,
                        Outcome::Loss => c.loss += 1,
                        Outcome::Draw => c.draw += 1,
                    }
                }
                // Out of core, keep the sweep from pulling the whole array
                // into memory.
                cells.release(range);
                c
            })
            .reduce(|| [Counts::default(); 2], |a, b| [a[0] + b[0], a[1] + b[1]])
    }
}

/// Per byte of packed 2-bit codes, a mask of four u16 lanes: all ones for
/// a decided state, 0 for a draw (lane `j`, state `j` of the byte, in a
/// little-endian word).
const DECIDED_LANES: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 4 {
            if (b >> (2 * j)) & 3 != 0 {
                t[b] |= 0xffff << (16 * j);
            }
            j += 1;
        }
        b += 1;
    }
    t
};

/// The distances of `table` into `out`, 0 for the draws among `values`
/// (their packed codes, the first state at bit 0), whatever the table
/// holds for them. Four states per step: one 64-bit load and one mask
/// (the state-at-a-time loop over `AtomicU16` was 5% of a `--dte-table
/// --save` run).
pub(super) fn copy_decided(table: &[AtomicU16], values: &[u8], out: &mut [u16]) {
    let mut done = 0;
    #[cfg(target_endian = "little")]
    if (table.as_ptr() as usize).is_multiple_of(std::mem::align_of::<AtomicU64>()) {
        let words = out.len() / 4;
        // SAFETY: `table` starts aligned for u64 and holds at least
        // `4 * words` u16s, so they are `words` whole u64s in bounds;
        // `AtomicU64` has u64's representation and every bit pattern is
        // valid. These loads only read, and the table is written (through
        // `AtomicU16`) only by the solve that produced this `Solution`,
        // which finished before it was returned, so the differently sized
        // accesses never race (what mixed-size atomics require).
        let wide = unsafe { std::slice::from_raw_parts(table.as_ptr().cast::<AtomicU64>(), words) };
        for ((o, w), &b) in out.chunks_exact_mut(4).zip(wide).zip(values) {
            let x = w.load(Relaxed) & DECIDED_LANES[usize::from(b)];
            o.copy_from_slice(&[
                x as u16,
                (x >> 16) as u16,
                (x >> 32) as u16,
                (x >> 48) as u16,
            ]);
        }
        done = 4 * words;
    }
    for (i, (d, t)) in out.iter_mut().zip(table).enumerate().skip(done) {
        let code = (values[i / 4] >> (2 * (i % 4))) & 3;
        *d = t.load(Relaxed) & 0u16.wrapping_sub(u16::from(code != 0));
    }
}
