//! Triangle meshes of the library's shapes for drawing, one flat normal per face.
//!
//! A convex polyhedron (seed 000's meshes, any point-cloud hull) is drawn with the
//! faces of its hull (`hull::ConvexHull`: merged planar polygons), each split into a
//! fan of triangles. Every other shape — capsule, cylinder, cone, sphere, box, rounded
//! shapes — is drawn as the hull of its own support points in a spread of directions
//! (a Fibonacci sphere): the same support map that GJK sees, so what is drawn is what
//! is tested, inscribed in the shape and converging to it as the directions grow.
//!
//! Meshes are in the shape's local frame; [`MeshStore`] keeps them by [`MeshId`] so a
//! scene names a mesh once and draws it at any pose.

use minkowski::shape::{ConvexPolyhedron, CoreShape, Shape};
use minkowski::support::SupportMap;
use minkowski::{Real, Vector};

use crate::ViewerError;

/// How finely curved shapes are sampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// 400 support directions: for a handful of shapes seen up close.
    Fine,
    /// 24 support directions, and seed meshes replaced by the same sampling: for
    /// scenes of 10^4 objects.
    Coarse,
}

impl Detail {
    fn directions(self) -> usize {
        match self {
            Detail::Fine => 400,
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
        if let (CoreShape::Convex(poly), true, Detail::Fine) = (core, margin == 0.0, detail) {
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
            for detail in [Detail::Fine, Detail::Coarse] {
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
