//! What every engine shares and that depends on nothing else of `solve/`:
//! the [`Progress`] report, the worker pool, the default out-of-core
//! window and the error of a failed write-back. A leaf, so that the
//! engines import neither `solve/mod.rs` nor the options that hold a
//! checkpoint of theirs.

use crate::error::{Error, Result};
use crate::storage::Backing;

/// Progress report passed to an observer: after each level of the level
/// engines, after each pass over a window of the sweep engine.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Level engines: levels finished so far (level 0 is initialisation).
    /// Sweep engine: the sweep in progress, from 1 (0 after
    /// initialisation).
    pub level: u32,
    /// Whether `level` counts sweeps of [`Engine::Sweep`](crate::Engine::Sweep).
    pub sweeping: bool,
    /// States decided in that level (0 for sweeps).
    pub decided_in_level: u64,
    /// States decided so far in all.
    pub decided: u64,
    /// Total number of states.
    pub states: u64,
}

/// What an observer answers after a level (a sweep of
/// [`Engine::Sweep`](crate::Engine::Sweep)): go on, or end the solve there
/// with [`Error::Stopped`] (after a snapshot, where a checkpoint sink is
/// present). A solve whose levels are all done ends with its solution
/// whatever the answer: there is nothing left to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep solving.
    Continue,
    /// End the solve after this level.
    Stop,
}

/// The callback [`SolveOptions::with_observer`](crate::SolveOptions::with_observer)
/// takes, as the engines hold it: told every level's [`Progress`], it says
/// whether to go on.
pub(crate) type Observer<'a> = &'a (dyn Fn(&Progress) -> Flow + Sync);

/// Resident bytes an out-of-core solve aims for when no memory limit is set.
pub(super) const DEFAULT_WINDOW_BYTES: u64 = 1 << 30;

/// Out of core, a failed write-back kept its pages resident (no state was
/// lost) but the solve cannot vouch for its limits: an error naming the
/// scratch directory.
pub(super) fn write_failed(error: Option<std::io::Error>, backing: &Backing) -> Result<()> {
    match (error, backing) {
        (Some(source), Backing::Scratch(dir)) => Err(Error::Scratch {
            dir: dir.clone(),
            message: "could not take the pages written back (none was lost; the solve stopped)"
                .to_string(),
            source,
        }),
        _ => Ok(()),
    }
}

/// A rayon pool of `threads` workers (0: one per core).
pub(crate) fn thread_pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Alloc {
            what: "worker threads".to_string(),
            bytes: 0,
            source: std::io::Error::other(e.to_string()),
        })
}

/// How a partitioned bit solve reaches the other processes (one cop:
/// `bitboard/peers.rs`; several: `multicop/engine/partition.rs`).
#[cfg(feature = "distributed")]
pub(crate) trait Link: Send {
    /// This process's index.
    fn process(&self) -> usize;
    /// Processes in the cluster.
    fn processes(&self) -> usize;
    /// Sends `out[q]` to every other process `q` and returns what each
    /// other process sent this process (the entry of this process is
    /// empty). Every process calls it the same number of times.
    ///
    /// # Errors
    /// [`Error::Peer`] when a peer is gone or sends garbage.
    fn exchange(&mut self, out: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>>;
}
