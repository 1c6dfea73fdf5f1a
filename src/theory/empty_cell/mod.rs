//! The empty-cell game (NOI 2011 "rabbit and egg"): a board of the first
//! player's pieces (`O`), the second player's (`X`) and one empty cell (`.`).
//! In turn a player slides one of its own pieces that is 4-adjacent to the
//! empty cell into it; a player who cannot move loses.
//!
//! Solved by matching, not search. Colour the board like a chessboard and
//! call the empty cell's starting colour even. The first player always moves
//! while the empty cell is on an even cell, so it can only ever pull in an
//! `O` from an odd cell, and such an `O` has never moved (moved `O`s land on
//! even cells); symmetrically the second player only pulls in unmoved `X`s
//! from even cells. A cell the empty cell has left is never entered again
//! (it now holds a piece of the wrong kind for its colour). So the game is
//! undirected vertex geography on the bipartite graph whose vertices are the
//! start, the odd `O` cells and the even `X` cells, with edges between
//! 4-neighbours: the empty cell is a token that moves to an adjacent
//! unvisited vertex. In that game the player to move from `v` wins iff `v`
//! is in every maximum matching of the graph of the unvisited vertices and
//! `v` (the classic theorem: the winner follows the matching). A
//! [`DecrementalMatching`] answers that for each position of a game record,
//! removing the visited vertices one by one.
//!
//! `contest.rs` reads the contest's input format.

mod contest;

pub use contest::{parse_contest, read_contest, ContestInput};

use crate::theory::matching::{BipartiteGraph, DecrementalMatching, Vertex};

/// What occupies a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Square {
    /// A piece of the first player (`O`).
    First,
    /// A piece of the second player (`X`).
    Second,
    /// The empty cell (`.`).
    Empty,
}

impl Square {
    /// The character of the contest format: `O`, `X` or `.`.
    #[must_use]
    pub fn as_char(self) -> char {
        match self {
            Square::First => 'O',
            Square::Second => 'X',
            Square::Empty => '.',
        }
    }
}

/// Why a board is not a valid empty-cell position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// The squares do not fill `rows * cols` cells.
    #[error("{squares} squares given for a {rows} x {cols} board")]
    Size {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
        /// Squares given.
        squares: usize,
    },
    /// There must be exactly one empty cell.
    #[error("the board has {count} empty cells; it needs exactly one")]
    EmptyCells {
        /// How many were found.
        count: usize,
    },
}

/// A move of a game record that the rules forbid.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move {} ({} player, round {}) at ({}, {}): {reason}", .index + 1, if .index % 2 == 0 { "first" } else { "second" }, .index / 2 + 1, .row + 1, .col + 1)]
pub struct IllegalMove {
    /// The move's index in the record, from 0 (even: first player).
    pub index: usize,
    /// The 0-based row it named.
    pub row: usize,
    /// The 0-based column it named.
    pub col: usize,
    /// Why it is illegal.
    pub reason: String,
}

/// An empty-cell position: the board and whose turn it is implied (the
/// first player moves first).
///
/// # Example
/// ```
/// use retrograde::theory::empty_cell::EmptyCellGame;
/// // The empty cell walks the path X O . O X O; the player to move wins iff
/// // its cell is in every maximum matching of the unvisited rest.
/// let game = EmptyCellGame::parse_board(&["XO.OXO"]).unwrap();
/// assert_eq!(game.verdicts(&[(0, 1), (0, 0)]).unwrap(), vec![true, true]);
/// assert_eq!(game.verdicts(&[(0, 3), (0, 4)]).unwrap(), vec![true, false]);
/// // After O slides left, the cell right of the hole holds that O: X may not move it.
/// assert_eq!(game.verdicts(&[(0, 1), (0, 2)]).unwrap_err().index, 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmptyCellGame {
    rows: usize,
    cols: usize,
    squares: Vec<Square>,
    empty: usize,
}

impl EmptyCellGame {
    /// The position with these squares in row-major order.
    ///
    /// # Errors
    /// [`BoardError`] when the count is wrong or there is not exactly one
    /// empty cell.
    pub fn new(
        rows: usize,
        cols: usize,
        squares: Vec<Square>,
    ) -> Result<EmptyCellGame, BoardError> {
        if rows.checked_mul(cols) != Some(squares.len()) || squares.is_empty() {
            return Err(BoardError::Size {
                rows,
                cols,
                squares: squares.len(),
            });
        }
        let count = squares.iter().filter(|&&s| s == Square::Empty).count();
        if count != 1 {
            return Err(BoardError::EmptyCells { count });
        }
        let empty = squares
            .iter()
            .position(|&s| s == Square::Empty)
            .unwrap_or(0);
        Ok(EmptyCellGame {
            rows,
            cols,
            squares,
            empty,
        })
    }

    /// The position from rows of `O`, `X` and `.` (other characters count as
    /// `X`; meant for examples and tests).
    ///
    /// # Errors
    /// As [`EmptyCellGame::new`]; ragged rows give [`BoardError::Size`].
    pub fn parse_board(rows: &[&str]) -> Result<EmptyCellGame, BoardError> {
        let cols = rows.first().map_or(0, |r| r.chars().count());
        let squares = rows
            .iter()
            .flat_map(|r| r.chars())
            .map(|c| match c {
                'O' => Square::First,
                '.' => Square::Empty,
                _ => Square::Second,
            })
            .collect();
        EmptyCellGame::new(rows.len(), cols, squares)
    }

    /// Number of rows.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    #[must_use]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The square at `(row, col)` (0-based) in the starting position.
    #[must_use]
    pub fn square(&self, row: usize, col: usize) -> Square {
        self.squares[row * self.cols + col]
    }

    /// The empty cell's `(row, col)` in the starting position.
    #[must_use]
    pub fn empty(&self) -> (usize, usize) {
        (self.empty / self.cols, self.empty % self.cols)
    }

    /// For each position of a game record, before each move: whether the
    /// player to move there wins. `record` lists the cells (0-based) of the
    /// pieces moved, alternately by the first and the second player.
    ///
    /// # Errors
    /// [`IllegalMove`] for the first move the rules forbid.
    ///
    /// # Example
    /// See [`EmptyCellGame`].
    pub fn verdicts(&self, record: &[(usize, usize)]) -> Result<Vec<bool>, IllegalMove> {
        let (graph, vertex) = self.graph();
        let mut matching = DecrementalMatching::new(&graph);
        let mut board = self.squares.clone();
        let mut empty = self.empty;
        let mut verdicts = Vec::with_capacity(record.len());
        for (index, &(row, col)) in record.iter().enumerate() {
            let current = vertex[empty].expect("the empty cell only visits graph vertices");
            verdicts.push(matching.remove(current));
            let mine = if index % 2 == 0 {
                Square::First
            } else {
                Square::Second
            };
            let illegal = |reason: String| IllegalMove {
                index,
                row,
                col,
                reason,
            };
            if row >= self.rows || col >= self.cols {
                return Err(illegal(format!(
                    "off the {} x {} board",
                    self.rows, self.cols
                )));
            }
            let (er, ec) = (empty / self.cols, empty % self.cols);
            if row.abs_diff(er) + col.abs_diff(ec) != 1 {
                return Err(illegal(format!(
                    "not next to the empty cell ({}, {})",
                    er + 1,
                    ec + 1
                )));
            }
            let cell = row * self.cols + col;
            if board[cell] != mine {
                return Err(illegal(format!(
                    "the cell holds `{}`, not the mover's piece `{}`",
                    board[cell].as_char(),
                    mine.as_char()
                )));
            }
            board.swap(cell, empty);
            empty = cell;
        }
        Ok(verdicts)
    }

    /// The rounds (1-based, increasing) in which the first player moved from
    /// a winning position into one that wins for the second player.
    ///
    /// # Errors
    /// [`IllegalMove`] for the first move the rules forbid.
    ///
    /// # Example
    /// ```
    /// use retrograde::theory::empty_cell::EmptyCellGame;
    /// // O wins by sliding in the right-hand O (X must answer from the
    /// // right and O takes the last move); sliding in the left one loses.
    /// let game = EmptyCellGame::parse_board(&["XO.OXO"]).unwrap();
    /// assert_eq!(game.mistakes(&[(0, 1), (0, 0)]).unwrap(), vec![1]);
    /// assert_eq!(game.mistakes(&[(0, 3), (0, 4)]).unwrap(), Vec::<usize>::new());
    /// ```
    pub fn mistakes(&self, record: &[(usize, usize)]) -> Result<Vec<usize>, IllegalMove> {
        let verdicts = self.verdicts(record)?;
        Ok(verdicts
            .chunks(2)
            .enumerate()
            .filter(|(_, pair)| pair.len() == 2 && pair[0] && pair[1])
            .map(|(round, _)| round + 1)
            .collect())
    }

    /// The geography graph (left: the start's colour, the start and its
    /// colour's `X` cells; right: the other colour's `O` cells) and each
    /// cell's vertex.
    fn graph(&self) -> (BipartiteGraph, Vec<Option<Vertex>>) {
        let parity = |cell: usize| (cell / self.cols + cell % self.cols) % 2;
        let start = parity(self.empty);
        let (mut left, mut right) = (0u32, 0u32);
        let vertex: Vec<Option<Vertex>> = (0..self.squares.len())
            .map(|cell| {
                let even = parity(cell) == start;
                match (self.squares[cell], even) {
                    (Square::Empty | Square::Second, true) => {
                        left += 1;
                        Some(Vertex::Left(left - 1))
                    }
                    (Square::First, false) => {
                        right += 1;
                        Some(Vertex::Right(right - 1))
                    }
                    _ => None,
                }
            })
            .collect();
        let mut edges = Vec::new();
        for cell in 0..self.squares.len() {
            let Some(Vertex::Left(a)) = vertex[cell] else {
                continue;
            };
            let (r, c) = (cell / self.cols, cell % self.cols);
            let mut link = |other: usize| {
                if let Some(Vertex::Right(b)) = vertex[other] {
                    edges.push((a, b));
                }
            };
            if r > 0 {
                link(cell - self.cols);
            }
            if r + 1 < self.rows {
                link(cell + self.cols);
            }
            if c > 0 {
                link(cell - 1);
            }
            if c + 1 < self.cols {
                link(cell + 1);
            }
        }
        (
            BipartiteGraph::new(left as usize, right as usize, &edges),
            vertex,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_name_the_place() {
        let err = |text: &str| parse_contest(text, "f").unwrap_err().to_string();
        assert_eq!(
            err("2 2\n.O\nOXX\n0\n"),
            "f:3:1: row 2 has 3 cells, expected 2"
        );
        assert_eq!(
            err("2 2\n.O\nO.\n0\n"),
            "f:3:2: a second empty cell `.`: the board needs exactly one"
        );
        assert_eq!(
            err("1 2\n.Q\n0\n"),
            "f:2:2: unexpected `Q`: cells are `O`, `X` or `.`"
        );
        assert!(err("1 2\n.O\n1\n1 2\n").starts_with("f:4:1: expected the row of move 2"));
        assert!(err("1 2\n.O\n0\n5\n").starts_with("f:4:1: unexpected `5`"));
        assert!(err("1 2\nOO\n0\n").starts_with("f:2:1: the board has no empty cell"));
        assert!(err("x").starts_with("f:1:1: expected the number of rows"));
    }

    #[test]
    fn illegal_moves_are_reported() {
        let game = EmptyCellGame::parse_board(&[".OX", "XOO"]).unwrap();
        let e = game.verdicts(&[(1, 1)]).unwrap_err();
        assert!(e.reason.contains("not next to"), "{e}");
        let e = game.verdicts(&[(1, 0)]).unwrap_err();
        assert!(e.reason.contains("not the mover's piece"), "{e}");
        let e = game.verdicts(&[(0, 1), (5, 0)]).unwrap_err();
        assert_eq!(e.index, 1);
        assert!(e
            .to_string()
            .starts_with("move 2 (second player, round 1) at (6, 1): off the"));
    }
}
