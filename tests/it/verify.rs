//! `verify`, the certificate check of a solution, must be able to fail: a
//! solution of one game checked against another game on the same cells
//! (other exits, other rules) is rejected exactly when the two solutions
//! differ. (That every engine's own solution passes is checked on every map
//! of `agree`.)

use retrograde::{solve, verify, Engine, Game, SolveOptions};

use crate::agree::crate_game;
use crate::oracle::Variant;
use crate::support::{add_random_exits, random_grid, Rng, Shape};

/// With distances the check is a certificate: it passes if and only if the
/// stored values and distances are the game's solution.
#[test]
fn verify_rejects_exactly_the_solutions_of_other_games() {
    let options = SolveOptions::new(Engine::Sequential).with_dte_table(true);
    let (mut rejected, mut accepted) = (0, 0);
    for seed in 0..400u64 {
        let mut rng = Rng::new(7_000_000 + seed);
        let shape = [Shape::Open, Shape::Walls, Shape::Maze][rng.below(3)];
        let grid = random_grid(&mut rng, shape, 5);
        let a = add_random_exits(&mut rng, grid.clone());
        let b = add_random_exits(&mut rng, grid);
        let variant_a = Variant::from_bits(rng.below(64) as u32);
        // Half the time the same rules, so the exits alone may differ.
        let variant_b = if rng.percent(50) {
            variant_a
        } else {
            Variant::from_bits(rng.below(64) as u32)
        };
        let (game_a, game_b) = (crate_game(&a, variant_a), crate_game(&b, variant_b));
        assert_eq!(game_a.state_count(), game_b.state_count());
        let solution_a = solve(&game_a, &options).expect("solve a");
        let solution_b = solve(&game_b, &options).expect("solve b");
        let differ = (0..game_a.state_count()).find(|&s| {
            (solution_a.outcome(s), solution_a.dte(s)) != (solution_b.outcome(s), solution_b.dte(s))
        });
        let check = verify(&game_b, &solution_a);
        assert!(check.distances);
        assert_eq!(
            check.ok(),
            differ.is_none(),
            "seed {seed}: first difference {differ:?}, verify {:?}",
            check.first
        );
        if let Some(first) = check.first {
            // The reported state really is inconsistent with game b's moves
            // and exists.
            assert!(first.state < game_b.state_count());
            assert_ne!(first.found, first.expected, "seed {seed}");
            rejected += 1;
        } else {
            accepted += 1;
        }
    }
    // Both outcomes occur, so neither branch is vacuous.
    assert!(rejected > 50 && accepted > 50, "{rejected} / {accepted}");
}

/// Values only (the sweep engine): a solution whose values agree with the
/// other game's passes, and one with a lost update is caught.
#[test]
fn verify_values_only() {
    let options = SolveOptions::new(Engine::Sweep).with_threads(2);
    let mut caught = 0;
    for seed in 0..300u64 {
        let mut rng = Rng::new(8_000_000 + seed);
        let grid = random_grid(&mut rng, Shape::Walls, 5);
        let a = add_random_exits(&mut rng, grid.clone());
        let b = add_random_exits(&mut rng, grid);
        let variant = Variant::from_bits(rng.below(64) as u32);
        let (game_a, game_b) = (crate_game(&a, variant), crate_game(&b, variant));
        let solution_a = solve(&game_a, &options).expect("solve a");
        let solution_b = solve(&game_b, &options).expect("solve b");
        let same =
            (0..game_a.state_count()).all(|s| solution_a.outcome(s) == solution_b.outcome(s));
        let check = verify(&game_b, &solution_a);
        assert!(!check.distances);
        if same {
            assert!(check.ok(), "seed {seed}: {:?}", check.first);
        } else if !check.ok() {
            caught += 1;
        }
    }
    assert!(caught > 50, "{caught}");
}
