//! The static-geometry queries (`query::static_dispatch`: a convex shape against a
//! heightfield, a triangle mesh or a half-space) on arbitrary geometry, shapes, poses,
//! rays, motions and points, at scales from 2^-40 to 2^13 (f32) or 2^-300 to 2^160
//! (f64), with what the library promises asserted: valid input is never refused and
//! gives finite answers with unit normals; closest points at distance ≥ 0, their
//! witnesses that far apart; `intersects`, `contact` and `closest_points` agree outside
//! a band; no manifold point deeper than the contact nor beyond the margin; a ray's hit
//! on the surface (a heightfield's bilinear patch, or its side) within `max_toi`, and a
//! missed ray through no sampled point of the solid; a cast's shapes never closer than
//! the target before its hit, at the target at a converged one.
//!
//! Oracles: for triangle geometry, the least distance of the shape (and of the point)
//! to each triangle alone, a convex [`Triangle`], is the geometry's distance — except
//! where the library's solid rule answers 0 instead (a shape whose centre is under a
//! heightfield or inside a closed mesh, see `static_dispatch`'s notes); for a half-space,
//! the closed form from the shape's support point. Penetration depths and normals are
//! not compared with the triangles: the ghost-collision rules and one-sided solids
//! change them on purpose. Tolerances are relative to the problem's size, as in the
//! `queries` target.
#![no_main]

// The `f64` feature fuzzes the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use minkowski::query::compound::Collider;
use minkowski::query::static_dispatch as sd;
use minkowski::query::{self, CastStart, Motion, QueryOptions, QueryStatus, Ray, RayOptions};
use minkowski::shape::{
    HalfSpace, HeightField, Shape, StaticShape, TriMesh, TriMeshFlags, Triangle, TriangleSet,
    MAX_MAGNITUDE,
};
use minkowski::support::SupportMap;
use minkowski::{Pose, Real, Vector};
use std::ops::ControlFlow;

mod raw;
use raw::{pose, shape, size, RawPose, RawShape};

/// The most samples per side of a field or relief.
const SIDE: usize = 8;

#[derive(Debug, Arbitrary)]
struct Input {
    /// The static shape (`kind % 4`): a heightfield, an open mesh over the same relief,
    /// a closed box mesh, a half-space; bit 2 makes a mesh one-sided, bits 3.. choose the
    /// relief mesh's diagonals.
    kind: u8,
    /// Samples per side, `2 + b % 7` (rows along z, columns along x).
    grid: (u8, u8),
    /// Cell sizes along x and z (`raw::size`: 0, or 1e-3 to 1e3).
    cell: (u8, u8),
    /// One height step is `size(relief) / 16` (0: a flat field); the box's half height.
    relief: u8,
    /// Heights in steps, row-major over an 8 × 8 grid.
    heights: [i8; SIDE * SIDE],
    /// With its top bit set, everything scaled by `2^k` (module notes).
    scale: u8,
    static_pose: RawPose,
    collider: RawShape,
    collider_pose: RawPose,
    /// In units of the problem's reach / 16.
    ray_origin: (i8, i8, i8),
    ray_dir: (i8, i8, i8),
    solid: bool,
    /// In units of the problem's size / 32 per unit time.
    velocity: (i8, i8, i8),
    /// Cast target distance, up to 0.2 reach.
    target: u8,
    /// In units of the problem's reach / 32.
    point: (i8, i8, i8),
    /// Manifold margin, up to 0.5 reach.
    margin: u8,
}

/// The factor `2^k` of [`Input::scale`].
fn scale(b: u8) -> Real {
    if b < 128 {
        return 1.0;
    }
    let (lo, hi) = if cfg!(feature = "f64") {
        (-300, 160)
    } else {
        (-40, 13)
    };
    let k = lo + (b - 128) as i32 * (hi - lo) / 127;
    (2.0 as Real).powi(k)
}

fn v(t: (i8, i8, i8), unit: Real) -> Vector {
    Vector::new(t.0 as Real, t.1 as Real, t.2 as Real) * unit
}

/// The grid of samples (local frame, centred on the local origin in x and z).
struct Relief {
    rows: usize,
    cols: usize,
    cell: [Real; 2],
    origin: Vector,
    heights: Vec<Real>,
}

impl Relief {
    fn point(&self, i: usize, j: usize) -> Vector {
        self.origin
            + Vector::new(
                j as Real * self.cell[0],
                self.heights[i * self.cols + j],
                i as Real * self.cell[1],
            )
    }

    /// The largest gap between a cell's bilinear patch and its two triangles
    /// (`|h00 − h10 − h01 + h11| / 4`).
    fn twist(&self) -> Real {
        let h = |i: usize, j: usize| self.heights[i * self.cols + j];
        let mut t: Real = 0.0;
        for i in 0..self.rows - 1 {
            for j in 0..self.cols - 1 {
                t = t.max((h(i, j) - h(i, j + 1) - h(i + 1, j) + h(i + 1, j + 1)).abs() / 4.0);
            }
        }
        t
    }
}

/// The open mesh over the relief, each cell split along the diagonal its bit of
/// `diagonals` chooses, counter-clockwise seen from +y.
fn relief_mesh(r: &Relief, diagonals: u8, flags: TriMeshFlags) -> Option<TriMesh> {
    let mut vertices = Vec::new();
    for i in 0..r.rows {
        for j in 0..r.cols {
            vertices.push(r.point(i, j));
        }
    }
    let mut indices = Vec::new();
    for i in 0..r.rows - 1 {
        for j in 0..r.cols - 1 {
            let a = (i * r.cols + j) as u32;
            let (b, c, d) = (a + 1, a + r.cols as u32, a + r.cols as u32 + 1);
            if (diagonals >> ((i + j) % 5)) & 1 == 0 {
                indices.push([a, c, d]);
                indices.push([a, d, b]);
            } else {
                indices.push([a, c, b]);
                indices.push([b, c, d]);
            }
        }
    }
    TriMesh::new(vertices, indices, flags).ok()
}

/// The closed box mesh of half extents `h` (12 triangles, outward).
fn box_mesh(h: Vector, one_sided: bool) -> Option<TriMesh> {
    let corner = |k: u32| {
        Vector::new(
            if k & 1 == 0 { -h.x } else { h.x },
            if k & 2 == 0 { -h.y } else { h.y },
            if k & 4 == 0 { -h.z } else { h.z },
        )
    };
    let vertices: Vec<Vector> = (0..8).map(corner).collect();
    let mut indices = Vec::new();
    // Each face: the corners with bit `axis` equal to `side`, as a quad in cyclic order.
    for axis in 0..3 {
        let (u, w) = ((axis + 1) % 3, (axis + 2) % 3);
        for side in 0..2u32 {
            let at = |a: u32, b: u32| (side << axis) | (a << u) | (b << w);
            let quad = [at(0, 0), at(1, 0), at(1, 1), at(0, 1)];
            for tri in [[quad[0], quad[1], quad[2]], [quad[0], quad[2], quad[3]]] {
                let [p, q, r] = tri.map(|k| vertices[k as usize]);
                let outward = (q - p).cross(r - p).dot(p + q + r) > 0.0;
                indices.push(if outward {
                    tri
                } else {
                    [tri[0], tri[2], tri[1]]
                });
            }
        }
    }
    let flags = TriMeshFlags {
        one_sided,
        closed: true,
    };
    TriMesh::new(vertices, indices, flags).ok()
}

/// Every triangle of the set, as a convex shape (local frame of the set).
fn all_triangles(set: &dyn TriangleSet) -> Vec<Shape> {
    let mut out = Vec::new();
    if let Some(b) = set.local_aabb() {
        set.triangles_in(&b.loosened(b.half_extents().max_element()), &mut |t| {
            let [a, b, c] = t.vertices;
            if let Ok(tri) = Triangle::new(a, b, c) {
                out.push(Shape::from(tri));
            }
            ControlFlow::Continue(())
        });
    }
    out
}

fuzz_target!(|input: Input| {
    let f = scale(input.scale);
    let Some(b) = shape(&input.collider, 0).and_then(|s| s.scaled(f).ok()) else {
        return;
    };
    let rows = 2 + input.grid.0 as usize % 7;
    let cols = 2 + input.grid.1 as usize % 7;
    let cell = [size(input.cell.0) * f, size(input.cell.1) * f];
    let step = size(input.relief) * f / 16.0;
    let relief = Relief {
        rows,
        cols,
        cell,
        origin: Vector::new(
            -cell[0] * (cols - 1) as Real / 2.0,
            0.0,
            -cell[1] * (rows - 1) as Real / 2.0,
        ),
        heights: (0..rows * cols)
            .map(|k| input.heights[(k / cols) * SIDE + k % cols] as Real * step)
            .collect(),
    };
    let one_sided = input.kind & 4 != 0;
    let s: StaticShape = match input.kind % 4 {
        0 => {
            let samples: Vec<Option<Real>> = relief.heights.iter().map(|&h| Some(h)).collect();
            let Ok(field) = HeightField::new(rows, cols, &samples, cell, relief.origin) else {
                return;
            };
            field.into()
        }
        1 => {
            let flags = if one_sided {
                TriMeshFlags::ONE_SIDED
            } else {
                TriMeshFlags::NONE
            };
            let Some(m) = relief_mesh(&relief, input.kind >> 3, flags) else {
                return;
            };
            m.into()
        }
        2 => {
            let h = Vector::new(-relief.origin.x, step * 16.0, -relief.origin.z);
            let Some(m) = box_mesh(h, one_sided) else {
                return;
            };
            m.into()
        }
        _ => HalfSpace::new(Vector::Y, 0.0)
            .expect("a unit normal")
            .into(),
    };
    let field = matches!(s, StaticShape::HeightField(_));
    let closed = matches!(&s, StaticShape::TriMesh(m) if m.is_closed());
    let static_reach = s
        .local_aabb()
        .map_or(0.0, |a| a.mins.abs().max(a.maxs.abs()).length());
    let reach = static_reach.max(b.bounding_radius()).max(1e-3 * f);
    let (Some(ps), Some(pb)) = (
        pose(&input.static_pose, reach),
        pose(&input.collider_pose, reach),
    ) else {
        return;
    };
    let sigma = reach + (pb.translation() - ps.translation()).length();
    // Rays, points and motions reach 16 times that far: keep them within range.
    if 32.0 * sigma > MAX_MAGNITUDE {
        return;
    }
    let rel = if cfg!(feature = "f64") { 1e-7 } else { 2e-3 };
    let tol = rel * sigma;
    let opts = QueryOptions::default();
    let collider: Collider = b.clone().into();
    let unit = |n: Vector| (n.length() - 1.0).abs() < 1e-3;

    // Whether a shape's centre is inside the solid the triangles do not bound by
    // themselves (under a field, inside a closed mesh): the library's buried rule.
    let buried = |at: &Pose| {
        (field || closed)
            && sd::project_point(&s, &ps, at.transform_point(b.local_center()), &opts)
                .expect("a finite point")
                .inside
    };

    // Pair queries, and their agreement.
    let hit = sd::intersects(&s, &ps, &collider, &pb, &opts);
    let cp = sd::closest_points(&s, &ps, &collider, &pb, &opts);
    let c = sd::contact(&s, &ps, &collider, &pb, &opts);
    assert!(
        cp.distance.is_finite() && cp.point_a.is_finite() && cp.point_b.is_finite(),
        "non-finite closest points {cp:?}"
    );
    assert!(cp.distance >= 0.0, "negative closest distance {cp:?}");
    assert!(
        ((cp.point_a - cp.point_b).length() - cp.distance).abs() <= tol,
        "closest points {cp:?}: witnesses apart by {}",
        (cp.point_a - cp.point_b).length()
    );
    assert!(
        c.distance.is_finite() && c.point_a.is_finite() && c.point_b.is_finite(),
        "non-finite contact {c:?}"
    );
    assert!(unit(c.normal), "contact normal not unit: {c:?}");
    assert!(
        ((c.point_b - c.point_a) - c.normal * c.distance).length() <= tol,
        "point_b − point_a ≠ distance · normal: {c:?}"
    );
    if cp.distance > tol {
        assert!(!hit, "closest points {} apart but intersects", cp.distance);
        assert!(
            (c.distance - cp.distance).abs() <= tol,
            "contact {c:?} vs closest points {cp:?}"
        );
    }
    if c.distance < -tol {
        assert!(hit, "contact {} deep but not intersects", -c.distance);
        assert!(cp.distance <= tol, "contact {c:?} vs closest points {cp:?}");
    }
    if hit {
        assert!(cp.distance <= tol, "intersects, but {cp:?}");
    }

    // The oracles of the pair queries.
    let triangles = match &s {
        StaticShape::HeightField(h) => all_triangles(h.as_ref()),
        StaticShape::TriMesh(m) => all_triangles(m.as_ref()),
        StaticShape::HalfSpace(_) => Vec::new(),
    };
    let buried_b = buried(&pb);
    if let StaticShape::HalfSpace(_) = s {
        // The shape's lowest point along the plane's normal, to the plane.
        let n = ps.rotation() * Vector::Y;
        let low = pb.transform_point(b.local_support(pb.rotation().inverse() * -n));
        let d = n.dot(low - ps.translation());
        assert!(
            (c.distance - d).abs() <= tol,
            "half-space contact {c:?}, closed form {d}"
        );
        assert!(
            (cp.distance - d.max(0.0)).abs() <= tol,
            "half-space closest points {cp:?}, closed form {d}"
        );
        if d > tol {
            assert!(!hit, "{d} above the half-space but intersects");
        }
        if d < -tol {
            assert!(hit, "{d} into the half-space but not intersects");
        }
    } else if buried_b {
        assert!(hit && cp.distance == 0.0, "buried but {hit} and {cp:?}");
    } else {
        let d = triangles
            .iter()
            .map(|t| query::closest_points(t, &ps, &b, &pb).distance)
            .fold(Real::INFINITY, Real::min);
        assert!(
            (cp.distance - d).abs() <= tol,
            "closest points {cp:?}, triangle by triangle {d}"
        );
    }

    // Known failure (`known-failures/statics-tiny-field-in-huge-cylinder-no-manifold`,
    // `statics-sliver-field-cells-deep-contact-no-manifold`): a deep contact but no
    // manifold when the triangles' feature tie (`FEATURE_TIE` of their heights) is
    // finer than the problem's rounding band (a field of 1.5e-3 at 400 from the origin
    // inside a cylinder of radius 1000; cells 13.8 × 7e5): the contact's witness falls
    // outside `over_triangle`'s tie (and a buried shape then gets the buried contact's
    // manifold, deeper than the triangle contact). Not asserted there until fixed.
    let finest = triangles
        .iter()
        .map(|t| match t {
            Shape::Triangle(t) => {
                let [a, b, c] = t.vertices();
                let long = (b - a).length().max((c - b).length()).max((a - c).length());
                (b - a).cross(c - a).length() / long
            }
            _ => Real::INFINITY,
        })
        .fold(Real::INFINITY, Real::min);
    let fine = minkowski::tolerance::FEATURE_TIE * finest <= tol;
    // Manifolds: points on their normal, point A on the geometry (up to the tie of
    // `over_triangle` and the region's merged normals), none beyond the margin. Without
    // a margin the manifolds see the contact's triangles, and no point is deeper than
    // the contact; a margin brings in triangles the shape does not touch, whose
    // face-normal depths (one-sided rules) may be deeper.
    let margin = reach * (input.margin as Real / 255.0) * 0.5;
    let ms = sd::manifolds(&s, &ps, &collider, &pb, margin, &opts);
    let ms0 = sd::manifolds(&s, &ps, &collider, &pb, 0.0, &opts);
    let tie = minkowski::tolerance::FEATURE_TIE * 2.0 * static_reach;
    for (m, margin) in ms
        .iter()
        .map(|m| (m, margin))
        .chain(ms0.iter().map(|m| (m, 0.0)))
    {
        assert!(!m.is_empty() && unit(m.normal), "manifold {m:?}");
        for p in m.points() {
            assert!(
                p.distance.is_finite() && p.point_a.is_finite() && p.point_b.is_finite(),
                "non-finite manifold point {p:?}"
            );
            assert!(
                ((p.point_b - p.point_a) - m.normal * p.distance).length() <= tol,
                "manifold point {p:?} of {m:?}"
            );
            assert!(
                p.distance <= margin + tol,
                "manifold point {p:?} beyond the margin {margin}"
            );
            if !buried_b {
                let off = sd::project_point(&s, &ps, p.point_a, &opts)
                    .expect("a finite point")
                    .distance
                    .abs();
                assert!(
                    off <= 8.0 * tol + tie + 0.02 * p.distance.abs(),
                    "manifold point {p:?} of {m:?}: point A {off} off the geometry"
                );
            }
            // (A point merged into a region is measured along the region's normal, up to
            // `ACTIVE_EDGE_ANGLE` from its face's: deeper by up to 1 / cos − 1.)
            // (In the known failure's class above, the buried shape's fallback manifold
            // replaces the empty triangle manifolds, at its own depth.)
            if margin == 0.0 && !fine {
                assert!(
                    p.distance >= c.distance - tol - 1e-4 * c.distance.abs(),
                    "manifold point {p:?} of {m:?} deeper than the contact {c:?}; {s:?} at {ps:?}, {b:?} at {pb:?}"
                );
            }
        }
    }
    if c.distance < -tol && !fine {
        assert!(
            !ms0.is_empty(),
            "contact {c:?} but no manifold; {s:?} at {ps:?}, {b:?} at {pb:?}"
        );
    }
    let below = HalfSpace::new(Vector::Y, -2.0 * reach)
        .expect("an offset in range")
        .into();
    let all = sd::manifolds_with_all(&[(&s, ps), (&below, ps)], &collider, &pb, margin, &opts);
    let points = |ms: &mut dyn Iterator<Item = &query::Manifold>| -> usize {
        ms.map(|m| m.points().len()).sum()
    };
    assert!(all.iter().all(|(k, _)| *k < 2), "index out of range");
    assert_eq!(
        points(&mut all.iter().filter(|(k, _)| *k == 0).map(|(_, m)| m)),
        points(&mut ms.iter()),
        "manifolds_with_all vs manifolds"
    );

    // A point's projection.
    let q = ps.translation() + v(input.point, reach / 32.0);
    let p = sd::project_point(&s, &ps, q, &opts).expect("a finite point");
    assert!(
        p.point.is_finite() && p.distance.is_finite(),
        "projection {p:?}"
    );
    assert!(
        ((p.point - q).length() - p.distance.abs()).abs() <= tol,
        "projection {p:?} of {q}: |point − q| = {}",
        (p.point - q).length()
    );
    match &s {
        StaticShape::HalfSpace(_) => {
            let d = (ps.rotation() * Vector::Y).dot(q - ps.translation());
            assert!((p.distance - d).abs() <= tol, "projection {p:?}, plane {d}");
        }
        _ => {
            let d = triangles
                .iter()
                .map(|t| {
                    query::project_point(t, &ps, q)
                        .expect("a finite point")
                        .distance
                        .abs()
                })
                .fold(Real::INFINITY, Real::min);
            assert!(
                (p.distance.abs() - d).abs() <= tol,
                "projection {p:?} of {q}, triangle by triangle {d}"
            );
        }
    }

    // A ray.
    let dir = v(input.ray_dir, reach / 16.0);
    if dir != Vector::ZERO {
        let origin = ps.translation() + v(input.ray_origin, reach / 16.0);
        let ray = Ray::new(origin, dir);
        let ropts = RayOptions {
            max_toi: 4.0,
            solid: input.solid,
        };
        let r = sd::cast_ray(&s, &ps, &ray, &ropts).expect("a valid ray is answered");
        let inside = |x: Vector| {
            sd::project_point(&s, &ps, x, &opts)
                .expect("a finite point")
                .distance
        };
        let halfspace = matches!(s, StaticShape::HalfSpace(_));
        // A heightfield's height under a local point (its rectangle's nearest point).
        let height = |l: Vector| match &s {
            StaticShape::HeightField(h) => {
                let [w, d] = h.extent();
                let o = h.origin();
                let x = l.x.clamp(o.x, o.x + w);
                let z = l.z.clamp(o.z, o.z + d);
                let y = h
                    .height_at(x, z)
                    .expect("in the rectangle")
                    .expect("no holes");
                let on_side = (l.x - o.x).abs().min((l.x - o.x - w).abs()) <= 8.0 * tol
                    || (l.z - o.z).abs().min((l.z - o.z - d).abs()) <= 8.0 * tol;
                let within = l.x >= o.x - 8.0 * tol
                    && l.x <= o.x + w + 8.0 * tol
                    && l.z >= o.z - 8.0 * tol
                    && l.z <= o.z + d + 8.0 * tol;
                (y, on_side, within)
            }
            _ => unreachable!(),
        };
        // (On the surface or within the band counts; a field's is its bilinear patch,
        // which rays see.)
        let origin_inside = if field {
            let l = ps.inverse_transform_point(origin);
            let (y, _, within) = height(l);
            within && l.y <= y + 8.0 * tol
        } else {
            inside(origin) <= 8.0 * tol
        };
        match r.hit {
            Some(h) => {
                assert!(
                    h.toi >= 0.0 && h.toi <= ropts.max_toi && h.point.is_finite(),
                    "ray hit {h:?}"
                );
                assert!(unit(h.normal), "ray normal not unit: {h:?}");
                assert!(
                    (h.point - ray.point_at(h.toi)).length() <= 8.0 * tol,
                    "hit point {h:?} off the ray"
                );
                if field {
                    let l = ps.inverse_transform_point(h.point);
                    let (y, on_side, within) = height(l);
                    assert!(
                        within && l.y <= y + 8.0 * tol,
                        "hit {h:?} off the field: local {l}, height {y}, {s:?}, ray {ray:?}"
                    );
                    let on_surface = (l.y - y).abs() <= 8.0 * tol;
                    assert!(
                        on_surface || on_side || h.toi == 0.0,
                        "hit {h:?} neither on the surface ({} off) nor on a side",
                        l.y - y
                    );
                    if on_surface {
                        let gap = inside(h.point).abs();
                        assert!(
                            gap <= 8.0 * tol + relief.twist(),
                            "hit point {h:?} is {gap} off the triangles"
                        );
                    }
                } else if h.toi > 0.0 || !origin_inside {
                    let gap = inside(h.point).abs();
                    assert!(gap <= 8.0 * tol, "hit point {h:?} is {gap} off the surface");
                }
            }
            // A hollow solid is left beyond `max_toi` by a ray starting inside it.
            None if !ropts.solid && origin_inside => {}
            None => {
                for k in 0..=8 {
                    let x = ray.point_at(ropts.max_toi * k as Real / 8.0);
                    let into = if field {
                        let l = ps.inverse_transform_point(x);
                        let (y, on_side, within) = height(l);
                        within && !on_side && l.y < y - 8.0 * tol
                    } else {
                        (closed || halfspace) && inside(x) < -8.0 * tol
                    };
                    assert!(
                        !into,
                        "a missed ray {ray:?} ({ropts:?}) passes {x} inside the solid {s:?} at {ps:?}"
                    );
                }
            }
        }
    }

    // A linear cast of the shape (the static shape at rest).
    let vel = v(input.velocity, sigma / 32.0);
    let target = reach * (input.target as Real / 255.0) * 0.2;
    let max_toi = 4.0;
    let cast = sd::cast(
        &s,
        &ps,
        Motion::ZERO,
        &collider,
        &pb,
        Motion::linear(vel),
        max_toi,
        target,
        &opts,
    )
    .expect("a valid cast is answered");
    assert!(
        cast.toi.is_finite()
            && cast.normal.is_finite()
            && cast.point_a.is_finite()
            && cast.point_b.is_finite(),
        "non-finite cast {cast:?}"
    );
    // (`None` past the coordinate range, where the cast's interval ends too.)
    let at = |t: Real| Pose::new(pb.rotation(), pb.translation() + vel * t).ok();
    if cast.hit {
        assert!(
            cast.toi >= 0.0 && cast.toi <= max_toi,
            "toi out of range: {cast:?}"
        );
        assert!(unit(cast.normal), "cast normal not unit: {cast:?}");
    }
    // A hit's `start` is its own triangle's: the shape may start within the target of
    // another triangle (and leave it) and still report `Separated`. The path is checked
    // when the shape starts farther than the target from the whole geometry. A field's
    // solid is also entered through the sides of its rectangle, where it has no
    // triangle to hit (a shape then meets the triangles from behind, and the one-sided
    // rule drops those hits): a field's path is checked while the shape's box stays over
    // the rectangle. A one-sided open mesh is passed through from behind by design (the
    // cast rule drops hits on a face the shape moves out of): not checked.
    let open_one_sided =
        matches!(&s, StaticShape::TriMesh(m) if m.flags().one_sided && !m.is_closed());
    // Known failure (`known-failures/statics-f64-ball-cast-at-open-mesh-corner-dropped`):
    // a ball moving onto the corner of a two-sided open mesh, its normal there made of
    // both boundary edges' outward directions, is dropped: each of the two triangles at
    // the corner knows only one of those edges, rejects the normal and the motion leaves
    // the face. A miss against an open mesh is not checked until fixed.
    let open_miss = !cast.hit && matches!(&s, StaticShape::TriMesh(m) if !m.is_closed());
    let over_field = |q: &Pose| match &s {
        StaticShape::HeightField(h) => {
            let l = b.local_aabb().transformed(q).transformed(&ps.inverse());
            let (o, [w, d]) = (h.origin(), h.extent());
            l.mins.x >= o.x && l.maxs.x <= o.x + w && l.mins.z >= o.z && l.maxs.z <= o.z + d
        }
        _ => true,
    };
    let scene = || format!("velocity {vel}, target {target}; {s:?} at {ps:?}, {b:?} at {pb:?}");
    let d0 = sd::closest_points(&s, &ps, &collider, &pb, &opts).distance;
    if cast.start == CastStart::Separated
        && d0 > target + 8.0 * tol
        && !open_one_sided
        && !open_miss
    {
        let end = if cast.hit { cast.toi } else { max_toi };
        let mut checked = true;
        for k in 0..8 {
            let t = end * k as Real / 8.0;
            let Some(q) = at(t).filter(over_field) else {
                checked = false;
                break;
            };
            let d = sd::closest_points(&s, &ps, &collider, &q, &opts).distance;
            assert!(
                d >= target - 8.0 * tol,
                "distance {d} at {t} before {cast:?}; {}",
                scene()
            );
        }
        let at_toi = at(cast.toi).filter(over_field);
        if let (true, true, QueryStatus::Converged, Some(q)) =
            (checked, cast.hit, cast.status, at_toi)
        {
            let d = sd::closest_points(&s, &ps, &collider, &q, &opts).distance;
            assert!(
                (d - target).abs() <= 8.0 * tol,
                "distance {d} at the toi of {cast:?}; {}",
                scene()
            );
        }
    }
});
