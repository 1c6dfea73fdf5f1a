//! Streams a [`Solution`] into a table: a unit of blocks at a time through
//! its bulk accessors ([`Solution::fill_values`], [`Solution::fill_dte`]'s
//! crate-internal twin), a batch of units packed and compressed in
//! parallel, then written in order. Out of core, each batch's pages of the
//! solution are released after use, so the writer's resident memory is a
//! few blocks on top of the solve's window.

mod cops;

pub(crate) use cops::game_of;
#[cfg(test)]
pub(crate) use cops::small_arenas;

use std::io::{self, Write};
use std::ops::Range;
use std::sync::Mutex;

use rayon::prelude::*;

use super::format::{
    block_crc, encode_entry, encode_header, encode_trailer, BlockEntry, DteEncoder, HeaderBody,
    ShardInfo, Trailer, DTE_BLOCK_STATES, DTE_ZSTD_LEVEL, VALUE_BLOCK_STATES, ZSTD_LEVEL,
};
use crate::game::Game;
use crate::games::cops::CopsAndThief;
use crate::games::cops_game::CopsGame;
use crate::games::{Shape, Special};
use crate::solve::{Counts, Solution};

/// What [`write_tablebase`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteSummary {
    /// Bytes of the whole file.
    pub bytes: u64,
    /// Compressed bytes of the values blocks.
    pub value_bytes: u64,
    /// Compressed bytes of the distance blocks (0 without distances).
    pub dte_bytes: u64,
    /// States written.
    pub states: u64,
    /// Whether distances were included.
    pub has_dte: bool,
    /// WIN / LOSS / DRAW counts, counted while writing.
    pub counts: Counts,
}

/// What the writer reads: the states `0 .. states()` of a table (all of a
/// [`Solution`], or the band of a shard, counted from the band's first
/// state), through bulk accessors.
pub(crate) trait Source: Sync {
    /// States to write.
    fn states(&self) -> u64;
    /// Whether distances are kept.
    fn has_dte(&self) -> bool;
    /// Levels of the whole solve.
    fn levels(&self) -> u32;
    /// Packed 2-bit values of `range` into `out` (see
    /// [`Solution::fill_values`]).
    fn fill_values(&self, range: Range<u64>, out: &mut [u8]);
    /// Distances of `range` (0 for draws), given its packed values.
    fn fill_dte(&self, range: Range<u64>, values: &[u8], out: &mut [u16]);
    /// These states are written: their pages may go.
    fn release(&self, _range: Range<u64>) {}
}

impl Source for Solution {
    fn states(&self) -> u64 {
        Solution::states(self)
    }

    fn has_dte(&self) -> bool {
        self.has_dte_table()
    }

    fn levels(&self) -> u32 {
        Solution::levels(self)
    }

    fn fill_values(&self, range: Range<u64>, out: &mut [u8]) {
        Solution::fill_values(self, range, out);
    }

    fn fill_dte(&self, range: Range<u64>, values: &[u8], out: &mut [u16]) {
        self.fill_dte_with(range, values, out);
    }

    fn release(&self, range: Range<u64>) {
        Solution::release(self, range);
    }
}

/// One compressed unit: a values block and the distance blocks of the same
/// states.
struct Unit {
    values: Vec<u8>,
    dte: Vec<Vec<u8>>,
    counts: Counts,
    max_dte: u32,
}

/// Writes `solution` of `game` as a self-contained table to `out`: header
/// (the map and rules, or the graph; the cops, speeds, exits and start),
/// values blocks, distance blocks when the solution kept a distance table,
/// block index and trailer. `engine` is recorded in the header (for
/// example [`Engine::as_str`](crate::Engine::as_str)). One cop at speed 1
/// on a map is written in the one-cop layout, any other game in the
/// several-cops layout (its states in thief tiles), both as format version
/// 6; [`Tablebase::open`](crate::Tablebase::open) reads versions 2 to 6.
///
/// Writing goes through `out` once, in order, so `out` may be any stream;
/// to make the file appear atomically, write to a temporary file in the
/// destination folder and rename it (the CLI does).
///
/// # Errors
/// Any error of `out`, and an [`io::ErrorKind::InvalidInput`] error when
/// `solution` is not a solution of `game` (different state count) or when
/// the rules do not give a several-cops game's moves.
///
/// # Example
/// ```
/// use retrograde::{parse_map, solve, write_tablebase, Arena, CopsGame, Engine, Outcome, Placement, Rules, SolveOptions, Speeds, Tablebase};
/// let map = parse_map(b"2 3\nC.T\n..E\n", "inline").unwrap();
/// let game = CopsGame::from_map(&map, &Placement::default(), Rules::default(), 1, Speeds::default()).unwrap();
/// let solution = solve(&game, &SolveOptions::new(Engine::Sequential).with_dte_table(true)).unwrap();
/// let path = std::env::temp_dir().join(format!("doc-{}.rtb", std::process::id()));
/// let mut file = std::fs::File::create(&path).unwrap();
/// let summary = write_tablebase(&game, &solution, "sequential", &mut file).unwrap();
/// assert!(summary.has_dte);
/// let table = Tablebase::open(&path).unwrap();
/// let start = table.start().unwrap();
/// assert_eq!(table.probe(&start).unwrap().value, solution.outcome(game.index(&game.start().unwrap())));
///
/// // Two cops on a 5-cycle, from cops on 0 and 0 and the thief on 2.
/// let cycle = Arena::from_edges(5, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]).unwrap();
/// let game = CopsGame::from_graph(cycle, Rules::default(), 2, Speeds::default()).unwrap()
///     .with_start(&[0, 0], 2).unwrap();
/// let solution = solve(&game, &SolveOptions::new(Engine::Sequential).with_dte_table(true)).unwrap();
/// write_tablebase(&game, &solution, "sequential", &mut std::fs::File::create(&path).unwrap()).unwrap();
/// let table = Tablebase::open(&path).unwrap();
/// assert_eq!(table.cops(), 2);
/// assert_eq!(table.probe(&table.start().unwrap()).unwrap().value, Outcome::Win);
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn write_tablebase(
    game: &CopsGame,
    solution: &Solution,
    engine: &str,
    out: &mut impl Write,
) -> io::Result<WriteSummary> {
    let n = game.state_count();
    if solution.states() != n {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "the solution has {} states, the game {n}: not a solution of this game",
                solution.states()
            ),
        ));
    }
    write_source(game, solution, None, engine, out)
}

/// Writes the states of `source` as a table of `game`: the whole game
/// (`shard` `None`), or the band a shard header describes (the source's
/// states are then the band's, from its first state on).
pub(crate) fn write_source(
    game: &CopsGame,
    source: &impl Source,
    shard: Option<ShardInfo>,
    engine: &str,
    out: &mut impl Write,
) -> io::Result<WriteSummary> {
    match game.shape() {
        // Enough units per batch to keep every worker busy, and to make
        // the wait for a batch's last unit rare; a batch holds only
        // compressed units (tens of KiB each).
        Shape::Grid(grid) => write_batched(grid, source, shard, engine, out, 32),
        Shape::Several(kcops) => {
            let start = game.start();
            let start = start.as_ref().map(|p| (p.cops.as_slice(), p.thief));
            cops::write_cops(kcops, game.rules(), start, source, shard, engine, out)
        }
        Shape::Other => unreachable!("a cops game has a shape"),
    }
}

/// [`write_source`] in batches of `units_per_thread` units per worker
/// (tests use small batches to cross many batch ends on small maps).
fn write_batched(
    game: &CopsAndThief,
    source: &impl Source,
    shard: Option<ShardInfo>,
    engine: &str,
    out: &mut impl Write,
    units_per_thread: u64,
) -> io::Result<WriteSummary> {
    let n = source.states();
    let expected = shard.map_or(game.state_count(), |s| s.end_state - s.first_state);
    if n != expected {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{n} states to write, the header says {expected}"),
        ));
    }
    let has_dte = source.has_dte();
    let board = game.board();
    let grid = &board.grid;
    let header = HeaderBody {
        rows: grid.height(),
        cols: grid.width(),
        rules: game.rules(),
        has_dte,
        cop: board.cop.map(|c| grid.coords(c)),
        thief: board.thief.map(|c| grid.coords(c)),
        value_block_states: VALUE_BLOCK_STATES,
        dte_block_states: DTE_BLOCK_STATES,
        engine: engine.to_string(),
        free: grid.free().clone(),
        exits: board.exits.clone(),
        shard,
        kcops: None,
    };
    // States per cop cell: the distance coding's row (format.rs).
    let row = 2 * game.cells() as usize;
    write_blocks(&header, row, source, out, units_per_thread)
}

/// Writes `header` (its distances flag set from `source`) and the states
/// of `source` as blocks, then the index and trailer; `row` is the states
/// of one distance-coding row (one cop cell, or one cop multiset).
pub(crate) fn write_blocks(
    header: &HeaderBody,
    row: usize,
    source: &impl Source,
    out: &mut impl Write,
    units_per_thread: u64,
) -> io::Result<WriteSummary> {
    let n = source.states();
    let has_dte = source.has_dte();
    // Block sizes are the header's: one-cop tables use the format's
    // constants, several-cops tables smaller blocks.
    let sizes = (header.value_block_states, header.dte_block_states);
    let header = encode_header(&HeaderBody {
        has_dte,
        ..header.clone()
    });
    out.write_all(&header)?;
    let mut offset = header.len() as u64;
    let units = n.div_ceil(sizes.0);
    let threads = rayon::current_num_threads().max(1);
    let batch = threads as u64 * units_per_thread.max(1);
    // One worker's buffers and compressors per thread, reused by every
    // unit it packs (rayon's `map_init` would build them per split job,
    // several times per batch).
    let scratch: Vec<Mutex<Option<Scratch>>> = (0..threads).map(|_| Mutex::new(None)).collect();
    let pack_batch = |first: u64, last: u64| -> Vec<io::Result<Unit>> {
        (first..last)
            .into_par_iter()
            .map(|u| {
                let slot = rayon::current_thread_index().unwrap_or(0) % threads;
                // A panic elsewhere leaves the buffers usable: every use
                // clears them first.
                let mut slot = scratch[slot].lock().unwrap_or_else(|e| e.into_inner());
                if slot.is_none() {
                    *slot = Some(Scratch::new()?);
                }
                let scratch = slot.as_mut().expect("just filled");
                pack_unit(source, u, n, sizes, row, has_dte, scratch)
            })
            .collect()
    };
    let mut value_index = Vec::new();
    let mut dte_index = Vec::new();
    let mut summary = WriteSummary {
        bytes: 0,
        value_bytes: 0,
        dte_bytes: 0,
        states: n,
        has_dte,
        counts: Counts::default(),
    };
    let mut max_dte = 0;
    // A thread of its own packs the batches in order (through the pool)
    // while this one writes the batch before: writing, checksums and
    // out-of-core releases no longer leave the workers idle. At most one
    // packed batch waits.
    std::thread::scope(|scope| -> io::Result<()> {
        let (send, batches) = std::sync::mpsc::sync_channel(1);
        scope.spawn(move || {
            let mut first = 0;
            while first < units {
                let last = (first + batch).min(units);
                // The writer stopped (an error): so does packing.
                if send.send((first, last, pack_batch(first, last))).is_err() {
                    break;
                }
                first = last;
            }
        });
        for (first, last, packed) in batches {
            for unit in packed {
                let unit = unit?;
                let mut put =
                    |bytes: &[u8], kind: u8, index: &mut Vec<BlockEntry>| -> io::Result<()> {
                        out.write_all(bytes)?;
                        index.push(BlockEntry {
                            offset,
                            len: bytes.len() as u32,
                            crc: block_crc(true, kind, index.len() as u64, bytes),
                        });
                        offset += bytes.len() as u64;
                        Ok(())
                    };
                put(&unit.values, 0, &mut value_index)?;
                summary.value_bytes += unit.values.len() as u64;
                for block in &unit.dte {
                    put(block, 1, &mut dte_index)?;
                    summary.dte_bytes += block.len() as u64;
                }
                summary.counts.win += unit.counts.win;
                summary.counts.loss += unit.counts.loss;
                summary.counts.draw += unit.counts.draw;
                max_dte = max_dte.max(unit.max_dte);
            }
            // Out of core, these states are done with: drop their pages.
            source.release(first * sizes.0..(last * sizes.0).min(n));
        }
        Ok(())
    })?;
    let mut index = Vec::new();
    for e in value_index.iter().chain(&dte_index) {
        encode_entry(e, &mut index);
    }
    let trailer = encode_trailer(
        &index,
        &Trailer {
            index_offset: offset,
            value_blocks: value_index.len() as u64,
            dte_blocks: dte_index.len() as u64,
            states: n,
            counts: summary.counts,
            levels: source.levels(),
            max_dte,
        },
    );
    out.write_all(&index)?;
    out.write_all(&trailer)?;
    out.flush()?;
    summary.bytes = offset + index.len() as u64 + trailer.len() as u64;
    Ok(summary)
}

/// A worker's compressors and buffers, kept across units: buffers of a few
/// hundred KiB freshly allocated per unit come from new pages that the
/// kernel zeroes each time (measured a fifth of a `--dte-table --save`
/// run's samples).
struct Scratch {
    values: zstd::bulk::Compressor<'static>,
    distances: zstd::bulk::Compressor<'static>,
    packed_values: Vec<u8>,
    raw: Vec<u16>,
    encoder: DteEncoder,
    packed: Vec<u8>,
}

impl Scratch {
    fn new() -> io::Result<Scratch> {
        Ok(Scratch {
            values: zstd::bulk::Compressor::new(ZSTD_LEVEL)?,
            distances: zstd::bulk::Compressor::new(DTE_ZSTD_LEVEL)?,
            packed_values: Vec::new(),
            raw: Vec::new(),
            encoder: DteEncoder::default(),
            packed: Vec::new(),
        })
    }
}

/// `bytes` compressed by `compressor` through the reused buffer `packed`,
/// returned in a vector of their own size.
fn compress(
    compressor: &mut zstd::bulk::Compressor<'static>,
    packed: &mut Vec<u8>,
    bytes: &[u8],
) -> io::Result<Vec<u8>> {
    packed.clear();
    packed.reserve(zstd::zstd_safe::compress_bound(bytes.len()));
    compressor.compress_to_buffer(bytes, packed)?;
    Ok(packed.clone())
}

/// Packs and compresses unit `u` (states `u * sizes.0 ..`: a values block
/// of `sizes.0` states and its distance blocks of `sizes.1`).
fn pack_unit(
    solution: &impl Source,
    u: u64,
    n: u64,
    sizes: (u64, u64),
    row: usize,
    has_dte: bool,
    scratch: &mut Scratch,
) -> io::Result<Unit> {
    let start = u * sizes.0;
    let end = (start + sizes.0).min(n);
    let len = (end - start) as usize;
    // Bulk reads: one dispatch per unit, a tight loop per storage kind.
    // Every byte and distance is overwritten: resizing fills only what
    // is new.
    let values = &mut scratch.packed_values;
    values.resize(len.div_ceil(4), 0);
    solution.fill_values(start..end, values);
    let (win, loss) = count_codes(values);
    let counts = Counts {
        win,
        loss,
        draw: len as u64 - win - loss,
    };
    let mut max_dte = 0;
    let mut dte = Vec::new();
    if has_dte {
        // Draws have no distance; 0 keeps the runs long.
        let raw = &mut scratch.raw;
        raw.resize(len, 0);
        solution.fill_dte(start..end, values, raw);
        max_dte = u32::from(raw.iter().copied().max().unwrap_or(0));
        for block in raw.chunks(sizes.1 as usize) {
            scratch.encoder.encode(block, row);
            dte.push(compress(
                &mut scratch.distances,
                &mut scratch.packed,
                &scratch.encoder.out,
            )?);
        }
    }
    let values = compress(&mut scratch.values, &mut scratch.packed, values)?;
    Ok(Unit {
        values,
        dte,
        counts,
        max_dte,
    })
}

/// WIN and LOSS counts of packed 2-bit codes (win 01, loss 10; padding
/// codes are 00, draws): popcounts over 8 bytes at a time.
fn count_codes(values: &[u8]) -> (u64, u64) {
    const LOW: u64 = 0x5555_5555_5555_5555;
    let count = |w: u64| {
        (
            u64::from((w & !(w >> 1) & LOW).count_ones()),
            u64::from((!w & (w >> 1) & LOW).count_ones()),
        )
    };
    let mut chunks = values.chunks_exact(8);
    let (mut win, mut loss) = (0, 0);
    for c in &mut chunks {
        let (w, l) = count(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        win += w;
        loss += l;
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    let (w, l) = count(u64::from_le_bytes(last));
    (win + w, loss + l)
}

#[cfg(test)]
mod tests {
    use super::{count_codes, write_batched, write_tablebase};
    use crate::games::cops::CopsAndThief;
    use crate::{parse_map, solve, Backing, Board, Engine, Placement, Rules};
    use crate::{CopsGame, ExitRule, Game, SolveOptions};

    /// An out-of-core solve (pages released behind the writer while the
    /// packing thread reads ahead) writes the same bytes as an in-memory
    /// one, in batches of one unit per worker (8 units, 4 batches on
    /// 2 workers) as in the default ones.
    #[test]
    fn out_of_core_tables_equal_in_memory_ones() {
        // 34 x 34 with a wall every 7th cell: 991 cells, 1.96e6 states.
        let text: String = (0..34)
            .map(|r| {
                let row: String = (0..34)
                    .map(|c| if (34 * r + c) % 7 == 3 { '#' } else { '.' })
                    .collect();
                row + "\n"
            })
            .collect();
        let map = parse_map(format!("34 34\n{text}").as_bytes(), "inline").unwrap();
        let placement = Placement {
            exit_rules: vec![ExitRule::Border],
            ..Placement::default()
        };
        let game = CopsAndThief::new(Board::new(&map, &placement).unwrap(), Rules::default());
        assert!(game.state_count() > 5 * super::VALUE_BLOCK_STATES);
        let dir = std::env::temp_dir().join(format!("rtb-ooc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let options = SolveOptions::new(Engine::Bitboard)
            .with_threads(2)
            .with_dte_table(true);
        let in_memory = solve(&game, &options).unwrap();
        let paged = solve(
            &game,
            &options
                .clone()
                .with_backing(Backing::Scratch(dir.clone()))
                // Over the engine's minimum (1.1 MiB: a level's grid rows
                // with their distances), under the arrays (4.1 MiB).
                .with_memory_limit(Some(2 << 20)),
        )
        .unwrap();
        let mut want = Vec::new();
        write_tablebase(
            &CopsGame::of_grid(game.clone()),
            &in_memory,
            "bitboard",
            &mut want,
        )
        .unwrap();
        for per_thread in [1, 32] {
            let mut got = Vec::new();
            write_batched(&game, &paged, None, "bitboard", &mut got, per_thread).unwrap();
            assert!(got == want, "{per_thread} units per thread");
        }
        drop(paged);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn count_codes_matches_a_per_code_count() {
        // Every byte value, in an odd length so the tail path runs too.
        let values: Vec<u8> = (0..=255u8).chain(0..7).collect();
        let (mut win, mut loss) = (0, 0);
        for b in &values {
            for j in 0..4 {
                match (b >> (2 * j)) & 3 {
                    1 => win += 1,
                    2 => loss += 1,
                    _ => {}
                }
            }
        }
        assert_eq!(count_codes(&values), (win, loss));
    }
}
