//! The cop number: the least k such that some placement of k cops wins,
//! cops to move, against every thief cell; with the placement that wins
//! fastest (smallest rank on ties) and its capture time.

use super::small::{
    closed_masks, core, corners_removed, dominated_by_two, is_dismantlable, small_cops_win,
    small_one_cop_win, small_two_cops_win,
};
use crate::error::Result;
use crate::games::arena::Arena;
use crate::solve::multicop::{
    kcop_memory_for, solve_kcops, solve_kcops_with, KcopOptions, KcopRun, KcopStorage,
};
use crate::solve::{Flow, Progress};

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
    /// Set when the search stopped before `max_cops` because the next
    /// number of cops would not fit the memory cap of
    /// [`cop_number_with`]: `cop_number` is then `None` and the cop
    /// number is more than `cops - 1`.
    pub out_of_memory: Option<OutOfMemory>,
}

/// A number of cops whose solve would not fit the memory cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfMemory {
    /// The number of cops not tried.
    pub cops: u32,
    /// Bytes their solve would need ([`kcop_memory_for`]).
    pub needed: u64,
    /// The cap it exceeds.
    pub cap: u64,
}

/// How [`cop_number_with`] searches: a memory cap on each number of
/// cops' solve and an observer of its levels.
#[derive(Clone, Copy, Default)]
pub struct CopSearch<'a> {
    /// Cap on the bytes one solve may allocate (`None`: no cap). A number
    /// of cops whose solve needs more is not tried, nor any larger one.
    pub memory: Option<u64>,
    /// Only the number, no placement or capture time (faster on small
    /// plain graphs, see [`cop_number_of_graph`]).
    pub untimed: bool,
    /// Called with (cops, level) after every level of the bit-parallel
    /// engine's solves (not on the small path, which takes milliseconds);
    /// `false` stops the search with [`Error::Stopped`](crate::Error::Stopped).
    pub observer: Option<&'a (dyn Fn(u32, u32) -> bool + Sync)>,
}

impl CopNumber {
    fn won(k: usize, placement: Vec<u32>, plies: u32) -> CopNumber {
        CopNumber {
            cop_number: Some(k as u32),
            placement,
            capture_time_plies: plies,
            capture_time_rounds: plies.div_ceil(2),
            timed: true,
            out_of_memory: None,
        }
    }

    fn more_than() -> CopNumber {
        CopNumber {
            cop_number: None,
            placement: Vec::new(),
            capture_time_plies: 0,
            capture_time_rounds: 0,
            timed: true,
            out_of_memory: None,
        }
    }
}

/// The cop number as [`cop_number`] and [`cop_number_of_graph`] find it,
/// trying 1, 2, ... cops, under `search`'s memory cap: the numbers of
/// cops whose solve fits the cap ([`kcop_memory_for`], planned before
/// each is tried) are tried in order; when none of them wins and a larger
/// number up to `max_cops` does not fit, the answer says so
/// ([`CopNumber::out_of_memory`]) instead of allocating past the cap.
///
/// # Errors
/// [`Error::Stopped`](crate::Error::Stopped) when the observer asked to
/// stop.
///
/// # Panics
/// If `max_cops` is above 4.
pub fn cop_number_with(arena: &Arena, max_cops: u32, search: &CopSearch<'_>) -> Result<CopNumber> {
    assert!(max_cops <= 4, "at most 4 cops");
    let cap = search.memory.unwrap_or(u64::MAX);
    let need = |k: u32| kcop_memory_for(arena, k as usize, false);
    // The memory a solve needs grows with the cops: the first that does
    // not fit ends the search.
    let fits = (1..=max_cops).take_while(|&k| need(k) <= cap).count() as u32;
    let n = arena.cells() as usize;
    let mut r = if fits == 0 || n == 0 {
        CopNumber::more_than()
    } else if n <= 64 && arena.is_plain_graph() {
        let small = cop_number_of_graph(n, &plain_edges(arena), fits, !search.untimed);
        CopNumber {
            out_of_memory: None,
            ..small
        }
    } else {
        engine_search(arena, fits, search)?
    };
    if r.cop_number.is_none() && fits < max_cops && n > 0 {
        r.out_of_memory = Some(OutOfMemory {
            cops: fits + 1,
            needed: need(fits + 1),
            cap,
        });
    }
    Ok(r)
}

/// 1 to `max_cops` cops on the bit-parallel engine, each solve stopped at
/// the first level where a placement wins, with `search`'s cap on its
/// arrays and its observer between levels.
fn engine_search(arena: &Arena, max_cops: u32, search: &CopSearch<'_>) -> Result<CopNumber> {
    for k in 1..=max_cops {
        let options = KcopOptions {
            cops: k as usize,
            stop_when_placed: true,
            ..KcopOptions::default()
        };
        // The engine's observer, turned into the search's: told every
        // level after level 0, as it always was.
        let observe = |p: &Progress| match search.observer {
            Some(observer) if p.level > 0 && !observer(k, p.level) => Flow::Stop,
            _ => Flow::Continue,
        };
        let run = KcopRun {
            storage: KcopStorage {
                memory: search.memory,
                scratch: None,
            },
            sink: None,
            resume: None,
            observer: search.observer.map(|_| &observe as _),
        };
        if let Some((placement, plies)) = solve_kcops_with(arena, &options, &run)?.placement {
            return Ok(CopNumber::won(k as usize, placement, plies));
        }
    }
    Ok(CopNumber::more_than())
}

/// The edges of a plain graph's arena, each once per direction.
fn plain_edges(arena: &Arena) -> Vec<(u32, u32)> {
    (0..arena.cells())
        .flat_map(|u| arena.cop_steps(u).iter().map(move |&v| (u, v)))
        .collect()
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
    let n = arena.cells() as usize;
    if n <= 64 && arena.is_plain_graph() {
        return cop_number_of_graph(n, &plain_edges(arena), max_cops, true);
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
    cop_number_of_masks(closed, max_cops)
}

/// [`cop_number_of_graph`] with placement and capture time, from a small
/// graph's closed neighbourhoods (`closed[v]` has bit `v` and its
/// neighbours; 1 to 64 vertices): the census's path, which decodes graph6
/// straight into these masks.
///
/// # Panics
/// If `closed` is empty or has more than 64 vertices, or `max_cops` is
/// above 4.
#[must_use]
pub fn cop_number_of_masks(closed: &[u64], max_cops: u32) -> CopNumber {
    assert!(max_cops <= 4, "at most 4 cops");
    assert!((1..=64).contains(&closed.len()), "1 to 64 vertices");
    for k in 1..=max_cops as usize {
        // Dismantlability decides one cop at a fraction of a solve's cost.
        if k == 1 && !is_dismantlable(closed) {
            continue;
        }
        let won = match k {
            1 => small_one_cop_win(closed),
            2 => small_two_cops_win(closed),
            _ => small_cops_win(closed, k),
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
