//! Small random several-cops games with their oracles, for the agreement
//! tests (`agree/kcops.rs` against every counter engine, `agree/kbit.rs`
//! against the bit engine, `kcops_scratch.rs`, `kcops_cli.rs`): random
//! grids and graphs, the crate's board and game of each, and the loops
//! over k, speeds and instances that feed them, seeded by the caller.

use retrograde::{Arena as GameArena, Board, CopsGame, Placement, Rules, Speeds};

use crate::agree::rules;
use crate::oracle::{Arena, Variant};
use crate::oracle::{KBoard, KOracle};
use crate::support::{add_random_exits, grid_of, walls_and_exits_map, Rng, Shape};

/// The crate's board of an oracle grid (walls and exits; starts dropped).
pub(crate) fn crate_board(arena: &Arena) -> Board {
    Board::new(&walls_and_exits_map(arena), &Placement::default()).expect("board")
}

/// The several-cops game of `k` cops on `arena` at the arena's own speeds
/// and lazy rule, the cops moving first: `CopsGame::from_graph`, the
/// arena's move generator even for one cop at speed 1.
pub(crate) fn arena_game(arena: GameArena, k: u32) -> CopsGame {
    map_arena_game(arena, Rules::default(), k)
}

/// As [`arena_game`], on a map's arena built under `rules` (the game
/// keeps them, as a table records them), the cops still moving first.
pub(crate) fn map_arena_game(arena: GameArena, rules: Rules, k: u32) -> CopsGame {
    let (cop, thief) = arena.speeds();
    let speeds = Speeds {
        cop,
        thief,
        lazy: arena.lazy(),
    };
    let rules = Rules {
        thief_first: false,
        ..rules
    };
    CopsGame::from_graph(arena, rules, k, speeds).unwrap()
}

/// A random graph: vertices, edges, exits, cop passes, thief passes.
pub(crate) type Graph = (usize, Vec<(usize, usize)>, Vec<usize>, bool, bool);

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

/// The (cop, thief) speeds every agreement loop runs through.
pub(crate) const SPEEDS: [(u32, u32); 4] = [(1, 1), (2, 1), (1, 2), (2, 2)];

/// The crate's game and the oracle of a random graph for `k` cops at the
/// speeds (cop, thief).
pub(crate) fn crate_graph_game(graph: &Graph, k: u32, speeds: (u32, u32)) -> (CopsGame, KOracle) {
    crate_graph_game_lazy(graph, k, speeds, false)
}

/// As [`crate_graph_game`], with lazy cops or not (`docs/rules.md`, "Lazy
/// cops").
pub(crate) fn crate_graph_game_lazy(
    (n, edges, exits, cop_passes, thief_passes): &Graph,
    k: u32,
    (cs, ts): (u32, u32),
    lazy: bool,
) -> (CopsGame, KOracle) {
    let mut board = KBoard::from_edges(*n, edges);
    for &e in exits {
        board.exit[e] = true;
    }
    board.cop_passes = *cop_passes;
    board.thief_passes = *thief_passes;
    board.cop_speed = cs as usize;
    board.thief_speed = ts as usize;
    board.lazy = lazy;
    let oracle = KOracle::solve(&board, k as usize);
    let edges: Vec<(u32, u32)> = edges.iter().map(|&(u, v)| (u as u32, v as u32)).collect();
    let exits: Vec<u32> = exits.iter().map(|&e| e as u32).collect();
    let arena = GameArena::from_edges(*n as u32, &edges)
        .unwrap()
        .with_exits(&exits)
        .unwrap()
        .with_passes(*cop_passes, *thief_passes)
        .with_speeds(cs, ts)
        .with_lazy(lazy);
    (arena_game(arena, k), oracle)
}

/// The instances of one k: for each of the [`SPEEDS`], `per_case` of
/// them, all drawn from `Rng::new(seed + k)` in that order; hands `each`
/// the generator, the instance's number and the speeds (cop, thief).
pub(crate) fn instances(
    k: u32,
    seed: u64,
    per_case: usize,
    mut each: impl FnMut(&mut Rng, usize, (u32, u32)),
) {
    let mut rng = Rng::new(seed + u64::from(k));
    for speeds in SPEEDS {
        for i in 0..per_case {
            each(&mut rng, i, speeds);
        }
    }
}

/// Instance `i` of the random grids for `k` cops at `speeds`: a grid of
/// at most [`max_cells`] cells, a rule variant, and a label naming both.
pub(crate) fn random_map(
    rng: &mut Rng,
    k: u32,
    i: usize,
    (cs, ts): (u32, u32),
) -> (String, Arena, Variant) {
    let arena = small_grid(rng, max_cells(k));
    let variant = Variant::from_bits(rng.below(64) as u32);
    let label = format!(
        "map {i} k={k} speeds {cs},{ts} [{variant}]\n{}",
        arena.to_seed_text()
    );
    (label, arena, variant)
}

/// The crate's game of an oracle grid under `variant` for `k` cops at the
/// speeds (cop, thief).
pub(crate) fn crate_map_game(
    arena: &Arena,
    variant: Variant,
    k: u32,
    (cs, ts): (u32, u32),
) -> CopsGame {
    crate_map_game_lazy(arena, variant, k, (cs, ts), false)
}

/// As [`crate_map_game`], with lazy cops or not.
pub(crate) fn crate_map_game_lazy(
    arena: &Arena,
    variant: Variant,
    k: u32,
    (cs, ts): (u32, u32),
    lazy: bool,
) -> CopsGame {
    let game_arena = GameArena::from_board(&crate_board(arena), rules(variant))
        .with_speeds(cs, ts)
        .with_lazy(lazy);
    map_arena_game(game_arena, rules(variant), k)
}

/// The random grids of [`instances`] (see [`random_map`]): hands `each`
/// the label, the crate's game and the oracle's.
pub(crate) fn random_map_games(
    k: u32,
    seed: u64,
    per_case: usize,
    each: impl FnMut(&str, &CopsGame, &KOracle),
) {
    random_map_games_lazy(k, seed, per_case, false, each);
}

/// As [`random_map_games`], with lazy cops or not.
pub(crate) fn random_map_games_lazy(
    k: u32,
    seed: u64,
    per_case: usize,
    lazy: bool,
    mut each: impl FnMut(&str, &CopsGame, &KOracle),
) {
    instances(k, seed, per_case, |rng, i, (cs, ts)| {
        let (label, arena, variant) = random_map(rng, k, i, (cs, ts));
        let label = if lazy { format!("lazy {label}") } else { label };
        let mut board = KBoard::from_grid(&arena, variant);
        board.cop_speed = cs as usize;
        board.thief_speed = ts as usize;
        board.lazy = lazy;
        let oracle = KOracle::solve(&board, k as usize);
        let game = crate_map_game_lazy(&arena, variant, k, (cs, ts), lazy);
        each(&label, &game, &oracle);
    });
}

/// The random graphs of [`instances`] (of at most [`max_cells`]
/// vertices): hands `each` a label that names the instance, the crate's
/// game and the oracle's.
pub(crate) fn random_graph_games(
    k: u32,
    seed: u64,
    per_case: usize,
    each: impl FnMut(&str, &CopsGame, &KOracle),
) {
    random_graph_games_lazy(k, seed, per_case, false, each);
}

/// As [`random_graph_games`], with lazy cops or not.
pub(crate) fn random_graph_games_lazy(
    k: u32,
    seed: u64,
    per_case: usize,
    lazy: bool,
    mut each: impl FnMut(&str, &CopsGame, &KOracle),
) {
    instances(k, seed, per_case, |rng, i, speeds| {
        let graph = small_graph(rng, max_cells(k));
        let lazy_label = if lazy { "lazy " } else { "" };
        let label = format!("{lazy_label}graph {i} k={k} speeds {speeds:?} {graph:?}");
        let (game, oracle) = crate_graph_game_lazy(&graph, k, speeds, lazy);
        each(&label, &game, &oracle);
    });
}
