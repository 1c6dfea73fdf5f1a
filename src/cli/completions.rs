//! `retrograde completions SHELL` and `retrograde man`: shell completion
//! scripts and man pages generated from the same clap definition as the
//! parser, so they never fall behind the flags.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args as ClapArgs, ValueEnum};
use clap_complete::Shell;

use super::output::OutputTarget;
use crate::cli::failure::Failure;

/// Shells with completion scripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ShellArg {
    /// bash: `retrograde completions bash > ~/.local/share/bash-completion/completions/retrograde`
    Bash,
    /// zsh: write `_retrograde` into a directory on `$fpath`
    Zsh,
    /// fish: `retrograde completions fish > ~/.config/fish/completions/retrograde.fish`
    Fish,
    /// PowerShell
    Powershell,
    /// Elvish
    Elvish,
}

/// Flags of `completions`.
#[derive(ClapArgs, Debug)]
pub(crate) struct CompletionsArgs {
    /// The shell to write a completion script for (on stdout).
    #[arg(value_enum)]
    shell: ShellArg,
}

/// Flags of `man`.
#[derive(ClapArgs, Debug)]
pub(crate) struct ManArgs {
    /// Write `retrograde.1` and one page per subcommand
    /// (`retrograde-solve.1`, ...) into DIR instead of printing the main
    /// page on stdout.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
}

/// Prints the completion script for `args.shell`.
pub(crate) fn completions(
    args: CompletionsArgs,
    mut command: clap::Command,
) -> Result<i32, Failure> {
    let shell = match args.shell {
        ShellArg::Bash => Shell::Bash,
        ShellArg::Zsh => Shell::Zsh,
        ShellArg::Fish => Shell::Fish,
        ShellArg::Powershell => Shell::PowerShell,
        ShellArg::Elvish => Shell::Elvish,
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "retrograde", &mut out);
    std::io::stdout().lock().write_all(&out)?;
    Ok(0)
}

/// Examples per page (`""` is the main page), as (what it does, command).
const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "",
        &[
            ("Solve the sample map and print the start's value.", "retrograde solve data/maps/sample.txt"),
            ("Save a table with distances, then ask it about a position.", "retrograde solve data/maps/sample.txt --dte-table --save sample.rtb\nretrograde query sample.rtb --cop 1,1 --thief 5,9"),
            ("Explore the table in a browser.", "retrograde serve sample.rtb"),
        ],
    ),
    (
        "solve",
        &[
            ("Solve the sample map.", "retrograde solve data/maps/sample.txt"),
            ("A MovingAI map with starts and exits from flags, as JSON.", "retrograde solve data/movingai/arena.map --cop 5,20 --thief 40,30 --exits rim --json"),
            ("Save the table with distances for query, play, render and serve.", "retrograde solve data/maps/sample.txt --dte-table --save sample.rtb"),
            ("Two cops on the sample map.", "retrograde solve data/maps/sample.txt --cops 2 --cop 1,1 --cop 1,2"),
            ("Three cops on the Petersen graph, thief at vertex 5.", "retrograde solve --graph data/graphs/petersen.txt --cops 3 --cop 0 --cop 1 --cop 2 --thief 5"),
        ],
    ),
    (
        "batch",
        &[
            ("Solve every map under a directory into a CSV file; resume after a stop.", "retrograde batch data/maps --out results.csv --exits rim -q\nretrograde batch data/maps --out results.csv --exits rim -q --resume"),
        ],
    ),
    (
        "bench",
        &[(
            "Compare engines on one map.",
            "retrograde bench data/movingai/random-32-32-10.map --cop 1,1 --thief 20,20 --exits rim -q",
        )],
    ),
    (
        "copnumber",
        &[
            ("The cop number of a named graph, a winning placement and the capture time.", "retrograde copnumber data/graphs/petersen.txt"),
            ("Counts by cop number over every connected graph on 8 vertices (nauty's geng).", "nauty-geng -c 8 | retrograde copnumber - --json --counts"),
        ],
    ),
    (
        "graph",
        &[("Solve an edge-list game and ask about vertex 0.", "retrograde graph data/graphs/example.txt --query 0")],
    ),
    (
        "info",
        &[("Describe a table and verify every block.", "retrograde info sample.rtb --check")],
    ),
    (
        "query",
        &[
            ("One position.", "retrograde query sample.rtb --cop 1,1 --thief 5,9 --json"),
            ("Positions read from standard input, one per line.", "echo \"1,1 5,9 cop\" | retrograde query sample.rtb --stdin --json"),
        ],
    ),
    (
        "play",
        &[
            ("The optimal game from the start, with a GIF.", "retrograde play sample.rtb --gif game.gif"),
            ("One line per ply, no board.", "retrograde play sample.rtb --moves"),
            ("Play the thief yourself.", "retrograde play sample.rtb --interactive --side thief"),
        ],
    ),
    (
        "render",
        &[
            ("A heatmap with the cop fixed.", "retrograde render sample.rtb --cop 1,1 --out heat.png"),
            ("The overview.", "retrograde render sample.rtb --overview --out overview.png"),
        ],
    ),
    (
        "serve",
        &[("Serve a table on loopback and open the page.", "retrograde serve sample.rtb --open")],
    ),
    (
        "subtraction",
        &[("Heaps up to 9 with moves 1, 3 and 4.", "retrograde subtraction --moves 1,3,4 --upto 9")],
    ),
    ("nim", &[("Heaps of 3, 4 and 5.", "retrograde nim 3 4 5")]),
    (
        "grundy",
        &[(
            "A knight's backward moves on a 4 x 8 board.",
            "retrograde grundy --rows 4 --cols 8 --moves \"-2,1 -2,-1 1,-2 -1,-2\"",
        )],
    ),
    (
        "empty-cell",
        &[("The rounds of a game from a file.", "retrograde empty-cell data/toolkit/line.txt")],
    ),
    (
        "completions",
        &[("bash completions.", "retrograde completions bash > ~/.local/share/bash-completion/completions/retrograde")],
    ),
    (
        "man",
        &[("Every page into a directory.", "mkdir -p man1 && retrograde man --out-dir man1")],
    ),
];

/// Roff text with its backslashes and leading dots or quotes made literal.
fn roff_literal(line: &str) -> String {
    let line = line.replace('\\', "\\e").replace('-', "\\-");
    if line.starts_with('.') || line.starts_with('\'') {
        format!("\\&{line}")
    } else {
        line
    }
}

/// The EXAMPLES and EXIT STATUS sections of the page of `name` (`""`:
/// the main page); the exit codes are the convention of `cli/mod.rs`.
fn extra_sections(name: &str) -> String {
    let mut roff = String::new();
    if let Some((_, examples)) = EXAMPLES.iter().find(|(n, _)| *n == name) {
        roff.push_str(".SH EXAMPLES\n");
        for (what, commands) in *examples {
            roff.push_str(&format!(".PP\n{}\n.PP\n.RS 4\n.nf\n", roff_literal(what)));
            for line in commands.lines() {
                roff.push_str(&roff_literal(line));
                roff.push('\n');
            }
            roff.push_str(".fi\n.RE\n");
        }
    }
    roff.push_str(
        ".SH \"EXIT STATUS\"\n\
         .TP\n0\nSuccess. A closed standard output (a pipe into \\fBhead\\fR) also ends quietly with 0.\n\
         .TP\n1\nThe work ran and its answer is a failure (a batch with failed maps, a \\fB\\-\\-verify\\fR that found a bad state, engines that disagree), or it could not finish (a write error).\n\
         .TP\n2\nRefused before any work: bad input (the message names file, line and column), usage, an unusable output path, a solve that cannot fit.\n",
    );
    roff
}

/// One page: clap's sections, then EXAMPLES and EXIT STATUS.
fn page(command: &clap::Command, name: &str) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    clap_mangen::Man::new(command.clone()).render(&mut out)?;
    out.extend_from_slice(extra_sections(name).as_bytes());
    Ok(out)
}

/// Every page's file name and roff: one per visible subcommand, then
/// `retrograde.1` (clap_mangen's `generate_to`, with the extra sections).
fn pages(command: clap::Command) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut command = command.disable_help_subcommand(true);
    command.build();
    let mut pages = Vec::new();
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let man = clap_mangen::Man::new(sub.clone());
        pages.push((man.get_filename(), page(sub, sub.get_name())?));
    }
    let man = clap_mangen::Man::new(command.clone());
    pages.push((man.get_filename(), page(&command, "")?));
    Ok(pages)
}

/// Prints the main man page, or writes every page into `--out-dir`.
pub(crate) fn man(args: ManArgs, command: clap::Command) -> Result<i32, Failure> {
    match args.out_dir {
        None => {
            let out = page(&command, "")?;
            std::io::stdout().lock().write_all(&out)?;
        }
        Some(dir) => {
            super::common::existing_dir("--out-dir", &dir)?;
            // A FIFO at a page's name would block the write forever (no
            // reader): every page's name must be free or a regular file.
            for entry in std::fs::read_dir(&dir)
                .with_context(|| format!("cannot list {}", dir.display()))?
                .flatten()
            {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                let page = name.starts_with("retrograde") && name.ends_with(".1");
                if page && !std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file()) {
                    return Err(super::common::UsageError(format!(
                        "--out-dir {}: {name} is not a regular file (a FIFO, device, directory or dangling link): remove it first",
                        dir.display()
                    ))
                    .into());
                }
            }
            // Every page's file is checked (its temporary file made) before
            // any is written: a directory that takes no files is refused
            // (exit status 2) with no page written.
            let pages = pages(command)?;
            let targets = pages
                .iter()
                .map(|(name, _)| OutputTarget::check("--out-dir", &dir.join(name)))
                .collect::<Result<Vec<_>, _>>()?;
            for (target, (_, roff)) in targets.into_iter().zip(&pages) {
                target
                    .write_with(|out| out.write_all(roff))
                    .with_context(|| format!("cannot write man pages into {}", dir.display()))?;
            }
        }
    }
    Ok(0)
}
