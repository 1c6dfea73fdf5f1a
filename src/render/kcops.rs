//! Pictures of a several-cops table on a map: the heatmap of every thief
//! cell with the cops fixed.

use super::{draw_heatmap, turn_name, Image, MapView};
use crate::error::{Error, Result};
use crate::format::Coord;
use crate::{Grid, KTablebase, Turn};

/// A several-cops table's map, for the drawing code.
struct KMap<'a> {
    tb: &'a KTablebase,
    grid: &'a Grid,
}

impl MapView for KMap<'_> {
    fn rows(&self) -> usize {
        self.grid.height()
    }

    fn cols(&self) -> usize {
        self.grid.width()
    }

    fn is_free(&self, c: Coord) -> bool {
        c.0 < self.rows() && c.1 < self.cols() && self.grid.cell_at(c.0, c.1).is_some()
    }

    fn is_exit(&self, c: Coord) -> bool {
        self.is_free(c)
            && self
                .grid
                .cell_at(c.0, c.1)
                .is_some_and(|cell| self.tb.is_exit(cell))
    }

    fn has_dte(&self) -> bool {
        self.tb.header().has_dte
    }
}

/// The heatmap of a several-cops table with its `k` cops fixed on `cops`
/// (map cells `(row, col)`): every thief cell coloured by the outcome from
/// the cops' side with `turn` to move, as [`heatmap`](super::heatmap)
/// colours them; the cops marked `C` (a count when several share a cell).
///
/// # Errors
/// [`Error::Placement`] when the table is of a graph, when `cops` are not
/// `k` free cells; [`Error::Table`] for a damaged block.
pub fn kheatmap(tb: &KTablebase, cops: &[Coord], turn: Turn) -> Result<Image> {
    let Some(grid) = tb.grid() else {
        return Err(Error::Placement {
            what: "render".to_string(),
            message: "the table is of a graph: pictures draw maps".to_string(),
        });
    };
    let cells = cops
        .iter()
        .map(|&c| tb.map_cell("cop", c))
        .collect::<Result<Vec<u32>>>()?;
    let fixed = tb.position(&cells, 0, turn)?.cops;
    let thieves = (0..grid.free().count_ones() as u32)
        .map(|t| {
            let pos = tb.position(&fixed, t, turn)?;
            Ok((grid.coords(t), tb.probe(&pos)?))
        })
        .collect::<Result<Vec<_>>>()?;
    let at: Vec<Coord> = fixed.iter().map(|&c| grid.coords(c)).collect();
    let shown: Vec<String> = at.iter().map(|c| format!("{},{}", c.0, c.1)).collect();
    let title = format!("COPS AT {}  {} TO MOVE", shown.join(" "), turn_name(turn));
    let counts: Vec<String> = at
        .iter()
        .map(|c| {
            let n = at.iter().filter(|d| *d == c).count();
            if n == 1 {
                "C".to_string()
            } else {
                n.to_string()
            }
        })
        .collect();
    let marks: Vec<(Coord, &str)> = at
        .iter()
        .copied()
        .zip(counts.iter().map(String::as_str))
        .collect();
    let view = KMap { tb, grid };
    Ok(draw_heatmap(&view, &thieves, &marks, &title, turn))
}
