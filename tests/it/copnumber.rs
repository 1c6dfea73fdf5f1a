//! `copnumber` against independent checks: dismantlability for one cop and
//! a naive two-cop fixpoint written here, on every connected graph up to
//! 8 vertices (`nauty-geng` when installed, else every labelled graph up
//! to 6 vertices and random ones of 7 and 8), the known cop numbers of
//! named graphs built here, graph6 and edge-list input and bad input.

use std::collections::HashSet;
use std::process::Command;

use retrograde::copnumber::{cop_number, cop_number_of_graph, is_dismantlable};
use retrograde::to_graph6;
use serde_json::Value as Json;

use crate::support::temp_dir;
use crate::support::{run, stderr, stdout};

type Edges = Vec<(u32, u32)>;

fn closed(n: usize, edges: &Edges) -> Vec<u64> {
    let mut c: Vec<u64> = (0..n).map(|v| 1 << v).collect();
    for &(u, v) in edges {
        c[u as usize] |= 1 << v;
        c[v as usize] |= 1 << u;
    }
    c
}

/// Least over placements of the longest capture (plies) for k cops, by a
/// plain fixpoint over explicit (placement, thief) pairs; `None` if no
/// placement wins everywhere.
fn naive_capture(n: usize, edges: &Edges, k: usize) -> Option<u32> {
    let nb = closed(n, edges);
    let nb = &nb;
    let near = move |v: usize| (0..n).filter(move |&u| nb[v] >> u & 1 == 1);
    let places: Vec<Vec<usize>> = if k == 1 {
        (0..n).map(|a| vec![a]).collect()
    } else {
        (0..n)
            .flat_map(|b| (0..=b).map(move |a| vec![a, b]))
            .collect()
    };
    let index = |p: &[usize]| -> usize {
        if k == 1 {
            p[0]
        } else {
            let (a, b) = (p[0].min(p[1]), p[0].max(p[1]));
            b * (b + 1) / 2 + a
        }
    };
    let moves: Vec<Vec<usize>> = places
        .iter()
        .map(|p| {
            let mut m: Vec<usize> = if k == 1 {
                near(p[0]).map(|x| index(&[x])).collect()
            } else {
                near(p[0])
                    .flat_map(|x| near(p[1]).map(move |y| (x, y)))
                    .map(|(x, y)| index(&[x, y]))
                    .collect()
            };
            m.sort_unstable();
            m.dedup();
            m
        })
        .collect();
    // cw[p][t], tl[p][t]: level at which the cops have won (cops to move,
    // thief to move).
    let mut cw = vec![vec![u32::MAX; n]; places.len()];
    let mut tl = cw.clone();
    for (i, p) in places.iter().enumerate() {
        for &c in p {
            cw[i][c] = 0;
            tl[i][c] = 0;
        }
    }
    for d in 0.. {
        let mut new = Vec::new();
        for i in 0..places.len() {
            for t in 0..n {
                if cw[i][t] == u32::MAX && moves[i].iter().any(|&j| tl[j][t] <= d) {
                    new.push((true, i, t));
                }
                if tl[i][t] == u32::MAX && near(t).all(|x| cw[i][x] <= d) {
                    new.push((false, i, t));
                }
            }
        }
        if new.is_empty() {
            break;
        }
        for (cop, i, t) in new {
            if cop {
                cw[i][t] = d + 1;
            } else {
                tl[i][t] = d + 1;
            }
        }
    }
    cw.iter()
        .filter(|row| row.iter().all(|&d| d != u32::MAX))
        .map(|row| *row.iter().max().unwrap())
        .min()
}

fn connected(n: usize, edges: &Edges) -> bool {
    let nb = closed(n, edges);
    let mut seen = 1u64;
    loop {
        let next = (0..n)
            .filter(|&v| seen >> v & 1 == 1)
            .fold(seen, |s, v| s | nb[v]);
        if next == seen {
            return seen.count_ones() as usize == n;
        }
        seen = next;
    }
}

/// Every connected graph on `n` vertices from nauty, if installed.
fn geng(n: usize) -> Option<Vec<String>> {
    let out = Command::new("nauty-geng")
        .args(["-cq", &n.to_string()])
        .output()
        .ok()?;
    out.status.success().then(|| {
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    })
}

/// Connected graphs up to 8 vertices: nauty's when installed, else every
/// labelled graph up to 6 vertices and random ones on 7 and 8.
fn small_graphs() -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(g) = (1..=8).map(geng).collect::<Option<Vec<_>>>() {
        for x in g {
            lines.extend(x);
        }
        assert_eq!(lines.len(), 1 + 1 + 2 + 6 + 21 + 112 + 853 + 11117);
        return lines;
    }
    let mut seen = HashSet::new();
    for n in 1..=6usize {
        let pairs: Vec<(u32, u32)> = (0..n as u32)
            .flat_map(|v| (0..v).map(move |u| (u, v)))
            .collect();
        for mask in 0u64..1 << pairs.len() {
            let edges: Edges = (0..pairs.len())
                .filter(|&i| mask >> i & 1 == 1)
                .map(|i| pairs[i])
                .collect();
            if connected(n, &edges) {
                let g = to_graph6(n, &edges);
                if seen.insert(g.clone()) {
                    lines.push(g);
                }
            }
        }
    }
    let mut next = crate::support::xorshift(0x2545_f491_4f6c_dd1d);
    for i in 0..3000 {
        let n = 7 + i % 2;
        let mut edges = Vec::new();
        for v in 0..n as u32 {
            for u in 0..v {
                if next() % 100 < 30 + (i as u64 % 40) {
                    edges.push((u, v));
                }
            }
        }
        if connected(n, &edges) {
            lines.push(to_graph6(n, &edges));
        }
    }
    lines
}

#[test]
fn copnumber_agrees_with_dismantlability_and_a_naive_two_cop_fixpoint() {
    let graphs = small_graphs();
    let dir = temp_dir("copnumber-small");
    let path = dir.join("small.g6");
    std::fs::write(&path, graphs.join("\n") + "\n").unwrap();
    let out = run(
        &[
            "copnumber",
            path.to_str().unwrap(),
            "--json",
            "--max-cops",
            "2",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let rows: Vec<Json> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), graphs.len() + 1);
    let mut ones = 0;
    for (g, row) in graphs.iter().zip(&rows) {
        let (n, edges) = retrograde::parse_graph6(g.as_bytes()).unwrap();
        let one = naive_capture(n, &edges, 1);
        assert_eq!(one.is_some(), is_dismantlable(&closed(n, &edges)), "{g}");
        let want = match one {
            Some(t) => (Some(1), t),
            None => match naive_capture(n, &edges, 2) {
                Some(t) => (Some(2), t),
                None => (None, 0),
            },
        };
        ones += usize::from(one.is_some());
        let got = (
            row["cop_number"].as_u64().map(|c| c as u32),
            row["capture_time_plies"].as_u64().unwrap() as u32,
        );
        assert_eq!(got, want, "{g}: {row}");
        assert_eq!(
            row["capture_time"].as_u64().unwrap() as u32,
            want.1.div_ceil(2),
            "{g}"
        );
        // Every graph on at most 9 vertices needs at most 2 cops.
        assert!(want.0.is_some(), "{g}");
        // The placement wins: as many cells as cops.
        assert_eq!(
            row["placement"].as_array().unwrap().len() as u32,
            want.0.unwrap(),
            "{g}"
        );
    }
    assert!(ones > 0 && ones < graphs.len());
    let summary = rows.last().unwrap();
    assert_eq!(summary["graphs"].as_u64(), Some(graphs.len() as u64));
    assert_eq!(summary["cop_number"]["1"].as_u64(), Some(ones as u64));
    // --json --counts: the one object of the issue.
    let out = run(
        &["copnumber", path.to_str().unwrap(), "--json", "--counts"],
        None,
    );
    let counts: Json = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(counts["graphs"].as_u64(), Some(graphs.len() as u64));
    assert_eq!(counts["cop_number"]["1"].as_u64(), Some(ones as u64));
    assert_eq!(
        counts["cop_number"]["2"].as_u64(),
        Some((graphs.len() - ones) as u64)
    );
    // Only those two keys and the schema (issue 33), and one line.
    assert_eq!(stdout(&out).lines().count(), 1);
    let keys: Vec<&String> = counts.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["cop_number", "graphs", "schema"]);
    assert_eq!(counts["schema"].as_u64(), Some(1));
}

fn cycle(n: u32) -> Edges {
    (0..n).map(|i| (i, (i + 1) % n)).collect()
}

fn lcf(n: u32, jumps: &[i32]) -> Edges {
    let mut e = cycle(n);
    for i in 0..n {
        let j = jumps[i as usize % jumps.len()];
        let v = (i as i32 + j).rem_euclid(n as i32) as u32;
        if i < v {
            e.push((i, v));
        }
    }
    e
}

fn petersen() -> Edges {
    let mut e = Vec::new();
    for i in 0..5 {
        e.push((i, (i + 1) % 5));
        e.push((5 + i, 5 + (i + 2) % 5));
        e.push((i, i + 5));
    }
    e
}

fn hypercube(d: u32) -> Edges {
    (0..1u32 << d)
        .flat_map(|v| (0..d).map(move |b| (v, v ^ 1 << b)))
        .filter(|(u, v)| u < v)
        .collect()
}

fn grid(r: u32, c: u32) -> Edges {
    let mut e = Vec::new();
    for i in 0..r {
        for j in 0..c {
            let v = i * c + j;
            if j + 1 < c {
                e.push((v, v + 1));
            }
            if i + 1 < r {
                e.push((v, v + c));
            }
        }
    }
    e
}

/// The Robertson graph, the (4,5)-cage: a 19-cycle and one chord from each
/// vertex.
fn robertson() -> Edges {
    let jumps = [8, 4, 7, 4, 8, 5, 7, 4, 7, 8, 4, 5, 7, 8, 4, 8, 4, 8, 4];
    let mut e = cycle(19);
    e.extend((0..19).map(|i| (i, (i + jumps[i as usize]) % 19)));
    e
}

fn degrees(n: usize, e: &Edges) -> Vec<usize> {
    let mut d = vec![0; n];
    for &(u, v) in e {
        d[u as usize] += 1;
        d[v as usize] += 1;
    }
    d
}

#[test]
fn named_graphs_have_their_known_cop_numbers() {
    let dodecahedron = lcf(20, &[10, 7, 4, -4, -7, 10, -4, 7, -7, 4]);
    let heawood = lcf(14, &[5, -5]);
    let named: Vec<(&str, usize, Edges, u32, usize)> = vec![
        ("Petersen", 10, petersen(), 3, 3),
        ("dodecahedron", 20, dodecahedron, 3, 3),
        ("Heawood", 14, heawood, 3, 3),
        ("Q4", 16, hypercube(4), 3, 4),
        ("Robertson", 19, robertson(), 4, 4),
        ("4x4 grid", 16, grid(4, 4), 2, 0),
    ];
    for (name, n, edges, c, regular) in named {
        if regular > 0 {
            assert!(degrees(n, &edges).iter().all(|&d| d == regular), "{name}");
        }
        let r = cop_number_of_graph(n, &edges, 4, true);
        assert_eq!(r.cop_number, Some(c), "{name}");
        assert_eq!(r.placement.len(), c as usize, "{name}");
        assert!(r.capture_time_plies > 0, "{name}");
    }
    for n in 4..=12 {
        assert_eq!(
            cop_number_of_graph(n, &cycle(n as u32), 4, true).cop_number,
            Some(2),
            "C{n}"
        );
    }
    // Random trees (each vertex hangs from an earlier one): one cop.
    let mut x = 7u64;
    for n in 1..40usize {
        let edges: Edges = (1..n as u32)
            .map(|v| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                ((x >> 33) as u32 % v, v)
            })
            .collect();
        let r = cop_number_of_graph(n, &edges, 4, true);
        assert_eq!(r.cop_number, Some(1), "tree {edges:?}");
    }
    // The general engine (graphs over 64 vertices and any arena) agrees
    // with the small path: a cycle of 70 and a Petersen with a speed-2
    // thief (more cops needed).
    assert_eq!(
        cop_number_of_graph(70, &cycle(70), 3, true).cop_number,
        Some(2)
    );
    let p = retrograde::Arena::from_edges(10, &petersen()).unwrap();
    assert_eq!(cop_number(&p, 4).cop_number, Some(3));
    let fast = p.with_speeds(1, 2);
    assert!(cop_number(&fast, 4).cop_number.is_none_or(|c| c >= 3));
}

#[test]
fn copnumber_reads_edge_lists_and_reports_bad_input_with_line_and_column() {
    let out = run(
        &["copnumber", "-"],
        Some(b"# C5\n0 1\n1 2\n2 3\n3 4\n4 0\n"),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("cop number 2"), "{}", stdout(&out));
    // One round, singular (a dominating placement captures at once).
    let out = run(&["copnumber", "data/graphs/petersen.txt"], None);
    assert!(
        stdout(&out).contains("\tcapture time 1 round (1 ply)\n"),
        "{}",
        stdout(&out)
    );
    let out = run(&["copnumber", "-", "--json"], Some(b"Bg\nBw\n"));
    let lines: Vec<Json> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["cop_number"].as_u64(), Some(1));
    assert_eq!(lines[0]["placement"], serde_json::json!([1]));
    assert_eq!(lines[0]["capture_time"].as_u64(), Some(1));
    assert_eq!(lines[2]["graphs"].as_u64(), Some(2));
    let out = run(&["copnumber", "-"], Some(b"Bg\nB!\n"));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("-:2:2:"), "{}", stderr(&out));
    let out = run(&["copnumber", "-"], Some(b"0 1\n1 x\n"));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("-:2:3:"), "{}", stderr(&out));
    let out = run(&["copnumber", "no/such/file.g6"], None);
    assert_eq!(out.status.code(), Some(2));
}

/// The summary lines of a text run (after the per-graph lines, if any).
fn summary_lines(text: &str) -> Vec<&str> {
    let start = text
        .lines()
        .position(|l| l.starts_with("graphs: "))
        .unwrap_or_else(|| panic!("no summary in {text}"));
    text.lines().skip(start).collect()
}

/// A stream of connected small graphs, written to `dir/NAME`.
fn stream_file(dir: &std::path::Path, name: &str, graphs: &[String]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, graphs.join("\n") + "\n").unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn copnumber_out_resumes_a_cut_stream_to_the_summary_and_file_of_one_run() {
    let graphs = small_graphs();
    let dir = temp_dir("copnumber-resume");
    let whole = stream_file(&dir, "whole.g6", &graphs);
    let cut = stream_file(&dir, "cut.g6", &graphs[..graphs.len() / 3]);
    let one_file = dir.join("one.jsonl");
    let resumed_file = dir.join("resumed.jsonl");
    let (one_path, resumed_path) = (one_file.to_str().unwrap(), resumed_file.to_str().unwrap());

    // One run to stdout, and one into a results file: the same summary.
    let plain = run(&["copnumber", &whole], None);
    assert!(plain.status.success(), "{}", stderr(&plain));
    let one = run(&["copnumber", &whole, "--out", one_path], None);
    assert!(one.status.success(), "{}", stderr(&one));
    assert_eq!(summary_lines(&stdout(&one)), summary_lines(&stdout(&plain)));
    assert!(stdout(&one).starts_with("graphs: "), "only the summary");
    let records: Vec<Json> = std::fs::read_to_string(&one_file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), graphs.len());
    for (i, (r, g)) in records.iter().zip(&graphs).enumerate() {
        assert_eq!(r["graph"].as_u64(), Some(i as u64 + 1));
        assert_eq!(r["graph6"].as_str(), Some(g.as_str()));
        assert!(
            r["cop_number"].is_u64() && r["capture_time"].is_u64(),
            "{r}"
        );
        assert!(r["placement"].is_array(), "{r}");
    }

    // A run over a cut stream (the producer died), with a record torn by a
    // kill mid-write, then --resume over the whole stream.
    let first = run(&["copnumber", &cut, "--out", resumed_path], None);
    assert!(first.status.success(), "{}", stderr(&first));
    let mut torn = std::fs::read(&resumed_file).unwrap();
    torn.extend_from_slice(b"{\"schema\":1,\"graph\":");
    std::fs::write(&resumed_file, torn).unwrap();
    let again = run(
        &["copnumber", &whole, "--out", resumed_path, "--resume"],
        None,
    );
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(stdout(&again), stdout(&one));
    assert!(
        stderr(&again).contains(&format!("{} of the {}", graphs.len() / 3, graphs.len())),
        "{}",
        stderr(&again)
    );
    assert!(
        std::fs::read(&resumed_file).unwrap() == std::fs::read(&one_file).unwrap(),
        "the resumed file differs from one run's"
    );
    // A finished file resumes to the same summary (nothing left to solve),
    // in JSON too.
    let json_one = run(&["copnumber", &whole, "--json"], None);
    let json_again = run(
        &[
            "copnumber",
            &whole,
            "--json",
            "--out",
            resumed_path,
            "--resume",
        ],
        None,
    );
    assert_eq!(
        stdout(&json_again).trim(),
        stdout(&json_one).lines().last().unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn copnumber_resume_refuses_another_stream_other_flags_and_foreign_files() {
    let graphs = small_graphs();
    let dir = temp_dir("copnumber-refuse");
    let stream = stream_file(&dir, "a.g6", &graphs[..500]);
    let other = stream_file(&dir, "b.g6", &graphs[100..600]);
    let shorter = stream_file(&dir, "c.g6", &graphs[..200]);
    let file = dir.join("r.jsonl");
    let out = file.to_str().unwrap();
    let made = run(&["copnumber", &stream, "--out", out], None);
    assert!(made.status.success(), "{}", stderr(&made));
    let before = std::fs::read(&file).unwrap();
    let refused = |args: &[&str], needle: &str| {
        let mut all = vec!["copnumber"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--out", out, "--resume"]);
        let r = run(&all, None);
        assert_eq!(r.status.code(), Some(2), "{all:?}: {}", stderr(&r));
        assert!(stderr(&r).contains(needle), "{all:?}: {}", stderr(&r));
        assert!(stdout(&r).is_empty(), "{all:?}");
        assert!(
            std::fs::read(&file).unwrap() == before,
            "{all:?} changed the file"
        );
    };
    refused(&[&other], "another stream");
    refused(&[&shorter], "more graphs than the stream");
    refused(&[&stream, "--max-cops", "2"], "--max-cops 4");
    refused(&[&stream, "--counts"], "--counts");
    // Not a results file of this command.
    std::fs::write(&file, "{\"map\":\"x\",\"status\":\"ok\"}\n").unwrap();
    let before = std::fs::read(&file).unwrap();
    let r = run(&["copnumber", &stream, "--out", out, "--resume"], None);
    assert_eq!(r.status.code(), Some(2));
    assert!(
        stderr(&r).contains("not a copnumber results file"),
        "{}",
        stderr(&r)
    );
    assert!(std::fs::read(&file).unwrap() == before);
    // The results file cannot be the stream itself.
    let input = std::fs::read(&stream).unwrap();
    let r = run(&["copnumber", &stream, "--out", &stream], None);
    assert_eq!(r.status.code(), Some(2));
    assert!(stderr(&r).contains("the graph stream"), "{}", stderr(&r));
    assert!(std::fs::read(&stream).unwrap() == input);
    // --resume needs --out; --out needs a stream, not an edge list.
    let r = run(&["copnumber", &stream, "--resume"], None);
    assert_eq!(r.status.code(), Some(2));
    let r = run(
        &["copnumber", "data/graphs/petersen.txt", "--out", out],
        None,
    );
    assert_eq!(r.status.code(), Some(2));
    assert!(stderr(&r).contains("edge list"), "{}", stderr(&r));
    // Nor a map.
    let r = run(&["copnumber", "data/maps/sample.txt", "--out", out], None);
    assert_eq!(r.status.code(), Some(2));
    assert!(stderr(&r).contains("is a map"), "{}", stderr(&r));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn copnumber_sigint_stops_after_a_batch_and_resume_completes_the_stream() {
    use std::io::Write as _;
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    // More graphs than one batch (32,768), so that the first batch is
    // written while the run waits for the rest of its stream.
    let small = small_graphs();
    let mut graphs = Vec::new();
    while graphs.len() < 40_000 {
        graphs.extend(small.iter().cloned());
    }
    let dir = temp_dir("copnumber-sigint");
    let whole = stream_file(&dir, "whole.g6", &graphs);
    let file = dir.join("r.jsonl");
    let out = file.to_str().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrograde"))
        .args(["copnumber", "-", "--out", out])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all((graphs.join("\n") + "\n").as_bytes())
        .unwrap();
    let started = Instant::now();
    while !file.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no batch written"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    // The stream ends (its producer got the signal too).
    drop(stdin);
    let stopped = child.wait_with_output().unwrap();
    assert_eq!(stopped.status.code(), Some(130), "{}", stderr(&stopped));
    assert!(
        stderr(&stopped).contains(&format!("--out {out} --resume")),
        "{}",
        stderr(&stopped)
    );
    assert!(stdout(&stopped).is_empty(), "no summary of a stopped run");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.ends_with('\n'));
    let kept = text.lines().count();
    assert!(kept > 0 && kept < graphs.len(), "{kept} records");
    let resumed = run(&["copnumber", &whole, "--out", out, "--resume", "-q"], None);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    let one = run(&["copnumber", &whole, "--counts"], None);
    let resumed_text = stdout(&resumed);
    let resumed_summary = summary_lines(&resumed_text);
    // --counts leaves out the longest capture time.
    let without_longest: Vec<&str> = resumed_summary
        .iter()
        .copied()
        .filter(|l| !l.starts_with("longest capture time"))
        .collect();
    assert_eq!(without_longest, summary_lines(&stdout(&one)));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap().lines().count(),
        graphs.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The lazy cop number `c_L` (on the cops' turn at most one cop moves),
/// as defined by Offner and Ojakian, "Variations of cops and robber on the
/// hypercube", Australasian J. Combinatorics 59 (2014), and studied by
/// Bal, Bonato, Kinnersley and Prałat, "Lazy cops and robbers on
/// hypercubes", Combinatorics, Probability and Computing 24 (2015).
/// From the definition, `c(G) <= c_L(G) <= γ(G)` (a lazy move is a plain
/// move; cops on a dominating set capture with one cop at once), and one
/// lazy cop is one cop: trees have `c_L = 1`; cycles of at least 4
/// vertices `c_L = 2` (`c = 2`; one cop stands, the other walks round).
/// The Petersen graph: `c = 3` (Aigner and Fromme, "A game of cops and
/// robbers", Discrete Applied Math. 8 (1984): girth 5, minimum degree 3)
/// and `γ = 3`, so `c_L = 3`; the cube Q3: `c = 2` (Maamoun and Meyniel,
/// 1987: `c(Q_n) = ceil((n + 1) / 2)`) and `γ = 2` (two antipodal
/// vertices), so `c_L = 2`. Each is checked on the bit engine (through
/// `copnumber`'s general path) and on the brute-force oracle.
#[test]
fn lazy_cop_number_of_named_graphs_matches_the_literature() {
    use crate::oracle::{KBoard, KOracle};
    let mut named: Vec<(String, usize, Edges, u32)> = vec![
        ("Petersen".into(), 10, petersen(), 3),
        ("Q3".into(), 8, hypercube(3), 2),
        ("path P7".into(), 7, (0..6).map(|v| (v, v + 1)).collect(), 1),
        ("star K1,6".into(), 7, (1..7).map(|v| (0, v)).collect(), 1),
    ];
    for n in 4..=8u32 {
        named.push((format!("C{n}"), n as usize, cycle(n), 2));
    }
    for (name, n, edges, c_lazy) in named {
        let arena = retrograde::Arena::from_edges(n as u32, &edges).unwrap();
        let plain = cop_number(&arena, 4).cop_number.unwrap();
        let lazy = cop_number(&arena.clone().with_lazy(true), 4);
        assert_eq!(lazy.cop_number, Some(c_lazy), "{name}: lazy cop number");
        assert!(plain <= c_lazy, "{name}: c = {plain} > c_L");
        assert_eq!(lazy.placement.len(), c_lazy as usize, "{name}");
        let pairs: Vec<(usize, usize)> = edges
            .iter()
            .map(|&(u, v)| (u as usize, v as usize))
            .collect();
        let mut board = KBoard::from_edges(n, &pairs);
        board.lazy = true;
        assert_eq!(
            KOracle::cop_number(&board, 3),
            Some(c_lazy as usize),
            "{name}: the oracle's lazy cop number"
        );
    }
    // A larger tree and a long cycle on the general engine alone.
    let tree: Edges = (1..30u32).map(|v| ((v - 1) / 2, v)).collect();
    let arena = retrograde::Arena::from_edges(30, &tree)
        .unwrap()
        .with_lazy(true);
    assert_eq!(cop_number(&arena, 3).cop_number, Some(1), "binary tree");
    let arena = retrograde::Arena::from_edges(40, &cycle(40))
        .unwrap()
        .with_lazy(true);
    assert_eq!(cop_number(&arena, 3).cop_number, Some(2), "C40");
}

/// `copnumber --lazy` on a graph and a map: the general engine's lazy cop
/// number; refused with --out and --certificate (exit 2).
#[test]
fn copnumber_lazy_on_graphs_and_maps() {
    let dir = temp_dir("copnumber-lazy");
    let petersen_file = dir.join("petersen.txt");
    let text: String = petersen()
        .iter()
        .map(|(u, v)| format!("{u} {v}\n"))
        .collect();
    std::fs::write(&petersen_file, text).unwrap();
    let p = petersen_file.to_str().unwrap();
    let out = run(&["copnumber", p, "--lazy", "--json"], None);
    assert!(out.status.success(), "{}", stderr(&out));
    let j: Json = serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
    assert_eq!(j["cop_number"].as_u64(), Some(3), "{j}");
    // Q3 through graph6 on standard input, lazy and plain.
    let g6 = to_graph6(8, &hypercube(3));
    let out = run(
        &["copnumber", "-", "--lazy", "--json"],
        Some(format!("{g6}\n").as_bytes()),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let j: Json = serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
    assert_eq!(j["cop_number"].as_u64(), Some(2), "{j}");
    // A map: a 1x5 corridor is one cop's, lazy or not.
    let map = dir.join("corridor.txt");
    std::fs::write(&map, "1 5\n.....\n").unwrap();
    let out = run(&["copnumber", map.to_str().unwrap(), "--lazy"], None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("lazy cops"), "{}", stdout(&out));
    for extra in [["--out", "x.jsonl"], ["--certificate", "x.cert"]] {
        let out = run(&["copnumber", p, "--lazy", extra[0], extra[1]], None);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stderr(&out));
    }
}
