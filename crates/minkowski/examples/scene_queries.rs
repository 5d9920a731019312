//! Scene queries and continuous collision in the collision world: a floor, crates and a
//! thin wall; a mouse-pick ray that skips the floor by its group, a player's capsule
//! swept forward, point and box queries, and a bullet at 1000 m/s that does not pass
//! through the wall.
//!
//! `cargo run -p minkowski --example scene_queries`

use minkowski::bounding::Aabb;
use minkowski::query::compound::Collider;
use minkowski::query::{Ray, RayOptions};
use minkowski::shape::{Capsule, Cuboid, Shape, Sphere};
use minkowski::world::{
    BroadPhaseKind, CollisionGroups, ObjectOptions, QueryFilter, ShapeCastOptions, World,
    WorldOptions,
};
use minkowski::{Pose, Vector};

const FLOOR: u32 = 1;
const CRATES: u32 = 2;
const BULLETS: u32 = 4;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut world = World::new(
        BroadPhaseKind::Tree { fat_factor: 0.1 },
        WorldOptions::default(),
    );
    let floor = world.insert_with(
        Shape::from(Cuboid::new(Vector::new(50.0, 0.5, 50.0))?),
        Pose::from_translation(Vector::new(0.0, -0.5, 0.0))?,
        ObjectOptions {
            groups: CollisionGroups::new(FLOOR, u32::MAX),
            ..Default::default()
        },
    )?;
    let crate_box = Shape::from(Cuboid::new(Vector::splat(0.5))?);
    let mut crates = Vec::new();
    for i in 0..5 {
        let at = Pose::from_translation(Vector::new(3.0 * i as f32, 0.5, 0.0))?;
        let options = ObjectOptions {
            groups: CollisionGroups::new(CRATES, u32::MAX),
            user_data: 100 + i, // say, an entity id
            ..Default::default()
        };
        crates.push(world.insert_with(crate_box.clone(), at, options)?);
    }
    // A wall 1 cm thick at x = 20.
    let wall = world.insert(
        Shape::from(Cuboid::new(Vector::new(0.005, 5.0, 5.0))?),
        Pose::from_translation(Vector::new(20.0, 5.0, 0.0))?,
    )?;
    world.update();

    // Picking: a ray from a camera looking down at the first crate; the floor is not
    // pickable (the query sees crates only).
    let ray = Ray::new(Vector::new(0.2, 10.0, 0.1), Vector::new(0.0, -1.0, 0.0));
    let crates_only = QueryFilter::new().groups(CollisionGroups::new(u32::MAX, CRATES));
    let pick = world
        .cast_ray(&ray, &RayOptions::default(), &crates_only)?
        .ok_or("the pick ray missed")?;
    let picked = pick.target.object().ok_or("the pick ray hit a static")?;
    assert_eq!(picked, crates[0]);
    assert_eq!(world.user_data(picked)?, 100);
    println!(
        "picked entity {} at {:?}",
        world.user_data(picked)?,
        pick.hit.point
    );
    // Everything under the ray, the floor included, nearest first.
    let under = world.cast_ray_all(&ray, &RayOptions::default(), &QueryFilter::new())?;
    assert_eq!(
        under.iter().map(|h| h.target).collect::<Vec<_>>(),
        [crates[0].into(), floor.into()]
    );

    // A player's capsule moving along +x at 1.5 m above the floor: which crate does it
    // reach first (stopping 1 cm short), skipping the floor by a predicate on user data?
    let player = Collider::from(Shape::from(Capsule::new(0.6, 0.3)?));
    let at = Pose::from_translation(Vector::new(-4.0, 1.2, 0.0))?;
    let not_floor = |_h, data: u64| data >= 100;
    let options = ShapeCastOptions {
        max_toi: 10.0,
        target_distance: 0.01,
    };
    let filter = QueryFilter::new().predicate(&not_floor);
    let hit = world
        .cast_shape(&player, &at, Vector::new(1.0, 0.0, 0.0), &options, &filter)?
        .ok_or("the player reaches no crate")?;
    assert_eq!(hit.target, crates[0].into());
    println!("the player stops after {:.3} m", hit.cast.toi);

    // Point and box queries test shapes, not boxes.
    assert_eq!(
        world.intersect_point(Vector::new(6.1, 0.5, 0.2), &QueryFilter::new())?,
        [crates[2].into()]
    );
    let region = Aabb::new(Vector::new(2.0, 0.2, -1.0), Vector::new(7.0, 0.8, 1.0));
    assert_eq!(
        world.intersect_aabb(&region, &crates_only)?,
        [crates[1].into(), crates[2].into()]
    );

    // A bullet at 1000 m/s, 60 updates a second: 16.7 m per update, 1 cm wall.
    let bullet = world.insert_with(
        Shape::from(Sphere::new(0.005)?),
        Pose::from_translation(Vector::new(10.0, 3.0, 0.0))?,
        ObjectOptions {
            groups: CollisionGroups::new(BULLETS, u32::MAX),
            continuous: true,
            ..Default::default()
        },
    )?;
    world.update();
    let step = 1000.0 / 60.0;
    let mut hit_wall = None;
    for n in 1..=3 {
        let x = 10.0 + step * n as f32;
        world.set_pose(bullet, Pose::from_translation(Vector::new(x, 3.0, 0.0))?)?;
        world.update();
        if let Some(c) = world
            .contacts()
            .iter()
            .find(|c| (c.a, c.b) == (wall, bullet))
        {
            let toi = c.toi.ok_or("a swept contact has a time of impact")?;
            let x_hit = x - step + step * toi;
            println!("update {n}: the bullet hits the wall at x = {x_hit:.4} (toi {toi:.4})");
            hit_wall = Some(x_hit);
        }
    }
    let x_hit = hit_wall.ok_or("the bullet went through the wall")?;
    assert!((x_hit - (20.0 - 0.005 - 0.005)).abs() < 1e-3);
    Ok(())
}
