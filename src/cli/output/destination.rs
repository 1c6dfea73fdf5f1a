//! [`OutputTarget`]: where one output of a command goes, checked before
//! any work starts, written through a temporary file and renamed. Its
//! parts: the inputs and outputs of the run that must not share a file
//! (`claims.rs`), the temporary file (`temp.rs`), the stop signals that
//! remove temporary files (`signals.rs`), and the open output being
//! written (`open.rs`).

use std::ffi::OsString;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::cli::common::UsageError;

mod claims;
mod open;
mod signals;
mod temp;

pub(crate) use claims::note_input;
use claims::{claim_output, identity, Claim};
pub(crate) use open::{is_closed_stdout, Output};
use open::{Sink, WriteFailed};
pub(crate) use signals::{
    defer_stop_signals, defer_stop_signals_saying, say_when_stopped, stop_requested,
};
use temp::Temp;

/// Where one output of a command goes, checked before any work starts.
///
/// Every file a command writes goes through this type, so that an output
/// never destroys what it does not own and never leaves a partial file:
///
/// ```ignore
/// // Before the work: a bad path is a usage error (exit 2) at once.
/// let target = OutputTarget::check("--dump", &path)?;
/// // ... the long solve ...
/// target.write_with(|out| dump(&solution, out))?;
/// // or, to decide when to finish:
/// let mut out = target.create()?;
/// write!(out, "...")?;
/// out.commit()?; // dropped without commit: nothing is left behind
/// ```
///
/// What happens to the path, by what it names:
/// - `-`: standard output.
/// - Nothing yet, or a regular file (also through symbolic links): a
///   temporary file `.NAME.retrograde-PID-N.tmp` in the same directory is
///   created by `check` (which so proves the directory writable), written,
///   synced, and renamed over the file only when complete; a link stays a
///   link (its target is replaced). The temporary file is removed on
///   errors, when the target is dropped unused, and on SIGINT, SIGTERM and
///   SIGHUP; one left by a killed process (SIGKILL) is removed by the next
///   run writing the same file, and is never read as a result.
/// - The file this process's standard output or error already is (e.g.
///   `/dev/stdout`, `/proc/self/fd/1`): that stream.
/// - A FIFO or a character device (a terminal, `/dev/null`, `/dev/full`):
///   written straight into, never replaced.
/// - A directory, a socket, a block device, a dangling link, a read-only
///   file, a missing directory or one without write permission: refused by
///   [`check`] with a [`UsageError`] (exit status 2), before any work.
///
/// [`check`]: OutputTarget::check
#[derive(Debug)]
pub(crate) struct OutputTarget {
    /// The flag the output was given to, for messages.
    flag: String,
    /// The path as the user gave it, for messages.
    shown: PathBuf,
    kind: Kind,
    /// The file this target holds against other outputs and the inputs.
    _claim: Option<Claim>,
}

#[derive(Debug)]
enum Kind {
    Stdout,
    Stderr,
    /// Written straight into: a FIFO or a character device.
    Direct(PathBuf),
    /// A regular file, new or replaced through a temporary sibling.
    Replace(Temp),
}

impl OutputTarget {
    /// Checks `path` for the output of `flag` (named in messages); see the
    /// type's docs for what each kind of path becomes. A FIFO is not opened
    /// (that would wait for a reader); a regular target gets its temporary
    /// file now.
    ///
    /// # Errors
    /// A [`UsageError`] saying why the path cannot take the output.
    pub(crate) fn check(flag: &str, path: &Path) -> Result<OutputTarget, UsageError> {
        let refuse = |why: &str| UsageError(format!("{flag} {}: {why}", path.display()));
        let shown = path.to_path_buf();
        if path.as_os_str() == "-" {
            return Ok(OutputTarget {
                flag: flag.to_string(),
                shown,
                kind: Kind::Stdout,
                _claim: None,
            });
        }
        if path.as_os_str().is_empty() {
            return Err(UsageError(format!("{flag}: the file name is empty")));
        }
        let target = match std::fs::metadata(path) {
            Ok(meta) => existing(path, &meta).map_err(|why| refuse(&why))?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if std::fs::symlink_metadata(path).is_ok() {
                    return Err(refuse("a symbolic link to a missing file"));
                }
                if path.as_os_str().as_encoded_bytes().ends_with(b"/") {
                    return Err(refuse("names a directory, expected a file"));
                }
                let (dir, _) = split(path).map_err(|why| refuse(&why))?;
                match std::fs::metadata(&dir) {
                    Ok(m) if m.is_dir() => {}
                    Ok(_) => return Err(refuse(&format!("{} is not a directory", dir.display()))),
                    Err(_) => {
                        return Err(refuse(&format!(
                            "the directory {} does not exist",
                            dir.display()
                        )))
                    }
                }
                Target::File(path.to_path_buf())
            }
            Err(e) => return Err(refuse(&e.to_string())),
        };
        // Checked before the temporary file is made, so a refusal leaves
        // nothing behind.
        let claim = match (&target, identity(path)) {
            (Target::File(_), Some(key)) => {
                Some(claim_output(flag, key).map_err(|why| refuse(&why))?)
            }
            _ => None,
        };
        let kind = match target {
            Target::Stdout => Kind::Stdout,
            Target::Stderr => Kind::Stderr,
            Target::Direct => Kind::Direct(path.to_path_buf()),
            Target::File(file) => Kind::Replace(
                Temp::new(file)
                    .map_err(|e| refuse(&format!("cannot create a file next to it: {e}")))?,
            ),
        };
        Ok(OutputTarget {
            flag: flag.to_string(),
            shown,
            kind,
            _claim: claim,
        })
    }

    /// True when the output becomes a regular file (new or replaced), the
    /// only kind that can be reopened, appended to or read back.
    pub(crate) fn is_file(&self) -> bool {
        matches!(self.kind, Kind::Replace(_))
    }

    /// True when the output goes to this process's standard output (`-`,
    /// or the file standard output already is), which then carries
    /// nothing else of the run.
    pub(crate) fn is_stdout(&self) -> bool {
        matches!(self.kind, Kind::Stdout)
    }

    /// Whether one of a run's `outputs` goes to standard output, which it
    /// then has to itself: the caller sends its report (text or `--json`)
    /// to standard error, so that what reads standard output gets the
    /// output alone (a CSV followed by a report is no longer CSV).
    ///
    /// # Errors
    /// A [`UsageError`] when two of them go to standard output, whose
    /// contents would run into each other; checked before the work.
    pub(crate) fn stdout_taken<'a>(
        outputs: impl IntoIterator<Item = &'a OutputTarget>,
    ) -> Result<bool, UsageError> {
        let mut first: Option<&OutputTarget> = None;
        for out in outputs.into_iter().filter(|o| o.is_stdout()) {
            if let Some(first) = first {
                return Err(UsageError(format!(
                    "{} {}: standard output already carries {} {}; write one of them to a file",
                    out.flag,
                    out.shown.display(),
                    first.flag,
                    first.shown.display()
                )));
            }
            first = Some(out);
        }
        Ok(first.is_some())
    }

    /// The path as given.
    pub(crate) fn path(&self) -> &Path {
        &self.shown
    }

    /// Opens the output for writing: the temporary file of a regular
    /// target, or the stream or node itself. Nothing replaces the target
    /// until [`Output::commit`].
    ///
    /// # Errors
    /// When the node cannot be opened.
    pub(crate) fn create(self) -> Result<Output> {
        let sink = match &self.kind {
            Kind::Stdout => Sink::Stdout(io::stdout()),
            Kind::Stderr => Sink::Stderr(io::stderr()),
            Kind::Direct(path) => Sink::File(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| self.failed(e))?,
            ),
            Kind::Replace(temp) => Sink::File(temp.file.try_clone().map_err(|e| self.failed(e))?),
        };
        Ok(Output {
            writer: BufWriter::with_capacity(1 << 20, sink),
            target: self,
        })
    }

    /// Writes the whole output with `write` and commits it; on any error
    /// nothing is left behind and the target is untouched.
    ///
    /// # Errors
    /// When opening, writing, syncing or renaming fails.
    pub(crate) fn write_with(
        self,
        write: impl FnOnce(&mut Output) -> io::Result<()>,
    ) -> Result<()> {
        let mut out = self.create()?;
        if let Err(e) = write(&mut out) {
            return Err(out.target.failed(e));
        }
        out.commit()
    }

    fn failed(&self, e: io::Error) -> anyhow::Error {
        match self.kind {
            // A reader that went away from standard output is not a failed
            // file: the command ends quietly (see `is_closed_stdout`).
            Kind::Stdout => e.into(),
            _ => anyhow::Error::new(e).context(WriteFailed(self.shown.clone())),
        }
    }
}

/// What an existing path is, by [`existing`].
enum Target {
    Stdout,
    Stderr,
    Direct,
    /// A regular file to replace: the path with every link resolved.
    File(PathBuf),
}

/// Classifies an existing path (`meta` follows links).
fn existing(path: &Path, meta: &std::fs::Metadata) -> Result<Target, String> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let same = |fd: i32| {
        std::fs::metadata(format!("/proc/self/fd/{fd}"))
            .is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
    };
    let kind = meta.file_type();
    if kind.is_dir() {
        return Err("is a directory, expected a file".into());
    }
    if same(1) {
        return Ok(Target::Stdout);
    }
    if same(2) {
        return Ok(Target::Stderr);
    }
    if kind.is_fifo() {
        // Not opened here: that would wait for a reader, or hand a waiting
        // reader an empty stream. A permission problem shows at the write.
        return Ok(Target::Direct);
    }
    if kind.is_char_device() {
        // Opened only to learn about permission.
        return match std::fs::OpenOptions::new().write(true).open(path) {
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                Err("no permission to write".into())
            }
            _ => Ok(Target::Direct),
        };
    }
    if !kind.is_file() {
        return Err(format!(
            "is a {}, expected a file",
            if kind.is_socket() {
                "socket"
            } else if kind.is_block_device() {
                "block device"
            } else {
                "special file"
            }
        ));
    }
    if meta.permissions().readonly() {
        return Err("the file is read-only".into());
    }
    // Through every link to the file itself, which is what gets replaced.
    std::fs::canonicalize(path)
        .map(Target::File)
        .map_err(|e| e.to_string())
}

/// The directory and file name of a path to create.
fn split(path: &Path) -> Result<(PathBuf, OsString), String> {
    let name = path
        .file_name()
        .ok_or_else(|| "not a file name".to_string())?
        .to_os_string();
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((dir, name))
}

/// Writes `path` (checked now) with `write`: [`OutputTarget::check`] then
/// [`OutputTarget::write_with`], for an output whose path cannot be checked
/// sooner.
///
/// # Errors
/// As those two.
pub(crate) fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut Output) -> io::Result<()>,
) -> Result<()> {
    OutputTarget::check("output", path)?.write_with(write)
}
