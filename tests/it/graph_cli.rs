//! `graph`'s report: where it goes when the dump takes standard output,
//! the engine it names, and the memory advice of a graph that does not fit.

use serde_json::Value as Json;

use crate::support::{run, stderr, stdout, temp_dir};

/// `graph --dump -`: the dump is standard output's only content (rows a
/// CSV reader takes whole) and the report, text or `--json`, goes to
/// standard error.
#[test]
fn graph_dump_to_stdout_keeps_the_report_off_it() {
    let dir = temp_dir("graph-dump-stdout");
    let path = dir.join("path.txt");
    std::fs::write(&path, "0 1\n1 2\n").unwrap();
    let file = path.to_str().unwrap();
    for to in ["-", "/dev/stdout"] {
        for json in [false, true] {
            let mut args = vec!["graph", file, "--dump", to, "-q"];
            if json {
                args.push("--json");
            }
            let out = run(&args, None);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
            assert_eq!(
                stdout(&out),
                "vertex,value,dte\n0,loss,2\n1,win,1\n2,loss,0\n",
                "{args:?}"
            );
            let report = stderr(&out);
            if json {
                let line = report.lines().last().unwrap_or_default();
                let r: Json = serde_json::from_str(line).expect("the JSON report on stderr");
                assert_eq!(r["vertices"], 3, "{report}");
            } else {
                assert!(report.contains("graph: "), "{report}");
                assert!(report.contains("vertices: win 1, loss 2"), "{report}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `graph --engine bitboard`: bitsets need a grid, so the counter engine
/// that stands in for it ran, and the report names that one (it named
/// bitboard): sequential on one thread, parallel on more.
#[test]
fn graph_reports_the_engine_that_ran_for_bitboard() {
    let dir = temp_dir("graph-engine-ran");
    let path = dir.join("path.txt");
    std::fs::write(&path, "0 1\n1 2\n").unwrap();
    let file = path.to_str().unwrap();
    for (threads, ran) in [("1", "sequential"), ("2", "parallel")] {
        let args = [
            "graph",
            file,
            "--engine",
            "bitboard",
            "--threads",
            threads,
            "-q",
            "--json",
        ];
        let out = run(&args, None);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let r: Json = serde_json::from_str(stdout(&out).trim()).expect("one JSON object");
        assert_eq!(r["engine"], ran, "{r}");
        let text = stdout(&run(&args[..args.len() - 1], None));
        assert!(
            text.contains(&format!("engine: {ran} ({threads} thread")),
            "{text}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `graph --memory` too small beside the parsed graph: the refusal names
/// the file and advises a cap that holds the graph as well as the solve's
/// minimum (it advised the minimum alone, below the cap just refused),
/// and that cap is enough.
#[test]
fn graph_memory_advice_counts_the_graph_it_holds() {
    let dir = temp_dir("graph-memory-advice");
    let path = dir.join("sparse.txt");
    std::fs::write(&path, "p 10000000 1\n0 1\n").unwrap();
    let file = path.to_str().unwrap();
    let out = run(&["graph", file, "-q", "--memory", "160M"], None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("error: {file}: ")),
        "names the file: {err}"
    );
    let advised: u64 = err
        .split("give a memory cap of at least ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a cap in bytes: {err}"));
    assert!(advised > 160 << 20, "more than the cap refused: {err}");
    assert!(err.contains("already held included"), "{err}");
    let out = run(
        &["graph", file, "-q", "--memory", &advised.to_string()],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "the advised cap: {}",
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("10000000 vertices"),
        "{}",
        stdout(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
