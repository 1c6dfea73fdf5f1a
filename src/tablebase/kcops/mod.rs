//! Tablebases of the several-cops game ([`KCops`]): a solve saved with its
//! whole game (a grid map and its rules, or a graph's edges; the number of
//! cops, the speeds, exits and start) in format version 4, and the
//! [`KTablebase`] reader that answers positions, rates moves and plays
//! optimal games from it.
//!
//! The blocks, distance codec, index and trailer are the one-cop table's
//! (`format/`), over the k-cop state index `(rank(cops) * n + thief) * 2 +
//! turn`: a distance-coding row is one cop multiset's `2 * n` states.

use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use bitvec::vec::BitVec;

use super::format::{HeaderBody, KSection};
use super::reader::{table_error, Kind, Raw};
use super::writer::{write_blocks, Source, WriteSummary};
use super::{CheckReport, Probe};
use crate::copnumber::KSolution;
use crate::error::{Error, Result};
use crate::format::Coord;
use crate::game::{Game, Initial};
use crate::{Arena, Board, Counts, Dte, Grid, KCops, Outcome, Rules, Solution, Turn};

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
    /// Format version of the file (4).
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

/// States per values block and per distance block of a several-cops
/// table: an eighth of a one-cop table's. A query rates every joint move of
/// the cops, whose multisets lie far apart in the state order (a rank
/// moves by about `c * n` when a cop moves a row), so it reads blocks of
/// several cop rows. On a two-cop 16 x 16 map (1.1e7 states), a query that
/// decodes every block it reads took 3.4-3.8 ms of CPU at the 99th
/// percentile with blocks of 2^18 states, 0.98 ms with 2^15, for a file
/// 1.46 times larger (docs/measurements.md).
const BLOCK_STATES: u64 = 1 << 15;

/// The header of `game`'s table: a map's grid or a 1 x n grid of vertices,
/// the exits, `rules` and the game section.
fn kcops_header(
    game: &KCops,
    rules: Rules,
    start: Option<(&[u32], u32)>,
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
        shard: None,
        kcops: Some(KSection {
            graph: arena.grid().is_none(),
            cops: game.cops(),
            cop_speed,
            thief_speed,
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
fn game_of(body: &HeaderBody, k: &KSection) -> Result<KCops> {
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

/// Writes `solution` of the several-cops `game` as a self-contained table
/// (format version 4) to `out`: the map (with `rules`, which built the
/// game's moves) or the graph, the number of cops, speeds, exits, the
/// start `(cops, thief)` if given, then the blocks as
/// [`write_tablebase`](crate::write_tablebase) writes them. `out` is
/// written once, in order; make the file appear atomically by writing a
/// temporary file and renaming it (the CLI does).
///
/// # Errors
/// Any error of `out`; [`io::ErrorKind::InvalidInput`] when `solution` is
/// not of `game` (state count), when `rules` do not give `game`'s moves,
/// or when the start is not `k` cells and a thief of the game.
///
/// # Example
/// ```
/// use retrograde::{solve, write_kcops_tablebase, Arena, Engine, KCops, KTablebase, Outcome, Rules, SolveOptions};
/// let cycle = Arena::from_edges(5, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]).unwrap();
/// let game = KCops::new(cycle, 2).unwrap();
/// let solution = solve(&game, &SolveOptions::new(Engine::Sequential).with_dte_table(true)).unwrap();
/// let path = std::env::temp_dir().join(format!("k-doc-{}.rtb", std::process::id()));
/// let mut file = std::fs::File::create(&path).unwrap();
/// write_kcops_tablebase(&game, Rules::default(), Some((&[0, 0], 2)), &solution, "sequential", &mut file).unwrap();
/// let table = KTablebase::open(&path).unwrap();
/// let start = table.header().start.clone().unwrap();
/// assert_eq!(table.probe(&start).unwrap().value, Outcome::Win);
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn write_kcops_tablebase(
    game: &KCops,
    rules: Rules,
    start: Option<(&[u32], u32)>,
    solution: &Solution,
    engine: &str,
    out: &mut impl Write,
) -> io::Result<WriteSummary> {
    write_kcops(game, rules, start, solution, engine, out)
}

/// [`write_kcops_tablebase`] from the bit-parallel k-cop engine's
/// solution ([`KSolution`], `solve --cops K`'s default engine): the same
/// file, byte for byte, as from a counter engine's solution of the game.
///
/// # Errors
/// As [`write_kcops_tablebase`].
pub fn write_kcops_tablebase_bits(
    game: &KCops,
    rules: Rules,
    start: Option<(&[u32], u32)>,
    solution: &KSolution,
    engine: &str,
    out: &mut impl Write,
) -> io::Result<WriteSummary> {
    write_kcops(game, rules, start, solution, engine, out)
}

/// The bit engine's solution as the writer reads it: its states are
/// indexed as [`KCops`]' are, `(rank(cops) * n + thief) * 2 + turn`.
impl Source for KSolution {
    fn states(&self) -> u64 {
        KSolution::states(self)
    }

    fn has_dte(&self) -> bool {
        self.has_dte_table()
    }

    fn levels(&self) -> u32 {
        self.levels
    }

    fn fill_values(&self, range: std::ops::Range<u64>, out: &mut [u8]) {
        out.fill(0);
        for (i, s) in range.enumerate() {
            out[i / 4] |= (self.state_value(s).0 as u8) << (2 * (i % 4));
        }
    }

    fn fill_dte(&self, range: std::ops::Range<u64>, _values: &[u8], out: &mut [u16]) {
        for (d, s) in out.iter_mut().zip(range) {
            // Draws have no distance: 0, as the one-cop writer stores them.
            *d = self.state_value(s).1.map_or(0, |d| {
                u16::try_from(d.plies()).expect("distances fit the table's 16 bits")
            });
        }
    }
}

fn write_kcops(
    game: &KCops,
    rules: Rules,
    start: Option<(&[u32], u32)>,
    solution: &impl Source,
    engine: &str,
    out: &mut impl Write,
) -> io::Result<WriteSummary> {
    let invalid = |m: String| io::Error::new(io::ErrorKind::InvalidInput, m);
    let n = game.state_count();
    if solution.states() != n {
        return Err(invalid(format!(
            "the solution has {} states, the game {n}: not a solution of this game",
            solution.states()
        )));
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
    let header = kcops_header(game, rules, start, engine);
    // The reader rebuilds the game from the header: it must be this one.
    let k = header.kcops.as_ref().expect("a game section");
    let rebuilt = game_of(&header, k).map_err(|e| invalid(e.to_string()))?;
    if !rebuilt.arena().same_moves(game.arena()) {
        return Err(invalid(
            "the rules do not give this game's moves: pass the rules its arena was built with"
                .to_string(),
        ));
    }
    write_blocks(&header, 2 * cells as usize, solution, out, 32)
}

/// A saved several-cops solve: answers any position by decoding one block
/// (the reader and caches of [`Tablebase`](crate::Tablebase)).
pub struct KTablebase {
    path: PathBuf,
    raw: Raw,
    game: KCops,
    header: KHeader,
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

    /// Value and distance of state index `s`, for its player to move.
    ///
    /// # Errors
    /// [`Error::Table`] when a block it reads is damaged, or `s` is not a
    /// state of the table.
    pub fn probe_state(&self, s: u64) -> Result<Probe> {
        if s >= self.header.states {
            return Err(table_error(
                &self.path,
                "probe",
                format!("state {s}: the table has {} states", self.header.states),
            ));
        }
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
        if matches!(self.game.initial(s), Initial::Decided(_)) {
            return Ok(Vec::new());
        }
        let mut next = Vec::new();
        self.game.for_each_successor(s, |t| next.push(t));
        let mut moves = Vec::with_capacity(next.len());
        for t in next {
            let after = self.probe_state(t)?;
            moves.push((
                t,
                KRatedMove {
                    to: self.position_of(t),
                    value: after.value.flip(),
                    dte: after.dte,
                },
            ));
        }
        moves.sort_by(|(_, a), (_, b)| {
            (super::moves::rank(a.value, a.dte), &a.to.cops, a.to.thief).cmp(&(
                super::moves::rank(b.value, b.dte),
                &b.to.cops,
                b.to.thief,
            ))
        });
        Ok(moves)
    }

    /// The game from `pos` under optimal play, as
    /// [`Tablebase::optimal_game`](crate::Tablebase::optimal_game): ending
    /// at a terminal position, at the first repeated position (included),
    /// or after `max_plies` moves.
    ///
    /// # Errors
    /// As [`KTablebase::probe`].
    pub fn optimal_game(&self, pos: &KPosition, max_plies: usize) -> Result<Vec<KPosition>> {
        let mut s = self.state(pos)?;
        let mut seen = HashSet::new();
        seen.insert(s);
        let mut game = vec![self.position_of(s)];
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_map, solve, Engine, Placement, SolveOptions};

    fn round_trip(game: &KCops, rules: Rules, dte: bool) {
        let options = SolveOptions::new(Engine::Sequential).with_dte_table(dte);
        let solution = solve(game, &options).unwrap();
        let path = std::env::temp_dir().join(format!(
            "ktable-{}-{}-{dte}.rtb",
            std::process::id(),
            game.state_count()
        ));
        let mut bytes = Vec::new();
        write_kcops_tablebase(game, rules, None, &solution, "sequential", &mut bytes).unwrap();
        // The bit-parallel engine's solution writes the same file.
        let bits = crate::copnumber::solve_kcops(
            &crate::copnumber::KArena::from_arena(game.arena()),
            &crate::copnumber::KcopOptions {
                cops: game.cops() as usize,
                dte_table: dte,
                ..Default::default()
            },
        );
        let mut from_bits = Vec::new();
        write_kcops_tablebase_bits(game, rules, None, &bits, "sequential", &mut from_bits).unwrap();
        assert!(bytes == from_bits, "the two engines' tables differ");
        std::fs::write(&path, &bytes).unwrap();
        let table = KTablebase::open(&path).unwrap();
        assert_eq!(table.header().version, 4);
        assert_eq!(table.header().states, game.state_count());
        table.check().unwrap();
        for s in 0..game.state_count() {
            let p = table.probe_state(s).unwrap();
            assert_eq!(p.value, solution.outcome(s), "state {s}");
            if dte && p.value != Outcome::Draw {
                assert_eq!(p.dte, solution.dte(s), "state {s}");
            }
        }
        // The one-cop reader refuses it by name.
        let err = crate::Tablebase::open(&path).err().unwrap().to_string();
        assert!(err.contains("cops"), "{err}");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn tables_of_maps_and_graphs_answer_every_state() {
        let map = parse_map(b"3 4\n..#.\n....\n.#.E\n", "inline").unwrap();
        let rules = Rules {
            cop_diagonal: false,
            ..Rules::default()
        };
        let board = Board::new(&map, &Placement::default()).unwrap();
        let arena = Arena::from_board(&board, rules).with_speeds(1, 2);
        for k in [2, 3] {
            let game = KCops::new(arena.clone(), k).unwrap();
            round_trip(&game, rules, true);
            round_trip(&game, rules, false);
        }
        let edges = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (1, 4)];
        let graph = Arena::from_edges(5, &edges)
            .unwrap()
            .with_exits(&[3])
            .unwrap();
        let game = KCops::new(graph, 2).unwrap().with_thief_first(true);
        round_trip(&game, Rules::default(), true);
    }

    #[test]
    fn rules_that_do_not_give_the_moves_are_refused() {
        let map = parse_map(b"2 3\n...\n...\n", "inline").unwrap();
        let board = Board::new(&map, &Placement::default()).unwrap();
        let game = KCops::new(Arena::from_board(&board, Rules::default()), 2).unwrap();
        let solution = solve(&game, &SolveOptions::new(Engine::Sequential)).unwrap();
        let orthogonal = Rules {
            cop_diagonal: false,
            ..Rules::default()
        };
        let mut out = Vec::new();
        let err = write_kcops_tablebase(&game, orthogonal, None, &solution, "x", &mut out);
        assert_eq!(err.unwrap_err().kind(), io::ErrorKind::InvalidInput);
        assert!(out.is_empty());
    }
}
