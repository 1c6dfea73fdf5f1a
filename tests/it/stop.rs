//! The observer's [`Flow`] (issue 46): every engine ends the solve with
//! `Error::Stopped` after the level at which its observer says stop (the
//! sweep engine: after the sweep), running no further level; the bit
//! engine's kernels hand a checkpoint sink a snapshot of that level first,
//! from which the solve resumes to the whole solve's values; an observer
//! that goes on changes no state's value or distance.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use retrograde::{
    parse_map, plan_storage, solve, Arena, Checkpoint, CopsGame, Due, Engine, Error, Flow, Game,
    Placement, Progress, Rules, Sink, Snapshot, Solution, SolveOptions, Speeds, StorageLimits,
};

use crate::support::temp_dir;

const SAMPLE: &str = "data/maps/sample.txt";
/// 887,112 states: out of core under a small cap, the sweep engine takes
/// two sweeps.
const MAZE: &str = "data/maps/movingai/maze-32-32-2.map";

fn map_game(path: &str) -> CopsGame {
    let text = std::fs::read(path).unwrap();
    let map = parse_map(&text, path).unwrap();
    CopsGame::from_map(
        &map,
        &Placement::default(),
        Rules::default(),
        1,
        Speeds::default(),
    )
    .unwrap()
}

/// Two cops on a path of 30 vertices with an exit at one end: many levels.
fn two_cops() -> CopsGame {
    let edges: Vec<(u32, u32)> = (1..30).map(|v| (v - 1, v)).collect();
    let arena = Arena::from_edges(30, &edges)
        .unwrap()
        .with_exits(&[29])
        .unwrap();
    CopsGame::from_graph(arena, Rules::default(), 2, Speeds::default()).unwrap()
}

/// Saves every snapshot it is handed in `path`; never asks for one.
struct Keep {
    path: PathBuf,
    saved: Mutex<Vec<u32>>,
}

impl Sink for Keep {
    fn poll(&self, _level: u32) -> Due {
        Due::No
    }

    fn save(&self, snapshot: &dyn Snapshot) -> retrograde::Result<()> {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&self.path).unwrap());
        snapshot
            .write_to(&[("test".into(), "stop".into())], &mut out)
            .unwrap();
        self.saved.lock().unwrap().push(snapshot.level());
        Ok(())
    }
}

fn assert_same(label: &str, game: &impl Game, a: &Solution, b: &Solution) {
    assert_eq!(a.levels(), b.levels(), "{label}: levels");
    assert_eq!(a.sweeps(), b.sweeps(), "{label}: sweeps");
    assert_eq!(a.counts(), b.counts(), "{label}: counts");
    for s in 0..game.state_count() {
        assert_eq!(
            (a.outcome(s), a.dte(s)),
            (b.outcome(s), b.dte(s)),
            "{label}: state {s}"
        );
    }
}

/// Solves `game` with `options()` three times: without an observer, with
/// one that always goes on (the same values; told levels 0 to the last),
/// and with one that says stop from level `at` on (`Error::Stopped` at
/// `at`, no level after it run).
fn check<'a, G: Game>(label: &str, game: &G, options: impl Fn() -> SolveOptions<'a>, at: u32) {
    let whole = solve(game, &options()).unwrap();
    let seen = Mutex::new(Vec::new());
    let go_on = |p: &Progress| {
        seen.lock().unwrap().push(p.level);
        Flow::Continue
    };
    let observed = solve(game, &options().with_observer(&go_on)).unwrap();
    assert_same(label, game, &whole, &observed);
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    let last = whole.levels().max(whole.sweeps());
    assert!(
        at < last,
        "{label}: stops at {at} of {last} levels: the test needs a longer solve"
    );
    assert_eq!(seen.first(), Some(&0), "{label}: {seen:?}");
    assert!(seen.contains(&last), "{label}: {seen:?}");

    let seen = Mutex::new(Vec::new());
    let stop = |p: &Progress| {
        seen.lock().unwrap().push(p.level);
        if p.level >= at {
            Flow::Stop
        } else {
            Flow::Continue
        }
    };
    let stopped = solve(game, &options().with_observer(&stop));
    assert!(
        matches!(stopped, Err(Error::Stopped { level }) if level == at),
        "{label}: {:?}",
        stopped.map(|s| s.levels())
    );
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.iter().max(), Some(&at), "{label}: {seen:?}");
}

#[test]
fn the_observer_stops_every_engine_after_the_level_it_says() {
    let game = map_game(SAMPLE);
    for engine in [
        Engine::Sequential,
        Engine::Parallel,
        Engine::Explicit,
        Engine::Bitboard,
    ] {
        let options = || {
            SolveOptions::new(engine)
                .with_dte_table(true)
                .with_threads(2)
        };
        check(&format!("{engine:?}"), &game, options, 2);
    }
    check(
        "bitboard, two cops",
        &two_cops(),
        || SolveOptions::new(Engine::Bitboard).with_dte_table(true),
        2,
    );
}

/// The sweep engine stops between sweeps: out of core the maze takes two,
/// and a stop said during the first ends the solve after it; in memory
/// the sample takes one, and a stop said after initialisation ends it
/// before any.
#[test]
fn the_observer_stops_the_sweep_engine_after_the_sweep() {
    let dir = temp_dir("stop-sweep");
    let maze = map_game(MAZE);
    let limits = StorageLimits {
        memory: Some(400 << 10),
        scratch: Some(dir.clone()),
        ..StorageLimits::default()
    };
    let plan = plan_storage(&maze, &SolveOptions::new(Engine::Sweep), &limits).unwrap();
    check(
        "sweep, out of core",
        &maze,
        || SolveOptions::new(Engine::Sweep).with_plan(&plan),
        1,
    );
    check(
        "sweep, in memory",
        &map_game(SAMPLE),
        || SolveOptions::new(Engine::Sweep),
        0,
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Stops `game`'s bit-engine solve from the observer at `at` with a sink
/// present: the sink holds a snapshot of `at`, and the solve resumed from
/// it gives the whole solve's values and distances.
fn stop_and_resume(label: &str, game: &impl Game, dir: &Path, at: u32) {
    let options = || {
        SolveOptions::new(Engine::Bitboard)
            .with_dte_table(true)
            .with_tracked_state(Some(game.state_count() / 3))
    };
    let whole = solve(game, &options()).unwrap();
    let sink = Keep {
        path: dir.join("checkpoint"),
        saved: Mutex::new(Vec::new()),
    };
    let stop = |p: &Progress| {
        if p.level >= at {
            Flow::Stop
        } else {
            Flow::Continue
        }
    };
    let stopped = solve(
        game,
        &options().with_observer(&stop).with_checkpoint(Some(&sink)),
    );
    assert!(
        matches!(stopped, Err(Error::Stopped { level }) if level == at),
        "{label}"
    );
    assert_eq!(*sink.saved.lock().unwrap(), [at], "{label}");
    let from = Checkpoint::open(&sink.path).unwrap();
    assert_eq!(from.level(), at, "{label}");
    let resumed = solve(game, &options().with_resume(Some(&from))).unwrap();
    assert_same(label, game, &whole, &resumed);
    assert_eq!(
        whole.dte(game.state_count() / 3),
        resumed.dte(game.state_count() / 3),
        "{label}"
    );
}

#[test]
fn a_stop_with_a_checkpoint_sink_saves_a_snapshot_that_resumes() {
    let dir = temp_dir("stop-resume");
    stop_and_resume("one cop", &map_game(SAMPLE), &dir, 2);
    stop_and_resume("two cops", &two_cops(), &dir, 2);
    let _ = std::fs::remove_dir_all(&dir);
}
