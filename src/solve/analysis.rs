//! Whole-map analysis of a solved policeman-and-thief game: how the start
//! pairs split by verdict and which one lasts longest; for several cops,
//! the start placements and the cops' best placement.

use super::solution::Solution;
use crate::board::Board;
use crate::format::Coord;
use crate::games::cops::{CopsAndThief, Turn};
use crate::games::cops_game::CopsGame;
use crate::games::kcops::KCops;
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

impl CopsGame {
    /// Number of states of the one-cop game on `board`, `2 * C^2` for `C`
    /// free cells, without building the move tables.
    #[must_use]
    pub fn state_count_of(board: &Board) -> u64 {
        let cells = board.grid.cells() as u64;
        2 * cells * cells
    }

    /// Tallies the start pairs of `solution` (a solution of this game) by
    /// verdict, from its per-side counts (one parallel sweep on the current
    /// rayon pool, popcounts for the bitboard engine), and finds a longest
    /// one: for one cop at speed 1 on a map (`None` for any other game;
    /// see [`CopsGame::start_placements`]).
    ///
    /// # Example
    /// ```
    /// use retrograde::{parse_map, solve, CopsGame, Engine, Placement, Rules, SolveOptions, Speeds};
    /// let map = parse_map(b"1 3\nC.T\n", "example").unwrap();
    /// let game = CopsGame::from_map(&map, &Placement::default(), Rules::default(), 1, Speeds::default()).unwrap();
    /// let solution = solve(&game, &SolveOptions::new(Engine::Sequential)).unwrap();
    /// let pairs = game.start_pairs(&solution).unwrap();
    /// assert_eq!((pairs.pairs, pairs.cop_wins), (6, 6));
    /// ```
    #[must_use]
    pub fn start_pairs(&self, solution: &Solution) -> Option<StartPairs> {
        Some(self.grid_game()?.start_pairs(solution))
    }

    /// Tallies the start placements of `solution` (a solution of this
    /// game) by verdict from its per-side counts, and finds a longest one
    /// and the best placement of the cops: for the several-cops generator
    /// (`None` for one cop at speed 1 on a map; see
    /// [`CopsGame::start_pairs`]).
    ///
    /// The longest placement comes from the solve's deepest state of the
    /// first mover's side ([`Solution::deepest`]: the counter engines,
    /// and the bitboard kernel for the cops' side) or else from a kept
    /// distance table; the best placement from the kernel
    /// ([`Solution::winning_placement`]) or else from a kept distance
    /// table. A solve with neither (the sweep engine, a counter engine
    /// without `--dte-table`) leaves them unknown.
    ///
    /// # Example
    /// ```
    /// use retrograde::{solve, Arena, CopsGame, Engine, Rules, SolveOptions, Speeds};
    /// let path = Arena::from_edges(3, &[(0, 1), (1, 2)]).unwrap();
    /// let game = CopsGame::from_graph(path, Rules::default(), 2, Speeds::default()).unwrap();
    /// let solution = solve(&game, &SolveOptions::new(Engine::Bitboard)).unwrap();
    /// let p = game.start_placements(&solution).unwrap();
    /// // 6 multisets of 2 cops on 3 cells, the thief on a cell no cop holds.
    /// assert_eq!((p.placements, p.cop_wins), (9, 9));
    /// // Cops on 0 and 1 catch a thief on 2 in one move (no placement
    /// // covers all three cells); [0, 1] ranks first among those.
    /// let best = p.best.unwrap();
    /// assert_eq!((best.cops, best.capture_plies), (vec![0, 1], 1));
    /// ```
    #[must_use]
    pub fn start_placements(&self, solution: &Solution) -> Option<StartPlacements> {
        Some(self.arena_game()?.start_placements(solution))
    }
}

impl CopsAndThief {
    /// [`CopsGame::start_pairs`] of the grid game.
    pub(crate) fn start_pairs(&self, solution: &Solution) -> StartPairs {
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

/// How the start placements of a several-cops game split: every multiset
/// of `k` cop cells with the thief on a cell no cop holds, the first mover
/// to move (the one-cop [`StartPairs`] for `k` cops), with a longest one
/// and the best placement of the cops.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StartPlacements {
    /// Number of placements: `n * C(n + k - 1, k) - n * C(n + k - 2, k - 1)`
    /// for `n` cells (every state of one side but the captures).
    pub placements: u64,
    /// Placements the cops win.
    pub cop_wins: u64,
    /// Placements the thief escapes from.
    pub thief_escapes: u64,
    /// Placements drawn (the thief evades forever).
    pub draws: u64,
    /// A placement at the largest distance to end among them (the
    /// smallest state index among those); `None` when none was decided,
    /// or the solve kept no distance it can be read from (see
    /// [`CopsGame::start_placements`]).
    pub longest: Option<LongestPlacement>,
    /// The cops' placement that wins against every thief cell, the cops
    /// to move, in the fewest plies (the smallest multiset rank on ties):
    /// the one `copnumber` gives for `k` cops. `None` when no placement
    /// wins everywhere, or the solve kept no distance to tell (see
    /// [`CopsGame::start_placements`]).
    pub best: Option<BestPlacement>,
    /// Whether [`StartPlacements::best`] was computed (false when the
    /// solve kept neither the kernel's placement nor distances).
    pub best_known: bool,
}

/// A start placement with the longest game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LongestPlacement {
    /// Its distance to end.
    pub dte: Dte,
    /// The cops' cells, ascending.
    pub cops: Vec<u32>,
    /// The thief's cell.
    pub thief: u32,
}

/// The placement of the cops that wins everywhere fastest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestPlacement {
    /// The cops' cells, ascending.
    pub cops: Vec<u32>,
    /// Its capture time: the longest game from it, in plies, the cops to
    /// move.
    pub capture_plies: u32,
}

impl KCops {
    /// [`CopsGame::start_placements`] of the several-cops generator.
    pub(crate) fn start_placements(&self, solution: &Solution) -> StartPlacements {
        let turn = if self.thief_first() {
            Turn::Thief
        } else {
            Turn::Cop
        };
        let n = u64::from(self.arena().cells());
        let k = self.cops() as usize;
        // The captures (the thief on a cop's cell): for each thief cell,
        // the multisets of the other k - 1 cops; each is that side's WIN
        // (cops to move) or LOSS (thief to move).
        let captures = n * crate::games::multiset::multiset_count(n as usize, k - 1);
        let mut side = solution.counts_by_parity()[turn as usize];
        match turn {
            Turn::Cop => side.win -= captures,
            Turn::Thief => side.loss -= captures,
        }
        let (cop_wins, thief_escapes) = match turn {
            Turn::Cop => (side.win, side.loss),
            Turn::Thief => (side.loss, side.win),
        };
        let longest = self.longest_placement(solution, turn, cop_wins + thief_escapes);
        let (best, best_known) = match solution.winning_placement() {
            Some((cops, plies)) => (
                Some(BestPlacement {
                    cops,
                    capture_plies: plies,
                }),
                true,
            ),
            None if matches!(solution.labels, super::solution::Labels::Multicop(_)) => (None, true),
            None if solution.has_dte_table() => (self.best_from_distances(solution), true),
            None => (None, false),
        };
        StartPlacements {
            placements: self.multisets() * n - captures,
            cop_wins,
            thief_escapes,
            draws: side.draw,
            longest,
            best,
            best_known,
        }
    }

    /// A start placement (`turn` to move) at the largest distance to end,
    /// the smallest state index among them, of the `decided` there are.
    fn longest_placement(
        &self,
        solution: &Solution,
        turn: Turn,
        decided: u64,
    ) -> Option<LongestPlacement> {
        if decided == 0 {
            return None;
        }
        let (dte, s) = match solution.deepest(turn as usize) {
            // The deepest state of the side is a placement unless it is at
            // distance 0, where the captures come first.
            Some((dte, s)) if dte.plies() > 0 => (dte, s),
            Some((dte, _)) => (dte, self.first_decided_placement(solution, turn)?),
            None if solution.has_dte_table() => self.deepest_from_distances(solution, turn)?,
            None => return None,
        };
        let p = self.decode(s);
        Some(LongestPlacement {
            dte,
            cops: p.cops.to_vec(),
            thief: p.thief,
        })
    }

    /// The states of `turn`'s side that are placements (the thief on no
    /// cop's cell), in state order.
    fn placements_of(&self, turn: Turn) -> impl Iterator<Item = u64> + '_ {
        let n = u64::from(self.arena().cells());
        (0..self.multisets() * n)
            .map(move |row| row * 2 + turn as u64)
            .filter(move |&s| {
                let p = self.decode(s);
                !p.cops.contains(&p.thief)
            })
    }

    /// The smallest decided placement of `turn`'s side: a scan in state
    /// order that stops at the first, run only when every decided state of
    /// the side is at distance 0.
    fn first_decided_placement(&self, solution: &Solution, turn: Turn) -> Option<u64> {
        self.placements_of(turn)
            .find(|&s| solution.outcome(s) != Outcome::Draw)
    }

    /// The deepest decided placement of `turn`'s side read from the
    /// distance table (the smallest state index at it).
    fn deepest_from_distances(&self, solution: &Solution, turn: Turn) -> Option<(Dte, u64)> {
        let mut best: Option<(Dte, u64)> = None;
        for s in self.placements_of(turn) {
            if let Some(d) = solution.dte(s) {
                if best.is_none_or(|(b, _)| d.plies() > b.plies()) {
                    best = Some((d, s));
                }
            }
        }
        best
    }

    /// The best placement read from the distance table: every row of the
    /// cops to move all WIN, the one with the least largest distance (the
    /// smallest rank on ties).
    fn best_from_distances(&self, solution: &Solution) -> Option<BestPlacement> {
        let n = u64::from(self.arena().cells());
        let mut best: Option<(u32, u64)> = None;
        for rank in 0..self.multisets() {
            let row = (0..n).map(|t| (rank * n + t) * 2);
            let mut longest = 0;
            let all_won = row.into_iter().all(|s| {
                let won = solution.outcome(s) == Outcome::Win;
                if let Some(d) = solution.dte(s).filter(|_| won) {
                    longest = longest.max(d.plies());
                }
                won
            });
            if all_won && best.is_none_or(|(b, _)| longest < b) {
                best = Some((longest, rank));
            }
        }
        best.map(|(capture_plies, rank)| {
            let mut cops = vec![0u32; self.cops() as usize];
            self.unrank(rank, &mut cops);
            BestPlacement {
                cops,
                capture_plies,
            }
        })
    }
}
