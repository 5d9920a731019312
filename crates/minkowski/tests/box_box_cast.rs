//! The closed-form linear cast of two boxes (`query/box_box_cast.rs`, the separating-axis
//! theorem over time) against two independent answers: an exact f64 oracle — the signed
//! gap of the two vertex sets over every face, edge-pair, vertex-pair and edge–vertex
//! direction (`common::poly_oracle`), convex in time, sampled then bisected for its first
//! root — and the GJK ray cast of the same boxes given as hulls of their corners. The
//! cases are seeded and built for the hard branches: random poses (edge–edge and
//! face–vertex contacts), parallel faces (equal rotations, quarter turns), edges nearly
//! parallel (angles from 1e-9 to 1e-1 rad, across the dropped / handed-back / kept
//! bands), touching at the start (approaching and sliding), overlapping at the start,
//! misses, zero motion, and scales from 1e-3 to 1e3 with the pair far from the origin.
#![allow(clippy::unnecessary_cast)] // `as f64` is a no-op in the f64 build

#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::*;
use glam::DVec3;
use minkowski::query::{cast_shapes, CastInput, CastStart, Motion, QueryOptions, ShapePair};
use minkowski::shape::{ConvexPolyhedron, Cuboid, Shape};
use minkowski::{Pose, Real, Rotation, Vector};

/// The kinds of case, each aimed at one branch.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Random,
    ParallelFaces,
    NearParallel,
    TouchingApproach,
    TouchingSlide,
    Overlapping,
    Miss,
    ZeroMotion,
}

const KINDS: [Kind; 8] = [
    Kind::Random,
    Kind::ParallelFaces,
    Kind::NearParallel,
    Kind::TouchingApproach,
    Kind::TouchingSlide,
    Kind::Overlapping,
    Kind::Miss,
    Kind::ZeroMotion,
];

/// The world corners of a box.
fn corners(c: &Cuboid, pose: &Pose) -> Vec<DVec3> {
    c.vertices()
        .iter()
        .map(|v| d3(pose.transform_point(*v)))
        .collect()
}

/// The oracle's signed gap of A and B moved by `rel · t`.
fn gap_at(va: &[DVec3], vb: &[DVec3], rel: DVec3, t: f64) -> f64 {
    let moved: Vec<DVec3> = vb.iter().map(|p| *p + rel * t).collect();
    poly_oracle(va, &moved).0
}

/// The first `t` in `[0, t_max]` with `f(t) ≤ 0` for a convex `f` (64 samples, a
/// golden-section search for the minimum between them, then bisection), and the least
/// value of `f` found.
fn first_root(f: impl Fn(f64) -> f64, t_max: f64) -> (Option<f64>, f64) {
    if f(0.0) <= 0.0 {
        return (Some(0.0), f(0.0));
    }
    let n = 64;
    let mut prev = 0.0;
    let mut hi = None;
    for i in 1..=n {
        let t = t_max * i as f64 / n as f64;
        if f(t) <= 0.0 {
            hi = Some(t);
            break;
        }
        prev = t;
    }
    let mut least = f(t_max);
    if hi.is_none() {
        let g = 0.5 * (5f64.sqrt() - 1.0);
        let (mut lo, mut up) = (0.0, t_max);
        for _ in 0..100 {
            let (m1, m2) = (up - g * (up - lo), lo + g * (up - lo));
            if f(m1) < f(m2) {
                up = m2;
            } else {
                lo = m1;
            }
        }
        let m = 0.5 * (lo + up);
        least = least.min(f(m));
        if f(m) > 0.0 {
            return (None, least);
        }
        prev = t_max * ((m / t_max * n as f64).floor() / n as f64);
        hi = Some(m);
    }
    let (mut lo, mut up) = (prev, hi.unwrap_or(t_max));
    for _ in 0..80 {
        let mid = 0.5 * (lo + up);
        if f(mid) <= 0.0 {
            up = mid;
        } else {
            lo = mid;
        }
    }
    (Some(up), least.min(0.0))
}

/// A rotation by `angle` about a random axis.
fn turn(rng: &mut Rng, angle: f64) -> Rotation {
    let axis = rng.dir();
    let q = glam::DQuat::from_axis_angle(axis, angle);
    Rotation::from_xyzw(q.x as Real, q.y as Real, q.z as Real, q.w as Real).normalize()
}

/// Distance from `p` to the box `c` at `pose` (0 inside), in f64.
fn outside(c: &Cuboid, pose: &Pose, p: DVec3) -> f64 {
    let q = pose.rotation();
    let dq = glam::DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64);
    let local = dq.inverse() * (p - d3(pose.translation()));
    let h = d3(c.half_extents());
    (local.abs() - h).max(DVec3::ZERO).length()
}

struct Case {
    a: Cuboid,
    b: Cuboid,
    pose_a: Pose,
    pose_b: Pose,
    vel_b: DVec3,
    t_max: f64,
    size: f64,
}

fn make_case(rng: &mut Rng, kind: Kind, size: f64) -> Case {
    let h = |rng: &mut Rng| {
        v3(DVec3::new(
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
            rng.range(0.2, 1.0),
        ) * size)
    };
    let (a, b) = (Cuboid::new(h(rng)).unwrap(), Cuboid::new(h(rng)).unwrap());
    // Far from the origin at the larger scales.
    // (Shapes placed touching stay near it: rounding there would make them overlap.)
    let far = match kind {
        Kind::TouchingApproach | Kind::TouchingSlide | Kind::Overlapping => 1.0,
        _ => 100.0,
    };
    let origin = rng.dir() * size * rng.range(0.0, far);
    let rot_a = rng.rotation();
    let pose_a = Pose::new(rot_a, v3(origin)).unwrap();
    let rot_b = match kind {
        Kind::ParallelFaces => {
            let quarter = [
                glam::DQuat::IDENTITY,
                glam::DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2),
                glam::DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2),
            ][rng.below(3)];
            let q = Rotation::from_xyzw(
                quarter.x as Real,
                quarter.y as Real,
                quarter.z as Real,
                quarter.w as Real,
            );
            (rot_a * q).normalize()
        }
        Kind::NearParallel => {
            let angle = 10f64.powf(rng.range(-9.0, -1.0));
            (rot_a * turn(rng, angle)).normalize()
        }
        _ => rng.rotation(),
    };
    let ra = d3(a.half_extents()).length();
    let rb = d3(b.half_extents()).length();
    let (pos_b, vel_b) = match kind {
        Kind::TouchingApproach | Kind::TouchingSlide | Kind::Overlapping => {
            // B resting on A's top face (A's local +y), or sunk into it.
            let local_up = d3(pose_a.transform_vector(Vector::Y));
            let sink = if kind == Kind::Overlapping { 0.3 } else { 0.0 };
            let hb = d3(b.half_extents());
            // B gets A's rotation (below): its extent along A's y is hb.y.
            let up = d3(a.half_extents()).y + hb.y * (1.0 - sink);
            let along = d3(pose_a.transform_vector(Vector::X));
            let pos = origin + local_up * up + along * rng.range(-0.2, 0.2) * size;
            let vel = match kind {
                Kind::TouchingSlide => along * size,
                _ => -local_up * size + along * rng.range(-0.5, 0.5) * size,
            };
            (pos, vel)
        }
        _ => {
            let pos = origin + rng.dir() * (ra + rb) * rng.range(1.2, 2.0);
            let aim = origin + rng.dir() * size * rng.range(0.0, 0.8);
            let vel = match kind {
                Kind::Miss => (pos - aim) * rng.range(0.5, 2.0),
                Kind::ZeroMotion => DVec3::ZERO,
                _ => (aim - pos) * rng.range(0.5, 2.0),
            };
            (pos, vel)
        }
    };
    let rot_b = match kind {
        Kind::TouchingApproach | Kind::TouchingSlide | Kind::Overlapping => rot_a,
        _ => rot_b,
    };
    Case {
        a,
        b,
        pose_a,
        pose_b: Pose::new(rot_b, v3(pos_b)).unwrap(),
        vel_b,
        t_max: 1.0,
        size,
    }
}

#[test]
fn box_casts_match_the_exact_oracle_and_the_gjk_cast() {
    let mut rng = Rng::new(0xb0c5);
    let opts = QueryOptions::default();
    let mut hits = 0;
    let mut edge_normals = 0;
    let mut starts = [0; 2];
    for case in 0..400 {
        let kind = KINDS[case % KINDS.len()];
        let size = [1e-3, 1.0, 1e3][(case / KINDS.len()) % 3];
        let c = make_case(&mut rng, kind, size);
        let (sa, sb) = (Shape::from(c.a), Shape::from(c.b));
        let mut input = CastInput::new(
            ShapePair::new(&sa, c.pose_a, &sb, c.pose_b),
            Motion::ZERO,
            Motion::linear(v3(c.vel_b)),
        );
        input.max_toi = r(c.t_max);
        let got = cast_shapes(&input, &opts).unwrap();
        // The same boxes as hulls of their corners: the GJK ray cast.
        let (ha, hb) = (
            Shape::from(ConvexPolyhedron::new(c.a.vertices().to_vec()).unwrap()),
            Shape::from(ConvexPolyhedron::new(c.b.vertices().to_vec()).unwrap()),
        );
        let mut hull_input = input;
        hull_input.pair = ShapePair::new(&ha, c.pose_a, &hb, c.pose_b);
        let gjk = cast_shapes(&hull_input, &opts).unwrap();

        let va = corners(&c.a, &c.pose_a);
        let vb = corners(&c.b, &c.pose_b);
        let rel = d3(input.motion_b.linear);
        let scale = c.size * (1.0 + d3(c.pose_a.translation()).length() / c.size).min(200.0);
        let tol = REL_TOL * scale;
        let what = format!(
            "case {case} {kind:?} size {}: got {got:?}, gjk {gjk:?}",
            c.size
        );

        // Starts: the same rules as the GJK cast's.
        if matches!(
            kind,
            Kind::TouchingApproach | Kind::TouchingSlide | Kind::Overlapping
        ) {
            // (Not compared with the hulls' answer: their contact queries differ by
            // rounding on whether a touching pair overlaps.)
            match kind {
                Kind::Overlapping => {
                    assert_eq!(got.start, CastStart::Overlapping, "{what}");
                    assert!(got.hit && got.toi == 0.0, "{what}");
                }
                // Placed touching, rounding may leave them a hair apart or overlapping.
                _ if got.start == CastStart::Overlapping => {
                    assert!(got.initial_distance.unwrap_or(0.0) as f64 >= -tol, "{what}");
                }
                Kind::TouchingSlide => assert!(!got.hit, "{what}"),
                _ => assert!(got.hit && got.toi == 0.0, "{what}"),
            }
            starts[(kind == Kind::Overlapping) as usize] += 1;
            continue;
        }

        let f = |t: f64| gap_at(&va, &vb, rel, t);
        let (root, least) = first_root(f, c.t_max);
        match root {
            None => {
                if least < 4.0 * tol {
                    continue; // grazing: either answer is right
                }
                assert!(!got.hit, "oracle misses (least gap {least}); {what}");
                assert!(!gjk.hit, "{what}");
            }
            Some(t) => {
                let speed = rel.length();
                if t == 0.0 || (speed * c.t_max < 4.0 * tol) {
                    continue;
                }
                assert!(got.hit, "oracle hits at {t}; {what}");
                assert!(gjk.hit, "{what}");
                hits += 1;
                let toi = got.toi as f64;
                // Never after contact, and in contact within the tolerance.
                assert!((toi - t) * speed <= tol, "toi {toi} after {t}; {what}");
                let g = f(toi);
                assert!(g.abs() <= tol, "gap {g} at toi; {what}");
                assert!(
                    (toi - gjk.toi as f64).abs() * speed <= 2.0 * tol,
                    "toi {toi} vs GJK's; {what}"
                );
                // The normal separates the boxes at toi (to within the tolerance).
                let n = d3(got.normal);
                assert!((n.length() - 1.0).abs() < 1e-5, "{what}");
                let moved: Vec<DVec3> = vb.iter().map(|p| *p + rel * toi).collect();
                let h =
                    |vs: &[DVec3], d: DVec3| vs.iter().map(|p| p.dot(d)).fold(f64::MIN, f64::max);
                let along = -h(&va, n) - h(&moved, -n);
                assert!(along.abs() <= tol, "gap {along} along the normal; {what}");
                let local_n = d3(c.pose_a.inverse_transform_vector(got.normal));
                let pa_frame = local_n.abs().max_element();
                let qb = c.pose_b.rotation().inverse() * got.normal;
                if pa_frame < 0.999 && d3(qb).abs().max_element() < 0.999 {
                    edge_normals += 1;
                }
                // Witnesses on their boxes, touching.
                let pose_b_t = Pose::new(
                    c.pose_b.rotation(),
                    v3(d3(c.pose_b.translation()) + rel * toi),
                )
                .unwrap();
                let (pa, pb) = (d3(got.point_a), d3(got.point_b));
                assert!(outside(&c.a, &c.pose_a, pa) <= tol, "point_a off A; {what}");
                assert!(outside(&c.b, &pose_b_t, pb) <= tol, "point_b off B; {what}");
                assert!((pb - pa).length() <= 2.0 * tol, "witnesses apart; {what}");
            }
        }
    }
    assert!(hits > 120, "{hits} hits");
    assert!(edge_normals > 10, "{edge_normals} edge–edge contacts");
    assert!(starts[0] > 50 && starts[1] > 20, "{starts:?}");
}

#[test]
fn box_cast_along_a_face_slides_and_skins_take_the_gjk_path() {
    // A unit box resting on a wide slab, sliding along it: no hit, the start within.
    let slab = Shape::from(Cuboid::new(Vector::new(5.0, 0.5, 5.0)).unwrap());
    let cube = Shape::from(Cuboid::new(Vector::splat(0.5)).unwrap());
    let on_top = Pose::from_translation(Vector::new(0.0, 1.0, 0.0)).unwrap();
    let pair = ShapePair::new(&slab, Pose::IDENTITY, &cube, on_top);
    let opts = QueryOptions::default();
    let slide = CastInput::new(pair, Motion::ZERO, Motion::linear(Vector::X));
    let c = cast_shapes(&slide, &opts).unwrap();
    assert!(!c.hit, "{c:?}");
    assert_eq!(c.start, CastStart::WithinTarget);
    // Dropped from above onto it: a face contact at 0.5 (normal +y, witnesses on y = 0.5).
    let above = Pose::from_translation(Vector::new(0.3, 2.0, -0.2)).unwrap();
    let drop = CastInput::new(
        ShapePair::new(&slab, Pose::IDENTITY, &cube, above),
        Motion::ZERO,
        Motion::linear(Vector::new(0.0, -2.0, 0.0)),
    );
    let c = cast_shapes(&drop, &opts).unwrap();
    assert!(c.hit);
    let tol = 10.0 * REL_TOL;
    assert!((c.toi - 0.5).abs() < r(tol), "{c:?}");
    assert!(c.toi <= 0.5, "a lower bound: {c:?}");
    assert!((c.normal - Vector::Y).length() < 1e-6, "{c:?}");
    assert!(
        (c.point_a.y - 0.5).abs() < r(tol) && (c.point_b.y - 0.5).abs() < r(tol),
        "{c:?}"
    );
    // The same drop to a skin of 0.25: the GJK path, stopping 0.25 above the slab.
    let mut skin = drop;
    skin.target_distance = 0.25;
    let c = cast_shapes(&skin, &opts).unwrap();
    assert!(c.hit && (c.toi - 0.375).abs() < 1e-4, "{c:?}");
}
