//! Per-thread memos of the multiset last asked for, and the cops' joint
//! moves behind them. The engines drain their frontiers in state order, so
//! one multiset's `2n` states (every thief cell, both turns) come one
//! after another: its cells are unranked and its joint moves enumerated
//! once per multiset, not per state. Each memo is keyed by the game's id
//! ([`NEXT_GAME`]) and the multiset's rank.

use std::cell::{Cell, RefCell};
use std::sync::atomic::AtomicU64;

use super::KCops;
use crate::games::cops::Turn;
use crate::games::multiset::MAX_COPS;

thread_local! {
    /// The joint cop moves of the multiset last asked for on this thread
    /// (taken out while the caller's closure runs). The engines drain their
    /// frontiers in state order, so the states of one multiset (its `2n`
    /// thief cells and turns) ask for the same moves one after another:
    /// they are enumerated, sorted and deduplicated once, not per state,
    /// which took two thirds of a counter engine's solve.
    static JOINT: RefCell<JointMemo> = const {
        RefCell::new(JointMemo { game: 0, rank: 0, targets: Vec::new() })
    };
}

thread_local! {
    /// The game id, rank and cells of the multiset this thread last
    /// unranked ([`KCops::split`]): a frontier drained in state order asks
    /// for one multiset's states in a row, and unranking each took a sixth
    /// of a counter engine's solve.
    static SPLIT: Cell<(u64, u64, [u32; MAX_COPS])> = const { Cell::new((0, 0, [0; MAX_COPS])) };
}

/// Ids of [`KCops`] games, so that one thread's memo never answers for
/// another game (clones share theirs: they are the same game).
pub(super) static NEXT_GAME: AtomicU64 = AtomicU64::new(1);

/// The joint moves of one multiset of one game.
#[derive(Default)]
struct JointMemo {
    /// The game's id (0: none yet).
    game: u64,
    /// The multiset's rank.
    rank: u64,
    /// Each distinct multiset the cops can move to: its rank and its
    /// cells (ascending, the first `k`), by rank.
    targets: Vec<(u64, [u32; MAX_COPS])>,
}

impl KCops {
    /// The cops (the first `k` cells), the thief's cell and the turn of
    /// state `s`.
    #[inline]
    pub(super) fn split(&self, s: u64) -> ([u32; MAX_COPS], u32, Turn) {
        let pair = s >> 1;
        let turn = if s & 1 == 0 { Turn::Cop } else { Turn::Thief };
        let rank = pair / self.n;
        let (game, held, mut cops) = SPLIT.get();
        if (game, held) != (self.id, rank) {
            self.unrank(rank, &mut cops);
            SPLIT.set((self.id, rank, cops));
        }
        (cops, (pair % self.n) as u32, turn)
    }

    /// Calls `f` with the rank of every distinct multiset the cops on
    /// `cops` (ascending) can move to together, leaving out multisets that
    /// hold `avoid`.
    pub(super) fn for_each_joint(&self, cops: &[u32], avoid: Option<u32>, mut f: impl FnMut(u64)) {
        if self.k == 1 {
            for &to in self.arena.cop_reach(cops[0]) {
                if Some(to) != avoid {
                    f(u64::from(to));
                }
            }
            return;
        }
        let k = cops.len();
        let rank = self.rank(cops);
        let mut memo = JOINT.with(|j| std::mem::take(&mut *j.borrow_mut()));
        if (memo.game, memo.rank) != (self.id, rank) {
            // Every target, `avoid` or not: a target holds `avoid` exactly
            // when some cop moved there, so the filter below leaves what
            // skipping those moves would.
            memo.targets.clear();
            if self.arena.lazy() {
                self.push_lazy(cops, &mut memo.targets);
            } else {
                let mut dest = [0u32; MAX_COPS];
                self.push_joint(0, 0, cops, &mut dest, &mut memo.targets);
            }
            memo.targets.sort_unstable_by_key(|t| t.0);
            memo.targets.dedup_by_key(|t| t.0);
            (memo.game, memo.rank) = (self.id, rank);
        }
        for (r, cells) in &memo.targets {
            if avoid.is_none_or(|a| !cells[..k].contains(&a)) {
                f(*r);
            }
        }
        JOINT.with(|j| *j.borrow_mut() = memo);
    }

    /// The lazy cops' moves: one cop (one of each distinct cell) moves
    /// within its reach, the others stay. The targets may repeat (the
    /// caller dedups).
    fn push_lazy(&self, cops: &[u32], out: &mut Vec<(u64, [u32; MAX_COPS])>) {
        let k = cops.len();
        for i in (0..k).filter(|&i| i == 0 || cops[i] != cops[i - 1]) {
            for &to in self.arena.cop_reach(cops[i]) {
                let mut moved = [0u32; MAX_COPS];
                moved[..k].copy_from_slice(cops);
                moved[i] = to;
                moved[..k].sort_unstable();
                out.push((self.rank(&moved[..k]), moved));
            }
        }
    }

    /// Assigns cop `i` onward; equal cops take their targets in
    /// non-decreasing order (`lo`), which drops the permutations of one
    /// assignment among them before any sorting.
    fn push_joint(
        &self,
        i: usize,
        lo: usize,
        cops: &[u32],
        dest: &mut [u32; MAX_COPS],
        out: &mut Vec<(u64, [u32; MAX_COPS])>,
    ) {
        if i == cops.len() {
            let mut sorted = *dest;
            sorted[..i].sort_unstable();
            out.push((self.rank(&sorted[..i]), sorted));
            return;
        }
        let reach = self.arena.cop_reach(cops[i]);
        let from = if i > 0 && cops[i] == cops[i - 1] {
            lo
        } else {
            0
        };
        for (j, &to) in reach.iter().enumerate().skip(from) {
            dest[i] = to;
            self.push_joint(i + 1, j, cops, dest, out);
        }
    }
}
