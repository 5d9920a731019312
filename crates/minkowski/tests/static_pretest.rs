//! The static-geometry contact queries' corner pre-test (`static_geometry`'s `Reach`: a
//! ball's, a capsule's or a box's distance to a triangle from its corners, before the set
//! builds the triangle's edges) and the ball's one-point face contact, against two
//! oracles:
//!
//! * **brute force**: every triangle of the set as a `Triangle` shape, through the
//!   ordinary exact pair query (`query::contact`): no triangle the query answers is
//!   farther than the margin; a shape within the margin of some triangle gets a contact;
//!   a ball's contact with a triangle is that triangle's exact distance (its face contact
//!   is snapped only when its foot is over the triangle, where the plane's distance is the
//!   triangle's);
//! * **the query without the pre-test**: the same set queried together with a second,
//!   far-away set, which turns the pre-test off (it runs for single-set queries): the
//!   same triangles, features and distances, and the same manifolds.
//!
//! On fields the ball's and the capsule's pre-test is also asked of each cell's box before
//! its corners (`TriangleSet::triangles_in_where`'s `keep_box`), so the same oracles cover
//! it; `cell_boxes_hold_their_triangles` checks the field's side of that contract.
//!
//! Seeded placements: touching (distance 0), 1% deep, just apart within and beyond a
//! margin; over faces, the grid's edges and vertices, on flat tiled ground (internal
//! edges: every normal must be the face's, no ghost) and on bumpy ground and a ridged
//! mesh; at scales 1e-3 and 1e3 as well as 1.

#![allow(clippy::unnecessary_cast)] // `as f64` is a no-op in the f64 build

#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::static_sets::{far_away, grid_field, grid_mesh, Cells};
use common::Rng;
use minkowski::bounding::Aabb;
use minkowski::query::static_geometry::{self as sg, Placed, TriangleContact, TriangleFeature};
use minkowski::query::{self, QueryOptions};
use minkowski::shape::{
    Capsule, Cuboid, Cylinder, PointShape, RoundedShape, Shape, Sphere, TriMesh, Triangle,
    TriangleSet,
};
use minkowski::{Pose, Real, Vector};
use std::ops::ControlFlow;

/// The query shapes at unit scale times `s`: ball, capsule, box, rounded box, cylinder
/// (the last has no pre-test: a control).
fn shapes(s: Real) -> Vec<(&'static str, Shape)> {
    vec![
        ("ball", Shape::from(Sphere::new(0.5 * s).unwrap())),
        (
            "rounded point",
            Shape::from(RoundedShape::new(PointShape::ORIGIN.into(), 0.3 * s).unwrap()),
        ),
        (
            "capsule",
            Shape::from(Capsule::new(0.4 * s, 0.25 * s).unwrap()),
        ),
        (
            "box",
            Shape::from(Cuboid::new(Vector::new(0.5, 0.4, 0.3) * s).unwrap()),
        ),
        (
            "rounded box",
            Shape::from(
                RoundedShape::new(
                    Cuboid::new(Vector::new(0.3, 0.2, 0.25) * s).unwrap().into(),
                    0.1 * s,
                )
                .unwrap(),
            ),
        ),
        (
            "cylinder",
            Shape::from(Cylinder::new(0.3 * s, 0.4 * s).unwrap()),
        ),
    ]
}

/// The exact contact of `b` with every triangle of `set`: (index, distance).
fn brute(set: &dyn TriangleSet, b: &Shape, pose: &Pose) -> Vec<(u32, Real)> {
    (0..set.triangle_count() as u32)
        .filter_map(|i| {
            let t = set.triangle(i)?;
            let [p, q, r] = t.vertices;
            let tri = Shape::from(Triangle::new(p, q, r).ok()?);
            let c = query::contact(&tri, &Pose::IDENTITY, b, pose);
            Some((i, c.distance))
        })
        .collect()
}

/// Placements of `b` over `set`: a random point of the set's box (a face), a grid
/// vertex or an edge's middle (when `grid` is the cell size), lowered onto the surface
/// by its exact distance (brute force, along −y) and then moved up by `lift`.
fn place(
    rng: &mut Rng,
    set: &dyn TriangleSet,
    b: &Shape,
    grid: Real,
    span: Real,
    lift: Real,
) -> Pose {
    let kind = rng.below(4) as u64;
    let mut at = |k: u64| -> Real {
        let x = rng.range(-0.5, 0.5) as Real * span;
        match k {
            // A grid vertex.
            0 => (x / grid).round() * grid,
            // An edge's middle.
            1 => ((x / grid).floor() + 0.5) * grid,
            _ => x,
        }
    };
    let (x, z) = (at(kind), at(if kind == 1 { 0 } else { kind }));
    let rot = rng.rotation();
    // Lowered by its distance until it touches (a vertical step of the distance never
    // overshoots: it moves the shape by no more than that towards the surface).
    let mut y = 2.0 * span;
    for _ in 0..12 {
        let pose = Pose::new(rot, Vector::new(x, y, z)).unwrap();
        let d = brute(set, b, &pose)
            .iter()
            .map(|c| c.1)
            .fold(Real::INFINITY, Real::min);
        y -= d;
        if d <= 1e-6 * span {
            break;
        }
    }
    Pose::new(rot, Vector::new(x, y + lift, z)).unwrap()
}

/// The contacts of `b` with `set` alone (pre-tested) and with `set` beside a far set (not
/// pre-tested).
fn both(
    set: &dyn TriangleSet,
    far: &TriMesh,
    b: &Shape,
    pose: &Pose,
    margin: Real,
) -> (Vec<TriangleContact>, Vec<TriangleContact>) {
    let o = QueryOptions::default();
    let alone: [Placed<'_>; 1] = [(set, Pose::IDENTITY)];
    let beside: [Placed<'_>; 2] = [(set, Pose::IDENTITY), (far, Pose::IDENTITY)];
    (
        sg::contacts(&alone, b, pose, margin, &o),
        sg::contacts(&beside, b, pose, margin, &o),
    )
}

/// Runs every check on `cases` placements per shape over `set` (cell size `grid`, box
/// span `span`), scale `s`; returns how many placements had a contact (so that the
/// caller can check the touching branch was exercised).
/// `ghosts` counts the placements with a ghost normal on flat ground (with and without
/// the pre-test alike: one it added fails).
#[allow(clippy::too_many_arguments)] // the set and its grid, the scale, the counter
fn check(
    set: &dyn TriangleSet,
    grid: Real,
    span: Real,
    s: Real,
    flat: bool,
    seed: u64,
    ghosts: &mut usize,
) -> usize {
    let far = far_away(s);
    let o = QueryOptions::default();
    let mut rng = Rng::new(seed);
    let mut touching = 0;
    for (name, b) in shapes(s) {
        for case in 0..40 {
            // Touching, 1% deep, just apart within a margin, beyond it.
            let (lift, margin) = match case % 4 {
                0 => (0.0, 0.0),
                1 => (-0.01 * s, 0.0),
                2 => (0.02 * s, 0.05 * s),
                _ => (0.08 * s, 0.05 * s),
            };
            let pose = place(&mut rng, set, &b, grid, span, lift);
            let exact = brute(set, &b, &pose);
            let nearest = exact.iter().map(|c| c.1).fold(Real::INFINITY, Real::min);
            let (pre, plain) = both(set, &far, &b, &pose, margin);
            let tol = 1e-4 * s;
            let at = format!("{name} case {case} at {pose:?}, margin {margin}");
            // Oracle 1: brute force.
            for c in &pre {
                let d = exact
                    .iter()
                    .find(|e| e.0 == c.triangle)
                    .map(|e| e.1)
                    .unwrap_or(Real::INFINITY);
                assert!(
                    d <= margin + tol,
                    "{at}: triangle {} is {d} away",
                    c.triangle
                );
                if name == "ball" || name == "rounded point" {
                    assert!(
                        (c.contact.distance - d).abs() <= tol,
                        "{at}: ball contact {} against exact {d}",
                        c.contact.distance
                    );
                }
            }
            // Flat ground: a normal off "up" is a ghost; the pre-test must add none.
            let ghost = |cs: &[TriangleContact]| {
                flat && cs.iter().any(|c| {
                    c.contact.distance <= 0.0
                        && (c.contact.normal.dot(Vector::Y) < 1.0 - 1e-6
                            || c.feature != TriangleFeature::Face)
                })
            };
            if nearest <= margin - tol {
                assert!(!pre.is_empty(), "{at}: no contact, nearest {nearest}");
            }
            if nearest > margin + tol {
                assert!(pre.is_empty(), "{at}: contacts beyond the margin");
            }
            if ghost(&pre) {
                assert!(
                    ghost(&plain),
                    "{at}: a ghost normal the pre-test added: {pre:?}"
                );
                *ghosts += 1;
            }
            // Oracle 2: the query without the pre-test.
            assert_eq!(pre.len(), plain.len(), "{at}: {pre:?} against {plain:?}");
            for (x, y) in pre.iter().zip(&plain) {
                assert_eq!((x.triangle, x.feature), (y.triangle, y.feature), "{at}");
                assert!(
                    (x.contact.distance - y.contact.distance).abs() <= tol,
                    "{at}: {x:?} against {y:?}"
                );
                assert!(
                    (x.contact.normal - y.contact.normal).length() <= 1e-5,
                    "{at}: {x:?} against {y:?}"
                );
            }
            let alone: [Placed<'_>; 1] = [(set, Pose::IDENTITY)];
            let beside: [Placed<'_>; 2] = [(set, Pose::IDENTITY), (&far, Pose::IDENTITY)];
            let (m1, m2) = (
                sg::manifolds(&alone, &b, &pose, margin, &o),
                sg::manifolds(&beside, &b, &pose, margin, &o),
            );
            assert_eq!(m1.len(), m2.len(), "{at}");
            for (x, y) in m1.iter().zip(&m2) {
                assert!((x.normal - y.normal).length() <= 1e-5, "{at}");
                assert_eq!(x.points().len(), y.points().len(), "{at}");
                for (p, q) in x.points().iter().zip(y.points()) {
                    assert!((p.distance - q.distance).abs() <= tol, "{at}");
                    assert!((p.point_b - q.point_b).length() <= tol, "{at}");
                }
            }
            touching += usize::from(!pre.is_empty());
        }
    }
    touching
}

#[test]
fn pretest_matches_brute_force_on_a_bumpy_field() {
    for (k, s) in [1.0, 1e-3, 1e3].into_iter().enumerate() {
        let f = grid_field(12, 0.5 * s, |i, j| {
            Some(((i as Real * 0.9).sin() + (j as Real * 1.3).cos()) * 0.3)
        });
        let hit = check(&f, 0.5 * s, 4.0 * s, s, false, 100 + k as u64, &mut 0);
        assert!(hit >= 120, "only {hit} placements of 240 touched");
    }
}

#[test]
fn pretest_matches_brute_force_on_flat_tiled_ground() {
    // Every internal edge of a flat field and of a flat mesh is inactive: every normal
    // must be up (no ghost), whatever edge or vertex the shape is over.
    let mut ghosts = [0; 3];
    for (k, s) in [1.0, 1e-3, 1e3].into_iter().enumerate() {
        let f = grid_field(12, 0.5 * s, |_, _| Some(0.0));
        let hit = check(
            &f,
            0.5 * s,
            4.0 * s,
            s,
            true,
            200 + k as u64,
            &mut ghosts[k],
        );
        assert!(hit >= 120, "only {hit} placements of 240 touched");
        let m = grid_mesh(12, 0.5 * s, Cells::Alternating, |_, _| 0.0);
        let hit = check(
            &m,
            0.5 * s,
            4.0 * s,
            s,
            true,
            300 + k as u64,
            &mut ghosts[k],
        );
        assert!(hit >= 120, "only {hit} placements of 240 touched");
    }
    // At unit scale none at all; at 1e-3 and 1e3 see the count (reported, not yet fixed).
    eprintln!("ghost placements at scales 1, 1e-3, 1e3: {ghosts:?}");
    assert_eq!(ghosts[0], 0, "ghost normals at unit scale");
}

#[test]
fn pretest_matches_brute_force_on_a_ridged_mesh() {
    // A convex ridge along z (two faces at ±10°) and a concave valley along x: active
    // and inactive edges, vertices where they cross.
    for (k, s) in [1.0, 1e-3].into_iter().enumerate() {
        let m = grid_mesh(12, 0.5 * s, Cells::Alternating, |x, z| {
            -0.176 * x.abs() + 0.1 * (z / s).abs() * s
        });
        let hit = check(&m, 0.5 * s, 4.0 * s, s, false, 400 + k as u64, &mut 0);
        assert!(hit >= 120, "only {hit} placements of 240 touched");
    }
}

/// The field's side of `keep_box` (oracle: the corners themselves): each triangle handed
/// to `keep` lies inside the cell box offered just before it, every triangle of the query
/// box comes through when every cell is accepted, and none when every cell is refused.
#[test]
fn cell_boxes_hold_their_triangles() {
    for s in [1.0, 1e-3, 1e3] {
        let f = grid_field(9, 0.5 * s, |i, j| {
            Some(((i as Real * 0.7).sin() * (j as Real * 1.1).cos()) * 0.4)
        });
        let query = Aabb::new(
            Vector::new(-1.3, -5.0, -0.9) * s,
            Vector::new(0.8, 5.0, 1.7) * s,
        );
        let mut all = 0;
        f.triangles_in(&query, &mut |_| {
            all += 1;
            ControlFlow::Continue(())
        });
        let last = std::cell::Cell::new(None::<Aabb>);
        let (mut cells, mut seen) = (0, 0);
        f.triangles_in_where(
            &query,
            &mut |b| {
                cells += 1;
                last.set(Some(*b));
                true
            },
            &mut |v| {
                let b = last.get().expect("a cell box before its corners");
                assert!(
                    v.iter()
                        .all(|p| p.cmpge(b.mins).all() && p.cmple(b.maxs).all()),
                    "{v:?} outside {b:?}"
                );
                true
            },
            &mut |_| {
                seen += 1;
                ControlFlow::Continue(())
            },
        );
        assert_eq!(seen, all);
        assert!(
            cells > 0 && 2 * cells >= all,
            "{cells} cells, {all} triangles"
        );
        let mut none = 0;
        f.triangles_in_where(&query, &mut |_| false, &mut |_| true, &mut |_| {
            none += 1;
            ControlFlow::Continue(())
        });
        assert_eq!(none, 0);
    }
}
