//! The swap of a partitioned k-cop solve (`partition.rs`): after each
//! level every process sends each other one the thief rows of its band
//! that changed and that the other reads (`band_reads`), as a bitmap of
//! the words that changed and those words, with the level's stats;
//! process 0's request for band snapshots rides on a stat word, and a
//! resume sends the band's thief rows whole once.

use std::ops::Range;

use super::level::Rows;
use crate::error::{Error, Result};
use crate::snapshot::BandSink;
use crate::solve::common::Link;

/// Words of a level's stats in a message: states decided, rows changed,
/// the least all-WIN rank, the least cops-to-move state decided (`rank *
/// n + thief`; `u64::MAX` for none), whether the start was decided (and
/// [`SAVE_FLAG`]).
pub(super) const STATS: usize = 5;

/// Set in the start's stat word when process 0 asks every process to
/// save its band after this level: the request costs no byte.
const SAVE_FLAG: u64 = 1 << 63;

/// A level's stats, this process's or (merged) the cluster's.
#[derive(Clone, Copy)]
pub(super) struct Stats {
    pub(super) decided: u64,
    pub(super) rows: u64,
    pub(super) full: u64,
    pub(super) first: u64,
    pub(super) start: bool,
    /// Every process saves its band after this level (process 0 asks).
    pub(super) save: bool,
}

impl Stats {
    fn words(self) -> [u64; STATS] {
        let save = if self.save { SAVE_FLAG } else { 0 };
        [
            self.decided,
            self.rows,
            self.full,
            self.first,
            u64::from(self.start) | save,
        ]
    }

    fn merge(&mut self, w: &[u64]) {
        self.decided += w[0];
        self.rows += w[1];
        self.full = self.full.min(w[2]);
        self.first = self.first.min(w[3]);
        self.start |= w[4] & !SAVE_FLAG != 0;
        self.save |= w[4] & SAVE_FLAG != 0;
    }
}

/// The swap of a level's changed thief rows and stats with the other
/// processes, and the confirmation of band snapshots.
pub(super) struct Swapper<'l> {
    pub(super) link: &'l mut dyn Link,
    pub(super) words: usize,
    pub(super) ranks: usize,
    pub(super) band: Range<usize>,
    /// Per process, the ranks whose thief rows it reads (`band_reads`): a
    /// row goes only to the processes that read it.
    pub(super) reads: Vec<Range<usize>>,
    /// Bytes sent after each level: 8 a word plus an 8-byte length a
    /// message.
    pub(super) bytes: Vec<u64>,
    /// Where this process saves its band.
    pub(super) sink: Option<&'l dyn BandSink>,
    /// The level of the snapshot saved before the swap now ahead: when
    /// that swap completes, every process has saved it (each saves before
    /// it sends), so older snapshots may go.
    pub(super) unconfirmed: Option<u32>,
}

impl Swapper<'_> {
    /// Per process, the band's rows that changed at this level and that
    /// it reads (`now` the old rows, `next` the new, `flags` which
    /// changed; `tl` then `tw`): per row its rank times 2 plus the side, a
    /// bitmap of the words that changed and those words. This process's
    /// own entry stays empty.
    pub(super) fn messages(&self, sides: [(&[u64], &[u64], &[u8]); 2]) -> Vec<Vec<u64>> {
        let words = self.words;
        self.for_readers(|rows, out| {
            for (side, &(now, next, flags)) in sides.iter().enumerate() {
                if flags.is_empty() {
                    continue;
                }
                for r in rows.clone().filter(|&r| flags[r] != 0) {
                    let span = r * words..(r + 1) * words;
                    put_row(out, (r, side), &now[span.clone()], &next[span]);
                }
            }
        })
    }

    /// One message per other process, the stats' room in front, `fill`ed
    /// with the rows of this band that the process reads.
    fn for_readers(&self, mut fill: impl FnMut(Range<usize>, &mut Vec<u64>)) -> Vec<Vec<u64>> {
        let me = self.link.process();
        let mut out = vec![Vec::new(); self.link.processes()];
        for (q, message) in out.iter_mut().enumerate().filter(|&(q, _)| q != me) {
            // The stats go in front ([`Swapper::send`]).
            message.resize(STATS, 0);
            let reads = &self.reads[q];
            fill(
                self.band.start.max(reads.start)..self.band.end.min(reads.end),
                message,
            );
        }
        out
    }

    /// Sends every other process `stats` and its message of
    /// [`Swapper::messages`] (`None`: no rows); `stats` become the
    /// cluster's. Returns what each process sent (this one's empty).
    pub(super) fn send(
        &mut self,
        stats: &mut Stats,
        messages: Option<Vec<Vec<u64>>>,
    ) -> Result<Vec<Vec<u64>>> {
        let (me, processes) = (self.link.process(), self.link.processes());
        if processes == 1 {
            self.bytes.push(0);
            self.confirm();
            return Ok(vec![Vec::new()]);
        }
        let mut out = messages.unwrap_or_else(|| vec![Vec::new(); processes]);
        let mut bytes = 0;
        for message in out
            .iter_mut()
            .enumerate()
            .filter(|&(q, _)| q != me)
            .map(|(_, m)| m)
        {
            message.resize(message.len().max(STATS), 0);
            message[..STATS].copy_from_slice(&stats.words());
            bytes += 8 + 8 * message.len() as u64;
        }
        self.bytes.push(bytes);
        let received = self.link.exchange(out)?;
        // Every other process sent this after saving the snapshot this
        // one saved last.
        self.confirm();
        for (from, words) in received.iter().enumerate().filter(|&(q, _)| q != me) {
            let head = words.get(..STATS).ok_or_else(|| garbage(from))?;
            stats.merge(head);
        }
        Ok(received)
    }

    /// Tells the sink that the snapshot saved last is held by every
    /// process.
    fn confirm(&mut self) {
        if let (Some(sink), Some(level)) = (self.sink, self.unconfirmed.take()) {
            sink.confirmed(0, level);
        }
    }

    /// After a resume, which read only the band's own rows: every process
    /// sends each other one its band's thief rows that the other reads
    /// (their nonzero words), so that each holds its reads again. Resending beats
    /// saving every process's replica: a resume is rare, snapshots come
    /// every few minutes, and each would write the whole thief bitsets
    /// instead of its share. Not counted in the bytes of any level.
    pub(super) fn replicate(&mut self, rows: &mut Rows) -> Result<()> {
        if self.link.processes() == 1 {
            return Ok(());
        }
        let words = self.words;
        let zeros = vec![0u64; words];
        let out = self.for_readers(|band, out| {
            for (side, set) in [&rows.tl, &rows.tw].into_iter().enumerate() {
                if set.is_empty() {
                    continue;
                }
                for r in band.clone() {
                    let row = &set[r * words..(r + 1) * words];
                    if row.iter().any(|&w| w != 0) {
                        put_row(out, (r, side), &zeros, row);
                    }
                }
            }
        });
        let received = self.link.exchange(out)?;
        self.apply(
            &received,
            [
                (&mut rows.tl, &mut rows.tl_changed),
                (&mut rows.tw, &mut rows.tw_changed),
            ],
        )
    }

    /// Writes the rows the others sent into `sides` (`tl` and its changed
    /// flags, then `tw`'s).
    pub(super) fn apply(
        &self,
        received: &[Vec<u64>],
        sides: [(&mut [u64], &mut [u8]); 2],
    ) -> Result<()> {
        let (words, me) = (self.words, self.link.process());
        let maps = words.div_ceil(64);
        let [(tl, tl_flags), (tw, tw_flags)] = sides;
        for (from, message) in received.iter().enumerate().filter(|&(q, _)| q != me) {
            let mut at = STATS;
            while at < message.len() {
                let tag = message[at];
                let (r, side) = ((tag >> 1) as usize, tag & 1);
                let (rows, flags) = if side == 0 {
                    (&mut *tl, &mut *tl_flags)
                } else {
                    (&mut *tw, &mut *tw_flags)
                };
                // Only a row this process reads, of another's band.
                let theirs = self.reads[me].contains(&r) && !self.band.contains(&r);
                if r >= self.ranks || !theirs || flags.is_empty() {
                    return Err(garbage(from));
                }
                let map = message
                    .get(at + 1..at + 1 + maps)
                    .ok_or_else(|| garbage(from))?;
                at += 1 + maps;
                let row = &mut rows[r * words..(r + 1) * words];
                for (m, &bits) in map.iter().enumerate() {
                    let mut bits = bits;
                    while bits != 0 {
                        let j = 64 * m + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        let word = *message.get(at).ok_or_else(|| garbage(from))?;
                        *row.get_mut(j).ok_or_else(|| garbage(from))? = word;
                        at += 1;
                    }
                }
                flags[r] = 1;
            }
        }
        Ok(())
    }
}

/// Appends row `r` of side `side` (0 `tl`, 1 `tw`) to `out`: its tag, a
/// bitmap of the words where `new` differs from `old`, those words.
fn put_row(out: &mut Vec<u64>, (r, side): (usize, usize), old: &[u64], new: &[u64]) {
    out.push((r as u64) << 1 | side as u64);
    let map = out.len();
    out.resize(map + new.len().div_ceil(64), 0);
    for (j, (&old, &new)) in old.iter().zip(new).enumerate() {
        if old != new {
            out[map + j / 64] |= 1 << (j % 64);
            out.push(new);
        }
    }
}

/// A message from `process` that this solve cannot read.
fn garbage(process: usize) -> Error {
    Error::Peer {
        process,
        address: String::new(),
        message: "sent a message this solve cannot read (another build?)".into(),
    }
}
