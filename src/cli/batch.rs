//! `retrograde batch PATH... --out FILE`: solve every map under some
//! directories with the same flags, one result row per map.
//!
//! The batch follows ripgrep's rule: a bad map becomes a row carrying its
//! error, the batch carries on, and the exit status is decided at the end
//! (0 all solved, 1 some map failed, 2 usage error). Rows are appended to
//! `--out` and synced as maps finish, so an interrupted batch loses nothing
//! and `--resume` picks up where it stopped.
//!
//! Scheduling never nests parallelism: maps up to `--large-states` run in
//! parallel with each other, each on the sequential engine inside its own
//! one-thread rayon pool; larger maps run one at a time with the parallel
//! engine and every thread. Each map goes through [`solve_map`], so its
//! result, distance to end and counts are those of `retrograde solve`.

use std::collections::HashSet;
use std::fmt::Display;
use std::fs::{File, OpenOptions};
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args as ClapArgs;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use rayon::prelude::*;
use retrograde::{load_map, Board, CopsAndThief, Engine, Solution, Turn, Verdict};
use serde::Serialize;

use super::common::{peak_memory, worker_pool, EngineConfig, EngineFlags, GameArgs, UsageError};
use super::output::{write_atomically, CountsJson};
use super::progress::Reporter;
use super::solve::solve_map;
use super::Failure;

/// Default for `--large-states`: above this a map gets every thread.
/// 5 * 10^7 states take about a second on one core and ~65 MB, so running
/// a few such maps side by side is cheap while larger ones are better
/// split across threads than queued behind each other.
const LARGE_STATES: u64 = 50_000_000;

/// The `status` of a row whose map was solved.
const OK: &str = "ok";

/// The `status` of a row whose map exceeds `--max-states`.
const TOO_LARGE: &str = "skipped: too large";

/// Bytes read from a `.txt` or `.map` file to decide whether it is a map.
const SNIFF_BYTES: usize = 4096;

/// Flags of `batch`.
#[derive(ClapArgs, Debug)]
pub(crate) struct BatchArgs {
    /// Map files and directories. Directories are walked recursively in
    /// sorted order: `.map` files are taken unless they are text with some
    /// other header, `.txt` files only when their first line is a seed
    /// header `ROWS COLUMNS` (or a MovingAI `type` line). Files named here
    /// are always taken.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    game: GameArgs,
    #[command(flatten)]
    engine: EngineFlags,
    /// Results file, one row per map: `.jsonl` (JSON Lines) or `.csv`.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Keep the rows of --out whose status is ok and solve only the other
    /// maps (a torn last line from a killed run is dropped).
    #[arg(long)]
    resume: bool,
    /// Skip maps with more than N states (status `skipped: too large`).
    #[arg(long, value_name = "N")]
    max_states: Option<u64>,
    /// Maps with more than N states are solved one at a time by the
    /// parallel engine on all threads; smaller maps run side by side, one
    /// thread each.
    #[arg(long, value_name = "N", default_value_t = LARGE_STATES)]
    large_states: u64,
    /// No progress output (errors are still reported on stderr).
    #[arg(long, short)]
    quiet: bool,
}

/// Format of the results file, chosen by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OutFormat {
    /// One JSON object per line.
    JsonLines,
    /// A header line, then one comma-separated record per line.
    Csv,
}

impl OutFormat {
    /// `.jsonl` or `.csv`; anything else is a usage error.
    fn from_path(path: &Path) -> Result<OutFormat, UsageError> {
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

/// Shares of the start pairs by verdict, as fractions of `pairs`.
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
struct Share {
    /// Pairs the cop wins.
    cop_wins: f64,
    /// Pairs the thief escapes from.
    thief_escapes: f64,
    /// Pairs drawn (the thief evades forever).
    draw: f64,
}

/// A start pair with the longest distance to end.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
struct Longest {
    /// Its distance to end in plies.
    dte: u32,
    /// The cop's cell as [row, column].
    cop: [usize; 2],
    /// The thief's cell as [row, column].
    thief: [usize; 2],
}

/// One row of the results file: a map and what became of it.
#[derive(Serialize, Debug, Clone, Default)]
struct Row {
    /// The map file, as found (the directory given joined with the walk).
    path: String,
    /// `seed` or `movingai`; null when the map could not be read.
    format: Option<&'static str>,
    /// Map width in columns.
    width: Option<usize>,
    /// Map height in rows.
    height: Option<usize>,
    /// Free cells.
    cells: Option<u64>,
    /// Exit cells (from the map or the exit flags).
    exits: Option<u64>,
    /// States: 2 * cells^2.
    states: Option<u64>,
    /// The start's verdict (`cop-wins`, `thief-escapes`, `draw`); null
    /// when the map has no start and none was given.
    result: Option<&'static str>,
    /// The start's distance to end in plies; null for a draw or no start.
    dte: Option<u32>,
    /// Counts over every (cop, thief, turn) state, for the player to move.
    counts: Option<CountsJson>,
    /// Start pairs: (cop, thief) with cop != thief and the first mover of
    /// the rules (the cop unless --thief-first) to move.
    pairs: Option<u64>,
    /// How the start pairs split by verdict (null when there are none).
    share: Option<Share>,
    /// One start pair at the largest distance to end (the smallest state
    /// index among them).
    longest: Option<Longest>,
    /// Engine that solved it: `sequential` for maps run side by side.
    engine: Option<&'static str>,
    /// Threads that solved it.
    threads: Option<usize>,
    /// Wall-clock seconds for this map: load, solve and the sweeps.
    seconds: Option<f64>,
    /// Bytes of per-state arrays the solve allocated (exact, per map).
    array_bytes: Option<u64>,
    /// Peak resident memory of the batch process when the row was written;
    /// reset before each large map, so exact for those and an upper bound
    /// for maps that ran side by side.
    peak_memory_bytes: Option<u64>,
    /// `ok`, `skipped: too large`, or the error (with file:line:column for
    /// malformed maps).
    status: String,
}

/// Column names of the CSV results file; nested JSON fields are flattened.
const CSV_COLUMNS: [&str; 27] = [
    "path",
    "format",
    "width",
    "height",
    "cells",
    "exits",
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
    "engine",
    "threads",
    "seconds",
    "array_bytes",
    "peak_memory_bytes",
    "status",
];

impl Row {
    /// A row for a map that failed with `error`.
    fn failed(path: &str, error: &anyhow::Error) -> Row {
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
            path: path.to_string(),
            // Rows are lines: a multi-line message would tear the file
            // format, so line breaks become spaces.
            status: status.replace(['\n', '\r'], " "),
            ..Row::default()
        }
    }

    /// Whether the map counts as failed for the exit status.
    fn is_failure(&self) -> bool {
        self.status != OK && self.status != TOO_LARGE
    }

    /// The row as one line of `format`, with its newline.
    fn line(&self, format: OutFormat) -> String {
        match format {
            OutFormat::JsonLines => {
                let mut line = serde_json::to_string(self).expect("rows serialize");
                line.push('\n');
                line
            }
            OutFormat::Csv => {
                fn opt<T: Display>(value: Option<T>) -> String {
                    value.map_or_else(String::new, |v| v.to_string())
                }
                let counts = self.counts;
                let fields = [
                    self.path.clone(),
                    opt(self.format),
                    opt(self.width),
                    opt(self.height),
                    opt(self.cells),
                    opt(self.exits),
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
                    opt(self.engine),
                    opt(self.threads),
                    opt(self.seconds),
                    opt(self.array_bytes),
                    opt(self.peak_memory_bytes),
                    self.status.clone(),
                ];
                csv_line(fields.iter().map(String::as_str))
            }
        }
    }
}

/// Joins fields into a CSV line with its newline, quoting as RFC 4180 asks.
fn csv_line<'a>(fields: impl Iterator<Item = &'a str>) -> String {
    let mut line = String::new();
    for (k, field) in fields.enumerate() {
        if k > 0 {
            line.push(',');
        }
        if field.contains([',', '"', '\n', '\r']) {
            line.push('"');
            line.push_str(&field.replace('"', "\"\""));
            line.push('"');
        } else {
            line.push_str(field);
        }
    }
    line.push('\n');
    line
}

/// Splits one CSV line into fields; `None` when a quote is left open.
fn csv_fields(line: &str) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => fields.push(std::mem::take(&mut field)),
            (_, c) => field.push(c),
        }
    }
    if quoted {
        return None;
    }
    fields.push(field);
    Some(fields)
}

/// A row kept from an earlier run (status ok), for `--resume`.
struct Previous {
    /// The map file.
    path: String,
    /// The start's verdict, if any.
    result: Option<String>,
    /// The start's distance to end, if any.
    dte: Option<u64>,
    /// Seconds it took then.
    seconds: Option<f64>,
    /// The row exactly as it was written (without the newline).
    line: String,
}

/// Reads the ok rows of an earlier results file. A last line without its
/// newline was torn by a kill mid-write and is ignored; so is any line that
/// does not parse.
fn read_previous(path: &Path, format: OutFormat) -> Result<Vec<Previous>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let complete = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(end) => &bytes[..=end],
        None => &[][..],
    };
    let text = String::from_utf8_lossy(complete);
    let mut lines = text.lines();
    if format == OutFormat::Csv {
        match lines.next() {
            None => return Ok(Vec::new()),
            Some(header) if header == CSV_COLUMNS.join(",") => {}
            Some(_) => {
                return Err(UsageError(format!(
                    "--resume: {} is not a batch results file of this version \
                     (its header differs); choose another --out or remove it",
                    path.display()
                ))
                .into())
            }
        }
    }
    let mut seen = HashSet::new();
    let mut kept = Vec::new();
    for line in lines {
        let parsed = match format {
            OutFormat::JsonLines => previous_from_json(line),
            OutFormat::Csv => previous_from_csv(line),
        };
        if let Some((previous, status)) = parsed {
            if status == OK && seen.insert(previous.path.clone()) {
                kept.push(previous);
            }
        }
    }
    Ok(kept)
}

/// A JSON Lines row and its status.
fn previous_from_json(line: &str) -> Option<(Previous, String)> {
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    let status = value.get("status")?.as_str()?.to_string();
    Some((
        Previous {
            path: value.get("path")?.as_str()?.to_string(),
            result: value
                .get("result")
                .and_then(|r| r.as_str())
                .map(str::to_string),
            dte: value.get("dte").and_then(serde_json::Value::as_u64),
            seconds: value.get("seconds").and_then(serde_json::Value::as_f64),
            line: line.to_string(),
        },
        status,
    ))
}

/// A CSV row and its status.
fn previous_from_csv(line: &str) -> Option<(Previous, String)> {
    let fields = csv_fields(line)?;
    if fields.len() != CSV_COLUMNS.len() {
        return None;
    }
    let column = |name: &str| {
        let k = CSV_COLUMNS
            .iter()
            .position(|c| *c == name)
            .expect("known column");
        Some(fields[k].as_str()).filter(|f| !f.is_empty())
    };
    Some((
        Previous {
            path: column("path")?.to_string(),
            result: column("result").map(str::to_string),
            dte: column("dte").and_then(|d| d.parse().ok()),
            seconds: column("seconds").and_then(|s| s.parse().ok()),
            line: line.to_string(),
        },
        column("status")?.to_string(),
    ))
}

/// The results file, appended to by every worker; each row is synced to
/// disk before the next so a crash or kill loses at most the row in flight.
struct Sink {
    file: Mutex<File>,
    format: OutFormat,
}

impl Sink {
    /// Starts the results file: empty but for the CSV header, or with
    /// `keep` (earlier ok rows) when resuming. The rewrite goes through a
    /// temporary file so a kill during it leaves the old file intact.
    fn create(path: &Path, format: OutFormat, keep: &[Previous]) -> Result<Sink> {
        write_atomically(path, |out| {
            if format == OutFormat::Csv {
                out.write_all(csv_line(CSV_COLUMNS.iter().copied()).as_bytes())?;
            }
            for previous in keep {
                out.write_all(previous.line.as_bytes())?;
                out.write_all(b"\n")?;
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
    fn append(&self, row: &Row) -> std::io::Result<()> {
        let line = row.line(self.format);
        let mut file = self.file.lock().expect("results file lock");
        file.write_all(line.as_bytes())?;
        file.sync_data()
    }
}

/// What the walk found.
#[derive(Default)]
struct Found {
    /// Map files, sorted and without duplicates.
    maps: Vec<PathBuf>,
    /// Paths that could not be walked, with the error (they become rows).
    broken: Vec<(PathBuf, String)>,
    /// Files in walked directories that are not maps.
    ignored: usize,
}

/// Collects the maps named by `paths`: files as given, directories walked.
fn discover(paths: &[PathBuf]) -> Found {
    let mut found = Found::default();
    let mut visited = HashSet::new();
    for path in paths {
        if path.is_dir() {
            walk(path, &mut visited, &mut found);
        } else {
            // Missing and unreadable files are taken too: loading them gives
            // the row its error.
            found.maps.push(path.clone());
        }
    }
    found.maps.sort();
    found.maps.dedup();
    found
}

/// Walks `dir` recursively in sorted order. Symbolic links are followed,
/// but each directory is entered once (by canonical path), so link loops
/// end and a directory linked twice is not solved twice.
fn walk(dir: &Path, visited: &mut HashSet<PathBuf>, found: &mut Found) {
    let canonical = match std::fs::canonicalize(dir) {
        Ok(c) => c,
        Err(e) => {
            found
                .broken
                .push((dir.to_path_buf(), format!("{}: {e}", dir.display())));
            return;
        }
    };
    if !visited.insert(canonical) {
        return;
    }
    let entries = match std::fs::read_dir(dir).and_then(|it| it.collect::<Result<Vec<_>, _>>()) {
        Ok(entries) => entries,
        Err(e) => {
            found.broken.push((
                dir.to_path_buf(),
                format!("{}: cannot read directory: {e}", dir.display()),
            ));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.iter().map(std::fs::DirEntry::path).collect();
    paths.sort();
    for path in paths {
        // `metadata` follows links; a dangling link fails and is treated
        // like an unreadable file of its extension.
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => walk(&path, visited, found),
            _ if is_map_file(&path) => found.maps.push(path),
            _ => found.ignored += 1,
        }
    }
}

/// The content check for files met in a directory walk.
///
/// A `.map` file is taken unless it is readable text whose first line is
/// neither a MovingAI `type` line nor a seed header: the extension says it
/// is a map, so an empty, binary or unreadable one is reported, not hidden.
/// A `.txt` file is generic text, so it is taken only when its first line
/// is a seed header `ROWS COLUMNS` (or a `type` line).
fn is_map_file(path: &Path) -> bool {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let is_map = match extension.as_deref() {
        Some("map") => true,
        Some("txt") => false,
        _ => return false,
    };
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    let read = File::open(path).and_then(|f| f.take(SNIFF_BYTES as u64).read_to_end(&mut head));
    if read.is_err() {
        return is_map;
    }
    let binary =
        head.contains(&0) || std::str::from_utf8(&head).is_err_and(|e| e.error_len().is_some());
    if head.iter().all(u8::is_ascii_whitespace) || binary {
        return is_map;
    }
    let first = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = String::from_utf8_lossy(first);
    let tokens: Vec<&str> = first.split_whitespace().collect();
    let seed_header = tokens.len() == 2 && tokens.iter().all(|t| t.parse::<u64>().is_ok());
    seed_header || first.trim_start().starts_with("type")
}

/// A map waiting to be solved, with its size.
struct Job {
    path: PathBuf,
    states: u64,
}

/// Loads a map to learn its size; returns the job, or the finished row
/// when it cannot be loaded or placed or exceeds `max_states`.
fn plan(path: &Path, game: &GameArgs, max_states: Option<u64>) -> Result<Job, Box<Row>> {
    let name = path.display().to_string();
    let failed = |e: retrograde::Error| Box::new(Row::failed(&name, &anyhow::Error::from(e)));
    let map = load_map(path).map_err(failed)?;
    // Placement errors (a --cop outside this map) are found here, before
    // any map is solved.
    Board::new(&map, &game.placement()).map_err(failed)?;
    let cells = map.grid.cells() as u64;
    let states = 2 * cells * cells;
    if max_states.is_some_and(|max| states > max) {
        return Err(Box::new(Row {
            path: name,
            format: Some(map.format.as_str()),
            width: Some(map.grid.width()),
            height: Some(map.grid.height()),
            cells: Some(cells),
            states: Some(states),
            status: TOO_LARGE.to_string(),
            ..Row::default()
        }));
    }
    Ok(Job {
        path: path.to_path_buf(),
        states,
    })
}

/// Solves one map through [`solve_map`] and adds the whole-map sweeps.
/// Runs inside the rayon pool whose threads it may use for the sweeps.
fn solve_job(job: &Job, game: &GameArgs, config: &EngineConfig, reporter: &Reporter) -> Row {
    let started = Instant::now();
    let name = job.path.display().to_string();
    let solved = match solve_map(&job.path, game, config, false, reporter) {
        Ok(solved) => solved,
        Err(e) => return Row::failed(&name, &e),
    };
    let (pairs, share, longest) = start_pairs(&solved.game, &solved.solution);
    let report = solved.report;
    Row {
        path: name,
        format: Some(report.format),
        width: Some(report.width),
        height: Some(report.height),
        cells: Some(report.cells),
        exits: Some(report.exits),
        states: Some(report.states),
        result: report.result,
        dte: report.dte,
        counts: Some(report.counts),
        pairs: Some(pairs),
        share,
        longest,
        engine: Some(report.engine),
        threads: Some(report.threads),
        seconds: Some(started.elapsed().as_secs_f64()),
        array_bytes: Some(solved.solution.bytes()),
        peak_memory_bytes: peak_memory(),
        status: OK.to_string(),
    }
}

/// Tallies the start pairs by verdict (a parallel sweep over cop cells in
/// the current pool) and finds a deepest one.
fn start_pairs(game: &CopsAndThief, solution: &Solution) -> (u64, Option<Share>, Option<Longest>) {
    let turn = if game.rules().thief_first {
        Turn::Thief
    } else {
        Turn::Cop
    };
    let cells = game.cells() as u32;
    let tally = (0..cells)
        .into_par_iter()
        .map(|cop| {
            let mut tally = [0u64; 3];
            for thief in (0..cells).filter(|&t| t != cop) {
                let verdict = game.verdict(solution.outcome(game.state(cop, thief, turn)));
                tally[verdict_index(verdict)] += 1;
            }
            tally
        })
        .reduce(|| [0; 3], |a, b| [a[0] + b[0], a[1] + b[1], a[2] + b[2]]);
    let pairs: u64 = tally.iter().sum();
    let share = (pairs > 0).then(|| {
        let fraction = |v: Verdict| tally[verdict_index(v)] as f64 / pairs as f64;
        Share {
            cop_wins: fraction(Verdict::CopWins),
            thief_escapes: fraction(Verdict::ThiefEscapes),
            draw: fraction(Verdict::Draw),
        }
    });
    let grid = &game.board().grid;
    let longest = solution.deepest(turn as usize).map(|(dte, s)| {
        let (cop, thief, _) = game.decode(s);
        let (cop, thief) = (grid.coords(cop), grid.coords(thief));
        Longest {
            dte: dte.plies(),
            cop: [cop.0, cop.1],
            thief: [thief.0, thief.1],
        }
    });
    (pairs, share, longest)
}

/// Slot of a verdict in a tally.
fn verdict_index(verdict: Verdict) -> usize {
    match verdict {
        Verdict::CopWins => 0,
        Verdict::ThiefEscapes => 1,
        Verdict::Draw => 2,
    }
}

/// Progress over maps: a bar on a terminal, a line per map when stderr is
/// piped, nothing with `--quiet`. Errors go to stderr in every mode.
enum MapsProgress {
    /// Only errors are printed.
    Quiet,
    /// A bar over maps, plus a bar over states for each large map.
    Bar {
        multi: MultiProgress,
        maps: ProgressBar,
    },
    /// One line per finished map.
    Plain { total: usize, done: AtomicUsize },
}

impl MapsProgress {
    /// Picks the mode for stderr.
    fn new(quiet: bool, total: usize) -> MapsProgress {
        if quiet {
            MapsProgress::Quiet
        } else if std::io::stderr().is_terminal() {
            let multi = MultiProgress::new();
            let maps = multi.add(ProgressBar::new(total as u64));
            maps.set_style(
                ProgressStyle::with_template("maps {bar:30} {pos}/{len} ({elapsed}) {wide_msg}")
                    .expect("valid template"),
            );
            MapsProgress::Bar { multi, maps }
        } else {
            MapsProgress::Plain {
                total,
                done: AtomicUsize::new(0),
            }
        }
    }

    /// Shows which map is being solved.
    fn started(&self, path: &Path) {
        if let MapsProgress::Bar { maps, .. } = self {
            maps.set_message(path.display().to_string());
        }
    }

    /// A reporter over states for a large map, drawn under the maps bar.
    fn states(&self) -> Reporter {
        match self {
            MapsProgress::Quiet => Reporter::Quiet,
            MapsProgress::Bar { multi, .. } => {
                let reporter = Reporter::new(false, "states");
                if let Reporter::Bar(bar) = &reporter {
                    multi.add(bar.clone());
                }
                reporter
            }
            MapsProgress::Plain { .. } => Reporter::new(false, "states"),
        }
    }

    /// Records a finished map.
    fn finished(&self, row: &Row) {
        match self {
            MapsProgress::Quiet if row.is_failure() => eprintln!("error: {}", row.status),
            MapsProgress::Quiet => {}
            MapsProgress::Bar { maps, .. } => {
                if row.is_failure() {
                    maps.println(format!("error: {}", row.status));
                }
                maps.inc(1);
            }
            MapsProgress::Plain { total, done } => {
                let done = done.fetch_add(1, Ordering::Relaxed) + 1;
                let what = match (row.result, row.dte) {
                    _ if row.status != OK => row.status.clone(),
                    (Some(result), Some(1)) => format!("{result} in 1 ply"),
                    (Some(result), Some(dte)) => format!("{result} in {dte} plies"),
                    (Some(result), None) => result.to_string(),
                    (None, _) => "solved (no start)".to_string(),
                };
                let seconds = row
                    .seconds
                    .map_or_else(String::new, |s| format!(" ({s:.2} s)"));
                eprintln!("[{done}/{total}] {}: {what}{seconds}", row.path);
            }
        }
    }

    /// Removes the bar before the summary is printed.
    fn finish(&self) {
        if let MapsProgress::Bar { maps, .. } = self {
            maps.finish_and_clear();
        }
    }
}

/// Collects rows: appends each to the results file, reports it, and keeps
/// it for the summary. The first write error stops the batch.
struct Collector<'a> {
    sink: &'a Sink,
    progress: &'a MapsProgress,
    rows: Mutex<Vec<Row>>,
    error: Mutex<Option<std::io::Error>>,
    stop: AtomicBool,
}

impl Collector<'_> {
    /// Takes one finished row.
    fn add(&self, row: Row) {
        if let Err(e) = self.sink.append(&row) {
            self.stop.store(true, Ordering::Relaxed);
            self.error.lock().expect("error lock").get_or_insert(e);
            return;
        }
        self.progress.finished(&row);
        self.rows.lock().expect("rows lock").push(row);
    }

    /// Whether a write failed and no more maps should start.
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Runs `batch`; returns the exit status.
pub(crate) fn run(args: BatchArgs) -> Result<i32, Failure> {
    let format = OutFormat::from_path(&args.out)?;
    let config = args.engine.resolve_grid()?;
    let batch_started = Instant::now();

    let found = discover(&args.paths);
    if found.maps.is_empty() && found.broken.is_empty() {
        return Err(UsageError(
            "no maps found: directories are searched for .map files and for .txt files \
             whose first line is a seed header `ROWS COLUMNS`"
                .to_string(),
        )
        .into());
    }
    let previous = if args.resume {
        read_previous(&args.out, format)?
    } else {
        Vec::new()
    };
    let sink = Sink::create(&args.out, format, &previous)?;
    let done: HashSet<&str> = previous.iter().map(|p| p.path.as_str()).collect();
    let todo: Vec<&PathBuf> = found
        .maps
        .iter()
        .filter(|p| !done.contains(p.display().to_string().as_str()))
        .collect();

    let progress = MapsProgress::new(args.quiet, todo.len() + found.broken.len());
    let collector = Collector {
        sink: &sink,
        progress: &progress,
        rows: Mutex::new(Vec::new()),
        error: Mutex::new(None),
        stop: AtomicBool::new(false),
    };
    for (path, error) in &found.broken {
        collector.add(Row::failed(
            &path.display().to_string(),
            &anyhow::anyhow!("{error}"),
        ));
    }

    let workers = config.threads.max(1);
    // Sizing parses every map once; it runs on all workers since parsing a
    // large MovingAI map is not free.
    let plans: Vec<Result<Job, Box<Row>>> = worker_pool(workers)?.install(|| {
        todo.par_iter()
            .map(|path| plan(path, &args.game, args.max_states))
            .collect()
    });
    let mut small = Vec::new();
    let mut large = Vec::new();
    for planned in plans {
        match planned {
            Err(row) => collector.add(*row),
            Ok(job) if job.states > args.large_states && workers > 1 => large.push(job),
            Ok(job) => small.push(job),
        }
    }
    // Largest first: the long maps start early and the short ones fill in
    // around them, which keeps every worker busy to the end.
    small.sort_by(|a, b| b.states.cmp(&a.states).then_with(|| a.path.cmp(&b.path)));
    large.sort_by(|a, b| a.path.cmp(&b.path));

    let small_config = EngineConfig {
        engine: if config.engine == Engine::Parallel {
            Engine::Sequential
        } else {
            config.engine
        },
        threads: 1,
        ..config.clone()
    };
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| -> Result<()> {
        let (small, next, collector, progress) = (&small, &next, &collector, &progress);
        let (game, small_config) = (&args.game, &small_config);
        for _ in 0..workers.min(small.len()) {
            // One-thread pools: any rayon call inside a solve (the sweeps)
            // stays on this worker instead of stealing work from, or being
            // stolen by, the other maps.
            let own = worker_pool(1)?;
            scope.spawn(move || {
                own.install(|| loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= small.len() || collector.stopped() {
                        break;
                    }
                    progress.started(&small[k].path);
                    collector.add(solve_job(&small[k], game, small_config, &Reporter::Quiet));
                });
            });
        }
        Ok(())
    })?;

    let all = worker_pool(workers)?;
    for job in &large {
        if collector.stopped() {
            break;
        }
        progress.started(&job.path);
        // Resetting the high-water mark makes this map's peak memory its
        // own (Linux; harmless where it fails).
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        let reporter = progress.states();
        let row = all.install(|| solve_job(job, &args.game, &config, &reporter));
        collector.add(row);
    }
    progress.finish();
    if let Some(e) = collector.error.lock().expect("error lock").take() {
        return Err(anyhow::Error::new(e)
            .context(format!("cannot append to {}", args.out.display()))
            .into());
    }

    let rows = collector.rows.into_inner().expect("rows lock");
    let failed = rows.iter().any(Row::is_failure);
    let resumed: Vec<&Previous> = previous
        .iter()
        .filter(|p| found.maps.iter().any(|m| m.display().to_string() == p.path))
        .collect();
    let stdout = std::io::stdout();
    print_summary(
        &mut stdout.lock(),
        &rows,
        &resumed,
        found.ignored,
        batch_started.elapsed().as_secs_f64(),
    )?;
    Ok(i32::from(failed))
}

/// Prints one line per map (sorted by path) and the totals.
fn print_summary(
    out: &mut impl Write,
    rows: &[Row],
    resumed: &[&Previous],
    ignored: usize,
    seconds: f64,
) -> std::io::Result<()> {
    let dash = || "-".to_string();
    let mut lines: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            [
                r.path.clone(),
                r.result.map_or_else(dash, str::to_string),
                r.dte.map_or_else(dash, |d| d.to_string()),
                r.seconds.map_or_else(dash, |s| format!("{s:.3}")),
                r.status.clone(),
            ]
        })
        .chain(resumed.iter().map(|p| {
            [
                p.path.clone(),
                p.result.clone().unwrap_or_else(dash),
                p.dte.map_or_else(dash, |d| d.to_string()),
                p.seconds.map_or_else(dash, |s| format!("{s:.3}")),
                "ok (resumed)".to_string(),
            ]
        }))
        .collect();
    lines.sort_by(|a, b| Path::new(&a[0]).cmp(Path::new(&b[0])));
    let header = ["path", "result", "dte", "seconds", "status"].map(str::to_string);
    let widths: Vec<usize> = (0..4)
        .map(|k| {
            lines
                .iter()
                .chain([&header])
                .map(|l| l[k].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for line in [&header].into_iter().chain(&lines) {
        writeln!(
            out,
            "{:<w0$}  {:<w1$}  {:>w2$}  {:>w3$}  {}",
            line[0],
            line[1],
            line[2],
            line[3],
            line[4],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3],
        )?;
    }
    let solved = rows.iter().filter(|r| r.status == OK).count();
    let skipped = rows.iter().filter(|r| r.status == TOO_LARGE).count();
    let failed = rows.iter().filter(|r| r.is_failure()).count();
    writeln!(
        out,
        "{} maps: {solved} solved, {failed} failed, {skipped} skipped (too large), \
         {} already done (--resume); {ignored} other files ignored; {seconds:.2} s",
        rows.len() + resumed.len(),
        resumed.len(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_round_trip() {
        let line = csv_line(["a,b", "say \"hi\"", "", "plain"].into_iter());
        assert_eq!(line, "\"a,b\",\"say \"\"hi\"\"\",,plain\n");
        let fields = csv_fields(line.trim_end()).unwrap();
        assert_eq!(fields, ["a,b", "say \"hi\"", "", "plain"]);
        assert_eq!(csv_fields("\"open,"), None);
    }

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
