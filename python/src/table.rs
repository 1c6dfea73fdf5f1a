//! `open_table()` and `Table`: probes of a saved tablebase of any number of
//! cops, on a map or a graph, through the library's one reader
//! (`retrograde::Tablebase`); the vectorised `probe_many` is in
//! `probe_many.rs`.

use std::path::PathBuf;

use numpy::PyArray2;
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use retrograde::{Position, Tablebase, Turn};

use crate::args::{self, counts_dict};
use crate::arrays::{grid_bools, Dte1, Values1};
use crate::cells::{Cells, PyPosition};
use crate::errors::{guard, to_py};
use crate::heatmap;

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

/// A rated move as Python: `(to, value, dte)`.
type PyMove = (Py<PyAny>, &'static str, Option<u32>);

/// The cells of a table's positions.
fn cells_of(tb: &Tablebase) -> Cells<'_> {
    match tb.grid() {
        Some(grid) => Cells::Map(grid),
        None => Cells::Graph(tb.cells()),
    }
}

/// A position of the table as Python.
fn position_out(tb: &Tablebase, py: Python<'_>, p: &Position) -> PyResult<PyPosition> {
    cells_of(tb).position_out(py, &p.cops, p.thief, p.turn)
}

impl Table {
    fn tb(&self) -> PyResult<&Tablebase> {
        self.tb
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("the table is closed"))
    }

    /// The position of `(cop, thief, turn)`, either of the first two
    /// `None` for the table's start's (`ValueError` without a start).
    fn position(
        &self,
        cop: Option<&Bound<'_, PyAny>>,
        thief: Option<&Bound<'_, PyAny>>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Position> {
        let tb = self.tb()?;
        let cells = cells_of(tb);
        let no_start = || {
            let what = if tb.grid().is_some() { "map" } else { "graph" };
            PyValueError::new_err(format!(
                "play: the table's {what} has no start: give cop= and thief="
            ))
        };
        let start = || tb.start().ok_or_else(no_start);
        let cops = match cop {
            Some(c) => cells.cops(tb.cops(), c, true)?,
            None => start()?.cops.to_vec(),
        };
        let thief = match thief {
            Some(t) => cells.cell("thief", t, true)?,
            None => start()?.thief,
        };
        let turn = args::turn_or(turn, tb.first_mover())?;
        tb.position(&cops, thief, turn).map_err(to_py)
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
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(&'static str, Option<u32>)> {
        let tb = self.tb()?;
        let pos = self.position(Some(cop), Some(thief), turn)?;
        let p = tb
            .probe_state(tb.state(&pos).map_err(to_py)?)
            .map_err(to_py)?;
        Ok((p.value.as_str(), p.dte.map(|d| d.plies())))
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
        Ok(self.probe(cop, thief, turn)?.0)
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
        let (_, dte) = self.probe(cop, thief, turn)?;
        let tb = self.tb()?;
        if !tb.header().has_dte {
            return Err(PyKeyError::new_err(format!(
                "{}: the table stores no distances (solve with --dte-table or distances=True)",
                tb.path().display()
            )));
        }
        Ok(dte)
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
        match self.probe(cop, thief, turn) {
            Ok((v, _)) => Ok(v.into_pyobject(py)?.into_any().unbind()),
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
        let pos = self.position(Some(cop), Some(thief), turn)?;
        let cells = cells_of(tb);
        let moved = |to: &Position| cells.moved_out(py, to.turn == Turn::Thief, &to.cops, to.thief);
        tb.rated_moves(&pos)
            .map_err(to_py)?
            .iter()
            .map(|m| Ok((moved(&m.to)?, m.value.as_str(), m.dte.map(|d| d.plies()))))
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
        let moves = self.moves(py, cop, thief, turn)?;
        // Rated best first: the best are those rated as the first.
        let best = moves.first().map(|(_, v, d)| (*v, *d));
        Ok(moves
            .into_iter()
            .filter(|(_, v, d)| Some((*v, *d)) == best)
            .map(|(to, ..)| to)
            .collect())
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
        let pos = self.position(cop, thief, turn)?;
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
    /// other shapes or a turn other than 0 / 1 / `"cop"` / `"thief"`. Runs
    /// off the GIL on all cores.
    fn probe_many<'py>(
        &self,
        py: Python<'py>,
        cops: &Bound<'py, PyAny>,
        thieves: &Bound<'py, PyAny>,
        turns: &Bound<'py, PyAny>,
    ) -> PyResult<(Values1<'py>, Dte1<'py>)> {
        crate::probe_many::probe_many(py, self.tb()?, cops, thieves, turns)
    }

    /// Values and distances with one side fixed, as `Solution.heatmap`
    /// (the data `retrograde render --cop/--thief` colours): `cop=` fixes
    /// the cop (the cops, on a table of several) over every cell of the
    /// thief, `thief=` the thief over every cell of the one cop. 2-D
    /// arrays of the map's shape (walls -2 in values, -1 in distances), or
    /// 1-D arrays over a graph's vertices.
    #[pyo3(signature = (*, cop=None, thief=None, turn=None))]
    fn heatmap(
        &self,
        py: Python<'_>,
        cop: Option<&Bound<'_, PyAny>>,
        thief: Option<&Bound<'_, PyAny>>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
        let tb = self.tb()?;
        let turn = args::turn_or(turn, tb.first_mover())?;
        let k = tb.cops();
        let several =
            format!("a table of {k} cops maps the thief's cells: give cop=[cells of the cops]");
        let fixed = heatmap::fixed(cells_of(tb), k, (cop, thief), true, &several)?;
        heatmap::arrays(py, tb, cells_of(tb), &fixed, turn)
    }

    /// Free cells of the table's map as a 2-D bool array (`ValueError` on
    /// a graph's table).
    fn to_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let grid = self.tb()?.grid();
        let grid = grid
            .ok_or_else(|| PyValueError::new_err("to_array: the table is of a graph, not a map"))?;
        Ok(grid_bools(py, grid, |_| true))
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
        counts_dict(py, self.tb()?.header().counts)
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
    fn __exit__(&mut self, _exc: &Bound<'_, PyTuple>) -> bool {
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
