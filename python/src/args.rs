//! Conversions of Python arguments and small results: turns, `threads=`,
//! values as codes, counts as a dict.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use retrograde::{Counts, Outcome, Turn};

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

/// A value and its distance as numpy arrays hold them: 1 win, -1 loss, 0
/// draw (for the player to move) and plies, -1 where there are none.
pub fn codes(value: Outcome, plies: Option<u32>) -> (i8, i32) {
    let v = match value {
        Outcome::Win => 1,
        Outcome::Loss => -1,
        Outcome::Draw => 0,
    };
    (v, plies.map_or(-1, |d| d as i32))
}

/// WIN / LOSS / DRAW counts as `{"win": ..., "loss": ..., "draw": ...}`.
pub fn counts_dict(py: Python<'_>, c: Counts) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("win", c.win)?;
    d.set_item("loss", c.loss)?;
    d.set_item("draw", c.draw)?;
    Ok(d)
}
