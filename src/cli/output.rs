//! Serializable reports and their writers (text, JSON, CSV dump). Library
//! types never derive `Serialize`; the conversion happens here.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

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

/// Writes a file through a temporary sibling that is renamed into place only
/// when `write` succeeds, so a failed or interrupted run leaves no partial
/// output behind.
pub(crate) fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .with_context(|| format!("{}: not a file name", path.display()))?;
    let temp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| -> std::io::Result<()> {
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&temp)?);
        write(&mut out)?;
        out.flush()?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&temp);
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
}
