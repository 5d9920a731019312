//! Support maps checked against brute force: the support point must be a point of the
//! shape and no sampled point of the shape may go further along the direction.

use super::*;
use crate::math::{Pose, Rotation};

fn lcg(state: &mut u64) -> Real {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*state >> 33) as Real / (1u64 << 31) as Real) * 2.0 - 1.0
}

/// Points of the shape sampled by rejection from its AABB, using an independent
/// membership test per shape.
fn inside(shape: &Shape, p: Vector) -> bool {
    let eps = 1e-5;
    match shape {
        Shape::Sphere(s) => p.length() <= s.radius() + eps,
        Shape::Cuboid(c) => (p.abs() - c.half_extents()).max_element() <= eps,
        Shape::Capsule(c) => {
            let y = p.y.clamp(-c.half_height(), c.half_height());
            (p - Vector::new(0.0, y, 0.0)).length() <= c.radius() + eps
        }
        Shape::Cylinder(c) => {
            p.y.abs() <= c.half_height() + eps && (p.x * p.x + p.z * p.z).sqrt() <= c.radius() + eps
        }
        Shape::Cone(c) => {
            let h = c.half_height();
            if p.y < -h - eps || p.y > h + eps {
                return false;
            }
            let r_at = c.radius() * (h - p.y) / (2.0 * h);
            (p.x * p.x + p.z * p.z).sqrt() <= r_at + eps
        }
        Shape::Ellipsoid(e) => (p / e.radii()).length() <= 1.0 + eps,
        _ => true,
    }
}

#[test]
fn supports_are_extreme_points_of_the_shapes() {
    let shapes: Vec<Shape> = vec![
        Sphere::new(1.3).unwrap().into(),
        Cuboid::new(Vector::new(0.5, 1.0, 2.0)).unwrap().into(),
        Capsule::new(0.7, 0.4).unwrap().into(),
        Cylinder::new(0.8, 0.6).unwrap().into(),
        Cone::new(1.0, 0.5).unwrap().into(),
        Ellipsoid::new(Vector::new(0.5, 1.5, 1.0)).unwrap().into(),
    ];
    let mut st = 7u64;
    for shape in &shapes {
        let aabb = shape.local_aabb();
        let samples: Vec<Vector> = (0..20000)
            .map(|_| {
                let t = Vector::new(lcg(&mut st), lcg(&mut st), lcg(&mut st)) * 0.5 + 0.5;
                aabb.mins + (aabb.maxs - aabb.mins) * t
            })
            .filter(|p| inside(shape, *p))
            .collect();
        assert!(samples.len() > 1000, "{}", shape.type_name());
        for _ in 0..200 {
            let d = Vector::new(lcg(&mut st), lcg(&mut st), lcg(&mut st));
            let s = shape.local_support(d);
            assert!(
                inside(shape, s),
                "{} support {s} outside",
                shape.type_name()
            );
            let h = s.dot(d);
            for p in &samples {
                assert!(
                    p.dot(d) <= h + 1e-4,
                    "{} sample beats support",
                    shape.type_name()
                );
            }
        }
    }
}

#[test]
fn polytope_supports_match_vertex_scans() {
    let pyr = Pyramid::new(Vector::new(1.0, 0.5, 2.0)).unwrap();
    let cub = Cuboid::new(Vector::new(1.0, 0.5, 2.0)).unwrap();
    let mut st = 11u64;
    for _ in 0..1000 {
        let d = Vector::new(lcg(&mut st), lcg(&mut st), lcg(&mut st));
        let best = |vs: &[Vector]| vs.iter().map(|v| v.dot(d)).fold(Real::MIN, Real::max);
        assert!((pyr.local_support(d).dot(d) - best(&pyr.vertices())).abs() < 1e-5);
        assert!((cub.local_support(d).dot(d) - best(&cub.vertices())).abs() < 1e-5);
    }
}

#[test]
fn constructors_reject_bad_numbers() {
    assert!(Sphere::new(-1.0).is_err());
    assert!(Sphere::new(Real::NAN).is_err());
    assert!(Sphere::new(Real::INFINITY).is_err());
    assert!(Sphere::new(MAX_MAGNITUDE * 2.0).is_err());
    assert!(Cuboid::new(Vector::new(1.0, -0.1, 1.0)).is_err());
    assert!(Capsule::new(1.0, Real::NAN).is_err());
    assert!(ConvexPolyhedron::new(vec![]).is_err());
    assert!(ConvexPolyhedron::new(vec![Vector::new(0.0, Real::NAN, 0.0)]).is_err());
    assert!(Segment::new(Vector::ZERO, Vector::splat(Real::INFINITY)).is_err());
    let e = Sphere::new(-1.0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "sphere radius must be finite and >= 0, got -1"
    );
    // Zero sizes are valid (degenerate but meaningful).
    assert!(Sphere::new(0.0).is_ok());
    assert!(Cuboid::new(Vector::ZERO).is_ok());
}

#[test]
fn world_aabb_contains_transformed_support_points() {
    let s: Shape = Cone::new(1.0, 0.5).unwrap().into();
    let pose = Pose::new(
        Rotation::from_axis_angle(Vector::new(1.0, 1.0, 0.0).normalize(), 0.8),
        Vector::new(1.0, 2.0, 3.0),
    )
    .unwrap();
    let aabb = s.local_aabb().transformed(&pose);
    let mut st = 3u64;
    for _ in 0..500 {
        let d = Vector::new(lcg(&mut st), lcg(&mut st), lcg(&mut st));
        let p = pose.transform_point(s.local_support(d));
        assert!(p.cmpge(aabb.mins - 1e-5).all() && p.cmple(aabb.maxs + 1e-5).all());
    }
}

// ---------------------------------------------------------------------------------
// The registry: contracts every registered shape keeps, checked for each type in
// `Shape::TYPE_NAMES` without code of its own (a new shape is covered on registration).
// ---------------------------------------------------------------------------------

use core::cell::{Cell, RefCell};

/// Shape parameters drawn at random: every number and vector component a length in
/// `[0.2, 1) · size` (valid extents, radii and coordinates for every constructor), point
/// lists of 4 to 11 points in `[-size, size)³`, inner shapes of a random registered type
/// (nested at most once).
struct RandomParams {
    next: RefCell<Box<dyn FnMut() -> f64>>,
    size: Real,
    depth: Cell<u32>,
}

impl RandomParams {
    fn new(seed: u64, size: Real) -> Self {
        Self {
            next: RefCell::new(Box::new(crate::testing::uniform(seed))),
            size,
            depth: Cell::new(0),
        }
    }
    fn unit(&self) -> Real {
        (self.next.borrow_mut())() as Real
    }
    fn length(&self) -> Real {
        self.size * (0.2 + 0.8 * self.unit())
    }
    fn signed(&self) -> Vector {
        Vector::new(self.unit(), self.unit(), self.unit()) * (2.0 * self.size) - self.size
    }
}

impl ShapeParams for RandomParams {
    type Error = ShapeError;
    fn number(&self, _: &'static str) -> Result<Real, ShapeError> {
        Ok(self.length())
    }
    fn vector(&self, _: &'static str) -> Result<Vector, ShapeError> {
        Ok(Vector::new(self.length(), self.length(), self.length()))
    }
    fn optional_vector(&self, field: &'static str) -> Result<Option<Vector>, ShapeError> {
        self.vector(field).map(Some)
    }
    fn points(&self, _: &'static str) -> Result<Vec<Point>, ShapeError> {
        let n = 4 + (self.unit() * 8.0) as usize;
        Ok((0..n).map(|_| self.signed()).collect())
    }
    fn shape(&self, _: &'static str) -> Result<Shape, ShapeError> {
        let names: Vec<&str> = Shape::TYPE_NAMES
            .iter()
            .copied()
            .filter(|n| self.depth.get() == 0 || *n != RoundedShape::TYPE_NAME)
            .collect();
        let name = names[((self.unit() * names.len() as Real) as usize).min(names.len() - 1)];
        self.depth.set(self.depth.get() + 1);
        let inner = Shape::from_params(name, self).expect("a registered name");
        self.depth.set(self.depth.get() - 1);
        inner
    }
}

/// Shape parameters that cannot be read: every accessor fails.
struct Unreadable;

impl ShapeParams for Unreadable {
    type Error = ShapeError;
    fn number(&self, _: &'static str) -> Result<Real, ShapeError> {
        Err(ShapeError::EmptyPointSet {
            shape: "unreadable",
        })
    }
    fn vector(&self, _: &'static str) -> Result<Vector, ShapeError> {
        Err(ShapeError::EmptyPointSet {
            shape: "unreadable",
        })
    }
    fn optional_vector(&self, _: &'static str) -> Result<Option<Vector>, ShapeError> {
        Err(ShapeError::EmptyPointSet {
            shape: "unreadable",
        })
    }
    fn points(&self, _: &'static str) -> Result<Vec<Point>, ShapeError> {
        Err(ShapeError::EmptyPointSet {
            shape: "unreadable",
        })
    }
    fn shape(&self, _: &'static str) -> Result<Shape, ShapeError> {
        Err(ShapeError::EmptyPointSet {
            shape: "unreadable",
        })
    }
}

#[test]
fn registry_names_are_unique_and_in_variant_order() {
    let names = Shape::TYPE_NAMES;
    for (i, n) in names.iter().enumerate() {
        assert!(!names[..i].contains(n), "{n} registered twice");
        // The protocol's compounds are not `Shape`s; the name is taken.
        assert_ne!(*n, "compound");
    }
    let examples = Shape::examples();
    assert_eq!(examples.len(), names.len());
    for (e, n) in examples.iter().zip(names) {
        assert_eq!(e.type_name(), *n);
    }
}

#[test]
fn every_registered_shape_is_built_from_its_parameters() {
    for (k, name) in Shape::TYPE_NAMES.iter().enumerate() {
        let built = Shape::from_params(name, &RandomParams::new(k as u64 + 1, 1.0));
        let shape = built.expect("registered").expect("valid parameters");
        assert_eq!(shape.type_name(), *name);
        // Every constructor reads through the accessor, and passes its errors on.
        assert!(
            matches!(Shape::from_params(name, &Unreadable), Some(Err(_))),
            "{name}"
        );
    }
    assert!(Shape::from_params("compound", &RandomParams::new(1, 1.0)).is_none());
    assert!(Shape::from_params("Sphere", &RandomParams::new(1, 1.0)).is_none());
}

/// For every registered type (its example and random instances at sizes 10⁻² … 10²):
/// support points (core ⊕ margin) lie in the local box and the bounding ball, no support
/// point goes further along another support point's direction than that point (each is
/// extreme among the shape's points found), and the type's own support map reaches as
/// far as its core ⊕ margin in every direction (the core split describes the same set).
#[test]
fn every_registered_shape_keeps_its_contracts() {
    let mut next = crate::testing::uniform(0x5e7);
    let dirs: Vec<Vector> = (0..300)
        .map(|_| {
            Vector::new(
                next() as Real - 0.5,
                next() as Real - 0.5,
                next() as Real - 0.5,
            )
        })
        .collect();
    let mut shapes: Vec<(Shape, Real)> = Shape::examples().into_iter().map(|s| (s, 1.0)).collect();
    for (k, name) in Shape::TYPE_NAMES.iter().enumerate() {
        for i in 0..10 {
            let size = [1e-2, 1e-1, 1.0, 10.0, 100.0][i % 5];
            let params = RandomParams::new((k * 100 + i) as u64 + 7, size);
            let shape = Shape::from_params(name, &params).unwrap().unwrap();
            shapes.push((shape, size));
        }
    }
    for (shape, size) in &shapes {
        let name = shape.type_name();
        let tol = 64.0 * crate::math::EPSILON * 4.0 * size;
        let aabb = shape.local_aabb();
        let radius = shape.bounding_radius();
        let points: Vec<Point> = dirs.iter().map(|d| shape.local_support(*d)).collect();
        for (d, p) in dirs.iter().zip(&points) {
            assert!(
                p.cmpge(aabb.mins - tol).all() && p.cmple(aabb.maxs + tol).all(),
                "{name}: support {p} outside its box {aabb:?}"
            );
            assert!(p.length() <= radius + tol, "{name}: {p} beyond {radius}");
            let u = d.normalize();
            let h = p.dot(u);
            let own = shape.own_support(*d).dot(u);
            assert!((own - h).abs() <= tol, "{name}: own {own} vs core {h}");
            for q in &points {
                assert!(q.dot(u) <= h + tol, "{name}: {q} beyond the support {p}");
            }
        }
    }
}
