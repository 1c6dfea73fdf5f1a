//! The game section of a several-cops table (format versions 4 to 6),
//! after the exit bitmap of the header body:
//!
//! ```text
//! kind u8          0: a grid map (the header's grid and rules build the
//!                  moves), 1: a graph (the header's grid is 1 x n, every
//!                  cell free: cell i is vertex i; the edges follow)
//! cops u32         k, 1 to MAX_COPS
//! cop speed u32    steps per turn, 1 to MAX_SPEED
//! thief speed u32
//! thief tile u32   version 5 on: T >= 1, thief cells per tile (below);
//!                  version 4 has one tile of every cell
//! start u8         0: none, 1: k cop cells u32 (ascending), thief cell u32
//!                  (cell ids: the free cells in row-major order)
//! graph only:      edge count u32, then each edge u32 u32 (u < v, sorted,
//!                  no duplicates)
//! ```
//!
//! The header's start fields are `u32::MAX` (none) in versions 4 to 6:
//! the start is here, as cell ids. On a graph only the rules' pass and
//! thief-first bits matter.
//!
//! The state order of the blocks ([`StateOrder`]): a state of the game is
//! `s = (rank(cops) * n + thief) * 2 + turn` (`KCops` (`games/kcops.rs`)'
//! index, the engines'). The file groups the thief cells in tiles of `T`
//! consecutive cells (the last one shorter), tile by tile, and within a
//! tile orders by rank, then thief cell, then turn: with `R` multisets,
//! tile `j = thief / T` of width `w`, the file index is
//! `2 T R j + 2 w rank + 2 (thief % T) + turn`. A cops' move keeps the
//! thief's cell, so the positions one move apart lie in a few blocks of one
//! tile, where the engines' order spreads them over dozens (a block holds a
//! few multisets' every thief cell); a thief's move stays within its
//! multiset, in one or two tiles.

use super::Cursor;
use crate::games::arena::MAX_SPEED;
use crate::games::multiset::MAX_COPS;

/// The decoded game section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KSection {
    /// Whether the game is on a graph (else on the header's grid map).
    pub(crate) graph: bool,
    /// Number of cops k.
    pub(crate) cops: u32,
    pub(crate) cop_speed: u32,
    pub(crate) thief_speed: u32,
    /// Thief cells per tile of the state order (the cells, in version 4).
    pub(crate) thief_tile: u32,
    /// The start: the cops' cells (ascending) and the thief's cell.
    pub(crate) start: Option<(Vec<u32>, u32)>,
    /// A graph's edges `u < v`, sorted (empty on a map).
    pub(crate) edges: Vec<(u32, u32)>,
}

/// `2 * n * C(n + k - 1, k)`, the states of `k` cops on `n` cells, if it
/// fits a u64 (as the several-cops game requires).
pub(crate) fn state_count(n: u64, k: u32) -> Option<u64> {
    let mut c: u128 = 1;
    for i in 1..=u128::from(k) {
        // C(n + i - 1, i) = C(n + i - 2, i - 1) * (n + i - 1) / i, exact.
        c = c.checked_mul(u128::from(n) + i - 1)? / i;
    }
    u64::try_from(c.checked_mul(2 * u128::from(n))?).ok()
}

impl KSection {
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        out.push(u8::from(self.graph));
        for v in [self.cops, self.cop_speed, self.thief_speed, self.thief_tile] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        match &self.start {
            None => out.push(0),
            Some((cops, thief)) => {
                out.push(1);
                for c in cops.iter().chain([thief]) {
                    out.extend_from_slice(&c.to_le_bytes());
                }
            }
        }
        if self.graph {
            out.extend_from_slice(&(self.edges.len() as u32).to_le_bytes());
            for &(u, v) in &self.edges {
                out.extend_from_slice(&u.to_le_bytes());
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }

    /// Reads and checks the section of a format `version` header with
    /// `cells` free cells on a `rows x cols` grid.
    pub(crate) fn decode(
        c: &mut Cursor<'_>,
        rows: usize,
        cols: usize,
        cells: usize,
        version: u32,
    ) -> Result<KSection, String> {
        let graph = match c.u8()? {
            0 => false,
            1 => true,
            kind => return Err(format!("unknown game kind {kind} (0 map, 1 graph)")),
        };
        let cops = c.u32()?;
        let cop_speed = c.u32()?;
        let thief_speed = c.u32()?;
        let thief_tile = if version >= 5 {
            match c.u32()? {
                0 => return Err("a thief tile of 0 cells, expected 1 or more".into()),
                t => t,
            }
        } else {
            u32::try_from(cells).unwrap_or(u32::MAX)
        };
        if !(1..=MAX_COPS as u32).contains(&cops) {
            return Err(format!("{cops} cops, expected 1 to {MAX_COPS}"));
        }
        for (what, s) in [("cop", cop_speed), ("thief", thief_speed)] {
            if !(1..=MAX_SPEED).contains(&s) {
                return Err(format!("{what} speed {s}, expected 1 to {MAX_SPEED}"));
            }
        }
        if state_count(cells as u64, cops).is_none() {
            return Err(format!(
                "{cops} cops on {cells} cells: too many states for a 64-bit index"
            ));
        }
        let cell = |c: &mut Cursor<'_>, what: &str| -> Result<u32, String> {
            let v = c.u32()?;
            if v as usize >= cells {
                return Err(format!(
                    "the {what} cell {v} is not one of the {cells} cells"
                ));
            }
            Ok(v)
        };
        let start = match c.u8()? {
            0 => None,
            1 => {
                let list = (0..cops)
                    .map(|_| cell(c, "start cop"))
                    .collect::<Result<Vec<_>, _>>()?;
                if list.windows(2).any(|w| w[0] > w[1]) {
                    return Err("the start cops are not in ascending order".into());
                }
                Some((list, cell(c, "start thief")?))
            }
            flag => return Err(format!("unknown start flag {flag}")),
        };
        let mut edges = Vec::new();
        if graph {
            if rows != 1 || cells != cols {
                return Err(format!(
                    "a graph's grid is 1 x n with every cell free, found {rows} x {cols} with {cells} free"
                ));
            }
            let count = c.u32()? as usize;
            // Bounded by the bytes there before anything is allocated.
            let bytes = c.take(count.checked_mul(8).ok_or("too many edges")?)?;
            edges.reserve(count);
            for pair in bytes.chunks_exact(8) {
                let u = u32::from_le_bytes(pair[..4].try_into().expect("4 bytes"));
                let v = u32::from_le_bytes(pair[4..].try_into().expect("4 bytes"));
                if u >= v || v as usize >= cells {
                    return Err(format!(
                        "edge {u} {v}: expected u < v < {cells} (the vertices)"
                    ));
                }
                if edges.last().is_some_and(|&last| last >= (u, v)) {
                    return Err(format!(
                        "edge {u} {v}: the edges are not sorted and distinct"
                    ));
                }
                edges.push((u, v));
            }
        }
        Ok(KSection {
            graph,
            cops,
            cop_speed,
            thief_speed,
            thief_tile,
            start,
            edges,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_counts_are_the_multiset_counts() {
        assert_eq!(state_count(5, 1), Some(2 * 5 * 5));
        assert_eq!(state_count(5, 2), Some(2 * 5 * 15));
        assert_eq!(state_count(6, 3), Some(2 * 6 * 56));
        assert_eq!(state_count(1 << 20, 4), None);
    }

    #[test]
    fn sections_round_trip_and_bad_ones_are_refused() {
        let s = KSection {
            graph: true,
            cops: 2,
            cop_speed: 1,
            thief_speed: 3,
            thief_tile: 2,
            start: Some((vec![0, 2], 4)),
            edges: vec![(0, 1), (0, 4), (1, 2), (2, 3), (3, 4)],
        };
        let mut bytes = Vec::new();
        s.encode(&mut bytes);
        let mut c = Cursor::new(&bytes, 0);
        assert_eq!(KSection::decode(&mut c, 1, 5, 5, 5).unwrap(), s);
        assert_eq!(c.pos, bytes.len());
        // Four vertices: the start thief and an edge are off the graph.
        let mut c = Cursor::new(&bytes, 0);
        assert!(KSection::decode(&mut c, 1, 4, 4, 5).is_err());
        let unsorted = KSection {
            edges: vec![(1, 2), (0, 1)],
            ..s.clone()
        };
        let mut bytes = Vec::new();
        unsorted.encode(&mut bytes);
        let err = KSection::decode(&mut Cursor::new(&bytes, 0), 1, 5, 5, 5).unwrap_err();
        assert!(err.contains("not sorted"), "{err}");
        let mut bytes = Vec::new();
        KSection {
            thief_tile: 0,
            ..s.clone()
        }
        .encode(&mut bytes);
        let err = KSection::decode(&mut Cursor::new(&bytes, 0), 1, 5, 5, 5).unwrap_err();
        assert!(err.contains("thief tile of 0 cells"), "{err}");
        // Version 4 has no tile: the section is 4 bytes shorter and one
        // tile holds every cell.
        let mut bytes = Vec::new();
        s.encode(&mut bytes);
        bytes.drain(13..17);
        let v4 = KSection::decode(&mut Cursor::new(&bytes, 0), 1, 5, 5, 4).unwrap();
        assert_eq!(
            v4,
            KSection {
                thief_tile: 5,
                ..s.clone()
            }
        );
        let mut bytes = Vec::new();
        KSection { cops: 9, ..s }.encode(&mut bytes);
        assert!(KSection::decode(&mut Cursor::new(&bytes, 0), 1, 5, 5, 5).is_err());
    }
}
