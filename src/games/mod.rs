//! Games behind the [`Game`](crate::Game) trait, one file each.

pub mod analysis;
pub mod cops;
pub mod graph;
