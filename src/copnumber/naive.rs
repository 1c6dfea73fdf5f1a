//! A naive fixpoint of the k-cop game written from the spec, state by
//! state with explicit joint moves, to check the bitset engine against.

use std::collections::HashMap;

use super::cop_number_of_graph;
use super::small::{
    closed_masks, dominated_by_two, is_dismantlable, small_cops_win, small_one_cop_win,
    small_two_cops_win,
};
use crate::games::arena::Arena;
use crate::games::cops::Turn;
use crate::games::position::{Cops, Position};
use crate::outcome::Outcome;
use crate::solve::multicop::{solve_kcops, KcopOptions};
use crate::xorshift::Rng;

type State = (Vec<u32>, u32, bool);

fn cop_reach(a: &Arena, c: u32) -> Vec<u32> {
    let mut out: Vec<u32> = if a.passes().0 { vec![c] } else { vec![] };
    let mut layer = vec![c];
    for _ in 0..a.speeds().0 {
        layer = layer
            .iter()
            .flat_map(|&u| a.cop_steps(u).iter().copied())
            .collect();
        out.extend(&layer);
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn thief_reach(a: &Arena, t: u32, cops: &[u32]) -> Vec<u32> {
    let mut out = if a.passes().1 { vec![t] } else { vec![] };
    // Walks of 1..=S steps; every cell but the last must hold no cop.
    fn walk(a: &Arena, at: u32, left: u32, cops: &[u32], out: &mut Vec<u32>) {
        for &v in a.thief_steps(at) {
            out.push(v);
            if left > 1 && !cops.contains(&v) {
                walk(a, v, left - 1, cops, out);
            }
        }
    }
    walk(a, t, a.speeds().1, cops, &mut out);
    out.sort_unstable();
    out.dedup();
    out
}

fn successors(a: &Arena, s: &State) -> Vec<State> {
    let (cops, t, cop_turn) = s;
    if *cop_turn {
        let mut all: Vec<Vec<u32>> = vec![vec![]];
        for &c in cops {
            let r = cop_reach(a, c);
            all = all
                .iter()
                .flat_map(|p| r.iter().map(move |&x| [p.clone(), vec![x]].concat()))
                .collect();
        }
        let mut out: Vec<State> = all
            .into_iter()
            .map(|mut p| {
                p.sort_unstable();
                (p, *t, false)
            })
            .collect();
        out.sort();
        out.dedup();
        out
    } else {
        thief_reach(a, *t, cops)
            .into_iter()
            .map(|x| (cops.clone(), x, true))
            .collect()
    }
}

/// Every state's (outcome for the mover, distance) by levels.
pub(crate) fn naive_solve(a: &Arena, k: usize) -> HashMap<State, (Outcome, u32)> {
    let mut states = Vec::new();
    let mut p = vec![0u32; k];
    loop {
        for t in 0..a.cells() {
            states.push((p.clone(), t, true));
            states.push((p.clone(), t, false));
        }
        // Next multiset, ascending cells.
        let mut i = 0;
        loop {
            if i == k {
                return run(a, states);
            }
            let limit = if i + 1 < k { p[i + 1] } else { a.cells() - 1 };
            if p[i] < limit {
                p[i] += 1;
                p[..i].iter_mut().for_each(|c| *c = 0);
                break;
            }
            i += 1;
        }
    }
}

fn run(a: &Arena, states: Vec<State>) -> HashMap<State, (Outcome, u32)> {
    let mut val: HashMap<State, (Outcome, u32)> = HashMap::new();
    let succ: HashMap<State, Vec<State>> = states
        .iter()
        .map(|s| (s.clone(), successors(a, s)))
        .collect();
    for s in &states {
        let (cops, t, cop_turn) = s;
        let v = if cops.contains(t) {
            Some(if *cop_turn {
                Outcome::Win
            } else {
                Outcome::Loss
            })
        } else if a.is_exit(*t) {
            Some(if *cop_turn {
                Outcome::Loss
            } else {
                Outcome::Win
            })
        } else if succ[s].is_empty() {
            Some(Outcome::Loss)
        } else {
            None
        };
        if let Some(v) = v {
            val.insert(s.clone(), (v, 0));
        }
    }
    for d in 0.. {
        let mut new = Vec::new();
        for s in states.iter().filter(|s| !val.contains_key(*s)) {
            let ss = &succ[s];
            if ss
                .iter()
                .any(|x| matches!(val.get(x), Some((Outcome::Loss, _))))
            {
                new.push((s.clone(), Outcome::Win));
            } else if ss
                .iter()
                .all(|x| matches!(val.get(x), Some((Outcome::Win, _))))
            {
                new.push((s.clone(), Outcome::Loss));
            }
        }
        if new.is_empty() {
            break;
        }
        for (s, v) in new {
            val.insert(s, (v, d + 1));
        }
    }
    val
}

fn random_graph(rng: &mut Rng, n: usize, p: u64) -> Vec<(u32, u32)> {
    let mut edges = Vec::new();
    for v in 0..n as u32 {
        for u in 0..v {
            if rng.below(100) < p {
                edges.push((u, v));
            }
        }
    }
    edges
}

#[test]
fn engine_agrees_with_the_naive_fixpoint_state_by_state() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0;
    for case in 0..160 {
        let k = 1 + case % 3;
        let n = 1 + rng.below(if k == 3 { 5 } else { 7 }) as usize;
        let p = 25 + rng.below(50);
        let edges = random_graph(&mut rng, n, p);
        let mut a = Arena::from_edges(n as u32, &edges).unwrap();
        if case % 4 != 0 {
            let speeds = (1 + rng.below(2) as u32, 1 + rng.below(2) as u32);
            let passes = (rng.below(4) != 0, rng.below(4) != 0);
            let exits: Vec<u32> = (0..n as u32).filter(|_| rng.below(6) == 0).collect();
            a = a
                .with_speeds(speeds.0, speeds.1)
                .with_passes(passes.0, passes.1)
                .with_exits(&exits)
                .unwrap();
        }
        if case % 5 == 1 {
            // Different relations for the two sides (as on grids).
            let more = random_graph(&mut rng, n, 30);
            a = a.with_cop_edges(&[edges.clone(), more].concat()).unwrap();
        }
        let sol = solve_kcops(
            &a,
            &KcopOptions {
                cops: k,
                dte_table: true,
                ..KcopOptions::default()
            },
        );
        let naive = naive_solve(&a, k);
        for r in 0..crate::games::multiset::multiset_count(n, k) {
            let cops = crate::games::multiset::unrank_multiset(r, k);
            for t in 0..n as u32 {
                for cop_turn in [true, false] {
                    let want = naive.get(&(cops.clone(), t, cop_turn)).copied();
                    let s = Position {
                        cops: Cops::new(&cops).expect("k cops"),
                        thief: t,
                        turn: if cop_turn { Turn::Cop } else { Turn::Thief },
                    };
                    let (got, dte) = sol.value(&s);
                    let want_v = want.map_or(Outcome::Draw, |w| w.0);
                    assert_eq!(got, want_v, "case {case} {a:?} k={k} state {s:?}");
                    assert_eq!(
                        dte.map(|x| x.0),
                        want.map(|w| w.1),
                        "case {case} k={k} {s:?}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

#[test]
fn draws_are_draws_and_the_start_distance_is_recorded() {
    // A 5-cycle: one cop never catches the thief (all draws at thief to
    // move and cops to move away from capture).
    let a = Arena::from_edges(5, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]).unwrap();
    let from = |cops: &[u32]| {
        let start = Position {
            cops: Cops::new(cops).expect("one or two cops"),
            thief: 2,
            turn: Turn::Cop,
        };
        let options = KcopOptions {
            cops: cops.len(),
            start: Some(start),
            ..KcopOptions::default()
        };
        (start, solve_kcops(&a, &options))
    };
    let (start, sol) = from(&[0]);
    assert_eq!(sol.value(&start).0, Outcome::Draw);
    assert_eq!(sol.start_dte, None);
    let (two, sol) = from(&[4, 0]);
    assert_eq!(sol.value(&two).0, Outcome::Win);
    assert_eq!(sol.start_dte, Some(3));
}

#[test]
fn small_path_engine_and_naive_agree_on_cop_wins_and_capture_times() {
    let mut rng = Rng(12345);
    for case in 0..300 {
        let n = 1 + rng.below(8) as usize;
        let p = 20 + rng.below(60);
        let edges = random_graph(&mut rng, n, p);
        let a = Arena::from_edges(n as u32, &edges).unwrap();
        let mut masks = [0u64; 64];
        let closed = closed_masks(n, &edges, &mut masks);
        for k in 1..=2usize {
            let small = small_cops_win(closed, k);
            let big = solve_kcops(
                &a,
                &KcopOptions {
                    cops: k,
                    stop_when_placed: true,
                    ..KcopOptions::default()
                },
            )
            .placement;
            assert_eq!(small, big, "case {case} k={k} {edges:?}");
            if k == 2 {
                assert_eq!(small_two_cops_win(closed), small, "case {case} {edges:?}");
                if dominated_by_two(closed) {
                    assert!(small.as_ref().is_some_and(|s| s.1 <= 1), "{edges:?}");
                }
            }
            // The naive solve: the placements winning everywhere, fastest.
            let naive = naive_solve(&a, k);
            let mut best: Option<(u32, Vec<u32>)> = None;
            for r in 0..crate::games::multiset::multiset_count(n, k) {
                let p = crate::games::multiset::unrank_multiset(r, k);
                let worst = (0..n as u32)
                    .map(|t| match naive.get(&(p.clone(), t, true)) {
                        Some(&(Outcome::Win, d)) => Some(d),
                        _ => None,
                    })
                    .try_fold(0, |m, d| d.map(|d| m.max(d)));
                if let Some(w) = worst {
                    if best.as_ref().is_none_or(|b| w < b.0) {
                        best = Some((w, p.clone()));
                    }
                }
            }
            assert_eq!(small, best.map(|(w, p)| (p, w)), "case {case} k={k}");
            if k == 1 {
                assert_eq!(is_dismantlable(closed), small.is_some(), "{edges:?}");
                assert_eq!(small_one_cop_win(closed), small, "case {case} {edges:?}");
            }
        }
        let c = cop_number_of_graph(n, &edges, 3, true);
        assert_eq!(
            c.cop_number == Some(1),
            is_dismantlable(closed),
            "{edges:?}"
        );
    }
}

#[test]
fn the_cop_number_alone_from_the_core_agrees_with_the_full_solve() {
    // Graphs with many corners hung on a core that needs 1, 2 or 3 cops
    // (a tree, a cycle, the Petersen graph) and random graphs.
    let petersen: Vec<(u32, u32)> = (0..5u32)
        .flat_map(|i| [(i, (i + 1) % 5), (5 + i, 5 + (i + 2) % 5), (i, i + 5)])
        .collect();
    let cycle: Vec<(u32, u32)> = (0..6u32).map(|i| (i, (i + 1) % 6)).collect();
    let mut rng = Rng(777);
    let mut seen = [0usize; 4];
    for case in 0..600 {
        let (mut n, mut edges) = match case % 4 {
            0 => (10usize, petersen.clone()),
            1 => (6, cycle.clone()),
            2 => (1, Vec::new()),
            _ => {
                let n = 4 + rng.below(9) as usize;
                let p = 15 + rng.below(50);
                (n, random_graph(&mut rng, n, p))
            }
        };
        // New vertices: each a corner of the graph so far (a copy of a
        // vertex's closed neighbourhood, or a part of it with the vertex)
        // or, now and then, a random attachment that may change the core.
        for _ in 0..rng.below(7) {
            let v = n as u32;
            let u = rng.below(n as u64) as u32;
            let near: Vec<u32> = edges
                .iter()
                .filter_map(|&(a, b)| (a == u).then_some(b).or((b == u).then_some(a)))
                .collect();
            edges.push((u, v));
            for w in near {
                if rng.below(3) > 0 || case % 7 == 0 {
                    edges.push((w, v));
                }
            }
            if case % 11 == 0 {
                edges.push((rng.below(n as u64) as u32, v));
            }
            n += 1;
        }
        let mut masks = [0u64; 64];
        let closed = closed_masks(n, &edges, &mut masks);
        let connected = {
            let mut seen = 1u64;
            loop {
                let next = (0..n)
                    .filter(|&v| seen >> v & 1 == 1)
                    .fold(seen, |s, v| s | closed[v]);
                if next == seen {
                    break seen.count_ones() as usize == n;
                }
                seen = next;
            }
        };
        if !connected {
            continue;
        }
        let full = cop_number_of_graph(n, &edges, 3, true);
        let alone = cop_number_of_graph(n, &edges, 3, false);
        assert_eq!(alone.cop_number, full.cop_number, "case {case}: {edges:?}");
        assert!(!alone.timed && alone.placement.is_empty());
        seen[full.cop_number.map_or(0, |c| c as usize)] += 1;
    }
    // Every cop number of the cores was met.
    assert!(seen[1] > 0 && seen[2] > 0 && seen[3] > 0, "{seen:?}");
}
