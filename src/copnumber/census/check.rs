//! The census's check of its own verdicts: a graph has cop number 1 if
//! and only if it is dismantlable (Nowakowski and Winkler 1983; Quilliot
//! 1978), that is, if its vertices can be removed one at a time, each a
//! corner of what is left (a vertex `u` whose closed neighbourhood lies in
//! the closed neighbourhood of another vertex `v`), until one is left.
//!
//! Written apart from the rest of the crate on purpose: it decodes the
//! graph6 line itself and uses nothing of the solver, the several-cops
//! kernel, the cop-number search or its one-cop fast path (`small.rs`,
//! which also tests dismantlability, another way), so a fault in any of
//! them shows as a disagreement here instead of being repeated.
//!
//! Corners are removed greedily, the first found each time: that decides
//! dismantlability whatever the order, since removing a corner leaves a
//! retract of the graph and a retract of a dismantlable graph is
//! dismantlable.

use std::fmt;

/// Why a graph6 line could not be checked, or how the check disagrees
/// with a census's verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError(pub String);

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CheckError {}

/// Graphs of up to this many vertices take the fast path: one `u64` row
/// each, decoded from the set bits alone.
const SMALL: usize = 62;

/// A graph's closed neighbourhoods as bit rows of `words` words each,
/// reused from graph to graph (a census checks a billion graphs).
#[derive(Debug)]
pub struct Dismantler {
    vertices: usize,
    words: usize,
    rows: Vec<u64>,
    alive: Vec<u64>,
    left: Vec<u64>,
    /// The pair `(u, v)` of each bit of the upper triangle, for graphs of
    /// up to [`SMALL`] vertices.
    pairs: Vec<(u8, u8)>,
    /// The rows of a small graph.
    small: [u64; 64],
}

impl Default for Dismantler {
    fn default() -> Dismantler {
        Dismantler::new()
    }
}

impl Dismantler {
    /// An empty checker.
    #[must_use]
    pub fn new() -> Dismantler {
        let mut pairs = Vec::new();
        for v in 1..SMALL as u8 {
            for u in 0..v {
                pairs.push((u, v));
            }
        }
        Dismantler {
            vertices: 0,
            words: 0,
            rows: Vec::new(),
            alive: Vec::new(),
            left: Vec::new(),
            pairs,
            small: [0; 64],
        }
    }

    /// The fast path: a well-formed graph6 line of 1 to [`SMALL`]
    /// vertices read into `small` (its order returned), visiting the set
    /// bits only; `None` for anything else, which [`Dismantler::read`]
    /// then reads or refuses.
    fn read_small(&mut self, line: &[u8]) -> Option<usize> {
        let (&first, body) = line.split_first()?;
        if !(64..=63 + SMALL as u8).contains(&first) {
            return None;
        }
        let n = usize::from(first - 63);
        let bits = n * (n - 1) / 2;
        if body.len() != bits.div_ceil(6) {
            return None;
        }
        for (v, row) in self.small.iter_mut().enumerate().take(n) {
            *row = 1 << v;
        }
        for (k, &byte) in body.iter().enumerate() {
            if !(63..=126).contains(&byte) {
                return None;
            }
            let mut x = byte - 63;
            while x != 0 {
                let bit = 7 - x.leading_zeros() as usize;
                x &= !(1 << bit);
                let at = 6 * k + 5 - bit;
                if at >= bits {
                    return None;
                }
                let (u, v) = self.pairs[at];
                self.small[usize::from(u)] |= 1 << v;
                self.small[usize::from(v)] |= 1 << u;
            }
        }
        Some(n)
    }

    /// Dismantles the small graph read by [`Dismantler::read_small`]: in
    /// sweeps over the vertices, each corner found removed at once, until
    /// one vertex is left (dismantlable) or a sweep finds no corner.
    fn dismantle_small(&self, n: usize) -> bool {
        let rows = &self.small;
        let mut alive: u64 = (1 << n) - 1;
        loop {
            let before = alive;
            let mut us = alive;
            while us != 0 {
                if alive.count_ones() == 1 {
                    return true;
                }
                let u = us.trailing_zeros() as usize;
                us &= us - 1;
                let left = rows[u] & alive;
                let mut vs = left & !(1 << u);
                while vs != 0 {
                    let v = vs.trailing_zeros() as usize;
                    vs &= vs - 1;
                    if left & !rows[v] == 0 {
                        alive &= !(1 << u);
                        break;
                    }
                }
            }
            if alive.count_ones() == 1 {
                return true;
            }
            if alive == before {
                return false;
            }
        }
    }

    /// Reads one graph6 line (no header, no line end) into the rows.
    fn read(&mut self, line: &[u8]) -> Result<(), CheckError> {
        let bad = |why: String| CheckError(format!("not a graph6 line: {why}"));
        let six = |i: usize| -> Result<u64, CheckError> {
            match line.get(i) {
                Some(&b) if (63..=126).contains(&b) => Ok(u64::from(b - 63)),
                Some(&b) => Err(bad(format!("byte {b} at column {}", i + 1))),
                None => Err(bad(format!("it ends at column {}", i + 1))),
            }
        };
        let (n, start) = if six(0)? < 63 {
            (six(0)?, 1)
        } else if six(1)? < 63 {
            ((six(1)? << 12) | (six(2)? << 6) | six(3)?, 4)
        } else {
            let mut n = 0;
            for i in 2..8 {
                n = (n << 6) | six(i)?;
            }
            (n, 8)
        };
        if n == 0 {
            return Err(bad("a graph of no vertices".into()));
        }
        if n > 1 << 16 {
            return Err(bad(format!("{n} vertices, more than 65536")));
        }
        let n = n as usize;
        let bits = n * (n - 1) / 2;
        let body = &line[start.min(line.len())..];
        if body.len() != bits.div_ceil(6) {
            return Err(bad(format!(
                "{} bytes of edges where {n} vertices take {}",
                body.len(),
                bits.div_ceil(6)
            )));
        }
        let words = n.div_ceil(64);
        self.vertices = n;
        self.words = words;
        self.rows.clear();
        self.rows.resize(n * words, 0);
        for v in 0..n {
            self.rows[v * words + v / 64] |= 1 << (v % 64);
        }
        // Bit k of the upper triangle is the pair (u, v), u < v, column
        // by column: v = 1, 2, ..., u = 0 .. v - 1.
        let (mut u, mut v) = (0usize, 1usize);
        for (k, &byte) in body.iter().enumerate() {
            if !(63..=126).contains(&byte) {
                return Err(bad(format!("byte {byte} at column {}", start + k + 1)));
            }
            let x = byte - 63;
            for bit in (0..6).rev() {
                if 6 * k + (5 - bit) >= bits {
                    if x & (1 << bit) != 0 {
                        return Err(bad(format!("padding bits set at column {}", start + k + 1)));
                    }
                    continue;
                }
                if x & (1 << bit) != 0 {
                    self.rows[u * words + v / 64] |= 1 << (v % 64);
                    self.rows[v * words + u / 64] |= 1 << (u % 64);
                }
                u += 1;
                if u == v {
                    u = 0;
                    v += 1;
                }
            }
        }
        Ok(())
    }

    /// Whether `u`, alive, is a corner of the alive graph: some other
    /// alive vertex is adjacent to every alive vertex of `u`'s closed
    /// neighbourhood. That vertex is a neighbour of `u` (it is adjacent
    /// to `u`), so only the neighbours are tried.
    fn is_corner(&mut self, u: usize) -> bool {
        let w = self.words;
        for i in 0..w {
            self.left[i] = self.rows[u * w + i] & self.alive[i];
        }
        for i in 0..w {
            let mut candidates = self.left[i];
            while candidates != 0 {
                let v = 64 * i + candidates.trailing_zeros() as usize;
                candidates &= candidates - 1;
                if v == u {
                    continue;
                }
                let row = &self.rows[v * w..(v + 1) * w];
                if self.left.iter().zip(row).all(|(&a, &b)| a & !b == 0) {
                    return true;
                }
            }
        }
        false
    }

    /// Whether the graph of a graph6 line is dismantlable: corners
    /// removed one at a time leave one vertex.
    ///
    /// # Errors
    /// [`CheckError`] for a line that is not graph6, or a graph of no
    /// vertices.
    pub fn dismantlable(&mut self, line: &[u8]) -> Result<bool, CheckError> {
        if let Some(n) = self.read_small(line) {
            return Ok(self.dismantle_small(n));
        }
        self.read(line)?;
        Ok(self.dismantle_rows())
    }

    /// Dismantles the graph read by [`Dismantler::read`], any order: the
    /// first corner found removed each time, until one vertex is left or
    /// none is a corner.
    fn dismantle_rows(&mut self) -> bool {
        let (n, w) = (self.vertices, self.words);
        self.alive.clear();
        self.alive.resize(w, 0);
        for v in 0..n {
            self.alive[v / 64] |= 1 << (v % 64);
        }
        self.left.clear();
        self.left.resize(w, 0);
        let mut count = n;
        'removal: while count > 1 {
            for u in 0..n {
                if self.alive[u / 64] & (1 << (u % 64)) != 0 && self.is_corner(u) {
                    self.alive[u / 64] &= !(1 << (u % 64));
                    count -= 1;
                    continue 'removal;
                }
            }
            return false;
        }
        true
    }

    /// Checks a census's verdict on a graph: cop number 1 (`Some(1)`) must
    /// be a dismantlable graph, any other (`None`: more than the most
    /// cops) a graph that is not. `Ok(true)` when the graph is
    /// dismantlable.
    ///
    /// # Errors
    /// [`CheckError`] saying how they disagree, or that the line is not
    /// graph6.
    pub fn check(&mut self, line: &[u8], cop_number: Option<u32>) -> Result<bool, CheckError> {
        let dismantlable = self.dismantlable(line)?;
        if dismantlable != (cop_number == Some(1)) {
            let said =
                cop_number.map_or_else(|| "more than the most cops".into(), |c| c.to_string());
            let found = if dismantlable {
                "dismantlable, so cop number 1"
            } else {
                "not dismantlable, so cop number at least 2"
            };
            return Err(CheckError(format!(
                "graph {}: the census found cop number {said}, corner elimination finds it {found}",
                String::from_utf8_lossy(line)
            )));
        }
        Ok(dismantlable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// graph6 of an edge list, written here (not the crate's writer).
    fn g6(n: usize, edges: &[(usize, usize)]) -> Vec<u8> {
        assert!(n <= 62);
        let mut bits = Vec::new();
        for v in 1..n {
            for u in 0..v {
                bits.push(edges.contains(&(u, v)) || edges.contains(&(v, u)));
            }
        }
        let mut out = vec![63 + n as u8];
        for chunk in bits.chunks(6) {
            let mut x = 0u8;
            for (i, &b) in chunk.iter().enumerate() {
                x |= u8::from(b) << (5 - i);
            }
            out.push(63 + x);
        }
        out
    }

    fn cycle(n: usize) -> Vec<(usize, usize)> {
        (0..n).map(|i| (i, (i + 1) % n)).collect()
    }

    #[test]
    fn known_graphs() {
        let mut d = Dismantler::new();
        assert!(d.dismantlable(&g6(1, &[])).unwrap());
        assert!(d.dismantlable(&g6(2, &[(0, 1)])).unwrap());
        assert!(!d.dismantlable(&g6(2, &[])).unwrap());
        assert!(d.dismantlable(&g6(3, &cycle(3))).unwrap());
        for n in 4..12 {
            assert!(!d.dismantlable(&g6(n, &cycle(n))).unwrap(), "C{n}");
            let path: Vec<_> = (1..n).map(|i| (i - 1, i)).collect();
            assert!(d.dismantlable(&g6(n, &path)).unwrap(), "P{n}");
            // The wheel: a cycle and a hub.
            let mut wheel = cycle(n - 1);
            wheel.extend((0..n - 1).map(|i| (i, n - 1)));
            assert!(d.dismantlable(&g6(n, &wheel)).unwrap(), "W{n}");
        }
        // nauty's Petersen graph, and a 4-cycle with a pendant.
        assert!(!d.dismantlable(b"ICOf@pSb?").unwrap());
        assert!(!d
            .dismantlable(&g6(5, &[(0, 1), (1, 2), (2, 3), (3, 0), (3, 4)]))
            .unwrap());
    }

    /// A graph of over 64 vertices (rows of several words): a long path
    /// is dismantlable, a long cycle is not, and a cycle with a vertex
    /// adjacent to all is.
    #[test]
    fn graphs_of_several_words() {
        let mut d = Dismantler::new();
        for n in [63usize, 64, 65, 130] {
            let mut line = Vec::new();
            let big = |n: usize, edges: &[(usize, usize)], line: &mut Vec<u8>| {
                line.clear();
                if n <= 62 {
                    line.push(63 + n as u8);
                } else {
                    line.extend([
                        126,
                        63 + (n >> 12) as u8,
                        63 + ((n >> 6) & 63) as u8,
                        63 + (n & 63) as u8,
                    ]);
                }
                let mut bits = vec![false; n * (n - 1) / 2];
                for &(a, b) in edges {
                    let (u, v) = (a.min(b), a.max(b));
                    bits[v * (v - 1) / 2 + u] = true;
                }
                for chunk in bits.chunks(6) {
                    let mut x = 0u8;
                    for (i, &b) in chunk.iter().enumerate() {
                        x |= u8::from(b) << (5 - i);
                    }
                    line.push(63 + x);
                }
            };
            let path: Vec<_> = (1..n).map(|i| (i - 1, i)).collect();
            big(n, &path, &mut line);
            assert!(d.dismantlable(&line).unwrap(), "P{n}");
            big(n, &cycle(n), &mut line);
            assert!(!d.dismantlable(&line).unwrap(), "C{n}");
            let mut wheel = cycle(n - 1);
            wheel.extend((0..n - 1).map(|i| (i, n - 1)));
            big(n, &wheel, &mut line);
            assert!(d.dismantlable(&line).unwrap(), "W{n}");
        }
    }

    #[test]
    fn bad_lines_are_refused() {
        let mut d = Dismantler::new();
        for line in [&b""[..], b"?", b"Bgx", b"B", b"B!", b"Bh"] {
            assert!(d.dismantlable(line).is_err(), "{line:?}");
        }
    }

    #[test]
    fn verdicts_are_checked_both_ways() {
        let mut d = Dismantler::new();
        assert_eq!(d.check(b"Bg", Some(1)), Ok(true));
        assert_eq!(d.check(b"ICOf@pSb?", Some(3)), Ok(false));
        assert_eq!(d.check(b"ICOf@pSb?", None), Ok(false));
        let e = d.check(b"Bg", Some(2)).unwrap_err();
        assert!(
            e.0.contains("graph Bg: the census found cop number 2"),
            "{e}"
        );
        let e = d.check(b"ICOf@pSb?", Some(1)).unwrap_err();
        assert!(e.0.contains("not dismantlable"), "{e}");
    }

    /// The fast path and the rows of words agree, on every connected
    /// graph of 6 vertices and on random graphs of 1 to 62 vertices.
    #[test]
    fn both_paths_agree() {
        let mut d = Dismantler::new();
        let mut lines: Vec<Vec<u8>> = include_str!("../../../data/graphs/connected-6.g6")
            .lines()
            .map(|l| l.as_bytes().to_vec())
            .collect();
        let mut next = crate::xorshift::stream(0x9e37_79b9_7f4a_7c15);
        for n in 1..=62usize {
            for density in [2u64, 3, 5, 9] {
                let mut edges = Vec::new();
                for v in 1..n {
                    for u in 0..v {
                        if !next().is_multiple_of(density) {
                            edges.push((u, v));
                        }
                    }
                }
                lines.push(g6(n, &edges));
            }
        }
        let mut both = [0; 2];
        for l in &lines {
            let n = d.read_small(l).expect("well-formed");
            let fast = d.dismantle_small(n);
            d.read(l).unwrap();
            assert_eq!(d.dismantle_rows(), fast, "{}", String::from_utf8_lossy(l));
            both[usize::from(fast)] += 1;
        }
        // Both answers are met.
        assert!(both[0] > 50 && both[1] > 50, "{both:?}");
    }

    /// Every connected graph on 6 vertices (committed, nauty's): the
    /// dismantlable ones are exactly those the cop-number search gives
    /// cop number 1, 68 of the 112.
    #[test]
    fn agrees_with_the_cop_number_on_six_vertices() {
        let mut d = Dismantler::new();
        let mut yes = 0;
        for l in include_str!("../../../data/graphs/connected-6.g6").lines() {
            let c = super::super::census_graph(l.as_bytes(), 4).unwrap();
            if d.check(l.as_bytes(), c.cop_number).unwrap() {
                yes += 1;
            }
        }
        assert_eq!(yes, 68);
    }
}
