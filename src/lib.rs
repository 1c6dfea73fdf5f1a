//! # retrograde
//!
//! Retrograde analysis of two-player games on huge implicit state graphs:
//! every state is labelled WIN / LOSS / DRAW for the player to move, with its
//! exact distance to end, in O(states + edges).
//!
//! The flagship game is policeman and thief on grid maps, any number of
//! cops on a map or a graph ([`CopsGame`]), whose successors and
//! predecessors are generated on the fly. Any game implementing [`Game`]
//! can be solved by the same engines.
//!
//! ```
//! use retrograde::{parse_map, solve, CopsGame, Engine, Placement, Rules, SolveOptions, Speeds, Verdict};
//! let map = parse_map(b"3 4\nC..E\n.**.\n...T\n", "example.txt").unwrap();
//! let game = CopsGame::from_map(&map, &Placement::default(), Rules::default(), 1, Speeds::default()).unwrap();
//! let start = game.start_state().unwrap();
//! let options = SolveOptions::new(Engine::Parallel).with_tracked_state(Some(start));
//! let solution = solve(&game, &options).unwrap();
//! assert_eq!(game.verdict(solution.outcome(start)), Verdict::ThiefEscapes);
//! assert_eq!(solution.dte(start).unwrap().plies(), 4);
//! ```
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs, clippy::undocumented_unsafe_blocks)]

mod board;
pub mod copnumber;
mod csr;
#[cfg(feature = "distributed")]
pub mod distributed;
mod error;
mod format;
mod game;
mod games;
mod grid;
mod hash;
mod outcome;
pub mod render;
mod snapshot;
mod solve;
mod storage;
mod tablebase;
pub mod theory;

pub use board::{Board, ExitRule, Placement};
pub use csr::{count_edges, explicit_estimate, Csr, ExplicitGraph, Neighbors};
pub use error::{human_bytes, Error, Result};
pub use format::graph6::{
    graph6_order, parse_graph6, to_graph6, Graph6Error, Graph6Graph, Graph6Reader,
};
pub use format::{
    load_edge_list, load_edge_list_within, load_graph_file, load_map, load_map_with_cops,
    load_scen, looks_like_graph6, parse_edge_list, parse_map, parse_scen, sniff, sniff_map,
    sniff_path, Coord, EdgeLines, EdgeList, FileKind, GraphFormat, Map, MapFormat, Scenario,
    ScenarioEntry, SNIFF_BYTES,
};
pub use game::{check_game_contract, Game, Initial};
pub use games::arena::{Arena, MAX_SPEED};
pub use games::cops::{Rules, Turn};
pub use games::cops_game::{CopsGame, Speeds};
pub use games::graph::{load_graph, load_graph_within, parse_graph, Convention};
pub use games::multiset::MAX_COPS;
pub use games::position::{Cops, Position};
pub use grid::Grid;
pub use hash::{fnv1a, FNV_START};
pub use outcome::{Dte, Outcome, Terminal, Verdict};
pub use solve::analysis::{
    BestPlacement, LongestGame, LongestPlacement, StartPairs, StartPlacements,
};
pub use solve::{
    best_moves, check_cops_size, estimate, plan_storage, solve, verify, verify_observed,
    Checkpoint, Counts, Due, Engine, Estimate, Flow, Inconsistency, Passes, Phases, Progress, Sink,
    Snapshot, Solution, SolveOptions, StorageLimits, StoragePlan, UnknownEngine, Verification,
};
pub use storage::{available_memory, free_disk, Backing};
pub use tablebase::{
    shard_path, write_tablebase, CheckReport, Header, Probe, RatedMove, ShardHeader, Tablebase,
    WriteSummary,
};

#[cfg(test)]
mod xorshift;
