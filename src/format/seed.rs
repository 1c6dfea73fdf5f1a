//! The seed text format: a first line `ROWS COLUMNS`, then that many rows of
//! exactly COLUMNS characters: `*` or `#` wall, `E` exit, `C` or `P` the
//! cop's start, `T` the thief's start, any other printable character free
//! (a tab is not: it is an error, as its width is anyone's guess).

use std::io::BufRead;

use bitvec::vec::BitVec;

use super::{tokens, Coord, Lines, Map, MapFormat};
use crate::error::{Error, Result};
use crate::grid::Grid;

/// The error for a first line that is not `ROWS COLUMNS`.
pub(super) fn header_error<R: BufRead>(lines: &Lines<'_, R>, first: &str) -> Error {
    let header = tokens(first);
    let column = header.get(2).map_or(first.chars().count() + 1, |t| t.0);
    lines.error(
        1,
        column,
        format!(
            "expected a header `ROWS COLUMNS` (two integers), found `{}`",
            first.trim()
        ),
    )
}

/// Parses the rest of a seed map whose first line is `first`.
/// Up to `cops` cop letters are read (the several-cops game's starts);
/// one more is an error at its place.
pub(super) fn parse<R: BufRead>(lines: &mut Lines<'_, R>, first: &str, cops: usize) -> Result<Map> {
    let header = tokens(first);
    if header.len() != 2 {
        return Err(header_error(lines, first));
    }
    let height = lines.positive(header[0].1, 1, header[0].0, "the number of rows")?;
    let width = lines.positive(header[1].1, 1, header[1].0, "the number of columns")?;

    let mut free = BitVec::new();
    let mut cop: Option<(Coord, usize, usize)> = None;
    let mut thief: Option<(Coord, usize, usize)> = None;
    let mut more_cops = Vec::new();
    let mut exits = Vec::new();
    let name = lines.name.clone();
    let error = |line: usize, column: usize, message: String| Error::Parse {
        path: name.clone(),
        line,
        column,
        message,
    };
    lines.rows(height, width, |r, line, row| {
        free.reserve(width);
        for (c, ch) in row.chars().enumerate() {
            let column = c + 1;
            if ch == '\t' {
                return Err(error(
                    line,
                    column,
                    format!(
                        "a tab in a map row, at {}: expected `*` or `#` (wall), `E` (exit), \
                         `C`/`P` (cop), `T` (thief) or another printable character (free)",
                        super::cell_words(r, c)
                    ),
                ));
            }
            free.push(!matches!(ch, '*' | '#'));
            if matches!(ch, 'C' | 'P') && cop.is_some() && 1 + more_cops.len() < cops {
                more_cops.push((r, c));
                continue;
            }
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
                    let message = if who == "cop" && cops > 1 {
                        format!(
                            "cop start {} at {}; --cops {cops} takes at most {cops} cop letters (the first is at line {l}, column {k})",
                            cops + 1,
                            super::cell_words(r, c)
                        )
                    } else {
                        format!(
                            "a second {who} start, at {}; the map may have only one (the first is at line {l}, column {k})",
                            super::cell_words(r, c)
                        )
                    };
                    return Err(error(line, column, message));
                }
                *slot = Some(((r, c), line, column));
            }
        }
        Ok(())
    })?;
    lines.expect_end(&format!("{height} map rows"))?;
    Ok(Map {
        grid: Grid::new(height, width, free),
        format: MapFormat::Seed,
        cop: cop.map(|s| s.0),
        more_cops,
        thief: thief.map(|s| s.0),
        exits,
    })
}
