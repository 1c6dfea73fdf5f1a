//! Partitioned several-cops solves (feature `distributed`): the library's
//! `distributed::solve` of a several-cops `CopsGame` over bands of cop multisets, 1 to
//! 3 processes with 1 and 2 workers, against the local sequential engine
//! state by state (value and distance of every state, counts, levels, the
//! tracked state's value and distance), on random maps and graphs (k = 2
//! and 3, speeds 1 and 2, every rule variant, lazy cops), a map with and
//! without exits, the Petersen graph with 3 cops (64 moves a state: the
//! four-byte cells) and more bands than multisets; then the CLI: `solve --cops K --processes N` reports what the
//! local solve reports, saves table shards that hold what a local table
//! holds, refuses `--lazy --save` and peers solving another game, and
//! resumes from its checkpoints.

use std::path::{Path, PathBuf};

use retrograde::distributed::{self, PartitionOptions, PartitionedSolution};
use retrograde::{
    load_map, solve, Arena, Board, CopsGame, Engine, Game, Placement, Rules, SolveOptions,
};

use crate::distributed::{
    assert_same_table, binary, checkpointing, data, resume_refused, run_cluster, spawn_process,
    write_hostfile,
};
use crate::support::kcops_games::{
    arena_game, random_graph_games, random_map_games, random_map_games_lazy,
};
use crate::support::start_state;

/// (processes, workers per process) of the library tests.
const SHAPES: [(usize, usize); 4] = [(1, 1), (2, 1), (3, 1), (2, 2)];

/// Runs every process of a cluster as a thread of this test process.
fn solve_cluster(
    game: &CopsGame,
    track: Option<u64>,
    processes: usize,
    workers: usize,
) -> Vec<PartitionedSolution> {
    let bounds = distributed::bands(game, processes * workers).unwrap();
    let options = PartitionOptions {
        dte_table: true,
        track,
        session: distributed::session(game, track).unwrap(),
        ..PartitionOptions::default()
    };
    crate::distributed::threads_cluster(game, &bounds, &options, processes, workers)
}

/// Every shape of `shapes` against the sequential engine with a distance
/// table, state by state; `track`ed state's value and distance too.
fn check_game(label: &str, game: &CopsGame, track: Option<u64>, shapes: &[(usize, usize)]) {
    let local = solve(
        game,
        &SolveOptions::new(Engine::Sequential)
            .with_dte_table(true)
            .with_tracked_state(track),
    )
    .expect("local solve");
    for &(processes, workers) in shapes {
        let label = format!("{label} ({processes} processes x {workers} workers)");
        let parts = solve_cluster(game, track, processes, workers);
        let mut next = 0;
        for band in parts.iter().flat_map(|p| &p.bands) {
            // The bands tile the states in worker order.
            assert_eq!(band.range().start, next, "{label}: bands meet");
            next = band.range().end;
            for s in band.range() {
                assert_eq!(
                    (band.outcome(s), band.dte(s)),
                    (local.outcome(s), local.dte(s)),
                    "{label}: state {s} {:?}",
                    game.position(s)
                );
            }
        }
        assert_eq!(next, game.state_count(), "{label}: bands cover the states");
        let summary = parts[0].summary.as_ref().expect("process 0's summary");
        assert_eq!(summary.counts, local.counts(), "{label}: counts");
        assert_eq!(summary.levels, local.levels(), "{label}: levels");
        if let Some(t) = track {
            assert_eq!(summary.tracked_dte, local.dte(t), "{label}: tracked dte");
            assert_eq!(summary.tracked_outcome, Some(local.outcome(t)), "{label}");
        }
        assert_eq!(summary.network_bytes == 0, processes == 1, "{label}");
    }
}

/// A state to track: the middle one (any state will do; a cop-to-move one
/// on odd counts too).
fn middle(game: &CopsGame) -> Option<u64> {
    Some(game.state_count() / 2)
}

#[test]
fn random_several_cops_games_agree_with_the_local_engine_state_by_state() {
    let per_case = if cfg!(debug_assertions) { 1 } else { 2 };
    for k in [2, 3] {
        random_map_games(k, 0xd157, per_case, |label, game, _| {
            check_game(label, game, middle(game), &SHAPES);
        });
        random_graph_games(k, 0xd158, per_case, |label, game, _| {
            check_game(label, game, middle(game), &SHAPES);
        });
    }
    random_map_games_lazy(2, 0xd159, per_case, true, |label, game, _| {
        check_game(label, game, middle(game), &SHAPES);
    });
}

/// The sample map's arena (its own exits, or none), rules by default.
fn sample_arena(exits: bool) -> Arena {
    let mut map = load_map(Path::new(&data("data/maps/sample.txt"))).expect("sample map");
    if !exits {
        map.exits.clear();
    }
    let board = Board::new(&map, &Placement::default()).expect("board");
    assert_eq!(board.exits.any(), exits);
    Arena::from_board(&board, Rules::default())
}

/// The Petersen graph (cop number 3).
fn petersen() -> Arena {
    let mut edges = Vec::new();
    for i in 0..5 {
        edges.push((i, (i + 1) % 5));
        edges.push((i, i + 5));
        edges.push((i + 5, (i + 2) % 5 + 5));
    }
    Arena::from_edges(10, &edges).expect("Petersen graph")
}

#[test]
fn fixed_several_cops_games_agree_with_the_local_engine_state_by_state() {
    for exits in [true, false] {
        let game = arena_game(sample_arena(exits), 2)
            .with_start(&[0, 30], 50)
            .expect("start");
        check_game(
            &format!("sample, exits {exits}"),
            &game,
            start_state(&game),
            &SHAPES,
        );
    }
    let game = arena_game(petersen(), 3)
        .with_start(&[0, 1, 2], 7)
        .expect("start");
    // 4^3 = 64 joint moves: four-byte cells.
    assert!(distributed::wide_cells(&game));
    check_game("Petersen, 3 cops", &game, start_state(&game), &SHAPES);
    let fast = arena_game(petersen().with_speeds(2, 1), 2);
    assert!(!distributed::wide_cells(&fast));
    check_game("Petersen, 2 cops at speed 2", &fast, middle(&fast), &SHAPES);
    // 2 cops on a path of 2 vertices: 3 multisets for 4 and 6 bands, so
    // some bands are empty.
    let tiny = arena_game(Arena::from_edges(2, &[(0, 1)]).expect("path"), 2);
    // Multisets: the states over 2 thief cells and 2 turns.
    assert_eq!(tiny.state_count() / (2 * 2), 3);
    check_game("path of 2", &tiny, Some(1), &[(2, 2), (3, 2)]);
}

// ---------------------------------------------------------------------
// The CLI: real processes over loopback.

/// A scratch folder of this file's tests.
fn temp(name: &str) -> PathBuf {
    crate::support::temp_dir(&format!("distributed-kcops-{name}"))
}

/// `retrograde solve ARGS` on this machine, no cluster.
fn local(args: &[&str]) -> std::process::Output {
    let out = std::process::Command::new(binary())
        .arg("solve")
        .args(args)
        .output()
        .expect("local solve");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// The Petersen graph as an edge list file in `dir`.
fn petersen_file(dir: &Path) -> PathBuf {
    let mut text = String::new();
    for i in 0..5 {
        text += &format!(
            "{i} {}\n{i} {}\n{} {}\n",
            (i + 1) % 5,
            i + 5,
            i + 5,
            (i + 2) % 5 + 5
        );
    }
    let path = dir.join("petersen.txt");
    std::fs::write(&path, text).expect("graph");
    path
}

/// The flags of three cops on `cops` and the thief on 7 of the Petersen
/// graph in the file `graph`.
fn petersen_flags<'a>(graph: &'a str, cops: [&'a str; 3]) -> Vec<&'a str> {
    let mut flags = vec![graph, "--graph", "--cops", "3"];
    for cop in cops {
        flags.extend(["--cop", cop]);
    }
    flags.extend(["--thief", "7"]);
    flags
}

/// The sample map with its exits turned into plain floor.
fn sample_without_exits(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(data("data/maps/sample.txt")).expect("sample");
    let path = dir.join("no-exits.txt");
    std::fs::write(&path, text.replace('E', ".")).expect("map");
    path
}

#[test]
fn cli_several_cops_over_processes_report_what_the_local_solve_reports() {
    let dir = temp("report");
    let sample = data("data/maps/sample.txt");
    let closed = sample_without_exits(&dir).display().to_string();
    let graph = petersen_file(&dir).display().to_string();
    let starts = ["--cop", "1,1", "--cop", "7,14", "--thief", "5,9"];
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            "2 cops, the map's exits",
            [&[sample.as_str(), "--cops", "2"][..], &starts].concat(),
        ),
        (
            "2 cops, no exits",
            [&[closed.as_str(), "--cops", "2"][..], &starts].concat(),
        ),
        (
            "2 cops at speed 2",
            [
                &[sample.as_str(), "--cops", "2", "--cop-speed", "2"][..],
                &starts,
            ]
            .concat(),
        ),
        (
            "2 lazy cops",
            [&[sample.as_str(), "--cops", "2", "--lazy"][..], &starts].concat(),
        ),
        (
            "3 cops on the Petersen graph",
            petersen_flags(&graph, ["0", "1", "2"]),
        ),
        (
            "2 cops, thief first, no start",
            vec![sample.as_str(), "--cops", "2", "--thief-first"],
        ),
    ];
    for (label, flags) in &cases {
        let flags = [&flags[..], &["--json", "--quiet"]].concat();
        let want = json(&local(&flags));
        for processes in 1..=3 {
            let outputs = run_cluster(&dir, processes, 1, &flags, false);
            assert!(outputs[1..].iter().all(|o| o.stdout.is_empty()));
            let got = json(&outputs[0]);
            for key in [
                "map", "format", "width", "height", "edges", "result", "dte", "cells", "exits",
                "states", "counts", "levels", "pieces",
            ] {
                assert_eq!(got[key], want[key], "{label}, {processes} processes: {key}");
            }
            assert_eq!(got["engine"], "distributed", "{label}");
            assert_eq!(got["processes"], processes, "{label}");
        }
    }
    // The text report names the bands.
    let flags = [&[sample.as_str(), "--cops", "2"][..], &starts, &["--quiet"]].concat();
    let outputs = run_cluster(&dir, 2, 2, &flags, false);
    let text = String::from_utf8_lossy(&outputs[0].stdout);
    assert!(text.starts_with("result: "), "{text}");
    assert!(
        text.contains("engine: distributed (2 processes x 2 workers, 4 bands of cop multisets)"),
        "{text}"
    );
    assert!(text.contains("2 cops, cop speed 1"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_several_cops_over_processes_refuse_save_and_another_game() {
    let dir = temp("refuse");
    let sample = data("data/maps/sample.txt");
    let hostfile = write_hostfile(&dir, 2);
    let base = [sample.as_str(), "--cops", "2", "--quiet"];
    let refused = |extra: &[&str], expected: &str| {
        let args = [&base[..], extra].concat();
        let out = spawn_process(&hostfile, 2, 0, 1, &args)
            .wait_with_output()
            .expect("wait");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(expected), "{extra:?}: {err}");
    };
    let table = dir.join("t.rtb");
    refused(
        &["--lazy", "--save", table.to_str().unwrap()],
        "--save is not available with --lazy",
    );
    assert!(!table.exists());
    assert!(!retrograde::shard_path(&table, 0, 2).exists());
    refused(
        &["--lazy", "--checkpoint", dir.join("ck").to_str().unwrap()],
        "--checkpoint is not available with --lazy",
    );
    refused(
        &["--engine", "sequential"],
        "--engine is not available with --processes",
    );
    // Faster cops' checkpoints (more than 63 moves a state), which the
    // counter engine's band snapshots cannot hold, run on the bit engine
    // with scratch files too now: distributed_kbits.rs checks the counter
    // engine's refusal through the library.
    // A peer with faster cops solves another game: both refuse.
    let zero = spawn_process(&hostfile, 2, 0, 1, &base);
    let one = spawn_process(
        &hostfile,
        2,
        1,
        1,
        &[&base[..], &["--cop-speed", "2"]].concat(),
    );
    for child in [zero, one] {
        let out = child.wait_with_output().expect("wait");
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("solves a different game"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--save` with several cops: each process writes its shard of the
/// table (tiled over its band of multisets). The set, opened by the name it
/// was saved under or by any shard, holds what the local solve's table
/// holds, state by state (values and distances), with the same game,
/// start and counts; `info` lists the shards by multisets; `query` probes
/// across them; a missing shard is refused by name.
#[test]
fn cli_several_cops_shards_hold_what_a_local_table_holds() {
    let dir = temp("shards");
    let sample = data("data/maps/sample.txt");
    let graph = petersen_file(&dir).display().to_string();
    // Two cells and two cops: three multisets, fewer than the bands.
    let pair = dir.join("pair.txt");
    std::fs::write(&pair, "1 2\n..\n").expect("map");
    let pair = pair.display().to_string();
    let starts = ["--cop", "1,1", "--cop", "7,14", "--thief", "5,9"];
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            "2 cops with starts",
            [&[sample.as_str(), "--cops", "2"][..], &starts].concat(),
        ),
        (
            "2 cops, thief first, diagonal thief, no start",
            vec![
                sample.as_str(),
                "--cops",
                "2",
                "--thief-first",
                "--thief-diagonal",
            ],
        ),
        (
            "2 cops at speed 2",
            [
                &[sample.as_str(), "--cops", "2", "--cop-speed", "2"][..],
                &starts,
            ]
            .concat(),
        ),
        (
            "3 cops on the Petersen graph",
            petersen_flags(&graph, ["0", "0", "5"]),
        ),
        ("2 cops on two cells", vec![pair.as_str(), "--cops", "2"]),
    ];
    for (k, (label, flags)) in cases.iter().enumerate() {
        let whole = dir.join(format!("local-{k}.rtb"));
        let mut args = flags.clone();
        args.extend(["--quiet", "--dte-table", "--save", whole.to_str().unwrap()]);
        local(&args);
        for (processes, workers) in [(2, 1 + k % 2), (3, 1)] {
            let base = dir.join(format!("part-{k}-{processes}.rtb"));
            let mut cluster = flags.clone();
            cluster.extend(["--quiet", "--dte-table", "--save", base.to_str().unwrap()]);
            let outputs = run_cluster(&dir, processes, workers, &cluster, false);
            assert!(!base.exists(), "{label}: shards only, no whole table");
            let label = format!("{label} ({processes} processes x {workers} workers)");
            let text = String::from_utf8_lossy(&outputs[0].stdout);
            assert!(text.contains("saved: "), "{label}: {text}");
            assert_same_table(&label, &whole, &base, processes);
            let last = retrograde::shard_path(&base, processes as u32 - 1, processes as u32);
            assert_same_table(&label, &whole, &last, processes);
            let set = retrograde::Tablebase::open(&base).expect("set");
            let h = set.header();
            let cells = 2 * u64::from(set.cells());
            let mut end = 0;
            for s in &h.shards {
                assert_eq!(s.states.start, end, "{label}");
                assert_eq!(s.multisets, s.states.start / cells..s.states.end / cells);
                end = s.states.end;
            }
            assert_eq!(end, h.states, "{label}");
            // The whole-table scan (render --overview) reads every shard in
            // its own order.
            let whole = retrograde::Tablebase::open(&whole).expect("local table");
            for turn in [retrograde::Turn::Cop, retrograde::Turn::Thief] {
                assert_eq!(
                    set.cop_wins_by_multiset(turn).expect("set scan"),
                    whole.cop_wins_by_multiset(turn).expect("local scan"),
                    "{label}"
                );
            }
        }
    }
    // The table commands on a set: info by multisets, a query, a missing
    // shard.
    let base = dir.join("part-0-3.rtb");
    let out = std::process::Command::new(binary())
        .args(["info", "--json"])
        .arg(&base)
        .output()
        .expect("info");
    assert!(out.status.success(), "{out:?}");
    let info = json(&out);
    let shards = info["shards"].as_array().expect("shards");
    assert_eq!(shards.len(), 3);
    assert_eq!(shards[0]["multisets"][0], 0);
    assert!(shards[0].get("rows").is_none(), "{info}");
    let query = |table: &Path| {
        let out = std::process::Command::new(binary())
            .args(["query"])
            .arg(table)
            .args(["--cop", "1,1", "--cop", "7,14", "--thief", "5,9", "--json"])
            .output()
            .expect("query");
        assert!(out.status.success(), "{out:?}");
        json(&out)
    };
    assert_eq!(query(&base), query(&dir.join("local-0.rtb")));
    let middle = retrograde::shard_path(&base, 1, 3);
    std::fs::remove_file(&middle).expect("remove a shard");
    let out = std::process::Command::new(binary())
        .arg("info")
        .arg(&base)
        .output()
        .expect("info");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("part-0-3.1-of-3.rtb") && err.contains("missing"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_several_cops_resume_from_their_checkpoints() {
    let dir = temp("resume");
    let sample = data("data/maps/sample.txt");
    let ck = dir.join("ck");
    let ck = ck.to_str().unwrap();
    let flags = [
        sample.as_str(),
        "--cops",
        "2",
        "--cop",
        "1,1",
        "--cop",
        "7,14",
        "--thief",
        "5,9",
        "--dte-table",
        "--json",
    ];
    let plain = run_cluster(&dir, 2, 1, &[&flags[..], &["--quiet"]].concat(), false);
    // A snapshot after every level; the last ones stay behind.
    let checkpointing = checkpointing(&flags, ck);
    run_cluster(&dir, 2, 1, &checkpointing, false);
    let resumed = run_cluster(&dir, 2, 1, &[&flags[..], &["--resume", ck]].concat(), false);
    let err = String::from_utf8_lossy(&resumed[0].stderr);
    assert!(err.contains("resuming from"), "{err}");
    let (a, b) = (json(&plain[0]), json(&resumed[0]));
    for key in ["result", "dte", "states", "counts", "levels", "pieces"] {
        assert_eq!(a[key], b[key], "{key}");
    }
    // Other speeds or another number of processes: refused before
    // connecting, with exit status 2.
    let refused = |processes: usize, extra: &[&str], expected: &str| {
        let err = resume_refused(&dir, processes, &[&flags[..], extra].concat(), ck);
        assert!(err.contains(expected), "{err}");
    };
    refused(2, &["--cop-speed", "2"], "another speeds");
    refused(3, &[], "another processes: 2 there, 3 now");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--plan` with `--processes` plans this process's bands and connects to
/// nothing: the shares of the processes add up to the game's states, a cap
/// too small is refused with exit status 2 and what it needs, one cop and
/// several alike.
#[test]
fn plan_with_processes_plans_this_process_bands() {
    let sample = data("data/maps/sample.txt");
    let s = sample.as_str();
    for (cops, total) in [(None, 2 * 65 * 65), (Some("2"), 278_850u64)] {
        let mut shares = 0;
        for process in ["0", "1", "2"] {
            let mut args = vec![
                s,
                "--processes",
                "3",
                "--process",
                process,
                "--plan",
                "--json",
            ];
            if let Some(k) = cops {
                args.extend(["--cops", k]);
            }
            let plan = json(&local(&args));
            assert_eq!(plan["engine"], "distributed", "{plan}");
            assert_eq!(plan["fits"], true, "{plan}");
            let states = plan["states"].as_u64().unwrap();
            assert!(states > 0 && states < total, "{plan}");
            shares += states;
        }
        assert_eq!(shares, total, "{cops:?}");
        let mut args = vec![
            s,
            "--processes",
            "2",
            "--process",
            "0",
            "--plan",
            "--memory",
            "1K",
        ];
        if let Some(k) = cops {
            args.extend(["--cops", k]);
        }
        let out = std::process::Command::new(binary())
            .arg("solve")
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{cops:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("does not fit"), "{text}");
    }
}
