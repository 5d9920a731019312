//! Ray casts, point projections and shape casts on arbitrary shapes, poses and motions
//! (in time units up to 2^100 (f32) or 2^900 (f64) times longer: tiny velocities),
//! with their invariants asserted: valid input is never refused and gives finite
//! answers; a hit's time is within `[0, max_toi]`, its normal unit; at a linear cast's
//! converged time of impact the shapes are at the target distance, and at sampled
//! earlier times (and over the whole interval after a miss) never closer; a ray's hit
//! point is on the shape, and a missed ray passes no sampled point inside it; a
//! projected point is on the shape at the reported distance. Tolerances are relative to
//! the problem's size, as in the `queries` target.
#![no_main]

// The `f64` feature fuzzes the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use minkowski::query::{self, CastInput, CastStart, Motion, Ray, RayOptions, ShapePair};
use minkowski::{Real, Vector};

mod raw;
use raw::{pose, shape, RawPose, RawShape};

#[derive(Debug, Arbitrary)]
struct Input {
    a: RawShape,
    b: RawShape,
    pose_a: RawPose,
    pose_b: RawPose,
    /// B's velocity relative to the problem's size per unit time (A's is the opposite
    /// half of `split`).
    velocity: (i8, i8, i8),
    split: u8,
    spin: Option<(i8, i8, i8)>,
    target: u8,
    ray_origin: (i8, i8, i8),
    ray_dir: (i8, i8, i8),
    solid: bool,
    /// With its top bit set, a time unit `2^k` times longer (`k` up to 100 in f32, 900
    /// in f64, from the low bits): velocities and the ray's direction scaled by `2^-k`,
    /// the intervals by `2^k` (the same problem, its times `2^k` larger).
    time_unit: u8,
}

/// The factor `2^-k` of [`Input::time_unit`].
fn time_scale(b: u8) -> Real {
    if b < 128 {
        return 1.0;
    }
    let max_k = if cfg!(feature = "f64") { 900 } else { 100 };
    let k = (b - 128) as i32 * max_k / 127;
    (2.0 as Real).powi(-k)
}

fn v(t: (i8, i8, i8), unit: Real) -> Vector {
    Vector::new(t.0 as Real, t.1 as Real, t.2 as Real) * unit
}

fuzz_target!(|input: Input| {
    let (Some(a), Some(b)) = (shape(&input.a, 0), shape(&input.b, 0)) else {
        return;
    };
    let reach = a.bounding_radius().max(b.bounding_radius()).max(1e-3);
    let (Some(pa), Some(pb)) = (pose(&input.pose_a, reach), pose(&input.pose_b, reach)) else {
        return;
    };
    let sigma = reach + (pa.translation() - pb.translation()).length();
    let rel = if cfg!(feature = "f64") { 1e-7 } else { 2e-3 };
    let tol = rel * sigma;

    // A shape cast.
    let scale = time_scale(input.time_unit);
    let vel = v(input.velocity, sigma / 32.0) * scale;
    let share = input.split as Real / 255.0;
    let spin = input.spin.map(|s| v(s, 1.0 / 32.0) * scale);
    let motion_a = Motion::new(-vel * share, spin.map_or(Vector::ZERO, |s| -s));
    let motion_b = Motion::new(vel * (1.0 - share), spin.unwrap_or(Vector::ZERO));
    let mut cast = CastInput::new(ShapePair::new(&a, pa, &b, pb), motion_a, motion_b);
    cast.max_toi = 4.0 / scale;
    cast.target_distance = reach * (input.target as Real / 255.0) * 0.2;
    let c = query::cast_shapes(&cast, &query::QueryOptions::default())
        .expect("a valid cast is answered");
    assert!(
        c.toi.is_finite() && c.normal.is_finite() && c.point_a.is_finite() && c.point_b.is_finite(),
        "non-finite cast {c:?}"
    );
    let s = cast.target_distance;
    let distance_at = |t: Real| {
        let qa = motion_a.pose_at(&pa, t);
        let qb = motion_b.pose_at(&pb, t);
        query::contact(&a, &qa, &b, &qb).distance
    };
    if c.hit {
        assert!(
            c.toi >= 0.0 && c.toi <= cast.max_toi,
            "toi out of range: {c:?}"
        );
        assert!(
            (c.normal.length() - 1.0).abs() < 1e-3,
            "normal not unit: {c:?}"
        );
    }
    if c.start == CastStart::Separated {
        let end = if c.hit { c.toi } else { cast.max_toi };
        for k in 0..8 {
            let t = end * k as Real / 8.0;
            let d = distance_at(t);
            assert!(d >= s - 8.0 * tol, "distance {d} at {t} before {c:?}");
        }
        if c.hit && c.status == query::QueryStatus::Converged && spin.is_none() {
            let d = distance_at(c.toi);
            assert!(
                (d - s).abs() <= 8.0 * tol,
                "distance {d} at the toi of {c:?}"
            );
        }
    }

    // A ray from near A, cast at A.
    let dir = v(input.ray_dir, reach / 16.0) * scale;
    if dir != Vector::ZERO {
        let origin = pa.translation() + v(input.ray_origin, reach / 16.0);
        let ray = Ray::new(origin, dir);
        let opts = RayOptions {
            max_toi: 4.0 / scale,
            solid: input.solid,
        };
        let r = query::cast_ray(&a, &pa, &ray, &opts).expect("a valid ray is answered");
        match r.hit {
            Some(h) => {
                assert!(h.toi >= 0.0 && h.toi <= opts.max_toi && h.point.is_finite());
                assert!(
                    (h.normal.length() - 1.0).abs() < 1e-3,
                    "normal not unit: {h:?}"
                );
                let p = query::project_point(&a, &pa, h.point).expect("finite point");
                assert!(
                    p.distance <= 8.0 * tol,
                    "hit point {h:?} is {} off",
                    p.distance
                );
            }
            // A hollow shape is left beyond `max_toi` by a ray starting deep inside.
            None if !opts.solid
                && query::project_point(&a, &pa, origin)
                    .expect("finite point")
                    .inside => {}
            None => {
                for k in 0..=8 {
                    let q = ray.point_at(opts.max_toi * k as Real / 8.0);
                    let p = query::project_point(&a, &pa, q).expect("finite point");
                    assert!(
                        !(p.inside && p.distance < -8.0 * tol),
                        "a missed ray passes {q} inside A ({p:?})"
                    );
                }
            }
        }
        // The projection of the ray's origin lies on A at the reported distance.
        let p = query::project_point(&a, &pa, origin).expect("finite point");
        assert!(p.point.is_finite() && p.distance.is_finite());
        let d = (p.point - origin).length();
        assert!(
            (d - p.distance.abs()).abs() <= 8.0 * tol,
            "projection {p:?} of {origin}: |point − origin| = {d}"
        );
    }
});
