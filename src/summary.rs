//! Whole-map results of a solved policeman-and-thief map: how the start
//! pairs split by verdict and one pair at the longest distance to end.
//! One solve answers every start pair at once, so this costs one pass over
//! the first mover's states.

use rayon::prelude::*;

use crate::{Coord, CopsAndThief, Dte, Solution, Turn, Verdict};

/// How the start pairs of a map split by verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapSummary {
    /// Start pairs: (cop, thief) on distinct free cells with the first
    /// mover of the rules (the cop unless `thief_first`) to move.
    pub pairs: u64,
    /// Pairs the cop wins.
    pub cop_wins: u64,
    /// Pairs the thief escapes from.
    pub thief_escapes: u64,
    /// Pairs drawn (the thief evades forever).
    pub draw: u64,
    /// A start pair at the largest distance to end (the smallest state
    /// index among them); `None` when the engine kept no distances.
    pub longest: Option<Longest>,
}

/// A start pair and its distance to end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Longest {
    /// Distance to end in plies.
    pub dte: Dte,
    /// The cop's cell as `(row, column)`.
    pub cop: Coord,
    /// The thief's cell as `(row, column)`.
    pub thief: Coord,
}

impl MapSummary {
    /// Tallies every start pair of `game` in `solution` (in parallel over
    /// cop cells, on the current rayon pool).
    ///
    /// # Example
    /// ```
    /// use retrograde::{parse_map, solve, Board, CopsAndThief, Engine, MapSummary, Placement, Rules, SolveOptions};
    /// let map = parse_map(b"1 3\nC.E\n", "line").unwrap();
    /// let game = CopsAndThief::new(Board::new(&map, &Placement::default()).unwrap(), Rules::default());
    /// let solution = solve(&game, &SolveOptions::new(Engine::Sequential)).unwrap();
    /// let summary = MapSummary::of(&game, &solution);
    /// assert_eq!(summary.pairs, 3 * 2);
    /// assert_eq!(summary.cop_wins + summary.thief_escapes + summary.draw, summary.pairs);
    /// ```
    #[must_use]
    pub fn of(game: &CopsAndThief, solution: &Solution) -> MapSummary {
        let turn = if game.rules().thief_first {
            Turn::Thief
        } else {
            Turn::Cop
        };
        let cells = game.cells() as u32;
        let tally = (0..cells)
            .into_par_iter()
            .map(|cop| {
                let mut tally = [0u64; 3];
                for thief in (0..cells).filter(|&t| t != cop) {
                    let verdict = game.verdict(solution.outcome(game.state(cop, thief, turn)));
                    tally[verdict as usize] += 1;
                }
                tally
            })
            .reduce(|| [0; 3], |a, b| [a[0] + b[0], a[1] + b[1], a[2] + b[2]]);
        let grid = &game.board().grid;
        let longest = solution.deepest(turn as usize).map(|(dte, s)| {
            let (cop, thief, _) = game.decode(s);
            Longest {
                dte,
                cop: grid.coords(cop),
                thief: grid.coords(thief),
            }
        });
        MapSummary {
            pairs: tally.iter().sum(),
            cop_wins: tally[Verdict::CopWins as usize],
            thief_escapes: tally[Verdict::ThiefEscapes as usize],
            draw: tally[Verdict::Draw as usize],
            longest,
        }
    }

    /// The share of pairs with `count`, 0 when there are no pairs.
    #[must_use]
    pub fn share(&self, count: u64) -> f64 {
        if self.pairs == 0 {
            0.0
        } else {
            count as f64 / self.pairs as f64
        }
    }
}
