//! The partitioned bit engine's one door for the cops game: whether it
//! runs, its bands, each process's memory and the solve, for one cop on a
//! map (`grid.rs`, bands of grid rows) and for several cops or a graph
//! (`kbits.rs`, bands of cop multisets) alike, the game asked its shape
//! once per call.

use super::{grid, kbits, Cluster, PartitionOptions, PartitionedSolution};
#[cfg(doc)]
use crate::error::Error;
use crate::error::Result;
use crate::games::cops_game::CopsGame;
use crate::games::{Shape, Special};
use crate::solve::StorageLimits;
use crate::storage::Backing;

/// Whether a partitioned solve of `game` runs on the bit engine
/// ([`solve_bits`]) rather than the counter engine
/// ([`solve`](super::solve)): every cops game does, one cop on a map or
/// several cops, in memory or in scratch files (a band over the cap
/// without a scratch folder goes to the temporary folder, as a local
/// solve's arrays do, [`bit_band_plan`]); the counter engine runs the
/// games the bit engine does not play.
#[must_use]
pub fn bit_engine_runs(game: &CopsGame) -> bool {
    !matches!(game.shape(), Shape::Other)
}

/// The states of each process's band in a partitioned bit solve of `game`
/// over `processes` processes: `processes + 1` bounds from 0 to the state
/// count, cut at grid rows (one cop on a map) or at runs of cop multisets
/// with the same top cell (what [`solve_bits`] gives each process).
#[must_use]
pub fn bit_bands(game: &CopsGame, processes: usize) -> Vec<u64> {
    match game.shape() {
        Shape::Grid(g) => grid::grid_bands(g, processes),
        Shape::Several(g) => kbits::several_bands(g, processes),
        Shape::Other => unreachable!("a cops game has a shape"),
    }
}

/// Bytes each process of a partitioned bit solve of `game` over
/// `processes` processes of `workers` threads holds: its band's bitsets
/// (with several cops, the thief rows it reads), with `dte_table` its
/// distances, and the engine's buffers.
#[must_use]
pub fn bit_band_bytes(
    game: &CopsGame,
    processes: usize,
    workers: usize,
    dte_table: bool,
) -> Vec<u64> {
    match game.shape() {
        Shape::Grid(g) => grid::grid_band_bytes(g, processes, workers, dte_table),
        Shape::Several(g) => kbits::several_band_bytes(g, processes, workers, dte_table),
        Shape::Other => unreachable!("a cops game has a shape"),
    }
}

/// Where process `process`'s band of a partitioned bit solve of `game`
/// (over `processes` processes of `workers` threads) lives under `limits`
/// and what it holds resident: with `limits.scratch` (or the temporary
/// folder for a band over the cap, when `limits.spill_to_temp`), one
/// cop's in a scratch file of its band, paged as many levels per pass as
/// the cap holds ([`BandPlan::passes`](super::BandPlan::passes)); several
/// cops' arrays, the largest first, in scratch files of the band's rows
/// until the rest fits the cap (without one, every array that can), paged
/// under it as a local several-cops solve pages
/// ([`BandPlan::resident`](super::BandPlan::resident) what stays);
/// otherwise in memory ([`bit_band_bytes`]).
///
/// # Errors
/// [`Error::TooLarge`] naming the cap and the minimum: out of core, a cap
/// below the band's resident minimum (several cops: or scratch files
/// larger than the folder's free disk); in memory, below its bytes.
pub fn bit_band_plan(
    game: &CopsGame,
    processes: usize,
    process: usize,
    workers: usize,
    dte_table: bool,
    limits: &StorageLimits,
) -> Result<super::BandPlan> {
    let spilled = spill(game, processes, workers, dte_table, limits);
    let limits = spilled.as_ref().unwrap_or(limits);
    match game.shape() {
        Shape::Grid(g) => grid::grid_band_plan(g, processes, process, workers, dte_table, limits),
        Shape::Several(g) => {
            kbits::several_band_plan(g, (processes, process, workers), dte_table, limits)
        }
        Shape::Other => unreachable!("a cops game has a shape"),
    }
}

/// `limits` with the temporary folder for scratch files when they name no
/// folder, allow spilling (`limits.spill_to_temp`, as a local solve does)
/// and the largest process's band does not fit under the cap in memory;
/// `None` to keep `limits`. Every process decides alike, as the
/// handshake's levels per pass require.
fn spill(
    game: &CopsGame,
    processes: usize,
    workers: usize,
    dte_table: bool,
    limits: &StorageLimits,
) -> Option<StorageLimits> {
    let cap = limits.memory?;
    let largest = bit_band_bytes(game, processes, workers, dte_table)
        .into_iter()
        .max()
        .unwrap_or(0);
    (limits.scratch.is_none() && limits.spill_to_temp && largest.saturating_add(limits.held) > cap)
        .then(|| StorageLimits {
            scratch: Some(std::env::temp_dir()),
            ..limits.clone()
        })
}

/// Solves `game` partitioned over `cluster` on the bit engine, as process
/// `cluster.process`: every process makes the same call. Each process
/// holds its band of [`bit_bands`] (and, with several cops, the thief
/// rows its cops' moves read); process 0 gets the cluster's
/// [`Summary`](super::Summary). Either game saves and resumes band
/// snapshots ([`PartitionOptions::checkpoint`],
/// [`PartitionOptions::resume`]; [`BandSource::load_grid`](super::BandSource::load_grid)
/// hands a several-cops solve a snapshot opened with
/// [`GridBandCheckpoint::open_several`](super::GridBandCheckpoint::open_several)),
/// after each resuming process swaps its band's thief rows with the
/// others once. Either keeps its band in scratch files with
/// [`PartitionOptions::backing`], paged under
/// [`PartitionOptions::memory`] ([`bit_band_plan`]).
///
/// # Errors
/// [`Error::Peer`] when a peer cannot be reached within the timeout, runs
/// a different solve or is lost mid-solve; [`Error::Alloc`] for the
/// arrays; [`Error::TooLarge`] when this process's band does not fit the
/// available memory (out of core, the cap); [`Error::Scratch`] for the
/// scratch files; [`Error::Checkpoint`] naming a damaged snapshot or one
/// of another band, game or setting.
pub fn solve_bits(
    game: &CopsGame,
    cluster: &Cluster,
    options: &PartitionOptions,
) -> Result<PartitionedSolution> {
    assert!(cluster.workers >= 1 && cluster.process < cluster.processes());
    let (processes, workers) = (cluster.processes(), cluster.workers);
    if options.backing == Backing::Memory {
        let mine = bit_band_bytes(game, processes, workers, options.dte_table)[cluster.process];
        let room = crate::storage::available_memory();
        let several = matches!(game.shape(), Shape::Several(_));
        grid::in_memory(mine, room, several)?;
    }
    match game.shape() {
        Shape::Grid(g) => grid::solve_grid(g, cluster, options),
        Shape::Several(g) => kbits::solve_several(g, cluster, options),
        Shape::Other => unreachable!("a cops game has a shape"),
    }
}
