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

#![deny(clippy::print_stdout, clippy::print_stderr)]

/// `eprintln!` that ignores a closed or failing standard error instead of
/// panicking.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

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

/// Exit status for usage and input errors.
pub(crate) const EXIT_INPUT: i32 = 2;

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
    /// Solve a policeman-and-thief map (seed text or MovingAI .map).
    Solve(SolveCommand),
    /// Solve every map under some directories with the same flags; one
    /// result row per map (JSON Lines or CSV), resumable.
    Batch(batch::BatchArgs),
    /// Compare engines (explicit graph vs on the fly) on the same maps:
    /// build and solve time, states/s, edges, peak memory; checks agreement.
    Bench(bench::BenchArgs),
    /// The cop number of graphs (graph6 streams, edge lists): the fewest
    /// cops that always catch the thief, a placement and the capture time.
    // The start flags and --thief-first of the shared game flags are
    // refused here (every placement is tried, the cops move first): kept
    // out of the help so that it lists only what the command takes.
    #[command(
        mut_arg("cop", |a| a.hide(true)),
        mut_arg("thief", |a| a.hide(true)),
        mut_arg("thief_first", |a| a.hide(true))
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
}

impl SolveCommand {
    fn run(self) -> Result<i32, Failure> {
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

/// An error with the exit status it should produce.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: i32,
    pub(crate) error: anyhow::Error,
}

impl<E: Into<anyhow::Error>> From<E> for Failure {
    fn from(error: E) -> Failure {
        let error = error.into();
        // A solve that cannot fit is refused before any work, like bad
        // input.
        let input = error.chain().any(|e| {
            matches!(e.downcast_ref::<retrograde::Error>(),
                Some(e) if e.is_input_error() || matches!(e, retrograde::Error::TooLarge { .. }))
        }) || error.downcast_ref::<common::UsageError>().is_some();
        // A write that failed after the work began is not bad input.
        let input = input && !output::write_failed();
        Failure {
            status: if input { EXIT_INPUT } else { 1 },
            error,
        }
    }
}

/// Runs the tool and returns the process exit status.
pub(crate) fn main() -> i32 {
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
