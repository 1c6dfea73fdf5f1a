//! Tablebases: a solve saved to a self-contained `.rtb` file (the map, the
//! rules, every state's value and optionally its distance to end, in
//! independently compressed and checksummed blocks), and the [`Tablebase`]
//! reader that answers any position from it without solving again.
//!
//! `format.rs` owns the byte layout, `writer.rs` streams a
//! [`Solution`](crate::Solution) into it, `reader.rs` maps and checks a file and
//! decodes blocks, this file turns states into positions and moves.

mod format;
mod reader;
mod writer;

use std::collections::HashSet;
use std::path::Path;

use crate::error::{Error, Result};
use crate::format::Coord;
use crate::game::{Game, Initial};
use crate::{Board, CopsAndThief, Counts, Dte, Grid, Outcome, Rules, Turn};

use reader::{Kind, Raw};
pub use writer::{write_tablebase, WriteSummary};

/// A position of the grid game: both pieces and the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
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
pub struct RatedMove {
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
pub struct Header {
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
    /// Bytes of the whole file.
    pub file_bytes: u64,
}

/// What [`Tablebase::check`] verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Values blocks checked (checksum, decoding, value codes).
    pub value_blocks: u64,
    /// Distance blocks checked (checksum, decoding).
    pub dte_blocks: u64,
    /// States whose value was read; the counts matched the trailer's.
    pub states: u64,
}

/// A saved solve, memory-mapped: answers any position by decoding one
/// block. Cheap to share between threads (`&Tablebase` is `Sync`); each
/// thread keeps its last decoded block of values and of distances, and the
/// table keeps up to 256 MiB of decoded blocks for all threads, so probes
/// near each other, or asked again, cost one decode.
///
/// # Example
/// ```
/// use retrograde::{parse_map, solve, write_tablebase, Board, CopsAndThief, Engine, Outcome, Placement, Rules, SolveOptions, Tablebase, Turn};
/// let map = parse_map(b"1 4\nC..T\n", "inline").unwrap();
/// let game = CopsAndThief::new(Board::new(&map, &Placement::default()).unwrap(), Rules::default());
/// let solution = solve(&game, &SolveOptions::new(Engine::Sequential).with_dte_table(true)).unwrap();
/// let path = std::env::temp_dir().join(format!("tb-doc-{}.rtb", std::process::id()));
/// write_tablebase(&game, &solution, "sequential", &mut std::fs::File::create(&path).unwrap()).unwrap();
/// let table = Tablebase::open(&path).unwrap();
/// let pos = table.position((0, 0), (0, 3), Turn::Cop).unwrap();
/// let probe = table.probe(&pos).unwrap();
/// assert_eq!(probe.value, Outcome::Win); // a dead-end corridor: the cop walks in
/// assert_eq!(table.rated_moves(&pos).unwrap()[0].to, (0, 1));
/// assert_eq!(table.optimal_game(&pos, 100).unwrap().len() as u32 - 1, probe.dte.unwrap().plies());
/// std::fs::remove_file(&path).unwrap();
/// ```
pub struct Tablebase {
    raw: Raw,
    game: CopsAndThief,
    header: Header,
}

impl Tablebase {
    /// Opens and maps a table, checking its magic, version, header checksum,
    /// trailer and block index (blocks are checked when read, or all at
    /// once by [`Tablebase::check`]).
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::Table`] naming
    /// the offset or part when it is truncated, damaged or not a table.
    pub fn open(path: &Path) -> Result<Tablebase> {
        let raw = Raw::open(path)?;
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
        let header = Header {
            version: format::VERSION,
            rows: body.rows,
            cols: body.cols,
            cells: game.cells(),
            exits: body.exits.count_ones() as u64,
            cop_start: body.cop,
            thief_start: body.thief,
            rules: body.rules,
            states: raw.trailer.states,
            counts: raw.trailer.counts,
            levels: raw.trailer.levels,
            max_dte: raw.trailer.max_dte,
            engine: body.engine.clone(),
            has_dte: body.has_dte,
            value_block_states: body.value_block_states,
            dte_block_states: body.dte_block_states,
            value_blocks: raw.blocks(Kind::Values),
            dte_blocks: raw.blocks(Kind::Distances),
            value_bytes: raw.block_bytes(Kind::Values),
            dte_bytes: raw.block_bytes(Kind::Distances),
            header_bytes: raw.header_bytes,
            file_bytes: raw.file_bytes(),
        };
        Ok(Tablebase { raw, game, header })
    }

    /// The file's path as opened.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.raw.path
    }

    /// The decoded header.
    #[must_use]
    pub fn header(&self) -> &Header {
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
        if self.header.rules.thief_first {
            Turn::Thief
        } else {
            Turn::Cop
        }
    }

    /// The map's start position (first mover to move), if it has both
    /// starts.
    #[must_use]
    pub fn start(&self) -> Option<Position> {
        Some(Position {
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
    pub fn position(&self, cop: Coord, thief: Coord, turn: Turn) -> Result<Position> {
        for (what, c) in [("cop", cop), ("thief", thief)] {
            self.check_cell(what, c)?;
        }
        Ok(Position { cop, thief, turn })
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
    fn state(&self, pos: &Position) -> Result<u64> {
        let cop = self.check_cell("cop", pos.cop)?;
        let thief = self.check_cell("thief", pos.thief)?;
        Ok(self.game.state(cop, thief, pos.turn))
    }

    /// The position of state index `s`.
    fn position_of(&self, s: u64) -> Position {
        let (cop, thief, turn) = self.game.decode(s);
        Position {
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
        let value = match self.raw.value(s)? {
            1 => Outcome::Win,
            2 => Outcome::Loss,
            _ => Outcome::Draw,
        };
        let dte = if value != Outcome::Draw && self.header.has_dte {
            Some(Dte(u32::from(self.raw.distance(s)?)))
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
    pub fn probe(&self, pos: &Position) -> Result<Probe> {
        self.probe_state(self.state(pos)?)
    }

    /// Every move of the player to move, rated for that player, best
    /// first: winning moves by fastest win, then drawing moves, then losing
    /// moves by slowest loss (ties by target cell). A terminal position
    /// has none.
    ///
    /// # Errors
    /// As [`Tablebase::probe`].
    pub fn rated_moves(&self, pos: &Position) -> Result<Vec<RatedMove>> {
        Ok(self
            .rated_successors(self.state(pos)?)?
            .into_iter()
            .map(|(_, m)| m)
            .collect())
    }

    /// Rated moves with their successor states, best first.
    fn rated_successors(&self, s: u64) -> Result<Vec<(u64, RatedMove)>> {
        if matches!(self.game.initial(s), Initial::Decided(_)) {
            return Ok(Vec::new());
        }
        let mut next = Vec::with_capacity(9);
        self.game.for_each_successor(s, |t| next.push(t));
        let mover = self.game.decode(s).2;
        let mut moves = Vec::with_capacity(next.len());
        for t in next {
            let after = self.probe_state(t)?;
            let p = self.position_of(t);
            moves.push((
                t,
                RatedMove {
                    to: if mover == Turn::Cop { p.cop } else { p.thief },
                    value: after.value.flip(),
                    dte: after.dte,
                },
            ));
        }
        moves.sort_by_key(|(_, m)| (rank(m), m.to));
        Ok(moves)
    }

    /// The game from `pos` under optimal play (each side plays its best
    /// rated move): the positions from `pos` on, ending at a terminal
    /// position, at the first repeated position (included, so a draw shows
    /// its cycle), or after `max_plies` moves. From a decided position of
    /// a table with distances it has exactly `dte` moves.
    ///
    /// # Errors
    /// As [`Tablebase::probe`].
    pub fn optimal_game(&self, pos: &Position, max_plies: usize) -> Result<Vec<Position>> {
        let mut s = self.state(pos)?;
        let mut seen = HashSet::new();
        seen.insert(s);
        let mut game = vec![*pos];
        while game.len() <= max_plies {
            let Some(&(t, _)) = self.rated_successors(s)?.first() else {
                break;
            };
            game.push(self.position_of(t));
            if !seen.insert(t) {
                break;
            }
            s = t;
        }
        Ok(game)
    }

    /// For a fixed cop cell and turn, every free thief cell with its probe,
    /// in row-major order (for heatmaps).
    ///
    /// # Errors
    /// As [`Tablebase::probe`].
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
    /// As [`Tablebase::probe`].
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

    /// Verifies every block: checksum, decoding, value codes, and that the
    /// counts of values equal the trailer's.
    ///
    /// # Errors
    /// [`Error::Table`] naming the first damaged block.
    pub fn check(&self) -> Result<CheckReport> {
        let mut counts = [0u64; 4];
        let states = self.header.states;
        for b in 0..self.header.value_blocks {
            let data = self.raw.decode(Kind::Values, b)?;
            let first = b * self.header.value_block_states;
            let len = (states - first).min(self.header.value_block_states) as usize;
            for i in 0..len {
                counts[((data[i / 4] >> (2 * (i % 4))) & 3) as usize] += 1;
            }
            if counts[3] != 0 {
                return Err(self.raw.error(
                    format!("block {b} (values)"),
                    "invalid value code 3: the file is damaged",
                ));
            }
        }
        for b in 0..self.header.dte_blocks {
            self.raw.decode(Kind::Distances, b)?;
        }
        let c = self.header.counts;
        if [counts[1], counts[2], counts[0]] != [c.win, c.loss, c.draw] {
            return Err(self.raw.error(
                "trailer",
                format!(
                    "the blocks hold {} wins, {} losses, {} draws; the trailer says {}, {}, {}",
                    counts[1], counts[2], counts[0], c.win, c.loss, c.draw
                ),
            ));
        }
        Ok(CheckReport {
            value_blocks: self.header.value_blocks,
            dte_blocks: self.header.dte_blocks,
            states,
        })
    }
}

/// Sort key of a rated move, best first: wins by fastest, then draws, then
/// losses by slowest. A missing distance sorts after known ones among wins.
fn rank(m: &RatedMove) -> (u8, i64) {
    let d = m.dte.map(|d| i64::from(d.plies()));
    match m.value {
        Outcome::Win => (0, d.unwrap_or(i64::MAX)),
        Outcome::Draw => (1, 0),
        Outcome::Loss => (2, d.map_or(0, |d| -d)),
    }
}
