//! A ball against static geometry (`static_geometry`'s ball path: candidates from their
//! corners alone, `TriangleSet::corners_in` and `face_normal`, the contact worked in the
//! set's frame, a triangle's edges built only for a contact on an edge or a vertex that
//! no face contact decides), against two oracles:
//!
//! * **brute force**: every triangle of the set, its exact closest point to the ball's
//!   centre (`common::closest_on_triangle`, in f64: the plane's projection when inside,
//!   else the best of the three clamped edges; not the library's Voronoi-region code):
//!   no triangle the query answers is farther than the margin, each contact's distance is
//!   its triangle's, a ball within the margin of some triangle gets a contact, and on
//!   flat ground every contact's normal is the ground's (no ghost);
//! * **the generic path**: the same set queried together with a second, far-away set,
//!   which turns the ball path off (it runs for single-set queries): the same triangles,
//!   features, distances and normals, and the same manifolds.
//!
//! The cases the other static tests do not reach: a set that is placed (rotated and moved)
//! — the ball path works in the set's frame —, a field with holes (boundary edges and
//! vertices, built on demand), a mesh with duplicated vertices, a ball centred on the
//! set's origin (the closed form's rescaling floor: the generic contact answers), and the
//! sets' side of the contract (`corners_in` hands out what `triangles_in` does,
//! `face_normal` is the built triangle's normal). Seeded placements touching, 1% deep and
//! just apart within and beyond a margin, over faces, grid edges and grid vertices, at
//! scales 1e-3, 1 and 1e3.

#![allow(clippy::unnecessary_cast)] // `as f64` is a no-op in the f64 build

#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::static_sets::{far_away, grid_field as field, grid_mesh, Cells};
use common::{closest_on_triangle, d3, Rng};
use minkowski::bounding::Aabb;
use minkowski::query::manifold::Manifold;
use minkowski::query::static_geometry::{self as sg, Placed, TriangleContact, TriangleFeature};
use minkowski::query::QueryOptions;
use minkowski::shape::{
    MeshTriangle, PointShape, RoundedShape, Shape, Sphere, TriMesh, TriangleSet,
};
use minkowski::{Pose, Real, Rotation, Vector};
use std::ops::ControlFlow;

/// The balls at scale `s`: a sphere and a point rounded into one.
fn balls(s: Real) -> [(&'static str, Shape, Real); 2] {
    [
        (
            "sphere",
            Shape::from(Sphere::new(0.5 * s).unwrap()),
            0.5 * s,
        ),
        (
            "rounded point",
            Shape::from(RoundedShape::new(PointShape::ORIGIN.into(), 0.3 * s).unwrap()),
            0.3 * s,
        ),
    ]
}

/// Brute force: every triangle's exact distance (f64) from the ball (centre `c`, world,
/// radius `r`), the set at `pose_s`.
fn exact(set: &dyn TriangleSet, pose_s: &Pose, c: Vector, r: Real) -> Vec<(u32, f64)> {
    (0..set.triangle_count() as u32)
        .filter_map(|i| {
            let t = set.triangle(i)?;
            let [a, b, q] = t.vertices.map(|v| d3(pose_s.transform_point(v)));
            let p = d3(c);
            Some((i, (closest_on_triangle(p, a, b, q) - p).length() - r as f64))
        })
        .collect()
}

/// The contacts of the ball with `set` alone (the ball path) and beside a far set (the
/// generic path), after checking that their manifolds agree (see [`agree`]).
fn both(
    set: &dyn TriangleSet,
    pose_s: &Pose,
    far: &TriMesh,
    b: &Shape,
    pose: &Pose,
    margin: Real,
) -> [Vec<TriangleContact>; 2] {
    let o = QueryOptions::default();
    let alone: [Placed<'_>; 1] = [(set, *pose_s)];
    let beside: [Placed<'_>; 2] = [(set, *pose_s), (far, Pose::IDENTITY)];
    let (m1, m2) = (
        sg::manifolds(&alone, b, pose, margin, &o),
        sg::manifolds(&beside, b, pose, margin, &o),
    );
    let tol = 1e-4 * (1.0 + pose.translation().abs().max_element());
    let deepest = |m: &Manifold| {
        m.points()
            .iter()
            .map(|p| p.distance)
            .fold(Real::INFINITY, Real::min)
    };
    // Regions are matched by normal (regions of equal depth, a ball on a crease, may come
    // in either order after a different rounding), those deeper than the margin's
    // rounding band only.
    for (x, y) in [(&m1, &m2), (&m2, &m1)] {
        for r in x.iter().filter(|r| deepest(r) < margin - tol) {
            let found = y.iter().any(|q| {
                (r.normal - q.normal).length() <= 1e-5 && (deepest(r) - deepest(q)).abs() <= tol
            });
            assert!(found, "no region like {r:?} at {pose:?}: {y:?}");
        }
    }
    [
        sg::contacts(&alone, b, pose, margin, &o),
        sg::contacts(&beside, b, pose, margin, &o),
    ]
}

/// The two paths' contacts agree: every contact deeper than the margin's rounding band
/// (`margin − tol`) of one has its twin in the other (the same triangle and feature, the
/// same distance and normal). A contact within the band may be in one list only: the two
/// paths round differently where the set is placed (in the world, or in the set's frame),
/// and a ball exactly touching at margin 0 is in or out by a rounding.
fn agree(ours: &[TriangleContact], generic: &[TriangleContact], margin: Real, tol: Real, at: &str) {
    for (x, y) in [(ours, generic), (generic, ours)] {
        for c in x.iter().filter(|c| c.contact.distance < margin - tol) {
            let twin = y
                .iter()
                .find(|d| (d.triangle, d.feature) == (c.triangle, c.feature));
            let Some(d) = twin else {
                panic!("{at}: {c:?} has no twin in {y:?}");
            };
            assert!(
                (c.contact.distance - d.contact.distance).abs() <= tol,
                "{at}: {c:?} against {d:?}"
            );
            assert!(
                (c.contact.normal - d.contact.normal).length() <= 1e-5,
                "{at}: {c:?} against {d:?}"
            );
        }
    }
}

/// Runs both oracles on 40 placements per ball over `set` (at `pose_s`; local cell size
/// `grid`, placements within `span` of the local origin), scale `s`; on `flat` ground
/// (local +y up) no normal may be a ghost. Returns how many placements had a contact.
fn check(
    set: &dyn TriangleSet,
    pose_s: &Pose,
    grid: Real,
    span: Real,
    s: Real,
    flat: bool,
    seed: u64,
) -> usize {
    let far = far_away(s);
    let mut rng = Rng::new(seed);
    let up = pose_s.transform_vector(Vector::Y);
    let mut touching = 0;
    for (name, b, r) in balls(s) {
        for case in 0..40 {
            let (lift, margin) = match case % 4 {
                0 => (0.0, 0.0),
                1 => (-0.01 * s, 0.0),
                2 => (0.02 * s, 0.05 * s),
                _ => (0.08 * s, 0.05 * s),
            };
            // Over a grid vertex, an edge's middle, or anywhere.
            let kind = rng.below(4);
            let mut at = |k: usize| -> Real {
                let x = rng.range(-0.5, 0.5) as Real * span;
                match k {
                    0 => (x / grid).round() * grid,
                    1 => ((x / grid).floor() + 0.5) * grid,
                    _ => x,
                }
            };
            let (x, z) = (at(kind), at(if kind == 1 { 0 } else { kind }));
            // Lowered onto the surface by its exact distance (a step of the distance
            // along the local −y never overshoots), then lifted.
            let mut y = 2.0 * span;
            for _ in 0..30 {
                let c = pose_s.transform_point(Vector::new(x, y, z));
                let d = exact(set, pose_s, c, r)
                    .iter()
                    .map(|e| e.1)
                    .fold(f64::INFINITY, f64::min);
                y -= d as Real;
                if d <= 1e-6 * s as f64 {
                    break;
                }
            }
            // (Over a hole the ball falls through: placed nowhere.)
            if y.is_nan() || y <= -span {
                continue;
            }
            let centre = pose_s.transform_point(Vector::new(x, y + lift, z));
            let pose = Pose::new(rng.rotation(), centre).unwrap();
            let truth = exact(set, pose_s, centre, r);
            let nearest = truth.iter().map(|e| e.1).fold(f64::INFINITY, f64::min);
            let [ours, generic] = both(set, pose_s, &far, &b, &pose, margin);
            let tol = 1e-4 * s as f64;
            let at = format!("{name} case {case} at {pose:?}, margin {margin}");
            for c in &ours {
                let d = truth
                    .iter()
                    .find(|e| e.0 == c.triangle)
                    .map_or(f64::INFINITY, |e| e.1);
                assert!(
                    d <= margin as f64 + tol,
                    "{at}: triangle {} is {d} away",
                    c.triangle
                );
                assert!(
                    (c.contact.distance as f64 - d).abs() <= tol,
                    "{at}: contact {} against exact {d}",
                    c.contact.distance
                );
                let n = c.contact.normal;
                assert!((n.length() - 1.0).abs() <= 1e-4, "{at}: normal {n:?}");
                // (The static report's bad-normal rule: more than 1e-3 rad off up. A ball
                // exactly touching, every face snap of which lands a rounding beyond the
                // margin, keeps its deepest contact as it is (`items`' last rule): a
                // normal the rules classed as the face's, within the active-edge angle.)
                let allowance = if c.contact.distance < -tol as Real {
                    1e-3
                } else {
                    1e-2
                };
                if flat && c.contact.distance <= 0.0 {
                    assert!(
                        c.feature == TriangleFeature::Face && (n - up).length() <= allowance,
                        "{at}: ghost normal {c:?}"
                    );
                }
            }
            if nearest <= margin as f64 - tol {
                assert!(!ours.is_empty(), "{at}: no contact, nearest {nearest}");
            }
            if nearest > margin as f64 + tol {
                assert!(ours.is_empty(), "{at}: contacts beyond the margin");
            }
            agree(&ours, &generic, margin, tol as Real, &at);
            touching += usize::from(!ours.is_empty());
        }
    }
    touching
}

/// A rotated and moved placement of a set, at scale `s`.
fn placed(s: Real) -> Pose {
    let r = Rotation::from_axis_angle(Vector::new(0.3, 1.0, -0.2).normalize(), 0.7);
    Pose::new(r, Vector::new(3.0, -1.5, 2.0) * s).unwrap()
}

#[test]
fn placed_bumpy_field_and_mesh_match_brute_force() {
    for (k, s) in [1.0, 1e-3, 1e3].into_iter().enumerate() {
        let bumps =
            |i: usize, j: usize| Some(((i as Real * 0.9).sin() + (j as Real * 1.3).cos()) * 0.3);
        let f = field(12, 0.5 * s, bumps);
        for pose in [Pose::IDENTITY, placed(s)] {
            let hit = check(&f, &pose, 0.5 * s, 4.0 * s, s, false, 10 + k as u64);
            assert!(hit >= 40, "only {hit} placements of 80 touched");
        }
        let m = grid_mesh(12, 0.5 * s, Cells::Welded, |x, z| {
            ((x / s).sin() * (z / s * 0.7).cos()) * 0.3 * s
        });
        let hit = check(&m, &placed(s), 0.5 * s, 4.0 * s, s, false, 20 + k as u64);
        assert!(hit >= 40, "only {hit} placements of 80 touched");
    }
}

#[test]
fn flat_ground_gives_no_ghosts_placed_or_split() {
    // Every internal edge is inactive: whatever edge or vertex the ball is over, every
    // normal must be the ground's. The split mesh's duplicated vertices are welded by
    // position at build, so its edges are internal too.
    for (k, s) in [1.0, 1e-3, 1e3].into_iter().enumerate() {
        let f = field(12, 0.5 * s, |_, _| Some(0.0));
        for pose in [Pose::IDENTITY, placed(s)] {
            let hit = check(&f, &pose, 0.5 * s, 4.0 * s, s, true, 30 + k as u64);
            assert!(hit >= 40, "only {hit} placements of 80 touched");
        }
        for cells in [Cells::Welded, Cells::Split] {
            let m = grid_mesh(12, 0.5 * s, cells, |_, _| 0.0);
            let hit = check(&m, &placed(s), 0.5 * s, 4.0 * s, s, true, 40 + k as u64);
            assert!(hit >= 40, "only {hit} placements of 80 touched");
        }
    }
}

#[test]
fn field_with_holes_matches_brute_force() {
    // Holes make boundary edges and vertices (active): contacts there keep their own
    // normals, which the edges, built on demand, must allow.
    for (k, s) in [1.0, 1e-3].into_iter().enumerate() {
        let f = field(12, 0.5 * s, |i, j| {
            let hole = (3..6).contains(&i) && (4..7).contains(&j) || (i + 2 * j) % 11 == 0;
            (!hole).then(|| ((i as Real * 0.6).sin() * (j as Real * 0.8).cos()) * 0.2)
        });
        for pose in [Pose::IDENTITY, placed(s)] {
            let hit = check(&f, &pose, 0.5 * s, 4.0 * s, s, false, 50 + k as u64);
            assert!(hit >= 30, "only {hit} placements of 80 touched");
        }
    }
}

#[test]
fn ball_centred_on_the_sets_origin() {
    // B at the set's origin (or within the closed form's rescaling floor of it): the
    // dispatcher's contact answers, with the same rules. A flat field through the
    // origin: the ball is half sunk, its normal up.
    let far = far_away(1.0);
    for pose_s in [Pose::IDENTITY, placed(1.0)] {
        let f = field(8, 0.5, |_, _| Some(0.0));
        let up = pose_s.transform_vector(Vector::Y);
        for offset in [0.0, 1e-30, 0.1] {
            let c = pose_s.transform_point(Vector::new(offset, 0.0, 0.0));
            let pose = Pose::new(Rotation::IDENTITY, c).unwrap();
            for (name, b, r) in balls(1.0) {
                let [ours, generic] = both(&f, &pose_s, &far, &b, &pose, 0.0);
                assert!(!ours.is_empty(), "{name} at {offset}");
                agree(&ours, &generic, 0.0, 1e-5, name);
                for x in &ours {
                    assert!((x.contact.distance + r).abs() <= 1e-5, "{name}: {x:?}");
                    assert!((x.contact.normal - up).length() <= 1e-5, "{name}: {x:?}");
                }
            }
        }
    }
}

/// The sets' side (oracle: `triangles_in` and `triangle`): `corners_in` hands out the
/// same triangles in the same order with the same corners, every cell box it offers
/// holds the corners that follow it, and `face_normal` is the built triangle's normal.
#[test]
fn corners_in_hands_out_what_triangles_in_does() {
    for s in [1.0, 1e-3, 1e3] {
        let f = field(9, 0.5 * s, |i, j| {
            (i * j % 7 != 3).then(|| ((i as Real * 0.7).sin() * (j as Real * 1.1).cos()) * 0.4)
        });
        let m = grid_mesh(9, 0.5 * s, Cells::Split, |x, z| {
            (x / s * 0.8).cos() * (z / s).sin() * 0.4 * s
        });
        let sets: [&dyn TriangleSet; 2] = [&f, &m];
        for set in sets {
            let query = Aabb::new(
                Vector::new(-1.3, -5.0, -0.9) * s,
                Vector::new(0.8, 5.0, 1.7) * s,
            );
            let mut built: Vec<MeshTriangle> = Vec::new();
            set.triangles_in(&query, &mut |t| {
                built.push(*t);
                ControlFlow::Continue(())
            });
            assert!(built.len() > 10);
            let last = std::cell::Cell::new(None::<Aabb>);
            let mut seen = Vec::new();
            set.corners_in(
                &query,
                &mut |b| {
                    last.set(Some(*b));
                    true
                },
                &mut |i, v| {
                    if let Some(b) = last.get() {
                        assert!(v
                            .iter()
                            .all(|p| p.cmpge(b.mins).all() && p.cmple(b.maxs).all()));
                    }
                    seen.push((i, *v));
                    ControlFlow::Continue(())
                },
            );
            assert_eq!(seen.len(), built.len());
            for ((i, v), t) in seen.iter().zip(&built) {
                assert_eq!((*i, *v), (t.index, t.vertices));
                assert_eq!(set.face_normal(*i), Some(t.normal));
                assert_eq!(set.triangle(*i).map(|u| u.normal), Some(t.normal));
            }
            let mut none = 0;
            set.corners_in(&query, &mut |_| false, &mut |_, _| {
                none += 1;
                ControlFlow::Continue(())
            });
            // (A mesh is not asked about boxes; a field refused every cell hands none.)
            assert!(none == 0 || none == built.len());
        }
        assert_eq!(f.face_normal(u32::MAX), None);
        assert_eq!(m.face_normal(u32::MAX), None);
    }
}

/// The sets' side of the footprint (oracle: `corners_in` and each triangle's exact
/// distance in f64): `corners_near(centre, reach)` hands out a subsequence of what
/// `corners_in` does, with the same corners, holding every triangle within `reach` of
/// the centre — also those just inside it (reaches a thousandth above a triangle's
/// distance) — and, on a field, leaving out cells off the footprint (checked to happen).
/// Seeded centres above, beside and within the surface, at three scales, on a field with
/// holes and on a mesh (which hands out all of `corners_in`).
#[test]
fn corners_near_keeps_every_triangle_within_reach() {
    let mut rng = Rng::new(0xf007);
    let mut skipped = 0;
    for s in [1.0, 1e-3, 1e3] {
        let f = field(12, 0.5 * s, |i, j| {
            (i * j % 7 != 3).then(|| ((i as Real * 0.7).sin() * (j as Real * 1.1).cos()) * 0.4)
        });
        let m = grid_mesh(12, 0.5 * s, Cells::Split, |x, z| {
            (x / s * 0.8).cos() * (z / s).sin() * 0.4 * s
        });
        let sets: [&dyn TriangleSet; 2] = [&f, &m];
        for (k, set) in sets.into_iter().enumerate() {
            for case in 0..200 {
                let c = Vector::new(
                    rng.range(-3.5, 3.5) as Real,
                    rng.range(-0.8, 0.8) as Real,
                    rng.range(-3.5, 3.5) as Real,
                ) * s;
                let reach = rng.range(0.05, 1.2) as Real * s;
                let query = Aabb::new(c - Vector::splat(reach), c + Vector::splat(reach));
                let mut all = Vec::new();
                set.corners_in(&query, &mut |_| true, &mut |i, v| {
                    all.push((i, *v));
                    ControlFlow::Continue(())
                });
                // Every third case, a reach just above the nearest triangle's distance.
                let reach = if case % 3 == 0 {
                    let nearest = all
                        .iter()
                        .map(|(_, v)| {
                            let [a, b, q] = v.map(d3);
                            (closest_on_triangle(d3(c), a, b, q) - d3(c)).length()
                        })
                        .fold(f64::INFINITY, f64::min);
                    if !nearest.is_finite() || nearest > reach as f64 {
                        continue;
                    }
                    (nearest * (1.0 + 1e-3)) as Real
                } else {
                    reach
                };
                let mut near = Vec::new();
                set.corners_near(&query, (c, reach), &mut |_| true, &mut |i, v| {
                    near.push((i, *v));
                    ControlFlow::Continue(())
                });
                // A subsequence of `corners_in`'s list.
                let mut rest = all.iter();
                for x in &near {
                    assert!(
                        rest.any(|y| y == x),
                        "scale {s} set {k}: {x:?} not from corners_in"
                    );
                }
                for (i, v) in &all {
                    let [a, b, q] = v.map(d3);
                    let d = (closest_on_triangle(d3(c), a, b, q) - d3(c)).length();
                    if d <= reach as f64 {
                        assert!(
                            near.iter().any(|x| x.0 == *i),
                            "scale {s} set {k}: triangle {i} at {d} within reach {reach} of {c:?} left out"
                        );
                    }
                }
                if k == 1 {
                    assert_eq!(near.len(), all.len(), "a mesh hands out all of corners_in");
                }
                skipped += all.len() - near.len();
            }
        }
    }
    assert!(skipped > 0, "the footprint left nothing out");
}

/// Balls at the borders of the candidates' pre-tests (a heightfield cell's box: the
/// rectangle and the range of its four samples; a mesh's tree nodes), where a pre-test
/// that is not conservative would drop a triangle: each ball's lowest point over a cell's
/// rectangle (for a centre `d` from the rectangle, `centre_y − √(r² − d²)`) sits at the
/// cell's highest sample, a rounding or a thousandth above or below it, or the margin
/// above it, centred near that sample (so the sample is the cell's point nearest the
/// ball). Steep fields (slopes up to 8), with holes, identity and rotated placements,
/// and the same surface as a welded mesh; seeded. Oracles as in [`check`]: brute force
/// (no triangle answered beyond the margin, a contact whenever a triangle is within it)
/// and the generic path (the same contacts, the same manifolds).
#[test]
fn balls_at_cell_height_borders_match_brute_force() {
    for (k, s) in [1.0, 1e-3, 1e3].into_iter().enumerate() {
        let n = 8;
        let g = 0.5 * s;
        let seed = 70 + k as u64;
        // Per-sample heights in [−2, 2] cells (slopes up to 8), holes in some cells of
        // the field (`field` scales the heights by the cell size).
        let height = |i: usize, j: usize| -> Real {
            let mut r = Rng::new(seed * 1000 + (i * (n + 1) + j) as u64);
            r.range(-2.0, 2.0) as Real
        };
        let hole = |i: usize, j: usize| (i * 3 + j * 5) % 13 == 0;
        let holed = field(n, g, |i, j| (!hole(i, j)).then(|| height(i, j)));
        let o = -(n as Real) * g * 0.5;
        let grid = |x: Real| ((x - o) / g).round() as usize;
        let mesh = grid_mesh(n, g, Cells::Welded, |x, z| height(grid(z), grid(x)) * g);
        let far = far_away(s);
        let sets: [(&dyn TriangleSet, bool); 2] = [(&holed, true), (&mesh, false)];
        for (set, is_field) in sets {
            for pose_s in [Pose::IDENTITY, placed(s)] {
                let mut rng = Rng::new(seed + u64::from(is_field));
                let (mut touching, mut apart) = (0, 0);
                for case in 0..160 {
                    let (i, j) = (rng.below(n), rng.below(n));
                    let corners = [(i, j), (i, j + 1), (i + 1, j), (i + 1, j + 1)];
                    // (A cell of the field next to a hole sample has no triangle.)
                    if is_field && corners.iter().any(|&(a, b)| hole(a, b)) {
                        continue;
                    }
                    let (ti, tj) = corners
                        .into_iter()
                        .max_by(|p, q| height(p.0, p.1).total_cmp(&height(q.0, q.1)))
                        .unwrap();
                    let top = height(ti, tj) * g;
                    let (name, b, r) = balls(s)[case % 2].clone();
                    let margin = if case % 3 == 0 { 0.05 * s } else { 0.0 };
                    let lift = match case / 2 % 6 {
                        0 => 0.0,
                        1 => 1e-6 * s,
                        2 => -1e-6 * s,
                        3 => 1e-3 * s,
                        4 => -1e-3 * s,
                        _ => margin + 1e-3 * s,
                    };
                    // The centre's horizontal place: within 0.95 r of the top sample, in
                    // every other case on the side away from the cell (the sample is then
                    // the rectangle's point nearest the centre).
                    let (a, u) = (rng.range(0.0, std::f64::consts::TAU), rng.unit());
                    let (mut ox, mut oz) = ((u * a.cos()) as Real, (u * a.sin()) as Real);
                    if case % 4 < 2 {
                        ox = ox.abs() * if tj == j { -1.0 } else { 1.0 };
                        oz = oz.abs() * if ti == i { -1.0 } else { 1.0 };
                    }
                    let x = o + tj as Real * g + ox * 0.95 * r;
                    let z = o + ti as Real * g + oz * 0.95 * r;
                    let (x0, z0) = (o + j as Real * g, o + i as Real * g);
                    let dx = (x0 - x).max(x - (x0 + g)).max(0.0);
                    let dz = (z0 - z).max(z - (z0 + g)).max(0.0);
                    let d2 = dx * dx + dz * dz;
                    let y = top + lift + (r * r - d2).max(0.0).sqrt();
                    let centre = pose_s.transform_point(Vector::new(x, y, z));
                    let pose = Pose::new(rng.rotation(), centre).unwrap();
                    let truth = exact(set, &pose_s, centre, r);
                    let nearest = truth.iter().map(|e| e.1).fold(f64::INFINITY, f64::min);
                    let [ours, generic] = both(set, &pose_s, &far, &b, &pose, margin);
                    let tol = 1e-4 * s as f64;
                    let at = format!("{name} case {case} cell ({i}, {j}) at {pose:?}");
                    for c in &ours {
                        let d = truth
                            .iter()
                            .find(|e| e.0 == c.triangle)
                            .map_or(f64::INFINITY, |e| e.1);
                        assert!(d <= margin as f64 + tol, "{at}: {} is {d} away", c.triangle);
                    }
                    if nearest <= margin as f64 - tol {
                        assert!(!ours.is_empty(), "{at}: no contact, nearest {nearest}");
                    }
                    agree(&ours, &generic, margin, tol as Real, &at);
                    if ours.is_empty() {
                        apart += 1;
                    } else {
                        touching += 1;
                    }
                }
                // Both sides of the borders are reached.
                assert!(
                    touching >= 30 && apart >= 30,
                    "{touching} touching, {apart} apart"
                );
            }
        }
    }
}

/// Balls sunk through a bumpy field, with holes on half the seeds (centres from 1.2
/// below the mean level to 0.6 above): the single-set ball path and the generic path
/// (forced by a far-away second set) give the same triangles, features and distances —
/// including the last resort of a one-sided set whose contacts all point into the
/// solid (`on_plane`), which the ball path decides in its own two passes — and no
/// returned normal of the ball path points into the back of its triangle more often
/// than the generic path's.
#[test]
fn sunk_balls_agree_with_the_generic_path() {
    let o = QueryOptions::default();
    let far = far_away(1.0);
    let (mut cases, mut into) = (0, [0, 0]);
    for seed in 0..4u64 {
        let mut hr = Rng::new(seed + 100);
        let hs: Vec<Option<Real>> = (0..100)
            .map(|k| (seed % 2 == 0 || k % 17 != 3).then(|| hr.range(-0.8, 0.8) as Real))
            .collect();
        let f = field(9, 0.5, |i, j| hs[i * 10 + j]);
        let mut rng = Rng::new(seed);
        for i in 0..1500 {
            let r = [0.1, 0.3, 0.6][i % 3] as Real;
            let b = if i % 2 == 0 {
                Shape::from(Sphere::new(r).unwrap())
            } else {
                Shape::from(RoundedShape::new(PointShape::ORIGIN.into(), r).unwrap())
            };
            let p = Vector::new(
                rng.range(-2.3, 2.3) as Real,
                rng.range(-1.2, 0.6) as Real,
                rng.range(-2.3, 2.3) as Real,
            );
            let pose = Pose::new(rng.rotation(), p).unwrap();
            for margin in [0.0 as Real, 0.05] {
                let set: &dyn TriangleSet = &f;
                let alone: [Placed<'_>; 1] = [(set, Pose::IDENTITY)];
                let beside: [Placed<'_>; 2] = [(set, Pose::IDENTITY), (&far, Pose::IDENTITY)];
                let answers = [
                    sg::contacts(&alone, &b, &pose, margin, &o),
                    sg::contacts(&beside, &b, &pose, margin, &o),
                ];
                cases += 1;
                let key = |v: &Vec<TriangleContact>| {
                    let mut k: Vec<_> = v
                        .iter()
                        .map(|c| {
                            (
                                c.triangle,
                                c.feature,
                                (c.contact.distance * 1e4).round() as i64,
                            )
                        })
                        .collect();
                    k.sort_by_key(|x| (x.0, x.2));
                    k
                };
                assert_eq!(
                    key(&answers[0]),
                    key(&answers[1]),
                    "seed {seed}, {i}, {pose:?}"
                );
                for (k, a) in answers.iter().enumerate() {
                    let back = |c: &&TriangleContact| {
                        c.contact.normal.dot(f.triangle(c.triangle).unwrap().normal) < 0.0
                    };
                    into[k] += a.iter().filter(back).count();
                }
            }
        }
    }
    assert!(cases >= 12_000);
    assert_eq!(into[0], into[1]);
}
