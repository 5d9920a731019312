//! Static geometry in the collision world: heightfields as statics, their contacts with
//! the objects, events, groups, removal, and the scene queries that see them.
//!
//! Oracles: the static-level queries themselves, run without the world. The world's
//! static contacts must equal `static_dispatch::manifolds_with_all` of each object
//! against *every* static it interacts with (no box check), normals and points exactly;
//! scene queries must equal `static_dispatch::cast_ray` / `cast` / `intersects` on each
//! static together with the shape-level queries on each object. Flat ground gives the
//! analytic answer: the normal is straight up (within 1e-3 rad), a resting box has four
//! points at its penetration depth, whichever tile and whichever field it rests on.
#![allow(clippy::unnecessary_cast)] // `as Real` / `as f64` are no-ops in one build

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use std::collections::BTreeSet;

use common::Rng;
use minkowski::query::compound::{self, Collider};
use minkowski::query::{static_dispatch, Manifold, Motion, QueryOptions, Ray, RayOptions};
use minkowski::shape::{
    Capsule, Compound, ConvexPolyhedron, Cuboid, HalfSpace, HeightField, PointShape, Shape, Sphere,
    StaticShape,
};
use minkowski::world::{
    BroadPhaseKind, CollisionGroups, ObjectHandle, ObjectOptions, QueryFilter, SceneRayHit,
    ShapeCastOptions, StaticContact, StaticContactEvent, StaticHandle, StaticOptions, Target,
    World, WorldError, WorldOptions,
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

/// A field of `n × n` samples, `cell` apart, sample `[0][0]` at world `(x0, 0, z0)`
/// (the field's pose is the identity), heights `h(x, z)` of the sample's world position:
/// two adjacent fields built from one `h` share their seam's heights.
fn field(x0: f64, z0: f64, n: usize, cell: f64, h: &dyn Fn(f64, f64) -> f64) -> HeightField {
    let samples: Vec<Option<Real>> = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            Some(h(x0 + j as f64 * cell, z0 + i as f64 * cell) as Real)
        })
        .collect();
    HeightField::new(n, n, &samples, [cell as Real; 2], v(x0, 0.0, z0)).unwrap()
}

fn flat(_: f64, _: f64) -> f64 {
    0.0
}

fn hills(x: f64, z: f64) -> f64 {
    0.6 * (0.7 * x).sin() * (0.5 * z).cos() + 0.2 * (1.3 * x + 0.4 * z).sin()
}

fn up_within(n: Vector, angle: f64) -> bool {
    (n.dot(Vector::Y) as f64) >= angle.cos()
}

fn yaw(rng: &mut Rng) -> Rotation {
    Rotation::from_rotation_y(rng.range(-3.2, 3.2) as Real)
}

/// The static contacts of one object, from the world's list.
fn contacts_of(w: &World, h: ObjectHandle) -> Vec<StaticContact> {
    w.static_contacts()
        .iter()
        .filter(|c| c.object == h)
        .copied()
        .collect()
}

/// Same normal and points (feature ids aside: they depend on the statics' positions in
/// the query's list).
fn same_manifold(a: &Manifold, b: &Manifold) -> bool {
    a.normal == b.normal
        && a.len() == b.len()
        && a.points()
            .iter()
            .zip(b.points())
            .all(|(p, q)| (p.point_a, p.point_b, p.distance) == (q.point_a, q.point_b, q.distance))
}

fn deepest(m: &Manifold) -> Real {
    m.points()
        .iter()
        .map(|p| p.distance)
        .fold(Real::INFINITY, Real::min)
}

/// The oracle: each object against every static it interacts with, in one
/// `manifolds_with_all` query, regions deepest first, by object index.
fn oracle(w: &World, margin: Real) -> Vec<StaticContact> {
    let statics: Vec<(StaticHandle, StaticShape, Pose)> =
        w.statics().map(|(h, s, p)| (h, s.clone(), *p)).collect();
    let mut out = Vec::new();
    for (object, shape, pose) in w.iter() {
        let g = w.groups(object).unwrap();
        let mine: Vec<&(StaticHandle, StaticShape, Pose)> = statics
            .iter()
            .filter(|(h, _, _)| g.interacts_with(&w.static_groups(*h).unwrap()))
            .collect();
        let list: Vec<(&StaticShape, Pose)> = mine.iter().map(|(_, s, p)| (s, *p)).collect();
        let mut found: Vec<(usize, Manifold)> = static_dispatch::manifolds_with_all(
            &list,
            shape,
            pose,
            margin,
            &QueryOptions::default(),
        )
        .into_iter()
        .filter(|(_, m)| !m.is_empty())
        .collect();
        found.sort_by(|x, y| deepest(&x.1).total_cmp(&deepest(&y.1)));
        out.extend(found.into_iter().map(|(k, manifold)| StaticContact {
            object,
            fixed: mine[k].0,
            manifold,
        }));
    }
    out
}

fn assert_matches_oracle(w: &World, margin: Real, label: &str) {
    let want = oracle(w, margin);
    let got = w.static_contacts();
    assert_eq!(got.len(), want.len(), "{label}: region count");
    for (g, o) in got.iter().zip(&want) {
        assert_eq!((g.object, g.fixed), (o.object, o.fixed), "{label}");
        assert!(
            same_manifold(&g.manifold, &o.manifold),
            "{label}: {g:?} vs oracle {o:?}"
        );
    }
}

/// The (object, static) pairs in contact, from the contact list.
fn pair_set(w: &World) -> BTreeSet<(ObjectHandle, StaticHandle)> {
    w.static_contacts()
        .iter()
        .map(|c| (c.object, c.fixed))
        .collect()
}

/// The events of the last update against the pair sets before and after it.
fn check_events(
    w: &World,
    before: &BTreeSet<(ObjectHandle, StaticHandle)>,
    label: &str,
) -> BTreeSet<(ObjectHandle, StaticHandle)> {
    let now = pair_set(w);
    let (mut started, mut ongoing, mut stopped) =
        (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for e in w.static_events() {
        let fresh = match *e {
            StaticContactEvent::Started(o, s) => started.insert((o, s)),
            StaticContactEvent::Ongoing(o, s) => ongoing.insert((o, s)),
            StaticContactEvent::Stopped(o, s) => stopped.insert((o, s)),
        };
        assert!(fresh, "{label}: event {e:?} twice");
    }
    assert_eq!(
        started,
        now.difference(before).copied().collect(),
        "{label}: started"
    );
    assert_eq!(
        ongoing,
        now.intersection(before).copied().collect(),
        "{label}: ongoing"
    );
    assert_eq!(
        stopped,
        before.difference(&now).copied().collect(),
        "{label}: stopped"
    );
    now
}

/// Boxes and capsules resting on a flat heightfield floor, anywhere on it and turned
/// any way about the vertical: one region each, normal straight up, the box's four
/// corners at its penetration depth.
#[test]
fn resting_boxes_and_capsules_get_one_up_manifold() {
    let mut rng = Rng::new(0x57a7);
    for margin in [0.0, 0.05] {
        let options = WorldOptions {
            contact_margin: margin as Real,
            ..WorldOptions::default()
        };
        let mut w = World::new(BroadPhaseKind::SweepAndPrune, options);
        let floor = w
            .insert_static(field(-5.0, -5.0, 11, 1.0, &flat), Pose::IDENTITY)
            .unwrap();
        // The same floor as a half-space (y ≤ 0) in a second world.
        let mut w2 = World::new(BroadPhaseKind::SweepAndPrune, options);
        let plane = w2
            .insert_static(HalfSpace::new(Vector::Y, 0.0).unwrap(), Pose::IDENTITY)
            .unwrap();
        let cuboid: Shape = Cuboid::new(v(0.5, 0.3, 0.4)).unwrap().into();
        let capsule: Shape = Capsule::new(0.5, 0.25).unwrap().into();
        for case in 0..150 {
            let label = format!("margin {margin} case {case}");
            // Sunk by up to 2 cm, or (with a margin) hovering up to 2 cm above.
            let depth = if margin > 0.0 && case % 2 == 1 {
                -rng.range(0.0, 0.02)
            } else {
                rng.range(0.001, 0.02)
            };
            let (x, z) = (rng.range(-4.0, 4.0), rng.range(-4.0, 4.0));
            let turn = yaw(&mut rng);
            let (shape, pose, corners) = match case % 3 {
                0 => (cuboid.clone(), Pose::new(turn, v(x, 0.3 - depth, z)), 4),
                // Lying: the capsule's axis horizontal.
                1 => (
                    capsule.clone(),
                    Pose::new(
                        turn * Rotation::from_rotation_z(std::f64::consts::FRAC_PI_2 as Real),
                        v(x, 0.25 - depth, z),
                    ),
                    2,
                ),
                // Standing on its end.
                _ => (capsule.clone(), Pose::new(turn, v(x, 0.75 - depth, z)), 1),
            };
            let pose = pose.unwrap();
            let h2 = w2.insert(shape.clone(), pose).unwrap();
            w2.update();
            let on_plane = contacts_of(&w2, h2);
            assert_eq!(on_plane.len(), 1, "{label}: half-space {on_plane:?}");
            assert_eq!(on_plane[0].fixed, plane);
            assert!(up_within(on_plane[0].manifold.normal, 1e-3), "{label}");
            if corners == 4 {
                assert_eq!(on_plane[0].manifold.len(), 4, "{label}: half-space");
            }
            w2.remove(h2).unwrap();
            let h = w.insert(shape, pose).unwrap();
            w.update();
            let mine = contacts_of(&w, h);
            assert_eq!(mine.len(), 1, "{label}: {mine:?}");
            let m = &mine[0].manifold;
            assert_eq!(mine[0].fixed, floor, "{label}");
            assert!(up_within(m.normal, 1e-3), "{label}: normal {:?}", m.normal);
            if corners == 1 {
                assert!(!m.is_empty(), "{label}");
            } else if corners == 2 {
                assert!(m.len() >= 2, "{label}: {m:?}");
            } else {
                assert_eq!(m.len(), 4, "{label}: {m:?}");
            }
            for p in m.points() {
                assert!(
                    (p.distance as f64 + depth).abs() < 1e-4,
                    "{label}: point at {} for depth {depth}",
                    p.distance
                );
            }
            assert_eq!(
                w.static_events(),
                &[StaticContactEvent::Started(h, floor)],
                "{label}"
            );
            w.remove(h).unwrap();
            w.update();
            assert_eq!(
                w.static_events(),
                &[StaticContactEvent::Stopped(h, floor)],
                "{label}"
            );
        }
    }
}

/// Two flat fields side by side (seam at x = 4): boxes and capsules straddling the seam,
/// anywhere along it, turned and slightly tilted, get only "up" (a ghost collision would
/// be the seam's sideways normal), and so does a box sliding across it.
#[test]
fn no_ghost_normals_across_adjacent_fields() {
    let mut rng = Rng::new(0x6057);
    let mut w = World::new(
        BroadPhaseKind::Tree { fat_factor: 0.1 },
        WorldOptions::default(),
    );
    w.insert_static(field(0.0, 0.0, 5, 1.0, &flat), Pose::IDENTITY)
        .unwrap();
    w.insert_static(field(4.0, 0.0, 5, 1.0, &flat), Pose::IDENTITY)
        .unwrap();
    let shapes: [Shape; 3] = [
        Cuboid::new(v(0.5, 0.25, 0.35)).unwrap().into(),
        Capsule::new(0.4, 0.2).unwrap().into(),
        Cuboid::new(v(0.05, 0.05, 0.05)).unwrap().into(),
    ];
    let (mut checked, mut bad) = (0, 0);
    for case in 0..300 {
        let shape = shapes[case % 3].clone();
        let tilt = Rotation::from_axis_angle(
            Vector::new(
                rng.range(-1.0, 1.0) as Real,
                0.0,
                rng.range(-1.0, 1.0) as Real,
            )
            .normalize_or(Vector::X),
            rng.range(0.0, 0.02) as Real,
        );
        let rotation = if case % 3 == 1 {
            yaw(&mut rng) * Rotation::from_rotation_z(std::f64::consts::FRAC_PI_2 as Real)
        } else {
            yaw(&mut rng) * tilt
        };
        // Dropped until it sinks 1–10 mm: its lowest point from its support map.
        let probe = Pose::new(rotation, Vector::ZERO).unwrap();
        let lowest = compound::cast_ray(
            &Collider::from(shape.clone()),
            &probe,
            &Ray::new(v(0.0, -10.0, 0.0), Vector::Y),
            &RayOptions::default(),
        )
        .unwrap()
        .answer
        .hit
        .unwrap()
        .point
        .y as f64;
        let depth = rng.range(0.001, 0.01);
        let at = v(rng.range(3.7, 4.3), -lowest - depth, rng.range(0.6, 3.4));
        let h = w.insert(shape, Pose::new(rotation, at).unwrap()).unwrap();
        w.update();
        let mine = contacts_of(&w, h);
        assert!(!mine.is_empty(), "case {case}: no contact");
        for c in &mine {
            checked += 1;
            if !up_within(c.manifold.normal, 1e-3) {
                bad += 1;
                eprintln!("case {case}: ghost normal {:?}", c.manifold.normal);
            }
        }
        w.remove(h).unwrap();
    }
    // A box sliding across the seam, 5 mm deep, in 200 steps.
    let h = w
        .insert(
            Shape::from(Cuboid::new(v(0.3, 0.2, 0.3)).unwrap()),
            Pose::from_translation(v(2.5, 0.195, 2.0)).unwrap(),
        )
        .unwrap();
    for step in 0..200 {
        let x = 2.5 + 3.0 * step as f64 / 200.0;
        w.set_pose(h, Pose::from_translation(v(x, 0.195, 2.0)).unwrap())
            .unwrap();
        w.update();
        let mine = contacts_of(&w, h);
        assert_eq!(mine.len(), 1, "slide step {step}: {mine:?}");
        checked += 1;
        if !up_within(mine[0].manifold.normal, 1e-3) {
            bad += 1;
        }
        assert_eq!(mine[0].manifold.len(), 4, "slide step {step}");
    }
    assert_eq!(bad, 0, "{bad} ghost normals of {checked}");
    assert!(checked >= 500);
}

/// Random objects (convex and compound, some in groups that do not see some statics)
/// over a terrain of three hilly tiles (two adjacent, one turned and raised), moved,
/// removed and added over several updates: the contacts equal the oracle exactly, and
/// the events equal the changes of the pair sets; for every broad phase, serial and
/// parallel, with and without a contact margin.
#[test]
fn static_contacts_equal_brute_force() {
    let mut total = 0;
    for (n, kind) in kinds().into_iter().enumerate() {
        for (parallel, margin) in [(true, 0.0), (false, 0.05), (true, 0.05)] {
            let label = format!("{kind:?} parallel {parallel} margin {margin}");
            let mut rng = Rng::new(0x5eed + n as u64);
            let options = WorldOptions {
                contact_margin: margin as Real,
                parallel,
                ..WorldOptions::default()
            };
            let mut w = World::new(kind, options);
            let groups = [
                CollisionGroups::ALL,
                CollisionGroups::ALL,
                CollisionGroups::new(0b10, 0b10),
            ];
            let poses = [
                Pose::IDENTITY,
                Pose::IDENTITY,
                Pose::new(Rotation::from_rotation_y(0.7), v(-6.0, 0.5, 3.0)).unwrap(),
            ];
            let tiles = [
                field(0.0, 0.0, 9, 0.75, &hills),
                field(6.0, 0.0, 9, 0.75, &hills),
                field(0.0, 0.0, 7, 1.0, &hills),
            ];
            for ((t, p), g) in tiles.into_iter().zip(poses).zip(groups) {
                let o = StaticOptions {
                    groups: g,
                    user_data: 7,
                };
                w.insert_static_with(t, p, o).unwrap();
            }
            // An unbounded static: a slightly tilted ground plane under the hills, that
            // the deepest objects reach.
            let plane = HalfSpace::new(v(0.05, 1.0, -0.03).normalize(), 0.0).unwrap();
            w.insert_static(plane, Pose::from_translation(v(0.0, -0.9, 0.0)).unwrap())
                .unwrap();
            let place = |rng: &mut Rng| -> Pose {
                let (x, z) = if rng.below(4) == 0 {
                    (rng.range(-8.0, -1.0), rng.range(3.0, 10.0))
                } else {
                    (rng.range(-0.5, 12.5), rng.range(-0.5, 6.5))
                };
                let y = hills(x, z) + rng.range(-0.4, 1.0);
                Pose::new(rng.rotation(), v(x, y, z)).unwrap()
            };
            let object_groups = |rng: &mut Rng| match rng.below(4) {
                0 => CollisionGroups::new(0b01, 0b01),
                1 => CollisionGroups::new(0b10, 0b10),
                _ => CollisionGroups::ALL,
            };
            let mut handles = Vec::new();
            for _ in 0..60 {
                let o = ObjectOptions {
                    groups: object_groups(&mut rng),
                    ..ObjectOptions::default()
                };
                let shape = random_collider(&mut rng);
                handles.push(w.insert_with(shape, place(&mut rng), o).unwrap());
            }
            let mut before = BTreeSet::new();
            for step in 0..6 {
                let label = format!("{label} step {step}");
                w.update();
                w.verify(1e-4).unwrap_or_else(|e| panic!("{label}: {e}"));
                assert_matches_oracle(&w, margin as Real, &label);
                before = check_events(&w, &before, &label);
                total += w.static_contacts().len();
                // Every object's regions are deepest first.
                for pair in w.static_contacts().windows(2) {
                    if pair[0].object == pair[1].object {
                        assert!(deepest(&pair[0].manifold) <= deepest(&pair[1].manifold));
                    } else {
                        assert!(pair[0].object.index() < pair[1].object.index());
                    }
                }
                for h in handles.iter_mut() {
                    match rng.below(10) {
                        0..=4 => {
                            // A small move.
                            let (_, p) = w.get(*h).unwrap();
                            let to = Pose::new(
                                p.rotation(),
                                p.translation()
                                    + v(
                                        rng.range(-0.2, 0.2),
                                        rng.range(-0.1, 0.1),
                                        rng.range(-0.2, 0.2),
                                    ),
                            )
                            .unwrap();
                            w.set_pose(*h, to).unwrap();
                        }
                        5 => w.set_pose(*h, place(&mut rng)).unwrap(),
                        6 if step % 2 == 1 => {
                            w.remove(*h).unwrap();
                            let shape = random_collider(&mut rng);
                            *h = w.insert(shape, place(&mut rng)).unwrap();
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    // The scenes really touch the terrain, many times over.
    assert!(total > 300, "{total} regions in all");
}

fn random_collider(rng: &mut Rng) -> Collider {
    if rng.below(5) == 0 {
        let parts = (0..2 + rng.below(2))
            .map(|_| {
                let p = Pose::new(
                    rng.rotation(),
                    v(rng.range(-0.5, 0.5), rng.range(-0.5, 0.5), 0.0),
                )
                .unwrap();
                (p, random_convex(rng))
            })
            .collect();
        return Compound::new(parts).unwrap().into();
    }
    random_convex(rng).into()
}

fn random_convex(rng: &mut Rng) -> Shape {
    let s = rng.range(0.2, 0.7);
    match rng.below(4) {
        0 => Sphere::new(s as Real).unwrap().into(),
        1 => Cuboid::new(v(s, s * 0.7, s * 0.5)).unwrap().into(),
        2 => Capsule::new((s * 0.6) as Real, (s * 0.3) as Real)
            .unwrap()
            .into(),
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

/// A box comes down on the field, rests, leaves; is removed while resting; the field
/// is removed under another: started, ongoing, stopped each time, and stale handles
/// are typed errors.
#[test]
fn events_follow_objects_on_and_off_and_removals() {
    let mut w = World::new(BroadPhaseKind::SweepAndPrune, WorldOptions::default());
    let floor = w
        .insert_static(field(-3.0, -3.0, 7, 1.0, &flat), Pose::IDENTITY)
        .unwrap();
    let cube: Shape = Cuboid::new(Vector::splat(0.5)).unwrap().into();
    let at = |y: f64| Pose::from_translation(v(0.2, y, -0.3)).unwrap();
    let a = w.insert(cube.clone(), at(2.0)).unwrap();
    w.update();
    assert!(w.static_events().is_empty() && w.static_contacts().is_empty());
    w.set_pose(a, at(0.49)).unwrap();
    w.update();
    assert_eq!(w.static_events(), &[StaticContactEvent::Started(a, floor)]);
    w.update();
    assert_eq!(w.static_events(), &[StaticContactEvent::Ongoing(a, floor)]);
    w.set_pose(a, at(0.6)).unwrap();
    w.update();
    assert_eq!(w.static_events(), &[StaticContactEvent::Stopped(a, floor)]);
    w.update();
    assert!(w.static_events().is_empty());

    // Removed while resting: stopped.
    w.set_pose(a, at(0.45)).unwrap();
    w.update();
    assert_eq!(w.static_events(), &[StaticContactEvent::Started(a, floor)]);
    w.remove(a).unwrap();
    w.update();
    assert_eq!(w.static_events(), &[StaticContactEvent::Stopped(a, floor)]);
    assert!(w.static_contacts().is_empty());

    // A new object in the freed slot is a new pair.
    let b = w.insert(cube.clone(), at(0.45)).unwrap();
    assert_eq!(b.index(), a.index());
    w.update();
    assert_eq!(w.static_events(), &[StaticContactEvent::Started(b, floor)]);

    // The floor removed under it: stopped, and its handle is stale.
    assert!(matches!(
        w.remove_static(floor).unwrap(),
        StaticShape::HeightField(_)
    ));
    w.update();
    assert_eq!(w.static_events(), &[StaticContactEvent::Stopped(b, floor)]);
    assert!(w.static_contacts().is_empty());
    assert_eq!(w.static_count(), 0);
    assert_eq!(w.get_static(floor).err(), Some(WorldError::StaleHandle));
    assert_eq!(w.remove_static(floor).err(), Some(WorldError::StaleHandle));
    assert_eq!(w.static_groups(floor).err(), Some(WorldError::StaleHandle));
    assert_eq!(
        w.set_static_user_data(floor, 1).err(),
        Some(WorldError::StaleHandle)
    );
    w.update();
    assert!(w.static_events().is_empty());

    // A new floor in the freed slot: a new static handle, a new pair.
    let floor2 = w
        .insert_static(field(-3.0, -3.0, 7, 1.0, &flat), Pose::IDENTITY)
        .unwrap();
    assert_eq!(floor2.index(), floor.index());
    assert_ne!(floor2, floor);
    w.update();
    assert_eq!(w.static_events(), &[StaticContactEvent::Started(b, floor2)]);
    let (shape, pose) = w.get_static(floor2).unwrap();
    assert_eq!(shape.type_name(), "heightfield");
    assert_eq!(*pose, Pose::IDENTITY);
    assert_eq!(w.statics().count(), 1);
    assert!(w.timings().static_objects >= 1);
}

/// Groups: a static and an object that do not interact never touch; changing either's
/// groups takes effect at the next update; at a seam, an object sees only the field it
/// interacts with.
#[test]
fn groups_filter_static_contacts() {
    let mut w = World::new(
        BroadPhaseKind::Grid { cell_size: 2.0 },
        WorldOptions::default(),
    );
    let only_one = StaticOptions {
        groups: CollisionGroups::new(0b01, 0b01),
        user_data: 41,
    };
    let left = w
        .insert_static_with(field(0.0, 0.0, 5, 1.0, &flat), Pose::IDENTITY, only_one)
        .unwrap();
    let right = w
        .insert_static(field(4.0, 0.0, 5, 1.0, &flat), Pose::IDENTITY)
        .unwrap();
    assert_eq!(w.static_user_data(left).unwrap(), 41);
    let cube: Shape = Cuboid::new(Vector::splat(0.3)).unwrap().into();
    let two = ObjectOptions {
        groups: CollisionGroups::new(0b10, 0b10),
        ..ObjectOptions::default()
    };
    // On the left field only.
    let x = w
        .insert_with(
            cube.clone(),
            Pose::from_translation(v(1.5, 0.29, 2.0)).unwrap(),
            two,
        )
        .unwrap();
    let y = w
        .insert(
            cube.clone(),
            Pose::from_translation(v(2.5, 0.29, 2.0)).unwrap(),
        )
        .unwrap();
    // Across the seam.
    let z = w
        .insert_with(
            cube.clone(),
            Pose::from_translation(v(4.0, 0.29, 1.0)).unwrap(),
            two,
        )
        .unwrap();
    w.update();
    assert!(contacts_of(&w, x).is_empty());
    assert_eq!(pair_set(&w).iter().filter(|p| p.0 == y).count(), 1);
    let at_seam = contacts_of(&w, z);
    assert!(!at_seam.is_empty());
    assert!(at_seam.iter().all(|c| c.fixed == right));
    assert!(at_seam.iter().all(|c| up_within(c.manifold.normal, 1e-3)));

    // The left field now sees group 2 as well: x starts touching it.
    w.set_static_groups(left, CollisionGroups::ALL).unwrap();
    w.update();
    assert!(w
        .static_events()
        .contains(&StaticContactEvent::Started(x, left)));
    // y leaves every group: its contact stops.
    w.set_groups(y, CollisionGroups::NONE).unwrap();
    w.update();
    assert!(w
        .static_events()
        .contains(&StaticContactEvent::Stopped(y, left)));
    assert!(contacts_of(&w, y).is_empty());
    assert_matches_oracle(&w, 0.0, "groups");
}

/// Scene queries see the statics: rays, shape casts, points and boxes against a world
/// of a hilly field and objects over it equal the static-level queries on the field with
/// the shape-level queries on every object; filters apply to statics by groups and
/// static predicate.
#[test]
fn scene_queries_hit_statics_where_static_dispatch_says() {
    let mut rng = Rng::new(0x9e37);
    let opts = QueryOptions::default();
    for kind in kinds() {
        let mut w = World::new(kind, WorldOptions::default());
        let hf = field(0.0, 0.0, 17, 0.5, &hills);
        let ground = StaticOptions {
            groups: CollisionGroups::new(0b100, u32::MAX),
            user_data: 3,
        };
        let pose_f = Pose::new(Rotation::from_rotation_y(0.2), v(-1.0, 0.0, 0.5)).unwrap();
        let terrain = w.insert_static_with(hf.clone(), pose_f, ground).unwrap();
        // And a ground plane under it (unbounded), in the same group.
        let plane = StaticShape::from(HalfSpace::new(Vector::Y, 0.0).unwrap());
        let pose_p = Pose::from_translation(v(0.0, -1.2, 0.0)).unwrap();
        let bedrock = w.insert_static_with(plane.clone(), pose_p, ground).unwrap();
        let statics = [
            (terrain, StaticShape::from(hf), pose_f),
            (bedrock, plane, pose_p),
        ];
        for _ in 0..40 {
            let (x, z) = (rng.range(0.0, 8.0), rng.range(0.0, 8.0));
            let p = Pose::new(rng.rotation(), v(x, 1.0 + rng.range(0.0, 2.0), z)).unwrap();
            w.insert(random_collider(&mut rng), p).unwrap();
        }
        w.update();
        let not_ground = CollisionGroups::new(u32::MAX, 0b011);
        let no_statics = |_h: StaticHandle, data: u64| data != 3;
        let (mut static_hits, mut object_hits) = (0, 0);
        for q in 0..150 {
            let label = format!("{kind:?} query {q}");
            let mut filter = QueryFilter::new();
            match q % 5 {
                3 => filter = filter.groups(not_ground),
                4 => filter = filter.static_predicate(&no_statics),
                _ => {}
            }
            let sees_ground = q % 5 < 3;
            // Rays from above, slanted, some from under the ground.
            let from = v(
                rng.range(-1.0, 9.0),
                if q % 7 == 0 {
                    -1.0
                } else {
                    rng.range(3.0, 6.0)
                },
                rng.range(-1.0, 9.0),
            );
            let to = v(rng.range(0.0, 8.0), -0.5, rng.range(0.0, 8.0));
            let ray = Ray::new(from, to - from);
            let ray_options = RayOptions {
                max_toi: if q % 3 == 0 { 0.5 } else { Real::INFINITY },
                solid: q % 4 != 0,
            };
            let mut want: Vec<SceneRayHit> = Vec::new();
            for (h, fixed, pose) in statics.iter().filter(|_| sees_ground) {
                let r = static_dispatch::cast_ray(fixed, pose, &ray, &ray_options).unwrap();
                if let Some(hit) = r.hit {
                    want.push(SceneRayHit {
                        target: Target::Static(*h),
                        part: None,
                        hit,
                        status: r.status,
                    });
                }
            }
            for (h, shape, pose) in w.iter() {
                let r = compound::cast_ray(shape, pose, &ray, &ray_options).unwrap();
                if let Some(hit) = r.answer.hit {
                    want.push(SceneRayHit {
                        target: Target::Object(h),
                        part: r.part_a,
                        hit,
                        status: r.answer.status,
                    });
                }
            }
            want.sort_by(|a, b| {
                a.hit
                    .toi
                    .total_cmp(&b.hit.toi)
                    .then(a.target.cmp(&b.target))
            });
            let got_all = w.cast_ray_all(&ray, &ray_options, &filter).unwrap();
            assert_eq!(got_all, want, "{label}: all hits");
            let got = w.cast_ray(&ray, &ray_options, &filter).unwrap();
            assert_eq!(got, want.first().copied(), "{label}: first hit");
            match got.map(|g| g.target) {
                Some(Target::Static(_)) => static_hits += 1,
                Some(Target::Object(_)) => object_hits += 1,
                None => {}
            }

            // A ball dropped from above.
            let ball = Collider::from(Shape::from(Sphere::new(0.2).unwrap()));
            let at =
                Pose::from_translation(v(rng.range(0.5, 7.5), 5.0, rng.range(0.5, 7.5))).unwrap();
            let down = v(0.0, -1.0, 0.0);
            let cast_options = ShapeCastOptions {
                max_toi: 10.0,
                target_distance: if q % 2 == 0 { 0.0 } else { 0.05 },
            };
            let got = w
                .cast_shape(&ball, &at, down, &cast_options, &filter)
                .unwrap();
            let mut best: Option<(Real, Target)> = None;
            for (h, fixed, pose) in statics.iter().filter(|_| sees_ground) {
                let c = static_dispatch::cast(
                    fixed,
                    pose,
                    Motion::ZERO,
                    &ball,
                    &at,
                    Motion::linear(down),
                    10.0,
                    cast_options.target_distance,
                    &opts,
                )
                .unwrap();
                let t = Target::Static(*h);
                if c.hit && best.is_none_or(|(u, g)| c.toi < u || (c.toi == u && t < g)) {
                    best = Some((c.toi, t));
                    if let Some(g) = got.filter(|g| g.target == t) {
                        // Turned round: the normal from the ball towards the ground.
                        assert_eq!(g.cast.normal, -c.normal, "{label}");
                        assert_eq!((g.cast.point_a, g.cast.point_b), (c.point_b, c.point_a));
                        assert!(g.cast.normal.y < 0.0, "{label}: {:?}", g.cast.normal);
                    }
                }
            }
            for (h, shape, pose) in w.iter() {
                let c = compound::cast_colliders(
                    &ball,
                    &at,
                    Motion::linear(down),
                    shape,
                    pose,
                    Motion::ZERO,
                    10.0,
                    cast_options.target_distance,
                    &opts,
                )
                .unwrap();
                let t = Target::Object(h);
                if c.answer.hit
                    && best.is_none_or(|(u, g)| c.answer.toi < u || (c.answer.toi == u && t < g))
                {
                    best = Some((c.answer.toi, t));
                }
            }
            assert_eq!(got.map(|g| (g.cast.toi, g.target)), best, "{label}: cast");

            // A point above or below the ground, and a box around it.
            let p = v(
                rng.range(0.0, 8.0),
                rng.range(-1.5, 2.0),
                rng.range(0.0, 8.0),
            );
            let point = Collider::from(Shape::Point(PointShape::ORIGIN));
            let at = Pose::from_translation(p).unwrap();
            let mut want: Vec<Target> = w
                .iter()
                .filter(|(_, s, pose)| compound::intersects(s, pose, &point, &at, &opts).is_some())
                .map(|(h, _, _)| Target::Object(h))
                .collect();
            for (h, fixed, pose) in statics.iter().filter(|_| sees_ground) {
                if static_dispatch::intersects(fixed, pose, &point, &at, &opts) {
                    want.push(Target::Static(*h));
                }
            }
            assert_eq!(
                w.intersect_point(p, &filter).unwrap(),
                want,
                "{label}: point"
            );
            let half = v(0.3, 0.3, 0.3);
            let cube = Collider::from(Shape::from(Cuboid::new(half).unwrap()));
            let mut want: Vec<Target> = w
                .iter()
                .filter(|(_, s, pose)| compound::intersects(s, pose, &cube, &at, &opts).is_some())
                .map(|(h, _, _)| Target::Object(h))
                .collect();
            for (h, fixed, pose) in statics.iter().filter(|_| sees_ground) {
                if static_dispatch::intersects(fixed, pose, &cube, &at, &opts) {
                    want.push(Target::Static(*h));
                }
            }
            let aabb = minkowski::bounding::Aabb::new(p - half, p + half);
            assert_eq!(
                w.intersect_aabb(&aabb, &filter).unwrap(),
                want,
                "{label}: box"
            );
        }
        // Both kinds of hit happen.
        assert!(
            static_hits > 20 && object_hits > 5,
            "{static_hits} {object_hits}"
        );
    }
}

/// A world without statics: no static contacts or events, no static work, and the
/// queries answer objects only.
#[test]
fn a_world_without_statics_has_no_static_work() {
    let mut w = World::new(BroadPhaseKind::SweepAndPrune, WorldOptions::default());
    let a = w
        .insert(Shape::from(Sphere::new(1.0).unwrap()), Pose::IDENTITY)
        .unwrap();
    w.insert(
        Shape::from(Sphere::new(1.0).unwrap()),
        Pose::from_translation(v(1.5, 0.0, 0.0)).unwrap(),
    )
    .unwrap();
    w.update();
    assert_eq!(w.contacts().len(), 1);
    assert!(w.static_contacts().is_empty() && w.static_events().is_empty());
    assert_eq!(w.timings().static_objects, 0);
    assert_eq!(w.static_count(), 0);
    let hit = w
        .cast_ray(
            &Ray::new(v(-5.0, 0.0, 0.0), Vector::X),
            &RayOptions::default(),
            &QueryFilter::new(),
        )
        .unwrap()
        .unwrap();
    assert_eq!(hit.target, Target::Object(a));
    assert_eq!(hit.target.object(), Some(a));
    assert_eq!(hit.target.fixed(), None);
    w.verify(1e-4).unwrap();
}
