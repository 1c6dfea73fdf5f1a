//! graph6, nauty's format for undirected graphs: one graph a line, printable
//! ASCII (bytes 63..=126), an optional `>>graph6<<` header before the first
//! graph. The order `n` comes first (one byte for n <= 62, `~` and three
//! bytes up to 258,047, `~~` and six bytes beyond), then the upper triangle
//! of the adjacency matrix column by column (`(0,1), (0,2), (1,2), (0,3)`
//! ...), six bits a byte, most significant first, zero padded.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A graph6 line that could not be decoded: the 1-based column of the
/// offending byte and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph6Error {
    /// 1-based byte column within the line.
    pub column: usize,
    /// What was expected and what was found.
    pub message: String,
}

/// Most vertices accepted: the edge bits of a larger graph would not fit a
/// line we are willing to hold (about 2 GB).
pub const GRAPH6_MAX_ORDER: usize = 1 << 16;

/// The header nauty may write before the first graph of a file.
const HEADER: &[u8] = b">>graph6<<";

/// Decodes one graph6 line (without its line end) into the order `n` and
/// the undirected edges `(u, v)` with `u < v`, in the format's order.
///
/// # Errors
/// [`Graph6Error`] with the column of the first byte that is not valid
/// graph6 (a byte outside 63..=126, a line too short or too long for its
/// order, non-zero padding bits, sparse6 or digraph6 input).
///
/// # Example
/// ```
/// // The path on three vertices, 0-1-2, as `nauty-geng -c 3` prints it
/// let (n, edges) = retrograde::parse_graph6(b"Bg").unwrap();
/// assert_eq!((n, edges), (3, vec![(0, 1), (1, 2)]));
/// ```
pub fn parse_graph6(line: &[u8]) -> std::result::Result<(usize, Vec<(u32, u32)>), Graph6Error> {
    let mut edges = Vec::new();
    let n = decode(line, |u, v| edges.push((u, v)))?;
    Ok((n, edges))
}

/// The order `n` a graph6 line declares, read from its first 1, 4 or 8
/// bytes alone (the edges are not looked at, nor is `n` checked against
/// the largest order read, 65,536): what a stream of graphs of one order can check
/// before decoding each.
///
/// # Errors
/// [`Graph6Error`] at the first byte of the order that is not graph6.
///
/// # Example
/// ```
/// assert_eq!(retrograde::graph6_order(b"Bg"), Ok(3));
/// assert_eq!(retrograde::graph6_order(b"~??~"), Ok(63));
/// assert!(retrograde::graph6_order(b"!").is_err());
/// ```
pub fn graph6_order(line: &[u8]) -> std::result::Result<u64, Graph6Error> {
    order(line).map(|(n, _)| n)
}

/// The order of a graph6 line and the bytes it takes (1, 4 or 8).
fn order(line: &[u8]) -> std::result::Result<(u64, usize), Graph6Error> {
    let digits =
        |from: usize, to: usize| (from..to).try_fold(0u64, |n, i| Ok((n << 6) | byte_at(line, i)?));
    Ok(if byte_at(line, 0)? < 63 {
        (byte_at(line, 0)?, 1)
    } else if line.get(1) != Some(&b'~') {
        (digits(1, 4)?, 4)
    } else {
        (digits(2, 8)?, 8)
    })
}

/// The six bits of byte `i` of a graph6 line.
fn byte_at(line: &[u8], i: usize) -> std::result::Result<u64, Graph6Error> {
    match line.get(i) {
        None => Err(Graph6Error {
            column: i + 1,
            message: "line ends inside the order: expected more graph6 bytes".into(),
        }),
        Some(&b) if (63..=126).contains(&b) => Ok(u64::from(b - 63)),
        Some(&b) => Err(Graph6Error {
            column: i + 1,
            message: format!(
                "expected a graph6 byte (63..=126, `?` to `~`), found {}",
                show(b)
            ),
        }),
    }
}

/// Decodes a graph6 line and hands every edge `(u, v)`, `u < v`, to `edge`;
/// returns the order. The one decoder behind [`parse_graph6`] and the
/// adjacency-mask fast path of the cop number.
pub(crate) fn decode(
    line: &[u8],
    mut edge: impl FnMut(u32, u32),
) -> std::result::Result<usize, Graph6Error> {
    let err = |column: usize, message: String| Graph6Error { column, message };
    let byte = |i: usize| byte_at(line, i);
    match line.first() {
        None => return Err(err(1, "empty line: expected a graph6 graph".into())),
        Some(b':') => {
            return Err(err(
                1,
                "sparse6 (`:`) is not supported: expected graph6".into(),
            ))
        }
        Some(b'&') => {
            return Err(err(
                1,
                "digraph6 (`&`) is not supported: expected graph6".into(),
            ))
        }
        _ => {}
    }
    let (n, mut at) = order(line)?;
    if n as usize > GRAPH6_MAX_ORDER {
        return Err(err(
            1,
            format!("a graph of {n} vertices: at most {GRAPH6_MAX_ORDER} are supported"),
        ));
    }
    let n = n as usize;
    let bits = n * n.saturating_sub(1) / 2;
    let need = bits.div_ceil(6);
    if line.len() != at + need {
        let column = (at + need).min(line.len()) + 1;
        return Err(err(
            column,
            format!(
                "a graph of {n} vertices needs {need} edge bytes after the order, found {}",
                line.len() - at
            ),
        ));
    }
    let (mut u, mut v) = (0u32, 1u32);
    let mut left = bits;
    while left > 0 {
        let b = byte(at)?;
        let take = left.min(6);
        for k in 0..take {
            if (b >> (5 - k)) & 1 == 1 {
                edge(u, v);
            }
            u += 1;
            if u == v {
                u = 0;
                v += 1;
            }
        }
        if take < 6 && b & ((1 << (6 - take)) - 1) != 0 {
            return Err(err(
                at + 1,
                "padding bits after the last edge must be zero".into(),
            ));
        }
        left -= take;
        at += 1;
    }
    Ok(n)
}

fn show(b: u8) -> String {
    if b.is_ascii_graphic() || b == b' ' {
        format!("`{}`", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

/// One graph of a graph6 stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph6Graph {
    /// 1-based line number in the stream.
    pub line: usize,
    /// Number of vertices.
    pub n: usize,
    /// Undirected edges `(u, v)`, `u < v`.
    pub edges: Vec<(u32, u32)>,
}

/// Reads graph6 graphs a line at a time from any reader (stdin, a file):
/// blank lines are skipped, a `>>graph6<<` header is accepted before the
/// first graph, and errors name the file, line and column.
pub struct Graph6Reader<R> {
    reader: R,
    path: PathBuf,
    line: usize,
    buf: Vec<u8>,
}

impl<R: BufRead> Graph6Reader<R> {
    /// A reader over `reader`; `path` names it in errors (`-` for stdin).
    pub fn new(reader: R, path: &Path) -> Graph6Reader<R> {
        Graph6Reader {
            reader,
            path: path.to_path_buf(),
            line: 0,
            buf: Vec::new(),
        }
    }

    /// The next non-blank line as raw bytes (header stripped, line end
    /// removed) with its line number, or `None` at the end of the input.
    /// The line is bounded: a line longer than the largest supported
    /// graph needs is refused before it is read whole.
    ///
    /// # Errors
    /// [`Error::Io`] on a read error, [`Error::Parse`] on an overlong line.
    pub fn next_line(&mut self) -> Result<Option<(usize, &[u8])>> {
        const MAX_LINE: u64 = 8 + (GRAPH6_MAX_ORDER * GRAPH6_MAX_ORDER / 12) as u64 + 16;
        loop {
            self.buf.clear();
            let read = <&mut R as std::io::Read>::take(&mut self.reader, MAX_LINE + 1)
                .read_until(b'\n', &mut self.buf)
                .map_err(|source| Error::Io {
                    path: self.path.clone(),
                    source,
                })?;
            if read == 0 {
                return Ok(None);
            }
            self.line += 1;
            if self.buf.len() as u64 > MAX_LINE {
                return Err(self.parse_error(1, "line too long for a graph6 graph".into()));
            }
            while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
                self.buf.pop();
            }
            let mut start = 0;
            if self.buf.starts_with(HEADER) {
                start = HEADER.len();
            }
            if self.buf[start..].iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Ok(Some((self.line, &self.buf[start..])));
        }
    }

    /// The error for a graph6 problem on the current line; `column` counts
    /// from the start of the line's graph (the header is added back).
    pub fn line_error(&self, e: Graph6Error) -> Error {
        let skip = if self.buf.starts_with(HEADER) {
            HEADER.len()
        } else {
            0
        };
        self.parse_error(e.column + skip, e.message)
    }

    fn parse_error(&self, column: usize, message: String) -> Error {
        Error::Parse {
            path: self.path.display().to_string(),
            line: self.line,
            column,
            message,
        }
    }
}

impl<R: BufRead> Iterator for Graph6Reader<R> {
    type Item = Result<Graph6Graph>;

    fn next(&mut self) -> Option<Result<Graph6Graph>> {
        let (line, bytes) = match self.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => return None,
            Err(e) => return Some(Err(e)),
        };
        Some(match parse_graph6(bytes) {
            Ok((n, edges)) => Ok(Graph6Graph { line, n, edges }),
            Err(e) => Err(self.line_error(e)),
        })
    }
}

/// Encodes a graph as one graph6 line (no line end), the inverse of
/// [`parse_graph6`]; handy for tests and for naming graphs in reports.
#[must_use]
pub fn to_graph6(n: usize, edges: &[(u32, u32)]) -> String {
    let mut out = Vec::new();
    if n <= 62 {
        out.push(n as u8 + 63);
    } else if n <= 258_047 {
        out.push(126);
        for s in [12, 6, 0] {
            out.push(((n >> s) & 63) as u8 + 63);
        }
    } else {
        out.extend([126, 126]);
        for s in [30, 24, 18, 12, 6, 0] {
            out.push(((n >> s) & 63) as u8 + 63);
        }
    }
    let bits = n * n.saturating_sub(1) / 2;
    let mut bitset = vec![false; bits];
    for &(a, b) in edges {
        let (u, v) = (a.min(b) as usize, a.max(b) as usize);
        if u != v && v < n {
            bitset[v * (v - 1) / 2 + u] = true;
        }
    }
    for chunk in bitset.chunks(6) {
        let mut b = 0u8;
        for (k, &bit) in chunk.iter().enumerate() {
            b |= u8::from(bit) << (5 - k);
        }
        out.push(b + 63);
    }
    String::from_utf8(out).expect("graph6 is ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_known_lines() {
        // nauty-geng -c 3: the path and the triangle.
        assert_eq!(parse_graph6(b"Bg").unwrap(), (3, vec![(0, 1), (1, 2)]));
        assert_eq!(
            parse_graph6(b"Bw").unwrap(),
            (3, vec![(0, 1), (0, 2), (1, 2)])
        );
        // Petersen graph as nauty prints it.
        let (n, edges) = parse_graph6(b"IheA@GUAo").unwrap();
        assert_eq!((n, edges.len()), (10, 15));
        assert_eq!(parse_graph6(b"@").unwrap(), (1, vec![]));
        assert_eq!(parse_graph6(b"?").unwrap(), (0, vec![]));
    }

    /// The order read from the header agrees with the decoder's, for each
    /// of the three header lengths.
    #[test]
    fn graph6_order_reads_every_header_length() {
        for n in [1usize, 5, 62, 63, 64, 200, 258_047, 258_048] {
            let text = if n <= 200 {
                to_graph6(n, &[])
            } else {
                let bytes = if n < 258_048 {
                    vec![
                        126,
                        (n >> 12) as u8 + 63,
                        (n >> 6 & 63) as u8 + 63,
                        (n & 63) as u8 + 63,
                    ]
                } else {
                    let mut b = vec![126, 126];
                    b.extend((0..6).rev().map(|k| (n >> (6 * k) & 63) as u8 + 63));
                    b
                };
                String::from_utf8(bytes).unwrap()
            };
            assert_eq!(graph6_order(text.as_bytes()), Ok(n as u64), "{n}");
            if n <= 200 {
                assert_eq!(parse_graph6(text.as_bytes()).unwrap().0, n);
            }
        }
        assert!(graph6_order(b"").is_err());
        assert!(graph6_order(b"~").is_err());
        assert!(graph6_order(b"~~??").is_err());
        assert!(graph6_order(b"!").is_err());
    }

    #[test]
    fn round_trips_small_and_long_forms() {
        for n in [0usize, 1, 2, 5, 62, 63, 64, 100] {
            let edges: Vec<(u32, u32)> = (0..n as u32)
                .flat_map(|v| {
                    (0..v)
                        .filter(move |u| (u * 7 + v * 3) % 5 == 0)
                        .map(move |u| (u, v))
                })
                .collect();
            let line = to_graph6(n, &edges);
            assert_eq!(line.as_bytes()[0] == b'~', n > 62, "{n}");
            let (m, mut back) = parse_graph6(line.as_bytes()).unwrap();
            back.sort_by_key(|&(u, v)| (v, u));
            assert_eq!((m, back), (n, edges), "{n}");
        }
    }

    #[test]
    fn errors_name_the_column() {
        assert_eq!(parse_graph6(b"").unwrap_err().column, 1);
        assert_eq!(parse_graph6(b"Bgg").unwrap_err().column, 3);
        assert_eq!(parse_graph6(b"B").unwrap_err().column, 2);
        let e = parse_graph6(b"B h").unwrap_err();
        assert!(e.message.contains("found"), "{e:?}");
        // Padding bit set: 3 vertices use 3 of the 6 bits.
        assert_eq!(parse_graph6(b"Bh").unwrap_err().column, 2);
        assert!(parse_graph6(b":Bc")
            .unwrap_err()
            .message
            .contains("sparse6"));
        assert_eq!(parse_graph6(b"~??").unwrap_err().column, 4);
    }

    #[test]
    fn reader_skips_header_and_blank_lines_and_reports_lines() {
        let text = b">>graph6<<Bg\n\nBw\r\nB!\n";
        let mut r = Graph6Reader::new(&text[..], Path::new("in.g6"));
        assert_eq!(r.next().unwrap().unwrap().line, 1);
        let g = r.next().unwrap().unwrap();
        assert_eq!((g.line, g.n, g.edges.len()), (3, 3, 3));
        let e = r.next().unwrap().unwrap_err().to_string();
        assert_eq!(
            e,
            "in.g6:4:2: expected a graph6 byte (63..=126, `?` to `~`), found `!`"
        );
        assert!(r.next().is_none());
        let mut r = Graph6Reader::new(&b">>graph6<<B!"[..], Path::new("-"));
        assert!(r
            .next()
            .unwrap()
            .unwrap_err()
            .to_string()
            .starts_with("-:1:12:"));
    }
}
