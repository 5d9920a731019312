//! The peer report's reference against closed forms and brute force.
#![allow(clippy::unnecessary_cast)]

// The `f64` feature measures the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use glam::DVec3;
use minkowski::Real;
use minkowski_bench::peers::{PoseArray, Spec};
use minkowski_bench::reference::{gap, reference, Geo, Placed};
use minkowski_bench::suite::sphere_points;
use minkowski_bench::Rng;

fn pose(rng: &mut Rng, t: [f64; 3]) -> PoseArray {
    let q = rng.rotation();
    [t[0] as Real, t[1] as Real, t[2] as Real, q.x, q.y, q.z, q.w]
}

fn placed_center(p: &PoseArray) -> DVec3 {
    DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64)
}

#[test]
fn spheres_match_the_closed_form() {
    let mut rng = Rng::new(5);
    let (ga, gb) = (Geo::new(&Spec::Sphere(0.5)), Geo::new(&Spec::Sphere(0.25)));
    for i in 0..200 {
        let d = rng.dir();
        let dist = 0.2 + 1.2 * (i as f64 / 200.0); // centre distances 0.2 .. 1.4
        let pa = pose(&mut rng, [0.0; 3]);
        let pb = pose(
            &mut rng,
            [d.x as f64 * dist, d.y as f64 * dist, d.z as f64 * dist],
        );
        let (a, b) = (Placed::new(&ga, &pa), Placed::new(&gb, &pb));
        let r = reference(&a, &b, &[], &[]);
        let truth = (placed_center(&pb) - placed_center(&pa)).length() - 0.75;
        assert!(
            (r.distance - truth).abs() < 1e-9,
            "{} vs {truth}",
            r.distance
        );
    }
}

#[test]
fn aligned_boxes_match_the_closed_form() {
    let mut rng = Rng::new(6);
    let (ha, hb) = ([0.5, 0.4, 0.3], [0.2, 0.35, 0.45]);
    let (ga, gb) = (Geo::new(&Spec::Box(ha)), Geo::new(&Spec::Box(hb)));
    for _ in 0..300 {
        let t = [
            rng.signed() as f64 * 0.9,
            rng.signed() as f64 * 0.9,
            rng.signed() as f64 * 0.9,
        ];
        let id = |t: [f64; 3]| -> PoseArray {
            [t[0] as Real, t[1] as Real, t[2] as Real, 0.0, 0.0, 0.0, 1.0]
        };
        let (pa, pb) = (id([0.0; 3]), id(t));
        let (a, b) = (Placed::new(&ga, &pa), Placed::new(&gb, &pb));
        let r = reference(&a, &b, &[], &[]);
        // Per-axis separation; apart: Euclidean norm of the positive ones; overlapping:
        // the largest (least negative).
        let s: Vec<f64> = (0..3)
            .map(|k| (pb[k] as f64).abs() - ha[k] as f64 - hb[k] as f64)
            .collect();
        let truth = if s.iter().any(|x| *x > 0.0) {
            s.iter().map(|x| x.max(0.0).powi(2)).sum::<f64>().sqrt()
        } else {
            s.iter().copied().fold(f64::MIN, f64::max)
        };
        assert!(
            (r.distance - truth).abs() < 1e-9,
            "{} vs {truth} at {t:?}",
            r.distance
        );
    }
}

/// Overlapping polytopes: the Gauss-map pruned axes give the same depth as every face
/// normal and every edge–edge cross product.
#[test]
fn pruned_polytope_axes_equal_all_edge_pairs() {
    let mut rng = Rng::new(7);
    for k in 0..150 {
        let sa = Spec::hull(sphere_points(6 + k % 20, 100 + k as u64)).expect("hull");
        let sb = Spec::hull(sphere_points(5 + k % 17, 900 + k as u64)).expect("hull");
        let (ga, gb) = (Geo::new(&sa), Geo::new(&sb));
        let d = rng.dir();
        let s = 0.6 * (rng.signed() as f64 * 0.5 + 0.5);
        let pa = pose(&mut rng, [0.0; 3]);
        let pb = pose(&mut rng, [d.x as f64 * s, d.y as f64 * s, d.z as f64 * s]);
        let (a, b) = (Placed::new(&ga, &pa), Placed::new(&gb, &pb));
        let r = reference(&a, &b, &[], &[]);
        // Every candidate's gap is a lower bound only if it is the true gap along its
        // direction: the reference must be attained by its own normal.
        assert!(
            (gap(&a, &b, r.normal) - r.distance).abs() < 1e-12,
            "case {k}: gap along the normal"
        );
        if r.distance > 0.0 {
            continue;
        }
        let world = |spec: &Spec, p: &PoseArray| -> (Vec<DVec3>, Vec<Vec<u32>>) {
            let Spec::Hull { vertices, faces } = spec else {
                unreachable!()
            };
            let q = glam::DQuat::from_xyzw(p[3] as f64, p[4] as f64, p[5] as f64, p[6] as f64)
                .normalize();
            let t = placed_center(p);
            (
                vertices
                    .iter()
                    .map(|v| q * DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64) + t)
                    .collect(),
                faces.clone(),
            )
        };
        let (va, fa) = world(&sa, &pa);
        let (vb, fb) = world(&sb, &pb);
        let mut axes = Vec::new();
        for (vs, fs) in [(&va, &fa), (&vb, &fb)] {
            for f in fs {
                let (p, q, r) = (vs[f[0] as usize], vs[f[1] as usize], vs[f[2] as usize]);
                axes.push((q - p).cross(r - p));
            }
        }
        let edges = |vs: &[DVec3], fs: &[Vec<u32>]| -> Vec<DVec3> {
            fs.iter()
                .flat_map(|f| (0..f.len()).map(move |i| (f[i], f[(i + 1) % f.len()])))
                .map(|(i, j)| vs[j as usize] - vs[i as usize])
                .collect()
        };
        for x in edges(&va, &fa) {
            for y in edges(&vb, &fb) {
                axes.push(x.cross(y));
            }
        }
        let best = axes
            .iter()
            .filter(|n| n.length() > 1e-12)
            .flat_map(|n| [n.normalize(), -n.normalize()])
            .map(|n| gap(&a, &b, n))
            .fold(f64::MIN, f64::max);
        assert!(
            (r.distance - best).abs() < 1e-12,
            "case {k}: {} vs brute force {best}",
            r.distance
        );
    }
}

/// Apart, a curved shape against a box corner or edge: the search alone gives a lower
/// bound; with the normal and witness points a method reports, the reference is the
/// answer and is certified from above.
#[test]
fn separated_references_are_certified_by_witnesses() {
    let mut rng = Rng::new(8);
    // Sizes exact in f32 too, so the closed form below sees the same shapes.
    let (ga, gb) = (
        Geo::new(&Spec::Sphere(0.5)),
        Geo::new(&Spec::Box([0.5, 0.375, 0.25])),
    );
    for _ in 0..100 {
        // Box at the origin, sphere centre 0.9 along a random direction beyond the box.
        let d = rng.dir();
        let pa = pose(
            &mut rng,
            [d.x as f64 * 1.6, d.y as f64 * 1.6, d.z as f64 * 1.6],
        );
        let pb: PoseArray = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0];
        let (a, b) = (Placed::new(&ga, &pa), Placed::new(&gb, &pb));
        let c = placed_center(&pa);
        // Closest point of the box to the centre, and the sphere point towards it.
        let q = c.clamp(
            DVec3::new(-0.5, -0.375, -0.25),
            DVec3::new(0.5, 0.375, 0.25),
        );
        let p = c + (q - c).normalize() * 0.5;
        let truth = (q - c).length() - 0.5;
        let alone = reference(&a, &b, &[], &[]);
        assert!(
            alone.distance <= truth + 1e-12,
            "a lower bound: {} vs {truth}",
            alone.distance
        );
        let r = reference(&a, &b, &[q - c], &[(p, q)]);
        assert!(
            (r.distance - truth).abs() < 1e-9,
            "{} vs {truth}, gap along the hint {}",
            r.distance,
            gap(&a, &b, (q - c).normalize())
        );
        let u = r.upper.expect("certified");
        assert!(u - r.distance < 1e-8, "{u} vs {}", r.distance);
        assert!(r.certified(1e-6, false));
    }
}

/// The reference is attained by its own normal on the seed meshes (nearly coplanar
/// neighbouring faces, many edges), apart and overlapping.
#[test]
fn seed_mesh_references_are_attained_by_their_normals() {
    let mut rng = Rng::new(9);
    for (name, pts) in minkowski::shape::tessellation::seed000_shapes() {
        let spec = Spec::hull(pts).expect("hull");
        let g = Geo::new(&spec);
        for i in 0..6 {
            let d = rng.dir();
            let s = 0.3 + 0.3 * i as f64;
            let pa = pose(&mut rng, [0.0; 3]);
            let pb = pose(&mut rng, [d.x as f64 * s, d.y as f64 * s, d.z as f64 * s]);
            let (a, b) = (Placed::new(&g, &pa), Placed::new(&g, &pb));
            let r = reference(&a, &b, &[], &[]);
            assert!(
                (gap(&a, &b, r.normal) - r.distance).abs() < 1e-12,
                "{name} {i}"
            );
        }
    }
}
