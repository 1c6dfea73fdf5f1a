//! The several-cops game (`CopsGame::from_graph`) against its oracle (`oracle/kcops.rs`):
//! every counter engine (sequential, explicit, sweep, parallel at 1 to 3
//! threads, and the bitboard engine, which hands games other than the grid
//! game to the parallel one), state by state, values and distances, on
//! thousands of small random maps and graphs for k = 1, 2, 3 and speeds 1
//! and 2; the `Game` contract on each; one cop at speed 1 against
//! the grid game (`CopsGame::from_map`; the bitboard engine's several-cops kernel with k = 1
//! against its grid kernel too); property tests on random graphs.

use proptest::prelude::*;
use retrograde::{
    check_game_contract, solve, Arena as GameArena, CopsGame, Engine, Game, Placement,
    SolveOptions, Speeds, Turn,
};

use super::{engine_configs, rules, solve_verified, Config};
use crate::oracle::KOracle;
use crate::oracle::{Side, Value, Variant};
use crate::support::kcops_games::{
    crate_board, crate_graph_game, crate_graph_game_lazy, map_arena_game, random_graph_games,
    random_graph_games_lazy, random_map_games, random_map_games_lazy, small_grid, Graph,
};
use crate::support::{cops_state, outcome, walls_and_exits_map, Rng};

/// Asserts that `game` keeps the `Game` contract and that every engine
/// configuration solves it as the oracle does, state by state.
fn check(label: &str, game: &CopsGame, oracle: &KOracle, configs: &[Config]) {
    check_game_contract(game).unwrap_or_else(|e| panic!("{label}: contract: {e}"));
    let n = u64::from(game.cells());
    let k = game.cops();
    let expected_states = if n == 0 {
        0
    } else {
        (0..u64::from(k)).fold(1u64, |c, i| c * (n + i) / (i + 1)) * n * 2
    };
    assert_eq!(game.state_count(), expected_states, "{label}: states");
    let rows: Vec<(u64, (Value, Option<u32>))> = (0..game.state_count())
        .map(|s| {
            let retrograde::Position { cops, thief, turn } = game.position(s);
            assert!(cops.windows(2).all(|w| w[0] <= w[1]), "{label}: {cops:?}");
            let cops: Vec<usize> = cops.iter().map(|&c| c as usize).collect();
            let side = match turn {
                Turn::Cop => Side::Cop,
                Turn::Thief => Side::Thief,
            };
            assert_eq!(
                cops_state(game, &game.position(s).cops, thief, turn),
                s,
                "{label}: index"
            );
            (s, oracle.lookup(&cops, thief as usize, side))
        })
        .collect();
    for config in configs {
        let solution = solve_verified(label, game, config);
        for &(s, (value, dte)) in &rows {
            let expected = if config.distances { dte } else { None };
            assert_eq!(
                (solution.outcome(s), solution.dte(s).map(|d| d.plies())),
                (outcome(value), expected),
                "{label} {}: state {s} = {:?}",
                config.name,
                game.position(s)
            );
        }
    }
}

/// Instances per (k, speeds) and per kind (maps, graphs).
const PER_CASE: usize = if cfg!(debug_assertions) { 8 } else { 120 };

fn random_maps_for(k: u32) {
    let configs = engine_configs();
    random_map_games(k, 0x6b6d_6170, PER_CASE, |label, game, oracle| {
        check(label, game, oracle, &configs)
    });
}

fn random_graphs_for(k: u32) {
    let configs = engine_configs();
    random_graph_games(k, 0x6b67_7261, PER_CASE, |label, game, oracle| {
        check(label, game, oracle, &configs)
    });
}

#[test]
fn one_cop_random_maps_agree_with_oracle() {
    random_maps_for(1);
}

#[test]
fn two_cops_random_maps_agree_with_oracle() {
    random_maps_for(2);
}

#[test]
fn three_cops_random_maps_agree_with_oracle() {
    random_maps_for(3);
}

#[test]
fn one_cop_random_graphs_agree_with_oracle() {
    random_graphs_for(1);
}

#[test]
fn two_cops_random_graphs_agree_with_oracle() {
    random_graphs_for(2);
}

#[test]
fn three_cops_random_graphs_agree_with_oracle() {
    random_graphs_for(3);
}

/// Lazy cops (`docs/rules.md`, "Lazy cops"): every counter engine against
/// the lazy oracle, k = 1 to 3, speeds 1 and 2, maps under every rule
/// variant and graphs with exits and pass flags.
#[test]
fn lazy_cops_random_maps_agree_with_oracle() {
    let configs = engine_configs();
    for k in 1..=3 {
        random_map_games_lazy(k, 0x6c6d_6170, PER_CASE / 2, true, |label, game, oracle| {
            check(label, game, oracle, &configs)
        });
    }
}

#[test]
fn lazy_cops_random_graphs_agree_with_oracle() {
    let configs = engine_configs();
    for k in 1..=3 {
        random_graph_games_lazy(k, 0x6c67_7261, PER_CASE / 2, true, |label, game, oracle| {
            check(label, game, oracle, &configs)
        });
    }
}

/// One cop at speed 1 on the arena's move generator is the grid game
/// (`from_map`'s): same layout, same moves, same
/// values and distances, under every rule variant.
#[test]
fn one_cop_at_speed_one_is_the_grid_game() {
    let mut rng = Rng::new(0x6f6e_6531);
    for i in 0..300 {
        let arena = small_grid(&mut rng, 16);
        let variant = Variant::from_bits(i % 64);
        let board = crate_board(&arena);
        let map = walls_and_exits_map(&arena);
        let grid_game = CopsGame::from_map(
            &map,
            &Placement::default(),
            rules(variant),
            1,
            Speeds::default(),
        )
        .unwrap();
        let game_arena = GameArena::from_board(&board, rules(variant));
        let game = map_arena_game(game_arena, rules(variant), 1);
        let label = format!("map {i} [{variant}]\n{}", arena.to_seed_text());
        assert_eq!(game.state_count(), grid_game.state_count(), "{label}");
        for s in 0..game.state_count() {
            assert_eq!(game.initial(s), grid_game.initial(s), "{label}: state {s}");
            let sorted = |mut v: Vec<u64>| {
                v.sort_unstable();
                v
            };
            let (mut a, mut b, mut c, mut d) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            game.for_each_successor(s, |x| a.push(x));
            grid_game.for_each_successor(s, |x| b.push(x));
            game.for_each_predecessor(s, |x| c.push(x));
            grid_game.for_each_predecessor(s, |x| d.push(x));
            assert_eq!(sorted(a), sorted(b), "{label}: successors of {s}");
            assert_eq!(sorted(c), sorted(d), "{label}: predecessors of {s}");
        }
        let options = SolveOptions::new(Engine::Sequential).with_dte_table(true);
        let a = solve(&game, &options).unwrap();
        let b = solve(&grid_game, &options).unwrap();
        // The bitboard engine's two kernels on the same game: the
        // several-cops kernel with k = 1 and the grid kernel.
        let bits = SolveOptions::new(Engine::Bitboard).with_dte_table(true);
        let multicop = solve(&game, &bits).unwrap();
        let grid = solve(&grid_game, &bits).unwrap();
        for s in 0..game.state_count() {
            assert_eq!(
                (a.outcome(s), a.dte(s)),
                (b.outcome(s), b.dte(s)),
                "{label}: state {s}"
            );
            assert_eq!(
                (multicop.outcome(s), multicop.dte(s)),
                (b.outcome(s), b.dte(s)),
                "{label}: state {s}, several-cops kernel"
            );
            assert_eq!(
                (grid.outcome(s), grid.dte(s)),
                (b.outcome(s), b.dte(s)),
                "{label}: state {s}, grid kernel"
            );
        }
    }
}

fn graph_strategy() -> impl Strategy<Value = Graph> {
    (1usize..=6).prop_flat_map(|n| {
        let pairs: Vec<(usize, usize)> = (0..n)
            .flat_map(|u| (u + 1..n).map(move |v| (u, v)))
            .collect();
        let m = pairs.len();
        (
            proptest::collection::vec(any::<bool>(), m),
            proptest::collection::vec(0u8..10, n),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(move |(keep, exit, cp, tp)| {
                let edges = pairs
                    .iter()
                    .zip(&keep)
                    .filter(|(_, &k)| k)
                    .map(|(&e, _)| e)
                    .collect();
                let exits = (0..n).filter(|&v| exit[v] == 0).collect();
                (n, edges, exits, cp, tp)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The contract and the sequential engine against the oracle on
    /// random graphs, any k up to 3 and speeds up to 3.
    #[test]
    fn random_graph_games_keep_the_contract_and_agree(
        graph in graph_strategy(),
        k in 1u32..=3,
        cop_speed in 1u32..=3,
        thief_speed in 1u32..=3,
    ) {
        let (game, oracle) = crate_graph_game(&graph, k, (cop_speed, thief_speed));
        let sequential = Config {
            name: "sequential".into(),
            options: SolveOptions::new(Engine::Sequential).with_dte_table(true),
            distances: true,
        };
        check(&format!("{graph:?} k={k}"), &game, &oracle, &[sequential]);
    }

    /// The same with lazy cops.
    #[test]
    fn random_lazy_graph_games_keep_the_contract_and_agree(
        graph in graph_strategy(),
        k in 1u32..=3,
        cop_speed in 1u32..=3,
        thief_speed in 1u32..=3,
    ) {
        let (game, oracle) = crate_graph_game_lazy(&graph, k, (cop_speed, thief_speed), true);
        let sequential = Config {
            name: "sequential".into(),
            options: SolveOptions::new(Engine::Sequential).with_dte_table(true),
            distances: true,
        };
        check(&format!("lazy {graph:?} k={k}"), &game, &oracle, &[sequential]);
    }
}
