//! Several cops and one thief on an [`Arena`] (a grid map or a graph), as a
//! [`Game`] with moves generated on the fly (`docs/rules.md`, "Several
//! cops").
//!
//! State layout: the cops are a multiset `c_1 <= ... <= c_k` of cells,
//! ranked by the combinatorial number system on multisets,
//! `rank(c) = sum_i C(c_i + i - 1, i)` (i from 1): the ranks of all
//! multisets are exactly `0..C(n + k - 1, k)`. State `(c, t, turn)` has
//! index `(rank(c) * n + t) * 2 + turn`, turn 0 for the cops to move. With
//! one cop `rank(c) = c_1`, which is `CopsAndThief`'s
//! layout.
//!
//! Successors and predecessors are the *distinct* states one move away:
//! several cops reaching the same multiset by different assignments is one
//! move. Reach sets are symmetric (see [`Arena`]), so the cop multisets that
//! can move to `c` are the multisets `c` can move to, and the thief cells
//! that can move to `t` are those `t` can move to with the same cops.

mod memo;

use std::sync::atomic::Ordering;

use crate::error::{Error, Result};
use crate::game::{Game, Initial};
use crate::games::arena::Arena;
use crate::games::cops::Turn;
use crate::games::multiset::{multiset_count, Ranker, MAX_COPS};
use crate::games::position::{Cops, Position};
use crate::outcome::Terminal;

/// `k` cops and a thief on an [`Arena`].
///
/// A side with no move at all (no passing, an isolated cell) loses, as in
/// the one-cop game.
#[derive(Clone, Debug)]
pub struct KCops {
    /// This game's id for the per-thread memos (`kcops/memo.rs`).
    id: u64,
    arena: Arena,
    k: u32,
    n: u64,
    /// The ranking of cop multisets (`games/multiset.rs`).
    ranker: Ranker,
    multisets: u64,
    max_moves: u32,
    thief_first: bool,
    radius: Option<u64>,
}

impl KCops {
    /// The game of `k` cops (1 to [`MAX_COPS`]) on `arena`, cops moving
    /// first.
    ///
    /// # Errors
    /// [`Error::Placement`] when `k` is out of range or the states would not
    /// fit a 64-bit index.
    pub fn new(arena: Arena, k: u32) -> Result<KCops> {
        if !(1..=MAX_COPS).contains(&(k as usize)) {
            return Err(Error::Placement {
                what: format!("--cops {k}"),
                message: format!("the number of cops must be 1 to {MAX_COPS}"),
            });
        }
        let n = u64::from(arena.cells());
        let multisets = multiset_count(n as usize, k as usize);
        let too_many = || Error::Placement {
            what: format!("{k} cops on {n} cells"),
            message: "too many states for a 64-bit index".to_string(),
        };
        if n > 0 && multisets == u64::MAX {
            return Err(too_many());
        }
        multisets
            .checked_mul(n)
            .and_then(|x| x.checked_mul(2))
            .ok_or_else(too_many)?;
        let cop_bound = (arena.max_cop_reach() as u64)
            .checked_pow(k)
            .map_or(multisets, |p| p.min(multisets));
        // Lazy: one cop of k moves, at most k * |R| moves.
        let cop_bound = if arena.lazy() {
            (arena.max_cop_reach() as u64 * u64::from(k)).min(multisets)
        } else {
            cop_bound
        };
        let max_moves = cop_bound.max(arena.max_thief_reach() as u64);
        let max_moves = u32::try_from(max_moves).map_err(|_| Error::Placement {
            what: format!("{k} cops on {n} cells"),
            message: "a state could have more than 2^32 moves".to_string(),
        })?;
        // One cop: predecessors stay within the cop's reach in cell ids,
        // as in the one-cop game; several: ranks move far, no useful bound.
        let radius = (k == 1).then(|| {
            let reach = (0..arena.cells())
                .flat_map(|c| arena.cop_reach(c).iter().map(move |&to| c.abs_diff(to)))
                .max()
                .unwrap_or(0);
            (u64::from(reach) + 1) * 2 * n
        });
        Ok(KCops {
            id: memo::NEXT_GAME.fetch_add(1, Ordering::Relaxed),
            arena,
            k,
            n,
            ranker: Ranker::new(n as usize),
            multisets,
            max_moves,
            thief_first: false,
            radius,
        })
    }

    /// The same game with the thief moving first from the start.
    #[must_use]
    pub fn with_thief_first(mut self, thief_first: bool) -> KCops {
        self.thief_first = thief_first;
        self
    }

    /// The arena.
    #[must_use]
    pub fn arena(&self) -> &Arena {
        &self.arena
    }

    /// The number of cops k.
    #[must_use]
    pub fn cops(&self) -> u32 {
        self.k
    }

    /// Whether the cops are lazy (at most one moves a turn; set on the
    /// arena, [`Arena::with_lazy`]).
    #[must_use]
    pub fn lazy(&self) -> bool {
        self.arena.lazy()
    }

    /// Whether the thief moves first from the start.
    #[must_use]
    pub fn thief_first(&self) -> bool {
        self.thief_first
    }

    /// The number of cop multisets, `C(n + k - 1, k)`.
    #[must_use]
    pub fn multisets(&self) -> u64 {
        self.multisets
    }

    /// The rank of a multiset of `k` cells given in ascending order.
    #[inline]
    #[must_use]
    pub fn rank(&self, sorted: &[u32]) -> u64 {
        debug_assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
        self.ranker.rank(sorted)
    }

    /// The multiset of rank `rank` into `out[..k]`, ascending.
    #[inline]
    pub fn unrank(&self, rank: u64, out: &mut [u32]) {
        self.ranker.unrank(rank, &mut out[..self.k as usize]);
    }

    /// Index of state `(cops, thief, turn)`; `cops` in any order, `k` of
    /// them.
    #[must_use]
    pub fn state(&self, cops: &[u32], thief: u32, turn: Turn) -> u64 {
        assert_eq!(cops.len(), self.k as usize, "one cell per cop");
        let mut sorted = [0u32; MAX_COPS];
        sorted[..cops.len()].copy_from_slice(cops);
        sorted[..cops.len()].sort_unstable();
        (self.rank(&sorted[..cops.len()]) * self.n + u64::from(thief)) * 2 + turn as u64
    }

    /// The position of state `s` (cops ascending).
    #[must_use]
    pub fn decode(&self, s: u64) -> Position {
        let (cops, thief, turn) = self.split(s);
        Position {
            cops: Cops::new(&cops[..self.k as usize]).expect("1 to MAX_COPS cops"),
            thief,
            turn,
        }
    }

    /// The terminal value of `(cops, thief, turn)`, if it is terminal:
    /// capture first, then escape.
    #[inline]
    fn terminal(&self, cops: &[u32], thief: u32, turn: Turn) -> Option<Terminal> {
        let cops_won = if cops.contains(&thief) {
            true
        } else if self.arena.is_exit(thief) {
            false
        } else {
            return None;
        };
        Some(if cops_won == (turn == Turn::Cop) {
            Terminal::Win
        } else {
            Terminal::Loss
        })
    }

    /// The initial value of `(cops, thief, turn)`; `joint` holds the
    /// cops' joint move count once counted (it does not depend on the
    /// thief, so a walk over one multiset's states counts it once).
    fn initial_of(&self, cops: &[u32], thief: u32, turn: Turn, joint: &mut Option<u32>) -> Initial {
        if let Some(t) = self.terminal(cops, thief, turn) {
            return Initial::Decided(t);
        }
        let moves = match turn {
            Turn::Cop => *joint.get_or_insert_with(|| {
                let mut moves = 0u32;
                self.for_each_joint(cops, None, |_| moves += 1);
                moves
            }),
            Turn::Thief => {
                let mut moves = 0u32;
                self.arena.thief_reach(thief, cops, |_| moves += 1);
                moves
            }
        };
        if moves == 0 {
            Initial::Decided(Terminal::Loss)
        } else {
            Initial::Moves(moves)
        }
    }
}

impl Game for KCops {
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    fn state_count(&self) -> u64 {
        self.multisets * self.n * 2
    }

    fn max_moves(&self) -> u32 {
        self.max_moves
    }

    fn initial(&self, s: u64) -> Initial {
        let (cops, thief, turn) = self.split(s);
        self.initial_of(&cops[..self.k as usize], thief, turn, &mut None)
    }

    /// A range walks its multisets in rank order (stepping to the next one
    /// instead of unranking each state) and counts the cops' joint moves
    /// once per multiset: they do not depend on the thief's cell, and with
    /// two cops they are 25 ranks sorted and deduplicated, which done per
    /// state made the counter engines' initialisation a third of a solve.
    fn for_each_initial(&self, range: std::ops::Range<u64>, mut f: impl FnMut(u64, Initial)) {
        let k = self.k as usize;
        let mut cops = [0u32; MAX_COPS];
        // The rank `cops` holds, and its joint moves once counted.
        let mut held: Option<u64> = None;
        let mut joint: Option<u32> = None;
        for s in range {
            let pair = s >> 1;
            let (rank, thief) = (pair / self.n, (pair % self.n) as u32);
            if held != Some(rank) {
                self.ranker.seek(&mut held, rank, &mut cops[..k]);
                joint = None;
            }
            let turn = if s & 1 == 0 { Turn::Cop } else { Turn::Thief };
            let initial = self.initial_of(&cops[..k], thief, turn, &mut joint);
            f(s, initial);
        }
    }

    fn for_each_successor(&self, s: u64, mut f: impl FnMut(u64)) {
        let (cops, thief, turn) = self.split(s);
        let cops = &cops[..self.k as usize];
        if self.terminal(cops, thief, turn).is_some() {
            return;
        }
        let t = u64::from(thief);
        match turn {
            Turn::Cop => self.for_each_joint(cops, None, |r| f((r * self.n + t) * 2 + 1)),
            Turn::Thief => {
                let base = (s >> 1) - t;
                self.arena
                    .thief_reach(thief, cops, |to| f((base + u64::from(to)) * 2));
            }
        }
    }

    fn for_each_predecessor(&self, s: u64, mut f: impl FnMut(u64)) {
        let (cops, thief, turn) = self.split(s);
        let cops = &cops[..self.k as usize];
        let t = u64::from(thief);
        match turn {
            Turn::Cop => {
                // The thief moved last, from a cell of its (symmetric) reach
                // with these cops; that state must not have been terminal.
                let base = (s >> 1) - t;
                self.arena.thief_reach(thief, cops, |from| {
                    if !cops.contains(&from) && !self.arena.is_exit(from) {
                        f((base + u64::from(from)) * 2 + 1);
                    }
                });
            }
            Turn::Thief => {
                // The cops moved last; before it the thief stood here too,
                // so an exit or a cop on the thief made that state terminal.
                if self.arena.is_exit(thief) {
                    return;
                }
                self.for_each_joint(cops, Some(thief), |r| f((r * self.n + t) * 2));
            }
        }
    }

    fn side(&self, s: u64) -> usize {
        (s & 1) as usize
    }

    fn predecessor_radius(&self) -> Option<u64> {
        self.radius
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check_game_contract;

    #[test]
    fn ranks_are_dense_and_unrank_inverts_them() {
        for k in 1..=MAX_COPS as u32 {
            let game = KCops::new(Arena::cycle(6), k).unwrap();
            let mut seen = Vec::new();
            let mut cells = vec![0u32; k as usize];
            // Every ascending k-tuple over 0..6 by an odometer.
            loop {
                let r = game.rank(&cells);
                let mut back = [0u32; 4];
                game.unrank(r, &mut back);
                assert_eq!(&back[..k as usize], &cells[..]);
                seen.push(r);
                let Some(i) = (0..k as usize).rev().find(|&i| cells[i] < 5) else {
                    break;
                };
                let v = cells[i] + 1;
                cells[i..].fill(v);
            }
            seen.sort_unstable();
            assert_eq!(seen, (0..game.multisets()).collect::<Vec<_>>(), "k = {k}");
        }
    }

    #[test]
    fn the_contract_holds_for_every_k_and_speed() {
        for k in 1..=3 {
            for speeds in [(1, 1), (2, 1), (1, 2), (2, 3)] {
                let arena = Arena::cycle(5)
                    .with_speeds(speeds.0, speeds.1)
                    .with_exits(&[3])
                    .unwrap();
                let game = KCops::new(arena, k).unwrap();
                check_game_contract(&game).unwrap_or_else(|e| panic!("k {k} {speeds:?}: {e}"));
            }
        }
        let lonely = Arena::from_edges(3, &[(0, 1)])
            .unwrap()
            .with_passes(false, false);
        check_game_contract(&KCops::new(lonely.clone(), 2).unwrap()).unwrap();
        check_game_contract(&KCops::new(lonely.with_lazy(true), 2).unwrap()).unwrap();
    }

    #[test]
    fn a_walk_over_any_range_gives_each_state_its_initial_value() {
        let arenas = [
            Arena::cycle(5).with_exits(&[3]).unwrap(),
            Arena::cycle(6).with_speeds(2, 1).with_passes(false, true),
            Arena::cycle(4).with_lazy(true),
        ];
        for arena in arenas {
            for k in 1..=3 {
                let game = KCops::new(arena.clone(), k).unwrap();
                let n = game.state_count();
                // Ranges that start and end inside a multiset, on either
                // turn, span several, hold one state, or none.
                for (a, b) in [(0, n), (1, n - 1), (7, 8), (13, n / 2), (n / 3, n / 3)] {
                    let mut walked = Vec::new();
                    game.for_each_initial(a..b, |s, i| walked.push((s, i)));
                    let direct: Vec<_> = (a..b).map(|s| (s, game.initial(s))).collect();
                    assert_eq!(walked, direct, "k {k}, {a}..{b}");
                }
            }
        }
    }

    /// The thread's joint-move memo answers for one game only: two games
    /// asked in turn, state by state, give what each gives alone.
    #[test]
    fn the_joint_move_memo_never_mixes_games() {
        let a = KCops::new(Arena::cycle(6), 2).unwrap();
        let b = KCops::new(Arena::cycle(6).with_speeds(2, 1), 2).unwrap();
        let moves = |g: &KCops, s: u64| {
            let mut v = (Vec::new(), Vec::new());
            g.for_each_successor(s, |t| v.0.push(t));
            g.for_each_predecessor(s, |t| v.1.push(t));
            v
        };
        let n = a.state_count();
        // Each game's calls in a row, then the two games' in turn.
        let a_only: Vec<_> = (0..n).map(|s| moves(&a, s)).collect();
        let b_only: Vec<_> = (0..n).map(|s| moves(&b, s)).collect();
        assert_ne!(a_only, b_only, "the games differ");
        for s in 0..n {
            let in_turn = (moves(&a, s), moves(&b, s));
            let i = s as usize;
            assert_eq!(in_turn, (a_only[i].clone(), b_only[i].clone()), "state {s}");
        }
    }

    #[test]
    fn the_contract_holds_for_lazy_cops() {
        for k in 1..=3 {
            for speeds in [(1, 1), (2, 1), (1, 2)] {
                for passes in [(true, true), (false, true), (false, false)] {
                    let arena = Arena::cycle(5)
                        .with_speeds(speeds.0, speeds.1)
                        .with_passes(passes.0, passes.1)
                        .with_exits(&[3])
                        .unwrap()
                        .with_lazy(true);
                    let game = KCops::new(arena, k).unwrap();
                    check_game_contract(&game)
                        .unwrap_or_else(|e| panic!("lazy k {k} {speeds:?} {passes:?}: {e}"));
                }
            }
        }
    }

    #[test]
    fn lazy_cops_move_one_at_a_time() {
        // Two cops on 0 and 2 of a 5-cycle: one moves (to 1, 4; 1, 3) or
        // both stay.
        let game = KCops::new(Arena::cycle(5).with_lazy(true), 2).unwrap();
        let s = game.state(&[0, 2], 3, Turn::Cop);
        let mut got: Vec<Vec<u32>> = Vec::new();
        game.for_each_successor(s, |x| got.push(game.decode(x).cops.as_slice().to_vec()));
        got.sort();
        let want = [[0, 1], [0, 2], [0, 3], [1, 2], [2, 4]];
        assert_eq!(got, want.iter().map(|w| w.to_vec()).collect::<Vec<_>>());
    }

    #[test]
    fn cops_out_of_range_are_refused() {
        assert!(KCops::new(Arena::cycle(4), 0).is_err());
        assert!(KCops::new(Arena::cycle(4), 5).is_err());
    }
}
