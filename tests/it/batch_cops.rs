//! `batch --cops K` and `batch --copnumber` (issue 48): each map's row
//! against `solve --cops K --summary --json` and `copnumber MAP --json`
//! run on that map alone, and `--resume` solving nothing again.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{run, stderr, stdout, temp_dir};

/// A directory of the small seed maps of data/maps (and the sample map).
fn maps(name: &str) -> (PathBuf, Vec<PathBuf>) {
    let dir = temp_dir(name);
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/maps");
    let mut maps = Vec::new();
    let seed: Vec<PathBuf> = std::fs::read_dir(data.join("seed"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    for from in seed.iter().chain([&data.join("sample.txt")]) {
        let to = dir.join(from.file_name().unwrap());
        std::fs::copy(from, &to).unwrap();
        maps.push(to);
    }
    maps.sort();
    (dir, maps)
}

/// The JSON Lines rows of `file` by map.
fn rows(file: &Path) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn row_of<'a>(rows: &'a [Value], map: &Path) -> &'a Value {
    rows.iter()
        .find(|r| r["map"] == map.to_str().unwrap())
        .unwrap_or_else(|| panic!("no row for {}", map.display()))
}

/// Every row of `batch --cops 2` equals `solve --cops 2 --summary --json`
/// on its map (the summary, counts, states, engine's verdict), under
/// default rules and under `--exits border --thief-first`; `--resume`
/// then keeps every row as it was and solves none.
#[test]
fn batch_cops_rows_equal_solve_map_by_map_and_resume_solves_none() {
    let (dir, maps) = maps("batch-cops");
    for extra in [
        &[][..],
        &["--exits", "border", "--thief-first", "--dte-table"],
    ] {
        let out = dir.join("rows.jsonl");
        let _ = std::fs::remove_file(&out);
        let mut args = vec!["batch", dir.to_str().unwrap(), "-q", "--cops", "2"];
        args.extend_from_slice(&["--out", out.to_str().unwrap()]);
        args.extend_from_slice(extra);
        let o = run(&args, None);
        assert!(o.status.success(), "{}", stderr(&o));
        let got = rows(&out);
        assert_eq!(got.len(), maps.len());
        for map in &maps {
            let row = row_of(&got, map);
            assert_eq!(row["status"], "ok", "{row}");
            let mut solve = vec!["solve", map.to_str().unwrap(), "-q", "--cops", "2"];
            solve.extend_from_slice(&["--json", "--summary"]);
            solve.extend_from_slice(extra);
            let o = run(&solve, None);
            assert!(o.status.success(), "{}", stderr(&o));
            let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
            let what = format!("{} {extra:?}", map.display());
            for key in ["placements", "best_placement", "states", "counts", "exits"] {
                assert_eq!(row[key], report[key], "{what}: {key}");
            }
            assert_eq!(row["longest_placement"], report["longest"], "{what}");
            if report["placements"] == 0 {
                assert!(row["share"].is_null(), "{what}");
            } else {
                assert_eq!(row["share"], report["share"], "{what}");
            }
            assert_eq!(row["cops"], 2, "{what}");
        }
        // The rows come back untouched (their times too: nothing solved).
        let before = std::fs::read_to_string(&out).unwrap();
        args.push("--resume");
        let o = run(&args, None);
        assert!(o.status.success(), "{}", stderr(&o));
        let summary = stdout(&o);
        let last = summary.lines().last().unwrap();
        assert!(
            last.starts_with(&format!("{} maps: 0 solved", maps.len())),
            "{summary}"
        );
        assert!(
            last.contains(&format!("{} already done", maps.len())),
            "{summary}"
        );
        assert_eq!(std::fs::read_to_string(&out).unwrap(), before);
    }
    // Rows of two cops are not those of three: refused, not mixed.
    let out = dir.join("rows.jsonl");
    let o = run(
        &[
            "batch",
            dir.to_str().unwrap(),
            "-q",
            "--cops",
            "3",
            "--out",
            out.to_str().unwrap(),
            "--resume",
            "--exits",
            "border",
            "--thief-first",
            "--dte-table",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--cops 3"), "{}", stderr(&o));
}

/// `batch DIR --copnumber` gives each map's cop number, placement and
/// capture time as `copnumber MAP --json` does (CSV rows too), and a
/// second run with `--resume` solves none.
#[test]
fn batch_copnumber_equals_copnumber_per_map() {
    let (dir, maps) = maps("batch-copnumber");
    let out = dir.join("numbers.jsonl");
    let args = [
        "batch",
        dir.to_str().unwrap(),
        "-q",
        "--copnumber",
        "--out",
        out.to_str().unwrap(),
    ];
    let o = run(&args, None);
    assert!(o.status.success(), "{}", stderr(&o));
    let got = rows(&out);
    assert_eq!(got.len(), maps.len());
    for map in &maps {
        let row = row_of(&got, map);
        let o = run(&["copnumber", map.to_str().unwrap(), "--json"], None);
        assert!(o.status.success(), "{}", stderr(&o));
        let want: Value = serde_json::from_str(&stdout(&o)).unwrap();
        let what = map.display().to_string();
        assert_eq!(row["cop_number"], want["cop_number"], "{what}");
        let best = &row["best_placement"];
        assert_eq!(best["cops"], want["placement"], "{what}");
        assert_eq!(best["capture_plies"], want["capture_time_plies"], "{what}");
        assert_eq!(best["capture_rounds"], want["capture_time"], "{what}");
    }
    let mut again = args.to_vec();
    again.push("--resume");
    let before = std::fs::read_to_string(&out).unwrap();
    let o = run(&again, None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(" 0 solved"), "{}", stdout(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), before);
    // The text table names each map's cop number.
    assert!(stdout(&o).contains("cop number"), "{}", stdout(&o));
    // Starts are refused: the cop number tries every placement.
    let o = run(
        &[
            "batch",
            dir.to_str().unwrap(),
            "-q",
            "--copnumber",
            "--out",
            dir.join("x.csv").to_str().unwrap(),
            "--thief-first",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!dir.join("x.csv").exists());
}
