//! What a new user trips on, round 5 (issue 47's friction points): a
//! solve echoes the start it solved; `--processes` without the
//! `distributed` feature names it, and `scripts/cluster-local.sh` runs
//! from any folder; `batch --plan --scen` plans as `solve --scen --plan`;
//! the census prints its file's `sha256sum`. (Ctrl-C and checkpoints are
//! in `checkpoint.rs`, the time-left estimate in `src/cli/progress.rs`.)

use crate::support::{run_status, stderr, stdout, temp_dir};

const SAMPLE: &str = "data/maps/sample.txt";

/// The `start:` line of a text report (the one line that starts so).
fn start_line(args: &[&str]) -> Option<String> {
    let out = stdout(&run_status(args, 0));
    let mut lines = out.lines().filter(|l| l.starts_with("start:"));
    let line = lines.next().map(str::to_string);
    assert!(lines.next().is_none(), "{args:?}: one start line: {out}");
    line
}

/// The `start` key of a JSON report.
fn start_json(args: &[&str]) -> serde_json::Value {
    let mut args = args.to_vec();
    args.push("--json");
    let out = stdout(&run_status(&args, 0));
    let report: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    report["start"].clone()
}

/// Issue 47, friction 3: a one-cop solve never echoed the start it
/// solved, so swapped or `--xy` coordinates passed unnoticed.
#[test]
fn a_solve_echoes_the_start_it_solved() {
    // The map's own letters: C on 1,1 and T on 5,9.
    let args = ["solve", SAMPLE, "-q", "--no-summary"];
    assert_eq!(
        start_line(&args).as_deref(),
        Some("start: cop 1,1 thief 5,9 (row,col), cop to move")
    );
    assert_eq!(
        start_json(&args),
        serde_json::json!({"cops": [[1, 1]], "thief": [5, 9], "turn": "cop"})
    );
    // Flags, as typed: swapped rows and columns show, and --xy shows the
    // cells as the user gave them (x first) while JSON stays [row, column].
    let flags = ["solve", SAMPLE, "-q", "--cop", "3,4", "--thief", "7,1"];
    assert_eq!(
        start_line(&flags).as_deref(),
        Some("start: cop 3,4 thief 7,1 (row,col), cop to move")
    );
    let xy = [
        "solve", SAMPLE, "-q", "--xy", "--cop", "4,3", "--thief", "1,7",
    ];
    assert_eq!(
        start_line(&xy).as_deref(),
        Some("start: cop 4,3 thief 1,7 (x,y), cop to move")
    );
    assert_eq!(
        start_json(&xy),
        serde_json::json!({"cops": [[3, 4]], "thief": [7, 1], "turn": "cop"})
    );
    let thief_first = ["solve", SAMPLE, "-q", "--thief-first"];
    assert_eq!(
        start_line(&thief_first).as_deref(),
        Some("start: cop 1,1 thief 5,9 (row,col), thief to move")
    );
    assert_eq!(start_json(&thief_first)["turn"], "thief");
}

#[test]
fn several_cops_echo_their_start_too() {
    // Given out of order: shown in ascending order, as the state holds them.
    let map = [
        "solve", SAMPLE, "-q", "--cops", "2", "--cop", "1,2", "--cop", "1,1",
    ];
    assert_eq!(
        start_line(&map).as_deref(),
        Some("start: cops 1,1 1,2 thief 5,9 (row,col), cops to move")
    );
    assert_eq!(
        start_json(&map),
        serde_json::json!({"cops": [[1, 1], [1, 2]], "thief": [5, 9], "turn": "cop"})
    );
    let graph = [
        "solve",
        "--graph",
        "data/graphs/petersen.txt",
        "-q",
        "--cops",
        "2",
        "--cop",
        "7",
        "--cop",
        "0",
        "--thief",
        "5",
        "--thief-first",
    ];
    assert_eq!(
        start_line(&graph).as_deref(),
        Some("start: cops 0 7 thief 5, thief to move")
    );
    assert_eq!(
        start_json(&graph),
        serde_json::json!({"cops": [0, 7], "thief": 5, "turn": "thief"})
    );
    // No start: no line, no key.
    let none = ["solve", SAMPLE, "-q", "--cops", "2"];
    assert_eq!(start_line(&none), None);
    assert!(start_json(&none).is_null());
}

/// Issue 47, friction 5: `--processes` on a default build answered
/// "unexpected argument ... tip: '--cops'".
#[cfg(not(feature = "distributed"))]
#[test]
fn a_default_build_names_the_feature_partitioned_solves_need() {
    use crate::support::run_refused;
    for flags in [
        &["--processes", "2"][..],
        &["--processes"],
        &["--process", "1"],
        &["--hostfile", "hosts"],
        &["--workers", "2"],
    ] {
        let mut args = vec!["solve", SAMPLE];
        args.extend_from_slice(flags);
        let err = run_refused(&args, "cargo feature `distributed`");
        assert!(
            err.contains(&format!("{} is a flag of partitioned", flags[0])),
            "{err}"
        );
        assert!(
            err.contains("cargo install --path . --locked --features distributed"),
            "{err}"
        );
        assert!(!err.contains("tip:"), "no unrelated suggestion: {err}");
    }
    // Hidden: help lists only what this build takes.
    let help = stdout(&run_status(&["solve", "--help"], 0));
    let listed = |flag: &str| help.lines().any(|l| l.trim_start().starts_with(flag));
    assert!(!listed("--processes") && !listed("--hostfile"), "{help}");
}

/// Issue 47, friction 5: `scripts/cluster-local.sh` changed to the
/// repository's root, so a map or `--save` relative to the caller's
/// folder was not found (or written elsewhere).
#[test]
fn cluster_local_runs_from_any_folder() {
    // A stand-in for the binary that checks what a partitioned solve's
    // processes would be handed: the map and a --save path relative to
    // the caller's folder, which the script must not leave.
    let dir = temp_dir("newuser5-cluster");
    std::fs::copy(SAMPLE, dir.join("m.txt")).unwrap();
    let fake = dir.join("fake");
    std::fs::write(
        &fake,
        "#!/bin/sh\ntest -f \"$2\" || { echo \"no map $2 in $PWD\" >&2; exit 3; }\n\
         echo \"$2 $*\" >> calls.txt\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/cluster-local.sh");
    let out = std::process::Command::new("bash")
        .arg(&script)
        .args(["2", "m.txt", "--save", "t.rtb"])
        .env("RETROGRADE", "./fake")
        .current_dir(&dir)
        .output()
        .expect("run bash");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let calls = std::fs::read_to_string(dir.join("calls.txt")).expect("both processes ran here");
    assert_eq!(calls.lines().count(), 2, "{calls}");
    assert!(calls.contains("--process 0"), "{calls}");
    assert!(calls.contains("--process 1"), "{calls}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Issue 47, friction 2: `batch --plan --scen` planned without the
/// distance table the pairs read (the run took 4.5 times the bytes it
/// said), and under `--memory` said "in memory" for a solve that then
/// paged: it plans as `solve --scen --plan` does.
#[test]
fn batch_plan_with_a_scenario_plans_what_solve_plans() {
    const MAP: &str = "data/movingai/random-32-32-10.map";
    const SCEN: &str = "data/movingai/random-32-32-10-random-1.scen";
    let plan = |command: &str, extra: &[&str]| {
        let mut args = vec![command, MAP, "--plan", "--json", "--threads", "1"];
        args.extend_from_slice(extra);
        let out = stdout(&run_status(&args, 0));
        let mut plan: serde_json::Value = serde_json::from_str(out.trim()).expect("one object");
        plan.as_object_mut().unwrap().remove("schema");
        plan
    };
    let scen = ["--exits", "rim", "--scen", SCEN];
    let solve = plan("solve", &scen);
    assert_eq!(plan("batch", &scen), solve);
    // The distance table: 2 bytes a state more than a plan without it.
    let bare = plan("batch", &["--exits", "rim"]);
    let states = solve["states"].as_u64().unwrap();
    assert!(solve["bytes"].as_u64().unwrap() >= bare["bytes"].as_u64().unwrap() + 2 * states);
    // A cap between the two: paged, and the text says so, for both.
    let cap = format!("{}", bare["bytes"].as_u64().unwrap() + states);
    let dir = temp_dir("newuser5-batch-plan");
    let capped = [
        &scen[..],
        &["--memory", &cap, "--scratch", dir.to_str().unwrap()],
    ]
    .concat();
    assert!(plan("solve", &capped)["scratch"].is_string());
    assert_eq!(plan("batch", &capped), plan("solve", &capped));
    let text = stdout(&run_status(
        &[&["batch", MAP, "--plan", "--threads", "1"][..], &capped].concat(),
        0,
    ));
    assert!(
        text.contains("paged out of core through scratch files under"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Issue 47, friction 9: the census printed as `sha256:` the checksum of
/// its file's lines before the last, not what `sha256sum census.txt`
/// prints (and data/census/README.md lists); it prints the file's.
#[test]
fn the_census_prints_the_sha256sum_of_its_file() {
    let dir = temp_dir("newuser5-census-sum");
    let out = dir.join("census6");
    let o = out.to_str().unwrap();
    let generator = "awk 'NR % {mod} == {res}' data/graphs/connected-6.g6";
    let census = |json: bool| {
        let mut args = vec![
            "copnumber",
            "census",
            "--vertices",
            "6",
            "--shards",
            "2",
            "--generator",
            generator,
            "--out",
            o,
            "--quiet",
        ];
        if json {
            args.push("--json");
        }
        stdout(&run_status(&args, 0))
    };
    let text = census(false);
    let summed = std::process::Command::new("sha256sum")
        .arg(out.join("census.txt"))
        .output()
        .expect("sha256sum");
    let sum = String::from_utf8(summed.stdout).unwrap();
    let sum = sum.split_whitespace().next().unwrap().to_string();
    assert!(text.contains(&format!("sha256: {sum}\n")), "{text}\n{sum}");
    let file = std::fs::read_to_string(out.join("census.txt")).unwrap();
    let last = file.trim_end().rsplit('\n').next().unwrap();
    let _ = std::fs::remove_dir_all(&out);
    let json: serde_json::Value = serde_json::from_str(census(true).trim()).unwrap();
    assert_eq!(json["sha256sum"], sum.as_str());
    assert_eq!(format!("sha256 {}", json["sha256"].as_str().unwrap()), last);
    let _ = std::fs::remove_dir_all(dir);
}
