//! Library errors as Python exceptions carrying the CLI's message, and the
//! guard that keeps a Rust panic from crossing into Python.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{
    PyFileNotFoundError, PyKeyboardInterrupt, PyMemoryError, PyOSError, PyRuntimeError,
    PyValueError,
};
use pyo3::PyErr;
use retrograde::Error;

/// The message the CLI prints: the error and its causes, joined by `: `.
pub fn message(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// Bad input (a file, a placement, a damaged table) is `ValueError`, an
/// unreadable file `OSError` (`FileNotFoundError` when missing), a solve
/// too large `MemoryError`, a stopped solve `KeyboardInterrupt`.
pub fn to_py(e: Error) -> PyErr {
    let text = match &e {
        Error::Placement { what, message } => {
            format!("{}: {}", api_words(what), api_words(message))
        }
        _ => message(&e),
    };
    match &e {
        Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(text)
        }
        Error::Io { .. } | Error::Scratch { .. } => PyOSError::new_err(text),
        Error::Parse { .. }
        | Error::Placement { .. }
        | Error::Table { .. }
        | Error::Checkpoint { .. } => PyValueError::new_err(text),
        Error::TooLarge { .. } | Error::Alloc { .. } => PyMemoryError::new_err(text),
        Error::Stopped { .. } => PyKeyboardInterrupt::new_err(text),
        _ => PyRuntimeError::new_err(text),
    }
}

/// An I/O error on `path` as `OSError`, worded as the CLI words it.
pub fn io_to_py(path: &std::path::Path, e: std::io::Error) -> PyErr {
    to_py(Error::Io {
        path: path.to_path_buf(),
        source: e,
    })
}

/// Runs `f`, turning a panic into `RuntimeError` instead of letting it
/// unwind into the interpreter.
pub fn guard<T>(f: impl FnOnce() -> Result<T, PyErr>) -> Result<T, PyErr> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| Err(panic_to_py(panic)))
}

/// A caught panic payload as `RuntimeError`.
pub fn panic_to_py(panic: Box<dyn std::any::Any + Send>) -> PyErr {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    PyRuntimeError::new_err(format!("internal error (a bug in retrograde): {what}"))
}

/// A placement error in the API's words instead of the CLI's flags:
/// `--cop 3,4` is `cop=(3, 4)`, `--exit 1,2` is `exits (1, 2)`, and the
/// hint to give `--thief ROW,COL` one to give `thief=(row, col)`.
fn api_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("--") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let flag_len = after
            .find(|c: char| !c.is_ascii_lowercase())
            .unwrap_or(after.len());
        let (flag, tail) = after.split_at(flag_len);
        let name = match flag {
            "cop" => "cop=",
            "thief" => "thief=",
            "exit" | "exits" => "exits ",
            _ => {
                out.push_str("--");
                rest = after;
                continue;
            }
        };
        // The value: `R,C`, `ROW,COL` or a rule such as `random:3:7`.
        let tail = tail.strip_prefix(' ').unwrap_or(tail);
        let value_len = tail
            .find(|c: char| c.is_whitespace() || (c == ':' && !tail.starts_with("random")))
            .unwrap_or(tail.len());
        let (value, tail) = tail.split_at(value_len);
        out.push_str(name);
        match value.split_once(',') {
            Some((r, c)) if value != "ROW,COL" => out.push_str(&format!("({r}, {c})")),
            Some(_) => out.push_str("(row, col)"),
            None => out.push_str(&format!("{value:?}")),
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}
