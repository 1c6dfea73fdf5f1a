//! MovingAI scenarios beyond `solve --scen` (issue 16), through the real
//! binary: `batch --scen` (one row per pair in JSON Lines, CSV and the
//! table; each map solved once; resume keyed by pair; bad entries refused
//! before the results file is touched) and `query --scen` (one answer per
//! entry, the same object as `query --json`), and `"schema": 1` in the
//! JSON of `query` and `info`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value as Json;

use crate::support::temp_dir;
use crate::support::{make_table, run, run_refused, run_status, stderr, stdout};

const RANDOM: &str = "data/movingai/random-32-32-10.map";
const SCEN: &str = "data/movingai/random-32-32-10-random-1.scen";
const ENTRIES: usize = 461;

/// `solve --scen` on the sample scenario: its pairs by line, the
/// reference every other way of answering them must agree with.
fn solve_pairs() -> BTreeMap<u64, Json> {
    let output = run_status(
        &[
            "solve", RANDOM, "--exits", "rim", "--scen", SCEN, "--json", "-q",
        ],
        0,
    );
    let report: Json = serde_json::from_str(stdout(&output).trim()).unwrap();
    report["scenario"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["line"].as_u64().unwrap(), p.clone()))
        .collect()
}

fn json_lines(text: &str) -> Vec<Json> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The batch's pair rows by scenario line.
fn rows_by_line(path: &Path) -> BTreeMap<u64, Json> {
    json_lines(&std::fs::read_to_string(path).unwrap())
        .into_iter()
        .filter(|r| !r["scen"].is_null())
        .map(|r| (r["scen_line"].as_u64().unwrap(), r))
        .collect()
}

fn batch_scen(out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "batch",
        "data/movingai",
        "--exits",
        "rim",
        "--scen",
        SCEN,
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run_status(&args, 0)
}

#[test]
fn batch_scen_writes_one_row_per_pair_from_one_solve() {
    let dir = temp_dir("scen-batch");
    let reference = solve_pairs();
    assert_eq!(reference.len(), ENTRIES);
    let jsonl = dir.join("pairs.jsonl");
    // Not quiet: piped progress is one line per map, so one line here
    // means the map was solved once for all its pairs.
    let output = batch_scen(&jsonl, &["--xy"]);
    let progress = stderr(&output);
    assert_eq!(
        progress.lines().filter(|l| l.starts_with('[')).count(),
        1,
        "{progress}"
    );
    assert!(progress.contains(&format!("{ENTRIES} pairs answered")));
    let rows = rows_by_line(&jsonl);
    assert_eq!(rows.len(), ENTRIES);
    let seconds: std::collections::BTreeSet<String> =
        rows.values().map(|r| r["seconds"].to_string()).collect();
    assert_eq!(seconds.len(), 1, "every pair row comes from the one solve");
    for (line, pair) in &reference {
        let row = &rows[line];
        assert_eq!(row["schema"], 1);
        assert_eq!(row["map"], RANDOM);
        assert_eq!(row["scen"], SCEN);
        assert_eq!(row["status"], "ok");
        for key in ["bucket", "cop", "thief", "result", "dte"] {
            assert_eq!(row[key], pair[key], "line {line}: {key}");
        }
    }
    // The table: a header, one line per pair with cells as x,y, totals.
    let table = stdout(&output);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), ENTRIES + 2, "{table}");
    assert!(lines[0].starts_with("map "), "{table}");
    let first = &reference[&2];
    let xy = |c: &Json| format!("{},{}", c[1], c[0]);
    let words: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(
        words,
        [
            RANDOM,
            &format!("{SCEN}:2"),
            &xy(&first["thief"]),
            &xy(&first["cop"]),
            first["result"].as_str().unwrap(),
            &first["dte"].to_string(),
            "ok"
        ]
    );
    assert!(
        lines[ENTRIES + 1].starts_with(&format!(
            "{ENTRIES} pairs on 1 map (x,y): {ENTRIES} answered, 0 failed"
        )),
        "{table}"
    );
    assert!(lines[ENTRIES + 1].contains("2 maps named by no entry"));
    // CSV holds the same pairs, cells as row and column.
    let csv = dir.join("pairs.csv");
    batch_scen(&csv, &["-q"]);
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let mut count = 0;
    for record in reader.records() {
        let record = record.unwrap();
        let line: u64 = record[column("scen_line")].parse().unwrap();
        let pair = &reference[&line];
        assert_eq!(&record[column("scen")], SCEN);
        assert_eq!(record[column("thief_row")], pair["thief"][0].to_string());
        assert_eq!(record[column("thief_col")], pair["thief"][1].to_string());
        assert_eq!(record[column("cop_row")], pair["cop"][0].to_string());
        assert_eq!(record[column("cop_col")], pair["cop"][1].to_string());
        assert_eq!(&record[column("result")], pair["result"].as_str().unwrap());
        assert_eq!(record[column("dte")], pair["dte"].to_string());
        count += 1;
    }
    assert_eq!(count, ENTRIES);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn batch_scen_resumes_by_pair_and_never_takes_a_map_row_for_a_pair() {
    let dir = temp_dir("scen-resume");
    let out = dir.join("r.jsonl");
    // A whole-map batch first: its row stays, and it answers no pair.
    let o = out.to_str().unwrap();
    let whole = ["batch", RANDOM, "--exits", "rim", "--out", o, "-q"];
    run_status(&whole, 0);
    let maps = std::fs::read_to_string(&out).unwrap();
    assert_eq!(maps.lines().count(), 1);
    let output = batch_scen(&out, &["-q", "--resume"]);
    let last = stdout(&output).lines().last().unwrap().to_string();
    assert!(
        last.contains(&format!("{ENTRIES} answered")) && last.contains("0 already done"),
        "{last}"
    );
    let all = std::fs::read_to_string(&out).unwrap();
    assert!(all.starts_with(&maps), "the map rows are kept as they were");
    assert_eq!(rows_by_line(&out).len(), ENTRIES);
    // Cut the file after 100 pair rows and a torn one, as a kill would.
    let lines: Vec<&str> = all.lines().collect();
    let mut cut = lines[..1 + 100].join("\n");
    cut.push('\n');
    cut.push_str(&lines[101][..40]);
    std::fs::write(&out, cut).unwrap();
    let output = batch_scen(&out, &["-q", "--resume"]);
    let table = stdout(&output);
    let last = table.lines().last().unwrap();
    assert!(
        last.contains(&format!("{} answered", ENTRIES - 100)) && last.contains("100 already done"),
        "{last}"
    );
    assert_eq!(table.matches("ok (resumed)").count(), 100, "{table}");
    let resumed = rows_by_line(&out);
    assert_eq!(resumed.len(), ENTRIES);
    let reference = solve_pairs();
    for (line, pair) in &reference {
        assert_eq!(resumed[line]["result"], pair["result"], "line {line}");
        assert_eq!(resumed[line]["dte"], pair["dte"], "line {line}");
    }
    // The whole-map batch still finds its own rows done.
    let output = run_status(&[&whole[..], &["--resume"]].concat(), 0);
    let last = stdout(&output).lines().last().unwrap().to_string();
    assert!(
        last.contains("0 solved") && last.contains("1 already done"),
        "{last}"
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap().lines().count(),
        1 + ENTRIES
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn batch_scen_finds_maps_by_file_name_and_refuses_bad_entries_untouched() {
    let dir = temp_dir("scen-bad");
    let out = dir.join("r.csv");
    let out = out.to_str().unwrap();
    std::fs::write(out, "kept\n").unwrap();
    let scen = dir.join("s.scen");
    let s = scen.to_str().unwrap();
    let entry = |map: &str, start: (u32, u32)| {
        format!("0\t{map}\t32\t32\t{}\t{}\t7\t18\t1.0\n", start.0, start.1)
    };
    let reference = solve_pairs();
    // An older-style path: its file name finds the map.
    std::fs::write(
        &scen,
        format!(
            "version 1\n{}",
            entry("maps/x/random-32-32-10.map", (11, 6))
        ),
    )
    .unwrap();
    let ok = dir.join("ok.jsonl");
    run_status(
        &[
            "batch",
            "data/movingai",
            "--exits",
            "rim",
            "--scen",
            s,
            "--out",
            ok.to_str().unwrap(),
            "-q",
        ],
        0,
    );
    let rows = json_lines(&std::fs::read_to_string(&ok).unwrap());
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["result"], reference[&2]["result"]);
    assert_eq!(rows[0]["dte"], reference[&2]["dte"]);
    // Bad entries: exit 2 at file:line:column, the results file as it was.
    let copies = dir.join("copies");
    for sub in ["a", "b"] {
        std::fs::create_dir_all(copies.join(sub)).unwrap();
        std::fs::copy(RANDOM, copies.join(sub).join("random-32-32-10.map")).unwrap();
    }
    let wall = {
        let text = std::fs::read_to_string(RANDOM).unwrap();
        let rows: Vec<&str> = text.lines().skip(4).collect();
        let y = rows.iter().position(|r| r.contains('@')).unwrap();
        (rows[y].find('@').unwrap() as u32, y as u32)
    };
    let cases: [(String, &str, &str); 4] = [
        (
            entry("nope.map", (11, 6)),
            "data/movingai",
            ":2:3: the map `nope.map` is not among",
        ),
        (
            entry("random-32-32-10.map", wall),
            "data/movingai",
            ":2:1: the start",
        ),
        (
            entry("random-32-32-10.map", (11, 6)).replace("\t32\t32\t", "\t33\t32\t"),
            "data/movingai",
            ":2:1: the entry is for a 33 x 32 map",
        ),
        (
            entry("random-32-32-10.map", (11, 6)),
            copies.to_str().unwrap(),
            ":2:3: the map `random-32-32-10.map` is ambiguous: 2 files",
        ),
    ];
    for (line, maps, needle) in &cases {
        std::fs::write(&scen, format!("version 1\n{line}")).unwrap();
        let e = run_refused(
            &["batch", maps, "--scen", s, "--out", out, "-q"],
            &format!("s.scen{needle}"),
        );
        assert_eq!(std::fs::read_to_string(out).unwrap(), "kept\n", "{e}");
    }
    // A start flag with --scen is a usage error.
    let with_cop = [
        "batch",
        "data/movingai",
        "--scen",
        SCEN,
        "--cop",
        "1,1",
        "--out",
        out,
    ];
    run_refused(&with_cop, "--cop");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn query_scen_answers_every_entry_as_query_does() {
    let dir = temp_dir("scen-query");
    let table = make_table(&dir, "random", &[RANDOM, "--exits", "rim"], true);
    let t = table.to_str().unwrap();
    let answers = json_lines(&stdout(&run_status(
        &["query", t, "--scen", SCEN, "--json"],
        0,
    )));
    assert_eq!(answers.len(), ENTRIES);
    // The same objects as one `query --json` per position, cop to move.
    let text = std::fs::read_to_string(SCEN).unwrap();
    let mut positions = String::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        positions.push_str(&format!("{},{} {},{}\n", f[7], f[6], f[5], f[4]));
    }
    let one_by_one = run(
        &["query", t, "--stdin", "--json"],
        Some(positions.as_bytes()),
    );
    assert_eq!(json_lines(&stdout(&one_by_one)), answers);
    // And the solve's verdicts: the cop to move loses when the thief
    // escapes.
    for ((_, pair), answer) in solve_pairs().iter().zip(&answers) {
        assert_eq!(answer["schema"], 1);
        assert_eq!(answer["turn"], "cop");
        assert_eq!(answer["cop"], pair["cop"]);
        assert_eq!(answer["thief"], pair["thief"]);
        let value = match pair["result"].as_str().unwrap() {
            "cop-wins" => "win",
            "thief-escapes" => "loss",
            _ => "draw",
        };
        assert_eq!(answer["value"], value);
        assert_eq!(answer["dte"], pair["dte"]);
    }
    // --xy: flags and text in x,y, JSON still [row, column].
    let first = &answers[0];
    let xy = |c: &Json| format!("{},{}", c[1], c[0]);
    let (cop, thief) = (xy(&first["cop"]), xy(&first["thief"]));
    let flags = run_status(
        &[
            "query", t, "--xy", "--cop", &cop, "--thief", &thief, "--json",
        ],
        0,
    );
    assert_eq!(json_lines(&stdout(&flags))[0], *first);
    let shown = stdout(&run_status(&["query", t, "--scen", SCEN, "--xy"], 0));
    assert!(
        shown.starts_with(&format!("cop {cop} thief {thief}, cop to move: ")),
        "{shown}"
    );
    assert_eq!(shown.matches(" to move: ").count(), ENTRIES);
    // The turn defaults to the rules' first mover.
    let thief_first = make_table(
        &dir,
        "thief-first",
        &[RANDOM, "--exits", "rim", "--thief-first"],
        false,
    );
    let answers = json_lines(&stdout(&run_status(
        &[
            "query",
            thief_first.to_str().unwrap(),
            "--scen",
            SCEN,
            "--json",
        ],
        0,
    )));
    assert!(answers.iter().all(|a| a["turn"] == "thief"));
    // A scenario for another map size is refused before any answer.
    let sample = make_table(&dir, "sample", &["data/maps/sample.txt"], false);
    let output = run(&["query", sample.to_str().unwrap(), "--scen", SCEN], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("random-32-32-10-random-1.scen:2:1:"));
    assert!(stdout(&output).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn query_and_info_json_start_with_schema_1_and_name_the_table() {
    let dir = temp_dir("scen-schema");
    let table = make_table(&dir, "sample", &["data/maps/sample.txt"], true);
    let t = table.to_str().unwrap();
    for args in [
        &["query", t, "--cop", "1,1", "--thief", "5,9", "--json"][..],
        &["info", t, "--json"][..],
    ] {
        let raw = stdout(&run_status(args, 0));
        assert!(raw.starts_with("{\"schema\":1,"), "{args:?}: {raw}");
    }
    let info: Json = serde_json::from_str(&stdout(&run_status(&["info", t, "--json"], 0))).unwrap();
    assert_eq!(info["table"], t);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `batch --scen s.scen --scen s.scen` (or `./s.scen` beside `s.scen`):
/// one file, each pair answered once (two rows under one key before, and
/// `--resume` then counted one and rewrote the file to one row).
#[test]
fn batch_scen_given_twice_answers_each_pair_once() {
    let dir = temp_dir("scen-twice");
    let maps = dir.join("bm");
    std::fs::create_dir(&maps).unwrap();
    std::fs::write(
        maps.join("m.map"),
        "type octile\nheight 2\nwidth 3\nmap\n...\n...\n",
    )
    .unwrap();
    let scen = dir.join("s.scen");
    std::fs::write(&scen, "version 1\n0\tm.map\t3\t2\t0\t0\t2\t1\t0\n").unwrap();
    let again = dir.join(".").join("s.scen");
    let out = dir.join("p.jsonl");
    for twice in [&scen, &again] {
        let _ = std::fs::remove_file(&out);
        let mut args = vec![
            "batch",
            maps.to_str().unwrap(),
            "--scen",
            scen.to_str().unwrap(),
            "--scen",
            twice.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ];
        let first = stdout(&run_status(&args, 0));
        assert!(first.contains("1 pairs on 1 map"), "{first}");
        assert!(first.contains("1 answered"), "{first}");
        let rows = json_lines(&std::fs::read_to_string(&out).unwrap());
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert_eq!(
            rows[0]["scen"],
            scen.to_str().unwrap(),
            "the first spelling"
        );
        args.push("--resume");
        let resumed = stdout(&run_status(&args, 0));
        assert!(resumed.contains("1 pairs on 1 map"), "{resumed}");
        assert!(resumed.contains("1 already done"), "{resumed}");
        assert_eq!(json_lines(&std::fs::read_to_string(&out).unwrap()).len(), 1);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
