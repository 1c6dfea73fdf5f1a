//! Map files: the seed text format and MovingAI `.map`, detected from the
//! content. This is the only place that reads map files; it never solves.

mod movingai;
mod scen;
mod seed;

pub use scen::{load_scen, parse_scen, Scenario, ScenarioEntry};

use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};
use crate::Grid;

/// A `(row, column)` coordinate, 0-based, row 0 at the top.
pub type Coord = (usize, usize);

/// Which format a map was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapFormat {
    /// `n m` header, then rows of `*` `#` (walls), `E` (exits), `C`/`P`
    /// (cop), `T` (thief) and other characters (free).
    Seed,
    /// The MovingAI benchmark format (`type`/`height`/`width`/`map` header).
    MovingAi,
}

impl MapFormat {
    /// Short name: `seed` or `movingai`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            MapFormat::Seed => "seed",
            MapFormat::MovingAi => "movingai",
        }
    }
}

/// A parsed map: the grid plus whatever starts and exits the file carries.
#[derive(Clone, Debug)]
pub struct Map {
    /// Free and blocked cells.
    pub grid: Grid,
    /// The format it was read from.
    pub format: MapFormat,
    /// The cop's start, if the file has one.
    pub cop: Option<Coord>,
    /// The thief's start, if the file has one.
    pub thief: Option<Coord>,
    /// Exit cells marked in the file, row-major.
    pub exits: Vec<Coord>,
}

/// Parses map text, detecting the format from the content: a first line that
/// starts with `type` is MovingAI, anything else the seed format. `path` is
/// only used in error messages.
///
/// # Errors
/// [`Error::Parse`] naming the line and column of the first problem.
///
/// # Example
/// ```
/// let map = retrograde::parse_map(b"1 3\nC.T\n", "inline").unwrap();
/// assert_eq!(map.grid.cells(), 3);
/// assert_eq!(map.cop, Some((0, 0)));
/// assert_eq!(map.thief, Some((0, 2)));
/// ```
pub fn parse_map(bytes: &[u8], path: &str) -> Result<Map> {
    let text = Text::new(bytes, path)?;
    if text.lines.is_empty() || text.lines.iter().all(|l| l.trim().is_empty()) {
        return Err(text.error(
            1,
            1,
            "empty file: expected a seed header `ROWS COLUMNS` or a MovingAI header `type octile`",
        ));
    }
    if text.lines[0].trim_start().starts_with("type") {
        movingai::parse(&text)
    } else {
        seed::parse(&text)
    }
}

/// Reads and parses a map file; `-` reads standard input.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read, [`Error::Parse`] when it is
/// malformed.
pub fn load_map(path: &Path) -> Result<Map> {
    let bytes = if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|source| Error::Io {
                path: path.to_path_buf(),
                source,
            })?;
        buf
    } else {
        std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?
    };
    parse_map(&bytes, &path.display().to_string())
}

/// Map text split into lines (without `\n` or a trailing `\r`), checked to be
/// UTF-8 without control characters, with the path for error messages.
pub(crate) struct Text<'a> {
    pub(crate) path: &'a str,
    pub(crate) lines: Vec<&'a str>,
}

impl<'a> Text<'a> {
    fn new(bytes: &'a [u8], path: &'a str) -> Result<Text<'a>> {
        let mut lines = Vec::new();
        for (number, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            let line = std::str::from_utf8(raw).map_err(|e| Error::Parse {
                path: path.to_string(),
                line: number + 1,
                column: String::from_utf8_lossy(&raw[..e.valid_up_to()])
                    .chars()
                    .count()
                    + 1,
                message: "invalid UTF-8: this looks like a binary file, expected map text"
                    .to_string(),
            })?;
            if let Some((column, c)) = line
                .chars()
                .enumerate()
                .find(|&(_, c)| c.is_control() && c != '\t')
            {
                return Err(Error::Parse {
                    path: path.to_string(),
                    line: number + 1,
                    column: column + 1,
                    message: format!(
                        "control character {:?}: this looks like a binary file, expected map text",
                        c
                    ),
                });
            }
            lines.push(line);
        }
        // A final newline does not start another line.
        if lines.last() == Some(&"") {
            lines.pop();
        }
        Ok(Text { path, lines })
    }

    /// A parse error at a 1-based line and column.
    pub(crate) fn error(&self, line: usize, column: usize, message: impl Into<String>) -> Error {
        Error::Parse {
            path: self.path.to_string(),
            line,
            column,
            message: message.into(),
        }
    }

    /// Checks that nothing but blank lines follows line index `from` (0-based).
    pub(crate) fn expect_end(&self, from: usize, what: &str) -> Result<()> {
        match self.lines[from.min(self.lines.len())..]
            .iter()
            .position(|l| !l.trim().is_empty())
        {
            None => Ok(()),
            Some(k) => Err(self.error(
                from + k + 1,
                1,
                format!("expected end of file after {what}, found more text"),
            )),
        }
    }

    /// Parses a positive integer token starting at `column` (1-based).
    pub(crate) fn positive(
        &self,
        token: &str,
        line: usize,
        column: usize,
        what: &str,
    ) -> Result<usize> {
        match token.parse::<usize>() {
            Ok(v) if v > 0 && v <= MAX_SIDE => Ok(v),
            Ok(_) => Err(self.error(
                line,
                column,
                format!("{what} must be between 1 and {MAX_SIDE}, found `{token}`"),
            )),
            Err(_) => Err(self.error(
                line,
                column,
                format!("expected {what} as a positive integer, found `{token}`"),
            )),
        }
    }
}

/// Largest accepted number of rows or columns.
const MAX_SIDE: usize = 65_535;

/// Splits a line into whitespace-separated tokens with their 1-based columns.
pub(crate) fn tokens(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (column, (byte, c)) in line.char_indices().enumerate() {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some((column, byte)),
            (true, Some((col, b))) => {
                out.push((col + 1, &line[b..byte]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some((col, b)) = start {
        out.push((col + 1, &line[b..]));
    }
    out
}

/// Checks that `rows` map rows follow line index `first` and each has exactly
/// `width` characters; returns them.
pub(crate) fn grid_rows<'a>(
    text: &Text<'a>,
    first: usize,
    height: usize,
    width: usize,
) -> Result<Vec<&'a str>> {
    let mut rows = Vec::with_capacity(height);
    for r in 0..height {
        let index = first + r;
        let Some(line) = text.lines.get(index) else {
            return Err(text.error(
                index + 1,
                1,
                format!(
                    "expected {height} map rows, found only {r} (file ends at line {})",
                    text.lines.len()
                ),
            ));
        };
        let len = line.chars().count();
        if len != width {
            let column = if len > width { width + 1 } else { len + 1 };
            return Err(text.error(
                index + 1,
                column,
                format!("map row {} has {len} characters, expected {width}", r + 1),
            ));
        }
        rows.push(*line);
    }
    Ok(rows)
}

/// The format the first bytes of a file announce, without parsing the rest:
/// a first line starting with `type` is MovingAI, one of exactly two
/// unsigned integers is a seed header. `None` for anything else (empty,
/// binary or other text). Directory walks use it to tell maps from other
/// files; [`parse_map`] decides the same way.
///
/// # Example
/// ```
/// use retrograde::{sniff_map, MapFormat};
/// assert_eq!(sniff_map(b"3 4\nC..E\n"), Some(MapFormat::Seed));
/// assert_eq!(sniff_map(b"type octile\nheight 1\n"), Some(MapFormat::MovingAi));
/// assert_eq!(sniff_map(b"# notes\n"), None);
/// ```
#[must_use]
pub fn sniff_map(head: &[u8]) -> Option<MapFormat> {
    let first = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = String::from_utf8_lossy(first);
    if first.trim_start().starts_with("type") {
        return Some(MapFormat::MovingAi);
    }
    let tokens: Vec<&str> = first.split_whitespace().collect();
    (tokens.len() == 2 && tokens.iter().all(|t| t.parse::<u64>().is_ok()))
        .then_some(MapFormat::Seed)
}
