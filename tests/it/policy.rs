//! Engine and memory policy (issue 22 points 3 and 4, issue 23 point 13):
//! the library's rule for what an engine keeps, one route for `--memory`,
//! nothing allocated that is not known to fit; each through the binary.

use retrograde::{parse_map, solve, CopsGame, Engine, Error, Placement, Rules};
use retrograde::{SolveOptions, Speeds, StorageLimits};

use crate::support::{run, run_refused, stdout};

const SAMPLE: &str = "data/maps/sample.txt";
/// 887,112 states: its explicit graph needs about 58 MB.
const MAZE: &str = "data/maps/movingai/maze-32-32-2.map";

fn sample_game() -> CopsGame {
    let text = std::fs::read(SAMPLE).unwrap();
    let map = parse_map(&text, SAMPLE).unwrap();
    CopsGame::from_map(
        &map,
        &Placement::default(),
        Rules::default(),
        1,
        Speeds::default(),
    )
    .unwrap()
}

#[test]
fn the_library_refuses_distances_from_the_sweep_engine() {
    let game = sample_game();
    let options = SolveOptions::new(Engine::Sweep).with_dte_table(true);
    for refused in [
        solve(&game, &options).err(),
        retrograde::plan_storage(&game, &options, &StorageLimits::default()).err(),
        options.check_engine().err(),
    ] {
        match refused {
            Some(Error::Unsupported { engine, what, .. }) => {
                assert_eq!(engine, "sweep");
                assert!(what.contains("distance"), "{what}");
            }
            other => panic!("expected Error::Unsupported, got {other:?}"),
        }
    }
    // Values only is what the sweep engine is for.
    assert!(solve(&game, &SolveOptions::new(Engine::Sweep)).is_ok());
}

#[test]
fn every_command_refuses_sweep_distances_by_the_library_rule() {
    let rule = "the sweep engine does not keep a distance table";
    run_refused(&["solve", SAMPLE, "--engine", "sweep", "--dte-table"], rule);
    run_refused(
        &["solve", SAMPLE, "--engine", "sweep", "--dump", "/dev/null"],
        rule,
    );
    let dir = crate::support::temp_dir("policy-sweep");
    let out = dir.join("rows.csv");
    let out = out.to_str().unwrap();
    run_refused(
        &[
            "batch",
            SAMPLE,
            "--out",
            out,
            "--engine",
            "sweep",
            "--dte-table",
        ],
        rule,
    );
    assert!(
        !std::path::Path::new(out).exists(),
        "no rows before the refusal"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn engine_names_come_from_one_list() {
    let help = stdout(&run(&["solve", "--help"], None));
    let bench = stdout(&run(&["bench", "--help"], None));
    for engine in Engine::ALL {
        assert_eq!(engine.as_str().parse::<Engine>(), Ok(engine));
        assert!(help.contains(engine.description()), "{engine}: {help}");
        assert!(bench.contains(engine.as_str()), "{engine}: {bench}");
    }
    run_refused(&["solve", SAMPLE, "--engine", "fast"], "fast");
    run_refused(&["bench", SAMPLE, "--engines", "fast"], "fast");
}

#[test]
fn explicit_engine_refuses_a_memory_cap_it_cannot_keep() {
    // Before, it spilled to files it does not page and ran with 1.1 GB
    // resident under --memory 1M, exit 0.
    let err = run_refused(
        &[
            "solve", MAZE, "--exits", "rim", "--engine", "explicit", "--memory", "1M",
        ],
        "needs",
    );
    assert!(err.contains("only 1.0 MiB are available"), "{err}");
    assert!(err.contains("explicit graph"), "{err}");
}

#[test]
fn bench_plans_every_engine_before_running_it() {
    let out = run(
        &[
            "bench",
            SAMPLE,
            "--engines",
            "sequential,parallel",
            "--memory",
            "1K",
            "--runs",
            "1",
            "--warmup",
            "0",
            "--quiet",
        ],
        None,
    );
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    for engine in ["sequential", "parallel"] {
        assert!(
            text.contains(&format!("refused: {engine} needs")),
            "{engine}: {text}"
        );
    }
}

#[test]
fn bench_runs_the_default_engine_by_default() {
    let out = run(
        &["bench", SAMPLE, "--runs", "1", "--warmup", "0", "--quiet"],
        None,
    );
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(" bitboard "), "{text}");
    let help = stdout(&run(&["bench", "--help"], None));
    assert!(
        help.contains("bitboard,explicit,sequential,parallel"),
        "{help}"
    );
    assert!(help.contains("JSON object"), "{help}");
    assert!(!help.contains("JSON array"), "{help}");
}

const SCEN: &str = "data/movingai/random-32-32-10-random-1.scen";

#[test]
fn solve_plan_says_what_a_solve_costs_without_solving() {
    let text = stdout(&crate::support::run_status(&["solve", SAMPLE, "--plan"], 0));
    assert!(
        text.starts_with("plan: data/maps/sample.txt: 8450 states, engine bitboard,"),
        "{text}"
    );
    assert!(text.contains("in memory: fits"), "{text}");
    assert!(!text.contains("result:"), "nothing solved: {text}");
    let refused = crate::support::run_status(
        &[
            "solve",
            SAMPLE,
            "--plan",
            "--json",
            "--memory",
            "1K",
            "--engine",
            "sequential",
        ],
        2,
    );
    let json: serde_json::Value = serde_json::from_str(stdout(&refused).trim()).unwrap();
    assert_eq!(json["fits"], false);
    assert_eq!(json["states"], 8450);
    assert_eq!(json["engine"], "sequential");
    assert!(
        json["refused"].as_str().unwrap().contains("1.0 KiB"),
        "{json}"
    );
    // Scratch files named where they would go.
    let dir = crate::support::temp_dir("policy-plan");
    let scratch = crate::support::run_status(
        &[
            "solve",
            SAMPLE,
            "--plan",
            "--json",
            "--engine",
            "sequential",
            "--scratch",
            dir.to_str().unwrap(),
        ],
        0,
    );
    let json: serde_json::Value = serde_json::from_str(stdout(&scratch).trim()).unwrap();
    assert_eq!(json["scratch"], dir.to_str().unwrap());
    assert_eq!(json["fits"], true);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn batch_plan_lists_every_map_and_batch_warns_without_max_states() {
    let out = crate::support::run_status(&["batch", "data/maps/seed", "--plan", "--json"], 0);
    let rows: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 13, "{rows:?}");
    assert!(rows
        .iter()
        .all(|r| r["engine"] == "bitboard" && r["states"].is_u64()));
    let dir = crate::support::temp_dir("policy-batch-warn");
    let rows = dir.join("rows.jsonl");
    let warned = crate::support::run_status(&["batch", SAMPLE, "--out", rows.to_str().unwrap()], 0);
    assert!(crate::support::stderr(&warned).contains("warning: no --max-states"));
    let quiet = crate::support::run_status(
        &[
            "batch",
            SAMPLE,
            "--out",
            rows.to_str().unwrap(),
            "--max-states",
            "1e6",
        ],
        0,
    );
    assert!(!crate::support::stderr(&quiet).contains("--max-states"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn solve_checks_a_scenario_against_the_map_before_solving() {
    // The map is 16 x 9, the scenario's entries are for 32 x 32: refused
    // before the solve (no sizing note on stderr), at the entry's line.
    let err = run_refused(
        &["solve", SAMPLE, "--scen", SCEN],
        "the entry is for a 32 x 32 map",
    );
    assert!(!err.contains("of arrays"), "solved first: {err}");
    let err = run_refused(&["solve", SCEN], "looks like a MovingAI scenario");
    assert!(err.contains(&format!("--scen {SCEN}")), "{err}");
}

#[test]
fn bench_text_shows_build_and_solve_times_in_aligned_columns() {
    let dir =
        crate::support::temp_dir("policy-bench-long-path-name-that-is-longer-than-the-column");
    let long = dir.join("a-map-with-a-long-file-name.txt");
    std::fs::copy(SAMPLE, &long).unwrap();
    let out = crate::support::run_status(
        &[
            "bench",
            SAMPLE,
            long.to_str().unwrap(),
            "--engines",
            "sequential",
            "--runs",
            "1",
            "--warmup",
            "0",
            "--quiet",
        ],
        0,
    );
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].contains("build s") && lines[0].contains("solve s"),
        "{text}"
    );
    // Every row's engine column starts where the header's does.
    let at = lines[0].find("engine").unwrap();
    for line in &lines[1..] {
        assert_eq!(
            line[at..].split_whitespace().next(),
            Some("sequential"),
            "{text}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
