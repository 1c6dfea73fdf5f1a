//! Several-cops tables from the command line: `solve --cops K --save`
//! writes one ([`save`]); `query` and `info` on one come here from their
//! commands once the table says it holds several cops (`play`'s part is
//! in `kplay.rs`). Cells are `ROW,COL` on maps (`X,Y` with `--xy`) and
//! vertex ids on graphs; the cops of a position are shown ascending by
//! cell (they are interchangeable).

use std::io::Write;

use anyhow::{Context, Result};
use retrograde::{
    write_kcops_tablebase, Coord, KCops, KPosition, KRatedMove, KTablebase, Rules, Solution, Turn,
};
use serde::Serialize;

use super::common::{human_bytes, parse_place, UsageError, VERTEX};
use super::info::{printable, rule_flags, InfoArgs};
use super::output::{save_with, CountsJson, OutputTarget, SaveReport};
use super::query::{read_line_bounded, value_text, Line, QueryArgs};
use super::Failure;

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
        write_kcops_tablebase(game, rules, start, solution, engine, out)
    })
}

/// A typed place (`ROW,COL`, `X,Y` with `xy`, or a vertex id) as a cell of
/// the table's game.
pub(crate) fn cell_of(tb: &KTablebase, what: &str, place: Coord, xy: bool) -> Result<u32> {
    Ok(match place {
        (VERTEX, v) => tb.vertex(what, v as u64)?,
        (a, b) => tb.map_cell(what, if xy { (b, a) } else { (a, b) })?,
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

fn print_text(out: &mut impl Write, tb: &KTablebase, pos: &KPosition, xy: bool) -> Result<()> {
    let probe = tb.probe(pos)?;
    let moves = tb.rated_moves(pos)?;
    writeln!(
        out,
        "{}, {} to move: {}",
        pieces_text(tb, pos, xy),
        pos.turn.as_str(),
        value_text(probe.value, probe.dte)
    )?;
    if moves.is_empty() {
        writeln!(out, "  no moves: the game is over")?;
    }
    for m in &moves {
        let (to, pass) = match pos.turn {
            Turn::Cop => (show_all(tb, &m.to.cops, xy), m.to.cops == pos.cops),
            Turn::Thief => (show(tb, m.to.thief, xy), m.to.thief == pos.thief),
        };
        let what = if pass { " (pass)" } else { "" };
        writeln!(out, "  {to}{what}: {}", value_text(m.value, m.dte))?;
    }
    Ok(())
}

/// Parses a stdin line `P1 .. Pk T [cop|thief]` of a table of `k` cops.
fn parse_line(tb: &KTablebase, line: &str, xy: bool) -> Result<KPosition> {
    let mut words: Vec<&str> = line.split_whitespace().collect();
    let turn = match words.last() {
        Some(&"cop") => Some(Turn::Cop),
        Some(&"thief") => Some(Turn::Thief),
        _ => None,
    };
    if turn.is_some() {
        words.pop();
    }
    let k = tb.cops() as usize;
    let cell = if tb.grid().is_some() { "ROW,COL" } else { "V" };
    if words.len() != k + 1 {
        return Err(UsageError(format!(
            "expected {k} cop cell{} and the thief's ({cell}), then an optional `cop` or `thief`; found {} cells in `{line}`",
            if k == 1 { "" } else { "s" },
            words.len()
        ))
        .into());
    }
    let places = words
        .iter()
        .map(|w| parse_place(w).map_err(UsageError))
        .collect::<Result<Vec<_>, _>>()?;
    let turn = turn.unwrap_or(tb.first_mover());
    flag_position(tb, &places[..k], places[k], turn, xy)
}

/// `query` on a several-cops table.
pub(crate) fn query(args: &QueryArgs, tb: &KTablebase) -> Result<i32, Failure> {
    if args.scen.is_some() {
        return Err(UsageError(format!(
            "--scen places one cop per entry: the table is of {} cops",
            tb.cops()
        ))
        .into());
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let answer = |out: &mut std::io::StdoutLock<'_>, pos: &KPosition| -> Result<()> {
        if args.json {
            serde_json::to_writer(&mut *out, &kposition_json(tb, pos)?)?;
            writeln!(out)?;
        } else {
            print_text(out, tb, pos, args.xy)?;
        }
        Ok(())
    };
    if !args.stdin {
        let turn = args.turn.map_or(tb.first_mover(), Turn::from);
        let thief = args.thief.expect("clap requires --thief without --stdin");
        let pos = flag_position(tb, &args.cop, thief, turn, args.xy)?;
        answer(&mut out, &pos)?;
        return Ok(0);
    }
    // As for one cop: a bad line is reported and skipped.
    let mut status = 0;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    let mut number = 0;
    loop {
        number += 1;
        let line =
            match read_line_bounded(&mut input, &mut buf).context("cannot read standard input")? {
                Line::End => break,
                Line::Text(line) => line,
                Line::Bad(why) => {
                    out.flush()?;
                    say!("error: stdin:{number}: {why}");
                    status = super::EXIT_INPUT;
                    continue;
                }
            };
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(tb, &line, args.xy) {
            Ok(pos) => answer(&mut out, &pos)?,
            Err(e) => {
                out.flush()?;
                say!("error: stdin:{number}: {e:#}");
                status = super::EXIT_INPUT;
            }
        }
    }
    Ok(status)
}

/// The JSON of `info` on a several-cops table.
#[derive(Serialize, Debug)]
struct KInfoReport {
    table: String,
    version: u32,
    /// Number of cops.
    cops: u32,
    cop_speed: u32,
    thief_speed: u32,
    /// `map` or `graph`.
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cols: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    edges: Option<u64>,
    /// Free cells of a map, vertices of a graph.
    cells: u64,
    exits: u64,
    /// The start cops (ascending) and thief, if the solve had a start.
    start_cops: Option<Vec<serde_json::Value>>,
    start_thief: Option<serde_json::Value>,
    rules: Vec<&'static str>,
    states: u64,
    counts: CountsJson,
    levels: u32,
    engine: String,
    distances: bool,
    bytes: u64,
    value_bits_per_state: f64,
    dte_bits_per_state: f64,
    blocks: [u64; 2],
    checked: bool,
}

/// `info` on a several-cops table.
pub(crate) fn info(args: &InfoArgs, tb: &KTablebase) -> Result<i32, Failure> {
    let started = std::time::Instant::now();
    if args.check {
        tb.check()?;
    }
    let h = tb.header();
    let states = h.states.max(1) as f64;
    let mut rules = rule_flags(h.rules);
    if h.graph {
        // Moves on a graph follow its edges: only passing and the first
        // mover are rules there.
        rules.retain(|f| matches!(*f, "--no-cop-pass" | "--no-thief-pass" | "--thief-first"));
    }
    let r = KInfoReport {
        table: args.table.display().to_string(),
        version: h.version,
        cops: h.cops,
        cop_speed: h.cop_speed,
        thief_speed: h.thief_speed,
        kind: if h.graph { "graph" } else { "map" },
        rows: (!h.graph).then_some(h.rows),
        cols: (!h.graph).then_some(h.cols),
        edges: h.graph.then_some(h.edges),
        cells: h.cells,
        exits: h.exits,
        start_cops: h
            .start
            .as_ref()
            .map(|s| s.cops.iter().map(|&c| cell_json(tb, c)).collect()),
        start_thief: h.start.as_ref().map(|s| cell_json(tb, s.thief)),
        rules,
        states: h.states,
        counts: h.counts.into(),
        levels: h.levels,
        engine: h.engine.clone(),
        distances: h.has_dte,
        bytes: h.file_bytes,
        value_bits_per_state: h.value_bytes as f64 * 8.0 / states,
        dte_bits_per_state: h.dte_bytes as f64 * 8.0 / states,
        blocks: [h.value_blocks, h.dte_blocks],
        checked: args.check,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        serde_json::to_writer(&mut out, &super::schema::versioned(&r))?;
        writeln!(out)?;
        return Ok(0);
    }
    writeln!(out, "table: {} (format version {})", r.table, r.version)?;
    writeln!(
        out,
        "game: {} cop{}, cop speed {}, thief speed {}",
        r.cops,
        if r.cops == 1 { "" } else { "s" },
        r.cop_speed,
        r.thief_speed
    )?;
    let start = match &h.start {
        Some(s) => format!(
            "cops {}, thief {}",
            show_all(tb, &s.cops, false),
            show(tb, s.thief, false)
        ),
        None => "none".to_string(),
    };
    if h.graph {
        writeln!(
            out,
            "graph: {} vertices, {} edges, {} exits; start: {start}",
            r.cells, h.edges, r.exits
        )?;
    } else {
        writeln!(
            out,
            "map: {} x {}, {} free cells, {} exits; start: {start}",
            h.rows, h.cols, r.cells, r.exits
        )?;
    }
    writeln!(
        out,
        "rules: {}",
        if r.rules.is_empty() {
            "standard".to_string()
        } else {
            r.rules.join(" ")
        }
    )?;
    writeln!(out, "{}", r.counts.states_line(r.states))?;
    writeln!(
        out,
        "solved by: {} engine, {} levels; distances: {}",
        printable(&r.engine),
        r.levels,
        if r.distances { "yes" } else { "no" }
    )?;
    writeln!(
        out,
        "size: {} ({} bytes); values {:.4} bits/state in {} blocks{}",
        human_bytes(r.bytes),
        r.bytes,
        r.value_bits_per_state,
        r.blocks[0],
        if r.distances {
            format!(
                ", distances {:.4} bits/state in {} blocks",
                r.dte_bits_per_state, r.blocks[1]
            )
        } else {
            String::new()
        }
    )?;
    if args.check {
        writeln!(
            out,
            "check: every block verified in {:.3} s",
            started.elapsed().as_secs_f64()
        )?;
    }
    Ok(0)
}
