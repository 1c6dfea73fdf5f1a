//! The seed text format: a first line `ROWS COLUMNS`, then that many rows of
//! exactly COLUMNS characters: `*` or `#` wall, `E` exit, `C` or `P` the
//! cop's start, `T` the thief's start, any other printable character free.

use bitvec::vec::BitVec;

use super::{grid_rows, tokens, Coord, Map, MapFormat, Text};
use crate::error::Result;
use crate::Grid;

pub(super) fn parse(text: &Text<'_>) -> Result<Map> {
    let header = tokens(text.lines[0]);
    if header.len() != 2 {
        let column = header
            .get(2)
            .map_or(text.lines[0].chars().count() + 1, |t| t.0);
        return Err(text.error(
            1,
            column,
            format!(
                "expected a header `ROWS COLUMNS` (two integers), found `{}`",
                text.lines[0].trim()
            ),
        ));
    }
    let height = text.positive(header[0].1, 1, header[0].0, "the number of rows")?;
    let width = text.positive(header[1].1, 1, header[1].0, "the number of columns")?;
    let rows = grid_rows(text, 1, height, width)?;
    text.expect_end(1 + height, &format!("{height} map rows"))?;

    let mut free = BitVec::with_capacity(height * width);
    let mut cop: Option<(Coord, usize, usize)> = None;
    let mut thief: Option<(Coord, usize, usize)> = None;
    let mut exits = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        for (c, ch) in row.chars().enumerate() {
            let (line, column) = (r + 2, c + 1);
            free.push(!matches!(ch, '*' | '#'));
            let slot = match ch {
                'C' | 'P' => Some((&mut cop, "cop")),
                'T' => Some((&mut thief, "thief")),
                'E' => {
                    exits.push((r, c));
                    None
                }
                _ => None,
            };
            if let Some((slot, who)) = slot {
                if let Some((_, l, k)) = *slot {
                    return Err(text.error(
                        line,
                        column,
                        format!(
                            "a second {who} start; the map may have only one (the first is at line {l}, column {k})"
                        ),
                    ));
                }
                *slot = Some(((r, c), line, column));
            }
        }
    }
    Ok(Map {
        grid: Grid::new(height, width, free),
        format: MapFormat::Seed,
        cop: cop.map(|s| s.0),
        thief: thief.map(|s| s.0),
        exits,
    })
}
