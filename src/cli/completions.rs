//! `retrograde completions SHELL` and `retrograde man`: shell completion
//! scripts and man pages generated from the same clap definition as the
//! parser, so they never fall behind the flags.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args as ClapArgs, ValueEnum};
use clap_complete::Shell;

use super::Failure;

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

/// Prints the main man page, or writes every page into `--out-dir`.
pub(crate) fn man(args: ManArgs, command: clap::Command) -> Result<i32, Failure> {
    match args.out_dir {
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(command).render(&mut out)?;
            std::io::stdout().lock().write_all(&out)?;
        }
        Some(dir) => {
            if !dir.is_dir() {
                return Err(super::common::UsageError(format!(
                    "--out-dir {}: not a directory",
                    dir.display()
                ))
                .into());
            }
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
            clap_mangen::generate_to(command, &dir)
                .with_context(|| format!("cannot write man pages into {}", dir.display()))?;
        }
    }
    Ok(0)
}
