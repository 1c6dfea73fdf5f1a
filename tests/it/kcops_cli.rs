//! The several-cops game end to end: the named graphs of `data/graphs/`
//! against their known cop numbers, `solve --cops` / `--graph` / `--dump`
//! against the oracle, one cop at speed 1 unchanged, bad input refused.

use retrograde::{load_edge_list, solve, Arena, Engine, Game, Outcome, SolveOptions};

use crate::oracle::{Arena as Grid, Side, Value, Variant};
use crate::oracle::{KBoard, KOracle};
use crate::support::kcops_games::arena_game;
use crate::support::temp_dir;
use crate::support::{run, stdout};

/// The best placement of `k` cops on `arena` if one wins against every
/// thief cell (docs/rules.md): `(cops, capture time in plies)`, the least
/// capture time, the smallest rank on ties.
fn winning_placement(arena: &Arena, k: u32) -> Option<(Vec<u32>, u32)> {
    let game = arena_game(arena.clone(), k);
    let options = SolveOptions::new(Engine::Parallel)
        .with_threads(2)
        .with_dte_table(true);
    let solution = solve(&game, &options).unwrap();
    let n = u64::from(arena.cells());
    // A state's index is (rank of the cop multiset * n + thief) * 2 + turn.
    let multisets = if n == 0 {
        0
    } else {
        game.state_count() / (2 * n)
    };
    let mut best: Option<(Vec<u32>, u32)> = None;
    for rank in 0..multisets {
        let worst = (0..n).try_fold(0, |worst, t| {
            let s = (rank * n + t) * 2;
            (solution.outcome(s) == Outcome::Win)
                .then(|| worst.max(solution.dte(s).unwrap().plies()))
        });
        if let Some(worst) = worst {
            if best.as_ref().is_none_or(|b| worst < b.1) {
                best = Some((game.position(rank * n * 2).cops.to_vec(), worst));
            }
        }
    }
    best
}

/// `data/graphs/cop-numbers.csv`: (file stem, vertices, edges, cop number).
fn named_graphs() -> Vec<(String, u32, usize, u32)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/graphs");
    let text = std::fs::read_to_string(dir.join("cop-numbers.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            (
                f[0].to_string(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
            )
        })
        .collect()
}

/// Every named graph has the cop number the literature gives: k - 1 cops
/// have no winning placement, k cops have one (Robertson's 4 cops take a
/// couple of seconds: 277,970 states of up to 625 joint moves each).
#[test]
fn named_graphs_have_their_known_cop_numbers() {
    let graphs = named_graphs();
    assert!(graphs.len() >= 12);
    for (name, vertices, edges, cop_number) in graphs {
        let path = format!("{}/data/graphs/{name}.txt", env!("CARGO_MANIFEST_DIR"));
        let list = load_edge_list(std::path::Path::new(&path)).unwrap();
        assert_eq!((list.n, list.edges.len()), (vertices, edges), "{name}");
        let arena = Arena::from_edges(list.n, &list.edges).unwrap();
        if cop_number > 1 {
            assert_eq!(
                winning_placement(&arena, cop_number - 1),
                None,
                "{name}: {} cops should not win",
                cop_number - 1
            );
        }
        let (cops, plies) = winning_placement(&arena, cop_number)
            .unwrap_or_else(|| panic!("{name}: {cop_number} cops should win"));
        assert!(
            plies % 2 == 1 || vertices == 1,
            "{name}: a capture ends on the cops' move"
        );
        assert_eq!(cops.len(), cop_number as usize, "{name}");
    }
}

/// The same test through the oracle on the smaller named graphs.
#[test]
fn small_named_graphs_agree_with_the_oracle_cop_number() {
    for (name, _, _, cop_number) in named_graphs() {
        if ![
            "petersen",
            "cycle-4",
            "cycle-5",
            "tree-path-8",
            "tree-star-7",
        ]
        .contains(&name.as_str())
        {
            continue;
        }
        let path = format!("{}/data/graphs/{name}.txt", env!("CARGO_MANIFEST_DIR"));
        let list = load_edge_list(std::path::Path::new(&path)).unwrap();
        let edges: Vec<(usize, usize)> = list
            .edges
            .iter()
            .map(|&(u, v)| (u as usize, v as usize))
            .collect();
        let board = KBoard::from_edges(list.n as usize, &edges);
        assert_eq!(
            KOracle::cop_number(&board, 3),
            Some(cop_number as usize),
            "{name}"
        );
    }
}

const MAP: &str = "data/maps/sample.txt";

/// `--cops 1` at speed 1 is today's solve, byte for byte (the dump), and
/// the same report but for time and memory.
#[test]
fn one_cop_at_speed_one_is_unchanged() {
    let dir = temp_dir("kcops-one");
    let (a, b) = (dir.join("a.csv"), dir.join("b.csv"));
    let plain = run(&["solve", MAP, "-q", "--dump", a.to_str().unwrap()], None);
    let flagged = run(
        &[
            "solve",
            MAP,
            "-q",
            "--cops",
            "1",
            "--cop-speed",
            "1",
            "--thief-speed",
            "1",
            "--dump",
            b.to_str().unwrap(),
        ],
        None,
    );
    assert!(plain.status.success() && flagged.status.success());
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let strip = |o: &std::process::Output| -> Vec<String> {
        stdout(o)
            .lines()
            .filter(|l| !l.starts_with("time:"))
            .map(String::from)
            .collect()
    };
    assert_eq!(strip(&plain), strip(&flagged));
}

/// A dump row: cops, thief, side to move, value, distance to end.
type Row = (Vec<usize>, usize, Side, Value, Option<u32>);

/// Reads a dump: every row as (cells, thief, turn, value, dte).
fn dump_rows(path: &std::path::Path, per_cell: usize, k: usize) -> Vec<Row> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let cells: Vec<usize> = f[..per_cell * (k + 1)]
                .iter()
                .map(|x| x.parse().unwrap())
                .collect();
            let side = if f[per_cell * (k + 1)] == "cop" {
                Side::Cop
            } else {
                Side::Thief
            };
            let value = match f[per_cell * (k + 1) + 1] {
                "win" => Value::Win,
                "loss" => Value::Loss,
                _ => Value::Draw,
            };
            let dte = f[per_cell * (k + 1) + 2].parse().ok();
            let (cops, thief) = cells.split_at(per_cell * k);
            let thief = if per_cell == 2 {
                thief[0] * 1000 + thief[1]
            } else {
                thief[0]
            };
            let cops = cops
                .chunks(per_cell)
                .map(|c| {
                    if per_cell == 2 {
                        c[0] * 1000 + c[1]
                    } else {
                        c[0]
                    }
                })
                .collect();
            (cops, thief, side, value, dte)
        })
        .collect()
}

/// `solve --cops 2 --dump` on a map and `--graph --cops 3 --dump` with
/// speeds: every row as the oracle says, cops ascending, one row a state.
#[test]
fn dumps_agree_with_the_oracle() {
    let dir = temp_dir("kcops-dump");
    // A map: 2 cops, thief speed 2.
    let text = "3 4\nC..E\n.**.\n...T\n";
    let map = dir.join("map.txt");
    std::fs::write(&map, text).unwrap();
    let out = dir.join("map.csv");
    let o = run(
        &[
            "solve",
            map.to_str().unwrap(),
            "-q",
            "--cops",
            "2",
            "--cop",
            "0,0",
            "--cop",
            "2,0",
            "--thief",
            "2,3",
            "--thief-speed",
            "2",
            "--json",
            "--dump",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["cops"], 2);
    assert_eq!(json["thief_speed"], 2);
    let grid = Grid::from_seed_text(text);
    let mut board = KBoard::from_grid(&grid, Variant::default());
    board.thief_speed = 2;
    let oracle = KOracle::solve(&board, 2);
    let cells = grid.free_cells();
    let id = |code: usize| {
        cells
            .iter()
            .position(|&c| c == (code / 1000, code % 1000))
            .unwrap()
    };
    let rows = dump_rows(&out, 2, 2);
    let n = cells.len();
    assert_eq!(rows.len(), n * (n + 1) / 2 * n * 2);
    for (cops, thief, side, value, dte) in rows {
        let cops: Vec<usize> = cops.into_iter().map(id).collect();
        assert!(cops[0] <= cops[1]);
        assert_eq!(
            oracle.lookup(&cops, id(thief), side),
            (value, dte),
            "{cops:?} {thief} {side:?}"
        );
    }
    let start = oracle.lookup(&[0, id(2000)], id(2003), Side::Cop);
    let expected = match start.0 {
        Value::Win => "cop-wins",
        Value::Loss => "thief-escapes",
        Value::Draw => "draw",
    };
    assert_eq!(json["result"], expected);

    // A graph: 3 cops of speed 2 on a 7-cycle with an exit.
    let graph = dir.join("c7.txt");
    let edges: Vec<(usize, usize)> = (0..7).map(|v| (v, (v + 1) % 7)).collect();
    let text: String = edges.iter().map(|(u, v)| format!("{u} {v}\n")).collect();
    std::fs::write(&graph, text).unwrap();
    let out = dir.join("graph.csv");
    let o = run(
        &[
            "solve",
            "--graph",
            graph.to_str().unwrap(),
            "-q",
            "--cops",
            "3",
            "--cop-speed",
            "2",
            "--exit",
            "4",
            "--engine",
            "sequential",
            "--dump",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let header = std::fs::read_to_string(&out).unwrap();
    assert!(header.starts_with("cop1,cop2,cop3,thief,turn,value,dte\n"));
    let mut board = KBoard::from_edges(7, &edges);
    board.exit[4] = true;
    board.cop_speed = 2;
    let oracle = KOracle::solve(&board, 3);
    let rows = dump_rows(&out, 1, 3);
    assert_eq!(rows.len(), 84 * 7 * 2);
    for (cops, thief, side, value, dte) in rows {
        assert!(cops.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(oracle.lookup(&cops, thief, side), (value, dte));
    }
}

/// Bad graphs and bad flags: exit status 2, the place named, no output.
#[test]
fn bad_input_is_refused_with_its_place() {
    let dir = temp_dir("kcops-bad");
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "0 1\n1 2 # fine\n2 z\n").unwrap();
    let dump = dir.join("never.csv");
    let o = run(
        &[
            "solve",
            "--graph",
            bad.to_str().unwrap(),
            "--dump",
            dump.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.txt:3:3: expected a vertex id"), "{err}");
    assert!(!dump.exists());
    let g6 = dir.join("g.g6");
    // graph6 cut short: 10 vertices need 8 bytes of edges.
    std::fs::write(&g6, "IheA\n").unwrap();
    let o = run(
        &["solve", "--graph", g6.to_str().unwrap(), "--cops", "2"],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("g.g6:1:"), "{err}");
    for args in [
        &["solve", MAP, "--cop", "1,1", "--cop", "1,2"][..],
        &[
            "solve", MAP, "--cops", "2", "--cop", "1,1", "--thief", "5,9",
        ],
        &["solve", MAP, "--cops", "2", "--cop", "1,1", "--cop", "0,0"],
        &["solve", MAP, "--cops", "5"],
        &["solve", MAP, "--cop-speed", "0"],
        &["solve", MAP, "--cop", "3", "--thief", "5,9"],
        &[
            "solve",
            "--graph",
            "data/graphs/petersen.txt",
            "--cops",
            "2",
            "--cop",
            "1",
            "--cop",
            "10",
        ],
        &[
            "solve",
            "--graph",
            "data/graphs/petersen.txt",
            "--cop",
            "1,1",
        ],
    ] {
        let o = run(args, None);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// The Game of a graph from the crate's own reader equals the oracle's on
/// a named graph with two cops (a larger instance than the random ones).
#[test]
fn two_cops_on_the_petersen_graph_agree_with_the_oracle() {
    let path = format!("{}/data/graphs/petersen.txt", env!("CARGO_MANIFEST_DIR"));
    let list = load_edge_list(std::path::Path::new(&path)).unwrap();
    let game = arena_game(Arena::from_edges(list.n, &list.edges).unwrap(), 2);
    let solution = solve(
        &game,
        &SolveOptions::new(Engine::Sequential).with_dte_table(true),
    )
    .unwrap();
    let edges: Vec<(usize, usize)> = list
        .edges
        .iter()
        .map(|&(u, v)| (u as usize, v as usize))
        .collect();
    let oracle = KOracle::solve(&KBoard::from_edges(10, &edges), 2);
    for s in 0..game.state_count() {
        let retrograde::Position { cops, thief, turn } = game.position(s);
        let cops: Vec<usize> = cops.iter().map(|&c| c as usize).collect();
        let side = if turn == retrograde::Turn::Cop {
            Side::Cop
        } else {
            Side::Thief
        };
        let (value, dte) = oracle.lookup(&cops, thief as usize, side);
        let expected = match value {
            Value::Win => Outcome::Win,
            Value::Loss => Outcome::Loss,
            Value::Draw => Outcome::Draw,
        };
        assert_eq!(
            (solution.outcome(s), solution.dte(s).map(|d| d.plies())),
            (expected, dte)
        );
    }
}

/// `solve --cops K` runs the bit-parallel k-cop engine by default and a
/// counter engine when named: the engine printed is the one that ran, and
/// the dump, the text report and the JSON report are byte for byte the
/// same but for the engine, time and memory (maps with rule variants and
/// speeds, graphs with exits and speeds; `--verify` passes on both).
#[test]
fn bitboard_is_the_default_and_agrees_with_the_counter_engines() {
    let dir = temp_dir("kcops-engines");
    let map = dir.join("map.txt");
    std::fs::write(&map, "4 5\nC..E.\n.*...\n...*.\n..T..\n").unwrap();
    let graph = dir.join("g.txt");
    let edges = "0 1\n1 2\n2 3\n3 4\n4 0\n0 5\n5 6\n6 2\n";
    std::fs::write(&graph, edges).unwrap();
    let (m, g) = (map.to_str().unwrap(), graph.to_str().unwrap());
    let cases: Vec<Vec<&str>> = vec![
        vec![
            m, "--cops", "2", "--cop", "0,0", "--cop", "3,4", "--thief", "3,2",
        ],
        vec![
            m,
            "--cops",
            "2",
            "--cop",
            "0,0",
            "--cop",
            "0,0",
            "--thief",
            "3,2",
            "--thief-speed",
            "2",
            "--no-corner-cutting",
            "--thief-first",
        ],
        vec![
            m,
            "--cops",
            "3",
            "--cop",
            "0,0",
            "--cop",
            "1,0",
            "--cop",
            "3,4",
            "--thief",
            "3,2",
            "--cop-speed",
            "2",
            "--no-pass",
            "--cop-orthogonal",
        ],
        vec![
            m,
            "--cops",
            "1",
            "--cop",
            "0,0",
            "--thief",
            "3,2",
            "--thief-speed",
            "2",
            "--thief-diagonal",
        ],
        vec![
            g, "--graph", "--cops", "2", "--cop", "0", "--cop", "3", "--thief", "6", "--exit", "5",
        ],
        vec![
            g,
            "--graph",
            "--cops",
            "1",
            "--cop",
            "0",
            "--thief",
            "2",
            "--thief-speed",
            "2",
            "--no-thief-pass",
        ],
    ];
    let drop_engine = |text: &str| -> String {
        text.lines()
            .filter(|l| {
                !l.starts_with("engine:") && !l.starts_with("time:") && !l.starts_with("verified:")
            })
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let drop_json = |text: &str| -> serde_json::Value {
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        for key in ["engine", "seconds", "peak_memory_bytes", "threads"] {
            v.as_object_mut().unwrap().remove(key);
        }
        if let Some(check) = v.get_mut("verified").and_then(|c| c.as_object_mut()) {
            check.remove("seconds");
        }
        v
    };
    for (i, case) in cases.iter().enumerate() {
        let mut seen = Vec::new();
        for engine in [
            None,
            Some("bitboard"),
            Some("parallel"),
            Some("sequential"),
            Some("explicit"),
        ] {
            let dump = dir.join(format!("{i}-{}.csv", engine.unwrap_or("default")));
            let mut argv = vec!["solve", "-q", "--verify", "--dump", dump.to_str().unwrap()];
            argv.extend(case.iter().copied());
            if let Some(e) = engine {
                argv.extend(["--engine", e]);
            }
            let text = run(&argv, None);
            assert!(
                text.status.success(),
                "{case:?} {engine:?}: {}",
                String::from_utf8_lossy(&text.stderr)
            );
            argv.push("--json");
            let json = run(&argv, None);
            assert!(json.status.success(), "{case:?} {engine:?}");
            let report = stdout(&text);
            let ran = engine.unwrap_or("bitboard");
            assert!(
                report.contains(&format!("engine: {ran} (")),
                "{case:?}: {report}"
            );
            assert!(report.contains("verified: "), "{report}");
            let j: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
            assert_eq!(j["engine"], ran, "{case:?}");
            assert_eq!(j["verified"]["inconsistent"], 0, "{case:?} {engine:?}");
            seen.push((
                std::fs::read(&dump).unwrap(),
                drop_engine(&report),
                drop_json(&stdout(&json)),
            ));
        }
        for other in &seen[1..] {
            assert!(other.0 == seen[0].0, "{case:?}: dumps differ");
            assert_eq!(other.1, seen[0].1, "{case:?}: text reports differ");
            assert_eq!(other.2, seen[0].2, "{case:?}: JSON reports differ");
        }
    }
}

/// The bitboard engine of several cops: a solve over `--memory` without
/// `--scratch` is refused before it starts (exit 2, the bytes named, no
/// dump written), and `--scratch` alone puts its arrays in files.
#[test]
fn bitboard_refuses_what_it_cannot_do() {
    let dir = temp_dir("kcops-refuse");
    let dump = dir.join("out.csv");
    let o = run(
        &[
            "solve",
            MAP,
            "-q",
            "--cops",
            "3",
            "--memory",
            "1M",
            "--dump",
            dump.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bitboard engine") && err.contains("needs"),
        "{err}"
    );
    assert!(!dump.exists());
    let o = run(
        &[
            "solve",
            MAP,
            "-q",
            "--cops",
            "2",
            "--scratch",
            dir.to_str().unwrap(),
        ],
        None,
    );
    // A scratch folder alone puts the bitboard engine's arrays in files.
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The counter engine takes the same cap through its storage plan.
    let o = run(
        &[
            "solve",
            MAP,
            "-q",
            "--cops",
            "2",
            "--engine",
            "parallel",
            "--memory",
            "1M",
            "--scratch",
            dir.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `copnumber MAP` on grid maps (seed text, MovingAI, standard input): the
/// cop number under the map's rules and exits as the oracle finds it, and
/// the placement (as `[row, col]` cells) and capture time of the best
/// placement (least capture time, smallest rank on ties).
#[test]
fn copnumber_of_maps_agrees_with_the_oracle() {
    use crate::support::kcops_games::{crate_board, small_grid};
    use crate::support::Rng;
    let dir = temp_dir("kcops-copmap");
    let mut rng = Rng::new(0x636f_706d);
    let mut checked = 0;
    while checked < 24 {
        let grid = small_grid(&mut rng, 8);
        if grid.free_cells().is_empty() {
            continue;
        }
        checked += 1;
        let text = grid.to_seed_text();
        let path = dir.join(format!("m{checked}.txt"));
        std::fs::write(&path, &text).unwrap();
        let o = run(
            &[
                "copnumber",
                path.to_str().unwrap(),
                "--json",
                "--max-cops",
                "2",
            ],
            None,
        );
        assert!(
            o.status.success(),
            "{text}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        let board = KBoard::from_grid(&grid, Variant::default());
        let expected = KOracle::cop_number(&board, 2);
        assert_eq!(
            j["cop_number"].as_u64(),
            expected.map(|c| c as u64),
            "{text}"
        );
        if let Some(k) = expected {
            let arena = Arena::from_board(&crate_board(&grid), retrograde::Rules::default());
            let (cops, plies) = winning_placement(&arena, k as u32).unwrap();
            let cells = grid.free_cells();
            let want: Vec<[usize; 2]> = cops
                .iter()
                .map(|&c| [cells[c as usize].0, cells[c as usize].1])
                .collect();
            assert_eq!(j["placement"], serde_json::json!(want), "{text}");
            assert_eq!(
                j["capture_time_plies"].as_u64(),
                Some(u64::from(plies)),
                "{text}"
            );
        }
    }
    // MovingAI, and a seed map on standard input in text.
    let map = dir.join("c.map");
    std::fs::write(&map, "type octile\nheight 3\nwidth 3\nmap\n...\n.@.\n...\n").unwrap();
    let o = run(&["copnumber", map.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A ring of 8 cells: a cop on a side's middle (moving diagonally too)
    // covers 5 cells; the thief, 4 directions, is caught in 3 rounds.
    assert!(
        stdout(&o).ends_with("\tcop number 1\tplacement 0,1\tcapture time 3 rounds (5 plies)\n"),
        "{}",
        stdout(&o)
    );
    let o = run(&["copnumber", "-"], Some(b"1 3\n...\n"));
    assert!(
        stdout(&o).starts_with("-\tcop number 1\tplacement 0,1\t"),
        "{}",
        stdout(&o)
    );
    let o = run(&["copnumber", "-", "--counts"], Some(b"1 3\n...\n"));
    assert_eq!(o.status.code(), Some(2));
}

/// `solve --graph` reads a graph6 file of one graph (with or without the
/// `>>graph6<<` header) as the same graph as its edge list; a file of
/// several graphs is refused with the line of the second.
#[test]
fn solve_graph_reads_graph6() {
    let dir = temp_dir("kcops-graph6");
    let petersen = dir.join("p.g6");
    let list = load_edge_list(std::path::Path::new("data/graphs/petersen.txt")).unwrap();
    let g6 = retrograde::to_graph6(list.n as usize, &list.edges);
    std::fs::write(&petersen, format!(">>graph6<<{g6}\n")).unwrap();
    let (a, b) = (dir.join("a.csv"), dir.join("b.csv"));
    let flags = [
        "--cops", "2", "--cop", "0", "--cop", "1", "--thief", "7", "-q",
    ];
    let mut argv = vec![
        "solve",
        "--graph",
        "data/graphs/petersen.txt",
        "--dump",
        a.to_str().unwrap(),
    ];
    argv.extend(flags);
    assert!(run(&argv, None).status.success());
    let mut argv = vec![
        "solve",
        "--graph",
        petersen.to_str().unwrap(),
        "--dump",
        b.to_str().unwrap(),
    ];
    argv.extend(flags);
    let o = run(&argv, None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap());
    let two = dir.join("two.g6");
    std::fs::write(&two, "IheA@GUAo\nBw\n").unwrap();
    let o = run(&["solve", "--graph", two.to_str().unwrap(), "-q"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("two.g6:2:"));
}

/// `solve --cops K --plan` reports the plan the solve would follow and
/// solves nothing: the same states as the solve, memory or scratch files
/// as `--memory`/`--scratch` say, exit 2 with the bytes when it cannot fit.
#[test]
fn plan_reports_without_solving() {
    let sample = "data/maps/sample.txt";
    let dir = temp_dir("kcops-plan");
    let dump = dir.join("never.csv");
    let d = dump.to_str().unwrap();
    let json = |args: &[&str], status: i32| -> serde_json::Value {
        let out = crate::support::run_status(args, status);
        serde_json::from_str(stdout(&out).trim()).expect("one JSON object")
    };
    let solved = json(&["solve", sample, "--cops", "2", "--json"], 0);
    for engine in ["bitboard", "parallel"] {
        let plan = json(
            &[
                "solve", sample, "--cops", "2", "--engine", engine, "--plan", "--json", "--dump", d,
            ],
            0,
        );
        assert_eq!(plan["states"], solved["states"], "{engine}");
        assert_eq!(plan["engine"], engine);
        assert_eq!(plan["fits"], true);
        assert!(plan["bytes"].as_u64().unwrap() > 0, "{plan}");
        assert!(plan["scratch"].is_null(), "{plan}");
        assert!(!dump.exists(), "--plan solved and dumped");
    }
    // Under a cap the distance table cannot keep to: in files in the
    // temporary folder without a scratch folder (as a one-cop solve
    // spills), in the folder given with one, and refused, with the bytes,
    // under the arrays that cannot go to files.
    let spilled = json(
        &[
            "solve",
            sample,
            "--cops",
            "2",
            "--dte-table",
            "--memory",
            "400K",
            "--plan",
            "--json",
        ],
        0,
    );
    assert_eq!(spilled["fits"], true);
    assert_eq!(
        spilled["scratch"].as_str(),
        std::env::temp_dir().to_str(),
        "{spilled}"
    );
    assert!(
        spilled["resident"].as_u64().unwrap() <= 400 * 1024,
        "{spilled}"
    );
    let refused = json(
        &[
            "solve",
            sample,
            "--cops",
            "2",
            "--dte-table",
            "--memory",
            "10K",
            "--plan",
            "--json",
        ],
        2,
    );
    assert_eq!(refused["fits"], false);
    let why = refused["refused"].as_str().unwrap();
    assert!(
        why.contains("needs") && why.contains("raise --memory"),
        "{refused}"
    );
    let scratch = dir.to_str().unwrap();
    let placed = json(
        &[
            "solve",
            sample,
            "--cops",
            "2",
            "--dte-table",
            "--memory",
            "400K",
            "--scratch",
            scratch,
            "--plan",
            "--json",
        ],
        0,
    );
    assert_eq!(placed["fits"], true);
    assert_eq!(placed["scratch"], scratch);
    assert!(
        placed["resident"].as_u64().unwrap() <= 400 * 1024,
        "{placed}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `solve --cops K --lazy`: a graph (bit engine, the default, and the
/// sequential engine) dumped and checked against the lazy oracle state by
/// state; a map solved; one cop, `--save`, `--checkpoint` and `--resume`
/// refused with exit 2 and the reason.
#[test]
fn solve_lazy_cops_matches_the_lazy_oracle() {
    let dir = temp_dir("kcops-lazy");
    let graph = dir.join("c6.txt");
    let mut edges: Vec<(usize, usize)> = (0..6).map(|v| (v, (v + 1) % 6)).collect();
    edges.push((0, 3));
    let text: String = edges.iter().map(|(u, v)| format!("{u} {v}\n")).collect();
    std::fs::write(&graph, text).unwrap();
    let mut board = KBoard::from_edges(6, &edges);
    board.exit[4] = true;
    board.lazy = true;
    let oracle = KOracle::solve(&board, 2);
    for engine in ["bitboard", "sequential"] {
        let out = dir.join(format!("{engine}.csv"));
        let o = run(
            &[
                "solve",
                "--graph",
                graph.to_str().unwrap(),
                "-q",
                "--cops",
                "2",
                "--lazy",
                "--exit",
                "4",
                "--engine",
                engine,
                "--dump",
                out.to_str().unwrap(),
            ],
            None,
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let rows = dump_rows(&out, 1, 2);
        assert_eq!(rows.len(), 21 * 6 * 2);
        for (cops, thief, side, value, dte) in rows {
            assert_eq!(oracle.lookup(&cops, thief, side), (value, dte), "{engine}");
        }
    }
    let o = run(&["solve", MAP, "-q", "--cops", "2", "--lazy"], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let g = graph.to_str().unwrap();
    let save = dir.join("t.rtb");
    let ck = dir.join("ck");
    let refusals: [(&[&str], &str); 4] = [
        (&["--cops", "1"], "one cop"),
        (&["--cops", "2", "--save", save.to_str().unwrap()], "--save"),
        (
            &["--cops", "2", "--checkpoint", ck.to_str().unwrap()],
            "--checkpoint",
        ),
        (
            &["--cops", "2", "--resume", ck.to_str().unwrap()],
            "--resume",
        ),
    ];
    for (extra, word) in refusals {
        let mut args = vec!["solve", "--graph", g, "-q", "--lazy"];
        args.extend_from_slice(extra);
        let o = run(&args, None);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(
            err.contains(word) && err.contains("lazy"),
            "{extra:?}: {err}"
        );
    }
    assert!(!save.exists());
}
