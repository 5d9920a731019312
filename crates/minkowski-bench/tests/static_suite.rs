//! The static report's scenarios and checks without peers (CI runs this in both
//! precisions): the triangulation the peers are told about, the planar-cell terrain,
//! the ghost rule, the slide placements, and minkowski's heightfield rays against the
//! exact reference; the box-depth oracle, and minkowski's box depth against it on the
//! placements where parry3d's differs (issue 20's gross rows).
#![allow(clippy::unnecessary_cast)]

#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use glam::{DQuat, DVec3};
use minkowski_bench::peers::statics::{static_methods, RayAnswer};
use minkowski_bench::peers::{Spec, OURS};
use minkowski_bench::static_oracle::{field_box_depth, pair_depth, OrientedBox};
use minkowski_bench::static_suite::{
    field_contacts, field_first_hit, field_rays, pose_parts, support, Field, Geometry, Mesh,
    RayKind, Slide, Terrain, GHOST_TOLERANCE, RIDGE_SLOPE, SLIDE_DEPTH,
};

#[test]
fn the_mesh_of_a_field_is_its_anti_diagonal_split_facing_up() {
    let f = Field::terrain(9, Terrain::Hills, 1);
    let m = f.to_mesh();
    assert_eq!(m.indices.len(), f.triangle_count());
    for t in 0..m.indices.len() {
        let [a, b, c] = m.triangle(t);
        assert!((b - a).cross(c - a).y > 0.0, "triangle {t} faces down");
    }
    // Cell (0, 0): the first triangle holds p00, p10 (one row on) and p01 (one column on).
    let [t0, _] = f.cell_triangles(0, 0);
    assert_eq!(t0, [f.point(0, 0), f.point(1, 0), f.point(0, 1)]);
    // The surface height at a point matches the triangle containing it.
    let p = f.point(0, 0) + DVec3::new(0.1, 0.0, 0.1) * f.cell[0] as f64;
    let (h, n) = f.triangle_surface(p.x, p.z).unwrap();
    let plane = n.dot(t0[0]);
    assert!((n.dot(DVec3::new(p.x, h, p.z)) - plane).abs() < 1e-9);
}

#[test]
fn planar_cells_have_no_bilinear_gap() {
    let f = Field::terrain(33, Terrain::PlanarCells, 2);
    let [w, d] = f.extent();
    for k in 0..200 {
        let x = f.origin[0] as f64 + w * (k as f64 * 0.618).fract();
        let z = f.origin[2] as f64 + d * (k as f64 * 0.377).fract();
        let tri = f.triangle_surface(x, z).unwrap().0;
        let bil = f.bilinear_surface(x, z).unwrap();
        let tol = if cfg!(feature = "f64") { 1e-9 } else { 1e-4 };
        assert!((tri - bil).abs() < tol, "{tri} vs {bil}");
        assert!(f.bilinear_gap(x, z) < tol);
    }
    let hills = Field::terrain(33, Terrain::Hills, 2);
    assert!(hills.bilinear_gap(0.3, 0.7) > 0.0);
}

#[test]
fn the_ghost_rule_accepts_the_true_normals_only() {
    assert_eq!(Slide::TiledFloor.normal_error([0.0, 1.0, 0.0]), 0.0);
    assert!(Slide::TiledFloor.is_bad([0.002, 1.0, 0.0]));
    assert!(!Slide::Seam.is_bad([0.0005, 1.0, 0.0]));
    let (s, c) = RIDGE_SLOPE.sin_cos();
    for n in [
        [-s, c, 0.0],
        [s, c, 0.0],
        [0.0, 1.0, 0.0],
        [0.5 * s, 1.0, 0.0],
    ] {
        assert!(Slide::Ridge.normal_error(n) < 1e-12, "{n:?}");
    }
    // Beyond a face normal, or out of the arc's plane.
    let beyond = (RIDGE_SLOPE + 0.01).sin_cos();
    assert!((Slide::Ridge.normal_error([beyond.0, beyond.1, 0.0]) - 0.01).abs() < 1e-9);
    assert!(Slide::Ridge.is_bad([0.0, 1.0, 0.01]));
    assert!(Slide::Ridge.is_bad([1.0, 0.0, 0.0]));
    assert!(Slide::Ridge.normal_error([0.0, 0.0, 0.0]) > 1.0);
    assert!(
        Slide::TiledFloor.normal_error([GHOST_TOLERANCE.sin(), GHOST_TOLERANCE.cos(), 0.0])
            <= GHOST_TOLERANCE + 1e-12
    );
}

#[test]
fn slide_positions_are_one_percent_deep() {
    for (_, spec) in Slide::shapes() {
        for p in Slide::TiledFloor.positions(&spec, 50, 3) {
            let (q, c) = pose_parts(&p);
            // The lowest point: c.y − max over the shape of (−y).
            let lowest = c.y - support(&spec, q, DVec3::NEG_Y);
            let tol = if cfg!(feature = "f64") { 1e-9 } else { 1e-5 };
            assert!((lowest + SLIDE_DEPTH).abs() < tol, "{lowest}");
        }
        // On the ridge: never less deep than 0.01 below either face plane.
        for p in Slide::Ridge.positions(&spec, 50, 4) {
            let (q, c) = pose_parts(&p);
            let (n1, n2) = Slide::Ridge.face_normals();
            for n in [n1, n2] {
                assert!(support(&spec, q, -n) - n.dot(c) >= SLIDE_DEPTH - 1e-4);
            }
        }
    }
    let q = DQuat::IDENTITY;
    assert_eq!(support(&Spec::Box([1.0, 2.0, 3.0]), q, DVec3::Y), 2.0);
}

#[test]
fn the_slides_and_the_torus_are_well_formed() {
    let torus = Mesh::torus(4.0, 1.5, 16, 8);
    assert_eq!(torus.indices.len(), 2 * 16 * 8);
    // Outward: every triangle's normal points away from the tube's centre line.
    for t in 0..torus.indices.len() {
        let [a, b, c] = torus.triangle(t);
        let m = (a + b + c) / 3.0;
        let axis = DVec3::new(m.x, 0.0, m.z).normalize() * 4.0;
        assert!((b - a).cross(c - a).dot(m - axis) > 0.0, "triangle {t}");
    }
    for s in Slide::ALL {
        assert_eq!(s.positions(&Spec::Capsule(0.5, 0.25), 10, 1).len(), 10);
    }
}

#[test]
fn minkowski_heightfield_rays_hit_the_planar_cells_exactly() {
    let f = Field::terrain(33, Terrain::PlanarCells, 5);
    let ours = static_methods()
        .into_iter()
        .find(|m| m.name() == OURS)
        .unwrap();
    let built = ours
        .build(Geometry::Field(&f))
        .expect("minkowski builds fields");
    let tol = if cfg!(feature = "f64") { 1e-9 } else { 2e-3 };
    let mut hits = 0;
    for kind in RayKind::FIELD {
        for r in field_rays(&f, kind, 40, 6) {
            let reference = field_first_hit(&f, &r, 1e-9);
            match (built.target.ray(&r).expect("rays"), reference) {
                (RayAnswer::Hit(h), Some((t, normals))) => {
                    hits += 1;
                    let d = DVec3::new(r.dir[0] as f64, r.dir[1] as f64, r.dir[2] as f64);
                    let cos = normals.iter().map(|n| n.dot(d).abs()).fold(0.0, f64::max);
                    assert!(
                        (h.toi - t).abs() < tol / cos.max(0.02),
                        "{kind:?} {r:?}: {} vs {t}",
                        h.toi
                    );
                }
                (RayAnswer::Miss, None) => {}
                (a, b) => panic!("{kind:?} {r:?}: {a:?} vs {b:?}"),
            }
        }
    }
    assert!(hits > 60, "{hits} hits of 120");
}

/// The oracle on a flat field, where the answer is known: a tilted box whose lowest
/// corner is `d` below the surface is `d` deep, straight up; one triangle alone is
/// no deeper.
#[test]
fn the_box_oracle_on_a_flat_field() {
    let f = Field::flat(9, 9, [0.5, 0.5], [-2.0, 0.0, -2.0]);
    // (Exact in f32 too: `support` takes the suite's precision.)
    let half = [0.5, 0.375, 0.25];
    for (k, d) in [0.003, 0.02, 0.1].into_iter().enumerate() {
        let q = DQuat::from_euler(glam::EulerRot::XYZ, 0.3 + k as f64, 0.7, -0.2 * k as f64);
        let low = support(&Spec::Box(half.map(|h| h as minkowski::Real)), q, -DVec3::Y);
        let c = DVec3::new(0.1 * k as f64, low - d, -0.2);
        let pose = [c.x, c.y, c.z, q.x, q.y, q.z, q.w];
        let b = OrientedBox::at(half, &pose);
        let (depth, dir) = field_box_depth(&f, &b).expect("sunk");
        assert!((depth - d).abs() < 1e-9, "{d}: {depth}");
        assert!(dir.y > 1.0 - 1e-9, "{d}: {dir}");
        for i in 0..8 {
            for j in 0..8 {
                for t in f.cell_triangles(i, j) {
                    assert!(pair_depth(&b, &t).is_none_or(|p| p <= d + 1e-9));
                }
            }
        }
    }
    let above = OrientedBox::at(half, &[0.0, 0.45, 0.0, 0.0, 0.0, 0.0, 1.0]);
    assert!(field_box_depth(&f, &above).is_none());
}

/// Issue 20's gross box rows: at these placements on the hills minkowski's deepest
/// contact is 1e-2 to 2e-2 deeper than parry3d's `query::contact`. The oracle (the
/// box's depth in the one-sided surface as a whole) has minkowski's depth: parry3d's
/// deepest single-triangle contact leaves sideways through an inner edge, a shorter way
/// out of that triangle but not out of the surface.
#[test]
fn minkowski_box_depth_is_the_oracles_on_the_gross_rows() {
    let half = [0.5, 0.4, 0.3];
    let rows: [(usize, [f64; 7], f64); 2] = [
        (
            1024,
            [
                -42.538887,
                -0.68979454,
                4.153726,
                0.1696318,
                -0.9528305,
                -0.13369757,
                -0.21322314,
            ],
            0.0885,
        ),
        (
            64,
            [
                -1.8309853,
                -0.054988798,
                -8.806147,
                -0.5417184,
                -0.19646257,
                -0.053904183,
                0.8154986,
            ],
            0.1720,
        ),
    ];
    let ours = static_methods()
        .into_iter()
        .find(|m| m.name() == OURS)
        .unwrap();
    for (n, pose, parry) in rows {
        let f = Field::terrain(n, Terrain::Hills, 100 + n as u64);
        let (truth, _) = field_box_depth(&f, &OrientedBox::at(half, &pose)).expect("sunk");
        assert!(truth > parry + 1e-2, "{n}: oracle {truth}");
        let built = ours
            .build(Geometry::Field(&f))
            .expect("minkowski builds fields");
        let mut prober = built
            .target
            .prober(&Spec::Box(half.map(|h| h as minkowski::Real)))
            .expect("box contacts");
        let deepest = prober
            .contacts(&pose.map(|v| v as minkowski::Real))
            .iter()
            .map(|c| -c.dist)
            .fold(0.0, f64::max);
        assert!(
            (deepest - truth).abs() < 1e-5 * 50.0,
            "{n}: {deepest} vs oracle {truth}"
        );
    }
}

/// No box sinks below one triangle's depth: on the report's hills placements,
/// minkowski's deepest box contact is at least the deepest two-sided penetration of a
/// single triangle (the oracle's [`pair_depth`], a lower bound of the box's depth in
/// the surface). At the 64² placement below a bump of the surface pokes into the box's
/// face and every triangle around it had its contact rejected (an inner edge's normal,
/// nothing of the box over the face) while a neighbour kept a shallow face contact:
/// minkowski said 0.0099 where one triangle alone is 0.0504 deep (the oracle: 0.0590).
#[test]
fn minkowski_boxes_are_no_shallower_than_one_triangle() {
    let half = [0.5, 0.4, 0.3];
    let spec = Spec::Box(half.map(|h| h as minkowski::Real));
    let ours = static_methods()
        .into_iter()
        .find(|m| m.name() == OURS)
        .unwrap();
    let check =
        |f: &Field, pose: [f64; 7], prober: &mut dyn minkowski_bench::peers::statics::Prober| {
            let b = OrientedBox::at(half, &pose);
            let (lo, hi) = (b.centre - DVec3::splat(1.0), b.centre + DVec3::splat(1.0));
            let mut floor: f64 = 0.0;
            let [cx, cz] = f.cell.map(|c| c as f64);
            let (o, n) = (f.origin.map(|v| v as f64), f.rows);
            let cells = |a: f64, b: f64, o: f64, c: f64| {
                (((a - o) / c).floor().max(0.0) as usize).min(n - 2)
                    ..(((b - o) / c).ceil().max(0.0) as usize).min(n - 1)
            };
            for i in cells(lo.z, hi.z, o[2], cz) {
                for j in cells(lo.x, hi.x, o[0], cx) {
                    for t in f.cell_triangles(i, j) {
                        floor = floor.max(pair_depth(&b, &t).unwrap_or(0.0));
                    }
                }
            }
            let deepest = prober
                .contacts(&pose.map(|v| v as minkowski::Real))
                .iter()
                .map(|c| -c.dist)
                .fold(0.0, f64::max);
            let at = b.centre.length();
            assert!(
                deepest >= floor - 1e-5 * (1.0 + at),
                "{pose:?}: {deepest} < one triangle's {floor}"
            );
            (floor > 0.0) as usize
        };
    let f = Field::terrain(64, Terrain::Hills, 164);
    let built = ours
        .build(Geometry::Field(&f))
        .expect("minkowski builds fields");
    let mut prober = built.target.prober(&spec).expect("box contacts");
    let row = [
        -5.255831,
        0.8034383,
        12.624924,
        -0.9713485,
        -0.05120289,
        -0.050235804,
        0.226576,
    ];
    check(&f, row, &mut *prober);
    let mut sunk = 0;
    for p in field_contacts(&f, std::slice::from_ref(&spec), 300, 0.02, 647) {
        sunk += check(&f, p.pose.map(|v| v as f64), &mut *prober);
    }
    assert!(sunk > 200, "only {sunk} of 300 boxes touch");
}
