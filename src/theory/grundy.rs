//! Grundy values (nimbers) of any acyclic impartial [`Game`] under normal
//! play: `g(s) = mex { g(t) : t a successor of s }`, so a state with no move
//! has value 0 and the player to move loses exactly on value 0.
//!
//! The values are computed in a topological order found by Kahn's algorithm
//! run backwards (a state is ready once all its successors are), never by
//! recursion, so depth is not limited by the call stack. States left over
//! when no state is ready lie on a cycle or lead into one; the error names a
//! state on a cycle. A sum of games has the xor of the components' values
//! (Sprague–Grundy).

use crate::game::{Game, Initial};
use crate::outcome::{Outcome, Terminal};

/// Why Grundy values cannot be computed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GrundyError {
    /// The moves allow endless play through this state.
    #[error(
        "state {state} lies on a cycle of moves: Grundy values exist only for acyclic games \
         (every move must decrease some measure of the position)"
    )]
    Cycle {
        /// A state on a cycle.
        state: u64,
    },
    /// A terminal state is not a loss for the player to move, so the game is
    /// not played under the normal rule.
    #[error(
        "state {state} is terminal but a {outcome} for the player to move; Grundy values need \
         the normal rule (a player who cannot move loses)"
    )]
    NotNormalPlay {
        /// The terminal state.
        state: u64,
        /// Its value for the player to move.
        outcome: Outcome,
    },
    /// The state count does not fit in memory on this machine.
    #[error("{states} states do not fit in memory")]
    TooLarge {
        /// The game's state count.
        states: u64,
    },
}

/// The minimum excludant: the least value not in `values` (which it may
/// reorder).
///
/// # Example
/// ```
/// use retrograde::theory::grundy::mex;
/// assert_eq!(mex(&mut vec![0, 1, 3]), 2);
/// assert_eq!(mex(&mut vec![]), 0);
/// assert_eq!(mex(&mut (0..100).collect::<Vec<u32>>()), 100);
/// ```
#[must_use]
pub fn mex(values: &mut [u32]) -> u32 {
    let mut mask = 0u64;
    let mut large = false;
    for &v in values.iter() {
        if v < 64 {
            mask |= 1 << v;
        } else {
            large = true;
        }
    }
    let low = mask.trailing_ones();
    if low < 64 || !large {
        return low;
    }
    values.sort_unstable();
    let mut m = 0;
    for &v in values.iter() {
        if v == m {
            m += 1;
        } else if v > m {
            break;
        }
    }
    m
}

const UNKNOWN: u32 = u32::MAX;

/// Grundy value of every state of an acyclic game under normal play, in
/// O(states + moves).
///
/// # Errors
/// [`GrundyError::Cycle`] naming a state on a cycle when play can go on
/// forever; [`GrundyError::NotNormalPlay`] when a terminal state is not a
/// loss for the player to move; [`GrundyError::TooLarge`] when the states do
/// not fit in memory.
///
/// # Example
/// ```
/// use retrograde::theory::grundy::{grundy_of_acyclic, GrundyError};
/// use retrograde::theory::piece::PieceGame;
/// // A knight-like piece that only moves up and left: a sum of two of these
/// // on cells with values 1 and 1 is a loss for the player to move.
/// let game = PieceGame::new(8, 8, &[(-2, 1), (-2, -1), (1, -2), (-1, -2)]).unwrap();
/// let values = grundy_of_acyclic(&game).unwrap();
/// assert_eq!(&values[..8], &[0, 0, 1, 1, 0, 0, 1, 1]);
/// // A rook step back and forth is a cycle.
/// let rook = PieceGame::new(1, 3, &[(0, 1), (0, -1)]).unwrap();
/// assert!(matches!(grundy_of_acyclic(&rook), Err(GrundyError::Cycle { .. })));
/// ```
pub fn grundy_of_acyclic(game: &impl Game) -> Result<Vec<u32>, GrundyError> {
    let states = game.state_count();
    let n = usize::try_from(states).map_err(|_| GrundyError::TooLarge { states })?;
    let mut values = Vec::new();
    values
        .try_reserve_exact(n)
        .map_err(|_| GrundyError::TooLarge { states })?;
    values.resize(n, UNKNOWN);
    let mut remaining: Vec<u32> = Vec::new();
    remaining
        .try_reserve_exact(n)
        .map_err(|_| GrundyError::TooLarge { states })?;
    let mut failure = None;
    game.for_each_initial(0..states, |s, initial| match initial {
        Initial::Moves(k) => remaining.push(k),
        Initial::Decided(Terminal::Loss) => remaining.push(0),
        Initial::Decided(terminal) => {
            failure.get_or_insert(GrundyError::NotNormalPlay {
                state: s,
                outcome: terminal.into(),
            });
            remaining.push(0);
        }
    });
    if let Some(error) = failure {
        return Err(error);
    }
    // A state is ready when all its successors have values. Starting a
    // cascade from each terminal state in index order keeps the ready stack
    // short and the sweep cache-friendly on grid-like games.
    let mut ready: Vec<u64> = Vec::new();
    let mut scratch: Vec<u32> = Vec::new();
    for root in 0..states {
        if remaining[root as usize] != 0 || values[root as usize] != UNKNOWN {
            continue;
        }
        ready.push(root);
        while let Some(s) = ready.pop() {
            scratch.clear();
            game.for_each_successor(s, |t| scratch.push(values[t as usize]));
            values[s as usize] = mex(&mut scratch);
            game.for_each_predecessor(s, |u| {
                let r = &mut remaining[u as usize];
                *r -= 1;
                if *r == 0 {
                    ready.push(u);
                }
            });
        }
    }
    if let Some(start) = values.iter().position(|&v| v == UNKNOWN) {
        return Err(GrundyError::Cycle {
            state: state_on_cycle(game, &values, start as u64),
        });
    }
    Ok(values)
}

/// Every state without a value has a successor without one (its remaining
/// count never reached zero), so following such successors from `start`
/// must revisit a state; the first revisited state lies on a cycle.
fn state_on_cycle(game: &impl Game, values: &[u32], start: u64) -> u64 {
    let mut visited = std::collections::HashSet::new();
    let mut s = start;
    while visited.insert(s) {
        let mut next = None;
        game.for_each_successor(s, |t| {
            if next.is_none() && values[t as usize] == UNKNOWN {
                next = Some(t);
            }
        });
        s = next.expect("a state without a value has a successor without one");
    }
    s
}

/// The Grundy value of a sum of games: the xor of the components' values.
///
/// # Example
/// ```
/// use retrograde::theory::grundy::sum;
/// assert_eq!(sum([1, 2, 3]), 0);
/// ```
#[must_use]
pub fn sum(values: impl IntoIterator<Item = u32>) -> u32 {
    values.into_iter().fold(0, |x, v| x ^ v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An explicit directed graph game: sinks lose for the mover.
    struct Edges {
        n: u64,
        succ: Vec<Vec<u64>>,
        pred: Vec<Vec<u64>>,
    }

    impl Edges {
        fn new(n: u64, edges: &[(u64, u64)]) -> Edges {
            let mut succ = vec![Vec::new(); n as usize];
            let mut pred = vec![Vec::new(); n as usize];
            for &(a, b) in edges {
                succ[a as usize].push(b);
                pred[b as usize].push(a);
            }
            Edges { n, succ, pred }
        }
    }

    impl Game for Edges {
        fn state_count(&self) -> u64 {
            self.n
        }
        fn max_moves(&self) -> u32 {
            self.succ.iter().map(Vec::len).max().unwrap_or(0) as u32
        }
        fn initial(&self, s: u64) -> Initial {
            match self.succ[s as usize].len() {
                0 => Initial::Decided(Terminal::Loss),
                k => Initial::Moves(k as u32),
            }
        }
        fn for_each_successor(&self, s: u64, mut f: impl FnMut(u64)) {
            self.succ[s as usize].iter().for_each(|&t| f(t));
        }
        fn for_each_predecessor(&self, s: u64, mut f: impl FnMut(u64)) {
            self.pred[s as usize].iter().for_each(|&t| f(t));
        }
    }

    fn naive(game: &Edges, s: u64, memo: &mut Vec<Option<u32>>) -> u32 {
        if let Some(v) = memo[s as usize] {
            return v;
        }
        let options: Vec<u32> = game.succ[s as usize]
            .clone()
            .into_iter()
            .map(|t| naive(game, t, memo))
            .collect();
        let v = (0..).find(|v| !options.contains(v)).unwrap();
        memo[s as usize] = Some(v);
        v
    }

    #[test]
    fn random_dags_match_naive_recursion() {
        let mut next = crate::xorshift::stream(0x0123_4567_89ab_cdef_u64);
        for _ in 0..300 {
            let n = 1 + next() % 30;
            let m = next() % 80;
            // Edges from higher to lower index (with repeats): acyclic.
            let edges: Vec<(u64, u64)> = (0..m)
                .filter_map(|_| {
                    let (a, b) = (next() % n, next() % n);
                    (a != b).then(|| (a.max(b), a.min(b)))
                })
                .collect();
            let game = Edges::new(n, &edges);
            assert_eq!(crate::check_game_contract(&game), Ok(()));
            let values = grundy_of_acyclic(&game).unwrap();
            let mut memo = vec![None; n as usize];
            for s in 0..n {
                assert_eq!(values[s as usize], naive(&game, s, &mut memo), "{edges:?}");
            }
            // One back edge closing a path makes a cycle, named correctly.
            if let Some(&(a, b)) = edges.first() {
                let mut cyclic = edges.clone();
                cyclic.push((b, a));
                let game = Edges::new(n, &cyclic);
                let Err(GrundyError::Cycle { state }) = grundy_of_acyclic(&game) else {
                    panic!("cycle not found in {cyclic:?}");
                };
                // `state` reaches itself.
                let mut seen = vec![false; n as usize];
                let mut stack = game.succ[state as usize].clone();
                while let Some(t) = stack.pop() {
                    if !std::mem::replace(&mut seen[t as usize], true) {
                        stack.extend(&game.succ[t as usize]);
                    }
                }
                assert!(
                    seen[state as usize],
                    "{state} is not on a cycle of {cyclic:?}"
                );
            }
        }
    }

    #[test]
    fn mex_of_large_values() {
        let mut v: Vec<u32> = (0..200).filter(|&x| x != 150).collect();
        assert_eq!(mex(&mut v), 150);
        assert_eq!(mex(&mut [64, 0]), 1);
        assert_eq!(mex(&mut (0..64).collect::<Vec<_>>()), 64);
    }
}
