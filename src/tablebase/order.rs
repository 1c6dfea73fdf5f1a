//! The order of a several-cops table's states in its blocks (format
//! `kcops` section's documentation): thief tiles of `T` cells, and within
//! a tile by cop multiset rank, thief cell and turn. [`StateOrder`] maps
//! the game's state index (the engines') to the file's and back, and cuts
//! a range of the file into runs that are contiguous in both. The order
//! of a several-cops shard is that of a table of its band's multisets
//! alone, shifted to the band's first state ([`StateOrder::starting_at`]).

use std::ops::Range;

/// The mapping between a game's state index `s = (rank * n + thief) * 2 +
/// turn` and a table's file index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StateOrder {
    /// The first state ordered (a multiple of `2 n`; 0 but in a shard): the
    /// order maps `first ..` to itself.
    first: u64,
    /// Cells (the thief's).
    n: u64,
    /// Thief cells per tile, `1..=n`.
    tile: u64,
    /// Cop multisets.
    ranks: u64,
}

/// A run of states contiguous in the file and in the game's index: one
/// multiset's thief cells of one tile (or part of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    /// File index of the first state.
    pub(crate) file: u64,
    /// Game state index of the first state.
    pub(crate) state: u64,
    /// States in the run.
    pub(crate) len: u64,
}

impl StateOrder {
    /// The order of `ranks` multisets over `n` cells in tiles of `tile`
    /// thief cells (`tile >= n`: the engines' own order, version 4's).
    pub(crate) fn new(n: u64, tile: u64, ranks: u64) -> StateOrder {
        StateOrder {
            first: 0,
            n,
            tile: tile.clamp(1, n.max(1)),
            ranks,
        }
    }

    /// The order of the `ranks` multisets from state `first` on (a
    /// shard's band, `first` a multiple of `2 n`): state `first + i` goes
    /// where [`StateOrder::new`]'s order of those ranks puts `i`, plus
    /// `first`.
    pub(crate) fn starting_at(self, first: u64) -> StateOrder {
        StateOrder { first, ..self }
    }

    /// Thief cells per tile (all of them in one tile: version 4).
    pub(crate) fn tile(&self) -> u64 {
        self.tile
    }

    /// Thief cells in tile `j` (the last one may be shorter).
    fn width(&self, j: u64) -> u64 {
        self.tile.min(self.n - j * self.tile)
    }

    /// States of a whole tile: `2 T R` (every tile but the last has `T`
    /// cells, so tile `j` starts at `j` times this).
    fn slab(&self) -> u64 {
        2 * self.tile * self.ranks
    }

    /// The file index of game state `s` (`s >= first`).
    pub(crate) fn file_index(&self, s: u64) -> u64 {
        let s = s - self.first;
        let (rank, thief) = ((s >> 1) / self.n, (s >> 1) % self.n);
        let j = thief / self.tile;
        self.first + j * self.slab() + 2 * self.width(j) * rank + 2 * (thief % self.tile) + (s & 1)
    }

    /// The game state at file index `f` (`f >= first`).
    pub(crate) fn state_index(&self, f: u64) -> u64 {
        let f = f - self.first;
        let j = f / self.slab();
        let within = f - j * self.slab();
        let w2 = 2 * self.width(j);
        let (rank, cell) = (within / w2, within % w2);
        self.first + (rank * self.n + j * self.tile) * 2 + cell
    }

    /// The file's `range` as runs contiguous in both orders, in file order.
    pub(crate) fn runs(&self, range: Range<u64>) -> impl Iterator<Item = Run> + '_ {
        let mut f = range.start;
        std::iter::from_fn(move || {
            if f >= range.end {
                return None;
            }
            let local = f - self.first;
            let j = local / self.slab();
            let w2 = 2 * self.width(j);
            let into = (local - j * self.slab()) % w2;
            let len = (w2 - into).min(range.end - f);
            let run = Run {
                file: f,
                state: self.state_index(f),
                len,
            };
            f += len;
            Some(run)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tile size: the two maps are inverse bijections of `0..states`,
    /// and the runs cover a range in order, each contiguous in both.
    #[test]
    fn orders_are_bijections_and_runs_cover_ranges() {
        for (n, ranks) in [(1, 1), (5, 15), (7, 28), (10, 220)] {
            let states = 2 * n * ranks;
            for tile in [1, 2, 3, 4, n - 1, n, n + 5] {
                let order = StateOrder::new(n, tile, ranks);
                let mut seen = vec![false; states as usize];
                for s in 0..states {
                    let f = order.file_index(s);
                    assert!(f < states && !seen[f as usize], "n {n} tile {tile} s {s}");
                    seen[f as usize] = true;
                    assert_eq!(order.state_index(f), s);
                }
                for range in [0..states, 3..states - 1, 7..8, 5..5] {
                    check_runs(&order, range);
                }
            }
        }
    }

    /// The runs of `range` cover it in file order, each state where the
    /// order puts it.
    fn check_runs(order: &StateOrder, range: std::ops::Range<u64>) {
        let mut next = range.start;
        for run in order.runs(range.clone()) {
            assert_eq!(run.file, next);
            for i in 0..run.len {
                assert_eq!(order.state_index(run.file + i), run.state + i);
            }
            next += run.len;
        }
        assert_eq!(next, range.end.max(range.start));
    }

    /// The index the format documents: 10 cells in tiles of 4 (the last
    /// of 2), 55 multisets.
    #[test]
    fn file_indices_are_the_documented_ones() {
        let order = StateOrder::new(10, 4, 55);
        // Rank 3, thief 9 (tile 2, width 2, first cell), turn 1.
        assert_eq!(
            order.file_index((3 * 10 + 9) * 2 + 1),
            2 * 4 * 55 * 2 + 2 * 2 * 3 + 2 + 1
        );
        // Rank 54, thief 2 (tile 0), turn 0.
        assert_eq!(order.file_index((54 * 10 + 2) * 2), 2 * 4 * 54 + 2 * 2);
    }

    /// A band's order from its first state is a table of its ranks alone,
    /// shifted: inverse bijections of the band, runs contiguous in both.
    #[test]
    fn a_band_is_ordered_as_a_table_of_its_ranks() {
        let (n, tile) = (7, 3);
        for (first_rank, ranks) in [(0, 28), (5, 9), (27, 1), (10, 0)] {
            let first = 2 * n * first_rank;
            let alone = StateOrder::new(n, tile, ranks);
            let band = alone.starting_at(first);
            let states = first..first + 2 * n * ranks;
            for s in states.clone() {
                let f = band.file_index(s);
                assert!(states.contains(&f));
                assert_eq!(f, first + alone.file_index(s - first));
                assert_eq!(band.state_index(f), s);
            }
            check_runs(&band, states);
        }
    }

    /// A tile of every cell is the game's own order (format version 4).
    #[test]
    fn one_tile_is_the_identity() {
        let order = StateOrder::new(9, 9, 45);
        for s in 0..2 * 9 * 45 {
            assert_eq!(order.file_index(s), s);
        }
        assert_eq!(order.runs(0..810).count(), 45);
    }
}
