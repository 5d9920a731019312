//! The exact reference the report checks every answer against, in f64, independent of
//! every method under test (minkowski included).
//!
//! For convex A and B the signed distance (negative: penetration depth) is
//!
//! ```text
//!     s(A, B) = max over unit n of  gap(n),   gap(n) = −h_A(n) − h_B(−n),
//! ```
//!
//! where `h` is the support function: the separating-axis characterisation, valid apart
//! and overlapping. Every direction's gap is a *lower bound* on `s`, computed here from
//! closed-form support functions of the same shapes. The reference is the best gap over:
//!
//! * every face normal of A and every reversed face normal of B, and every cross product
//!   of an edge of A with an edge of B whose Gauss-map arcs meet — the facet normals of
//!   the Minkowski difference, so for two polytopes in contact or overlapping the
//!   maximum is attained among them and the reference is exact;
//! * 512 Fibonacci directions, the centre difference and every normal any method
//!   reported, each refined by a shrinking pattern search on the sphere (the gap is
//!   quasi-concave where it is positive, so for separated shapes the search climbs to the
//!   global maximum).
//!
//! For separated pairs an *upper* bound certifies it: the distance between any two points
//! inside A and B. [`Reference::upper`] is the smallest over the witness points the
//! methods reported (inside both shapes up to 1e-9 of the scale, checked with exact
//! point-to-shape distances); [`Reference::certified`] says whether the bounds meet.

use crate::peers::{PoseArray, Spec};
use glam::{DQuat, DVec3};

/// A shape in f64 with what the reference needs of it.
#[derive(Debug, Clone)]
pub enum Geo {
    /// Radius.
    Sphere(f64),
    /// Half height, radius (axis y).
    Capsule(f64, f64),
    /// Half height, radius (axis y).
    Cylinder(f64, f64),
    /// Half height, radius (apex at +y).
    Cone(f64, f64),
    /// A polytope (boxes too).
    Poly(Poly),
}

/// A convex polytope: vertices, face planes and edges with their two faces.
#[derive(Debug, Clone)]
pub struct Poly {
    vertices: Vec<DVec3>,
    /// Outward unit normal and offset of each face.
    planes: Vec<(DVec3, f64)>,
    /// Edge direction, the unit normals of the two faces that meet at the edge, and the
    /// edge's first vertex.
    edges: Vec<(DVec3, DVec3, DVec3, DVec3)>,
}

impl Poly {
    fn new(vertices: Vec<DVec3>, faces: &[Vec<u32>]) -> Poly {
        let mut planes = Vec::with_capacity(faces.len());
        for f in faces {
            // Newell's normal: robust for planar polygons of any size.
            let mut n = DVec3::ZERO;
            for (k, &i) in f.iter().enumerate() {
                let p = vertices[i as usize];
                let q = vertices[f[(k + 1) % f.len()] as usize];
                n += DVec3::new(
                    (p.y - q.y) * (p.z + q.z),
                    (p.z - q.z) * (p.x + q.x),
                    (p.x - q.x) * (p.y + q.y),
                );
            }
            let n = n.normalize_or_zero();
            let off = f
                .iter()
                .map(|&i| n.dot(vertices[i as usize]))
                .fold(f64::MIN, f64::max);
            planes.push((n, off));
        }
        let mut by_edge = std::collections::HashMap::new();
        for (fi, f) in faces.iter().enumerate() {
            for k in 0..f.len() {
                let (i, j) = (f[k], f[(k + 1) % f.len()]);
                by_edge
                    .entry((i.min(j), i.max(j)))
                    .or_insert_with(Vec::new)
                    .push(fi);
            }
        }
        let mut edges: Vec<(DVec3, DVec3, DVec3, DVec3)> = by_edge
            .into_iter()
            .filter(|(_, fs)| fs.len() == 2)
            .map(|((i, j), fs)| {
                (
                    vertices[j as usize] - vertices[i as usize],
                    planes[fs[0]].0,
                    planes[fs[1]].0,
                    vertices[i as usize],
                )
            })
            .collect();
        edges.sort_by(|x, y| {
            x.3.to_array()
                .partial_cmp(&y.3.to_array())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        Poly {
            vertices,
            planes,
            edges,
        }
    }
}

impl Geo {
    /// The reference geometry of a spec.
    pub fn new(s: &Spec) -> Geo {
        let f = |x: minkowski::Real| x as f64;
        match s {
            Spec::Sphere(r) => Geo::Sphere(f(*r)),
            Spec::Capsule(h, r) => Geo::Capsule(f(*h), f(*r)),
            Spec::Cylinder(h, r) => Geo::Cylinder(f(*h), f(*r)),
            Spec::Cone(h, r) => Geo::Cone(f(*h), f(*r)),
            Spec::Box(h) => {
                let h = DVec3::new(f(h[0]), f(h[1]), f(h[2]));
                let vertices: Vec<DVec3> = (0..8)
                    .map(|i| {
                        DVec3::new(
                            if i & 1 != 0 { h.x } else { -h.x },
                            if i & 2 != 0 { h.y } else { -h.y },
                            if i & 4 != 0 { h.z } else { -h.z },
                        )
                    })
                    .collect();
                // CCW from outside: -x, +x, -y, +y, -z, +z.
                let faces = vec![
                    vec![0, 4, 6, 2],
                    vec![1, 3, 7, 5],
                    vec![0, 1, 5, 4],
                    vec![2, 6, 7, 3],
                    vec![0, 2, 3, 1],
                    vec![4, 5, 7, 6],
                ];
                Geo::Poly(Poly::new(vertices, &faces))
            }
            Spec::Hull { vertices, faces } => Geo::Poly(Poly::new(
                vertices
                    .iter()
                    .map(|v| DVec3::new(f(v[0]), f(v[1]), f(v[2])))
                    .collect(),
                faces,
            )),
        }
    }

    /// Support point in local direction `d`.
    pub fn support(&self, d: DVec3) -> DVec3 {
        let radial = |d: DVec3, r: f64| {
            let l = (d.x * d.x + d.z * d.z).sqrt();
            if l > 0.0 {
                (d.x / l * r, d.z / l * r)
            } else {
                (0.0, 0.0)
            }
        };
        let up = |d: DVec3, h: f64| if d.y >= 0.0 { h } else { -h };
        match self {
            Geo::Sphere(r) => d.normalize_or_zero() * *r,
            Geo::Capsule(h, r) => DVec3::new(0.0, up(d, *h), 0.0) + d.normalize_or_zero() * *r,
            Geo::Cylinder(h, r) => {
                let (x, z) = radial(d, *r);
                DVec3::new(x, up(d, *h), z)
            }
            Geo::Cone(h, r) => {
                let (x, z) = radial(d, *r);
                let apex = DVec3::new(0.0, *h, 0.0);
                let base = DVec3::new(x, -h, z);
                if apex.dot(d) >= base.dot(d) {
                    apex
                } else {
                    base
                }
            }
            Geo::Poly(p) => {
                let mut best = (f64::NEG_INFINITY, DVec3::ZERO);
                for v in &p.vertices {
                    let x = v.dot(d);
                    if x > best.0 {
                        best = (x, *v);
                    }
                }
                best.1
            }
        }
    }

    /// Distance from a local point to the shape (0 inside); for polytopes the largest
    /// face-plane violation, which equals the distance wherever the nearest feature is a
    /// face and is never more than it.
    pub fn outside(&self, p: DVec3) -> f64 {
        match self {
            Geo::Sphere(r) => (p.length() - r).max(0.0),
            Geo::Capsule(h, r) => {
                let y = p.y.clamp(-h, *h);
                ((p - DVec3::new(0.0, y, 0.0)).length() - r).max(0.0)
            }
            Geo::Cylinder(h, r) => {
                let dr = ((p.x * p.x + p.z * p.z).sqrt() - r).max(0.0);
                let dy = (p.y.abs() - h).max(0.0);
                (dr * dr + dy * dy).sqrt()
            }
            Geo::Cone(h, r) => {
                // In the (radial, y) half plane: the triangle (0,-h), (r,-h), (0,h).
                let q = ((p.x * p.x + p.z * p.z).sqrt(), p.y);
                let (rx, ry) = (*r, 2.0 * h);
                // Inside: below the slant, above the base.
                let slant = (q.0 * ry + (q.1 - h) * rx) / (rx * rx + ry * ry).sqrt();
                if q.1 >= -h && slant <= 0.0 {
                    return 0.0;
                }
                let seg = |a: (f64, f64), b: (f64, f64)| {
                    let d = (b.0 - a.0, b.1 - a.1);
                    let t = (((q.0 - a.0) * d.0 + (q.1 - a.1) * d.1) / (d.0 * d.0 + d.1 * d.1))
                        .clamp(0.0, 1.0);
                    ((a.0 + d.0 * t - q.0).powi(2) + (a.1 + d.1 * t - q.1).powi(2)).sqrt()
                };
                seg((0.0, -h), (*r, -h)).min(seg((*r, -h), (0.0, *h)))
            }
            Geo::Poly(poly) => poly
                .planes
                .iter()
                .map(|(n, off)| n.dot(p) - off)
                .fold(0.0, f64::max),
        }
    }

    /// Exact signed distance from a local point to the shape: the distance to the
    /// surface, negative inside (minus the depth). Convex in the point, so convex along
    /// any line: the casts' reference ([`crate::cast_suite`]) bisects on it.
    ///
    /// Polytopes: inside, the largest face-plane value (the nearest face plane); outside,
    /// the nearest of the face projections that fall inside the polytope, the edges and
    /// the vertices (the closest point lies on one of these features).
    pub fn signed_distance(&self, p: DVec3) -> f64 {
        match self {
            Geo::Sphere(r) => p.length() - r,
            Geo::Capsule(h, r) => (p - DVec3::new(0.0, p.y.clamp(-h, *h), 0.0)).length() - r,
            Geo::Cylinder(h, r) => {
                let dr = (p.x * p.x + p.z * p.z).sqrt() - r;
                let dy = p.y.abs() - h;
                if dr <= 0.0 && dy <= 0.0 {
                    dr.max(dy)
                } else {
                    (dr.max(0.0).powi(2) + dy.max(0.0).powi(2)).sqrt()
                }
            }
            Geo::Cone(h, r) => {
                // The half-plane section (radial q ≥ 0, y): the triangle (0,−h), (r,−h),
                // (0,h), whose axis side is not part of the 3D surface.
                let q = ((p.x * p.x + p.z * p.z).sqrt(), p.y);
                let (rx, ry) = (*r, 2.0 * h);
                let slant = (q.0 * ry + (q.1 - h) * rx) / (rx * rx + ry * ry).sqrt();
                let base = -h - q.1;
                if base <= 0.0 && slant <= 0.0 {
                    return base.max(slant);
                }
                let seg = |a: (f64, f64), b: (f64, f64)| {
                    let d = (b.0 - a.0, b.1 - a.1);
                    let t = (((q.0 - a.0) * d.0 + (q.1 - a.1) * d.1) / (d.0 * d.0 + d.1 * d.1))
                        .clamp(0.0, 1.0);
                    ((a.0 + d.0 * t - q.0).powi(2) + (a.1 + d.1 * t - q.1).powi(2)).sqrt()
                };
                seg((0.0, -h), (*r, -h)).min(seg((*r, -h), (0.0, *h)))
            }
            Geo::Poly(poly) => {
                let worst = poly
                    .planes
                    .iter()
                    .map(|(n, off)| n.dot(p) - off)
                    .fold(f64::NEG_INFINITY, f64::max);
                if worst <= 0.0 {
                    return worst;
                }
                let scale = poly.vertices.iter().map(|v| v.length()).fold(0.0, f64::max);
                let mut best = f64::INFINITY;
                for (n, off) in &poly.planes {
                    let d = n.dot(p) - off;
                    if d > 0.0 {
                        let foot = p - *n * d;
                        let inside = poly
                            .planes
                            .iter()
                            .all(|(m, o)| m.dot(foot) - o <= 1e-12 * scale);
                        if inside {
                            best = best.min(d);
                        }
                    }
                }
                for (e, _, _, v) in &poly.edges {
                    let t = ((p - *v).dot(*e) / e.length_squared()).clamp(0.0, 1.0);
                    best = best.min((*v + *e * t - p).length());
                }
                for v in &poly.vertices {
                    best = best.min((*v - p).length());
                }
                best
            }
        }
    }

    /// A length scale (largest support distance along the axes).
    pub fn size(&self) -> f64 {
        [
            DVec3::X,
            DVec3::Y,
            DVec3::Z,
            -DVec3::X,
            -DVec3::Y,
            -DVec3::Z,
        ]
        .iter()
        .map(|d| self.support(*d).length())
        .fold(0.0, f64::max)
    }
}

/// A shape placed in the world.
#[derive(Debug, Clone, Copy)]
pub struct Placed<'g> {
    geo: &'g Geo,
    rot: DQuat,
    pos: DVec3,
}

impl<'g> Placed<'g> {
    /// `geo` at `pose` (translation, quaternion x y z w).
    pub fn new(geo: &'g Geo, pose: &PoseArray) -> Placed<'g> {
        let p = pose.map(|x| x as f64);
        Placed {
            geo,
            rot: DQuat::from_xyzw(p[3], p[4], p[5], p[6]).normalize(),
            pos: DVec3::new(p[0], p[1], p[2]),
        }
    }
    /// Support value h(d) in the world.
    pub fn h(&self, d: DVec3) -> f64 {
        (self.rot * self.geo.support(self.rot.inverse() * d) + self.pos).dot(d)
    }
    /// Distance from a world point to the shape.
    pub fn outside(&self, p: DVec3) -> f64 {
        self.geo.outside(self.rot.inverse() * (p - self.pos))
    }
    /// Exact signed distance from a world point to the shape ([`Geo::signed_distance`]).
    pub fn signed_distance(&self, p: DVec3) -> f64 {
        self.geo
            .signed_distance(self.rot.inverse() * (p - self.pos))
    }
    /// The same shape moved by `v` (world frame).
    pub fn translated(&self, v: DVec3) -> Placed<'g> {
        Placed {
            pos: self.pos + v,
            ..*self
        }
    }
    /// Support point along `d` (world frame).
    pub fn support(&self, d: DVec3) -> DVec3 {
        self.rot * self.geo.support(self.rot.inverse() * d) + self.pos
    }
    /// A local point in the world frame.
    pub fn to_world(&self, p: DVec3) -> DVec3 {
        self.rot * p + self.pos
    }
    /// Where the shape's local origin is (world frame).
    pub fn position(&self) -> DVec3 {
        self.pos
    }
    /// The shape's geometry.
    pub fn geo(&self) -> &'g Geo {
        self.geo
    }
    /// A world point in the shape's frame.
    pub fn to_local(&self, p: DVec3) -> DVec3 {
        self.rot.inverse() * (p - self.pos)
    }
    /// A world direction in the shape's frame.
    pub fn to_local_vector(&self, v: DVec3) -> DVec3 {
        self.rot.inverse() * v
    }
}

/// The gap along unit `n` (from A towards B): a lower bound on the signed distance.
pub fn gap(a: &Placed, b: &Placed, n: DVec3) -> f64 {
    -a.h(n) - b.h(-n)
}

/// The reference answer for one case.
#[derive(Debug, Clone, Copy)]
pub struct Reference {
    /// The signed distance (best lower bound found; see the module docs).
    pub distance: f64,
    /// The direction that attains it (A towards B).
    pub normal: DVec3,
    /// Smallest certified upper bound from witness points, for separated pairs.
    pub upper: Option<f64>,
    /// A length scale of the pair (the larger shape's size).
    pub scale: f64,
}

impl Reference {
    /// Whether the answer is proven within `tol`: an exact polytope contact, or lower
    /// and upper bounds that meet.
    pub fn certified(&self, tol: f64, exact_contact: bool) -> bool {
        match self.upper {
            Some(u) if u - self.distance <= tol => true,
            _ => exact_contact && self.distance <= tol,
        }
    }
}

fn fibonacci(n: usize) -> impl Iterator<Item = DVec3> {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..n).map(move |i| {
        let y = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
        let r = (1.0 - y * y).sqrt();
        let t = golden * i as f64;
        DVec3::new(r * t.cos(), y, r * t.sin())
    })
}

/// Where a direction `c` ⊥ `e` lies against the Gauss-map arc of edge `e` (between the
/// normals `f1`, `f2` of its two faces): `Some(true)` if `c` is in the arc, `Some(false)`
/// if `−c` is, `None` if neither. `c = α f1 + β f2` is in the arc when α, β ≥ 0, read off
/// the signs of `(f1 × c)·e = β (f1 × f2)·e` and `(c × f2)·e = α (f1 × f2)·e`.
///
/// Edges between faces with (numerically) the same normal have no arc to speak of: their
/// only direction is that normal, which the face candidates already hold.
fn arc_side(c: DVec3, e: DVec3, f1: DVec3, f2: DVec3) -> Option<bool> {
    let s = f1.cross(f2).dot(e);
    if s.abs() <= 1e-9 * e.length() {
        return None;
    }
    let (s1, s2) = (f1.cross(c).dot(e) * s, c.cross(f2).dot(e) * s);
    let toward = c.dot(f1 + f2);
    if s1 >= 0.0 && s2 >= 0.0 && toward > 0.0 {
        Some(true)
    } else if s1 <= 0.0 && s2 <= 0.0 && toward < 0.0 {
        Some(false)
    } else {
        None
    }
}

/// The facet normals of the Minkowski difference A − B with their gaps: A's face
/// normals, B's reversed, and the cross products of the edge pairs whose Gauss-map arcs
/// meet. For an edge pair the supporting features are the two edges themselves, so the
/// gap is read off one vertex of each, exactly and without a support scan.
fn polytope_axes(a: &Placed, pa: &Poly, b: &Placed, pb: &Poly) -> Vec<(f64, DVec3)> {
    let mut axes: Vec<(f64, DVec3)> = Vec::new();
    for (n, _) in &pa.planes {
        let n = a.rot * *n;
        axes.push((gap(a, b, n), n));
    }
    for (n, _) in &pb.planes {
        let n = -(b.rot * *n);
        axes.push((gap(a, b, n), n));
    }
    let world = |p: &Placed, poly: &Poly| -> Vec<(DVec3, DVec3, DVec3, DVec3)> {
        poly.edges
            .iter()
            .map(|(e, f1, f2, v)| (p.rot * *e, p.rot * *f1, p.rot * *f2, p.rot * *v + p.pos))
            .collect()
    };
    let (ea, eb) = (world(a, pa), world(b, pb));
    for (e1, a1, a2, v1) in &ea {
        for (e2, b1, b2, v2) in &eb {
            let c = e1.cross(*e2);
            let l = c.length();
            if l <= 1e-12 * e1.length() * e2.length() {
                continue;
            }
            // A's edge must support A along ±c and B's edge B along ∓c.
            let Some(side_a) = arc_side(c, *e1, *a1, *a2) else {
                continue;
            };
            let Some(side_b) = arc_side(-c, *e2, *b1, *b2) else {
                continue;
            };
            if side_a != side_b {
                continue;
            }
            let n = if side_a { c / l } else { -c / l };
            axes.push((n.dot(*v2 - *v1), n));
        }
    }
    axes
}

/// For separated polytopes, the directions of the feature pairs the facet normals miss:
/// vertex–vertex and vertex–edge, among the vertices of each shape nearest its
/// supporting plane along `n` (the search's best direction, close to the answer). With
/// face and edge–edge directions from [`polytope_axes`], every kind of closest feature
/// pair is covered and the separated reference is exact.
fn local_feature_axes(a: &Placed, pa: &Poly, b: &Placed, pb: &Poly, n: DVec3) -> Vec<DVec3> {
    let near = |p: &Placed, poly: &Poly, d: DVec3| -> Vec<DVec3> {
        let mut vs: Vec<(f64, DVec3)> = poly
            .vertices
            .iter()
            .map(|v| {
                let w = p.rot * *v + p.pos;
                (w.dot(d), w)
            })
            .collect();
        vs.sort_by(|x, y| y.0.total_cmp(&x.0));
        vs.truncate(10);
        vs.into_iter().map(|(_, w)| w).collect()
    };
    let (va, vb) = (near(a, pa, n), near(b, pb, -n));
    let closest_on = |p: DVec3, q0: DVec3, q1: DVec3| {
        let e = q1 - q0;
        let t = if e.length_squared() > 0.0 {
            ((p - q0).dot(e) / e.length_squared()).clamp(0.0, 1.0)
        } else {
            0.0
        };
        q0 + e * t
    };
    let mut dirs = Vec::new();
    for x in &va {
        for y in &vb {
            dirs.push(*y - *x);
        }
    }
    for (from, to, sign) in [(&va, &vb, 1.0), (&vb, &va, -1.0)] {
        for p in from.iter() {
            for i in 0..to.len() {
                for j in i + 1..to.len() {
                    dirs.push((closest_on(*p, to[i], to[j]) - *p) * sign);
                }
            }
        }
    }
    dirs.into_iter()
        .filter_map(|d| {
            let d = d.normalize_or_zero();
            (d != DVec3::ZERO).then_some(d)
        })
        .collect()
}

/// Shrinking pattern search for a larger gap around `n`.
fn refine(a: &Placed, b: &Placed, n: DVec3, g: f64) -> (f64, DVec3) {
    let (mut g, mut n) = (g, n);
    let mut step = 0.05;
    let mut turn = 0.0f64;
    while step > 1e-14 {
        let u = n.any_orthonormal_vector();
        let v = n.cross(u);
        let mut improved = false;
        for k in 0..8 {
            let ang = turn + k as f64 * std::f64::consts::FRAC_PI_4;
            let m = (n + (u * ang.cos() + v * ang.sin()) * step).normalize();
            let gm = gap(a, b, m);
            if gm > g {
                (g, n) = (gm, m);
                improved = true;
                break;
            }
        }
        turn += 0.37;
        if !improved {
            step *= 0.5;
        }
    }
    (g, n)
}

/// The reference for A and B, using `hints` (normals reported by the methods) and
/// `witnesses` (point pairs reported by the methods) as extra candidates.
pub fn reference(
    a: &Placed,
    b: &Placed,
    hints: &[DVec3],
    witnesses: &[(DVec3, DVec3)],
) -> Reference {
    let mut cands: Vec<(f64, DVec3)> = Vec::new();
    let mut push = |n: DVec3| {
        let n = n.normalize_or_zero();
        if n != DVec3::ZERO && n.is_finite() {
            cands.push((gap(a, b, n), n));
        }
    };
    for n in fibonacci(512) {
        push(n);
    }
    push(b.pos - a.pos);
    for h in hints {
        push(*h);
    }
    if let (Geo::Poly(pa), Geo::Poly(pb)) = (a.geo, b.geo) {
        cands.extend(polytope_axes(a, pa, b, pb));
    }
    cands.sort_by(|x, y| y.0.total_cmp(&x.0));
    let mut best = cands.first().copied().unwrap_or((f64::MIN, DVec3::X));
    let mut starts: Vec<(f64, DVec3)> = cands.iter().take(4).copied().collect();
    // The reported normals are refined too (a method close to the answer is a good
    // start); most methods report nearly the same one, so only distinct ones.
    for h in hints {
        let h = h.normalize_or_zero();
        if h.is_finite() && h != DVec3::ZERO && starts.iter().all(|(_, s)| s.dot(h) < 1.0 - 1e-9) {
            starts.push((gap(a, b, h), h));
        }
    }
    for (g, n) in starts {
        let r = refine(a, b, n, g);
        if r.0 > best.0 {
            best = r;
        }
    }
    if let (Geo::Poly(pa), Geo::Poly(pb), true) = (a.geo, b.geo, best.0 > 0.0) {
        for n in local_feature_axes(a, pa, b, pb, best.1) {
            let g = gap(a, b, n);
            if g > best.0 {
                best = (g, n);
            }
        }
    }
    let scale = a.geo.size().max(b.geo.size());
    let inside_tol = 1e-9 * scale;
    let upper = witnesses
        .iter()
        .filter(|(p, q)| p.is_finite() && q.is_finite())
        .filter_map(|(p, q)| {
            let (da, db) = (a.outside(*p), b.outside(*q));
            (da <= inside_tol && db <= inside_tol).then(|| (*p - *q).length() + da + db)
        })
        .fold(None, |m: Option<f64>, u| Some(m.map_or(u, |m| m.min(u))));
    Reference {
        distance: best.0,
        normal: best.1,
        upper: if best.0 > 0.0 { upper } else { None },
        scale,
    }
}
