//! The engines on the same maps, explicit graph against on the fly and
//! the bit-parallel grid engine:
//! throughput in states per second (the explicit engine's time includes
//! building its graph). Each iteration checks the start's verdict, so a
//! wrong engine cannot look fast. The games are `CopsGame` values (one cop
//! at speed 1 on a map: the grid game inside).

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use retrograde::{solve, CopsGame, Engine, Game, SolveOptions, Verdict};

fn check(game: &CopsGame, engine: Engine, threads: usize) -> Verdict {
    let start = game.start().map(|p| game.index(&p)).expect("start");
    let options = SolveOptions::new(engine)
        .with_threads(threads)
        .with_tracked_state(Some(start));
    let solution = solve(game, &options).expect("solve");
    game.verdict(solution.outcome(start))
}

fn engines(c: &mut Criterion) {
    let mut maps = vec![
        ("open-40x40".to_string(), common::open_map(40, 40, 0.0, 1)),
        (
            "walls20-48x48".to_string(),
            common::open_map(48, 48, 0.2, 7),
        ),
    ];
    if let Some(game) = common::movingai("den312d.map") {
        maps.push(("den312d".to_string(), game));
    }
    let mut group = c.benchmark_group("engines");
    group.sample_size(10);
    for (name, game) in &maps {
        // The expected verdict comes from the sequential engine once, outside
        // the timed loop; every timed run must reproduce it.
        let expected = check(game, Engine::Sequential, 1);
        group.throughput(Throughput::Elements(game.state_count()));
        for (engine, threads, label) in [
            (Engine::Explicit, 2, "explicit"),
            (Engine::Sequential, 1, "sequential"),
            (Engine::Parallel, 1, "parallel-1"),
            (Engine::Parallel, 2, "parallel-2"),
            (Engine::Bitboard, 1, "bitboard-1"),
            (Engine::Bitboard, 2, "bitboard-2"),
        ] {
            group.bench_with_input(BenchmarkId::new(label, name), game, |b, game| {
                b.iter(|| assert_eq!(check(game, engine, threads), expected));
            });
        }
    }
    group.finish();
}

criterion_group!(benches, engines);
criterion_main!(benches);
