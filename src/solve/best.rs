//! Best moves from a solved state: the successors that realise its value.

use super::solution::Solution;
use crate::game::Game;
use crate::outcome::{Dte, Outcome};

/// The successors of `s` that realise its value under optimal play, sorted
/// and without repeats:
/// - WIN: the LOSS successors at the smallest distance to end (the winner
///   hurries);
/// - LOSS: the successors (all WIN) at the largest distance (the loser
///   delays);
/// - DRAW: the DRAW successors (the ones that keep the game going).
///
/// A state without moves has none. Returns `None` for a WIN or LOSS state
/// when the solution kept no distance table.
///
/// # Example
/// ```
/// use retrograde::{best_moves, parse_graph, solve, Convention, Engine, SolveOptions};
/// // 0 can move to the dead end 1 (a loss for its mover) or to 2, which wins.
/// let graph = parse_graph(b"0 1\n0 2\n2 3\n", "inline", Convention::Normal).unwrap();
/// let solution = solve(&graph, &SolveOptions::new(Engine::Sequential).with_dte_table(true)).unwrap();
/// assert_eq!(best_moves(&graph, &solution, 0), Some(vec![1]));
/// assert_eq!(best_moves(&graph, &solution, 1), Some(vec![]));
/// ```
#[must_use]
pub fn best_moves(game: &impl Game, solution: &Solution, s: u64) -> Option<Vec<u64>> {
    let value = solution.outcome(s);
    let mut moves = Vec::new();
    game.for_each_successor(s, |t| moves.push(t));
    moves.sort_unstable();
    moves.dedup();
    // Without distances a decided state's best moves are unknown.
    let unknown = |t: u64| solution.outcome(t) != Outcome::Draw && solution.dte(t).is_none();
    if value != Outcome::Draw && moves.iter().any(|&t| unknown(t)) {
        return None;
    }
    let rated = |t: u64| rank(solution.outcome(t).flip(), solution.dte(t));
    let best = moves.iter().map(|&t| rated(t)).min();
    moves.retain(|&t| Some(rated(t)) == best);
    Some(moves)
}

/// Sort key of a move by its value for the player who makes it, best
/// first: wins by fastest, then draws, then losses by slowest. A missing
/// distance sorts after known ones among wins. The one definition of a
/// best move: [`best_moves`] keeps the least, tables rate their moves by it.
pub(crate) fn rank(value: Outcome, dte: Option<Dte>) -> (u8, i64) {
    let d = dte.map(|d| i64::from(d.plies()));
    match value {
        Outcome::Win => (0, d.unwrap_or(i64::MAX)),
        Outcome::Draw => (1, 0),
        Outcome::Loss => (2, d.map_or(0, |d| -d)),
    }
}
