//! The halo swap of a partitioned bit solve (`partition.rs`): in memory,
//! after every step a process sends its neighbours the changed words of
//! its edge rows' thief rows and the step's counts; out of core, after
//! every pass of `L` levels, the `L` rows on each side that they compute
//! as halo, all four bitsets over the words the pass changed, and the
//! counts of each level ([`Swap::swap_deep`]). Process 0's request for
//! band snapshots rides on the first word.

use std::collections::HashMap;
use std::ops::Range;

use super::band_checkpoint::GridBandSnapshot;
use super::kernel::Decisions;
use super::layout::{Layout, Span, Spans};
use super::run::Swap;
use super::{TL, TW};
use crate::error::{Error, Result};
use crate::snapshot::{BandSink, Due};
use crate::solve::checkpoint::GridSnapshot;

pub(crate) use crate::solve::common::Link;

/// The cop cells whose records a process keeps, of its band of grid rows
/// `rows[me]`: the band's and those of the `depth` rows on each side of
/// it, whose records its neighbours send (none for an empty band).
pub(super) fn kept_cells(
    layout: &Layout,
    rows: &[Range<usize>],
    me: usize,
    depth: usize,
) -> Range<usize> {
    let band = &rows[me];
    if band.is_empty() {
        let at = layout.row_cells[band.start] as usize;
        return at..at;
    }
    let (first, last) = (
        band.start.saturating_sub(depth),
        (band.end + depth).min(layout.height()),
    );
    layout.row_cells[first] as usize..layout.row_cells[last] as usize
}

/// The other processes as a run sees them: the link, the bytes sent at
/// each step, and the edge-row words as last sent (each receiver holds
/// them, so a step sends only the words that changed since); and the
/// band snapshots: process 0's sink decides when, and its answer goes
/// with the next swap to every process.
pub(super) struct Peers<'l> {
    pub(super) link: &'l mut dyn Link,
    /// The grid rows of every process's band, in process order.
    pub(super) rows: Vec<Range<usize>>,
    pub(super) bytes: Vec<u64>,
    /// Per cop cell of an edge row sent: its `TL` and `TW` rows as the
    /// receivers hold them.
    pub(super) sent: HashMap<usize, Vec<u64>>,
    /// Where this process saves its band.
    pub(super) sink: Option<&'l dyn BandSink>,
    /// Process 0: its sink asked for a snapshot, to be said in the next
    /// swap.
    pub(super) asked: bool,
    /// A swap since the last snapshot carried process 0's request: every
    /// process saves at the next level boundary.
    pub(super) due: bool,
    /// The level of the snapshot saved before the swap now ahead: when
    /// that swap completes, every process has saved it (each saves before
    /// it sends), so older snapshots may go.
    pub(super) unconfirmed: Option<u32>,
    /// Bands paged out of core: the halo rows on each side, `L` for `L`
    /// levels per pass ([`Swap::swap_deep`]); 0 in memory (the thief rows
    /// of one row, every step).
    pub(super) depth: usize,
}

/// Set in a message's first word (its count of stats, 1 or 2) when
/// process 0 asks every process to save its band at the next level
/// boundary: the request costs no byte.
const SAVE_FLAG: u64 = 1 << 63;

impl Peers<'_> {
    /// This step's save request, also kept in `due`; `None` for a lone
    /// process, which has no one to swap with and confirms its pending
    /// snapshot at once.
    fn take_ask(&mut self) -> Option<bool> {
        let ask = std::mem::take(&mut self.asked);
        self.due |= ask;
        if self.link.processes() > 1 {
            return Some(ask);
        }
        if let (Some(sink), Some(level)) = (self.sink, self.unconfirmed.take()) {
            sink.confirmed(0, level);
        }
        None
    }

    /// The edge rows of this band that other processes read, each once.
    fn rows_sent(&self, height: usize) -> Vec<usize> {
        let (me, processes) = (self.link.process(), self.link.processes());
        let all = &self.rows;
        let mut rows: Vec<usize> = (0..processes)
            .filter(|&q| q != me)
            .flat_map(|q| halo_rows(all, q, height))
            .filter(|&r| owner(all, r) == me)
            .collect();
        rows.sort_unstable();
        rows.dedup();
        rows
    }

    /// After a resume: the receivers hold the edge rows as saved (their
    /// own snapshots kept them), which are the words now in `words`: a
    /// word changes only inside its step's changed range, and every such
    /// range was sent.
    pub(super) fn resume_shadows(&mut self, layout: &Layout, words: &[u64]) {
        let (l, record) = (layout.words, layout.record());
        for r in self.rows_sent(layout.height()) {
            for p in layout.row(r) {
                let at = p * record;
                let mut shadow = Vec::with_capacity(2 * l);
                for kind in [TL, TW] {
                    shadow.extend_from_slice(&words[at + kind * l..at + (kind + 1) * l]);
                }
                self.sent.insert(p, shadow);
            }
        }
    }
}

/// Bytes of the messages `out` this process (`me`) sends: 8 a word plus
/// an 8-byte length each.
fn bytes_sent(me: usize, out: &[Vec<u64>]) -> u64 {
    out.iter()
        .enumerate()
        .filter(|&(q, _)| q != me)
        .map(|(_, m)| 8 + 8 * m.len() as u64)
        .sum()
}

/// Words of one [`Decisions`] in a message.
const STATS_WORDS: usize = 4;

/// The rows process `q` reads from outside its band `rows[q]`: the grid
/// row above it and the one below, where they exist.
fn halo_rows(rows: &[Range<usize>], q: usize, height: usize) -> Vec<usize> {
    halo_rows_at(rows, q, height, 0)
}

/// The rows `i` rows further out than [`halo_rows`], where they exist.
pub(super) fn halo_rows_at(rows: &[Range<usize>], q: usize, height: usize, i: usize) -> Vec<usize> {
    let band = &rows[q];
    if band.is_empty() {
        return Vec::new();
    }
    let mut need = Vec::with_capacity(2);
    if band.start > i {
        need.push(band.start - 1 - i);
    }
    if band.end + i < height {
        need.push(band.end + i);
    }
    need
}

/// The process whose band holds grid row `r`.
fn owner(rows: &[Range<usize>], r: usize) -> usize {
    rows.iter()
        .position(|band| band.contains(&r))
        .expect("every grid row is in a band")
}

fn pack_span(s: Span) -> u64 {
    u64::from(s.lo) | u64::from(s.hi) << 32
}

fn unpack_span(w: u64) -> Span {
    Span {
        lo: w as u32,
        hi: (w >> 32) as u32,
    }
}

impl Swap for Peers<'_> {
    /// One exchange: sends every other process the step's `stats` and
    /// what changed in the edge rows it reads from this band (`cells`),
    /// and writes what the others sent into `words` and `thief_changed`;
    /// `stats` become the cluster's.
    ///
    /// A cell of an edge row travels as its two changed ranges (`TL`,
    /// `TW`) and, for each, a bitmap over the range's words of those that
    /// differ from what was last sent, then those words: a level changes
    /// a few words in a range that spans the front.
    fn swap(
        &mut self,
        layout: &Layout,
        words: &mut [u64],
        thief_changed: &mut [Spans],
        cells: Range<usize>,
        stats: &mut [Decisions],
    ) -> Result<()> {
        let height = layout.height();
        // Each edge row once, whoever reads it: every reader of a row gets
        // every step's part of it, so one copy of what was sent serves all.
        let rows = self.rows_sent(height);
        let Some(ask) = self.take_ask() else {
            return Ok(());
        };
        let Peers {
            link,
            rows: all,
            bytes,
            sent,
            sink,
            due,
            unconfirmed,
            ..
        } = self;
        let (me, processes) = (link.process(), link.processes());
        let (l, record) = (layout.words, layout.record());
        let mut head = Vec::with_capacity(1 + STATS_WORDS * stats.len());
        head.push(stats.len() as u64 | if ask { SAVE_FLAG } else { 0 });
        for d in stats.iter() {
            head.extend([d.count, d.witness[0], d.witness[1], u64::from(d.tracked)]);
        }
        let mut parts: HashMap<usize, Vec<u64>> = HashMap::with_capacity(rows.len());
        for &r in &rows {
            let mut part = Vec::new();
            for p in layout.row(r) {
                debug_assert!(cells.contains(&p));
                let spans = thief_changed[p];
                part.extend([pack_span(spans[0]), pack_span(spans[1])]);
                let shadow = sent.entry(p).or_insert_with(|| vec![0; 2 * l]);
                for (k, kind) in [TL, TW].into_iter().enumerate() {
                    let span = spans[k].range();
                    let now = &words[p * record + kind * l..][span.clone()];
                    let before = &mut shadow[k * l..(k + 1) * l][span];
                    let map_at = part.len();
                    part.resize(map_at + now.len().div_ceil(64), 0);
                    for (j, (&w, old)) in now.iter().zip(before.iter_mut()).enumerate() {
                        if w != *old {
                            part[map_at + j / 64] |= 1 << (j % 64);
                            part.push(w);
                            *old = w;
                        }
                    }
                }
            }
            parts.insert(r, part);
        }
        let out: Vec<Vec<u64>> = (0..processes)
            .map(|q| {
                if q == me {
                    return Vec::new();
                }
                let mut message = head.clone();
                for r in halo_rows(all, q, height) {
                    if let Some(part) = parts.get(&r) {
                        message.extend_from_slice(part);
                    }
                }
                message
            })
            .collect();
        bytes.push(bytes_sent(me, &out));
        let received = link.exchange(out)?;
        // Every other process sent this step after saving the snapshot
        // this one saved last.
        if let (Some(sink), Some(level)) = (sink, unconfirmed.take()) {
            sink.confirmed(0, level);
        }
        let need = halo_rows(all, me, height);
        for (from, message) in received.iter().enumerate() {
            if from == me {
                continue;
            }
            let garbage = || Error::Peer {
                process: from,
                address: String::new(),
                message: "sent a message this solve cannot read (another build?)".into(),
            };
            let mut reader = Reader {
                words: message,
                at: 0,
            };
            reader.stats(due, stats).ok_or_else(garbage)?;
            for &r in need.iter().filter(|&&r| owner(all, r) == from) {
                for p in layout.row(r) {
                    let w = reader.take(2).ok_or_else(garbage)?;
                    let spans = [unpack_span(w[0]), unpack_span(w[1])];
                    for (k, kind) in [TL, TW].into_iter().enumerate() {
                        let span = spans[k].range();
                        if span.end > l {
                            return Err(garbage());
                        }
                        let map = reader.take(span.len().div_ceil(64)).ok_or_else(garbage)?;
                        let row = &mut words[p * record + kind * l..][span];
                        for (m, &bits) in map.iter().enumerate() {
                            let mut bits = bits;
                            while bits != 0 {
                                let j = 64 * m + bits.trailing_zeros() as usize;
                                bits &= bits - 1;
                                let word = reader.take(1).ok_or_else(garbage)?[0];
                                *row.get_mut(j).ok_or_else(garbage)? = word;
                            }
                        }
                    }
                    thief_changed[p] = spans;
                }
            }
            if reader.at != message.len() {
                return Err(garbage());
            }
        }
        Ok(())
    }

    /// A pass's exchange out of core: sends every other process the
    /// pass's `stats` and, for each of the `depth` rows on either side of
    /// its band that this band holds, every cell's four rows over the
    /// words that changed in the pass (`grown`, indexed from `cells.start`)
    /// and the ranges that changed at the pass's last level; writes what
    /// the others sent over the halo rows, which this process computed
    /// too but from rows it did not have (so they may lack bits; they
    /// never hold a wrong one, see `partition.rs`). One exchange per row
    /// depth, so that a message holds one grid row a side.
    fn swap_deep(
        &mut self,
        layout: &Layout,
        words: &mut [u64],
        [cop_changed, thief_changed]: [&mut [Spans]; 2],
        grown: &[[Span; 4]],
        cells: Range<usize>,
        stats: &mut [Decisions],
    ) -> Result<()> {
        let height = layout.height();
        let Some(ask) = self.take_ask() else {
            return Ok(());
        };
        let Peers {
            link,
            rows: all,
            bytes,
            sink,
            due,
            unconfirmed,
            depth,
            ..
        } = self;
        let (me, processes) = (link.process(), link.processes());
        let (l, record) = (layout.words, layout.record());
        let mut total = 0;
        for i in 0..(*depth).max(1) {
            let out: Vec<Vec<u64>> = (0..processes)
                .map(|q| {
                    if q == me {
                        return Vec::new();
                    }
                    let rows: Vec<usize> = halo_rows_at(all, q, height, i)
                        .into_iter()
                        .filter(|&r| owner(all, r) == me)
                        .collect();
                    // Sized up front: a message is a grid row of records
                    // a side, which the plan counts once.
                    let size = rows
                        .iter()
                        .flat_map(|&r| layout.row(r))
                        .map(|p| {
                            8 + grown[p - cells.start]
                                .iter()
                                .map(|s| s.range().len())
                                .sum::<usize>()
                        })
                        .sum::<usize>();
                    let mut message = Vec::with_capacity(1 + STATS_WORDS * stats.len() + size);
                    if i == 0 {
                        message.push(stats.len() as u64 | if ask { SAVE_FLAG } else { 0 });
                        for d in stats.iter() {
                            message.extend([
                                d.count,
                                d.witness[0],
                                d.witness[1],
                                u64::from(d.tracked),
                            ]);
                        }
                    }
                    for r in rows {
                        for p in layout.row(r) {
                            debug_assert!(cells.contains(&p));
                            let (cop, thief) = (cop_changed[p], thief_changed[p]);
                            let grown = grown[p - cells.start];
                            message.extend([cop[0], cop[1], thief[0], thief[1]].map(pack_span));
                            message.extend(grown.map(pack_span));
                            for (kind, span) in grown.iter().enumerate() {
                                message.extend_from_slice(
                                    &words[p * record + kind * l..][span.range()],
                                );
                            }
                        }
                    }
                    message
                })
                .collect();
            total += bytes_sent(me, &out);
            let received = link.exchange(out)?;
            if i == 0 {
                if let (Some(sink), Some(level)) = (&*sink, unconfirmed.take()) {
                    sink.confirmed(0, level);
                }
            }
            let need = halo_rows_at(all, me, height, i);
            for (from, message) in received.iter().enumerate() {
                if from == me {
                    continue;
                }
                let garbage = || {
                    Error::Peer {
                    process: from,
                    address: String::new(),
                    message: "sent a message this solve cannot read (another build, or other levels per pass?)".into(),
                }
                };
                let mut reader = Reader {
                    words: message,
                    at: 0,
                };
                if i == 0 {
                    reader.stats(due, stats).ok_or_else(garbage)?;
                }
                for &r in need.iter().filter(|&&r| owner(all, r) == from) {
                    for p in layout.row(r) {
                        let w = reader.take(8).ok_or_else(garbage)?;
                        let spans: Vec<Span> = w.iter().map(|&w| unpack_span(w)).collect();
                        if spans.iter().any(|s| !s.is_empty() && s.hi as usize > l) {
                            return Err(garbage());
                        }
                        cop_changed[p] = [spans[0], spans[1]];
                        thief_changed[p] = [spans[2], spans[3]];
                        for (kind, span) in spans[4..].iter().enumerate() {
                            let range = span.range();
                            let from = reader.take(range.len()).ok_or_else(garbage)?;
                            words[p * record + kind * l..][range].copy_from_slice(from);
                        }
                    }
                }
                if reader.at != message.len() {
                    return Err(garbage());
                }
            }
        }
        // Bytes by level: the pass's, at its last level.
        bytes.extend(std::iter::repeat_n(0, stats.len().saturating_sub(1)));
        bytes.push(total);
        Ok(())
    }

    fn save_due(&mut self, level: u32) -> bool {
        if self.link.process() == 0 {
            self.asked |= self.sink.is_some_and(|sink| sink.poll(level) != Due::No);
        }
        std::mem::take(&mut self.due)
    }

    fn save(
        &mut self,
        layout: &Layout,
        snapshot: &GridSnapshot<'_>,
        decided: &[u64],
    ) -> Result<()> {
        let Some(sink) = self.sink else {
            return Ok(());
        };
        let me = self.link.process();
        let band = &self.rows[me];
        let cells = layout.row_cells[band.start] as usize..layout.row_cells[band.end] as usize;
        let kept = kept_cells(layout, &self.rows, me, self.depth.max(1));
        let (record, per) = (layout.record(), 2 * layout.cells);
        let (cop, thief) = snapshot.spans.split_at(layout.cells);
        let spans = cop[kept.clone()]
            .iter()
            .chain(&thief[kept.clone()])
            .copied()
            .collect();
        let band = GridBandSnapshot {
            process: me as u64,
            processes: self.link.processes() as u64,
            cells: cells.start as u64..cells.end as u64,
            kept: kept.start as u64..kept.end as u64,
            state: snapshot.state,
            decided,
            bytes: &self.bytes,
            words: &snapshot.words[kept.start * record..kept.end * record],
            spans,
            dte: snapshot.dte.map(|t| &t[cells.start * per..cells.end * per]),
        };
        sink.save(&band)?;
        self.unconfirmed = Some(snapshot.state.level);
        Ok(())
    }
}

/// Reads a message's words in order.
struct Reader<'m> {
    words: &'m [u64],
    at: usize,
}

impl<'m> Reader<'m> {
    /// The next `n` words, if the message holds them.
    fn take(&mut self, n: usize) -> Option<&'m [u64]> {
        let part = self.words.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(part)
    }
    /// A message's head: the save flag (into `due`) and the sender's
    /// decisions of each level, merged into `stats`; `None` when the
    /// message is short or counts other levels.
    fn stats(&mut self, due: &mut bool, stats: &mut [Decisions]) -> Option<()> {
        let first = self.take(1)?[0];
        *due |= first & SAVE_FLAG != 0;
        if (first & !SAVE_FLAG) as usize != stats.len() {
            return None;
        }
        for d in stats.iter_mut() {
            let w = self.take(STATS_WORDS)?;
            *d = d.merge(Decisions {
                count: w[0],
                witness: [w[1], w[2]],
                tracked: w[3] != 0,
            });
        }
        Some(())
    }
}
