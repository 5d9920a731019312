//! Continuous collision as a character controller uses it (seed 004): a capsule player
//! is swept towards a wall with a shape cast, stops a skin short of it at the time of
//! impact, and glides along the wall with what is left of its motion; a ray then picks
//! the wall from the camera.
//!
//! `cargo run -p minkowski --example sweep_and_slide`

use minkowski::query::{
    cast_ray, cast_shapes, CastInput, Motion, QueryOptions, Ray, RayOptions, ShapePair,
};
use minkowski::shape::{Capsule, Cuboid, Shape};
use minkowski::{Pose, Vector};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A wall whose face is the plane x = 2, and a player standing at the origin.
    let wall = Shape::from(Cuboid::new(Vector::new(0.5, 3.0, 5.0))?);
    let wall_pose = Pose::from_translation(Vector::new(2.5, 3.0, 0.0))?;
    let player = Shape::from(Capsule::new(0.9, 0.3)?);
    let mut at = Vector::new(0.0, 1.2, 0.0);
    // This frame's motion: diagonally into the wall.
    let mut motion = Vector::new(3.0, 0.0, 2.0);
    let skin = 0.01;
    let options = QueryOptions::default();
    for step in 0..3 {
        let pair = ShapePair::new(&wall, wall_pose, &player, Pose::from_translation(at)?);
        let mut input = CastInput::new(pair, Motion::ZERO, Motion::linear(motion));
        input.max_toi = 1.0; // the whole of this frame's motion
        input.target_distance = skin;
        let hit = cast_shapes(&input, &options)?;
        if !hit.hit {
            at += motion;
            println!("step {step}: free, player at {at}");
            break;
        }
        // Advance to the impact, then keep only the part of the motion along the wall:
        // remove its component into the wall (the normal points from the wall to us).
        at += motion * hit.toi;
        let rest = motion * (1.0 - hit.toi);
        motion = rest - hit.normal * rest.dot(hit.normal).min(0.0);
        println!(
            "step {step}: hit at t = {:.4}, normal {}, player at {at}, gliding by {motion}",
            hit.toi, hit.normal
        );
    }
    // The player ends a skin away from the wall (x = 2 − 0.3 − 0.01) and has glided the
    // full 2 units along it.
    assert!((at.x - (2.0 - 0.3 - skin)).abs() < 1e-4, "{at}");
    assert!((at.z - 2.0).abs() < 1e-4, "{at}");

    // Picking: a ray from the camera through the screen centre.
    let ray = Ray::new(Vector::new(-5.0, 2.0, 0.5), Vector::new(1.0, 0.0, 0.0));
    let pick = cast_ray(&wall, &wall_pose, &ray, &RayOptions::default())?;
    let hit = pick.hit.ok_or("the ray should hit the wall")?;
    println!(
        "picked the wall at {} (t = {}), normal {}",
        hit.point, hit.toi, hit.normal
    );
    assert!((hit.toi - 7.0).abs() < 1e-5 && hit.normal.x < -0.999);
    Ok(())
}
