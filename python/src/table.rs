//! `open_table()` and `Table`: probes of a saved tablebase of any number of
//! cops, on a map or a graph, one at a time or vectorised over numpy
//! arrays, all through the library's one reader (`retrograde::Tablebase`).

use std::path::PathBuf;

use numpy::ndarray::{Array1, Array2};
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray1, PyReadonlyArrayDyn};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use retrograde::{Position, Probe, Tablebase, Turn, MAX_COPS};

use crate::args::{self, turn_name, value_code, Cells, Dte1, Values1};
use crate::errors::{guard, to_py};

/// Opens a tablebase file written by `retrograde solve --save` or
/// `Solution.save`, of one cop or several, on a map or a graph (checked
/// as it is read: a damaged file raises `ValueError`, a missing one
/// `FileNotFoundError`). Use it as a context manager, or call `close()`.
#[pyfunction]
pub fn open_table(py: Python<'_>, path: PathBuf) -> PyResult<Table> {
    let tb = py.detach(|| guard(|| Tablebase::open(&path).map_err(to_py)))?;
    Ok(Table { tb: Some(tb) })
}

/// A tablebase: every position's value and (if stored) distance to end.
///
/// Positions are `(cop, thief, turn)` as in `Solution`: on a table of
/// several cops `cop` is a sequence of the cops' cells (in any order); on
/// a graph's table cells are vertex ids. `probe_value`, `probe_dte` and
/// `probe` raise `KeyError` for a position the table cannot answer (a cell
/// off the map or on a wall, or not a vertex); `get_value` returns a
/// default instead.
#[pyclass(module = "retrograde")]
pub struct Table {
    tb: Option<Tablebase>,
}

/// Codes of `probe_many`'s turn array.
fn turn_code(t: i64) -> Option<Turn> {
    match t {
        0 => Some(Turn::Cop),
        1 => Some(Turn::Thief),
        _ => None,
    }
}

/// The cells of a table's positions.
fn cells_of(tb: &Tablebase) -> Cells<'_> {
    match tb.grid() {
        Some(grid) => Cells::Map(grid),
        None => Cells::Graph(tb.cells()),
    }
}

/// A rated move as Python: `(to, value, dte)`.
type PyMove = (Py<PyAny>, &'static str, Option<u32>);

/// A position as Python: `(cop or cops, thief, turn)`.
type PyPosition = (Py<PyAny>, Py<PyAny>, &'static str);

fn position_out(tb: &Tablebase, py: Python<'_>, p: &Position) -> PyResult<PyPosition> {
    let cells = cells_of(tb);
    Ok((
        cells.cops_out(py, &p.cops)?,
        cells.out(py, p.thief)?,
        turn_name(p.turn),
    ))
}

/// The mover's cells after a move (the cops' after a cop move, the
/// thief's after a thief move), as Python.
fn moved_out(tb: &Tablebase, py: Python<'_>, after: &Position) -> PyResult<Py<PyAny>> {
    let cells = cells_of(tb);
    match after.turn {
        Turn::Thief => cells.cops_out(py, &after.cops),
        Turn::Cop => cells.out(py, after.thief),
    }
}

impl Table {
    fn tb(&self) -> PyResult<&Tablebase> {
        self.tb
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("the table is closed"))
    }

    fn position(
        &self,
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Position> {
        let tb = self.tb()?;
        let cells = cells_of(tb);
        let cops = cells.cops(tb.cops(), cop, true)?;
        let t = cells.cell("thief", thief, true)?;
        let turn = args::turn_or(turn, tb.first_mover())?;
        tb.position(&cops, t, turn).map_err(to_py)
    }

    fn state(
        &self,
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<u64> {
        let pos = self.position(cop, thief, turn)?;
        self.tb()?.state(&pos).map_err(to_py)
    }

    fn probe_at(&self, s: u64) -> PyResult<(retrograde::Outcome, Option<u32>)> {
        let p = self.tb()?.probe_state(s).map_err(to_py)?;
        Ok((p.value, p.dte.map(|d| d.plies())))
    }
}

/// Numpy's `asarray(a)` as contiguous int64, refusing other than integers:
/// a cast would truncate 1.5 to 1 or wrap a turn of 257 to 1 and answer
/// the wrong position.
fn as_i64<'py>(
    np: &Bound<'py, PyModule>,
    a: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<Bound<'py, PyAny>> {
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
}

/// Shapes in words: `(N, 2, 2)`.
fn shape_words(dims: &[usize]) -> String {
    let d: Vec<String> = dims.iter().map(ToString::to_string).collect();
    format!("({}{})", d.join(", "), if d.len() == 1 { "," } else { "" })
}

#[pymethods]
impl Table {
    /// `(value, dte)` for the player to move: `"win"` / `"loss"` /
    /// `"draw"` and plies (`None` for a draw or a table without
    /// distances). `KeyError` for a cell off the map or on a wall.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn probe(
        &self,
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
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
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
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
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
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
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
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
    /// `to` the mover's cell after the move (the cops' cells, a tuple,
    /// after a move of several cops). Empty for a terminal position.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn moves(
        &self,
        py: Python<'_>,
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<PyMove>> {
        let tb = self.tb()?;
        let pos = self.position(cop, thief, turn)?;
        let moves = tb.rated_moves(&pos).map_err(to_py)?;
        moves
            .iter()
            .map(|m| {
                Ok((
                    moved_out(tb, py, &m.to)?,
                    m.value.as_str(),
                    m.dte.map(|d| d.plies()),
                ))
            })
            .collect()
    }

    /// The best moves of the player to move, as `Solution.best_moves`
    /// gives them: the cells it may move to (its own for a pass) among
    /// the fastest win, else any draw, else the slowest loss. Empty for a
    /// terminal position. `moves` rates every move.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn best_moves(
        &self,
        py: Python<'_>,
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<Py<PyAny>>> {
        let tb = self.tb()?;
        let pos = self.position(cop, thief, turn)?;
        let moves = tb.rated_moves(&pos).map_err(to_py)?;
        // Rated best first: the best are those rated as the first.
        let best = moves.first().map(|m| (m.value, m.dte));
        moves
            .iter()
            .filter(|m| Some((m.value, m.dte)) == best)
            .map(|m| moved_out(tb, py, &m.to))
            .collect()
    }

    /// The game under optimal play from a position (default: the table's
    /// start), as `retrograde play` plays it: `[(cop, thief, turn), ...]`,
    /// ending at a terminal position, at the first repeated position, or
    /// after `max_plies` moves.
    #[pyo3(signature = (cop=None, thief=None, turn=None, max_plies=10_000))]
    fn play(
        &self,
        py: Python<'_>,
        cop: Option<&Bound<'_, PyAny>>,
        thief: Option<&Bound<'_, PyAny>>,
        turn: Option<&Bound<'_, PyAny>>,
        max_plies: usize,
    ) -> PyResult<Vec<PyPosition>> {
        let tb = self.tb()?;
        let start = tb.start();
        let cells = cells_of(tb);
        let cops = match (cop, start) {
            (Some(c), _) => cells.cops(tb.cops(), c, true)?,
            (None, Some(s)) => s.cops.to_vec(),
            (None, None) => return Err(no_start(tb)),
        };
        let thief = match (thief, start) {
            (Some(t), _) => cells.cell("thief", t, true)?,
            (None, Some(s)) => s.thief,
            (None, None) => return Err(no_start(tb)),
        };
        let turn = args::turn_or(turn, tb.first_mover())?;
        let pos = tb.position(&cops, thief, turn).map_err(to_py)?;
        let game = py.detach(|| guard(|| tb.optimal_game(&pos, max_plies).map_err(to_py)))?;
        game.iter().map(|p| position_out(tb, py, p)).collect()
    }

    /// Vectorised probes. On a map, `thieves` is an `(N, 2)` integer array
    /// of `(row, col)` and `cops` an `(N, K, 2)` array of the K cops'
    /// cells (any order), or `(N, 2)` on a table of one cop; on a graph,
    /// `thieves` is `(N,)` and `cops` `(N, K)` (or `(N,)` for one cop) of
    /// vertex ids. `turns` is an `(N,)` array of 0 (cop to move) / 1
    /// (thief to move), or of `"cop"` / `"thief"` as `probe` takes them.
    /// Returns `(values, dte)`: int8 (1 win, -1 loss, 0 draw) and int32
    /// (plies, -1 for draws or without distances). `KeyError` naming the
    /// first position the table cannot answer, `ValueError` for arrays of
    /// other shapes. Runs off the GIL on all cores.
    fn probe_many<'py>(
        &self,
        py: Python<'py>,
        cops: &Bound<'py, PyAny>,
        thieves: &Bound<'py, PyAny>,
        turns: &Bound<'py, PyAny>,
    ) -> PyResult<(Values1<'py>, Dte1<'py>)> {
        let tb = self.tb()?;
        let np = py.import("numpy")?;
        let cops = as_i64(&np, cops, "cops")?;
        let thieves = as_i64(&np, thieves, "thieves")?;
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
            as_i64(&np, turns, "turns")?
        };
        let turns: PyReadonlyArray1<'_, i64> = turns
            .extract()
            .map_err(|_| PyValueError::new_err("probe_many: turns must be an (N,) array"))?;
        let cops: PyReadonlyArrayDyn<'_, i64> = cops.extract()?;
        let thieves: PyReadonlyArrayDyn<'_, i64> = thieves.extract()?;
        let (cv, tv, uv) = (cops.as_array(), thieves.as_array(), turns.as_array());
        let n = uv.len();
        let k = tb.cops() as usize;
        let map = tb.grid().is_some();
        // Integers per cell: (row, col) on a map, the vertex on a graph.
        let per = if map { 2 } else { 1 };
        let cell_dims = |lead: &[usize]| -> Vec<usize> {
            let mut d = lead.to_vec();
            if map {
                d.push(2);
            }
            d
        };
        let mut cop_shapes = vec![cell_dims(&[n, k])];
        if k == 1 {
            cop_shapes.insert(0, cell_dims(&[n]));
        }
        let thief_shape = cell_dims(&[n]);
        let words = |dims: &[usize]| shape_words(dims).replace(&format!("({n}"), "(N");
        if !cop_shapes.iter().any(|s| s == cv.shape()) {
            let want: Vec<String> = cop_shapes.iter().map(|s| words(s)).collect();
            return Err(PyValueError::new_err(format!(
                "probe_many: cops must be {} for a table of {k} cop{}{}, got shape {} (N = {n} turns)",
                want.join(" or "),
                if k == 1 { "" } else { "s" },
                if map { " on a map" } else { " on a graph" },
                shape_words(cv.shape()),
            )));
        }
        if tv.shape() != thief_shape.as_slice() {
            return Err(PyValueError::new_err(format!(
                "probe_many: thieves must be {}{}, got shape {} (N = {n} turns)",
                words(&thief_shape),
                if map { " on a map" } else { " on a graph" },
                shape_words(tv.shape()),
            )));
        }
        let (cs, ts, us) = (
            cv.as_slice().expect("contiguous"),
            tv.as_slice().expect("contiguous"),
            uv.as_slice().expect("contiguous"),
        );
        let grid = tb.grid();
        let vertices = i64::from(tb.cells());
        let cell_of = |at: &[i64]| -> Option<u32> {
            match grid {
                Some(g) => g.cell_at_signed(at[0], at[1]),
                None => (0..vertices).contains(&at[0]).then_some(at[0] as u32),
            }
        };
        let state_of = |i: usize| -> Option<u64> {
            let turn = turn_code(us[i])?;
            let mut cells = [0u32; MAX_COPS];
            let at = &cs[i * k * per..(i + 1) * k * per];
            for (c, place) in cells.iter_mut().zip(at.chunks_exact(per)) {
                *c = cell_of(place)?;
            }
            let cells = &mut cells[..k];
            cells.sort_unstable();
            let thief = cell_of(&ts[i * per..(i + 1) * per])?;
            Some(tb.state_unchecked(cells, thief, turn))
        };
        let mut values = vec![0i8; n];
        let mut dte = vec![0i32; n];
        let probe = |s: u64| {
            tb.probe_state(s)
                .map(|p| (value_code(p.value), p.dte.map_or(-1, |d| d.plies() as i32)))
        };
        // Keys `state << bits | position` in one u64 when they fit (any
        // table of fewer than 2^63 / N states), else in a u128; the
        // largest key (all ones) marks a position not of the table.
        let bits = u64::BITS - (n as u64).leading_zeros();
        let state_bits = u64::BITS - tb.header().states.leading_zeros();
        let failed = py.detach(|| {
            if bits + state_bits < u64::BITS {
                probe_in_state_order(
                    n,
                    |i| state_of(i).map_or(u64::MAX, |s| s << bits | i as u64),
                    |key| (key >> bits, (key & ((1 << bits) - 1)) as usize),
                    probe,
                    (&mut values, &mut dte),
                )
            } else {
                probe_in_state_order(
                    n,
                    |i| state_of(i).map_or(u128::MAX, |s| u128::from(s) << 64 | i as u128),
                    |key| ((key >> 64) as u64, key as u64 as usize),
                    probe,
                    (&mut values, &mut dte),
                )
            }
        });
        match failed {
            None => Ok((
                Array1::from_vec(values).into_pyarray(py),
                Array1::from_vec(dte).into_pyarray(py),
            )),
            Some(Failed::Table(e)) => Err(to_py(e)),
            Some(Failed::Position(i)) => {
                let turn = us[i];
                let place = |at: &[i64]| {
                    at.iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(",")
                };
                let nowhere = if map {
                    "off the map or a wall".to_string()
                } else {
                    format!("not a vertex (0..{vertices})")
                };
                let bad_cop = cs[i * k * per..(i + 1) * k * per]
                    .chunks_exact(per)
                    .find(|at| cell_of(at).is_none());
                let why = match (turn_code(turn), bad_cop) {
                    (None, _) => format!("turn {turn}: expected 0 (cop) or 1 (thief)"),
                    (_, Some(at)) => format!("cop {}: {nowhere}", place(at)),
                    _ => format!("thief {}: {nowhere}", place(&ts[i * per..(i + 1) * per])),
                };
                Err(PyKeyError::new_err(format!(
                    "probe_many: position {i}: {why}"
                )))
            }
        }
    }

    /// Values and distances with one side fixed, as `Solution.heatmap`
    /// (the data `retrograde render --cop/--thief` colours): `cop=` fixes
    /// the cop (the cops, on a table of several) over every cell of the
    /// thief, `thief=` the thief over every cell of the one cop. 2-D
    /// arrays of the map's shape (walls -2 in values, -1 in distances), or
    /// 1-D arrays over a graph's vertices.
    #[pyo3(signature = (*, cop=None, thief=None, turn=None))]
    fn heatmap<'py>(
        &self,
        py: Python<'py>,
        cop: Option<&Bound<'py, PyAny>>,
        thief: Option<&Bound<'py, PyAny>>,
        turn: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
        let tb = self.tb()?;
        let cells = cells_of(tb);
        let turn = args::turn_or(turn, tb.first_mover())?;
        let probes = match (cop, thief) {
            (Some(c), None) => {
                let cops = cells.cops(tb.cops(), c, true)?;
                py.detach(|| guard(|| tb.thief_cells(&cops, turn).map_err(to_py)))?
            }
            (None, Some(_)) if tb.cops() > 1 => {
                return Err(PyValueError::new_err(format!(
                    "heatmap: a table of {} cops maps the thief's cells: give cop=[cells of the cops]",
                    tb.cops()
                )));
            }
            (None, Some(t)) => {
                let t = cells.cell("thief", t, true)?;
                py.detach(|| guard(|| tb.cop_cells(t, turn).map_err(to_py)))?
            }
            _ => {
                return Err(PyValueError::new_err(
                    "heatmap: give exactly one of cop=(row, col) or thief=(row, col)",
                ))
            }
        };
        let code = |p: &Probe| (value_code(p.value), p.dte.map_or(-1, |d| d.plies() as i32));
        Ok(match tb.grid() {
            Some(grid) => {
                let (h, w) = (grid.height(), grid.width());
                let mut values = Array2::from_elem((h, w), -2i8);
                let mut dte = Array2::from_elem((h, w), -1i32);
                for (id, p) in probes.iter().enumerate() {
                    let rc = grid.coords(id as u32);
                    (values[rc], dte[rc]) = code(p);
                }
                (
                    values.into_pyarray(py).into_any().unbind(),
                    dte.into_pyarray(py).into_any().unbind(),
                )
            }
            None => {
                let (values, dte): (Vec<i8>, Vec<i32>) = probes.iter().map(code).unzip();
                (
                    Array1::from_vec(values)
                        .into_pyarray(py)
                        .into_any()
                        .unbind(),
                    Array1::from_vec(dte).into_pyarray(py).into_any().unbind(),
                )
            }
        })
    }

    /// Free cells of the table's map as a 2-D bool array (`ValueError` on
    /// a graph's table).
    fn to_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let tb = self.tb()?;
        let grid = tb
            .grid()
            .ok_or_else(|| PyValueError::new_err("to_array: the table is of a graph, not a map"))?;
        Ok(
            Array2::from_shape_fn((grid.height(), grid.width()), |(r, c)| {
                grid.cell_at(r, c).is_some()
            })
            .into_pyarray(py),
        )
    }

    /// The table's start `(cop, thief, turn)` (`cop` the cops' cells on a
    /// table of several), or `None`.
    #[getter]
    fn start(&self, py: Python<'_>) -> PyResult<Option<PyPosition>> {
        let tb = self.tb()?;
        tb.start().map(|p| position_out(tb, py, &p)).transpose()
    }

    /// Map rows (1 on a graph).
    #[getter]
    fn rows(&self) -> PyResult<usize> {
        Ok(self.tb()?.header().rows)
    }

    /// Map columns (the vertices on a graph).
    #[getter]
    fn cols(&self) -> PyResult<usize> {
        Ok(self.tb()?.header().cols)
    }

    /// The number of cops.
    #[getter]
    fn cops(&self) -> PyResult<u32> {
        Ok(self.tb()?.cops())
    }

    /// Whether the table is of a graph (cells are vertex ids) rather than
    /// a map.
    #[getter]
    fn graph(&self) -> PyResult<bool> {
        Ok(self.tb()?.grid().is_none())
    }

    /// Cells of the game: a map's free cells, a graph's vertices.
    #[getter]
    fn cells(&self) -> PyResult<u32> {
        Ok(self.tb()?.cells())
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
        let Some(tb) = &self.tb else {
            return "<retrograde.Table (closed)>".into();
        };
        let h = tb.header();
        let board = if h.graph {
            format!("graph of {} vertices", h.cells)
        } else {
            format!("{}x{}", h.rows, h.cols)
        };
        let cops = if h.cops > 1 {
            format!(", {} cops", h.cops)
        } else {
            String::new()
        };
        format!(
            "<retrograde.Table {} ({board}{cops}, {} states{})>",
            tb.path().display(),
            h.states,
            if h.has_dte { ", distances" } else { "" }
        )
    }
}

/// Keys with a largest value.
trait Bounded {
    const MAX: Self;
}

impl Bounded for u64 {
    const MAX: u64 = u64::MAX;
}

impl Bounded for u128 {
    const MAX: u128 = u128::MAX;
}

/// What stopped `probe_many`: the first position that is not one of the
/// table's, or a damaged block.
enum Failed {
    Position(usize),
    Table(retrograde::Error),
}

/// Probes positions `0..n` in state order and writes each answer at its
/// position: `key` packs position `i`'s state and `i` so that keys sort by
/// state (`K::MAX`, above every other key, for a position that is not one
/// of the table's), `unpack` takes them apart. Sorted first, each thread walks its share
/// of the table's blocks in order and decodes each block it needs about
/// once, however random the input; the answers are then scattered back.
fn probe_in_state_order<K: Copy + Ord + Send + Sync + Bounded>(
    n: usize,
    key: impl Fn(usize) -> K + Sync,
    unpack: impl Fn(K) -> (u64, usize) + Sync,
    probe: impl Fn(u64) -> retrograde::Result<(i8, i32)> + Sync,
    (values, dte): (&mut [i8], &mut [i32]),
) -> Option<Failed> {
    // An indexed collect (no per-thread lists); a position not of the
    // table sorts last.
    let mut keys: Vec<K> = Vec::new();
    (0..n).into_par_iter().map(&key).collect_into_vec(&mut keys);
    keys.par_sort_unstable();
    if keys.last() == Some(&K::MAX) {
        // The first such position.
        return (0..n).find(|&i| key(i) == K::MAX).map(Failed::Position);
    }
    let error = std::sync::Mutex::new(None);
    let mut answers = Vec::new();
    keys.par_iter()
        .map(|k| {
            let (s, _) = unpack(*k);
            probe(s).unwrap_or_else(|e| {
                error.lock().expect("no panic holds it").get_or_insert(e);
                (0, 0)
            })
        })
        .collect_into_vec(&mut answers);
    if let Some(e) = error.into_inner().expect("no panic holds it") {
        return Some(Failed::Table(e));
    }
    for (k, (v, d)) in keys.iter().zip(answers) {
        let (_, i) = unpack(*k);
        values[i] = v;
        dte[i] = d;
    }
    None
}

fn no_start(tb: &Tablebase) -> PyErr {
    let what = if tb.grid().is_some() { "map" } else { "graph" };
    PyValueError::new_err(format!(
        "play: the table's {what} has no start: give cop= and thief="
    ))
}
