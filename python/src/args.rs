//! Conversions of Python arguments: cells, turns, values.

use pyo3::exceptions::{PyKeyError, PyValueError};
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

/// Why `c` is not a free cell of `grid`, worded as the library words it.
pub fn cell_problem(grid: &Grid, what: &str, c: Coord) -> Option<String> {
    let label = format!("{what} {},{}", c.0, c.1);
    if c.0 >= grid.height() || c.1 >= grid.width() {
        return Some(format!(
            "{label}: outside the map: rows are 0..={}, columns 0..={}",
            grid.height().saturating_sub(1),
            grid.width().saturating_sub(1)
        ));
    }
    match grid.cell_at(c.0, c.1) {
        Some(_) => None,
        None => Some(format!("{label}: is a wall: expected a free cell")),
    }
}

/// The free cell id of `c`, or `ValueError` (solutions) / `KeyError`
/// (tables: a position the table cannot answer).
pub fn cell(grid: &Grid, what: &str, c: Coord, key_error: bool) -> PyResult<u32> {
    match cell_problem(grid, what, c) {
        None => Ok(grid.cell_at(c.0, c.1).expect("checked free")),
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
