//! Writing a file as the CLI's `--save` writes it: through a temporary
//! file renamed into place; a FIFO or a device at the path is written
//! into, never replaced, and a symbolic link is written through (its
//! target replaced; a link to a missing file is refused). Each call has a
//! temporary file of its own.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;

use crate::errors::io_to_py;

/// Numbers the temporary files of this process's saves.
static SAVES: AtomicU64 = AtomicU64::new(0);

/// Writes `path` with `write`; `ValueError` for a directory or no file
/// name, `OSError` (as [`io_to_py`] words it) when it cannot be written.
pub fn save(path: PathBuf, write: impl Fn(&mut dyn Write) -> io::Result<()>) -> PyResult<()> {
    let meta = fs::metadata(&path);
    if meta.as_ref().is_ok_and(|m| m.is_dir()) {
        return Err(PyValueError::new_err(format!(
            "{}: is a directory, expected a file name",
            path.display()
        )));
    }
    if meta.as_ref().is_ok_and(|m| !m.is_file()) {
        // A FIFO, a device or a socket: renaming a file over it would
        // replace it (a root's /dev/null included).
        let file = OpenOptions::new().write(true).open(&path);
        return file
            .and_then(|f| write_through(f, &write).map(drop))
            .map_err(|e| io_to_py(&path, e));
    }
    // Through a link, its target is the file replaced; a link to a
    // missing file is refused, as the CLI's `--save` refuses it, rather
    // than replaced by a regular file.
    let path = match fs::symlink_metadata(&path) {
        Ok(m) if m.file_type().is_symlink() && meta.is_ok() => {
            fs::canonicalize(&path).unwrap_or(path)
        }
        Ok(m) if m.file_type().is_symlink() => {
            return Err(PyFileNotFoundError::new_err(format!(
                "{}: a symbolic link to a missing file",
                path.display()
            )));
        }
        _ => path,
    };
    let name = path
        .file_name()
        .ok_or_else(|| PyValueError::new_err(format!("{}: not a file name", path.display())))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    // One name per call, not per process: threads saving one path each
    // write their own file, and the last rename wins whole.
    tmp_name.push(format!(
        ".{}-{}.tmp",
        std::process::id(),
        SAVES.fetch_add(1, Ordering::Relaxed)
    ));
    let tmp = path.with_file_name(tmp_name);
    replace(&tmp, &path, &write).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io_to_py(&path, e)
    })
}

/// Writes `file` with `write`, buffered; the file, flushed.
fn write_through(file: File, write: impl Fn(&mut dyn Write) -> io::Result<()>) -> io::Result<File> {
    let mut out = BufWriter::new(file);
    write(&mut out)?;
    out.into_inner().map_err(|e| e.into_error())
}

/// Writes `tmp`, syncs it and renames it to `path`.
fn replace(
    tmp: &Path,
    path: &Path,
    write: impl Fn(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    // `create_new`: a file left at the name (a crashed save) is never
    // shared with this one.
    let file = OpenOptions::new().write(true).create_new(true).open(tmp)?;
    write_through(file, write)?.sync_all()?;
    fs::rename(tmp, path)
}
