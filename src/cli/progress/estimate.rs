//! The remaining-time estimate of a solve's progress: the levels of the
//! recent part of the solve ([`Marks`]) and the time left fitted from
//! them by the work left in levels.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Instant;

use retrograde::Progress;

/// The levels a solve reported lately, for its remaining-time estimate:
/// those of the last [`RECENT`] of its time (at least [`MIN_MARKS`]).
pub(crate) struct Marks {
    start: Instant,
    window: Mutex<Window>,
}

/// The share of the elapsed time whose levels the estimate goes by: the
/// early levels of a solve (few states each, for seconds) and its first
/// passes say little of its last ones.
const RECENT: f64 = 0.3;

/// The fewest levels an estimate goes by.
const MIN_MARKS: usize = 4;

/// One reported level: when (seconds into the solve), which, and the
/// states decided by then and in it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Mark {
    at: f64,
    level: u32,
    decided: u64,
    in_level: u64,
}

/// The levels of the recent window, oldest first, and the estimate last
/// made from them (made again at most every [`REESTIMATE`] seconds: a
/// solve can report thousands of levels a second).
#[derive(Default)]
struct Window {
    recent: VecDeque<Mark>,
    said: Option<(f64, Option<Left>)>,
}

/// Seconds between two estimates.
const REESTIMATE: f64 = 0.25;

impl Window {
    /// Records `mark` (of a solve of `states` states) and estimates the
    /// time left ([`time_left`] over the window).
    fn push(&mut self, mark: Mark, states: u64) -> Option<Left> {
        let recent = &mut self.recent;
        recent.push_back(mark);
        // The window only moves forward: drop what fell out of it.
        while recent.len() > MIN_MARKS && recent[1].at <= mark.at * (1.0 - RECENT) {
            recent.pop_front();
        }
        match self.said {
            Some((at, left)) if mark.at - at < REESTIMATE => left,
            _ => {
                let left = time_left(recent, states);
                self.said = Some((mark.at, left));
                left
            }
        }
    }
}

/// An estimate of the time left, in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Left {
    /// From the recent levels' trend.
    About(f64),
    /// The states a level decides are still growing: the solve takes at
    /// least this long, and longer once they stop growing.
    AtLeast(f64),
}

impl Marks {
    pub(super) fn new() -> Marks {
        Marks {
            start: Instant::now(),
            window: Mutex::new(Window::default()),
        }
    }

    /// Records a level; "; about 12 min left", "; at least 40 s left", or
    /// nothing while there is no estimate (sweeps decide no states as
    /// they go).
    pub(super) fn add(&self, p: &Progress) -> String {
        if p.sweeping {
            return String::new();
        }
        let mark = Mark {
            at: self.start.elapsed().as_secs_f64(),
            level: p.level,
            decided: p.decided,
            in_level: p.decided_in_level,
        };
        let mut window = self.window.lock().unwrap_or_else(|e| e.into_inner());
        match window.push(mark, p.states) {
            Some(Left::About(s)) => format!("; about {} left", human_seconds(s)),
            Some(Left::AtLeast(s)) => format!("; at least {} left", human_seconds(s)),
            None => String::new(),
        }
    }
}

/// The time left from the work left in levels, over the recent `window`
/// of a solve of `states` states. A level takes `a + b * d` seconds for
/// the `d` states it decides (`a`: the pass over the arrays, all of it out
/// of core; `b`: the work per state; fitted over the window), so the time
/// left is `a` per level to come plus `b` per state still to decide. How
/// many levels, and states: from the trend of the states a level decides
/// (a straight line through their logarithms). Falling, the geometric
/// tail of that trend up to 99% of its sum (real tails end sooner than a
/// geometric one, at a level that decides nothing), or every undecided
/// state if that is less (draws are never decided); growing, the levels
/// to decide every undecided state were the growth to go on, a lower
/// bound; flat, the undecided states at the recent states a level. None
/// before three levels with time between them, or once nothing is left.
fn time_left(window: &VecDeque<Mark>, states: u64) -> Option<Left> {
    let (first, last) = (*window.front()?, *window.back()?);
    let levels = f64::from(last.level.checked_sub(first.level)?);
    let seconds = last.at - first.at;
    let undecided = states.checked_sub(last.decided)? as f64;
    if window.len() < 3 || levels < 1.0 || seconds <= 0.0 || undecided < 1.0 {
        return None;
    }
    let decided = (last.decided - first.decided) as f64;
    let (a, b) = level_cost(window).unwrap_or(if decided > 0.0 {
        (0.0, seconds / decided)
    } else {
        (seconds / levels, 0.0)
    });
    let logs = window
        .iter()
        .filter(|m| m.in_level > 0)
        .map(|m| (f64::from(m.level), (m.in_level as f64).ln()));
    let trend = fit_line(logs);
    // Below 0.1% a level, the trend is flat.
    let left = match trend {
        Some((slope, at)) if slope < -1e-3 => {
            let ratio = slope.exp();
            let now = (at + slope * f64::from(last.level)).exp().max(1.0);
            let tail = now * ratio / (1.0 - ratio);
            let more = undecided.min(0.99 * tail);
            let levels = (1.0 - more * (1.0 - ratio) / (now * ratio)).ln() / slope;
            Left::About(a * levels.max(1.0) + b * more)
        }
        Some((slope, at)) if slope > 1e-3 => {
            let ratio = slope.exp();
            let now = (at + slope * f64::from(last.level)).exp().max(1.0);
            let levels = (1.0 + undecided * (ratio - 1.0) / (now * ratio)).ln() / slope;
            Left::AtLeast(a * levels.max(1.0) + b * undecided)
        }
        _ => {
            if decided <= 0.0 {
                return None;
            }
            Left::About(a * undecided * levels / decided + b * undecided)
        }
    };
    Some(left)
}

/// The seconds a level takes, `a + b * d` for the `d` states it decides,
/// fitted over the window's levels: `(a, b)`, or None when the levels do
/// not tell them apart (or the fit says less than nothing of either).
fn level_cost(window: &VecDeque<Mark>) -> Option<(f64, f64)> {
    let steps = window
        .iter()
        .zip(window.iter().skip(1))
        .filter_map(|(p, q)| {
            let levels = q.level.checked_sub(p.level).filter(|&l| l > 0)?;
            Some((q.in_level as f64, (q.at - p.at) / f64::from(levels)))
        });
    let (b, a) = fit_line(steps)?;
    (a >= 0.0 && b >= 0.0).then_some((a, b))
}

/// The least-squares line `y = slope * x + at` through `points`: `(slope,
/// at)`, or None for fewer than three points or a single x.
fn fit_line(points: impl Iterator<Item = (f64, f64)> + Clone) -> Option<(f64, f64)> {
    let n = points.clone().count() as f64;
    if n < 3.0 {
        return None;
    }
    let (sx, sy) = points
        .clone()
        .fold((0.0, 0.0), |(sx, sy), (x, y)| (sx + x, sy + y));
    let (mx, my) = (sx / n, sy / n);
    let (sxx, sxy) = points.fold((0.0, 0.0), |(sxx, sxy), (x, y)| {
        (sxx + (x - mx) * (x - mx), sxy + (x - mx) * (y - my))
    });
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    Some((slope, my - slope * mx))
}

/// A duration as progress lines say it: "42 s", "12 min" from two
/// minutes on.
pub(crate) fn human_seconds(seconds: f64) -> String {
    if seconds >= 120.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{seconds:.0} s")
    }
}

#[cfg(test)]
mod tests {
    use super::{Left, Mark, Window};

    /// A solve whose level i decides `decided[i]` states in `seconds[i]`
    /// seconds, with `draws` states never decided: at each level, the
    /// share of the solve's time gone, the true seconds left and the
    /// estimate.
    fn estimates(decided: &[u64], seconds: &[f64], draws: u64) -> Vec<(f64, f64, Option<Left>)> {
        let states = decided.iter().sum::<u64>() + draws;
        let total: f64 = seconds.iter().sum();
        let mut window = Window::default();
        let (mut at, mut done) = (0.0, 0);
        let mut out = Vec::new();
        for (i, (&d, &s)) in decided.iter().zip(seconds).enumerate() {
            at += s;
            done += d;
            let mark = Mark {
                at,
                level: i as u32 + 1,
                decided: done,
                in_level: d,
            };
            // Every level estimated afresh.
            window.said = None;
            out.push((at / total, total - at, window.push(mark, states)));
        }
        out
    }

    /// The estimate at `share` of the solve's time, and the truth.
    fn at(estimates: &[(f64, f64, Option<Left>)], share: f64) -> (f64, Option<Left>) {
        let e = estimates.iter().find(|e| e.0 >= share).expect("a level");
        (e.1, e.2)
    }

    /// Two cops (issue 47: "about 42 min left" at 22 s of a 2.2 min
    /// solve): slow early levels deciding few states, growing, then
    /// falling. While growing the estimate is a lower bound; falling, it
    /// is near the truth.
    #[test]
    fn a_growing_solve_gets_a_lower_bound_then_the_tail() {
        let rise = (0..60).map(|i| (10.0 * 1.08f64.powi(i)) as u64);
        let peak = 10.0 * 1.08f64.powi(60);
        let fall = (0..80).map(|i| (peak * 0.9f64.powi(i)) as u64);
        let decided: Vec<u64> = rise.chain(fall).filter(|&d| d > 0).collect();
        let seconds: Vec<f64> = decided.iter().map(|&d| 0.3 + d as f64 * 2e-6).collect();
        let all = estimates(&decided, &seconds, 0);
        for share in [0.1, 0.17, 0.3] {
            let (truth, estimate) = at(&all, share);
            match estimate {
                Some(Left::AtLeast(s)) => assert!(s <= truth, "{share}: {s} > {truth}"),
                other => panic!("{share}: {other:?}, truth {truth}"),
            }
        }
        for share in [0.7, 0.85] {
            assert_near(&all, share, 2.0);
        }
    }

    /// The estimate at `share` of the solve's time is `About` the truth,
    /// within `factor` of it.
    fn assert_near(all: &[(f64, f64, Option<Left>)], share: f64, factor: f64) {
        let (truth, estimate) = at(all, share);
        match estimate {
            Some(Left::About(s)) => assert!(
                s > truth / factor && s < truth * factor,
                "{share}: {s}, truth {truth}"
            ),
            other => panic!("{share}: {other:?}, truth {truth}"),
        }
    }

    /// The two-cop solve of the guide (random-32-32-10, rim exits, one
    /// thread, 124 s on a loaded box): its states decided by level, and a
    /// level taking 0.5 s plus 50 ns a state decided. (The estimate that
    /// went by the share of states decided said 0 s from 85% on.)
    #[test]
    fn a_two_cop_solve_is_estimated_near_its_time() {
        let seen = [
            (0, 0.0),
            (2, 244.6e6),
            (7, 414.9e6),
            (11, 518.2e6),
            (15, 599.1e6),
            (19, 656.8e6),
            (23, 699.7e6),
            (26, 720.6e6),
            (30, 741.6e6),
            (37, 766.1e6),
            (45, 780.6e6),
            (61, 784.6e6),
        ];
        let mut decided = Vec::new();
        for w in seen.windows(2) {
            let ((l0, c0), (l1, c1)) = (w[0], w[1]);
            decided.extend(std::iter::repeat_n(
                ((c1 - c0) / f64::from(l1 - l0)) as u64,
                (l1 - l0) as usize,
            ));
        }
        let seconds: Vec<f64> = decided.iter().map(|&d| 0.5 + 5e-8 * d as f64).collect();
        let all = estimates(&decided, &seconds, 0);
        for share in [0.5, 0.6, 0.7, 0.8, 0.85] {
            assert_near(&all, share, 2.5);
        }
    }

    /// Out of core (issue 47: "about 0 s left" at 123 s of a 145 s
    /// solve): every level costs a pass over the files, while the states
    /// a level decides fall off geometrically (the worst case of a tail
    /// for the estimate: real ones end sooner); with draws too, which are
    /// never decided.
    #[test]
    fn a_tail_of_slow_levels_is_not_zero_and_draws_do_not_stretch_it() {
        let decided: Vec<u64> = (0..1000)
            .map(|i| (1e6 * 0.97f64.powi(i)) as u64)
            .filter(|&d| d > 0)
            .collect();
        let seconds = vec![0.5; decided.len()];
        for draws in [0, 1_000_000] {
            let all = estimates(&decided, &seconds, draws);
            for share in [0.3, 0.5, 0.7, 0.85] {
                assert_near(&all, share, 3.0);
            }
        }
    }

    /// Levels that each decide as many states: the undecided ones at that
    /// pace.
    #[test]
    fn a_steady_solve_is_estimated_from_the_states_left() {
        let decided = vec![1000; 100];
        let seconds = vec![0.1; 100];
        let all = estimates(&decided, &seconds, 0);
        let (truth, estimate) = at(&all, 0.5);
        match estimate {
            Some(Left::About(s)) => assert!((s - truth).abs() < 0.2, "{s}, truth {truth}"),
            other => panic!("{other:?}"),
        }
    }
}
