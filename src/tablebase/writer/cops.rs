//! Writing a several-cops table: its header (the grid or the graph, the
//! rules and the game section), checked against the game it claims, then
//! the one-cop writer's blocks, from the [`Solution`] of any engine.

use std::io::{self, Write};

use bitvec::vec::BitVec;

use super::super::format::{HeaderBody, KSection, ShardInfo};
use super::super::order::StateOrder;
use super::{write_blocks, Source, WriteSummary};
use crate::board::Board;
use crate::error::Result;
use crate::game::Game;
use crate::games::arena::Arena;
use crate::games::cops::Rules;
use crate::games::kcops::KCops;
use crate::grid::Grid;

/// States per values block and per distance block of a several-cops
/// table: an eighth of a one-cop table's, so a query, which reads a few
/// blocks per kind, decodes less. On a two-cop 32 x 32 map (7.4e8 states)
/// in thief tiles of 8, blocks of 2^14 and 2^13 states cut a query's 99th
/// percentile by a tenth at most, for files 1.3 and 1.7 times larger
/// (docs/measurements.md).
const BLOCK_STATES: u64 = 1 << 15;

/// Thief cells per tile of the state order ([`StateOrder`]). A query's
/// joint cop moves keep the thief's cell, so they fall in a few blocks of
/// one tile; a thief's move reaches a few tiles; a heatmap (every thief
/// cell, the cops fixed) reads one block per tile. On a two-cop 32 x 32
/// map, tiles of 1, 4, 8, 16 and 64 cells put a cop-turn query's moves in
/// 4, 6, 8, 11 and 16 blocks at the 99th percentile (the engines' order,
/// one tile of all 904 cells: 32), and the file shrinks with the tile
/// (a distance is predicted by the multiset one rank before, the same
/// thief cell): 8 is the balance (docs/measurements.md).
const THIEF_TILE: u32 = 8;

/// The header of `game`'s table: a map's grid or a 1 x n grid of vertices,
/// the exits, `rules` and the game section.
fn kcops_header(
    game: &KCops,
    rules: Rules,
    start: Option<(&[u32], u32)>,
    shard: Option<ShardInfo>,
    engine: &str,
) -> HeaderBody {
    let arena = game.arena();
    let n = arena.cells();
    let (rows, cols, free) = match arena.grid() {
        Some(grid) => (grid.height(), grid.width(), grid.free().clone()),
        None => (1, n as usize, BitVec::repeat(true, n as usize)),
    };
    let edges = if arena.grid().is_some() {
        Vec::new()
    } else {
        (0..n)
            .flat_map(|u| {
                arena
                    .cop_steps(u)
                    .iter()
                    .filter(move |&&v| v > u)
                    .map(move |&v| (u, v))
            })
            .collect()
    };
    let (cop_speed, thief_speed) = arena.speeds();
    HeaderBody {
        rows,
        cols,
        rules: Rules {
            thief_first: game.thief_first(),
            ..rules
        },
        has_dte: false,
        cop: None,
        thief: None,
        value_block_states: BLOCK_STATES,
        dte_block_states: BLOCK_STATES,
        engine: engine.to_string(),
        free,
        exits: (0..n).map(|c| arena.is_exit(c)).collect(),
        shard,
        kcops: Some(KSection {
            graph: arena.grid().is_none(),
            cops: game.cops(),
            cop_speed,
            thief_speed,
            thief_tile: THIEF_TILE,
            start: start.map(|(cops, thief)| {
                let mut cops = cops.to_vec();
                cops.sort_unstable();
                (cops, thief)
            }),
            edges,
        }),
    }
}

/// The game a header describes, rebuilt from its map and rules or its
/// graph, exits and section.
pub(crate) fn game_of(body: &HeaderBody, k: &KSection) -> Result<KCops> {
    let n = body.exits.len() as u32;
    let rules = body.rules;
    let arena = if k.graph {
        let exits: Vec<u32> = body.exits.iter_ones().map(|e| e as u32).collect();
        Arena::from_edges(n, &k.edges)?
            .with_exits(&exits)?
            .with_passes(rules.cop_passes, rules.thief_passes)
    } else {
        let board = Board {
            cop: None,
            thief: None,
            exits: body.exits.clone(),
            grid: Grid::new(body.rows, body.cols, body.free.clone()),
        };
        Arena::from_board(&board, rules)
    };
    let arena = arena.with_speeds(k.cop_speed, k.thief_speed);
    Ok(KCops::new(arena, k.cops)?.with_thief_first(rules.thief_first))
}

/// [`write_tablebase`](crate::write_tablebase) of the several-cops
/// generator of a `CopsGame`, under its rules and start: the whole game (`shard`
/// `None`), or the band of cop multisets a shard header describes (the
/// source's states are then the band's, from its first state on).
pub(super) fn write_cops(
    game: &KCops,
    rules: Rules,
    start: Option<(&[u32], u32)>,
    solution: &impl Source,
    shard: Option<ShardInfo>,
    engine: &str,
    out: &mut impl Write,
) -> io::Result<WriteSummary> {
    let invalid = |m: String| io::Error::new(io::ErrorKind::InvalidInput, m);
    let n = game.state_count();
    if solution.states() != n && shard.is_none() {
        return Err(invalid(format!(
            "the solution has {} states, the game {n}: not a solution of this game",
            solution.states()
        )));
    }
    let block = 2 * u64::from(game.arena().cells()).max(1);
    if let Some(sh) = shard {
        let band = sh.first_state..sh.end_state;
        if band.end > n
            || band.start > band.end
            || band.start % block != 0
            || band.end % block != 0
            || solution.states() != band.end - band.start
        {
            return Err(invalid(format!(
                "{} states to write for the band {band:?} of {n} states: not whole cop multisets of this game",
                solution.states()
            )));
        }
    }
    if game.lazy() {
        return Err(invalid(
            "lazy cops cannot be saved: the table's game section has no field for the lazy rule"
                .to_string(),
        ));
    }
    let cells = game.arena().cells();
    if let Some((cops, thief)) = start {
        if cops.len() != game.cops() as usize || cops.iter().chain([&thief]).any(|&c| c >= cells) {
            return Err(invalid(format!(
                "the start {cops:?}, {thief} is not {} cells and a thief among {cells} cells",
                game.cops()
            )));
        }
    }
    let header = kcops_header(game, rules, start, shard, engine);
    // The reader rebuilds the game from the header and the rules; the
    // game's construction checked that they give its moves
    // (`CopsGame::from_graph`).
    // A shard's tiles are over its band's multisets alone.
    let order = StateOrder::new(
        u64::from(cells),
        u64::from(THIEF_TILE),
        solution.states() / block,
    );
    let tiled = Tiled {
        inner: solution,
        order,
    };
    write_blocks(&header, header.dte_row(), &tiled, out, 32)
}

/// A solution in the game's state order, read in the file's
/// ([`StateOrder`]): each block is filled run by run, a run being one
/// multiset's states of a thief tile, contiguous in the solution.
struct Tiled<'a, S> {
    inner: &'a S,
    order: StateOrder,
}

impl<S: Source> Source for Tiled<'_, S> {
    fn states(&self) -> u64 {
        self.inner.states()
    }

    fn has_dte(&self) -> bool {
        self.inner.has_dte()
    }

    fn levels(&self) -> u32 {
        self.inner.levels()
    }

    fn fill_values(&self, range: std::ops::Range<u64>, out: &mut [u8]) {
        out.fill(0);
        let mut run_values = Vec::new();
        for run in self.order.runs(range.clone()) {
            let len = run.len as usize;
            run_values.resize(len.div_ceil(4), 0);
            self.inner
                .fill_values(run.state..run.state + run.len, &mut run_values);
            let at = (run.file - range.start) as usize;
            if at.is_multiple_of(4) {
                // Whole bytes (runs are 128 states but at a short last
                // tile): the last byte's unused codes are 0.
                out[at / 4..at / 4 + run_values.len()].copy_from_slice(&run_values);
            } else {
                for i in 0..len {
                    let v = (run_values[i / 4] >> (2 * (i % 4))) & 3;
                    out[(at + i) / 4] |= v << (2 * ((at + i) % 4));
                }
            }
        }
    }

    fn fill_dte(&self, range: std::ops::Range<u64>, values: &[u8], out: &mut [u16]) {
        let mut run_values = Vec::new();
        for run in self.order.runs(range.clone()) {
            let len = run.len as usize;
            let states = run.state..run.state + run.len;
            let at = (run.file - range.start) as usize;
            let bytes = len.div_ceil(4);
            // The run's values are the block's from a byte boundary (every
            // run but those after a short last tile); else packed again.
            let run_values = if at.is_multiple_of(4) {
                &values[at / 4..at / 4 + bytes]
            } else {
                run_values.resize(bytes, 0);
                self.inner.fill_values(states.clone(), &mut run_values);
                &run_values[..]
            };
            self.inner
                .fill_dte(states, run_values, &mut out[at..at + len]);
        }
    }

    // No `release`: a tile's blocks read every multiset's run of that tile,
    // so a range of the solution is needed again until the last tile.
}

#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) use tests::small_arenas;
