//! `retrograde graph FILE`: solve a directed game graph given as an edge
//! list, and report the counts, optionally one vertex's value, distance and
//! best moves, and a CSV dump of every vertex.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args as ClapArgs;
use retrograde::{
    best_moves, load_graph_within, plan_storage, solve, Convention, Engine, ExplicitGraph, Outcome,
    Solution, SolveOptions,
};
use serde::Serialize;

use super::common::{human_bytes, peak_memory, worker_pool, EngineFlags, UsageError};
use super::output::{CountsJson, OutputTarget};
use super::progress::Reporter;
use crate::cli::failure::Failure;

/// Flags of `graph`.
#[derive(ClapArgs, Debug)]
pub(crate) struct GraphArgs {
    /// Edge-list file: `u v` edges (0-based), `win v` / `loss v` fixed
    /// vertices, `#` comments, optional first line `p N M`; `-` reads stdin.
    file: PathBuf,
    /// A vertex without moves is a WIN for the player to move (misère play)
    /// instead of a LOSS.
    #[arg(long)]
    no_move_wins: bool,
    #[command(flatten)]
    engine: EngineFlags,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Write every vertex as CSV: vertex,value,dte (dte empty for draws);
    /// `-` writes it to standard output alone, the report (text or --json)
    /// then going to standard error.
    #[arg(long, value_name = "FILE")]
    dump: Option<PathBuf>,
    /// Print vertex V's value, distance to end and best moves.
    #[arg(long, value_name = "V")]
    query: Option<u64>,
    /// Also compute Grundy values (acyclic graphs under the normal rule
    /// only; otherwise says why they do not exist). They are added to JSON
    /// (`grundy`) and, with --dump, as a `grundy` column.
    #[arg(long)]
    grundy: bool,
    /// No progress output.
    #[arg(long, short)]
    quiet: bool,
}

/// The result of solving one graph.
#[derive(Serialize, Debug)]
struct GraphReport {
    /// The edge-list file as given (`map`, the input's key in every
    /// command's JSON).
    map: String,
    /// Number of vertices.
    vertices: u64,
    /// Number of edges, with multiplicity.
    edges: u64,
    /// `normal` (no move loses) or `misere` (no move wins).
    convention: &'static str,
    /// Counts of vertices by value for the player to move.
    counts: CountsJson,
    /// Propagation levels (the largest distance to end).
    levels: u32,
    /// The engine that ran: `--engine bitboard` needs a grid, so the
    /// counter engine that stands in for it is named (`sequential` on one
    /// thread, else `parallel`); `explicit` is the propagation over the
    /// stored graph.
    engine: &'static str,
    /// Worker threads.
    threads: usize,
    /// Seconds to read and parse the file into the graph.
    parse_seconds: f64,
    /// Seconds to solve.
    solve_seconds: f64,
    /// Bytes of the stored graph (both CSRs).
    graph_bytes: u64,
    /// Peak resident memory of the process in bytes, if known.
    peak_memory_bytes: Option<u64>,
    /// The queried vertex, with `--query`.
    #[serde(skip_serializing_if = "Option::is_none")]
    query: Option<QueryReport>,
    /// Grundy values, with `--grundy`.
    #[serde(skip_serializing_if = "Option::is_none")]
    grundy: Option<GrundyReport>,
}

/// Grundy values of an acyclic graph, or why there are none.
#[derive(Serialize, Debug)]
struct GrundyReport {
    /// Whether Grundy values exist (acyclic, normal play).
    defined: bool,
    /// Why they do not exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// The largest value.
    #[serde(skip_serializing_if = "Option::is_none")]
    max: Option<u32>,
    /// Every vertex's value, in id order.
    #[serde(skip_serializing_if = "Option::is_none")]
    values: Option<Vec<u32>>,
}

/// One vertex's value and best moves.
#[derive(Serialize, Debug)]
struct QueryReport {
    /// The vertex id.
    vertex: u64,
    /// `win`, `loss` or `draw` for the player to move.
    value: &'static str,
    /// Distance to end in plies (null for a draw).
    dte: Option<u32>,
    /// Successors that realise the value: for a win the losing successors
    /// nearest to the end, for a loss the successors farthest from it, for
    /// a draw the drawing successors.
    best_moves: Vec<u64>,
}

/// Runs `graph`; returns the exit status.
pub(crate) fn run(args: GraphArgs) -> Result<i32, Failure> {
    let config = args.engine.resolve()?;
    // The dump's path is checked before the parse and solve, after the
    // input is noted: the dump never replaces the graph it reads.
    super::output::note_input("the graph", &args.file)?;
    let dump_target = args
        .dump
        .as_deref()
        .map(|p| OutputTarget::check("--dump", p))
        .transpose()?;
    // A dump on standard output is all that goes there: the report then
    // goes to standard error, text or JSON.
    let dump_on_stdout = OutputTarget::stdout_taken(&dump_target)?;
    let convention = if args.no_move_wins {
        Convention::Misere
    } else {
        Convention::Normal
    };
    // Parsing and building are parallel whatever the engine; --threads
    // bounds them too.
    let pool = worker_pool(if config.engine == Engine::Sequential {
        0
    } else {
        config.threads
    })?;
    let started = Instant::now();
    let graph =
        pool.install(|| load_graph_within(&args.file, convention, config.storage.memory))?;
    let parse_seconds = started.elapsed().as_secs_f64();
    if graph.state_count() == 0 {
        return Err(super::common::no_vertices(&args.file, 1).into());
    }
    if let Some(v) = args.query {
        if v >= graph.state_count() {
            return Err(UsageError(format!(
                "--query {v}: the graph has {} vertices (ids 0 to {})",
                graph.state_count(),
                graph.state_count().saturating_sub(1)
            ))
            .into());
        }
    }
    // The graph is explicit already: the explicit engine is the sequential
    // propagation over its stored edges, without a second copy.
    let engine = match config.engine {
        Engine::Explicit => Engine::Sequential,
        // Bitsets need a grid: an edge list goes to the counter engines.
        Engine::Bitboard if config.threads > 1 => Engine::Parallel,
        Engine::Bitboard => Engine::Sequential,
        e => e,
    };
    // The report names the engine that ran: the counter engine that
    // stands in for bitboard; explicit is the propagation over the stored
    // graph, which is what it ran.
    let shown = if config.engine == Engine::Explicit {
        Engine::Explicit
    } else {
        engine
    };
    let reporter = Reporter::new(args.quiet, "solving");
    let observe = |p: &retrograde::Progress| {
        reporter.observe(p);
        retrograde::Flow::Continue
    };
    let options = SolveOptions::new(engine)
        .with_threads(config.threads)
        .with_dte_table(args.dump.is_some() || args.query.is_some());
    // The per-state arrays go to memory or scratch files as for `solve`,
    // under what the cap leaves beside the graph.
    let limits = args.engine.storage.limits(graph.bytes())?;
    // A refusal names the file: its graph is what the cap already holds.
    let plan =
        plan_storage(&graph, &options, &limits).with_context(|| args.file.display().to_string())?;
    let options = options.with_plan(&plan).with_observer(&observe);
    let started = Instant::now();
    let solution = solve(&graph, &options).context("solve failed")?;
    reporter.finish();
    let solve_seconds = started.elapsed().as_secs_f64();
    let grundy = args.grundy.then(|| {
        match pool.install(|| retrograde::theory::grundy::grundy_of_acyclic(&graph)) {
            Ok(values) => GrundyReport {
                defined: true,
                reason: None,
                max: values.iter().copied().max(),
                values: Some(values),
            },
            Err(e) => GrundyReport {
                defined: false,
                reason: Some(e.to_string()),
                max: None,
                values: None,
            },
        }
    });
    if let Some(target) = dump_target {
        let values = grundy.as_ref().and_then(|g| g.values.as_deref());
        target.write_with(|out| dump(&solution, graph.state_count(), values, out))?;
    }
    let query = args.query.map(|v| query(&graph, &solution, v));
    let report = GraphReport {
        map: args.file.display().to_string(),
        vertices: graph.state_count(),
        edges: graph.edge_count(),
        convention: convention.as_str(),
        counts: solution.counts().into(),
        levels: solution.levels(),
        engine: shown.as_str(),
        threads: config.threads,
        parse_seconds,
        solve_seconds,
        graph_bytes: graph.bytes(),
        peak_memory_bytes: peak_memory(),
        query,
        grundy,
    };
    super::schema::print_beside(dump_on_stdout, args.json, &report, |mut out, r| {
        print_text(&mut out, r)
    })?;
    Ok(0)
}

fn query(graph: &ExplicitGraph, solution: &Solution, v: u64) -> QueryReport {
    let value = solution.outcome(v);
    QueryReport {
        vertex: v,
        value: value.as_str(),
        dte: solution.dte(v).map(|d| d.plies()),
        best_moves: best_moves(graph, solution, v).expect("the solve kept a distance table"),
    }
}

fn print_text(out: &mut impl Write, r: &GraphReport) -> std::io::Result<()> {
    if let Some(q) = &r.query {
        match q.dte {
            Some(dte) => writeln!(out, "vertex {}: {} in {dte} plies", q.vertex, q.value)?,
            None => writeln!(out, "vertex {}: {}", q.vertex, q.value)?,
        }
        if q.best_moves.is_empty() {
            writeln!(out, "best moves: none (no move realises the value)")?;
        } else {
            let moves: Vec<String> = q.best_moves.iter().map(u64::to_string).collect();
            writeln!(out, "best moves: {}", moves.join(" "))?;
        }
    }
    writeln!(
        out,
        "graph: {} ({} vertices, {} edges; no move {})",
        r.map,
        r.vertices,
        r.edges,
        if r.convention == "normal" {
            "loses"
        } else {
            "wins"
        }
    )?;
    writeln!(
        out,
        "vertices: win {}, loss {}, draw {} (values for the player to move)",
        r.counts.win, r.counts.loss, r.counts.draw
    )?;
    writeln!(
        out,
        "engine: {} ({} thread{}), {} levels",
        r.engine,
        r.threads,
        if r.threads == 1 { "" } else { "s" },
        r.levels
    )?;
    writeln!(
        out,
        "time: parse {:.3} s, solve {:.3} s; graph {}, peak memory: {}",
        r.parse_seconds,
        r.solve_seconds,
        human_bytes(r.graph_bytes),
        r.peak_memory_bytes
            .map_or_else(|| "unknown".to_string(), human_bytes)
    )?;
    match &r.grundy {
        None => Ok(()),
        Some(GrundyReport {
            values: Some(values),
            max,
            ..
        }) => {
            let shown: Vec<String> = values.iter().take(64).map(u32::to_string).collect();
            writeln!(
                out,
                "grundy: largest {}; vertices 0..: {}{}",
                max.unwrap_or(0),
                shown.join(" "),
                if values.len() > 64 {
                    " ... (all in --json or --dump)"
                } else {
                    ""
                }
            )
        }
        Some(g) => writeln!(
            out,
            "grundy: not defined: {}",
            g.reason.as_deref().unwrap_or("unknown")
        ),
    }
}

/// Writes every vertex as a CSV row, in id order, with a `grundy` column
/// when Grundy values were computed.
fn dump(
    solution: &Solution,
    vertices: u64,
    grundy: Option<&[u32]>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    writeln!(
        out,
        "vertex,value,dte{}",
        if grundy.is_some() { ",grundy" } else { "" }
    )?;
    for v in 0..vertices {
        let value = solution.outcome(v);
        let dte = match solution.dte(v) {
            Some(d) if value != Outcome::Draw => d.to_string(),
            _ => String::new(),
        };
        match grundy {
            Some(g) => writeln!(out, "{v},{value},{dte},{}", g[v as usize])?,
            None => writeln!(out, "{v},{value},{dte}")?,
        }
    }
    Ok(())
}
