//! What a detection pass against a [`DisplacedTerrain`](super::DisplacedTerrain) reports:
//! the object's vertices found in the terrain, and the work it took (seed 002 §3.6, §4.3).
//!
//! Two detectors answer in these types: the thesis's per-vertex baseline (every vertex of
//! every part backward-projected onto its candidate triangles) and the multiresolution
//! detection of §3.6 (bounding volumes first, vertices of the surviving parts only). Both
//! take an object as its convex parts, each a list of **world-frame** vertices
//! (length units), and both report one [`VertexContact`] per vertex in the terrain, so
//! that their answers compare as sets of `(part, vertex)` keys
//! ([`TerrainDetection::keys`]). The counters are the figures of the thesis's Tables
//! 4.4/4.5: how many backward projections a frame needed, and what else it did.

use crate::math::{Point, Real};

/// One vertex of an object below the terrain's surface (§2.4.2): its backward projection
/// onto base triangle `triangle` is `(u, v)` inside the triangle with parameter `t`
/// along the interpolated direction `n(u, v)`, below the displacement `d` there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VertexContact {
    /// Index of the object's part (in the order the detector was given).
    pub part: usize,
    /// Index of the vertex in its part's vertex list.
    pub vertex: usize,
    /// The vertex (world frame, length units).
    pub point: Point,
    /// The base triangle of the terrain the vertex projects onto.
    pub triangle: usize,
    /// Barycentric parameter of the projection.
    pub u: Real,
    /// Barycentric parameter of the projection.
    pub v: Real,
    /// The vertex's parameter along `n(u, v)` (in units of `|n(u, v)|`).
    pub t: Real,
    /// The displacement at `(u, v)` (same units as `t`); `t < d`.
    pub d: Real,
}

impl VertexContact {
    /// How far below the surface the vertex is, along the projection line, in units of
    /// `|n(u, v)|` (length units when the directions are unit): `d − t > 0`.
    pub fn depth_parameter(&self) -> Real {
        self.d - self.t
    }

    /// The key the two detectors are compared by.
    pub fn key(&self) -> (usize, usize) {
        (self.part, self.vertex)
    }
}

/// The work of one detection pass: the columns of the thesis's Tables 4.4/4.5.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DetectionCounters {
    /// Backward projections of a vertex onto a base triangle (any method).
    pub backward_projections: u64,
    /// Vertex-against-plane tests of the early-out planes (Alg 6).
    pub early_out_tests: u64,
    /// Bounding volumes (rectangles, cells, texel tetrahedra) tested against a part.
    pub volume_tests: u64,
    /// GJK queries run (part against a bounding volume).
    pub gjk_queries: u64,
    /// Vertices tested against a texel volume (point in a box and under its upper
    /// planes) before any backward projection.
    pub vertex_tests: u64,
}

impl DetectionCounters {
    /// The sum of two passes' counters (for totals over frames).
    pub fn add(&mut self, other: &DetectionCounters) {
        self.backward_projections += other.backward_projections;
        self.early_out_tests += other.early_out_tests;
        self.volume_tests += other.volume_tests;
        self.gjk_queries += other.gjk_queries;
        self.vertex_tests += other.vertex_tests;
    }
}

/// The answer of a detection pass: the vertices in the terrain, at most one contact per
/// `(part, vertex)` (where a vertex is below the surface of several triangles, the
/// deepest is kept), sorted by that key, and the pass's counters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TerrainDetection {
    /// The contacts, sorted by `(part, vertex)`, one per key.
    pub contacts: Vec<VertexContact>,
    /// What the pass did.
    pub counters: DetectionCounters,
}

impl TerrainDetection {
    /// Adds `contact`, keeping the deepest per key; call [`TerrainDetection::finish`]
    /// when done.
    pub fn push(&mut self, contact: VertexContact) {
        self.contacts.push(contact);
    }

    /// Sorts the contacts by key and keeps the deepest of each key.
    pub fn finish(&mut self) {
        self.contacts.sort_by(|a, b| {
            a.key().cmp(&b.key()).then(
                b.depth_parameter()
                    .partial_cmp(&a.depth_parameter())
                    .unwrap_or(core::cmp::Ordering::Equal),
            )
        });
        self.contacts.dedup_by_key(|c| c.key());
    }

    /// The `(part, vertex)` keys of the contacts, sorted.
    pub fn keys(&self) -> Vec<(usize, usize)> {
        self.contacts.iter().map(VertexContact::key).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vector;

    fn contact(part: usize, vertex: usize, t: Real) -> VertexContact {
        VertexContact {
            part,
            vertex,
            point: Vector::ZERO,
            triangle: 0,
            u: 0.25,
            v: 0.25,
            t,
            d: 1.0,
        }
    }

    #[test]
    fn finish_keeps_the_deepest_contact_of_each_vertex_sorted() {
        let mut found = TerrainDetection::default();
        found.push(contact(1, 0, 0.5));
        found.push(contact(0, 2, 0.9));
        found.push(contact(1, 0, -0.5));
        found.push(contact(0, 2, 0.95));
        found.finish();
        assert_eq!(found.keys(), vec![(0, 2), (1, 0)]);
        assert_eq!(found.contacts[0].t, 0.9);
        assert_eq!(found.contacts[1].depth_parameter(), 1.5);
    }

    #[test]
    fn counters_add_up() {
        let mut total = DetectionCounters::default();
        let one = DetectionCounters {
            backward_projections: 3,
            early_out_tests: 5,
            volume_tests: 7,
            gjk_queries: 11,
            vertex_tests: 13,
        };
        total.add(&one);
        total.add(&one);
        assert_eq!(total.backward_projections, 6);
        assert_eq!(total.gjk_queries, 22);
        assert_eq!(total.vertex_tests, 26);
    }
}
