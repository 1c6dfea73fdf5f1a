//! The batch results file: the row schema, the key and kept text of a row
//! that `--resume` carries over (`RowKey`, `Previous`), and writing rows
//! (JSON Lines or CSV through the shared export module). Reading an earlier
//! file back for `--resume` is in `resume`.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::cli::common::UsageError;
use crate::cli::export::{csv_record, opt};
use crate::cli::output::{
    write_atomically, BestPlacementJson, CountsJson, LongestJson, LongestPlacementJson, ShareJson,
};

/// The `status` of a row whose map was solved.
pub(super) const OK: &str = "ok";

/// The `status` of a row whose map exceeds `--max-states`.
pub(super) const TOO_LARGE: &str = "skipped: too large";

/// Format of the results file, chosen by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OutFormat {
    /// One JSON object per line.
    JsonLines,
    /// A header line, then one comma-separated record per row.
    Csv,
}

impl OutFormat {
    /// `.jsonl` or `.csv`; anything else is a usage error.
    pub(super) fn from_path(path: &Path) -> Result<OutFormat, UsageError> {
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        match extension.as_deref() {
            Some("jsonl") => Ok(OutFormat::JsonLines),
            Some("csv") => Ok(OutFormat::Csv),
            _ => Err(UsageError(format!(
                "--out {}: the results file must end in .jsonl (JSON Lines) or .csv",
                path.display()
            ))),
        }
    }
}

/// One row of the results file: a map and what became of it.
#[derive(Serialize, Debug, Clone, Default)]
pub(super) struct Row {
    /// The map file as found (the path given joined with the walk), for
    /// people: names that are not UTF-8 are shown lossily here and kept
    /// exactly in `path_hex`. Named `map` in the file, as in every
    /// command's JSON.
    #[serde(rename = "map")]
    pub(super) path: String,
    /// The scenario file of a pair row (`--scen`), as given; null in a
    /// whole-map row. With `scen_line` it keys the row.
    pub(super) scen: Option<String>,
    /// The pair's line in `scen`.
    pub(super) scen_line: Option<usize>,
    /// The entry's bucket.
    pub(super) bucket: Option<u64>,
    /// The pair's cop: the entry's goal, `[row, column]`.
    pub(super) cop: Option<[usize; 2]>,
    /// The pair's thief: the entry's start, `[row, column]`.
    pub(super) thief: Option<[usize; 2]>,
    /// `seed` or `movingai`; null when the map could not be read.
    pub(super) format: Option<&'static str>,
    /// Grid width.
    pub(super) width: Option<usize>,
    /// Grid height.
    pub(super) height: Option<usize>,
    /// Free cells.
    pub(super) cells: Option<u64>,
    /// Exit cells.
    pub(super) exits: Option<u64>,
    /// FNV-1a checksum of the exit cells (16 hex digits; `solve --json`
    /// gives the same value and lists the cells).
    pub(super) exit_checksum: Option<String>,
    /// States: 2 * cells^2.
    pub(super) states: Option<u64>,
    /// The start's verdict (`cop-wins`, `thief-escapes`, `draw`), or the
    /// pair's in a pair row; null when the map has no start and none was
    /// given.
    pub(super) result: Option<&'static str>,
    /// The start's distance to end in plies; null for a draw or no start.
    pub(super) dte: Option<u32>,
    /// Counts over every (cop, thief, turn) state, for the player to move.
    pub(super) counts: Option<CountsJson>,
    /// Start pairs: (cop, thief) with cop != thief and the first mover of
    /// the rules (the cop unless --thief-first) to move.
    pub(super) pairs: Option<u64>,
    /// How the start pairs split by verdict (null when there are none).
    pub(super) share: Option<ShareJson>,
    /// One start pair at the largest distance to end (the smallest state
    /// index among them).
    pub(super) longest: Option<LongestJson>,
    /// Several cops (`--cops K`, `--copnumber`): the number of cops of
    /// the summary or of the cop number's placement; null in one-cop rows.
    pub(super) cops: Option<u32>,
    /// `--cops K`: start placements (a multiset of cop cells, the thief on
    /// a cell no cop holds, the first mover to move); `share` splits them.
    pub(super) placements: Option<u64>,
    /// `--cops K`: one placement at the largest distance to end (cells as
    /// `[row, column]`, vertex ids on graphs).
    pub(super) longest_placement: Option<LongestPlacementJson>,
    /// `--cops K`: the cops' placement winning against every thief cell
    /// fastest (as `copnumber` gives it); `--copnumber`: the placement of
    /// the cop number's cops. Null when none wins (or, `--cops K` with an
    /// engine that keeps no distances, unknown).
    pub(super) best_placement: Option<BestPlacementJson>,
    /// `--copnumber`: the cop number, null when more than `--max-cops`.
    pub(super) cop_number: Option<u32>,
    /// Engine that solved it: `sequential` for maps run side by side.
    pub(super) engine: Option<&'static str>,
    /// Threads that solved it.
    pub(super) threads: Option<usize>,
    /// Wall-clock seconds for this map: load, solve and the sweeps.
    pub(super) seconds: Option<f64>,
    /// Bytes of per-state arrays the solve allocated (exact, per map).
    pub(super) array_bytes: Option<u64>,
    /// Peak resident memory of the batch process when the row was written;
    /// reset before each large map, so exact for those and an upper bound
    /// for maps that ran side by side.
    pub(super) peak_memory_bytes: Option<u64>,
    /// The flags that change answers (starts, exits, rules) the row was
    /// solved with, as command-line words; `--resume` compares them.
    pub(super) flags: String,
    /// The raw bytes of the path in hexadecimal when it is not UTF-8 (null
    /// otherwise): the row's key, so such names never collide.
    #[serde(rename = "map_hex")]
    pub(super) path_hex: Option<String>,
    /// `ok`, `skipped: too large`, or the error (with file:line:column for
    /// malformed maps).
    pub(super) status: String,
}

/// Column names of the CSV results file; nested JSON fields are flattened.
pub(super) const CSV_COLUMNS: [&str; 45] = [
    "map",
    "scen",
    "scen_line",
    "bucket",
    "cop_row",
    "cop_col",
    "thief_row",
    "thief_col",
    "format",
    "width",
    "height",
    "cells",
    "exits",
    "exit_checksum",
    "states",
    "result",
    "dte",
    "win",
    "loss",
    "draw",
    "pairs",
    "share_cop_wins",
    "share_thief_escapes",
    "share_draw",
    "longest_dte",
    "longest_cop_row",
    "longest_cop_col",
    "longest_thief_row",
    "longest_thief_col",
    "cops",
    "placements",
    "longest_placement_dte",
    "longest_placement_cops",
    "longest_placement_thief",
    "best_placement_cops",
    "best_placement_plies",
    "cop_number",
    "engine",
    "threads",
    "seconds",
    "array_bytes",
    "peak_memory_bytes",
    "flags",
    "map_hex",
    "status",
];

impl Row {
    /// An empty row for the map at `key`, solved with `flags`.
    pub(super) fn new(key: &Path, flags: &str) -> Row {
        Row {
            path: key.display().to_string(),
            path_hex: key
                .to_str()
                .is_none()
                .then(|| hex(key.as_os_str().as_bytes())),
            flags: flags.to_string(),
            ..Row::default()
        }
    }

    /// A row for a map that failed with `error`.
    pub(super) fn failed(key: &Path, flags: &str, error: &anyhow::Error) -> Row {
        // The library's I/O error already prints its source, which the
        // chain would repeat; a cause is added only when it says more.
        let mut status = String::new();
        for cause in error.chain().map(ToString::to_string) {
            if !status.ends_with(&cause) {
                if !status.is_empty() {
                    status.push_str(": ");
                }
                status.push_str(&cause);
            }
        }
        Row {
            // One line per row in every format: line breaks become spaces.
            status: status.replace(['\n', '\r'], " "),
            ..Row::new(key, flags)
        }
    }

    /// Whether the map counts as failed for the exit status.
    pub(super) fn is_failure(&self) -> bool {
        self.status != OK && self.status != TOO_LARGE
    }

    /// What became of the map, in a few words (progress lines).
    pub(super) fn summary(&self) -> String {
        match (self.result, self.dte) {
            _ if self.status != OK => self.status.clone(),
            _ if self.flags.contains("--copnumber") => match self.cop_number {
                Some(c) => format!("cop number {c}"),
                None => "cop number more than --max-cops".to_string(),
            },
            (Some(result), Some(1)) => format!("{result} in 1 ply"),
            (Some(result), Some(dte)) => format!("{result} in {dte} plies"),
            (Some(result), None) => result.to_string(),
            (None, _) => "solved (no start)".to_string(),
        }
    }

    /// The row as written in `format`, with its line end.
    pub(super) fn text(&self, format: OutFormat) -> String {
        match format {
            OutFormat::JsonLines => {
                let mut line = serde_json::to_string(&crate::cli::schema::versioned(self))
                    .expect("rows serialize");
                line.push('\n');
                line
            }
            OutFormat::Csv => {
                let counts = self.counts;
                csv_record([
                    self.path.clone(),
                    opt(self.scen.as_deref()),
                    opt(self.scen_line),
                    opt(self.bucket),
                    opt(self.cop.map(|c| c[0])),
                    opt(self.cop.map(|c| c[1])),
                    opt(self.thief.map(|c| c[0])),
                    opt(self.thief.map(|c| c[1])),
                    opt(self.format),
                    opt(self.width),
                    opt(self.height),
                    opt(self.cells),
                    opt(self.exits),
                    opt(self.exit_checksum.as_deref()),
                    opt(self.states),
                    opt(self.result),
                    opt(self.dte),
                    opt(counts.map(|c| c.win)),
                    opt(counts.map(|c| c.loss)),
                    opt(counts.map(|c| c.draw)),
                    opt(self.pairs),
                    opt(self.share.map(|s| s.cop_wins)),
                    opt(self.share.map(|s| s.thief_escapes)),
                    opt(self.share.map(|s| s.draw)),
                    opt(self.longest.map(|l| l.dte)),
                    opt(self.longest.map(|l| l.cop[0])),
                    opt(self.longest.map(|l| l.cop[1])),
                    opt(self.longest.map(|l| l.thief[0])),
                    opt(self.longest.map(|l| l.thief[1])),
                    opt(self.cops),
                    opt(self.placements),
                    opt(self.longest_placement.as_ref().map(|l| l.dte)),
                    opt(self.longest_placement.as_ref().map(|l| cells(&l.cops))),
                    opt(self
                        .longest_placement
                        .as_ref()
                        .map(|l| cells(std::slice::from_ref(&l.thief)))),
                    opt(self.best_placement.as_ref().map(|b| cells(&b.cops))),
                    opt(self.best_placement.as_ref().map(|b| b.capture_plies)),
                    opt(self.cop_number),
                    opt(self.engine),
                    opt(self.threads),
                    opt(self.seconds),
                    opt(self.array_bytes),
                    opt(self.peak_memory_bytes),
                    self.flags.clone(),
                    opt(self.path_hex.as_deref()),
                    self.status.clone(),
                ])
            }
        }
    }
}

/// Cells of a several-cops row in one CSV field: `row,col` (or the vertex
/// id) each, separated by spaces.
fn cells(cells: &[serde_json::Value]) -> String {
    let shown: Vec<String> = cells
        .iter()
        .map(|c| crate::cli::output::show_value(c, false))
        .collect();
    shown.join(" ")
}

/// Lower-case hexadecimal of `bytes`.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What a row answers, so that `--resume` never takes one kind of row
/// for the other: a whole map (`pair` none) or one scenario pair (the
/// scenario file as given and the entry's line).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct RowKey {
    /// The map's raw path.
    pub(super) map: PathBuf,
    /// The scenario file and line of a pair row.
    pub(super) pair: Option<(String, usize)>,
}

/// A row kept from an earlier run (status ok), for `--resume`.
pub(super) struct Previous {
    /// What the row answers.
    pub(super) key: RowKey,
    /// The pair's cop and thief cells (pair rows).
    pub(super) pair_cells: Option<([usize; 2], [usize; 2])>,
    /// The map file as shown.
    pub(super) path: String,
    /// The start's verdict, if any.
    pub(super) result: Option<String>,
    /// The start's distance to end, if any.
    pub(super) dte: Option<u64>,
    /// Seconds it took then.
    pub(super) seconds: Option<f64>,
    /// Its exit cells.
    pub(super) exits: Option<u64>,
    /// The share of start pairs the cop wins.
    pub(super) cop_wins: Option<f64>,
    /// `--copnumber`: the cop number.
    pub(super) cop_number: Option<u64>,
    /// The row as it is written back, with its line end.
    pub(super) text: String,
}

/// The results file, appended to by every worker; each row is synced to
/// disk before the next so a crash or kill loses at most the row in flight.
pub(super) struct Sink {
    file: Mutex<File>,
    format: OutFormat,
}

impl Sink {
    /// Starts the results file: empty but for the CSV header, or with
    /// `keep` (earlier ok rows) when resuming. The rewrite goes through a
    /// temporary file so a kill during it leaves the old file intact.
    pub(super) fn create(path: &Path, format: OutFormat, keep: &[Previous]) -> Result<Sink> {
        write_atomically(path, |out| {
            if format == OutFormat::Csv {
                out.write_all(csv_record(CSV_COLUMNS).as_bytes())?;
            }
            for previous in keep {
                out.write_all(previous.text.as_bytes())?;
            }
            Ok(())
        })
        .map_err(|e| UsageError(format!("--out {}: {e:#}", path.display())))?;
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open {} for appending", path.display()))?;
        Ok(Sink {
            file: Mutex::new(file),
            format,
        })
    }

    /// Appends one row and syncs it.
    pub(super) fn append(&self, row: &Row) -> std::io::Result<()> {
        let text = row.text(self.format);
        let mut file = self.file.lock().expect("results file lock");
        file.write_all(text.as_bytes())?;
        file.sync_data()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_format_by_extension() {
        assert_eq!(
            OutFormat::from_path(Path::new("r.JSONL")).unwrap(),
            OutFormat::JsonLines
        );
        assert_eq!(
            OutFormat::from_path(Path::new("r.csv")).unwrap(),
            OutFormat::Csv
        );
        assert!(OutFormat::from_path(Path::new("r.json")).is_err());
        assert!(OutFormat::from_path(Path::new("results")).is_err());
    }
}
