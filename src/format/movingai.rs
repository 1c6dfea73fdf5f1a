//! The MovingAI grid format:
//! `type octile` / `height H` / `width W` / `map`, then H rows of W
//! characters. Passable: `.` `G` `S`; blocked: `@` `O` `T` `W` (`T` is trees).
//! These maps carry no starts and no exits.

use bitvec::vec::BitVec;

use super::{grid_rows, tokens, Map, MapFormat, Text};
use crate::error::Result;
use crate::Grid;

pub(super) fn parse(text: &Text<'_>) -> Result<Map> {
    let mut height = None;
    let mut width = None;
    let mut index = 0;
    loop {
        let Some(line) = text.lines.get(index) else {
            return Err(text.error(
                index + 1,
                1,
                "file ends inside the header: expected a line `map` before the rows",
            ));
        };
        let t = tokens(line);
        let number = index + 1;
        match t.as_slice() {
            [(_, "type"), (_, _)] if index == 0 => {}
            [(_, "height"), (column, v)] => {
                height = Some(text.positive(v, number, *column, "the height")?);
            }
            [(_, "width"), (column, v)] => {
                width = Some(text.positive(v, number, *column, "the width")?);
            }
            [(_, "map")] => break,
            [] => {}
            _ => {
                let column = t.first().map_or(1, |t| t.0);
                return Err(text.error(
                    number,
                    column,
                    format!(
                        "unknown header line `{}`: expected `type NAME` (first line), `height N`, `width N` or `map`",
                        line.trim()
                    ),
                ));
            }
        }
        index += 1;
    }
    let (Some(height), Some(width)) = (height, width) else {
        return Err(text.error(
            index + 1,
            1,
            "`map` line before both `height N` and `width N` were given",
        ));
    };
    let rows = grid_rows(text, index + 1, height, width)?;
    text.expect_end(index + 1 + height, &format!("{height} map rows"))?;
    let mut free = BitVec::with_capacity(height * width);
    for (r, row) in rows.iter().enumerate() {
        for (c, ch) in row.chars().enumerate() {
            free.push(match ch {
                '.' | 'G' | 'S' => true,
                '@' | 'O' | 'T' | 'W' => false,
                other => {
                    return Err(text.error(
                        index + 2 + r,
                        c + 1,
                        format!(
                            "unknown terrain character {other:?}: expected `.` `G` `S` (passable) or `@` `O` `T` `W` (blocked)"
                        ),
                    ))
                }
            });
        }
    }
    Ok(Map {
        grid: Grid::new(height, width, free),
        format: MapFormat::MovingAi,
        cop: None,
        thief: None,
        exits: Vec::new(),
    })
}
