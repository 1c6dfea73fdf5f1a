//! [`Grid`]: a rectangular map of free and blocked cells, with the free cells
//! compacted to dense ids `0..cells()` in row-major order.
//!
//! Invariant: cell id order is row-major order of the free cells, so ids of
//! cells in one row are consecutive and a cell's vertical neighbours are about
//! one row's worth of free cells away. The state layout of the grid game
//! relies on this for locality.

use bitvec::vec::BitVec;

/// A grid map: dimensions and which cells are free.
///
/// # Example
/// ```
/// use retrograde::Grid;
/// let grid = Grid::from_rows(&["..*", "*.."]);
/// assert_eq!(grid.cells(), 4);
/// assert_eq!(grid.cell_at(1, 1), Some(2));
/// assert_eq!(grid.coords(3), (1, 2));
/// assert_eq!(grid.cell_at(0, 2), None);
/// ```
#[derive(Clone, Debug)]
pub struct Grid {
    height: usize,
    width: usize,
    free: BitVec,
    /// Free cell id of every position, `u32::MAX` for blocked positions.
    id: Vec<u32>,
    /// Row-major position of every free cell id.
    position: Vec<u32>,
}

impl Grid {
    /// Builds a grid from its free-cell bitmap in row-major order.
    ///
    /// # Panics
    /// If `free.len() != height * width` or the grid has 2^32 or more positions.
    #[must_use]
    pub fn new(height: usize, width: usize, free: BitVec) -> Grid {
        assert_eq!(free.len(), height * width, "free bitmap has the wrong size");
        assert!(height * width < u32::MAX as usize, "grid too large");
        let mut id = vec![u32::MAX; height * width];
        let mut position = Vec::new();
        for index in free.iter_ones() {
            id[index] = position.len() as u32;
            position.push(index as u32);
        }
        Grid {
            height,
            width,
            free,
            id,
            position,
        }
    }

    /// Builds a grid from text rows where `*`, `#` and `@` are walls and any
    /// other character is free. Meant for tests and examples.
    ///
    /// # Panics
    /// If the rows have different lengths.
    #[must_use]
    pub fn from_rows(rows: &[&str]) -> Grid {
        let width = rows.first().map_or(0, |r| r.chars().count());
        let mut free = BitVec::with_capacity(rows.len() * width);
        for row in rows {
            assert_eq!(row.chars().count(), width, "ragged rows");
            free.extend(row.chars().map(|c| !matches!(c, '*' | '#' | '@')));
        }
        Grid::new(rows.len(), width, free)
    }

    /// Number of rows.
    #[must_use]
    pub fn height(&self) -> usize {
        self.height
    }

    /// Number of columns.
    #[must_use]
    pub fn width(&self) -> usize {
        self.width
    }

    /// Number of free cells.
    #[must_use]
    pub fn cells(&self) -> usize {
        self.position.len()
    }

    /// Whether `(row, col)` lies inside the map and is free. Signed so that
    /// callers can probe neighbours without bounds arithmetic.
    #[must_use]
    pub fn is_free(&self, row: i64, col: i64) -> bool {
        self.cell_at_signed(row, col).is_some()
    }

    /// Free cell id at `(row, col)`, or `None` for a wall or outside the map.
    #[must_use]
    pub fn cell_at(&self, row: usize, col: usize) -> Option<u32> {
        if row >= self.height || col >= self.width {
            return None;
        }
        let id = self.id[row * self.width + col];
        (id != u32::MAX).then_some(id)
    }

    /// The free cell at `(row, col)` where a piece is placed: the one check
    /// of a placed cell (starts, table positions), `what` naming the piece
    /// in the error.
    ///
    /// # Errors
    /// [`Error::Placement`](crate::Error::Placement) `"{what} ROW,COL"`
    /// when the cell is outside the map (giving the map's ranges) or a
    /// wall.
    pub fn free_cell(&self, what: &str, (row, col): (usize, usize)) -> crate::Result<u32> {
        let what = format!("{what} {row},{col}");
        if row >= self.height || col >= self.width {
            return Err(crate::Error::Placement {
                what,
                message: format!(
                    "outside the map: rows are 0..={}, columns 0..={}",
                    self.height.saturating_sub(1),
                    self.width.saturating_sub(1)
                ),
            });
        }
        self.cell_at(row, col).ok_or(crate::Error::Placement {
            what,
            message: "is a wall: expected a free cell".to_string(),
        })
    }

    /// Like [`Grid::cell_at`] with signed coordinates (negative is outside).
    #[must_use]
    pub fn cell_at_signed(&self, row: i64, col: i64) -> Option<u32> {
        if row < 0 || col < 0 {
            return None;
        }
        self.cell_at(row as usize, col as usize)
    }

    /// `(row, col)` of free cell `cell`.
    ///
    /// # Panics
    /// If `cell >= self.cells()`.
    #[must_use]
    pub fn coords(&self, cell: u32) -> (usize, usize) {
        let p = self.position[cell as usize] as usize;
        (p / self.width, p % self.width)
    }

    /// The free bitmap, row-major.
    #[must_use]
    pub fn free(&self) -> &BitVec {
        &self.free
    }
}

/// The eight steps to a cell's 8-neighbourhood, row-major around the
/// centre: the moves of the grid game and the rim of `--exits rim` both
/// walk them.
pub(crate) const STEPS: [(i64, i64); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];
