//! Tablebases: a solve saved to a self-contained `.rtb` file (the map, the
//! rules, every state's value and optionally its distance to end, in
//! independently compressed and checksummed blocks), and the [`GridTablebase`]
//! reader that answers any position from it without solving again.
//!
//! A partitioned solve saves one *shard* per process (`NAME.I-of-N.rtb`,
//! see [`shard_path`]), each holding the states of its band of cop rows;
//! [`GridTablebase::open`] opens the whole set from any shard or from
//! `NAME.rtb`, checks that it is complete and of one solve, and routes each
//! probe to the shard that holds the state. A table from one process is a
//! set of one file.
//!
//! `format/` owns the byte layout (`format/dte.rs` the distance codec),
//! `writer.rs` streams a [`Solution`](crate::Solution) into it, `reader.rs`
//! maps and checks a file and decodes blocks, `check.rs` verifies a whole
//! table, `moves.rs` rates moves and plays optimal games, `shards.rs`
//! names, finds and checks the shard set of a partitioned solve, this file opens
//! a table and turns states into positions and probes.

mod check;
mod format;
mod kcops;
mod moves;
mod order;
mod position;
mod reader;
mod scan;
mod shards;
mod table;
mod writer;

use std::path::{Path, PathBuf};

use crate::board::Board;
use crate::error::{Error, Result};
use crate::format::Coord;
use crate::games::cops::{CopsAndThief, Rules, Turn};
use crate::grid::Grid;
use crate::outcome::{Dte, Outcome};
use crate::solve::Counts;

pub use check::CheckReport;
#[cfg(feature = "distributed")]
pub(crate) use format::ShardInfo;
pub use kcops::{KHeader, KPosition, KRatedMove, KTablebase};
pub use position::{Cops, Position};
use reader::{Kind, Raw};
pub use shards::shard_path;
use shards::{open_first, open_set};
pub use table::{Header, RatedMove, Tablebase};
pub use writer::{write_kcops_tablebase, write_tablebase, SavedGame, WriteSummary};
#[cfg(feature = "distributed")]
pub(crate) use writer::{write_source, Source};

/// A position of the grid game: both pieces and the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GridPosition {
    /// The cop's cell `(row, column)`, 0-based.
    pub cop: Coord,
    /// The thief's cell.
    pub thief: Coord,
    /// Who moves next.
    pub turn: Turn,
}

/// The stored answer for a position, for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// Win, loss or draw for the player to move.
    pub value: Outcome,
    /// Distance to end in plies: `None` for a draw, or when the table keeps
    /// no distances.
    pub dte: Option<Dte>,
}

/// One move of the player to move, rated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridRatedMove {
    /// The mover's cell after the move (its own cell for a pass).
    pub to: Coord,
    /// What the move gives the player who makes it.
    pub value: Outcome,
    /// Distance to end after the move (`None` for a draw or without
    /// distances).
    pub dte: Option<Dte>,
}

/// What a table says about itself: the header and trailer, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridHeader {
    /// Format version of the file.
    pub version: u32,
    /// Map rows.
    pub rows: usize,
    /// Map columns.
    pub cols: usize,
    /// Free cells C.
    pub cells: u64,
    /// Exit cells.
    pub exits: u64,
    /// The cop's start, if the map had one.
    pub cop_start: Option<Coord>,
    /// The thief's start, if the map had one.
    pub thief_start: Option<Coord>,
    /// The rule variant solved.
    pub rules: Rules,
    /// States: 2 * C^2.
    pub states: u64,
    /// WIN / LOSS / DRAW counts for the player to move.
    pub counts: Counts,
    /// Propagation levels of the solve (largest distance to end).
    pub levels: u32,
    /// Largest stored distance (0 without distances).
    pub max_dte: u32,
    /// The engine that solved it, by name.
    pub engine: String,
    /// Whether distances to end are stored.
    pub has_dte: bool,
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

/// One file of a table: a shard of a partitioned solve, or the whole table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardHeader {
    /// The file.
    pub path: PathBuf,
    /// Shard index, 0-based (0 for a whole table).
    pub index: u32,
    /// Shards in the set (1 for a whole table).
    pub count: u32,
    /// The grid rows of the cop cells it holds, `first .. end`.
    pub rows: std::ops::Range<usize>,
    /// The state indices it holds, `first .. end`.
    pub states: std::ops::Range<u64>,
    /// WIN / LOSS / DRAW counts of its states.
    pub counts: Counts,
    /// Bytes of the file.
    pub bytes: u64,
}

/// A table of either game, as [`AnyTablebase::open`] found it.
pub enum AnyTablebase {
    /// A one-cop table (format versions 2 and 3).
    One(Box<GridTablebase>),
    /// A several-cops table (format version 4).
    Several(Box<KTablebase>),
}

impl AnyTablebase {
    /// Opens a table of either game: a several-cops table (its header has
    /// a game section) as a [`KTablebase`], any other as
    /// [`GridTablebase::open`] does.
    ///
    /// # Errors
    /// As [`GridTablebase::open`].
    pub fn open(path: &Path) -> Result<AnyTablebase> {
        let raw = open_first(path)?;
        if raw.body.kcops.is_some() {
            Ok(AnyTablebase::Several(Box::new(KTablebase::from_raw(
                path, raw,
            )?)))
        } else {
            Ok(AnyTablebase::One(Box::new(GridTablebase::from_first(
                path, raw,
            )?)))
        }
    }
}

/// A saved solve, memory-mapped: answers any position by decoding one
/// block. Cheap to share between threads (`&GridTablebase` is `Sync`); each
/// thread keeps its last decoded block of values and of distances, and the
/// table keeps up to 256 MiB of decoded blocks for all threads, so probes
/// near each other, or asked again, cost one decode.
///
/// # Example
/// ```
/// use retrograde::{parse_map, solve, write_tablebase, Board, CopsAndThief, Engine, Outcome, Placement, Rules, SolveOptions, GridTablebase, Turn};
/// let map = parse_map(b"1 4\nC..T\n", "inline").unwrap();
/// let game = CopsAndThief::new(Board::new(&map, &Placement::default()).unwrap(), Rules::default());
/// let solution = solve(&game, &SolveOptions::new(Engine::Sequential).with_dte_table(true)).unwrap();
/// let path = std::env::temp_dir().join(format!("tb-doc-{}.rtb", std::process::id()));
/// write_tablebase(&game, &solution, "sequential", &mut std::fs::File::create(&path).unwrap()).unwrap();
/// let table = GridTablebase::open(&path).unwrap();
/// let pos = table.position((0, 0), (0, 3), Turn::Cop).unwrap();
/// let probe = table.probe(&pos).unwrap();
/// assert_eq!(probe.value, Outcome::Win); // a dead-end corridor: the cop walks in
/// assert_eq!(table.rated_moves(&pos).unwrap()[0].to, (0, 1));
/// assert_eq!(table.optimal_game(&pos, 100).unwrap().len() as u32 - 1, probe.dte.unwrap().plies());
/// std::fs::remove_file(&path).unwrap();
/// ```
pub struct GridTablebase {
    /// The path as opened.
    path: PathBuf,
    /// The files, in state order, tiling the states (one without shards).
    shards: Vec<Raw>,
    game: CopsAndThief,
    header: GridHeader,
}

impl GridTablebase {
    /// Opens and maps a table, checking its magic, version, header checksum,
    /// trailer and block index (blocks are checked when read, or all at
    /// once by [`GridTablebase::check`]).
    ///
    /// `path` may also name any shard of a partitioned solve's table, or,
    /// when no such file exists, the name it was saved under (`t.rtb` for
    /// `t.0-of-3.rtb` ...): every shard of the set is opened (by its name,
    /// [`shard_path`]) and checked to be there once and of the same solve.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::Table`] naming
    /// the offset or part when it is truncated, damaged or not a table, and
    /// naming the shard when one is missing, duplicated or of another solve.
    pub fn open(path: &Path) -> Result<GridTablebase> {
        GridTablebase::from_first(path, open_first(path)?)
    }

    /// The table whose file (or first shard found) `raw` is.
    fn from_first(path: &Path, raw: Raw) -> Result<GridTablebase> {
        if let Some(k) = &raw.body.kcops {
            return Err(raw.error(
                "header",
                format!(
                    "a table of the several-cops game ({} cop{}, format version {}): this reads one-cop tables (query, info, play and render read both)",
                    k.cops,
                    if k.cops == 1 { "" } else { "s" },
                    raw.version
                ),
            ));
        }
        let shards = match raw.body.shard {
            None => vec![raw],
            Some(info) => open_set(raw, info)?,
        };
        let raw = &shards[0];
        let body = &raw.body;
        let grid = Grid::new(body.rows, body.cols, body.free.clone());
        let cell = |c: Option<Coord>| c.and_then(|(r, col)| grid.cell_at(r, col));
        let board = Board {
            cop: cell(body.cop),
            thief: cell(body.thief),
            exits: body.exits.clone(),
            grid: grid.clone(),
        };
        let game = CopsAndThief::new(board, body.rules);
        let sum = |f: &dyn Fn(&Raw) -> u64| shards.iter().map(f).sum::<u64>();
        let mut counts = Counts::default();
        for r in &shards {
            counts.win += r.trailer.counts.win;
            counts.loss += r.trailer.counts.loss;
            counts.draw += r.trailer.counts.draw;
        }
        let files = shards
            .iter()
            .map(|r| {
                let row = |state: u64| {
                    let cop = state / (2 * game.cells()).max(1);
                    if cop < game.cells() {
                        game.board().grid.coords(cop as u32).0
                    } else {
                        body.rows
                    }
                };
                let states = r.first..r.first + r.trailer.states;
                ShardHeader {
                    path: r.path.clone(),
                    index: r.body.shard.map_or(0, |s| s.index),
                    count: r.body.shard.map_or(1, |s| s.count),
                    rows: row(states.start)..row(states.end),
                    states,
                    counts: r.trailer.counts,
                    bytes: r.file_bytes(),
                }
            })
            .collect();
        let header = GridHeader {
            version: raw.version,
            rows: body.rows,
            cols: body.cols,
            cells: game.cells(),
            exits: body.exits.count_ones() as u64,
            cop_start: body.cop,
            thief_start: body.thief,
            rules: body.rules,
            states: sum(&|r| r.trailer.states),
            counts,
            levels: raw.trailer.levels,
            max_dte: shards.iter().map(|r| r.trailer.max_dte).max().unwrap_or(0),
            engine: body.engine.clone(),
            has_dte: body.has_dte,
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
        };
        Ok(GridTablebase {
            path: path.to_path_buf(),
            shards,
            game,
            header,
        })
    }

    /// The path as opened.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file holding state `s` (the shards tile the states; an empty
    /// shard shares its first state with the next one, which holds it).
    fn raw(&self, s: u64) -> &Raw {
        if self.shards.len() == 1 {
            return &self.shards[0];
        }
        let k = self.shards.partition_point(|r| r.first <= s);
        &self.shards[k.saturating_sub(1)]
    }

    /// The decoded header.
    #[must_use]
    pub fn header(&self) -> &GridHeader {
        &self.header
    }

    /// The game, rebuilt from the stored map and rules.
    #[must_use]
    pub fn game(&self) -> &CopsAndThief {
        &self.game
    }

    /// Map rows.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.header.rows
    }

    /// Map columns.
    #[must_use]
    pub fn cols(&self) -> usize {
        self.header.cols
    }

    fn grid(&self) -> &Grid {
        &self.game.board().grid
    }

    /// Whether `c` is a free cell of the map (false outside it).
    #[must_use]
    pub fn is_free(&self, c: Coord) -> bool {
        self.cell(c).is_some()
    }

    /// Whether `c` is an exit.
    #[must_use]
    pub fn is_exit(&self, c: Coord) -> bool {
        self.cell(c)
            .is_some_and(|id| self.game.board().exits[id as usize])
    }

    fn cell(&self, c: Coord) -> Option<u32> {
        if c.0 < self.rows() && c.1 < self.cols() {
            self.grid().cell_at(c.0, c.1)
        } else {
            None
        }
    }

    /// The rules' first mover.
    #[must_use]
    pub fn first_mover(&self) -> Turn {
        self.header.rules.first_mover()
    }

    /// The map's start position (first mover to move), if it has both
    /// starts.
    #[must_use]
    pub fn start(&self) -> Option<GridPosition> {
        Some(GridPosition {
            cop: self.header.cop_start?,
            thief: self.header.thief_start?,
            turn: self.first_mover(),
        })
    }

    /// A position after checking both cells are free cells of the map.
    ///
    /// # Errors
    /// [`Error::Placement`] naming the piece when a cell is outside the map
    /// or a wall.
    pub fn position(&self, cop: Coord, thief: Coord, turn: Turn) -> Result<GridPosition> {
        for (what, c) in [("cop", cop), ("thief", thief)] {
            self.check_cell(what, c)?;
        }
        Ok(GridPosition { cop, thief, turn })
    }

    fn check_cell(&self, what: &str, c: Coord) -> Result<u32> {
        let label = format!("{what} {},{}", c.0, c.1);
        if c.0 >= self.rows() || c.1 >= self.cols() {
            return Err(Error::Placement {
                what: label,
                message: format!(
                    "outside the map: rows are 0..={}, columns 0..={}",
                    self.rows() - 1,
                    self.cols() - 1
                ),
            });
        }
        self.cell(c).ok_or(Error::Placement {
            what: label,
            message: "is a wall: expected a free cell".to_string(),
        })
    }

    /// State index of a position.
    fn state(&self, pos: &GridPosition) -> Result<u64> {
        let cop = self.check_cell("cop", pos.cop)?;
        let thief = self.check_cell("thief", pos.thief)?;
        Ok(self.game.state(cop, thief, pos.turn))
    }

    /// The position of state index `s`.
    fn position_of(&self, s: u64) -> GridPosition {
        let (cop, thief, turn) = self.game.decode(s);
        GridPosition {
            cop: self.grid().coords(cop),
            thief: self.grid().coords(thief),
            turn,
        }
    }

    /// Value and distance of state index `s`, for its player to move.
    ///
    /// # Errors
    /// [`Error::Table`] when a block it reads is damaged.
    pub fn probe_state(&self, s: u64) -> Result<Probe> {
        let raw = self.raw(s);
        let value = match raw.value(s)? {
            1 => Outcome::Win,
            2 => Outcome::Loss,
            _ => Outcome::Draw,
        };
        let dte = if value != Outcome::Draw && self.header.has_dte {
            Some(Dte(u32::from(raw.distance(s)?)))
        } else {
            None
        };
        Ok(Probe { value, dte })
    }

    /// Value and distance of a position, for the player to move.
    ///
    /// # Errors
    /// [`Error::Placement`] for a cell off the map or on a wall,
    /// [`Error::Table`] when a block it reads is damaged.
    pub fn probe(&self, pos: &GridPosition) -> Result<Probe> {
        self.probe_state(self.state(pos)?)
    }

    /// For a fixed cop cell and turn, every free thief cell with its probe,
    /// in row-major order (for heatmaps).
    ///
    /// # Errors
    /// As [`GridTablebase::probe`].
    pub fn row(&self, cop: Coord, turn: Turn) -> Result<Vec<(Coord, Probe)>> {
        let p = self.check_cell("cop", cop)?;
        (0..self.game.cells() as u32)
            .map(|t| {
                Ok((
                    self.grid().coords(t),
                    self.probe_state(self.game.state(p, t, turn))?,
                ))
            })
            .collect()
    }

    /// For a fixed thief cell and turn, every free cop cell with its probe,
    /// in row-major order.
    ///
    /// # Errors
    /// As [`GridTablebase::probe`].
    pub fn column(&self, thief: Coord, turn: Turn) -> Result<Vec<(Coord, Probe)>> {
        let t = self.check_cell("thief", thief)?;
        (0..self.game.cells() as u32)
            .map(|p| {
                Ok((
                    self.grid().coords(p),
                    self.probe_state(self.game.state(p, t, turn))?,
                ))
            })
            .collect()
    }
}
