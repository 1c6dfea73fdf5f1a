//! `copnumber MAP`: the cop number of a grid map (seed text or MovingAI)
//! under `solve`'s rule and exit flags (by default the standard rules:
//! cops in 8 directions, the thief in 4, both may pass; the map's exits),
//! with a winning placement as `row,col` cells and its capture time, and
//! under `--cop-speed` / `--thief-speed` with fast pieces. Told from graphs
//! by content, before the graph reader.

use std::io::{BufRead, Write};
use std::path::Path;

use anyhow::Result;
use retrograde::copnumber::{kcop_memory_for, solve_kcops, CopNumber, KArena, KcopOptions};
use retrograde::{parse_map, sniff_map, Arena, Board, MapFormat};
use serde::Serialize;

use super::super::common::UsageError;
use super::super::info::rule_flags;
use super::super::schema::versioned;
use super::super::Failure;
use super::{is_one, speed_note, CopNumberArgs};

/// Bytes of the input looked at to tell a map from a graph.
const PEEK: usize = 1 << 16;

/// Whether the input starting with `head` is a grid map: a MovingAI header
/// (`type ...`), or a seed header `ROWS COLUMNS` (both at least 1) whose
/// next line is a row of exactly COLUMNS characters and not itself two
/// integers. An edge list's first two lines are both `u v`, so `2 3`
/// then `0 1` stays a graph; a seed map whose first row has the wrong
/// length is read as an edge list and refused at that line.
pub(super) fn looks_like_map(head: &[u8]) -> bool {
    match sniff_map(head) {
        Some(MapFormat::MovingAi) => true,
        Some(MapFormat::Seed) => {
            let head = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(head);
            let mut lines = head
                .split(|&b| b == b'\n')
                .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
            let first = String::from_utf8_lossy(lines.next().unwrap_or_default()).into_owned();
            let dims: Vec<u64> = first
                .split_whitespace()
                .filter_map(|t| t.parse().ok())
                .collect();
            let Some(row) = lines.next() else {
                return false;
            };
            let text = String::from_utf8_lossy(row);
            let words: Vec<&str> = text.split_whitespace().collect();
            let two_integers = words.len() == 2 && words.iter().all(|w| w.parse::<u64>().is_ok());
            dims.len() == 2
                && dims[0] >= 1
                && dims[1] >= 1
                && row.len() as u64 == dims[1]
                && !two_integers
        }
        None => false,
    }
}

/// The first bytes of `input` without consuming them.
pub(super) fn peek(input: &mut dyn BufRead) -> std::io::Result<Vec<u8>> {
    Ok(input.fill_buf()?[..].iter().take(PEEK).copied().collect())
}

#[derive(Serialize)]
struct MapJson<'a> {
    map: &'a str,
    format: &'static str,
    height: usize,
    width: usize,
    cells: usize,
    exits: usize,
    /// The rule variant, as `solve` flags (`info`'s vocabulary; empty for
    /// the standard rules).
    rules: Vec<&'static str>,
    /// The exit flags given (`--exit ROW,COL`, `--exits RULE`), empty when
    /// the map's own exits were used.
    exit_flags: Vec<String>,
    /// `--cop-speed`; left out at 1, as before speeds existed.
    #[serde(skip_serializing_if = "is_one")]
    cop_speed: u32,
    /// `--thief-speed`; left out at 1.
    #[serde(skip_serializing_if = "is_one")]
    thief_speed: u32,
    cop_number: Option<u32>,
    /// The winning placement's cells as `[row, column]`.
    placement: Vec<[usize; 2]>,
    /// Null when the cops cannot win, as for graphs.
    capture_time: Option<u32>,
    capture_time_plies: Option<u32>,
}

/// Reads the map from `input` and prints its cop number.
pub(super) fn run(
    args: &CopNumberArgs,
    path: &Path,
    mut input: Box<dyn BufRead>,
) -> Result<i32, Failure> {
    let mut bytes = Vec::new();
    input
        .read_to_end(&mut bytes)
        .map_err(|source| retrograde::Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
    let name = path.display().to_string();
    let game = &args.game;
    if !game.cop.is_empty() || game.thief.is_some() {
        return Err(UsageError(
            "--cop / --thief: the cop number tries every placement of the cops and every thief cell; starts are for solve"
                .into(),
        )
        .into());
    }
    if game.thief_first {
        return Err(UsageError(
            "--thief-first: the cop number places the cops, then the thief, and the cops move first (docs/rules.md, \"Several cops\"); solve --cops K --thief-first answers a thief-first game"
                .into(),
        )
        .into());
    }
    let map = parse_map(&bytes, &name)?;
    let walls = retrograde::Map {
        cop: None,
        thief: None,
        ..map
    };
    // As `solve --cops K` builds its arena: the map's starts left out, the
    // exits from the flags (or the map's), the rules from the flags.
    let board = Board::new(&walls, &game.placement())?;
    let rules = game.rules();
    let (cop_speed, thief_speed) = (args.speeds.cop_speed, args.speeds.thief_speed);
    let arena =
        KArena::from_arena(&Arena::from_board(&board, rules).with_speeds(cop_speed, thief_speed));
    let exit_flags: Vec<String> = game
        .answer_flags()
        .into_iter()
        .filter(|f| f.starts_with("--exit"))
        .collect();
    let mut rule_words: Vec<String> = exit_flags.clone();
    rule_words.extend(rule_flags(rules).iter().map(|f| f.to_string()));
    if args.counts {
        return Err(super::super::common::UsageError(
            "--counts summarises a stream of graphs; a map has one answer (leave --counts out)"
                .into(),
        )
        .into());
    }
    if let Some(k) = args.full_solve {
        check(&arena, k as usize, path)?;
        let stdout = std::io::stdout();
        super::full_solve(&mut stdout.lock(), &arena, k)?;
        return Ok(0);
    }
    let r = cop_number(&arena, args.max_cops, path)?;
    let grid = &board.grid;
    // Text output writes cells as x,y under --xy, as solve does.
    let show = |&[r, c]: &[usize; 2]| {
        if game.xy {
            format!("{c},{r}")
        } else {
            format!("{r},{c}")
        }
    };
    let mut told = if rule_words.is_empty() {
        String::new()
    } else {
        format!("\trules {}", rule_words.join(" "))
    };
    if let Some(speeds) = speed_note(cop_speed, thief_speed) {
        told = format!("{told}\t{speeds}");
    }
    let cells: Vec<[usize; 2]> = r
        .placement
        .iter()
        .map(|&c| {
            let (row, col) = grid.coords(c);
            [row, col]
        })
        .collect();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        let j = MapJson {
            map: &name,
            format: walls.format.as_str(),
            height: grid.height(),
            width: grid.width(),
            cells: arena.n,
            exits: arena.exits.iter().filter(|&&e| e).count(),
            rules: rule_flags(rules),
            exit_flags,
            cop_speed,
            thief_speed,
            cop_number: r.cop_number,
            placement: cells,
            capture_time: r.cop_number.map(|_| r.capture_time_rounds),
            capture_time_plies: r.cop_number.map(|_| r.capture_time_plies),
        };
        serde_json::to_writer(&mut out, &versioned(&j))?;
        writeln!(out)?;
        return Ok(0);
    }
    match r.cop_number {
        Some(c) => {
            let p: Vec<String> = cells.iter().map(show).collect();
            writeln!(
                out,
                "{name}\tcop number {c}\tplacement {}\tcapture time {} rounds ({} plies){told}",
                p.join(" "),
                r.capture_time_rounds,
                r.capture_time_plies
            )?;
        }
        None => writeln!(out, "{name}\tcop number more than {}{told}", args.max_cops)?,
    }
    Ok(0)
}

/// Refuses a solve of `k` cops that would not fit in the available memory.
fn check(arena: &KArena, k: usize, path: &Path) -> Result<(), Failure> {
    let needed = kcop_memory_for(arena, k, false);
    let available = retrograde::available_memory();
    if needed > available {
        return Err(retrograde::Error::TooLarge {
            what: format!("{}: {k} cops on {} cells", path.display(), arena.n),
            needed,
            available,
            hint: if k > 1 {
                format!("give --max-cops {} to stop before", k - 1)
            } else {
                "this map is too large for this machine".to_string()
            },
        }
        .into());
    }
    Ok(())
}

/// The cop number with 1 to `max` cops, each solve stopped at the first
/// level where a placement wins against every thief cell; a number of cops
/// whose solve would not fit in memory is refused before it starts.
fn cop_number(arena: &KArena, max: u32, path: &Path) -> Result<CopNumber, Failure> {
    for k in 1..=max as usize {
        check(arena, k, path)?;
        let options = KcopOptions {
            cops: k,
            stop_when_placed: true,
            ..KcopOptions::default()
        };
        if let Some((placement, plies)) = solve_kcops(arena, &options).placement {
            return Ok(CopNumber {
                cop_number: Some(k as u32),
                placement,
                capture_time_plies: plies,
                capture_time_rounds: plies.div_ceil(2),
                timed: true,
            });
        }
    }
    Ok(CopNumber {
        cop_number: None,
        placement: Vec::new(),
        capture_time_plies: 0,
        capture_time_rounds: 0,
        timed: true,
    })
}
