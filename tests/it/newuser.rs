//! What a new user trips on (issue 33, items 4, 5, 6 and 9): `--xy`
//! refusals name the cell as typed; graphs without a vertex are refused
//! the same way by every command that reads graphs; a file of another
//! kind than the command reads gets what to run instead; `copnumber
//! --help` lists only flags it takes. And what an audit of the commands
//! found (2026-12-01): `--summary` where there is none, graph6 streams
//! and headers, maps with no free cell, help on a full disk; a start
//! already over says what decided it, the summary's longest pair is a
//! start pair (or none), and path errors say what is wrong with the path.

use crate::support::{
    bin, make_table, output_of, run, run_refused, run_status, stderr, stdout, temp_dir,
};

const SAMPLE: &str = "data/maps/sample.txt";

#[test]
fn xy_refusals_echo_the_cell_as_typed() {
    // Row 0, column 1 of the sample is a wall: x 1, y 0.
    let err = run_refused(
        &["solve", SAMPLE, "--xy", "--thief", "1,0", "--cop", "1,1"],
        "",
    );
    assert!(err.contains("--thief 1,0: is a wall"), "{err}");
    let err = run_refused(&["solve", SAMPLE, "--thief", "0,1", "--cop", "1,1"], "");
    assert!(err.contains("--thief 0,1: is a wall"), "{err}");
    let err = run_refused(
        &["solve", SAMPLE, "--xy", "--thief", "100,5", "--cop", "1,1"],
        "",
    );
    assert!(
        err.contains("--thief 100,5: outside the map: x is 0..=15, y is 0..=8 (--xy)"),
        "{err}"
    );
    let dir = temp_dir("newuser-xy");
    let table = make_table(&dir, "sample", &[SAMPLE], false);
    let t = table.to_str().unwrap();
    let err = run_refused(&["query", t, "--xy", "--cop", "1,1", "--thief", "1,0"], "");
    assert!(err.contains("thief 1,0: is a wall"), "{err}");
    let err = run_refused(
        &["query", t, "--xy", "--cop", "1,1", "--thief", "100,5"],
        "",
    );
    assert!(err.contains("thief 100,5: outside the map: x is"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn graphs_without_a_vertex_are_refused_everywhere_alike() {
    let dir = temp_dir("newuser-empty");
    let inputs = [
        ("empty.txt", &b""[..]),
        ("comments.txt", b"# no edge\n\n# at all\n"),
        ("none.g6", b"?\n"),
    ];
    let expected = "expected a graph of at least one vertex, found none";
    for (name, bytes) in inputs {
        let file = dir.join(name);
        std::fs::write(&file, bytes).unwrap();
        let f = file.to_str().unwrap();
        let table = dir.join("t.rtb");
        let mut commands = vec![
            vec!["copnumber", f],
            vec!["copnumber", f, "--json"],
            vec!["solve", "--graph", f, "--cops", "1", "--save"],
        ];
        commands[2].push(table.to_str().unwrap());
        if !name.ends_with(".g6") {
            // `graph` reads edge lists (of a game), not graph6.
            commands.push(vec!["graph", f]);
        }
        for args in commands {
            let err = run_refused(&args, expected);
            assert!(err.contains(&format!("{f}:1:1:")), "{args:?}: {err}");
            assert!(!table.exists(), "{args:?}: no table of no graph");
        }
    }
    // Standard input, empty: the same.
    let out = run(&["copnumber", "-"], Some(b""));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(expected), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_file_of_another_kind_gets_what_to_run_instead() {
    let dir = temp_dir("newuser-kind");
    let table = make_table(&dir, "sample", &[SAMPLE], false);
    let t = table.to_str().unwrap();
    let graph = "data/graphs/petersen.txt";
    let err = run_refused(&["solve", graph, "--cops", "2"], "looks like a graph");
    assert!(
        err.contains(&format!("retrograde solve --graph {graph}")),
        "{err}"
    );
    let err = run_refused(&["solve", graph], "looks like a graph (an edge list)");
    assert!(err.contains(":1:"), "the parse error stays: {err}");
    run_refused(
        &["solve", "data/graphs/connected-6.g6"],
        "looks like a graph (graph6), not a map",
    );
    let err = run_refused(&["solve", t], "is a table");
    assert!(err.contains(&format!("retrograde info {t}")), "{err}");
    run_refused(&["solve", t, "--cops", "2"], "is a table");
    let err = run_refused(&["copnumber", t], "is a table");
    assert!(err.contains(&format!("retrograde info {t}")), "{err}");
    // A map that is just wrong keeps its plain error.
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "2 3\n...\n..\n").unwrap();
    let err = run_refused(&["solve", bad.to_str().unwrap()], ":3:");
    assert!(!err.contains("looks like"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn copnumber_help_lists_only_the_flags_it_takes() {
    let help = stdout(&run(&["copnumber", "--help"], None));
    for refused in ["--cop <", "--thief <", "--thief-first"] {
        assert!(!help.contains(refused), "{refused}: {help}");
    }
    for taken in [
        "--exit <",
        "--exits <",
        "--memory <",
        "--plan",
        "--thief-speed",
    ] {
        assert!(help.contains(taken), "{taken}: {help}");
    }
}

/// `--summary` with several cops, speeds or `--graph` gives the
/// several-cops summary (it was refused: there was none).
#[test]
fn summary_with_several_cops_or_speeds_is_given() {
    for extra in [
        &["--cops", "2"][..],
        &["--cop-speed", "2"],
        &["--thief-speed", "2"],
    ] {
        let mut args = vec!["solve", SAMPLE, "-q", "--summary", "--json"];
        args.extend_from_slice(extra);
        let out = run(&args, None);
        assert!(out.status.success(), "{extra:?}: {}", stderr(&out));
        assert!(stdout(&out).contains("\"placements\""), "{}", stdout(&out));
    }
    let out = run(&["solve", SAMPLE, "-q", "--summary", "--json"], None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("\"longest\""), "{}", stdout(&out));
}

/// A graph6 stream is refused at its first bad line, the graphs before it
/// answered: an empty graph (`?`) later in the batch no longer hides an
/// earlier damaged line.
#[test]
fn a_graph6_stream_is_refused_at_its_first_bad_line() {
    let out = run(&["copnumber", "-"], Some(b"Dhc\nDh\n?\n"));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("Dhc\tcop number 2\t"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("-:2:3: a graph of 5 vertices"),
        "{}",
        stderr(&out)
    );
    let out = run(&["copnumber", "-"], Some(b"Bw\n?\n"));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("Bw\tcop number 1\t"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("-:2:1: expected a graph of at least one vertex"),
        "{}",
        stderr(&out)
    );
}

/// graph6's `>>graph6<<` header may stand alone on its line before the
/// graph: `solve --graph` reads such a file as graph6, as `copnumber`
/// does; a header with no graph after it is refused by both.
#[test]
fn the_graph6_header_reads_alike_everywhere() {
    let dir = temp_dir("newuser-header");
    let header = dir.join("h.g6");
    std::fs::write(&header, ">>graph6<<\nDhc\n").unwrap();
    let h = header.to_str().unwrap();
    let out = run_status(
        &[
            "solve", "--graph", h, "--cops", "1", "--cop", "0", "--thief", "2", "--json", "-q",
        ],
        0,
    );
    let j: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(j["result"], "draw", "{j}");
    assert_eq!(j["states"], 50, "{j}");
    let out = run_status(&["copnumber", h], 0);
    assert!(
        stdout(&out).starts_with("Dhc\tcop number 2\t"),
        "{}",
        stdout(&out)
    );
    let alone = dir.join("alone.g6");
    std::fs::write(&alone, ">>graph6<<\n").unwrap();
    let a = alone.to_str().unwrap();
    let err = run_refused(&["copnumber", a], "found none");
    assert!(err.contains(&format!("{a}:1:")), "{err}");
    let err = run_refused(&["solve", "--graph", a, "--cops", "1"], "found none");
    assert!(err.contains(&format!("{a}:1:")), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A map with no free cell has no cop number and is refused, as a graph
/// with no vertices is; a graph needing more cops than `--max-cops` reads
/// "more than K", as the guide and maps say.
#[test]
fn copnumber_on_nothing_is_refused_and_more_than_k_is_said() {
    let dir = temp_dir("newuser-walls");
    let walls = dir.join("walls.txt");
    std::fs::write(&walls, "2 3\n***\n***\n").unwrap();
    let w = walls.to_str().unwrap();
    let err = run_refused(&["copnumber", w], "at least one free cell");
    assert!(err.contains(&format!("{w}:1:1:")), "{err}");
    let five = dir.join("c5.g6");
    std::fs::write(&five, "Dhc\n").unwrap();
    let out = run(
        &["copnumber", five.to_str().unwrap(), "--max-cops", "1"],
        None,
    );
    assert!(
        stdout(&out).starts_with("Dhc\tcop number more than 1\n"),
        "{}",
        stdout(&out)
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// `--help` and `--version` onto a full disk fail as any other write
/// does (exit status 1, saying why), not with exit status 0 and silence.
#[test]
fn help_onto_a_full_disk_fails() {
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    for args in [&["--help"][..], &["solve", "--help"], &["--version"]] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = crate::support::bin()
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&out).contains("No space left"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

/// Audit finding 3: a mover with no move at the start loses (docs/rules.md),
/// and the result line says so; it said "the thief starts on an exit" on a
/// map without exits, or "the cop starts on the thief" when it did not.
/// The summary's longest pair was the capture (cop 0,0, thief 0,0), not one
/// of the start pairs counted, and was printed on a map with none.
#[test]
fn a_start_already_over_names_what_decided_it_and_longest_is_a_start_pair() {
    let dir = temp_dir("newuser-stuck");
    let stuck = dir.join("stuck.txt");
    std::fs::write(&stuck, "2 2\nC*\n*T\n").unwrap();
    let s = stuck.to_str().unwrap();
    for engine in ["bitboard", "sequential"] {
        let text = stdout(&run(
            &[
                "solve",
                s,
                "--no-corner-cutting",
                "--no-pass",
                "--engine",
                engine,
            ],
            None,
        ));
        assert!(
            text.starts_with("result: thief-escapes in 0 plies (the cop cannot move)\n"),
            "{engine}: {text}"
        );
        assert!(
            text.contains("\nlongest: 0 plies, cop 0,0 thief 1,1 (row,col)\n"),
            "{engine}: {text}"
        );
        let text = stdout(&run(
            &[
                "solve",
                s,
                "--no-corner-cutting",
                "--no-thief-pass",
                "--thief-first",
                "--engine",
                engine,
            ],
            None,
        ));
        assert!(
            text.starts_with("result: cop-wins in 0 plies (the thief cannot move)\n"),
            "{engine}: {text}"
        );
        assert!(!text.contains("thief 0,0"), "{engine}: {text}");
    }
    // One cell: no start pair, so no longest pair (null in JSON).
    let one = dir.join("one.txt");
    std::fs::write(&one, "1 1\nC\n").unwrap();
    let o = one.to_str().unwrap();
    let text = stdout(&run(&["solve", o], None));
    assert!(text.contains("start pairs: 0 "), "{text}");
    assert!(!text.contains("longest:"), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&run(&["solve", o, "--json", "--summary"], None))).unwrap();
    assert_eq!(json["pairs"], 0);
    assert!(json["longest"].is_null(), "{json}");
    // Every start pair drawn: none has a distance, so none is longest.
    let apart = dir.join("apart.txt");
    std::fs::write(&apart, "1 3\nC*T\n").unwrap();
    let text = stdout(&run(&["solve", apart.to_str().unwrap()], None));
    assert!(text.contains("draw 100.0%"), "{text}");
    assert!(!text.contains("longest:"), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Audit finding 12: a missing directory is named as missing ("not a
/// directory", it said), `--scen -` reads standard input unless the map
/// does (it looked for a file named `-`), a binary scenario is not "map
/// text", and `--checkpoint` makes its directory but not a missing parent
/// tree.
#[test]
fn path_errors_say_what_is_wrong_with_the_path() {
    let dir = temp_dir("newuser-paths");
    let map = dir.join("ce.txt");
    std::fs::write(&map, "2 3\nC.T\n..E\n").unwrap();
    let m = map.to_str().unwrap();
    let missing = dir.join("no-such-dir");
    let gone = missing.to_str().unwrap();
    let expected = format!("the directory {gone} does not exist");
    let err = run_refused(&["solve", m, "--scratch", gone, "-q"], &expected);
    assert!(err.contains(&format!("--scratch {gone}: ")), "{err}");
    let out = dir.join("r.csv");
    let o = out.to_str().unwrap();
    let err = run_refused(&["batch", m, "--out", o, "--save-dir", gone], &expected);
    assert!(err.contains(&format!("--save-dir {gone}: ")), "{err}");
    assert!(!out.exists(), "no results file");
    let err = run_refused(&["man", "--out-dir", gone], &expected);
    assert!(err.contains(&format!("--out-dir {gone}: ")), "{err}");
    // Something else at the name is still not a directory.
    run_refused(&["solve", m, "--scratch", m, "-q"], "not a directory");
    // --scen -: standard input, once.
    let scen = "version 1\n0\tce.txt\t3\t2\t0\t0\t2\t0\t2\n";
    // Refused before standard input is read: the closed pipe is no failure.
    let refused = output_of(
        bin().args(["solve", "-", "--scen", "-", "-q"]),
        Some(b"2 3\nC.T\n..E\n"),
        true,
    );
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("--scen -: standard input already holds the map"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(stdout(&refused), "");
    let read = run(&["solve", m, "--scen", "-", "-q"], Some(scen.as_bytes()));
    assert_eq!(read.status.code(), Some(0), "{}", stderr(&read));
    assert!(
        stdout(&read).contains("\n2\t0,0\t0,2\tcop-wins\t3\n"),
        "{}",
        stdout(&read)
    );
    // A binary scenario is not scenario text, nor map text.
    let binary = dir.join("binary.scen");
    std::fs::write(&binary, b"version 1\n\0\0\0").unwrap();
    let err = run_refused(
        &["solve", m, "--scen", binary.to_str().unwrap(), "-q"],
        "binary.scen:2:1: control character '\\0': this looks like a binary file, expected scenario text",
    );
    assert!(!err.contains("map text"), "{err}");
    // --checkpoint makes its directory, not a missing tree above it.
    let deep = missing.join("deep").join("x");
    let err = run_refused(
        &["solve", m, "--checkpoint", deep.to_str().unwrap(), "-q"],
        &format!(
            "the directory {} does not exist",
            missing.join("deep").display()
        ),
    );
    assert!(err.contains("--checkpoint "), "{err}");
    assert!(!missing.exists(), "{} was made", missing.display());
    let ck = dir.join("ck");
    let made = run(
        &["solve", m, "--checkpoint", ck.to_str().unwrap(), "-q"],
        None,
    );
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    assert!(ck.is_dir());
    let _ = std::fs::remove_dir_all(dir);
}
