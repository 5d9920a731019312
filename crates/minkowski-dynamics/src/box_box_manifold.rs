//! The contact manifold of two boxes in closed form: separating axes, then face clipping
//! or the closest points of two edges.
//!
//! # The axis
//!
//! Work in A's frame: A is `[-a, a]` (half extents `a`), B has half extents `b`, axes
//! `u_j` (the columns of `R = R_A⁻¹ R_B`) and centre `t`. Along a unit axis `L` the two
//! projections are `[-r_A, r_A]` and `t·L + [-r_B, r_B]` with
//!
//! ```text
//! r_A(L) = Σ_i a_i |L_i|,   r_B(L) = Σ_j b_j |L·u_j|,   s(L) = |t·L| − r_A − r_B
//! ```
//!
//! `s(L)` is the gap (positive) or overlap (negative) of the projections. For two
//! boxes the 15 axes — A's three face normals, B's three, and the nine `e_i × u_j` —
//! contain every face normal of the Minkowski difference `B ⊖ A` (Gottschalk, Lin and
//! Manocha, "OBBTree", SIGGRAPH 1996), so when the boxes overlap, the penetration depth
//! is `−max_L s(L)` and the maximising axis, oriented from A to B, is the normal. When
//! they are apart, `max_L s(L)` is a lower bound of their distance (a separating
//! plane's gap): if it exceeds the speculative margin there is no contact; otherwise
//! the points below are reported with their gaps measured along that axis, which never
//! exceed the true distance (a speculative contact that holds the bodies no farther
//! apart than a plane between them allows, as Box2D's manifolds do).
//!
//! Ties are broken towards stability, as Box2D's `b2CollidePolygons` and ODE's
//! `dBoxBox` do: a face of B is taken over one of A, and an edge pair over the faces,
//! only when its gap is larger by [`AXIS_PREFERENCE`] of the boxes' size, so that a
//! resting box keeps the same reference face from step to step. Edge axes of nearly
//! parallel edges (`|e_i × u_j| <` [`AXIS_PREFERENCE`]) are skipped: their direction is
//! rounding noise, and a face axis then gives the same gap to within that fraction.
//!
//! # The points
//!
//! A face axis makes the box owning it the *reference* box and its face the reference
//! face (outward normal `n`); the other box's face most opposed to `n` is the
//! *incident* face. The incident quad is clipped to the four side planes of the
//! reference face (Sutherland–Hodgman; Ericson, "Real-Time Collision Detection" §8.3 and
//! Gregorius, "Robust Contact Creation for Physics Simulations", GDC 2015). Each clipped
//! point `x` has gap `s = n·x − h` (`h` the reference face's offset) and is kept when
//! `s ≤ margin`; its partner on the reference face is `x − s n`, inside the face because
//! `x` was clipped to its sides (to within [`CLIP_SLACK`], then clamped to them). So both points of a pair lie on the boxes' surfaces and
//! `p_B − p_A = s · normal` with the normal from A to B. More than four kept points are
//! reduced to four: the deepest (among points within [`AXIS_PREFERENCE`] of the deepest,
//! the one of smallest feature id, so that a resting face keeps its points), the
//! farthest from it, then the two that span the
//! largest triangles with those on either side (the area-maximising choice of Box2D
//! and Bullet's `btPersistentManifold`).
//!
//! # The order of the points
//!
//! The points are written deepest first (depths within rounding of the deepest,
//! `SEPARATION_REL_TOLERANCE` of the boxes' size, count as equal and the smallest
//! feature id among them is first), then the one farthest from it, then the two
//! spanning the largest triangles: the library's manifold's order. The solver visits a
//! manifold's points in this order, and with a few Gauss–Seidel passes on a tall pile
//! the point solved first takes more of the load, so the order is not cosmetic. Deepest
//! first, the extra load goes to the corner the box leans towards and turns it back;
//! a fixed first corner (the clip's order, or the smallest id among points within
//! [`AXIS_PREFERENCE`] of the deepest, as before) turns every box of a pile the same
//! way. Measured on the 100-row pyramid (5050 boxes, 60 Hz, 4 substeps, 2 relax
//! iterations): with a fixed first corner (two variants) the pile never fell asleep
//! and its top leaned out of its plane until it came apart after step 800 (1.5 m at
//! step 700), while the points and normals matched the library's manifold to 2·10⁻⁵
//! and every point was warm-started; deepest first it fell asleep at step 474 (424
//! with the reduction's depth tie also at rounding; the library's manifold: 475). That
//! pile stays marginal with the closed form, though: under a change of the solver's
//! rounding alone it again leaned out and came apart (the library's manifold did not),
//! which is why the world does not use it by default.
//!
//! An edge axis gives one point pair: the closest points of the two support edges (the
//! edge of A farthest along `L`, the edge of B farthest along `−L`), clamped to the
//! edges, gap `L·(p_B − p_A)` (equal to `|p_B − p_A|` with the sign of the SAT gap when
//! the closest points are inside both edges, as they are for a true edge contact).
//!
//! # Feature ids
//!
//! A point's id names the features that made it, so it stays the same while they touch
//! (for warm starting): bits 24–26 the reference face (`2·axis + [n points +]`), bit 23
//! set when B holds it, bits 8–10 the incident face, bits 0–5 the point of the clipped
//! polygon — `0..3` an incident vertex, `4 + 4·line + plane` where the polygon edge on
//! `line` (an incident edge `0..3`, or the line of side plane `4..7`) crosses side
//! plane `0..3`. An edge–edge point has bits 24–31 all set, A's edge in bits 8–11 and
//! B's in bits 0–3 (`4·axis + corner`).

use minkowski::query::manifold::SEPARATION_REL_TOLERANCE;
use minkowski::query::{manifold, ManifoldPoint};
use minkowski::shape::{Cuboid, Shape};
use minkowski::{Pose, Real, Vector};

/// How much larger (relative to the boxes' largest half extent or centre offset) the
/// gap along a face of B must be than along A's best face, or an edge pair's than the
/// faces', to be chosen (module notes); also the sine below which two edges count as
/// parallel. 1e-3 of a unit box is a millimetre, a fifth of the world's default slop.
pub const AXIS_PREFERENCE: Real = 1e-3;

/// A side plane keeps points outside it by up to this fraction of the boxes' size, so
/// that an incident edge lying on a side plane (boxes side by side, flush) is kept
/// rather than lost to rounding.
pub const CLIP_SLACK: Real = 1e-5;

/// Feature-id bits 24–31 of an edge–edge point.
const EDGE_EDGE: u32 = 0xff << 24;

/// Up to four point pairs sharing one normal (world frame), from [`box_box_manifold`].
#[derive(Debug, Clone, Copy)]
pub struct BoxBoxManifold {
    /// Unit normal from A towards B (world frame); meaningless when `len == 0`.
    pub normal: Vector,
    /// The point pairs; `point_b − point_a = distance · normal` (for an edge pair whose
    /// closest points are clamped to an edge's end, `distance` is the component of
    /// `point_b − point_a` along the normal), `distance ≤ margin` (negative:
    /// penetrating).
    pub points: [ManifoldPoint; 4],
    /// How many of `points` are set.
    pub len: usize,
}

impl BoxBoxManifold {
    /// The point pairs that are set.
    pub fn points(&self) -> &[ManifoldPoint] {
        &self.points[..self.len]
    }
}

const ZERO_POINT: ManifoldPoint = ManifoldPoint {
    point_a: Vector::ZERO,
    point_b: Vector::ZERO,
    distance: 0.0,
    feature: 0,
};

#[derive(Clone, Copy, PartialEq)]
enum Axis {
    /// A face of A (axis index).
    FaceA(usize),
    /// A face of B.
    FaceB(usize),
    /// `e_i × u_j`.
    Edge(usize, usize),
}

/// The contact manifold of box A at world pose `pose_a` and box B at `pose_b` within
/// `margin` (length ≥ 0; NaN or negative is taken as 0), world frame, normal from A to
/// B: empty when a separating axis shows a gap larger than `margin`, else up to four
/// point pairs (module notes).
///
/// Two separated boxes whose nearest features the closed form does not reach — the
/// incident face lies wholly or partly outside the reference face's sides so that no
/// clipped point has the axis's gap (boxes apart across a corner or an edge), or the
/// closest points of an edge pair fall past an edge's end — are
/// answered by the library's general manifold ([`minkowski::query::manifold()`]): that
/// happens only for pairs apart (within the margin), never for touching or overlapping
/// ones in a stack.
pub fn box_box_manifold(
    a: &Cuboid,
    pose_a: &Pose,
    b: &Cuboid,
    pose_b: &Pose,
    margin: Real,
) -> BoxBoxManifold {
    let margin = if margin > 0.0 { margin } else { 0.0 };
    match closed_form(a.half_extents(), pose_a, b.half_extents(), pose_b, margin) {
        Some(m) => m,
        None => {
            let m = manifold(
                &Shape::Cuboid(*a),
                pose_a,
                &Shape::Cuboid(*b),
                pose_b,
                margin,
            );
            let mut out = BoxBoxManifold {
                normal: m.normal,
                points: [ZERO_POINT; 4],
                len: m.len().min(4),
            };
            out.points[..out.len].copy_from_slice(&m.points()[..out.len]);
            out
        }
    }
}

/// The closed form of [`box_box_manifold`], in A's frame until the end; `None` when the
/// general manifold must answer.
fn closed_form(
    half_a: Vector,
    pose_a: &Pose,
    half_b: Vector,
    pose_b: &Pose,
    margin: Real,
) -> Option<BoxBoxManifold> {
    let qa = pose_a.rotation();
    let qa_inv = qa.inverse();
    let rel = qa_inv * pose_b.rotation();
    let rot = minkowski::math::Matrix3::from_quat(rel);
    let u = [rot.x_axis, rot.y_axis, rot.z_axis];
    let t = qa_inv * (pose_b.translation() - pose_a.translation());
    let mut out = BoxBoxManifold {
        normal: qa * Vector::Y,
        points: [ZERO_POINT; 4],
        len: 0,
    };
    let scale = half_a
        .max_element()
        .max(half_b.max_element())
        .max(t.abs().max_element());
    let prefer = AXIS_PREFERENCE * scale;
    // |R_ij| = |e_i · u_j|.
    let abs_r = [u[0].abs(), u[1].abs(), u[2].abs()];
    let rb_along = |l: Vector| -> Real {
        half_b.x * l.dot(u[0]).abs() + half_b.y * l.dot(u[1]).abs() + half_b.z * l.dot(u[2]).abs()
    };
    // Faces of A.
    let mut best_a = (Real::NEG_INFINITY, 0usize);
    for i in 0..3 {
        let rb = half_b.x * abs_r[0][i] + half_b.y * abs_r[1][i] + half_b.z * abs_r[2][i];
        let s = t[i].abs() - half_a[i] - rb;
        if s > margin || s.is_nan() {
            return Some(out);
        }
        if s > best_a.0 {
            best_a = (s, i);
        }
    }
    // Faces of B.
    let mut best_b = (Real::NEG_INFINITY, 0usize);
    for j in 0..3 {
        let ra = half_a.dot(abs_r[j]);
        let s = t.dot(u[j]).abs() - ra - half_b[j];
        if s > margin || s.is_nan() {
            return Some(out);
        }
        if s > best_b.0 {
            best_b = (s, j);
        }
    }
    let (face_s, mut axis) = if best_b.0 > best_a.0 + prefer {
        (best_b.0, Axis::FaceB(best_b.1))
    } else {
        (best_a.0, Axis::FaceA(best_a.1))
    };
    // Edge pairs.
    let mut best_e = (Real::NEG_INFINITY, Vector::ZERO, 0usize, 0usize);
    for i in 0..3 {
        for (j, uj) in u.iter().enumerate() {
            let mut e = Vector::ZERO;
            e[i] = 1.0;
            let c = e.cross(*uj);
            let len = c.length();
            if len < AXIS_PREFERENCE || len.is_nan() {
                continue;
            }
            let l = c / len;
            let ra = half_a.dot(l.abs());
            let s = t.dot(l).abs() - ra - rb_along(l);
            if s > margin || s.is_nan() {
                return Some(out);
            }
            if s > best_e.0 {
                best_e = (s, l, i, j);
            }
        }
    }
    let mut chosen = face_s;
    if best_e.0 > face_s + prefer {
        axis = Axis::Edge(best_e.2, best_e.3);
        chosen = best_e.0;
    }
    let apart = face_s.max(best_e.0) > 0.0;
    let reached = match axis {
        Axis::FaceA(i) => {
            let sign = if t[i] < 0.0 { -1.0 } else { 1.0 };
            let mut n = Vector::ZERO;
            n[i] = sign;
            // B seen from A: axes u, centre t.
            clip_faces(
                &mut out,
                Frame {
                    half: half_a,
                    face: i,
                    sign,
                    normal: n,
                },
                half_b,
                u,
                t,
                margin,
                scale,
                false,
            )
        }
        Axis::FaceB(j) => {
            // A seen from B: axes = rows of R, centre −Rᵀ t.
            let rt = rot.transpose();
            let ua = [rt.x_axis, rt.y_axis, rt.z_axis];
            let ta = -(rt * t);
            let sign = if ta[j] < 0.0 { -1.0 } else { 1.0 };
            let mut n = Vector::ZERO;
            n[j] = sign;
            let reached = clip_faces(
                &mut out,
                Frame {
                    half: half_b,
                    face: j,
                    sign,
                    normal: n,
                },
                half_a,
                ua,
                ta,
                margin,
                scale,
                true,
            );
            // Back to A's frame: x_A = R x_B + t; normal from A to B = −(R n).
            out.normal = -(rot * out.normal);
            for p in &mut out.points[..out.len] {
                p.point_a = rot * p.point_a + t;
                p.point_b = rot * p.point_b + t;
            }
            reached
        }
        Axis::Edge(i, j) => {
            let mut l = best_e.1;
            if t.dot(l) < 0.0 {
                l = -l;
            }
            edge_edge(&mut out, half_a, half_b, u, t, l, i, j, margin)
        }
    };
    // Apart, the closed form must have reached the nearest features: some point's gap
    // equals the chosen axis's (a face axis's gap is the distance when the faces
    // face each other; an edge axis's when the closest points are inside the edges).
    if apart {
        let nearest = out.points[..out.len]
            .iter()
            .map(|p| p.distance)
            .fold(Real::INFINITY, Real::min);
        if !reached || nearest > chosen + CLIP_SLACK * scale || nearest.is_nan() {
            return None;
        }
    }
    // A's frame to the world.
    out.normal = qa * out.normal;
    for p in &mut out.points[..out.len] {
        p.point_a = pose_a.transform_point(p.point_a);
        p.point_b = pose_a.transform_point(p.point_b);
    }
    Some(out)
}

/// The reference box in its own frame and its reference face.
struct Frame {
    half: Vector,
    /// Axis index of the face.
    face: usize,
    /// ±1: which of the two faces on that axis.
    sign: Real,
    /// Its outward unit normal (`sign · e_face`).
    normal: Vector,
}

/// A vertex of the clipped polygon: position, feature tag, and the line its outgoing
/// edge lies on (0–3 an incident edge, 4–7 a side plane).
#[derive(Clone, Copy)]
struct ClipVertex {
    x: Vector,
    tag: u32,
    line: u32,
}

/// Clips the incident face of the other box (half extents `half_i`, axes `ui`, centre
/// `ti`, all in the reference box's frame) to the reference face of `r` and writes the
/// kept points (in the reference frame; `flipped`: B is the reference box, so the
/// incident points are A's and the normal, left as the reference face's, is turned by
/// the caller). `false` when the clip is empty (the faces do not face each other).
#[allow(clippy::too_many_arguments)]
fn clip_faces(
    out: &mut BoxBoxManifold,
    r: Frame,
    half_i: Vector,
    ui: [Vector; 3],
    ti: Vector,
    margin: Real,
    scale: Real,
    flipped: bool,
) -> bool {
    // Incident face: the face of the other box most opposed to n.
    let mut k = 0;
    let mut best = -1.0;
    for (j, uj) in ui.iter().enumerate() {
        let d = uj.dot(r.normal).abs();
        if d > best {
            best = d;
            k = j;
        }
    }
    let k_sign = if ui[k].dot(r.normal) > 0.0 { -1.0 } else { 1.0 };
    let inc_face = (2 * k + usize::from(k_sign > 0.0)) as u32;
    let centre = ti + ui[k] * (k_sign * half_i[k]);
    let (p, q) = ((k + 1) % 3, (k + 2) % 3);
    let (dp, dq) = (ui[p] * half_i[p], ui[q] * half_i[q]);
    let mut poly = [ClipVertex {
        x: Vector::ZERO,
        tag: 0,
        line: 0,
    }; 8];
    let corners = [dp + dq, -dp + dq, -dp - dq, dp - dq];
    for (v, (c, tag)) in poly.iter_mut().zip(corners.iter().zip(0u32..)) {
        *v = ClipVertex {
            x: centre + *c,
            tag,
            line: tag,
        };
    }
    let mut len = 4;
    // Side planes: ±x_a ≤ h_a, ±x_b ≤ h_b for the two other axes of the reference box.
    let (a, b) = ((r.face + 1) % 3, (r.face + 2) % 3);
    let slack = CLIP_SLACK * scale;
    let planes = [(a, 1.0), (a, -1.0), (b, 1.0), (b, -1.0)];
    let mut next = poly;
    for (pi, &(axis, side)) in planes.iter().enumerate() {
        let limit = r.half[axis] + slack;
        let dist = |v: &ClipVertex| side * v.x[axis] - limit;
        let mut n_out = 0;
        for i in 0..len {
            let (v0, v1) = (poly[i], poly[(i + 1) % len]);
            let (d0, d1) = (dist(&v0), dist(&v1));
            let cut = |n_out: usize, next: &mut [ClipVertex; 8], line: u32| {
                let w = d0 / (d0 - d1);
                if n_out < next.len() {
                    next[n_out] = ClipVertex {
                        x: v0.x + (v1.x - v0.x) * w,
                        tag: 4 + 4 * v0.line + pi as u32,
                        line,
                    };
                }
            };
            if d0 <= 0.0 {
                if n_out < next.len() {
                    next[n_out] = v0;
                }
                n_out += 1;
                if d1 > 0.0 {
                    cut(n_out, &mut next, 4 + pi as u32);
                    n_out += 1;
                }
            } else if d1 <= 0.0 {
                cut(n_out, &mut next, v0.line);
                n_out += 1;
            }
        }
        len = n_out.min(8);
        poly = next;
        if len == 0 {
            return false;
        }
    }
    // Gaps along the reference normal; keep those within the margin.
    let h = r.half[r.face];
    let ref_face = (2 * r.face + usize::from(r.sign > 0.0)) as u32;
    let base = (ref_face << 24) | (u32::from(flipped) << 23) | (inc_face << 8);
    let mut kept = [ZERO_POINT; 8];
    let mut n_kept = 0;
    for v in &poly[..len] {
        let s = r.normal.dot(v.x) - h;
        if s > margin || s.is_nan() {
            continue;
        }
        // On the reference face: projected, and held inside its sides (the clip let
        // points out by the slack).
        let mut on_ref = v.x - r.normal * s;
        for axis in [a, b] {
            on_ref[axis] = on_ref[axis].clamp(-r.half[axis], r.half[axis]);
        }
        // Not flipped: A is the reference. Flipped: B is; the incident points are A's,
        // and the gap is measured along B's normal, which points towards A.
        kept[n_kept] = if flipped {
            ManifoldPoint {
                point_a: v.x,
                point_b: on_ref,
                distance: s,
                feature: base | v.tag,
            }
        } else {
            ManifoldPoint {
                point_a: on_ref,
                point_b: v.x,
                distance: s,
                feature: base | v.tag,
            }
        };
        n_kept += 1;
    }
    out.normal = r.normal;
    reduce(
        out,
        &kept[..n_kept],
        r.normal,
        AXIS_PREFERENCE * scale,
        scale,
    );
    true
}

/// Keeps at most four of `points` (module notes) and writes them to `out` deepest
/// first: the selection among more than four treats depths within `tie` (length) of
/// the deepest as equal, so that a resting face keeps the same four points; the order
/// of the kept ones treats only depths within rounding of the deepest as equal
/// (`SEPARATION_REL_TOLERANCE` of `scale`, as the library's manifold does).
fn reduce(out: &mut BoxBoxManifold, points: &[ManifoldPoint], n: Vector, tie: Real, scale: Real) {
    let mut kept = [ZERO_POINT; 4];
    let len = if points.len() > 4 {
        let (pick, len) = pick_order(points, n, tie, false);
        for (slot, &i) in kept.iter_mut().zip(&pick[..len]) {
            *slot = points[i];
        }
        len
    } else {
        kept[..points.len()].copy_from_slice(points);
        points.len()
    };
    let (order, len) = pick_order(&kept[..len], n, SEPARATION_REL_TOLERANCE * scale, true);
    for (slot, &i) in out.points.iter_mut().zip(&order[..len]) {
        *slot = kept[i];
    }
    out.len = len;
}

/// The area-maximising choice of up to four of `points` (indices, in the order chosen,
/// distinct): the deepest (among depths within `tie` of it, the smallest feature id),
/// the farthest from it, then the two that span the largest triangles with those on
/// either side of their line. With `all` (at most four points), the points the choice
/// left out (collinear ones) follow in their given order, so every point is kept.
fn pick_order(points: &[ManifoldPoint], n: Vector, tie: Real, all: bool) -> ([usize; 4], usize) {
    let mut seen = [usize::MAX; 4];
    if points.is_empty() {
        return (seen, 0);
    }
    let pos = |p: &ManifoldPoint| p.point_b;
    let mut pick = [0usize; 4];
    let mut deepest = 0;
    for (i, p) in points.iter().enumerate() {
        if p.distance < points[deepest].distance {
            deepest = i;
        }
    }
    pick[0] = deepest;
    for (i, p) in points.iter().enumerate() {
        if p.distance <= points[deepest].distance + tie && p.feature < points[pick[0]].feature {
            pick[0] = i;
        }
    }
    let p0 = pos(&points[pick[0]]);
    let mut far = -1.0;
    for (i, p) in points.iter().enumerate() {
        let d = (pos(p) - p0).length_squared();
        if d > far {
            far = d;
            pick[1] = i;
        }
    }
    let p1 = pos(&points[pick[1]]);
    let (mut hi, mut lo) = (Real::NEG_INFINITY, Real::INFINITY);
    for (i, p) in points.iter().enumerate() {
        let area = (p1 - p0).cross(pos(p) - p0).dot(n);
        if area > hi {
            hi = area;
            pick[2] = i;
        }
        if area < lo {
            lo = area;
            pick[3] = i;
        }
    }
    // `pick` may repeat an index when the points are collinear: keep distinct ones.
    let mut distinct = 0;
    for &i in &pick {
        if !seen[..distinct].contains(&i) {
            seen[distinct] = i;
            distinct += 1;
        }
    }
    if all {
        for i in 0..points.len().min(4) {
            if distinct < 4 && !seen[..distinct].contains(&i) {
                seen[distinct] = i;
                distinct += 1;
            }
        }
    }
    (seen, distinct)
}

/// The point pair of an edge axis `l` (unit, from A towards B) of A's edge direction `i`
/// and B's `j`, in A's frame; `false` when the closest points of the lines fall past an
/// edge's end (then they are not the boxes' closest points).
#[allow(clippy::too_many_arguments)]
fn edge_edge(
    out: &mut BoxBoxManifold,
    half_a: Vector,
    half_b: Vector,
    u: [Vector; 3],
    t: Vector,
    l: Vector,
    i: usize,
    j: usize,
    margin: Real,
) -> bool {
    // A's support edge along l: the corner coordinates on the other two axes.
    let mut ca = Vector::ZERO;
    let mut corner_a = 0u32;
    for (bit, k) in [(i + 1) % 3, (i + 2) % 3].into_iter().enumerate() {
        let s = if l[k] < 0.0 { -1.0 } else { 1.0 };
        ca[k] = s * half_a[k];
        corner_a |= u32::from(s > 0.0) << bit;
    }
    let mut da = Vector::ZERO;
    da[i] = 1.0;
    // B's support edge along −l.
    let mut cb = t;
    let mut corner_b = 0u32;
    for (bit, k) in [(j + 1) % 3, (j + 2) % 3].into_iter().enumerate() {
        let s = if u[k].dot(l) > 0.0 { -1.0 } else { 1.0 };
        cb += u[k] * (s * half_b[k]);
        corner_b |= u32::from(s > 0.0) << bit;
    }
    let db = u[j];
    // Closest points of the lines ca + σ da, cb + τ db (unit directions), clamped.
    let w = ca - cb;
    let c = da.dot(db);
    let (d, e) = (da.dot(w), db.dot(w));
    let den = 1.0 - c * c;
    // Parallel lines (den = 0) cannot be an edge axis; any σ is then as good.
    let sa = if den > 0.0 { (c * e - d) / den } else { 0.0 };
    let sb = e + c * sa;
    let inside = sa.abs() <= half_a[i] && sb.abs() <= half_b[j];
    let sa = sa.clamp(-half_a[i], half_a[i]);
    // Re-project B's parameter on the clamped point of A, then A's on B's.
    let sb = (e + c * sa).clamp(-half_b[j], half_b[j]);
    let sa = (c * sb - d).clamp(-half_a[i], half_a[i]);
    let pa = ca + da * sa;
    let pb = cb + db * sb;
    let s = l.dot(pb - pa);
    if s > margin || s.is_nan() {
        return inside;
    }
    out.normal = l;
    out.points[0] = ManifoldPoint {
        point_a: pa,
        point_b: pb,
        distance: s,
        feature: EDGE_EDGE | ((4 * i as u32 + corner_a) << 8) | (4 * j as u32 + corner_b),
    };
    out.len = 1;
    inside
}
