//! Partitioned solves of the several-cops game on the bit engine
//! (`solve/multicop/engine/partition.rs`): one band of cop multisets per
//! process (whole blocks of the same top cell), its workers the engine's
//! threads inside it, and each level's changed thief rows and stats
//! swapped over the cluster's TCP connections (`grid.rs`'s `TcpLink`,
//! opened and checked by `net.rs` with a session of its own); band
//! snapshots after the levels process 0's sink asks for, and a resume from
//! them (`solve/multicop/engine/band_save.rs`); out of core, each band's
//! arrays in scratch files of its rows, paged under the process's cap as
//! a local several-cops solve pages ([`several_band_plan`]).

use std::path::Path;

use super::grid::{connect_resuming, gather, End};
use super::solution::{Band, PartitionedSolution, Store};
use super::{Cluster, PartitionOptions};
use crate::error::Result;
use crate::game::Game;
use crate::games::kcops::KCops;
use crate::solve::multicop::{self, KcopStorage};
use crate::storage::Backing;

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

/// Per process of a partitioned bit solve of the several-cops `game` over
/// `processes` processes, the cop multisets of its band and those whose
/// thief rows it reads (its band's and the others' its cops reach).
fn band_rows(game: &KCops, processes: usize) -> Vec<(u64, u64)> {
    let per = 2 * u64::from(game.arena().cells());
    let reads = multicop::process_reads(game.arena(), game.cops() as usize, processes);
    several_bands(game, processes)
        .windows(2)
        .zip(reads)
        .map(|(w, read)| {
            let rows = (w[1] - w[0]).checked_div(per).unwrap_or(0);
            (rows, read.end - read.start)
        })
        .collect()
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
    let k = game.cops() as usize;
    band_rows(game, processes)
        .into_iter()
        .map(|(rows, read)| {
            multicop::kcop_band_bytes(game.arena(), k, rows, read, workers, dte_table)
        })
        .collect()
}

/// What process `process`'s band of a partitioned bit solve of the
/// several-cops `game` may use with scratch files under `dir`: the cap
/// `memory`, or without one the band's resident minimum (every array
/// that can go to a file goes there, as a local several-cops solve given
/// a scratch folder alone does), at most the memory available; and where
/// its arrays go under that ([`multicop::kcop_band_plan`]).
///
/// # Errors
/// [`Error::TooLarge`] naming the cap and the band's resident minimum
/// above it.
fn band_storage(
    game: &KCops,
    (processes, process, workers): (usize, usize, usize),
    dte_table: bool,
    dir: &Path,
    memory: Option<u64>,
) -> Result<(KcopStorage, multicop::KcopPlan)> {
    let mut storage = KcopStorage {
        memory,
        scratch: Some(dir.to_path_buf()),
    };
    let rows = band_rows(game, processes)[process];
    let (k, arena) = (game.cops() as usize, game.arena());
    if memory.is_none() {
        let least = KcopStorage {
            memory: Some(0),
            ..storage.clone()
        };
        let (plan, _) = multicop::kcop_band_plan(arena, k, rows, workers, dte_table, &least);
        storage.memory = Some(plan.in_memory().min(crate::storage::available_memory()));
    }
    let (plan, _) = multicop::kcop_band_plan(arena, k, rows, workers, dte_table, &storage);
    if !plan.fits {
        return Err(multicop::below_minimum(plan.in_memory(), &storage));
    }
    Ok((storage, plan))
}

/// Where process `process`'s band of a partitioned bit solve of the
/// several-cops `game` over `processes` processes of `workers` threads
/// lives under `limits`: without `limits.scratch` in memory
/// ([`several_band_bytes`]); with it, as a local several-cops solve
/// places its arrays, the largest of them (the band's distances, then its
/// bitsets) in scratch files of the band's rows until the rest fits under
/// the cap (`limits.memory` less `limits.held`; without a cap, every
/// array that can), paged under it ([`multicop::kcop_band_plan`]).
///
/// # Errors
/// [`Error::TooLarge`] naming the cap and the band's resident minimum
/// below it (in memory, its bytes), or the scratch files' bytes above the
/// folder's free disk; [`Error::Io`] when that cannot be read.
pub(super) fn several_band_plan(
    game: &KCops,
    (processes, process, workers): (usize, usize, usize),
    dte_table: bool,
    limits: &crate::solve::StorageLimits,
) -> Result<super::BandPlan> {
    let bytes = several_band_bytes(game, processes, workers, dte_table)[process];
    let Some(dir) = &limits.scratch else {
        let room = super::grid::room(limits.memory).saturating_sub(limits.held);
        return super::grid::in_memory(bytes, room, true).map(|()| super::BandPlan {
            backing: Backing::Memory,
            bytes,
            resident: bytes,
            window: None,
            passes: None,
        });
    };
    let memory = limits.memory.map(|m| m.saturating_sub(limits.held));
    let shape = (processes, process, workers);
    let (_, plan) = band_storage(game, shape, dte_table, dir, memory)?;
    if plan.scratch > 0 {
        let what = format!("this process's band files under {}", dir.display());
        crate::storage::disk_room(dir, plan.scratch, what)?;
    }
    Ok(super::BandPlan {
        backing: match plan.scratch {
            0 => Backing::Memory,
            _ => Backing::Scratch(dir.clone()),
        },
        bytes,
        resident: plan.in_memory(),
        window: None,
        passes: None,
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
/// when it is damaged or of another band, game or setting; with
/// [`PartitionOptions::backing`] in scratch files,
/// [`Error::TooLarge`](crate::Error::TooLarge) for a
/// [`PartitionOptions::memory`] cap below the band's resident minimum
/// before connecting, and [`Error::Scratch`](crate::Error::Scratch) for
/// the files (a band too large for memory is refused by
/// [`solve_bits`](super::solve_bits) before).
pub(super) fn solve_several(
    game: &KCops,
    cluster: &Cluster,
    options: &PartitionOptions,
) -> Result<PartitionedSolution> {
    let storage = match &options.backing {
        Backing::Memory => KcopStorage::default(),
        Backing::Scratch(dir) => {
            let shape = (cluster.processes(), cluster.process, cluster.workers);
            // Refused before connecting: the peers then see this process
            // gone.
            band_storage(game, shape, options.dte_table, dir, options.memory)?.0
        }
    };
    let (mut link, saved) =
        connect_resuming(cluster, options, game.state_count() ^ SEVERAL_BIT_ENGINE)?;
    let kernel = multicop::KcopOptions {
        cops: game.cops() as usize,
        dte_table: options.dte_table,
        start: options.track.map(|s| game.decode(s)),
        stop_when_placed: false,
        thief_lists: None,
    };
    let band = multicop::solve_band(
        game.arena(),
        &kernel,
        &mut link,
        cluster.workers,
        options.observer.as_deref().map(|o| o as _),
        crate::solve::grid_partition::Saving {
            sink: options.checkpoint.as_deref(),
            resume: saved.as_ref(),
        },
        &storage,
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
