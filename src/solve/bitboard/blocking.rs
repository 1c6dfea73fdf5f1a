//! Out of core for the bit-parallel engine: several levels per pass over
//! the records (temporal blocking).
//!
//! When the bitsets (and the distance table) live in a scratch file and do
//! not fit under the memory cap, each pass over the file does `L` levels
//! at once, `L` chosen from the cap (`sizing.rs`). The levels run as a
//! pipeline down the grid rows: level `k + j` does its step at grid row
//! `t - LAG * j` while level `k` does row `t`. A level's step at row `r`
//! is the in-memory one (see the module docs of `mod.rs`): stage the cop
//! rows of row `r` (they read the thief rows of rows `r - 1 ..= r + 1`),
//! then update the thief rows of row `r - 1` and commit its staged cop
//! rows. Each level keeps its own two staging slots.
//!
//! Why a lag of two rows, and the order within a step: level `k + j + 1`
//! stages row `r - 2` from the thief rows of rows `r - 3 ..= r - 1`, which
//! must hold level `k + j` exactly. Level `k + j` updated rows `r - 3` and
//! `r - 2` in earlier steps and updates row `r - 1` in this one, so within
//! a step the levels go in order (level `k` stages and updates, then level
//! `k + 1`, ...), each in parallel over the cop cells of its row; and
//! level `k + j + 1` updates row `r - 3` only after staging row `r - 2`. A
//! lag of three would let every level of a step run at once, at the cost
//! of a third more rows resident (so fewer levels per pass and more I/O,
//! which is what bounds a solve out of core). The per-cell change ranges
//! need no second copy: a level reads a row's range of the level before
//! and replaces it in the same order as the in-memory sweep does.
//!
//! Memory: what is resident is the rows between the last level's step and
//! the first's (`LAG * L` grid rows) plus each level's staging slots (a
//! grid row's worth of cop rows), and the few rows of the pass's I/O
//! thread. The files are private mappings (`Paging::Explicit`): the I/O
//! thread maps the rows just ahead of the first level as private copies
//! (`MADV_POPULATE_WRITE`) and, as the last level leaves a row, writes
//! its changed pages to the file once and drops them, so the kernel never
//! writes back a page that later levels of the pass still change. The
//! rows further ahead are read ahead (`MADV_WILLNEED`), so the file is
//! read in order, once per pass.
//!
//! `sizing.rs`'s `blocking` sizes `L` from the cap; [`plan_storage`]
//! (super::super::plan_storage) asks it too, so the resident figure and
//! levels per pass it prints and the minimum it refuses below are the
//! engine's own.

use std::ops::Range;

use rayon::prelude::*;

use super::halo::ThiefRows;
use super::kernel::{stage_cells, update_cells, Context, Decisions};
use super::layout::{Layout, Span, Spans};
use super::sizing::{Blocking, IO_QUEUE, LAG};
use crate::storage::{Region, WordPager};

/// Grid rows read ahead of the first level of a pass.
const AHEAD: usize = 2;

/// Cop cells per parallel task within a grid row.
const CHUNK: usize = 8;

/// Words in the block of pages the kernel maps around a read fault
/// (`fault_around_bytes`, 64 KiB).
const FAULT_AROUND_WORDS: u64 = 8192;

/// A level's staging slots: the cop rows of two grid rows (`CW` then `CL`
/// per cell) and their word ranges.
struct Stage {
    staged: [Vec<u64>; 2],
    spans: [Vec<Spans>; 2],
}

/// The scratch files' pages: released behind a pass, read ahead of it and
/// mapped writable just before it (shared with the pass's I/O thread).
struct Files<'a> {
    pager: WordPager,
    dte: Option<&'a Region>,
    /// Cop cells whose pages are never released (a band's rows kept
    /// resident under its cap, [`Blocking::keep`]).
    kept: Range<usize>,
    /// Whether the distances' pages are mapped writable ahead of a pass
    /// as the records' are: not for a band, whose levels write few
    /// distances of the rows they change (a private copy made ahead is
    /// copied and written back whole, changed or not).
    prefault_dte: bool,
}

/// What is done with the pages of the records (and distances) of a
/// range of cop cells ([`Files::apply`]); a pass's I/O thread takes the
/// prefaults and releases in order.
enum Io {
    /// Start reading them into the page cache (`MADV_WILLNEED`).
    ReadAhead(Range<usize>),
    /// Map them writable before the first level of a pass reads them: a
    /// private mapping's page read first and written later is copied by a
    /// second fault that flushes every core's TLB.
    Prefault(Range<usize>),
    /// Write them back (a private mapping) and drop them, with the pages
    /// within a fault-around block ([`FAULT_AROUND_WORDS`]) before them,
    /// which a fault just after the release before maps again.
    Release(Range<usize>),
}

impl Files<'_> {
    /// Does `request` to the pages of its cop cells' records and
    /// distances.
    fn apply(&self, layout: &Layout, request: Io) {
        if let Io::Release(cells) = &request {
            let kept = &self.kept;
            if kept.start < kept.end && cells.start < kept.end && kept.start < cells.end {
                if cells.start < kept.start {
                    self.apply(layout, Io::Release(cells.start..kept.start));
                }
                if kept.end < cells.end {
                    self.apply(layout, Io::Release(kept.end..cells.end));
                }
                return;
            }
        }
        let (Io::ReadAhead(cells) | Io::Prefault(cells) | Io::Release(cells)) = &request;
        let (first, end) = (cells.start as u64, cells.end as u64);
        let record = layout.record() as u64;
        let words = first * record..end * record;
        // u16 distances, four entries a word.
        let per_cop = 2 * layout.cells as u64;
        let entries = first * per_cop..end * per_cop;
        match request {
            Io::ReadAhead(_) => {
                self.pager.will_need(words);
                self.dte.inspect(|t| t.will_need(entries, 2));
            }
            Io::Prefault(_) => {
                self.pager.prefault(words);
                if self.prefault_dte {
                    self.dte.inspect(|t| t.prefault(entries, 2));
                }
            }
            Io::Release(_) => {
                let behind = |r: Range<u64>, around| r.start.saturating_sub(around)..r.end;
                self.pager.release(behind(words, FAULT_AROUND_WORDS));
                let entries = behind(entries, 4 * FAULT_AROUND_WORDS);
                self.dte.inspect(|t| t.release(entries, 2));
            }
        }
    }
}

/// The out-of-core state of a solve: the scratch files' pages, and each
/// level's staging slots (one per level of a pass).
pub(crate) struct Blocked<'a> {
    pub(super) window_cells: usize,
    files: Files<'a>,
    stages: Vec<Stage>,
    /// The grid rows a pass solves: all of them, or a partitioned
    /// process's band ([`Blocked::band`]).
    rows: Range<usize>,
    /// The grid rows whose pages a pass maps, reads ahead and releases:
    /// `rows` and, in a band, the halo rows beside it, which the
    /// neighbours write and the band's first and last rows read.
    io_rows: Range<usize>,
    /// A partitioned band: a pass maps writable and reads ahead only the
    /// rows its levels write ([`written_runs`]), as most levels change few
    /// rows.
    pub(super) band: bool,
    /// The grid rows whose decisions count (and whose distances are
    /// written): `rows`, or a band's own rows without its halo rows.
    own: Range<usize>,
    /// A band: per cop cell of its own rows, the words of its four rows
    /// (`CW`, `CL`, `TL`, `TW`) that the last pass changed.
    pub(super) grown: Vec<[Span; 4]>,
}

impl<'a> Blocked<'a> {
    pub(crate) fn new(
        layout: &Layout,
        plan: &Blocking,
        pager: WordPager,
        dte: Option<&'a Region>,
    ) -> Blocked<'a> {
        let widest = layout.widest();
        let slot = widest * 2 * layout.words;
        let stages = (0..plan.levels)
            .map(|_| Stage {
                staged: [vec![0; slot], vec![0; slot]],
                spans: [
                    vec![[Span::EMPTY; 2]; widest],
                    vec![[Span::EMPTY; 2]; widest],
                ],
            })
            .collect();
        Blocked {
            window_cells: plan.window_cells,
            files: Files {
                pager,
                dte,
                kept: 0..0,
                prefault_dte: true,
            },
            stages,
            rows: 0..layout.height(),
            io_rows: 0..layout.height(),
            band: false,
            own: 0..layout.height(),
            grown: Vec::new(),
        }
    }

    /// As [`Blocked::new`], for a partitioned process's band of grid rows
    /// `rows` and the `depth` halo rows on each side of it, which a pass of
    /// `plan.levels` (at most `depth`) levels computes too: a halo row
    /// `i` rows out goes stale at level `depth - i + 1` of the pass, after
    /// the band's rows have read it for the last time.
    #[cfg(feature = "distributed")]
    pub(crate) fn band(
        layout: &Layout,
        plan: &Blocking,
        pager: WordPager,
        dte: Option<&'a Region>,
        rows: Range<usize>,
        depth: usize,
    ) -> Blocked<'a> {
        debug_assert!(plan.levels <= depth.max(1));
        let mut blocked = Blocked::new(layout, plan, pager, dte);
        let all = rows.start.saturating_sub(depth)..(rows.end + depth).min(layout.height());
        // The first rows, as many as `plan.keep` holds (all of them for a
        // band that fits its cap), stay resident from pass to pass.
        let per_cell = layout.record() as u64 * 8
            + if dte.is_some() {
                4 * layout.cells as u64
            } else {
                0
            };
        let first = layout.row_cells[all.start] as usize;
        let mut end = all.start;
        while end < all.end
            && (plan.whole
                || (layout.row_cells[end + 1] as usize - first) as u64 * per_cell <= plan.keep)
        {
            end += 1;
        }
        blocked.files.kept = first..layout.row_cells[end] as usize;
        blocked.files.prefault_dte = false;
        let own = layout.row_cells[rows.start] as usize..layout.row_cells[rows.end] as usize;
        blocked.grown = vec![[Span::EMPTY; 4]; own.len()];
        blocked.io_rows = all.clone();
        blocked.rows = all;
        blocked.own = rows;
        blocked.band = true;
        blocked
    }

    /// The cop cells a pass computes: all of them, or a band's with its
    /// halo rows.
    pub(super) fn cells(&self, layout: &Layout) -> Range<usize> {
        layout.row_cells[self.rows.start] as usize..layout.row_cells[self.rows.end] as usize
    }

    /// Writes back and drops the pages of the records (and distances) of
    /// cop cells `cells` (`Io::Release`).
    pub(super) fn release(&self, layout: &Layout, cells: Range<usize>) {
        self.files.apply(layout, Io::Release(cells));
    }

    /// The first error met writing rows back to the scratch files, if any
    /// (taken).
    pub(super) fn take_write_error(&self) -> Option<std::io::Error> {
        let files = &self.files;
        files
            .pager
            .take_write_error()
            .or_else(|| files.dte.and_then(Region::take_write_error))
    }

    /// One pass: levels `base.level ..` (as many as the plan holds), the
    /// stats of each. Its I/O thread writes back the rows behind the last
    /// level and maps the rows ahead of the first while the levels work.
    pub(super) fn pass(
        &mut self,
        base: &Context<'_>,
        words: &mut [u64],
        cop_changed: &mut [Spans],
        thief_changed: &mut [Spans],
    ) -> Vec<Decisions> {
        let layout = base.layout;
        // Rows `first..first + height` are solved (all of them, or a
        // band), rows `io` paged.
        let (first, height, io) = (self.rows.start, self.rows.len(), self.io_rows.clone());
        let (rows, band, own) = (self.rows.clone(), self.band, self.own.clone());
        let levels = self.stages.len();
        let contexts: Vec<Context<'_>> = (0..levels)
            .map(|j| Context {
                level: base.level + j as u32,
                ..*base
            })
            .collect();
        // A band's halo rows: no distances, no decisions counted.
        let halo_contexts: Vec<Context<'_>> = contexts
            .iter()
            .map(|ctx| Context {
                dte: None,
                track: None,
                ..*ctx
            })
            .collect();
        let own_first = layout.row_cells[own.start] as usize;
        let mut stats = vec![Decisions::NONE; levels];
        // The first cop cell of the solved rows' row `r` (`r` from 0).
        let at = |r: usize| layout.row_cells[first + r] as usize;
        let last = height + LAG * (levels - 1);
        let Blocked {
            files,
            stages,
            grown,
            ..
        } = self;
        grown.fill([Span::EMPTY; 4]);
        let (io_first, io_end) = (
            layout.row_cells[io.start] as usize,
            layout.row_cells[io.end] as usize,
        );
        let files = &*files;
        std::thread::scope(|scope| {
            let (queue, requests) = std::sync::mpsc::sync_channel::<Io>(IO_QUEUE);
            scope.spawn(move || {
                for request in requests {
                    files.apply(layout, request);
                }
            });
            // The I/O thread ends with the pass or with a panic in it.
            let ask = |request| {
                let _ = queue.send(request);
            };
            // Rows released, read ahead, and mapped writable (as cop
            // cells: a band's halo rows lie beyond its rows).
            let (mut released, mut advised, mut mapped) = (io_first, io_first, io_first);
            // The cop cell where row `r` starts, paged as far as the halo
            // row below.
            let io_at = |r: usize| if r >= height { io_end } else { at(r) };
            for t in 0..=last {
                // The first level reads rows up to t + 1 now; the I/O
                // thread maps the two after (a read fault maps the pages
                // around it too, read-only, so one row more than is read).
                let front = io_at(t + 4);
                if mapped < front {
                    if band {
                        let cells = mapped..front;
                        for run in
                            written_runs(layout, cells, &rows, levels, cop_changed, thief_changed)
                        {
                            ask(Io::Prefault(run));
                        }
                    } else {
                        ask(Io::Prefault(mapped..front));
                    }
                    mapped = front;
                }
                let ahead = io_at(t + 4 + AHEAD);
                if advised < ahead {
                    let cells = advised.max(front)..ahead;
                    if band {
                        for run in
                            written_runs(layout, cells, &rows, levels, cop_changed, thief_changed)
                        {
                            files.apply(layout, Io::ReadAhead(run));
                        }
                    } else {
                        files.apply(layout, Io::ReadAhead(cells));
                    }
                    advised = ahead;
                }
                // Level j + 1 stages after level j has updated (see the
                // module docs).
                for (j, ctx) in contexts.iter().enumerate() {
                    let Some(r) = t.checked_sub(LAG * j).filter(|&r| r <= height) else {
                        continue;
                    };
                    let stage = &mut stages[j];
                    if r < height {
                        stage_row(ctx, stage, first + r, words, thief_changed);
                    }
                    if r >= 1 {
                        let q = first + r - 1;
                        if !own.contains(&q) {
                            let ctx = &halo_contexts[j];
                            update_row(ctx, stage, q, words, cop_changed, thief_changed);
                            continue;
                        }
                        let s = update_row(ctx, stage, q, words, cop_changed, thief_changed);
                        stats[j] = stats[j].merge(s);
                        if band {
                            for p in layout.row(q) {
                                let (cop, thief) = (cop_changed[p], thief_changed[p]);
                                let g = &mut grown[p - own_first];
                                *g = [
                                    g[0].union(cop[0]),
                                    g[1].union(cop[1]),
                                    g[2].union(thief[0]),
                                    g[3].union(thief[1]),
                                ];
                            }
                        }
                    }
                }
                // The last level is done with the rows above its step's.
                let done = at(t.saturating_sub(LAG * (levels - 1)).min(height));
                if done > released {
                    ask(Io::Release(released..done));
                    released = done;
                }
            }
            // A band's halo row below, read by its last row.
            if io_end > released {
                ask(Io::Release(released..io_end));
            }
        });
        stats
    }
}

/// The cop cells of `cells` (whole grid rows) whose records a pass of
/// `levels` levels writes, in runs of consecutive rows: the rows of `band`
/// within `levels` grid rows of a row whose cop or thief rows changed in
/// the level before (a change reaches one grid row further each level).
/// The others are at most read, so a band's pass leaves them to the page
/// cache: mapping them writable would copy them and write them back
/// unchanged, a whole band's file every pass on a map whose levels change
/// a few rows (a winding corridor).
fn written_runs(
    layout: &Layout,
    cells: Range<usize>,
    band: &Range<usize>,
    levels: usize,
    cop: &[Spans],
    thief: &[Spans],
) -> Vec<Range<usize>> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    if cells.is_empty() {
        return runs;
    }
    let changed = |s: &Spans| !s[0].is_empty() || !s[1].is_empty();
    let row_of = |p: usize| layout.row_cells.partition_point(|&c| c as usize <= p) - 1;
    let height = layout.height();
    for r in row_of(cells.start)..=row_of(cells.end - 1) {
        if !band.contains(&r) {
            continue;
        }
        let near = layout.row_cells[r.saturating_sub(levels)] as usize
            ..layout.row_cells[(r + levels + 1).min(height)] as usize;
        let span = layout.row(r);
        if near
            .into_iter()
            .any(|p| changed(&cop[p]) || changed(&thief[p]))
        {
            match runs.last_mut() {
                Some(last) if last.end == span.start => last.end = span.end,
                _ => runs.push(span),
            }
        }
    }
    runs
}

/// A level (context `ctx`, staging slots `stage`) stages the cop rows of
/// grid row `r`.
fn stage_row(ctx: &Context<'_>, stage: &mut Stage, r: usize, words: &[u64], thief: &[Spans]) {
    let layout = ctx.layout;
    let rows = ThiefRows {
        records: words,
        changed: thief,
        first: 0,
        above: None,
        below: None,
        keep: None,
        record: layout.record(),
        words: layout.words,
    };
    let per_cell = 2 * layout.words;
    let cells = layout.row(r);
    let n = cells.len();
    let out = &mut stage.staged[r & 1][..n * per_cell];
    let spans = &mut stage.spans[r & 1][..n];
    out.par_chunks_mut(CHUNK * per_cell)
        .zip(spans.par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(c, (out, spans))| {
            let first = cells.start + c * CHUNK;
            stage_cells(ctx, first..first + spans.len(), &rows, out, spans);
        });
}

/// A level (context `ctx`, staging slots `stage`) updates the thief rows
/// and commits the cop rows of grid row `q`; returns its stats.
fn update_row(
    ctx: &Context<'_>,
    stage: &mut Stage,
    q: usize,
    words: &mut [u64],
    cop_changed: &mut [Spans],
    thief_changed: &mut [Spans],
) -> Decisions {
    let layout = ctx.layout;
    let (record, per_cell) = (layout.record(), 2 * layout.words);
    let cells = layout.row(q);
    let (first, n) = (cells.start, cells.len());
    let records = &mut words[cells.start * record..cells.end * record];
    let cop = &mut cop_changed[cells.clone()];
    let thief = &mut thief_changed[cells];
    let Stage { staged, spans } = stage;
    let staged = &mut staged[q & 1][..n * per_cell];
    let spans = &spans[q & 1][..n];
    records
        .par_chunks_mut(CHUNK * record)
        .zip(cop.par_chunks_mut(CHUNK))
        .zip(thief.par_chunks_mut(CHUNK))
        .zip(staged.par_chunks_mut(CHUNK * per_cell))
        .zip(spans.par_chunks(CHUNK))
        .enumerate()
        .map_init(
            || vec![0u64; per_cell],
            |scratch, (c, ((((records, cop), thief), staged), spans))| {
                update_cells(
                    ctx,
                    first + c * CHUNK,
                    records,
                    cop,
                    thief,
                    staged,
                    spans,
                    scratch,
                )
            },
        )
        .reduce(|| Decisions::NONE, Decisions::merge)
}
