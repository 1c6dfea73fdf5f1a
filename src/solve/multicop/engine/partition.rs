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
//! Out of core ([`KcopStorage`] with a scratch folder) the band pages as
//! a local solve does (`store.rs`): its plan ([`kcop_band_plan`]) moves
//! the largest of its arrays, the band's distances first, then its
//! bitsets, the thief rows it reads last, into scratch files until the
//! rest fits under the cap; each such file holds the array's band (or
//! reads) alone, mapped in place inside the sparse mapping
//! (`Region::sparse_with_file`), never the state space's; and the local
//! engine's pager drops the files' pages whenever the process's resident
//! set passes the cap's threshold. A level then reads and writes the
//! band's rows in its files once, and the thief rows it reads as the
//! cops' moves reach them; the swap and the snapshots read and write them
//! as in memory.
//!
//! The level step is the local engine's (`level.rs`); the swap is in
//! `swap.rs`, and the band snapshots every process saves after the same
//! levels, and resumes from, in `band_save.rs`. The transport is the
//! caller's ([`Link`]: `distributed/kbits.rs` over the cluster's TCP
//! connections).

use std::ops::Range;
use std::sync::atomic::{AtomicU16, AtomicU64};

use super::band_save::Ledger;
use super::level::Rows;
use super::swap::{Stats, Swapper};
use super::{Engine, KcopOptions};
use crate::error::Result;
use crate::games::arena::Arena;
use crate::games::multiset::multiset_count;
use crate::outcome::{Counts, Dte, Outcome};
use crate::snapshot::Due;
use crate::solve::bitboard::partition::Saving;
use crate::solve::common::{thread_pool, Flow, Link, Observer, Progress};
use crate::solve::multicop::levels::Reporting;
use crate::solve::multicop::solution::KSolution;
use crate::solve::multicop::store::{kcop_band_plan, pager_for, KcopStorage, Words};
use crate::storage::pager::Pager;

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

/// Solves this process's band (`link.process()` of [`band_tops`] for
/// `link.processes()` processes) of the k-cop game on `arena` with
/// `options.cops` cops, on `workers` threads, with every band state's
/// distance when `options.dte_table` and the start's distance
/// (`options.start`); calls `observer` after each level with the
/// cluster's counts; saves its band into `saving.sink` after the levels
/// process 0's sink asks for, and resumes from `saving.resume` (every
/// process from its snapshot of the same level) (`band_save.rs`); with
/// `storage` its arrays where [`kcop_band_plan`] puts them, paged under
/// its cap.
///
/// # Errors
/// [`Error::Alloc`](crate::Error::Alloc) for the arrays,
/// [`Error::Scratch`](crate::Error::Scratch) for their files,
/// [`Error::TooLarge`](crate::Error::TooLarge) for a cap below the band's
/// minimum, what the link meets, what the sink returns,
/// [`Error::Checkpoint`](crate::Error::Checkpoint) naming a snapshot of
/// another band, game or distance-table setting, and
/// [`Error::Peer`](crate::Error::Peer) when a peer sends a message this
/// solve cannot read.
pub(crate) fn solve_band(
    arena: &Arena,
    options: &KcopOptions,
    link: &mut dyn Link,
    workers: usize,
    observer: Option<&(dyn Fn(&Progress) + Sync)>,
    saving: Saving<'_>,
    storage: &KcopStorage,
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
    let rows = (engine.band.len() as u64, engine.reads.len() as u64);
    let (plan, to_scratch) = kcop_band_plan(arena, k, rows, workers, options.dte_table, storage);
    if !plan.fits {
        return Err(below_minimum(plan.in_memory(), storage));
    }
    let dirs: Vec<_> = to_scratch
        .iter()
        .map(|&file| storage.scratch.as_deref().filter(|_| file))
        .collect();
    thread_pool(workers)?.install(|| {
        engine.run_band(
            options,
            link,
            reads,
            observer,
            saving,
            (&dirs, storage.memory),
        )
    })
}

/// The refusal of `storage`'s cap below a band's resident `minimum` (its
/// arrays that cannot go to scratch files).
pub(crate) fn below_minimum(minimum: u64, storage: &KcopStorage) -> crate::error::Error {
    crate::error::Error::TooLarge {
        what: "this process's band of several cops (its bitsets and distances in scratch files; in memory the per-row bookkeeping, each worker's tables and the thief's neighbour rows)".into(),
        needed: minimum,
        available: storage.memory.unwrap_or(u64::MAX),
        hint: if storage.scratch.is_some() {
            crate::error::cap_hint(minimum)
        } else {
            "more processes, or scratch files (--scratch DIR)".into()
        },
    }
}

impl Engine<'_> {
    /// The level loop of [`Engine::run`] on this engine's band, swapping
    /// the changed thief rows and the stats with the other processes
    /// after every level; `dirs`: per array (in `kcop_band_plan`'s
    /// order) the folder of its scratch file, if it has one; `cap`: what
    /// the pager keeps the process's resident set under.
    fn run_band(
        &mut self,
        options: &KcopOptions,
        link: &mut dyn Link,
        reads: Vec<Range<usize>>,
        observer: Option<&(dyn Fn(&Progress) + Sync)>,
        saving: Saving<'_>,
        (dirs, cap): (&[Option<&std::path::Path>], Option<u64>),
    ) -> Result<KBand> {
        let (n, words, ranks) = (self.n, self.words, self.ranks);
        let band = self.band.clone();
        let two = self.thief_can_win;
        let span = |r: &Range<usize>| (r.start * words) as u64..(r.end * words) as u64;
        let set = |i: usize, on: bool, rows: &Range<usize>, what: &str| {
            let len = if on { ranks * words } else { 0 } as u64;
            Words::sparse::<AtomicU64>(len, span(rows), dirs[i], what)
        };
        let reads_here = self.reads.clone();
        let sets = [
            set(1, true, &band, "cw")?,
            set(2, two, &band, "cl")?,
            set(3, true, &reads_here, "tl")?,
            set(4, two, &reads_here, "tw")?,
        ];
        let next = [
            set(5, true, &band, "tl (next level)")?,
            set(6, two, &band, "tw (next level)")?,
        ];
        let states = band.start * 2 * n..band.end * 2 * n;
        let dte = if options.dte_table {
            let len = (ranks * n * 2) as u64;
            let window = states.start as u64..states.end as u64;
            let mut table = Words::sparse::<AtomicU16>(len, window, dirs[0], "distance table")?;
            table.fill_range(states.clone(), u16::MAX);
            Some(table)
        } else {
            None
        };
        // Keeps the resident set under the cap while the steps walk the
        // files.
        let pager = {
            let [cw, cl, tl, tw] = &sets;
            let [tl2, tw2] = &next;
            pager_for(cap, &[cw, cl, tl, tw, tl2, tw2], dte.as_ref())
        };
        self.paging = pager.as_ref().map(|p| p.checker());
        let rows = self.rows(sets, next, dte);
        self.level_loop(options, link, reads, observer, saving, (rows, pager, cap))
    }

    /// The level loop of [`Engine::run_band`] on its arrays `rows`, whose
    /// files `pager` keeps under `cap`.
    fn level_loop(
        &self,
        options: &KcopOptions,
        link: &mut dyn Link,
        reads: Vec<Range<usize>>,
        observer: Option<&(dyn Fn(&Progress) + Sync)>,
        saving: Saving<'_>,
        (rows, pager, cap): (Rows, Option<Pager>, Option<u64>),
    ) -> Result<KBand> {
        let (n, words, ranks) = (self.n, self.words, self.ranks);
        let band = self.band.clone();
        let mut rows = rows;
        // Declared after the arrays, so dropped before them whatever
        // ends the loop: it must never look at unmapped pages.
        let pager = pager;
        let start = Self::start_of(options);
        let mut sol = self.empty_solution();
        sol.deepest_cops = (n > 0).then_some((0, 0));
        let shape = (link.process(), link.processes());
        let mut swap = Swapper {
            link,
            words,
            ranks,
            band: band.clone(),
            reads,
            bytes: Vec::new(),
            sink: saving.sink,
            unconfirmed: None,
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
        let mut level = 0u32;
        if let Some(saved) = saving.resume {
            let resumed = self.load_band(saved, shape, &mut rows, &mut sol)?;
            swap.replicate(&mut rows)?;
            level = resumed.level;
            swap.bytes = resumed.bytes;
            reporting.resumed(resumed.decided, resumed.per_level);
        } else {
            let (decided, full) = rows.terminal(self);
            let mut stats = Stats {
                decided,
                rows: 0,
                full: full.unwrap_or(u64::MAX),
                first: u64::MAX,
                start: self.start_decided(start, rows.sets()),
                save: false,
            };
            swap.send(&mut stats, None)?;
            self.noted(0, stats, &mut sol);
            reporting.level(0, stats.decided);
        }
        // The first level after level 0 or a resume reads every row.
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
                // Process 0's sink says whether every process saves after
                // this level (not if it proves the quiet last).
                save: shape.0 == 0 && saving.sink.is_some_and(|s| s.poll(level + 1) != Due::No),
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
            if let Some(d) = rows.dte.as_mut() {
                // Written sparsely once a level: few of its pages stay.
                d.release();
            }
            self.noted(level, stats, &mut sol);
            reporting.level(level, stats.decided);
            if let Some(sink) = saving.sink.filter(|_| stats.save) {
                let ledger = Ledger {
                    level,
                    decided: reporting.decided(),
                    per_level: &reporting.per_level,
                    bytes: &swap.bytes,
                };
                self.save_band(sink, shape, &rows, &sol, &ledger)?;
                swap.unconfirmed = Some(level);
            }
        }
        drop(pager);
        rows.finish(&mut sol, level);
        // Reading the band (shards, counts) walks the files again.
        sol.pager = pager_for(cap, &[&sol.cw, &sol.cl, &sol.tl, &sol.tw], sol.dte.as_ref());
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
