//! The base triangle of displacement-mapped terrain and its forward projection.
//!
//! Seed 002 (§2.2.4, Eq 2.1–2.2): a base triangle has vertices `P0, P1, P2` and, at each
//! vertex, a projection direction `N_i` (not normalised). A point of the triangle with
//! barycentric parameters `(u, v)` and its direction are interpolated linearly,
//!
//! ```text
//! p(u, v) = P0 + u (P1 − P0) + v (P2 − P0)          (Eq 2.1)
//! n(u, v) = N0 + u (N1 − N0) + v (N2 − N0)
//! ```
//!
//! and the terrain surface is the forward projection `p'(u, v) = p(u, v) + d(u, v) n(u, v)`
//! (Eq 2.2), `d` a length *relative to* `n` read from the displacement map.
//!
//! # Validity
//!
//! [`BaseTriangle::new`] refuses what no backward projection can answer: non-finite or
//! out-of-range coordinates, a triangle whose edges are (nearly) parallel, and a
//! direction that does not cross the triangle's plane (zero, or with a component across
//! the plane below [`TERRAIN_MIN_SINE`] times the longest direction), or that crosses it
//! to the other side than `N0`. With every direction on one side, `n(u, v)` crosses the
//! plane at every point of the triangle, so a point's parameter `t` along it is bounded
//! there, and the aligned plane's divisions `N_i · Nb` are safe.
//!
//! # Normalisation
//!
//! The backward projections work on a copy scaled by powers of two (exact): lengths so
//! that the longest edge is about 1, directions so that the longest is about 1, with `P0`
//! at the origin. `(u, v)` are unchanged; `t` scales back by the ratio of the two
//! factors.

use crate::math::{Point, Real, Vector, EPSILON};
use crate::shape::MAX_MAGNITUDE;
use crate::tolerance::TERRAIN_MIN_SINE;

/// Why a [`BaseTriangle`] could not be built. Fields are named as in the protocol:
/// `p[i]` for the vertex `P_i`, `n[i]` for the direction `N_i`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BaseTriangleError {
    /// A vertex or direction has a NaN or infinite coordinate.
    #[error("base triangle {field} must have finite coordinates")]
    NonFinite {
        /// The offending field, e.g. `"p[1]"`.
        field: &'static str,
    },
    /// A coordinate's magnitude is above [`MAX_MAGNITUDE`].
    #[error("base triangle {field} magnitude must be <= {max}, got {value}")]
    OutOfRange {
        /// The offending field.
        field: &'static str,
        /// The coordinate given.
        value: Real,
        /// The limit, [`MAX_MAGNITUDE`].
        max: Real,
    },
    /// The vertices are collinear or coincide, within rounding (the sine of the angle
    /// between the edges at `P0` at most [`TERRAIN_MIN_SINE`]), or too close together
    /// to be represented once scaled.
    #[error("base triangle is degenerate: its vertices are (nearly) collinear")]
    Degenerate,
    /// A direction is zero or (nearly) parallel to the triangle's plane: its component
    /// across the plane is at most [`TERRAIN_MIN_SINE`] times the longest direction.
    #[error(
        "base triangle direction {field} is zero or (nearly) parallel to the triangle's plane"
    )]
    DirectionAlongPlane {
        /// The offending field, e.g. `"n[2]"`.
        field: &'static str,
    },
    /// A direction crosses the triangle's plane to the other side than `N0`.
    #[error(
        "base triangle direction {field} crosses the triangle's plane to the other side than n[0]"
    )]
    DirectionsOpposed {
        /// The offending field, `"n[1]"` or `"n[2]"`.
        field: &'static str,
    },
}

/// The normalised copy the backward projections work on (see the module notes): `P0`
/// at the origin, lengths multiplied by `pos_scale`, directions by `dir_scale`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Normalised {
    /// The power of two that lengths are multiplied by.
    pub pos_scale: Real,
    /// The power of two that directions are multiplied by.
    pub dir_scale: Real,
    /// `P1 − P0`, scaled.
    pub e1: Vector,
    /// `P2 − P0`, scaled.
    pub e2: Vector,
    /// The three directions, scaled.
    pub n: [Vector; 3],
    /// `N1 − N0`, scaled.
    pub f1: Vector,
    /// `N2 − N0`, scaled.
    pub f2: Vector,
    /// `e1 × e2`.
    pub nb: Vector,
    /// `n_i · nb`.
    pub n_dot_nb: [Real; 3],
    /// The vector coefficients of the alpha plane's edge cross product
    /// `(e1 + α f1) × (e2 + α f2) = c0 + α c1 + α² c2`.
    pub c: [Vector; 3],
    /// The least `|n_i · nb̂|`: bounds `|t|` of a solution inside the triangle.
    pub min_crossing: Real,
}

/// A base triangle of displacement-mapped terrain: vertices `P0..P2` and projection
/// directions `N0..N2` (not normalised), validated (see the module notes), in the
/// caller's frame and length units.
///
/// See also [`crate::terrain::backward_project`], the inverse of
/// [`BaseTriangle::forward_project`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BaseTriangle {
    p: [Point; 3],
    n: [Vector; 3],
    pub(crate) norm: Normalised,
}

const P_FIELDS: [&str; 3] = ["p[0]", "p[1]", "p[2]"];
const N_FIELDS: [&str; 3] = ["n[0]", "n[1]", "n[2]"];

fn check(v: Vector, field: &'static str) -> Result<(), BaseTriangleError> {
    if !v.is_finite() {
        return Err(BaseTriangleError::NonFinite { field });
    }
    for value in v.to_array() {
        if value.abs() > MAX_MAGNITUDE {
            return Err(BaseTriangleError::OutOfRange {
                field,
                value,
                max: MAX_MAGNITUDE,
            });
        }
    }
    Ok(())
}

impl BaseTriangle {
    /// A base triangle with vertices `p` (`P0, P1, P2`) and projection directions `n`
    /// (`N0, N1, N2`, any lengths: a displacement `d` moves `d |N|`).
    ///
    /// # Errors
    /// [`BaseTriangleError`]: a non-finite or out-of-range coordinate (the first one, `p`
    /// before `n`), a degenerate triangle, a direction (nearly) parallel to the plane or
    /// zero, or directions crossing the plane to opposite sides.
    pub fn new(p: [Point; 3], n: [Vector; 3]) -> Result<Self, BaseTriangleError> {
        for (v, field) in p.iter().zip(P_FIELDS) {
            check(*v, field)?;
        }
        for (v, field) in n.iter().zip(N_FIELDS) {
            check(*v, field)?;
        }
        let (e1, e2) = (p[1] - p[0], p[2] - p[0]);
        let longest = e1.length().max(e2.length()).max((e2 - e1).length());
        if longest.is_nan() || longest <= 0.0 {
            return Err(BaseTriangleError::Degenerate);
        }
        let pos_scale = crate::math::inverse_power_of_two(longest);
        let (e1, e2) = (e1 * pos_scale, e2 * pos_scale);
        let nb = e1.cross(e2);
        let (l1, l2) = (e1.length(), e2.length());
        if !(pos_scale.is_finite() && nb.is_finite())
            || nb.length() <= TERRAIN_MIN_SINE * l1 * l2
            || l1 == 0.0
            || l2 == 0.0
        {
            return Err(BaseTriangleError::Degenerate);
        }
        let longest_dir = n.iter().fold(0.0 as Real, |m, d| m.max(d.length()));
        if longest_dir.is_nan() || longest_dir <= 0.0 {
            return Err(BaseTriangleError::DirectionAlongPlane { field: N_FIELDS[0] });
        }
        let dir_scale = crate::math::inverse_power_of_two(longest_dir);
        let ns = n.map(|d| d * dir_scale);
        let unit_nb = nb / nb.length();
        let mut min_crossing = Real::INFINITY;
        for (i, d) in ns.iter().enumerate() {
            // The longest scaled direction has length in [0.7, 1.5): the test is relative
            // to it.
            let across = d.dot(unit_nb);
            if across.is_nan() || across.abs() <= TERRAIN_MIN_SINE {
                return Err(BaseTriangleError::DirectionAlongPlane { field: N_FIELDS[i] });
            }
            if i > 0 && (across > 0.0) != (ns[0].dot(unit_nb) > 0.0) {
                return Err(BaseTriangleError::DirectionsOpposed { field: N_FIELDS[i] });
            }
            min_crossing = min_crossing.min(across.abs());
        }
        let (f1, f2) = (ns[1] - ns[0], ns[2] - ns[0]);
        let norm = Normalised {
            pos_scale,
            dir_scale,
            e1,
            e2,
            n: ns,
            f1,
            f2,
            nb,
            n_dot_nb: ns.map(|d| d.dot(nb)),
            c: [e1.cross(e2), e1.cross(f2) + f1.cross(e2), f1.cross(f2)],
            min_crossing,
        };
        debug_assert!(min_crossing > EPSILON);
        Ok(BaseTriangle { p, n, norm })
    }

    /// The vertices `P0, P1, P2`.
    pub fn vertices(&self) -> [Point; 3] {
        self.p
    }

    /// The projection directions `N0, N1, N2`, as given.
    pub fn directions(&self) -> [Vector; 3] {
        self.n
    }

    /// The base plane's normal `Nb = (P1 − P0) × (P2 − P0)` (not normalised; its length
    /// is twice the triangle's area). Every direction crosses the plane to the same side:
    /// `N_i · Nb` all positive or all negative.
    pub fn base_normal(&self) -> Vector {
        (self.p[1] - self.p[0]).cross(self.p[2] - self.p[0])
    }

    /// The point `p(u, v) = P0 + u (P1 − P0) + v (P2 − P0)` of the base plane (Eq 2.1);
    /// inside the triangle for `u, v ≥ 0`, `u + v ≤ 1`.
    pub fn base_point(&self, u: Real, v: Real) -> Point {
        self.p[0] + u * (self.p[1] - self.p[0]) + v * (self.p[2] - self.p[0])
    }

    /// The interpolated direction `n(u, v) = N0 + u (N1 − N0) + v (N2 − N0)` (Eq 2.1),
    /// not normalised.
    pub fn direction(&self, u: Real, v: Real) -> Vector {
        self.n[0] + u * (self.n[1] - self.n[0]) + v * (self.n[2] - self.n[0])
    }

    /// The forward projection `p(u, v) + d n(u, v)` (Eq 2.2): the terrain point over
    /// `(u, v)` at displacement `d` (relative to the direction's length). Finite for
    /// arguments of moderate size.
    ///
    /// See also [`crate::terrain::backward_project`], its inverse.
    pub fn forward_project(&self, u: Real, v: Real, d: Real) -> Point {
        self.base_point(u, v) + d * self.direction(u, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri() -> ([Point; 3], [Vector; 3]) {
        (
            [
                Vector::new(0.0, 0.0, 0.0),
                Vector::new(4.0, 0.0, 1.0),
                Vector::new(2.0, 4.0, 2.0),
            ],
            [
                Vector::new(0.5, 0.0, 1.0),
                Vector::new(1.0, 0.0, 1.0),
                Vector::new(0.0, 1.0, 1.0),
            ],
        )
    }

    #[test]
    fn forward_projection_interpolates_eq_2_1() {
        let (p, n) = tri();
        let t = BaseTriangle::new(p, n).unwrap();
        assert_eq!(t.forward_project(0.0, 0.0, 0.0), p[0]);
        assert_eq!(t.forward_project(1.0, 0.0, 2.0), p[1] + 2.0 * n[1]);
        assert_eq!(t.forward_project(0.0, 1.0, -1.0), p[2] - n[2]);
        let q = t.forward_project(0.3, 0.2, 1.0);
        assert!((q - Vector::new(2.15, 1.0, 1.7)).length() < 1e-5, "{q}");
    }

    #[test]
    fn invalid_triangles_are_refused() {
        let (p, n) = tri();
        let mut bad = p;
        bad[1].x = Real::NAN;
        assert_eq!(
            BaseTriangle::new(bad, n),
            Err(BaseTriangleError::NonFinite { field: "p[1]" })
        );
        bad[1].x = 2.0 * MAX_MAGNITUDE;
        assert!(matches!(
            BaseTriangle::new(bad, n),
            Err(BaseTriangleError::OutOfRange { field: "p[1]", .. })
        ));
        let collinear = [p[0], p[1], 2.0 * p[1]];
        assert_eq!(
            BaseTriangle::new(collinear, n),
            Err(BaseTriangleError::Degenerate)
        );
        assert_eq!(
            BaseTriangle::new([p[0]; 3], n),
            Err(BaseTriangleError::Degenerate)
        );
        let mut flat = n;
        flat[2] = p[1] - p[0]; // in the plane
        assert_eq!(
            BaseTriangle::new(p, flat),
            Err(BaseTriangleError::DirectionAlongPlane { field: "n[2]" })
        );
        assert_eq!(
            BaseTriangle::new(p, [Vector::ZERO; 3]),
            Err(BaseTriangleError::DirectionAlongPlane { field: "n[0]" })
        );
        let mut opposed = n;
        opposed[1] = -n[1];
        assert_eq!(
            BaseTriangle::new(p, opposed),
            Err(BaseTriangleError::DirectionsOpposed { field: "n[1]" })
        );
        // Directions all on the other side are fine.
        assert!(BaseTriangle::new(p, n.map(|d| -d)).is_ok());
    }
}
