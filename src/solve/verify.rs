//! An independent check of a finished solution, state by state, from the
//! game's successors (not the predecessors propagation used).
//!
//! A state is *consistent* when its value is what its moves say: a terminal
//! state has its terminal value; any other state is WIN if some successor is
//! a LOSS, LOSS if every successor is a WIN, DRAW otherwise. With a distance
//! table the distances are checked too: a WIN at d has its nearest LOSS
//! successor at d - 1, a LOSS at d its farthest successor at d - 1, a
//! terminal state is at 0. Values and distances that pass are exactly the
//! retrograde solution (the distances rule out WIN/LOSS labels that only
//! justify each other around a cycle). Without distances the check still
//! catches every lost or spurious update, the failure an out-of-core solve
//! risks: a missed WIN leaves a DRAW with a LOSS successor, a missed refutation
//! a DRAW with only WIN successors, a corrupt counter a LOSS with a non-WIN
//! successor.

use rayon::prelude::*;

use super::solution::Solution;
use crate::game::{Game, Initial};
use crate::outcome::Outcome;

/// States checked per task.
const CHUNK: u64 = 1 << 16;

/// States checked before dropping the pages behind them (out of core).
const BAND: u64 = 1 << 28;

/// What [`verify`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verification {
    /// States checked.
    pub states: u64,
    /// Whether distances were checked too (the solution kept a table).
    pub distances: bool,
    /// Inconsistent states.
    pub inconsistent: u64,
    /// The smallest inconsistent state, if any.
    pub first: Option<Inconsistency>,
}

impl Verification {
    /// Whether every state is consistent.
    #[must_use]
    pub fn ok(&self) -> bool {
        self.inconsistent == 0
    }
}

/// One state whose stored value or distance disagrees with its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inconsistency {
    /// The state index.
    pub state: u64,
    /// Its stored value and distance (when a table was kept).
    pub found: (Outcome, Option<u32>),
    /// What its successors (or its terminal rule) say.
    pub expected: (Outcome, Option<u32>),
}

/// Checks every state of `solution` against `game`'s moves (see the module
/// docs), in parallel on the current rayon pool. Out of core it walks the
/// arrays in bands and drops the pages behind it, like a solve.
///
/// # Example
/// ```
/// use retrograde::{parse_map, solve, verify, CopsGame, Engine, Placement, Rules, SolveOptions, Speeds};
/// let map = parse_map(b"2 3\nC.T\nE.E\n", "m").unwrap();
/// let game = CopsGame::from_map(&map, &Placement::default(), Rules::default(), 1, Speeds::default()).unwrap();
/// let solution = solve(&game, &SolveOptions::new(Engine::Sequential).with_dte_table(true)).unwrap();
/// let check = verify(&game, &solution);
/// assert!(check.ok() && check.distances);
/// ```
#[must_use]
pub fn verify(game: &impl Game, solution: &Solution) -> Verification {
    verify_observed(game, solution, &|_, _| {})
}

/// [`verify`], calling `observe(checked, states)` after each band of states
/// (for progress reports).
#[must_use]
pub fn verify_observed(
    game: &impl Game,
    solution: &Solution,
    observe: &(dyn Fn(u64, u64) + Sync),
) -> Verification {
    let n = game.state_count();
    let distances = solution.has_dte_table();
    let radius = game.predecessor_radius().unwrap_or(n);
    let mut total = Verification {
        states: n,
        distances,
        inconsistent: 0,
        first: None,
    };
    let mut released = 0;
    // Out of core, a band and a radius on each side stay under the cap.
    let step = solution
        .window()
        .map_or(BAND, |w| (w / 2).clamp(CHUNK, BAND));
    for band in (0..n).step_by(step as usize) {
        let end = (band + step).min(n);
        let found = (0..(end - band).div_ceil(CHUNK))
            .into_par_iter()
            .map(|k| {
                let c = band + k * CHUNK;
                let value = |s: u64| {
                    let dte = distances.then(|| solution.dte(s)).flatten();
                    (solution.outcome(s), dte.map(|d| d.plies()))
                };
                check_range(game, &value, distances, c..(c + CHUNK).min(end))
            })
            .reduce(|| (0, None), merge);
        (total.inconsistent, total.first) = merge((total.inconsistent, total.first), found);
        observe(end, n);
        let safe = end.saturating_sub(radius);
        if safe > released {
            solution.release(released..safe);
            released = safe;
        }
    }
    solution.release(released..n);
    total
}

/// Inconsistent states counted, and the first of them.
type Mismatches = (u64, Option<Inconsistency>);

fn merge(a: Mismatches, b: Mismatches) -> Mismatches {
    let first = match (a.1, b.1) {
        (Some(x), Some(y)) => Some(if x.state <= y.state { x } else { y }),
        (x, y) => x.or(y),
    };
    (a.0 + b.0, first)
}

/// Checks states `range` against `value(s)`: a state's value and, when
/// `distances`, its distance to end in plies (`None` otherwise).
fn check_range(
    game: &impl Game,
    value: &impl Fn(u64) -> (Outcome, Option<u32>),
    distances: bool,
    range: std::ops::Range<u64>,
) -> Mismatches {
    let mut found: Mismatches = (0, None);
    let dte = |s: u64| value(s).1;
    game.for_each_initial(range, |s, initial| {
        let expected = match initial {
            Initial::Decided(terminal) => (terminal.into(), distances.then_some(0)),
            Initial::Moves(_) => {
                let mut nearest_loss = None::<u32>;
                let mut farthest = 0u32;
                let mut any_loss = false;
                let mut all_win = true;
                game.for_each_successor(s, |u| match value(u).0 {
                    Outcome::Loss => {
                        any_loss = true;
                        all_win = false;
                        if let Some(d) = dte(u) {
                            nearest_loss = Some(nearest_loss.map_or(d, |m| m.min(d)));
                        }
                    }
                    Outcome::Win => farthest = farthest.max(dte(u).unwrap_or(0)),
                    Outcome::Draw => all_win = false,
                });
                if any_loss {
                    (Outcome::Win, nearest_loss.map(|d| d + 1))
                } else if all_win {
                    (Outcome::Loss, distances.then_some(farthest + 1))
                } else {
                    (Outcome::Draw, None)
                }
            }
        };
        let stored = value(s);
        // Distances saturate at 65535 in the table: past that, only values.
        let saturated = |d: Option<u32>| d.is_some_and(|d| d >= u32::from(u16::MAX));
        let agrees = if saturated(stored.1) || saturated(expected.1) {
            stored.0 == expected.0
        } else {
            stored == expected
        };
        if !agrees {
            found.0 += 1;
            if found.1.is_none() {
                found.1 = Some(Inconsistency {
                    state: s,
                    found: stored,
                    expected,
                });
            }
        }
    });
    found
}
