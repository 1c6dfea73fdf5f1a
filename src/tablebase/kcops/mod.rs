//! Tablebases of the several-cops game ([`KCops`]): a solve saved with its
//! whole game (a grid map and its rules, or a graph's edges; the number of
//! cops, the speeds, exits and start) in format version 4, and the
//! [`KTablebase`] reader that answers positions, rates moves and plays
//! optimal games from it.
//!
//! The blocks, distance codec, index and trailer are the one-cop table's
//! (`format/`), over the k-cop states in thief tiles ([`order`]): a
//! distance-coding row is one cop multiset's states of a tile.

use std::path::{Path, PathBuf};

use super::order::StateOrder;
use super::reader::{table_error, Kind, Raw};
use super::writer::game_of;
use super::{CheckReport, Probe};
use crate::error::{Error, Result};
use crate::format::Coord;
use crate::games::cops::{Rules, Turn};
use crate::games::kcops::KCops;
use crate::grid::Grid;
use crate::outcome::{Dte, Outcome};
use crate::solve::Counts;

/// A position of the several-cops game: the cops' cells (cell ids,
/// ascending: the cops are interchangeable), the thief's and the player to
/// move. Cell ids are a map's free cells in row-major order, or a graph's
/// vertices.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KPosition {
    /// The cops' cells, ascending.
    pub cops: Vec<u32>,
    /// The thief's cell.
    pub thief: u32,
    /// Who moves next.
    pub turn: Turn,
}

/// One move of the player to move in a several-cops table, rated: the
/// position it leads to (the cops' cells after a cop move, the thief's
/// after a thief move), with its value for the player who makes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KRatedMove {
    /// The position after the move.
    pub to: KPosition,
    /// What the move gives the player who makes it.
    pub value: Outcome,
    /// Distance to end after the move (`None` for a draw or without
    /// distances).
    pub dte: Option<Dte>,
}

/// What a several-cops table says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KHeader {
    /// Format version of the file (5; 4 from older builds).
    pub version: u32,
    /// Number of cops.
    pub cops: u32,
    /// Steps a cop takes per turn.
    pub cop_speed: u32,
    /// Steps the thief takes per turn.
    pub thief_speed: u32,
    /// Whether the game is on a graph (else on a grid map).
    pub graph: bool,
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
    /// The start (first mover to move), if the solve had one.
    pub start: Option<KPosition>,
    /// The rule variant solved (on a graph only the pass flags and
    /// thief-first matter).
    pub rules: Rules,
    /// States: `2 * n * C(n + k - 1, k)`.
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
    /// Thief cells per tile of the file's state order (the cells in a
    /// version 4 table, which has one tile).
    pub thief_tile: u32,
    /// Number of values blocks.
    pub value_blocks: u64,
    /// Number of distance blocks.
    pub dte_blocks: u64,
    /// Compressed bytes of the values blocks.
    pub value_bytes: u64,
    /// Compressed bytes of the distance blocks.
    pub dte_bytes: u64,
    /// Bytes of the file.
    pub file_bytes: u64,
}

/// A saved several-cops solve: answers any position by decoding one block
/// (the reader and caches of [`Tablebase`](crate::Tablebase)).
pub struct KTablebase {
    path: PathBuf,
    raw: Raw,
    game: KCops,
    header: KHeader,
    /// Where a state of the game lies in the file.
    order: StateOrder,
}

impl KTablebase {
    /// Opens a several-cops table, checking it as
    /// [`Tablebase::open`](crate::Tablebase::open) does.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read, [`Error::Table`] when it
    /// is damaged, not a table, or a one-cop table.
    pub fn open(path: &Path) -> Result<KTablebase> {
        KTablebase::from_raw(path, Raw::open(path)?)
    }

    pub(crate) fn from_raw(path: &Path, raw: Raw) -> Result<KTablebase> {
        let Some(k) = raw.body.kcops.clone() else {
            return Err(raw.error(
                "header",
                format!(
                    "a one-cop table (format version {}), not one of several cops",
                    raw.version
                ),
            ));
        };
        let game = game_of(&raw.body, &k).map_err(|e| raw.error("header", e.to_string()))?;
        let body = &raw.body;
        let order = StateOrder::new(
            u64::from(game.arena().cells()),
            u64::from(k.thief_tile),
            game.multisets(),
        );
        let header = KHeader {
            version: raw.version,
            cops: k.cops,
            cop_speed: k.cop_speed,
            thief_speed: k.thief_speed,
            graph: k.graph,
            rows: body.rows,
            cols: body.cols,
            cells: u64::from(game.arena().cells()),
            edges: k.edges.len() as u64,
            exits: body.exits.count_ones() as u64,
            start: k.start.map(|(cops, thief)| KPosition {
                cops,
                thief,
                turn: body.rules.first_mover(),
            }),
            rules: body.rules,
            states: raw.trailer.states,
            counts: raw.trailer.counts,
            levels: raw.trailer.levels,
            max_dte: raw.trailer.max_dte,
            engine: body.engine.clone(),
            has_dte: body.has_dte,
            thief_tile: order.tile() as u32,
            value_blocks: raw.blocks(Kind::Values),
            dte_blocks: raw.blocks(Kind::Distances),
            value_bytes: raw.block_bytes(Kind::Values),
            dte_bytes: raw.block_bytes(Kind::Distances),
            file_bytes: raw.file_bytes(),
        };
        Ok(KTablebase {
            path: path.to_path_buf(),
            raw,
            game,
            header,
            order,
        })
    }

    /// The path as opened.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The decoded header.
    #[must_use]
    pub fn header(&self) -> &KHeader {
        &self.header
    }

    /// The game, rebuilt from the stored map or graph.
    #[must_use]
    pub fn game(&self) -> &KCops {
        &self.game
    }

    /// The number of cops.
    #[must_use]
    pub fn cops(&self) -> u32 {
        self.header.cops
    }

    /// The rules' first mover.
    #[must_use]
    pub fn first_mover(&self) -> Turn {
        self.header.rules.first_mover()
    }

    /// The map's grid (`None` on a graph).
    #[must_use]
    pub fn grid(&self) -> Option<&Grid> {
        self.game.arena().grid()
    }

    /// Whether cell `c` is an exit.
    #[must_use]
    pub fn is_exit(&self, c: u32) -> bool {
        c < self.game.arena().cells() && self.game.arena().is_exit(c)
    }

    /// The cell of a map's `(row, col)`; `what` names the piece in errors.
    ///
    /// # Errors
    /// [`Error::Placement`] when the table is of a graph, or the cell is
    /// off the map or a wall.
    pub fn map_cell(&self, what: &str, c: Coord) -> Result<u32> {
        let label = format!("{what} {},{}", c.0, c.1);
        let Some(grid) = self.grid() else {
            return Err(Error::Placement {
                what: label,
                message: format!(
                    "the table is of a graph: give a vertex id 0..{}",
                    self.header.cells
                ),
            });
        };
        if c.0 >= grid.height() || c.1 >= grid.width() {
            return Err(Error::Placement {
                what: label,
                message: format!(
                    "outside the map: rows are 0..={}, columns 0..={}",
                    grid.height() - 1,
                    grid.width() - 1
                ),
            });
        }
        grid.cell_at(c.0, c.1).ok_or(Error::Placement {
            what: label,
            message: "is a wall: expected a free cell".to_string(),
        })
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
            .filter(|&v| u64::from(v) < self.header.cells)
            .ok_or(Error::Placement {
                what: label,
                message: format!("the graph's vertices are 0..{}", self.header.cells),
            })
    }

    /// A position from cells of the game (any order of the cops).
    ///
    /// # Errors
    /// [`Error::Placement`] when there are not `k` cops, or a cell is not
    /// one of the game's.
    pub fn position(&self, cops: &[u32], thief: u32, turn: Turn) -> Result<KPosition> {
        if cops.len() != self.cops() as usize {
            return Err(Error::Placement {
                what: "cops".to_string(),
                message: format!(
                    "the table is of {} cop{}, the position places {}",
                    self.cops(),
                    if self.cops() == 1 { "" } else { "s" },
                    cops.len()
                ),
            });
        }
        let n = self.game.arena().cells();
        if let Some(&bad) = cops.iter().chain([&thief]).find(|&&c| c >= n) {
            return Err(Error::Placement {
                what: format!("cell {bad}"),
                message: format!("the game's cells are 0..{n}"),
            });
        }
        let mut cops = cops.to_vec();
        cops.sort_unstable();
        Ok(KPosition { cops, thief, turn })
    }

    fn state(&self, pos: &KPosition) -> Result<u64> {
        let checked = self.position(&pos.cops, pos.thief, pos.turn)?;
        Ok(self.game.state(&checked.cops, checked.thief, checked.turn))
    }

    fn position_of(&self, s: u64) -> KPosition {
        let (cops, thief, turn) = self.game.decode(s);
        KPosition { cops, thief, turn }
    }

    /// Value of state index `s` for its player to move, without its
    /// distance: one values block read, none of the (larger) distance
    /// blocks (what the shares of a whole map need).
    ///
    /// # Errors
    /// [`Error::Table`] when the block is damaged, or `s` is not a state
    /// of the table.
    pub fn value_state(&self, s: u64) -> Result<Outcome> {
        Ok(self.value_at(s)?.1)
    }

    /// Where state `s` lies in the file, and its value there.
    fn value_at(&self, s: u64) -> Result<(u64, Outcome)> {
        if s >= self.header.states {
            return Err(table_error(
                &self.path,
                "probe",
                format!("state {s}: the table has {} states", self.header.states),
            ));
        }
        let f = self.order.file_index(s);
        let value = match self.raw.value(f)? {
            1 => Outcome::Win,
            2 => Outcome::Loss,
            _ => Outcome::Draw,
        };
        Ok((f, value))
    }

    /// Value and distance of state index `s`, for its player to move.
    ///
    /// # Errors
    /// [`Error::Table`] when a block it reads is damaged, or `s` is not a
    /// state of the table.
    pub fn probe_state(&self, s: u64) -> Result<Probe> {
        let (f, value) = self.value_at(s)?;
        let dte = if value != Outcome::Draw && self.header.has_dte {
            Some(Dte(u32::from(self.raw.distance(f)?)))
        } else {
            None
        };
        Ok(Probe { value, dte })
    }

    /// Value and distance of a position, for the player to move.
    ///
    /// # Errors
    /// As [`KTablebase::position`] and [`KTablebase::probe_state`].
    pub fn probe(&self, pos: &KPosition) -> Result<Probe> {
        self.probe_state(self.state(pos)?)
    }

    /// Every move of the player to move (each distinct position it can
    /// reach: cops that swap targets make one move), rated for that
    /// player, best first as
    /// [`Tablebase::rated_moves`](crate::Tablebase::rated_moves) orders
    /// them (ties by the cells after the move). A terminal position has
    /// none.
    ///
    /// # Errors
    /// As [`KTablebase::probe`].
    pub fn rated_moves(&self, pos: &KPosition) -> Result<Vec<KRatedMove>> {
        Ok(self
            .rated_successors(self.state(pos)?)?
            .into_iter()
            .map(|(_, m)| m)
            .collect())
    }

    fn rated_successors(&self, s: u64) -> Result<Vec<(u64, KRatedMove)>> {
        super::moves::rate_successors(
            &self.game,
            s,
            |t| self.probe_state(t),
            |t, after| KRatedMove {
                to: self.position_of(t),
                value: after.value.flip(),
                dte: after.dte,
            },
            |m| {
                (
                    super::moves::rank(m.value, m.dte),
                    m.to.cops.clone(),
                    m.to.thief,
                )
            },
        )
    }

    /// The game from `pos` under optimal play, as
    /// [`Tablebase::optimal_game`](crate::Tablebase::optimal_game): ending
    /// at a terminal position, at the first repeated position (included),
    /// or after `max_plies` moves.
    ///
    /// # Errors
    /// As [`KTablebase::probe`].
    pub fn optimal_game(&self, pos: &KPosition, max_plies: usize) -> Result<Vec<KPosition>> {
        let line = super::moves::optimal_line(self.state(pos)?, max_plies, |s| {
            Ok(self.rated_successors(s)?.first().map(|&(t, _)| t))
        })?;
        Ok(line.into_iter().map(|s| self.position_of(s)).collect())
    }

    /// As [`Tablebase::cop_wins_by_multiset`](crate::Tablebase::cop_wins_by_multiset).
    ///
    /// # Errors
    /// [`Error::Table`] naming the first damaged block.
    pub fn cop_wins_by_multiset(&self, turn: Turn) -> Result<Vec<u32>> {
        let n = u64::from(self.game.arena().cells());
        super::scan::wins_in_file(
            &self.raw,
            &self.order,
            &crate::games::multiset::Ranker::new(n as usize),
            n,
            self.cops() as usize,
            self.game.multisets(),
            turn,
        )
    }

    /// Verifies every block: checksum, decoding, value codes, counts.
    ///
    /// # Errors
    /// [`Error::Table`] naming the first damaged block.
    pub fn check(&self) -> Result<CheckReport> {
        super::check::check_raw(&self.raw)?;
        Ok(CheckReport {
            value_blocks: self.header.value_blocks,
            dte_blocks: self.header.dte_blocks,
            states: self.header.states,
        })
    }
}
