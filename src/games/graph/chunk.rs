//! One chunk of whole lines of an edge list, parsed on its own (by one
//! rayon worker): the byte cursor [`Scan`], the edges as `u32` or `u64`
//! pairs, the `win` / `loss` lines, and errors at lines counted from the
//! chunk's start (the caller makes them global).

use crate::csr::EdgeScan;
use crate::outcome::Outcome;

/// A `win v` or `loss v` line.
#[derive(Clone, Copy)]
pub(super) struct Fixed {
    pub(super) vertex: u64,
    pub(super) value: Outcome,
    pub(super) line: usize,
    pub(super) column: usize,
}

/// Edges of one chunk, `u32` pairs until an id does not fit.
pub(super) enum Pairs {
    Narrow(Vec<[u32; 2]>),
    Wide(Vec<[u64; 2]>),
}

impl Pairs {
    #[inline]
    pub(super) fn push(&mut self, u: u64, v: u64) {
        match self {
            Pairs::Narrow(pairs) if (u | v) >> 32 == 0 => pairs.push([u as u32, v as u32]),
            Pairs::Narrow(pairs) => {
                let mut wide: Vec<[u64; 2]> = pairs
                    .iter()
                    .map(|&[a, b]| [u64::from(a), u64::from(b)])
                    .collect();
                wide.push([u, v]);
                *self = Pairs::Wide(wide);
            }
            Pairs::Wide(pairs) => pairs.push([u, v]),
        }
    }

    pub(super) fn len(&self) -> usize {
        match self {
            Pairs::Narrow(p) => p.len(),
            Pairs::Wide(p) => p.len(),
        }
    }
}

impl EdgeScan for [Pairs] {
    fn pieces(&self) -> usize {
        self.len()
    }

    fn scan_piece(&self, p: usize, mut f: impl FnMut(u64, u64)) {
        match &self[p] {
            Pairs::Narrow(pairs) => pairs
                .iter()
                .for_each(|&[u, v]| f(u64::from(u), u64::from(v))),
            Pairs::Wide(pairs) => pairs.iter().for_each(|&[u, v]| f(u, v)),
        }
    }
}

/// What one chunk of lines holds.
pub(super) struct Chunk {
    pub(super) pairs: Pairs,
    pub(super) fixed: Vec<Fixed>,
    /// Line ends consumed.
    pub(super) lines: usize,
    pub(super) max_id: Option<u64>,
}

/// A problem at a line counted from the start of its chunk (0-based).
pub(super) struct LocalError {
    pub(super) line: usize,
    pub(super) column: usize,
    pub(super) message: String,
}

/// Parses a chunk of whole lines (the last may lack its line end).
pub(super) fn parse_chunk(
    bytes: &[u8],
    bound: Option<u64>,
) -> std::result::Result<Chunk, LocalError> {
    let mut scan = Scan::new(bytes);
    let mut pairs = Pairs::Narrow(Vec::new());
    let mut fixed = Vec::new();
    let mut max_id: Option<u64> = None;
    let (mut max_edge_id, mut any_edge) = (0, false);
    let limit = bound.unwrap_or(u64::MAX);
    loop {
        if let Some((u, v)) = scan.plain_edge(limit) {
            pairs.push(u, v);
            max_edge_id = max_edge_id.max(u.max(v));
            any_edge = true;
            continue;
        }
        scan.skip_blank();
        let Some(c) = scan.peek() else { break };
        if c.is_ascii_digit() {
            let u = scan.number("a source vertex", bound)?;
            scan.skip_blank();
            let v = scan.number("a target vertex", bound)?;
            scan.end_of_line("the edge `u v`")?;
            pairs.push(u, v);
            max_id = max_id.max(Some(u.max(v)));
            continue;
        }
        match c {
            b'\n' => {
                scan.newline();
                continue;
            }
            b'#' => {
                scan.skip_comment();
                continue;
            }
            _ => {}
        }
        let at = scan.i;
        let value = match scan.word() {
            b"win" => Outcome::Win,
            b"loss" => Outcome::Loss,
            b"p" => {
                return Err(scan.error(
                    at,
                    "a `p N M` line must be the first line of the file, before any edge, \
                     win or loss line",
                ))
            }
            _ => {
                return Err(scan.error(
                    at,
                    format!(
                        "expected an edge `u v`, `win v` or `loss v`, found `{}`",
                        scan.token(at)
                    ),
                ))
            }
        };
        scan.skip_blank();
        let (line, column) = (scan.line, scan.column(scan.i));
        let vertex = scan.number("a vertex", bound)?;
        scan.end_of_line(if value == Outcome::Win {
            "`win v`"
        } else {
            "`loss v`"
        })?;
        max_id = max_id.max(Some(vertex));
        fixed.push(Fixed {
            vertex,
            value,
            line,
            column,
        });
    }
    if any_edge {
        max_id = max_id.max(Some(max_edge_id));
    }
    Ok(Chunk {
        pairs,
        fixed,
        lines: scan.line,
        max_id,
    })
}

/// A cursor over bytes that tracks the line (0-based) and its start.
pub(super) struct Scan<'a> {
    bytes: &'a [u8],
    pub(super) i: usize,
    pub(super) line: usize,
    pub(super) line_start: usize,
}

impl<'a> Scan<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Scan<'a> {
        Scan {
            bytes,
            i: 0,
            line: 0,
            line_start: 0,
        }
    }

    /// The fast path: a plain edge line `u v` at the cursor (ids of at most
    /// 19 digits, below `limit`, blanks between, nothing else), stepped
    /// over with its line end. Works on locals and commits only at the end;
    /// anything else returns `None` without moving, and the careful path
    /// reads the line (and reports what is wrong with it).
    #[inline(always)]
    fn plain_edge(&mut self, limit: u64) -> Option<(u64, u64)> {
        #[inline(always)]
        fn digits(bytes: &[u8], mut i: usize) -> Option<(u64, usize)> {
            let start = i;
            let mut value = 0u64;
            while let Some(&c) = bytes.get(i) {
                let digit = c.wrapping_sub(b'0');
                if digit > 9 {
                    break;
                }
                // 19 digits cannot overflow; longer numbers take the careful path.
                value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
                i += 1;
            }
            (i > start && i - start <= 19).then_some((value, i))
        }
        let bytes = self.bytes;
        let (u, mut i) = digits(bytes, self.i)?;
        if !matches!(bytes.get(i), Some(b' ' | b'\t')) {
            return None;
        }
        while let Some(b' ' | b'\t') = bytes.get(i) {
            i += 1;
        }
        let (v, mut i) = digits(bytes, i)?;
        while let Some(b' ' | b'\t' | b'\r') = bytes.get(i) {
            i += 1;
        }
        let newline = match bytes.get(i) {
            Some(b'\n') => true,
            None => false,
            Some(_) => return None,
        };
        if u >= limit || v >= limit {
            return None;
        }
        if newline {
            self.i = i + 1;
            self.line += 1;
            self.line_start = self.i;
        } else {
            self.i = i;
        }
        Some((u, v))
    }

    #[inline]
    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    #[inline]
    pub(super) fn skip_blank(&mut self) {
        while let Some(b' ' | b'\t' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    /// Steps over a line end.
    #[inline]
    pub(super) fn newline(&mut self) {
        self.i += 1;
        self.line += 1;
        self.line_start = self.i;
    }

    /// Skips to the end of the line and over its line end.
    pub(super) fn skip_comment(&mut self) {
        match self.bytes[self.i..].iter().position(|&b| b == b'\n') {
            Some(k) => {
                self.i += k;
                self.newline();
            }
            None => self.i = self.bytes.len(),
        }
    }

    /// True at a byte that ends a token.
    #[inline]
    fn at_token_end(&self) -> bool {
        matches!(
            self.peek(),
            None | Some(b' ' | b'\t' | b'\r' | b'\n' | b'#')
        )
    }

    /// Reads a token up to white space, `#` or the line end.
    pub(super) fn word(&mut self) -> &'a [u8] {
        let start = self.i;
        while !self.at_token_end() {
            self.i += 1;
        }
        &self.bytes[start..self.i]
    }

    /// Reads a vertex id (or count) below `bound`, if any.
    #[inline]
    pub(super) fn number(
        &mut self,
        what: &str,
        bound: Option<u64>,
    ) -> std::result::Result<u64, LocalError> {
        let start = self.i;
        let mut value: u64 = 0;
        let mut overflow = false;
        while let Some(c) = self.peek() {
            let digit = c.wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            match value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(digit)))
            {
                Some(v) => value = v,
                None => overflow = true,
            }
            self.i += 1;
        }
        if self.i == start || !self.at_token_end() {
            return Err(self.error(
                start,
                format!(
                    "expected {what} (a 0-based integer), found `{}`",
                    self.token(start)
                ),
            ));
        }
        if overflow || value == u64::MAX {
            return Err(self.error(
                start,
                format!("{what} `{}` is too large", self.token(start)),
            ));
        }
        if let Some(n) = bound {
            if value >= n {
                return Err(self.error(
                    start,
                    format!(
                        "vertex {value} is out of range: the `p` line declares {n} vertices{}",
                        if n == 0 {
                            String::new()
                        } else {
                            format!(" (ids 0 to {})", n - 1)
                        }
                    ),
                ));
            }
        }
        Ok(value)
    }

    /// Expects the end of the line (maybe after a comment) and steps over it.
    #[inline]
    pub(super) fn end_of_line(&mut self, after: &str) -> std::result::Result<(), LocalError> {
        self.skip_blank();
        match self.peek() {
            None => Ok(()),
            Some(b'\n') => {
                self.newline();
                Ok(())
            }
            Some(b'#') => {
                self.skip_comment();
                Ok(())
            }
            Some(_) => Err(self.error(
                self.i,
                format!(
                    "expected the end of the line after {after}, found `{}`",
                    self.token(self.i)
                ),
            )),
        }
    }

    /// 1-based column of byte `at` in the current line, in characters.
    pub(super) fn column(&self, at: usize) -> usize {
        1 + self.bytes[self.line_start..at]
            .iter()
            .filter(|&&b| b & 0xC0 != 0x80)
            .count()
    }

    /// The token at byte `at`, for messages.
    fn token(&self, at: usize) -> String {
        let rest = &self.bytes[at..];
        let end = rest
            .iter()
            .position(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
            .unwrap_or(rest.len());
        if end == 0 {
            return "end of line".to_string();
        }
        // Control characters (binary input) are shown escaped.
        let text: String = String::from_utf8_lossy(&rest[..end.min(40)])
            .chars()
            .flat_map(|c| {
                let escaped = c.is_control().then(|| c.escape_default());
                escaped
                    .into_iter()
                    .flatten()
                    .chain((!c.is_control()).then_some(c))
            })
            .collect();
        if end > 40 {
            format!("{text}...")
        } else {
            text
        }
    }

    fn error(&self, at: usize, message: impl Into<String>) -> LocalError {
        LocalError {
            line: self.line,
            column: self.column(at),
            message: message.into(),
        }
    }
}
