//! Edge-list games and the explicit CSR engine: `graph` against a brute-force
//! reference on random directed graphs (cycles, self-loops, duplicates, fixed
//! vertices, misère) through every engine; the explicit engine against the
//! on-the-fly ones on random maps; CSR structure; parser errors with
//! positions; the refusal of graphs that do not fit; the `graph` command.

use std::path::{Path, PathBuf};
use std::process::Output;

use proptest::prelude::*;
use retrograde::{
    best_moves, check_game_contract, estimate, explicit_estimate, load_graph, parse_graph,
    parse_map, solve, Backing, Convention, CopsGame, Engine, Error, ExplicitGraph, Game, Initial,
    Outcome, Placement, Rules, Solution, SolveOptions, Speeds,
};

/// Value and distance to end of every vertex; `None` for a draw.
type Labels = Vec<Option<(Outcome, u32)>>;

/// A random game graph as the test sees it.
#[derive(Clone, Debug)]
struct RandomGraph {
    vertices: usize,
    edges: Vec<(usize, usize)>,
    /// Values fixed by `win v` / `loss v` (only on vertices without edges).
    fixed: Vec<Option<Outcome>>,
    convention: Convention,
    /// Write a `p N M` line (else vertices past the largest id are dropped).
    header: bool,
}

impl RandomGraph {
    /// The vertex count the parser should find.
    fn parsed_vertices(&self) -> usize {
        if self.header {
            return self.vertices;
        }
        let edge_max = self.edges.iter().map(|&(u, v)| u.max(v));
        let fixed_max = (0..self.vertices).filter(|&v| self.fixed[v].is_some());
        edge_max.chain(fixed_max).max().map_or(0, |m| m + 1)
    }

    /// The edge-list text, with comments, blank lines, tabs and CRLF mixed in.
    fn text(&self) -> String {
        let mut text = String::from("# a random game graph\n");
        if self.header {
            text += &format!("p {} {}\n", self.vertices, self.edges.len());
        }
        for (k, &(u, v)) in self.edges.iter().enumerate() {
            text += &match k % 7 {
                0 => format!("{u} {v}\n"),
                1 => format!("{u}\t{v}  # edge {k}\n"),
                2 => format!("  {u} {v}\r\n"),
                3 => format!("\n{u} {v}\n"),
                _ => format!("{u} {v}\n"),
            };
        }
        for (v, value) in self.fixed.iter().enumerate() {
            match value {
                Some(Outcome::Win) => text += &format!("win {v}\n"),
                Some(Outcome::Loss) => text += &format!("loss {v} # fixed\n"),
                _ => {}
            }
        }
        text
    }

    /// The brute-force reference, written from the rules: a vertex without
    /// moves is decided at distance 0 (its fixed value, else the
    /// convention's); then, round after round from the previous round's
    /// labels, a vertex with a LOSS successor is a WIN at 1 + the smallest
    /// such distance, and a vertex whose successors are all WIN is a LOSS at
    /// 1 + the largest distance; what is never decided is a draw.
    fn reference(&self) -> Labels {
        let n = self.parsed_vertices();
        let mut successors = vec![Vec::new(); n];
        for &(u, v) in &self.edges {
            successors[u].push(v);
        }
        let mut labels: Labels = (0..n)
            .map(|v| {
                successors[v].is_empty().then(|| {
                    let value = self.fixed[v].unwrap_or(self.convention.no_move_value());
                    (value, 0)
                })
            })
            .collect();
        loop {
            let before = labels.clone();
            for v in 0..n {
                if before[v].is_some() {
                    continue;
                }
                let loss_dte = successors[v]
                    .iter()
                    .filter_map(|&s| match before[s] {
                        Some((Outcome::Loss, d)) => Some(d),
                        _ => None,
                    })
                    .min();
                let all_win = successors[v]
                    .iter()
                    .all(|&s| matches!(before[s], Some((Outcome::Win, _))));
                if let Some(d) = loss_dte {
                    labels[v] = Some((Outcome::Win, d + 1));
                } else if all_win {
                    let d = successors[v]
                        .iter()
                        .map(|&s| before[s].unwrap().1)
                        .max()
                        .unwrap();
                    labels[v] = Some((Outcome::Loss, d + 1));
                }
            }
            if labels == before {
                break;
            }
        }
        // The result satisfies the rules as equations over the final labels.
        for v in 0..n {
            let of = |s: usize| labels[s];
            match labels[v] {
                Some((_, 0)) => assert!(successors[v].is_empty()),
                Some((Outcome::Win, d)) => assert_eq!(
                    Some(d - 1),
                    successors[v]
                        .iter()
                        .filter_map(|&s| of(s).filter(|l| l.0 == Outcome::Loss).map(|l| l.1))
                        .min()
                ),
                Some((Outcome::Loss, d)) => {
                    assert!(successors[v]
                        .iter()
                        .all(|&s| matches!(of(s), Some((Outcome::Win, _)))));
                    let max = successors[v].iter().map(|&s| of(s).unwrap().1).max();
                    assert_eq!(Some(d - 1), max);
                }
                Some((Outcome::Draw, _)) => unreachable!(),
                None => {
                    assert!(!successors[v].is_empty());
                    assert!(successors[v]
                        .iter()
                        .all(|&s| !matches!(of(s), Some((Outcome::Loss, _)))));
                    assert!(successors[v].iter().any(|&s| of(s).is_none()));
                }
            }
        }
        labels
    }
}

/// Random graphs of up to 24 vertices: about a third of the vertices are
/// sinks (no moves), some of them fixed; edges from the others, with
/// self-loops and duplicates as they come.
fn random_graph() -> impl Strategy<Value = RandomGraph> {
    (1usize..=24)
        .prop_flat_map(|n| {
            (
                Just(n),
                proptest::collection::vec(0u8..9, n),
                proptest::collection::vec((0..n, 0..n), 0..=3 * n),
                any::<bool>(),
                any::<bool>(),
            )
        })
        .prop_map(|(n, kinds, raw_edges, misere, header)| {
            // 0..3: sink (0 plain, 1 fixed win, 2 fixed loss); else moves.
            let sink = |v: usize| kinds[v] < 3;
            let edges: Vec<(usize, usize)> =
                raw_edges.into_iter().filter(|&(u, _)| !sink(u)).collect();
            let fixed = (0..n)
                .map(|v| match kinds[v] {
                    1 => Some(Outcome::Win),
                    2 => Some(Outcome::Loss),
                    _ => None,
                })
                .collect();
            RandomGraph {
                vertices: n,
                edges,
                fixed,
                convention: if misere {
                    Convention::Misere
                } else {
                    Convention::Normal
                },
                header,
            }
        })
}

/// Engine configurations every graph and map is solved with.
fn engines() -> Vec<(&'static str, SolveOptions<'static>)> {
    vec![
        ("sequential", SolveOptions::new(Engine::Sequential)),
        (
            "parallel/1",
            SolveOptions::new(Engine::Parallel).with_threads(1),
        ),
        (
            "parallel/3",
            SolveOptions::new(Engine::Parallel).with_threads(3),
        ),
        (
            "explicit",
            SolveOptions::new(Engine::Explicit).with_threads(2),
        ),
    ]
    .into_iter()
    .map(|(name, options)| (name, options.with_dte_table(true)))
    .collect()
}

/// Every state's label from a solution.
fn labels(solution: &Solution, states: u64) -> Labels {
    (0..states)
        .map(|s| match solution.outcome(s) {
            Outcome::Draw => None,
            value => Some((value, solution.dte(s).expect("a distance table").plies())),
        })
        .collect()
}

/// The forward and reverse CSR hold the same edges, reversed, every
/// predecessor list sorted, and the stored size is the estimate.
fn assert_csr_consistent(graph: &ExplicitGraph) {
    let (forward, reverse) = (graph.forward(), graph.reverse());
    assert_eq!(forward.vertex_count(), reverse.vertex_count());
    assert_eq!(forward.edge_count(), reverse.edge_count());
    assert_eq!(forward.offset(forward.vertex_count()), forward.edge_count());
    let mut there = Vec::new();
    let mut back = Vec::new();
    for v in 0..forward.vertex_count() {
        there.extend(forward.neighbors(v).map(|t| (v, t)));
        let list: Vec<u64> = reverse.neighbors(v).collect();
        assert!(
            list.windows(2).all(|w| w[0] <= w[1]),
            "unsorted list {list:?}"
        );
        assert_eq!(list.len() as u64, reverse.degree(v));
        back.extend(list.into_iter().map(|u| (u, v)));
    }
    there.sort_unstable();
    back.sort_unstable();
    assert_eq!(
        there, back,
        "the reverse CSR is not the inverse of the forward one"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn graph_engines_match_the_brute_force_reference(graph in random_graph()) {
        let text = graph.text();
        let parsed = parse_graph(text.as_bytes(), "random.txt", graph.convention)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        let n = graph.parsed_vertices() as u64;
        prop_assert_eq!(parsed.state_count(), n);
        prop_assert_eq!(parsed.edge_count(), graph.edges.len() as u64);
        assert_csr_consistent(&parsed);
        let expected = graph.reference();
        for (name, options) in engines() {
            let solution = solve(&parsed, &options).unwrap();
            prop_assert_eq!(&labels(&solution, n), &expected, "{} on\n{}", name, text);
        }
    }
}

/// A random map in the seed format: walls, exits and free cells.
fn random_map() -> impl Strategy<Value = (String, Rules)> {
    (1usize..=5, 1usize..=5)
        .prop_flat_map(|(h, w)| {
            (
                Just((h, w)),
                proptest::collection::vec(0u8..10, h * w),
                proptest::collection::vec(any::<bool>(), 6),
            )
        })
        .prop_map(|((h, w), cells, flags)| {
            let mut text = format!("{h} {w}\n");
            for r in 0..h {
                for c in 0..w {
                    // The first cell is always free: a map needs one.
                    text.push(match cells[r * w + c] {
                        _ if r + c == 0 => '.',
                        0..=1 => '*',
                        2 => 'E',
                        _ => '.',
                    });
                }
                text.push('\n');
            }
            let rules = Rules {
                cop_diagonal: flags[0],
                thief_diagonal: flags[1],
                cop_passes: flags[2],
                thief_passes: flags[3],
                corner_cutting: flags[4],
                thief_first: flags[5],
            };
            (text, rules)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn explicit_engine_equals_the_on_the_fly_engines_on_maps((text, rules) in random_map()) {
        let map = parse_map(text.as_bytes(), "random.txt").unwrap();
        let game =
            CopsGame::from_map(&map, &Placement::default(), rules, 1, Speeds::default()).unwrap();
        let n = game.state_count();
        let reference = labels(
            &solve(&game, &SolveOptions::new(Engine::Sequential).with_dte_table(true)).unwrap(),
            n,
        );
        for (name, options) in engines() {
            let solution = solve(&game, &options).unwrap();
            prop_assert_eq!(&labels(&solution, n), &reference, "{} on\n{}", name, text);
        }
        // The stored graph is the game's: same moves, predecessors the
        // inverse of successors, size as estimated.
        let graph = ExplicitGraph::from_game(&game, &Backing::Memory).unwrap();
        assert_csr_consistent(&graph);
        prop_assert_eq!(check_game_contract(&graph), Ok(()));
        prop_assert_eq!(graph.bytes(), explicit_estimate(&game));
        for s in 0..n {
            prop_assert_eq!(graph.initial(s), game.initial(s));
            let mut moves = Vec::new();
            game.for_each_successor(s, |t| moves.push(t));
            prop_assert_eq!(graph.forward().neighbors(s).collect::<Vec<_>>(), moves);
            let mut predecessors = Vec::new();
            game.for_each_predecessor(s, |u| predecessors.push(u));
            predecessors.sort_unstable();
            prop_assert_eq!(graph.reverse().neighbors(s).collect::<Vec<_>>(), predecessors);
        }
    }
}

#[test]
fn explicit_graph_of_an_explicit_graph_is_the_same_graph() {
    let text = b"p 6 7\n0 1\n0 1\n1 2\n2 0\n3 3\n3 4\n4 5\nwin 5\n";
    let graph = parse_graph(text, "t", Convention::Normal).unwrap();
    let copy = ExplicitGraph::from_game(&graph, &Backing::Memory).unwrap();
    for v in 0..6 {
        assert_eq!(copy.initial(v), graph.initial(v));
        assert_eq!(
            copy.forward().neighbors(v).collect::<Vec<_>>(),
            graph.forward().neighbors(v).collect::<Vec<_>>()
        );
        assert_eq!(
            copy.reverse().neighbors(v).collect::<Vec<_>>(),
            graph.reverse().neighbors(v).collect::<Vec<_>>()
        );
    }
    assert_eq!(copy.bytes(), graph.bytes());
}

#[test]
fn self_loops_duplicates_and_isolated_vertices() {
    // 0 loops forever; 1 has two moves to the dead end 2; 3 and 4 are
    // isolated; 5 moves to 0 (draw) or to 1 (a win for the mover there).
    let text = b"p 6 5\n0 0\n1 2\n1 2\n5 0\n5 1\n";
    let graph = parse_graph(text, "t", Convention::Normal).unwrap();
    assert_eq!(graph.initial(1), Initial::Moves(2));
    let options = SolveOptions::new(Engine::Sequential).with_dte_table(true);
    let solution = solve(&graph, &options).unwrap();
    let got: Vec<Outcome> = (0..6).map(|v| solution.outcome(v)).collect();
    use Outcome::{Draw, Loss, Win};
    assert_eq!(got, vec![Draw, Win, Loss, Loss, Loss, Draw]);
    assert_eq!(best_moves(&graph, &solution, 1), Some(vec![2]));
    assert_eq!(best_moves(&graph, &solution, 5), Some(vec![0]));
    assert_eq!(best_moves(&graph, &solution, 3), Some(vec![]));
    let misere = parse_graph(text, "t", Convention::Misere).unwrap();
    let solution = solve(&misere, &options).unwrap();
    let got: Vec<Outcome> = (0..6).map(|v| solution.outcome(v)).collect();
    assert_eq!(got, vec![Draw, Loss, Win, Win, Win, Win]);
    assert_eq!(best_moves(&misere, &solution, 1), Some(vec![2]));
    assert_eq!(best_moves(&misere, &solution, 5), Some(vec![1]));
}

#[test]
fn best_moves_hurry_to_win_and_delay_losing() {
    // 0 -> 1 (a LOSS at distance 0) or 0 -> 2 (a LOSS at distance 2): the
    // winner takes 1. 3 -> 4 (WIN at 1) or 3 -> 0 (WIN at 1) or 3 -> 5
    // (WIN at 3): the loser takes 5.
    let text = b"0 1\n0 2\n2 6\n6 7\n3 4\n3 0\n3 5\n4 1\n5 2\n";
    let graph = parse_graph(text, "t", Convention::Normal).unwrap();
    let solution = solve(
        &graph,
        &SolveOptions::new(Engine::Parallel).with_dte_table(true),
    )
    .unwrap();
    assert_eq!(solution.outcome(2), Outcome::Loss);
    assert_eq!(solution.dte(2).unwrap().plies(), 2);
    assert_eq!(best_moves(&graph, &solution, 0), Some(vec![1]));
    assert_eq!(solution.outcome(3), Outcome::Loss);
    assert_eq!(solution.dte(3).unwrap().plies(), 4);
    assert_eq!(best_moves(&graph, &solution, 3), Some(vec![5]));
    let no_table = solve(&graph, &SolveOptions::new(Engine::Sequential)).unwrap();
    assert_eq!(best_moves(&graph, &no_table, 0), None);
}

#[test]
fn empty_and_edge_free_graphs() {
    for text in [&b""[..], b"# nothing\n\n", b"p 0 0\n"] {
        let graph = parse_graph(text, "t", Convention::Normal).unwrap();
        assert_eq!(graph.state_count(), 0);
        for (_, options) in engines() {
            assert_eq!(solve(&graph, &options).unwrap().counts().win, 0);
        }
    }
    let graph = parse_graph(b"p 130 0\nwin 70\n", "t", Convention::Normal).unwrap();
    let counts = solve(&graph, &SolveOptions::new(Engine::Explicit))
        .unwrap()
        .counts();
    assert_eq!((counts.win, counts.loss, counts.draw), (1, 129, 0));
    let graph = parse_graph(b"p 130 0\nloss 70\n", "t", Convention::Misere).unwrap();
    let counts = solve(&graph, &SolveOptions::new(Engine::Parallel))
        .unwrap()
        .counts();
    assert_eq!((counts.win, counts.loss, counts.draw), (129, 1, 0));
}

/// The error `parse_graph` gives for `text`, as `line:column: message`.
fn parse_error(text: &str) -> String {
    match parse_graph(text.as_bytes(), "bad.txt", Convention::Normal) {
        Ok(_) => panic!("parsed without error:\n{text}"),
        Err(Error::Parse {
            path,
            line,
            column,
            message,
        }) => {
            assert_eq!(path, "bad.txt");
            format!("{line}:{column}: {message}")
        }
        Err(e) => panic!("not a parse error: {e}"),
    }
}

#[test]
fn parse_errors_name_line_column_and_what_was_expected() {
    let cases: &[(&str, &str)] = &[
        ("0 1\n1 x\n", "2:3: expected a target vertex (a 0-based integer), found `x`"),
        ("0\n", "1:2: expected a target vertex (a 0-based integer), found `end of line`"),
        ("0 -1\n", "1:3: expected a target vertex (a 0-based integer), found `-1`"),
        ("12a 3\n", "1:1: expected a source vertex (a 0-based integer), found `12a`"),
        ("0 1 2\n", "1:5: expected the end of the line after the edge `u v`, found `2`"),
        ("foo 1\n", "1:1: expected an edge `u v`, `win v` or `loss v`, found `foo`"),
        ("win\n", "1:4: expected a vertex (a 0-based integer), found `end of line`"),
        ("loss 1 2\n", "1:8: expected the end of the line after `loss v`, found `2`"),
        ("99999999999999999999999 1\n", "1:1: a source vertex `99999999999999999999999` is too large"),
        ("0 1\np 2 1\n", "2:1: a `p N M` line must be the first line of the file, before any edge, win or loss line"),
        ("p 3 2\n0 1\n", "1:5: the `p` line declares 2 edges but the file has 1"),
        ("p 3 1\n0 3\n", "2:3: vertex 3 is out of range: the `p` line declares 3 vertices (ids 0 to 2)"),
        ("p 3 0\nwin 7\n", "2:5: vertex 7 is out of range: the `p` line declares 3 vertices (ids 0 to 2)"),
        ("p 2 1 5\n0 1\n", "1:7: expected the end of the line after `p N M`, found `5`"),
        ("p x 1\n", "1:3: expected the vertex count N of `p N M` (a 0-based integer), found `x`"),
        ("# c\n\n  p 2\n", "3:6: expected the edge count M of `p N M` (a 0-based integer), found `end of line`"),
        ("win 0\n0 1\n", "1:5: vertex 0 is fixed by `win 0` but has 1 outgoing edge: a vertex with a fixed value must have no moves"),
        ("0 1\n0 2\n\nloss 0\n", "4:6: vertex 0 is fixed by `loss 0` but has 2 outgoing edges: a vertex with a fixed value must have no moves"),
        ("win 2\nwin 2\nloss 2\n", "3:6: vertex 2 is fixed as loss here but as win at line 1"),
        // Columns count characters, tabs included.
        ("\t1 0\n\t1 é\n", "2:4: expected a target vertex (a 0-based integer), found `é`"),
    ];
    for (text, expected) in cases {
        assert_eq!(&parse_error(text), expected, "for {text:?}");
    }
    // Comments, CRLF and a trailing line without a line end are fine.
    let graph = parse_graph(b"# x\r\n0 1 # y\r\n1 0#z\r\n1 1", "t", Convention::Normal).unwrap();
    assert_eq!(graph.edge_count(), 3);
}

#[test]
fn errors_deep_in_large_inputs_have_exact_lines() {
    // Several megabytes: the parser splits them into chunks parsed in
    // parallel, and must still count lines across chunks.
    let mut text = String::from("# big\n");
    for k in 0..400_000u64 {
        text += &format!("{} {}\n", k % 1000, (k * 7) % 1000);
    }
    let good = parse_graph(text.as_bytes(), "big", Convention::Normal).unwrap();
    assert_eq!(good.edge_count(), 400_000);
    text += "5 oops\n";
    assert_eq!(
        parse_error(&text),
        "400002:3: expected a target vertex (a 0-based integer), found `oops`"
    );
    let dir = temp_dir("big");
    let path = dir.join("big.txt");
    std::fs::write(&path, &text).unwrap();
    match load_graph(&path, Convention::Normal) {
        Err(Error::Parse { line, column, .. }) => assert_eq!((line, column), (400_002, 3)),
        other => panic!(
            "expected a parse error, got {:?}",
            other.map(|g| g.state_count())
        ),
    }
    std::fs::write(&path, &text[..text.len() - "5 oops\n".len()]).unwrap();
    let loaded = load_graph(&path, Convention::Normal).unwrap();
    assert_eq!(loaded.edge_count(), 400_000);
    assert_eq!(loaded.state_count(), 1000);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn sparse_ids_that_cannot_fit_are_refused_before_allocating() {
    match parse_graph(b"0 1000000000000\n", "sparse.txt", Convention::Normal) {
        Err(Error::TooLarge { needed, hint, .. }) => {
            assert!(needed > 16_000_000_000_000, "{needed}");
            assert!(hint.contains("dense"), "{hint}");
        }
        other => panic!(
            "expected TooLarge, got {:?}",
            other.map(|g| g.state_count())
        ),
    }
}

/// A small open map with a border exit: 3 x 4, 12 cells, 288 states.
const MAP: &str = "3 4\nC..E\n....\n...T\n";

fn map_game() -> CopsGame {
    let map = parse_map(MAP.as_bytes(), "map.txt").unwrap();
    CopsGame::from_map(
        &map,
        &Placement::default(),
        Rules::default(),
        1,
        Speeds::default(),
    )
    .unwrap()
}

#[test]
fn explicit_engine_refuses_a_graph_over_the_memory_limit() {
    let game = map_game();
    let graph_bytes = explicit_estimate(&game);
    let options = SolveOptions::new(Engine::Explicit).with_dte_table(true);
    let sized = estimate(&game, &options);
    assert_eq!(sized.graph, graph_bytes);
    assert!(sized.total() > graph_bytes);
    match solve(&game, &options.clone().with_memory_limit(Some(1000))) {
        Err(Error::TooLarge {
            needed,
            available,
            what,
            hint,
        }) => {
            assert_eq!(available, 1000);
            assert!(needed >= graph_bytes, "{needed} < {graph_bytes}");
            assert!(what.contains("288 states"), "{what}");
            assert!(hint.contains("on the fly"), "{hint}");
        }
        other => panic!("expected TooLarge, got ok = {}", other.is_ok()),
    }
    // Enough room: it solves, and counts the graph in its bytes.
    let solution = solve(&game, &options.with_memory_limit(Some(1 << 30))).unwrap();
    assert!(solution.bytes() > graph_bytes);
    // Scratch-backed solves are not held to the memory limit.
    let dir = temp_dir("scratch");
    let scratch = SolveOptions::new(Engine::Explicit)
        .with_backing(Backing::Scratch(dir.clone()))
        .with_memory_limit(Some(1000));
    assert!(solve(&game, &scratch).is_ok());
    let _ = std::fs::remove_dir_all(dir);
}

/// A fresh empty directory for one test (names prefixed apart from the
/// other modules' directories).
fn temp_dir(name: &str) -> PathBuf {
    crate::support::temp_dir(&format!("graph-{name}"))
}

fn run(args: &[&str]) -> Output {
    crate::support::run(args, None)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// 0 -> 1 -> 2 (dead end), 3 <-> 4 (a draw), 5 fixed as a win.
const GRAPH: &str = "# test graph\np 6 4\n0 1\n1 2\n3 4\n4 3\nwin 5\n";

#[test]
fn cli_json_has_vertices_edges_and_counts() {
    let dir = temp_dir("json");
    let file = dir.join("g.txt");
    std::fs::write(&file, GRAPH).unwrap();
    for engine in ["sequential", "parallel", "explicit"] {
        let out = run(&[
            "graph",
            file.to_str().unwrap(),
            "--json",
            "--engine",
            engine,
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["vertices"], 6);
        assert_eq!(json["edges"], 4);
        assert_eq!(json["counts"]["win"], 2, "{json}");
        assert_eq!(json["counts"]["loss"], 2);
        assert_eq!(json["counts"]["draw"], 2);
        assert_eq!(json["engine"], engine);
        assert!(json.get("query").is_none());
    }
    let out = run(&["graph", file.to_str().unwrap(), "--json", "--no-move-wins"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["convention"], "misere");
    assert_eq!(json["counts"]["win"], 3);
    assert_eq!(json["counts"]["loss"], 1);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cli_dump_query_and_text() {
    let dir = temp_dir("dump");
    let file = dir.join("g.txt");
    let dump = dir.join("out.csv");
    std::fs::write(&file, GRAPH).unwrap();
    let out = run(&[
        "graph",
        file.to_str().unwrap(),
        "--dump",
        dump.to_str().unwrap(),
        "--query",
        "0",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(&dump).unwrap(),
        "vertex,value,dte\n0,loss,2\n1,win,1\n2,loss,0\n3,draw,\n4,draw,\n5,win,0\n"
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("vertex 0: loss in 2 plies\nbest moves: 1\n"),
        "{stdout}"
    );
    assert!(stdout.contains("6 vertices, 4 edges"), "{stdout}");
    assert!(stdout.contains("win 2, loss 2, draw 2"), "{stdout}");
    let out = run(&["graph", file.to_str().unwrap(), "--query", "3", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["query"],
        serde_json::json!({"vertex": 3, "value": "draw", "dte": null, "best_moves": [4]})
    );
    let out = run(&["graph", file.to_str().unwrap(), "--query", "5"]);
    assert!(text(&out.stdout).starts_with("vertex 5: win in 0 plies\nbest moves: none"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cli_bad_input_exits_2_and_leaves_no_dump() {
    let dir = temp_dir("bad");
    let file = dir.join("bad.txt");
    let dump = dir.join("out.csv");
    std::fs::write(&file, "0 1\n1 x\n").unwrap();
    let out = run(&[
        "graph",
        file.to_str().unwrap(),
        "--dump",
        dump.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("{}:2:3: expected a target vertex", file.display())),
        "{stderr}"
    );
    assert_eq!(listing(&dir), vec!["bad.txt".to_string()]);
    // A vertex out of range for --query is a usage error.
    std::fs::write(&file, GRAPH).unwrap();
    let out = run(&["graph", file.to_str().unwrap(), "--query", "6"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--query 6"));
    // A missing file is an error naming it.
    let missing = dir.join("missing.txt");
    let out = run(&["graph", missing.to_str().unwrap()]);
    assert_ne!(out.status.code(), Some(0));
    assert!(text(&out.stderr).contains("missing.txt"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cli_reads_stdin_and_solves_maps_with_the_explicit_engine() {
    let out = crate::support::run(&["graph", "-", "--json"], Some(GRAPH.as_bytes()));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["vertices"], 6);

    let dir = temp_dir("map");
    let map = dir.join("map.txt");
    std::fs::write(&map, MAP).unwrap();
    let report = |engine: &str| -> serde_json::Value {
        let out = run(&["solve", map.to_str().unwrap(), "--json", "--engine", engine]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let (explicit, sequential) = (report("explicit"), report("sequential"));
    for key in ["result", "dte", "counts", "levels", "states"] {
        assert_eq!(explicit[key], sequential[key], "{key}");
    }
    // Over the limit: refused with the estimate before any work, exit
    // status 2 like bad input.
    let out = run(&[
        "solve",
        map.to_str().unwrap(),
        "--engine",
        "explicit",
        "--memory-limit",
        "1K",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("the explicit graph (288 states")
            && stderr.contains("only 1.0 KiB are available"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Grundy values by naive recursive mex over an edge list (acyclic only).
fn naive_grundy(edges: &[(usize, usize)], v: usize) -> u32 {
    let next: Vec<u32> = edges
        .iter()
        .filter(|e| e.0 == v)
        .map(|e| naive_grundy(edges, e.1))
        .collect();
    (0..).find(|g| !next.contains(g)).unwrap()
}

#[test]
fn cli_grundy_on_acyclic_graphs_and_refusal_on_cycles() {
    let dir = temp_dir("grundy");
    let file = dir.join("dag.txt");
    // A small DAG with a shared sink and a longer chain.
    let edges = [
        (0, 1),
        (0, 2),
        (1, 2),
        (2, 3),
        (3, 4),
        (1, 4),
        (5, 0),
        (5, 4),
    ];
    let mut body = String::from("p 6 8\n");
    for (u, v) in edges {
        body.push_str(&format!("{u} {v}\n"));
    }
    std::fs::write(&file, body).unwrap();
    let dump = dir.join("g.csv");
    let out = run(&[
        "graph",
        file.to_str().unwrap(),
        "--grundy",
        "--json",
        "--dump",
        dump.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let expected: Vec<u32> = (0..6).map(|v| naive_grundy(&edges, v)).collect();
    let got: Vec<u32> = json["grundy"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect();
    assert_eq!(got, expected);
    assert_eq!(json["grundy"]["defined"], true);
    // Grundy value 0 exactly at the LOSS vertices.
    let csv = std::fs::read_to_string(&dump).unwrap();
    assert!(csv.starts_with("vertex,value,dte,grundy\n"));
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f[1] == "loss", f[3] == "0", "{line}");
    }
    let cyclic = dir.join("cycle.txt");
    std::fs::write(&cyclic, "0 1\n1 2\n2 1\n").unwrap();
    let out = run(&["graph", cyclic.to_str().unwrap(), "--grundy", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["grundy"]["defined"], false);
    assert!(json["grundy"]["reason"].as_str().unwrap().contains("cycle"));
    let _ = std::fs::remove_dir_all(dir);
}

/// `graph` keeps to `--memory`: a graph whose arrays cannot fit under the
/// cap is refused before it is built, naming what it needs.
#[test]
fn cli_graph_respects_the_memory_cap() {
    let dir = temp_dir("memory-cap");
    let file = dir.join("g.txt");
    std::fs::write(&file, GRAPH).unwrap();
    let path = file.to_str().unwrap();
    let refused = run(&["graph", path, "--memory", "64"]);
    assert!(!refused.status.success());
    let err = text(&refused.stderr);
    assert!(err.contains("needs") && err.contains("only 64"), "{err}");
    let fine = run(&["graph", path, "--memory", "1M", "--json"]);
    assert!(fine.status.success(), "{}", text(&fine.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// An edge list that starts with a UTF-8 byte-order mark reads as the same
/// list without one in every command that takes edge lists (`graph`,
/// `copnumber`, `solve --graph`), as maps and scenarios do; an error on its
/// first line is placed by the columns after the mark.
#[test]
fn cli_edge_lists_may_start_with_a_byte_order_mark() {
    let dir = temp_dir("bom");
    let file = dir.join("g.txt");
    let path = file.to_str().unwrap();
    let commands: [&[&str]; 3] = [
        &["graph", path],
        &["copnumber", path],
        &[
            "solve", "--graph", path, "--cops", "1", "--cop", "0", "--thief", "2", "-q",
        ],
    ];
    // What varies from run to run: times and memory.
    let stable = |out: &Output| -> Vec<String> {
        text(&out.stdout)
            .lines()
            .filter(|l| !l.starts_with("time:"))
            .map(str::to_string)
            .collect()
    };
    for args in commands {
        std::fs::write(&file, "0 1\n1 2\n").unwrap();
        let plain = run(args);
        assert!(plain.status.success(), "{args:?}: {}", text(&plain.stderr));
        std::fs::write(&file, b"\xef\xbb\xbf0 1\n1 2\n").unwrap();
        let marked = run(args);
        assert!(
            marked.status.success(),
            "{args:?}: {}",
            text(&marked.stderr)
        );
        assert_eq!(stable(&marked), stable(&plain), "{args:?}");
        std::fs::write(&file, b"\xef\xbb\xbf0 x\n1 2\n").unwrap();
        let bad = run(args);
        assert_eq!(bad.status.code(), Some(2), "{args:?}");
        let err = text(&bad.stderr);
        assert!(
            err.contains(&format!("{path}:1:3: expected a")),
            "{args:?}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
