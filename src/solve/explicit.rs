//! The explicit engine: materialise the game into an [`ExplicitGraph`], then
//! run the sequential propagation over its stored edges.
//!
//! This is the textbook method (store every state's predecessor list, then
//! propagate) and the baseline the on-the-fly engines are compared with. The
//! propagation is the same code, so values and distances are identical; only
//! where successors and predecessors come from differs. The whole graph is
//! sized before anything is allocated, and a graph that would not fit is
//! refused rather than left to the OOM killer.

use super::{estimate, solve as solve_game, Engine, Solution, SolveOptions};
use crate::csr::{bucket_scratch_bytes, count_edges, graph_bytes, ExplicitGraph};
use crate::error::{Error, Result};
use crate::game::{Game, Initial};
use crate::storage::{available_memory, Backing};

/// Solves `game` with [`Engine::Explicit`]: size, refuse or build (on
/// `options.threads` workers), then propagate sequentially.
pub(super) fn solve(game: &impl Game, options: &SolveOptions<'_>) -> Result<Solution> {
    let sequential = SolveOptions {
        engine: Engine::Sequential,
        ..options.clone()
    };
    // Scratch-backed arrays live on disk; only in-memory solves are sized
    // against memory.
    if options.backing == Backing::Memory {
        let states = game.state_count();
        let edges = count_edges(game);
        let graph = graph_bytes(states, edges);
        // The build's scratch is freed before the solve arrays exist.
        let arrays = estimate(game, &sequential)
            .total()
            .max(bucket_scratch_bytes(edges));
        let needed = graph.saturating_add(arrays);
        let available = options.memory_limit.unwrap_or_else(available_memory);
        if needed > available {
            return Err(Error::TooLarge {
                what: format!(
                    "the explicit graph ({states} states, {edges} edges: {graph} bytes) \
                     plus the build scratch or solve arrays ({arrays} bytes)"
                ),
                needed,
                available,
                hint: "solve on the fly instead (engine sequential or parallel), which \
                       stores no edges"
                    .to_string(),
            });
        }
    }
    let build = || ExplicitGraph::from_game(game, &options.backing);
    let graph = if options.threads == 0 {
        build()?
    } else {
        super::thread_pool(options.threads)?.install(build)?
    };
    let side = |s: u64| game.side(s);
    let mut solution = solve_game(
        &WithSides {
            graph: &graph,
            side: &side,
        },
        &sequential,
    )?;
    solution.bytes += graph.bytes();
    Ok(solution)
}

/// The stored graph with the original game's sides: the graph keeps no side
/// per state, and [`Solution::deepest`] must name the same states as the
/// on-the-fly engines do. The side is a `dyn` closure, not a type parameter,
/// so that `solve` is not instantiated for ever deeper wrapper types.
struct WithSides<'a> {
    graph: &'a ExplicitGraph,
    side: &'a (dyn Fn(u64) -> usize + Sync),
}

impl Game for WithSides<'_> {
    fn state_count(&self) -> u64 {
        self.graph.state_count()
    }

    fn max_moves(&self) -> u32 {
        self.graph.max_moves()
    }

    fn initial(&self, s: u64) -> Initial {
        self.graph.initial(s)
    }

    fn for_each_successor(&self, s: u64, f: impl FnMut(u64)) {
        self.graph.for_each_successor(s, f);
    }

    fn for_each_predecessor(&self, s: u64, f: impl FnMut(u64)) {
        self.graph.for_each_predecessor(s, f);
    }

    fn side(&self, s: u64) -> usize {
        (self.side)(s)
    }

    fn predecessor_radius(&self) -> Option<u64> {
        self.graph.predecessor_radius()
    }

    fn for_each_initial(&self, range: std::ops::Range<u64>, f: impl FnMut(u64, Initial)) {
        self.graph.for_each_initial(range, f);
    }
}
