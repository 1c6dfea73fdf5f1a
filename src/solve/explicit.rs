//! The explicit engine: materialise the game into an [`ExplicitGraph`], then
//! run the sequential propagation over its stored edges.
//!
//! This is the textbook method (store every state's predecessor list, then
//! propagate) and the baseline the on-the-fly engines are compared with. The
//! propagation is the same code, so values and distances are identical; only
//! where successors and predecessors come from differs. The whole graph is
//! sized before anything is allocated, and a graph that would not fit is
//! refused rather than left to the OOM killer.

use super::common::thread_pool;
use super::counters;
use super::engine::Engine;
use super::options::SolveOptions;
use super::plan::{plan_storage, StorageLimits};
use super::solution::Solution;
use crate::csr::ExplicitGraph;
use crate::error::Result;
use crate::game::{Game, Initial};
use crate::storage::Backing;

/// Solves `game` with [`Engine::Explicit`]: size, refuse or build (on
/// `options.threads` workers), then propagate sequentially.
pub(super) fn solve(game: &impl Game, options: &SolveOptions<'_>) -> Result<Solution> {
    let sequential = SolveOptions {
        engine: Engine::Sequential,
        ..options.clone()
    };
    // Scratch-backed arrays live on disk; only in-memory solves are sized
    // against memory, once: by the caller's plan or here.
    if options.backing == Backing::Memory && options.planned_edges.is_none() {
        let limits = StorageLimits {
            memory: options.memory_limit,
            ..StorageLimits::default()
        };
        plan_storage(game, options, &limits)?;
    }
    let started = std::time::Instant::now();
    let build = || ExplicitGraph::from_game(game, &options.backing);
    let graph = if options.threads == 0 {
        build()?
    } else {
        thread_pool(options.threads)?.install(build)?
    };
    let side = |s: u64| game.side(s);
    let mut solution = counters::solve(
        &WithSides {
            graph: &graph,
            side: &side,
        },
        Engine::Sequential,
        &sequential,
    )?;
    solution.bytes += graph.bytes();
    // The propagation timed itself; the build is everything before it.
    solution.phases.build = started.elapsed().saturating_sub(solution.phases.propagate);
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
