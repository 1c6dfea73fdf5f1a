//! The bit-parallel k-cop engine out of core and resumed
//! (`copnumber::solve_kcops_with`): with its arrays in scratch files (all
//! of them, or only the largest) and resumed from a checkpoint taken
//! mid-solve, it gives the in-memory solve's value and distance of every
//! state, its levels, start distance and placement; on the small random
//! maps and graphs of `agree_kbit.rs` (k = 2, 3, every rule variant,
//! speeds 1 and 2) and on larger random graphs whose arrays span pages.

use std::path::{Path, PathBuf};

use retrograde::copnumber::{
    kcop_memory_for, kcop_plan, solve_kcops, solve_kcops_with, Due, KCheckpoint, KSnapshot,
    KSolution, KState, KcopOptions, KcopRun, KcopSink, KcopStorage,
};
use retrograde::{Arena, Game, KCops, Turn};

use crate::support::kcops_games::{crate_map_game, instances, max_cells, random_map, small_graph};
use crate::support::{temp_dir, Rng};

/// Instances per (k, speeds) and kind.
const PER_CASE: usize = if cfg!(debug_assertions) { 2 } else { 12 };

/// Stops the solve after `level` with a snapshot in `path`.
struct StopAt {
    level: u32,
    path: PathBuf,
}

impl KcopSink for StopAt {
    fn poll(&self, level: u32) -> Due {
        if level == self.level {
            Due::SaveAndStop
        } else {
            Due::No
        }
    }

    fn save(&self, snapshot: &KSnapshot<'_>) -> retrograde::Result<()> {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&self.path).unwrap());
        snapshot
            .write_to(&[("test".into(), "kcops".into())], &mut out)
            .unwrap();
        Ok(())
    }
}

/// A storage that keeps in memory only what cannot go to files, or (with
/// `largest_only`) only the largest array out.
fn scratch(arena: &Arena, k: usize, dir: &Path, largest_only: bool) -> KcopStorage {
    let needed = kcop_memory_for(arena, k, true);
    let mut storage = KcopStorage {
        memory: Some(0),
        scratch: Some(dir.to_path_buf()),
    };
    let least = kcop_plan(arena, k, true, &storage).in_memory();
    storage.memory = Some(if largest_only { needed - 1 } else { least });
    let plan = kcop_plan(arena, k, true, &storage);
    assert!(plan.fits && plan.scratch > 0, "{plan:?}");
    storage
}

fn assert_same(label: &str, game: &KCops, a: &KSolution, b: &KSolution) {
    assert_eq!(a.levels, b.levels, "{label}: levels");
    assert_eq!(a.start_dte, b.start_dte, "{label}: start");
    assert_eq!(a.placement, b.placement, "{label}: placement");
    assert_eq!(a.counts(), b.counts(), "{label}: counts");
    for s in 0..game.state_count() {
        assert_eq!(a.state_value(s), b.state_value(s), "{label}: state {s}");
    }
}

/// In memory, all in scratch files, the largest array in a file, and
/// resumed mid-solve (from scratch files) agree on `game`.
fn check(label: &str, game: &KCops, dir: &Path) {
    let k = game.cops() as usize;
    let arena = game.arena().clone();
    let start = (arena.cells() > 0).then(|| {
        let (cops, thief, turn) = game.decode(game.state_count() / 3);
        KState {
            cops,
            thief,
            cops_to_move: turn == Turn::Cop,
        }
    });
    let options = KcopOptions {
        cops: k,
        dte_table: true,
        start,
        stop_when_placed: false,
        thief_lists: None,
    };
    let memory = solve_kcops(&arena, &options);
    // No cells, no bytes to place.
    let layouts: &[bool] = if arena.cells() == 0 {
        &[]
    } else {
        &[false, true]
    };
    for &largest_only in layouts {
        let run = KcopRun {
            storage: scratch(&arena, k, dir, largest_only),
            ..KcopRun::default()
        };
        let files = solve_kcops_with(&arena, &options, &run).unwrap();
        assert_same(
            &format!("{label} (scratch {largest_only})"),
            game,
            &memory,
            &files,
        );
    }
    if memory.levels < 2 || arena.cells() == 0 {
        return;
    }
    let path = dir.join("checkpoint");
    let sink = StopAt {
        level: memory.levels / 2,
        path: path.clone(),
    };
    let stopped = solve_kcops_with(
        &arena,
        &options,
        &KcopRun {
            sink: Some(&sink),
            ..KcopRun::default()
        },
    );
    assert!(matches!(stopped, Err(retrograde::Error::Stopped { level }) if level == sink.level));
    let from = KCheckpoint::open(&path).unwrap();
    assert_eq!(from.level(), sink.level);
    let resumed = solve_kcops_with(
        &arena,
        &options,
        &KcopRun {
            storage: scratch(&arena, k, dir, false),
            resume: Some(&from),
            ..KcopRun::default()
        },
    )
    .unwrap();
    assert_same(&format!("{label} (resumed)"), game, &memory, &resumed);
    // A checkpoint of other options is refused, not misread.
    let no_table = KcopOptions {
        dte_table: false,
        ..options.clone()
    };
    let refused = solve_kcops_with(
        &arena,
        &no_table,
        &KcopRun {
            resume: Some(&from),
            ..KcopRun::default()
        },
    );
    assert!(
        matches!(refused, Err(retrograde::Error::Checkpoint { .. })),
        "{label}"
    );
}

fn graph_game(
    n: usize,
    edges: &[(usize, usize)],
    exits: &[usize],
    k: u32,
    speeds: (u32, u32),
) -> KCops {
    let edges: Vec<(u32, u32)> = edges.iter().map(|&(u, v)| (u as u32, v as u32)).collect();
    let exits: Vec<u32> = exits.iter().map(|&e| e as u32).collect();
    let arena = Arena::from_edges(n as u32, &edges)
        .unwrap()
        .with_exits(&exits)
        .unwrap()
        .with_speeds(speeds.0, speeds.1);
    KCops::new(arena, k).unwrap()
}

#[test]
fn scratch_and_resume_agree_on_random_maps() {
    let dir = temp_dir("kcops-scratch-maps");
    for k in 2..=3u32 {
        instances(k, 0x6b73_6372, PER_CASE, |rng, i, speeds| {
            let (label, arena, variant) = random_map(rng, k, i, speeds);
            check(&label, &crate_map_game(&arena, variant, k, speeds), &dir);
        });
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scratch_and_resume_agree_on_random_graphs() {
    let dir = temp_dir("kcops-scratch-graphs");
    for k in 2..=3u32 {
        instances(k, 0x6b73_6367, PER_CASE, |rng, i, speeds| {
            let (n, edges, exits, _, _) = small_graph(rng, max_cells(k));
            let label = format!("graph {i} k={k} speeds {speeds:?} {n} {edges:?} {exits:?}");
            check(&label, &graph_game(n, &edges, &exits, k, speeds), &dir);
        });
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Graphs of 20 to 70 vertices: arrays of many pages and many levels,
/// with and without exits (the incremental cop move runs only without).
#[test]
fn scratch_and_resume_agree_on_larger_graphs() {
    let dir = temp_dir("kcops-scratch-large");
    let mut rng = Rng::new(0x6b73_6c67);
    for i in 0..6 {
        let k = if i % 3 == 2 { 3 } else { 2 };
        let n = if k == 3 {
            rng.range(12, 20)
        } else {
            rng.range(20, 70)
        };
        // A path with a few chords: long games.
        let mut edges: Vec<(usize, usize)> = (1..n).map(|v| (v - 1, v)).collect();
        for _ in 0..rng.range(0, n / 4) {
            let (u, v) = (rng.below(n), rng.below(n));
            if u != v {
                edges.push((u.min(v), u.max(v)));
            }
        }
        let exits = if i % 2 == 0 {
            vec![]
        } else {
            vec![rng.below(n)]
        };
        let label = format!("large graph {i} k={k} {n} {edges:?} {exits:?}");
        check(&label, &graph_game(n, &edges, &exits, k, (1, 1)), &dir);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
