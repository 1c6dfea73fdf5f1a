//! The thief's step read both ways: as neighbour lists (the choice on
//! large sparse arenas) and as rows of the arena's adjacency bitsets. On
//! random graphs (exits, passes, speeds 1 and 2, lazy cops), k = 1 to 3,
//! both give the solution of the engine's own choice, state by state.

use super::{solve_kcops, KcopOptions};
use crate::games::arena::Arena;
use crate::xorshift::Rng;

/// A random arena of 2 to 9 cells: a path through every cell (so that it
/// is connected) plus random chords, random exits and rules.
fn random_arena(rng: &mut Rng) -> Arena {
    let n = 2 + rng.below(8) as u32;
    let mut edges: Vec<(u32, u32)> = (1..n)
        .map(|v| (rng.below(u64::from(v)) as u32, v))
        .collect();
    for _ in 0..rng.below(u64::from(n)) {
        let (a, b) = (
            rng.below(u64::from(n)) as u32,
            rng.below(u64::from(n)) as u32,
        );
        if a != b {
            edges.push((a, b));
        }
    }
    let exits: Vec<u32> = (0..n).filter(|_| rng.below(5) == 0).collect();
    let speeds = (1 + rng.below(2) as u32, 1 + rng.below(2) as u32);
    Arena::from_edges(n, &edges)
        .expect("edges within 0..n")
        .with_exits(&exits)
        .expect("exits within 0..n")
        .with_speeds(speeds.0, speeds.1)
        .with_passes(rng.below(2) == 0, rng.below(2) == 0)
        .with_lazy(rng.below(3) == 0)
}

#[test]
fn thief_steps_as_lists_and_as_rows_agree() {
    let mut rng = Rng(0x6c69_7374);
    for case in 0..150 {
        let arena = random_arena(&mut rng);
        let k = 1 + case % 3;
        let options = KcopOptions {
            cops: k,
            dte_table: true,
            ..KcopOptions::default()
        };
        let chosen = solve_kcops(&arena, &options);
        for lists in [true, false] {
            let forced = solve_kcops(
                &arena,
                &KcopOptions {
                    thief_lists: Some(lists),
                    ..options.clone()
                },
            );
            let label = format!("case {case}, k {k}, lists {lists}");
            assert_eq!(forced.counts(), chosen.counts(), "{label}");
            assert_eq!(forced.levels, chosen.levels, "{label}");
            let states = crate::games::multiset::multiset_count(arena.cells() as usize, k)
                * u64::from(arena.cells())
                * 2;
            for s in 0..states {
                assert_eq!(forced.state_value(s), chosen.state_value(s), "{label}: {s}");
            }
        }
    }
}

/// Every joint move from a multiset of a process's band (each cop to a
/// cell it reaches, or staying, which covers lazy cops and passes) gives
/// a multiset whose thief rows that process reads: the rows a
/// partitioned solve sends it are all its cop steps need.
#[cfg(feature = "distributed")]
#[test]
fn a_band_reads_every_row_its_cops_reach() {
    use super::{band_tops, process_reads, tops_ranks};
    use crate::games::multiset::{rank_multiset, unrank_multiset};
    let mut rng = Rng(0x7265_6164);
    for _ in 0..60 {
        let arena = random_arena(&mut rng);
        let n = arena.cells() as usize;
        for k in 1..=3 {
            for processes in 1..=4 {
                let reads = process_reads(&arena, k, processes);
                for (q, tops) in band_tops(n, k, processes).iter().enumerate() {
                    let band = tops_ranks(k, tops);
                    assert!(
                        band.is_empty() || reads[q].start <= band.start && band.end <= reads[q].end
                    );
                    for rank in band {
                        let cops = unrank_multiset(rank, k);
                        let mut moved = cops.clone();
                        joint_moves(&arena, &cops, 0, &mut moved, &mut |to| {
                            let mut to = to.to_vec();
                            to.sort_unstable();
                            let r = rank_multiset(&to);
                            assert!(
                                reads[q].contains(&r),
                                "{cops:?} -> {to:?}: {r} not in {:?}",
                                reads[q]
                            );
                        });
                    }
                }
            }
        }
    }
    // On a path (a grid map's shape in one dimension) a band reads a halo,
    // not every rank.
    let edges: Vec<(u32, u32)> = (1..40).map(|v| (v - 1, v)).collect();
    let path = Arena::from_edges(40, &edges).expect("a path");
    let reads = process_reads(&path, 2, 4);
    let ranks = crate::games::multiset::multiset_count(40, 2);
    assert!(reads[0].end < ranks / 2, "{reads:?}");
    assert!(reads[3].start > ranks / 2, "{reads:?}");
}

/// Calls `f` with every placement of the cops `cops[i..]` moved (each to
/// a cell it reaches or its own), `moved[..i]` already placed.
#[cfg(feature = "distributed")]
fn joint_moves(
    arena: &Arena,
    cops: &[u32],
    i: usize,
    moved: &mut Vec<u32>,
    f: &mut dyn FnMut(&[u32]),
) {
    if i == cops.len() {
        f(moved);
        return;
    }
    for &to in arena.cop_reach(cops[i]).iter().chain([&cops[i]]) {
        moved[i] = to;
        joint_moves(arena, cops, i + 1, moved, f);
    }
}
