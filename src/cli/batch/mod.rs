//! `retrograde batch PATH... --out FILE`: solve every map under some
//! directories with the same flags, one result row per map.
//!
//! The batch follows ripgrep's rule: a bad map becomes a row carrying its
//! error, the batch carries on, and the exit status is decided at the end
//! (0 all solved, 1 some map failed, 2 usage error). Rows are appended to
//! `--out` and synced as maps finish, so an interrupted batch loses nothing
//! and `--resume` picks up where it stopped.
//!
//! By concern: `discover` finds the maps, `results` is the row schema and
//! the results file (written and read back), `schedule` sizes and runs the
//! maps; progress goes through `cli::progress`.

mod discover;
mod results;
mod schedule;

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use clap::Args as ClapArgs;

use super::common::{EngineFlags, GameArgs, UsageError};
use super::output::OutputTarget;
use super::progress::MapsProgress;
use super::Failure;
use discover::discover;
use results::{read_previous, OutFormat, Previous, Row, Sink, OK, TOO_LARGE};
use schedule::{run_all, Batch, Collector};

/// Default for `--large-states`: above this a map gets every thread.
/// 5 * 10^7 states take about a second on one core and ~65 MB, so running
/// a few such maps side by side is cheap while larger ones are better
/// split across threads than queued behind each other.
const LARGE_STATES: &str = "5e7";

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
    /// Counts take `5e7`, `50M` or `2G` (decimal) as well as digits.
    #[arg(long, value_name = "N", value_parser = crate::cli::numbers::parse_count)]
    max_states: Option<u64>,
    /// Maps with more than N states are solved one at a time by the
    /// parallel engine on all threads; smaller maps run side by side, one
    /// thread each.
    #[arg(long, value_name = "N", default_value = LARGE_STATES, value_parser = crate::cli::numbers::parse_count)]
    large_states: u64,
    /// Save each map's table (`solve --save`) in DIR, named after the map
    /// file (`NAME.rtb`; maps with the same name in different folders get
    /// their path in the name). A map whose table cannot be written is a
    /// failed row.
    #[arg(long, value_name = "DIR")]
    save_dir: Option<PathBuf>,
    /// Keep distances to end (2 bytes per state while solving); with
    /// --save-dir the tables store them too.
    #[arg(long)]
    dte_table: bool,
    /// No progress output (errors are still reported on stderr).
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `batch`; returns the exit status.
pub(crate) fn run(args: BatchArgs) -> Result<i32, Failure> {
    let format = OutFormat::from_path(&args.out)?;
    let config = args.engine.resolve_grid()?;
    // Checked (and dropped) before any map is solved: rows are appended to
    // the file and --resume reads it back, so it must be a regular file.
    let target = OutputTarget::check("--out", &args.out)?;
    if !target.is_file() {
        return Err(UsageError(format!(
            "--out {}: expected a regular file (rows are appended to it and --resume reads it back)",
            target.path().display()
        ))
        .into());
    }
    drop(target);
    let flags = args.game.answer_flags().join(" ");
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
        read_previous(&args.out, format, &flags)?
    } else {
        Vec::new()
    };
    let sink = Sink::create(&args.out, format, &previous)?;
    // Rows are keyed by the raw path, so names that are not UTF-8 never
    // collide.
    let done: HashSet<&Path> = previous.iter().map(|p| p.key.as_path()).collect();
    let todo: Vec<&PathBuf> = found
        .maps
        .iter()
        .filter(|p| !done.contains(p.as_path()))
        .collect();

    let progress = MapsProgress::new(args.quiet, todo.len() + found.broken.len());
    let collector = Collector::new(&sink, &progress);
    for (path, error) in &found.broken {
        collector.add(Row::failed(path, &flags, &anyhow::anyhow!("{error}")));
    }
    if let Some(dir) = &args.save_dir {
        if !dir.is_dir() {
            return Err(
                UsageError(format!("--save-dir {}: not a directory", dir.display())).into(),
            );
        }
    }
    let tables = args.save_dir.as_deref().map(|dir| table_names(dir, &todo));
    let batch = Batch {
        tables: tables.as_ref(),
        dte_table: args.dte_table,
        game: &args.game,
        flags: &flags,
        config: &config,
        max_states: args.max_states,
        large_states: args.large_states,
    };
    run_all(&batch, &todo, &collector)?;
    let rows = collector
        .finish()
        .with_context(|| format!("cannot append to {}", args.out.display()))?;
    let failed = rows.iter().any(Row::is_failure);
    let resumed: Vec<&Previous> = previous
        .iter()
        .filter(|p| found.maps.contains(&p.key))
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

/// The table file of every map: `DIR/STEM.rtb`, or with the map's path
/// folded into the name when two maps share a stem.
fn table_names(dir: &Path, maps: &[&PathBuf]) -> HashMap<PathBuf, PathBuf> {
    let stem = |p: &Path| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let mut uses: HashMap<String, usize> = HashMap::new();
    for p in maps {
        *uses.entry(stem(p)).or_default() += 1;
    }
    maps.iter()
        .map(|p| {
            let name = if uses[&stem(p)] > 1 {
                p.with_extension("")
                    .to_string_lossy()
                    .chars()
                    .map(|c| {
                        if c.is_alphanumeric() || c == '-' || c == '.' {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect::<String>()
                    .trim_start_matches(['.', '_'])
                    .to_string()
            } else {
                stem(p)
            };
            ((*p).clone(), dir.join(format!("{name}.rtb")))
        })
        .collect()
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
    let percent = |share: Option<f64>| share.map_or_else(dash, |s| format!("{:.1}%", 100.0 * s));
    let mut lines: Vec<[String; 7]> = rows
        .iter()
        .map(|r| {
            [
                r.path.clone(),
                r.exits.map_or_else(dash, |e| e.to_string()),
                percent(r.share.map(|s| s.cop_wins)),
                r.result.map_or_else(dash, str::to_string),
                r.dte.map_or_else(dash, |d| d.to_string()),
                r.seconds.map_or_else(dash, |s| format!("{s:.3}")),
                r.status.clone(),
            ]
        })
        .chain(resumed.iter().map(|p| {
            [
                p.path.clone(),
                p.exits.map_or_else(dash, |e| e.to_string()),
                percent(p.cop_wins),
                p.result.clone().unwrap_or_else(dash),
                p.dte.map_or_else(dash, |d| d.to_string()),
                p.seconds.map_or_else(dash, |s| format!("{s:.3}")),
                "ok (resumed)".to_string(),
            ]
        }))
        .collect();
    lines.sort_by(|a, b| Path::new(&a[0]).cmp(Path::new(&b[0])));
    let header = [
        "map", "exits", "cop wins", "result", "dte", "seconds", "status",
    ]
    .map(str::to_string);
    let widths: Vec<usize> = (0..6)
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
            "{:<w0$}  {:>w1$}  {:>w2$}  {:<w3$}  {:>w4$}  {:>w5$}  {}",
            line[0],
            line[1],
            line[2],
            line[3],
            line[4],
            line[5],
            line[6],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3],
            w4 = widths[4],
            w5 = widths[5],
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
