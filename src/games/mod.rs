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
pub mod graph;
pub mod kcops;
pub mod multiset;
pub mod position;

use crate::game::Game;
use cops::CopsAndThief;
use kcops::KCops;

/// The typed views of the library's own games behind any [`Game`] (through
/// [`Game::as_any`]), for the engines that exploit their structure.
pub(crate) trait Special {
    /// This game as the grid game; `None` for every other game.
    fn as_cops_and_thief(&self) -> Option<&CopsAndThief>;

    /// This game as the several-cops game; `None` for every other game.
    fn as_several_cops(&self) -> Option<&KCops>;
}

impl<G: Game + ?Sized> Special for G {
    fn as_cops_and_thief(&self) -> Option<&CopsAndThief> {
        self.as_any()?.downcast_ref()
    }

    fn as_several_cops(&self) -> Option<&KCops> {
        self.as_any()?.downcast_ref()
    }
}
