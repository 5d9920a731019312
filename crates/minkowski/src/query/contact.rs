//! Result types of the shape-level queries.
//!
//! With the `serde` feature they serialize field by field (vectors as `[x, y, z]`,
//! statuses and methods by their protocol names, `"converged"`, `"gjk_epa"`, ...).

use crate::math::{Point, Real, Vector};
use crate::query::epa::EpaStatus;
use crate::query::gjk::GjkStatus;

/// How a shape-level query obtained its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum QueryStatus {
    /// Exact (closed form) or converged within the tolerances.
    Converged,
    /// The shapes' Minkowski difference is flat or a segment: the answer is exact, but
    /// the normal is one of several equally valid ones.
    Degenerate,
    /// An iterative routine stopped at the limit of the arithmetic; the answer is the
    /// best found.
    NumericalLimit,
    /// An iterative routine hit its bound; the answer is the best found.
    MaxIterations,
}

impl QueryStatus {
    /// The protocol name: `"converged"`, `"degenerate"`, `"numerical_limit"`,
    /// `"max_iterations"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            QueryStatus::Converged => "converged",
            QueryStatus::Degenerate => "degenerate",
            QueryStatus::NumericalLimit => "numerical_limit",
            QueryStatus::MaxIterations => "max_iterations",
        }
    }
}

impl From<GjkStatus> for QueryStatus {
    fn from(s: GjkStatus) -> Self {
        match s {
            GjkStatus::Converged => QueryStatus::Converged,
            GjkStatus::NumericalLimit => QueryStatus::NumericalLimit,
            GjkStatus::MaxIterations => QueryStatus::MaxIterations,
        }
    }
}

impl From<EpaStatus> for QueryStatus {
    fn from(s: EpaStatus) -> Self {
        match s {
            EpaStatus::Converged | EpaStatus::Separated => QueryStatus::Converged,
            EpaStatus::Degenerate => QueryStatus::Degenerate,
            EpaStatus::NumericalLimit => QueryStatus::NumericalLimit,
            EpaStatus::MaxIterations => QueryStatus::MaxIterations,
        }
    }
}

/// Which routine answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum ContactMethod {
    /// A closed form (sphere–sphere, sphere–box, segment cores, a half-space against a
    /// convex shape).
    Analytic,
    /// Separating axis test: box–box, or two hulls of at most
    /// [`SAT_CONTACT_MAX_VERTICES`](crate::shape::SAT_CONTACT_MAX_VERTICES) vertices.
    Sat,
    /// GJK on the shapes' cores.
    Gjk,
    /// GJK then EPA on the shapes' cores.
    GjkEpa,
}

impl ContactMethod {
    /// The protocol name: `"analytic"`, `"sat"`, `"gjk"`, `"gjk_epa"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ContactMethod::Analytic => "analytic",
            ContactMethod::Sat => "sat",
            ContactMethod::Gjk => "gjk",
            ContactMethod::GjkEpa => "gjk_epa",
        }
    }
}

/// The answer of [`crate::query::distance`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DistanceOutput {
    /// Distance between the shapes (length, ≥ 0; 0 when they overlap or touch).
    pub distance: Real,
    /// Certified lower bound on the distance (length, ≥ 0, ≤ `distance`): what GJK's
    /// best support point proves, or `distance` itself for a closed form. Holds whatever
    /// the status (an iteration bound or the numerical limit only widens the interval).
    pub lower_bound: Real,
    /// Upper bound on the distance (length, ≥ `distance`): GJK's last `|v|`, or
    /// `distance` for a closed form. Above `distance` when the touching rule reported 0
    /// for shapes that may be apart by less than the rounding floor.
    pub upper_bound: Real,
    /// Whether the shapes overlap or touch.
    pub intersecting: bool,
    /// How the answer was obtained.
    pub status: QueryStatus,
    /// GJK iterations (0 for closed forms).
    pub iterations: u32,
}

/// The answer of [`crate::query::closest_points`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClosestPoints {
    /// Distance between the shapes (length, ≥ 0; 0 when they overlap or touch).
    pub distance: Real,
    /// Certified lower bound on the distance (see [`DistanceOutput::lower_bound`]).
    pub lower_bound: Real,
    /// Upper bound on the distance (see [`DistanceOutput::upper_bound`]).
    pub upper_bound: Real,
    /// Whether the shapes overlap or touch.
    pub intersecting: bool,
    /// Closest point on A (world frame). When the shapes overlap, a point common to
    /// both (within the tolerance), equal to `point_b`.
    pub point_a: Point,
    /// Closest point on B (world frame).
    pub point_b: Point,
    /// Unit vector from A towards B (world frame) along which the shapes are `distance`
    /// apart: the separating direction the solver converged to. Prefer it to the
    /// direction of `point_b − point_a`, which rounding turns when the shapes nearly
    /// touch (witnesses 1e-5 apart in f32 carry errors of about 1e-7 each, enough to
    /// tilt their difference by a hundredth of a radian). Zero when the shapes overlap or
    /// touch.
    pub normal: Vector,
    /// How the answer was obtained.
    pub status: QueryStatus,
    /// GJK iterations (0 for closed forms).
    pub iterations: u32,
}

/// The answer of [`crate::query::contact`]: signed distance, normal and witness points
/// for any pair, separated or penetrating.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Contact {
    /// Signed distance (length): > 0 separated, 0 touching, < 0 penetrating, where
    /// `-distance` is the penetration depth.
    pub distance: Real,
    /// Lower bound on the signed distance (length, ≤ `distance`): for a penetrating
    /// pair minus EPA's upper bound on the depth, for a separated pair GJK's certified
    /// lower bound, `distance` itself for closed forms and SAT. The true signed distance
    /// lies in `[lower_bound, upper_bound]` whatever the status, up to rounding.
    pub lower_bound: Real,
    /// Upper bound on the signed distance (length, ≥ `distance`): minus EPA's certified
    /// lower bound on the depth, or GJK's `|v|` for a separated pair.
    pub upper_bound: Real,
    /// Unit normal from A towards B (world frame). For a penetrating pair, translating B
    /// by `-distance × normal` separates the shapes; for a separated pair, it is the
    /// direction from `point_a` to `point_b`.
    pub normal: Vector,
    /// Point on A's surface (world frame): the closest point when separated, the
    /// deepest point of A inside B when penetrating.
    pub point_a: Point,
    /// Point on B's surface (world frame); `point_b − point_a = distance × normal`.
    pub point_b: Point,
    /// How the answer was obtained.
    pub status: QueryStatus,
    /// Which routine answered.
    pub method: ContactMethod,
    /// Iterations of GJK plus EPA (0 for closed forms and SAT).
    pub iterations: u32,
}

impl Contact {
    /// Whether the shapes overlap or touch (`distance <= 0`).
    pub fn intersecting(&self) -> bool {
        self.distance <= 0.0
    }
}
