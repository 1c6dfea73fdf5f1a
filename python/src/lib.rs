//! The Python package `retrograde` (module `retrograde._retrograde`): maps,
//! solves, tablebases and the game-theory toolkit over the library, numpy
//! arrays in and out. Every call that can take long releases the GIL;
//! library errors become Python exceptions with the CLI's message and no
//! panic unwinds into the interpreter.

use pyo3::prelude::*;

mod args;
mod arrays;
mod cells;
mod errors;
mod files;
mod graph;
mod heatmap;
mod map;
mod probe_many;
mod save;
mod solution;
mod solve;
mod table;
mod toolkit;
mod worker;

/// Retrograde analysis of policeman and thief (and other two-player games)
/// from Python: `Map`, `solve`, `open_table`, `sniff`, `cop_number_edges`,
/// `nim`, `subtraction`.
#[pymodule]
fn _retrograde(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<map::Map>()?;
    m.add_class::<map::Rules>()?;
    m.add_class::<solution::Solution>()?;
    m.add_class::<table::Table>()?;
    m.add_function(wrap_pyfunction!(solve::solve, m)?)?;
    m.add_function(wrap_pyfunction!(table::open_table, m)?)?;
    m.add_function(wrap_pyfunction!(files::sniff, m)?)?;
    m.add_function(wrap_pyfunction!(graph::solve_edges, m)?)?;
    m.add_function(wrap_pyfunction!(graph::grundy_edges, m)?)?;
    m.add_function(wrap_pyfunction!(graph::cop_number_edges, m)?)?;
    m.add_function(wrap_pyfunction!(toolkit::nim, m)?)?;
    m.add_function(wrap_pyfunction!(toolkit::subtraction, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
