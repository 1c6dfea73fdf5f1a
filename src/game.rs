//! The [`Game`] trait: a two-player game over dense state indices `0..n`,
//! with allocation-free successor and predecessor visitors.
//!
//! Engines are generic over it and monomorphised; there is no `dyn Game` in a
//! hot path. A state index is the only currency between a game and an engine.

use std::ops::Range;

use crate::outcome::Terminal;

/// What an engine needs to know about a state before propagation starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Initial {
    /// The game is over (or the mover has no move and the game's convention
    /// decides it): the value for the player to move, at distance 0. A
    /// [`Terminal`] is a win or a loss: a terminal draw cannot be written.
    Decided(Terminal),
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
/// use retrograde::{solve, Engine, Game, Initial, Outcome, SolveOptions, Terminal};
/// struct TakeOneOrTwo;
/// impl Game for TakeOneOrTwo {
///     fn state_count(&self) -> u64 { 11 }
///     fn max_moves(&self) -> u32 { 2 }
///     fn initial(&self, s: u64) -> Initial {
///         // A player facing an empty heap cannot move and loses.
///         if s == 0 { Initial::Decided(Terminal::Loss) } else { Initial::Moves(s.min(2) as u32) }
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

    /// The game itself as [`Any`](std::any::Any), for the engines that
    /// exploit the structure of the library's own games
    /// ([`Engine::Bitboard`](crate::Engine::Bitboard) on the grid game
    /// and on the several-cops game): those return `Some(self)`; `None`
    /// (the default) for every other game. It names no game type, so that
    /// this trait imports none of the games that implement it (`games`
    /// depends on `game`, one way); `games::Special` gives the typed
    /// views.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
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

/// Checks every clause of the [`Game`] contract on every state of `game`
/// (meant for tests: it keeps all edges in memory). Returns the first
/// violation in words:
/// - a successor out of range;
/// - `Initial::Moves(k)` whose state has not exactly `k` successors, or
///   `k` outside `1..=max_moves()`; `Initial::Decided` with successors;
/// - predecessors that are not exactly the inverse of the successors
///   (edge by edge, with multiplicity);
/// - an edge longer than [`Game::predecessor_radius`];
/// - [`Game::for_each_initial`] disagreeing with [`Game::initial`] on a
///   range that does not start at 0.
///
/// Every game in this crate passes it in its tests; a game written outside
/// can call it the same way.
///
/// # Errors
/// The first clause broken, naming the state.
///
/// # Example
/// ```
/// use retrograde::{check_game_contract, parse_graph, Convention};
/// let graph = parse_graph(b"0 1\n1 2\n2 0\n", "cycle", Convention::Normal).unwrap();
/// check_game_contract(&graph).unwrap();
/// ```
pub fn check_game_contract(game: &impl Game) -> Result<(), String> {
    let n = game.state_count();
    let radius = game.predecessor_radius();
    let mut forward = Vec::new();
    let mut backward = Vec::new();
    for s in 0..n {
        let before = forward.len();
        game.for_each_successor(s, |v| forward.push((s, v)));
        let count = (forward.len() - before) as u64;
        if let Some(&(_, v)) = forward[before..].iter().find(|&&(_, v)| v >= n) {
            return Err(format!(
                "successor {v} of state {s} is out of range (n = {n})"
            ));
        }
        match game.initial(s) {
            Initial::Decided(t) if count > 0 => {
                return Err(format!(
                    "state {s} is decided ({t:?}) but has {count} successors"
                ))
            }
            Initial::Moves(k) if u64::from(k) != count => {
                return Err(format!(
                    "state {s} says {k} moves but has {count} successors"
                ))
            }
            Initial::Moves(k) if k == 0 || k > game.max_moves() => {
                return Err(format!(
                    "state {s} has {k} moves, outside 1..={}",
                    game.max_moves()
                ))
            }
            _ => {}
        }
        game.for_each_predecessor(s, |u| backward.push((u, s)));
    }
    if let Some(r) = radius {
        if let Some(&(u, v)) = forward.iter().find(|&&(u, v)| u.abs_diff(v) > r) {
            return Err(format!(
                "edge {u} -> {v} is longer than the predecessor radius {r}"
            ));
        }
    }
    forward.sort_unstable();
    backward.sort_unstable();
    if forward != backward {
        let first = forward
            .iter()
            .zip(&backward)
            .find(|(a, b)| a != b)
            .map_or_else(
                || {
                    format!(
                        "{} edges forward, {} backward",
                        forward.len(),
                        backward.len()
                    )
                },
                |(a, b)| format!("edge {a:?} forward vs {b:?} backward"),
            );
        return Err(format!("predecessors do not invert successors: {first}"));
    }
    let from = n / 3;
    let mut walked = Vec::new();
    game.for_each_initial(from..n, |s, i| walked.push((s, i)));
    let direct: Vec<_> = (from..n).map(|s| (s, game.initial(s))).collect();
    if walked != direct {
        return Err(format!(
            "for_each_initial({from}..{n}) disagrees with initial"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path 0 -> 1 -> ... -> n-1 claiming predecessor radius `radius`.
    struct Path {
        n: u64,
        radius: u64,
    }

    impl Game for Path {
        fn state_count(&self) -> u64 {
            self.n
        }
        fn max_moves(&self) -> u32 {
            1
        }
        fn initial(&self, s: u64) -> Initial {
            if s + 1 == self.n {
                Initial::Decided(Terminal::Loss)
            } else {
                Initial::Moves(1)
            }
        }
        fn for_each_successor(&self, s: u64, mut f: impl FnMut(u64)) {
            if s + 1 < self.n {
                f(s + 1);
            }
        }
        fn for_each_predecessor(&self, s: u64, mut f: impl FnMut(u64)) {
            if s > 0 {
                f(s - 1);
            }
        }
        fn predecessor_radius(&self) -> Option<u64> {
            Some(self.radius)
        }
    }

    #[test]
    fn the_contract_check_finds_a_radius_too_small() {
        assert_eq!(check_game_contract(&Path { n: 5, radius: 1 }), Ok(()));
        let error = check_game_contract(&Path { n: 5, radius: 0 }).unwrap_err();
        assert!(error.contains("radius"), "{error}");
    }

    /// Engines assert the radius in debug builds (where a wrong radius
    /// would otherwise lose updates silently in stripes and bands).
    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "predecessor radius")]
    fn engines_assert_the_radius_in_debug_builds() {
        let game = Path { n: 5, radius: 0 };
        let _ = crate::solve(&game, &crate::SolveOptions::new(crate::Engine::Sequential));
    }
}
