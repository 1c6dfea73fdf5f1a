//! What `Solution.heatmap` and `Table.heatmap` share: which side the
//! arguments fix, and the arrays of values and distances over the cells
//! of the other side.

use numpy::ndarray::Array2;
use numpy::{Element, IntoPyArray};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use retrograde::Turn;

use crate::cells::Cells;
use crate::errors::{guard, to_py};
use crate::probe_many::Probed;

/// The side a heatmap fixes.
pub enum Fixed {
    /// The cops' cells, ascending; the map is over the thief's.
    Cops(Vec<u32>),
    /// The thief's cell; the map is over the one cop's.
    Thief(u32),
}

/// The side `cop=` or `thief=` fixes (exactly one), checked as positions
/// of `cells` are; with `k` > 1 cops only the thief's cells are mapped,
/// and `thief=` is refused in the words `several`.
pub fn fixed(
    cells: Cells<'_>,
    k: u32,
    (cop, thief): (Option<&Bound<'_, PyAny>>, Option<&Bound<'_, PyAny>>),
    key_error: bool,
    several: &str,
) -> PyResult<Fixed> {
    match (cop, thief) {
        (Some(c), None) => {
            let mut cops = cells.cops(k, c, key_error)?;
            cops.sort_unstable();
            Ok(Fixed::Cops(cops))
        }
        (None, Some(_)) if k > 1 => Err(PyValueError::new_err(format!("heatmap: {several}"))),
        (None, Some(t)) => Ok(Fixed::Thief(cells.cell("thief", t, key_error)?)),
        _ => Err(PyValueError::new_err(
            "heatmap: give exactly one of cop=(row, col) or thief=(row, col)",
        )),
    }
}

/// `(values, dte)` of `tb` with `fixed` held still, `turn` to move, over
/// every cell of the other side (probed off the GIL): 2-D arrays of the
/// map's shape (walls -2 in values, -1 in distances), or 1-D arrays over a
/// graph's vertices; draws and unknown distances -1.
pub fn arrays(
    py: Python<'_>,
    tb: &impl Probed,
    cells: Cells<'_>,
    fixed: &Fixed,
    turn: Turn,
) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
    let probe = |x| match fixed {
        Fixed::Cops(c) => tb.probe(tb.state(c, x, turn)),
        Fixed::Thief(t) => tb.probe(tb.state(&[x], *t, turn)),
    };
    let codes = py.detach(|| {
        guard(|| {
            (0..tb.cells())
                .map(probe)
                .collect::<Result<Vec<_>, _>>()
                .map_err(to_py)
        })
    })?;
    let (values, dte): (Vec<i8>, Vec<i32>) = codes.into_iter().unzip();
    Ok((spread(py, cells, values, -2), spread(py, cells, dte, -1)))
}

/// Per-cell codes as an array: over a graph's vertices, or laid out on
/// the map with `wall` on its walls.
fn spread<T: Element + Copy>(
    py: Python<'_>,
    cells: Cells<'_>,
    per_cell: Vec<T>,
    wall: T,
) -> Py<PyAny> {
    match cells {
        Cells::Graph(_) => per_cell.into_pyarray(py).into_any().unbind(),
        Cells::Map(grid) => Array2::from_shape_fn((grid.height(), grid.width()), |(r, c)| {
            grid.cell_at(r, c).map_or(wall, |id| per_cell[id as usize])
        })
        .into_pyarray(py)
        .into_any()
        .unbind(),
    }
}
