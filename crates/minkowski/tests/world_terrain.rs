//! Displacement-mapped terrains in the collision world (`World::insert_terrain`,
//! `TerrainStatic`): contacts of every shape kind and of compounds, groups, removal,
//! failures.
//!
//! Oracles: on a flat terrain the analytic answer (normal straight up; depth of the
//! shape's true lowest point, from the test oracle's own support function, exact for
//! polyhedra and within the documented `ρ (1 − cos θ)` for curved shapes); on the
//! synthetic terrain (fBm, cliff, overhang, skewed directions) the brute-force detection
//! (every point located against every triangle) through `World::verify`, frame after
//! frame, with the world parallel and serial.
#![allow(clippy::unnecessary_cast)] // `as Real` / `as f64` are no-ops in one build

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use std::sync::{Arc, LazyLock};

use common::{d3, random_shape, Rng};
use minkowski::query::compound::Collider;
use minkowski::shape::{Compound, Cuboid, Shape, Sphere, MAX_MAGNITUDE};
use minkowski::terrain::contact_vertices::CURVED_MAX_ANGLE;
use minkowski::terrain::{
    DisplacedTerrain, DisplacementMap, MultiresDetectionError, MultiresOptions, QuadFrame,
    QuadLayout, SyntheticTerrain, SyntheticTerrainConfig, TerrainStatic, TerrainVolumes,
    TerrainVolumesOptions,
};
use minkowski::world::{
    BroadPhaseKind, CollisionGroups, ObjectOptions, StaticOptions, World, WorldError, WorldOptions,
};
use minkowski::{Pose, Real, Vector};

fn v(x: f64, y: f64, z: f64) -> Vector {
    Vector::new(x as Real, y as Real, z as Real)
}

const KINDS: [&str; 11] = [
    "sphere",
    "cuboid",
    "capsule",
    "cylinder",
    "cone",
    "pyramid",
    "ellipsoid",
    "segment",
    "triangle",
    "point",
    "convex",
];

/// A flat terrain of `16 × 16` cells of 1 m (four quads of 8²): base at y = 0,
/// directions up, every displacement `h`: the surface is the plane y = h over
/// `[0, 16]²`.
fn flat(h: f64) -> DisplacedTerrain {
    let n = 17;
    let map = DisplacementMap::new(n, n, vec![h as Real; n * n]).unwrap();
    let layout = QuadLayout::uniform(16, 16, 8).unwrap();
    let frames = layout
        .quads()
        .iter()
        .map(|q| QuadFrame {
            p: q.corners().map(|[i, j]| v(i as f64, 0.0, j as f64)),
            n: [Vector::Y; 4],
        })
        .collect();
    DisplacedTerrain::new(map, layout, frames).unwrap()
}

static FLAT: LazyLock<Arc<TerrainStatic>> = LazyLock::new(|| {
    let options = TerrainVolumesOptions {
        max_optimised_points: 4,
        ..Default::default()
    };
    Arc::new(TerrainStatic::build(flat(0.5), &options).unwrap())
});

/// 32 × 32 cells of 2 m with the seed's features; volumes optimised at the coarsest
/// level, slabs below.
static SYNTHETIC: LazyLock<(SyntheticTerrain, Arc<TerrainStatic>)> = LazyLock::new(|| {
    let s = SyntheticTerrain::generate(SyntheticTerrainConfig {
        cells_s: 32,
        cells_t: 32,
        ..Default::default()
    })
    .unwrap();
    let options = TerrainVolumesOptions {
        max_optimised_points: 4,
        ..Default::default()
    };
    let t = Arc::new(TerrainStatic::build(s.terrain.clone(), &options).unwrap());
    (s, t)
});

fn world(parallel: bool) -> World {
    World::new(
        BroadPhaseKind::SweepAndPrune,
        WorldOptions {
            parallel,
            ..WorldOptions::default()
        },
    )
}

/// Every shape kind, at random rotations, sunk by a known depth into the flat terrain
/// (or held just above it): one contact each, normal up, deepest distance the true
/// depth — exactly for polyhedra, within `ρ (1 − cos θ)` (ρ the shape's size) above it
/// for curved shapes —, and each point pair `distance · normal` apart with `point_b` on
/// the object.
#[test]
fn flat_terrain_gives_the_analytic_depth_for_every_shape_kind() {
    let terrain = FLAT.clone();
    let mut rng = Rng::new(21);
    let mut checked = 0;
    for round in 0..40 {
        let mut w = world(round % 2 == 0);
        let th = w
            .insert_terrain(terrain.clone(), StaticOptions::default())
            .unwrap();
        let mut expected = Vec::new();
        for kind in KINDS {
            let size = rng.range(0.1, 0.6);
            let (shape, oracle) = random_shape(&mut rng, kind, size);
            let rotation = rng.rotation();
            let probe = Pose::new(rotation, Vector::ZERO).unwrap();
            // The true lowest point's height relative to the origin.
            let low = common::Placed::new(oracle, &probe)
                .support(d3(-Vector::Y))
                .y;
            let hover = rng.below(4) == 0;
            let depth = if hover { -0.01 } else { rng.range(0.01, 0.3) };
            let (x, z) = (rng.range(2.0, 14.0), rng.range(2.0, 14.0));
            let y = 0.5 - depth - low;
            let h = w
                .insert(shape.clone(), Pose::new(rotation, v(x, y, z)).unwrap())
                .unwrap();
            expected.push((h, kind, depth, size, shape));
        }
        w.update();
        w.verify(1e-6).unwrap();
        assert!(w.terrain_failures().is_empty());
        for (h, kind, depth, size, shape) in expected {
            let found: Vec<_> = w
                .terrain_contacts()
                .iter()
                .filter(|c| c.object == h)
                .collect();
            if depth < 0.0 {
                assert!(found.is_empty(), "{kind} hovering: {found:?}");
                continue;
            }
            let polyhedral = matches!(
                kind,
                "cuboid" | "pyramid" | "segment" | "triangle" | "point" | "convex"
            );
            let curved_slack = size * (1.0 - (CURVED_MAX_ANGLE as f64).cos());
            if found.is_empty() {
                // Only a curved shape sunk less than its sampling error may be missed.
                assert!(
                    !polyhedral && depth <= curved_slack,
                    "{kind} depth {depth}: no contact"
                );
                continue;
            }
            assert_eq!(found.len(), 1, "{kind}: {found:?}");
            let c = found[0];
            assert_eq!((c.terrain, c.part), (th, 0));
            let m = &c.manifold;
            assert!(
                (m.normal - Vector::Y).length() < 1e-4,
                "{kind}: normal {:?}",
                m.normal
            );
            let deepest = m.points()[0].distance as f64;
            let tol = 1e-4 * (1.0 + size);
            let slack = if polyhedral { 0.0 } else { curved_slack };
            assert!(
                deepest >= -depth - tol && deepest <= -depth + slack + tol,
                "{kind} (size {size}): deepest {deepest}, true depth {depth}"
            );
            let (_, pose) = w.get(h).map(|(s, p)| (s.clone(), *p)).unwrap();
            let local = Collider::from(shape);
            for p in m.points() {
                let gap = p.point_b - p.point_a - m.normal * p.distance;
                assert!(gap.length() < 1e-4, "{kind}: {gap:?}");
                assert!(p.distance <= 0.0);
                // point_b is on the object: its height is within the object's vertical
                // extent at the pose.
                let q = pose.inverse_transform_point(p.point_b);
                let Collider::Convex(s) = &local else {
                    unreachable!()
                };
                let reach = s.local_aabb();
                assert!(
                    (q - reach.mins).min_element() > -1e-3
                        && (reach.maxs - q).min_element() > -1e-3,
                    "{kind}: point_b off the shape's box"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 250, "{checked} contacts checked");
}

/// A compound's parts are tested one by one: the contacts name the parts under the
/// surface, each with its own manifold.
#[test]
fn compound_parts_get_their_own_contacts() {
    let cube = Shape::from(Cuboid::new(v(0.25, 0.25, 0.25)).unwrap());
    let ball = Shape::from(Sphere::new(0.25).unwrap());
    let parts = vec![
        (
            Pose::from_translation(v(-1.0, 0.0, 0.0)).unwrap(),
            cube.clone(),
        ),
        (Pose::from_translation(v(0.0, 1.0, 0.0)).unwrap(), ball),
        (Pose::from_translation(v(1.0, -0.1, 0.0)).unwrap(), cube),
    ];
    let compound: Collider = Compound::new(parts).unwrap().into();
    let mut w = world(false);
    w.insert_terrain(FLAT.clone(), StaticOptions::default())
        .unwrap();
    // Part 0's bottom at 0.4 (0.1 deep), part 2's at 0.3 (0.2 deep), the ball far above.
    let h = w
        .insert(compound, Pose::from_translation(v(8.0, 0.65, 8.0)).unwrap())
        .unwrap();
    w.update();
    w.verify(1e-6).unwrap();
    let c = w.terrain_contacts();
    assert_eq!(c.iter().map(|c| c.part).collect::<Vec<_>>(), vec![0, 2]);
    for (contact, depth) in c.iter().zip([0.1, 0.2]) {
        assert_eq!(contact.object, h);
        assert_eq!(contact.manifold.len(), 4);
        for p in contact.manifold.points() {
            assert!((p.distance as f64 + depth).abs() < 1e-5, "{p:?}");
        }
    }
}

/// Frames of random colliders (every kind, and compounds) over the synthetic terrain,
/// moved between updates: the world's terrain contacts name the same parts as the brute
/// force, parallel and serial give the same contacts, and the frames really touch.
#[test]
fn synthetic_terrain_contacts_equal_the_brute_force_frame_after_frame() {
    let (synthetic, terrain) = &*SYNTHETIC;
    let mut rng = Rng::new(5);
    let mut serial = world(false);
    let mut parallel = world(true);
    for w in [&mut serial, &mut parallel] {
        w.insert_terrain(terrain.clone(), StaticOptions::default())
            .unwrap();
    }
    let place = |rng: &mut Rng| {
        let (x, z) = (rng.range(2.0, 62.0), rng.range(2.0, 62.0));
        let y = synthetic.surface.approximate_height(x as Real, z as Real) as f64;
        Pose::new(rng.rotation(), v(x, y + rng.range(-1.0, 1.5), z)).unwrap()
    };
    let mut handles = Vec::new();
    for k in 0..80 {
        let collider: Collider = if k % 6 == 5 {
            let parts = (0..3)
                .map(|_| {
                    let kind = KINDS[rng.below(KINDS.len())];
                    let p = Pose::new(rng.rotation(), v(rng.range(-1.0, 1.0), 0.0, 0.0)).unwrap();
                    (p, random_shape(&mut rng, kind, 0.6).0)
                })
                .collect();
            Compound::new(parts).unwrap().into()
        } else {
            let size = rng.range(0.2, 1.5);
            random_shape(&mut rng, KINDS[k % KINDS.len()], size)
                .0
                .into()
        };
        let pose = place(&mut rng);
        let a = serial.insert(collider.clone(), pose).unwrap();
        let b = parallel.insert(collider, pose).unwrap();
        assert_eq!(a, b);
        handles.push(a);
    }
    let (mut touching, mut free) = (0, 0);
    for frame in 0..4 {
        if frame > 0 {
            for &h in &handles {
                if rng.below(2) == 0 {
                    continue;
                }
                let pose = place(&mut rng);
                serial.set_pose(h, pose).unwrap();
                parallel.set_pose(h, pose).unwrap();
            }
        }
        serial.update();
        parallel.update();
        serial.verify(1e-6).unwrap();
        assert_eq!(serial.terrain_contacts(), parallel.terrain_contacts());
        assert!(serial.terrain_failures().is_empty());
        let hit: std::collections::BTreeSet<_> =
            serial.terrain_contacts().iter().map(|c| c.object).collect();
        touching += hit.len();
        free += handles.len() - hit.len();
        for c in serial.terrain_contacts() {
            let m = &c.manifold;
            assert!((m.normal.length() - 1.0).abs() < 1e-4);
            assert!(!m.is_empty() && m.points().iter().all(|p| p.distance <= 0.0));
        }
    }
    assert!(
        touching > 60 && free > 60,
        "{touching} touching, {free} free"
    );
}

/// Groups, removal, stale handles, mismatched volumes, and an object beyond the
/// magnitude limit (a typed failure, nothing lost).
#[test]
fn groups_removal_handles_and_failures() {
    let mut w = world(false);
    let only_first = StaticOptions {
        groups: CollisionGroups::new(0b01, 0b01),
        ..StaticOptions::default()
    };
    let th = w.insert_terrain(FLAT.clone(), only_first).unwrap();
    assert_eq!(w.terrain_count(), 1);
    let cube = Shape::from(Cuboid::new(v(0.25, 0.25, 0.25)).unwrap());
    let sunk = Pose::from_translation(v(4.0, 0.5, 4.0)).unwrap();
    let a = w.insert(cube.clone(), sunk).unwrap();
    let loner = ObjectOptions {
        groups: CollisionGroups::new(0b10, 0b10),
        ..ObjectOptions::default()
    };
    let b = w.insert_with(cube.clone(), sunk, loner).unwrap();
    w.update();
    let objects: Vec<_> = w.terrain_contacts().iter().map(|c| c.object).collect();
    assert_eq!(objects, vec![a]);
    assert_eq!(w.timings().terrain_objects, 2);
    w.set_terrain_groups(th, CollisionGroups::new(0b10, 0b10))
        .unwrap();
    w.update();
    let objects: Vec<_> = w.terrain_contacts().iter().map(|c| c.object).collect();
    assert_eq!(objects, vec![a, b]);

    // Beyond the limit: a box whose corners reach past MAX_MAGNITUDE.
    let big = Shape::from(Cuboid::new(Vector::splat(0.75 * MAX_MAGNITUDE)).unwrap());
    let far = w
        .insert(
            big,
            Pose::from_translation(Vector::splat(0.75 * MAX_MAGNITUDE)).unwrap(),
        )
        .unwrap();
    w.set_terrain_groups(th, CollisionGroups::ALL).unwrap();
    w.update();
    assert_eq!(w.terrain_failures().len(), 1);
    let (o, t, e) = &w.terrain_failures()[0];
    assert_eq!((*o, *t), (far, th));
    assert!(
        matches!(e, MultiresDetectionError::VertexOutOfRange { .. }),
        "{e}"
    );
    // The others' contacts are still there.
    assert_eq!(w.terrain_contacts().len(), 2);

    let back = w.remove_terrain(th).unwrap();
    assert!(Arc::ptr_eq(&back, &FLAT));
    assert_eq!(w.remove_terrain(th).unwrap_err(), WorldError::StaleHandle);
    assert!(w.get_terrain(th).is_err());
    w.update();
    assert!(w.terrain_contacts().is_empty() && w.terrain_failures().is_empty());
    let again = w.insert_terrain(back, StaticOptions::default()).unwrap();
    assert_ne!(again, th);
    assert_eq!(again.index(), th.index());

    // Volumes of another terrain are refused.
    let other = TerrainVolumes::build(&flat(0.0), &TerrainVolumesOptions::slabs_only()).unwrap();
    let synthetic = &SYNTHETIC.0.terrain;
    assert_eq!(
        TerrainStatic::new(synthetic.clone(), other, MultiresOptions::default()).unwrap_err(),
        MultiresDetectionError::VolumesMismatch
    );
}

/// The `terrain_contact` line of `minkowski query`: the answer of the library's
/// detection (with its optimised volumes, or by brute force), the analytic answer on a
/// flat terrain, the three ways of describing a terrain agreeing, and typed errors.
#[cfg(feature = "protocol")]
mod protocol_lines {
    use super::*;
    use minkowski::protocol::answer_line;
    use serde_json::{json, Value};

    fn ask(line: &Value) -> Value {
        serde_json::from_str(&answer_line(&line.to_string())).unwrap()
    }

    fn error_kind(answer: &Value) -> &str {
        answer["error"]["kind"].as_str().unwrap_or("none")
    }

    /// A flat map (every displacement 0.5) of 17 × 17 samples, quads of 8.
    fn flat_map() -> Value {
        json!({"width": 17, "height": 17, "values": vec![0.5; 17 * 17]})
    }

    #[test]
    fn flat_grid_terrain_gives_the_analytic_manifold_and_corners_agree() {
        let grid = json!({"map": flat_map(), "quad_size": 8, "grid": {"origin": [0, 0, 0], "cell_size": [1, 1]}});
        // The same base given by its 3 × 3 quad-corner nodes.
        let points: Vec<Value> = (0..9)
            .map(|k| json!([8 * (k % 3), 0, 8 * (k / 3)]))
            .collect();
        let corners = json!({"map": flat_map(), "quad_size": 8, "corners": {"points": points, "directions": vec![json!([0, 1, 0]); 9]}});
        let cube = json!({"type": "cuboid", "half_extents": [0.25, 0.25, 0.25]});
        for terrain in [grid, corners] {
            let a = ask(
                &json!({"id": 1, "query": "terrain_contact", "terrain": terrain, "shape": cube, "pose": {"translation": [5.5, 0.6, 9.25]}}),
            );
            let c = a["contacts"].as_array().unwrap_or_else(|| panic!("{a}"));
            assert_eq!(c.len(), 1, "{a}");
            assert_eq!(c[0]["part"], 0);
            let n: Vec<f64> = serde_json::from_value(c[0]["normal"].clone()).unwrap();
            assert!((n[1] - 1.0).abs() < 1e-5, "{n:?}");
            let pts = c[0]["points"].as_array().unwrap();
            assert_eq!(pts.len(), 4);
            for p in pts {
                let d = p["distance"].as_f64().unwrap();
                assert!((d + 0.15).abs() < 1e-5, "{p}");
                let b: Vec<f64> = serde_json::from_value(p["point_b"].clone()).unwrap();
                assert!((b[1] - 0.35).abs() < 1e-5, "{p}");
            }
            assert!(a["backward_projections"].as_u64().unwrap() >= 4);
            // Held above the surface: no contacts.
            let above = ask(
                &json!({"query": "terrain_contact", "terrain": terrain, "shape": cube, "pose": {"translation": [5.5, 0.76, 9.25]}}),
            );
            assert_eq!(above["contacts"], json!([]), "{above}");
        }
    }

    /// Random colliders over the synthetic terrain: the line's parts, triangles and
    /// points are those of `TerrainStatic::manifolds` with optimised volumes (the
    /// detection is exact whatever the volumes), and its parts those of the brute force.
    #[test]
    fn synthetic_lines_answer_as_the_library() {
        let (synthetic, terrain) = &*SYNTHETIC;
        let spec = json!({"synthetic": {"cells": [32, 32]}});
        let mut rng = Rng::new(9);
        let mut touching = 0;
        for k in 0..40 {
            let kind = KINDS[k % KINDS.len()];
            let size = rng.range(0.3, 1.5);
            let (shape, _) = random_shape(&mut rng, kind, size);
            let (x, z) = (rng.range(2.0, 62.0), rng.range(2.0, 62.0));
            let y = synthetic.surface.approximate_height(x as Real, z as Real) as f64;
            let pose = Pose::new(rng.rotation(), v(x, y + rng.range(-1.0, 1.0), z)).unwrap();
            let line = json!({"query": "terrain_contact", "terrain": spec, "shape": serde_json::to_value(&shape).unwrap(), "pose": serde_json::to_value(pose).unwrap()});
            let a = ask(&line);
            let got = a["contacts"].as_array().unwrap_or_else(|| panic!("{a}"));
            let collider = Collider::from(shape);
            let want = terrain.manifolds(&collider, &pose).unwrap();
            let brute = terrain.brute_force_manifolds(&collider, &pose).unwrap();
            assert_eq!(got.len(), want.len(), "{kind}: {a}");
            assert_eq!(want.len(), brute.len(), "{kind}");
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(g["part"].as_u64().unwrap() as usize, w.part);
                assert_eq!(g["triangle"].as_u64().unwrap() as usize, w.triangle);
                let pts = g["points"].as_array().unwrap();
                assert_eq!(pts.len(), w.manifold.len());
                for (p, q) in pts.iter().zip(w.manifold.points()) {
                    let d = p["distance"].as_f64().unwrap();
                    assert!(
                        (d - q.distance as f64).abs() <= 1024.0 * Real::EPSILON as f64 * 64.0,
                        "{p} vs {q:?}"
                    );
                }
            }
            touching += usize::from(!got.is_empty());
        }
        assert!(touching > 8, "{touching} lines with contacts");
    }

    #[test]
    fn bad_terrain_lines_are_typed_errors() {
        let cube = json!({"type": "cuboid", "half_extents": [0.25, 0.25, 0.25]});
        let grid = json!({"cell_size": [1, 1]});
        let cases = [
            (
                json!({"query": "terrain_contact", "shape": cube}),
                "invalid_query",
            ),
            (
                json!({"query": "terrain_contact", "terrain": {"map": flat_map(), "grid": grid}}),
                "invalid_query",
            ),
            (
                json!({"query": "terrain_contact", "terrain": 3, "shape": cube}),
                "invalid_shape",
            ),
            (
                json!({"query": "terrain_contact", "terrain": {"map": flat_map(), "quad_size": 5, "grid": grid}, "shape": cube}),
                "invalid_shape",
            ),
            (
                json!({"query": "terrain_contact", "terrain": {"map": flat_map()}, "shape": cube}),
                "invalid_shape",
            ),
            (
                json!({"query": "terrain_contact", "terrain": {"map": {"width": 17, "height": 17, "values": [1, 2]}, "grid": grid}, "shape": cube}),
                "invalid_shape",
            ),
            (
                json!({"query": "terrain_contact", "terrain": {"map": flat_map(), "grid": {"cell_size": [0, 1]}}, "shape": cube}),
                "invalid_shape",
            ),
            (
                json!({"query": "terrain_contact", "terrain": {"map": flat_map(), "quad_size": 16, "corners": {"points": [], "directions": []}}, "shape": cube}),
                "invalid_shape",
            ),
            (
                json!({"query": "terrain_contact", "terrain": {"map": {"width": 18, "height": 17, "values": vec![0.5; 18 * 17]}, "quad_size": 8, "corners": {"points": [], "directions": []}}, "shape": cube}),
                "invalid_shape",
            ),
            (
                json!({"query": "terrain_contact", "terrain": {"synthetic": {"cells": [1000, 32]}}, "shape": cube}),
                "invalid_shape",
            ),
            (
                json!({"query": "terrain_contact", "terrain": {"synthetic": {"cells": [17, 32]}}, "shape": cube}),
                "invalid_shape",
            ),
            (
                json!({"query": "terrain_contact", "terrain": {"synthetic": {"mode": "lunar"}}, "shape": cube}),
                "invalid_shape",
            ),
            (
                json!({"query": "terrain_contact", "terrain": {"map": flat_map(), "grid": {"cell_size": [1, 1], "direction": [1, 0, 0]}}, "shape": cube}),
                "invalid_shape",
            ),
            (
                json!({"query": "terrain_contact", "terrain": {"map": flat_map(), "grid": grid}, "shape": cube, "pose": {"translation": [0, 0]}}),
                "invalid_pose",
            ),
        ];
        for (line, kind) in cases {
            let a = ask(&line);
            assert_eq!(error_kind(&a), kind, "{line} -> {a}");
        }
    }
}
