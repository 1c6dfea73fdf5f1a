//! `Map` (a grid with its starts and exits) and `Rules` (the variants).

use numpy::{PyArray2, PyReadonlyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use retrograde::{Coord, ExitRule, Placement};

use crate::arrays::grid_bools;
use crate::cells::At;
use crate::errors::{guard, to_py};

/// A map of the policeman-and-thief game: free and blocked cells, the
/// starts and the exits.
///
/// Build one with `Map.from_file(path)` (seed text or MovingAI `.map`) or
/// `Map.from_array(a, exits=...)` from a 2-D array of free cells. `cop`,
/// `thief` and `exits` override what the file says; `exits` is a list of
/// `(row, col)` cells and/or rules: `"border"`, `"rim"`, `"random:K:SEED"`.
#[derive(Clone)]
#[pyclass(module = "retrograde", frozen)]
pub struct Map {
    pub map: retrograde::Map,
    pub placement: Placement,
    pub name: String,
}

fn exits_arg(exits: Option<&Bound<'_, PyAny>>) -> PyResult<(Vec<Coord>, Vec<ExitRule>)> {
    let mut cells = Vec::new();
    let mut rules = Vec::new();
    let Some(exits) = exits else {
        return Ok((cells, rules));
    };
    let items: Vec<Bound<'_, PyAny>> = if exits.is_instance_of::<pyo3::types::PyString>() {
        vec![exits.clone()]
    } else {
        exits
            .try_iter()
            .map_err(|_| {
                PyTypeError::new_err("exits: expected a list of (row, col) cells or rules")
            })?
            .collect::<PyResult<_>>()?
    };
    for item in items {
        if let Ok(s) = item.extract::<String>() {
            rules.push(exit_rule(&s)?);
        } else {
            let at: At = item.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "exits: {}: expected a (row, col) cell or \"border\", \"rim\", \"random:K:SEED\"",
                    item.repr().map_or_else(|_| "?".into(), |r| r.to_string())
                ))
            })?;
            cells.push(at.to_coord("exits ")?);
        }
    }
    Ok((cells, rules))
}

fn exit_rule(s: &str) -> PyResult<ExitRule> {
    let bad = || {
        PyValueError::new_err(format!(
            "exits {s:?}: expected \"border\", \"rim\" or \"random:K:SEED\""
        ))
    };
    match s {
        "border" => Ok(ExitRule::Border),
        "rim" => Ok(ExitRule::Rim),
        _ => {
            let rest = s.strip_prefix("random:").ok_or_else(bad)?;
            let (k, seed) = rest.split_once(':').ok_or_else(bad)?;
            Ok(ExitRule::Random {
                count: k.parse().map_err(|_| bad())?,
                seed: seed.parse().map_err(|_| bad())?,
            })
        }
    }
}

fn placement(
    cop: Option<At>,
    thief: Option<At>,
    exits: Option<&Bound<'_, PyAny>>,
) -> PyResult<Placement> {
    let (exits, exit_rules) = exits_arg(exits)?;
    Ok(Placement {
        cop: cop.map(|c| c.to_coord("cop=")).transpose()?,
        thief: thief.map(|t| t.to_coord("thief=")).transpose()?,
        exits,
        exit_rules,
    })
}

impl Map {
    fn checked(map: retrograde::Map, placement: Placement, name: String) -> PyResult<Map> {
        // Placement errors surface here, not at the first solve.
        retrograde::Board::new(&map, &placement).map_err(to_py)?;
        Ok(Map {
            map,
            placement,
            name,
        })
    }

    /// The same map with the cop starting at `c` (checked as a start).
    pub fn with_cop(&self, c: Coord) -> PyResult<Map> {
        let placement = Placement {
            cop: Some(c),
            ..self.placement.clone()
        };
        Map::checked(self.map.clone(), placement, self.name.clone())
    }

    /// The board: grid, exits and starts resolved.
    pub fn board(&self) -> PyResult<retrograde::Board> {
        retrograde::Board::new(&self.map, &self.placement).map_err(to_py)
    }
}

#[pymethods]
impl Map {
    /// Reads a map file (seed text or MovingAI `.map`, detected from the
    /// content). Raises `ValueError` naming file, line and column for a
    /// malformed file, `OSError` when it cannot be read.
    #[staticmethod]
    #[pyo3(signature = (path, *, cop=None, thief=None, exits=None))]
    pub(crate) fn from_file(
        py: Python<'_>,
        path: std::path::PathBuf,
        cop: Option<At>,
        thief: Option<At>,
        exits: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Map> {
        let placement = placement(cop, thief, exits)?;
        let map = py.detach(|| guard(|| retrograde::load_map(&path).map_err(to_py)))?;
        Map::checked(map, placement, path.display().to_string())
    }

    /// A map from a 2-D array of free cells (bool, or numbers: non-zero is
    /// free), with optional starts and exits.
    #[staticmethod]
    #[pyo3(signature = (a, *, exits=None, cop=None, thief=None))]
    fn from_array(
        py: Python<'_>,
        a: &Bound<'_, PyAny>,
        exits: Option<&Bound<'_, PyAny>>,
        cop: Option<At>,
        thief: Option<At>,
    ) -> PyResult<Map> {
        let np = py.import("numpy")?;
        let arr = np.call_method1("asarray", (a,))?;
        let ndim: usize = arr.getattr("ndim")?.extract()?;
        if ndim != 2 {
            return Err(PyValueError::new_err(format!(
                "from_array: expected a 2-D array of free cells, got {ndim} dimensions"
            )));
        }
        let arr = np.call_method1("not_equal", (arr, 0))?;
        let arr: PyReadonlyArray2<'_, bool> = arr.extract()?;
        let view = arr.as_array();
        let (rows, cols) = view.dim();
        if rows == 0 || cols == 0 {
            return Err(PyValueError::new_err("from_array: the map has no cells"));
        }
        // The seed format is the one way a grid enters the library, so its
        // checks (sizes, at least one free cell) apply here too.
        let mut text = format!("{rows} {cols}\n").into_bytes();
        text.reserve(rows * (cols + 1));
        for row in view.rows() {
            text.extend(row.iter().map(|&free| if free { b'.' } else { b'*' }));
            text.push(b'\n');
        }
        let map = retrograde::parse_map(&text, "<array>").map_err(to_py)?;
        Map::checked(map, placement(cop, thief, exits)?, "<array>".into())
    }

    /// Free cells as a 2-D bool array (`True` = free).
    fn to_array<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<bool>> {
        grid_bools(py, &self.map.grid, |_| true)
    }

    /// Exit cells as a 2-D bool array, after the `exits` overrides.
    fn exit_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let board = self.board()?;
        Ok(grid_bools(py, &self.map.grid, |id| {
            board.exits[id as usize]
        }))
    }

    /// Rows of the map.
    #[getter]
    fn rows(&self) -> usize {
        self.map.grid.height()
    }

    /// Columns of the map.
    #[getter]
    fn cols(&self) -> usize {
        self.map.grid.width()
    }

    /// Number of free cells.
    #[getter]
    fn cells(&self) -> usize {
        self.map.grid.cells()
    }

    /// The cop's start `(row, col)`, or `None`.
    #[getter]
    fn cop(&self) -> PyResult<Option<Coord>> {
        let b = self.board()?;
        Ok(b.cop.map(|c| self.map.grid.coords(c)))
    }

    /// The thief's start `(row, col)`, or `None`.
    #[getter]
    fn thief(&self) -> PyResult<Option<Coord>> {
        let b = self.board()?;
        Ok(b.thief.map(|c| self.map.grid.coords(c)))
    }

    /// Exit cells `(row, col)`, row-major, after the overrides.
    #[getter]
    fn exits(&self) -> PyResult<Vec<Coord>> {
        Ok(self.board()?.exit_coords())
    }

    fn __repr__(&self) -> String {
        format!(
            "<retrograde.Map {} ({}x{}, {} free cells)>",
            self.name,
            self.map.grid.height(),
            self.map.grid.width(),
            self.map.grid.cells()
        )
    }
}

/// The rule variants (`docs/rules.md`); the defaults are the standard
/// game: the cop moves like a king with corner cutting, the thief like a
/// rook, both may pass, the cop moves first.
#[pyclass(module = "retrograde", frozen, eq, get_all)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// The cop moves in 8 directions (else 4).
    pub cop_diagonal: bool,
    /// The thief moves in 8 directions (else 4).
    pub thief_diagonal: bool,
    /// The cop may pass.
    pub cop_passes: bool,
    /// The thief may pass.
    pub thief_passes: bool,
    /// A diagonal step needs only its target free.
    pub corner_cutting: bool,
    /// The thief moves first from the start.
    pub thief_first: bool,
}

impl Rules {
    /// The library's rules.
    pub fn rules(&self) -> retrograde::Rules {
        retrograde::Rules {
            cop_diagonal: self.cop_diagonal,
            thief_diagonal: self.thief_diagonal,
            cop_passes: self.cop_passes,
            thief_passes: self.thief_passes,
            corner_cutting: self.corner_cutting,
            thief_first: self.thief_first,
        }
    }
}

#[pymethods]
impl Rules {
    #[new]
    #[pyo3(signature = (*, cop_diagonal=true, thief_diagonal=false, cop_passes=true, thief_passes=true, corner_cutting=true, thief_first=false))]
    fn new(
        cop_diagonal: bool,
        thief_diagonal: bool,
        cop_passes: bool,
        thief_passes: bool,
        corner_cutting: bool,
        thief_first: bool,
    ) -> Rules {
        Rules {
            cop_diagonal,
            thief_diagonal,
            cop_passes,
            thief_passes,
            corner_cutting,
            thief_first,
        }
    }

    fn __repr__(&self) -> String {
        let r = self;
        let b = |v: bool| if v { "True" } else { "False" };
        format!(
            "Rules(cop_diagonal={}, thief_diagonal={}, cop_passes={}, thief_passes={}, corner_cutting={}, thief_first={})",
            b(r.cop_diagonal), b(r.thief_diagonal), b(r.cop_passes), b(r.thief_passes), b(r.corner_cutting), b(r.thief_first)
        )
    }
}
