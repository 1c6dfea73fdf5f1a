//! What a partitioned solve leaves in each process: its bands of the
//! solution ([`Band`], [`PartitionedSolution`], read by the tablebase
//! writer as a solution of its states alone, [`write_shard`]) and, on
//! process 0, the cluster-wide [`Summary`].

use std::ops::Range;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU8, Ordering::Relaxed};

use crate::games::cops_game::CopsGame;
use crate::outcome::{Dte, Outcome};
use crate::solve::multicop::KBand;
use crate::solve::Counts;
use crate::solve::GridBand;
use crate::storage::cells::Cells;
use crate::storage::Region;

/// Cluster-wide results, gathered on process 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// WIN / LOSS / DRAW over all states.
    pub counts: Counts,
    /// Levels after level 0: the largest distance to end.
    pub levels: u32,
    /// The tracked state's distance to end (`None`: draw, or not tracked).
    pub tracked_dte: Option<Dte>,
    /// The tracked state's value (`None` when no state was tracked).
    pub tracked_outcome: Option<Outcome>,
    /// Bytes sent between workers in each round (round k drains level k;
    /// the last round carries only the frontier sizes that end the solve).
    /// A message of n words counts 16 + 8n bytes (destination, kind, length
    /// and words: its bincode size).
    pub bytes_per_level: Vec<u64>,
    /// States decided at each level (level 0: the terminal ones), in all
    /// bands; the last entry, 0, ends the solve.
    pub decided_per_level: Vec<u64>,
    /// The part of all bytes that went between processes.
    pub network_bytes: u64,
    /// `process_stat` of each process, in process order.
    pub process_stats: Vec<u64>,
}

impl Summary {
    /// Bytes sent between workers in all rounds.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.bytes_per_level.iter().sum()
    }
}

/// One worker's band of the solution (the counter engine's), or one
/// process's (the bit engine's, whose workers share the process's band).
pub struct Band {
    pub(super) range: Range<u64>,
    pub(super) store: Store,
}

/// Where a band's values live.
pub(super) enum Store {
    /// The counter engine's cells, one byte a state (four when `wide`:
    /// games with more than 63 moves a state), and distances.
    Cells {
        cells: Region,
        wide: bool,
        dte: Option<Region>,
    },
    /// The bit engine's bitsets and distances.
    Bits(Box<GridBand>),
    /// The several-cops bit engine's bitsets and distances.
    Several(Box<KBand>),
}

impl Band {
    /// A counter engine's band.
    pub(super) fn cells(range: Range<u64>, cells: Region, wide: bool, dte: Option<Region>) -> Band {
        Band {
            range,
            store: Store::Cells { cells, wide, dte },
        }
    }

    /// The states this band owns.
    #[must_use]
    pub fn range(&self) -> Range<u64> {
        self.range.clone()
    }

    /// Value of owned state `s` for the player to move.
    ///
    /// # Panics
    /// If `s` is not in the band.
    #[must_use]
    pub fn outcome(&self, s: u64) -> Outcome {
        assert!(self.range.contains(&s), "state {s} is not in this band");
        match &self.store {
            Store::Cells { cells, wide, .. } => {
                let i = (s - self.range.start) as usize;
                if *wide {
                    cells.atomics::<AtomicU32>().outcome(i)
                } else {
                    cells.atomics::<AtomicU8>().outcome(i)
                }
            }
            Store::Bits(band) => band.outcome(s),
            Store::Several(band) => band.outcome(s),
        }
    }

    /// Distance to end of owned state `s`, when a table was kept (`None`
    /// for a draw).
    #[must_use]
    pub fn dte(&self, s: u64) -> Option<Dte> {
        if self.outcome(s) == Outcome::Draw {
            return None;
        }
        match &self.store {
            Store::Cells { dte, .. } => {
                let table = dte.as_ref()?;
                Some(Dte(u32::from(
                    table.atomics::<AtomicU16>()[(s - self.range.start) as usize].load(Relaxed),
                )))
            }
            Store::Bits(band) => band.dte(s),
            Store::Several(band) => band.dte(s),
        }
    }

    fn has_dte(&self) -> bool {
        match &self.store {
            Store::Cells { dte, .. } => dte.is_some(),
            Store::Bits(band) => band.has_dte(),
            Store::Several(band) => band.has_dte(),
        }
    }
}

/// What one process holds after a partitioned solve.
pub struct PartitionedSolution {
    /// This process's bands, one per worker, in worker order.
    pub bands: Vec<Band>,
    /// The cluster-wide results (process 0 only).
    pub summary: Option<Summary>,
    /// Levels after level 0 (the largest distance to end), known to every
    /// process.
    pub levels: u32,
}

impl PartitionedSolution {
    /// The states this process's bands hold, `first .. end` (its bands are
    /// contiguous).
    #[must_use]
    pub fn range(&self) -> Range<u64> {
        match (self.bands.first(), self.bands.last()) {
            (Some(a), Some(b)) => a.range.start..b.range.end,
            _ => 0..0,
        }
    }

    /// The band holding state `s` of [`PartitionedSolution::range`].
    fn band(&self, s: u64) -> &Band {
        let k = self.bands.partition_point(|b| b.range.start <= s);
        // Empty bands share their start with the next band: take the last
        // band starting at or before `s` that is not empty.
        self.bands[..k]
            .iter()
            .rev()
            .find(|b| b.range.contains(&s))
            .expect("a state of this process's bands")
    }
}

/// The tablebase writer reads a process's bands like a solution of its
/// states alone.
impl crate::tablebase::Source for PartitionedSolution {
    fn states(&self) -> u64 {
        let r = self.range();
        r.end - r.start
    }

    fn has_dte(&self) -> bool {
        self.bands.iter().all(Band::has_dte)
    }

    fn levels(&self) -> u32 {
        self.levels
    }

    fn fill_values(&self, range: Range<u64>, out: &mut [u8]) {
        let first = self.range().start;
        if let [Band {
            store: Store::Bits(band),
            ..
        }] = &self.bands[..]
        {
            return band.fill_values(first + range.start..first + range.end, out);
        }
        if let [Band {
            store: Store::Several(band),
            ..
        }] = &self.bands[..]
        {
            return band.fill_values(first + range.start..first + range.end, out);
        }
        out.fill(0);
        let mut s = first + range.start;
        let end = first + range.end;
        let mut i = 0usize;
        while s < end {
            let band = self.band(s);
            let stop = end.min(band.range.end);
            for t in s..stop {
                let code = match band.outcome(t) {
                    Outcome::Win => 1u8,
                    Outcome::Loss => 2,
                    Outcome::Draw => 0,
                };
                out[i / 4] |= code << (2 * (i % 4));
                i += 1;
            }
            s = stop;
        }
    }

    fn fill_dte(&self, range: Range<u64>, values: &[u8], out: &mut [u16]) {
        let first = self.range().start;
        if let [Band {
            store: Store::Bits(band),
            ..
        }] = &self.bands[..]
        {
            return band.fill_dte(first + range.start..first + range.end, values, out);
        }
        if let [Band {
            store: Store::Several(band),
            ..
        }] = &self.bands[..]
        {
            return band.fill_dte(first + range.start..first + range.end, out);
        }
        for (i, d) in out.iter_mut().enumerate() {
            let s = first + range.start + i as u64;
            let band = self.band(s);
            // `values` already tells the decided states: read the stored
            // distance alone, not the value again.
            *d = match ((values[i / 4] >> (2 * (i % 4))) & 3, &band.store) {
                (0, _) => 0,
                (_, Store::Cells { dte, .. }) => dte.as_ref().map_or(0, |t| {
                    t.atomics::<AtomicU16>()[(s - band.range.start) as usize].load(Relaxed)
                }),
                (_, Store::Bits(bits)) => bits.dte(s).map_or(0, |d| d.0 as u16),
                (_, Store::Several(bits)) => bits.dte(s).map_or(0, |d| d.0 as u16),
            };
        }
    }
}

/// Writes process `process`'s shard of a partitioned solve of `game` (one
/// of `processes`) as a tablebase file to `out`: the header of a whole
/// table plus which shard of how many it is and its band (of cop rows for
/// one cop, of cop multisets for several cops),
/// then the band's values (and distances when the solve kept them) in the
/// same blocks as [`write_tablebase`](crate::write_tablebase). Name the
/// file with [`shard_path`](crate::shard_path) so that
/// [`Tablebase::open`](crate::Tablebase::open) finds the set.
///
/// # Errors
/// Any error of `out`; [`std::io::ErrorKind::InvalidInput`] as
/// [`write_tablebase`](crate::write_tablebase) says, or when `part` is not
/// a band of whole cop multisets of a several-cops game.
pub fn write_shard(
    game: &CopsGame,
    part: &PartitionedSolution,
    process: usize,
    processes: usize,
    engine: &str,
    out: &mut impl std::io::Write,
) -> std::io::Result<crate::tablebase::WriteSummary> {
    let range = part.range();
    let (first_row, end_row) = match game.grid_game() {
        Some(game) => {
            let grid = &game.board().grid;
            let block = 2 * game.cells();
            let row = |state: u64| {
                let cop = state / block.max(1);
                if cop < game.cells() {
                    grid.coords(cop as u32).0 as u32
                } else {
                    grid.height() as u32
                }
            };
            (row(range.start), row(range.end))
        }
        // A several-cops band is of multisets: its ranks are the states
        // over 2n, and the row fields are 0.
        None => (0, 0),
    };
    let info = crate::tablebase::ShardInfo {
        index: process as u32,
        count: processes as u32,
        first_state: range.start,
        end_state: range.end,
        first_row,
        end_row,
    };
    crate::tablebase::write_source(game, part, Some(info), engine, out)
}
