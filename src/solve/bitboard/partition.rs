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
//! The transport is the caller's ([`Link`]: `distributed/grid.rs` over the
//! cluster's TCP connections).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

use super::band_checkpoint::GridBandCheckpoint;
use super::bits::Bits;
use super::layout::{Layout, Span, Spans};
use super::masks::MoveMasks;
pub(crate) use super::peers::Link;
use super::peers::{kept_cells, Peers};
use super::run::{cut_rows, Resumed, Run};
use crate::error::Result;
use crate::game::Game;
use crate::games::cops::CopsAndThief;
use crate::outcome::Counts;
use crate::outcome::{Dte, Outcome};
use crate::snapshot::BandSink;
use crate::solve::common::{thread_pool, Flow, Progress};
use crate::solve::engine::Engine;
use crate::solve::options::SolveOptions;
use crate::storage::Region;

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
    let working = super::run::working_bytes(&layout, workers);
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
/// the cluster's counts; saving and resuming its band through `saving`.
///
/// # Errors
/// [`Error::Alloc`] for the arrays, what the link meets,
/// [`Error::Checkpoint`] naming the snapshot when it is of another band or
/// distance-table setting, and what saving one meets.
pub(crate) fn solve_band(
    game: &CopsAndThief,
    link: &mut dyn Link,
    workers: usize,
    dte_table: bool,
    track: Option<u64>,
    observer: Option<&(dyn Fn(&Progress) + Sync)>,
    saving: Saving<'_>,
) -> Result<GridBand> {
    let layout = Layout::new(game);
    let all = rows_of(&layout, link.processes());
    let rows = all[link.process()].clone();
    let cells = layout.row_cells[rows.start] as usize..layout.row_cells[rows.end] as usize;
    let per = 2 * layout.cells as u64;
    let range = cells.start as u64 * per..cells.end as u64 * per;
    let mut region = Region::zeroed_sparse::<std::sync::atomic::AtomicU64>(
        (layout.cells * layout.record()) as u64,
        "bitsets",
    )?;
    let dte = if dte_table {
        Some(Region::zeroed_sparse::<AtomicU16>(
            game.state_count(),
            "distance table",
        )?)
    } else {
        None
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
    let two_levels = {
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
    };
    let kept = kept_cells(&layout, &peers.rows, peers.link.process());
    let resumed = match saving.resume {
        Some(saved) => {
            let dte_atomics = dte.as_ref().map(Region::atomics::<AtomicU16>);
            let resumed = load_band(
                &layout,
                saved,
                &peers,
                (&cells, &kept),
                region.words_mut(),
                dte_atomics.map(|t| &t[range.start as usize..range.end as usize]),
            )?;
            peers.bytes.clone_from(&saved.bytes);
            peers.resume_shadows(&layout, region.words_mut());
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
        if let Some((resumed, cop, thief)) = resumed {
            run.cop_changed[kept.clone()].copy_from_slice(&cop);
            run.thief_changed[kept.clone()].copy_from_slice(&thief);
            run.resumed = Some(resumed);
        }
        run.link = Some(&mut peers);
        run.run(region.words_mut())
    })?;
    let bytes_per_step = peers.bytes;
    Ok(GridBand {
        bits: Bits {
            layout,
            region,
            window: None,
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
        || saved.word_count() != (kept.len() * record) as u64
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
    match (saved.dte_len(), dte) {
        (Some(n), Some(to)) if n == to.len() as u64 => saved.read_dte(to)?,
        (None, None) => {}
        _ => {
            return Err(saved.misfit(
                "made with another distance-table setting (--dte-table, --save with distances)"
                    .into(),
            ))
        }
    }
    saved.read_words(&mut words[kept.start * record..kept.end * record])?;
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
