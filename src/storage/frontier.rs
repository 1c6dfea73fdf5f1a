//! A frontier: the set of states decided at one level, as a two-level bitmap.
//!
//! One bit per state in `words`, and one summary bit per word saying "this
//! word may be non-zero", so a pass over a sparse frontier reads 1/64 of the
//! bitmap. Draining visits states in increasing index order, which keeps the
//! predecessor updates inside a sliding window of the state array (the
//! locality argument of the state layout) and makes out-of-core work
//! sequential rather than random.
//!
//! Invariant: a word is non-zero only if its summary bit is set; draining
//! clears both, so a drained frontier is all zeros and can be reused.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::{Backing, Paging, Region};
use crate::error::Result;

/// Number of states covered by one summary word (64 words of 64 bits).
pub(crate) const STATES_PER_SUMMARY_WORD: u64 = 64 * 64;

/// A set of state indices with ordered draining.
pub(crate) struct Frontier {
    words: Region,
    summary: Region,
}

impl Frontier {
    /// An empty frontier over `states` state indices (`paging` applies to
    /// a scratch-file bitmap).
    pub(crate) fn new(states: u64, backing: &Backing, paging: Paging) -> Result<Frontier> {
        let words = states.div_ceil(64);
        Ok(Frontier {
            words: Region::zeroed_paged::<AtomicU64>(words, backing, "frontier bitmap", paging)?,
            // The summary is small (1/4096 of the states) and read at every
            // level: always keep it in memory.
            summary: Region::zeroed::<AtomicU64>(
                words.div_ceil(64),
                &Backing::Memory,
                "frontier summary",
            )?,
        })
    }

    /// Number of summary words (the unit of work splitting).
    pub(crate) fn summary_len(&self) -> usize {
        self.summary.atomics::<AtomicU64>().len()
    }

    /// Adds state `s`. With `SHARED`, other threads may insert concurrently.
    #[inline]
    pub(crate) fn insert<const SHARED: bool>(&self, s: u64) {
        let words = self.words.atomics::<AtomicU64>();
        let w = (s / 64) as usize;
        let bit = 1u64 << (s % 64);
        let was_empty = if SHARED {
            words[w].fetch_or(bit, Relaxed) == 0
        } else {
            let old = words[w].load(Relaxed);
            words[w].store(old | bit, Relaxed);
            old == 0
        };
        // Only the insert that makes a word non-zero touches the summary.
        if was_empty {
            let summary = self.summary.atomics::<AtomicU64>();
            let sbit = 1u64 << (w % 64);
            if SHARED {
                summary[w / 64].fetch_or(sbit, Relaxed);
            } else {
                let old = summary[w / 64].load(Relaxed);
                summary[w / 64].store(old | sbit, Relaxed);
            }
        }
    }

    /// Removes and visits, in increasing order, every state whose summary
    /// word lies in `range`. Callers that drain disjoint ranges concurrently
    /// need no synchronisation between them.
    #[inline]
    pub(crate) fn drain(&self, range: Range<usize>, mut visit: impl FnMut(u64)) {
        let words = self.words.atomics::<AtomicU64>();
        let summary = self.summary.atomics::<AtomicU64>();
        for sw in range {
            let mut sbits = summary[sw].load(Relaxed);
            if sbits == 0 {
                continue;
            }
            summary[sw].store(0, Relaxed);
            while sbits != 0 {
                let w = sw * 64 + sbits.trailing_zeros() as usize;
                sbits &= sbits - 1;
                let mut bits = words[w].load(Relaxed);
                words[w].store(0, Relaxed);
                while bits != 0 {
                    let s = w as u64 * 64 + u64::from(bits.trailing_zeros());
                    bits &= bits - 1;
                    visit(s);
                }
            }
        }
    }

    /// The bitmap, one bit per state (for a checkpoint of the set).
    #[cfg(feature = "distributed")]
    pub(crate) fn words(&self) -> &[AtomicU64] {
        self.words.atomics::<AtomicU64>()
    }

    /// Adds the states of a bitmap `words` saved from [`Frontier::words`]
    /// (of the same length) to this frontier.
    #[cfg(feature = "distributed")]
    pub(crate) fn restore(&self, words: &[u64]) {
        let mine = self.words.atomics::<AtomicU64>();
        let summary = self.summary.atomics::<AtomicU64>();
        for (w, &bits) in words.iter().enumerate() {
            if bits != 0 {
                mine[w].fetch_or(bits, Relaxed);
                summary[w / 64].fetch_or(1 << (w % 64), Relaxed);
            }
        }
    }

    /// Whether any state whose summary word lies in `range` is present.
    pub(crate) fn any(&self, range: Range<usize>) -> bool {
        self.summary.atomics::<AtomicU64>()[range]
            .iter()
            .any(|w| w.load(Relaxed) != 0)
    }

    /// Drops resident pages of the bitmap for states in `range` (scratch
    /// backing only; see [`Region::release`]).
    pub(crate) fn release(&self, range: std::ops::Range<u64>) {
        // Whole words only: a word's page is kept if it is shared with
        // states outside the range.
        self.words
            .release(range.start.div_ceil(64)..range.end / 64, 8);
    }

    /// Maps the bitmap's pages for states in `range` writable ahead of use
    /// (scratch backing only; see [`Region::prefault`]).
    pub(crate) fn prefault(&self, range: std::ops::Range<u64>) {
        self.words
            .prefault(range.start / 64..range.end.div_ceil(64), 8);
    }

    /// The first error met writing the bitmap back to its scratch file.
    pub(crate) fn take_write_error(&self) -> Option<std::io::Error> {
        self.words.take_write_error()
    }

    /// Bytes of memory and disk used.
    pub(crate) fn bytes(&self) -> usize {
        self.words.bytes() + self.summary.bytes()
    }
}
