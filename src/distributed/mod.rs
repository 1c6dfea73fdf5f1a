//! Partitioned solves: one game's state space split over the workers of
//! several processes (and machines), on timely-dataflow.
//!
//! The state array is cut into contiguous *bands*, one per worker; for the
//! grid game a band is the states of a range of cop cells that starts at a
//! grid row, so a worker owns whole rows of the cop's map; for the
//! several-cops game (`KCops` (`games/kcops.rs`)) a band is the states of a
//! run of cop multisets ([`bands`], with [`session`] the value peers
//! compare).
//! Each worker keeps its band's cells (the counters of `storage/cells.rs`,
//! one byte per state, four for games with more than 63 moves a state:
//! [`wide_cells`]), its two frontiers and optionally its distances, and
//! runs the level-synchronous propagation of the local engines on them.
//!
//! Draining level k, a worker updates predecessors inside its band in
//! place. A decided state with predecessors in another band (for the grid
//! game: a thief-to-move state whose cop cell lies within one move of a band
//! edge) is sent once to each such band, tagged LOSS or WIN: the receiver
//! walks that state's predecessors itself and applies those it owns. So one
//! message per crossing state and destination, not one per edge. Each level
//! is one timely round (timestamp = level): every worker sends every other
//! worker its batch (possibly empty) and the size of its level-k frontier,
//! then waits on a probe until round k is delivered everywhere. The sum of
//! the sizes is the global frontier; when it is zero the solve is over. The
//! order of updates within a level does not matter (see
//! `solve/propagate.rs`), so values and distances equal the local engines'.
//!
//! With a [`BandSink`] every band snapshots after the same levels, and a
//! cluster killed mid-solve resumes from those snapshots through a
//! [`BandSource`] (see `checkpoint.rs`).
//!
//! Files: `bands.rs` the bands and session value of the two cops games,
//! `worker.rs` one worker's levels and rounds, `net.rs` the connections,
//! `checkpoint.rs` band snapshots, `bits.rs` the bit engine's one door for
//! the cops game, `grid.rs` one cop on it (a band of grid rows per
//! process), `kbits.rs` several cops (a band of cop multisets per
//! process), `solution.rs` what each process holds after and the shard it
//! saves.
//!
//! Connections are opened here (`net.rs`), with a deadline and a handshake
//! that checks that every process solves the same game; timely then runs on
//! those sockets. A peer that dies makes timely's network threads panic
//! with "timely communication error"; the caller (the CLI) turns that into
//! an exit.

mod bands;
mod bits;
mod checkpoint;
mod grid;
mod kbits;
mod net;
mod solution;
mod worker;

pub use bands::{bands, session};
pub use bits::{bit_band_bytes, bit_band_plan, bit_bands, bit_engine_runs, solve_bits};
pub use checkpoint::{BandCheckpoint, BandSink, BandSnapshot, BandSource, GridBandCheckpoint};
pub use solution::{write_shard, Band, PartitionedSolution, Summary};

use std::net::TcpStream;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU8, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::ProcessBuilder;
use timely::communication::{AllocatorBuilder, Hooks};

use crate::error::{Error, Result};
use crate::game::Game;
use crate::solve::Progress;
use crate::storage::cells::Cells;
use crate::storage::frontier::Frontier;
use crate::storage::{Backing, Paging, Region};

/// Where this process stands in a cluster and how to reach the others.
#[derive(Clone, Debug)]
pub struct Cluster {
    /// `host:port` of every process, in process order (a hostfile's lines).
    pub addresses: Vec<String>,
    /// This process's index into `addresses`.
    pub process: usize,
    /// Worker threads per process (each owns one band).
    pub workers: usize,
    /// How long to wait for every peer to connect.
    pub connect_timeout: Duration,
}

impl Cluster {
    /// `processes` processes on this machine, listening on consecutive
    /// loopback ports from `base_port`.
    #[must_use]
    pub fn loopback(processes: usize, process: usize, workers: usize, base_port: u16) -> Cluster {
        Cluster {
            addresses: (0..processes)
                .map(|i| format!("127.0.0.1:{}", usize::from(base_port) + i))
                .collect(),
            process,
            workers,
            connect_timeout: Duration::from_secs(60),
        }
    }

    /// Number of processes.
    #[must_use]
    pub fn processes(&self) -> usize {
        self.addresses.len()
    }

    /// Workers in the whole cluster (the number of bands).
    #[must_use]
    pub fn total_workers(&self) -> usize {
        self.processes() * self.workers
    }
}

/// A progress callback shared by a process's workers.
pub type Observer = Arc<dyn Fn(&Progress) + Send + Sync>;

/// A per-process figure sampled at the end (see
/// [`PartitionOptions::process_stat`]).
pub type ProcessStat = Arc<dyn Fn() -> u64 + Send + Sync>;

/// What to record and whom to tell, besides the cluster.
#[derive(Clone, Default)]
pub struct PartitionOptions {
    /// Keep every owned state's distance to end (2 bytes per state).
    pub dte_table: bool,
    /// Record this state's distance to end without a table.
    pub track: Option<u64>,
    /// A hash of the game (map, starts, exits, rules): every process
    /// must give the same one, or the handshake fails.
    pub session: u64,
    /// Called by this process's first worker after each level, with global
    /// counts; also the sign of life a watchdog can wait for. It only
    /// observes: unlike a local solve's observer ([`Flow`](crate::Flow)), it
    /// cannot stop the solve, which would have to stop every process at the
    /// same level (`checkpoint` makes an ended solve resumable).
    pub observer: Option<Observer>,
    /// Sampled once per process at the end and sent to process 0 (the CLI
    /// passes the peak resident memory).
    pub process_stat: Option<ProcessStat>,
    /// Where this process's bands save snapshots (every process of a
    /// checkpointing cluster has one; process 0's decides when).
    pub checkpoint: Option<Arc<dyn BandSink>>,
    /// Resume from this process's snapshots (every process of the cluster
    /// resumes, or none).
    pub resume: Option<Arc<dyn BandSource>>,
    /// Where this process's band arrays live (see [`plan_bands`]): memory,
    /// or unlinked files mapped from a scratch folder.
    pub backing: Backing,
    /// With scratch files: bytes of a band's arrays a worker works on
    /// before dropping the pages behind it ([`BandPlan::window`]); `None`
    /// leaves paging to the kernel.
    pub window: Option<u64>,
    /// With scratch files on the bit engine ([`solve_bits`], one cop): the
    /// cap on this process's resident bytes, under which its band pages
    /// one level per pass over its file ([`bit_band_plan`]); `None`: the
    /// memory available when the solve starts.
    pub memory: Option<u64>,
}

/// Where one process's band arrays live and what they use, decided by
/// [`plan_bands`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BandPlan {
    /// Memory or scratch files.
    pub backing: Backing,
    /// Bytes of every band array of the process ([`band_bytes`] summed).
    pub bytes: u64,
    /// Bytes of those arrays resident at most by the storage plan's figures:
    /// all of them in memory; in scratch files, per band a window of states
    /// plus a predecessor radius of pages on each side (the kernel pages
    /// the shared file mappings, and each worker drops the pages behind
    /// its window as it drains a level and the whole band's after it).
    pub resident: u64,
    /// In scratch files: bytes of a band's arrays worked on between page
    /// releases (three quarters of the cap's share of each worker); give
    /// it to [`PartitionOptions::window`].
    pub window: Option<u64>,
    /// The bit engine's band paged out of core ([`bit_band_plan`]): one
    /// level per pass over its file, and the bytes a pass reads and
    /// writes at most.
    pub passes: Option<crate::solve::Passes>,
}

/// Plans the storage of process `process`'s bands (of `workers` workers
/// each, split at `bounds`) under `limits`, as
/// [`plan_storage`](crate::plan_storage) does for a local solve: memory
/// when the arrays fit, scratch files when a folder is given alone or the
/// arrays exceed the cap (in the temporary folder with `spill_to_temp` and
/// no folder), else a refusal with the bytes needed. The cap is shared
/// equally by the process's workers; a cap below what a band's window and
/// predecessor radius need is refused with that minimum.
///
/// # Errors
/// [`Error::TooLarge`] (memory with no scratch folder, disk, or a cap below
/// the minimum) and [`Error::Io`] when the folder's free space cannot be
/// read.
pub fn plan_bands(
    game: &impl Game,
    bounds: &[u64],
    process: usize,
    workers: usize,
    dte_table: bool,
    limits: &crate::solve::StorageLimits,
) -> Result<BandPlan> {
    let bands: Vec<u64> = (process * workers..(process + 1) * workers)
        .map(|w| bounds[w + 1] - bounds[w])
        .collect();
    let wide = wide_cells(game);
    let bytes: u64 = bands.iter().map(|&n| band_bytes(n, dte_table, wide)).sum();
    let cap = limits
        .memory
        .unwrap_or_else(crate::storage::available_memory);
    let room = cap.saturating_sub(limits.held);
    let backing = match &limits.scratch {
        Some(dir) if limits.memory.is_none() || bytes > room => {
            let what = format!("this process's band files under {}", dir.display());
            crate::storage::disk_room(dir, bytes, what)?;
            Backing::Scratch(dir.clone())
        }
        // As a local solve: too big for memory and no folder given, out of
        // core in the temporary folder when allowed and its disk has room.
        None if bytes > room
            && limits.spill_to_temp
            && bytes <= crate::storage::free_disk(&std::env::temp_dir()).unwrap_or(0) =>
        {
            Backing::Scratch(std::env::temp_dir())
        }
        None if bytes > room => {
            return Err(Error::TooLarge {
                what: "this process's band arrays".into(),
                needed: bytes,
                available: room,
                hint: "give it scratch files (--scratch DIR), more memory or more processes".into(),
            })
        }
        _ => Backing::Memory,
    };
    if backing == Backing::Memory {
        return Ok(BandPlan {
            backing,
            bytes,
            resident: bytes,
            window: None,
            passes: None,
        });
    }
    let share = room / workers.max(1) as u64;
    let (mut resident, mut minimum) = (0u64, 0u64);
    for &n in &bands {
        let (r, m) = crate::solve::out_of_core_states(
            n,
            game.predecessor_radius(),
            band_bytes(n, dte_table, wide),
            share,
        );
        resident += r;
        minimum = minimum.max(m);
    }
    let minimum = minimum.saturating_mul(workers.max(1) as u64) + limits.held;
    if cap < minimum {
        return Err(Error::TooLarge {
            what: "this process's bands in scratch files (per band a window of states plus a \
                   predecessor radius of pages on each side)"
                .into(),
            needed: minimum,
            available: cap,
            hint: crate::error::cap_hint(minimum),
        });
    }
    Ok(BandPlan {
        backing,
        bytes,
        resident,
        // A band that fits its window is drained as in memory.
        window: bands
            .iter()
            .any(|&n| band_bytes(n, dte_table, wide) > share / 4 * 3)
            .then_some(share / 4 * 3),
        passes: None,
    })
}

/// Fills a worker's arrays from its band's snapshot of `level`.
fn load_band(
    arrays: &mut worker::Arrays,
    band: usize,
    bounds: &[u64],
    worker: usize,
    source: &dyn BandSource,
    level: u32,
) -> Result<()> {
    let saved = source.load(band, level)?;
    let range = bounds[worker]..bounds[worker + 1];
    if saved.range != range || saved.level() != level {
        return Err(Error::Checkpoint {
            path: saved.path.clone(),
            offset: 0,
            message: format!(
                "holds states {}..{} at level {}, expected {}..{} at level {level}",
                saved.range.start,
                saved.range.end,
                saved.level(),
                range.start,
                range.end
            ),
        });
    }
    if saved.dte.is_some() != arrays.dte.is_some() {
        return Err(Error::Checkpoint {
            path: saved.path.clone(),
            offset: 0,
            message: "made with another distance-table setting".into(),
        });
    }
    for (cell, &byte) in arrays.cells.atomics::<AtomicU8>().iter().zip(&saved.cells) {
        cell.store(byte, Relaxed);
    }
    arrays.frontiers[0].restore(&saved.frontier);
    if let (Some(table), Some(dte)) = (&arrays.dte, &saved.dte) {
        for (d, &v) in table.atomics::<AtomicU16>().iter().zip(dte) {
            d.store(v, Relaxed);
        }
    }
    arrays.resumed = Some(saved.progress);
    Ok(())
}

/// Bytes of arrays one worker of a band of `states` states allocates:
/// a cell per state (one byte, four when `wide`: see [`wide_cells`]), two
/// frontiers and the distances with `dte_table`.
#[must_use]
pub fn band_bytes(states: u64, dte_table: bool, wide: bool) -> u64 {
    let words = states.div_ceil(64);
    let cell = if wide { 4 } else { 1 };
    cell * states + 2 * 8 * (words + words.div_ceil(64)) + if dte_table { 2 * states } else { 0 }
}

/// Whether a partitioned solve of `game` keeps four-byte cells: a byte
/// counts at most 63 moves, and several cops can have more (two cops
/// with nine cells each in reach: 81 joint moves). The counter engine's
/// band snapshots keep one byte a state, so such solves on it take no
/// checkpoints (the bit engine's do).
#[must_use]
pub fn wide_cells(game: &impl Game) -> bool {
    game.max_moves() > <[AtomicU8] as Cells>::MAX_MOVES
}

/// Solves `game` with the states split at `bounds` (one band per worker of
/// the cluster, `total_workers + 1` boundaries from 0 to the state count),
/// as process `cluster.process`. Every process of the cluster makes the
/// same call; they connect to each other first.
///
/// # Errors
/// [`Error::Peer`] when a peer cannot be reached within the timeout or
/// runs a different solve; [`Error::Alloc`] for the band arrays;
/// [`Error::TooLarge`] for games with more than 2^30 - 1 moves per
/// state; [`Error::Unsupported`] for checkpoints of games with more than
/// 63 (see [`wide_cells`]).
///
/// # Panics
/// If `bounds` does not match the cluster, or a worker thread panics (the
/// network threads panic when a peer dies mid-solve).
pub fn solve<G: Game + Send + 'static>(
    game: Arc<G>,
    bounds: &[u64],
    cluster: &Cluster,
    options: &PartitionOptions,
) -> Result<PartitionedSolution> {
    let total = cluster.total_workers();
    assert!(cluster.workers >= 1 && cluster.process < cluster.processes());
    assert_eq!(bounds.len(), total + 1, "one band per worker");
    assert_eq!(bounds[total], game.state_count());
    let wide = wide_cells(&*game);
    if game.max_moves() > <[AtomicU32] as Cells>::MAX_MOVES {
        return Err(Error::TooLarge {
            what: "a state's move counter".into(),
            needed: u64::from(game.max_moves()),
            available: u64::from(<[AtomicU32] as Cells>::MAX_MOVES),
            hint: "no state may have more than 2^30 - 1 moves".into(),
        });
    }
    if wide && (options.checkpoint.is_some() || options.resume.is_some()) {
        return Err(Error::Unsupported {
            engine: "distributed".into(),
            what: format!(
                "checkpoints of games with more than {} moves a state",
                <[AtomicU8] as Cells>::MAX_MOVES
            ),
            hint: format!(
                "this game has up to {} and the counter engine's band snapshots keep one byte a state; give --scratch DIR with --memory (the bit engine then runs, its bands paged from scratch files, and its snapshots keep any game) or solve without --checkpoint and --resume",
                game.max_moves()
            ),
        });
    }
    // Allocate before connecting: a process that cannot hold its bands
    // fails alone, before its peers start.
    let first = cluster.process * cluster.workers;
    let mut arrays = Vec::with_capacity(cluster.workers);
    for w in first..first + cluster.workers {
        let len = bounds[w + 1] - bounds[w];
        arrays.push(Some(worker::Arrays {
            cells: if wide {
                Region::zeroed::<AtomicU32>(len, &options.backing, "state array")?
            } else {
                Region::zeroed::<AtomicU8>(len, &options.backing, "state array")?
            },
            frontiers: [
                Frontier::new(len, &options.backing, Paging::Kernel)?,
                Frontier::new(len, &options.backing, Paging::Kernel)?,
            ],
            dte: if options.dte_table {
                Some(Region::zeroed::<AtomicU16>(
                    len,
                    &options.backing,
                    "distance table",
                )?)
            } else {
                None
            },
            resumed: None,
        }));
    }
    let latest = options.resume.as_ref().map(|source| source.latest());
    let mut resume_level = latest;
    let (builders, guard): (Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>) =
        if cluster.processes() == 1 {
            let builders =
                ProcessBuilder::new_typed_vector(cluster.workers, Hooks::default().refill, None);
            (
                builders
                    .into_iter()
                    .map(AllocatorBuilder::Process)
                    .collect(),
                Box::new(()),
            )
        } else {
            let hello = net::Hello {
                process: cluster.process as u64,
                processes: cluster.processes() as u64,
                workers: cluster.workers as u64,
                session: options.session ^ game.state_count(),
                resume: latest.map_or(net::FRESH, u64::from),
            };
            let (sockets, levels): (Vec<Option<TcpStream>>, Vec<u64>) =
                net::connect(&cluster.addresses, hello, cluster.connect_timeout)?;
            // Every process holds its newest snapshot or the one before
            // complete, and the older one goes only once every band has
            // saved the newer: the smallest newest level is held by all.
            resume_level = latest.map(|_| *levels.iter().min().expect("a level") as u32);
            let hooks = Hooks::default();
            let local =
                ProcessBuilder::new_typed_vector(cluster.workers, hooks.refill.clone(), None);
            let (builders, guard) = initialize_networking_from_sockets(
                local,
                sockets,
                cluster.process,
                cluster.workers,
                hooks,
            )
            .map_err(|e| Error::Peer {
                process: cluster.process,
                address: cluster.addresses[cluster.process].clone(),
                message: format!("starting the network threads: {e}"),
            })?;
            (
                builders.into_iter().map(AllocatorBuilder::Tcp).collect(),
                Box::new(guard),
            )
        };
    if let (Some(source), Some(level)) = (&options.resume, resume_level) {
        source.chosen(level);
        for (band, slot) in arrays.iter_mut().enumerate() {
            let a = slot.as_mut().expect("arrays");
            load_band(a, band, bounds, first + band, &**source, level).map_err(|e| {
                Error::Peer {
                    process: cluster.process,
                    address: cluster.addresses[cluster.process].clone(),
                    message: format!("resuming band {band} at level {level}: {e}"),
                }
            })?;
        }
    }
    let plan = Arc::new(worker::Plan {
        game,
        wide,
        bounds: bounds.to_vec(),
        workers_per_process: cluster.workers,
        track: options.track,
        observer: options.observer.clone(),
        process_stat: options.process_stat.clone(),
        sink: options.checkpoint.clone(),
        window: options.window,
        arrays: Mutex::new(arrays),
    });
    let guards =
        timely::execute::execute_from(builders, guard, timely::WorkerConfig::default(), move |w| {
            worker::run(w, &plan)
        })
        .map_err(|message| Error::Peer {
            process: cluster.process,
            address: cluster.addresses[cluster.process].clone(),
            message,
        })?;
    let mut bands = Vec::new();
    let mut summary = None;
    let mut levels = 0;
    for result in guards.join() {
        let done = result.unwrap_or_else(|e| panic!("a worker failed: {e}"));
        if done.summary.is_some() {
            summary = done.summary;
        }
        levels = done.levels;
        bands.push(Band::cells(done.range, done.cells, wide, done.dte));
    }
    bands.sort_by_key(|b| b.range.start);
    Ok(PartitionedSolution {
        bands,
        summary,
        levels,
    })
}
