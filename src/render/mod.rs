//! Pictures of a [`Tablebase`] on a map, for any number of cops: heatmaps
//! of one piece's cells with the others fixed ([`heatmap`]), overviews of the cops' winning
//! share from every cell ([`overview`], [`cop_win_shares`],
//! [`last_cop_win_shares`]) and an animated GIF
//! of a game ([`game_frames`], [`write_gif`]). Images are plain RGB
//! buffers written as PNG (the `png` crate) or GIF (the `gif` crate);
//! legends use a built-in 3 x 5 pixel font.
//!
//! - `heatmap.rs`: [`heatmap()`];
//! - `overview.rs`: [`overview()`], [`cop_win_shares`],
//!   [`last_cop_win_shares`];
//! - `game.rs`: a game's frames and the GIF;
//! - `draw.rs`: the image, colours, the map, pieces and legends;
//! - `font.rs`: the 3 x 5 font.

mod draw;
mod font;
mod game;
mod heatmap;
mod overview;

pub use draw::Image;
pub use game::{game_frames, write_gif};
pub use heatmap::heatmap;
pub use overview::{cop_win_shares, last_cop_win_shares, overview};

use crate::error::{Error, Result};
use crate::format::Coord;
use crate::games::cops::Turn;
use crate::grid::Grid;
use crate::outcome::Outcome;
use crate::tablebase::{Probe, Tablebase};

/// A table's map as the drawing code reads it: size, walls and exits.
#[derive(Clone, Copy)]
struct Map<'a> {
    tb: &'a Tablebase,
    grid: &'a Grid,
}

impl<'a> Map<'a> {
    /// The map of a table of a map; a graph's table is refused, as
    /// pictures draw cells on a grid.
    fn of(tb: &'a Tablebase) -> Result<Map<'a>> {
        let grid = tb.grid().ok_or_else(|| Error::Placement {
            what: "render".to_string(),
            message: format!(
                "the table is of a graph ({} vertices): pictures draw maps (query, play and info read graph tables)",
                tb.header().cells
            ),
        })?;
        Ok(Map { tb, grid })
    }

    fn rows(&self) -> usize {
        self.grid.height()
    }

    fn cols(&self) -> usize {
        self.grid.width()
    }

    /// The cell at `c`, if free.
    fn cell(&self, c: Coord) -> Option<u32> {
        self.tb.cell_at(c)
    }

    fn is_exit(&self, c: Coord) -> bool {
        self.cell(c).is_some_and(|cell| self.tb.is_exit(cell))
    }

    /// The `(row, col)` of a cell of the map.
    fn coords(&self, cell: u32) -> Coord {
        self.grid.coords(cell)
    }
}

/// A turn in the built-in font, which has capitals only.
fn turn_name(t: Turn) -> String {
    t.as_str().to_ascii_uppercase()
}

/// The value of a probe told from the cops' side.
fn for_cop(p: &Probe, turn: Turn) -> Outcome {
    if turn == Turn::Cop {
        p.value
    } else {
        p.value.flip()
    }
}

/// The cells of `cops` (map cells), checked to be `want` of them.
fn fixed_cells(tb: &Tablebase, cops: &[Coord], want: usize) -> Result<Vec<u32>> {
    if cops.len() != want {
        return Err(Error::Placement {
            what: "cops".to_string(),
            message: format!(
                "the table is of {} cops: this picture fixes {want}, {} given",
                tb.cops(),
                cops.len()
            ),
        });
    }
    cops.iter().map(|&c| tb.map_cell("cop", c)).collect()
}

/// The fixed cops' marks: `C`, or how many share a cell.
fn cop_marks(at: &[Coord]) -> Vec<(Coord, String)> {
    let mut marks: Vec<(Coord, String)> = Vec::new();
    for &c in at {
        if marks.iter().any(|(d, _)| *d == c) {
            continue;
        }
        let n = at.iter().filter(|d| **d == c).count();
        marks.push((
            c,
            if n == 1 {
                "C".to_string()
            } else {
                n.to_string()
            },
        ));
    }
    marks
}

/// `r,c r,c ...` for a title.
fn shown(at: &[Coord]) -> String {
    at.iter()
        .map(|c| format!("{},{}", c.0, c.1))
        .collect::<Vec<_>>()
        .join(" ")
}
