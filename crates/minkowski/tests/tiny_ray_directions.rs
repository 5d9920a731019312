//! Rays whose direction is tiny: times are in units of the direction, so a direction
//! scaled by `2^-k` must give the same hit at `2^k` times the time, the same point and
//! the same normal (a power of two scales exactly). Down to a direction near the
//! smallest normal number of the precision, every shape (convex, compound and static)
//! must answer exactly that, never a non-finite normal or time (found by a probe of
//! heightfield rays whose directions were near 1e-30 in `f32`: the inside answer
//! normalised a direction whose square underflows).
//!
//! Below that, a subnormal direction: the answer must be finite (a hit at a time beyond
//! the precision's range cannot be written and is reported as no hit, as the docs of
//! [`Ray`] say).

#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::{r, v3, Rng};
use minkowski::query::compound::{cast_ray as cast_ray_compound, Collider};
use minkowski::query::static_dispatch;
use minkowski::query::{cast_ray, Ray, RayCast, RayOptions};
use minkowski::shape::{
    Capsule, Compound, Cone, ConvexPolyhedron, Cuboid, Cylinder, Ellipsoid, HalfSpace, HeightField,
    RoundedShape, Shape, Sphere, StaticShape,
};
use minkowski::{Pose, Real, Vector};

/// What is cast at: a convex shape, a compound or a static shape.
enum Target {
    Convex(Shape),
    Compound(Collider),
    Static(StaticShape),
}

impl Target {
    fn cast(&self, pose: &Pose, ray: &Ray, options: &RayOptions) -> RayCast {
        match self {
            Target::Convex(s) => cast_ray(s, pose, ray, options),
            Target::Compound(c) => cast_ray_compound(c, pose, ray, options).map(|p| p.answer),
            Target::Static(s) => static_dispatch::cast_ray(s, pose, ray, options),
        }
        .expect("a valid ray")
    }
}

fn targets(rng: &mut Rng) -> Vec<(&'static str, Target)> {
    let hull: Vec<Vector> = (0..12).map(|_| v3(rng.dir())).collect();
    let sphere = Shape::from(Sphere::new(1.0).unwrap());
    let cuboid = Shape::from(Cuboid::new(Vector::new(0.6, 1.0, 0.8)).unwrap());
    let compound = Compound::new(vec![
        (
            Pose::from_translation(Vector::new(-0.5, 0.0, 0.0)).unwrap(),
            sphere.clone(),
        ),
        (
            Pose::from_translation(Vector::new(0.5, 0.0, 0.0)).unwrap(),
            cuboid.clone(),
        ),
    ])
    .unwrap();
    // A field over [-2, 2]², heights within [-0.3, 0.3].
    let samples: Vec<Option<Real>> = (0..25).map(|_| Some(r(rng.range(-0.3, 0.3)))).collect();
    let field = HeightField::new(5, 5, &samples, [1.0, 1.0], Vector::new(-2.0, 0.0, -2.0)).unwrap();
    let mesh = common::static_sets::octahedron();
    vec![
        ("sphere", Target::Convex(sphere)),
        ("cuboid", Target::Convex(cuboid.clone())),
        (
            "capsule",
            Target::Convex(Capsule::new(0.7, 0.5).unwrap().into()),
        ),
        (
            "cylinder",
            Target::Convex(Cylinder::new(0.8, 0.7).unwrap().into()),
        ),
        ("cone", Target::Convex(Cone::new(0.9, 0.8).unwrap().into())),
        (
            "ellipsoid",
            Target::Convex(Ellipsoid::new(Vector::new(0.5, 1.2, 0.9)).unwrap().into()),
        ),
        (
            "hull",
            Target::Convex(ConvexPolyhedron::new(hull).unwrap().into()),
        ),
        (
            "rounded box",
            Target::Convex(RoundedShape::new(cuboid, 0.2).unwrap().into()),
        ),
        ("compound", Target::Compound(Collider::from(compound))),
        (
            "halfspace",
            Target::Static(HalfSpace::new(Vector::Y, 0.0).unwrap().into()),
        ),
        ("heightfield", Target::Static(field.into())),
        ("trimesh", Target::Static(mesh.into())),
    ]
}

/// Rays from outside aimed at a point near the shape's centre, rays from near its centre
/// (inside every target but the heightfield, whose centre is under the surface about
/// half the time, and the octahedron's open interior), and rays aimed away.
fn rays(rng: &mut Rng, centre: Vector) -> Vec<(Vector, Vector)> {
    let mut out = Vec::new();
    for _ in 0..6 {
        let from = centre + v3(rng.dir() * rng.range(3.0, 5.0));
        let at = centre + v3(rng.dir() * rng.range(0.0, 0.2));
        out.push((from, (at - from).normalize()));
        out.push((from, (from - at).normalize()));
        let inner = centre + v3(rng.dir() * rng.range(0.0, 0.2));
        out.push((inner, v3(rng.dir())));
    }
    out
}

#[test]
fn a_tiny_direction_scales_the_time_and_keeps_the_hit() {
    let mut rng = Rng::new(0x7_1d1e);
    // 2^-33, 2^-66, 2^-100 and eight binades above the smallest normal number.
    let deepest = -(Real::MIN_EXP.unsigned_abs() as i32 - 8);
    let exponents = [-33, -66, -100, deepest];
    let tol: Real = if Real::EPSILON > 1e-10 { 2e-4 } else { 1e-9 };
    let mut checked = 0;
    for round in 0..4 {
        for (name, target) in targets(&mut rng) {
            let pose = if round == 0 {
                Pose::IDENTITY
            } else {
                Pose::new(rng.rotation(), v3(rng.dir() * 2.0)).unwrap()
            };
            let pose = match target {
                // Static shapes are cast at unturned: the field's ground is y = 0.
                Target::Static(_) => Pose::IDENTITY,
                _ => pose,
            };
            for (origin, dir) in rays(&mut rng, pose.translation()) {
                for solid in [true, false] {
                    let options = RayOptions {
                        solid,
                        ..RayOptions::default()
                    };
                    let unit = target.cast(&pose, &Ray::new(origin, dir), &options);
                    for &k in &exponents {
                        let s = (2.0 as Real).powi(k);
                        let ray = Ray::new(origin, dir * s);
                        let tiny = target.cast(&pose, &ray, &options);
                        let case = format!("{name} solid {solid} 2^{k} {origin:?} {dir:?}");
                        assert_eq!(
                            unit.hit.is_some(),
                            tiny.hit.is_some(),
                            "{case}: {unit:?} vs {tiny:?}"
                        );
                        let (Some(a), Some(b)) = (unit.hit, tiny.hit) else {
                            continue;
                        };
                        assert!(
                            b.toi.is_finite() && b.point.is_finite() && b.normal.is_finite(),
                            "{case}: {b:?}"
                        );
                        assert!((b.normal.length() - 1.0).abs() < tol, "{case}: {b:?}");
                        assert_eq!(a.inside, b.inside, "{case}: {a:?} vs {b:?}");
                        let scale = 1.0 + a.toi;
                        assert!(
                            (b.toi * s - a.toi).abs() <= tol * scale,
                            "{case}: {a:?} vs {b:?}"
                        );
                        assert!(
                            (b.point - a.point).length() <= tol * (1.0 + a.point.length()),
                            "{case}: {a:?} vs {b:?}"
                        );
                        assert!(
                            (b.normal - a.normal).length() <= 10.0 * tol,
                            "{case}: {a:?} vs {b:?}"
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 1000, "{checked} hits compared");
}

/// A ray a few ulps off a unit ball's surface, aimed at it with a subnormal direction:
/// the hit's time, a few ulps over the direction's length, is within the precision's
/// range, and is the unit direction's time scaled.
#[test]
fn a_subnormal_direction_from_near_the_surface_hits_at_the_scaled_time() {
    let s = Real::MIN_POSITIVE / 64.0;
    let ball = Target::Convex(Sphere::new(1.0).unwrap().into());
    let field = Target::Static(
        HeightField::new(
            2,
            2,
            &[Some(0.0); 4],
            [2.0, 2.0],
            Vector::new(-1.0, 1.0, -1.0),
        )
        .unwrap()
        .into(),
    );
    let mut checked = 0;
    for (name, target) in [("sphere", &ball), ("heightfield", &field)] {
        for ulps in [4.0, 64.0] {
            let origin = Vector::new(0.0, 1.0 + ulps * Real::EPSILON, 0.0);
            let options = RayOptions::default();
            let unit = target.cast(&Pose::IDENTITY, &Ray::new(origin, -Vector::Y), &options);
            let tiny = target.cast(&Pose::IDENTITY, &Ray::new(origin, -Vector::Y * s), &options);
            let (Some(a), Some(b)) = (unit.hit, tiny.hit) else {
                panic!("{name} {ulps}: {unit:?} vs {tiny:?}");
            };
            assert!(b.toi.is_finite() && b.toi > 0.0, "{name} {ulps}: {b:?}");
            assert!(
                (b.toi * s - a.toi).abs() <= 1e-3 * a.toi,
                "{name} {ulps}: {a:?} vs {b:?}"
            );
            assert_eq!(a.point, b.point, "{name} {ulps}");
            assert_eq!(a.normal, b.normal, "{name} {ulps}");
            checked += 1;
        }
    }
    assert_eq!(checked, 4);
}

#[test]
fn a_subnormal_direction_answers_finite_numbers() {
    let mut rng = Rng::new(0x5ab);
    let s = Real::MIN_POSITIVE / 64.0;
    for (name, target) in targets(&mut rng) {
        for (origin, dir) in rays(&mut rng, Vector::ZERO) {
            for solid in [true, false] {
                let options = RayOptions {
                    solid,
                    ..RayOptions::default()
                };
                let c = target.cast(&Pose::IDENTITY, &Ray::new(origin, dir * s), &options);
                if let Some(h) = c.hit {
                    let case = format!("{name} solid {solid} {origin:?} {dir:?}: {h:?}");
                    assert!(h.toi.is_finite() && h.point.is_finite(), "{case}");
                    assert!((h.normal.length() - 1.0).abs() < 1e-3, "{case}");
                }
            }
        }
    }
}
