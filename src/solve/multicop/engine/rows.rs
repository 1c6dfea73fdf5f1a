//! Whole-row helpers of the k-cop engine on its flat bitsets (a row is a
//! cop multiset's `words` words of thief cells): OR-ing source rows,
//! committing the thief's next-level rows, a multiset's cop bits.

use rayon::prelude::*;

use crate::storage::pager::Checker;

/// `to` becomes the OR of the rows `srcs` of `from` that `keep` allows
/// (rows of `to.len()` words; all zeros when none); whether any was.
/// Rows of up to 8 words (graphs and maps of up to 512 cells) are ORed in
/// registers of a fixed width: through `copy_from_slice` and `fill` a row
/// of a few words cost a call to `memcpy` or `memset` each, which took 18%
/// of three cops on a 200-vertex graph.
#[inline]
pub(super) fn or_rows(
    to: &mut [u64],
    from: &[u64],
    srcs: &[usize],
    keep: impl Fn(usize) -> bool,
) -> bool {
    match to.len() {
        1 => or_rows_fixed::<1>(to, from, srcs, keep),
        2 => or_rows_fixed::<2>(to, from, srcs, keep),
        3 => or_rows_fixed::<3>(to, from, srcs, keep),
        4 => or_rows_fixed::<4>(to, from, srcs, keep),
        5..=8 => or_rows_fixed::<8>(to, from, srcs, keep),
        words => {
            let mut any = false;
            for &s in srcs.iter().filter(|&&s| keep(s)) {
                let v = &from[s * words..(s + 1) * words];
                if any {
                    to.iter_mut().zip(v).for_each(|(r, v)| *r |= v);
                } else {
                    to.copy_from_slice(v);
                    any = true;
                }
            }
            if !any {
                to.fill(0);
            }
            any
        }
    }
}

/// [`or_rows`] for rows of `to.len() <= W` words, in a `[u64; W]`.
#[inline]
fn or_rows_fixed<const W: usize>(
    to: &mut [u64],
    from: &[u64],
    srcs: &[usize],
    keep: impl Fn(usize) -> bool,
) -> bool {
    let words = to.len();
    let mut acc = [0u64; W];
    let mut any = false;
    for &s in srcs.iter().filter(|&&s| keep(s)) {
        any = true;
        let v = &from[s * words..(s + 1) * words];
        for (a, v) in acc.iter_mut().zip(v) {
            *a |= v;
        }
    }
    for (t, a) in to.iter_mut().zip(acc) {
        *t = a;
    }
    any
}

/// Copies the rows flagged in `changed` from `next` into `now`.
pub(super) fn commit(
    now: &mut [u64],
    next: &[u64],
    changed: &[u8],
    words: usize,
    paging: Option<&Checker>,
) {
    if now.is_empty() {
        return;
    }
    now.par_chunks_mut(words * 1024)
        .zip(next.par_chunks(words * 1024))
        .zip(changed.par_chunks(1024))
        .for_each(|((now, next), changed)| {
            for (i, _) in changed.iter().enumerate().filter(|(_, &c)| c != 0) {
                now[i * words..(i + 1) * words].copy_from_slice(&next[i * words..(i + 1) * words]);
            }
            if let Some(paging) = paging {
                paging.touched((now.len() * 8 * 2) as u64);
            }
        });
}

/// The bits of word `w` of a cop multiset's cells.
#[inline]
pub(super) fn cop_word(cops: &[u32], w: usize) -> u64 {
    cops.iter()
        .filter(|&&c| c as usize / 64 == w)
        .fold(0, |m, &c| m | 1 << (c % 64))
}
