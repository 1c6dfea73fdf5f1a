//! What a new user trips on (issue 33, items 4, 5, 6 and 9): `--xy`
//! refusals name the cell as typed; graphs without a vertex are refused
//! the same way by every command that reads graphs; a file of another
//! kind than the command reads gets what to run instead; `copnumber
//! --help` lists only flags it takes.

use crate::support::{make_table, run, run_refused, stderr, stdout, temp_dir};

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
