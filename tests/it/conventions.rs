//! What users of grid-pathfinding tools expect (issue 16), through the
//! real binary: `--exits rim`, the no-exit warning, exit cells in the
//! JSON, one start alone refused, `--xy`, `--scen`, counts such as `1e8`,
//! the whole-map summary of `solve`, completions and man pages.

use std::collections::{BTreeSet, HashMap};

use retrograde::{parse_map, Board, ExitRule, Placement};
use serde_json::Value as Json;

use crate::support::{run, run_refused, run_status, stderr as err, stdout as out};
use crate::support::{temp_dir, Rng};

const ARENA: &str = "data/movingai/arena.map";
const RANDOM: &str = "data/movingai/random-32-32-10.map";
const SCEN: &str = "data/movingai/random-32-32-10-random-1.scen";

/// `solve --json --quiet ARGS`, asserting success; the object and stderr.
fn json(args: &[&str]) -> (Json, String) {
    let mut all = vec!["solve", "--json", "--quiet"];
    all.extend_from_slice(args);
    let output = run_status(&all, 0);
    let report = serde_json::from_str(out(&output).trim()).unwrap_or_else(|e| panic!("{e}"));
    (report, err(&output))
}

/// The rim, written from its definition with a fixpoint instead of a
/// flood fill: a blocked cell is outside when it is on the edge or next
/// (8 directions) to an outside blocked cell; an exit is a free cell next
/// to an outside cell or to beyond the edge.
fn rim_by_definition(rows: &[Vec<bool>]) -> BTreeSet<(usize, usize)> {
    let (h, w) = (rows.len() as i64, rows[0].len() as i64);
    let free = |r: i64, c: i64| rows[r as usize][c as usize];
    let mut outside = vec![vec![false; w as usize]; h as usize];
    let around = |r: i64, c: i64| {
        (-1..=1)
            .flat_map(move |dr| (-1..=1).map(move |dc| (r + dr, c + dc)))
            .filter(move |&p| p != (r, c))
    };
    loop {
        let mut changed = false;
        for r in 0..h {
            for c in 0..w {
                if free(r, c) || outside[r as usize][c as usize] {
                    continue;
                }
                let touches = around(r, c).any(|(nr, nc)| {
                    nr < 0 || nc < 0 || nr >= h || nc >= w || outside[nr as usize][nc as usize]
                });
                if touches {
                    outside[r as usize][c as usize] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut exits = BTreeSet::new();
    for r in 0..h {
        for c in 0..w {
            if free(r, c)
                && around(r, c).any(|(nr, nc)| {
                    nr < 0 || nc < 0 || nr >= h || nc >= w || outside[nr as usize][nc as usize]
                })
            {
                exits.insert((r as usize, c as usize));
            }
        }
    }
    exits
}

fn rim_by_crate(text: &str) -> BTreeSet<(usize, usize)> {
    let map = parse_map(text.as_bytes(), "rim").unwrap();
    let placement = Placement {
        exit_rules: vec![ExitRule::Rim],
        ..Placement::default()
    };
    Board::new(&map, &placement)
        .unwrap()
        .exit_coords()
        .into_iter()
        .collect()
}

#[test]
fn rim_exits_match_their_definition_on_random_maps() {
    let mut rng = Rng::new(16);
    for k in 0..400 {
        let (h, w) = (rng.range(1, 12), rng.range(1, 12));
        // Dense walls in some maps, so rims, pillars and enclosed walls occur.
        let percent = [10, 30, 50, 70][k % 4];
        let rows: Vec<Vec<bool>> = (0..h)
            .map(|_| (0..w).map(|_| !rng.percent(percent)).collect())
            .collect();
        if rows.iter().flatten().all(|&f| !f) {
            continue;
        }
        let text = format!(
            "{h} {w}\n{}",
            rows.iter()
                .map(|r| r
                    .iter()
                    .map(|&f| if f { '.' } else { '#' })
                    .collect::<String>()
                    + "\n")
                .collect::<String>()
        );
        assert_eq!(rim_by_crate(&text), rim_by_definition(&rows), "{text}");
    }
}

#[test]
fn rim_counts_a_wall_frame_and_not_an_inner_pillar() {
    // A frame of walls, a diagonal gap in its corner (still the rim: walls
    // connect diagonally), an inner pillar at (3,3).
    let text = "7 7\n\
                ######.\n\
                #.....#\n\
                #.....#\n\
                #..#..#\n\
                #.....#\n\
                #.....#\n\
                #######\n";
    let exits = rim_by_crate(text);
    // Every free cell next to the frame, the corner cell (0,6) on the
    // edge; none of (2,2)..(4,4) around the pillar except those also next
    // to the frame.
    assert!(exits.contains(&(0, 6)));
    assert!(exits.contains(&(1, 1)) && exits.contains(&(5, 5)) && exits.contains(&(3, 1)));
    for cell in [
        (2, 2),
        (2, 3),
        (2, 4),
        (3, 2),
        (3, 4),
        (4, 2),
        (4, 3),
        (4, 4),
    ] {
        assert!(
            !exits.contains(&cell),
            "{cell:?} is next to the pillar only"
        );
    }
    assert_eq!(exits.len(), 1 + 16);
}

#[test]
fn border_exits_on_a_framed_map_warn_and_rim_exits_do_not() {
    let (report, stderr) = json(&[
        ARENA, "--cop", "5,20", "--thief", "40,30", "--exits", "border",
    ]);
    assert_eq!(report["exits"], 0);
    assert_eq!(report["result"], "cop-wins");
    assert!(
        stderr.contains("warning: data/movingai/arena.map: no exit cells")
            && stderr.contains("--exits rim"),
        "{stderr}"
    );
    let (report, stderr) = json(&[ARENA, "--cop", "5,20", "--thief", "40,30", "--exits", "rim"]);
    assert_eq!(report["exits"], 220);
    assert_eq!(report["result"], "thief-escapes");
    assert!(!stderr.contains("warning"), "{stderr}");
    // The exit list is the rim's, by the definition above.
    let map = std::fs::read_to_string(ARENA).unwrap();
    let rows: Vec<Vec<bool>> = map
        .lines()
        .skip(4)
        .map(|l| l.chars().map(|c| c == '.').collect())
        .collect();
    let listed: BTreeSet<(usize, usize)> = report["exit_cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p[0].as_u64().unwrap() as usize,
                p[1].as_u64().unwrap() as usize,
            )
        })
        .collect();
    assert_eq!(listed, rim_by_definition(&rows));
    // A map without exits of its own and no flag warns too.
    let output = run_status(&["solve", "--quiet", "data/maps/seed/no-exit.txt"], 0);
    assert!(
        err(&output).contains("the map marks none"),
        "{}",
        err(&output)
    );
}

#[test]
fn random_exits_are_listed_with_a_stable_checksum() {
    let args = [
        RANDOM,
        "--cop",
        "1,1",
        "--thief",
        "20,20",
        "--exits",
        "random:5:9",
    ];
    let (a, _) = json(&args);
    let (b, _) = json(&args);
    let map = retrograde::load_map(std::path::Path::new(RANDOM)).unwrap();
    let placement = Placement {
        cop: Some((1, 1)),
        thief: Some((20, 20)),
        exit_rules: vec![ExitRule::Random { count: 5, seed: 9 }],
        ..Placement::default()
    };
    let board = Board::new(&map, &placement).unwrap();
    let expected: Vec<Json> = board
        .exit_coords()
        .iter()
        .map(|&(r, c)| serde_json::json!([r, c]))
        .collect();
    assert_eq!(a["exit_cells"], Json::Array(expected));
    assert_eq!(a["exit_checksum"], b["exit_checksum"]);
    assert_eq!(a["exit_checksum"].as_str().unwrap().len(), 16);
    let (c, _) = json(&[
        RANDOM,
        "--cop",
        "1,1",
        "--thief",
        "20,20",
        "--exits",
        "random:5:10",
    ]);
    assert_ne!(a["exit_checksum"], c["exit_checksum"]);
}

#[test]
fn one_start_alone_is_refused_naming_the_missing_flag() {
    for (args, missing) in [
        (
            vec!["solve", ARENA, "--cop", "5,20", "--exits", "rim"],
            "--thief",
        ),
        (
            vec!["solve", ARENA, "--thief", "5,20", "--exits", "rim"],
            "--cop",
        ),
    ] {
        let output = run(&args, None);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let e = err(&output);
        assert!(e.contains(&format!("give {missing} ROW,COL")), "{e}");
        assert!(out(&output).is_empty());
    }
}

#[test]
fn xy_flags_read_column_then_row() {
    let (rc, _) = json(&[ARENA, "--cop", "5,20", "--thief", "40,30", "--exit", "1,24"]);
    let (xy, _) = json(&[
        ARENA, "--xy", "--cop", "20,5", "--thief", "30,40", "--exit", "24,1",
    ]);
    for key in ["result", "dte", "counts", "exit_cells"] {
        assert_eq!(rc[key], xy[key], "{key}");
    }
    assert_eq!(rc["exit_cells"], serde_json::json!([[1, 24]]));
    // Text output follows the flag's order.
    let output = run(
        &[
            "solve", "--quiet", "--xy", ARENA, "--cop", "20,5", "--thief", "30,40", "--exits",
            "rim",
        ],
        None,
    );
    assert!(out(&output).contains("(x,y)"), "{}", out(&output));
}

#[test]
fn summary_counts_every_start_pair_as_the_dump_does() {
    let dir = temp_dir("summary");
    let dump = dir.join("dump.csv");
    let map = "data/maps/seed/corridor.txt";
    for extra in [&[][..], &["--thief-first"][..]] {
        let mut args = vec![map, "--summary", "--dump", dump.to_str().unwrap()];
        args.extend_from_slice(extra);
        let (report, _) = json(&args);
        let thief_first = !extra.is_empty();
        let mover = if thief_first { "thief" } else { "cop" };
        let mut tally: HashMap<&str, u64> = HashMap::new();
        let mut longest = 0;
        let text = std::fs::read_to_string(&dump).unwrap();
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            if f[4] != mover || (f[0], f[1]) == (f[2], f[3]) {
                continue;
            }
            // The value is the mover's; the verdict is the cop's.
            let verdict = match (f[5], thief_first) {
                ("draw", _) => "draw",
                ("win", false) | ("loss", true) => "cop_wins",
                _ => "thief_escapes",
            };
            *tally.entry(verdict).or_default() += 1;
            longest = longest.max(f[6].parse::<u32>().unwrap_or(0));
        }
        let pairs: u64 = tally.values().sum();
        assert_eq!(report["pairs"], pairs);
        for key in ["cop_wins", "thief_escapes", "draw"] {
            let share = tally.get(key).copied().unwrap_or(0) as f64 / pairs as f64;
            assert!(
                (report["share"][key].as_f64().unwrap() - share).abs() < 1e-12,
                "{key}"
            );
        }
        assert_eq!(report["longest"]["dte"], longest);
    }
    // On in text, off in JSON unless asked, off with --no-summary.
    let text = out(&run(&["solve", "--quiet", map], None));
    assert!(
        text.contains("start pairs: ") && text.contains("longest: "),
        "{text}"
    );
    let text = out(&run(&["solve", "--quiet", "--no-summary", map], None));
    assert!(!text.contains("start pairs: "), "{text}");
    let (report, _) = json(&[map]);
    assert!(report.get("pairs").is_none());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn scen_pairs_take_the_start_as_thief_and_the_goal_as_cop() {
    let (report, _) = json(&[RANDOM, "--exits", "rim", "--scen", SCEN]);
    let pairs = report["scenario"].as_array().unwrap();
    let text = std::fs::read_to_string(SCEN).unwrap();
    let entries: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(pairs.len(), entries.len());
    assert_eq!(pairs.len(), 461);
    let mut verdicts = BTreeSet::new();
    for (k, (pair, e)) in pairs.iter().zip(&entries).enumerate() {
        assert_eq!(pair["line"], k + 2);
        assert_eq!(
            pair["thief"],
            serde_json::json!([e[5].parse::<u64>().unwrap(), e[4].parse::<u64>().unwrap()])
        );
        assert_eq!(
            pair["cop"],
            serde_json::json!([e[7].parse::<u64>().unwrap(), e[6].parse::<u64>().unwrap()])
        );
        verdicts.insert(pair["result"].as_str().unwrap().to_string());
    }
    assert!(verdicts.len() > 1, "{verdicts:?}");
    // A few pairs solved on their own, with the coordinates as the file
    // writes them (--xy).
    for k in [0, 1, 100, 460] {
        let e = &entries[k];
        let cop = format!("{},{}", e[6], e[7]);
        let thief = format!("{},{}", e[4], e[5]);
        let (one, _) = json(&[
            RANDOM, "--exits", "rim", "--xy", "--cop", &cop, "--thief", &thief,
        ]);
        assert_eq!(one["result"], pairs[k]["result"], "entry {k}");
        assert_eq!(one["dte"], pairs[k]["dte"], "entry {k}");
    }
    // --scen with a start flag, or on a map of another size, is refused.
    run_refused(&["solve", RANDOM, "--scen", SCEN, "--cop", "1,1"], "--cop");
    run_refused(
        &["solve", ARENA, "--scen", SCEN],
        "random-32-32-10-random-1.scen:2:1:",
    );
}

#[test]
fn malformed_scen_is_reported_with_line_and_column() {
    let dir = temp_dir("scen");
    for (body, position) in [
        ("version 1\n0\tm.map\t32\t32\t1\t2\t3\n", ":2:"),
        ("version 1\n0\tm.map\t32\t32\t1\tx\t3\t4\t1.0\n", ":2:17:"),
        ("version 1\n0\tm.map\t32\t32\t40\t2\t3\t4\t1.0\n", ":2:15:"),
        ("version 1\n", ":1:1:"),
    ] {
        let path = dir.join("bad.scen");
        std::fs::write(&path, body).unwrap();
        let output = run(&["solve", RANDOM, "--scen", path.to_str().unwrap()], None);
        assert_eq!(output.status.code(), Some(2), "{body}");
        let e = err(&output);
        assert!(e.contains(&format!("bad.scen{position}")), "{body}: {e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn completions_and_man_pages() {
    for shell in ["bash", "zsh", "fish"] {
        let output = run(&["completions", shell], None);
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let script = out(&output);
        assert!(script.contains("retrograde"), "{shell}");
        assert!(
            script.contains("exits") && script.contains("scen"),
            "{shell}"
        );
    }
    assert_eq!(run(&["completions", "tcsh"], None).status.code(), Some(2));
    let page = out(&run(&["man"], None));
    assert!(page.contains(".TH retrograde 1"), "{page}");
    let dir = temp_dir("man");
    let output = run(&["man", "--out-dir", dir.to_str().unwrap()], None);
    assert_eq!(output.status.code(), Some(0), "{}", err(&output));
    let solve = std::fs::read_to_string(dir.join("retrograde-solve.1")).unwrap();
    assert!(solve.contains("exits"), "{solve}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs a command that prints one JSON object and returns it.
fn json_of(args: &[&str]) -> Json {
    let output = run_status(args, 0);
    serde_json::from_str(out(&output).trim()).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

#[test]
fn every_json_output_starts_with_schema_1_and_names_its_input_map() {
    let dir = temp_dir("schema");
    let graph = dir.join("g.txt");
    std::fs::write(&graph, "0 1\n1 2\n").unwrap();
    let graph = graph.to_str().unwrap();
    let objects = [
        (
            json_of(&["solve", "--json", "-q", "data/maps/sample.txt"]),
            Some("data/maps/sample.txt"),
        ),
        (json_of(&["graph", graph, "--json"]), Some(graph)),
        (json_of(&["nim", "3", "4", "5", "--json"]), None),
        (
            json_of(&["subtraction", "--moves", "1,3,4", "--upto", "9", "--json"]),
            None,
        ),
        (
            json_of(&[
                "grundy",
                "--rows",
                "3",
                "--cols",
                "3",
                "--moves",
                "-1,0 0,-1",
                "--json",
            ]),
            None,
        ),
        (
            json_of(&["empty-cell", "data/toolkit/line.txt", "--json"]),
            None,
        ),
    ];
    for (object, map) in &objects {
        let first = object.as_object().unwrap().keys().next().cloned();
        // serde_json sorts keys unless preserve_order; check the value.
        assert_eq!(object["schema"], 1, "{object}");
        assert!(first.is_some());
        if let Some(map) = map {
            assert_eq!(object["map"], *map, "{object}");
            for old in ["path", "graph"] {
                assert!(object.get(old).is_none(), "{old} in {object}");
            }
        }
    }
    // The raw text puts the schema first, so a reader can dispatch on it.
    let raw = out(&run(&["nim", "1", "--json"], None));
    assert!(raw.starts_with("{\"schema\":1,"), "{raw}");
    // Values for the player to move are win, loss, draw everywhere.
    let table = out(&run(
        &["subtraction", "--moves", "1,3,4", "--upto", "9"],
        None,
    ));
    assert!(
        table.contains("0\tloss\t0") && !table.contains("lose\t"),
        "{table}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn batch_counts_take_suffixes_and_skipped_rows_still_show_exits() {
    let dir = temp_dir("batch-counts");
    let results = dir.join("r.jsonl");
    let results = results.to_str().unwrap();
    let output = run(
        &[
            "batch",
            "data/movingai",
            "data/maps/movingai",
            "--exits",
            "rim",
            "--max-states",
            "2e6",
            "--large-states",
            "1.5M",
            "--out",
            results,
            "-q",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", err(&output));
    let rows: Vec<Json> = std::fs::read_to_string(results)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 5);
    for row in &rows {
        let states = row["states"].as_u64().unwrap();
        let status = if states > 2_000_000 {
            "skipped: too large"
        } else {
            "ok"
        };
        assert_eq!(row["status"], status, "{row}");
        // Every map, solved or skipped, has exits under the rim rule.
        assert!(row["exits"].as_u64().unwrap() > 0, "{row}");
        assert_eq!(row["exit_checksum"].as_str().unwrap().len(), 16, "{row}");
        assert_eq!(row["schema"], 1);
    }
    // The skipped arena row carries the exits solve lists.
    let arena = rows.iter().find(|r| r["map"] == ARENA).unwrap();
    let (report, _) = json(&[ARENA, "--exits", "rim"]);
    assert_eq!(arena["exits"], report["exits"]);
    assert_eq!(arena["exit_checksum"], report["exit_checksum"]);
    // The summary on stdout shows exits per map.
    let table = out(&output);
    assert!(table.lines().next().unwrap().starts_with("map "), "{table}");
    assert!(table.contains(" exits "), "{table}");
    // A bad count is a usage error naming the notation.
    run_refused(
        &[
            "batch",
            "data/movingai",
            "--max-states",
            "1e",
            "--out",
            results,
        ],
        "5e7",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_reports_spread_after_warm_up_for_every_engine() {
    let dir = temp_dir("bench-spread");
    let json_path = dir.join("b.json");
    let md_path = dir.join("b.md");
    let args = [
        "bench",
        "data/maps/sample.txt",
        "--engines",
        "explicit,sequential,parallel,sweep",
        "--warmup",
        "2",
        "--runs",
        "3",
        "--export-json",
        json_path.to_str().unwrap(),
        "--export-markdown",
        md_path.to_str().unwrap(),
    ];
    let output = run(&args, None);
    assert_eq!(output.status.code(), Some(0), "{}", err(&output));
    // Piped stderr: one progress line per run, warm-ups included.
    let progress = err(&output);
    assert_eq!(progress.matches("warm-up ").count(), 4 * 2, "{progress}");
    assert_eq!(progress.matches(": run ").count(), 4 * 3, "{progress}");
    let export: Json = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(export["schema"], 1);
    let records = export["results"].as_array().unwrap();
    assert_eq!(records.len(), 4);
    for r in records {
        assert_eq!(r["map"], "data/maps/sample.txt");
        assert_eq!(
            (r["warmup"].clone(), r["runs"].clone()),
            (2.into(), 3.into())
        );
        let times: Vec<f64> = r["times"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_f64().unwrap())
            .collect();
        assert_eq!(times.len(), 3);
        let mean = times.iter().sum::<f64>() / 3.0;
        let sd = (times.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(close(r["mean_seconds"].as_f64().unwrap(), mean), "{r}");
        assert!(close(r["stddev_seconds"].as_f64().unwrap(), sd), "{r}");
        let min = times.iter().copied().fold(f64::INFINITY, f64::min);
        let max = times.iter().copied().fold(0.0, f64::max);
        assert!(close(r["min_seconds"].as_f64().unwrap(), min));
        assert!(close(r["max_seconds"].as_f64().unwrap(), max));
        let mut sorted = times.clone();
        sorted.sort_by(f64::total_cmp);
        assert!(close(r["median_seconds"].as_f64().unwrap(), sorted[1]));
        assert_eq!(r["result"], "thief-escapes", "{r}");
    }
    // The sweep engine runs and agrees by values (it keeps no distance).
    let sweep = &records[3];
    assert_eq!(sweep["engine"], "sweep");
    assert_eq!(sweep["agrees"], true);
    assert!(sweep["dte"].is_null());
    let markdown = std::fs::read_to_string(&md_path).unwrap();
    let lines: Vec<&str> = markdown.lines().collect();
    assert!(
        lines[0].starts_with("| map | engine | threads | mean [s] | min [s] | max [s] | relative")
    );
    assert_eq!(lines.len(), 2 + 4);
    assert!(lines.iter().any(|l| l.contains("| 1.00 |")), "{markdown}");
    // --quiet: no progress at all.
    let mut quiet = args.to_vec();
    quiet.push("--quiet");
    let output = run(&quiet, None);
    assert_eq!(output.status.code(), Some(0));
    assert!(err(&output).is_empty(), "{}", err(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}
