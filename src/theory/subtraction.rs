//! Subtraction games: a heap of tokens, a move removes `m` tokens for some
//! `m` in a fixed finite set `S`, and the player who cannot move loses.
//!
//! The Grundy sequence `g(n) = mex { g(n - m) : m in S, m <= n }` is
//! computed by dynamic programming, and its period is found by a proven
//! method rather than guessed. Let `k = max S`. For every `i >= 0`, the value
//! `g(i + k)` depends only on the window `W(i) = g(i), ..., g(i + k - 1)`
//! (every move is available from a heap of at least `k`), so the windows
//! follow a deterministic map `W(i + 1) = F(W(i))`. The first index `j` whose
//! window equals an earlier window `W(i)` therefore gives the exact shape of
//! the sequence: it is periodic from `i` with period `j - i`, and no smaller
//! preperiod or period works (a sequence is periodic with period `T` from `p`
//! iff its windows are). The win/loss pattern `g(n) != 0` is then periodic
//! from the same point with the same period; its own least period is the
//! least divisor of the Grundy period that holds over one block, and its
//! least preperiod is found by walking back from the Grundy preperiod.
//!
//! The search keeps every value it computes (4 bytes a heap size) and, in
//! a hash table, every [`STRIDE`]-th window: a window that repeats one of
//! those gives the period, and the preperiod is found by walking back.
//! Its memory is known from the largest move and the search limit
//! ([`SubtractionGame::search_bytes`]); a search that cannot fit in the
//! memory available is refused before it allocates.
//!
//! `subtraction/windows.rs` holds the remembered windows,
//! `subtraction/answers.rs` what is said of the heaps asked about.

use crate::error::human_bytes;

mod answers;
mod windows;
pub use answers::Answers;
use windows::WindowRepeats;

/// A preperiod and a period: `x(n + period) == x(n)` for every
/// `n >= preperiod`, both as small as possible.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Periodicity {
    /// The first heap size from which the sequence repeats.
    pub preperiod: u64,
    /// The length of the repeating block (at least 1).
    pub period: u64,
}

impl Periodicity {
    /// The index in `0..preperiod + period` holding the same value as `n`.
    ///
    /// # Example
    /// ```
    /// use retrograde::theory::subtraction::Periodicity;
    /// let p = Periodicity { preperiod: 2, period: 3 };
    /// assert_eq!(p.reduce(1), 1);
    /// assert_eq!(p.reduce(5), 2);
    /// assert_eq!(p.reduce(u64::MAX), 2 + (u64::MAX - 2) % 3);
    /// ```
    #[must_use]
    pub fn reduce(self, n: u64) -> u64 {
        if n < self.preperiod {
            n
        } else {
            self.preperiod + (n - self.preperiod) % self.period
        }
    }
}

/// Why a subtraction set cannot be analysed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SubtractionError {
    /// The set of moves is empty.
    #[error("the subtraction set is empty: give at least one move, e.g. 1,3,4")]
    NoMoves,
    /// Zero is not a move: taking nothing would let play go on forever.
    #[error(
        "0 is not a valid move (taking nothing allows endless play); every move must be at least 1"
    )]
    ZeroMove,
    /// The repetition was not found within the search limit.
    #[error("no period found among the first {limit} heap sizes; raise the search limit")]
    NoPeriodWithin {
        /// How many heap sizes were computed.
        limit: u64,
    },
    /// The search up to the limit would need more memory than there is.
    #[error(
        "the period search among the first {limit} heap sizes needs {needed} bytes ({}) but only {} {} available; lower the search limit",
        human_bytes(*.needed),
        human_bytes(*.available),
        if *.available == 1 { "is" } else { "are" }
    )]
    TooLarge {
        /// The search limit (heap sizes).
        limit: u64,
        /// Bytes the search may need ([`SubtractionGame::search_bytes`]).
        needed: u64,
        /// Bytes available.
        available: u64,
    },
}

/// Every `STRIDE`-th window of the Grundy sequence is remembered by the
/// period search; a repeat is then seen at most `STRIDE - 1` heap sizes
/// after the first repeated window ends, and those extra values are
/// computed (and counted in the memory) but never change the answer.
pub const STRIDE: u64 = 16;

/// Most heap sizes one search looks at: window starts are held in 32 bits.
pub const MAX_SEARCH_LIMIT: u64 = u32::MAX as u64 - (STRIDE - 1);

/// Fewest slots of the window table.
const MIN_SLOTS: u64 = 64;

/// A subtraction game given by its set of moves.
///
/// # Example
/// ```
/// use retrograde::theory::subtraction::SubtractionGame;
/// let game = SubtractionGame::new(&[1, 3, 4]).unwrap();
/// assert_eq!(game.grundy_values(9), vec![0, 1, 0, 1, 2, 3, 2, 0, 1, 0]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubtractionGame {
    moves: Vec<u64>,
}

impl SubtractionGame {
    /// The game with these moves (any order, repeats ignored).
    ///
    /// # Errors
    /// [`SubtractionError::NoMoves`] for an empty set and
    /// [`SubtractionError::ZeroMove`] when 0 is among the moves.
    pub fn new(moves: &[u64]) -> Result<SubtractionGame, SubtractionError> {
        let mut moves = moves.to_vec();
        moves.sort_unstable();
        moves.dedup();
        match moves.first() {
            None => Err(SubtractionError::NoMoves),
            Some(0) => Err(SubtractionError::ZeroMove),
            Some(_) => Ok(SubtractionGame { moves }),
        }
    }

    /// The moves, sorted and without repeats.
    #[must_use]
    pub fn moves(&self) -> &[u64] {
        &self.moves
    }

    /// The largest move `k`, the window length of the period argument.
    #[must_use]
    pub fn max_move(&self) -> u64 {
        *self.moves.last().expect("a subtraction set is never empty")
    }

    /// Grundy values of the heap sizes `0..=upto` by direct dynamic
    /// programming (no period used).
    ///
    /// # Panics
    /// If `upto + 1` values do not fit in memory.
    ///
    /// # Example
    /// See [`SubtractionGame`].
    #[must_use]
    pub fn grundy_values(&self, upto: u64) -> Vec<u32> {
        let len = usize::try_from(upto).expect("upto fits in memory") + 1;
        let mut values = Vec::with_capacity(len);
        let mut seen = vec![false; self.moves.len() + 1];
        for n in 0..len {
            values.push(self.next_value(&values, n, &mut seen));
        }
        values
    }

    /// `g(n)` from the values `0..n`; `seen` is scratch of length `|S| + 1`,
    /// all false on entry and on exit.
    fn next_value(&self, values: &[u32], n: usize, seen: &mut [bool]) -> u32 {
        // The moves are sorted: those up to `n` are a prefix.
        let mark = |seen: &mut [bool], on: bool| {
            for &m in self.moves.iter().take_while(|&&m| m as usize <= n) {
                let v = values[n - m as usize] as usize;
                if v < seen.len() {
                    seen[v] = on;
                }
            }
        };
        mark(seen, true);
        let mex = seen.iter().position(|&s| !s).unwrap_or(seen.len());
        mark(seen, false);
        mex as u32
    }

    /// Computes Grundy values until both the Grundy sequence and the win/loss
    /// pattern are proven periodic (see the module docs), looking at no more
    /// than `limit` heap sizes (at most [`MAX_SEARCH_LIMIT`]).
    ///
    /// # Errors
    /// [`SubtractionError::NoPeriodWithin`] when the Grundy windows do not
    /// repeat among the first `limit` heap sizes;
    /// [`SubtractionError::TooLarge`], before anything is allocated, when
    /// the search up to `limit` ([`search_bytes`](Self::search_bytes))
    /// would not fit in the memory available.
    ///
    /// # Example
    /// ```
    /// use retrograde::theory::subtraction::{Periodicity, SubtractionGame};
    /// let analysis = SubtractionGame::new(&[1, 3, 4]).unwrap().analyse(1 << 20).unwrap();
    /// assert_eq!(analysis.outcome_periodicity(), Periodicity { preperiod: 0, period: 7 });
    /// // Heaps 0, 2, 7, 9, 14, 16, ... lose for the player to move.
    /// assert!(!analysis.wins(700_000_000_000_000_002)); // = 2 (mod 7)
    /// assert_eq!(analysis.winning_move(700_000_000_000_000_001), Some(1));
    /// assert_eq!(analysis.winning_move(700_000_000_000_000_000), None);
    /// ```
    pub fn analyse(&self, limit: u64) -> Result<Analysis, SubtractionError> {
        self.analyse_within(limit, crate::storage::available_memory())
    }

    /// What can be said of every heap up to `largest`: the proven period
    /// when it is found within `limit` ([`analyse`](Self::analyse)), or,
    /// when it is not (or its search cannot fit) and `largest` lies below
    /// the smallest move, that each of those heaps loses with Grundy 0 (no
    /// move is possible from it).
    ///
    /// # Errors
    /// As [`analyse`](Self::analyse), for a `largest` heap the smallest
    /// move fits in.
    ///
    /// # Example
    /// ```
    /// use retrograde::theory::subtraction::SubtractionGame;
    /// let game = SubtractionGame::new(&[5, 7]).unwrap();
    /// // No period among the first 3 heap sizes, but heaps 0 to 4 have no move.
    /// let answers = game.answers(3, 4).unwrap();
    /// assert!(answers.analysis().is_none());
    /// assert_eq!((answers.wins(4), answers.grundy(4), answers.winning_move(4)), (false, 0, None));
    /// assert!(game.answers(3, 5).is_err());
    /// ```
    pub fn answers(&self, limit: u64, largest: u64) -> Result<Answers, SubtractionError> {
        match self.analyse(limit) {
            Ok(analysis) => Ok(Answers::Periodic(analysis)),
            Err(
                why @ (SubtractionError::NoPeriodWithin { .. } | SubtractionError::TooLarge { .. }),
            ) if largest < self.moves[0] => Ok(Answers::BelowSmallestMove {
                smallest: self.moves[0],
                why,
            }),
            Err(e) => Err(e),
        }
    }

    /// Bytes the period search up to `limit` heap sizes may need at its
    /// peak: every value computed, the table of windows as it grows (the
    /// old table and the new while it doubles), and the moves. A search
    /// that ends early needs less.
    ///
    /// # Example
    /// ```
    /// use retrograde::theory::subtraction::SubtractionGame;
    /// let game = SubtractionGame::new(&[1, 3, 4]).unwrap();
    /// // 4 bytes a heap size for the values, and about 3 for the table.
    /// let bytes = game.search_bytes(1 << 30);
    /// assert!(bytes > 4 << 30 && bytes < 8 << 30);
    /// ```
    #[must_use]
    pub fn search_bytes(&self, limit: u64) -> u64 {
        let limit = limit.min(MAX_SEARCH_LIMIT);
        let k = self.max_move().min(limit);
        // Values up to the last one a repeat may be seen at.
        let values = limit + STRIDE - 1;
        let samples = (values - k) / STRIDE + 1;
        let slots = (2 * samples).next_power_of_two().max(MIN_SLOTS);
        let table = if slots > MIN_SLOTS {
            8 * (slots + slots / 2)
        } else {
            8 * slots
        };
        let moves = self.moves.len() as u64;
        (4 * values)
            .saturating_add(table)
            .saturating_add(9 * moves + 1)
    }

    /// [`analyse`](Self::analyse) within `available` bytes.
    fn analyse_within(&self, limit: u64, available: u64) -> Result<Analysis, SubtractionError> {
        let k = self.max_move();
        if k > limit {
            return Err(SubtractionError::NoPeriodWithin { limit });
        }
        let limit = limit.min(MAX_SEARCH_LIMIT);
        let needed = self.search_bytes(limit);
        let too_large = || SubtractionError::TooLarge {
            limit,
            needed,
            available,
        };
        if needed > available {
            return Err(too_large());
        }
        let k = usize::try_from(k).map_err(|_| too_large())?;
        let cap = usize::try_from(limit + STRIDE - 1).map_err(|_| too_large())?;
        let mut values: Vec<u32> = Vec::new();
        values.try_reserve_exact(cap).map_err(|_| too_large())?;
        let mut seen = vec![false; self.moves.len() + 1];
        let mut windows = WindowRepeats::new(k);
        let (sample, repeat) = loop {
            let n = values.len();
            if n >= cap {
                return Err(SubtractionError::NoPeriodWithin { limit });
            }
            values.push(self.next_value(&values, n, &mut seen));
            if let Some(found) = windows.push(&values).map_err(|_| too_large())? {
                break found;
            }
        };
        drop(windows);
        // The window at `sample` is the first remembered one inside the
        // cycle, so `repeat - sample` is the cycle's length; the first
        // repeated window is found by walking back while the windows
        // `period` apart still agree.
        let period = repeat - sample;
        let mut preperiod = sample;
        while preperiod > 0 && values[preperiod - 1] == values[preperiod - 1 + period] {
            preperiod -= 1;
        }
        // Found only by looking past the limit: as if not found.
        if (preperiod + period + k) as u64 > limit {
            return Err(SubtractionError::NoPeriodWithin { limit });
        }
        let grundy_periodicity = Periodicity {
            preperiod: preperiod as u64,
            period: period as u64,
        };
        let outcome_periodicity = outcome_periodicity(&values, grundy_periodicity);
        values.truncate(preperiod + period);
        values.shrink_to_fit();
        Ok(Analysis {
            moves: self.moves.clone(),
            values,
            grundy_periodicity,
            outcome_periodicity,
        })
    }
}

/// The win/loss pattern's own periodicity, from the Grundy sequence's
/// `(mu, lambda)` and at least `mu + lambda` values. The pattern has period
/// `lambda` from `mu`, so its least period `d` divides `lambda` and is the
/// least divisor that holds over one block `mu..mu + lambda`; its least
/// preperiod is found by walking back from `mu` while `d` still holds (the
/// least preperiod does not depend on which period is used).
fn outcome_periodicity(values: &[u32], grundy: Periodicity) -> Periodicity {
    let (mu, lambda) = (grundy.preperiod as usize, grundy.period as usize);
    let wins = |n: usize| {
        let n = if n < mu + lambda {
            n
        } else {
            mu + (n - mu) % lambda
        };
        values[n] != 0
    };
    let period = (1..=lambda)
        .filter(|d| lambda % d == 0)
        .find(|&d| (mu..mu + lambda).all(|n| wins(n) == wins(n + d)))
        .unwrap_or(lambda);
    let mut preperiod = mu;
    while preperiod > 0 && wins(preperiod - 1) == wins(preperiod - 1 + period) {
        preperiod -= 1;
    }
    Periodicity {
        preperiod: preperiod as u64,
        period: period as u64,
    }
}

/// A subtraction game solved for every heap size through its period.
#[derive(Clone, Debug)]
pub struct Analysis {
    moves: Vec<u64>,
    values: Vec<u32>,
    grundy_periodicity: Periodicity,
    outcome_periodicity: Periodicity,
}

impl Analysis {
    /// Preperiod and period of the Grundy sequence.
    #[must_use]
    pub fn grundy_periodicity(&self) -> Periodicity {
        self.grundy_periodicity
    }

    /// Preperiod and period of the win/loss pattern (its period divides the
    /// Grundy period and its preperiod is no longer).
    #[must_use]
    pub fn outcome_periodicity(&self) -> Periodicity {
        self.outcome_periodicity
    }

    /// Grundy value of a heap of any size.
    ///
    /// # Example
    /// ```
    /// use retrograde::theory::subtraction::SubtractionGame;
    /// let analysis = SubtractionGame::new(&[1, 2]).unwrap().analyse(100).unwrap();
    /// assert_eq!(analysis.grundy(u64::MAX), (u64::MAX % 3) as u32);
    /// ```
    #[must_use]
    pub fn grundy(&self, heap: u64) -> u32 {
        self.values[self.grundy_periodicity.reduce(heap) as usize]
    }

    /// Whether the player to move from a heap of this size wins.
    #[must_use]
    pub fn wins(&self, heap: u64) -> bool {
        self.grundy(heap) != 0
    }

    /// The smallest winning move (how many to take) from a heap of this
    /// size, or `None` when every move loses.
    ///
    /// # Example
    /// See [`SubtractionGame::analyse`].
    #[must_use]
    pub fn winning_move(&self, heap: u64) -> Option<u64> {
        self.moves
            .iter()
            .copied()
            .take_while(|&m| m <= heap)
            .find(|&m| !self.wins(heap - m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Direct win/loss DP, independent of Grundy values.
    fn wins_direct(moves: &[u64], upto: usize) -> Vec<bool> {
        let mut wins = vec![false; upto + 1];
        for n in 0..=upto {
            wins[n] = moves
                .iter()
                .any(|&m| m as usize <= n && !wins[n - m as usize]);
        }
        wins
    }

    /// The least (preperiod, period) of a sequence periodic well before its
    /// middle: the smallest period of the second half, then the earliest
    /// start from which it holds.
    fn brute_periodicity<T: PartialEq>(seq: &[T]) -> (usize, usize) {
        let half = seq.len() / 2;
        let period = (1..half / 2)
            .find(|&p| (half..seq.len() - p).all(|n| seq[n] == seq[n + p]))
            .unwrap();
        let mut pre = half;
        while pre > 0 && seq[pre - 1] == seq[pre - 1 + period] {
            pre -= 1;
        }
        (pre, period)
    }

    #[test]
    fn known_sets() {
        let a = SubtractionGame::new(&[1, 3, 4])
            .unwrap()
            .analyse(1000)
            .unwrap();
        assert_eq!(
            a.grundy_periodicity(),
            Periodicity {
                preperiod: 0,
                period: 7
            }
        );
        let a = SubtractionGame::new(&[2, 3])
            .unwrap()
            .analyse(1000)
            .unwrap();
        assert_eq!(
            a.outcome_periodicity(),
            Periodicity {
                preperiod: 0,
                period: 5
            }
        );
        assert!(SubtractionGame::new(&[]).is_err());
        assert_eq!(
            SubtractionGame::new(&[0, 1]),
            Err(SubtractionError::ZeroMove)
        );
    }

    #[test]
    fn limit_is_reported() {
        let game = SubtractionGame::new(&[1, 3, 4]).unwrap();
        assert_eq!(
            game.analyse(8).unwrap_err(),
            SubtractionError::NoPeriodWithin { limit: 8 }
        );
    }

    /// A period is found exactly when the first repeated window ends
    /// within the limit, though the search remembers only every
    /// [`STRIDE`]-th window and may look a little further.
    #[test]
    fn the_limit_is_exact() {
        for moves in [&[1, 3, 4][..], &[2, 3], &[3, 7, 11], &[5, 6, 9, 17], &[40]] {
            let game = SubtractionGame::new(moves).unwrap();
            let g = game.analyse(1 << 20).unwrap().grundy_periodicity();
            let need = g.preperiod + g.period + game.max_move();
            assert_eq!(game.analyse(need).unwrap().grundy_periodicity(), g);
            assert_eq!(
                game.analyse(need - 1).unwrap_err(),
                SubtractionError::NoPeriodWithin { limit: need - 1 },
                "{moves:?} {g:?}"
            );
        }
    }

    /// A search that cannot fit is refused before it starts, naming what it
    /// needs; the need grows with the limit, not with the largest move.
    #[test]
    fn a_search_past_the_memory_is_refused() {
        let game = SubtractionGame::new(&[100_000_000]).unwrap();
        let needed = game.search_bytes(1_000_000_000);
        assert!(needed > 4_000_000_000 && needed < 8_000_000_000, "{needed}");
        let refused = game.analyse_within(1_000_000_000, 1 << 30).unwrap_err();
        assert_eq!(
            refused,
            SubtractionError::TooLarge {
                limit: 1_000_000_000,
                needed,
                available: 1 << 30,
            }
        );
        let text = refused.to_string();
        assert!(text.contains(&format!("needs {needed} bytes")), "{text}");
        assert!(text.contains("1.0 GiB"), "{text}");
        // Limits past what 32-bit window starts hold are searched as
        // the largest that is.
        assert_eq!(
            game.search_bytes(u64::MAX),
            game.search_bytes(MAX_SEARCH_LIMIT)
        );
        // A small search fits in little memory.
        let small = SubtractionGame::new(&[1, 3, 4]).unwrap();
        assert!(small.analyse_within(100, small.search_bytes(100)).is_ok());
        assert!(small.search_bytes(100) < 4096);
    }

    #[test]
    fn random_sets_match_direct_dp() {
        let mut next = crate::xorshift::stream(0x1234_5678_9abc_def0_u64);
        const N: usize = 20_000;
        for _ in 0..150 {
            let size = 1 + next() % 4;
            let moves: Vec<u64> = (0..size).map(|_| 1 + next() % 9).collect();
            let game = SubtractionGame::new(&moves).unwrap();
            let analysis = game.analyse(1 << 20).unwrap();
            let direct = game.grundy_values(N as u64);
            let wins = wins_direct(game.moves(), N);
            for n in 0..=N {
                assert_eq!(analysis.grundy(n as u64), direct[n], "{moves:?} heap {n}");
                assert_eq!(analysis.wins(n as u64), wins[n], "{moves:?} heap {n}");
            }
            let g = analysis.grundy_periodicity();
            assert!(
                g.preperiod + g.period + 20 < N as u64 / 4,
                "{moves:?} {g:?}"
            );
            let (pre, per) = brute_periodicity(&direct);
            assert_eq!(
                (g.preperiod, g.period),
                (pre as u64, per as u64),
                "{moves:?}"
            );
            let o = analysis.outcome_periodicity();
            let (pre, per) = brute_periodicity(&wins);
            assert_eq!(
                (o.preperiod, o.period),
                (pre as u64, per as u64),
                "{moves:?}"
            );
        }
    }
}
