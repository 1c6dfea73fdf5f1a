//! The cops game as one value: the board or arena, the number of cops,
//! the rules, the speeds and the start, told once. Built by
//! [`CopsGame::from_map`] or [`CopsGame::from_graph`]; it speaks
//! [`Position`] and is a [`Game`], and the engines, the table writer,
//! the CLI and Python take it as it is.
//!
//! Inside, one of two move generators: one cop at speed 1 on a map is
//! [`CopsAndThief`] (the grid game, whose tables keep their own format),
//! anything else is [`KCops`] on an [`Arena`]. The engines see through
//! the value to the generator (`games::Shape`), so the choice costs
//! nothing in the bit engine's kernels.

use crate::board::{Board, Placement};
use crate::error::{Error, Result};
use crate::format::Map;
use crate::game::{Game, Initial};
use crate::games::arena::Arena;
use crate::games::cops::{CopsAndThief, Rules, Turn};
use crate::games::kcops::KCops;
use crate::games::position::{Cops, Position};
use crate::grid::Grid;
use crate::outcome::{Outcome, Verdict};

/// How far each side moves in a turn, and whether only one cop moves (the
/// lazy cops rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Speeds {
    /// Steps a cop takes in a turn (1 to [`MAX_SPEED`](crate::MAX_SPEED)).
    pub cop: u32,
    /// Steps the thief takes in a turn.
    pub thief: u32,
    /// Only one cop moves in the cops' turn.
    pub lazy: bool,
}

impl Default for Speeds {
    fn default() -> Speeds {
        Speeds {
            cop: 1,
            thief: 1,
            lazy: false,
        }
    }
}

/// The move generator inside a [`CopsGame`].
#[derive(Clone, Debug)]
enum Moves {
    /// One cop at speed 1 on a map.
    Grid(CopsAndThief),
    /// Any number of cops on an arena (a map or a graph).
    Arena(KCops),
}

/// A cops game: `k` cops and a thief on a map or a graph, with its rules,
/// speeds and start.
///
/// # Example
/// Two cops catch the thief on a 5-cycle from cops on 0 and 0 and the
/// thief on 2:
/// ```
/// use retrograde::{solve, Arena, CopsGame, Engine, Position, Rules, SolveOptions, Speeds, Verdict};
/// let cycle = Arena::from_edges(5, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]).unwrap();
/// let game = CopsGame::from_graph(cycle, Rules::default(), 2, Speeds::default()).unwrap()
///     .with_start(&[0, 0], 2).unwrap();
/// let solution = solve(&game, &SolveOptions::new(Engine::Sequential)).unwrap();
/// let start = game.start().unwrap();
/// assert_eq!(game.verdict(solution.outcome(game.index(&start))), Verdict::CopWins);
/// ```
/// One cop on a map catches a thief in a corridor:
/// ```
/// use retrograde::{parse_map, solve, CopsGame, Engine, Placement, Rules, SolveOptions, Speeds, Verdict};
/// let map = parse_map(b"1 3\nC.T\n", "example").unwrap();
/// let game = CopsGame::from_map(&map, &Placement::default(), Rules::default(), 1, Speeds::default()).unwrap();
/// let solution = solve(&game, &SolveOptions::new(Engine::Sequential)).unwrap();
/// let start = game.index(&game.start().unwrap());
/// assert_eq!(game.verdict(solution.outcome(start)), Verdict::CopWins);
/// ```
#[derive(Clone, Debug)]
pub struct CopsGame {
    moves: Moves,
    rules: Rules,
    start: Option<Position>,
}

impl CopsGame {
    /// The game of `k` cops on `map`: the exits and (one cop) starts of
    /// `placement` over the map's own; one cop at speed 1, not lazy, is the
    /// grid game. Several cops take their start from
    /// [`with_start`](Self::with_start) (the map's single cop letter and
    /// `placement.cop` are not a start of `k` cops).
    ///
    /// # Errors
    /// The placement's refusals (a start or exit off the free cells, a
    /// start for one side alone), [`Error::Placement`] for `k` out of
    /// range or a speed out of range, and a game too large to index.
    pub fn from_map(
        map: &Map,
        placement: &Placement,
        rules: Rules,
        k: u32,
        speeds: Speeds,
    ) -> Result<CopsGame> {
        if k == 1 && speeds == Speeds::default() {
            return Ok(CopsGame::of_grid(CopsAndThief::new(
                Board::new(map, placement)?,
                rules,
            )));
        }
        CopsGame::several_from_map(map, placement, rules, k, speeds)
    }

    /// The game of `k` cops on `map` by the several-cops move generator,
    /// even for one cop at speed 1 (its tables then in the several-cops
    /// layout, as `solve --cops K` writes them): the map's walls and the
    /// exits of `placement` over the map's own; the start comes from
    /// [`with_start`](Self::with_start), not from the map's letters.
    ///
    /// # Errors
    /// As [`from_map`](Self::from_map).
    pub fn several_from_map(
        map: &Map,
        placement: &Placement,
        rules: Rules,
        k: u32,
        speeds: Speeds,
    ) -> Result<CopsGame> {
        let walls = Map {
            cop: None,
            more_cops: Vec::new(),
            thief: None,
            ..map.clone()
        };
        let placement = Placement {
            cop: None,
            thief: None,
            ..placement.clone()
        };
        let board = Board::new(&walls, &placement)?;
        // Built from these rules here, so `from_graph`'s check that they
        // give the arena would only build it again.
        let arena = Arena::from_board(&board, rules)
            .with_speeds(speeds.cop, speeds.thief)
            .with_lazy(speeds.lazy);
        CopsGame::on_arena(arena, rules, k)
    }

    /// The game of `k` cops on a graph's `arena` (its exits and passes
    /// set: the game's rules take the arena's passes, and of `rules` only
    /// who moves first counts), or on a map's arena, by the several-cops
    /// move generator. A map's arena must be the one `rules` give (a table
    /// records the rules, and its reader rebuilds the arena from them).
    ///
    /// # Errors
    /// As [`from_map`](Self::from_map); [`Error::Placement`] for a map's
    /// arena that `rules` do not give.
    pub fn from_graph(arena: Arena, rules: Rules, k: u32, speeds: Speeds) -> Result<CopsGame> {
        let arena = arena
            .with_speeds(speeds.cop, speeds.thief)
            .with_lazy(speeds.lazy);
        let (cop_passes, thief_passes) = arena.passes();
        let rules = match arena.grid() {
            None => Rules {
                cop_passes,
                thief_passes,
                ..rules
            },
            Some(grid) => {
                let board = Board {
                    cop: None,
                    thief: None,
                    exits: (0..arena.cells()).map(|c| arena.is_exit(c)).collect(),
                    grid: grid.clone(),
                };
                let rebuilt = Arena::from_board(&board, rules)
                    .with_speeds(speeds.cop, speeds.thief)
                    .with_lazy(speeds.lazy);
                if !rebuilt.same_moves(&arena) {
                    return Err(Error::Placement {
                        what: "rules".to_string(),
                        message:
                            "they do not give this map's arena: pass the rules it was built with"
                                .to_string(),
                    });
                }
                rules
            }
        };
        CopsGame::on_arena(arena, rules, k)
    }

    /// The several-cops game on `arena` (its speeds and lazy rule set)
    /// under `rules`, the rules known to give the arena.
    fn on_arena(arena: Arena, rules: Rules, k: u32) -> Result<CopsGame> {
        let game = KCops::new(arena, k)?.with_thief_first(rules.thief_first);
        Ok(CopsGame::of_arena(game, rules))
    }

    /// The game with its start: `cops` (any order, `k` of them) and the
    /// thief on cell ids, the first mover to move.
    ///
    /// # Errors
    /// [`Error::Placement`] when there are not `k` cops or a cell is not
    /// one of the game's.
    pub fn with_start(mut self, cops: &[u32], thief: u32) -> Result<CopsGame> {
        let cells = self.cells();
        let k = self.cops();
        if cops.len() != k as usize {
            return Err(Error::Placement {
                what: format!("a start of {} cops", cops.len()),
                message: format!("the game has {k} cops"),
            });
        }
        if let Some(&bad) = cops.iter().chain([&thief]).find(|&&c| c >= cells) {
            return Err(Error::Placement {
                what: format!("start cell {bad}"),
                message: format!("the game's cells are 0..{cells}"),
            });
        }
        let start = Position {
            cops: Cops::new(cops).expect("k is 1 to MAX_COPS"),
            thief,
            turn: self.rules.first_mover(),
        };
        if let Moves::Grid(grid) = &self.moves {
            let mut board = grid.board().clone();
            (board.cop, board.thief) = (Some(cops[0]), Some(thief));
            self.moves = Moves::Grid(CopsAndThief::new(board, self.rules));
        }
        self.start = Some(start);
        Ok(self)
    }

    /// The number of cops.
    #[must_use]
    pub fn cops(&self) -> u32 {
        match &self.moves {
            Moves::Grid(_) => 1,
            Moves::Arena(game) => game.cops(),
        }
    }

    /// The rules (on a graph: its passes and who moves first).
    #[must_use]
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The speeds and the lazy rule.
    #[must_use]
    pub fn speeds(&self) -> Speeds {
        match &self.moves {
            Moves::Grid(_) => Speeds::default(),
            Moves::Arena(game) => {
                let (cop, thief) = game.arena().speeds();
                Speeds {
                    cop,
                    thief,
                    lazy: game.lazy(),
                }
            }
        }
    }

    /// The cells (a map's free cells or a graph's vertices).
    #[must_use]
    pub fn cells(&self) -> u32 {
        match &self.moves {
            Moves::Grid(grid) => grid.cells() as u32,
            Moves::Arena(game) => game.arena().cells(),
        }
    }

    /// The start, if the game has one.
    #[must_use]
    pub fn start(&self) -> Option<Position> {
        self.start
    }

    /// The state index of the start, if the game has one.
    #[must_use]
    pub fn start_state(&self) -> Option<u64> {
        self.start.map(|p| self.index(&p))
    }

    /// The state index of `position` (its cops in any order).
    #[must_use]
    pub fn index(&self, position: &Position) -> u64 {
        match &self.moves {
            Moves::Grid(grid) => grid.state(position.cops[0], position.thief, position.turn),
            Moves::Arena(game) => game.state(&position.cops, position.thief, position.turn),
        }
    }

    /// The position of state `s`.
    #[must_use]
    pub fn position(&self, s: u64) -> Position {
        match &self.moves {
            Moves::Grid(grid) => {
                let (cop, thief, turn) = grid.decode(s);
                Position {
                    cops: Cops::one(cop),
                    thief,
                    turn,
                }
            }
            Moves::Arena(game) => game.decode(s),
        }
    }

    /// The cops' verdict for the start state's value (for its mover).
    #[must_use]
    pub fn verdict(&self, start_value: Outcome) -> Verdict {
        Verdict::from_mover(start_value, self.rules.first_mover() == Turn::Cop)
    }

    /// The map's grid (none on a graph).
    #[must_use]
    pub fn grid(&self) -> Option<&Grid> {
        match &self.moves {
            Moves::Grid(grid) => Some(&grid.board().grid),
            Moves::Arena(game) => game.arena().grid(),
        }
    }

    /// The several-cops generator's arena (none for one cop at speed 1
    /// on a map, whose moves are the grid's): a graph's edges, exits and
    /// speeds as the game reads them.
    #[must_use]
    pub fn arena(&self) -> Option<&Arena> {
        self.arena_game().map(KCops::arena)
    }

    /// The board of one cop at speed 1 on a map (its grid, exits and
    /// start cells); none for the several-cops generator (see
    /// [`arena`](Self::arena)).
    #[must_use]
    pub fn board(&self) -> Option<&Board> {
        self.grid_game().map(CopsAndThief::board)
    }

    /// Whether cell `c` is an exit (false for a cell not of the game).
    #[must_use]
    pub fn is_exit(&self, c: u32) -> bool {
        match &self.moves {
            Moves::Grid(grid) => grid.board().exits.get(c as usize).is_some_and(|e| *e),
            Moves::Arena(game) => c < game.arena().cells() && game.arena().is_exit(c),
        }
    }

    /// The grid game inside, when this is one cop at speed 1 on a map.
    #[must_use]
    pub(crate) fn grid_game(&self) -> Option<&CopsAndThief> {
        match &self.moves {
            Moves::Grid(grid) => Some(grid),
            Moves::Arena(_) => None,
        }
    }

    /// The several-cops game inside, for any other game.
    #[must_use]
    pub(crate) fn arena_game(&self) -> Option<&KCops> {
        match &self.moves {
            Moves::Grid(_) => None,
            Moves::Arena(game) => Some(game),
        }
    }
}

impl CopsGame {
    /// The grid game as a cops game, with its board's start.
    pub(crate) fn of_grid(grid: CopsAndThief) -> CopsGame {
        let rules = grid.rules();
        let board = grid.board();
        let start = board.cop.zip(board.thief).map(|(cop, thief)| Position {
            cops: Cops::one(cop),
            thief,
            turn: rules.first_mover(),
        });
        CopsGame {
            moves: Moves::Grid(grid),
            rules,
            start,
        }
    }

    /// The several-cops generator as a cops game under `rules`, no start.
    pub(crate) fn of_arena(game: KCops, rules: Rules) -> CopsGame {
        CopsGame {
            moves: Moves::Arena(game),
            rules,
            start: None,
        }
    }
}

/// Calls `$body` with `$g` bound to the generator inside `$game`.
macro_rules! inner {
    ($game:expr, $g:ident => $body:expr) => {
        match &$game.moves {
            Moves::Grid($g) => $body,
            Moves::Arena($g) => $body,
        }
    };
}

impl Game for CopsGame {
    fn state_count(&self) -> u64 {
        inner!(self, g => g.state_count())
    }

    fn max_moves(&self) -> u32 {
        inner!(self, g => g.max_moves())
    }

    fn initial(&self, s: u64) -> Initial {
        inner!(self, g => g.initial(s))
    }

    fn for_each_successor(&self, s: u64, f: impl FnMut(u64)) {
        inner!(self, g => g.for_each_successor(s, f));
    }

    fn for_each_predecessor(&self, s: u64, f: impl FnMut(u64)) {
        inner!(self, g => g.for_each_predecessor(s, f));
    }

    fn side(&self, s: u64) -> usize {
        inner!(self, g => g.side(s))
    }

    fn predecessor_radius(&self) -> Option<u64> {
        inner!(self, g => g.predecessor_radius())
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        inner!(self, g => g.as_any())
    }

    fn for_each_initial(&self, range: std::ops::Range<u64>, f: impl FnMut(u64, Initial)) {
        inner!(self, g => g.for_each_initial(range, f));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_map, solve, Engine, SolveOptions};

    const MAP: &[u8] = b"4 5\nC...T\n.#.#.\n.....\n..#.E\n";

    fn solved(game: &impl Game) -> Vec<(Outcome, Option<u32>)> {
        let options = SolveOptions::new(Engine::Sequential).with_dte_table(true);
        let solution = solve(game, &options).unwrap();
        (0..game.state_count())
            .map(|s| (solution.outcome(s), solution.dte(s).map(|d| d.plies())))
            .collect()
    }

    /// The game of `k` cops on `MAP` under `rules` and `speeds`.
    fn on_map(rules: Rules, k: u32, speeds: Speeds) -> CopsGame {
        let map = parse_map(MAP, "inline").unwrap();
        CopsGame::from_map(&map, &Placement::default(), rules, k, speeds).unwrap()
    }

    /// One cop at speed 1 on a map is the grid game, with the map's start;
    /// the same board as several cops' arena game with k = 1 gives the same
    /// values and distances state by state (both index `(P * C + T) * 2 +
    /// turn`).
    #[test]
    fn one_cop_on_a_map_is_the_grid_game_and_equals_the_arena_game() {
        let map = parse_map(MAP, "inline").unwrap();
        let rules = Rules::default();
        let game = on_map(rules, 1, Speeds::default());
        assert!(game.grid_game().is_some());
        let start = game.start().expect("the map's starts");
        assert_eq!((start.cops.as_slice(), start.thief), (&[0][..], 4));
        let grid = CopsAndThief::new(Board::new(&map, &Placement::default()).unwrap(), rules);
        assert_eq!(solved(&game), solved(&grid));
        let lazy = Speeds {
            lazy: true,
            ..Speeds::default()
        };
        let arena = on_map(rules, 1, lazy);
        assert!(arena.grid_game().is_none() && arena.start().is_none());
        assert_eq!(solved(&arena), solved(&grid));
    }

    /// Positions and indices are inverse, and the start is the first
    /// mover's, for one cop and for two.
    #[test]
    fn positions_and_indices_round_trip() {
        let thief_first = Rules {
            thief_first: true,
            ..Rules::default()
        };
        for k in [1, 2] {
            let game = on_map(thief_first, k, Speeds::default())
                .with_start(&vec![3; k as usize], 0)
                .unwrap();
            assert_eq!(game.cops(), k);
            for s in 0..game.state_count() {
                assert_eq!(game.index(&game.position(s)), s);
            }
            let start = game.start().unwrap();
            assert_eq!(start.turn, Turn::Thief);
            assert_eq!((start.cops[0], start.thief), (3, 0));
        }
    }

    /// A start of the wrong number of cops or off the cells is refused.
    #[test]
    fn bad_starts_are_refused() {
        let game = on_map(Rules::default(), 2, Speeds::default());
        let cells = game.cells();
        assert!(game.clone().with_start(&[0], 1).is_err());
        assert!(game.clone().with_start(&[0, cells], 1).is_err());
        assert!(game.clone().with_start(&[0, 1], cells).is_err());
        assert!(game.with_start(&[0, 1], 2).is_ok());
    }

    /// Speeds and the lazy rule reach the move generator, and a graph's
    /// game has no grid.
    #[test]
    fn a_graph_game_keeps_its_speeds() {
        let cycle =
            Arena::from_edges(6, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)]).unwrap();
        let speeds = Speeds {
            cop: 2,
            thief: 1,
            lazy: true,
        };
        let game = CopsGame::from_graph(cycle, Rules::default(), 2, speeds).unwrap();
        assert_eq!(game.speeds(), speeds);
        assert!(game.grid().is_none());
        assert_eq!(game.cells(), 6);
    }
}
