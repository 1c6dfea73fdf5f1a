//! FNV-1a 64, the one hash of the crate and the command line: checkpoint
//! checksums, the exit checksum of result rows, the map fingerprint of a
//! resume, a solution's values hash and a partitioned solve's game hash.
//! Not cryptographic; chosen because it is fixed (the same value in every
//! build and process) and needs no state but one word.

/// The FNV-1a 64 offset basis: the sum of no bytes.
pub const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// The FNV-1a 64 prime.
const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// Continues the FNV-1a 64 sum `sum` over `bytes` (start from
/// [`FNV_START`]).
///
/// # Example
/// ```
/// use retrograde::{fnv1a, FNV_START};
/// assert_eq!(fnv1a(FNV_START, b""), FNV_START);
/// assert_eq!(fnv1a(fnv1a(FNV_START, b"ab"), b"c"), fnv1a(FNV_START, b"abc"));
/// assert_eq!(fnv1a(FNV_START, b"a"), 0xaf63_dc4c_8601_ec8c);
/// ```
#[must_use]
pub fn fnv1a(mut sum: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        sum = (sum ^ u64::from(b)).wrapping_mul(FNV_PRIME);
    }
    sum
}

/// Folds the hash `part` into `acc`, order-sensitive: how per-chunk sums
/// computed in parallel combine into one.
#[must_use]
pub(crate) fn combine(acc: u64, part: u64) -> u64 {
    (acc ^ part).wrapping_mul(FNV_PRIME).rotate_left(7)
}
