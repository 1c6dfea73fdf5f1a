//! Several cops partitioned on the bit engine (feature `distributed`):
//! `distributed::solve_bits` of a several-cops `CopsGame`, 1 to 4 processes (threads of this test
//! over loopback TCP) x 1 and 2 workers, against the local bit engine
//! state by state (value and distance of every state, counts, levels, the
//! tracked state's value and distance), on random maps and graphs (k = 2
//! and 3, speeds 1 and 2, rule variants, lazy cops), the sample map with
//! and without exits, the Petersen graph with 3 cops and a graph of rows
//! of several words; the bands' bounds; and the CLI's choice of engine.

use std::path::Path;
use std::time::Duration;

use retrograde::distributed::{self, Cluster, PartitionOptions, PartitionedSolution};
use retrograde::{
    load_map, solve, Arena, Board, CopsGame, Engine, Game, Placement, Rules, SolveOptions,
};

use crate::distributed::{binary, data, free_addresses};
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
                let options = &options;
                scope.spawn(move || distributed::solve_bits(game, &cluster, options))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("process thread").expect("solve"))
            .collect()
    })
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
fn long_cycle(n: u32) -> Arena {
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

/// The CLI runs the bit engine for several cops, and the counter engine
/// when checkpoints or scratch files ask for it.
#[test]
fn cli_several_cops_choose_the_bit_engine_unless_checkpoints_or_scratch() {
    let dir = crate::support::temp_dir("distributed-kbits-cli");
    let sample = data("data/maps/sample.txt");
    let base = [sample.as_str(), "--cops", "2", "--json", "--quiet"];
    let checkpoint = dir.join("ck").display().to_string();
    let scratch = dir.display().to_string();
    let cases: [(&[&str], &str); 3] = [
        (&[], "bitboard"),
        (&["--checkpoint", &checkpoint], "counter"),
        (&["--scratch", &scratch], "counter"),
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
