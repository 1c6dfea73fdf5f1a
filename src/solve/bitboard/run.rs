//! The driver: the per-level state of a solve, the level loop (progress,
//! the tracked start, checkpoints), one level or two over the bands in
//! parallel, and the halo refreshes between them; out of core, passes of
//! several levels (`run_paged.rs` over `blocking.rs`, which imports
//! nothing from here, so the two do not import each other).

use std::ops::Range;
use std::sync::atomic::AtomicU16;

use rayon::prelude::*;

use super::blocking::Blocked;
use super::cuts::band_rows;
use super::halo::{split_bands, Band, BandParts, Halo};
use super::kernel::{band_work, BandStep, Context, Decisions};
use super::layout::{Layout, Span, Spans};
use super::masks::{init_record, MoveMasks};
use super::{bits::outcome_in, Depths};
use crate::error::{Error, Result};
use crate::outcome::{Dte, Outcome};
use crate::solve::checkpoint::{Due, GridCheckpoint, GridSnapshot, State};
use crate::solve::common::{Flow, Progress};
use crate::solve::options::SolveOptions;

/// What a partitioned run does with the other processes after each step
/// (`partition.rs`'s `Peers`: the halo rows and the step's stats).
pub(super) trait Swap {
    /// One exchange (see [`Peers`]'s implementation).
    ///
    /// # Errors
    /// What the link meets.
    fn swap(
        &mut self,
        layout: &Layout,
        words: &mut [u64],
        thief_changed: &mut [Spans],
        cells: Range<usize>,
        stats: &mut [Decisions],
    ) -> Result<()>;

    /// A pass's exchange out of core, `L` levels at once (see [`Peers`]'s
    /// implementation): `changed` are the cop and thief rows' changed
    /// ranges, `grown` the words each of the band's cells (from
    /// `cells.start`) changed in the pass, its four rows.
    ///
    /// # Errors
    /// What the link meets.
    fn swap_deep(
        &mut self,
        layout: &Layout,
        words: &mut [u64],
        changed: [&mut [Spans]; 2],
        grown: &[[Span; 4]],
        cells: Range<usize>,
        stats: &mut [Decisions],
    ) -> Result<()>;

    /// Between levels, after level `level`: whether this process saves its
    /// band now. Every process gets the same answer at the same level
    /// (process 0 asks its sink, and its answer travels with the next
    /// swap to every process).
    fn save_due(&mut self, level: u32) -> bool;

    /// Saves this process's part of `snapshot` (the run's state between
    /// levels), with `decided`, the states decided at each level so far.
    ///
    /// # Errors
    /// What saving it met.
    fn save(&mut self, layout: &Layout, snapshot: &GridSnapshot<'_>, decided: &[u64])
        -> Result<()>;
}

/// A partitioned run resumed from its band's snapshot: the bitsets,
/// distances and changed ranges are in place; what the level loop takes
/// up again.
pub(super) struct Resumed {
    pub(super) state: State,
    /// States decided at each level before the snapshot.
    pub(super) decided: Vec<u64>,
}

/// The per-level state of a solve.
pub(super) struct Run<'a> {
    pub(super) layout: &'a Layout,
    pub(super) masks: &'a MoveMasks,
    pub(super) dte: Option<&'a [AtomicU16]>,
    pub(super) options: &'a SolveOptions<'a>,
    pub(super) bands: Vec<Band>,
    /// Per cop cell: words of its cop rows (`CW`, `CL`) and of its thief
    /// rows (`TL`, `TW`) changed last level.
    pub(super) cop_changed: Vec<Spans>,
    pub(super) thief_changed: Vec<Spans>,
    /// Out of core: several levels per pass over the records.
    pub(super) blocked: Option<Blocked<'a>>,
    /// Whether levels go two at a time (every band is tall enough).
    pub(super) two_levels: bool,
    /// The tracked state (the start) as [`Context::track`] wants it.
    pub(super) track: Option<(usize, u64, usize, u64)>,
    /// The cop cells this run solves: all of them, or in a partitioned
    /// solve this process's band of whole grid rows (the records of other
    /// cells are never touched, except the halo rows the link fills).
    pub(super) cells: Range<usize>,
    /// In a partitioned solve, the other processes: after every step the
    /// run swaps its edge rows and its stats with them.
    pub(super) link: Option<&'a mut dyn Swap>,
    /// In a partitioned solve resumed from a band snapshot: where it
    /// stood (taken by [`Run::run`]).
    pub(super) resumed: Option<Resumed>,
}

impl<'a> Run<'a> {
    pub(super) fn new(
        layout: &'a Layout,
        masks: &'a MoveMasks,
        dte: Option<&'a [AtomicU16]>,
        options: &'a SolveOptions<'a>,
        threads: usize,
    ) -> Run<'a> {
        let bands = band_rows(layout, threads);
        Run::over(layout, masks, dte, options, bands)
    }

    /// A run over the bands of grid rows `bands` (consecutive, not empty):
    /// all the rows of the layout, or a process's part of them.
    pub(super) fn over(
        layout: &'a Layout,
        masks: &'a MoveMasks,
        dte: Option<&'a [AtomicU16]>,
        options: &'a SolveOptions<'a>,
        bands: Vec<Range<usize>>,
    ) -> Run<'a> {
        let height = layout.height();
        let widest = layout.widest();
        let cells = match (bands.first(), bands.last()) {
            (Some(a), Some(b)) => layout.row(a.start).start..layout.row_cells[b.end] as usize,
            _ => 0..0,
        };
        let bands = bands
            .into_iter()
            .map(|rows| {
                let (above, below) = (rows.start, rows.end);
                Band::new(
                    layout,
                    widest,
                    rows,
                    (above > 0).then(|| Halo::new(layout, above - 1)),
                    (below < height).then(|| Halo::new(layout, below)),
                )
            })
            .collect::<Vec<Band>>();
        Run {
            layout,
            masks,
            dte,
            options,
            two_levels: !bands.is_empty() && bands.iter().all(Band::two_levels_fit),
            bands,
            cop_changed: vec![[layout.span; 2]; layout.cells],
            thief_changed: vec![[layout.span; 2]; layout.cells],
            blocked: None,
            track: options
                .track
                .filter(|&t| t < 2 * (layout.cells as u64).pow(2))
                .map(|t| layout.track(t)),
            cells,
            link: None,
            resumed: None,
        }
    }

    pub(super) fn run(&mut self, words: &mut [u64]) -> Result<Depths> {
        let layout = self.layout;
        let n = 2 * (layout.cells as u64).pow(2);
        let mut depths = Depths {
            levels: 0,
            tracked_dte: None,
            deepest: [None; 2],
            decided: Vec::new(),
        };
        let mut decided = 0;
        // The last level done, and the stats of the levels just done (the
        // last of them `level`), still to be accounted; none when resuming
        // (the checkpoint holds them accounted).
        let mut level = 0u32;
        let resumed = match (self.resumed.take(), self.options.resume) {
            (Some(resumed), _) => {
                self.refill_halos(words);
                // Out of core the band's snapshot was read into every
                // page of it.
                self.release_all();
                depths.decided = resumed.decided;
                Some(resumed.state)
            }
            (None, Some(checkpoint)) => {
                let checkpoint = checkpoint.grid()?;
                let state = self.restore(checkpoint, words)?;
                self.release_all();
                Some(state)
            }
            (None, None) => None,
        };
        let mut pending = match resumed {
            None => vec![self.start(words)?],
            Some(state) => {
                level = state.level;
                decided = state.decided;
                depths.tracked_dte = state.tracked.map(Dte);
                depths.deepest = state.deepest.map(|d| d.map(|(dte, s)| (Dte(dte), s)));
                Vec::new()
            }
        };
        let last = loop {
            let first = level + 1 - pending.len() as u32;
            let mut quiet = None;
            // The observer's stop, honoured after the last level of this
            // step (two levels go in one step).
            let mut stop = false;
            for (at, in_level) in (first..).zip(&pending) {
                if let Some(t) = self.options.track {
                    // Level 0 sets no flags: look at the bits (a
                    // partitioned run's owner did, and the link told all).
                    let now = if at == 0 && self.link.is_none() {
                        outcome_in(layout, t, |i| words[i]) != Outcome::Draw
                    } else {
                        in_level.tracked
                    };
                    if depths.tracked_dte.is_none() && now {
                        depths.tracked_dte = Some(Dte(at));
                    }
                }
                decided += in_level.count;
                depths.decided.push(in_level.count);
                for (deepest, &witness) in depths.deepest.iter_mut().zip(&in_level.witness) {
                    if witness != u64::MAX {
                        *deepest = Some((Dte(at), witness));
                    }
                }
                if let Some(observe) = self.options.observer {
                    let flow = observe(&Progress {
                        level: at,
                        sweeping: false,
                        decided_in_level: in_level.count,
                        decided,
                        states: n,
                    });
                    stop |= flow == Flow::Stop;
                }
                if in_level.count == 0 {
                    quiet = Some(at);
                    break;
                }
            }
            if let Some(at) = quiet {
                break at;
            }
            if !pending.is_empty() {
                // A partitioned run's observer only observes
                // (`partition::solve_band`): a stop would have to end every
                // process at the same level.
                if let Some(link) = self.link.as_deref_mut() {
                    if link.save_due(level) {
                        let snapshot = self.snapshot(words, level, decided, &depths);
                        let layout = self.layout;
                        if let Some(link) = self.link.as_deref_mut() {
                            link.save(layout, &snapshot, &depths.decided)?;
                        }
                        // Out of core the save read the whole band in.
                        self.release_all();
                    }
                } else {
                    // The observer's stop saves as the sink's does, so that
                    // the solve can be resumed.
                    let due = match (stop, self.options.checkpoint) {
                        (true, _) => Due::SaveAndStop,
                        (false, Some(sink)) => sink.poll(level),
                        (false, None) => Due::No,
                    };
                    if let (true, Some(sink)) = (due != Due::No, self.options.checkpoint) {
                        sink.save(&self.snapshot(words, level, decided, &depths))?;
                        self.release_all();
                    }
                    if due == Due::SaveAndStop {
                        return Err(Error::Stopped { level });
                    }
                }
            }
            pending = self.step(words, level + 1)?;
            level += pending.len() as u32;
        };
        depths.levels = last.saturating_sub(1);
        // Out of core a pass ends with its last rows resident (the next
        // pass would start on them): drop them before the solution is
        // read window by window.
        self.release_all();
        Ok(depths)
    }

    /// The state between levels, for a checkpoint.
    fn snapshot<'w>(
        &self,
        words: &'w [u64],
        level: u32,
        decided: u64,
        depths: &Depths,
    ) -> GridSnapshot<'w>
    where
        'a: 'w,
    {
        let spans = self
            .cop_changed
            .iter()
            .chain(&self.thief_changed)
            .map(|s| [s[0].lo, s[0].hi, s[1].lo, s[1].hi])
            .collect();
        GridSnapshot {
            state: State {
                level,
                decided,
                tracked: depths.tracked_dte.map(|d| d.0),
                deepest: depths.deepest.map(|d| d.map(|(dte, s)| (dte.0, s))),
                cells: self.layout.cells as u64,
                row_words: self.layout.words as u64,
            },
            words,
            spans,
            dte: self.dte,
        }
    }

    /// Loads a checkpoint's bitsets, changed ranges, distances and halos.
    fn restore(&mut self, checkpoint: &GridCheckpoint, words: &mut [u64]) -> Result<State> {
        let layout = self.layout;
        let state = checkpoint.state;
        let misfit = |message: String| Error::Checkpoint {
            path: std::path::PathBuf::from("checkpoint"),
            offset: 0,
            message,
        };
        if state.cells != layout.cells as u64
            || state.row_words != layout.words as u64
            || checkpoint.arrays.word_count() != words.len() as u64
            || checkpoint.spans.len() != 2 * layout.cells
        {
            return Err(misfit(format!(
                "made for a board of {} free cells ({} words a row), this one has {} ({})",
                state.cells, state.row_words, layout.cells, layout.words
            )));
        }
        match (checkpoint.arrays.dte_len(), self.dte) {
            (Some(n), Some(to)) if n == to.len() as u64 => checkpoint.arrays.read_dte(to)?,
            (None, None) => {}
            _ => {
                return Err(misfit(
                    "the distance table setting differs (--dte-table / --dump)".to_string(),
                ))
            }
        }
        checkpoint.arrays.read_words(words)?;
        let span = |lo: u32, hi: u32| Span { lo, hi };
        let (cop, thief) = checkpoint.spans.split_at(layout.cells);
        for (to, s) in self.cop_changed.iter_mut().zip(cop) {
            *to = [span(s[0], s[1]), span(s[2], s[3])];
        }
        for (to, s) in self.thief_changed.iter_mut().zip(thief) {
            *to = [span(s[0], s[1]), span(s[2], s[3])];
        }
        self.refill_halos(words);
        Ok(state)
    }

    /// After a resume: the halos hold whole rows, so they are copied in
    /// full, then take the changed ranges of the checkpoint's level.
    fn refill_halos(&mut self, words: &[u64]) {
        let layout = self.layout;
        let full = vec![[layout.span; 2]; layout.cells];
        for band in &mut self.bands {
            for halo in [&mut band.above, &mut band.below].into_iter().flatten() {
                halo.refresh(layout, words, &full);
                for (i, p) in halo.cells.clone().enumerate() {
                    halo.changed[i] = self.thief_changed[p];
                }
            }
        }
    }

    /// Level 0: captures, escapes and players without a move.
    ///
    /// # Errors
    /// What the link meets (a partitioned run only).
    pub(super) fn initialise(&mut self, words: &mut [u64]) -> Result<Decisions> {
        let layout = self.layout;
        let masks = self.masks;
        if layout.cells == 0 {
            return Ok(Decisions::NONE);
        }
        let record = layout.record();
        let cells = self.cells.clone();
        let count: u64 = words[cells.start * record..cells.end * record]
            .par_chunks_mut(record)
            .enumerate()
            .map(|(i, record)| init_record(layout, masks, cells.start + i, record))
            .sum();
        // Every cop cell's captures are decided: the smallest states of
        // each side are the first cop cell's, thief cell 0.
        let first = 2 * cells.start as u64 * layout.cells as u64;
        let mut stats = [Decisions {
            count,
            witness: if cells.is_empty() {
                [u64::MAX; 2]
            } else {
                [first, first + 1]
            },
            tracked: false,
        }];
        if let Some(t) = self.options.track.filter(|_| self.link.is_some()) {
            let (cop, ..) = layout.track(t);
            stats[0].tracked =
                cells.contains(&cop) && outcome_in(layout, t, |i| words[i]) != Outcome::Draw;
        }
        self.after_step(words, &mut stats)?;
        Ok(stats[0])
    }

    /// After a parallel step: in a partitioned run, the edge rows and the
    /// step's stats go to the other processes and theirs come back (the
    /// stats become the cluster's); then the halos take the rows just
    /// outside each band.
    pub(super) fn after_step(&mut self, words: &mut [u64], stats: &mut [Decisions]) -> Result<()> {
        if let Some(peers) = self.link.as_deref_mut() {
            peers.swap(
                self.layout,
                words,
                &mut self.thief_changed,
                self.cells.clone(),
                stats,
            )?;
        }
        self.refresh_halos(words);
        Ok(())
    }

    /// One level: every band in parallel, then the halos.
    pub(super) fn level(&mut self, words: &mut [u64], level: u32) -> Result<Decisions> {
        let ctx = self.context(level);
        let stats = self
            .parts(words)
            .into_par_iter()
            .map(|(band, records, cop, thief)| {
                band_work(&ctx, BandStep::Level, band, records, cop, thief)[0]
            })
            .reduce(|| Decisions::NONE, Decisions::merge);
        let mut stats = [stats];
        self.after_step(words, &mut stats)?;
        Ok(stats[0])
    }
}

impl<'a> Run<'a> {
    /// Two levels, `level` and the next, in two parts: every band sweeps
    /// both levels (the second leaving out the rows next to other bands),
    /// the halos take the first level, every band finishes the second,
    /// and the halos take it. Each band's rows are read from memory once
    /// for both levels.
    pub(super) fn two_levels(&mut self, words: &mut [u64], level: u32) -> Result<[Decisions; 2]> {
        let layout = self.layout;
        if self.bands.iter().any(|band| band.staged_next[0].is_empty()) {
            let widest = layout.widest();
            for band in &mut self.bands {
                band.enable_two_levels(layout, widest);
            }
        }
        let ctx = self.context(level);
        let next = Context {
            level: level + 1,
            ..ctx
        };
        let mut stats = self
            .parts(words)
            .into_par_iter()
            .map(|(band, records, cop, thief)| {
                band_work(&ctx, BandStep::Sweep(&next), band, records, cop, thief)
            })
            .reduce(
                || [Decisions::NONE; 2],
                |a, b| [a[0].merge(b[0]), a[1].merge(b[1])],
            );
        self.after_step(words, &mut stats)?;
        let finish = self
            .parts(words)
            .into_par_iter()
            .map(|(band, records, cop, thief)| {
                band_work(&next, BandStep::Finish, band, records, cop, thief)[0]
            })
            .reduce(|| Decisions::NONE, Decisions::merge);
        let mut finish = [finish];
        self.after_step(words, &mut finish)?;
        Ok([stats[0], stats[1].merge(finish[0])])
    }

    /// What every band reads during level `level`.
    pub(super) fn context(&self, level: u32) -> Context<'a> {
        Context {
            layout: self.layout,
            masks: self.masks,
            dte: self.dte,
            level,
            track: self.track,
        }
    }

    /// Each band with its records and changed ranges.
    fn parts<'w>(&'w mut self, words: &'w mut [u64]) -> Vec<BandParts<'w>> {
        let (first, record) = (self.cells.start, self.layout.record());
        split_bands(
            &mut self.bands,
            record,
            &mut words[first * record..],
            &mut self.cop_changed[first..],
            &mut self.thief_changed[first..],
        )
    }

    /// Copies the changed ranges of the rows just outside each band into
    /// its halos.
    fn refresh_halos(&mut self, words: &[u64]) {
        let (layout, thief_changed) = (self.layout, &self.thief_changed);
        self.bands.par_iter_mut().for_each(|band| {
            for halo in [&mut band.above, &mut band.below].into_iter().flatten() {
                halo.refresh(layout, words, thief_changed);
            }
        });
    }
}
