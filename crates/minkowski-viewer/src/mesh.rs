//! Triangle meshes of the library's shapes for drawing, one flat normal per face.
//!
//! A convex polyhedron (seed 000's meshes, any point-cloud hull) is drawn with the
//! faces of its hull (`hull::ConvexHull`: merged planar polygons), each split into a
//! fan of triangles. Every other shape — capsule, cylinder, cone, sphere, box, rounded
//! shapes — is drawn as the hull of its own support points in a spread of directions
//! (a Fibonacci sphere): the same support map that GJK sees, so what is drawn is what
//! is tested, inscribed in the shape and converging to it as the directions grow.
//!
//! Static geometry is drawn as its own triangles: a heightfield two per cell, a
//! triangle mesh as it is, a half-space as a large square ([`FaceMesh::square`]).
//!
//! Meshes are in the shape's local frame; [`MeshStore`] keeps them by [`MeshId`] so a
//! scene names a mesh once and draws it at any pose.

use minkowski::shape::{ConvexPolyhedron, CoreShape, HeightField, Shape, TriMesh};
use minkowski::support::SupportMap;
use minkowski::{Real, Vector};

use crate::ViewerError;

/// How finely curved shapes are sampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// 400 support directions: for a handful of shapes seen up close.
    Fine,
    /// 96 support directions: for a few hundred small curved bodies (the tumbler's
    /// balls).
    Medium,
    /// 24 support directions, and seed meshes replaced by the same sampling: for
    /// scenes of 10^4 objects.
    Coarse,
}

impl Detail {
    fn directions(self) -> usize {
        match self {
            Detail::Fine => 400,
            Detail::Medium => 96,
            Detail::Coarse => 24,
        }
    }
}

/// A shape's surface as triangles with one outward unit normal each (local frame).
#[derive(Debug, Clone, Default)]
pub struct FaceMesh {
    /// Triangles, counter-clockwise seen from outside.
    pub triangles: Vec<[Vector; 3]>,
    /// Outward unit normal of each triangle (the normal of the hull face it came from).
    pub normals: Vec<Vector>,
}

impl FaceMesh {
    /// The mesh of `shape` at `detail` (local frame).
    ///
    /// # Errors
    /// [`ViewerError::Mesh`] when the hull of the sampled points cannot be built (a
    /// degenerate shape: a segment, a point or a flat triangle has no solid surface).
    pub fn of_shape(shape: &Shape, detail: Detail) -> Result<FaceMesh, ViewerError> {
        let (core, margin) = shape.core();
        if let (CoreShape::Convex(poly), true, Detail::Fine | Detail::Medium) =
            (core, margin == 0.0, detail)
        {
            return Ok(Self::of_polyhedron(poly));
        }
        let n = detail.directions();
        let points: Vec<Vector> = fibonacci_directions(n)
            .map(|d| shape.local_support(d))
            .collect();
        let poly = ConvexPolyhedron::new(points)
            .map_err(|e| ViewerError::Mesh(format!("{}: {e}", shape.type_name())))?;
        Ok(Self::of_polyhedron(&poly))
    }

    /// The hull faces of `poly`, each a fan of triangles.
    pub fn of_polyhedron(poly: &ConvexPolyhedron) -> FaceMesh {
        let hull = poly.hull();
        let v = hull.vertices();
        let centre = v.iter().fold(Vector::ZERO, |s, p| s + *p) / v.len().max(1) as Real;
        let mut mesh = FaceMesh::default();
        for face in hull.faces() {
            if face.len() < 3 {
                continue;
            }
            let pts: Vec<Vector> = face.iter().map(|&i| v[i as usize]).collect();
            // Newell's normal: robust for any planar polygon.
            let mut n = Vector::ZERO;
            for (i, a) in pts.iter().enumerate() {
                let b = pts[(i + 1) % pts.len()];
                n += Vector::new(
                    (a.y - b.y) * (a.z + b.z),
                    (a.z - b.z) * (a.x + b.x),
                    (a.x - b.x) * (a.y + b.y),
                );
            }
            let Some(mut n) = n.try_normalize() else {
                continue;
            };
            let mut pts = pts;
            if n.dot(pts[0] - centre) < 0.0 {
                n = -n;
                pts.reverse();
            }
            for k in 1..pts.len() - 1 {
                mesh.triangles.push([pts[0], pts[k], pts[k + 1]]);
                mesh.normals.push(n);
            }
        }
        mesh
    }

    /// A square of side `side` (length) centred at `centre` in the plane of unit
    /// `normal`, facing along it: how an unbounded ground plane is drawn.
    pub fn square(centre: Vector, normal: Vector, side: Real) -> FaceMesh {
        let n = normal.normalize_or(Vector::Y);
        let helper = if n.x.abs() < 0.9 {
            Vector::X
        } else {
            Vector::Z
        };
        let u = helper.cross(n).normalize_or_zero() * (0.5 * side);
        let v = n.cross(u);
        let c = [
            centre - u - v,
            centre + u - v,
            centre + u + v,
            centre - u + v,
        ];
        let mut mesh = FaceMesh::default();
        mesh.push_facing(n, [c[0], c[1], c[2]]);
        mesh.push_facing(n, [c[0], c[2], c[3]]);
        mesh
    }

    /// The surface of a heightfield, two triangles per cell (split along the
    /// `(0, 0)–(1, 1)` diagonal), facing up, in the field's local frame; cells with a
    /// hole are left out. The drawn triangles are the plane pieces through the cell's
    /// corners; the field's own surface is the bilinear patch through them.
    pub fn of_heightfield(field: &HeightField) -> FaceMesh {
        let (rows, cols) = (field.rows(), field.cols());
        let [sx, sz] = field.cell_size();
        let o = field.origin();
        let at = |i: usize, j: usize| {
            field
                .sample(i, j)
                .map(|h| o + Vector::new(j as Real * sx, h, i as Real * sz))
        };
        let mut mesh = FaceMesh::default();
        for i in 0..rows.saturating_sub(1) {
            for j in 0..cols.saturating_sub(1) {
                let (Some(p00), Some(p01), Some(p10), Some(p11)) =
                    (at(i, j), at(i, j + 1), at(i + 1, j), at(i + 1, j + 1))
                else {
                    continue;
                };
                mesh.push_facing(Vector::Y, [p00, p10, p11]);
                mesh.push_facing(Vector::Y, [p00, p11, p01]);
            }
        }
        mesh
    }

    /// The triangles of a triangle mesh, each with its own normal (its winding's), in
    /// the mesh's local frame.
    pub fn of_trimesh(mesh: &TriMesh) -> FaceMesh {
        let v = mesh.vertices();
        let mut out = FaceMesh::default();
        for t in mesh.indices() {
            let tri = t.map(|k| v.get(k as usize).copied().unwrap_or(Vector::ZERO));
            out.push_wound(tri);
        }
        out
    }

    /// Appends triangle `t` with its winding's unit normal (`(t1 − t0) × (t2 − t0)`);
    /// a degenerate triangle is skipped.
    pub fn push_wound(&mut self, t: [Vector; 3]) {
        if let Some(n) = (t[1] - t[0]).cross(t[2] - t[0]).try_normalize() {
            self.triangles.push(t);
            self.normals.push(n);
        }
    }

    /// Appends triangle `t` turned (if need be) to face along `towards`, with its unit
    /// normal; a degenerate triangle is skipped.
    pub fn push_facing(&mut self, towards: Vector, t: [Vector; 3]) {
        let Some(n) = (t[1] - t[0]).cross(t[2] - t[0]).try_normalize() else {
            return;
        };
        if n.dot(towards) < 0.0 {
            self.triangles.push([t[0], t[2], t[1]]);
            self.normals.push(-n);
        } else {
            self.triangles.push(t);
            self.normals.push(n);
        }
    }

    /// Number of triangles.
    pub fn len(&self) -> usize {
        self.triangles.len()
    }

    /// Whether the mesh has no triangle.
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }
}

/// `n` unit directions spread evenly over the sphere (the golden-angle spiral).
pub fn fibonacci_directions(n: usize) -> impl Iterator<Item = Vector> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..n).map(move |i| {
        let y = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
        let r = (1.0 - y * y).max(0.0).sqrt();
        let t = golden * i as f64;
        Vector::new((r * t.cos()) as Real, y as Real, (r * t.sin()) as Real)
    })
}

/// Names a mesh in a [`MeshStore`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MeshId(pub usize);

/// The meshes a scene draws, by id.
#[derive(Debug, Clone, Default)]
pub struct MeshStore {
    meshes: Vec<FaceMesh>,
}

impl MeshStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the mesh of `shape` at `detail` and returns its id.
    ///
    /// # Errors
    /// See [`FaceMesh::of_shape`].
    pub fn add_shape(&mut self, shape: &Shape, detail: Detail) -> Result<MeshId, ViewerError> {
        let mesh = FaceMesh::of_shape(shape, detail)?;
        self.meshes.push(mesh);
        Ok(MeshId(self.meshes.len() - 1))
    }

    /// Adds a mesh built by the caller (a terrain's surface, a ground plane's square)
    /// and returns its id.
    pub fn add_mesh(&mut self, mesh: FaceMesh) -> MeshId {
        self.meshes.push(mesh);
        MeshId(self.meshes.len() - 1)
    }

    /// The mesh named `id` (an empty one for an id from another store).
    pub fn get(&self, id: MeshId) -> &FaceMesh {
        static EMPTY: FaceMesh = FaceMesh {
            triangles: Vec::new(),
            normals: Vec::new(),
        };
        self.meshes.get(id.0).unwrap_or(&EMPTY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use minkowski::shape::{tessellation, Capsule, Cone, Cuboid, Cylinder, Sphere};

    /// Oracle: every triangle's normal is outward and the mesh is inscribed in the
    /// shape: each vertex lies inside the shape's support planes (h(n) ≥ n·p for the
    /// sampled directions), each face's plane supports the vertices (all on its inner
    /// side), and the mesh is closed (its signed volume is positive and its area vector
    /// sums to zero).
    fn check(shape: &Shape, mesh: &FaceMesh) {
        assert!(!mesh.is_empty());
        let verts: Vec<Vector> = mesh.triangles.iter().flatten().copied().collect();
        let mut area = Vector::ZERO;
        let mut volume = 0.0;
        for (t, n) in mesh.triangles.iter().zip(&mesh.normals) {
            let cross = (t[1] - t[0]).cross(t[2] - t[0]);
            assert!(cross.dot(*n) >= -1e-6, "winding agrees with the normal");
            area += cross * 0.5;
            volume += t[0].dot(t[1].cross(t[2])) / 6.0;
            for p in &verts {
                assert!(n.dot(*p - t[0]) <= 1e-4, "face plane supports the mesh");
            }
        }
        assert!(area.length() < 1e-3, "closed surface: area vector {area}");
        assert!(volume > 0.0);
        for d in fibonacci_directions(97) {
            let h = shape.support_value(d);
            for p in &verts {
                assert!(p.dot(d) <= h + 1e-4, "inscribed");
            }
        }
    }

    #[test]
    fn meshes_of_every_drawn_kind_are_closed_outward_and_inscribed() {
        let mut shapes: Vec<Shape> = vec![
            Capsule::new(0.6, 0.4).map(Shape::from).unwrap(),
            Cone::new(1.0, 0.5).map(Shape::from).unwrap(),
            Cylinder::new(0.7, 0.9).map(Shape::from).unwrap(),
            Sphere::new(1.3).map(Shape::from).unwrap(),
            Cuboid::new(Vector::new(1.0, 0.2, 3.0))
                .map(Shape::from)
                .unwrap(),
        ];
        for (_, pts) in tessellation::seed000_shapes() {
            shapes.push(ConvexPolyhedron::new(pts).map(Shape::from).unwrap());
        }
        for s in &shapes {
            for detail in [Detail::Fine, Detail::Medium, Detail::Coarse] {
                check(s, &FaceMesh::of_shape(s, detail).unwrap());
            }
        }
    }

    #[test]
    fn a_hull_is_drawn_with_its_own_faces() {
        // The seed cube: 6 square faces, 12 triangles, normals ±axes.
        let (_, pts) = &tessellation::seed000_shapes()[0];
        let cube = ConvexPolyhedron::new(pts.clone()).unwrap();
        let mesh = FaceMesh::of_polyhedron(&cube);
        assert_eq!(mesh.len(), 12);
        for n in &mesh.normals {
            assert!((n.abs().max_element() - 1.0).abs() < 1e-6);
        }
        // A box sampled through its support map is the same box.
        let sampled = FaceMesh::of_shape(&Shape::from(cube), Detail::Coarse).unwrap();
        let area: Real = sampled
            .triangles
            .iter()
            .map(|t| (t[1] - t[0]).cross(t[2] - t[0]).length() * 0.5)
            .sum();
        assert!((area - 24.0).abs() < 1e-4, "{area}");
    }
}
