//! Hulls of point sets whose coordinates span from subnormal to the largest accepted
//! magnitude (issue 17, class 3), and the two hull findings of the fuzz target.
//!
//! The oracle shares nothing with the library's predicates: signs of exact big-integer
//! determinants of the homogeneous coordinate matrices (`[x y 1]`, `[x y z 1]`),
//! expanded by cofactors. Every finite `f64` is an integer multiple of 2⁻¹⁰⁷⁴, so the
//! coordinates times 2¹⁰⁷⁴ are integers and the determinants are exact at every
//! magnitude. On top of it, brute force:
//!
//! * 2D: a location is a hull vertex iff it lies in no closed, possibly degenerate,
//!   triangle of three other locations;
//! * 3D: the facets are the planes through three points with every point on one side,
//!   each with the 2D extreme points of the points on it; lower dimensions by exact
//!   collinearity and coplanarity over all points.
//!
//! Tests run in both precisions (`--features minkowski/f64`): the `Real` entry points
//! get sets spanning the build's own range (subnormal `f32` up to 1e8, or subnormal
//! `f64` up to 1e60), the `f64` entry points the full `f64` range in both builds.
#![allow(clippy::unnecessary_cast)] // `as f64` is a no-op in the f64 build

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::Rng;
use glam::{DVec2, DVec3};
use minkowski::hull::{
    quickhull3d, quickhull3d_f64, Algorithm2d, ConvexHull, Dimension, MAX_MAGNITUDE_F64,
};
use minkowski::math::Vector2;
use minkowski::shape::{ConvexPolyhedron, MAX_MAGNITUDE};
use minkowski::{Real, Vector};

/// Exact signs by big-integer arithmetic (the oracle).
mod exact {
    use std::cmp::Ordering;

    /// A signed integer: sign and base-2³² magnitude, least significant limb first, with
    /// no most significant zero limb (zero has no limbs and is not negative).
    #[derive(Clone, Debug)]
    pub struct Int {
        neg: bool,
        mag: Vec<u32>,
    }

    fn trim(mut mag: Vec<u32>) -> Vec<u32> {
        while mag.last() == Some(&0) {
            mag.pop();
        }
        mag
    }

    fn cmp_mag(a: &[u32], b: &[u32]) -> Ordering {
        a.len()
            .cmp(&b.len())
            .then_with(|| a.iter().rev().cmp(b.iter().rev()))
    }

    fn add_mag(a: &[u32], b: &[u32]) -> Vec<u32> {
        let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
        let mut carry = 0u64;
        for i in 0..a.len().max(b.len()) {
            let s = *a.get(i).unwrap_or(&0) as u64 + *b.get(i).unwrap_or(&0) as u64 + carry;
            out.push(s as u32);
            carry = s >> 32;
        }
        out.push(carry as u32);
        trim(out)
    }

    /// `a − b` for `|a| ≥ |b|`.
    fn sub_mag(a: &[u32], b: &[u32]) -> Vec<u32> {
        let mut out = Vec::with_capacity(a.len());
        let mut borrow = 0i64;
        for (i, &x) in a.iter().enumerate() {
            let mut d = x as i64 - *b.get(i).unwrap_or(&0) as i64 - borrow;
            borrow = 0;
            if d < 0 {
                d += 1 << 32;
                borrow = 1;
            }
            out.push(d as u32);
        }
        trim(out)
    }

    impl Int {
        fn new(neg: bool, mag: Vec<u32>) -> Int {
            let mag = trim(mag);
            Int {
                neg: neg && !mag.is_empty(),
                mag,
            }
        }

        /// `x · 2^(1074 − low)`, exactly, for `x` a multiple of `2^(low − 1074)` (every
        /// finite `x` is a multiple of 2⁻¹⁰⁷⁴).
        pub fn of(x: f64, low: u32) -> Int {
            assert!(x.is_finite());
            let bits = x.to_bits();
            let biased = ((bits >> 52) & 0x7ff) as u32;
            let frac = bits & ((1u64 << 52) - 1);
            // x = m · 2^(shift − 1074)
            let (m, shift) = if biased == 0 {
                (frac, 0)
            } else {
                (frac | 1 << 52, biased - 1)
            };
            if m == 0 {
                return Int::new(false, Vec::new());
            }
            // m · 2^(shift − low), an integer: `low` counts m's trailing zeros too.
            let (m, shift) = if shift >= low {
                (m, shift - low)
            } else {
                (m >> (low - shift), 0)
            };
            let mut mag = vec![0u32; (shift / 32) as usize];
            let wide = (m as u128) << (shift % 32);
            for k in 0..3 {
                mag.push((wide >> (32 * k)) as u32);
            }
            Int::new(x < 0.0, mag)
        }

        pub fn add(&self, o: &Int) -> Int {
            if self.neg == o.neg {
                return Int::new(self.neg, add_mag(&self.mag, &o.mag));
            }
            match cmp_mag(&self.mag, &o.mag) {
                Ordering::Less => Int::new(o.neg, sub_mag(&o.mag, &self.mag)),
                _ => Int::new(self.neg, sub_mag(&self.mag, &o.mag)),
            }
        }

        pub fn neg(&self) -> Int {
            Int::new(!self.neg, self.mag.clone())
        }

        pub fn mul(&self, o: &Int) -> Int {
            let mut out = vec![0u32; self.mag.len() + o.mag.len() + 1];
            for (i, &a) in self.mag.iter().enumerate() {
                let mut carry = 0u64;
                for (j, &b) in o.mag.iter().enumerate() {
                    let t = a as u64 * b as u64 + out[i + j] as u64 + carry;
                    out[i + j] = t as u32;
                    carry = t >> 32;
                }
                let mut k = i + o.mag.len();
                while carry != 0 {
                    let t = out[k] as u64 + carry;
                    out[k] = t as u32;
                    carry = t >> 32;
                    k += 1;
                }
            }
            Int::new(self.neg != o.neg, out)
        }

        pub fn sign(&self) -> i32 {
            if self.mag.is_empty() {
                0
            } else if self.neg {
                -1
            } else {
                1
            }
        }
    }

    /// The determinant of a square matrix, by cofactor expansion along the first row.
    pub fn det(m: &[Vec<Int>]) -> Int {
        if m.len() == 1 {
            return m[0][0].clone();
        }
        let mut total = Int::new(false, Vec::new());
        for j in 0..m.len() {
            let minor: Vec<Vec<Int>> = m[1..]
                .iter()
                .map(|row| {
                    row.iter()
                        .enumerate()
                        .filter(|&(c, _)| c != j)
                        .map(|(_, v)| v.clone())
                        .collect()
                })
                .collect();
            let term = m[0][j].mul(&det(&minor));
            total = total.add(&if j % 2 == 0 { term } else { term.neg() });
        }
        total
    }

    /// The sign of the determinant of the rows `[p 1]`, computed over integers: every
    /// entry (the 1s included) is divided by the largest power of two that divides all
    /// of them, a positive common factor.
    fn homogeneous_sign(rows: &[&[f64]]) -> i32 {
        // x = m · 2^(s − 1074) is a multiple of 2^(s + trailing_zeros(m) − 1074).
        let low = rows
            .iter()
            .flat_map(|r| r.iter())
            .chain(std::iter::once(&1.0))
            .filter(|x| **x != 0.0)
            .map(|x| {
                let bits = x.to_bits();
                let biased = ((bits >> 52) & 0x7ff) as u32;
                let frac = bits & ((1u64 << 52) - 1);
                let m = if biased == 0 { frac } else { frac | 1 << 52 };
                biased.max(1) - 1 + m.trailing_zeros()
            })
            .min()
            .unwrap();
        let m: Vec<Vec<Int>> = rows
            .iter()
            .map(|r| {
                r.iter()
                    .chain(std::iter::once(&1.0))
                    .map(|&x| Int::of(x, low))
                    .collect()
            })
            .collect();
        det(&m).sign()
    }

    /// Sign of the turn `a → b → c`: +1 counter-clockwise, 0 collinear.
    pub fn orient2(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> i32 {
        homogeneous_sign(&[&a, &b, &c])
    }

    /// +1 when `d` lies above the plane of `a b c` (the side from which they turn
    /// counter-clockwise), −1 below, 0 coplanar.
    pub fn orient3(a: [f64; 3], b: [f64; 3], c: [f64; 3], d: [f64; 3]) -> i32 {
        // det [a 1; b 1; c 1; d 1] = −det(b − a, c − a, d − a).
        -homogeneous_sign(&[&a, &b, &c, &d])
    }
}

/// A location key: equal keys for equal coordinates (−0.0 and +0.0 alike).
fn key<const N: usize>(p: [f64; N]) -> [u64; N] {
    p.map(|c| (c + 0.0).to_bits())
}

fn distinct<const N: usize>(p: &[[f64; N]]) -> Vec<[f64; N]> {
    let mut seen = BTreeSet::new();
    p.iter().copied().filter(|q| seen.insert(key(*q))).collect()
}

/// Whether `q` lies on the closed segment `a b`, all three collinear.
fn between(a: [f64; 2], b: [f64; 2], q: [f64; 2]) -> bool {
    exact::orient2(a, b, q) == 0
        && q[0] >= a[0].min(b[0])
        && q[0] <= a[0].max(b[0])
        && q[1] >= a[1].min(b[1])
        && q[1] <= a[1].max(b[1])
}

/// The hull vertices of a 2D set by brute force (distinct locations, no order).
fn extremes2(p: &[[f64; 2]]) -> BTreeSet<[u64; 2]> {
    let d = distinct(p);
    let n = d.len();
    let mut o = BTreeMap::new();
    let mut orient = |i: usize, j: usize, k: usize| -> i32 {
        *o.entry((i, j, k))
            .or_insert_with(|| exact::orient2(d[i], d[j], d[k]))
    };
    let mut out = BTreeSet::new();
    'q: for q in 0..n {
        let others: Vec<usize> = (0..n).filter(|&i| i != q).collect();
        for (x, &s) in others.iter().enumerate() {
            for (y, &t) in others.iter().enumerate().skip(x) {
                for &r in &others[y..] {
                    if orient(s, t, r) != 0 {
                        let signs = [orient(s, t, q), orient(t, r, q), orient(r, s, q)];
                        if !(signs.contains(&1) && signs.contains(&-1)) {
                            continue 'q;
                        }
                    } else if between(d[s], d[t], d[q])
                        || between(d[t], d[r], d[q])
                        || between(d[s], d[r], d[q])
                    {
                        continue 'q;
                    }
                }
            }
        }
        out.insert(key(d[q]));
    }
    out
}

/// Checks a 2D hull (input indices) against the oracle: the brute-force vertex set
/// `want` ([`extremes2`] of `p`), strictly counter-clockwise, starting at the
/// lowest-then-leftmost location.
fn check_ring(p: &[[f64; 2]], want: &BTreeSet<[u64; 2]>, ring: &[usize], what: &str) {
    let v: Vec<[f64; 2]> = ring.iter().map(|&i| p[i]).collect();
    let got: BTreeSet<[u64; 2]> = v.iter().map(|&q| key(q)).collect();
    assert_eq!(got.len(), v.len(), "{what}: repeated location in {v:?}");
    assert_eq!(&got, want, "{what}: vertices {v:?} of {p:?}");
    let lowest = p
        .iter()
        .copied()
        .min_by(|a, b| a[1].total_cmp(&b[1]).then(a[0].total_cmp(&b[0])))
        .unwrap();
    assert_eq!(key(v[0]), key(lowest), "{what}: start of {v:?}");
    let m = v.len();
    if m >= 3 {
        for i in 0..m {
            assert_eq!(
                exact::orient2(v[i], v[(i + 1) % m], v[(i + 2) % m]),
                1,
                "{what}: corner {i} of {v:?}"
            );
        }
    }
}

/// Runs every 2D algorithm on `f64` points and checks each against the oracle (which
/// also makes them agree).
fn check_2d_f64(p: &[DVec2], what: &str) {
    let a: Vec<[f64; 2]> = p.iter().map(|q| q.to_array()).collect();
    let want = extremes2(&a);
    for alg in Algorithm2d::ALL {
        let ring = alg
            .run_f64(p)
            .unwrap_or_else(|e| panic!("{what}: {}: {e}", alg.name()));
        check_ring(&a, &want, &ring, &format!("{what}: {}", alg.name()));
    }
}

/// As [`check_2d_f64`], through the build's own entry points.
fn check_2d_real(p: &[Vector2], what: &str) {
    let a: Vec<[f64; 2]> = p.iter().map(|q| [q.x as f64, q.y as f64]).collect();
    let want = extremes2(&a);
    for alg in Algorithm2d::ALL {
        let ring = alg
            .run(p)
            .unwrap_or_else(|e| panic!("{what}: {}: {e}", alg.name()));
        check_ring(&a, &want, &ring, &format!("{what}: {}", alg.name()));
    }
}

/// The true dimension of a 3D set and, for a plane, an axis it does not project flat
/// along.
fn dimension3(d: &[[f64; 3]]) -> (Dimension, usize) {
    if d.len() == 1 {
        return (Dimension::Point, 0);
    }
    let proj = |k: usize, q: [f64; 3]| [q[(k + 1) % 3], q[(k + 2) % 3]];
    let turn = |a: [f64; 3], b: [f64; 3], c: [f64; 3]| {
        (0..3).find(|&k| exact::orient2(proj(k, a), proj(k, b), proj(k, c)) != 0)
    };
    let Some((c, k)) = (2..d.len()).find_map(|i| turn(d[0], d[1], d[i]).map(|k| (i, k))) else {
        return (Dimension::Segment, 0);
    };
    if d.iter().all(|&q| exact::orient3(d[0], d[1], d[c], q) == 0) {
        (Dimension::Polygon, k)
    } else {
        (Dimension::Polyhedron, 0)
    }
}

/// The brute-force facets of a full-dimensional set: sorted vertex keys of each.
fn facets3(d: &[[f64; 3]]) -> BTreeSet<Vec<[u64; 3]>> {
    let n = d.len();
    let mut out = BTreeSet::new();
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                let s: Vec<i32> = d
                    .iter()
                    .map(|&q| exact::orient3(d[i], d[j], d[k], q))
                    .collect();
                if !(s.contains(&1) ^ s.contains(&-1)) {
                    continue; // not supporting, or a collinear triple
                }
                let on: Vec<[f64; 3]> = (0..n).filter(|&m| s[m] == 0).map(|m| d[m]).collect();
                let (_, ax) = dimension3(&on);
                let flat: Vec<[f64; 2]> = on
                    .iter()
                    .map(|q| [q[(ax + 1) % 3], q[(ax + 2) % 3]])
                    .collect();
                let ext = extremes2(&flat);
                let mut face: Vec<[u64; 3]> = on
                    .iter()
                    .filter(|q| ext.contains(&key([q[(ax + 1) % 3], q[(ax + 2) % 3]])))
                    .map(|&q| key(q))
                    .collect();
                face.sort_unstable();
                out.insert(face);
            }
        }
    }
    out
}

/// Checks a 3D hull of `p` against the oracle: dimension, vertex set (and facets for a
/// small solid), every input point inside or on every face, planar and strictly convex
/// faces, and a canonical polygon normal about which the polygon turns
/// counter-clockwise. `brute` bounds the set size for the O(n⁴) facet comparison.
fn check_3d(p: &[[f64; 3]], h: &ConvexHull, brute: usize, what: &str) {
    let d = distinct(p);
    let (dim, _) = dimension3(&d);
    assert_eq!(h.dimension(), dim, "{what}: dimension of {p:?}");
    let v: Vec<[f64; 3]> = h.source_indices().iter().map(|&s| p[s]).collect();
    for (x, s) in h.vertices().iter().zip(h.source_indices()) {
        assert_eq!(
            *x,
            Vector::new(p[*s][0] as Real, p[*s][1] as Real, p[*s][2] as Real)
        );
    }
    let faces: Vec<Vec<[f64; 3]>> = h
        .faces()
        .map(|f| f.iter().map(|&i| v[i as usize]).collect())
        .collect();
    match dim {
        Dimension::Point => assert_eq!(v.len(), 1, "{what}"),
        Dimension::Segment => {
            let lex = |a: &[f64; 3], b: &[f64; 3]| {
                a[0].total_cmp(&b[0])
                    .then(a[1].total_cmp(&b[1]))
                    .then(a[2].total_cmp(&b[2]))
            };
            let (lo, hi) = (
                d.iter().min_by(|a, b| lex(a, b)).unwrap(),
                d.iter().max_by(|a, b| lex(a, b)).unwrap(),
            );
            assert_eq!(
                v.iter().map(|&q| key(q)).collect::<Vec<_>>(),
                vec![key(*lo), key(*hi)],
                "{what}: ends of {p:?}"
            );
        }
        Dimension::Polygon => {
            assert_eq!(faces.len(), 1, "{what}");
            let (_, ax) = dimension3(&d);
            let flat: Vec<[f64; 2]> = d
                .iter()
                .map(|q| [q[(ax + 1) % 3], q[(ax + 2) % 3]])
                .collect();
            let ext = extremes2(&flat);
            let got: BTreeSet<[u64; 2]> = v
                .iter()
                .map(|q| key([q[(ax + 1) % 3], q[(ax + 2) % 3]]))
                .collect();
            assert_eq!(got, ext, "{what}: polygon of {p:?}");
            // The normal: unit, its largest component positive, and the polygon
            // counter-clockwise about that axis.
            let n = h.normal();
            assert!(
                ((n.length() as f64) - 1.0).abs() < 1e-5,
                "{what}: normal {n:?} of {p:?}"
            );
            let k = n.abs().max_position();
            assert!(n[k] > 0.0, "{what}: normal {n:?} is not canonical");
            assert!(
                (0..3).all(|i| n[i] != 0.0 || n[i].is_sign_positive()),
                "{what}: normal {n:?} has a −0.0"
            );
            let f = &faces[0];
            let m = f.len();
            let pr = |q: [f64; 3]| [q[(k + 1) % 3], q[(k + 2) % 3]];
            for i in 0..m {
                assert_eq!(
                    exact::orient2(pr(f[i]), pr(f[(i + 1) % m]), pr(f[(i + 2) % m])),
                    1,
                    "{what}: polygon {f:?} is not counter-clockwise about {n:?}"
                );
            }
        }
        Dimension::Polyhedron => {
            for (fi, f) in faces.iter().enumerate() {
                for &q in &f[3..] {
                    assert_eq!(exact::orient3(f[0], f[1], f[2], q), 0, "{what}: face {fi}");
                }
                let m = f.len();
                for &q in &d {
                    assert!(
                        exact::orient3(f[0], f[1], f[2], q) <= 0,
                        "{what}: {q:?} outside face {fi} of the hull of {p:?}"
                    );
                }
                // Strictly convex: every corner turns the same way as the face, seen
                // from a vertex below it.
                let below = *v
                    .iter()
                    .find(|&&q| exact::orient3(f[0], f[1], f[2], q) != 0)
                    .unwrap();
                for i in 0..m {
                    assert_eq!(
                        exact::orient3(f[i], f[(i + 1) % m], f[(i + 2) % m], below),
                        -1,
                        "{what}: corner {i} of face {fi}"
                    );
                }
            }
            if d.len() <= brute {
                let got: BTreeSet<Vec<[u64; 3]>> = faces
                    .iter()
                    .map(|f| {
                        let mut k: Vec<[u64; 3]> = f.iter().map(|&q| key(q)).collect();
                        k.sort_unstable();
                        k
                    })
                    .collect();
                assert_eq!(got, facets3(&d), "{what}: facets of {p:?}");
            }
        }
    }
}

/// Builds the hull through the `f64` entry point, validates it and checks it against the
/// oracle.
fn check_3d_f64(p: &[DVec3], brute: usize, what: &str) -> ConvexHull {
    let h = quickhull3d_f64(p).unwrap_or_else(|e| panic!("{what}: {e} for {p:?}"));
    let a: Vec<[f64; 3]> = p.iter().map(|q| q.to_array()).collect();
    h.validate_f64(p)
        .unwrap_or_else(|e| panic!("{what}: {e} for {p:?}"));
    check_3d(&a, &h, brute, what);
    h
}

/// As [`check_3d_f64`], through the build's own entry point (and the shape built on it).
fn check_3d_real(p: &[Vector], brute: usize, what: &str) -> ConvexHull {
    let h = quickhull3d(p).unwrap_or_else(|e| panic!("{what}: {e} for {p:?}"));
    h.validate(p)
        .unwrap_or_else(|e| panic!("{what}: {e} for {p:?}"));
    let a: Vec<[f64; 3]> = p
        .iter()
        .map(|q| [q.x as f64, q.y as f64, q.z as f64])
        .collect();
    check_3d(&a, &h, brute, what);
    ConvexPolyhedron::new(p.to_vec()).unwrap_or_else(|e| panic!("{what}: shape: {e}"));
    h
}

#[test]
fn the_oracle_agrees_with_floating_point_where_that_is_exact() {
    // Small integers: every product is exact in f64, so a plain evaluation is exact.
    let mut rng = Rng::new(0x0_4ac1e);
    let mut nonzero = 0;
    for _ in 0..300 {
        let mut q = || (rng.below(7) as f64 - 3.0) * 0.5;
        let (a, b, c, d) = (
            [q(), q(), q()],
            [q(), q(), q()],
            [q(), q(), q()],
            [q(), q(), q()],
        );
        let sub = |x: [f64; 3], y: [f64; 3]| DVec3::from(x) - DVec3::from(y);
        let plain3 = sub(b, a).cross(sub(c, a)).dot(sub(d, a));
        assert_eq!(
            exact::orient3(a, b, c, d),
            plain3.signum() as i32 * (plain3 != 0.0) as i32
        );
        let plain2 = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        let two = |x: [f64; 3]| [x[0], x[1]];
        assert_eq!(
            exact::orient2(two(a), two(b), two(c)),
            plain2.signum() as i32 * (plain2 != 0.0) as i32
        );
        nonzero += (plain3 != 0.0) as usize;
    }
    assert!(nonzero > 100, "{nonzero}");
    // And at the ends of the range, where it must not underflow: a triangle of height
    // 2⁻¹⁰⁷⁴ under a base of length 2·10⁶⁰.
    let (a, b) = ([-1e60, 0.0], [1e60, 0.0]);
    assert_eq!(exact::orient2(a, b, [0.0, 5e-324]), 1);
    assert_eq!(exact::orient2(a, b, [0.0, -5e-324]), -1);
    assert_eq!(exact::orient2(a, b, [3e-300, 0.0]), 0);
}

/// Fuzz finding `graham-wide-range-subnormal` (now `fuzz/seeds/hulls/`): beside
/// coordinates of 1.5e4, two points 1e-262 and 2.7e-238 from the origin. Whether the
/// lower one is a hull vertex is decided by an orientation whose exact value is about
/// 1e-496: its products underflowed in the floating-point predicates (the set was not
/// rescaled, as its largest magnitude is above 1), so Graham's scan kept a different
/// point than monotone chain.
#[test]
fn graham_agrees_with_monotone_chain_beside_values_near_1e_minus_262() {
    let p = [
        DVec2::new(-1.0137433199815556e-262, -1.0137433199815556e-262),
        DVec2::new(-1.0137433199815556e-262, -2.739022736243076e-238),
        DVec2::new(3.9932569617731846e-308, -15163.5),
        DVec2::new(-15822.5, 228.5),
    ];
    check_2d_f64(&p, "fuzz finding");
}

/// Fuzz finding `quickhull-polygon-normal-not-canonical` (now `fuzz/seeds/hulls/`):
/// three points whose plane normal is (−27499, 189000627, −189000630) up to scale. Its
/// two largest components differ by 1.6e-8 relative: the builder chose the sign (z
/// positive) on the `f64` vector, but the `f32` normal it returned has |y| = |z|, and
/// the validator's "largest component positive" then read y, which was negative.
#[test]
fn polygon_normal_is_canonical_when_two_components_nearly_tie() {
    let p = [
        Vector::new(3.5, 13749.5, 13749.5),
        Vector::new(13749.5, 13751.5, 13749.5),
        Vector::new(5.0, 0.0, 0.0),
    ];
    let h = check_3d_real(&p, 0, "fuzz finding");
    assert_eq!(h.dimension(), Dimension::Polygon);
    // Every rotation and mirror of the axes, and both orders of the points.
    for perm in [
        [0, 1, 2],
        [1, 2, 0],
        [2, 0, 1],
        [0, 2, 1],
        [1, 0, 2],
        [2, 1, 0],
    ] {
        for sign in [1.0, -1.0] {
            let mut q: Vec<Vector> = p
                .iter()
                .map(|v| Vector::new(v[perm[0]], v[perm[1]], sign * v[perm[2]]))
                .collect();
            check_3d_real(&q, 0, &format!("{perm:?} {sign}"));
            q.reverse();
            check_3d_real(&q, 0, &format!("{perm:?} {sign} reversed"));
        }
    }
    // The same near tie at `f64` precision: normals (0, −z, y) with y one unit in the
    // last place above z. Just below 2 that unit is 2⁻⁵³ of z, less than the relative
    // spacing of doubles near 0.707, so normalising can round them to equal magnitudes.
    let mut ties = 0;
    for k in 0..64 {
        let z = 2.0 - (k + 2) as f64 * f64::EPSILON;
        let y = f64::from_bits(z.to_bits() + 1);
        let p = [DVec3::ZERO, DVec3::X, DVec3::new(0.0, y, z)];
        check_3d_f64(&p, 0, &format!("ulp tie {k}"));
        let p = [DVec3::ZERO, DVec3::new(0.0, y, z), DVec3::X];
        check_3d_f64(&p, 0, &format!("ulp tie {k}, reversed"));
        let n = DVec3::new(0.0, -z, y).normalize();
        ties += (n.y.abs() == n.z.abs()) as usize;
    }
    assert!(
        ties > 10,
        "only {ties} of the f64 cases are ties after normalising"
    );
}

/// Issue 17, class 3: nearly collinear points with a 1e-310 or 5e-324 coordinate (a
/// triangle of height 1e-310 is a polygon, not a segment, and not a solid without faces),
/// and sets mixing 1e60 with 1e-300.
#[test]
fn nearly_collinear_and_wide_range_sets_have_their_exact_hull() {
    let v = DVec3::new;
    let sets: Vec<(&str, Vec<DVec3>)> = vec![
        (
            "1e-310 off a line",
            vec![
                v(0.0, 0.0, 0.0),
                v(1.0, 1.0, 1.0),
                v(2.0, 2.0, 2.0),
                v(3.0, 3.0, 3.0),
                v(0.0, 1e-310, 0.0),
            ],
        ),
        (
            "5e-324 off a line",
            vec![
                v(0.0, 0.0, 0.0),
                v(1.0, 2.0, 3.0),
                v(2.0, 4.0, 6.0),
                v(1.0, 2.0, 3.0),
                v(5e-324, 0.0, 0.0),
            ],
        ),
        (
            "tiny tetrahedron corner",
            vec![
                v(0.0, 0.0, 0.0),
                v(1.0, 0.0, 0.0),
                v(0.0, 1.0, 0.0),
                v(5e-324, 5e-324, 1e-310),
            ],
        ),
        (
            "1e60 beside 1e-300",
            vec![
                v(1e60, 0.0, 0.0),
                v(-1e60, 0.0, 0.0),
                v(0.0, 1e60, 0.0),
                v(0.0, 0.0, 1e60),
                v(1e-300, -1e-300, -1e-300),
                v(-1e-300, 1e-300, -1e-300),
                v(0.0, -1e-300, 0.0),
                v(1e-300, 0.0, -1e-300),
            ],
        ),
        (
            "1e60 sliver",
            vec![
                v(-1e60, -1e60, 0.0),
                v(1e60, 1e60, 0.0),
                v(0.0, 0.0, 1e-300),
                v(0.0, 0.0, -1e-300),
                v(1e-300, 0.0, 0.0),
                v(0.0, 1e-300, 0.0),
            ],
        ),
    ];
    for (what, p) in &sets {
        check_3d_f64(p, 12, what);
        // The same points (and their 2D shadows) through every entry point that takes
        // them exactly.
        let flat: Vec<DVec2> = p.iter().map(|q| q.truncate()).collect();
        check_2d_f64(&flat, what);
        let flat_yz: Vec<DVec2> = p.iter().map(|q| DVec2::new(q.y, q.z)).collect();
        check_2d_f64(&flat_yz, what);
    }
}

/// A coordinate of a hostile set: zeros of both signs, the smallest subnormals, values
/// across the whole range up to `max`, small integers (ties and collinear points).
fn wide(rng: &mut Rng, max: f64, tiny: f64) -> f64 {
    let s = if rng.below(2) == 0 { 1.0 } else { -1.0 };
    let (lo, hi) = (tiny.log10(), max.log10());
    s * match rng.below(9) {
        0 => 0.0,
        1 => tiny * (1 + rng.below(64)) as f64,
        2 => 10f64.powf(rng.range(lo, lo + 20.0)),
        3 => 10f64.powf(rng.range(lo, hi)),
        4 => max * rng.range(0.5, 1.0),
        5 => 10f64.powf(rng.range(hi - 10.0, hi)),
        _ => rng.below(5) as f64,
    }
}

/// A hostile point set: independent wide coordinates, or points on a line or a plane
/// through small integers with some coordinates nudged by wide-range values.
fn hostile_set<const N: usize>(rng: &mut Rng, n: usize, max: f64, tiny: f64) -> Vec<[f64; N]> {
    let kind = rng.below(3);
    let mut base: Vec<[f64; N]> = (0..2)
        .map(|_| [0.0; N].map(|_| rng.below(7) as f64 - 3.0))
        .collect();
    if rng.below(2) == 0 {
        // Through the origin: zeros for the nudges to land on.
        base[0] = [0.0; N];
    }
    let dir2: [f64; N] = [0.0; N].map(|_| rng.below(5) as f64 - 2.0);
    (0..n)
        .map(|_| {
            let mut q = [0.0; N];
            match kind {
                0 => {
                    for c in &mut q {
                        *c = wide(rng, max, tiny);
                    }
                }
                _ => {
                    // On the line base[0] + t (base[1] − base[0]) (plus t' dir2 for a
                    // plane), then nudged.
                    let t = rng.below(9) as f64 - 4.0;
                    let t2 = if kind == 2 {
                        rng.below(5) as f64 - 2.0
                    } else {
                        0.0
                    };
                    for k in 0..N {
                        q[k] = base[0][k] + t * (base[1][k] - base[0][k]) + t2 * dir2[k];
                    }
                    if rng.below(3) == 0 {
                        let k = rng.below(N);
                        q[k] += wide(rng, 1.0, tiny);
                    }
                }
            }
            q
        })
        .collect()
}

/// Seeded random hostile sets, through the `f64` entry points (the full `f64` range) and
/// the build's own (its own range: `f32` subnormals to 1e8, or `f64` to 1e60), each
/// answer checked against the oracle. Counts the dimensions seen, so that degenerate and
/// solid hulls are both exercised.
#[test]
fn random_wide_range_sets_match_the_oracle_in_both_precisions() {
    let mut rng = Rng::new(0x17_0003);
    let mut dims = [[0usize; 4]; 2];
    let tiny_real = Real::from_bits(1) as f64;
    for case in 0..160 {
        let n = 3 + rng.below(7);
        // f64 entry points.
        let p: Vec<DVec3> = hostile_set::<3>(&mut rng, n, MAX_MAGNITUDE_F64, 5e-324)
            .into_iter()
            .map(DVec3::from_array)
            .collect();
        let h = check_3d_f64(&p, 9, &format!("f64 case {case}"));
        dims[0][h.dimension() as usize] += 1;
        let p2: Vec<DVec2> = hostile_set::<2>(&mut rng, n + 2, MAX_MAGNITUDE_F64, 5e-324)
            .into_iter()
            .map(DVec2::from_array)
            .collect();
        check_2d_f64(&p2, &format!("f64 2D case {case}"));
        // The build's own precision.
        let max = MAX_MAGNITUDE as f64;
        let p: Vec<Vector> = hostile_set::<3>(&mut rng, n, max, tiny_real)
            .into_iter()
            .map(|q| Vector::new(q[0] as Real, q[1] as Real, q[2] as Real))
            .collect();
        let h = check_3d_real(&p, 9, &format!("Real case {case}"));
        dims[1][h.dimension() as usize] += 1;
        let p2: Vec<Vector2> = hostile_set::<2>(&mut rng, n + 2, max, tiny_real)
            .into_iter()
            .map(|q| Vector2::new(q[0] as Real, q[1] as Real))
            .collect();
        check_2d_real(&p2, &format!("Real 2D case {case}"));
    }
    for d in dims {
        assert!(
            d[2] >= 10 && d[3] >= 40 && d[1] >= 5,
            "dimensions seen: {dims:?}"
        );
    }
}
