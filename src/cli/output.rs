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
    /// The table written by `--save` (absent without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) saved: Option<SaveReport>,
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
