//! Partitioned solves (feature `distributed`): 1 to 4 processes with 1 and
//! 2 workers each, over loopback TCP, against the local engines state by
//! state (values, distances, counts, levels, the start's distance), on
//! random maps in every rule variant and on a MovingAI map; then the CLI:
//! real processes, the report, a hostfile, and a peer killed mid-solve.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use retrograde::distributed::{self, Cluster, PartitionOptions, PartitionedSolution};
use retrograde::{
    load_map, solve, Board, CopsAndThief, Engine, ExitRule, Game, Placement, Rules, SolveOptions,
};

use crate::agree::{add_random_exits, add_random_starts, crate_game, random_grid, Rng, Shape};
use crate::oracle::Variant;

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

/// `count` loopback addresses with ports free a moment ago.
fn free_addresses(count: usize) -> Vec<String> {
    let listeners: Vec<TcpListener> = (0..count)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("bind"))
        .collect();
    listeners
        .iter()
        .map(|l| l.local_addr().expect("address").to_string())
        .collect()
}

/// Runs every process of a cluster as a thread of this test process.
fn solve_cluster(
    game: &CopsAndThief,
    processes: usize,
    workers: usize,
) -> Vec<PartitionedSolution> {
    let addresses = free_addresses(processes);
    let bounds = distributed::row_bands(game, processes * workers);
    let options = PartitionOptions {
        dte_table: true,
        track: game.start(),
        session: 7,
        ..PartitionOptions::default()
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..processes)
            .map(|process| {
                let cluster = Cluster {
                    addresses: addresses.clone(),
                    process,
                    workers,
                    connect_timeout: Duration::from_secs(30),
                };
                let (game, bounds, options) = (Arc::new(game.clone()), &bounds, &options);
                scope.spawn(move || distributed::solve(game, bounds, &cluster, options))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("process thread").expect("solve"))
            .collect()
    })
}

/// Every cluster shape against the sequential engine with a distance table.
fn check_game(label: &str, game: &CopsAndThief, shapes: &[(usize, usize)]) {
    let local = solve(
        game,
        &SolveOptions::new(Engine::Sequential)
            .with_dte_table(true)
            .with_tracked_state(game.start()),
    )
    .expect("local solve");
    let counts = local.counts();
    for &(processes, workers) in shapes {
        let label = format!("{label} ({processes} processes x {workers} workers)");
        let parts = solve_cluster(game, processes, workers);
        let mut covered = 0;
        for band in parts.iter().flat_map(|p| &p.bands) {
            for s in band.range() {
                assert_eq!(
                    (band.outcome(s), band.dte(s)),
                    (local.outcome(s), local.dte(s)),
                    "{label}: state {s} {:?}",
                    game.decode(s)
                );
            }
            covered += band.range().end - band.range().start;
        }
        assert_eq!(
            covered,
            game.state_count(),
            "{label}: bands cover the states"
        );
        let summary = parts[0]
            .summary
            .as_ref()
            .expect("process 0 has the summary");
        assert!(parts[1..].iter().all(|p| p.summary.is_none()));
        assert_eq!(summary.counts, counts, "{label}: counts");
        assert_eq!(summary.levels, local.levels(), "{label}: levels");
        if let Some(start) = game.start() {
            assert_eq!(summary.tracked_dte, local.dte(start), "{label}: start dte");
            assert_eq!(
                summary.tracked_outcome,
                Some(local.outcome(start)),
                "{label}"
            );
        }
        assert_eq!(summary.process_stats.len(), processes);
        assert_eq!(summary.bytes_per_level.len() as u32, local.levels() + 2);
        assert_eq!(
            summary.decided_per_level.len(),
            summary.bytes_per_level.len()
        );
        assert_eq!(
            summary.decided_per_level.iter().sum::<u64>(),
            counts.win + counts.loss,
            "{label}: every decided state in one level"
        );
        // Every round, each worker sends each other worker at least its
        // frontier size: 24 bytes.
        let pairs = (processes * workers * (processes * workers - 1)) as u64;
        assert!(summary.bytes_per_level.iter().all(|&b| b >= 24 * pairs));
        assert!(summary.network_bytes <= summary.bytes());
        assert_eq!(summary.network_bytes == 0, processes == 1, "{label}");
    }
}

fn rules(variant: Variant) -> Rules {
    crate::agree::rules(variant)
}

#[test]
fn random_maps_in_every_rule_variant_agree_with_the_local_engine() {
    let mut rng = Rng::new(0xd157);
    let shapes = [Shape::Open, Shape::Walls, Shape::Maze, Shape::Corridors];
    for bits in 0..64 {
        let variant = Variant::from_bits(bits);
        let grid = random_grid(&mut rng, shapes[bits as usize % 4], 7);
        let with_exits = add_random_exits(&mut rng, grid);
        let arena = add_random_starts(&mut rng, with_exits);
        let game = crate_game(&arena, variant);
        assert_eq!(game.rules(), rules(variant));
        // Each variant with two cluster shapes in turn; the first eight
        // maps with all of them.
        let shapes: Vec<(usize, usize)> = if bits < 8 {
            SHAPES.to_vec()
        } else {
            vec![SHAPES[bits as usize % 8], SHAPES[(bits as usize + 3) % 8]]
        };
        check_game(
            &format!("map {bits} [{variant}]\n{}", arena.to_seed_text()),
            &game,
            &shapes,
        );
    }
}

/// The MovingAI maze of data/, bands cutting through its corridors.
fn maze() -> CopsAndThief {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/maps/movingai/maze-32-32-2.map");
    let map = load_map(&path).expect("map");
    let placement = Placement {
        cop: Some((1, 1)),
        thief: Some((19, 1)),
        exit_rules: vec![ExitRule::Border],
        ..Placement::default()
    };
    CopsAndThief::new(
        Board::new(&map, &placement).expect("placement"),
        Rules::default(),
    )
}

#[test]
fn a_movingai_map_agrees_with_the_local_engine() {
    check_game("maze-32-32-2", &maze(), &SHAPES);
}

#[test]
fn row_bands_start_at_rows_and_cover_the_states() {
    let game = maze();
    let grid = &game.board().grid;
    for parts in [1, 2, 3, 7, 64, 1000] {
        let bounds = distributed::row_bands(&game, parts);
        assert_eq!(bounds.len(), parts + 1);
        assert_eq!((bounds[0], bounds[parts]), (0, game.state_count()));
        for pair in bounds.windows(2) {
            assert!(pair[0] <= pair[1]);
        }
        let block = 2 * game.cells();
        for &b in &bounds[..parts] {
            assert_eq!(b % block, 0, "a band starts at a cop cell");
            let cell = b / block;
            if cell > 0 && cell < game.cells() {
                let (row, _) = grid.coords(cell as u32);
                let (before, _) = grid.coords(cell as u32 - 1);
                assert!(before < row, "a band starts at a row's first cell");
            }
        }
    }
}

// ---------------------------------------------------------------------
// The command-line tool as real processes.

fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_retrograde")
}

fn data(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .display()
        .to_string()
}

/// Starts process `index` of a cluster given by `hostfile`.
fn spawn_process(
    hostfile: &Path,
    processes: usize,
    index: usize,
    workers: usize,
    extra: &[&str],
) -> Child {
    Command::new(binary())
        .arg("solve")
        .args(extra)
        .args(["--processes", &processes.to_string()])
        .args(["--process", &index.to_string()])
        .args(["--workers", &workers.to_string()])
        .arg("--hostfile")
        .arg(hostfile)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn retrograde")
}

fn write_hostfile(dir: &Path, processes: usize) -> std::path::PathBuf {
    let path = dir.join(format!("hosts-{processes}"));
    std::fs::write(&path, free_addresses(processes).join("\n") + "\n").expect("hostfile");
    path
}

#[test]
fn cli_process_zero_prints_the_local_report_plus_the_exchange() {
    let dir = crate::agree::temp_dir("distributed-cli");
    let map = data("data/maps/movingai/maze-32-32-2.map");
    let flags = [
        map.as_str(),
        "--cop",
        "1,1",
        "--thief",
        "19,1",
        "--exits",
        "border",
        "--json",
        "--quiet",
    ];
    let local = Command::new(binary())
        .arg("solve")
        .args(flags)
        .output()
        .expect("local solve");
    assert!(local.status.success());
    let local: serde_json::Value = serde_json::from_slice(&local.stdout).expect("json");
    for (processes, workers) in [(1, 2), (2, 1), (3, 2), (4, 1)] {
        let hostfile = write_hostfile(&dir, processes);
        let children: Vec<Child> = (0..processes)
            .map(|i| spawn_process(&hostfile, processes, i, workers, &flags))
            .collect();
        let outputs: Vec<_> = children
            .into_iter()
            .map(|c| c.wait_with_output().expect("wait"))
            .collect();
        for (i, out) in outputs.iter().enumerate() {
            assert!(
                out.status.success(),
                "process {i} of {processes}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            if i > 0 {
                assert!(out.stdout.is_empty(), "only process 0 reports");
            }
        }
        let report: serde_json::Value =
            serde_json::from_slice(&outputs[0].stdout).expect("one JSON object");
        for key in [
            "map", "format", "width", "height", "result", "dte", "cells", "exits", "states",
            "counts", "levels",
        ] {
            assert_eq!(report[key], local[key], "{processes}x{workers}: {key}");
        }
        assert_eq!(report["engine"], "distributed");
        assert_eq!(report["processes"], processes);
        assert_eq!(report["workers"], workers);
        let per_level = report["exchange"]["bytes_per_level"]
            .as_array()
            .expect("bytes per level");
        assert_eq!(
            per_level.len() as u64,
            local["levels"].as_u64().unwrap() + 2
        );
        let sum: u64 = per_level.iter().map(|b| b.as_u64().unwrap()).sum();
        assert_eq!(report["exchange"]["bytes"], sum);
        let peaks = report["peak_memory_per_process"].as_array().expect("peaks");
        assert_eq!(peaks.len(), processes);
        assert!(peaks.iter().all(|p| p.as_u64().unwrap() > 0));
    }
    // The text report: the local lines, then the cluster's.
    let hostfile = write_hostfile(&dir, 2);
    let text_flags = [&flags[..7], &["--quiet"]].concat();
    let children: Vec<Child> = (0..2)
        .map(|i| spawn_process(&hostfile, 2, i, 1, &text_flags))
        .collect();
    let outputs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait"))
        .collect();
    let text = String::from_utf8_lossy(&outputs[0].stdout);
    assert!(text.starts_with("result: thief-escapes in"), "{text}");
    assert!(
        text.contains("engine: distributed (2 processes x 1 worker"),
        "{text}"
    );
    assert!(text.contains("exchanged: "), "{text}");
    assert!(text.contains("peak memory per process: "), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_rejects_a_peer_that_solves_another_game_and_a_missing_peer() {
    let dir = crate::agree::temp_dir("distributed-mismatch");
    let map = data("data/maps/sample.txt");
    let hostfile = write_hostfile(&dir, 2);
    let zero = spawn_process(&hostfile, 2, 0, 1, &[&map, "--quiet"]);
    let one = spawn_process(&hostfile, 2, 1, 1, &[&map, "--quiet", "--no-pass"]);
    for child in [zero, one] {
        let out = child.wait_with_output().expect("wait");
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("solves a different game"), "{err}");
    }
    // Process 1 of 2 alone: it cannot connect and says so in time.
    let hostfile = write_hostfile(&dir, 2);
    let started = Instant::now();
    let out = spawn_process(
        &hostfile,
        2,
        1,
        1,
        &[&map, "--quiet", "--connect-timeout", "2"],
    )
    .wait_with_output()
    .expect("wait");
    assert_eq!(out.status.code(), Some(1));
    assert!(started.elapsed() < Duration::from_secs(20));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot connect within 2 s"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A map whose solve takes many levels: a winding corridor (each level is
/// a round trip between the processes).
fn winding_map(dir: &Path) -> std::path::PathBuf {
    let (rows, cols) = (81, 60);
    let mut text = format!("{rows} {cols}\n");
    for r in 0..rows {
        for c in 0..cols {
            let wall = r % 2 == 1 && c != if r % 4 == 1 { cols - 1 } else { 0 };
            text.push(if wall { '#' } else { '.' });
        }
        text.push('\n');
    }
    let path = dir.join("winding.txt");
    std::fs::write(&path, text).expect("map");
    path
}

#[test]
fn killing_one_of_three_processes_stops_the_others() {
    let dir = crate::agree::temp_dir("distributed-kill");
    let map = winding_map(&dir);
    let map = map.display().to_string();
    let hostfile = write_hostfile(&dir, 3);
    let flags = [map.as_str(), "--cop", "0,0", "--thief", "80,59"];
    let mut children: Vec<Child> = (0..3)
        .map(|i| spawn_process(&hostfile, 3, i, 1, &flags))
        .collect();
    // Wait until the cluster has connected and is solving: process 1 says
    // so on stderr.
    let mut stderr = children[1].stderr.take().expect("stderr");
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !String::from_utf8_lossy(&seen).contains("solving") {
        let mut byte = [0u8; 1];
        use std::io::Read;
        if stderr.read(&mut byte).expect("read stderr") == 0 || Instant::now() > deadline {
            panic!(
                "process 1 never started: {}",
                String::from_utf8_lossy(&seen)
            );
        }
        seen.push(byte[0]);
    }
    std::thread::sleep(Duration::from_millis(100));
    children[1].kill().expect("kill");
    let killed = Instant::now();
    for (i, child) in children.into_iter().enumerate() {
        if i == 1 {
            continue;
        }
        let out = child.wait_with_output().expect("wait");
        assert!(
            killed.elapsed() < Duration::from_secs(30),
            "process {i} took {:?}",
            killed.elapsed()
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "process {i}: {err}");
        assert!(err.contains("lost the connection"), "process {i}: {err}");
        assert!(out.stdout.is_empty(), "no report after a failure");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
