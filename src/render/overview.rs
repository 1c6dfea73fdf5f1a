//! Overviews: every cell coloured by the cops' winning share with a cop
//! there (orange 0% to blue 100%): the last cop's share with the other
//! cops fixed (the one cop's share on a one-cop table), or every cell's
//! share over the whole table.

use std::collections::HashMap;

use rayon::prelude::*;

use super::draw::{
    cell_pixels, draw_map, draw_marks, legend_row, Image, Rgb, COP, EXIT, FREE, INK, MARGIN, THIEF,
};
use super::{cop_marks, fixed_cells, font, for_cop, shown, turn_name, Map};
use crate::error::Result;
use crate::format::Coord;
use crate::games::cops::Turn;
use crate::games::multiset::{Ranker, MAX_COPS};
use crate::outcome::Outcome;
use crate::tablebase::{Probe, Tablebase};

/// With `k - 1` cops fixed on `cops`: for every free cell of the last
/// cop, the share of thief cells (those not under a cop) from which the
/// cops win with `turn` to move; in cell order (row-major).
///
/// # Errors
/// [`Error::Placement`](crate::Error::Placement) when the table is of a
/// graph, when `cops` are not `k - 1` free cells;
/// [`Error::Table`](crate::Error::Table) for a damaged block.
pub fn last_cop_win_shares(
    tb: &Tablebase,
    cops: &[Coord],
    turn: Turn,
) -> Result<Vec<(Coord, f64)>> {
    let map = Map::of(tb)?;
    let fixed = fixed_cells(tb, cops, tb.cops() as usize - 1)?;
    let n = tb.cells();
    (0..n)
        .into_par_iter()
        .map(|x| {
            let mut all = fixed.clone();
            all.push(x);
            all.sort_unstable();
            let (mut wins, mut others) = (0u32, 0u32);
            for t in (0..n).filter(|t| !all.contains(t)) {
                others += 1;
                // Values only: the shares need no distance blocks.
                let value = tb.value_state(tb.state_unchecked(&all, t, turn))?;
                if for_cop(&Probe { value, dte: None }, turn) == Outcome::Win {
                    wins += 1;
                }
            }
            Ok((map.coords(x), f64::from(wins) / f64::from(others.max(1))))
        })
        .collect()
}

/// Over the whole table: for every free cell `c`, the share of states
/// with `turn` to move, among those whose cop multiset contains `c` (each
/// multiset once, however many of its cops stand on `c`) and whose thief
/// is not under a cop, that the cops win; in cell order (row-major) (on a
/// one-cop table: the share of the other cells from which the cop wins,
/// [`last_cop_win_shares`] with no cop fixed). One pass over the values
/// blocks
/// ([`Tablebase::cop_wins_by_multiset`]).
///
/// # Errors
/// [`Error::Placement`](crate::Error::Placement) for a graph's table;
/// [`Error::Table`](crate::Error::Table) for a damaged block.
pub fn cop_win_shares(tb: &Tablebase, turn: Turn) -> Result<Vec<(Coord, f64)>> {
    let map = Map::of(tb)?;
    let wins = tb.cop_wins_by_multiset(turn)?;
    let n = tb.cells() as usize;
    let k = tb.cops() as usize;
    let ranker = Ranker::new(n);
    let (mut won, mut all) = (vec![0u64; n], vec![0u64; n]);
    let mut cops = [0u32; MAX_COPS];
    for (rank, &w) in wins.iter().enumerate() {
        ranker.unrank(rank as u64, &mut cops[..k]);
        let cells = &cops[..k];
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
            (map.coords(c as u32), share)
        })
        .collect())
}

/// The overview of a table. With `k - 1` cops fixed on `cops` (none on a
/// one-cop table), every cell of the last cop coloured by
/// [`last_cop_win_shares`] (the fixed cops marked); with none fixed
/// (and `k > 1`), every cell by [`cop_win_shares`]. Orange 0% to blue
/// 100%, with a gradient legend.
///
/// # Errors
/// [`Error::Placement`](crate::Error::Placement) for a graph's table or
/// another number of cops; [`Error::Table`](crate::Error::Table) for a
/// damaged block.
pub fn overview(tb: &Tablebase, cops: &[Coord], turn: Turn) -> Result<Image> {
    let map = Map::of(tb)?;
    if cops.len() + 1 == tb.cops() as usize {
        let shares = last_cop_win_shares(tb, cops, turn)?;
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
        return Ok(draw_overview(&map, &shares, &cop_marks(&at), &title));
    }
    if !cops.is_empty() {
        fixed_cells(tb, cops, tb.cops() as usize - 1)?;
    }
    let shares = cop_win_shares(tb, turn)?;
    let title = format!(
        "COPS WIN WITH A COP HERE: SHARE OF STATES, {} TO MOVE",
        turn_name(turn)
    );
    Ok(draw_overview(&map, &shares, &[], &title))
}

/// The colour of a share `t` in `0..=1`: orange (the thief's) to blue
/// (the cops').
fn gradient(t: f64) -> Rgb {
    let lerp = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
    [
        lerp(THIEF[0], COP[0]),
        lerp(THIEF[1], COP[1]),
        lerp(THIEF[2], COP[2]),
    ]
}

/// An overview picture: every cell of `shares` coloured by its share,
/// other free cells plain, the fixed pieces `marks` drawn with their
/// letters, `title` above and a gradient legend below.
fn draw_overview(
    map: &Map,
    shares: &[(Coord, f64)],
    marks: &[(Coord, String)],
    title: &str,
) -> Image {
    let shares: HashMap<Coord, f64> = shares.iter().copied().collect();
    let s = cell_pixels(map);
    let map_w = map.cols() * s;
    let map_h = map.rows() * s;
    let width = map_w.max(font::text_width(title, 2)).max(300) + 2 * MARGIN;
    let height = MARGIN + 16 + map_h + MARGIN + 60 + MARGIN;
    let mut img = Image::new(width, height);
    img.text(title, MARGIN, MARGIN, 2, INK);
    let y0 = MARGIN + 16;
    draw_map(&mut img, map, MARGIN, y0, s, |c| {
        shares.get(&c).map_or(FREE, |&t| gradient(t))
    });
    draw_marks(&mut img, marks, MARGIN, y0, s);
    let y = y0 + map_h + MARGIN;
    let bar = 256;
    for k in 0..bar {
        img.fill(MARGIN + k, y, 1, 16, gradient(k as f64 / (bar - 1) as f64));
    }
    img.frame(MARGIN, y, bar, 16, 1, INK);
    img.text("0%", MARGIN, y + 22, 2, INK);
    img.text(
        "100%",
        MARGIN + bar - font::text_width("100%", 2),
        y + 22,
        2,
        INK,
    );
    legend_row(&mut img, MARGIN, y + 40, EXIT, "EXIT (OUTLINE)");
    img
}
