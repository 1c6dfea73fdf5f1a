//! Bands and session values of the two cops games for a partitioned
//! solve.
//!
//! The grid game numbers state `(cop, thief, turn)` as
//! `(cop * C + thief) * 2 + turn`: a band is the states of a run of cop
//! cells that starts at a grid row. The several-cops game numbers state
//! `(cops, thief, turn)` as `(rank(cops) * n + thief) * 2 + turn`
//! (`games/kcops.rs`): each cop multiset owns one run of `2n` states, and
//! bands are cut on those runs. Either way the worker's exchange is exact:
//! a cop-to-move state's predecessors (the thief moved) share its cop
//! cells, so they never leave its band; a thief-to-move state's
//! predecessors (the cops moved) come in ascending order, so the bands
//! they fall in come in order and the worker sends the state once to each
//! band.

use crate::game::Game;
use crate::games::cops::CopsAndThief;
use crate::games::kcops::KCops;
use crate::games::{Shape, Special as _};
use crate::hash::{fnv1a, FNV_START};

/// Band boundaries for `parts` workers over one of the library's cops
/// games: `parts + 1` non-decreasing state indices from 0 to the state
/// count. The grid game is cut at grid rows, the several-cops game at runs
/// of cop multisets (module docs). `None` for any other game: the worker
/// sends a crossing state once to each band its predecessors fall in,
/// which needs them to come band by band, as these two games' do.
#[must_use]
pub fn bands(game: &impl Game, parts: usize) -> Option<Vec<u64>> {
    match game.shape() {
        Shape::Grid(grid) => Some(row_bands(grid, parts)),
        Shape::Several(k) => Some(multiset_bands(k, parts)),
        Shape::Other => None,
    }
}

/// A hash of everything that defines one of the library's cops games and
/// of its tracked `start` state, the same in every process and build: the
/// session value of [`PartitionOptions::session`](super::PartitionOptions::session),
/// so that peers solving another game are refused at connection. The grid
/// game's start is its board's (`start` is not read); `None` for any
/// other game.
#[must_use]
pub fn session(game: &impl Game, start: Option<u64>) -> Option<u64> {
    match game.shape() {
        Shape::Grid(grid) => Some(game_hash(grid)),
        Shape::Several(k) => Some(kcops_hash(k, start)),
        Shape::Other => None,
    }
}

/// Band boundaries for `parts` workers over the several-cops game: the
/// cop multisets are split into `parts` runs of consecutive ranks whose
/// sizes differ by at most one (every multiset has `2n` states, so the
/// bands' state counts differ by at most `2n`), and a run of ranks
/// `[a, b)` is the states `[a * 2n, b * 2n)`. Returns `parts + 1`
/// non-decreasing state indices from 0 to the state count; bands are
/// empty only when there are more parts than multisets.
fn multiset_bands(game: &KCops, parts: usize) -> Vec<u64> {
    let multisets = u128::from(game.multisets());
    let block = 2 * u64::from(game.arena().cells());
    let parts = parts.max(1) as u128;
    // In u128: multisets * part can pass 2^64 for huge games.
    (0..=parts)
        .map(|part| (multisets * part / parts) as u64 * block)
        .map(|s| s.min(game.state_count()))
        .collect()
}

/// The session value of the several-cops game: the arena's cells, grid
/// shape, moves of both sides, exits, passes, speeds and lazy rule; the
/// number of cops, the first mover, and the tracked `start` state.
fn kcops_hash(game: &KCops, start: Option<u64>) -> u64 {
    let word = |h: u64, v: u64| fnv1a(h, &v.to_le_bytes());
    let arena = game.arena();
    // A tag first, so no one-cop grid game's hash can meet this one by
    // the same words.
    let mut h = fnv1a(FNV_START, b"several cops");
    let (height, width) = arena.grid().map_or((u64::MAX, u64::MAX), |g| {
        (g.height() as u64, g.width() as u64)
    });
    let (cop_speed, thief_speed) = arena.speeds();
    let (cop_passes, thief_passes) = arena.passes();
    h = [
        u64::from(arena.cells()),
        height,
        width,
        u64::from(game.cops()),
        u64::from(cop_speed),
        u64::from(thief_speed),
        u64::from(cop_passes),
        u64::from(thief_passes),
        u64::from(game.lazy()),
        u64::from(game.thief_first()),
        start.unwrap_or(u64::MAX),
    ]
    .into_iter()
    .fold(h, word);
    // The moves of one step (each list's length first, so lists cannot
    // shift into each other): with the speeds and passes above they fix
    // every reach, on a grid (walls, diagonals, corner cutting) as on a
    // graph.
    for cell in 0..arena.cells() {
        for steps in [arena.cop_steps(cell), arena.thief_steps(cell)] {
            h = word(h, steps.len() as u64);
            h = steps.iter().map(|&to| u64::from(to)).fold(h, word);
        }
        h = word(h, u64::from(arena.is_exit(cell)));
    }
    h
}

/// The session value of the grid game: its grid, exits, starts and rules.
fn game_hash(game: &CopsAndThief) -> u64 {
    let board = game.board();
    let grid = &board.grid;
    let word = |h: u64, v: u64| fnv1a(h, &v.to_le_bytes());
    let mut h = [
        grid.height() as u64,
        grid.width() as u64,
        grid.cells() as u64,
    ]
    .into_iter()
    .fold(FNV_START, word);
    for cell in 0..grid.cells() as u32 {
        let (r, c) = grid.coords(cell);
        h = [r as u64, c as u64, u64::from(board.exits[cell as usize])]
            .into_iter()
            .fold(h, word);
    }
    // A missing start hashes as u64::MAX, no cell id.
    let start = |s: Option<u32>| s.map_or(u64::MAX, u64::from);
    let rules = game.rules();
    let flags = [
        rules.cop_diagonal,
        rules.thief_diagonal,
        rules.cop_passes,
        rules.thief_passes,
        rules.corner_cutting,
        rules.thief_first,
    ];
    h = word(word(h, start(board.cop)), start(board.thief));
    fnv1a(h, &flags.map(u8::from))
}

/// Band boundaries for `parts` workers over the grid game: cop cells are
/// split into `parts` runs of about equal size, each starting at the first
/// free cell of a grid row, and a run's states are `[first * 2C, end * 2C)`.
/// Returns `parts + 1` non-decreasing state indices from 0 to the state
/// count (bands may be empty when the map has fewer rows than `parts`).
fn row_bands(game: &CopsAndThief, parts: usize) -> Vec<u64> {
    let grid = &game.board().grid;
    let cells = game.cells();
    let block = 2 * cells;
    let mut bounds = vec![0u64];
    for k in 1..parts as u64 {
        let target = (k * cells / parts as u64).min(cells);
        let first = if target >= cells {
            cells
        } else {
            // The first free cell of the target cell's row: ids are
            // row-major, so rows are contiguous runs of ids.
            let row = grid.coords(target as u32).0;
            let mut lo = 0u64;
            let mut hi = target;
            while lo < hi {
                let mid = (lo + hi) / 2;
                if grid.coords(mid as u32).0 < row {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            lo
        };
        let last = *bounds.last().expect("non-empty");
        bounds.push((first * block).max(last));
    }
    bounds.push(game.state_count());
    bounds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::arena::Arena;

    #[test]
    fn bands_cut_on_multisets_and_cover_the_states() {
        use crate::game::Game;
        for (n, k) in [(5, 2), (7, 3), (4, 4), (1, 2)] {
            let game = KCops::new(Arena::cycle(n), k).unwrap();
            let block = 2 * u64::from(n);
            for parts in 1..=12 {
                let bounds = multiset_bands(&game, parts);
                assert_eq!(bounds.len(), parts + 1);
                assert_eq!(bounds[0], 0);
                assert_eq!(bounds[parts], game.state_count());
                assert!(bounds.windows(2).all(|w| w[0] <= w[1]));
                assert!(bounds.iter().all(|b| b % block == 0), "{n} {k} {parts}");
                let sizes: Vec<u64> = bounds.windows(2).map(|w| (w[1] - w[0]) / block).collect();
                let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
                assert!(hi - lo <= 1, "{n} {k} {parts}: {sizes:?}");
                // Empty bands only with more parts than multisets.
                assert_eq!(*lo == 0, parts as u64 > game.multisets(), "{sizes:?}");
            }
        }
    }

    #[test]
    fn the_hash_tells_games_apart() {
        let base = KCops::new(Arena::cycle(6), 2).unwrap();
        let h = kcops_hash(&base, Some(3));
        assert_eq!(
            h,
            kcops_hash(&KCops::new(Arena::cycle(6), 2).unwrap(), Some(3))
        );
        let others = [
            kcops_hash(&base, Some(4)),
            kcops_hash(&base, None),
            kcops_hash(&KCops::new(Arena::cycle(6), 3).unwrap(), Some(3)),
            kcops_hash(&KCops::new(Arena::cycle(7), 2).unwrap(), Some(3)),
            kcops_hash(&base.clone().with_thief_first(true), Some(3)),
            kcops_hash(
                &KCops::new(Arena::cycle(6).with_exits(&[2]).unwrap(), 2).unwrap(),
                Some(3),
            ),
            kcops_hash(
                &KCops::new(Arena::cycle(6).with_speeds(2, 1), 2).unwrap(),
                Some(3),
            ),
            kcops_hash(
                &KCops::new(Arena::cycle(6).with_lazy(true), 2).unwrap(),
                Some(3),
            ),
            kcops_hash(
                &KCops::new(Arena::cycle(6).with_passes(false, true), 2).unwrap(),
                Some(3),
            ),
            kcops_hash(
                &KCops::new(
                    Arena::from_edges(6, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 1)])
                        .unwrap(),
                    2,
                )
                .unwrap(),
                Some(3),
            ),
        ];
        for (i, other) in others.iter().enumerate() {
            assert_ne!(h, *other, "variant {i}");
        }
    }
}
