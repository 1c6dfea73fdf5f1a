//! `batch --scen FILE.scen`: start pairs from MovingAI scenarios, one row
//! per pair.
//!
//! Each entry names its map (MovingAI writes the map's file name, older
//! benchmarks a path such as `maps/dao/arena.map`); the entry applies to
//! the map among the batch's files with that file name. Only maps some
//! entry names are solved, each once, and every pair of the map is
//! answered from that one solve: the entry's **start is the thief, its
//! goal the cop**, the rules' first mover to move (as `solve --scen`).
//!
//! Everything about the entries that can be checked before solving is:
//! an entry naming no map of the batch (or a file name two of its maps
//! share), an entry made for a map of another size, a start or goal on a
//! blocked cell, are input errors (exit status 2, file:line:column) found
//! before the results file is touched.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use retrograde::{load_scen, Error, Grid, Scenario, ScenarioEntry};

use super::results::{Row, RowKey};

/// One pair: an entry of one scenario.
#[derive(Clone, Copy, Debug)]
struct PairRef {
    scen: usize,
    entry: usize,
}

/// The pairs of a batch's scenarios, by map.
pub(super) struct Pairs {
    scenarios: Vec<Scenario>,
    by_map: HashMap<PathBuf, Vec<PairRef>>,
}

/// A pair's cells as free cell ids of its map, with its row fields.
pub(super) struct PairCells {
    /// The thief's cell id (the entry's start).
    pub(super) thief: u32,
    /// The cop's cell id (the entry's goal).
    pub(super) cop: u32,
    /// The row with the pair's fields and nothing else filled in.
    pub(super) row: Row,
}

impl Pairs {
    /// Reads the scenarios and finds each entry's map among `maps` by file
    /// name.
    ///
    /// # Errors
    /// A malformed scenario, or an entry whose map is not among `maps` or
    /// is ambiguous: [`Error::Parse`] at the entry's map field.
    pub(super) fn load<'a>(
        scens: &[PathBuf],
        maps: impl Iterator<Item = &'a PathBuf>,
    ) -> Result<Pairs, Error> {
        let mut named: HashMap<OsString, Vec<&PathBuf>> = HashMap::new();
        for map in maps {
            if let Some(name) = map.file_name() {
                named.entry(name.to_os_string()).or_default().push(map);
            }
        }
        // A scenario given twice (`s.scen` again, `./s.scen`, a link) is one
        // file, read once under its first spelling: rows are keyed by map,
        // scenario file and line, so its pairs would be answered twice
        // under one key, which `--resume` then counts once.
        let mut files = HashSet::new();
        let scens = scens
            .iter()
            .filter(|p| files.insert(std::fs::canonicalize(p).unwrap_or_else(|_| (*p).clone())));
        let mut scenarios = Vec::new();
        let mut by_map: HashMap<PathBuf, Vec<PairRef>> = HashMap::new();
        for (k, path) in scens.enumerate() {
            let scenario = load_scen(path)?;
            for (e, entry) in scenario.entries.iter().enumerate() {
                let name = entry.map_file_name();
                let map = match named.get(std::ffi::OsStr::new(name)).map(Vec::as_slice) {
                    Some([map]) => (*map).clone(),
                    Some(several) => {
                        return Err(at_map(
                            &scenario,
                            entry,
                            format!(
                                "the map `{name}` is ambiguous: {} files of the batch have that name ({})",
                                several.len(),
                                several
                                    .iter()
                                    .map(|p| p.display().to_string())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        ))
                    }
                    None => {
                        return Err(at_map(
                            &scenario,
                            entry,
                            format!(
                                "the map `{name}` is not among the batch's maps: expected a map file of that name under the PATHs given"
                            ),
                        ))
                    }
                };
                by_map
                    .entry(map)
                    .or_default()
                    .push(PairRef { scen: k, entry: e });
            }
            scenarios.push(scenario);
        }
        Ok(Pairs { scenarios, by_map })
    }

    /// The maps some entry names.
    pub(super) fn maps(&self) -> impl Iterator<Item = &PathBuf> {
        self.by_map.keys()
    }

    /// Every pair's row key.
    pub(super) fn keys(&self) -> HashSet<RowKey> {
        self.by_map
            .iter()
            .flat_map(|(map, pairs)| pairs.iter().map(|p| self.key(map, *p)))
            .collect()
    }

    /// Drops the pairs whose rows are in `done` (`--resume`); maps left
    /// without pairs are not solved.
    pub(super) fn forget(&mut self, done: &HashSet<&RowKey>) {
        let keys: Vec<PathBuf> = self.by_map.keys().cloned().collect();
        for map in keys {
            let mut pairs = self.by_map.remove(&map).unwrap_or_default();
            pairs.retain(|p| !done.contains(&self.key(&map, *p)));
            if !pairs.is_empty() {
                self.by_map.insert(map, pairs);
            }
        }
    }

    fn key(&self, map: &Path, p: PairRef) -> RowKey {
        let scenario = &self.scenarios[p.scen];
        RowKey {
            map: map.to_path_buf(),
            pair: Some((scenario.path.clone(), scenario.entries[p.entry].line)),
        }
    }

    /// The pairs of `map` (none when no entry names it).
    fn of(&self, map: &Path) -> &[PairRef] {
        self.by_map.get(map).map_or(&[], Vec::as_slice)
    }

    /// The pairs of `map` on its grid: sizes and cells checked.
    ///
    /// # Errors
    /// [`Error::Parse`] at the first entry made for a map of another size
    /// or with a blocked start or goal.
    pub(super) fn cells(&self, map: &Path, grid: &Grid) -> Result<Vec<PairCells>, Error> {
        self.of(map)
            .iter()
            .map(|p| {
                let scenario = &self.scenarios[p.scen];
                let entry = &scenario.entries[p.entry];
                if (entry.width, entry.height) != (grid.width(), grid.height()) {
                    return Err(Error::Parse {
                        path: scenario.path.clone(),
                        line: entry.line,
                        column: 1,
                        message: format!(
                            "the entry is for a {} x {} map, but {} is {} x {} (width x height)",
                            entry.width,
                            entry.height,
                            map.display(),
                            grid.width(),
                            grid.height()
                        ),
                    });
                }
                let (thief, cop) = scenario.cells(entry, grid)?;
                Ok(PairCells {
                    thief,
                    cop,
                    row: pair_row(scenario, entry),
                })
            })
            .collect()
    }

    /// `row` (a map's) once per pair of `map`, each with the pair's
    /// fields; `row` itself when no entry names the map.
    pub(super) fn spread(&self, map: &Path, row: Row) -> Vec<Row> {
        let pairs = self.of(map);
        if pairs.is_empty() {
            return vec![row];
        }
        pairs
            .iter()
            .map(|p| {
                let scenario = &self.scenarios[p.scen];
                with_pair(&pair_row(scenario, &scenario.entries[p.entry]), row.clone())
            })
            .collect()
    }
}

/// A row holding only a pair's fields.
fn pair_row(scenario: &Scenario, entry: &ScenarioEntry) -> Row {
    Row {
        scen: Some(scenario.path.clone()),
        scen_line: Some(entry.line),
        bucket: Some(entry.bucket),
        cop: Some([entry.goal.0, entry.goal.1]),
        thief: Some([entry.start.0, entry.start.1]),
        ..Row::default()
    }
}

/// `row` with the pair fields of `pair`.
pub(super) fn with_pair(pair: &Row, row: Row) -> Row {
    Row {
        scen: pair.scen.clone(),
        scen_line: pair.scen_line,
        bucket: pair.bucket,
        cop: pair.cop,
        thief: pair.thief,
        ..row
    }
}

fn at_map(scenario: &Scenario, entry: &ScenarioEntry, message: String) -> Error {
    Error::Parse {
        path: scenario.path.clone(),
        line: entry.line,
        column: entry.map_column,
        message,
    }
}
