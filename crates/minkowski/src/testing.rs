//! Helpers shared by the unit tests of several modules.

/// A seeded xorshift source of uniform numbers in [0, 1).
pub(crate) fn uniform(mut seed: u64) -> impl FnMut() -> f64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    }
}
