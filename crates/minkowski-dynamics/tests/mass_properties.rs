//! Mass properties against independent oracles: Monte Carlo integration over the
//! library's own point-containment test (seeded), closed forms, and the hull integral on
//! shapes whose closed form is known.

// Index loops over 3×3 moment arrays read more plainly than iterator chains here.
#![allow(clippy::needless_range_loop)]

use minkowski::math::Matrix3;
use minkowski::query::compound::Collider;
use minkowski::query::contains_point;
use minkowski::shape::*;
use minkowski::{Pose, Real, Rotation, Vector};
use minkowski_dynamics::mass_properties::{self, combine, of_compound, of_shape, MassError};
use std::sync::Arc;

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Volume, centroid and inertia about the centroid by Monte Carlo over the shape's box.
fn monte_carlo(shape: &Shape, samples: usize, seed: u64) -> (f64, [f64; 3], [[f64; 3]; 3]) {
    let bb = shape.local_aabb();
    let lo = bb.mins.to_array().map(|v| v as f64);
    let hi = bb.maxs.to_array().map(|v| v as f64);
    let box_vol = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
    let mut rng = Lcg(seed);
    let mut inside = 0usize;
    let mut s1 = [0.0f64; 3];
    let mut s2 = [[0.0f64; 3]; 3];
    for _ in 0..samples {
        let p = [0, 1, 2].map(|k| lo[k] + (hi[k] - lo[k]) * rng.next());
        let pv = Vector::new(p[0] as Real, p[1] as Real, p[2] as Real);
        if contains_point(shape, &Pose::IDENTITY, pv).unwrap_or(false) {
            inside += 1;
            for i in 0..3 {
                s1[i] += p[i];
                for j in 0..3 {
                    s2[i][j] += p[i] * p[j];
                }
            }
        }
    }
    let n = inside as f64;
    let vol = box_vol * n / samples as f64;
    let c = s1.map(|v| v / n);
    let mut cov = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            cov[i][j] = vol * (s2[i][j] / n - c[i] * c[j]);
        }
    }
    let tr = cov[0][0] + cov[1][1] + cov[2][2];
    let mut inertia = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            inertia[i][j] = if i == j { tr } else { 0.0 } - cov[i][j];
        }
    }
    (vol, c, inertia)
}

fn check_against_monte_carlo(shape: &Shape, seed: u64) {
    let density = 2.5;
    let mp = of_shape(shape, density).expect("mass properties");
    let (vol, c, inertia) = monte_carlo(shape, 200_000, seed);
    let name = shape.type_name();
    let size = shape.local_aabb().half_extents().max_element() as f64;
    let mass = vol * density as f64;
    assert!(
        ((mp.mass as f64 - mass) / mass).abs() < 0.02,
        "{name}: mass {} vs Monte Carlo {mass}",
        mp.mass
    );
    for k in 0..3 {
        assert!(
            (mp.center[k] as f64 - c[k]).abs() < 0.02 * size,
            "{name}: centre {:?} vs {c:?}",
            mp.center
        );
    }
    let scale = mp
        .inertia
        .x_axis
        .x
        .max(mp.inertia.y_axis.y)
        .max(mp.inertia.z_axis.z) as f64;
    for i in 0..3 {
        for j in 0..3 {
            let got = mp.inertia.col(j)[i] as f64;
            let want = density as f64 * inertia[i][j];
            assert!(
                (got - want).abs() < 0.03 * scale,
                "{name}: inertia[{i}][{j}] {got} vs Monte Carlo {want}"
            );
        }
    }
}

#[test]
fn every_solid_shape_matches_monte_carlo() {
    let v = |x, y, z| Vector::new(x, y, z);
    let shapes: Vec<Shape> = vec![
        Sphere::new(0.7).unwrap().into(),
        Cuboid::new(v(0.5, 1.0, 0.25)).unwrap().into(),
        Capsule::new(0.6, 0.3).unwrap().into(),
        Cylinder::new(0.8, 0.4).unwrap().into(),
        Cone::new(0.9, 0.5).unwrap().into(),
        Pyramid::new(v(0.6, 0.8, 0.3)).unwrap().into(),
        Ellipsoid::new(v(0.5, 0.9, 0.3)).unwrap().into(),
        RoundedShape::new(Cuboid::new(v(0.4, 0.3, 0.2)).unwrap().into(), 0.1)
            .unwrap()
            .into(),
        RoundedShape::new(Sphere::new(0.3).unwrap().into(), 0.2)
            .unwrap()
            .into(),
    ];
    for (k, s) in shapes.iter().enumerate() {
        check_against_monte_carlo(s, 17 + k as u64);
    }
}

#[test]
fn random_hulls_match_monte_carlo() {
    let mut rng = Lcg(99);
    for case in 0..4 {
        let pts: Vec<Vector> = (0..12 + 6 * case)
            .map(|_| {
                Vector::new(
                    (rng.next() * 2.0 - 1.0) as Real,
                    (rng.next() * 1.6 - 0.5) as Real,
                    (rng.next() * 1.2 - 0.6) as Real,
                )
            })
            .collect();
        let hull: Shape = ConvexPolyhedron::new(pts).unwrap().into();
        check_against_monte_carlo(&hull, 1000 + case as u64);
    }
}

/// A box given as a point cloud: the hull integral equals the cuboid's closed form
/// (to rounding), wherever the box is placed and however it is turned.
#[test]
fn hull_of_box_equals_closed_form() {
    let h = Vector::new(0.5, 1.5, 0.75);
    let cuboid = of_shape(&Cuboid::new(h).unwrap().into(), 3.0).unwrap();
    let rot = Rotation::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
    let off = Vector::new(10.0, -4.0, 2.0);
    let corners = Cuboid::new(h).unwrap().vertices().map(|p| rot * p + off);
    let hull = of_shape(
        &ConvexPolyhedron::new(corners.to_vec()).unwrap().into(),
        3.0,
    )
    .unwrap();
    assert!((hull.mass - cuboid.mass).abs() < 1e-4 * cuboid.mass);
    assert!((hull.center - off).length() < 1e-4);
    let r = Matrix3::from_quat(rot);
    let want = r * cuboid.inertia * r.transpose();
    for (a, b) in hull
        .inertia
        .to_cols_array()
        .iter()
        .zip(want.to_cols_array())
    {
        assert!((a - b).abs() < 1e-3 * cuboid.inertia.x_axis.x, "{a} vs {b}");
    }
    // Principal moments come back as the cuboid's diagonal.
    let (mut d, _) = hull.principal();
    let mut w = cuboid.inertia.diagonal().to_array();
    let mut got = d.to_array();
    got.sort_by(Real::total_cmp);
    w.sort_by(Real::total_cmp);
    for (a, b) in got.iter().zip(w) {
        assert!((a - b).abs() < 1e-3 * b);
    }
    d = Vector::ZERO;
    let _ = d;
}

/// The unit right tetrahedron: volume 1/6, centroid (1/4, 1/4, 1/4), and inertia about
/// the centroid with diagonal 1/80 and off-diagonals 1/480 (density 1; Tonon 2004).
#[test]
fn tetrahedron_closed_form() {
    let pts = vec![Vector::ZERO, Vector::X, Vector::Y, Vector::Z];
    let mp = of_shape(&ConvexPolyhedron::new(pts).unwrap().into(), 1.0).unwrap();
    assert!((mp.mass - 1.0 / 6.0).abs() < 1e-6);
    assert!((mp.center - Vector::splat(0.25)).length() < 1e-6);
    // About the centroid: I_xx = m(3/80)(1+1)... the standard result: 1/80 = 0.0125,
    // products +1/480 (I_xy = −∫xy = −(1/120 − m/16)).
    let m = 1.0 / 6.0;
    let ixx = 2.0 * (1.0 / 60.0) - 2.0 * m / 16.0; // ∫(y²+z²) − m(c_y² + c_z²)
    let ixy = -(1.0 / 120.0 - m / 16.0);
    assert!(
        (mp.inertia.x_axis.x - ixx).abs() < 1e-6,
        "{}",
        mp.inertia.x_axis.x
    );
    assert!(
        (mp.inertia.y_axis.x - ixy).abs() < 1e-6,
        "{}",
        mp.inertia.y_axis.x
    );
}

#[test]
fn sphere_is_two_fifths() {
    let mp = of_shape(&Sphere::new(2.0).unwrap().into(), 1.5).unwrap();
    let m = 1.5 * 4.0 / 3.0 * std::f64::consts::PI as Real * 8.0;
    assert!((mp.mass - m).abs() < 1e-4 * m);
    assert!((mp.inertia.x_axis.x - 0.4 * m * 4.0).abs() < 1e-4 * m);
}

/// A compound of two boxes side by side equals one box of their union (parallel axis).
#[test]
fn compound_by_parallel_axis_equals_union() {
    let half = Cuboid::new(Vector::new(0.5, 0.5, 0.5)).unwrap();
    let parts = vec![
        (
            Pose::from_translation(Vector::new(-0.5, 0.0, 0.0)).unwrap(),
            Shape::from(half),
        ),
        (
            Pose::from_translation(Vector::new(0.5, 0.0, 0.0)).unwrap(),
            Shape::from(half),
        ),
    ];
    let comp = of_compound(&Compound::new(parts).unwrap(), 2.0).unwrap();
    let whole = of_shape(
        &Cuboid::new(Vector::new(1.0, 0.5, 0.5)).unwrap().into(),
        2.0,
    )
    .unwrap();
    assert!((comp.mass - whole.mass).abs() < 1e-5);
    assert!(comp.center.length() < 1e-6);
    for (a, b) in comp
        .inertia
        .to_cols_array()
        .iter()
        .zip(whole.inertia.to_cols_array())
    {
        assert!((a - b).abs() < 1e-5, "{a} vs {b}");
    }
    // An off-centre compound through the collider entry point, and `combine` directly.
    let s = of_shape(&Sphere::new(0.5).unwrap().into(), 1.0).unwrap();
    let moved = s.transformed(&Pose::from_translation(Vector::new(0.0, 2.0, 0.0)).unwrap());
    let both = combine(&[s, moved]).unwrap();
    assert!((both.center - Vector::new(0.0, 1.0, 0.0)).length() < 1e-6);
    let want = 2.0 * s.inertia.x_axis.x + 2.0 * s.mass * 1.0;
    assert!((both.inertia.x_axis.x - want).abs() < 1e-5);
    assert!((both.inertia.y_axis.y - 2.0 * s.inertia.y_axis.y).abs() < 1e-5);
    let c = Collider::Compound(Arc::new(
        Compound::new(vec![(
            Pose::IDENTITY,
            Shape::from(Sphere::new(0.5).unwrap()),
        )])
        .unwrap(),
    ));
    assert!(mass_properties::of_collider(&c, 1.0).is_ok());
}

#[test]
fn bad_input_is_a_typed_error() {
    let s: Shape = Sphere::new(1.0).unwrap().into();
    for d in [0.0, -1.0, Real::NAN, Real::INFINITY] {
        assert!(matches!(of_shape(&s, d), Err(MassError::InvalidDensity(_))));
    }
    let flat: Vec<Vector> = vec![
        Vector::ZERO,
        Vector::X,
        Vector::Z,
        Vector::new(1.0, 0.0, 1.0),
    ];
    let degenerate: Vec<Shape> = vec![
        Segment::new(Vector::ZERO, Vector::X).unwrap().into(),
        Triangle::new(Vector::ZERO, Vector::X, Vector::Y)
            .unwrap()
            .into(),
        PointShape::new(Vector::ZERO).unwrap().into(),
        ConvexPolyhedron::new(flat).unwrap().into(),
        Cuboid::new(Vector::new(1.0, 0.0, 1.0)).unwrap().into(),
        Sphere::new(0.0).unwrap().into(),
    ];
    for s in &degenerate {
        assert!(
            matches!(of_shape(s, 1.0), Err(MassError::ZeroVolume(_))),
            "{}: {:?}",
            s.type_name(),
            of_shape(s, 1.0)
        );
    }
    // A compound of only flat parts.
    let c = Compound::new(vec![(
        Pose::IDENTITY,
        Shape::from(Segment::new(Vector::ZERO, Vector::X).unwrap()),
    )])
    .unwrap();
    assert!(matches!(
        of_compound(&c, 1.0),
        Err(MassError::EmptyCompound)
    ));
    // Huge extents overflow f32 moments: an error, not infinities.
    let huge: Shape = Cuboid::new(Vector::splat(1e8)).unwrap().into();
    assert!(matches!(of_shape(&huge, 1.0), Err(MassError::NotFinite(_))));
}
