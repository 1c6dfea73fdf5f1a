//! The cop number: the least k such that some placement of k cops wins,
//! cops to move, against every thief cell; with the placement that wins
//! fastest (smallest rank on ties) and its capture time.

use super::small::{
    closed_masks, core, corners_removed, dominated_by_two, is_dismantlable, small_cops_win,
    small_two_cops_win,
};
use crate::games::arena::Arena;
use crate::solve::multicop::{solve_kcops, KcopOptions};

/// The cop number of an arena and how the cops win.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopNumber {
    /// The least number of cops that wins, `None` when more than the
    /// maximum tried are needed.
    pub cop_number: Option<u32>,
    /// A winning placement of that many cops, ascending (empty when none
    /// was asked for or none wins).
    pub placement: Vec<u32>,
    /// The capture time from that placement in plies: the longest game,
    /// over thief cells, under best play.
    pub capture_time_plies: u32,
    /// The capture time in rounds (a cops' move and a thief's move):
    /// `(plies + 1) / 2`.
    pub capture_time_rounds: u32,
    /// Whether the placement and capture time were computed (false when
    /// only the number was asked for and a shortcut decided it).
    pub timed: bool,
}

impl CopNumber {
    fn won(k: usize, placement: Vec<u32>, plies: u32) -> CopNumber {
        CopNumber {
            cop_number: Some(k as u32),
            placement,
            capture_time_plies: plies,
            capture_time_rounds: plies.div_ceil(2),
            timed: true,
        }
    }

    fn more_than() -> CopNumber {
        CopNumber {
            cop_number: None,
            placement: Vec::new(),
            capture_time_plies: 0,
            capture_time_rounds: 0,
            timed: true,
        }
    }
}

/// The cop number of any arena, trying 1 to `max_cops` cops with the
/// bit-parallel engine (stopping each solve at the first level where a
/// placement wins everywhere). Plain graphs of at most 64 vertices take
/// the fast path of [`cop_number_of_graph`].
///
/// # Panics
/// If `max_cops` is above 4.
#[must_use]
pub fn cop_number(arena: &Arena, max_cops: u32) -> CopNumber {
    assert!(max_cops <= 4, "at most 4 cops");
    let n = arena.cells();
    if n <= 64 && arena.is_plain_graph() {
        let edges: Vec<(u32, u32)> = (0..n)
            .flat_map(|u| arena.cop_steps(u).iter().map(move |&v| (u, v)))
            .collect();
        return cop_number_of_graph(n as usize, &edges, max_cops, true);
    }
    if n == 0 {
        return CopNumber::more_than();
    }
    for k in 1..=max_cops as usize {
        let options = KcopOptions {
            cops: k,
            stop_when_placed: true,
            ..KcopOptions::default()
        };
        if let Some((placement, plies)) = solve_kcops(arena, &options).placement {
            return CopNumber::won(k, placement, plies);
        }
    }
    CopNumber::more_than()
}

/// The cop number of an undirected graph (plain game: speed 1, passing,
/// no exits). Up to 64 vertices it runs the small sequential engine (one
/// word a row) and, for one cop, first tests dismantlability; with `timed`
/// false only the number is computed (no placement or capture time), on
/// the graph's core, its corners removed. Larger graphs go to
/// [`cop_number`]'s engine.
///
/// # Panics
/// If an edge names a vertex `>= n` or `max_cops` is above 4.
#[must_use]
pub fn cop_number_of_graph(
    n: usize,
    edges: &[(u32, u32)],
    max_cops: u32,
    timed: bool,
) -> CopNumber {
    assert!(max_cops <= 4, "at most 4 cops");
    if n > 64 {
        let arena = Arena::from_edges(n as u32, edges).expect("edges within 0..n");
        return cop_number(&arena, max_cops);
    }
    if n == 0 {
        return CopNumber::more_than();
    }
    // On the stack: millions of small graphs go through here.
    let mut masks = [0u64; 64];
    let closed = closed_masks(n, edges, &mut masks);
    if !timed {
        return untimed(closed, max_cops);
    }
    for k in 1..=max_cops as usize {
        // Dismantlability decides one cop at a fraction of a solve's cost.
        if k == 1 && !is_dismantlable(closed) {
            continue;
        }
        let won = if k == 2 {
            small_two_cops_win(closed)
        } else {
            small_cops_win(closed, k)
        };
        if let Some((placement, plies)) = won {
            return CopNumber::won(k, placement, plies);
        }
        debug_assert!(k > 1, "a dismantlable graph is cop-win");
    }
    CopNumber::more_than()
}

/// The cop number alone (no placement or capture time) of a small plain
/// graph: that of its core (corners removed, see [`core`]), which is
/// smaller and so faster to solve; one vertex left means one cop.
fn untimed(closed: &[u64], max_cops: u32) -> CopNumber {
    let alive = corners_removed(closed);
    let number = |k: usize| CopNumber {
        timed: false,
        ..CopNumber::won(k, Vec::new(), 0)
    };
    if alive.count_ones() == 1 {
        return number(1);
    }
    let core = core(closed, alive);
    for k in 2..=max_cops as usize {
        let won = if k == 2 {
            dominated_by_two(&core) || small_two_cops_win(&core).is_some()
        } else {
            small_cops_win(&core, k).is_some()
        };
        if won {
            return number(k);
        }
    }
    CopNumber {
        timed: false,
        ..CopNumber::more_than()
    }
}
