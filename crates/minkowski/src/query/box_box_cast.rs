//! The linear cast of two boxes in closed form, by the separating-axis theorem.
//!
//! # The math
//!
//! Box A (half extents `a`) sits at the origin of its frame; box B (half extents `b`, its
//! axes the columns `B_j` of the rotation `R`) has its centre at `c + λ r` at time `λ`.
//! Two convex polytopes are disjoint exactly when one of the axes among their face
//! normals and the cross products of an edge direction of each separates their
//! projections (Gottschalk, Lin and Manocha, "OBBTree", SIGGRAPH 1996; Ericson,
//! *Real-Time Collision Detection*, §4.4.1): for two boxes the 15 axes `e_i`, `B_j` and
//! `e_i × B_j`. Along an axis `L` the projections are `[−ρ_A, ρ_A]` and
//! `c·L + λ r·L ± ρ_B`, with `ρ_A = Σ a_i |e_i·L|` and `ρ_B = Σ b_j |B_j·L|`, and they
//! overlap while
//!
//! ```text
//! |p + λ q| ≤ ρ,      p = c·L,  q = r·L,  ρ = ρ_A + ρ_B:
//! λ ∈ [(−s ρ − p) / q, (s ρ − p) / q]    with s = sign(q),
//! ```
//!
//! every time for `q = 0, |p| ≤ ρ` and none for `q = 0, |p| > ρ`. The boxes touch or
//! overlap exactly when every axis overlaps, so the times of contact are the intersection
//! of the 15 intervals, and the time of impact is the latest entry `λ_in` when it is no
//! later than the earliest exit and lies in `[0, max_toi]` (Eberly, "Dynamic collision
//! detection using oriented bounding boxes", Geometric Tools, 2008; Ericson §5.5.8 for
//! the interval form). The axis entered last is the contact normal, oriented from A
//! towards B (`−s L/‖L‖`: at the entry `p + λ q = −s ρ`), and the witness points are
//! the touching features at `λ_in`: for a face axis, the other box's vertex deepest
//! along the normal when it lies over the face (a vertex–face contact, the usual one),
//! else as the box–box contact query finds them ([`witnesses`]): the incident face
//! clipped to the reference face, and for an edge axis the closest points of the two
//! edges.
//!
//! # Where it departs from the textbook
//!
//! * **A certified lower bound**, as the GJK cast's ([`super::cast`]): each `ρ` is
//!   inflated by `τ σ ‖L‖ + 4 ε σ` (`σ = ‖c‖_∞ + max a_i + max b_j`), the touching floor
//!   plus a bound on the rounding of `p`, `λ q` and `ρ` (each a few `ε σ`, whatever
//!   `‖L‖`), so that the reported time is never after contact. Along the normal the
//!   boxes are then apart by at most `τ σ + 4 ε σ / ‖L‖` at `λ_in`.
//! * **Ties go to face axes**, as in the contact query: an edge axis sets the normal only
//!   when it enters later by more than [`crate::tolerance::SAT_SLACK`]` σ` of distance
//!   (the time of impact is then the face axis's, earlier by at most that much). With
//!   parallel faces an edge axis equals a face normal up to rounding, and its witnesses
//!   (the support edges chosen by the signs of rounding-small components) would lie far
//!   apart on the touching faces.
//! * **Nearly parallel edges.** An edge axis `e_i × B_j` of length `sin θ` divides that
//!   rounding by `sin θ`. Exactly parallel edges add no axis (the face axes cover that
//!   direction), and dropping the axis of edges at an angle `θ` lets the boxes come
//!   within about `θ` times their size of each other early. So an edge axis shorter than
//!   `ε_rel` (GJK's relative tolerance) is dropped; one at least `4 ε / ε_rel` long is
//!   kept (its rounding `4 ε σ / ‖L‖ ≤ ε_rel σ`); one in between is within the tolerance
//!   neither way, and the cast is left to GJK (`None`; with the default tolerances,
//!   angles from 1e-11 to 9e-5 rad in `f64`, 1e-5 to 0.05 in `f32`).
//! * **Starts and skins are GJK's.** Boxes already within the floor of each other at
//!   time 0 (every axis overlapping there) take the GJK path, which applies the start
//!   rules (overlapping, touching and sliding: [`super::cast::CastStart`]). The theorem
//!   decides contact, not distance (the closest points of two boxes need not lie along
//!   any of the 15 axes), so casts to a positive distance are GJK's as well: the caller
//!   uses this one only for a target distance of zero and no margins.

// Negated comparisons (`!(x > 0.0)`) are meant: they send NaN to the safe branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::cast::{CastEnd, LocalCast};
use super::gjk::{GjkOptions, GjkStatus};
use super::pair::box_box::{witnesses, Axis};
use crate::math::{Matrix3, Point, Real, Vector, EPSILON};
use crate::tolerance::{BOX_CAST_MAX_REL, BOX_CAST_ROUNDING, SAT_SLACK};

/// The running intersection of the axes' time intervals.
struct Window {
    /// The latest entry so far.
    t_in: Real,
    /// The axis that set it, and the sign of the normal along it (the side entered
    /// from).
    axis: Axis,
    sign: Real,
    /// The earliest exit so far (starts at `max_toi`).
    t_out: Real,
}

impl Window {
    /// Narrows the window by one axis: `p`, `q` and `rho` as in the module notes (for the
    /// axis unnormalised, `rho` already widened), `tie` the entry's handicap as a length
    /// along the unnormalised axis (0 for face axes). False when the boxes never overlap
    /// along it in the interval.
    #[inline(always)]
    fn narrow(&mut self, p: Real, q: Real, rho: Real, tie: Real, axis: Axis) -> bool {
        if q == 0.0 {
            return p.abs() <= rho;
        }
        let s = if q > 0.0 { 1.0 } else { -1.0 };
        let inv = q.recip();
        let (enter, exit) = ((-s * rho - p) * inv, (s * rho - p) * inv);
        if enter - tie * inv.abs() > self.t_in {
            self.t_in = enter;
            self.axis = axis;
            self.sign = -s;
        }
        if exit < self.t_out {
            self.t_out = exit;
        }
        self.t_in <= self.t_out
    }
}

/// The cast of box B (half extents `hb`, axes the columns of `rot`, centre `c` at time 0,
/// moving by `motion` per unit time) against box A (half extents `ha`, at the origin),
/// all in A's frame, to contact (no margin), for times in `[0, max_toi]`.
///
/// `Some` with a `Hit` (time of impact, unit normal from A towards B, witnesses with B
/// moved to the time of impact) or a `Miss`; `None` when the boxes start within the
/// touching floor of each other, or an edge pair is too close to parallel for either
/// dropping or keeping its axis (see the module notes): the caller then runs the GJK
/// cast.
///
/// The axes' projections are written with the entries `R_ij = e_i·B_j` of the rotation
/// (Gottschalk's form): for `L = e_i × B_j`, with `(i, i₁, i₂)` and `(j, j₁, j₂)` cyclic,
/// `L = −R_{i₂j} e_{i₁} + R_{i₁j} e_{i₂}`, `ρ_A = a_{i₁} |R_{i₂j}| + a_{i₂} |R_{i₁j}|` and
/// `ρ_B = b_{j₁} |R_{ij₂}| + b_{j₂} |R_{ij₁}|` (`B_k·(e_i × B_j) = e_i·(B_j × B_k)`).
pub(crate) fn cast_boxes(
    ha: Vector,
    hb: Vector,
    rot: &Matrix3,
    c: Vector,
    motion: Vector,
    max_toi: Real,
    opts: &GjkOptions,
) -> Option<LocalCast> {
    let b_axes = [rot.x_axis, rot.y_axis, rot.z_axis];
    // m[i][j] = R_ij (A's axis i, B's axis j) and its magnitude.
    let m = [
        [rot.x_axis.x, rot.y_axis.x, rot.z_axis.x],
        [rot.x_axis.y, rot.y_axis.y, rot.z_axis.y],
        [rot.x_axis.z, rot.y_axis.z, rot.z_axis.z],
    ];
    let am = m.map(|row| row.map(Real::abs));
    let sigma = c.abs().max_element() + ha.max_element() + hb.max_element();
    let floor = opts.touch_tolerance() * sigma;
    let rounding = BOX_CAST_ROUNDING * EPSILON * sigma;
    let slack = SAT_SLACK * sigma;
    let rel = opts.rel();
    if rel > BOX_CAST_MAX_REL {
        // Edges this far from parallel would count as parallel: GJK decides.
        return None;
    }
    let drop2 = rel * rel;
    let keep2 = {
        let k = BOX_CAST_ROUNDING * EPSILON / rel;
        k * k
    };
    let miss = LocalCast {
        end: CastEnd::Miss,
        toi: 0.0,
        normal: Vector::ZERO,
        point_a: Point::ZERO,
        point_b: Point::ZERO,
        status: GjkStatus::Converged,
        iterations: 0,
    };
    let mut w = Window {
        t_in: Real::NEG_INFINITY,
        axis: Axis::FaceA(0),
        sign: 1.0,
        t_out: max_toi,
    };
    let (a, b) = (ha.to_array(), hb.to_array());
    let (ca, ra) = (c.to_array(), motion.to_array());
    let widen = floor + rounding;
    for i in 0..3 {
        let rho = a[i] + b[0] * am[i][0] + b[1] * am[i][1] + b[2] * am[i][2] + widen;
        if !w.narrow(ca[i], ra[i], rho, 0.0, Axis::FaceA(i)) {
            return Some(miss);
        }
    }
    for (j, bj) in b_axes.iter().enumerate() {
        let rho = a[0] * am[0][j] + a[1] * am[1][j] + a[2] * am[2][j] + b[j] + widen;
        if !w.narrow(c.dot(*bj), motion.dot(*bj), rho, 0.0, Axis::FaceB(j)) {
            return Some(miss);
        }
    }
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let len2 = m[i1][j] * m[i1][j] + m[i2][j] * m[i2][j];
            if len2 <= drop2 {
                // Parallel edges: no axis.
                continue;
            }
            if len2 < keep2 {
                return None;
            }
            let len = len2.sqrt();
            let rho = a[i1] * am[i2][j]
                + a[i2] * am[i1][j]
                + b[j1] * am[i][j2]
                + b[j2] * am[i][j1]
                + floor * len
                + rounding;
            let p = ca[i2] * m[i1][j] - ca[i1] * m[i2][j];
            let q = ra[i2] * m[i1][j] - ra[i1] * m[i2][j];
            if !w.narrow(p, q, rho, slack * len, Axis::Edge(i, j)) {
                return Some(miss);
            }
        }
    }
    if !(w.t_out >= 0.0) {
        return Some(miss);
    }
    if !(w.t_in > 0.0) {
        // Within the floor at time 0 (or no axis ever closes: not moving).
        return None;
    }
    let toi = w.t_in;
    let l = match w.axis {
        Axis::FaceA(i) => {
            let mut l = Vector::ZERO;
            l[i] = 1.0;
            l
        }
        Axis::FaceB(j) => b_axes[j],
        Axis::Edge(i, j) => {
            let mut e = Vector::ZERO;
            e[i] = 1.0;
            e.cross(b_axes[j])
        }
    };
    let n = l * (w.sign / l.length());
    let centre = c + motion * toi;
    // The boxes' gap along `n` at the time of impact (the floor, up to rounding).
    let ra_n = ha.x * n.x.abs() + ha.y * n.y.abs() + ha.z * n.z.abs();
    let rb_n = hb.x * n.dot(b_axes[0]).abs()
        + hb.y * n.dot(b_axes[1]).abs()
        + hb.z * n.dot(b_axes[2]).abs();
    let gap = centre.dot(n) - ra_n - rb_n;
    let (point_a, point_b) = touching_points(ha, hb, rot, centre, w.axis, n, gap);
    Some(LocalCast {
        end: CastEnd::Hit,
        toi,
        normal: n,
        point_a,
        point_b,
        status: GjkStatus::Converged,
        iterations: 0,
    })
}

/// The witness pair `(on A, on B)` of the boxes touching along `axis` (normal `n` from A
/// towards B, apart by `gap` along it; B's centre at `centre`): for a face axis, the
/// other box's support vertex towards the face and its projection onto the face's plane,
/// when the vertex lies over the face (then both are on their boxes, `gap` apart along
/// `n`); every other case by [`witnesses`] (the clip of the incident face, or the
/// closest points of the edges).
fn touching_points(
    ha: Vector,
    hb: Vector,
    rot: &Matrix3,
    centre: Vector,
    axis: Axis,
    n: Vector,
    gap: Real,
) -> (Point, Point) {
    let b_axes = [rot.x_axis, rot.y_axis, rot.z_axis];
    let side = |x: Real| if x > 0.0 { 1.0 } else { -1.0 };
    match axis {
        Axis::FaceA(i) => {
            // B's vertex farthest along −n.
            let mut v = centre;
            for (k, bk) in b_axes.iter().enumerate() {
                v -= *bk * (hb[k] * side(bk.dot(n)));
            }
            let (m1, m2) = ((i + 1) % 3, (i + 2) % 3);
            if v[m1].abs() <= ha[m1] && v[m2].abs() <= ha[m2] {
                let mut on_a = v;
                on_a[i] = ha[i] * side(n[i]);
                return (on_a, v);
            }
        }
        Axis::FaceB(j) => {
            // A's vertex farthest along n, over B's face in B's frame.
            let u = Vector::new(ha.x * side(n.x), ha.y * side(n.y), ha.z * side(n.z));
            let d = u - centre;
            let (k1, k2) = ((j + 1) % 3, (j + 2) % 3);
            if d.dot(b_axes[k1]).abs() <= hb[k1] && d.dot(b_axes[k2]).abs() <= hb[k2] {
                return (u, u + n * gap);
            }
        }
        Axis::Edge(..) => {}
    }
    witnesses(ha, hb, *rot, centre, axis, n, -gap)
}
