//! `copnumber census` and `copnumber merge` without nauty: the generator
//! is a shell command that deals the lines of a graph6 file out to the
//! shards (`awk 'NR % MOD == RES'`). The census against `copnumber` on the
//! same graphs summed here; shards of two runs merged against one run; a
//! run killed (SIGKILL, SIGTERM) and run again against an uninterrupted
//! one; merge's refusals (another census, a damaged file, a shard twice or
//! missing) and bad input (a malformed line named by shard and line).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::Value as Json;

use crate::support::{bin, kill, run, run_refused, run_status, stderr, stdout, temp_dir};

/// The committed graph6 file of the 112 connected graphs on 6 vertices.
const SIX: &str = "data/graphs/connected-6.g6";

/// A generator dealing the lines of `file` out to the shards.
fn dealer(file: &str) -> String {
    format!("awk 'NR % {{mod}} == {{res}}' {file}")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// `copnumber census` with `args`, asserting exit status 0; its stdout.
fn census(args: &[&str]) -> String {
    let mut all = vec!["copnumber", "census", "--quiet"];
    all.extend_from_slice(args);
    stdout(&run_status(&all, 0))
}

fn json(text: &str) -> Json {
    serde_json::from_str(text.trim()).expect("one JSON object")
}

/// What a census of `shards` shards dealt by [`dealer`] must say about a
/// graph6 file, summed here from `copnumber FILE --json`'s per-graph
/// objects: counts by cop number, capture-time histograms, the graphs of
/// the largest cop number and of each longest capture time, in shard
/// order (line `l` is in shard `l % shards`), then file order.
fn summed(file: &str, shards: usize) -> Json {
    let out = run_status(&["copnumber", file, "--json"], 0);
    let mut graphs: Vec<Json> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<Json>(l).unwrap())
        .filter(|j| j.get("graph6").is_some())
        .collect();
    graphs.sort_by_key(|g| {
        let line = g["line"].as_u64().unwrap() as usize;
        (line % shards, line)
    });
    let word = |j: &Json| {
        j["cop_number"]
            .as_u64()
            .map_or_else(|| "more".to_string(), |c| c.to_string())
    };
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut times: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for g in &graphs {
        *counts.entry(word(g)).or_default() += 1;
        // A graph needing more than the most cops has no capture time.
        if let Some(t) = g["capture_time"].as_u64() {
            *times
                .entry(word(g))
                .or_default()
                .entry(t.to_string())
                .or_default() += 1;
        }
    }
    let top = counts
        .keys()
        .max_by_key(|c| c.parse::<u64>().unwrap_or(u64::MAX))
        .unwrap();
    let listed = |pick: &dyn Fn(&Json) -> bool| -> Vec<Json> {
        graphs
            .iter()
            .filter(|g| pick(g))
            .map(|g| {
                serde_json::json!({
                    "graph6": g["graph6"], "placement": g["placement"],
                    "capture_time": g["capture_time"], "capture_time_plies": g["capture_time_plies"],
                })
            })
            .collect()
    };
    let mut longest = serde_json::Map::new();
    for (c, h) in &times {
        let most = h.keys().map(|t| t.parse::<u64>().unwrap()).max().unwrap();
        let these = listed(&|g| &word(g) == c && g["capture_time"] == most);
        longest.insert(
            c.clone(),
            serde_json::json!({"cop_number": c.parse::<u64>().unwrap(), "capture_time": most,
                "graphs": these.len(), "listed": these}),
        );
    }
    let largest = listed(&|g| &word(g) == top);
    serde_json::json!({
        "graphs": graphs.len(),
        "cop_number": counts,
        "capture_time": times,
        "largest_cop_number": {"cop_number": top.parse::<u64>().ok(), "capture_time": null,
            "graphs": largest.len(), "listed": largest},
        "longest_capture_time": longest,
    })
}

/// The fields of a census's JSON that [`summed`] computes.
fn findings(j: &Json) -> Json {
    let mut out = serde_json::Map::new();
    for k in [
        "graphs",
        "cop_number",
        "capture_time",
        "largest_cop_number",
        "longest_capture_time",
    ] {
        out.insert(k.into(), j[k].clone());
    }
    Json::Object(out)
}

#[test]
fn copnumber_census_of_six_vertices_equals_copnumber_summed() {
    let dir = temp_dir("census-six");
    for shards in ["1", "3", "7"] {
        let want = summed(SIX, shards.parse().unwrap());
        let out = dir.join(format!("by-{shards}"));
        let j = json(&census(&[
            "--vertices",
            "6",
            "--shards",
            shards,
            "--generator",
            &dealer(SIX),
            "--out",
            s(&out),
            "--json",
        ]));
        assert_eq!(findings(&j), want, "{shards} shards");
        assert_eq!(j["graphs"], 112);
        assert_eq!(j["cop_number"], serde_json::json!({"1": 68, "2": 44}));
        let per_shard: u64 = j["shard_graphs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["graphs"].as_u64().unwrap())
            .sum();
        assert_eq!(per_shard, 112);
        // The checksum is the census file's last line, and sha256sum's.
        let text = std::fs::read_to_string(out.join("census.txt")).unwrap();
        let sum = j["sha256"].as_str().unwrap();
        assert!(text.ends_with(&format!("sha256 {sum}\n")));
    }
    // The same graphs as one file, one shard.
    let j = json(&census(&[SIX, "--out", s(&dir.join("file")), "--json"]));
    assert_eq!(findings(&j), summed(SIX, 1));
    assert_eq!(j["source"], "files");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn copnumber_census_merged_shards_of_two_runs_equal_one_run() {
    let dir = temp_dir("census-merge");
    let gen = dealer(SIX);
    let base = ["--vertices", "6", "--shards", "5", "--generator", &gen];
    let one = dir.join("one");
    let text = census(&[&base[..], &["--out", s(&one)]].concat());
    let (a, b) = (dir.join("a"), dir.join("b"));
    let part = census(&[&base[..], &["--out", s(&a), "--shard", "0-1"]].concat());
    assert!(part.is_empty(), "no census before every shard: {part}");
    assert!(!a.join("census.txt").exists());
    census(&[&base[..], &["--out", s(&b), "--shard", "2-4", "-j", "1"]].concat());
    let merged = dir.join("merged.txt");
    let out = run_status(
        &["copnumber", "merge", s(&a), s(&b), "--out", s(&merged)],
        0,
    );
    let whole = std::fs::read(one.join("census.txt")).unwrap();
    assert_eq!(std::fs::read(&merged).unwrap(), whole);
    assert_eq!(
        stdout(&out).replace(s(&merged), "F"),
        text.replace(s(&one.join("census.txt")), "F")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Waits until `dir` holds `count` shard files.
fn wait_for_shards(dir: &Path, count: usize) {
    let start = Instant::now();
    loop {
        let n = std::fs::read_dir(dir).map_or(0, |d| {
            d.filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().starts_with("shard-"))
            })
            .count()
        });
        if n >= count {
            return;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "no shards came");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn copnumber_census_killed_and_run_again_equals_an_uninterrupted_run() {
    let dir = temp_dir("census-kill");
    let hold = dir.join("hold");
    // Shards from 2 on wait while `hold` exists: the run is killed with
    // shards 0 and 1 written and the others in flight.
    let gen = format!(
        "if [ {{res}} -ge 2 ]; then while [ -e {} ]; do sleep 0.05; done; fi; {}",
        s(&hold),
        dealer(SIX)
    );
    let args = |out: &Path| -> Vec<String> {
        [
            "copnumber",
            "census",
            "-q",
            "-n",
            "6",
            "--shards",
            "6",
            "-j",
            "3",
            "--generator",
            &gen,
            "--out",
            s(out),
        ]
        .map(String::from)
        .to_vec()
    };
    let whole = dir.join("whole");
    let want = stdout(&run_status(
        &args(&whole).iter().map(String::as_str).collect::<Vec<_>>(),
        0,
    ));
    let want_file = std::fs::read(whole.join("census.txt")).unwrap();
    for signal in ["KILL", "TERM"] {
        let out = dir.join(signal);
        std::fs::write(&hold, "").unwrap();
        let child = bin()
            .args(args(&out))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_for_shards(&out, 2);
        std::thread::sleep(Duration::from_millis(100));
        kill(&child, signal);
        // After SIGKILL the generators in flight are orphans that hold
        // the output pipes until `hold` goes.
        std::fs::remove_file(&hold).unwrap();
        let ended = child.wait_with_output().unwrap();
        if signal == "TERM" {
            assert_eq!(ended.status.code(), Some(143), "{}", stderr(&ended));
            assert!(
                stderr(&ended).contains("stopped: 2 of the 6 shards"),
                "{}",
                stderr(&ended)
            );
        }
        // Only whole shards are there, no census yet.
        let names: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("shard-"))
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(!out.join("census.txt").exists());
        let again = run(
            &args(&out).iter().map(String::as_str).collect::<Vec<_>>(),
            None,
        );
        assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
        assert_eq!(
            stdout(&again).replace(s(&out), "D"),
            want.replace(s(&whole), "D")
        );
        assert_eq!(std::fs::read(out.join("census.txt")).unwrap(), want_file);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A census of six shards of the six-vertex graphs in `dir`; its shard
/// files.
fn six_shards(dir: &Path, extra: &[&str]) -> Vec<PathBuf> {
    let gen = dealer(SIX);
    let mut args = vec![
        "-n",
        "6",
        "--shards",
        "6",
        "--generator",
        &gen,
        "--out",
        s(dir),
    ];
    args.extend_from_slice(extra);
    census(&args);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("shard-")
        })
        .collect();
    files.sort();
    files
}

#[test]
fn copnumber_merge_refuses_foreign_damaged_duplicate_and_missing_shards() {
    let dir = temp_dir("census-refuse");
    let a = six_shards(&dir.join("a"), &[]);
    let b = six_shards(&dir.join("b"), &["--max-cops", "3"]);
    let out = dir.join("merged.txt");
    let merge = |files: &[&PathBuf], needle: &str| {
        let mut args = vec!["copnumber", "merge", "--out", s(&out)];
        args.extend(files.iter().map(|p| s(p)));
        let err = run_refused(&args, needle);
        assert!(!out.exists(), "nothing written when refused: {err}");
        err
    };
    // A shard of another census (another --max-cops), named.
    let err = merge(
        &[&a[0], &a[1], &a[2], &b[3], &a[4], &a[5]],
        "another census",
    );
    assert!(
        err.contains(s(&b[3])) && err.contains("max-cops 3"),
        "{err}"
    );
    // Another generator, another number of shards.
    let c = six_shards(&dir.join("c"), &["--shard", "0"]);
    let other = dir.join("other");
    census(&[
        "-n",
        "6",
        "--shards",
        "6",
        "--generator",
        &format!("{} ", dealer(SIX)),
        "--out",
        s(&other),
        "--shard",
        "1",
    ]);
    let o = std::fs::read_dir(&other)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("shard-"))
        .unwrap();
    let err = merge(&[&c[0], &o, &a[2], &a[3], &a[4], &a[5]], "source");
    assert!(err.contains(s(&o)), "{err}");
    // A damaged file: one byte changed, or cut short.
    let damaged = dir.join("damaged");
    std::fs::create_dir_all(&damaged).unwrap();
    let name = a[2].file_name().unwrap();
    let mut bytes = std::fs::read(&a[2]).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 1;
    std::fs::write(damaged.join(name), &bytes).unwrap();
    let bad = damaged.join(name);
    let err = merge(&[&a[0], &a[1], &bad, &a[3], &a[4], &a[5]], "damaged");
    assert!(err.contains(s(&bad)), "{err}");
    let good = std::fs::read(&a[2]).unwrap();
    std::fs::write(&bad, &good[..good.len() - 30]).unwrap();
    merge(&[&a[0], &a[1], &bad, &a[3], &a[4], &a[5]], "damaged");
    // Twice, and missing.
    let err = merge(&[&a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[2]], "twice");
    assert!(err.contains(s(&a[2])), "{err}");
    let err = merge(&[&a[0], &a[1], &a[3], &a[5]], "missing: 2, 4");
    assert!(err.contains("2 of the 6 shards"), "{err}");
    // Not a census file at all.
    let six = PathBuf::from(SIX);
    merge(&[&six], "not a census file");
    // The census refuses a directory of another census's shards.
    let gen = dealer(SIX);
    run_refused(
        &[
            "copnumber",
            "census",
            "-n",
            "6",
            "--shards",
            "6",
            "--generator",
            &gen,
            "--out",
            s(&dir.join("b")),
        ],
        "holds shards of another census",
    );
    // And a damaged shard in its own directory.
    std::fs::copy(&bad, dir.join("a").join(name)).unwrap();
    run_refused(
        &[
            "copnumber",
            "census",
            "-n",
            "6",
            "--shards",
            "6",
            "--generator",
            &gen,
            "--out",
            s(&dir.join("a")),
        ],
        "remove it to compute its shard again",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn copnumber_census_names_the_shard_and_line_of_a_malformed_graph() {
    let dir = temp_dir("census-bad");
    // Shard 0 is good, shard 1 has a bad third line.
    let gen =
        "if [ {res}/{mod} = 1/2 ]; then printf 'Bw\\nBg\\nB!\\nBw\\n'; else printf 'Bw\\n'; fi";
    let out = dir.join("out");
    let err = run_refused(
        &[
            "copnumber",
            "census",
            "-q",
            "-n",
            "3",
            "--shards",
            "2",
            "-j",
            "1",
            "--generator",
            gen,
            "--out",
            s(&out),
        ],
        ":3:2:",
    );
    assert!(err.contains("shard 1 (`if [ 1/2 = 1/2 ]"), "{err}");
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".census.lock")
        .collect();
    assert_eq!(names, ["shard-0000-of-0002.txt"], "only the good shard");
    // A generator that fails: exit status 1, nothing written for it.
    let failed = run(
        &[
            "copnumber",
            "census",
            "-q",
            "-n",
            "3",
            "--shards",
            "1",
            "--generator",
            "printf 'Bw\\n'; exit 3",
            "--out",
            s(&dir.join("f")),
        ],
        None,
    );
    assert_eq!(failed.status.code(), Some(1));
    assert!(
        stderr(&failed).contains("the generator failed"),
        "{}",
        stderr(&failed)
    );
    // Many shards need {res} and {mod}.
    run_refused(
        &[
            "copnumber",
            "census",
            "-n",
            "3",
            "--shards",
            "2",
            "--generator",
            "printf 'Bw\\n'",
            "--out",
            s(&dir.join("g")),
        ],
        "need `{res}` and `{mod}`",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--vertices` is checked before any generator runs (0 ran it and failed
/// with exit status 1), and a generated graph of another order stops the
/// run, named by shard and line, nothing written for its shard (it was
/// counted in a census labelled with the wrong order).
#[test]
fn copnumber_census_holds_only_graphs_of_its_order() {
    let dir = temp_dir("census-order");
    let ran = dir.join("ran");
    let gen = format!("touch {}; echo Dhc", s(&ran));
    for n in ["0", "65537", "-1", "x"] {
        let out = dir.join(format!("out{n}"));
        let vertices = format!("--vertices={n}");
        let err = run_refused(
            &[
                "copnumber",
                "census",
                "-q",
                &vertices,
                "--shards",
                "1",
                "--generator",
                &gen,
                "--out",
                s(&out),
            ],
            "--vertices",
        );
        assert!(!ran.exists(), "{n}: the generator ran: {err}");
        assert!(!out.exists(), "{n}: --out was made");
    }
    // Dhc has 5 vertices: a census of 100 refuses it.
    let out = dir.join("wrong");
    let err = run_refused(
        &[
            "copnumber",
            "census",
            "-q",
            "--vertices",
            "100",
            "--shards",
            "2",
            "-j",
            "1",
            "--generator",
            "if [ {res}/{mod} = 1/2 ]; then echo Dhc; fi",
            "--out",
            s(&out),
        ],
        "a graph of 5 vertices in a census of 100",
    );
    assert!(
        err.contains("shard 1 (`if [ 1/2 = 1/2 ]; then echo Dhc; fi`):1:1:"),
        "{err}"
    );
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".census.lock")
        .collect();
    assert_eq!(names, ["shard-0000-of-0002.txt"], "only the empty shard");
    // The same graph in a census of 5, and the largest order accepted.
    let text = census(&[
        "-n",
        "5",
        "--shards",
        "1",
        "--generator",
        "echo Dhc",
        "--out",
        s(&dir.join("right")),
    ]);
    assert!(
        text.contains("5 vertices") && text.contains("graphs: 1"),
        "{text}"
    );
    let text = census(&[
        "-n",
        "65536",
        "--shards",
        "1",
        "--generator",
        "true",
        "--out",
        s(&dir.join("largest")),
    ]);
    assert!(text.contains("graphs: 0"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]
    /// Random graphs of one order up to 9 dealt into any number of shards
    /// make the same census as one shard, and as `copnumber` summed.
    #[test]
    fn copnumber_census_of_random_graphs_does_not_depend_on_the_shards(
        n in 1usize..10,
        graphs in proptest::collection::vec(any::<u64>(), 1..60),
        shards in 1u32..9,
    ) {
        let dir = temp_dir("census-random");
        let lines: Vec<String> = graphs
            .iter()
            .map(|&seed| {
                let mut next = crate::support::xorshift(seed | 1);
                let mut edges = Vec::new();
                for v in 1..n as u32 {
                    for u in 0..v {
                        if next().is_multiple_of(2) {
                            edges.push((u, v));
                        }
                    }
                }
                retrograde::to_graph6(n, &edges)
            })
            .collect();
        let file = dir.join("g.g6");
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
        let gen = dealer(s(&file));
        let count = shards.to_string();
        let order = n.to_string();
        let j = json(&census(&["-n", &order, "--shards", &count, "--generator", &gen, "--out", s(&dir.join("o")), "--json"]));
        prop_assert_eq!(findings(&j), summed(s(&file), shards as usize));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn copnumber_census_data_files_read_back_with_the_known_counts() {
    use retrograde::copnumber::Census;
    let cop_win = [1, 1, 2, 5, 16, 68, 403, 3791, 65561, 2_258_314, 151_084_672];
    let six = summed(SIX, 1);
    for n in 1..=11u32 {
        let path = format!("data/census/connected-{n}.txt");
        let text = std::fs::read_to_string(&path).unwrap();
        let census = Census::parse(&path, &text).unwrap();
        assert_eq!(census.key.vertices, Some(n), "{path}");
        assert_eq!((census.key.shards, census.key.max_cops), (64, 4), "{path}");
        assert_eq!(census.shards.len(), 64, "{path}");
        let t = &census.tally;
        assert_eq!(
            t.classes[&Some(1)].graphs,
            cop_win[n as usize - 1],
            "{path}"
        );
        if n == 6 {
            assert_eq!(t.graphs, 112);
            for (c, class) in &t.classes {
                let c = c.unwrap().to_string();
                assert_eq!(six["cop_number"][&c], class.graphs, "{c}");
                for (rounds, &g) in class.capture_times.iter().enumerate() {
                    let want = six["capture_time"][&c][rounds.to_string()]
                        .as_u64()
                        .unwrap_or(0);
                    assert_eq!(want, g, "cop number {c}, {rounds} rounds");
                }
            }
        }
        if n == 10 {
            let counts: Vec<(Option<u32>, u64)> =
                t.classes.iter().map(|(&c, k)| (c, k.graphs)).collect();
            assert_eq!(
                counts,
                [(Some(1), 2_258_314), (Some(2), 9_458_256), (Some(3), 1)]
            );
            assert_eq!(t.largest[0].graph6, "ICOf@pSb?");
        }
        if n == 11 {
            let counts: Vec<(Option<u32>, u64)> =
                t.classes.iter().map(|(&c, k)| (c, k.graphs)).collect();
            assert_eq!(
                counts,
                [(Some(1), 151_084_672), (Some(2), 855_615_887), (Some(3), 6)]
            );
            // Connected graphs on 11 vertices (OEIS A001349).
            assert_eq!(t.graphs, 1_006_700_565);
        }
    }
    // The README's SHA-256s are the files'.
    let readme = std::fs::read_to_string("data/census/README.md").unwrap();
    let sums: String = readme
        .lines()
        .filter(|l| l.len() > 66 && l.contains("  connected-"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(sums.lines().count(), 11);
    let mut check = std::process::Command::new("sha256sum")
        .args(["--check", "--quiet"])
        .current_dir("data/census")
        .stdin(Stdio::piped())
        .spawn()
        .expect("sha256sum");
    use std::io::Write as _;
    check
        .stdin
        .take()
        .unwrap()
        .write_all(sums.as_bytes())
        .unwrap();
    assert!(check.wait().unwrap().success(), "sha256sum --check");
}
