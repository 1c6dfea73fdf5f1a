//! Numpy arrays in and out: integer arrays checked before they are cast,
//! a map's cells as a bool array.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use retrograde::Grid;

/// Values of many positions or vertices (int8: 1 win, -1 loss, 0 draw).
pub type Values1<'py> = Bound<'py, PyArray1<i8>>;
/// Distances of many positions or vertices (int32 plies, -1 for none).
pub type Dte1<'py> = Bound<'py, PyArray1<i32>>;

/// Numpy's `asarray(a)`, refusing other than integers (`ValueError`
/// "`{what}` must be integers, got dtype D`{note}`") before the caller
/// casts it to int64: a cast would truncate 1.5 to 1 or wrap a turn of 257
/// to 1 and answer another position or graph.
pub fn integers<'py>(
    np: &Bound<'py, PyModule>,
    a: &Bound<'py, PyAny>,
    what: &str,
    note: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let a = np.call_method1("asarray", (a,))?;
    let kind: String = a.getattr("dtype")?.getattr("kind")?.extract()?;
    let size: usize = a.getattr("size")?.extract()?;
    if size > 0 && !matches!(kind.as_str(), "i" | "u" | "b") {
        return Err(PyValueError::new_err(format!(
            "{what} must be integers, got dtype {}{note}",
            a.getattr("dtype")?.str()?
        )));
    }
    Ok(a)
}

/// A bool array of `grid`'s shape: `is(cell)` on free cells, `False` on
/// walls.
pub fn grid_bools<'py>(
    py: Python<'py>,
    grid: &Grid,
    is: impl Fn(u32) -> bool,
) -> Bound<'py, PyArray2<bool>> {
    Array2::from_shape_fn((grid.height(), grid.width()), |(r, c)| {
        grid.cell_at(r, c).is_some_and(&is)
    })
    .into_pyarray(py)
}
