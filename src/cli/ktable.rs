//! Several-cops tables from the command line: `solve --cops K --save`
//! writes one ([`save`]); and what `query`, `info` and `play` share when
//! the table holds several cops (their parts are `query/kcops.rs`,
//! `info/kcops.rs`, `play/kcops.rs`, each under its command, so that this
//! file depends on none of them). Cells are `ROW,COL` on maps (`X,Y` with `--xy`) and
//! vertex ids on graphs; the cops of a position are shown ascending by
//! cell (they are interchangeable).

use anyhow::Result;
use retrograde::{
    write_tablebase, Coord, KCops, KPosition, KRatedMove, KTablebase, Rules, Solution, Turn,
};
use serde::Serialize;

use super::common::{as_typed, UsageError, VERTEX};
use super::output::{save_with, OutputTarget, SaveReport};

/// Writes the several-cops table of `game` to `target` atomically
/// (temporary file, then rename).
pub(crate) fn save(
    target: OutputTarget,
    game: &KCops,
    rules: Rules,
    start: Option<(&[u32], u32)>,
    solution: &Solution,
    engine: &str,
) -> Result<SaveReport> {
    save_with(target, |out| {
        write_tablebase(
            retrograde::SavedGame::Cops { game, rules, start },
            solution,
            engine,
            out,
        )
    })
}

/// A typed place (`ROW,COL`, `X,Y` with `xy`, or a vertex id) as a cell of
/// the table's game.
pub(crate) fn cell_of(tb: &KTablebase, what: &str, place: Coord, xy: bool) -> Result<u32> {
    Ok(match place {
        (VERTEX, v) => tb.vertex(what, v as u64)?,
        (a, b) => tb
            .map_cell(what, if xy { (b, a) } else { (a, b) })
            .map_err(|e| as_typed(e, xy))?,
    })
}

/// The refusal of a wrong number of `--cop` for a table of `k` cops.
pub(crate) fn count_error(k: u32, found: usize) -> UsageError {
    if k == 1 {
        UsageError(format!(
            "the table is of one cop: give --cop once, found {found}"
        ))
    } else {
        UsageError(format!(
            "the table is of {k} cops: give --cop {k} times (one per cop), found {found}"
        ))
    }
}

/// The position of `--cop` (k times), `--thief` and the turn.
pub(crate) fn flag_position(
    tb: &KTablebase,
    cops: &[Coord],
    thief: Coord,
    turn: Turn,
    xy: bool,
) -> Result<KPosition> {
    if cops.len() != tb.cops() as usize {
        return Err(count_error(tb.cops(), cops.len()).into());
    }
    let cells = cops
        .iter()
        .map(|&c| cell_of(tb, "--cop", c, xy))
        .collect::<Result<Vec<_>>>()?;
    let thief = cell_of(tb, "--thief", thief, xy)?;
    Ok(tb.position(&cells, thief, turn)?)
}

/// A cell as text: `row,col` (`x,y` with `xy`) on a map, the vertex id on
/// a graph.
pub(crate) fn show(tb: &KTablebase, cell: u32, xy: bool) -> String {
    match tb.grid() {
        Some(grid) => {
            let (r, c) = grid.coords(cell);
            if xy {
                format!("{c},{r}")
            } else {
                format!("{r},{c}")
            }
        }
        None => cell.to_string(),
    }
}

/// Cells as text, space-separated.
pub(crate) fn show_all(tb: &KTablebase, cells: &[u32], xy: bool) -> String {
    let shown: Vec<String> = cells.iter().map(|&c| show(tb, c, xy)).collect();
    shown.join(" ")
}

/// A cell as JSON: `[row, column]` on a map, the vertex id on a graph.
pub(crate) fn cell_json(tb: &KTablebase, cell: u32) -> serde_json::Value {
    match tb.grid() {
        Some(grid) => {
            let (r, c) = grid.coords(cell);
            serde_json::json!([r, c])
        }
        None => serde_json::json!(cell),
    }
}

/// One rated move in [`KPositionJson`].
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct KMoveJson {
    /// The mover's cells after the move: the cops' (a list) or the
    /// thief's.
    to: serde_json::Value,
    value: &'static str,
    dte: Option<u32>,
}

/// The JSON of one position of a several-cops table (`query --json`,
/// `serve`'s API): the cops (ascending), the thief, the turn, the value and
/// distance for the player to move, every move rated best first.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct KPositionJson {
    schema: u32,
    cops: Vec<serde_json::Value>,
    thief: serde_json::Value,
    turn: &'static str,
    value: &'static str,
    dte: Option<u32>,
    moves: Vec<KMoveJson>,
}

/// The mover's cells after `m`, as JSON.
fn move_to_json(tb: &KTablebase, turn: Turn, m: &KRatedMove) -> serde_json::Value {
    match turn {
        Turn::Cop => m.to.cops.iter().map(|&c| cell_json(tb, c)).collect(),
        Turn::Thief => cell_json(tb, m.to.thief),
    }
}

/// The JSON of one position.
pub(crate) fn kposition_json(tb: &KTablebase, pos: &KPosition) -> Result<KPositionJson> {
    let probe = tb.probe(pos)?;
    let moves = tb
        .rated_moves(pos)?
        .iter()
        .map(|m| KMoveJson {
            to: move_to_json(tb, pos.turn, m),
            value: m.value.as_str(),
            dte: m.dte.map(|d| d.plies()),
        })
        .collect();
    Ok(KPositionJson {
        schema: super::schema::SCHEMA,
        cops: pos.cops.iter().map(|&c| cell_json(tb, c)).collect(),
        thief: cell_json(tb, pos.thief),
        turn: pos.turn.as_str(),
        value: probe.value.as_str(),
        dte: probe.dte.map(|d| d.plies()),
        moves,
    })
}

/// `cops 0,0 0,3 thief 1,2`: a position's pieces as text.
pub(crate) fn pieces_text(tb: &KTablebase, pos: &KPosition, xy: bool) -> String {
    format!(
        "cop{} {} thief {}",
        if pos.cops.len() == 1 { "" } else { "s" },
        show_all(tb, &pos.cops, xy),
        show(tb, pos.thief, xy)
    )
}
