//! The several-cops game (`KCops`) against its oracle (`oracle_kcops.rs`):
//! every counter engine (sequential, explicit, sweep, parallel at 1 to 3
//! threads, and the bitboard engine, which hands games other than the grid
//! game to the parallel one), state by state, values and distances, on
//! thousands of small random maps and graphs for k = 1, 2, 3 and speeds 1
//! and 2; the `Game` contract on each; one cop at speed 1 against
//! `CopsAndThief`; property tests on random graphs.

use proptest::prelude::*;
use retrograde::{
    check_game_contract, parse_map, solve, verify, Arena as GameArena, Board, CopsAndThief, Engine,
    Game, KCops, Placement, SolveOptions, Turn,
};

use crate::agree::{engine_configs, rules, Config};
use crate::oracle::{Arena, Side, Value, Variant};
use crate::oracle_kcops::{KBoard, KOracle};
use crate::support::outcome;
use crate::support::{add_random_exits, grid_of, Rng, Shape};

/// The crate's board of an oracle grid (walls and exits; starts dropped).
pub(crate) fn crate_board(arena: &Arena) -> Board {
    let walls_and_exits = Arena {
        cop: None,
        thief: None,
        ..arena.clone()
    };
    let map = parse_map(walls_and_exits.to_seed_text().as_bytes(), "random.txt")
        .unwrap_or_else(|e| panic!("{e}\n{}", walls_and_exits.to_seed_text()));
    Board::new(&map, &Placement::default()).expect("board")
}

/// A random graph: vertices, edges, exits, cop passes, thief passes.
pub(crate) type Graph = (usize, Vec<(usize, usize)>, Vec<usize>, bool, bool);

/// Asserts that `game` keeps the `Game` contract and that every engine
/// configuration solves it as the oracle does, state by state.
fn check(label: &str, game: &KCops, oracle: &KOracle, configs: &[Config]) {
    check_game_contract(game).unwrap_or_else(|e| panic!("{label}: contract: {e}"));
    let n = u64::from(game.arena().cells());
    let k = game.cops();
    let expected_states = if n == 0 {
        0
    } else {
        (0..u64::from(k)).fold(1u64, |c, i| c * (n + i) / (i + 1)) * n * 2
    };
    assert_eq!(game.state_count(), expected_states, "{label}: states");
    let rows: Vec<(u64, (Value, Option<u32>))> = (0..game.state_count())
        .map(|s| {
            let (cops, thief, turn) = game.decode(s);
            assert!(cops.windows(2).all(|w| w[0] <= w[1]), "{label}: {cops:?}");
            let cops: Vec<usize> = cops.iter().map(|&c| c as usize).collect();
            let side = match turn {
                Turn::Cop => Side::Cop,
                Turn::Thief => Side::Thief,
            };
            assert_eq!(
                game.state(&game.decode(s).0, thief, turn),
                s,
                "{label}: index"
            );
            (s, oracle.lookup(&cops, thief as usize, side))
        })
        .collect();
    for config in configs {
        let solution =
            solve(game, &config.options).unwrap_or_else(|e| panic!("{label} {}: {e}", config.name));
        for &(s, (value, dte)) in &rows {
            let expected = if config.distances { dte } else { None };
            assert_eq!(
                (solution.outcome(s), solution.dte(s).map(|d| d.plies())),
                (outcome(value), expected),
                "{label} {}: state {s} = {:?}",
                config.name,
                game.decode(s)
            );
        }
        let check = verify(game, &solution);
        assert_eq!(check.inconsistent, 0, "{label} {}: verify", config.name);
    }
}

/// A random grid of at most `cells` free cells, with random exits.
pub(crate) fn small_grid(rng: &mut Rng, cells: usize) -> Arena {
    let shapes = [Shape::Open, Shape::Walls, Shape::Maze, Shape::Corridors];
    loop {
        let shape = shapes[rng.below(shapes.len())];
        let height = rng.range(1, cells.min(4));
        let width = rng.range(1, (cells / height).clamp(1, 4));
        let walls = grid_of(rng, shape, height, width);
        let arena = add_random_exits(rng, walls);
        if arena.free_cells().len() <= cells {
            return arena;
        }
    }
}

/// A random graph on at most `max_n` vertices: edges at a random density,
/// sometimes exits, sometimes a side that may not pass.
pub(crate) fn small_graph(
    rng: &mut Rng,
    max_n: usize,
) -> (usize, Vec<(usize, usize)>, Vec<usize>, bool, bool) {
    let n = rng.range(1, max_n);
    let density = rng.range(10, 90);
    let mut edges = Vec::new();
    for u in 0..n {
        for v in u + 1..n {
            if rng.percent(density) {
                edges.push((u, v));
            }
        }
    }
    let exits = if rng.percent(30) {
        (0..n).filter(|_| rng.percent(20)).collect()
    } else {
        Vec::new()
    };
    (n, edges, exits, !rng.percent(15), !rng.percent(15))
}

/// Largest boards per k: the oracle stores n^k * n * 2 states with up to
/// (reach)^k successors each.
pub(crate) fn max_cells(k: u32) -> usize {
    match k {
        1 => 12,
        2 => 8,
        _ => 5,
    }
}

pub(crate) const SPEEDS: [(u32, u32); 4] = [(1, 1), (2, 1), (1, 2), (2, 2)];

/// Instances per (k, speeds) and per kind (maps, graphs).
const PER_CASE: usize = if cfg!(debug_assertions) { 8 } else { 120 };

fn random_maps_for(k: u32) {
    let configs = engine_configs();
    let mut rng = Rng::new(0x6b6d_6170 + u64::from(k));
    for (cs, ts) in SPEEDS {
        for i in 0..PER_CASE {
            let arena = small_grid(&mut rng, max_cells(k));
            let variant = Variant::from_bits(rng.below(64) as u32);
            let label = format!(
                "map {i} k={k} speeds {cs},{ts} [{variant}]\n{}",
                arena.to_seed_text()
            );
            let mut board = KBoard::from_grid(&arena, variant);
            board.cop_speed = cs as usize;
            board.thief_speed = ts as usize;
            let oracle = KOracle::solve(&board, k as usize);
            let game_arena =
                GameArena::from_board(&crate_board(&arena), rules(variant)).with_speeds(cs, ts);
            let game = KCops::new(game_arena, k).unwrap();
            check(&label, &game, &oracle, &configs);
        }
    }
}

pub(crate) fn crate_graph_game(
    (n, edges, exits, cop_passes, thief_passes): &Graph,
    k: u32,
    (cs, ts): (u32, u32),
) -> (KCops, KOracle) {
    let mut board = KBoard::from_edges(*n, edges);
    for &e in exits {
        board.exit[e] = true;
    }
    board.cop_passes = *cop_passes;
    board.thief_passes = *thief_passes;
    board.cop_speed = cs as usize;
    board.thief_speed = ts as usize;
    let oracle = KOracle::solve(&board, k as usize);
    let edges: Vec<(u32, u32)> = edges.iter().map(|&(u, v)| (u as u32, v as u32)).collect();
    let exits: Vec<u32> = exits.iter().map(|&e| e as u32).collect();
    let arena = GameArena::from_edges(*n as u32, &edges)
        .unwrap()
        .with_exits(&exits)
        .unwrap()
        .with_passes(*cop_passes, *thief_passes)
        .with_speeds(cs, ts);
    (KCops::new(arena, k).unwrap(), oracle)
}

fn random_graphs_for(k: u32) {
    let configs = engine_configs();
    let mut rng = Rng::new(0x6b67_7261 + u64::from(k));
    for speeds in SPEEDS {
        for i in 0..PER_CASE {
            let graph = small_graph(&mut rng, max_cells(k));
            let label = format!("graph {i} k={k} speeds {speeds:?} {graph:?}");
            let (game, oracle) = crate_graph_game(&graph, k, speeds);
            check(&label, &game, &oracle, &configs);
        }
    }
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

/// One cop at speed 1 is `CopsAndThief`: same layout, same moves, same
/// values and distances, under every rule variant.
#[test]
fn one_cop_at_speed_one_is_the_grid_game() {
    let mut rng = Rng::new(0x6f6e_6531);
    for i in 0..300 {
        let arena = small_grid(&mut rng, 16);
        let variant = Variant::from_bits(i % 64);
        let board = crate_board(&arena);
        let grid_game = CopsAndThief::new(board.clone(), rules(variant));
        let game = KCops::new(GameArena::from_board(&board, rules(variant)), 1).unwrap();
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
        for s in 0..game.state_count() {
            assert_eq!(
                (a.outcome(s), a.dte(s)),
                (b.outcome(s), b.dte(s)),
                "{label}: state {s}"
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
}
