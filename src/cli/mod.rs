//! Command-line interface: clap-derive [`Args`] are parsed once, validated
//! into per-command configurations, then run. Only this module tree knows
//! clap, serde, anyhow and the terminal.
//!
//! Exit status, one convention for every subcommand (README's table): 0
//! success; 1 the work ran and its answer is a failure (a batch with failed
//! maps, a `--verify` that found a bad state, engines that disagree) or it
//! could not finish (a write error); 2 refused before any work: bad input,
//! usage, an unusable output path, a solve that cannot fit. A closed
//! standard output (`| head`) ends the command quietly with 0.
//!
//! Nothing here uses `print!`/`eprint!` (they panic on a closed stream):
//! stdout goes through `Write` (errors handled), stderr through `say!`.
//!
//! One module or folder per subcommand, none importing another: `solve/`,
//! `distributed/` (`solve --processes`), `batch/`, `bench/`, `graph.rs`,
//! `copnumber/`, `info/`, `query/`, `play/`, `render.rs`, `serve.rs` with
//! `serve/`, `toolkit.rs` with `toolkit/`, `completions.rs` (`completions`
//! and `man`). What commands share lives in rooms that are not commands:
//! - `mod.rs`: the command table and `main`;
//! - `failure.rs`: [`Failure`], the exit status and `say!`, which every
//!   command imports (so none imports `mod.rs`);
//! - `solving.rs`: load, plan, solve and save, and `solve`'s flags;
//! - `several.rs`: the several-cops game from `solve`'s flags;
//! - `tables.rs`: what the table commands share (opening, positions);
//! - `common.rs`: shared flags (starts, exits, rules, engine, storage);
//! - `checkpoint.rs`: `--checkpoint`'s directory sink and `--resume`;
//! - `output/`: reports, text printers and [`OutputTarget`](output::OutputTarget),
//!   the one way a file is written;
//! - `progress/`: progress bars and lines;
//! - `schema.rs`: the JSON vocabulary and `--json` printing;
//! - `export.rs`: CSV for `batch` and `bench`;
//! - `numbers.rs`: counts such as `5e7` or `50M`;
//! - `file_kind.rs`: the hint for a file of another kind.

#![deny(clippy::print_stdout, clippy::print_stderr)]

// First: its `say!` serves every module below.
#[macro_use]
mod failure;

mod batch;
mod bench;
mod checkpoint;
mod common;
mod completions;
mod copnumber;
#[cfg(feature = "distributed")]
mod distributed;
mod export;
mod file_kind;
mod graph;
mod info;
mod numbers;
mod output;
mod play;
mod progress;
mod query;
mod render;
mod schema;
mod serve;
mod several;
mod solve;
mod solving;
mod tables;
mod toolkit;

use clap::{CommandFactory, Parser, Subcommand};

use failure::Failure;

/// Retrograde analysis of two-player games: labels every state WIN / LOSS /
/// DRAW with its distance to end.
#[derive(Parser, Debug)]
#[command(name = "retrograde", version, about, long_about = None)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Solve a policeman-and-thief map (seed text or MovingAI .map) or,
    /// with --graph, a graph; one cop or several (--cops K), at any speeds.
    Solve(SolveCommand),
    /// Solve every map under some directories with the same flags; one
    /// result row per map (JSON Lines or CSV), resumable.
    Batch(batch::BatchArgs),
    /// Compare engines (explicit graph vs on the fly) on the same maps:
    /// build and solve time, states/s, edges, peak memory; checks agreement.
    Bench(bench::BenchArgs),
    /// The cop number of graphs (graph6 streams, edge lists) and grid
    /// maps: the fewest cops that always catch the thief, a placement and
    /// the capture time; `copnumber census` for every graph of a size.
    // The start flags and --thief-first of the shared game flags are
    // refused here (every placement is tried, the cops move first): kept
    // out of the help so that it lists only what the command takes.
    #[command(
        mut_arg("cop", |a| a.hide(true)),
        mut_arg("thief", |a| a.hide(true)),
        mut_arg("thief_first", |a| a.hide(true)),
        // The shared help names --cop, --thief and --graph, which this
        // command does not take.
        mut_arg("exit", |a| a.help(
            "An exit cell ROW,COL of a grid map (X,Y with --xy; repeatable); replaces the map's exits"
        )),
        mut_arg("xy", |a| a.help(
            "Read --exit as X,Y (column, row: MovingAI's order) and print cells in text output as x,y"
        ))
    )]
    Copnumber(copnumber::CopNumberArgs),
    /// Solve a directed game graph given as an edge list (`u v` per line).
    Graph(graph::GraphArgs),
    /// Describe a saved table (`solve --save`); --check verifies every block.
    Info(info::InfoArgs),
    /// Value, distance and rated moves of a position from a saved table.
    Query(query::QueryArgs),
    /// The optimal game from a position of a saved table (text, --gif), or
    /// play one side yourself (--interactive).
    Play(play::PlayArgs),
    /// Pictures of a saved table: a heatmap (--cop or --thief fixed) or the
    /// --overview, as PNG.
    Render(render::RenderArgs),
    /// Explore saved tables in a browser: a page and a JSON API on
    /// loopback (read-only).
    Serve(serve::ServeArgs),
    #[command(flatten)]
    Toolkit(toolkit::ToolkitCommand),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(completions::CompletionsArgs),
    /// Print the man page (roff), or write one per subcommand with --out-dir.
    Man(completions::ManArgs),
}

/// `solve`'s flags: a local solve's, and (feature `distributed`) those of
/// a partitioned one, which `--processes` selects here so that neither
/// module imports the other's runner.
#[derive(clap::Args, Debug)]
struct SolveCommand {
    #[command(flatten)]
    solve: solving::SolveArgs,
    #[cfg(feature = "distributed")]
    #[command(flatten)]
    cluster: distributed::ClusterArgs,
    #[cfg(not(feature = "distributed"))]
    #[command(flatten)]
    cluster: NoCluster,
}

/// The flags of a partitioned solve in a build without the `distributed`
/// feature: taken (hidden from help, completions and man pages) only to
/// refuse them with how to get the feature, where clap alone would answer
/// "unexpected argument" and suggest an unrelated flag.
#[cfg(not(feature = "distributed"))]
#[derive(clap::Args, Debug)]
struct NoCluster {
    #[arg(long, hide = true, num_args = 0..=1, value_name = "N")]
    processes: Option<Option<String>>,
    #[arg(long, hide = true)]
    process: Option<String>,
    #[arg(long, hide = true)]
    hostfile: Option<String>,
    #[arg(long, hide = true)]
    workers: Option<String>,
    #[arg(long, hide = true)]
    port: Option<String>,
    #[arg(long, hide = true)]
    connect_timeout: Option<String>,
    #[arg(long, hide = true)]
    progress_timeout: Option<String>,
}

#[cfg(not(feature = "distributed"))]
impl NoCluster {
    /// Refuses the first flag of a partitioned solve that was given.
    fn refuse(&self) -> Result<(), common::UsageError> {
        let given = [
            ("--processes", self.processes.is_some()),
            ("--process", self.process.is_some()),
            ("--hostfile", self.hostfile.is_some()),
            ("--workers", self.workers.is_some()),
            ("--port", self.port.is_some()),
            ("--connect-timeout", self.connect_timeout.is_some()),
            ("--progress-timeout", self.progress_timeout.is_some()),
        ];
        match given.iter().find(|(_, given)| *given) {
            Some((flag, _)) => Err(common::UsageError(format!(
                "{flag} is a flag of partitioned solves, which need the cargo feature `distributed`; \
                 this retrograde was built without it: install it with \
                 `cargo install --path . --locked --features distributed` (Rust 1.86 or newer)"
            ))),
            None => Ok(()),
        }
    }
}

impl SolveCommand {
    fn run(self) -> Result<i32, Failure> {
        #[cfg(not(feature = "distributed"))]
        self.cluster.refuse()?;
        solving::check_game_flags(&self.solve)?;
        #[cfg(feature = "distributed")]
        if self.cluster.processes.is_some() {
            // The several-cops summary reads the whole solution, which a
            // partitioned solve never holds in one process.
            if self.solve.kcops.active() && self.solve.summary {
                return Err(common::UsageError(
                    "--summary with several cops, speeds or --graph is for a local solve, not --processes".into(),
                )
                .into());
            }
            return distributed::run(&self.solve, &self.cluster);
        }
        solve::run(self.solve)
    }
}

/// Runs the tool and returns the process exit status.
pub(crate) fn main() -> i32 {
    ignore_file_size_signal();
    one_malloc_arena_under_address_limit();
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(e) => return clap_exit(&e),
    };
    let result = match args.command {
        Command::Solve(a) => a.run(),
        Command::Batch(a) => batch::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Graph(a) => graph::run(a),
        Command::Copnumber(a) => copnumber::run(a),
        Command::Info(a) => info::run(a),
        Command::Query(a) => query::run(a),
        Command::Play(a) => play::run(a),
        Command::Render(a) => render::run(a),
        Command::Serve(a) => serve::run(a),
        Command::Toolkit(c) => toolkit::run(c),
        Command::Completions(a) => completions::completions(a, Args::command()),
        Command::Man(a) => completions::man(a, Args::command()),
    };
    match result {
        Ok(status) => status,
        // The reader of standard output went away: nothing to report.
        Err(failure) if output::is_closed_stdout(&failure.error) => 0,
        Err(failure) => {
            say!("error: {:#}", failure.error);
            failure.status
        }
    }
}

/// Past the file size limit (`ulimit -f`) a write raises SIGXFSZ, whose
/// default action killed the process with no word and left `--save`'s
/// temporary file behind; ignored, the write fails with EFBIG instead,
/// which every write path reports (naming the file) and cleans up after.
fn ignore_file_size_signal() {
    // SAFETY: setting a signal's disposition to SIG_IGN installs no
    // handler code, so nothing runs in signal context; done first thing,
    // before any other thread exists.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Under an address-space limit (`ulimit -v`), one malloc arena for all
/// threads: glibc reserves 64 MiB of address space for each thread's
/// arena, which no plan counts, so a two-cop solve whose arrays fit the
/// limit by its own `--plan` (72 MiB of 195) ran out of it and aborted
/// (421 MB mapped with 5 threads; 94 MB with one arena). Without a limit
/// nothing changes.
fn one_malloc_arena_under_address_limit() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let mut limit = std::mem::MaybeUninit::<libc::rlimit>::uninit();
        // SAFETY: `limit` points to writable memory of the right type,
        // read only when getrlimit succeeded; mallopt only sets a malloc
        // parameter, before any other thread exists.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_AS, limit.as_mut_ptr()) == 0
                && limit.assume_init().rlim_cur != libc::RLIM_INFINITY
            {
                libc::mallopt(libc::M_ARENA_MAX, 1);
            }
        }
    }
}

/// What clap's own exit does, with a failed write of `--help` or
/// `--version` (a full disk) reported as any other failed write (exit
/// status 1) instead of exit status 0 and silence.
fn clap_exit(e: &clap::Error) -> i32 {
    use std::io::Write;
    // Help and version go to standard output, usage errors to standard
    // error (exit status 2).
    let written = e.print().and_then(|()| std::io::stdout().flush());
    match written {
        Err(w) if !e.use_stderr() && w.kind() != std::io::ErrorKind::BrokenPipe => {
            say!("error: cannot write to standard output: {w}");
            1
        }
        _ => e.exit_code(),
    }
}
