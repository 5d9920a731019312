//! The GJK simplex and its sub-algorithm: the point of a simplex closest to the origin.
//!
//! # The sub-algorithm (signed volumes)
//!
//! Given a simplex `W = {w_0, …, w_m}` (a point, segment, triangle or tetrahedron of
//! the Minkowski difference), GJK needs `v = argmin_{x ∈ conv W} ‖x‖` together with its
//! barycentric coordinates `λ` (`v = Σ λ_i w_i`, `λ_i ≥ 0`, `Σ λ_i = 1`) and the
//! smallest subset of `W` that still carries `v`.
//!
//! We follow the *signed volumes* method of Montanari, Petrinic and Barbieri,
//! "Improving the GJK algorithm for faster and more reliable distance queries between
//! convex objects", ACM TOG 36(3), 2017. Johnson's original sub-algorithm solves a
//! linear system per sub-simplex and is notoriously fragile when a simplex is nearly
//! degenerate; the signed-volumes method instead
//!
//! 1. projects the origin onto the affine hull of the simplex (`p`),
//! 2. writes the barycentric coordinates of `p` as ratios of signed volumes
//!    `λ_i = C_i / μ`, where `μ` is the signed volume (length, area) of the whole
//!    simplex and `C_i` that of the simplex with `w_i` replaced by `p` — for a triangle
//!    the areas are measured in the coordinate plane onto which the triangle's
//!    projection is largest (the axis of largest normal component is dropped), which
//!    keeps the ratios well conditioned,
//! 3. accepts the whole simplex when every `C_i` has the sign of `μ` (`p` is inside),
//!    and otherwise recurses into each facet opposite a vertex `i` whose `C_i`
//!    disagrees, keeping the facet result closest to the origin.
//!
//! Only sign comparisons decide the region, so a nearly flat simplex cannot make a
//! division blow up: a simplex whose measure is below a relative threshold is treated as
//! degenerate and all its facets are tried. The segment case uses the plain projection
//! `λ = −w_0·t / t·t`, which is already well conditioned.

use crate::math::{max_abs_axis, Real, Vector, EPSILON};
use crate::support::SupportPoint;

/// Relative measure below which a triangle or tetrahedron is treated as degenerate
/// (flat): its facets are tried instead.
const DEGENERATE: Real = 64.0 * EPSILON;

/// A simplex of the Minkowski difference with the support points' sources and the
/// directions that produced them (kept for warm starting).
#[derive(Debug, Clone, Copy, Default)]
pub struct Simplex {
    pub(crate) verts: [SupportPoint; 4],
    pub(crate) dirs: [Vector; 4],
    /// The support-search hints (see `SupportMap::local_support_hinted`) each vertex was
    /// found with, so that a warm start can rebuild each vertex from its own.
    pub(crate) hints: [[u32; 2]; 4],
    pub(crate) bary: [Real; 4],
    pub(crate) len: usize,
}

/// The result of projecting the origin onto a sub-simplex.
#[derive(Clone, Copy)]
struct Projection {
    v: Vector,
    vv: Real,
    /// Barycentric coordinate per vertex index of the full simplex (0 where unused).
    bary: [Real; 4],
    /// Bit `i` set when vertex `i` carries `v`.
    mask: u8,
}

impl Projection {
    fn vertex(w: &[Vector; 4], i: usize) -> Self {
        let mut bary = [0.0; 4];
        bary[i] = 1.0;
        Projection {
            v: w[i],
            vv: w[i].length_squared(),
            bary,
            mask: 1 << i,
        }
    }

    fn closer(self, other: Option<Projection>) -> Projection {
        match other {
            Some(o) if o.vv <= self.vv => o,
            _ => self,
        }
    }
}

#[inline]
fn same_sign(a: Real, b: Real) -> bool {
    (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0)
}

/// Closest point of the segment `w_i w_j` to the origin.
fn segment(w: &[Vector; 4], i: usize, j: usize) -> Projection {
    let (a, b) = (w[i], w[j]);
    let t = b - a;
    let tt = t.length_squared();
    let along = -a.dot(t); // = λ_j · tt
    if along <= 0.0 || tt <= 0.0 {
        return Projection::vertex(w, i);
    }
    if along >= tt {
        return Projection::vertex(w, j);
    }
    let lj = along / tt;
    let v = a + t * lj;
    let mut bary = [0.0; 4];
    bary[i] = 1.0 - lj;
    bary[j] = lj;
    Projection {
        v,
        vv: v.length_squared(),
        bary,
        mask: (1 << i) | (1 << j),
    }
}

/// The barycentric coordinates of `p`, a point in the plane of the triangle `t`, summing
/// to 1 and reproducing `p` to a few `ε` times the coordinates' size (`None` for a
/// triangle without area).
///
/// The ratios of signed areas `C_i / μ` do not: in a long thin triangle (an edge 1900
/// long and one 0.018 long, from a segment core against a short hull) two of the
/// sub-areas span two long edges, and rounding their differences errs by `ε` times
/// their product, 1% of the areas themselves. The coordinates then summed to 0.998,
/// which moved the witness `Σ λ_i b_i` by 0.2% of the 1900-long segment, 2.08 off
/// `Σ λ_i a_i − v`. Here `p − o = s (x − o) + t (y − o)` is solved at the corner `o`
/// opposite the longest edge (whose angle is at least 60°, so the solve is well
/// conditioned), and `o`'s coordinate is `1 − s − t`: an error in `s` or `t` moves
/// `Σ λ_i w_i` only by `ε |p − o| / sin θ`, within rounding of the coordinates.
fn plane_coordinates(t: [Vector; 3], p: Vector) -> Option<[Real; 3]> {
    // Squared length of the edge opposite each corner.
    let opposite = [
        (t[2] - t[1]).length_squared(),
        (t[2] - t[0]).length_squared(),
        (t[1] - t[0]).length_squared(),
    ];
    let mut k = 0;
    for m in 1..3 {
        if opposite[m] > opposite[k] {
            k = m;
        }
    }
    let (x, y) = ((k + 1) % 3, (k + 2) % 3);
    let (e1, e2, d) = (t[x] - t[k], t[y] - t[k], p - t[k]);
    let n = e1.cross(e2);
    let nn = n.length_squared();
    if !(nn > 0.0 && nn.is_finite()) {
        return None;
    }
    let s = d.cross(e2).dot(n) / nn;
    let u = e1.cross(d).dot(n) / nn;
    let mut l = [0.0; 3];
    l[k] = 1.0 - s - u;
    l[x] = s;
    l[y] = u;
    Some(l)
}

/// Closest point of the triangle `w_i w_j w_k` to the origin.
fn triangle(w: &[Vector; 4], i: usize, j: usize, k: usize) -> Projection {
    let (a, b, c) = (w[i], w[j], w[k]);
    let (ab, ac, bc) = (b - a, c - a, c - b);
    let n = ab.cross(ac);
    let nn = n.length_squared();
    let e = ab
        .length_squared()
        .max(ac.length_squared())
        .max(bc.length_squared());
    if nn <= DEGENERATE * DEGENERATE * e * e {
        // Collinear (or coincident) corners: the answer lies on an edge.
        return segment(w, i, j)
            .closer(Some(segment(w, j, k)))
            .closer(Some(segment(w, i, k)));
    }
    // Projection of the origin onto the triangle's plane.
    let p = n * (a.dot(n) / nn);
    // Signed areas in the coordinate plane where the triangle's shadow is largest.
    // With (u, v) the two remaining axes in cyclic order, the shadow of abc has signed
    // area n[axis], and replacing a corner by p gives that corner's sub-area.
    let axis = max_abs_axis(n);
    let (u, vv) = ((axis + 1) % 3, (axis + 2) % 3);
    let area = |p0: Vector, p1: Vector, p2: Vector| {
        (p1[u] - p0[u]) * (p2[vv] - p0[vv]) - (p1[vv] - p0[vv]) * (p2[u] - p0[u])
    };
    let mu = n[axis];
    let cs = [area(p, b, c), area(a, p, c), area(a, b, p)];
    if cs.iter().all(|&ci| same_sign(mu, ci)) {
        // The signed areas decide the region (only their signs), but their ratios are
        // not the coordinates to keep: see `plane_coordinates`.
        let l = plane_coordinates([a, b, c], p).unwrap_or(cs.map(|ci| ci / mu));
        let mut bary = [0.0; 4];
        bary[i] = l[0];
        bary[j] = l[1];
        bary[k] = l[2];
        return Projection {
            v: p,
            vv: p.length_squared(),
            bary,
            mask: (1 << i) | (1 << j) | (1 << k),
        };
    }
    // The closest point lies on an edge opposite a corner whose coordinate is <= 0.
    let edges = [(j, k), (i, k), (i, j)];
    let mut best: Option<Projection> = None;
    for (m, &(p0, p1)) in edges.iter().enumerate() {
        if !same_sign(mu, cs[m]) {
            let s = segment(w, p0, p1);
            best = Some(s.closer(best));
        }
    }
    best.unwrap_or_else(|| segment(w, i, j))
}

/// Signed volume (×6) of the tetrahedron `p0 p1 p2 p3`.
#[inline]
fn volume(p0: Vector, p1: Vector, p2: Vector, p3: Vector) -> Real {
    (p1 - p0).dot((p2 - p0).cross(p3 - p0))
}

/// Whether every signed volume `cs[i]` (the tetrahedron `w` with vertex `i` replaced by
/// the origin, as [`volume`] computes it) is larger than its rounding error, so that its
/// sign is exact.
///
/// Each volume is a triple product of differences `u = p_1 − p_0`, `v`, `w`. Rounding
/// the differences, the six products and five sums gives an error of at most about
/// `8 ε Σ_σ |u_σ1 v_σ2 w_σ3|` (the permanent of the absolute values; Higham, "Accuracy
/// and Stability of Numerical Algorithms", §3.1, for sums of products); twice that is
/// the bound used here.
fn signs_certain(w: &[Vector; 4], cs: &[Real; 4]) -> bool {
    let o = Vector::ZERO;
    let [a, b, c, d] = *w;
    let sets = [[o, b, c, d], [a, o, c, d], [a, b, o, d], [a, b, c, o]];
    sets.iter().zip(cs).all(|(p, &ci)| {
        let u = (p[1] - p[0]).abs();
        let v = (p[2] - p[0]).abs();
        let x = (p[3] - p[0]).abs();
        let permanent = u.dot(Vector::new(
            v.y * x.z + v.z * x.y,
            v.z * x.x + v.x * x.z,
            v.x * x.y + v.y * x.x,
        ));
        ci.abs() > 16.0 * EPSILON * permanent
    })
}

/// Closest point of the tetrahedron `w_0 w_1 w_2 w_3` to the origin.
fn tetrahedron(w: &[Vector; 4]) -> Projection {
    let [a, b, c, d] = *w;
    let o = Vector::ZERO;
    let mu = volume(a, b, c, d);
    let e = [b - a, c - a, d - a, c - b, d - b, d - c]
        .iter()
        .map(|x| x.length_squared())
        .fold(0.0, Real::max)
        .sqrt();
    let faces = [(1, 2, 3), (0, 2, 3), (0, 1, 3), (0, 1, 2)];
    // Barycentric coordinates of the origin as ratios of signed volumes.
    let cs = [
        volume(o, b, c, d),
        volume(a, o, c, d),
        volume(a, b, o, d),
        volume(a, b, c, o),
    ];
    if mu.abs() <= DEGENERATE * e * e * e {
        // Nearly flat: the closest point is on one of its faces, unless the four signed
        // volumes agree beyond their rounding (a long thin tetrahedron can be "flat" by
        // this measure and still hold the origin well inside).
        let sum = cs[0] + cs[1] + cs[2] + cs[3];
        if cs.iter().all(|&ci| same_sign(sum, ci)) && signs_certain(w, &cs) {
            return Projection {
                v: Vector::ZERO,
                vv: 0.0,
                bary: cs.map(|ci| ci / sum),
                mask: 0b1111,
            };
        }
        let mut best = triangle(w, 0, 1, 2);
        for &(i, j, k) in &faces[..3] {
            best = best.closer(Some(triangle(w, i, j, k)));
        }
        return best;
    }
    if cs.iter().all(|&ci| same_sign(mu, ci)) {
        let bary = [cs[0] / mu, cs[1] / mu, cs[2] / mu, cs[3] / mu];
        // A thin tetrahedron's volume ratios are inaccurate: if they do not reproduce the
        // origin, the origin lies on a face within rounding, and that face's (well
        // conditioned) projection is the better answer.
        let residual = a * bary[0] + b * bary[1] + c * bary[2] + d * bary[3];
        if residual.length() <= 64.0 * EPSILON * e {
            return Projection {
                v: Vector::ZERO,
                vv: 0.0,
                bary,
                mask: 0b1111,
            };
        }
        // Unless the signs themselves are certain: then the origin is inside, however
        // inaccurate the ratios (a tetrahedron 2000 long and 10 wide, the origin 0.8
        // from its nearest face, gave a residual of 0.5 in f32).
        if signs_certain(w, &cs) {
            return Projection {
                v: Vector::ZERO,
                vv: 0.0,
                bary,
                mask: 0b1111,
            };
        }
        let mut best = triangle(w, 0, 1, 2);
        for &(i, j, k) in &faces[..3] {
            best = best.closer(Some(triangle(w, i, j, k)));
        }
        return best;
    }
    let mut best: Option<Projection> = None;
    for (m, &(i, j, k)) in faces.iter().enumerate() {
        if !same_sign(mu, cs[m]) {
            best = Some(triangle(w, i, j, k).closer(best));
        }
    }
    best.unwrap_or_else(|| triangle(w, 0, 1, 2))
}

impl Simplex {
    /// An empty simplex.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of vertices (0 to 4).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the simplex has no vertex.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The vertices, with their source points.
    pub fn vertices(&self) -> &[SupportPoint] {
        &self.verts[..self.len]
    }

    /// The barycentric coordinates of the closest point, one per vertex.
    pub fn barycentric(&self) -> &[Real] {
        &self.bary[..self.len]
    }

    /// Adds a vertex found along `dir`, remembering the support-search hints that found
    /// it.
    pub(crate) fn push_hinted(&mut self, p: SupportPoint, dir: Vector, hints: [u32; 2]) {
        debug_assert!(self.len < 4);
        self.verts[self.len] = p;
        self.dirs[self.len] = dir;
        self.hints[self.len] = hints;
        self.len += 1;
    }

    /// Whether `w` is (numerically) one of the vertices already.
    pub(crate) fn contains(&self, w: Vector, tol2: Real) -> bool {
        self.verts[..self.len]
            .iter()
            .any(|p| (p.w - w).length_squared() <= tol2)
    }

    /// Replaces the simplex by the smallest sub-simplex carrying the point of its hull
    /// closest to the origin, stores that point's barycentric coordinates, and returns
    /// the point and its squared norm. A tetrahedron is kept whole only when it encloses
    /// the origin (the returned point is then zero).
    pub(crate) fn reduce(&mut self) -> (Vector, Real) {
        let mut w = [Vector::ZERO; 4];
        for (i, p) in self.verts[..self.len].iter().enumerate() {
            w[i] = p.w;
        }
        let proj = match self.len {
            1 => Projection::vertex(&w, 0),
            2 => segment(&w, 0, 1),
            3 => triangle(&w, 0, 1, 2),
            4 => tetrahedron(&w),
            _ => {
                return (Vector::ZERO, Real::INFINITY);
            }
        };
        // Compact the kept vertices to the front, preserving order.
        let mut n = 0;
        for i in 0..self.len {
            if proj.mask & (1 << i) != 0 {
                self.verts[n] = self.verts[i];
                self.dirs[n] = self.dirs[i];
                self.hints[n] = self.hints[i];
                self.bary[n] = proj.bary[i];
                n += 1;
            }
        }
        self.len = n;
        (proj.v, proj.vv)
    }

    /// The closest point's sources: `(Σ λ_i a_i, Σ λ_i b_i)`.
    pub(crate) fn witnesses(&self) -> (Vector, Vector) {
        let mut a = Vector::ZERO;
        let mut b = Vector::ZERO;
        for i in 0..self.len {
            a += self.verts[i].a * self.bary[i];
            b += self.verts[i].b * self.bary[i];
        }
        (a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn simplex_of(ws: &[Vector]) -> Simplex {
        let mut s = Simplex::new();
        for &w in ws {
            s.push_hinted(
                SupportPoint {
                    w,
                    a: w,
                    b: Vector::ZERO,
                },
                Vector::ZERO,
                [0, 0],
            );
        }
        s
    }

    /// Brute-force closest point of a simplex's hull to the origin, by dense sampling
    /// of barycentric coordinates followed by local refinement (test oracle).
    fn brute(ws: &[Vector]) -> Real {
        let n = ws.len();
        let mut best = Real::INFINITY;
        let steps = 40;
        let mut rec = |l: &[Real]| {
            let p: Vector = l.iter().zip(ws).map(|(a, w)| *w * *a).sum();
            best = best.min(p.length());
        };
        match n {
            1 => rec(&[1.0]),
            2 => {
                for i in 0..=steps * 10 {
                    let t = i as Real / (steps * 10) as Real;
                    rec(&[1.0 - t, t]);
                }
            }
            3 => {
                for i in 0..=steps {
                    for j in 0..=steps - i {
                        let (a, b) = (i as Real / steps as Real, j as Real / steps as Real);
                        rec(&[a, b, 1.0 - a - b]);
                    }
                }
            }
            _ => {
                for i in 0..=steps {
                    for j in 0..=steps - i {
                        for k in 0..=steps - i - j {
                            let s = steps as Real;
                            let (a, b, c) = (i as Real / s, j as Real / s, k as Real / s);
                            rec(&[a, b, c, 1.0 - a - b - c]);
                        }
                    }
                }
            }
        }
        best
    }

    #[test]
    fn reduce_never_beats_the_hull_and_is_near_brute_force() {
        // Seeded pseudo-random simplices around the origin.
        let mut state: u64 = 0x9E3779B97F4A7C15;
        let mut rnd = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as Real / (1u64 << 31) as Real) * 2.0 - 1.0
        };
        for n in 1..=4 {
            for _ in 0..200 {
                let ws: Vec<Vector> = (0..n)
                    .map(|_| Vector::new(rnd(), rnd(), rnd()) + Vector::new(0.3, 0.1, -0.2))
                    .collect();
                let mut s = simplex_of(&ws);
                let (v, vv) = s.reduce();
                assert!((v.length_squared() - vv).abs() <= 1e-5);
                // v is a convex combination of the kept vertices.
                let (a, _) = s.witnesses();
                assert!((a - v).length() < 1e-4, "{a} vs {v}");
                let sum: Real = s.barycentric().iter().sum();
                assert!((sum - 1.0).abs() < 1e-4);
                assert!(s.barycentric().iter().all(|&l| l >= -1e-6));
                let b = brute(&ws);
                assert!(vv.sqrt() <= b + 1e-4, "n={n} got {} brute {b}", vv.sqrt());
                assert!(vv.sqrt() >= b - 0.06, "n={n} got {} brute {b}", vv.sqrt());
            }
        }
    }

    #[test]
    fn degenerate_simplices_do_not_produce_nan() {
        let p = Vector::new(1.0, 2.0, 3.0);
        for ws in [
            vec![p, p],
            vec![p, p, p],
            vec![p, p, p, p],
            vec![p, p * 2.0, p * 3.0],
            vec![p, p * 2.0, p * 3.0, p * 4.0],
            vec![
                Vector::new(1.0, 0.0, 1.0),
                Vector::new(-1.0, 0.0, 1.0),
                Vector::new(0.0, 0.0, -1.0),
                Vector::new(0.0, 0.0, 0.5),
            ],
        ] {
            let mut s = simplex_of(&ws);
            let (v, vv) = s.reduce();
            assert!(v.is_finite() && vv.is_finite());
            assert!(s.barycentric().iter().all(|l| l.is_finite()));
        }
    }

    #[test]
    fn tetrahedron_enclosing_origin_is_kept_whole() {
        let ws = [
            Vector::new(1.0, 1.0, 1.0),
            Vector::new(-1.0, -1.0, 1.0),
            Vector::new(-1.0, 1.0, -1.0),
            Vector::new(1.0, -1.0, -1.0),
        ];
        let mut s = simplex_of(&ws);
        let (_, vv) = s.reduce();
        assert_eq!(vv, 0.0);
        assert_eq!(s.len(), 4);
    }

    /// A tetrahedron 2000 long and about 14 wide (a box against a 1000 × 0.001 plate,
    /// found by fuzzing) holds the origin 0.79 from its nearest face. Its volume ratios
    /// are too inaccurate to reproduce the origin in f32, which used to send GJK to that
    /// face, stall there and report the overlapping shapes "apart".
    #[test]
    fn sliver_tetrahedron_holding_the_origin_is_kept_whole() {
        let ws = [
            Vector::new(-679.16327, 410.15546, -612.49695),
            Vector::new(679.16327, -410.15546, 622.38586),
            Vector::new(-669.2729, 400.26794, -622.3865),
            Vector::new(679.16327, -400.26654, 612.49695),
        ];
        let mut s = simplex_of(&ws);
        let (_, vv) = s.reduce();
        assert_eq!((vv, s.len()), (0.0, 4));
    }

    /// Thin tetrahedra (aspect 1 to 1e5) with the origin at a chosen barycentric point:
    /// inside with every coordinate at least 0.05, the whole simplex is kept; beyond one
    /// face by a clear margin (a tenth of the tetrahedron's width), it is not.
    #[test]
    fn thin_tetrahedra_classify_the_origin_by_their_signed_volumes() {
        let mut state: u64 = 0x2545F4914F6CDD1D;
        let mut rnd = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for case in 0..4000 {
            let length = 10f64.powf(rnd() * 5.0);
            // Two short skew segments at the ends of a long bar (the plate case's shape).
            let ends = [-1.0, 1.0, -1.0, 1.0].map(|side| side * length * (0.5 + rnd()));
            let jitter = |r: &mut dyn FnMut() -> f64| [r() * 2.0 - 1.0, r() * 2.0 - 1.0];
            let mut w64: Vec<[f64; 3]> = ends
                .iter()
                .map(|&x| {
                    let [y, z] = jitter(&mut rnd);
                    [x, y, z]
                })
                .collect();
            let mut lambda = [0.0; 4];
            let inside = case % 2 == 0;
            for l in &mut lambda {
                *l = 0.05 + rnd();
            }
            if !inside {
                lambda[case % 4] = -0.1 - rnd();
            }
            let sum: f64 = lambda.iter().sum();
            let origin: Vec<f64> = (0..3)
                .map(|k| (0..4).map(|i| lambda[i] / sum * w64[i][k]).sum())
                .collect();
            for p in &mut w64 {
                for k in 0..3 {
                    p[k] -= origin[k];
                }
            }
            let ws: Vec<Vector> = w64
                .iter()
                .map(|p| Vector::new(p[0] as Real, p[1] as Real, p[2] as Real))
                .collect();
            let mut s = simplex_of(&ws);
            let (_, vv) = s.reduce();
            if inside {
                assert_eq!((vv, s.len()), (0.0, 4), "case {case}: {ws:?}");
            } else {
                assert!(s.len() < 4 && vv > 0.0, "case {case}: {ws:?}");
            }
        }
    }
}
