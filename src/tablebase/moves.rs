//! Moves from a table: every move of the player to move rated best first,
//! and the game under optimal play.

use std::collections::HashSet;

use super::{Position, RatedMove, Tablebase};
use crate::error::Result;
use crate::game::{Game, Initial};
use crate::{Outcome, Turn};

impl Tablebase {
    /// Every move of the player to move, rated for that player, best
    /// first: winning moves by fastest win, then drawing moves, then losing
    /// moves by slowest loss (ties by target cell). A terminal position
    /// has none.
    ///
    /// # Errors
    /// As [`Tablebase::probe`].
    pub fn rated_moves(&self, pos: &Position) -> Result<Vec<RatedMove>> {
        Ok(self
            .rated_successors(self.state(pos)?)?
            .into_iter()
            .map(|(_, m)| m)
            .collect())
    }

    /// Rated moves with their successor states, best first.
    fn rated_successors(&self, s: u64) -> Result<Vec<(u64, RatedMove)>> {
        if matches!(self.game.initial(s), Initial::Decided(_)) {
            return Ok(Vec::new());
        }
        let mut next = Vec::with_capacity(9);
        self.game.for_each_successor(s, |t| next.push(t));
        let mover = self.game.decode(s).2;
        let mut moves = Vec::with_capacity(next.len());
        for t in next {
            let after = self.probe_state(t)?;
            let p = self.position_of(t);
            moves.push((
                t,
                RatedMove {
                    to: if mover == Turn::Cop { p.cop } else { p.thief },
                    value: after.value.flip(),
                    dte: after.dte,
                },
            ));
        }
        moves.sort_by_key(|(_, m)| (rank(m.value, m.dte), m.to));
        Ok(moves)
    }

    /// The game from `pos` under optimal play (each side plays its best
    /// rated move): the positions from `pos` on, ending at a terminal
    /// position, at the first repeated position (included, so a draw shows
    /// its cycle), or after `max_plies` moves. From a decided position of
    /// a table with distances it has exactly `dte` moves.
    ///
    /// # Errors
    /// As [`Tablebase::probe`].
    pub fn optimal_game(&self, pos: &Position, max_plies: usize) -> Result<Vec<Position>> {
        let mut s = self.state(pos)?;
        let mut seen = HashSet::new();
        seen.insert(s);
        let mut game = vec![*pos];
        while game.len() <= max_plies {
            let Some(&(t, _)) = self.rated_successors(s)?.first() else {
                break;
            };
            game.push(self.position_of(t));
            if !seen.insert(t) {
                break;
            }
            s = t;
        }
        Ok(game)
    }
}

/// Sort key of a rated move, best first: wins by fastest, then draws, then
/// losses by slowest. A missing distance sorts after known ones among wins.
pub(super) fn rank(value: Outcome, dte: Option<crate::Dte>) -> (u8, i64) {
    let d = dte.map(|d| i64::from(d.plies()));
    match value {
        Outcome::Win => (0, d.unwrap_or(i64::MAX)),
        Outcome::Draw => (1, 0),
        Outcome::Loss => (2, d.map_or(0, |d| -d)),
    }
}
