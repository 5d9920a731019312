//! The collision world with contact events: a ball rolls along a row of boxes; each
//! step reports the contacts that started and stopped.
//!
//! `cargo run -p minkowski --example world_events`

use minkowski::shape::{Cuboid, Shape, Sphere};
use minkowski::world::{BroadPhaseKind, ContactEvent, World, WorldOptions};
use minkowski::{Pose, Vector};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut world = World::new(BroadPhaseKind::SweepAndPrune, WorldOptions::default());
    let crate_box = Shape::from(Cuboid::new(Vector::splat(0.5))?);
    let mut boxes = Vec::new();
    for i in 0..4 {
        let at = Pose::from_translation(Vector::new(2.0 * i as f32, 0.0, 0.0))?;
        boxes.push(world.insert(crate_box.clone(), at)?);
    }
    let ball = world.insert(
        Shape::from(Sphere::new(0.3)?),
        Pose::from_translation(Vector::new(-1.0, 0.7, 0.0))?,
    )?;
    let (mut started, mut stopped) = (0, 0);
    for step in 0..40 {
        let x = -1.0 + 0.2 * step as f32;
        world.set_pose(ball, Pose::from_translation(Vector::new(x, 0.7, 0.0))?)?;
        world.update();
        for e in world.events() {
            match e {
                ContactEvent::Started(a, b) => {
                    started += 1;
                    println!(
                        "step {step}: contact started between {} and {}",
                        a.index(),
                        b.index()
                    );
                }
                ContactEvent::Stopped(a, b) => {
                    stopped += 1;
                    println!(
                        "step {step}: contact stopped between {} and {}",
                        a.index(),
                        b.index()
                    );
                }
                ContactEvent::Ongoing(..) => {}
            }
        }
        for c in world.contacts() {
            if let Some(contact) = c.contact {
                assert!(contact.distance <= 0.0);
            }
        }
    }
    // The ball (radius 0.3, centre 0.2 above the boxes' tops) sinks 0.1 into each of
    // the four boxes in turn as it passes over it, and leaves it.
    assert_eq!((started, stopped), (boxes.len(), boxes.len()));
    Ok(())
}
