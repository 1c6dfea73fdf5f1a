//! A game told as text: the board, a ply's move, the value in words and
//! how the game ended, for a table of any number of cops: "the cop wins"
//! in the one-cop shape ([`one_cop_shape`]), else "the cops", even of one.

use retrograde::{Outcome, Position, Probe, Tablebase, Turn};

use crate::cli::tables::{one_cop_shape, pieces_text, show, show_all};

/// The map with the pieces: `#` wall, `E` exit, `C` a cop (a digit for
/// several cops on one cell), `T` the thief, `X` the thief caught.
pub(super) fn board_text(tb: &Tablebase, pos: &Position) -> String {
    let grid = tb.grid().expect("boards are drawn for maps");
    let mut s = String::new();
    for r in 0..grid.height() {
        for c in 0..grid.width() {
            s.push(match grid.cell_at(r, c) {
                None => '#',
                Some(cell) => cell_char(tb, pos, cell),
            });
        }
        s.push('\n');
    }
    s
}

/// The board's character of free cell `cell`.
fn cell_char(tb: &Tablebase, pos: &Position, cell: u32) -> char {
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

/// The pieces of a position: `cop 1,2, thief 3,4` on a one-cop table,
/// `cops 1,2 5,6 thief 3,4` otherwise.
pub(super) fn pieces(tb: &Tablebase, pos: &Position) -> String {
    if one_cop_shape(tb) {
        format!(
            "cop {}, thief {}",
            show(tb, pos.cops[0], false),
            show(tb, pos.thief, false)
        )
    } else {
        pieces_text(tb, pos, false)
    }
}

/// The value for the cops' side told as words: "the cop wins in 3
/// plies", "the thief escapes", "a draw".
pub(super) fn value_words(tb: &Tablebase, p: &Probe, turn: Turn) -> String {
    let cops = if turn == Turn::Cop {
        p.value
    } else {
        p.value.flip()
    };
    let what = match cops {
        Outcome::Win if one_cop_shape(tb) => "the cop wins",
        Outcome::Win => "the cops win",
        Outcome::Loss => "the thief escapes",
        Outcome::Draw => "a draw",
    };
    match p.dte {
        Some(d) => format!(
            "{what} in {d} {}",
            if d.plies() == 1 { "ply" } else { "plies" }
        ),
        None => what.to_string(),
    }
}

/// The ply from `before` to `after`, in words.
pub(super) fn move_words(tb: &Tablebase, before: &Position, after: &Position) -> String {
    let (who, moves, passes) = match before.turn {
        Turn::Cop if one_cop_shape(tb) => ("the cop", "moves", "passes"),
        Turn::Cop => ("the cops", "move", "pass"),
        Turn::Thief => ("the thief", "moves", "passes"),
    };
    // The mover's cells after the ply: the side that moved is `before`'s.
    let to = match before.turn {
        Turn::Cop => after.cops.as_slice(),
        Turn::Thief => std::slice::from_ref(&after.thief),
    };
    if before.mover() == to {
        format!("{who} {passes}")
    } else {
        format!(
            "{who} {moves} {} -> {}",
            show_all(tb, before.mover(), false),
            show_all(tb, to, false)
        )
    }
}

/// The end of a game at a repeated position, in words, from what the
/// table says of it (`value`): a draw only when the table says so.
fn repeated_words(value: retrograde::Result<Outcome>, turn: Turn, plies: usize) -> String {
    match value {
        Ok(Outcome::Draw) => {
            format!("the position repeats after {plies} plies: a draw (the thief evades forever)")
        }
        Ok(value) => format!(
            "stopped after {plies} plies at a repeated position: the table says {} for the {} to move, but it keeps no distances (saved without --dte-table), so the game cannot be played out to its end",
            value.as_str().to_uppercase(),
            turn.as_str()
        ),
        Err(e) => format!("stopped after {plies} plies: {e}"),
    }
}

/// How a game ended at `pos` after `plies` plies, in words; `repeated`:
/// the game stopped at a position seen before.
pub(super) fn ending(tb: &Tablebase, pos: &Position, repeated: bool, plies: usize) -> String {
    let one = one_cop_shape(tb);
    if pos.cops.contains(&pos.thief) {
        let catch = if one {
            "the cop catches"
        } else {
            "the cops catch"
        };
        format!("{catch} the thief after {plies} plies")
    } else if tb.is_exit(pos.thief) {
        format!("the thief escapes after {plies} plies")
    } else if repeated {
        // Without distances the moves keep the value but need not make
        // progress: a decided position can cycle, and the verdict is then
        // the table's, never "a draw".
        repeated_words(tb.probe(pos).map(|p| p.value), pos.turn, plies)
    } else if tb.rated_moves(pos).map(|m| m.is_empty()).unwrap_or(false) {
        // The one-cop command never said "the" here.
        let the = if one { "" } else { "the " };
        format!(
            "{the}{} cannot move after {plies} plies and loses",
            pos.turn.as_str()
        )
    } else {
        format!("stopped after {plies} plies (--max-plies)")
    }
}
