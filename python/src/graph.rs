//! Edge-list games from arrays: values and distances of every vertex, and
//! Grundy values of acyclic games (networkx graphs are turned into edge
//! arrays by the Python layer).

use numpy::ndarray::Array1;
use numpy::{IntoPyArray, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use retrograde::{parse_graph, Convention, Engine, ExplicitGraph, SolveOptions};

use crate::args::{value_code, Dte1, Values1};
use crate::errors::{guard, message, panic_to_py, to_py};

/// The graph of `edges` ((M, 2) vertex ids), `n` vertices (default:
/// largest id + 1), `win` / `loss` vertices fixed: built through the
/// library's edge-list parser, so its checks (and messages) apply.
fn build(
    py: Python<'_>,
    edges: &Bound<'_, PyAny>,
    n: Option<u64>,
    win: Vec<u64>,
    loss: Vec<u64>,
    misere: bool,
) -> PyResult<ExplicitGraph> {
    let np = py.import("numpy")?;
    let arr = np.call_method1("asarray", (edges, "int64"))?;
    let arr = if arr.getattr("size")?.extract::<usize>()? == 0 {
        np.call_method1("zeros", ((0, 2), "int64"))?
    } else {
        arr
    };
    let arr: PyReadonlyArray2<'_, i64> = arr
        .extract()
        .map_err(|_| PyValueError::new_err("edges: expected an (M, 2) array of vertex ids"))?;
    let view = arr.as_array();
    if view.ncols() != 2 {
        return Err(PyValueError::new_err(format!(
            "edges: expected an (M, 2) array of vertex ids, got {:?}",
            view.dim()
        )));
    }
    let mut text = Vec::with_capacity(view.nrows() * 16 + 32);
    let mut line = |s: String| {
        text.extend_from_slice(s.as_bytes());
        text.push(b'\n');
    };
    if let Some(n) = n {
        line(format!("p {n} {}", view.nrows()));
    }
    for (i, e) in view.rows().into_iter().enumerate() {
        if e[0] < 0 || e[1] < 0 {
            return Err(PyValueError::new_err(format!(
                "edges[{i}]: vertex ids are 0-based, got ({}, {})",
                e[0], e[1]
            )));
        }
        line(format!("{} {}", e[0], e[1]));
    }
    for v in win {
        line(format!("win {v}"));
    }
    for v in loss {
        line(format!("loss {v}"));
    }
    let convention = if misere {
        Convention::Misere
    } else {
        Convention::Normal
    };
    py.detach(|| guard(|| parse_graph(&text, "<edges>", convention).map_err(to_py)))
}

/// Solves the game on a directed graph: a move goes along an edge, a
/// vertex without moves is a loss for the player to move (a win with
/// `misere=True`) unless listed in `win` / `loss`. Returns `(values,
/// dte)` indexed by vertex: int8 (1 win, -1 loss, 0 draw) and int32
/// (plies, -1 for draws), what `retrograde graph --dump` writes.
#[pyfunction]
#[pyo3(signature = (edges, *, n=None, win=vec![], loss=vec![], misere=false, threads=None))]
pub fn solve_edges<'py>(
    py: Python<'py>,
    edges: &Bound<'py, PyAny>,
    n: Option<u64>,
    win: Vec<u64>,
    loss: Vec<u64>,
    misere: bool,
    threads: Option<usize>,
) -> PyResult<(Values1<'py>, Dte1<'py>)> {
    let graph = build(py, edges, n, win, loss, misere)?;
    let engine = match threads {
        Some(1) => Engine::Sequential,
        _ => Engine::Parallel,
    };
    let options = SolveOptions::new(engine)
        .with_threads(threads.unwrap_or(0))
        .with_dte_table(true);
    let (values, dte) = py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let sol = retrograde::solve(&graph, &options)?;
            let k = sol.states() as usize;
            let mut values = Vec::with_capacity(k);
            let mut dte = Vec::with_capacity(k);
            for s in 0..sol.states() {
                let v = sol.outcome(s);
                values.push(value_code(v));
                dte.push(match v {
                    retrograde::Outcome::Draw => -1,
                    _ => sol.dte(s).map_or(-1, |d| d.plies() as i32),
                });
            }
            Ok::<_, retrograde::Error>((values, dte))
        }))
        .map_err(panic_to_py)
        .and_then(|r| r.map_err(to_py))
    })?;
    Ok((
        Array1::from_vec(values).into_pyarray(py),
        Array1::from_vec(dte).into_pyarray(py),
    ))
}

/// Grundy values of every vertex of an acyclic game graph under normal
/// play; `ValueError` naming a vertex on a cycle.
#[pyfunction]
#[pyo3(signature = (edges, *, n=None))]
pub fn grundy_edges<'py>(
    py: Python<'py>,
    edges: &Bound<'py, PyAny>,
    n: Option<u64>,
) -> PyResult<Bound<'py, numpy::PyArray1<u32>>> {
    let graph = build(py, edges, n, vec![], vec![], false)?;
    let values = py.detach(|| {
        guard(|| {
            retrograde::theory::grundy::grundy_of_acyclic(&graph)
                .map_err(|e| PyValueError::new_err(message(&e)))
        })
    })?;
    Ok(Array1::from_vec(values).into_pyarray(py))
}
