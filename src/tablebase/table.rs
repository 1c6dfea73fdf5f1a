//! [`Tablebase`]: one reader for every table the project writes (format
//! versions 2 to 5), of one cop or several, on a map or a graph. A one-cop
//! table is a table of k = 1: every state index is `(rank * n + thief) *
//! 2 + turn` (the rank of one cop is its cell), and what differs between
//! the kinds stays in here: the game that generates moves, the order of
//! the states in the file (several-cops tables tile the thief cells) and
//! the shards (the files of a partitioned solve).

use std::path::{Path, PathBuf};

use super::check::{self, CheckReport};
use super::header::{header_of, Header};
use super::moves::{optimal_line, rank, rate_successors, Probe};
use super::order::StateOrder;
use super::reader::{table_error, Raw};
use super::shards::{open_first, open_set, shard_headers};
use super::writer::game_of;
use crate::board::Board;
use crate::error::{Error, Result};
use crate::format::Coord;
use crate::games::cops::{CopsAndThief, Turn};
use crate::games::cops_game::CopsGame;
use crate::games::multiset::{Ranker, MAX_COPS};
use crate::games::position::{Cops, Position};
use crate::grid::Grid;
use crate::outcome::{Dte, Outcome};

/// One move of the player to move, rated: the position it leads to, with
/// its value for the player who makes it. Cops that swap targets make one
/// move; a pass leads to the same cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RatedMove {
    /// The position after the move.
    pub to: Position,
    /// What the move gives the player who makes it.
    pub value: Outcome,
    /// Distance to end after the move (`None` for a draw or without
    /// distances).
    pub dte: Option<Dte>,
}

impl RatedMove {
    /// The mover's cells after the move (the cops' or the thief's).
    #[must_use]
    pub fn cells(&self) -> &[u32] {
        match self.to.turn {
            // After a cop move the thief is to move: the cops moved.
            Turn::Thief => self.to.cops.as_slice(),
            Turn::Cop => std::slice::from_ref(&self.to.thief),
        }
    }
}

/// A saved solve of any number of cops, on a map or a graph: answers any
/// position by decoding one block. Cheap to share between threads
/// (`&Tablebase` is `Sync`); each thread keeps its last decoded block of
/// values and of distances, and the table keeps up to 256 MiB of decoded
/// blocks for all threads, so probes near each other, or asked again,
/// cost one decode.
///
/// # Example
/// ```
/// use retrograde::{parse_map, solve, write_tablebase, CopsGame, Engine, Outcome, Placement, Rules, SolveOptions, Tablebase, Turn, Speeds};
/// let map = parse_map(b"1 4\nC..T\n", "inline").unwrap();
/// let game = CopsGame::from_map(&map, &Placement::default(), Rules::default(), 1, Speeds::default()).unwrap();
/// let solution = solve(&game, &SolveOptions::new(Engine::Sequential).with_dte_table(true)).unwrap();
/// let path = std::env::temp_dir().join(format!("tb-doc-{}.rtb", std::process::id()));
/// write_tablebase(&game, &solution, "sequential", &mut std::fs::File::create(&path).unwrap()).unwrap();
/// let table = Tablebase::open(&path).unwrap();
/// let cop = table.map_cell("cop", (0, 0)).unwrap();
/// let thief = table.map_cell("thief", (0, 3)).unwrap();
/// let pos = table.position(&[cop], thief, Turn::Cop).unwrap();
/// let probe = table.probe(&pos).unwrap();
/// assert_eq!(probe.value, Outcome::Win); // a dead-end corridor: the cop walks in
/// let best = table.rated_moves(&pos).unwrap()[0];
/// assert_eq!(table.coords(best.to.cops[0]), Some((0, 1)));
/// assert_eq!(table.optimal_game(&pos, 100).unwrap().len() as u32 - 1, probe.dte.unwrap().plies());
/// std::fs::remove_file(&path).unwrap();
/// ```
pub struct Tablebase {
    /// The path as opened.
    path: PathBuf,
    /// The files, in file order, tiling the states (one without shards).
    shards: Vec<Raw>,
    header: Header,
    /// The game solved, rebuilt from the header: it generates the moves
    /// that [`Tablebase::rated_moves`] rates.
    game: CopsGame,
    /// Where a state of the game lies in each file, one order per file
    /// (the identity without thief tiles; a several-cops shard's over its
    /// band).
    orders: Vec<StateOrder>,
    /// Ranks of the cops' multisets (a one-cop rank is the cell).
    ranker: Ranker,
    /// Cells of the game.
    n: u64,
}

impl Tablebase {
    /// Opens and maps a table of any number of cops, checking its magic,
    /// version, header checksum, trailer and block index (blocks are
    /// checked when read, or all at once by [`Tablebase::check`]).
    ///
    /// `path` may also name any shard of a partitioned solve's table, or,
    /// when no such file exists, the name it was saved under (`t.rtb` for
    /// `t.0-of-3.rtb` ...): every shard of the set is opened (by its name,
    /// [`shard_path`](crate::shard_path)) and checked to be there once and
    /// of the same solve.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::Table`] naming
    /// the offset or part when it is truncated, damaged or not a table, and
    /// naming the shard when one is missing, duplicated or of another solve.
    pub fn open(path: &Path) -> Result<Tablebase> {
        let raw = open_first(path)?;
        // A table with the several-cops game section (format 4 to 6)
        // rebuilds its game from it before the other shards are opened.
        let section = raw.body.kcops.clone();
        let several = match &section {
            Some(k) => Some(game_of(&raw.body, k).map_err(|e| raw.error("header", e.to_string()))?),
            None => None,
        };
        let shards = match raw.body.shard {
            None => vec![raw],
            Some(info) => open_set(raw, info)?,
        };
        let body = &shards[0].body;
        let (game, orders, files) = match (several, &section) {
            (Some(game), Some(k)) => {
                let n = u64::from(game.arena().cells());
                let game = CopsGame::of_arena(game, body.rules);
                let game = match &k.start {
                    Some((cops, thief)) => game
                        .with_start(cops, *thief)
                        .map_err(|e| shards[0].error("header", e.to_string()))?,
                    None => game,
                };
                // Each file in thief tiles over its own multisets (a whole
                // table's are all of them).
                let orders = shards.iter().map(|r| {
                    let ranks = r.trailer.states / (2 * n).max(1);
                    StateOrder::new(n, u64::from(k.thief_tile), ranks).starting_at(r.first)
                });
                // A several-cops band is of multisets, not of cop rows.
                (game, orders.collect(), shard_headers(&shards, n, |_| 0..0))
            }
            _ => {
                let grid = Grid::new(body.rows, body.cols, body.free.clone());
                let cell = |c: Option<Coord>| c.and_then(|(r, col)| grid.cell_at(r, col));
                let board = Board {
                    cop: cell(body.cop),
                    thief: cell(body.thief),
                    exits: body.exits.clone(),
                    grid: grid.clone(),
                };
                let game = CopsGame::of_grid(CopsAndThief::new(board, body.rules));
                let n = u64::from(game.cells());
                let rows_of = |states: &std::ops::Range<u64>| {
                    let row = |state: u64| {
                        let cop = state / (2 * n).max(1);
                        if cop < n {
                            grid.coords(cop as u32).0
                        } else {
                            body.rows
                        }
                    };
                    row(states.start)..row(states.end)
                };
                let orders = vec![StateOrder::new(n, n, n); shards.len()];
                (game, orders, shard_headers(&shards, n, rows_of))
            }
        };
        let n = u64::from(game.cells());
        let edges = section.as_ref().map_or(0, |k| k.edges.len() as u64);
        let mut header = header_of(&shards, body, n, edges, game.start(), files);
        if let Some(k) = &section {
            header.cops = k.cops;
            header.cop_speed = k.cop_speed;
            header.thief_speed = k.thief_speed;
            header.graph = k.graph;
            header.game_section = true;
            header.thief_tile = orders[0].tile() as u32;
            header.cop_start = None;
            header.thief_start = None;
        }
        Ok(Tablebase {
            path: path.to_path_buf(),
            shards,
            header,
            game,
            orders,
            ranker: Ranker::new(n as usize),
            n,
        })
    }

    /// The path as opened.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The decoded header.
    #[must_use]
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The number of cops.
    #[must_use]
    pub fn cops(&self) -> u32 {
        self.header.cops
    }

    /// The cells of the game (a map's free cells, a graph's vertices).
    #[must_use]
    pub fn cells(&self) -> u32 {
        self.n as u32
    }

    /// The rules' first mover.
    #[must_use]
    pub fn first_mover(&self) -> Turn {
        self.header.rules.first_mover()
    }

    /// The start position (first mover to move), if the table has one.
    #[must_use]
    pub fn start(&self) -> Option<Position> {
        self.header.start
    }

    /// The map's grid (`None` on a graph).
    #[must_use]
    pub fn grid(&self) -> Option<&Grid> {
        self.game.grid()
    }

    /// The game of the table, as solved (rebuilt from its header): one
    /// cop on a map for a table without the game section, else the
    /// several-cops game of the game section, any k, map or graph.
    #[must_use]
    pub fn game(&self) -> &CopsGame {
        &self.game
    }

    /// Whether cell `c` is an exit (false for a cell not of the game).
    #[must_use]
    pub fn is_exit(&self, c: u32) -> bool {
        self.game.is_exit(c)
    }

    /// The cell of a map's `(row, col)`; `None` off the map, on a wall, or
    /// on a graph.
    #[must_use]
    pub fn cell_at(&self, c: Coord) -> Option<u32> {
        let grid = self.grid()?;
        if c.0 < grid.height() && c.1 < grid.width() {
            grid.cell_at(c.0, c.1)
        } else {
            None
        }
    }

    /// The `(row, col)` of a map's cell; `None` on a graph.
    #[must_use]
    pub fn coords(&self, cell: u32) -> Option<Coord> {
        let grid = self.grid()?;
        (u64::from(cell) < self.n).then(|| grid.coords(cell))
    }

    /// The cell of a map's `(row, col)`; `what` names the piece in errors.
    ///
    /// # Errors
    /// [`Error::Placement`] when the table is of a graph, or the cell is
    /// off the map or a wall.
    pub fn map_cell(&self, what: &str, c: Coord) -> Result<u32> {
        let Some(grid) = self.grid() else {
            return Err(Error::Placement {
                what: format!("{what} {},{}", c.0, c.1),
                message: format!("the table is of a graph: give a vertex id 0..{}", self.n),
            });
        };
        grid.free_cell(what, c)
    }

    /// The cell of a graph's vertex `v`.
    ///
    /// # Errors
    /// [`Error::Placement`] when the table is of a map or `v` is not a
    /// vertex.
    pub fn vertex(&self, what: &str, v: u64) -> Result<u32> {
        let label = format!("{what} {v}");
        if self.grid().is_some() {
            return Err(Error::Placement {
                what: label,
                message: "the table is of a map: give ROW,COL".to_string(),
            });
        }
        u32::try_from(v)
            .ok()
            .filter(|&v| u64::from(v) < self.n)
            .ok_or(Error::Placement {
                what: label,
                message: format!("the graph's vertices are 0..{}", self.n),
            })
    }

    /// A position from cells of the game (the cops in any order).
    ///
    /// # Errors
    /// [`Error::Placement`] when there are not `k` cops, or a cell is not
    /// one of the game's.
    pub fn position(&self, cops: &[u32], thief: u32, turn: Turn) -> Result<Position> {
        let k = self.cops();
        if cops.len() != k as usize {
            return Err(Error::Placement {
                what: "cops".to_string(),
                message: format!(
                    "the table is of {k} cop{}, the position places {}",
                    if k == 1 { "" } else { "s" },
                    cops.len()
                ),
            });
        }
        if let Some(&bad) = cops
            .iter()
            .chain([&thief])
            .find(|&&c| u64::from(c) >= self.n)
        {
            return Err(Error::Placement {
                what: format!("cell {bad}"),
                message: format!("the game's cells are 0..{}", self.n),
            });
        }
        let cops = Cops::new(cops).expect("1 to MAX_COPS cells, checked");
        Ok(Position { cops, thief, turn })
    }

    /// The state index of a position (the engines' index: `(rank * n +
    /// thief) * 2 + turn`).
    ///
    /// # Errors
    /// As [`Tablebase::position`].
    pub fn state(&self, pos: &Position) -> Result<u64> {
        let checked = self.position(&pos.cops, pos.thief, pos.turn)?;
        Ok(self.state_unchecked(&checked.cops, checked.thief, checked.turn))
    }

    /// The state of `k` ascending cells of the game, a thief cell and a
    /// turn, unchecked (the caller has checked the cells).
    #[inline]
    #[must_use]
    pub fn state_unchecked(&self, cops: &[u32], thief: u32, turn: Turn) -> u64 {
        (self.ranker.rank(cops) * self.n + u64::from(thief)) * 2 + turn as u64
    }

    /// The position of state index `s`.
    #[must_use]
    pub fn position_of(&self, s: u64) -> Position {
        let pair = s >> 1;
        let turn = if s & 1 == 0 { Turn::Cop } else { Turn::Thief };
        let k = self.cops() as usize;
        let mut cells = [0u32; MAX_COPS];
        self.ranker.unrank(pair / self.n, &mut cells[..k]);
        Position {
            cops: Cops::new(&cells[..k]).expect("k cells"),
            thief: (pair % self.n) as u32,
            turn,
        }
    }

    /// The file holding state `s`, by its place in [`Tablebase::shards`]
    /// (the shards tile the states, each its band's file indices too; an
    /// empty shard shares its first state with the next one, which holds
    /// it).
    fn file_of(&self, s: u64) -> usize {
        if self.shards.len() == 1 {
            return 0;
        }
        self.shards
            .partition_point(|r| r.first <= s)
            .saturating_sub(1)
    }

    /// Where state `s` lies in the files, and its value there.
    fn value_at(&self, s: u64) -> Result<(u64, Outcome)> {
        if s >= self.header.states {
            return Err(table_error(
                &self.path,
                "probe",
                format!("state {s}: the table has {} states", self.header.states),
            ));
        }
        let k = self.file_of(s);
        let f = self.orders[k].file_index(s);
        let value = match self.shards[k].value(f)? {
            1 => Outcome::Win,
            2 => Outcome::Loss,
            _ => Outcome::Draw,
        };
        Ok((f, value))
    }

    /// Value of state index `s` for its player to move, without its
    /// distance: one values block read, none of the (larger) distance
    /// blocks.
    ///
    /// # Errors
    /// [`Error::Table`] when the block is damaged, or `s` is not a state
    /// of the table.
    pub fn value_state(&self, s: u64) -> Result<Outcome> {
        Ok(self.value_at(s)?.1)
    }

    /// Value and distance of state index `s`, for its player to move.
    ///
    /// # Errors
    /// [`Error::Table`] when a block it reads is damaged, or `s` is not a
    /// state of the table.
    pub fn probe_state(&self, s: u64) -> Result<Probe> {
        let (f, value) = self.value_at(s)?;
        let dte = if value != Outcome::Draw && self.header.has_dte {
            Some(Dte(u32::from(self.shards[self.file_of(s)].distance(f)?)))
        } else {
            None
        };
        Ok(Probe { value, dte })
    }

    /// Value and distance of a position, for the player to move.
    ///
    /// # Errors
    /// As [`Tablebase::position`] and [`Tablebase::probe_state`].
    pub fn probe(&self, pos: &Position) -> Result<Probe> {
        self.probe_state(self.state(pos)?)
    }

    /// For fixed cops and turn, every cell of the game as the thief's with
    /// its probe, in cell order (for heatmaps).
    ///
    /// # Errors
    /// As [`Tablebase::probe`].
    pub fn thief_cells(&self, cops: &[u32], turn: Turn) -> Result<Vec<Probe>> {
        let pos = self.position(cops, 0, turn)?;
        (0..self.n as u32)
            .map(|t| self.probe_state(self.state_unchecked(&pos.cops, t, turn)))
            .collect()
    }

    /// For a fixed thief cell and turn, every cell of the game as the one
    /// cop's with its probe, in cell order: a one-cop table's heatmap of
    /// the cop.
    ///
    /// # Errors
    /// [`Error::Placement`] on a table of several cops; otherwise as
    /// [`Tablebase::probe`].
    pub fn cop_cells(&self, thief: u32, turn: Turn) -> Result<Vec<Probe>> {
        let pos = self.position(&[0], thief, turn)?;
        (0..self.n as u32)
            .map(|p| self.probe_state(self.state_unchecked(&[p], pos.thief, turn)))
            .collect()
    }

    /// Every move of the player to move (each distinct position it can
    /// reach: cops that swap targets make one move), rated for that
    /// player, best first: winning moves by fastest win, then drawing
    /// moves, then losing moves by slowest loss (ties by the cells after
    /// the move). A terminal position has none.
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
        let rate = |t: u64, after: Probe| RatedMove {
            to: self.position_of(t),
            value: after.value.flip(),
            dte: after.dte,
        };
        let key = |m: &RatedMove| (rank(m.value, m.dte), m.to.cops, m.to.thief);
        let probe = |t| self.probe_state(t);
        rate_successors(&self.game, s, probe, rate, key)
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
        let line = optimal_line(self.state(pos)?, max_plies, |s| {
            Ok(self.rated_successors(s)?.first().map(|&(t, _)| t))
        })?;
        Ok(line.into_iter().map(|s| self.position_of(s)).collect())
    }

    /// Verifies every block of every file: checksum, decoding, value
    /// codes, and that the counts of values equal each file's trailer;
    /// then that every state's value (and distance) follows from its
    /// successors' in the game the header names, which a header forged
    /// with a recomputed checksum (other rules) does not pass.
    ///
    /// # Errors
    /// [`Error::Table`] naming the file and its first damaged block, or a
    /// state whose stored value its moves contradict.
    pub fn check(&self) -> Result<CheckReport> {
        for raw in &self.shards {
            check::check_raw(raw)?;
        }
        let table = (self.path(), self.header.states, self.header.has_dte);
        check::check_moves(table, &self.game, |s| self.probe_state(s))?;
        Ok(CheckReport {
            value_blocks: self.header.value_blocks,
            dte_blocks: self.header.dte_blocks,
            states: self.header.states,
        })
    }

    /// The files, the state order of each and the ranking (for
    /// whole-table scans).
    pub(super) fn scan_parts(&self) -> (&[Raw], &[StateOrder], &Ranker, u64) {
        (&self.shards, &self.orders, &self.ranker, self.n)
    }
}

#[cfg(test)]
mod tests;
