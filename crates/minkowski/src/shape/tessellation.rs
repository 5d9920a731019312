//! Point clouds of the primitive shapes, built the way common modelling tools build
//! their default meshes.
//!
//! Seed 000 ran GJK on the vertices of Blender's default meshes: a cube (8 vertices), a
//! cone (33: 32 rim points and the apex), a cylinder (64: two rims of 32) and a UV
//! sphere (482: 32 segments × 15 inner rings + 2 poles). The functions here rebuild
//! those point sets (all axes along +Y, like the analytic shapes) so benchmarks can be
//! compared with the seed's tables, and so tests can bracket a curved shape between an
//! inscribed polytope and the shape itself.
//!
//! Every point returned lies on the surface of the corresponding analytic shape, so the
//! hull of the points is inscribed in it.

use crate::math::{Point, Real, Vector};

const TAU: Real = core::f64::consts::TAU as Real;
const PI: Real = core::f64::consts::PI as Real;

fn rim(radius: Real, y: Real, segments: usize) -> impl Iterator<Item = Point> {
    (0..segments).map(move |i| {
        let t = TAU * i as Real / segments as Real;
        Vector::new(radius * t.cos(), y, radius * t.sin())
    })
}

/// The 8 corners of a box with the given half extents.
pub fn box_points(half_extents: Vector) -> Vec<Point> {
    let h = half_extents;
    (0..8)
        .map(|i| {
            Vector::new(
                if i & 1 == 0 { -h.x } else { h.x },
                if i & 2 == 0 { -h.y } else { h.y },
                if i & 4 == 0 { -h.z } else { h.z },
            )
        })
        .collect()
}

/// A cone's rim of `segments` points at `y = -half_height` plus its apex
/// (`segments + 1` points; 33 for seed 000's cone).
pub fn cone_points(half_height: Real, radius: Real, segments: usize) -> Vec<Point> {
    let mut v: Vec<Point> = rim(radius, -half_height, segments).collect();
    v.push(Vector::new(0.0, half_height, 0.0));
    v
}

/// A cylinder's two rims of `segments` points (`2 * segments`; 64 for seed 000's).
pub fn cylinder_points(half_height: Real, radius: Real, segments: usize) -> Vec<Point> {
    rim(radius, -half_height, segments)
        .chain(rim(radius, half_height, segments))
        .collect()
}

/// A UV sphere: `rings - 1` inner rings of `segments` points plus the two poles
/// (`segments * (rings - 1) + 2`; 482 for seed 000's 32 × 16 sphere).
pub fn uv_sphere_points(radius: Real, segments: usize, rings: usize) -> Vec<Point> {
    let mut v = vec![Vector::new(0.0, radius, 0.0)];
    for ring in 1..rings {
        let phi = PI * ring as Real / rings as Real;
        v.extend(rim(radius * phi.sin(), radius * phi.cos(), segments));
    }
    v.push(Vector::new(0.0, -radius, 0.0));
    v
}

/// The four seed-000 meshes at unit size, with their names: cube (8), cone (33),
/// cylinder (64), sphere (482).
pub fn seed000_shapes() -> [(&'static str, Vec<Point>); 4] {
    [
        ("cube", box_points(Vector::splat(1.0))),
        ("cone", cone_points(1.0, 1.0, 32)),
        ("cylinder", cylinder_points(1.0, 1.0, 32)),
        ("sphere", uv_sphere_points(1.0, 32, 16)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed000_vertex_counts() {
        let counts: Vec<usize> = seed000_shapes().iter().map(|(_, p)| p.len()).collect();
        assert_eq!(counts, vec![8, 33, 64, 482]);
    }

    #[test]
    fn sphere_points_lie_on_the_sphere() {
        for p in uv_sphere_points(2.5, 32, 16) {
            assert!((p.length() - 2.5).abs() < 1e-5);
        }
    }
}
