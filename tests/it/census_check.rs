//! The census as a checked reference (issue 48): `copnumber census
//! --check` confirms every cop-number-1 verdict by corner elimination and
//! refutes every other, on the committed connected graphs of up to 8
//! vertices (no nauty needed); and the certificates committed for the
//! graphs of the largest cop number of each census in `data/census`
//! (`data/census/certificates/`) are exactly those graphs, with that cop
//! number, and `scripts/check-certificate.py` accepts them.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value as Json;

use crate::support::{run_status, stderr, stdout, temp_dir};

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn census_check_agrees_on_every_connected_graph_up_to_8_vertices() {
    let dir = temp_dir("census-check");
    let files = [
        "data/graphs/connected-1-to-5.g6",
        "data/graphs/connected-6.g6",
        "data/graphs/connected-7.g6",
        "data/graphs/connected-8.g6",
    ];
    let out = dir.join("all");
    let mut args = vec!["copnumber", "census", "--quiet", "--check", "--json"];
    args.extend(files);
    args.extend(["--out", s(&out)]);
    let j: Json = serde_json::from_str(stdout(&run_status(&args, 0)).trim()).unwrap();
    // 1 + 1 + 2 + 6 + 21, 112, 853, 11,117 graphs; the cop-win ones by
    // the census's own count, the check's count agreeing with it.
    assert_eq!(j["graphs"], 12_113);
    assert_eq!(j["cop_number"]["1"], 1 + 1 + 2 + 5 + 16 + 68 + 403 + 3_791);
    assert_eq!(
        j["check"],
        serde_json::json!({"shards": 4, "graphs": 12_113, "dismantlable": j["cop_number"]["1"]})
    );
    // Without --check the JSON has no check, and the census file is the
    // same bytes.
    let plain = dir.join("plain");
    let mut args = vec!["copnumber", "census", "--quiet", "--json"];
    args.extend(files);
    args.extend(["--out", s(&plain)]);
    let p: Json = serde_json::from_str(stdout(&run_status(&args, 0)).trim()).unwrap();
    assert!(p.get("check").is_none());
    assert_eq!(
        std::fs::read(out.join("census.txt")).unwrap(),
        std::fs::read(plain.join("census.txt")).unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn census_check_says_which_shards_it_did_not_compute() {
    let dir = temp_dir("census-check-resume");
    let six = "data/graphs/connected-6.g6";
    let generator = format!("awk 'NR % {{mod}} == {{res}}' {six}");
    let base = [
        "copnumber",
        "census",
        "--quiet",
        "--vertices",
        "6",
        "--shards",
        "3",
        "--generator",
        &generator,
        "--check",
        "--out",
    ];
    let out = dir.join("c");
    let first = stdout(&run_status(
        &[&base[..], &[s(&out), "--shard", "0"]].concat(),
        0,
    ));
    assert!(!first.contains("check:"), "no census yet: {first}");
    let text = stdout(&run_status(&[&base[..], &[s(&out)]].concat(), 0));
    let line = text
        .lines()
        .find(|l| l.starts_with("check: "))
        .unwrap_or_else(|| panic!("a check line: {text}"));
    // Shards 1 and 2 run now: the graphs of lines 1, 2, 4, 5, ... of the
    // file; shard 0, from the first run, is named as not checked.
    let count = std::fs::read_to_string(root().join(six))
        .unwrap()
        .lines()
        .count();
    let graphs = (1..=count).filter(|l| l % 3 != 0).count();
    assert!(
        line.contains(&format!("agrees on the {graphs} graphs of 2 shards run")),
        "{line}"
    );
    assert!(
        line.ends_with("; 1 shard was computed before this run, not checked"),
        "{line}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The census file a certificate of `data/census/certificates/` is for:
/// its largest cop number, how many graphs have it, and those listed.
fn largest_of(census: &Path) -> (u64, u64, Vec<String>) {
    let text = std::fs::read_to_string(census).unwrap();
    let mut largest = None;
    let mut listed = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        match f[..] {
            ["largest", c, "graphs", g] => largest = Some((c.parse().unwrap(), g.parse().unwrap())),
            ["largest-graph", g, ..] => listed.push(g.to_string()),
            _ => {}
        }
    }
    let (c, g) = largest.expect("a largest line");
    (c, g, listed)
}

#[test]
fn census_certificates_cover_every_graph_of_the_largest_cop_number_and_are_verified() {
    let dir = root().join("data/census/certificates");
    let mut seen = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let cert = entry.unwrap().path();
        if cert.extension().and_then(|e| e.to_str()) != Some("cert") {
            continue;
        }
        let stem = cert.file_stem().unwrap().to_str().unwrap().to_string();
        let census = root().join("data/census").join(format!("{stem}.txt"));
        let (cop_number, graphs, listed) = largest_of(&census);
        // Every graph of the largest cop number, as the census lists them.
        assert_eq!(graphs, listed.len() as u64, "{stem}: all listed");
        let text = std::fs::read_to_string(&cert).unwrap();
        let records: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("graph "))
            .map(|l| l.split(' ').nth(2).expect("graph N g6 TEXT"))
            .collect();
        assert_eq!(records, listed, "{stem}: the certificate's graphs");
        let claims: Vec<&str> = text.lines().filter(|l| l.starts_with("claim ")).collect();
        assert_eq!(claims.len(), records.len(), "{stem}");
        for c in claims {
            assert!(
                c.starts_with(&format!("claim {cop_number} capture ")),
                "{stem}: {c}"
            );
        }
        let out = Command::new("python3")
            .arg(root().join("scripts/check-certificate.py"))
            .arg(&cert)
            .arg("--quiet")
            .output()
            .expect("python3 runs scripts/check-certificate.py");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{stem}: {}{}",
            stdout(&out),
            stderr(&out)
        );
        assert!(
            stdout(&out).contains(&format!(": {} record", records.len())),
            "{}",
            stdout(&out)
        );
        seen.insert(stem, (cop_number, records.len()));
    }
    // The Petersen graph on 10 vertices, the six graphs on 11: cop number 3.
    assert_eq!(seen.get("connected-10"), Some(&(3, 1)));
    assert_eq!(seen.get("connected-11"), Some(&(3, 6)));
}
