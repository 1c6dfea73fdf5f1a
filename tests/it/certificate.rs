//! `copnumber --certificate` and `scripts/check-certificate.py`: the
//! independent checker accepts the certificates of every connected graph
//! on up to 8 vertices (`data/graphs/connected-*.g6`, nauty-geng's), of the
//! named graphs and of the 11-vertex graphs made of Petersen and one more
//! vertex (those of cop number 3 among them); it rejects certificates with
//! one move, rank, safe state, graph or claim damaged; the records agree
//! with `copnumber --json`; bad flags and inputs leave no file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use retrograde::to_graph6;
use serde_json::Value as Json;

use crate::support::{run, run_refused, stderr, stdout, temp_dir};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the checker on `cert` (CI has python3).
fn check(cert: &Path) -> Output {
    Command::new("python3")
        .arg(root().join("scripts/check-certificate.py"))
        .arg(cert)
        .output()
        .expect("python3 runs scripts/check-certificate.py")
}

/// Runs the checker and expects it to accept `cert`; its output.
fn accepted(cert: &Path) -> String {
    let out = check(cert);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}: {}{}",
        cert.display(),
        stdout(&out),
        stderr(&out)
    );
    stdout(&out)
}

/// Writes `text` to `dir/NAME` and expects the checker to reject it
/// (exit 1) with `why` in its message.
fn rejected(dir: &Path, name: &str, text: &str, why: &str) {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let out = check(&path);
    assert_eq!(out.status.code(), Some(1), "{name} accepted:\n{text}");
    let err = stderr(&out);
    assert!(err.contains(why), "{name}: {err}");
    assert!(err.contains("REJECTED"), "{name}: {err}");
}

/// `copnumber INPUT --certificate dir/NAME --json`: the certificate's
/// path and the JSON objects of the graphs.
fn certify(dir: &Path, input: &Path, name: &str) -> (PathBuf, Vec<Json>) {
    let cert = dir.join(name);
    let out = run(
        &[
            "copnumber",
            input.to_str().unwrap(),
            "--json",
            "--quiet",
            "--certificate",
            cert.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let objects: Vec<Json> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|o: &Json| o.get("cop_number").is_some_and(|c| !c.is_object()))
        .collect();
    (cert, objects)
}

/// Per record of a certificate: (graph number, claim line, upper line).
fn records(cert: &Path) -> Vec<(u64, String, String)> {
    let text = std::fs::read_to_string(cert).unwrap();
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some(rest) = line.strip_prefix("graph ") {
            let number = rest.split(' ').next().unwrap().parse().unwrap();
            let claim = lines.next().unwrap().to_string();
            let upper = lines.next().unwrap().to_string();
            out.push((number, claim, upper));
        }
    }
    out
}

/// The records say what `copnumber --json` says: the cop number, the
/// placement and the capture time, graph by graph.
fn agree(cert: &Path, objects: &[Json]) {
    let records = records(cert);
    assert_eq!(records.len(), objects.len());
    for ((number, claim, upper), o) in records.iter().zip(objects) {
        assert_eq!(o["graph"], *number);
        let placement: Vec<String> = o["placement"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.to_string())
            .collect();
        let want = format!("claim {} capture {}", o["cop_number"], o["capture_time"]);
        assert_eq!(*claim, want, "graph {number}");
        assert_eq!(*upper, format!("upper {}", placement.join(",")));
    }
}

#[test]
fn every_connected_graph_up_to_8_vertices_is_certified() {
    let dir = temp_dir("cert-all8");
    let mut all = Vec::new();
    for name in [
        "connected-1-to-5",
        "connected-6",
        "connected-7",
        "connected-8",
    ] {
        all.extend(std::fs::read(root().join(format!("data/graphs/{name}.g6"))).unwrap());
    }
    let input = dir.join("all8.g6");
    std::fs::write(&input, &all).unwrap();
    let (cert, objects) = certify(&dir, &input, "all8.cert");
    assert_eq!(objects.len(), 31 + 112 + 853 + 11117);
    agree(&cert, &objects);
    let proved = accepted(&cert);
    assert!(proved.ends_with("all8.cert: 12113 records verified\n"));
    assert!(proved.starts_with(
        "graph 1 @: c(G) = 1 proved (upper: capture within 0 rounds; lower: trivial, no cop catches anyone)\n"
    ));
    let by_number = proved.lines().fold(HashMap::new(), |mut m, l| {
        if let Some(i) = l.find("c(G) = ") {
            *m.entry(l[i + 7..i + 8].to_string()).or_insert(0) += 1;
        }
        m
    });
    let counted: HashMap<String, i32> = objects.iter().fold(HashMap::new(), |mut m, o| {
        *m.entry(o["cop_number"].to_string()).or_insert(0) += 1;
        m
    });
    assert_eq!(by_number, counted);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_named_graphs_are_certified_with_their_known_cop_numbers() {
    let dir = temp_dir("cert-named");
    let csv = std::fs::read_to_string(root().join("data/graphs/cop-numbers.csv")).unwrap();
    for row in csv.lines().skip(1) {
        let fields: Vec<&str> = row.split(',').collect();
        let (name, vertices, c) = (fields[0], fields[1], fields[3]);
        let input = root().join(format!("data/graphs/{name}.txt"));
        let (cert, objects) = certify(&dir, &input, &format!("{name}.cert"));
        agree(&cert, &objects);
        let proved = accepted(&cert);
        let first = proved.lines().next().unwrap();
        assert!(
            first.starts_with(&format!("graph 1 ({vertices} vertices): c(G) = {c} proved")),
            "{name}: {first}"
        );
        let k: u32 = c.parse().unwrap();
        let lower = if k == 1 {
            "lower: trivial".to_string()
        } else {
            format!("lower: {} cop", k - 1)
        };
        assert!(first.contains(&lower), "{name}: {first}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Petersen (vertices 0 to 9) and vertex 10 joined to the set `s`.
fn petersen_plus(s: u32) -> String {
    let mut edges: Vec<(u32, u32)> = (0..5)
        .flat_map(|i| [(i, (i + 1) % 5), (i, i + 5), (i + 5, (i + 2) % 5 + 5)])
        .collect();
    edges.extend((0..10).filter(|i| s >> i & 1 == 1).map(|i| (i, 10)));
    to_graph6(11, &edges)
}

#[test]
fn eleven_vertex_graphs_of_cop_number_three_are_certified() {
    // Every graph with a corner and cop number 3 on 11 vertices is
    // Petersen plus a corner (the corner removed keeps the cop number,
    // and Petersen is the only 10-vertex graph needing 3), so all of them
    // are among these 1023.
    let dir = temp_dir("cert-eleven");
    let input = dir.join("petersen-plus.g6");
    let text: String = (1..1024).map(|s| petersen_plus(s) + "\n").collect();
    std::fs::write(&input, text).unwrap();
    let (cert, objects) = certify(&dir, &input, "eleven.cert");
    agree(&cert, &objects);
    let proved = accepted(&cert);
    let threes = proved.matches("c(G) = 3 proved").count();
    let want = objects.iter().filter(|o| o["cop_number"] == 3).count();
    assert!(threes > 0);
    assert_eq!(threes, want);
    assert_eq!(proved.matches("lower: 2 cops do not suffice").count(), want);
    // Every graph of cop number 3 on 11 vertices, with or without a
    // corner: the six of the 11-vertex census (`data/census/
    // connected-11.txt`, its `largest-graph` lines), each proved.
    let census = std::fs::read_to_string(root().join("data/census/connected-11.txt")).unwrap();
    let listed: Vec<&str> = census
        .lines()
        .filter_map(|l| l.strip_prefix("largest-graph "))
        .filter_map(|l| l.split(' ').next())
        .collect();
    let file = std::fs::read_to_string(root().join("data/graphs/cop-number-3-on-11.g6")).unwrap();
    assert_eq!(file.lines().collect::<Vec<_>>(), listed);
    let (cert, objects) = certify(
        &dir,
        &root().join("data/graphs/cop-number-3-on-11.g6"),
        "six.cert",
    );
    agree(&cert, &objects);
    let proved = accepted(&cert);
    assert_eq!(proved.matches("c(G) = 3 proved").count(), 6, "{proved}");
    assert_eq!(proved.matches("lower: 2 cops do not suffice").count(), 6);
    std::fs::remove_dir_all(&dir).ok();
}

/// The certificate of `file` (a named graph) as text.
fn named(dir: &Path, file: &str) -> String {
    let (cert, _) = certify(dir, &root().join("data/graphs").join(file), "named.cert");
    std::fs::read_to_string(cert).unwrap()
}

/// `text` with line `i` (0-based) replaced by `f` of its fields.
fn edit(text: &str, i: usize, f: impl Fn(&mut Vec<String>)) -> String {
    text.lines()
        .enumerate()
        .map(|(j, l)| {
            let mut fields: Vec<String> = l.split(' ').map(String::from).collect();
            if i == j {
                f(&mut fields);
            }
            fields.join(" ") + "\n"
        })
        .collect()
}

fn indices(text: &str, tag: &str) -> Vec<usize> {
    let tag = format!("{tag} ");
    (text.lines().enumerate())
        .filter(|(_, l)| l.starts_with(&tag))
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn one_damaged_move_rank_or_safe_state_is_rejected() {
    let dir = temp_dir("cert-damaged");
    // The 5-cycle 0-1-2-3-4: cops 0,2 win in one round; one cop does not.
    let c5 = named(&dir, "cycle-5.txt");
    accepted(&dir.join("named.cert"));
    let counts = ["m", "c", "t"].map(|tag| indices(&c5, tag).len());
    assert_eq!(counts, [3, 10, 20], "{c5}");
    for i in indices(&c5, "m") {
        // A cop jumps two steps along the cycle.
        let jump = edit(&c5, i, |f| {
            let cop: u32 = f[1].split(',').next().unwrap().parse().unwrap();
            let rest: Vec<&str> = f[3].split(',').skip(1).collect();
            f[3] = [((cop + 2) % 5).to_string()]
                .into_iter()
                .chain(rest.iter().map(|s| s.to_string()))
                .collect::<Vec<_>>()
                .join(",");
        });
        rejected(&dir, "jump.cert", &jump, "cannot move to");
        // Both cops stay: the thief stays too, in a state of the same rank.
        let stay = edit(&c5, i, |f| f[3] = f[1].clone());
        rejected(&dir, "stay.cert", &stay, "rank does not decrease");
    }
    for i in indices(&c5, "t") {
        let gone: String = c5
            .lines()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, l)| format!("{l}\n"))
            .collect();
        rejected(&dir, "gone.cert", &gone, "leaves the safe set");
        // The thief answers two steps away.
        let far = edit(&c5, i, |f| {
            let t: u32 = f[2].parse().unwrap();
            f[3] = ((t + 2) % 5).to_string();
        });
        rejected(&dir, "far.cert", &far, "cannot answer");
    }
    for i in indices(&c5, "c") {
        // The thief put on the cop.
        let caught = edit(&c5, i, |f| f[2] = f[1].clone());
        rejected(&dir, "caught.cert", &caught, "is a capture");
    }
    // Ranks: the grid's strategy takes 3 rounds; each rank one lower
    // meets a thief reply of that rank, one above the capture time breaks
    // the claim or a predecessor's rank.
    let grid = named(&dir, "grid-4x4.txt");
    assert!(grid.contains("claim 2 capture 3\n"));
    assert!(indices(&grid, "m").len() > 10);
    for i in indices(&grid, "m") {
        let rank: u32 = grid
            .lines()
            .nth(i)
            .unwrap()
            .rsplit(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        if rank > 1 {
            let lower = edit(&grid, i, |f| f[4] = (rank - 1).to_string());
            rejected(&dir, "lower.cert", &lower, "rank does not decrease");
        }
        let higher = edit(&grid, i, |f| f[4] = "4".to_string());
        rejected(&dir, "higher.cert", &higher, "");
    }
    // The graph: an edge of the cycle dropped.
    let cut = c5.replace(" 0-4", "");
    rejected(&dir, "cut.cert", &cut, "cannot");
    // The claims and the frame.
    rejected(
        &dir,
        "claim.cert",
        &c5.replace("capture 1", "capture 2"),
        "the claim says 2",
    );
    rejected(
        &dir,
        "three.cert",
        &c5.replace("claim 2", "claim 3"),
        "expected 3 cops",
    );
    rejected(
        &dir,
        "head.cert",
        &c5.replace("certificate 1", "certificate 2"),
        "header",
    );
    rejected(&dir, "end.cert", &c5.replace("end\n", ""), "expected 'end'");
    rejected(
        &dir,
        "tail.cert",
        &c5.replace("records 1\n", ""),
        "records 1",
    );
    rejected(&dir, "more.cert", &(c5.clone() + "x\n"), "records 1");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn certificates_are_for_graphs_and_left_only_by_a_complete_run() {
    let dir = temp_dir("cert-refused");
    let cert = dir.join("c.cert");
    let c = cert.to_str().unwrap();
    run_refused(
        &["copnumber", "data/maps/sample.txt", "--certificate", c],
        "certificates are for graphs",
    );
    run_refused(
        &[
            "copnumber",
            "data/graphs/cycle-5.txt",
            "--cop-speed",
            "2",
            "--certificate",
            c,
        ],
        "plain game",
    );
    run_refused(
        &[
            "copnumber",
            "data/graphs/connected-6.g6",
            "--counts",
            "--certificate",
            c,
        ],
        "'--counts' cannot be used with '--certificate <CERT>'",
    );
    run_refused(
        &["copnumber", "data/graphs/cycle-5.txt", "--certificate", "-"],
        "needs a file of its own",
    );
    // Petersen's 3 cops fit 16K, their distances for the certificate do
    // not: exit 1 after the answer, no file.
    let out = run(
        &[
            "copnumber",
            "data/graphs/petersen.txt",
            "--memory",
            "16K",
            "--certificate",
            c,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains(
        "--certificate: data/graphs/petersen.txt: graph 1: the certificate's solves would need"
    ));
    // A malformed line after good ones: exit 2, no file, no temporary one.
    let input = dir.join("bad.g6");
    std::fs::write(&input, "Dhc\nD~{\nD!!\n").unwrap();
    run_refused(
        &["copnumber", input.to_str().unwrap(), "--certificate", c],
        "bad.g6:3",
    );
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("bad.g6")]);
    // A graph needing more than --max-cops: its lower bound alone.
    let out = run(
        &[
            "copnumber",
            "data/graphs/petersen.txt",
            "--max-cops",
            "2",
            "--certificate",
            c,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let proved = accepted(&cert);
    assert!(proved
        .starts_with("graph 1 (10 vertices): c(G) > 2 proved (lower: 2 cops do not suffice)\n"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_checker_stands_alone() {
    // Independent of the solver and short: the standard library only,
    // nothing of the package, readable in one sitting.
    let text = std::fs::read_to_string(root().join("scripts/check-certificate.py")).unwrap();
    let imports: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("import ") || l.starts_with("from "))
        .collect();
    assert_eq!(
        imports,
        [
            "import os",
            "import signal",
            "import stat",
            "import sys",
            "from itertools import combinations_with_replacement",
            "from math import comb"
        ]
    );
    assert!(!text.contains("retrograde import") && !text.contains("subprocess"));
    assert!(
        text.lines().count() <= 360,
        "the checker grew past one sitting"
    );
}

/// Runs the checker with `args` after the script.
fn check_with(args: &[&str]) -> Output {
    Command::new("python3")
        .arg(root().join("scripts/check-certificate.py"))
        .args(args)
        .output()
        .expect("python3 runs scripts/check-certificate.py")
}

/// The records of a certificate's text: (header, records, trailer).
fn split_records(text: &str) -> (String, Vec<String>, String) {
    let lines: Vec<&str> = text.lines().collect();
    let mut records: Vec<String> = Vec::new();
    for l in &lines[1..lines.len() - 1] {
        if l.starts_with("graph ") {
            records.push(String::new());
        }
        let r = records.last_mut().unwrap();
        r.push_str(l);
        r.push('\n');
    }
    let edge = |l: &str| format!("{l}\n");
    (edge(lines[0]), records, edge(lines[lines.len() - 1]))
}

#[test]
fn the_checker_binds_each_record_to_its_number_and_input() {
    let dir = temp_dir("cert-bound");
    let six = root().join("data/graphs/connected-6.g6");
    let (cert, _) = certify(&dir, &six, "six.cert");
    let text = std::fs::read_to_string(&cert).unwrap();
    let (head, records, tail) = split_records(&text);
    assert_eq!(records.len(), 112);
    // Reversed, or graph 1's record 112 times: numbers out of order.
    let reversed: String = records.iter().rev().cloned().collect();
    rejected(
        &dir,
        "rev.cert",
        &format!("{head}{reversed}{tail}"),
        "graph number 112 where 1 was expected",
    );
    let same = records[0].repeat(112);
    rejected(
        &dir,
        "same.cert",
        &format!("{head}{same}{tail}"),
        "graph number 1 where 2 was expected",
    );
    // Graph 6's record under the number 5: numbered right, and bound to
    // the input only by --input.
    let mut swapped = records.clone();
    swapped[4] = records[5].replacen("graph 6 ", "graph 5 ", 1);
    let forged = dir.join("swapped.cert");
    std::fs::write(&forged, format!("{head}{}{tail}", swapped.concat())).unwrap();
    accepted(&forged);
    let six_arg = six.to_str().unwrap();
    let out = check_with(&[forged.to_str().unwrap(), "--input", six_arg, "-q"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("graph 5: not the graph 5 of"),
        "{}",
        stderr(&out)
    );
    // The certificate against its input, and against a shorter and a
    // longer one.
    let out = check_with(&[cert.to_str().unwrap(), "--input", six_arg, "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).ends_with(&format!(
        "112 records verified, graphs 1 to 112 of {six_arg}\n"
    )));
    let lines: Vec<String> = std::fs::read_to_string(&six)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let shorter = dir.join("shorter.g6");
    std::fs::write(&shorter, lines[..111].join("\n") + "\n").unwrap();
    let longer = dir.join("longer.g6");
    std::fs::write(&longer, lines.join("\n") + "\n" + &lines[0] + "\n").unwrap();
    for (input, why) in [
        (&shorter, "not the graph 112 of"),
        (&longer, "more graphs than the 112 records"),
    ] {
        let out = check_with(&[cert.to_str().unwrap(), "--input", input.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stderr(&out).contains(why), "{}", stderr(&out));
    }
    // An edge list: its one graph, whatever the order of its edges.
    let c5 = root().join("data/graphs/cycle-5.txt");
    let (cert5, _) = certify(&dir, &c5, "c5.cert");
    let shuffled = dir.join("c5.txt");
    std::fs::write(&shuffled, "# C5 again\n3 4\n1 0\n4 0\n2 1\n2 3\n").unwrap();
    for input in [&c5, &shuffled] {
        let out = check_with(&[cert5.to_str().unwrap(), "--input", input.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let out = check_with(&[cert5.to_str().unwrap(), "--input", six_arg]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_checker_rejects_hostile_certificates_promptly_and_cleanly() {
    let dir = temp_dir("cert-hostile");
    // More cops than vertices, claimed: false at once (one cop a vertex
    // catches the thief), never enumerated.
    let many = (0..40).map(|_| "0").collect::<Vec<_>>().join(",");
    let path3 = "retrograde-certificate 1\ngraph 1 edges 3 0-1 1-2\n";
    let t = std::time::Instant::now();
    rejected(
        &dir,
        "many.cert",
        &format!("{path3}claim >40\nlower 40\nc {many} 2\nend\nrecords 1\n"),
        "outside 1..2",
    );
    rejected(
        &dir,
        "five.cert",
        &format!("{path3}claim 5 capture 1\nupper 0,0,0,0,0\nlower 4\nend\nrecords 1\n"),
        "outside 1..3",
    );
    // Fewer safe states than placements: refuted before any joint move.
    let k8: String = (0..8)
        .flat_map(|v| (v + 1..8).map(move |u| format!(" {v}-{u}")))
        .collect();
    let six = (0..6).map(|_| "0").collect::<Vec<_>>().join(",");
    rejected(
        &dir,
        "k8.cert",
        &format!("retrograde-certificate 1\ngraph 1 edges 8{k8}\nclaim >6\nlower 6\nc {six} 1\nend\nrecords 1\n"),
        "of the 1716 placements",
    );
    assert!(t.elapsed() < std::time::Duration::from_secs(20));
    // Numbers past Python's integer conversion limit: the checker's own
    // message, no traceback.
    let big = format!(
        "retrograde-certificate 1\ngraph 1 edges 2 0-1\nclaim 1 capture 1\nupper 0\nm 0 1 1 {}\nlower 0\nend\nrecords 1\n",
        "1".repeat(5000)
    );
    let path = dir.join("big.cert");
    std::fs::write(&path, big).unwrap();
    let out = check(&path);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("a rank of 5000 digits"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("Traceback"), "{}", stderr(&out));
    // Not regular files: refused at once, exit status 2.
    let fifo = dir.join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for special in [fifo.as_path(), Path::new("/dev/zero"), dir.as_path()] {
        // Bounded, so that a checker without the fix fails instead of
        // waiting for a writer forever or reading /dev/zero into all of
        // memory.
        let out = Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 2000000; exec timeout 10 python3 \"$0\" \"$1\"")
            .arg(root().join("scripts/check-certificate.py"))
            .arg(special)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("cannot read: not a regular file"),
            "{}",
            stderr(&out)
        );
        assert!(!stderr(&out).contains("Traceback"), "{}", stderr(&out));
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_checker_streams_the_certificate() {
    // A certificate of 12 MB under a 70 MB address-space limit: holding
    // the file (9 to 10 times its size) does not fit; one record at a
    // time does (in 30 MB).
    let dir = temp_dir("cert-stream");
    let eight = std::fs::read(root().join("data/graphs/connected-8.g6")).unwrap();
    let input = dir.join("many.g6");
    std::fs::write(&input, eight.repeat(3)).unwrap();
    let (cert, objects) = certify(&dir, &input, "many.cert");
    assert_eq!(objects.len(), 3 * 11117);
    let size = std::fs::metadata(&cert).unwrap().len();
    assert!(size > 10_000_000, "{size}");
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 70000; exec python3 \"$0\" \"$1\" --quiet")
        .arg(root().join("scripts/check-certificate.py"))
        .arg(&cert)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).ends_with("33351 records verified\n"),
        "{}",
        stdout(&out)
    );
    std::fs::remove_dir_all(&dir).ok();
}
