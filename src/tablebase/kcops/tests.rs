//! Tests of several-cops tables: round trips through the writer and the
//! reader on maps and graphs, both engines' tables equal, refused rules.

use super::*;
use crate::game::Game;
use crate::{parse_map, solve, Arena, Board, Engine, Placement, SolveOptions};

fn round_trip(game: &KCops, rules: Rules, dte: bool) {
    let options = SolveOptions::new(Engine::Sequential).with_dte_table(dte);
    let solution = solve(game, &options).unwrap();
    let path = std::env::temp_dir().join(format!(
        "ktable-{}-{}-{dte}.rtb",
        std::process::id(),
        game.state_count()
    ));
    let mut bytes = Vec::new();
    write_kcops_tablebase(game, rules, None, &solution, "sequential", &mut bytes).unwrap();
    // The bit-parallel engine's solution writes the same file.
    let bits = crate::copnumber::solve_kcops(
        &crate::copnumber::KArena::from_arena(game.arena()),
        &crate::copnumber::KcopOptions {
            cops: game.cops() as usize,
            dte_table: dte,
            ..Default::default()
        },
    );
    let mut from_bits = Vec::new();
    write_kcops_tablebase_bits(game, rules, None, &bits, "sequential", &mut from_bits).unwrap();
    assert!(bytes == from_bits, "the two engines' tables differ");
    std::fs::write(&path, &bytes).unwrap();
    let table = KTablebase::open(&path).unwrap();
    assert_eq!(table.header().version, 4);
    assert_eq!(table.header().states, game.state_count());
    table.check().unwrap();
    for s in 0..game.state_count() {
        let p = table.probe_state(s).unwrap();
        assert_eq!(p.value, solution.outcome(s), "state {s}");
        if dte && p.value != Outcome::Draw {
            assert_eq!(p.dte, solution.dte(s), "state {s}");
        }
    }
    // The one-cop reader refuses it by name.
    let err = crate::Tablebase::open(&path).err().unwrap().to_string();
    assert!(err.contains("cops"), "{err}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn tables_of_maps_and_graphs_answer_every_state() {
    let map = parse_map(b"3 4\n..#.\n....\n.#.E\n", "inline").unwrap();
    let rules = Rules {
        cop_diagonal: false,
        ..Rules::default()
    };
    let board = Board::new(&map, &Placement::default()).unwrap();
    let arena = Arena::from_board(&board, rules).with_speeds(1, 2);
    for k in [2, 3] {
        let game = KCops::new(arena.clone(), k).unwrap();
        round_trip(&game, rules, true);
        round_trip(&game, rules, false);
    }
    let edges = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (1, 4)];
    let graph = Arena::from_edges(5, &edges)
        .unwrap()
        .with_exits(&[3])
        .unwrap();
    let game = KCops::new(graph, 2).unwrap().with_thief_first(true);
    round_trip(&game, Rules::default(), true);
}

#[test]
fn rules_that_do_not_give_the_moves_are_refused() {
    let map = parse_map(b"2 3\n...\n...\n", "inline").unwrap();
    let board = Board::new(&map, &Placement::default()).unwrap();
    let game = KCops::new(Arena::from_board(&board, Rules::default()), 2).unwrap();
    let solution = solve(&game, &SolveOptions::new(Engine::Sequential)).unwrap();
    let orthogonal = Rules {
        cop_diagonal: false,
        ..Rules::default()
    };
    let mut out = Vec::new();
    let err = write_kcops_tablebase(&game, orthogonal, None, &solution, "x", &mut out);
    assert_eq!(err.unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
    assert!(out.is_empty());
}
