//! Several cops partitioned on the bit engine (feature `distributed`):
//! `distributed::solve_bits` of a several-cops `CopsGame`, 1 to 4 processes (threads of this test
//! over loopback TCP) x 1 and 2 workers, against the local bit engine
//! state by state (value and distance of every state, counts, levels, the
//! tracked state's value and distance), on random maps and graphs (k = 2
//! and 3, speeds 1 and 2, rule variants, lazy cops), the sample map with
//! and without exits, the Petersen graph with 3 cops and a graph of rows
//! of several words; the bands' bounds; the CLI's choice of engine; and
//! band snapshots: a cluster stopped after a level and resumed, through
//! the library and through the CLI (a killed process), and snapshots of
//! another band or game refused.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use retrograde::distributed::{
    self, BandCheckpoint, BandSink, BandSource, Cluster, GridBandCheckpoint, PartitionOptions,
    PartitionedSolution,
};
use retrograde::{
    load_map, solve, Arena, Backing, Board, CopsGame, Due, Engine, Game, Placement, Rules, Sink,
    Snapshot, SolveOptions,
};

use crate::distributed::{binary, bit_threads, data, free_addresses};
use crate::support::kcops_games::{
    arena_game, random_graph_games, random_graph_games_lazy, random_map_games,
    random_map_games_lazy,
};

/// (processes, workers per process): 1 to 4 processes x 1 and 2 workers.
const SHAPES: [(usize, usize); 8] = [
    (1, 1),
    (2, 1),
    (3, 1),
    (4, 1),
    (1, 2),
    (2, 2),
    (3, 2),
    (4, 2),
];

/// Runs every process of a bit-engine cluster as a thread of this test.
fn solve_cluster(
    game: &CopsGame,
    track: Option<u64>,
    processes: usize,
    workers: usize,
) -> Vec<PartitionedSolution> {
    let options = PartitionOptions {
        dte_table: true,
        track,
        session: distributed::session(game, track).unwrap(),
        ..PartitionOptions::default()
    };
    bit_threads(game, processes, workers, &options)
}

/// Every shape of `shapes` against the local bit engine with a distance
/// table, state by state; the `track`ed state's value and distance too.
fn check_game(label: &str, game: &CopsGame, track: Option<u64>, shapes: &[(usize, usize)]) {
    let local = solve(
        game,
        &SolveOptions::new(Engine::Bitboard)
            .with_dte_table(true)
            .with_tracked_state(track),
    )
    .expect("local solve");
    for &(processes, workers) in shapes {
        let label = format!("{label} ({processes} processes x {workers} workers)");
        let parts = solve_cluster(game, track, processes, workers);
        let bounds = distributed::bit_bands(game, processes);
        let mut next = 0;
        for (p, part) in parts.iter().enumerate() {
            assert_eq!(part.range(), bounds[p]..bounds[p + 1], "{label}: band {p}");
            for band in &part.bands {
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
        }
        assert_eq!(next, game.state_count(), "{label}: bands cover the states");
        let summary = parts[0].summary.as_ref().expect("process 0's summary");
        assert_eq!(summary.counts, local.counts(), "{label}: counts");
        assert_eq!(summary.levels, local.levels(), "{label}: levels");
        assert_eq!(
            summary.decided_per_level.len() as u32,
            local.levels() + 2,
            "{label}: level 0, each level, the quiet one"
        );
        if let Some(t) = track {
            assert_eq!(summary.tracked_dte, local.dte(t), "{label}: tracked dte");
            assert_eq!(summary.tracked_outcome, Some(local.outcome(t)), "{label}");
        }
        assert!(parts.iter().all(|p| p.levels == local.levels()), "{label}");
        assert_eq!(summary.network_bytes == 0, processes == 1, "{label}");
    }
}

/// A state to track: the middle one.
fn middle(game: &CopsGame) -> Option<u64> {
    Some(game.state_count() / 2)
}

#[test]
fn several_cops_on_the_bit_engine_agree_with_it_state_by_state_on_random_games() {
    for k in [2, 3] {
        random_map_games(k, 0xb175, 1, |label, game, _| {
            check_game(label, game, middle(game), &SHAPES);
        });
        random_graph_games(k, 0xb176, 1, |label, game, _| {
            check_game(label, game, middle(game), &SHAPES);
        });
    }
    random_map_games_lazy(2, 0xb177, 1, true, |label, game, _| {
        check_game(label, game, middle(game), &SHAPES[..4]);
    });
    random_graph_games_lazy(3, 0xb178, 1, true, |label, game, _| {
        check_game(label, game, middle(game), &SHAPES[..4]);
    });
}

/// The sample map's arena (its own exits, or none), rules by default.
fn sample_arena(exits: bool) -> Arena {
    let mut map = load_map(Path::new(&data("data/maps/sample.txt"))).expect("sample map");
    if !exits {
        map.exits.clear();
    }
    let board = Board::new(&map, &Placement::default()).expect("board");
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

/// A cycle of `n` vertices with a chord every 7 and a few exits: rows of
/// several words, many levels.
pub(crate) fn long_cycle(n: u32) -> Arena {
    let mut edges: Vec<(u32, u32)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
    edges.extend((0..n).step_by(7).map(|i| (i, (i + n / 3) % n)));
    Arena::from_edges(n, &edges)
        .expect("graph")
        .with_exits(&[3, n / 2])
        .expect("exits")
}

#[test]
fn several_cops_on_the_bit_engine_agree_with_it_on_fixed_games() {
    for exits in [true, false] {
        let game = arena_game(sample_arena(exits), 2).with_start(&[0, 30], 50);
        let game = game.expect("start");
        let start = game.start_state().expect("a start");
        let label = format!("sample, exits {exits}");
        check_game(&label, &game, Some(start), &SHAPES);
    }
    let game = arena_game(petersen(), 3).with_start(&[0, 1, 2], 7);
    let game = game.expect("start");
    check_game("Petersen, 3 cops", &game, game.start_state(), &SHAPES[..4]);
    let cycle = arena_game(long_cycle(150), 2);
    check_game(
        "cycle of 150",
        &cycle,
        middle(&cycle),
        &[(1, 1), (2, 1), (3, 2)],
    );
    let fast = arena_game(long_cycle(130).with_speeds(2, 1), 2);
    check_game(
        "cycle of 130, cops at speed 2",
        &fast,
        middle(&fast),
        &[(2, 2), (4, 1)],
    );
}

#[test]
fn several_bands_cut_at_blocks_of_one_top_cell() {
    let game = arena_game(sample_arena(true), 2);
    let n = u64::from(game.cells());
    for processes in 1..=5 {
        let bounds = distributed::bit_bands(&game, processes);
        assert_eq!(bounds.len(), processes + 1);
        assert_eq!((bounds[0], bounds[processes]), (0, game.state_count()));
        for w in bounds.windows(2) {
            assert!(w[0] <= w[1]);
            // A band starts at the first multiset of a top cell t: rank
            // C(t + 1, 2), the multisets of two cells below t.
            let rank = w[0] / (2 * n);
            assert_eq!(w[0] % (2 * n), 0);
            assert!((0..=n).any(|t| t * (t + 1) / 2 == rank), "{rank}");
        }
        // Balanced: no band holds more than its share plus one block.
        let share = game.state_count() / processes as u64;
        assert!(bounds.windows(2).all(|w| w[1] - w[0] <= share + 2 * n * n));
    }
}

/// The CLI runs the bit engine for several cops, with checkpoints and
/// with scratch files too.
#[test]
fn cli_several_cops_choose_the_bit_engine_with_checkpoints_and_scratch() {
    let dir = crate::support::temp_dir("distributed-kbits-cli");
    let sample = data("data/maps/sample.txt");
    let base = [sample.as_str(), "--cops", "2", "--json", "--quiet"];
    let checkpoint = dir.join("ck").display().to_string();
    let scratch = dir.display().to_string();
    let cases: [(&[&str], &str); 3] = [
        (&[], "bitboard"),
        (&["--checkpoint", &checkpoint], "bitboard"),
        (&["--scratch", &scratch], "bitboard"),
    ];
    for (extra, kernel) in cases {
        let flags = [&base[..], extra].concat();
        let outputs = crate::distributed::run_cluster(&dir, 2, 1, &flags, false);
        let report: serde_json::Value =
            serde_json::from_slice(&outputs[0].stdout).expect("json report");
        assert_eq!(report["kernel"], kernel, "{extra:?}");
        let want = std::process::Command::new(binary())
            .arg("solve")
            .args(base)
            .output()
            .expect("local");
        let want: serde_json::Value = serde_json::from_slice(&want.stdout).expect("json");
        for key in ["counts", "levels", "states"] {
            assert_eq!(report[key], want[key], "{extra:?}: {key}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// Band snapshots of the several-cops bit engine.

/// One process's band snapshots in `dir` (`band-0.level-L.rcp`), one
/// after every level; the save of level `stop` fails once written, as a
/// process killed after it would leave it (its peers, saving the same
/// level, stop there too). As a source, it hands back its snapshots.
struct Snapshots {
    dir: PathBuf,
    stop: u32,
}

impl Snapshots {
    fn file(&self, level: u32) -> PathBuf {
        self.dir.join(format!("band-0.level-{level}.rcp"))
    }
}

impl Sink for Snapshots {
    fn poll(&self, _level: u32) -> Due {
        Due::Save
    }

    fn save(&self, snapshot: &dyn Snapshot) -> retrograde::Result<()> {
        assert_eq!(snapshot.band(), Some(0), "a band snapshot");
        let mut bytes = Vec::new();
        let fingerprint = [("test".to_string(), "kbits".to_string())];
        snapshot.write_to(&fingerprint, &mut bytes).expect("encode");
        std::fs::write(self.file(snapshot.level()), bytes).expect("write");
        if snapshot.level() == self.stop {
            return Err(retrograde::Error::Stopped { level: self.stop });
        }
        Ok(())
    }
}

impl BandSink for Snapshots {
    fn confirmed(&self, _band: usize, _level: u32) {}
}

impl BandSource for Snapshots {
    /// The newest level saved here (a process may have lost its peers
    /// before saving `stop`; the cluster resumes from the oldest newest).
    fn latest(&self) -> u32 {
        std::fs::read_dir(&self.dir)
            .expect("snapshots")
            .filter_map(|e| {
                let name = e.ok()?.file_name().into_string().ok()?;
                name.strip_prefix("band-0.level-")?
                    .strip_suffix(".rcp")?
                    .parse()
                    .ok()
            })
            .max()
            .expect("a snapshot")
    }

    fn load(&self, _band: usize, _level: u32) -> retrograde::Result<BandCheckpoint> {
        panic!("the bit engine reads its own band snapshots")
    }

    fn load_grid(&self, level: u32) -> retrograde::Result<GridBandCheckpoint> {
        GridBandCheckpoint::open_several(&self.file(level))
    }

    fn chosen(&self, _level: u32) {}
}

/// Runs every process of a bit-engine cluster as a thread of this test,
/// process `p` saving into `dirs[p]` (stopping after level `stop`) when
/// `save`, and resuming from its snapshot of level `stop` when `resume`,
/// each with `dte_table`; what each process returned. Tried again on
/// fresh ports when one was taken between their choice and the listen
/// (tests run side by side).
fn snapshot_cluster(
    game: &CopsGame,
    dirs: &[PathBuf],
    stop: u32,
    flags: (bool, bool, bool),
) -> Vec<retrograde::Result<PartitionedSolution>> {
    snapshot_cluster_in(game, dirs, stop, flags, None)
}

/// [`snapshot_cluster`], with every band in scratch files under the
/// folder of `scratch`, paged under its cap, when given.
fn snapshot_cluster_in(
    game: &CopsGame,
    dirs: &[PathBuf],
    stop: u32,
    (save, resume, dte_table): (bool, bool, bool),
    scratch: Option<(&Path, u64)>,
) -> Vec<retrograde::Result<PartitionedSolution>> {
    let processes = dirs.len();
    let track = middle(game);
    for _ in 0..3 {
        let addresses = free_addresses(processes);
        let results: Vec<_> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..processes)
                .map(|process| {
                    let snapshots = Arc::new(Snapshots {
                        dir: dirs[process].clone(),
                        stop,
                    });
                    let options = PartitionOptions {
                        dte_table,
                        track,
                        session: distributed::session(game, track).unwrap(),
                        checkpoint: save.then(|| Arc::clone(&snapshots) as Arc<dyn BandSink>),
                        resume: resume.then_some(snapshots as Arc<dyn BandSource>),
                        backing: scratch
                            .map_or(Backing::Memory, |(d, _)| Backing::Scratch(d.to_path_buf())),
                        memory: scratch.map(|(_, cap)| cap),
                        ..PartitionOptions::default()
                    };
                    let cluster = Cluster {
                        addresses: addresses.clone(),
                        process,
                        workers: 1,
                        connect_timeout: Duration::from_secs(30),
                    };
                    scope.spawn(move || distributed::solve_bits(game, &cluster, &options))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("process thread"))
                .collect()
        });
        let taken = results.iter().any(|r| {
            r.as_ref()
                .is_err_and(|e| e.to_string().contains("cannot listen"))
        });
        if !taken {
            return results;
        }
    }
    panic!("ports taken three times");
}

/// A several-cops cluster of 1 to 3 processes saving a band snapshot
/// after every level, stopped after a level midway (every process's
/// save of it fails, as a killed process would leave it), then resumed
/// from those snapshots: values and distances equal the local bit
/// engine's state by state, and the report (counts, levels, decided
/// states per level, the tracked state, bytes exchanged) an uninterrupted
/// cluster's. In memory, and with the bands in scratch files paged under
/// a cap at their minimum (stopped and resumed so).
#[test]
fn several_cops_bit_bands_stopped_midway_resume_to_the_local_solve() {
    stopped_midway_resume("distributed-kbits-resume", false);
    stopped_midway_resume("distributed-kbits-resume-scratch", true);
}

/// [`several_cops_bit_bands_stopped_midway_resume_to_the_local_solve`],
/// out of core when `scratch`.
fn stopped_midway_resume(name: &str, scratch: bool) {
    let dir = crate::support::temp_dir(name);
    let files = dir.join("scratch");
    std::fs::create_dir_all(&files).expect("scratch");
    let games = [
        ("sample, 2 cops", arena_game(sample_arena(true), 2)),
        ("cycle of 40, 3 cops", arena_game(long_cycle(40), 3)),
        (
            "sample without exits, 2 cops",
            arena_game(sample_arena(false), 2),
        ),
    ];
    for (label, game) in &games {
        let local = solve(
            game,
            &SolveOptions::new(Engine::Bitboard).with_dte_table(true),
        )
        .expect("local solve");
        assert!(local.levels() >= 4, "{label}: {} levels", local.levels());
        let stop = local.levels() / 2;
        for processes in 1..=3 {
            let label = format!("{label}, {processes} processes");
            let whole = solve_cluster(game, middle(game), processes, 1);
            let dirs: Vec<PathBuf> = (0..processes)
                .map(|p| dir.join(format!("{processes}-{p}")))
                .collect();
            for d in &dirs {
                let _ = std::fs::remove_dir_all(d);
                std::fs::create_dir_all(d).expect("dir");
            }
            let cap = crate::distributed_scratch::minimum_cap(game, &files, processes, 1);
            let storage = scratch.then_some((files.as_path(), cap));
            let stopped = snapshot_cluster_in(game, &dirs, stop, (true, false, true), storage);
            assert!(stopped.iter().all(Result::is_err), "{label}: stopped");
            let resumed = snapshot_cluster_in(game, &dirs, stop, (false, true, true), storage);
            let parts: Vec<PartitionedSolution> = resumed
                .into_iter()
                .map(|r| r.unwrap_or_else(|e| panic!("{label}: resumed solve: {e}")))
                .collect();
            for part in &parts {
                for band in &part.bands {
                    for s in band.range() {
                        assert_eq!(
                            (band.outcome(s), band.dte(s)),
                            (local.outcome(s), local.dte(s)),
                            "{label}: state {s}"
                        );
                    }
                }
            }
            let (a, b) = (
                whole[0].summary.as_ref().expect("summary"),
                parts[0].summary.as_ref().expect("summary"),
            );
            assert_eq!(b.counts, local.counts(), "{label}");
            assert_eq!(
                (
                    b.levels,
                    &b.decided_per_level,
                    b.tracked_dte,
                    b.tracked_outcome
                ),
                (
                    a.levels,
                    &a.decided_per_level,
                    a.tracked_dte,
                    a.tracked_outcome
                ),
                "{label}"
            );
            assert_eq!(
                (&b.bytes_per_level, b.network_bytes),
                (&a.bytes_per_level, a.network_bytes),
                "{label}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The counter engine's band snapshots keep a byte a state: it refuses
/// checkpoints of a game with more than 63 moves a state (three cops on
/// the Petersen graph: 64 joint moves) before connecting, and says that
/// the bit engine keeps them, out of core too.
#[test]
fn the_counter_engine_refuses_checkpoints_of_wide_games_pointing_at_the_bit_engine() {
    let dir = crate::support::temp_dir("distributed-kbits-wide");
    let game = arena_game(petersen(), 3);
    assert!(distributed::wide_cells(&game));
    let sink = Arc::new(Snapshots {
        dir: dir.clone(),
        stop: u32::MAX,
    });
    let options = PartitionOptions {
        checkpoint: Some(sink as Arc<dyn BandSink>),
        ..PartitionOptions::default()
    };
    let cluster = Cluster {
        addresses: free_addresses(2),
        process: 0,
        workers: 1,
        connect_timeout: Duration::from_secs(5),
    };
    let bounds = distributed::bands(&game, 2).expect("bands");
    let err = distributed::solve(Arc::new(game), &bounds, &cluster, &options)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("checkpoints of games with more than 63 moves a state"),
        "{err}"
    );
    assert!(err.contains("--scratch"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A band snapshot is refused, naming its file, by another process's
/// band, by a game of another shape (more cops, another map) and by a
/// solve without the distances it kept.
#[test]
fn several_cops_bit_band_snapshots_of_another_band_or_game_are_refused() {
    let dir = crate::support::temp_dir("distributed-kbits-refuse");
    let game = arena_game(sample_arena(true), 2);
    let dirs = [dir.join("p0"), dir.join("p1")];
    for d in &dirs {
        std::fs::create_dir_all(d).expect("dir");
    }
    let stopped = snapshot_cluster(&game, &dirs, 2, (true, false, true));
    assert!(stopped.iter().all(Result::is_err));
    let file = |p: usize| dirs[p].join("band-0.level-2.rcp").display().to_string();
    // Each process handed the other's snapshot.
    let swapped = [dirs[1].clone(), dirs[0].clone()];
    let refused = snapshot_cluster(&game, &swapped, 2, (false, true, true));
    for (p, r) in refused.iter().enumerate() {
        let err = r.as_ref().err().expect("refused").to_string();
        assert!(err.contains(&file(1 - p)), "{err}");
        assert!(
            err.contains(&format!("holds process {} of 2", 1 - p)),
            "{err}"
        );
    }
    // One process resuming process 0's band of a 2-process cluster.
    let one = |game: &CopsGame, dte: bool| {
        let r = snapshot_cluster(game, &dirs[..1], 2, (false, true, dte)).remove(0);
        let err = r.err().expect("refused").to_string();
        assert!(err.contains(&file(0)), "{err}");
        err
    };
    assert!(one(&game, true).contains("holds process 0 of 2, this is process 0 of 1"));
    // A single process's own snapshot, then other games and settings.
    let solo = [dir.join("solo")];
    std::fs::create_dir_all(&solo[0]).expect("dir");
    assert!(snapshot_cluster(&game, &solo, 2, (true, false, true))[0].is_err());
    let solo_file = solo[0].join("band-0.level-2.rcp").display().to_string();
    let refuse = |game: &CopsGame, dte: bool, expected: &str| {
        let r = snapshot_cluster(game, &solo, 2, (false, true, dte)).remove(0);
        let err = r.err().expect("refused").to_string();
        assert!(err.contains(&solo_file), "{err}");
        assert!(err.contains(expected), "{err}");
    };
    refuse(
        &arena_game(sample_arena(true), 3),
        true,
        "holds cop multisets",
    );
    refuse(&arena_game(long_cycle(40), 2), true, "holds cop multisets");
    refuse(&game, false, "another distance-table setting");
    // The one-cop reader names a several-cops snapshot.
    let err = GridBandCheckpoint::open(Path::new(&solo_file)).unwrap_err();
    assert!(err.to_string().contains("several cops"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Through the CLI: a cluster of 2 processes of two cops saving band
/// snapshots as often as levels end, one process killed mid-solve; the
/// cluster resumed from the snapshots writes the local solve's table,
/// state by state. Another cluster shape refuses the snapshots, exit
/// status 2 naming the file.
#[test]
fn cli_several_cops_bit_engine_resumes_a_killed_process() {
    use crate::distributed::{
        assert_same_table, checkpointing, kill_mid_solve, resume_refused, run_cluster, winding,
    };
    let dir = crate::support::temp_dir("distributed-kbits-kill");
    // 216 cells, 1.0e7 states, hundreds of levels: a kill after the first
    // snapshots lands mid-solve. An exit at the corridor's dead end makes
    // the thief win somewhere, so FORALL reads the thief rows of the other
    // band that the resume swaps back.
    let map = winding(&dir, 13, 30);
    let map = map.display().to_string();
    let flags = [
        map.as_str(),
        "--cops",
        "2",
        "--exit",
        "12,29",
        "--dte-table",
    ];
    let local = dir.join("local.rtb");
    let out = crate::support::run(
        &[
            &["solve"],
            &flags[..],
            &["--quiet", "--save", local.to_str().unwrap()],
        ]
        .concat(),
        None,
    );
    assert!(out.status.success(), "{out:?}");
    let ck = dir.join("ck");
    let ck = ck.to_str().unwrap();
    let (processes, victim) = (2, 1);
    let saving = checkpointing(&flags, ck);
    kill_mid_solve(&dir, "two cops", (processes, 1, victim), &saving, ck);
    let base = dir.join("resumed.rtb");
    let resuming = [
        &flags[..],
        &["--save", base.to_str().unwrap(), "--resume", ck],
    ]
    .concat();
    let resumed = run_cluster(&dir, processes, 1, &resuming, false);
    let err = String::from_utf8_lossy(&resumed[0].stderr);
    assert!(err.contains("resuming from"), "{err}");
    assert!(err.contains("bit engine"), "{err}");
    assert_same_table("2 x 1, two cops", &local, &base, processes);
    let err = resume_refused(&dir, 3, &flags, ck);
    assert!(err.contains("process-0/band-0.level-"), "{err}");
    assert!(err.contains("another processes: 2 there, 3 now"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
