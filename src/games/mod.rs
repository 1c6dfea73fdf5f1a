//! Games behind the [`Game`](crate::Game) trait, one file each, and
//! [`Special`], the engines' typed views of them.
//!
//! - `cops.rs`: policeman and thief, one cop on a grid map
//!   ([`CopsAndThief`]), its state layout and move tables;
//! - `arena.rs`: the board of the several-cops game ([`Arena`](arena::Arena)),
//!   from a grid map under any rules or from a graph;
//! - `kcops.rs`: k cops and a thief on an arena ([`KCops`]); `kcops/memo.rs`
//!   the per-thread memos of the multiset last asked for;
//! - `multiset.rs`: the ranking of cop multisets and `MAX_COPS`;
//! - `position.rs`: the one [`Position`](position::Position) of any number
//!   of cops, in cell ids;
//! - `graph/`: edge-list games (`mod.rs` the parallel parser, `chunk.rs`
//!   one chunk of lines).

pub mod arena;
pub mod cops;
pub mod cops_game;
pub mod graph;
pub mod kcops;
pub mod multiset;
pub mod position;

use crate::game::Game;
use cops::CopsAndThief;
use kcops::KCops;

/// Which of the library's own games a [`Game`] is (through
/// [`Game::as_any`]): the one question the engines and the partitioned
/// solve ask of a game to exploit its structure, answered here once.
#[derive(Clone, Copy)]
pub(crate) enum Shape<'g> {
    /// One cop on a grid map (`games/cops.rs`).
    Grid(&'g CopsAndThief),
    /// Several cops (or one on a graph) on an arena (`games/kcops.rs`).
    Several(&'g KCops),
    /// Any other game: moves through [`Game`] alone.
    Other,
}

/// The [`Shape`] of any [`Game`].
pub(crate) trait Special {
    /// Which of the library's games this is.
    fn shape(&self) -> Shape<'_>;
}

impl<G: Game + ?Sized> Special for G {
    fn shape(&self) -> Shape<'_> {
        let Some(any) = self.as_any() else {
            return Shape::Other;
        };
        if let Some(grid) = any.downcast_ref() {
            Shape::Grid(grid)
        } else if let Some(several) = any.downcast_ref() {
            Shape::Several(several)
        } else {
            Shape::Other
        }
    }
}
