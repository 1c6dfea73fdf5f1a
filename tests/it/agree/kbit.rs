//! The bit-parallel k-cop engine (`copnumber::solve_kcops`, fed by
//! the game's `Arena`) against the oracle (`oracle/kcops.rs`) and the
//! counter engines, state by state, values and distances to end, on small
//! random maps (every rule variant, random exits) and graphs (exits, pass
//! flags), k = 1, 2, 3, speeds 1 and 2: the engine that `solve --cops K`
//! runs by default plays exactly the game of `docs/rules.md`.

use retrograde::copnumber::{solve_kcops, KcopOptions};
use retrograde::{solve, Engine, Game, KCops, Outcome, SolveOptions, Turn};

use crate::oracle::KOracle;
use crate::oracle::{Side, Value};
use crate::support::kcops_games::{
    random_graph_games, random_graph_games_lazy, random_map_games, random_map_games_lazy,
};

/// Instances per (k, speeds) and kind: a few seconds in release.
const PER_CASE: usize = if cfg!(debug_assertions) { 4 } else { 100 };

/// Asserts the bit engine, the oracle and the counter engines agree on
/// every state of `game` (and on the start's distance, tracked alone).
fn check(label: &str, game: &KCops, oracle: &KOracle) {
    let k = game.cops() as usize;
    let arena = game.arena().clone();
    let n = arena.cells();
    // A start to track without the table: the last state's position.
    let start = (n > 0).then(|| game.decode(game.state_count() / 3));
    let options = KcopOptions {
        cops: k,
        dte_table: true,
        start,
        stop_when_placed: false,
        thief_lists: None,
    };
    let bits = solve_kcops(&arena, &options);
    // The thief's steps read as neighbour lists (the choice on large
    // sparse arenas) and as rows give the same solution.
    for lists in [true, false] {
        let forced = solve_kcops(
            &arena,
            &KcopOptions {
                thief_lists: Some(lists),
                ..options.clone()
            },
        );
        assert_eq!(forced.counts(), bits.counts(), "{label}: lists {lists}");
        assert_eq!(forced.levels, bits.levels, "{label}: lists {lists}");
        for s in 0..game.state_count() {
            assert_eq!(forced.state_value(s), bits.state_value(s), "{label}: {s}");
        }
    }
    let counter = [Engine::Sequential, Engine::Parallel].map(|engine| {
        let options = SolveOptions::new(engine)
            .with_threads(2)
            .with_dte_table(true);
        solve(game, &options).unwrap_or_else(|e| panic!("{label}: {e}"))
    });
    let mut deepest = 0;
    for s in 0..game.state_count() {
        let state = game.decode(s);
        let (cops, thief, turn) = (state.cops, state.thief, state.turn);
        let (outcome, dte) = bits.value(&state);
        let got = (outcome, dte.map(|d| d.plies()));
        let side = if turn == Turn::Cop {
            Side::Cop
        } else {
            Side::Thief
        };
        let cops_usize: Vec<usize> = cops.iter().map(|&c| c as usize).collect();
        let (value, oracle_dte) = oracle.lookup(&cops_usize, thief as usize, side);
        let expected = match value {
            Value::Win => Outcome::Win,
            Value::Loss => Outcome::Loss,
            Value::Draw => Outcome::Draw,
        };
        assert_eq!(
            got,
            (expected, oracle_dte),
            "{label}: state {s} = ({cops:?}, {thief}, {turn:?}) against the oracle"
        );
        for (engine, sol) in ["sequential", "parallel"].iter().zip(&counter) {
            assert_eq!(
                got,
                (sol.outcome(s), sol.dte(s).map(|d| d.plies())),
                "{label}: state {s} against {engine}"
            );
        }
        deepest = deepest.max(oracle_dte.unwrap_or(0));
        if Some(&state) == start.as_ref() {
            assert_eq!(bits.start_dte, dte.map(|d| d.plies()), "{label}: start");
        }
    }
    assert_eq!(bits.levels, counter[0].levels(), "{label}: levels");
    assert_eq!(
        bits.levels, deepest,
        "{label}: levels are the deepest distance"
    );
    let c = bits.counts();
    let counts = counter[0].counts();
    assert_eq!(
        (c[0] + c[3], c[1] + c[4], c[2] + c[5]),
        (counts.win, counts.loss, counts.draw),
        "{label}: counts"
    );
}

#[test]
fn bit_engine_agrees_on_random_maps() {
    for k in 1..=3u32 {
        random_map_games(k, 0x6b62_6974, PER_CASE, check);
    }
}

#[test]
fn bit_engine_agrees_on_random_graphs() {
    for k in 1..=3u32 {
        random_graph_games(k, 0x6b62_6772, PER_CASE, check);
    }
}

/// Lazy cops (`docs/rules.md`, "Lazy cops"): the bit engine's lazy cop
/// move against the lazy oracle and the counter engines.
#[test]
fn bit_engine_agrees_with_lazy_cops_on_random_maps() {
    for k in 1..=3u32 {
        random_map_games_lazy(k, 0x6c62_6974, PER_CASE, true, check);
    }
}

#[test]
fn bit_engine_agrees_with_lazy_cops_on_random_graphs() {
    for k in 1..=3u32 {
        random_graph_games_lazy(k, 0x6c62_6772, PER_CASE, true, check);
    }
}
