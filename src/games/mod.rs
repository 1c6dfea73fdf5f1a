//! Games behind the [`Game`](crate::Game) trait, one file each.

pub mod cops;
pub mod graph;
