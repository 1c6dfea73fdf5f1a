//! One cop through both kernels of the bitboard engine, side by side:
//! `cargo run --release --example one_cop_kernels -- MAP [RUNS]`.
//!
//! Solves the map's one-cop game (the default rules, the map's exits) with
//! `Engine::Bitboard` twice per run, alternating: as `CopsGame::from_map`
//! (the grid kernel, `solve/bitboard/`) and as `CopsGame::from_graph` with
//! k = 1 on the same board (the several-cops kernel, `solve/multicop/`),
//! which index their states alike. Checks that the two agree on every state's value, then
//! prints each kernel's wall time per run, their medians and the ratio:
//! the figure that says whether one kernel could serve every number of
//! cops (docs/measurements.md).

use std::time::Instant;

use retrograde::{
    load_map, solve, Arena, Board, CopsGame, Engine, Game, Placement, Rules, SolveOptions, Speeds,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or("usage: one_cop_kernels MAP [RUNS]")?;
    let runs: usize = args.get(1).map_or(Ok(3), |a| a.parse())?;
    let map = load_map(std::path::Path::new(path))?;
    let board = Board::new(&map, &Placement::default())?;
    let rules = Rules::default();
    let grid = CopsGame::from_map(&map, &Placement::default(), rules, 1, Speeds::default())?;
    let several = CopsGame::from_graph(
        Arena::from_board(&board, rules),
        rules,
        1,
        Speeds::default(),
    )?;
    assert_eq!(grid.state_count(), several.state_count());
    let options = SolveOptions::new(Engine::Bitboard);
    let (mut grid_times, mut multicop_times) = (Vec::new(), Vec::new());
    for run in 0..runs {
        let started = Instant::now();
        let a = solve(&grid, &options)?;
        grid_times.push(started.elapsed().as_secs_f64());
        let started = Instant::now();
        let b = solve(&several, &options)?;
        multicop_times.push(started.elapsed().as_secs_f64());
        if run == 0 {
            assert_eq!(a.levels(), b.levels(), "levels");
            assert_eq!(a.values_hash(), b.values_hash(), "values");
            println!(
                "{}: {} states, {} levels; the two kernels agree on every value",
                path,
                grid.state_count(),
                a.levels()
            );
        }
        println!(
            "run {}: grid kernel {:.2} s, several-cops kernel {:.2} s",
            run + 1,
            grid_times[run],
            multicop_times[run]
        );
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (g, m) = (median(&mut grid_times), median(&mut multicop_times));
    println!(
        "median: grid kernel {g:.2} s, several-cops kernel {m:.2} s ({:.2}x)",
        m / g
    );
    Ok(())
}
