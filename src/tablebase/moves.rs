//! Moves from a table: every move of the player to move rated best first,
//! and the game under optimal play, for [`Tablebase`](super::Tablebase)
//! over either kind of game.

use std::collections::HashSet;

use crate::error::Result;
use crate::game::{Game, Initial};
use crate::outcome::{Dte, Outcome};
pub(super) use crate::solve::rank;

/// The stored answer for a position, for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// Win, loss or draw for the player to move.
    pub value: Outcome,
    /// Distance to end in plies: `None` for a draw, or when the table keeps
    /// no distances.
    pub dte: Option<Dte>,
}

/// Every successor of a non-terminal state `s` of `game` with its move
/// rated by `rate` (from the successor's probe), sorted best first by
/// `key`; none from a terminal state. What one-cop and several-cops
/// tables share: only the move's shape and its tie-break differ.
pub(super) fn rate_successors<G: Game, M, K: Ord>(
    game: &G,
    s: u64,
    probe: impl Fn(u64) -> Result<Probe>,
    rate: impl Fn(u64, Probe) -> M,
    key: impl Fn(&M) -> K,
) -> Result<Vec<(u64, M)>> {
    if matches!(game.initial(s), Initial::Decided(_)) {
        return Ok(Vec::new());
    }
    let mut next = Vec::with_capacity(9);
    game.for_each_successor(s, |t| next.push(t));
    let mut moves = Vec::with_capacity(next.len());
    for t in next {
        moves.push((t, rate(t, probe(t)?)));
    }
    moves.sort_by_cached_key(|(_, m)| key(m));
    Ok(moves)
}

/// The states of the game from `s` when every side plays `best`'s move:
/// ending where there is none (a terminal state), at the first repeated
/// state (included, so a draw shows its cycle), or after `max_plies`
/// moves.
pub(super) fn optimal_line(
    mut s: u64,
    max_plies: usize,
    best: impl Fn(u64) -> Result<Option<u64>>,
) -> Result<Vec<u64>> {
    let mut seen = HashSet::new();
    seen.insert(s);
    let mut line = vec![s];
    while line.len() <= max_plies {
        let Some(t) = best(s)? else {
            break;
        };
        line.push(t);
        if !seen.insert(t) {
            break;
        }
        s = t;
    }
    Ok(line)
}
