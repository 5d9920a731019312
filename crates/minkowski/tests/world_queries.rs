//! The world's scene queries against brute force over every object, collision groups
//! and filters, and continuous collision: bullets against thin walls, and fast turning
//! objects.
//!
//! Oracles: each scene query must equal the same shape-level query run on every object
//! of the world (filtered the same way), exactly (same object, same answer), for each
//! broad phase, on random scenes of a few hundred convex and compound objects, some
//! moved since the last update. The bullet test's oracle is the wall's geometry: at the
//! reported time of impact the bullet's front is at the wall's face.
#![allow(clippy::unnecessary_cast)] // `as Real` / `as f64` are no-ops in one build

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::Rng;
use minkowski::bounding::Aabb;
use minkowski::query::compound::{self, Collider};
use minkowski::query::{Motion, QueryOptions, Ray, RayOptions};
use minkowski::shape::{Capsule, Compound, ConvexPolyhedron, Cuboid, PointShape, Shape, Sphere};
use minkowski::world::{
    BroadPhaseKind, CollisionGroups, ContactEvent, ObjectHandle, ObjectOptions, QueryFilter,
    SceneRayHit, ShapeCastOptions, Target, World, WorldOptions,
};
use minkowski::{Pose, Real, Rotation, Vector};

fn v(x: f64, y: f64, z: f64) -> Vector {
    Vector::new(x as Real, y as Real, z as Real)
}

fn kinds() -> [BroadPhaseKind; 3] {
    [
        BroadPhaseKind::Grid { cell_size: 2.0 },
        BroadPhaseKind::SweepAndPrune,
        BroadPhaseKind::Tree { fat_factor: 0.1 },
    ]
}

fn random_convex(rng: &mut Rng, s: f64) -> Shape {
    match rng.below(5) {
        0 => Sphere::new(s as Real).unwrap().into(),
        1 => Cuboid::new(v(s, s * 0.7, s * 0.4)).unwrap().into(),
        2 => Capsule::new((s * 0.6) as Real, (s * 0.3) as Real)
            .unwrap()
            .into(),
        3 => Cuboid::new(v(s, 0.0, s)).unwrap().into(), // flat
        _ => {
            let pts: Vec<Vector> = (0..12)
                .map(|_| {
                    let d = rng.dir() * s;
                    v(d.x, d.y, d.z)
                })
                .collect();
            ConvexPolyhedron::new(pts).unwrap().into()
        }
    }
}

fn random_collider(rng: &mut Rng, s: f64) -> Collider {
    if rng.below(4) == 0 {
        let parts = (0..2 + rng.below(3))
            .map(|_| {
                let p = Pose::new(
                    rng.rotation(),
                    v(rng.range(-s, s), rng.range(-s, s), rng.range(-s, s)),
                )
                .unwrap();
                (p, random_convex(rng, s * 0.6))
            })
            .collect();
        return Compound::new(parts).unwrap().into();
    }
    random_convex(rng, s).into()
}

fn random_pose(rng: &mut Rng, extent: f64) -> Pose {
    Pose::new(
        rng.rotation(),
        v(
            rng.range(-extent, extent),
            rng.range(-extent, extent),
            rng.range(-extent, extent),
        ),
    )
    .unwrap()
}

/// Groups from a few bits, so that some objects and queries interact and some do not.
fn random_groups(rng: &mut Rng) -> CollisionGroups {
    if rng.below(2) == 0 {
        CollisionGroups::ALL
    } else {
        CollisionGroups::new(1 << rng.below(3), 0b111 & !(1 << rng.below(3)))
    }
}

/// A world of `n` objects in a cube of side 2·`extent`, sizes 0.2 to 1.5 (a few 5),
/// random groups and user data; updated, then a fifth of the objects moved and a
/// tenth removed (so the queries see a broad phase with unfiled changes).
fn random_world(kind: BroadPhaseKind, rng: &mut Rng, n: usize, extent: f64) -> World {
    let mut w = World::new(kind, WorldOptions::default());
    let mut handles = Vec::new();
    for _ in 0..n {
        let s = if rng.below(30) == 0 {
            5.0
        } else {
            rng.range(0.2, 1.5)
        };
        let options = ObjectOptions {
            groups: random_groups(rng),
            user_data: rng.next_u64() % 100,
            continuous: false,
        };
        let h = w
            .insert_with(random_collider(rng, s), random_pose(rng, extent), options)
            .unwrap();
        handles.push(h);
    }
    w.update();
    for h in &handles {
        match rng.below(10) {
            0 | 1 => w.set_pose(*h, random_pose(rng, extent)).unwrap(),
            2 => {
                w.remove(*h).unwrap();
            }
            _ => {}
        }
    }
    w
}

/// Object `h`'s groups and user data, through the getters.
fn filter_accepts(w: &World, f: &QueryFilter<'_>, h: ObjectHandle) -> bool {
    f.accepts(h, w.groups(h).unwrap(), w.user_data(h).unwrap())
}

/// The brute-force closest and all hits of a ray.
fn brute_ray(
    w: &World,
    ray: &Ray,
    o: &RayOptions,
    f: &QueryFilter<'_>,
) -> (Option<SceneRayHit>, Vec<SceneRayHit>) {
    let mut all = Vec::new();
    for (h, shape, pose) in w.iter() {
        if !filter_accepts(w, f, h) {
            continue;
        }
        let r = compound::cast_ray(shape, pose, ray, o).unwrap();
        if let Some(hit) = r.answer.hit {
            all.push(SceneRayHit {
                target: Target::Object(h),
                part: r.part_a,
                hit,
                status: r.answer.status,
            });
        }
    }
    all.sort_by(|a, b| {
        a.hit
            .toi
            .total_cmp(&b.hit.toi)
            .then(a.target.cmp(&b.target))
    });
    (all.first().copied(), all)
}

/// Filters of every kind: all, groups, an excluded object, a predicate on user data.
fn check_scene(kind: BroadPhaseKind, seed: u64) -> [usize; 5] {
    let mut rng = Rng::new(seed);
    let extent = 12.0;
    let w = random_world(kind, &mut rng, 300, extent);
    let handles: Vec<ObjectHandle> = w.iter().map(|(h, _, _)| h).collect();
    let odd = |_h: ObjectHandle, data: u64| data % 3 != 0;
    let opts = QueryOptions::default();
    let mut hits = [0; 5];
    for q in 0..60 {
        let label = format!("{kind:?} seed {seed} query {q}");
        let mut filter = QueryFilter::new();
        match q % 4 {
            1 => filter = filter.groups(random_groups(&mut rng)),
            2 => filter = filter.exclude(handles[rng.below(handles.len())]),
            3 => filter = filter.predicate(&odd),
            _ => {}
        }
        // Rays from outside or inside the scene, bounded or not, solid or hollow.
        let origin = random_pose(&mut rng, extent * 1.3).translation();
        let toward = random_pose(&mut rng, extent * 0.5).translation();
        let ray = Ray::new(origin, (toward - origin) * rng.range(0.05, 2.0) as Real);
        let ray_options = RayOptions {
            max_toi: if q % 3 == 0 {
                Real::INFINITY
            } else {
                rng.range(0.0, 2.0) as Real
            },
            solid: q % 5 != 0,
        };
        let (want, want_all) = brute_ray(&w, &ray, &ray_options, &filter);
        let got = w.cast_ray(&ray, &ray_options, &filter).unwrap();
        assert_eq!(got, want, "{label}: closest hit");
        let got_all = w.cast_ray_all(&ray, &ray_options, &filter).unwrap();
        assert_eq!(got_all, want_all, "{label}: all hits");
        hits[0] += usize::from(want.is_some());
        hits[1] += want_all.len();

        // A shape cast: a small collider (convex or compound) moving linearly.
        if q % 2 == 0 {
            let size = rng.range(0.1, 0.8);
            let shape = random_collider(&mut rng, size);
            let pose = random_pose(&mut rng, extent * 1.2);
            let velocity = (random_pose(&mut rng, extent * 0.5).translation() - pose.translation())
                * rng.range(0.1, 1.5) as Real;
            let cast_options = ShapeCastOptions {
                max_toi: if q % 3 == 0 {
                    Real::INFINITY
                } else {
                    rng.range(0.0, 1.5) as Real
                },
                target_distance: if q % 4 == 0 { 0.0 } else { 0.1 },
            };
            let mut want: Option<(Real, ObjectHandle, compound::PartAnswer<_>)> = None;
            for (h, other, at) in w.iter() {
                if !filter_accepts(&w, &filter, h) {
                    continue;
                }
                let c = compound::cast_colliders(
                    &shape,
                    &pose,
                    Motion::linear(velocity),
                    other,
                    at,
                    Motion::ZERO,
                    cast_options.max_toi,
                    cast_options.target_distance,
                    &opts,
                )
                .unwrap();
                if c.answer.hit && want.as_ref().is_none_or(|b| c.answer.toi < b.0) {
                    want = Some((c.answer.toi, h, c));
                }
            }
            let got = w
                .cast_shape(&shape, &pose, velocity, &cast_options, &filter)
                .unwrap();
            match (&got, &want) {
                (None, None) => {}
                (Some(g), Some((_, h, c))) => {
                    assert_eq!(g.target, Target::Object(*h), "{label}: shape cast object");
                    assert_eq!(g.cast, c.answer, "{label}: shape cast");
                    assert_eq!((g.shape_part, g.part), (c.part_a, c.part_b), "{label}");
                    hits[2] += 1;
                }
                _ => panic!("{label}: shape cast {got:?}, brute force {want:?}"),
            }
        }

        // Points: at object centres (often inside) or anywhere.
        let point = if q % 2 == 0 {
            let (_, _, p) = w.iter().nth(rng.below(handles.len())).unwrap();
            p.translation()
        } else {
            random_pose(&mut rng, extent).translation()
        };
        let probe = Collider::Convex(Shape::Point(PointShape::ORIGIN));
        let at = Pose::from_translation(point).unwrap();
        let want: Vec<Target> = w
            .iter()
            .filter(|(h, s, p)| {
                filter_accepts(&w, &filter, *h)
                    && compound::intersects(s, p, &probe, &at, &opts).is_some()
            })
            .map(|o| Target::Object(o.0))
            .collect();
        assert_eq!(
            w.intersect_point(point, &filter).unwrap(),
            want,
            "{label}: point"
        );
        hits[3] += want.len();

        // Boxes, from flat to a quarter of the scene.
        let c = random_pose(&mut rng, extent).translation();
        let mut half = v(
            rng.range(0.0, 4.0),
            rng.range(0.0, 4.0),
            rng.range(0.0, 4.0),
        );
        if q % 7 == 0 {
            half.y = 0.0;
        }
        let aabb = Aabb::new(c - half, c + half);
        let cube = Collider::Convex(Cuboid::new(half).unwrap().into());
        let at = Pose::from_translation(c).unwrap();
        let want: Vec<Target> = w
            .iter()
            .filter(|(h, s, p)| {
                filter_accepts(&w, &filter, *h)
                    && compound::intersects(s, p, &cube, &at, &opts).is_some()
            })
            .map(|o| Target::Object(o.0))
            .collect();
        assert_eq!(
            w.intersect_aabb(&aabb, &filter).unwrap(),
            want,
            "{label}: box"
        );
        hits[4] += want.len();
    }
    hits
}

#[test]
fn scene_queries_equal_brute_force_on_every_broad_phase() {
    for kind in kinds() {
        for seed in [7, 8] {
            let hits = check_scene(kind, seed);
            // The random queries really hit: closest hits, many hits per ray, shape
            // casts that meet something, points inside objects, boxes meeting shapes.
            assert!(
                hits[0] > 15 && hits[1] > 40 && hits[2] > 5 && hits[3] > 15 && hits[4] > 60,
                "{kind:?} seed {seed}: {hits:?}"
            );
        }
    }
}

/// An object whose box meets a query box but whose shape does not is not reported:
/// a ball at the origin against a box at its box's corner.
#[test]
fn box_queries_test_shapes_not_boxes() {
    for kind in kinds() {
        let mut w = World::new(kind, WorldOptions::default());
        let ball = w
            .insert(Shape::from(Sphere::new(1.0).unwrap()), Pose::IDENTITY)
            .unwrap();
        let corner = Aabb::new(v(0.8, 0.8, 0.8), v(1.0, 1.0, 1.0));
        let all = QueryFilter::new();
        assert!(w.intersect_aabb(&corner, &all).unwrap().is_empty());
        let side = Aabb::new(v(0.9, -0.1, -0.1), v(1.2, 0.1, 0.1));
        assert_eq!(
            w.intersect_aabb(&side, &all).unwrap(),
            vec![Target::Object(ball)]
        );
        assert_eq!(
            w.intersect_point(v(0.0, 0.99, 0.0), &all).unwrap(),
            vec![Target::Object(ball)]
        );
        assert!(w
            .intersect_point(v(0.7, 0.7, 0.7), &all)
            .unwrap()
            .is_empty());
        // Bad input is a typed error, not a panic.
        let bad = Aabb::new(v(1.0, 0.0, 0.0), v(0.0, 1.0, 1.0));
        assert!(w.intersect_aabb(&bad, &all).is_err());
        assert!(w.intersect_point(v(f64::NAN, 0.0, 0.0), &all).is_err());
        let ray = Ray::new(Vector::ZERO, Vector::ZERO);
        assert!(w.cast_ray(&ray, &RayOptions::default(), &all).is_err());
        let shape: Collider = Shape::from(Sphere::new(0.1).unwrap()).into();
        let negative = ShapeCastOptions {
            max_toi: -1.0,
            ..Default::default()
        };
        assert!(w
            .cast_shape(&shape, &Pose::IDENTITY, Vector::X, &negative, &all)
            .is_err());
    }
}

/// The filter's three tests on a row of balls along +x, each a different group and
/// user data: the ray hits the first the filter considers.
#[test]
fn query_filters_pick_objects() {
    for kind in kinds() {
        let mut w = World::new(kind, WorldOptions::default());
        let balls: Vec<ObjectHandle> = (0..4)
            .map(|i| {
                let options = ObjectOptions {
                    groups: CollisionGroups::new(1 << i, u32::MAX),
                    user_data: 10 + i as u64,
                    continuous: false,
                };
                let at = Pose::from_translation(v(3.0 * i as f64, 0.0, 0.0)).unwrap();
                w.insert_with(Shape::from(Sphere::new(0.5).unwrap()), at, options)
                    .unwrap()
            })
            .collect();
        let ray = Ray::new(v(-5.0, 0.0, 0.0), Vector::X);
        let first = |w: &World, f: &QueryFilter<'_>| {
            w.cast_ray(&ray, &RayOptions::default(), f)
                .unwrap()
                .and_then(|h| h.target.object())
        };
        assert_eq!(first(&w, &QueryFilter::new()), Some(balls[0]));
        assert!(
            (w.cast_ray(&ray, &RayOptions::default(), &QueryFilter::new())
                .unwrap()
                .unwrap()
                .hit
                .toi
                - 4.5)
                .abs()
                < 1e-5
        );
        assert_eq!(
            first(&w, &QueryFilter::new().exclude(balls[0])),
            Some(balls[1])
        );
        // Groups: a query that sees groups 2 and 3 only.
        let g = CollisionGroups::new(u32::MAX, 0b1100);
        assert_eq!(first(&w, &QueryFilter::new().groups(g)), Some(balls[2]));
        // A query that is a member of no group the balls see.
        assert_eq!(
            first(&w, &QueryFilter::new().groups(CollisionGroups::NONE)),
            None
        );
        let big = |_h: ObjectHandle, data: u64| data >= 13;
        assert_eq!(
            first(&w, &QueryFilter::new().predicate(&big)),
            Some(balls[3])
        );
        // Changed later: ball 3 now sees nothing, and its data is changed.
        w.set_groups(balls[3], CollisionGroups::new(1 << 3, 0))
            .unwrap();
        assert_eq!(first(&w, &QueryFilter::new().predicate(&big)), None);
        w.set_user_data(balls[1], 99).unwrap();
        assert_eq!(w.user_data(balls[1]).unwrap(), 99);
        assert_eq!(
            first(&w, &QueryFilter::new().predicate(&big)),
            Some(balls[1])
        );
        let all = w
            .cast_ray_all(&ray, &RayOptions::default(), &QueryFilter::new())
            .unwrap();
        let order: Vec<Target> = all.iter().map(|h| h.target).collect();
        assert_eq!(
            order,
            vec![balls[0].into(), balls[1].into(), balls[2].into()]
        );
        // Shape cast along the row, excluding the first ball.
        let probe: Collider = Shape::from(Sphere::new(0.25).unwrap()).into();
        let from = Pose::from_translation(v(-5.0, 0.0, 0.0)).unwrap();
        let hit = w
            .cast_shape(
                &probe,
                &from,
                Vector::X,
                &ShapeCastOptions::default(),
                &QueryFilter::new().exclude(balls[0]),
            )
            .unwrap()
            .unwrap();
        assert_eq!(hit.target, Target::Object(balls[1]));
        assert!((hit.cast.toi - 7.25).abs() < 1e-4, "{}", hit.cast.toi);
        assert!(hit.cast.normal.x > 0.999);
    }
}

/// Contact pairs honour groups: random overlapping scenes with random groups, the
/// contacts equal brute force (which skips non-interacting pairs), no reported pair is
/// one that does not interact, and changing an object's groups stops its contacts.
#[test]
fn contacts_honour_collision_groups() {
    for kind in kinds() {
        let mut rng = Rng::new(31);
        let mut w = World::new(kind, WorldOptions::default());
        let mut handles = Vec::new();
        for _ in 0..150 {
            let options = ObjectOptions {
                groups: random_groups(&mut rng),
                ..Default::default()
            };
            let s = rng.range(0.3, 1.0);
            handles.push(
                w.insert_with(
                    random_collider(&mut rng, s),
                    random_pose(&mut rng, 5.0),
                    options,
                )
                .unwrap(),
            );
        }
        w.update();
        w.verify(1e-4).unwrap();
        let groups = |h: ObjectHandle| w.groups(h).unwrap();
        assert!(!w.contacts().is_empty());
        for c in w.contacts() {
            assert!(groups(c.a).interacts_with(&groups(c.b)), "{kind:?}");
        }
        let want: Vec<(u32, u32)> = w.brute_force_contacts().into_iter().map(|p| p.0).collect();
        let got: Vec<(u32, u32)> = w
            .contacts()
            .iter()
            .map(|c| (c.a.index(), c.b.index()))
            .collect();
        assert_eq!(got, want, "{kind:?}");
        // Some pairs were left out by the groups: the all-groups world has more.
        let mut everyone = 0;
        for (i, (_, a, pa)) in w.iter().enumerate() {
            for (_, b, pb) in w.iter().skip(i + 1) {
                everyone += usize::from(
                    compound::intersects(a, pa, b, pb, &QueryOptions::default()).is_some(),
                );
            }
        }
        assert!(everyone > got.len(), "{everyone} {}", got.len());
        // An object in contact leaves every group: its contacts stop.
        let c = w.contacts()[0];
        w.set_groups(c.a, CollisionGroups::NONE).unwrap();
        w.update();
        w.verify(1e-4).unwrap();
        assert!(w.events().contains(&ContactEvent::Stopped(c.a, c.b)));
        assert!(w.contacts().iter().all(|x| x.a != c.a && x.b != c.a));
    }
}

/// A wall 1 cm thick, facing `normal` (unit, world frame), centred at the origin, 200 m
/// wide.
fn wall(w: &mut World, normal: Vector) -> ObjectHandle {
    let q = Rotation::from_rotation_arc(Vector::X, normal);
    let slab = Cuboid::new(v(0.005, 100.0, 100.0)).unwrap();
    w.insert(Shape::from(slab), Pose::new(q, Vector::ZERO).unwrap())
        .unwrap()
}

/// The test: a bullet (a 1 cm sphere, or a capsule) at 1000 m/s against a 1 cm
/// wall, 60 updates a second (16.7 m per update), for several angles of incidence, wall
/// orientations and offsets of the crossing within the step. The update whose move
/// crosses the wall reports the contact (started) with a time of impact at which the
/// bullet touches the wall's face: the bullet never passes unseen. The next update
/// reports it stopped. Every update is checked against brute force.
#[test]
fn bullets_never_tunnel_through_thin_walls() {
    let step = 1000.0 / 60.0;
    let (mut crossings, mut stops) = (0, 0);
    for kind in kinds() {
        for (k, angle) in [0.0f64, 20.0, 45.0, 70.0].into_iter().enumerate() {
            for offset in [0.013, 0.37, 0.5, 0.91] {
                let normal = if k % 2 == 0 {
                    Vector::X
                } else {
                    v(1.0, 0.4, -0.3).normalize()
                };
                // The bullet's direction: `angle` from the normal.
                let side = normal.any_orthonormal_vector();
                let a = angle.to_radians();
                let dir = normal * a.cos() as Real + side * a.sin() as Real;
                let bullet: Shape = if k < 2 {
                    Sphere::new(0.005).unwrap().into()
                } else {
                    Capsule::new(0.01, 0.004).unwrap().into()
                };
                let mut w = World::new(kind, WorldOptions::default());
                let wall_h = wall(&mut w, normal);
                // Starting `3 + offset` steps before the wall (along the direction).
                let start = -dir * ((3.0 + offset) * step) as Real;
                let spin = Rotation::from_rotation_arc(Vector::Y, dir);
                let options = ObjectOptions {
                    continuous: true,
                    ..Default::default()
                };
                let b = w
                    .insert_with(bullet.clone(), Pose::new(spin, start).unwrap(), options)
                    .unwrap();
                w.update();
                assert!(w.contacts().is_empty());
                let mut hit_updates = 0;
                let mut just_crossed = false;
                for n in 1..=6 {
                    let from = start + dir * ((n - 1) as Real * step as Real);
                    let to = start + dir * (n as Real * step as Real);
                    w.set_pose(b, Pose::new(spin, to).unwrap()).unwrap();
                    w.update();
                    w.verify(1e-4).unwrap();
                    let label = format!("{kind:?} angle {angle} offset {offset} update {n}");
                    // Signed distances of the two ends from the wall's mid-plane.
                    let (d0, d1) = (from.dot(normal), to.dot(normal));
                    let crosses = d0 < 0.0 && d1 > 0.0;
                    if crosses {
                        hit_updates += 1;
                        assert_eq!(w.contacts().len(), 1, "{label}: no contact");
                        let c = w.contacts()[0];
                        assert_eq!((c.a, c.b), (wall_h, b), "{label}");
                        assert!(
                            w.events().contains(&ContactEvent::Started(wall_h, b)),
                            "{label}"
                        );
                        let toi = c.toi.expect("a swept contact");
                        assert!((0.0..=1.0).contains(&toi), "{label}: toi {toi}");
                        // At the time of impact the bullet touches the wall's near face:
                        // its centre is its reach along the normal before the face.
                        let at = from + (to - from) * toi;
                        let reach = match &bullet {
                            Shape::Sphere(s) => s.radius() as f64,
                            _ => {
                                let axis = spin * Vector::Y;
                                (0.01 * axis.dot(normal).abs() as f64) + 0.004
                            }
                        };
                        let gap = -(at.dot(normal) as f64) - 0.005 - reach;
                        assert!(
                            gap.abs() < 2e-4,
                            "{label}: the bullet is {gap} from the wall"
                        );
                        let contact = c.contact.expect("details");
                        assert!(contact.distance.abs() < 2e-4, "{label}: {contact:?}");
                        // From the wall (A) towards the bullet (B), which comes from the −normal side.
                        assert!(contact.normal.dot(normal) < -0.99, "{label}: {contact:?}");
                        crossings += 1;
                    } else if d0 > 0.0 {
                        // Beyond the wall: no contact; the update right after the
                        // crossing reports it stopped.
                        assert!(w.contacts().is_empty(), "{label}");
                        if just_crossed {
                            assert!(
                                w.events().contains(&ContactEvent::Stopped(wall_h, b)),
                                "{label}"
                            );
                            stops += 1;
                        }
                    } else {
                        assert!(w.contacts().is_empty(), "{label}: contact before the wall");
                    }
                    just_crossed = crosses;
                }
                assert_eq!(hit_updates, 1, "{kind:?} angle {angle} offset {offset}");
                // Without continuous collision the same bullet passes unseen.
                w.set_continuous(b, false).unwrap();
                w.set_pose(b, Pose::new(spin, start).unwrap()).unwrap();
                w.update();
                let mut seen = false;
                for n in 1..=6 {
                    let to = start + dir * (n as Real * step as Real);
                    w.set_pose(b, Pose::new(spin, to).unwrap()).unwrap();
                    w.update();
                    seen |= !w.contacts().is_empty();
                }
                assert!(
                    !seen,
                    "the slow path saw the bullet: the test proves nothing"
                );
            }
        }
    }
    assert_eq!((crossings, stops), (3 * 4 * 4, 3 * 4 * 4));
}

/// Fast turning objects against thin walls: a plank 2 m long turning 170° per update
/// (back and forth) about its middle, 0.6 m from a 1 cm wall and nearly parallel to it
/// at both ends of each update (apart there), sweeps through the wall in between: the contact is reported
/// with a time of impact at which the plank touches the wall. A spinning capsule flying
/// at the wall, turning 150° per update, is caught the same way.
#[test]
fn fast_turning_objects_hit_thin_walls() {
    for kind in kinds() {
        let mut w = World::new(kind, WorldOptions::default());
        let slab = Cuboid::new(v(0.005, 5.0, 5.0)).unwrap();
        let wall_h = w.insert(Shape::from(slab), Pose::IDENTITY).unwrap();
        let plank = Cuboid::new(v(0.02, 1.0, 0.02)).unwrap();
        let centre = v(-0.6, 0.0, 0.0);
        let options = ObjectOptions {
            continuous: true,
            ..Default::default()
        };
        let p = w
            .insert_with(
                Shape::from(plank),
                Pose::from_translation(centre).unwrap(),
                options,
            )
            .unwrap();
        w.update();
        assert!(w.contacts().is_empty());
        let turn = (170.0f64).to_radians() as Real;
        let mut hits = 0;
        for n in 0..6 {
            // Back and forth between 0° and 170°, through 90° (the plank across the
            // wall) each time.
            let (before, q, sign) = if n % 2 == 0 {
                (Rotation::IDENTITY, Rotation::from_rotation_z(turn), 1.0)
            } else {
                (Rotation::from_rotation_z(turn), Rotation::IDENTITY, -1.0)
            };
            let pose = Pose::new(q, centre).unwrap();
            w.set_pose(p, pose).unwrap();
            w.update();
            w.verify(1e-4).unwrap();
            let label = format!("{kind:?} plank update {n}");
            // Apart at the new pose...
            let now = compound::distance(
                &Collider::from(Shape::from(slab)),
                &Pose::IDENTITY,
                &Collider::from(Shape::from(plank)),
                &pose,
                &QueryOptions::default(),
            );
            assert!(now.answer > 0.3, "{label}");
            // ...but the sweep crossed the wall.
            assert_eq!(w.contacts().len(), 1, "{label}");
            let c = w.contacts()[0];
            assert_eq!((c.a, c.b), (wall_h, p), "{label}");
            let toi = c.toi.expect("swept");
            let contact = c.contact.expect("details");
            assert!(contact.distance.abs() < 1e-3, "{label}: {contact:?}");
            // The plank's tip reaches the wall's face (x = −0.005) when its turn
            // brings it within 0.595 of the centre along x: cos φ · 1 ≈ 0.595 + the
            // plank's half thickness, at φ ≈ 90° − 53°; the turn is then about a fifth
            // of the way.
            let swept = Motion::new(Vector::ZERO, Vector::Z * (sign * turn));
            let at = swept.pose_at(&Pose::new(before, centre).unwrap(), toi);
            let tip_x = [
                v(0.02, 1.0, 0.0),
                v(-0.02, 1.0, 0.0),
                v(0.02, -1.0, 0.0),
                v(-0.02, -1.0, 0.0),
            ]
            .iter()
            .map(|c| at.transform_point(*c).x)
            .fold(Real::MIN, Real::max);
            assert!(
                (tip_x + 0.005).abs() < 1e-3,
                "{label}: tip at {tip_x}, toi {toi}"
            );
            assert!(toi > 0.05 && toi < 0.5, "{label}: {toi}");
            hits += 1;
        }
        assert_eq!(hits, 6);

        // A capsule spinning end over end while flying at the wall from 30 m out, 25 m
        // per update.
        let cap = Capsule::new(0.3, 0.02).unwrap();
        let mut q = Rotation::IDENTITY;
        let c_h = w
            .insert_with(
                Shape::from(cap),
                Pose::new(q, v(-30.0, 2.0, 1.0)).unwrap(),
                ObjectOptions {
                    continuous: true,
                    ..Default::default()
                },
            )
            .unwrap();
        w.set_continuous(p, false).unwrap();
        w.update();
        let mut seen = 0;
        for n in 1..=3 {
            q = Rotation::from_rotation_y((150.0f64).to_radians() as Real) * q;
            let x = -30.0 + 25.0 * n as f64;
            w.set_pose(c_h, Pose::new(q, v(x, 2.0, 1.0)).unwrap())
                .unwrap();
            w.update();
            w.verify(1e-4).unwrap();
            let wall_contacts: Vec<_> = w
                .contacts()
                .iter()
                .filter(|c| c.b == c_h && c.a == wall_h)
                .collect();
            if x - 25.0 < 0.0 && x > 0.0 {
                assert_eq!(wall_contacts.len(), 1, "{kind:?} capsule update {n}");
                let c = wall_contacts[0];
                assert!(c.toi.is_some());
                assert!(c.contact.unwrap().distance.abs() < 1e-3);
                seen += 1;
            }
        }
        assert_eq!(seen, 1);
    }
}

/// Continuous flags and their bookkeeping: a fast object that does not move sweeps
/// nothing; removing and reinserting in its slot, turning the flag on and off.
#[test]
fn continuous_flags_follow_their_objects() {
    for kind in kinds() {
        let mut w = World::new(kind, WorldOptions::default());
        let wall_h = wall(&mut w, Vector::X);
        let ball = Shape::from(Sphere::new(0.1).unwrap());
        let b = w
            .insert(
                ball.clone(),
                Pose::from_translation(v(-5.0, 0.0, 0.0)).unwrap(),
            )
            .unwrap();
        assert!(!w.is_continuous(b).unwrap());
        w.set_continuous(b, true).unwrap();
        assert!(w.is_continuous(b).unwrap());
        w.update();
        w.update();
        assert!(w.contacts().is_empty());
        // Two moves in one update: swept from the pose of the last update to the last.
        w.set_pose(b, Pose::from_translation(v(-4.0, 0.0, 0.0)).unwrap())
            .unwrap();
        w.set_poses(&[(b, Pose::from_translation(v(5.0, 0.0, 0.0)).unwrap())])
            .unwrap();
        w.update();
        w.verify(1e-4).unwrap();
        assert_eq!(w.contacts().len(), 1);
        assert_eq!(w.contacts()[0].a, wall_h);
        let toi = w.contacts()[0].toi.unwrap();
        assert!((toi - 4.895 / 10.0).abs() < 1e-4, "{toi}");
        // Not moved: nothing swept, the contact stops.
        w.update();
        assert!(w.contacts().is_empty());
        assert!(w.events().contains(&ContactEvent::Stopped(wall_h, b)));
        w.remove(b).unwrap();
        let b2 = w
            .insert(ball, Pose::from_translation(v(5.0, 0.0, 0.0)).unwrap())
            .unwrap();
        assert_eq!(b2.index(), b.index());
        assert!(!w.is_continuous(b2).unwrap());
        w.update();
        w.set_pose(b2, Pose::from_translation(v(-5.0, 0.0, 0.0)).unwrap())
            .unwrap();
        w.update();
        assert!(w.contacts().is_empty(), "a slow object is not swept");
        assert!(w.is_continuous(b).is_err());
    }
}
