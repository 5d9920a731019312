//! Recovery from overlap: a character that starts an update closer to something than
//! half its skin (penetrating included) is pushed out to a skin away from everything at
//! once.
//!
//! Each contact point `k` (normal `n_k` from the obstacle towards the character,
//! distance `d_k`) closer than the skin asks for `n_k · x ≥ skin − d_k`; the smallest
//! displacement `x` satisfying all of them is [`super::plane_solver`]'s nearest point
//! to zero. A convex obstacle's deepest-penetration normal comes from EPA, so a deep
//! overlap is left in one solve; the contacts are queried again at the new pose (the push
//! may reach other obstacles), at most [`super::CharacterConfig::max_recovery_iterations`]
//! times. Squeezed between opposing obstacles (no displacement satisfies both), the
//! solver's least-squares compromise is applied and the recovery reports it.
//!
//! Recovery moves the character only (a dynamic body it overlaps is not pushed, and is
//! not reported as a collision), and moves it without a cast: the contacts at the new
//! pose are the check, so a push out of one obstacle into another is undone by the
//! next solve, within the iteration bound.

// Negated comparisons (`!(x > y)`) are meant: NaN takes the safe branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use minkowski::query::compound::Collider;
use minkowski::{Pose, Real, Rotation, Vector};

use super::plane_solver::{solve_unchecked, CollisionPlane, PlaneStatus, MAX_PLANES};
use super::scene::{CharacterContact, CharacterWorld};
use super::tolerance::{RECOVERY_FRACTION, SAME_PLANE_COSINE, TOUCH_BAND};
use super::{CharacterConfig, CharacterError};

/// What a recovery did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recovery {
    /// The displacement applied (length, world frame).
    pub translation: Vector,
    /// Plane solves run.
    pub iterations: u32,
    /// Whether the character ends no closer than half the skin to anything.
    pub resolved: bool,
    /// Whether a solve found no displacement satisfying every contact (squeezed).
    pub squeezed: bool,
}

/// Adds the plane `n · x ≥ offset` to `planes`, merged with a plane of nearly the same
/// normal (keeping the larger offset); when full, it replaces the plane with the
/// smallest offset if its own is larger.
pub(crate) fn add_plane(planes: &mut Vec<CollisionPlane>, normal: Vector, offset: Real) {
    if !(normal.is_finite() && offset.is_finite()) {
        return;
    }
    let Some(n) = normal.try_normalize() else {
        return;
    };
    if let Some(p) = planes
        .iter_mut()
        .find(|p| p.normal.dot(n) >= SAME_PLANE_COSINE)
    {
        p.offset = p.offset.max(offset);
        return;
    }
    if planes.len() < MAX_PLANES {
        planes.push(CollisionPlane { normal: n, offset });
        return;
    }
    if let Some(weakest) = planes
        .iter_mut()
        .min_by(|a, b| a.offset.total_cmp(&b.offset))
    {
        if offset > weakest.offset {
            *weakest = CollisionPlane { normal: n, offset };
        }
    }
}

/// The pose of the character at `position`.
pub(crate) fn pose_at(rotation: Rotation, position: Vector) -> Result<Pose, CharacterError> {
    Pose::new(rotation, position).map_err(|_| CharacterError::InvalidInput {
        field: "position",
        expected: "finite and within the magnitude limit",
    })
}

/// Pushes the character at `position` out of what it overlaps (see the module notes),
/// leaving in `contacts` the contacts of its final pose within the skin plus the touch
/// band.
///
/// # Errors
/// As the world's [`CharacterWorld::contacts`], and [`CharacterError::InvalidInput`]
/// when a push would carry the character beyond the magnitude limit.
pub fn recover<W: CharacterWorld>(
    world: &W,
    shape: &Collider,
    rotation: Rotation,
    position: &mut Vector,
    config: &CharacterConfig,
    contacts: &mut Vec<CharacterContact<W::Target>>,
) -> Result<Recovery, CharacterError> {
    let skin = config.skin;
    let margin = skin * (1.0 + TOUCH_BAND);
    let trigger = skin * RECOVERY_FRACTION;
    let mut out = Recovery {
        translation: Vector::ZERO,
        iterations: 0,
        resolved: false,
        squeezed: false,
    };
    let mut planes: Vec<CollisionPlane> = Vec::with_capacity(MAX_PLANES);
    loop {
        contacts.clear();
        world.contacts(shape, &pose_at(rotation, *position)?, margin, contacts)?;
        if contacts.iter().all(|c| !(c.distance < trigger)) {
            out.resolved = true;
            return Ok(out);
        }
        if out.iterations >= config.max_recovery_iterations {
            return Ok(out);
        }
        out.iterations += 1;
        planes.clear();
        // Deepest first, so that a full plane set keeps what matters.
        let mut order: Vec<&CharacterContact<W::Target>> =
            contacts.iter().filter(|c| c.distance < skin).collect();
        order.sort_by(|a, b| a.distance.total_cmp(&b.distance));
        for c in order {
            add_plane(&mut planes, c.normal, skin - c.distance);
        }
        let s = solve_unchecked(Vector::ZERO, &planes);
        if s.status == PlaneStatus::Infeasible {
            out.squeezed = true;
        }
        if !s.delta.is_finite() || s.delta == Vector::ZERO {
            return Ok(out);
        }
        *position += s.delta;
        out.translation += s.delta;
    }
}
