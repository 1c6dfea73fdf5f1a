//! `copnumber --cop-speed S --thief-speed S` (cops and a fast robber, fast
//! cops): on random small graphs (edge lists and graph6 streams) and maps,
//! the cop number and placement agree with `solve --cops K` at the same
//! speeds (the placement wins against every thief cell with the cops to
//! move, no placement of one cop fewer does); known cases; speeds in the
//! output and the results file; bad speeds refused.

use std::collections::BTreeMap;
use std::path::Path;

use retrograde::to_graph6;
use serde_json::Value as Json;

use crate::copnumber_map::all_win_placements;
use crate::support::{random_grid, run_refused, run_status, stdout, temp_dir, Rng, Shape};

/// The speeds (cop, thief) checked against `solve`.
const SPEEDS: [(u32, u32); 3] = [(1, 2), (2, 1), (2, 2)];

/// Most cops tried.
const MAX: usize = 3;

/// A random connected graph on `n` vertices: a random tree and a few
/// more edges.
fn random_graph(rng: &mut Rng, n: usize) -> Vec<(u32, u32)> {
    let mut edges: Vec<(u32, u32)> = (1..n).map(|v| (rng.below(v) as u32, v as u32)).collect();
    for _ in 0..rng.below(n) {
        let (u, v) = (rng.below(n) as u32, rng.below(n) as u32);
        if u != v && !edges.contains(&(u.min(v), u.max(v))) {
            edges.push((u.min(v), u.max(v)));
        }
    }
    edges
}

fn edge_list(edges: &[(u32, u32)]) -> String {
    edges.iter().map(|(u, v)| format!("{u} {v}\n")).collect()
}

/// `copnumber INPUT --json` at `speeds`: the one object.
fn copnumber_json(input: &str, (cop, thief): (u32, u32), more: &[&str]) -> Json {
    let (cs, ts, ms) = (cop.to_string(), thief.to_string(), MAX.to_string());
    let mut args = vec![
        "copnumber",
        input,
        "--json",
        "--max-cops",
        &ms,
        "--cop-speed",
        &cs,
        "--thief-speed",
        &ts,
    ];
    args.extend_from_slice(more);
    let o = run_status(&args, 0);
    serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap()
}

/// Checks `copnumber`'s answer `j` on `input` against `solve --cops K` at
/// the same speeds: K's placement wins everywhere, K - 1 cops win nowhere
/// (or, for "more than the maximum", `MAX` cops win nowhere). Returns K.
fn agrees_with_solve(
    dir: &Path,
    input: &str,
    j: &Json,
    (cop, thief): (u32, u32),
    graph: bool,
    cells: usize,
) -> Option<usize> {
    let what = format!("{input} at speeds ({cop}, {thief})");
    assert_eq!(
        j["cop_speed"].as_u64().unwrap_or(1),
        u64::from(cop),
        "{what}"
    );
    assert_eq!(
        j["thief_speed"].as_u64().unwrap_or(1),
        u64::from(thief),
        "{what}"
    );
    let (cs, ts) = (cop.to_string(), thief.to_string());
    let mut flags = vec!["--cop-speed", &cs, "--thief-speed", &ts];
    if graph {
        flags.push("--graph");
    }
    let none_wins = |k: usize| {
        let won = all_win_placements(dir, input, k, &flags, cells);
        assert!(!won.is_empty());
        assert!(won.values().all(|w| !w), "{what}: {k} cops win somewhere");
    };
    let Some(k) = j["cop_number"].as_u64().map(|k| k as usize) else {
        none_wins(MAX);
        return None;
    };
    let mut placement: Vec<String> = j["placement"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| match c.as_array() {
            Some(rc) => format!("{},{}", rc[0], rc[1]),
            None => c.to_string(),
        })
        .collect();
    assert_eq!(placement.len(), k, "{what}");
    placement.sort_unstable();
    let with_k = all_win_placements(dir, input, k, &flags, cells);
    assert_eq!(with_k.get(&placement), Some(&true), "{what}: {placement:?}");
    if k > 1 {
        none_wins(k - 1);
    }
    Some(k)
}

/// Random connected graphs of 4 to 8 vertices, as edge lists: at each
/// speed pair the answer agrees with `solve --graph --cops K`; the same
/// graphs as a graph6 stream get the same answers, and `--counts` counts
/// them.
#[test]
fn copnumber_with_speeds_on_random_graphs_agrees_with_solve() {
    let dir = temp_dir("copnumber-speed-graphs");
    let mut rng = Rng::new(0x5eed_c095);
    let graphs: Vec<Vec<(u32, u32)>> = (0..6)
        .map(|_| {
            let n = rng.range(4, 8);
            random_graph(&mut rng, n)
        })
        .collect();
    // Connected: n is one above the largest vertex.
    let stream: String = graphs
        .iter()
        .map(|e| {
            let n = e.iter().map(|&(u, v)| u.max(v)).max().unwrap() as usize + 1;
            format!("{}\n", to_graph6(n, e))
        })
        .collect();
    let stream_path = dir.join("s.g6");
    std::fs::write(&stream_path, &stream).unwrap();
    let stream_path = stream_path.to_str().unwrap();
    let mut numbers = BTreeMap::new();
    for (cop, thief) in SPEEDS {
        let mut answers = Vec::new();
        for (i, edges) in graphs.iter().enumerate() {
            let path = dir.join(format!("g{i}.txt"));
            std::fs::write(&path, edge_list(edges)).unwrap();
            let path = path.to_str().unwrap();
            let n = edges.iter().map(|&(u, v)| u.max(v)).max().unwrap() as usize + 1;
            let j = copnumber_json(path, (cop, thief), &[]);
            let k = agrees_with_solve(&dir, path, &j, (cop, thief), true, n);
            *numbers.entry(k).or_insert(0) += 1;
            answers.push((j["cop_number"].clone(), j["placement"].clone()));
        }
        // The stream: one object per graph, then the summary.
        let (cs, ts, ms) = (cop.to_string(), thief.to_string(), MAX.to_string());
        let speed_flags = ["--cop-speed", &cs, "--thief-speed", &ts, "--max-cops", &ms];
        let mut args = vec!["copnumber", stream_path, "--json"];
        args.extend_from_slice(&speed_flags);
        let o = run_status(&args, 0);
        let lines: Vec<Json> = stdout(&o)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), graphs.len() + 1);
        for (j, (c, p)) in lines.iter().zip(&answers) {
            assert_eq!((&j["cop_number"], &j["placement"]), (c, p), "{j}");
            assert_eq!(j["cop_speed"].as_u64().unwrap_or(1), u64::from(cop));
            assert_eq!(j["thief_speed"].as_u64().unwrap_or(1), u64::from(thief));
        }
        // --counts: the same numbers, speeds named.
        let mut args = vec!["copnumber", stream_path, "--json", "--counts"];
        args.extend_from_slice(&speed_flags);
        let counts: Json = serde_json::from_str(stdout(&run_status(&args, 0)).trim()).unwrap();
        let mut want: BTreeMap<String, u64> = BTreeMap::new();
        for (c, _) in &answers {
            *want
                .entry(c.as_u64().map_or("more".to_string(), |c| c.to_string()))
                .or_default() += 1;
        }
        let got: BTreeMap<String, u64> =
            serde_json::from_value(counts["cop_number"].clone()).unwrap();
        assert_eq!(got, want, "({cop}, {thief})");
        assert_eq!(counts["cop_speed"].as_u64().unwrap_or(1), u64::from(cop));
        assert_eq!(
            counts["thief_speed"].as_u64().unwrap_or(1),
            u64::from(thief)
        );
        // The text names the speeds on every line and in the summary.
        let mut args = vec!["copnumber", stream_path];
        args.extend_from_slice(&speed_flags);
        let text = stdout(&run_status(&args, 0));
        let note = format!("cop speed {cop}, thief speed {thief}");
        for line in text.lines().take(graphs.len()) {
            assert!(line.ends_with(&format!("\t{note}")), "{line}");
        }
        assert!(text.contains(&format!("\nspeeds: {note}\n")), "{text}");
    }
    assert!(numbers.len() >= 2, "every graph gave {numbers:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Random small maps: at each speed pair the answer agrees with `solve
/// --cops K` on the map.
#[test]
fn copnumber_with_speeds_on_random_maps_agrees_with_solve() {
    let dir = temp_dir("copnumber-speed-maps");
    let mut rng = Rng::new(0x0fa5_7c0b);
    let mut maps = 0;
    let mut numbers = BTreeMap::new();
    while maps < 4 {
        let shape = [Shape::Open, Shape::Walls, Shape::Maze][rng.below(3)];
        let text = random_grid(&mut rng, shape, 4).to_seed_text();
        let cells = text
            .lines()
            .skip(1)
            .flat_map(str::chars)
            .filter(|&c| c == '.')
            .count();
        if cells < 3 {
            continue;
        }
        let path = dir.join(format!("m{maps}.txt"));
        std::fs::write(&path, &text).unwrap();
        let path = path.to_str().unwrap();
        let (cop, thief) = SPEEDS[maps % 3];
        for speeds in [(cop, thief), SPEEDS[(maps + 1) % 3]] {
            let j = copnumber_json(path, speeds, &[]);
            let k = agrees_with_solve(&dir, path, &j, speeds, false, cells);
            *numbers.entry(k).or_insert(0) += 1;
        }
        maps += 1;
    }
    assert!(numbers.len() >= 2, "every map gave {numbers:?}");
    // The text line names the speeds after the rules.
    let fixed = dir.join("fixed.txt");
    std::fs::write(&fixed, "2 3\n...\n.#.\n").unwrap();
    let fixed = fixed.to_str().unwrap();
    let o = run_status(
        &["copnumber", fixed, "--exit", "0,0", "--thief-speed", "3"],
        0,
    );
    assert!(
        stdout(&o).contains("\trules --exit 0,0\tcop speed 1, thief speed 3\n"),
        "{}",
        stdout(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A path of 8 vertices: one cop catches a thief of speed 1 (and of speed
/// 2, who cannot pass it). A cycle of 9: two cops are needed at speed 1;
/// against a thief of speed 2, `solve` says one cop wins from nowhere and
/// two cops win from some placement, and `copnumber` agrees.
#[test]
fn copnumber_with_speeds_known_cases() {
    let dir = temp_dir("copnumber-speed-known");
    let path8 = dir.join("p8.txt");
    let p8: Vec<(u32, u32)> = (0..7).map(|i| (i, i + 1)).collect();
    std::fs::write(&path8, edge_list(&p8)).unwrap();
    let path8 = path8.to_str().unwrap();
    for speeds in [(1, 1), (1, 2)] {
        let j = copnumber_json(path8, speeds, &[]);
        assert_eq!(j["cop_number"], 1, "{speeds:?}");
        agrees_with_solve(&dir, path8, &j, speeds, true, 8);
    }
    let path9 = dir.join("c9.txt");
    let c9: Vec<(u32, u32)> = (0..9).map(|i| (i, (i + 1) % 9)).collect();
    std::fs::write(&path9, edge_list(&c9)).unwrap();
    let path9 = path9.to_str().unwrap();
    let fast = ["--graph", "--thief-speed", "2"];
    assert!(all_win_placements(&dir, path9, 1, &fast, 9)
        .values()
        .all(|w| !w));
    assert!(all_win_placements(&dir, path9, 2, &fast, 9)
        .values()
        .any(|&w| w));
    let j = copnumber_json(path9, (1, 2), &[]);
    assert_eq!(j["cop_number"], 2);
    assert_eq!(j["thief_speed"], 2);
    assert!(j.get("cop_speed").is_none(), "speed 1 is left out: {j}");
    agrees_with_solve(&dir, path9, &j, (1, 2), true, 9);
    // Speed 1 given outright reads as no speed flag at all.
    let plain = run_status(&["copnumber", path9, "--json"], 0);
    let ones = run_status(
        &[
            "copnumber",
            path9,
            "--json",
            "--cop-speed",
            "1",
            "--thief-speed",
            "1",
        ],
        0,
    );
    assert_eq!(stdout(&plain), stdout(&ones));
    assert!(!stdout(&plain).contains("speed"), "{}", stdout(&plain));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Speed 0 and speeds above 64 are refused with status 2 naming the flag,
/// for graphs and maps; a results file made at other speeds does not
/// resume.
#[test]
fn copnumber_refuses_bad_speeds_and_a_resume_at_other_speeds() {
    let dir = temp_dir("copnumber-speed-refused");
    let graph = dir.join("g.txt");
    std::fs::write(&graph, "0 1\n1 2\n").unwrap();
    let map = dir.join("m.txt");
    std::fs::write(&map, "2 3\n...\n.#.\n").unwrap();
    for input in [&graph, &map] {
        let input = input.to_str().unwrap();
        for (flag, value) in [
            ("--cop-speed", "0"),
            ("--thief-speed", "0"),
            ("--cop-speed", "65"),
            ("--thief-speed", "65"),
        ] {
            let err = run_refused(&["copnumber", input, flag, value], flag);
            assert!(err.contains(value), "{err}");
        }
    }
    let stream = dir.join("s.g6");
    std::fs::write(&stream, "Bw\nCF\nDQw\n").unwrap();
    let stream = stream.to_str().unwrap();
    let out = dir.join("r.jsonl");
    let out = out.to_str().unwrap();
    run_status(
        &[
            "copnumber",
            stream,
            "--out",
            out,
            "--thief-speed",
            "2",
            "-q",
        ],
        0,
    );
    let records = std::fs::read_to_string(out).unwrap();
    assert!(
        records.lines().all(|l| l.contains("\"thief_speed\":2")),
        "{records}"
    );
    // The same speeds resume (nothing left to solve); others are refused.
    run_status(
        &[
            "copnumber",
            stream,
            "--out",
            out,
            "--resume",
            "--thief-speed",
            "2",
            "-q",
        ],
        0,
    );
    for other in [&[][..], &["--cop-speed", "2", "--thief-speed", "2"]] {
        let mut args = vec!["copnumber", stream, "--out", out, "--resume", "-q"];
        args.extend_from_slice(other);
        let err = run_refused(&args, "--thief-speed 2");
        assert!(err.contains("run with the same flags"), "{err}");
    }
    // And a speed-1 file does not resume at speed 2.
    run_status(&["copnumber", stream, "--out", out, "-q"], 0);
    assert!(!std::fs::read_to_string(out).unwrap().contains("speed"));
    run_refused(
        &[
            "copnumber",
            stream,
            "--out",
            out,
            "--resume",
            "--cop-speed",
            "2",
        ],
        "--cop-speed 1",
    );
    let _ = std::fs::remove_dir_all(&dir);
}
