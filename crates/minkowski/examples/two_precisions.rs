//! An application that uses glam directly and both precisions of the library in one
//! build: `minkowski` (f32, glam's `Vec3`) for a game's contacts and `minkowski-f64`
//! (f64, glam's `DVec3`) for a planner far from the origin, where f32 has run out of
//! digits.
//!
//! `cargo run -p minkowski --example two_precisions`

use glam::{DVec3, Vec3};
use minkowski::shape::{Cuboid, Shape, Sphere};
use minkowski::{query, Pose};
use minkowski_f64 as mk64;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Single precision, with glam's f32 vectors: a ball resting 0.1 deep on a crate.
    let crate_box = Shape::from(Cuboid::new(Vec3::new(1.0, 0.5, 1.0))?);
    let ball = Shape::from(Sphere::new(0.25)?);
    let c = query::contact(
        &crate_box,
        &Pose::IDENTITY,
        &ball,
        &Pose::from_translation(Vec3::new(0.0, 0.65, 0.0))?,
    );
    println!("f32: depth {:.4} along {}", -c.distance, c.normal);

    // Double precision, with glam's f64 vectors: the same shapes 1e7 units from the
    // origin, 1e-6 apart (in f32 the coordinates alone are rounded to 1 unit).
    let far = DVec3::new(1.0e7, 0.0, 0.0);
    let crate_box = mk64::shape::Shape::from(mk64::shape::Cuboid::new(DVec3::new(1.0, 0.5, 1.0))?);
    let ball = mk64::shape::Shape::from(mk64::shape::Sphere::new(0.25)?);
    let d = mk64::query::distance(
        &crate_box,
        &mk64::Pose::from_translation(far)?,
        &ball,
        &mk64::Pose::from_translation(far + DVec3::new(0.0, 0.750001, 0.0))?,
    );
    println!("f64: distance {:.3e} 1e7 units from the origin", d.distance);
    assert!((d.distance - 1e-6).abs() < 1e-9);
    assert!((c.distance + 0.1).abs() < 1e-5);
    Ok(())
}
