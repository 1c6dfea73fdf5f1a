//! The files in use by this process: the inputs of the run and the
//! regular-file outputs checked so far, so that two outputs never share a
//! file and no output replaces what is being read.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::cli::common::UsageError;

/// Files in use by this process, by resolved path: inputs (for the whole
/// run) and checked regular-file outputs (while their target lives). Two
/// outputs on one file would lose one; an output on an input would replace
/// what is being read.
static INPUTS: Mutex<Vec<(PathBuf, String)>> = Mutex::new(Vec::new());
static OUTPUTS: Mutex<Vec<(u64, PathBuf, String)>> = Mutex::new(Vec::new());
static NEXT_CLAIM: AtomicU64 = AtomicU64::new(0);

/// An output's hold on its file, released when the target (or the output
/// made from it) is dropped.
#[derive(Debug)]
pub(super) struct Claim(u64);

impl Drop for Claim {
    fn drop(&mut self) {
        lock(&OUTPUTS).retain(|(id, _, _)| *id != self.0);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The resolved path of `path` (links followed), or of its folder joined
/// with its name when it does not exist yet.
pub(super) fn identity(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = std::fs::canonicalize(path) {
        return Some(p);
    }
    let name = path.file_name()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(dir).ok()?.join(name))
}

/// Records `path` (`-`: standard input) as an input of this run (`what` names it in messages:
/// `the map`, `the table`): an output checked on the same file, before or
/// after, is refused.
///
/// # Errors
/// A [`UsageError`] when an output already holds the file.
pub(crate) fn note_input(what: &str, path: &Path) -> Result<(), UsageError> {
    // `-` is standard input: redirected from a file (`< F`), that file is
    // the input, found through the descriptor's link.
    let path = if path == Path::new("-") {
        Path::new("/proc/self/fd/0")
    } else {
        path
    };
    let Some(key) = identity(path) else {
        return Ok(());
    };
    if let Some((_, _, flag)) = lock(&OUTPUTS).iter().find(|(_, k, _)| *k == key) {
        return Err(UsageError(format!(
            "{flag} {}: is {what} it reads; write the output to another file",
            path.display()
        )));
    }
    lock(&INPUTS).push((key, what.to_string()));
    Ok(())
}

/// Holds the file `key` (an [`identity`]) for the output of `flag`, unless
/// it is an input of the run or another output's file.
///
/// # Errors
/// Why the file cannot take the output, for the caller's message.
pub(super) fn claim_output(flag: &str, key: PathBuf) -> Result<Claim, String> {
    if let Some((_, what)) = lock(&INPUTS).iter().find(|(k, _)| *k == key) {
        return Err(format!(
            "is {what} it reads; write the output to another file"
        ));
    }
    let mut outputs = lock(&OUTPUTS);
    if let Some((_, _, other)) = outputs.iter().find(|(_, k, _)| *k == key) {
        return Err(format!(
            "is also the file of {other}: give each output its own file"
        ));
    }
    let id = NEXT_CLAIM.fetch_add(1, Ordering::Relaxed);
    outputs.push((id, key, flag.to_string()));
    Ok(Claim(id))
}
