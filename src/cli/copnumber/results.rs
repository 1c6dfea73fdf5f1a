//! `copnumber --out FILE [--resume]`: the results file, one JSON object per
//! graph in stream order, appended and synced batch by batch, so that an
//! interrupted run (Ctrl-C, a kill, a producer that died) leaves a file of
//! complete records and `--resume` goes on after them.
//!
//! A record carries the graph's position in the stream and its graph6
//! text: `--resume` reads the records back in step with the stream, checks
//! each against the graph at its position (another stream is refused
//! before anything is written) and counts it in the summary without
//! solving it again.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::{is_one, one};
use crate::cli::common::{SpeedArgs, UsageError};
use crate::cli::output::write_atomically;
use crate::cli::schema::SCHEMA;
use retrograde::copnumber::CopNumber;
use retrograde::parse_graph6;

/// One line of the results file: the `--json` object of a graph plus what
/// `--resume` checks (the graph's text and the flags that change answers).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(super) struct Record {
    /// Version of the JSON vocabulary.
    pub(super) schema: u32,
    /// Position in the stream, from 1.
    pub(super) graph: u64,
    /// Line of the input it was read from.
    pub(super) line: usize,
    /// The graph as read (graph6).
    pub(super) graph6: String,
    /// Vertices.
    pub(super) vertices: usize,
    /// Edges as listed (repeats counted).
    pub(super) edges: usize,
    /// `--max-cops` of the run that solved it.
    pub(super) max_cops: u32,
    /// The cop number; null when more than `max_cops` cops are needed.
    pub(super) cop_number: Option<u32>,
    /// A winning placement (empty when none was computed).
    pub(super) placement: Vec<u32>,
    /// Capture time in rounds from `placement`; null when more cops are
    /// needed or under `--counts` (not computed).
    pub(super) capture_time: Option<u32>,
    /// The same in plies.
    pub(super) capture_time_plies: Option<u32>,
    /// `--cop-speed` of the run that solved it; left out at 1, so that a
    /// speed-1 file reads as it did before speeds (and older files resume).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub(super) cop_speed: u32,
    /// `--thief-speed` of that run; left out at 1.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub(super) thief_speed: u32,
}

impl Record {
    /// The record of graph `index` (from 0) of the stream.
    pub(super) fn new(
        index: u64,
        line: usize,
        text: &[u8],
        (n, edges): (usize, usize),
        max_cops: u32,
        speeds: SpeedArgs,
        r: &CopNumber,
    ) -> Record {
        let timed = r.timed && r.cop_number.is_some();
        Record {
            schema: SCHEMA,
            graph: index + 1,
            line,
            graph6: String::from_utf8_lossy(text).into_owned(),
            vertices: n,
            edges,
            max_cops,
            cop_number: r.cop_number,
            placement: r.placement.clone(),
            capture_time: timed.then_some(r.capture_time_rounds),
            capture_time_plies: timed.then_some(r.capture_time_plies),
            cop_speed: speeds.cop_speed,
            thief_speed: speeds.thief_speed,
        }
    }
}

/// The longest line a record of a graph of graph6 text `text_len` bytes
/// can take: the text, a placement of `max_cops` vertex numbers and the
/// other fields (numbers of at most 20 digits), with room to spare.
fn record_bytes_most(text_len: usize, max_cops: u32) -> usize {
    text_len
        .saturating_add((max_cops as usize).saturating_mul(12))
        .saturating_add(1024)
}

impl Record {
    /// Checks what a record says against the graph it stands for (the
    /// record's text is already its graph6 `text`): numbers no run of this
    /// command writes (a cop number above `max_cops` or the graph's order,
    /// a placement off the graph, a capture time longer than the game has
    /// states) are refused, not counted in the summary.
    fn check(&self, text: &[u8], max_cops: u32) -> std::result::Result<(), String> {
        let (n, edges) =
            parse_graph6(text).map_err(|e| format!("its graph does not parse: {}", e.message))?;
        if n == 0 {
            return Err("a graph with no vertices, which has no cop number".into());
        }
        if (self.vertices, self.edges) != (n, edges.len()) {
            return Err(format!(
                "{} vertices and {} edges where the graph has {n} and {}",
                self.vertices,
                self.edges,
                edges.len()
            ));
        }
        let Some(k) = self.cop_number else {
            if !self.placement.is_empty() || self.capture_time.is_some() {
                return Err("a placement or capture time with no cop number".into());
            }
            return Ok(());
        };
        if k == 0 || k > max_cops || k as usize > n {
            return Err(format!(
                "cop number {k}: a graph of {n} vertices under --max-cops {max_cops} has 1 to {}",
                max_cops.min(n as u32)
            ));
        }
        if !(self.placement.is_empty() || self.placement.len() == k as usize)
            || self.placement.iter().any(|&v| v as usize >= n)
        {
            return Err(format!(
                "placement {:?}: expected {k} vertices below {n}",
                self.placement
            ));
        }
        // The longest game visits each state (k cops, the thief, a side
        // to move) at most once.
        let states = (n as u128).saturating_pow(k + 1).saturating_mul(2);
        match (self.capture_time, self.capture_time_plies) {
            (None, None) => Ok(()),
            (Some(rounds), Some(plies))
                if u128::from(plies) <= states && rounds == plies.div_ceil(2) =>
            {
                Ok(())
            }
            (rounds, plies) => Err(format!(
                "capture time {rounds:?} rounds, {plies:?} plies: not a game on {n} vertices with {k} cops"
            )),
        }
    }
}

/// The results file of a run: the records of an earlier run still to be
/// read back (`--resume`), then this run's records appended.
pub(super) struct Results {
    path: PathBuf,
    /// Earlier records not yet matched with the stream: a reader over the
    /// complete lines of the file (a torn last line is left out).
    previous: Option<std::io::Take<BufReader<File>>>,
    /// Bytes of complete lines in the file as found; a torn tail after
    /// them is cut off before the first append.
    kept_len: u64,
    /// Records read back so far.
    resumed: u64,
    /// Flags a record must have been solved with.
    max_cops: u32,
    speeds: SpeedArgs,
    timed: bool,
    /// This run's records not yet written (the current batch).
    pending: Vec<u8>,
    /// The file once this run has written to it.
    appending: Option<File>,
    /// Whether the file is this run's own (no `--resume`): its first write
    /// replaces whatever was there.
    fresh: bool,
}

impl Results {
    /// Opens the results file: with `resume`, the complete records of an
    /// earlier run are read back as the stream goes (a missing file is an
    /// empty one); without, the file is replaced at the first write.
    /// Nothing is written here.
    ///
    /// # Errors
    /// A usage error (exit status 2) when the file cannot be read.
    pub(super) fn open(
        path: &Path,
        resume: bool,
        max_cops: u32,
        speeds: SpeedArgs,
        timed: bool,
    ) -> Result<Results> {
        let mut results = Results {
            path: path.to_path_buf(),
            previous: None,
            kept_len: 0,
            resumed: 0,
            max_cops,
            speeds,
            timed,
            pending: Vec::new(),
            appending: None,
            fresh: !resume,
        };
        if !resume {
            return Ok(results);
        }
        let mut file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                results.fresh = true;
                return Ok(results);
            }
            Err(e) => {
                return Err(
                    UsageError(format!("--resume: cannot read {}: {e}", path.display())).into(),
                )
            }
        };
        results.kept_len = complete_len(&mut file)
            .with_context(|| format!("--resume: cannot read {}", path.display()))?;
        file.seek(SeekFrom::Start(0))?;
        results.previous = Some(BufReader::with_capacity(1 << 20, file).take(results.kept_len));
        Ok(results)
    }

    /// Graphs read back from the earlier run so far.
    pub(super) fn resumed(&self) -> u64 {
        self.resumed
    }

    /// The path, as given.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// The earlier record of graph `index` (from 0) of the stream, checked
    /// against the graph read there; `None` once the earlier records are
    /// used up (this graph is to be solved).
    ///
    /// # Errors
    /// A usage error (exit status 2) when the file is not a results file of
    /// this version, was made with other flags, or holds another stream.
    pub(super) fn previous(
        &mut self,
        index: u64,
        line: usize,
        text: &[u8],
    ) -> Result<Option<Record>> {
        let Some(reader) = self.previous.as_mut() else {
            return Ok(None);
        };
        // A record of this graph is its graph6 text and a few numbers: a
        // longer line is no record of it, and is not read whole (a file
        // of one 6 GB line took 6 GB, or aborted under a memory limit).
        let most = record_bytes_most(text.len(), self.max_cops);
        let mut raw = Vec::new();
        reader
            .by_ref()
            .take(most as u64 + 1)
            .read_until(b'\n', &mut raw)?;
        if raw.is_empty() {
            self.previous = None;
            return Ok(None);
        }
        let at = index + 1;
        let foreign = |why: &str| -> anyhow::Error {
            UsageError(format!(
                "--resume: {} is not a copnumber results file of this version (line {at}: {why}); \
                 choose another --out or remove it",
                self.path.display()
            ))
            .into()
        };
        if raw.len() > most && raw.last() != Some(&b'\n') {
            return Err(foreign(&format!(
                "a line of over {most} bytes, longer than any record of graph {at}"
            )));
        }
        let record: Record = serde_json::from_slice(&raw).map_err(|e| foreign(&e.to_string()))?;
        if record.schema != SCHEMA {
            return Err(foreign("another schema"));
        }
        if record.graph != at {
            return Err(foreign(&format!(
                "graph {} where {at} was expected",
                record.graph
            )));
        }
        if record.max_cops != self.max_cops {
            return Err(UsageError(format!(
                "--resume: {} was made with --max-cops {}, this run has --max-cops {}; \
                 run with the same flags or choose another --out",
                self.path.display(),
                record.max_cops,
                self.max_cops
            ))
            .into());
        }
        let (cop_speed, thief_speed) = (self.speeds.cop_speed, self.speeds.thief_speed);
        if (record.cop_speed, record.thief_speed) != (cop_speed, thief_speed) {
            return Err(UsageError(format!(
                "--resume: {} was made with --cop-speed {} --thief-speed {}, this run has --cop-speed {cop_speed} --thief-speed {thief_speed}; \
                 run with the same flags or choose another --out",
                self.path.display(),
                record.cop_speed,
                record.thief_speed,
            ))
            .into());
        }
        if record.cop_number.is_some() && record.capture_time.is_some() != self.timed {
            let flag = |timed: bool| {
                if timed {
                    "without --counts"
                } else {
                    "with --counts"
                }
            };
            return Err(UsageError(format!(
                "--resume: {} was made {} (capture times {}), this run is {}; \
                 run with the same flags or choose another --out",
                self.path.display(),
                flag(record.capture_time.is_some()),
                if record.capture_time.is_some() {
                    "computed"
                } else {
                    "not computed"
                },
                flag(self.timed)
            ))
            .into());
        }
        if record.graph6.as_bytes() != text {
            return Err(UsageError(format!(
                "--resume: graph {at} of the stream (line {line}: {}) is not graph {at} of {} ({}): \
                 the file holds the results of another stream; run without --resume or choose another --out",
                String::from_utf8_lossy(text),
                self.path.display(),
                record.graph6
            ))
            .into());
        }
        if let Err(why) = record.check(text, self.max_cops) {
            return Err(foreign(&why));
        }
        self.resumed += 1;
        Ok(Some(record))
    }

    /// Checks at the end of the stream that every earlier record was
    /// matched.
    ///
    /// # Errors
    /// A usage error when the file holds more graphs than the stream.
    pub(super) fn check_used_up(&mut self, graphs: u64) -> Result<()> {
        let more = match self.previous.as_mut() {
            Some(reader) => reader.fill_buf()?.iter().any(|&b| !b.is_ascii_whitespace()),
            None => false,
        };
        if more {
            return Err(UsageError(format!(
                "--resume: {} holds more graphs than the stream ({graphs}): \
                 the file holds the results of another stream; run without --resume or choose another --out",
                self.path.display()
            ))
            .into());
        }
        Ok(())
    }

    /// Adds a record of this run to the current batch.
    pub(super) fn push(&mut self, record: &Record) -> Result<()> {
        debug_assert!(self.previous.is_none(), "earlier records come first");
        serde_json::to_writer(&mut self.pending, record)?;
        self.pending.push(b'\n');
        Ok(())
    }

    /// Writes the current batch and syncs it: a fresh file is created
    /// (through a temporary file) with it, an earlier one has its torn tail
    /// cut off and the batch appended.
    ///
    /// # Errors
    /// When the file cannot be written.
    pub(super) fn flush(&mut self) -> Result<()> {
        if self.pending.is_empty() && (self.appending.is_some() || !self.fresh) {
            return Ok(());
        }
        let file = match self.appending.as_mut() {
            Some(file) => file,
            None => {
                if self.fresh {
                    let batch = &self.pending;
                    // A write that fails here comes after the work: exit
                    // status 1, as a full disk is (the path was checked
                    // before any work).
                    write_atomically(&self.path, |out| out.write_all(batch))
                        .with_context(|| format!("--out {}", self.path.display()))?;
                    self.pending.clear();
                } else {
                    let file = OpenOptions::new()
                        .write(true)
                        .open(&self.path)
                        .with_context(|| {
                            format!("cannot open {} for appending", self.path.display())
                        })?;
                    file.set_len(self.kept_len).with_context(|| {
                        format!("cannot cut the torn last line of {}", self.path.display())
                    })?;
                }
                let file = OpenOptions::new()
                    .append(true)
                    .open(&self.path)
                    .with_context(|| {
                        format!("cannot open {} for appending", self.path.display())
                    })?;
                self.appending.insert(file)
            }
        };
        file.write_all(&self.pending)
            .and_then(|()| file.sync_data())
            .with_context(|| format!("cannot append to {}", self.path.display()))?;
        self.pending.clear();
        Ok(())
    }
}

/// Bytes up to and including the last line end: what a run killed while
/// writing left complete.
fn complete_len(file: &mut File) -> std::io::Result<u64> {
    let len = file.metadata()?.len();
    let mut end = len;
    let mut chunk = vec![0u8; 1 << 16];
    while end > 0 {
        let start = end.saturating_sub(chunk.len() as u64);
        let part = &mut chunk[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(part)?;
        if let Some(i) = part.iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// The command line to continue a stopped run: this one with `--resume`.
pub(super) fn resume_command() -> String {
    let mut words: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|w| quote(&w.to_string_lossy()))
        .collect();
    if !words.iter().any(|w| w == "--resume") {
        words.push("--resume".to_string());
    }
    format!("retrograde {}", words.join(" "))
}

/// A word as a POSIX shell reads it back.
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-./=,:+@%".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_len_drops_a_torn_last_line() {
        let dir = std::env::temp_dir().join(format!("kresume-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.jsonl");
        for (text, want) in [("", 0), ("a\n", 2), ("a\nbc", 2), ("abc", 0), ("a\nb\n", 4)] {
            std::fs::write(&path, text).unwrap();
            let mut f = File::open(&path).unwrap();
            assert_eq!(complete_len(&mut f).unwrap(), want, "{text:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn words_are_quoted_for_the_shell() {
        assert_eq!(quote("--out"), "--out");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }
}
