//! Seeded scenarios for static level geometry (issue 20), shared by every column of the
//! `static-report`: heightfields, the same fields as triangle meshes, a closed mesh, ray
//! and contact query sets, the ghost-collision slides and the rule that calls a contact
//! normal bad. No peer appears here; every method (minkowski's own and the peers) is
//! handed these arrays and answers in the world frame.
//!
//! # Conventions
//!
//! - A [`Field`] has `rows × cols` samples, row `i` along +z, column `j` along +x: sample
//!   `[i][j]` is the point `origin + (j · sx, h[i][j], i · sz)` (minkowski's
//!   `HeightField::new` convention). Its triangulation, which the peers use and
//!   [`Field::to_mesh`] writes out, splits every cell along the **anti-diagonal**, from
//!   `[i+1][j]` to `[i][j+1]`: triangles `(p00, p10, p01)` and `(p10, p11, p01)`, where
//!   `p10` is one row on (+z) and `p01` one column on (+x); both counter-clockwise seen
//!   from above (normal +y). This is parry3d's default cell split and Bullet's default
//!   (`flipQuadEdges = false`).
//! - Meshes are vertices plus index triples, counter-clockwise seen from outside (from
//!   above for ground).
//! - Normals reported by contact queries point **out of the static geometry**, towards
//!   the convex shape; for ground that is up.
//! - Shapes are [`Spec`]s (minkowski's conventions) at [`PoseArray`] poses.
// Casts to and from `Real` are no-ops in the f64 build.
#![allow(clippy::unnecessary_cast)]

use crate::peers::cast::RayInput;
use crate::peers::{PoseArray, Spec};
use crate::Rng;
use glam::{DQuat, DVec3};
use minkowski::Real;

/// A regular grid of heights (see the module notes for the frame and the triangulation).
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Samples along z.
    pub rows: usize,
    /// Samples along x.
    pub cols: usize,
    /// Row-major heights: `heights[i * cols + j]`.
    pub heights: Vec<Real>,
    /// Cell size `[sx, sz]`.
    pub cell: [Real; 2],
    /// Position of sample `[0][0]` at height 0.
    pub origin: [Real; 3],
}

/// Which terrain [`Field::terrain`] makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Terrain {
    /// Smooth hills (a sum of seeded sine products) plus value noise: general cells, whose
    /// bilinear patch and two triangles differ by up to a quarter of the cell's twist.
    Hills,
    /// `f(z) + g(x)`, each a seeded smooth profile plus noise: every cell is planar
    /// (`h00 + h11 = h10 + h01`), so the bilinear patch *is* the two triangles and a
    /// bilinear method and the triangulated peers must agree exactly.
    PlanarCells,
}

impl Terrain {
    /// Name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Terrain::Hills => "hills",
            Terrain::PlanarCells => "planar-cells",
        }
    }
}

/// Cell size of the terrain fields (both axes).
pub const TERRAIN_CELL: Real = 0.5;

impl Field {
    /// An `n × n` terrain from `seed`, cells [`TERRAIN_CELL`] apart, centred on the
    /// world origin in x and z. Hills: amplitude about 4 over wavelengths of 12 to 60
    /// units, noise ±0.05.
    pub fn terrain(n: usize, kind: Terrain, seed: u64) -> Field {
        let mut rng = Rng::new(seed);
        let s = TERRAIN_CELL;
        let half = (n - 1) as Real * s * 0.5;
        let waves: Vec<[f64; 5]> = (0..6)
            .map(|_| {
                let amp = 0.4 + 0.6 * (rng.signed() as f64 * 0.5 + 0.5);
                let kx = std::f64::consts::TAU / (12.0 + 48.0 * (rng.signed() as f64 * 0.5 + 0.5));
                let kz = std::f64::consts::TAU / (12.0 + 48.0 * (rng.signed() as f64 * 0.5 + 0.5));
                [
                    amp,
                    kx,
                    kz,
                    rng.signed() as f64 * 3.2,
                    rng.signed() as f64 * 3.2,
                ]
            })
            .collect();
        let mut heights = Vec::with_capacity(n * n);
        match kind {
            Terrain::Hills => {
                for i in 0..n {
                    for j in 0..n {
                        let (x, z) = (j as f64 * s as f64, i as f64 * s as f64);
                        let h: f64 = waves
                            .iter()
                            .map(|w| w[0] * (w[1] * x + w[3]).sin() * (w[2] * z + w[4]).sin())
                            .sum();
                        heights.push((2.0 * h + 0.05 * rng.signed() as f64) as Real);
                    }
                }
            }
            Terrain::PlanarCells => {
                let profile = |rng: &mut Rng, k: usize| -> Vec<f64> {
                    (0..n)
                        .map(|t| {
                            let x = t as f64 * s as f64;
                            let h: f64 = waves
                                .iter()
                                .skip(k)
                                .step_by(2)
                                .map(|w| w[0] * (w[1] * x + w[3]).sin())
                                .sum();
                            2.0 * h + 0.05 * rng.signed() as f64
                        })
                        .collect()
                };
                let fz = profile(&mut rng, 0);
                let gx = profile(&mut rng, 1);
                for f in &fz {
                    for g in &gx {
                        heights.push((f + g) as Real);
                    }
                }
            }
        }
        Field {
            rows: n,
            cols: n,
            heights,
            cell: [s, s],
            origin: [-half, 0.0, -half],
        }
    }

    /// A flat field at height 0 (relative to `origin`).
    pub fn flat(rows: usize, cols: usize, cell: [Real; 2], origin: [Real; 3]) -> Field {
        Field {
            rows,
            cols,
            heights: vec![0.0; rows * cols],
            cell,
            origin,
        }
    }

    /// Height of sample `[i][j]` relative to the origin.
    pub fn h(&self, i: usize, j: usize) -> f64 {
        self.heights[i * self.cols + j] as f64
    }

    /// Sample `[i][j]` in the world, f64.
    pub fn point(&self, i: usize, j: usize) -> DVec3 {
        DVec3::new(
            self.origin[0] as f64 + j as f64 * self.cell[0] as f64,
            self.origin[1] as f64 + self.h(i, j),
            self.origin[2] as f64 + i as f64 * self.cell[1] as f64,
        )
    }

    /// Extent along x and z.
    pub fn extent(&self) -> [f64; 2] {
        [
            (self.cols - 1) as f64 * self.cell[0] as f64,
            (self.rows - 1) as f64 * self.cell[1] as f64,
        ]
    }

    /// Lowest and highest sample (relative to the origin).
    pub fn range(&self) -> (Real, Real) {
        self.heights
            .iter()
            .fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), &h| {
                (lo.min(h), hi.max(h))
            })
    }

    /// Triangle count of the triangulation.
    pub fn triangle_count(&self) -> usize {
        2 * (self.rows - 1) * (self.cols - 1)
    }

    /// The two triangles of cell `(i, j)` (anti-diagonal split, counter-clockwise from
    /// above), world frame.
    pub fn cell_triangles(&self, i: usize, j: usize) -> [[DVec3; 3]; 2] {
        let (p00, p10, p01, p11) = (
            self.point(i, j),
            self.point(i + 1, j),
            self.point(i, j + 1),
            self.point(i + 1, j + 1),
        );
        [[p00, p10, p01], [p10, p11, p01]]
    }

    /// The cell containing world `(x, z)` and the cell coordinates `(u, v)` in it, or
    /// `None` outside the field.
    pub fn locate(&self, x: f64, z: f64) -> Option<(usize, usize, f64, f64)> {
        let fx = (x - self.origin[0] as f64) / self.cell[0] as f64;
        let fz = (z - self.origin[2] as f64) / self.cell[1] as f64;
        let (nx, nz) = ((self.cols - 1) as f64, (self.rows - 1) as f64);
        if !(0.0..=nx).contains(&fx) || !(0.0..=nz).contains(&fz) {
            return None;
        }
        let j = (fx.floor() as usize).min(self.cols - 2);
        let i = (fz.floor() as usize).min(self.rows - 2);
        Some((i, j, fx - j as f64, fz - i as f64))
    }

    /// Height (world) of the triangulated surface at world `(x, z)`, and its upward unit
    /// normal there (of the triangle containing the point).
    pub fn triangle_surface(&self, x: f64, z: f64) -> Option<(f64, DVec3)> {
        let (i, j, u, v) = self.locate(x, z)?;
        let (h00, h10, h01, h11) = (
            self.h(i, j),
            self.h(i, j + 1),
            self.h(i + 1, j),
            self.h(i + 1, j + 1),
        );
        // Here h10 is one column on (+x, u) and h01 one row on (+z, v).
        let (sx, sz) = (self.cell[0] as f64, self.cell[1] as f64);
        let (h, gx, gz) = if u + v <= 1.0 {
            (
                h00 + (h10 - h00) * u + (h01 - h00) * v,
                h10 - h00,
                h01 - h00,
            )
        } else {
            (
                h11 + (h01 - h11) * (1.0 - u) + (h10 - h11) * (1.0 - v),
                h11 - h01,
                h11 - h10,
            )
        };
        let n = DVec3::new(-gx / sx, 1.0, -gz / sz).normalize();
        Some((self.origin[1] as f64 + h, n))
    }

    /// Height (world) of the bilinear surface at world `(x, z)`.
    pub fn bilinear_surface(&self, x: f64, z: f64) -> Option<f64> {
        let (i, j, u, v) = self.locate(x, z)?;
        let (h00, h10, h01, h11) = (
            self.h(i, j),
            self.h(i, j + 1),
            self.h(i + 1, j),
            self.h(i + 1, j + 1),
        );
        Some(
            self.origin[1] as f64
                + h00 * (1.0 - u) * (1.0 - v)
                + h10 * u * (1.0 - v)
                + h01 * (1.0 - u) * v
                + h11 * u * v,
        )
    }

    /// The largest vertical gap between the bilinear patch and the two triangles of the
    /// cell at world `(x, z)`: a quarter of the cell's twist `|h00 − h10 − h01 + h11|`.
    pub fn bilinear_gap(&self, x: f64, z: f64) -> f64 {
        self.locate(x, z).map_or(0.0, |(i, j, _, _)| {
            (self.h(i, j) - self.h(i, j + 1) - self.h(i + 1, j) + self.h(i + 1, j + 1)).abs() / 4.0
        })
    }

    /// The field triangulated as a mesh: one vertex per sample (index `i * cols + j`),
    /// the anti-diagonal split of the module notes.
    pub fn to_mesh(&self) -> Mesh {
        let vertices = (0..self.rows)
            .flat_map(|i| (0..self.cols).map(move |j| (i, j)))
            .map(|(i, j)| {
                let p = self.point(i, j);
                [p.x as Real, p.y as Real, p.z as Real]
            })
            .collect();
        let mut indices = Vec::with_capacity(self.triangle_count());
        let c = self.cols as u32;
        for i in 0..(self.rows - 1) as u32 {
            for j in 0..(self.cols - 1) as u32 {
                let (p00, p01, p10, p11) = (
                    i * c + j,
                    i * c + j + 1,
                    (i + 1) * c + j,
                    (i + 1) * c + j + 1,
                );
                indices.push([p00, p10, p01]);
                indices.push([p10, p11, p01]);
            }
        }
        Mesh { vertices, indices }
    }
}

/// A triangle mesh: vertices and counter-clockwise (from outside) index triples.
#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    /// Vertices, world frame.
    pub vertices: Vec<[Real; 3]>,
    /// Triangles.
    pub indices: Vec<[u32; 3]>,
}

impl Mesh {
    /// A closed torus around the y axis: major radius `big`, tube radius `small`, `nu`
    /// segments around the axis and `nv` around the tube (`2 · nu · nv` triangles).
    pub fn torus(big: f64, small: f64, nu: usize, nv: usize) -> Mesh {
        let mut vertices = Vec::with_capacity(nu * nv);
        for a in 0..nu {
            let u = a as f64 / nu as f64 * std::f64::consts::TAU;
            for b in 0..nv {
                let v = b as f64 / nv as f64 * std::f64::consts::TAU;
                let r = big + small * v.cos();
                vertices.push([
                    (r * u.cos()) as Real,
                    (small * v.sin()) as Real,
                    (r * u.sin()) as Real,
                ]);
            }
        }
        let id = |a: usize, b: usize| ((a % nu) * nv + (b % nv)) as u32;
        let mut indices = Vec::with_capacity(2 * nu * nv);
        for a in 0..nu {
            for b in 0..nv {
                // Outward: (u, v) → (u, v+1) → (u+1, v) is counter-clockwise from outside.
                indices.push([id(a, b), id(a, b + 1), id(a + 1, b)]);
                indices.push([id(a + 1, b), id(a, b + 1), id(a + 1, b + 1)]);
            }
        }
        Mesh { vertices, indices }
    }

    /// The surface `y = height(x, z)` over `[x0, x1] × [z0, z1]` sampled on a grid of
    /// `nx × nz` cells, triangulated like a [`Field`].
    pub fn grid(
        [x0, x1]: [f64; 2],
        [z0, z1]: [f64; 2],
        nx: usize,
        nz: usize,
        height: impl Fn(f64, f64) -> f64,
    ) -> Mesh {
        let (sx, sz) = ((x1 - x0) / nx as f64, (z1 - z0) / nz as f64);
        let mut field = Field::flat(
            nz + 1,
            nx + 1,
            [sx as Real, sz as Real],
            [x0 as Real, 0.0, z0 as Real],
        );
        for i in 0..=nz {
            for j in 0..=nx {
                field.heights[i * (nx + 1) + j] =
                    height(x0 + j as f64 * sx, z0 + i as f64 * sz) as Real;
            }
        }
        field.to_mesh()
    }

    /// Triangle `t` in f64.
    pub fn triangle(&self, t: usize) -> [DVec3; 3] {
        self.indices[t].map(|k| dv(self.vertices[k as usize]))
    }
}

/// The static geometry of one case: a field or a mesh.
#[derive(Debug, Clone, Copy)]
pub enum Geometry<'a> {
    /// A heightfield.
    Field(&'a Field),
    /// A triangle mesh.
    Mesh(&'a Mesh),
}

/// A point or vector of the build's precision in f64.
pub fn dv(a: [Real; 3]) -> DVec3 {
    DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64)
}

fn real3(v: DVec3) -> [Real; 3] {
    [v.x as Real, v.y as Real, v.z as Real]
}

/// The pose array of a rotation and a translation.
pub fn pose_array(q: DQuat, t: DVec3) -> PoseArray {
    let q = q.normalize();
    [
        t.x as Real,
        t.y as Real,
        t.z as Real,
        q.x as Real,
        q.y as Real,
        q.z as Real,
        q.w as Real,
    ]
}

/// The rotation and translation of a pose array.
pub fn pose_parts(p: &PoseArray) -> (DQuat, DVec3) {
    (
        DQuat::from_xyzw(p[3] as f64, p[4] as f64, p[5] as f64, p[6] as f64).normalize(),
        DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64),
    )
}

/// `max over the shape of dir · p` for the shape at `q` centred at the origin (its
/// support function), for the shapes of the query sets and slides.
///
/// # Panics
/// On a hull, cylinder or cone (not used by the static suite).
pub fn support(spec: &Spec, q: DQuat, dir: DVec3) -> f64 {
    let d = q.inverse() * dir;
    match spec {
        Spec::Sphere(r) => *r as f64 * d.length(),
        Spec::Box(h) => d.x.abs() * h[0] as f64 + d.y.abs() * h[1] as f64 + d.z.abs() * h[2] as f64,
        Spec::Capsule(hh, r) => d.y.abs() * *hh as f64 + *r as f64 * d.length(),
        other => panic!("static suite: no support function for {other:?}"),
    }
}

/// The query shapes: sphere r 0.5, box 0.5 × 0.4 × 0.3 (half extents), capsule half
/// height 0.4 radius 0.25 (the cast report's sizes), with their names.
pub fn query_shapes() -> Vec<(&'static str, Spec)> {
    vec![
        ("sphere", Spec::Sphere(0.5)),
        ("box", Spec::Box([0.5, 0.4, 0.3])),
        ("capsule", Spec::Capsule(0.4, 0.25)),
    ]
}

/// The kind of a ray of the query sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RayKind {
    /// Straight down from 2 units above the highest sample.
    Down,
    /// 20° to 60° from the vertical, from 2 units above the highest sample (over the
    /// field: for small fields the tilt is drawn again until the start is over it).
    Oblique,
    /// 1° to 4° below the horizontal, from 0.3 above the surface, 60 units long.
    Grazing,
    /// At a closed mesh from 3 major radii away, towards a point within it.
    Outside,
}

impl RayKind {
    /// Name in tables.
    pub fn name(self) -> &'static str {
        match self {
            RayKind::Down => "down",
            RayKind::Oblique => "oblique",
            RayKind::Grazing => "grazing",
            RayKind::Outside => "outside",
        }
    }
    /// The kinds for fields (and the field meshes).
    pub const FIELD: [RayKind; 3] = [RayKind::Down, RayKind::Oblique, RayKind::Grazing];
}

/// `n` rays of `kind` at `field`, landing (or starting, for grazing rays) in the inner
/// 90% of its rectangle; unit directions.
pub fn field_rays(field: &Field, kind: RayKind, n: usize, seed: u64) -> Vec<RayInput> {
    let mut rng = Rng::new(seed);
    let [w, d] = field.extent();
    let (o, top) = (
        dv(field.origin),
        field.origin[1] as f64 + field.range().1 as f64 + 2.0,
    );
    (0..n)
        .map(|_| {
            let x = o.x + w * (0.5 + 0.45 * rng.signed() as f64);
            let z = o.z + d * (0.5 + 0.45 * rng.signed() as f64);
            let az = rng.signed() as f64 * std::f64::consts::PI;
            let (origin, dir, max_toi) = match kind {
                RayKind::Down => (DVec3::new(x, top, z), DVec3::NEG_Y, top - o.y + 50.0),
                RayKind::Oblique => {
                    // Start over the field (a solid field's side walls are not every
                    // method's: minkowski's are, the peers' triangles have none): the
                    // tilt is drawn until the start lies inside its rectangle.
                    let (y, _) = field.triangle_surface(x, z).unwrap_or((o.y, DVec3::Y));
                    loop {
                        let tilt = (40.0 + 20.0 * rng.signed() as f64).to_radians();
                        let dir =
                            DVec3::new(tilt.sin() * az.cos(), -tilt.cos(), tilt.sin() * az.sin());
                        let t0 = (top - y) / tilt.cos();
                        let start = DVec3::new(x, y, z) - dir * t0;
                        if field.locate(start.x, start.z).is_some() || tilt < 0.35 {
                            break (start, dir, t0 + 20.0);
                        }
                    }
                }
                RayKind::Grazing | RayKind::Outside => {
                    let dip = (2.5 + 1.5 * rng.signed() as f64).to_radians();
                    let dir = DVec3::new(dip.cos() * az.cos(), -dip.sin(), dip.cos() * az.sin());
                    let (y, _) = field.triangle_surface(x, z).unwrap_or((o.y, DVec3::Y));
                    (DVec3::new(x, y + 0.3, z), dir, 60.0)
                }
            };
            RayInput {
                origin: real3(origin),
                dir: real3(dir),
                max_toi: max_toi as Real,
            }
        })
        .collect()
}

/// `n` rays at the torus of [`Mesh::torus`]`(big, small, ..)` from `3 · big` away,
/// aimed at random points within `big + small` of its centre and `small` of its plane.
pub fn torus_rays(big: f64, small: f64, n: usize, seed: u64) -> Vec<RayInput> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let from = rng.dir();
            let origin = DVec3::new(from.x as f64, from.y as f64, from.z as f64) * 3.0 * big;
            let target = DVec3::new(
                rng.signed() as f64 * (big + small),
                rng.signed() as f64 * small,
                rng.signed() as f64 * (big + small),
            );
            let dir = (target - origin).normalize();
            RayInput {
                origin: real3(origin),
                dir: real3(dir),
                max_toi: (6.0 * big) as Real,
            }
        })
        .collect()
}

/// A convex shape placed against static geometry: which query shape, and where.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    /// Index into the shape list the positions were made for.
    pub shape: usize,
    /// World pose.
    pub pose: PoseArray,
}

/// Places `spec` (rotated by `q`) against a surface through `p` with outward normal
/// `n`, `depth` deep along `n`.
fn rest(spec: &Spec, q: DQuat, p: DVec3, n: DVec3, depth: f64) -> DVec3 {
    // The shape's lowest point along n is at n·c − support(−n): make it n·p − depth.
    p + n * (support(spec, q, -n) - depth)
}

/// `n` query shapes (cycling through `shapes`) at random orientations, resting on the
/// triangulated surface of `field` at random points of its inner 90%, `depth` deep along
/// the local triangle normal (the surface curves away from the tangent plane, so the
/// actual overlap varies: the report prints the share in contact).
pub fn field_contacts(
    field: &Field,
    shapes: &[Spec],
    n: usize,
    depth: f64,
    seed: u64,
) -> Vec<Placed> {
    let mut rng = Rng::new(seed);
    let [w, d] = field.extent();
    let o = dv(field.origin);
    (0..n)
        .map(|k| {
            let s = k % shapes.len();
            let x = o.x + w * (0.5 + 0.45 * rng.signed() as f64);
            let z = o.z + d * (0.5 + 0.45 * rng.signed() as f64);
            let (y, nrm) = field.triangle_surface(x, z).expect("inside the field");
            let q = random_quat(&mut rng);
            let c = rest(&shapes[s], q, DVec3::new(x, y, z), nrm, depth);
            Placed {
                shape: s,
                pose: pose_array(q, c),
            }
        })
        .collect()
}

/// `n` query shapes at random orientations resting on the torus at random points of its
/// smooth surface, `depth` deep along the smooth normal.
pub fn torus_contacts(
    big: f64,
    small: f64,
    shapes: &[Spec],
    n: usize,
    depth: f64,
    seed: u64,
) -> Vec<Placed> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|k| {
            let s = k % shapes.len();
            let u = rng.signed() as f64 * std::f64::consts::PI;
            let v = rng.signed() as f64 * std::f64::consts::PI;
            let nrm = DVec3::new(v.cos() * u.cos(), v.sin(), v.cos() * u.sin());
            let p = DVec3::new(big * u.cos(), 0.0, big * u.sin()) + nrm * small;
            let q = random_quat(&mut rng);
            Placed {
                shape: s,
                pose: pose_array(q, rest(&shapes[s], q, p, nrm, depth)),
            }
        })
        .collect()
}

fn random_quat(rng: &mut Rng) -> DQuat {
    let q = rng.rotation();
    DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64).normalize()
}

/// A ghost-collision slide (issue 20's three): static geometry, a shape, and seeded
/// positions sliding across it, each `SLIDE_DEPTH` into the surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slide {
    /// A flat floor at y = 0 over `[-8, 8]²`, a mesh of 64 × 64 cells (8192 triangles).
    TiledFloor,
    /// Two flat 0.25-cell heightfields at y = 0 meeting at x = 0 (`[-8, 0]` and
    /// `[0, 8]` in x, `[-8, 8]` in z); the shape straddles the seam.
    Seam,
    /// A convex ridge along z at x = 0, both faces sloping down at [`RIDGE_SLOPE`]
    /// (normals 2 · 10° apart), a mesh over `[-4, 4] × [-8, 8]` of 0.25 cells.
    Ridge,
}

/// The slope of each face of the ridge slide, radians (10°).
pub const RIDGE_SLOPE: f64 = 10.0 * std::f64::consts::PI / 180.0;

/// How deep the sliding shapes are placed into the surface: 1% of their unit size.
pub const SLIDE_DEPTH: f64 = 0.01;

/// The angle beyond which a contact normal is a ghost, radians.
pub const GHOST_TOLERANCE: f64 = 1e-3;

/// The static geometry of a slide.
#[derive(Debug, Clone)]
pub enum SlideGeometry {
    /// One mesh.
    Mesh(Mesh),
    /// Several fields, each its own object.
    Fields(Vec<Field>),
}

impl Slide {
    /// All three.
    pub const ALL: [Slide; 3] = [Slide::TiledFloor, Slide::Seam, Slide::Ridge];

    /// Name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Slide::TiledFloor => "tiled floor (mesh)",
            Slide::Seam => "two heightfields (seam)",
            Slide::Ridge => "convex ridge (mesh)",
        }
    }

    /// The sliding shapes: a box (half extents 0.5 × 0.25 × 0.5) and a capsule (half
    /// height 0.5, radius 0.25).
    pub fn shapes() -> Vec<(&'static str, Spec)> {
        vec![
            ("box", Spec::Box([0.5, 0.25, 0.5])),
            ("capsule", Spec::Capsule(0.5, 0.25)),
        ]
    }

    /// The slide's static geometry.
    pub fn geometry(self) -> SlideGeometry {
        match self {
            Slide::TiledFloor => {
                SlideGeometry::Mesh(Mesh::grid([-8.0, 8.0], [-8.0, 8.0], 64, 64, |_, _| 0.0))
            }
            Slide::Seam => SlideGeometry::Fields(vec![
                Field::flat(65, 33, [0.25, 0.25], [-8.0, 0.0, -8.0]),
                Field::flat(65, 33, [0.25, 0.25], [0.0, 0.0, -8.0]),
            ]),
            Slide::Ridge => {
                let t = RIDGE_SLOPE.tan();
                SlideGeometry::Mesh(Mesh::grid([-4.0, 4.0], [-8.0, 8.0], 32, 64, move |x, _| {
                    -t * x.abs()
                }))
            }
        }
    }

    /// The outward normals of the slide's faces: one for flat ground, the two faces'
    /// for the ridge (the valid normals are the arc between them).
    pub fn face_normals(self) -> (DVec3, DVec3) {
        match self {
            Slide::TiledFloor | Slide::Seam => (DVec3::Y, DVec3::Y),
            Slide::Ridge => {
                let (s, c) = RIDGE_SLOPE.sin_cos();
                (DVec3::new(-s, c, 0.0), DVec3::new(s, c, 0.0))
            }
        }
    }

    /// `n` seeded positions of `spec` sliding across the slide: random yaw and a tilt of
    /// up to 5° for boxes, a random orientation for capsules; flat slides: anywhere in
    /// `[-6, 6]²` (the seam: centre within 0.6 of x = 0); the ridge: centre within 1.5 of
    /// the crease. Each is placed [`SLIDE_DEPTH`] into the surface: for flat ground its
    /// lowest point 0.01 below y = 0; for the ridge its penetration depth into the solid
    /// under the ridge (the intersection of the two faces' half-spaces) is 0.01, sampled
    /// over 65 directions of the ridge's normal arc.
    pub fn positions(self, spec: &Spec, n: usize, seed: u64) -> Vec<PoseArray> {
        let mut rng = Rng::new(seed);
        let (n1, n2) = self.face_normals();
        (0..n)
            .map(|_| {
                let q = match spec {
                    Spec::Box(_) => {
                        let yaw =
                            DQuat::from_rotation_y(rng.signed() as f64 * std::f64::consts::PI);
                        let a = rng.signed() as f64 * std::f64::consts::PI;
                        let axis = DVec3::new(a.cos(), 0.0, a.sin());
                        let tilt = (rng.signed() as f64 * 0.5 + 0.5) * 5f64.to_radians();
                        DQuat::from_axis_angle(axis, tilt) * yaw
                    }
                    _ => random_quat(&mut rng),
                };
                let (x, z) = match self {
                    Slide::TiledFloor => (6.0 * rng.signed() as f64, 6.0 * rng.signed() as f64),
                    Slide::Seam => (0.6 * rng.signed() as f64, 6.0 * rng.signed() as f64),
                    Slide::Ridge => (1.5 * rng.signed() as f64, 6.0 * rng.signed() as f64),
                };
                let c0 = DVec3::new(x, 0.0, z);
                // The solid is the intersection of the face half-spaces, all through the
                // origin's crease line: its support is 0 in every direction u of its
                // normal cone (the arc between the face normals) and infinite outside,
                // so the shape's depth is the least over the arc of
                // support(−u) − u · c. Height y of the centre making that SLIDE_DEPTH,
                // over 64 directions of the arc.
                let y = (0..=64)
                    .map(|k| n1.lerp(n2, k as f64 / 64.0).normalize())
                    .map(|u| (support(spec, q, -u) - SLIDE_DEPTH - u.dot(c0)) / u.y)
                    .fold(f64::INFINITY, f64::min);
                pose_array(q, c0 + DVec3::Y * y)
            })
            .collect()
    }

    /// How far (radians) the unit normal `n` (out of the ground, towards the shape) lies
    /// from the slide's valid normals: the angle to up on flat ground, the angle to the
    /// arc of the ridge's Gauss map (the normals between its two faces') on the ridge.
    /// A normal is a ghost when this exceeds [`GHOST_TOLERANCE`]; see [`Slide::is_bad`].
    pub fn normal_error(self, n: [f64; 3]) -> f64 {
        let n = DVec3::from_array(n);
        let len = n.length();
        if len.is_nan() || len <= 0.0 || len.is_infinite() {
            return std::f64::consts::PI;
        }
        let n = n / len;
        let (a, b) = self.face_normals();
        let angle = |x: DVec3, y: DVec3| x.dot(y).clamp(-1.0, 1.0).acos();
        if a == b {
            return angle(n, a);
        }
        // The arc lies on the great circle with pole c; n's projection onto that
        // circle is on the arc iff it is between a and b.
        let c = a.cross(b).normalize();
        let p = n - c * n.dot(c);
        if p.length() > 1e-12 {
            let p = p.normalize();
            if a.cross(p).dot(c) >= 0.0 && p.cross(b).dot(c) >= 0.0 {
                return angle(n, p);
            }
        }
        angle(n, a).min(angle(n, b))
    }

    /// Whether the contact normal `n` is a ghost (see [`Slide::normal_error`]).
    pub fn is_bad(self, n: [f64; 3]) -> bool {
        self.normal_error(n) > GHOST_TOLERANCE
    }
}

/// The exact first hit of a ray on a list of triangles (two-sided), f64: Möller–Trumbore
/// with the hit's triangle normals. Returns the time and the unit normals (facing the
/// ray) of every triangle hit within `eps` of the first time.
pub fn first_hit<'t>(
    tris: impl Iterator<Item = [DVec3; 3]> + 't,
    ray: &RayInput,
    eps: f64,
) -> Option<(f64, Vec<DVec3>)> {
    let (o, d) = (dv(ray.origin), dv(ray.dir));
    let mut hits: Vec<(f64, DVec3)> = Vec::new();
    for [a, b, c] in tris {
        let (e1, e2) = (b - a, c - a);
        let p = d.cross(e2);
        let det = e1.dot(p);
        if det.abs() < 1e-300 {
            continue;
        }
        let s = o - a;
        let u = s.dot(p) / det;
        let q = s.cross(e1);
        let v = d.dot(q) / det;
        let t = e2.dot(q) / det;
        let slack = 1e-9;
        if u < -slack || v < -slack || u + v > 1.0 + slack || t < 0.0 || t > ray.max_toi as f64 {
            continue;
        }
        let mut n = e1.cross(e2).normalize();
        if n.dot(d) > 0.0 {
            n = -n;
        }
        hits.push((t, n));
    }
    let t0 = hits.iter().map(|h| h.0).fold(f64::INFINITY, f64::min);
    if !t0.is_finite() {
        return None;
    }
    Some((
        t0,
        hits.into_iter()
            .filter(|h| h.0 <= t0 + eps)
            .map(|h| h.1)
            .collect(),
    ))
}

/// The reference first hit of `ray` on `field`'s triangulation: the cells under the
/// ray's xz segment, walked in a 2D grid traversal (Amanatides–Woo, with the cells
/// sharing a crossed corner included), each cell's two triangles tested exactly.
pub fn field_first_hit(field: &Field, ray: &RayInput, eps: f64) -> Option<(f64, Vec<DVec3>)> {
    let (o, d) = (dv(ray.origin), dv(ray.dir));
    let (sx, sz) = (field.cell[0] as f64, field.cell[1] as f64);
    let fo = dv(field.origin);
    let (nj, ni) = ((field.cols - 1) as i64, (field.rows - 1) as i64);
    let end = o + d * ray.max_toi as f64;
    let (ax, az) = ((o.x - fo.x) / sx, (o.z - fo.z) / sz);
    let (bx, bz) = ((end.x - fo.x) / sx, (end.z - fo.z) / sz);
    // The cells of the segment's footprint, grown by one cell: conservative and simple.
    let mut cells: Vec<(i64, i64)> = Vec::new();
    let steps = ((bx - ax).abs().max((bz - az).abs()).ceil() as i64 * 2).max(1);
    for k in 0..=steps {
        let f = k as f64 / steps as f64;
        let (cx, cz) = (
            (ax + (bx - ax) * f).floor() as i64,
            (az + (bz - az) * f).floor() as i64,
        );
        for di in -1..=1 {
            for dj in -1..=1 {
                let (i, j) = (cz + di, cx + dj);
                if (0..ni).contains(&i) && (0..nj).contains(&j) {
                    cells.push((i, j));
                }
            }
        }
    }
    cells.sort_unstable();
    cells.dedup();
    first_hit(
        cells
            .into_iter()
            .flat_map(|(i, j)| field.cell_triangles(i as usize, j as usize)),
        ray,
        eps,
    )
}
