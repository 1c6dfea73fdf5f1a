//! The bit engine partitioned over processes: each process runs the
//! kernels of this engine on a band of whole grid rows of the cop's cell,
//! and after every step sends the other processes what their cop moves
//! read from it.
//!
//! A cop-to-move row of cop cell P reads the thief-to-move rows of the
//! cells the cop can move to, all within one grid row of P; a thief-to-move
//! row reads only P's own cop rows. So a band reads one grid row of thief
//! rows above it and one below: its halo rows, exactly the rows the
//! in-memory engine copies between its own bands (`halo.rs`). After each
//! step (level 0, each level, each half of a two-level sweep) a process
//! sends, to each process whose band touches one of its edge rows, the
//! word ranges of those rows' thief rows (`TL`, `TW`) that changed in the
//! step, and within them only the words that differ from what it last
//! sent (a bitmap over the range, then those words; see [`Peers::swap`]);
//! the receiver writes them where the rows live
//! and marks them changed, and the halo refresh takes them as it takes a
//! neighbouring band's rows in memory. Every message also carries the
//! step's stats, so every process adds up the same cluster-wide counts and
//! stops at the same level: values and distances equal the local engine's
//! (the same kernels read the same rows at the same levels).
//!
//! Each process maps the bitsets (and distances) of the whole state space
//! without reserving memory ([`Region::zeroed_sparse`]) and touches only
//! its band and halo rows, so its resident memory is its share.
//!
//! Out of core ([`BandStorage`]: scratch files and a cap) the band, `L`
//! rows on each side of it (its halo) and the band's distances are a
//! mapping of a scratch file of their size inside that sparse mapping
//! (private at several levels a pass, as the local engine's, shared at
//! one: [`Region::sparse_with_file`]), and when they do not fit under
//! the cap ([`band_plan`]) each pass of the local engine's out-of-core
//! pipeline (`blocking.rs`) does `L` levels, `L` chosen from the cap as
//! the local engine chooses it (the fewest of the paged bands', every
//! process taking the same, agreed in the handshake). Ghost zones: the
//! pass runs over the band and its halo rows; a level's step at a row
//! reads only the rows next to it, so what the process does not hold
//! (read as empty) spoils one halo row more each level, and after `L`
//! levels the band's own rows are exact. The kernel only ever sets bits,
//! every level's bits follow from the level before by AND and OR, and a
//! halo row starts exact, so a spoiled row lacks bits but never holds a
//! wrong one, and its changed ranges cover what it changed. Only the
//! band's rows count decisions and write distances. After the pass every
//! process sends the `L` rows on each side that its neighbours hold as
//! halo, all four bitsets over the words that changed in the pass, with
//! the changed ranges of its last level, and the stats of each of its
//! levels; the receiver writes them over its halo rows, which are exact
//! again. Ending: the levels are summed over the cluster one by one, and
//! the first quiet one ends the solve, as the local engine's passes end
//! (the pass's later levels change nothing). Snapshots are taken between
//! passes, with the halo rows.
//!
//! The transport is the caller's ([`Link`]: `distributed/grid.rs` over the
//! cluster's TCP connections).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

use super::band_checkpoint::GridBandCheckpoint;
use super::bits::Bits;
use super::blocking::Blocked;
use super::cuts::cut_rows;
use super::layout::{Layout, Span, Spans};
use super::masks::MoveMasks;
pub(crate) use super::peers::Link;
use super::peers::{kept_cells, Peers};
use super::run::{Resumed, Run};
use super::sizing::{band_blocking, Blocking};
use crate::error::{Error, Result};
use crate::game::Game;
use crate::games::cops::CopsAndThief;
use crate::outcome::Counts;
use crate::outcome::{Dte, Outcome};
use crate::snapshot::BandSink;
use crate::solve::common::{thread_pool, Flow, Progress};
use crate::solve::engine::Engine;
use crate::solve::options::SolveOptions;
use crate::storage::{Backing, Paging, Region};

/// Bytes each of `processes` processes of `workers` threads holds in a
/// partitioned bit solve of `game`: its band's bitsets and (with
/// `dte_table`) distances, and the engine's working buffers, which cover
/// every cop cell (a few dozen bytes each).
pub(crate) fn band_bytes(
    game: &CopsAndThief,
    processes: usize,
    workers: usize,
    dte_table: bool,
) -> Vec<u64> {
    let layout = Layout::new(game);
    let working = super::cuts::working_bytes(&layout, workers);
    rows_of(&layout, processes)
        .into_iter()
        .map(|rows| {
            let cells = u64::from(layout.row_cells[rows.end] - layout.row_cells[rows.start]);
            let dte = if dte_table {
                2 * 2 * cells * layout.cells as u64
            } else {
                0
            };
            cells * (layout.record() * 8) as u64 + dte + working
        })
        .collect()
}

/// Where a partitioned bit solve keeps its band out of core: unlinked
/// scratch files under `dir`, paged under `room` bytes of this process.
#[derive(Clone, Debug)]
pub(crate) struct BandStorage {
    pub(crate) dir: std::path::PathBuf,
    pub(crate) room: u64,
}

/// How each of `processes` processes of `workers` threads keeps its band
/// of a partitioned bit solve of `game` in scratch files under `room`
/// bytes ([`Blocking::whole`]: all resident, as in memory; else passes of
/// [`Blocking::levels`] levels over the file, [`Blocking::resident`] at
/// most), or `Err` with the smallest cap it takes (a pass's rows, staging
/// and bookkeeping, and the halo swap's rows). While any band pages,
/// every process does the same levels per pass (the swaps pair up): the
/// fewest any paged band's cap holds, at most the tallest band's rows.
pub(crate) fn band_plans(
    game: &CopsAndThief,
    processes: usize,
    workers: usize,
    dte_table: bool,
    room: u64,
) -> Vec<std::result::Result<Blocking, u64>> {
    let layout = Layout::new(game);
    let all = rows_of(&layout, processes);
    let in_memory = band_bytes(game, processes, workers, dte_table);
    let tallest = all.iter().map(ExactSizeIterator::len).max().unwrap_or(1);
    let plans = |most: usize, depth: usize| -> Vec<std::result::Result<Blocking, u64>> {
        (0..processes)
            .map(|me| {
                let kept = kept_cells(&layout, &all, me, depth);
                band_blocking(
                    &layout,
                    kept.len() as u64,
                    in_memory[me],
                    (dte_table, workers),
                    room,
                    most,
                )
            })
            .collect()
    };
    let first = plans(tallest, 1);
    let Some(levels) = cluster_levels(&first) else {
        return first;
    };
    let mut plans = plans(levels, levels);
    for plan in plans.iter_mut().flatten() {
        plan.levels = levels;
    }
    plans
}

/// The levels per pass of every process of a cluster planned `plans`:
/// the fewest of the paged bands' (`None` when no band pages).
pub(crate) fn cluster_levels(plans: &[std::result::Result<Blocking, u64>]) -> Option<usize> {
    plans
        .iter()
        .flatten()
        .filter(|p| !p.whole)
        .map(|p| p.levels)
        .min()
}

/// Process `process`'s [`band_plans`] entry, as an error naming the cap
/// and the minimum when the cap is below it.
///
/// # Errors
/// [`Error::TooLarge`] for a cap below the band's minimum.
pub(crate) fn band_plan(
    game: &CopsAndThief,
    processes: usize,
    process: usize,
    workers: usize,
    dte_table: bool,
    room: u64,
) -> Result<Blocking> {
    band_plans(game, processes, workers, dte_table, room)
        .swap_remove(process)
        .map_err(|minimum| below_minimum(minimum, room))
}

/// The refusal of a cap `room` below a band's `minimum`.
fn below_minimum(minimum: u64, room: u64) -> Error {
    Error::TooLarge {
        what: "this process's band of bitsets in scratch files (one level per pass over its file: two grid rows and their staging, the engine's bookkeeping, the rows of its I/O thread and of the halo swap)".into(),
        needed: minimum,
        available: room,
        hint: crate::error::cap_hint(minimum),
    }
}

fn rows_of(layout: &Layout, processes: usize) -> Vec<Range<usize>> {
    cut_rows(layout, 0..layout.height(), processes)
        .windows(2)
        .map(|w| w[0]..w[1])
        .collect()
}

/// The cop cells of each process's band (consecutive; states are
/// cop-major, so a band's states are `2 C` times these).
pub(crate) fn process_cells(game: &CopsAndThief, processes: usize) -> Vec<Range<usize>> {
    let layout = Layout::new(game);
    rows_of(&layout, processes)
        .into_iter()
        .map(|rows| layout.row_cells[rows.start] as usize..layout.row_cells[rows.end] as usize)
        .collect()
}

/// What one process holds after a partitioned bit solve: its band of the
/// bitsets and distances, and what it and the cluster found.
pub(crate) struct GridBand {
    bits: Bits,
    dte: Option<Region>,
    /// The states of this process's band.
    pub(crate) range: Range<u64>,
    /// Levels after level 0, the same on every process.
    pub(crate) levels: u32,
    /// The tracked state's distance to end (the cluster's), if decided.
    pub(crate) tracked_dte: Option<Dte>,
    /// States decided at each level in the whole cluster (the last, 0,
    /// ends the solve).
    pub(crate) decided_per_level: Vec<u64>,
    /// Bytes this process sent after each step, level by level (step `k`:
    /// level 0, then the levels in order; a two-level sweep's halves are
    /// its two levels).
    pub(crate) bytes_per_step: Vec<u64>,
}

impl GridBand {
    /// Value of state `s` of the band for the player to move.
    pub(crate) fn outcome(&self, s: u64) -> Outcome {
        debug_assert!(self.range.contains(&s));
        self.bits.outcome(s)
    }

    /// Distance to end of state `s` of the band (`None`: a draw, or no
    /// table kept).
    pub(crate) fn dte(&self, s: u64) -> Option<Dte> {
        if self.outcome(s) == Outcome::Draw {
            return None;
        }
        let table = self.dte.as_ref()?;
        Some(Dte(u32::from(
            table.atomics::<AtomicU16>()[s as usize].load(Relaxed),
        )))
    }

    /// Whether a distance table was kept.
    pub(crate) fn has_dte(&self) -> bool {
        self.dte.is_some()
    }

    /// Values of states `range` (inside the band), packed as
    /// [`Solution::fill_values`](crate::Solution::fill_values) packs them.
    pub(crate) fn fill_values(&self, range: Range<u64>, out: &mut [u8]) {
        self.bits.fill_values(range, out);
    }

    /// Distances of states `range` (0 for draws).
    pub(crate) fn fill_dte(&self, range: Range<u64>, values: &[u8], out: &mut [u16]) {
        let table = self.dte.as_ref().map(|t| t.atomics::<AtomicU16>());
        for (i, d) in out.iter_mut().enumerate() {
            let decided = (values[i / 4] >> (2 * (i % 4))) & 3 != 0;
            *d = match table {
                Some(t) if decided => t[(range.start + i as u64) as usize].load(Relaxed),
                _ => 0,
            };
        }
    }

    /// WIN / LOSS / DRAW counts over the band's states.
    pub(crate) fn counts(&self) -> Counts {
        let layout = &self.bits.layout;
        let per = 2 * layout.cells as u64;
        let cells = match (
            self.range.start.checked_div(per),
            self.range.end.checked_div(per),
        ) {
            (Some(a), Some(b)) => a as usize..b as usize,
            _ => 0..0,
        };
        let [cop, thief] = self.bits.counts_in(cells);
        Counts {
            win: cop.win + thief.win,
            loss: cop.loss + thief.loss,
            draw: cop.draw + thief.draw,
        }
    }
}

/// Where a partitioned bit solve saves its band and what it resumes from.
#[derive(Clone, Copy, Default)]
pub(crate) struct Saving<'s> {
    /// This process's sink: every process saves after the same levels,
    /// process 0's deciding when.
    pub(crate) sink: Option<&'s dyn BandSink>,
    /// This process's snapshot to resume from (every process resumes from
    /// the same level, or none).
    pub(crate) resume: Option<&'s GridBandCheckpoint>,
}

/// Solves this process's band of `game` (the band `link.process()` of
/// [`process_cells`] for `link.processes()` processes) on `workers`
/// threads, with every state's distance when `dte_table`, tracking the
/// distance of state `track`, calling `observer` after each level with
/// the cluster's counts; saving and resuming its band through `saving`;
/// in memory, or with `storage` in scratch files (paged when the band does
/// not fit its cap, see the module docs).
///
/// # Errors
/// [`Error::Alloc`] for the arrays, what the link meets,
/// [`Error::Checkpoint`] naming the snapshot when it is of another band or
/// distance-table setting, and what saving one meets; with `storage`,
/// [`Error::TooLarge`] for a cap below the band's minimum and
/// [`Error::Scratch`] for the files.
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_band(
    game: &CopsAndThief,
    link: &mut dyn Link,
    workers: usize,
    dte_table: bool,
    track: Option<u64>,
    observer: Option<&(dyn Fn(&Progress) + Sync)>,
    saving: Saving<'_>,
    storage: Option<&BandStorage>,
) -> Result<GridBand> {
    let layout = Layout::new(game);
    let all = rows_of(&layout, link.processes());
    let me = link.process();
    let rows = all[me].clone();
    let cells = layout.row_cells[rows.start] as usize..layout.row_cells[rows.end] as usize;
    let per = 2 * layout.cells as u64;
    let range = cells.start as u64 * per..cells.end as u64 * per;
    // Every process plans every band: whether any pages decides the
    // steps all of them take, and the levels per pass.
    let plans = storage.map(|s| band_plans(game, all.len(), workers, dte_table, s.room));
    let levels = plans.as_deref().and_then(cluster_levels);
    let kept = kept_cells(&layout, &all, me, levels.unwrap_or(1));
    let plan = match (&plans, storage) {
        (Some(plans), Some(s)) => Some(
            plans[me]
                .clone()
                .map_err(|minimum| below_minimum(minimum, s.room))?,
        ),
        _ => None,
    };
    let paged = plan.as_ref().filter(|p| !p.whole);
    let any_paged = levels.is_some();
    let record = layout.record() as u64;
    let words_count = (layout.cells * layout.record()) as u64;
    // Several levels a pass change a pipeline of rows again and again:
    // private copies written back once a pass, as the local engine's
    // (`Region::sparse_with_file`).
    let paging = match levels {
        Some(l) if l > 1 => Paging::Explicit,
        _ => Paging::Kernel,
    };
    let mut region = match storage {
        Some(s) => Region::sparse_with_file::<std::sync::atomic::AtomicU64>(
            words_count,
            kept.start as u64 * record..kept.end as u64 * record,
            &s.dir,
            "bitsets",
            paging,
        )?,
        None => Region::zeroed_sparse::<std::sync::atomic::AtomicU64>(words_count, "bitsets")?,
    };
    let dte = match (dte_table, storage) {
        (false, _) => None,
        (true, Some(s)) => Some(Region::sparse_with_file::<AtomicU16>(
            game.state_count(),
            range.clone(),
            &s.dir,
            "distance table",
            paging,
        )?),
        (true, None) => Some(Region::zeroed_sparse::<AtomicU16>(
            game.state_count(),
            "distance table",
        )?),
    };
    let bands_of = |rows: &Range<usize>| -> Vec<Range<usize>> {
        cut_rows(&layout, rows.clone(), workers)
            .windows(2)
            .filter(|w| w[0] < w[1])
            .map(|w| w[0]..w[1])
            .collect()
    };
    // Levels go two at a time only when every band of every process is
    // tall enough: all processes must take the same steps.
    let two_levels = !any_paged && {
        let mut bands = all.iter().flat_map(&bands_of).peekable();
        bands.peek().is_some() && bands.all(|b| b.len() >= 5)
    };
    // The observer only observes: a stop would have to end every process
    // at the same level, which the link does not arrange (it does for
    // saving: process 0's sink decides, `Peers`), so a partitioned solve
    // ignores `Flow::Stop`.
    let observe = |p: &Progress| {
        if let Some(observe) = observer {
            observe(p);
        }
        Flow::Continue
    };
    let mut options = SolveOptions::new(Engine::Bitboard).with_tracked_state(track);
    if let Some(s) = storage {
        // Named by a failed write-back.
        options = options.with_backing(Backing::Scratch(s.dir.clone()));
    }
    if observer.is_some() {
        options = options.with_observer(&observe);
    }
    let mut peers = Peers {
        link,
        rows: all,
        bytes: Vec::new(),
        sent: HashMap::new(),
        sink: saving.sink,
        asked: false,
        due: false,
        unconfirmed: None,
        depth: levels.unwrap_or(0),
    };
    let (words, pager) = region.words_with_pager();
    let resumed = match saving.resume {
        Some(saved) => {
            let dte_atomics = dte.as_ref().map(Region::atomics::<AtomicU16>);
            let resumed = load_band(
                &layout,
                saved,
                &peers,
                (&cells, &kept),
                words,
                dte_atomics.map(|t| &t[range.start as usize..range.end as usize]),
            )?;
            peers.bytes.clone_from(&saved.bytes);
            if levels.is_none() {
                peers.resume_shadows(&layout, words);
            }
            Some(resumed)
        }
        None => None,
    };
    let depths = thread_pool(workers)?.install(|| {
        let masks = MoveMasks::new(game, &layout);
        let dte_atomics = dte.as_ref().map(Region::atomics::<AtomicU16>);
        let mut run = Run::over(&layout, &masks, dte_atomics, &options, bands_of(&rows));
        run.cells = cells.clone();
        run.two_levels = two_levels;
        // While any band pages, every process runs passes of the
        // cluster's levels (a band that fits its cap keeps all resident).
        if let (Some(plan), Some(levels)) = (&plan, levels) {
            run.bands.clear();
            run.blocked = Some(Blocked::band(
                &layout,
                plan,
                pager,
                dte.as_ref(),
                rows.clone(),
                levels,
            ));
        }
        if levels.is_some() {
            // A pass's outermost halo rows read the rows beyond, which
            // this process never holds (all zero): they never change.
            let none = [Span::EMPTY; 2];
            for p in (0..kept.start).chain(kept.end..layout.cells) {
                run.cop_changed[p] = none;
                run.thief_changed[p] = none;
            }
        }
        if let Some((resumed, cop, thief)) = resumed {
            run.cop_changed[kept.clone()].copy_from_slice(&cop);
            run.thief_changed[kept.clone()].copy_from_slice(&thief);
            run.resumed = Some(resumed);
        }
        run.link = Some(&mut peers);
        run.run(words)
    })?;
    let bytes_per_step = peers.bytes;
    if let Some(error) = region.take_write_error() {
        crate::solve::common::write_failed(Some(error), &options.backing)?;
    }
    Ok(GridBand {
        bits: Bits {
            layout,
            region,
            // Read a window of cop cells at a time, as a local solve
            // out of core is.
            window: paged.map(|p| p.window_cells),
        },
        dte,
        range,
        levels: depths.levels,
        tracked_dte: depths.tracked_dte,
        decided_per_level: depths.decided,
        bytes_per_step,
    })
}

/// Reads this process's band snapshot `saved` into `words` (the records
/// of `kept`, the band `cells` and its halo rows) and `dte` (the band's
/// distances), after checking that it is this band's. Returns where the
/// run stood and the changed ranges of the kept cells (cop rows, thief
/// rows).
fn load_band(
    layout: &Layout,
    saved: &GridBandCheckpoint,
    peers: &Peers<'_>,
    (cells, kept): (&Range<usize>, &Range<usize>),
    words: &mut [u64],
    dte: Option<&[AtomicU16]>,
) -> Result<(Resumed, Vec<Spans>, Vec<Spans>)> {
    let (me, processes) = (peers.link.process(), peers.link.processes());
    let as_u64 = |r: &Range<usize>| r.start as u64..r.end as u64;
    if saved.process != me as u64 || saved.processes != processes as u64 {
        return Err(saved.misfit(format!(
            "holds process {} of {}, this is process {me} of {processes}",
            saved.process, saved.processes
        )));
    }
    let record = layout.record();
    if saved.cells != as_u64(cells)
        || saved.kept != as_u64(kept)
        || saved.state.cells != layout.cells as u64
        || saved.state.row_words != layout.words as u64
        || saved.arrays.word_count() != (kept.len() * record) as u64
    {
        return Err(saved.misfit(format!(
            "holds cop cells {}..{} of a board of {} free cells ({} words a row); this band is cop cells {}..{} of {} ({})",
            saved.cells.start,
            saved.cells.end,
            saved.state.cells,
            saved.state.row_words,
            cells.start,
            cells.end,
            layout.cells,
            layout.words
        )));
    }
    match (saved.arrays.dte_len(), dte) {
        (Some(n), Some(to)) if n == to.len() as u64 => saved.arrays.read_dte(to)?,
        (None, None) => {}
        _ => {
            return Err(saved.misfit(
                "made with another distance-table setting (--dte-table, --save with distances)"
                    .into(),
            ))
        }
    }
    saved
        .arrays
        .read_words(&mut words[kept.start * record..kept.end * record])?;
    let span = |lo: u32, hi: u32| Span { lo, hi };
    let spans: Vec<Spans> = saved
        .spans
        .iter()
        .map(|s| [span(s[0], s[1]), span(s[2], s[3])])
        .collect();
    let l = layout.words as u32;
    if spans.iter().flatten().any(|s| !s.is_empty() && s.hi > l) {
        return Err(saved.misfit("holds a changed word range past the row".into()));
    }
    let (cop, thief) = spans.split_at(kept.len());
    Ok((
        Resumed {
            state: saved.state,
            decided: saved.decided.clone(),
        },
        cop.to_vec(),
        thief.to_vec(),
    ))
}
