//! The character controller's tolerances, in one place, each with what it guards.
//!
//! Lengths are fractions of the skin ([`super::CharacterConfig::skin`]), so that a
//! scene scaled up or down with its skin behaves the same; angles are cosines.

use minkowski::Real;

/// The band, as a fraction of the skin, within which a contact beyond the skin still
/// counts as touching (ground detection, the planes clipping the answered velocity):
/// casts stop between the skin and the skin plus the cast's tolerance, and a character
/// resting on a surface must keep seeing it.
pub const TOUCH_BAND: Real = 0.5;

/// Recovery starts when something is closer than this fraction of the skin (deeper
/// than the skin allows by half of it): contacts within the skin are the casts' normal
/// resting state and are left alone. A cast at time 0 on a plane the motion glides
/// along is re-run with this fraction of the skin.
pub const RECOVERY_FRACTION: Real = 0.5;

/// Motions shorter than this fraction of the skin end a slide or a snap: nothing is
/// left to move.
pub const MIN_MOVE_FRACTION: Real = 1.0e-3;

/// Relative tolerance of the plane solver's tests: a candidate may violate a plane, or
/// carry a negative multiplier, by this much times the problem's size
/// (`1 + ‖t‖ + max |d_i|`): a few dozen roundings of the Gram solve.
pub const PLANE_TOLERANCE: Real = 64.0 * Real::EPSILON;

/// Below this Gram determinant (for unit normals: the squared sine of two planes'
/// angle, about 0.06°, and its analogue for three) an active set of the plane solver is
/// treated as dependent and skipped; a smaller independent set that gives the same
/// point is tried instead.
pub const MIN_GRAM_DETERMINANT: Real = 1.0e-6;

/// Recovery's contacts with normals closer than this cosine (about 0.8°) are one plane,
/// the larger push kept: the points of one manifold share their normal, and duplicates
/// only slow the solver.
pub const SAME_PLANE_COSINE: Real = 0.9999;

/// Two normals of the slide's plane set closer than this cosine (about 0.11°) are one
/// plane, the newer kept: clipping by the newer leaves the motion into the older below
/// `2e-3` of its length, and the plane solver's pairs stay above
/// [`MIN_GRAM_DETERMINANT`]. A coarser merge would drop a plane the motion moves into: on
/// a terrain of slightly different triangles the character would meet the new triangle
/// at time 0 again and again without clipping.
pub const SLIDE_SAME_PLANE_COSINE: Real = 1.0 - 2.0e-6;

/// The largest cosine between a motion and a plane's normal (into the plane) that still
/// counts as gliding along it.
pub const GLIDE_COSINE: Real = 1.0e-4;

/// A normal with `n · up` at most this is a wall or a ceiling, not a slope (about 0.6°
/// from vertical).
pub const MIN_FACING_UP: Real = 0.01;

/// Two ground candidates whose normals' `up` parts differ by less than this are equally
/// flat; the nearer is the ground.
pub const GROUND_TIE: Real = 1.0e-6;

/// How far from 1 the length of a unit vector given by the caller (the up direction, a
/// plane's normal) may be.
pub const UNIT_LENGTH_TOLERANCE: Real = 1.0e-3;
