//! The separating axis test with Gauss-map pruning and the CW iteration, against the
//! exact polytope oracle (tests/common's `poly_oracle`: the SAT over every triangle
//! normal and edge cross product of the vertex sets, in f64).
#![allow(clippy::unnecessary_cast)] // `as f64` is a no-op in the f64 build

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::*;
use minkowski::query::{cw, sat};
use minkowski::shape::ConvexPolyhedron;
use minkowski::support::MinkowskiDifference;
use minkowski::{Real, Vector};

fn random_hull(rng: &mut Rng, n: usize) -> ConvexPolyhedron {
    let pts: Vec<Vector> = (0..n)
        .map(|_| {
            let d = rng.dir() * rng.range(0.5, 1.0);
            Vector::new(d.x as Real, d.y as Real, d.z as Real)
        })
        .collect();
    ConvexPolyhedron::new(pts).unwrap()
}

#[test]
fn sat_and_cw_agree_with_the_exact_oracle() {
    let mut rng = Rng::new(0x5a7);
    let mut counts = [0usize; 2];
    for case in 0..600 {
        let n = [4, 8, 16, 32][case % 4];
        let (a, b) = (random_hull(&mut rng, n), random_hull(&mut rng, n + 3));
        let pose_a = random_pose(&mut rng, 0.5);
        let pose_b = random_pose(&mut rng, 2.5);
        let va: Vec<_> = a
            .points()
            .iter()
            .map(|p| d3(pose_a.transform_point(*p)))
            .collect();
        let vb: Vec<_> = b
            .points()
            .iter()
            .map(|p| d3(pose_b.transform_point(*p)))
            .collect();
        let (signed, _) = poly_oracle(&va, &vb);
        if signed.abs() < 1e-3 {
            continue; // within rounding of touching: either answer is right
        }
        let apart = signed > 0.0;
        counts[apart as usize] += 1;
        let (sa, sb) = (
            sat::SatHull::new(&a).unwrap(),
            sat::SatHull::new(&b).unwrap(),
        );
        let s = sat::intersects(&sa, &pose_a, &sb, &pose_b);
        assert_eq!(
            s.intersecting, !apart,
            "case {case}: SAT {s:?}, oracle {signed}"
        );
        let pair = MinkowskiDifference::relative(&a, &pose_a, &b, &pose_b);
        let c = cw::separate(&pair, 10_000);
        assert_eq!(c.separated, apart, "case {case}: CW {c:?}, oracle {signed}");
        if c.separated {
            // The direction certifies it: A's top below B's bottom along it.
            let d = c.direction;
            let top = a.local_support(d).dot(d);
            let rel = pose_a.inv_mul(&pose_b);
            let bottom = rel
                .transform_point(b.local_support(rel.inverse_transform_vector(-d)))
                .dot(d);
            assert!(top < bottom);
        }
    }
    assert!(counts[0] > 150 && counts[1] > 150, "{counts:?}");
}

use minkowski::support::SupportMap;
