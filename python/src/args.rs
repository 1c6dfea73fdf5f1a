//! Conversions of Python arguments: cells, turns, values, `threads=`,
//! the cells of positions on maps and graphs, and the arrays of a heatmap
//! (shared by `solve` and `table`, so that neither imports the other for
//! them).

use numpy::ndarray::Array2;
use pyo3::exceptions::{PyKeyError, PyOverflowError, PyValueError};
use pyo3::prelude::*;
use retrograde::{Coord, Grid, Outcome, Turn};

/// A turn from `"cop"` / `"thief"` or 0 / 1 (0 = cop to move).
pub fn turn(arg: &Bound<'_, PyAny>) -> PyResult<Turn> {
    if let Ok(s) = arg.extract::<String>() {
        return match s.as_str() {
            "cop" => Ok(Turn::Cop),
            "thief" => Ok(Turn::Thief),
            _ => Err(PyValueError::new_err(format!(
                "turn {s:?}: expected \"cop\" or \"thief\""
            ))),
        };
    }
    match arg.extract::<i64>() {
        Ok(0) => Ok(Turn::Cop),
        Ok(1) => Ok(Turn::Thief),
        _ => Err(PyValueError::new_err(format!(
            "turn {}: expected \"cop\" or \"thief\" (or 0 / 1)",
            arg.repr()?
        ))),
    }
}

/// A turn argument that may be left out: `default` then.
pub fn turn_or(arg: Option<&Bound<'_, PyAny>>, default: Turn) -> PyResult<Turn> {
    arg.map_or(Ok(default), turn)
}

/// The name of a turn.
pub fn turn_name(t: Turn) -> &'static str {
    match t {
        Turn::Cop => "cop",
        Turn::Thief => "thief",
    }
}

/// A cell argument `(row, col)` of any Python ints: a negative or huge
/// one is then answered as a cell off the map (`KeyError` / `ValueError`
/// worded as the library words it), not with pyo3's `OverflowError`.
#[derive(Clone, Copy, Debug)]
pub struct At {
    /// Row; past the range of i64, saturated (still off every map).
    pub row: i64,
    /// Column, saturated as `row`.
    pub col: i64,
}

impl<'py> FromPyObject<'_, 'py> for At {
    type Error = PyErr;

    fn extract(ob: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        let (r, c): (Bound<'py, PyAny>, Bound<'py, PyAny>) = ob.extract()?;
        let int = |x: &Bound<'py, PyAny>| match x.extract::<i64>() {
            Ok(v) => Ok(v),
            Err(e) if e.is_instance_of::<PyOverflowError>(x.py()) => {
                Ok(if x.lt(0)? { i64::MIN } else { i64::MAX })
            }
            Err(e) => Err(e),
        };
        Ok(At {
            row: int(&r)?,
            col: int(&c)?,
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

    /// The cell as a `Coord`, or `ValueError` naming `what` when negative
    /// (for starts and exits, which the library checks further).
    pub fn to_coord(self, what: &str) -> PyResult<Coord> {
        self.coord().ok_or_else(|| {
            PyValueError::new_err(format!(
                "{what} {},{}: outside the map: rows and columns start at 0",
                self.row, self.col
            ))
        })
    }
}

/// Why `c` is not a free cell of `grid`, worded as the library words it.
pub fn cell_problem(grid: &Grid, what: &str, c: At) -> Option<String> {
    let label = format!("{what} {},{}", c.row, c.col);
    let Some(c) = c
        .coord()
        .filter(|c| c.0 < grid.height() && c.1 < grid.width())
    else {
        return Some(format!(
            "{label}: outside the map: rows are 0..={}, columns 0..={}",
            grid.height().saturating_sub(1),
            grid.width().saturating_sub(1)
        ));
    };
    match grid.cell_at(c.0, c.1) {
        Some(_) => None,
        None => Some(format!("{label}: is a wall: expected a free cell")),
    }
}

/// The free cell id of `c`, or `ValueError` (solutions) / `KeyError`
/// (tables: a position the table cannot answer).
pub fn cell(grid: &Grid, what: &str, c: At, key_error: bool) -> PyResult<u32> {
    match cell_problem(grid, what, c) {
        None => Ok(grid
            .cell_at(c.row as usize, c.col as usize)
            .expect("checked free")),
        Some(m) if key_error => Err(PyKeyError::new_err(m)),
        Some(m) => Err(PyValueError::new_err(m)),
    }
}

/// Values in arrays: 1 win, -1 loss, 0 draw (for the player to move).
pub fn value_code(o: Outcome) -> i8 {
    match o {
        Outcome::Win => 1,
        Outcome::Loss => -1,
        Outcome::Draw => 0,
    }
}

/// Values and distances over a map, as numpy arrays.
pub type Maps2<'py> = (
    Bound<'py, numpy::PyArray2<i8>>,
    Bound<'py, numpy::PyArray2<i32>>,
);
/// Values of many positions.
pub type Values1<'py> = Bound<'py, numpy::PyArray1<i8>>;
/// Distances of many positions.
pub type Dte1<'py> = Bound<'py, numpy::PyArray1<i32>>;

/// Most worker threads `threads=` accepts, as the CLI's `--threads`.
const MAX_THREADS: usize = 1024;

/// `threads=`: at least 1, at most [`MAX_THREADS`]; absent, one per core.
pub fn threads_arg(threads: Option<usize>) -> PyResult<usize> {
    match threads {
        Some(0) => Err(PyValueError::new_err("threads must be at least 1")),
        Some(t) if t > MAX_THREADS => Err(PyValueError::new_err(format!(
            "threads={t}: at most {MAX_THREADS}"
        ))),
        Some(t) => Ok(t),
        None => Ok(std::thread::available_parallelism().map_or(1, usize::from)),
    }
}

/// A heatmap over a grid: for every free cell `x` of the moving piece, the
/// state `(fixed, x)` or `(x, fixed)`; walls are -2 in values and -1 in
/// distances, draws and unknown distances -1.
pub fn heatmap_arrays(
    grid: &Grid,
    state_of: impl Fn(u32) -> u64 + Sync,
    probe: impl Fn(u64) -> PyResult<(Outcome, Option<u32>)> + Sync,
) -> PyResult<(Array2<i8>, Array2<i32>)> {
    let (h, w) = (grid.height(), grid.width());
    let mut values = Array2::from_elem((h, w), -2i8);
    let mut dte = Array2::from_elem((h, w), -1i32);
    for id in 0..grid.cells() as u32 {
        let (r, c) = grid.coords(id);
        let (v, d) = probe(state_of(id))?;
        values[(r, c)] = value_code(v);
        dte[(r, c)] = d.map_or(-1, |d| d as i32);
    }
    Ok((values, dte))
}

/// The cells a position names: a map's free cells as `(row, col)`, or a
/// graph's vertices as ints (`Graph(n)`: vertices `0..n`).
#[derive(Clone, Copy)]
pub enum Cells<'a> {
    /// A grid map.
    Map(&'a Grid),
    /// A graph of `n` vertices.
    Graph(u32),
}

/// A Python int as i64, saturated past its range (still not a vertex).
fn saturating_int(x: &Bound<'_, PyAny>) -> PyResult<i64> {
    match x.extract::<i64>() {
        Ok(v) => Ok(v),
        Err(e) if e.is_instance_of::<PyOverflowError>(x.py()) => {
            Ok(if x.lt(0)? { i64::MIN } else { i64::MAX })
        }
        Err(e) => Err(e),
    }
}

impl Cells<'_> {
    /// The cell of one place; `KeyError` (tables) or `ValueError`
    /// (solutions) naming `what` when it is not one of the game's.
    pub fn cell(self, what: &str, arg: &Bound<'_, PyAny>, key_error: bool) -> PyResult<u32> {
        match self {
            Cells::Map(grid) => cell(grid, what, arg.extract::<At>()?, key_error),
            Cells::Graph(n) => {
                let v = saturating_int(arg)?;
                match u32::try_from(v).ok().filter(|&v| v < n) {
                    Some(v) => Ok(v),
                    None => {
                        let m = format!("{what} {v}: the graph's vertices are 0..{n}");
                        Err(if key_error {
                            PyKeyError::new_err(m)
                        } else {
                            PyValueError::new_err(m)
                        })
                    }
                }
            }
        }
    }

    /// The cells of `k` cops: one place when `k` is 1 (or a sequence of
    /// one), else a sequence of `k` places in any order. `ValueError` for
    /// another count; the cells are as [`Cells::cell`] checks them.
    pub fn cops(self, k: u32, arg: &Bound<'_, PyAny>, key_error: bool) -> PyResult<Vec<u32>> {
        if k == 1 {
            let one = match self {
                Cells::Map(_) => arg.extract::<At>().is_ok(),
                Cells::Graph(_) => saturating_int(arg).is_ok(),
            };
            if one {
                return Ok(vec![self.cell("cop", arg, key_error)?]);
            }
        }
        let places: Vec<Bound<'_, PyAny>> = arg.extract()?;
        if places.len() != k as usize {
            return Err(PyValueError::new_err(format!(
                "cops: expected {k} cell{}, got {}",
                if k == 1 { "" } else { "s" },
                places.len()
            )));
        }
        let cell_type = |p: &Bound<'_, PyAny>| match self {
            Cells::Map(_) => p.extract::<At>().is_ok(),
            Cells::Graph(_) => saturating_int(p).is_ok(),
        };
        if !places.iter().all(cell_type) {
            return Err(PyValueError::new_err(format!(
                "cops: expected {k} cell{} ({}), got {}",
                if k == 1 { "" } else { "s" },
                match self {
                    Cells::Map(_) => "(row, col) each",
                    Cells::Graph(_) => "vertex ids",
                },
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
        Ok(pyo3::types::PyTuple::new(py, cells)?.into_any().unbind())
    }
}
