//! Games behind the [`Game`](crate::Game) trait, one file each.

pub mod arena;
pub mod cops;
pub mod graph;
pub mod kcops;
pub mod multiset;
