//! Multiresolution detection against displaced terrain (seed 002 §3.5–3.6, Alg 8–13;
//! `terrain::terrain_volumes`, `terrain::multires_detection`).
//!
//! * Volumes: every sample node, a dense grid of bilinear-patch points (Eq 3.5), a dense
//!   grid of Eq 2.2 surface points and of solid points down to a floor lie in their
//!   cell's volume at every level, checked by an own brute-force facet test (not GJK).
//! * Detection: on seeded frames of convex parts of random shapes and sizes posed on,
//!   into, under and above the synthetic terrain (its cliff, overhang and skewed region
//!   included), the contacts equal the brute force's: every vertex of every part located
//!   against every triangle (`DisplacedTerrain::locate`). A flat hand-made terrain
//!   against an analytic answer. Far-above frames cost few backward projections. Bad
//!   input gives typed errors.
#![allow(clippy::unnecessary_cast)] // `as f64` is a no-op in the f64 build

#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use std::sync::LazyLock;
use std::time::Instant;

use common::{d3, Rng};
use glam::DVec3;
use minkowski::optimize::{CcsaError, CcsaOptions};
use minkowski::terrain::multires_volume::{MultiresVolumeError, SurfaceStatus};
use minkowski::terrain::TerrainVolumesError;
use minkowski::terrain::{
    detect_multires, detect_multires_staged, surface_normal, terrain_manifolds, DisplacedTerrain,
    DisplacementMap, FootprintGrid, LevelBound, MultiresDetectionError, MultiresOptions, QuadFrame,
    QuadLayout, SyntheticMode, SyntheticTerrain, SyntheticTerrainConfig, TerrainDetection,
    TerrainVolumes, TerrainVolumesOptions, INDEX_TIERS,
};
use minkowski::tolerance::TERRAIN_DETECTION_SLACK;
use minkowski::{Point, Real, Vector};

fn v(x: f64, y: f64, z: f64) -> Vector {
    Vector::new(x as Real, y as Real, z as Real)
}

/// The default synthetic terrain (64 × 64 cells, 238 quads): the heavy tests.
static SKEWED: LazyLock<SyntheticTerrain> = LazyLock::new(|| {
    SyntheticTerrain::generate(SyntheticTerrainConfig::default()).expect("default terrain")
});

static HEIGHTFIELD: LazyLock<SyntheticTerrain> = LazyLock::new(|| {
    SyntheticTerrain::generate(SyntheticTerrainConfig {
        mode: SyntheticMode::Heightfield,
        seed: 5,
        ..Default::default()
    })
    .expect("heightfield terrain")
});

/// 32 × 32 cells (its cliff, overhang and skewed region scale with the size): the
/// quick tests.
static SMALL_SKEWED: LazyLock<SyntheticTerrain> = LazyLock::new(|| {
    SyntheticTerrain::generate(SyntheticTerrainConfig {
        cells_s: 32,
        cells_t: 32,
        ..Default::default()
    })
    .expect("small terrain")
});

static SMALL_HEIGHTFIELD: LazyLock<SyntheticTerrain> = LazyLock::new(|| {
    SyntheticTerrain::generate(SyntheticTerrainConfig {
        cells_s: 32,
        cells_t: 32,
        mode: SyntheticMode::Heightfield,
        seed: 5,
        ..Default::default()
    })
    .expect("small heightfield")
});

/// Optimised at the two coarsest levels of every quad (4 and 9 bounding points), slabs
/// below: both bounds exercised.
fn quick_options() -> TerrainVolumesOptions {
    TerrainVolumesOptions {
        max_optimised_points: 9,
        ..Default::default()
    }
}

/// Optimised at the coarsest level only (the quad: 4 bounding points per surface).
fn coarsest_options() -> TerrainVolumesOptions {
    TerrainVolumesOptions {
        max_optimised_points: 4,
        ..Default::default()
    }
}

static SKEWED_VOLUMES: LazyLock<TerrainVolumes> =
    LazyLock::new(|| TerrainVolumes::build(&SKEWED.terrain, &quick_options()).unwrap());

static SKEWED_SLABS: LazyLock<TerrainVolumes> = LazyLock::new(|| {
    TerrainVolumes::build(&SKEWED.terrain, &TerrainVolumesOptions::slabs_only()).unwrap()
});

static HEIGHTFIELD_VOLUMES: LazyLock<TerrainVolumes> =
    LazyLock::new(|| TerrainVolumes::build(&HEIGHTFIELD.terrain, &quick_options()).unwrap());

static SMALL_SKEWED_VOLUMES: LazyLock<TerrainVolumes> =
    LazyLock::new(|| TerrainVolumes::build(&SMALL_SKEWED.terrain, &quick_options()).unwrap());

static SMALL_SKEWED_SLABS: LazyLock<TerrainVolumes> = LazyLock::new(|| {
    TerrainVolumes::build(&SMALL_SKEWED.terrain, &TerrainVolumesOptions::slabs_only()).unwrap()
});

static SMALL_HEIGHTFIELD_VOLUMES: LazyLock<TerrainVolumes> = LazyLock::new(|| {
    TerrainVolumes::build(&SMALL_HEIGHTFIELD.terrain, &coarsest_options()).unwrap()
});

// ---------------------------------------------------------------------------------
// An own convex-hull test: the facet planes of a point set, by brute force in f64.
// ---------------------------------------------------------------------------------

/// The planes `(unit normal, offset)` through three of the points with every point on
/// or below them (within `eps`), or, for a flat set, its plane both ways and its edge
/// lines as planes perpendicular to it.
fn hull_planes(pts: &[DVec3], eps: f64) -> Vec<(DVec3, f64)> {
    let n = pts.len();
    let mut planes = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                let nrm = (pts[b] - pts[a]).cross(pts[c] - pts[a]);
                let len = nrm.length();
                if len <= 1e-12 * (1.0 + pts[a].length()).powi(2) {
                    continue;
                }
                let u = nrm / len;
                let h = u.dot(pts[a]);
                let above = pts.iter().any(|p| u.dot(*p) - h > eps);
                let below = pts.iter().any(|p| u.dot(*p) - h < -eps);
                match (above, below) {
                    (false, true) => planes.push((u, h)),
                    (true, false) => planes.push((-u, -h)),
                    (false, false) => {
                        planes.push((u, h));
                        planes.push((-u, -h));
                        for e in 0..n {
                            for f in e + 1..n {
                                if let Some(w) = u.cross(pts[f] - pts[e]).try_normalize() {
                                    let he = w.dot(pts[e]);
                                    let pos = pts.iter().any(|p| w.dot(*p) - he > eps);
                                    let neg = pts.iter().any(|p| w.dot(*p) - he < -eps);
                                    if pos && !neg {
                                        planes.push((-w, -he));
                                    } else if neg && !pos {
                                        planes.push((w, he));
                                    }
                                }
                            }
                        }
                    }
                    (true, true) => {}
                }
            }
        }
    }
    planes
}

fn outside_by(planes: &[(DVec3, f64)], q: DVec3) -> f64 {
    planes
        .iter()
        .map(|(u, h)| u.dot(q) - h)
        .fold(f64::NEG_INFINITY, f64::max)
}

// ---------------------------------------------------------------------------------
// Volumes
// ---------------------------------------------------------------------------------

/// Every level of every quad: sample nodes, bilinear-patch points, Eq 2.2 surface points
/// and solid points down to a floor, inside the cell's (floored) hull grown by its pad.
/// Returns the number of points checked.
fn check_volumes(terrain: &DisplacedTerrain, volumes: &TerrainVolumes, dense: u32) -> usize {
    let mut checked = 0;
    let mut rng = Rng::new(41);
    for (q, qv) in volumes.quads().iter().enumerate() {
        let quad = qv.quad();
        // A floor for a part of radius 5 m at the quad's first corner, 3 m up.
        let corner = qv.node_base(0, 0).unwrap().0;
        let floor = qv.floor_length(corner + Vector::Y * 3.0, 5.0);
        assert!(floor.is_finite() && floor < 0.0);
        for level in qv.levels() {
            let b = level.bounding_size;
            let per_side = level.per_side(quad.size);
            assert_eq!(level.cells.len(), (per_side * per_side) as usize);
            if b == 1 {
                assert_eq!(level.bound, LevelBound::Texel);
            }
            for cy in 0..per_side {
                for cx in 0..per_side {
                    let cell = &level.cells[(cy * per_side + cx) as usize];
                    let top: Vec<DVec3> = cell.points.iter().map(|p| d3(*p)).collect();
                    let mut floored = top.clone();
                    for c in 0..4 {
                        floored.push(d3(cell.corners[c] + cell.directions[c] * floor));
                    }
                    let scale = floored
                        .iter()
                        .map(|p| p.abs().max_element())
                        .fold(0.0, f64::max);
                    // The facet oracle keeps a plane when every point is on its inner side
                    // within `hull_tol`, so a point may lie up to that far outside a kept
                    // facet: the oracle's own error, added to the library's slack (it
                    // dominates in f64, where 1024 ε of the scale is 2e-11 but a node was
                    // found 1e-10 outside a nearly coplanar facet).
                    let hull_tol = 1e-9 * scale;
                    let slack = cell.pad as f64 + TERRAIN_DETECTION_SLACK as f64 * scale + hull_tol;
                    let planes = hull_planes(&top, hull_tol);
                    let planes_floored = hull_planes(&floored, hull_tol);
                    let (s0, t0) = (quad.s + cx * b, quad.t + cy * b);
                    // Sample nodes (on the surface).
                    for j in t0..=t0 + b {
                        for i in s0..=s0 + b {
                            let p = terrain.node_point(q, i, j).unwrap();
                            let out = outside_by(&planes, d3(p));
                            assert!(
                                out <= slack,
                                "quad {q} b {b} node ({i},{j}): {out} > {slack}"
                            );
                            checked += 1;
                        }
                    }
                    // Dense points of each texel of the cell.
                    for tj in t0..t0 + b {
                        for ti in s0..s0 + b {
                            let patch = terrain.cell_patch(ti, tj).unwrap();
                            for y in 0..=dense {
                                for x in 0..=dense {
                                    let (fa, fb) =
                                        (x as Real / dense as Real, y as Real / dense as Real);
                                    let p = patch.point(fa, fb);
                                    let out = outside_by(&planes, d3(p));
                                    assert!(out <= slack, "quad {q} b {b} patch: {out} > {slack}");
                                    // The Eq 2.2 surface at the same map point, and a solid
                                    // point under it, above the floor.
                                    let (s, t) = (ti as Real + fa, tj as Real + fb);
                                    for k in 0..2 {
                                        let tri = 2 * q + k;
                                        let (u, w) = terrain.triangles()[tri].parameters(s, t);
                                        if u < 0.0 || w < 0.0 || u + w > 1.0 {
                                            continue;
                                        }
                                        let d = terrain.displacement(tri, u, w).unwrap();
                                        let base = terrain.triangles()[tri].base();
                                        let sp = base.forward_project(u, w, d);
                                        let out = outside_by(&planes, d3(sp));
                                        assert!(
                                            out <= slack,
                                            "quad {q} b {b} surface ({s},{t}): {out} > {slack}"
                                        );
                                        let depth = floor + (d - floor) * rng.unit() as Real;
                                        let solid = base.forward_project(u, w, depth);
                                        let out = outside_by(&planes_floored, d3(solid));
                                        assert!(
                                            out <= slack,
                                            "quad {q} b {b} solid: {out} > {slack}"
                                        );
                                        checked += 2;
                                    }
                                    checked += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    checked
}

fn check_bounds(volumes: &TerrainVolumes) -> (usize, usize) {
    let (mut optimised, mut slabs, mut extra, mut texels) = (0, 0, 0, 0);
    let mut texel_pads: Real = 0.0;
    for qv in volumes.quads() {
        for level in qv.levels() {
            match level.bound {
                LevelBound::Optimised { extra_nodes, .. } => {
                    optimised += 1;
                    extra += extra_nodes;
                    for cell in &level.cells {
                        assert!(cell.pad < 3.0, "pad {}", cell.pad);
                    }
                }
                LevelBound::Slab => slabs += 1,
                LevelBound::Texel => {
                    texels += 1;
                    for cell in &level.cells {
                        texel_pads = texel_pads.max(cell.pad);
                    }
                }
            }
        }
    }
    println!(
        "levels: {optimised} optimised ({extra} extra nodes), {slabs} slabs, {texels} texel \
         levels (largest texel pad {texel_pads})"
    );
    assert_eq!(texels, volumes.quads().len());
    (optimised, slabs)
}

#[test]
fn every_sample_patch_and_solid_point_is_inside_at_every_level() {
    let start = Instant::now();
    let n = check_volumes(&SMALL_SKEWED.terrain, &SMALL_SKEWED_VOLUMES, 3);
    let m = check_volumes(&SMALL_SKEWED.terrain, &SMALL_SKEWED_SLABS, 2);
    let h = check_volumes(&SMALL_HEIGHTFIELD.terrain, &SMALL_HEIGHTFIELD_VOLUMES, 2);
    println!("{n} + {m} + {h} points inside ({:?})", start.elapsed());
    assert!(n > 100_000 && m > 50_000 && h > 50_000);
    // Both bounds are exercised, and the optimised volumes needed no huge pads.
    let quads = SMALL_SKEWED_VOLUMES.quads().len();
    let (optimised, slabs) = check_bounds(&SMALL_SKEWED_VOLUMES);
    assert!(optimised >= quads && slabs > 0, "{optimised} {slabs}");
    assert_eq!(check_bounds(&SMALL_SKEWED_SLABS).0, 0);
}

#[test]
#[ignore = "heavy: the default terrain's volumes (10 s of CCSA), 2 million points"]
fn every_point_is_inside_at_every_level_on_the_default_terrain() {
    let n = check_volumes(&SKEWED.terrain, &SKEWED_VOLUMES, 3);
    let h = check_volumes(&HEIGHTFIELD.terrain, &HEIGHTFIELD_VOLUMES, 2);
    println!("{n} + {h} points inside");
    let quads = SKEWED_VOLUMES.quads().len();
    let (optimised, slabs) = check_bounds(&SKEWED_VOLUMES);
    assert!(optimised >= quads && slabs > 0, "{optimised} {slabs}");
}

// ---------------------------------------------------------------------------------
// Frames of convex parts
// ---------------------------------------------------------------------------------

/// A convex part's vertices in its own frame: a box, a tetrahedron, a random cloud on an
/// ellipsoid, a thin plate or a needle, with a size from 5 cm to 12 m.
fn part_shape(rng: &mut Rng) -> Vec<DVec3> {
    let size = [0.05, 0.3, 1.0, 2.5, 6.0, 12.0][rng.below(6)] * rng.range(0.6, 1.4);
    let kind = rng.below(5);
    let half = DVec3::new(
        rng.range(0.2, 1.0),
        rng.range(0.2, 1.0),
        rng.range(0.2, 1.0),
    ) * size;
    match kind {
        0 => (0..8)
            .map(|k| {
                DVec3::new(
                    if k & 1 == 0 { -half.x } else { half.x },
                    if k & 2 == 0 { -half.y } else { half.y },
                    if k & 4 == 0 { -half.z } else { half.z },
                )
            })
            .collect(),
        1 => (0..4).map(|_| rng.dir() * half).collect(),
        2 => (0..6 + rng.below(24)).map(|_| rng.dir() * half).collect(),
        3 => {
            // A plate: a flat polygon.
            let k = 3 + rng.below(6);
            (0..k)
                .map(|i| {
                    let a = i as f64 / k as f64 * std::f64::consts::TAU;
                    DVec3::new(a.cos() * half.x, 0.0, a.sin() * half.z)
                })
                .collect()
        }
        _ => vec![DVec3::new(-half.x, 0.0, 0.0), DVec3::new(half.x, 0.0, 0.0)],
    }
}

/// A surface point of the terrain near map point `(s, t)` (cells), or `None` off the
/// map.
fn surface_at(terrain: &DisplacedTerrain, s: f64, t: f64) -> Option<DVec3> {
    let tri = terrain.triangle_at(s as Real, t as Real)?;
    let (u, w) = terrain.triangles()[tri].parameters(s as Real, t as Real);
    Some(d3(terrain.forward_project(tri, u, w)?))
}

/// One frame: an object of 1–10 convex parts scattered around an anchor on the
/// terrain, in a region chosen at random (the cliff, the overhang and its skewed
/// directions, anywhere, or beyond the map's edge), at a height from deep under the
/// surface to far above it.
fn frame(terrain: &DisplacedTerrain, rng: &mut Rng) -> Vec<Vec<Point>> {
    let (w, h) = (
        terrain.layout().cells_s() as f64,
        terrain.layout().cells_t() as f64,
    );
    let (s, t) = match rng.below(5) {
        // The cliff: a slanted line at about 30 % of the width.
        0 => (w * rng.range(0.22, 0.4), h * rng.unit()),
        // The overhang strip and the skewed region around it.
        1 => (w * rng.range(0.6, 0.8), h * rng.range(0.3, 0.7)),
        // Near an edge, partly beyond it.
        2 => (
            if rng.unit() < 0.5 {
                rng.range(-3.0, 3.0)
            } else {
                w + rng.range(-3.0, 3.0)
            },
            h * rng.unit(),
        ),
        _ => (w * rng.unit(), h * rng.unit()),
    };
    let anchor = surface_at(terrain, s.clamp(0.0, w), t.clamp(0.0, h)).unwrap();
    // Map units to world: the synthetic terrain's cells are 2 m along x and z.
    let anchor = anchor
        + DVec3::new(
            (s - s.clamp(0.0, w)) * 2.0,
            0.0,
            (t - t.clamp(0.0, h)) * 2.0,
        );
    let height = match rng.below(6) {
        0 => rng.range(-25.0, -4.0),   // sunk deep
        1 => rng.range(-2.0, 0.0),     // into
        2 | 3 => rng.range(-0.5, 0.8), // on
        4 => rng.range(0.5, 4.0),      // just above
        _ => rng.range(8.0, 40.0),     // far above
    };
    let spread = [0.5, 3.0, 10.0][rng.below(3)];
    let parts = 1 + rng.below(10);
    (0..parts)
        .map(|_| {
            let rot = rng.rotation();
            let offset = DVec3::new(
                rng.range(-spread, spread),
                height + rng.range(-1.0, 1.0),
                rng.range(-spread, spread),
            );
            let centre = anchor + offset;
            part_shape(rng)
                .into_iter()
                .map(|p| {
                    let pv = v(p.x, p.y, p.z);
                    rot * pv + v(centre.x, centre.y, centre.z)
                })
                .collect()
        })
        .collect()
}

/// The brute force: every vertex located against every triangle.
fn brute_force(terrain: &DisplacedTerrain, parts: &[&[Point]]) -> Vec<(usize, usize)> {
    let mut keys = Vec::new();
    for (pi, part) in parts.iter().enumerate() {
        for (vi, p) in part.iter().enumerate() {
            if terrain.locate(*p).unwrap().is_inside() {
                keys.push((pi, vi));
            }
        }
    }
    keys
}

#[derive(Default, Debug)]
struct Totals {
    frames: usize,
    vertices: u64,
    contacts: usize,
    deep_contacts: usize,
    projections: u64,
    brute_projections: u64,
    multires_time: f64,
    brute_time: f64,
}

fn run_frames(
    terrain: &DisplacedTerrain,
    volumes: &TerrainVolumes,
    seed: u64,
    frames: usize,
) -> Totals {
    run_frames_with(terrain, volumes, seed, frames, &MultiresOptions::default())
}

fn run_frames_with(
    terrain: &DisplacedTerrain,
    volumes: &TerrainVolumes,
    seed: u64,
    frames: usize,
    options: &MultiresOptions,
) -> Totals {
    let mut rng = Rng::new(seed);
    let mut totals = Totals::default();
    for f in 0..frames {
        let parts = frame(terrain, &mut rng);
        let refs: Vec<&[Point]> = parts.iter().map(|p| p.as_slice()).collect();
        let start = Instant::now();
        let found: TerrainDetection = detect_multires(terrain, volumes, &refs, options).unwrap();
        totals.multires_time += start.elapsed().as_secs_f64();
        let start = Instant::now();
        let oracle = brute_force(terrain, &refs);
        totals.brute_time += start.elapsed().as_secs_f64();
        let keys = found.keys();
        let missed: Vec<_> = oracle.iter().filter(|k| !keys.contains(k)).collect();
        assert!(
            missed.is_empty(),
            "frame {f} (seed {seed}): missed {missed:?}"
        );
        assert_eq!(keys, oracle, "frame {f} (seed {seed}): extra contacts");
        for c in &found.contacts {
            assert!(c.t < c.d && c.depth_parameter() > 0.0);
            assert_eq!(c.point, parts[c.part][c.vertex]);
            if c.depth_parameter() > 4.0 {
                totals.deep_contacts += 1;
            }
        }
        let n: u64 = refs.iter().map(|p| p.len() as u64).sum();
        totals.vertices += n;
        totals.contacts += keys.len();
        totals.projections += found.counters.backward_projections;
        totals.brute_projections += n * terrain.triangles().len() as u64;
        totals.frames += 1;
    }
    totals
}

fn report(name: &str, t: &Totals) {
    println!(
        "{name}: {} frames, {} vertices, {} contacts ({} deeper than 4), backward projections \
         {} vs {} (all vertices x all triangles), {:.3} ms vs {:.3} ms per frame",
        t.frames,
        t.vertices,
        t.contacts,
        t.deep_contacts,
        t.projections,
        t.brute_projections,
        1e3 * t.multires_time / t.frames as f64,
        1e3 * t.brute_time / t.frames as f64
    );
}

#[test]
fn multires_equals_brute_force_on_seeded_frames() {
    let a = run_frames(&SMALL_SKEWED.terrain, &SMALL_SKEWED_VOLUMES, 1, 30);
    report("skewed, optimised", &a);
    let b = run_frames(&SMALL_SKEWED.terrain, &SMALL_SKEWED_SLABS, 2, 10);
    report("skewed, slabs", &b);
    let c = run_frames(
        &SMALL_HEIGHTFIELD.terrain,
        &SMALL_HEIGHTFIELD_VOLUMES,
        3,
        10,
    );
    report("heightfield", &c);
    let gjk_cells = MultiresOptions {
        gjk_cells: true,
        ..MultiresOptions::default()
    };
    let d = run_frames_with(
        &SMALL_SKEWED.terrain,
        &SMALL_SKEWED_VOLUMES,
        4,
        20,
        &gjk_cells,
    );
    report("skewed, optimised, GJK cells", &d);
    assert!(d.contacts > 50 && d.deep_contacts > 5, "{d:?}");
    // The frames reach the terrain: contacts, deep ones, and fewer projections.
    assert!(a.contacts > 100 && a.deep_contacts > 10, "{a:?}");
    assert!(c.contacts > 20, "{c:?}");
    assert!(a.projections * 20 < a.brute_projections, "{a:?}");
}

#[test]
#[ignore = "heavy: 10^3 seeded frames, each against the brute force over every triangle"]
fn multires_equals_brute_force_on_a_thousand_frames() {
    let a = run_frames(&SKEWED.terrain, &SKEWED_VOLUMES, 1001, 600);
    report("skewed, optimised", &a);
    let b = run_frames(&SKEWED.terrain, &SKEWED_SLABS, 1002, 200);
    report("skewed, slabs", &b);
    let c = run_frames(&HEIGHTFIELD.terrain, &HEIGHTFIELD_VOLUMES, 1003, 200);
    report("heightfield", &c);
    assert_eq!(a.frames + b.frames + c.frames, 1000);
    let gjk_cells = MultiresOptions {
        gjk_cells: true,
        ..MultiresOptions::default()
    };
    let d = run_frames_with(&SKEWED.terrain, &SKEWED_VOLUMES, 1004, 300, &gjk_cells);
    report("skewed, optimised, GJK cells", &d);
}

/// Most parts far above the terrain: the early-out planes drop them, and the frame
/// costs far fewer backward projections than all vertices × all triangles (and than
/// the vertices × the triangles whose early-out planes they pass, the per-vertex
/// baseline's count).
#[test]
fn far_above_parts_cost_few_backward_projections() {
    let terrain = &SMALL_SKEWED.terrain;
    let mut rng = Rng::new(77);
    let mut parts: Vec<Vec<Point>> = Vec::new();
    for k in 0..40 {
        let s = rng.range(1.0, 31.0);
        let t = rng.range(1.0, 31.0);
        let anchor = surface_at(terrain, s, t).unwrap();
        let up = if k < 36 {
            rng.range(15.0, 60.0)
        } else {
            rng.range(-0.5, 0.3)
        };
        let centre = anchor + DVec3::Y * up;
        parts.push(
            part_shape(&mut rng)
                .into_iter()
                .map(|p| {
                    v(
                        centre.x + p.x * 0.3,
                        centre.y + p.y * 0.3,
                        centre.z + p.z * 0.3,
                    )
                })
                .collect(),
        );
    }
    let refs: Vec<&[Point]> = parts.iter().map(|p| p.as_slice()).collect();
    let n: u64 = refs.iter().map(|p| p.len() as u64).sum();
    let all = n * terrain.triangles().len() as u64;
    // The per-vertex baseline: each vertex against the triangles whose early-out planes
    // it does not clear.
    let mut baseline = 0u64;
    for part in &refs {
        for p in *part {
            for k in 0..terrain.triangles().len() {
                let planes = terrain.early_out_planes(k).unwrap();
                if planes.classify_point(*p) != minkowski::terrain::PlaneSide::Above {
                    baseline += 1;
                }
            }
        }
    }
    // The default (vertex cells, no GJK) and the thesis's GJK at the coarser cells.
    for gjk_cells in [false, true] {
        let options = MultiresOptions {
            gjk_cells,
            ..MultiresOptions::default()
        };
        let (found, stages) =
            detect_multires_staged(terrain, &SMALL_SKEWED_VOLUMES, &refs, &options).unwrap();
        assert_eq!(found.keys(), brute_force(terrain, &refs));
        println!(
            "far above (gjk_cells {gjk_cells}): {n} vertices, {} contacts; backward \
             projections {} (baseline {baseline}, all {all}); {:?}; stages {stages:?}",
            found.contacts.len(),
            found.counters.backward_projections,
            found.counters
        );
        assert!(found.counters.backward_projections * 50 < all);
        assert!(found.counters.backward_projections < baseline);
        assert!(found.counters.early_out_tests > 0 && found.counters.vertex_tests > 0);
        assert_eq!(found.counters.gjk_queries > 0, gjk_cells);
        assert_eq!(
            stages.coarsest + stages.finer + stages.texel,
            found.counters.volume_tests
        );
    }
}

// ---------------------------------------------------------------------------------
// A hand-made terrain with an analytic answer
// ---------------------------------------------------------------------------------

/// 8 × 8 cells of 1 m in four quads of 4², flat base
/// at y = 0, directions up, displacement `0.25 i` (a ramp along x).
fn ramp() -> DisplacedTerrain {
    scaled_ramp(1.0)
}

/// [`ramp`] with every length times `k`.
fn scaled_ramp(k: f64) -> DisplacedTerrain {
    let n = 9;
    let d: Vec<Real> = (0..n * n)
        .map(|i| (0.25 * k * (i % n) as f64) as Real)
        .collect();
    let map = DisplacementMap::new(n, n, d).unwrap();
    let layout = QuadLayout::uniform(8, 8, 4).unwrap();
    let frames = layout
        .quads()
        .iter()
        .map(|q| QuadFrame {
            p: q.corners().map(|[i, j]| v(k * i as f64, 0.0, k * j as f64)),
            n: [Vector::Y; 4],
        })
        .collect();
    DisplacedTerrain::new(map, layout, frames).unwrap()
}

/// Tiny and huge terrains: the same answer as the brute force (the volumes' slack and
/// floors are relative to the problem's scale).
#[test]
fn scaled_ramps_match_brute_force() {
    for k in [1e-3, 1e3] {
        let terrain = scaled_ramp(k);
        let volumes = TerrainVolumes::build(&terrain, &TerrainVolumesOptions::default()).unwrap();
        let mut rng = Rng::new(17);
        let mut contacts = 0;
        for _ in 0..60 {
            let parts: Vec<Vec<Point>> = (0..3)
                .map(|_| {
                    let c = DVec3::new(
                        rng.range(-1.0, 9.0),
                        rng.range(-3.0, 4.0),
                        rng.range(-1.0, 9.0),
                    );
                    part_shape(&mut rng)
                        .into_iter()
                        .map(|p| {
                            v(
                                k * (c.x + p.x * 0.2),
                                k * (c.y + p.y * 0.2),
                                k * (c.z + p.z * 0.2),
                            )
                        })
                        .collect()
                })
                .collect();
            let refs: Vec<&[Point]> = parts.iter().map(|p| p.as_slice()).collect();
            let found =
                detect_multires(&terrain, &volumes, &refs, &MultiresOptions::default()).unwrap();
            assert_eq!(found.keys(), brute_force(&terrain, &refs), "scale {k}");
            contacts += found.contacts.len();
        }
        assert!(contacts > 20, "scale {k}: {contacts}");
    }
}

/// A solver stopped after one iteration still gives sound volumes (its looseness goes
/// into the pads), and refused solver options are a typed error.
#[test]
fn early_stopped_solver_and_bad_options() {
    let stopped = TerrainVolumesOptions {
        ccsa: CcsaOptions {
            max_outer_iterations: 1,
            ..Default::default()
        },
        ..quick_options()
    };
    let volumes = TerrainVolumes::build(&SMALL_SKEWED.terrain, &stopped).unwrap();
    let stops = volumes
        .quads()
        .iter()
        .flat_map(|q| q.levels())
        .filter(|l| {
            matches!(
                l.bound,
                LevelBound::Optimised {
                    upper: SurfaceStatus::Stopped(_),
                    ..
                }
            )
        })
        .count();
    assert!(stops > 0);
    assert!(check_volumes(&SMALL_SKEWED.terrain, &volumes, 1) > 10_000);
    let t = run_frames(&SMALL_SKEWED.terrain, &volumes, 4, 10);
    report("skewed, one CCSA iteration", &t);

    let bad = TerrainVolumesOptions {
        ccsa: CcsaOptions {
            rho_min: -1.0,
            ..Default::default()
        },
        ..Default::default()
    };
    assert_eq!(
        TerrainVolumes::build(&ramp(), &bad),
        Err(TerrainVolumesError::Quad {
            quad: 0,
            source: MultiresVolumeError::Solver(CcsaError::InvalidOption { what: "rho_min" }),
        })
    );
    // No level optimised: the solver's options are not read.
    let slabs = TerrainVolumesOptions {
        max_optimised_points: 0,
        ..bad
    };
    assert!(TerrainVolumes::build(&ramp(), &slabs).is_ok());
}

#[test]
fn ramp_terrain_matches_the_analytic_answer() {
    let terrain = ramp();
    for options in [
        TerrainVolumesOptions::default(),
        TerrainVolumesOptions::slabs_only(),
    ] {
        let volumes = TerrainVolumes::build(&terrain, &options).unwrap();
        let mut rng = Rng::new(5);
        for _ in 0..200 {
            let parts: Vec<Vec<Point>> = (0..3)
                .map(|_| {
                    let c = DVec3::new(
                        rng.range(-1.0, 9.0),
                        rng.range(-3.0, 4.0),
                        rng.range(-1.0, 9.0),
                    );
                    part_shape(&mut rng)
                        .into_iter()
                        .map(|p| v(c.x + p.x * 0.2, c.y + p.y * 0.2, c.z + p.z * 0.2))
                        .collect()
                })
                .collect();
            let refs: Vec<&[Point]> = parts.iter().map(|p| p.as_slice()).collect();
            let found =
                detect_multires(&terrain, &volumes, &refs, &MultiresOptions::default()).unwrap();
            // Analytic: inside the footprint [0, 8]² and below y = 0.25 x (away from
            // rounding at the boundaries).
            let mut expected = Vec::new();
            for (pi, part) in parts.iter().enumerate() {
                for (vi, p) in part.iter().enumerate() {
                    let (x, y, z) = (p.x as f64, p.y as f64, p.z as f64);
                    let margin = 1e-3;
                    let clear = x.min(z) > margin && x.max(z) < 8.0 - margin;
                    let edge = x.min(z) < -margin || x.max(z) > 8.0 + margin;
                    let below = y < 0.25 * x - margin;
                    let above = y > 0.25 * x + margin;
                    let key = (pi, vi);
                    if clear && below {
                        expected.push(key);
                    } else if !(edge || above) {
                        // On a boundary: whatever the brute force says.
                        if terrain.contains(*p).unwrap() {
                            expected.push(key);
                        }
                    }
                }
            }
            assert_eq!(found.keys(), expected);
            for c in &found.contacts {
                let depth = 0.25 * c.point.x as f64 - c.point.y as f64;
                assert!((c.depth_parameter() as f64 - depth).abs() < 1e-3, "{c:?}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------
// Contact manifolds
// ---------------------------------------------------------------------------------

/// On the ramp `y = 0.25 x` every manifold's normal is the plane's, every distance the
/// analytic signed distance to the plane, at most four points, the deepest contact
/// among them and first.
#[test]
fn ramp_manifolds_match_the_plane() {
    let terrain = ramp();
    let volumes = TerrainVolumes::build(&terrain, &TerrainVolumesOptions::slabs_only()).unwrap();
    let plane = DVec3::new(-0.25, 1.0, 0.0).normalize();
    let tol = if cfg!(minkowski_f64) { 1e-9 } else { 2e-5 };
    let mut rng = Rng::new(9);
    let mut manifolds = 0;
    for _ in 0..100 {
        let parts: Vec<Vec<Point>> = (0..3)
            .map(|_| {
                let c = DVec3::new(
                    rng.range(1.0, 7.0),
                    rng.range(-0.5, 2.5),
                    rng.range(1.0, 7.0),
                );
                part_shape(&mut rng)
                    .into_iter()
                    .map(|p| v(c.x + p.x * 0.1, c.y + p.y * 0.1, c.z + p.z * 0.1))
                    .collect()
            })
            .collect();
        let refs: Vec<&[Point]> = parts.iter().map(|p| p.as_slice()).collect();
        let found =
            detect_multires(&terrain, &volumes, &refs, &MultiresOptions::default()).unwrap();
        let ms = terrain_manifolds(&terrain, &found);
        let with_contacts: std::collections::BTreeSet<usize> =
            found.contacts.iter().map(|c| c.part).collect();
        assert_eq!(
            ms.iter().map(|m| m.part).collect::<Vec<_>>(),
            with_contacts.into_iter().collect::<Vec<_>>()
        );
        for m in &ms {
            manifolds += 1;
            let n = d3(m.manifold.normal);
            assert!((n - plane).length() < tol, "{n} vs {plane}");
            let pts = m.manifold.points();
            assert!(!pts.is_empty() && pts.len() <= 4);
            let deepest = found
                .contacts
                .iter()
                .filter(|c| c.part == m.part)
                .map(|c| d3(c.point).dot(plane))
                .fold(f64::INFINITY, f64::min);
            for w in pts.windows(2) {
                assert!(w[0].distance <= w[1].distance);
            }
            for p in pts {
                let b = d3(p.point_b);
                let analytic = b.dot(plane); // the plane passes through the origin
                assert!(
                    (p.distance as f64 - analytic).abs() < tol * 10.0,
                    "{} vs {analytic}",
                    p.distance
                );
                assert!(p.distance < 0.0);
                let gap = d3(p.point_b) - d3(p.point_a) - n * p.distance as f64;
                assert!(gap.length() < tol * 10.0);
                assert_eq!(p.feature >> 24, 0xff);
                let vertex = ((p.feature >> 11) & 0x7ff) as usize;
                assert_eq!(parts[m.part][vertex], p.point_b);
            }
            assert!((pts[0].distance as f64 - deepest).abs() < tol * 10.0);
        }
    }
    assert!(manifolds > 50, "{manifolds}");
}

/// The surface normal against central differences of the forward projection, at
/// random points inside cells of the synthetic terrain (the cliff and the skewed
/// region included).
#[test]
fn surface_normal_matches_finite_differences() {
    let terrain = &SMALL_SKEWED.terrain;
    let mut rng = Rng::new(12);
    let (h, tol) = if cfg!(minkowski_f64) {
        (1e-6, 1e-8)
    } else {
        (1e-2, 1e-4)
    };
    let mut worst: f64 = 0.0;
    for _ in 0..2000 {
        let (i, j) = (rng.below(32) as f64, rng.below(32) as f64);
        let (s, t) = (i + rng.range(0.1, 0.9), j + rng.range(0.1, 0.9));
        let tri = terrain.triangle_at(s as Real, t as Real).unwrap();
        let tt = &terrain.triangles()[tri];
        let at = |ds: f64, dt: f64| {
            let (u, w) = tt.parameters((s + ds) as Real, (t + dt) as Real);
            d3(terrain.forward_project(tri, u, w).unwrap())
        };
        let (ss, st) = (
            (at(h, 0.0) - at(-h, 0.0)) / (2.0 * h),
            (at(0.0, h) - at(0.0, -h)) / (2.0 * h),
        );
        let (u, w) = tt.parameters(s as Real, t as Real);
        // Stay on one side of the quad's diagonal.
        let (u1, w1) = tt.parameters((s + h) as Real, (t - h) as Real);
        let (u2, w2) = tt.parameters((s - h) as Real, (t + h) as Real);
        if [u, w, u1, w1, u2, w2].iter().any(|x| *x < 0.0) || u1 + w1 > 1.0 || u2 + w2 > 1.0 {
            continue;
        }
        let mut fd = ss.cross(st).normalize();
        let n = d3(tt.base().direction(u, w));
        if fd.dot(n) < 0.0 {
            fd = -fd;
        }
        let ours = d3(surface_normal(terrain, tri, u, w).unwrap());
        worst = worst.max(1.0 - ours.dot(fd));
    }
    println!("worst 1 - cos: {worst:e}");
    assert!(worst < tol, "{worst}");
    assert!(surface_normal(terrain, 1 << 30, 0.2, 0.2).is_none());
    assert!(surface_normal(terrain, 0, Real::NAN, 0.2).is_none());
}

// ---------------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------------

#[test]
fn bad_input_gives_typed_errors() {
    let terrain = ramp();
    let volumes = TerrainVolumes::build(&terrain, &TerrainVolumesOptions::slabs_only()).unwrap();
    let o = MultiresOptions::default();
    let good = [v(1.0, -1.0, 1.0), v(2.0, 5.0, 2.0)];
    let nan = [v(1.0, 0.0, 1.0), v(Real::NAN as f64, 0.0, 0.0)];
    let inf = [v(1.0, Real::INFINITY as f64, 1.0)];
    let huge = [v(10.0 * minkowski::shape::MAX_MAGNITUDE as f64, 0.0, 0.0)];
    assert_eq!(
        detect_multires(&terrain, &volumes, &[&good, &nan], &o),
        Err(MultiresDetectionError::NonFiniteVertex { part: 1, vertex: 1 })
    );
    assert_eq!(
        detect_multires(&terrain, &volumes, &[&inf], &o),
        Err(MultiresDetectionError::NonFiniteVertex { part: 0, vertex: 0 })
    );
    assert!(matches!(
        detect_multires(&terrain, &volumes, &[&huge], &o),
        Err(MultiresDetectionError::VertexOutOfRange {
            part: 0,
            vertex: 0,
            ..
        })
    ));
    assert_eq!(
        detect_multires(&terrain, &SMALL_SKEWED_SLABS, &[&good], &o),
        Err(MultiresDetectionError::VolumesMismatch)
    );
    // An empty part and an empty object have no contacts; a good part is found.
    let empty: [Point; 0] = [];
    let found = detect_multires(&terrain, &volumes, &[&empty, &good], &o).unwrap();
    assert_eq!(found.keys(), vec![(1, 0)]);
    assert!(detect_multires(&terrain, &volumes, &[], &o)
        .unwrap()
        .contacts
        .is_empty());
    // A single-point part far beyond the map, and one at the map's corner, 1 m deep.
    let far = [v(1e6, -1e6, 1e6)];
    let corner = [v(0.0, -1.0, 0.0)];
    let found = detect_multires(&terrain, &volumes, &[&far, &corner], &o).unwrap();
    assert_eq!(found.keys(), brute_force(&terrain, &[&far, &corner]));
}

/// Build times: the default terrain at each option, and per quad size on uniform
/// layouts of the default terrain's map (32 × 32 cells, flat base, directions up; run
/// with `--ignored --nocapture`).
#[test]
#[ignore = "heavy: builds Alg 8's volumes of every quad of the default terrain at each option"]
fn volume_build_times_per_quad_size() {
    let terrain = &SKEWED.terrain;
    for (name, options) in [
        ("slabs only", TerrainVolumesOptions::slabs_only()),
        ("coarsest only (max 4)", coarsest_options()),
        ("max 9 points", quick_options()),
        ("default (max 25)", TerrainVolumesOptions::default()),
    ] {
        let start = Instant::now();
        let volumes = TerrainVolumes::build(terrain, &options).unwrap();
        println!(
            "{name}: {:?} for {} quads",
            start.elapsed(),
            volumes.quads().len()
        );
    }
    for size in [2u32, 4, 8, 16] {
        let layout = QuadLayout::uniform(32, 32, size).unwrap();
        let frames = layout
            .quads()
            .iter()
            .map(|q| QuadFrame {
                p: q.corners()
                    .map(|[i, j]| v(2.0 * i as f64, 0.0, 2.0 * j as f64)),
                n: [Vector::Y; 4],
            })
            .collect();
        let uniform = DisplacedTerrain::new(terrain.map().clone(), layout, frames).unwrap();
        for (name, options) in [
            ("coarsest only", coarsest_options()),
            ("max 9", quick_options()),
            ("default", TerrainVolumesOptions::default()),
        ] {
            let start = Instant::now();
            let volumes = TerrainVolumes::build(&uniform, &options).unwrap();
            let quads = volumes.quads().len();
            println!(
                "{size}x{size} quads, {name}: {:.1} ms per quad ({quads} quads, {} threads)",
                1e3 * start.elapsed().as_secs_f64() / quads as f64,
                if cfg!(feature = "parallel") {
                    "rayon"
                } else {
                    "1"
                },
            );
        }
    }
}

// ---------------------------------------------------------------------------------
// The index, the map bounds and the upper planes
// ---------------------------------------------------------------------------------

/// Solid points `p(u, v) + t n(u, v)` (`t` from just under the surface to 30 below it)
/// of random triangles: each one's map box (`MapFootprint::bound`) holds its map coordinates
/// and the triangle's half of the quad, and the point is under every upper plane of its
/// texel by at most the margin of the texel floored at the point's own depth (the tests
/// the texel level applies to a vertex), so the detection cannot drop it.
#[test]
fn solid_points_pass_their_map_box_and_their_texel_planes() {
    let terrain = &SMALL_SKEWED.terrain;
    let volumes = &*SMALL_SKEWED_VOLUMES;
    let mut rng = Rng::new(4242);
    let mut deep = 0;
    for _ in 0..20_000 {
        let k = rng.below(terrain.triangles().len());
        let tri = &terrain.triangles()[k];
        let (mut u, mut w) = (rng.unit(), rng.unit());
        if u + w > 1.0 {
            (u, w) = (1.0 - u, 1.0 - w);
        }
        let (u, w) = (u as Real, w as Real);
        let d = terrain.displacement(k, u, w).unwrap() as f64;
        let t = d - rng.range(1e-3, 30.0);
        if d - t > 4.0 {
            deep += 1;
        }
        let x = tri.base().forward_project(u, w, t as Real);
        let (q, side) = (tri.quad(), k % 2);
        let qv = &volumes.quads()[q];
        let (s, tt) = tri.map_coordinates(u, w);
        let (h, map) = qv.footprints()[side].bound(x);
        assert!(
            map.s_lo <= s && s <= map.s_hi && map.t_lo <= tt && tt <= map.t_hi,
            "triangle {k}: ({s}, {tt}) outside {map:?}"
        );
        let quad = qv.quad();
        assert!(map.meets_half(quad.s, quad.t, side));
        // The texel holding (s, t) (the last one on the far edges).
        let ci = ((s as u32).max(quad.s) - quad.s).min(quad.size - 1);
        let cj = ((tt as u32).max(quad.t) - quad.t).min(quad.size - 1);
        assert!(map.meets_cell(quad.s + ci, quad.t + cj));
        let mut low = [Real::INFINITY; 2];
        low[side] = h;
        let floor = qv.floor_from_heights(low);
        let texels = qv.levels().last().unwrap();
        let cell = &texels.cells[(cj * quad.size + ci) as usize];
        let (grown, margin, _) = cell.floored(floor);
        assert!(
            grown.contains_point(x),
            "triangle {k}: {x:?} outside {grown:?}"
        );
        for plane in &cell.upper {
            assert!(
                plane.excess(x) <= margin,
                "triangle {k}: {}",
                plane.excess(x)
            );
        }
    }
    assert!(deep > 10_000, "{deep}");
}

/// An object far from the terrain costs one index lookup and nothing else; one whose
/// far-apart parts span the terrain costs one more lookup per part and nothing else;
/// one with a part sunk 25 m under the terrain's lowest point takes the deep path and
/// still equals the brute force.
#[test]
fn far_objects_cost_one_lookup_and_deep_parts_take_the_deep_path() {
    let terrain = &SMALL_SKEWED.terrain;
    let volumes = &*SMALL_SKEWED_VOLUMES;
    let cube = |c: DVec3, half: f64| -> Vec<Point> {
        (0..8)
            .map(|k| {
                let o = DVec3::new(
                    if k & 1 == 0 { -half } else { half },
                    if k & 2 == 0 { -half } else { half },
                    if k & 4 == 0 { -half } else { half },
                );
                let p = c + o;
                v(p.x, p.y, p.z)
            })
            .collect()
    };
    let far = [
        cube(DVec3::new(500.0, 3.0, 500.0), 1.0),
        cube(DVec3::new(-300.0, 0.0, 20.0), 2.0),
    ];
    for refs in [vec![far[0].as_slice()], vec![far[1].as_slice()]] {
        let (found, stages) =
            detect_multires_staged(terrain, volumes, &refs, &MultiresOptions::default()).unwrap();
        assert!(found.contacts.is_empty());
        assert_eq!(stages.index_queries, 1);
        assert_eq!(stages.index_tests, 0);
        assert_eq!(
            found.counters.volume_tests + found.counters.early_out_tests,
            0
        );
    }
    // Together their box spans the terrain: each part is then looked up on its own.
    let refs: Vec<&[Point]> = far.iter().map(|p| p.as_slice()).collect();
    let (found, stages) =
        detect_multires_staged(terrain, volumes, &refs, &MultiresOptions::default()).unwrap();
    assert!(found.contacts.is_empty());
    assert_eq!(stages.index_queries, 3, "{stages:?}");
    assert_eq!(stages.index_tests, 0, "{stages:?}");
    assert_eq!(
        found.counters.volume_tests + found.counters.early_out_tests,
        0
    );

    let level = volumes.index().level() as f64;
    let anchor = surface_at(terrain, 16.0, 16.0).unwrap();
    let parts = [
        cube(DVec3::new(anchor.x, level - 25.0, anchor.z), 1.5),
        cube(anchor + DVec3::new(0.0, -0.3, 0.0), 0.5),
        cube(anchor + DVec3::new(3.0, 0.2, 1.0), 0.5),
    ];
    let refs: Vec<&[Point]> = parts.iter().map(|p| p.as_slice()).collect();
    let (found, stages) =
        detect_multires_staged(terrain, volumes, &refs, &MultiresOptions::default()).unwrap();
    assert_eq!(stages.deep_parts, 1, "{stages:?}");
    assert_eq!(found.keys(), brute_force(terrain, &refs));
    assert!(found.keys().iter().any(|k| k.0 == 0), "{:?}", found.keys());
    assert!(found.keys().iter().any(|k| k.0 == 1));
}

/// Refused index depths are a typed error.
#[test]
fn bad_index_depth_is_refused() {
    for depth in [-1.0, Real::NAN, Real::INFINITY] {
        let options = TerrainVolumesOptions {
            index_depth: depth,
            ..TerrainVolumesOptions::slabs_only()
        };
        let e = TerrainVolumes::build(&ramp(), &options).unwrap_err();
        assert!(matches!(e, TerrainVolumesError::BadIndexDepth(_)), "{e:?}");
    }
}

/// The index's floor bound `T(q, y)` ([`minkowski::terrain::QuadIndex::floor_at`]): a
/// point `Σ w_c (P_c + t N_c)` of a quad's coarsest cell (any convex weights `w`, the
/// same for corners and directions, as the module notes' interpolation) at or above
/// height `y` has `t ≥ T(q, y)`. Oracle: the corners' heights in f64, at random weights
/// and at the corners themselves, with `t` just below the exact bound (where rounding
/// decides) and spread below it; heights from the index level up to above the terrain.
/// A height that is not finite has no bound.
#[test]
#[allow(clippy::unnecessary_cast)] // f64 for the oracle, needed in f32 builds only
fn index_floor_bound_holds_below_every_height() {
    let volumes = &*SKEWED_VOLUMES;
    let index = volumes.index();
    let mut rng = Rng::new(0xf1_0012);
    let mut checked = 0;
    for (q, quad) in volumes.quads().iter().enumerate() {
        let cell = &quad.levels()[0].cells[0];
        for bad in [Real::NAN, Real::INFINITY, Real::NEG_INFINITY] {
            assert_eq!(index.floor_at(q, bad), None, "quad {q}, y {bad}");
        }
        let top = cell.aabb.maxs.y as f64;
        for k in 0..8 {
            let y = index.level() as f64 + (top - index.level() as f64 + 1.0) * (k as f64 / 7.0);
            let y = y as Real;
            let Some(bound) = index.floor_at(q, y) else {
                assert!(index.unindexed().contains(&q), "quad {q}");
                continue;
            };
            // The exact bound from the corners (f64).
            let exact = (0..4)
                .map(|c| (y as f64 - cell.corners[c].y as f64) / cell.directions[c].y as f64)
                .fold(f64::INFINITY, f64::min);
            for j in 0..40 {
                let w: [f64; 4] = if j < 4 {
                    core::array::from_fn(|c| if c == j { 1.0 } else { 0.0 })
                } else {
                    let r: [f64; 4] = core::array::from_fn(|_| rng.unit());
                    let sum: f64 = r.iter().sum();
                    r.map(|x| x / sum)
                };
                let t = if j % 2 == 0 {
                    exact - exact.abs() * 1e-9 * rng.unit()
                } else {
                    exact - (exact.abs() + 1.0) * rng.unit()
                };
                let py: f64 = (0..4)
                    .map(|c| w[c] * (cell.corners[c].y as f64 + t * cell.directions[c].y as f64))
                    .sum();
                if py >= y as f64 {
                    assert!(t >= bound as f64, "quad {q}, y {y}: t {t} below {bound}");
                }
                // The bound never exceeds the exact one.
                assert!(bound as f64 <= exact, "quad {q}, y {y}: {bound} > {exact}");
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

/// The index's tiers ([`minkowski::terrain::QuadIndex::tiers`]): ascending from the
/// index level, one grid each, and a box whose lowest height is `y` looks in the
/// highest tier at or below `y`. Each tier's box of a quad holds every solid point of
/// the quad at or above the tier's height (module notes of `terrain_volumes`,
/// "Index"): oracle, points `p(u, v) + t n(u, v)` of the quad's triangles (the Eq 2.2
/// forward projection) at random map points, with `t` from a metre under the tier's
/// floor bound up to the surface, those at or above the tier checked, and the surface
/// points themselves.
#[test]
fn index_tiers_hold_the_solid_above_them() {
    let terrain = &SKEWED.terrain;
    let volumes = &*SKEWED_VOLUMES;
    let index = volumes.index();
    let tiers = index.tiers();
    assert_eq!(tiers.len(), INDEX_TIERS, "{tiers:?}");
    assert_eq!(tiers[0], index.level());
    assert!(tiers.windows(2).all(|w| w[0] < w[1]), "{tiers:?}");
    assert!(index.tier_grid(tiers.len()).is_none());
    let same = |a: Option<&FootprintGrid>, k: usize| {
        core::ptr::eq(a.unwrap(), index.tier_grid(k).unwrap())
    };
    for (k, &y) in tiers.iter().enumerate() {
        assert!(same(index.grid_at(y), k), "tier {k}");
        assert!(
            same(index.grid_at(y + 0.5 * (y.abs() + 1.0) * 1e-3), k),
            "tier {k}"
        );
        if k > 0 {
            let below = y - (y - tiers[k - 1]) / 2.0;
            assert!(same(index.grid_at(below), k - 1), "tier {k}");
        }
    }
    assert!(same(index.grid_at(Real::INFINITY), tiers.len() - 1));
    assert!(index.grid_at(index.level() - 1.0).is_none());
    assert!(index.grid_at(Real::NAN).is_none());
    assert!(core::ptr::eq(index.grid(), index.tier_grid(0).unwrap()));

    let mut rng = Rng::new(0x71e25);
    let (mut solid, mut surface) = (0usize, 0usize);
    for (q, qv) in volumes.quads().iter().enumerate() {
        if index.unindexed().contains(&q) {
            continue;
        }
        let quad = qv.quad();
        for (k, &y) in tiers.iter().enumerate() {
            let boxed = index.tier_grid(k).unwrap().boxes()[q];
            let floor = index.floor_at(q, y).unwrap();
            for _ in 0..64 {
                let s = quad.s as Real + quad.size as Real * rng.unit() as Real;
                let t = quad.t as Real + quad.size as Real * rng.unit() as Real;
                for tri in [2 * q, 2 * q + 1] {
                    let (u, w) = terrain.triangles()[tri].parameters(s, t);
                    if u < 0.0 || w < 0.0 || u + w > 1.0 {
                        continue;
                    }
                    let d = terrain.displacement(tri, u, w).unwrap();
                    let base = terrain.triangles()[tri].base();
                    let top = base.forward_project(u, w, d);
                    if top.y >= y {
                        assert!(boxed.contains_point(top), "quad {q} tier {k}: {top:?}");
                        surface += 1;
                    }
                    for _ in 0..4 {
                        let lo = floor - 1.0;
                        let depth = lo + (d - lo) * rng.unit() as Real;
                        let p = base.forward_project(u, w, depth);
                        if p.y >= y {
                            assert!(
                                boxed.contains_point(p),
                                "quad {q} tier {k}: t {depth} (floor {floor}) {p:?}"
                            );
                            solid += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(solid > 10_000 && surface > 5_000, "{solid} {surface}");
}
