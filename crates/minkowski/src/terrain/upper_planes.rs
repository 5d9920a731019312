//! The upper planes of a floored bounding volume: a few half-spaces, each holding the
//! volume whatever its floor, for the detection's cheap tests before GJK and its
//! point-in-volume test at the texel level (seed 002 §3.6, Alg 11–12; the planes are
//! this library's addition, in the spirit of the early-out planes of Alg 6).
//!
//! # Why they hold (derived)
//!
//! A volume of [`crate::terrain::terrain_volumes`] is `conv(top ∪ floor)` grown by a
//! margin, its floor points `p_c + T n_c` at the cell's four corners `c`, with `T`
//! (the floor length) never above the quad's smallest sample `T_ref`. Take a unit
//! normal `a` with `a · n_c ≥ 0` at every corner and `h = max a · x` over the top and
//! the four points `p_c + T_ref n_c`. For `T ≤ T_ref`,
//! `a · (p_c + T n_c) = a · (p_c + T_ref n_c) + (T − T_ref) a · n_c ≤ h`, so every point
//! of the hull, whatever its floor, has `a · x ≤ h`, and every point of the grown hull
//! `a · x ≤ h + margin`. A point or a convex part wholly beyond one such plane (by the
//! margin) is outside the volume.
//!
//! Any such `a` is valid; the tightest are the facets of `conv(top ∪ floor at T_ref)`
//! whose normals lean along every corner's direction (its upper facets): they are found
//! here by brute force over triples of points (a cell has at most a dozen), kept when
//! every point is on or below the triple's plane and `a · n_c` is clearly positive
//! (`> 1/64 |n_c|`: near-vertical facets bound little and would hold only up to
//! rounding). At most [`MAX_UPPER_PLANES`] are kept; fewer (none, for a degenerate
//! cell) only make the tests weaker, never wrong.

use crate::math::{Point, Real, Vector};

/// The most upper planes kept per cell.
pub const MAX_UPPER_PLANES: usize = 6;

/// A half-space `normal · x ≤ offset` holding a floored volume before its margin (see
/// the module notes). World frame; `normal` is a unit vector, `offset` a length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UpperPlane {
    /// The unit outward normal.
    pub normal: Vector,
    /// The largest `normal · x` over the volume's points.
    pub offset: Real,
}

impl UpperPlane {
    /// How far `x` is beyond the plane (negative below it), in length units.
    pub fn excess(&self, x: Point) -> Real {
        self.normal.dot(x) - self.offset
    }
}

/// The upper planes of `conv(top ∪ {p_c + t_ref n_c})` (see the module notes):
/// `corners` the cell's base points `p_c`, `directions` its `n_c`, `t_ref` the highest
/// floor length the detection will use. Points or directions that are not finite give
/// no planes.
pub fn upper_planes(
    top: &[Point],
    corners: &[Point; 4],
    directions: &[Vector; 4],
    t_ref: Real,
) -> Vec<UpperPlane> {
    let mut points: Vec<Point> = top.to_vec();
    points.extend((0..4).map(|c| corners[c] + directions[c] * t_ref));
    let finite = points.iter().all(|p| p.is_finite())
        && directions.iter().all(|n| n.is_finite())
        && t_ref.is_finite();
    if !finite || points.len() < 3 {
        return Vec::new();
    }
    let scale = points
        .iter()
        .map(|p| p.abs().max_element())
        .fold(0.0, Real::max)
        .max(Real::MIN_POSITIVE);
    let mean_n: Vector = directions.iter().copied().sum();
    let mut planes: Vec<UpperPlane> = Vec::new();
    let n = points.len();
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                let (pi, pj, pk) = (points[i], points[j], points[k]);
                let mut a = (pj - pi).cross(pk - pi);
                let len = a.length();
                // A degenerate triple (nearly collinear points): no plane.
                if len <= 1e-6 * scale * scale {
                    continue;
                }
                a /= len;
                if a.dot(mean_n) < 0.0 {
                    a = -a;
                }
                let leans = directions
                    .iter()
                    .all(|d| a.dot(*d) > d.length() * (1.0 / 64.0));
                if !leans {
                    continue;
                }
                let offset = points
                    .iter()
                    .map(|p| a.dot(*p))
                    .fold(Real::NEG_INFINITY, Real::max);
                // A facet: the triple is on the plane (all others on or below it).
                let on = a.dot(pi).min(a.dot(pj)).min(a.dot(pk));
                if offset - on > 1e-4 * scale {
                    continue;
                }
                let duplicate = planes.iter().any(|q| {
                    q.normal.dot(a) > 1.0 - 1e-5 && (q.offset - offset).abs() < 1e-4 * scale
                });
                if !duplicate {
                    planes.push(UpperPlane { normal: a, offset });
                    if planes.len() == MAX_UPPER_PLANES {
                        return planes;
                    }
                }
            }
        }
    }
    planes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64, z: f64) -> Vector {
        Vector::new(x as Real, y as Real, z as Real)
    }

    /// A texel of a ramp `y = 0.25 x`, directions up: one upper plane, the ramp's.
    #[test]
    fn a_flat_ramp_texel_has_its_plane() {
        let corners = [
            v(0.0, 0.0, 0.0),
            v(1.0, 0.0, 0.0),
            v(0.0, 0.0, 1.0),
            v(1.0, 0.0, 1.0),
        ];
        let top = corners.map(|p| p + v(0.0, 0.25 * p.x as f64, 0.0));
        let planes = upper_planes(&top, &corners, &[Vector::Y; 4], -1.0);
        assert_eq!(planes.len(), 1, "{planes:?}");
        let want = v(-0.25, 1.0, 0.0).normalize();
        assert!(planes[0].normal.dot(want) > 1.0 - 1e-5);
        assert!(planes[0].offset.abs() < 1e-5);
    }

    /// A twisted texel (a saddle's four corners): two upper facets, and every point
    /// of its floored hull, floors far deeper than the reference included, is below
    /// both; a point above the saddle's top is beyond one of them.
    #[test]
    fn a_twisted_texel_holds_every_floor() {
        let corners = [
            v(0.0, 0.0, 0.0),
            v(1.0, 0.0, 0.0),
            v(0.0, 0.0, 1.0),
            v(1.0, 0.0, 1.0),
        ];
        let lift = [0.0, 1.0, 1.0, 0.0];
        let dirs = [
            v(0.1, 1.0, 0.0),
            v(0.0, 1.0, 0.1),
            v(-0.1, 1.0, 0.0),
            v(0.0, 1.0, 0.0),
        ];
        let top: Vec<Point> = (0..4).map(|c| corners[c] + dirs[c] * lift[c]).collect();
        let planes = upper_planes(&top, &corners, &dirs, -0.5);
        assert_eq!(planes.len(), 2, "{planes:?}");
        for floor in [-0.5, -3.0, -1e3] {
            for c in 0..4 {
                let p = corners[c] + dirs[c] * floor;
                for q in &planes {
                    assert!(q.excess(p) <= 1e-3, "{floor} {c} {}", q.excess(p));
                }
            }
        }
        for p in &top {
            assert!(planes.iter().all(|q| q.excess(*p) <= 1e-5));
        }
        let above = v(0.5, 1.2, 0.5);
        assert!(planes.iter().any(|q| q.excess(above) > 0.1));
    }

    #[test]
    fn degenerate_or_non_finite_cells_give_no_planes() {
        let corners = [Vector::ZERO; 4];
        assert!(upper_planes(&[], &corners, &[Vector::Y; 4], 0.0).is_empty());
        let nan = [v(f64::NAN, 0.0, 0.0); 4];
        assert!(upper_planes(&nan, &corners, &[Vector::Y; 4], 0.0).is_empty());
    }
}
