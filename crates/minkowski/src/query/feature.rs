//! Support features: the face, edge or vertex of a shape that faces a direction.
//!
//! The support feature of a [`Shape`] placed in the world, for a world direction `d`, is
//! the part of the shape's surface whose outward normal is `d` or within
//! [`FEATURE_ANGLE_COS`] of it: a face (a convex polygon), an edge (a segment) or a single
//! point. Contact manifolds ([`super::manifold::manifold`]) clip one shape's feature
//! against the other's; this module holds the per-shape rules (internal) and their
//! documented constants.
//!
//! Every shape is `core ⊕ ball(margin)` ([`Shape::core`]); the feature is the core's
//! feature translated by `margin` along the feature's own outward normal (the face
//! normal, or for a segment the part of `d` perpendicular to it), so that its points lie
//! exactly on the rounded surface.
//!
//! Per core:
//!
//! | core | face | edge | point |
//! |---|---|---|---|
//! | box, pyramid, hull | the face whose normal is within the angle of `d` | an edge at the support vertex within the angle of perpendicular to `d` | the support vertex |
//! | triangle | either side | as above | the support vertex |
//! | segment | — | the segment, when within the angle of perpendicular to `d` | the support end |
//! | cylinder | a cap, as a regular [`DISC_VERTICES`]-gon inscribed in it | a side line | the support rim point |
//! | cone | the base, as a [`DISC_VERTICES`]-gon | the side line from the apex to the rim | the support point |
//! | point, ellipsoid | — | — | the support point |
//!
//! Polygons are counter-clockwise about their outward normal. Vertex ids name vertices of
//! the shape (box corners in [`crate::shape::Cuboid::vertices`] order, hull vertex
//! indices, disc vertices `16·cap + k`, segment ends 0 and 1), so that the same feature
//! gives the same ids from one pose to the next.

use crate::math::{normalize_robust, Point, Pose, Real, Vector};
use crate::shape::{Cone, CoreShape, Cylinder, Shape};
use crate::support::SupportMap;

/// A feature counts as facing a direction `d` when its normal `n` has `n · d` at least
/// this (a face), or an edge direction `e` has `|e · d|` at most
/// [`FEATURE_ANGLE_SIN`]: an angle of about 2.56° (`cos = 1 − 10⁻³`). Faces that rest on
/// each other with less tilt than this give a face–face manifold (clipped, then filtered
/// by separation), so a nearly resting box gets its 4 points instead of flickering
/// between 1 and 4.
pub const FEATURE_ANGLE_COS: Real = 1.0 - 1e-3;

/// The sine of the feature angle of [`FEATURE_ANGLE_COS`] (`sqrt(1 − cos²)`, about 0.0447).
pub const FEATURE_ANGLE_SIN: Real = 0.044_710_16;

/// Vertices of the regular polygon that stands for a cylinder's cap or a cone's base
/// (inscribed: every point of the polygon lies on the flat disc, so manifold points taken
/// from it are on the surface; the polygon covers `16/(2π)·sin(2π/16)` ≈ 97.4% of the
/// disc's area).
pub const DISC_VERTICES: usize = 16;

/// The most vertices a face feature may have; a hull face with more is answered by its
/// edge or vertex instead (documented fallback, never an allocation).
pub const MAX_FACE_VERTICES: usize = 64;

/// What kind of feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FeatureKind {
    /// One point.
    Point,
    /// A segment: `points[0..2]`.
    Segment,
    /// A convex polygon, counter-clockwise about `normal`.
    Polygon,
}

/// A support feature in the world frame.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Feature {
    pub kind: FeatureKind,
    pub points: [Point; MAX_FACE_VERTICES],
    /// The shape-level vertex id of each point.
    pub ids: [u32; MAX_FACE_VERTICES],
    pub len: usize,
    /// Outward unit normal: the face normal (polygon), the part of the direction
    /// perpendicular to the segment (segment), or the direction (point).
    pub normal: Vector,
    /// Face index (polygon), or an edge / vertex id.
    pub id: u32,
}

impl Feature {
    fn empty(kind: FeatureKind, normal: Vector, id: u32) -> Self {
        Feature {
            kind,
            points: [Point::ZERO; MAX_FACE_VERTICES],
            ids: [0; MAX_FACE_VERTICES],
            len: 0,
            normal,
            id,
        }
    }

    fn point(p: Point, vid: u32, d: Vector) -> Self {
        let mut f = Feature::empty(FeatureKind::Point, d, vid);
        f.push(p, vid);
        f
    }

    fn segment(p: Point, q: Point, ids: [u32; 2], normal: Vector, id: u32) -> Self {
        let mut f = Feature::empty(FeatureKind::Segment, normal, id);
        f.push(p, ids[0]);
        f.push(q, ids[1]);
        f
    }

    fn push(&mut self, p: Point, id: u32) {
        self.points[self.len] = p;
        self.ids[self.len] = id;
        self.len += 1;
    }

    /// The points in use.
    pub fn pts(&self) -> &[Point] {
        &self.points[..self.len]
    }
}

/// The support feature of `shape` at `pose` for the world direction `dir` (unit). See
/// the module documentation.
pub(crate) fn support_feature(shape: &Shape, pose: &Pose, dir: Vector) -> Feature {
    let d = pose.inverse_transform_vector(dir);
    let d = normalize_robust(d).unwrap_or(Vector::Y);
    let (core, margin) = shape.core();
    let mut f = core_feature(&core, d);
    // Onto the rounded surface: along the feature's own normal.
    if margin > 0.0 {
        let off = f.normal * margin;
        for p in &mut f.points[..f.len] {
            *p += off;
        }
    }
    for p in &mut f.points[..f.len] {
        *p = pose.transform_point(*p);
    }
    f.normal = pose.transform_vector(f.normal);
    f
}

/// A cuboid's faces, counter-clockwise from outside (vertex order of `Cuboid::vertices`).
const BOX_FACES: [[u32; 4]; 6] = [
    [0, 4, 6, 2],
    [1, 3, 7, 5],
    [0, 1, 5, 4],
    [2, 6, 7, 3],
    [0, 2, 3, 1],
    [4, 5, 7, 6],
];
/// Each cuboid vertex's three neighbours.
const BOX_NB: [[u32; 3]; 8] = [
    [1, 2, 4],
    [0, 3, 5],
    [3, 0, 6],
    [2, 1, 7],
    [5, 6, 0],
    [4, 7, 1],
    [7, 4, 2],
    [6, 5, 3],
];
/// A pyramid's faces, counter-clockwise from outside: the base (normal -Y), then the
/// sides at -Z, +X, +Z, -X.
const PYRAMID_FACES: [&[u32]; 5] = [
    &[0, 1, 2, 3],
    &[1, 0, 4],
    &[2, 1, 4],
    &[3, 2, 4],
    &[0, 3, 4],
];
/// Each pyramid vertex's neighbours.
const PYRAMID_NB: [&[u32]; 5] = [
    &[1, 3, 4],
    &[0, 2, 4],
    &[1, 3, 4],
    &[0, 2, 4],
    &[0, 1, 2, 3],
];

/// Calls `visit` with the outward unit normal (world frame) of every face of `shape` at
/// `pose`: the faces of a box, pyramid or polyhedral hull, both sides of a triangle or of
/// a flat hull, the caps of a cylinder and the base of a cone; nothing for the other
/// shapes (curved, or with no face). A rounded shape has its core's face normals.
pub(crate) fn face_normals(shape: &Shape, pose: &Pose, visit: &mut dyn FnMut(Vector)) {
    let (core, _) = shape.core();
    let mut faces = |v: &[Point], faces: &mut dyn Iterator<Item = &[u32]>| {
        for f in faces {
            if let Some(n) = newell(v, f) {
                visit(pose.transform_vector(n));
            }
        }
    };
    match core {
        CoreShape::Cuboid(c) => faces(&c.vertices(), &mut BOX_FACES.iter().map(|f| &f[..])),
        CoreShape::Pyramid(p) => faces(&p.vertices(), &mut PYRAMID_FACES.iter().copied()),
        CoreShape::Triangle(t) => faces(
            &t.vertices(),
            &mut [&[0u32, 1, 2][..], &[0, 2, 1]].into_iter(),
        ),
        CoreShape::Convex(h) => {
            let hull = h.hull();
            match hull.dimension() {
                crate::hull::Dimension::Polyhedron => faces(h.points(), &mut hull.faces()),
                crate::hull::Dimension::Polygon => {
                    let face = hull.face(0);
                    if let Some(n) = newell(h.points(), face) {
                        visit(pose.transform_vector(n));
                        visit(pose.transform_vector(-n));
                    }
                }
                _ => {}
            }
        }
        CoreShape::Cylinder(_) => {
            visit(pose.transform_vector(Vector::Y));
            visit(pose.transform_vector(Vector::NEG_Y));
        }
        CoreShape::Cone(_) => visit(pose.transform_vector(Vector::NEG_Y)),
        _ => {}
    }
}

/// The feature of a core in its local frame; `d` is unit.
fn core_feature(core: &CoreShape<'_>, d: Vector) -> Feature {
    match core {
        CoreShape::Point(p) => Feature::point(p.point(), 0, d),
        CoreShape::Ellipsoid(e) => Feature::point(e.local_support(d), 0, d),
        CoreShape::Segment(s) => segment_feature(s.a(), s.b(), [0, 1], d, 0),
        CoreShape::Cuboid(c) => {
            let v = c.vertices();
            polytope_feature(&v, BOX_FACES.iter().map(|f| &f[..]), &|i| &BOX_NB[i][..], d)
        }
        CoreShape::Pyramid(p) => {
            let v = p.vertices();
            polytope_feature(&v, PYRAMID_FACES.iter().copied(), &|i| PYRAMID_NB[i], d)
        }
        CoreShape::Triangle(t) => {
            let v = t.vertices();
            if normalize_robust((v[1] - v[0]).cross(v[2] - v[0])).is_some() {
                // Two-sided: face 0 or 1 by the side facing d.
                const FACES: [&[u32]; 2] = [&[0, 1, 2], &[0, 2, 1]];
                const NB: [&[u32]; 3] = [&[1, 2], &[0, 2], &[0, 1]];
                polytope_feature(&v, FACES.iter().copied(), &|i| NB[i], d)
            } else {
                flat_points_feature(&v, d)
            }
        }
        CoreShape::Convex(h) => {
            let hull = h.hull();
            let v = h.points();
            match hull.dimension() {
                crate::hull::Dimension::Polyhedron => {
                    polytope_feature(v, hull.faces(), &|i| hull.neighbors(i), d)
                }
                crate::hull::Dimension::Polygon => {
                    let face = hull.face(0);
                    let mut rev = [0u32; MAX_FACE_VERTICES];
                    // Too large a polygon is skipped (both sides), as any too large face.
                    let n = if face.len() <= MAX_FACE_VERTICES {
                        face.len()
                    } else {
                        0
                    };
                    for (k, r) in rev[..n].iter_mut().enumerate() {
                        *r = face[face.len() - 1 - k];
                    }
                    // Two-sided: the polygon and its reverse.
                    let faces: [&[u32]; 2] = [face, &rev[..n]];
                    polytope_feature(v, faces.iter().copied(), &|i| hull.neighbors(i), d)
                }
                _ => flat_points_feature(v, d),
            }
        }
        CoreShape::Cylinder(c) => cylinder_feature(c, d),
        CoreShape::Cone(c) => cone_feature(c, d),
    }
}

/// A segment's feature: the segment when it is within the angle of perpendicular to
/// `d`, else its support end.
fn segment_feature(a: Point, b: Point, ids: [u32; 2], d: Vector, id: u32) -> Feature {
    let e = b - a;
    if let Some(u) = normalize_robust(e) {
        let along = u.dot(d);
        if along.abs() <= FEATURE_ANGLE_SIN {
            let n = normalize_robust(d - u * along).unwrap_or(d);
            return Feature::segment(a, b, ids, n, id);
        }
    }
    if b.dot(d) > a.dot(d) {
        Feature::point(b, ids[1], d)
    } else {
        Feature::point(a, ids[0], d)
    }
}

/// The feature of a point set with no faces (a hull of dimension below 2, or a
/// degenerate triangle): its two farthest-apart points as a segment.
fn flat_points_feature(v: &[Point], d: Vector) -> Feature {
    let (mut bi, mut bj, mut best) = (0, 0, -1.0);
    for i in 0..v.len() {
        for j in i + 1..v.len() {
            let l = (v[j] - v[i]).length_squared();
            if l > best {
                (bi, bj, best) = (i, j, l);
            }
        }
    }
    segment_feature(v[bi], v[bj], [bi as u32, bj as u32], d, 0)
}

/// Newell's normal of a polygon (unit), `None` when it has no area.
fn newell(v: &[Point], face: &[u32]) -> Option<Vector> {
    let o = v[face[0] as usize];
    let mut n = Vector::ZERO;
    for k in 1..face.len().saturating_sub(1) {
        let (p, q) = (v[face[k] as usize], v[face[k + 1] as usize]);
        n += (p - o).cross(q - o);
    }
    normalize_robust(n)
}

/// The feature of a polytope given by vertices, faces (counter-clockwise from outside)
/// and vertex neighbours.
fn polytope_feature<'a, 'n>(
    v: &[Point],
    faces: impl Iterator<Item = &'a [u32]>,
    neighbors: &dyn Fn(usize) -> &'n [u32],
    d: Vector,
) -> Feature {
    // The face most aligned with d.
    let mut best: Option<(Real, usize, Vector, &'a [u32])> = None;
    for (fi, face) in faces.enumerate() {
        if face.len() < 3 || face.len() > MAX_FACE_VERTICES {
            continue;
        }
        if let Some(n) = newell(v, face) {
            let c = n.dot(d);
            if best.is_none_or(|b| c > b.0) {
                best = Some((c, fi, n, face));
            }
        }
    }
    if let Some((c, fi, n, face)) = best {
        if c >= FEATURE_ANGLE_COS {
            let mut f = Feature::empty(FeatureKind::Polygon, n, fi as u32);
            for &i in face {
                f.push(v[i as usize], i);
            }
            return f;
        }
    }
    // The support vertex (first of equals), then its most perpendicular edge.
    let mut s = 0;
    for i in 1..v.len() {
        if v[i].dot(d) > v[s].dot(d) {
            s = i;
        }
    }
    let mut edge: Option<(Real, usize)> = None;
    for &j in neighbors(s) {
        let j = j as usize;
        if let Some(u) = normalize_robust(v[j] - v[s]) {
            let a = u.dot(d).abs();
            if edge.is_none_or(|e| a < e.0) {
                edge = Some((a, j));
            }
        }
    }
    if let Some((a, j)) = edge {
        if a <= FEATURE_ANGLE_SIN {
            let (lo, hi) = if s < j { (s, j) } else { (j, s) };
            return segment_feature(
                v[lo],
                v[hi],
                [lo as u32, hi as u32],
                d,
                (lo * 1024 + hi) as u32,
            );
        }
    }
    Feature::point(v[s], s as u32, d)
}

/// The regular polygon inscribed in the disc of radius `r` at height `y`, counter-
/// clockwise about `+Y` (`up`) or `-Y`.
fn disc(y: Real, r: Real, up: bool, cap: u32) -> Feature {
    let n = if up { Vector::Y } else { Vector::NEG_Y };
    let mut f = Feature::empty(FeatureKind::Polygon, n, cap);
    for k in 0..DISC_VERTICES {
        // Counter-clockwise about +Y runs from +Z towards +X (Z × X = Y); reversed for -Y.
        let k = if up { k } else { DISC_VERTICES - 1 - k };
        let t = std::f64::consts::TAU * k as f64 / DISC_VERTICES as f64;
        let (s, c) = (t.sin() as Real, t.cos() as Real);
        f.push(
            Vector::new(r * s, y, r * c),
            cap * DISC_VERTICES as u32 + k as u32,
        );
    }
    f
}

fn cylinder_feature(c: &Cylinder, d: Vector) -> Feature {
    let (h, r) = (c.half_height(), c.radius());
    if r > 0.0 && d.y.abs() >= FEATURE_ANGLE_COS {
        let up = d.y > 0.0;
        return disc(if up { h } else { -h }, r, up, up as u32);
    }
    let horiz = Vector::new(d.x, 0.0, d.z);
    if h > 0.0 && d.y.abs() <= FEATURE_ANGLE_SIN {
        if let Some(u) = normalize_robust(horiz) {
            let p = u * r;
            return Feature::segment(
                p - Vector::Y * h,
                p + Vector::Y * h,
                [2 * DISC_VERTICES as u32, 2 * DISC_VERTICES as u32 + 1],
                u,
                2,
            );
        }
    }
    Feature::point(c.local_support(d), 2 * DISC_VERTICES as u32 + 2, d)
}

fn cone_feature(cone: &Cone, d: Vector) -> Feature {
    let (h, r) = (cone.half_height(), cone.radius());
    if r > 0.0 && -d.y >= FEATURE_ANGLE_COS {
        return disc(-h, r, false, 0);
    }
    if r > 0.0 && h == 0.0 && d.y >= FEATURE_ANGLE_COS {
        // A flat cone is a two-sided disc.
        return disc(0.0, r, true, 1);
    }
    if let Some(u) = normalize_robust(Vector::new(d.x, 0.0, d.z)) {
        // The side line from the apex to the rim at u has outward normal (2h u, r)
        // normalised (perpendicular to (r u, -2h)).
        if let Some(ns) = normalize_robust(u * (2.0 * h) + Vector::Y * r) {
            if ns.dot(d) >= FEATURE_ANGLE_COS && (h > 0.0 || r > 0.0) {
                return Feature::segment(
                    Vector::new(0.0, h, 0.0),
                    u * r - Vector::Y * h,
                    [DISC_VERTICES as u32, DISC_VERTICES as u32 + 1],
                    ns,
                    1,
                );
            }
        }
    }
    Feature::point(cone.local_support(d), DISC_VERTICES as u32 + 2, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::{
        Capsule, ConvexPolyhedron, Cuboid, Ellipsoid, Pyramid, RoundedShape, Segment, Sphere,
        Triangle,
    };

    /// One of each kind at hand-picked sizes, then the registry's example of every
    /// registered type (so that a new shape's features are checked on registration).
    fn shapes() -> Vec<Shape> {
        let v = Vector::new;
        let mut shapes: Vec<Shape> = vec![
            Cuboid::new(v(1.0, 0.5, 0.7)).unwrap().into(),
            Pyramid::new(v(1.0, 0.8, 0.6)).unwrap().into(),
            Cylinder::new(0.7, 0.4).unwrap().into(),
            Cone::new(0.6, 0.5).unwrap().into(),
            Capsule::new(0.8, 0.3).unwrap().into(),
            Sphere::new(0.5).unwrap().into(),
            Ellipsoid::new(v(0.5, 0.3, 0.8)).unwrap().into(),
            Segment::new(v(-1.0, 0.2, 0.0), v(0.5, -0.3, 0.4))
                .unwrap()
                .into(),
            Triangle::new(v(0.0, 0.0, 0.0), v(1.0, 0.2, 0.0), v(0.1, 0.9, 0.3))
                .unwrap()
                .into(),
            ConvexPolyhedron::new(vec![
                v(1.0, 0.0, 0.0),
                v(-0.5, 0.8, 0.1),
                v(-0.4, -0.7, 0.2),
                v(0.1, 0.1, 1.0),
                v(0.2, -0.1, -0.9),
                v(0.6, 0.6, 0.6),
            ])
            .unwrap()
            .into(),
            RoundedShape::new(Cuboid::new(v(0.5, 0.4, 0.3)).unwrap().into(), 0.1)
                .unwrap()
                .into(),
        ];
        shapes.extend(Shape::examples());
        shapes
    }

    /// Every feature point is within the feature angle of supporting (its support gap is
    /// at most `sin θ` times the shape's size), polygons face the direction and are
    /// counter-clockwise about their normal, and the axis directions give faces.
    #[test]
    fn features_support_the_direction_and_polygons_are_counter_clockwise() {
        let dirs: Vec<Vector> = (0..400)
            .map(|i| {
                // Fibonacci directions plus the axes.
                let y = 1.0 - 2.0 * (i as Real + 0.5) / 400.0;
                let t = 2.399_963 * i as Real;
                let r = (1.0 - y * y).sqrt();
                Vector::new(r * t.cos(), y, r * t.sin())
            })
            .chain([
                Vector::X,
                Vector::Y,
                Vector::Z,
                -Vector::X,
                -Vector::Y,
                -Vector::Z,
            ])
            .collect();
        let pose = Pose::new(
            crate::math::Rotation::from_axis_angle(Vector::new(1.0, 2.0, 3.0).normalize(), 0.7),
            Vector::new(0.3, -1.0, 2.0),
        )
        .expect("valid pose");
        for shape in shapes() {
            let size = 2.0 * shape.bounding_radius();
            for &d in &dirs {
                let f = support_feature(&shape, &pose, d);
                let h = pose
                    .transform_point(shape.local_support(pose.inverse_transform_vector(d)))
                    .dot(d);
                for p in f.pts() {
                    let gap = h - p.dot(d);
                    assert!(
                        gap <= FEATURE_ANGLE_SIN * size + 1e-5 && gap >= -1e-5,
                        "{}: {d} {:?} gap {gap}",
                        shape.type_name(),
                        f.kind
                    );
                }
                if f.kind == FeatureKind::Polygon {
                    assert!(f.normal.dot(d) >= FEATURE_ANGLE_COS - 1e-6);
                    let p = f.pts();
                    let mut n = Vector::ZERO;
                    for k in 1..p.len() - 1 {
                        n += (p[k] - p[0]).cross(p[k + 1] - p[0]);
                    }
                    assert!(n.dot(f.normal) > 0.0, "{}: clockwise", shape.type_name());
                }
            }
        }
    }

    #[test]
    fn boxes_give_faces_edges_and_corners() {
        let b: Shape = Cuboid::new(Vector::new(1.0, 2.0, 3.0)).unwrap().into();
        let at = Pose::IDENTITY;
        let f = support_feature(&b, &at, Vector::Y);
        assert_eq!((f.kind, f.len), (FeatureKind::Polygon, 4));
        assert!(f.pts().iter().all(|p| p.y == 2.0));
        let f = support_feature(&b, &at, Vector::new(1.0, 1.0, 0.0).normalize());
        assert_eq!((f.kind, f.len), (FeatureKind::Segment, 2));
        assert!(f.pts().iter().all(|p| p.x == 1.0 && p.y == 2.0));
        let f = support_feature(&b, &at, Vector::new(1.0, 1.0, 1.0).normalize());
        assert_eq!(
            (f.kind, f.pts()),
            (FeatureKind::Point, &[Vector::new(1.0, 2.0, 3.0)][..])
        );
    }
}
