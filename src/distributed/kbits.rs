//! Partitioned solves of the several-cops game on the bit engine
//! (`solve/multicop/engine/partition.rs`): one band of cop multisets per
//! process (whole blocks of the same top cell), its workers the engine's
//! threads inside it, and each level's changed thief rows and stats
//! swapped over the cluster's TCP connections (`grid.rs`'s `TcpLink`,
//! opened and checked by `net.rs` with a session of its own); band
//! snapshots after the levels process 0's sink asks for, and a resume from
//! them (`solve/multicop/engine/band_save.rs`).

use super::grid::{connect_resuming, gather, End};
use super::solution::{Band, PartitionedSolution, Store};
use super::{Cluster, PartitionOptions};
use crate::error::Result;
use crate::game::Game;
use crate::games::kcops::KCops;
use crate::solve::multicop;

/// Mixed into the handshake's session so that a several-cops bit-engine
/// process refuses a counter-engine process (and a one-cop bit-engine
/// process) of the same game.
const SEVERAL_BIT_ENGINE: u64 = 0xb17b_0a2d_0000_0002;

/// The states of each process's band in a partitioned bit solve of the
/// several-cops `game` over `processes` processes: `processes + 1` bounds
/// from 0 to the state count, cut at runs of cop multisets with the same
/// top cell, balanced by multisets (what [`solve_several`] gives each
/// process).
pub(super) fn several_bands(game: &KCops, processes: usize) -> Vec<u64> {
    let (n, k) = (game.arena().cells() as usize, game.cops() as usize);
    let per = 2 * n as u64;
    let mut bounds = vec![0];
    for tops in multicop::band_tops(n, k, processes) {
        bounds.push(multicop::tops_ranks(k, &tops).end * per);
    }
    bounds
}

/// Bytes each process of a partitioned bit solve of the several-cops
/// `game` over `processes` processes of `workers` threads holds: the
/// thief's bitsets of the rows its cops' moves read, its band's other
/// bitsets, the per-multiset
/// bookkeeping, each worker's tables and (with `dte_table`) its band's
/// distances.
pub(super) fn several_band_bytes(
    game: &KCops,
    processes: usize,
    workers: usize,
    dte_table: bool,
) -> Vec<u64> {
    let per = 2 * u64::from(game.arena().cells());
    let k = game.cops() as usize;
    let reads = multicop::process_reads(game.arena(), k, processes);
    several_bands(game, processes)
        .windows(2)
        .zip(reads)
        .map(|(w, read)| {
            let rows = (w[1] - w[0]).checked_div(per).unwrap_or(0);
            let read = read.end - read.start;
            multicop::kcop_band_bytes(game.arena(), k, rows, read, workers, dte_table)
        })
        .collect()
}

/// Whether a partitioned several-cops solve runs on the bit engine
/// ([`solve_several`]) rather than the counter engine
/// ([`solve`](super::solve)): as `grid.rs`'s `grid_engine_runs`
/// decides for one cop, unless the solve asks for scratch files or a
/// memory cap the largest process does not fit under. Checkpoints run on
/// either, each engine with its own band snapshots.
pub(super) fn several_engine_runs(
    game: &KCops,
    processes: usize,
    workers: usize,
    dte_table: bool,
    limits: &crate::solve::StorageLimits,
) -> bool {
    if limits.scratch.is_some() {
        return false;
    }
    limits.memory.is_none_or(|cap| {
        let largest = several_band_bytes(game, processes, workers, dte_table)
            .into_iter()
            .max()
            .unwrap_or(0);
        largest.saturating_add(limits.held) <= cap
    })
}

/// Solves the several-cops `game` partitioned over `cluster` on the bit
/// engine, as process `cluster.process`: every process makes the same
/// call. Each process holds the bitsets of its band of cop multisets
/// ([`several_bands`]) and the thief's rows its cops' moves read, and with
/// [`PartitionOptions::dte_table`] its band's distances; process 0 gets
/// the cluster's [`Summary`](super::Summary).
///
/// With [`PartitionOptions::checkpoint`] every process saves its band
/// after the same levels (process 0's sink decides when, and says so with
/// the level's stats; see `solve/multicop/engine/band_save.rs`); with
/// [`PartitionOptions::resume`] the processes agree in the handshake on
/// the newest level every one of them holds, each continues from its
/// band's snapshot of it ([`BandSource::load_grid`](super::BandSource::load_grid)),
/// and they swap their bands' thief rows once.
///
/// # Errors
/// [`Error::Peer`](crate::Error::Peer) when a peer cannot be reached
/// within the timeout, runs a different solve or is lost mid-solve;
/// [`Error::Alloc`](crate::Error::Alloc) for the arrays;
/// [`Error::Checkpoint`](crate::Error::Checkpoint) naming the snapshot
/// when it is damaged or of another band, game or setting (scratch files
/// and a band too large for memory are refused by
/// [`solve_bits`](super::solve_bits) before).
pub(super) fn solve_several(
    game: &KCops,
    cluster: &Cluster,
    options: &PartitionOptions,
) -> Result<PartitionedSolution> {
    let (mut link, saved) =
        connect_resuming(cluster, options, game.state_count() ^ SEVERAL_BIT_ENGINE)?;
    let kernel = multicop::KcopOptions {
        cops: game.cops() as usize,
        dte_table: options.dte_table,
        start: options.track.map(|s| game.decode(s)),
        stop_when_placed: false,
        thief_lists: None,
    };
    let observer = options.observer.clone();
    let band = multicop::solve_band(
        game.arena(),
        &kernel,
        &mut link,
        cluster.workers,
        observer
            .as_deref()
            .map(|o| o as &(dyn Fn(&crate::solve::Progress) + Sync)),
        crate::solve::grid_partition::Saving {
            sink: options
                .checkpoint
                .as_deref()
                .map(|s| s as &dyn super::BandSink),
            resume: saved.as_ref(),
        },
    )?;
    let tracked = options
        .track
        .filter(|t| band.range.contains(t))
        .map(|t| band.outcome(t));
    let summary = gather(
        &mut link,
        options,
        End {
            counts: band.counts(),
            tracked,
            bytes: &band.bytes_per_level,
            decided_per_level: &band.decided_per_level,
            levels: band.levels,
            tracked_dte: band.start_dte.map(crate::outcome::Dte),
        },
    )?;
    let levels = band.levels;
    Ok(PartitionedSolution {
        bands: vec![Band {
            range: band.range.clone(),
            store: Store::Several(Box::new(band)),
        }],
        summary,
        levels,
    })
}
