//! The combinatorial game-theory toolkit: Nim and subtraction games.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use retrograde::theory as th;

use crate::errors::message;

/// Nim: `(nim_sum, winning_moves)` for the heaps, `winning_moves` a list
/// of `(heap index, tokens to take)`; a nim-sum of 0 means the player to
/// move loses (no winning move).
#[pyfunction]
pub fn nim(heaps: Vec<u64>) -> (u64, Vec<(usize, u64)>) {
    (
        th::nim::nim_sum(&heaps),
        th::nim::winning_moves(&heaps)
            .into_iter()
            .map(|m| (m.heap, m.take))
            .collect(),
    )
}

/// A subtraction game (take any number of tokens in `moves`) on a heap of
/// `heap` tokens, from its proven period (searched up to `limit`): a dict
/// with `grundy`, `wins` (the player to move wins), `winning_move`
/// (tokens to take, or `None`), `preperiod` and `period` of the Grundy
/// sequence. A heap below the smallest move has no move and loses, Grundy
/// 0, without the period (`preperiod` and `period` are then `None` when it
/// was not found). `ValueError` for bad moves or, for a larger heap, no
/// period within `limit`.
#[pyfunction]
#[pyo3(signature = (moves, heap, *, limit=1_000_000))]
pub fn subtraction<'py>(
    py: Python<'py>,
    moves: Vec<u64>,
    heap: u64,
    limit: u64,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let game = th::subtraction::SubtractionGame::new(&moves)
        .map_err(|e| PyValueError::new_err(message(&e)))?;
    let a = py
        .detach(|| game.answers(limit, heap))
        .map_err(|e| PyValueError::new_err(message(&e)))?;
    let p = a
        .analysis()
        .map(th::subtraction::Analysis::grundy_periodicity);
    let d = pyo3::types::PyDict::new(py);
    d.set_item("grundy", a.grundy(heap))?;
    d.set_item("wins", a.wins(heap))?;
    d.set_item("winning_move", a.winning_move(heap))?;
    d.set_item("preperiod", p.map(|p| p.preperiod))?;
    d.set_item("period", p.map(|p| p.period))?;
    Ok(d)
}
