//! Shared test support: a seeded generator, and independent f64 oracles.
//!
//! Nothing here calls the library's query code. The oracles are:
//!
//! * **Polytopes** (boxes, pyramids, triangles, segments, points, point clouds): exact
//!   brute force over the vertex set `V`. The distance between hulls is the least
//!   vertex–triangle or segment–segment distance over all vertex triples and pairs
//!   (the closest points of two disjoint hulls lie in simplices of their vertices, by
//!   Carathéodory). Overlap and penetration depth come from the separating axis test
//!   over every triangle normal and every edge × edge cross product, which contains
//!   every face normal of `A ⊖ B`, so it is exact.
//! * **Curved shapes**: exact support functions and membership tests in f64, used as a
//!   duality certificate (any direction `n` gives the lower bound
//!   `gap(n) = −h_A(n) − h_B(−n)` on the signed distance, and any pair of member points
//!   an upper bound on the distance), plus a global search over directions for
//!   penetration depth.
#![allow(dead_code)]
// Conversions to f64 are no-ops in the f64 build.
#![allow(clippy::unnecessary_cast)]

use glam::{DQuat, DVec3};
use minkowski::shape::{
    Capsule, Cone, ConvexPolyhedron, Cuboid, Cylinder, Ellipsoid, PointShape, Pyramid,
    RoundedShape, Segment, Shape, Sphere, Triangle,
};
use minkowski::{Pose, Real, Rotation, Vector};
use std::sync::LazyLock;

pub mod static_sets;

/// splitmix64: small, seeded, good enough for test inputs.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// Uniform on the unit sphere.
    pub fn dir(&mut self) -> DVec3 {
        loop {
            let v = DVec3::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            let l = v.length();
            if l > 0.1 && l <= 1.0 {
                return v / l;
            }
        }
    }
    /// A uniformly random rotation, in the library's precision (normalised there).
    pub fn rotation(&mut self) -> Rotation {
        loop {
            let q = [
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            ];
            let n = (q.iter().map(|x| x * x).sum::<f64>()).sqrt();
            if n > 0.1 && n <= 1.0 {
                return Rotation::from_xyzw(
                    (q[0] / n) as Real,
                    (q[1] / n) as Real,
                    (q[2] / n) as Real,
                    (q[3] / n) as Real,
                )
                .normalize();
            }
        }
    }
}

pub fn d3(v: Vector) -> DVec3 {
    DVec3::new(v.x as f64, v.y as f64, v.z as f64)
}

pub fn v3(v: DVec3) -> Vector {
    Vector::new(v.x as Real, v.y as Real, v.z as Real)
}

pub fn r(x: f64) -> Real {
    x as Real
}

/// An oracle shape in its local frame, built from the same (rounded) numbers the library
/// shape was built from.
#[derive(Clone, Debug)]
pub enum OShape {
    Ball(f64),
    Capsule(f64, f64),
    Cylinder(f64, f64),
    Cone(f64, f64),
    Ellipsoid(DVec3),
    /// The hull of these points.
    Points(Vec<DVec3>),
    /// `inner ⊕ ball(radius)`.
    Rounded(Box<OShape>, f64),
}

impl OShape {
    /// Support point (exact, f64).
    pub fn support(&self, d: DVec3) -> DVec3 {
        match self {
            OShape::Ball(rad) => d.normalize_or_zero() * *rad,
            OShape::Capsule(h, rad) => {
                DVec3::new(0.0, if d.y >= 0.0 { *h } else { -*h }, 0.0)
                    + d.normalize_or_zero() * *rad
            }
            OShape::Cylinder(h, rad) => {
                let rl = (d.x * d.x + d.z * d.z).sqrt();
                let (x, z) = if rl > 0.0 {
                    (d.x / rl * rad, d.z / rl * rad)
                } else {
                    (0.0, 0.0)
                };
                DVec3::new(x, if d.y >= 0.0 { *h } else { -*h }, z)
            }
            OShape::Cone(h, rad) => {
                let rl = (d.x * d.x + d.z * d.z).sqrt();
                let apex = DVec3::new(0.0, *h, 0.0);
                let base = if rl > 0.0 {
                    DVec3::new(d.x / rl * rad, -h, d.z / rl * rad)
                } else {
                    DVec3::new(0.0, -h, 0.0)
                };
                if apex.dot(d) >= base.dot(d) {
                    apex
                } else {
                    base
                }
            }
            OShape::Ellipsoid(radii) => {
                let rd = *radii * d;
                let l = rd.length();
                if l > 0.0 {
                    *radii * rd / l
                } else {
                    DVec3::ZERO
                }
            }
            OShape::Points(ps) => {
                let mut best = ps[0];
                for p in ps {
                    if p.dot(d) > best.dot(d) {
                        best = *p;
                    }
                }
                best
            }
            OShape::Rounded(inner, rad) => inner.support(d) + d.normalize_or_zero() * *rad,
        }
    }

    /// Distance from a local point to the shape (0 inside), exact.
    pub fn outside_distance(&self, p: DVec3) -> f64 {
        match self {
            OShape::Ball(rad) => (p.length() - rad).max(0.0),
            OShape::Capsule(h, rad) => {
                let y = p.y.clamp(-h, *h);
                ((p - DVec3::new(0.0, y, 0.0)).length() - rad).max(0.0)
            }
            OShape::Cylinder(h, rad) => {
                let rl = (p.x * p.x + p.z * p.z).sqrt();
                let dr = (rl - rad).max(0.0);
                let dy = (p.y.abs() - h).max(0.0);
                (dr * dr + dy * dy).sqrt()
            }
            OShape::Cone(h, rad) => {
                // In the (radial, y) half plane the cone is the triangle
                // (0, -h), (rad, -h), (0, h); distance to it, exactly.
                let q = (((p.x * p.x + p.z * p.z).sqrt()), p.y);
                let tri = [(0.0, -h), (*rad, -h), (0.0, *h)];
                dist_point_triangle_2d(q, tri)
            }
            OShape::Ellipsoid(radii) => {
                // Exact membership; the distance from outside is only needed near 0,
                // where the gradient-scaled level set gives it to first order.
                let s = (p / *radii).length();
                if s <= 1.0 {
                    0.0
                } else {
                    let g = (p / (*radii * *radii)).length();
                    ((s * s - 1.0) / (2.0 * g)).max(0.0)
                }
            }
            OShape::Points(ps) => dist_point_hull(p, ps),
            OShape::Rounded(inner, rad) => (inner.outside_distance(p) - rad).max(0.0),
        }
    }

    pub fn vertices(&self) -> Option<&[DVec3]> {
        match self {
            OShape::Points(ps) => Some(ps),
            _ => None,
        }
    }

    /// A length scale of the shape.
    pub fn size(&self) -> f64 {
        (0..6)
            .map(|i| {
                let mut d = DVec3::ZERO;
                d[i % 3] = if i < 3 { 1.0 } else { -1.0 };
                self.support(d).length()
            })
            .fold(0.0, f64::max)
    }
}

fn dist_point_triangle_2d(q: (f64, f64), t: [(f64, f64); 3]) -> f64 {
    let cross = |a: (f64, f64), b: (f64, f64), c: (f64, f64)| {
        (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
    };
    let s = cross(t[0], t[1], t[2]);
    let (c0, c1, c2) = (
        cross(q, t[1], t[2]),
        cross(t[0], q, t[2]),
        cross(t[0], t[1], q),
    );
    if s != 0.0 && c0 * s >= 0.0 && c1 * s >= 0.0 && c2 * s >= 0.0 {
        return 0.0;
    }
    let seg = |a: (f64, f64), b: (f64, f64)| {
        let d = (b.0 - a.0, b.1 - a.1);
        let l2 = d.0 * d.0 + d.1 * d.1;
        let t = if l2 > 0.0 {
            (((q.0 - a.0) * d.0 + (q.1 - a.1) * d.1) / l2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let e = (a.0 + d.0 * t - q.0, a.1 + d.1 * t - q.1);
        (e.0 * e.0 + e.1 * e.1).sqrt()
    };
    seg(t[0], t[1]).min(seg(t[1], t[2])).min(seg(t[2], t[0]))
}

/// Point–segment distance and closest point (projection, clamped).
pub fn closest_on_segment(p: DVec3, a: DVec3, b: DVec3) -> DVec3 {
    let d = b - a;
    let l2 = d.length_squared();
    if l2 == 0.0 {
        return a;
    }
    a + d * ((p - a).dot(d) / l2).clamp(0.0, 1.0)
}

/// Closest point of a triangle to `p`: the plane projection when it falls inside,
/// otherwise the best of the three edges.
pub fn closest_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
    let n = (b - a).cross(c - a);
    let nn = n.length_squared();
    if nn
        > 1e-30
            * (b - a)
                .length_squared()
                .max((c - a).length_squared())
                .powi(2)
    {
        let q = p - n * ((p - a).dot(n) / nn);
        let wa = (b - q).cross(c - q).dot(n);
        let wb = (c - q).cross(a - q).dot(n);
        let wc = (a - q).cross(b - q).dot(n);
        if wa >= 0.0 && wb >= 0.0 && wc >= 0.0 {
            return q;
        }
    }
    let cands = [
        closest_on_segment(p, a, b),
        closest_on_segment(p, b, c),
        closest_on_segment(p, c, a),
    ];
    *cands
        .iter()
        .min_by(|x, y| (**x - p).length().total_cmp(&(**y - p).length()))
        .unwrap()
}

/// Closest points of two segments by enumeration: the interior critical point of the
/// two-parameter quadratic (when inside the square) and the four endpoint-to-segment
/// projections.
pub fn closest_segments(a0: DVec3, a1: DVec3, b0: DVec3, b1: DVec3) -> (DVec3, DVec3) {
    let mut cands = vec![
        (a0, closest_on_segment(a0, b0, b1)),
        (a1, closest_on_segment(a1, b0, b1)),
        (closest_on_segment(b0, a0, a1), b0),
        (closest_on_segment(b1, a0, a1), b1),
    ];
    let (u, v, w) = (a1 - a0, b1 - b0, a0 - b0);
    let (a, b, c, d, e) = (u.dot(u), u.dot(v), v.dot(v), u.dot(w), v.dot(w));
    let den = a * c - b * b;
    if den > 1e-14 * a * c {
        let s = (b * e - c * d) / den;
        let t = (a * e - b * d) / den;
        if (0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t) {
            cands.push((a0 + u * s, b0 + v * t));
        }
    }
    cands
        .into_iter()
        .min_by(|x, y| (x.0 - x.1).length().total_cmp(&(y.0 - y.1).length()))
        .unwrap()
}

fn triples(n: usize) -> impl Iterator<Item = (usize, usize, usize)> {
    (0..n).flat_map(move |i| (i..n).flat_map(move |j| (j..n).map(move |k| (i, j, k))))
}

/// Distance from `p` to the hull of `ps` (0 inside), exact for any dimension of hull.
pub fn dist_point_hull(p: DVec3, ps: &[DVec3]) -> f64 {
    let n = ps.len();
    // Inside test against every plane through three points with all points on one side.
    let size = ps
        .iter()
        .map(|q| (*q - ps[0]).length())
        .fold(0.0, f64::max)
        .max(1e-300);
    let mut planes = 0;
    let mut inside = true;
    for (i, j, k) in triples(n) {
        let nrm = (ps[j] - ps[i]).cross(ps[k] - ps[i]);
        let l = nrm.length();
        if l <= 1e-12 * size * size {
            continue;
        }
        let nrm = nrm / l;
        let off = nrm.dot(ps[i]);
        let tol = 1e-12 * size;
        let (mut above, mut below) = (false, false);
        for q in ps {
            let s = nrm.dot(*q) - off;
            above |= s > tol;
            below |= s < -tol;
        }
        if above && below {
            continue;
        }
        if !above && !below {
            // Flat set: no 3D interior.
            inside = false;
            break;
        }
        planes += 1;
        let s = nrm.dot(p) - off;
        if (below && s > 0.0) || (above && s < 0.0) {
            inside = false;
        }
    }
    if inside && planes >= 4 {
        return 0.0;
    }
    let mut best = f64::INFINITY;
    for (i, j, k) in triples(n) {
        let q = closest_on_triangle(p, ps[i], ps[j], ps[k]);
        best = best.min((q - p).length());
    }
    best
}

/// A shape placed in the world: oracle shape, rotation, translation (f64).
#[derive(Clone, Debug)]
pub struct Placed {
    pub shape: OShape,
    pub rot: DQuat,
    pub pos: DVec3,
}

impl Placed {
    pub fn new(shape: OShape, pose: &Pose) -> Self {
        let q = pose.rotation();
        let rot = DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64).normalize();
        Self {
            shape,
            rot,
            pos: d3(pose.translation()),
        }
    }
    pub fn support(&self, d: DVec3) -> DVec3 {
        self.rot * self.shape.support(self.rot.inverse() * d) + self.pos
    }
    pub fn h(&self, d: DVec3) -> f64 {
        self.support(d).dot(d)
    }
    pub fn outside_distance(&self, p: DVec3) -> f64 {
        self.shape
            .outside_distance(self.rot.inverse() * (p - self.pos))
    }
    pub fn world_vertices(&self) -> Option<Vec<DVec3>> {
        self.shape
            .vertices()
            .map(|vs| vs.iter().map(|v| self.rot * *v + self.pos).collect())
    }
}

/// The gap along `n` (unit, from A to B): a lower bound on the signed distance.
pub fn gap(a: &Placed, b: &Placed, n: DVec3) -> f64 {
    -a.h(n) - b.h(-n)
}

/// Exact polytope oracle: `(signed distance, unit normal A→B, point on A, point on B)`.
/// The points are only meaningful when separated.
pub fn poly_oracle(va: &[DVec3], vb: &[DVec3]) -> (f64, DVec3) {
    // SAT over all triangle normals and edge cross products.
    let mut axes: Vec<DVec3> = Vec::new();
    let scale = va
        .iter()
        .chain(vb)
        .map(|p| p.length())
        .fold(0.0, f64::max)
        .max(1e-300);
    let push = |axes: &mut Vec<DVec3>, v: DVec3| {
        let l = v.length();
        if l > 1e-12 * scale * scale {
            axes.push(v / l);
        }
    };
    for vs in [va, vb] {
        for (i, j, k) in triples(vs.len()) {
            push(&mut axes, (vs[j] - vs[i]).cross(vs[k] - vs[i]));
        }
    }
    let edges = |vs: &[DVec3]| {
        let mut e = Vec::new();
        for i in 0..vs.len() {
            for j in i + 1..vs.len() {
                e.push(vs[j] - vs[i]);
            }
        }
        e
    };
    let (ea, eb) = (edges(va), edges(vb));
    for x in &ea {
        for y in &eb {
            push(&mut axes, x.cross(*y));
        }
    }
    // Lower-dimensional sets need the other feature-pair directions too: vertex–vertex
    // differences and vertex-to-edge-line perpendiculars. With every feature pair's
    // direction present, the best gap is exact for separated sets as well.
    for p in va {
        for q in vb {
            push(&mut axes, *q - *p);
        }
    }
    for (vs, others) in [(va, vb), (vb, va)] {
        for i in 0..vs.len() {
            for j in i + 1..vs.len() {
                let e = vs[j] - vs[i];
                for q in others {
                    push(&mut axes, e.cross((*q - vs[i]).cross(e)));
                }
                for k in [DVec3::X, DVec3::Y, DVec3::Z] {
                    push(&mut axes, e.cross(k));
                }
            }
        }
    }
    axes.extend([DVec3::X, DVec3::Y, DVec3::Z]);
    let h = |vs: &[DVec3], d: DVec3| vs.iter().map(|p| p.dot(d)).fold(f64::MIN, f64::max);
    let mut best = (f64::MIN, DVec3::Y);
    for l in &axes {
        for n in [*l, -*l] {
            let g = -h(va, n) - h(vb, -n);
            if g > best.0 {
                best = (g, n);
            }
        }
    }
    best
}

/// Exact distance between two disjoint hulls, with the closest points.
pub fn poly_distance(va: &[DVec3], vb: &[DVec3]) -> (f64, DVec3, DVec3) {
    let mut best = (f64::INFINITY, DVec3::ZERO, DVec3::ZERO);
    let mut consider = |pa: DVec3, pb: DVec3| {
        let d = (pa - pb).length();
        if d < best.0 {
            best = (d, pa, pb);
        }
    };
    for (i, j, k) in triples(vb.len()) {
        for p in va {
            consider(*p, closest_on_triangle(*p, vb[i], vb[j], vb[k]));
        }
    }
    for (i, j, k) in triples(va.len()) {
        for p in vb {
            consider(closest_on_triangle(*p, va[i], va[j], va[k]), *p);
        }
    }
    for i in 0..va.len() {
        for j in i..va.len() {
            for k in 0..vb.len() {
                for l in k..vb.len() {
                    let (x, y) = closest_segments(va[i], va[j], vb[k], vb[l]);
                    consider(x, y);
                }
            }
        }
    }
    best
}

/// Fibonacci directions on the unit sphere.
pub fn fibonacci(n: usize) -> Vec<DVec3> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..n)
        .map(|i| {
            let y = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
            let rr = (1.0 - y * y).sqrt();
            let t = golden * i as f64;
            DVec3::new(rr * t.cos(), y, rr * t.sin())
        })
        .collect()
}

/// Global search for the signed distance `max_n gap(n)`: dense directions, then a
/// shrinking pattern search around the best few. Every value it returns is a certified
/// lower bound on the signed distance (so, for overlapping shapes, `-value` is an upper
/// bound on the depth).
pub fn search_signed_distance(a: &Placed, b: &Placed, extra: &[DVec3]) -> (f64, DVec3) {
    let mut cands: Vec<(f64, DVec3)> = fibonacci(3000)
        .into_iter()
        .chain(extra.iter().map(|d| d.normalize()))
        .map(|n| (gap(a, b, n), n))
        .collect();
    cands.sort_by(|x, y| y.0.total_cmp(&x.0));
    let mut best = cands[0];
    for &(g0, n0) in cands.iter().take(6) {
        let (mut g, mut n) = (g0, n0);
        let mut step = 0.05;
        let mut turn = 0.0f64;
        while step > 1e-15 {
            let u = minkowski_any_orthogonal(n);
            let v = n.cross(u);
            let mut improved = false;
            for k in 0..8 {
                let ang = turn + k as f64 * std::f64::consts::FRAC_PI_4;
                let m = (n + (u * ang.cos() + v * ang.sin()) * step).normalize();
                let gm = gap(a, b, m);
                if gm > g {
                    g = gm;
                    n = m;
                    improved = true;
                    break;
                }
            }
            turn += 0.37;
            if !improved {
                step *= 0.5;
            }
        }
        if g > best.0 {
            best = (g, n);
        }
    }
    best
}

fn minkowski_any_orthogonal(n: DVec3) -> DVec3 {
    let a = n.abs();
    let axis = if a.x <= a.y && a.x <= a.z {
        DVec3::X
    } else if a.y <= a.z {
        DVec3::Y
    } else {
        DVec3::Z
    };
    n.cross(axis).normalize()
}

/// A random shape of the given kind and size, with its oracle twin.
/// A random pose: a uniform rotation and a translation in a random direction, of length
/// up to `extent`.
pub fn random_pose(rng: &mut Rng, extent: f64) -> Pose {
    let t = rng.dir() * rng.range(0.0, extent);
    Pose::new(
        rng.rotation(),
        Vector::new(t.x as Real, t.y as Real, t.z as Real),
    )
    .unwrap()
}

pub fn random_shape(rng: &mut Rng, kind: &str, size: f64) -> (Shape, OShape) {
    let s = |rng: &mut Rng| r(size * rng.range(0.3, 1.0));
    let p = |rng: &mut Rng| {
        Vector::new(
            r(size * rng.range(-1.0, 1.0)),
            r(size * rng.range(-1.0, 1.0)),
            r(size * rng.range(-1.0, 1.0)),
        )
    };
    match kind {
        "sphere" => {
            let rad = s(rng);
            (Sphere::new(rad).unwrap().into(), OShape::Ball(rad as f64))
        }
        "cuboid" => {
            let h = Vector::new(s(rng), s(rng), s(rng));
            let c = Cuboid::new(h).unwrap();
            (
                c.into(),
                OShape::Points(c.vertices().iter().map(|v| d3(*v)).collect()),
            )
        }
        "capsule" => {
            let (h, rad) = (s(rng), s(rng) * 0.6);
            (
                Capsule::new(h, rad).unwrap().into(),
                OShape::Capsule(h as f64, rad as f64),
            )
        }
        "cylinder" => {
            let (h, rad) = (s(rng), s(rng));
            (
                Cylinder::new(h, rad).unwrap().into(),
                OShape::Cylinder(h as f64, rad as f64),
            )
        }
        "cone" => {
            let (h, rad) = (s(rng), s(rng));
            (
                Cone::new(h, rad).unwrap().into(),
                OShape::Cone(h as f64, rad as f64),
            )
        }
        "pyramid" => {
            let h = Vector::new(s(rng), s(rng), s(rng));
            let py = Pyramid::new(h).unwrap();
            (
                py.into(),
                OShape::Points(py.vertices().iter().map(|v| d3(*v)).collect()),
            )
        }
        "ellipsoid" => {
            let rr = Vector::new(s(rng), s(rng), s(rng));
            (
                Ellipsoid::new(rr).unwrap().into(),
                OShape::Ellipsoid(d3(rr)),
            )
        }
        "segment" => {
            let (a, b) = (p(rng), p(rng));
            (
                Segment::new(a, b).unwrap().into(),
                OShape::Points(vec![d3(a), d3(b)]),
            )
        }
        "triangle" => {
            let (a, b, c) = (p(rng), p(rng), p(rng));
            (
                Triangle::new(a, b, c).unwrap().into(),
                OShape::Points(vec![d3(a), d3(b), d3(c)]),
            )
        }
        "point" => {
            let a = p(rng) * 0.2;
            (
                PointShape::new(a).unwrap().into(),
                OShape::Points(vec![d3(a)]),
            )
        }
        "convex" => {
            let n = 4 + rng.below(7);
            let pts: Vec<Vector> = (0..n).map(|_| p(rng)).collect();
            (
                ConvexPolyhedron::new(pts.clone()).unwrap().into(),
                OShape::Points(pts.iter().map(|v| d3(*v)).collect()),
            )
        }
        "rounded_cuboid" => {
            let h = Vector::new(s(rng), s(rng), s(rng));
            let rad = s(rng) * 0.3;
            let c = Cuboid::new(h).unwrap();
            (
                RoundedShape::new(c.into(), rad).unwrap().into(),
                OShape::Rounded(
                    Box::new(OShape::Points(
                        c.vertices().iter().map(|v| d3(*v)).collect(),
                    )),
                    rad as f64,
                ),
            )
        }
        "rounded_triangle" => {
            let (a, b, c) = (p(rng), p(rng), p(rng));
            let rad = s(rng) * 0.3;
            (
                RoundedShape::new(Triangle::new(a, b, c).unwrap().into(), rad)
                    .unwrap()
                    .into(),
                OShape::Rounded(
                    Box::new(OShape::Points(vec![d3(a), d3(b), d3(c)])),
                    rad as f64,
                ),
            )
        }
        other => panic!(
            "no oracle twin for shape kind '{other}': a registered shape needs an arm in \
             tests/common's random_shape (see ALL_KINDS)"
        ),
    }
}

/// The oracle's kinds for one registered shape type: the type's protocol name, except
/// `rounded`, which is tested on two inner shapes (a box and a triangle).
fn oracle_kinds(type_name: &'static str) -> Vec<&'static str> {
    match type_name {
        "rounded" => vec!["rounded_cuboid", "rounded_triangle"],
        other => vec![other],
    }
}

/// Every kind: the registry's shape types in registry order ([`Shape::TYPE_NAMES`]),
/// through [`oracle_kinds`]. A registered type without an arm in [`random_shape`] fails
/// every test that draws from this list.
pub static ALL_KINDS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    Shape::TYPE_NAMES
        .iter()
        .flat_map(|t| oracle_kinds(t))
        .collect()
});

/// Polytope kinds (exact oracle available): the kinds of [`ALL_KINDS`], in its order,
/// whose oracle twin is a vertex set.
pub static POLY_KINDS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    ALL_KINDS
        .iter()
        .copied()
        .filter(|k| {
            random_shape(&mut Rng::new(1), k, 1.0)
                .1
                .vertices()
                .is_some()
        })
        .collect()
});

/// Relative tolerance the answers must meet, by precision (issue: f64 1e-9, f32 2e-4,
/// relative to the scene scale).
pub const REL_TOL: f64 = if cfg!(minkowski_f64) { 1e-9 } else { 2e-4 };
