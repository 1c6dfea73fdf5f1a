//! How to solve: [`SolveOptions`], which `solve()` and the engines read
//! (kept apart from `solve()` so that no engine imports `solve/mod.rs`).
//! [`with_plan`](SolveOptions::with_plan) lives beside the plan it applies.

use super::checkpoint::Checkpoint;
use super::common::{Flow, Observer, Progress};
use super::engine::Engine;
use super::kernel::Kernel;
use crate::error::Result;
use crate::snapshot::Sink;
use crate::storage::Backing;

/// How to solve: engine, threads, storage, and what to record.
#[derive(Clone)]
pub struct SolveOptions<'a> {
    pub(super) engine: Engine,
    pub(super) threads: usize,
    pub(super) dte_table: bool,
    pub(super) track: Option<u64>,
    pub(super) backing: Backing,
    pub(super) observer: Option<Observer<'a>>,
    pub(super) memory_limit: Option<u64>,
    /// The explicit engine's edge count from a [`StoragePlan`](crate::StoragePlan) that already
    /// checked its fit.
    pub(super) planned_edges: Option<u64>,
    /// Where [`Engine::Bitboard`] hands its snapshots between levels.
    pub(super) checkpoint: Option<&'a dyn Sink>,
    /// The snapshot [`Engine::Bitboard`] continues from.
    pub(super) resume: Option<&'a Checkpoint>,
}

impl<'a> SolveOptions<'a> {
    /// Options for `engine` with defaults: all cores (parallel engine), no
    /// distance table, in-memory arrays, no tracked state, no observer.
    #[must_use]
    pub fn new(engine: Engine) -> SolveOptions<'a> {
        SolveOptions {
            engine,
            threads: 0,
            dte_table: false,
            track: None,
            backing: Backing::Memory,
            observer: None,
            memory_limit: None,
            planned_edges: None,
            checkpoint: None,
            resume: None,
        }
    }

    /// Worker threads for the parallel engine; 0 means all cores.
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// The workers the solve's pool will have: the count of
    /// [`with_threads`](Self::with_threads), or for 0 the default pool's
    /// (one per core), as [`thread_pool`](super::common::thread_pool) builds it.
    pub(crate) fn pool_threads(&self) -> usize {
        match self.threads {
            0 => rayon::current_num_threads(),
            t => t,
        }
    }

    /// Store every state's distance to end (a u16 per state).
    /// [`Engine::Sweep`] computes no distances: [`solve`](crate::solve()) and
    /// [`plan_storage`](crate::plan_storage) refuse it with [`Error::Unsupported`](crate::Error::Unsupported).
    #[must_use]
    pub fn with_dte_table(mut self, yes: bool) -> Self {
        self.dte_table = yes;
        self
    }

    /// Record the exact distance to end of this one state (the start)
    /// without a distance table: it is the level at which it is decided.
    #[must_use]
    pub fn with_tracked_state(mut self, state: Option<u64>) -> Self {
        self.track = state;
        self
    }

    /// Where the per-state arrays live.
    #[must_use]
    pub fn with_backing(mut self, backing: Backing) -> Self {
        self.backing = backing;
        self
    }

    /// Called after initialisation and after every level (the sweep
    /// engine: as its sweeps go), with the solve's [`Progress`]; its
    /// [`Flow`] says whether to go on. [`Flow::Stop`] ends the solve after
    /// that level (the sweep engine: once the sweep in progress is done)
    /// with [`Error::Stopped`](crate::Error::Stopped), and where a
    /// checkpoint sink is present ([`with_checkpoint`](Self::with_checkpoint))
    /// the bit engine first hands it a snapshot of that level, so that the
    /// solve can be resumed. A solve whose last level is done ends with its
    /// solution whatever the answer.
    #[must_use]
    pub fn with_observer(mut self, observer: &'a (dyn Fn(&Progress) -> Flow + Sync)) -> Self {
        self.observer = Some(observer);
        self
    }

    /// Bytes of memory the solve may use: the explicit engine's graph and
    /// arrays must fit under it, and out of core it sizes the window of
    /// states kept resident. `None` (the default) means what the system has
    /// available (MemAvailable, capped by a cgroup limit) for the explicit
    /// engine and a 1 GiB cap out of core. [`plan_storage`](crate::plan_storage) decides it.
    #[must_use]
    pub fn with_memory_limit(mut self, bytes: Option<u64>) -> Self {
        self.memory_limit = bytes;
        self
    }

    /// [`Engine::Bitboard`] on the grid game or the several-cops game:
    /// offer a snapshot to `sink` after every level; the solve ends with
    /// [`Error::Stopped`](crate::Error::Stopped) when the sink asks for it. Other engines refuse
    /// it.
    #[must_use]
    pub fn with_checkpoint(mut self, sink: Option<&'a dyn Sink>) -> Self {
        self.checkpoint = sink;
        self
    }

    /// [`Engine::Bitboard`] on the grid game or the several-cops game:
    /// continue from `checkpoint` instead of level 0 (one written by the
    /// same kernel). It must come from the same game and distance
    /// table setting (the caller compares the fingerprints; the engine
    /// checks the sizes). Other engines refuse it.
    #[must_use]
    pub fn with_resume(mut self, checkpoint: Option<&'a Checkpoint>) -> Self {
        self.resume = checkpoint;
        self
    }

    /// The chosen engine.
    #[must_use]
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// Refuses what the engine does not keep, before any game is seen: a
    /// distance table from [`Engine::Sweep`], checkpoints from any engine
    /// but [`Engine::Bitboard`]. The one place that rule lives: [`solve`](crate::solve())
    /// and [`plan_storage`](crate::plan_storage) ask it (and refuse checkpoints on a game that is
    /// not the grid game); callers may ask it up front.
    ///
    /// # Errors
    /// [`Error::Unsupported`](crate::Error::Unsupported), naming the engine and what it does not keep.
    pub fn check_engine(&self) -> Result<()> {
        if self.dte_table && !self.engine.keeps_distances() {
            return Err(self.engine.refuse("a distance table"));
        }
        if (self.checkpoint.is_some() || self.resume.is_some()) && !self.engine.keeps_checkpoints()
        {
            return Err(self.engine.refuse("checkpoints"));
        }
        Ok(())
    }

    /// [`SolveOptions::check_engine`] for the kernel chosen: checkpoints
    /// need one of the bit engine's kernels too.
    pub(crate) fn check(&self, kernel: Kernel<'_>) -> Result<()> {
        self.check_engine()?;
        if (self.checkpoint.is_some() || self.resume.is_some()) && !kernel.keeps_checkpoints() {
            return Err(self
                .engine
                .refuse("checkpoints on a game other than cops and a thief"));
        }
        Ok(())
    }
}
