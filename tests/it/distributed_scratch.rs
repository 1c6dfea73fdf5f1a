//! One cop partitioned on the bit engine out of core (feature
//! `distributed`): each process keeps its band in a scratch file, paged one
//! level per pass under a cap below the band's in-memory bytes, and equals
//! the local bit engine state by state (values and distances) on random
//! maps in rule variants, 1 to 4 processes x 1 and 2 workers; a cap below a
//! band's minimum is refused naming both; the CLI runs the bit engine with
//! `--scratch` and its `--plan` says what pages; and four processes on one
//! box, each under a cap below what one process alone needs, equal the
//! local solve.
//!
//! Several cops likewise: each process's band in scratch files of its
//! rows, paged under a cap at its resident minimum, equals the local bit
//! engine state by state on random maps and graphs (2 and 3 cops, rule
//! variants, speeds, lazy cops), 1 to 4 processes x 1 and 2 workers; and
//! through the CLI the bit engine runs with `--scratch`, plans its bands
//! out of core, writes the local table's shards and resumes a killed
//! process.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use retrograde::distributed::{self, Cluster, PartitionOptions, PartitionedSolution};
use retrograde::{
    parse_map, solve, Backing, CopsGame, Engine, Error, ExitRule, Placement, SolveOptions, Speeds,
    StorageLimits,
};

use crate::distributed::{
    assert_same_table, bit_threads, check_parts, cli, four_under_cap_agree, free_addresses,
    run_cluster,
};
use crate::oracle::Variant;
use crate::support::kcops_games::{
    arena_game, random_graph_games, random_graph_games_lazy, random_map_games,
    random_map_games_lazy,
};
use crate::support::{start_state, Rng};

/// (processes, workers per process) of every cluster shape tested.
const SHAPES: [(usize, usize); 8] = [
    (1, 1),
    (1, 2),
    (2, 1),
    (2, 2),
    (3, 1),
    (3, 2),
    (4, 1),
    (4, 2),
];

/// The limits a process of a cluster gets: scratch files in `dir` under
/// `memory`.
fn limits(dir: &Path, memory: Option<u64>) -> StorageLimits {
    StorageLimits {
        memory,
        scratch: Some(dir.to_path_buf()),
        ..StorageLimits::default()
    }
}

/// The smallest cap every process of `game` over `processes` x `workers`
/// (with distances) takes out of core: the largest of the minimums their
/// refusals of a 1-byte cap name.
pub(crate) fn minimum_cap(game: &CopsGame, dir: &Path, processes: usize, workers: usize) -> u64 {
    (0..processes)
        .map(|p| {
            match distributed::bit_band_plan(
                game,
                processes,
                p,
                workers,
                true,
                &limits(dir, Some(1)),
            ) {
                Err(Error::TooLarge {
                    needed, available, ..
                }) => {
                    assert_eq!(available, 1);
                    needed
                }
                other => panic!("a 1-byte cap planned: {other:?}"),
            }
        })
        .max()
        .expect("a process")
}

/// Every process of a partitioned bit solve of `game` with its band in
/// scratch files under `dir`, capped at `memory`, as a thread of this test
/// process; each one's solution.
fn scratch_cluster(
    game: &CopsGame,
    processes: usize,
    workers: usize,
    dir: &Path,
    memory: u64,
) -> Vec<PartitionedSolution> {
    let options = PartitionOptions {
        dte_table: true,
        track: start_state(game),
        session: 13,
        backing: Backing::Scratch(dir.to_path_buf()),
        memory: Some(memory),
        ..PartitionOptions::default()
    };
    bit_threads(game, processes, workers, &options)
}

/// A random map of `rows` x `cols` with walls (one cell in seven) and,
/// by the dice, exits on the border, and random starts, in the rules of
/// `variant`; one cop at speed 1.
fn random_game(rng: &mut Rng, rows: usize, cols: usize, variant: Variant) -> CopsGame {
    let mut text = format!("{rows} {cols}\n");
    let mut free = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let wall = rng.below(7) == 0;
            text.push(if wall { '#' } else { '.' });
            if !wall {
                free.push((r, c));
            }
        }
        text.push('\n');
    }
    let map = parse_map(text.as_bytes(), "random").expect("map");
    let mut pick = || free[rng.below(free.len())];
    let placement = Placement {
        cop: Some(pick()),
        thief: Some(pick()),
        exit_rules: if rng.percent(60) {
            vec![ExitRule::Border]
        } else {
            Vec::new()
        },
        ..Placement::default()
    };
    CopsGame::from_map(
        &map,
        &placement,
        crate::agree::rules(variant),
        1,
        Speeds::default(),
    )
    .expect("placement")
}

/// The local bit engine with a distance table and the start tracked: what
/// every partitioned solve is held against.
fn local_bits(game: &CopsGame) -> retrograde::Solution {
    solve(
        game,
        &SolveOptions::new(Engine::Bitboard)
            .with_dte_table(true)
            .with_tracked_state(start_state(game)),
    )
    .expect("local solve")
}

#[test]
fn bands_out_of_core_agree_with_the_local_bit_engine_state_by_state() {
    let dir = crate::support::temp_dir("distributed-bits-scratch");
    let mut rng = Rng::new(0x5c7a);
    for k in 0..6usize {
        let variant = Variant::from_bits(rng.below(64) as u32);
        // Tall enough that a band of four processes holds more grid rows
        // than a pass keeps resident: every band pages.
        let (rows, cols) = (rng.range(68, 80), rng.range(20, 28));
        let game = random_game(&mut rng, rows, cols, variant);
        let local = local_bits(&game);
        for &(processes, workers) in [SHAPES[k % 8], SHAPES[(k + 3) % 8], SHAPES[(k + 6) % 8]]
            .iter()
            .chain(if k == 0 { &SHAPES[..] } else { &[] })
        {
            let label = format!(
                "map {k} ({rows} x {cols}) [{variant}], {processes} processes x {workers} workers"
            );
            let cap = minimum_cap(&game, &dir, processes, workers);
            // The cap pages every band: its plan holds it in a file, one
            // level per pass, with less resident than its bytes.
            for p in 0..processes {
                let plan = distributed::bit_band_plan(
                    &game,
                    processes,
                    p,
                    workers,
                    true,
                    &limits(&dir, Some(cap)),
                )
                .expect("plan");
                assert_eq!(plan.backing, Backing::Scratch(dir.clone()), "{label}");
                let passes = plan.passes.unwrap_or_else(|| {
                    panic!("{label}: process {p} not paged under {cap}: {plan:?}")
                });
                assert_eq!(passes.levels_per_pass, 1, "{label}");
                assert!(plan.resident < plan.bytes, "{label}: {plan:?}");
                assert!(plan.resident <= cap, "{label}: {plan:?}");
            }
            let parts = scratch_cluster(&game, processes, workers, &dir, cap);
            let summary = check_parts(&label, &game, &local, &parts, processes);
            assert_eq!(
                summary.decided_per_level.len() as u32,
                local.levels() + 2,
                "{label}"
            );
            assert_eq!(summary.network_bytes == 0, processes == 1, "{label}");
            // The files were unlinked when made.
            assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 0, "{label}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_cap_below_a_bands_minimum_is_refused_naming_both() {
    let dir = crate::support::temp_dir("distributed-bits-scratch-cap");
    let mut rng = Rng::new(7);
    let game = random_game(&mut rng, 40, 20, Variant::from_bits(0));
    refused_below_the_minimum(&game, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A band solve of `game` (scratch files in `dir`) with a cap one byte
/// under the band's minimum stays on the bit engine, which refuses it
/// before connecting (no peer needed), naming the minimum.
fn refused_below_the_minimum(game: &CopsGame, dir: &Path) {
    let minimum = minimum_cap(game, dir, 2, 1);
    assert!(distributed::bit_engine_runs(game));
    let cluster = Cluster {
        addresses: free_addresses(2),
        process: 0,
        workers: 1,
        connect_timeout: Duration::from_secs(5),
    };
    let options = PartitionOptions {
        dte_table: true,
        backing: Backing::Scratch(dir.to_path_buf()),
        memory: Some(minimum - 1),
        ..PartitionOptions::default()
    };
    // Refused before connecting: no peer needed.
    match distributed::solve_bits(game, &cluster, &options) {
        Err(e @ Error::TooLarge { .. }) => {
            let text = e.to_string();
            assert!(text.contains(&format!("needs {minimum} bytes")), "{text}");
            assert!(
                text.contains(&format!("give a memory cap of at least {minimum}")),
                "{text}"
            );
        }
        other => panic!("not refused: {:?}", other.map(|_| ())),
    }
}

/// An open map of `rows` x `cols` saved in `dir`.
fn open_map(dir: &Path, rows: usize, cols: usize) -> String {
    let path = dir.join(format!("open-{rows}x{cols}.txt"));
    std::fs::write(
        &path,
        format!(
            "{rows} {cols}\n{}",
            format!("{}\n", ".".repeat(cols)).repeat(rows)
        ),
    )
    .expect("map");
    path.display().to_string()
}

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

/// `solve FLAGS --plan --json` of process `process` of `processes` under
/// `--memory memory`.
fn plan_run(flags: &[&str], processes: usize, process: usize, memory: &str) -> Output {
    let (n, i) = (processes.to_string(), process.to_string());
    let plan = ["--processes", &n, "--process", &i, "--memory", memory];
    cli(&[&["solve"], flags, &plan[..], &["--plan", "--json"]].concat())
}

/// The minimum cap `--plan` names for process `process` under a 4 KiB
/// cap (a graph's edges alone take more than one byte), and the
/// refusal's exit status.
pub(crate) fn planned_minimum(flags: &[&str], processes: usize, process: usize) -> u64 {
    let out = plan_run(flags, processes, process, "4K");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let refused = plan["refused"].as_str().expect("refused").to_string();
    let at = refused.find("at least ").expect("a minimum") + "at least ".len();
    refused[at..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("bytes")
}

#[test]
fn cli_one_cop_with_scratch_runs_the_bit_engine_and_plans_its_band_out_of_core() {
    let dir = crate::support::temp_dir("distributed-bits-scratch-cli");
    let scratch = dir.join("scratch");
    std::fs::create_dir_all(&scratch).expect("scratch");
    let scratch = scratch.to_str().unwrap();
    let map = open_map(&dir, 64, 24);
    let flags = [
        map.as_str(),
        "--cop",
        "0,0",
        "--thief",
        "40,20",
        "--exits",
        "border",
        "--dte-table",
        "--scratch",
        scratch,
    ];
    let local = json(&cli(
        &[&["solve"], &flags[..], &["--json", "--quiet"]].concat()
    ));
    let cap = (0..2).map(|i| planned_minimum(&flags, 2, i)).max().unwrap();
    let cap_text = cap.to_string();
    for i in 0..2 {
        let plan = json(&plan_run(&flags, 2, i, &cap_text));
        assert_eq!(plan["engine"], "distributed", "{plan}");
        assert_eq!(plan["scratch"], scratch, "{plan}");
        assert_eq!(plan["passes"]["levels_per_pass"], 1, "{plan}");
        assert!(plan["resident"].as_u64() < plan["bytes"].as_u64(), "{plan}");
    }
    let table = dir.join("local.rtb");
    let saved = cli(&[
        &["solve"],
        &flags[..],
        &["--quiet", "--save", table.to_str().unwrap()],
    ]
    .concat());
    assert!(saved.status.success(), "{saved:?}");
    for workers in [1, 2] {
        let shards = dir.join(format!("shards-{workers}.rtb"));
        let shards_text = shards.display().to_string();
        let run = [
            &flags[..],
            &["--memory", &cap_text, "--json", "--save", &shards_text],
        ]
        .concat();
        let outputs = run_cluster(&dir, 2, workers, &run, false);
        let err = String::from_utf8_lossy(&outputs[0].stderr);
        assert!(
            err.contains("of the bit engine") && err.contains("1 level per pass"),
            "{err}"
        );
        assert!(err.contains(&format!("in files under {scratch}")), "{err}");
        let report = json(&outputs[0]);
        assert_eq!(report["kernel"], "bitboard", "{report}");
        for key in ["result", "dte", "states", "counts", "levels"] {
            assert_eq!(report[key], local[key], "{key}");
        }
        assert_same_table(&format!("{workers} workers"), &table, &shards, 2);
        let left: Vec<_> = std::fs::read_dir(scratch).expect("scratch").collect();
        assert!(left.is_empty(), "left in the scratch folder: {left:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A cluster on one box (issue 45, point 4): four processes on loopback,
/// each capped below what a single process would need for the whole
/// solve, their bands in scratch files and paged, equal the local solve.
#[test]
fn cli_four_processes_out_of_core_under_caps_below_one_process_agree_with_the_local_solve() {
    let dir = crate::support::temp_dir("distributed-bits-scratch-box");
    let scratch = dir.join("scratch");
    std::fs::create_dir_all(&scratch).expect("scratch");
    let scratch = scratch.to_str().unwrap();
    let map = open_map(&dir, 96, 32);
    let flags = [
        map.as_str(),
        "--cop",
        "0,0",
        "--thief",
        "48,16",
        "--exits",
        "border",
        "--dte-table",
        "--scratch",
        scratch,
    ];
    let local_plan = json(&cli(
        &[&["solve"], &flags[..], &["--plan", "--json"]].concat()
    ));
    let one_process = local_plan["bytes"].as_u64().unwrap();
    let cap = (0..4).map(|i| planned_minimum(&flags, 4, i)).max().unwrap();
    assert!(cap < one_process / 4, "cap {cap} against {one_process}");
    four_under_cap_agree(&dir, &flags, cap, one_process);
    let _ = std::fs::remove_dir_all(&dir);
}

// Several cops: bands of cop multisets out of core.

/// Several cops partitioned out of core over every shape of `shapes`:
/// each process capped at the largest band minimum, so that every
/// process's plan pages (its arrays in scratch files, less resident than
/// its bytes, within the cap), equal the local bit engine state by state
/// and leave nothing in the scratch folder.
fn check_several(label: &str, game: &CopsGame, dir: &Path, shapes: &[(usize, usize)]) {
    let local = local_bits(game);
    for &(processes, workers) in shapes {
        let label = format!("{label}, {processes} processes x {workers} workers");
        let cap = minimum_cap(game, dir, processes, workers);
        let bounds = distributed::bit_bands(game, processes);
        for p in (0..processes).filter(|&p| bounds[p + 1] > bounds[p]) {
            let plan = distributed::bit_band_plan(
                game,
                processes,
                p,
                workers,
                true,
                &limits(dir, Some(cap)),
            )
            .expect("plan");
            assert_eq!(plan.backing, Backing::Scratch(dir.to_path_buf()), "{label}");
            assert!(plan.resident < plan.bytes, "{label}: process {p}: {plan:?}");
            assert!(plan.resident <= cap, "{label}: process {p}: {plan:?}");
        }
        let parts = scratch_cluster(game, processes, workers, dir, cap);
        let summary = check_parts(&label, game, &local, &parts, processes);
        assert_eq!(
            summary.decided_per_level.len() as u32,
            local.levels() + 2,
            "{label}"
        );
        assert_eq!(summary.network_bytes == 0, processes == 1, "{label}");
        assert_eq!(std::fs::read_dir(dir).expect("dir").count(), 0, "{label}");
    }
}

#[test]
fn several_cops_bands_out_of_core_agree_with_the_local_bit_engine_state_by_state() {
    let dir = crate::support::temp_dir("distributed-kbits-scratch");
    let mut turn = 0;
    // Three shapes a game, all eight for the first of each kind.
    let mut shapes = |all: bool| -> Vec<(usize, usize)> {
        turn += 1;
        if all {
            return SHAPES.to_vec();
        }
        (0..3).map(|i| SHAPES[(turn + 3 * i) % 8]).collect()
    };
    for k in [2, 3] {
        let mut first = true;
        random_map_games(k, 0x5c7b, 1, |label, game, _| {
            check_several(label, game, &dir, &shapes(std::mem::take(&mut first)));
        });
        let mut first = true;
        random_graph_games(k, 0x5c7c, 1, |label, game, _| {
            check_several(label, game, &dir, &shapes(std::mem::take(&mut first)));
        });
    }
    random_map_games_lazy(2, 0x5c7d, 1, true, |label, game, _| {
        check_several(label, game, &dir, &shapes(false));
    });
    random_graph_games_lazy(3, 0x5c7e, 1, true, |label, game, _| {
        check_several(label, game, &dir, &shapes(false));
    });
    // Rows of several words, bands of many pages, the thief winning at
    // the exits; the cops at speed 2 on another.
    let cycle = arena_game(crate::distributed_kbits::long_cycle(150), 2);
    check_several(
        "cycle of 150, 2 cops",
        &cycle,
        &dir,
        &[(1, 2), (2, 1), (3, 2), (4, 1)],
    );
    let fast = arena_game(
        crate::distributed_kbits::long_cycle(100).with_speeds(2, 1),
        2,
    );
    check_several(
        "cycle of 100, cops at speed 2",
        &fast,
        &dir,
        &[(2, 2), (3, 1)],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn several_cops_a_cap_below_a_bands_minimum_is_refused_naming_both() {
    let dir = crate::support::temp_dir("distributed-kbits-scratch-cap");
    let game = arena_game(crate::distributed_kbits::long_cycle(120), 2);
    refused_below_the_minimum(&game, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Through the CLI, several cops with `flags` (their `--scratch` folder
/// `scratch`) and a cap at the bands' minimum: the bit engine runs, each
/// process's `--plan` says its band pages through scratch files, and 2
/// processes x each of `workers` write the local table's shards (into
/// `dir`) and report what the local solve reports. The local table and
/// the cap.
fn several_out_of_core_shards(
    dir: &Path,
    flags: &[&str],
    scratch: &str,
    workers: &[usize],
) -> (std::path::PathBuf, String) {
    let table = dir.join("local.rtb");
    let local = json(&cli(&[
        &["solve"],
        flags,
        &["--json", "--quiet", "--save", table.to_str().unwrap()],
    ]
    .concat()));
    let cap = (0..2).map(|i| planned_minimum(flags, 2, i)).max().unwrap();
    let cap_text = cap.to_string();
    for i in 0..2 {
        let plan = json(&plan_run(flags, 2, i, &cap_text));
        assert_eq!(plan["engine"], "distributed", "{plan}");
        assert_eq!(plan["scratch"], scratch, "{plan}");
        assert!(plan["resident"].as_u64() < plan["bytes"].as_u64(), "{plan}");
        assert!(plan["resident"].as_u64() <= Some(cap), "{plan}");
    }
    for &workers in workers {
        let shards = dir.join(format!("shards-{workers}.rtb"));
        let shards_text = shards.display().to_string();
        let run = [
            flags,
            &["--memory", &cap_text, "--json", "--save", &shards_text],
        ]
        .concat();
        let outputs = run_cluster(dir, 2, workers, &run, false);
        let err = String::from_utf8_lossy(&outputs[0].stderr);
        assert!(err.contains("of the bit engine"), "{err}");
        assert!(err.contains(&format!("in files under {scratch}")), "{err}");
        let report = json(&outputs[0]);
        assert_eq!(report["kernel"], "bitboard", "{report}");
        for key in ["result", "dte", "states", "counts", "levels"] {
            assert_eq!(report[key], local[key], "{key}");
        }
        assert_same_table(&format!("{workers} workers"), &table, &shards, 2);
        let left: Vec<_> = std::fs::read_dir(scratch).expect("scratch").collect();
        assert!(left.is_empty(), "left in the scratch folder: {left:?}");
    }
    (table, cap_text)
}

/// Through the CLI, two cops on a map with `--scratch` and a cap at the
/// bands' minimum: the bit engine runs, plans its bands out of core and
/// writes the local table's shards over 2 processes x 1 and 2 workers
/// ([`several_out_of_core_shards`]); and a cluster saving band snapshots,
/// one process killed mid-solve, resumes (its bands in scratch files
/// again) to the local table.
#[test]
fn cli_several_cops_with_scratch_run_the_bit_engine_and_resume_a_killed_process() {
    use crate::distributed::{checkpointing, kill_mid_solve, winding};
    let dir = crate::support::temp_dir("distributed-kbits-scratch-cli");
    let scratch = dir.join("scratch");
    std::fs::create_dir_all(&scratch).expect("scratch");
    let scratch = scratch.to_str().unwrap();
    // 216 cells, 1.0e7 states, hundreds of levels; an exit at the
    // corridor's dead end makes the thief win somewhere.
    let map = winding(&dir, 13, 30);
    let map = map.display().to_string();
    let flags = [
        map.as_str(),
        "--cops",
        "2",
        "--exit",
        "12,29",
        "--dte-table",
        "--scratch",
        scratch,
    ];
    let (table, cap) = several_out_of_core_shards(&dir, &flags, scratch, &[1, 2]);
    let capped = [&flags[..], &["--memory", &cap]].concat();
    let ck = dir.join("ck");
    let ck = ck.to_str().unwrap();
    kill_mid_solve(
        &dir,
        "two cops out of core",
        (2, 1, 1),
        &checkpointing(&capped, ck),
        ck,
    );
    let resumed = dir.join("resumed.rtb");
    let resuming = [
        &capped[..],
        &["--save", resumed.to_str().unwrap(), "--resume", ck],
    ]
    .concat();
    let outputs = run_cluster(&dir, 2, 1, &resuming, false);
    let err = String::from_utf8_lossy(&outputs[0].stderr);
    assert!(err.contains("resuming from"), "{err}");
    assert!(err.contains(&format!("in files under {scratch}")), "{err}");
    assert_same_table("resumed out of core", &table, &resumed, 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same with three cops on a graph (`--graph`, an edge list: a cycle
/// of 60 vertices with chords, no exit, so the thief wins nowhere and
/// each band keeps two bitsets a side fewer).
#[test]
fn cli_several_cops_on_a_graph_with_scratch_write_the_local_table() {
    let dir = crate::support::temp_dir("distributed-kbits-scratch-graph");
    let scratch = dir.join("scratch");
    std::fs::create_dir_all(&scratch).expect("scratch");
    let scratch = scratch.to_str().unwrap();
    let n = 60;
    let mut edges: String = (0..n).map(|i| format!("{i} {}\n", (i + 1) % n)).collect();
    edges += &(0..n)
        .step_by(7)
        .map(|i| format!("{i} {}\n", (i + n / 3) % n))
        .collect::<String>();
    let graph = dir.join("cycle.txt");
    std::fs::write(&graph, edges).expect("graph");
    let graph = graph.display().to_string();
    let flags = [
        graph.as_str(),
        "--graph",
        "--cops",
        "3",
        "--dte-table",
        "--scratch",
        scratch,
    ];
    several_out_of_core_shards(&dir, &flags, scratch, &[2]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The first cap of `game` over `processes` x `workers` (with distances),
/// from the minimum up by steps of a sixteenth, under which the cluster
/// pages at `levels` levels per pass or more (a band that fits keeps its
/// rows resident but takes the same passes), if any.
fn cap_for_levels(
    game: &CopsGame,
    dir: &Path,
    processes: usize,
    workers: usize,
    levels: usize,
) -> Option<u64> {
    let minimum = minimum_cap(game, dir, processes, workers);
    (0..400u64)
        .map(|k| minimum + k * (minimum / 16).max(1))
        .find(|&cap| {
            let plans: Vec<_> = (0..processes)
                .map(|p| {
                    distributed::bit_band_plan(
                        game,
                        processes,
                        p,
                        workers,
                        true,
                        &limits(dir, Some(cap)),
                    )
                })
                .collect();
            plans.iter().all(Result::is_ok)
                && plans.iter().flatten().any(|plan| {
                    plan.passes
                        .is_some_and(|passes| passes.levels_per_pass as usize >= levels)
                })
        })
}

#[test]
fn bands_paged_several_levels_per_pass_agree_with_the_local_bit_engine_state_by_state() {
    // Each band computes as many halo rows on each side as a pass does
    // levels, from its neighbours' rows of the pass before: the cap gives
    // two levels and more per pass, bands of one process to four.
    let dir = crate::support::temp_dir("distributed-bits-scratch-levels");
    let mut rng = Rng::new(0x1e7e15);
    let mut several = 0;
    for k in 0..6usize {
        let variant = Variant::from_bits(rng.below(64) as u32);
        let (rows, cols) = (rng.range(60, 76), rng.range(18, 26));
        let game = random_game(&mut rng, rows, cols, variant);
        let local = local_bits(&game);
        for &(processes, workers) in &[SHAPES[k % 8], SHAPES[(k + 5) % 8]] {
            for levels in [2, 5] {
                let label = format!(
                    "map {k} ({rows} x {cols}) [{variant}], {processes} processes x {workers} workers, {levels}+ levels a pass"
                );
                let Some(cap) = cap_for_levels(&game, &dir, processes, workers, levels) else {
                    continue;
                };
                several += 1;
                let parts = scratch_cluster(&game, processes, workers, &dir, cap);
                let summary = check_parts(&label, &game, &local, &parts, processes);
                // The levels the local engine did, and the quiet one, then
                // the rest of the last pass (its levels change nothing).
                assert!(
                    summary.decided_per_level.len() as u32 >= local.levels() + 2,
                    "{label}"
                );
                assert_eq!(summary.network_bytes == 0, processes == 1, "{label}");
                assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 0, "{label}");
            }
        }
    }
    assert!(
        several >= 12,
        "only {several} clusters paged several levels a pass"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
