//! [`Header`]: what a table says about itself, decoded from its first
//! file's header, the game section when there is one, and every file's
//! trailer (summed over the shards of a partitioned solve).

use std::path::PathBuf;

use super::format::HeaderBody;
use super::reader::{Kind, Raw};
use crate::format::Coord;
use crate::games::cops::Rules;
use crate::games::position::Position;
use crate::solve::Counts;

/// What a table says about itself: the header and trailer, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version of the file (2 and 3 one cop, 4 and 5 the game
    /// section of several cops).
    pub version: u32,
    /// Number of cops (1 for a one-cop table).
    pub cops: u32,
    /// Steps a cop takes per turn.
    pub cop_speed: u32,
    /// Steps the thief takes per turn.
    pub thief_speed: u32,
    /// Whether the game is on a graph (else on a grid map).
    pub graph: bool,
    /// Whether the file has the several-cops game section (formats 4 and
    /// 5, and 6 with flag bit 2; any k); a one-cop table has none.
    pub game_section: bool,
    /// Map rows (1 on a graph).
    pub rows: usize,
    /// Map columns (the vertices on a graph).
    pub cols: usize,
    /// Cells: a map's free cells, a graph's vertices.
    pub cells: u64,
    /// A graph's edges (0 on a map).
    pub edges: u64,
    /// Exit cells.
    pub exits: u64,
    /// The map's cop start as drawn (one-cop tables), if it had one.
    pub cop_start: Option<Coord>,
    /// The map's thief start as drawn (one-cop tables), if it had one.
    pub thief_start: Option<Coord>,
    /// The start (first mover to move), if the solve had one.
    pub start: Option<Position>,
    /// The rule variant solved (on a graph only the pass flags and
    /// thief-first matter).
    pub rules: Rules,
    /// States: `2 * n * C(n + k - 1, k)` (`2 * C^2` for one cop).
    pub states: u64,
    /// WIN / LOSS / DRAW counts for the player to move.
    pub counts: Counts,
    /// Propagation levels of the solve.
    pub levels: u32,
    /// Largest stored distance (0 without distances).
    pub max_dte: u32,
    /// The engine that solved it, by name.
    pub engine: String,
    /// Whether distances to end are stored.
    pub has_dte: bool,
    /// Thief cells per tile of the file's state order (all the cells for
    /// one tile: one-cop tables and version 4).
    pub thief_tile: u32,
    /// States per values block.
    pub value_block_states: u64,
    /// States per distance block.
    pub dte_block_states: u64,
    /// Number of values blocks.
    pub value_blocks: u64,
    /// Number of distance blocks (0 without distances).
    pub dte_blocks: u64,
    /// Compressed bytes of the values blocks.
    pub value_bytes: u64,
    /// Compressed bytes of the distance blocks.
    pub dte_bytes: u64,
    /// Bytes of header (magic to header checksum).
    pub header_bytes: u64,
    /// Bytes of the whole file (of all files, for a set of shards).
    pub file_bytes: u64,
    /// Whether the table is a set of shards of a partitioned solve.
    pub partitioned: bool,
    /// The table's files in state order: one without shards.
    pub shards: Vec<ShardHeader>,
}

/// The header fields every kind shares, from the files and the first
/// file's body; the game section's fields are the one-cop defaults.
pub(super) fn header_of(
    shards: &[Raw],
    body: &HeaderBody,
    n: u64,
    edges: u64,
    start: Option<Position>,
    files: Vec<ShardHeader>,
) -> Header {
    let raw = &shards[0];
    let sum = |f: &dyn Fn(&Raw) -> u64| shards.iter().map(f).sum::<u64>();
    let mut counts = Counts::default();
    for r in shards {
        counts.win += r.trailer.counts.win;
        counts.loss += r.trailer.counts.loss;
        counts.draw += r.trailer.counts.draw;
    }
    Header {
        version: raw.version,
        cops: 1,
        cop_speed: 1,
        thief_speed: 1,
        graph: false,
        game_section: false,
        rows: body.rows,
        cols: body.cols,
        cells: n,
        edges,
        exits: body.exits.count_ones() as u64,
        cop_start: body.cop,
        thief_start: body.thief,
        start,
        rules: body.rules,
        states: sum(&|r| r.trailer.states),
        counts,
        levels: raw.trailer.levels,
        max_dte: shards.iter().map(|r| r.trailer.max_dte).max().unwrap_or(0),
        engine: body.engine.clone(),
        has_dte: body.has_dte,
        thief_tile: n as u32,
        value_block_states: body.value_block_states,
        dte_block_states: body.dte_block_states,
        value_blocks: sum(&|r| r.blocks(Kind::Values)),
        dte_blocks: sum(&|r| r.blocks(Kind::Distances)),
        value_bytes: sum(&|r| r.block_bytes(Kind::Values)),
        dte_bytes: sum(&|r| r.block_bytes(Kind::Distances)),
        header_bytes: sum(&|r| r.header_bytes),
        file_bytes: sum(&|r| r.file_bytes()),
        partitioned: body.shard.is_some(),
        shards: files,
    }
}

/// One file of a table: a shard of a partitioned solve, or the whole table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardHeader {
    /// The file.
    pub path: PathBuf,
    /// Shard index, 0-based (0 for a whole table).
    pub index: u32,
    /// Shards in the set (1 for a whole table).
    pub count: u32,
    /// The grid rows of the cop cells it holds, `first .. end` (a one-cop
    /// table; empty for several cops, whose bands are of multisets).
    pub rows: std::ops::Range<usize>,
    /// The cop multisets it holds by rank, `first .. end` (in a one-cop
    /// table the cop cells).
    pub multisets: std::ops::Range<u64>,
    /// The state indices it holds, `first .. end`.
    pub states: std::ops::Range<u64>,
    /// WIN / LOSS / DRAW counts of its states.
    pub counts: Counts,
    /// Bytes of the file.
    pub bytes: u64,
}
