//! The several-cops kernel of [`Engine::Bitboard`](crate::Engine::Bitboard):
//! the bit-parallel engine of the k-cop game on an [`Arena`](crate::Arena)
//! (a grid map under any rule variant, or a graph).
//!
//! A state is (multiset of cop cells, thief cell, side to move), indexed
//! as [`KCops`](crate::KCops) indexes it: `(rank(cops) * n + thief) * 2 +
//! turn`, the multiset ranked by `games/multiset.rs`. The engine keeps, per
//! cop multiset, one bitset row over thief cells per attractor and side to
//! move, and computes levels in order, so a state's level is its distance
//! to end.
//!
//! - `engine.rs` the level loop and the joint cop move as k single-cop
//!   steps through tables of partly-moved tuples; `engine/thief.rs` the
//!   thief's move (a dilation masked by the cops), `engine/tiles.rs` the
//!   order a cop step visits its rows, `engine/delta.rs` the incremental
//!   EXISTS cop step;
//! - `solution.rs` what a solve returns ([`KSolution`]);
//! - `store.rs` where its arrays live and what they need
//!   ([`kcop_plan`], [`kcop_memory_for`]; heap vectors or scratch-file
//!   regions under a cap, read through one slice view);
//! - `checkpoint.rs` its snapshots between levels, `levels.rs` what the
//!   level loop needs of them.
//!
//! Imports run one way: `engine` → `levels` → `checkpoint`, `solution` →
//! `store`.

mod checkpoint;
mod engine;
mod levels;
mod solution;
mod store;

pub use checkpoint::{KCheckpoint, KSnapshot, KcopSink};
pub use engine::{solve_kcops, solve_kcops_with, KcopOptions};
pub use levels::KcopRun;
pub use solution::{KSolution, KState};
pub use store::{kcop_memory, kcop_memory_for, kcop_plan, KcopPlan, KcopStorage};
