//! Queries between colliders that may be compounds: every narrow-phase query, answered
//! part by part, with the parts that answered.
//!
//! A [`Collider`] is a convex [`Shape`] or a [`Compound`]. For a pair involving a
//! compound, candidate part pairs are those whose boxes overlap (for intersection and
//! contact) or all part pairs in order of box distance, pruned by the best distance found
//! so far (for distance and closest points); each candidate is answered by the convex
//! queries of [`crate::query`]. The answers are the *union* over parts for intersection,
//! the *minimum* over parts for distance, and for contact the deepest overlapping part pair
//! (or, when nothing overlaps, the closest one). Frames and units are those of the convex
//! queries: world frame, normal from A towards B.

use std::sync::Arc;

use super::{closest_points_with, contact_with, distance_with, intersects_with};
use super::{ClosestPoints, Contact, QueryOptions};
use crate::bounding::Aabb;
use crate::math::{Pose, Real};
use crate::shape::{Compound, Shape};
use crate::tolerance;

/// A convex shape or a compound of convex parts.
#[derive(Debug, Clone, PartialEq)]
pub enum Collider {
    /// One convex shape.
    Convex(Shape),
    /// A compound (shared: cloning a collider does not copy its parts).
    Compound(Arc<Compound>),
}

impl From<Shape> for Collider {
    fn from(s: Shape) -> Self {
        Collider::Convex(s)
    }
}

impl From<Compound> for Collider {
    fn from(c: Compound) -> Self {
        Collider::Compound(Arc::new(c))
    }
}

impl Collider {
    /// Bounding box in the collider's local frame.
    pub fn local_aabb(&self) -> Aabb {
        match self {
            Collider::Convex(s) => s.local_aabb(),
            Collider::Compound(c) => c.local_aabb(),
        }
    }

    /// The radius of a ball about the local origin that contains the collider (length
    /// units; see [`Shape::bounding_radius`]). A compound's is its parts' largest
    /// distance from the origin plus radius, or its box's farthest corner if less.
    pub fn bounding_radius(&self) -> Real {
        match self {
            Collider::Convex(s) => s.bounding_radius(),
            Collider::Compound(c) => {
                let parts = c
                    .parts()
                    .iter()
                    .map(|(pose, s)| pose.translation().length() + s.bounding_radius())
                    .fold(0.0, Real::max);
                (parts * (1.0 + 4.0 * crate::math::EPSILON)).min(c.local_aabb().origin_radius())
            }
        }
    }

    /// The convex pieces with their poses in the world, given the collider's pose.
    fn piece(&self, i: u32, pose: &Pose) -> (&Shape, Pose) {
        match self {
            Collider::Convex(s) => (s, *pose),
            Collider::Compound(c) => {
                let (p, s) = &c.parts()[i as usize];
                (s, pose.mul(p))
            }
        }
    }

    fn part_index(&self, i: u32) -> Option<u32> {
        matches!(self, Collider::Compound(_)).then_some(i)
    }

    /// Indices of the pieces whose world boxes, [`grown`] by `tol`, overlap `world_box`
    /// (all of them, i.e. `[0]`, for a convex shape whose box overlaps).
    fn pieces_near(&self, pose: &Pose, world_box: &Aabb, tol: Real) -> Vec<u32> {
        match self {
            Collider::Convex(s) => {
                if grown(s.local_aabb().transformed(pose), tol).intersects(world_box) {
                    vec![0]
                } else {
                    Vec::new()
                }
            }
            Collider::Compound(c) => {
                // The world box in the compound's frame (conservative), then the tree.
                let local = grown(world_box.transformed(&pose.inverse()), tol);
                let mut out = Vec::new();
                c.parts_near(&local, |i| out.push(i));
                // Re-check with the parts' world boxes (the frame change loosens).
                out.retain(|&i| {
                    grown(c.part_aabb(i as usize).transformed(pose), tol).intersects(world_box)
                });
                out.sort_unstable();
                out
            }
        }
    }

    fn count(&self) -> u32 {
        match self {
            Collider::Convex(_) => 1,
            Collider::Compound(c) => c.parts().len() as u32,
        }
    }

    fn piece_box(&self, i: u32, pose: &Pose) -> Aabb {
        match self {
            Collider::Convex(s) => s.local_aabb().transformed(pose),
            Collider::Compound(c) => c.part_aabb(i as usize).transformed(pose),
        }
    }
}

/// An answer with the parts that gave it (`None` for a convex collider).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartAnswer<T> {
    /// The answer, as the convex query gives it for the two parts.
    pub answer: T,
    /// Index of A's part, if A is a compound.
    pub part_a: Option<u32>,
    /// Index of B's part, if B is a compound.
    pub part_b: Option<u32>,
}

/// A world box grown by what the convex queries may still call touching: GJK's touching
/// tolerance `tol` (relative to the coordinates' size) [`tolerance::SLACK`] times over, which also
/// covers the box's own rounding. Exact boxes would drop part pairs that touch or
/// overlap by a unit in the last place: faces that touch exactly round apart about half
/// the time, where GJK reports contact.
fn grown(b: Aabb, tol: Real) -> Aabb {
    let size = b.mins.abs().max(b.maxs.abs()).max_element() + (b.maxs - b.mins).max_element();
    b.loosened(tolerance::SLACK * tol * size + Real::MIN_POSITIVE)
}

/// Candidate piece pairs whose world boxes, [`grown`], overlap.
fn overlapping_pieces(
    a: &Collider,
    pa: &Pose,
    b: &Collider,
    pb: &Pose,
    opts: &QueryOptions,
) -> Vec<(u32, u32)> {
    let tol = opts.gjk.touch_tolerance();
    let mut out = Vec::new();
    let box_b = grown(b.local_aabb().transformed(pb), tol);
    for i in a.pieces_near(pa, &box_b, tol) {
        let bi = grown(a.piece_box(i, pa), tol);
        for j in b.pieces_near(pb, &bi, tol) {
            out.push((i, j));
        }
    }
    out
}

/// Whether A and B overlap or touch; the first overlapping part pair (by index) if so.
pub fn intersects(
    a: &Collider,
    pa: &Pose,
    b: &Collider,
    pb: &Pose,
    opts: &QueryOptions,
) -> Option<PartAnswer<()>> {
    for (i, j) in overlapping_pieces(a, pa, b, pb, opts) {
        let (sa, qa) = a.piece(i, pa);
        let (sb, qb) = b.piece(j, pb);
        if intersects_with(sa, &qa, sb, &qb, opts, None) {
            return Some(PartAnswer {
                answer: (),
                part_a: a.part_index(i),
                part_b: b.part_index(j),
            });
        }
    }
    None
}

/// Distance between the boxes (0 when they overlap): a lower bound on the distance of
/// the pieces inside.
fn box_gap(x: &Aabb, y: &Aabb) -> Real {
    let d = (x.mins - y.maxs)
        .max(y.mins - x.maxs)
        .max(crate::math::Vector::ZERO);
    d.length()
}

/// The closest points of A and B: the minimum over part pairs.
pub fn closest_points(
    a: &Collider,
    pa: &Pose,
    b: &Collider,
    pb: &Pose,
    opts: &QueryOptions,
) -> PartAnswer<ClosestPoints> {
    let mut cands: Vec<(Real, u32, u32)> = Vec::new();
    for i in 0..a.count() {
        let bi = a.piece_box(i, pa);
        for j in 0..b.count() {
            cands.push((box_gap(&bi, &b.piece_box(j, pb)), i, j));
        }
    }
    cands.sort_by(|x, y| x.0.total_cmp(&y.0).then((x.1, x.2).cmp(&(y.1, y.2))));
    let mut best: Option<PartAnswer<ClosestPoints>> = None;
    for (gap, i, j) in cands {
        if let Some(b) = &best {
            if gap > b.answer.distance {
                break;
            }
        }
        let (sa, qa) = a.piece(i, pa);
        let (sb, qb) = b.piece(j, pb);
        let c = closest_points_with(sa, &qa, sb, &qb, opts, None);
        if best.map_or(true, |b| c.distance < b.answer.distance) {
            best = Some(PartAnswer {
                answer: c,
                part_a: a.part_index(i),
                part_b: b.part_index(j),
            });
        }
    }
    best.expect("every collider has at least one piece")
}

/// The distance between A and B: the minimum over part pairs.
pub fn distance(
    a: &Collider,
    pa: &Pose,
    b: &Collider,
    pb: &Pose,
    opts: &QueryOptions,
) -> PartAnswer<Real> {
    if let (Collider::Convex(sa), Collider::Convex(sb)) = (a, b) {
        let d = distance_with(sa, pa, sb, pb, opts, None);
        return PartAnswer {
            answer: d.distance,
            part_a: None,
            part_b: None,
        };
    }
    let c = closest_points(a, pa, b, pb, opts);
    PartAnswer {
        answer: c.answer.distance,
        part_a: c.part_a,
        part_b: c.part_b,
    }
}

/// The contact of A and B: the deepest overlapping part pair, or the closest pair when
/// nothing overlaps.
pub fn contact(
    a: &Collider,
    pa: &Pose,
    b: &Collider,
    pb: &Pose,
    opts: &QueryOptions,
) -> PartAnswer<Contact> {
    let mut best: Option<PartAnswer<Contact>> = None;
    for (i, j) in overlapping_pieces(a, pa, b, pb, opts) {
        let (sa, qa) = a.piece(i, pa);
        let (sb, qb) = b.piece(j, pb);
        let c = contact_with(sa, &qa, sb, &qb, opts, None);
        if c.distance <= 0.0 && best.map_or(true, |b| c.distance < b.answer.distance) {
            best = Some(PartAnswer {
                answer: c,
                part_a: a.part_index(i),
                part_b: b.part_index(j),
            });
        }
    }
    if let Some(b) = best {
        return b;
    }
    let cp = closest_points(a, pa, b, pb, opts);
    let (i, j) = (cp.part_a.unwrap_or(0), cp.part_b.unwrap_or(0));
    let (sa, qa) = a.piece(i, pa);
    let (sb, qb) = b.piece(j, pb);
    PartAnswer {
        answer: contact_with(sa, &qa, sb, &qb, opts, None),
        part_a: cp.part_a,
        part_b: cp.part_b,
    }
}
