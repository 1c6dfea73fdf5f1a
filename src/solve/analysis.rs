//! Whole-map analysis of a solved policeman-and-thief game: how the start
//! pairs split by verdict and which one lasts longest.

use super::Solution;
use crate::board::Board;
use crate::format::Coord;
use crate::games::cops::{CopsAndThief, Turn};
use crate::outcome::{Dte, Outcome};

/// How the start pairs of a map split: every (cop, thief) pair of distinct
/// free cells with the rules' first mover to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StartPairs {
    /// Number of pairs: `C * (C - 1)` for `C` free cells.
    pub pairs: u64,
    /// Pairs the cop wins.
    pub cop_wins: u64,
    /// Pairs the thief escapes from.
    pub thief_escapes: u64,
    /// Pairs drawn (the thief evades forever).
    pub draws: u64,
    /// A start pair (distinct cells, the first mover to move) at the
    /// largest distance to end among them (the smallest state index among
    /// those), if any start pair was decided and the engine kept
    /// distances; `None` on a map of one cell (no start pair).
    pub longest: Option<LongestGame>,
}

/// A start pair with the longest game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LongestGame {
    /// Its distance to end.
    pub dte: Dte,
    /// The cop's cell.
    pub cop: Coord,
    /// The thief's cell.
    pub thief: Coord,
}

impl CopsAndThief {
    /// Number of states of the game on `board`, `2 * C^2` for `C` free
    /// cells, without building the move tables.
    #[must_use]
    pub fn state_count_of(board: &Board) -> u64 {
        let cells = board.grid.cells() as u64;
        2 * cells * cells
    }

    /// Tallies the start pairs of `solution` (a solution of this game) by
    /// verdict, from its per-side counts (one parallel sweep on the current
    /// rayon pool, popcounts for the bitboard engine), and finds a longest
    /// one.
    ///
    /// # Example
    /// ```
    /// use retrograde::{parse_map, solve, Board, CopsAndThief, Engine, Placement, Rules, SolveOptions};
    /// let map = parse_map(b"1 3\nC.T\n", "example").unwrap();
    /// let game = CopsAndThief::new(Board::new(&map, &Placement::default()).unwrap(), Rules::default());
    /// let pairs = game.start_pairs(&solve(&game, &SolveOptions::new(Engine::Sequential)).unwrap());
    /// assert_eq!((pairs.pairs, pairs.cop_wins), (6, 6));
    /// ```
    #[must_use]
    pub fn start_pairs(&self, solution: &Solution) -> StartPairs {
        let turn = if self.rules().thief_first {
            Turn::Thief
        } else {
            Turn::Cop
        };
        // Every pair of distinct cells, with the first mover to move: all of
        // that side's states but the captures (cop and thief on one cell),
        // which are that side's WIN (cop to move) or LOSS (thief to move).
        let cells = self.cells();
        let mut side = solution.counts_by_parity()[turn as usize];
        match turn {
            Turn::Cop => side.win -= cells,
            Turn::Thief => side.loss -= cells,
        }
        let (cop_wins, thief_escapes) = match turn {
            Turn::Cop => (side.win, side.loss),
            Turn::Thief => (side.loss, side.win),
        };
        let grid = &self.board().grid;
        let longest = solution.deepest(turn as usize).and_then(|(dte, s)| {
            // The deepest state of the side is a start pair unless it is at
            // distance 0, where the captures (not start pairs) come first.
            let s = if dte.plies() > 0 {
                s
            } else {
                self.first_decided_pair(solution, turn, cop_wins + thief_escapes)?
            };
            let (cop, thief, _) = self.decode(s);
            Some(LongestGame {
                dte,
                cop: grid.coords(cop),
                thief: grid.coords(thief),
            })
        });
        StartPairs {
            pairs: cells * cells.saturating_sub(1),
            cop_wins,
            thief_escapes,
            draws: side.draw,
            longest,
        }
    }

    /// The smallest state of a start pair (distinct cells, `turn` to move)
    /// that `solution` decided, of the `decided` there are; `None` when
    /// there are none. A scan in state order that stops at the first, run
    /// only when every decided state of the side is at distance 0 (a map
    /// where no move reaches the other piece): it stops early but on a
    /// map drawn almost everywhere.
    fn first_decided_pair(&self, solution: &Solution, turn: Turn, decided: u64) -> Option<u64> {
        if decided == 0 {
            return None;
        }
        let cells = self.cells() as u32;
        (0..cells)
            .flat_map(|cop| (0..cells).map(move |thief| (cop, thief)))
            .filter(|&(cop, thief)| cop != thief)
            .map(|(cop, thief)| self.state(cop, thief, turn))
            .find(|&s| solution.outcome(s) != Outcome::Draw)
    }
}
