//! `solve --checkpoint DIR [--checkpoint-every MIN]` and `--resume DIR`:
//! where the bitboard engine's snapshots go (one file in DIR, replaced
//! atomically), when they are due (every MIN minutes and on the first
//! SIGINT / SIGTERM / SIGHUP), and the fingerprint a resume must match.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use retrograde::{Checkpoint, Due, Sink, Snapshot};

use super::common::{GameArgs, UsageError};
use super::output::{defer_stop_signals, stop_requested, OutputTarget};

/// The checkpoint file in a checkpoint directory.
pub(crate) fn file_in(dir: &Path) -> PathBuf {
    dir.join("checkpoint.rcp")
}

/// The checkpoint file in `dir` to resume from, refused (exit status 2)
/// unless it is a regular file: a FIFO at its name blocked the read
/// forever (issue 33, item 16). Opened without blocking, and the type
/// checked on the open file.
///
/// # Errors
/// [`retrograde::Error::Io`] when it cannot be opened, a [`UsageError`]
/// when it is not a regular file.
pub(crate) fn resume_file_in(dir: &Path) -> Result<PathBuf> {
    use std::os::unix::fs::OpenOptionsExt;
    let path = file_in(dir);
    let io = |source| retrograde::Error::Io {
        path: path.clone(),
        source,
    };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&path)
        .map_err(io)?;
    if !file.metadata().map_err(io)?.is_file() {
        return Err(UsageError(format!(
            "--resume {}: {} is not a regular file (a FIFO, a device or a folder): \
             expected the checkpoint that --checkpoint writes",
            dir.display(),
            path.display()
        ))
        .into());
    }
    Ok(path)
}

/// What identifies a solve: the map's bytes, the placement, the rules,
/// the engine and whether distances are kept. A resume must match all.
pub(crate) fn fingerprint(
    map: &Path,
    game: &GameArgs,
    engine: &str,
    dte_table: bool,
) -> Result<Vec<(String, String)>> {
    if map.as_os_str() == "-" {
        return Err(UsageError(
            "--checkpoint and --resume need a map file, not standard input".into(),
        )
        .into());
    }
    let bytes = std::fs::read(map).with_context(|| map.display().to_string())?;
    let hash = retrograde::fnv1a(retrograde::FNV_START, &bytes);
    Ok(vec![
        (
            "map".into(),
            format!("{} bytes, FNV-1a {hash:016x}", bytes.len()),
        ),
        (
            "placement".into(),
            words(game.placement_flags(true), "the map's starts and exits"),
        ),
        (
            "rules".into(),
            words(
                super::common::rule_flags(game.rules())
                    .into_iter()
                    .map(String::from)
                    .collect(),
                "the standard rules",
            ),
        ),
        ("engine".into(), engine.to_string()),
        (
            "distance table".into(),
            if dte_table { "kept" } else { "not kept" }.to_string(),
        ),
    ])
}

/// A fingerprint value that a refused resume shows as the user types it:
/// the flags joined by spaces, or `none` (what no flag means) without
/// any. (These values were Rust's `Debug` dumps of the flags' structs,
/// which no user types; checkpoints of that time are refused as made
/// with another placement.)
fn words(flags: Vec<String>, none: &str) -> String {
    if flags.is_empty() {
        none.to_string()
    } else {
        flags.join(" ")
    }
}

/// Reads the checkpoint in `dir` and checks it against `fingerprint` and
/// the kernel that solves (`several`: the several-cops kernel, else the
/// one-cop one).
///
/// # Errors
/// A damaged file or one of the other kernel
/// ([`retrograde::Error::Checkpoint`]), or a [`UsageError`] naming the
/// first field that differs.
pub(crate) fn load(
    dir: &Path,
    fingerprint: &[(String, String)],
    several: bool,
) -> Result<Checkpoint> {
    let path = resume_file_in(dir)?;
    let checkpoint = Checkpoint::open(&path)?;
    checkpoint.check_kernel(several)?;
    check_fingerprint(dir, checkpoint.fingerprint(), fingerprint)?;
    Ok(checkpoint)
}

/// Checks the fingerprint a checkpoint in `dir` was made with (`theirs`)
/// against this solve's.
///
/// # Errors
/// A [`UsageError`] naming the first field that differs.
fn check_fingerprint(
    dir: &Path,
    theirs: &[(String, String)],
    fingerprint: &[(String, String)],
) -> Result<()> {
    for (name, value) in fingerprint {
        let old = theirs.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        if old != Some(value) {
            return Err(UsageError(format!(
                "--resume {}: the checkpoint was made with another {name}: {} there, {value} now",
                dir.display(),
                old.map_or("none", |v| v.as_str())
            ))
            .into());
        }
    }
    Ok(())
}

/// The most minutes `--checkpoint-every` takes: 365 days. A larger value
/// is no longer an interval a solve meets (and from about 3e17 minutes on
/// it is no `Duration` at all, which panicked).
pub(crate) const MOST_MINUTES: f64 = 525_600.0;

/// The time between snapshots that `--checkpoint-every MIN` asks for,
/// refused unless MIN is a positive number of minutes up to
/// [`MOST_MINUTES`]; checked before any directory is made.
///
/// # Errors
/// A [`UsageError`] naming the flag, its value and the range.
pub(crate) fn interval(every_minutes: f64) -> Result<Duration, UsageError> {
    if every_minutes.is_finite() && every_minutes > 0.0 && every_minutes <= MOST_MINUTES {
        return Ok(Duration::from_secs_f64(every_minutes * 60.0));
    }
    let bound = if every_minutes > MOST_MINUTES {
        format!("at most {MOST_MINUTES} minutes (365 days)")
    } else {
        "expected a positive number of minutes".to_string()
    };
    // 1e300 as typed, not as its 301 digits.
    let shown = if every_minutes.abs() >= 1e15 {
        format!("{every_minutes:e}")
    } else {
        format!("{every_minutes}")
    };
    Err(UsageError(format!("--checkpoint-every {shown}: {bound}")))
}

/// Makes the checkpoint directory `dir` if it is missing, refused (a
/// [`UsageError`]) unless its parent exists: as every output into a
/// missing directory is, `--checkpoint a/b/c` is refused when `a/b` does
/// not exist (its whole tree was made, silently, wherever a typo put it).
///
/// # Errors
/// A [`UsageError`] naming `--checkpoint`, the path and what is wrong.
pub(crate) fn make_dir(dir: &Path) -> Result<(), UsageError> {
    let refuse = |why: String| Err(UsageError(format!("--checkpoint {}: {why}", dir.display())));
    if dir.is_dir() {
        return Ok(());
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return refuse(format!("the directory {} does not exist", parent.display()));
    }
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(()),
        // Made since by another process (of a partitioned solve).
        Err(_) if dir.is_dir() => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => refuse("not a directory".into()),
        Err(e) => refuse(e.to_string()),
    }
}

/// Saves snapshots into a directory: every `every`, and when a signal asks
/// the solve to stop.
pub(crate) struct DirSink {
    dir: PathBuf,
    every: Duration,
    last: Mutex<Instant>,
    fingerprint: Vec<(String, String)>,
}

impl DirSink {
    /// A sink into `dir` (created if missing, in a directory that exists);
    /// from now on the first SIGINT / SIGTERM / SIGHUP stops the solve
    /// after a snapshot.
    pub(crate) fn new(
        dir: &Path,
        every_minutes: f64,
        fingerprint: Vec<(String, String)>,
    ) -> Result<DirSink> {
        let every = interval(every_minutes)?;
        make_dir(dir)?;
        // The path is checked now, not at the first snapshot.
        drop(OutputTarget::check("--checkpoint", &file_in(dir))?);
        defer_stop_signals();
        Ok(DirSink {
            dir: dir.to_path_buf(),
            every,
            last: Mutex::new(Instant::now()),
            fingerprint,
        })
    }

    /// The directory.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Sink for DirSink {
    fn poll(&self, _level: u32) -> Due {
        if stop_requested().is_some() {
            Due::SaveAndStop
        } else if self
            .last
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .elapsed()
            >= self.every
        {
            Due::Save
        } else {
            Due::No
        }
    }

    fn save(&self, snapshot: &dyn Snapshot) -> retrograde::Result<()> {
        self.save_with(|fingerprint, out| snapshot.write_to(fingerprint, out))
    }
}

impl DirSink {
    /// Replaces the checkpoint file by what `write` writes (given the
    /// fingerprint), and restarts the timer.
    fn save_with(
        &self,
        write: impl FnOnce(&[(String, String)], &mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> retrograde::Result<()> {
        let path = file_in(&self.dir);
        let failed = |e: String| retrograde::Error::Io {
            path: path.clone(),
            source: std::io::Error::other(e),
        };
        let target = OutputTarget::check("--checkpoint", &path).map_err(|e| failed(e.0))?;
        target
            .write_with(|out| write(&self.fingerprint, out))
            .map_err(|e| {
                // After work was done: exit status 1, as a full disk is.
                crate::cli::failure::note_write_failure();
                failed(format!("{e:#}"))
            })?;
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        Ok(())
    }
}
