//! Policeman and thief on a grid map, as a [`Game`] whose moves are generated
//! on the fly from per-cell move tables: no adjacency lists of states.
//!
//! State layout: with the free cells compacted to `0..C` in row-major order,
//! state `(P, T, turn)` has index `(P * C + T) * 2 + turn`, `turn` 0 for the
//! cop to move and 1 for the thief. Predecessors of a cop-to-move state lie
//! in the same block of `2C` entries (same P); predecessors of a
//! thief-to-move state lie in blocks P' within about one map row of P. An
//! engine that works in index order therefore touches a sliding window of
//! about `2 * (width + 2)` blocks.

use std::ops::Range;

use crate::board::Board;
use crate::game::{Game, Initial};
use crate::grid::STEPS;
use crate::outcome::Terminal;

/// The rule variants (`docs/rules.md`). `Rules::default()` is the standard game:
/// cop moves like a king with corner cutting, thief like a rook, both may
/// pass, the cop moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// The cop moves in 8 directions (else 4).
    pub cop_diagonal: bool,
    /// The thief moves in 8 directions (else 4).
    pub thief_diagonal: bool,
    /// The cop may pass (stay on its cell).
    pub cop_passes: bool,
    /// The thief may pass.
    pub thief_passes: bool,
    /// A diagonal step needs only its target free (else both orthogonal
    /// neighbours free too, MovingAI's octile convention).
    pub corner_cutting: bool,
    /// The thief moves first from the start.
    pub thief_first: bool,
}

impl Rules {
    /// Who moves first from the start (the cop unless `thief_first`).
    #[must_use]
    pub fn first_mover(&self) -> Turn {
        if self.thief_first {
            Turn::Thief
        } else {
            Turn::Cop
        }
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            cop_diagonal: true,
            thief_diagonal: false,
            cop_passes: true,
            thief_passes: true,
            corner_cutting: true,
            thief_first: false,
        }
    }
}

/// Whose turn it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Turn {
    /// The cop moves next.
    Cop = 0,
    /// The thief moves next.
    Thief = 1,
}

impl Turn {
    /// The player's name, `cop` or `thief`, as text and JSON show it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Turn::Cop => "cop",
            Turn::Thief => "thief",
        }
    }
}

/// Up to 9 move targets of one cell (8 steps and the pass).
#[derive(Clone, Copy, Debug)]
struct Moves {
    len: u32,
    to: [u32; 9],
}

impl Moves {
    #[inline]
    fn as_slice(&self) -> &[u32] {
        &self.to[..self.len as usize]
    }
}

/// Policeman and thief on a [`Board`] under some [`Rules`].
///
/// A player with no move at all (possible only without passing, on an
/// isolated cell) loses: the normal-play convention.
#[derive(Clone, Debug)]
pub struct CopsAndThief {
    board: Board,
    rules: Rules,
    cells: u64,
    exit: Vec<bool>,
    cop_moves: Vec<Moves>,
    thief_moves: Vec<Moves>,
    /// Largest difference between a cell id and a cop move target's id.
    cop_reach: u64,
}

impl CopsAndThief {
    /// Builds the game: compiles each cell's cop and thief move tables.
    #[must_use]
    pub fn new(board: Board, rules: Rules) -> CopsAndThief {
        let grid = &board.grid;
        let table = |diagonal: bool, passes: bool| -> Vec<Moves> {
            (0..grid.cells() as u32)
                .map(|cell| {
                    let (r, c) = grid.coords(cell);
                    let (r, c) = (r as i64, c as i64);
                    let mut moves = Moves { len: 0, to: [0; 9] };
                    let mut push = |to: u32| {
                        moves.to[moves.len as usize] = to;
                        moves.len += 1;
                    };
                    if passes {
                        push(cell);
                    }
                    for (dr, dc) in STEPS {
                        let is_diagonal = dr != 0 && dc != 0;
                        if is_diagonal && !diagonal {
                            continue;
                        }
                        let Some(to) = grid.cell_at_signed(r + dr, c + dc) else {
                            continue;
                        };
                        if is_diagonal
                            && !rules.corner_cutting
                            && !(grid.is_free(r + dr, c) && grid.is_free(r, c + dc))
                        {
                            continue;
                        }
                        push(to);
                    }
                    moves
                })
                .collect()
        };
        let cop_moves = table(rules.cop_diagonal, rules.cop_passes);
        let cop_reach = cop_moves
            .iter()
            .enumerate()
            .flat_map(|(cell, m)| {
                m.as_slice()
                    .iter()
                    .map(move |&to| (cell as u64).abs_diff(u64::from(to)))
            })
            .max()
            .unwrap_or(0);
        CopsAndThief {
            cells: grid.cells() as u64,
            exit: board.exits.iter().map(|b| *b).collect(),
            cop_moves,
            cop_reach,
            thief_moves: table(rules.thief_diagonal, rules.thief_passes),
            board,
            rules,
        }
    }

    /// The board (grid, exits, starts).
    #[must_use]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The rules in force.
    #[must_use]
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Number of free cells C.
    #[must_use]
    pub fn cells(&self) -> u64 {
        self.cells
    }

    /// The cells the cop can move to from `cell` (itself for a pass).
    pub(crate) fn cop_targets(&self, cell: u32) -> &[u32] {
        self.cop_moves[cell as usize].as_slice()
    }

    /// The cells the thief can move to from `cell` (itself for a pass).
    pub(crate) fn thief_targets(&self, cell: u32) -> &[u32] {
        self.thief_moves[cell as usize].as_slice()
    }

    /// Index of state `(cop, thief, turn)` (cells are free cell ids).
    #[inline]
    #[must_use]
    pub fn state(&self, cop: u32, thief: u32, turn: Turn) -> u64 {
        (u64::from(cop) * self.cells + u64::from(thief)) * 2 + turn as u64
    }

    /// `(cop, thief, turn)` of state index `s`.
    #[inline]
    #[must_use]
    pub fn decode(&self, s: u64) -> (u32, u32, Turn) {
        let pair = s >> 1;
        let turn = if s & 1 == 0 { Turn::Cop } else { Turn::Thief };
        ((pair / self.cells) as u32, (pair % self.cells) as u32, turn)
    }

    #[inline]
    fn initial_of(&self, cop: u32, thief: u32, turn: Turn) -> Initial {
        if cop == thief {
            // Rule 1, checked first: the cop has caught the thief.
            Initial::Decided(match turn {
                Turn::Cop => Terminal::Win,
                Turn::Thief => Terminal::Loss,
            })
        } else if self.exit[thief as usize] {
            // Rule 2: the thief has escaped.
            Initial::Decided(match turn {
                Turn::Cop => Terminal::Loss,
                Turn::Thief => Terminal::Win,
            })
        } else {
            let moves = match turn {
                Turn::Cop => self.cop_moves[cop as usize].len,
                Turn::Thief => self.thief_moves[thief as usize].len,
            };
            if moves == 0 {
                Initial::Decided(Terminal::Loss)
            } else {
                Initial::Moves(moves)
            }
        }
    }
}

impl Game for CopsAndThief {
    fn state_count(&self) -> u64 {
        2 * self.cells * self.cells
    }

    fn max_moves(&self) -> u32 {
        9
    }

    fn initial(&self, s: u64) -> Initial {
        let (cop, thief, turn) = self.decode(s);
        self.initial_of(cop, thief, turn)
    }

    #[inline]
    fn for_each_successor(&self, s: u64, mut f: impl FnMut(u64)) {
        let (cop, thief, turn) = self.decode(s);
        if !matches!(self.initial_of(cop, thief, turn), Initial::Moves(_)) {
            return;
        }
        match turn {
            Turn::Cop => {
                for &to in self.cop_moves[cop as usize].as_slice() {
                    f(self.state(to, thief, Turn::Thief));
                }
            }
            Turn::Thief => {
                for &to in self.thief_moves[thief as usize].as_slice() {
                    f(self.state(cop, to, Turn::Cop));
                }
            }
        }
    }

    #[inline]
    fn for_each_predecessor(&self, s: u64, mut f: impl FnMut(u64)) {
        // Every move relation here is symmetric (a step and its reverse need
        // the same free cells, and a pass is its own reverse), so a cell's
        // move table is also the table of cells that can move to it.
        let (cop, thief, turn) = self.decode(s);
        match turn {
            Turn::Cop => {
                // The thief moved last, from a cell `from` to `thief`; the
                // state before it was (cop, from, thief to move), which must
                // not have been terminal.
                let base = u64::from(cop) * self.cells;
                for &from in self.thief_moves[thief as usize].as_slice() {
                    if from != cop && !self.exit[from as usize] {
                        f((base + u64::from(from)) * 2 + 1);
                    }
                }
            }
            Turn::Thief => {
                // The cop moved last; before it, (from, thief, cop to move)
                // was terminal if the thief stood on an exit.
                if self.exit[thief as usize] {
                    return;
                }
                for &from in self.cop_moves[cop as usize].as_slice() {
                    if from != thief {
                        f((u64::from(from) * self.cells + u64::from(thief)) * 2);
                    }
                }
            }
        }
    }

    fn side(&self, s: u64) -> usize {
        (s & 1) as usize
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    fn predecessor_radius(&self) -> Option<u64> {
        // A thief-to-move predecessor differs in the cop cell by at most
        // `cop_reach` ids (2C states per id); a cop-to-move one only in the
        // thief cell, within the same block of 2C states.
        Some((self.cop_reach + 1) * 2 * self.cells)
    }

    fn for_each_initial(&self, range: Range<u64>, mut f: impl FnMut(u64, Initial)) {
        if range.is_empty() {
            return;
        }
        // Walk (cop, thief, turn) alongside the index instead of dividing.
        let (mut cop, mut thief, mut turn) = self.decode(range.start);
        for s in range {
            f(s, self.initial_of(cop, thief, turn));
            if turn == Turn::Cop {
                turn = Turn::Thief;
            } else {
                turn = Turn::Cop;
                thief += 1;
                if u64::from(thief) == self.cells {
                    thief = 0;
                    cop += 1;
                }
            }
        }
    }
}
