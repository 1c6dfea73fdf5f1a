//! The several-cops kernel of [`Engine::Bitboard`](crate::Engine::Bitboard):
//! the bit-parallel engine of the k-cop game on an [`Arena`](crate::Arena)
//! (a grid map under any rule variant, or a graph).
//!
//! A state is (multiset of cop cells, thief cell, side to move), indexed
//! as `KCops` (`games/kcops.rs`) indexes it: `(rank(cops) * n + thief) * 2 +
//! turn`, the multiset ranked by `games/multiset.rs`. The engine keeps, per
//! cop multiset, one bitset row over thief cells per attractor and side to
//! move, and computes levels in order, so a state's level is its distance
//! to end.
//!
//! - `engine.rs` the level loop (level 0, then per level the thief's
//!   step, the cops' steps in place, the commit of the thief's rows);
//!   `engine/cops.rs` the joint cop move as k single-cop steps through
//!   tables of partly-moved tuples, one block of rows per top cell,
//!   reading only the sources that changed; `engine/thief.rs` the thief's
//!   move (a dilation masked by the cops) on the rows whose cop row
//!   changed;
//! - `solution.rs` what a solve returns ([`KSolution`]);
//! - `store.rs` where its arrays live ([`kcop_plan`]; heap vectors or
//!   scratch-file regions under a cap, read through one slice view), and
//!   `memory.rs` what they need ([`kcop_memory_for`]);
//! - `levels.rs` what the level loop needs of its snapshots between
//!   levels (`solve/kcop_checkpoint.rs`, beside the one-cop kernel's, which
//!   opens either);
//! - `engine/partition.rs` the engine partitioned over processes, a band
//!   of cop multisets each, the thief's rows swapped after every level;
//!   out of core its band's rows in scratch files paged as a local
//!   solve's arrays are (`store.rs`, [`kcop_band_plan`]).
//!
//! Imports run one way: `engine` → `levels`, `solution` → `store` →
//! `memory`.

mod engine;
mod levels;
mod memory;
mod solution;
mod store;
#[cfg(test)]
mod tests;

#[cfg(feature = "distributed")]
pub(crate) use engine::{band_tops, below_minimum, process_reads, solve_band, tops_ranks, KBand};
pub(crate) use engine::{solve_kcops, solve_kcops_with, KcopOptions};
pub(crate) use levels::KcopRun;
#[cfg(feature = "distributed")]
pub(crate) use memory::kcop_band_bytes;
pub use memory::memory_bound;
pub(crate) use memory::{kcop_memory_for, kcop_memory_least};
pub(crate) use solution::KSolution;
#[cfg(feature = "distributed")]
pub(crate) use store::{kcop_band_plan, KcopPlan};
pub(crate) use store::{kcop_plan, KcopStorage};
