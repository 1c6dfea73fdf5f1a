//! Several cops: the bit-parallel k-cop engine and the cop number.
//!
//! The game is the k-cop game of issue 24 (`KCOPS-SPEC`): k identical cops
//! and one thief on an arena of `n` cells; a state is (multiset of cop
//! cells, thief cell, side to move). The engine keeps, per cop multiset
//! (ranked by the combinatorial number system), one bitset row over thief
//! cells per attractor and side to move, and computes levels in order, so
//! a state's level is its distance to end.
//!
//! This lives in its own folder, beside `solve/`, because it needs nothing
//! of the `Game` machinery (no state arrays, no counters, no storage
//! planning): its input is a plain [`KArena`] and its own bitsets, and the
//! cop number is a question asked of it. Declared from `lib.rs` alone, it
//! does not touch `solve/mod.rs`.

mod checkpoint;
mod engine;
mod levels;
mod number;
pub(crate) mod rank;
mod small;
mod solution;
mod store;

#[cfg(test)]
mod naive;

pub use checkpoint::{Due, KCheckpoint, KSnapshot, KcopSink};
pub use engine::{solve_kcops, solve_kcops_with, KState, KcopOptions};
pub use levels::KcopRun;
pub use number::{
    cop_number, cop_number_of_graph, cop_number_with, CopNumber, CopSearch, OutOfMemory,
};
pub use rank::{multiset_count, rank_multiset, unrank_multiset};
pub use small::is_dismantlable;
pub use solution::{kcop_memory, kcop_memory_for, KSolution};
pub use store::{kcop_plan, KcopPlan, KcopStorage};

/// The arena of a k-cop game: `n` cells, each side's one-step relation
/// (symmetric), exits, pass flags and speeds. A plain description, so that
/// any game (grid maps, graphs) can be turned into one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KArena {
    /// Number of cells, `0..n`.
    pub n: usize,
    /// Cells one cop step away from each cell (symmetric, no self-loops).
    pub cop_steps: Vec<Vec<u32>>,
    /// Cells one thief step away from each cell (symmetric, no self-loops).
    pub thief_steps: Vec<Vec<u32>>,
    /// Exit cells: the thief standing on one (not under a cop) has won.
    pub exits: Vec<bool>,
    /// Whether a cop may stay put.
    pub cop_passes: bool,
    /// Whether the thief may stay put.
    pub thief_passes: bool,
    /// Most cop steps in one turn (at least 1).
    pub cop_speed: u32,
    /// Most thief steps in one turn (at least 1).
    pub thief_speed: u32,
}

impl KArena {
    /// The arena of an undirected graph: both sides move along the edges,
    /// both may pass, speed 1, no exits. Self-loops and repeated edges are
    /// ignored.
    ///
    /// # Panics
    /// If an edge names a vertex `>= n`.
    #[must_use]
    pub fn from_graph(n: usize, edges: &[(u32, u32)]) -> KArena {
        let mut adj = vec![Vec::new(); n];
        for &(u, v) in edges {
            assert!(
                (u as usize) < n && (v as usize) < n,
                "edge ({u}, {v}) outside 0..{n}"
            );
            if u != v {
                adj[u as usize].push(v);
                adj[v as usize].push(u);
            }
        }
        for a in &mut adj {
            a.sort_unstable();
            a.dedup();
        }
        KArena {
            n,
            cop_steps: adj.clone(),
            thief_steps: adj,
            exits: vec![false; n],
            cop_passes: true,
            thief_passes: true,
            cop_speed: 1,
            thief_speed: 1,
        }
    }

    /// The arena of the several-cops game (`docs/rules.md`, "Several
    /// cops") on a [`games::arena::Arena`](crate::Arena): a grid map under
    /// any rule variant or a graph, with its exits, pass flags and speeds.
    /// Cells keep their numbers (a map's free cells in row-major order), so
    /// a state's rank, thief cell and side to move index both engines alike.
    #[must_use]
    pub fn from_arena(arena: &crate::Arena) -> KArena {
        let n = arena.cells();
        let (cop_passes, thief_passes) = arena.passes();
        let (cop_speed, thief_speed) = arena.speeds();
        KArena {
            n: n as usize,
            cop_steps: (0..n).map(|c| arena.cop_steps(c).to_vec()).collect(),
            thief_steps: (0..n).map(|c| arena.thief_steps(c).to_vec()).collect(),
            exits: (0..n).map(|c| arena.is_exit(c)).collect(),
            cop_passes,
            thief_passes,
            cop_speed,
            thief_speed,
        }
    }

    /// The same arena with other speeds (each at least 1): the "cops and
    /// fast robber" games. A speed other than 1 leaves the plain graph
    /// game, so [`cop_number`] then runs the general engine.
    ///
    /// # Panics
    /// If a speed is 0.
    #[must_use]
    pub fn with_speeds(self, cop_speed: u32, thief_speed: u32) -> KArena {
        assert!(cop_speed >= 1 && thief_speed >= 1, "speeds start at 1");
        KArena {
            cop_speed,
            thief_speed,
            ..self
        }
    }

    /// Whether this is the plain graph game (speed 1, both pass, no exits,
    /// the same relation for both sides), where dismantlability decides one
    /// cop.
    #[must_use]
    pub fn is_plain_graph(&self) -> bool {
        self.cop_speed == 1
            && self.thief_speed == 1
            && self.cop_passes
            && self.thief_passes
            && !self.exits.iter().any(|&e| e)
            && self.cop_steps == self.thief_steps
    }

    /// A cop's reach from `c`: the ends of walks of 1..=speed cop steps,
    /// plus `c` when cops pass; sorted, distinct.
    pub(crate) fn cop_reach(&self, c: usize) -> Vec<u32> {
        let mut seen = vec![false; self.n];
        let mut frontier = vec![c as u32];
        let mut out = Vec::new();
        if self.cop_passes {
            seen[c] = true;
            out.push(c as u32);
        }
        for _ in 0..self.cop_speed {
            let mut next = Vec::new();
            for &u in &frontier {
                for &v in &self.cop_steps[u as usize] {
                    if !seen[v as usize] {
                        seen[v as usize] = true;
                        out.push(v);
                    }
                    next.push(v);
                }
            }
            next.sort_unstable();
            next.dedup();
            frontier = next;
        }
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::KArena;
    use crate::{parse_map, Arena, Board, Placement, Rules};

    /// The conversion keeps every relation, flag and speed: the reach
    /// sets of both arenas agree cell by cell, under rule variants.
    #[test]
    fn from_arena_keeps_steps_exits_passes_and_speeds() {
        let map = parse_map(b"3 4\n....\n.#..\n...E\n", "m.txt").unwrap();
        let board = Board::new(&map, &Placement::default()).unwrap();
        for (i, speeds) in [(1, 1), (2, 1), (1, 3)].into_iter().enumerate() {
            let rules = Rules {
                cop_diagonal: i != 1,
                thief_diagonal: i == 2,
                cop_passes: i != 2,
                thief_passes: i != 0,
                corner_cutting: i == 0,
                thief_first: false,
            };
            let arena = Arena::from_board(&board, rules).with_speeds(speeds.0, speeds.1);
            let k = KArena::from_arena(&arena);
            assert_eq!(k.n, arena.cells() as usize);
            assert_eq!(k.exits.iter().filter(|&&e| e).count(), arena.exit_count());
            assert_eq!((k.cop_passes, k.thief_passes), arena.passes());
            assert_eq!((k.cop_speed, k.thief_speed), arena.speeds());
            for c in 0..arena.cells() {
                assert_eq!(k.cop_reach(c as usize), arena.cop_reach(c), "cell {c}");
                assert_eq!(k.thief_steps[c as usize], arena.thief_steps(c));
            }
        }
        let graph = Arena::from_edges(4, &[(0, 1), (1, 2), (2, 0), (2, 3)]).unwrap();
        let k = KArena::from_arena(&graph);
        assert_eq!(k, KArena::from_graph(4, &[(0, 1), (1, 2), (2, 0), (2, 3)]));
        assert!(k.is_plain_graph());
    }
}
