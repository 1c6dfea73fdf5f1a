//! What a file holds, told by its first bytes ([`FileKind`], [`sniff`]),
//! and a graph file read by what it holds ([`load_graph_file`]): the one
//! place every command, Python and the batch walk ask.

use std::io::Read;
use std::path::Path;

use super::edges::{load_edge_list_within, looks_like_graph6, EdgeList};
use super::graph6::parse_graph6;
use super::{sniff_map, without_bom, MapFormat};
use crate::error::{Error, Result};

/// Bytes of a file's head that [`sniff_path`] reads.
pub const SNIFF_BYTES: usize = 1 << 16;

/// What a file holds, told by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A table written by `solve --save` (`RTGTBL` magic).
    Table,
    /// A MovingAI scenario (`version ...`).
    Scenario,
    /// A grid map: MovingAI's `type` line, or a seed header `ROWS COLUMNS`
    /// followed by a row of exactly COLUMNS characters.
    Map(MapFormat),
    /// One graph or a stream of graphs in graph6.
    Graph6,
    /// An edge list: every line two vertex ids (or a comment), at least
    /// two of them.
    EdgeList,
}

impl FileKind {
    /// The name reports use: `table`, `scenario`, a map's format (`seed`
    /// or `movingai`), `graph6` or `edges`.
    ///
    /// ```
    /// use retrograde::{sniff, FileKind};
    /// assert_eq!(sniff(b"type octile\nheight 1\nwidth 1\nmap\n.\n").map(FileKind::as_str), Some("movingai"));
    /// assert_eq!(FileKind::EdgeList.as_str(), "edges");
    /// ```
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Table => "table",
            FileKind::Scenario => "scenario",
            FileKind::Map(format) => format.as_str(),
            FileKind::Graph6 => GraphFormat::Graph6.as_str(),
            FileKind::EdgeList => GraphFormat::EdgeList.as_str(),
        }
    }
}

/// The kind of a file whose first bytes are `head`; `None` when they tell
/// none of them (an empty file, or a map or edge list too broken to tell).
///
/// A seed map and an edge list can both start with two integers: the
/// map's next line is a row of the header's width, not two integers, so
/// `2 3` then `0 1` stays a graph.
///
/// # Example
/// ```
/// use retrograde::{sniff, FileKind, MapFormat};
/// assert_eq!(sniff(b"2 3\n...\n.C.\n"), Some(FileKind::Map(MapFormat::Seed)));
/// assert_eq!(sniff(b"2 3\n0 1\n"), Some(FileKind::EdgeList));
/// assert_eq!(sniff(b">>graph6<<Bw\n"), Some(FileKind::Graph6));
/// assert_eq!(sniff(b"RTGTBL\x00"), Some(FileKind::Table));
/// ```
#[must_use]
pub fn sniff(head: &[u8]) -> Option<FileKind> {
    if head.starts_with(b"RTGTBL") {
        return Some(FileKind::Table);
    }
    if head.starts_with(b"version ") {
        return Some(FileKind::Scenario);
    }
    if let Some(format) = map_format(head) {
        return Some(FileKind::Map(format));
    }
    if looks_like_graph6(head) {
        return Some(FileKind::Graph6);
    }
    // Up to the last whole line of the head (after a byte-order mark),
    // comments and blank lines left out: all `u v`, at least two of them.
    let head = without_bom(head);
    let text = String::from_utf8_lossy(head);
    let whole = text.rfind('\n').map_or("", |i| &text[..i]);
    let lines: Vec<&str> = whole
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .collect();
    // Vertex ids are u32.
    let pair = |l: &&str| {
        let words: Vec<&str> = l.split_whitespace().collect();
        words.len() == 2 && words.iter().all(|w| w.parse::<u32>().is_ok())
    };
    (lines.len() >= 2 && lines.iter().all(pair)).then_some(FileKind::EdgeList)
}

/// The kind of the file at `path` from its first [`SNIFF_BYTES`]; `None`
/// when they tell none.
///
/// # Errors
/// [`Error::Io`] naming `path` when it cannot be opened or read.
pub fn sniff_path(path: &Path) -> Result<Option<FileKind>> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    std::fs::File::open(path)
        .map_err(io)?
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    Ok(sniff(&head))
}

/// Whether a line is exactly two unsigned integers.
fn two_integers(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    words.len() == 2 && words.iter().all(|w| w.parse::<u64>().is_ok())
}

/// The map format `head` starts with, strictly: a MovingAI header, or a
/// seed header (both dimensions at least 1) whose next line is a row of
/// exactly COLUMNS characters and not itself two integers.
fn map_format(head: &[u8]) -> Option<MapFormat> {
    match sniff_map(head)? {
        MapFormat::MovingAi => Some(MapFormat::MovingAi),
        MapFormat::Seed => {
            let head = without_bom(head);
            let mut lines = head
                .split(|&b| b == b'\n')
                .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
            let first = String::from_utf8_lossy(lines.next().unwrap_or_default()).into_owned();
            let dims: Vec<u64> = first
                .split_whitespace()
                .filter_map(|t| t.parse().ok())
                .collect();
            let row = lines.next()?;
            let fits = dims.len() == 2
                && dims[0] >= 1
                && dims[1] >= 1
                && row.len() as u64 == dims[1]
                && !two_integers(&String::from_utf8_lossy(row));
            fits.then_some(MapFormat::Seed)
        }
    }
}

/// The format a graph file was read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphFormat {
    /// `u v` lines ([`parse_edge_list`](super::parse_edge_list)).
    EdgeList,
    /// One graph in nauty's graph6.
    Graph6,
}

impl GraphFormat {
    /// The name reports use: `edges` or `graph6`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            GraphFormat::EdgeList => "edges",
            GraphFormat::Graph6 => "graph6",
        }
    }
}

/// Reads the one graph of a file: graph6 when its first bytes look like
/// it (an optional `>>graph6<<` header, one line), else an edge list read
/// within `memory` bytes ([`load_edge_list_within`]); `-` reads an edge
/// list from standard input.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read; [`Error::Parse`] with the
/// line and column of the first problem, a second graph in a graph6 file
/// included (streams of graphs are for the cop-number census);
/// [`Error::TooLarge`] past the memory limit.
pub fn load_graph_file(path: &Path, memory: Option<u64>) -> Result<(EdgeList, GraphFormat)> {
    if path != Path::new("-") {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut head = [0u8; 256];
        let read = std::fs::File::open(path)
            .and_then(|mut f| f.read(&mut head))
            .map_err(io)?;
        if looks_like_graph6(&head[..read]) {
            let text = std::fs::read(path).map_err(io)?;
            return Ok((graph6_file(&text, path)?, GraphFormat::Graph6));
        }
    }
    Ok((load_edge_list_within(path, memory)?, GraphFormat::EdgeList))
}

/// The one graph of a graph6 file's bytes `text` (named `path` in errors).
/// An optional `>>graph6<<` header starts it, before the graph on the same
/// line or alone on its own line (as the cop number's stream reader takes
/// it).
fn graph6_file(text: &[u8], path: &Path) -> Result<EdgeList> {
    let name = path.display().to_string();
    let mut lines = text
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .enumerate()
        .filter(|(_, l)| !l.is_empty());
    let (mut at, mut first) = lines.next().unwrap_or_default();
    let mut header = first.starts_with(b">>graph6<<");
    first = first.strip_prefix(b">>graph6<<").unwrap_or(first);
    if header && first.is_empty() {
        // The header alone on its line: the graph is on the next.
        header = false;
        (at, first) = lines.next().ok_or_else(|| Error::Parse {
            path: name.clone(),
            line: at + 1,
            column: 11,
            message: "expected a graph after the `>>graph6<<` header, found none (no vertices)"
                .to_string(),
        })?;
    }
    if let Some((i, _)) = lines.next() {
        return Err(Error::Parse {
            path: name,
            line: i + 1,
            column: 1,
            message: "a second graph: a graph file holds one graph (the cop number reads streams of graph6)".to_string(),
        });
    }
    let (n, edges) = parse_graph6(first).map_err(|e| Error::Parse {
        path: name.clone(),
        line: at + 1,
        column: e.column + if header { 10 } else { 0 },
        message: e.message,
    })?;
    let n = u32::try_from(n).map_err(|_| Error::Parse {
        path: name,
        line: at + 1,
        column: 1,
        message: format!("{n} vertices: at most {} are allowed", u32::MAX),
    })?;
    Ok(EdgeList { n, edges })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_content() {
        assert_eq!(
            sniff(b"type octile\nheight 1\n"),
            Some(FileKind::Map(MapFormat::MovingAi))
        );
        assert_eq!(sniff(b"version 1\n"), Some(FileKind::Scenario));
        // A seed header whose next row has the wrong width is no map.
        assert_eq!(sniff(b"2 3\n....\n"), None);
        assert_eq!(sniff(b"# a path\n0 1\n1 2\n"), Some(FileKind::EdgeList));
        // A byte-order mark starts an edge list as it does a map.
        assert_eq!(sniff(b"\xef\xbb\xbf0 1\n1 2\n"), Some(FileKind::EdgeList));
        assert_eq!(
            sniff(b"\xef\xbb\xbf2 3\n...\n.C.\n"),
            Some(FileKind::Map(MapFormat::Seed))
        );
        assert_eq!(sniff(b"0 1\n"), None);
        assert_eq!(sniff(b""), None);
    }

    #[test]
    fn a_graph6_file_holds_one_graph() {
        let path = Path::new("g.g6");
        let g = graph6_file(b">>graph6<<Bw\n", path).unwrap();
        assert_eq!((g.n, g.edges.len()), (3, 3));
        let e = graph6_file(b"Bw\n\nBw\n", path).unwrap_err().to_string();
        assert!(e.contains("g.g6:3:1"), "{e}");
        let e = graph6_file(b">>graph6<<Bgg\n", path)
            .unwrap_err()
            .to_string();
        assert!(e.contains("g.g6:1:13"), "{e}");
    }

    #[test]
    fn the_graph6_header_may_stand_on_its_own_line() {
        let path = Path::new("g.g6");
        // As `copnumber`'s stream reader takes it: the graph on the next line.
        let g = graph6_file(b">>graph6<<\nBw\n", path).unwrap();
        assert_eq!((g.n, g.edges.len()), (3, 3));
        let e = graph6_file(b">>graph6<<\nBgg\n", path)
            .unwrap_err()
            .to_string();
        assert!(e.contains("g.g6:2:3"), "{e}");
        let e = graph6_file(b">>graph6<<\n", path).unwrap_err().to_string();
        assert!(e.contains("g.g6:1:11") && e.contains("found none"), "{e}");
        let e = graph6_file(b">>graph6<<\nBw\nBw\n", path)
            .unwrap_err()
            .to_string();
        assert!(e.contains("g.g6:3:1: a second graph"), "{e}");
    }
}
