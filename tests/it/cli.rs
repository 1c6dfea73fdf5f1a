//! The `retrograde` binary run as a process: `solve` on data/ maps in text
//! and JSON, the `--dump` CSV, stdin, placement and rule flags, and bad input
//! (exit status 2, file:line:column on stderr, no partial output file).

use std::path::{Path, PathBuf};

use retrograde::{parse_map, Board, ExitRule, Placement};
use serde_json::Value as Json;

use crate::golden::{data_dir, expected_rows, Row};
use crate::oracle::{Arena, Oracle, Side, Value, Variant};
use crate::support::{run, stderr, stdout, temp_dir};

/// Runs `solve ... --json` and returns the parsed object, asserting success.
fn solve_json(args: &[&str], stdin: Option<&[u8]>) -> Json {
    let mut all = vec!["solve", "--json", "--quiet"];
    all.extend_from_slice(args);
    let output = run(&all, stdin);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{all:?}: {}",
        stderr(&output)
    );
    serde_json::from_str(stdout(&output).trim()).unwrap_or_else(|e| panic!("{all:?}: {e}"))
}

/// Asserts that the report's answer and counts are the oracle's.
#[track_caller]
fn assert_report(
    report: &Json,
    result: Option<&str>,
    dte: Option<u32>,
    oracle: &Oracle,
    label: &str,
) {
    let n = oracle.cells().len() as u64;
    assert_eq!(report["result"].as_str(), result, "{label}: result");
    assert_eq!(report["dte"].as_u64(), dte.map(u64::from), "{label}: dte");
    assert_eq!(report["cells"].as_u64(), Some(n), "{label}: cells");
    assert_eq!(
        report["states"].as_u64(),
        Some(2 * n * n),
        "{label}: states"
    );
    let [win, loss, draw] = oracle.counts();
    let counts = &report["counts"];
    assert_eq!(
        [
            counts["win"].as_u64(),
            counts["loss"].as_u64(),
            counts["draw"].as_u64()
        ],
        [Some(win), Some(loss), Some(draw)],
        "{label}: counts"
    );
}

fn data_path(relative: &str) -> String {
    format!("data/{relative}")
}

#[test]
fn json_matches_every_golden_row() {
    for row in expected_rows() {
        let map = data_path(&row.map);
        let flags = row.cli_flags();
        let mut args = vec![map.as_str()];
        args.extend(flags.iter().map(String::as_str));
        let report = solve_json(&args, None);
        let oracle_counts = row.counts;
        assert_eq!(
            report["result"].as_str(),
            Some(row.result.as_str()),
            "{}",
            row.label()
        );
        assert_eq!(
            report["dte"].as_u64(),
            row.dte.map(u64::from),
            "{}",
            row.label()
        );
        let counts = &report["counts"];
        assert_eq!(
            [
                counts["win"].as_u64(),
                counts["loss"].as_u64(),
                counts["draw"].as_u64()
            ],
            oracle_counts.map(Some),
            "{}",
            row.label()
        );
        let n = row.arena().free_cells().len() as u64;
        assert_eq!(report["cells"].as_u64(), Some(n), "{}", row.label());
        assert_eq!(
            report["states"].as_u64(),
            Some(2 * n * n),
            "{}",
            row.label()
        );
        let format = if row.map.ends_with(".map") {
            "movingai"
        } else {
            "seed"
        };
        assert_eq!(report["format"].as_str(), Some(format));
        assert_eq!(report["map"].as_str(), Some(map.as_str()));
    }
}

#[test]
fn text_output_states_the_result_and_counts() {
    let output = run(&["solve", "data/maps/seed/escape.txt"], None);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let arena = Arena::from_rows(&["C..E", ".**.", "...T"]);
    let oracle = Oracle::solve(&arena, Variant::default());
    let answer = oracle.answer((0, 0), (2, 3));
    assert_eq!(answer.result, "thief-escapes");
    let first = text.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!("result: {} in {} plies", answer.result, answer.dte.unwrap())
    );
    let [win, loss, draw] = oracle.counts();
    assert!(
        text.contains(&format!(
            "states: {} (win {win}, loss {loss}, draw {draw}",
            2 * 10 * 10
        )),
        "{text}"
    );
    // A draw has no distance.
    let output = run(
        &["solve", "-q", "data/maps/seed/ring.txt", "--cop-orthogonal"],
        None,
    );
    assert_eq!(stdout(&output).lines().next(), Some("result: draw"));
}

#[test]
fn engines_and_threads_give_the_same_report() {
    let row = &expected_rows()
        .into_iter()
        .find(|r| r.map.ends_with("maze-32-32-2.map"))
        .expect("a maze row");
    let map = data_path(&row.map);
    let flags = row.cli_flags();
    let mut reports = Vec::new();
    for engine in [
        &["--engine", "sequential"][..],
        &["--engine", "parallel", "--threads", "1"],
        &["--engine", "parallel", "--threads", "3"],
        &["--engine", "explicit"],
    ] {
        let mut args = vec![map.as_str()];
        args.extend(flags.iter().map(String::as_str));
        args.extend_from_slice(engine);
        let report = solve_json(&args, None);
        assert_eq!(report["engine"].as_str(), Some(engine[1]));
        reports.push(report);
    }
    assert_eq!(reports[1]["threads"].as_u64(), Some(1));
    assert_eq!(reports[2]["threads"].as_u64(), Some(3));
    for report in &reports {
        assert_eq!(report["result"].as_str(), Some(row.result.as_str()));
        assert_eq!(report["dte"].as_u64(), row.dte.map(u64::from));
        for key in ["counts", "levels", "cells", "states", "exits"] {
            assert_eq!(report[key], reports[0][key], "{key}");
        }
    }
}

/// Parses a dump and checks it state by state against the oracle.
fn assert_dump_matches(dump: &Path, oracle: &Oracle) {
    let text = std::fs::read_to_string(dump).expect("dump file");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("cop_row,cop_col,thief_row,thief_col,turn,value,dte")
    );
    let mut rows = 0;
    let mut seen = std::collections::HashSet::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 7, "`{line}`");
        let at = |k: usize| -> usize { f[k].parse().unwrap_or_else(|_| panic!("`{line}`")) };
        let (cop, thief) = ((at(0), at(1)), (at(2), at(3)));
        let side = match f[4] {
            "cop" => Side::Cop,
            "thief" => Side::Thief,
            other => panic!("turn `{other}`"),
        };
        assert!(
            seen.insert((cop, thief, f[4].to_string())),
            "`{line}` twice"
        );
        let (value, dte) = oracle.lookup(cop, thief, side);
        assert_eq!(f[5], value.name(), "`{line}`");
        let expected_dte = dte.map_or(String::new(), |d| d.to_string());
        assert_eq!(f[6], expected_dte, "`{line}`");
        rows += 1;
    }
    let n = oracle.cells().len();
    assert_eq!(rows, 2 * n * n);
}

#[test]
fn dump_lists_every_state_as_the_oracle_does() {
    let dir = temp_dir("dump");
    for (map, flags, arena) in [
        (
            "data/maps/seed/ring.txt",
            vec![],
            Arena::from_rows(&["C...", ".**.", ".**.", "...T"]),
        ),
        (
            "data/maps/seed/ring.txt",
            vec!["--no-corner-cutting", "--thief-first"],
            Arena::from_rows(&["C...", ".**.", ".**.", "...T"]),
        ),
        (
            "data/maps/seed/islands.txt",
            vec![],
            Arena::from_rows(&["C.*..", "..*..", "..*.T"]),
        ),
        (
            "data/maps/seed/escape.txt",
            vec!["--thief-diagonal"],
            Arena::from_rows(&["C..E", ".**.", "...T"]),
        ),
    ] {
        let out = dir.join("states.csv");
        let out_text = out.to_str().unwrap().to_string();
        let mut args = vec!["solve", "-q", map, "--dump", &out_text];
        args.extend(&flags);
        let output = run(&args, None);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let variant = Variant::parse(
            if flags.is_empty() {
                "default".to_string()
            } else {
                flags
                    .iter()
                    .map(|f| f.trim_start_matches("--"))
                    .collect::<Vec<_>>()
                    .join("+")
            }
            .as_str(),
        );
        let oracle = Oracle::solve(&arena, variant);
        assert_dump_matches(&out, &oracle);
        let values: std::collections::HashSet<Value> = oracle.states().map(|s| s.3).collect();
        assert!(
            values.len() >= 2,
            "{map}: a dump with one kind of value proves little"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stdin_map_is_read_with_dash() {
    let report = solve_json(&["-"], Some(b"1 3\nC.T\n"));
    let arena = Arena::from_rows(&["C.T"]);
    let oracle = Oracle::solve(&arena, Variant::default());
    let answer = oracle.answer((0, 0), (0, 2));
    assert_report(&report, Some(answer.result), answer.dte, &oracle, "stdin");
    assert_eq!(report["map"].as_str(), Some("-"));
    // A bad map on stdin is reported as `-:line:column`.
    let output = run(&["solve", "-"], Some(b"2 3\n...\n..\n"));
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("-:3:3:"), "{}", stderr(&output));
}

#[test]
fn movingai_with_start_and_exit_flags() {
    let map = "data/maps/movingai/empty-8-8.map";
    let text = std::fs::read_to_string(data_dir().join("maps/movingai/empty-8-8.map")).unwrap();
    let arena = Arena::from_movingai_text(&text);
    // Without starts there is no answer, but every state is solved.
    let report = solve_json(&[map], None);
    let oracle = Oracle::solve(&arena, Variant::default());
    assert_report(&report, None, None, &oracle, "no starts");
    assert_eq!(report["exits"].as_u64(), Some(0));
    // Explicit exits, repeated.
    let report = solve_json(
        &[
            map, "--cop", "0,0", "--thief", "5,5", "--exit", "7,7", "--exit", "2,6",
        ],
        None,
    );
    let mut with_exits = arena.clone();
    with_exits.exit[7 * 8 + 7] = true;
    with_exits.exit[2 * 8 + 6] = true;
    let oracle = Oracle::solve(&with_exits, Variant::default());
    let answer = oracle.answer((0, 0), (5, 5));
    assert_report(
        &report,
        Some(answer.result),
        answer.dte,
        &oracle,
        "explicit exits",
    );
    assert_eq!(report["exits"].as_u64(), Some(2));
    // Border exits and an octile variant.
    let report = solve_json(
        &[
            map,
            "--cop",
            "2,3",
            "--thief",
            "5,4",
            "--exits",
            "border",
            "--no-corner-cutting",
            "--thief-diagonal",
        ],
        None,
    );
    let border = arena.with_border_exits();
    let variant = Variant::parse("no-corner-cutting+thief-diagonal");
    let oracle = Oracle::solve(&border, variant);
    let answer = oracle.answer((2, 3), (5, 4));
    assert_report(&report, Some(answer.result), answer.dte, &oracle, "border");
    assert_eq!(report["exits"].as_u64(), Some(28));
}

#[test]
fn random_exits_flag_uses_the_seeded_placement() {
    let map_file = "data/maps/seed/no-exit.txt";
    let bytes = std::fs::read(data_dir().join("maps/seed/no-exit.txt")).unwrap();
    let map = parse_map(&bytes, map_file).unwrap();
    let board = Board::new(
        &map,
        &Placement {
            exit_rules: vec![ExitRule::Random { count: 3, seed: 7 }],
            ..Placement::default()
        },
    )
    .unwrap();
    let mut arena = Arena::from_seed_text(std::str::from_utf8(&bytes).unwrap());
    let mut exits = 0;
    for id in board.exits.iter_ones() {
        let (r, c) = map.grid.coords(id as u32);
        arena.exit[r * arena.width + c] = true;
        exits += 1;
    }
    assert_eq!(exits, 3);
    let oracle = Oracle::solve(&arena, Variant::default());
    let answer = oracle.answer(arena.cop.unwrap(), arena.thief.unwrap());
    let report = solve_json(&[map_file, "--exits", "random:3:7"], None);
    assert_report(
        &report,
        Some(answer.result),
        answer.dte,
        &oracle,
        "random:3:7",
    );
    assert_eq!(report["exits"].as_u64(), Some(3));
}

#[test]
fn every_rule_flag_reaches_the_solver() {
    // Each flag is run on two maps, checked state by state through the dump;
    // and the oracle's tables must differ from the default rules' on one of
    // them, so that a flag dropped or swapped by the CLI is caught.
    let dir = temp_dir("flags");
    let dump = dir.join("states.csv");
    let maps = [
        (
            "data/maps/seed/escape.txt",
            ["C..E", ".**.", "...T"].as_slice(),
            (0, 0),
            (2, 3),
        ),
        (
            "data/maps/seed/isolated.txt",
            ["C*T"].as_slice(),
            (0, 0),
            (0, 2),
        ),
    ];
    let table = |oracle: &Oracle| -> Vec<(Value, Option<u32>)> {
        oracle.states().map(|s| (s.3, s.4)).collect()
    };
    for (flags, variant) in [
        (vec![], "default"),
        (vec!["--thief-diagonal"], "thief-diagonal"),
        (vec!["--cop-orthogonal"], "cop-orthogonal"),
        (vec!["--no-cop-pass"], "no-cop-pass"),
        (vec!["--no-thief-pass"], "no-thief-pass"),
        (vec!["--no-pass"], "no-cop-pass+no-thief-pass"),
        (vec!["--no-corner-cutting"], "no-corner-cutting"),
        (vec!["--thief-first"], "thief-first"),
        (
            vec!["--thief-first", "--no-pass", "--cop-orthogonal"],
            "thief-first+no-pass+cop-orthogonal",
        ),
    ] {
        let variant = Variant::parse(variant);
        let mut discriminated = variant == Variant::default();
        for (map, rows, cop, thief) in maps {
            let mut args = vec![map, "--dump", dump.to_str().unwrap()];
            args.extend(&flags);
            let report = solve_json(&args, None);
            let arena = Arena::from_rows(rows);
            let oracle = Oracle::solve(&arena, variant);
            let answer = oracle.answer(cop, thief);
            assert_report(
                &report,
                Some(answer.result),
                answer.dte,
                &oracle,
                &format!("{map} {flags:?}"),
            );
            assert_dump_matches(&dump, &oracle);
            let default = Oracle::solve(&arena, Variant::default());
            discriminated |=
                table(&oracle) != table(&default) || answer != default.answer(cop, thief);
        }
        assert!(
            discriminated,
            "{flags:?} changes nothing on the fixture maps"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Files in `dir`, sorted.
fn listing(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

#[test]
fn bad_maps_exit_2_with_position_and_leave_no_dump() {
    let dir = temp_dir("bad");
    let cases: [(&str, &[u8], &str, &str); 6] = [
        (
            "ragged.txt",
            b"2 3\n...\n..\n",
            "ragged.txt:3:3:",
            "expected 3",
        ),
        (
            "header.txt",
            b"2 x\n...\n...\n",
            "header.txt:1:3:",
            "expected",
        ),
        (
            "binary.txt",
            b"1 3\nC\0T\n",
            "binary.txt:2:2:",
            "expected map text",
        ),
        ("empty.txt", b"", "empty.txt:1:1:", "expected"),
        ("twocops.txt", b"1 3\nCCT\n", "twocops.txt:2:2:", "only one"),
        (
            "terrain.map",
            b"type octile\nheight 1\nwidth 2\nmap\n.?\n",
            "terrain.map:5:2:",
            "expected",
        ),
    ];
    for (name, bytes, position, expected) in cases {
        let map = dir.join(name);
        std::fs::write(&map, bytes).unwrap();
        let out = dir.join("out.csv");
        let before = listing(&dir);
        let output = run(
            &[
                "solve",
                map.to_str().unwrap(),
                "--dump",
                out.to_str().unwrap(),
            ],
            None,
        );
        assert_eq!(output.status.code(), Some(2), "{name}: {}", stderr(&output));
        let err = stderr(&output);
        assert!(
            err.contains(position),
            "{name}: stderr `{err}` lacks `{position}`"
        );
        assert!(
            err.contains(expected),
            "{name}: stderr `{err}` lacks `{expected}`"
        );
        assert!(
            stdout(&output).is_empty(),
            "{name}: stdout `{}`",
            stdout(&output)
        );
        assert!(!out.exists(), "{name}: a dump file was left behind");
        assert_eq!(listing(&dir), before, "{name}: stray files");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_placement_exits_2_and_keeps_an_old_dump() {
    let dir = temp_dir("placement");
    let out = dir.join("out.csv");
    std::fs::write(&out, "previous contents\n").unwrap();
    let out_text = out.to_str().unwrap();
    for (flags, fragment) in [
        (&["--cop", "9,0"][..], "--cop 9,0"),
        (&["--thief", "1,1"], "--thief 1,1"),
        (&["--exit", "1,2"], "--exit 1,2"),
        (&["--exits", "random:99:1"], "random:99:1"),
    ] {
        let mut args = vec!["solve", "data/maps/seed/escape.txt", "--dump", out_text];
        args.extend_from_slice(flags);
        let output = run(&args, None);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{flags:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(fragment),
            "{flags:?}: {}",
            stderr(&output)
        );
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "previous contents\n"
        );
        assert_eq!(listing(&dir), vec![out.clone()], "{flags:?}: stray files");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn failed_dump_write_leaves_nothing() {
    let dir = temp_dir("unwritable");
    // The dump target is an existing directory: the rename must fail.
    let target = dir.join("taken");
    std::fs::create_dir(&target).unwrap();
    let output = run(
        &[
            "solve",
            "-q",
            "data/maps/seed/line.txt",
            "--dump",
            target.to_str().unwrap(),
        ],
        None,
    );
    assert_ne!(output.status.code(), Some(0));
    assert!(stderr(&output).contains("taken"), "{}", stderr(&output));
    assert_eq!(listing(&dir), vec![target.clone()], "stray temp file");
    assert!(listing(&target).is_empty());
    // The dump's folder does not exist.
    let missing = dir.join("no-such-dir").join("out.csv");
    let output = run(
        &[
            "solve",
            "-q",
            "data/maps/seed/line.txt",
            "--dump",
            missing.to_str().unwrap(),
        ],
        None,
    );
    assert_ne!(output.status.code(), Some(0));
    assert!(!missing.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["solve", "data/maps/seed/line.txt", "--threads", "0"][..],
        &["solve", "data/maps/seed/line.txt", "--cop", "1-2"],
        &["solve", "data/maps/seed/line.txt", "--exits", "random:x:1"],
        &["solve", "data/maps/seed/line.txt", "--exits", "everywhere"],
        &["solve", "data/maps/seed/line.txt", "--no-such-flag"],
        &["solve"],
    ] {
        let output = run(args, None);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(!stderr(&output).is_empty());
    }
}

#[test]
fn missing_map_file_is_an_input_error_naming_it_once() {
    let output = run(&["solve", "data/maps/seed/no-such-map.txt"], None);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(err.contains("no-such-map.txt"), "{err}");
    // The cause is printed once, not once per layer of the error chain.
    assert_eq!(err.matches("No such file").count(), 1, "{err}");
}

#[test]
fn golden_rows_use_the_cli_syntax() {
    // `Row::cli_flags` is what the JSON test relies on: check its shape once.
    let row = Row::parse("maps/x.map,1;2,3;4,0;7 7;0,thief-first+no-cop-pass,draw,,1,2,3");
    assert_eq!(
        row.cli_flags(),
        [
            "--cop",
            "1,2",
            "--thief",
            "3,4",
            "--exit",
            "0,7",
            "--exit",
            "7,0",
            "--no-cop-pass",
            "--thief-first"
        ]
    );
}

#[test]
fn bench_compares_engines_and_exports_records() {
    let dir = temp_dir("bench");
    let json_path = dir.join("bench.json");
    let csv_path = dir.join("bench.csv");
    let maps = [
        data_path("maps/seed/ring.txt"),
        data_path("maps/sample.txt"),
    ];
    let out = run(
        &[
            "bench",
            &maps[0],
            &maps[1],
            "--engines",
            "explicit,sequential,parallel",
            "--repeat",
            "2",
            "--export-json",
            json_path.to_str().unwrap(),
            "--export-csv",
            csv_path.to_str().unwrap(),
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let export: Json = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(export["schema"], 1);
    let records = export["results"].as_array().unwrap();
    assert_eq!(records.len(), 6);
    for (i, r) in records.iter().enumerate() {
        // The first engine on each map is the reference; the others agree.
        let expected = if i % 3 == 0 {
            Json::Null
        } else {
            Json::Bool(true)
        };
        assert_eq!(r["agrees"], expected, "{r}");
        let cells = r["cells"].as_u64().unwrap();
        assert_eq!(r["states"].as_u64().unwrap(), 2 * cells * cells);
        assert!(r["edges"].as_u64().unwrap() > 0);
        assert!(r["error"].is_null());
    }
    // Same map, same verdict and distance from every engine.
    for map in records.chunks(3) {
        assert!(map
            .iter()
            .all(|r| r["result"] == map[0]["result"] && r["dte"] == map[0]["dte"]));
    }
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    assert!(csv.starts_with("map,engine,threads,cells,states,edges,"));
    assert_eq!(csv.lines().count(), 7);
    let bad = run(&["bench", &maps[0], "--engines", "fast"], None);
    assert_eq!(bad.status.code(), Some(2));
    // clap names the value and lists the library's engines.
    let err = stderr(&bad);
    assert!(
        err.contains("'fast'") && err.contains("bitboard, parallel"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn explicit_engine_refuses_a_graph_over_the_memory_cap() {
    let out = run(
        &[
            "bench",
            &data_path("maps/sample.txt"),
            "--engines",
            "explicit,sequential",
            "--memory",
            "16K",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("refused: explicit graph needs"), "{text}");
    assert!(text.contains("sequential"), "{text}");
}

/// Runs `solve --json --quiet ARGS` with `TMPDIR` set to `tmp`; returns the
/// report and stderr.
fn solve_json_in(tmp: &Path, args: &[&str]) -> (Json, String) {
    let output = crate::support::bin()
        .args(["solve", "--json"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TMPDIR", tmp)
        .output()
        .expect("run the retrograde binary");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{args:?}: {}",
        stderr(&output)
    );
    let report = serde_json::from_str(stdout(&output).trim()).expect("json");
    (report, stderr(&output))
}

/// Out of core from the command line: `--scratch` with a small `--memory`
/// (above the minimum of eight predecessor radii of arrays),
/// and a cap alone (files in the temporary folder), give the in-memory
/// answer, pass `--verify`, and leave no file behind.
#[test]
fn out_of_core_solves_match_memory_and_leave_nothing() {
    let tmp = temp_dir("cli-out-of-core");
    let scratch = tmp.join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let map = "data/maps/movingai/maze-32-32-2.map";
    let place = ["--cop", "1,1", "--thief", "2,20", "--exits", "border"];
    let key = |r: &Json| {
        (
            r["result"].clone(),
            r["dte"].clone(),
            r["counts"].clone(),
            r["levels"].clone(),
        )
    };
    let (memory, _) = solve_json_in(&tmp, &[&[map, "-q"][..], &place].concat());
    let scratch_arg = scratch.to_str().unwrap();
    // The counter engines (the bitboard default needs only 395 KiB here).
    let runs: [&[&str]; 3] = [
        &[
            "--scratch",
            scratch_arg,
            "--memory",
            "512K",
            "--verify",
            "--engine",
            "parallel",
        ],
        &[
            "--scratch",
            scratch_arg,
            "--memory",
            "512K",
            "--engine",
            "sequential",
        ],
        // No --scratch: the cap alone sends the arrays to $TMPDIR.
        &["--memory", "512K", "--verify", "--engine", "parallel"],
    ];
    for extra in runs {
        let (report, err) = solve_json_in(&tmp, &[&[map][..], &place, extra].concat());
        assert_eq!(key(&report), key(&memory), "{extra:?}");
        assert!(err.contains("in files under"), "{extra:?}: {err}");
        if extra.contains(&"--verify") {
            assert_eq!(report["verified"]["inconsistent"], 0, "{extra:?}");
            assert_eq!(report["verified"]["states"], memory["states"]);
        }
    }
    // Sweep: the same values.
    let (sweep, _) = solve_json_in(
        &tmp,
        &[
            &[map, "-q"][..],
            &place,
            &[
                "--engine",
                "sweep",
                "--scratch",
                scratch_arg,
                "--memory",
                "512K",
            ],
        ]
        .concat(),
    );
    assert_eq!(sweep["counts"], memory["counts"]);
    assert_eq!(sweep["result"], memory["result"]);
    let left: Vec<_> = std::fs::read_dir(&scratch).unwrap().collect();
    assert!(left.is_empty(), "scratch files left: {left:?}");
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".scratch"))
        .collect();
    assert!(left.is_empty(), "temporary scratch files left: {left:?}");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A `--memory` cap below what an out-of-core solve of the counter
/// engines can keep to (a window plus a predecessor radius of pages on
/// each side) is refused with the minimum; above it, the printed resident
/// figure stays under the cap. (The bitboard engine's own minimum:
/// `out_of_core_bitboard_keeps_resident_memory_under_the_cap`.)
#[test]
fn memory_cap_below_the_minimum_is_refused_with_it() {
    let map = "data/maps/movingai/maze-32-32-2.map";
    let place = [
        "--cop", "1,1", "--thief", "2,20", "--exits", "border", "--engine", "parallel",
    ];
    let low = run(
        &[&["solve", map, "--memory", "64K"][..], &place].concat(),
        None,
    );
    assert!(!low.status.success());
    let err = stderr(&low);
    let minimum: u64 = err
        .split("at least ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no minimum in {err}"));
    assert!(minimum > 64 << 10, "{err}");
    let cap = minimum.to_string();
    let ok = run(
        &[&["solve", map, "--memory", &cap][..], &place].concat(),
        None,
    );
    let err = stderr(&ok);
    assert!(ok.status.success(), "{err}");
    let resident = err
        .split("at most ")
        .nth(1)
        .and_then(|rest| rest.split(" KiB resident").next())
        .and_then(|k| k.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no resident figure in {err}"));
    assert!(resident * 1024.0 <= minimum as f64 + 1024.0, "{err}");
}

/// Out of core the bitboard engine keeps to its cap: on a map whose
/// bitsets (12 MiB) are four times `--memory 3M`, the process's peak
/// resident memory (VmHWM, reported as `peak_memory_bytes`) stays under the
/// cap plus what the process holds itself (code, libraries, the map, thread
/// stacks: 7 MiB, or the peak of the same solve of a tiny map when that is
/// more, with 1 MiB for the out-of-core run's own thread: it grew from
/// about 6 to 7.2-7.7 MiB with the binary, which left the out-of-core
/// peak, 10.2-10.3 MiB, within 0.3 MiB of a fixed 10 MiB bound and
/// failed it once in a full run), while the in-memory solve of the same
/// map peaks well above that bound; the answers agree.
#[test]
fn out_of_core_bitboard_keeps_resident_memory_under_the_cap() {
    let tmp = temp_dir("cli-ooc-resident");
    let scratch = tmp.join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let map = tmp.join("open-72.txt");
    let side = 72;
    let mut text = format!("{side} {side}\n");
    for r in 0..side {
        for c in 0..side {
            text.push(match (r, c) {
                (1, 1) => 'C',
                _ if (r, c) == (side - 2, side - 2) => 'T',
                (0, _) if c % 5 == 2 => 'E',
                _ if (r * 7 + c * 3) % 11 == 0 => '*',
                _ => '.',
            });
        }
        text.push('\n');
    }
    std::fs::write(&map, text).unwrap();
    let map = map.to_str().unwrap();
    let key = |r: &Json| {
        (
            r["result"].clone(),
            r["dte"].clone(),
            r["counts"].clone(),
            r["levels"].clone(),
        )
    };
    let cap: u64 = 3 << 20;
    let tiny = tmp.join("tiny.txt");
    std::fs::write(&tiny, "2 3\nC.T\n..E\n").unwrap();
    let (base, _) = solve_json_in(&tmp, &[tiny.to_str().unwrap(), "-q", "--threads", "2"]);
    let base = base["peak_memory_bytes"]
        .as_u64()
        .expect("peak memory on Linux");
    let bound = cap + (7 << 20).max(base + (1 << 20));
    let (memory, _) = solve_json_in(&tmp, &[map, "-q", "--threads", "2"]);
    let (banded, err) = solve_json_in(
        &tmp,
        &[
            map,
            "--threads",
            "2",
            "--memory",
            "3M",
            "--scratch",
            scratch.to_str().unwrap(),
        ],
    );
    assert!(err.contains("in files under"), "{err}");
    assert_eq!(key(&banded), key(&memory));
    let peak = |r: &Json| {
        r["peak_memory_bytes"]
            .as_u64()
            .expect("peak memory on Linux")
    };
    assert!(peak(&memory) > bound, "in memory: {}", peak(&memory));
    assert!(
        peak(&banded) <= bound,
        "out of core: peak {} over the cap {cap} + the process's {}",
        peak(&banded),
        bound - cap
    );
    // Below one window of a grid row with its halo rows and buffers: exit
    // 2 naming the minimum; at the minimum, the printed resident figure
    // keeps to it.
    let low = run(
        &[
            "solve",
            map,
            "--memory",
            "64K",
            "--scratch",
            scratch.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(low.status.code(), Some(2));
    let err = stderr(&low);
    let minimum: u64 = err
        .split("at least ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no minimum in {err}"));
    assert!(err.contains("bitboard"), "{err}");
    let at_minimum = minimum.to_string();
    let (report, err) = solve_json_in(
        &tmp,
        &[
            map,
            "--memory",
            &at_minimum,
            "--scratch",
            scratch.to_str().unwrap(),
        ],
    );
    assert_eq!(key(&report), key(&memory));
    let resident = err
        .split("at most ")
        .nth(1)
        .and_then(|rest| rest.split(" resident").next())
        .and_then(|figure| {
            let (number, unit) = figure.split_once(' ')?;
            let scale = match unit {
                "KiB" => 1024.0,
                "MiB" => 1024.0 * 1024.0,
                _ => return None,
            };
            Some(number.parse::<f64>().ok()? * scale)
        })
        .unwrap_or_else(|| panic!("no resident figure in {err}"));
    // The figure is printed to one decimal.
    assert!(resident <= minimum as f64 * 1.05, "{err}");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `solve --save -`: the table is standard output's only content (a
/// reader gets a whole table, `info` opens it) and the report, text or
/// `--json`, goes to standard error; with `--dump -` too, both would share
/// standard output: refused before the solve.
#[test]
fn solve_save_to_stdout_keeps_the_report_off_the_table() {
    let dir = temp_dir("cli-save-stdout");
    let map = "data/maps/sample.txt";
    let table = dir.join("out.rtb");
    for (how, save) in [("-", "-"), ("/dev/stdout", "/dev/stdout")] {
        for json in [false, true] {
            let mut args = vec!["solve", map, "-q", "--no-summary", "--save", save];
            if json {
                args.push("--json");
            }
            let out = run(&args, None);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
            std::fs::write(&table, &out.stdout).unwrap();
            let info = run(&["info", table.to_str().unwrap(), "--json"], None);
            assert_eq!(
                info.status.code(),
                Some(0),
                "{how} json={json}: the table read back: {}",
                stderr(&info)
            );
            let report = stderr(&out);
            if json {
                let line = report.lines().last().unwrap_or_default();
                let r: Json = serde_json::from_str(line).expect("the JSON report on stderr");
                assert_eq!(r["saved"]["path"], save, "{report}");
                assert_eq!(r["result"], "thief-escapes", "{report}");
            } else {
                assert!(report.contains("result: thief-escapes"), "{report}");
                assert!(report.contains(&format!("saved: {save} (")), "{report}");
            }
        }
    }
    // The table and the dump on standard output together: refused.
    let out = run(&["solve", map, "-q", "--save", "-", "--dump", "-"], None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--save -: standard output already carries --dump"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty(), "refused before the solve");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `solve --dump -` (one cop and several): the CSV is standard output's
/// only content, every line a row of the header's columns, and the
/// report, text or `--json`, goes to standard error (it followed the
/// rows, so the dump did not read as CSV).
#[test]
fn solve_dump_to_stdout_keeps_the_report_off_the_csv() {
    let map = "data/maps/sample.txt";
    for cops in [None, Some("2")] {
        for json in [false, true] {
            let mut args = vec!["solve", map, "-q", "--dump", "-"];
            if let Some(k) = cops {
                args.extend(["--cops", k]);
            }
            if json {
                args.push("--json");
            }
            let out = run(&args, None);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
            let csv = stdout(&out);
            let mut lines = csv.lines();
            let columns = lines.next().unwrap_or_default().split(',').count();
            assert!(columns >= 4, "{args:?}: a header first: {csv:.200}");
            let mut rows = 0;
            for line in lines {
                assert_eq!(line.split(',').count(), columns, "{args:?}: `{line}`");
                rows += 1;
            }
            assert!(rows > 1000, "{args:?}: {rows} rows");
            let report = stderr(&out);
            if json {
                let line = report.lines().last().unwrap_or_default();
                let r: Json = serde_json::from_str(line).expect("the JSON report on stderr");
                assert!(r["states"].as_u64().is_some_and(|s| s > 1000), "{report}");
            } else {
                assert!(report.contains("result: "), "{args:?}: {report}");
            }
        }
    }
}
