//! The several-cops kernel of the bitboard engine out of core and
//! resumed, through `solve()`: with its arrays in scratch files (all of
//! them, or only the largest, as `plan_storage` places them) and resumed
//! from a checkpoint taken mid-solve, it gives the in-memory solve's value
//! and distance of every state, its levels, start distance and placement; on the small random
//! maps and graphs of `agree/kbit.rs` (k = 2, 3, every rule variant,
//! speeds 1 and 2) and on larger random graphs whose arrays span pages.

use std::path::{Path, PathBuf};

use retrograde::{
    estimate, plan_storage, solve, Arena, Backing, Checkpoint, CopsGame, Due, Engine, Game, Sink,
    Snapshot, Solution, SolveOptions, StorageLimits,
};

use crate::support::kcops_games::{
    arena_game, crate_map_game, instances, max_cells, random_map, small_graph,
};
use crate::support::{temp_dir, Rng};

/// Instances per (k, speeds) and kind.
const PER_CASE: usize = if cfg!(debug_assertions) { 2 } else { 12 };

/// Stops the solve after `level` with a snapshot in `path`.
struct StopAt {
    level: u32,
    path: PathBuf,
}

impl Sink for StopAt {
    fn poll(&self, level: u32) -> Due {
        if level == self.level {
            Due::SaveAndStop
        } else {
            Due::No
        }
    }

    fn save(&self, snapshot: &dyn Snapshot) -> retrograde::Result<()> {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&self.path).unwrap());
        snapshot
            .write_to(&[("test".into(), "kcops".into())], &mut out)
            .unwrap();
        Ok(())
    }
}

/// `options` in scratch files under `dir`, keeping in memory only what
/// cannot go to files, or (with `largest_only`) only the largest array
/// out, as `plan_storage` places them.
fn scratch<'a>(
    game: &CopsGame,
    options: SolveOptions<'a>,
    dir: &Path,
    largest_only: bool,
) -> SolveOptions<'a> {
    let needed = estimate(game, &options).total();
    let limits = StorageLimits {
        memory: largest_only.then_some(needed - 1),
        scratch: Some(dir.to_path_buf()),
        ..StorageLimits::default()
    };
    let plan = plan_storage(game, &options, &limits).unwrap();
    assert!(
        matches!(plan.backing, Backing::Scratch(_)) && plan.resident < needed,
        "{plan:?}"
    );
    options.with_plan(&plan)
}

fn assert_same(label: &str, game: &CopsGame, start: Option<u64>, a: &Solution, b: &Solution) {
    assert_eq!(a.levels(), b.levels(), "{label}: levels");
    assert_eq!(
        start.map(|s| a.dte(s)),
        start.map(|s| b.dte(s)),
        "{label}: start"
    );
    assert_eq!(
        a.winning_placement(),
        b.winning_placement(),
        "{label}: placement"
    );
    assert_eq!(
        a.counts_by_parity(),
        b.counts_by_parity(),
        "{label}: counts"
    );
    for s in 0..game.state_count() {
        assert_eq!(
            (a.outcome(s), a.dte(s)),
            (b.outcome(s), b.dte(s)),
            "{label}: state {s}"
        );
    }
}

/// In memory, all in scratch files, the largest array in a file, and
/// resumed mid-solve (from scratch files) agree on `game`, all through
/// `solve()` with the bitboard engine (its several-cops kernel).
fn check(label: &str, game: &CopsGame, dir: &Path) {
    let cells = game.cells();
    let start = (cells > 0).then(|| game.state_count() / 3);
    let options = || {
        SolveOptions::new(Engine::Bitboard)
            .with_dte_table(true)
            .with_tracked_state(start)
    };
    let memory = solve(game, &options()).unwrap();
    // No cells, no bytes to place.
    let layouts: &[bool] = if cells == 0 { &[] } else { &[false, true] };
    for &largest_only in layouts {
        let files = solve(game, &scratch(game, options(), dir, largest_only)).unwrap();
        assert_same(
            &format!("{label} (scratch {largest_only})"),
            game,
            start,
            &memory,
            &files,
        );
    }
    if memory.levels() < 2 || cells == 0 {
        return;
    }
    let path = dir.join("checkpoint");
    let sink = StopAt {
        level: memory.levels() / 2,
        path: path.clone(),
    };
    let stopped = solve(game, &options().with_checkpoint(Some(&sink)));
    assert!(matches!(stopped, Err(retrograde::Error::Stopped { level }) if level == sink.level));
    let from = Checkpoint::open(&path).unwrap();
    assert_eq!(from.level(), sink.level);
    let resumed = solve(
        game,
        &scratch(game, options(), dir, false).with_resume(Some(&from)),
    )
    .unwrap();
    assert_same(
        &format!("{label} (resumed)"),
        game,
        start,
        &memory,
        &resumed,
    );
    // A checkpoint of other options is refused, not misread.
    let no_table = SolveOptions::new(Engine::Bitboard)
        .with_tracked_state(start)
        .with_resume(Some(&from));
    let refused = solve(game, &no_table);
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
) -> CopsGame {
    let edges: Vec<(u32, u32)> = edges.iter().map(|&(u, v)| (u as u32, v as u32)).collect();
    let exits: Vec<u32> = exits.iter().map(|&e| e as u32).collect();
    let arena = Arena::from_edges(n as u32, &edges)
        .unwrap()
        .with_exits(&exits)
        .unwrap()
        .with_speeds(speeds.0, speeds.1);
    arena_game(arena, k)
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

/// The several-cops kernel tells an observer every level in order, from
/// level 0 to the last, and at the last the states decided as counted.
#[test]
fn the_observer_sees_every_level_and_the_states_decided() {
    let edges: Vec<(usize, usize)> = (1..30).map(|v| (v - 1, v)).collect();
    for exits in [vec![], vec![29]] {
        let game = graph_game(30, &edges, &exits, 2, (1, 1));
        let seen = std::sync::Mutex::new(Vec::new());
        let observe = |p: &retrograde::Progress| {
            seen.lock().unwrap().push((p.level, p.decided, p.states));
            retrograde::Flow::Continue
        };
        let options = SolveOptions::new(Engine::Bitboard).with_observer(&observe);
        let solution = solve(&game, &options).unwrap();
        let seen = seen.into_inner().unwrap();
        let levels: Vec<u32> = seen.iter().map(|s| s.0).collect();
        assert_eq!(
            levels,
            (0..=solution.levels()).collect::<Vec<_>>(),
            "{exits:?}"
        );
        let counts = solution.counts();
        let last = seen.last().unwrap();
        assert_eq!(last.1, counts.win + counts.loss, "{exits:?}");
        assert!(seen.iter().all(|s| s.2 == game.state_count()));
        assert!(seen.windows(2).all(|w| w[0].1 <= w[1].1));
    }
}

/// Out of core the resident set stays under `--memory`: two cops in a 34 x
/// 34 room (1.5e9 states, 305 MiB of bitsets) under a 256 MiB cap put two
/// of the three bitsets in scratch files (one would bring the arrays kept
/// in memory, 227 MiB, under the cap but not under the pager's threshold,
/// 192 MiB: then under load the files' pages came back faster than they
/// were dropped), and the steps, which walk them whole every level, keep
/// only what fits under the cap resident. Before the pager the files'
/// pages stayed mapped: the peak was the arrays'.
#[test]
fn several_cops_out_of_core_keep_under_the_memory_cap() {
    let dir = crate::support::temp_dir("kcops-resident");
    let mut map = String::from("36 36\n");
    for r in 0..36 {
        for c in 0..36 {
            map.push(if r == 0 || c == 0 || r == 35 || c == 35 {
                '*'
            } else {
                '.'
            });
        }
        map.push('\n');
    }
    let path = dir.join("room.txt");
    std::fs::write(&path, map).unwrap();
    let d = dir.to_str().unwrap();
    let args = [
        "solve",
        path.to_str().unwrap(),
        "--cops",
        "2",
        "--memory",
        "256M",
        "--scratch",
        d,
        "--json",
        "-q",
    ];
    let out = crate::support::run(&args, None);
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    assert_eq!(report["states"], 2 * 1156 * 1156 * 1157 / 2_u64);
    let peak = report["peak_memory_bytes"].as_u64().expect("peak memory");
    assert!(peak <= 256 << 20, "peak {peak} bytes over the 256 MiB cap");
    let _ = std::fs::remove_dir_all(&dir);
}
