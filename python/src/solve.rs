//! `solve()` and `Solution`: a solve run off the GIL on its own thread,
//! stoppable from Ctrl-C through the library's checkpoint sink.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use numpy::IntoPyArray;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use retrograde::{
    plan_storage, Arena, Board, CopsAndThief, Due, Engine, Game, KCops, Outcome, Placement,
    SavedGame, Sink, Snapshot, SolveOptions, StorageLimits, Turn,
};

use crate::args::{self, cell, heatmap_arrays, threads_arg, At, Cells, Maps2};
use crate::errors::{guard, io_to_py, panic_to_py, to_py};
use crate::map::{Map, Rules};

/// Stops the bitboard engine between levels once `stop` is set; nothing
/// is saved (the snapshot is dropped), the solve ends with
/// `Error::Stopped`.
struct StopSink<'a> {
    stop: &'a AtomicBool,
}

impl Sink for StopSink<'_> {
    fn poll(&self, _level: u32) -> Due {
        if self.stop.load(Ordering::Relaxed) {
            Due::SaveAndStop
        } else {
            Due::No
        }
    }

    fn save(&self, _snapshot: &dyn Snapshot) -> retrograde::Result<()> {
        Ok(())
    }
}

/// How often the waiting Python thread looks for a pending signal.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Solves the policeman-and-thief game on `map` with `cops` cops (every
/// state WIN / LOSS / DRAW for the player to move, with its distance to
/// end) and returns a `Solution`.
///
/// `cops`: 1 to 4 cops (several: `retrograde solve --cops K`). `cops_at`:
/// the cops' start cells, `cops` of them (one cop: replaces the map's cop
/// start; several: without it there is no start, only the values of
/// every state; with it, the map needs a thief start, else `ValueError`).
/// `rules`: a `Rules` (default: the standard game). `distances`: keep
/// every state's distance to end (else only the start's). `threads`:
/// worker threads (default: all cores). `memory`: bytes the solve may
/// use; above it, it runs out of core in the temporary folder.
///
/// The GIL is released while solving; Ctrl-C stops the solve after the
/// level in progress and raises `KeyboardInterrupt`.
#[pyfunction]
#[pyo3(signature = (map, *, cops=1, cops_at=None, rules=None, distances=true, threads=None, memory=None))]
#[allow(clippy::too_many_arguments)]
pub fn solve(
    py: Python<'_>,
    map: &Map,
    cops: i64,
    cops_at: Option<Vec<At>>,
    rules: Option<Rules>,
    distances: bool,
    threads: Option<usize>,
    memory: Option<u64>,
) -> PyResult<Solution> {
    let max = retrograde::MAX_COPS as i64;
    if !(1..=max).contains(&cops) {
        return Err(PyValueError::new_err(format!(
            "cops={cops}: the number of cops must be 1 to {max}"
        )));
    }
    let k = cops as u32;
    if let Some(at) = &cops_at {
        if at.len() != k as usize {
            return Err(PyValueError::new_err(format!(
                "cops_at: cops={k} needs {k} cell{}, got {}",
                if k == 1 { "" } else { "s" },
                at.len()
            )));
        }
    }
    let threads = threads_arg(threads)?;
    let rules = rules.map_or_else(Default::default, |r| r.rules);
    let limits = StorageLimits {
        memory,
        scratch: None,
        spill_to_temp: true,
        held: 0,
    };
    let game = if k == 1 {
        let moved;
        let map = match cops_at.as_deref() {
            Some([c]) => {
                moved = map.with_cop(c.to_coord("--cop")?)?;
                &moved
            }
            _ => map,
        };
        Solved::One(CopsAndThief::new(map.board()?, rules))
    } else {
        game_of(map, k, cops_at.as_deref(), rules)?
    };
    let solution = match &game {
        Solved::One(g) => run_solve(py, g, g.start(), distances, threads, &limits)?,
        Solved::Several { game, start, .. } => {
            run_solve(py, &**game, *start, distances, threads, &limits)?
        }
    };
    Ok(Solution {
        game,
        solution,
        distances,
    })
}

/// The k-cop game of `map` under `rules`, with its start (`cops_at` and the
/// map's thief) when both are known: the arena is built as the CLI builds
/// it, the starts left out of the board so that exit rules resolve as they
/// do there.
fn game_of(
    map: &Map,
    k: u32,
    cops_at: Option<&[At]>,
    rules: retrograde::Rules,
) -> PyResult<Solved> {
    let placement = Placement {
        cop: None,
        thief: None,
        ..map.placement.clone()
    };
    let walls = retrograde::Map {
        cop: None,
        thief: None,
        ..map.map.clone()
    };
    let board = Board::new(&walls, &placement).map_err(to_py)?;
    let grid = &board.grid;
    let cops = match cops_at {
        None => None,
        Some(at) => Some(
            at.iter()
                .map(|&c| cell(grid, "cop", c, false))
                .collect::<PyResult<Vec<u32>>>()?,
        ),
    };
    let thief = map
        .placement
        .thief
        .or(map.map.thief)
        .map(|t| cell(grid, "thief", t.into(), false))
        .transpose()?;
    let game = KCops::new(Arena::from_board(&board, rules), k)
        .map_err(to_py)?
        .with_thief_first(rules.thief_first);
    let start_cells = match (cops, thief) {
        (Some(c), Some(t)) => Some((c, t)),
        // As the CLI refuses `--cop` without `--thief`: the cops' start
        // alone was dropped and the whole game solved with no start.
        (Some(_), None) => {
            return Err(PyValueError::new_err(
                "cops_at has no thief start to go with it: give the map one \
                 (Map.from_file(..., thief=(row, col))) or leave cops_at out",
            ))
        }
        _ => None,
    };
    let start = start_cells.as_ref().map(|(c, t)| game.start(c, *t));
    Ok(Solved::Several {
        game: Box::new(game),
        rules,
        start,
        start_cells,
    })
}

/// Solves `game` with the bitboard engine (the CLI's default, one cop or
/// several), planned by `plan_storage`, on a worker thread while this
/// one, off the GIL, looks for Ctrl-C: the engine stops between levels
/// and the solve raises `KeyboardInterrupt`.
fn run_solve<G: Game + Sync>(
    py: Python<'_>,
    game: &G,
    start: Option<u64>,
    distances: bool,
    threads: usize,
    limits: &StorageLimits,
) -> PyResult<retrograde::Solution> {
    let stop = AtomicBool::new(false);
    let sink = StopSink { stop: &stop };
    let options = SolveOptions::new(Engine::Bitboard)
        .with_threads(threads)
        .with_dte_table(distances)
        .with_tracked_state(start)
        .with_checkpoint(Some(&sink));
    let plan = plan_storage(game, &options, limits).map_err(to_py)?;
    let options = options.with_plan(&plan);
    std::thread::scope(|scope| -> PyResult<retrograde::Solution> {
        let (tx, rx) = mpsc::channel();
        // A Receiver is not Sync; the lock makes it shareable with the
        // GIL-free closure below (only this thread ever takes it).
        let rx = std::sync::Mutex::new(rx);
        let options = &options;
        let worker = scope.spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                retrograde::solve(game, options)
            }));
            let _ = tx.send(());
            r
        });
        let mut interrupt = None;
        loop {
            let done = py.detach(|| {
                rx.lock()
                    .expect("one user")
                    .recv_timeout(SIGNAL_POLL)
                    .is_ok()
            });
            if done {
                break;
            }
            if interrupt.is_none() {
                if let Err(e) = py.check_signals() {
                    stop.store(true, Ordering::Relaxed);
                    interrupt = Some(e);
                }
            }
        }
        let result = worker.join().expect("the solve's panics are caught");
        if let Some(e) = interrupt {
            return Err(e);
        }
        match result {
            Ok(r) => r.map_err(to_py),
            Err(panic) => Err(panic_to_py(panic)),
        }
    })
}

/// The game a `Solution` solved.
enum Solved {
    /// One cop: the grid game.
    One(CopsAndThief),
    /// Several cops.
    Several {
        game: Box<KCops>,
        /// The rules, for the table's header.
        rules: retrograde::Rules,
        /// The start state, when the cops' and the thief's are known.
        start: Option<u64>,
        /// The start's cells: the cops as given, the thief.
        start_cells: Option<(Vec<u32>, u32)>,
    },
}

/// A solved game of any number of cops: values and distances of every
/// state.
///
/// Positions are `(cop, thief, turn)`: cells as `(row, col)`; with several
/// cops `cop` is a sequence of the cops' cells in any order (cops are
/// identical; two may share a cell); `turn` `"cop"` (the cops move, all at
/// once) or `"thief"` (the player to move; default: the rules' first
/// mover). Values are `"win"`, `"loss"`, `"draw"` for the player to move.
#[pyclass(module = "retrograde", frozen)]
pub struct Solution {
    game: Solved,
    solution: retrograde::Solution,
    distances: bool,
}

impl Solution {
    fn k(&self) -> u32 {
        match &self.game {
            Solved::One(_) => 1,
            Solved::Several { game, .. } => game.cops(),
        }
    }

    fn cells(&self) -> Cells<'_> {
        Cells::Map(match &self.game {
            Solved::One(g) => &g.board().grid,
            Solved::Several { game, .. } => game.arena().grid().expect("built from a map"),
        })
    }

    fn first_mover(&self) -> Turn {
        let thief_first = match &self.game {
            Solved::One(g) => g.rules().thief_first,
            Solved::Several { game, .. } => game.thief_first(),
        };
        if thief_first {
            Turn::Thief
        } else {
            Turn::Cop
        }
    }

    fn start_state(&self) -> Option<u64> {
        match &self.game {
            Solved::One(g) => g.start(),
            Solved::Several { start, .. } => *start,
        }
    }

    /// The state of cells of the game (the cops in any order).
    fn state_of(&self, cops: &[u32], thief: u32, turn: Turn) -> u64 {
        match &self.game {
            Solved::One(g) => g.state(cops[0], thief, turn),
            Solved::Several { game, .. } => game.state(cops, thief, turn),
        }
    }

    fn state(
        &self,
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<u64> {
        let cells = self.cells();
        let c = cells.cops(self.k(), cop, false)?;
        let t = cells.cell("thief", thief, false)?;
        let turn = args::turn_or(turn, self.first_mover())?;
        Ok(self.state_of(&c, t, turn))
    }

    fn dte_of(&self, s: u64) -> Option<u32> {
        match self.solution.outcome(s) {
            Outcome::Draw => None,
            _ => self.solution.dte(s).map(|d| d.plies()),
        }
    }

    /// The table `save` writes, as the CLI's `--save` writes it.
    fn write_table<W: std::io::Write>(&self, out: &mut W) -> std::io::Result<()> {
        match &self.game {
            Solved::One(g) => {
                retrograde::write_tablebase(g, &self.solution, "bitboard", out)?;
            }
            Solved::Several {
                game,
                rules,
                start_cells,
                ..
            } => {
                let start = start_cells.as_ref().map(|(c, t)| (c.as_slice(), *t));
                let saved = SavedGame::Cops {
                    game,
                    rules: *rules,
                    start,
                };
                retrograde::write_tablebase(saved, &self.solution, "bitboard", out)?;
            }
        }
        Ok(())
    }
}

#[pymethods]
impl Solution {
    /// `"win"`, `"loss"` or `"draw"` for the player to move.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn value(
        &self,
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<&'static str> {
        Ok(self
            .solution
            .outcome(self.state(cop, thief, turn)?)
            .as_str())
    }

    /// Distance to end in plies; `None` for a draw, or for any state but
    /// the start when solved with `distances=False`.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn dte(
        &self,
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<u32>> {
        Ok(self.dte_of(self.state(cop, thief, turn)?))
    }

    /// The best moves of the player to move (the cells it may move to,
    /// its own cell for a pass; with several cops, on their turn, the
    /// cops' cells after the move, a tuple), as the CLI's `play` chooses
    /// among: the fastest win, else any draw, else the slowest loss.
    /// Empty for a terminal position. Needs `distances=True`.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn best_moves(
        &self,
        py: Python<'_>,
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<Py<PyAny>>> {
        if !self.distances {
            return Err(PyValueError::new_err(
                "best_moves needs distances: solve with distances=True",
            ));
        }
        let s = self.state(cop, thief, turn)?;
        let cells = self.cells();
        let moves = match &self.game {
            Solved::One(g) => retrograde::best_moves(g, &self.solution, s),
            Solved::Several { game, .. } => retrograde::best_moves(&**game, &self.solution, s),
        };
        let cop_moves = s & 1 == 0;
        moves
            .unwrap_or_default()
            .into_iter()
            .map(|t| match &self.game {
                Solved::One(g) => {
                    let (p, q, _) = g.decode(t);
                    cells.out(py, if cop_moves { p } else { q })
                }
                Solved::Several { game, .. } => {
                    let (c, q, _) = game.decode(t);
                    if cop_moves {
                        cells.cops_out(py, &c)
                    } else {
                        cells.out(py, q)
                    }
                }
            })
            .collect()
    }

    /// WIN / LOSS / DRAW counts over all states, for the player to move:
    /// `{"win": ..., "loss": ..., "draw": ...}`.
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.solution.counts();
        let d = PyDict::new(py);
        d.set_item("win", c.win)?;
        d.set_item("loss", c.loss)?;
        d.set_item("draw", c.draw)?;
        Ok(d)
    }

    /// The start position's `(value, dte)` for the first mover, or `None`
    /// without a start (a map without starts; with several cops, no
    /// `cops_at` or a map without a thief start).
    #[getter]
    fn start(&self) -> Option<(&'static str, Option<u32>)> {
        let s = self.start_state()?;
        Some((self.solution.outcome(s).as_str(), self.dte_of(s)))
    }

    /// The start's verdict: `"cop-wins"`, `"thief-escapes"` or `"draw"`;
    /// `None` without a start.
    #[getter]
    fn verdict(&self) -> Option<&'static str> {
        let value = self.solution.outcome(self.start_state()?);
        Some(
            match &self.game {
                Solved::One(g) => g.verdict(value),
                Solved::Several { game, .. } => game.verdict(value),
            }
            .as_str(),
        )
    }

    /// The number of cops.
    #[getter]
    fn cops(&self) -> u32 {
        self.k()
    }

    /// Number of states (2 x cells x cop multisets; 2 x cells^2 for one
    /// cop).
    #[getter]
    fn states(&self) -> u64 {
        self.solution.states()
    }

    /// Propagation levels of the solve (the largest distance to end).
    #[getter]
    fn levels(&self) -> u32 {
        self.solution.levels()
    }

    /// Whether every state's distance to end was kept.
    #[getter]
    fn has_distances(&self) -> bool {
        self.distances
    }

    /// Values and distances with one side fixed, over every cell of the
    /// other: `(values, dte)`, 2-D arrays of the map's shape. `cop=` (or
    /// the first argument) fixes the cop, or the cops, over every cell of
    /// the thief; `thief=` the thief over every cell of the one cop.
    /// `values` (int8): 1 win, -1 loss, 0 draw for the player to move, -2
    /// on walls; `dte` (int32): plies, -1 for draws, walls and unknown
    /// distances.
    #[pyo3(signature = (cops=None, *, cop=None, thief=None, turn=None))]
    fn heatmap<'py>(
        &self,
        py: Python<'py>,
        cops: Option<&Bound<'py, PyAny>>,
        cop: Option<&Bound<'py, PyAny>>,
        thief: Option<&Bound<'py, PyAny>>,
        turn: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Maps2<'py>> {
        let cells = self.cells();
        let Cells::Map(grid) = cells else {
            unreachable!("solutions are of maps")
        };
        let turn = args::turn_or(turn, self.first_mover())?;
        let (v, d) = match (cops.xor(cop), thief, cops.and(cop)) {
            (Some(c), None, None) => {
                let c = cells.cops(self.k(), c, false)?;
                guard(|| {
                    heatmap_arrays(
                        grid,
                        |t| self.state_of(&c, t, turn),
                        |s| Ok((self.solution.outcome(s), self.dte_of(s))),
                    )
                })?
            }
            (None, Some(_), None) if self.k() > 1 => {
                return Err(PyValueError::new_err(format!(
                    "heatmap: with {} cops it maps the thief's cells: give the cops' cells",
                    self.k()
                )))
            }
            (None, Some(t), None) => {
                let t = cells.cell("thief", t, false)?;
                heatmap_arrays(
                    grid,
                    |x| self.state_of(&[x], t, turn),
                    |s| Ok((self.solution.outcome(s), self.dte_of(s))),
                )?
            }
            _ => {
                return Err(PyValueError::new_err(
                    "heatmap: give exactly one of cop=(row, col) or thief=(row, col)",
                ))
            }
        };
        Ok((v.into_pyarray(py), d.into_pyarray(py)))
    }

    /// Writes the solve as a tablebase file (`.rtb`, what `retrograde
    /// solve --save` writes, of one cop or several; with distances when solved with them),
    /// through a temporary file renamed into place. As the CLI's `--save`:
    /// a FIFO or a device at `path` is written into, never replaced, and a
    /// symbolic link is written through (its target replaced).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| {
            guard(|| {
                let meta = std::fs::metadata(&path);
                if meta.as_ref().is_ok_and(|m| m.is_dir()) {
                    return Err(PyValueError::new_err(format!(
                        "{}: is a directory, expected a file name",
                        path.display()
                    )));
                }
                if meta.as_ref().is_ok_and(|m| !m.is_file()) {
                    // A FIFO, a device or a socket: renaming a file over
                    // it replaced it (a root's /dev/null included).
                    let write = || -> std::io::Result<()> {
                        let file = std::fs::OpenOptions::new().write(true).open(&path)?;
                        let mut out = std::io::BufWriter::new(file);
                        self.write_table(&mut out)?;
                        std::io::Write::flush(&mut out)
                    };
                    return write().map_err(|e| io_to_py(&path, e));
                }
                // Through a link, its target is the file replaced.
                let path = match std::fs::symlink_metadata(&path) {
                    Ok(m) if m.file_type().is_symlink() && meta.is_ok() => {
                        std::fs::canonicalize(&path).unwrap_or(path)
                    }
                    _ => path,
                };
                let name = path.file_name().ok_or_else(|| {
                    PyValueError::new_err(format!("{}: not a file name", path.display()))
                })?;
                let mut tmp_name = std::ffi::OsString::from(".");
                tmp_name.push(name);
                tmp_name.push(format!(".{}.tmp", std::process::id()));
                let tmp = path.with_file_name(tmp_name);
                let write = || -> std::io::Result<()> {
                    let file = std::fs::File::create(&tmp)?;
                    let mut out = std::io::BufWriter::new(file);
                    self.write_table(&mut out)?;
                    let file = out.into_inner().map_err(|e| e.into_error())?;
                    file.sync_all()?;
                    std::fs::rename(&tmp, &path)
                };
                write().map_err(|e| {
                    let _ = std::fs::remove_file(&tmp);
                    io_to_py(&path, e)
                })
            })
        })
    }

    fn __repr__(&self) -> String {
        let c = self.solution.counts();
        let k = self.k();
        format!(
            "<retrograde.Solution {}{} states: {} win, {} loss, {} draw; start {}>",
            if k > 1 {
                format!("{k} cops, ")
            } else {
                String::new()
            },
            self.solution.states(),
            c.win,
            c.loss,
            c.draw,
            self.start().map_or("none".to_string(), |(v, d)| match d {
                Some(d) => format!("{v} in {d}"),
                None => v.to_string(),
            })
        )
    }
}
