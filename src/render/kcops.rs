//! Pictures of a several-cops table on a map: the heatmap of every thief
//! cell with the cops fixed, the heatmap of the last cop's cells with the
//! other cops and the thief fixed, and two overviews (the last cop's
//! winning share with the others fixed; every cell's share over the whole
//! table).

use rayon::prelude::*;

use super::{draw_heatmap, draw_overview, for_cop, turn_name, Image, MapView};
use crate::error::{Error, Result};
use crate::format::Coord;
use crate::games::cops::Turn;
use crate::grid::Grid;
use crate::outcome::Outcome;
use crate::tablebase::{KTablebase, Probe};

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

/// The map of a table of a map; a graph's table is refused.
fn grid_of(tb: &KTablebase) -> Result<&Grid> {
    tb.grid().ok_or_else(|| Error::Placement {
        what: "render".to_string(),
        message: format!(
            "the table is of a graph ({} vertices): pictures draw maps (query, play and info read graph tables)",
            tb.header().cells
        ),
    })
}

/// The cells of `cops` (map cells), checked to be `want` of them.
fn fixed_cells(tb: &KTablebase, cops: &[Coord], want: usize) -> Result<Vec<u32>> {
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

/// The heatmap of a several-cops table with its `k` cops fixed on `cops`
/// (map cells `(row, col)`): every thief cell coloured by the outcome from
/// the cops' side with `turn` to move, as [`heatmap`](super::heatmap)
/// colours them; the cops marked `C` (a count when several share a cell).
///
/// # Errors
/// [`Error::Placement`] when the table is of a graph, when `cops` are not
/// `k` free cells; [`Error::Table`] for a damaged block.
pub fn kheatmap(tb: &KTablebase, cops: &[Coord], turn: Turn) -> Result<Image> {
    let grid = grid_of(tb)?;
    let cells = fixed_cells(tb, cops, tb.cops() as usize)?;
    let fixed = tb.position(&cells, 0, turn)?.cops;
    let thieves = (0..tb.game().arena().cells())
        .map(|t| {
            let pos = tb.position(&fixed, t, turn)?;
            Ok((grid.coords(t), tb.probe(&pos)?))
        })
        .collect::<Result<Vec<_>>>()?;
    let at: Vec<Coord> = fixed.iter().map(|&c| grid.coords(c)).collect();
    let title = format!("COPS AT {}  {} TO MOVE", shown(&at), turn_name(turn));
    let marks = cop_marks(&at);
    let marks: Vec<(Coord, &str)> = marks.iter().map(|(c, m)| (*c, m.as_str())).collect();
    let view = KMap { tb, grid };
    Ok(draw_heatmap(&view, &thieves, &marks, &title, turn))
}

/// The heatmap of the last cop: `k - 1` cops fixed on `cops`, the thief on
/// `thief`, and every free cell coloured by the value of the state with
/// the last cop there (`turn` to move), from the cops' side, as
/// [`heatmap`](super::heatmap) colours a one-cop table's cop cells with
/// the thief fixed. The fixed cops are marked `C` (a count when several
/// share a cell), the thief `T`.
///
/// # Errors
/// [`Error::Placement`] when the table is of a graph, when `cops` are not
/// `k - 1` free cells or `thief` is not free; [`Error::Table`] for a
/// damaged block.
pub fn kheatmap_last_cop(
    tb: &KTablebase,
    cops: &[Coord],
    thief: Coord,
    turn: Turn,
) -> Result<Image> {
    let grid = grid_of(tb)?;
    let fixed = fixed_cells(tb, cops, tb.cops() as usize - 1)?;
    let t = tb.map_cell("thief", thief)?;
    let cells = (0..tb.game().arena().cells())
        .into_par_iter()
        .map(|x| {
            let mut all = fixed.clone();
            all.push(x);
            let pos = tb.position(&all, t, turn)?;
            Ok((grid.coords(x), tb.probe(&pos)?))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut at: Vec<Coord> = fixed.iter().map(|&c| grid.coords(c)).collect();
    at.sort_unstable();
    let title = format!(
        "LAST COP ON EACH CELL, COPS AT {}, THIEF AT {},{}  {} TO MOVE",
        if at.is_empty() {
            "-".to_string()
        } else {
            shown(&at)
        },
        thief.0,
        thief.1,
        turn_name(turn)
    );
    let mut marks = cop_marks(&at);
    marks.push((thief, "T".to_string()));
    let marks: Vec<(Coord, &str)> = marks.iter().map(|(c, m)| (*c, m.as_str())).collect();
    let view = KMap { tb, grid };
    Ok(draw_heatmap(&view, &cells, &marks, &title, turn))
}

/// With `k - 1` cops fixed on `cops`: for every free cell of the last
/// cop, the share of thief cells (those not under a cop) from which the
/// cops win with `turn` to move; in cell order (row-major).
///
/// # Errors
/// As [`kheatmap_last_cop`].
pub fn kcop_win_shares_fixed(
    tb: &KTablebase,
    cops: &[Coord],
    turn: Turn,
) -> Result<Vec<(Coord, f64)>> {
    let grid = grid_of(tb)?;
    let fixed = fixed_cells(tb, cops, tb.cops() as usize - 1)?;
    let n = tb.game().arena().cells();
    (0..n)
        .into_par_iter()
        .map(|x| {
            let mut all = fixed.clone();
            all.push(x);
            let (mut wins, mut others) = (0u32, 0u32);
            for t in (0..n).filter(|t| !all.contains(t)) {
                others += 1;
                // Values only: the shares need no distance blocks.
                let value = tb.value_state(tb.game().state(&all, t, turn))?;
                if for_cop(&Probe { value, dte: None }, turn) == Outcome::Win {
                    wins += 1;
                }
            }
            Ok((grid.coords(x), f64::from(wins) / f64::from(others.max(1))))
        })
        .collect()
}

/// Over the whole table: for every free cell `c`, the share of states
/// with `turn` to move, among those whose cop multiset contains `c` (each
/// multiset once, however many of its cops stand on `c`) and whose thief
/// is not under a cop, that the cops win; in cell order (row-major). One
/// pass over the values blocks
/// ([`KTablebase::cop_wins_by_multiset`]).
///
/// # Errors
/// [`Error::Placement`] for a graph's table; [`Error::Table`] for a
/// damaged block.
pub fn kcop_win_shares(tb: &KTablebase, turn: Turn) -> Result<Vec<(Coord, f64)>> {
    let grid = grid_of(tb)?;
    let wins = tb.cop_wins_by_multiset(turn)?;
    let n = tb.game().arena().cells() as usize;
    let k = tb.cops() as usize;
    let (mut won, mut all) = (vec![0u64; n], vec![0u64; n]);
    let mut cops = [0u32; 4];
    for (rank, &w) in wins.iter().enumerate() {
        tb.game().unrank(rank as u64, &mut cops[..k]);
        let cells = &mut cops[..k];
        // Ascending: each cell once.
        let distinct = 1 + cells.windows(2).filter(|p| p[0] != p[1]).count();
        for (i, &c) in cells.iter().enumerate() {
            if i == 0 || cells[i - 1] != c {
                won[c as usize] += u64::from(w);
                all[c as usize] += (n - distinct) as u64;
            }
        }
    }
    Ok((0..n)
        .map(|c| {
            let share = won[c] as f64 / all[c].max(1) as f64;
            (grid.coords(c as u32), share)
        })
        .collect())
}

/// The overview of a several-cops table. With `k - 1` cops fixed on
/// `cops`, every cell of the last cop coloured by
/// [`kcop_win_shares_fixed`] (the fixed cops marked); with none fixed
/// (and `k > 1`), every cell by [`kcop_win_shares`]. Orange 0% to blue
/// 100%, as [`overview`](super::overview).
///
/// # Errors
/// [`Error::Placement`] for a graph's table or another number of cops;
/// [`Error::Table`] for a damaged block.
pub fn koverview(tb: &KTablebase, cops: &[Coord], turn: Turn) -> Result<Image> {
    let grid = grid_of(tb)?;
    let view = KMap { tb, grid };
    if cops.len() + 1 == tb.cops() as usize {
        let shares = kcop_win_shares_fixed(tb, cops, turn)?;
        let mut at = cops.to_vec();
        at.sort_unstable();
        let title = if at.is_empty() {
            format!(
                "COP WINS FROM THIS CELL: SHARE OF THIEF CELLS, {} TO MOVE",
                turn_name(turn)
            )
        } else {
            format!(
                "COPS WIN WITH THE LAST COP HERE: SHARE OF THIEF CELLS, COPS AT {}, {} TO MOVE",
                shown(&at),
                turn_name(turn)
            )
        };
        let marks = cop_marks(&at);
        let marks: Vec<(Coord, &str)> = marks.iter().map(|(c, m)| (*c, m.as_str())).collect();
        return Ok(draw_overview(&view, &shares, &marks, &title));
    }
    if !cops.is_empty() {
        fixed_cells(tb, cops, tb.cops() as usize - 1)?;
    }
    let shares = kcop_win_shares(tb, turn)?;
    let title = format!(
        "COPS WIN WITH A COP HERE: SHARE OF STATES, {} TO MOVE",
        turn_name(turn)
    );
    Ok(draw_overview(&view, &shares, &[], &title))
}
