//! Edge-list games: a directed game graph read from text, stored as an
//! [`ExplicitGraph`] (it *is* one), solved by any engine.
//!
//! Format, one item per line (after a UTF-8 byte-order mark, if any):
//! - `# ...` comments, anywhere (also after an item), and blank lines;
//! - an optional first line `p N M` (DIMACS style): N vertices `0..N`, M
//!   edges; when present both are checked, and vertices without edges exist;
//!   without it there are `largest id + 1` vertices;
//! - `u v`: an edge (a move) from `u` to `v`, 0-based ids; self-loops and
//!   duplicates are allowed (a duplicate is one more move to the same state);
//! - `win v` / `loss v`: `v` is decided, with this value for the player to
//!   move; such a vertex must have no outgoing edges.
//!
//! Every other vertex without moves is a LOSS for the player to move
//! ([`Convention::Normal`]) or a WIN ([`Convention::Misere`]).
//!
//! The parser works on bytes and never allocates per line: files are read
//! in large blocks, each block is split at line ends among rayon workers,
//! and each worker appends `(u, v)` pairs to its own vector (`u32` pairs
//! while ids fit, so 10^8 edges take 800 MB before the CSR is built). Line
//! numbers are per chunk and made global only to report an error, so the
//! parallel parse reports the same first error as a sequential one.

mod chunk;

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use rayon::prelude::*;

use crate::csr::{bucket, bucket_scratch_bytes, graph_bytes, ExplicitGraph};
use crate::error::{Error, Result};
use crate::outcome::Outcome;
use crate::storage::{available_memory, Backing, Region};
use chunk::{parse_chunk, Chunk, Fixed, LocalError, Pairs, Scan};

/// What a vertex without moves (and not fixed by `win`/`loss`) is worth to
/// the player to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Convention {
    /// Normal play: a player who cannot move loses.
    #[default]
    Normal,
    /// Misère play: a player who cannot move wins.
    Misere,
}

impl Convention {
    /// `normal` or `misere`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Convention::Normal => "normal",
            Convention::Misere => "misere",
        }
    }

    /// The value of a vertex without moves for the player to move.
    #[must_use]
    pub fn no_move_value(self) -> Outcome {
        match self {
            Convention::Normal => Outcome::Loss,
            Convention::Misere => Outcome::Win,
        }
    }
}

/// Parses an edge list (format in the module docs) into a graph. `path` is
/// only used in error messages.
///
/// # Errors
/// [`Error::Parse`] with the line and column of the first problem;
/// [`Error::TooLarge`] when the graph would not fit in available memory
/// (vertex ids index arrays: they should be dense).
///
/// # Example
/// A vertex that can only move to a dead end wins in one ply:
/// ```
/// use retrograde::{parse_graph, solve, Convention, Engine, Outcome, SolveOptions};
/// let text = b"# a path 0 -> 1 -> 2, and 3 fixed as a win\np 4 2\n0 1\n1 2\nwin 3\n";
/// let graph = parse_graph(text, "path.txt", Convention::Normal).unwrap();
/// let solution = solve(&graph, &SolveOptions::new(Engine::Sequential).with_dte_table(true)).unwrap();
/// assert_eq!(solution.outcome(2), Outcome::Loss);
/// assert_eq!(solution.outcome(1), Outcome::Win);
/// assert_eq!(solution.outcome(0), Outcome::Loss);
/// assert_eq!(solution.dte(0).unwrap().plies(), 2);
/// assert_eq!(solution.outcome(3), Outcome::Win);
///
/// let bad = parse_graph(b"0 1\n1 x\n", "bad.txt", Convention::Normal).unwrap_err();
/// assert_eq!(bad.to_string(), "bad.txt:2:3: expected a target vertex (a 0-based integer), found `x`");
/// ```
pub fn parse_graph(bytes: &[u8], path: &str, convention: Convention) -> Result<ExplicitGraph> {
    let mut parser = Parser::new(path);
    parser.feed(bytes)?;
    parser.finish(convention, available_memory())
}

/// Reads and parses an edge-list file in blocks (the file is never held in
/// memory whole); `-` reads standard input.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read; otherwise as [`parse_graph`].
pub fn load_graph(path: &Path, convention: Convention) -> Result<ExplicitGraph> {
    load_graph_within(path, convention, None)
}

/// [`load_graph`] under a memory cap: the graph and its build scratch must
/// fit in `memory_limit` bytes (`None`: what the system has available).
///
/// # Errors
/// As [`load_graph`]; [`Error::TooLarge`] names the cap.
pub fn load_graph_within(
    path: &Path,
    convention: Convention,
    memory_limit: Option<u64>,
) -> Result<ExplicitGraph> {
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let name = path.display().to_string();
    let mut parser = Parser::new(&name);
    let limit = memory_limit.unwrap_or_else(available_memory);
    parser.limit = limit;
    let block = (rayon::current_num_threads() << 23).max(64 << 20);
    if path == Path::new("-") {
        read_blocks(std::io::stdin().lock(), block, &mut parser, io_error)?;
    } else {
        let file = std::fs::File::open(path).map_err(io_error)?;
        read_blocks(file, block, &mut parser, io_error)?;
    }
    parser.finish(convention, limit)
}

/// Longest line accepted (comment included). An input without line ends
/// (a device, binary data) is rejected after reading about this much.
const MAX_LINE: usize = 1 << 20;

/// The first block: blocks start small and double up to the full size, so
/// a file that is bad from the start is rejected after reading little.
const FIRST_BLOCK: usize = 1 << 16;

/// Feeds `reader` to `parser` in blocks that end at a line end.
fn read_blocks(
    mut reader: impl Read,
    block: usize,
    parser: &mut Parser<'_>,
    io_error: impl Fn(std::io::Error) -> Error,
) -> Result<()> {
    let mut size = FIRST_BLOCK.min(block);
    let mut buf = Vec::new();
    let mut filled = 0;
    loop {
        buf.resize(size.max(filled), 0);
        let mut eof = false;
        while filled < buf.len() {
            match reader.read(&mut buf[filled..]) {
                Ok(0) => {
                    eof = true;
                    break;
                }
                Ok(k) => filled += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_error(e)),
            }
        }
        if eof {
            return parser.feed(&buf[..filled]);
        }
        match buf[..filled].iter().rposition(|&b| b == b'\n') {
            Some(end) => {
                parser.feed(&buf[..=end])?;
                buf.copy_within(end + 1..filled, 0);
                filled -= end + 1;
                size = size.saturating_mul(2).min(block.max(FIRST_BLOCK));
            }
            None if filled >= MAX_LINE => return Err(parser.overlong(&buf[..filled])),
            // One line longer than the block: grow it.
            None => size = size.saturating_mul(2),
        }
    }
}

/// The `p N M` line.
struct Header {
    vertices: u64,
    edges: u64,
    /// Position of M, for a count mismatch.
    line: usize,
    column: usize,
}

/// Accumulates blocks of complete lines.
struct Parser<'p> {
    path: &'p str,
    header: Option<Header>,
    /// Whether the first item line has been seen (a `p` line may only be it).
    started: bool,
    /// Whether no byte has been fed yet (a byte-order mark may only be
    /// the first).
    at_start: bool,
    lines: usize,
    chunks: Vec<Pairs>,
    fixed: Vec<Fixed>,
    edges: u64,
    max_id: Option<u64>,
    /// Bytes the graph may take (`--memory`, else what is available):
    /// checked as blocks are read, so an endless or huge input is refused
    /// once the graph read so far needs more, not parsed whole first.
    limit: u64,
}

impl<'p> Parser<'p> {
    fn new(path: &'p str) -> Parser<'p> {
        Parser {
            path,
            header: None,
            started: false,
            at_start: true,
            lines: 0,
            chunks: Vec::new(),
            fixed: Vec::new(),
            edges: 0,
            max_id: None,
            limit: u64::MAX,
        }
    }

    /// Bytes the stored graph of `vertices` and `edges` needs while built.
    fn needed(vertices: u64, edges: u64) -> u64 {
        graph_bytes(vertices, edges).saturating_add(bucket_scratch_bytes(edges))
    }

    /// The refusal of a graph needing `needed` bytes of `available`.
    fn too_large(&self, vertices: u64, needed: u64, available: u64, so_far: bool) -> Error {
        let edges = self.edges;
        let read = if so_far {
            format!(" read up to line {}", self.lines)
        } else {
            String::new()
        };
        Error::TooLarge {
            what: format!(
                "the graph of {}{read} ({vertices} vertices, {edges} edges)",
                self.path
            ),
            needed,
            available,
            hint: "vertex ids index arrays, so they should be dense: renumber them 0..N-1"
                .to_string(),
        }
    }

    fn error(&self, line: usize, column: usize, message: impl Into<String>) -> Error {
        Error::Parse {
            path: self.path.to_string(),
            line,
            column,
            message: message.into(),
        }
    }

    fn local_error(&self, base: usize, e: LocalError) -> Error {
        self.error(base + e.line + 1, e.column, e.message)
    }

    /// The error for the next line, which starts `prefix` and is longer
    /// than [`MAX_LINE`]: at its first byte that no edge list has outside a
    /// comment (binary data), else at its start.
    fn overlong(&self, prefix: &[u8]) -> Error {
        let line = self.lines + 1;
        let comment = prefix
            .iter()
            .position(|&b| b == b'#')
            .unwrap_or(prefix.len());
        let column = |at: usize| 1 + prefix[..at].iter().filter(|&&b| b & 0xC0 != 0x80).count();
        match prefix[..comment]
            .iter()
            .position(|&b| !(b.is_ascii_graphic() || matches!(b, b' ' | b'\t' | b'\r')))
        {
            Some(at) => self.error(
                line,
                column(at),
                format!(
                    "unexpected byte 0x{:02x} in a line longer than {MAX_LINE} bytes: this looks \
                     like a binary file, expected an edge list",
                    prefix[at]
                ),
            ),
            None => self.error(
                line,
                1,
                format!(
                    "a line longer than {MAX_LINE} bytes: expected one edge `u v`, `win v` or \
                     `loss v` per line"
                ),
            ),
        }
    }

    /// Parses `bytes`, which ends at a line end unless it is the last block.
    fn feed(&mut self, mut bytes: &[u8]) -> Result<()> {
        if std::mem::take(&mut self.at_start) {
            // Skipped as in maps and scenarios: columns count from after it.
            bytes = crate::format::without_bom(bytes);
        }
        if !self.started {
            let consumed = self.read_header(bytes)?;
            bytes = &bytes[consumed..];
            if !self.started {
                return Ok(());
            }
        }
        let bound = self.header.as_ref().map(|h| h.vertices);
        let workers = rayon::current_num_threads();
        let target = (bytes.len() / (workers * 4)).max(1 << 20);
        let mut pieces = Vec::new();
        let mut start = 0;
        while start < bytes.len() {
            let mut end = (start + target).min(bytes.len());
            if end < bytes.len() {
                end = bytes[end..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |k| end + k + 1);
            }
            pieces.push(&bytes[start..end]);
            start = end;
        }
        let parsed: Vec<std::result::Result<Chunk, LocalError>> = pieces
            .into_par_iter()
            .map(|piece| parse_chunk(piece, bound))
            .collect();
        for chunk in parsed {
            let chunk = chunk.map_err(|e| self.local_error(self.lines, e))?;
            self.fixed.extend(chunk.fixed.into_iter().map(|f| Fixed {
                line: self.lines + f.line + 1,
                ..f
            }));
            self.lines += chunk.lines;
            self.edges += chunk.pairs.len() as u64;
            self.max_id = self.max_id.max(chunk.max_id);
            self.chunks.push(chunk.pairs);
        }
        // The graph only grows as lines come: once what is read already
        // needs more than the limit, so does the whole (an endless stream
        // grew without bound before the check at the end).
        let vertices = match &self.header {
            Some(h) => h.vertices,
            None => self.max_id.map_or(0, |m| m + 1),
        };
        let needed = Self::needed(vertices, self.edges);
        if needed > self.limit {
            return Err(self.too_large(vertices, needed, self.limit, true));
        }
        Ok(())
    }

    /// Skips leading comment and blank lines and reads a `p N M` line if it
    /// is the first item; returns the bytes consumed.
    fn read_header(&mut self, bytes: &[u8]) -> Result<usize> {
        let mut scan = Scan::new(bytes);
        loop {
            scan.skip_blank();
            match scan.peek() {
                None => {
                    self.lines += scan.line;
                    return Ok(bytes.len());
                }
                Some(b'\n') => scan.newline(),
                Some(b'#') => scan.skip_comment(),
                Some(_) => break,
            }
        }
        self.started = true;
        self.lines += scan.line;
        if scan.word() != b"p" {
            // Not a header: the chunk parser reads this line.
            return Ok(scan.line_start);
        }
        let parse = |scan: &mut Scan<'_>| -> std::result::Result<Header, LocalError> {
            scan.skip_blank();
            let vertices = scan.number("the vertex count N of `p N M`", None)?;
            scan.skip_blank();
            let column = scan.column(scan.i);
            let edges = scan.number("the edge count M of `p N M`", None)?;
            scan.end_of_line("`p N M`")?;
            Ok(Header {
                vertices,
                edges,
                line: 0,
                column,
            })
        };
        let base = self.lines - scan.line;
        let header = parse(&mut scan).map_err(|e| self.local_error(base, e))?;
        self.header = Some(Header {
            line: self.lines + 1,
            ..header
        });
        self.lines += 1;
        Ok(scan.i)
    }

    /// Checks the counts and fixed vertices and builds the graph.
    fn finish(self, convention: Convention, available: u64) -> Result<ExplicitGraph> {
        let started = Instant::now();
        let edges = self.edges;
        let vertices = match &self.header {
            Some(h) => {
                if h.edges != edges {
                    return Err(self.error(
                        h.line,
                        h.column,
                        format!(
                            "the `p` line declares {} edges but the file has {edges}",
                            h.edges
                        ),
                    ));
                }
                h.vertices
            }
            None => self.max_id.map_or(0, |m| m + 1),
        };
        let needed = Self::needed(vertices, edges);
        if needed > available {
            return Err(self.too_large(vertices, needed, available, false));
        }
        let forward = bucket(
            self.chunks.as_slice(),
            vertices,
            edges,
            &Backing::Memory,
            "forward",
        )?;
        drop(self.chunks);
        let mut fixed = self.fixed;
        fixed.sort_unstable_by_key(|f| (f.vertex, f.line));
        let mut first_error: Option<(usize, usize, String)> = None;
        let mut report = |line: usize, column: usize, message: String| {
            if first_error.as_ref().is_none_or(|e| line < e.0) {
                first_error = Some((line, column, message));
            }
        };
        let mut first = 0;
        for (k, f) in fixed.iter().enumerate() {
            let value = f.value.as_str();
            if fixed[first].vertex != f.vertex {
                first = k;
            }
            match fixed[first] {
                head if head.line != f.line => {
                    if head.value != f.value {
                        report(
                            f.line,
                            f.column,
                            format!(
                                "vertex {} is fixed as {value} here but as {} at line {}",
                                f.vertex,
                                head.value.as_str(),
                                head.line
                            ),
                        );
                    }
                }
                _ => {
                    let degree = forward.degree(f.vertex);
                    if degree > 0 {
                        report(
                            f.line,
                            f.column,
                            format!(
                                "vertex {} is fixed by `{value} {}` but has {degree} outgoing \
                                 edge{}: a vertex with a fixed value must have no moves",
                                f.vertex,
                                f.vertex,
                                if degree == 1 { "" } else { "s" }
                            ),
                        );
                    }
                }
            }
        }
        if let Some((line, column, message)) = first_error {
            return Err(Error::Parse {
                path: self.path.to_string(),
                line,
                column,
                message,
            });
        }
        let terminal_wins = Region::zeroed::<AtomicU64>(
            vertices.div_ceil(64),
            &Backing::Memory,
            "terminal values",
        )?;
        let words = terminal_wins.atomics::<AtomicU64>();
        if convention.no_move_value() == Outcome::Win {
            words.par_iter().for_each(|w| w.store(u64::MAX, Relaxed));
        }
        for f in &fixed {
            let (word, bit) = (&words[(f.vertex / 64) as usize], 1u64 << (f.vertex % 64));
            match f.value {
                Outcome::Win => word.fetch_or(bit, Relaxed),
                _ => word.fetch_and(!bit, Relaxed),
            };
        }
        ExplicitGraph::from_forward(forward, terminal_wins, &Backing::Memory, started)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::EdgeScan;
    use crate::Game;

    /// Parses through `read_blocks` with a tiny block, so lines, the header
    /// and comments fall on block boundaries.
    fn parse_in_blocks(text: &str, block: usize) -> Result<ExplicitGraph> {
        let mut parser = Parser::new("blocks");
        read_blocks(text.as_bytes(), block, &mut parser, |source| Error::Io {
            path: "blocks".into(),
            source,
        })?;
        parser.finish(Convention::Normal, u64::MAX)
    }

    #[test]
    fn blocks_give_the_same_graph_and_error_positions() {
        let text = "# a comment longer than a block\n\n# another\np 5 6\n0 1\n1 2 # c\n2 0\n\
                    3 3\n3 4\n10000 1\nwin 4\n";
        let whole = parse_graph(text.as_bytes(), "blocks", Convention::Normal);
        let expected = whole.unwrap_err().to_string();
        assert_eq!(expected, "blocks:10:1: vertex 10000 is out of range: the `p` line declares 5 vertices (ids 0 to 4)");
        let good = text.replace("10000 1\n", "").replace("p 5 6", "p 5 5");
        let reference = parse_graph(good.as_bytes(), "blocks", Convention::Normal).unwrap();
        for block in [1, 2, 3, 5, 8, 13, 64] {
            assert_eq!(
                parse_in_blocks(text, block).unwrap_err().to_string(),
                expected
            );
            let graph = parse_in_blocks(&good, block).unwrap();
            assert_eq!(graph.edge_count(), 5);
            for v in 0..5 {
                assert_eq!(graph.initial(v), reference.initial(v));
                assert_eq!(
                    graph.forward().neighbors(v).collect::<Vec<_>>(),
                    reference.forward().neighbors(v).collect::<Vec<_>>()
                );
            }
        }
    }

    /// A UTF-8 byte-order mark may start the file (however it is read),
    /// and nowhere else; columns count from after it.
    #[test]
    fn a_byte_order_mark_starts_an_edge_list() {
        for text in ["\u{feff}0 1\n1 2\n", "\u{feff}p 3 2\n0 1\n1 2\n"] {
            let graph = parse_graph(text.as_bytes(), "bom", Convention::Normal).unwrap();
            assert_eq!(graph.edge_count(), 2, "{text}");
            for block in [1, 2, 64] {
                assert_eq!(parse_in_blocks(text, block).unwrap().edge_count(), 2);
            }
        }
        let e = parse_graph("\u{feff}0 x\n".as_bytes(), "bom", Convention::Normal);
        assert!(e.unwrap_err().to_string().starts_with("bom:1:3:"));
        let e = parse_graph("0 1\n\u{feff}1 2\n".as_bytes(), "bom", Convention::Normal);
        assert!(e.unwrap_err().to_string().starts_with("bom:2:1:"));
    }

    #[test]
    fn wide_ids_are_kept_whole() {
        let mut pairs = Pairs::Narrow(Vec::new());
        pairs.push(1, 2);
        pairs.push(1 << 40, 3);
        let mut seen = Vec::new();
        [pairs].scan_piece(0, |u, v| seen.push((u, v)));
        assert_eq!(seen, vec![(1, 2), (1 << 40, 3)]);
    }
}
