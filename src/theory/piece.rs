//! One piece on a `rows x cols` board that moves by fixed (row, column)
//! offsets and must stay on the board; the player who cannot move it loses.
//!
//! State `s` is the cell `row * cols + col`. Successors and predecessors are
//! generated on the fly from the offsets, so the game costs no memory beyond
//! the offset list and plugs into both the retrograde engine and
//! [`grundy_of_acyclic`].

use crate::game::{Game, Initial};
use crate::outcome::Terminal;
use crate::theory::grundy::{grundy_of_acyclic, mex, GrundyError};

/// Why a board cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PieceError {
    /// A side of the board is zero.
    #[error("the board must have at least one row and one column (got {rows} x {cols})")]
    EmptyBoard {
        /// Rows asked for.
        rows: usize,
        /// Columns asked for.
        cols: usize,
    },
    /// More cells than state indices can address in memory.
    #[error("a {rows} x {cols} board has too many cells; use at most 2^32 - 1")]
    TooLarge {
        /// Rows asked for.
        rows: usize,
        /// Columns asked for.
        cols: usize,
    },
}

/// A piece moving by fixed offsets on a rectangular board.
///
/// # Example
/// ```
/// use retrograde::{solve, Engine, Game, Outcome, SolveOptions};
/// use retrograde::theory::piece::PieceGame;
/// // One step up or left on a 3 x 3 board: the corner (0, 0) is terminal.
/// let game = PieceGame::new(3, 3, &[(-1, 0), (0, -1)]).unwrap();
/// let solution = solve(&game, &SolveOptions::new(Engine::Sequential).with_dte_table(true)).unwrap();
/// assert_eq!(solution.outcome(game.cell(2, 2)), Outcome::Loss);
/// assert_eq!(solution.dte(game.cell(2, 2)).unwrap().plies(), 4);
/// assert_eq!(game.coord(game.cell(1, 2)), (1, 2));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceGame {
    rows: usize,
    cols: usize,
    offsets: Vec<(i64, i64)>,
}

impl PieceGame {
    /// The game on a `rows x cols` board with these offsets (repeats are
    /// dropped, order is otherwise kept; an offset that can never stay on the
    /// board is harmless).
    ///
    /// # Errors
    /// [`PieceError::EmptyBoard`] for a side of zero, [`PieceError::TooLarge`]
    /// for 2^32 cells or more.
    pub fn new(rows: usize, cols: usize, offsets: &[(i64, i64)]) -> Result<PieceGame, PieceError> {
        if rows == 0 || cols == 0 {
            return Err(PieceError::EmptyBoard { rows, cols });
        }
        match rows.checked_mul(cols) {
            Some(cells) if (cells as u64) < u64::from(u32::MAX) => {}
            _ => return Err(PieceError::TooLarge { rows, cols }),
        }
        let mut unique: Vec<(i64, i64)> = Vec::with_capacity(offsets.len());
        for &d in offsets {
            if !unique.contains(&d) {
                unique.push(d);
            }
        }
        Ok(PieceGame {
            rows,
            cols,
            offsets: unique,
        })
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

    /// The offsets `(d_row, d_col)`, without repeats.
    #[must_use]
    pub fn offsets(&self) -> &[(i64, i64)] {
        &self.offsets
    }

    /// The state of the piece on `(row, col)`.
    ///
    /// # Panics
    /// If the cell is off the board.
    #[must_use]
    pub fn cell(&self, row: usize, col: usize) -> u64 {
        assert!(
            row < self.rows && col < self.cols,
            "({row}, {col}) is off the board"
        );
        (row * self.cols + col) as u64
    }

    /// The `(row, col)` of state `s`.
    #[must_use]
    pub fn coord(&self, s: u64) -> (usize, usize) {
        let s = s as usize;
        (s / self.cols, s % self.cols)
    }

    /// The cell reached from `(row, col)` by `offset`, if on the board.
    #[must_use]
    pub fn step(&self, (row, col): (usize, usize), (dr, dc): (i64, i64)) -> Option<(usize, usize)> {
        let r = (row as i64).checked_add(dr)?;
        let c = (col as i64).checked_add(dc)?;
        (r >= 0 && c >= 0 && (r as u64) < self.rows as u64 && (c as u64) < self.cols as u64)
            .then_some((r as usize, c as usize))
    }

    /// A linear potential `(a, b)`: every offset that fits on the board
    /// lowers `a * row + b * col`, so sorting cells by it is a topological
    /// order. The search tries small weights and keeps the one with the
    /// fewest distinct values on the board. `None` when no small potential
    /// exists (the offsets may then allow a cycle, or be acyclic only
    /// because of the board's edges).
    #[must_use]
    pub fn potential(&self) -> Option<(i64, i64)> {
        const REACH: i64 = 16;
        let fitting: Vec<(i64, i64)> = self
            .offsets
            .iter()
            .copied()
            .filter(|&(dr, dc)| {
                dr.unsigned_abs() < self.rows as u64 && dc.unsigned_abs() < self.cols as u64
            })
            .collect();
        let span = |a: i64, b: i64| {
            a.unsigned_abs() as u128 * (self.rows as u128 - 1)
                + b.unsigned_abs() as u128 * (self.cols as u128 - 1)
        };
        (-REACH..=REACH)
            .flat_map(|a| (-REACH..=REACH).map(move |b| (a, b)))
            .filter(|&(a, b)| fitting.iter().all(|&(dr, dc)| a * dr + b * dc < 0))
            .min_by_key(|&(a, b)| (span(a, b), a.unsigned_abs() + b.unsigned_abs()))
    }

    /// Grundy value of every cell (indexed by state), computed in the order
    /// of a linear [`potential`](PieceGame::potential) when there is one (a
    /// cache-friendly sweep), else by
    /// [`grundy_of_acyclic`].
    ///
    /// # Errors
    /// [`GrundyError::Cycle`] naming a cell on a cycle when the moves allow
    /// endless play.
    ///
    /// # Example
    /// ```
    /// use retrograde::theory::piece::PieceGame;
    /// let game = PieceGame::new(8, 8, &[(-2, 1), (-2, -1), (1, -2), (-1, -2)]).unwrap();
    /// assert_eq!(game.potential(), Some((1, 1)));
    /// assert_eq!(&game.grundy_values().unwrap()[..8], &[0, 0, 1, 1, 0, 0, 1, 1]);
    /// ```
    pub fn grundy_values(&self) -> Result<Vec<u32>, GrundyError> {
        let Some((a, b)) = self.potential() else {
            return grundy_of_acyclic(self);
        };
        let n = self.rows * self.cols;
        // Counting sort of the cells by potential, shifted to start at 0.
        let low = a.min(0) * (self.rows as i64 - 1) + b.min(0) * (self.cols as i64 - 1);
        let key = |r: usize, c: usize| (a * r as i64 + b * c as i64 - low) as usize;
        let buckets = key(
            if a > 0 { self.rows - 1 } else { 0 },
            if b > 0 { self.cols - 1 } else { 0 },
        ) + 1;
        let mut start = vec![0u32; buckets + 1];
        for r in 0..self.rows {
            for c in 0..self.cols {
                start[key(r, c) + 1] += 1;
            }
        }
        for i in 0..buckets {
            start[i + 1] += start[i];
        }
        let mut order = vec![0u32; n];
        for r in 0..self.rows {
            for c in 0..self.cols {
                let slot = &mut start[key(r, c)];
                order[*slot as usize] = (r * self.cols + c) as u32;
                *slot += 1;
            }
        }
        drop(start);
        let mut values = vec![0u32; n];
        let mut options: Vec<u32> = Vec::with_capacity(self.offsets.len());
        for &s in &order {
            let at = (s as usize / self.cols, s as usize % self.cols);
            options.clear();
            for &d in &self.offsets {
                if let Some((r, c)) = self.step(at, d) {
                    options.push(values[r * self.cols + c]);
                }
            }
            values[s as usize] = mex(&mut options);
        }
        Ok(values)
    }
}

impl Game for PieceGame {
    fn state_count(&self) -> u64 {
        (self.rows * self.cols) as u64
    }

    fn max_moves(&self) -> u32 {
        self.offsets.len() as u32
    }

    fn initial(&self, s: u64) -> Initial {
        let at = self.coord(s);
        match self
            .offsets
            .iter()
            .filter(|&&d| self.step(at, d).is_some())
            .count()
        {
            0 => Initial::Decided(Terminal::Loss),
            k => Initial::Moves(k as u32),
        }
    }

    fn for_each_successor(&self, s: u64, mut f: impl FnMut(u64)) {
        let at = self.coord(s);
        for &d in &self.offsets {
            if let Some((r, c)) = self.step(at, d) {
                f((r * self.cols + c) as u64);
            }
        }
    }

    fn for_each_predecessor(&self, s: u64, mut f: impl FnMut(u64)) {
        let at = self.coord(s);
        for &(dr, dc) in &self.offsets {
            if let (Some(dr), Some(dc)) = (dr.checked_neg(), dc.checked_neg()) {
                if let Some((r, c)) = self.step(at, (dr, dc)) {
                    f((r * self.cols + c) as u64);
                }
            }
        }
    }

    fn for_each_initial(&self, range: std::ops::Range<u64>, mut f: impl FnMut(u64, Initial)) {
        // Walk rows and columns instead of dividing every index.
        let mut s = range.start;
        if s >= range.end {
            return;
        }
        let (mut row, mut col) = self.coord(s);
        while s < range.end {
            let k = self
                .offsets
                .iter()
                .filter(|&&d| self.step((row, col), d).is_some())
                .count();
            f(
                s,
                if k == 0 {
                    Initial::Decided(Terminal::Loss)
                } else {
                    Initial::Moves(k as u32)
                },
            );
            s += 1;
            col += 1;
            if col == self.cols {
                col = 0;
                row += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predecessors_invert_successors() {
        let game = PieceGame::new(5, 4, &[(-2, 1), (1, -3), (0, -1), (-1, -1), (0, -1)]).unwrap();
        assert_eq!(game.offsets().len(), 4);
        assert_eq!(crate::check_game_contract(&game), Ok(()));
        // Normal play: a piece without a move loses.
        for s in 0..game.state_count() {
            let mut count = 0;
            game.for_each_successor(s, |_| count += 1);
            if count == 0 {
                assert_eq!(game.initial(s), Initial::Decided(Terminal::Loss));
            }
        }
    }

    #[test]
    fn acyclic_without_potential_falls_back() {
        // 0 -> 3 -> 1 and 2 -> 0: acyclic on four columns, but 2 * (0, 3) +
        // 3 * (0, -2) = 0, so no linear potential exists.
        let game = PieceGame::new(1, 4, &[(0, 3), (0, -2)]).unwrap();
        assert_eq!(game.potential(), None);
        // 1 is stuck; 3 -> 1, 0 -> 3, 2 -> 0.
        assert_eq!(game.grundy_values().unwrap(), vec![0, 0, 1, 1]);
        let wider = PieceGame::new(1, 6, &[(0, 3), (0, -2)]).unwrap();
        assert!(matches!(
            wider.grundy_values(),
            Err(GrundyError::Cycle { .. })
        ));
    }

    #[test]
    fn potential_ignores_offsets_that_never_fit() {
        let game = PieceGame::new(3, 3, &[(0, 1), (0, -1), (-1, 0), (0, 3)]).unwrap();
        assert!(matches!(
            game.grundy_values(),
            Err(GrundyError::Cycle { .. })
        ));
        let game = PieceGame::new(3, 3, &[(-1, 0), (0, 3), (0, -3)]).unwrap();
        assert_eq!(game.potential(), Some((1, 0)));
        assert_eq!(
            game.grundy_values().unwrap(),
            grundy_of_acyclic(&game).unwrap()
        );
    }

    #[test]
    fn bad_boards() {
        assert!(PieceGame::new(0, 3, &[]).is_err());
        assert!(PieceGame::new(1 << 16, 1 << 16, &[]).is_err());
        let game = PieceGame::new(2, 2, &[(i64::MIN, i64::MAX)]).unwrap();
        assert_eq!(game.initial(0), Initial::Decided(Terminal::Loss));
    }
}
