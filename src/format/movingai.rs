//! The MovingAI grid format:
//! `type octile` / `height H` / `width W` / `map`, then H rows of W
//! characters. Passable: `.` `G` `S`; blocked: `@` `O` `T` `W` (`T` is trees).
//! These maps carry no starts and no exits. Each header key appears once;
//! `type` must be `octile` (the only type of the benchmark sets).

use std::io::BufRead;

use bitvec::vec::BitVec;

use super::{tokens, Line, Lines, Map, MapFormat, HEADER_LINE};
use crate::error::{Error, Result};
use crate::grid::Grid;

/// Parses the rest of a MovingAI map whose first line is `first`.
pub(super) fn parse<R: BufRead>(lines: &mut Lines<'_, R>, first: &str) -> Result<Map> {
    let mut height: Option<(usize, usize)> = None;
    let mut width: Option<(usize, usize)> = None;
    let mut line = first.to_string();
    let mut number = 1;
    loop {
        let t = tokens(&line);
        match t.as_slice() {
            [(_, "type"), (column, kind)] if number == 1 => {
                if *kind != "octile" {
                    return Err(lines.error(
                        number,
                        *column,
                        format!("unknown map type `{kind}`: expected `type octile`"),
                    ));
                }
            }
            [(_, key @ ("height" | "width")), (column, v)] => {
                let slot = if *key == "height" {
                    &mut height
                } else {
                    &mut width
                };
                if let Some((_, first)) = *slot {
                    return Err(lines.error(
                        number,
                        1,
                        format!("a second `{key}` line (the first is line {first})"),
                    ));
                }
                let what = if *key == "height" {
                    "the height"
                } else {
                    "the width"
                };
                *slot = Some((lines.positive(v, number, *column, what)?, number));
            }
            [(_, "map")] => break,
            [] => {}
            _ => {
                let column = t.first().map_or(1, |t| t.0);
                return Err(lines.error(
                    number,
                    column,
                    format!(
                        "unknown header line `{}`: expected `type NAME` (first line), `height N`, `width N` or `map`",
                        line.trim()
                    ),
                ));
            }
        }
        match lines.next(HEADER_LINE)? {
            None => {
                return Err(lines.error(
                    number + 1,
                    1,
                    "file ends inside the header: expected a line `map` before the rows",
                ))
            }
            Some(Line::TooLong) => {
                return Err(lines.too_long(
                    number + 1,
                    HEADER_LINE,
                    "a header line `height N`, `width N` or `map`",
                ))
            }
            Some(Line::Whole(next)) => line = next.to_string(),
        }
        number += 1;
    }
    let (Some((height, _)), Some((width, _))) = (height, width) else {
        return Err(lines.error(
            number,
            1,
            "`map` line before both `height N` and `width N` were given",
        ));
    };
    let mut free = BitVec::new();
    let name = lines.name.clone();
    lines.rows(height, width, |r, line, row| {
        free.reserve(width);
        for (c, ch) in row.chars().enumerate() {
            free.push(match ch {
                '.' | 'G' | 'S' => true,
                '@' | 'O' | 'T' | 'W' => false,
                other => {
                    return Err(Error::Parse {
                        path: name.clone(),
                        line,
                        column: c + 1,
                        message: format!(
                            "unknown terrain character {other:?} at {}: expected `.` `G` `S` (passable) or `@` `O` `T` `W` (blocked)",
                            super::cell_words(r, c)
                        ),
                    })
                }
            });
        }
        Ok(())
    })?;
    lines.expect_end(&format!("{height} map rows"))?;
    Ok(Map {
        grid: Grid::new(height, width, free),
        format: MapFormat::MovingAi,
        cop: None,
        more_cops: Vec::new(),
        thief: None,
        exits: Vec::new(),
    })
}
