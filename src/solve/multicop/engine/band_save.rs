//! Band snapshots of the several-cops partitioned bit engine
//! (`partition.rs`), in the one-cop band snapshots' encoding
//! (`solve/bitboard/band_checkpoint.rs`, magic `MAGIC_SEVERAL`): one file
//! per process, after the same levels on every process (process 0's sink
//! decides, and says so in the level's stats).
//!
//! A snapshot holds the band's own rows of `cw`, `cl`, `tl` and `tw`, its
//! distances if kept, and the run's bookkeeping, which every process
//! holds alike (the stats travel with every swap): the level, the states
//! decided so far and per level, the bytes sent per level, the start's
//! distance, the deepest cops-to-move state decided and the placement
//! found (as its level and its multiset's rank). The thief rows of the
//! other bands, which a process reads too, are not saved: a resume swaps
//! them once (`swap.rs`, [`Swapper::replicate`](super::swap::Swapper)).

use std::ops::Range;

use super::level::Rows;
use super::Engine;
use crate::error::Result;
use crate::games::multiset::{rank_multiset, unrank_multiset};
use crate::snapshot::{BandSink, Encoding, Hashing};
use crate::solve::bitboard::band_checkpoint::GridBandCheckpoint;
use crate::solve::bitboard::band_checkpoint::{put_band, BandHead, MAGIC_SEVERAL};
use crate::solve::checkpoint::State;
use crate::solve::multicop::solution::KSolution;

/// One process's band of a several-cops solve after a finished level,
/// borrowed from its run.
struct SeveralBandSnapshot<'a> {
    head: BandHead<'a>,
    /// The band's rows of `cw, cl, tl, tw` (empty where not kept).
    sets: [&'a [u64]; 4],
    dte: Option<&'a [u16]>,
}

impl Encoding for SeveralBandSnapshot<'_> {
    const MAGIC: &'static [u8] = MAGIC_SEVERAL;

    fn level(&self) -> u32 {
        self.head.state.level
    }

    /// A process holds one band of the bit engine: band 0.
    fn band(&self) -> Option<usize> {
        Some(0)
    }

    fn put_fields(&self, out: &mut Hashing<'_>) -> std::io::Result<()> {
        let dte = self
            .dte
            .map(|t| (t.len(), t.iter().map(|d| d.to_le_bytes())));
        put_band(out, &self.head, &self.sets, &[], dte)
    }
}

/// The run's bookkeeping after a level, the same on every process.
pub(super) struct Ledger<'a> {
    pub(super) level: u32,
    /// States decided so far in the cluster, and at each level.
    pub(super) decided: u64,
    pub(super) per_level: &'a [u64],
    /// Bytes this process sent after each level.
    pub(super) bytes: &'a [u64],
}

/// What a resumed run continues from, beside the rows read back.
pub(super) struct Resumed {
    pub(super) level: u32,
    pub(super) decided: u64,
    pub(super) per_level: Vec<u64>,
    pub(super) bytes: Vec<u64>,
}

impl Engine<'_> {
    /// The band's state rows and distances: ranks, and the range of the
    /// distance table.
    fn band_spans(&self) -> (Range<usize>, Range<usize>) {
        let (band, per) = (self.band.clone(), 2 * self.n);
        let words = band.start * self.words..band.end * self.words;
        (words, band.start * per..band.end * per)
    }

    /// This process's snapshot (process `me` of `processes`) into `sink`.
    pub(super) fn save_band(
        &self,
        sink: &dyn BandSink,
        (me, processes): (usize, usize),
        rows: &Rows,
        sol: &KSolution,
        ledger: &Ledger<'_>,
    ) -> Result<()> {
        let (words, states) = self.band_spans();
        let band = self.band.start as u64..self.band.end as u64;
        let placement = sol
            .placement
            .as_ref()
            .map(|(cops, level)| (*level, rank_multiset(cops)));
        let sets = rows.sets().map(|s| s.get(words.clone()).unwrap_or(&[]));
        sink.save(&SeveralBandSnapshot {
            head: BandHead {
                process: me as u64,
                processes: processes as u64,
                cells: band.clone(),
                kept: band,
                state: State {
                    level: ledger.level,
                    decided: ledger.decided,
                    tracked: sol.start_dte,
                    deepest: [sol.deepest_cops, placement],
                    cells: self.n as u64,
                    row_words: self.words as u64,
                },
                decided: ledger.per_level,
                bytes: ledger.bytes,
            },
            sets,
            dte: rows.dte.as_deref().map(|t| &t[states]),
        })
    }

    /// Reads this process's band back from `saved` into `rows` and `sol`,
    /// after checking that it is this band's (process `me` of
    /// `processes`), of a game of this shape and this distance-table
    /// setting; a misfit names the file.
    pub(super) fn load_band(
        &self,
        saved: &GridBandCheckpoint,
        (me, processes): (usize, usize),
        rows: &mut Rows,
        sol: &mut KSolution,
    ) -> Result<Resumed> {
        if saved.process != me as u64 || saved.processes != processes as u64 {
            return Err(saved.misfit(format!(
                "holds process {} of {}, this is process {me} of {processes}",
                saved.process, saved.processes
            )));
        }
        let (words, states) = self.band_spans();
        let band = self.band.start as u64..self.band.end as u64;
        let sets = rows.sets().map(|s| !s.is_empty());
        let kept = sets.iter().filter(|&&on| on).count() * words.len();
        if saved.cells != band
            || saved.kept != band
            || saved.state.cells != self.n as u64
            || saved.state.row_words != self.words as u64
            || saved.arrays.word_count() != kept as u64
        {
            return Err(saved.misfit(format!(
                "holds cop multisets {}..{} of a game of {} cells ({} words a row, {} in all); \
                 this band is multisets {}..{} of {} cells with {} cops ({} words a row, {kept})",
                saved.cells.start,
                saved.cells.end,
                saved.state.cells,
                saved.state.row_words,
                saved.arrays.word_count(),
                band.start,
                band.end,
                self.n,
                self.k,
                self.words,
            )));
        }
        let (set_rows, dte) = rows.sets_mut();
        match (saved.arrays.dte_len(), dte.as_deref_mut()) {
            (Some(len), Some(to)) if len == states.len() as u64 => {
                saved.arrays.read_dte_into(&mut to[states])?;
            }
            (None, None) => {}
            _ => {
                return Err(saved.misfit(
                    "made with another distance-table setting (--dte-table, --save with distances)"
                        .into(),
                ))
            }
        }
        let mut first = 0;
        for set in set_rows.into_iter().filter(|s| !s.is_empty()) {
            saved.arrays.read_words_at(first, &mut set[words.clone()])?;
            first += words.len() as u64;
        }
        let state = saved.state;
        sol.start_dte = state.tracked;
        sol.deepest_cops = state.deepest[0];
        sol.placement =
            state.deepest[1].map(|(level, rank)| (unrank_multiset(rank, self.k), level));
        Ok(Resumed {
            level: state.level,
            decided: state.decided,
            per_level: saved.decided.clone(),
            bytes: saved.bytes.clone(),
        })
    }
}
