//! The unit tests' one small seeded generator: Marsaglia's xorshift64
//! (shifts 13, 7, 17), so random test data needs no crate and a seed
//! names the same data in every test that draws from it.

/// A xorshift64 stream from a nonzero state.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// The next state, which is also the draw.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A draw reduced to `0..n` (n > 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The stream from `seed` as a closure, for tests that only draw.
pub(crate) fn stream(seed: u64) -> impl FnMut() -> u64 {
    let mut rng = Rng(seed);
    move || rng.next()
}
