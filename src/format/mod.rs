//! Input files: maps (the seed text format and MovingAI `.map`, detected
//! from the content), scenarios, edge lists and graph6. The only place that
//! parses them; it never builds a game or solves.
//!
//! - `mod.rs`: [`Map`], [`parse_map`], [`load_map`], map format detection
//!   ([`sniff_map`]) and the bounded line reader;
//! - `seed.rs`: the seed text format;
//! - `movingai.rs`: MovingAI `.map`;
//! - `scen.rs`: MovingAI scenarios (`.scen`);
//! - `edges.rs`: edge lists, a line at a time ([`EdgeLines`]);
//! - `graph6.rs`: graph6 graphs, one a line;
//! - `sniff.rs`: [`sniff()`], what any file holds by its first bytes, and
//!   [`load_graph_file`].

mod edges;
pub(crate) mod graph6;
mod movingai;
mod scen;
mod seed;
mod sniff;

pub use edges::{
    load_edge_list, load_edge_list_within, looks_like_graph6, parse_edge_list, EdgeLines, EdgeList,
};
pub use scen::{load_scen, parse_scen, Scenario, ScenarioEntry};
pub use sniff::{load_graph_file, sniff, sniff_path, FileKind, GraphFormat, SNIFF_BYTES};

use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::error::{Error, Result};
use crate::grid::Grid;

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
    /// Further cop starts (a seed map's cop letters after the first, in
    /// reading order): read only by [`load_map_with_cops`], for the
    /// several-cops game; empty otherwise.
    pub more_cops: Vec<Coord>,
    /// The thief's start, if the file has one.
    pub thief: Option<Coord>,
    /// Exit cells marked in the file, row-major.
    pub exits: Vec<Coord>,
}

/// Parses map text, detecting the format from the content: a first line that
/// starts with `type` is MovingAI, anything else the seed format. `path` is
/// only used in error messages. A UTF-8 byte-order mark is skipped.
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
    read_map(bytes, Path::new(path), 1)
}

/// Reads and parses a map file; `-` reads standard input. The input is read
/// a line at a time and each line checked as it arrives, so a bad file
/// (binary data, an endless device, a huge file with a garbage header) is
/// rejected after its first bad line, not after reading it all.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read, [`Error::Parse`] when it is
/// malformed.
pub fn load_map(path: &Path) -> Result<Map> {
    load_map_with_cops(path, 1)
}

/// Like [`load_map`], but a seed map may hold up to `cops` cop letters
/// (`C` or `P`), the starts of the several-cops game: the first is
/// [`Map::cop`], the others [`Map::more_cops`].
///
/// # Errors
/// As [`load_map`]; one cop letter more than `cops` is an error at its
/// line and column.
pub fn load_map_with_cops(path: &Path, cops: usize) -> Result<Map> {
    if path == Path::new("-") {
        return read_map(std::io::stdin().lock(), path, cops);
    }
    let file = std::fs::File::open(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    read_map(BufReader::with_capacity(1 << 16, file), path, cops)
}

/// How map errors name rows and cells: as `--cop ROW,COL` does, from 0,
/// while lines and columns of the file count from 1.
pub(crate) const COUNT_FROM_0: &str = "rows and columns count from 0, as in --cop ROW,COL";

/// A map cell in an error: `cell 2,5 (rows and columns count from 0, ...)`.
pub(crate) fn cell_words(row: usize, col: usize) -> String {
    format!("cell {row},{col} ({COUNT_FROM_0})")
}

/// Most bytes of a line before the map rows (a header line, or a blank one).
const HEADER_LINE: usize = 1 << 16;

/// Most bytes of blank lines accepted before the header or after the rows.
const BLANK_TAIL: u64 = 1 << 16;

fn read_map(reader: impl BufRead, path: &Path, cops: usize) -> Result<Map> {
    let mut lines = Lines::new(reader, path, "map text");
    let empty =
        "empty file: expected a seed header `ROWS COLUMNS` or a MovingAI header `type octile`";
    let Some(first) = lines.next(HEADER_LINE)? else {
        return Err(lines.error(1, 1, empty));
    };
    let Line::Whole(first) = first else {
        return Err(lines.too_long(
            1,
            HEADER_LINE,
            "a seed header `ROWS COLUMNS` or a MovingAI header `type octile`",
        ));
    };
    let first = first.to_string();
    if first.trim().is_empty() {
        // Blank lines only make an empty file; otherwise the seed header is
        // missing from line 1.
        let start = lines.bytes();
        loop {
            match lines.next(HEADER_LINE)? {
                None => return Err(lines.error(1, 1, empty)),
                Some(Line::Whole(l)) if l.trim().is_empty() => {
                    if lines.bytes() - start > BLANK_TAIL {
                        break;
                    }
                }
                Some(_) => break,
            }
        }
        return Err(seed::header_error(&lines, &first));
    }
    if first.trim_start().starts_with("type") {
        movingai::parse(&mut lines, &first)
    } else {
        seed::parse(&mut lines, &first, cops)
    }
}

/// One line read by [`Lines::next`].
pub(crate) enum Line<'a> {
    /// The whole line, without its `\n` or a trailing `\r`.
    Whole(&'a str),
    /// A line longer than the limit; its start is valid text.
    TooLong,
}

/// Map text read a line at a time, each line checked to be UTF-8 without
/// control characters (tabs aside) before the parser sees it, and never
/// read further than a limit the parser sets per line.
pub(crate) struct Lines<'p, R> {
    reader: R,
    path: &'p Path,
    pub(crate) name: String,
    /// The number of the last line returned (1-based).
    pub(crate) number: usize,
    buf: Vec<u8>,
    /// Whether the input ended.
    eof: bool,
    /// Bytes consumed so far.
    consumed: u64,
    /// What the text should be, for the error of a binary file: `map
    /// text`, `scenario text`.
    text: &'static str,
}

impl<'p, R: BufRead> Lines<'p, R> {
    /// The lines of `reader` (read from `path`), which should hold `text`
    /// (`map text`, `scenario text`: what a binary file's error expects).
    fn new(reader: R, path: &'p Path, text: &'static str) -> Lines<'p, R> {
        Lines {
            text,
            reader,
            path,
            name: path.display().to_string(),
            number: 0,
            buf: Vec::new(),
            eof: false,
            consumed: 0,
        }
    }

    /// Bytes consumed so far.
    pub(crate) fn bytes(&self) -> u64 {
        self.consumed
    }

    /// The next line, of at most `limit` bytes; `None` at the end of the
    /// input (a final newline does not start another line).
    pub(crate) fn next(&mut self, limit: usize) -> Result<Option<Line<'_>>> {
        if self.eof {
            return Ok(None);
        }
        self.buf.clear();
        let mut ended = false;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(Error::Io {
                        path: self.path.to_path_buf(),
                        source,
                    })
                }
            };
            if available.is_empty() {
                self.eof = true;
                break;
            }
            // Never more than one byte past the limit.
            let room = limit + 1 - self.buf.len();
            let (take, newline) = match available.iter().position(|&b| b == b'\n') {
                Some(i) if i <= room => (i, true),
                _ => (available.len().min(room), false),
            };
            self.buf.extend_from_slice(&available[..take]);
            let used = take + usize::from(newline);
            self.reader.consume(used);
            self.consumed += used as u64;
            if newline {
                ended = true;
                break;
            }
            if self.buf.len() > limit {
                break;
            }
        }
        if self.eof && !ended && self.buf.is_empty() {
            return Ok(None);
        }
        self.number += 1;
        let number = self.number;
        let long = self.buf.len() > limit;
        let mut raw = &self.buf[..];
        if number == 1 {
            raw = without_bom(raw);
        }
        if !long {
            raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        }
        let text = match std::str::from_utf8(raw) {
            Ok(text) => text,
            // A character cut by the limit is not an error.
            Err(e) if long && e.error_len().is_none() => {
                std::str::from_utf8(&raw[..e.valid_up_to()]).expect("valid prefix")
            }
            Err(e) => {
                return Err(Error::Parse {
                    path: self.name.clone(),
                    line: number,
                    column: String::from_utf8_lossy(&raw[..e.valid_up_to()])
                        .chars()
                        .count()
                        + 1,
                    message: format!(
                        "invalid UTF-8: this looks like a binary file, expected {}",
                        self.text
                    ),
                })
            }
        };
        if let Some((column, c)) = text
            .chars()
            .enumerate()
            .find(|&(_, c)| c.is_control() && c != '\t')
        {
            return Err(Error::Parse {
                path: self.name.clone(),
                line: number,
                column: column + 1,
                message: format!(
                    "control character {c:?}: this looks like a binary file, expected {}",
                    self.text
                ),
            });
        }
        Ok(Some(if long {
            Line::TooLong
        } else {
            Line::Whole(text)
        }))
    }

    /// The error for line `line` longer than `limit` bytes where `what`
    /// was expected.
    pub(crate) fn too_long(&self, line: usize, limit: usize, what: &str) -> Error {
        self.error(
            line,
            1,
            format!("line {line} is longer than {limit} bytes: expected {what}"),
        )
    }

    /// A parse error at a 1-based line and column.
    pub(crate) fn error(&self, line: usize, column: usize, message: impl Into<String>) -> Error {
        Error::Parse {
            path: self.name.clone(),
            line,
            column,
            message: message.into(),
        }
    }

    /// Checks that nothing but blank lines (at most [`BLANK_TAIL`] bytes of
    /// them) follows.
    pub(crate) fn expect_end(&mut self, what: &str) -> Result<()> {
        let start = self.bytes();
        loop {
            let blank = match self.next(HEADER_LINE)? {
                None => return Ok(()),
                Some(Line::Whole(l)) => l.trim().is_empty(),
                Some(Line::TooLong) => false,
            };
            if !blank {
                return Err(self.error(
                    self.number,
                    1,
                    format!("expected end of file after {what}, found more text"),
                ));
            }
            if self.bytes() - start > BLANK_TAIL {
                return Err(self.error(
                    self.number,
                    1,
                    format!(
                        "expected end of file after {what}, found more than {BLANK_TAIL} bytes of blank lines"
                    ),
                ));
            }
        }
    }

    /// Reads `height` map rows of exactly `width` characters each and
    /// hands them to `row` with their index and line number.
    pub(crate) fn rows(
        &mut self,
        height: usize,
        width: usize,
        mut row: impl FnMut(usize, usize, &str) -> Result<()>,
    ) -> Result<()> {
        // A row of `width` characters has at most 4 bytes each, and a `\r`.
        let limit = width.saturating_mul(4).saturating_add(1);
        for r in 0..height {
            let (name, line) = (self.name.clone(), self.number + 1);
            let error = |column: usize, message: String| Error::Parse {
                path: name.clone(),
                line,
                column,
                message,
            };
            match self.next(limit)? {
                None => {
                    return Err(error(
                        1,
                        format!(
                            "expected {height} map rows, found only {r} (file ends at line {})",
                            line - 1
                        ),
                    ))
                }
                Some(Line::TooLong) => {
                    return Err(error(
                        width + 1,
                        format!(
                            "line {line} is map row {r} ({COUNT_FROM_0}): more than {width} characters, expected {width}"
                        ),
                    ))
                }
                Some(Line::Whole(text)) => {
                    let len = text.chars().count();
                    if len != width {
                        let column = if len > width { width + 1 } else { len + 1 };
                        return Err(error(
                            column,
                            format!(
                                "line {line} is map row {r} ({COUNT_FROM_0}): {len} characters, expected {width}"
                            ),
                        ));
                    }
                    let text = text.to_string();
                    row(r, line, &text)?;
                }
            }
        }
        Ok(())
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

/// `bytes` without the UTF-8 byte-order mark some editors write at the
/// start of a file: every reader of text files (maps, scenarios, edge
/// lists) and `sniff` skip it, and count columns from after it.
pub(crate) fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes)
}

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
    let head = without_bom(head);
    let first = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = String::from_utf8_lossy(first);
    if first.trim_start().starts_with("type") {
        return Some(MapFormat::MovingAi);
    }
    let tokens: Vec<&str> = first.split_whitespace().collect();
    (tokens.len() == 2 && tokens.iter().all(|t| t.parse::<u64>().is_ok()))
        .then_some(MapFormat::Seed)
}
