//! Exact orientation signs in integer arithmetic: the fallback of the `predicates`
//! module for the calls whose coordinates lie outside the range where Shewchuk's
//! floating-point predicates are exact (see that module's notes for the range).
//!
//! Every finite double is `±m · 2^(s − 1074)` with integers `0 ≤ m < 2⁵³` and
//! `0 ≤ s ≤ 2045` (`s` is the biased exponent less one; 0 for subnormals). The
//! coordinates of one call are written as integers over the smallest of their units,
//! `2^(s_min − 1074)`; the determinant of their differences is then an integer
//! polynomial, evaluated with arbitrary-size integers, and its sign is the sign of the
//! exact determinant (they differ by the positive factor `2^(k (s_min − 1074))`).
//!
//! The integers have at most about 2100 bits (a subnormal beside a double near 2¹⁰²⁴);
//! after the rescaling of `predicates::prepare` (largest magnitude below 2³⁰¹) at most
//! about 1430, so a product of three differences has at most about 70 limbs of 64 bits.
//! That costs around a microsecond per predicate: the predicates use it only for the
//! rare calls that involve a coordinate far smaller than the set's largest.

use std::cmp::Ordering;

use glam::{DVec2, DVec3};

/// A signed integer of any size: magnitude in base 2⁶⁴, least significant limb first,
/// with no most significant zero limb. Zero has no limbs and is not negative.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Int {
    neg: bool,
    mag: Vec<u64>,
}

fn trim(mut mag: Vec<u64>) -> Vec<u64> {
    while mag.last() == Some(&0) {
        mag.pop();
    }
    mag
}

fn cmp_mag(a: &[u64], b: &[u64]) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.iter().rev().cmp(b.iter().rev()))
}

fn add_mag(a: &[u64], b: &[u64]) -> Vec<u64> {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let mut out = Vec::with_capacity(long.len() + 1);
    let mut carry = false;
    for (i, &x) in long.iter().enumerate() {
        let (s, c1) = x.overflowing_add(short.get(i).copied().unwrap_or(0));
        let (s, c2) = s.overflowing_add(carry as u64);
        out.push(s);
        carry = c1 || c2;
    }
    out.push(carry as u64);
    trim(out)
}

/// `a − b` for `|a| ≥ |b|`.
fn sub_mag(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = false;
    for (i, &x) in a.iter().enumerate() {
        let (d, b1) = x.overflowing_sub(b.get(i).copied().unwrap_or(0));
        let (d, b2) = d.overflowing_sub(borrow as u64);
        out.push(d);
        borrow = b1 || b2;
    }
    trim(out)
}

fn mul_mag(a: &[u64], b: &[u64]) -> Vec<u64> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut out = vec![0u64; a.len() + b.len()];
    for (i, &x) in a.iter().enumerate() {
        let mut carry = 0u128;
        for (j, &y) in b.iter().enumerate() {
            // x·y + out + carry < 2¹²⁸: (2⁶⁴−1)² + 2 (2⁶⁴−1) = 2¹²⁸ − 1.
            let t = x as u128 * y as u128 + out[i + j] as u128 + carry;
            out[i + j] = t as u64;
            carry = t >> 64;
        }
        out[i + b.len()] = carry as u64;
    }
    trim(out)
}

impl Int {
    fn new(neg: bool, mag: Vec<u64>) -> Int {
        let mag = trim(mag);
        Int {
            neg: neg && !mag.is_empty(),
            mag,
        }
    }

    /// `±m · 2^shift`.
    fn from_parts(neg: bool, m: u64, shift: u32) -> Int {
        let mut mag = vec![0u64; (shift / 64) as usize];
        let wide = (m as u128) << (shift % 64);
        mag.push(wide as u64);
        mag.push((wide >> 64) as u64);
        Int::new(neg, mag)
    }

    fn add(&self, o: &Int) -> Int {
        if self.neg == o.neg {
            return Int::new(self.neg, add_mag(&self.mag, &o.mag));
        }
        match cmp_mag(&self.mag, &o.mag) {
            Ordering::Less => Int::new(o.neg, sub_mag(&o.mag, &self.mag)),
            _ => Int::new(self.neg, sub_mag(&self.mag, &o.mag)),
        }
    }

    fn sub(&self, o: &Int) -> Int {
        self.add(&Int::new(!o.neg, o.mag.clone()))
    }

    fn mul(&self, o: &Int) -> Int {
        Int::new(self.neg != o.neg, mul_mag(&self.mag, &o.mag))
    }

    /// −1, 0 or +1.
    fn signum(&self) -> f64 {
        match (self.mag.is_empty(), self.neg) {
            (true, _) => 0.0,
            (false, true) => -1.0,
            (false, false) => 1.0,
        }
    }

    /// Number of significant bits of the magnitude (0 for zero).
    fn bits(&self) -> u32 {
        match self.mag.last() {
            Some(&top) => 64 * self.mag.len() as u32 - top.leading_zeros(),
            None => 0,
        }
    }

    /// The value times `2^−shift`, rounded (from its 64 leading bits, so within about
    /// one unit in the last place), or 0 when that is below the subnormal range.
    fn to_f64_scaled(&self, shift: i32) -> f64 {
        let bits = self.bits() as i32;
        if bits == 0 {
            return 0.0;
        }
        // The 64 leading bits, and the exponent of their last one.
        let low = (bits - 64).max(0);
        let (limb, off) = ((low / 64) as usize, (low % 64) as u32);
        let mut top = self.mag[limb] >> off;
        if off > 0 {
            if let Some(&next) = self.mag.get(limb + 1) {
                top |= next << (64 - off);
            }
        }
        let magnitude = ldexp(top as f64, low - shift);
        if self.neg {
            -magnitude
        } else {
            magnitude
        }
    }
}

/// `x · 2^e`, in steps that keep every factor a normal power of two.
fn ldexp(mut x: f64, mut e: i32) -> f64 {
    let step = |k: i32| f64::from_bits(((k + 1023) as u64) << 52);
    while e > 1000 {
        x *= step(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= step(-1000);
        e += 1000;
    }
    x * step(e)
}

/// The sign, integer significand and exponent shift of a finite double:
/// `x = ±m · 2^(s − 1074)`.
fn parts(x: f64) -> (bool, u64, u32) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as u32;
    let frac = bits & ((1 << 52) - 1);
    let neg = bits >> 63 == 1;
    if biased == 0 {
        (neg, frac, 0)
    } else {
        (neg, frac | 1 << 52, biased - 1)
    }
}

/// The coordinates as integers over the smallest unit among the nonzero ones (their
/// ratios are exact; zeros, whose shift may be below that unit's, stay zero).
fn integers<const N: usize>(xs: [f64; N]) -> [Int; N] {
    let p = xs.map(parts);
    let s_min = p
        .iter()
        .filter(|(_, m, _)| *m != 0)
        .map(|(_, _, s)| *s)
        .min()
        .unwrap_or(0);
    p.map(|(neg, m, s)| Int::from_parts(neg, m, s.saturating_sub(s_min)))
}

/// `u × v` for integer vectors.
fn cross(u: &[Int; 3], v: &[Int; 3]) -> [Int; 3] {
    [
        u[1].mul(&v[2]).sub(&u[2].mul(&v[1])),
        u[2].mul(&v[0]).sub(&u[0].mul(&v[2])),
        u[0].mul(&v[1]).sub(&u[1].mul(&v[0])),
    ]
}

/// The sign of the turn `a → b → c` (+1 counter-clockwise, 0 collinear), exactly, for
/// any finite coordinates.
#[cold]
#[inline(never)]
pub(crate) fn orient2(a: DVec2, b: DVec2, c: DVec2) -> f64 {
    let [ax, ay, bx, by, cx, cy] = integers([a.x, a.y, b.x, b.y, c.x, c.y]);
    let left = bx.sub(&ax).mul(&cy.sub(&ay));
    let right = by.sub(&ay).mul(&cx.sub(&ax));
    left.sub(&right).signum()
}

/// The sign of `det(b − a, c − a, d − a)`: +1 when `d` lies above the plane of `a b c`
/// (the side from which they turn counter-clockwise), exactly, for any finite
/// coordinates.
#[cold]
#[inline(never)]
pub(crate) fn orient3(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
    let [ax, ay, az, bx, by, bz, cx, cy, cz, dx, dy, dz] =
        integers([a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z, d.x, d.y, d.z]);
    let u = [bx.sub(&ax), by.sub(&ay), bz.sub(&az)];
    let v = [cx.sub(&ax), cy.sub(&ay), cz.sub(&az)];
    let w = [dx.sub(&ax), dy.sub(&ay), dz.sub(&az)];
    let n = cross(&u, &v);
    n[0].mul(&w[0])
        .add(&n[1].mul(&w[1]))
        .add(&n[2].mul(&w[2]))
        .signum()
}

/// The direction of `(b − a) × (c − a)`, computed exactly and then rounded: each
/// component has the exact component's sign (zero only if that is zero, or if it is
/// below 2⁻¹⁰⁷⁴ of the largest), and the largest has magnitude in `[1, 2]`. `None` when
/// the three points are collinear.
pub(crate) fn normal(a: DVec3, b: DVec3, c: DVec3) -> Option<DVec3> {
    let [ax, ay, az, bx, by, bz, cx, cy, cz] =
        integers([a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z]);
    let u = [bx.sub(&ax), by.sub(&ay), bz.sub(&az)];
    let v = [cx.sub(&ax), cy.sub(&ay), cz.sub(&az)];
    let n = cross(&u, &v);
    let top = n.iter().map(Int::bits).max().unwrap_or(0) as i32;
    if top == 0 {
        return None;
    }
    Some(DVec3::new(
        n[0].to_f64_scaled(top - 1),
        n[1].to_f64_scaled(top - 1),
        n[2].to_f64_scaled(top - 1),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// splitmix64.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
            z ^ (z >> 31)
        }
        /// Small half-integers: products stay exact in plain f64.
        fn small(&mut self) -> f64 {
            (self.next() % 9) as f64 * 0.5 - 2.0
        }
    }

    fn robust2(a: DVec2, b: DVec2, c: DVec2) -> f64 {
        let k = |p: DVec2| robust::Coord { x: p.x, y: p.y };
        let r = robust::orient2d(k(a), k(b), k(c));
        if r == 0.0 {
            0.0
        } else {
            r.signum()
        }
    }

    #[test]
    fn integer_arithmetic_matches_i128() {
        let mut rng = Rng(17);
        for _ in 0..2000 {
            let x = (rng.next() >> 2) as i64 as i128 * if rng.next() & 1 == 0 { 1 } else { -1 };
            let y = (rng.next() >> 2) as i64 as i128 - (1 << 60);
            let int = |v: i128| Int::from_parts(v < 0, v.unsigned_abs() as u64, 0);
            let (a, b) = (int(x), int(y));
            let as_i128 = |v: &Int| {
                let mut m = 0u128;
                for (i, &l) in v.mag.iter().enumerate() {
                    m |= (l as u128) << (64 * i);
                }
                if v.neg {
                    -(m as i128)
                } else {
                    m as i128
                }
            };
            assert_eq!(as_i128(&a.add(&b)), x + y);
            assert_eq!(as_i128(&a.sub(&b)), x - y);
            let (xs, ys) = (x >> 2, y >> 2); // products below 2¹²⁵
            assert_eq!(as_i128(&int(xs).mul(&int(ys))), xs * ys);
            assert_eq!(a.sub(&a), Int::new(false, Vec::new()));
        }
    }

    #[test]
    fn orientations_match_robust_where_it_is_exact_and_hold_at_the_range_ends() {
        let mut rng = Rng(3);
        for _ in 0..2000 {
            let mut p = || DVec3::new(rng.small(), rng.small(), rng.small());
            let (a, b, c, d) = (p(), p(), p(), p());
            assert_eq!(
                orient2(a.truncate(), b.truncate(), c.truncate()),
                robust2(a.truncate(), b.truncate(), c.truncate())
            );
            let plain = (b - a).cross(c - a).dot(d - a); // exact for half-integers
            assert_eq!(
                orient3(a, b, c, d),
                if plain == 0.0 { 0.0 } else { plain.signum() }
            );
        }
        // A triangle of height 2⁻¹⁰⁷⁴ on a base of length 2·10³⁰⁰, and a point off
        // the plane of a huge triangle by the smallest subnormal.
        let (a, b) = (DVec2::new(-1e300, 0.0), DVec2::new(1e300, 0.0));
        assert_eq!(orient2(a, b, DVec2::new(0.0, 5e-324)), 1.0);
        assert_eq!(orient2(a, b, DVec2::new(1e-320, -5e-324)), -1.0);
        assert_eq!(orient2(a, b, DVec2::new(7e-300, 0.0)), 0.0);
        let (a, b, c) = (
            DVec3::ZERO,
            DVec3::new(1e300, 0.0, 0.0),
            DVec3::new(0.0, 1e300, 0.0),
        );
        assert_eq!(orient3(a, b, c, DVec3::new(3.0, -1e300, 5e-324)), 1.0);
        assert_eq!(orient3(a, b, c, DVec3::new(3.0, -1e300, -5e-324)), -1.0);
        assert_eq!(orient3(a, b, c, DVec3::new(-1e-310, 1e300, 0.0)), 0.0);
    }

    #[test]
    fn normals_keep_exact_signs_and_relative_size() {
        // (1, 1, 0) and (0, 1e-310, 0): normal (0, 0, 1e-310) up to scale.
        let n = normal(
            DVec3::ZERO,
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(0.0, 1e-310, 0.0),
        )
        .unwrap();
        assert_eq!((n.x, n.y), (0.0, 0.0));
        assert!((1.0..=2.0).contains(&n.z), "{n}");
        // Components 1 and 1 + 2⁻⁵² apart: kept apart, in order.
        let e = f64::EPSILON;
        let n = normal(
            DVec3::ZERO,
            DVec3::new(0.0, 0.0, 1.0),
            DVec3::new(-(1.0 + e), 1.0, 0.0),
        )
        .unwrap();
        assert!(n.x < 0.0 && n.y < n.x && n.z == 0.0, "{n}");
        assert_eq!(normal(DVec3::ZERO, DVec3::ONE, DVec3::splat(1e-300)), None);
    }
}
