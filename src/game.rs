//! The [`Game`] trait: a two-player game over dense state indices `0..n`,
//! with allocation-free successor and predecessor visitors.
//!
//! Engines are generic over it and monomorphised; there is no `dyn Game` in a
//! hot path. A state index is the only currency between a game and an engine.

use std::ops::Range;

use crate::Outcome;

/// What an engine needs to know about a state before propagation starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Initial {
    /// The game is over (or the mover has no move and the game's convention
    /// decides it): the value for the player to move, at distance 0.
    Decided(Outcome),
    /// The game goes on; the state has this many moves (successor edges,
    /// counted with multiplicity), at least one.
    Moves(u32),
}

/// A finite two-player game whose states are the dense indices
/// `0..state_count()`.
///
/// Contract (checked by the property tests for every game in this crate):
/// - a state with `Initial::Decided` has no successors;
/// - a state with `Initial::Moves(k)` has exactly `k` successors (with
///   multiplicity), `k <= max_moves()`;
/// - `for_each_predecessor(s)` yields every `u` with `s` among the successors
///   of `u`, once per such edge, and nothing else.
///
/// # Example
/// A subtraction game "take 1 or 2 from a heap of up to 10" written by hand:
/// ```
/// use retrograde::{solve, Engine, Game, Initial, Outcome, SolveOptions};
/// struct TakeOneOrTwo;
/// impl Game for TakeOneOrTwo {
///     fn state_count(&self) -> u64 { 11 }
///     fn max_moves(&self) -> u32 { 2 }
///     fn initial(&self, s: u64) -> Initial {
///         // A player facing an empty heap cannot move and loses.
///         if s == 0 { Initial::Decided(Outcome::Loss) } else { Initial::Moves(s.min(2) as u32) }
///     }
///     fn for_each_successor(&self, s: u64, mut f: impl FnMut(u64)) {
///         for take in 1..=s.min(2) { f(s - take) }
///     }
///     fn for_each_predecessor(&self, s: u64, mut f: impl FnMut(u64)) {
///         for add in 1..=2 { if s + add <= 10 { f(s + add) } }
///     }
/// }
/// let solution = solve(&TakeOneOrTwo, &SolveOptions::new(Engine::Sequential).with_dte_table(true)).unwrap();
/// assert_eq!(solution.outcome(9), Outcome::Loss); // multiples of 3 lose
/// assert_eq!(solution.outcome(10), Outcome::Win);
/// assert_eq!(solution.dte(10).unwrap().plies(), 7);
/// ```
pub trait Game: Sync {
    /// Number of states; valid indices are `0..state_count()`.
    fn state_count(&self) -> u64;

    /// An upper bound on the number of moves of any state. Engines use it to
    /// choose the width of their per-state counters (one byte when it is at
    /// most 63).
    fn max_moves(&self) -> u32;

    /// Terminal value or move count of state `s`.
    fn initial(&self, s: u64) -> Initial;

    /// Calls `f` with every successor of `s` (the state after each move).
    fn for_each_successor(&self, s: u64, f: impl FnMut(u64));

    /// Calls `f` with every predecessor of `s`: each state with a move to `s`.
    fn for_each_predecessor(&self, s: u64, f: impl FnMut(u64));

    /// The player to move in state `s`, 0 or 1. Engines use it only to
    /// report the deepest state of each side; the default says every state
    /// belongs to player 0.
    fn side(&self, s: u64) -> usize {
        let _ = s;
        0
    }

    /// A bound on how far predecessors lie from a state: every predecessor
    /// `u` of `s` satisfies `|u - s| <= radius`. `None` (the default) means
    /// no useful bound.
    ///
    /// The parallel engine uses it to give workers disjoint stripes of the
    /// state array whose updates cannot collide, so they need no atomic
    /// read-modify-write instructions (which cost more than the rest of the
    /// update on large arrays).
    fn predecessor_radius(&self) -> Option<u64> {
        None
    }

    /// This game as the grid game, for engines that exploit its structure
    /// ([`Engine::Bitboard`](crate::Engine::Bitboard)); `None` (the
    /// default) for every other game.
    fn as_cops_and_thief(&self) -> Option<&crate::CopsAndThief> {
        None
    }

    /// Calls `f(s, initial(s))` for every `s` in `range`, in increasing order.
    ///
    /// Games override this when walking a range is much cheaper than decoding
    /// each index on its own (the grid game avoids two divisions per state).
    fn for_each_initial(&self, range: Range<u64>, mut f: impl FnMut(u64, Initial)) {
        for s in range {
            f(s, self.initial(s));
        }
    }
}
