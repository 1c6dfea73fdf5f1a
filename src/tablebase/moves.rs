//! Moves from a table: every move of the player to move rated best first,
//! and the game under optimal play.

use std::collections::HashSet;

use super::{GridPosition, GridRatedMove, GridTablebase, Probe};
use crate::error::Result;
use crate::game::{Game, Initial};
use crate::games::cops::Turn;
use crate::outcome::Outcome;

impl GridTablebase {
    /// Every move of the player to move, rated for that player, best
    /// first: winning moves by fastest win, then drawing moves, then losing
    /// moves by slowest loss (ties by target cell). A terminal position
    /// has none.
    ///
    /// # Errors
    /// As [`GridTablebase::probe`].
    pub fn rated_moves(&self, pos: &GridPosition) -> Result<Vec<GridRatedMove>> {
        Ok(self
            .rated_successors(self.state(pos)?)?
            .into_iter()
            .map(|(_, m)| m)
            .collect())
    }

    /// Rated moves with their successor states, best first.
    fn rated_successors(&self, s: u64) -> Result<Vec<(u64, GridRatedMove)>> {
        let mover = self.game.decode(s).2;
        rate_successors(
            &self.game,
            s,
            |t| self.probe_state(t),
            |t, after| {
                let p = self.position_of(t);
                GridRatedMove {
                    to: if mover == Turn::Cop { p.cop } else { p.thief },
                    value: after.value.flip(),
                    dte: after.dte,
                }
            },
            |m| (rank(m.value, m.dte), m.to),
        )
    }

    /// The game from `pos` under optimal play (each side plays its best
    /// rated move): the positions from `pos` on, ending at a terminal
    /// position, at the first repeated position (included, so a draw shows
    /// its cycle), or after `max_plies` moves. From a decided position of
    /// a table with distances it has exactly `dte` moves.
    ///
    /// # Errors
    /// As [`GridTablebase::probe`].
    pub fn optimal_game(&self, pos: &GridPosition, max_plies: usize) -> Result<Vec<GridPosition>> {
        let line = optimal_line(self.state(pos)?, max_plies, |s| {
            Ok(self.rated_successors(s)?.first().map(|&(t, _)| t))
        })?;
        Ok(line.into_iter().map(|s| self.position_of(s)).collect())
    }
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

/// Sort key of a rated move, best first: wins by fastest, then draws, then
/// losses by slowest. A missing distance sorts after known ones among wins.
pub(super) fn rank(value: Outcome, dte: Option<crate::outcome::Dte>) -> (u8, i64) {
    let d = dte.map(|d| i64::from(d.plies()));
    match value {
        Outcome::Win => (0, d.unwrap_or(i64::MAX)),
        Outcome::Draw => (1, 0),
        Outcome::Loss => (2, d.map_or(0, |d| -d)),
    }
}
