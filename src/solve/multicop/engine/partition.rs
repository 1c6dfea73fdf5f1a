//! The k-cop bit engine partitioned over processes: each process computes
//! the cops-to-move rows (`cw`, `cl`) and the thief-to-move rows (`tl`,
//! `tw`) of its band of cop multisets only, whole blocks of the same top
//! cell ([`band_tops`], balanced by rows), with this engine's kernels.
//!
//! The thief's step of a row reads only that row's cop rows, so `cw` and
//! `cl` stay in the band; the cops' step of a block reads the thief rows
//! of the multisets a joint move gives, whose top cell is near the
//! block's ([`band_reads`]: on a grid map, a grid row of top cells on
//! either side of the band, its halo; on a graph numbered at random,
//! often every rank). So each process keeps the thief rows it reads:
//! level 0's it computes itself (they are the terminal states), and after
//! each level every process sends each other one the rows of its band
//! that changed and that the other reads, as a bitmap of the words that
//! changed and those words, with the level's stats (states and rows
//! decided, the first all-WIN row, the first cops-to-move state decided,
//! whether the start was), so that every process adds up the same counts
//! and stops at the same level. The same kernels read the same rows at
//! the same levels as in one process, so values and distances equal the
//! local engine's.
//!
//! Each process maps the bitsets (and distances) of the whole state space
//! without reserving memory (`Region::zeroed_sparse`) and touches only its
//! band of the cops' rows and distances and the thief rows it reads, so
//! they cost it its share and its halo.
//!
//! The transport is the caller's ([`Link`]: `distributed/kbits.rs` over the
//! cluster's TCP connections).

use std::ops::Range;
use std::sync::atomic::{AtomicU16, AtomicU64};

use super::{Engine, KcopOptions};
use crate::error::{Error, Result};
use crate::games::arena::Arena;
use crate::games::multiset::multiset_count;
use crate::outcome::{Counts, Dte, Outcome};
use crate::solve::common::{thread_pool, Flow, Link, Observer, Progress};
use crate::solve::multicop::levels::Reporting;
use crate::solve::multicop::solution::KSolution;
use crate::solve::multicop::store::Words;
use crate::storage::Region;

/// The top cells of each of `processes` bands of the k-cop game on `n`
/// cells: consecutive ranges from 0 to `n`, cut where the ranks below
/// (the multisets whose top cell is lower) first reach an equal share.
pub(crate) fn band_tops(n: usize, k: usize, processes: usize) -> Vec<Range<usize>> {
    let ranks = u128::from(multiset_count(n, k));
    let processes = processes.max(1);
    let mut cuts = vec![0usize];
    let mut t = 0;
    for p in 1..processes {
        let share = ranks * p as u128 / processes as u128;
        while t < n && u128::from(multiset_count(t, k)) < share {
            t += 1;
        }
        cuts.push(t);
    }
    cuts.push(n);
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

/// The ranks of the multisets whose top cell is in `tops`.
pub(crate) fn tops_ranks(k: usize, tops: &Range<usize>) -> Range<u64> {
    multiset_count(tops.start, k)..multiset_count(tops.end, k)
}

/// The ranks whose thief rows the cops' moves from a band of blocks
/// `tops` read (`reach[c]`: the cells a cop on `c` moves to): those of
/// the multisets whose top cell a joint move can give. The cop on the top
/// cell `t` moves within `reach[t]` (or stays, lazily), so the new top is
/// at least the least of them; no cop is above `t`, so it is at most the
/// highest cell a cop on a cell up to `t` reaches. On a grid map that is
/// the band and a grid row of top cells on either side (its halo).
fn band_reads(reach: &[Vec<u32>], k: usize, tops: &Range<usize>) -> Range<u64> {
    if tops.is_empty() {
        return 0..0;
    }
    let low = tops
        .clone()
        .map(|t| reach[t].iter().map(|&c| c as usize).fold(t, usize::min))
        .min()
        .unwrap_or(tops.start);
    let high = reach[..tops.end]
        .iter()
        .enumerate()
        .map(|(c, to)| to.iter().map(|&v| v as usize).fold(c, usize::max))
        .max()
        .unwrap_or(tops.end - 1);
    tops_ranks(k, &(low.min(tops.start)..high.max(tops.end - 1) + 1))
}

/// The ranks whose thief rows each of `processes` processes reads in a
/// partitioned solve of the k-cop game on `arena` ([`band_reads`] of its
/// band): its band, and the rows it alone of the others' receives.
pub(crate) fn process_reads(arena: &Arena, k: usize, processes: usize) -> Vec<Range<u64>> {
    let n = arena.cells();
    let reach: Vec<Vec<u32>> = (0..n).map(|c| arena.cop_reach(c).to_vec()).collect();
    band_tops(n as usize, k, processes)
        .iter()
        .map(|tops| band_reads(&reach, k, tops))
        .collect()
}

/// What one process holds after a partitioned k-cop solve: the solution
/// of its band (its rows of the other processes' bands hold only their
/// thief rows) and what the cluster found.
pub(crate) struct KBand {
    sol: KSolution,
    ranks: Range<usize>,
    /// The states of this process's band.
    pub(crate) range: Range<u64>,
    /// Levels after level 0, the same on every process.
    pub(crate) levels: u32,
    /// The start's distance to end (the cluster's), if decided.
    pub(crate) start_dte: Option<u32>,
    /// States decided at each level in the whole cluster (the last, 0,
    /// ends the solve).
    pub(crate) decided_per_level: Vec<u64>,
    /// Bytes this process sent after each level (level 0 first).
    pub(crate) bytes_per_level: Vec<u64>,
}

impl KBand {
    /// Value of state `s` of the band for the player to move.
    pub(crate) fn outcome(&self, s: u64) -> Outcome {
        debug_assert!(self.range.contains(&s));
        self.sol.outcome(s)
    }

    /// Distance to end of state `s` of the band (`None`: a draw, or no
    /// table kept).
    pub(crate) fn dte(&self, s: u64) -> Option<Dte> {
        self.sol.state_value(s).1
    }

    /// Whether a distance table was kept.
    pub(crate) fn has_dte(&self) -> bool {
        self.sol.has_dte_table()
    }

    /// Values of states `range` (inside the band), packed as a table's
    /// values block holds them.
    pub(crate) fn fill_values(&self, range: Range<u64>, out: &mut [u8]) {
        self.sol.fill_value_codes(range, out);
    }

    /// Distances of states `range` (0 for draws).
    pub(crate) fn fill_dte(&self, range: Range<u64>, out: &mut [u16]) {
        self.sol.fill_distances(range, out);
    }

    /// WIN / LOSS / DRAW counts over the band's states.
    pub(crate) fn counts(&self) -> Counts {
        let words = self.sol.words;
        let span = self.ranks.start * words..self.ranks.end * words;
        let ones = |v: &[u64]| -> u64 {
            v.get(span.clone())
                .map_or(0, |v| v.iter().map(|w| u64::from(w.count_ones())).sum())
        };
        let (cw, cl, tl, tw) = (
            ones(&self.sol.cw),
            ones(&self.sol.cl),
            ones(&self.sol.tl),
            ones(&self.sol.tw),
        );
        let states = self.range.end - self.range.start;
        Counts {
            win: cw + tw,
            loss: cl + tl,
            draw: states - cw - tw - cl - tl,
        }
    }
}

/// Words of a level's stats in a message: states decided, rows changed,
/// the least all-WIN rank, the least cops-to-move state decided (`rank *
/// n + thief`; `u64::MAX` for none), whether the start was decided.
const STATS: usize = 5;

/// A level's stats, this process's or (merged) the cluster's.
#[derive(Clone, Copy)]
struct Stats {
    decided: u64,
    rows: u64,
    full: u64,
    first: u64,
    start: bool,
}

impl Stats {
    fn words(self) -> [u64; STATS] {
        [
            self.decided,
            self.rows,
            self.full,
            self.first,
            u64::from(self.start),
        ]
    }

    fn merge(&mut self, w: &[u64]) {
        self.decided += w[0];
        self.rows += w[1];
        self.full = self.full.min(w[2]);
        self.first = self.first.min(w[3]);
        self.start |= w[4] != 0;
    }
}

/// A bitset of `len` words mapped without reserving memory: only the
/// pages a process touches are resident.
fn sparse(len: usize, what: &str) -> Result<Words<u64>> {
    if len == 0 {
        return Ok(Words::Heap(Vec::new()));
    }
    Ok(Words::Mapped(Box::new(Region::zeroed_sparse::<AtomicU64>(
        len as u64, what,
    )?)))
}

/// Solves this process's band (`link.process()` of [`band_tops`] for
/// `link.processes()` processes) of the k-cop game on `arena` with
/// `options.cops` cops, on `workers` threads, with every band state's
/// distance when `options.dte_table` and the start's distance
/// (`options.start`); calls `observer` after each level with the
/// cluster's counts.
///
/// # Errors
/// [`Error::Alloc`] for the arrays, what the link meets, and
/// [`Error::Peer`] when a peer sends a message this solve cannot read.
pub(crate) fn solve_band(
    arena: &Arena,
    options: &KcopOptions,
    link: &mut dyn Link,
    workers: usize,
    observer: Option<&(dyn Fn(&Progress) + Sync)>,
) -> Result<KBand> {
    let k = options.cops;
    let mut engine = Engine::new(arena, k, None);
    let (me, processes) = (link.process(), link.processes());
    engine.tops = band_tops(engine.n, k, processes)[me].clone();
    let ranks = tops_ranks(k, &engine.tops);
    engine.band = ranks.start as usize..ranks.end as usize;
    let reads: Vec<Range<usize>> = band_tops(engine.n, k, processes)
        .iter()
        .map(|tops| {
            let r = band_reads(&engine.reach, k, tops);
            r.start as usize..r.end as usize
        })
        .collect();
    debug_assert_eq!(
        process_reads(arena, k, processes)[me],
        reads[me].start as u64..reads[me].end as u64
    );
    engine.reads = reads[me].clone();
    thread_pool(workers)?.install(|| engine.run_band(options, link, reads, observer))
}

impl Engine<'_> {
    /// The level loop of [`Engine::run`] on this engine's band, swapping
    /// the changed thief rows and the stats with the other processes
    /// after every level.
    fn run_band(
        &self,
        options: &KcopOptions,
        link: &mut dyn Link,
        reads: Vec<Range<usize>>,
        observer: Option<&(dyn Fn(&Progress) + Sync)>,
    ) -> Result<KBand> {
        let (n, words, ranks) = (self.n, self.words, self.ranks);
        let band = self.band.clone();
        let two = self.thief_can_win;
        let set = |on: bool, what: &str| sparse(if on { ranks * words } else { 0 }, what);
        let sets = [
            set(true, "cw")?,
            set(two, "cl")?,
            set(true, "tl")?,
            set(two, "tw")?,
        ];
        let next = [set(true, "tl (next level)")?, set(two, "tw (next level)")?];
        let dte = if options.dte_table {
            let region =
                Region::zeroed_sparse::<AtomicU16>((ranks * n * 2) as u64, "distance table")?;
            let mut table = Words::Mapped(Box::new(region));
            table[band.start * 2 * n..band.end * 2 * n].fill(u16::MAX);
            Some(table)
        } else {
            None
        };
        let mut rows = self.rows(sets, next, dte);
        let start = Self::start_of(options);
        let mut sol = self.empty_solution();
        sol.deepest_cops = (n > 0).then_some((0, 0));
        let mut swap = Swapper {
            link,
            words,
            ranks,
            band: band.clone(),
            reads,
            bytes: Vec::new(),
        };
        // The observer is told; it cannot stop a partitioned solve.
        let observe = observer.map(|o| {
            move |p: &Progress| {
                o(p);
                Flow::Continue
            }
        });
        let observe = observe.as_ref().map(|o| o as Observer<'_>);
        let mut reporting = Reporting::observing(observe, (ranks * n * 2) as u64);
        let (decided, full) = rows.terminal(self);
        let mut stats = Stats {
            decided,
            rows: 0,
            full: full.unwrap_or(u64::MAX),
            first: u64::MAX,
            start: self.start_decided(start, rows.sets()),
        };
        swap.send(&mut stats, None)?;
        self.noted(0, stats, &mut sol);
        reporting.level(0, stats.decided);
        let mut level = 0u32;
        let mut all = true;
        loop {
            // The message holds the new rows against the old ones: made
            // before the commit, applied by the others after theirs.
            let (done, message) = self.step(&mut rows, all, level, |r| {
                swap.messages([(&r.tl, &r.tl2, &r.tl_next), (&r.tw, &r.tw2, &r.tw_next)])
            });
            all = false;
            let mut stats = Stats {
                decided: done.decided(),
                rows: done.rows(),
                full: done.win.full.unwrap_or(u64::MAX),
                first: done.first().unwrap_or(u64::MAX),
                // The owner of the start's row decides both its sides.
                start: sol.start_dte.is_none() && self.start_decided(start, rows.sets()),
            };
            let received = swap.send(&mut stats, Some(message))?;
            swap.apply(
                &received,
                [
                    (&mut rows.tl, &mut rows.tl_changed),
                    (&mut rows.tw, &mut rows.tw_changed),
                ],
            )?;
            if stats.rows == 0 {
                // The quiet level that ends the solve.
                reporting.per_level.push(0);
                break;
            }
            level += 1;
            if stats.first != u64::MAX {
                sol.deepest_cops = Some((level, stats.first * 2));
            }
            self.noted(level, stats, &mut sol);
            reporting.level(level, stats.decided);
        }
        rows.finish(&mut sol, level);
        let per = 2 * n as u64;
        Ok(KBand {
            ranks: band.clone(),
            range: band.start as u64 * per..band.end as u64 * per,
            levels: level,
            start_dte: sol.start_dte,
            decided_per_level: reporting.per_level,
            bytes_per_level: swap.bytes,
            sol,
        })
    }
}

impl Engine<'_> {
    /// Whether the start (rank, thief, turn) is in this band and decided
    /// in `sets` (`cw, cl, tl, tw`).
    fn start_decided(&self, start: Option<(usize, usize, usize)>, sets: [&[u64]; 4]) -> bool {
        let Some((r, t, turn)) = start.filter(|s| self.band.contains(&s.0)) else {
            return false;
        };
        let words = self.words;
        let bit = |v: &[u64]| !v.is_empty() && v[r * words + t / 64] >> (t % 64) & 1 == 1;
        let (a, b) = if turn == 0 { (0, 1) } else { (2, 3) };
        bit(sets[a]) || bit(sets[b])
    }

    /// Notes what the cluster found at `level`: the first all-WIN row and
    /// the start's distance.
    fn noted(&self, level: u32, stats: Stats, sol: &mut KSolution) {
        if sol.placement.is_none() && stats.full != u64::MAX {
            let cops = crate::games::multiset::unrank_multiset(stats.full, self.k);
            sol.placement = Some((cops, level));
        }
        if stats.start && sol.start_dte.is_none() {
            sol.start_dte = Some(level);
        }
    }
}

/// The swap of a level's changed thief rows and stats with the other
/// processes.
struct Swapper<'l> {
    link: &'l mut dyn Link,
    words: usize,
    ranks: usize,
    band: Range<usize>,
    /// Per process, the ranks whose thief rows it reads ([`band_reads`]):
    /// a changed row goes only to the processes that read it.
    reads: Vec<Range<usize>>,
    /// Bytes sent after each level: 8 a word plus an 8-byte length a
    /// message.
    bytes: Vec<u64>,
}

impl Swapper<'_> {
    /// Per process, the band's rows that changed at this level and that
    /// it reads (`now` the old rows, `next` the new, `flags` which
    /// changed; `tl` then `tw`): per row its rank times 2 plus the side, a
    /// bitmap of the words that changed and those words. This process's
    /// own entry stays empty.
    fn messages(&self, sides: [(&[u64], &[u64], &[u8]); 2]) -> Vec<Vec<u64>> {
        let (words, me) = (self.words, self.link.process());
        let mut out = vec![Vec::new(); self.link.processes()];
        for (q, message) in out.iter_mut().enumerate().filter(|&(q, _)| q != me) {
            // The stats go in front ([`Swapper::send`]).
            message.resize(STATS, 0);
            let rows =
                self.band.start.max(self.reads[q].start)..self.band.end.min(self.reads[q].end);
            for (side, &(now, next, flags)) in sides.iter().enumerate() {
                if flags.is_empty() {
                    continue;
                }
                for r in rows.clone().filter(|&r| flags[r] != 0) {
                    let span = r * words..(r + 1) * words;
                    message.push((r as u64) << 1 | side as u64);
                    let map = message.len();
                    message.resize(map + words.div_ceil(64), 0);
                    for (j, (&old, &new)) in now[span.clone()].iter().zip(&next[span]).enumerate() {
                        if old != new {
                            message[map + j / 64] |= 1 << (j % 64);
                            message.push(new);
                        }
                    }
                }
            }
        }
        out
    }

    /// Sends every other process `stats` and its message of
    /// [`Swapper::messages`] (`None`: no rows); `stats` become the
    /// cluster's. Returns what each process sent (this one's empty).
    fn send(
        &mut self,
        stats: &mut Stats,
        messages: Option<Vec<Vec<u64>>>,
    ) -> Result<Vec<Vec<u64>>> {
        let (me, processes) = (self.link.process(), self.link.processes());
        if processes == 1 {
            self.bytes.push(0);
            return Ok(vec![Vec::new()]);
        }
        let mut out = messages.unwrap_or_else(|| vec![Vec::new(); processes]);
        let mut bytes = 0;
        for (_, message) in out.iter_mut().enumerate().filter(|&(q, _)| q != me) {
            message.resize(message.len().max(STATS), 0);
            message[..STATS].copy_from_slice(&stats.words());
            bytes += 8 + 8 * message.len() as u64;
        }
        self.bytes.push(bytes);
        let received = self.link.exchange(out)?;
        for (from, words) in received.iter().enumerate().filter(|&(q, _)| q != me) {
            let head = words.get(..STATS).ok_or_else(|| garbage(from))?;
            stats.merge(head);
        }
        Ok(received)
    }

    /// Writes the rows the others sent into `sides` (`tl` and its changed
    /// flags, then `tw`'s).
    fn apply(&self, received: &[Vec<u64>], sides: [(&mut [u64], &mut [u8]); 2]) -> Result<()> {
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
                let mine = self.reads[me].contains(&r) && !self.band.contains(&r);
                if r >= self.ranks || !mine || flags.is_empty() {
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

/// A message from `process` that this solve cannot read.
fn garbage(process: usize) -> Error {
    Error::Peer {
        process,
        address: String::new(),
        message: "sent a message this solve cannot read (another build?)".into(),
    }
}
