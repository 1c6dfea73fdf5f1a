//! Heatmaps: every cell of one piece coloured by the outcome from the
//! cops' side, the other pieces fixed: the thief's cells with every cop
//! fixed, or the last cop's cells with the other cops and the thief
//! fixed.

use std::collections::HashMap;

use rayon::prelude::*;

use super::draw::{
    cell_pixels, draw_map, draw_marks, legend_row, lighten, Image, COP, DRAW, EXIT, FREE, INK,
    MARGIN, THIEF, WALL,
};
use super::{cop_marks, fixed_cells, font, for_cop, shown, turn_name, Map};
use crate::error::Result;
use crate::format::Coord;
use crate::games::cops::Turn;
use crate::outcome::Outcome;
use crate::tablebase::{Probe, Tablebase};

/// The heatmap of a table of `k` cops: every cell of the moving piece
/// coloured by the outcome from the cops' side (blue: the cops win,
/// orange: the thief escapes, grey: a draw), dark when the game ends soon
/// and light when late (on tables with distances); walls dark, exits
/// outlined in green, the fixed pieces marked (`C` for a cop, a count
/// when several share a cell, `T` for the thief); legend below.
///
/// Without `thief`, the `k` cops stand on `cops` (map cells `(row, col)`)
/// and the map shows every thief cell; with it, `k - 1` cops stand on
/// `cops`, the thief on `thief`, and the map shows every cell of the last
/// cop. A one-cop table without the game section (formats 2, 3 and 6)
/// keeps its own titles (`COP AT`, `THIEF AT`).
///
/// # Errors
/// [`Error::Placement`] when the table is of a graph, or the cells are
/// not that many free cells; [`Error::Table`] for a damaged block.
pub fn heatmap(tb: &Tablebase, cops: &[Coord], thief: Option<Coord>, turn: Turn) -> Result<Image> {
    let map = Map::of(tb)?;
    let k = tb.cops() as usize;
    let one_cop = !tb.header().game_section;
    let to_move = turn_name(turn);
    let Some(thief) = thief else {
        let fixed = fixed_cells(tb, cops, k)?;
        let fixed = tb.position(&fixed, 0, turn)?.cops;
        let thieves = thief_cells(&map, &fixed, turn)?;
        let at: Vec<Coord> = fixed.iter().map(|&c| map.coords(c)).collect();
        let title = match at.as_slice() {
            [c] if one_cop => format!("COP AT {},{}  {to_move} TO MOVE", c.0, c.1),
            _ => format!("COPS AT {}  {to_move} TO MOVE", shown(&at)),
        };
        return Ok(draw_heatmap(&map, &thieves, &cop_marks(&at), &title, turn));
    };
    let fixed = fixed_cells(tb, cops, k.saturating_sub(1))?;
    let t = tb.map_cell("thief", thief)?;
    let cells = last_cop_cells(&map, &fixed, t, turn)?;
    let mut at: Vec<Coord> = fixed.iter().map(|&c| map.coords(c)).collect();
    at.sort_unstable();
    let (row, col) = thief;
    let title = if one_cop {
        format!("THIEF AT {row},{col}  {to_move} TO MOVE")
    } else {
        let cops = if at.is_empty() {
            "-".to_string()
        } else {
            shown(&at)
        };
        format!("LAST COP ON EACH CELL, COPS AT {cops}, THIEF AT {row},{col}  {to_move} TO MOVE")
    };
    let mut marks = cop_marks(&at);
    marks.push((thief, "T".to_string()));
    Ok(draw_heatmap(&map, &cells, &marks, &title, turn))
}

/// Every thief cell with its probe, the cops on `cops`, in cell order.
fn thief_cells(map: &Map, cops: &[u32], turn: Turn) -> Result<Vec<(Coord, Probe)>> {
    let probes = map.tb.thief_cells(cops, turn)?;
    Ok((0u32..)
        .zip(probes)
        .map(|(t, p)| (map.coords(t), p))
        .collect())
}

/// Every cell of the last cop with its probe, the other cops on `fixed`
/// and the thief on `thief`, in cell order.
fn last_cop_cells(map: &Map, fixed: &[u32], thief: u32, turn: Turn) -> Result<Vec<(Coord, Probe)>> {
    let tb = map.tb;
    (0..tb.cells())
        .into_par_iter()
        .map(|x| {
            let mut all = fixed.to_vec();
            all.push(x);
            let pos = tb.position(&all, thief, turn)?;
            Ok((map.coords(x), tb.probe(&pos)?))
        })
        .collect()
}

/// The heatmap of `cells` (each free cell of the moving piece with its
/// probe, `turn` to move) on the map, the fixed pieces `marks` drawn with
/// their letters, `title` above and the legend below.
fn draw_heatmap(
    map: &Map,
    cells: &[(Coord, Probe)],
    marks: &[(Coord, String)],
    title: &str,
    turn: Turn,
) -> Image {
    let max = cells
        .iter()
        .filter_map(|(_, p)| p.dte.map(|d| d.plies()))
        .max()
        .unwrap_or(0)
        .max(1);
    let value: HashMap<Coord, Probe> = cells.iter().copied().collect();
    let s = cell_pixels(map);
    let legend = legend(map, max);
    let map_w = map.cols() * s;
    let map_h = map.rows() * s;
    let text_w = legend
        .iter()
        .map(|(_, l)| 22 + font::text_width(l, 2))
        .chain([font::text_width(title, 2)])
        .max()
        .unwrap_or(0);
    let width = map_w.max(text_w) + 2 * MARGIN;
    let height = MARGIN + 16 + map_h + MARGIN + 20 * legend.len() + MARGIN;
    let mut img = Image::new(width, height);
    img.text(title, MARGIN, MARGIN, 2, INK);
    let y0 = MARGIN + 16;
    draw_map(&mut img, map, MARGIN, y0, s, |c| match value.get(&c) {
        Some(p) => {
            let base = match for_cop(p, turn) {
                Outcome::Win => COP,
                Outcome::Loss => THIEF,
                Outcome::Draw => return DRAW,
            };
            let t = p.dte.map_or(0.0, |d| f64::from(d.plies()) / f64::from(max));
            lighten(base, 0.75 * t)
        }
        None => FREE,
    });
    draw_marks(&mut img, marks, MARGIN, y0, s);
    let mut y = y0 + map_h + MARGIN;
    for (c, label) in &legend {
        y = legend_row(&mut img, MARGIN, y, *c, label);
    }
    img
}

/// A heatmap's legend: the outcomes, walls, exits and, on tables with
/// distances, the shading up to `max` plies.
fn legend(map: &Map, max: u32) -> Vec<([u8; 3], String)> {
    let mut legend = vec![
        (COP, "COP WINS".to_string()),
        (THIEF, "THIEF ESCAPES".to_string()),
        (DRAW, "DRAW".to_string()),
        (WALL, "WALL".to_string()),
        (EXIT, "EXIT".to_string()),
    ];
    // A table saved without distances shades nothing: no distance legend.
    if map.tb.header().has_dte {
        legend.push((
            lighten(COP, 0.7),
            format!("LIGHTER = LONGER GAME (UP TO {max} PLIES)"),
        ));
    }
    legend
}
