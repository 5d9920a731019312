//! Penetration of two small convex polyhedra by the separating axis test, with
//! Gauss-map pruning of the edge pairs: the exact depth, normal and witness points in
//! one pass, without GJK or EPA.
//!
//! # Why the axes give the exact depth
//!
//! The faces of `D = A ⊖ B` have as normals the face normals of A, the face normals of
//! B (reversed), and the cross products `e_A × e_B` of the edge pairs whose arcs cross on
//! the Gauss maps of A and of `−B` (D. Gregorius, "The separating axis test between
//! convex polyhedra", GDC 2013). Along a unit axis `L` the separation of the shapes is
//! `s(L) = min_{b ∈ B} L·b − max_{a ∈ A} L·a`; when every `s < 0` the shapes overlap and
//! the penetration depth — the distance from the origin to the boundary of D — is
//! `−max s` over those face normals (for a convex polytope holding the origin, the
//! nearest boundary point is the projection on the nearest face plane, and it lies in
//! that face). The minimising axis, oriented from A to B, is the contact normal.
//!
//! * A face `(n, o)` of A: `s = min_b n·b − o`, a scan of B's vertices (in A's frame).
//! * A face `(m, o)` of B (in A's frame): `s = min_a m·a − o`, normal `−m`.
//! * Edges `p + t e_A`, `q + u e_B`: the arcs of A's edge (between its faces' normals
//!   `a`, `b`) and of B's (between `c = −m_left`, `d = −m_right`) cross when
//!
//!   ```text
//!   c·(b × a) and d·(b × a) differ in sign,  a·(d × c) and b·(d × c) differ in sign,
//!   and c·(b × a) and b·(d × c) have the same sign;
//!   ```
//!
//!   then `L = e_A × e_B / |e_A × e_B|`, oriented away from A's centre, and
//!   `s = L·(q − p)`. Near-parallel edges are skipped: their `L` is a face normal's.
//!
//! # Witness points
//!
//! With the best axis `n` and `s = −depth`: for A's face, B's deepest vertex `b` (the
//! unique minimiser of `n·b`) and `a = b − s n`, which lies on A's face (the projection
//! of the origin on D's nearest face lies in it); for B's face, symmetrically; for an
//! edge pair, the closest points of the two edges, with `b = a + s L`. So
//! `point_b − point_a = distance × normal` by construction.
//!
//! # When it gives up
//!
//! `None` sends the pair to GJK/EPA: when an axis shows the shapes apart or touching
//! (separation above `−SAT_SLACK × size`), and when the best axis's support feature on
//! the other shape is not a single vertex to rounding (parallel faces, an edge parallel
//! to the face), where the witnesses would need a clip.
//!
//! Cost: `F_A V_B + F_B V_A` dot products for the faces and `E_A E_B` Gauss-map tests,
//! quadratic in the size: the dispatcher uses it only up to
//! [`SAT_CONTACT_MAX_VERTICES`] vertices per hull.

use super::segment_segment::closest_points;
use super::LocalContact;
use crate::math::{Matrix3, Point, Real, Vector};
use crate::shape::polyhedron_features::{PolyhedronFeatures, SAT_CONTACT_MAX_VERTICES};
use crate::shape::ConvexPolyhedron;
use crate::support::SupportMap;
use crate::tolerance::SAT_SLACK;

/// Vertices, faces (at most `2V − 4`) and edges (at most `3V − 6`) of a hull the
/// stack buffers hold.
const MAX_V: usize = SAT_CONTACT_MAX_VERTICES;
const MAX_F: usize = 2 * SAT_CONTACT_MAX_VERTICES;
const _: () = assert!(MAX_F <= 64, "B's faces must fit a u64 mask");
const MAX_E: usize = 3 * SAT_CONTACT_MAX_VERTICES;

#[derive(Clone, Copy)]
enum Axis {
    FaceA(usize),
    FaceB(usize),
    Edge(usize, usize),
}

/// The index of the smallest and the two smallest values of `n·p` over `points`
/// (`(usize::MAX, ∞, ∞)` when empty).
#[inline]
fn lowest_two(points: &[Point], n: Vector) -> (usize, Real, Real) {
    let (mut at, mut low, mut second) = (usize::MAX, Real::INFINITY, Real::INFINITY);
    for (i, p) in points.iter().enumerate() {
        let x = n.dot(*p);
        if x < low {
            second = low;
            low = x;
            at = i;
        } else if x < second {
            second = x;
        }
    }
    (at, low, second)
}

/// The smallest `n·p` over `points` (∞ when empty).
#[inline]
fn lowest(points: &[Point], n: Vector) -> Real {
    points
        .iter()
        .fold(Real::INFINITY, |low, p| low.min(n.dot(*p)))
}

/// Contact of polyhedron A (at the origin of this frame, features `fa`) with B
/// (features `fb`, rotation `rot` and translation `t` into this frame), when they
/// overlap by more than the rounding slack and the witnesses are unique; `None`
/// otherwise (see the module notes). The contact is in A's frame.
pub(crate) fn contact(
    a: &ConvexPolyhedron,
    fa: &PolyhedronFeatures,
    b: &ConvexPolyhedron,
    fb: &PolyhedronFeatures,
    rot: Matrix3,
    t: Vector,
) -> Option<LocalContact> {
    let va = a.points();
    let (vb_local, nf_b, ne_b) = (b.points(), fb.normals.len(), fb.edges.len());
    if va.len() > MAX_V || vb_local.len() > MAX_V || nf_b > MAX_F || ne_b > MAX_E {
        return None;
    }
    let slack = SAT_SLACK * (a.bounding_radius() + b.bounding_radius() + t.abs().max_element());

    // B's vertices in A's frame.
    let mut vb_buf = [Point::ZERO; MAX_V];
    for (o, p) in vb_buf.iter_mut().zip(vb_local) {
        *o = rot * *p + t;
    }
    let vb = &vb_buf[..vb_local.len()];

    // A's faces.
    let mut best = Real::NEG_INFINITY;
    let mut axis = Axis::FaceA(0);
    for (j, (n, o)) in fa.normals.iter().zip(&fa.offsets).enumerate() {
        let s = lowest(vb, *n) - o;
        if s > best {
            if s >= -slack {
                return None;
            }
            best = s;
            axis = Axis::FaceA(j);
        }
    }

    // B's faces, in A's frame (normals also by coordinate, for the edge loop).
    let mut nb_buf = [Vector::ZERO; MAX_F];
    let (mut nbx, mut nby, mut nbz) = ([0.0; MAX_F], [0.0; MAX_F], [0.0; MAX_F]);
    for (j, (n, o)) in fb.normals.iter().zip(&fb.offsets).enumerate() {
        let m = rot * *n;
        (nb_buf[j], nbx[j], nby[j], nbz[j]) = (m, m.x, m.y, m.z);
        let s = lowest(va, m) - (o + m.dot(t));
        if s > best {
            if s >= -slack {
                return None;
            }
            best = s;
            axis = Axis::FaceB(j);
        }
    }
    let nb = &nb_buf[..nf_b];
    let (nbx, nby, nbz) = (&nbx[..nf_b], &nby[..nf_b], &nbz[..nf_b]);

    // Edge pairs whose Gauss-map arcs cross. For each edge of A, the side of its arc's
    // plane `b × a` that each of B's face normals lies on, as a bit mask (one pass over
    // the faces); then B's edges whose two faces lie on opposite sides (a belt of B's
    // Gauss map, found without branches), and the remaining two conditions on those
    // only. (The first condition's signs are those of `m·(b × a)` negated, the same
    // product.)
    let mut d_x_c = [Vector::ZERO; MAX_E];
    for (o, e) in d_x_c.iter_mut().zip(&fb.edges) {
        // c = −m_left, d = −m_right: d × c = m_right × m_left.
        *o = nb[e.right as usize].cross(nb[e.left as usize]);
    }
    let center_a = a.local_center();
    // Each edge's two faces as shifts into a mask of B's faces (at most 64 of them).
    let mut sides = [(0u32, 0u32); MAX_E];
    for (o, e) in sides.iter_mut().zip(&fb.edges) {
        *o = (e.left, e.right);
    }
    let sides = &sides[..ne_b];
    // B's edge directions as unit vectors, and A's below: with raw edge vectors the
    // squared comparison below grows as the size to the sixth power, which overflows
    // f32 at sizes of about 2^21 (and f64 near 2^170) and skipped every edge axis.
    let mut unit_b = [Vector::ZERO; MAX_E];
    for (o, e) in unit_b.iter_mut().zip(&fb.edges) {
        *o = (vb[e.head as usize] - vb[e.tail as usize]).normalize_or_zero();
    }
    let mut belt = [0u32; MAX_E];
    for (i, ea) in fa.edges.iter().enumerate() {
        let (na, nb_a) = (fa.normals[ea.left as usize], fa.normals[ea.right as usize]);
        let u = nb_a.cross(na);
        // Bit j: B's face normal m_j lies below the plane of A's arc (m_j·u < 0).
        let mut below = 0u64;
        for (j, ((x, y), z)) in nbx.iter().zip(nby).zip(nbz).enumerate() {
            below |= u64::from(x * u.x + y * u.y + z * u.z < 0.0) << j;
        }
        let mut found = 0;
        for (k, &(l, r)) in sides.iter().enumerate() {
            belt[found] = k as u32;
            found += (((below >> l) ^ (below >> r)) & 1) as usize;
        }
        let p = va[ea.tail as usize];
        let dir_a = (va[ea.head as usize] - p).normalize_or_zero();
        for &k in &belt[..found] {
            let k = k as usize;
            let e = fb.edges[k];
            let cba = -nb[e.left as usize].dot(u);
            let adc = na.dot(d_x_c[k]);
            let bdc = nb_a.dot(d_x_c[k]);
            if adc * bdc >= 0.0 || cba * bdc <= 0.0 {
                continue;
            }
            let q = vb[e.tail as usize];
            let cross = dir_a.cross(unit_b[k]);
            // `sin²` of the edges' angle (0 for a degenerate edge).
            let len2 = cross.length_squared();
            // Near-parallel edges: their axis is a face normal's, tested above.
            if len2.is_nan() || len2 <= SAT_SLACK {
                continue;
            }
            // s = ±cross·(q − p) / |cross|, the sign turning the axis away from A's
            // centre; compared with `best` (< 0) by squares, the root only on a gain.
            let mut num = cross.dot(q - p);
            if cross.dot(p - center_a) < 0.0 {
                num = -num;
            }
            if num < 0.0 && num * num >= best * best * len2 {
                continue;
            }
            let s = num / len2.sqrt();
            if s > best {
                if s >= -slack {
                    return None;
                }
                best = s;
                axis = Axis::Edge(i, k);
            }
        }
    }
    if !best.is_finite() {
        return None;
    }

    match axis {
        Axis::FaceA(j) => {
            let n = fa.normals[j];
            let (at, low, second) = lowest_two(vb, n);
            if second - low <= slack {
                return None;
            }
            let point_b = *vb.get(at)?;
            Some(LocalContact {
                distance: best,
                normal: n,
                point_a: point_b - n * best,
                point_b,
            })
        }
        Axis::FaceB(j) => {
            let m = nb[j];
            let (at, low, second) = lowest_two(va, m);
            if second - low <= slack {
                return None;
            }
            let point_a = *va.get(at)?;
            Some(LocalContact {
                distance: best,
                normal: -m,
                point_a,
                point_b: point_a - m * best,
            })
        }
        Axis::Edge(i, k) => {
            let (ea, e) = (fa.edges[i], fb.edges[k]);
            let (p, q) = (va[ea.tail as usize], vb[e.tail as usize]);
            let (p2, q2) = (va[ea.head as usize], vb[e.head as usize]);
            let mut l = (p2 - p).cross(q2 - q).try_normalize()?;
            if l.dot(p - center_a) < 0.0 {
                l = -l;
            }
            let (point_a, _) = closest_points(p, p2, q, q2);
            Some(LocalContact {
                distance: best,
                normal: l,
                point_a,
                point_b: point_a + l * best,
            })
        }
    }
}
