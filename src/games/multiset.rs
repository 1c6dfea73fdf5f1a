//! The combinatorial number system on multisets: a sorted multiset
//! `c_1 <= ... <= c_k` of cells `0..n` has rank
//! `sum_{i=1..k} C(c_i + i - 1, i)`, a bijection onto `0..C(n + k - 1, k)`
//! in colex order (for k = 1 the rank is the cell).

/// Most cops the engine handles.
pub const MAX_COPS: usize = 4;

/// `C(m, i)` for `i <= MAX_COPS`, saturating (never needed past `u64`).
#[must_use]
pub(crate) fn binom(m: u64, i: usize) -> u64 {
    let mut r: u128 = 1;
    for j in 0..i as u64 {
        if m < j {
            return 0;
        }
        r = r * u128::from(m - j) / u128::from(j + 1);
    }
    u64::try_from(r).unwrap_or(u64::MAX)
}

/// Number of multisets of `k` cells out of `n`: `C(n + k - 1, k)`.
#[must_use]
pub fn multiset_count(n: usize, k: usize) -> u64 {
    if k == 0 {
        return 1;
    }
    if n == 0 {
        return 0;
    }
    binom((n + k - 1) as u64, k)
}

/// Rank of a multiset given sorted ascending.
#[must_use]
pub fn rank_multiset(cells: &[u32]) -> u64 {
    debug_assert!(cells.windows(2).all(|w| w[0] <= w[1]));
    cells
        .iter()
        .enumerate()
        .map(|(i, &c)| binom(u64::from(c) + i as u64, i + 1))
        .sum()
}

/// The multiset of `k` cells with rank `rank`, sorted ascending.
#[must_use]
pub fn unrank_multiset(mut rank: u64, k: usize) -> Vec<u32> {
    let mut out = vec![0u32; k];
    for i in (1..=k).rev() {
        // Largest d = c + i - 1 with C(d, i) <= rank.
        let (mut lo, mut hi) = (i as u64 - 1, i as u64 - 1);
        let mut step = 1u64;
        while binom(hi + step, i) <= rank {
            hi += step;
            step *= 2;
        }
        hi += step;
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if binom(mid, i) <= rank {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        rank -= binom(lo, i);
        out[i - 1] = (lo + 1 - i as u64) as u32;
    }
    out
}

/// Tables for ranking multisets of up to `MAX_COPS` cells out of `n` in
/// the engine's inner loops: `C(c + i, i + 1)` by `(i, c)`.
#[derive(Clone, Debug)]
pub(crate) struct Ranker {
    n: usize,
    /// `table[i * (n + 1) + c] = C(c + i, i + 1)`.
    table: Vec<u64>,
}

impl Ranker {
    pub(crate) fn new(n: usize) -> Ranker {
        let mut table = vec![0; MAX_COPS * (n + 1)];
        for i in 0..MAX_COPS {
            for c in 0..=n {
                table[i * (n + 1) + c] = binom((c + i) as u64, i + 1);
            }
        }
        Ranker { n, table }
    }

    /// The term of cell `c` at 0-based position `i`.
    #[inline]
    pub(crate) fn term(&self, i: usize, c: u32) -> u64 {
        self.table[i * (self.n + 1) + c as usize]
    }

    #[inline]
    pub(crate) fn rank(&self, cells: &[u32]) -> u64 {
        cells
            .iter()
            .enumerate()
            .map(|(i, &c)| self.term(i, c))
            .sum()
    }

    /// The multiset of `out.len()` cells with rank `rank`, sorted
    /// ascending, into `out`: `unrank_multiset` by binary search in the
    /// table instead of wide arithmetic (the engine's push of changed
    /// rows unranks every one).
    pub(crate) fn unrank(&self, mut rank: u64, out: &mut [u32]) {
        for i in (0..out.len()).rev() {
            // Largest c with C(c + i, i + 1) <= rank: the terms rise
            // strictly with c.
            let terms = &self.table[i * (self.n + 1)..(i + 1) * (self.n + 1)];
            let c = terms.partition_point(|&t| t <= rank) - 1;
            rank -= terms[c];
            out[i] = c as u32;
        }
    }

    /// Puts the multiset of `rank` into `cells`, which hold the one of
    /// rank `*held` (if any): a rank a few ahead is stepped to (callers
    /// walk flagged rows in increasing order, mostly a rank or two apart),
    /// any other unranked. `*held` becomes `rank`.
    #[inline]
    pub(crate) fn seek(&self, held: &mut Option<u64>, rank: u64, cells: &mut [u32]) {
        /// Steps that cost less than one unranking's binary searches.
        const STEPS: u64 = 4;
        match *held {
            Some(h) if h <= rank && rank - h <= STEPS => {
                for _ in h..rank {
                    next_multiset(cells, self.n);
                }
            }
            _ => self.unrank(rank, cells),
        }
        *held = Some(rank);
    }

    /// Rank of `cells` (sorted) with `x` inserted.
    #[inline]
    pub(crate) fn rank_with(&self, cells: &[u32], x: u32) -> u64 {
        let mut r = 0;
        let mut placed = false;
        let mut i = 0;
        for &c in cells {
            if !placed && x <= c {
                r += self.term(i, x);
                i += 1;
                placed = true;
            }
            r += self.term(i, c);
            i += 1;
        }
        if !placed {
            r += self.term(i, x);
        }
        r
    }

    /// [`Ranker::rank_with`] for many `x` with the same `cells`: the rank
    /// of `cells` with `x` put in at position `p` (`p` cells below `x`) is
    /// `gaps[p] + term(p, x)`, since the cells below keep their terms and
    /// those above shift up one. Entries past `cells.len()` are 0.
    #[inline]
    pub(crate) fn gaps(&self, cells: &[u32]) -> [u64; MAX_COPS + 1] {
        let mut gaps = [0u64; MAX_COPS + 1];
        let mut below = 0;
        let mut above: u64 = cells
            .iter()
            .enumerate()
            .map(|(i, &c)| self.term(i + 1, c))
            .sum();
        gaps[0] = above;
        for (p, &c) in cells.iter().enumerate() {
            below += self.term(p, c);
            above -= self.term(p + 1, c);
            gaps[p + 1] = below + above;
        }
        gaps
    }

    /// Rank of `cells` (sorted) without the cell at position `p`.
    #[inline]
    pub(crate) fn rank_without(&self, cells: &[u32], p: usize) -> u64 {
        let below: u64 = (0..p).map(|i| self.term(i, cells[i])).sum();
        let above: u64 = (p + 1..cells.len())
            .map(|i| self.term(i - 1, cells[i]))
            .sum();
        below + above
    }
}

/// The next multiset in rank order (colex), in place; false after the
/// last one (the multiset is then all zeros again).
#[inline]
pub(crate) fn next_multiset(cells: &mut [u32], n: usize) -> bool {
    let k = cells.len();
    for i in 0..k {
        let limit = if i + 1 < k {
            cells[i + 1]
        } else {
            n as u32 - 1
        };
        if cells[i] < limit {
            cells[i] += 1;
            for c in &mut cells[..i] {
                *c = 0;
            }
            return true;
        }
    }
    cells.fill(0);
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seeking ranks in any order (ahead by a few, by many, back, the
    /// same) always leaves the multiset of that rank.
    #[test]
    fn seeking_a_rank_leaves_its_multiset() {
        let (n, k) = (9, 3);
        let ranker = Ranker::new(n);
        let count = multiset_count(n, k);
        let mut held = None;
        let mut cells = [0u32; 3];
        let mut direct = [0u32; 3];
        for &r in &[0, 1, 2, 5, 9, 9, 8, 30, 31, 35, 3, count - 2, count - 1, 0] {
            ranker.seek(&mut held, r, &mut cells);
            ranker.unrank(r, &mut direct);
            assert_eq!(cells, direct, "rank {r}");
            assert_eq!(held, Some(r));
        }
    }

    #[test]
    fn ranks_are_a_bijection_in_colex_order() {
        for n in 1..7usize {
            for k in 1..=MAX_COPS {
                let r = Ranker::new(n);
                let mut cells = vec![0u32; k];
                let count = multiset_count(n, k);
                for expect in 0..count {
                    assert_eq!(rank_multiset(&cells), expect);
                    assert_eq!(r.rank(&cells), expect);
                    assert_eq!(unrank_multiset(expect, k), cells);
                    let mut back = vec![0u32; k];
                    r.unrank(expect, &mut back);
                    assert_eq!(back, cells);
                    for x in 0..n as u32 {
                        let mut with = cells[..k - 1].to_vec();
                        with.push(x);
                        with.sort_unstable();
                        assert_eq!(r.rank_with(&cells[..k - 1], x), rank_multiset(&with));
                        let below = cells[..k - 1].iter().filter(|&&c| c < x).count();
                        let gaps = r.gaps(&cells[..k - 1]);
                        assert_eq!(gaps[below] + r.term(below, x), rank_multiset(&with));
                    }
                    for p in 0..k {
                        let mut without = cells.clone();
                        without.remove(p);
                        assert_eq!(r.rank_without(&cells, p), rank_multiset(&without));
                    }
                    let more = next_multiset(&mut cells, n);
                    assert_eq!(more, expect + 1 < count);
                }
            }
        }
        assert_eq!(unrank_multiset(0, 1), vec![0]);
        assert_eq!(rank_multiset(&[7]), 7);
    }
}
