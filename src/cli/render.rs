//! `retrograde render FILE.rtb`: a heatmap PNG (one piece fixed) or the
//! overview PNG (the cop's winning share from every cell).

use std::path::PathBuf;

use anyhow::Result;
use clap::Args as ClapArgs;
use retrograde::render::{heatmap, kheatmap, overview, Fixed};
use retrograde::{AnyTablebase, Coord, Turn};

use super::common::{parse_coord, UsageError};
use super::output::{note_input, OutputTarget};
use super::query::{open_any_table, Side};
use super::Failure;

/// Flags of `render`.
#[derive(ClapArgs, Debug)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["cop", "thief", "overview"])))]
pub(crate) struct RenderArgs {
    /// Table file written by `solve --save` (for a partitioned solve: any
    /// shard, or the name it was saved under).
    table: PathBuf,
    /// Heatmap with the cop fixed on ROW,COL: every thief cell coloured;
    /// a table of K cops takes it K times.
    #[arg(long, value_name = "ROW,COL", value_parser = parse_coord)]
    cop: Vec<Coord>,
    /// Heatmap with the thief fixed on ROW,COL: every cop cell coloured.
    #[arg(long, value_name = "ROW,COL", value_parser = parse_coord)]
    thief: Option<Coord>,
    /// For every cop cell, the share of thief cells from which the cop wins.
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
    let image = match open_any_table(&args.table)? {
        AnyTablebase::One(tb) => {
            let turn = args.turn.map_or(tb.first_mover(), Turn::from);
            match (args.cop.as_slice(), args.thief) {
                ([c], _) => heatmap(&tb, Fixed::Cop(*c), turn)?,
                ([], Some(t)) => heatmap(&tb, Fixed::Thief(t), turn)?,
                ([], None) => overview(&tb, turn)?,
                (cops, _) => return Err(super::ktable::count_error(1, cops.len()).into()),
            }
        }
        AnyTablebase::Several(tb) => {
            let turn = args.turn.map_or(tb.first_mover(), Turn::from);
            if args.cop.len() != tb.cops() as usize {
                return Err(UsageError(format!(
                    "a table of {} cops draws the heatmap of the thief with every cop fixed: give --cop {} times{}",
                    tb.cops(),
                    tb.cops(),
                    if args.cop.is_empty() { " (--thief and --overview draw one-cop tables)" } else { "" }
                ))
                .into());
            }
            kheatmap(&tb, &args.cop, turn)?
        }
    };
    // Encoded first, then written: the encoder wraps write errors, which
    // would hide a closed standard output (`--out - | head`) from the
    // quiet exit every command gives it.
    let mut png = Vec::new();
    image.write_png(&mut png)?;
    target.write_with(|f| std::io::Write::write_all(f, &png))?;
    Ok(0)
}
