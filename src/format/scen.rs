//! MovingAI scenario files (`.scen`): start and goal pairs on a map.
//!
//! A first line `version 1` (optional; `version 0` files have none; other
//! versions are refused, `1.0` is read as 1), then
//! one entry per line, tab-separated:
//! `bucket  map  map_width  map_height  start_x  start_y  goal_x  goal_y  optimal_length`.
//! Coordinates are 0-based with x the column and y the row; entries are
//! returned as `(row, column)` like every other coordinate in the crate.
//!
//! For policeman and thief an entry's **start is the thief** (the agent
//! that wants to reach somewhere) and its **goal is the cop** (the pursuer
//! waiting there). The exits are not part of a scenario.

use std::io::{BufRead, BufReader};
use std::path::Path;

use super::{Coord, Line, Lines};
use crate::error::{Error, Result};
use crate::grid::Grid;

/// One entry (line) of a scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioEntry {
    /// 1-based line of the entry in its file, for messages.
    pub line: usize,
    /// The benchmark's bucket number.
    pub bucket: u64,
    /// The map file name the entry was made for (as written: older
    /// benchmarks give a path such as `maps/dao/arena.map`).
    pub map: String,
    /// 1-based column of the map field on its line, for messages.
    pub map_column: usize,
    /// The map's width the entry declares.
    pub width: usize,
    /// The map's height the entry declares.
    pub height: usize,
    /// The start (the thief's cell) as `(row, column)`.
    pub start: Coord,
    /// The goal (the cop's cell) as `(row, column)`.
    pub goal: Coord,
    /// The octile shortest-path length the benchmark records.
    pub optimal_length: f64,
}

impl ScenarioEntry {
    /// The map's file name: the last component of [`map`](Self::map)
    /// (after the last `/` or `\\`), which is how a batch finds the map
    /// among its files.
    ///
    /// # Example
    /// ```
    /// let text = b"version 1\n0\tmaps/dao/arena.map\t49\t49\t1\t2\t5\t6\t5.65\n";
    /// let scen = retrograde::parse_scen(text, "arena.map.scen").unwrap();
    /// assert_eq!(scen.entries[0].map_file_name(), "arena.map");
    /// assert_eq!(scen.entries[0].map_column, 3);
    /// ```
    pub fn map_file_name(&self) -> &str {
        self.map.rsplit(['/', '\\']).next().unwrap_or(&self.map)
    }
}

/// A parsed scenario file.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The file as named, for messages.
    pub path: String,
    /// Its entries in file order.
    pub entries: Vec<ScenarioEntry>,
}

impl Scenario {
    /// Checks that every entry was made for a map of `grid`'s size, so that
    /// a scenario is not applied to the wrong map by mistake.
    ///
    /// # Errors
    /// [`Error::Parse`] at the first entry whose width or height differs.
    pub fn check_size(&self, grid: &Grid) -> Result<()> {
        let (h, w) = (grid.height(), grid.width());
        for e in &self.entries {
            if (e.width, e.height) != (w, h) {
                return Err(Error::Parse {
                    path: self.path.clone(),
                    line: e.line,
                    column: 1,
                    message: format!(
                        "the entry is for a {} x {} map ({}), but the map is {w} x {h} (width x height)",
                        e.width, e.height, e.map
                    ),
                });
            }
        }
        Ok(())
    }

    /// The entry's thief (start) and cop (goal) as free cell ids of `grid`.
    ///
    /// # Errors
    /// [`Error::Parse`] naming the entry's line when either is blocked.
    pub fn cells(&self, entry: &ScenarioEntry, grid: &Grid) -> Result<(u32, u32)> {
        let cell = |(r, c): Coord, what: &str| {
            grid.cell_at(r, c).ok_or_else(|| Error::Parse {
                path: self.path.clone(),
                line: entry.line,
                column: 1,
                message: format!(
                    "the {what} x={c}, y={r} is a blocked cell of the map: expected a free cell"
                ),
            })
        };
        Ok((cell(entry.start, "start")?, cell(entry.goal, "goal")?))
    }
}

/// Parses scenario text; `path` is only used in messages.
///
/// # Errors
/// [`Error::Parse`] naming the line and column of the first malformed
/// field.
///
/// # Example
/// ```
/// let text = b"version 1\n0\tm.map\t8\t8\t1\t2\t5\t6\t5.65\n";
/// let scen = retrograde::parse_scen(text, "m.scen").unwrap();
/// assert_eq!(scen.entries[0].start, (2, 1)); // (row, column) from x=1, y=2
/// assert_eq!(scen.entries[0].goal, (6, 5));
/// ```
pub fn parse_scen(bytes: &[u8], path: &str) -> Result<Scenario> {
    read_scen(bytes, Path::new(path))
}

/// Reads and parses a scenario file, a line at a time; `-` reads standard
/// input, as [`load_map`](crate::load_map) does.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read, [`Error::Parse`] when it is
/// malformed.
pub fn load_scen(path: &Path) -> Result<Scenario> {
    if path == Path::new("-") {
        return read_scen(std::io::stdin().lock(), path);
    }
    let file = std::fs::File::open(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    read_scen(BufReader::new(file), path)
}

/// Most bytes of one scenario line.
const LINE_LIMIT: usize = 1 << 16;

fn read_scen(reader: impl BufRead, path: &Path) -> Result<Scenario> {
    let mut lines = Lines::new(reader, path, "scenario text");
    let name = lines.name.clone();
    let mut entries = Vec::new();
    loop {
        let number = lines.number + 1;
        let line = match lines.next(LINE_LIMIT)? {
            None => break,
            Some(Line::TooLong) => {
                return Err(lines.too_long(number, LINE_LIMIT, "a scenario entry"))
            }
            Some(Line::Whole(line)) => line.to_string(),
        };
        if number == 1 && line.trim_start().starts_with("version") {
            check_version(&name, &line)?;
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        entries.push(entry(&name, &line, number)?);
    }
    if entries.is_empty() {
        return Err(parse_error(
            &name,
            lines.number.max(1),
            1,
            "no entries: expected lines `bucket map width height start_x start_y goal_x goal_y length`",
        ));
    }
    Ok(Scenario {
        path: name,
        entries,
    })
}

/// The versions of MovingAI's scenario format read here (`1.0` is how
/// some files write 1).
const VERSIONS: [&str; 2] = ["1", "1.0"];

/// Checks a first line `version V`: only version 1 is read.
fn check_version(path: &str, line: &str) -> Result<()> {
    let tokens = super::tokens(line);
    let expected = "expected `version 1` (MovingAI scenario format version 1)";
    let (column, found) = match tokens.as_slice() {
        [(_, "version"), (_, v)] if VERSIONS.contains(v) => return Ok(()),
        [(_, "version"), (column, v)] => (*column, format!("version `{v}`")),
        [(_, "version")] => (line.chars().count() + 1, "no version number".to_string()),
        [(_, "version"), _, (column, extra), ..] => {
            (*column, format!("`{extra}` after the version"))
        }
        [(column, word), ..] => (*column, format!("`{word}`")),
        [] => unreachable!("the line starts with `version`"),
    };
    Err(parse_error(
        path,
        1,
        column,
        format!("{expected}, found {found}"),
    ))
}

fn parse_error(path: &str, line: usize, column: usize, message: impl Into<String>) -> Error {
    Error::Parse {
        path: path.to_string(),
        line,
        column,
        message: message.into(),
    }
}

/// Field names in order, for messages.
const FIELDS: [&str; 9] = [
    "bucket",
    "map",
    "map_width",
    "map_height",
    "start_x",
    "start_y",
    "goal_x",
    "goal_y",
    "optimal_length",
];

fn entry(path: &str, line: &str, number: usize) -> Result<ScenarioEntry> {
    // Fields are tab-separated (a map name may hold spaces); files written
    // with spaces instead are accepted when they have exactly nine fields.
    let fields = split_fields(line);
    if fields.len() != FIELDS.len() {
        let column = fields
            .get(FIELDS.len())
            .map_or(line.chars().count() + 1, |f| f.0);
        return Err(parse_error(
            path,
            number,
            column,
            format!(
                "expected 9 tab-separated fields `{}`, found {}",
                FIELDS.join(" "),
                fields.len()
            ),
        ));
    }
    let int = |k: usize| -> Result<usize> {
        let (column, token) = fields[k];
        token.parse::<usize>().map_err(|_| {
            parse_error(
                path,
                number,
                column,
                format!(
                    "expected {} as a non-negative integer, found `{token}`",
                    FIELDS[k]
                ),
            )
        })
    };
    let (width, height) = (int(2)?, int(3)?);
    let point = |kx: usize, ky: usize| -> Result<Coord> {
        let (x, y) = (int(kx)?, int(ky)?);
        for (k, v, limit) in [(kx, x, width), (ky, y, height)] {
            if v >= limit {
                return Err(parse_error(
                    path,
                    number,
                    fields[k].0,
                    format!(
                        "{} = {v} lies outside the declared {width} x {height} map",
                        FIELDS[k]
                    ),
                ));
            }
        }
        Ok((y, x))
    };
    let (start, goal) = (point(4, 5)?, point(6, 7)?);
    let optimal_length = fields[8].1.parse::<f64>().map_err(|_| {
        parse_error(
            path,
            number,
            fields[8].0,
            format!(
                "expected optimal_length as a number, found `{}`",
                fields[8].1
            ),
        )
    })?;
    Ok(ScenarioEntry {
        line: number,
        bucket: int(0)? as u64,
        map: fields[1].1.to_string(),
        map_column: fields[1].0,
        width,
        height,
        start,
        goal,
        optimal_length,
    })
}

/// Splits on tabs when the line has any, else on runs of spaces; each field
/// with its 1-based column.
fn split_fields(line: &str) -> Vec<(usize, &str)> {
    if line.contains('\t') {
        let mut out = Vec::new();
        let mut column = 1;
        for field in line.split('\t') {
            let lead = field.chars().take_while(|c| *c == ' ').count();
            out.push((column + lead, field.trim()));
            column += field.chars().count() + 1;
        }
        // A trailing tab leaves an empty last field; it is not a field.
        if out.last().is_some_and(|f| f.1.is_empty()) {
            out.pop();
        }
        out
    } else {
        super::tokens(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENTRY: &str = "0\tm.map\t8\t8\t1\t2\t5\t6\t5.65\n";

    fn err(first: &str) -> String {
        parse_scen(format!("{first}\n{ENTRY}").as_bytes(), "m.scen")
            .unwrap_err()
            .to_string()
    }

    /// Version 1 (also written `1.0`, or with a byte-order mark) is read,
    /// as is a file without a version line; any other version is refused
    /// at the place of what is wrong.
    #[test]
    fn only_version_one_is_read() {
        for first in [
            "version 1",
            "version 1.0",
            "\u{feff}version 1",
            "version\t1",
        ] {
            let scen = parse_scen(format!("{first}\n{ENTRY}").as_bytes(), "m.scen").unwrap();
            assert_eq!(scen.entries.len(), 1, "{first}");
            assert_eq!(scen.entries[0].line, 2, "{first}");
        }
        assert_eq!(
            parse_scen(ENTRY.as_bytes(), "m.scen")
                .unwrap()
                .entries
                .len(),
            1
        );
        for (first, at, found) in [
            ("version 2", "m.scen:1:9:", "found version `2`"),
            ("version banana", "m.scen:1:9:", "found version `banana`"),
            ("version 0", "m.scen:1:9:", "found version `0`"),
            ("version", "m.scen:1:8:", "found no version number"),
            (
                "version 1 extra",
                "m.scen:1:11:",
                "found `extra` after the version",
            ),
            ("version1", "m.scen:1:1:", "found `version1`"),
        ] {
            let e = err(first);
            assert!(e.starts_with(at), "{first}: {e}");
            assert!(
                e.contains("expected `version 1`") && e.contains(found),
                "{first}: {e}"
            );
        }
    }
}
