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
//! writes the results file, `resume` reads an earlier one back for
//! `--resume`, `scen` takes the `--scen` pairs, `schedule` sizes and runs
//! the maps, `plan` answers `--plan` (what each would cost, nothing
//! solved), `several` runs `--cops K` and `--copnumber` (each map's
//! several-cops game or cop number, a row each); progress goes through
//! `cli::progress`.

mod discover;
mod plan;
mod results;
mod resume;
mod scen;
mod schedule;
mod several;

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use clap::Args as ClapArgs;

use super::common::{rule_flags, EngineFlags, GameArgs, KCopsArgs, UsageError};
use super::output::OutputTarget;
use super::progress::MapsProgress;
use crate::cli::failure::Failure;
use discover::discover;
use plan::plan_only;
use results::{OutFormat, Previous, Row, RowKey, Sink, OK, TOO_LARGE};
use resume::read_previous;
use scen::Pairs;
use schedule::{plan_all, run_all, Batch, Collector};

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
    #[arg(long, value_name = "FILE", required_unless_present = "plan")]
    out: Option<PathBuf>,
    /// Print per map what its solve would cost (states, memory, engine,
    /// whether the arrays go to scratch files, whether it fits) without
    /// solving or writing --out.
    #[arg(long)]
    plan: bool,
    /// With --plan: one JSON object per map (JSON Lines) instead of text.
    #[arg(long, requires = "plan")]
    json: bool,
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
    /// Start pairs from a MovingAI scenario file (repeatable): each
    /// entry's start is the thief, its goal the cop, and it applies to the
    /// map of PATHs with the file name the entry gives. Only maps some
    /// entry names are solved, each once; one row per pair.
    #[arg(long, value_name = "FILE.scen", conflicts_with_all = ["cop", "thief"])]
    scen: Vec<PathBuf>,
    /// No progress output (errors are still reported on stderr).
    #[arg(long, short)]
    quiet: bool,
    /// Several cops, their speeds, lazy cops and graphs, as `solve --cops
    /// K` takes them: each map's row holds the summary over every start
    /// placement (`placements`, `share`, `longest_placement`,
    /// `best_placement`).
    #[command(flatten, next_help_heading = "Several cops")]
    kcops: KCopsArgs,
    /// Each map's cop number, placement and capture time, as `copnumber
    /// MAP` gives them (rules, exits, speeds and --lazy as it takes them);
    /// --memory caps each solve and ends a map's search at the first
    /// number of cops that would not fit (a failed row).
    #[arg(long, conflicts_with = "cops")]
    copnumber: bool,
    /// With --copnumber: most cops tried (1 to 4); a map needing more has
    /// a null cop number.
    #[arg(long, default_value_t = 4, requires = "copnumber", value_parser = clap::value_parser!(u32).range(1..=4))]
    max_cops: u32,
}

/// Runs `batch`; returns the exit status.
pub(crate) fn run(args: BatchArgs) -> Result<i32, Failure> {
    let config = args.engine.resolve_grid()?;
    // Advice, not an error: --quiet leaves it out.
    if args.max_states.is_none() && !args.plan && !args.quiet {
        say!(
            "warning: no --max-states: every map found is solved, however large (see what each costs with --plan)"
        );
    }
    let several = several::active(&args);
    if several {
        several::check(&args)?;
    }
    if args.plan {
        return plan_only(&args, &config);
    }
    let out = args
        .out
        .clone()
        .expect("clap requires --out without --plan");
    let format = OutFormat::from_path(&out)?;
    let out_name = out.clone();
    // Checked (and dropped) before any map is solved: rows are appended to
    // the file and --resume reads it back, so it must be a regular file.
    let target = OutputTarget::check("--out", &out)?;
    if !target.is_file() {
        return Err(UsageError(format!(
            "--out {}: expected a regular file (rows are appended to it and --resume reads it back)",
            target.path().display()
        ))
        .into());
    }
    drop(target);
    let flags = if several {
        // Every --cop (the cops of the several-cops game), the rules, and
        // the cops, speeds and kind of input.
        let mut words = args.game.placement_flags(true);
        words.extend(rule_flags(args.game.rules()).into_iter().map(String::from));
        words.extend(several::flags(&args));
        words.join(" ")
    } else {
        args.game.answer_flags().join(" ")
    };
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
        read_previous(&out, format, &flags)?
    } else {
        Vec::new()
    };
    // With --scen the rows are the pairs of the maps the entries name;
    // without, one row per map found.
    let mut pairs = if args.scen.is_empty() {
        None
    } else {
        let maps = found.maps.iter().chain(found.broken.iter().map(|b| &b.0));
        Some(Pairs::load(&args.scen, maps)?)
    };
    let wanted: HashSet<RowKey> = match &pairs {
        Some(pairs) => pairs.keys(),
        None => found
            .maps
            .iter()
            .map(|map| RowKey {
                map: map.clone(),
                pair: None,
            })
            .collect(),
    };
    // Rows are keyed by the raw path (and the pair), so names that are not
    // UTF-8 never collide and a whole-map row never stands for a pair.
    let done: HashSet<&RowKey> = previous.iter().map(|p| &p.key).collect();
    let (todo, broken, unnamed): (Vec<&PathBuf>, Vec<&(PathBuf, String)>, usize) = match &mut pairs
    {
        Some(pairs) => {
            let unnamed = found.maps.len() + found.broken.len() - pairs.maps().count();
            pairs.forget(&done);
            let named: HashSet<&PathBuf> = pairs.maps().collect();
            let todo = found.maps.iter().filter(|m| named.contains(m)).collect();
            let broken = found
                .broken
                .iter()
                .filter(|b| named.contains(&b.0))
                .collect();
            (todo, broken, unnamed)
        }
        None => {
            let todo = found
                .maps
                .iter()
                .filter(|p| {
                    !done.contains(&RowKey {
                        map: (*p).clone(),
                        pair: None,
                    })
                })
                .collect();
            (todo, found.broken.iter().collect(), 0)
        }
    };
    if let Some(dir) = &args.save_dir {
        super::common::existing_dir("--save-dir", dir)?;
    }
    let tables = args.save_dir.as_deref().map(|dir| table_names(dir, &todo));
    // The engine's rule (no distance table from the sweep engine) refuses
    // the whole batch before any map, not each map in turn.
    retrograde::SolveOptions::new(config.engine)
        .with_dte_table(args.dte_table)
        .check_engine()?;
    let batch = Batch {
        tables: tables.as_ref(),
        // Every pair's distance comes from the table (an engine that keeps
        // none gives values only), as in `solve --scen`.
        dte_table: args.dte_table || (pairs.is_some() && config.engine.keeps_distances()),
        game: &args.game,
        flags: &flags,
        config: &config,
        max_states: args.max_states,
        large_states: args.large_states,
        pairs: pairs.as_ref(),
    };
    // Every map is read (and every pair checked) before the results file
    // is touched: a bad scenario entry leaves it as it was.
    let plans = if several {
        Vec::new()
    } else {
        plan_all(&batch, &todo)?
    };
    let sink = Sink::create(&out, format, &previous)?;
    let progress = MapsProgress::new(args.quiet, todo.len() + broken.len());
    let collector = Collector::new(&sink, &progress);
    for (path, error) in broken {
        let row = Row::failed(path, &flags, &anyhow::anyhow!("{error}"));
        collector.add(match &pairs {
            Some(pairs) => pairs.spread(path, row),
            None => vec![row],
        });
    }
    // Ctrl-C (or SIGTERM, SIGHUP) lets the maps in flight finish and their
    // rows land, then the summary of what is done and how to go on; a
    // second one ends the batch at once (the rows written so far stay).
    super::output::defer_stop_signals_saying(
        "stopping after the maps in flight (their rows are kept); press Ctrl-C again to stop at once",
    );
    if several {
        several::run_maps(&args, &config, &flags, &todo, &collector, &progress)?;
    } else {
        run_all(&batch, plans, &collector)?;
    }
    let rows = collector
        .finish()
        .with_context(|| format!("cannot append to {}", out.display()))?;
    let failed = rows.iter().any(Row::is_failure);
    let resumed: Vec<&Previous> = previous
        .iter()
        .filter(|p| wanted.contains(&p.key))
        .collect();
    let stdout = std::io::stdout();
    let totals = Totals {
        ignored: found.ignored,
        unnamed,
        seconds: batch_started.elapsed().as_secs_f64(),
    };
    let mut out = stdout.lock();
    if pairs.is_some() {
        print_pairs(&mut out, &rows, &resumed, &totals, args.game.xy)?;
    } else if args.copnumber {
        several::print_cop_numbers(&mut out, &rows, &resumed, &totals, args.max_cops)?;
    } else {
        print_summary(&mut out, &rows, &resumed, &totals)?;
    }
    if let Some(signal) = super::output::stop_requested() {
        out.flush()?;
        let finished: HashSet<&str> = rows.iter().map(|r| r.path.as_str()).collect();
        let left = todo
            .iter()
            .filter(|m| !finished.contains(m.display().to_string().as_str()))
            .count();
        say!(
            "interrupted: {left} of {} maps not solved; their rows are not in {}: \
             run the same command with --resume to solve them",
            todo.len(),
            out_name.display()
        );
        return Ok(128 + signal);
    }
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

/// What the last line of a batch counts besides its rows.
struct Totals {
    /// Files in walked directories that are not maps.
    ignored: usize,
    /// Maps no `--scen` entry names (not solved).
    unnamed: usize,
    /// The whole batch's wall-clock time.
    seconds: f64,
}

/// Writes `lines` under `header` in aligned columns (`right`: which are
/// right-aligned), sorted by `sort` keys; the last column is not padded.
fn write_table<K: Ord>(
    out: &mut impl Write,
    header: &[&str],
    right: &[bool],
    mut lines: Vec<(K, Vec<String>)>,
) -> std::io::Result<()> {
    lines.sort_by(|a, b| a.0.cmp(&b.0));
    let header: Vec<String> = header.iter().map(|h| (*h).to_string()).collect();
    let all: Vec<&Vec<String>> = std::iter::once(&header)
        .chain(lines.iter().map(|l| &l.1))
        .collect();
    let last = header.len() - 1;
    let widths: Vec<usize> = (0..last)
        .map(|k| all.iter().map(|l| l[k].chars().count()).max().unwrap_or(0))
        .collect();
    for line in all {
        let mut text = String::new();
        for (k, cell) in line.iter().enumerate() {
            if k == last {
                text.push_str(cell);
            } else if right[k] {
                text.push_str(&format!("{cell:>w$}  ", w = widths[k]));
            } else {
                text.push_str(&format!("{cell:<w$}  ", w = widths[k]));
            }
        }
        writeln!(out, "{text}")?;
    }
    Ok(())
}

/// Rows solved, failed and skipped as too large.
fn tally(rows: &[Row]) -> [usize; 3] {
    let count = |keep: fn(&Row) -> bool| rows.iter().filter(|r| keep(r)).count();
    [
        count(|r| r.status == OK),
        count(Row::is_failure),
        count(|r| r.status == TOO_LARGE),
    ]
}

fn dash() -> String {
    "-".to_string()
}

/// Prints one line per map (sorted by path) and the totals.
fn print_summary(
    out: &mut impl Write,
    rows: &[Row],
    resumed: &[&Previous],
    totals: &Totals,
) -> std::io::Result<()> {
    let percent = |share: Option<f64>| share.map_or_else(dash, |s| format!("{:.1}%", 100.0 * s));
    let lines = rows
        .iter()
        .map(|r| {
            vec![
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
            vec![
                p.path.clone(),
                p.exits.map_or_else(dash, |e| e.to_string()),
                percent(p.cop_wins),
                p.result.clone().unwrap_or_else(dash),
                p.dte.map_or_else(dash, |d| d.to_string()),
                p.seconds.map_or_else(dash, |s| format!("{s:.3}")),
                "ok (resumed)".to_string(),
            ]
        }));
    print_by_map(
        out,
        &[
            "map", "exits", "cop wins", "result", "dte", "seconds", "status",
        ],
        &[false, true, true, false, true, true],
        lines,
        rows,
        resumed,
        totals,
    )
}

/// `lines` (the first cell of each the map's path) in aligned columns
/// under `header`, sorted by path, and the totals line: the table of a
/// batch by map, of solves or of cop numbers.
fn print_by_map(
    out: &mut impl Write,
    header: &[&str],
    right: &[bool],
    lines: impl Iterator<Item = Vec<String>>,
    rows: &[Row],
    resumed: &[&Previous],
    totals: &Totals,
) -> std::io::Result<()> {
    let lines = lines.map(|line| (PathBuf::from(&line[0]), line)).collect();
    write_table(out, header, right, lines)?;
    let [solved, failed, skipped] = tally(rows);
    writeln!(
        out,
        "{} maps: {solved} solved, {failed} failed, {skipped} skipped (too large), \
         {} already done (--resume); {} other files ignored; {:.2} s",
        rows.len() + resumed.len(),
        resumed.len(),
        totals.ignored,
        totals.seconds,
    )
}

/// Prints one line per scenario pair (by map, scenario and line) and the
/// totals; cells as `row,col`, or `x,y` with `--xy`.
fn print_pairs(
    out: &mut impl Write,
    rows: &[Row],
    resumed: &[&Previous],
    totals: &Totals,
    xy: bool,
) -> std::io::Result<()> {
    let cell = |c: Option<[usize; 2]>| {
        c.map_or_else(dash, |[r, c]| {
            if xy {
                format!("{c},{r}")
            } else {
                format!("{r},{c}")
            }
        })
    };
    let entry = |scen: Option<&str>, line: Option<usize>| match (scen, line) {
        (Some(scen), Some(line)) => format!("{scen}:{line}"),
        _ => dash(),
    };
    type Key = (PathBuf, String, usize);
    let key = |path: &str, scen: Option<&str>, line: Option<usize>| -> Key {
        (
            PathBuf::from(path),
            scen.unwrap_or_default().to_string(),
            line.unwrap_or_default(),
        )
    };
    let lines: Vec<(Key, Vec<String>)> = rows
        .iter()
        .map(|r| {
            (
                key(&r.path, r.scen.as_deref(), r.scen_line),
                vec![
                    r.path.clone(),
                    entry(r.scen.as_deref(), r.scen_line),
                    cell(r.thief),
                    cell(r.cop),
                    r.result.map_or_else(dash, str::to_string),
                    r.dte.map_or_else(dash, |d| d.to_string()),
                    r.status.clone(),
                ],
            )
        })
        .chain(resumed.iter().map(|p| {
            let (scen, line) = match &p.key.pair {
                Some((scen, line)) => (Some(scen.as_str()), Some(*line)),
                None => (None, None),
            };
            (
                key(&p.path, scen, line),
                vec![
                    p.path.clone(),
                    entry(scen, line),
                    cell(p.pair_cells.map(|c| c.1)),
                    cell(p.pair_cells.map(|c| c.0)),
                    p.result.clone().unwrap_or_else(dash),
                    p.dte.map_or_else(dash, |d| d.to_string()),
                    "ok (resumed)".to_string(),
                ],
            )
        }))
        .collect();
    let maps: HashSet<&str> = lines.iter().map(|l| l.1[0].as_str()).collect();
    let maps = maps.len();
    write_table(
        out,
        &["map", "entry", "thief", "cop", "result", "dte", "status"],
        &[false, false, true, true, false, true],
        lines,
    )?;
    let [answered, failed, skipped] = tally(rows);
    writeln!(
        out,
        "{} pairs on {maps} map{} ({}): {answered} answered, {failed} failed, \
         {skipped} skipped (too large), {} already done (--resume); \
         {} maps named by no entry; {} other files ignored; {:.2} s",
        rows.len() + resumed.len(),
        if maps == 1 { "" } else { "s" },
        if xy { "x,y" } else { "row,col" },
        resumed.len(),
        totals.unnamed,
        totals.ignored,
        totals.seconds,
    )
}
