//! Tests of several-cops tables: round trips through the writer and the
//! reader on maps and graphs, both engines' tables equal, refused rules.

use super::*;
use crate::game::Game;
use crate::games::cops_game::CopsGame;
use crate::outcome::Outcome;
use crate::tablebase::writer::{write_source, WriteSummary};
use crate::{parse_map, solve, Arena, Board, Engine, Placement, SolveOptions, Tablebase, Turn};

/// The writer as `write_tablebase` reaches it, handed the several-cops
/// generator and its rules as the table reader rebuilds them.
fn write_tablebase(
    (game, rules): (&KCops, Rules),
    solution: &crate::Solution,
    engine: &str,
    out: &mut impl std::io::Write,
) -> std::io::Result<WriteSummary> {
    let game = CopsGame::of_arena(game.clone(), rules);
    write_source(&game, solution, None, engine, out)
}

/// A 10 x 10 map of 87 free cells (data/tablebase/kcops-10-10.txt).
const MAP_10: &[u8] = include_bytes!("../../../../data/tablebase/kcops-10-10.txt");

/// Two cops on [`MAP_10`] under `--cop-orthogonal` (the committed
/// version 4 table's game): the map, the game and its rules.
fn map_10_game() -> (crate::Map, KCops, Rules) {
    let map = parse_map(MAP_10, "kcops-10-10.txt").unwrap();
    let rules = Rules {
        cop_diagonal: false,
        ..Rules::default()
    };
    let board = Board::new(&map, &Placement::default()).unwrap();
    let game = KCops::new(Arena::from_board(&board, rules), 2).unwrap();
    assert_eq!(game.arena().cells(), 87);
    (map, game, rules)
}

fn round_trip(game: &KCops, rules: Rules, dte: bool) {
    let options = SolveOptions::new(Engine::Sequential).with_dte_table(dte);
    let solution = solve(game, &options).unwrap();
    let path = std::env::temp_dir().join(format!(
        "ktable-{}-{}-{dte}.rtb",
        std::process::id(),
        game.state_count()
    ));
    let mut bytes = Vec::new();
    write_tablebase((game, rules), &solution, "sequential", &mut bytes).unwrap();
    // The bitboard engine's solution (the several-cops kernel) writes the
    // same file.
    let bits = solve(
        game,
        &SolveOptions::new(Engine::Bitboard).with_dte_table(dte),
    )
    .unwrap();
    let mut from_bits = Vec::new();
    write_tablebase((game, rules), &bits, "sequential", &mut from_bits).unwrap();
    assert!(bytes == from_bits, "the two engines' tables differ");
    std::fs::write(&path, &bytes).unwrap();
    let table = Tablebase::open(&path).unwrap();
    assert_eq!(table.header().version, 6);
    assert_eq!(table.header().states, game.state_count());
    table.check().unwrap();
    for s in 0..game.state_count() {
        let p = table.probe_state(s).unwrap();
        assert_eq!(p.value, solution.outcome(s), "state {s}");
        if dte && p.value != Outcome::Draw {
            assert_eq!(p.dte, solution.dte(s), "state {s}");
        }
    }
    // The one reader sees the game section and the cops.
    assert!(table.header().game_section);
    assert_eq!(table.cops(), game.cops());
    std::fs::remove_file(&path).unwrap();
}

/// A 3 x 4 map with a wall pattern and an exit (cops orthogonal, the
/// thief at speed 2) under its rules, and a 5-cycle with a chord and an
/// exit: the small arenas the several-cops table tests write and read.
pub(crate) fn small_arenas() -> (Arena, Rules, Arena) {
    let map = parse_map(b"3 4\n..#.\n....\n.#.E\n", "inline").unwrap();
    let rules = Rules {
        cop_diagonal: false,
        ..Rules::default()
    };
    let board = Board::new(&map, &Placement::default()).unwrap();
    let arena = Arena::from_board(&board, rules).with_speeds(1, 2);
    let edges = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (1, 4)];
    let graph = Arena::from_edges(5, &edges)
        .unwrap()
        .with_exits(&[3])
        .unwrap();
    (arena, rules, graph)
}

#[test]
fn tables_of_maps_and_graphs_answer_every_state() {
    let (arena, rules, graph) = small_arenas();
    for k in [2, 3] {
        let game = KCops::new(arena.clone(), k).unwrap();
        round_trip(&game, rules, true);
        round_trip(&game, rules, false);
    }
    let game = KCops::new(graph, 2).unwrap().with_thief_first(true);
    round_trip(&game, Rules::default(), true);
}

/// Maps and graphs of more cells than a thief tile (64), the last tile
/// short: both engines write the same file, every state reads back, and
/// the whole-table scan counts what the solution says.
#[test]
fn tables_of_several_thief_tiles_answer_every_state() {
    let (_, game, rules) = map_10_game();
    round_trip(&game, rules, true);
    round_trip(&game, rules, false);
    // A graph of 150 vertices (three tiles, the last of 22): a cycle with
    // chords.
    let mut edges: Vec<(u32, u32)> = (0..150).map(|i| (i, (i + 1) % 150)).collect();
    edges.extend((0..150).step_by(7).map(|i| (i, (i * 5 + 11) % 150)));
    edges.retain(|&(u, v)| u != v);
    let edges: Vec<(u32, u32)> = edges.iter().map(|&(u, v)| (u.min(v), u.max(v))).collect();
    let graph = Arena::from_edges(150, &edges)
        .unwrap()
        .with_exits(&[3, 90])
        .unwrap();
    round_trip(&KCops::new(graph, 2).unwrap(), Rules::default(), true);
}

/// The whole-table scan over several thief tiles: the cops' wins per
/// multiset, as counted state by state from the solution.
#[test]
fn scans_of_several_thief_tiles_count_every_state() {
    let map = parse_map(MAP_10, "inline").unwrap();
    let board = Board::new(&map, &Placement::default()).unwrap();
    let game = KCops::new(Arena::from_board(&board, Rules::default()), 2).unwrap();
    let solution = solve(&game, &SolveOptions::new(Engine::Sequential)).unwrap();
    let path = std::env::temp_dir().join(format!("ktable-scan-{}.rtb", std::process::id()));
    let mut bytes = Vec::new();
    write_tablebase((&game, Rules::default()), &solution, "x", &mut bytes).unwrap();
    std::fs::write(&path, &bytes).unwrap();
    let table = Tablebase::open(&path).unwrap();
    let n = game.arena().cells();
    for turn in [Turn::Cop, Turn::Thief] {
        let wins = table.cop_wins_by_multiset(turn).unwrap();
        let mut cops = [0u32; 2];
        for (rank, &got) in wins.iter().enumerate() {
            game.unrank(rank as u64, &mut cops);
            let want = (0..n)
                .filter(|t| !cops.contains(t))
                .filter(|&t| {
                    let v = solution.outcome(game.state(&cops, t, turn));
                    v == if turn == Turn::Cop {
                        Outcome::Win
                    } else {
                        Outcome::Loss
                    }
                })
                .count() as u32;
            assert_eq!(got, want, "rank {rank}, {turn:?}");
        }
    }
    std::fs::remove_file(&path).unwrap();
}

/// Tables written by earlier builds, committed: before thief tiles
/// (format version 4, the engines' order) and before placed block
/// checksums (version 5). They still read, every state as a fresh solve,
/// with their start.
#[test]
fn version_4_and_5_tables_still_read() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/tablebase");
    let (map, game, _) = map_10_game();
    let options = SolveOptions::new(Engine::Sequential).with_dte_table(true);
    let solution = solve(&game, &options).unwrap();
    for version in [4, 5] {
        let table = Tablebase::open(&dir.join(format!("kcops-10-10-v{version}.rtb"))).unwrap();
        assert_eq!(table.header().version, version);
        table.check().unwrap();
        assert_eq!(table.header().states, game.state_count());
        for s in 0..game.state_count() {
            let p = table.probe_state(s).unwrap();
            assert_eq!(p.value, solution.outcome(s), "v{version} state {s}");
            if p.value != Outcome::Draw {
                assert_eq!(p.dte, solution.dte(s), "v{version} state {s}");
            }
        }
        let start = table.header().start.unwrap();
        let cell = |r, c| map.grid.cell_at(r, c).unwrap();
        assert_eq!(start.cops.as_slice(), [cell(1, 1), cell(1, 2)]);
        assert_eq!(start.thief, cell(5, 5));
    }
}

#[test]
fn rules_that_do_not_give_the_moves_are_refused() {
    // A table records the rules and its reader rebuilds the arena from
    // them: a map's arena under other rules is refused when the game is
    // built, so no table can record rules that do not give its moves.
    let map = parse_map(b"2 3\n...\n...\n", "inline").unwrap();
    let board = Board::new(&map, &Placement::default()).unwrap();
    let arena = Arena::from_board(&board, Rules::default());
    let orthogonal = Rules {
        cop_diagonal: false,
        ..Rules::default()
    };
    let speeds = crate::Speeds::default();
    let err = CopsGame::from_graph(arena.clone(), orthogonal, 2, speeds).unwrap_err();
    assert!(err.to_string().contains("rules"), "{err}");
    assert!(CopsGame::from_graph(arena, Rules::default(), 2, speeds).is_ok());
}

/// A lazy-cops game has no field in the table's game section: the writer
/// refuses it (a table would read back as the plain game).
#[test]
fn lazy_cops_are_refused() {
    let (_, _, graph) = small_arenas();
    let game = KCops::new(graph.with_lazy(true), 2).unwrap();
    let solution = solve(&game, &SolveOptions::new(Engine::Sequential)).unwrap();
    let saved = (&game, Rules::default());
    let err = write_tablebase(saved, &solution, "sequential", &mut Vec::new()).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    assert!(err.to_string().contains("lazy"), "{err}");
}
