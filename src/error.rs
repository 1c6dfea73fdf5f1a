//! The library's error type. Only parsing, placement of starts and exits,
//! storage allocation and, out of core, writing scratch files can fail;
//! propagation itself never does.

use std::io;
use std::path::PathBuf;

/// Everything that can go wrong in the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A map or graph file is malformed. `line` and `column` are 1-based;
    /// column counts characters.
    #[error("{path}:{line}:{column}: {message}")]
    Parse {
        /// The file as the user named it (`-` for standard input).
        path: String,
        /// 1-based line number.
        line: usize,
        /// 1-based column number.
        column: usize,
        /// What was expected and what was found.
        message: String,
    },
    /// A file could not be read or written.
    #[error("{path}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A start or exit (from a flag or the map) is not a usable cell.
    #[error("{what}: {message}")]
    Placement {
        /// Which flag or map feature, e.g. `--cop 3,4`.
        what: String,
        /// Why it cannot be used.
        message: String,
    },
    /// A tablebase file is damaged, truncated or not a table of this
    /// format; `location` names the block or byte offset.
    #[error("{}: {location}: {message}", path.display())]
    Table {
        /// The table file.
        path: PathBuf,
        /// Where: `header`, `trailer`, `block 12 (values, offset 4096)`.
        location: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// The solve would need more memory or disk than allowed or available.
    #[error("{what} needs {} but only {} {} available; {hint}", needed_bytes(*.needed), human_bytes(*.available), if *.available == 1 { "is" } else { "are" })]
    TooLarge {
        /// What was being sized.
        what: String,
        /// Bytes required.
        needed: u64,
        /// Bytes available under the current limits.
        available: u64,
        /// How to get past it.
        hint: String,
    },
    /// The operating system refused to map memory or a scratch file.
    #[error("cannot allocate {bytes} bytes for {what}")]
    Alloc {
        /// What the allocation was for.
        what: String,
        /// Its size.
        bytes: u64,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// The scratch folder of an out-of-core solve could not take its
    /// files: not writable, full (their blocks are reserved when they are
    /// created, so a full disk shows here and not as a crash mid-solve),
    /// or a write-back failed.
    #[error("scratch folder {} {message}", dir.display())]
    Scratch {
        /// The folder (`--scratch DIR`, or the temporary folder).
        dir: PathBuf,
        /// What could not be done there.
        message: String,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// A checkpoint file is damaged, truncated or not a checkpoint, or
    /// does not fit the solve resuming from it.
    #[error("{}: offset {offset}: {message}", path.display())]
    Checkpoint {
        /// The checkpoint file.
        path: std::path::PathBuf,
        /// Byte offset of what is wrong.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// An engine was asked for something it does not keep (distances
    /// from the sweep engine, checkpoints from an engine without them).
    #[error("the {engine} engine does not keep {what}: {hint}")]
    Unsupported {
        /// The engine's name.
        engine: String,
        /// What was asked for.
        what: String,
        /// What to do instead.
        hint: String,
    },
    /// A solve stopped after `level`, on its observer's request
    /// ([`Flow::Stop`](crate::Flow::Stop)) or its checkpoint sink's
    /// ([`Due::SaveAndStop`](crate::Due::SaveAndStop)); where a sink is
    /// present it holds a snapshot of that level.
    #[error("stopped after level {level}")]
    Stopped {
        /// The last level done (the sweep engine: sweep), the one a saved
        /// snapshot holds.
        level: u32,
    },
    /// A partitioned solve lost or could not reach a peer process, or a
    /// peer runs a different solve.
    #[error("process {process} ({address}): {message}")]
    Peer {
        /// The peer's index in the cluster.
        process: usize,
        /// The peer's address as given (host:port).
        address: String,
        /// What went wrong.
        message: String,
    },
}

impl Error {
    /// True for errors caused by the user's input (a bad or unreadable
    /// file, a bad placement), as opposed to resources; the CLI exits with
    /// status 2 for these.
    #[must_use]
    pub fn is_input_error(&self) -> bool {
        matches!(
            self,
            Error::Parse { .. }
                | Error::Placement { .. }
                | Error::Io { .. }
                | Error::Table { .. }
                | Error::Checkpoint { .. }
                | Error::Unsupported { .. }
        )
    }
}

impl Error {
    /// A scratch file of `bytes` bytes could not be created (or its blocks
    /// reserved) in `dir`: said in terms of the folder, since the arrays'
    /// own names mean nothing to a user.
    pub(crate) fn scratch(dir: &std::path::Path, bytes: u64, source: io::Error) -> Error {
        let message = match source.raw_os_error() {
            Some(libc::EROFS | libc::EACCES | libc::EPERM) => {
                "is not writable: cannot create a scratch file in it".to_string()
            }
            Some(libc::ENOSPC | libc::EDQUOT) => format!(
                "is full: no room for a scratch file of {}",
                needed_bytes(bytes)
            ),
            Some(libc::EFBIG) => format!(
                "cannot hold a scratch file of {} under the file size limit (ulimit -f)",
                needed_bytes(bytes)
            ),
            _ => format!("cannot take a scratch file of {}", needed_bytes(bytes)),
        };
        Error::Scratch {
            dir: dir.to_path_buf(),
            message,
            source,
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A refusal's need: the exact count, then for people in units
/// (`2019911087040 bytes (1.8 TiB)`), so scripts can read the number and
/// people the size. Sizes saturate at `u64::MAX`; that figure is a floor.
fn needed_bytes(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} bytes")
    } else if bytes == u64::MAX {
        format!("{bytes} bytes or more ({})", human_bytes(bytes))
    } else {
        format!("{bytes} bytes ({})", human_bytes(bytes))
    }
}

/// The hint of a refusal whose memory cap is below what a solve needs at
/// the least: the exact count, then the size for people.
pub(crate) fn cap_hint(minimum: u64) -> String {
    format!(
        "give a memory cap of at least {minimum} bytes ({})",
        human_bytes(minimum)
    )
}

/// [`cap_hint`] for a cap that also holds `held` bytes of the caller's
/// (a loaded graph): the cap that would do is the minimum plus what is
/// held, and saying the minimum alone would advise a cap smaller than the
/// one that was just refused.
pub(crate) fn cap_hint_holding(minimum: u64, held: u64) -> String {
    if held == 0 {
        return cap_hint(minimum);
    }
    format!(
        "{}, the {} already held included",
        cap_hint(minimum.saturating_add(held)),
        human_bytes(held)
    )
}

/// A byte count for people: `512 B`, `1.5 KiB`, `1.8 TiB` (powers of
/// 1024, one decimal), as refusals and plans print sizes; a count of 14
/// digits says nothing at a glance.
#[must_use]
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}
