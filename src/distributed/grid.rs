//! Partitioned solves of the one-cop grid game on the bit engine
//! (`solve/bitboard/partition.rs`): one band of whole grid rows per
//! process, its workers the engine's threads inside it, and the halo rows
//! and each step's stats swapped over the cluster's TCP connections
//! (opened and checked by `net.rs`, as for the counter engine; no timely
//! dataflow here, as each step is one all-to-all swap of small messages).
//!
//! A message is an 8-byte length (in words) and the words, little-endian.
//! Every peer's connection has its own reader thread that queues what
//! arrives, so sends never wait on a peer that is itself sending.

use std::io::{BufReader, BufWriter, Read, Write};
use std::net::TcpStream;
use std::sync::mpsc::{channel, Receiver};

use super::net;
use super::solution::{Band, PartitionedSolution, Store, Summary};
use super::{Cluster, GridBandCheckpoint, PartitionOptions};
use crate::error::{Error, Result};
use crate::game::Game;
use crate::games::cops::CopsAndThief;
use crate::outcome::Outcome;
use crate::solve::grid_partition::{self, Link};
use crate::solve::Counts;
use crate::storage::Backing;

/// Mixed into the handshake's session so that a bit-engine process and a
/// counter-engine process of the same game refuse each other.
const BIT_ENGINE: u64 = 0xb17b_0a2d_0000_0001;

/// The states of each process's band in a partitioned bit solve of `game`
/// over `processes` processes: `processes + 1` bounds from 0 to the state
/// count, cut at grid rows (what [`solve_grid`] gives each process).
pub(super) fn grid_bands(game: &CopsAndThief, processes: usize) -> Vec<u64> {
    let per = 2 * game.cells();
    let cells = grid_partition::process_cells(game, processes);
    let mut bounds = vec![0];
    bounds.extend(cells.iter().map(|c| c.end as u64 * per));
    bounds
}

/// Bytes each process of a partitioned bit solve of `game` over
/// `processes` processes of `workers` threads holds (its band's bitsets,
/// with `dte_table` its distances, and the engine's buffers).
pub(super) fn grid_band_bytes(
    game: &CopsAndThief,
    processes: usize,
    workers: usize,
    dte_table: bool,
) -> Vec<u64> {
    grid_partition::band_bytes(game, processes, workers, dte_table)
}

/// Where process `process`'s band of a partitioned bit solve of `game`
/// lives and what it holds resident: with `limits.scratch`, a scratch file
/// of its band and halo rows (and distances), paged one level per pass
/// when its in-memory bytes exceed the cap (`limits.memory` less
/// `limits.held`, else the available memory); without, in memory.
///
/// # Errors
/// [`Error::TooLarge`] for a cap below the band's minimum out of core, or
/// (in memory) below its bytes.
pub(super) fn grid_band_plan(
    game: &CopsAndThief,
    processes: usize,
    process: usize,
    workers: usize,
    dte_table: bool,
    limits: &crate::solve::StorageLimits,
) -> Result<super::BandPlan> {
    let bytes = grid_band_bytes(game, processes, workers, dte_table)[process];
    let room = room(limits.memory).saturating_sub(limits.held);
    let Some(dir) = &limits.scratch else {
        return in_memory(bytes, room, false).map(|()| super::BandPlan {
            backing: Backing::Memory,
            bytes,
            resident: bytes,
            window: None,
            passes: None,
        });
    };
    let plan = grid_partition::band_plan(game, processes, process, workers, dte_table, room)?;
    Ok(super::BandPlan {
        backing: Backing::Scratch(dir.clone()),
        bytes,
        resident: plan.resident,
        window: None,
        passes: (!plan.whole).then_some(crate::solve::Passes {
            levels_per_pass: plan.levels as u32,
            bytes_per_pass: plan.pass_bytes,
        }),
    })
}

/// The cap on this process: `memory`, else the memory available now.
pub(super) fn room(memory: Option<u64>) -> u64 {
    memory.unwrap_or_else(crate::storage::available_memory)
}

/// Refuses a band of `bytes` in memory above `room`, of one cop's game
/// or of `several` cops' (the hint's wording, said once here, differs by
/// a word).
///
/// # Errors
/// [`Error::TooLarge`] naming both.
pub(super) fn in_memory(bytes: u64, room: u64, several: bool) -> Result<()> {
    let pages = if several {
        "the band pages"
    } else {
        "the bands page"
    };
    if bytes > room {
        return Err(Error::TooLarge {
            what: "this process's band of bitsets".into(),
            needed: bytes,
            available: room,
            hint: format!(
                "more processes, or scratch files (--scratch DIR: {pages} on the bit engine)"
            ),
        });
    }
    Ok(())
}

/// The cluster's connections as a [`Link`].
pub(super) struct TcpLink {
    process: usize,
    processes: usize,
    writers: Vec<Option<BufWriter<TcpStream>>>,
    inboxes: Vec<Option<Receiver<std::io::Result<Vec<u64>>>>>,
    addresses: Vec<String>,
}

impl TcpLink {
    pub(super) fn new(cluster: &Cluster, sockets: Vec<Option<TcpStream>>) -> Result<TcpLink> {
        let mut writers = Vec::with_capacity(sockets.len());
        let mut inboxes = Vec::with_capacity(sockets.len());
        for (peer, socket) in sockets.into_iter().enumerate() {
            let Some(socket) = socket else {
                writers.push(None);
                inboxes.push(None);
                continue;
            };
            let reading = socket.try_clone().map_err(|e| Error::Peer {
                process: peer,
                address: cluster.addresses[peer].clone(),
                message: format!("cannot read the connection: {e}"),
            })?;
            let (send, receive) = channel();
            std::thread::Builder::new()
                .name(format!("retrograde-peer-{peer}"))
                .spawn(move || {
                    let mut from = BufReader::with_capacity(1 << 20, reading);
                    loop {
                        let message = read_message(&mut from);
                        let failed = message.is_err();
                        if send.send(message).is_err() || failed {
                            break;
                        }
                    }
                })
                .map_err(|e| Error::Peer {
                    process: peer,
                    address: cluster.addresses[peer].clone(),
                    message: format!("cannot start a reader thread: {e}"),
                })?;
            writers.push(Some(BufWriter::with_capacity(1 << 20, socket)));
            inboxes.push(Some(receive));
        }
        Ok(TcpLink {
            process: cluster.process,
            processes: cluster.processes(),
            writers,
            inboxes,
            addresses: cluster.addresses.clone(),
        })
    }

    fn lost(&self, peer: usize, what: &str) -> Error {
        Error::Peer {
            process: peer,
            address: self.addresses[peer].clone(),
            message: format!(
                "lost the connection to this peer mid-solve ({what}): a process died or the network failed"
            ),
        }
    }
}

/// One message: its length in words, then the words.
fn read_message(from: &mut impl Read) -> std::io::Result<Vec<u64>> {
    let mut word = [0u8; 8];
    from.read_exact(&mut word)?;
    let len = u64::from_le_bytes(word);
    // A halo message holds two rows of thief bitsets: far below 2^40
    // words. A larger length is a stranger or a corrupt stream.
    if len > 1 << 40 {
        return Err(std::io::Error::other(format!("a message of {len} words")));
    }
    // Read straight into the words: a level's message of several cops can
    // be megabytes, and a byte buffer beside it doubled the reader's peak.
    let mut words = vec![0u64; len as usize];
    // SAFETY: the bytes of a `u64` slice are a `u8` slice of 8 times its
    // length, valid for writes of any value, borrowed while `words` is.
    let bytes =
        unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), words.len() * 8) };
    from.read_exact(bytes)?;
    for w in &mut words {
        *w = u64::from_le(*w);
    }
    Ok(words)
}

impl Link for TcpLink {
    fn process(&self) -> usize {
        self.process
    }

    fn processes(&self) -> usize {
        self.processes
    }

    fn exchange(&mut self, out: Vec<Vec<u64>>) -> Result<Vec<Vec<u64>>> {
        for (peer, message) in out.iter().enumerate() {
            let Some(writer) = self.writers[peer].as_mut() else {
                continue;
            };
            let sent = writer
                .write_all(&(message.len() as u64).to_le_bytes())
                .and_then(|()| {
                    for w in message {
                        writer.write_all(&w.to_le_bytes())?;
                    }
                    writer.flush()
                });
            if let Err(e) = sent {
                return Err(self.lost(peer, &e.to_string()));
            }
        }
        let mut received = vec![Vec::new(); self.processes];
        for (peer, slot) in received.iter_mut().enumerate() {
            let Some(inbox) = self.inboxes[peer].as_ref() else {
                continue;
            };
            *slot = match inbox.recv() {
                Ok(Ok(message)) => message,
                Ok(Err(e)) => return Err(self.lost(peer, &e.to_string())),
                Err(_) => return Err(self.lost(peer, "reader gone")),
            };
        }
        Ok(received)
    }
}

/// Connects this process to the cluster of a partitioned bit solve
/// (`engine`: the game's and engine's tag in the session) and, with
/// [`PartitionOptions::resume`], loads its band's snapshot of the newest
/// level that every process holds, which the handshake agrees on: an
/// older snapshot goes only once every process has saved the newer, so
/// the smallest newest level is held by all.
pub(super) fn connect_resuming(
    cluster: &Cluster,
    options: &PartitionOptions,
    engine: u64,
) -> Result<(TcpLink, Option<GridBandCheckpoint>)> {
    let processes = cluster.processes();
    let latest = options.resume.as_ref().map(|source| source.latest());
    let mut resume_level = latest;
    let sockets = if processes == 1 {
        vec![None]
    } else {
        let hello = net::Hello {
            process: cluster.process as u64,
            processes: processes as u64,
            workers: cluster.workers as u64,
            session: options.session ^ engine,
            resume: latest.map_or(net::FRESH, u64::from),
        };
        let (sockets, levels) = net::connect(&cluster.addresses, hello, cluster.connect_timeout)?;
        resume_level = latest.map(|_| *levels.iter().min().expect("a level") as u32);
        sockets
    };
    let saved = match (&options.resume, resume_level) {
        (Some(source), Some(level)) => {
            source.chosen(level);
            Some(source.load_grid(level)?)
        }
        _ => None,
    };
    Ok((TcpLink::new(cluster, sockets)?, saved))
}

/// Solves `game` partitioned over `cluster` on the bit engine, as process
/// `cluster.process`: every process makes the same call. Each process
/// holds the bitsets of its band of grid rows ([`grid_bands`]) and, with
/// [`PartitionOptions::dte_table`], its distances; process 0 gets the
/// cluster's [`Summary`].
///
/// With [`PartitionOptions::checkpoint`] every process saves its band
/// after the same levels (process 0's sink decides when, and says so with
/// the next swap; see `solve/bitboard/band_checkpoint.rs`); with
/// [`PartitionOptions::resume`] the processes agree in the handshake on
/// the newest level every one of them holds, and each continues from its
/// band's snapshot of it ([`BandSource::load_grid`](super::BandSource::load_grid)).
///
/// # Errors
/// [`Error::Peer`] when a peer cannot be reached within the timeout, runs
/// a different solve or is lost mid-solve; [`Error::Alloc`] for the
/// arrays; [`Error::Checkpoint`] naming the snapshot when it is damaged or
/// of another band; with [`PartitionOptions::backing`] in scratch files,
/// [`Error::TooLarge`] for a [`PartitionOptions::memory`] cap below the
/// band's minimum before connecting (a band too large for memory is
/// refused by [`solve_bits`](super::solve_bits) before).
pub(super) fn solve_grid(
    game: &CopsAndThief,
    cluster: &Cluster,
    options: &PartitionOptions,
) -> Result<PartitionedSolution> {
    let processes = cluster.processes();
    if let Backing::Scratch(_) = options.backing {
        // Before connecting: the peers then see this process gone.
        grid_partition::band_plan(
            game,
            processes,
            cluster.process,
            cluster.workers,
            options.dte_table,
            room(options.memory),
        )?;
    }
    // The levels per pass every process takes while a band pages: agreed
    // in the handshake (a process planning others under another cap is
    // refused there).
    let levels = match options.backing {
        Backing::Scratch(_) => grid_partition::cluster_levels(&grid_partition::band_plans(
            game,
            processes,
            cluster.workers,
            options.dte_table,
            room(options.memory),
        )),
        Backing::Memory => None,
    };
    let tag = game.state_count() ^ BIT_ENGINE ^ ((levels.unwrap_or(0) as u64) << 40);
    let (mut link, saved) = connect_resuming(cluster, options, tag)?;
    let storage = match &options.backing {
        Backing::Memory => None,
        Backing::Scratch(dir) => Some(grid_partition::BandStorage {
            dir: dir.clone(),
            room: room(options.memory),
        }),
    };
    let band = grid_partition::solve_band(
        game,
        &mut link,
        cluster.workers,
        options.dte_table,
        options.track,
        options.observer.as_deref().map(|o| o as _),
        grid_partition::Saving {
            sink: options.checkpoint.as_deref(),
            resume: saved.as_ref(),
        },
        storage.as_ref(),
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
            bytes: &band.bytes_per_step,
            decided_per_level: &band.decided_per_level,
            levels: band.levels,
            tracked_dte: band.tracked_dte,
        },
    )?;
    let levels = band.levels;
    Ok(PartitionedSolution {
        bands: vec![Band {
            range: band.range.clone(),
            store: Store::Bits(Box::new(band)),
        }],
        summary,
        levels,
    })
}

/// What a process of a partitioned bit solve found, for [`gather`].
pub(super) struct End<'e> {
    pub(super) counts: Counts,
    /// The tracked state's value, on the process that owns it.
    pub(super) tracked: Option<Outcome>,
    /// Bytes this process sent at each step.
    pub(super) bytes: &'e [u64],
    pub(super) decided_per_level: &'e [u64],
    pub(super) levels: u32,
    pub(super) tracked_dte: Option<crate::outcome::Dte>,
}

/// The end of a partitioned bit solve: every process's counts, the tracked
/// state's value from its owner, the bytes it sent and its figure, to
/// every other; process 0 gets the cluster's [`Summary`].
pub(super) fn gather(
    link: &mut dyn Link,
    options: &PartitionOptions,
    end: End<'_>,
) -> Result<Option<Summary>> {
    // The end: every process's counts, the tracked state's value from its
    // owner, the bytes it sent and its figure, to every other (process 0
    // keeps the summary).
    let (me, processes) = (link.process(), link.processes());
    let counts = end.counts;
    let tracked = end.tracked.map_or(0, |o| 1 + o as u64);
    let stat = options.process_stat.as_ref().map_or(0, |f| f());
    let mut mine = vec![counts.win, counts.loss, counts.draw, tracked, stat];
    mine.extend(end.bytes);
    let everyone: Vec<Vec<u64>> = if processes == 1 {
        vec![mine]
    } else {
        let out = (0..processes)
            .map(|q| if q == me { Vec::new() } else { mine.clone() })
            .collect();
        let mut back = link.exchange(out)?;
        back[me] = mine;
        back
    };
    Ok((me == 0).then(|| {
        let mut total = Counts::default();
        let mut tracked_outcome = None;
        let mut stats = Vec::with_capacity(processes);
        // Bytes by level: step k's bytes from every process; the decided
        // counts end with the quiet level, and a two-level sweep may have
        // run one step past it.
        let levels = end.decided_per_level.len();
        let last = levels.max(1) - 1;
        let mut bytes_per_level = vec![0u64; last + 1];
        for words in &everyone {
            total.win += words[0];
            total.loss += words[1];
            total.draw += words[2];
            if words[3] != 0 {
                tracked_outcome = Some(match words[3] - 1 {
                    1 => Outcome::Win,
                    2 => Outcome::Loss,
                    _ => Outcome::Draw,
                });
            }
            stats.push(words[4]);
            for (k, &b) in words[5..].iter().enumerate() {
                bytes_per_level[k.min(last)] += b;
            }
        }
        let network_bytes = bytes_per_level.iter().sum();
        Summary {
            counts: total,
            levels: end.levels,
            tracked_dte: end.tracked_dte,
            tracked_outcome: options.track.and(tracked_outcome),
            bytes_per_level,
            decided_per_level: end.decided_per_level.to_vec(),
            network_bytes,
            process_stats: stats,
        }
    }))
}

#[cfg(test)]
mod tests {
    /// The refusal above the room names, by game, what pages with
    /// `--scratch`.
    #[test]
    fn in_memory_refuses_above_the_room_naming_what_pages() {
        assert!(super::in_memory(10, 10, false).is_ok());
        let one = super::in_memory(11, 10, false).unwrap_err().to_string();
        assert!(
            one.contains("(--scratch DIR: the bands page on the bit engine)"),
            "{one}"
        );
        let several = super::in_memory(11, 10, true).unwrap_err().to_string();
        assert!(
            several.contains("(--scratch DIR: the band pages on the bit engine)"),
            "{several}"
        );
    }
}
