//! `Table.probe_many` and `Solution.probe_many`: positions from numpy
//! arrays, checked, then probed in state order off the GIL on all cores.

use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArrayDyn};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use rayon::prelude::*;
use retrograde::{Grid, Tablebase, Turn, MAX_COPS};

use crate::args::{self, codes};
use crate::arrays::{integers, Dte1, Values1};
use crate::errors::to_py;

/// What `probe_many` asks of a table or of a solution in memory.
pub trait Probed: Sync {
    /// Cops of the game.
    fn cops(&self) -> usize;
    /// The map, `None` on a graph.
    fn grid(&self) -> Option<&Grid>;
    /// Cells (vertices) of the game.
    fn cells(&self) -> u32;
    /// States of the game.
    fn states(&self) -> u64;
    /// The state of valid cells (the cops sorted).
    fn state(&self, cops: &[u32], thief: u32, turn: Turn) -> u64;
    /// Value and distance codes of state `s`.
    fn probe(&self, s: u64) -> retrograde::Result<(i8, i32)>;
}

impl Probed for Tablebase {
    fn cops(&self) -> usize {
        Tablebase::cops(self) as usize
    }
    fn grid(&self) -> Option<&Grid> {
        Tablebase::grid(self)
    }
    fn cells(&self) -> u32 {
        Tablebase::cells(self)
    }
    fn states(&self) -> u64 {
        self.header().states
    }
    fn state(&self, cops: &[u32], thief: u32, turn: Turn) -> u64 {
        self.state_unchecked(cops, thief, turn)
    }
    fn probe(&self, s: u64) -> retrograde::Result<(i8, i32)> {
        self.probe_state(s)
            .map(|p| codes(p.value, p.dte.map(|d| d.plies())))
    }
}

/// Codes of `probe_many`'s turn array.
fn turn_code(t: i64) -> Option<Turn> {
    match t {
        0 => Some(Turn::Cop),
        1 => Some(Turn::Thief),
        _ => None,
    }
}

/// Shapes in words: `(N, 2, 2)`.
fn shape_words(dims: &[usize]) -> String {
    let d: Vec<String> = dims.iter().map(ToString::to_string).collect();
    format!("({}{})", d.join(", "), if d.len() == 1 { "," } else { "" })
}

/// `a` as contiguous int64, integers only (see [`integers`]).
fn int64<'py>(
    np: &Bound<'py, PyModule>,
    a: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let a = integers(np, a, &format!("probe_many: {what}"), "")?;
    np.call_method1("ascontiguousarray", (a, "int64"))
}

/// The turns as int64 codes: integers as given, or `"cop"` / `"thief"`
/// (as `probe` takes them) as 0 / 1.
fn turn_codes<'py>(
    np: &Bound<'py, PyModule>,
    turns: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let named = np.call_method1("asarray", (turns,))?;
    let kind: String = named.getattr("dtype")?.getattr("kind")?.extract()?;
    if !matches!(kind.as_str(), "U" | "S" | "O") {
        return int64(np, &named, "turns");
    }
    let words: Vec<Bound<'py, PyAny>> = named.call_method0("tolist")?.extract()?;
    let codes = words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            args::turn(w)
                .map(|t| i64::from(t == Turn::Thief))
                .map_err(|e| PyValueError::new_err(format!("probe_many: turns[{i}]: {e}")))
        })
        .collect::<PyResult<Vec<i64>>>()?;
    np.call_method1("asarray", (codes, "int64"))
}

/// `probe_many` on `tb`, a table or a solution (see `Table.probe_many`).
pub fn probe_many<'py>(
    py: Python<'py>,
    tb: &impl Probed,
    cops: &Bound<'py, PyAny>,
    thieves: &Bound<'py, PyAny>,
    turns: &Bound<'py, PyAny>,
) -> PyResult<(Values1<'py>, Dte1<'py>)> {
    let np = py.import("numpy")?;
    let cops = int64(&np, cops, "cops")?;
    let thieves = int64(&np, thieves, "thieves")?;
    let turns: PyReadonlyArray1<'_, i64> = turn_codes(&np, turns)?
        .extract()
        .map_err(|_| PyValueError::new_err("probe_many: turns must be an (N,) array"))?;
    let cops: PyReadonlyArrayDyn<'_, i64> = cops.extract()?;
    let thieves: PyReadonlyArrayDyn<'_, i64> = thieves.extract()?;
    let (cv, tv, uv) = (cops.as_array(), thieves.as_array(), turns.as_array());
    let (n, k) = (uv.len(), tb.cops());
    let grid = tb.grid();
    // Integers per cell: (row, col) on a map, the vertex on a graph.
    let (per, on) = match grid {
        Some(_) => (2, " on a map"),
        None => (1, " on a graph"),
    };
    let dims = |lead: &[usize]| [lead, if per == 2 { &[2] } else { &[] }].concat();
    let mut cop_shapes = vec![dims(&[n, k])];
    if k == 1 {
        cop_shapes.insert(0, dims(&[n]));
    }
    let words = |dims: &[usize]| shape_words(dims).replace(&format!("({n}"), "(N");
    if !cop_shapes.iter().any(|s| s == cv.shape()) {
        let want: Vec<String> = cop_shapes.iter().map(|s| words(s)).collect();
        return Err(PyValueError::new_err(format!(
            "probe_many: cops must be {} for a table of {k} cop{}{on}, got shape {} (N = {n} turns)",
            want.join(" or "),
            if k == 1 { "" } else { "s" },
            shape_words(cv.shape()),
        )));
    }
    if tv.shape() != dims(&[n]).as_slice() {
        return Err(PyValueError::new_err(format!(
            "probe_many: thieves must be {}{on}, got shape {} (N = {n} turns)",
            words(&dims(&[n])),
            shape_words(tv.shape()),
        )));
    }
    let (cs, ts, us) = (
        cv.as_slice().expect("contiguous"),
        tv.as_slice().expect("contiguous"),
        uv.as_slice().expect("contiguous"),
    );
    let vertices = i64::from(tb.cells());
    let cell_of = |at: &[i64]| -> Option<u32> {
        match grid {
            Some(g) => g.cell_at_signed(at[0], at[1]),
            None => (0..vertices).contains(&at[0]).then_some(at[0] as u32),
        }
    };
    let cops_of = |i: usize| &cs[i * k * per..(i + 1) * k * per];
    let thief_of = |i: usize| &ts[i * per..(i + 1) * per];
    let state_of = |i: usize| -> Option<u64> {
        let turn = turn_code(us[i])?;
        let mut cells = [0u32; MAX_COPS];
        let at = &cs[i * k * per..(i + 1) * k * per];
        for (c, place) in cells.iter_mut().zip(at.chunks_exact(per)) {
            *c = cell_of(place)?;
        }
        let cells = &mut cells[..k];
        cells.sort_unstable();
        let thief = cell_of(&ts[i * per..(i + 1) * per])?;
        Some(tb.state(cells, thief, turn))
    };
    let mut values = vec![0i8; n];
    let mut dte = vec![0i32; n];
    let probe = |s: u64| tb.probe(s);
    // Keys `state << bits | position` in one u64 when they fit (any
    // table of fewer than 2^63 / N states), else in a u128; the
    // largest key (all ones) marks a position not of the table.
    let bits = u64::BITS - (n as u64).leading_zeros();
    let state_bits = u64::BITS - tb.states().leading_zeros();
    let failed = py.detach(|| {
        if bits + state_bits < u64::BITS {
            probe_in_state_order(
                n,
                (
                    |i: usize| state_of(i).map_or(u64::MAX, |s| s << bits | i as u64),
                    u64::MAX,
                ),
                |key| (key >> bits, (key & ((1 << bits) - 1)) as usize),
                probe,
                (&mut values, &mut dte),
            )
        } else {
            probe_in_state_order(
                n,
                (
                    |i: usize| state_of(i).map_or(u128::MAX, |s| u128::from(s) << 64 | i as u128),
                    u128::MAX,
                ),
                |key| ((key >> 64) as u64, key as u64 as usize),
                probe,
                (&mut values, &mut dte),
            )
        }
    });
    let i = match failed {
        None => return Ok((values.into_pyarray(py), dte.into_pyarray(py))),
        Some(Failed::Table(e)) => return Err(to_py(e)),
        Some(Failed::Position(i)) => i,
    };
    let place = |at: &[i64]| {
        at.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(",")
    };
    let nowhere = match grid {
        Some(_) => "off the map or a wall".to_string(),
        None => format!("not a vertex (0..{vertices})"),
    };
    let bad_cop = cops_of(i)
        .chunks_exact(per)
        .find(|at| cell_of(at).is_none());
    let why = match (turn_code(us[i]), bad_cop) {
        // A bad turn is a bad argument (as `probe` raises it), not a
        // position the table lacks.
        (None, _) => {
            return Err(PyValueError::new_err(format!(
                "probe_many: turns[{i}]: turn {}: expected 0 (cop) or 1 (thief)",
                us[i]
            )))
        }
        (_, Some(at)) => format!("cop {}: {nowhere}", place(at)),
        _ => format!("thief {}: {nowhere}", place(thief_of(i))),
    };
    Err(PyKeyError::new_err(format!(
        "probe_many: position {i}: {why}"
    )))
}

/// What stopped `probe_many`: the first position that is not one of the
/// table's, or a damaged block.
enum Failed {
    Position(usize),
    Table(retrograde::Error),
}

/// Probes positions `0..n` in state order and writes each answer at its
/// position: `key` packs position `i`'s state and `i` so that keys sort by
/// state (`none`, above every other key, for a position that is not one
/// of the table's), `unpack` takes them apart. Sorted first, each thread
/// walks its share of the table's blocks in order and decodes each block
/// it needs about once, however random the input; the answers are then
/// scattered back.
fn probe_in_state_order<K: Copy + Ord + Send + Sync>(
    n: usize,
    (key, none): (impl Fn(usize) -> K + Sync, K),
    unpack: impl Fn(K) -> (u64, usize) + Sync,
    probe: impl Fn(u64) -> retrograde::Result<(i8, i32)> + Sync,
    (values, dte): (&mut [i8], &mut [i32]),
) -> Option<Failed> {
    // An indexed collect (no per-thread lists); a position not of the
    // table sorts last.
    let mut keys: Vec<K> = Vec::new();
    (0..n).into_par_iter().map(&key).collect_into_vec(&mut keys);
    keys.par_sort_unstable();
    if keys.last() == Some(&none) {
        // The first such position.
        return (0..n).find(|&i| key(i) == none).map(Failed::Position);
    }
    let error = std::sync::Mutex::new(None);
    let mut answers = Vec::new();
    keys.par_iter()
        .map(|k| {
            let (s, _) = unpack(*k);
            probe(s).unwrap_or_else(|e| {
                error.lock().expect("no panic holds it").get_or_insert(e);
                (0, 0)
            })
        })
        .collect_into_vec(&mut answers);
    if let Some(e) = error.into_inner().expect("no panic holds it") {
        return Some(Failed::Table(e));
    }
    for (k, (v, d)) in keys.iter().zip(answers) {
        let (_, i) = unpack(*k);
        values[i] = v;
        dte[i] = d;
    }
    None
}
