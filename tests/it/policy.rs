//! Engine and memory policy (issue 22 points 3 and 4, issue 23 point 13):
//! the library's rule for what an engine keeps, one route for `--memory`,
//! nothing allocated that is not known to fit; each through the binary.

use retrograde::{parse_map, solve, Board, CopsAndThief, Engine, Error, Placement, Rules};
use retrograde::{SolveOptions, StorageLimits};

use crate::cli::{run, run_refused, stdout};

const SAMPLE: &str = "data/maps/sample.txt";
/// 887,112 states: its explicit graph needs about 58 MB.
const MAZE: &str = "data/maps/movingai/maze-32-32-2.map";

fn sample_game() -> CopsAndThief {
    let text = std::fs::read(SAMPLE).unwrap();
    let map = parse_map(&text, SAMPLE).unwrap();
    CopsAndThief::new(
        Board::new(&map, &Placement::default()).unwrap(),
        Rules::default(),
    )
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
    let dir = crate::agree::temp_dir("policy-sweep");
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
    assert!(err.contains("1048576 are available"), "{err}");
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
