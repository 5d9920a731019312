//! Query options that are NaN, negative, infinite, zero or huge (found by an audit of
//! the options structs, whose fields are public): every query still terminates with
//! finite numbers, its bracket still holds the answer of the default options within
//! the touching floor it was asked for, and `validate` names the offending field.
//!
//! Before the clamps: `max_iterations: 0` gave an infinite distance and a zero normal;
//! an infinite `abs_tolerance` a contact whose lower bound was `-inf`; and a NaN EPA
//! tolerance with `max_vertices: usize::MAX` grew the polytope until the process was
//! killed for memory.

#![allow(clippy::unnecessary_cast)] // `as f64` is a no-op in the f64 build

#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::{random_shape, v3, Rng, ALL_KINDS};
use minkowski::math::Vector2;
use minkowski::planar::{gjk2d, Shape2d};
use minkowski::query::epa::EpaOptions;
use minkowski::query::gjk::{GjkOptions, GjkVariant};
use minkowski::query::{
    self, cast_shapes, CastInput, CastStart, Motion, OptionsError, QueryOptions, ShapePair,
};
use minkowski::shape::{Ellipsoid, Shape};
use minkowski::tolerance::{self, MAX_EPA_VERTICES, MAX_GJK_ITERATIONS};
use minkowski::{Pose, Real, Vector};

/// Tolerances no caller should pass.
const BAD_TOLERANCES: [Real; 8] = [
    Real::NAN,
    -1.0,
    0.0,
    Real::INFINITY,
    Real::NEG_INFINITY,
    1e30,
    2.0,
    Real::MIN_POSITIVE,
];
const BAD_ITERATIONS: [u32; 4] = [0, 1, 2, u32::MAX];
const BAD_VERTICES: [usize; 6] = [0, 1, 3, 4, 5, usize::MAX];

fn hostile(rng: &mut Rng) -> QueryOptions {
    let mut pick = |n: usize| (rng.unit() * n as f64) as usize % n;
    QueryOptions {
        gjk: GjkOptions {
            max_iterations: BAD_ITERATIONS[pick(BAD_ITERATIONS.len())],
            rel_tolerance: BAD_TOLERANCES[pick(BAD_TOLERANCES.len())],
            abs_tolerance: BAD_TOLERANCES[pick(BAD_TOLERANCES.len())],
            variant: if pick(2) == 0 {
                GjkVariant::Plain
            } else {
                GjkVariant::Nesterov
            },
        },
        epa: EpaOptions {
            max_vertices: BAD_VERTICES[pick(BAD_VERTICES.len())],
            rel_tolerance: BAD_TOLERANCES[pick(BAD_TOLERANCES.len())],
            abs_tolerance: BAD_TOLERANCES[pick(BAD_TOLERANCES.len())],
        },
    }
}

fn finite(v: Vector) -> bool {
    v.is_finite()
}

#[test]
fn hostile_options_give_finite_answers_that_bracket_the_default_ones() {
    let mut rng = Rng::new(2026_1124);
    let kinds = ALL_KINDS.len();
    for case in 0..3000 {
        let ka = ALL_KINDS[case % kinds];
        let kb = ALL_KINDS[(case / kinds) % kinds];
        let (a, _) = random_shape(&mut rng, ka, 1.0);
        let (b, _) = random_shape(&mut rng, kb, 1.0);
        let pa = Pose::new(rng.rotation(), v3(rng.dir() * rng.unit())).unwrap();
        let pb = Pose::new(rng.rotation(), v3(rng.dir() * rng.unit() * 2.5)).unwrap();
        let o = hostile(&mut rng);
        let label = format!("case {case}: {ka}-{kb}, {o:?}");

        // The answer of sane options, and the slack the hostile ones may take: their
        // touching floors at this problem's scale (shapes of size 1, offsets up to 3.5).
        let reference = query::contact(&a, &pa, &b, &pb);
        let sigma = 8.0 as Real;
        let slack = 4.0
            * sigma
            * (tolerance::abs_tolerance(o.gjk.abs_tolerance)
                + tolerance::abs_tolerance(o.epa.abs_tolerance)
                + tolerance::rel_tolerance(o.gjk.rel_tolerance)
                + 1e-3);

        let d = query::distance_with(&a, &pa, &b, &pb, &o, None);
        assert!(
            d.distance.is_finite() && d.lower_bound.is_finite() && d.upper_bound.is_finite(),
            "{label}: {d:?}"
        );
        assert!(
            d.lower_bound <= reference.distance.max(0.0) + slack
                && d.upper_bound >= reference.distance.max(0.0) - slack,
            "{label}: {d:?} against {reference:?}"
        );

        let cp = query::closest_points_with(&a, &pa, &b, &pb, &o, None);
        assert!(
            cp.distance.is_finite()
                && finite(cp.point_a)
                && finite(cp.point_b)
                && finite(cp.normal),
            "{label}: {cp:?}"
        );
        if !cp.intersecting {
            assert!((cp.normal.length() - 1.0).abs() < 1e-3, "{label}: {cp:?}");
        }

        let c = query::contact_with(&a, &pa, &b, &pb, &o, None);
        assert!(
            c.distance.is_finite()
                && c.lower_bound.is_finite()
                && c.upper_bound.is_finite()
                && finite(c.point_a)
                && finite(c.point_b)
                && (c.normal.length() - 1.0).abs() < 1e-3,
            "{label}: {c:?}"
        );
        assert!(
            c.lower_bound <= reference.distance + slack
                && c.upper_bound >= reference.distance - slack,
            "{label}: {c:?} against {reference:?}"
        );

        let input = CastInput::new(
            ShapePair {
                a: &a,
                pose_a: pa,
                b: &b,
                pose_b: pb,
            },
            Motion::linear(v3(rng.dir() * 3.0)),
            Motion::new(Vector::ZERO, v3(rng.dir() * 2.0)),
        );
        if let Ok(s) = cast_shapes(&input, &o) {
            assert!(
                !s.toi.is_nan() && finite(s.normal) && finite(s.point_a) && finite(s.point_b),
                "{label}: {s:?}, default options: {:?}",
                cast_shapes(&input, &QueryOptions::default())
            );
            if s.hit {
                assert!(s.toi.is_finite() && s.toi >= 0.0, "{label}: {s:?}");
            }
        }

        // A yes/no has no bracket: with a handful of iterations it may miss an overlap
        // (the documented outcome of the bound), so it is checked with a full budget.
        let hit = query::intersects_with(&a, &pa, &b, &pb, &o, None);
        if o.gjk.max_iterations < 128 {
            continue;
        }
        if reference.distance > slack {
            assert!(!hit, "{label}: intersects at {reference:?}");
        }
        if reference.distance < -slack {
            assert!(hit, "{label}: no overlap at {reference:?}");
        }
    }
}

/// Two concentric ellipsoids: their difference is smooth everywhere, so an EPA asked
/// for a relative tolerance of 0 (or NaN) with no vertex bound only stops at the cap,
/// [`MAX_EPA_VERTICES`]; before it, it grew until memory ran out.
#[test]
fn epa_without_a_tolerance_or_a_bound_stops_at_the_cap() {
    let a: Shape = Ellipsoid::new(Vector::new(1.0, 0.7, 0.4)).unwrap().into();
    let b: Shape = Ellipsoid::new(Vector::new(0.5, 0.9, 0.6)).unwrap().into();
    let pose = Pose::IDENTITY;
    let reference = query::contact(&a, &pose, &b, &pose);
    for rel in [Real::NAN, 0.0, -1.0] {
        let o = QueryOptions {
            epa: EpaOptions {
                max_vertices: usize::MAX,
                rel_tolerance: rel,
                abs_tolerance: Real::NAN,
            },
            ..QueryOptions::default()
        };
        let c = query::contact_with(&a, &pose, &b, &pose, &o, None);
        assert!(
            c.lower_bound.is_finite() && c.upper_bound.is_finite() && c.normal.is_finite(),
            "{rel}: {c:?}"
        );
        // At least as tight as the default's bracket, and around the same depth.
        assert!(
            c.lower_bound <= reference.upper_bound && c.upper_bound >= reference.lower_bound,
            "{rel}: {c:?} against {reference:?}"
        );
        assert!(
            c.upper_bound - c.lower_bound <= reference.upper_bound - reference.lower_bound,
            "{rel}: {c:?} against {reference:?}"
        );
    }
}

#[test]
fn hostile_2d_options_give_finite_answers() {
    let v = |x: Real, y: Real| Vector2::new(x, y);
    let a = Shape2d::circle(v(0.0, 0.0), 1.0).unwrap();
    let far = Shape2d::polygon(&[v(3.0, -1.0), v(5.0, -1.0), v(4.0, 1.0)]).unwrap();
    let near = Shape2d::polygon(&[v(0.5, -1.0), v(2.5, -1.0), v(1.5, 1.0)]).unwrap();
    for (b, truth) in [(&far, Some(2.0 as Real)), (&near, None)] {
        for &max_iterations in &BAD_ITERATIONS {
            for &rel_tolerance in &BAD_TOLERANCES {
                let o = gjk2d::Gjk2dOptions {
                    max_iterations,
                    rel_tolerance,
                    ..Default::default()
                };
                let r = gjk2d::distance(&a, b, &o);
                let label = format!("{o:?}: {r:?}");
                // validate names the first field out of range (rel_tolerance before
                // max_iterations), or none.
                let rel_ok = (0.0..=tolerance::MAX_REL_TOLERANCE).contains(&rel_tolerance);
                let iterations_ok = (1..=MAX_GJK_ITERATIONS).contains(&max_iterations);
                let want = match (rel_ok, iterations_ok) {
                    (false, _) => Some("rel_tolerance"),
                    (true, false) => Some("max_iterations"),
                    (true, true) => None,
                };
                let got = o.validate().err().map(|e| (e.options, e.field));
                assert_eq!(got, want.map(|f| ("gjk2d", f)), "{label}");
                assert!(
                    r.distance.is_finite() && r.point_a.is_finite() && r.point_b.is_finite(),
                    "{label}"
                );
                match truth {
                    // An upper bound on the distance, whatever the options.
                    Some(t) => assert!(!r.intersecting && r.distance >= t - 1e-4, "{label}"),
                    None => assert!(r.intersecting || r.distance >= 0.0, "{label}"),
                }
            }
        }
    }
}

#[test]
fn validate_names_the_field_out_of_range() {
    assert_eq!(QueryOptions::default().validate(), Ok(()));
    assert_eq!(gjk2d::Gjk2dOptions::default().validate(), Ok(()));
    let field = |o: QueryOptions| o.validate().map_err(|e: OptionsError| (e.options, e.field));
    for bad in [Real::NAN, -1.0, Real::INFINITY, 1.5] {
        let mut o = QueryOptions::default();
        o.gjk.rel_tolerance = bad;
        assert_eq!(field(o), Err(("gjk", "rel_tolerance")), "{bad}");
        let mut o = QueryOptions::default();
        o.gjk.abs_tolerance = bad;
        assert_eq!(field(o), Err(("gjk", "abs_tolerance")), "{bad}");
        let mut o = QueryOptions::default();
        o.epa.rel_tolerance = bad;
        assert_eq!(field(o), Err(("epa", "rel_tolerance")), "{bad}");
        let mut o = QueryOptions::default();
        o.epa.abs_tolerance = bad;
        assert_eq!(field(o), Err(("epa", "abs_tolerance")), "{bad}");
    }
    for bad in [0, MAX_GJK_ITERATIONS + 1, u32::MAX] {
        let mut o = QueryOptions::default();
        o.gjk.max_iterations = bad;
        assert_eq!(field(o), Err(("gjk", "max_iterations")), "{bad}");
    }
    for bad in [MAX_EPA_VERTICES + 1, usize::MAX] {
        let mut o = QueryOptions::default();
        o.epa.max_vertices = bad;
        assert_eq!(field(o), Err(("epa", "max_vertices")), "{bad}");
    }
    // The ends of each range are accepted.
    let mut o = QueryOptions::default();
    o.gjk.rel_tolerance = 0.0;
    o.gjk.abs_tolerance = 1.0;
    o.gjk.max_iterations = MAX_GJK_ITERATIONS;
    o.epa.rel_tolerance = 1.0;
    o.epa.abs_tolerance = 0.0;
    o.epa.max_vertices = MAX_EPA_VERTICES;
    assert_eq!(o.validate(), Ok(()));
    // The message names the options, the field, the range and the value.
    let mut o = QueryOptions::default();
    o.epa.max_vertices = usize::MAX;
    let msg = o.validate().unwrap_err().to_string();
    assert!(
        msg.contains("epa") && msg.contains("max_vertices") && msg.contains("16384"),
        "{msg}"
    );
}

/// A turning cast whose shapes fly apart under an infinite `max_toi` (default options):
/// conservative advancement steps geometrically further; it once stepped to `t ≈ 2e19`
/// in f32, where A's translation (6e19) was beyond the coordinate range, and answered a
/// hit with NaN normal and witnesses. It must miss: the search ends where a pose would
/// leave the range ([`minkowski::shape::MAX_MAGNITUDE`]).
#[test]
fn turning_shapes_flying_apart_miss_under_an_infinite_max_toi() {
    let mut rng = Rng::new(481);
    for case in 0..200 {
        let ka = ALL_KINDS[case % ALL_KINDS.len()];
        let kb = ALL_KINDS[(case / 7) % ALL_KINDS.len()];
        let (a, _) = random_shape(&mut rng, ka, 1.0);
        let (b, _) = random_shape(&mut rng, kb, 1.0);
        // A starts 4 away from B, beyond both bounding radii, and flies straight away.
        let away = v3(rng.dir());
        let pa = Pose::new(rng.rotation(), away * 4.0).unwrap();
        let pb = Pose::new(rng.rotation(), Vector::ZERO).unwrap();
        let input = CastInput::new(
            ShapePair {
                a: &a,
                pose_a: pa,
                b: &b,
                pose_b: pb,
            },
            Motion::new(away * (3.0 * rng.unit() + 0.5) as Real, v3(rng.dir())),
            Motion::new(Vector::ZERO, v3(rng.dir() * 2.0)),
        );
        let s = cast_shapes(&input, &QueryOptions::default()).unwrap();
        assert!(
            !s.hit && s.normal.is_finite() && s.point_a.is_finite() && s.point_b.is_finite(),
            "case {case}: {ka}-{kb}: {s:?}"
        );
    }
}

/// The range horizon is per axis: a turning ball near the coordinate limit along x,
/// moving along y towards a ball at rest, meets it at t ≈ 80 although its x coordinate
/// has little room left (a horizon from the largest coordinate and the fastest speed
/// component, 10 here, answered a miss). Sizes are a ten-thousandth of the limit, so
/// that the gap is far above the touching floor at these coordinates.
#[test]
fn a_cast_near_the_coordinate_limit_moving_along_it_still_hits() {
    let max = minkowski::shape::MAX_MAGNITUDE;
    let s = max * 1e-4;
    let x = max - 0.1 * s;
    let ball: Shape = minkowski::shape::Sphere::new(0.1 * s).unwrap().into();
    let at = |y: Real| Pose::new(minkowski::Rotation::IDENTITY, Vector::new(x, y, 0.0)).unwrap();
    let input = CastInput::new(
        ShapePair {
            a: &ball,
            pose_a: at(0.0),
            b: &ball,
            pose_b: at(s),
        },
        Motion::new(Vector::Y * (s / 100.0), Vector::new(0.0, 0.0, 1.0)),
        Motion::linear(Vector::ZERO),
    );
    let c = cast_shapes(&input, &QueryOptions::default()).unwrap();
    // Contact at a gap of 0.2 s: t = 0.8 s / (s / 100) = 80; advancement stops up to its
    // tolerance early (four touching floors at the scale of both poses, 2e8 in f32: a gap
    // of 1525, t ≥ 64.7).
    assert!(c.hit && c.toi > 60.0 && c.toi <= 80.001, "{c:?}");
}

/// A linear cast ends, like a turning one, where a shape's origin would leave the
/// coordinate range: two shapes chasing each other along x near the limit meet at
/// t = 3.6 with A's origin 0.6 s beyond it (a miss: no such pose exists; before, a hit
/// with witnesses past the limit), and at t = 2.6 within it when B starts a little
/// behind (a hit). Balls take the closed form, boxes the GJK ray cast.
#[test]
fn a_linear_cast_ends_where_a_pose_would_leave_the_coordinate_range() {
    let max = minkowski::shape::MAX_MAGNITUDE;
    let s = max * 1e-4;
    let ball: Shape = minkowski::shape::Sphere::new(0.1 * s).unwrap().into();
    let cube: Shape = minkowski::shape::Cuboid::new(Vector::splat(0.1 * s))
        .unwrap()
        .into();
    let at = |x: Real| Pose::from_translation(Vector::new(x, 0.0, 0.0)).unwrap();
    for shape in [&ball, &cube] {
        for (b_behind, want) in [(1.0, None), (1.5, Some(2.6))] {
            let input = CastInput::new(
                ShapePair {
                    a: shape,
                    pose_a: at(max - 3.0 * s),
                    b: shape,
                    pose_b: at(max - b_behind * s),
                },
                Motion::linear(Vector::X * s),
                Motion::linear(Vector::X * (0.5 * s)),
            );
            let c = cast_shapes(&input, &QueryOptions::default()).unwrap();
            match want {
                None => assert!(!c.hit, "{c:?}"),
                Some(t) => assert!(c.hit && (c.toi - t).abs() < 1e-2, "{c:?}"),
            }
        }
    }
}

/// A compound at the coordinate limit whose part lies a little beyond it (its pose is
/// derived, not checked): overlapping a ball at time 0 it is a hit at 0 with its depth,
/// and moving back into range it meets a ball in range — the range rule ends a cast only
/// where a shape leaves the range, not for a part that starts beyond it.
#[test]
fn a_compound_part_beyond_the_limit_still_hits() {
    use minkowski::query::compound::{cast_colliders, Collider};
    use minkowski::shape::{Compound, Sphere};
    let max = minkowski::shape::MAX_MAGNITUDE;
    let s = max * 1e-4;
    let ball: Shape = Sphere::new(0.1 * s).unwrap().into();
    let part = Pose::from_translation(Vector::new(0.5 * s, 0.0, 0.0)).unwrap();
    let compound: Collider = Compound::new(vec![(part, ball.clone())]).unwrap().into();
    let at = |x: Real| Pose::from_translation(Vector::new(x, 0.0, 0.0)).unwrap();
    let single: Collider = Shape::from(Sphere::new(0.5 * s).unwrap()).into();
    let options = QueryOptions::default();
    // The part (radius 0.1 s) at max + 0.5 s, the ball (0.5 s) at max: 0.1 s deep.
    let c = cast_colliders(
        &compound,
        &at(max),
        Motion::ZERO,
        &single,
        &at(max),
        Motion::ZERO,
        1.0,
        0.0,
        &options,
    )
    .unwrap()
    .answer;
    assert!(
        c.hit && c.toi == 0.0 && c.start == CastStart::Overlapping,
        "{c:?}"
    );
    // Moving back (−x) towards the ball 2 s behind the part: 0.6 s apart after 1.4 s.
    let c = cast_colliders(
        &compound,
        &at(max),
        Motion::linear(-Vector::X * s),
        &single,
        &at(max - 1.5 * s),
        Motion::ZERO,
        Real::INFINITY,
        0.0,
        &options,
    )
    .unwrap()
    .answer;
    assert!(c.hit && (c.toi - 1.4).abs() < 1e-2, "{c:?}");
}
