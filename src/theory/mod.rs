//! The combinatorial game-theory toolkit: impartial games in closed form or
//! by dynamic programming (Nim, subtraction games, Grundy numbers and sums of
//! games) and the bipartite empty-cell game solved by maximum matching.
//!
//! Every function here is pure computation over typed inputs: no I/O, no
//! command-line types. Grundy values and remoteness work over any
//! [`Game`](crate::Game), so the piece-on-a-board game and the edge-list
//! games share one implementation.
//!
//! | module | what it solves |
//! | --- | --- |
//! | [`nim`] | Nim: nim-sum and every winning move |
//! | [`subtraction`] | subtraction games, with proven period detection |
//! | [`grundy`] | Grundy values of any acyclic [`Game`](crate::Game) |
//! | [`piece`] | a piece moving by fixed offsets on a board, as a [`Game`](crate::Game) |
//! | [`compound`] | disjunctive, selective and conjunctive compounds of pieces |
//! | [`matching`] | maximum bipartite matching (Hopcroft–Karp), kept under vertex removal |
//! | [`empty_cell`] | the empty-cell game (NOI 2011) by matching |

pub mod compound;
pub mod empty_cell;
pub mod grundy;
pub mod matching;
pub mod nim;
pub mod piece;
pub mod subtraction;
