//! Nim: heaps of tokens, a move takes any positive number from one heap, and
//! the player who cannot move loses.
//!
//! Bouton's theorem decides it in closed form: the player to move loses iff
//! the nim-sum (xor of the heap sizes) is zero, and the winning moves are
//! exactly those that make it zero again. Everything here is O(heaps) and
//! works for any `u64` heap sizes.

/// A move in Nim: take `take` tokens from heap number `heap` (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NimMove {
    /// Index of the heap, from 0.
    pub heap: usize,
    /// How many tokens to take (at least 1).
    pub take: u64,
}

/// The nim-sum of the heaps: the xor of their sizes, which is also the
/// Grundy value of the position. Zero means the player to move loses.
///
/// # Example
/// ```
/// use retrograde::theory::nim::nim_sum;
/// assert_eq!(nim_sum(&[3, 4, 5]), 2);
/// assert_eq!(nim_sum(&[1, 2, 3]), 0);
/// ```
#[must_use]
pub fn nim_sum(heaps: &[u64]) -> u64 {
    heaps.iter().fold(0, |x, &h| x ^ h)
}

/// Every winning move of the position, in increasing heap order: from each
/// heap `h` with `h ^ s < h` (where `s` is the nim-sum), take `h - (h ^ s)`.
/// Empty when the nim-sum is zero (every move loses).
///
/// # Example
/// ```
/// use retrograde::theory::nim::{winning_moves, NimMove};
/// // Nim-sum 2: only the heap of 3 has bit 1 set; leave 1 in it.
/// assert_eq!(winning_moves(&[3, 4, 5]), vec![NimMove { heap: 0, take: 2 }]);
/// assert!(winning_moves(&[1, 2, 3]).is_empty());
/// ```
#[must_use]
pub fn winning_moves(heaps: &[u64]) -> Vec<NimMove> {
    let sum = nim_sum(heaps);
    heaps
        .iter()
        .enumerate()
        .filter(|&(_, &h)| h ^ sum < h)
        .map(|(heap, &h)| NimMove {
            heap,
            take: h - (h ^ sum),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Exhaustive search: the mover wins iff some move leads to a lost position.
    fn wins(heaps: &mut Vec<u64>, memo: &mut HashMap<Vec<u64>, bool>) -> bool {
        let mut key = heaps.clone();
        key.sort_unstable();
        if let Some(&w) = memo.get(&key) {
            return w;
        }
        let mut win = false;
        'outer: for i in 0..heaps.len() {
            for take in 1..=heaps[i] {
                heaps[i] -= take;
                let lost = !wins(heaps, memo);
                heaps[i] += take;
                if lost {
                    win = true;
                    break 'outer;
                }
            }
        }
        memo.insert(key, win);
        win
    }

    #[test]
    fn matches_exhaustive_search_on_small_heaps() {
        let mut memo = HashMap::new();
        for a in 0..6u64 {
            for b in 0..6 {
                for c in 0..6 {
                    let mut heaps = vec![a, b, c];
                    let win = wins(&mut heaps, &mut memo);
                    assert_eq!(nim_sum(&heaps) != 0, win, "{heaps:?}");
                    let moves = winning_moves(&heaps);
                    // Every listed move wins, and every winning move is listed.
                    let mut expected = Vec::new();
                    for i in 0..3 {
                        for take in 1..=heaps[i] {
                            heaps[i] -= take;
                            if !wins(&mut heaps, &mut memo) {
                                expected.push(NimMove { heap: i, take });
                            }
                            heaps[i] += take;
                        }
                    }
                    assert_eq!(moves, expected, "{heaps:?}");
                }
            }
        }
    }

    #[test]
    fn huge_heaps() {
        let heaps = [u64::MAX, 1, u64::MAX - 1];
        assert_eq!(nim_sum(&heaps), 0);
        let heaps = [u64::MAX, 0];
        assert_eq!(
            winning_moves(&heaps),
            vec![NimMove {
                heap: 0,
                take: u64::MAX
            }]
        );
    }
}
