//! Tablebases: a saved solve answers every state as the oracle and the
//! solve do (values and distances), rated moves follow the rule checked by
//! brute force, optimal play takes exactly dte plies, and a damaged,
//! truncated or foreign file is an error naming the file and the place.
//! Tables of several cops, through the binary, are `tablebase/kcops.rs`.

use std::path::{Path, PathBuf};
use std::process::Output;

use retrograde::{
    load_map, parse_map, solve, write_tablebase, CopsGame, Dte, Engine, ExitRule, Game, Outcome,
    Placement, Rules, Solution, SolveOptions, Speeds, Tablebase, Turn,
};
use serde_json::Value as Json;

use crate::agree::{crate_game, rules};
use crate::oracle::{Arena, Oracle, Side, Value, Variant};
use crate::support::{add_random_exits, add_random_starts, random_grid, temp_dir, Rng, Shape};
use crate::support::{make_table, one_cop_at, run, run_status, stderr, stdout};
use crate::support::{one_cop_decode, start_state};

/// Several-cops tables through the binary: saved, queried, played, refused.
mod kcops;

const SAMPLE: &str = "data/maps/sample.txt";

/// A run's standard output, one JSON document.
fn stdout_json(o: &Output) -> Json {
    serde_json::from_str(stdout(o).trim()).unwrap()
}

fn outcome(v: Value) -> Outcome {
    match v {
        Value::Win => Outcome::Win,
        Value::Loss => Outcome::Loss,
        Value::Draw => Outcome::Draw,
    }
}

fn turn(side: Side) -> Turn {
    match side {
        Side::Cop => Turn::Cop,
        Side::Thief => Turn::Thief,
    }
}

fn solve_game(game: &CopsGame, distances: bool) -> Solution {
    solve(
        game,
        &SolveOptions::new(Engine::Sequential).with_dte_table(distances),
    )
    .expect("solve")
}

fn save(game: &CopsGame, solution: &Solution, path: &Path) -> Tablebase {
    let mut file = std::fs::File::create(path).expect("create table");
    write_tablebase(game, solution, "sequential", &mut file).expect("write table");
    drop(file);
    Tablebase::open(path).expect("open table")
}

/// The mover's cells after each of its moves, from rules.md alone.
fn brute_moves(
    arena: &Arena,
    variant: Variant,
    from: (usize, usize),
    cop: bool,
) -> Vec<(usize, usize)> {
    let (diagonal, passes) = if cop {
        (variant.cop_diagonal, variant.cop_passes)
    } else {
        (variant.thief_diagonal, variant.thief_passes)
    };
    let mut out = Vec::new();
    if passes {
        out.push(from);
    }
    let (r, c) = (from.0 as i64, from.1 as i64);
    for dr in -1i64..=1 {
        for dc in -1i64..=1 {
            if (dr, dc) == (0, 0) || (dr != 0 && dc != 0 && !diagonal) {
                continue;
            }
            if !arena.is_free(r + dr, c + dc) {
                continue;
            }
            if dr != 0
                && dc != 0
                && !variant.corner_cutting
                && !(arena.is_free(r + dr, c) && arena.is_free(r, c + dc))
            {
                continue;
            }
            out.push(((r + dr) as usize, (c + dc) as usize));
        }
    }
    out
}

/// Sort key of the rule: wins by fastest, draws, losses by slowest; ties
/// by target cell.
fn rule_key(value: Outcome, dte: Option<u32>, to: (usize, usize)) -> (u8, i64, (usize, usize)) {
    let d = dte.map(i64::from);
    match value {
        Outcome::Win => (0, d.unwrap_or(i64::MAX), to),
        Outcome::Draw => (1, 0, to),
        Outcome::Loss => (2, d.map_or(0, |d| -d), to),
    }
}

/// Every state of the table against the oracle; rated moves against the
/// brute-force rule; optimal play from every decided state.
fn check_table(
    label: &str,
    arena: &Arena,
    variant: Variant,
    oracle: &Oracle,
    tb: &Tablebase,
    distances: bool,
) {
    let is_exit = |c: (usize, usize)| arena.exit[c.0 * arena.width + c.1];
    for (cop, thief, side, value, dte) in oracle.states() {
        let pos = one_cop_at(tb, cop, thief, turn(side)).expect("position");
        let probe = tb.probe(&pos).expect("probe");
        let want_dte = if distances { dte.map(Dte) } else { None };
        assert_eq!(
            (probe.value, probe.dte),
            (outcome(value), want_dte),
            "{label}: {pos:?}"
        );
        // Rated moves by brute force.
        let terminal = cop == thief || is_exit(thief);
        let mut want: Vec<_> = if terminal {
            Vec::new()
        } else {
            let mover_is_cop = side == Side::Cop;
            let from = if mover_is_cop { cop } else { thief };
            brute_moves(arena, variant, from, mover_is_cop)
                .into_iter()
                .map(|to| {
                    let (c, t, s) = if mover_is_cop {
                        (to, thief, Side::Thief)
                    } else {
                        (cop, to, Side::Cop)
                    };
                    let (v, d) = oracle.lookup(c, t, s);
                    let d = if distances { d } else { None };
                    (outcome(v).flip(), d, to)
                })
                .collect()
        };
        want.sort_by_key(|&(v, d, to)| rule_key(v, d, to));
        let got: Vec<_> = tb
            .rated_moves(&pos)
            .expect("rated moves")
            .iter()
            .map(|m| {
                (
                    m.value,
                    m.dte.map(|d| d.plies()),
                    tb.coords(m.cells()[0]).unwrap(),
                )
            })
            .collect();
        assert_eq!(got, want, "{label}: moves of {pos:?}");
        // The best move realises the value.
        if let Some(best) = got.first() {
            assert_eq!(best.0, probe.value, "{label}: best move of {pos:?}");
        }
        // Optimal play from a decided state ends in exactly dte plies, at
        // a terminal position.
        if distances && value != Value::Draw {
            let d = dte.expect("decided") as usize;
            let game = tb.optimal_game(&pos, d + 10).expect("optimal game");
            assert_eq!(
                game.len() - 1,
                d,
                "{label}: optimal game from {pos:?}: {game:?}"
            );
            let last = game.last().unwrap();
            assert!(
                tb.rated_moves(last).unwrap().is_empty(),
                "{label}: {pos:?} ends at {last:?}, not terminal"
            );
        }
    }
}

/// Hundreds of random small maps, every rule variant, tables with and
/// without distances, against the brute-force oracle.
#[test]
fn random_tables_equal_the_oracle() {
    let dir = temp_dir("tablebase-random");
    let shapes = [
        Shape::Open,
        Shape::Walls,
        Shape::Maze,
        Shape::Corridors,
        Shape::Line,
    ];
    let maps = if cfg!(debug_assertions) { 64 } else { 320 };
    for k in 0..maps {
        let seed = 7_000_000 + k as u64;
        let mut rng = Rng::new(seed);
        let shape = shapes[k % shapes.len()];
        let arena = random_grid(&mut rng, shape, 6);
        if arena.free_cells().is_empty() {
            continue;
        }
        let arena = add_random_exits(&mut rng, arena);
        let arena = add_random_starts(&mut rng, arena);
        // Every variant, several times over.
        let variant = Variant::from_bits((k % 64) as u32);
        let distances = k % 5 != 4;
        let label = format!(
            "{shape:?} seed {seed} variant {variant:?}: {:?}",
            arena.to_rows()
        );
        let oracle = Oracle::solve(&arena, variant);
        let game = crate_game(&arena, variant);
        let solution = solve_game(&game, distances);
        let tb = save(&game, &solution, &dir.join(format!("{k}.rtb")));
        assert_eq!(tb.header().rules, rules(variant), "{label}");
        assert_eq!(tb.header().has_dte, distances, "{label}");
        let [win, loss, draw] = oracle.counts();
        let c = tb.header().counts;
        assert_eq!([c.win, c.loss, c.draw], [win, loss, draw], "{label}");
        tb.check().expect("check");
        check_table(&label, &arena, variant, &oracle, &tb, distances);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn data_game(path: &str, border: bool) -> CopsGame {
    let map = load_map(&Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect("map");
    let placement = Placement {
        exit_rules: if border {
            vec![ExitRule::Border]
        } else {
            vec![]
        },
        ..Placement::default()
    };
    CopsGame::from_map(&map, &placement, Rules::default(), 1, Speeds::default()).expect("board")
}

/// data/ maps (several blocks each): every state equals the solve, values
/// and distances; the header carries the map and its starts.
#[test]
fn data_map_tables_equal_the_solve() {
    let dir = temp_dir("tablebase-data");
    for (path, border) in [
        ("data/maps/sample.txt", false),
        ("data/maps/movingai/maze-32-32-2.map", true),
        ("data/maps/movingai/empty-8-8.map", true),
    ] {
        let game = data_game(path, border);
        let solution = solve_game(&game, true);
        let tb = save(&game, &solution, &dir.join("t.rtb"));
        let grid = game.grid().expect("a map");
        assert_eq!(
            (tb.header().rows, tb.header().cols),
            (grid.height(), grid.width())
        );
        assert_eq!(tb.header().counts, solution.counts(), "{path}");
        assert_eq!(tb.header().levels, solution.levels(), "{path}");
        assert_table_equals_solve(&tb, &game, &solution, path);
        if let Some(s) = start_state(&game) {
            let (p, t, turn) = one_cop_decode(&game, s);
            let start = tb.start().expect("start");
            assert_eq!(
                (
                    tb.coords(start.cops[0]).unwrap(),
                    tb.coords(start.thief).unwrap(),
                    start.turn
                ),
                (grid.coords(p), grid.coords(t), turn)
            );
        }
        tb.check().expect("check");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Asserts that `tb` answers every state of `game` with `solution`'s
/// value and distance.
#[track_caller]
fn assert_table_equals_solve(tb: &Tablebase, game: &CopsGame, solution: &Solution, label: &str) {
    let grid = game.grid().expect("a map");
    for s in 0..game.state_count() {
        let (p, t, turn) = one_cop_decode(game, s);
        let pos = one_cop_at(tb, grid.coords(p), grid.coords(t), turn).expect("position");
        let probe = tb.probe(&pos).expect("probe");
        assert_eq!(
            (probe.value, probe.dte),
            (solution.outcome(s), solution.dte(s)),
            "{label}: state {s}"
        );
    }
}

/// A committed table of maze-32-32-2 with border exits and distances.
fn fixture(version: u32) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("data/tablebase/maze-32-32-2-v{version}.rtb"))
}

/// A format version 2 table (distance residuals as byte planes, written
/// before version 3) still reads: every state equals a fresh solve, and
/// the same table as now written (version 6) is smaller.
#[test]
fn version_2_tables_still_read() {
    let game = data_game("data/maps/movingai/maze-32-32-2.map", true);
    let solution = solve_game(&game, true);
    let old = Tablebase::open(&fixture(2)).expect("open the version 2 table");
    assert_eq!(old.header().version, 2);
    old.check().expect("check");
    assert_table_equals_solve(&old, &game, &solution, "version 2");
    let dir = temp_dir("tablebase-v2");
    let new = save(&game, &solution, &dir.join("v3.rtb"));
    assert_eq!(new.header().version, 6);
    assert!(new.header().dte_bytes < old.header().dte_bytes);
    // Both equal the solve, so they equal each other state by state.
    assert_table_equals_solve(&new, &game, &solution, "version 6 of the same map");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The writer still writes the committed version 3 table (made before the
/// one-pass distance encoder) byte for byte but for the version 6 marks:
/// the version field and the placed block checksums. Turned back into
/// version 3 (its version field, every block's checksum over its bytes
/// alone, the header and trailer checksums recomputed) the written table
/// is the committed file: a change to the layout must bump the format
/// version, and keep reading this file. The file answers every state as a
/// fresh solve.
#[test]
fn version_3_tables_are_written_as_before() {
    let game = data_game("data/maps/movingai/maze-32-32-2.map", true);
    let solution = solve_game(&game, true);
    let mut written = Vec::new();
    write_tablebase(&game, &solution, "bitboard", &mut written).expect("write");
    assert_eq!(u32::from_le_bytes(written[8..12].try_into().unwrap()), 6);
    let committed = std::fs::read(fixture(3)).expect("read the version 3 table");
    let mut back = written.clone();
    back[8..12].copy_from_slice(&3u32.to_le_bytes());
    let trailer_at = back.len() - crate::forged::TRAILER;
    let index = crate::forged::u64_at(&back, trailer_at) as usize;
    let mut moved = 0;
    for at in (index..trailer_at).step_by(16) {
        let offset = crate::forged::u64_at(&back, at) as usize;
        let len = u32::from_le_bytes(back[at + 8..at + 12].try_into().unwrap()) as usize;
        let crc = crc32fast::hash(&back[offset..offset + len]).to_le_bytes();
        moved += usize::from(back[at + 12..at + 16] != crc);
        back[at + 12..at + 16].copy_from_slice(&crc);
    }
    crate::forged::reseal(&mut back);
    // The placed checksums differ from the bytes-only ones.
    assert!(moved > 0, "no block checksum differs from version 3's");
    assert!(
        back == committed,
        "the writer's bytes changed ({} bytes, the committed table {}): a new layout needs a new format version",
        written.len(),
        committed.len()
    );
    let table = Tablebase::open(&fixture(3)).expect("open the version 3 table");
    assert_eq!(table.header().version, 3);
    table.check().expect("check");
    assert_table_equals_solve(&table, &game, &solution, "version 3");
}

/// A table of the maze map (several blocks of each kind), written once.
fn maze_table(dir: &Path) -> PathBuf {
    let game = data_game("data/maps/movingai/maze-32-32-2.map", true);
    let solution = solve_game(&game, true);
    let path = dir.join("maze.rtb");
    save(&game, &solution, &path);
    path
}

/// Where a table error points: `(kind, block)` for a block error.
fn block_of(e: &retrograde::Error) -> Option<(String, u64)> {
    let retrograde::Error::Table { location, .. } = e else {
        return None;
    };
    let rest = location.strip_prefix("block ")?;
    let (number, rest) = rest.split_once(" (")?;
    let kind = rest.split([',', ')']).next()?;
    Some((kind.to_string(), number.parse().ok()?))
}

/// Every flipped byte of a small table, and every 97th of a larger one, is
/// an error: at open (header, index, trailer) or at check; and a probe
/// reading the damaged block reports that same block.
#[test]
fn flipped_bytes_are_detected() {
    let dir = temp_dir("tablebase-flip");
    let game = data_game("data/maps/sample.txt", false);
    let small = dir.join("small.rtb");
    save(&game, &solve_game(&game, true), &small);
    let maze = maze_table(&dir);
    for (path, step) in [(small, 1), (maze, 97)] {
        let bytes = std::fs::read(&path).unwrap();
        let clean = Tablebase::open(&path).unwrap();
        let states = clean.header().states;
        let (vb, db) = (
            clean.header().value_block_states,
            clean.header().dte_block_states,
        );
        let bad = dir.join("bad.rtb");
        let mut blocks_hit = 0;
        // Flips inside distance blocks (stored as residuals against a
        // prediction since format version 2): each must be caught too.
        let mut distance_blocks_hit = 0;
        for offset in (0..bytes.len()).step_by(step) {
            let mut copy = bytes.clone();
            copy[offset] ^= 0x5a;
            std::fs::write(&bad, &copy).unwrap();
            let e = match Tablebase::open(&bad) {
                Err(e) => e,
                Ok(tb) => {
                    let e = tb
                        .check()
                        .expect_err(&format!("flip at {offset} not detected"));
                    let (kind, block) = block_of(&e).unwrap_or_else(|| panic!("{e}"));
                    blocks_hit += 1;
                    distance_blocks_hit += usize::from(kind == "distances");
                    // Every state of the block is probed through it.
                    let first = block * if kind == "values" { vb } else { db };
                    // The distances of a state are read only for a decided
                    // state: find one in the block.
                    let s = (first..states)
                        .find(|&s| {
                            kind == "values" || clean.probe_state(s).unwrap().value != Outcome::Draw
                        })
                        .unwrap();
                    let probe_error = tb.probe_state(s).expect_err("probe of a damaged block");
                    assert_eq!(block_of(&probe_error), Some((kind, block)), "{probe_error}");
                    e
                }
            };
            let text = e.to_string();
            assert!(text.contains("bad.rtb"), "{text}");
            assert!(e.is_input_error());
        }
        assert!(blocks_hit > 0);
        assert!(
            distance_blocks_hit > 0,
            "{path:?}: no flip in a distance block"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `solve --save`, `info`, `query` (flags and stdin) as processes, and
/// their errors: damaged, truncated, foreign files and bad positions exit
/// with status 2 naming the file and the place.
#[test]
fn cli_save_info_query_and_errors() {
    let dir = temp_dir("tablebase-cli");
    let table = dir.join("sample.rtb");
    let t = table.to_str().unwrap();
    let o = run_status(&["solve", SAMPLE, "-q", "--dte-table", "--save", t], 0);
    assert!(stdout(&o).contains("saved: "), "{}", stdout(&o));
    // No temporary file is left beside the table.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);

    let o = run(&["info", t, "--check", "--json"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let info = stdout_json(&o);
    assert_eq!(info["states"], 8450);
    assert_eq!(info["distances"], true);
    assert_eq!(info["checked"], true);
    assert_eq!(info["cop_start"], serde_json::json!([1, 1]));

    // The start: the solve says thief-escapes in 14 plies, cop to move.
    let o = run(
        &["query", t, "--cop", "1,1", "--thief", "5,9", "--json"],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let q = stdout_json(&o);
    assert_eq!(q["value"], "loss");
    assert_eq!(q["dte"], 14);
    assert_eq!(q["turn"], "cop");
    let moves = q["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    assert!(moves.iter().all(|m| m["value"] == "loss"));
    assert_eq!(moves[0]["dte"], 13);
    // A terminal position answers its value with no moves.
    let o = run(
        &[
            "query", t, "--cop", "1,1", "--thief", "1,1", "--turn", "thief", "--json",
        ],
        None,
    );
    let q = stdout_json(&o);
    assert_eq!(
        (q["value"].clone(), q["dte"].clone()),
        ("loss".into(), 0.into())
    );
    assert_eq!(q["moves"], serde_json::json!([]));
    // stdin: one answer per good line, bad lines reported, status 2.
    let o = run(
        &["query", t, "--stdin", "--json"],
        Some(b"1,1 5,9\n1,1 1,1 thief\n0,0 5,9\n1,1 5,9 cop\n"),
    );
    assert_eq!(o.status.code(), Some(2));
    let lines: Vec<Json> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0], lines[2]);
    assert!(
        stderr(&o).contains("stdin:3:") && stderr(&o).contains("wall"),
        "{}",
        stderr(&o)
    );
    // Bad positions.
    for (cop, thief) in [
        ("0,0", "5,9"),
        ("1,1", "9,0"),
        ("1,1", "5,99"),
        ("1;1", "5,9"),
        ("x", "5,9"),
    ] {
        let o = run(&["query", t, "--cop", cop, "--thief", thief], None);
        assert_eq!(o.status.code(), Some(2), "{cop} {thief}: {}", stderr(&o));
        assert!(stdout(&o).is_empty());
    }

    let bytes = std::fs::read(&table).unwrap();
    let bad = dir.join("bad.rtb");
    let b = bad.to_str().unwrap();
    // A flipped byte in the middle (a block): check and query both fail.
    let mut copy = bytes.clone();
    let middle = bytes.len() / 2;
    copy[middle] ^= 1;
    std::fs::write(&bad, &copy).unwrap();
    let o = run(&["info", b, "--check"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("bad.rtb") && stderr(&o).contains("block"),
        "{}",
        stderr(&o)
    );
    let o = run(&["query", b, "--cop", "1,1", "--thief", "5,9"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("block"), "{}", stderr(&o));
    // Truncated anywhere.
    for len in [0, 10, 40, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&bad, &bytes[..len]).unwrap();
        let o = run(&["info", b], None);
        assert_eq!(o.status.code(), Some(2), "truncated to {len}");
        let e = stderr(&o);
        assert!(
            e.contains("bad.rtb") && (e.contains("offset") || e.contains("header")),
            "{e}"
        );
    }
    // Wrong magic, wrong version.
    let mut copy = bytes.clone();
    copy[0] = b'X';
    std::fs::write(&bad, &copy).unwrap();
    let o = run(&["info", b], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("magic") && stderr(&o).contains("offset 0"),
        "{}",
        stderr(&o)
    );
    let mut copy = bytes.clone();
    copy[8] = 9;
    std::fs::write(&bad, &copy).unwrap();
    let o = run(&["info", b], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("version 9"), "{}", stderr(&o));
    // A version 1 table (plain distances, smaller blocks) is refused with
    // the reason, even with a consistent header checksum.
    let mut copy = bytes.clone();
    copy[8..12].copy_from_slice(&1u32.to_le_bytes());
    let body = u32::from_le_bytes(copy[12..16].try_into().unwrap()) as usize;
    let crc = crc32fast::hash(&copy[..16 + body]);
    copy[16 + body..20 + body].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&bad, &copy).unwrap();
    let o = run(&["info", b], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("format version 1, this build reads versions 2 to 6")
            && stderr(&o).contains("re-create"),
        "{}",
        stderr(&o)
    );
    // A map file is not a table.
    let o = run(&["info", "data/maps/sample.txt"], None);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A table without distances: values only, and the play still realises
/// the values (no dte to compare).
#[test]
fn values_only_table_from_the_sweep_engine() {
    let dir = temp_dir("tablebase-sweep");
    let map = parse_map(b"4 5\nC....\n.*.*.\n.....\n...TE\n", "inline").unwrap();
    let game = CopsGame::from_map(
        &map,
        &Placement::default(),
        Rules::default(),
        1,
        Speeds::default(),
    )
    .unwrap();
    let solution = solve(&game, &SolveOptions::new(Engine::Sweep).with_threads(2)).unwrap();
    let tb = save(&game, &solution, &dir.join("sweep.rtb"));
    assert!(!tb.header().has_dte);
    for s in 0..game.state_count() {
        let p = tb.probe_state(s).unwrap();
        assert_eq!((p.value, p.dte), (solution.outcome(s), None));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `play` (text frames and GIF), `play --interactive` through scripted
/// stdin, and `render` (heatmaps, overview) as processes.
#[test]
fn cli_play_and_render() {
    let dir = temp_dir("tablebase-play");
    let table = make_table(&dir, "sample", &[SAMPLE], true);
    let t = table.to_str().unwrap();
    // The optimal game from the start: thief-escapes in 14 plies.
    let gif = dir.join("game.gif");
    let o = run(&["play", t, "--gif", gif.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("ply ")).count(),
        15,
        "{text}"
    );
    assert!(
        text.contains("ply 14: cop to move (cop 1,1, thief 8,5): loss in 0"),
        "{text}"
    );
    assert!(
        text.trim_end()
            .ends_with("the thief escapes after 14 plies"),
        "{text}"
    );
    assert!(std::fs::read(&gif).unwrap().starts_with(b"GIF89a"));
    // From a given position, a draw ends at a repeated position.
    let o = run(
        &[
            "play", t, "--cop", "3,3", "--thief", "3,4", "--turn", "thief",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("a draw") || stdout(&o).contains("after"),
        "{}",
        stdout(&o)
    );
    // Bad starts.
    let o = run(&["play", t, "--cop", "0,0", "--thief", "5,9"], None);
    assert_eq!(o.status.code(), Some(2));

    // Pictures.
    for (args, name) in [
        (vec!["--cop", "1,1"], "cop.png"),
        (vec!["--thief", "5,9", "--turn", "thief"], "thief.png"),
        (vec!["--overview"], "overview.png"),
    ] {
        let out = dir.join(name);
        let mut all = vec!["render", t, "--out", out.to_str().unwrap()];
        all.extend(args);
        let o = run(&all, None);
        assert_eq!(o.status.code(), Some(0), "{all:?}: {}", stderr(&o));
        assert!(std::fs::read(&out).unwrap().starts_with(b"\x89PNG\r\n"));
    }
    let out = dir.join("wall.png");
    let o = run(
        &["render", t, "--cop", "0,0", "--out", out.to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("wall"), "{}", stderr(&o));
    assert!(!out.exists());

    // Interactive: a person plays the thief in a dead-end corridor; a
    // bad move is refused, then the cop (the table) catches the thief.
    let corridor = dir.join("corridor.txt");
    std::fs::write(&corridor, "1 5\nC...T\n").unwrap();
    let small = make_table(&dir, "corridor", &[corridor.to_str().unwrap()], true);
    let play_thief = |input: &[u8]| {
        let small = small.to_str().unwrap();
        run(
            &["play", small, "--interactive", "--side", "thief"],
            Some(input),
        )
    };
    let o = play_thief(b"9\n0,0\n0,3\n1\n1\n1\n1\n1\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("you play the thief"), "{text}");
    assert!(
        text.contains("not a legal move: `9`") && text.contains("not a legal move: `0,0`"),
        "{text}"
    );
    assert!(text.contains("the cop moves to 0,1"), "{text}");
    assert!(
        text.contains("game over: the cop catches the thief"),
        "{text}"
    );
    // Input ending early abandons the game.
    let o = play_thief(b"");
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("input ended"), "{}", stdout(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `batch --save-dir`: one table per map, each answering its start as
/// `solve` does.
#[test]
fn batch_saves_one_table_per_map() {
    let dir = temp_dir("tablebase-batch");
    let tables = dir.join("tables");
    std::fs::create_dir(&tables).unwrap();
    let out = dir.join("rows.jsonl");
    let o = run(
        &[
            "batch",
            "data/maps/seed",
            "--quiet",
            "--dte-table",
            "--save-dir",
            tables.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows: Vec<Json> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(rows.len() >= 10);
    for row in &rows {
        let path = Path::new(row["map"].as_str().unwrap());
        let table = tables.join(format!(
            "{}.rtb",
            path.file_stem().unwrap().to_str().unwrap()
        ));
        let tb = Tablebase::open(&table).unwrap_or_else(|e| panic!("{e}"));
        tb.check().unwrap();
        assert_eq!(tb.header().states, row["states"].as_u64().unwrap());
        if let (Some(start), Some(dte)) = (tb.start(), row["dte"].as_u64()) {
            assert_eq!(
                tb.probe(&start).unwrap().dte,
                Some(Dte(dte as u32)),
                "{path:?}"
            );
        }
    }
    let o = run(
        &[
            "batch",
            "data/maps/seed",
            "-q",
            "--save-dir",
            "no/such/dir",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Checks `Solution::fill_values` and `Solution::fill_dte` against the
/// per-state accessors on every state and on a few unaligned sub-ranges.
fn check_bulk_accessors(label: &str, solution: &Solution, cuts: &[(u64, u64)]) {
    let n = solution.states();
    let mut ranges = Vec::new();
    ranges.push(0..n);
    for &(a, b) in cuts {
        if n > 0 {
            let (a, b) = (a % (n + 1), b % (n + 1));
            ranges.push(a.min(b)..a.max(b));
        }
    }
    for range in ranges {
        let len = (range.end - range.start) as usize;
        // Stale bytes in the buffers: the accessors must overwrite them.
        let mut values = vec![0xffu8; len.div_ceil(4)];
        solution.fill_values(range.clone(), &mut values);
        let mut dte = vec![0xffffu16; len];
        solution.fill_dte(range.clone(), &mut dte);
        for (i, s) in range.clone().enumerate() {
            let code = (values[i / 4] >> (2 * (i % 4))) & 3;
            assert_eq!(
                code,
                solution.outcome(s) as u8,
                "{label}: value of state {s} in {range:?}"
            );
            let want = solution.dte(s).map_or(0, |d| d.plies().min(65535) as u16);
            assert_eq!(dte[i], want, "{label}: dte of state {s} in {range:?}");
        }
        if !len.is_multiple_of(4) {
            assert_eq!(values[len / 4] >> (2 * (len % 4)), 0, "{label}: padding");
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    #[test]
    fn tablebase_bulk_accessors_equal_per_state_ones(
        arena in crate::agree::arena_strategy(),
        variant in crate::agree::variant_strategy(),
        cuts in proptest::collection::vec((0u64..4000, 0u64..4000), 3),
    ) {
        let game = crate_game(&arena, variant);
        let dir = temp_dir("bulk-accessors");
        let mut configs = crate::agree::engine_configs();
        configs.extend(crate::agree::scratch_configs(&dir));
        for config in configs {
            for table in [false, true] {
                // Without a table, the tracked state is the one distance.
                let tracked = start_state(&game).or((game.state_count() > 0).then_some(0));
                let options = config
                    .options
                    .clone()
                    .with_dte_table(table && config.options.engine().keeps_distances())
                    .with_tracked_state(tracked);
                let solution = solve(&game, &options).expect("solve");
                check_bulk_accessors(&format!("{} dte_table={table}", config.name), &solution, &cuts);
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
