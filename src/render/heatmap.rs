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
use super::{cop_marks, fixed_cells, font, for_cop, shown, turn_name, Fixed, Map};
use crate::error::{Error, Result};
use crate::format::Coord;
use crate::games::cops::Turn;
use crate::outcome::Outcome;
use crate::tablebase::{Probe, Tablebase};

/// The heatmap of a one-cop table: every cell of the moving piece
/// coloured by the outcome from the cop's side (blue: the cop wins,
/// orange: the thief escapes, grey: a draw), dark when the game ends soon
/// and light when late (on tables with distances); walls dark, exits
/// outlined in green, the fixed piece marked; legend below.
///
/// # Errors
/// [`Error::Placement`] when the table is of a graph or of several cops
/// (see [`thief_heatmap`] and [`cop_heatmap`]), or the fixed cell is not
/// free; [`Error::Table`] for a damaged block.
pub fn heatmap(tb: &Tablebase, fixed: Fixed, turn: Turn) -> Result<Image> {
    let map = Map::of(tb)?;
    if tb.cops() != 1 {
        return Err(Error::Placement {
            what: "cops".to_string(),
            message: format!(
                "the table is of {} cops: this picture fixes one cop or the thief of a one-cop table",
                tb.cops()
            ),
        });
    }
    let (cells, at, name, letter) = match fixed {
        Fixed::Cop(c) => (
            thief_cells(&map, &[tb.map_cell("cop", c)?], turn)?,
            c,
            "COP",
            "C",
        ),
        Fixed::Thief(t) => (
            last_cop_cells(&map, &[], tb.map_cell("thief", t)?, turn)?,
            t,
            "THIEF",
            "T",
        ),
    };
    let title = format!("{name} AT {},{}  {} TO MOVE", at.0, at.1, turn_name(turn));
    Ok(draw_heatmap(
        &map,
        &cells,
        &[(at, letter.to_string())],
        &title,
        turn,
    ))
}

/// The heatmap of the thief with the table's `k` cops fixed on `cops`
/// (map cells `(row, col)`): every thief cell coloured by the outcome from
/// the cops' side with `turn` to move, as [`heatmap`] colours them; the
/// cops marked `C` (a count when several share a cell).
///
/// # Errors
/// [`Error::Placement`] when the table is of a graph, when `cops` are not
/// `k` free cells; [`Error::Table`] for a damaged block.
pub fn thief_heatmap(tb: &Tablebase, cops: &[Coord], turn: Turn) -> Result<Image> {
    let map = Map::of(tb)?;
    let cells = fixed_cells(tb, cops, tb.cops() as usize)?;
    let fixed = tb.position(&cells, 0, turn)?.cops;
    let thieves = thief_cells(&map, &fixed, turn)?;
    let at: Vec<Coord> = fixed.iter().map(|&c| map.coords(c)).collect();
    let title = format!("COPS AT {}  {} TO MOVE", shown(&at), turn_name(turn));
    Ok(draw_heatmap(&map, &thieves, &cop_marks(&at), &title, turn))
}

/// The heatmap of the last cop: `k - 1` cops fixed on `cops`, the thief on
/// `thief`, and every free cell coloured by the value of the state with
/// the last cop there (`turn` to move), from the cops' side, as
/// [`heatmap`] colours a one-cop table's cop cells with the thief fixed.
/// The fixed cops are marked `C` (a count when several share a cell), the
/// thief `T`.
///
/// # Errors
/// [`Error::Placement`] when the table is of a graph, when `cops` are not
/// `k - 1` free cells or `thief` is not free; [`Error::Table`] for a
/// damaged block.
pub fn cop_heatmap(tb: &Tablebase, cops: &[Coord], thief: Coord, turn: Turn) -> Result<Image> {
    let map = Map::of(tb)?;
    let fixed = fixed_cells(tb, cops, tb.cops() as usize - 1)?;
    let t = tb.map_cell("thief", thief)?;
    let cells = last_cop_cells(&map, &fixed, t, turn)?;
    let mut at: Vec<Coord> = fixed.iter().map(|&c| map.coords(c)).collect();
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
    if map.has_dte() {
        legend.push((
            lighten(COP, 0.7),
            format!("LIGHTER = LONGER GAME (UP TO {max} PLIES)"),
        ));
    }
    legend
}
