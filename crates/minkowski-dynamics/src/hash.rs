//! The state hash: 64-bit FNV-1a (Fowler, Noll, Vo) over the bits of every body's
//! position, rotation, linear and angular velocity, in body order. Two runs of the same
//! scene with the same thread count give the same hash at every step exactly when their
//! states are bit-identical.

use crate::body::Body;
use minkowski::Real;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// An FNV-1a hasher over bytes.
#[derive(Debug, Clone, Copy)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(FNV_OFFSET)
    }
}

impl Fnv1a {
    /// Feeds bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(FNV_PRIME);
        }
    }
    /// Feeds one scalar's bits (little-endian).
    pub fn write_real(&mut self, v: Real) {
        self.write(&v.to_le_bytes());
    }
    /// The hash so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// The state hash of `bodies` (module notes).
pub fn state_hash(bodies: &[Body]) -> u64 {
    let mut h = Fnv1a::default();
    for b in bodies {
        for v in [b.position, b.linear_velocity, b.angular_velocity] {
            for c in v.to_array() {
                h.write_real(c);
            }
        }
        for c in b.rotation.to_array() {
            h.write_real(c);
        }
    }
    h.finish()
}
