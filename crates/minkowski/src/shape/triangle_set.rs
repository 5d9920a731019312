//! Static geometry made of triangles — a triangle mesh or a [`super::HeightField`]
//! split into triangles — as the queries see it: a [`TriangleSet`] hands out the
//! triangles near a box, each as a [`MeshTriangle`] that knows which of its edges are
//! *active*.
//!
//! # Active edges (no ghost collisions)
//!
//! A shape sliding across a flat floor tiled into triangles touches the floor's inner
//! edges, and a convex query against one triangle alone answers with the normal of that
//! edge (or vertex) rather than the floor's — the "ghost collision" every engine has had
//! reported. The surface's true normals at a point of an edge are the normals between
//! the two faces' (the edge's Gauss-map arc); at a flat or concave edge that arc holds no
//! normal that the faces themselves do not already give. So each edge is marked at build:
//!
//! * **active** when it is convex with a crease sharper than
//!   [`crate::tolerance::ACTIVE_EDGE_ANGLE`], or on the boundary (no neighbour): a contact
//!   there may take a normal of the edge's arc;
//! * **inactive** otherwise: a contact whose closest feature is that edge takes the
//!   face's normal.
//!
//! A vertex is active when one of the edges of the whole set that meet there is (not only
//! the triangle's own two: the apex of a ridge is a corner of triangles whose own edges
//! are all flat). The queries against static geometry apply the rule.

use crate::bounding::Aabb;
use crate::math::{Point, Real, Vector};
use std::ops::ControlFlow;

/// One edge of a [`MeshTriangle`]: edge `k` runs from vertex `k` to vertex `(k + 1) % 3`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshEdge {
    /// Whether a contact on this edge may take a normal other than the face's (see the
    /// module notes).
    pub active: bool,
    /// The unit normal of the triangle across this edge (local frame), `None` on the
    /// boundary.
    pub neighbour_normal: Option<Vector>,
}

/// A triangle of static geometry, in the geometry's local frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshTriangle {
    /// The triangle's index in its set (stable: the same triangle always has the same
    /// index; a [`super::HeightField`] numbers cell `(i, j)`'s two halves
    /// `2 (i (cols − 1) + j)` and that plus one).
    pub index: u32,
    /// The corners, counter-clockwise seen from the outside (the side
    /// [`MeshTriangle::normal`] points to).
    pub vertices: [Point; 3],
    /// Unit normal of the face, pointing outside.
    pub normal: Vector,
    /// The edges, edge `k` from vertex `k` to vertex `(k + 1) % 3`.
    pub edges: [MeshEdge; 3],
}

impl MeshTriangle {
    /// The triangle's box (local frame).
    pub fn aabb(&self) -> Aabb {
        let [a, b, c] = self.vertices;
        Aabb::new(a.min(b).min(c), a.max(b).max(c))
    }
}

/// Whether the crease between faces with unit normals `n` and `m` across an edge running
/// along `edge` (from the first face's vertex `k` to `k + 1`, counter-clockwise about
/// `n`) is active: convex and sharper than [`crate::tolerance::ACTIVE_EDGE_ANGLE`].
///
/// Convex means the neighbour bends away from the outside: its normal turns from `n`
/// towards the first face's outward edge direction `edge × n`.
pub fn crease_is_active(n: Vector, m: Vector, edge: Vector) -> bool {
    // sin > 0: the neighbour's normal turns about the edge direction away from the face,
    // i.e. the crease is convex; then the angle (in (0, π)) exceeds the threshold when its
    // cosine is below the threshold's.
    let sin = n.cross(m).dot(edge);
    sin > 0.0 && n.dot(m) < crate::tolerance::ACTIVE_EDGE_COS
}

/// Static geometry made of triangles, as the queries see it.
pub trait TriangleSet {
    /// The number of triangle indices (some may be missing: holes).
    fn triangle_count(&self) -> usize;

    /// The set's box in its local frame (`None` when it has no triangle).
    fn local_aabb(&self) -> Option<Aabb>;

    /// Calls `f` with every triangle whose box meets `aabb` (local frame), and perhaps a
    /// few more, in no particular order, until `f` breaks.
    fn triangles_in(&self, aabb: &Aabb, f: &mut dyn FnMut(&MeshTriangle) -> ControlFlow<()>);

    /// [`TriangleSet::triangles_in`] with a pre-test: `keep` sees each candidate's
    /// corners (local frame, in [`MeshTriangle::vertices`] order) before the triangle is
    /// built, and only the triangles it accepts are built and handed to `f`. Building is
    /// what costs (each edge's neighbour and activity); a query that can reject most
    /// candidates from their corners alone (a sphere farther than its radius from the
    /// triangle) saves it. `keep` must accept every triangle the caller needs to see:
    /// the sets do not second-guess it.
    ///
    /// `keep_box` is asked first of boxes that hold candidates (local frame: a
    /// [`super::HeightField`]'s cells, each with the range of its samples; a
    /// [`super::TriMesh`]'s tree nodes), before their
    /// corners are read: when it refuses a box, none of the triangles inside is handed to
    /// `keep` or `f`. It must accept every box that holds a triangle `keep` would accept
    /// (a ball farther than its reach from the box is farther from everything in it). A
    /// set may ask it of no box at all.
    ///
    /// The default builds every triangle and then asks `keep` (correct, no saving).
    fn triangles_in_where(
        &self,
        aabb: &Aabb,
        keep_box: &mut dyn FnMut(&Aabb) -> bool,
        keep: &mut dyn FnMut(&[Point; 3]) -> bool,
        f: &mut dyn FnMut(&MeshTriangle) -> ControlFlow<()>,
    ) {
        let _ = keep_box;
        self.triangles_in(aabb, &mut |t| {
            if keep(&t.vertices) {
                f(t)
            } else {
                ControlFlow::Continue(())
            }
        });
    }

    /// The index and corners (local frame, in [`MeshTriangle::vertices`] order) of every
    /// triangle [`TriangleSet::triangles_in`] would hand out for `aabb`, without building
    /// any (no normal, no edges), until `f` breaks; `keep_box` as in
    /// [`TriangleSet::triangles_in_where`]. A query that decides most candidates from
    /// their corners and needs the rest of a triangle only for a few (a ball: its face
    /// normal for a contact inside the face, the edges only for a contact on an edge or a
    /// vertex) builds those alone, with [`TriangleSet::face_normal`] and
    /// [`TriangleSet::triangle`].
    ///
    /// The default builds every triangle (correct, no saving).
    fn corners_in(
        &self,
        aabb: &Aabb,
        keep_box: &mut dyn FnMut(&Aabb) -> bool,
        f: &mut dyn FnMut(u32, &[Point; 3]) -> ControlFlow<()>,
    ) {
        let _ = keep_box;
        self.triangles_in(aabb, &mut |t| f(t.index, &t.vertices));
    }

    /// [`TriangleSet::corners_in`] for a query about a point: the same triangles, less
    /// any that lies wholly farther than `reach` (length ≥ 0) from `centre` (both in the
    /// local frame), which a set may leave out unasked (`keep_box` and `f` are then not
    /// called for them). A ball's candidates: `reach` bounds what its pre-test accepts.
    ///
    /// The default hands out what [`TriangleSet::corners_in`] does (correct, no saving);
    /// a heightfield skips the cells whose rectangle lies farther than `reach` from the
    /// centre across the ground (the ball's footprint), before it reads their samples.
    fn corners_near(
        &self,
        aabb: &Aabb,
        (centre, reach): (Point, Real),
        keep_box: &mut dyn FnMut(&Aabb) -> bool,
        f: &mut dyn FnMut(u32, &[Point; 3]) -> ControlFlow<()>,
    ) {
        let _ = (centre, reach);
        self.corners_in(aabb, keep_box, f);
    }

    /// The unit outward normal of triangle `index`, exactly [`MeshTriangle::normal`] of
    /// [`TriangleSet::triangle`]`(index)` (local frame), without its edges; `None` when
    /// there is no such triangle. The default builds the triangle.
    fn face_normal(&self, index: u32) -> Option<Vector> {
        self.triangle(index).map(|t| t.normal)
    }

    /// Triangle `index`, `None` when there is none (out of range or a hole).
    fn triangle(&self, index: u32) -> Option<MeshTriangle>;

    /// Whether vertex `k` of triangle `t` (one this set handed out) is active: an edge of
    /// the set that meets there is. Asked only for contacts on vertices, so a set may
    /// work it out on demand. The default looks at the triangle's own two edges there
    /// only, which misses a vertex made active by other triangles' edges alone (the apex
    /// of a ridge seen from a triangle beside it); sets that know their vertices should
    /// say.
    fn vertex_active(&self, t: &MeshTriangle, k: usize) -> bool {
        t.edges[k].active || t.edges[(k + 2) % 3].active
    }

    /// Whether only the outside (the side the normals point to) collides: a shape behind
    /// a face is pushed out along the face's normal rather than through the nearer edge.
    fn one_sided(&self) -> bool;

    /// The scale of the set's coordinates (length units: the largest absolute local
    /// coordinate), for the queries' rounding floors.
    fn reach(&self) -> Real {
        self.local_aabb()
            .map(|b| b.mins.abs().max(b.maxs.abs()).max_element())
            .unwrap_or(0.0)
    }
}
