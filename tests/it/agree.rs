//! Every engine (sequential; explicit; parallel and bitboard at 1, 2 and 3 threads;
//! memory and scratch-file storage) against the oracle, state by state, on thousands of
//! small random maps of every shape and every rule variant; plus property
//! tests of the `Game` contract (predecessors invert successors, move counts).
//! The several-cops game against its oracle, through the same engine
//! configurations and the same certificate check ([`solve_verified`]), is
//! in `agree/kcops.rs`; its bitboard kernel alone in `agree/kbit.rs`.

use std::collections::HashSet;

use proptest::prelude::*;
use retrograde::{
    check_game_contract, parse_map, plan_storage, solve, verify, Backing, CopsGame, Engine, Error,
    Game, Initial, Outcome, Placement, Rules, Solution, SolveOptions, Speeds, StorageLimits,
    Verdict,
};

use crate::oracle::{Arena, Oracle, Side, Variant};
use crate::support::{
    add_random_exits, add_random_starts, grid_of, one_cop_state, outcome, random_grid, start_state,
    temp_dir, turn, walls_and_exits_map, Rng, Shape, SHAPES,
};

/// The several-cops kernel of the bitboard engine alone.
mod kbit;
/// The several-cops game against its oracle, every engine configuration.
mod kcops;

/// The crate's rules for an oracle variant.
pub fn rules(variant: Variant) -> Rules {
    Rules {
        cop_diagonal: variant.cop_diagonal,
        thief_diagonal: variant.thief_diagonal,
        cop_passes: variant.cop_passes,
        thief_passes: variant.thief_passes,
        corner_cutting: variant.corner_cutting,
        thief_first: variant.thief_first,
    }
}

/// The crate's game for `arena`, read through the seed parser; starts are
/// passed as placement overrides so that they may stand on exits.
pub fn crate_game(arena: &Arena, variant: Variant) -> CopsGame {
    let map = walls_and_exits_map(arena);
    let placement = Placement {
        cop: arena.cop,
        thief: arena.thief,
        ..Placement::default()
    };
    CopsGame::from_map(&map, &placement, rules(variant), 1, Speeds::default()).expect("placement")
}

/// One way to solve: an engine with its options, and whether it computes
/// distances to end (the sweep engine gives values only).
pub struct Config {
    pub name: String,
    pub options: SolveOptions<'static>,
    pub distances: bool,
}

fn config(name: impl Into<String>, options: SolveOptions<'static>, distances: bool) -> Config {
    Config {
        name: name.into(),
        // An engine that keeps no distances refuses a distance table.
        options: options.with_dte_table(distances),
        distances,
    }
}

/// The engine configurations every map is solved with: every engine, the
/// parallel one at 1, 2 and 3 threads.
pub fn engine_configs() -> Vec<Config> {
    let mut configs = vec![
        config("sequential", SolveOptions::new(Engine::Sequential), true),
        config("explicit", SolveOptions::new(Engine::Explicit), true),
        config(
            "sweep",
            SolveOptions::new(Engine::Sweep).with_threads(2),
            false,
        ),
    ];
    for threads in [1, 2, 3] {
        configs.push(config(
            format!("parallel/{threads}"),
            SolveOptions::new(Engine::Parallel).with_threads(threads),
            true,
        ));
        configs.push(config(
            format!("bitboard/{threads}"),
            SolveOptions::new(Engine::Bitboard).with_threads(threads),
            true,
        ));
    }
    configs
}

/// Memory limit for the out-of-core configurations: small enough that a
/// solve of a few thousand states already works in several bands.
const TINY_MEMORY: u64 = 64 << 10;

/// The scratch-file (out-of-core) configurations, with files in `dir`.
pub fn scratch_configs(dir: &std::path::Path) -> Vec<Config> {
    let scratch = |engine| {
        SolveOptions::new(engine)
            .with_backing(Backing::Scratch(dir.to_path_buf()))
            .with_memory_limit(Some(TINY_MEMORY))
    };
    vec![
        config("scratch/sequential", scratch(Engine::Sequential), true),
        config(
            "scratch/parallel",
            scratch(Engine::Parallel).with_threads(2),
            true,
        ),
        config(
            "scratch/sweep",
            scratch(Engine::Sweep).with_threads(2),
            false,
        ),
        // The bitboard engine's fixed cost (buffers of several grid rows and
        // the kernel's allowance) is above 64 KiB: its own tiny cap.
        // `bitboard_minimum_configs` tests it at the smallest cap.
        config(
            "scratch/bitboard",
            scratch(Engine::Bitboard)
                .with_threads(2)
                .with_memory_limit(Some(2 << 20)),
            true,
        ),
        config(
            "scratch/explicit",
            scratch(Engine::Explicit).with_threads(2),
            true,
        ),
    ]
}

/// Index of the oracle state `(cop, thief, side)` in the crate's game.
pub fn crate_state(game: &CopsGame, cop: (usize, usize), thief: (usize, usize), side: Side) -> u64 {
    let grid = game.grid().expect("a map");
    let p = grid.cell_at(cop.0, cop.1).expect("cop cell");
    let t = grid.cell_at(thief.0, thief.1).expect("thief cell");
    one_cop_state(game, p, t, turn(side))
}

/// Asserts that a solution equals the oracle on every state (values, and
/// distances when `config.distances`), with the same counts, level count and
/// deepest state of each side.
pub fn assert_solution_matches(
    label: &str,
    oracle: &Oracle,
    game: &CopsGame,
    solution: &Solution,
    config: &Config,
) {
    let label = format!("{label} {}", config.name);
    let n = oracle.cells().len() as u64;
    assert_eq!(u64::from(game.cells()), n, "{label}: free cells");
    assert_eq!(game.state_count(), 2 * n * n, "{label}: state count");
    assert_eq!(solution.states(), 2 * n * n, "{label}: solution states");
    let mut seen = vec![false; (2 * n * n) as usize];
    // Per side: the largest distance and the smallest state index with it.
    let mut deepest: [Option<(u32, u64)>; 2] = [None; 2];
    for (cop, thief, side, value, dte) in oracle.states() {
        let s = crate_state(game, cop, thief, side);
        assert!(!seen[s as usize], "{label}: two states map to index {s}");
        seen[s as usize] = true;
        let expected_dte = if config.distances { dte } else { None };
        let got = (solution.outcome(s), solution.dte(s).map(|d| d.plies()));
        assert_eq!(
            got,
            (outcome(value), expected_dte),
            "{label}: state cop {cop:?} thief {thief:?} {side:?} to move"
        );
        if let Some(d) = dte {
            let slot = &mut deepest[side as usize];
            *slot = match *slot {
                Some((best, at)) if best > d || (best == d && at < s) => Some((best, at)),
                _ => Some((d, s)),
            };
        }
    }
    let [win, loss, draw] = oracle.counts();
    let counts = solution.counts();
    assert_eq!(
        (counts.win, counts.loss, counts.draw),
        (win, loss, draw),
        "{label}: counts"
    );
    if config.distances {
        assert_eq!(solution.levels(), oracle.max_dte(), "{label}: levels");
        for (side, expected) in deepest.into_iter().enumerate() {
            let got = solution.deepest(side).map(|(d, s)| (d.plies(), s));
            assert_eq!(
                got, expected,
                "{label}: deepest state with side {side} to move"
            );
        }
    }
}

/// The crate's verdict for the arena's start, checked against the oracle;
/// also checks `game.start()` and the tracked distance of a solve without
/// a distance table.
fn assert_start_matches(
    label: &str,
    arena: &Arena,
    variant: Variant,
    oracle: &Oracle,
    game: &CopsGame,
) {
    let (Some(cop), Some(thief)) = (arena.cop, arena.thief) else {
        assert_eq!(start_state(game), None, "{label}: start without starts");
        return;
    };
    let side = if variant.thief_first {
        Side::Thief
    } else {
        Side::Cop
    };
    let start = start_state(game).expect("start");
    assert_eq!(
        start,
        crate_state(game, cop, thief, side),
        "{label}: start state"
    );
    let options = SolveOptions::new(Engine::Parallel)
        .with_threads(2)
        .with_tracked_state(Some(start));
    let solution = solve(game, &options).expect("solve");
    assert!(!solution.has_dte_table());
    let answer = oracle.answer(cop, thief);
    let verdict = game.verdict(solution.outcome(start));
    let expected = match answer.result {
        "cop-wins" => Verdict::CopWins,
        "thief-escapes" => Verdict::ThiefEscapes,
        _ => Verdict::Draw,
    };
    assert_eq!(verdict, expected, "{label}: verdict");
    assert_eq!(verdict.as_str(), answer.result, "{label}: verdict name");
    assert_eq!(
        solution.dte(start).map(|d| d.plies()),
        answer.dte,
        "{label}: tracked dte"
    );
}

/// The bitboard engine out of core at the smallest memory cap
/// [`plan_storage`] accepts for `game` (read from its refusal of a 1-byte
/// cap), at 1 and 3 threads: windows of one or two grid rows, so every
/// level crosses many window edges (halo rows, carried rows, skipped
/// windows, pages released behind).
pub fn bitboard_minimum_configs(game: &CopsGame, dir: &std::path::Path) -> Vec<Config> {
    [1, 3]
        .into_iter()
        .filter_map(|threads| {
            let options = SolveOptions::new(Engine::Bitboard)
                .with_threads(threads)
                .with_dte_table(true);
            let limits = |memory| StorageLimits {
                memory: Some(memory),
                scratch: Some(dir.to_path_buf()),
                ..StorageLimits::default()
            };
            let minimum = match plan_storage(game, &options, &limits(1)) {
                Err(Error::TooLarge { needed, .. }) => needed,
                // No free cells: no arrays, nothing to cap.
                Ok(plan) if plan.estimate.total() == 0 => return None,
                other => panic!("a 1-byte cap must be refused, got {other:?}"),
            };
            // The minimum itself is accepted (as scratch files whenever
            // the arrays exceed it) and keeps to itself.
            let plan = plan_storage(game, &options, &limits(minimum)).expect("minimum cap");
            assert!(plan.resident <= minimum || plan.backing == Backing::Memory);
            Some(config(
                format!("scratch/bitboard-minimum/{threads}"),
                options
                    .with_backing(Backing::Scratch(dir.to_path_buf()))
                    .with_memory_limit(Some(minimum)),
                true,
            ))
        })
        .collect()
}

/// Solves `game` (of any number of cops) with `config` and checks that
/// the solution passes its own certificate check, distances included when
/// the configuration keeps them.
pub fn solve_verified(label: &str, game: &impl Game, config: &Config) -> Solution {
    let solution =
        solve(game, &config.options).unwrap_or_else(|e| panic!("{label} {}: {e}", config.name));
    // A correct solution passes its own certificate check.
    let check = verify(game, &solution);
    assert_eq!(
        (check.inconsistent, check.distances),
        (0, config.distances),
        "{label} {}: verify {:?}",
        config.name,
        check.first
    );
    solution
}

/// Solves with every engine configuration (and the out-of-core ones when
/// `scratch` names a folder) and compares with the oracle.
pub fn check_arena(
    label: &str,
    arena: &Arena,
    variant: Variant,
    scratch: Option<&std::path::Path>,
) -> Oracle {
    let oracle = Oracle::solve(arena, variant);
    let game = crate_game(arena, variant);
    let label = format!("{label} [{variant}]");
    let mut configs = engine_configs();
    if let Some(dir) = scratch {
        configs.extend(scratch_configs(dir));
        configs.extend(bitboard_minimum_configs(&game, dir));
    }
    for config in &configs {
        let solution = solve_verified(&label, &game, config);
        assert_solution_matches(&label, &oracle, &game, &solution, config);
    }
    assert_start_matches(&label, arena, variant, &oracle, &game);
    oracle
}

/// Maps checked per shape family by the `random_*_agree_with_oracle`
/// tests: 6,000 in all under `--release`, fewer in an unoptimised build.
const MAPS_PER_SHAPE: usize = if cfg!(debug_assertions) { 150 } else { 1000 };

fn random_maps_of(shape_index: usize) {
    let shape = SHAPES[shape_index];
    let scratch = temp_dir(&format!("scratch-{shape_index}"));
    let mut seen_values = HashSet::new();
    for k in 0..MAPS_PER_SHAPE {
        let seed = (shape_index * 1_000_000 + k) as u64;
        let mut rng = Rng::new(seed);
        let arena = random_grid(&mut rng, shape, 6);
        let arena = add_random_exits(&mut rng, arena);
        let arena = add_random_starts(&mut rng, arena);
        let variant = Variant::from_bits(rng.below(64) as u32);
        let label = format!("{shape:?} seed {seed}: {:?}", arena.to_rows());
        let with_scratch = (k % 40 == 0).then_some(scratch.as_path());
        let oracle = check_arena(&label, &arena, variant, with_scratch);
        let [win, loss, draw] = oracle.counts();
        seen_values.insert((win > 0, loss > 0, draw > 0));
    }
    let _ = std::fs::remove_dir_all(&scratch);
    // The family must not be degenerate: some map has each kind of value
    // (a line has no cycle to evade on, so no draws).
    let kinds = match shape {
        Shape::Single => 0,
        Shape::Line => 2,
        _ => 3,
    };
    for k in 0..kinds {
        assert!(
            seen_values.iter().any(|v| [v.0, v.1, v.2][k]),
            "{shape:?}: no map with value kind {k}"
        );
    }
    eprintln!("{shape:?}: {MAPS_PER_SHAPE} random maps agree with the oracle");
}

#[test]
fn random_open_maps_agree_with_oracle() {
    random_maps_of(0);
}

#[test]
fn random_wall_maps_agree_with_oracle() {
    random_maps_of(1);
}

#[test]
fn random_mazes_agree_with_oracle() {
    random_maps_of(2);
}

#[test]
fn random_corridors_agree_with_oracle() {
    random_maps_of(3);
}

#[test]
fn random_lines_agree_with_oracle() {
    random_maps_of(4);
}

#[test]
fn single_cells_agree_with_oracle() {
    random_maps_of(5);
}

/// Maps of a few hundred cells: large enough for the engines' striped
/// parallel levels and for several out-of-core bands, small enough for the
/// oracle.
const MEDIUM_MAPS: usize = if cfg!(debug_assertions) { 4 } else { 60 };

#[test]
fn medium_maps_agree_with_oracle() {
    let scratch = temp_dir("medium");
    let shapes = [Shape::Open, Shape::Walls, Shape::Maze, Shape::Corridors];
    for k in 0..MEDIUM_MAPS {
        let seed = 9_000_000 + k as u64;
        let mut rng = Rng::new(seed);
        let shape = shapes[k % shapes.len()];
        let mut arena = random_grid(&mut rng, shape, 18);
        // At least 12 x 12 so that the state array spans many bands.
        while arena.free_cells().len() < 100 {
            arena = random_grid(&mut rng, shape, 18);
        }
        let arena = add_random_exits(&mut rng, arena);
        let arena = add_random_starts(&mut rng, arena);
        let variant = Variant::from_bits(rng.below(64) as u32);
        let label = format!("medium {shape:?} seed {seed}: {:?}", arena.to_rows());
        let _ = check_arena(&label, &arena, variant, Some(&scratch));
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn every_variant_on_fixed_maps() {
    let maps: [&[&str]; 5] = [
        &["C..", ".*.", "..T"],
        &["C.T"],
        &["C", ".", "E", "T"],
        &["C*E", ".*.", "..T"],
        &["E.*.", "C*.T", "..*E"],
    ];
    for rows in maps {
        let arena = Arena::from_rows(rows);
        for variant in Variant::all() {
            let _ = check_arena(&format!("{rows:?}"), &arena, variant, None);
        }
    }
}

#[test]
fn map_without_free_cells_has_no_states() {
    let map = parse_map(b"2 2\n**\n#*\n", "walls.txt").expect("parse");
    let game = CopsGame::from_map(
        &map,
        &Placement::default(),
        Rules::default(),
        1,
        Speeds::default(),
    )
    .unwrap();
    assert_eq!(game.state_count(), 0);
    assert_eq!(start_state(&game), None);
    let dir = temp_dir("no-cells");
    let mut configs = engine_configs();
    configs.extend(scratch_configs(&dir));
    for config in configs {
        let name = &config.name;
        let solution = solve(&game, &config.options).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(solution.states(), 0);
        assert_eq!(solution.levels(), 0, "{name}");
        assert_eq!(solution.counts(), retrograde::Counts::default(), "{name}");
        assert_eq!(solution.deepest(0), None, "{name}");
        assert_eq!(solution.deepest(1), None, "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn thief_first_start_is_the_thief_to_move_state() {
    let arena = Arena::from_rows(&["C..E", "...T"]);
    for variant in [Variant::default(), Variant::parse("thief-first")] {
        let game = crate_game(&arena, variant);
        let side = if variant.thief_first {
            Side::Thief
        } else {
            Side::Cop
        };
        assert_eq!(
            start_state(&game),
            Some(crate_state(&game, (0, 0), (1, 3), side))
        );
        let solution = solve(
            &game,
            &SolveOptions::new(Engine::Sequential).with_dte_table(true),
        )
        .unwrap();
        let answer = Oracle::solve(&arena, variant).answer((0, 0), (1, 3));
        let verdict = game.verdict(solution.outcome(start_state(&game).unwrap()));
        assert_eq!(verdict.as_str(), answer.result, "{variant}");
    }
    // Thief next to an exit escapes when it moves first, not when the king
    // cop moves first and stands next to it.
    let arena = Arena::from_rows(&["..E", ".CT"]);
    let first = Oracle::solve(&arena, Variant::parse("thief-first")).answer((1, 1), (1, 2));
    assert_eq!(first.result, "thief-escapes");
    let second = Oracle::solve(&arena, Variant::default()).answer((1, 1), (1, 2));
    assert_eq!(second.result, "cop-wins");
}

// Property tests on tiny random grids.

pub fn arena_strategy() -> impl Strategy<Value = Arena> {
    (1usize..=5, 1usize..=5).prop_flat_map(|(height, width)| {
        proptest::collection::vec(0u8..10, height * width).prop_map(move |kinds| {
            let rows: Vec<String> = kinds
                .chunks(width)
                .map(|row| {
                    row.iter()
                        .map(|k| match k {
                            0..=2 => '*',
                            3 => 'E',
                            _ => '.',
                        })
                        .collect()
                })
                .collect();
            Arena::from_rows(&rows)
        })
    })
}

pub fn variant_strategy() -> impl Strategy<Value = Variant> {
    (0u32..64).prop_map(Variant::from_bits)
}

fn successors(game: &CopsGame, s: u64) -> Vec<u64> {
    let mut out = Vec::new();
    game.for_each_successor(s, |v| out.push(v));
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn predecessors_are_the_inverse_of_successors(arena in arena_strategy(), variant in variant_strategy()) {
        let game = crate_game(&arena, variant);
        prop_assert_eq!(check_game_contract(&game), Ok(()));
    }

    #[test]
    fn initial_matches_successors_and_oracle(arena in arena_strategy(), variant in variant_strategy()) {
        let game = crate_game(&arena, variant);
        let oracle = Oracle::solve(&arena, variant);
        for (cop, thief, side, value, dte) in oracle.states() {
            let s = crate_state(&game, cop, thief, side);
            let count = successors(&game, s).len() as u32;
            match game.initial(s) {
                Initial::Decided(o) => {
                    prop_assert_eq!(count, 0, "decided state {} has successors", s);
                    prop_assert_eq!((Outcome::from(o), dte), (outcome(value), Some(0)));
                }
                Initial::Moves(k) => {
                    prop_assert_eq!(k, count);
                    prop_assert!(k >= 1 && k <= game.max_moves());
                    prop_assert_ne!(dte, Some(0));
                }
            }
        }
    }

    #[test]
    fn all_engines_agree_with_each_other_and_oracle(
        arena in arena_strategy(),
        variant in variant_strategy(),
        starts in (0usize..64, 0usize..64),
    ) {
        let cells = arena.free_cells();
        let mut arena = arena;
        if !cells.is_empty() {
            arena.cop = Some(cells[starts.0 % cells.len()]);
            arena.thief = Some(cells[starts.1 % cells.len()]);
        }
        let _ = check_arena("proptest", &arena, variant, None);
    }
}

/// Asserts that two solutions agree on every state's value and distance.
fn assert_same_solution(label: &str, a: &Solution, b: &Solution) {
    assert_eq!(a.states(), b.states(), "{label}: states");
    assert_eq!(a.levels(), b.levels(), "{label}: levels");
    for s in 0..a.states() {
        assert_eq!(
            (a.outcome(s), a.dte(s)),
            (b.outcome(s), b.dte(s)),
            "{label}: state {s}"
        );
    }
    assert_eq!(a.deepest(0), b.deepest(0), "{label}: deepest cop state");
    assert_eq!(a.deepest(1), b.deepest(1), "{label}: deepest thief state");
}

/// Asserts that the bitboard engine on `threads` threads, with distances,
/// agrees with `reference` state by state.
fn assert_bitboard_equals(label: &str, game: &CopsGame, threads: usize, reference: &Solution) {
    let bits = solve(
        game,
        &SolveOptions::new(Engine::Bitboard)
            .with_threads(threads)
            .with_dte_table(true),
    )
    .expect("bitboard");
    assert_same_solution(&format!("{label} bitboard/{threads}"), &bits, reference);
}

/// Tall random maps for the bitboard engine's two-level sweeps.
const TALL_MAPS: usize = if cfg!(debug_assertions) { 4 } else { 48 };

/// The bitboard engine's two-level sweeps (bands of at least five grid
/// rows, so that tall maps cut into 1, 2 and 3 bands use them) against the
/// sequential engine: every state's value and distance, the deepest
/// states, and the distance of a tracked state without a distance table
/// (decided at either level of a sweep), in random rule variants.
#[test]
fn bitboard_two_level_sweeps_equal_sequential_on_tall_maps() {
    let shapes = [Shape::Open, Shape::Walls, Shape::Maze, Shape::Corridors];
    for k in 0..TALL_MAPS {
        let seed = 7_100_000 + k as u64;
        let mut rng = Rng::new(seed);
        let shape = shapes[k % shapes.len()];
        let (height, width) = (rng.range(20, 44), rng.range(2, 12));
        let arena = grid_of(&mut rng, shape, height, width);
        if arena.free_cells().is_empty() {
            continue;
        }
        let arena = add_random_exits(&mut rng, arena);
        let arena = add_random_starts(&mut rng, arena);
        let variant = Variant::from_bits(rng.below(64) as u32);
        let label = format!("tall {shape:?} seed {seed} [{variant}]");
        let game = crate_game(&arena, variant);
        let reference = solve(
            &game,
            &SolveOptions::new(Engine::Sequential).with_dte_table(true),
        )
        .expect("sequential");
        let n = game.state_count();
        for threads in [1, 2, 3] {
            assert_bitboard_equals(&label, &game, threads, &reference);
            for _ in 0..3 {
                let s = rng.below(n as usize) as u64;
                let tracked = solve(
                    &game,
                    &SolveOptions::new(Engine::Bitboard)
                        .with_threads(threads)
                        .with_tracked_state(Some(s)),
                )
                .expect("bitboard");
                assert_eq!(
                    tracked.dte(s),
                    reference.dte(s),
                    "{label} bitboard/{threads}: tracked state {s}"
                );
            }
        }
    }
}

/// The bitboard engine against the sequential engine, state by state with
/// distances, on the MovingAI maps in data/ (border exits) and on maps whose
/// rows fill whole 64-bit words or leave one bit over (the edges of the
/// engine's padding), in a few rule variants.
#[test]
fn bitboard_equals_sequential_on_movingai_and_wide_maps() {
    let mut maps: Vec<(String, Vec<u8>)> = Vec::new();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/maps/movingai");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("data/maps/movingai")
        .map(|e| e.expect("entry").path())
        .collect();
    names.sort();
    for path in names {
        maps.push((
            path.display().to_string(),
            std::fs::read(&path).expect("map"),
        ));
    }
    for width in [62, 63, 64, 65, 127] {
        let mut text = format!("3 {width}\n");
        for r in 0..3 {
            let row: String = (0..width)
                .map(|c| match (r, c) {
                    (0, 0) => 'C',
                    (2, c) if c + 1 == width => 'T',
                    (1, c) if c % 7 == 3 => '*',
                    (_, 0) => 'E',
                    _ => '.',
                })
                .collect();
            text.push_str(&row);
            text.push('\n');
        }
        maps.push((format!("wide-{width}"), text.into_bytes()));
    }
    let variants = [
        Variant::default(),
        Variant::parse("thief-diagonal+no-corner-cutting"),
        Variant::parse("cop-orthogonal+no-pass+thief-first"),
    ];
    for (name, bytes) in &maps {
        let map = parse_map(bytes, name).expect("parse");
        let movingai = name.ends_with(".map");
        let placement = Placement {
            exit_rules: if movingai {
                vec![retrograde::ExitRule::Border]
            } else {
                Vec::new()
            },
            ..Placement::default()
        };
        for variant in variants {
            let game = CopsGame::from_map(&map, &placement, rules(variant), 1, Speeds::default())
                .expect("board");
            let label = format!("{name} [{variant}]");
            let reference = solve(
                &game,
                &SolveOptions::new(Engine::Sequential).with_dte_table(true),
            )
            .expect("sequential");
            for threads in [1, 2] {
                assert_bitboard_equals(&label, &game, threads, &reference);
            }
        }
    }
}
