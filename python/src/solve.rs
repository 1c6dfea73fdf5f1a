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
    plan_storage, Coord, CopsAndThief, Due, Engine, Outcome, Sink, Snapshot, SolveOptions,
    StorageLimits, Turn,
};

use crate::args::{self, cell, fixed, heatmap_arrays, threads_arg, At, Maps2};
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

/// Solves the policeman-and-thief game on `map` (every state WIN / LOSS /
/// DRAW for the player to move, with its distance to end) and returns a
/// `Solution`, or with `cops` > 1 a `CopsSolution`.
///
/// `cops`: 1 to 4 cops. `cops_at`: the cops' start cells, `cops` of
/// them (one cop: replaces the map's cop start; several: without it there
/// is no start, only the values of every state; with it, the map needs a
/// thief start, else `ValueError`). `rules`: a `Rules`
/// (default: the standard game). `distances`: keep every state's distance
/// to end (else only the start's). `threads`: worker threads (default: all
/// cores). `memory`: bytes the solve may use; above it, it runs out of
/// core in the temporary folder.
///
/// The GIL is released while solving. With one cop, Ctrl-C stops the
/// solve after the level in progress and raises `KeyboardInterrupt`; the
/// several-cop engines cannot be stopped, so Ctrl-C is seen when they end.
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
) -> PyResult<Py<PyAny>> {
    let max = retrograde::MAX_COPS as i64;
    if !(1..=max).contains(&cops) {
        return Err(PyValueError::new_err(format!(
            "cops={cops}: the number of cops must be 1 to {max}"
        )));
    }
    if cops > 1 {
        let k = cops as u32;
        let shared = crate::kcops::Shared {
            rules,
            distances,
            threads,
            memory,
        };
        return crate::kcops::solve_kcops(py, map, k, cops_at, shared)
            .and_then(|s| Ok(Py::new(py, s)?.into_any()));
    }
    let one = match cops_at.as_deref() {
        None => None,
        Some([c]) => Some(*c),
        Some(at) => {
            return Err(PyValueError::new_err(format!(
                "cops_at: cops=1 needs 1 cell, got {}",
                at.len()
            )))
        }
    };
    threads_arg(threads)?;
    let moved;
    let map = match one {
        None => map,
        Some(c) => {
            moved = map.with_cop(c.to_coord("--cop")?)?;
            &moved
        }
    };
    solve_one(py, map, rules, distances, threads, memory)
        .and_then(|s| Ok(Py::new(py, s)?.into_any()))
}

/// The one-cop solve (the bitboard engine, stoppable).
fn solve_one(
    py: Python<'_>,
    map: &Map,
    rules: Option<Rules>,
    distances: bool,
    threads: Option<usize>,
    memory: Option<u64>,
) -> PyResult<Solution> {
    let board = map.board()?;
    let game = CopsAndThief::new(board, rules.map_or_else(Default::default, |r| r.rules));
    let start = game.start();
    let stop = AtomicBool::new(false);
    let sink = StopSink { stop: &stop };
    // The CLI's default engine on grid maps; the only one that polls a
    // sink between levels.
    let options = SolveOptions::new(Engine::Bitboard)
        .with_threads(threads.unwrap_or(0))
        .with_dte_table(distances)
        .with_tracked_state(start)
        .with_checkpoint(Some(&sink));
    let limits = StorageLimits {
        memory,
        scratch: None,
        spill_to_temp: true,
        held: 0,
    };
    let plan = plan_storage(&game, &options, &limits).map_err(to_py)?;
    let options = options.with_plan(&plan);
    let solved = std::thread::scope(|scope| -> PyResult<retrograde::Solution> {
        let (tx, rx) = mpsc::channel();
        // A Receiver is not Sync; the lock makes it shareable with the
        // GIL-free closure below (only this thread ever takes it).
        let rx = std::sync::Mutex::new(rx);
        let (game, options) = (&game, &options);
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
    })?;
    Ok(Solution {
        game,
        solution: solved,
        distances,
    })
}

/// A solved game: values and distances of every state.
///
/// Positions are `(cop, thief, turn)`: cells as `(row, col)`, `turn`
/// `"cop"` or `"thief"` (the player to move; default: the rules' first
/// mover). Values are `"win"`, `"loss"`, `"draw"` for the player to move.
#[pyclass(module = "retrograde", frozen)]
pub struct Solution {
    game: CopsAndThief,
    solution: retrograde::Solution,
    distances: bool,
}

fn first_mover(game: &CopsAndThief) -> Turn {
    if game.rules().thief_first {
        Turn::Thief
    } else {
        Turn::Cop
    }
}

impl Solution {
    fn state(&self, cop: At, thief: At, turn: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
        let grid = &self.game.board().grid;
        let p = cell(grid, "cop", cop, false)?;
        let t = cell(grid, "thief", thief, false)?;
        let turn = args::turn_or(turn, first_mover(&self.game))?;
        Ok(self.game.state(p, t, turn))
    }

    fn dte_of(&self, s: u64) -> Option<u32> {
        match self.solution.outcome(s) {
            Outcome::Draw => None,
            _ => self.solution.dte(s).map(|d| d.plies()),
        }
    }
}

#[pymethods]
impl Solution {
    /// `"win"`, `"loss"` or `"draw"` for the player to move.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn value(&self, cop: At, thief: At, turn: Option<&Bound<'_, PyAny>>) -> PyResult<&'static str> {
        Ok(self
            .solution
            .outcome(self.state(cop, thief, turn)?)
            .as_str())
    }

    /// Distance to end in plies; `None` for a draw, or for any state but
    /// the start when solved with `distances=False`.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn dte(&self, cop: At, thief: At, turn: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u32>> {
        Ok(self.dte_of(self.state(cop, thief, turn)?))
    }

    /// The best moves of the player to move (the cells it may move to,
    /// its own cell for a pass), as the CLI's `play` chooses among: the
    /// fastest win, else any draw, else the slowest loss. Empty for a
    /// terminal position. Needs `distances=True`.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn best_moves(
        &self,
        cop: At,
        thief: At,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<Coord>> {
        if !self.distances {
            return Err(PyValueError::new_err(
                "best_moves needs distances: solve with distances=True",
            ));
        }
        let s = self.state(cop, thief, turn)?;
        let mover = self.game.decode(s).2;
        let grid = &self.game.board().grid;
        let moves = retrograde::best_moves(&self.game, &self.solution, s).unwrap_or_default();
        Ok(moves
            .into_iter()
            .map(|t| {
                let (p, q, _) = self.game.decode(t);
                grid.coords(if mover == Turn::Cop { p } else { q })
            })
            .collect())
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
    /// when the map has no starts.
    #[getter]
    fn start(&self) -> Option<(&'static str, Option<u32>)> {
        let s = self.game.start()?;
        Some((self.solution.outcome(s).as_str(), self.dte_of(s)))
    }

    /// The start's verdict: `"cop-wins"`, `"thief-escapes"` or `"draw"`;
    /// `None` without starts.
    #[getter]
    fn verdict(&self) -> Option<&'static str> {
        let s = self.game.start()?;
        Some(self.game.verdict(self.solution.outcome(s)).as_str())
    }

    /// Number of states (2 * cells^2).
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

    /// Values and distances with one piece fixed, over every cell of the
    /// other: `(values, dte)`, 2-D arrays of the map's shape. `values`
    /// (int8): 1 win, -1 loss, 0 draw for the player to move, -2 on walls;
    /// `dte` (int32): plies, -1 for draws, walls and unknown distances.
    #[pyo3(signature = (*, cop=None, thief=None, turn=None))]
    fn heatmap<'py>(
        &self,
        py: Python<'py>,
        cop: Option<At>,
        thief: Option<At>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Maps2<'py>> {
        let (cop_fixed, at) = fixed(cop, thief)?;
        let grid = &self.game.board().grid;
        let id = cell(grid, if cop_fixed { "cop" } else { "thief" }, at, false)?;
        let turn = args::turn_or(turn, first_mover(&self.game))?;
        let (v, d) = heatmap_arrays(
            grid,
            |x| {
                if cop_fixed {
                    self.game.state(id, x, turn)
                } else {
                    self.game.state(x, id, turn)
                }
            },
            |s| Ok((self.solution.outcome(s), self.dte_of(s))),
        )?;
        Ok((v.into_pyarray(py), d.into_pyarray(py)))
    }

    /// Writes the solve as a tablebase file (`.rtb`, what `retrograde
    /// solve --save` writes; with distances when solved with them),
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
                        retrograde::write_tablebase(
                            &self.game,
                            &self.solution,
                            "bitboard",
                            &mut out,
                        )?;
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
                    retrograde::write_tablebase(&self.game, &self.solution, "bitboard", &mut out)?;
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
        format!(
            "<retrograde.Solution {} states: {} win, {} loss, {} draw; start {}>",
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
