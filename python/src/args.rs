//! Conversions of Python arguments: cells, turns, values, `threads=`,
//! and the arrays of a heatmap (shared by `solve`, `kcops`, `table`, so
//! that none of them imports another for them).

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

/// Which piece a heatmap fixes: exactly one of `cop=` / `thief=`.
pub fn fixed(cop: Option<At>, thief: Option<At>) -> PyResult<(bool, At)> {
    match (cop, thief) {
        (Some(c), None) => Ok((true, c)),
        (None, Some(t)) => Ok((false, t)),
        _ => Err(PyValueError::new_err(
            "heatmap: give exactly one of cop=(row, col) or thief=(row, col)",
        )),
    }
}
