//! Profiling aid: contact between seed-000 cube point clouds over seeded poses.
use minkowski::query::{self, epa, gjk};
use minkowski::shape::{tessellation, ConvexPolyhedron, Shape};
use minkowski::{Pose, Real, Rotation, Vector};
fn main() {
    let (_, pts) = &tessellation::seed000_shapes()[0];
    let hull = ConvexPolyhedron::new(pts.clone()).unwrap();
    let cube: Shape = hull.clone().into();
    let mut s = 1u64;
    let mut r = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 33) as Real / (1u64 << 31) as Real) * 2.0 - 1.0
    };
    let poses: Vec<(Pose, Pose)> = (0..256)
        .map(|_| {
            let qa = Rotation::from_xyzw(r(), r(), r(), r()).normalize();
            let qb = Rotation::from_xyzw(r(), r(), r(), r()).normalize();
            (
                Pose::new(qa, Vector::ZERO),
                Pose::new(qb, Vector::new(r(), r(), r()) * 1.2),
            )
        })
        .collect();
    let (mut gi, mut ei, mut pen) = (0u32, 0u32, 0u32);
    let mut ws = epa::EpaWorkspace::new();
    for (a, b) in &poses {
        let g = gjk::distance(&hull, a, &hull, b, &Default::default(), None);
        gi += g.iterations;
        if g.intersecting {
            pen += 1;
            let e = epa::penetration_with(
                &hull,
                a,
                &hull,
                b,
                &Default::default(),
                &Default::default(),
                &mut ws,
            );
            ei += e.iterations;
        }
    }
    println!(
        "penetrating {pen}/256, mean gjk it {}, mean epa it (penetrating) {}",
        gi as Real / 256.0,
        ei as Real / pen as Real
    );
    let t = std::time::Instant::now();
    let mut acc = 0.0;
    for _ in 0..400 {
        for (a, b) in &poses {
            acc += query::contact(&cube, a, &cube, b).distance;
        }
    }
    println!(
        "{acc} {:.0} ns/contact",
        t.elapsed().as_nanos() as f64 / (400.0 * 256.0)
    );
    let t = std::time::Instant::now();
    for _ in 0..400 {
        for (a, b) in &poses {
            acc += gjk::distance(&hull, a, &hull, b, &Default::default(), None).distance;
        }
    }
    println!(
        "{acc} {:.0} ns/gjk distance",
        t.elapsed().as_nanos() as f64 / (400.0 * 256.0)
    );
    let t = std::time::Instant::now();
    let (go, eo) = (Default::default(), Default::default());
    for _ in 0..400 {
        for (a, b) in &poses {
            acc += epa::penetration_with(&hull, a, &hull, b, &go, &eo, &mut ws).depth;
        }
    }
    println!(
        "{acc} {:.0} ns/penetration_with",
        t.elapsed().as_nanos() as f64 / (400.0 * 256.0)
    );
}
