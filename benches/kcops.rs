//! The several-cops kernel (`Engine::Bitboard` on a several-cops
//! `CopsGame`, `CopsGame::from_graph`) at one
//! and two threads beside the counter engine, in states per second: two
//! cops on a 12 x 12 grid graph with its border as exits (the thief can
//! win: both attractors move), and three cops on the king's graph of a
//! 5 x 6 board (no exits: the cops' WIN move alone; the counter engine
//! reads 729 joint moves a state there, so the board stays small). Each iteration checks
//! a start's value against the sequential engine's, so a wrong engine
//! cannot look fast. `scripts/kcop-scaling.sh` times the large games.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use retrograde::{solve, Arena, CopsGame, Engine, Game, Outcome, Rules, SolveOptions, Speeds};

/// The graph of a `rows x cols` board where a piece steps to the 4
/// (`king` false) or 8 neighbouring squares; vertex `r * cols + c`.
fn board(rows: u32, cols: u32, king: bool) -> Arena {
    let mut edges = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let steps: &[(i32, i32)] = if king {
                &[(0, 1), (1, -1), (1, 0), (1, 1)]
            } else {
                &[(0, 1), (1, 0)]
            };
            for &(dr, dc) in steps {
                let (r2, c2) = (r as i32 + dr, c as i32 + dc);
                if r2 < rows as i32 && (0..cols as i32).contains(&c2) {
                    edges.push((r * cols + c, r2 as u32 * cols + c2 as u32));
                }
            }
        }
    }
    Arena::from_edges(rows * cols, &edges).expect("a board graph")
}

/// The game of `k` cops on `arena` (speed 1, the cops first) from the
/// cops on `cops` and the thief on `thief`.
fn graph_game(arena: Arena, k: u32, cops: &[u32], thief: u32) -> CopsGame {
    CopsGame::from_graph(arena, Rules::default(), k, Speeds::default())
        .and_then(|game| game.with_start(cops, thief))
        .expect("game")
}

/// The value of the state `start` under `engine` at `threads`.
fn value(game: &CopsGame, start: u64, engine: Engine, threads: usize) -> Outcome {
    let options = SolveOptions::new(engine)
        .with_threads(threads)
        .with_tracked_state(Some(start));
    solve(game, &options).expect("solve").outcome(start)
}

fn kcops(c: &mut Criterion) {
    let grid = board(12, 12, false);
    let border: Vec<u32> = (0..144)
        .filter(|v| [0, 11].contains(&(v / 12)) || [0, 11].contains(&(v % 12)))
        .collect();
    let games = [
        (
            "2 cops, grid 12 x 12, border exits",
            graph_game(grid.with_exits(&border).expect("exits"), 2, &[13, 14], 66),
        ),
        (
            "3 cops, king's graph 5 x 6",
            graph_game(board(5, 6, true), 3, &[0, 5, 24], 14),
        ),
    ];
    let mut group = c.benchmark_group("kcops");
    group.sample_size(10);
    for (name, game) in &games {
        let start = game.index(&game.start().expect("start"));
        let expected = value(game, start, Engine::Sequential, 1);
        group.throughput(Throughput::Elements(game.state_count()));
        for (engine, threads, label) in [
            (Engine::Sequential, 1, "sequential"),
            (Engine::Bitboard, 1, "bitboard-1"),
            (Engine::Bitboard, 2, "bitboard-2"),
        ] {
            group.bench_with_input(BenchmarkId::new(label, name), game, |b, game| {
                b.iter(|| assert_eq!(value(game, start, engine, threads), expected));
            });
        }
    }
    group.finish();
}

criterion_group!(benches, kcops);
criterion_main!(benches);
