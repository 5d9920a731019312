//! The half-space (plane) queries against three oracles:
//!
//! * **Analytic** (hand-computed): spheres and boxes resting on, sunk into and above the
//!   ground, tilted planes with offsets, capsules and cylinders lying and standing, a
//!   compound table on its legs.
//! * **Exact support functions in f64** (`tests/common`, independent of the library):
//!   the signed distance is `−h_B(−n) − c` for the world normal `n` and plane constant
//!   `c`; a point is on B's surface when its distance to B is 0; rays and linear casts
//!   have closed forms in the plane's normal coordinate; a turning cast is checked by
//!   sampling the exact distance before its time of impact.
//! * **A huge box** whose top face is the plane (50 times the shape's size, so that it
//!   behaves as the plane over the test region and keeps the f32 rounding within the
//!   tolerance), answered by the library's general queries (`contact`, `manifold`,
//!   `cast_ray`, `cast_shapes`).
//!
//! Random cases: every registered shape kind (`ALL_KINDS`, from `Shape::TYPE_NAMES`) at
//! sizes 1e-4, 1 and 1e4, seeded, in five kinds of configuration (random, touching,
//! a face parallel to the plane, the plane through the shape's centre, far apart); and
//! `Shape::examples()` against the huge box. The hit rates of each branch are counted
//! and checked. Hostile input gives typed errors, never a panic or a NaN.

#![allow(clippy::unnecessary_cast)]

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::*;
use glam::{DQuat, DVec3};
use minkowski::query::{
    self, cast_ray_halfspace, cast_shape_halfspace, closest_points_halfspace, contact_halfspace,
    contact_halfspace_compound, contains_point_halfspace, distance_halfspace, intersects_halfspace,
    manifold_halfspace, manifold_halfspace_compound, project_point_halfspace,
    signed_distance_halfspace, CastError, CastInput, CastStart, HalfSpaceCastInput, Motion,
    QueryOptions, Ray, RayOptions, ShapePair,
};
use minkowski::shape::{
    Capsule, Compound, Cuboid, Cylinder, HalfSpace, Shape, ShapeError, Sphere, MAX_MAGNITUDE,
};
use minkowski::{Pose, Real, Rotation, Vector};

const F64: bool = cfg!(minkowski_f64);
/// Machine epsilon of the library's `Real`.
const EPS: f64 = if F64 {
    f64::EPSILON
} else {
    f32::EPSILON as f64
};

fn v(x: f64, y: f64, z: f64) -> Vector {
    Vector::new(x as Real, y as Real, z as Real)
}

fn dq(r: Rotation) -> DQuat {
    DQuat::from_xyzw(r.x as f64, r.y as f64, r.z as f64, r.w as f64).normalize()
}

fn rq(q: DQuat) -> Rotation {
    Rotation::from_xyzw(q.x as Real, q.y as Real, q.z as Real, q.w as Real).normalize()
}

fn at(x: f64, y: f64, z: f64) -> Pose {
    Pose::from_translation(v(x, y, z)).unwrap()
}

fn close(a: Vector, b: Vector, tol: f64) -> bool {
    (d3(a) - d3(b)).length() <= tol
}

/// A half-space placed in the world, with its world plane in f64: `{x : n·x ≤ c}`.
struct Plane {
    h: HalfSpace,
    pose: Pose,
    n: DVec3,
    c: f64,
}

impl Plane {
    fn new(h: HalfSpace, pose: Pose) -> Self {
        let n = dq(pose.rotation()) * d3(h.normal());
        let c = h.offset() as f64 + n.dot(d3(pose.translation()));
        Plane { h, pose, n, c }
    }
    /// Signed distance of a world point from the plane.
    fn s(&self, p: DVec3) -> f64 {
        self.n.dot(p) - self.c
    }
    /// The exact signed distance of a placed shape: `−h_B(−n) − c`.
    fn delta(&self, b: &Placed) -> f64 {
        -b.h(-self.n) - self.c
    }
    /// A box of half extent `half` whose top face is the plane, centred below `over`
    /// (the shape of the general queries that stands for the plane).
    fn slab(&self, half: f64, over: DVec3) -> (Shape, Pose) {
        let rot = DQuat::from_rotation_arc(DVec3::Y, self.n);
        let foot = over - self.n * self.s(over);
        let centre = foot - self.n * half;
        let shape = Shape::from(Cuboid::new(Vector::splat(half as Real)).unwrap());
        (shape, Pose::new(rq(rot), v3(centre)).unwrap())
    }
}

/// Counts of the branches the random cases reached.
#[derive(Default, Debug)]
struct Reached {
    overlapping: usize,
    touching: usize,
    separated: usize,
    manifold_sizes: [usize; 5],
    ray_hits: usize,
    ray_inside: usize,
    ray_misses: usize,
    cast_hits: usize,
    cast_start_overlapping: usize,
    cast_start_within: usize,
    cast_misses: usize,
    turning_hits: usize,
    cases: usize,
}

/// A random case: a half-space, B and its f64 twin, placed.
struct Case {
    plane: Plane,
    b: Shape,
    placed: Placed,
    pose_b: Pose,
    size: f64,
    /// The size of the numbers involved (σ).
    sigma: f64,
}

/// A configuration of `mode` (0 random, 1 touching, 2 a face parallel, 3 the plane
/// through B's centre, 4 apart).
fn make_case(rng: &mut Rng, kind: &str, size: f64, mode: usize) -> Case {
    let (b, ob) = random_shape(rng, kind, size);
    let n_local = v3(rng.dir());
    let offset = rng.range(-2.0, 2.0) * size;
    let h = HalfSpace::new(n_local, offset as Real).unwrap();
    let pose_h = random_pose(rng, 3.0 * size);
    let plane = Plane::new(h, pose_h);
    let n = plane.n;
    // A point of the plane near H's origin, then B above or below it.
    let lateral = {
        let r = rng.dir() * rng.range(0.0, 2.0 * size);
        r - n * r.dot(n)
    };
    let foot = n * plane.c + lateral;
    let height = match mode {
        3 => 0.0,
        4 => rng.range(3.0, 6.0) * size,
        _ => rng.range(-1.0, 2.0) * size,
    };
    let mut rot = rng.rotation();
    if mode == 2 {
        // A local axis of B turned onto −n, then a spin about n.
        let axis = [DVec3::X, DVec3::Y, DVec3::Z][rng.below(3)]
            * if rng.unit() < 0.5 { 1.0 } else { -1.0 };
        let spin = DQuat::from_axis_angle(n, rng.range(0.0, 6.3));
        rot = rq(spin * DQuat::from_rotation_arc(axis, -n));
    }
    let mut pos = foot + n * height;
    let mut pose_b = Pose::new(rot, v3(pos)).unwrap();
    if mode == 1 || mode == 2 {
        // Touching: B moved along n by its exact signed distance (mode 2 half the time).
        if mode == 1 || rng.unit() < 0.5 {
            let placed = Placed::new(ob.clone(), &pose_b);
            pos -= n * plane.delta(&placed);
            pose_b = Pose::new(rot, v3(pos)).unwrap();
        }
    }
    let placed = Placed::new(ob, &pose_b);
    let sigma = d3(pose_b.translation()).length()
        + d3(pose_h.translation()).length()
        + offset.abs()
        + placed.shape.size()
        + size;
    Case {
        plane,
        b,
        placed,
        pose_b,
        size,
        sigma,
    }
}

/// The tolerance of the closed forms: a few hundred ε of the numbers' size (poses are
/// composed and rotated in the library's precision).
fn tol_exact(c: &Case) -> f64 {
    256.0 * EPS * c.sigma
}

/// Contact, distance, closest points, intersection and manifold invariants against the
/// exact f64 answer; returns the exact signed distance.
fn check_contact(c: &Case, seen: &mut Reached, what: &str) -> f64 {
    let p = &c.plane;
    let tol = tol_exact(c);
    let delta = p.delta(&c.placed);
    let k = contact_halfspace(&p.h, &p.pose, &c.b, &c.pose_b);
    assert!(
        (k.distance as f64 - delta).abs() <= tol,
        "{what}: distance {} vs exact {delta} (tol {tol})",
        k.distance
    );
    assert!(close(k.normal, v3(p.n), 16.0 * EPS), "{what}: normal");
    assert_eq!(k.status, query::QueryStatus::Converged);
    assert_eq!((k.lower_bound, k.upper_bound), (k.distance, k.distance));
    let (pa, pb) = (d3(k.point_a), d3(k.point_b));
    assert!(
        (pb - pa - p.n * k.distance as f64).length() <= tol,
        "{what}: witnesses"
    );
    assert!(
        p.s(pa).abs() <= tol,
        "{what}: point_a off the plane by {}",
        p.s(pa)
    );
    assert!(
        c.placed.outside_distance(pb) <= tol,
        "{what}: point_b outside B"
    );
    assert!(
        (p.s(pb) - delta).abs() <= tol,
        "{what}: point_b is not B's lowest"
    );
    // The other queries agree.
    assert_eq!(
        distance_halfspace(&p.h, &p.pose, &c.b, &c.pose_b),
        k.distance
    );
    let touching = k.distance <= 0.0;
    assert_eq!(
        intersects_halfspace(&p.h, &p.pose, &c.b, &c.pose_b),
        touching
    );
    let cp = closest_points_halfspace(&p.h, &p.pose, &c.b, &c.pose_b);
    assert_eq!(cp.intersecting, touching);
    assert_eq!(cp.distance, k.distance.max(0.0));
    if touching {
        assert_eq!(cp.normal, Vector::ZERO);
        assert_eq!(cp.point_a, cp.point_b);
    } else {
        assert_eq!(
            (cp.point_a, cp.point_b, cp.normal),
            (k.point_a, k.point_b, k.normal)
        );
    }
    if delta < -tol {
        seen.overlapping += 1;
    } else if delta <= tol {
        seen.touching += 1;
    } else {
        seen.separated += 1;
    }
    for margin in [0.0, 0.1 * c.size] {
        check_manifold(c, delta, margin, seen, what);
    }
    delta
}

fn check_manifold(c: &Case, delta: f64, margin: f64, seen: &mut Reached, what: &str) {
    let p = &c.plane;
    let tol = tol_exact(c);
    let m = manifold_halfspace(&p.h, &p.pose, &c.b, &c.pose_b, margin as Real);
    assert!(
        close(m.normal, v3(p.n), 16.0 * EPS),
        "{what}: manifold normal"
    );
    assert!(m.len() <= 4);
    if (delta - margin).abs() > tol {
        assert_eq!(
            m.is_empty(),
            delta > margin,
            "{what}: margin {margin}, delta {delta}"
        );
    }
    seen.manifold_sizes[m.len()] += 1;
    if m.is_empty() {
        return;
    }
    assert!(
        (m.points()[0].distance as f64 - delta).abs() <= tol,
        "{what}: deepest point {} vs {delta}",
        m.points()[0].distance
    );
    for (i, q) in m.points().iter().enumerate() {
        let (pa, pb) = (d3(q.point_a), d3(q.point_b));
        assert!(
            (pb - pa - p.n * q.distance as f64).length() <= tol,
            "{what}: identity"
        );
        assert!(p.s(pa).abs() <= tol, "{what}: point_a off the plane");
        assert!(
            (p.s(pb) - q.distance as f64).abs() <= tol,
            "{what}: distance"
        );
        assert!(
            q.distance as f64 <= margin + tol,
            "{what}: beyond the margin"
        );
        assert!(
            q.distance as f64 >= delta - tol,
            "{what}: deeper than B's lowest"
        );
        assert!(
            c.placed.outside_distance(pb) <= tol,
            "{what}: point_b outside B"
        );
        for r in &m.points()[..i] {
            assert_ne!(r.feature, q.feature, "{what}: repeated feature id");
        }
    }
    // Completeness for sharp polytopes: every vertex clearly within the margin is a
    // point of the manifold (its projection on the plane is a `point_a`) while there are
    // at most four of them (vertices that project onto the same spot count once).
    let sharp = ["cuboid", "pyramid", "triangle", "segment", "point"];
    if let (true, Some(vs)) = (sharp.contains(&c.b.type_name()), c.placed.world_vertices()) {
        let mut within: Vec<DVec3> = Vec::new();
        for w in vs {
            let foot = w - p.n * p.s(w);
            if p.s(w) < margin - tol && within.iter().all(|u| (*u - foot).length() > 1e-3 * c.size)
            {
                within.push(foot);
            }
        }
        if within.len() <= 4 {
            for w in &within {
                assert!(
                    m.points()
                        .iter()
                        .any(|q| (d3(q.point_a) - *w).length() <= tol),
                    "{what}: vertex over {w} within the margin is missing"
                );
            }
        } else {
            assert_eq!(m.len(), 4, "{what}: more than 4 vertices within the margin");
        }
    }
}

/// The huge box standing for the plane, answered by the general queries.
fn check_against_slab(c: &Case, what: &str) {
    let p = &c.plane;
    let half = 50.0 * c.size;
    let (slab, slab_pose) = p.slab(half, c.placed.pos);
    let tol = REL_TOL * (c.sigma + half);
    let k = contact_halfspace(&p.h, &p.pose, &c.b, &c.pose_b);
    let o = query::contact(&slab, &slab_pose, &c.b, &c.pose_b);
    assert!(
        (o.distance as f64 - k.distance as f64).abs() <= tol,
        "{what}: slab contact {} vs {}",
        o.distance,
        k.distance
    );
    if (k.distance as f64).abs() > tol {
        assert!(
            d3(o.normal).dot(p.n) > 0.999,
            "{what}: slab normal {}",
            o.normal
        );
    }
    for margin in [0.0, 0.1 * c.size] {
        let m = manifold_halfspace(&p.h, &p.pose, &c.b, &c.pose_b, margin as Real);
        let om = query::manifold(&slab, &slab_pose, &c.b, &c.pose_b, margin as Real);
        let d = k.distance as f64;
        if (d - margin).abs() > tol {
            assert_eq!(
                m.is_empty(),
                om.is_empty(),
                "{what}: slab manifold emptiness"
            );
        }
        if !m.is_empty() && !om.is_empty() && (d - margin).abs() > tol {
            let deepest = |ps: &[query::ManifoldPoint]| {
                ps.iter()
                    .map(|q| q.distance as f64)
                    .fold(f64::INFINITY, f64::min)
            };
            // The general manifold takes a curved or rounded shape's points from its
            // support feature, which faces the plane only within the feature angle
            // (2.56°): its deepest point may sit higher than the exact lowest point, by
            // up to `(1 − cos θ) r` on a rounded face and `r sin θ (1 − cos(π/16))` on a
            // cap's 16-gon — never lower.
            let sharp = c.b.core().1 == 0.0
                && [
                    "cuboid", "pyramid", "triangle", "segment", "point", "convex",
                ]
                .contains(&c.b.type_name());
            let feature_error = if sharp {
                0.0
            } else {
                2e-3 * c.placed.shape.size()
            };
            let (mine, general) = (deepest(m.points()), deepest(om.points()));
            assert!(
                general >= mine - tol && general <= mine + tol + feature_error,
                "{what}: slab manifold depth {general} vs {mine}"
            );
        }
    }
}

/// Rays from around B: against the closed form in the plane's normal coordinate, and
/// against the huge box for rays from above it.
fn check_rays(c: &Case, rng: &mut Rng, seen: &mut Reached, what: &str) {
    let p = &c.plane;
    let tol = tol_exact(c);
    let half = 50.0 * c.size;
    let (slab, slab_pose) = p.slab(half, c.placed.pos);
    for r in 0..4 {
        let o = c.placed.pos + rng.dir() * rng.range(0.0, 3.0 * c.size);
        let dir = if r == 0 {
            // Aimed at the plane below B.
            (c.placed.pos - p.n * (p.s(c.placed.pos) + 0.5 * c.size)) - o
        } else {
            rng.dir() * c.size * rng.range(0.2, 3.0)
        };
        if dir.length() == 0.0 {
            continue;
        }
        let ray = Ray::new(v3(o), v3(dir));
        let (o, dir) = (d3(ray.origin), d3(ray.dir));
        let solid = rng.unit() < 0.6;
        let max_toi = if rng.unit() < 0.5 {
            f64::INFINITY
        } else {
            rng.range(0.0, 3.0)
        };
        let opts = RayOptions {
            max_toi: max_toi as Real,
            solid,
        };
        let got = cast_ray_halfspace(&p.h, &p.pose, &ray, &opts).unwrap();
        let (s0, dn) = (p.s(o), p.n.dot(dir));
        if s0.abs() <= tol || dn.abs() <= 1e-3 * dir.length() {
            continue;
        }
        // The closed form: entry from outside, exit from inside.
        let expect = if s0 < 0.0 && solid {
            Some((0.0, true))
        } else if s0 < 0.0 {
            (dn > 0.0).then_some((-s0 / dn, true))
        } else {
            (dn < 0.0).then_some((s0 / -dn, false))
        };
        let expect = expect.filter(|&(t, _)| t <= max_toi);
        if let Some((t, _)) = expect {
            if (t - max_toi).abs() * dn.abs() <= tol {
                continue;
            }
        }
        match (expect, got.hit) {
            (None, None) => seen.ray_misses += 1,
            (Some((t, inside)), Some(hit)) => {
                assert!(
                    (hit.toi as f64 - t).abs() * dn.abs() <= tol,
                    "{what}: ray toi {} vs {t}",
                    hit.toi
                );
                assert_eq!(hit.inside, inside, "{what}: inside flag");
                assert!(p.s(d3(hit.point)).abs() <= tol || inside && solid);
                if inside && solid {
                    assert_eq!(hit.toi, 0.0);
                    assert!(close(hit.normal, v3(-dir.normalize()), 16.0 * EPS));
                    seen.ray_inside += 1;
                } else {
                    assert!(close(hit.normal, v3(p.n), 16.0 * EPS), "{what}: ray normal");
                    seen.ray_hits += 1;
                }
                // The huge box agrees for rays entering it from above near its middle.
                let point = o + dir * t;
                if !inside && (point - c.placed.pos).length() < 0.25 * half {
                    let oh = query::cast_ray(&slab, &slab_pose, &ray, &opts).unwrap();
                    let oh = oh.hit.expect("the huge box is hit too");
                    let tol_o = REL_TOL * (c.sigma + half);
                    assert!(
                        (oh.toi as f64 - t).abs() * dn.abs() <= tol_o,
                        "{what}: slab ray {} vs {t}",
                        oh.toi
                    );
                }
            }
            (e, g) => panic!("{what}: ray expected {e:?}, got {g:?} (s0 {s0}, dn {dn})"),
        }
    }
}

/// Linear casts (both moving) against the closed form and against `cast_shapes` on the
/// huge box; a turning B against sampled exact distances.
fn check_casts(c: &Case, rng: &mut Rng, seen: &mut Reached, what: &str) {
    let p = &c.plane;
    let tol = tol_exact(c);
    let half = 50.0 * c.size;
    let delta = p.delta(&c.placed);
    for k in 0..3 {
        let vb = if k == 0 {
            -p.n * c.size
        } else {
            rng.dir() * c.size * rng.range(0.1, 2.0)
        };
        let vh = if rng.unit() < 0.5 {
            DVec3::ZERO
        } else {
            rng.dir() * c.size * 0.3
        };
        let (vb, vh) = (d3(v3(vb)), d3(v3(vh)));
        let target = if k == 2 && delta > 0.0 {
            // Starting within the target.
            delta + 0.1 * c.size
        } else if rng.unit() < 0.5 {
            0.0
        } else {
            0.05 * c.size
        };
        let max_toi = if rng.unit() < 0.5 {
            f64::INFINITY
        } else {
            rng.range(0.0, 4.0)
        };
        let mut input = HalfSpaceCastInput::new(
            &p.h,
            p.pose,
            Motion::linear(v3(vh)),
            &c.b,
            c.pose_b,
            Motion::linear(v3(vb)),
        );
        input.max_toi = max_toi as Real;
        input.target_distance = target as Real;
        let got = cast_shape_halfspace(&input).unwrap();
        let closing = (vh - vb).dot(p.n);
        let speed = (vb - vh).length();
        // Ambiguous starts (within rounding of a threshold) are not compared.
        if (delta - target).abs() <= tol || delta.abs() <= tol || closing.abs() <= 1e-3 * speed {
            continue;
        }
        let ambiguous_end = |t: f64| (t - max_toi).abs() * closing.abs() <= tol;
        if delta < 0.0 {
            assert!(got.hit && got.toi == 0.0, "{what}: overlapping start");
            assert_eq!(got.start, CastStart::Overlapping);
            assert!((got.initial_distance.unwrap() as f64 - delta).abs() <= tol);
            seen.cast_start_overlapping += 1;
        } else if delta <= target {
            assert_eq!(got.start, CastStart::WithinTarget, "{what}");
            assert_eq!(
                got.hit,
                closing > 0.0,
                "{what}: within target, approaching?"
            );
            assert!(got.initial_distance.is_some());
            seen.cast_start_within += 1;
        } else {
            let t = (delta - target) / closing;
            if closing > 0.0 && ambiguous_end(t) {
                continue;
            }
            let expect = closing > 0.0 && t <= max_toi;
            assert_eq!(got.hit, expect, "{what}: cast hit (t {t}, max {max_toi})");
            assert_eq!(got.start, CastStart::Separated);
            if !expect {
                seen.cast_misses += 1;
                continue;
            }
            seen.cast_hits += 1;
            assert!(
                (got.toi as f64 - t).abs() * closing <= tol,
                "{what}: cast toi {} vs {t}",
                got.toi
            );
            assert!(close(got.normal, v3(p.n), 16.0 * EPS));
            // Both points at the time of impact: B's lowest, the plane's.
            let moved = Placed::new(
                c.placed.shape.clone(),
                &Motion::linear(v3(vb)).pose_at(&c.pose_b, got.toi),
            );
            let plane_t = Plane::new(p.h, Motion::linear(v3(vh)).pose_at(&p.pose, got.toi));
            assert!(
                moved.outside_distance(d3(got.point_b)) <= tol,
                "{what}: cast point_b"
            );
            assert!(
                (plane_t.s(d3(got.point_a))).abs() <= tol,
                "{what}: cast point_a"
            );
            assert!(
                (d3(got.point_b) - d3(got.point_a) - p.n * target).length() <= tol,
                "{what}: cast witnesses"
            );
            // The general cast against the huge box agrees while B stays over its middle.
            if speed * t < 0.25 * half {
                let (slab, slab_pose) = p.slab(half, c.placed.pos);
                let pair = ShapePair::new(&slab, slab_pose, &c.b, c.pose_b);
                let mut ci = CastInput::new(pair, Motion::linear(v3(vh)), Motion::linear(v3(vb)));
                ci.max_toi = max_toi as Real;
                ci.target_distance = target as Real;
                let o = query::cast_shapes(&ci, &QueryOptions::default()).unwrap();
                let tol_o = REL_TOL * (c.sigma + half);
                assert!(o.hit, "{what}: the slab cast misses");
                assert!(
                    (o.toi as f64 - t).abs() * closing <= tol_o,
                    "{what}: slab cast {} vs {t}",
                    o.toi
                );
            }
        }
    }
    // B turning (and falling): the time of impact is a lower bound, and the exact
    // distance there is the target within the advancement's tolerance.
    let w = rng.dir() * rng.range(0.5, 3.0);
    let vb = -p.n * c.size * rng.range(0.2, 1.0) + rng.dir() * 0.3 * c.size;
    let target = if rng.unit() < 0.5 { 0.0 } else { 0.05 * c.size };
    let mb = Motion::new(v3(vb), v3(w));
    let mut input = HalfSpaceCastInput::new(&p.h, p.pose, Motion::ZERO, &c.b, c.pose_b, mb);
    input.target_distance = target as Real;
    input.max_toi = 8.0;
    let got = cast_shape_halfspace(&input).unwrap();
    if delta <= target + tol {
        return;
    }
    let exact_at = |t: f64| {
        let placed = Placed::new(c.placed.shape.clone(), &mb.pose_at(&c.pose_b, t as Real));
        p.delta(&placed)
    };
    let rho = c.b.bounding_radius() as f64;
    let end = if got.hit { got.toi as f64 } else { 8.0 };
    for i in 0..64 {
        let t = end * i as f64 / 64.0;
        assert!(
            exact_at(t) >= target - tol,
            "{what}: turning cast passes the target at {t} before {end}"
        );
    }
    if got.hit {
        assert_eq!(got.start, CastStart::Separated);
        let d = exact_at(got.toi as f64);
        let tol_adv = query::advancement::REL_TOLERANCE as f64 * rho + 4.0 * tol;
        if got.status == query::QueryStatus::Converged {
            assert!(d <= target + tol_adv, "{what}: turning cast stops at {d}");
        }
        seen.turning_hits += 1;
    }
}

fn check_points(c: &Case, rng: &mut Rng, what: &str) {
    let p = &c.plane;
    let tol = tol_exact(c);
    for _ in 0..3 {
        let q = c.placed.pos + rng.dir() * rng.range(0.0, 3.0 * c.size);
        let qp = v3(q);
        let q = d3(qp);
        let pr = project_point_halfspace(&p.h, &p.pose, qp).unwrap();
        let s = p.s(q);
        assert!(
            (pr.distance as f64 - s).abs() <= tol,
            "{what}: point distance"
        );
        assert!(
            (d3(pr.point) - (q - p.n * s)).length() <= tol,
            "{what}: projection"
        );
        if s.abs() > tol {
            assert_eq!(pr.inside, s < 0.0);
        }
        assert_eq!(
            contains_point_halfspace(&p.h, &p.pose, qp).unwrap(),
            pr.inside
        );
        assert_eq!(
            signed_distance_halfspace(&p.h, &p.pose, qp).unwrap(),
            pr.distance
        );
    }
}

/// Several hundred seeded cases over every kind, three scales and five configurations.
#[test]
fn random_cases_against_exact_support_and_huge_box() {
    let mut rng = Rng::new(0x4a1f_5bac_e000_0001);
    let mut seen = Reached::default();
    for kind in ALL_KINDS.iter() {
        for size in [1e-4, 1.0, 1e4] {
            for i in 0..15 {
                let mode = i % 5;
                let c = make_case(&mut rng, kind, size, mode);
                let what = format!("{kind} size {size} case {i} mode {mode}");
                check_contact(&c, &mut seen, &what);
                check_against_slab(&c, &what);
                check_rays(&c, &mut rng, &mut seen, &what);
                check_casts(&c, &mut rng, &mut seen, &what);
                check_points(&c, &mut rng, &what);
                seen.cases += 1;
            }
        }
    }
    println!("{seen:?}");
    assert!(seen.cases >= 500, "{seen:?}");
    // Every branch is really exercised.
    let n = seen.cases;
    assert!(
        seen.overlapping > n / 5 && seen.separated > n / 5 && seen.touching > n / 10,
        "{seen:?}"
    );
    assert!(
        seen.manifold_sizes[4] > 20 && seen.manifold_sizes[2] > 20 && seen.manifold_sizes[1] > 50,
        "{seen:?}"
    );
    assert!(
        seen.ray_hits > 100 && seen.ray_inside > 100 && seen.ray_misses > 100,
        "{seen:?}"
    );
    assert!(seen.cast_hits > 100 && seen.cast_misses > 50, "{seen:?}");
    assert!(
        seen.cast_start_overlapping > 50 && seen.cast_start_within > 5,
        "{seen:?}"
    );
    assert!(seen.turning_hits > 50, "{seen:?}");
}

/// Every registered shape's example (`Shape::examples()`, no f64 twin needed) at random
/// poses and scales, against the huge box.
#[test]
fn examples_against_huge_box() {
    let mut rng = Rng::new(0x4a1f_5bac_e000_0002);
    let mut cases = 0;
    for shape in Shape::examples() {
        for size in [1e-4, 1.0, 1e4] {
            let b = shape.scaled(size as Real).unwrap();
            for _ in 0..8 {
                let h =
                    HalfSpace::new(v3(rng.dir()), (rng.range(-1.0, 1.0) * size) as Real).unwrap();
                let pose_h = random_pose(&mut rng, 2.0 * size);
                let plane = Plane::new(h, pose_h);
                let r = b.bounding_radius() as f64;
                let pos = plane.n * (plane.c + rng.range(-1.0, 1.5) * r) + {
                    let l = rng.dir() * size;
                    l - plane.n * l.dot(plane.n)
                };
                let pose_b = Pose::new(rng.rotation(), v3(pos)).unwrap();
                let half = 50.0 * size;
                let (slab, slab_pose) = plane.slab(half, pos);
                let k = contact_halfspace(&h, &pose_h, &b, &pose_b);
                let o = query::contact(&slab, &slab_pose, &b, &pose_b);
                let sigma = pos.length() + d3(pose_h.translation()).length() + half;
                let tol = REL_TOL * sigma;
                assert!(
                    (k.distance - o.distance).abs() as f64 <= tol,
                    "{}: {} vs slab {}",
                    b.type_name(),
                    k.distance,
                    o.distance
                );
                let m = manifold_halfspace(&h, &pose_h, &b, &pose_b, 0.0);
                let om = query::manifold(&slab, &slab_pose, &b, &pose_b, 0.0);
                if (k.distance as f64).abs() > tol {
                    assert_eq!(m.is_empty(), om.is_empty(), "{}", b.type_name());
                }
                cases += 1;
            }
        }
    }
    assert!(cases >= 250);
}

#[test]
fn sphere_and_tilted_planes_with_offsets() {
    let ball = Shape::from(Sphere::new(1.0).unwrap());
    let ground = HalfSpace::new(Vector::Y, 0.0).unwrap();
    let c = contact_halfspace(&ground, &Pose::IDENTITY, &ball, &at(1.0, 3.0, -2.0));
    assert_eq!(c.distance, 2.0);
    assert_eq!(c.point_b, v(1.0, 2.0, -2.0));
    assert_eq!(c.point_a, v(1.0, 0.0, -2.0));
    // Offset: the plane y = 2, so the ball at y = 3 touches it.
    let raised = HalfSpace::new(Vector::Y, 2.0).unwrap();
    assert_eq!(
        distance_halfspace(&raised, &Pose::IDENTITY, &ball, &at(0.0, 3.0, 0.0)),
        0.0
    );
    assert!(intersects_halfspace(
        &raised,
        &Pose::IDENTITY,
        &ball,
        &at(0.0, 3.0, 0.0)
    ));
    // A tilted plane (x + y)/√2 ≤ √2: over the unit ball at the origin, n·x is at least
    // −1, so the signed distance is −1 − √2.
    let s = (0.5 as Real).sqrt();
    let tilted = HalfSpace::new(v(1.0, 1.0, 0.0) * s, 2.0 * s).unwrap();
    let c = contact_halfspace(&tilted, &Pose::IDENTITY, &ball, &Pose::IDENTITY);
    assert!((c.distance as f64 + 1.0 + 2f64.sqrt()).abs() < 1e-5);
    assert!(close(c.point_b, v(-1.0, -1.0, 0.0) * s, 1e-6));
    // The same plane given as the ground turned by 45° about z, raised by the pose: the
    // ball above it along n by 3 is 2 apart.
    let pose = Pose::new(
        Rotation::from_rotation_z(-std::f64::consts::FRAC_PI_4 as Real),
        v(1.0, 1.0, 0.0),
    )
    .unwrap();
    let n = pose.transform_vector(Vector::Y);
    let centre = pose.translation() + n * 3.0;
    let c = contact_halfspace(
        &ground,
        &pose,
        &ball,
        &Pose::from_translation(centre).unwrap(),
    );
    assert!((c.distance - 2.0).abs() < 1e-5);
    assert!(close(c.normal, n, 1e-6));
    // Shrunk to 1e-4 and grown to 1e4, the answers scale.
    for k in [1e-4, 1e4] {
        let b = ball.scaled(k as Real).unwrap();
        let h = HalfSpace::new(Vector::Y, (-0.5 * k) as Real).unwrap();
        let d = distance_halfspace(&h, &Pose::IDENTITY, &b, &at(0.0, 0.25 * k, 0.0));
        assert!((d as f64 + 0.25 * k).abs() <= 1e-5 * k, "{k}: {d}");
    }
}

#[test]
fn boxes_resting_sunk_and_apart() {
    let ground = HalfSpace::new(Vector::Y, 0.0).unwrap();
    let cube = Shape::from(Cuboid::new(Vector::new(0.5, 0.25, 1.0)).unwrap());
    let id = Pose::IDENTITY;
    // Resting exactly: touching, four corners at distance 0.
    let m = manifold_halfspace(&ground, &id, &cube, &at(3.0, 0.25, 1.0), 0.0);
    assert_eq!(m.len(), 4);
    assert!(m
        .points()
        .iter()
        .all(|p| p.distance == 0.0 && p.point_b.y == 0.0));
    let mut ids: Vec<u32> = m.points().iter().map(|p| p.feature).collect();
    ids.sort();
    assert_eq!(ids, [0, 1, 4, 5]); // the corners with y = −h (bit 1 clear)
                                   // Sunk by 0.1: the same corners, 0.1 deep; the contact says so.
    let m = manifold_halfspace(&ground, &id, &cube, &at(3.0, 0.15, 1.0), 0.0);
    assert_eq!(m.len(), 4);
    assert!(m.points().iter().all(|p| (p.distance + 0.1).abs() < 1e-6));
    let c = contact_halfspace(&ground, &id, &cube, &at(3.0, 0.15, 1.0));
    assert!((c.distance + 0.1).abs() < 1e-6 && c.normal == Vector::Y);
    // Apart by 0.3: no points without a margin, four with a margin of 0.5.
    assert!(manifold_halfspace(&ground, &id, &cube, &at(0.0, 0.55, 0.0), 0.0).is_empty());
    assert_eq!(
        manifold_halfspace(&ground, &id, &cube, &at(0.0, 0.55, 0.0), 0.5).len(),
        4
    );
    // The ids stay the same across a small motion.
    let a = manifold_halfspace(&ground, &id, &cube, &at(0.0, 0.2, 0.0), 0.0);
    let b = manifold_halfspace(&ground, &id, &cube, &at(1e-3, 0.2 - 1e-4, 2e-3), 0.0);
    let f = |m: &query::Manifold| {
        let mut v: Vec<u32> = m.points().iter().map(|p| p.feature).collect();
        v.sort();
        v
    };
    assert_eq!(f(&a), f(&b));
    // An edge down (turned 45° about z): 2 points; a corner down: 1.
    let edge = Pose::new(
        Rotation::from_rotation_z(std::f64::consts::FRAC_PI_4 as Real),
        v(0.0, 0.3, 0.0),
    )
    .unwrap();
    assert_eq!(manifold_halfspace(&ground, &id, &cube, &edge, 0.0).len(), 2);
    // A corner 0.01 deep (the next corner is higher by more than that): 1 point.
    let turn = Rotation::from_axis_angle(v(1.0, 0.3, 0.7).normalize(), 0.9);
    let lowest = contact_halfspace(&ground, &id, &cube, &Pose::from_rotation(turn).unwrap());
    let corner = Pose::new(turn, v(0.0, -lowest.distance as f64 - 0.01, 0.0)).unwrap();
    let c = contact_halfspace(&ground, &id, &cube, &corner);
    assert!((c.distance + 0.01).abs() < 1e-6);
    assert_eq!(
        manifold_halfspace(&ground, &id, &cube, &corner, 0.0).len(),
        1
    );
    // With a margin as large as the box, every corner within it is a candidate: 4.
    assert_eq!(
        manifold_halfspace(&ground, &id, &cube, &corner, 5.0).len(),
        4
    );
}

#[test]
fn capsules_and_cylinders() {
    let ground = HalfSpace::new(Vector::Y, 0.0).unwrap();
    let id = Pose::IDENTITY;
    let capsule = Shape::from(Capsule::new(1.0, 0.25).unwrap());
    // Lying along x, 0.05 deep: two points under the end balls.
    let lying = Pose::new(
        Rotation::from_rotation_z(std::f64::consts::FRAC_PI_2 as Real),
        v(0.0, 0.2, 0.0),
    )
    .unwrap();
    let m = manifold_halfspace(&ground, &id, &capsule, &lying, 0.0);
    assert_eq!(m.len(), 2);
    for p in m.points() {
        assert!((p.distance + 0.05).abs() < 1e-6);
        assert!((p.point_b.x.abs() - 1.0).abs() < 1e-5);
    }
    // Standing: one point.
    assert_eq!(
        manifold_halfspace(&ground, &id, &capsule, &at(0.0, 1.2, 0.0), 0.0).len(),
        1
    );
    // A cylinder standing 0.05 deep: four rim points spread evenly (a square of side
    // r√2), also when tilted by 1e-3 rad (no flicker to one point).
    let cyl = Shape::from(Cylinder::new(0.5, 1.0).unwrap());
    for tilt in [0.0, 1e-3] {
        let pose = Pose::new(Rotation::from_rotation_x(tilt), v(0.0, 0.45, 0.0)).unwrap();
        let m = manifold_halfspace(&ground, &id, &cyl, &pose, 0.0);
        assert_eq!(m.len(), 4, "tilt {tilt}");
        let pts: Vec<Vector> = m.points().iter().map(|p| p.point_b).collect();
        for i in 0..4 {
            let nearest = (0..4)
                .filter(|&j| j != i)
                .map(|j| (pts[i] - pts[j]).length())
                .fold(Real::INFINITY, Real::min);
            assert!(
                (nearest - 2f64.sqrt() as Real).abs() < 0.05,
                "tilt {tilt}: {pts:?}"
            );
        }
        assert!(m
            .points()
            .iter()
            .all(|p| p.distance < 0.0 && p.distance > -0.052));
    }
    // On its side: two points along the side line.
    let side = Pose::new(
        Rotation::from_rotation_x(std::f64::consts::FRAC_PI_2 as Real),
        v(0.0, 0.99, 0.0),
    )
    .unwrap();
    assert_eq!(manifold_halfspace(&ground, &id, &cyl, &side, 0.0).len(), 2);
}

#[test]
fn compound_table_on_its_legs() {
    let ground = HalfSpace::new(Vector::Y, 0.0).unwrap();
    let leg = Shape::from(Cuboid::new(Vector::new(0.05, 0.5, 0.05)).unwrap());
    let top = Shape::from(Cuboid::new(Vector::new(1.0, 0.05, 0.6)).unwrap());
    let mut parts = vec![(at(0.0, 1.05, 0.0), top)];
    for (x, z) in [(-0.9, -0.5), (0.9, -0.5), (0.9, 0.5), (-0.9, 0.5)] {
        parts.push((at(x, 0.5, z), leg.clone()));
    }
    let table = Compound::new(parts).unwrap();
    // Tilted a little about x: the legs at +z sink deepest.
    let pose = Pose::new(Rotation::from_rotation_x(0.01), v(0.0, -0.01, 0.0)).unwrap();
    let c = contact_halfspace_compound(&ground, &Pose::IDENTITY, &table, &pose);
    let per_part: Vec<Real> = table
        .parts()
        .iter()
        .map(|(p, s)| distance_halfspace(&ground, &Pose::IDENTITY, s, &pose.mul(p)))
        .collect();
    let least = per_part.iter().copied().fold(Real::INFINITY, Real::min);
    assert_eq!(c.answer.distance, least);
    assert_eq!(c.part_a, None);
    let part = c.part_b.unwrap() as usize;
    assert_eq!(per_part[part], least);
    assert!(part == 2 || part == 3, "a +z leg: {part}");
    // The manifold: one point per leg region, four in all, ids naming the legs.
    let m = manifold_halfspace_compound(&ground, &Pose::IDENTITY, &table, &pose, 0.02);
    assert_eq!(m.len(), 4);
    let mut legs: Vec<u32> = m.points().iter().map(|p| p.feature >> 20).collect();
    legs.sort();
    legs.dedup();
    assert!(
        legs.len() >= 3 && legs.iter().all(|&l| (1..=4).contains(&l)),
        "{legs:?}"
    );
    assert!((m.points()[0].distance - least).abs() < 1e-6);
    // Lifted clear: nothing.
    let up = at(0.0, 1.0, 0.0);
    assert!(manifold_halfspace_compound(&ground, &Pose::IDENTITY, &table, &up, 0.0).is_empty());
    assert!(
        contact_halfspace_compound(&ground, &Pose::IDENTITY, &table, &up)
            .answer
            .distance
            > 0.9
    );
}

#[test]
fn rays_analytic() {
    let ground = HalfSpace::new(Vector::Y, 1.0).unwrap();
    let id = Pose::IDENTITY;
    let solid = RayOptions::default();
    let hollow = RayOptions {
        solid: false,
        ..RayOptions::default()
    };
    let cast = |o: Vector, d: Vector, opts: &RayOptions| {
        cast_ray_halfspace(&ground, &id, &Ray::new(o, d), opts)
            .unwrap()
            .hit
    };
    let hit = cast(v(0.0, 5.0, 0.0), v(1.0, -2.0, 0.0), &solid).unwrap();
    assert_eq!(
        (hit.toi, hit.point, hit.normal, hit.inside),
        (2.0, v(2.0, 1.0, 0.0), Vector::Y, false)
    );
    // max_toi is inclusive.
    let upto = |t: f64| RayOptions {
        max_toi: t as Real,
        solid: true,
    };
    assert!(cast(v(0.0, 5.0, 0.0), v(1.0, -2.0, 0.0), &upto(2.0)).is_some());
    assert!(cast(v(0.0, 5.0, 0.0), v(1.0, -2.0, 0.0), &upto(1.999)).is_none());
    // Parallel outside, or leaving: no hit.
    assert!(cast(v(0.0, 5.0, 0.0), v(1.0, 0.0, 0.0), &solid).is_none());
    assert!(cast(v(0.0, 5.0, 0.0), v(0.0, 1.0, 0.0), &solid).is_none());
    // Inside and solid: a hit at 0.
    let hit = cast(v(0.0, -1.0, 0.0), v(1.0, 0.0, 0.0), &solid).unwrap();
    assert_eq!((hit.toi, hit.inside), (0.0, true));
    // Inside and hollow: the exit, or none.
    let hit = cast(v(0.0, -1.0, 0.0), v(0.0, 4.0, 0.0), &hollow).unwrap();
    assert_eq!((hit.toi, hit.normal, hit.inside), (0.5, Vector::Y, true));
    assert!(cast(v(0.0, -1.0, 0.0), v(1.0, 0.0, 0.0), &hollow).is_none());
    assert!(cast(v(0.0, -1.0, 0.0), v(0.0, -1.0, 0.0), &hollow).is_none());
    // Nearly parallel, with a time beyond the range of the numbers: a miss, no NaN.
    let tiny = Real::MIN_POSITIVE;
    let r = cast(v(0.0, 5.0, 0.0), Vector::new(1.0, -tiny, 0.0), &solid);
    assert!(r.is_none_or(|h| h.toi.is_finite() && h.point.is_finite()));
}

#[test]
fn linear_casts_analytic() {
    let ground = HalfSpace::new(Vector::Y, 0.0).unwrap();
    let cube = Shape::from(Cuboid::new(Vector::splat(0.5)).unwrap());
    let start = at(0.0, 3.5, 0.0);
    let new = |mh: Motion, mb: Motion| {
        HalfSpaceCastInput::new(&ground, Pose::IDENTITY, mh, &cube, start, mb)
    };
    // Falling at 1: 3 units to fall.
    let hit = cast_shape_halfspace(&new(Motion::ZERO, Motion::linear(v(2.0, -1.0, 0.0)))).unwrap();
    assert!(hit.hit && (hit.toi - 3.0).abs() < 1e-6);
    assert!((hit.point_b.y).abs() < 1e-6 && (hit.point_b.x - 6.0).abs() < 1.0);
    // The ground rising at 1 as well: 1.5.
    let hit =
        cast_shape_halfspace(&new(Motion::linear(Vector::Y), Motion::linear(-Vector::Y))).unwrap();
    assert!((hit.toi - 1.5).abs() < 1e-6);
    assert!((hit.point_a.y - 1.5).abs() < 1e-6);
    // With a target of 1: 2; max_toi inclusive.
    let mut i = new(Motion::ZERO, Motion::linear(-Vector::Y));
    i.target_distance = 1.0;
    i.max_toi = 2.0;
    let hit = cast_shape_halfspace(&i).unwrap();
    assert!(hit.hit && (hit.toi - 2.0).abs() < 1e-6);
    assert!((hit.point_b - hit.point_a - Vector::Y).length() < 1e-6);
    i.max_toi = 1.99;
    assert!(!cast_shape_halfspace(&i).unwrap().hit);
    // Sliding along, or rising: no hit.
    assert!(
        !cast_shape_halfspace(&new(Motion::ZERO, Motion::linear(Vector::X)))
            .unwrap()
            .hit
    );
    assert!(
        !cast_shape_halfspace(&new(Motion::ZERO, Motion::linear(Vector::Y)))
            .unwrap()
            .hit
    );
    // Resting on it and sliding: within the target, no hit; pressed down: a hit at 0.
    let resting = |mb: Motion| {
        cast_shape_halfspace(&HalfSpaceCastInput::new(
            &ground,
            Pose::IDENTITY,
            Motion::ZERO,
            &cube,
            at(0.0, 0.5, 0.0),
            mb,
        ))
        .unwrap()
    };
    let slide = resting(Motion::linear(Vector::X));
    assert!(
        !slide.hit && slide.start == CastStart::WithinTarget && slide.initial_distance == Some(0.0)
    );
    let press = resting(Motion::linear(v(1.0, -1.0, 0.0)));
    assert!(press.hit && press.toi == 0.0 && press.start == CastStart::WithinTarget);
    // Sunk: overlapping, with the depth.
    let sunk = cast_shape_halfspace(&HalfSpaceCastInput::new(
        &ground,
        Pose::IDENTITY,
        Motion::ZERO,
        &cube,
        at(0.0, 0.25, 0.0),
        Motion::ZERO,
    ))
    .unwrap();
    assert!(sunk.hit && sunk.start == CastStart::Overlapping);
    assert!((sunk.initial_distance.unwrap() + 0.25).abs() < 1e-6);
    // A box tumbling down: conservative advancement, stopping with a corner at the
    // ground.
    let tumble = new(Motion::ZERO, Motion::new(-Vector::Y, v(0.0, 0.0, 2.0)));
    let hit = cast_shape_halfspace(&tumble).unwrap();
    assert!(hit.hit && hit.status == query::QueryStatus::Converged);
    assert!(hit.toi > 3.0 - 0.8 && hit.toi < 3.0, "{}", hit.toi);
    let landed = Motion::new(-Vector::Y, v(0.0, 0.0, 2.0)).pose_at(&start, hit.toi);
    let d = distance_halfspace(&ground, &Pose::IDENTITY, &cube, &landed);
    assert!(d >= 0.0 && (d as f64) < 1e-4, "{d}");
}

#[test]
fn hostile_input_gives_typed_errors() {
    let nan = Real::NAN;
    let inf = Real::INFINITY;
    assert!(matches!(
        HalfSpace::new(v(0.0, nan as f64, 0.0), 0.0),
        Err(ShapeError::NonFinitePoint { .. })
    ));
    assert!(matches!(
        HalfSpace::new(v(inf as f64, 0.0, 0.0), 0.0),
        Err(ShapeError::NonFinitePoint { .. })
    ));
    assert!(matches!(
        HalfSpace::new(v(0.0, 2.0, 0.0), 0.0),
        Err(ShapeError::NotUnit { .. })
    ));
    assert!(matches!(
        HalfSpace::new(v(0.0, 0.998, 0.0), 0.0),
        Err(ShapeError::NotUnit { .. })
    ));
    assert!(matches!(
        HalfSpace::new(Vector::ZERO, 0.0),
        Err(ShapeError::NotUnit { .. })
    ));
    assert!(matches!(
        HalfSpace::new(Vector::Y, nan),
        Err(ShapeError::NonFiniteValue { .. })
    ));
    assert!(matches!(
        HalfSpace::new(Vector::Y, -inf),
        Err(ShapeError::NonFiniteValue { .. })
    ));
    assert!(matches!(
        HalfSpace::new(Vector::Y, MAX_MAGNITUDE * 2.0),
        Err(ShapeError::OutOfRange { .. })
    ));
    assert!(matches!(
        HalfSpace::through(v(nan as f64, 0.0, 0.0), Vector::Y),
        Err(ShapeError::NonFinitePoint { .. })
    ));
    // Within ±1e-3 of unit: accepted and renormalised.
    let h = HalfSpace::new(v(0.577, 0.577, 0.577), 0.0).unwrap();
    assert!((h.normal().length() - 1.0).abs() < 1e-6);
    assert!(HalfSpace::new(v(0.0, 1.0009, 0.0), 0.0).is_ok());
    // Query input.
    let id = Pose::IDENTITY;
    let bad_ray = Ray::new(v(nan as f64, 0.0, 0.0), Vector::Y);
    assert!(cast_ray_halfspace(&h, &id, &bad_ray, &RayOptions::default()).is_err());
    let zero = Ray::new(Vector::ZERO, Vector::ZERO);
    assert!(matches!(
        cast_ray_halfspace(&h, &id, &zero, &RayOptions::default()),
        Err(CastError::ZeroDirection)
    ));
    let neg = RayOptions {
        max_toi: -1.0,
        solid: true,
    };
    assert!(cast_ray_halfspace(&h, &id, &Ray::new(Vector::ZERO, Vector::Y), &neg).is_err());
    assert!(project_point_halfspace(&h, &id, v(0.0, inf as f64, 0.0)).is_err());
    assert!(contains_point_halfspace(&h, &id, v(0.0, nan as f64, 0.0)).is_err());
    let ball = Shape::from(Sphere::new(1.0).unwrap());
    let mut i = HalfSpaceCastInput::new(
        &h,
        id,
        Motion::ZERO,
        &ball,
        at(0.0, 5.0, 0.0),
        Motion::linear(v(0.0, nan as f64, 0.0)),
    );
    assert!(cast_shape_halfspace(&i).is_err());
    i.motion_b = Motion::linear(-Vector::Y);
    i.target_distance = -1.0;
    assert!(matches!(
        cast_shape_halfspace(&i),
        Err(CastError::InvalidNumber { .. })
    ));
    i.target_distance = 0.0;
    i.max_toi = nan;
    assert!(cast_shape_halfspace(&i).is_err());
    i.max_toi = inf;
    i.motion_h = Motion::new(Vector::ZERO, Vector::X);
    assert!(matches!(
        cast_shape_halfspace(&i),
        Err(CastError::Unsupported(_))
    ));
    // Extreme valid numbers: finite answers everywhere.
    let far = HalfSpace::new(Vector::Y, MAX_MAGNITUDE).unwrap();
    let tiny = Shape::from(Sphere::new(1e-30 as Real).unwrap());
    let huge = Shape::from(Sphere::new(MAX_MAGNITUDE * 0.5).unwrap());
    for (hs, b, pose) in [
        (&far, &ball, at(0.0, -(MAX_MAGNITUDE as f64), 0.0)),
        (&h, &tiny, at(0.0, 1e-30, 0.0)),
        (&h, &huge, at(0.0, 0.0, MAX_MAGNITUDE as f64)),
    ] {
        let c = contact_halfspace(hs, &id, b, &pose);
        assert!(
            c.distance.is_finite()
                && c.point_a.is_finite()
                && c.point_b.is_finite()
                && c.normal.is_finite()
        );
        let m = manifold_halfspace(hs, &id, b, &pose, 1.0);
        assert!(m
            .points()
            .iter()
            .all(|p| p.point_a.is_finite() && p.distance.is_finite()));
        let r = cast_ray_halfspace(
            hs,
            &id,
            &Ray::new(pose.translation(), -Vector::Y),
            &RayOptions::default(),
        )
        .unwrap();
        assert!(r
            .hit
            .is_none_or(|h| h.toi.is_finite() && h.point.is_finite()));
        let ci = HalfSpaceCastInput::new(
            hs,
            id,
            Motion::ZERO,
            b,
            pose,
            Motion::new(-Vector::Y, Vector::X),
        );
        let s = cast_shape_halfspace(&ci).unwrap();
        assert!(s.toi.is_finite() && s.point_b.is_finite());
    }
    // A NaN or negative margin is 0.
    let ground = HalfSpace::example();
    assert!(manifold_halfspace(&ground, &id, &ball, &at(0.0, 1.5, 0.0), nan).is_empty());
    assert!(manifold_halfspace(&ground, &id, &ball, &at(0.0, 1.5, 0.0), -1.0).is_empty());
    assert_eq!(
        manifold_halfspace(&ground, &id, &ball, &at(0.0, 1.5, 0.0), 0.6).len(),
        1
    );
}
