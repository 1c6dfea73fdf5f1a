//! The bit-parallel k-cop engine (`Engine::Bitboard` on a several-cops
//! `CopsGame`) against the oracle (`oracle/kcops.rs`) and the counter
//! engines, state by state, values and distances to end, on small random
//! maps (every rule variant, random exits) and graphs (exits, pass flags),
//! k = 1, 2, 3, speeds 1 and 2: the engine that `solve --cops K` runs by
//! default plays exactly the game of `docs/rules.md`. (Its forced ways of
//! reading the thief's steps, neighbour lists or rows, are no option of
//! the public solve: the library's own tests force them.)

use retrograde::{solve, CopsGame, Engine, Game, Outcome, SolveOptions, Turn};

use crate::oracle::KOracle;
use crate::oracle::{Side, Value};
use crate::support::kcops_games::{
    random_graph_games, random_graph_games_lazy, random_map_games, random_map_games_lazy,
};

/// Instances per (k, speeds) and kind: a few seconds in release.
const PER_CASE: usize = if cfg!(debug_assertions) { 4 } else { 100 };

/// Asserts the bit engine, the oracle and the counter engines agree on
/// every state of `game` (and on the start's distance, tracked alone).
fn check(label: &str, game: &CopsGame, oracle: &KOracle) {
    let n = game.cells();
    // A start to track without the table: the last state's position.
    let start = (n > 0).then(|| game.state_count() / 3);
    let bitboard = SolveOptions::new(Engine::Bitboard);
    let bits = solve(game, &bitboard.clone().with_dte_table(true))
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    let tracked =
        solve(game, &bitboard.with_tracked_state(start)).unwrap_or_else(|e| panic!("{label}: {e}"));
    let counter = [Engine::Sequential, Engine::Parallel].map(|engine| {
        let options = SolveOptions::new(engine)
            .with_threads(2)
            .with_dte_table(true);
        solve(game, &options).unwrap_or_else(|e| panic!("{label}: {e}"))
    });
    let mut deepest = 0;
    for s in 0..game.state_count() {
        let state = game.position(s);
        let (cops, thief, turn) = (state.cops, state.thief, state.turn);
        let (outcome, dte) = (bits.outcome(s), bits.dte(s));
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
        if Some(s) == start {
            assert_eq!(tracked.dte(s), dte, "{label}: start");
        }
    }
    assert_eq!(bits.levels(), counter[0].levels(), "{label}: levels");
    assert_eq!(
        bits.levels(),
        deepest,
        "{label}: levels are the deepest distance"
    );
    let c = bits.counts();
    let counts = counter[0].counts();
    assert_eq!(
        (c.win, c.loss, c.draw),
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
