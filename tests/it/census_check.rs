//! The census as a checked reference (issue 48): `copnumber census
//! --check` confirms every cop-number-1 verdict by corner elimination and
//! refutes every other, on the committed connected graphs of up to 8
//! vertices (no nauty needed); and the certificates committed for the
//! graphs of the largest cop number of each census in `data/census`
//! (`data/census/certificates/`, the large ones compressed; at 20
//! vertices of the cubic census the first 20 of 7,258) are exactly those
//! graphs, with that cop number, and `scripts/check-certificate.py`
//! accepts them.

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
    let unpacked = temp_dir("census-certificates");
    let mut seen = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let mut cert = entry.unwrap().path();
        let name = cert.file_name().unwrap().to_str().unwrap().to_string();
        // The large ones are compressed (`zstd -19`).
        let stem = if let Some(stem) = name.strip_suffix(".cert.zst") {
            let packed = std::fs::File::open(&cert).unwrap();
            let plain = unpacked.join(format!("{stem}.cert"));
            std::fs::write(&plain, zstd::decode_all(packed).unwrap()).unwrap();
            cert = plain;
            stem.to_string()
        } else if let Some(stem) = name.strip_suffix(".cert") {
            stem.to_string()
        } else {
            continue;
        };
        // `NAME.first-K`: the first K graphs the census lists, where all
        // would be too large to commit.
        let (census_name, first) = match stem.split_once(".first-") {
            Some((name, k)) => (name.to_string(), Some(k.parse::<usize>().unwrap())),
            None => (stem.clone(), None),
        };
        let census = root()
            .join("data/census")
            .join(format!("{census_name}.txt"));
        let (cop_number, graphs, mut listed) = largest_of(&census);
        match first {
            // Every graph of the largest cop number, as the census lists them.
            None => assert_eq!(graphs, listed.len() as u64, "{stem}: all listed"),
            Some(k) => {
                assert!(k < listed.len(), "{stem}: a part of the listed graphs");
                listed.truncate(k);
            }
        }
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
    // The Petersen graph on 10 vertices, the six graphs on 11: cop number 3;
    // the cubic graphs of cop number 3 from 10 to 18 vertices.
    assert_eq!(seen.get("connected-10"), Some(&(3, 1)));
    assert_eq!(seen.get("connected-11"), Some(&(3, 6)));
    for (n, graphs) in [(10, 1), (12, 2), (14, 9), (16, 50), (18, 488)] {
        assert_eq!(
            seen.get(&format!("cubic-{n}")),
            Some(&(3, graphs)),
            "cubic-{n}"
        );
    }
    // 7,258 on 20 vertices: the first 20.
    assert_eq!(seen.get("cubic-20.first-20"), Some(&(3, 20)));
    assert_eq!(seen.get("cubic-22.first-20"), Some(&(3, 20)));
    std::fs::remove_dir_all(&unpacked).unwrap();
}

#[test]
fn cubic_census_files_read_back_with_the_known_counts() {
    use retrograde::copnumber::Census;
    // Connected cubic graphs on 4, 6, ... vertices (OEIS A002851).
    let cubic = [1u64, 2, 5, 19, 85, 509, 4060, 41_301, 510_489, 7_319_447];
    let readme = std::fs::read_to_string(root().join("data/census/README.md")).unwrap();
    let mut files = 0;
    for (i, &graphs) in cubic.iter().enumerate() {
        let n = 4 + 2 * i as u32;
        let path = root().join(format!("data/census/cubic-{n}.txt"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        files += 1;
        let census = Census::parse(s(&path), &text).unwrap();
        let key = &census.key;
        assert_eq!(key.source, "nauty-geng -cq -d3 -D3 {n} {res}/{mod}");
        assert_eq!(
            (key.vertices, key.shards, key.max_cops),
            (Some(n), 64, 4),
            "cubic-{n}"
        );
        let t = &census.tally;
        assert_eq!(t.graphs, graphs, "cubic-{n}");
        // K4 alone is cop-win; none needs 4 cops (or more).
        let c1 = t.classes.get(&Some(1)).map_or(0, |c| c.graphs);
        assert_eq!(c1, u64::from(n == 4), "cubic-{n}");
        assert!(t.largest_cop_number().unwrap().is_some_and(|c| c <= 3));
        // The README lists the file's SHA-256.
        let sum = text
            .lines()
            .last()
            .unwrap()
            .strip_prefix("sha256 ")
            .unwrap();
        assert_eq!(sum.len(), 64);
        let file_sum = Command::new("sha256sum").arg(&path).output().unwrap();
        let file_sum = stdout(&file_sum);
        let file_sum = file_sum.split(' ').next().unwrap();
        assert!(
            readme.contains(&format!("{file_sum}  cubic-{n}.txt")),
            "README lacks the SHA-256 of cubic-{n}.txt"
        );
    }
    assert_eq!(files, 10, "the cubic census from 4 to 22 vertices");
}
