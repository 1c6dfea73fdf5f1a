//! Explicit game graphs: every edge stored, forward and reverse, in
//! compressed sparse row (CSR) form, the classic baseline that the on-the-fly
//! engines are measured against.
//!
//! Layout (petgraph's): a [`Csr`] over `n` vertices has `n + 1` offsets
//! (`u64`), the last equal to the edge count, and one target per edge, `u32`
//! while every vertex id fits (`n <= 2^32`), `u64` beyond. The neighbours of
//! `v` are `targets[offsets[v]..offsets[v + 1]]`. An [`ExplicitGraph`] holds
//! the forward CSR (successors), its transpose (predecessors) and one bit per
//! vertex for the value of a vertex without moves, and implements [`Game`],
//! so the very same propagation that solves a game on the fly solves its
//! materialised graph. The graph type and its build live in `explicit`.
//!
//! Both CSRs are built by one two-level radix sort ([`bucket`]): workers
//! scan pieces of the edge list (ranges of source vertices) in parallel,
//! count and scatter their edges into buckets of 2^15 consecutive keys
//! (a few hundred sequential write streams), then sort each bucket in
//! cache. Every piece owns a precomputed segment of each bucket, so no two
//! workers write the same word (plain stores, no atomic read-modify-writes),
//! and values keep scan order within a key: every predecessor list comes out
//! sorted and the graph is identical at any thread count.
//!
//! The arrays are storage regions (anonymous memory or scratch files), so a
//! refused allocation is an [`Error::Alloc`], not an abort; callers size the
//! whole graph first ([`explicit_estimate`]) and refuse with
//! [`Error::TooLarge`] before allocating anything.

use std::ops::Range;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::error::Result;
use crate::game::{Game, Initial};
use crate::storage::{Atomic, Backing, Region};

mod bucket;
mod explicit;

use bucket::Transposed;
pub(crate) use bucket::{bucket, bucket_scratch_bytes, EdgeScan};
pub use explicit::ExplicitGraph;

/// Vertex counts up to this have all ids in `u32`.
const NARROW_VERTICES: u64 = 1 << 32;

/// States per task in the passes over a game; a multiple of 64 so a task
/// owns whole words of the terminal-value bitmap.
const CHUNK: u64 = 1 << 16;

/// Element types of a target array.
pub(crate) trait Target: Atomic {
    /// Reads a vertex id.
    fn get(&self) -> u64;
    /// Writes a vertex id (which fits, by the narrow/wide choice).
    fn put(&self, v: u64);
}

impl Target for AtomicU32 {
    #[inline]
    fn get(&self) -> u64 {
        u64::from(self.load(Relaxed))
    }
    #[inline]
    fn put(&self, v: u64) {
        debug_assert!(v < NARROW_VERTICES);
        self.store(v as u32, Relaxed);
    }
}

impl Target for AtomicU64 {
    #[inline]
    fn get(&self) -> u64 {
        self.load(Relaxed)
    }
    #[inline]
    fn put(&self, v: u64) {
        self.store(v, Relaxed);
    }
}

/// A directed graph in compressed sparse row form: `n + 1` offsets and one
/// target per edge (see the module docs for the layout).
///
/// # Example
/// ```
/// use retrograde::{parse_graph, Convention};
/// let graph = parse_graph(b"0 1\n0 2\n2 0\n", "inline", Convention::Normal).unwrap();
/// let forward = graph.forward();
/// assert_eq!(forward.vertex_count(), 3);
/// assert_eq!(forward.edge_count(), 3);
/// assert_eq!(forward.neighbors(0).collect::<Vec<_>>(), vec![1, 2]);
/// assert_eq!(graph.reverse().neighbors(0).collect::<Vec<_>>(), vec![2]);
/// ```
#[derive(Debug)]
pub struct Csr {
    offsets: Region,
    targets: Region,
    wide: bool,
    vertices: u64,
    edges: u64,
}

impl Csr {
    /// Bytes of a CSR with `vertices` vertices and `edges` edges.
    #[must_use]
    pub fn bytes_for(vertices: u64, edges: u64) -> u64 {
        let target = if vertices > NARROW_VERTICES { 8 } else { 4 };
        vertices
            .saturating_add(1)
            .saturating_mul(8)
            .saturating_add(edges.saturating_mul(target))
    }

    /// Zero offsets for `vertices` vertices, without targets yet.
    fn offsets_for(vertices: u64, backing: &Backing, what: &str) -> Result<Region> {
        Region::zeroed::<AtomicU64>(vertices + 1, backing, &format!("{what} offsets"))
    }

    /// Completes `offsets` (already final) with a zeroed target array.
    fn with_targets(
        offsets: Region,
        vertices: u64,
        edges: u64,
        backing: &Backing,
        what: &str,
    ) -> Result<Csr> {
        let wide = vertices > NARROW_VERTICES;
        let what = format!("{what} targets");
        let targets = if wide {
            Region::zeroed::<AtomicU64>(edges, backing, &what)?
        } else {
            Region::zeroed::<AtomicU32>(edges, backing, &what)?
        };
        Ok(Csr {
            offsets,
            targets,
            wide,
            vertices,
            edges,
        })
    }

    #[inline]
    fn offsets(&self) -> &[AtomicU64] {
        self.offsets.atomics()
    }

    /// Number of vertices `n`.
    #[must_use]
    pub fn vertex_count(&self) -> u64 {
        self.vertices
    }

    /// Number of edges (with multiplicity).
    #[must_use]
    pub fn edge_count(&self) -> u64 {
        self.edges
    }

    /// Whether targets are stored as `u64` (more than 2^32 vertices).
    #[must_use]
    pub fn has_wide_targets(&self) -> bool {
        self.wide
    }

    /// Bytes of the offsets and targets.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        (self.offsets.bytes() + self.targets.bytes()) as u64
    }

    /// The `v`-th offset, `v` in `0..=n`: where `v`'s neighbours start.
    ///
    /// # Panics
    /// If `v > n`.
    #[must_use]
    pub fn offset(&self, v: u64) -> u64 {
        self.offsets()[v as usize].load(Relaxed)
    }

    /// Number of neighbours of `v` (with multiplicity).
    ///
    /// # Panics
    /// If `v >= n`.
    #[inline]
    #[must_use]
    pub fn degree(&self, v: u64) -> u64 {
        let offsets = self.offsets();
        offsets[v as usize + 1].load(Relaxed) - offsets[v as usize].load(Relaxed)
    }

    /// The neighbours of `v`, in storage order.
    ///
    /// # Panics
    /// If `v >= n`.
    #[must_use]
    pub fn neighbors(&self, v: u64) -> Neighbors<'_> {
        let range = self.range(v);
        Neighbors(if self.wide {
            NeighborsInner::Wide(self.targets.atomics::<AtomicU64>()[range].iter())
        } else {
            NeighborsInner::Narrow(self.targets.atomics::<AtomicU32>()[range].iter())
        })
    }

    /// Calls `f` with every neighbour of `v`, in storage order.
    ///
    /// # Panics
    /// If `v >= n`.
    #[inline]
    pub fn for_each_neighbor(&self, v: u64, mut f: impl FnMut(u64)) {
        let range = self.range(v);
        if self.wide {
            self.targets.atomics::<AtomicU64>()[range]
                .iter()
                .for_each(|t| f(t.get()));
        } else {
            self.targets.atomics::<AtomicU32>()[range]
                .iter()
                .for_each(|t| f(t.get()));
        }
    }

    #[inline]
    fn range(&self, v: u64) -> Range<usize> {
        let offsets = self.offsets();
        offsets[v as usize].load(Relaxed) as usize..offsets[v as usize + 1].load(Relaxed) as usize
    }

    /// The largest degree, saturated to `u32::MAX` (a parallel sweep).
    fn max_degree(&self) -> u32 {
        let offsets = self.offsets();
        (0..self.vertices.div_ceil(CHUNK))
            .into_par_iter()
            .map(|k| {
                let range = k * CHUNK..((k + 1) * CHUNK).min(self.vertices);
                range
                    .map(|v| {
                        offsets[v as usize + 1].load(Relaxed) - offsets[v as usize].load(Relaxed)
                    })
                    .max()
                    .unwrap_or(0)
            })
            .max()
            .unwrap_or(0)
            .min(u64::from(u32::MAX)) as u32
    }

    /// The reverse graph: an edge `v -> u` for every edge `u -> v`, each
    /// predecessor list sorted (see the module docs).
    fn transpose(&self, backing: &Backing, what: &str) -> Result<Csr> {
        bucket(
            &Transposed::new(self),
            self.vertices,
            self.edges,
            backing,
            what,
        )
    }
}

/// Iterator over the neighbours of one vertex ([`Csr::neighbors`]).
#[derive(Debug)]
pub struct Neighbors<'a>(NeighborsInner<'a>);

#[derive(Debug)]
enum NeighborsInner<'a> {
    Narrow(std::slice::Iter<'a, AtomicU32>),
    Wide(std::slice::Iter<'a, AtomicU64>),
}

impl Iterator for Neighbors<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        match &mut self.0 {
            NeighborsInner::Narrow(it) => it.next().map(Target::get),
            NeighborsInner::Wide(it) => it.next().map(Target::get),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            NeighborsInner::Narrow(it) => it.size_hint(),
            NeighborsInner::Wide(it) => it.size_hint(),
        }
    }
}

impl ExactSizeIterator for Neighbors<'_> {}

/// Bytes an [`ExplicitGraph`] of `vertices` vertices and `edges` edges
/// takes: two CSRs and the terminal-value bits.
#[must_use]
pub(crate) fn graph_bytes(vertices: u64, edges: u64) -> u64 {
    Csr::bytes_for(vertices, edges)
        .saturating_mul(2)
        .saturating_add(8 * vertices.div_ceil(64))
}

/// Number of edges of `game`: the sum of its move counts (equal by the
/// [`Game`] contract), from one parallel pass over
/// [`Game::for_each_initial`] that allocates nothing.
///
/// # Example
/// ```
/// use retrograde::{count_edges, parse_map, CopsGame, Placement, Rules, Speeds};
/// let map = parse_map(b"1 2\nCT\n", "inline").unwrap();
/// let game = CopsGame::from_map(&map, &Placement::default(), Rules::default(), 1, Speeds::default()).unwrap();
/// // Only (cop, thief) = (0, 1) and (1, 0) are not terminal: 2 moves each turn.
/// assert_eq!(count_edges(&game), 8);
/// ```
pub fn count_edges(game: &impl Game) -> u64 {
    let n = game.state_count();
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|k| {
            let mut sum = 0u64;
            game.for_each_initial(k * CHUNK..((k + 1) * CHUNK).min(n), |_, initial| {
                if let Initial::Moves(m) = initial {
                    sum += u64::from(m);
                }
            });
            sum
        })
        .sum()
}

/// Bytes [`ExplicitGraph::from_game`] would allocate for `game`, computed
/// without building it: the state count, and the edge count from a cheap
/// parallel pass over the move counts.
///
/// # Example
/// ```
/// use retrograde::{explicit_estimate, parse_map, Backing, CopsGame, ExplicitGraph, Placement, Rules, Speeds};
/// let map = parse_map(b"2 3\nC.T\n..E\n", "inline").unwrap();
/// let game = CopsGame::from_map(&map, &Placement::default(), Rules::default(), 1, Speeds::default()).unwrap();
/// let graph = ExplicitGraph::from_game(&game, &Backing::Memory).unwrap();
/// assert_eq!(explicit_estimate(&game), graph.bytes());
/// ```
#[must_use]
pub fn explicit_estimate(game: &impl Game) -> u64 {
    graph_bytes(game.state_count(), count_edges(game))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs in a plain vector, for the bucketing tests.
    struct Pairs(Vec<(u64, u64)>);

    impl EdgeScan for Pairs {
        fn pieces(&self) -> usize {
            2
        }
        fn scan_piece(&self, p: usize, mut f: impl FnMut(u64, u64)) {
            let half = self.0.len() / 2;
            let piece = if p == 0 {
                &self.0[..half]
            } else {
                &self.0[half..]
            };
            for &(k, v) in piece {
                f(k, v);
            }
        }
    }

    #[test]
    fn bucket_groups_by_key_in_scan_order() {
        let pairs = Pairs(vec![(2, 7), (0, 1), (2, 3), (2, 7), (0, 0)]);
        let csr = bucket(&pairs, 8, 5, &Backing::Memory, "test").unwrap();
        let lists: Vec<Vec<u64>> = (0..4).map(|v| csr.neighbors(v).collect()).collect();
        assert_eq!(lists, vec![vec![1, 0], vec![], vec![7, 3, 7], vec![]]);
        assert_eq!(csr.offset(8), 5);
        assert_eq!(csr.max_degree(), 3);
        let reverse = csr.transpose(&Backing::Memory, "reverse").unwrap();
        assert_eq!(reverse.neighbors(7).collect::<Vec<_>>(), vec![2, 2]);
        assert_eq!(reverse.neighbors(0).collect::<Vec<_>>(), vec![0]);
        assert_eq!(reverse.degree(1), 1);
    }

    #[test]
    fn empty_graph() {
        let csr = bucket(&Pairs(vec![]), 0, 0, &Backing::Memory, "test").unwrap();
        assert_eq!(csr.vertex_count(), 0);
        assert_eq!(csr.max_degree(), 0);
        assert_eq!(Csr::bytes_for(0, 0), 8);
    }
}
