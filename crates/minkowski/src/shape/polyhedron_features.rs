//! The face planes and edges of a small convex polyhedron, with each edge's two faces:
//! what the separating axis test needs (`query/pair/polytope_polytope.rs`), computed
//! once per shape.
//!
//! A face's outward unit normal is Newell's (robust for any planar polygon, merged
//! coplanar triangles included); its offset is the largest `n·v` over the face's
//! vertices, so that every vertex of the hull lies below the plane up to rounding. An
//! edge is found from its two half-edges: the face whose counter-clockwise ring runs
//! `tail → head` is its `left` face, the face running `head → tail` its `right` face.

use crate::hull::{ConvexHull, Dimension};
use crate::math::{Real, Vector};

/// Hulls with at most this many vertices get their face planes and edges stored and answer
/// penetration queries between two of them by the separating axis test instead of EPA.
/// Above it the test's edge pairs (quadratic in the edge count) cost more than GJK and
/// EPA. Measured with `prof-gjk "hull N" shallow|deep penetration` (f32, CPU ns per
/// query, EPA → SAT): 8 vertices 2360 → 1850 shallow, 3170 → 1840 deep; 9: 2340 → 2500,
/// 3240 → 2510; 10: 2830 → 3120, 3590 → 3160; 12: 3000 → 4350, 3770 → 4410.
pub const SAT_CONTACT_MAX_VERTICES: usize = 8;

/// An edge: its end vertices (indices into the hull's vertices) and its two faces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FeatureEdge {
    pub tail: u32,
    pub head: u32,
    /// The face whose ring runs `tail → head`.
    pub left: u32,
    /// The face whose ring runs `head → tail`.
    pub right: u32,
}

/// Face planes (local frame, outward unit normals and offsets, length units) and edges
/// with their adjacent faces.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PolyhedronFeatures {
    pub normals: Vec<Vector>,
    pub offsets: Vec<Real>,
    pub edges: Vec<FeatureEdge>,
}

impl PolyhedronFeatures {
    /// The features of `hull`, or `None` when it is not a solid polyhedron, has more
    /// than [`SAT_CONTACT_MAX_VERTICES`] vertices, or a face or edge is degenerate (a
    /// zero normal, a half-edge without its twin).
    pub fn new(hull: &ConvexHull) -> Option<Self> {
        if hull.dimension() != Dimension::Polyhedron
            || hull.vertices().len() > SAT_CONTACT_MAX_VERTICES
        {
            return None;
        }
        let v = hull.vertices();
        let mut normals = Vec::with_capacity(hull.num_faces());
        let mut offsets = Vec::with_capacity(hull.num_faces());
        // Half-edges (tail, head, face), sorted to find each one's twin.
        let mut half: Vec<(u32, u32, u32)> = Vec::new();
        for (f, ring) in hull.faces().enumerate() {
            let mut n = Vector::ZERO;
            for (i, &a) in ring.iter().enumerate() {
                let b = ring[(i + 1) % ring.len()];
                let (p, q) = (v[a as usize], v[b as usize]);
                n += Vector::new(
                    (p.y - q.y) * (p.z + q.z),
                    (p.z - q.z) * (p.x + q.x),
                    (p.x - q.x) * (p.y + q.y),
                );
                half.push((a, b, f as u32));
            }
            let n = n.try_normalize()?;
            let offset = ring
                .iter()
                .map(|&i| n.dot(v[i as usize]))
                .fold(Real::NEG_INFINITY, Real::max);
            normals.push(n);
            offsets.push(offset);
        }
        half.sort_unstable();
        let twin = |a: u32, b: u32| {
            half.binary_search_by(|&(t, h, _)| (t, h).cmp(&(a, b)))
                .ok()
                .map(|i| half[i].2)
        };
        let mut edges = Vec::with_capacity(half.len() / 2);
        for &(a, b, left) in &half {
            if a < b {
                edges.push(FeatureEdge {
                    tail: a,
                    head: b,
                    left,
                    right: twin(b, a)?,
                });
            }
        }
        Some(Self {
            normals,
            offsets,
            edges,
        })
    }
}
