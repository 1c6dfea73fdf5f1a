//! Partitioned solves (feature `distributed`): 1 to 4 processes with 1 and
//! 2 workers each, over loopback TCP, against the local engines state by
//! state (values, distances, counts, levels, the start's distance), on
//! random maps in every rule variant and on a MovingAI map; then the CLI:
//! real processes, the report, a hostfile, and a peer killed mid-solve.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use retrograde::distributed::{self, Cluster, PartitionOptions, PartitionedSolution};
use retrograde::{
    load_map, solve, CopsGame, Engine, ExitRule, Game, Placement, Rules, SolveOptions, Speeds,
};

use crate::agree::crate_game;
use crate::oracle::Variant;
use crate::support::{add_random_exits, add_random_starts, random_grid, start_state, Rng, Shape};

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
///
/// The ports come from below the kernel's ephemeral range, handed out once
/// each by a counter of this test process: a port the kernel picked for
/// `bind(0)` and released could be given to another test's outgoing
/// connection before the cluster listens on it (a CI run failed with
/// "Address already in use" that way), while a port below the range is
/// never picked by the kernel, and the counter keeps parallel tests apart.
pub(crate) fn free_addresses(count: usize) -> Vec<String> {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let (low, high) = ephemeral_range();
    // 10,000 ports below the range, or the ports above it when the range
    // starts too low to leave room.
    let (first, span) = if low >= 11_024 {
        (low - 10_000, 10_000)
    } else {
        (high + 1, 65_535 - high)
    };
    let offset = std::process::id() % span;
    let mut addresses = Vec::with_capacity(count);
    for _ in 0..span {
        if addresses.len() == count {
            break;
        }
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let port = first + (offset + n) % span;
        let address = format!("127.0.0.1:{port}");
        // Taken by something outside this process: skip it.
        if TcpListener::bind(&address).is_ok() {
            addresses.push(address);
        }
    }
    assert_eq!(addresses.len(), count, "free loopback ports");
    addresses
}

/// The kernel's ephemeral port range (Linux's default when unreadable).
fn ephemeral_range() -> (u32, u32) {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|text| {
            let mut parts = text.split_whitespace().map(|p| p.parse::<u32>().ok());
            Some((parts.next()??, parts.next()??))
        })
        .filter(|&(low, high)| low <= high && high < 65_535)
        .unwrap_or((32_768, 60_999))
}

/// Runs every process of a cluster as a thread of this test process.
fn solve_cluster(game: &CopsGame, processes: usize, workers: usize) -> Vec<PartitionedSolution> {
    let bounds = distributed::bands(game, processes * workers).unwrap();
    let options = PartitionOptions {
        dte_table: true,
        track: start_state(game),
        session: 7,
        ..PartitionOptions::default()
    };
    threads_cluster(game, &bounds, &options, processes, workers)
}

/// Every process of a cluster of `game` cut at `bounds` as a thread of this
/// test process, on free loopback ports; each one's solution.
pub(crate) fn threads_cluster<G: retrograde::Game + Clone + Send + 'static>(
    game: &G,
    bounds: &[u64],
    options: &PartitionOptions,
    processes: usize,
    workers: usize,
) -> Vec<PartitionedSolution> {
    let addresses = free_addresses(processes);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..processes)
            .map(|process| {
                let cluster = Cluster {
                    addresses: addresses.clone(),
                    process,
                    workers,
                    connect_timeout: Duration::from_secs(30),
                };
                let game = Arc::new(game.clone());
                scope.spawn(move || distributed::solve(game, bounds, &cluster, options))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("process thread").expect("solve"))
            .collect()
    })
}

/// The sequential engine's solve of `game` with a distance table and the
/// start tracked: what every partitioned solve is held against.
fn local_solve(game: &CopsGame) -> retrograde::Solution {
    solve(
        game,
        &SolveOptions::new(Engine::Sequential)
            .with_dte_table(true)
            .with_tracked_state(start_state(game)),
    )
    .expect("local solve")
}

/// What every partitioned solve of `game` must give, whatever its kernel:
/// the processes' bands equal `local` state by state (values and
/// distances) and cover the states, and process 0 alone has the summary,
/// with the local counts, levels and start, a figure per process, and
/// every decided state counted in one level. Returns that summary.
pub(crate) fn check_parts<'p>(
    label: &str,
    game: &CopsGame,
    local: &retrograde::Solution,
    parts: &'p [PartitionedSolution],
    processes: usize,
) -> &'p distributed::Summary {
    let counts = local.counts();
    let mut covered = 0;
    for band in parts.iter().flat_map(|p| &p.bands) {
        for s in band.range() {
            assert_eq!(
                (band.outcome(s), band.dte(s)),
                (local.outcome(s), local.dte(s)),
                "{label}: state {s} {:?}",
                game.position(s)
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
    if let Some(start) = start_state(game) {
        assert_eq!(summary.tracked_dte, local.dte(start), "{label}: start dte");
        assert_eq!(
            summary.tracked_outcome,
            Some(local.outcome(start)),
            "{label}"
        );
    }
    assert_eq!(summary.process_stats.len(), processes);
    assert_eq!(
        summary.decided_per_level.iter().sum::<u64>(),
        counts.win + counts.loss,
        "{label}: every decided state in one level"
    );
    summary
}

/// Every cluster shape against the sequential engine with a distance table.
fn check_game(label: &str, game: &CopsGame, shapes: &[(usize, usize)]) {
    let local = local_solve(game);
    for &(processes, workers) in shapes {
        let label = format!("{label} ({processes} processes x {workers} workers)");
        let parts = solve_cluster(game, processes, workers);
        let summary = check_parts(&label, game, &local, &parts, processes);
        assert_eq!(summary.bytes_per_level.len() as u32, local.levels() + 2);
        assert_eq!(
            summary.decided_per_level.len(),
            summary.bytes_per_level.len()
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
fn maze() -> CopsGame {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/maps/movingai/maze-32-32-2.map");
    let map = load_map(&path).expect("map");
    let placement = Placement {
        cop: Some((1, 1)),
        thief: Some((19, 1)),
        exit_rules: vec![ExitRule::Border],
        ..Placement::default()
    };
    CopsGame::from_map(&map, &placement, Rules::default(), 1, Speeds::default()).expect("placement")
}

#[test]
fn a_movingai_map_agrees_with_the_local_engine() {
    check_game("maze-32-32-2", &maze(), &SHAPES);
}

/// Every process of a partitioned bit solve of `game` as a thread of
/// this test process; each one's solution.
fn grid_cluster(
    game: &CopsGame,
    processes: usize,
    workers: usize,
    dte_table: bool,
) -> Vec<PartitionedSolution> {
    let options = PartitionOptions {
        dte_table,
        track: start_state(game),
        session: 11,
        ..PartitionOptions::default()
    };
    bit_threads(game, processes, workers, &options)
}

/// Every process of a partitioned bit solve of `game` with `options` as a
/// thread of this test process, on loopback; each one's solution (a
/// failed solve panics).
pub(crate) fn bit_threads(
    game: &CopsGame,
    processes: usize,
    workers: usize,
    options: &PartitionOptions,
) -> Vec<PartitionedSolution> {
    let addresses = free_addresses(processes);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..processes)
            .map(|process| {
                let cluster = Cluster {
                    addresses: addresses.clone(),
                    process,
                    workers,
                    connect_timeout: Duration::from_secs(30),
                };
                scope.spawn(move || distributed::solve_bits(game, &cluster, options))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("process thread").expect("solve"))
            .collect()
    })
}

/// The bit engine partitioned over every cluster shape in `shapes`
/// against the sequential engine with a distance table: what
/// [`check_parts`] checks, each process's band where `bit_bands` puts it,
/// and the bytes.
fn check_grid(label: &str, game: &CopsGame, shapes: &[(usize, usize)]) {
    let local = local_solve(game);
    for &(processes, workers) in shapes {
        let label = format!("{label} (bit engine, {processes} processes x {workers} workers)");
        let parts = grid_cluster(game, processes, workers, true);
        let bounds = distributed::bit_bands(game, processes);
        assert_eq!(bounds.len(), processes + 1, "{label}");
        for (process, part) in parts.iter().enumerate() {
            assert_eq!(
                part.range(),
                bounds[process]..bounds[process + 1],
                "{label}"
            );
        }
        let summary = check_parts(&label, game, &local, &parts, processes);
        assert_eq!(
            summary.decided_per_level.len() as u32,
            local.levels() + 2,
            "{label}"
        );
        assert_eq!(
            summary.bytes_per_level.len(),
            summary.decided_per_level.len()
        );
        assert_eq!(summary.network_bytes, summary.bytes(), "{label}");
        assert_eq!(summary.network_bytes == 0, processes == 1, "{label}");
    }
}

#[test]
fn bit_engine_partitioned_agrees_on_random_maps_in_every_rule_variant() {
    let mut rng = Rng::new(0xb17);
    let shapes = [Shape::Open, Shape::Walls, Shape::Maze, Shape::Corridors];
    for bits in 0..64 {
        let variant = Variant::from_bits(bits);
        // Tall maps too, so that bands run two levels at a time.
        let size = if bits % 3 == 0 { 12 } else { 7 };
        let grid = random_grid(&mut rng, shapes[bits as usize % 4], size);
        let with_exits = add_random_exits(&mut rng, grid);
        let arena = add_random_starts(&mut rng, with_exits);
        let game = crate_game(&arena, variant);
        let shapes: Vec<(usize, usize)> = if bits < 8 {
            SHAPES.to_vec()
        } else {
            vec![SHAPES[bits as usize % 8], SHAPES[(bits as usize + 3) % 8]]
        };
        check_grid(
            &format!("map {bits} [{variant}]\n{}", arena.to_seed_text()),
            &game,
            &shapes,
        );
    }
}

#[test]
fn bit_engine_partitioned_agrees_on_a_movingai_map_and_a_tall_open_map() {
    check_grid("maze-32-32-2", &maze(), &SHAPES);
    // 40 rows: every band of 2 x 2 and 3 x 1 is tall enough for two
    // levels at a time, and its halos cross open rows.
    let text = format!("40 12\n{}", format!("{}\n", ".".repeat(12)).repeat(40));
    let map = retrograde::parse_map(text.as_bytes(), "open").expect("map");
    let placement = Placement {
        cop: Some((0, 0)),
        thief: Some((39, 11)),
        exit_rules: vec![ExitRule::Border],
        ..Placement::default()
    };
    let game =
        CopsGame::from_map(&map, &placement, Rules::default(), 1, Speeds::default()).unwrap();
    check_grid("open 40 x 12", &game, &[(2, 2), (3, 1), (4, 2)]);
}

#[test]
fn bit_engine_partitioned_without_distances_and_with_more_processes_than_rows() {
    // Three rows over four processes: one band is empty.
    let text = "3 5\n.....\n..#..\n.....\n";
    let map = retrograde::parse_map(text.as_bytes(), "small").expect("map");
    let placement = Placement {
        cop: Some((0, 0)),
        thief: Some((2, 4)),
        exit_rules: vec![ExitRule::Border],
        ..Placement::default()
    };
    let game =
        CopsGame::from_map(&map, &placement, Rules::default(), 1, Speeds::default()).unwrap();
    check_grid("three rows", &game, &[(4, 1), (4, 2)]);
    let local = solve(&game, &SolveOptions::new(Engine::Bitboard)).unwrap();
    let parts = grid_cluster(&game, 2, 1, false);
    for band in parts.iter().flat_map(|p| &p.bands) {
        for s in band.range() {
            assert_eq!(band.outcome(s), local.outcome(s), "state {s}");
            assert_eq!(band.dte(s), None, "no table kept");
        }
    }
}

#[test]
fn row_bands_start_at_rows_and_cover_the_states() {
    let game = maze();
    let grid = game.grid().expect("a map");
    for parts in [1, 2, 3, 7, 64, 1000] {
        let bounds = distributed::bands(&game, parts).unwrap();
        assert_eq!(bounds.len(), parts + 1);
        assert_eq!((bounds[0], bounds[parts]), (0, game.state_count()));
        for pair in bounds.windows(2) {
            assert!(pair[0] <= pair[1]);
        }
        let block = 2 * u64::from(game.cells());
        for &b in &bounds[..parts] {
            assert_eq!(b % block, 0, "a band starts at a cop cell");
            let cell = b / block;
            if cell > 0 && cell < u64::from(game.cells()) {
                let (row, _) = grid.coords(cell as u32);
                let (before, _) = grid.coords(cell as u32 - 1);
                assert!(before < row, "a band starts at a row's first cell");
            }
        }
    }
}

// ---------------------------------------------------------------------
// The command-line tool as real processes.

pub(crate) fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_retrograde")
}

pub(crate) fn data(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .display()
        .to_string()
}

/// Starts process `index` of a cluster given by `hostfile`.
pub(crate) fn spawn_process(
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

/// `flags` with a snapshot into `ck` as often as levels end (0.0001
/// minutes: 6 ms), quietly.
pub(crate) fn checkpointing<'a>(flags: &[&'a str], ck: &'a str) -> Vec<&'a str> {
    [
        flags,
        &[
            "--quiet",
            "--checkpoint",
            ck,
            "--checkpoint-every",
            "0.0001",
        ],
    ]
    .concat()
}

/// Process 0 of `processes` resuming `flags` from the snapshots in `ck`,
/// asserted to be refused (exit status 2); its standard error.
pub(crate) fn resume_refused(dir: &Path, processes: usize, flags: &[&str], ck: &str) -> String {
    let hostfile = write_hostfile(dir, processes);
    let args = [flags, &["--quiet", "--resume", ck]].concat();
    let out = spawn_process(&hostfile, processes, 0, 1, &args)
        .wait_with_output()
        .expect("wait");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    err
}

pub(crate) fn write_hostfile(dir: &Path, processes: usize) -> std::path::PathBuf {
    let path = dir.join(format!("hosts-{processes}"));
    std::fs::write(&path, free_addresses(processes).join("\n") + "\n").expect("hostfile");
    path
}

#[test]
fn cli_process_zero_prints_the_local_report_plus_the_exchange() {
    let dir = crate::support::temp_dir("distributed-cli");
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
    let text_flags = [&flags[..7], &["--quiet"]].concat();
    let outputs = run_cluster(&dir, 2, 1, &text_flags, false);
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
fn cli_four_processes_under_a_memory_cap_below_one_process_agree_with_the_local_solve() {
    let dir = crate::support::temp_dir("distributed-cap");
    let map = dir.join("open100.txt");
    std::fs::write(
        &map,
        format!("100 100\n{}", format!("{}\n", ".".repeat(100)).repeat(100)),
    )
    .unwrap();
    let map = map.display().to_string();
    let flags = [
        map.as_str(),
        "--cop",
        "0,0",
        "--thief",
        "50,50",
        "--exits",
        "border",
    ];
    let json = |args: &[&str]| -> serde_json::Value {
        let out = Command::new(binary())
            .arg("solve")
            .args(args)
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("json")
    };
    let local_plan = json(&[&flags[..], &["--plan", "--json"]].concat());
    let local_bytes = local_plan["bytes"].as_u64().unwrap();
    // Each process's share as its own --plan gives it, under a cap below
    // the local solve's arrays.
    let mut largest = 0;
    for i in 0..4 {
        let i = i.to_string();
        let plan = json(
            &[
                &flags[..],
                &[
                    "--processes",
                    "4",
                    "--process",
                    &i,
                    "--workers",
                    "1",
                    "--plan",
                    "--json",
                ],
            ]
            .concat(),
        );
        assert_eq!(plan["engine"], "distributed", "{plan}");
        largest = largest.max(plan["bytes"].as_u64().unwrap());
    }
    let cap = largest + (1 << 20);
    assert!(cap < local_bytes / 2, "cap {cap} against {local_bytes}");
    // Each process holds its quarter: its peak (the binary included) stays
    // below the local solve's arrays alone.
    four_under_cap_agree(&dir, &flags, cap, local_bytes);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `solve FLAGS` locally and on 4 processes of one worker under `--memory
/// cap`: the cluster's report equals the local one, from the bit engine,
/// and every process's peak stays below `below` bytes.
pub(crate) fn four_under_cap_agree(dir: &Path, flags: &[&str], cap: u64, below: u64) {
    let local = cli(&[&["solve"], flags, &["--json", "--quiet"]].concat());
    let local: serde_json::Value = serde_json::from_slice(&local.stdout).expect("json");
    let cap = cap.to_string();
    let cluster_flags = [flags, &["--memory", &cap, "--json", "--quiet"]].concat();
    let outputs = run_cluster(dir, 4, 1, &cluster_flags, false);
    let report: serde_json::Value = serde_json::from_slice(&outputs[0].stdout).expect("json");
    for key in ["result", "dte", "states", "counts", "levels"] {
        assert_eq!(report[key], local[key], "{key}");
    }
    assert_eq!(report["kernel"], "bitboard");
    let peaks = report["peak_memory_per_process"].as_array().expect("peaks");
    assert_eq!(peaks.len(), 4);
    assert!(
        peaks.iter().all(|p| p.as_u64().unwrap() < below),
        "{peaks:?} against {below}"
    );
}

#[test]
fn cli_rejects_a_peer_that_solves_another_game_and_a_missing_peer() {
    let dir = crate::support::temp_dir("distributed-mismatch");
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
    winding(dir, 81, 60)
}

/// A winding corridor of `rows` x `cols` (every other row a wall, open at
/// alternate ends), saved in `dir`.
pub(crate) fn winding(dir: &Path, rows: usize, cols: usize) -> std::path::PathBuf {
    let mut text = format!("{rows} {cols}\n");
    for r in 0..rows {
        for c in 0..cols {
            let wall = r % 2 == 1 && c != if r % 4 == 1 { cols - 1 } else { 0 };
            text.push(if wall { '#' } else { '.' });
        }
        text.push('\n');
    }
    let path = dir.join(format!("winding-{rows}x{cols}.txt"));
    std::fs::write(&path, text).expect("map");
    path
}

#[test]
fn killing_one_of_three_processes_stops_the_others() {
    let dir = crate::support::temp_dir("distributed-kill");
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

// ---------------------------------------------------------------------
// Tablebase shards: `solve --processes N --save` and the table commands.

/// Runs every process of a cluster through the binary with `flags` and
/// waits; asserts that each succeeded. `slurm`: the process count and
/// index come from the Slurm variables (a bare `--processes`). Tried again
/// on fresh ports when one was taken between the test's choice and the
/// process's listen (tests run side by side).
pub(crate) fn run_cluster(
    dir: &Path,
    processes: usize,
    workers: usize,
    flags: &[&str],
    slurm: bool,
) -> Vec<std::process::Output> {
    for _ in 0..3 {
        let hostfile = write_hostfile(dir, processes);
        let children: Vec<Child> = (0..processes)
            .map(|i| {
                let mut command = Command::new(binary());
                command
                    .arg("solve")
                    .args(flags)
                    .args(["--workers", &workers.to_string(), "--hostfile"])
                    .arg(&hostfile)
                    .env_remove("SLURM_NTASKS")
                    .env_remove("SLURM_NPROCS")
                    .env_remove("SLURM_PROCID");
                if slurm {
                    command
                        .arg("--processes")
                        .env("SLURM_NTASKS", processes.to_string())
                        .env("SLURM_PROCID", i.to_string());
                } else {
                    command.args([
                        "--processes",
                        &processes.to_string(),
                        "--process",
                        &i.to_string(),
                    ]);
                }
                command
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("spawn retrograde")
            })
            .collect();
        let outputs: Vec<_> = children
            .into_iter()
            .map(|c| c.wait_with_output().expect("wait"))
            .collect();
        let taken = outputs
            .iter()
            .any(|o| String::from_utf8_lossy(&o.stderr).contains("Address already in use"));
        if taken {
            continue;
        }
        for (i, out) in outputs.iter().enumerate() {
            assert!(
                out.status.success(),
                "process {i} of {processes}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        return outputs;
    }
    panic!("ports taken three times");
}

/// `retrograde ARGS` from the repository root.
pub(crate) fn cli(args: &[&str]) -> std::process::Output {
    crate::support::run(args, None)
}

/// Every state of the set at `shards` probes as in the table at `local`.
pub(crate) fn assert_same_table(label: &str, local: &Path, shards: &Path, processes: usize) {
    let local = retrograde::Tablebase::open(local).expect("local table");
    let set = retrograde::Tablebase::open(shards).expect("shard set");
    let (l, h) = (local.header(), set.header());
    assert!(h.partitioned && !l.partitioned, "{label}");
    assert_eq!(h.shards.len(), processes, "{label}");
    for (k, s) in h.shards.iter().enumerate() {
        assert_eq!(s.index as usize, k, "{label}");
        assert_eq!(s.count as usize, processes, "{label}");
    }
    assert_eq!(
        (h.states, h.counts, h.levels, h.max_dte, h.has_dte),
        (l.states, l.counts, l.levels, l.max_dte, l.has_dte),
        "{label}"
    );
    assert_eq!(
        (h.rules, h.cop_start, h.thief_start),
        (l.rules, l.cop_start, l.thief_start)
    );
    assert_eq!(
        (h.cops, h.start, h.thief_tile, h.graph),
        (l.cops, l.start, l.thief_tile, l.graph),
        "{label}"
    );
    for s in 0..l.states {
        assert_eq!(
            set.probe_state(s).expect("set probe"),
            local.probe_state(s).expect("local probe"),
            "{label}: state {s}"
        );
    }
}

#[test]
fn cli_shards_hold_what_a_local_table_holds() {
    let dir = crate::support::temp_dir("distributed-shards");
    let mut rng = Rng::new(0x5ad5);
    let shapes = [Shape::Open, Shape::Walls, Shape::Maze, Shape::Corridors];
    // (label, map file, flags): random maps in a few rule variants, then
    // the MovingAI maze.
    let mut cases: Vec<(String, String, Vec<String>)> = Vec::new();
    for (k, bits) in [0u32, 13, 22, 45, 63].into_iter().enumerate() {
        let variant = Variant::from_bits(bits);
        let grid = random_grid(&mut rng, shapes[k % 4], 7);
        let with_exits = add_random_exits(&mut rng, grid);
        let arena = add_random_starts(&mut rng, with_exits);
        let bare = crate::oracle::Arena {
            cop: None,
            thief: None,
            ..arena.clone()
        };
        let map = dir.join(format!("random-{k}.txt"));
        std::fs::write(&map, bare.to_seed_text()).expect("map");
        let mut flags = variant.cli_flags();
        for (flag, cell) in [("--cop", arena.cop), ("--thief", arena.thief)] {
            if let Some((r, c)) = cell {
                flags.extend([flag.to_string(), format!("{r},{c}")]);
            }
        }
        cases.push((
            format!("map {k} [{variant}]\n{}", arena.to_seed_text()),
            map.display().to_string(),
            flags,
        ));
    }
    // One row: with 2 or 3 processes the first shards hold no states.
    let corridor = dir.join("corridor.txt");
    std::fs::write(&corridor, "1 6\nC...TE\n").expect("map");
    cases.push((
        "one-row corridor".into(),
        corridor.display().to_string(),
        Vec::new(),
    ));
    cases.push((
        "maze-32-32-2".into(),
        data("data/maps/movingai/maze-32-32-2.map"),
        ["--cop", "1,1", "--thief", "19,1", "--exits", "border"]
            .map(String::from)
            .to_vec(),
    ));
    for (k, (label, map, flags)) in cases.iter().enumerate() {
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let local = dir.join(format!("local-{k}.rtb"));
        let mut args = vec!["solve", map.as_str(), "--quiet", "--dte-table", "--save"];
        args.push(local.to_str().unwrap());
        args.extend(&flags);
        let out = cli(&args);
        assert!(out.status.success(), "{label}: {out:?}");
        for (processes, workers) in [(2, 1 + k % 2), (3, 1)] {
            let base = dir.join(format!("part-{k}-{processes}.rtb"));
            let mut cluster = vec![map.as_str(), "--quiet", "--dte-table", "--save"];
            cluster.push(base.to_str().unwrap());
            cluster.extend(&flags);
            run_cluster(&dir, processes, workers, &cluster, false);
            assert!(!base.exists(), "shards only, no whole table");
            let label = format!("{label} ({processes} processes)");
            // By the name it was saved under, and by any shard.
            assert_same_table(&label, &local, &base, processes);
            let last = retrograde::shard_path(&base, processes as u32 - 1, processes as u32);
            assert_same_table(&label, &local, &last, processes);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--scratch DIR` (alone, and with a `--memory` cap above the bands) puts
/// every process's band in files (the bit engine's, one cop): the shards
/// hold what a local table holds, the report says where the bands went,
/// nothing is left in DIR, and a cap below the minimum is refused (bands
/// paged under a cap: `distributed_scratch.rs`).
#[test]
fn cli_bands_in_scratch_files_agree_with_the_local_engine() {
    let dir = crate::support::temp_dir("distributed-scratch");
    let scratch = dir.join("scratch");
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    // Tall and narrow: a predecessor radius far below a band, so a cap can
    // force the bands out of memory and still be kept.
    let mut rows = vec!["...."; 60];
    rows[0] = "C...";
    rows[30] = ".*.*";
    rows[59] = "..TE";
    let map = dir.join("tall.txt");
    std::fs::write(&map, format!("60 4\n{}\n", rows.join("\n"))).expect("map");
    let map = map.to_str().unwrap();
    let local = dir.join("local.rtb");
    let out = cli(&[
        "solve",
        map,
        "--quiet",
        "--dte-table",
        "--save",
        local.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let scratch_arg = scratch.to_str().unwrap();
    // Each process's band is about 200 KiB, below a pass's rows: it stays
    // whole in its file.
    for (k, (workers, memory)) in [(1, None), (2, None), (1, Some("1M"))]
        .into_iter()
        .enumerate()
    {
        let base = dir.join(format!("part-{k}.rtb"));
        let mut flags = vec![map, "--dte-table", "--scratch", scratch_arg, "--save"];
        flags.push(base.to_str().unwrap());
        if let Some(m) = memory {
            flags.extend(["--memory", m]);
        }
        let outputs = run_cluster(&dir, 2, workers, &flags, false);
        for (i, out) in outputs.iter().enumerate() {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains(&format!("in files under {scratch_arg}")),
                "case {k}, process {i}: {err}"
            );
        }
        assert_same_table(&format!("case {k}"), &local, &base, 2);
        let left: Vec<_> = std::fs::read_dir(&scratch).expect("read scratch").collect();
        assert!(
            left.is_empty(),
            "case {k}: left in the scratch folder: {left:?}"
        );
    }
    // A cap below the minimum: refused before connecting, naming it.
    let out = cli(&[
        "solve",
        map,
        "--processes",
        "2",
        "--process",
        "0",
        "--scratch",
        scratch_arg,
        "--memory",
        "1K",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("give a memory cap of at least"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_table_commands_open_a_shard_set_and_refuse_a_broken_one() {
    let dir = crate::support::temp_dir("distributed-shard-set");
    let map = data("data/maps/sample.txt");
    let local = dir.join("local.rtb");
    let out = cli(&[
        "solve",
        &map,
        "--quiet",
        "--dte-table",
        "--save",
        local.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    // Three processes, count and index from the Slurm variables.
    let base = dir.join("t.rtb");
    let outputs = run_cluster(
        &dir,
        3,
        1,
        &[
            &map,
            "--dte-table",
            "--json",
            "--save",
            base.to_str().unwrap(),
        ],
        true,
    );
    let report: serde_json::Value = serde_json::from_slice(&outputs[0].stdout).expect("json");
    assert_eq!(report["processes"], 3);
    let shard = |i: u32| retrograde::shard_path(&base, i, 3);
    assert_eq!(report["saved"]["path"], shard(0).display().to_string());
    assert_eq!(report["shards"].as_array().map(Vec::len), Some(3));
    for i in 0..3 {
        assert!(shard(i).exists());
    }
    // The same map under other rules: a foreign set.
    let other = dir.join("other.rtb");
    run_cluster(
        &dir,
        3,
        1,
        &[
            &map,
            "--quiet",
            "--thief-first",
            "--dte-table",
            "--save",
            other.to_str().unwrap(),
        ],
        false,
    );

    // info --check on the set, from any shard or the base name.
    let info = |table: &Path| -> serde_json::Value {
        let out = cli(&["info", table.to_str().unwrap(), "--check", "--json"]);
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice(&out.stdout).expect("json")
    };
    let whole = info(&local);
    for table in [base.clone(), shard(1)] {
        let set = info(&table);
        assert_eq!(set["checked"], true);
        assert_eq!(set["counts"], whole["counts"]);
        assert_eq!(set["states"], whole["states"]);
        let shards = set["shards"].as_array().expect("shards");
        assert_eq!(shards.len(), 3);
        assert_eq!(shards[2]["states"][1], whole["states"]);
    }
    let text = cli(&["info", shard(2).to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("shards: 3 files"));

    // query (rated moves cross shards), play and render answer as the
    // local table does.
    let tb = retrograde::Tablebase::open(&local).expect("local");
    let mut lines = String::new();
    for (i, c) in (0..tb.cells()).enumerate() {
        let (r, col) = tb.coords(c).expect("a map");
        let (tr, tc) = tb
            .start()
            .map_or((0, 0), |s| tb.coords(s.thief).expect("a map"));
        if i % 3 == 0 {
            lines += &format!("{r},{col} {tr},{tc} cop\n{tr},{tc} {r},{col} thief\n");
        }
    }
    let query = |table: &Path| {
        let out = crate::support::run(
            &["query", table.to_str().unwrap(), "--stdin", "--json"],
            Some(lines.as_bytes()),
        );
        assert!(out.status.success(), "{out:?}");
        out.stdout
    };
    assert_eq!(query(&shard(1)), query(&local));
    let play = |table: &Path| cli(&["play", table.to_str().unwrap()]).stdout;
    assert_eq!(play(&base), play(&local));
    let render = |table: &Path, png: &str| {
        let png = dir.join(png);
        let out = cli(&[
            "render",
            table.to_str().unwrap(),
            "--overview",
            "--out",
            png.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{out:?}");
        std::fs::read(png).expect("png")
    };
    assert_eq!(render(&shard(0), "set.png"), render(&local, "local.png"));

    // serve opens the set under its name; its answer equals query's.
    let server = crate::serve::Server::start(&[&shard(2)], &[]);
    let mut client = crate::http::Client::new(server.addr);
    let start = tb.start().expect("the sample has starts");
    let (cop, thief) = (
        tb.coords(start.cops[0]).expect("a map"),
        tb.coords(start.thief).expect("a map"),
    );
    let answer = server.json(
        &mut client,
        &format!(
            "/api/query?table=t&cop={},{}&thief={},{}&turn=cop",
            cop.0, cop.1, thief.0, thief.1
        ),
    );
    let cop = format!("{},{}", cop.0, cop.1);
    let thief = format!("{},{}", thief.0, thief.1);
    let out = cli(&[
        "query",
        base.to_str().unwrap(),
        "--cop",
        &cop,
        "--thief",
        &thief,
        "--turn",
        "cop",
        "--json",
    ]);
    let queried: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(answer, queried);
    drop(server);

    // A missing shard, a shard of another solve, a copy of another shard:
    // exit 2 naming the file.
    let refused = |name: &str, files: &[(PathBuf, u32)], expected: &str| {
        let sub = dir.join(name);
        std::fs::create_dir_all(&sub).unwrap();
        for (from, k) in files {
            std::fs::copy(from, retrograde::shard_path(&sub.join("t.rtb"), *k, 3)).unwrap();
        }
        for table in [
            sub.join("t.rtb"),
            retrograde::shard_path(&sub.join("t.rtb"), 0, 3),
        ] {
            for command in [
                vec!["info", "--check"],
                vec!["query", "--cop", &cop, "--thief", &thief],
            ] {
                let mut args = vec![command[0], table.to_str().unwrap()];
                args.extend(&command[1..]);
                let out = cli(&args);
                let err = String::from_utf8_lossy(&out.stderr);
                assert_eq!(out.status.code(), Some(2), "{name}: {err}");
                assert!(err.contains(expected), "{name}: {err}");
                assert!(out.stdout.is_empty(), "{name}");
            }
        }
    };
    refused(
        "missing",
        &[(shard(0), 0), (shard(2), 2)],
        "t.1-of-3.rtb: shard: missing",
    );
    refused(
        "foreign",
        &[
            (shard(0), 0),
            (shard(1), 1),
            (retrograde::shard_path(&other, 2, 3), 2),
        ],
        "t.2-of-3.rtb: header: a shard of another solve",
    );
    refused(
        "copied",
        &[(shard(0), 0), (shard(1), 1), (shard(0), 2)],
        "t.2-of-3.rtb: header: holds shard 0 of 3, expected shard 2",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_bare_processes_needs_slurm() {
    let out = Command::new(binary())
        .args([
            "solve",
            &data("data/maps/sample.txt"),
            "--processes",
            "--quiet",
        ])
        .env_remove("SLURM_NTASKS")
        .env_remove("SLURM_NPROCS")
        .env_remove("SLURM_PROCID")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("SLURM_NTASKS"));
    let out = Command::new(binary())
        .args([
            "solve",
            &data("data/maps/sample.txt"),
            "--processes",
            "2",
            "--quiet",
        ])
        .env("SLURM_PROCID", "2")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("$SLURM_PROCID 2"));
}

// ---------------------------------------------------------------------
// Checkpoints: a killed cluster resumes.

/// Whether `dir` holds a finished band snapshot (not a temporary file).
pub(crate) fn has_snapshot(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("band-") && name.ends_with(".rcp")
        })
    })
}

#[test]
fn cli_killed_cluster_resumes_from_its_checkpoints() {
    // The bit engine's band snapshots, in memory and with the bands in
    // scratch files paged under a cap (each band's minimum is 7.3 MiB, its
    // bytes 16 MiB: one level per pass under 8M, three with three halo
    // rows a side under 14M, the snapshots then taken between passes);
    // and a cap below the bands without a scratch folder, which pages
    // them in the temporary folder, as a local solve spills.
    killed_cluster_resumes("distributed-resume", &[], "bitboard");
    killed_cluster_resumes(
        "distributed-resume-scratch",
        &["--scratch", "--memory", "8M"],
        "bitboard",
    );
    killed_cluster_resumes(
        "distributed-resume-scratch-levels",
        &["--scratch", "--memory", "14M"],
        "bitboard",
    );
    killed_cluster_resumes(
        "distributed-resume-spilled",
        &["--memory", "12M"],
        "bitboard",
    );
}

/// Both processes of a cluster killed once each has saved a snapshot;
/// resumed, the report and the table equal an uninterrupted solve's.
/// `extra`: flags for both (`--scratch` takes a folder made here);
/// `kernel`: the engine they choose.
fn killed_cluster_resumes(name: &str, extra: &[&str], kernel: &str) {
    let dir = crate::support::temp_dir(name);
    let map = winding_map(&dir);
    let map = map.display().to_string();
    let ck = dir.join("ck");
    let ck = ck.to_str().unwrap();
    let scratch = dir.join("scratch");
    std::fs::create_dir_all(&scratch).expect("scratch");
    let mut flags = vec![
        map.as_str(),
        "--cop",
        "0,0",
        "--thief",
        "80,59",
        "--dte-table",
        "--json",
    ];
    for &flag in extra {
        flags.push(flag);
        if flag == "--scratch" {
            flags.push(scratch.to_str().unwrap());
        }
    }
    let whole = dir.join("whole.rtb");
    fn saved<'a>(flags: &[&'a str], base: &'a Path) -> Vec<&'a str> {
        [flags, &["--quiet", "--save", base.to_str().unwrap()]].concat()
    }
    // The reference runs the same kernel as the resumed solve, with
    // checkpoints (none due in so short a solve).
    let reference_ck = dir.join("ck-reference");
    let reference = [
        saved(&flags, &whole),
        vec!["--checkpoint", reference_ck.to_str().unwrap()],
    ]
    .concat();
    let uninterrupted = run_cluster(&dir, 2, 1, &reference, false);

    // Snapshots as often as levels end (0.0001 minutes: 6 ms), then
    // SIGKILL to both processes once each has saved one.
    let hostfile = write_hostfile(&dir, 2);
    let checkpointing = checkpointing(&flags, ck);
    // A process that ends before the kill (a busy machine can hold one
    // back until its first snapshot comes at the very end) leaves nothing
    // to resume: the kill is tried again from scratch, three times at most.
    let mut killed_mid_solve = false;
    for _ in 0..3 {
        let _ = std::fs::remove_dir_all(dir.join("ck"));
        let mut children: Vec<Child> = (0..2)
            .map(|i| spawn_process(&hostfile, 2, i, 1, &checkpointing))
            .collect();
        let deadline = Instant::now() + Duration::from_secs(60);
        while !(0..2).all(|i| has_snapshot(&dir.join("ck").join(format!("process-{i}")))) {
            assert!(Instant::now() < deadline, "no snapshots written");
            std::thread::sleep(Duration::from_millis(5));
        }
        let mut finished = false;
        for child in &mut children {
            finished |= child.try_wait().expect("try_wait").is_some();
            let _ = child.kill();
        }
        let outputs: Vec<_> = children
            .into_iter()
            .map(|c| c.wait_with_output().expect("wait"))
            .collect();
        if finished {
            continue;
        }
        for out in outputs {
            assert!(!out.status.success());
            assert!(out.stdout.is_empty());
        }
        killed_mid_solve = true;
        break;
    }
    assert!(
        killed_mid_solve,
        "a process finished before the kill three times: the map is too small"
    );

    // Resumed on both: the same report and the same table, state by state.
    let resumed_base = dir.join("resumed.rtb");
    let mut resuming = saved(&flags, &resumed_base);
    resuming.retain(|f| *f != "--quiet");
    resuming.extend(["--resume", ck]);
    let resumed = run_cluster(&dir, 2, 1, &resuming, false);
    let err = String::from_utf8_lossy(&resumed[0].stderr);
    assert!(err.contains("resuming from"), "{err}");
    let report = |out: &std::process::Output| -> serde_json::Value {
        serde_json::from_slice(&out.stdout).expect("json")
    };
    let (a, b) = (report(&uninterrupted[0]), report(&resumed[0]));
    for key in [
        "result", "dte", "states", "counts", "levels", "exchange", "kernel",
    ] {
        assert_eq!(a[key], b[key], "{key}");
    }
    assert_eq!(b["kernel"], kernel);
    if extra.contains(&"--scratch") {
        let note = String::from_utf8_lossy(&resumed[0].stderr);
        let per_pass = if extra.contains(&"14M") {
            "3 levels per pass"
        } else {
            "1 level per pass"
        };
        assert!(note.contains(per_pass), "{note}");
    }
    let (a, b) = (
        retrograde::Tablebase::open(&whole).expect("whole"),
        retrograde::Tablebase::open(&resumed_base).expect("resumed"),
    );
    assert!(a.header().has_dte && b.header().has_dte);
    assert_eq!(a.header().states, b.header().states);
    for s in 0..a.header().states {
        assert_eq!(
            a.probe_state(s).expect("probe"),
            b.probe_state(s).expect("probe"),
            "state {s}"
        );
    }

    // Another cluster shape or other rules: refused before connecting,
    // exit status 2 naming the snapshot.
    let refused = |processes: usize, extra: &[&str], expected: &str| {
        let err = resume_refused(&dir, processes, &[&flags[..], extra].concat(), ck);
        assert!(err.contains("process-0/band-0.level-"), "{err}");
        assert!(err.contains(expected), "{err}");
    };
    refused(3, &[], "another processes: 2 there, 3 now");
    refused(2, &["--no-pass"], "another rules");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Starts a cluster of `processes` x `workers` with `flags` (saving band
/// snapshots into `ck` as often as levels end), waits until every process
/// has saved one and kills process `victim`; asserts the others failed,
/// having lost the connection. A process that ends before the kill (a
/// busy machine can hold one back until its first snapshot comes at the
/// very end) leaves nothing to resume: the kill is tried again from
/// scratch, three times at most.
pub(crate) fn kill_mid_solve(
    dir: &Path,
    label: &str,
    (processes, workers, victim): (usize, usize, usize),
    flags: &[&str],
    ck: &str,
) {
    for _ in 0..3 {
        let _ = std::fs::remove_dir_all(ck);
        let hostfile = write_hostfile(dir, processes);
        let mut children: Vec<Child> = (0..processes)
            .map(|i| spawn_process(&hostfile, processes, i, workers, flags))
            .collect();
        let deadline = Instant::now() + Duration::from_secs(60);
        while !(0..processes).all(|i| has_snapshot(&Path::new(ck).join(format!("process-{i}")))) {
            assert!(Instant::now() < deadline, "{label}: no snapshots written");
            std::thread::sleep(Duration::from_millis(2));
        }
        let mut finished = false;
        for child in &mut children {
            finished |= child.try_wait().expect("try_wait").is_some();
        }
        let _ = children[victim].kill();
        let outputs: Vec<_> = children
            .into_iter()
            .map(|c| c.wait_with_output().expect("wait"))
            .collect();
        if finished {
            continue;
        }
        for (i, out) in outputs.iter().enumerate() {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{label}: process {i}: {err}");
            assert!(out.stdout.is_empty(), "{label}: process {i}");
            if i != victim {
                assert!(err.contains("lost the connection"), "{label}: {err}");
            }
        }
        return;
    }
    panic!("{label}: a process finished before the kill three times");
}

/// The bit engine's band snapshots: in clusters of 1 to 4 processes of 1
/// or 2 workers (bands that take levels two at a time, and bands too
/// short for it), one process is killed mid-solve; the cluster resumed
/// from the snapshots gives the local solve's values and distances, state
/// by state. A snapshot is refused, exit status 2 naming the file, by a
/// cluster of another shape and by the counter engine.
#[test]
fn cli_bit_engine_resumes_a_killed_process_from_its_band_snapshots() {
    let dir = crate::support::temp_dir("distributed-bit-resume");
    // 1,666 levels, under a second: a kill after the first snapshots
    // lands mid-solve.
    let map = winding(&dir, 33, 50);
    let map = map.display().to_string();
    let flags = [
        map.as_str(),
        "--cop",
        "0,0",
        "--thief",
        "32,49",
        "--dte-table",
    ];
    let local = dir.join("local.rtb");
    let out = cli(&[
        &["solve"],
        &flags[..],
        &["--quiet", "--save", local.to_str().unwrap()],
    ]
    .concat());
    assert!(out.status.success(), "{out:?}");
    for (processes, workers) in [(1, 1), (2, 2), (3, 1), (4, 2)] {
        let label = format!("{processes} x {workers}");
        let ck = dir.join(format!("ck-{processes}"));
        let ck = ck.to_str().unwrap();
        let victim = processes - 1;
        let checkpointing = checkpointing(&flags, ck);
        kill_mid_solve(
            &dir,
            &label,
            (processes, workers, victim),
            &checkpointing,
            ck,
        );
        let base = dir.join(format!("resumed-{processes}.rtb"));
        let resuming = [
            &flags[..],
            &["--save", base.to_str().unwrap(), "--resume", ck],
        ]
        .concat();
        let resumed = run_cluster(&dir, processes, workers, &resuming, false);
        let err = String::from_utf8_lossy(&resumed[0].stderr);
        assert!(err.contains("resuming from"), "{label}: {err}");
        assert!(err.contains("bit engine"), "{label}: {err}");
        assert_same_table(&label, &local, &base, processes);
    }
    // Another cluster shape: refused before connecting, exit status 2
    // naming the snapshot.
    let ck = dir.join("ck-2");
    let ck = ck.to_str().unwrap();
    let err = resume_refused(&dir, 3, &flags, ck);
    assert!(err.contains("process-0/band-0.level-"), "{err}");
    assert!(err.contains("another processes: 2 there, 3 now"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
