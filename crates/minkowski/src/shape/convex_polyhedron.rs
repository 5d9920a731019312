//! A convex polyhedron: the convex hull of a point cloud, with a hill-climbing support
//! map over the hull's vertex adjacency.
//!
//! # Hill climbing (seed 001, part 2; Cameron, "Enhancing GJK", ICRA 1997)
//!
//! The support point of a convex polytope along `d` is a vertex maximising `v · d`. On
//! the polytope's vertex graph a linear function has no local maxima other than the
//! global one: the tangent cone at a vertex is spanned by its edges, so if no neighbour
//! improves on `v · d`, no point of the polytope does. So the search can walk from any
//! vertex to a better neighbour until none is better, visiting only the vertices near
//! the path instead of all of them. Started from the previous answer (GJK's directions
//! change little between iterations, and poses little between frames) the walk is
//! usually zero or one step. A walk only moves on strict improvement, so it ends after at
//! most `n` steps.
//!
//! Below [`HILL_CLIMB_MIN_VERTICES`] vertices a linear scan is faster (no pointer
//! chasing, and it vectorises); the threshold was measured with
//! `cargo run --release -p minkowski-bench --bin support-bench`.

use std::path::Path;
use std::sync::Arc;

use super::{check_point, ConvexShape, CoreShape, ShapeError, ShapeParams};
use crate::bounding::Aabb;

use crate::hull::{quickhull3d, ConvexHull, Dimension, HullError};
use crate::math::{Point, Real, Vector};
use crate::support::SupportMap;

use super::polyhedron_features::PolyhedronFeatures;

/// Hulls with at least this many vertices use hill climbing; smaller ones scan.
pub const HILL_CLIMB_MIN_VERTICES: usize = 32;

/// The convex hull of a finite, non-empty point set, in its local frame.
///
/// [`new`](Self::new) builds the hull ([`quickhull3d`]) and keeps only its vertices and
/// their adjacency; the support map then hill-climbs (from a caller's hint when given,
/// see [`SupportMap::local_support_hinted`]) or scans, by vertex count. Degenerate sets
/// (flat, collinear, a single point) are fine: the hull keeps its true dimension and the
/// support map is exact on it.
#[derive(Debug, Clone, PartialEq)]
pub struct ConvexPolyhedron {
    // Shared: keeps `Shape` small (the hull holds five vectors), and clones (one per
    // object of a world made of a few shapes) share one copy, which keeps the support
    // searches of 10^5 objects in cache.
    hull: Arc<HullAndPlanes>,
    center: Point,
    /// Local box, computed once (broad phases and compound queries ask for it often).
    aabb: Aabb,
    /// Largest distance of a vertex from the local origin.
    radius: Real,
    climb: bool,
    /// For hill climbing: the support vertex of the centre direction of each cell of a
    /// cube map ([`cube_cell`]), so that every search starts next to its answer (empty
    /// when the support map scans).
    starts: Arc<[u32]>,
}

/// The hull, its face planes and its separating-axis features, shared behind one
/// pointer (so that `Shape` does not grow by their own).
#[derive(Debug, Clone, PartialEq)]
struct HullAndPlanes {
    hull: ConvexHull,
    /// One plane per face of a solid hull ([`Dimension::Polyhedron`]), for the ray
    /// cast by plane clipping ([`crate::query`]'s `cyrus_beck`); empty for flat and
    /// lower-dimensional hulls.
    planes: Box<[FacePlane]>,
    /// Separating-axis features (issue 16): face planes and edges with their faces, for
    /// solid hulls of at most
    /// [`SAT_CONTACT_MAX_VERTICES`](super::SAT_CONTACT_MAX_VERTICES) vertices (`None`
    /// otherwise).
    features: Option<PolyhedronFeatures>,
}

/// The plane of a hull face: the points `x` with `normal · x = offset` (local frame),
/// `normal` the outward unit normal, the hull on the side `normal · x ≤ offset`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FacePlane {
    /// Outward unit normal.
    pub normal: Vector,
    /// Signed distance of the plane from the local origin along `normal`.
    pub offset: Real,
}

/// The planes of the faces of a solid hull (empty below [`Dimension::Polyhedron`]).
///
/// A face's normal is Newell's (the polygon's area vector, summed in f64 about the
/// face's first vertex; Sutherland, Sproull and Schumacker 1974) rounded to [`Real`] and
/// renormalised; its offset is the largest `normal · v` over the face's vertices, in
/// f64, so that every vertex of the face lies on or below the stored plane in spite of
/// the normal's rounding (the other vertices lie below it by the hull's convexity).
fn face_planes(hull: &ConvexHull) -> Vec<FacePlane> {
    if hull.dimension() != Dimension::Polyhedron {
        return Vec::new();
    }
    let v = |i: u32| {
        let p = hull.vertices()[i as usize];
        glam::DVec3::new(p.x as f64, p.y as f64, p.z as f64)
    };
    hull.faces()
        .filter_map(|face| {
            let first = v(*face.first()?);
            let mut area = glam::DVec3::ZERO;
            for (k, &i) in face.iter().enumerate() {
                let a = v(i) - first;
                let b = v(face[(k + 1) % face.len()]) - first;
                area += a.cross(b);
            }
            let n = area.try_normalize()?;
            let normal = Vector::new(n.x as Real, n.y as Real, n.z as Real).try_normalize()?;
            let nd = glam::DVec3::new(normal.x as f64, normal.y as f64, normal.z as f64);
            let offset = face
                .iter()
                .map(|&i| nd.dot(v(i)))
                .fold(f64::NEG_INFINITY, f64::max);
            Some(FacePlane {
                normal,
                offset: offset as Real,
            })
        })
        .collect()
}

/// Cells along each side of a face of the start table's cube map (6 × 8 × 8 = 384
/// directions). At the seed's 482-vertex sphere this is about one vertex per cell, so a
/// search from a cell's vertex takes zero or one step.
const CUBE_MAP_SIDE: usize = 8;
const CUBE_MAP_CELLS: usize = 6 * CUBE_MAP_SIDE * CUBE_MAP_SIDE;

/// The cell of the cube map that `dir` points through: the face of its largest
/// coordinate (and that coordinate's sign), then the other two coordinates divided by
/// it, in `CUBE_MAP_SIDE` bins each. Any direction gets a cell (zero and NaN included:
/// the casts saturate), and any start is correct; the cell only saves steps.
#[inline]
fn cube_cell(dir: Vector) -> usize {
    let m = dir.abs();
    let (axis, major) = if m.x >= m.y && m.x >= m.z {
        (0, m.x)
    } else if m.y >= m.z {
        (1, m.y)
    } else {
        (2, m.z)
    };
    let face = 2 * axis + usize::from(dir[axis] < 0.0);
    let half = (CUBE_MAP_SIDE / 2) as Real;
    let scale = half / major;
    let bin = |c: Real| ((c * scale + half) as usize).min(CUBE_MAP_SIDE - 1);
    let (u, v) = (bin(dir[(axis + 1) % 3]), bin(dir[(axis + 2) % 3]));
    (face * CUBE_MAP_SIDE + u) * CUBE_MAP_SIDE + v
}

/// The direction through the centre of cell `k` of the cube map (not normalised).
fn cube_cell_center(k: usize) -> Vector {
    let (face, u, v) = (
        k / (CUBE_MAP_SIDE * CUBE_MAP_SIDE),
        (k / CUBE_MAP_SIDE) % CUBE_MAP_SIDE,
        k % CUBE_MAP_SIDE,
    );
    let (axis, sign) = (face / 2, if face % 2 == 0 { 1.0 } else { -1.0 });
    let at = |i: usize| (2 * i + 1) as Real / CUBE_MAP_SIDE as Real - 1.0;
    let mut d = Vector::ZERO;
    d[axis] = sign;
    d[(axis + 1) % 3] = at(u);
    d[(axis + 2) % 3] = at(v);
    d
}

impl ConvexPolyhedron {
    /// The hull of `points` (at least one point; finite coordinates of magnitude at most
    /// [`super::MAX_MAGNITUDE`]). Interior and repeated points are dropped.
    ///
    /// # Errors
    /// [`ShapeError::EmptyPointSet`], or [`ShapeError::NonFinitePoint`] /
    /// [`ShapeError::OutOfRange`] naming the first bad point; [`ShapeError::Hull`] only for
    /// an internal hull error.
    pub fn new(points: Vec<Point>) -> Result<Self, ShapeError> {
        if points.is_empty() {
            return Err(ShapeError::EmptyPointSet { shape: "convex" });
        }
        for (i, p) in points.iter().enumerate() {
            check_point("convex", || format!("points[{i}]"), *p)?;
        }
        Ok(Self::from_hull(quickhull3d(&points)?))
    }

    /// The face planes and edges the separating axis test uses, for a solid hull of at
    /// most [`SAT_CONTACT_MAX_VERTICES`](super::SAT_CONTACT_MAX_VERTICES)
    /// vertices; `None` otherwise.
    pub(crate) fn features(&self) -> Option<&PolyhedronFeatures> {
        self.hull.features.as_ref()
    }

    /// The polyhedron of an already built hull.
    pub fn from_hull(hull: ConvexHull) -> Self {
        let vertices = hull.vertices();
        // The mean of the vertices is inside the hull: a good GJK starting point.
        let sum = vertices.iter().fold(Vector::ZERO, |acc, p| acc + *p);
        let center = sum / vertices.len() as Real;
        let (mut lo, mut hi) = (vertices[0], vertices[0]);
        for p in &vertices[1..] {
            lo = lo.min(*p);
            hi = hi.max(*p);
        }
        let radius = super::farthest(vertices);
        let planes = face_planes(&hull).into();
        let features = PolyhedronFeatures::new(&hull);
        let mut shape = Self {
            center,
            aabb: Aabb::new(lo, hi),
            radius,
            climb: vertices.len() >= HILL_CLIMB_MIN_VERTICES,
            hull: Arc::new(HullAndPlanes {
                hull,
                planes,
                features,
            }),
            starts: Arc::new([]),
        };
        if shape.climb {
            // Each cell climbs from the previous cell's answer (its neighbour on the
            // cube, mostly), so the table costs about one search per cell.
            let mut at = usize::MAX;
            shape.starts = (0..CUBE_MAP_CELLS)
                .map(|k| {
                    at = shape.climb_from(cube_cell_center(k), at);
                    at as u32
                })
                .collect();
        }
        shape
    }

    /// The hull of every vertex of every object in a Wavefront OBJ file (faces and
    /// materials are ignored: the hull is rebuilt from the vertices, as seed 000 did for
    /// its models).
    ///
    /// # Errors
    /// [`ShapeError::Hull`] with [`HullError::Obj`] if the file cannot be read or parsed
    /// or has no vertices; the point errors of [`new`](Self::new).
    pub fn from_obj(path: impl AsRef<Path>) -> Result<Self, ShapeError> {
        let path = path.as_ref();
        let obj_error = |reason: String| {
            ShapeError::Hull(HullError::Obj {
                path: path.display().to_string(),
                reason,
            })
        };
        let (models, _materials) = tobj::load_obj(path, &tobj::LoadOptions::default())
            .map_err(|e| obj_error(e.to_string()))?;
        let mut points = Vec::new();
        for m in &models {
            for c in m.mesh.positions.chunks_exact(3) {
                points.push(Vector::new(c[0] as Real, c[1] as Real, c[2] as Real));
            }
        }
        if points.is_empty() {
            return Err(obj_error("no vertices".into()));
        }
        Self::new(points)
    }

    /// The hull's vertices (local frame).
    pub fn points(&self) -> &[Point] {
        &self.hull.hull.vertices
    }

    /// The hull: faces, adjacency, dimension, volume.
    pub fn hull(&self) -> &ConvexHull {
        &self.hull.hull
    }

    /// The face planes of a solid hull, in face order; empty for a flat or
    /// lower-dimensional one.
    pub(crate) fn face_planes(&self) -> &[FacePlane] {
        &self.hull.planes
    }

    /// Whether the support map hill-climbs (at least [`HILL_CLIMB_MIN_VERTICES`]
    /// vertices) rather than scans.
    pub fn uses_hill_climbing(&self) -> bool {
        self.climb
    }

    /// Forces the support strategy: hill climbing (`true`) or linear scan (`false`),
    /// whatever the vertex count. Both give the same support values; this exists for
    /// benchmarks and for callers who measured their own threshold.
    pub fn set_hill_climbing(&mut self, climb: bool) {
        self.climb = climb;
    }

    /// The largest distance of a vertex from the local origin (length units, as
    /// computed: see [`Shape::bounding_radius`](super::Shape::bounding_radius) for a
    /// bound that allows for its rounding).
    pub fn bounding_radius(&self) -> Real {
        self.radius
    }

    /// Index of a vertex maximising `v · dir` by linear scan (the first of equals).
    pub fn support_index_scan(&self, dir: Vector) -> usize {
        let v = self.points();
        let mut best = 0;
        let mut best_dot = v[0].dot(dir);
        for (i, p) in v.iter().enumerate().skip(1) {
            let d = p.dot(dir);
            if d > best_dot {
                best_dot = d;
                best = i;
            }
        }
        best
    }

    /// Index of a vertex maximising `v · dir` by hill climbing from vertex `start` or
    /// from the start table's vertex for `dir`, whichever is further along `dir` (an
    /// out-of-range start, such as `u32::MAX` for "no hint", always takes the table's).
    /// Ends in at most `n` steps.
    pub fn support_index_climb(&self, dir: Vector, start: usize) -> usize {
        let v = self.points();
        let table = self.starts.get(cube_cell(dir)).map_or(0, |&i| i as usize);
        let from = match v.get(start) {
            Some(p) if p.dot(dir) >= v[table].dot(dir) => start,
            _ => table,
        };
        self.climb_from(dir, from)
    }

    /// Hill climbing from vertex `start` (vertex 0 if out of range).
    fn climb_from(&self, dir: Vector, start: usize) -> usize {
        let (v, h) = (self.points(), &self.hull.hull);
        let mut cur = if start < v.len() { start } else { 0 };
        let mut cur_dot = v[cur].dot(dir);
        for _ in 0..v.len() {
            let mut best = cur;
            let nb = &h.adjacency[h.adj_start[cur] as usize..h.adj_start[cur + 1] as usize];
            for &j in nb {
                let d = v[j as usize].dot(dir);
                if d > cur_dot {
                    cur_dot = d;
                    best = j as usize;
                }
            }
            if best == cur {
                break;
            }
            cur = best;
        }
        cur
    }
}

/// Protocol: `{"type": "convex", "points": [[x, y, z], ...]}`. Core: itself.
impl ConvexShape for ConvexPolyhedron {
    const TYPE_NAME: &'static str = "convex";

    fn core(&self) -> (CoreShape<'_>, Real) {
        (CoreShape::Convex(self), 0.0)
    }

    /// Computed once, at construction.
    fn local_aabb(&self) -> Aabb {
        self.aabb
    }

    fn bounding_radius(&self) -> Real {
        self.radius
    }

    fn from_params<P: ShapeParams + ?Sized>(params: &P) -> Result<Self, P::Error> {
        Ok(Self::new(params.points("points")?)?)
    }

    /// Rebuilds the hull of the scaled points (exact predicates: for a power-of-two
    /// factor, the same hull), keeping the support strategy.
    fn scaled(&self, factor: Real) -> Result<Self, ShapeError> {
        let points = self.points().iter().map(|p| *p * factor).collect();
        let mut scaled = ConvexPolyhedron::new(points)?;
        scaled.set_hill_climbing(self.uses_hill_climbing());
        Ok(scaled)
    }

    /// An irregular octahedron (six vertices, no two faces parallel).
    fn example() -> Self {
        let v = Vector::new;
        let points = vec![
            v(0.5, 0.05, 0.0),
            v(-0.45, 0.0, 0.1),
            v(0.0, 0.5, -0.05),
            v(0.1, -0.4, 0.0),
            v(0.0, 0.1, 0.45),
            v(-0.05, 0.0, -0.5),
        ];
        // A fixed, finite, full-dimensional point set: the hull cannot fail.
        Self::new(points).expect("the example's hull")
    }
}

impl SupportMap for ConvexPolyhedron {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        let i = if self.climb {
            self.support_index_climb(dir, usize::MAX)
        } else {
            self.support_index_scan(dir)
        };
        self.points()[i]
    }

    #[inline]
    fn local_support_hinted(&self, dir: Vector, hint: &mut u32) -> Point {
        let i = if self.climb {
            self.support_index_climb(dir, *hint as usize)
        } else {
            self.support_index_scan(dir)
        };
        *hint = i as u32;
        self.points()[i]
    }

    #[inline]
    fn hinted_point(&self, hint: u32) -> Option<Point> {
        self.points().get(hint as usize).copied()
    }

    fn local_center(&self) -> Point {
        self.center
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cell_centre_falls_in_its_own_cell() {
        for k in 0..CUBE_MAP_CELLS {
            let d = cube_cell_center(k);
            assert_eq!(cube_cell(d), k, "{d}");
            assert_eq!(cube_cell(d * 1e-30), k);
            assert_eq!(cube_cell(d * 1e30), k);
        }
    }

    #[test]
    fn any_direction_gets_a_cell() {
        for d in [
            Vector::ZERO,
            Vector::splat(Real::NAN),
            Vector::splat(Real::INFINITY),
            Vector::new(1.0, -1.0, 1.0),
            Vector::new(-0.0, 0.0, -1.0),
        ] {
            assert!(cube_cell(d) < CUBE_MAP_CELLS, "{d}");
        }
    }
}
