//! Contact manifolds: up to four point pairs that describe how two convex shapes touch.
//!
//! A single contact point (from [`super::contact`]) lets a box resting on a table rock
//! about that point; a physics solver needs the whole touching region. [`manifold`]
//! answers it as at most [`MAX_MANIFOLD_POINTS`] point pairs sharing one normal.
//!
//! # Algorithm
//!
//! 1. **Normal and gate.** [`super::contact_with`] gives the signed distance and the
//!    normal `n` (from A towards B). Farther apart than `margin`: an empty manifold.
//! 2. **Support features.** The face, edge or vertex of A that faces `n`, and of B that
//!    faces `−n`, with an angular tolerance ([`FEATURE_ANGLE_COS`], about 2.56°): see
//!    [`super::feature`] for each shape (curved shapes give a point, capsules their core
//!    segment pushed out by the radius, cylinder caps and cone bases a regular
//!    [`DISC_VERTICES`]-gon inscribed in the disc).
//! 3. **Reference and incident.** When either feature is a face, the reference is the face
//!    more parallel to `n` (A's face when the two are within `10⁻⁵` of each other, so the
//!    choice is deterministic), the other feature is incident. Two edges within the angle
//!    of parallel (capsule beside capsule) take A's edge as the reference. Anything else
//!    (a vertex, a curved point, two crossing edges) is a single point: the contact's own
//!    witnesses, re-centred so that the identity below holds to rounding.
//! 4. **Clipping.** The incident polygon is clipped against the planes through the
//!    reference face's edges, perpendicular to the face (Sutherland & Hodgman,
//!    "Reentrant polygon clipping", CACM 17(1), 1974: one plane at a time, each polygon
//!    edge either kept, cut at the plane, or dropped); a segment is clipped the same way
//!    by its parameter interval. A reference edge clips by the two planes through its
//!    ends. When the exact clip leaves nothing or a single spot (faces that touch along
//!    a shared edge line overlap by zero width, which rounding turns into nothing or one
//!    corner), it is redone with the side planes moved out by
//!    [`SEPARATION_REL_TOLERANCE`] of the coordinates' size, and the wider answer kept.
//! 5. **Point pairs.** The manifold normal is the reference face's normal (oriented from
//!    A towards B), as Box2D's polygon clipping does, or for two parallel edges the
//!    common perpendicular of their lines: every clipped incident point `q` is paired
//!    with its projection onto the reference plane, `q − s·normal` with `s` its signed
//!    separation, which is the point's `distance` (negative = penetrating). So
//!    `point_b − point_a = distance · normal` by construction, and both points lie on
//!    their shapes' surfaces (the projection falls inside the reference face because the
//!    side planes are perpendicular to it). Points separated by more than `margin` are
//!    dropped (the polygon is not cut at the margin's level). Two edges that are within
//!    the angle of parallel but skew cannot give two such pairs on both edges: beyond
//!    [`PARALLEL_EDGE_REL_TOLERANCE`] they give the single contact point.
//! 6. **Reduction.** More than four points are reduced in the manner of Box2D v3's and
//!    Jolt's (`ManifoldBetweenTwoFaces`) manifold reduction: keep the deepest point, then
//!    the point farthest from it, then the point that makes the largest triangle with
//!    those two, then the point that adds the most area to that triangle. That greedy
//!    choice can miss the best quadrilateral by more than 10% (a pentagon cut from a
//!    rotated square), so it is then improved: with at most 16 candidates by trying
//!    every 4-subset that holds a deepest point, beyond that by up to three rounds of
//!    single swaps, each kept only if it enlarges the area. The deepest point stays (or
//!    gives way to one as deep up to rounding, the smallest id first, so resting faces
//!    keep their ids).
//!
//! Feature ids ([`ManifoldPoint::feature`]) name the reference face and the incident
//! vertex, or the incident edge and reference side plane that cut it, so that they stay
//! the same while the same features touch.
//!
//! No heap allocation per query: features and clipping buffers are fixed-size arrays on
//! the stack (faces of more than [`MAX_FACE_VERTICES`] vertices fall back to their edge or
//! vertex).
//!
//! See also [`super::contact`] (one point), [`manifold_compound`] (compounds).

use super::compound::{self, Collider, PartAnswer};
use super::contact::{Contact, QueryStatus};
use super::dispatch::Rescaled;
use super::feature::{face_normals, support_feature, Feature, FeatureKind};
#[doc(inline)]
pub use super::feature::{DISC_VERTICES, FEATURE_ANGLE_COS, FEATURE_ANGLE_SIN, MAX_FACE_VERTICES};
use super::QueryOptions;
use crate::math::{normalize_robust, Point, Pose, Real, Vector, EPSILON};
use crate::shape::Shape;
use crate::support::SupportMap;
use crate::tolerance;

/// The most points a manifold holds.
pub const MAX_MANIFOLD_POINTS: usize = 4;

/// Points whose separation exceeds `margin` by no more than this, relative to the size
/// of the coordinates involved, are kept (rounding: two boxes resting exactly on each
/// other have corner separations of a few units in the last place either side of 0).
pub const SEPARATION_REL_TOLERANCE: Real = crate::tolerance::DEFAULT_ABS_TOLERANCE;

/// Two nearly parallel edges (two capsules side by side, a box edge along another) give
/// two points only when doing so puts no point farther than this, relative to the size of
/// the coordinates, off its shape's surface; otherwise (skew edges) the contact's single
/// point.
pub const PARALLEL_EDGE_REL_TOLERANCE: Real = 256.0 * EPSILON;

/// One point pair of a [`Manifold`] (world frame, caller's length units).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ManifoldPoint {
    /// Point on A's surface (world frame).
    pub point_a: Point,
    /// Point on B's surface (world frame); `point_b − point_a = distance × normal`.
    pub point_b: Point,
    /// Signed separation along the manifold's normal (length): negative = penetrating,
    /// at most the query's `margin` (plus [`SEPARATION_REL_TOLERANCE`] of the coordinates'
    /// size, for rounding).
    pub distance: Real,
    /// An id of the pair of features that made this point (reference face, incident
    /// vertex or incident edge and clipping plane), the same from one query to the next
    /// while the same features touch. Not unique across different shape pairs. Layout:
    /// bits 24–31 the reference face, bit 23 set when B holds the reference, bit 22 set
    /// for a clipped point, bits 11–21 the incident vertex (or edge), bits 0–10 the
    /// clipping plane (`0x7ff` for an unclipped vertex). A single-point manifold has bits
    /// 24–31 all set and the two features' ids below.
    pub feature: u32,
}

impl ManifoldPoint {
    const ZERO: ManifoldPoint = ManifoldPoint {
        point_a: Vector::ZERO,
        point_b: Vector::ZERO,
        distance: 0.0,
        feature: 0,
    };
}

/// The answer of [`manifold`]: up to [`MAX_MANIFOLD_POINTS`] point pairs sharing one
/// normal (a fixed-capacity array: no allocation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Manifold {
    /// Unit normal from A towards B (world frame). For a face contact it is the
    /// reference face's normal, which may differ from [`super::contact`]'s normal by up
    /// to the feature angle ([`FEATURE_ANGLE_COS`]); for two parallel edges the common
    /// perpendicular of their lines; otherwise the contact's normal.
    /// For an empty manifold (farther apart than the margin) it is the contact's normal,
    /// and means nothing to the caller.
    pub normal: Vector,
    points: [ManifoldPoint; MAX_MANIFOLD_POINTS],
    len: usize,
    /// How the underlying contact was obtained (see [`QueryStatus`]).
    pub status: QueryStatus,
}

impl Manifold {
    /// The manifold of a problem solved at unit size ([`Rescaled`], in A's frame) in
    /// the caller's units and the world frame. Feature ids are kept.
    fn rescaled_back(self, r: &Rescaled, pose_a: &Pose) -> Self {
        self.scaled_back(r.factor, pose_a)
    }

    /// The manifold of a problem solved with every length multiplied by `factor` (a
    /// power of two), in A's frame, back in the caller's units and the world frame
    /// (`pose_a`). Feature ids are kept.
    pub(crate) fn scaled_back(mut self, factor: Real, pose_a: &Pose) -> Self {
        self.normal = pose_a.transform_vector(self.normal);
        for p in &mut self.points[..self.len] {
            p.point_a = pose_a.transform_point(p.point_a / factor);
            p.point_b = pose_a.transform_point(p.point_b / factor);
            p.distance /= factor;
        }
        self
    }

    /// The one-point manifold of a contact (its witnesses, feature 0).
    pub(crate) fn single(c: &Contact) -> Self {
        let mut m = Manifold::empty(c.normal, c.status);
        m.push(ManifoldPoint {
            point_a: c.point_a,
            point_b: c.point_b,
            distance: c.distance,
            feature: 0,
        });
        m
    }

    pub(crate) fn empty(normal: Vector, status: QueryStatus) -> Self {
        Manifold {
            normal,
            points: [ManifoldPoint::ZERO; MAX_MANIFOLD_POINTS],
            len: 0,
            status,
        }
    }

    /// Appends a point (at most [`MAX_MANIFOLD_POINTS`]; the caller keeps count).
    pub(crate) fn push(&mut self, p: ManifoldPoint) {
        self.points[self.len] = p;
        self.len += 1;
    }

    /// The point pairs: 0 (farther apart than the margin) to [`MAX_MANIFOLD_POINTS`], the
    /// deepest first.
    pub fn points(&self) -> &[ManifoldPoint] {
        &self.points[..self.len]
    }

    /// The number of point pairs.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no points (the shapes are farther apart than the margin).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Serializes `{"normal": [x, y, z], "points": [...], "status": "..."}` (the points as
/// [`ManifoldPoint`]s, the deepest first).
#[cfg(feature = "serde")]
impl serde::Serialize for Manifold {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("Manifold", 3)?;
        s.serialize_field("normal", &self.normal)?;
        s.serialize_field("points", self.points())?;
        s.serialize_field("status", &self.status)?;
        s.end()
    }
}

/// Deserializes what [`Manifold`]'s `Serialize` writes; more than
/// [`MAX_MANIFOLD_POINTS`] points is an error.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Manifold {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        struct Fields {
            normal: Vector,
            points: Vec<ManifoldPoint>,
            status: QueryStatus,
        }
        let f = Fields::deserialize(deserializer)?;
        if f.points.len() > MAX_MANIFOLD_POINTS {
            return Err(serde::de::Error::custom(format!(
                "a manifold holds at most {MAX_MANIFOLD_POINTS} points, got {}",
                f.points.len()
            )));
        }
        let mut m = Manifold::empty(f.normal, f.status);
        for p in f.points {
            m.push(p);
        }
        Ok(m)
    }
}

/// The contact manifold of A and B with default options. See [`manifold_with`].
///
/// ```
/// use minkowski::{query, shape::{Cuboid, Shape}, Pose, Vector};
///
/// let table = Shape::from(Cuboid::new(Vector::new(2.0, 0.5, 2.0)).unwrap());
/// let crate_ = Shape::from(Cuboid::new(Vector::new(0.5, 0.5, 0.5)).unwrap());
/// // The crate's bottom at y = 0.48, 0.02 into the table's top at y = 0.5.
/// let at = Pose::from_translation(Vector::new(0.3, 0.98, 0.0)).expect("valid pose");
/// let m = query::manifold(&table, &Pose::IDENTITY, &crate_, &at, 0.0);
/// assert_eq!(m.len(), 4); // the crate's four bottom corners
/// assert!((m.normal - Vector::Y).length() < 1e-6);
/// for p in m.points() {
///     assert!((p.distance - (-0.02)).abs() < 1e-5);
///     assert!((p.point_b - p.point_a - m.normal * p.distance).length() < 1e-5);
/// }
/// ```
pub fn manifold(a: &Shape, pose_a: &Pose, b: &Shape, pose_b: &Pose, margin: Real) -> Manifold {
    manifold_with(a, pose_a, b, pose_b, margin, &QueryOptions::default())
}

/// The contact manifold of A and B at their world poses: up to four point pairs, world
/// frame, normal from A towards B (see the [module documentation](self) for how).
///
/// `margin` (a length, ≥ 0) also reports points separated by less than it, for
/// speculative contacts; with `margin = 0` only touching and penetrating points are
/// reported.
///
/// Outcomes:
/// * farther apart than `margin`: no points;
/// * a face on a face: up to 4 points; an edge on a face, or two parallel edges: up to
///   2; a vertex, a curved surface or two crossing edges: 1 (the contact's witnesses).
///
/// A NaN or negative `margin` is treated as 0. The [`Manifold::status`] is the contact's:
/// a status other than [`QueryStatus::Converged`] means the normal is only as good as
/// the contact query's best answer.
pub fn manifold_with(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    margin: Real,
    options: &QueryOptions,
) -> Manifold {
    manifold_in(a, pose_a, b, pose_b, margin, options, None)
}

/// [`manifold_with`] with EPA's buffers from `workspace` (a
/// [`QueryContext`](super::QueryContext)'s), or from this thread's when `None`.
pub(crate) fn manifold_in(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    margin: Real,
    options: &QueryOptions,
    workspace: Option<&mut super::epa::EpaWorkspace>,
) -> Manifold {
    if let Some(r) = Rescaled::of(a, b, &pose_a.inv_mul(pose_b)) {
        let m = manifold_in(
            &r.a,
            &Pose::IDENTITY,
            &r.b,
            &r.rel,
            margin * r.factor,
            options,
            workspace,
        );
        return m.rescaled_back(&r, pose_a);
    }
    let c = super::dispatch::contact_in(a, pose_a, b, pose_b, options, None, workspace);
    from_contact_unscaled(a, pose_a, b, pose_b, &c, margin)
}

/// The contact manifold of two colliders, either of which may be a compound: the
/// manifold of the part pair that [`compound::contact`] picks (the deepest overlapping
/// pair, else the closest), with the parts named. Frames, units and outcomes as
/// [`manifold_with`].
pub fn manifold_compound(
    a: &Collider,
    pose_a: &Pose,
    b: &Collider,
    pose_b: &Pose,
    margin: Real,
    options: &QueryOptions,
) -> PartAnswer<Manifold> {
    let c = compound::contact(a, pose_a, b, pose_b, options);
    let (sa, qa) = piece(a, c.part_a, pose_a);
    let (sb, qb) = piece(b, c.part_b, pose_b);
    PartAnswer {
        answer: from_contact(sa, &qa, sb, &qb, &c.answer, margin),
        part_a: c.part_a,
        part_b: c.part_b,
    }
}

/// A collider's convex piece and its world pose.
fn piece<'a>(c: &'a Collider, part: Option<u32>, pose: &Pose) -> (&'a Shape, Pose) {
    match c {
        Collider::Convex(s) => (s, *pose),
        Collider::Compound(k) => {
            let (p, s) = &k.parts()[part.unwrap_or(0) as usize];
            (s, pose.mul(p))
        }
    }
}

/// Up to this many candidates, the reduction tries every 4-subset (1820 at most) instead
/// of improving the greedy choice by single swaps.
const EXHAUSTIVE_REDUCTION: usize = 16;

/// Room for a clipped polygon: an incident face clipped by a reference face's planes
/// gains at most one vertex per plane.
const CLIP_CAPACITY: usize = 2 * MAX_FACE_VERTICES + 2;

/// Features of at most this many vertices (boxes, pyramids, triangles, small hulls) are
/// clipped first in buffers of [`SMALL_CLIP_CAPACITY`]: the clip's buffers are filled
/// and copied whole, and a box pair needs a seventh of [`CLIP_CAPACITY`]. Should a
/// rounding-degenerate polygon gain more vertices than that, the clip is done again at
/// full capacity, so the answer is the same as with full-capacity buffers throughout.
const SMALL_FACE_VERTICES: usize = 8;

/// Room for a clipped polygon of at most [`SMALL_FACE_VERTICES`] vertices.
const SMALL_CLIP_CAPACITY: usize = 2 * SMALL_FACE_VERTICES + 2;

/// A vertex of a polygon being clipped: the point, its id, and the id of the edge that
/// starts at it.
#[derive(Debug, Clone, Copy)]
struct ClipVertex {
    p: Point,
    id: u32,
    edge: u32,
}

/// A list of at most `CAP` clip vertices; pushes beyond are dropped and remembered.
struct ClipBuf<const CAP: usize> {
    v: [ClipVertex; CAP],
    len: usize,
    /// Whether a push was dropped.
    overflowed: bool,
}

impl<const CAP: usize> ClipBuf<CAP> {
    fn new() -> Self {
        ClipBuf {
            v: [ClipVertex {
                p: Vector::ZERO,
                id: 0,
                edge: 0,
            }; CAP],
            len: 0,
            overflowed: false,
        }
    }
    fn push(&mut self, c: ClipVertex) {
        if self.len < CAP {
            self.v[self.len] = c;
            self.len += 1;
        } else {
            self.overflowed = true;
        }
    }
    fn as_slice(&self) -> &[ClipVertex] {
        &self.v[..self.len]
    }
}

/// Id bits: see [`ManifoldPoint::feature`].
const ID_FIELD: u32 = 0x7ff;
const ID_CLIPPED: u32 = 1 << 22;
const ID_REF_B: u32 = 1 << 23;
/// Edge ids of edges that run along a clipping plane.
const EDGE_ON_PLANE: u32 = 0x400;

fn clipped_id(edge: u32, plane: usize) -> u32 {
    ID_CLIPPED | (edge & ID_FIELD) << 11 | (plane as u32 & ID_FIELD)
}

fn vertex_id(v: u32) -> u32 {
    (v & 0x3ff) << 11 | ID_FIELD
}

/// One Sutherland–Hodgman pass: keeps the part of the closed polygon `input` where
/// `(x − o) · s ≥ 0`.
fn clip_polygon<const CAP: usize>(
    input: &[ClipVertex],
    o: Point,
    s: Vector,
    plane: usize,
    out: &mut ClipBuf<CAP>,
) {
    out.len = 0;
    let n = input.len();
    for i in 0..n {
        let (cur, next) = (input[i], input[(i + 1) % n]);
        let (dc, dn) = ((cur.p - o).dot(s), (next.p - o).dot(s));
        let (cin, nin) = (dc >= 0.0, dn >= 0.0);
        if cin {
            out.push(cur);
        }
        if cin != nin {
            let t = dc / (dc - dn);
            let p = cur.p + (next.p - cur.p) * t;
            let id = clipped_id(cur.edge, plane);
            // Leaving: the new edge runs along the plane; entering: along cur's edge.
            let edge = if cin {
                EDGE_ON_PLANE | plane as u32
            } else {
                cur.edge
            };
            out.push(ClipVertex { p, id, edge });
        }
    }
}

/// Clips the segment `(p, q)` (ids `ip`, `iq`, edge id `edge`) by the planes: the part
/// where `(x − o) · s ≥ 0` for every plane. `None` when nothing is left.
fn clip_segment(
    p: Point,
    q: Point,
    ids: [u32; 2],
    edge: u32,
    planes: &[(Point, Vector)],
) -> Option<[(Point, u32); 2]> {
    let (mut t0, mut t1) = (0.0 as Real, 1.0 as Real);
    let (mut id0, mut id1) = (vertex_id(ids[0]), vertex_id(ids[1]));
    for (k, &(o, s)) in planes.iter().enumerate() {
        let (dp, dq) = ((p - o).dot(s), (q - o).dot(s));
        if dp < 0.0 && dq < 0.0 {
            return None;
        }
        if dp < 0.0 {
            let t = dp / (dp - dq);
            if t > t0 {
                t0 = t;
                id0 = clipped_id(edge, k);
            }
        } else if dq < 0.0 {
            let t = dp / (dp - dq);
            if t < t1 {
                t1 = t;
                id1 = clipped_id(edge, k);
            }
        }
    }
    if t0 > t1 {
        return None;
    }
    let at = |t: Real| {
        if t == 0.0 {
            p
        } else if t == 1.0 {
            q
        } else {
            p + (q - p) * t
        }
    };
    Some([(at(t0), id0), (at(t1), id1)])
}

/// A candidate point: the incident point, its separation from the reference plane, id.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Candidate {
    pub q: Point,
    pub s: Real,
    pub id: u32,
}

impl Candidate {
    const ZERO: Candidate = Candidate {
        q: Vector::ZERO,
        s: 0.0,
        id: 0,
    };
}

/// The clipping step of [`from_contact`]: the reference and incident features, the
/// reference point `o` and normal `nr`, the separation up to which points are kept
/// (`keep`) and the rounding slack of the side planes.
struct Clipping<'f> {
    rf: &'f Feature,
    inc: &'f Feature,
    o: Point,
    nr: Vector,
    keep: Real,
    slack: Real,
}

impl Clipping<'_> {
    /// The clipped incident points within `keep` of the reference plane, with their
    /// separations, written into one of `bufs`: `(which buffer, how many)`, `(0, 0)` when
    /// none, and whether a clipped polygon outgrew `CAP` (vertices dropped: a caller
    /// with a small `CAP` clips again with more room).
    ///
    /// Exactly first; if that leaves nothing, or points all within `64 · slack` of each
    /// other, once more with the side planes moved out by the rounding tolerance: faces
    /// that touch along a shared edge line overlap by zero width, which rounding turns
    /// into nothing or a single corner. The wider answer is kept. (Not always with the
    /// slack: it moves a sharp corner of the reference face out by
    /// `slack / sin(angle/2)`.)
    fn candidates<const CAP: usize>(
        &self,
        bufs: &mut [[Candidate; CAP]; 2],
    ) -> (usize, usize, bool) {
        let (mut best, mut kept, mut extent) = (0, 0, 0.0 as Real);
        let mut overflowed = false;
        for pass in [0.0, self.slack] {
            // The buffer not holding the answer so far.
            let w = if kept > 0 { 1 - best } else { best };
            let buf = &mut bufs[w];
            let mut nb = 0;
            overflowed |= clip(self.rf, self.inc, pass, buf, &mut nb);
            // Separations from the reference plane along its outward normal.
            let mut k = 0;
            for i in 0..nb {
                let s = (buf[i].q - self.o).dot(self.nr);
                if s <= self.keep {
                    buf[k] = Candidate { s, ..buf[i] };
                    k += 1;
                }
            }
            let wide = (1..k)
                .map(|i| (buf[i].q - buf[0].q).length())
                .fold(0.0, Real::max);
            if k > 0 && (kept == 0 || wide > extent) {
                (best, kept, extent) = (w, k, wide);
            }
            if kept > 0 && extent > 64.0 * self.slack {
                break;
            }
        }
        (best, kept, overflowed)
    }
}

/// Builds the manifold from a contact already computed for the same pair and poses.
///
/// A problem small enough for the dispatcher to rescale ([`Rescaled`]) is built at unit
/// size too, the contact moved into that frame: the clipping forms products of lengths
/// that underflow (in `f32`, a box on a triangle of 1e-24 lost its manifold).
pub(crate) fn from_contact(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    c: &Contact,
    margin: Real,
) -> Manifold {
    // (A turn changes the largest coordinate of the offset by at most √3: far enough
    // apart in the world frame, the relative pose need not be formed.)
    let apart = (pose_b.translation() - pose_a.translation())
        .abs()
        .max_element();
    let small = apart < 2.0 * tolerance::RESCALE_BELOW;
    if let Some(r) = small
        .then(|| Rescaled::of(a, b, &pose_a.inv_mul(pose_b)))
        .flatten()
    {
        let at = |p: Point| pose_a.inverse_transform_point(p) * r.factor;
        let scaled = Contact {
            distance: c.distance * r.factor,
            lower_bound: c.lower_bound * r.factor,
            upper_bound: c.upper_bound * r.factor,
            normal: pose_a.inverse_transform_vector(c.normal),
            point_a: at(c.point_a),
            point_b: at(c.point_b),
            ..*c
        };
        let margin = margin * r.factor;
        return from_contact_unscaled(&r.a, &Pose::IDENTITY, &r.b, &r.rel, &scaled, margin)
            .rescaled_back(&r, pose_a);
    }
    from_contact_unscaled(a, pose_a, b, pose_b, c, margin)
}

/// [`from_contact`] without the rescaling.
fn from_contact_unscaled(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    c: &Contact,
    margin: Real,
) -> Manifold {
    let margin = if margin > 0.0 { margin } else { 0.0 };
    // A NaN distance (never produced on validated input) gives no points.
    if c.distance.is_nan() || c.distance > margin {
        return Manifold::empty(c.normal, c.status);
    }
    let (n, fa, fb) = match features(a, pose_a, b, pose_b, c) {
        Some(f) => f,
        None => {
            let fa = support_feature(a, pose_a, c.normal);
            let fb = support_feature(b, pose_b, -c.normal);
            return single_point(c, c.normal, &fa, &fb);
        }
    };
    let single = || single_point(c, n, &fa, &fb);
    use FeatureKind::{Point as P, Polygon, Segment};
    // Which feature is the reference: A's (false) or B's (true); None for one point.
    let ref_b = match (fa.kind, fb.kind) {
        (Polygon, Polygon) => {
            let (ca, cb) = (fa.normal.dot(n), -fb.normal.dot(n));
            cb > ca + 1e-5
        }
        (Polygon, Segment) => false,
        (Segment, Polygon) => true,
        (Segment, Segment) => {
            let (ea, eb) = (fa.points[1] - fa.points[0], fb.points[1] - fb.points[0]);
            let sin = ea.cross(eb).length() / (ea.length() * eb.length());
            if sin <= FEATURE_ANGLE_SIN {
                false
            } else {
                return single();
            }
        }
        (P, _) | (_, P) => return single(),
    };
    let (rf, inc) = if ref_b { (&fb, &fa) } else { (&fa, &fb) };
    let mut size: Real = margin;
    for p in rf.pts().iter().chain(inc.pts()) {
        size = size.max(p.abs().max_element());
    }
    let slack = SEPARATION_REL_TOLERANCE * size;
    let o = rf.points[0];
    let nr = match rf.kind {
        FeatureKind::Polygon => rf.normal,
        // Two parallel edges: the common perpendicular of their lines (from A's towards
        // B's, turned to agree with the contact's normal), not the contact's normal, whose
        // error would set the projections beside the edge. Lines that meet keep the
        // feature's normal.
        _ => {
            let e = normalize_robust(rf.points[1] - rf.points[0]).unwrap_or(Vector::ZERO);
            let w = inc.points[0] - o;
            let perp = w - e * w.dot(e);
            match normalize_robust(perp) {
                Some(p) if perp.length() > slack => {
                    if p.dot(n) < 0.0 {
                        -p
                    } else {
                        p
                    }
                }
                _ => rf.normal,
            }
        }
    };
    let keep = margin + slack;
    let clipping = Clipping {
        rf,
        inc,
        o,
        nr,
        keep,
        slack,
    };
    let (mut small, mut large);
    let small_answer = if rf.len <= SMALL_FACE_VERTICES && inc.len <= SMALL_FACE_VERTICES {
        small = [[Candidate::ZERO; SMALL_CLIP_CAPACITY]; 2];
        match clipping.candidates(&mut small) {
            (w, k, false) => Some(&small[w][..k]),
            (_, _, true) => None,
        }
    } else {
        None
    };
    let cands: &[Candidate] = match small_answer {
        Some(c) => c,
        None => {
            large = [[Candidate::ZERO; CLIP_CAPACITY]; 2];
            let (w, k, _) = clipping.candidates(&mut large);
            &large[w][..k]
        }
    };
    let kept = cands.len();
    if kept == 0 {
        return single();
    }
    if rf.kind == Segment {
        // Two edges within the feature angle of parallel may still be skew, and then no
        // two point pairs share a normal with both points on the edges: the projection
        // of an incident point onto the reference plane lands beside the reference edge
        // (by `lateral`), which puts it off A's surface by `hypot(r, lateral) − r` for
        // A's rounding radius `r`. Beyond the rounding tolerance, one point it is.
        let (_, radius) = a.core();
        let side = match normalize_robust(rf.points[1] - rf.points[0]) {
            Some(e) => e.cross(nr),
            None => return single(),
        };
        let limit = PARALLEL_EDGE_REL_TOLERANCE * size;
        for k in cands {
            let lateral = (k.q - o).dot(side).abs();
            let off = if lateral > 0.0 {
                lateral * lateral / ((radius * radius + lateral * lateral).sqrt() + radius)
            } else {
                0.0
            };
            if off.is_nan() || off > limit {
                return single();
            }
        }
    }
    let base = (rf.id & 0xff) << 24 | if ref_b { ID_REF_B } else { 0 };
    let normal = if ref_b { -nr } else { nr };
    let mut m = Manifold::empty(normal, c.status);
    let (picked, np) = reduce(cands, nr, size);
    for &i in &picked[..np] {
        let k = cands[i];
        // The incident point and its projection onto the reference plane.
        let on_ref = k.q - nr * k.s;
        let (point_a, point_b) = if ref_b { (k.q, on_ref) } else { (on_ref, k.q) };
        m.push(ManifoldPoint {
            point_a,
            point_b,
            distance: k.s,
            feature: base | k.id,
        });
    }
    m
}

/// The one-point manifold: the contact's witnesses, re-centred so that
/// `point_b − point_a = distance · n` holds to rounding (iterative witnesses meet it only
/// to the solver's tolerance; each point moves by half that error).
fn single_point(c: &Contact, n: Vector, fa: &Feature, fb: &Feature) -> Manifold {
    let mut m = Manifold::empty(n, c.status);
    let mid = (c.point_a + c.point_b) * 0.5;
    let half = n * (c.distance * 0.5);
    m.push(ManifoldPoint {
        point_a: mid - half,
        point_b: mid + half,
        distance: c.distance,
        feature: 0xff00_0000 | (fa.id & 0xfff) << 12 | (fb.id & 0xfff),
    });
    m
}

/// The normal and the two support features the manifold is built on, or `None` when
/// the manifold must be the contact's single point.
///
/// Mostly the contact's normal and the features facing along it. But between two
/// shapes a hair apart the contact's normal is only as good as the rounding of their
/// coordinates over that distance: f32 boxes side by side 10⁻⁵ apart at a height of 12
/// (coordinates rounded to 10⁻⁶) got normals from 6° to 48° off the face normal, and the
/// features facing along them were the bottom edge of one box and the top edge of the
/// other, a whole box apart: a manifold a whole box deep. A normal is checked by the
/// separation it gives,
///
/// ```text
/// sep(m) = min_{y ∈ B} m · y − max_{x ∈ A} m · x,
/// ```
///
/// the separating-axis function: it is at most the signed distance along every `m`,
/// equals it at the true normal, and bounds every manifold point built on `m` from below
/// (an incident point of B lies at least `sep(m)` beyond A's support plane). When the
/// contact's normal falls short of the contact's certified lower bound on the signed
/// distance by more than the rounding tolerance (EPA's and GJK's normals are only as
/// accurate as their own tolerances, which that interval reflects), every face normal of A and every reversed face normal of B is tried
/// (separating-axis candidates; [`face_normals`]) and the best kept; when even that falls
/// short, no normal is trusted and the contact's single point is the answer.
fn features(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    c: &Contact,
) -> Option<(Vector, Feature, Feature)> {
    let n = c.normal;
    // In A's frame, where the coordinates are the pair's own size.
    let rel = pose_a.inv_mul(pose_b);
    let sep = |m: Vector| {
        let ma = pose_a.inverse_transform_vector(m);
        rel.translation().dot(ma)
            - b.support_value(rel.inverse_transform_vector(-ma))
            - a.support_value(ma)
    };
    let size = rel
        .translation()
        .abs()
        .max_element()
        .max(a.bounding_radius())
        .max(b.bounding_radius());
    let tolerance = SEPARATION_REL_TOLERANCE * size;
    let along_n = sep(n);
    // The true signed distance is at least the contact's lower bound, and the true
    // normal separates by it: a normal that does too is as good as the contact can tell.
    let floor = c.lower_bound.min(c.distance) - tolerance;
    if along_n.is_nan() || along_n >= floor {
        return Some((
            n,
            support_feature(a, pose_a, n),
            support_feature(b, pose_b, -n),
        ));
    }
    let mut best = (along_n, n);
    let mut try_normal = |m: Vector| {
        let s = sep(m);
        if s > best.0 {
            best = (s, m);
        }
    };
    face_normals(a, pose_a, &mut |m| try_normal(m));
    face_normals(b, pose_b, &mut |m| try_normal(-m));
    let (s, m) = best;
    if s < floor {
        return None;
    }
    Some((
        m,
        support_feature(a, pose_a, m),
        support_feature(b, pose_b, -m),
    ))
}

/// Clips the incident feature against the reference feature's side planes.
///
/// The side planes are moved outwards by `slack` (a length). Whether a clipped polygon
/// outgrew `CAP` (vertices dropped; `CAP` must be at least the reference feature's
/// vertex count).
fn clip<const CAP: usize>(
    rf: &Feature,
    inc: &Feature,
    slack: Real,
    out: &mut [Candidate; CAP],
    len: &mut usize,
) -> bool {
    let mut planes = [(Vector::ZERO, Vector::ZERO); CAP];
    let mut add = |i: usize, o: Point, s: Vector| {
        let shift = normalize_robust(s).map_or(Vector::ZERO, |u| u * slack);
        planes[i] = (o - shift, s);
    };
    let np = match rf.kind {
        FeatureKind::Polygon => {
            let r = rf.pts();
            for i in 0..r.len() {
                let e = r[(i + 1) % r.len()] - r[i];
                // Inward for a polygon counter-clockwise about its normal.
                add(i, r[i], rf.normal.cross(e));
            }
            r.len()
        }
        _ => {
            let e = rf.points[1] - rf.points[0];
            add(0, rf.points[0], e);
            add(1, rf.points[1], -e);
            2
        }
    };
    let planes = &planes[..np];
    *len = 0;
    match inc.kind {
        FeatureKind::Polygon => {
            let mut bufs = [ClipBuf::<CAP>::new(), ClipBuf::<CAP>::new()];
            for (&p, &id) in inc.pts().iter().zip(&inc.ids) {
                bufs[0].push(ClipVertex {
                    p,
                    id: vertex_id(id),
                    edge: id & 0x3ff,
                });
            }
            let mut cur = 0;
            for (k, &(o, s)) in planes.iter().enumerate() {
                let (x, y) = bufs.split_at_mut(1);
                let (src, dst) = if cur == 0 {
                    (&x[0], &mut y[0])
                } else {
                    (&y[0], &mut x[0])
                };
                clip_polygon(src.as_slice(), o, s, k, dst);
                cur = 1 - cur;
                if bufs[cur].len == 0 {
                    return bufs[0].overflowed || bufs[1].overflowed;
                }
            }
            for v in bufs[cur].as_slice() {
                out[*len] = Candidate {
                    q: v.p,
                    s: 0.0,
                    id: v.id,
                };
                *len += 1;
            }
            bufs[0].overflowed || bufs[1].overflowed
        }
        _ => {
            let ids = [inc.ids[0], inc.ids[1]];
            if let Some(pts) = clip_segment(inc.points[0], inc.points[1], ids, 0, planes) {
                for (q, id) in pts {
                    out[*len] = Candidate { q, s: 0.0, id };
                    *len += 1;
                }
            }
            false
        }
    }
}

/// The manifold of several touching point pairs that share the unit `normal` (world
/// frame, from A towards B; each pair with `point_b − point_a = distance · normal`):
/// the same reduction to at most [`MAX_MANIFOLD_POINTS`] as a single pair of shapes,
/// `size` the coordinates' magnitude (for the rounding floors). The static-geometry
/// queries merge the triangles of one touching region with it.
pub(crate) fn reduced(
    normal: Vector,
    status: QueryStatus,
    points: &[ManifoldPoint],
    size: Real,
) -> Manifold {
    let mut m = Manifold::empty(normal, status);
    // At most four indices: all the points, or the four that `reduce` keeps.
    let mut idx = [0usize; MAX_MANIFOLD_POINTS];
    let len = if points.len() <= MAX_MANIFOLD_POINTS {
        for (k, slot) in idx.iter_mut().enumerate().take(points.len()) {
            *slot = k;
        }
        points.len()
    } else {
        let cands: Vec<Candidate> = points
            .iter()
            .map(|p| Candidate {
                q: p.point_b,
                s: p.distance,
                id: p.feature,
            })
            .collect();
        let (keep, n) = reduce(&cands, normal, size);
        idx[..n].copy_from_slice(&keep[..n]);
        idx[..n].sort_unstable();
        n
    };
    let idx = &mut idx[..len];
    // The deepest first, the others in the order given.
    if let Some(d) =
        (0..idx.len()).min_by(|&x, &y| points[idx[x]].distance.total_cmp(&points[idx[y]].distance))
    {
        idx[..=d].rotate_right(1);
    }
    for &i in idx.iter() {
        m.push(points[i]);
    }
    m
}

/// Picks at most four of the candidates (indices): the deepest, the farthest from it,
/// the largest triangle, the largest added area. Points closer than the rounding
/// tolerance to one already kept are not kept.
pub(crate) fn reduce(
    c: &[Candidate],
    nr: Vector,
    size: Real,
) -> ([usize; MAX_MANIFOLD_POINTS], usize) {
    // The choice compares squared lengths and areas, which underflow for a tiny
    // manifold (a box face of 1e-20 in `f32` kept one point): its points are then
    // measured in units of its size (a power of two, exact; only indices come back).
    if let Some(unit) = tolerance::rescale_factor(size) {
        return reduce_in_units(c, nr, size, unit);
    }
    reduce_in_units(c, nr, size, 1.0)
}

/// [`reduce`] with the points' positions multiplied by `unit` (the depths are compared
/// as given).
#[inline(always)]
fn reduce_in_units(
    c: &[Candidate],
    nr: Vector,
    size: Real,
    unit: Real,
) -> ([usize; MAX_MANIFOLD_POINTS], usize) {
    let mut keep = [usize::MAX; MAX_MANIFOLD_POINTS];
    let tiny = 64.0 * EPSILON * (size * unit).max(Real::MIN_POSITIVE);
    // On the reference plane (the separation along nr removed).
    let at = |i: usize| (c[i].q - nr * c[i].s) * unit;
    let mut deepest = 0;
    for i in 1..c.len() {
        if c[i].s < c[deepest].s {
            deepest = i;
        }
    }
    // Points as deep up to rounding are equally deep (faces resting flat): of those, the
    // smallest id, so that the choice does not flicker with the last bits.
    let depth_tol = SEPARATION_REL_TOLERANCE * size;
    let mut i0 = deepest;
    for i in 0..c.len() {
        if c[i].s <= c[deepest].s + depth_tol && c[i].id < c[i0].id {
            i0 = i;
        }
    }
    keep[0] = i0;
    let p0 = at(i0);
    let mut best = (tiny * tiny, usize::MAX);
    for i in 0..c.len() {
        let d = (at(i) - p0).length_squared();
        if d > best.0 {
            best = (d, i);
        }
    }
    if best.1 == usize::MAX {
        return (keep, 1);
    }
    keep[1] = best.1;
    let p1 = at(best.1);
    let e = p1 - p0;
    let mut best = (tiny * e.length(), usize::MAX);
    for i in 0..c.len() {
        let area = e.cross(at(i) - p0).dot(nr).abs();
        if area > best.0 {
            best = (area, i);
        }
    }
    if best.1 == usize::MAX {
        return (keep, 2);
    }
    keep[2] = best.1;
    // The triangle counter-clockwise about nr.
    let p2 = at(best.1);
    let tri = if e.cross(p2 - p0).dot(nr) >= 0.0 {
        [p0, p1, p2]
    } else {
        [p0, p2, p1]
    };
    let mut best = (tiny * e.length(), usize::MAX);
    for i in 0..c.len() {
        let q = at(i);
        let mut added = 0.0;
        for k in 0..3 {
            let (u, v) = (tri[k], tri[(k + 1) % 3]);
            let s = (v - u).cross(q - u).dot(nr);
            if s < 0.0 {
                added -= s;
            }
        }
        if added > best.0 {
            best = (added, i);
        }
    }
    if best.1 == usize::MAX {
        return (keep, 3);
    }
    keep[3] = best.1;
    // The greedy choice can miss the best quadrilateral by over 10% (a pentagon cut from
    // a rotated square); a few rounds of swapping a kept point for a candidate that
    // enlarges the area close most of that gap. The deepest point stays, or gives way to
    // one as deep up to rounding.
    let area = |k: &[usize; 4]| quad_area([at(k[0]), at(k[1]), at(k[2]), at(k[3])], nr);
    let mut current = area(&keep);
    let deep = |i: usize| c[i].s <= c[deepest].s + depth_tol;
    if c.len() <= EXHAUSTIVE_REDUCTION {
        // Few candidates (a clipped box face has at most 8): every 4-subset that holds a
        // deepest point, in a fixed order, replacing the greedy choice only when larger.
        let n = c.len();
        for i in 0..n {
            for j in i + 1..n {
                for k in j + 1..n {
                    for l in k + 1..n {
                        let q = [i, j, k, l];
                        let Some(&d) = q.iter().filter(|&&x| deep(x)).min_by_key(|&&x| c[x].id)
                        else {
                            continue;
                        };
                        let a = area(&q);
                        if a > current * (1.0 + 16.0 * EPSILON) {
                            // The deepest first, the others in index order.
                            let mut t = [d; 4];
                            let mut at_ = 1;
                            for &x in &q {
                                if x != d {
                                    t[at_] = x;
                                    at_ += 1;
                                }
                            }
                            (keep, current) = (t, a);
                        }
                    }
                }
            }
        }
        return (keep, 4);
    }
    for _ in 0..3 {
        let mut improved = false;
        for slot in 0..4 {
            for i in 0..c.len() {
                // The deepest may only give way to a point as deep, up to rounding.
                if keep.contains(&i) || (slot == 0 && !deep(i)) {
                    continue;
                }
                let mut trial = keep;
                trial[slot] = i;
                let a = area(&trial);
                if a > current * (1.0 + 16.0 * EPSILON) {
                    (keep, current, improved) = (trial, a, true);
                }
            }
        }
        if !improved {
            break;
        }
    }
    (keep, 4)
}

/// Twice the area of the convex hull of four points on a plane with normal `nr`: the
/// largest of the three cyclic orders and the four triangles (a point inside the
/// triangle of the other three leaves that triangle as the hull).
fn quad_area(p: [Point; 4], nr: Vector) -> Real {
    let poly = |o: [usize; 4]| {
        let mut s = Vector::ZERO;
        for k in 0..4 {
            s += p[o[k]].cross(p[o[(k + 1) % 4]]);
        }
        s.dot(nr).abs()
    };
    let tri = |i: usize, j: usize, k: usize| (p[j] - p[i]).cross(p[k] - p[i]).dot(nr).abs();
    poly([0, 1, 2, 3])
        .max(poly([0, 1, 3, 2]))
        .max(poly([0, 2, 1, 3]))
        .max(tri(0, 1, 2))
        .max(tri(0, 1, 3))
        .max(tri(0, 2, 3))
        .max(tri(1, 2, 3))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Rotation;
    use crate::shape::Cuboid;

    fn rng(seed: u64) -> impl FnMut() -> Real {
        let mut s = seed;
        move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 40) as Real / (1u64 << 24) as Real
        }
    }

    /// The clip in small buffers against the clip in full-capacity buffers (the
    /// oracle): boxes resting face on face, turned about the normal (up to octagons),
    /// tilted within the feature angle, offset so that some overlap only in part; the
    /// same candidates bit for bit, and no overflow. Buffers too small for an octagon
    /// say so.
    #[test]
    fn small_clip_buffers_match_full_capacity() {
        let mut r = rng(11);
        let (mut octagons, mut partial, mut overflows) = (0, 0, 0);
        for _ in 0..500 {
            let ha = Vector::new(0.5 + r(), 0.2 + r(), 0.5 + r());
            // Half centred with B's top about A's size (octagons), half anywhere.
            let centred = r() < 0.5;
            let hb = if centred {
                Vector::new(
                    ha.x * (0.9 + 0.2 * r()),
                    0.2 + r(),
                    ha.z * (0.9 + 0.2 * r()),
                )
            } else {
                Vector::new(0.3 + r(), 0.2 + r(), 0.3 + r())
            };
            let reach = if centred { 0.05 } else { 2.0 };
            let a = Shape::from(Cuboid::new(ha).unwrap());
            let b = Shape::from(Cuboid::new(hb).unwrap());
            let pa = Pose::new(
                Rotation::from_rotation_y(r() * 6.0),
                Vector::new(r() * 200.0 - 100.0, r() * 10.0, r() * 200.0 - 100.0),
            )
            .unwrap();
            let tilt = Rotation::from_rotation_x((r() - 0.5) * 0.04)
                * Rotation::from_rotation_y(0.3 + r() * 1.0);
            let local = Pose::new(
                tilt,
                Vector::new(
                    (r() - 0.5) * reach * (ha.x + hb.x),
                    ha.y + hb.y + (r() - 0.5) * 0.02,
                    (r() - 0.5) * reach * (ha.z + hb.z),
                ),
            )
            .unwrap();
            let pb = pa.mul(&local);
            let up = pa.transform_vector(Vector::Y);
            let rf = support_feature(&a, &pa, up);
            let inc = support_feature(&b, &pb, -up);
            assert_eq!(
                (rf.kind, inc.kind),
                (FeatureKind::Polygon, FeatureKind::Polygon)
            );
            let size = rf
                .pts()
                .iter()
                .chain(inc.pts())
                .fold(0.02 as Real, |m, p| m.max(p.abs().max_element()));
            let slack = SEPARATION_REL_TOLERANCE * size;
            let clipping = Clipping {
                rf: &rf,
                inc: &inc,
                o: rf.points[0],
                nr: rf.normal,
                keep: 0.02 + slack,
                slack,
            };
            let mut small = [[Candidate::ZERO; SMALL_CLIP_CAPACITY]; 2];
            let mut large = [[Candidate::ZERO; CLIP_CAPACITY]; 2];
            let (ws, ks, over) = clipping.candidates(&mut small);
            let (wl, kl, _) = clipping.candidates(&mut large);
            assert!(!over, "a box pair outgrew the small buffers");
            assert_eq!(ks, kl);
            for (x, y) in small[ws][..ks].iter().zip(&large[wl][..kl]) {
                assert_eq!(
                    x.q.to_array().map(Real::to_bits),
                    y.q.to_array().map(Real::to_bits)
                );
                assert_eq!((x.s.to_bits(), x.id), (y.s.to_bits(), y.id));
            }
            if ks == 8 {
                octagons += 1;
                let mut tiny = [[Candidate::ZERO; 4]; 2];
                let (_, _, over) = clipping.candidates(&mut tiny);
                assert!(over, "eight points fitted in four places");
                overflows += 1;
            }
            if (1..4).contains(&ks) || (5..8).contains(&ks) {
                partial += 1;
            }
        }
        assert!(
            octagons > 20 && partial > 50,
            "{octagons} octagons, {partial} partial"
        );
        assert_eq!(overflows, octagons);
    }
}
