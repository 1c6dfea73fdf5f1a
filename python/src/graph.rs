//! Edge-list games from arrays: values and distances of every vertex, and
//! Grundy values of acyclic games (networkx graphs are turned into edge
//! arrays by the Python layer).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use numpy::{IntoPyArray, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use retrograde::copnumber::{cop_number_with, CopNumber, CopSearch};
use retrograde::{parse_graph, Convention, Engine, ExplicitGraph, Outcome, SolveOptions};

use crate::args::{codes, threads_arg};
use crate::arrays::{integers, Dte1, Values1};
use crate::errors::{guard, message, to_py};
use crate::worker;

/// `edges` as an (M, 2) int64 array (an empty sequence is no edges, but
/// `ValueError` without vertices given by `n`).
fn edge_array<'py>(
    py: Python<'py>,
    edges: &Bound<'py, PyAny>,
    n: Option<u64>,
) -> PyResult<PyReadonlyArray2<'py, i64>> {
    let np = py.import("numpy")?;
    // Integers only, as `probe_many` takes cells.
    let note = " (networkx graphs may have any nodes)";
    let raw = integers(&np, edges, "edges: vertex ids", note)?;
    // Unsigned ids past int64 would wrap to negative ones in the cast and
    // be reported as such: name the id as given.
    let kind: String = raw.getattr("dtype")?.getattr("kind")?.extract()?;
    let size: usize = raw.getattr("size")?.extract()?;
    if kind == "u" && size > 0 {
        let largest: u64 = raw.call_method0("max")?.extract()?;
        if largest > i64::MAX as u64 {
            return Err(PyValueError::new_err(format!(
                "edges: vertex id {largest} is too large (at most {})",
                i64::MAX
            )));
        }
    }
    if size == 0 && n.unwrap_or(0) == 0 {
        // As `retrograde graph` refuses an empty file: a game needs a
        // vertex (isolated ones are given by `n`).
        return Err(PyValueError::new_err(
            "edges: expected a graph of at least one vertex, found none (no edges and no n)",
        ));
    }
    let arr = np.call_method1("asarray", (raw, "int64"))?;
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    if shape.iter().product::<usize>() == 0 {
        return np
            .call_method1("zeros", ((0, 2), "int64"))?
            .extract()
            .map_err(Into::into);
    }
    if shape.len() != 2 || shape[1] != 2 {
        return Err(PyValueError::new_err(format!(
            "edges: expected an (M, 2) array of vertex ids, got shape {shape:?}"
        )));
    }
    arr.extract().map_err(Into::into)
}

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
    let arr = edge_array(py, edges, n)?;
    let view = arr.as_array();
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
    threads_arg(threads)?;
    let graph = build(py, edges, n, win, loss, misere)?;
    let engine = match threads {
        Some(1) => Engine::Sequential,
        _ => Engine::Parallel,
    };
    let options = SolveOptions::new(engine)
        .with_threads(threads.unwrap_or(0))
        .with_dte_table(true);
    let (values, dte): (Vec<i8>, Vec<i32>) = py.detach(|| {
        guard(|| {
            let sol = retrograde::solve(&graph, &options).map_err(to_py)?;
            let vertex = |s| match sol.outcome(s) {
                Outcome::Draw => codes(Outcome::Draw, None),
                v => codes(v, sol.dte(s).map(|d| d.plies())),
            };
            Ok((0..sol.states()).map(vertex).unzip())
        })
    })?;
    Ok((values.into_pyarray(py), dte.into_pyarray(py)))
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
    Ok(values.into_pyarray(py))
}

/// Most vertices `cop_number` takes, as `retrograde copnumber` reads them.
const MAX_VERTEX: i64 = 1 << 16;

/// The cop number of an undirected graph (`edges` an (M, 2) array of
/// vertex ids, `n` vertices, default largest id + 1): the least number of
/// cops, 1 to `max_cops`, that catch the thief from some placement
/// wherever the thief starts (both sides move along edges or pass, cops
/// first). A dict, as `retrograde copnumber --json` reports it:
/// `cop_number` (`None` when more than `max_cops` are needed),
/// `placement` (vertex ids, ascending), `capture_time` (rounds) and
/// `capture_time_plies` (`None` with the cop number), `vertices`. `ValueError` for bad input (a graph
/// without a vertex included, as the CLI refuses it), `MemoryError` when
/// the next number of cops to try would not fit the available memory
/// (each is planned before it is tried, as `retrograde copnumber` does).
///
/// The GIL is released while solving; Ctrl-C stops the search after the
/// engine's level in progress and raises `KeyboardInterrupt`. `progress`,
/// if given, is called as `progress(cops, level)` (on the calling thread,
/// about every 50 ms while a level of the bit-parallel engine is new).
#[pyfunction]
#[pyo3(signature = (edges, *, n=None, max_cops=4, progress=None))]
pub fn cop_number_edges<'py>(
    py: Python<'py>,
    edges: &Bound<'py, PyAny>,
    n: Option<u64>,
    max_cops: u32,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    if !(1..=retrograde::MAX_COPS as u32).contains(&max_cops) {
        return Err(PyValueError::new_err(format!(
            "max_cops {max_cops}: expected 1 to {}",
            retrograde::MAX_COPS
        )));
    }
    let arr = edge_array(py, edges, n)?;
    let view = arr.as_array();
    let mut pairs = Vec::with_capacity(view.nrows());
    let mut top = 0i64;
    for (i, e) in view.rows().into_iter().enumerate() {
        for v in [e[0], e[1]] {
            if !(0..MAX_VERTEX).contains(&v) {
                return Err(PyValueError::new_err(format!(
                    "edges[{i}]: expected vertex ids 0..{}, got ({}, {})",
                    MAX_VERTEX - 1,
                    e[0],
                    e[1]
                )));
            }
            top = top.max(v + 1);
        }
        pairs.push((e[0] as u32, e[1] as u32));
    }
    let n = match n {
        None => top as u64,
        Some(n) if n > MAX_VERTEX as u64 => {
            return Err(PyValueError::new_err(format!(
                "n {n}: at most {MAX_VERTEX} vertices"
            )))
        }
        Some(n) => {
            if let Some(i) = pairs.iter().position(|&(u, v)| u64::from(u.max(v)) >= n) {
                let (u, v) = pairs[i];
                return Err(PyValueError::new_err(format!(
                    "edges[{i}]: edge {u} {v}: vertices are 0..{n}"
                )));
            }
            n
        }
    } as usize;
    if n == 0 {
        return Err(PyValueError::new_err(
            "expected a graph of at least one vertex, found none (as retrograde copnumber refuses it)",
        ));
    }
    let r = search(py, n, &pairs, max_cops, progress.as_ref())?;
    if let Some(o) = r.out_of_memory {
        let known = if o.cops > 1 {
            format!("the cop number is more than {}", o.cops - 1)
        } else {
            "nothing was tried".to_string()
        };
        return Err(pyo3::exceptions::PyMemoryError::new_err(format!(
            "{} cop{} on {n} vertices would need {}, more than the {} available; {known}",
            o.cops,
            if o.cops == 1 { "" } else { "s" },
            retrograde::human_bytes(o.needed),
            retrograde::human_bytes(o.cap)
        )));
    }
    let d = pyo3::types::PyDict::new(py);
    d.set_item("cop_number", r.cop_number)?;
    d.set_item("placement", r.placement)?;
    // None when the cops cannot win, as `copnumber --json` says.
    let timed = r.cop_number.is_some();
    d.set_item("capture_time", timed.then_some(r.capture_time_rounds))?;
    d.set_item("capture_time_plies", timed.then_some(r.capture_time_plies))?;
    d.set_item("vertices", n)?;
    Ok(d)
}

/// The cop number of the plain graph `(n, pairs)` under the available
/// memory, on a worker thread while this one, holding the GIL between
/// polls, checks for Ctrl-C and reports new levels to `progress`.
fn search(
    py: Python<'_>,
    n: usize,
    pairs: &[(u32, u32)],
    max_cops: u32,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<CopNumber> {
    let arena = retrograde::Arena::from_edges(n as u32, pairs).map_err(to_py)?;
    let stop = AtomicBool::new(false);
    // (cops << 32 | level) + 1 of the last level done; 0: none yet.
    let at = AtomicU64::new(0);
    let observer = |k: u32, level: u32| {
        at.store(
            (u64::from(k) << 32 | u64::from(level)) + 1,
            Ordering::Relaxed,
        );
        !stop.load(Ordering::Relaxed)
    };
    let search = || {
        let search = CopSearch {
            memory: Some(retrograde::available_memory()),
            untimed: false,
            observer: Some(&observer),
        };
        cop_number_with(&arena, max_cops, &search)
    };
    let mut told = 0;
    // Each new level to `progress`, from this thread (it holds the GIL).
    let tell = || {
        let now = at.load(Ordering::Relaxed);
        if let (Some(f), true) = (progress, now != told && now > 0) {
            told = now;
            let now = now - 1;
            f.call1(((now >> 32) as u32, now as u32))?;
        }
        Ok(())
    };
    worker::run(py, &stop, search, tell)
}
