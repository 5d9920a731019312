//! Static level geometry in the collision world: two heightfield tiles side by side as
//! the floor, boxes, capsules and balls resting on it, their contacts (one region per
//! touching area, normal from the ground up), a crate pushed across the seam between
//! the tiles (no ghost bump), and a picking ray that tells ground from objects.
//!
//! `cargo run -p minkowski --example terrain_world`

use minkowski::query::{Ray, RayOptions};
use minkowski::shape::{Capsule, Cuboid, HeightField, Shape, Sphere};
use minkowski::world::{
    BroadPhaseKind, QueryFilter, StaticContactEvent, Target, World, WorldOptions,
};
use minkowski::{Pose, Real, Vector};

/// Gentle hills, heights in metres at world (x, z), with a flat yard at height 0 over
/// x ∈ [12, 20], z ∈ [6, 10], across the seam of the two tiles.
fn ground(x: Real, z: Real) -> Real {
    if (12.0..=20.0).contains(&x) && (6.0..=10.0).contains(&z) {
        return 0.0;
    }
    0.3 * (0.4 * x).sin() * (0.3 * z).cos()
}

/// A 16 m × 16 m tile of 1 m cells whose sample [0][0] is at world (x0, ·, z0).
fn tile(x0: Real, z0: Real) -> Result<HeightField, Box<dyn std::error::Error>> {
    let n = 17;
    let samples: Vec<Option<Real>> = (0..n * n)
        .map(|k| Some(ground(x0 + (k % n) as Real, z0 + (k / n) as Real)))
        .collect();
    Ok(HeightField::new(
        n,
        n,
        &samples,
        [1.0, 1.0],
        Vector::new(x0, 0.0, z0),
    )?)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = WorldOptions {
        contact_margin: 0.01,
        ..WorldOptions::default()
    };
    let mut world = World::new(BroadPhaseKind::Grid { cell_size: 2.0 }, options);
    // Two tiles meeting at x = 16: one terrain as far as the objects can tell.
    let west_tile = tile(0.0, 0.0)?;
    let west = world.insert_static(west_tile.clone(), Pose::IDENTITY)?;
    let east = world.insert_static(tile(16.0, 0.0)?, Pose::IDENTITY)?;

    // Objects set down sunk 5 mm: a level crate on the hills, its centre 5 mm under the
    // surface (the height there comes from the field itself, local = world for this
    // tile; on the slope one edge digs in deeper), and a crate, a capsule lying down and
    // a ball on the yard, the capsule across the seam.
    let (hx, hz) = (5.0, 3.0);
    let hill = west_tile.height_at(hx, hz)?.ok_or("a hole")?;
    let crate_box = Shape::from(Cuboid::new(Vector::new(0.4, 0.3, 0.4))?);
    let pill = Shape::from(Capsule::new(0.5, 0.2)?);
    let ball = Shape::from(Sphere::new(0.25)?);
    let lying = minkowski::Rotation::from_rotation_z(std::f32::consts::FRAC_PI_2 as Real);
    let placed = [
        world.insert(
            crate_box.clone(),
            Pose::from_translation(Vector::new(hx, hill + 0.295, hz))?,
        )?,
        world.insert(
            crate_box.clone(),
            Pose::from_translation(Vector::new(12.8, 0.295, 9.3))?,
        )?,
        world.insert(pill, Pose::new(lying, Vector::new(16.0, 0.195, 9.3))?)?,
        world.insert(ball, Pose::from_translation(Vector::new(18.5, 0.245, 9.3))?)?,
    ];
    world.update();
    for c in world.static_contacts() {
        let deepest = c
            .manifold
            .points()
            .iter()
            .map(|p| p.distance)
            .fold(Real::INFINITY, Real::min);
        println!(
            "object {} on static {}: {} point(s), normal {:.3?}, deepest {:.4} m",
            c.object.index(),
            c.fixed.index(),
            c.manifold.len(),
            c.manifold.normal,
            deepest
        );
    }
    assert_eq!(world.static_contacts().len(), placed.len());

    // A crate pushed across the seam over the flat yard: its contact goes from the west
    // tile to the east one; its normal stays straight up all the way.
    let z = 8.0;
    let pushed = world.insert(
        crate_box,
        Pose::from_translation(Vector::new(14.0, 0.295, z))?,
    )?;
    let (mut handovers, mut worst): (usize, Real) = (0, 0.0);
    for step in 0..=40 {
        let x = 14.0 + 0.1 * step as Real;
        world.set_pose(pushed, Pose::from_translation(Vector::new(x, 0.295, z))?)?;
        world.update();
        for c in world
            .static_contacts()
            .iter()
            .filter(|c| c.object == pushed)
        {
            worst = worst.max(c.manifold.normal.angle_between(Vector::Y));
        }
        handovers += world
            .static_events()
            .iter()
            .filter(
                |e| matches!(e, StaticContactEvent::Started(o, s) if *o == pushed && *s == east),
            )
            .count();
    }
    println!(
        "pushed across the seam: largest normal tilt {worst:.2e} rad, {handovers} handover(s)"
    );
    assert!(worst < 1e-3, "a ghost normal at the seam");

    // Picking: a ray straight down hits the ball first; a ray beside it the ground.
    let (_, at) = world.get(placed[3])?;
    let down = Vector::new(0.0, -1.0, 0.0);
    let ray = Ray::new(at.translation() + Vector::new(0.0, 5.0, 0.0), down);
    // (The ball's pose is copied out: `at` borrows the world.)
    let hit = world
        .cast_ray(&ray, &RayOptions::default(), &QueryFilter::new())?
        .ok_or("the ray missed")?;
    assert_eq!(hit.target, Target::Object(placed[3]));
    let beside = Ray::new(Vector::new(2.0, 5.0, 2.0), down);
    let hit = world
        .cast_ray(&beside, &RayOptions::default(), &QueryFilter::new())?
        .ok_or("the ray missed the ground")?;
    assert_eq!(hit.target, Target::Static(west));
    println!("ground under (2, 2) at y = {:.4}", hit.hit.point.y);
    Ok(())
}
