//! Box–box penetration by the separating axis theorem.
//!
//! # Why 15 axes give the exact depth
//!
//! The Minkowski difference of two boxes is a convex polytope whose face normals are
//! among: the 3 face normals of A, the 3 of B, and the 9 cross products of an edge
//! direction of A with one of B (Gottschalk, Lin and Manocha, "OBBTree", SIGGRAPH 1996,
//! for the separation test). Along a unit axis `L` the boxes' projections overlap by
//!
//! ```text
//! o(L) = r_A(L) + r_B(L) − |t·L|,   r_A(L) = Σ_i h^A_i |L·a_i|,  r_B likewise
//! ```
//!
//! If some `o(L) < 0`, L separates them. Otherwise the penetration depth — the distance
//! from the origin to the boundary of `A ⊖ B` — is the least overlap over those axes,
//! and the minimising axis (oriented from A to B) is the contact normal.
//!
//! # Witness points
//!
//! With the normal `n` and depth `δ` fixed, a witness pair is `p_A ∈ F_A(n)`,
//! `p_B ∈ F_B(−n)` with `p_A − p_B = δ n`, where `F(·)` is a support feature. For a face
//! axis, B's incident face (the one most opposed to `n`) is clipped to the side planes
//! of A's reference face; the deepest clipped point is at depth exactly `δ` (the clipped
//! region meets `F_B(−n)` because `δ n` lies on the face of `A ⊖ B` with normal `n`).
//! For an edge axis the witnesses are the closest points of the two support edges.

use super::segment_segment::closest_points;
use super::LocalContact;
use crate::math::{Matrix3, Point, Real, Vector, EPSILON};
use crate::tolerance::SAT_SLACK;

/// One of the 15 separating-axis candidates of two boxes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Axis {
    /// A's face normal `e_i`.
    FaceA(usize),
    /// B's face normal, the `j`-th column of B's rotation.
    FaceB(usize),
    /// The cross product of A's edge direction `e_i` with B's `j`-th.
    Edge(usize, usize),
}

/// Contact of box A (`[-ha, ha]`, at the origin of this frame) with box B (half extents
/// `hb`, rotation `rot` whose columns are B's axes, centre `t`), or `None` when a
/// separating axis exists (the caller then computes the distance with GJK).
pub(crate) fn contact(ha: Vector, hb: Vector, rot: Matrix3, t: Vector) -> Option<LocalContact> {
    let b_axes = [rot.x_axis, rot.y_axis, rot.z_axis];
    let scale = ha
        .max_element()
        .max(hb.max_element())
        .max(t.abs().max_element());
    let bias = SAT_SLACK * scale;
    let mut best_overlap = Real::INFINITY;
    let mut best_n = Vector::Y;
    let mut best_axis = Axis::FaceA(1);

    let mut test = |l: Vector, axis: Axis, bias: Real| -> bool {
        let ra = ha.x * l.x.abs() + ha.y * l.y.abs() + ha.z * l.z.abs();
        let rb = hb.x * l.dot(b_axes[0]).abs()
            + hb.y * l.dot(b_axes[1]).abs()
            + hb.z * l.dot(b_axes[2]).abs();
        let dist = t.dot(l);
        let overlap = ra + rb - dist.abs();
        if overlap < 0.0 {
            return false;
        }
        if overlap < best_overlap - bias {
            best_overlap = overlap;
            best_n = if dist < 0.0 { -l } else { l };
            best_axis = axis;
        }
        true
    };

    for i in 0..3 {
        let mut l = Vector::ZERO;
        l[i] = 1.0;
        if !test(l, Axis::FaceA(i), 0.0) {
            return None;
        }
    }
    for (j, &bj) in b_axes.iter().enumerate() {
        if !test(bj, Axis::FaceB(j), bias) {
            return None;
        }
    }
    for i in 0..3 {
        let mut ai = Vector::ZERO;
        ai[i] = 1.0;
        for (j, &bj) in b_axes.iter().enumerate() {
            let l = ai.cross(bj);
            let len2 = l.length_squared();
            // Nearly parallel edges give no new axis (their cross product is noise; the
            // face axes already cover that direction).
            if len2 <= 1e3 * EPSILON {
                continue;
            }
            if !test(l / len2.sqrt(), Axis::Edge(i, j), bias) {
                return None;
            }
        }
    }

    let depth = best_overlap;
    let n = best_n;
    let (pa, pb) = witnesses(ha, hb, rot, t, best_axis, n, depth);
    Some(LocalContact {
        distance: -depth,
        normal: n,
        point_a: pa,
        point_b: pb,
    })
}

/// The witness pair `(on A, on B)` of boxes A (`[-ha, ha]` at the origin) and B (half
/// extents `hb`, axes the columns of `rot`, centre `t`) touching or overlapping along
/// `axis`, whose unit direction from A towards B is `n`, by `depth` (the overlap along
/// `n`; negative for boxes apart by `−depth` along it): see the module notes. Shared by
/// the contact query and the box–box linear cast (`query/box_box_cast.rs`).
pub(crate) fn witnesses(
    ha: Vector,
    hb: Vector,
    rot: Matrix3,
    t: Vector,
    axis: Axis,
    n: Vector,
    depth: Real,
) -> (Point, Point) {
    let b_axes = [rot.x_axis, rot.y_axis, rot.z_axis];
    match axis {
        Axis::FaceA(i) => face_witness(ha, hb, rot, t, i, n, depth),
        Axis::FaceB(j) => {
            // Same construction with the roles of the boxes swapped, in B's frame.
            let rot_t = rot.transpose();
            let t_b = -(rot_t * t);
            let n_b = rot_t * -n;
            let (pb_b, pa_b) = face_witness(hb, ha, rot_t, t_b, j, n_b, depth);
            (rot * pa_b + t, rot * pb_b + t)
        }
        Axis::Edge(i, j) => {
            // Support edge of A along n (free along a_i) and of B along −n (free along b_j).
            let mut ca = Vector::ZERO;
            for k in 0..3 {
                if k != i {
                    ca[k] = if n[k] < 0.0 { -ha[k] } else { ha[k] };
                }
            }
            let mut ea = Vector::ZERO;
            ea[i] = ha[i];
            let mut cb = t;
            for (k, &bk) in b_axes.iter().enumerate() {
                if k != j {
                    cb += bk * if n.dot(bk) > 0.0 { -hb[k] } else { hb[k] };
                }
            }
            let eb = b_axes[j] * hb[j];
            closest_points(ca - ea, ca + ea, cb - eb, cb + eb)
        }
    }
}

/// Witnesses for a face axis of the reference box (`h_ref` at the origin, face normal
/// `n = ±e_i`): clip the incident box's most opposed face to the reference face's side
/// planes and take the deepest point. Returns `(on reference, on incident)`.
fn face_witness(
    h_ref: Vector,
    h_inc: Vector,
    rot: Matrix3,
    t: Vector,
    i: usize,
    n: Vector,
    depth: Real,
) -> (Point, Point) {
    let axes = [rot.x_axis, rot.y_axis, rot.z_axis];
    // Incident face: the face of the other box whose outward normal is most opposed to n.
    let mut k = 0;
    let mut best = Real::INFINITY;
    for (j, a) in axes.iter().enumerate() {
        let d = a.dot(n);
        if -d.abs() < best {
            best = -d.abs();
            k = j;
        }
    }
    let sign = if axes[k].dot(n) > 0.0 { -1.0 } else { 1.0 };
    let center = t + axes[k] * (sign * h_inc[k]);
    let (u, v) = ((k + 1) % 3, (k + 2) % 3);
    let (du, dv) = (axes[u] * h_inc[u], axes[v] * h_inc[v]);
    let mut poly: [Point; 8] = [Vector::ZERO; 8];
    poly[..4].copy_from_slice(&[
        center + du + dv,
        center - du + dv,
        center - du - dv,
        center + du - dv,
    ]);
    let face = poly;
    // Clip against the four side planes |x_m| <= h_ref[m] + slack, m != i.
    let clip_sides = |poly: &mut [Point; 8], slack: Real| {
        let mut len = 4;
        for m in [(i + 1) % 3, (i + 2) % 3] {
            for s in [1.0, -1.0] {
                len = clip(poly, len, m, s, h_ref[m] + slack);
                if len == 0 {
                    return 0;
                }
            }
        }
        len
    };
    let mut len = clip_sides(&mut poly, 0.0);
    if len == 0 {
        // Faces that meet along an edge line (boxes with parallel edges touching there)
        // overlap by zero width, which rounding can turn into nothing: clip again with
        // the side planes moved out by the rounding slack, so the witnesses come from the
        // shared line rather than from a far corner.
        let size = h_ref
            .max_element()
            .max(h_inc.max_element())
            .max(t.abs().max_element());
        poly = face;
        len = clip_sides(&mut poly, SAT_SLACK * size);
    }
    let deepest = if len > 0 {
        let mut p = poly[0];
        for q in &poly[1..len] {
            if q.dot(n) < p.dot(n) {
                p = *q;
            }
        }
        p
    } else {
        // Rounding emptied the clip (corner contact): fall back to the support vertex.
        let mut p = t;
        for (j, a) in axes.iter().enumerate() {
            p += *a * if a.dot(n) > 0.0 { -h_inc[j] } else { h_inc[j] };
        }
        p
    };
    let on_ref = (deepest + n * depth).clamp(-h_ref, h_ref);
    (on_ref, deepest)
}

/// Sutherland–Hodgman clip of a convex polygon against the half-space
/// `s · x[m] <= h` (in place; at most 8 vertices). Returns the new length.
fn clip(poly: &mut [Point; 8], len: usize, m: usize, s: Real, h: Real) -> usize {
    let mut out: [Point; 8] = [Vector::ZERO; 8];
    let mut n = 0;
    for idx in 0..len {
        let p = poly[idx];
        let q = poly[(idx + 1) % len];
        let dp = s * p[m] - h;
        let dq = s * q[m] - h;
        if dp <= 0.0 && n < 8 {
            out[n] = p;
            n += 1;
        }
        if (dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0) {
            let tt = dp / (dp - dq);
            if n < 8 {
                out[n] = p + (q - p) * tt;
                n += 1;
            }
        }
    }
    poly[..n].copy_from_slice(&out[..n]);
    n
}
