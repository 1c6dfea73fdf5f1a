//! The one reader against the solutions it was written from: every state's
//! value and distance, every position's rated moves against the game's
//! successors, on one-cop tables (formats 3) and several-cops tables
//! (formats 4 and 5), maps and graphs.

use super::*;
use crate::games::cops::Rules;
use crate::games::kcops::KCops;
use crate::{
    parse_map, solve, write_tablebase, Board, CopsGame, Engine, Placement, Solution, SolveOptions,
};

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("one-table-{}-{name}.rtb", std::process::id()))
}

/// Every state of `table` as `solution` says, every position's rated
/// moves the successors of `game` with their probes, best first.
fn agrees<G: crate::Game>(table: &Tablebase, game: &G, solution: &Solution) {
    assert_eq!(table.header().states, game.state_count());
    table.check().unwrap();
    for s in 0..game.state_count() {
        let p = table.probe_state(s).unwrap();
        assert_eq!(p.value, solution.outcome(s), "state {s}");
        if table.header().has_dte && p.value != Outcome::Draw {
            assert_eq!(p.dte, solution.dte(s), "state {s}");
        }
        let pos = table.position_of(s);
        assert_eq!(table.state(&pos).unwrap(), s);
        let moves = table.rated_moves(&pos).unwrap();
        let mut want = Vec::new();
        if !matches!(game.initial(s), crate::Initial::Decided(_)) {
            game.for_each_successor(s, |t| want.push(t));
        }
        let mut got: Vec<u64> = moves.iter().map(|m| table.state(&m.to).unwrap()).collect();
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want, "moves of state {s}");
        for w in moves.windows(2) {
            assert!(
                rank(w[0].value, w[0].dte) <= rank(w[1].value, w[1].dte),
                "state {s}: best first"
            );
        }
        for m in &moves {
            let after = table.probe(&m.to).unwrap();
            assert_eq!((m.value, m.dte), (after.value.flip(), after.dte));
        }
    }
}

#[test]
fn one_cop_tables_read_as_tables_of_one_cop() {
    let map = parse_map(b"3 5\nC.#..\n...#.\n.#.T.\n", "inline").unwrap();
    for rules in [
        Rules::default(),
        Rules {
            cop_diagonal: false,
            thief_first: true,
            ..Rules::default()
        },
    ] {
        let game = CopsAndThief::new(Board::new(&map, &Placement::default()).unwrap(), rules);
        let solution = solve(
            &game,
            &SolveOptions::new(Engine::Sequential).with_dte_table(true),
        )
        .unwrap();
        let path = temp("one");
        write_tablebase(
            &CopsGame::of_grid(game.clone()),
            &solution,
            "sequential",
            &mut std::fs::File::create(&path).unwrap(),
        )
        .unwrap();
        let table = Tablebase::open(&path).unwrap();
        assert_eq!(table.cops(), 1);
        assert!(!table.header().game_section);
        let start = table.start().unwrap();
        assert_eq!(table.coords(start.cops[0]), Some((0, 0)));
        assert_eq!(table.coords(start.thief), Some((2, 3)));
        assert_eq!(start.turn, rules.first_mover());
        agrees(&table, &game, &solution);
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn several_cops_tables_of_maps_and_graphs_read() {
    let (arena, rules, graph) = crate::tablebase::writer::small_arenas();
    let games = [
        (KCops::new(arena.clone(), 1).unwrap(), rules, false),
        (KCops::new(arena.clone(), 2).unwrap(), rules, false),
        (KCops::new(arena, 3).unwrap(), rules, false),
        (
            KCops::new(graph, 2).unwrap().with_thief_first(true),
            Rules {
                thief_first: true,
                ..Rules::default()
            },
            true,
        ),
    ];
    for (game, rules, graph) in games {
        let solution = solve(
            &game,
            &SolveOptions::new(Engine::Sequential).with_dte_table(true),
        )
        .unwrap();
        let path = temp("several");
        let start = (vec![0u32; game.cops() as usize], 1);
        let mut out = Vec::new();
        let saved = CopsGame::of_arena(game.clone(), rules);
        let saved = saved.with_start(&start.0, start.1).unwrap();
        crate::tablebase::writer::write_source(&saved, &solution, None, "x", &mut out).unwrap();
        std::fs::write(&path, out).unwrap();
        let table = Tablebase::open(&path).unwrap();
        assert_eq!(table.cops(), game.cops());
        assert_eq!(table.header().graph, graph);
        assert_eq!(table.grid().is_none(), graph);
        let s = table.start().unwrap();
        assert_eq!((s.cops.as_slice(), s.thief), (&start.0[..], 1));
        agrees(&table, &game, &solution);
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn several_cops_version_4_tables_still_read() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/tablebase");
    let table = Tablebase::open(&dir.join("kcops-10-10-v4.rtb")).unwrap();
    assert_eq!((table.header().version, table.cops()), (4, 2));
    let game = table.game().clone();
    let solution = solve(
        &game,
        &SolveOptions::new(Engine::Sequential).with_dte_table(true),
    )
    .unwrap();
    agrees(&table, &game, &solution);
}
