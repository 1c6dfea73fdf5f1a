//! `sniff()`: what a file holds, told by its first bytes as every command
//! tells it (`retrograde::sniff_path`).

use std::path::PathBuf;

use pyo3::prelude::*;
use retrograde::{sniff_path, FileKind};

use crate::errors::to_py;

/// What the file at `path` holds, told by its first 64 KiB: `"table"` (a
/// tablebase, `open_table`), `"scenario"` (a MovingAI `.scen`), `"seed"`
/// or `"movingai"` (a map, `Map.from_file`), `"graph6"` or `"edges"` (a
/// graph: nauty's graph6, or `u v` lines); `None` when the bytes tell none
/// of them (an empty file, or one too broken to tell). `OSError`
/// (`FileNotFoundError` when missing) for a file that cannot be read.
#[pyfunction]
pub fn sniff(py: Python<'_>, path: PathBuf) -> PyResult<Option<&'static str>> {
    let kind = py.detach(|| sniff_path(&path)).map_err(to_py)?;
    Ok(kind.map(FileKind::as_str))
}
