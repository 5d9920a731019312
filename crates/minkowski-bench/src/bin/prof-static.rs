//! Profiling aid: minkowski's static-geometry queries alone on the static report's data
//! (for `perf record`): the ghost-free manifolds of one query shape against the 1024²
//! hills field (or its mesh), or the field's rays of one kind.
//!
//! ```text
//! prof-static [sphere|box|capsule|down|oblique|grazing] [field|mesh] [ROUNDS] [N]
//! ```
//! Defaults: sphere, field, 20 rounds, 300 placements (or rays) — the static report's
//! placements of the three query shapes, 0.02 deep, and its rays (same seeds). Prints the
//! median and least ns per query over the rounds; with `PROF_STATIC_COUNT` set in the
//! environment, also the mean number of triangles in a query shape's box and of its
//! triangle contacts; with `PROF_STATIC_DIGEST`, a digest of the bits of every
//! manifold (normals, points, distances, feature ids) of the placements, to compare two
//! builds' answers.

// The `f64` feature measures the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use minkowski::query::static_geometry as sg;
use minkowski::query::{cast_ray_heightfield, QueryOptions, Ray, RayOptions};
use minkowski::shape::{HeightField, TriMesh, TriMeshFlags, TriangleSet};
use minkowski::{Pose, Real, Rotation, Vector};
use minkowski_bench::static_suite::{self as suite, Field, RayKind, Terrain};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let what = args.first().map_or("sphere", String::as_str);
    let on_mesh = args.get(1).is_some_and(|s| s == "mesh");
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(20);
    let n: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(300);
    let size = 1024;
    let seed = 100 + size as u64;
    let f = Field::terrain(size, Terrain::Hills, seed);
    let samples: Vec<Option<Real>> = f.heights.iter().map(|&h| Some(h)).collect();
    let Ok(field) = HeightField::new(
        f.rows,
        f.cols,
        &samples,
        f.cell,
        Vector::from_array(f.origin),
    ) else {
        eprintln!("prof-static: the field does not build");
        std::process::exit(1);
    };
    let mesh = if on_mesh {
        let m = f.to_mesh();
        let vertices = m.vertices.iter().map(|v| Vector::from_array(*v)).collect();
        match TriMesh::new(vertices, m.indices.clone(), TriMeshFlags::NONE) {
            Ok(m) => Some(m),
            Err(e) => {
                eprintln!("prof-static: the mesh does not build: {e}");
                std::process::exit(1);
            }
        }
    } else {
        None
    };
    let set: &dyn TriangleSet = match &mesh {
        Some(m) => m,
        None => &field,
    };
    let mut times = Vec::with_capacity(rounds);
    let ray_kind = match what {
        "down" => Some(RayKind::Down),
        "oblique" => Some(RayKind::Oblique),
        "grazing" => Some(RayKind::Grazing),
        _ => None,
    };
    if let Some(kind) = ray_kind {
        let rays: Vec<(Ray, RayOptions)> = suite::field_rays(&f, kind, n, seed * 10 + kind as u64)
            .iter()
            .map(|r| {
                let ray = Ray::new(Vector::from_array(r.origin), Vector::from_array(r.dir));
                let options = RayOptions {
                    max_toi: r.max_toi,
                    solid: true,
                };
                (ray, options)
            })
            .collect();
        for _ in 0..rounds {
            let t = Instant::now();
            for (ray, options) in &rays {
                let _ = black_box(cast_ray_heightfield(&field, &Pose::IDENTITY, ray, options));
            }
            times.push(t.elapsed().as_nanos() as f64 / rays.len().max(1) as f64);
        }
    } else {
        let shapes = suite::query_shapes();
        let Some(si) = shapes.iter().position(|s| s.0 == what) else {
            eprintln!("prof-static: unknown query {what}");
            std::process::exit(2);
        };
        let shape = shapes[si].1.shape();
        let poses: Vec<Pose> = suite::field_contacts(
            &f,
            &shapes.iter().map(|s| s.1.clone()).collect::<Vec<_>>(),
            n,
            0.02,
            seed * 10 + 7,
        )
        .iter()
        .filter(|p| p.shape == si)
        .filter_map(|p| {
            let r = Rotation::from_xyzw(p.pose[3], p.pose[4], p.pose[5], p.pose[6]);
            Pose::new(r, Vector::new(p.pose[0], p.pose[1], p.pose[2])).ok()
        })
        .collect();
        if std::env::var_os("PROF_STATIC_COUNT").is_some() {
            let (mut tris, mut items) = (0usize, 0usize);
            for p in &poses {
                let local = shape.local_aabb().transformed(p);
                set.triangles_in(&local, &mut |_| {
                    tris += 1;
                    std::ops::ControlFlow::Continue(())
                });
                items += sg::contacts(
                    &[(set, Pose::IDENTITY)],
                    &shape,
                    p,
                    0.0,
                    &QueryOptions::default(),
                )
                .len();
            }
            let n = poses.len().max(1) as f64;
            println!(
                "{:.1} triangles near, {:.1} contacts per query",
                tris as f64 / n,
                items as f64 / n
            );
        }
        let sets = [(set, Pose::IDENTITY)];
        let options = QueryOptions::default();
        if std::env::var_os("PROF_STATIC_DIGEST").is_some() {
            // FNV-1a over the answers' bits.
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            let mut eat = |x: u64| {
                h = (h ^ x).wrapping_mul(0x0000_0100_0000_01b3);
            };
            let (mut manifolds, mut points) = (0usize, 0usize);
            for p in &poses {
                for m in sg::manifolds(&sets, &shape, p, 0.0, &options) {
                    manifolds += 1;
                    m.normal.to_array().iter().for_each(|&x| eat(bits(x)));
                    for q in m.points() {
                        points += 1;
                        let v = [q.point_a.to_array(), q.point_b.to_array()];
                        v.iter().flatten().for_each(|&x| eat(bits(x)));
                        eat(bits(q.distance));
                        eat(u64::from(q.feature));
                    }
                }
            }
            println!("digest {h:016x} ({manifolds} manifolds, {points} points)");
        }
        for _ in 0..rounds {
            let t = Instant::now();
            for p in &poses {
                black_box(sg::manifolds(&sets, &shape, p, 0.0, &options).len());
            }
            times.push(t.elapsed().as_nanos() as f64 / poses.len().max(1) as f64);
        }
    }
    times.sort_by(f64::total_cmp);
    println!(
        "prof-static {what}: median {:.0} ns, least {:.0} ns per query",
        times[times.len() / 2],
        times[0]
    );
}

/// The bits of a `Real`, widened to 64 (a no-op in the f64 build).
#[allow(clippy::unnecessary_cast)]
fn bits(x: Real) -> u64 {
    x.to_bits() as u64
}
