//! `sniff()`: what a file holds, told by its first bytes as every command
//! tells it (`retrograde::sniff`).

use std::io::Read;
use std::path::PathBuf;

use pyo3::prelude::*;
use retrograde::{sniff as sniff_head, Error, FileKind, SNIFF_BYTES};

use crate::errors::to_py;

/// What the file at `path` holds, told by its first 64 KiB: `"table"` (a
/// tablebase, `open_table`), `"scenario"` (a MovingAI `.scen`), `"seed"`
/// or `"movingai"` (a map, `Map.from_file`), `"graph6"` or `"edges"` (a
/// graph: nauty's graph6, or `u v` lines); `None` when the bytes tell none
/// of them (an empty file, or one too broken to tell). `OSError`
/// (`FileNotFoundError` when missing) for a file that cannot be read.
#[pyfunction]
pub fn sniff(py: Python<'_>, path: PathBuf) -> PyResult<Option<&'static str>> {
    let read = || -> Result<Option<FileKind>, Error> {
        let io = |source| Error::Io {
            path: path.clone(),
            source,
        };
        let mut head = Vec::with_capacity(SNIFF_BYTES);
        std::fs::File::open(&path)
            .map_err(io)?
            .take(SNIFF_BYTES as u64)
            .read_to_end(&mut head)
            .map_err(io)?;
        Ok(sniff_head(&head))
    };
    let kind = py.detach(read).map_err(to_py)?;
    Ok(kind.map(FileKind::as_str))
}
