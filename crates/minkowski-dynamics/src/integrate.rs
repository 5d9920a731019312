//! Time integration: semi-implicit (symplectic) Euler for velocities and positions, an
//! implicit gyroscopic step for rotation, and unit-quaternion orientation updates.
//!
//! Velocities first (`v += h·g`), then positions with the new velocities (`x += h·v`):
//! the symplectic Euler scheme that the soft-step solver substeps.
//!
//! # Gyroscopic term
//!
//! A free body obeys Euler's equation `I ω̇ + ω × I ω = 0` (body axes). Integrating it
//! explicitly gains energy; dropping the term keeps ω constant in the world, so the
//! angular momentum `L = R I Rᵀ ω` turns with the body. Following Catto ("Numerical
//! Methods", GDC 2015), we take one Newton step on the implicit (backward Euler) equation
//! in body axes, `f(ω) = I (ω − ω₀) + h ω × I ω = 0`, from `ω₀`:
//! `J = I + h (ω̂ I − (I ω)^)`, `ω = ω₀ − J⁻¹ f(ω₀)` with `f(ω₀) = h ω₀ × I ω₀`. The
//! implicit step loses a little energy per step and never gains any; angular momentum is
//! kept to second order in `h`.
//!
//! # Orientation
//!
//! `q̇ = ½ (0, ω) q`; one Euler step `q ← q + ½ h (0, ω) q`, then renormalised (the step
//! adds `O(h²|ω|²)` to the norm).

use minkowski::math::Matrix3;
use minkowski::{Real, Rotation, Vector};

/// The rotation `q` advanced by the angular velocity `w` (rad/s, world axes) over `h`
/// seconds, renormalised to unit length.
pub fn integrate_rotation(q: Rotation, w: Vector, h: Real) -> Rotation {
    let dq = Rotation::from_xyzw(w.x, w.y, w.z, 0.0) * q;
    let r = Rotation::from_xyzw(
        q.x + 0.5 * h * dq.x,
        q.y + 0.5 * h * dq.y,
        q.z + 0.5 * h * dq.z,
        q.w + 0.5 * h * dq.w,
    );
    let n = r.length();
    if n.is_finite() && n > 0.0 {
        r * (1.0 / n)
    } else {
        q
    }
}

/// The cross-product matrix `v̂` with `v̂ u = v × u`.
pub fn skew(v: Vector) -> Matrix3 {
    Matrix3::from_cols(
        Vector::new(0.0, v.z, -v.y),
        Vector::new(-v.z, 0.0, v.x),
        Vector::new(v.y, -v.x, 0.0),
    )
}

/// The angular velocity after one implicit gyroscopic step of `h` seconds (module
/// notes): `w` in world axes, `q` the body's rotation, `inertia_local` its tensor in body
/// axes. Returns `w` unchanged when the Newton matrix is singular.
pub fn gyroscopic_step(w: Vector, q: Rotation, inertia_local: Matrix3, h: Real) -> Vector {
    let wb = q.inverse() * w;
    let iw = inertia_local * wb;
    let f = h * wb.cross(iw);
    let j = inertia_local + (skew(wb) * inertia_local - skew(iw)) * h;
    let det = j.determinant();
    if !det.is_finite() || det.abs() <= Real::EPSILON * inertia_local.determinant().abs() {
        return w;
    }
    let wb = wb - j.inverse() * f;
    q * wb
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A constant spin about a fixed axis turns the body by `|ω| t` (the closed form
    /// `exp(½ ω t)`), to the first-order scheme's error, and stays unit length.
    #[test]
    fn constant_spin_matches_the_exponential() {
        for (w, h, steps) in [
            (Vector::new(0.0, 0.0, 2.0), 1.0 / 240.0, 240),
            (Vector::new(1.0, -2.0, 0.5), 1.0 / 480.0, 480),
        ] {
            let mut q = Rotation::IDENTITY;
            for _ in 0..steps {
                q = integrate_rotation(q, w, h);
                assert!((q.length() - 1.0).abs() < 1e-5);
            }
            let t = h * steps as Real;
            let want = Rotation::from_scaled_axis(w * t);
            let err = q.angle_between(want);
            assert!(err < 2.0 * h * w.length() * w.length() * t, "{err}");
        }
    }

    /// About a principal axis there is no gyroscopic torque: ω is unchanged.
    #[test]
    fn principal_spin_has_no_gyroscopic_torque() {
        let i = Matrix3::from_diagonal(Vector::new(1.0, 2.0, 3.0));
        let w = Vector::new(0.0, 5.0, 0.0);
        let out = gyroscopic_step(w, Rotation::IDENTITY, i, 1.0 / 60.0);
        assert!((out - w).length() < 1e-6);
        // Off-axis it changes ω but not (to second order) the momentum I ω.
        let w = Vector::new(1.0, 5.0, 0.5);
        let out = gyroscopic_step(w, Rotation::IDENTITY, i, 1.0 / 600.0);
        assert!((i * out - i * w).length() < 1e-3 * (i * w).length());
        assert!(out != w);
    }

    #[test]
    fn skew_is_the_cross_product() {
        let (a, b) = (Vector::new(1.0, 2.0, 3.0), Vector::new(-4.0, 0.5, 2.0));
        assert!((skew(a) * b - a.cross(b)).length() < 1e-6);
    }
}
