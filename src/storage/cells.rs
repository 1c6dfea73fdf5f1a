//! Packed per-state cells: the label (UNKNOWN / WIN / LOSS for the player to
//! move) in the two high bits and the remaining-moves counter (successors
//! not yet known to be WIN) in the low bits of one integer.
//!
//! Encoding, for a cell of B bits (B = 8 or 32):
//! - `0 < c < 2^(B-2)`: undecided, `c` moves not yet refuted;
//! - bit B-2 set: WIN (low bits are leftover counter, ignored);
//! - bit B-1 set: LOSS (low bits zero).
//!
//! Updates come in two flavours selected by the `SHARED` const parameter:
//! plain load/store when one thread owns the array (compiles to ordinary
//! moves), and single atomic read-modify-writes when workers share it.
//! The shared flavour is lock-free and relies on two facts of retrograde
//! analysis rather than on compare-and-swap loops:
//! - a state that gets a WIN (it has a LOSS successor) never has its counter
//!   reach zero, because that successor never decrements it, so a state is
//!   never both marked WIN and LOSS;
//! - a counter is decremented once per successor edge that turned WIN, and
//!   a WIN state keeps at least its LOSS successor's unit, so decrementing a
//!   state another worker just marked WIN cannot borrow into the label bits.
//!
//! All accesses use `Relaxed` ordering: within a level, the only facts a
//! worker reads are labels decided in earlier levels, and rayon's join at the
//! end of each level is a full synchronisation point.

use std::sync::atomic::{AtomicU32, AtomicU8, Ordering::Relaxed};

use crate::game::Initial;
use crate::outcome::{Outcome, Terminal};

/// An array of packed state cells (see the module docs for the encoding).
pub(crate) trait Cells: Sync {
    /// Largest move count a cell can hold.
    const MAX_MOVES: u32;

    /// Writes the initial cell of state `i`.
    fn init(&self, i: usize, initial: Initial);

    /// Current label of state `i`; undecided reads as `Draw`.
    fn outcome(&self, i: usize) -> Outcome;

    /// Marks undecided state `i` as WIN; true when this call decided it.
    fn try_win<const SHARED: bool>(&self, i: usize) -> bool;

    /// Refutes one move of undecided state `i` (a successor turned WIN);
    /// true when that was its last move and it is now LOSS.
    fn try_refute<const SHARED: bool>(&self, i: usize) -> bool;
}

macro_rules! impl_cells {
    ($atomic:ty, $int:ty) => {
        impl Cells for [$atomic] {
            const MAX_MOVES: u32 = (WIN as u32) - 1;

            #[inline]
            fn init(&self, i: usize, initial: Initial) {
                let value = match initial {
                    Initial::Decided(Terminal::Win) => WIN,
                    Initial::Decided(Terminal::Loss) => LOSS,
                    Initial::Moves(k) => {
                        debug_assert!((1..=Self::MAX_MOVES).contains(&k));
                        k as $int
                    }
                };
                self[i].store(value, Relaxed);
            }

            #[inline]
            fn outcome(&self, i: usize) -> Outcome {
                let c = self[i].load(Relaxed);
                if c & LOSS != 0 {
                    Outcome::Loss
                } else if c & WIN != 0 {
                    Outcome::Win
                } else {
                    Outcome::Draw
                }
            }

            #[inline]
            fn try_win<const SHARED: bool>(&self, i: usize) -> bool {
                let cell = &self[i];
                let c = cell.load(Relaxed);
                if c >= WIN {
                    return false;
                }
                if SHARED {
                    cell.fetch_or(WIN, Relaxed) < WIN
                } else {
                    cell.store(WIN, Relaxed);
                    true
                }
            }

            #[inline]
            fn try_refute<const SHARED: bool>(&self, i: usize) -> bool {
                let cell = &self[i];
                let c = cell.load(Relaxed);
                if c >= WIN {
                    return false;
                }
                if SHARED {
                    // Only the worker that consumes the last move sees 1;
                    // nobody else touches the cell afterwards (module docs).
                    if cell.fetch_sub(1, Relaxed) == 1 {
                        cell.store(LOSS, Relaxed);
                        return true;
                    }
                    false
                } else if c == 1 {
                    cell.store(LOSS, Relaxed);
                    true
                } else {
                    cell.store(c - 1, Relaxed);
                    false
                }
            }
        }
    };
}

mod narrow {
    use super::*;
    const WIN: u8 = 0x40;
    const LOSS: u8 = 0x80;
    impl_cells!(AtomicU8, u8);
}

mod wide {
    use super::*;
    const WIN: u32 = 0x4000_0000;
    const LOSS: u32 = 0x8000_0000;
    impl_cells!(AtomicU32, u32);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refute_to_loss_and_win_are_exclusive() {
        let cells: Vec<AtomicU8> = (0..3).map(|_| AtomicU8::new(0)).collect();
        let cells = cells.as_slice();
        cells.init(0, Initial::Moves(2));
        cells.init(1, Initial::Moves(2));
        cells.init(2, Initial::Decided(Terminal::Win));
        assert!(!cells.try_refute::<false>(0));
        assert!(cells.try_refute::<true>(0));
        assert_eq!(cells.outcome(0), Outcome::Loss);
        assert!(!cells.try_win::<false>(0));
        assert!(!cells.try_refute::<true>(1));
        assert!(cells.try_win::<true>(1));
        assert!(!cells.try_win::<true>(1));
        assert!(!cells.try_refute::<true>(1));
        assert_eq!(cells.outcome(1), Outcome::Win);
        assert_eq!(cells.outcome(2), Outcome::Win);
        let wide: Vec<AtomicU32> = (0..1).map(|_| AtomicU32::new(0)).collect();
        let wide = wide.as_slice();
        wide.init(0, Initial::Moves(1000));
        for _ in 0..999 {
            assert!(!wide.try_refute::<true>(0));
        }
        assert_eq!(wide.outcome(0), Outcome::Draw);
        assert!(wide.try_refute::<false>(0));
        assert_eq!(wide.outcome(0), Outcome::Loss);
    }
}
