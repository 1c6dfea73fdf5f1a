//! The period search's memory of windows: a window of the Grundy sequence
//! that repeats one remembered every [`STRIDE`] values, found through a
//! rolling hash in a compact open-addressing table (apart from the game
//! and its analysis because it is the search's one data structure, and
//! the part whose bytes [`SubtractionGame::search_bytes`] bounds).
//!
//! [`SubtractionGame::search_bytes`]: super::SubtractionGame::search_bytes

use std::collections::TryReserveError;

use super::{MIN_SLOTS, STRIDE};

/// Finds a window of length `k` of a growing sequence equal to one of the
/// windows starting at a multiple of [`STRIDE`], through a rolling
/// polynomial hash checked against the values themselves. The windows
/// remembered are kept in an open-addressing table of `u64` slots, each
/// `(tag << 32) | (start + 1)` (0: empty), where `tag` is the high half of
/// the mixed hash and its high bits pick the slot; the table doubles when
/// half full. Memory: 8 bytes a slot, at most 4 slots a remembered window
/// (6 while it doubles).
pub(super) struct WindowRepeats {
    k: usize,
    hash: u64,
    top_power: u64,
    slots: Vec<u64>,
    len: usize,
}

const HASH_BASE: u64 = 0x9E37_79B9_7F4A_7C15;

/// A 64-bit finalizer (MurmurHash3's): the rolling hash's low bits depend
/// only on the values' low bits, so the slot is picked from mixed bits.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

impl WindowRepeats {
    pub(super) fn new(k: usize) -> WindowRepeats {
        WindowRepeats {
            k,
            hash: 0,
            top_power: (1..k).fold(1u64, |p, _| p.wrapping_mul(HASH_BASE)),
            slots: Vec::new(),
            len: 0,
        }
    }

    /// The slot a tag is looked for from, in a table of `slots` slots (a
    /// power of two, at most 2^32).
    fn home(tag: u32, slots: usize) -> usize {
        let bits = slots.trailing_zeros();
        (u64::from(tag) >> (32 - bits)) as usize
    }

    /// Called after each new value with the whole sequence so far; returns
    /// `(i, j)` once the newest complete window, starting at `j`, equals
    /// the remembered window starting at `i`. An error when the table
    /// cannot grow.
    pub(super) fn push(
        &mut self,
        values: &[u32],
    ) -> Result<Option<(usize, usize)>, TryReserveError> {
        let key = |v: u32| u64::from(v) + 1;
        let n = values.len();
        if n > self.k {
            let old = key(values[n - 1 - self.k]);
            self.hash = self.hash.wrapping_sub(old.wrapping_mul(self.top_power));
        }
        self.hash = self
            .hash
            .wrapping_mul(HASH_BASE)
            .wrapping_add(key(values[n - 1]));
        if n < self.k {
            return Ok(None);
        }
        let start = n - self.k;
        let tag = (mix(self.hash) >> 32) as u32;
        let remember = (start as u64).is_multiple_of(STRIDE);
        if self.slots.is_empty() {
            if !remember {
                return Ok(None);
            }
            self.grow()?;
        }
        let mut at = Self::home(tag, self.slots.len());
        loop {
            let slot = self.slots[at];
            if slot == 0 {
                break;
            }
            if (slot >> 32) as u32 == tag {
                let i = (slot as u32 - 1) as usize;
                if values[i..i + self.k] == values[start..] {
                    return Ok(Some((i, start)));
                }
            }
            at = (at + 1) & (self.slots.len() - 1);
        }
        if remember {
            if 2 * (self.len + 1) > self.slots.len() {
                self.grow()?;
                at = self.free_slot(tag);
            }
            self.slots[at] = (u64::from(tag) << 32) | (start as u64 + 1);
            self.len += 1;
        }
        Ok(None)
    }

    /// The first empty slot from `tag`'s home.
    fn free_slot(&self, tag: u32) -> usize {
        let mut at = Self::home(tag, self.slots.len());
        while self.slots[at] != 0 {
            at = (at + 1) & (self.slots.len() - 1);
        }
        at
    }

    /// Doubles the table (or makes its first one) and puts every window
    /// back.
    fn grow(&mut self) -> Result<(), TryReserveError> {
        let size = (2 * self.slots.len()).max(MIN_SLOTS as usize);
        let mut slots = Vec::new();
        slots.try_reserve_exact(size)?;
        slots.resize(size, 0u64);
        let old = std::mem::replace(&mut self.slots, slots);
        for slot in old.into_iter().filter(|&s| s != 0) {
            let at = self.free_slot((slot >> 32) as u32);
            self.slots[at] = slot;
        }
        Ok(())
    }
}
