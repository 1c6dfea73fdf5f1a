//! `open_table()` and `Table`: probes of a saved tablebase, one at a time
//! or vectorised over numpy arrays.

use std::path::PathBuf;

use numpy::ndarray::Array1;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use retrograde::{Coord, GridPosition, GridTablebase, Outcome, Turn};

use crate::args::{
    self, cell, fixed, heatmap_arrays, turn_name, value_code, At, Dte1, Maps2, Values1,
};
use crate::errors::{guard, to_py};

/// Opens a tablebase file written by `retrograde solve --save` or
/// `Solution.save` (checked as it is read: a damaged file raises
/// `ValueError`, a missing one `FileNotFoundError`). Use it as a context
/// manager, or call `close()`.
#[pyfunction]
pub fn open_table(py: Python<'_>, path: PathBuf) -> PyResult<Table> {
    let tb = py.detach(|| guard(|| GridTablebase::open(&path).map_err(to_py)))?;
    Ok(Table { tb: Some(tb) })
}

/// A tablebase: every position's value and (if stored) distance to end.
///
/// Positions are `(cop, thief, turn)` as in `Solution`. `probe_value`,
/// `probe_dte` and `probe` raise `KeyError` for a position the table cannot
/// answer (a cell off the map or on a wall); `get_value` returns a default
/// instead.
#[pyclass(module = "retrograde")]
pub struct Table {
    tb: Option<GridTablebase>,
}

/// Codes of `probe_many`'s turn array.
fn turn_code(t: i64) -> Option<Turn> {
    match t {
        0 => Some(Turn::Cop),
        1 => Some(Turn::Thief),
        _ => None,
    }
}

fn position_tuple(p: &GridPosition) -> (Coord, Coord, &'static str) {
    (p.cop, p.thief, turn_name(p.turn))
}

impl Table {
    fn tb(&self) -> PyResult<&GridTablebase> {
        self.tb
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("the table is closed"))
    }

    fn state(&self, cop: At, thief: At, turn: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
        let tb = self.tb()?;
        let grid = &tb.game().board().grid;
        let p = cell(grid, "cop", cop, true)?;
        let t = cell(grid, "thief", thief, true)?;
        let turn = args::turn_or(turn, tb.first_mover())?;
        Ok(tb.game().state(p, t, turn))
    }

    fn probe_at(&self, s: u64) -> PyResult<(Outcome, Option<u32>)> {
        let p = self.tb()?.probe_state(s).map_err(to_py)?;
        Ok((p.value, p.dte.map(|d| d.plies())))
    }

    fn position(
        &self,
        cop: At,
        thief: At,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<GridPosition> {
        let tb = self.tb()?;
        self.state(cop, thief, turn)?;
        let turn = args::turn_or(turn, tb.first_mover())?;
        // Both checked as cells of the map above, so not negative.
        let coord = |a: At| (a.row as usize, a.col as usize);
        Ok(GridPosition {
            cop: coord(cop),
            thief: coord(thief),
            turn,
        })
    }
}

#[pymethods]
impl Table {
    /// `(value, dte)` for the player to move: `"win"` / `"loss"` /
    /// `"draw"` and plies (`None` for a draw or a table without
    /// distances). `KeyError` for a cell off the map or on a wall.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn probe(
        &self,
        cop: At,
        thief: At,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(&'static str, Option<u32>)> {
        let (v, d) = self.probe_at(self.state(cop, thief, turn)?)?;
        Ok((v.as_str(), d))
    }

    /// `"win"`, `"loss"` or `"draw"` for the player to move; `KeyError`
    /// for a position the table cannot answer.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn probe_value(
        &self,
        cop: At,
        thief: At,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<&'static str> {
        Ok(self.probe_at(self.state(cop, thief, turn)?)?.0.as_str())
    }

    /// Distance to end in plies (`None` for a draw); `KeyError` for a
    /// position the table cannot answer, and for every position of a
    /// table saved without distances.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn probe_dte(
        &self,
        cop: At,
        thief: At,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<u32>> {
        let s = self.state(cop, thief, turn)?;
        if !self.tb()?.header().has_dte {
            return Err(PyKeyError::new_err(format!(
                "{}: the table stores no distances (solve with --dte-table or distances=True)",
                self.tb()?.path().display()
            )));
        }
        Ok(self.probe_at(s)?.1)
    }

    /// Like `probe_value`, but `default` for a position the table cannot
    /// answer.
    #[pyo3(signature = (cop, thief, turn=None, default=None))]
    fn get_value(
        &self,
        py: Python<'_>,
        cop: At,
        thief: At,
        turn: Option<&Bound<'_, PyAny>>,
        default: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        match self.state(cop, thief, turn) {
            Ok(s) => Ok(self
                .probe_at(s)?
                .0
                .as_str()
                .into_pyobject(py)?
                .into_any()
                .unbind()),
            Err(e) if e.is_instance_of::<PyKeyError>(py) => {
                Ok(default.unwrap_or_else(|| py.None()))
            }
            Err(e) => Err(e),
        }
    }

    /// Every move of the player to move, rated for that player, best first
    /// (as `retrograde query` lists them): `[(to, value, dte), ...]`,
    /// `to` the mover's cell after the move. Empty for a terminal
    /// position.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn moves(
        &self,
        cop: At,
        thief: At,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<(Coord, &'static str, Option<u32>)>> {
        let pos = self.position(cop, thief, turn)?;
        let moves = self.tb()?.rated_moves(&pos).map_err(to_py)?;
        Ok(moves
            .iter()
            .map(|m| (m.to, m.value.as_str(), m.dte.map(|d| d.plies())))
            .collect())
    }

    /// The best moves of the player to move, as `Solution.best_moves`
    /// gives them: the cells it may move to (its own for a pass) among
    /// the fastest win, else any draw, else the slowest loss. Empty for a
    /// terminal position. `moves` rates every move.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn best_moves(
        &self,
        cop: At,
        thief: At,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<Coord>> {
        let pos = self.position(cop, thief, turn)?;
        let moves = self.tb()?.rated_moves(&pos).map_err(to_py)?;
        // Rated best first: the best are those rated as the first.
        let best = moves.first().map(|m| (m.value, m.dte));
        Ok(moves
            .iter()
            .filter(|m| Some((m.value, m.dte)) == best)
            .map(|m| m.to)
            .collect())
    }

    /// The game under optimal play from a position (default: the map's
    /// start), as `retrograde play` plays it: `[(cop, thief, turn), ...]`,
    /// ending at a terminal position, at the first repeated position, or
    /// after `max_plies` moves.
    #[pyo3(signature = (cop=None, thief=None, turn=None, max_plies=10_000))]
    fn play(
        &self,
        py: Python<'_>,
        cop: Option<At>,
        thief: Option<At>,
        turn: Option<&Bound<'_, PyAny>>,
        max_plies: usize,
    ) -> PyResult<Vec<(Coord, Coord, &'static str)>> {
        let tb = self.tb()?;
        let start = tb.start();
        let (cop, thief) = match (
            cop.or(start.map(|p| p.cop.into())),
            thief.or(start.map(|p| p.thief.into())),
        ) {
            (Some(c), Some(t)) => (c, t),
            _ => {
                return Err(PyValueError::new_err(
                    "play: the table's map has no start: give cop= and thief=",
                ))
            }
        };
        let pos = self.position(cop, thief, turn)?;
        let game = py.detach(|| guard(|| tb.optimal_game(&pos, max_plies).map_err(to_py)))?;
        Ok(game.iter().map(position_tuple).collect())
    }

    /// Vectorised probes: `cops` and `thieves` are `(N, 2)` integer arrays
    /// of `(row, col)`, `turns` an `(N,)` array of 0 (cop to move) / 1
    /// (thief to move), or of `"cop"` / `"thief"` as `probe` takes them. Returns `(values, dte)`: int8 (1 win, -1 loss, 0
    /// draw) and int32 (plies, -1 for draws or without distances).
    /// `KeyError` naming the first position the table cannot answer.
    /// Runs off the GIL on all cores.
    fn probe_many<'py>(
        &self,
        py: Python<'py>,
        cops: &Bound<'py, PyAny>,
        thieves: &Bound<'py, PyAny>,
        turns: &Bound<'py, PyAny>,
    ) -> PyResult<(Values1<'py>, Dte1<'py>)> {
        let tb = self.tb()?;
        let np = py.import("numpy")?;
        // Integers only, converted without loss: a cast would truncate
        // 1.5 to 1 or wrap a turn of 257 to 1 and answer the wrong position.
        let as_i64 = |a: &Bound<'py, PyAny>, what: &str| -> PyResult<Bound<'py, PyAny>> {
            let a = np.call_method1("asarray", (a,))?;
            let kind: String = a.getattr("dtype")?.getattr("kind")?.extract()?;
            let size: usize = a.getattr("size")?.extract()?;
            if size > 0 && !matches!(kind.as_str(), "i" | "u" | "b") {
                return Err(PyValueError::new_err(format!(
                    "probe_many: {what} must be integers, got dtype {}",
                    a.getattr("dtype")?.str()?
                )));
            }
            np.call_method1("ascontiguousarray", (a, "int64"))
        };
        let cops = as_i64(cops, "cops")?;
        let thieves = as_i64(thieves, "thieves")?;
        // Turns as `probe` takes them: "cop" / "thief" become 0 / 1.
        let named = np.call_method1("asarray", (turns,))?;
        let kind: String = named.getattr("dtype")?.getattr("kind")?.extract()?;
        let turns = if matches!(kind.as_str(), "U" | "S" | "O") {
            let words: Vec<Bound<'py, PyAny>> = named.call_method0("tolist")?.extract()?;
            let codes = words
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    crate::args::turn(w)
                        .map(|t| i64::from(t == Turn::Thief))
                        .map_err(|e| PyValueError::new_err(format!("probe_many: turns[{i}]: {e}")))
                })
                .collect::<PyResult<Vec<i64>>>()?;
            np.call_method1("asarray", (codes, "int64"))?
        } else {
            as_i64(turns, "turns")?
        };
        let cops: PyReadonlyArray2<'_, i64> = cops
            .extract()
            .map_err(|_| PyValueError::new_err("probe_many: cops must be an (N, 2) array"))?;
        let thieves: PyReadonlyArray2<'_, i64> = thieves
            .extract()
            .map_err(|_| PyValueError::new_err("probe_many: thieves must be an (N, 2) array"))?;
        let turns: PyReadonlyArray1<'_, i64> = turns
            .extract()
            .map_err(|_| PyValueError::new_err("probe_many: turns must be an (N,) array"))?;
        let (cv, tv, uv) = (cops.as_array(), thieves.as_array(), turns.as_array());
        let n = uv.len();
        if cv.dim() != (n, 2) || tv.dim() != (n, 2) {
            return Err(PyValueError::new_err(format!(
                "probe_many: cops {:?} and thieves {:?} must be ({n}, 2) for {n} turns",
                cv.dim(),
                tv.dim()
            )));
        }
        let (cs, ts, us) = (
            cv.as_slice().expect("contiguous"),
            tv.as_slice().expect("contiguous"),
            uv.as_slice().expect("contiguous"),
        );
        let mut values = vec![0i8; n];
        let mut dte = vec![0i32; n];
        let grid = &tb.game().board().grid;
        let cell_of = |r: i64, c: i64| -> Option<u32> {
            if r < 0 || c < 0 {
                return None;
            }
            grid.cell_at(r as usize, c as usize)
        };
        // Positions are probed in state order (sorted first), so each
        // thread walks its share of the table's blocks in file order and
        // decodes each block it needs about once, however random the
        // input; answers are scattered back to the caller's order.
        let failed: Option<Result<retrograde::Error, usize>> = py.detach(|| {
            let states: Result<Vec<(u64, usize)>, usize> = (0..n)
                .into_par_iter()
                .map(|i| {
                    match (
                        cell_of(cs[2 * i], cs[2 * i + 1]),
                        cell_of(ts[2 * i], ts[2 * i + 1]),
                        turn_code(us[i]),
                    ) {
                        (Some(p), Some(t), Some(turn)) => Ok((tb.game().state(p, t, turn), i)),
                        _ => Err(i),
                    }
                })
                .collect();
            let mut states = match states {
                Ok(s) => s,
                Err(i) => return Some(Err(i)),
            };
            states.par_sort_unstable();
            let answers: Result<Vec<(i8, i32)>, retrograde::Error> = states
                .par_iter()
                .map(|&(s, _)| {
                    tb.probe_state(s)
                        .map(|p| (value_code(p.value), p.dte.map_or(-1, |d| d.plies() as i32)))
                })
                .collect();
            let answers = match answers {
                Ok(a) => a,
                Err(e) => return Some(Ok(e)),
            };
            for (&(_, i), (v, d)) in states.iter().zip(answers) {
                values[i] = v;
                dte[i] = d;
            }
            None
        });
        match failed {
            None => Ok((
                Array1::from_vec(values).into_pyarray(py),
                Array1::from_vec(dte).into_pyarray(py),
            )),
            Some(Ok(e)) => Err(to_py(e)),
            Some(Err(i)) => {
                let turn = us[i];
                let why = match (turn_code(turn), cell_of(cs[2 * i], cs[2 * i + 1])) {
                    (None, _) => format!("turn {turn}: expected 0 (cop) or 1 (thief)"),
                    (_, None) => {
                        format!("cop {},{}: off the map or a wall", cs[2 * i], cs[2 * i + 1])
                    }
                    _ => format!(
                        "thief {},{}: off the map or a wall",
                        ts[2 * i],
                        ts[2 * i + 1]
                    ),
                };
                Err(PyKeyError::new_err(format!(
                    "probe_many: position {i}: {why}"
                )))
            }
        }
    }

    /// Values and distances with one piece fixed, as `Solution.heatmap`
    /// (the data `retrograde render --cop/--thief` colours).
    #[pyo3(signature = (*, cop=None, thief=None, turn=None))]
    fn heatmap<'py>(
        &self,
        py: Python<'py>,
        cop: Option<At>,
        thief: Option<At>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Maps2<'py>> {
        let tb = self.tb()?;
        let (cop_fixed, at) = fixed(cop, thief)?;
        let game = tb.game();
        let grid = &game.board().grid;
        let id = cell(grid, if cop_fixed { "cop" } else { "thief" }, at, true)?;
        let turn = args::turn_or(turn, tb.first_mover())?;
        let (v, d) = heatmap_arrays(
            grid,
            |x| {
                if cop_fixed {
                    game.state(id, x, turn)
                } else {
                    game.state(x, id, turn)
                }
            },
            |s| self.probe_at(s),
        )?;
        Ok((v.into_pyarray(py), d.into_pyarray(py)))
    }

    /// Free cells of the table's map as a 2-D bool array.
    fn to_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let tb = self.tb()?;
        Ok(
            numpy::ndarray::Array2::from_shape_fn((tb.rows(), tb.cols()), |(r, c)| {
                tb.is_free((r, c))
            })
            .into_pyarray(py),
        )
    }

    /// The map's start `(cop, thief, turn)`, or `None`.
    #[getter]
    fn start(&self) -> PyResult<Option<(Coord, Coord, &'static str)>> {
        Ok(self.tb()?.start().as_ref().map(position_tuple))
    }

    /// Map rows.
    #[getter]
    fn rows(&self) -> PyResult<usize> {
        Ok(self.tb()?.rows())
    }

    /// Map columns.
    #[getter]
    fn cols(&self) -> PyResult<usize> {
        Ok(self.tb()?.cols())
    }

    /// Number of states.
    #[getter]
    fn states(&self) -> PyResult<u64> {
        Ok(self.tb()?.header().states)
    }

    /// Whether the table stores distances to end.
    #[getter]
    fn has_distances(&self) -> PyResult<bool> {
        Ok(self.tb()?.header().has_dte)
    }

    /// WIN / LOSS / DRAW counts over all states.
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.tb()?.header().counts;
        let d = PyDict::new(py);
        d.set_item("win", c.win)?;
        d.set_item("loss", c.loss)?;
        d.set_item("draw", c.draw)?;
        Ok(d)
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.tb.is_none()
    }

    /// Releases the file mapping and caches; later probes raise
    /// `ValueError`.
    fn close(&mut self) {
        self.tb = None;
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&mut self, _exc: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close();
        false
    }

    fn __repr__(&self) -> String {
        match &self.tb {
            Some(tb) => format!(
                "<retrograde.Table {} ({}x{}, {} states{})>",
                tb.path().display(),
                tb.rows(),
                tb.cols(),
                tb.header().states,
                if tb.header().has_dte {
                    ", distances"
                } else {
                    ""
                }
            ),
            None => "<retrograde.Table (closed)>".into(),
        }
    }
}
