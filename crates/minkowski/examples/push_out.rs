//! Contacts and push-out: a capsule (a player) dropped into a corner of two boxes is
//! pushed out of each along the contact normal until it rests, touching both.
//!
//! `cargo run -p minkowski --example push_out`

use minkowski::shape::{Capsule, Cuboid, Shape};
use minkowski::{query, Pose, Vector};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let floor = Shape::from(Cuboid::new(Vector::new(5.0, 0.5, 5.0))?);
    let wall = Shape::from(Cuboid::new(Vector::new(0.5, 3.0, 5.0))?);
    let walls = [
        (floor, Pose::from_translation(Vector::new(0.0, -0.5, 0.0))?),
        (wall, Pose::from_translation(Vector::new(-2.5, 3.0, 0.0))?),
    ];
    // Half height 0.9, radius 0.3: the capsule spans y in [-1.2, 1.2] about its centre.
    let player = Shape::from(Capsule::new(0.9, 0.3)?);
    let mut at = Vector::new(-1.9, 1.0, 0.0); // 0.2 into the floor, 0.2 into the wall
    for round in 0..4 {
        let mut moved = 0.0;
        for (shape, pose) in &walls {
            let c = query::contact(shape, pose, &player, &Pose::from_translation(at)?);
            if c.distance < 0.0 {
                // The normal points from the wall towards the player: move the player
                // along it by the depth.
                at += c.normal * -c.distance;
                moved += -c.distance;
            }
        }
        println!("round {round}: player at {at}, moved {moved:.4}");
        if moved < 1e-5 {
            break;
        }
    }
    assert!((at - Vector::new(-1.7, 1.2, 0.0)).length() < 1e-4, "{at}");
    Ok(())
}
