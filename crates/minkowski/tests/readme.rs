//! The README's ten-line example, kept compiling and checked.

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

#[test]
fn readme_example() -> Result<(), Box<dyn std::error::Error>> {
    use minkowski::{
        query,
        shape::{Capsule, Cuboid, Shape},
        Pose, Vector,
    };

    let crate_box = Shape::from(Cuboid::new(Vector::new(1.0, 0.5, 1.0))?);
    let player = Shape::from(Capsule::new(0.9, 0.3)?);
    let at = Pose::from_translation(Vector::new(0.0, 1.6, 0.2))?;
    let c = query::contact(&crate_box, &Pose::IDENTITY, &player, &at);
    assert!(c.distance < 0.0);
    // Push the player out along the normal (from the box towards the player).
    let fix = c.normal * -c.distance;
    // The capsule's bottom (1.6 − 0.9 − 0.3 = 0.4) is 0.1 into the box's top (0.5).
    assert!((c.distance - (-0.1)).abs() < 1e-5, "{c:?}");
    assert!((fix - Vector::new(0.0, 0.1, 0.0)).length() < 1e-5);
    Ok(())
}
