//! Sphere–sphere (and any two point cores with margins): closed form.

use super::LocalContact;
use crate::math::{length_robust, Point, Real, Vector};

/// Contact between balls centred at `ca` (radius `ra`) and `cb` (radius `rb`).
///
/// Coincident centres have no preferred direction: every unit vector is a valid
/// normal, and +Y is returned.
pub(crate) fn contact(ca: Point, ra: Real, cb: Point, rb: Real) -> LocalContact {
    let d = cb - ca;
    let len = length_robust(d);
    let normal = if len > 0.0 { d / len } else { Vector::Y };
    LocalContact {
        distance: len - ra - rb,
        normal,
        point_a: ca + normal * ra,
        point_b: cb - normal * rb,
    }
}
