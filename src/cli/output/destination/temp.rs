//! The temporary file next to a regular output: created in the target's
//! directory, renamed over the target when complete, removed otherwise
//! (on errors, when dropped, on stop signals through the list of
//! `signals.rs`, and, when a killed process left it, by the next run
//! writing the same file).

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::signals::{forget, is_live, remove_on_signal, watch_signals};
use super::split;

/// A temporary file next to a regular target, removed unless renamed over
/// it.
#[derive(Debug)]
pub(super) struct Temp {
    pub(super) file: File,
    path: PathBuf,
    /// The file it replaces.
    target: PathBuf,
}

impl Temp {
    /// Creates the temporary file for `target` (in its directory),
    /// registered for removal on SIGINT, SIGTERM and SIGHUP; removes stale
    /// ones of dead processes first.
    pub(super) fn new(target: PathBuf) -> io::Result<Temp> {
        static SEQUENCE: AtomicU64 = AtomicU64::new(0);
        let (dir, name) = split(&target).map_err(io::Error::other)?;
        let prefix = format!(".{}.retrograde-", name.to_string_lossy());
        remove_stale(&dir, &prefix);
        watch_signals();
        loop {
            let n = SEQUENCE.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!("{prefix}{}-{n}.tmp", std::process::id()));
            // Registered before it exists, so no signal can slip in between.
            remove_on_signal(path.clone());
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(file) => return Ok(Temp { file, path, target }),
                Err(e) => {
                    forget(&path);
                    // A stale one from an earlier process with our pid: next name.
                    if e.kind() != io::ErrorKind::AlreadyExists {
                        return Err(e);
                    }
                }
            }
        }
    }

    /// Syncs the file and renames it over the target.
    pub(super) fn commit(&self) -> io::Result<()> {
        self.file.sync_all()?;
        std::fs::rename(&self.path, &self.target)?;
        forget(&self.path);
        Ok(())
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if is_live(&self.path) {
            let _ = std::fs::remove_file(&self.path);
            forget(&self.path);
        }
    }
}

/// Removes the temporary files in `dir` named with `prefix` whose process
/// is gone: a SIGKILL leaves them, as no handler can run.
fn remove_stale(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(rest) = file
            .to_str()
            .and_then(|f| f.strip_prefix(prefix))
            .and_then(|r| r.strip_suffix(".tmp"))
        else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
