//! A brute-force reference solver for the several-cops game, written from
//! docs/rules.md ("Several cops") alone, used only as a test oracle. It
//! shares no code with the crate: its own neighbours from (row, column)
//! coordinates or edge lists, reach sets by enumerating every walk, cops
//! as *ordered* tuples (k! copies of each multiset, which must agree),
//! every successor stored, and the one-cop oracle's naive round-by-round
//! fixpoint (`oracle::fixpoint`, which checks the definitions of the values
//! and of the distance to end on every state). After it, it checks that the
//! order of the cops does not matter.
//!
//! Lazy cops (docs/rules.md, "Lazy cops"): on the cops' turn exactly one
//! cop makes a one-cop move (any end cell of its walks, its own cell when
//! the cops may pass) and every other cop stays; so all stay exactly when
//! a single cop could end its move where it stands.

use super::{fixpoint, Arena, Side, Value, Variant};

/// The board of the several-cops game in the oracle's terms.
#[derive(Clone, Debug)]
pub struct KBoard {
    pub n: usize,
    /// One-step neighbours (no pass).
    pub cop_adj: Vec<Vec<usize>>,
    pub thief_adj: Vec<Vec<usize>>,
    pub exit: Vec<bool>,
    pub cop_passes: bool,
    pub thief_passes: bool,
    pub cop_speed: usize,
    pub thief_speed: usize,
    /// Lazy cops: one cop moves a turn, the others stay.
    pub lazy: bool,
}

impl KBoard {
    /// A grid: cells are the free cells in row-major order; cop and thief
    /// steps as in rules.md under `variant`; the grid's exits.
    pub fn from_grid(arena: &Arena, variant: Variant) -> KBoard {
        let cells = arena.free_cells();
        let id = |r: i64, c: i64| cells.iter().position(|&p| p == (r as usize, c as usize));
        let adjacency = |diagonal: bool| -> Vec<Vec<usize>> {
            cells
                .iter()
                .map(|&(r, c)| {
                    let (r, c) = (r as i64, c as i64);
                    let mut to = Vec::new();
                    for dr in -1i64..=1 {
                        for dc in -1i64..=1 {
                            let diagonal_step = dr != 0 && dc != 0;
                            if (dr, dc) == (0, 0) || (diagonal_step && !diagonal) {
                                continue;
                            }
                            if !arena.is_free(r + dr, c + dc) {
                                continue;
                            }
                            if diagonal_step
                                && !variant.corner_cutting
                                && !(arena.is_free(r + dr, c) && arena.is_free(r, c + dc))
                            {
                                continue;
                            }
                            to.push(id(r + dr, c + dc).unwrap());
                        }
                    }
                    to
                })
                .collect()
        };
        KBoard {
            n: cells.len(),
            cop_adj: adjacency(variant.cop_diagonal),
            thief_adj: adjacency(variant.thief_diagonal),
            exit: cells
                .iter()
                .map(|&(r, c)| arena.exit[r * arena.width + c])
                .collect(),
            cop_passes: variant.cop_passes,
            thief_passes: variant.thief_passes,
            cop_speed: 1,
            thief_speed: 1,
            lazy: false,
        }
    }

    /// An undirected graph: both sides along the edges (self-loops and
    /// repeats ignored), both may pass, no exits.
    pub fn from_edges(n: usize, edges: &[(usize, usize)]) -> KBoard {
        let mut adj = vec![Vec::new(); n];
        for &(u, v) in edges {
            if u != v && !adj[u].contains(&v) {
                adj[u].push(v);
                adj[v].push(u);
            }
        }
        KBoard {
            n,
            cop_adj: adj.clone(),
            thief_adj: adj,
            exit: vec![false; n],
            cop_passes: true,
            thief_passes: true,
            cop_speed: 1,
            thief_speed: 1,
            lazy: false,
        }
    }

    /// Every end cell of a walk from `from` of 1..=`speed` steps along
    /// `adj` that never continues from a cell in `blocked`, plus `from`
    /// itself if `passes`; sorted, without repeats.
    fn reach(
        adj: &[Vec<usize>],
        from: usize,
        speed: usize,
        passes: bool,
        blocked: &[usize],
    ) -> Vec<usize> {
        fn walk(
            adj: &[Vec<usize>],
            at: usize,
            left: usize,
            blocked: &[usize],
            out: &mut Vec<usize>,
        ) {
            for &to in &adj[at] {
                out.push(to);
                if left > 1 && !blocked.contains(&to) {
                    walk(adj, to, left - 1, blocked, out);
                }
            }
        }
        let mut out = Vec::new();
        if passes {
            out.push(from);
        }
        walk(adj, from, speed, blocked, &mut out);
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Every state's value and distance to end with `k` ordered cops.
pub struct KOracle {
    n: usize,
    k: usize,
    value: Vec<Value>,
    dte: Vec<Option<u32>>,
}

impl KOracle {
    fn tuples(n: usize, k: usize) -> usize {
        n.pow(k as u32)
    }

    /// The ordered cops of tuple number `x`: cop i is digit i in base n.
    fn cops_of(n: usize, k: usize, mut x: usize) -> Vec<usize> {
        (0..k)
            .map(|_| {
                let c = x % n;
                x /= n;
                c
            })
            .collect()
    }

    fn tuple_of(n: usize, cops: &[usize]) -> usize {
        cops.iter().rev().fold(0, |x, &c| x * n + c)
    }

    /// Solves every `(cops, thief, side)` of `board` with `k` cops.
    pub fn solve(board: &KBoard, k: usize) -> KOracle {
        let n = board.n;
        let tuples = KOracle::tuples(n, k);
        let index = |x: usize, t: usize, side: Side| (side as usize * n + t) * tuples + x;
        let total = 2 * n * tuples;
        let cop_reach: Vec<Vec<usize>> = (0..n)
            .map(|c| KBoard::reach(&board.cop_adj, c, board.cop_speed, board.cop_passes, &[]))
            .collect();
        // Rule order: capture first, then escape.
        let terminal = |cops: &[usize], t: usize, side: Side| -> Option<Value> {
            let cops_won = if cops.contains(&t) {
                true
            } else if board.exit[t] {
                false
            } else {
                return None;
            };
            Some(if cops_won == (side == Side::Cop) {
                Value::Win
            } else {
                Value::Loss
            })
        };
        let mut states = Vec::with_capacity(total);
        let mut next: Vec<Vec<usize>> = Vec::with_capacity(total);
        for side in [Side::Cop, Side::Thief] {
            for t in 0..n {
                for x in 0..tuples {
                    let cops = KOracle::cops_of(n, k, x);
                    let mut succ = Vec::new();
                    if terminal(&cops, t, side).is_none() {
                        match side {
                            Side::Cop if board.lazy => {
                                // One cop (any of them) moves within its
                                // reach; the others keep their cells.
                                for (i, &c) in cops.iter().enumerate() {
                                    for &d in &cop_reach[c] {
                                        let mut q = cops.clone();
                                        q[i] = d;
                                        succ.push(index(KOracle::tuple_of(n, &q), t, Side::Thief));
                                    }
                                }
                                succ.sort_unstable();
                                succ.dedup();
                            }
                            Side::Cop => {
                                // Every cop independently: the product of
                                // the reach sets, as ordered tuples.
                                let mut partial: Vec<Vec<usize>> = vec![Vec::new()];
                                for &c in &cops {
                                    partial = partial
                                        .into_iter()
                                        .flat_map(|p| {
                                            cop_reach[c].iter().map(move |&d| {
                                                let mut q = p.clone();
                                                q.push(d);
                                                q
                                            })
                                        })
                                        .collect();
                                }
                                for q in partial {
                                    succ.push(index(KOracle::tuple_of(n, &q), t, Side::Thief));
                                }
                            }
                            Side::Thief => {
                                for u in KBoard::reach(
                                    &board.thief_adj,
                                    t,
                                    board.thief_speed,
                                    board.thief_passes,
                                    &cops,
                                ) {
                                    succ.push(index(x, u, Side::Cop));
                                }
                            }
                        }
                    }
                    debug_assert_eq!(index(x, t, side), states.len());
                    states.push((cops, t, side));
                    next.push(succ);
                }
            }
        }

        let terminals: Vec<Option<Value>> = states
            .iter()
            .map(|(cops, t, side)| terminal(cops, *t, *side))
            .collect();
        let (value, dte) = fixpoint(&terminals, &next, |s| format!("{:?}", states[s]));

        // The order of the cops does not matter.
        for (s, (cops, t, side)) in states.iter().enumerate() {
            let here = (cops, t, side);
            let mut sorted = cops.clone();
            sorted.sort_unstable();
            let canonical = index(KOracle::tuple_of(n, &sorted), *t, *side);
            assert_eq!(
                (value[s], dte[s]),
                (value[canonical], dte[canonical]),
                "cop order matters at {here:?}"
            );
        }
        KOracle { n, k, value, dte }
    }

    /// Value and distance to end of `(cops, thief, side)`, cops in any
    /// order.
    pub fn lookup(&self, cops: &[usize], thief: usize, side: Side) -> (Value, Option<u32>) {
        assert_eq!(cops.len(), self.k);
        let tuples = KOracle::tuples(self.n, self.k);
        let s = (side as usize * self.n + thief) * tuples + KOracle::tuple_of(self.n, cops);
        (self.value[s], self.dte[s])
    }

    /// The cop number test of docs/rules.md: the least `k` of `1..=max`
    /// with a placement winning against every thief cell, by solving each.
    pub fn cop_number(board: &KBoard, max: usize) -> Option<usize> {
        (1..=max).find(|&k| {
            let oracle = KOracle::solve(board, k);
            (0..KOracle::tuples(board.n, k)).any(|x| {
                let cops = KOracle::cops_of(board.n, k, x);
                (0..board.n).all(|t| oracle.lookup(&cops, t, Side::Cop).0 == Value::Win)
            })
        })
    }
}

#[test]
fn two_cops_catch_on_a_four_cycle_and_one_does_not() {
    let cycle = KBoard::from_edges(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]);
    assert_eq!(KOracle::cop_number(&cycle, 3), Some(2));
    let one = KOracle::solve(&cycle, 1);
    assert_eq!(one.lookup(&[0], 2, Side::Cop), (Value::Draw, None));
    let two = KOracle::solve(&cycle, 2);
    // Cops on 0 and 2 against a thief on 1: one step.
    assert_eq!(two.lookup(&[2, 0], 1, Side::Cop), (Value::Win, Some(1)));
    // Thief on 1 to move between cops on 0 and 2: caught next ply.
    assert_eq!(two.lookup(&[0, 2], 1, Side::Thief), (Value::Loss, Some(2)));
}

#[test]
fn lazy_cops_need_more_on_a_cycle_of_four_and_two_cops_on_a_path() {
    // Lazy cops on a 4-cycle: still 2 (one guards, one chases).
    let mut cycle = KBoard::from_edges(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]);
    cycle.lazy = true;
    assert_eq!(KOracle::cop_number(&cycle, 3), Some(2));
    // Path 0-1-...-6, cops on 0 and 6, thief on 3, cops to move: plain
    // cops close in from both sides (1 and 5, then 2 and 4: the thief is
    // caught at ply 5); lazy ones have fewer moves, the same thief, so
    // they win no sooner, and one at a time they cannot hem it in by ply 4.
    let path: Vec<(usize, usize)> = (0..6).map(|v| (v, v + 1)).collect();
    let mut path = KBoard::from_edges(7, &path);
    let plain = KOracle::solve(&path, 2);
    path.lazy = true;
    let lazy = KOracle::solve(&path, 2);
    assert_eq!(plain.lookup(&[0, 6], 3, Side::Cop), (Value::Win, Some(5)));
    let (value, dte) = lazy.lookup(&[0, 6], 3, Side::Cop);
    assert_eq!(value, Value::Win);
    assert!(dte.unwrap() > 5, "lazy dte {dte:?}");
    // An edge 0-1 and an isolated vertex 2, the cops may not pass.
    let mut edge = KBoard::from_edges(3, &[(0, 1)]);
    edge.cop_passes = false;
    edge.lazy = true;
    let oracle = KOracle::solve(&edge, 2);
    // Thief alone on 2 (isolated, may pass): never caught.
    assert_eq!(oracle.lookup(&[0, 1], 2, Side::Cop).0, Value::Draw);
    // Both cops on the isolated vertex 2 without passing: no move, lose.
    assert_eq!(oracle.lookup(&[2, 2], 0, Side::Cop), (Value::Loss, Some(0)));
}

#[test]
fn a_fast_thief_may_not_run_through_a_cop() {
    // Path 0-1-2-3 with an exit at 3; thief of speed 3 on 0, cop on 1.
    let mut path = KBoard::from_edges(4, &[(0, 1), (1, 2), (2, 3)]);
    path.exit[3] = true;
    path.thief_speed = 3;
    path.cop_passes = true;
    let oracle = KOracle::solve(&path, 1);
    // Running 0-1-2-3 would escape at once; through the cop on 1 it may
    // not, so it passes (or steps onto the cop) and is caught.
    assert_eq!(oracle.lookup(&[1], 0, Side::Thief), (Value::Loss, Some(2)));
    // With the cop behind it the way is free.
    assert_eq!(oracle.lookup(&[0], 1, Side::Thief), (Value::Win, Some(1)));
}
