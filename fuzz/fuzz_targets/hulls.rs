//! The hull builders on arbitrary points: the six 2D algorithms give the same hull (as
//! sets of input indices), and the 3D hull passes its own exact validation (every input
//! point inside or on it, faces convex and planar by exact predicates), on half-integer
//! points and on points with any finite `f64` coordinates.
#![no_main]

// The `f64` feature fuzzes the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use libfuzzer_sys::fuzz_target;
use minkowski::glam::{DVec2, DVec3};
use minkowski::hull::{quickhull3d, quickhull3d_f64, Algorithm2d};
use minkowski::Vector;

/// A coordinate from fuzz data: mostly small integers and their halves (so ties,
/// duplicates and collinear points are common), sometimes any finite value.
fn coord(raw: i16, wide: Option<f64>) -> f64 {
    match wide {
        Some(x) if x.is_finite() => x,
        _ => raw as f64 / 2.0,
    }
}

fuzz_target!(|input: (Vec<(i16, i16, i16)>, Vec<Option<f64>>)| {
    let (raw, wide) = input;
    if raw.is_empty() || raw.len() > 512 {
        return;
    }
    let w = |i: usize| wide.get(i).copied().flatten();
    let pts2: Vec<DVec2> = raw
        .iter()
        .enumerate()
        .map(|(i, &(x, y, _))| DVec2::new(coord(x, w(2 * i)), coord(y, w(2 * i + 1))))
        .collect();
    let reference = Algorithm2d::MonotoneChain.run_f64(&pts2);
    for alg in Algorithm2d::ALL {
        let h = alg.run_f64(&pts2);
        match (&reference, &h) {
            (Ok(r), Ok(h)) => {
                let key = |h: &Vec<usize>| {
                    let mut v: Vec<DVec2> = h.iter().map(|&i| pts2[i]).collect();
                    v.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
                    v.dedup();
                    v
                };
                assert_eq!(key(r), key(h), "{} differs from monotone chain", alg.name());
            }
            (Err(_), Err(_)) => {}
            _ => panic!(
                "{}: {h:?} where monotone chain gives {reference:?}",
                alg.name()
            ),
        }
    }
    let pts3: Vec<Vector> = raw
        .iter()
        .map(|&(x, y, z)| Vector::new(x as _, y as _, z as _) * 0.5)
        .collect();
    if let Ok(hull) = quickhull3d(&pts3) {
        if let Err(defect) = hull.validate(&pts3) {
            panic!("3D hull fails validation: {defect:?}");
        }
    }
    // The same points with the wide values too, through the f64 entry point (subnormal
    // to 1e60 beside half-integers: issue 17, class 3).
    let wide3: Vec<DVec3> = raw
        .iter()
        .enumerate()
        .map(|(i, &(x, y, z))| {
            DVec3::new(
                coord(x, w(3 * i)),
                coord(y, w(3 * i + 1)),
                coord(z, w(3 * i + 2)),
            )
        })
        .collect();
    if let Ok(hull) = quickhull3d_f64(&wide3) {
        if let Err(defect) = hull.validate_f64(&wide3) {
            panic!("f64 3D hull fails validation: {defect:?}");
        }
    }
});
