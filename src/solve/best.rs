//! Best moves from a solved state: the successors that realise its value.

use super::solution::Solution;
use crate::game::Game;
use crate::outcome::Outcome;

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
    let dte = |t: u64| solution.dte(t).map(|d| d.plies());
    match value {
        Outcome::Draw => moves.retain(|&t| solution.outcome(t) == Outcome::Draw),
        Outcome::Win => {
            moves.retain(|&t| solution.outcome(t) == Outcome::Loss);
            let best = moves.iter().map(|&t| dte(t)).min().flatten();
            if !moves.is_empty() && best.is_none() {
                return None;
            }
            moves.retain(|&t| dte(t) == best);
        }
        Outcome::Loss => {
            let best = moves.iter().map(|&t| dte(t)).max().flatten();
            if !moves.is_empty() && best.is_none() {
                return None;
            }
            moves.retain(|&t| dte(t) == best);
        }
    }
    Some(moves)
}
