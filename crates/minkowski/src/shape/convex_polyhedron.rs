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
    /// lower-dimensional hulls and for slivers whose rounded planes do not pin their
    /// vertices (the ray cast then runs GJK).
    planes: Box<[FacePlane]>,
    /// Separating-axis features (issue 16): face planes and edges with their faces, for
    /// solid hulls of at most
    /// [`SAT_CONTACT_MAX_VERTICES`](super::SAT_CONTACT_MAX_VERTICES) vertices (`None`
    /// otherwise).
    features: Option<PolyhedronFeatures>,
}

/// The plane of a hull face: the points `x` with `normal · (x − c) = offset`, `c` the
/// hull's centre ([`ConvexPolyhedron::face_planes`]; local frame), `normal` the outward
/// unit normal, the hull on the side `normal · (x − c) ≤ offset`. Relative to the
/// centre, an offset is about the hull's size wherever the hull lies, so its rounding is
/// the size's, not the distance to the local origin's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FacePlane {
    /// Outward unit normal.
    pub normal: Vector,
    /// Signed distance of the plane from the hull's centre along `normal`.
    pub offset: Real,
}

/// The planes of the faces of a solid hull (empty below [`Dimension::Polyhedron`], and
/// when the rounded planes do not pin the hull's vertices, see [`planes_pin_vertices`]).
///
/// A face's normal is Newell's (the polygon's area vector, summed in f64 about the
/// face's first vertex; Sutherland, Sproull and Schumacker 1974) rounded to [`Real`] and
/// renormalised; its offset is the largest `normal · v` over the face's vertices, in
/// f64, so that every vertex of the face lies on or below the stored plane in spite of
/// the normal's rounding (the other vertices lie below it by the hull's convexity).
fn face_planes(hull: &ConvexHull, center: Point) -> Vec<FacePlane> {
    if hull.dimension() != Dimension::Polyhedron {
        return Vec::new();
    }
    let c = glam::DVec3::new(center.x as f64, center.y as f64, center.z as f64);
    let v = |i: u32| {
        let p = hull.vertices()[i as usize];
        glam::DVec3::new(p.x as f64, p.y as f64, p.z as f64) - c
    };
    let mut planes = Vec::with_capacity(hull.faces().len());
    // Per face, how far below its stored plane a vertex of the face may lie.
    let mut sag = Vec::with_capacity(hull.faces().len());
    for face in hull.faces() {
        let Some(&first) = face.first() else {
            return Vec::new();
        };
        let first = v(first);
        let mut area = glam::DVec3::ZERO;
        let mut reach: f64 = 0.0;
        for (k, &i) in face.iter().enumerate() {
            let a = v(i) - first;
            let b = v(face[(k + 1) % face.len()]) - first;
            area += a.cross(b);
            reach = reach.max(a.length());
        }
        // A face without a direction leaves its plane, and so the clipping, undefined.
        let Some(n) = area.try_normalize() else {
            return Vec::new();
        };
        let Some(normal) = Vector::new(n.x as Real, n.y as Real, n.z as Real).try_normalize()
        else {
            return Vec::new();
        };
        let nd = glam::DVec3::new(normal.x as f64, normal.y as f64, normal.z as f64);
        let offset = face
            .iter()
            .map(|&i| nd.dot(v(i)))
            .fold(f64::NEG_INFINITY, f64::max);
        // The stored normal errs by its rounding to `Real` (ε) plus Newell's f64 error,
        // `ε₆₄ L² / ‖area‖` on a sliver of extent `L`; over the face's diameter (at most
        // `2 reach`) that tilt lowers a vertex by up to `2 reach · tilt` below the plane,
        // and rounding the offset to `Real` moves the plane by `ε |offset|`.
        let tilt = Real::EPSILON as f64 + f64::EPSILON * reach * reach / area.length();
        sag.push(2.0 * reach * tilt + Real::EPSILON as f64 * offset.abs());
        planes.push(FacePlane {
            normal,
            offset: offset as Real,
        });
    }
    if !planes_pin_vertices(hull, &planes, &sag) {
        return Vec::new();
    }
    planes
}

/// At most this many of a vertex's faces are tried for the best-conditioned three in
/// [`planes_pin_vertices`] (560 triples; the cost stays linear in the hull).
const PIN_MAX_FACES: usize = 16;

/// Whether the polyhedron bounded by the stored (rounded) face planes is the hull to
/// [`tolerance::PLANE_CLIP_DRIFT`](crate::tolerance::PLANE_CLIP_DRIFT) of its size, so
/// that clipping a ray against the planes answers for the hull.
///
/// Each vertex `v` lies on or up to `s_f` below the stored plane of each face `f` around
/// it (`sag`). Three of those planes with unit normals `N` (as rows) meet at the point
/// `x` with `N (x − v) = r`, `‖r‖ ≤ √3 max s_f`; since `N`'s singular values satisfy
/// `σ₁² + σ₂² + σ₃² = 3` and `σ₁σ₂σ₃ = |det N|`, the least is at least `|det N| / 1.5`,
/// so `‖x − v‖ ≤ 1.5 √3 max s_f / |det N|`. The best-conditioned three (largest
/// `|det N|`) give the plane polyhedron's corner near `v`; when that bound exceeds the
/// drift allowed for any vertex, the planes do not pin it. This is the case of slivers
/// whose faces fold back on each other: a hull flat to rounding (its faces on both sides
/// share one plane, `det N ≈ 0`, and the planes bound an unbounded slab), a knife edge
/// or a needle's tip.
fn planes_pin_vertices(hull: &ConvexHull, planes: &[FacePlane], sag: &[f64]) -> bool {
    let n = hull.vertices().len();
    let mut faces_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut worst_sag = vec![0.0f64; n];
    for (f, face) in hull.faces().enumerate() {
        for &i in face {
            faces_of[i as usize].push(f);
            worst_sag[i as usize] = worst_sag[i as usize].max(sag[f]);
        }
    }
    let (mut lo, mut hi) = (glam::DVec3::INFINITY, glam::DVec3::NEG_INFINITY);
    for p in hull.vertices() {
        let p = glam::DVec3::new(p.x as f64, p.y as f64, p.z as f64);
        lo = lo.min(p);
        hi = hi.max(p);
    }
    let allowed = crate::tolerance::PLANE_CLIP_DRIFT as f64 * (hi - lo).length();
    let normal = |f: usize| {
        let m = planes[f].normal;
        glam::DVec3::new(m.x as f64, m.y as f64, m.z as f64)
    };
    faces_of.iter().zip(&worst_sag).all(|(fs, &s)| {
        let fs = &fs[..fs.len().min(PIN_MAX_FACES)];
        let mut best: f64 = 0.0;
        for (a, &fa) in fs.iter().enumerate() {
            for (b, &fb) in fs.iter().enumerate().skip(a + 1) {
                let ab = normal(fa).cross(normal(fb));
                for &fc in &fs[b + 1..] {
                    best = best.max(ab.dot(normal(fc)).abs());
                }
            }
        }
        // Also false on NaN and on `best = 0` (no three independent planes).
        1.5 * 3f64.sqrt() * s <= allowed * best && best > 0.0
    })
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
        let planes = face_planes(&hull, center).into();
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

    /// The face planes of a solid hull, in face order, relative to
    /// [`local_center`](SupportMap::local_center) (see [`FacePlane`]); empty for a flat
    /// or lower-dimensional one and for slivers whose rounded planes do not pin their
    /// vertices.
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
