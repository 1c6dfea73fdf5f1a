//! Games behind the [`Game`](crate::Game) trait, one file each.

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
