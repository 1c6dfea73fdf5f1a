//! `retrograde copnumber FILE|-`: the cop number of every graph of a graph6
//! stream (`nauty-geng -c 10 | retrograde copnumber -`) or of one edge list,
//! with a winning placement and the capture time; over a stream the counts
//! by cop number and the graphs with the largest cop number and capture
//! time. Graphs are read in batches and solved in parallel, printed in
//! input order; with `--out FILE` they go to a results file that an
//! interrupted run leaves consistent and `--resume` continues (`results`).
//! A grid map (`map.rs`) gets its cop number under the map's rules, the
//! placement as `row,col` cells. `--cop-speed` / `--thief-speed` (the
//! flags of `solve --cops K`) ask for the cop number with fast pieces, on
//! graphs and maps alike; the plain graph game's fast path is for speed 1.
//!
//! Each number of cops is planned before it is tried (`--memory`, default
//! the available memory; `--plan` prints the plan): the first that would
//! not fit ends the search with "k cops would need X; the cop number is
//! more than k-1" (exit status 1), so no graph is refused up front for a
//! `--max-cops` it may never reach, and no solve grows past the cap.
//!
//! With `--certificate CERT` each graph's evidence for its cop number goes
//! to CERT (`certificate.rs`), for `scripts/check-certificate.py`.
//!
//! Files: `input.rs` the stoppable input and graph6 lines, `edge_list.rs`
//! one edge list, `map.rs` grid maps, `search.rs` one graph's search under
//! the memory cap, `report.rs` what is printed, `results.rs` the `--out`
//! file and `--resume`, `certificate.rs` the `--certificate` file,
//! `census/` the `census` and `merge` subcommands.

mod census;
mod certificate;
mod edge_list;
mod input;
mod map;
mod report;
mod results;
mod search;

use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args as ClapArgs;
use input::{parse_graph, Stoppable};
use rayon::prelude::*;
use retrograde::copnumber::CopNumber;
use retrograde::{FileKind, Graph6Reader};

use super::common::{no_vertices, parse_size, GameArgs, SpeedArgs, UsageError};
use super::output::{defer_stop_signals, note_input, stop_requested, OutputTarget};
use crate::cli::failure::Failure;
use report::{write_graph, write_summary, Summary};
use results::{resume_command, Record, Results};
use search::full_solve;

/// Flags of `copnumber`.
#[derive(ClapArgs, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(crate) struct CopNumberArgs {
    /// `census`: every graph of a generator's shards or of many files, in
    /// parallel, resumable; `merge`: shards of censuses run apart.
    #[command(subcommand)]
    census: Option<census::CensusCommand>,
    /// graph6 file (one graph a line, as nauty writes it), an edge list
    /// (`u v` a line, 0-based, `#` comments) or a grid map (seed text or
    /// MovingAI .map, told apart by content); `-` reads standard input.
    /// (A file named `census` or `merge`: give it as `./census`.)
    #[arg(required = true)]
    file: Option<PathBuf>,
    /// Most cops tried (1 to 4); a graph needing more is reported as
    /// "more than K" (JSON: `cop_number: null`).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=4))]
    max_cops: u32,
    /// JSON Lines: one object per graph, then the summary object.
    #[arg(long)]
    json: bool,
    /// Print only the summary (graphs read, counts by cop number): only
    /// the cop number is computed (on each graph's core, its corners
    /// removed), no placement or capture time.
    #[arg(long)]
    counts: bool,
    /// Instead of the cop number, solve the game with exactly K cops over
    /// every state (no early stop) and print its state counts, levels and
    /// time: the engine's measurement (`scripts/kcop-measure.sh`).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=4), conflicts_with = "out")]
    full_solve: Option<u32>,
    /// Write one JSON object per graph to FILE (JSON Lines, in stream
    /// order, synced batch by batch) instead of standard output, which then
    /// gets the summary only. Ctrl-C stops (the batch in progress is left
    /// out) and says how to continue.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Continue an interrupted --out run: the graphs already in FILE are
    /// checked against the stream (another stream is refused) and counted
    /// in the summary, the rest solved and appended.
    #[arg(long, requires = "out")]
    resume: bool,
    /// No progress bar (there is none when standard error is not a
    /// terminal).
    #[arg(long, short)]
    quiet: bool,
    /// Cap on the memory of each solve, in bytes or with a K/M/G/T suffix
    /// (powers of 1024) [default: available memory]. Each number of cops
    /// is planned before it is tried; the first that would not fit ends
    /// the search: "K cops would need X; the cop number is more than
    /// K-1" (exit status 1).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    memory: Option<u64>,
    /// Print what each number of cops would need and whether it fits
    /// --memory, then stop: nothing is solved.
    #[arg(long, conflicts_with_all = ["out", "full_solve", "json", "counts"])]
    plan: bool,
    /// A grid map's rule variant and exits, as `solve` takes them (the
    /// map's exits and the standard rules when none is given); graphs
    /// refuse them.
    #[command(flatten, next_help_heading = "Rules and exits (grid maps)")]
    game: GameArgs,
    /// The pieces' speeds, as `solve --cops K` takes them (graphs and maps).
    #[command(flatten, next_help_heading = "Speeds")]
    speeds: SpeedArgs,
    /// Lazy cops: on the cops' turn at most one cop moves, the others
    /// stay; the lazy cop number, by the general engine (graphs and maps).
    /// Not with --out or --certificate.
    #[arg(long, conflicts_with_all = ["out", "certificate"])]
    lazy: bool,
    /// Write each graph's certificate of its cop number to CERT (the
    /// winning placement with the cops' strategy and ranks, the thief's
    /// safe states against one cop fewer; docs/guide.md, "Certificates"),
    /// which scripts/check-certificate.py verifies. Graphs only, plain
    /// game; CERT appears only when the run completes.
    #[arg(long, value_name = "CERT", conflicts_with_all = ["resume", "counts", "full_solve", "plan"])]
    certificate: Option<PathBuf>,
    /// `--memory`, else the memory available when the run started.
    #[arg(skip)]
    cap: u64,
}

/// One graph of a batch: solved in the parallel pass, or left for the
/// one-at-a-time pass ([`CopNumberArgs::in_parallel`]).
enum Outcome {
    /// Vertices, edges, answer.
    Done(usize, usize, CopNumber),
    /// Vertices and edges of a graph solved after the parallel pass.
    Later(usize, Vec<(u32, u32)>),
}

/// One graph of a batch, or its line's error.
type Solved = std::result::Result<Outcome, (usize, retrograde::Graph6Error)>;

/// Graphs read and solved per batch.
const BATCH: usize = 1 << 15;

impl CopNumberArgs {
    /// The graph file (`-` standard input): clap requires it without a
    /// subcommand, and only `census` and `merge` go without one.
    fn file(&self) -> &Path {
        self.file.as_deref().unwrap_or(Path::new("-"))
    }
}

/// Runs `copnumber`.
pub(crate) fn run(mut args: CopNumberArgs) -> Result<i32, Failure> {
    if let Some(command) = args.census.take() {
        return census::run(command);
    }
    args.cap = args.memory.unwrap_or_else(retrograde::available_memory);
    let args = args;
    let path = args
        .file
        .clone()
        .expect("clap requires FILE without a subcommand");
    let input: Box<dyn BufRead> = if path == Path::new("-") {
        if args.out.is_some() {
            // A stop is deferred to the end of a batch: an idle stream
            // must not keep it waiting.
            Box::new(BufReader::with_capacity(
                1 << 20,
                Stoppable::new(std::io::stdin()),
            ))
        } else {
            Box::new(BufReader::with_capacity(1 << 20, std::io::stdin()))
        }
    } else {
        let f = std::fs::File::open(&path)
            .with_context(|| format!("cannot open {}", path.display()))
            .map_err(|e| Failure {
                status: crate::cli::failure::EXIT_INPUT,
                error: e,
            })?;
        if args.out.is_some() {
            Box::new(BufReader::with_capacity(1 << 20, Stoppable::new(f)))
        } else {
            Box::new(BufReader::with_capacity(1 << 20, f))
        }
    };
    let mut input = input;
    let head = map::peek(&mut *input).map_err(|source| retrograde::Error::Io {
        path: path.clone(),
        source,
    })?;
    // Nothing but blanks, or graph6's header with no graph after it: no
    // graph to answer (refused before any output file is opened).
    let body = head.strip_prefix(b">>graph6<<").unwrap_or(&head);
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(no_vertices(&path, 1).into());
    }
    // A table or a scenario would be misread as graph6 (its first line
    // refused for a length it does not have): say what it is instead.
    let kind = retrograde::sniff(&head);
    match kind {
        Some(FileKind::Table) => {
            return Err(UsageError(format!(
                "{p} is a table (solve --save wrote it), not a graph or a map: retrograde info {p} describes it; copnumber reads the graph or map itself",
                p = path.display()
            ))
            .into())
        }
        Some(FileKind::Scenario) => {
            return Err(UsageError(format!(
                "{p} looks like a MovingAI scenario, not a graph or a map: copnumber reads the map itself",
                p = path.display()
            ))
            .into())
        }
        _ => {}
    }
    if let Some(FileKind::Map(_)) = kind {
        if args.out.is_some() {
            return Err(UsageError(format!(
                "--out: {} is a map (one game); --out and --resume are for graph6 streams",
                path.display()
            ))
            .into());
        }
        certificate::refuse_map(&args, &path)?;
        return map::run(&args, &path, input);
    }
    let typed = args.game.answer_flags();
    if !typed.is_empty() || args.game.xy {
        let mut flags: Vec<String> = typed
            .iter()
            .map(|f| f.split(' ').next().unwrap_or_default().to_string())
            .collect();
        if args.game.xy {
            flags.push("--xy".to_string());
        }
        flags.dedup();
        return Err(UsageError(format!(
            "{}: rule, exit and start flags are for grid maps; {} is a graph (cops and thief move along edges, both may pass, no exits)",
            flags.join(", "),
            path.display()
        ))
        .into());
    }
    let mut reader = Graph6Reader::new(input, &path);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut summary = Summary::default();
    let bar = (!args.quiet && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new_spinner();
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} {pos} graphs {per_sec} {elapsed} {msg}",
            )
            .expect("template"),
        );
        b
    });
    let timed = !args.counts;
    let mut file = open_results(&args, timed)?;
    let mut cert = args.open_certificate()?;
    let mut first = true;
    let stopped = 'batches: loop {
        // A batch of lines; an edge list is recognised on its first line.
        let mut batch: Vec<(usize, Vec<u8>)> = Vec::with_capacity(BATCH);
        while batch.len() < BATCH {
            match reader.next_line()? {
                None => break,
                Some((line, bytes)) => {
                    if first && bytes.iter().any(u8::is_ascii_whitespace) {
                        let text = bytes.to_vec();
                        return edge_list::run(&args, &path, line, &text, &mut reader, cert);
                    }
                    // graph6 `?` (no vertex) is refused by `parse_graph`
                    // in stream order, after the graphs before it.
                    first = false;
                    if let Some(k) = args.full_solve {
                        let (n, edges) = parse_graph(bytes).map_err(|e| reader.line_error(e))?;
                        let arena = args.graph_arena(n, &edges);
                        args.check_fits(&format!("{}:{line}", path.display()), &arena, k)?;
                        full_solve(&mut out, &arena, k)?;
                        continue;
                    }
                    if args.plan {
                        let (n, edges) = parse_graph(bytes).map_err(|e| reader.line_error(e))?;
                        let name = format!("{}:{line}", path.display());
                        args.write_plan(&mut out, &name, &args.graph_arena(n, &edges), "vertices")?;
                        continue;
                    }
                    batch.push((line, bytes.to_vec()));
                }
            }
        }
        // A batch read while a stop was asked may be cut short (the
        // producer of the stream got the signal too): left out.
        if stop_requested().is_some() {
            break true;
        }
        if batch.is_empty() {
            break false;
        }
        // Graphs an earlier run wrote (--resume) are counted, not solved.
        let mut done = 0;
        if let Some(file) = file.as_mut() {
            for (line, bytes) in &batch {
                let Some(r) = file.previous(summary.graphs, *line, bytes)? else {
                    break;
                };
                summary.add(summary.graphs, *line, bytes, r.cop_number, r.capture_time);
                done += 1;
            }
        }
        let batch = &batch[done..];
        // After a stop is asked the graphs left are skipped (`None`): a
        // batch of large graphs would otherwise keep Ctrl-C waiting.
        let results: Vec<Option<Solved>> = batch
            .par_iter()
            .map(|(line, bytes)| {
                stop_requested()
                    .is_none()
                    .then(|| match parse_graph(bytes) {
                        Ok((n, edges)) if args.in_parallel(n) => Ok(Outcome::Done(
                            n,
                            edges.len(),
                            args.solve_graph(n, &edges, timed),
                        )),
                        Ok((n, edges)) => Ok(Outcome::Later(n, edges)),
                        Err(e) => Err((*line, e)),
                    })
            })
            .collect();
        if stop_requested().is_some() {
            break true;
        }
        for ((line, bytes), r) in batch.iter().zip(results) {
            let r = r.expect("graphs are skipped only after a stop, which ended the loop");
            let (n, edges, r) = match r {
                Ok(Outcome::Done(n, edges, r)) => (n, edges, r),
                Ok(Outcome::Later(n, edges)) => {
                    let arena = args.graph_arena(n, &edges);
                    match args.search(&arena, timed, bar.as_ref())? {
                        Some(r) => (n, edges.len(), r),
                        None => break 'batches true,
                    }
                }
                Err((_, e)) => {
                    out.flush().ok();
                    let column = e.column;
                    return Err(retrograde::Error::Parse {
                        path: path.display().to_string(),
                        line: *line,
                        column,
                        message: e.message,
                    }
                    .into());
                }
            };
            let index = summary.graphs;
            // A graph over the memory cap ends the run: the graphs before
            // it are kept (printed, or in --out's file), it is printed but
            // not kept, the rest are not read, and no summary is given.
            let over = r.out_of_memory.as_ref();
            if over.is_none() {
                summary.add_solved(index, *line, bytes, &r);
                if let Some(cert) = cert.as_mut() {
                    cert.note(index, bytes, &r);
                }
            }
            if let Some(file) = file.as_mut() {
                if over.is_none() {
                    file.push(&Record::new(
                        index,
                        *line,
                        bytes,
                        (n, edges),
                        args.max_cops,
                        args.speeds,
                        &r,
                    ))?;
                }
            } else if !args.counts {
                let graph6 = String::from_utf8_lossy(bytes);
                write_graph(
                    &mut out,
                    &args,
                    index,
                    *line,
                    n,
                    edges,
                    (bytes, &graph6),
                    &r,
                )?;
            }
            if let Some(o) = over {
                out.flush()?;
                if let Some(file) = file.as_mut() {
                    file.flush()?;
                }
                let name = format!("{}:{line}", path.display());
                return Err(args.out_of_memory(&name, o));
            }
        }
        if let Some(file) = file.as_mut() {
            file.flush()?;
        }
        if let Some(cert) = cert.as_mut() {
            cert.write_batch(&args)?;
        }
        if let Some(b) = &bar {
            b.set_position(summary.graphs);
        }
    };
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if let Some(file) = file.as_mut() {
        if stopped {
            let signal = stop_requested().unwrap_or(0);
            say!(
                "stopped: {} graphs done, in {}; continue with the same stream: {}",
                summary.graphs,
                file.path().display(),
                resume_command()
            );
            return Ok(128 + signal);
        }
        file.check_used_up(summary.graphs)?;
        // An empty stream still leaves its (empty) results file.
        file.flush()?;
        if file.resumed() > 0 && !args.quiet {
            say!(
                "--resume: {} of the {} graphs were already in {}",
                file.resumed(),
                summary.graphs,
                file.path().display()
            );
        }
    }
    if let Some(cert) = cert {
        cert.finish()?;
    }
    write_summary(&mut out, &args, &summary, file.is_some())?;
    out.flush()?;
    Ok(0)
}

/// The results file of `--out` (checked to be a regular file before any
/// work) and, from here on, Ctrl-C stopping after the current batch.
fn open_results(args: &CopNumberArgs, timed: bool) -> Result<Option<Results>, Failure> {
    let Some(path) = &args.out else {
        return Ok(None);
    };
    // Replacing the stream being read would lose it (standard input's
    // file included).
    if let Some(file) = &args.file {
        note_input("the graph stream", file)?;
    }
    let target = OutputTarget::check("--out", path)?;
    if !target.is_file() {
        return Err(UsageError(format!(
            "--out {}: expected a regular file (records are appended to it and --resume reads it back)",
            target.path().display()
        ))
        .into());
    }
    drop(target);
    let file = Results::open(path, args.resume, args.max_cops, args.speeds, timed)?;
    defer_stop_signals();
    Ok(Some(file))
}

/// `cop speed 2, thief speed 1` (solve's words) for the text output; `None`
/// at speed 1, whose output says nothing of speeds.
pub(super) fn speed_note(cop_speed: u32, thief_speed: u32) -> Option<String> {
    (cop_speed > 1 || thief_speed > 1)
        .then(|| format!("cop speed {cop_speed}, thief speed {thief_speed}"))
}

/// The game's variant in every `copnumber` JSON object, at one place in
/// its keys: the speeds (left out at 1, as before speeds existed) and
/// `--lazy` (the lazy cop number; left out without it).
#[derive(serde::Serialize)]
pub(super) struct VariantJson {
    #[serde(skip_serializing_if = "is_one")]
    cop_speed: u32,
    #[serde(skip_serializing_if = "is_one")]
    thief_speed: u32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    lazy: bool,
}

impl VariantJson {
    /// The variant `args` asks for.
    pub(super) fn of(args: &CopNumberArgs) -> VariantJson {
        VariantJson {
            cop_speed: args.speeds.cop_speed,
            thief_speed: args.speeds.thief_speed,
            lazy: args.lazy,
        }
    }
}

/// Serde's test for a speed left out of the JSON: 1, the plain game.
#[allow(clippy::trivially_copy_pass_by_ref)]
pub(super) fn is_one(speed: &u32) -> bool {
    *speed == 1
}

/// A speed missing from an older record: 1.
pub(super) fn one() -> u32 {
    1
}
