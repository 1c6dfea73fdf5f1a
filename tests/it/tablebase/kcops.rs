//! Several-cops tables through the binary: `solve --cops K --save` on a
//! small map and on graphs, K = 2 and 3, with and without distances, read
//! back state by state with `query --stdin --json` against `solve --dump`;
//! rated moves, `info`, `play`, and refused input (exit status 2, no
//! partial file). Tables of one cop are `tablebase.rs`.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use super::stdout_json;
use crate::support::temp_dir;
use crate::support::{make_table, query_json, run, run_refused, run_status, stderr, stdout};

/// A 3 x 4 map with a wall and an exit: 11 free cells.
const MAP: &str = "3 4\n....\n.#..\n...E\n";

/// One row of a dump: the query line of its state, its value and dte.
struct State {
    line: String,
    value: String,
    dte: Option<u32>,
}

/// The states of a `solve --dump` of `k` cops: `per_cell` fields per cell
/// (2 on maps, 1 on graphs).
fn dump_states(path: &Path, k: usize, per_cell: usize) -> Vec<State> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip(1)
        .map(|row| {
            let f: Vec<&str> = row.split(',').collect();
            let cells: Vec<String> = f[..(k + 1) * per_cell]
                .chunks(per_cell)
                .map(|c| c.join(","))
                .collect();
            let n = (k + 1) * per_cell;
            State {
                line: format!("{} {}", cells.join(" "), f[n]),
                value: f[n + 1].to_string(),
                dte: (!f[n + 2].is_empty()).then(|| f[n + 2].parse().unwrap()),
            }
        })
        .collect()
}

/// Solves with `args` (`--dump` and, with `dte`, `--dte-table` into the same
/// run; without, a second run saves values only) and checks every state
/// of the table against the dump through `query --stdin --json`.
fn check_table(dir: &Path, name: &str, args: &[&str], k: usize, per_cell: usize, dte: bool) {
    let table = dir.join(format!("{name}.rtb"));
    let dump = dir.join(format!("{name}.csv"));
    let mut all = vec!["solve", "-q", "--dump", dump.to_str().unwrap()];
    all.extend_from_slice(args);
    if dte {
        all.extend(["--save", table.to_str().unwrap()]);
    }
    run_status(&all, 0);
    if !dte {
        let mut save = vec!["solve", "-q", "--save", table.to_str().unwrap()];
        save.extend_from_slice(args);
        run_status(&save, 0);
    }
    let states = dump_states(&dump, k, per_cell);
    let lines: Vec<String> = states.iter().map(|s| s.line.clone()).collect();
    let t = table.to_str().unwrap();
    let answers = query_json(&table, &lines);
    for (s, a) in states.iter().zip(&answers) {
        assert_eq!(a["value"], s.value.as_str(), "{name}: {}", s.line);
        let want = if dte { s.dte } else { None };
        assert_eq!(
            a["dte"].as_u64().map(|d| d as u32),
            want,
            "{name}: {}",
            s.line
        );
        assert_eq!(a["cops"].as_array().unwrap().len(), k, "{name}");
    }
    let info = stdout_json(&run_status(&["info", t, "--json", "--check"], 0));
    assert_eq!(info["version"], 6);
    assert_eq!(info["thief_tile"], info["cells"].as_u64().unwrap().min(8));
    assert_eq!(info["cops"], k);
    assert_eq!(info["distances"], dte);
    assert_eq!(info["states"], states.len());
    assert_eq!(info["checked"], true);
}

fn write_map(dir: &Path) -> PathBuf {
    let map = dir.join("m.map");
    std::fs::write(&map, MAP).unwrap();
    map
}

fn graph(name: &str) -> String {
    format!("{}/data/graphs/{name}.txt", env!("CARGO_MANIFEST_DIR"))
}

/// A fresh directory tagged `tag` and a table of 2 cops on the map of
/// `write_map` in it, `t.rtb`.
fn two_cops_table(tag: &str, dte: bool) -> (PathBuf, PathBuf) {
    let dir = temp_dir(tag);
    let map = write_map(&dir);
    let table = make_table(&dir, "t", &[map.to_str().unwrap(), "--cops", "2"], dte);
    (dir, table)
}

/// A table of 2 cops on the 5-cycle, values only: `dir/g.rtb`.
fn cycle_table(dir: &Path) -> PathBuf {
    make_table(
        dir,
        "g",
        &[&graph("cycle-5"), "--graph", "--cops", "2"],
        false,
    )
}

/// Every state of tables of 2 and 3 cops, on a map and on graphs, with
/// and without distances, answers as `solve --dump` does.
#[test]
fn every_state_of_a_saved_table_equals_the_dump() {
    let dir = temp_dir("tablebase-kcops-every");
    let map = write_map(&dir);
    let m = map.to_str().unwrap();
    let c5 = graph("cycle-5");
    let petersen = graph("petersen");
    for dte in [true, false] {
        let tag = if dte { "dte" } else { "values" };
        check_table(
            &dir,
            &format!("map2-{tag}"),
            &[
                m, "--cops", "2", "--cop", "0,0", "--cop", "2,0", "--thief", "1,2",
            ],
            2,
            2,
            dte,
        );
        check_table(
            &dir,
            &format!("map3-{tag}"),
            &[m, "--cops", "3", "--thief-speed", "2", "--cop-orthogonal"],
            3,
            2,
            dte,
        );
        check_table(
            &dir,
            &format!("graph2-{tag}"),
            &[
                &c5,
                "--graph",
                "--cops",
                "2",
                "--exit",
                "3",
                "--thief-first",
            ],
            2,
            1,
            dte,
        );
        check_table(
            &dir,
            &format!("graph3-{tag}"),
            &[
                &petersen, "--graph", "--cops", "3", "--cop", "0", "--cop", "1", "--cop", "2",
                "--thief", "7",
            ],
            3,
            1,
            dte,
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `query` with several cops: the cops in any order are one position;
/// every rated move's value and distance are the reached position's, seen
/// from the other side; text and JSON agree; a graph takes vertex ids.
#[test]
fn query_rates_every_move_of_several_cops() {
    let (dir, table) = two_cops_table("tablebase-kcops-query", true);
    let t = table.to_str().unwrap();
    let query = |args: &[&str]| -> Json {
        let mut all = vec!["query", t, "--json"];
        all.extend_from_slice(args);
        stdout_json(&run_status(&all, 0))
    };
    let a = query(&["--cop", "2,0", "--cop", "0,0", "--thief", "1,2"]);
    let b = query(&["--cop", "0,0", "--cop", "2,0", "--thief", "1,2"]);
    assert_eq!(a, b);
    assert_eq!(a["cops"], serde_json::json!([[0, 0], [2, 0]]));
    for turn in ["cop", "thief"] {
        let pos = query(&[
            "--cop", "0,0", "--cop", "2,0", "--thief", "1,2", "--turn", turn,
        ]);
        let moves = pos["moves"].as_array().unwrap();
        assert!(!moves.is_empty());
        let other = if turn == "cop" { "thief" } else { "cop" };
        for m in moves {
            let cell = |v: &Json| format!("{},{}", v[0], v[1]);
            let (cops, thief) = if turn == "cop" {
                let to = m["to"].as_array().unwrap();
                (vec![cell(&to[0]), cell(&to[1])], "1,2".to_string())
            } else {
                (vec!["0,0".to_string(), "2,0".to_string()], cell(&m["to"]))
            };
            let after = query(&[
                "--cop", &cops[0], "--cop", &cops[1], "--thief", &thief, "--turn", other,
            ]);
            let flipped = match after["value"].as_str().unwrap() {
                "win" => "loss",
                "loss" => "win",
                v => v,
            };
            assert_eq!(m["value"], flipped, "{m}");
            assert_eq!(m["dte"], after["dte"], "{m}");
        }
        // Best first: the first move gives the position's value, one ply
        // nearer the end.
        assert_eq!(moves[0]["value"], pos["value"]);
        if let (Some(d), Some(e)) = (pos["dte"].as_u64(), moves[0]["dte"].as_u64()) {
            assert_eq!(d, e + 1);
        }
    }
    let text = stdout(&run_status(
        &["query", t, "--cop", "0,0", "--cop", "2,0", "--thief", "1,2"],
        0,
    ));
    assert!(
        text.starts_with("cops 0,0 2,0 thief 1,2, cop to move: "),
        "{text}"
    );
    assert!(text.contains("0,0 2,0 (pass): "), "{text}");
    // --xy swaps the typed and shown cells.
    let xy = stdout(&run_status(
        &[
            "query", t, "--xy", "--cop", "0,0", "--cop", "0,2", "--thief", "2,1",
        ],
        0,
    ));
    assert!(
        xy.starts_with("cops 0,0 0,2 thief 2,1, cop to move: "),
        "{xy}"
    );
    // A graph's table: vertex ids, in JSON too.
    let g = cycle_table(&dir);
    let gs = g.to_str().unwrap();
    let j = stdout_json(&run_status(
        &[
            "query", gs, "--cop", "4", "--cop", "1", "--thief", "3", "--json",
        ],
        0,
    ));
    assert_eq!(j["cops"], serde_json::json!([1, 4]));
    assert_eq!(j["thief"], 3);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Wrong counts of `--cop`, map cells on a graph, vertex ids on a map and
/// bad stdin lines are refused with exit status 2; a solve that is
/// refused leaves no table behind.
#[test]
fn wrong_cops_are_refused() {
    let (dir, table) = two_cops_table("tablebase-kcops-refused", false);
    let t = table.to_str().unwrap();
    let map = dir.join("m.map");
    let m = map.to_str().unwrap();
    let refused: [(&[&str], &str); 5] = [
        (
            &["query", t, "--cop", "0,0", "--thief", "1,2"],
            "the table is of 2 cops: give --cop 2 times (one per cop), found 1",
        ),
        (
            &[
                "query", t, "--cop", "0,0", "--cop", "0,1", "--cop", "0,2", "--thief", "1,2",
            ],
            "found 3",
        ),
        (
            &["query", t, "--cop", "0,0", "--cop", "3", "--thief", "1,2"],
            "ROW,COL",
        ),
        (
            &["query", t, "--cop", "0,0", "--cop", "1,1", "--thief", "1,2"],
            "wall",
        ),
        (
            &["play", t, "--cop", "0,0", "--thief", "1,2"],
            "give --cop 2 times",
        ),
    ];
    for (args, says) in refused {
        run_refused(args, says);
    }
    let o = run(
        &["query", t, "--stdin"],
        Some(b"0,0 0,1 1,2\n0,0 1,2 cop\n"),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stdout(&o).starts_with("cops 0,0 0,1 thief 1,2"),
        "{}",
        stdout(&o)
    );
    assert!(
        stderr(&o).contains("stdin:2: expected 2 cop cells"),
        "{}",
        stderr(&o)
    );
    // A one-cop table still takes exactly one --cop.
    let one = dir.join("one.rtb");
    let o1 = one.to_str().unwrap();
    run_status(&["solve", "-q", m, "--save", o1], 0);
    run_refused(
        &[
            "query", o1, "--cop", "0,0", "--cop", "0,1", "--thief", "1,2",
        ],
        "the table is of one cop: give --cop once, found 2",
    );
    run_refused(&["query", o1, "--cop", "0", "--thief", "1,2"], "vertex ids");
    run_status(&["query", o1, "--cop", "0,0", "--thief", "1,2"], 0);
    // A graph's table takes vertex ids.
    let g = cycle_table(&dir);
    let gs = g.to_str().unwrap();
    for (cop, says) in [("0,1", "vertex id"), ("9", "vertices are 0..5")] {
        run_refused(
            &["query", gs, "--cop", cop, "--cop", "2", "--thief", "3"],
            says,
        );
    }
    // render draws maps with every cop fixed, or all but one (tests/it/
    // krender.rs); serve serves several cops (tests/it/serve/kcops.rs).
    let png = dir.join("x.png");
    let p = png.to_str().unwrap();
    run_refused(
        &["render", t, "--cop", "0,0", "--out", p],
        "the thief's heatmap (--cop 2 times)",
    );
    assert!(!png.exists());
    run_status(
        &["render", t, "--cop", "0,0", "--cop", "2,0", "--out", p],
        0,
    );
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    run_refused(
        &["render", gs, "--cop", "0,0", "--cop", "0,1", "--out", p],
        "graph",
    );
    // `serve` shows several-cops tables: serve/kcops.rs tests it.
    // A refused several-cops solve writes no table.
    let never = dir.join("never.rtb");
    run_refused(
        &[
            "solve",
            "-q",
            m,
            "--cops",
            "2",
            "--cop",
            "0,0",
            "--thief",
            "1,2",
            "--save",
            never.to_str().unwrap(),
        ],
        "--cops 2 needs --cop 2 times",
    );
    assert!(!never.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `play` on a several-cops table: the optimal game from the saved start
/// takes exactly the start's distance in plies, as boards and as lines.
#[test]
fn play_shows_the_optimal_game_of_several_cops() {
    let dir = temp_dir("tablebase-kcops-play");
    let map = write_map(&dir);
    let table = dir.join("t.rtb");
    let t = table.to_str().unwrap();
    let solved = run_status(
        &[
            "solve",
            "-q",
            "--json",
            map.to_str().unwrap(),
            "--cops",
            "2",
            "--cop",
            "0,0",
            "--cop",
            "0,1",
            "--thief",
            "2,0",
            "--save",
            t,
            "--dte-table",
        ],
        0,
    );
    let report = stdout_json(&solved);
    let plies = report["dte"].as_u64().unwrap() as usize;
    assert!(report["saved"]["bytes"].as_u64().unwrap() > 0);
    let moves = stdout(&run_status(&["play", t, "--moves"], 0));
    let lines: Vec<&str> = moves.lines().collect();
    assert_eq!(lines.len(), plies + 2, "{moves}");
    assert!(
        lines[0].starts_with("ply 0: start; cop to move (cops 0,0 0,1 thief 2,0)"),
        "{moves}"
    );
    assert!(
        lines[plies + 1].contains(&format!("after {plies} plies")),
        "{moves}"
    );
    let boards = stdout(&run_status(&["play", t], 0));
    // A frame per ply: its line and the 3 rows of the map.
    assert_eq!(boards.lines().count(), (plies + 1) * 4 + 1, "{boards}");
    assert!(boards.contains("\nCC..\n.#..\nT..E\n"), "{boards}");
    let info = stdout(&run_status(&["info", t], 0));
    assert!(
        info.contains("game: 2 cops, cop speed 1, thief speed 1"),
        "{info}"
    );
    assert!(info.contains("start: cops 0,0 0,1, thief 2,0"), "{info}");
    let _ = std::fs::remove_dir_all(&dir);
}
