//! Where each state's bit lives: the free cells' bounding box row by row
//! in a cop cell's record of four bitsets, and the word ranges ([`Span`])
//! the engine tracks changes in.

use std::ops::Range;

use super::KINDS;
use crate::games::cops::CopsAndThief;

/// Word ranges of the rows of the two attractors: "the cop has won" (`CW`
/// or `TL`) and "the thief has won" (`CL` or `TW`). They are tracked apart:
/// the two fronts are usually in different places.
pub(super) type Spans = [Span; 2];

/// A range of words `lo..hi` of a row; empty when `lo >= hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Span {
    pub(super) lo: u32,
    pub(super) hi: u32,
}

impl Span {
    pub(super) const EMPTY: Span = Span {
        lo: u32::MAX,
        hi: 0,
    };

    #[inline]
    pub(super) fn is_empty(self) -> bool {
        self.lo >= self.hi
    }

    #[inline]
    pub(super) fn union(self, other: Span) -> Span {
        Span {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    /// Widened by `margin` words on each side, clipped to `within`.
    #[inline]
    pub(super) fn widen(self, margin: u32, within: Span) -> Span {
        if self.is_empty() {
            return Span::EMPTY;
        }
        Span {
            lo: self.lo.saturating_sub(margin).max(within.lo),
            hi: (self.hi + margin).min(within.hi),
        }
    }

    #[inline]
    pub(super) fn range(self) -> Range<usize> {
        if self.is_empty() {
            0..0
        } else {
            self.lo as usize..self.hi as usize
        }
    }
}

/// Where each state's bit lives.
pub(in crate::solve) struct Layout {
    /// Free cells C.
    pub(super) cells: usize,
    /// Words per bitset row.
    pub(super) words: usize,
    /// Bit position of each free cell in a row.
    pub(super) pos: Vec<u32>,
    /// Free cell at each bit position (`u32::MAX` elsewhere).
    pub(super) id_at: Vec<u32>,
    /// First cell id of each row of the bounding box, and C at the end.
    pub(super) row_cells: Vec<u32>,
    /// The words that hold cell bits.
    pub(super) span: Span,
    /// Words by which a thief move can shift a bit, rounded up.
    pub(super) margin: u32,
    /// Width of the bounding box: a row down is this many bits on.
    pub(super) width: usize,
    /// Per word of a row: the bits of free cells (for reading a row's
    /// cells a word at a time, in cell order).
    pub(super) free: Vec<u64>,
}

impl Layout {
    /// The layout of `game`'s board, cropped to its free cells' bounding box.
    pub(in crate::solve) fn new(game: &CopsAndThief) -> Layout {
        let grid = &game.board().grid;
        let cells = grid.cells();
        if cells == 0 {
            return Layout {
                cells: 0,
                words: 0,
                pos: Vec::new(),
                id_at: Vec::new(),
                row_cells: vec![0],
                span: Span::EMPTY,
                margin: 0,
                width: 0,
                free: Vec::new(),
            };
        }
        let coords: Vec<(usize, usize)> = (0..cells as u32).map(|c| grid.coords(c)).collect();
        let top = coords[0].0;
        let bottom = coords[cells - 1].0;
        let left = coords.iter().map(|c| c.1).min().unwrap_or(0);
        let right = coords.iter().map(|c| c.1).max().unwrap_or(0);
        let (height, width) = (bottom - top + 1, right - left + 1);
        // A shift by a thief move reaches width + 1 bits either way; pad
        // each row with whole words so that every shifted read of a word
        // holding cells stays inside the row.
        let margin = (width + 1).div_ceil(64);
        let base = 64 * margin;
        let used = (base + height * width).div_ceil(64);
        let words = used + margin + 1;
        let pos: Vec<u32> = coords
            .iter()
            .map(|&(r, c)| (base + (r - top) * width + (c - left)) as u32)
            .collect();
        let mut id_at = vec![u32::MAX; words * 64];
        for (id, &p) in pos.iter().enumerate() {
            id_at[p as usize] = id as u32;
        }
        let mut row_cells = vec![0u32; height + 1];
        for (id, &(r, _)) in coords.iter().enumerate().rev() {
            row_cells[r - top] = id as u32;
        }
        row_cells[height] = cells as u32;
        // Rows without free cells start where the next row starts.
        for r in (0..height).rev() {
            if coords[row_cells[r] as usize].0 - top != r {
                row_cells[r] = row_cells[r + 1];
            }
        }
        let mut free = vec![0u64; words];
        for &p in &pos {
            free[p as usize / 64] |= 1 << (p % 64);
        }
        Layout {
            cells,
            words,
            free,
            pos,
            id_at,
            row_cells,
            span: Span {
                lo: margin as u32,
                hi: used as u32,
            },
            margin: margin as u32,
            width,
        }
    }

    /// Cells of the bounding box's fullest row.
    pub(super) fn widest(&self) -> usize {
        (0..self.height())
            .map(|r| self.row(r).len())
            .max()
            .unwrap_or(0)
    }

    /// Rows of the bounding box.
    pub(super) fn height(&self) -> usize {
        self.row_cells.len() - 1
    }

    /// Words of one cop cell's record.
    #[inline]
    pub(super) fn record(&self) -> usize {
        KINDS * self.words
    }

    /// Bytes of the bitsets.
    pub(in crate::solve) fn bytes(&self) -> u64 {
        (self.cells * self.record() * 8) as u64
    }

    /// Cells of bounding-box row `r`.
    #[inline]
    pub(super) fn row(&self, r: usize) -> Range<usize> {
        self.row_cells[r] as usize..self.row_cells[r + 1] as usize
    }

    /// Cop cell, turn, row word and bit of state `s`.
    #[inline]
    pub(super) fn track(&self, s: u64) -> (usize, u64, usize, u64) {
        let pair = s >> 1;
        let (cop, thief) = (
            (pair / self.cells as u64) as usize,
            (pair % self.cells as u64) as usize,
        );
        let bit = self.pos[thief] as usize;
        (cop, s & 1, bit / 64, 1 << (bit % 64))
    }

    /// Record word index and bit of state `s` (and whether the thief moves).
    #[inline]
    pub(super) fn locate(&self, s: u64) -> (usize, u64, bool) {
        let (cop, turn, word, bit) = self.track(s);
        (cop * self.record() + word, bit, turn == 1)
    }
}
