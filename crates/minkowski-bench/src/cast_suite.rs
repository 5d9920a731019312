//! The ray and shape-cast suite of `cast-report`: classes, seeded cases, the reference
//! and the agreement check of every method's answer.
//!
//! # The reference
//!
//! Independent of every method, in f64. Along a ray, the exact signed distance from the
//! ray's point to the shape ([`Geo::signed_distance`]) is a convex function `s(t)`; along
//! a linear cast, so is the signed distance of A and the translated B,
//! `s(t) = max_n (gap₀(n) + t n·v)` (a maximum of affine functions of `t`). It is
//! evaluated exactly for pairs with a ball (`sd_other(centre) − r`) and for two capsules
//! (segment distance less the radii), with [`reference::reference`] for polytope pairs
//! (exact), and for other curved pairs as the best of reference.rs's gap search and of
//! the gaps along the distance gradients at the minimiser of `sd_A + sd_B` — a
//! certified lower bound, while that minimum is an upper bound; the report prints how
//! far apart they are at the time of impact (the gap search alone falls short by up to
//! 8e-4 on cylinder–cone contacts, stalling on the ridges of the gap function). The time
//! of impact is the first `t` with `s(t) ≤ 0`: found
//! by bisection to 1e-12 in time, after 32 samples of `s` (and a golden-section search
//! for its minimum when no sample is low enough) bracket it. Rays at spheres, boxes,
//! capsules and cylinders also have closed forms, written here; the report prints how
//! far they are from the bisection.
//!
//! # The check
//!
//! With `tol` the pair report's distance tolerance ([`suite::tolerance`]: 1e-6 × size in
//! f64, 1e-4 × size in f32), a reported time `t` agrees when the shapes are within `tol`
//! of touching there and have not penetrated deeper than `tol` before: `t` lies between
//! the first time `s ≤ tol` and the first time `s ≤ −tol` (both bisected). This is a
//! tolerance on the time scaled by the approach speed (`tol / |ds/dt|`), and it stays
//! meaningful for grazing motions, where that speed vanishes. A miss agrees unless `s`
//! goes below `−tol` in the interval. Where a method gives them: a ray's normal must be
//! a supporting normal at the hit (`|h(n) − n·p| ≤ tol + |s(t)|`) and its hit point must
//! be `origin + t·dir` within `tol`; a cast's normal must separate the shapes at `t` as
//! far as they are apart (`gap(n) ≥ s(t) − tol`), its witness points must lie on their
//! shapes within `tol`, at most `max(s(t), 0) + tol` apart. Gross disagreements use
//! [`suite::gross_tolerance`] (1e-3 × size) in the same rules.

use crate::peers::cast::{CastHit, CastOutcome, RayInput};
use crate::peers::{PoseArray, Spec};
use crate::reference::{self, Geo, Placed};
use crate::suite::{self, sphere_points};
use crate::Rng;
use glam::DVec3;
use minkowski::{Real, Vector};

/// Rays are searched over `[0, RAY_MAX_TOI]` (unit directions: a length).
pub const RAY_MAX_TOI: Real = 10.0;
/// Casts are searched over `[0, CAST_MAX_TOI]`.
pub const CAST_MAX_TOI: Real = 1.0;

/// One shape that rays are cast at.
pub struct RayClass {
    /// Name in tables.
    pub name: String,
    /// The shape.
    pub shape: Spec,
}

/// A pair of shapes, B cast against A.
pub struct CastClass {
    /// Name in tables.
    pub name: String,
    /// Shape A (still).
    pub a: Spec,
    /// Shape B (moving).
    pub b: Spec,
}

/// The ray classes: sphere, box, capsule, cylinder, cone and a 32-vertex hull, each about
/// one unit across (the pair report's shapes).
pub fn ray_classes() -> Vec<RayClass> {
    let c = |name: &str, shape: Spec| RayClass {
        name: name.to_string(),
        shape,
    };
    vec![
        c("sphere", Spec::Sphere(0.5)),
        c("box", Spec::Box([0.5, 0.4, 0.3])),
        c("capsule", Spec::Capsule(0.4, 0.25)),
        c("cylinder", Spec::Cylinder(0.5, 0.4)),
        c("cone", Spec::Cone(0.5, 0.4)),
        c(
            "hull 32",
            Spec::hull(sphere_points(32, 1032)).unwrap_or(Spec::Sphere(0.5)),
        ),
    ]
}

/// The cast classes: sphere–sphere, then the pair report's sphere–box, box–box,
/// capsule–capsule, cylinder–cone, hull 8 and hull 32.
pub fn cast_classes() -> Vec<CastClass> {
    let mut c = vec![CastClass {
        name: "sphere–sphere".to_string(),
        a: Spec::Sphere(0.5),
        b: Spec::Sphere(0.3),
    }];
    let pairs = suite::classes();
    for name in [
        "sphere–box",
        "box–box",
        "capsule–capsule",
        "cylinder–cone",
        "hull 8",
        "hull 32",
    ] {
        if let Some(p) = pairs.iter().find(|p| p.name == name) {
            c.push(CastClass {
                name: p.name.clone(),
                a: p.a.clone(),
                b: p.b.clone(),
            });
        }
    }
    c
}

/// One ray case: the shape's pose and the ray.
#[derive(Debug, Clone, Copy)]
pub struct RayCase {
    /// Pose of the shape.
    pub pose: PoseArray,
    /// The ray (world frame).
    pub ray: RayInput,
}

/// One cast case: A still at `a`, B from `b` at `velocity`.
#[derive(Debug, Clone, Copy)]
pub struct CastCase {
    /// Pose of A.
    pub a: PoseArray,
    /// Pose of B at time 0.
    pub b: PoseArray,
    /// B's velocity (world frame).
    pub velocity: [Real; 3],
    /// End of the interval.
    pub max_toi: Real,
}

fn pose_array(rot: minkowski::Rotation, t: Vector) -> PoseArray {
    [t.x, t.y, t.z, rot.x, rot.y, rot.z, rot.w]
}

/// `n` seeded rays: the shape at a random pose (rotation, centre in [−1, 1]³); nine in
/// ten rays start 3 units from its centre aimed at a point within 0.7 of it (most hit,
/// some miss), one in ten starts within 0.15 of the centre (inside) in a random direction.
pub fn ray_cases(n: usize, seed: u64) -> Vec<RayCase> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| {
            let rot = rng.rotation();
            let c = Vector::new(rng.signed(), rng.signed(), rng.signed());
            let (origin, dir) = if i % 10 == 9 {
                let o = c + rng.dir() * (0.15 * rng.signed().abs());
                (o, rng.dir())
            } else {
                let o = c + rng.dir() * 3.0;
                let aim = c + rng.dir() * (0.7 * rng.signed().abs());
                (o, (aim - o).normalize())
            };
            RayCase {
                pose: pose_array(rot, c),
                ray: RayInput {
                    origin: origin.to_array(),
                    dir: dir.to_array(),
                    max_toi: RAY_MAX_TOI,
                },
            }
        })
        .collect()
}

/// `n` seeded casts: A at the origin, B 3 units away in a random direction, both randomly
/// rotated; B moves at speed 6 towards a point within 0.9 of A's centre (reached at time
/// 0.5), over `[0, 1]`.
pub fn cast_cases(n: usize, seed: u64) -> Vec<CastCase> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let ra = rng.rotation();
            let rb = rng.rotation();
            let pb = rng.dir() * 3.0;
            let aim = rng.dir() * (0.9 * rng.signed().abs());
            let v = (aim - pb).normalize() * 6.0;
            CastCase {
                a: pose_array(ra, Vector::ZERO),
                b: pose_array(rb, pb),
                velocity: v.to_array(),
                max_toi: CAST_MAX_TOI,
            }
        })
        .collect()
}

fn dv(a: [Real; 3]) -> DVec3 {
    DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64)
}

fn v(a: [f64; 3]) -> DVec3 {
    DVec3::from_array(a)
}

/// The levels whose first crossing the reference finds: +gross, +tol, 0, −tol, −gross.
const LEVELS: usize = 5;

/// The reference of one case: when the signed distance `s(t)` first comes down to each
/// level.
#[derive(Debug, Clone, Copy)]
pub struct Band {
    /// The time of impact: the closed form where there is one, else the bisection's.
    pub toi: Option<f64>,
    /// The bisection's time of impact.
    pub bisected: Option<f64>,
    /// First times `s ≤ +gross`, `+tol`, `0`, `−tol`, `−gross` (`None`: never in the
    /// interval).
    pub first: [Option<f64>; LEVELS],
    /// Smallest `s` over the interval (as found).
    pub min: f64,
    /// `s(0)`.
    pub start: f64,
    /// End of the interval.
    pub max_toi: f64,
    /// Agreement tolerance on distances.
    pub tol: f64,
    /// Gross tolerance on distances.
    pub gross: f64,
    /// How far the distance's upper bound is above the lower (the reference value) at
    /// the time of impact: 0 where the reference is exact.
    pub uncertainty: f64,
}

impl Band {
    /// Whether the case starts inside (a ray) or overlapping (a cast): `s(0) ≤ 0`.
    pub fn starts_inside(&self) -> bool {
        self.start <= 0.0
    }
}

/// First times a convex `s` on `[0, t_max]` comes down to each of `levels`, and its
/// smallest value found.
fn first_times(
    s: &mut dyn FnMut(f64) -> f64,
    t_max: f64,
    levels: &[f64],
) -> (Vec<Option<f64>>, f64, f64) {
    const N: usize = 32;
    let ts: Vec<f64> = (0..=N).map(|i| t_max * i as f64 / N as f64).collect();
    let vals: Vec<f64> = ts.iter().map(|&t| s(t)).collect();
    let lowest = levels.iter().copied().fold(f64::INFINITY, f64::min);
    let k = (0..=N)
        .min_by(|&i, &j| vals[i].total_cmp(&vals[j]))
        .unwrap_or(0);
    let (mut t_low, mut v_low) = (ts[k], vals[k]);
    if v_low > lowest {
        // Golden section on the samples around the smallest (s is convex).
        let (mut a, mut b) = (ts[k.saturating_sub(1)], ts[(k + 1).min(N)]);
        let g = (5f64.sqrt() - 1.0) / 2.0;
        let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
        let (mut fc, mut fd) = (s(c), s(d));
        while b - a > 1e-13 * t_max.max(1.0) {
            if fc.min(fd) < v_low {
                (t_low, v_low) = if fc < fd { (c, fc) } else { (d, fd) };
                if v_low <= lowest {
                    break;
                }
            }
            if fc < fd {
                (b, d, fd) = (d, c, fc);
                c = b - g * (b - a);
                fc = s(c);
            } else {
                (a, c, fc) = (c, d, fd);
                d = a + g * (b - a);
                fd = s(d);
            }
        }
    }
    let first = levels
        .iter()
        .map(|&level| {
            if vals[0] <= level {
                return Some(0.0);
            }
            if v_low > level {
                return None;
            }
            let (mut lo, mut hi) = match (1..=N).find(|&j| vals[j] <= level) {
                Some(j) => (ts[j - 1], ts[j]),
                None => {
                    let before = ts
                        .iter()
                        .copied()
                        .filter(|&t| t < t_low)
                        .fold(0.0, f64::max);
                    (before, t_low)
                }
            };
            while hi - lo > 1e-12 {
                let mid = 0.5 * (lo + hi);
                if s(mid) <= level {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            Some(hi)
        })
        .collect();
    (first, v_low, vals[0])
}

fn band(
    mut s: impl FnMut(f64) -> f64,
    t_max: f64,
    scale: f64,
    closed: Option<Option<f64>>,
) -> Band {
    let (tol, gross) = (suite::tolerance(scale), suite::gross_tolerance(scale));
    let levels = [gross, tol, 0.0, -tol, -gross];
    let (first, min, start) = first_times(&mut s, t_max, &levels);
    let mut f = [None; LEVELS];
    f.copy_from_slice(&first);
    Band {
        toi: closed.unwrap_or(f[2]),
        bisected: f[2],
        first: f,
        min,
        start,
        max_toi: t_max,
        tol,
        gross,
        uncertainty: 0.0,
    }
}

/// The ray's line `o + t d` inside the shape (local frame), closed forms: entry and exit
/// times, `None` when it misses; `None` for the shapes without one (`Err`).
fn closed_span(g: &Geo, o: DVec3, d: DVec3) -> Result<Option<(f64, f64)>, ()> {
    // The ball ‖x − c‖ ≤ r.
    let ball = |c: DVec3, r: f64| -> Option<(f64, f64)> {
        let p = o - c;
        let (a, b, k) = (d.dot(d), p.dot(d), p.dot(p) - r * r);
        let disc = b * b - a * k;
        (disc >= 0.0).then(|| {
            let q = disc.sqrt();
            ((-b - q) / a, (-b + q) / a)
        })
    };
    // The slab |x_i| ≤ h.
    let slab = |i: usize, h: f64| -> Option<(f64, f64)> {
        if d[i] == 0.0 {
            return (o[i].abs() <= h).then_some((f64::NEG_INFINITY, f64::INFINITY));
        }
        let (t1, t2) = ((-h - o[i]) / d[i], (h - o[i]) / d[i]);
        Some((t1.min(t2), t1.max(t2)))
    };
    // The infinite cylinder x² + z² ≤ r² around y.
    let tube = |r: f64| -> Option<(f64, f64)> {
        let (p, e) = (DVec3::new(o.x, 0.0, o.z), DVec3::new(d.x, 0.0, d.z));
        if e == DVec3::ZERO {
            return (p.length() <= r).then_some((f64::NEG_INFINITY, f64::INFINITY));
        }
        let (a, b, k) = (e.dot(e), p.dot(e), p.dot(p) - r * r);
        let disc = b * b - a * k;
        (disc >= 0.0).then(|| {
            let q = disc.sqrt();
            ((-b - q) / a, (-b + q) / a)
        })
    };
    let meet = |x: Option<(f64, f64)>, y: Option<(f64, f64)>| match (x, y) {
        (Some(x), Some(y)) if x.0.max(y.0) <= x.1.min(y.1) => Some((x.0.max(y.0), x.1.min(y.1))),
        _ => None,
    };
    Ok(match g {
        Geo::Sphere(r) => ball(DVec3::ZERO, *r),
        Geo::Cylinder(h, r) => meet(tube(*r), slab(1, *h)),
        Geo::Capsule(h, r) => {
            let pieces = [
                meet(tube(*r), slab(1, *h)),
                ball(DVec3::new(0.0, *h, 0.0), *r),
                ball(DVec3::new(0.0, -h, 0.0), *r),
            ];
            pieces
                .into_iter()
                .flatten()
                .reduce(|x, y| (x.0.min(y.0), x.1.max(y.1)))
        }
        Geo::Poly(_) => return Err(()),
        Geo::Cone(..) => return Err(()),
    })
}

/// The closed-form time of impact of a ray (local frame) at a sphere, box, capsule or
/// cylinder, solid: 0 from inside. `None` for the other shapes; `Some(None)` for a miss.
pub fn ray_closed_form(spec: &Spec, o: DVec3, d: DVec3, max_toi: f64) -> Option<Option<f64>> {
    let span = match spec {
        // Boxes: the slabs of the three axes.
        Spec::Box(h) => {
            let mut span = Some((f64::NEG_INFINITY, f64::INFINITY));
            for i in 0..3 {
                let h = h[i] as f64;
                let s = if d[i] == 0.0 {
                    (o[i].abs() <= h).then_some((f64::NEG_INFINITY, f64::INFINITY))
                } else {
                    let (t1, t2) = ((-h - o[i]) / d[i], (h - o[i]) / d[i]);
                    Some((t1.min(t2), t1.max(t2)))
                };
                span = match (span, s) {
                    (Some(x), Some(y)) if x.0.max(y.0) <= x.1.min(y.1) => {
                        Some((x.0.max(y.0), x.1.min(y.1)))
                    }
                    _ => None,
                };
            }
            span
        }
        _ => closed_span(&Geo::new(spec), o, d).ok()?,
    };
    Some(match span {
        Some((t_in, t_out)) if t_out >= 0.0 && t_in <= max_toi => Some(t_in.max(0.0)),
        _ => None,
    })
}

/// The reference of a ray case.
pub fn ray_band(spec: &Spec, geo: &Geo, case: &RayCase) -> Band {
    let shape = Placed::new(geo, &case.pose);
    let (o, d) = (dv(case.ray.origin), dv(case.ray.dir));
    let (lo, ld) = (shape.to_local(o), shape.to_local_vector(d));
    let t_max = case.ray.max_toi as f64;
    let closed = ray_closed_form(spec, lo, ld, t_max);
    band(
        |t| geo.signed_distance(lo + ld * t),
        t_max,
        geo.size(),
        closed,
    )
}

/// Smallest value of a convex `f` on `[0, 1]` (golden section to 1e-15).
fn golden_min(f: impl Fn(f64) -> f64) -> f64 {
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (0.0f64, 1.0f64);
    let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
    let (mut fc, mut fd) = (f(c), f(d));
    while b - a > 1e-15 {
        if fc < fd {
            (b, d, fd) = (d, c, fc);
            c = b - g * (b - a);
            fc = f(c);
        } else {
            (a, c, fc) = (c, d, fd);
            d = a + g * (b - a);
            fd = f(d);
        }
    }
    f(0.0).min(f(1.0)).min(fc).min(fd)
}

/// Distance from `p` to the segment `[q0, q1]`.
fn point_segment(p: DVec3, q0: DVec3, q1: DVec3) -> f64 {
    let e = q1 - q0;
    let t = if e.length_squared() > 0.0 {
        ((p - q0).dot(e) / e.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (q0 + e * t - p).length()
}

/// A capsule's segment (world frame).
fn segment(p: &Placed, h: f64) -> (DVec3, DVec3) {
    (
        p.to_world(DVec3::new(0.0, -h, 0.0)),
        p.to_world(DVec3::new(0.0, h, 0.0)),
    )
}

/// Smallest of `sd_A + sd_B` around `p` (a convex function whose minimum is the distance
/// of separated shapes, and every value of which bounds it from above: for `p` outside
/// both it is the triangle inequality, and a ball of radius `depth` around a point of A
/// is at least the distance from B), by a pattern search over 26 directions turned at
/// every shrink.
fn upper_bound(a: &Placed, b: &Placed, p: DVec3) -> (f64, DVec3) {
    let f = |p: DVec3| a.signed_distance(p) + b.signed_distance(p);
    let mut dirs: Vec<DVec3> = Vec::new();
    for x in -1..=1 {
        for y in -1..=1 {
            for z in -1..=1 {
                if (x, y, z) != (0, 0, 0) {
                    dirs.push(DVec3::new(x as f64, y as f64, z as f64).normalize());
                }
            }
        }
    }
    let (mut p, mut best) = (p, f(p));
    let mut step = 0.05;
    let mut turn = glam::DQuat::IDENTITY;
    let twist = glam::DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.61);
    while step > 1e-13 {
        let mut improved = false;
        for d in &dirs {
            let q = p + turn * *d * step;
            let fq = f(q);
            if fq < best {
                (p, best) = (q, fq);
                improved = true;
            }
        }
        turn = twist * turn;
        if !improved {
            step *= 0.5;
        }
    }
    (best, p)
}

/// The gradient of a shape's distance function at `p` (central differences): the unit
/// direction from its nearest point towards `p` when `p` is outside.
fn gradient(shape: &Placed, p: DVec3) -> DVec3 {
    let h = 1e-7;
    let d = |e: DVec3| shape.signed_distance(p + e * h) - shape.signed_distance(p - e * h);
    DVec3::new(d(DVec3::X), d(DVec3::Y), d(DVec3::Z)).normalize_or_zero()
}

/// Bounds on the signed distance of A and B moved by `shift`.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    /// Certified lower bound (the best gap found): the reference value.
    lower: f64,
    /// Upper bound (exact pairs: the same value).
    upper: f64,
    /// The direction of the best gap.
    normal: DVec3,
}

/// The signed distance of A and B moved by `shift`, bounded from both sides.
///
/// Pairs with a ball or two capsules are answered in closed form, exactly, apart and
/// overlapping (a ball of radius r around c: `sd_other(c) − r`; two capsules: the
/// distance of their segments less both radii, the segments' distance by golden section
/// on the convex distance along one of them). Other pairs use [`reference::reference`]
/// with `hints` as extra directions (exact for polytopes). For a curved pair its best gap is a lower bound
/// that can fall short on the ridges of the gap function; the upper bound of
/// [`upper_bound`] (from the support points along the best gap's direction) and the
/// gradients of both distance functions at its minimiser, tried as gap directions,
/// bound and improve it.
fn cast_distance(a: &Placed, b: &Placed, shift: DVec3, hints: &[DVec3]) -> Bounds {
    let b = b.translated(shift);
    let towards = (b.position() - a.position()).normalize_or_zero();
    let exact = |d: f64| Bounds {
        lower: d,
        upper: d,
        normal: towards,
    };
    match (a.geo(), b.geo()) {
        (Geo::Sphere(r), _) => return exact(b.signed_distance(a.position()) - r),
        (_, Geo::Sphere(r)) => return exact(a.signed_distance(b.position()) - r),
        (Geo::Capsule(ha, ra), Geo::Capsule(hb, rb)) => {
            let (p0, p1) = segment(a, *ha);
            let (q0, q1) = segment(&b, *hb);
            let d = golden_min(|u| point_segment(p0 + (p1 - p0) * u, q0, q1));
            return exact(d - ra - rb);
        }
        _ => {}
    }
    let r = reference::reference(a, &b, hints, &[]);
    let mut best = (r.distance, r.normal);
    if matches!((a.geo(), b.geo()), (Geo::Poly(_), Geo::Poly(_))) {
        return Bounds {
            lower: best.0,
            upper: best.0,
            normal: best.1,
        };
    }
    let start = 0.5 * (a.support(best.1) + b.support(-best.1));
    let (upper, p) = upper_bound(a, &b, start);
    for n in [gradient(a, p), -gradient(&b, p)] {
        if n != DVec3::ZERO {
            let g = reference::gap(a, &b, n);
            if g > best.0 {
                best = (g, n);
            }
        }
    }
    Bounds {
        lower: best.0,
        upper: upper.max(best.0),
        normal: best.1,
    }
}

/// The reference of a cast case: bisection on the signed distance's certified lower
/// bound ([`cast_distance`]), each evaluation also trying the previous one's direction.
/// Sets [`Band::uncertainty`]: upper less lower bound at the time of impact.
pub fn cast_band(ga: &Geo, gb: &Geo, case: &CastCase) -> Band {
    let (a, b) = (Placed::new(ga, &case.a), Placed::new(gb, &case.b));
    let vel = dv(case.velocity);
    let mut all: Vec<DVec3> = vec![b.position() - a.position()];
    let n0 = all.len();
    let mut out = band(
        |t| {
            let r = cast_distance(&a, &b, vel * t, &all);
            all.truncate(n0);
            all.push(r.normal);
            r.lower
        },
        case.max_toi as f64,
        ga.size().max(gb.size()),
        None,
    );
    if let Some(t) = out.toi {
        let r = cast_distance(&a, &b, vel * t, &all);
        out.uncertainty = r.upper - r.lower;
    }
    out
}

/// Why an answer disagrees with the reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CastDisagreement {
    /// No hit where the shapes penetrate deeper than the tolerance in the interval.
    Missed,
    /// A hit where the shapes never come within the tolerance.
    FalseHit {
        /// The time said.
        said: f64,
    },
    /// The time of impact is outside the agreeing band.
    Toi {
        /// The time said.
        said: f64,
    },
    /// The normal is not a supporting (rays) or separating (casts) normal at the hit.
    Normal {
        /// By how much it fails.
        off: f64,
    },
    /// A point is off its place (rays: off the ray; casts: off its shape, or the two
    /// too far apart).
    Point {
        /// By how much.
        off: f64,
    },
    /// The method gave no answer.
    NoAnswer,
}

/// The time check common to rays and casts: `Ok(t)` when the outcome's hit time agrees
/// (`Ok(None)` for an agreeing miss).
fn check_time(
    out: &CastOutcome,
    band: &Band,
    gross: bool,
) -> Result<Option<CastHit>, CastDisagreement> {
    let (within, deep) = if gross {
        (band.first[0], band.first[4])
    } else {
        (band.first[1], band.first[3])
    };
    match out {
        CastOutcome::NoAnswer => Err(CastDisagreement::NoAnswer),
        CastOutcome::Miss => match deep {
            Some(_) => Err(CastDisagreement::Missed),
            None => Ok(None),
        },
        CastOutcome::Hit(h) => {
            let Some(lo) = within else {
                return Err(CastDisagreement::FalseHit { said: h.toi });
            };
            let hi = deep.unwrap_or(band.max_toi);
            // The bisection brackets each crossing to 1e-12.
            let slack = 2e-12 * band.max_toi.max(1.0);
            if h.toi.is_finite() && h.toi >= lo - slack && h.toi <= hi + slack {
                Ok(Some(*h))
            } else {
                Err(CastDisagreement::Toi { said: h.toi })
            }
        }
    }
}

fn unit(n: [f64; 3]) -> Option<Result<DVec3, CastDisagreement>> {
    let n = v(n);
    if !n.is_finite() {
        return None;
    }
    let l = n.length();
    Some(if (l - 1.0).abs() <= 1e-3 {
        Ok(n / l)
    } else {
        Err(CastDisagreement::Normal { off: l - 1.0 })
    })
}

/// Checks a ray outcome against its reference (`gross`: with the gross tolerance).
pub fn check_ray(
    out: &CastOutcome,
    band: &Band,
    geo: &Geo,
    case: &RayCase,
    gross: bool,
) -> Option<CastDisagreement> {
    let hit = match check_time(out, band, gross) {
        Err(d) => return Some(d),
        Ok(None) => return None,
        Ok(Some(h)) => h,
    };
    let tol = if gross { band.gross } else { band.tol };
    let shape = Placed::new(geo, &case.pose);
    let at = dv(case.ray.origin) + dv(case.ray.dir) * hit.toi;
    let p = v(hit.point_a);
    if p.is_finite() && (p - at).length() > tol {
        return Some(CastDisagreement::Point {
            off: (p - at).length(),
        });
    }
    // From inside, any normal will do.
    if band.starts_inside() {
        return None;
    }
    match unit(hit.normal) {
        None => None,
        Some(Err(d)) => Some(d),
        Some(Ok(n)) => {
            let off = shape.h(n) - n.dot(at);
            let s = shape.signed_distance(at);
            (off.abs() > tol + s.abs()).then_some(CastDisagreement::Normal { off })
        }
    }
}

/// Checks a cast outcome against its reference (`gross`: with the gross tolerance).
pub fn check_cast(
    out: &CastOutcome,
    band: &Band,
    ga: &Geo,
    gb: &Geo,
    case: &CastCase,
    gross: bool,
) -> Option<CastDisagreement> {
    let hit = match check_time(out, band, gross) {
        Err(d) => return Some(d),
        Ok(None) => return None,
        Ok(Some(h)) => h,
    };
    let tol = if gross { band.gross } else { band.tol };
    let (a, b) = (Placed::new(ga, &case.a), Placed::new(gb, &case.b));
    let shift = dv(case.velocity) * hit.toi;
    let bt = b.translated(shift);
    let n = unit(hit.normal);
    let mut hints = vec![b.position() - a.position()];
    if let Some(Ok(n)) = n {
        hints.push(n);
    }
    let s = cast_distance(&a, &b, shift, &hints).lower;
    match n {
        Some(Err(d)) => return Some(d),
        Some(Ok(n)) => {
            let g = reference::gap(&a, &bt, n);
            if g < s - tol {
                return Some(CastDisagreement::Normal { off: g - s });
            }
        }
        None => {}
    }
    let (pa, pb) = (v(hit.point_a), v(hit.point_b));
    if pa.is_finite() && a.signed_distance(pa).abs() > tol {
        return Some(CastDisagreement::Point {
            off: a.signed_distance(pa),
        });
    }
    if pb.is_finite() && bt.signed_distance(pb).abs() > tol {
        return Some(CastDisagreement::Point {
            off: bt.signed_distance(pb),
        });
    }
    if pa.is_finite() && pb.is_finite() && (pb - pa).length() > s.max(0.0) + tol {
        return Some(CastDisagreement::Point {
            off: (pb - pa).length() - s.max(0.0),
        });
    }
    None
}

impl CastDisagreement {
    /// Short name of the kind, for tallies.
    pub fn kind(&self) -> &'static str {
        match self {
            CastDisagreement::Missed => "missed",
            CastDisagreement::FalseHit { .. } => "false hit",
            CastDisagreement::Toi { .. } => "toi",
            CastDisagreement::Normal { .. } => "normal",
            CastDisagreement::Point { .. } => "point",
            CastDisagreement::NoAnswer => "no answer",
        }
    }
}

/// A line for the report: the case, the reference and what was said.
pub fn describe(d: &CastDisagreement, band: &Band) -> String {
    let reference = match band.toi {
        Some(t) => format!("reference toi {t:.9}"),
        None => format!("reference miss (min distance {:.3e})", band.min),
    };
    let what = match d {
        CastDisagreement::Missed => "said miss".to_string(),
        CastDisagreement::FalseHit { said } => format!("said hit at {said:.9}"),
        CastDisagreement::Toi { said } => format!("said toi {said:.9}"),
        CastDisagreement::Normal { off } => format!("normal off by {off:.3e}"),
        CastDisagreement::Point { off } => format!("point off by {off:.3e}"),
        CastDisagreement::NoAnswer => "no answer".to_string(),
    };
    format!("{reference}, {what}")
}
