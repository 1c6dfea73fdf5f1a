//! Undirected graphs as edge lists, for the several-cops game on graphs:
//! `u v` a line, 0-based vertex ids separated by spaces or tabs; blank
//! lines and `#` comments (a whole line, or after an edge) are skipped,
//! and so is a UTF-8 byte-order mark at the start.
//! The graph has `largest id + 1` vertices; self-loops and repeated edges
//! are kept here (the arena drops them).
//!
//! graph6 (nauty's format) is told apart by content: its lines are
//! printable ASCII 63 to 126, an optional `>>graph6<<` header first, while
//! an edge list holds digits, blanks and `#`. [`looks_like_graph6`] makes
//! that call; parsing graph6 lives in its own module.

use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::error::{Error, Result};

/// Most vertices an edge list may name: ids index per-vertex arrays, and
/// even one cop on a graph this large is far past any solve.
pub const MAX_VERTICES: u32 = 1 << 24;

/// Most bytes of one line.
const LINE_LIMIT: usize = 1 << 12;

/// An undirected graph read from a file: vertices `0..n` and its edges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeList {
    /// Number of vertices.
    pub n: u32,
    /// The edges as read, `(u, v)`.
    pub edges: Vec<(u32, u32)>,
}

/// Whether `head` (the first bytes of a file) looks like graph6 rather than
/// an edge list: the `>>graph6<<` header (before the first graph or on a
/// line of its own), or a first line of printable ASCII 63 to 126 only.
#[must_use]
pub fn looks_like_graph6(head: &[u8]) -> bool {
    if head.starts_with(b">>graph6<<") {
        return true;
    }
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    !line.is_empty() && line.iter().all(|&b| (63..=126).contains(&b))
}

/// Parses an edge list (format in the module docs). `path` names the input
/// in errors.
///
/// # Errors
/// [`Error::Parse`] with the line and column of the first problem, or of
/// the end when there is no edge.
///
/// # Example
/// ```
/// let g = retrograde::parse_edge_list(b"# a triangle\n0 1\n1 2\n2 0\n", "triangle").unwrap();
/// assert_eq!((g.n, g.edges.len()), (3, 3));
/// ```
pub fn parse_edge_list(bytes: &[u8], path: &str) -> Result<EdgeList> {
    read_edge_list(bytes, path, u64::MAX)
}

/// Reads an edge-list file; `-` reads standard input.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read, [`Error::Parse`] when it is
/// malformed.
pub fn load_edge_list(path: &Path) -> Result<EdgeList> {
    load_edge_list_within(path, None)
}

/// Like [`load_edge_list`], with the edges read kept within `memory`
/// bytes (else what the process has available): an endless or huge
/// input is refused as it is read, not held until memory runs out.
///
/// # Errors
/// As [`load_edge_list`], and [`Error::TooLarge`] past the limit.
pub fn load_edge_list_within(path: &Path, memory: Option<u64>) -> Result<EdgeList> {
    let name = path.display().to_string();
    let limit = memory.unwrap_or_else(crate::storage::available_memory);
    if path == Path::new("-") {
        return read_edge_list(std::io::stdin().lock(), &name, limit);
    }
    let file = std::fs::File::open(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    read_edge_list(BufReader::with_capacity(1 << 16, file), &name, limit)
}

fn read_edge_list(mut reader: impl BufRead, path: &str, limit: u64) -> Result<EdgeList> {
    let mut lines = EdgeLines::new(path, MAX_VERTICES, limit);
    let mut buf = Vec::new();
    let mut number = 0;
    loop {
        buf.clear();
        let read = std::io::Read::take(&mut reader as &mut dyn BufRead, LINE_LIMIT as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|source| Error::Io {
                path: path.into(),
                source,
            })?;
        if read == 0 {
            break;
        }
        number += 1;
        if buf.len() > LINE_LIMIT && buf.last() != Some(&b'\n') {
            return Err(lines.error(
                number,
                LINE_LIMIT + 1,
                format!("a line longer than {LINE_LIMIT} bytes: expected `u v` (two vertex ids)"),
            ));
        }
        lines.push(number, buf.strip_suffix(b"\n").unwrap_or(&buf))?;
    }
    lines.finish()
}

/// An edge list parsed a line at a time, for a reader that takes the lines
/// itself (`copnumber` tells an edge list from graph6 by its first line,
/// already read): the one parser of edge lists, behind
/// [`parse_edge_list`] and [`load_edge_list`] too.
///
/// # Example
/// ```
/// let mut lines = retrograde::EdgeLines::new("g", 1 << 16, u64::MAX);
/// for (number, line) in ["0 1", "# a comment", "1 2 # and an edge"].iter().enumerate() {
///     lines.push(number + 1, line.as_bytes()).unwrap();
/// }
/// assert_eq!(lines.finish().unwrap().edges, vec![(0, 1), (1, 2)]);
/// ```
#[derive(Debug)]
pub struct EdgeLines {
    path: String,
    max_vertices: u32,
    limit: u64,
    edges: Vec<(u32, u32)>,
    n: u32,
}

impl EdgeLines {
    /// An empty list: `path` names the input in errors, vertex ids must lie
    /// below `max_vertices` (at most 2^24, what any edge list may name), and the edges may
    /// take at most `limit` bytes.
    #[must_use]
    pub fn new(path: &str, max_vertices: u32, limit: u64) -> EdgeLines {
        EdgeLines {
            path: path.to_string(),
            max_vertices: max_vertices.min(MAX_VERTICES),
            limit,
            edges: Vec::new(),
            n: 0,
        }
    }

    fn error(&self, line: usize, column: usize, message: String) -> Error {
        Error::Parse {
            path: self.path.clone(),
            line,
            column,
            message,
        }
    }

    /// Adds line `number` (1-based, without its `\n`): an edge `u v`, or
    /// nothing for a blank line or a comment. A byte-order mark may start
    /// line 1 (columns count from after it).
    ///
    /// # Errors
    /// [`Error::Parse`] with the line and column of the problem,
    /// [`Error::TooLarge`] when the edges would pass the limit.
    pub fn push(&mut self, number: usize, line: &[u8]) -> Result<()> {
        let mut line = line;
        if number == 1 {
            // A UTF-8 byte-order mark, as some editors write: skipped, as
            // in maps and scenarios (columns count from after it).
            line = super::without_bom(line);
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = match line.iter().position(|&b| b == b'#') {
            Some(hash) => &line[..hash],
            None => line,
        };
        let mut ids = [0u32; 2];
        let mut found = 0;
        let mut at = 0;
        while at < line.len() {
            let b = line[at];
            if b == b' ' || b == b'\t' {
                at += 1;
                continue;
            }
            let start = at;
            while at < line.len() && line[at] != b' ' && line[at] != b'\t' {
                at += 1;
            }
            let token = &line[start..at];
            let column = start + 1;
            if found == 2 {
                return Err(self.error(
                    number,
                    column,
                    format!(
                        "expected the end of the line after `u v`, found `{}`",
                        String::from_utf8_lossy(token)
                    ),
                ));
            }
            let id = std::str::from_utf8(token)
                .ok()
                .filter(|t| t.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|t| t.parse::<u32>().ok())
                .filter(|&id| id < self.max_vertices)
                .ok_or_else(|| {
                    self.error(
                        number,
                        column,
                        format!(
                            "expected a vertex id (an integer 0 to {}), found `{}`",
                            self.max_vertices - 1,
                            String::from_utf8_lossy(token)
                        ),
                    )
                })?;
            ids[found] = id;
            found += 1;
        }
        match found {
            0 => Ok(()),
            1 => Err(self.error(
                number,
                line.len() + 1,
                "expected a second vertex id (`u v`), found the end of the line".into(),
            )),
            _ => {
                self.n = self.n.max(ids[0] + 1).max(ids[1] + 1);
                // Checked before the list grows (doubling): the growth
                // itself must fit, or its allocation aborts the process.
                if self.edges.len() == self.edges.capacity() {
                    let grown = (self.edges.capacity().max(4) as u64)
                        .saturating_mul(2 * std::mem::size_of::<(u32, u32)>() as u64);
                    if grown > self.limit {
                        return Err(Error::TooLarge {
                            what: format!(
                                "the edges of {} read up to line {number} ({} edges)",
                                self.path,
                                self.edges.len() + 1
                            ),
                            needed: grown,
                            available: self.limit,
                            hint: "raise --memory, or list each edge once".into(),
                        });
                    }
                }
                self.edges.push((ids[0], ids[1]));
                Ok(())
            }
        }
    }

    /// The graph read.
    ///
    /// # Errors
    /// [`Error::Parse`] at line 1 when no line named a vertex: a game with
    /// no states, whose saved table its own reader refuses (issue 33, item
    /// 16).
    pub fn finish(self) -> Result<EdgeList> {
        if self.n == 0 {
            return Err(self.error(
                1,
                1,
                "expected a graph of at least one vertex, found none (no vertices: an empty input, only comments, or graph6 `?`)".into(),
            ));
        }
        Ok(EdgeList {
            n: self.n,
            edges: self.edges,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse_edge_list(text.as_bytes(), "g.txt")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn edges_comments_and_errors_with_their_place() {
        let g = parse_edge_list(b"0 1 # first\n\n  3\t2\r\n", "g").unwrap();
        assert_eq!(
            g,
            EdgeList {
                n: 4,
                edges: vec![(0, 1), (3, 2)]
            }
        );
        assert!(err("0 1\n1 x\n").starts_with("g.txt:2:3: expected a vertex id"));
        assert!(err("0 1 2\n").starts_with("g.txt:1:5: expected the end"));
        assert!(err("0 1\n7\n").starts_with("g.txt:2:2: expected a second"));
        assert!(err("-1 0\n").starts_with("g.txt:1:1:"));
        assert!(err("99999999999 0\n").starts_with("g.txt:1:1:"));
        let long = format!("0 {}\n", "1".repeat(5000));
        assert!(err(&long).starts_with("g.txt:1:4097: a line longer"));
    }

    #[test]
    fn a_byte_order_mark_starts_an_edge_list() {
        let g = parse_edge_list(b"\xef\xbb\xbf0 1\n1 2\n", "g").unwrap();
        assert_eq!(g.edges, vec![(0, 1), (1, 2)]);
        let g = parse_edge_list(b"\xef\xbb\xbf# a path\r\n0 1\n", "g").unwrap();
        assert_eq!(g.edges, vec![(0, 1)]);
        // Columns count from after it; only the first line may have one.
        assert!(err("\u{feff}0 x\n").starts_with("g.txt:1:3: expected a vertex id"));
        assert!(err("0 1\n\u{feff}1 2\n").starts_with("g.txt:2:1: expected a vertex id"));
    }

    #[test]
    fn graph6_is_told_from_edge_lists() {
        assert!(looks_like_graph6(b"Ch\n"));
        assert!(looks_like_graph6(b">>graph6<<IheA@GUAo\n"));
        assert!(looks_like_graph6(b">>graph6<<\nIheA@GUAo\n"));
        assert!(looks_like_graph6(b">>graph6<<\n"));
        assert!(!looks_like_graph6(b"0 1\n1 2\n"));
        assert!(!looks_like_graph6(b"# comment\n0 1\n"));
        assert!(!looks_like_graph6(b""));
    }
}
