//! `play` on a several-cops table: the optimal game from the table's start
//! (or `--cop` K times, `--thief`), as boards (maps) or one line per ply
//! (`--moves`, large maps, graphs). `--interactive` and `--gif` are for
//! one-cop tables.

use std::io::Write;

use anyhow::Result;
use retrograde::{KPosition, KTablebase, Turn};

use super::{PlayArgs, BOARD_LIMIT};
use crate::cli::common::UsageError;
use crate::cli::ktable::{flag_position, pieces_text, show_all};
use crate::cli::tables::value_text;
use crate::cli::Failure;

/// The map with the pieces: `#` wall, `E` exit, `C` a cop (a digit for
/// several cops on one cell), `T` the thief, `X` the thief caught.
fn board_text(tb: &KTablebase, pos: &KPosition) -> String {
    let grid = tb.grid().expect("boards are drawn for maps");
    let mut s = String::new();
    for r in 0..grid.height() {
        for c in 0..grid.width() {
            let ch = match grid.cell_at(r, c) {
                None => '#',
                Some(cell) => {
                    let cops = pos.cops.iter().filter(|&&x| x == cell).count();
                    if cops > 0 && cell == pos.thief {
                        'X'
                    } else if cops == 1 {
                        'C'
                    } else if cops > 1 {
                        char::from_digit(cops as u32, 10).unwrap_or('C')
                    } else if cell == pos.thief {
                        'T'
                    } else if tb.is_exit(cell) {
                        'E'
                    } else {
                        '.'
                    }
                }
            };
            s.push(ch);
        }
        s.push('\n');
    }
    s
}

/// The ply from `before` to `after`, in words.
fn move_words(tb: &KTablebase, before: &KPosition, after: &KPosition) -> String {
    match before.turn {
        Turn::Cop if before.cops == after.cops => "the cops pass".to_string(),
        Turn::Cop => format!(
            "the cops move {} -> {}",
            show_all(tb, &before.cops, false),
            show_all(tb, &after.cops, false)
        ),
        Turn::Thief if before.thief == after.thief => "the thief passes".to_string(),
        Turn::Thief => format!(
            "the thief moves {} -> {}",
            show_all(tb, &[before.thief], false),
            show_all(tb, &[after.thief], false)
        ),
    }
}

/// How the game ended, in words.
fn ending(tb: &KTablebase, pos: &KPosition, repeated: bool, plies: usize) -> String {
    if pos.cops.contains(&pos.thief) {
        format!("the cops catch the thief after {plies} plies")
    } else if tb.is_exit(pos.thief) {
        format!("the thief escapes after {plies} plies")
    } else if repeated {
        super::repeated_words(tb.probe(pos).map(|p| p.value), pos.turn, plies)
    } else if tb.rated_moves(pos).map(|m| m.is_empty()).unwrap_or(false) {
        format!(
            "the {} cannot move after {plies} plies and loses",
            pos.turn.as_str()
        )
    } else {
        format!("stopped after {plies} plies (--max-plies)")
    }
}

fn start_position(args: &PlayArgs, tb: &KTablebase) -> Result<KPosition> {
    match args.thief {
        Some(t) => {
            let turn = args.turn.map_or(tb.first_mover(), Turn::from);
            flag_position(tb, &args.cop, t, turn, false)
        }
        None => {
            let mut start = tb.header().start.clone().ok_or_else(|| {
                UsageError(format!(
                    "the table was saved without a start: give --cop {} times and --thief",
                    tb.cops()
                ))
            })?;
            if let Some(t) = args.turn {
                start.turn = t.into();
            }
            Ok(start)
        }
    }
}

/// Runs `play` on a several-cops table; `gif` says whether `--gif` was
/// given (refused: pictures draw one cop).
pub(crate) fn run(args: &PlayArgs, tb: &KTablebase, gif: bool) -> Result<i32, Failure> {
    if args.interactive {
        return Err(UsageError(format!(
            "--interactive plays one-cop tables: the table is of {} cops",
            tb.cops()
        ))
        .into());
    }
    if gif {
        return Err(UsageError(format!(
            "--gif draws one-cop tables: the table is of {} cops (play without --gif prints the game)",
            tb.cops()
        ))
        .into());
    }
    let start = start_position(args, tb)?;
    let game = tb.optimal_game(&start, args.max_plies)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if !tb.header().has_dte {
        writeln!(
            out,
            "note: this table has no distances (saved without --dte-table): moves keep the value but may not be the fastest"
        )?;
    }
    let large = tb
        .grid()
        .is_some_and(|g| g.height() > BOARD_LIMIT.0 || g.width() > BOARD_LIMIT.1);
    if args.board && tb.grid().is_none() {
        return Err(UsageError("--board draws maps: the table is of a graph".into()).into());
    }
    let boards = tb.grid().is_some() && !args.moves && (args.board || !large);
    if large && !args.moves && !args.board {
        let grid = tb.grid().expect("large maps have a grid");
        writeln!(
            out,
            "note: the map is {} x {}: one line per ply (--board prints the board every ply)",
            grid.height(),
            grid.width()
        )?;
    }
    for (ply, pos) in game.iter().enumerate() {
        let p = tb.probe(pos)?;
        let what = match ply.checked_sub(1) {
            _ if boards => String::new(),
            Some(k) => format!("{}; ", move_words(tb, &game[k], pos)),
            None => "start; ".to_string(),
        };
        writeln!(
            out,
            "ply {ply}: {what}{} to move ({}): {} ({})",
            pos.turn.as_str(),
            pieces_text(tb, pos, false),
            value_text(p.value, p.dte),
            super::value_words(&p, pos.turn, "the cops win")
        )?;
        if boards {
            write!(out, "{}", board_text(tb, pos))?;
        }
    }
    let last = game.last().expect("a game has its start");
    let repeated = game[..game.len() - 1].contains(last);
    writeln!(out, "{}", ending(tb, last, repeated, game.len() - 1))?;
    Ok(0)
}
