//! A position of the cops-and-thief game for any number of cops, in cell
//! ids (a map's free cells in row-major order, or a graph's vertices):
//! coordinates are only for parsing and printing. The one spelling of a
//! position for the engines (a tracked start), the tables and the
//! commands.

use std::fmt;
use std::ops::Deref;

use crate::games::cops::Turn;
use crate::games::multiset::MAX_COPS;

/// The cops of a position: 1 to [`MAX_COPS`] cell ids, ascending (the
/// cops are interchangeable), held inline (a position costs no heap
/// allocation). Reads as a slice.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cops {
    len: u8,
    cells: [u32; MAX_COPS],
}

impl Cops {
    /// The cops on `cells`, in any order; `None` for no cell or more than
    /// [`MAX_COPS`].
    #[must_use]
    pub fn new(cells: &[u32]) -> Option<Cops> {
        if cells.is_empty() || cells.len() > MAX_COPS {
            return None;
        }
        let mut cops = Cops {
            len: cells.len() as u8,
            cells: [0; MAX_COPS],
        };
        cops.cells[..cells.len()].copy_from_slice(cells);
        cops.cells[..cells.len()].sort_unstable();
        Some(cops)
    }

    /// One cop on `cell`.
    #[must_use]
    pub fn one(cell: u32) -> Cops {
        let mut cells = [0; MAX_COPS];
        cells[0] = cell;
        Cops { len: 1, cells }
    }

    /// The cells, ascending.
    #[must_use]
    pub fn as_slice(&self) -> &[u32] {
        &self.cells[..self.len as usize]
    }
}

impl Deref for Cops {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        self.as_slice()
    }
}

impl fmt::Debug for Cops {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

/// A position: the cops' cells, the thief's and the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The cops' cells, ascending.
    pub cops: Cops,
    /// The thief's cell.
    pub thief: u32,
    /// Who moves next.
    pub turn: Turn,
}

impl Position {
    /// The cells of the player to move: the cops' on their turn, the
    /// thief's (one) on the thief's.
    #[must_use]
    pub fn mover(&self) -> &[u32] {
        match self.turn {
            Turn::Cop => self.cops.as_slice(),
            Turn::Thief => std::slice::from_ref(&self.thief),
        }
    }
}
