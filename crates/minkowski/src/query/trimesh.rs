//! Rays and point projection against a [`TriMesh`], through its bounding-volume tree.
//!
//! # The ray–triangle test
//!
//! Each triangle is tested by the watertight algorithm of Woop, Benthin and Wald
//! ("Watertight ray/triangle intersection", *JCGT* 2(1), 2013), not Möller–Trumbore
//! (1997): the corners are moved to the ray's origin, the axes permuted so that the
//! ray's largest component is `z` (swapping the other two when it is negative, to keep
//! the winding), and sheared so that the ray runs along `+z`. In that frame the ray is
//! the point `(0, 0)` of the `xy` plane and the three edge functions
//!
//! ```text
//! U = C_x B_y − C_y B_x,   V = A_x C_y − A_y C_x,   W = B_x A_y − B_y A_x
//! ```
//!
//! are twice the signed areas of the sub-triangles the point cuts `ABC` into. The ray
//! meets the triangle when they share a sign (zeros included: a ray through an edge or a
//! corner hits), at `t = (U A_z + V B_z + W C_z) / (U + V + W)` with `A_z = A_z' / d_z`.
//! Two triangles sharing an edge compute that edge's function from the same two
//! transformed corners, with the operands swapped, so the values are exact negatives of
//! each other: a ray cannot slip between them through rounding (Möller–Trumbore computes
//! each triangle's barycentrics from its own corner, and rays through a shared edge or
//! vertex can miss both). An edge function that rounds to zero is recomputed in `f64`
//! (in the `f32` build). `U + V + W > 0` when the ray meets the front face (the ray
//! runs against the outward normal); a ray in the triangle's plane (`U + V + W = 0`)
//! does not hit it (the faces around it do, at their edges).
//!
//! # Nearest hit
//!
//! The tree is walked nearer child first, skipping boxes entered after the best hit so
//! far ([`crate::bounding::SahTree::query_ray`]). A hit at most a rounding band `β`
//! before the origin (a ray starting on the surface) counts as a hit at 0, with
//!
//! ```text
//! β = SLACK · τ σ / ‖d‖,   σ = max(largest mesh coordinate, largest origin coordinate),
//! ```
//!
//! `τ` the default absolute tolerance ([`crate::tolerance`]).
//!
//! # Inside a closed mesh
//!
//! A closed, consistently oriented mesh is left through a back face and entered through a
//! front face, so the ray's first crossing says where its origin is: inside when it is a
//! back face. The walk keeps the nearest front and nearest back hit; when they are within
//! `β` of each other (a ray through an edge or a vertex where a front and a back face
//! meet, e.g. touching a convex edge from outside), or when the first crossing grazes its
//! face (`|d̂ · n| <` [`crate::tolerance::RAY_GRAZING`]: a ray in or nearly in the face's
//! plane, whose facing and time rounding decides), the origin is classified by the
//! pseudo-normal test of point projection instead. A closed mesh's walk is not cut at
//! `max_toi`, as the first crossing may lie beyond it.
//!
//! # Point projection
//!
//! The closest point of each triangle comes from Ericson's Voronoi-region walk
//! (*Real-Time Collision Detection*, 2005, §5.1.5), which also names the feature (a
//! vertex, an edge or the face) that holds it; the tree is walked nearer box first,
//! skipping boxes farther than the best distance so far
//! ([`crate::bounding::SahTree::query_nearest`]). For a closed mesh, the sign comes from
//! the feature's angle-weighted pseudo-normal `n`: inside when `(p − q) · n < 0`
//! (Bærentzen and Aanæs 2005; see [`crate::shape::trimesh`]). It is exact for the exact
//! closest feature, needs nothing beyond the feature the projection already found (a
//! ray-parity test would need a second walk and its own care for rays through edges and
//! vertices), and its only uncertain case is a point within rounding of the surface,
//! which is reported as on it (`inside`, distance ≤ 0): a point within the touching
//! floor `τ σ` of the mesh.

use super::cast::{check_max_toi, CastError};
use super::point::PointProjection;
use super::ray::{check_vector, Ray, RayCast, RayHit, RayOptions};
use super::QueryStatus;
use crate::math::{
    inverse_power_of_two, length_robust, max_abs_axis, normalize_robust, Point, Pose, Real, Vector,
};
use crate::shape::{TriMesh, TriangleSet};
use crate::tolerance;
use crate::tolerance::{touch_floor, DEFAULT_ABS_TOLERANCE, RAY_GRAZING, SLACK};

/// Casts `ray` (world frame) at `mesh` placed at `pose`: the nearest hit within
/// `[0, max_toi]` (inclusive; times in units of `ray.dir`).
///
/// * A two-sided mesh is hit from either side; the normal is the face's, turned to face
///   the ray's origin.
/// * A one-sided mesh is hit only on front faces (where the ray runs against the
///   outward normal); back faces are ignored.
/// * A closed mesh is a solid: a ray whose origin is inside hits at 0 with
///   `inside: true` (normal: the reverse of the ray's direction) when `options.solid`,
///   else where it leaves the mesh, with the outward normal of the face it leaves
///   through and `inside: true`. From outside, the first front face is hit.
///
/// Normals are unit, world frame. A ray starting on the surface (within rounding) hits
/// it at 0. `status` is always `Converged` and `iterations` 0. See the module notes for
/// the algorithm.
///
/// ```
/// use minkowski::query::{cast_ray_trimesh, Ray, RayOptions};
/// use minkowski::shape::{TriMesh, TriMeshFlags};
/// use minkowski::{Pose, Vector};
///
/// let floor = TriMesh::new(
///     vec![Vector::new(-1.0, 0.0, -1.0), Vector::new(1.0, 0.0, -1.0), Vector::new(0.0, 0.0, 2.0)],
///     vec![[0, 2, 1]],
///     TriMeshFlags::NONE,
/// )
/// .unwrap();
/// let ray = Ray::new(Vector::new(0.0, 3.0, 0.0), Vector::new(0.0, -2.0, 0.0));
/// let hit = cast_ray_trimesh(&floor, &Pose::IDENTITY, &ray, &RayOptions::default())
///     .unwrap()
///     .hit
///     .unwrap();
/// assert_eq!(hit.toi, 1.5);
/// assert_eq!(hit.normal, Vector::Y);
/// ```
///
/// # Errors
/// As [`super::cast_ray`]: [`CastError`] for a non-finite or too large origin or
/// direction, a zero direction, or a negative or NaN `max_toi`.
pub fn cast_ray_trimesh(
    mesh: &TriMesh,
    pose: &Pose,
    ray: &Ray,
    options: &RayOptions,
) -> Result<RayCast, CastError> {
    ray.check()?;
    check_max_toi(options.max_toi)?;
    if super::ray::is_tiny(ray) {
        return super::ray::solve_at_unit_scale(ray, options, |r, o| {
            cast_ray_trimesh(mesh, pose, r, o)
        });
    }
    let o = pose.inverse_transform_point(ray.origin);
    let d = pose.inverse_transform_vector(ray.dir);
    let hit = cast_local(mesh, o, d, options).map(|(toi, n, inside)| RayHit {
        toi,
        point: ray.point_at(toi),
        normal: pose.transform_vector(n),
        inside,
    });
    Ok(RayCast {
        hit,
        status: QueryStatus::Converged,
        iterations: 0,
    })
}

/// The point of `mesh` (placed at `pose`) closest to `point`, all in the world frame.
/// For a closed mesh, `inside` tells whether the point is in the solid (surface
/// included: a point within the touching floor of the surface counts as on it) and
/// `distance` is negative inside; for any other mesh, `inside` is false and `distance`
/// is the unsigned distance. `status` is always `Converged` and `iterations` 0. See the
/// module notes for the algorithm and the inside test.
///
/// ```
/// use minkowski::query::project_point_trimesh;
/// use minkowski::shape::{TriMesh, TriMeshFlags};
/// use minkowski::{Pose, Vector};
///
/// let tri = TriMesh::new(
///     vec![Vector::ZERO, Vector::X, Vector::Y],
///     vec![[0, 1, 2]],
///     TriMeshFlags::NONE,
/// )
/// .unwrap();
/// let p = project_point_trimesh(&tri, &Pose::IDENTITY, Vector::new(0.25, 0.25, 2.0)).unwrap();
/// assert_eq!(p.point, Vector::new(0.25, 0.25, 0.0));
/// assert_eq!(p.distance, 2.0);
/// assert!(!p.inside);
/// ```
///
/// # Errors
/// [`CastError`] for a point with a non-finite coordinate or one above the magnitude
/// limit.
pub fn project_point_trimesh(
    mesh: &TriMesh,
    pose: &Pose,
    point: Point,
) -> Result<PointProjection, CastError> {
    check_vector("point", point)?;
    let p = pose.inverse_transform_point(point);
    let c = closest_local(mesh, p);
    let d = length_robust(p - c.point);
    let inside = mesh.is_closed() && classify(mesh, p, &c, d);
    Ok(PointProjection {
        point: pose.transform_point(c.point),
        inside,
        distance: if inside { -d } else { d },
        status: QueryStatus::Converged,
        iterations: 0,
    })
}

/// The rounding band `β` of a ray (time units; see the module notes).
fn band(mesh: &TriMesh, o: Vector, d: Vector) -> Real {
    let sigma = mesh.reach().max(o.abs().max_element());
    SLACK * touch_floor(DEFAULT_ABS_TOLERANCE, sigma) / length_robust(d)
}

/// A hit kept by the walk: time and triangle.
type Best = Option<(Real, u32)>;

fn keep(best: &mut Best, t: Real, tri: u32) {
    if best.is_none_or(|(b, i)| t < b || (t == b && tri < i)) {
        *best = Some((t, tri));
    }
}

/// The answer in the mesh's frame: time, outward (or origin-facing) unit normal,
/// inside.
fn cast_local(
    mesh: &TriMesh,
    o: Vector,
    d: Vector,
    options: &RayOptions,
) -> Option<(Real, Vector, bool)> {
    let beta = band(mesh, o, d);
    let closed = mesh.is_closed();
    let one_sided = mesh.flags().one_sided;
    let ray = ShearedRay::new(o, d);
    let (mut front, mut back): (Best, Best) = (None, None);
    let search = if closed {
        Real::INFINITY
    } else {
        options.max_toi
    };
    mesh.tree().query_ray(o, d, search, |tri, _| {
        if let Some((t, is_front)) = ray.hit(mesh.corners(tri)) {
            if t >= -beta && t <= search {
                let t = t.max(0.0);
                if is_front {
                    keep(&mut front, t, tri);
                } else if closed || !one_sided {
                    keep(&mut back, t, tri);
                }
            }
        }
        let nearest = front
            .map_or(Real::INFINITY, |f| f.0)
            .min(back.map_or(Real::INFINITY, |b| b.0));
        // A closed mesh keeps looking for a hit of the other facing within the band.
        if closed {
            nearest + beta
        } else {
            nearest
        }
    });
    let normal = |tri: u32| mesh.face_normal(tri);
    let within = |t: Real| t <= options.max_toi;
    if !closed {
        let (t, tri, is_front) = match (front, back) {
            (Some(f), Some(b)) if b.0 < f.0 => (b.0, b.1, false),
            (Some(f), _) => (f.0, f.1, true),
            (None, Some(b)) => (b.0, b.1, false),
            (None, None) => return None,
        };
        let n = if is_front { normal(tri) } else { -normal(tri) };
        return within(t).then_some((t, n, false));
    }
    // The first crossing decides, unless its facing is in doubt: a front and a back
    // face within the band, or a face the ray grazes (nearly in its plane).
    let unit = normalize_robust(d).unwrap_or(Vector::Y);
    let grazing = |tri: u32| normal(tri).dot(unit).abs() < RAY_GRAZING;
    let first = match (front, back) {
        (None, None) => return None,
        (Some(f), Some(b)) if (f.0 - b.0).abs() <= beta => None,
        (Some(f), Some(b)) => Some(if b.0 < f.0 { (b.1, true) } else { (f.1, false) }),
        (Some(f), None) => Some((f.1, false)),
        (None, Some(b)) => Some((b.1, true)),
    };
    let inside = match first {
        Some((tri, leaving)) if !grazing(tri) => leaving,
        _ => {
            let c = closest_local(mesh, o);
            classify(mesh, o, &c, length_robust(o - c.point))
        }
    };
    if inside {
        if options.solid {
            let n = normalize_robust(-d).unwrap_or(Vector::Y);
            return Some((0.0, n, true));
        }
        let (t, tri) = back?;
        return within(t).then_some((t, normal(tri), true));
    }
    let (t, tri) = front?;
    within(t).then_some((t, normal(tri), false))
}

/// A ray prepared for the watertight test (see the module notes).
struct ShearedRay {
    o: Vector,
    k: [usize; 3],
    shear: [Real; 3],
}

impl ShearedRay {
    fn new(o: Vector, d: Vector) -> Self {
        let kz = max_abs_axis(d);
        let (mut kx, mut ky) = ((kz + 1) % 3, (kz + 2) % 3);
        if d[kz] < 0.0 {
            std::mem::swap(&mut kx, &mut ky);
        }
        Self {
            o,
            k: [kx, ky, kz],
            shear: [d[kx] / d[kz], d[ky] / d[kz], 1.0 / d[kz]],
        }
    }

    /// The time the ray meets the triangle (units of `d`; may be negative: the caller
    /// bounds it) and whether it meets the front face; `None` for a miss or a ray in the
    /// triangle's plane.
    #[inline]
    fn hit(&self, corners: [Point; 3]) -> Option<(Real, bool)> {
        let [kx, ky, kz] = self.k;
        let [sx, sy, sz] = self.shear;
        let [a, b, c] = corners.map(|p| {
            let p = p - self.o;
            (p[kx] - sx * p[kz], p[ky] - sy * p[kz], sz * p[kz])
        });
        let (u, v, w) = edge_functions(a, b, c);
        if (u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0) {
            return None;
        }
        let det = u + v + w;
        // The weights are products of two lengths, the time's numerator of three: near
        // a tiny triangle (or one the ray grazes) they underflow. (Also zero and NaN.)
        if det.abs() < SMALL_DET || det.is_nan() {
            return hit_small([a, b, c]);
        }
        let t = (u * a.2 + v * b.2 + w * c.2) / det;
        t.is_finite().then_some((t, det > 0.0))
    }
}

/// Below this `|det|` (a product of two lengths: [`tolerance::RESCALE_BELOW`] squared)
/// the ray–triangle test is redone in units of the triangle's sheared size.
const SMALL_DET: Real = tolerance::RESCALE_BELOW * tolerance::RESCALE_BELOW;

/// The three edge functions of the sheared corners (twice the signed areas of the
/// sub-triangles around the ray), an edge decided with wider products when it rounds to
/// zero.
#[inline]
fn edge_functions(
    a: (Real, Real, Real),
    b: (Real, Real, Real),
    c: (Real, Real, Real),
) -> (Real, Real, Real) {
    let mut u = c.0 * b.1 - c.1 * b.0;
    let mut v = a.0 * c.1 - a.1 * c.0;
    let mut w = b.0 * a.1 - b.1 * a.0;
    if u == 0.0 || v == 0.0 || w == 0.0 {
        // On an edge as rounded: decide it with wider products (a no-op in f64).
        let f = |p: (Real, Real, Real)| (p.0 as f64, p.1 as f64);
        let (a2, b2, c2) = (f(a), f(b), f(c));
        u = (c2.0 * b2.1 - c2.1 * b2.0) as Real;
        v = (a2.0 * c2.1 - a2.1 * c2.0) as Real;
        w = (b2.0 * a2.1 - b2.1 * a2.0) as Real;
    }
    (u, v, w)
}

/// [`ShearedRay::hit`] for a triangle whose weights are too small to trust: the sheared
/// plane coordinates multiplied by a power of two that brings the largest to about 1
/// (exact; the weights and their sum scale alike, so the time does not change), then
/// the same test. A triangle of 1e-36 in `f32` was missed, one of 1e-18 hit at time 0.
#[cold]
#[inline(never)]
fn hit_small(corners: [(Real, Real, Real); 3]) -> Option<(Real, bool)> {
    let m = corners
        .iter()
        .fold(0.0 as Real, |m, p| m.max(p.0.abs()).max(p.1.abs()));
    if !(m > 0.0 && m.is_finite()) {
        return None;
    }
    let s = inverse_power_of_two(m);
    let [a, b, c] = corners.map(|p| (p.0 * s, p.1 * s, p.2));
    let (u, v, w) = edge_functions(a, b, c);
    if (u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0) {
        return None;
    }
    let det = u + v + w;
    if det == 0.0 || det.is_nan() {
        return None;
    }
    let t = (u * a.2 + v * b.2 + w * c.2) / det;
    t.is_finite().then_some((t, det > 0.0))
}

/// The feature of a triangle holding a closest point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Feature {
    /// Corner `k`.
    Vertex(usize),
    /// Edge `k`, from corner `k` to `k + 1`.
    Edge(usize),
    /// The interior.
    Face,
}

/// The closest point of a mesh to a point (mesh frame).
struct Closest {
    point: Point,
    triangle: u32,
    feature: Feature,
}

/// The closest point of `mesh` to `p` (mesh frame), through the tree.
fn closest_local(mesh: &TriMesh, p: Point) -> Closest {
    // A tiny mesh and point: the closest point's products (up to fourth powers of
    // lengths) and the squared distances underflow, so they are worked in units of the
    // problem's size (a power of two, exact).
    let sigma = mesh.reach().max(p.abs().max_element());
    if let Some(unit) = tolerance::rescale_factor(sigma) {
        return closest_in_units(mesh, p, unit);
    }
    closest_in_units(mesh, p, 1.0)
}

/// [`closest_local`] with every length multiplied by `unit` while the triangles are
/// compared (the point and the tree's bound come back in the mesh's units).
#[inline(always)]
fn closest_in_units(mesh: &TriMesh, p: Point, unit: Real) -> Closest {
    let mut best = Closest {
        point: p,
        triangle: 0,
        feature: Feature::Face,
    };
    let ps = p * unit;
    let mut best_d2 = Real::INFINITY;
    mesh.tree().query_nearest(p, Real::INFINITY, |tri, _| {
        let corners = mesh.corners(tri).map(|c| c * unit);
        let (q, feature) = closest_on_triangle(ps, corners);
        let d2 = (ps - q).length_squared();
        if d2 < best_d2 || (d2 == best_d2 && tri < best.triangle) {
            best_d2 = d2;
            best = Closest {
                point: q / unit,
                triangle: tri,
                feature,
            };
        }
        // The bound in the mesh's units (it may underflow to 0 at tiny scale: the
        // tree's squared node distances underflow alike, so no nearer node is pruned).
        best_d2 / unit / unit
    });
    best
}

/// Whether `p` is inside the closed `mesh` given its closest point `c` at distance `d`:
/// on the surface within the touching floor, or behind the closest feature's
/// pseudo-normal (see the module notes).
fn classify(mesh: &TriMesh, p: Point, c: &Closest, d: Real) -> bool {
    let sigma = mesh.reach().max(p.abs().max_element());
    if d <= touch_floor(DEFAULT_ABS_TOLERANCE, sigma) {
        return true;
    }
    let n = match c.feature {
        Feature::Face => mesh.face_normal(c.triangle),
        Feature::Edge(k) => mesh.edge_pseudo_normal(c.triangle, k),
        Feature::Vertex(k) => mesh.corner_pseudo_normal(c.triangle, k),
    };
    (p - c.point).dot(n) < 0.0
}

/// The point of triangle `[a, b, c]` closest to `p`, and the feature holding it
/// (Ericson, *Real-Time Collision Detection*, §5.1.5: the Voronoi regions of the
/// corners, then of the edges, then the face, from six dot products).
fn closest_on_triangle(p: Point, [a, b, c]: [Point; 3]) -> (Point, Feature) {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Feature::Vertex(0));
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Feature::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return (a + ab * v, Feature::Edge(0));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Feature::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return (a + ac * w, Feature::Edge(2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + (c - b) * w, Feature::Edge(1));
    }
    let denom = va + vb + vc;
    if denom.is_nan() || denom <= 0.0 {
        // Unreachable for a triangle with area; keep a corner rather than NaN.
        return (a, Feature::Vertex(0));
    }
    let (v, w) = (vb / denom, vc / denom);
    (a + ab * v + ac * w, Feature::Face)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::TriMeshFlags;

    /// A front face seen from its outside gives `U + V + W > 0`, whichever axis the ray
    /// runs along and in which sense (the sign convention the casts rely on).
    #[test]
    fn front_faces_have_a_positive_determinant() {
        for axis in 0..3 {
            for s in [1.0 as Real, -1.0] {
                let mut n = Vector::ZERO;
                n[axis] = s;
                // A triangle with normal n, around the origin.
                let (u, v) = (crate::math::any_orthogonal(n), Vector::ZERO);
                let w = n.cross(u);
                let tri = [v - u - w, v + u - w, v + w];
                let normal = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
                assert!(normal.dot(n) > 0.0);
                let ray = ShearedRay::new(n * 3.0, -n * 0.5);
                let (t, front) = ray.hit(tri).unwrap();
                assert!(front && (t - 6.0).abs() < 1e-5, "axis {axis} sign {s}: {t}");
                let ray = ShearedRay::new(-n * 3.0, n);
                let (t, front) = ray.hit(tri).unwrap();
                assert!(!front && (t - 3.0).abs() < 1e-5);
            }
        }
    }

    #[test]
    fn closest_point_features() {
        let tri = [Vector::ZERO, Vector::X, Vector::Y];
        let f = |p: Vector| closest_on_triangle(p, tri);
        assert_eq!(
            f(Vector::new(-1.0, -1.0, 3.0)),
            (Vector::ZERO, Feature::Vertex(0))
        );
        assert_eq!(
            f(Vector::new(2.0, -0.5, 1.0)),
            (Vector::X, Feature::Vertex(1))
        );
        assert_eq!(
            f(Vector::new(0.5, -1.0, 0.0)),
            (Vector::new(0.5, 0.0, 0.0), Feature::Edge(0))
        );
        assert_eq!(
            f(Vector::new(1.0, 1.0, 0.0)),
            (Vector::new(0.5, 0.5, 0.0), Feature::Edge(1))
        );
        assert_eq!(
            f(Vector::new(-1.0, 0.5, 0.0)),
            (Vector::new(0.0, 0.5, 0.0), Feature::Edge(2))
        );
        assert_eq!(
            f(Vector::new(0.25, 0.25, -2.0)),
            (Vector::new(0.25, 0.25, 0.0), Feature::Face)
        );
        let mesh = TriMesh::new(tri.to_vec(), vec![[0, 1, 2]], TriMeshFlags::NONE).unwrap();
        assert_eq!(
            closest_local(&mesh, Vector::new(0.25, 0.25, -2.0)).feature,
            Feature::Face
        );
    }
}
