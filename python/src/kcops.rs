//! `solve(map, cops=K)` for K > 1 and `CopsSolution`: the several-cops
//! game (`docs/rules.md`, "Several cops") on a grid map, solved by the
//! counter engines as `retrograde solve --cops K` solves it.

use numpy::IntoPyArray;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use retrograde::{
    plan_storage, Arena, Board, Engine, Game, KCops, Outcome, Placement, SolveOptions,
    StorageLimits, Turn,
};

use crate::args::{self, cell, heatmap_arrays, threads_arg, At, Maps2};
use crate::errors::{guard, panic_to_py, to_py};
use crate::map::{Map, Rules};

/// The k-cop game of `map` under `rules`, with its start (`cops_at` and the
/// map's thief) when both are known: the arena is built as the CLI builds
/// it, the starts left out of the board so that exit rules resolve as they
/// do there.
fn game_of(
    map: &Map,
    k: u32,
    cops_at: Option<&[At]>,
    rules: retrograde::Rules,
) -> PyResult<(KCops, Option<u64>)> {
    let placement = Placement {
        cop: None,
        thief: None,
        ..map.placement.clone()
    };
    let walls = retrograde::Map {
        cop: None,
        thief: None,
        ..map.map.clone()
    };
    let board = Board::new(&walls, &placement).map_err(to_py)?;
    let grid = &board.grid;
    let cops = match cops_at {
        None => None,
        Some(at) => Some(
            at.iter()
                .map(|&c| cell(grid, "cop", c, false))
                .collect::<PyResult<Vec<u32>>>()?,
        ),
    };
    let thief = map
        .placement
        .thief
        .or(map.map.thief)
        .map(|t| cell(grid, "thief", t.into(), false))
        .transpose()?;
    let game = KCops::new(Arena::from_board(&board, rules), k)
        .map_err(to_py)?
        .with_thief_first(rules.thief_first);
    let start = match (cops, thief) {
        (Some(c), Some(t)) => Some(game.start(&c, t)),
        // As the CLI refuses `--cop` without `--thief`: the cops' start
        // alone was dropped and the whole game solved with no start.
        (Some(_), None) => {
            return Err(PyValueError::new_err(
                "cops_at has no thief start to go with it: give the map one \
                 (Map.from_file(..., thief=(row, col))) or leave cops_at out",
            ))
        }
        _ => None,
    };
    Ok((game, start))
}

/// `solve`'s arguments that the one-cop and several-cop games share.
pub struct Shared {
    /// `rules=`.
    pub rules: Option<Rules>,
    /// `distances=`.
    pub distances: bool,
    /// `threads=`, unchecked.
    pub threads: Option<usize>,
    /// `memory=`.
    pub memory: Option<u64>,
}

/// The several-cops solve behind `solve(map, cops=K)` for K > 1.
pub fn solve_kcops(
    py: Python<'_>,
    map: &Map,
    k: u32,
    cops_at: Option<Vec<At>>,
    shared: Shared,
) -> PyResult<CopsSolution> {
    let Shared {
        rules,
        distances,
        threads,
        memory,
    } = shared;
    if let Some(at) = &cops_at {
        if at.len() != k as usize {
            return Err(PyValueError::new_err(format!(
                "cops_at: cops={k} needs {k} cells, got {}",
                at.len()
            )));
        }
    }
    let threads = threads_arg(threads)?;
    let rules = rules.map_or_else(Default::default, |r| r.rules);
    let (game, start) = game_of(map, k, cops_at.as_deref(), rules)?;
    // The CLI's engine: the bitboard engine's several-cops kernel.
    let options = SolveOptions::new(Engine::Bitboard)
        .with_threads(threads)
        .with_dte_table(distances)
        .with_tracked_state(start);
    let limits = StorageLimits {
        memory,
        scratch: None,
        spill_to_temp: true,
        held: 0,
    };
    let plan = plan_storage(&game, &options, &limits).map_err(to_py)?;
    let options = options.with_plan(&plan);
    // No stop sink here: Ctrl-C is seen once the solve ends.
    let solution = py.detach(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            retrograde::solve(&game, &options)
        }))
        .map_err(panic_to_py)
        .and_then(|r| r.map_err(to_py))
    })?;
    Ok(CopsSolution {
        game,
        solution,
        start,
        distances,
    })
}

/// A solved game of several cops (`solve(map, cops=K)`, K > 1): values and
/// distances of every state.
///
/// Positions are `(cops, thief, turn)`: `cops` a sequence of K cells
/// `(row, col)` in any order (cops are identical; two may share a cell),
/// `thief` a cell, `turn` `"cop"` (the cops move, all at once) or
/// `"thief"`, by default the rules' first mover. Values are `"win"`,
/// `"loss"`, `"draw"` for the player to move.
#[pyclass(module = "retrograde", frozen)]
pub struct CopsSolution {
    game: KCops,
    solution: retrograde::Solution,
    start: Option<u64>,
    distances: bool,
}

impl CopsSolution {
    fn first_mover(&self) -> Turn {
        if self.game.thief_first() {
            Turn::Thief
        } else {
            Turn::Cop
        }
    }

    fn grid(&self) -> &retrograde::Grid {
        self.game.arena().grid().expect("built from a map")
    }

    fn cop_cells(&self, cops: &[At]) -> PyResult<Vec<u32>> {
        if cops.len() != self.game.cops() as usize {
            return Err(PyValueError::new_err(format!(
                "cops: expected {} cells, got {}",
                self.game.cops(),
                cops.len()
            )));
        }
        cops.iter()
            .map(|&c| cell(self.grid(), "cop", c, false))
            .collect()
    }

    fn state(&self, cops: &[At], thief: At, turn: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
        let c = self.cop_cells(cops)?;
        let t = cell(self.grid(), "thief", thief, false)?;
        let turn = args::turn_or(turn, self.first_mover())?;
        Ok(self.game.state(&c, t, turn))
    }

    fn dte_of(&self, s: u64) -> Option<u32> {
        match self.solution.outcome(s) {
            Outcome::Draw => None,
            _ => self.solution.dte(s).map(|d| d.plies()),
        }
    }
}

#[pymethods]
impl CopsSolution {
    /// `"win"`, `"loss"` or `"draw"` for the player to move.
    #[pyo3(signature = (cops, thief, turn=None))]
    fn value(
        &self,
        cops: Vec<At>,
        thief: At,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<&'static str> {
        Ok(self
            .solution
            .outcome(self.state(&cops, thief, turn)?)
            .as_str())
    }

    /// Distance to end in plies; `None` for a draw, or for any state but
    /// the start when solved with `distances=False`.
    #[pyo3(signature = (cops, thief, turn=None))]
    fn dte(
        &self,
        cops: Vec<At>,
        thief: At,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<u32>> {
        Ok(self.dte_of(self.state(&cops, thief, turn)?))
    }

    /// Values and distances with the cops fixed, over every cell of the
    /// thief: `(values, dte)`, 2-D arrays of the map's shape, coded as
    /// `Solution.heatmap`'s.
    #[pyo3(signature = (cops, *, turn=None))]
    fn heatmap<'py>(
        &self,
        py: Python<'py>,
        cops: Vec<At>,
        turn: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Maps2<'py>> {
        let c = self.cop_cells(&cops)?;
        let turn = args::turn_or(turn, self.first_mover())?;
        let (v, d) = guard(|| {
            heatmap_arrays(
                self.grid(),
                |t| self.game.state(&c, t, turn),
                |s| Ok((self.solution.outcome(s), self.dte_of(s))),
            )
        })?;
        Ok((v.into_pyarray(py), d.into_pyarray(py)))
    }

    /// WIN / LOSS / DRAW counts over all states, for the player to move.
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.solution.counts();
        let d = PyDict::new(py);
        d.set_item("win", c.win)?;
        d.set_item("loss", c.loss)?;
        d.set_item("draw", c.draw)?;
        Ok(d)
    }

    /// The start's `(value, dte)` for the first mover, or `None` without a
    /// start (no `cops_at`, or a map without a thief start).
    #[getter]
    fn start(&self) -> Option<(&'static str, Option<u32>)> {
        let s = self.start?;
        Some((self.solution.outcome(s).as_str(), self.dte_of(s)))
    }

    /// The start's verdict: `"cop-wins"`, `"thief-escapes"` or `"draw"`;
    /// `None` without a start.
    #[getter]
    fn verdict(&self) -> Option<&'static str> {
        let s = self.start?;
        Some(self.game.verdict(self.solution.outcome(s)).as_str())
    }

    /// The number of cops.
    #[getter]
    fn cops(&self) -> u32 {
        self.game.cops()
    }

    /// Number of states (2 x cells x cop multisets).
    #[getter]
    fn states(&self) -> u64 {
        self.game.state_count()
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

    fn __repr__(&self) -> String {
        let c = self.solution.counts();
        format!(
            "<retrograde.CopsSolution {} cops, {} states: {} win, {} loss, {} draw; start {}>",
            self.game.cops(),
            self.game.state_count(),
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
