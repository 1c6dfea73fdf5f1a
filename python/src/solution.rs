//! `Solution`: a solved game of any number of cops, in memory, and the
//! game it solved.

use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use retrograde::{Cops, CopsGame, Grid, Outcome, Position, Turn};

use crate::args::{self, counts_dict};
use crate::cells::Cells;
use crate::errors::guard;
use crate::heatmap;
use crate::probe_many::Probed;
use crate::save::save;

/// A solved game of any number of cops: values and distances of every
/// state.
///
/// Positions are `(cop, thief, turn)`: cells as `(row, col)`; with several
/// cops `cop` is a sequence of the cops' cells in any order (cops are
/// identical; two may share a cell); `turn` `"cop"` (the cops move, all at
/// once) or `"thief"` (the player to move; default: the rules' first
/// mover). Values are `"win"`, `"loss"`, `"draw"` for the player to move.
#[pyclass(module = "retrograde", frozen)]
pub struct Solution {
    /// The game solved, as `solve` built it (from a map).
    pub game: CopsGame,
    pub solution: retrograde::Solution,
    pub distances: bool,
}

impl Solution {
    fn cells(&self) -> Cells<'_> {
        Cells::Map(self.game.grid().expect("built from a map"))
    }

    fn first_mover(&self) -> Turn {
        self.game.rules().first_mover()
    }

    fn state(
        &self,
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<u64> {
        let cells = self.cells();
        let c = cells.cops(self.game.cops(), cop, false)?;
        let t = cells.cell("thief", thief, false)?;
        let turn = args::turn_or(turn, self.first_mover())?;
        Ok(Probed::state(self, &c, t, turn))
    }

    fn probe(&self, s: u64) -> (Outcome, Option<u32>) {
        let value = self.solution.outcome(s);
        let dte = self.solution.dte(s).filter(|_| value != Outcome::Draw);
        (value, dte.map(|d| d.plies()))
    }
}

impl Probed for Solution {
    fn cops(&self) -> usize {
        self.game.cops() as usize
    }
    fn grid(&self) -> Option<&Grid> {
        self.game.grid()
    }
    fn cells(&self) -> u32 {
        self.game.cells()
    }
    fn states(&self) -> u64 {
        self.solution.states()
    }
    /// The state of cells of the game (the cops in any order).
    fn state(&self, cops: &[u32], thief: u32, turn: Turn) -> u64 {
        let cops = Cops::new(cops).expect("1 to MAX_COPS cops, checked by the caller");
        self.game.index(&Position { cops, thief, turn })
    }
    fn probe(&self, s: u64) -> retrograde::Result<(i8, i32)> {
        let (value, dte) = Solution::probe(self, s);
        Ok(args::codes(value, dte))
    }
}

#[pymethods]
impl Solution {
    /// Vectorised probes of the solution in memory, as `Table.probe_many`
    /// takes and answers them (no table to save and reopen first):
    /// `cops` an `(N, K, 2)` array of the K cops' `(row, col)` cells (or
    /// `(N, 2)` for one cop), `thieves` `(N, 2)`, `turns` `(N,)` of 0 / 1
    /// or `"cop"` / `"thief"`. Returns `(values, dte)`: int8 (1 win, -1
    /// loss, 0 draw) and int32 (plies, -1 for draws or without
    /// distances). `KeyError` naming the first position off the map or on
    /// a wall, `ValueError` for arrays of other shapes or a bad turn.
    fn probe_many<'py>(
        &self,
        py: Python<'py>,
        cops: &Bound<'py, PyAny>,
        thieves: &Bound<'py, PyAny>,
        turns: &Bound<'py, PyAny>,
    ) -> PyResult<(crate::arrays::Values1<'py>, crate::arrays::Dte1<'py>)> {
        crate::probe_many::probe_many(py, self, cops, thieves, turns)
    }

    /// `"win"`, `"loss"` or `"draw"` for the player to move.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn value(
        &self,
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<&'static str> {
        let s = self.state(cop, thief, turn)?;
        Ok(self.solution.outcome(s).as_str())
    }

    /// Distance to end in plies; `None` for a draw, or for any state but
    /// the start when solved with `distances=False`.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn dte(
        &self,
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<u32>> {
        Ok(self.probe(self.state(cop, thief, turn)?).1)
    }

    /// The best moves of the player to move (the cells it may move to,
    /// its own cell for a pass; with several cops, on their turn, the
    /// cops' cells after the move, a tuple), as the CLI's `play` chooses
    /// among: the fastest win, else any draw, else the slowest loss.
    /// Empty for a terminal position. Needs `distances=True`.
    #[pyo3(signature = (cop, thief, turn=None))]
    fn best_moves(
        &self,
        py: Python<'_>,
        cop: &Bound<'_, PyAny>,
        thief: &Bound<'_, PyAny>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<Py<PyAny>>> {
        if !self.distances {
            return Err(PyValueError::new_err(
                "best_moves needs distances: solve with distances=True",
            ));
        }
        let s = self.state(cop, thief, turn)?;
        // States of the cops' turn are even.
        let cops_move = s & 1 == 0;
        let moves = retrograde::best_moves(&self.game, &self.solution, s);
        moves
            .unwrap_or_default()
            .into_iter()
            .map(|t| {
                let p = self.game.position(t);
                self.cells().moved_out(py, cops_move, &p.cops, p.thief)
            })
            .collect()
    }

    /// WIN / LOSS / DRAW counts over all states, for the player to move:
    /// `{"win": ..., "loss": ..., "draw": ...}`.
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        counts_dict(py, self.solution.counts())
    }

    /// The start position's `(value, dte)` for the first mover, or `None`
    /// without a start (a map without starts; with several cops, no
    /// `cops_at` or a map without a thief start).
    #[getter]
    fn start(&self) -> Option<(&'static str, Option<u32>)> {
        let (v, d) = self.probe(self.game.start_state()?);
        Some((v.as_str(), d))
    }

    /// The start's verdict: `"cop-wins"`, `"thief-escapes"` or `"draw"`;
    /// `None` without a start.
    #[getter]
    fn verdict(&self) -> Option<&'static str> {
        let value = self.solution.outcome(self.game.start_state()?);
        Some(self.game.verdict(value).as_str())
    }

    /// The number of cops.
    #[getter]
    fn cops(&self) -> u32 {
        self.game.cops()
    }

    /// Number of states (2 x cells x cop multisets; 2 x cells^2 for one
    /// cop).
    #[getter]
    fn states(&self) -> u64 {
        self.solution.states()
    }

    /// Propagation levels of the solve (the largest distance to end).
    #[getter]
    fn levels(&self) -> u32 {
        self.solution.levels()
    }

    /// Whether every state's distance to end was kept.
    #[getter]
    fn has_distances(&self) -> bool {
        self.distances
    }

    /// Values and distances with one side fixed, over every cell of the
    /// other: `(values, dte)`, 2-D arrays of the map's shape. `cop=` (or
    /// the first argument) fixes the cop, or the cops, over every cell of
    /// the thief; `thief=` the thief over every cell of the one cop.
    /// `values` (int8): 1 win, -1 loss, 0 draw for the player to move, -2
    /// on walls; `dte` (int32): plies, -1 for draws, walls and unknown
    /// distances.
    #[pyo3(signature = (cops=None, *, cop=None, thief=None, turn=None))]
    fn heatmap(
        &self,
        py: Python<'_>,
        cops: Option<&Bound<'_, PyAny>>,
        cop: Option<&Bound<'_, PyAny>>,
        thief: Option<&Bound<'_, PyAny>>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
        let turn = args::turn_or(turn, self.first_mover())?;
        // `cops` is `cop=` given by position: both is no one side.
        let sides = match cops.and(cop) {
            Some(_) => (None, None),
            None => (cops.or(cop), thief),
        };
        let k = self.game.cops();
        let several = format!("with {k} cops it maps the thief's cells: give the cops' cells");
        let fixed = heatmap::fixed(self.cells(), k, sides, false, &several)?;
        heatmap::arrays(py, self, self.cells(), &fixed, turn)
    }

    /// Writes the solve as a tablebase file (`.rtb`, what `retrograde
    /// solve --save` writes, of one cop or several; with distances when
    /// solved with them), through a temporary file renamed into place. As
    /// the CLI's `--save`: a FIFO or a device at `path` is written into,
    /// never replaced, and a symbolic link is written through (its target
    /// replaced).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let write = |mut out: &mut dyn std::io::Write| {
            retrograde::write_tablebase(&self.game, &self.solution, "bitboard", &mut out).map(drop)
        };
        py.detach(|| guard(|| save(path, write)))
    }

    fn __repr__(&self) -> String {
        let c = self.solution.counts();
        let k = self.game.cops();
        format!(
            "<retrograde.Solution {}{} states: {} win, {} loss, {} draw; start {}>",
            if k > 1 {
                format!("{k} cops, ")
            } else {
                String::new()
            },
            self.solution.states(),
            c.win,
            c.loss,
            c.draw,
            self.start().map_or("none".to_string(), |(v, d)| match d {
                Some(d) => format!("{v} in {d}"),
                None => v.to_string(),
            })
        )
    }
}
