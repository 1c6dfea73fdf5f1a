//! `retrograde render FILE.rtb`: a heatmap PNG (one piece fixed) or the
//! overview PNG (the cop's winning share from every cell); on a table of
//! K cops, the thief's heatmap (K cops fixed), the last cop's heatmap
//! (K-1 cops and the thief fixed) and two overviews (K-1 cops fixed, or
//! none: every cell's share over the whole table).

use std::path::PathBuf;

use anyhow::Result;
use clap::Args as ClapArgs;
use retrograde::render::{heatmap, overview, Image};
use retrograde::{Coord, Tablebase, Turn};

use super::common::{parse_coord, UsageError};
use super::output::{note_input, OutputTarget};
use super::tables::{count_error, one_cop_shape, open_table, Side};
use crate::cli::failure::Failure;

/// Flags of `render`.
#[derive(ClapArgs, Debug)]
#[command(group(clap::ArgGroup::new("what").required(true).multiple(true).args(["cop", "thief", "overview"])))]
pub(crate) struct RenderArgs {
    /// Table file written by `solve --save` (for a partitioned solve: any
    /// shard, or the name it was saved under).
    table: PathBuf,
    /// Heatmap with the cop fixed on ROW,COL: every thief cell coloured.
    /// A table of K cops takes it K times (the thief's heatmap), or K-1
    /// times with --thief (the last cop's heatmap) or with --overview.
    #[arg(long, value_name = "ROW,COL", value_parser = parse_coord)]
    cop: Vec<Coord>,
    /// Heatmap with the thief fixed on ROW,COL: every cop cell coloured
    /// (on a table of K cops, every cell of the last cop, the other K-1
    /// fixed by --cop).
    #[arg(long, value_name = "ROW,COL", value_parser = parse_coord)]
    thief: Option<Coord>,
    /// For every cop cell, the share of thief cells from which the cop
    /// wins. On a table of K cops: with --cop K-1 times, for every cell of
    /// the last cop the share of thief cells (not under a cop) from which
    /// the cops win; with no --cop, for every cell C the share of states
    /// whose cops stand on C (each cop multiset containing C once, any
    /// thief cell not under a cop) that the cops win. The side to move is
    /// --turn's.
    #[arg(long)]
    overview: bool,
    /// Who moves [default: the rules' first mover].
    #[arg(long, value_enum)]
    turn: Option<Side>,
    /// The PNG file to write (`-`: standard output); PNG is the only
    /// format, so another extension is refused.
    #[arg(long, value_name = "OUT.png")]
    out: PathBuf,
}

/// Runs `render`; returns the exit status.
pub(crate) fn run(args: RenderArgs) -> Result<i32, Failure> {
    // The picture's path is checked before the table is read: a name
    // promising another format would get PNG bytes.
    if let Some(ext) = args.out.extension() {
        if !ext.eq_ignore_ascii_case("png") {
            return Err(UsageError(format!(
                "--out {}: cannot write .{} pictures; the supported format is PNG (.png)",
                args.out.display(),
                ext.to_string_lossy()
            ))
            .into());
        }
    }
    note_input("the table", &args.table)?;
    let target = OutputTarget::check("--out", &args.out)?;
    let tb = open_table(&args.table)?;
    if tb.grid().is_none() {
        return Err(UsageError(format!(
            "{}: the table is of a graph ({} vertices); render draws maps (query, play and info read graph tables)",
            args.table.display(),
            tb.header().cells
        ))
        .into());
    }
    let image = picture(&args, &tb)?;
    // Encoded first, then written: the encoder wraps write errors, which
    // would hide a closed standard output (`--out - | head`) from the
    // quiet exit every command gives it.
    let mut png = Vec::new();
    image.write_png(&mut png)?;
    target.write_with(|f| std::io::Write::write_all(f, &png))?;
    Ok(0)
}

/// The picture the flags ask of a table of `k` cops: `--cop` K times the
/// thief's heatmap, K-1 times with `--thief` the last cop's heatmap, K-1
/// times (or none) with `--overview` an overview.
fn picture(args: &RenderArgs, tb: &Tablebase) -> Result<Image, Failure> {
    let turn = args.turn.map_or(tb.first_mover(), Turn::from);
    let k = tb.cops() as usize;
    // A one-cop table without the game section (formats 2, 3 and 6) keeps
    // the one-cop pictures and refusals (`COP AT 1,2`); a table with the
    // game section says `COPS AT`, even of one cop.
    let one = one_cop_shape(tb);
    Ok(match (args.cop.as_slice(), args.thief, args.overview) {
        (cops, None, false) if cops.len() == k => heatmap(tb, cops, None, turn)?,
        (cops, Some(t), false) if cops.len() + 1 == k => heatmap(tb, cops, Some(t), turn)?,
        (cops, None, true) if cops.len() + 1 == k || cops.is_empty() => {
            overview(tb, cops, turn)?
        }
        (cops, _, _) if one && cops.len() > 1 => return Err(count_error(1, cops.len()).into()),
        _ if one => {
            return Err(UsageError(
                "a one-cop table draws one picture: --cop (the thief's heatmap), --thief (the cop's heatmap) or --overview, alone".into(),
            )
            .into())
        }
        (cops, thief, overview) => {
            return Err(
                UsageError(kcops_usage(k, cops.len(), thief.is_some(), overview)).into(),
            )
        }
    })
}

/// What a table of `k` cops draws, for a refused combination (`n`
/// `--cop`, whether `--thief` and `--overview` were given).
fn kcops_usage(k: usize, n: usize, thief: bool, overview: bool) -> String {
    let given = match (thief, overview) {
        (true, true) => " with --thief and --overview",
        (true, false) => " with --thief",
        (false, true) => " with --overview",
        (false, false) => "",
    };
    let times = |n: usize| {
        if n == 1 {
            "once".to_string()
        } else {
            format!("{n} times")
        }
    };
    format!(
        "a table of {k} cop{} draws: the thief's heatmap (--cop {}), the last cop's heatmap (--cop {} and --thief), the last cop's overview (--cop {} and --overview) or every cell's overview (--overview alone); found --cop {}{given}",
        if k == 1 { "" } else { "s" },
        times(k),
        times(k - 1),
        times(k - 1),
        times(n)
    )
}
