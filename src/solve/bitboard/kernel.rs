//! The level kernels: one band's part of a level (or of two levels in one
//! pass), word-wide logic over its records and staging buffers. The entry
//! point [`band_work`] is compiled for AVX2 and AVX-512 as well as the
//! baseline; everything below it is `#[inline(always)]` so that each clone
//! vectorises the whole sweep. `kernel/passes.rs` holds the out-of-core
//! entry points (one level's staging and update of one grid row, for
//! `blocking.rs`) over the same helpers.

use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

use super::halo::{Band, RowsOf, Slots, ThiefRows};
use super::layout::{Layout, Span, Spans};
use super::masks::MoveMasks;
use super::{CL, CW};

mod passes;
pub(super) use passes::{stage_cells, update_cells};

/// Decisions of one level (or part of it).
#[derive(Clone, Copy)]
pub(super) struct Decisions {
    pub(super) count: u64,
    /// Smallest state decided, per side (`u64::MAX` when none).
    pub(super) witness: [u64; 2],
    /// Whether the tracked state (the start) was decided.
    pub(super) tracked: bool,
}

impl Decisions {
    pub(super) const NONE: Decisions = Decisions {
        count: 0,
        witness: [u64::MAX; 2],
        tracked: false,
    };

    pub(super) fn merge(self, other: Decisions) -> Decisions {
        Decisions {
            count: self.count + other.count,
            witness: [
                self.witness[0].min(other.witness[0]),
                self.witness[1].min(other.witness[1]),
            ],
            tracked: self.tracked || other.tracked,
        }
    }
}

/// Which steps of a band the next level of a two-level sweep does in its
/// first part.
struct NextSteps {
    /// First row staged and updated.
    first: usize,
    last_staged: usize,
    last_updated: usize,
    /// Whether a band lies above.
    top: bool,
}

/// What a band does in a parallel step (see [`band_work`]).
#[derive(Clone, Copy)]
pub(super) enum BandStep<'c, 'a> {
    /// One level ([`Context::band`]).
    Level,
    /// The first part of a two-level sweep, with the next level's context
    /// ([`Context::sweep_band`]).
    Sweep(&'c Context<'a>),
    /// The second part ([`Context::finish_band`], at the context's level).
    Finish,
}

/// One band's part of a parallel step, compiled for AVX2 and AVX-512 as
/// well as the baseline and chosen at run time (the word loops are
/// vectorised, the counts use `popcnt`). Returns the stats of the step's
/// levels (the second is empty for one level).
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512bw+avx512vl+avx2+popcnt+bmi1+bmi2+lzcnt",
    "x86_64+avx2+popcnt+bmi1+bmi2+lzcnt"
))]
pub(super) fn band_work<'c, 'a>(
    ctx: &Context<'a>,
    work: BandStep<'c, 'a>,
    band: &mut Band,
    records: &mut [u64],
    cop_changed: &mut [Spans],
    thief_changed: &mut [Spans],
) -> [Decisions; 2] {
    match work {
        BandStep::Level => [
            ctx.band(band, records, cop_changed, thief_changed),
            Decisions::NONE,
        ],
        BandStep::Sweep(next) => ctx.sweep_band(next, band, records, cop_changed, thief_changed),
        BandStep::Finish => [
            ctx.finish_band(band, records, cop_changed, thief_changed),
            Decisions::NONE,
        ],
    }
}

/// What every band reads during a level.
#[derive(Clone, Copy)]
pub(super) struct Context<'a> {
    pub(super) layout: &'a Layout,
    pub(super) masks: &'a MoveMasks,
    pub(super) dte: Option<&'a [AtomicU16]>,
    pub(super) level: u32,
    /// The state whose deciding level is reported (the start), as cop
    /// cell, turn, row word and bit.
    pub(super) track: Option<(usize, u64, usize, u64)>,
}

impl Context<'_> {
    /// One level over one band, in place (see the module docs for why the
    /// staging keeps the levels apart).
    #[inline(always)]
    fn band(
        &self,
        band: &mut Band,
        records: &mut [u64],
        cop_changed: &mut [Spans],
        thief_changed: &mut [Spans],
    ) -> Decisions {
        let mut stats = Decisions::NONE;
        let rows = band.rows.clone();
        let (mut at, mut slots) = band.parts(records, cop_changed, thief_changed, false);
        for r in rows.start..=rows.end {
            self.row_step(
                &mut at,
                &mut slots,
                r,
                r < rows.end,
                r > rows.start,
                &mut stats,
            );
        }
        stats
    }

    /// The first part of a two-level sweep over one band: this level (as
    /// [`Context::band`]) with the next level (`next`) two grid rows
    /// behind it, while the rows it reads are still in cache. The next
    /// level leaves out the grid rows that read a neighbouring band's
    /// rows of this level ([`Context::finish_band`] does them once the
    /// halos hold this level).
    #[inline(always)]
    fn sweep_band(
        &self,
        next: &Context<'_>,
        band: &mut Band,
        records: &mut [u64],
        cop_changed: &mut [Spans],
        thief_changed: &mut [Spans],
    ) -> [Decisions; 2] {
        let mut stats = [Decisions::NONE; 2];
        let rows = band.rows.clone();
        let (top, bottom) = (band.above.is_some(), band.below.is_some());
        // The next level's steps: staging row r and updating row r - 1.
        let first = rows.start + usize::from(top);
        let last_staged = rows.end - 1 - usize::from(bottom);
        let last_updated = rows.end - 1 - 2 * usize::from(bottom);
        let plan = NextSteps {
            first,
            last_staged,
            last_updated,
            top,
        };
        let steps = first..last_updated + 2;
        for r in rows.start..=rows.end {
            let (mut at, mut slots) = band.parts(records, cop_changed, thief_changed, false);
            self.row_step(
                &mut at,
                &mut slots,
                r,
                r < rows.end,
                r > rows.start,
                &mut stats[0],
            );
            // The next level stages row r - 2 once this level has updated
            // the thief rows of row r - 1 (during step r).
            if r >= 2 && steps.contains(&(r - 2)) {
                next.next_step(
                    &plan,
                    band,
                    records,
                    cop_changed,
                    thief_changed,
                    r - 2,
                    &mut stats[1],
                );
            }
        }
        for r in (rows.end.saturating_sub(1)).max(steps.start)..steps.end {
            next.next_step(
                &plan,
                band,
                records,
                cop_changed,
                thief_changed,
                r,
                &mut stats[1],
            );
        }
        stats
    }

    /// Step `r` of the next level in [`Context::sweep_band`].
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn next_step(
        &self,
        plan: &NextSteps,
        band: &mut Band,
        records: &mut [u64],
        cop_changed: &mut [Spans],
        thief_changed: &mut [Spans],
        r: usize,
        stats: &mut Decisions,
    ) {
        if plan.top && r == band.rows.start + 2 {
            // The band's second row is about to move on a level: keep it
            // for the first row's update.
            let first = band.cells.start;
            let keep = band.keep.as_mut().expect("a two-level band below another");
            keep.copy_from(self.layout, records, thief_changed, first);
        }
        let (mut at, mut slots) = band.parts(records, cop_changed, thief_changed, true);
        let update = r > plan.first && r - 1 <= plan.last_updated;
        self.row_step(&mut at, &mut slots, r, r <= plan.last_staged, update, stats);
    }

    /// The second part of a two-level sweep over one band, at the next
    /// level, once the halos hold the first level: the last two grid rows
    /// (when a band lies below) and the first one (when a band lies
    /// above, reading its second row from the copy kept before it moved
    /// on).
    #[inline(always)]
    fn finish_band(
        &self,
        band: &mut Band,
        records: &mut [u64],
        cop_changed: &mut [Spans],
        thief_changed: &mut [Spans],
    ) -> Decisions {
        let mut stats = Decisions::NONE;
        let rows = band.rows.clone();
        let (top, bottom) = (band.above.is_some(), band.below.is_some());
        let (mut at, mut slots) = band.parts(records, cop_changed, thief_changed, true);
        if bottom {
            self.row_step(&mut at, &mut slots, rows.end - 1, true, true, &mut stats);
            self.row_step(&mut at, &mut slots, rows.end, false, true, &mut stats);
        }
        if top {
            at.keep = true;
            self.row_step(&mut at, &mut slots, rows.start, true, false, &mut stats);
            at.keep = false;
            self.row_step(&mut at, &mut slots, rows.start + 1, false, true, &mut stats);
        }
        stats
    }

    /// One step of a level's sweep over a band: stages the cop rows of
    /// grid row `r` (when `stage`) and updates the thief rows and commits
    /// the cop rows of grid row r - 1 (when `update`).
    ///
    /// A cell of row r - 1 is updated as soon as the last cop cell of row
    /// r that reads it is staged: the cop cells of the next row read it
    /// from at most one column away, so it is ready once a cell two
    /// columns right of it is staged. Done that early, its rows are still
    /// in cache from the staging.
    #[inline(always)]
    fn row_step(
        &self,
        at: &mut RowsOf<'_>,
        slots: &mut Slots<'_>,
        r: usize,
        stage: bool,
        update: bool,
        stats: &mut Decisions,
    ) {
        let layout = self.layout;
        let l = layout.words;
        let behind = if update { layout.row(r - 1) } else { 0..0 };
        let mut next = behind.start;
        // Row r stages into one slot while row r - 1 commits from the
        // other.
        let ([even], [odd]) = slots.staged.split_at_mut(1) else {
            unreachable!("two staging slots")
        };
        let ([even_span], [odd_span]) = slots.spans.split_at_mut(1) else {
            unreachable!("two staging slots")
        };
        let (out, out_span, done, done_span) = if r & 1 == 0 {
            (even, even_span, odd, &*odd_span)
        } else {
            (odd, odd_span, even, &*even_span)
        };
        if stage {
            for (i, p) in layout.row(r).enumerate() {
                let thief_rows = ThiefRows {
                    records: &*at.records,
                    changed: &*at.thief_changed,
                    first: at.first,
                    above: at.above,
                    below: at.below,
                    keep: if at.keep { at.kept } else { None },
                    record: layout.record(),
                    words: l,
                };
                out_span[i] = self.cop_rows(p, &thief_rows, &mut out[i * 2 * l..(i + 1) * 2 * l]);
                let reach = layout.pos[p] as usize;
                while next < behind.end && layout.pos[next] as usize + layout.width < reach {
                    self.update_cell(at, next, next - behind.start, done, done_span, stats);
                    next += 1;
                }
            }
        }
        for q in next..behind.end {
            self.update_cell(at, q, q - behind.start, done, done_span, stats);
        }
    }

    /// Updates the thief rows of cop cell `q` (the `i`-th of its grid
    /// row) and commits its staged cop rows from `staged` / `spans`.
    #[inline(always)]
    fn update_cell(
        &self,
        at: &mut RowsOf<'_>,
        q: usize,
        i: usize,
        staged: &mut [u64],
        spans: &[Spans],
        stats: &mut Decisions,
    ) {
        let layout = self.layout;
        let (l, local) = (layout.words, q - at.first);
        let s = self.update_record(
            q,
            &mut at.records[local * layout.record()..(local + 1) * layout.record()],
            &mut at.cop_changed[local],
            &mut at.thief_changed[local],
            &mut staged[i * 2 * l..(i + 1) * 2 * l],
            spans[i],
            at.scratch,
        );
        *stats = stats.merge(s);
    }

    /// Updates cop cell `q`'s thief rows in its `record` and commits its
    /// staged cop rows (`staged`, over `spans`), replacing its changed
    /// ranges; the thief rows read the cop rows of the level before, so
    /// they go first.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn update_record(
        &self,
        q: usize,
        record: &mut [u64],
        cop_changed: &mut Spans,
        thief_changed: &mut Spans,
        staged: &mut [u64],
        spans: Spans,
        scratch: &mut [u64],
    ) -> Decisions {
        let (span, thief) = self.thief_rows(q, record, *cop_changed, scratch);
        *thief_changed = span;
        let (span, cop) = self.commit_cop_rows(q, record, staged, spans);
        *cop_changed = span;
        thief.merge(cop)
    }

    /// Computes cop cell `p`'s new cop-to-move rows (`CW` then `CL`, in
    /// `out`) over the words where a row they read changed last level.
    ///
    /// `CW` is an OR, so it only needs the words of each target's `TL`
    /// that changed (the others are in `CW` already); `CL` is an AND and
    /// needs every target over the union of the changed words.
    #[inline(always)]
    fn cop_rows(&self, p: usize, thief_rows: &ThiefRows<'_>, out: &mut [u64]) -> Spans {
        let l = self.layout.words;
        let targets = &self.masks.cop[p];
        let mut spans = [Span::EMPTY; 2];
        for &to in targets {
            let changed = thief_rows.changed(to as usize);
            spans[0] = spans[0].union(changed[0]);
            spans[1] = spans[1].union(changed[1]);
        }
        let (win, loss) = out.split_at_mut(l);
        if !spans[0].is_empty() {
            win[spans[0].range()].fill(0);
            for &to in targets {
                let range = thief_rows.changed(to as usize)[0].range();
                let tl = thief_rows.row(to as usize, 0);
                for (w, &a) in win[range.clone()].iter_mut().zip(&tl[range]) {
                    *w |= a;
                }
            }
        }
        if !spans[1].is_empty() {
            let range = spans[1].range();
            let loss = &mut loss[range.clone()];
            loss.fill(!0);
            for &to in targets {
                let tw = thief_rows.row(to as usize, 1);
                for (l, &b) in loss.iter_mut().zip(&tw[range.clone()]) {
                    *l &= b;
                }
            }
        }
        spans
    }

    /// Commits staged cop rows into the record of cop cell `p`.
    #[inline(always)]
    fn commit_cop_rows(
        &self,
        p: usize,
        record: &mut [u64],
        staged: &mut [u64],
        spans: Spans,
    ) -> (Spans, Decisions) {
        let l = self.layout.words;
        let bit = self.layout.pos[p] as usize;
        let mut changed = [Span::EMPTY; 2];
        let mut stats = Decisions::NONE;
        for (k, kind) in [CW, CL].into_iter().enumerate() {
            let range = spans[k].range();
            let row = &mut record[kind * l..(kind + 1) * l][range.clone()];
            let staged = &mut staged[k * l..(k + 1) * l];
            // The capture (cop on the thief) is decided at level 0.
            if range.contains(&(bit / 64)) {
                staged[bit / 64] &= !(1u64 << (bit % 64));
            }
            let staged = &mut staged[range.clone()];
            changed[k] = self.merge_new(p, 0, range.start, row, staged, &mut stats);
        }
        (changed, stats)
    }

    /// Updates cop cell `p`'s thief-to-move rows from its cop-to-move rows
    /// (not yet committed this level), over the words that a thief move
    /// can carry a change of last level to.
    #[inline(always)]
    fn thief_rows(
        &self,
        p: usize,
        record: &mut [u64],
        cop_changed: Spans,
        scratch: &mut [u64],
    ) -> (Spans, Decisions) {
        let layout = self.layout;
        let l = layout.words;
        let (cop, thief) = record.split_at_mut(2 * l);
        let bit = layout.pos[p] as usize;
        let mut changed = [Span::EMPTY; 2];
        let mut stats = Decisions::NONE;
        // Attractor 0: TL is the AND over thief moves of the shifted CW (a
        // missing move counts as won); attractor 1: TW is the OR over
        // thief moves of the shifted CL.
        for k in 0..2 {
            let span = cop_changed[k].widen(layout.margin, layout.span);
            if span.is_empty() {
                continue;
            }
            let range = span.range();
            let len = range.len();
            let from_row = &cop[k * l..(k + 1) * l];
            let acc = &mut scratch[..len];
            acc.fill(if k == 0 { !0 } else { 0 });
            for (delta, moves) in &self.masks.thief {
                // Word w of the row shifted by `delta` bits is made of
                // words w + q and w + q + 1; the padding keeps both inside
                // the row.
                let q = delta.div_euclid(64);
                let s = delta.rem_euclid(64) as u32;
                let from = (span.lo as isize + q) as usize;
                let (low, high) = (
                    &from_row[from..from + len],
                    &from_row[from + 1..from + len + 1],
                );
                let moves = &moves[range.clone()];
                if k == 0 {
                    for (((a, &x0), &x1), &m) in acc.iter_mut().zip(low).zip(high).zip(moves) {
                        *a &= ((x0 >> s) | ((x1 << (63 - s)) << 1)) | !m;
                    }
                } else {
                    for (((a, &x0), &x1), &m) in acc.iter_mut().zip(low).zip(high).zip(moves) {
                        *a |= ((x0 >> s) | ((x1 << (63 - s)) << 1)) & m;
                    }
                }
            }
            // A thief never wins standing on the cop.
            if k == 1 && range.contains(&(bit / 64)) {
                acc[bit / 64 - range.start] &= !(1u64 << (bit % 64));
            }
            let row = &mut thief[k * l..(k + 1) * l][range.clone()];
            changed[k] = self.merge_new(p, 1, range.start, row, acc, &mut stats);
        }
        (changed, stats)
    }

    /// ORs the open bits of `new` (words `first..` of a row) into `row`,
    /// leaves in `new` the bits that were not set before, accounts for
    /// them and returns the words where there were any.
    ///
    /// The first pass only reads `row`: most words bring nothing new, and
    /// storing them anyway would dirty (and write back) every cache line
    /// of the record the level looks at.
    #[inline(always)]
    fn merge_new(
        &self,
        p: usize,
        turn: u64,
        first: usize,
        row: &mut [u64],
        new: &mut [u64],
        stats: &mut Decisions,
    ) -> Span {
        let open = &self.masks.open[first..first + row.len()];
        let mut any = 0;
        for ((&r, n), &o) in row.iter().zip(new.iter_mut()).zip(open) {
            let fresh = *n & o & !r;
            *n = fresh;
            any |= fresh;
        }
        if any == 0 {
            return Span::EMPTY;
        }
        let lo = new.iter().position(|&f| f != 0).unwrap_or(0);
        let hi = new.iter().rposition(|&f| f != 0).map_or(0, |i| i + 1);
        let mut count = 0;
        for (r, &fresh) in row[lo..hi].iter_mut().zip(&new[lo..hi]) {
            if fresh != 0 {
                *r |= fresh;
            }
            count += u64::from(fresh.count_ones());
        }
        stats.count += count;
        if let Some((tp, turn_t, w, bit)) = self.track {
            if tp == p && turn_t == turn && (first + lo..first + hi).contains(&w) {
                stats.tracked |= new[w - first] & bit != 0;
            }
        }
        // States grow with the bit position: the first fresh bit is the
        // call's smallest state.
        let side = turn as usize;
        let smallest = self.state(p, first + lo, new[lo].trailing_zeros(), turn);
        stats.witness[side] = stats.witness[side].min(smallest);
        if let Some(table) = self.dte {
            let dte = self.level.min(u32::from(u16::MAX)) as u16;
            for (i, &fresh) in new[lo..hi].iter().enumerate() {
                let mut rest = fresh;
                while rest != 0 {
                    let state = self.state(p, first + lo + i, rest.trailing_zeros(), turn);
                    table[state as usize].store(dte, Relaxed);
                    rest &= rest - 1;
                }
            }
        }
        Span {
            lo: (first + lo) as u32,
            hi: (first + hi) as u32,
        }
    }

    /// The state of cop cell `p` whose thief stands at bit `bit` of row
    /// word `w`, side `turn`.
    #[inline(always)]
    fn state(&self, p: usize, w: usize, bit: u32, turn: u64) -> u64 {
        let layout = self.layout;
        let thief = layout.id_at[w * 64 + bit as usize] as u64;
        (p as u64 * layout.cells as u64 + thief) * 2 + turn
    }
}
