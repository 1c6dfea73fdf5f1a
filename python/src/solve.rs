//! `solve()`: a solve of any number of cops run off the GIL on its own
//! thread, stoppable from Ctrl-C through the library's observer.

use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use retrograde::{
    plan_storage, CopsGame, Engine, Flow, Game, Progress, SolveOptions, Speeds, StorageLimits,
};

use crate::args::threads_arg;
use crate::cells::{cell, At};
use crate::errors::to_py;
use crate::map::{Map, Rules};
use crate::solution::Solution;
use crate::worker;

/// A map argument: a `Map`, or the path of a map file (read as
/// `Map.from_file(path)` reads it).
#[derive(FromPyObject)]
pub enum MapArg<'py> {
    /// A map already read or built.
    Map(PyRef<'py, Map>),
    /// A map file.
    Path(std::path::PathBuf),
}

impl MapArg<'_> {
    /// The map, read from its file when given a path.
    fn map(self, py: Python<'_>) -> PyResult<Map> {
        match self {
            MapArg::Map(m) => Ok(m.clone()),
            MapArg::Path(path) => Map::from_file(py, path, None, None, None),
        }
    }
}

/// Solves the policeman-and-thief game on `map` with `cops` cops (every
/// state WIN / LOSS / DRAW for the player to move, with its distance to
/// end) and returns a `Solution`. `map` is a `Map` or the path of a map
/// file (`Map.from_file` with its defaults).
///
/// `cops`: 1 to 4 cops (several: `retrograde solve --cops K`). `cops_at`:
/// the cops' start cells, `cops` of them (one cop: replaces the map's cop
/// start; several: without it there is no start, only the values of
/// every state; with it, the map needs a thief start, else `ValueError`).
/// `rules`: a `Rules` (default: the standard game). `distances`: keep
/// every state's distance to end (else only the start's). `threads`:
/// worker threads (default: all cores). `memory`: bytes the solve may
/// use; above it, it runs out of core in the temporary folder.
///
/// The GIL is released while solving; Ctrl-C stops the solve after the
/// level in progress and raises `KeyboardInterrupt`.
#[pyfunction]
#[pyo3(signature = (map, *, cops=1, cops_at=None, rules=None, distances=true, threads=None, memory=None))]
#[allow(clippy::too_many_arguments)]
pub fn solve(
    py: Python<'_>,
    map: MapArg<'_>,
    cops: i64,
    cops_at: Option<Vec<At>>,
    rules: Option<Rules>,
    distances: bool,
    threads: Option<usize>,
    memory: Option<u64>,
) -> PyResult<Solution> {
    let map = &map.map(py)?;
    let max = retrograde::MAX_COPS as i64;
    if !(1..=max).contains(&cops) {
        return Err(PyValueError::new_err(format!(
            "cops={cops}: the number of cops must be 1 to {max}"
        )));
    }
    let k = cops as u32;
    if let Some(at) = cops_at.as_ref().filter(|at| at.len() != k as usize) {
        return Err(PyValueError::new_err(format!(
            "cops_at: cops={k} needs {k} cell{}, got {}",
            if k == 1 { "" } else { "s" },
            at.len()
        )));
    }
    let threads = threads_arg(threads)?;
    let rules = rules.map_or_else(Default::default, |r| r.rules());
    let game = match cops_at.as_deref() {
        Some(&[c]) if k == 1 => one_cop(&map.with_cop(c.to_coord("cops_at[0]=")?)?, rules)?,
        _ if k == 1 => one_cop(map, rules)?,
        at => game_of(map, k, at, rules)?,
    };
    let limits = StorageLimits {
        memory,
        scratch: None,
        spill_to_temp: true,
        held: 0,
    };
    let start = game.start().map(|p| game.index(&p));
    let solution = run_solve(py, &game, start, distances, threads, &limits)?;
    Ok(Solution {
        game,
        solution,
        distances,
    })
}

/// The one-cop game of `map` under `rules` (the grid game), its start the
/// map's.
fn one_cop(map: &Map, rules: retrograde::Rules) -> PyResult<CopsGame> {
    CopsGame::from_map(&map.map, &map.placement, rules, 1, Speeds::default()).map_err(to_py)
}

/// The k-cop game of `map` under `rules`, with its start (`cops_at` and the
/// map's thief) when both are known: the arena is built as the CLI builds
/// it, the starts left out of the board so that exit rules resolve as they
/// do there.
fn game_of(
    map: &Map,
    k: u32,
    cops_at: Option<&[At]>,
    rules: retrograde::Rules,
) -> PyResult<CopsGame> {
    let game =
        CopsGame::from_map(&map.map, &map.placement, rules, k, Speeds::default()).map_err(to_py)?;
    let grid = game.grid().expect("built from a map");
    let cops = cops_at
        .map(|at| {
            at.iter()
                .map(|&c| cell(grid, "cop", c, false))
                .collect::<PyResult<Vec<u32>>>()
        })
        .transpose()?;
    let thief = map
        .placement
        .thief
        .or(map.map.thief)
        .map(|t| cell(grid, "thief", t.into(), false))
        .transpose()?;
    match (cops, thief) {
        (Some(c), Some(t)) => game.with_start(&c, t).map_err(to_py),
        // As the CLI refuses `--cop` without `--thief`: the cops' start
        // alone was dropped and the whole game solved with no start.
        (Some(_), None) => Err(PyValueError::new_err(
            "cops_at has no thief start to go with it: give the map one \
             (Map.from_file(..., thief=(row, col))) or leave cops_at out",
        )),
        _ => Ok(game),
    }
}

/// Solves `game` with the bitboard engine (the CLI's default, one cop or
/// several), planned by `plan_storage`, on a worker thread while this
/// one, off the GIL, looks for Ctrl-C: the engine stops between levels
/// and the solve raises `KeyboardInterrupt`.
fn run_solve<G: Game + Sync>(
    py: Python<'_>,
    game: &G,
    start: Option<u64>,
    distances: bool,
    threads: usize,
    limits: &StorageLimits,
) -> PyResult<retrograde::Solution> {
    let stop = AtomicBool::new(false);
    // Nothing is saved: the solve ends with `Error::Stopped`.
    let observe = |_: &Progress| {
        if stop.load(Ordering::Relaxed) {
            Flow::Stop
        } else {
            Flow::Continue
        }
    };
    let options = SolveOptions::new(Engine::Bitboard)
        .with_threads(threads)
        .with_dte_table(distances)
        .with_tracked_state(start)
        .with_observer(&observe);
    let plan = plan_storage(game, &options, limits).map_err(to_py)?;
    let options = options.with_plan(&plan);
    worker::run(py, &stop, || retrograde::solve(game, &options), || Ok(()))
}
