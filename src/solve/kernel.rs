//! The one place a solve's engine is chosen: the [`Engine`] asked for,
//! applied to the game's [`Shape`]. [`solve`](super::solve),
//! [`estimate`](super::estimate) and [`plan_storage`](super::plan_storage)
//! each choose once, here, and then only match on the answer; nothing
//! else in `solve/` looks at which game it was given.

use super::engine::Engine;
use crate::game::Game;
use crate::games::cops::CopsAndThief;
use crate::games::kcops::KCops;
use crate::games::{Shape, Special as _};

/// What runs a solve.
#[derive(Clone, Copy)]
pub(crate) enum Kernel<'g> {
    /// [`Engine::Bitboard`] on one cop on a grid map (`bitboard/`).
    Grid(&'g CopsAndThief),
    /// [`Engine::Bitboard`] on the several-cops game (`multicop/`).
    Several(&'g KCops),
    /// [`Engine::Explicit`]: stored adjacency (`explicit.rs`).
    Explicit,
    /// A counter engine on any game (`propagate.rs`, `sweep.rs`):
    /// [`Engine::Sequential`], [`Engine::Parallel`] or [`Engine::Sweep`].
    /// [`Engine::Bitboard`] on a game it has no kernel for runs
    /// [`Engine::Parallel`].
    Counter(Engine),
}

impl<'g> Kernel<'g> {
    /// The kernel of `engine` on `game`.
    pub(crate) fn choose(game: &'g (impl Game + ?Sized), engine: Engine) -> Kernel<'g> {
        match (engine, game.shape()) {
            (Engine::Explicit, _) => Kernel::Explicit,
            (Engine::Bitboard, Shape::Grid(grid)) => Kernel::Grid(grid),
            (Engine::Bitboard, Shape::Several(several)) => Kernel::Several(several),
            (Engine::Bitboard, Shape::Other) => Kernel::Counter(Engine::Parallel),
            (engine, _) => Kernel::Counter(engine),
        }
    }

    /// Whether it saves and resumes checkpoints: the bit engine's two
    /// kernels only.
    pub(crate) fn keeps_checkpoints(self) -> bool {
        matches!(self, Kernel::Grid(_) | Kernel::Several(_))
    }
}
