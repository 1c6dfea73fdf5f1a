//! `retrograde play FILE.rtb`: the optimal game from the start (or a
//! given position) as text frames (boards on maps, one line per ply with
//! `--moves`, on large maps and on graphs) and optionally a GIF;
//! `--interactive`: a person plays one side against the table. One code
//! path for tables of any number of cops.

/// A person against the table.
mod interactive;
/// The game told as text.
mod text;

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args as ClapArgs;
use retrograde::render::{game_frames, write_gif};
use retrograde::{Coord, Position, Tablebase, Turn};

use self::text::{board_text, ending, move_words, pieces, value_words};
use super::common::{parse_place, UsageError};
use super::output::{note_input, OutputTarget};
use super::tables::{flag_position, one_cop_shape, open_table, value_text, Side};
use crate::cli::failure::Failure;

/// Flags of `play`.
#[derive(ClapArgs, Debug)]
pub(crate) struct PlayArgs {
    /// Table file written by `solve --save` (for a partitioned solve: any
    /// shard, or the name it was saved under).
    pub(crate) table: PathBuf,
    /// The cop's cell ROW,COL [default: the map's start]; a table of K
    /// cops takes it K times, a graph's table vertex ids V.
    #[arg(long, value_name = "ROW,COL", value_parser = parse_place, requires = "thief")]
    pub(crate) cop: Vec<Coord>,
    /// The thief's cell ROW,COL (V on a graph) [default: the map's start].
    #[arg(long, value_name = "ROW,COL", value_parser = parse_place, requires = "cop")]
    pub(crate) thief: Option<Coord>,
    /// Who moves first [default: the rules' first mover].
    #[arg(long, value_enum)]
    pub(crate) turn: Option<Side>,
    /// Also write the game as an animated GIF.
    #[arg(long, value_name = "OUT.gif", conflicts_with = "interactive")]
    pub(crate) gif: Option<PathBuf>,
    /// Play one side yourself (moves read from stdin) against the table.
    #[arg(long)]
    pub(crate) interactive: bool,
    /// The side you play with --interactive [default: the side to move].
    #[arg(long, value_enum, requires = "interactive")]
    pub(crate) side: Option<Side>,
    /// One line per ply (the move and the value), no board: the default
    /// on maps over 40 rows or 80 columns, and on graphs.
    #[arg(long, conflicts_with_all = ["board", "interactive"])]
    pub(crate) moves: bool,
    /// The board after every ply, whatever the map's size.
    #[arg(long)]
    pub(crate) board: bool,
    /// Stop after this many plies.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub(crate) max_plies: usize,
}

/// A board larger than this (rows, columns) is not printed every ply
/// unless `--board` asks: 40 x 80 fits a terminal, and a 194 x 194 map
/// would print thousands of lines for one game.
const BOARD_LIMIT: (usize, usize) = (40, 80);

/// One ply: `ply N: ` and `what` (the move, or nothing before a board),
/// who moves, the pieces and the value; then the board, if `board`.
fn ply_line(
    out: &mut impl Write,
    tb: &Tablebase,
    ply: usize,
    what: &str,
    pos: &Position,
    board: bool,
) -> Result<()> {
    let p = tb.probe(pos)?;
    writeln!(
        out,
        "ply {ply}: {what}{} to move ({}): {} ({})",
        pos.turn.as_str(),
        pieces(tb, pos),
        value_text(p.value, p.dte),
        value_words(tb, &p, pos.turn)
    )?;
    if board {
        write!(out, "{}", board_text(tb, pos))?;
    }
    Ok(())
}

/// The game's first position: the flags', or the table's start with
/// `--turn`'s side to move.
fn start_position(args: &PlayArgs, tb: &Tablebase) -> Result<Position> {
    if let Some(thief) = args.thief {
        let turn = args.turn.map_or(tb.first_mover(), Turn::from);
        return flag_position(tb, &args.cop, thief, turn, false);
    }
    let mut start = tb.start().ok_or_else(|| {
        UsageError(if one_cop_shape(tb) {
            "the table's map has no cop and thief start: give --cop and --thief".to_string()
        } else {
            format!(
                "the table was saved without a start: give --cop {} times and --thief",
                tb.cops()
            )
        })
    })?;
    if let Some(t) = args.turn {
        start.turn = t.into();
    }
    Ok(start)
}

/// Refuses what only one-cop tables do (`--interactive`, `--gif`) on a
/// table with the several-cops game section.
fn refuse_one_cop_only(args: &PlayArgs, tb: &Tablebase, gif: bool) -> Result<(), UsageError> {
    if one_cop_shape(tb) {
        return Ok(());
    }
    if args.interactive {
        return Err(UsageError(format!(
            "--interactive plays one-cop tables: the table is of {} cops",
            tb.cops()
        )));
    }
    if gif {
        return Err(UsageError(format!(
            "--gif draws one-cop tables: the table is of {} cops (play without --gif prints the game)",
            tb.cops()
        )));
    }
    Ok(())
}

/// Runs `play`; returns the exit status.
pub(crate) fn run(args: PlayArgs) -> Result<i32, Failure> {
    // The picture's path is checked before any work.
    note_input("the table", &args.table)?;
    let gif_target = args
        .gif
        .as_deref()
        .map(|p| OutputTarget::check("--gif", p))
        .transpose()?;
    let tb = open_table(&args.table)?;
    refuse_one_cop_only(&args, &tb, gif_target.is_some())?;
    let start = start_position(&args, &tb)?;
    if args.interactive {
        let human = args.side.map_or(start.turn, Turn::from);
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        return Ok(interactive::interactive(
            &tb,
            start,
            human,
            args.max_plies,
            &mut stdin.lock(),
            &mut stdout.lock(),
        )?);
    }
    let game = tb.optimal_game(&start, args.max_plies)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    print_game(&args, &tb, &game, &mut out)?;
    if let Some(target) = gif_target {
        let frames = game_frames(&tb, &game)?;
        // Encoded first, as render's PNG: a closed pipe stays visible.
        let mut gif = Vec::new();
        write_gif(&frames, &mut gif)?;
        target.write_with(|f| f.write_all(&gif))?;
    }
    Ok(0)
}

/// The game as text: notes, a line (and a board) per ply, the ending.
fn print_game(
    args: &PlayArgs,
    tb: &Tablebase,
    game: &[Position],
    out: &mut impl Write,
) -> Result<(), Failure> {
    if !tb.header().has_dte {
        writeln!(
            out,
            "note: this table has no distances (saved without --dte-table): moves keep the value but may not be the fastest"
        )?;
    }
    let grid = tb.grid();
    if args.board && grid.is_none() {
        return Err(UsageError("--board draws maps: the table is of a graph".into()).into());
    }
    let large = grid.is_some_and(|g| g.height() > BOARD_LIMIT.0 || g.width() > BOARD_LIMIT.1);
    let boards = grid.is_some() && !args.moves && (args.board || !large);
    if let Some(g) = grid.filter(|_| large && !args.moves && !args.board) {
        writeln!(
            out,
            "note: the map is {} x {}: one line per ply (--board prints the board every ply)",
            g.height(),
            g.width()
        )?;
    }
    for (ply, pos) in game.iter().enumerate() {
        if boards {
            ply_line(out, tb, ply, "", pos, true)?;
            continue;
        }
        let what = match ply.checked_sub(1) {
            Some(k) => format!("{}; ", move_words(tb, &game[k], pos)),
            None => "start; ".to_string(),
        };
        ply_line(out, tb, ply, &what, pos, false)?;
    }
    let last = game.last().expect("a game has its start");
    let repeated = game[..game.len() - 1].contains(last);
    writeln!(out, "{}", ending(tb, last, repeated, game.len() - 1))?;
    Ok(())
}
