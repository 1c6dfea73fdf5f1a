//! Cells of positions in and out of Python: `(row, col)` on a map, vertex
//! ids on a graph, one cop or several (shared by `Solution` and `Table`).

use pyo3::exceptions::{PyKeyError, PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use retrograde::{Coord, Grid, Turn};

use crate::errors::message;

/// A Python int as i64, saturated past its range: a huge coordinate or
/// vertex is then answered as a cell off the map, worded as the library
/// words it, not with pyo3's `OverflowError`.
fn saturating_int(x: &Bound<'_, PyAny>) -> PyResult<i64> {
    match x.extract::<i64>() {
        Ok(v) => Ok(v),
        Err(e) if e.is_instance_of::<PyOverflowError>(x.py()) => {
            Ok(if x.lt(0)? { i64::MIN } else { i64::MAX })
        }
        Err(e) => Err(e),
    }
}

/// A cell argument `(row, col)` of any Python ints (saturated, so still
/// off every map).
#[derive(Clone, Copy, Debug)]
pub struct At {
    pub row: i64,
    pub col: i64,
}

impl<'py> FromPyObject<'_, 'py> for At {
    type Error = PyErr;

    fn extract(ob: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        let (r, c): (Bound<'py, PyAny>, Bound<'py, PyAny>) = ob.extract()?;
        Ok(At {
            row: saturating_int(&r)?,
            col: saturating_int(&c)?,
        })
    }
}

impl From<Coord> for At {
    fn from((row, col): Coord) -> At {
        // Grids are at most 65535 x 65535: these fit.
        At {
            row: row as i64,
            col: col as i64,
        }
    }
}

impl At {
    /// The cell as a `Coord`, `None` when a coordinate is negative.
    pub fn coord(self) -> Option<Coord> {
        Some((
            usize::try_from(self.row).ok()?,
            usize::try_from(self.col).ok()?,
        ))
    }

    /// The cell as a `Coord`, or `ValueError` naming the argument `what`
    /// (`cop=`, `exits `: the API's words, not the CLI's flags) when
    /// negative (for starts and exits, which the library checks further).
    pub fn to_coord(self, what: &str) -> PyResult<Coord> {
        self.coord().ok_or_else(|| {
            PyValueError::new_err(format!(
                "{what}({}, {}): outside the map: rows and columns start at 0",
                self.row, self.col
            ))
        })
    }
}

/// `KeyError` (tables: a position the table cannot answer) or
/// `ValueError` (solutions: a bad argument).
fn refusal(key_error: bool, m: String) -> PyErr {
    if key_error {
        PyKeyError::new_err(m)
    } else {
        PyValueError::new_err(m)
    }
}

/// The free cell id of `c` on `grid`, or the library's words for why not
/// as [`refusal`].
pub fn cell(grid: &Grid, what: &str, c: At, key_error: bool) -> PyResult<u32> {
    let why = match c.coord() {
        Some(rc) => match grid.free_cell(what, rc) {
            Ok(id) => return Ok(id),
            Err(e) => message(&e),
        },
        // The library takes no negative cell: worded as it words a cell
        // past the last row or column.
        None => format!(
            "{what} {},{}: outside the map: rows are 0..={}, columns 0..={}",
            c.row,
            c.col,
            grid.height().saturating_sub(1),
            grid.width().saturating_sub(1)
        ),
    };
    Err(refusal(key_error, why))
}

/// A position as Python: `(cop or cops, thief, turn)`.
pub type PyPosition = (Py<PyAny>, Py<PyAny>, &'static str);

/// The cells a position names: a map's free cells as `(row, col)`, or a
/// graph's vertices as ints (`Graph(n)`: vertices `0..n`).
#[derive(Clone, Copy)]
pub enum Cells<'a> {
    /// A grid map.
    Map(&'a Grid),
    /// A graph of `n` vertices.
    Graph(u32),
}

impl Cells<'_> {
    /// Whether `arg` has the form of one cell (valid or not).
    fn is_place(self, arg: &Bound<'_, PyAny>) -> bool {
        match self {
            Cells::Map(_) => arg.extract::<At>().is_ok(),
            Cells::Graph(_) => saturating_int(arg).is_ok(),
        }
    }

    /// The cell of one place; [`refusal`] naming `what` when it is not
    /// one of the game's.
    pub fn cell(self, what: &str, arg: &Bound<'_, PyAny>, key_error: bool) -> PyResult<u32> {
        match self {
            Cells::Map(grid) => cell(grid, what, arg.extract::<At>()?, key_error),
            Cells::Graph(n) => {
                let v = saturating_int(arg)?;
                u32::try_from(v).ok().filter(|&v| v < n).ok_or_else(|| {
                    refusal(
                        key_error,
                        format!("{what} {v}: the graph's vertices are 0..{n}"),
                    )
                })
            }
        }
    }

    /// The cells of `k` cops: one place when `k` is 1 (or a sequence of
    /// one), else a sequence of `k` places in any order. `ValueError` for
    /// another count; the cells are as [`Cells::cell`] checks them.
    pub fn cops(self, k: u32, arg: &Bound<'_, PyAny>, key_error: bool) -> PyResult<Vec<u32>> {
        if k == 1 && self.is_place(arg) {
            return Ok(vec![self.cell("cop", arg, key_error)?]);
        }
        let places: Vec<Bound<'_, PyAny>> = arg.extract()?;
        let s = if k == 1 { "" } else { "s" };
        if places.len() != k as usize {
            return Err(PyValueError::new_err(format!(
                "cops: expected {k} cell{s}, got {}",
                places.len()
            )));
        }
        if !places.iter().all(|p| self.is_place(p)) {
            let each = match self {
                Cells::Map(_) => "(row, col) each",
                Cells::Graph(_) => "vertex ids",
            };
            return Err(PyValueError::new_err(format!(
                "cops: expected {k} cell{s} ({each}), got {}",
                arg.repr()?
            )));
        }
        places
            .iter()
            .map(|p| self.cell("cop", p, key_error))
            .collect()
    }

    /// A cell as Python: `(row, col)` on a map, the vertex id on a graph.
    pub fn out(self, py: Python<'_>, c: u32) -> PyResult<Py<PyAny>> {
        Ok(match self {
            Cells::Map(grid) => grid.coords(c).into_pyobject(py)?.into_any().unbind(),
            Cells::Graph(_) => c.into_pyobject(py)?.into_any().unbind(),
        })
    }

    /// Cops as Python: one cop as its cell, several as a tuple of cells
    /// (ascending).
    pub fn cops_out(self, py: Python<'_>, cops: &[u32]) -> PyResult<Py<PyAny>> {
        if let [one] = cops {
            return self.out(py, *one);
        }
        let cells = cops
            .iter()
            .map(|&c| self.out(py, c))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyTuple::new(py, cells)?.into_any().unbind())
    }

    /// The mover's cells after a move, as Python: the cops' (`cops_moved`)
    /// or the thief's, of the position `(cops, thief)` the move reached.
    pub fn moved_out(
        self,
        py: Python<'_>,
        cops_moved: bool,
        cops: &[u32],
        thief: u32,
    ) -> PyResult<Py<PyAny>> {
        if cops_moved {
            self.cops_out(py, cops)
        } else {
            self.out(py, thief)
        }
    }

    /// A position as Python.
    pub fn position_out(
        self,
        py: Python<'_>,
        cops: &[u32],
        thief: u32,
        turn: Turn,
    ) -> PyResult<PyPosition> {
        Ok((
            self.cops_out(py, cops)?,
            self.out(py, thief)?,
            turn.as_str(),
        ))
    }
}
