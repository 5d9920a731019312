//! Convex shapes against static geometry made of triangles — a
//! [`HeightField`](crate::shape::HeightField) or a triangle mesh, anything that is a
//! [`TriangleSet`] — without ghost collisions.
//!
//! Every query here takes the static geometry as A and the convex shape as B: normals
//! point from the geometry towards the shape, in the world frame.
//!
//! # One triangle
//!
//! The triangles near B (its box, loosened by the margin, in the set's frame) are each
//! a convex [`Triangle`] and go through the ordinary convex queries (closed forms, GJK,
//! EPA; a box is first tested on its 13 separating axes with the triangle, and a gap
//! above the margin skips the rest: `query/pair/box_triangle.rs`). Balls, capsules and
//! boxes are first measured against each candidate's corners alone, before the set builds
//! the triangle's edges (`Reach`, [`TriangleSet::triangles_in_where`]; balls and
//! capsules are also measured against a heightfield cell's box before its corners are
//! read, and against a mesh's tree nodes before the walk enters them; a heightfield
//! skips a ball's cells off its footprint before that, [`TriangleSet::corners_near`]);
//! a ball's contact and face contact are written out in closed form (one point, no
//! clipping), and an overlapping box's contact comes from the 13 separating axes in
//! closed form (`query/pair/box_triangle_contact.rs`) instead of GJK and EPA. What a single
//! triangle cannot know is its neighbours: a box sliding across a floor tiled into
//! triangles meets their inner edges, and GJK/EPA against one triangle
//! answers with that edge's normal — sideways, against the motion. That is the ghost
//! collision.
//!
//! # Active edges and the Gauss map
//!
//! The normals a surface really has at a point are its Gauss map there: the face's
//! normal inside a face; on an edge, the arc between the normals of the two faces that
//! meet there, when the crease is convex, and nothing more when it is flat or concave; at
//! a vertex, the spherical polygon of its faces' normals. So after each triangle's
//! contact:
//!
//! 1. The triangle's *feature* that the normal `n` belongs to is read off `n` itself: the
//!    face when `n` is within [`tolerance::ACTIVE_EDGE_ANGLE`] of the face normal, else
//!    the triangle's support feature along `n`'s tangential part (an edge when the
//!    edge between the highest corner and another lies within
//!    [`tolerance::FEATURE_TIE`] rad of square to it, else a vertex; on a sliver whose
//!    long edges both are, the corners within that part of its width along it).
//! 2. `n` is kept only when that feature may carry it: an *active* edge (a convex crease
//!    sharper than the angle, or a boundary; see [`crate::shape::triangle_set`]) with
//!    `n` inside its arc, or an active vertex, seen from the side B's centre is on (on a
//!    two-sided set, also from the other side when `n` points there: a shape nearly in
//!    the plane may touch the rim from the front with its centre behind). Otherwise `n`
//!    is replaced by the face's normal (the side B is on; always the outside for a
//!    one-sided set), and the distance is B's separation from the face's plane along
//!    it, from B's support point: exact for a shape resting on a face, whichever
//!    triangle's edge it also touches.
//!    A face contact is snapped to the exact face normal the same way.
//! 3. **Voided features** (the rule Jolt's "enhanced internal edge removal" uses, written
//!    here for any number of sets): a contact left on an edge or vertex whose corners are
//!    all corners of a triangle that gave a *face* contact in the same query — compared
//!    by position, so that it works across two adjacent heightfields or meshes, whose
//!    shared rim edges are each other's boundary and hence active — is snapped to its
//!    face normal too. A box straddling the seam of two flat fields then gets "up" from
//!    both.
//! 4. **Bumps.** A contact step 2 cannot snap (nothing of B over the face along its
//!    normal) is left to the neighbours. When it is deeper than every contact kept, a
//!    bump of the surface pokes into B's face beside B's lowest point, and the
//!    neighbours say too little: the deepest such triangle then stands with its face
//!    normal and the depth B must move along it to leave the triangle (`through_face`,
//!    a cast), when B overlaps that triangle from its front. Never on flat ground,
//!    where the face under B's lowest point is the deepest.
//!
//! Ruled out by measurement-free reasoning and kept for the note: pseudo-normals alone
//! (angle-weighted vertex normals) leave the edge of a flat tiling with a normal exactly
//! up only when the mesh is perfectly flat, and do nothing across two sets; and the
//! per-edge rule alone leaves the seam of two fields active.
//!
//! # Regions
//!
//! [`manifolds`] builds each remaining triangle contact's manifold (the triangle clipped
//! against B's support feature, [`mod@super::manifold`]) and merges the manifolds whose
//! normals are within [`tolerance::ACTIVE_EDGE_ANGLE`] of each other (faces no more
//! creased than an inactive edge) into one region, reduced to at most four points: a box
//! on a tiled floor gets one manifold of four points, a box across a convex ridge one per
//! side. A region's normal is always the geometry's (the contact's, after the rules), also
//! where the pair's manifold took B's face as its reference; a point merged into a region
//! keeps its point on B and is measured along the region's normal to its own triangle's
//! plane.
//!
//! # Buffers
//!
//! The contact and manifold queries keep their working lists (the triangles near B, their
//! contacts, the regions' points) in buffers of the calling thread, reused from one query
//! to the next: once grown, a query allocates only the `Vec` it returns.
//!
//! # Casts
//!
//! A linear cast runs [`super::cast_shapes`] against each triangle the swept box meets,
//! keeping the earliest hit. A hit whose normal its feature cannot carry takes the face
//! normal, and is dropped when B does not move into that face (a box sliding along a
//! floor "hits" the next triangle's inner edge at time 0; the face does not stop it).

use super::cast::{cast_shapes, check_max_toi, CastError, CastInput, CastStart, Motion, ShapeCast};
use super::context::ShapePair;
use super::dispatch::{self, QueryOptions};
use super::manifold::{self, Manifold, ManifoldPoint};
use super::pair::{box_triangle, box_triangle_contact, point_triangle, segment_triangle};
use super::{ClosestPoints, Contact, ContactMethod, QueryStatus};
use crate::bounding::Aabb;
use crate::math::{length_robust, normalize_robust, Matrix3, Point, Pose, Real, Vector, EPSILON};
use crate::shape::triangle_set::crease_is_active;
use crate::shape::{CoreShape, MeshTriangle, Shape, Triangle, TriangleSet};
use crate::support::SupportMap;
use crate::tolerance;
use std::ops::ControlFlow;

/// `FEATURE_TIE²`: a pair manifold's normal within `FEATURE_TIE` rad of the contact's
/// (cosine above `1 − FEATURE_TIE² / 2`) is the contact's.
const FEATURE_TIE_SQ: Real = tolerance::FEATURE_TIE * tolerance::FEATURE_TIE;

/// A triangle set placed in the world: the set and its pose (local to world).
pub type Placed<'a> = (&'a dyn TriangleSet, Pose);

/// The feature of a triangle that a contact normal belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriangleFeature {
    /// The face: the normal is the face's.
    Face,
    /// Edge `k`, from vertex `k` to vertex `(k + 1) % 3`.
    Edge(u8),
    /// Vertex `k`.
    Vertex(u8),
}

/// A convex shape's contact with one triangle of static geometry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TriangleContact {
    /// Which of the query's sets the triangle belongs to (0 for single-set queries).
    pub set: usize,
    /// The triangle's index in its set ([`MeshTriangle::index`]).
    pub triangle: u32,
    /// The triangle's feature that [`TriangleContact::contact`]'s normal belongs to, after
    /// the ghost-collision rules (see the module notes): [`TriangleFeature::Face`] for every
    /// normal that was snapped to the face.
    pub feature: TriangleFeature,
    /// The contact, A being the triangle and B the shape (world frame): signed distance,
    /// unit normal from the triangle towards the shape, witness points.
    pub contact: Contact,
}

/// A triangle contact with what the voiding pass and the manifolds need.
struct Item {
    out: TriangleContact,
    tri: MeshTriangle,
    pose: Pose,
    /// +1 when B is on the outside of the face, −1 behind it (two-sided sets only).
    side: Real,
    /// The triangle's manifold along the face normal, when the contact was snapped to it
    /// (already clipped: [`manifolds`] reuses it).
    manifold: Option<Manifold>,
    /// A one-sided set's rejected contact whose normal points into the solid
    /// ([`into_solid`]): if it is the last resort of [`items`], [`on_plane`] stands in
    /// for it, and its manifold is that contact's one point, which lies on the triangle
    /// already (not filtered again by [`over_triangle`], whose tie could drop a point on
    /// an edge).
    into_solid: bool,
}

/// The triangle as a convex shape (`None` for corners the shape checks reject, which a
/// validated set never has).
fn triangle_shape(t: &MeshTriangle) -> Option<Shape> {
    let [a, b, c] = t.vertices;
    Triangle::new(a, b, c).ok().map(Shape::from)
}

/// Whether the shape (centre `centre`, set frame) is behind `t`'s face: the side of the
/// plane its centre is on, or, with the centre on the plane, the side the contact normal
/// `n` points to. (The normal's own sign is no guide for a contact on an edge: its normal
/// lies almost in the plane, and rounding picks the side.)
fn is_behind(t: &MeshTriangle, centre: Point, n: Vector) -> bool {
    let lean = (centre - t.vertices[0]).dot(t.normal);
    if lean.is_nan() || lean == 0.0 {
        n.dot(t.normal) < 0.0
    } else {
        lean < 0.0
    }
}

/// Whether a rejected contact of a one-sided set, with unit normal `n` (set frame, from
/// `t` towards B), points into the solid behind `t`'s face: B is `behind` the face or
/// `n` points to its back, and the feature `n` leaves from is the face or one inside the
/// surface. Past a boundary edge, or a vertex on one of this triangle's boundary edges,
/// there is no solid (a shape beside the rim of a field, or of a hole in it, below the
/// surface's level): that contact stands as it is. (A rim vertex whose edges in this
/// triangle are both inside counts as inside: the stand-in's ray then usually misses
/// B, and the contact stands too.)
fn into_solid(t: &MeshTriangle, n: Vector, behind: bool) -> bool {
    if !behind && n.dot(t.normal) >= 0.0 {
        return false;
    }
    let open = |k: u8| t.edges[k as usize % 3].neighbour_normal.is_none();
    match classify(t, n) {
        TriangleFeature::Face => true,
        TriangleFeature::Edge(k) => !open(k),
        TriangleFeature::Vertex(k) => !open(k) && !open(k + 2),
    }
}

/// The feature of `t` that the unit normal `n` (set frame) belongs to (module notes, 1).
fn classify(t: &MeshTriangle, n: Vector) -> TriangleFeature {
    let tangent = n - t.normal * n.dot(t.normal);
    let len = tangent.length();
    if len.is_nan() || len <= tolerance::ACTIVE_EDGE_ANGLE {
        return TriangleFeature::Face;
    }
    let d = tangent / len;
    let v = t.vertices;
    let h = [v[0].dot(d), v[1].dot(d), v[2].dot(d)];
    // The corner highest along `d`, and which others tie with it: those whose edge to it
    // lies within `FEATURE_TIE` rad of square to `d` (its drop along `d` at most that
    // part of its length). An angle, not a part of the triangle's size: a short edge of a
    // long sliver is held to the same direction as a long one, and a sliver's normal
    // across it is its rim's, never its face's.
    let top = if h[0] >= h[1] && h[0] >= h[2] {
        0
    } else if h[1] >= h[2] {
        1
    } else {
        2
    };
    let ties = |k: usize| {
        let e = v[k] - v[top];
        let l = e.length();
        // (A tiny triangle's squared edges underflow.)
        let l = if l < tolerance::RESCALE_BELOW {
            length_robust(e)
        } else {
            l
        };
        k == top || h[top] - h[k] <= tolerance::FEATURE_TIE * l
    };
    let near = [ties(0), ties(1), ties(2)];
    // All three tie: a sliver whose long edges are both within the angle of square to
    // `d`. `n` is far from the face normal, so the contact is on the rim, never the face:
    // the tie is then a part of the sliver's width along `d`.
    let near = if near == [true, true, true] {
        let tie = tolerance::FEATURE_TIE * (h[top] - h[0].min(h[1]).min(h[2]));
        [
            h[0] >= h[top] - tie,
            h[1] >= h[top] - tie,
            h[2] >= h[top] - tie,
        ]
    } else {
        near
    };
    match near {
        [true, true, true] => TriangleFeature::Face,
        [true, true, false] => TriangleFeature::Edge(0),
        [false, true, true] => TriangleFeature::Edge(1),
        [true, false, true] => TriangleFeature::Edge(2),
        [true, false, false] => TriangleFeature::Vertex(0),
        [false, true, false] => TriangleFeature::Vertex(1),
        _ => TriangleFeature::Vertex(2),
    }
}

/// Whether edge `k` of `t` is active seen from the outside (`front`) or from behind (a
/// two-sided set): from behind, a crease that is concave from the front is convex.
fn edge_active(t: &MeshTriangle, k: usize, front: bool) -> bool {
    let e = &t.edges[k];
    if front {
        return e.active;
    }
    match e.neighbour_normal {
        None => true,
        Some(m) => {
            let edge = t.vertices[(k + 1) % 3] - t.vertices[k];
            crease_is_active(-t.normal, -m, -edge)
        }
    }
}

/// Whether the surface can have the unit normal `n` (set frame) at `feature` of `t`,
/// on the side `front` (module notes, 2). The face itself answers false: its contacts are
/// snapped to the exact face normal.
fn allowed(
    set: &dyn TriangleSet,
    t: &MeshTriangle,
    feature: TriangleFeature,
    n: Vector,
    front: bool,
) -> bool {
    match feature {
        TriangleFeature::Face => false,
        TriangleFeature::Edge(k) => {
            let k = k as usize;
            if !edge_active(t, k, front) {
                return false;
            }
            // Inside the arc from the face's normal to the neighbour's (or, on the
            // boundary, to the edge's outward direction in the face's plane: the wall
            // of a one-sided solid), on the side the shape is on.
            let s = if front { 1.0 } else { -1.0 };
            in_arc(n, t.normal * s, across(t, k, s))
        }
        TriangleFeature::Vertex(k) => {
            let k = k as usize;
            let active = if front {
                set.vertex_active(t, k)
            } else {
                edge_active(t, k, false) || edge_active(t, (k + 2) % 3, false)
            };
            active && in_vertex_cone(t, k, n, front)
        }
    }
}

/// Whether `feature` of `t` carries the unit normal `n` (set frame) under rule 2 of the
/// module notes (never for the face itself, whose contacts are snapped): seen from the
/// side B's centre is on (`side`, ±1), or, on a two-sided set, from the other side when
/// `n` points there. A shape whose centre lies a little behind the plane may still touch
/// the rim from the front — a segment lying nearly in the plane of an open mesh,
/// against its boundary edge — and that normal is on the rim's arc from the front, not
/// from behind. (The contact keeps the centre's side, which the voiding pass reads: one
/// query never snaps a sheet's contacts to both of its faces.)
fn carries(
    set: &dyn TriangleSet,
    t: &MeshTriangle,
    feature: TriangleFeature,
    n: Vector,
    side: Real,
) -> bool {
    if feature == TriangleFeature::Face {
        return false;
    }
    if allowed(set, t, feature, n, side > 0.0) {
        return true;
    }
    let other_side = n.dot(t.normal) * side < 0.0;
    !set.one_sided() && other_side && allowed(set, t, feature, n, side < 0.0)
}

/// The normal across edge `k` of `t` on side `s` (±1): the neighbour's, or on the
/// boundary the edge's outward direction in the face's plane (`e × n`).
fn across(t: &MeshTriangle, k: usize, s: Real) -> Vector {
    match t.edges[k].neighbour_normal {
        Some(m) => m * s,
        None => {
            let e = t.vertices[(k + 1) % 3] - t.vertices[k];
            normalize_robust(e.cross(t.normal)).unwrap_or(Vector::ZERO)
        }
    }
}

/// Whether the unit `n` lies on the shorter great-circle arc from `a` to `b` (within
/// [`tolerance::FEATURE_TIE`]); for `a = b`, whether it is `a`.
fn in_arc(n: Vector, a: Vector, b: Vector) -> bool {
    let tie = tolerance::FEATURE_TIE;
    let axis = a.cross(b);
    let len = axis.length();
    if len.is_nan() || len <= tie {
        return n.dot(a) >= 1.0 - tie * tie;
    }
    let axis = axis / len;
    n.dot(axis).abs() <= tie && a.cross(n).dot(axis) >= -tie && n.cross(b).dot(axis) >= -tie
}

/// Whether `n` lies in the cone of the normals that `t` knows around its vertex `k`:
/// its own and those across the two edges through `k` (a neighbour's, or a boundary
/// edge's outward direction: see [`across`]), on the shape's side. That is a subset of
/// the vertex's Gauss map, so a normal it rejects goes to a face; none is a ghost.
fn in_vertex_cone(t: &MeshTriangle, k: usize, n: Vector, front: bool) -> bool {
    let s = if front { 1.0 } else { -1.0 };
    let (a, b, c) = (t.normal * s, across(t, k, s), across(t, (k + 2) % 3, s));
    let tie = tolerance::FEATURE_TIE;
    let det = a.dot(b.cross(c));
    if det.abs() > tie * tie {
        // n = α a + β b + γ c with every weight ≥ 0 (Cramer's rule).
        let w = [n.dot(b.cross(c)), n.dot(c.cross(a)), n.dot(a.cross(b))];
        return w.iter().all(|&x| x / det >= -tie);
    }
    // Coplanar normals (a vertex on a straight crease): the arc between the two that
    // differ most.
    let pairs = [(a, b), (b, c), (c, a)];
    let (p, q) = pairs
        .into_iter()
        .min_by(|x, y| x.0.dot(x.1).total_cmp(&y.0.dot(y.1)))
        .unwrap_or((a, b));
    // The arc's orientation does not matter: test both ways.
    in_arc(n, p, q) || in_arc(n, q, p)
}

/// B's contact with the face of `t` along the face normal on `side` (module notes, 2):
/// B's support feature facing the face, clipped to the triangle (the manifold of the
/// pair along that normal), its deepest point. `None` when nothing of B within `margin`
/// lies over the triangle: the contact then belongs to the neighbours.
#[allow(clippy::too_many_arguments)] // the triangle, its placement, the shape's
fn face_contact(
    t: &MeshTriangle,
    tri: &Shape,
    pose_t: &Pose,
    side: Real,
    b: &Shape,
    pose_b: &Pose,
    c: &Contact,
    margin: Real,
) -> Option<(Contact, Manifold)> {
    let along = along_face(t, pose_t, side, |n| support_along(b, pose_b, -n), c);
    if along.distance.is_nan() || along.distance > margin {
        return None;
    }
    let m = manifold::from_contact(tri, pose_t, b, pose_b, &along, margin);
    let p = m
        .points()
        .iter()
        .filter(|p| over_triangle(t, pose_t, p.point_a))
        .min_by(|x, y| x.distance.total_cmp(&y.distance))?;
    let contact = Contact {
        distance: p.distance,
        lower_bound: p.distance,
        upper_bound: p.distance,
        point_a: p.point_a,
        point_b: p.point_b,
        ..along
    };
    Some((contact, m))
}

/// B's contact with the plane of `t`'s face on `side` (unit normal `n`, world frame): B's
/// support point `support(n)` (world frame) against the plane, `distance` its signed
/// height above it along `n`, `point_a` its foot on the plane, over the triangle or not;
/// status and method from `c`.
fn along_face(
    t: &MeshTriangle,
    pose_t: &Pose,
    side: Real,
    support: impl FnOnce(Vector) -> Point,
    c: &Contact,
) -> Contact {
    let n = pose_t.transform_vector(t.normal * side);
    let pb = support(n);
    let plane = pose_t.transform_point(t.vertices[0]).dot(n);
    at_height(n, pb, pb.dot(n) - plane, c)
}

/// The exact contact of B's point `pb` at signed height `d` along the unit normal `n`
/// (world frame) above the geometry: its foot `pb − n d` on the geometry; status and
/// method from `c`.
fn at_height(n: Vector, pb: Point, d: Real, c: &Contact) -> Contact {
    Contact {
        distance: d,
        lower_bound: d,
        upper_bound: d,
        normal: n,
        point_a: pb - n * d,
        point_b: pb,
        ..*c
    }
}

/// B's support point along the world direction `d` (world frame).
fn support_along(b: &Shape, pose_b: &Pose, d: Vector) -> Point {
    pose_b.transform_point(b.local_support(pose_b.inverse_transform_vector(d)))
}

/// What stands in for a one-sided set's rejected contact `c` with `t` (at `pose_t`)
/// whose normal points into the solid ([`into_solid`]), when no triangle keeps a
/// contact: the contact along `t`'s outward face normal `n` at the pair's point on the
/// triangle (`c.point_a`), that is B's lowest point on the line through it along `n` (a
/// ray cast up that line from below B) and its signed height above the face. `None`
/// when that line misses B or meets it above `margin` (the pair's witness on the
/// triangle is not inside B): `c` then stays as it is (B's lowest point against the
/// face's plane would have its foot off the triangle, off the surface).
fn on_plane(
    t: &MeshTriangle,
    pose_t: &Pose,
    (b, pose_b): (&Shape, &Pose),
    c: &Contact,
    margin: Real,
) -> Option<Contact> {
    let n = pose_t.transform_vector(t.normal);
    let pa = c.point_a;
    let low = support_along(b, pose_b, -n).dot(n);
    let extent = support_along(b, pose_b, n).dot(n) - low;
    // From one extent of B below its lowest point up to one extent above its top.
    let below = pa.dot(n) - low + extent;
    let ray = super::Ray::new(pa - n * below, n);
    let options = super::RayOptions {
        max_toi: 3.0 * extent,
        solid: true,
    };
    let hit = match super::cast_ray(b, pose_b, &ray, &options) {
        Ok(super::RayCast { hit: Some(hit), .. }) if !hit.inside => hit,
        _ => return None,
    };
    let d = (hit.point - pa).dot(n);
    if d.is_nan() || d > margin {
        return None;
    }
    Some(at_height(n, hit.point, d, c))
}

/// B's contact with `t` (at `pose_t`, B on its front) along the face's outward normal
/// `n`: how far B must move along `n` to be apart from the triangle, as a contact of
/// that depth along `n` (B's point that leaves the triangle last, and its foot on the
/// triangle); status and method from `c`. Worked out as a cast: B set back along `n`
/// past the triangle's plane by its own extent, where they are apart, and cast along
/// `−n` into contact: when B overlaps the triangle, that first touch is the top of the
/// one interval of heights along `n` at which they overlap. (When B does not overlap the
/// triangle, the cast may still touch it on the way down: the caller asks only for a
/// contact that overlaps.) `None` when B is not below the face's plane, the cast misses
/// or its distance is above `margin`.
fn through_face(
    t: &MeshTriangle,
    pose_t: &Pose,
    (b, pose_b): (&Shape, &Pose),
    c: &Contact,
    margin: Real,
    options: &QueryOptions,
) -> Option<Contact> {
    let tri = triangle_shape(t)?;
    let n = pose_t.transform_vector(t.normal);
    let plane = pose_t.transform_point(t.vertices[0]).dot(n);
    let below = plane - support_along(b, pose_b, -n).dot(n);
    if below.is_nan() || below <= 0.0 {
        return None;
    }
    let reach = 2.0 * below;
    let start = pose_b.translated(n * reach).ok()?;
    let mut input = CastInput::new(
        ShapePair::new(&tri, *pose_t, b, start),
        Motion::ZERO,
        Motion::linear(-n),
    );
    input.max_toi = reach;
    let hit = cast_shapes(&input, options).ok().filter(|h| h.hit)?;
    let d = hit.toi - reach;
    if d.is_nan() || d > margin {
        return None;
    }
    let back = n * (reach - hit.toi);
    Some(at_height(n, hit.point_b - back, d, c))
}

/// B as a ball: its centre (world frame) and radius, when its core is a point (a
/// [`crate::shape::Sphere`], or any shape rounded about a point).
fn as_ball(b: &Shape, pose_b: &Pose) -> Option<(Point, Real)> {
    match b.core() {
        (CoreShape::Point(p), r) => Some((pose_b.transform_point(p.point()), r)),
        _ => None,
    }
}

/// The contact of triangle `t` (A, at `pose_t`) with the ball `b` (a point core, at
/// `pose_b`): the dispatcher's answer for the pair (its closed form
/// [`point_triangle::contact`] in the triangle's frame, its touching floor, its status),
/// without building the triangle as a shape. `None` when the dispatcher would rescale
/// the problem first (B within [`tolerance::RESCALE_BELOW`] of the set's origin) or the
/// triangle has no plane: the dispatcher then answers.
fn ball_contact(
    t: &MeshTriangle,
    pose_t: &Pose,
    b: &Shape,
    pose_b: &Pose,
    options: &QueryOptions,
) -> Option<Contact> {
    let (CoreShape::Point(p), r) = b.core() else {
        return None;
    };
    let rel = pose_t.inv_mul(pose_b);
    let offset = rel.translation().abs().max_element();
    if offset.is_nan() || offset < tolerance::RESCALE_BELOW {
        return None;
    }
    let [a, bv, cv] = t.vertices;
    let k = point_triangle::contact(a, bv, cv, rel.transform_point(p.point()), r)?;
    let reach_b = {
        let x = b.local_aabb();
        x.mins.abs().max(x.maxs.abs()).max_element()
    };
    let reach_t = a.abs().max(bv.abs()).max(cv.abs()).max_element();
    let floor = tolerance::touch_floor(options.gjk.touch_tolerance(), offset + reach_t + reach_b);
    let distance = tolerance::touching_as_zero(k.distance, floor);
    Some(Contact {
        distance,
        lower_bound: distance,
        upper_bound: distance,
        normal: pose_t.transform_vector(k.normal),
        point_a: pose_t.transform_point(k.point_a),
        point_b: pose_t.transform_point(k.point_b),
        status: QueryStatus::Converged,
        method: ContactMethod::Analytic,
        iterations: 0,
    })
}

/// The contact of triangle `t` (A, at `pose_t`) with the box `b` (a cuboid without
/// rounding, at `pose_b`) when they overlap or touch: the separating-axis closed form
/// ([`box_triangle_contact::contact`], in the box's frame) in place of the dispatcher's
/// GJK and EPA, with the dispatcher's touching floor. `None` for any other shape, when an
/// axis separates the two (GJK then measures the distance), when the triangle has no
/// plane, or when the dispatcher would rescale the problem first (its size below
/// [`tolerance::RESCALE_BELOW`]): the dispatcher then answers.
fn box_contact(
    t: &MeshTriangle,
    pose_t: &Pose,
    b: &Shape,
    pose_b: &Pose,
    options: &QueryOptions,
) -> Option<Contact> {
    let (CoreShape::Cuboid(x), rounding) = b.core() else {
        return None;
    };
    if rounding != 0.0 {
        return None;
    }
    let h = x.half_extents();
    let rel = pose_b.inv_mul(pose_t);
    let tri = t.vertices.map(|v| rel.transform_point(v));
    let size = tri[0]
        .abs()
        .max(tri[1].abs())
        .max(tri[2].abs())
        .max(h)
        .max_element();
    if size.is_nan() || size < tolerance::RESCALE_BELOW {
        return None;
    }
    let k = box_triangle_contact::contact(h, tri)?;
    // The dispatcher's floor for the pair: the scale of the problem in A's frame.
    let reach_t = t
        .vertices
        .iter()
        .fold(0.0 as Real, |m, v| m.max(v.abs().max_element()));
    let offset = pose_t.inv_mul(pose_b).translation().abs().max_element();
    let floor = tolerance::touch_floor(
        options.gjk.touch_tolerance(),
        offset + reach_t + h.max_element(),
    );
    let distance = tolerance::touching_as_zero(k.distance, floor);
    // Back to the triangle as A: the normal reversed, the witnesses swapped.
    Some(Contact {
        distance,
        lower_bound: distance,
        upper_bound: distance,
        normal: pose_b.transform_vector(-k.normal),
        point_a: pose_b.transform_point(k.point_b),
        point_b: pose_b.transform_point(k.point_a),
        status: QueryStatus::Converged,
        method: ContactMethod::Sat,
        iterations: 0,
    })
}

/// [`face_contact`] for a ball (centre `c`, world frame, and radius `r`): its support
/// point along the face's inward normal is `c − r n`, and its manifold along `n` is that
/// one point, so the manifold machinery is skipped. The same contact: B's support point,
/// its distance to the face's plane, `None` when it is farther than `margin` or its foot
/// is not over the triangle.
fn ball_face_contact(
    t: &MeshTriangle,
    pose_t: &Pose,
    side: Real,
    (centre, r): (Point, Real),
    c: &Contact,
    margin: Real,
) -> Option<(Contact, Manifold)> {
    let contact = along_face(t, pose_t, side, |n| centre - n * r, c);
    let d = contact.distance;
    if d.is_nan() || d > margin || !over_triangle(t, pose_t, contact.point_a) {
        return None;
    }
    Some((contact, Manifold::single(&contact)))
}

/// A pre-test of B against a triangle from its corners alone (the set's frame), run
/// before the set builds the triangle ([`TriangleSet::triangles_in_where`]): most
/// triangles in B's box are farther from B than the margin, and building each one's
/// edges (their neighbours and activity) cost more than its contact. Each test is exact
/// up to a rounding allowance, so a triangle it rejects is one whose contact would be
/// farther than the margin: the answers are unchanged.
///
/// - a ball (point core, radius `r`): the distance from its centre to the triangle's
///   closest point ([`point_triangle::closest_point`]) against `r + margin`;
/// - a capsule (segment core): the distance between the segment and the triangle
///   ([`segment_triangle::closest_points`]) against `r + margin`;
/// - a box (or a rounded one): the 13 separating axes ([`box_triangle::separation`],
///   as [`box_apart`]) against the margin and its rounding;
/// - any other shape: no pre-test (`Reach::new` is `None`).
///
/// The allowance covers the contact's touching floor (a gap under it is reported as
/// touching) and the rounding of moving B into the set's frame: a NaN passes.
enum Reach {
    /// A ball's centre (set frame), its radius, the margin and the touching floor's
    /// relative size.
    Ball {
        centre: Point,
        radius: Real,
        margin: Real,
        tau: Real,
    },
    /// A capsule's core (set frame), its radius, the margin and the touching floor's
    /// relative size.
    Capsule {
        p: Point,
        q: Point,
        radius: Real,
        margin: Real,
        tau: Real,
    },
    /// A box: the set's frame to the box's (a rotation matrix and a translation: nine
    /// products a corner, against a quaternion's two cross products), the half extents,
    /// the box's margin, the query's margin and the scale of the two poses'
    /// translations.
    Box {
        to_box: (Matrix3, Vector),
        half: Vector,
        rounding: Real,
        margin: Real,
        poses: Real,
    },
}

impl Reach {
    /// The pre-test of `b` at `pose_b` against a set at `pose_s` with `margin` (≥ 0);
    /// `None` for a shape with no pre-test.
    fn new(
        b: &Shape,
        pose_b: &Pose,
        pose_s: &Pose,
        margin: Real,
        options: &QueryOptions,
    ) -> Option<Reach> {
        let rel = pose_s.inv_mul(pose_b);
        let tau = options.gjk.touch_tolerance() + tolerance::SLACK * 16.0 * EPSILON;
        match b.core() {
            (CoreShape::Point(p), radius) => Some(Reach::Ball {
                centre: rel.transform_point(p.point()),
                radius,
                margin,
                tau,
            }),
            (CoreShape::Segment(s), radius) => Some(Reach::Capsule {
                p: rel.transform_point(s.a()),
                q: rel.transform_point(s.b()),
                radius,
                margin,
                tau,
            }),
            (CoreShape::Cuboid(x), rounding) => Some(Reach::Box {
                to_box: {
                    let p = pose_b.inv_mul(pose_s);
                    (Matrix3::from_quat(p.rotation()), p.translation())
                },
                half: x.half_extents(),
                rounding,
                margin,
                poses: pose_b
                    .translation()
                    .abs()
                    .max(pose_s.translation().abs())
                    .max_element(),
            }),
            _ => None,
        }
    }

    /// Whether B may come within the margin of anything inside the box `b` (set frame):
    /// `false` only when it surely does not. The first test of [`Reach::may_touch`] on
    /// the box instead of a triangle's box (anything inside is no nearer than the box,
    /// and the allowance is no smaller: the box's corners are at least as far out as the
    /// triangles' inside); a box shape is not tested here (its query box already was).
    fn may_touch_box(&self, b: &Aabb) -> bool {
        let corners = b.mins.abs().max(b.maxs.abs()).max_element();
        let (lo, hi, radius, margin, tau, scale) = match *self {
            Reach::Ball {
                centre,
                radius,
                margin,
                tau,
            } => (
                centre,
                centre,
                radius,
                margin,
                tau,
                centre.abs().max_element(),
            ),
            Reach::Capsule {
                p,
                q,
                radius,
                margin,
                tau,
            } => (
                p.min(q),
                p.max(q),
                radius,
                margin,
                tau,
                p.abs().max(q.abs()).max_element(),
            ),
            Reach::Box { .. } => return true,
        };
        let reach = radius + margin + tau * (scale + corners + radius);
        let out = (b.mins - hi).max(lo - b.maxs).max(Vector::ZERO);
        // (NaN: not greater, kept. A tiny reach's square rounds too coarsely: kept.)
        out.length_squared() <= reach * reach
            || out.length_squared().is_nan()
            || reach < tolerance::RESCALE_BELOW
    }

    /// Whether B may come within the margin of the triangle with corners `v` (set
    /// frame): `false` only when it surely does not.
    fn may_touch(&self, v: &[Point; 3]) -> bool {
        let [a, b, c] = *v;
        let corners = a.abs().max(b.abs()).max(c.abs()).max_element();
        match *self {
            Reach::Ball {
                centre,
                radius,
                margin,
                tau,
            } => ball_closest(centre, radius, margin, tau, v).is_some(),
            Reach::Capsule {
                p,
                q,
                radius,
                margin,
                tau,
            } => {
                let scale = p.abs().max(q.abs()).max_element() + corners + radius;
                let reach = radius + margin + tau * scale;
                // The two boxes first (the segment's and the triangle's), as for a ball.
                if scale < tolerance::RESCALE_BELOW {
                    // As for a ball (`ball_closest`): kept, the dispatcher decides.
                    return true;
                }
                let out = (a.min(b).min(c) - p.max(q))
                    .max(p.min(q) - a.max(b).max(c))
                    .max(Vector::ZERO);
                if out.length_squared() > reach * reach {
                    return false;
                }
                let (s, t) = segment_triangle::closest_points(p, q, a, b, c);
                let gap = (s - t).length() - radius;
                gap.is_nan() || gap <= margin + tau * scale
            }
            Reach::Box {
                to_box,
                half,
                rounding,
                margin,
                poses,
            } => {
                // `box_apart`'s test, term for term.
                let (rot, shift) = to_box;
                let [p, q, r] = v.map(|x| rot * x + shift);
                let scale = p
                    .abs()
                    .max(q.abs())
                    .max(r.abs())
                    .max(half)
                    .max_element()
                    .max(poses);
                let slack = margin + rounding + tolerance::SLACK * 16.0 * EPSILON * scale;
                // The box's three face axes first (the boxes of the two), the first of
                // the separation's axes and most often the one that separates.
                let faces = (p.min(q).min(r) - half).max(-half - p.max(q).max(r));
                if faces.max_element() > slack {
                    return false;
                }
                if scale < tolerance::RESCALE_BELOW {
                    // The cross axes' lengths underflow: kept, the dispatcher decides.
                    return true;
                }
                let gap = box_triangle::separation(half, p, q, r);
                gap.is_nan() || gap <= slack
            }
        }
    }
}

/// The ball's pre-test ([`Reach`]) against the triangle with corners `v` (set frame):
/// `None` when the ball (centre `centre`, set frame, radius `radius`) is surely farther
/// than `margin` from it, else the triangle's closest point to the centre
/// ([`point_triangle::closest_point`]; a NaN distance passes), which the contact then
/// reuses.
fn ball_closest(
    centre: Point,
    radius: Real,
    margin: Real,
    tau: Real,
    v: &[Point; 3],
) -> Option<Point> {
    let [a, b, c] = *v;
    let corners = a.abs().max(b.abs()).max(c.abs()).max_element();
    let scale = centre.abs().max_element() + corners + radius;
    let reach = radius + margin + tau * scale;
    // The triangle's box first: no farther than the triangle itself, and a few
    // comparisons against the closest point's dozens of products.
    let out = (a.min(b).min(c) - centre)
        .max(centre - a.max(b).max(c))
        .max(Vector::ZERO);
    let tiny = scale < tolerance::RESCALE_BELOW;
    if !tiny && out.length_squared() > reach * reach {
        return None;
    }
    let q = point_triangle::closest_point(centre, a, b, c);
    if tiny {
        // The squared lengths of a tiny problem underflow, or round too coarsely to
        // reject on: the triangle is kept, and its contact is the dispatcher's, which
        // rescales.
        return Some(q);
    }
    let gap = (centre - q).length() - radius;
    (gap.is_nan() || gap <= margin + tau * scale).then_some(q)
}

/// Whether the world point `p` lies over triangle `t` (at `pose_t`): its projection
/// on the triangle's plane is inside, up to [`tolerance::FEATURE_TIE`] of the size.
fn over_triangle(t: &MeshTriangle, pose_t: &Pose, p: Point) -> bool {
    let q = pose_t.inverse_transform_point(p);
    let [a, b, c] = t.vertices;
    // The weights below are fourth powers of lengths, which underflow for a triangle
    // of 1e-10 in `f32`: a tiny triangle is measured in units of its size (a power of
    // two, exact).
    let m = (b - a).abs().max((c - a).abs()).max_element();
    let [a, b, c, q] = match tolerance::rescale_factor(m) {
        Some(s) => [a * s, b * s, c * s, q * s],
        None => [a, b, c, q],
    };
    let n = (b - a).cross(c - a);
    let nn = n.length_squared();
    if nn.is_nan() || nn <= 0.0 {
        return false;
    }
    let tie = -tolerance::FEATURE_TIE;
    let w = [
        (c - b).cross(q - b).dot(n) / nn,
        (a - c).cross(q - c).dot(n) / nn,
        (b - a).cross(q - a).dot(n) / nn,
    ];
    w.iter().all(|&x| x >= tie)
}

/// B's contact with triangle `t` of a set at `pose_t`, after the per-triangle rules;
/// `None` when farther than `margin`. A contact snapped to the face leaves its clipped
/// manifold in `snapped` (untouched otherwise).
/// `pretested`: the triangle passed [`Reach::may_touch`], which for a box is the same
/// separating-axis test as [`box_apart`].
#[allow(clippy::too_many_arguments)] // the triangle, its placement, the shape's, the slot
fn triangle_contact(
    set: &dyn TriangleSet,
    t: &MeshTriangle,
    pose_t: &Pose,
    (b, pose_b): (&Shape, &Pose),
    margin: Real,
    options: &QueryOptions,
    pretested: bool,
    snapped: &mut Option<Manifold>,
) -> Outcome {
    if !pretested && box_apart(t, pose_t, b, pose_b, margin) {
        return Outcome::Apart;
    }
    let one_sided = set.one_sided();
    let ball = as_ball(b, pose_b);
    let closed = match ball {
        Some(_) => ball_contact(t, pose_t, b, pose_b, options),
        None => box_contact(t, pose_t, b, pose_b, options),
    };
    let c = match closed {
        Some(c) => c,
        None => {
            let Some(tri) = triangle_shape(t) else {
                return Outcome::Apart;
            };
            dispatch::contact_with(&tri, pose_t, b, pose_b, options, None)
        }
    };
    if c.distance.is_nan() || c.distance > margin {
        return Outcome::Apart;
    }
    let n = pose_t.inverse_transform_vector(c.normal);
    let centre = pose_t.inverse_transform_point(pose_b.transform_point(b.local_center()));
    let behind = is_behind(t, centre, n);
    let side = if behind && !one_sided { -1.0 } else { 1.0 };
    let feature = if behind && one_sided {
        // A one-sided surface pushes whatever is behind it out through the front.
        TriangleFeature::Face
    } else {
        classify(t, n)
    };
    if carries(set, t, feature, n, side) {
        return Outcome::Kept(c, feature, side);
    }
    let face = match ball {
        Some(ball) => ball_face_contact(t, pose_t, side, ball, &c, margin),
        None => {
            let Some(tri) = triangle_shape(t) else {
                return Outcome::Rejected(c, feature, side, false);
            };
            face_contact(t, &tri, pose_t, side, b, pose_b, &c, margin)
        }
    };
    match face {
        Some((f, m)) => {
            *snapped = Some(m);
            Outcome::Kept(f, TriangleFeature::Face, side)
        }
        None => Outcome::Rejected(c, feature, side, one_sided && into_solid(t, n, behind)),
    }
}

/// What one triangle's contact came to.
enum Outcome {
    /// Farther apart than the margin.
    Apart,
    /// A contact after the rules (its feature and the side; the clipped manifold of a
    /// contact snapped to its face is left in the caller's slot).
    Kept(Contact, TriangleFeature, Real),
    /// A contact whose normal its feature cannot carry and with nothing of B over the
    /// face: left to the neighbours — unless no triangle keeps any contact (see
    /// `items`). The last field: a one-sided set's contact whose normal points into the
    /// solid ([`into_solid`]; [`on_plane`] then stands in for it).
    Rejected(Contact, TriangleFeature, Real, bool),
    /// A ball's contact on an edge or a vertex in the first pass of [`ball_items`], decided
    /// in the second, once the face contacts are known: what the first pass found of it
    /// (the second does not work it out again).
    Deferred(Deferral),
}

/// The corners of `feature` of `t` in the world (`None` entries unused).
fn feature_corners(t: &MeshTriangle, pose: &Pose, feature: TriangleFeature) -> [Option<Point>; 2] {
    let at = |k: usize| Some(pose.transform_point(t.vertices[k % 3]));
    match feature {
        TriangleFeature::Face => [None, None],
        TriangleFeature::Edge(k) => [at(k as usize), at(k as usize + 1)],
        TriangleFeature::Vertex(k) => [at(k as usize), None],
    }
}

/// The buffers of one query, kept from one query to the next (one set per thread, see
/// [`with_workspace`]) so that a query allocates nothing once they have grown.
struct Workspace {
    /// The triangles near B: (triangle, its set's pose, the set).
    near: Vec<(MeshTriangle, Pose, usize)>,
    /// For a ball, each near triangle's closest point to its centre (set frame).
    closest: Vec<Point>,
    /// For a ball, each near triangle's outcome ([`ball_items`]).
    slots: Vec<Slot>,
    /// The triangle contacts after the rules.
    items: Vec<Item>,
    /// Corners of face contacts, and ends of edge contacts (the voiding pass).
    voided: Vec<Point>,
    edge_ends: Vec<Point>,
    /// Per region: its normal, status and the set of its deepest point.
    regions: Vec<(Vector, QueryStatus, usize)>,
    /// The regions' points, each with its region's index.
    points: Vec<(usize, ManifoldPoint)>,
    /// One region's points at a time.
    region: Vec<ManifoldPoint>,
}

impl Workspace {
    const EMPTY: Workspace = Workspace {
        near: Vec::new(),
        closest: Vec::new(),
        slots: Vec::new(),
        items: Vec::new(),
        voided: Vec::new(),
        edge_ends: Vec::new(),
        regions: Vec::new(),
        points: Vec::new(),
        region: Vec::new(),
    };
}

thread_local! {
    static WORKSPACE: std::cell::Cell<Workspace> = const { std::cell::Cell::new(Workspace::EMPTY) };
}

/// Runs `f` with this thread's buffers: moved out of the thread's slot (leaving empty
/// ones, no allocation), used, and put back, so that a nested query (a support map that
/// queries) or one during thread teardown starts from empty buffers instead of failing.
fn with_workspace<R>(f: impl FnOnce(&mut Workspace) -> R) -> R {
    let mut ws = WORKSPACE
        .try_with(|cell| cell.replace(Workspace::EMPTY))
        .unwrap_or(Workspace::EMPTY);
    let r = f(&mut ws);
    let _ = WORKSPACE.try_with(|cell| cell.set(ws));
    r
}

/// Every triangle contact of `b` (at `pose_b`) with the placed sets within `margin`
/// (length ≥ 0; 0 for touching and penetrating contacts only), after the ghost-collision
/// rules of the module notes, the voided features across all the sets included. The
/// order is the sets', then the triangles' as each set hands them out.
///
/// Pass every static object a shape may touch at once (the world does) so that the
/// seams between them are recognised.
pub fn contacts(
    sets: &[Placed<'_>],
    b: &Shape,
    pose_b: &Pose,
    margin: Real,
    options: &QueryOptions,
) -> Vec<TriangleContact> {
    with_workspace(|ws| {
        items(sets, b, pose_b, margin, options, ws);
        ws.items.iter().map(|i| i.out).collect()
    })
}

/// The triangle contacts of [`contacts`], with what the manifolds need, into `ws.items`.
fn items(
    sets: &[Placed<'_>],
    b: &Shape,
    pose_b: &Pose,
    margin: Real,
    options: &QueryOptions,
    ws: &mut Workspace,
) {
    let margin = if margin > 0.0 { margin } else { 0.0 };
    let world = b.local_aabb().transformed(pose_b);
    let near = &mut ws.near;
    near.clear();
    // The pre-test on the corners only with one set: across sets, a boundary edge takes
    // its activity from a triangle of the other set (`stitch_rims`), which must then be
    // in the list even when B does not reach it.
    let pretest = sets.len() == 1;
    let mut pretested = false;
    // A ball's candidates are handed out unbuilt (`ball_candidates`), with their closest
    // points in `closest`, and stitched one at a time when their edges are built.
    let closest = &mut ws.closest;
    closest.clear();
    let mut lazy = false;
    for (s, (set, pose_s)) in sets.iter().enumerate() {
        let local = world.transformed(&pose_s.inverse());
        let slack = box_slack(&local, *set);
        let query = local.loosened(margin + slack);
        let mut push = |t: &MeshTriangle| {
            near.push((*t, *pose_s, s));
            ControlFlow::Continue(())
        };
        match Reach::new(b, pose_b, pose_s, margin, options).filter(|_| pretest) {
            Some(reach @ Reach::Ball { .. }) => {
                pretested = true;
                lazy = true;
                ball_candidates(*set, pose_s, &query, &reach, near, closest);
            }
            Some(reach) => {
                pretested = true;
                set.triangles_in_where(
                    &query,
                    &mut |b| reach.may_touch_box(b),
                    &mut |v| reach.may_touch(v),
                    &mut push,
                );
            }
            None => set.triangles_in(&query, &mut push),
        }
    }
    if !lazy {
        stitch_rims(near);
    }
    let out = &mut ws.items;
    out.clear();
    let rejected = if lazy {
        let scratch = (&mut ws.slots, &mut ws.voided);
        ball_items(
            sets[0].0,
            near,
            closest,
            (b, pose_b),
            margin,
            options,
            scratch,
            out,
        )
    } else {
        let mut rejected = None;
        for (t, pose_s, s) in near.iter() {
            // (The pre-test already measured B against the whole triangle, not only its
            // plane.)
            if !pretested && beyond_plane(t, pose_s, b, pose_b, margin) {
                continue;
            }
            let mut snapped = None;
            let o = triangle_contact(
                sets[*s].0,
                t,
                pose_s,
                (b, pose_b),
                margin,
                options,
                pretested,
                &mut snapped,
            );
            keep(o, (*t, *pose_s, *s), snapped, out, &mut rejected);
        }
        rejected
    };
    void_internal_features(out, &mut ws.voided, &mut ws.edge_ends, b, pose_b, margin);
    // A rejected contact deeper than every kept one: a bump of the surface pokes into
    // B's face while B's lowest point along the bump's faces lies beside them, so their
    // clips along the face normal are empty; the kept contacts are shallower ones
    // around it, and B would sink by the difference. The deepest such triangle
    // stands with the depth B must move along its face normal to leave it.
    // B overlaps the triangle (so the cast's first touch from above is where B, moved
    // along the face normal, leaves it: the translations along a line at which two
    // convex shapes overlap are one interval), and from the face's front (a box leaning
    // on a ledge's rim from below overlaps it too, and would be lifted through it). The
    // cheap tests first: this runs on every query with a rejected contact.
    let candidate = rejected.as_ref().filter(|i| {
        !out.is_empty()
            && !i.into_solid
            && i.side > 0.0
            && i.out.contact.distance < 0.0
            && i.out
                .contact
                .normal
                .dot(i.pose.transform_vector(i.tri.normal))
                > 0.0
    });
    if let Some(item) = candidate {
        let deepest_kept = out
            .iter()
            .map(|i| i.out.contact.distance)
            .fold(Real::INFINITY, Real::min);
        let stands = (item.out.contact.distance < deepest_kept)
            .then(|| {
                through_face(
                    &item.tri,
                    &item.pose,
                    (b, pose_b),
                    &item.out.contact,
                    margin,
                    options,
                )
            })
            .flatten()
            .filter(|c| c.distance < deepest_kept);
        if let Some(c) = stands {
            out.push(Item {
                out: TriangleContact {
                    feature: TriangleFeature::Face,
                    contact: c,
                    ..item.out
                },
                manifold: Some(Manifold::single(&c)),
                into_solid: false,
                ..*item
            });
        }
    }
    // B touches the geometry but every contact was left to a neighbour that has none
    // (B's tilted face on a convex ridge: its normal, B's face's, is outside the ridge
    // edge's arc, and no face lies under B): keep the deepest such contact as it is,
    // rather than none — the shape must not sink in. A one-sided set's contact into the
    // solid is replaced by the contact along the face normal where there is one
    // ([`on_plane`]).
    if out.is_empty() {
        if let Some(mut item) = rejected {
            let stand_in = item.into_solid.then(|| {
                on_plane(
                    &item.tri,
                    &item.pose,
                    (b, pose_b),
                    &item.out.contact,
                    margin,
                )
            });
            match stand_in.flatten() {
                Some(c) => {
                    item.out.contact = c;
                    item.out.feature = TriangleFeature::Face;
                    item.manifold = Some(Manifold::single(&c));
                }
                None => item.into_solid = false,
            }
            out.push(item);
        }
    }
}

/// Files one triangle's outcome: a kept contact into `out`, a rejected one into
/// `rejected` when it is the deepest so far (the first of equals).
fn keep(
    o: Outcome,
    (tri, pose, set): (MeshTriangle, Pose, usize),
    manifold: Option<Manifold>,
    out: &mut Vec<Item>,
    rejected: &mut Option<Item>,
) {
    let item = |contact, feature, side, manifold, into_solid| Item {
        out: TriangleContact {
            set,
            triangle: tri.index,
            feature,
            contact,
        },
        tri,
        pose,
        side,
        manifold,
        into_solid,
    };
    match o {
        Outcome::Apart | Outcome::Deferred(_) => {}
        Outcome::Kept(c, feature, side) => out.push(item(c, feature, side, manifold, false)),
        Outcome::Rejected(c, feature, side, into) => {
            let deeper = rejected
                .as_ref()
                .is_none_or(|r| c.distance < r.out.contact.distance);
            if deeper {
                *rejected = Some(item(c, feature, side, None, into));
            }
        }
    }
}

/// A ball's triangle contacts, from its unbuilt candidates `near` (one set, at the
/// entries' pose) and their closest points `closest` ([`ball_candidates`]), into `out` in
/// the candidates' order, as the generic loop of [`items`] would file them; returns the
/// deepest rejected contact. Two passes: the first decides every contact inside a face
/// (no edges needed) and defers those on an edge or a vertex; the second decides those,
/// building a triangle's edges only when its feature is not made of the face contacts'
/// corners (where the voiding pass would decide it anyway: see [`ball_triangle`]).
#[allow(clippy::too_many_arguments)] // the candidates, the shape, the scratch, the list
fn ball_items(
    set: &dyn TriangleSet,
    near: &[(MeshTriangle, Pose, usize)],
    closest: &[Point],
    (b, pose_b): (&Shape, &Pose),
    margin: Real,
    options: &QueryOptions,
    (slots, faces): (&mut Vec<Slot>, &mut Vec<Point>),
    out: &mut Vec<Item>,
) -> Option<Item> {
    slots.clear();
    faces.clear();
    let (_, pose_s, _) = near.first()?;
    let ball = BallQuery::new(b, pose_b, pose_s, margin, options)?;
    for (k, &q) in closest.iter().enumerate().take(near.len()) {
        let slot = ball_triangle(set, near, k, q, &ball);
        if let (Outcome::Kept(_, TriangleFeature::Face, _), t) = (&slot.0, &slot.1) {
            faces.extend(t.vertices.map(|v| pose_s.transform_point(v)));
        }
        slots.push(slot);
    }
    let mut rejected = None;
    for (k, (o, t)) in slots.drain(..).enumerate() {
        let (o, t) = match o {
            Outcome::Deferred(d) => ball_edge(set, near, k, t, d, &ball, faces),
            _ => (o, t),
        };
        // (A ball's manifold is its contact's one point: [`regions_of`] makes it.)
        keep(o, (t, near[k].1, near[k].2), None, out, &mut rejected);
    }
    rejected
}

/// The most face contacts [`ball_triangle`] compares an edge or vertex contact's corners
/// with before it builds the triangle's edges instead (a ball on a heightfield or a
/// terrain mesh has a few; one inside a torus' tube has hundreds).
const VOIDING_FACES: usize = 8;

/// A ball query against one set, in the set's frame: what [`ball_triangle`] needs of it
/// for every candidate, worked out once.
struct BallQuery<'a> {
    b: &'a Shape,
    pose_b: &'a Pose,
    /// The set's pose.
    pose_s: Pose,
    /// The ball's centre (set frame, as [`Reach`] takes it) and radius.
    centre: Point,
    radius: Real,
    /// The ball's centre in the world, and brought back into the set's frame from there:
    /// the expressions of the generic path ([`triangle_contact`]), so that the rules and
    /// the face contact give the same bits as it does.
    world_centre: Point,
    centre_back: Point,
    margin: Real,
    options: &'a QueryOptions,
    /// B's offset from the set's origin (the largest coordinate, set frame) and its
    /// reach from its own origin: with a triangle's reach, the scale of the touching
    /// floor, as [`ball_contact`] takes it.
    offset: Real,
    reach_b: Real,
}

impl<'a> BallQuery<'a> {
    /// `None` when B's core is not a point.
    fn new(
        b: &'a Shape,
        pose_b: &'a Pose,
        pose_s: &Pose,
        margin: Real,
        options: &'a QueryOptions,
    ) -> Option<Self> {
        let (CoreShape::Point(p), radius) = b.core() else {
            return None;
        };
        let rel = pose_s.inv_mul(pose_b);
        let x = b.local_aabb();
        let world_centre = pose_b.transform_point(p.point());
        Some(BallQuery {
            b,
            pose_b,
            pose_s: *pose_s,
            centre: rel.transform_point(p.point()),
            radius,
            world_centre,
            centre_back: pose_s.inverse_transform_point(pose_b.transform_point(b.local_center())),
            margin,
            options,
            offset: rel.translation().abs().max_element(),
            reach_b: x.mins.abs().max(x.maxs.abs()).max_element(),
        })
    }
}

/// Candidate `k` of `near` (its closest point to the ball's centre `closest`): the ball's
/// contact and the rules of [`triangle_contact`], worked in the set's frame (the world's
/// only for the answers), from the triangle's corners and face normal; its edges are
/// built ([`TriangleSet::triangle`], then [`stitch_rim`] against the other candidates)
/// only for a contact on an edge or a vertex, and not even then when the feature's
/// corners are all corners of face contacts (`faces`, world frame): the voiding pass
/// (module notes, 3) then snaps the contact to the face or drops it, whatever the edges
/// say (and a face contact keeps the query's list from being empty). This first pass
/// leaves such a contact [`Outcome::Deferred`], for [`ball_edge`] once the face contacts
/// are known.
///
/// The contact itself is the dispatcher's closed form, as [`ball_contact`]; where that
/// one would leave the pair to the dispatcher (B near the set's origin, a triangle
/// without a plane), the built triangle goes through [`triangle_contact`].
fn ball_triangle(
    set: &dyn TriangleSet,
    near: &[(MeshTriangle, Pose, usize)],
    k: usize,
    closest: Point,
    ball: &BallQuery<'_>,
) -> Slot {
    let (mut t, pose_s) = (near[k].0, &ball.pose_s);
    let complete = |t: &mut MeshTriangle| match set.triangle(t.index) {
        Some(full) => {
            *t = full;
            stitch_rim(t, pose_s, near, k);
            true
        }
        None => false,
    };
    let (centre, r, margin) = (ball.centre, ball.radius, ball.margin);
    let [a, bv, cv] = t.vertices;
    let closed = (ball.offset >= tolerance::RESCALE_BELOW)
        .then(|| point_triangle::contact_from_closest(a, bv, cv, centre, closest, r))
        .flatten();
    let Some(k) = closed else {
        if !complete(&mut t) {
            return (Outcome::Apart, t);
        }
        let mut snapped = None;
        let shape = (ball.b, ball.pose_b);
        let o = triangle_contact(
            set,
            &t,
            pose_s,
            shape,
            margin,
            ball.options,
            true,
            &mut snapped,
        );
        return (o, t);
    };
    let reach_t = a.abs().max(bv.abs()).max(cv.abs()).max_element();
    let floor = tolerance::touch_floor(
        ball.options.gjk.touch_tolerance(),
        ball.offset + reach_t + ball.reach_b,
    );
    let distance = tolerance::touching_as_zero(k.distance, floor);
    if distance.is_nan() || distance > margin {
        return (Outcome::Apart, t);
    }
    // The answer in the world (distance, normal and witnesses in the set's frame).
    let world = |d: Real, n: Vector, pa: Point, pb: Point| Contact {
        distance: d,
        lower_bound: d,
        upper_bound: d,
        normal: pose_s.transform_vector(n),
        point_a: pose_s.transform_point(pa),
        point_b: pose_s.transform_point(pb),
        status: QueryStatus::Converged,
        method: ContactMethod::Analytic,
        iterations: 0,
    };
    // The contact as the generic path has it (the same expressions, the same bits), and
    // its normal and B's centre brought back into the set's frame from the world, as
    // there: the single-set and the many-set queries must answer alike.
    let c = world(distance, k.normal, k.point_a, k.point_b);
    let n = pose_s.inverse_transform_vector(c.normal);
    let one_sided = set.one_sided();
    let behind = is_behind(&t, ball.centre_back, n);
    let side: Real = if behind && !one_sided { -1.0 } else { 1.0 };
    let feature = if behind && one_sided {
        TriangleFeature::Face
    } else {
        classify(&t, n)
    };
    if feature != TriangleFeature::Face {
        return (
            Outcome::Deferred(Deferral {
                contact: c,
                normal: n,
                feature,
                side,
            }),
            t,
        );
    }
    match ball_face_contact(&t, pose_s, side, (ball.world_centre, r), &c, margin) {
        Some((f, _)) => (Outcome::Kept(f, TriangleFeature::Face, side), t),
        None => {
            // (`into_solid` reads the edges: the triangle is built for it, a rare path.)
            let into = one_sided && complete(&mut t) && into_solid(&t, n, behind);
            (Outcome::Rejected(c, feature, side, into), t)
        }
    }
}

/// What [`ball_triangle`] found of a contact on an edge or a vertex: the contact, its
/// normal in the set's frame, the feature and the side.
#[derive(Clone, Copy)]
struct Deferral {
    contact: Contact,
    normal: Vector,
    feature: TriangleFeature,
    side: Real,
}

/// The second pass of [`ball_items`] for candidate `k` of `near` (its triangle `t` as
/// the first pass left it), whose contact `d` is on an edge or a vertex: voided when the
/// feature's corners are all corners of face contacts (`faces`, world frame), else
/// kept when its (then built) edges allow the normal; otherwise snapped to the face, or
/// rejected (dropped when voided) when nothing of the ball lies over it.
fn ball_edge(
    set: &dyn TriangleSet,
    near: &[(MeshTriangle, Pose, usize)],
    k: usize,
    mut t: MeshTriangle,
    d: Deferral,
    ball: &BallQuery<'_>,
    faces: &[Point],
) -> (Outcome, MeshTriangle) {
    let pose_s = &ball.pose_s;
    let Deferral {
        contact: c,
        normal: n,
        feature,
        side,
    } = d;
    // (Only against a few face contacts: a ball touching hundreds of triangles, in a
    // torus' tube, would make it a quadratic search. The edges are built then.)
    let mut voided = false;
    if faces.len() <= 3 * VOIDING_FACES {
        let is_face_corner =
            |p: Option<Point>| p.is_none_or(|p| faces.iter().any(|&v| same_corner(p, v)));
        let [p, q] = feature_corners(&t, pose_s, feature);
        voided = is_face_corner(p) && is_face_corner(q);
    }
    if !voided {
        match set.triangle(t.index) {
            Some(full) => {
                t = full;
                stitch_rim(&mut t, pose_s, near, k);
            }
            None => return (Outcome::Apart, t),
        }
        if carries(set, &t, feature, n, side) {
            return (Outcome::Kept(c, feature, side), t);
        }
    }
    let (r, margin) = (ball.radius, ball.margin);
    match ball_face_contact(&t, pose_s, side, (ball.world_centre, r), &c, margin) {
        Some((f, _)) => (Outcome::Kept(f, TriangleFeature::Face, side), t),
        None if voided => (Outcome::Apart, t),
        None => {
            // (Not behind: for a one-sided set, a ball behind the face is on the face
            // and never deferred.)
            let into = set.one_sided() && into_solid(&t, n, false);
            (Outcome::Rejected(c, feature, side, into), t)
        }
    }
}

/// One candidate's outcome in [`ball_items`]: the outcome and the triangle (complete when
/// its edges were built). (A contact snapped to its face has the manifold of its one
/// point: [`regions_of`] makes it.)
type Slot = (Outcome, MeshTriangle);

/// Whether B lies wholly on one side of `t`'s plane, farther than `margin` (with a
/// rounding allowance): then it cannot touch the triangle, and the triangle's GJK is
/// skipped. Two support calls, against a GJK run for every triangle near B.
fn beyond_plane(t: &MeshTriangle, pose_t: &Pose, b: &Shape, pose_b: &Pose, margin: Real) -> bool {
    let n = pose_t.transform_vector(t.normal);
    let v0 = pose_t.transform_point(t.vertices[0]);
    let at =
        |d: Vector| pose_b.transform_point(b.local_support(pose_b.inverse_transform_vector(d)));
    let (low, high) = (at(-n), at(n));
    let scale = v0.abs().max(low.abs()).max(high.abs()).max_element();
    let slack = margin + tolerance::SLACK * 16.0 * EPSILON * scale;
    (low - v0).dot(n) > slack || (high - v0).dot(n) < -slack
}

/// Whether B is a box (or a rounded one) farther than `margin` from `t` along one of
/// their separating axes ([`box_triangle`]): then the triangle's GJK is skipped. Exact:
/// a gap along any axis is at most the distance (with a rounding allowance).
fn box_apart(t: &MeshTriangle, pose_t: &Pose, b: &Shape, pose_b: &Pose, margin: Real) -> bool {
    let (CoreShape::Cuboid(x), mb) = b.core() else {
        return false;
    };
    let h = x.half_extents();
    let rel = pose_b.inv_mul(pose_t);
    let [p, q, r] = t.vertices.map(|v| rel.transform_point(v));
    let scale = p
        .abs()
        .max(q.abs())
        .max(r.abs())
        .max(h)
        .max(pose_b.translation().abs())
        .max(pose_t.translation().abs())
        .max_element();
    let slack = margin + mb + tolerance::SLACK * 16.0 * EPSILON * scale;
    // (Below the rescaling threshold the cross axes' lengths underflow: not apart.)
    scale >= tolerance::RESCALE_BELOW && box_triangle::separation(h, p, q, r) > slack
}

/// How far a query box (`local`, in the set's frame) is grown to cover the rounding of
/// placing it there and of the set's own coordinates.
fn box_slack(local: &Aabb, set: &dyn TriangleSet) -> Real {
    tolerance::SLACK * 16.0 * EPSILON * (local.origin_radius() + set.reach())
}

/// Whether two world points are the same corner, up to the rounding of placing them.
fn same_corner(p: Point, q: Point) -> bool {
    let scale = p.abs().max_element().max(q.abs().max_element());
    (p - q).abs().max_element() <= 64.0 * EPSILON * scale
}

/// Module notes, 3: a boundary edge that another nearby triangle also has (by position:
/// the seam of two adjacent sets, or an unwelded mesh) takes that triangle as its
/// neighbour, and its activity from their crease.
fn stitch_rims(near: &mut [(MeshTriangle, Pose, usize)]) {
    for i in 0..near.len() {
        let (mut t, pose) = (near[i].0, near[i].1);
        stitch_rim(&mut t, &pose, near, i);
        near[i].0 = t;
    }
}

/// [`stitch_rims`] for one triangle `t` (at `pose`, entry `i` of `near`): its boundary
/// edges against the other triangles of `near`, of which only the corners and normals
/// are read.
fn stitch_rim(t: &mut MeshTriangle, pose: &Pose, near: &[(MeshTriangle, Pose, usize)], i: usize) {
    for k in 0..3 {
        if t.edges[k].neighbour_normal.is_some() {
            continue;
        }
        let p = pose.transform_point(t.vertices[k]);
        let q = pose.transform_point(t.vertices[(k + 1) % 3]);
        let partner = near.iter().enumerate().find_map(|(j, (u, pose_u, _))| {
            if j == i {
                return None;
            }
            let w = u.vertices.map(|v| pose_u.transform_point(v));
            let has = |x: Point| w.iter().any(|&y| same_corner(x, y));
            (has(p) && has(q)).then(|| pose_u.transform_vector(u.normal))
        });
        if let Some(m) = partner {
            let m = pose.inverse_transform_vector(m);
            let edge = t.vertices[(k + 1) % 3] - t.vertices[k];
            t.edges[k] = crate::shape::MeshEdge {
                active: crease_is_active(t.normal, m, edge),
                neighbour_normal: Some(m),
            };
        }
    }
}

/// A ball's candidates from `set` (at `pose_s`) in the query box `query` (set frame):
/// each triangle [`Reach::may_touch`] accepts, tested from its corners alone
/// ([`TriangleSet::corners_in`], cells first through [`Reach::may_touch_box`]), pushed
/// onto `near` with its corners and face normal ([`TriangleSet::face_normal`]) but not
/// its edges, and its closest point to the ball's centre onto `closest`.
///
/// The edges stand as *unknown* (no neighbour, inactive): the rules read them only for a
/// contact whose normal is not the face's, and [`triangle_contact`] builds them first
/// then ([`TriangleSet::triangle`] and [`stitch_rim`]). A ball's contact inside a face
/// (most of them) is decided from the corners, the normal and the closest point alone.
fn ball_candidates(
    set: &dyn TriangleSet,
    pose_s: &Pose,
    query: &Aabb,
    reach: &Reach,
    near: &mut Vec<(MeshTriangle, Pose, usize)>,
    closest: &mut Vec<Point>,
) {
    let Reach::Ball {
        centre,
        radius,
        margin,
        tau,
    } = *reach
    else {
        return;
    };
    let unknown = crate::shape::MeshEdge {
        active: false,
        neighbour_normal: None,
    };
    // The most `Reach::may_touch_box` accepts about the centre, whatever the box (its
    // corners within the set's reach), grown for the rounding of the footprint test:
    // the set may skip what lies farther (a heightfield, the cells off the footprint).
    let footprint = {
        let scale = centre.abs().max_element() + set.reach() + radius;
        (radius + margin + tau * scale) * (1.0 + tolerance::SLACK * 16.0 * EPSILON)
            + tolerance::SLACK * 16.0 * EPSILON * scale
    };
    let near_centre = (centre, footprint);
    let keep_box = &mut |b: &Aabb| reach.may_touch_box(b);
    set.corners_near(query, near_centre, keep_box, &mut |index, v| {
        if let Some(q) = ball_closest(centre, radius, margin, tau, v) {
            if let Some(normal) = set.face_normal(index) {
                let t = MeshTriangle {
                    index,
                    vertices: *v,
                    normal,
                    edges: [unknown; 3],
                };
                near.push((t, *pose_s, 0));
                closest.push(q);
            }
        }
        ControlFlow::Continue(())
    });
}

/// Module notes, 3: edge and vertex contacts on corners of face-contact triangles take
/// their face normals.
fn void_internal_features(
    items: &mut Vec<Item>,
    voided: &mut Vec<Point>,
    edge_ends: &mut Vec<Point>,
    b: &Shape,
    pose_b: &Pose,
    margin: Real,
) {
    if items.iter().all(|i| i.out.feature == TriangleFeature::Face) {
        return;
    }
    // Corners of face contacts void edges and vertices; the ends of edge contacts void
    // vertices (a vertex contact beside an edge contact through that vertex is the
    // edge's, seen from a triangle that ends there).
    voided.clear();
    voided.extend(
        items
            .iter()
            .filter(|i| i.out.feature == TriangleFeature::Face)
            .flat_map(|i| i.tri.vertices.map(|v| i.pose.transform_point(v))),
    );
    edge_ends.clear();
    edge_ends.extend(
        items
            .iter()
            .filter(|i| matches!(i.out.feature, TriangleFeature::Edge(_)))
            .flat_map(|i| feature_corners(&i.tri, &i.pose, i.out.feature))
            .flatten(),
    );
    let (voided, edge_ends) = (&*voided, &*edge_ends);
    let is_voided = |p: Option<Point>| p.is_none_or(|p| voided.iter().any(|&v| same_corner(p, v)));
    let is_edge_end =
        |p: Option<Point>| p.is_some_and(|p| edge_ends.iter().any(|&v| same_corner(p, v)));
    items.retain_mut(|i| {
        if i.out.feature == TriangleFeature::Face {
            return true;
        }
        let [p, q] = feature_corners(&i.tri, &i.pose, i.out.feature);
        let vertex = matches!(i.out.feature, TriangleFeature::Vertex(_));
        if !(is_voided(p) && is_voided(q) || vertex && is_edge_end(p)) {
            return true;
        }
        let face = match as_ball(b, pose_b) {
            Some(ball) => ball_face_contact(&i.tri, &i.pose, i.side, ball, &i.out.contact, margin),
            None => {
                let Some(tri) = triangle_shape(&i.tri) else {
                    return false;
                };
                face_contact(
                    &i.tri,
                    &tri,
                    &i.pose,
                    i.side,
                    b,
                    pose_b,
                    &i.out.contact,
                    margin,
                )
            }
        };
        match face {
            Some((f, m)) => {
                i.out.contact = f;
                i.out.feature = TriangleFeature::Face;
                i.manifold = Some(m);
                true
            }
            None => false,
        }
    });
}

/// The deepest triangle contact of `b` with `set` (at `pose_set`) within `margin`,
/// after the ghost-collision rules; `None` when no triangle is that close (see
/// [`closest_points`] for the distance then).
pub fn contact(
    set: &dyn TriangleSet,
    pose_set: &Pose,
    b: &Shape,
    pose_b: &Pose,
    margin: Real,
    options: &QueryOptions,
) -> Option<TriangleContact> {
    with_workspace(|ws| {
        items(&[(set, *pose_set)], b, pose_b, margin, options, ws);
        ws.items
            .iter()
            .map(|i| i.out)
            .min_by(|x, y| x.contact.distance.total_cmp(&y.contact.distance))
    })
}

/// The contact manifolds of `b` (at `pose_b`) with the placed sets: one per touching
/// region (module notes), each of at most four points, the deepest region first. Each
/// point's `point_a` lies on a triangle, `point_b` on the shape, `point_b − point_a =
/// distance · normal` with the region's normal (unit, world, from the geometry towards
/// the shape); feature ids combine the set, the triangle and the pair's feature. Empty
/// when nothing is within `margin`.
pub fn manifolds(
    sets: &[Placed<'_>],
    b: &Shape,
    pose_b: &Pose,
    margin: Real,
    options: &QueryOptions,
) -> Vec<Manifold> {
    with_workspace(|ws| {
        items(sets, b, pose_b, margin, options, ws);
        // (Built as it goes: no list of tagged manifolds to convert.)
        let mut out = Vec::new();
        regions_of(ws, b, pose_b, margin, |_, m| out.push(m));
        out
    })
}

/// [`manifolds`], each with the set of its deepest point (an index into `sets`).
pub fn manifolds_tagged(
    sets: &[Placed<'_>],
    b: &Shape,
    pose_b: &Pose,
    margin: Real,
    options: &QueryOptions,
) -> Vec<(usize, Manifold)> {
    with_workspace(|ws| {
        items(sets, b, pose_b, margin, options, ws);
        let mut out = Vec::new();
        regions_of(ws, b, pose_b, margin, |set, m| out.push((set, m)));
        out
    })
}

/// The regions of the triangle contacts in `ws.items` (module notes), each handed to
/// `emit` with the set of its deepest point, the deepest region first.
fn regions_of(
    ws: &mut Workspace,
    b: &Shape,
    pose_b: &Pose,
    margin: Real,
    mut emit: impl FnMut(usize, Manifold),
) {
    let Workspace {
        items,
        regions,
        points,
        region,
        ..
    } = ws;
    items.sort_by(|x, y| x.out.contact.distance.total_cmp(&y.out.contact.distance));
    regions.clear();
    points.clear();
    let mut size: Real = 0.0;
    let ball = as_ball(b, pose_b).is_some();
    for i in items.iter() {
        let m = match i.manifold {
            Some(m) => m,
            // A ball's manifold is its contact's one point.
            None if ball => Manifold::single(&i.out.contact),
            None => {
                let Some(tri) = triangle_shape(&i.tri) else {
                    continue;
                };
                manifold::from_contact(&tri, &i.pose, b, pose_b, &i.out.contact, margin)
            }
        };
        if m.is_empty() {
            continue;
        }
        let tag = (i.out.set as u32)
            .wrapping_mul(0x85eb_ca6b)
            .wrapping_add(i.out.triangle.wrapping_mul(0x9e37_79b1));
        // The geometry's normal, as the ghost rules left it (a manifold whose reference is
        // B's face, an edge of the mesh on a face of B, carries B's face normal instead).
        let normal = i.out.contact.normal;
        let r = match regions
            .iter()
            .position(|r| r.0.dot(normal) >= tolerance::ACTIVE_EDGE_COS)
        {
            Some(r) => r,
            None => {
                regions.push((normal, m.status, i.out.set));
                regions.len() - 1
            }
        };
        let n = regions[r].0;
        // A face contact: each point is re-expressed along the region's normal from its
        // point on B to the triangle's plane, so that both stay on their surfaces (the
        // same points on flat ground, where the normals agree). An edge or vertex contact
        // whose pair manifold took another normal (B's face as the reference): the
        // contact's own witnesses, which belong to the geometry's normal.
        let on_face = i.out.feature == TriangleFeature::Face;
        let m = if on_face || m.normal.dot(normal) >= 1.0 - 0.5 * FEATURE_TIE_SQ {
            m
        } else {
            Manifold::single(&i.out.contact)
        };
        let face = i.pose.transform_vector(i.tri.normal);
        let plane = i.pose.transform_point(i.tri.vertices[0]).dot(face);
        let cos = n.dot(face);
        for p in m
            .points()
            .iter()
            .filter(|p| i.into_solid || over_triangle(&i.tri, &i.pose, p.point_a))
        {
            let distance = if on_face && cos.abs() > 0.5 {
                (p.point_b.dot(face) - plane) / cos
            } else {
                (p.point_b - p.point_a).dot(n)
            };
            size = size.max(p.point_b.abs().max_element());
            points.push((
                r,
                ManifoldPoint {
                    point_a: p.point_b - n * distance,
                    point_b: p.point_b,
                    distance,
                    feature: p.feature ^ tag,
                },
            ));
        }
    }
    for (r, &(n, status, set)) in regions.iter().enumerate() {
        region.clear();
        region.extend(points.iter().filter(|p| p.0 == r).map(|p| p.1));
        if !region.is_empty() {
            emit(set, manifold::reduced(n, status, region, size));
        }
    }
}

/// Whether `b` (at `pose_b`) overlaps or touches a triangle of `set` (at `pose_set`).
/// The triangles are the surface: a shape wholly behind a one-sided surface, or inside
/// a closed mesh, touching no triangle, does not intersect it.
pub fn intersects(
    set: &dyn TriangleSet,
    pose_set: &Pose,
    b: &Shape,
    pose_b: &Pose,
    options: &QueryOptions,
) -> bool {
    let world = b.local_aabb().transformed(pose_b);
    let local = world.transformed(&pose_set.inverse());
    let slack = box_slack(&local, set);
    let mut hit = false;
    set.triangles_in(&local.loosened(slack), &mut |t| {
        if let Some(tri) = triangle_shape(t) {
            if dispatch::intersects_with(&tri, pose_set, b, pose_b, options, None) {
                hit = true;
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    hit
}

/// The closest points of `b` (at `pose_b`) and the triangles of `set` (at
/// `pose_set`), with the index of the closest triangle; `None` when the set has no
/// triangle. Frames, units and outcomes as [`super::closest_points`] (A the triangle).
/// The search grows a box about `b` until it holds a triangle, then finishes within the
/// best distance found.
pub fn closest_points(
    set: &dyn TriangleSet,
    pose_set: &Pose,
    b: &Shape,
    pose_b: &Pose,
    options: &QueryOptions,
) -> Option<(ClosestPoints, u32)> {
    let bounds = set.local_aabb()?;
    let local = b
        .local_aabb()
        .transformed(pose_b)
        .transformed(&pose_set.inverse());
    let slack = box_slack(&local, set);
    let mut best: Option<(ClosestPoints, u32)> = None;
    let visit = |r: Real, best: &mut Option<(ClosestPoints, u32)>| {
        set.triangles_in(&local.loosened(r + slack), &mut |t| {
            if let Some(tri) = triangle_shape(t) {
                let c = dispatch::closest_points_with(&tri, pose_set, b, pose_b, options, None);
                if best.as_ref().is_none_or(|(x, _)| c.distance < x.distance) {
                    *best = Some((c, t.index));
                }
            }
            ControlFlow::Continue(())
        });
    };
    // Start from the gap between the two boxes, doubling until a triangle is found.
    let gap = (bounds.mins - local.maxs)
        .max(local.mins - bounds.maxs)
        .max(Vector::ZERO)
        .length();
    let mut r = gap
        .max(local.half_extents().max_element())
        .max(Real::MIN_POSITIVE);
    let limit = (bounds.merged(&local)).half_extents().length() * 4.0 + r;
    while best.is_none() && r <= limit {
        visit(r, &mut best);
        r *= 2.0;
    }
    if best.is_none() {
        visit(Real::MAX / 4.0, &mut best);
    }
    // Every triangle closer than the best found lies within that distance of b's box.
    let d = best.as_ref()?.0.distance;
    visit(d, &mut best);
    best
}

/// The first time `b` (at `pose_b`, translating at `velocity`, world frame, length per
/// unit time, relative to the set) comes within `target_distance` of a triangle of
/// `set` (at `pose_set`), within `[0, max_toi]` (inclusive, may be infinite), after the
/// ghost-collision rule for casts (module notes); with the triangle's index. `Ok(None)`
/// when nothing is hit. Frames, units and start rules as [`super::cast_shapes`] (A the
/// triangle).
///
/// # Errors
/// As [`super::cast_shapes`]: a velocity or distances that are NaN, infinite where they
/// must be finite, or negative.
#[allow(clippy::too_many_arguments)] // the parameters of a cast, as `compound::cast_colliders`
pub fn cast(
    set: &dyn TriangleSet,
    pose_set: &Pose,
    b: &Shape,
    pose_b: &Pose,
    velocity: Vector,
    max_toi: Real,
    target_distance: Real,
    options: &QueryOptions,
) -> Result<Option<(ShapeCast, u32)>, CastError> {
    check_max_toi(max_toi)?;
    let Some(bounds) = set.local_aabb() else {
        return Ok(None);
    };
    let start = b.local_aabb().transformed(pose_b);
    let centre = pose_b.transform_point(b.local_center());
    let v_local = pose_set.inverse_transform_vector(velocity);
    let local = start.transformed(&pose_set.inverse());
    let grow = target_distance.max(0.0) + box_slack(&local, set);
    // The time the shape's box leaves the set's box for good bounds the sweep.
    let reach = bounds.grown(local.half_extents()).loosened(grow);
    let Some((_, t_end)) = reach.ray_span(local.center(), v_local, max_toi) else {
        return Ok(None);
    };
    let swept = local
        .swept(v_local * if t_end.is_finite() { t_end } else { 0.0 })
        .loosened(grow);
    let mut best: Option<(ShapeCast, u32)> = None;
    let mut error = None;
    set.triangles_in(&swept, &mut |t| {
        let Some(tri) = triangle_shape(t) else {
            return ControlFlow::Continue(());
        };
        let limit = best.as_ref().map_or(max_toi, |(c, _)| c.toi);
        let mut input = CastInput::new(
            ShapePair::new(&tri, *pose_set, b, *pose_b),
            Motion::ZERO,
            Motion::linear(velocity),
        );
        input.max_toi = limit;
        input.target_distance = target_distance;
        let hit = match cast_shapes(&input, options) {
            Ok(h) => h,
            Err(e) => {
                error = Some(e);
                return ControlFlow::Break(());
            }
        };
        if !hit.hit {
            return ControlFlow::Continue(());
        }
        let Some(hit) = ghost_free(set, t, pose_set, hit, velocity, centre + velocity * hit.toi)
        else {
            return ControlFlow::Continue(());
        };
        let better = best
            .as_ref()
            .is_none_or(|(c, i)| hit.toi < c.toi || (hit.toi == c.toi && t.index < *i));
        if better {
            best = Some((hit, t.index));
        }
        ControlFlow::Continue(())
    });
    match error {
        Some(e) => Err(e),
        None => Ok(best),
    }
}

/// The cast rule of the module notes: a hit whose normal its feature cannot carry takes
/// the face's normal, and is dropped when the shape does not move into the face.
fn ghost_free(
    set: &dyn TriangleSet,
    t: &MeshTriangle,
    pose_t: &Pose,
    mut hit: ShapeCast,
    velocity: Vector,
    centre_at_hit: Point,
) -> Option<ShapeCast> {
    let one_sided = set.one_sided();
    let n = pose_t.inverse_transform_vector(hit.normal);
    let centre = pose_t.inverse_transform_point(centre_at_hit);
    let behind = is_behind(t, centre, n);
    let side: Real = if behind && !one_sided { -1.0 } else { 1.0 };
    let feature = if behind && one_sided {
        TriangleFeature::Face
    } else {
        classify(t, n)
    };
    if carries(set, t, feature, n, side) {
        return Some(hit);
    }
    let face = pose_t.transform_vector(t.normal * side);
    // Moving into the face: B's velocity relative to the set against the face normal.
    // At a start overlapping the face, the contact stands whatever the motion.
    if hit.start != CastStart::Overlapping && velocity.dot(face) >= 0.0 {
        return None;
    }
    let d = (hit.point_b - hit.point_a).dot(face);
    hit.normal = face;
    hit.point_a = hit.point_b - face * d;
    Some(hit)
}
