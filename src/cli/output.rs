//! Serializable reports, and [`OutputTarget`]: the one way every command
//! writes a file (`--dump`, `--out`, exports and any new output). Library
//! types never derive `Serialize`; the conversion happens here.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use anyhow::Result;
use serde::Serialize;

use super::common::UsageError;

mod text;
pub(crate) use text::{print_plan, print_text, save_with, saved_line, PlanReport};

/// Counts of states by value for the player to move.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CountsJson {
    /// WIN states.
    pub(crate) win: u64,
    /// LOSS states.
    pub(crate) loss: u64,
    /// DRAW states.
    pub(crate) draw: u64,
}

impl CountsJson {
    /// The `states:` line of `solve` and `info`: every state and how they
    /// split, for the player to move.
    pub(crate) fn states_line(&self, states: u64) -> String {
        format!(
            "states: {states} (win {}, loss {}, draw {}; values for the player to move)",
            self.win, self.loss, self.draw
        )
    }
}

impl From<retrograde::Counts> for CountsJson {
    fn from(c: retrograde::Counts) -> Self {
        CountsJson {
            win: c.win,
            loss: c.loss,
            draw: c.draw,
        }
    }
}

/// The result of solving one map.
#[derive(Serialize, Debug, Clone)]
pub(crate) struct SolveReport {
    /// The map file as given.
    pub(crate) map: String,
    /// `seed` or `movingai`.
    pub(crate) format: &'static str,
    /// Map width in columns.
    pub(crate) width: usize,
    /// Map height in rows.
    pub(crate) height: usize,
    /// `cop-wins`, `thief-escapes`, `draw`, or null without starts.
    pub(crate) result: Option<&'static str>,
    /// The start's distance to end in plies (null for a draw or no start).
    pub(crate) dte: Option<u32>,
    /// Free cells.
    pub(crate) cells: u64,
    /// Exit cells.
    pub(crate) exits: u64,
    /// The exit cells as [row, column], row-major.
    pub(crate) exit_cells: Vec<[usize; 2]>,
    /// FNV-1a checksum of the exit cells (16 hex digits), as in batch rows.
    pub(crate) exit_checksum: String,
    /// States: 2 * cells^2.
    pub(crate) states: u64,
    /// Counts over every (cop, thief, turn) state.
    pub(crate) counts: CountsJson,
    /// Propagation levels (the largest distance to end of a decided state).
    pub(crate) levels: u32,
    /// Sweeps of the sweep engine (0 for the level engines).
    pub(crate) sweeps: u32,
    /// Engine name.
    pub(crate) engine: &'static str,
    /// Worker threads.
    pub(crate) threads: usize,
    /// Wall-clock seconds for building and solving (not loading).
    pub(crate) seconds: f64,
    /// Peak resident memory of the process in bytes, if known.
    pub(crate) peak_memory_bytes: Option<u64>,
    /// The check of `solve --verify` (absent without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) verified: Option<VerifyReport>,
    /// Whole-map results over every start pair (text default; `--summary`).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub(crate) summary: Option<SummaryJson>,
    /// One result per `--scen` entry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) scenario: Option<Vec<ScenPair>>,
    /// The table written by `--save` (absent without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) saved: Option<SaveReport>,
}

/// What a solve found, whichever engine ran it: the parts of a
/// [`SolveReport`] that are not about the map.
pub(crate) struct Found {
    /// The start's value for its player to move (`None` without starts).
    pub(crate) start: Option<retrograde::Outcome>,
    /// The start's distance to end (`None` for a draw or without starts).
    pub(crate) dte: Option<retrograde::Dte>,
    /// Counts over every state.
    pub(crate) counts: retrograde::Counts,
    /// Propagation levels.
    pub(crate) levels: u32,
    /// Sweeps of the sweep engine (0 otherwise).
    pub(crate) sweeps: u32,
    /// Engine name.
    pub(crate) engine: &'static str,
    /// Worker threads.
    pub(crate) threads: usize,
}

impl SolveReport {
    /// The report of a solve of `game`, loaded from `path` in `format`,
    /// that found `found` in `seconds`; the optional parts (summary,
    /// verification, scenario, saved table) start out absent. Shared by
    /// the local and the partitioned solve, so both say the same.
    pub(crate) fn new(
        path: &Path,
        format: &'static str,
        game: &retrograde::CopsAndThief,
        found: Found,
        seconds: f64,
    ) -> SolveReport {
        let board = game.board();
        let grid = &board.grid;
        SolveReport {
            map: path.display().to_string(),
            format,
            width: grid.width(),
            height: grid.height(),
            result: found.start.map(|v| game.verdict(v).as_str()),
            dte: found.dte.map(|d| d.plies()),
            cells: game.cells(),
            exits: board.exits.count_ones() as u64,
            exit_cells: board
                .exit_coords()
                .into_iter()
                .map(|(r, c)| [r, c])
                .collect(),
            exit_checksum: format!("{:016x}", board.exit_checksum()),
            states: retrograde::Game::state_count(game),
            counts: found.counts.into(),
            levels: found.levels,
            sweeps: found.sweeps,
            engine: found.engine,
            threads: found.threads,
            seconds,
            peak_memory_bytes: super::common::peak_memory(),
            verified: None,
            summary: None,
            scenario: None,
            saved: None,
        }
    }
}

/// Whole-map results: the same keys as a batch row's.
#[derive(Serialize, Debug, Clone)]
pub(crate) struct SummaryJson {
    /// Start pairs: cop != thief, the first mover to move.
    pub(crate) pairs: u64,
    /// Whether the thief is the first mover (`--thief-first`).
    #[serde(skip)]
    pub(crate) thief_first: bool,
    /// Shares of the pairs by verdict.
    pub(crate) share: ShareJson,
    /// One pair at the longest distance to end (null without distances).
    pub(crate) longest: Option<LongestJson>,
}

/// Shares of the start pairs by verdict, as fractions.
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
pub(crate) struct ShareJson {
    /// Pairs the cop wins.
    pub(crate) cop_wins: f64,
    /// Pairs the thief escapes from.
    pub(crate) thief_escapes: f64,
    /// Pairs drawn.
    pub(crate) draw: f64,
}

/// A start pair at the longest distance to end.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LongestJson {
    /// Distance to end in plies.
    pub(crate) dte: u32,
    /// The cop's cell as [row, column].
    pub(crate) cop: [usize; 2],
    /// The thief's cell as [row, column].
    pub(crate) thief: [usize; 2],
}

impl SummaryJson {
    /// From the library's summary; `thief_first` only labels text output.
    pub(crate) fn new(s: &retrograde::StartPairs, thief_first: bool) -> SummaryJson {
        let share = |count: u64| {
            if s.pairs == 0 {
                0.0
            } else {
                count as f64 / s.pairs as f64
            }
        };
        SummaryJson {
            pairs: s.pairs,
            thief_first,
            share: ShareJson {
                cop_wins: share(s.cop_wins),
                thief_escapes: share(s.thief_escapes),
                draw: share(s.draws),
            },
            longest: s.longest.map(|l| LongestJson {
                dte: l.dte.plies(),
                cop: [l.cop.0, l.cop.1],
                thief: [l.thief.0, l.thief.1],
            }),
        }
    }
}

/// One start pair of a `--scen` file and its result.
#[derive(Serialize, Debug, Clone)]
pub(crate) struct ScenPair {
    /// The entry's line in the scenario file.
    pub(crate) line: usize,
    /// The entry's bucket.
    pub(crate) bucket: u64,
    /// The cop's cell (the entry's goal) as [row, column].
    pub(crate) cop: [usize; 2],
    /// The thief's cell (the entry's start) as [row, column].
    pub(crate) thief: [usize; 2],
    /// `cop-wins`, `thief-escapes` or `draw`.
    pub(crate) result: &'static str,
    /// Distance to end in plies (null for a draw, or with the sweep engine).
    pub(crate) dte: Option<u32>,
}

/// The table written by `solve --save` / `batch --save-dir`.
#[derive(Serialize, Debug, Clone)]
pub(crate) struct SaveReport {
    /// The table file.
    pub(crate) path: String,
    /// Its size in bytes.
    pub(crate) bytes: u64,
    /// Whether it stores distances.
    pub(crate) distances: bool,
    /// Compressed values, bits per state.
    pub(crate) value_bits_per_state: f64,
    /// Compressed distances, bits per state (0 without).
    pub(crate) dte_bits_per_state: f64,
    /// Wall-clock seconds of writing.
    pub(crate) seconds: f64,
}

/// What `solve --verify` checked.
#[derive(Serialize, Debug, Clone)]
pub(crate) struct VerifyReport {
    /// States checked.
    pub(crate) states: u64,
    /// Whether distances were checked too.
    pub(crate) distances: bool,
    /// States whose stored value or distance disagrees with their moves.
    pub(crate) inconsistent: u64,
    /// Wall-clock seconds of the check.
    pub(crate) seconds: f64,
}

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
    /// The path as the user gave it, for messages.
    shown: PathBuf,
    kind: Kind,
    /// The file this target holds against other outputs and the inputs.
    _claim: Option<Claim>,
}

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
struct Claim(u64);

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
fn identity(path: &Path) -> Option<PathBuf> {
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

/// Records `path` as an input of this run (`what` names it in messages:
/// `the map`, `the table`): an output checked on the same file, before or
/// after, is refused.
///
/// # Errors
/// A [`UsageError`] when an output already holds the file.
pub(crate) fn note_input(what: &str, path: &Path) -> Result<(), UsageError> {
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
                if let Some((_, what)) = lock(&INPUTS).iter().find(|(k, _)| *k == key) {
                    return Err(refuse(&format!(
                        "is {what} it reads; write the output to another file"
                    )));
                }
                let mut outputs = lock(&OUTPUTS);
                if let Some((_, _, other)) = outputs.iter().find(|(_, k, _)| *k == key) {
                    return Err(refuse(&format!(
                        "is also the file of {other}: give each output its own file"
                    )));
                }
                let id = NEXT_CLAIM.fetch_add(1, Ordering::Relaxed);
                outputs.push((id, key, flag.to_string()));
                Some(Claim(id))
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

/// A temporary file next to a regular target, removed unless renamed over
/// it.
#[derive(Debug)]
struct Temp {
    file: File,
    path: PathBuf,
    /// The file it replaces.
    target: PathBuf,
}

impl Temp {
    /// Creates the temporary file for `target` (in its directory),
    /// registered for removal on SIGINT, SIGTERM and SIGHUP; removes stale
    /// ones of dead processes first.
    fn new(target: PathBuf) -> io::Result<Temp> {
        static SEQUENCE: AtomicU64 = AtomicU64::new(0);
        let (dir, name) = split(&target).map_err(io::Error::other)?;
        let prefix = format!(".{}.retrograde-", name.to_string_lossy());
        remove_stale(&dir, &prefix);
        watch_signals();
        loop {
            let n = SEQUENCE.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!("{prefix}{}-{n}.tmp", std::process::id()));
            // Registered before it exists, so no signal can slip in between.
            LIVE.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(path.clone());
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
    fn commit(&self) -> io::Result<()> {
        self.file.sync_all()?;
        std::fs::rename(&self.path, &self.target)?;
        forget(&self.path);
        Ok(())
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if LIVE
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&self.path)
        {
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

/// Temporary files of this process not yet committed, removed by the
/// signal watcher.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn forget(temp: &Path) {
    LIVE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|p| p != temp);
}

/// Whether the first SIGINT / SIGTERM / SIGHUP only requests a stop
/// ([`stop_requested`]) instead of ending the process.
static DEFER: AtomicBool = AtomicBool::new(false);
/// The signal that requested a stop, 0 while none did.
static STOP: AtomicI32 = AtomicI32::new(0);

/// From now on the first SIGINT, SIGTERM or SIGHUP only sets
/// [`stop_requested`], for a solve that saves a checkpoint and then exits;
/// a second one ends the process as usual.
pub(crate) fn defer_stop_signals() {
    DEFER.store(true, Ordering::SeqCst);
    watch_signals();
}

/// The signal that requested a stop since [`defer_stop_signals`].
pub(crate) fn stop_requested() -> Option<i32> {
    match STOP.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// Starts (once) a thread that, on SIGINT, SIGTERM or SIGHUP, removes the
/// live temporary files and then ends the process as the signal would have.
fn watch_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    static WATCHING: OnceLock<()> = OnceLock::new();
    WATCHING.get_or_init(|| {
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            for signal in signals.forever() {
                // A checkpointing solve stops itself at the next level
                // (after saving); a second signal ends it at once.
                if DEFER.load(Ordering::SeqCst)
                    && STOP
                        .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok()
                {
                    continue;
                }
                for temp in LIVE.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
                    let _ = std::fs::remove_file(temp);
                }
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        });
    });
}

/// The context of an error writing an output file (not standard output).
#[derive(Debug)]
pub(crate) struct WriteFailed(PathBuf);

impl std::fmt::Display for WriteFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write {}", self.0.display())
    }
}

/// True for an error that only says standard output was closed by its
/// reader (`... | head`): the command then ends quietly.
pub(crate) fn is_closed_stdout(error: &anyhow::Error) -> bool {
    let broken = |e: &(dyn std::error::Error + 'static)| {
        matches!(e.downcast_ref::<io::Error>(), Some(e) if e.kind() == io::ErrorKind::BrokenPipe)
            || matches!(e.downcast_ref::<serde_json::Error>(),
                Some(e) if e.io_error_kind() == Some(io::ErrorKind::BrokenPipe))
    };
    error.chain().any(broken) && error.downcast_ref::<WriteFailed>().is_none()
}

/// An open output (see [`OutputTarget::create`]), buffered; dropped
/// without [`commit`](Output::commit), it leaves nothing behind.
pub(crate) struct Output {
    writer: BufWriter<Sink>,
    target: OutputTarget,
}

enum Sink {
    Stdout(io::Stdout),
    Stderr(io::Stderr),
    File(File),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(s) => s.write(buf),
            Sink::Stderr(s) => s.write(buf),
            Sink::File(f) => f.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(s) => s.flush(),
            Sink::Stderr(s) => s.flush(),
            Sink::File(f) => f.flush(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

impl Output {
    /// Finishes the output: flushes it, and for a regular file syncs the
    /// temporary file and renames it over the target.
    ///
    /// # Errors
    /// When flushing, syncing or renaming fails (the temporary file is then
    /// removed and the target untouched).
    pub(crate) fn commit(mut self) -> Result<()> {
        self.writer.flush().map_err(|e| self.target.failed(e))?;
        if let Kind::Replace(temp) = &self.target.kind {
            temp.commit().map_err(|e| self.target.failed(e))?;
        }
        Ok(())
    }
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
