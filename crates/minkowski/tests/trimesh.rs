//! Triangle meshes against independent oracles, in both precisions.
//!
//! * **Rays**: the tree-walked, watertight cast against a brute-force Möller–Trumbore
//!   scan over every triangle written here in f64, on seeded terrain grids, closed
//!   tessellated spheres, bumpy (non-convex) spheres, subdivided boxes, an L-shaped prism
//!   and random soups; rays aimed at faces, exactly at vertices and edges, grazing,
//!   parallel to faces, and starting on the surface. The oracle sorts each of its hits
//!   into *certain* (clear of every edge and of the origin by more than the rounding of
//!   the library's precision) and *possible* (within that rounding): a library hit must
//!   be a possible one no later than the first certain one, and a miss needs no certain
//!   hit. For closed meshes the origin's side comes from a ray-parity count in f64 along
//!   random directions clear of every edge.
//! * **Projection** against the closest point over every triangle (plane projection, or
//!   the nearest of the three edges), and the inside test against the parity count.
//! * **Box queries** (`triangles_in`) against a scan of every triangle's box.
//! * **Active edges** on a flat floor, a cube, an L-shaped prism, gentle and sharp ridges.
//! * **OBJ** files written into a temporary directory; **hostile input** → typed errors.
#![allow(clippy::unnecessary_cast)] // `as f64` is a no-op in the f64 build

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::{d3, v3, Rng};
use glam::DVec3;
use minkowski::bounding::Aabb;
use minkowski::query::{cast_ray_trimesh, project_point_trimesh, CastError, Ray, RayOptions};
use minkowski::shape::{MeshTriangle, TriMesh, TriMeshError, TriMeshFlags, TriangleSet};
use minkowski::{Pose, Real, Vector};
use std::ops::ControlFlow;

const EPS: f64 = Real::EPSILON as f64;

/// A mesh as plain data, built in the library's precision (so that the oracle sees the
/// very coordinates the library does).
#[derive(Clone)]
struct Soup {
    v: Vec<Vector>,
    t: Vec<[u32; 3]>,
}

impl Soup {
    fn build(&self, flags: TriMeshFlags) -> TriMesh {
        let m = TriMesh::new(self.v.clone(), self.t.clone(), flags).unwrap();
        m.assert_well_formed().unwrap();
        m
    }
    fn corners(&self, i: usize) -> [DVec3; 3] {
        self.t[i].map(|k| d3(self.v[k as usize]))
    }
    /// The largest coordinate magnitude.
    fn reach(&self) -> f64 {
        self.v
            .iter()
            .map(|p| d3(*p).abs().max_element())
            .fold(0.0, f64::max)
    }
    /// Reorients every triangle to face away from `centre` (for star-shaped closed
    /// meshes: `det(a − c, b − c, c' − c) > 0`).
    fn orient_from(mut self, centre: DVec3) -> Self {
        for i in 0..self.t.len() {
            let [a, b, c] = self.corners(i);
            if (a - centre).dot((b - a).cross(c - a)) < 0.0 {
                self.t[i].swap(1, 2);
            }
        }
        self
    }
    fn bounds(&self) -> (DVec3, DVec3) {
        let p = self.v.iter().map(|p| d3(*p));
        (
            p.clone().fold(DVec3::INFINITY, DVec3::min),
            p.fold(DVec3::NEG_INFINITY, DVec3::max),
        )
    }
    fn triangle_box(&self, i: usize) -> Aabb {
        let [a, b, c] = self.t[i].map(|k| self.v[k as usize]);
        Aabb::new(a.min(b).min(c), a.max(b).max(c))
    }
}

/// An `n × n` grid of samples 0.5 apart in x and z, heights in [−1, 1] (or 0), two
/// triangles per cell facing +y.
fn terrain(rng: &mut Rng, n: usize, flat: bool) -> Soup {
    let mut v = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let y = if flat { 0.0 } else { rng.range(-1.0, 1.0) };
            v.push(Vector::new(
                j as Real * 0.5 - 3.0,
                y as Real,
                i as Real * 0.5 - 3.0,
            ));
        }
    }
    let mut t = Vec::new();
    let at = |i: usize, j: usize| (i * n + j) as u32;
    for i in 0..n - 1 {
        for j in 0..n - 1 {
            let (v00, v10, v01, v11) = (at(i, j), at(i, j + 1), at(i + 1, j), at(i + 1, j + 1));
            t.push([v00, v01, v10]);
            t.push([v10, v01, v11]);
        }
    }
    Soup { v, t }
}

/// A latitude–longitude sphere of radius `r(direction)` about `centre` (closed, poles as
/// single vertices).
fn sphere(lat: usize, lon: usize, centre: DVec3, r: &mut dyn FnMut() -> f64) -> Soup {
    let mut v = vec![v3(centre + DVec3::Y * r())];
    for i in 1..lat {
        let th = std::f64::consts::PI * i as f64 / lat as f64;
        for j in 0..lon {
            let ph = std::f64::consts::TAU * j as f64 / lon as f64;
            let dir = DVec3::new(th.sin() * ph.cos(), th.cos(), th.sin() * ph.sin());
            v.push(v3(centre + dir * r()));
        }
    }
    v.push(v3(centre - DVec3::Y * r()));
    let bottom = (v.len() - 1) as u32;
    let ring = |i: usize, j: usize| (1 + (i - 1) * lon + j % lon) as u32;
    let mut t = Vec::new();
    for j in 0..lon {
        t.push([0, ring(1, j), ring(1, j + 1)]);
        t.push([bottom, ring(lat - 1, j), ring(lat - 1, j + 1)]);
        for i in 1..lat - 1 {
            t.push([ring(i, j), ring(i + 1, j), ring(i + 1, j + 1)]);
            t.push([ring(i, j), ring(i + 1, j + 1), ring(i, j + 1)]);
        }
    }
    Soup { v, t }.orient_from(centre)
}

/// The box `[−h, h]³` with each face cut into `n × n` squares, two triangles each. Each
/// face has its own vertices: the mesh is welded by position.
fn boxy(h: Real, n: usize) -> Soup {
    let (mut v, mut t) = (Vec::new(), Vec::new());
    let coord = |k: usize| -h + 2.0 * h * k as Real / n as Real;
    for axis in 0..3 {
        for side in [-h, h] {
            let base = v.len() as u32;
            for i in 0..=n {
                for j in 0..=n {
                    let mut p = Vector::ZERO;
                    p[axis] = side;
                    p[(axis + 1) % 3] = coord(i);
                    p[(axis + 2) % 3] = coord(j);
                    v.push(p);
                }
            }
            let at = |i: usize, j: usize| base + (i * (n + 1) + j) as u32;
            for i in 0..n {
                for j in 0..n {
                    t.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
                    t.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
                }
            }
        }
    }
    Soup { v, t }.orient_from(DVec3::ZERO)
}

/// The L-shaped polygon (0,0) (2,0) (2,1) (1,1) (1,2) (0,2), counter-clockwise in xy,
/// extruded over z ∈ [0, 1]: a closed, non-convex solid with one concave edge (the
/// vertical edge at (1, 1)).
fn l_prism() -> Soup {
    let poly = [
        (0.0, 0.0),
        (2.0, 0.0),
        (2.0, 1.0),
        (1.0, 1.0),
        (1.0, 2.0),
        (0.0, 2.0),
    ];
    let n = poly.len() as u32;
    let mut v: Vec<Vector> = poly.iter().map(|&(x, y)| Vector::new(x, y, 0.0)).collect();
    v.extend(poly.iter().map(|&(x, y)| Vector::new(x, y, 1.0)));
    let mut t = Vec::new();
    // Caps: a fan from the reflex corner 3, which sees every other corner.
    for k in [4u32, 5, 0, 1] {
        let next = (k + 1) % n;
        t.push([n + 3, n + k, n + next]); // top, facing +z
        t.push([3, next, k]); // bottom, facing −z
    }
    for i in 0..n {
        let j = (i + 1) % n;
        t.push([i, j, n + j]);
        t.push([i, n + j, n + i]);
    }
    Soup { v, t }
}

/// `count` random triangles in [−5, 5]³, none degenerate.
fn random_soup(rng: &mut Rng, count: usize) -> Soup {
    let (mut v, mut t) = (Vec::new(), Vec::new());
    while t.len() < count {
        let c = DVec3::new(
            rng.range(-5.0, 5.0),
            rng.range(-5.0, 5.0),
            rng.range(-5.0, 5.0),
        );
        let p: Vec<Vector> = (0..3)
            .map(|_| {
                v3(c + DVec3::new(
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                ))
            })
            .collect();
        let (a, b, cc) = (d3(p[0]), d3(p[1]), d3(p[2]));
        let longest = (b - a)
            .length()
            .max((cc - a).length())
            .max((cc - b).length());
        if (b - a).cross(cc - a).length() < 0.05 * longest * longest {
            continue;
        }
        let base = v.len() as u32;
        v.extend(p);
        t.push([base, base + 1, base + 2]);
    }
    Soup { v, t }
}

// ---------------------------------------------------------------------------------
// Oracles (f64, independent of the library)
// ---------------------------------------------------------------------------------

/// One crossing of a ray's line with a triangle (Möller–Trumbore, f64).
#[derive(Debug, Clone, Copy)]
struct OHit {
    t: f64,
    tri: usize,
    /// Least barycentric coordinate (negative: outside the triangle).
    margin: f64,
    /// Barycentric rounding band of the library's precision for this crossing.
    delta: f64,
    /// Time rounding band.
    tol_t: f64,
    /// Whether the ray meets the front face (runs against the normal); `None` when the
    /// ray runs within rounding of the plane.
    front: Option<bool>,
    /// The face's unit normal.
    normal: DVec3,
    /// The ray runs in the triangle's plane (`t` is then NaN): any point of the ray
    /// within rounding of the triangle may be reported.
    coplanar: bool,
}

impl OHit {
    fn certain(&self) -> bool {
        self.margin > self.delta && self.t > self.tol_t
    }
    fn possible(&self) -> bool {
        self.coplanar || self.margin >= -self.delta && self.t >= -self.tol_t
    }
}

fn oracle_hits(s: &Soup, o: DVec3, d: DVec3) -> Vec<OHit> {
    let reach = s.reach().max(o.abs().max_element());
    let mut out = Vec::new();
    for i in 0..s.t.len() {
        let [a, b, c] = s.corners(i);
        let (e1, e2) = (b - a, c - a);
        let p = d.cross(e2);
        let det = e1.dot(p);
        let n = e1.cross(e2).normalize();
        if det == 0.0 {
            out.push(OHit {
                t: f64::NAN,
                tri: i,
                margin: 0.0,
                delta: 0.0,
                tol_t: 0.0,
                front: None,
                normal: n,
                coplanar: true,
            });
            continue;
        }
        let inv = 1.0 / det;
        let tv = o - a;
        let u = tv.dot(p) * inv;
        let q = tv.cross(e1);
        let v = d.dot(q) * inv;
        let t = e2.dot(q) * inv;
        let margin = u.min(v).min(1.0 - u - v);
        let cos = (d.normalize().dot(n)).abs().max(1e-300);
        let size = e1.cross(e2).length().sqrt();
        // The library's rounding: a few ε of the coordinates, spread along the ray by
        // 1 / cos of its angle with the plane.
        let err = 256.0 * EPS * reach;
        let delta = err / (size * cos);
        if margin < -delta - 0.05 {
            continue;
        }
        out.push(OHit {
            t,
            tri: i,
            margin,
            delta,
            tol_t: err / (d.length() * cos),
            front: (cos > err / size).then_some(det > 0.0),
            normal: n,
            coplanar: false,
        });
    }
    out
}

/// Whether `p` is inside the closed soup: parity of the crossings along random
/// directions, retried until no crossing is near an edge or the origin. `None` when
/// every try was ambiguous.
fn inside_oracle(s: &Soup, p: DVec3, rng: &mut Rng) -> Option<bool> {
    for _ in 0..40 {
        let d = rng.dir();
        let hits = oracle_hits(s, p, d);
        if hits
            .iter()
            .any(|h| h.margin.abs() < 1e-7 || (h.margin >= 0.0 && h.t.abs() < 1e-9))
        {
            continue;
        }
        let n = hits.iter().filter(|h| h.margin > 0.0 && h.t > 0.0).count();
        return Some(n % 2 == 1);
    }
    None
}

fn closest_on_segment(p: DVec3, a: DVec3, b: DVec3) -> DVec3 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
    a + ab * t
}

/// The closest point of a triangle: the plane projection if it falls inside, else the
/// nearest of the three edges' closest points.
fn closest_on_triangle(p: DVec3, [a, b, c]: [DVec3; 3]) -> DVec3 {
    let n = (b - a).cross(c - a);
    let q = p - n * ((p - a).dot(n) / n.length_squared());
    let side = |x: DVec3, y: DVec3| (y - x).cross(q - x).dot(n);
    if side(a, b) >= 0.0 && side(b, c) >= 0.0 && side(c, a) >= 0.0 {
        return q;
    }
    [
        closest_on_segment(p, a, b),
        closest_on_segment(p, b, c),
        closest_on_segment(p, c, a),
    ]
    .into_iter()
    .min_by(|x, y| {
        (p - *x)
            .length_squared()
            .total_cmp(&(p - *y).length_squared())
    })
    .unwrap()
}

fn distance_to_soup(s: &Soup, p: DVec3) -> f64 {
    (0..s.t.len())
        .map(|i| (p - closest_on_triangle(p, s.corners(i))).length())
        .fold(f64::INFINITY, f64::min)
}

// ---------------------------------------------------------------------------------
// The ray check
// ---------------------------------------------------------------------------------

#[derive(Default, Debug)]
struct Stats {
    rays: usize,
    hits: usize,
    /// Hits the oracle called possible but not certain (edges, vertices, grazing).
    edge_hits: usize,
    inside_origins: usize,
}

/// Which oracle crossings a check accepts.
type HitFilter = Box<dyn Fn(&OHit) -> bool>;

/// Casts and checks one ray against the brute-force oracle (see the module notes).
fn check_ray(
    m: &TriMesh,
    s: &Soup,
    o: Vector,
    d: Vector,
    options: RayOptions,
    rng: &mut Rng,
    st: &mut Stats,
) {
    let ray = Ray::new(o, d);
    let got = cast_ray_trimesh(m, &Pose::IDENTITY, &ray, &options)
        .unwrap()
        .hit;
    st.rays += 1;
    let (o64, d64) = (d3(o), d3(d));
    let max_toi = options.max_toi as f64;
    let hits = oracle_hits(s, o64, d64);
    let ctx = || format!("o {o:?} d {d:?} {options:?}: got {got:?}");
    if let Some(h) = got {
        assert!(h.toi >= 0.0 && h.toi <= options.max_toi, "{}", ctx());
        assert!((d3(h.normal).length() - 1.0).abs() < 1e-3, "{}", ctx());
        assert!(
            (d3(h.point) - (o64 + d64 * h.toi as f64)).length()
                <= 1e-3 * (1.0 + d3(h.point).length()),
            "{}",
            ctx()
        );
        st.hits += 1;
    }
    let flags = m.flags();
    // Which side the origin is on, for a closed mesh; `None`: too near the surface.
    let inside = if flags.closed {
        let dist = distance_to_soup(s, o64);
        if dist <= 1e3 * EPS * s.reach().max(o64.abs().max_element()) {
            return; // Ambiguous: any answer within the limits above.
        }
        let Some(inside) = inside_oracle(s, o64, rng) else {
            return;
        };
        Some(inside)
    } else {
        None
    };
    if inside == Some(true) {
        st.inside_origins += 1;
        if options.solid {
            let h = got.unwrap_or_else(|| panic!("inside a solid: {}", ctx()));
            assert!(h.toi == 0.0 && h.inside, "{}", ctx());
            return;
        }
    }
    // The hits the library may report, and the sign its normal takes from the face's.
    let (candidate, certain_bound): (HitFilter, HitFilter) = match inside {
        // Leaving a hollow solid: through any face (the first crossing).
        Some(true) => (Box::new(|_| true), Box::new(|_| true)),
        // Entering a closed mesh: a front face, before any certain crossing.
        Some(false) => (
            Box::new(|h: &OHit| h.front != Some(false)),
            Box::new(|_| true),
        ),
        None if flags.one_sided => (
            Box::new(|h: &OHit| h.front != Some(false)),
            Box::new(|h: &OHit| h.front == Some(true)),
        ),
        None => (Box::new(|_| true), Box::new(|_| true)),
    };
    let first_certain = hits
        .iter()
        .filter(|h| h.certain() && certain_bound(h) && h.t <= max_toi - h.tol_t)
        .map(|h| h.t + h.tol_t)
        .fold(f64::INFINITY, f64::min);
    match got {
        None => assert!(
            first_certain.is_infinite(),
            "missed a certain hit at {first_certain}: {}",
            ctx()
        ),
        Some(h) => {
            let t = h.toi as f64;
            assert!(
                t <= first_certain,
                "later than a certain hit at {first_certain}: {}",
                ctx()
            );
            let n = d3(h.normal);
            let reach = s.reach().max(o64.abs().max_element());
            let matched = hits
                .iter()
                .filter(|c| c.possible() && candidate(c))
                .find(|c| {
                    if c.coplanar {
                        let p = o64 + d64 * t;
                        if (p - closest_on_triangle(p, s.corners(c.tri))).length()
                            > 1e3 * EPS * reach
                        {
                            return false;
                        }
                    } else if (t - c.t.max(0.0)).abs() > c.tol_t + 1e-12 {
                        return false;
                    }
                    // Leaving a hollow solid: the outward normal; else the face turned
                    // towards the origin (either sign when the facing is ambiguous).
                    let want = match (inside, c.front) {
                        (Some(true), _) => Some(c.normal),
                        (_, Some(true)) => Some(c.normal),
                        (_, Some(false)) => Some(-c.normal),
                        (_, None) => None,
                    };
                    match want {
                        Some(w) => (n - w).length() < 1e-3,
                        None => (n - c.normal).length() < 1e-3 || (n + c.normal).length() < 1e-3,
                    }
                });
            let Some(c) = matched else {
                panic!("no oracle crossing matches: {}\n{hits:#?}", ctx());
            };
            assert_eq!(h.inside, inside == Some(true), "{}", ctx());
            if !c.certain() {
                st.edge_hits += 1;
            }
        }
    }
}

/// A point of triangle `i` at barycentric `(u, v)` (f64, then rounded).
fn on_triangle(s: &Soup, i: usize, u: f64, v: f64) -> DVec3 {
    let [a, b, c] = s.corners(i);
    a + (b - a) * u + (c - a) * v
}

/// The ray menu: from random origins at random triangles, exactly at vertices and edge
/// points, grazing and parallel to faces, from points of the surface, and random lines;
/// some with a finite `max_toi`.
fn ray_battery(m: &TriMesh, s: &Soup, rng: &mut Rng, count: usize) -> Stats {
    let mut st = Stats::default();
    let reach = s.reach();
    let (lo, hi) = s.bounds();
    let far = |rng: &mut Rng| {
        let u = DVec3::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        );
        (lo + hi) * 0.5 + (hi - lo) * 0.5 * u * 1.4
    };
    for k in 0..count {
        let tri = rng.below(s.t.len());
        let [a, b, c] = s.corners(tri);
        let n = (b - a).cross(c - a).normalize();
        let (o, target) = match k % 8 {
            // At a random point of a random triangle.
            0 => {
                let (u, v) = (rng.unit(), rng.unit());
                let (u, v) = if u + v > 1.0 {
                    (1.0 - u, 1.0 - v)
                } else {
                    (u, v)
                };
                (far(rng), on_triangle(s, tri, u, v))
            }
            // Exactly at a vertex.
            1 => (far(rng), [a, b, c][rng.below(3)]),
            // At an edge point (its midpoint or a random one).
            2 => {
                let e = rng.below(3);
                let (p, q) = ([a, b, c][e], [a, b, c][(e + 1) % 3]);
                let f = if rng.unit() < 0.5 { 0.5 } else { rng.unit() };
                (far(rng), p + (q - p) * f)
            }
            // Grazing: nearly in the face's plane.
            3 => {
                let tangent = (b - a).normalize();
                let lift = n * rng.range(-1.0, 1.0) * 10f64.powi(-(rng.below(6) as i32));
                let target = on_triangle(s, tri, 0.3, 0.3);
                (target - tangent * reach + lift, target)
            }
            // Parallel to the face, just off it or in its plane.
            4 => {
                let tangent = (b - a).normalize();
                let off = if rng.unit() < 0.3 {
                    0.0
                } else {
                    rng.range(-0.5, 0.5)
                };
                let start = on_triangle(s, tri, 0.2, 0.2) + n * off - tangent * reach;
                (start, start + tangent)
            }
            // From a point of the surface, in a random direction.
            5 => {
                let start = on_triangle(s, tri, rng.unit() * 0.5, rng.unit() * 0.5);
                (start, start + rng.dir())
            }
            // From a vertex, in a random direction.
            6 => {
                let start = [a, b, c][rng.below(3)];
                (start, start + rng.dir())
            }
            // A random line.
            _ => {
                let o = far(rng);
                (o, o + rng.dir())
            }
        };
        let o = v3(o);
        let d = v3(target) - o;
        if d == Vector::ZERO || !d.is_finite() {
            continue;
        }
        // Some rays with a finite reach: a random one, or one ending at the target.
        let max_toi = match rng.below(4) {
            0 => rng.range(0.2, 1.5) as Real,
            1 => 1.0,
            _ => Real::INFINITY,
        };
        let solid = rng.unit() < 0.5;
        check_ray(m, s, o, d, RayOptions { max_toi, solid }, rng, &mut st);
    }
    st
}

fn flags_menu() -> [TriMeshFlags; 2] {
    [TriMeshFlags::NONE, TriMeshFlags::ONE_SIDED]
}

#[test]
fn rays_match_brute_force_on_terrain() {
    let mut rng = Rng::new(0x7e11);
    for round in 0..3 {
        let s = terrain(&mut rng, 12 + 6 * round, round == 2);
        for flags in flags_menu() {
            let m = s.build(flags);
            let st = ray_battery(&m, &s, &mut rng, 1500);
            assert!(st.hits > 250 && st.edge_hits > 20, "{flags:?}: {st:?}");
        }
    }
}

#[test]
fn rays_match_brute_force_on_random_soups() {
    let mut rng = Rng::new(0x50b);
    for _ in 0..3 {
        let s = random_soup(&mut rng, 250);
        for flags in flags_menu() {
            let m = s.build(flags);
            let st = ray_battery(&m, &s, &mut rng, 1500);
            assert!(st.hits > 300 && st.edge_hits > 20, "{flags:?}: {st:?}");
        }
    }
}

#[test]
fn rays_match_brute_force_on_closed_meshes() {
    let mut rng = Rng::new(0xc105);
    let mut bumps = Rng::new(0xb0b);
    let meshes = [
        sphere(12, 24, DVec3::new(0.5, -0.25, 1.0), &mut || 2.0),
        sphere(10, 20, DVec3::ZERO, &mut || bumps.range(1.4, 2.6)),
        boxy(1.5, 3),
        boxy(1.0, 1),
        l_prism(),
    ];
    for s in &meshes {
        for flags in [
            TriMeshFlags::CLOSED,
            TriMeshFlags {
                one_sided: true,
                closed: true,
            },
        ] {
            let m = s.build(flags);
            let st = ray_battery(&m, s, &mut rng, 2000);
            assert!(
                st.hits > 600 && st.edge_hits > 20 && st.inside_origins > 30,
                "{flags:?}: {st:?}"
            );
        }
        // The same surface, open: two-sided and one-sided answers.
        for flags in flags_menu() {
            let m = s.build(flags);
            ray_battery(&m, s, &mut rng, 800);
        }
    }
}

/// Rays straight down through every vertex and every edge midpoint of a terrain, and
/// steep rays aimed exactly at them: a watertight test never lets them through.
#[test]
fn rays_through_vertices_and_edges_never_leak() {
    let mut rng = Rng::new(0x1ea);
    let s = terrain(&mut rng, 20, false);
    let m = s.build(TriMeshFlags::NONE);
    let mut targets: Vec<DVec3> = s.v.iter().map(|p| d3(*p)).collect();
    for i in 0..s.t.len() {
        let c = s.corners(i);
        for k in 0..3 {
            targets.push((c[k] + c[(k + 1) % 3]) * 0.5);
        }
    }
    let mut steep = 0;
    for target in targets {
        // Only points strictly inside the grid's rectangle are surely under every ray.
        let outside = |x: f64| x <= -3.0 + 1e-9 || x >= 6.5 - 1e-9;
        if outside(target.x) || outside(target.z) {
            continue;
        }
        let o = target + DVec3::Y * 10.0;
        let h = cast_ray_trimesh(
            &m,
            &Pose::IDENTITY,
            &Ray::new(v3(o), -Vector::Y),
            &RayOptions::default(),
        )
        .unwrap()
        .hit
        .unwrap_or_else(|| panic!("vertical ray at {target} leaked"));
        assert!(
            (h.toi as f64 - (o.y - target.y)).abs() < 1e3 * EPS * 10.0,
            "{h:?} at {target}"
        );
        let tilt = DVec3::new(rng.range(-0.2, 0.2), 1.0, rng.range(-0.2, 0.2));
        let o = v3(target + tilt * 5.0);
        let d = v3(target) - o;
        // Only a ray that crosses the surface there (every triangle at the target faces
        // it) must hit; one that touches a fold of the surface tangentially, front face
        // on one side of the edge and back face on the other, may graze past.
        let crosses = (0..s.t.len())
            .filter(|&i| (closest_on_triangle(target, s.corners(i)) - target).length() < 1e-9)
            .all(|i| {
                let [a, b, c] = s.corners(i);
                (b - a).cross(c - a).normalize().dot(d3(d).normalize()) < -1e-3
            });
        if !crosses {
            continue;
        }
        steep += 1;
        let h = cast_ray_trimesh(&m, &Pose::IDENTITY, &Ray::new(o, d), &RayOptions::default())
            .unwrap()
            .hit
            .unwrap_or_else(|| panic!("steep ray at {target} leaked"));
        assert!(
            h.toi <= 1.0 + 1e3 * Real::EPSILON,
            "{h:?} o {o} d {d} target {target}"
        );
    }
    assert!(steep > 1000, "only {steep} steep rays crossed the surface");
}

#[test]
fn max_toi_is_inclusive_and_hits_start_on_the_surface() {
    let s = boxy(1.0, 2);
    let m = s.build(TriMeshFlags::NONE);
    let ray = Ray::new(Vector::new(-3.0, 0.25, 0.5), Vector::new(2.0, 0.0, 0.0));
    // The face x = −1 is 2 units away: toi 1 in units of dir.
    let at = |max_toi| {
        cast_ray_trimesh(
            &m,
            &Pose::IDENTITY,
            &ray,
            &RayOptions {
                max_toi,
                solid: true,
            },
        )
        .unwrap()
        .hit
    };
    let h = at(Real::INFINITY).unwrap();
    assert_eq!((h.toi, h.normal, h.inside), (1.0, -Vector::X, false));
    assert_eq!(at(1.0).map(|h| h.toi), Some(1.0));
    assert_eq!(at(0.999), None);
    // Starting on the face x = −1: hit at 0, from either side of a two-sided mesh.
    for dir in [Vector::X, -Vector::X, Vector::new(1.0, 0.3, 0.0)] {
        let r = Ray::new(Vector::new(-1.0, 0.25, 0.5), dir);
        let h = cast_ray_trimesh(&m, &Pose::IDENTITY, &r, &RayOptions::default())
            .unwrap()
            .hit
            .unwrap();
        assert_eq!(h.toi, 0.0, "{dir}");
        assert!(h.normal.dot(dir) < 0.0);
    }
    // A solid, closed box: from inside, a hit at 0; hollow, the exit with the outward
    // normal.
    let closed = s.build(TriMeshFlags::CLOSED);
    let r = Ray::new(Vector::new(0.25, 0.5, -0.25), Vector::new(0.0, 4.0, 0.0));
    let h = cast_ray_trimesh(&closed, &Pose::IDENTITY, &r, &RayOptions::default())
        .unwrap()
        .hit
        .unwrap();
    assert!(h.inside && h.toi == 0.0);
    let hollow = RayOptions {
        max_toi: Real::INFINITY,
        solid: false,
    };
    let h = cast_ray_trimesh(&closed, &Pose::IDENTITY, &r, &hollow)
        .unwrap()
        .hit
        .unwrap();
    assert!(
        h.inside && (h.toi - 0.125).abs() < 1e-6 && h.normal == Vector::Y,
        "{h:?}"
    );
    // One-sided: from inside the (open) box, the back faces are not seen.
    let one = s.build(TriMeshFlags::ONE_SIDED);
    assert!(cast_ray_trimesh(&one, &Pose::IDENTITY, &r, &hollow)
        .unwrap()
        .hit
        .is_none());
    // A ray along a face's plane (touching the box's top edge tangentially from outside)
    // is not reported inside.
    let r = Ray::new(Vector::new(-2.0, 0.0, 0.0), Vector::new(1.0, 1.0, 0.0));
    let h = cast_ray_trimesh(&closed, &Pose::IDENTITY, &r, &RayOptions::default())
        .unwrap()
        .hit;
    assert!(
        h.is_some_and(|h| !h.inside && (h.toi - 1.0).abs() < 1e-5),
        "{h:?}"
    );
}

#[test]
fn a_turned_mesh_answers_in_the_world_frame() {
    let mut rng = Rng::new(0x7a7);
    let s = sphere(8, 16, DVec3::new(1.0, 0.0, 0.0), &mut || 1.0);
    let m = s.build(TriMeshFlags::CLOSED);
    for _ in 0..200 {
        let pose = Pose::new(
            rng.rotation(),
            v3(DVec3::new(rng.range(-5.0, 5.0), 1.0, 2.0)),
        )
        .unwrap();
        let o = v3(rng.dir() * 6.0);
        let d = v3(-d3(o) + rng.dir() * 0.5);
        let world = Ray::new(pose.transform_point(o), pose.transform_vector(d));
        let a = cast_ray_trimesh(&m, &pose, &world, &RayOptions::default())
            .unwrap()
            .hit;
        let b = cast_ray_trimesh(&m, &Pose::IDENTITY, &Ray::new(o, d), &RayOptions::default())
            .unwrap()
            .hit;
        assert_eq!(a.is_some(), b.is_some());
        if let (Some(a), Some(b)) = (a, b) {
            assert!((a.toi - b.toi).abs() < 1e-4);
            assert!((a.normal - pose.transform_vector(b.normal)).length() < 1e-4);
        }
        let p = v3(rng.dir() * rng.range(0.0, 3.0));
        let a = project_point_trimesh(&m, &pose, pose.transform_point(p)).unwrap();
        let b = project_point_trimesh(&m, &Pose::IDENTITY, p).unwrap();
        assert_eq!(a.inside, b.inside);
        assert!((a.distance - b.distance).abs() < 1e-4);
        assert!((a.point - pose.transform_point(b.point)).length() < 1e-4);
    }
}

// ---------------------------------------------------------------------------------
// Projection
// ---------------------------------------------------------------------------------

fn check_projection(m: &TriMesh, s: &Soup, p: Vector, rng: &mut Rng, inside_count: &mut usize) {
    let got = project_point_trimesh(m, &Pose::IDENTITY, p).unwrap();
    let p64 = d3(p);
    let want = distance_to_soup(s, p64);
    let tol = 256.0 * EPS * s.reach().max(p64.abs().max_element());
    let ctx = || format!("p {p:?}: got {got:?}, want distance {want}");
    assert!((got.distance.abs() as f64 - want).abs() <= tol, "{}", ctx());
    assert!(
        ((d3(got.point) - p64).length() - want).abs() <= tol,
        "{}",
        ctx()
    );
    assert!(distance_to_soup(s, d3(got.point)) <= tol, "{}", ctx());
    if m.is_closed() {
        if want > 8.0 * tol {
            if let Some(inside) = inside_oracle(s, p64, rng) {
                assert_eq!(got.inside, inside, "{}", ctx());
                assert_eq!(got.distance < 0.0, inside, "{}", ctx());
                *inside_count += inside as usize;
            }
        }
    } else {
        assert!(!got.inside && got.distance >= 0.0, "{}", ctx());
    }
}

fn projection_battery(m: &TriMesh, s: &Soup, rng: &mut Rng, count: usize) -> usize {
    let reach = s.reach();
    let mut inside = 0;
    for k in 0..count {
        let tri = rng.below(s.t.len());
        let [a, b, c] = s.corners(tri);
        let n = (b - a).cross(c - a).normalize();
        let p = match k % 5 {
            0 => {
                DVec3::new(
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                ) * reach
                    * 1.3
            }
            // Just off a face, on either side.
            1 => {
                on_triangle(s, tri, rng.unit() * 0.5, rng.unit() * 0.5)
                    + n * rng.range(-1.0, 1.0) * 10f64.powi(-(rng.below(4) as i32))
            }
            // Near a vertex or an edge, in a random direction.
            2 => [a, b, c][rng.below(3)] + rng.dir() * rng.range(0.0, 0.5),
            3 => (a + b) * 0.5 + rng.dir() * rng.range(0.0, 0.5),
            // On the surface.
            _ => on_triangle(s, tri, rng.unit() * 0.5, rng.unit() * 0.5),
        };
        check_projection(m, s, v3(p), rng, &mut inside);
    }
    inside
}

#[test]
fn projection_matches_brute_force() {
    let mut rng = Rng::new(0x9e0);
    let mut bumps = Rng::new(0xb1b);
    let open = [terrain(&mut rng, 14, false), random_soup(&mut rng, 200)];
    for s in &open {
        let m = s.build(TriMeshFlags::NONE);
        projection_battery(&m, s, &mut rng, 1500);
    }
    let closed = [
        sphere(10, 20, DVec3::new(0.5, 0.0, 0.0), &mut || 2.0),
        sphere(10, 20, DVec3::ZERO, &mut || bumps.range(1.2, 2.8)),
        boxy(1.0, 3),
        l_prism(),
    ];
    for s in &closed {
        let m = s.build(TriMeshFlags::CLOSED);
        let inside = projection_battery(&m, s, &mut rng, 2000);
        assert!(inside > 150, "only {inside} points inside");
    }
}

/// Points exactly on the surface of a closed mesh count as inside with distance ≤ 0;
/// the pseudo-normals decide points off the L-prism's concave edge and convex corners.
#[test]
fn projection_signs_near_features_of_a_closed_mesh() {
    let m = l_prism().build(TriMeshFlags::CLOSED);
    let proj = |p: Vector| project_point_trimesh(&m, &Pose::IDENTITY, p).unwrap();
    let on = proj(Vector::new(0.5, 0.0, 0.5));
    assert!(on.inside && on.distance <= 0.0 && on.distance > -1e-6);
    // In the notch of the L: nearest to the faces around the concave edge, outside.
    let p = proj(Vector::new(1.3, 1.3, 0.5));
    assert!(!p.inside && (p.distance - 0.3).abs() < 1e-5, "{p:?}");
    // Inside, nearest to the concave edge itself: its pseudo-normal decides.
    let p = proj(Vector::new(0.9, 0.9, 0.5));
    assert!(
        p.inside && (p.distance + (0.02 as Real).sqrt()).abs() < 1e-5,
        "{p:?}"
    );
    assert!((p.point - Vector::new(1.0, 1.0, 0.5)).length() < 1e-6);
    // Outside a convex corner: the vertex (2, 0, 0).
    let p = proj(Vector::new(2.5, -0.5, -0.5));
    assert!(
        !p.inside && (p.point - Vector::new(2.0, 0.0, 0.0)).length() < 1e-6,
        "{p:?}"
    );
}

// ---------------------------------------------------------------------------------
// Box queries
// ---------------------------------------------------------------------------------

#[test]
fn triangles_in_never_misses_a_triangle_whose_box_meets_the_query() {
    let mut rng = Rng::new(0xb0c5);
    let soups = [
        terrain(&mut rng, 16, false),
        random_soup(&mut rng, 400),
        sphere(12, 24, DVec3::ZERO, &mut || 2.0),
        boxy(1.0, 4),
    ];
    for s in &soups {
        let m = s.build(TriMeshFlags::NONE);
        assert_eq!(TriangleSet::triangle_count(&m), s.t.len());
        let mut reported_total = 0;
        for k in 0..400 {
            let c = v3(DVec3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            ) * s.reach());
            let h =
                v3(DVec3::new(rng.unit(), rng.unit(), rng.unit())
                    * if k % 4 == 0 { 0.0 } else { 1.5 });
            let q = Aabb::new(c - h, c + h);
            let mut got = Vec::new();
            m.triangles_in(&q, &mut |t: &MeshTriangle| {
                assert_eq!(Some(*t), m.triangle(t.index));
                got.push(t.index);
                ControlFlow::Continue(())
            });
            got.sort_unstable();
            let want: Vec<u32> = (0..s.t.len())
                .filter(|&i| s.triangle_box(i).intersects(&q))
                .map(|i| i as u32)
                .collect();
            assert_eq!(got, want, "query {q:?}");
            reported_total += got.len();
        }
        assert!(reported_total > 400, "the queries barely touched the mesh");
        // Breaking stops the walk.
        let all = m.local_aabb().unwrap();
        let mut calls = 0;
        m.triangles_in(&all, &mut |_| {
            calls += 1;
            ControlFlow::Break(())
        });
        assert_eq!(calls, 1);
    }
}

// ---------------------------------------------------------------------------------
// Active edges
// ---------------------------------------------------------------------------------

fn edge_ends(t: &MeshTriangle, k: usize) -> (Vector, Vector) {
    (t.vertices[k], t.vertices[(k + 1) % 3])
}

#[test]
fn a_flat_floor_has_active_edges_only_on_its_boundary() {
    let mut rng = Rng::new(1);
    let s = terrain(&mut rng, 9, true);
    // Also as a soup repeating every vertex per triangle: welded by position.
    let soup = Soup {
        v: s.t
            .iter()
            .flat_map(|t| t.map(|i| s.v[i as usize]))
            .collect(),
        t: (0..s.t.len() as u32)
            .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
            .collect(),
    };
    for s in [&s, &soup] {
        let m = s.build(TriMeshFlags::NONE);
        let (mut inner, mut border) = (0, 0);
        for i in 0..s.t.len() as u32 {
            let t = m.triangle(i).unwrap();
            assert_eq!(t.normal, Vector::Y);
            for k in 0..3 {
                let (a, b) = edge_ends(&t, k);
                let on_border = (a.x == b.x && a.x.abs() == 3.0 || a.z == b.z && a.z.abs() == 3.0)
                    || (a.x == b.x && a.x == 1.0)
                    || (a.z == b.z && a.z == 1.0);
                assert_eq!(t.edges[k].active, on_border, "triangle {i} edge {k}");
                assert_eq!(t.edges[k].neighbour_normal.is_none(), on_border);
                if on_border {
                    border += 1;
                } else {
                    inner += 1;
                    assert_eq!(t.edges[k].neighbour_normal, Some(Vector::Y));
                }
            }
        }
        // 8 × 8 cells: 4 · 8 boundary edges, the rest (2 · 3 · 64 − 32) shared twice.
        assert_eq!((border, inner), (32, 2 * 3 * 64 - 32));
    }
}

#[test]
fn a_cube_has_its_twelve_creases_active_and_its_face_edges_inactive() {
    for n in [1, 3] {
        let s = boxy(1.0, n);
        let m = s.build(TriMeshFlags::CLOSED);
        let mut creases = std::collections::BTreeSet::new();
        for i in 0..s.t.len() as u32 {
            let t = m.triangle(i).unwrap();
            for k in 0..3 {
                let (a, b) = edge_ends(&t, k);
                // On a crease: both ends have two coordinates at ±1 in common.
                let on_crease = (0..3)
                    .filter(|&c| a[c] == b[c] && a[c].abs() == 1.0)
                    .count()
                    == 2;
                assert_eq!(
                    t.edges[k].active, on_crease,
                    "n = {n}, triangle {i} edge {k}"
                );
                assert!(t.edges[k].neighbour_normal.is_some());
                if on_crease {
                    let key = |p: Vector| p.to_array().map(|x| (x * 8.0) as i32);
                    let (ka, kb) = (key(a), key(b));
                    let (p, q) = (ka.min(kb), ka.max(kb));
                    // The crease line it lies on: its two fixed coordinates.
                    let line: Vec<(usize, i32)> = (0..3)
                        .filter(|&c| p[c] == q[c])
                        .map(|c| (c, p[c]))
                        .collect();
                    creases.insert(line);
                }
            }
        }
        assert_eq!(creases.len(), 12, "n = {n}");
    }
}

#[test]
fn an_l_prism_has_its_concave_edge_inactive() {
    let m = l_prism().build(TriMeshFlags::CLOSED);
    let vertical = |a: Vector, b: Vector| a.x == b.x && a.y == b.y && a.z != b.z;
    let mut seen = [0; 2];
    for i in 0..TriangleSet::triangle_count(&m) as u32 {
        let t = m.triangle(i).unwrap();
        for k in 0..3 {
            let (a, b) = edge_ends(&t, k);
            if vertical(a, b) {
                let reflex = a.x == 1.0 && a.y == 1.0;
                assert_eq!(t.edges[k].active, !reflex, "edge {a} – {b}");
                seen[reflex as usize] += 1;
            }
        }
    }
    // Five convex vertical edges and the concave one, each seen from both sides.
    assert_eq!(seen, [10, 2]);
}

/// Two triangles folded along the x axis by `angle` (convex when positive).
fn fold(angle: f64) -> TriMesh {
    let (c, s) = (angle.cos(), angle.sin());
    let v = vec![
        Vector::new(-1.0, 0.0, 0.0),
        Vector::new(1.0, 0.0, 0.0),
        Vector::new(0.0, 0.0, -1.0),
        v3(DVec3::new(0.0, -s, c)),
    ];
    TriMesh::new(v, vec![[0, 1, 2], [1, 0, 3]], TriMeshFlags::NONE).unwrap()
}

#[test]
fn creases_are_active_only_when_convex_and_sharp() {
    let shared = |m: &TriMesh| m.triangle(0).unwrap().edges[0];
    assert!(shared(&fold(0.2)).active);
    assert!(!shared(&fold(0.005)).active, "below ACTIVE_EDGE_ANGLE");
    assert!(!shared(&fold(-0.2)).active, "concave");
    assert!(!shared(&fold(0.0)).active, "flat");
    assert!(shared(&fold(0.0)).neighbour_normal == Some(Vector::Y));
}

/// Three triangles on one edge (an open mesh): the edge is active with no neighbour for
/// all of them; two triangles running the same way along an edge likewise.
#[test]
fn non_manifold_and_misoriented_edges_are_active_without_neighbour() {
    let v = vec![
        Vector::new(-1.0, 0.0, 0.0),
        Vector::new(1.0, 0.0, 0.0),
        Vector::new(0.0, 0.0, 1.0),
        Vector::new(0.0, 0.0, -1.0),
        Vector::new(0.0, 1.0, 0.0),
    ];
    let m = TriMesh::new(
        v.clone(),
        vec![[0, 1, 2], [1, 0, 3], [0, 1, 4]],
        TriMeshFlags::NONE,
    )
    .unwrap();
    for i in 0..3 {
        let e = m.triangle(i).unwrap().edges[0];
        assert!(e.active && e.neighbour_normal.is_none());
    }
    let m = TriMesh::new(v, vec![[0, 1, 2], [0, 1, 3]], TriMeshFlags::NONE).unwrap();
    for i in 0..2 {
        let e = m.triangle(i).unwrap().edges[0];
        assert!(e.active && e.neighbour_normal.is_none());
    }
}

// ---------------------------------------------------------------------------------
// OBJ files
// ---------------------------------------------------------------------------------

fn temp_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "minkowski-trimesh-{}-{}",
        std::process::id(),
        if cfg!(minkowski_f64) { "f64" } else { "f32" }
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(name: &str, text: &str) -> std::path::PathBuf {
    let path = temp_dir().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const CUBE_QUADS: &str = "\
# a unit cube as quads, counter-clockwise seen from outside
v -1 -1 -1
v  1 -1 -1
v  1  1 -1
v -1  1 -1
v -1 -1  1
v  1 -1  1
v  1  1  1
v -1  1  1
vn 0 0 1
f 1 4 3 2
f 5 6 7 8
f 1 2 6 5
f 4 8 7 3
f 1 5 8 4
f 2 3 7 6
";

#[test]
fn obj_files_load_triangulated_and_merged() {
    let cube = TriMesh::from_obj(write("cube.obj", CUBE_QUADS), TriMeshFlags::CLOSED).unwrap();
    cube.assert_well_formed().unwrap();
    assert_eq!(
        (cube.vertices().len(), TriangleSet::triangle_count(&cube)),
        (8, 12)
    );
    for i in 0..12 {
        let t = cube.triangle(i).unwrap();
        let centre = (t.vertices[0] + t.vertices[1] + t.vertices[2]) / 3.0;
        assert!(t.normal.dot(centre) > 0.0, "triangle {i} faces inwards");
    }
    let h = cast_ray_trimesh(
        &cube,
        &Pose::IDENTITY,
        &Ray::new(Vector::new(0.2, 5.0, 0.1), -Vector::Y),
        &RayOptions::default(),
    )
    .unwrap()
    .hit
    .unwrap();
    assert_eq!((h.toi, h.normal), (4.0, Vector::Y));
    // Two objects (OBJ indices are global; negative ones count back), a pentagon, and
    // lines and points that are ignored.
    let two = "o first\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\no second\nv 5 0 0\nv 6 0 0\nv 6 1 0\nv 5.5 1.5 0\nv 5 1 0\nf -5 -4 -3 -2 -1\nl 1 4\np 2\n";
    let m = TriMesh::from_obj(write("two.obj", two), TriMeshFlags::NONE).unwrap();
    assert_eq!(TriangleSet::triangle_count(&m), 1 + 3);
    assert_eq!(m.vertices().len(), 8);
    for i in 1..4 {
        let t = m.triangle(i).unwrap();
        assert!(
            t.vertices.iter().all(|p| p.x >= 5.0),
            "triangle {i} indexes the wrong object"
        );
        assert_eq!(t.normal, Vector::Z);
    }
}

#[test]
fn bad_obj_files_get_typed_errors() {
    let missing = temp_dir().join("no-such-file.obj");
    assert!(matches!(
        TriMesh::from_obj(&missing, TriMeshFlags::NONE),
        Err(TriMeshError::Obj { .. })
    ));
    let bad_number = write("bad.obj", "v 0 0 0\nv 1 zero 0\nv 0 1 0\nf 1 2 3\n");
    assert!(matches!(
        TriMesh::from_obj(bad_number, TriMeshFlags::NONE),
        Err(TriMeshError::Obj { .. })
    ));
    let no_faces = write("nofaces.obj", "v 0 0 0\nv 1 0 0\n");
    assert_eq!(
        TriMesh::from_obj(no_faces, TriMeshFlags::NONE),
        Err(TriMeshError::Empty)
    );
    let out_of_range = write("range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n");
    assert!(matches!(
        TriMesh::from_obj(out_of_range, TriMeshFlags::NONE),
        Err(TriMeshError::Obj { .. } | TriMeshError::IndexOutOfRange { .. })
    ));
    let garbage = write("garbage.obj", "\u{0}\u{1}binary\u{ff} f f f\nf 1 2\n");
    assert!(TriMesh::from_obj(garbage, TriMeshFlags::NONE).is_err());
    let open = write("open.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    assert!(matches!(
        TriMesh::from_obj(open, TriMeshFlags::CLOSED),
        Err(TriMeshError::OpenEdge { .. })
    ));
}

// ---------------------------------------------------------------------------------
// Hostile input
// ---------------------------------------------------------------------------------

#[test]
fn hostile_meshes_get_typed_errors() {
    let tri = || vec![Vector::ZERO, Vector::X, Vector::Y];
    let new = |v: Vec<Vector>, t: Vec<[u32; 3]>, f| TriMesh::new(v, t, f);
    assert_eq!(
        new(vec![], vec![], TriMeshFlags::NONE),
        Err(TriMeshError::Empty)
    );
    assert_eq!(
        new(tri(), vec![], TriMeshFlags::NONE),
        Err(TriMeshError::Empty)
    );
    // All degenerate: collinear, repeated corners, a rounding-level sliver.
    let line = vec![
        Vector::ZERO,
        Vector::X,
        Vector::X * 2.0,
        Vector::new(1.0, Real::EPSILON, 0.0),
    ];
    for t in [[0, 1, 2], [0, 0, 1], [0, 2, 3]] {
        assert_eq!(
            new(line.clone(), vec![t], TriMeshFlags::NONE),
            Err(TriMeshError::DegenerateTriangle { triangle: 0 }),
            "{t:?}"
        );
    }
    // The same position under two indices is degenerate too.
    let dup = vec![Vector::ZERO, Vector::X, Vector::X];
    assert_eq!(
        new(dup, vec![[0, 1, 2]], TriMeshFlags::NONE),
        Err(TriMeshError::DegenerateTriangle { triangle: 0 })
    );
    for bad in [
        Real::NAN,
        Real::INFINITY,
        -Real::INFINITY,
        minkowski::shape::MAX_MAGNITUDE * 2.0,
    ] {
        let mut v = tri();
        v.push(Vector::new(0.0, bad, 0.0));
        assert!(
            matches!(
                new(v, vec![[0, 1, 2]], TriMeshFlags::NONE),
                Err(TriMeshError::BadVertex { index: 3, .. })
            ),
            "{bad}"
        );
    }
    assert_eq!(
        new(tri(), vec![[0, 1, 2], [0, 1, 3]], TriMeshFlags::NONE),
        Err(TriMeshError::IndexOutOfRange {
            triangle: 1,
            index: 3,
            vertex_count: 3
        })
    );
    assert_eq!(
        new(tri(), vec![[0, 1, u32::MAX]], TriMeshFlags::NONE),
        Err(TriMeshError::IndexOutOfRange {
            triangle: 0,
            index: u32::MAX,
            vertex_count: 3
        })
    );
    // Closed: an open mesh, two tetrahedra sharing an edge, a flipped face.
    assert!(matches!(
        new(tri(), vec![[0, 1, 2]], TriMeshFlags::CLOSED),
        Err(TriMeshError::OpenEdge { .. })
    ));
    let tet = |o: Vector| {
        let v = vec![o, o + Vector::X, o + Vector::Y, o + Vector::Z];
        let t = vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
        (v, t)
    };
    let (v, t) = tet(Vector::ZERO);
    let tetra = TriMesh::new(v.clone(), t.clone(), TriMeshFlags::CLOSED).unwrap();
    tetra.assert_well_formed().unwrap();
    let mut flipped = t.clone();
    flipped[3].swap(1, 2);
    assert!(matches!(
        new(v.clone(), flipped, TriMeshFlags::CLOSED),
        Err(TriMeshError::MisorientedEdge { .. })
    ));
    // A second tetrahedron on the edge 0–1 of the first: (0,1,a,b) with a, b below.
    let mut v2 = v.clone();
    v2.extend([Vector::new(0.5, -1.0, 0.2), Vector::new(0.5, -0.2, -1.0)]);
    let mut t2 = t.clone();
    // Faces of the tetrahedron 0, 1, 4, 5, oriented outwards.
    let extra = Soup {
        v: v2.clone(),
        t: vec![[0, 1, 4], [0, 4, 5], [0, 5, 1], [1, 5, 4]],
    };
    let centre = (d3(v2[0]) + d3(v2[1]) + d3(v2[4]) + d3(v2[5])) / 4.0;
    t2.extend(extra.orient_from(centre).t);
    assert!(matches!(
        new(v2.clone(), t2.clone(), TriMeshFlags::CLOSED),
        Err(TriMeshError::NonManifoldEdge { triangles: 4, .. })
    ));
    // Open, it builds.
    new(v2, t2, TriMeshFlags::NONE)
        .unwrap()
        .assert_well_formed()
        .unwrap();
}

#[test]
fn hostile_queries_get_typed_errors() {
    let m = boxy(1.0, 1).build(TriMeshFlags::CLOSED);
    let id = Pose::IDENTITY;
    let opts = RayOptions::default();
    let cast =
        |o: Vector, d: Vector, opts: &RayOptions| cast_ray_trimesh(&m, &id, &Ray::new(o, d), opts);
    assert!(matches!(
        cast(Vector::ZERO, Vector::ZERO, &opts),
        Err(CastError::ZeroDirection)
    ));
    assert!(cast(Vector::splat(Real::NAN), Vector::X, &opts).is_err());
    assert!(cast(Vector::ZERO, Vector::new(Real::INFINITY, 0.0, 0.0), &opts).is_err());
    assert!(cast(
        Vector::ZERO,
        Vector::X,
        &RayOptions {
            max_toi: -1.0,
            solid: true
        }
    )
    .is_err());
    assert!(cast(
        Vector::ZERO,
        Vector::X,
        &RayOptions {
            max_toi: Real::NAN,
            solid: true
        }
    )
    .is_err());
    assert!(project_point_trimesh(&m, &id, Vector::new(Real::NAN, 0.0, 0.0)).is_err());
    // Tiny and huge directions still answer.
    let h = cast(Vector::new(-5.0, 0.1, 0.2), Vector::X * 1e-20, &opts)
        .unwrap()
        .hit
        .unwrap();
    assert!((h.toi as f64 - 4e20).abs() < 4e20 * 1e-4);
    let h = cast(
        Vector::new(-5.0, 0.1, 0.2),
        Vector::new(1e7, 0.0, 0.0),
        &opts,
    )
    .unwrap()
    .hit
    .unwrap();
    assert!((h.toi as f64 - 4e-7).abs() < 4e-7 * 1e-4);
}

// ---------------------------------------------------------------------------------
// Build time (not asserted)
// ---------------------------------------------------------------------------------

/// This process's CPU time (user and system, seconds; 10 ms resolution), from
/// `/proc/self/stat` (NaN elsewhere): on a shared machine it measures the work, where
/// the wall clock measures the neighbours too.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |k: usize| fields.get(k).and_then(|x| x.parse::<f64>().ok());
    match (ticks(11), ticks(12)) {
        (Some(u), Some(s)) => (u + s) / 100.0,
        _ => f64::NAN,
    }
}

/// Prints the build time, tree and memory of a 1M-triangle terrain and of a 2M-triangle
/// random soup, and the time of a batch of rays. Run with
/// `cargo test --release -p minkowski --test trimesh -- --ignored --nocapture`.
#[test]
#[ignore]
fn build_time_of_a_million_triangles() {
    let mut rng = Rng::new(0xb16);
    let n = 708; // 2 · 707² = 999 698 triangles
    let mut v = Vec::with_capacity(n * n);
    for i in 0..n {
        for j in 0..n {
            let (x, z) = (j as f64 * 0.5, i as f64 * 0.5);
            let y = (x * 0.05).sin() * 4.0 + (z * 0.03).cos() * 3.0 + rng.range(-0.1, 0.1);
            v.push(v3(DVec3::new(x, y, z)));
        }
    }
    let mut t = Vec::with_capacity(2 * (n - 1) * (n - 1));
    for i in 0..n - 1 {
        for j in 0..n - 1 {
            let at = |i: usize, j: usize| (i * n + j) as u32;
            t.push([at(i, j), at(i + 1, j), at(i, j + 1)]);
            t.push([at(i, j + 1), at(i + 1, j), at(i + 1, j + 1)]);
        }
    }
    let count = t.len();
    let (start, cpu) = (std::time::Instant::now(), cpu_seconds());
    let m = TriMesh::new(v, t, TriMeshFlags::NONE).unwrap();
    let (built, built_cpu) = (start.elapsed(), cpu_seconds() - cpu);
    println!(
        "terrain: {count} triangles built in {:.0} ms ({:.0} ms of CPU); tree depth {}, SAH cost {:.1}, {} nodes; {:.1} MB",
        built.as_secs_f64() * 1e3,
        built_cpu * 1e3,
        m.tree().depth(),
        m.tree().sah_cost(),
        m.tree().node_count(),
        m.memory_bytes() as f64 / 1e6
    );
    let rays = 100_000;
    let cpu = cpu_seconds();
    let mut hits = 0;
    for _ in 0..rays {
        let o = v3(DVec3::new(
            rng.range(0.0, 353.0),
            20.0,
            rng.range(0.0, 353.0),
        ));
        let d = v3(DVec3::new(rng.range(-1.0, 1.0), -1.0, rng.range(-1.0, 1.0)));
        hits += cast_ray_trimesh(&m, &Pose::IDENTITY, &Ray::new(o, d), &RayOptions::default())
            .unwrap()
            .hit
            .is_some() as usize;
    }
    println!(
        "  {rays} rays ({hits} hits): {:.0} ns of CPU per ray",
        (cpu_seconds() - cpu) * 1e9 / rays as f64
    );
    let cpu = cpu_seconds();
    for _ in 0..rays {
        let p = v3(DVec3::new(
            rng.range(0.0, 353.0),
            rng.range(-10.0, 20.0),
            rng.range(0.0, 353.0),
        ));
        project_point_trimesh(&m, &Pose::IDENTITY, p).unwrap();
    }
    println!(
        "  {rays} projections: {:.0} ns of CPU each",
        (cpu_seconds() - cpu) * 1e9 / rays as f64
    );
    let s = random_soup(&mut rng, 2_000_000);
    let (start, cpu) = (std::time::Instant::now(), cpu_seconds());
    let m = TriMesh::new(s.v, s.t, TriMeshFlags::NONE).unwrap();
    println!(
        "soup: 2000000 triangles built in {:.0} ms ({:.0} ms of CPU); tree depth {}, SAH cost {:.1}; {:.1} MB",
        start.elapsed().as_secs_f64() * 1e3,
        (cpu_seconds() - cpu) * 1e3,
        m.tree().depth(),
        m.tree().sah_cost(),
        m.memory_bytes() as f64 / 1e6
    );
}
