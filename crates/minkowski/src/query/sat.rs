//! The separating axis test between convex polyhedra, with Gauss-map pruning of the
//! edge pairs — the intersection test that GJK's is compared with in
//! `docs/gjk-sat-cw.md` (seed 000 §8.2.1 promised the comparison).
//!
//! # The axes
//!
//! Two convex polyhedra are disjoint exactly when one of these axes separates them: a
//! face normal of A, a face normal of B, or the cross product of an edge of A with an
//! edge of B (the face normals of `A ⊖ B`). Along a face normal `n` of A (plane
//! `n·x = o`), the separation is `min_{b ∈ B} n·b − o`, one support call on B.
//!
//! # Gauss-map pruning
//!
//! D. Gregorius, "The separating axis test between convex polyhedra", GDC 2013. An edge
//! pair gives a face of `A ⊖ B` only when the edge's arcs on the Gauss maps of A and of
//! `−B` cross: the arc of an edge of A runs between its two faces' normals `a`, `b`, the
//! arc of an edge of B between `−c`, `−d`. Two great arcs cross when each arc's end
//! points lie on opposite sides of the other arc's plane, and on the same hemisphere:
//!
//! ```text
//! (−c)·(b × a) and (−d)·(b × a) differ in sign,  a·(d × c) and b·(d × c) differ in sign,
//! and (−c)·(b × a) and b·(d × c) have the same sign
//! ```
//!
//! Only those pairs are tested, with the axis `e_A × e_B` oriented away from A's centre
//! and the separation `L·(q − p)` between a point `p` of A's edge and `q` of B's. The
//! pruning leaves O(E_A + E_B) pairs in practice (of E_A · E_B), but the test stays
//! quadratic in the worst case, where GJK is linear in the vertex count per iteration.

use crate::hull::Dimension;
use crate::math::{Matrix3, Point, Pose, Real, Vector};
use crate::shape::ConvexPolyhedron;
use crate::support::SupportMap;
use std::collections::HashMap;

/// An edge of a [`SatHull`]: its end vertices and the two faces beside it.
#[derive(Debug, Clone, Copy)]
struct Edge {
    tail: u32,
    head: u32,
    /// The face with the edge `tail → head` in its counter-clockwise ring, and the other.
    left: u32,
    right: u32,
}

/// A convex polyhedron prepared for the separating axis test: face planes and edges
/// with their adjacent faces, computed once per shape.
#[derive(Debug, Clone)]
pub struct SatHull {
    shape: ConvexPolyhedron,
    normals: Vec<Vector>,
    offsets: Vec<Real>,
    edges: Vec<Edge>,
}

impl SatHull {
    /// The face planes and edges of `shape`'s hull (local frame); `None` unless the hull
    /// is a solid polyhedron (a flat or lower-dimensional hull has no face ring to
    /// prune with).
    pub fn new(shape: &ConvexPolyhedron) -> Option<Self> {
        let hull = shape.hull();
        if hull.dimension() != Dimension::Polyhedron {
            return None;
        }
        let v = hull.vertices();
        let mut normals = Vec::with_capacity(hull.num_faces());
        let mut offsets = Vec::with_capacity(hull.num_faces());
        let mut half: HashMap<(u32, u32), u32> = HashMap::new();
        for (f, ring) in hull.faces().enumerate() {
            // Newell's normal: robust for any planar polygon.
            let mut n = Vector::ZERO;
            for (i, &a) in ring.iter().enumerate() {
                let b = ring[(i + 1) % ring.len()];
                let (p, q) = (v[a as usize], v[b as usize]);
                n += Vector::new(
                    (p.y - q.y) * (p.z + q.z),
                    (p.z - q.z) * (p.x + q.x),
                    (p.x - q.x) * (p.y + q.y),
                );
                half.insert((a, b), f as u32);
            }
            let n = n.normalize();
            normals.push(n);
            offsets.push(n.dot(v[ring[0] as usize]));
        }
        let mut edges = Vec::new();
        for (&(a, b), &left) in &half {
            if a < b {
                let right = *half.get(&(b, a))?;
                edges.push(Edge {
                    tail: a,
                    head: b,
                    left,
                    right,
                });
            }
        }
        edges.sort_by_key(|e| (e.tail, e.head));
        Some(Self {
            shape: shape.clone(),
            normals,
            offsets,
            edges,
        })
    }

    /// The polyhedron.
    pub fn shape(&self) -> &ConvexPolyhedron {
        &self.shape
    }
}

/// The answer of [`intersects`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SatResult {
    /// Whether the polyhedra overlap or touch (no axis separates them).
    pub intersecting: bool,
    /// Axes tested (face normals and the edge pairs that passed the Gauss-map test).
    pub axes_tested: u32,
    /// Edge pairs rejected by the Gauss-map test.
    pub pairs_pruned: u32,
}

/// Whether A and B (placed at their poses) overlap or touch, by the separating axis
/// test with Gauss-map pruning (see the module notes). Stops at the first separating
/// axis.
pub fn intersects(a: &SatHull, pose_a: &Pose, b: &SatHull, pose_b: &Pose) -> SatResult {
    let rel = pose_a.inv_mul(pose_b);
    let rot = Matrix3::from_quat(rel.rotation());
    let t = rel.translation();
    let mut out = SatResult {
        intersecting: false,
        axes_tested: 0,
        pairs_pruned: 0,
    };
    // A's faces: B's lowest point along each normal (B's support in its own frame).
    for (n, o) in a.normals.iter().zip(&a.offsets) {
        out.axes_tested += 1;
        let low = rot * b.shape.local_support(rot.transpose() * -*n) + t;
        if n.dot(low) - o > 0.0 {
            return out;
        }
    }
    // B's faces, in A's frame: A's lowest point along each (moved) normal.
    for (n, o) in b.normals.iter().zip(&b.offsets) {
        out.axes_tested += 1;
        let nw = rot * *n;
        let plane = o + nw.dot(t);
        if nw.dot(a.shape.local_support(-nw)) - plane > 0.0 {
            return out;
        }
    }
    // Edge pairs whose Gauss-map arcs cross.
    let va = a.shape.points();
    let vb: Vec<Point> = b.shape.points().iter().map(|p| rot * *p + t).collect();
    let nb: Vec<Vector> = b.normals.iter().map(|n| rot * *n).collect();
    let center_a = a.shape.local_center();
    for ea in &a.edges {
        let (na, nb_a) = (a.normals[ea.left as usize], a.normals[ea.right as usize]);
        let b_x_a = nb_a.cross(na);
        let (p, p2) = (va[ea.tail as usize], va[ea.head as usize]);
        let dir_a = p2 - p;
        for eb in &b.edges {
            let (c, d) = (-nb[eb.left as usize], -nb[eb.right as usize]);
            let d_x_c = d.cross(c);
            let cba = c.dot(b_x_a);
            let dba = d.dot(b_x_a);
            let adc = na.dot(d_x_c);
            let bdc = nb_a.dot(d_x_c);
            if !(cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0) {
                out.pairs_pruned += 1;
                continue;
            }
            out.axes_tested += 1;
            let q = vb[eb.tail as usize];
            let axis = dir_a.cross(vb[eb.head as usize] - q);
            let len = axis.length();
            if len.is_nan() || len <= 0.0 {
                // Parallel edges: their axis is a face normal's, tested above.
                continue;
            }
            let mut l = axis / len;
            if l.dot(p - center_a) < 0.0 {
                l = -l;
            }
            if l.dot(q - p) > 0.0 {
                return out;
            }
        }
    }
    out.intersecting = true;
    out
}
