//! Maximum matching in bipartite graphs: Hopcroft–Karp for the first
//! matching, then single augmenting-path searches to keep it maximum while
//! vertices are removed one at a time.
//!
//! The graph is stored as two CSR adjacency lists (left to right and right to
//! left) with `n + 1` offsets and `u32` targets. Searches are iterative, so
//! path length is bounded by memory, not by the call stack.

use std::collections::VecDeque;

const NONE: u32 = u32::MAX;

/// A vertex of a [`BipartiteGraph`]: its side and its index on that side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Vertex {
    /// Left vertex `0..left_count()`.
    Left(u32),
    /// Right vertex `0..right_count()`.
    Right(u32),
}

/// One side's adjacency in CSR form.
#[derive(Clone, Debug, Default)]
struct Csr {
    offsets: Vec<u32>,
    targets: Vec<u32>,
}

impl Csr {
    fn new(count: usize, edges: impl Iterator<Item = (u32, u32)> + Clone) -> Csr {
        let mut offsets = vec![0u32; count + 1];
        for (a, _) in edges.clone() {
            offsets[a as usize + 1] += 1;
        }
        for i in 0..count {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut targets = vec![0u32; offsets[count] as usize];
        for (a, b) in edges {
            targets[fill[a as usize] as usize] = b;
            fill[a as usize] += 1;
        }
        Csr { offsets, targets }
    }

    fn neighbours(&self, a: u32) -> &[u32] {
        &self.targets[self.offsets[a as usize] as usize..self.offsets[a as usize + 1] as usize]
    }
}

/// An undirected bipartite graph on `left` + `right` vertices.
///
/// # Example
/// ```
/// use retrograde::theory::matching::{maximum_matching, BipartiteGraph};
/// // A path L0 - R0 - L1 - R1: a perfect matching exists.
/// let graph = BipartiteGraph::new(2, 2, &[(0, 0), (1, 0), (1, 1)]);
/// assert_eq!(maximum_matching(&graph).size(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct BipartiteGraph {
    left: Csr,
    right: Csr,
}

impl BipartiteGraph {
    /// The graph with `left` and `right` vertices and the edges
    /// `(left vertex, right vertex)`; repeated edges are kept as given.
    ///
    /// # Panics
    /// If an edge names a vertex out of range, or there are `u32::MAX` or
    /// more edges or vertices on a side.
    #[must_use]
    pub fn new(left: usize, right: usize, edges: &[(u32, u32)]) -> BipartiteGraph {
        assert!(left < NONE as usize && right < NONE as usize && edges.len() < NONE as usize);
        for &(a, b) in edges {
            assert!(
                (a as usize) < left && (b as usize) < right,
                "edge ({a}, {b}) out of range"
            );
        }
        BipartiteGraph {
            left: Csr::new(left, edges.iter().copied()),
            right: Csr::new(right, edges.iter().map(|&(a, b)| (b, a))),
        }
    }

    /// Number of left vertices.
    #[must_use]
    pub fn left_count(&self) -> usize {
        self.left.offsets.len() - 1
    }

    /// Number of right vertices.
    #[must_use]
    pub fn right_count(&self) -> usize {
        self.right.offsets.len() - 1
    }

    /// Number of edges.
    #[must_use]
    pub fn edge_count(&self) -> usize {
        self.left.targets.len()
    }

    /// The vertices adjacent to `v` (on the other side).
    #[must_use]
    pub fn neighbours(&self, v: Vertex) -> &[u32] {
        match v {
            Vertex::Left(a) => self.left.neighbours(a),
            Vertex::Right(b) => self.right.neighbours(b),
        }
    }
}

/// A matching: every vertex has at most one mate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matching {
    left_mate: Vec<u32>,
    right_mate: Vec<u32>,
    size: usize,
}

impl Matching {
    fn empty(graph: &BipartiteGraph) -> Matching {
        Matching {
            left_mate: vec![NONE; graph.left_count()],
            right_mate: vec![NONE; graph.right_count()],
            size: 0,
        }
    }

    /// Number of matched pairs.
    #[must_use]
    pub fn size(&self) -> usize {
        self.size
    }

    /// The vertex matched with `v`, if any.
    #[must_use]
    pub fn mate(&self, v: Vertex) -> Option<Vertex> {
        let m = match v {
            Vertex::Left(a) => self.left_mate[a as usize],
            Vertex::Right(b) => self.right_mate[b as usize],
        };
        if m == NONE {
            return None;
        }
        Some(match v {
            Vertex::Left(_) => Vertex::Right(m),
            Vertex::Right(_) => Vertex::Left(m),
        })
    }

    /// The matched pairs `(left, right)` in increasing left order.
    pub fn pairs(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.left_mate
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b != NONE)
            .map(|(a, &b)| (a as u32, b))
    }
}

/// A maximum matching by Hopcroft–Karp: O(E sqrt(V)).
///
/// # Example
/// See [`BipartiteGraph`].
#[must_use]
pub fn maximum_matching(graph: &BipartiteGraph) -> Matching {
    let mut matching = Matching::empty(graph);
    let left = graph.left_count();
    let mut dist = vec![NONE; left];
    let mut next_edge = vec![0u32; left];
    let mut queue = VecDeque::new();
    let mut stack: Vec<u32> = Vec::new();
    let mut path: Vec<u32> = Vec::new();
    loop {
        // Layers of the alternating BFS from every free left vertex.
        queue.clear();
        for (a, (d, &mate)) in dist.iter_mut().zip(&matching.left_mate).enumerate() {
            if mate == NONE {
                *d = 0;
                queue.push_back(a as u32);
            } else {
                *d = NONE;
            }
        }
        let mut reaches_free = false;
        while let Some(a) = queue.pop_front() {
            for &b in graph.left.neighbours(a) {
                let m = matching.right_mate[b as usize];
                if m == NONE {
                    reaches_free = true;
                } else if dist[m as usize] == NONE {
                    dist[m as usize] = dist[a as usize] + 1;
                    queue.push_back(m);
                }
            }
        }
        if !reaches_free {
            return matching;
        }
        // Vertex-disjoint augmenting paths along the layers; a vertex whose
        // edges are exhausted is marked dead by clearing its layer.
        next_edge.copy_from_slice(&graph.left.offsets[..left]);
        for root in 0..left as u32 {
            if matching.left_mate[root as usize] != NONE {
                continue;
            }
            stack.clear();
            path.clear();
            stack.push(root);
            while let Some(&a) = stack.last() {
                let edge = next_edge[a as usize];
                if edge == graph.left.offsets[a as usize + 1] {
                    dist[a as usize] = NONE;
                    stack.pop();
                    path.pop();
                    continue;
                }
                next_edge[a as usize] += 1;
                let b = graph.left.targets[edge as usize];
                let m = matching.right_mate[b as usize];
                if m == NONE {
                    path.push(b);
                    flip(&stack, &path, &mut matching);
                    matching.size += 1;
                    break;
                }
                if dist[m as usize] != NONE && dist[m as usize] == dist[a as usize] + 1 {
                    path.push(b);
                    stack.push(m);
                }
            }
        }
    }
}

/// Matches `stack[i]` (left) with `path[i]` (right) along an augmenting path.
fn flip(stack: &[u32], path: &[u32], matching: &mut Matching) {
    for (&a, &b) in stack.iter().zip(path) {
        matching.left_mate[a as usize] = b;
        matching.right_mate[b as usize] = a;
    }
}

/// A maximum matching kept maximum while vertices are removed.
///
/// Removing a matched vertex frees its mate; one augmenting-path search from
/// the mate either restores the size or proves the new maximum is one less.
/// No other search is needed: any other augmenting path would join two
/// vertices that were already free, contradicting maximality before.
///
/// # Example
/// ```
/// use retrograde::theory::matching::{BipartiteGraph, DecrementalMatching, Vertex};
/// // A path L0 - R0 - L1: R0 is in every maximum matching, L0 is not.
/// let graph = BipartiteGraph::new(2, 1, &[(0, 0), (1, 0)]);
/// let mut matching = DecrementalMatching::new(&graph);
/// assert!(!matching.remove(Vertex::Left(0)));
/// assert!(matching.remove(Vertex::Right(0)));
/// assert_eq!(matching.matching().size(), 0);
/// ```
#[derive(Clone, Debug)]
pub struct DecrementalMatching<'g> {
    graph: &'g BipartiteGraph,
    matching: Matching,
    removed_left: Vec<bool>,
    removed_right: Vec<bool>,
    seen_left: Vec<u32>,
    seen_right: Vec<u32>,
    epoch: u32,
}

impl<'g> DecrementalMatching<'g> {
    /// Starts from a maximum matching of the whole graph.
    #[must_use]
    pub fn new(graph: &'g BipartiteGraph) -> DecrementalMatching<'g> {
        DecrementalMatching {
            graph,
            matching: maximum_matching(graph),
            removed_left: vec![false; graph.left_count()],
            removed_right: vec![false; graph.right_count()],
            seen_left: vec![0; graph.left_count()],
            seen_right: vec![0; graph.right_count()],
            epoch: 0,
        }
    }

    /// The current matching, maximum in the graph without the removed
    /// vertices.
    #[must_use]
    pub fn matching(&self) -> &Matching {
        &self.matching
    }

    /// Whether `v` has been removed.
    #[must_use]
    pub fn is_removed(&self, v: Vertex) -> bool {
        match v {
            Vertex::Left(a) => self.removed_left[a as usize],
            Vertex::Right(b) => self.removed_right[b as usize],
        }
    }

    /// Whether `v` is in every maximum matching of the current graph, without
    /// changing anything (it removes `v` on a copy of the mates).
    #[must_use]
    pub fn is_essential(&self, v: Vertex) -> bool {
        self.clone().remove(v)
    }

    /// Removes `v` and restores a maximum matching. Returns true iff the
    /// maximum matching size dropped, that is iff `v` was in every maximum
    /// matching of the graph before the removal. Removing a vertex twice
    /// changes nothing and returns false.
    pub fn remove(&mut self, v: Vertex) -> bool {
        if self.is_removed(v) {
            return false;
        }
        match v {
            Vertex::Left(a) => self.removed_left[a as usize] = true,
            Vertex::Right(b) => self.removed_right[b as usize] = true,
        }
        let Some(mate) = self.matching.mate(v) else {
            return false;
        };
        let (a, b) = match v {
            Vertex::Left(a) => (a, mate_index(mate)),
            Vertex::Right(b) => (mate_index(mate), b),
        };
        self.matching.left_mate[a as usize] = NONE;
        self.matching.right_mate[b as usize] = NONE;
        self.matching.size -= 1;
        self.epoch += 1;
        let restored = match mate {
            Vertex::Left(a) => augment(
                a,
                &self.graph.left,
                &mut self.matching.left_mate,
                &mut self.matching.right_mate,
                &self.removed_right,
                &mut self.seen_right,
                self.epoch,
            ),
            Vertex::Right(b) => augment(
                b,
                &self.graph.right,
                &mut self.matching.right_mate,
                &mut self.matching.left_mate,
                &self.removed_left,
                &mut self.seen_left,
                self.epoch,
            ),
        };
        if restored {
            self.matching.size += 1;
        }
        !restored
    }
}

fn mate_index(v: Vertex) -> u32 {
    match v {
        Vertex::Left(i) | Vertex::Right(i) => i,
    }
}

/// One augmenting-path search (Kuhn) from the free vertex `start` of side A,
/// skipping removed B vertices and B vertices already seen in this `epoch`.
/// Written once for both sides: the caller passes A's adjacency and mates.
fn augment(
    start: u32,
    adjacency: &Csr,
    mate_a: &mut [u32],
    mate_b: &mut [u32],
    removed_b: &[bool],
    seen_b: &mut [u32],
    epoch: u32,
) -> bool {
    let mut stack = vec![(start, adjacency.offsets[start as usize])];
    let mut path: Vec<u32> = Vec::new();
    while let Some(top) = stack.last_mut() {
        let (a, edge) = *top;
        if edge == adjacency.offsets[a as usize + 1] {
            stack.pop();
            path.pop();
            continue;
        }
        top.1 += 1;
        let b = adjacency.targets[edge as usize];
        if removed_b[b as usize] || seen_b[b as usize] == epoch {
            continue;
        }
        seen_b[b as usize] = epoch;
        path.push(b);
        let next = mate_b[b as usize];
        if next == NONE {
            for (&(a, _), &b) in stack.iter().zip(&path) {
                mate_a[a as usize] = b;
                mate_b[b as usize] = a;
            }
            return true;
        }
        stack.push((next, adjacency.offsets[next as usize]));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::xorshift::Rng;

    /// Maximum matching size by exhaustive search over left vertices with a
    /// bitmask of used right vertices, skipping removed vertices.
    fn brute(left: usize, edges: &[(u32, u32)], gone_l: &[bool], gone_r: &[bool]) -> usize {
        fn go(
            a: usize,
            used: u32,
            left: usize,
            e: &[(u32, u32)],
            gl: &[bool],
            gr: &[bool],
        ) -> usize {
            if a == left {
                return 0;
            }
            let mut best = go(a + 1, used, left, e, gl, gr);
            if !gl[a] {
                for &(x, b) in e {
                    if x as usize == a && !gr[b as usize] && used & (1 << b) == 0 {
                        best = best.max(1 + go(a + 1, used | (1 << b), left, e, gl, gr));
                    }
                }
            }
            best
        }
        go(0, 0, left, edges, gone_l, gone_r)
    }

    fn check_valid(graph: &BipartiteGraph, m: &Matching, gl: &[bool], gr: &[bool]) {
        let mut count = 0;
        for (a, b) in m.pairs() {
            assert!(graph.neighbours(Vertex::Left(a)).contains(&b));
            assert_eq!(m.mate(Vertex::Right(b)), Some(Vertex::Left(a)));
            assert!(!gl[a as usize] && !gr[b as usize]);
            count += 1;
        }
        assert_eq!(count, m.size());
    }

    #[test]
    fn random_graphs_match_brute_force() {
        let mut rng = Rng(0xdead_beef_cafe_f00d);
        for _ in 0..400 {
            let left = 1 + (rng.next() % 7) as usize;
            let right = 1 + (rng.next() % 7) as usize;
            let count = rng.next() % 16;
            let edges: Vec<(u32, u32)> = (0..count)
                .map(|_| {
                    (
                        (rng.next() % left as u64) as u32,
                        (rng.next() % right as u64) as u32,
                    )
                })
                .collect();
            let graph = BipartiteGraph::new(left, right, &edges);
            let mut gl = vec![false; left];
            let mut gr = vec![false; right];
            let m = maximum_matching(&graph);
            check_valid(&graph, &m, &gl, &gr);
            assert_eq!(m.size(), brute(left, &edges, &gl, &gr), "{edges:?}");
            // Remove every vertex in a random order; check each verdict.
            let mut dm = DecrementalMatching::new(&graph);
            let mut order: Vec<Vertex> = (0..left as u32)
                .map(Vertex::Left)
                .chain((0..right as u32).map(Vertex::Right))
                .collect();
            for i in (1..order.len()).rev() {
                order.swap(i, (rng.next() % (i as u64 + 1)) as usize);
            }
            for v in order {
                let before = brute(left, &edges, &gl, &gr);
                let essential = dm.is_essential(v);
                match v {
                    Vertex::Left(a) => gl[a as usize] = true,
                    Vertex::Right(b) => gr[b as usize] = true,
                }
                let after = brute(left, &edges, &gl, &gr);
                assert_eq!(essential, after < before, "{edges:?} {v:?}");
                assert_eq!(dm.remove(v), after < before, "{edges:?} {v:?}");
                assert_eq!(dm.matching().size(), after);
                check_valid(&graph, dm.matching(), &gl, &gr);
                assert!(!dm.remove(v));
            }
        }
    }

    #[test]
    fn long_path_needs_no_recursion() {
        // A path of 400 000 vertices L0-R0-L1-R1-...: the greedy order makes
        // the augmenting paths long.
        let n = 200_000u32;
        let mut edges = Vec::new();
        for i in 0..n {
            edges.push((i, i));
            if i + 1 < n {
                edges.push((i + 1, i));
            }
        }
        let graph = BipartiteGraph::new(n as usize, n as usize, &edges);
        assert_eq!(maximum_matching(&graph).size(), n as usize);
        // The perfect matching of a path is unique: every vertex is essential,
        // and proving it walks the whole path.
        let mut dm = DecrementalMatching::new(&graph);
        assert!(dm.remove(Vertex::Left(0)));
        assert_eq!(dm.matching().size(), n as usize - 1);
    }
}
