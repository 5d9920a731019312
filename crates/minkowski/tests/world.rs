//! The collision world against an all-pairs narrow phase, for every broad phase, with
//! insertions, coherent motion, jumps and removals; events against the contact sets.
#![allow(clippy::unnecessary_cast)] // `as Real` / `as f64` are no-ops in one build

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use std::collections::BTreeSet;

use common::Rng;
use minkowski::query::compound::Collider;
use minkowski::shape::{Capsule, Compound, ConvexPolyhedron, Cuboid, Shape, Sphere};
use minkowski::world::{
    BroadPhaseKind, ContactEvent, ObjectHandle, World, WorldError, WorldOptions,
};
use minkowski::{Pose, Real, Rotation, Vector};

fn v(x: f64, y: f64, z: f64) -> Vector {
    Vector::new(x as Real, y as Real, z as Real)
}

fn random_shape(rng: &mut Rng) -> Collider {
    if rng.below(5) == 0 {
        // A compound of two or three convex parts.
        let parts = (0..2 + rng.below(2))
            .map(|_| {
                let p = Pose::new(
                    rng.rotation(),
                    v(rng.range(-0.6, 0.6), rng.range(-0.6, 0.6), 0.0),
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
    let s = rng.range(0.3, 1.0);
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

fn random_pose(rng: &mut Rng, extent: f64) -> Pose {
    let q = rng.rotation();
    Pose::new(
        q,
        v(
            rng.range(-extent, extent),
            rng.range(-extent, extent),
            rng.range(-extent, extent),
        ),
    )
    .unwrap()
}

fn contact_set(w: &World) -> BTreeSet<(u32, u32)> {
    w.contacts()
        .iter()
        .map(|c| (c.a.index(), c.b.index()))
        .collect()
}

fn check_against_brute_force(w: &World, label: &str) -> usize {
    let got = contact_set(w);
    let want: BTreeSet<(u32, u32)> = w
        .brute_force_contacts()
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    // Pairs the two disagree on must be touching within GJK's tolerance (warm-started
    // and cold GJK may round a touching pair either way).
    let mut ambiguous = 0;
    for &(a, b) in got.symmetric_difference(&want) {
        let c = w
            .contacts()
            .iter()
            .find(|c| (c.a.index(), c.b.index()) == (a, b))
            .and_then(|c| c.contact);
        let d = match c {
            Some(c) => c.distance,
            None => {
                let bf = w.brute_force_contacts();
                bf.iter()
                    .find(|(p, _)| *p == (a, b))
                    .and_then(|(_, c)| *c)
                    .map_or(0.0, |c| c.distance)
            }
        };
        assert!(
            d.abs() <= 1e-4,
            "{label}: pair ({a}, {b}) differs, distance {d}"
        );
        ambiguous += 1;
    }
    ambiguous
}

fn run(kind: BroadPhaseKind, parallel: bool, seed: u64) -> Vec<BTreeSet<(u32, u32)>> {
    run_with(
        kind,
        WorldOptions {
            parallel,
            ..Default::default()
        },
        seed,
    )
}

fn run_with(kind: BroadPhaseKind, options: WorldOptions, seed: u64) -> Vec<BTreeSet<(u32, u32)>> {
    let mut rng = Rng::new(seed);
    let mut w = World::new(kind, options);
    let mut handles: Vec<(ObjectHandle, Pose, Vector)> = Vec::new();
    for _ in 0..150 {
        let pose = random_pose(&mut rng, 6.0);
        let h = w.insert(random_shape(&mut rng), pose).unwrap();
        let d = rng.dir() * 0.08;
        handles.push((h, pose, v(d.x, d.y, d.z)));
    }
    let mut history = Vec::new();
    let mut before: BTreeSet<(u32, u32)> = BTreeSet::new();
    for frame in 0..40 {
        w.update();
        let label = format!("{kind:?} frame {frame}");
        assert!(
            check_against_brute_force(&w, &label) <= 2,
            "{label}: too many ties"
        );
        let now = contact_set(&w);
        // Events: started = now − before, stopped = before − now, ongoing = both.
        let (mut started, mut ongoing, mut stopped) =
            (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
        for e in w.events() {
            match *e {
                ContactEvent::Started(a, b) => started.insert((a.index(), b.index())),
                ContactEvent::Ongoing(a, b) => ongoing.insert((a.index(), b.index())),
                ContactEvent::Stopped(a, b) => stopped.insert((a.index(), b.index())),
            };
        }
        assert_eq!(
            started,
            now.difference(&before).copied().collect(),
            "{label}"
        );
        assert_eq!(
            ongoing,
            now.intersection(&before).copied().collect(),
            "{label}"
        );
        assert_eq!(
            stopped,
            before.difference(&now).copied().collect(),
            "{label}"
        );
        history.push(now.clone());
        before = now;
        // Coherent motion, an occasional jump, removals and insertions; moved one by one
        // on even frames, as one batch on odd ones.
        for (h, pose, vel) in handles.iter_mut() {
            let jump = rng.below(50) == 0;
            let step = if jump {
                v(rng.range(-6.0, 6.0), 0.0, 0.0)
            } else {
                *vel
            };
            *pose = Pose::new(
                (Rotation::from_axis_angle(Vector::Y, 0.02) * pose.rotation()).normalize(),
                pose.translation() + step,
            )
            .unwrap();
            if frame % 2 == 0 {
                w.set_pose(*h, *pose).unwrap();
            }
        }
        if frame % 2 == 1 {
            let moves: Vec<(ObjectHandle, Pose)> = handles.iter().map(|m| (m.0, m.1)).collect();
            w.set_poses(&moves).unwrap();
        }
        if frame % 7 == 3 {
            let k = rng.below(handles.len());
            let (h, _, _) = handles.swap_remove(k);
            w.remove(h).unwrap();
            assert_eq!(w.remove(h), Err(WorldError::StaleHandle));
            assert!(w.get(h).is_err());
            let pose = random_pose(&mut rng, 6.0);
            let nh = w.insert(random_shape(&mut rng), pose).unwrap();
            assert_ne!(nh, h, "a reused slot gets a new generation");
            handles.push((nh, pose, Vector::ZERO));
        }
    }
    history
}

#[test]
fn world_contacts_equal_all_pairs_for_every_broad_phase() {
    let kinds = [
        BroadPhaseKind::Grid { cell_size: 2.0 },
        BroadPhaseKind::SweepAndPrune,
        BroadPhaseKind::Tree { fat_factor: 0.1 },
    ];
    let reference = run(kinds[0], false, 3);
    let touching: usize = reference.iter().map(|s| s.len()).sum();
    assert!(
        touching > 200,
        "scenes too sparse: {touching} contacts over 40 frames"
    );
    for kind in kinds {
        for parallel in [false, true] {
            assert_eq!(
                run(kind, parallel, 3),
                reference,
                "{kind:?} parallel={parallel}"
            );
        }
    }
    // Without contact details the same pairs touch.
    let boolean = WorldOptions {
        contact_details: false,
        ..Default::default()
    };
    assert_eq!(
        run_with(kinds[2], boolean, 3),
        reference,
        "without contact details"
    );
}

#[test]
fn contact_margin_reports_near_pairs() {
    // With a margin, pairs closer than it are in contact too (with and without details).
    for details in [true, false] {
        let opts = WorldOptions {
            contact_margin: 0.5,
            contact_details: details,
            ..Default::default()
        };
        let mut w = World::new(BroadPhaseKind::SweepAndPrune, opts);
        let s: Shape = Sphere::new(1.0).unwrap().into();
        let a = w.insert(s.clone(), Pose::IDENTITY).unwrap();
        let b = w
            .insert(s.clone(), Pose::from_translation(v(2.4, 0.0, 0.0)).unwrap())
            .unwrap();
        let _far = w
            .insert(s, Pose::from_translation(v(5.0, 0.0, 0.0)).unwrap())
            .unwrap();
        w.update();
        let pairs: Vec<_> = w.contacts().iter().map(|c| (c.a, c.b)).collect();
        assert_eq!(pairs, vec![(a, b)], "details {details}");
        if details {
            let d = w.contacts()[0].contact.unwrap().distance;
            assert!((d - 0.4).abs() < 1e-5, "{d}");
        }
    }
}

#[test]
fn bad_world_calls_are_typed_errors() {
    let mut w = World::new(BroadPhaseKind::SweepAndPrune, WorldOptions::default());
    let s: Shape = Sphere::new(1.0).unwrap().into();
    let h = w.insert(s.clone(), Pose::IDENTITY).unwrap();
    // A pose beyond the magnitude limit (or NaN) cannot be built, so it cannot reach
    // the world: the world once refused it here, Pose::new now does.
    assert!(Pose::from_translation(Vector::splat(Real::MAX)).is_err());
    assert!(Pose::from_translation(Vector::new(Real::NAN, 0.0, 0.0)).is_err());
    // A batch with one bad move (a stale handle) moves nothing and names the bad one.
    let h2 = w.insert(s, Pose::IDENTITY).unwrap();
    let to = Pose::from_translation(Vector::X).unwrap();
    w.remove(h2).unwrap();
    assert_eq!(
        w.set_poses(&[(h, to), (h2, to)]),
        Err((1, WorldError::StaleHandle))
    );
    assert_eq!(
        w.get(h).unwrap().1,
        &Pose::IDENTITY,
        "a refused batch moves nothing"
    );
    w.set_poses(&[(h2, to), (h, to)]).unwrap_err();
    w.set_poses(&[(h, Pose::IDENTITY), (h, to)]).unwrap();
    assert_eq!(w.get(h).unwrap().1, &to, "the last move of a handle wins");
    w.remove(h).unwrap();
    assert_eq!(w.set_pose(h, Pose::IDENTITY), Err(WorldError::StaleHandle));
    w.update();
    assert!(w.contacts().is_empty() && w.is_empty());
    // The next object reuses the slot: the old handle names neither it nor anything else.
    let ball = Shape::from(Sphere::new(0.25).unwrap());
    let h3 = w.insert(ball.clone(), to).unwrap();
    assert_eq!(h3.index(), h.index());
    assert_ne!(h3, h);
    assert_eq!(w.get(h).err(), Some(WorldError::StaleHandle));
    assert_eq!(w.set_pose(h, Pose::IDENTITY), Err(WorldError::StaleHandle));
    assert_eq!(
        w.set_poses(&[(h3, to), (h, to)]),
        Err((1, WorldError::StaleHandle))
    );
    assert_eq!(w.remove(h).err(), Some(WorldError::StaleHandle));
    let (shape, pose) = w.get(h3).unwrap();
    assert_eq!((shape, pose), (&Collider::from(ball.clone()), &to));
    assert_eq!(w.remove(h3).ok(), Some(Collider::from(ball)));
    assert_eq!(w.get(h3).err(), Some(WorldError::StaleHandle));
}

/// A pair proved apart carries its separation to later updates and is not tested while
/// its objects have moved less than that in all. Every way an object can change under a
/// carried separation must still find the contact: a large step, a pure rotation, two
/// moves in one batch, and a removed object whose slot a new one takes before the
/// update.
#[test]
fn carried_separations_never_hide_a_contact() {
    let sphere: Shape = Sphere::new(1.0).unwrap().into();
    let at = |x: f64, y: f64| Pose::from_translation(v(x, y, 0.0)).unwrap();
    for parallel in [false, true] {
        let opts = WorldOptions {
            parallel,
            ..Default::default()
        };
        let mut w = World::new(BroadPhaseKind::Grid { cell_size: 3.0 }, opts);
        // Boxes overlap, spheres 2.263 apart (gap 0.263).
        let a = w.insert(sphere.clone(), at(0.0, 0.0)).unwrap();
        let b = w.insert(sphere.clone(), at(1.6, 1.6)).unwrap();
        w.update();
        assert!(w.contacts().is_empty());
        assert_eq!(w.timings().pairs, 1);
        // A small step keeps the pair apart: not tested.
        w.set_pose(b, at(1.59, 1.6)).unwrap();
        w.update();
        assert!(w.contacts().is_empty());
        assert_eq!(w.timings().skipped, 1, "the carried separation is used");
        // A step larger than what is left: tested, and in contact.
        w.set_pose(b, at(1.3, 1.3)).unwrap();
        w.update();
        assert_eq!(w.contacts().len(), 1);
        assert_eq!(w.timings().skipped, 0);
        // Back apart, and a frame to carry the separation again.
        let apart_again = |w: &mut World| {
            w.set_pose(b, at(1.6, 1.6)).unwrap();
            w.update();
            w.update();
            assert_eq!((w.contacts().len(), w.timings().skipped), (0, 1));
        };
        // Two moves in one batch: away, then into contact.
        apart_again(&mut w);
        w.set_poses(&[(b, at(1.62, 1.62)), (b, at(1.2, 1.2))])
            .unwrap();
        w.update();
        assert_eq!(w.contacts().len(), 1, "two moves in one batch");
        // Two single moves before one update: a jump into contact and a small step from
        // there (their sum, not the last, bounds the motion).
        apart_again(&mut w);
        w.set_pose(b, at(1.2, 1.2)).unwrap();
        w.set_pose(b, at(1.25, 1.25)).unwrap();
        w.update();
        assert_eq!(w.contacts().len(), 1, "two moves before an update");
        // b is removed and a new sphere takes its slot, touching a.
        apart_again(&mut w);
        w.remove(b).unwrap();
        let c = w.insert(sphere.clone(), at(1.2, 1.2)).unwrap();
        assert_eq!(c.index(), b.index(), "the slot is reused");
        w.update();
        assert_eq!(w.contacts().len(), 1, "a new object in a reused slot");
        assert_eq!((w.contacts()[0].a, w.contacts()[0].b), (a, c));
        // A pure rotation: a long box turning about its centre into a sphere that
        // stayed put, from 30° (gap 0.43) to 60° about z.
        let mut w = World::new(BroadPhaseKind::Grid { cell_size: 3.0 }, opts);
        let rod: Shape = Cuboid::new(v(2.0, 0.1, 0.1)).unwrap().into();
        let turned = |deg: f64| {
            Pose::from_rotation(Rotation::from_rotation_z(deg.to_radians() as Real)).unwrap()
        };
        let r = w.insert(rod, turned(30.0)).unwrap();
        let small: Shape = Sphere::new(0.3).unwrap().into();
        let s = w.insert(small, at(0.6, 1.3)).unwrap();
        w.update();
        assert_eq!((w.contacts().len(), w.timings().pairs), (0, 1));
        w.set_pose(r, turned(31.0)).unwrap();
        w.update();
        assert_eq!((w.contacts().len(), w.timings().skipped), (0, 1));
        w.set_pose(r, turned(60.0)).unwrap();
        w.update();
        assert_eq!(w.contacts().len(), 1, "a rotation into contact");
        assert_eq!((w.contacts()[0].a, w.contacts()[0].b), (r, s));
    }
}

/// The world's first narrow-phase test rejects pairs whose bounding balls are apart. Pairs
/// that touch exactly where their balls touch — cubes corner to corner along their
/// diagonal, and polyhedra vertex to vertex — at sizes 10^-2 … 10^2 and up to 10^4 sizes
/// from the origin, must still reach GJK: every pair the all-pairs narrow phase finds in
/// contact must be a world contact.
#[test]
fn pairs_touching_where_their_balls_touch_are_contacts() {
    let mut rng = Rng::new(0xb411);
    let hull = ConvexPolyhedron::new(
        common::fibonacci(60)
            .into_iter()
            .map(|d| v(d.x, d.y, d.z))
            .collect(),
    )
    .unwrap();
    let mut found = 0;
    for scale in [0.01, 1.0, 100.0] {
        for far in [0.0, 1e3, 1e4] {
            let mut w = World::new(
                BroadPhaseKind::Grid { cell_size: 0.0 },
                WorldOptions {
                    contact_details: false,
                    ..Default::default()
                },
            );
            for k in 0..40 {
                let origin = common::v3(rng.dir() * far * scale);
                // Gap along the line of centres: exactly 0, or a hair in or out.
                let gap = [0.0, 1e-9, -1e-9, 1e-7][k % 4] * scale;
                let (a, b, half_span): (Shape, Shape, Vector) = if k % 2 == 0 {
                    let h = v(1.0, 0.5, 0.25) * scale as Real;
                    let c: Shape = Cuboid::new(h).unwrap().into();
                    (c.clone(), c, h)
                } else {
                    // Vertex 0 of the hull, and the opposite vertex of its point mirror.
                    let p = hull.points()[0];
                    let s = minkowski::shape::ConvexPolyhedron::new(
                        hull.points().iter().map(|q| *q * scale as Real).collect(),
                    )
                    .unwrap();
                    (s.clone().into(), s.into(), p * scale as Real)
                };
                let along = half_span.normalize() * gap as Real;
                let pa = Pose::from_translation(origin).unwrap();
                // B is A turned half a turn about an axis across the span, so B's copy of
                // the far corner (vertex) meets A's.
                // (The axis must be unit: glam's `any_orthonormal_vector` of the raw span
                // gave a quaternion of norm 1.025, a scaling "rotation" that Pose::new
                // now refuses.)
                let turn = Rotation::from_axis_angle(
                    half_span.normalize().any_orthonormal_vector(),
                    std::f64::consts::PI as Real,
                );
                let pb = Pose::new(turn, origin + half_span * 2.0 + along).unwrap();
                w.insert(a, pa).unwrap();
                w.insert(b, pb).unwrap();
            }
            w.update();
            let got = contact_set(&w);
            for ((a, b), _) in w.brute_force_contacts() {
                assert!(
                    got.contains(&(a, b)),
                    "scale {scale}, far {far}: pair ({a}, {b}) missing"
                );
                found += 1;
            }
        }
    }
    assert!(found >= 100, "{found}");
}

/// A compound of `n` random convex parts about its origin.
fn random_compound(rng: &mut Rng, n: usize) -> Collider {
    let parts = (0..n)
        .map(|_| {
            let t = rng.dir() * rng.range(0.0, 0.8);
            (
                Pose::new(rng.rotation(), v(t.x, t.y, t.z)).unwrap(),
                random_convex(rng),
            )
        })
        .collect();
    Compound::new(parts).unwrap().into()
}

/// Warm starts per part pair (the world keeps a cache per compound pair) change no
/// answer beyond the convex queries' tolerance: compounds of 2 to 12 parts (and some
/// convex shapes) moving coherently through each other for 30 frames, with and without
/// contact details and a contact margin. Every frame, the contact set equals an
/// all-pairs cold narrow phase (bar pairs touching within tolerance), and every contact
/// with a compound has the signed distance of a cold `compound::contact` and, unless
/// two part pairs tie within tolerance, its parts. The warm runs take fewer iterations
/// than the cold queries.
#[test]
fn compound_warm_starts_agree_with_cold_queries() {
    use minkowski::query::compound;
    use minkowski::query::QueryOptions;
    let tol = 10.0 * common::REL_TOL as Real;
    let variants = [
        (0.0, true, false),
        (0.0, true, true),
        (0.1, true, false),
        (0.1, false, false),
    ];
    for (margin, details, parallel) in variants {
        let label = format!("margin {margin}, details {details}, parallel {parallel}");
        let mut rng = Rng::new(0xc0ca);
        let mut w = World::new(
            BroadPhaseKind::SweepAndPrune,
            WorldOptions {
                contact_margin: margin,
                contact_details: details,
                parallel,
                ..Default::default()
            },
        );
        let mut objects = Vec::new();
        for k in 0..40 {
            let shape = if k % 4 == 3 {
                random_convex(&mut rng).into()
            } else {
                let n = 2 + rng.below(11);
                random_compound(&mut rng, n)
            };
            let pose = random_pose(&mut rng, 3.0);
            let h = w.insert(shape, pose).unwrap();
            let d = rng.dir() * 0.03;
            objects.push((h, pose, v(d.x, d.y, d.z)));
        }
        let opts = QueryOptions::default();
        let (mut checked, mut warm_iterations, mut cold_iterations) = (0, 0, 0);
        for frame in 0..30 {
            w.update();
            let label = format!("{label}, frame {frame}");
            assert!(
                check_against_brute_force(&w, &label) <= 2,
                "{label}: too many ties"
            );
            for c in w.contacts() {
                let ((sa, pa), (sb, pb)) = (w.get(c.a).unwrap(), w.get(c.b).unwrap());
                if matches!((sa, sb), (Collider::Convex(_), Collider::Convex(_))) {
                    continue;
                }
                let cold = compound::contact(sa, pa, sb, pb, &opts);
                let Some(warm) = c.contact else {
                    // Without details: the pair is within the margin, cold too.
                    assert!(cold.answer.distance <= margin + tol, "{label}");
                    continue;
                };
                checked += 1;
                warm_iterations += warm.iterations;
                cold_iterations += cold.answer.iterations;
                let scale = 1.0 + cold.answer.distance.abs();
                assert!(
                    (warm.distance - cold.answer.distance).abs() <= tol * scale,
                    "{label}: warm {} cold {}",
                    warm.distance,
                    cold.answer.distance
                );
                if (c.part_a, c.part_b) != (cold.part_a, cold.part_b) {
                    // A tie: the world's part pair, asked cold, is as deep.
                    let part = |s: &Collider, p: &Pose, i: Option<u32>| match s {
                        Collider::Convex(s) => (s.clone(), *p),
                        Collider::Compound(k) => {
                            let (q, s) = &k.parts()[i.unwrap() as usize];
                            (s.clone(), p.mul(q))
                        }
                    };
                    let (xa, qa) = part(sa, pa, c.part_a);
                    let (xb, qb) = part(sb, pb, c.part_b);
                    let d = minkowski::query::contact(&xa, &qa, &xb, &qb).distance;
                    assert!(
                        (d - cold.answer.distance).abs() <= tol * scale,
                        "{label}: parts {:?} at {d}, cold parts {:?} at {}",
                        (c.part_a, c.part_b),
                        (cold.part_a, cold.part_b),
                        cold.answer.distance
                    );
                }
            }
            // Coherent motion: a small step and turn per frame, bouncing off the walls.
            for (h, pose, vel) in objects.iter_mut() {
                let t = pose.translation() + *vel;
                if t.abs().max_element() > 3.0 {
                    *vel = -*vel;
                }
                *pose = Pose::new(
                    (Rotation::from_axis_angle(Vector::Y, 0.015) * pose.rotation()).normalize(),
                    t,
                )
                .unwrap();
                w.set_pose(*h, *pose).unwrap();
            }
        }
        if details {
            assert!(
                checked > 300,
                "{label}: {checked} compound contacts checked"
            );
            assert!(
                warm_iterations < cold_iterations,
                "{label}: warm {warm_iterations} iterations, cold {cold_iterations}"
            );
            eprintln!(
                "{label}: {checked} compound contacts, iterations warm {warm_iterations} cold {cold_iterations}"
            );
        }
    }
}
