//! A band of grid rows, the unit of parallel work in a level: its
//! staging buffers, the halo copies of the thief rows just outside it,
//! and the view ([`ThiefRows`]) through which its cop update reads either.

use std::ops::Range;

use super::layout::{Layout, Span, Spans};
use super::{TL, TW};

/// A copy of the thief rows of one grid row just outside a band.
pub(super) struct Halo {
    pub(super) cells: Range<usize>,
    /// `TL` then `TW` of each cell, `2 * words` per cell.
    pub(super) words: Vec<u64>,
    /// The word ranges of each cell's thief rows (`TL`, `TW`) that changed
    /// last level.
    pub(super) changed: Vec<Spans>,
}

impl Halo {
    pub(super) fn new(layout: &Layout, row: usize) -> Halo {
        let cells = layout.row(row);
        Halo {
            words: vec![0; cells.len() * 2 * layout.words],
            changed: vec![[Span::EMPTY; 2]; cells.len()],
            cells,
        }
    }

    /// Copies its rows whole, and their changed ranges, from a band's
    /// records (`records` and `changed` indexed from cop cell `first`).
    pub(super) fn copy_from(
        &mut self,
        layout: &Layout,
        records: &[u64],
        changed: &[Spans],
        first: usize,
    ) {
        let l = layout.words;
        for (i, p) in self.cells.clone().enumerate() {
            let local = p - first;
            self.changed[i] = changed[local];
            let record = &records[local * layout.record()..(local + 1) * layout.record()];
            self.words[2 * i * l..2 * (i + 1) * l].copy_from_slice(&record[TL * l..(TW + 1) * l]);
        }
    }

    /// Copies the ranges that changed last level from the records.
    pub(super) fn refresh(&mut self, layout: &Layout, records: &[u64], changed: &[Spans]) {
        let l = layout.words;
        for (i, p) in self.cells.clone().enumerate() {
            let spans = changed[p];
            self.changed[i] = spans;
            let record = &records[p * layout.record()..(p + 1) * layout.record()];
            for (k, kind) in [TL, TW].into_iter().enumerate() {
                let range = spans[k].range();
                let to = &mut self.words[(2 * i + k) * l..(2 * i + k + 1) * l];
                to[range.clone()].copy_from_slice(&record[kind * l..(kind + 1) * l][range]);
            }
        }
    }
}

/// A band of grid rows solved by one task per level, with its buffers.
pub(super) struct Band {
    pub(super) rows: Range<usize>,
    pub(super) cells: Range<usize>,
    pub(super) above: Option<Halo>,
    pub(super) below: Option<Halo>,
    /// Staged cop rows of two grid rows (`CW` then `CL` per cell) and
    /// their word ranges.
    pub(super) staged: [Vec<u64>; 2],
    pub(super) staged_span: [Vec<Spans>; 2],
    /// The same for the second level of a two-level sweep.
    pub(super) staged_next: [Vec<u64>; 2],
    pub(super) staged_next_span: [Vec<Spans>; 2],
    /// Two-level sweeps with a band above: the thief rows of the band's
    /// second grid row at the first level, kept for the second level's
    /// update of the first grid row (done after the halos are refreshed).
    pub(super) keep: Option<Halo>,
    /// Scratch rows for the thief update.
    pub(super) scratch: Vec<u64>,
}

impl Band {
    /// A band over grid rows `rows` with its halos and with staging
    /// buffers for rows of up to `widest` cells.
    pub(super) fn new(
        layout: &Layout,
        widest: usize,
        rows: Range<usize>,
        above: Option<Halo>,
        below: Option<Halo>,
    ) -> Band {
        let l = layout.words;
        Band {
            cells: layout.row_cells[rows.start] as usize..layout.row_cells[rows.end] as usize,
            rows,
            above,
            below,
            staged: [vec![0; widest * 2 * l], vec![0; widest * 2 * l]],
            staged_span: [
                vec![[Span::EMPTY; 2]; widest],
                vec![[Span::EMPTY; 2]; widest],
            ],
            staged_next: [Vec::new(), Vec::new()],
            staged_next_span: [Vec::new(), Vec::new()],
            keep: None,
            scratch: vec![0; 2 * l],
        }
    }
}

/// What a step of a band's sweep reads and writes besides the staging
/// buffers: the band's records and changed ranges, its halos and scratch.
pub(super) struct RowsOf<'b> {
    pub(super) records: &'b mut [u64],
    pub(super) cop_changed: &'b mut [Spans],
    pub(super) thief_changed: &'b mut [Spans],
    /// The band's first cop cell (the records are indexed from it).
    pub(super) first: usize,
    pub(super) above: Option<&'b Halo>,
    pub(super) below: Option<&'b Halo>,
    pub(super) kept: Option<&'b Halo>,
    /// Whether staging reads the kept copy instead of the records.
    pub(super) keep: bool,
    pub(super) scratch: &'b mut [u64],
}

/// The staging buffers of one level's sweep (two grid rows).
pub(super) struct Slots<'b> {
    pub(super) staged: &'b mut [Vec<u64>; 2],
    pub(super) spans: &'b mut [Vec<Spans>; 2],
}

impl Band {
    /// The band's buffers for a step: those of this level, or (`next`)
    /// of the next level of a two-level sweep.
    #[inline]
    pub(super) fn parts<'b>(
        &'b mut self,
        records: &'b mut [u64],
        cop_changed: &'b mut [Spans],
        thief_changed: &'b mut [Spans],
        next: bool,
    ) -> (RowsOf<'b>, Slots<'b>) {
        let (staged, spans) = if next {
            (&mut self.staged_next, &mut self.staged_next_span)
        } else {
            (&mut self.staged, &mut self.staged_span)
        };
        (
            RowsOf {
                records,
                cop_changed,
                thief_changed,
                first: self.cells.start,
                above: self.above.as_ref(),
                below: self.below.as_ref(),
                kept: self.keep.as_ref(),
                keep: false,
                scratch: &mut self.scratch,
            },
            Slots { staged, spans },
        )
    }

    /// Whether the band can run two-level sweeps: the next level's first
    /// part must leave out its first row (a band above) and last two rows
    /// (a band below) and still keep them apart.
    pub(super) fn two_levels_fit(&self) -> bool {
        self.rows.len() >= 5
    }

    /// Allocates the buffers of two-level sweeps.
    pub(super) fn enable_two_levels(&mut self, layout: &Layout, widest: usize) {
        let l = layout.words;
        self.staged_next = [vec![0; widest * 2 * l], vec![0; widest * 2 * l]];
        self.staged_next_span = [
            vec![[Span::EMPTY; 2]; widest],
            vec![[Span::EMPTY; 2]; widest],
        ];
        if self.above.is_some() {
            self.keep = Some(Halo::new(layout, self.rows.start + 1));
        }
    }
}

/// A band with its records and the changed ranges of its cop cells.
pub(super) type BandParts<'w> = (
    &'w mut Band,
    &'w mut [u64],
    &'w mut [Spans],
    &'w mut [Spans],
);

/// Cuts consecutive cop cells' `words` (`record` words each) and changed
/// ranges into the parts of `bands`, which cover them in order.
pub(super) fn split_bands<'w>(
    bands: &'w mut [Band],
    record: usize,
    words: &'w mut [u64],
    cop_changed: &'w mut [Spans],
    thief_changed: &'w mut [Spans],
) -> Vec<BandParts<'w>> {
    let mut parts = Vec::with_capacity(bands.len());
    let (mut rest, mut cop_rest, mut thief_rest) = (words, cop_changed, thief_changed);
    for band in bands {
        let len = band.cells.len();
        let (mine, more) = rest.split_at_mut(len * record);
        let (cop_mine, cop_more) = cop_rest.split_at_mut(len);
        let (thief_mine, thief_more) = thief_rest.split_at_mut(len);
        parts.push((band, mine, cop_mine, thief_mine));
        (rest, cop_rest, thief_rest) = (more, cop_more, thief_more);
    }
    parts
}

/// The thief-to-move rows a band's cop update reads: its own records, or
/// the halo copies of the grid rows just outside it.
pub(super) struct ThiefRows<'a> {
    pub(super) records: &'a [u64],
    pub(super) changed: &'a [Spans],
    pub(super) first: usize,
    pub(super) above: Option<&'a Halo>,
    pub(super) below: Option<&'a Halo>,
    /// A copy of some of the band's own rows that takes precedence over
    /// the records (see [`Band::keep`]).
    pub(super) keep: Option<&'a Halo>,
    pub(super) record: usize,
    pub(super) words: usize,
}

impl ThiefRows<'_> {
    #[inline]
    fn halo(&self, p: usize) -> (&Halo, usize) {
        for halo in [self.above, self.below].into_iter().flatten() {
            if halo.cells.contains(&p) {
                return (halo, p - halo.cells.start);
            }
        }
        unreachable!("cop cell {p} is neither in the band nor in a halo")
    }

    /// The kept copy of cop cell `p`'s rows, if there is one.
    #[inline]
    fn kept(&self, p: usize) -> Option<(&Halo, usize)> {
        self.keep
            .filter(|keep| keep.cells.contains(&p))
            .map(|keep| (keep, p - keep.cells.start))
    }

    #[inline]
    pub(super) fn changed(&self, p: usize) -> Spans {
        if let Some((keep, i)) = self.kept(p) {
            return keep.changed[i];
        }
        match p.checked_sub(self.first) {
            Some(local) if local < self.changed.len() => self.changed[local],
            _ => {
                let (halo, i) = self.halo(p);
                halo.changed[i]
            }
        }
    }

    /// Row `TL` (`k` = 0) or `TW` (`k` = 1) of cop cell `p`.
    #[inline]
    pub(super) fn row(&self, p: usize, k: usize) -> &[u64] {
        let l = self.words;
        if let Some((keep, i)) = self.kept(p) {
            return &keep.words[(2 * i + k) * l..(2 * i + k + 1) * l];
        }
        match p.checked_sub(self.first) {
            Some(local) if local < self.changed.len() => {
                let start = local * self.record + (TL + k) * l;
                &self.records[start..start + l]
            }
            _ => {
                let (halo, i) = self.halo(p);
                &halo.words[(2 * i + k) * l..(2 * i + k + 1) * l]
            }
        }
    }
}
