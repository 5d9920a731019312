//! The one tolerance policy: how every query decides "touching" in floating point.
//!
//! # The problem's scale σ
//!
//! GJK and EPA subtract support points of A and B. A support point of `D = A ⊖ B` is
//! `w = a − b`, and its rounding error is set by the magnitudes of `a` and `b`, not by
//! `|w|`: two nearly touching shapes far from their frame's origin give a tiny `w` made
//! of large numbers. So every run keeps σ, the largest coordinate magnitude of the
//! source points (and of B's translation in A's frame) it has seen, plus the margins a
//! query adds back; closed forms use the largest coordinate of B's translation and of
//! both local boxes. Each arithmetic step on such numbers errs by at most a few `ε σ`
//! (`ε` the machine epsilon of [`Real`]).
//!
//! # The touching floor `τ σ`
//!
//! A distance at most `τ σ` is rounding: the sign of such a gap is not determined by
//! the input, so every query reports it as **touching** — distance 0 and
//! `intersecting = true` — and all four queries agree on it ([`touch_floor`],
//! [`touching_as_zero`]). `τ` is the absolute tolerance of the options
//! ([`DEFAULT_ABS_TOLERANCE`] `= 16 ε` by default), never below
//! [`MIN_ABS_TOLERANCE`] `= 4 ε`, what rounding alone reaches ([`abs_tolerance`]).
//!
//! # How each stage uses it
//!
//! * **GJK** stops when its upper bound `|v|` and lower bound `ℓ` meet within
//!   `ε_rel |v| + τ σ` ([`GJK_REL_TOLERANCE`]); `|v| ≤ τ σ` is contact. An intersection
//!   test answers "apart" only with a support point beyond the margin by more than
//!   `τ σ`, and a run that certified no gap but stalled within
//!   [`UNCERTIFIED_TOUCH`]` σ` of the margin is "touching", not "apart" (the true
//!   distance lies in `[ℓ, |v|]`, which holds the margin). A stall on a flat face of `D`
//!   (a tie) tilts the search direction by [`TIE_TILT`]. The outcome reaches callers as
//!   one typed value, [`crate::query::gjk::GjkOutcome`].
//! * **EPA** stops when its bounds meet within `ε_rel d + τ σ` ([`EPA_REL_TOLERANCE`]).
//!   Its polytope is computed in f64 in every build, and a face is kept only when a new
//!   vertex lies below it by more than that arithmetic's own floor,
//!   [`EPA_VISIBILITY`]` σ`, not `τ σ`: the polytope's vertices are exact f64 copies of
//!   the support points, so their rounding does not enter its convexity.
//! * **Contact** hands a GJK run that stopped short of its tolerance within
//!   [`NOISY_SEPARATION`]` σ` of touching to EPA, whose normals come from face edges
//!   (GJK's direction at that length is rounding noise).
//! * **Closed forms and the separating-axis test** decide touching with the same floor;
//!   the box–box test breaks ties between axes within [`SAT_SLACK`], and manifolds keep
//!   points within the touching floor of the margin.
//! * **Bounds carried between frames and grown boxes** (the world's separations, a
//!   compound's part boxes) allow [`SLACK`] floors, which also covers their own rounding.
//!
//! # Hulls: no tolerance
//!
//! The hull builders ([`crate::hull`]) use none of the above: every decision is the exact
//! sign of an orientation determinant of the input coordinates, with no floor and no
//! flushing of small coordinates, from subnormals up to the largest accepted magnitude.
//! Exactness is kept by placing each point set, by an exact power-of-two scaling, where
//! Shewchuk's floating-point predicates cannot underflow or overflow, and by evaluating
//! in integer arithmetic the rare tests whose coordinates do not fit there (the
//! `hull::predicates` module notes give the bounds and their proof).

use crate::math::{Real, EPSILON};

/// The least absolute tolerance, relative to σ: what rounding alone reaches (`4 ε`).
pub const MIN_ABS_TOLERANCE: Real = 4.0 * EPSILON;

/// The default absolute tolerance of GJK and EPA, relative to σ (`16 ε`).
pub const DEFAULT_ABS_TOLERANCE: Real = 16.0 * EPSILON;

/// GJK's default relative tolerance on the distance: 1e-5 (f32), 1e-11 (f64).
#[cfg(not(minkowski_f64))]
pub const GJK_REL_TOLERANCE: Real = 1e-5;
/// GJK's default relative tolerance on the distance: 1e-5 (f32), 1e-11 (f64).
#[cfg(minkowski_f64)]
pub const GJK_REL_TOLERANCE: Real = 1e-11;

/// How far (in units of `ε_rel σ`, GJK's relative tolerance times the problem's scale)
/// the separation along a separated contact's normal may fall short of its distance
/// before GJK runs again ([`GJK_NORMAL_TIGHTENING`]): above the `2 ε_rel R` a normal off
/// by GJK's certified angle costs on curved closest features, which a second run could
/// not improve (measured: cylinder–cone pairs near touching were 27% slower with every
/// shortfall above `ε_rel ‖v‖` rerun), far below the `√(2 ε_rel) σ` it costs on parallel
/// faces.
pub const GJK_NORMAL_SHORTFALL: Real = 8.0;

/// The factor on GJK's relative tolerance of a separated contact's second run, made
/// when the first one's normal measurably does not separate the shapes by the distance
/// (parallel faces: the normal's error is `√(2 ε_rel)`, the separation's `√(2 ε_rel) σ`).
/// `1e-6` takes the normal's error down by a factor 1000; a run that cannot reach it
/// stops on a stall instead (bounded by its iterations as always).
pub const GJK_NORMAL_TIGHTENING: Real = 1e-6;

/// EPA's default relative tolerance on the depth: 1e-5 (f32), 1e-10 (f64).
#[cfg(not(minkowski_f64))]
pub const EPA_REL_TOLERANCE: Real = 1e-5;
/// EPA's default relative tolerance on the depth: 1e-5 (f32), 1e-10 (f64).
#[cfg(minkowski_f64)]
pub const EPA_REL_TOLERANCE: Real = 1e-10;

/// How far beyond the margin (relative to σ) a GJK run that could not certify any gap
/// may end and still answer "touching": `√ε` in f32; 1e-6 in f64, where runs stalled on
/// exactly touching curved and flat shapes were seen ending at 2.8e-8 to 4.6e-8 σ with a
/// lower bound of 0.
#[cfg(not(minkowski_f64))]
pub const UNCERTIFIED_TOUCH: Real = 3.5e-4;
/// How far beyond the margin (relative to σ) a GJK run that could not certify any gap
/// may end and still answer "touching": `√ε` in f32; 1e-6 in f64, where runs stalled on
/// exactly touching curved and flat shapes were seen ending at 2.8e-8 to 4.6e-8 σ with a
/// lower bound of 0.
#[cfg(minkowski_f64)]
pub const UNCERTIFIED_TOUCH: Real = 1e-6;

/// How far (radians, about) GJK tilts its search direction to break a tie on a flat
/// face of `A ⊖ B`: about `4 √ε`. Any tilt breaks a tie between vertices far beyond
/// rounding, and it moves the support point of a curved surface by only
/// `r θ² / 2 ≈ 8 ε r`, within the touching floor.
#[cfg(not(minkowski_f64))]
pub const TIE_TILT: Real = 1.4e-3;
/// How far (radians, about) GJK tilts its search direction to break a tie on a flat
/// face of `A ⊖ B`: about `4 √ε`. Any tilt breaks a tie between vertices far beyond
/// rounding, and it moves the support point of a curved surface by only
/// `r θ² / 2 ≈ 8 ε r`, within the touching floor.
#[cfg(minkowski_f64)]
pub const TIE_TILT: Real = 6e-8;

/// How far below a face of EPA's polytope (relative to σ) a new vertex must lie for the
/// face to be kept (`16 ε` of f64, in every build; [`crate::query::epa`]).
///
/// The polytope's arithmetic is f64 whatever [`Real`] is, on exact copies of the
/// support points, so whether a point is above a face is decided to f64's rounding:
/// that, not the support points' own precision, is what the visibility test must
/// allow for. The f32 build once used its touching floor `τ σ` (16 ε of f32) here,
/// which on a Minkowski difference only a few floors thick (a triangle 2.1e-3 tall
/// against a disk 2000 wide and 5.9e-3 thick: a slab 8e-3 thick, floor 1.9e-3) treated
/// a face that the new vertex lay 1.1e-3 below as seen, fanned a sliver face across the
/// slab that failed the inversion guard, and stopped EPA on its first expansion with a
/// depth of 1000 along the disk's radius instead of 5e-6 across it. In the f64 build
/// this is the default `τ σ`, as before. (Whether `D` itself is flat is still judged
/// against `τ σ`: that is a question about the support points.)
pub const EPA_VISIBILITY: f64 = 16.0 * f64::EPSILON;

/// Below this separation (relative to σ) a GJK run that did not converge is handed to
/// EPA for its normal (`1024 ε`).
pub const NOISY_SEPARATION: Real = 1024.0 * EPSILON;

/// The separating-axis tests' rounding slack, relative to the coordinates' size
/// (`64 ε`): axes whose overlaps differ by less are ties, and a clip emptied by rounding
/// (faces meeting along a line) is redone with the side planes moved out by as much.
pub const SAT_SLACK: Real = 64.0 * EPSILON;

/// The box–box linear cast's bound on the rounding of one axis's projections, in units
/// of `ε σ` (`σ`: B's offset plus the largest half extents): each radius of the axis's
/// interval is widened by it, so the time of impact stays a lower bound; it also sets
/// which nearly parallel edge axes the cast keeps (longer than `4 ε / ε_rel`, see
/// `query/box_box_cast.rs`).
pub const BOX_CAST_ROUNDING: Real = 4.0;

/// The largest relative tolerance at which the box–box cast's closed form runs
/// (`query/box_box_cast.rs`): it treats two edges as parallel (no axis) when the sine
/// of their angle is at most the relative tolerance, so at a tolerance near 1 it would
/// skip edge axes that decide the cast. Above this it hands the cast to GJK.
pub const BOX_CAST_MAX_REL: Real = 1e-3;

/// How many touching floors a bound carried between frames, or a box grown for
/// pruning, allows for (which also covers the bound's or the box's own rounding).
pub const SLACK: Real = 4.0;

/// Problems smaller than this (σ: the larger bounding radius of the two shapes or the
/// largest coordinate of their offset, in length units) are scaled by a power of two to
/// about unit size before they are solved, and the answers scaled back (exactly: both
/// scalings are by powers of two).
///
/// Why: GJK's signed volumes are products of three coordinates, and the touching test
/// squares the floor `τσ`; both must stay normal numbers, `σ³ ≫ MIN_POSITIVE` and
/// `(τσ)² ≫ MIN_POSITIVE`. In f32 (`MIN_POSITIVE ≈ 1.2e-38`) the cubes fail below
/// `σ ≈ 2e-13`; in f64 (`≈ 2.2e-308`) below `σ ≈ 6e-103`. Measured before this rule: a
/// unit cylinder–cone penetration scaled to 1e-15 (f32) or 1e-150 (f64) was answered as
/// separated, and `tests/scale_invariance.rs` fails at 2⁻⁴⁰ in f32. The thresholds, 2⁻³²
/// (2.3e-10) and 2⁻²⁵⁶ (8.6e-78), keep a wide margin; no upper threshold is needed, as
/// [`crate::shape::MAX_MAGNITUDE`] keeps every cube finite.
#[cfg(not(minkowski_f64))]
pub const RESCALE_BELOW: Real = 1.0 / 4_294_967_296.0;
/// Problems smaller than this are scaled to unit size first (2⁻²⁵⁶ in f64, 2⁻³² in f32;
/// the derivation is on the f32 build's documentation of this constant).
#[cfg(minkowski_f64)]
pub const RESCALE_BELOW: Real = 8.636168555094445e-78;

/// The power of two that brings a problem of size `sigma` (length units) to about unit
/// size when it is below [`RESCALE_BELOW`], or `None` (no rescaling: `sigma` is large
/// enough, zero, or not finite). The factor is at most 2¹⁰⁰ in f32 and 2¹⁰⁰⁰ in f64, so
/// that it is finite; a problem smaller still comes out smaller than unit size, and is
/// scaled again.
pub fn rescale_factor(sigma: Real) -> Option<Real> {
    if !(sigma > 0.0 && sigma < RESCALE_BELOW) {
        return None;
    }
    let max_exp = if cfg!(minkowski_f64) { 1000 } else { 100 };
    // σ · 2^e ∈ [0.5, 2) (log2's rounding may move it by one power).
    let e = (-(sigma.log2().ceil()) as i32).clamp(1, max_exp);
    Some((2.0 as Real).powi(e))
}

/// Velocities and ray directions with every component below this (2⁻²⁰, in length
/// units per time unit) are solved in a longer time unit ([`time_rescale`]), and the
/// times scaled back (exactly: by powers of two); a time beyond the precision's range
/// is no hit. (The ball–ball cast's closed form tests its relative velocity's square
/// against this squared, from the value it computes anyway, and hands a tiny one to
/// the general path, which applies this rule.)
///
/// Why: times are in the velocity's unit, so a tiny velocity gives huge times, and the
/// products and squares of the velocity underflow or lose the answer. Measured before
/// this rule, in f32: two balls closing at 2⁻¹⁰⁰ units per time unit never met, a ray
/// at a ball with a direction of length 2⁻⁶⁶ missed it, and one at a box with a
/// subnormal direction hit at an infinite time (`tests/tiny_motions.rs`,
/// `tests/tiny_ray_directions.rs`). Scaling costs a vector compare in the common case.
pub const RESCALE_VELOCITY_BELOW: Real = 1.0 / 1_048_576.0;

/// The power of two `2^k` that brings a velocity whose largest component is `largest`
/// (`> 0`, below [`RESCALE_VELOCITY_BELOW`]) into `[1, 2)`: a time unit `2^k` times
/// longer. Given as two factors `[f1, f2]` with `f1 · f2 = 2^k`, each finite (`2^k`
/// itself overflows f32 for a subnormal `largest`); multiply by one, then the other.
pub fn time_rescale(largest: Real) -> [Real; 2] {
    let k = -(largest.log2().floor() as i32);
    [(2.0 as Real).powi(k / 2), (2.0 as Real).powi(k - k / 2)]
}

/// A time `toi` found in the longer time unit of [`time_rescale`] (its factors `[f1,
/// f2]`) back in the caller's unit: `None` when it lies past `max_toi` (caller's unit)
/// or beyond the precision's range (not finite): no hit. The one rule for rays and
/// casts.
pub fn time_from_rescaled(toi: Real, [f1, f2]: [Real; 2], max_toi: Real) -> Option<Real> {
    let t = toi * f1 * f2;
    (t <= max_toi && t.is_finite()).then_some(t)
}

/// The largest absolute tolerance honoured (relative to the problem's scale σ): at 1 a
/// gap as large as the shapes themselves already counts as touching, so anything larger
/// (or infinite) means nothing more.
pub const MAX_ABS_TOLERANCE: Real = 1.0;

/// The largest relative tolerance honoured: at 1 GJK's stop test `‖v‖ − lower ≤
/// ε_rel ‖v‖` passes at its first check, so a larger one (or an infinite one) means
/// nothing more.
pub const MAX_REL_TOLERANCE: Real = 1.0;

/// The most GJK iterations a run makes, whatever its options ask (an accelerated run
/// that does not converge finishes with a plain one of at least 8 more). A run that makes progress converges or stalls on rounding within a
/// few hundred iterations (f64, curved shapes, tolerance 0); the cap keeps a request of
/// `u32::MAX` from meaning "forever" on hostile input.
pub const MAX_GJK_ITERATIONS: u32 = 1 << 12;

/// The most vertices an EPA polytope may have, whatever its options ask (its faces are
/// capped at 16 times this: about 260 000 faces, a few tens of MB). With a relative
/// tolerance of 0, EPA on two curved shapes only stops at a cap, and `usize::MAX`
/// vertices would exhaust memory first.
pub const MAX_EPA_VERTICES: usize = 1 << 14;

/// The absolute tolerance actually used for a requested one: `requested` clamped to
/// [[`MIN_ABS_TOLERANCE`], [`MAX_ABS_TOLERANCE`]]; NaN gives the minimum.
#[inline]
pub fn abs_tolerance(requested: Real) -> Real {
    // Not `clamp`: it would pass NaN through.
    if requested >= MIN_ABS_TOLERANCE {
        requested.min(MAX_ABS_TOLERANCE)
    } else {
        MIN_ABS_TOLERANCE
    }
}

/// A query option outside the range it is honoured in (see
/// [`GjkOptions::validate`](crate::query::gjk::GjkOptions::validate),
/// [`EpaOptions::validate`](crate::query::epa::EpaOptions::validate) and
/// [`QueryOptions::validate`](crate::query::QueryOptions::validate)).
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("{options} option {field} must be in [{min}, {max}], got {value}")]
pub struct OptionsError {
    /// Which options: `"gjk"` or `"epa"`.
    pub options: &'static str,
    /// The offending field, e.g. `"rel_tolerance"`.
    pub field: &'static str,
    /// The least value honoured.
    pub min: f64,
    /// The largest value honoured.
    pub max: f64,
    /// The value given (a count converted to a float; beyond 2⁵³ it is rounded).
    pub value: f64,
}

/// `Ok` when the tolerance `value` lies in `[0, max]` (NaN fails).
pub(crate) fn check_tolerance(
    options: &'static str,
    field: &'static str,
    value: Real,
    max: Real,
) -> Result<(), OptionsError> {
    if value >= 0.0 && value <= max {
        return Ok(());
    }
    Err(OptionsError {
        options,
        field,
        min: 0.0,
        max: max as f64,
        value: value as f64,
    })
}

/// `Ok` when the count `value` lies in `min..=max`.
pub(crate) fn check_count(
    options: &'static str,
    field: &'static str,
    value: usize,
    min: usize,
    max: usize,
) -> Result<(), OptionsError> {
    if (min..=max).contains(&value) {
        return Ok(());
    }
    Err(OptionsError {
        options,
        field,
        min: min as f64,
        max: max as f64,
        value: value as f64,
    })
}

/// The relative tolerance actually used for a requested one: `requested` clamped to
/// [0, [`MAX_REL_TOLERANCE`]]; NaN gives 0 (stop only when rounding or a bound stops the
/// run). The comparisons that use it never see NaN or a negative tolerance, which would
/// make every stopping test fail.
#[inline]
pub fn rel_tolerance(requested: Real) -> Real {
    // Not `clamp`: it would pass NaN through.
    if requested > 0.0 {
        requested.min(MAX_REL_TOLERANCE)
    } else {
        0.0
    }
}

/// The touching floor `τ σ` (length units): the largest distance that counts as
/// touching for a problem of scale `sigma` with absolute tolerance `tau` (as returned
/// by [`abs_tolerance`]).
#[inline]
pub fn touch_floor(tau: Real, sigma: Real) -> Real {
    tau * sigma
}

/// A signed distance with separations within the touching `floor` reported as touching
/// (zero); penetrations and larger separations are kept.
#[inline]
pub fn touching_as_zero(distance: Real, floor: Real) -> Real {
    if distance > 0.0 && distance <= floor {
        0.0
    } else {
        distance
    }
}

/// The least angle (radians) between the normals of two triangles sharing an edge for
/// that edge to be *active* ([`crate::shape::triangle_set`]): a convex crease sharper than
/// this can carry contact normals of its own; flatter creases, concave ones and flat
/// tessellation seams cannot, so a shape sliding across them keeps the face normal
/// (no ghost collisions). 0.01 rad (0.57°) tolerates the rounding of meshes modelled as
/// flat while keeping the normal of a shape resting on a gentler convex crease within
/// 0.01 rad of the true one.
pub const ACTIVE_EDGE_ANGLE: Real = 0.01;

/// The cosine of [`ACTIVE_EDGE_ANGLE`] (a test checks that they agree).
#[allow(clippy::excessive_precision)] // the f64 digits, rounded in the f32 build
pub const ACTIVE_EDGE_COS: Real = 0.999_950_000_416_665_3;

/// How close (as the sine of an angle: the edge between them against the square to the
/// tangent, or relative to the triangle's size) two of a triangle's corners must be
/// along a contact normal's tangential part to count as an edge rather than a vertex,
/// or a point as on the triangle, and how far outside an edge's arc of normals a normal may
/// fall and still be the edge's ([`crate::shape::triangle_set`]): 1e-3, above the
/// direction noise of EPA's normals at f32's default tolerance (1e-5 relative) by a wide
/// margin and well below any crease that is active.
pub const FEATURE_TIE: Real = 1e-3;

/// How far from 1 the length of a user-given unit normal (a [`crate::shape::HalfSpace`]'s)
/// may be: 1e-3, the query protocol's allowance for normals written out to a few decimal
/// places (`[0.577, 0.577, 0.577]` has length 0.99993), and the same as
/// [`crate::math::ROTATION_NORM_TOLERANCE`] for quaternions. Within it the normal is
/// renormalised; beyond it the input is refused as a mistake rather than silently scaled
/// (a normal of length 2 would double every distance).
pub const NORMAL_LENGTH_TOLERANCE: Real = 1e-3;

/// The least ratio `2 A / L²` (twice a triangle's area over its longest edge squared —
/// about its height over its longest edge) of a triangle a [`crate::shape::TriMesh`]
/// accepts: `64 ε`. The cross product giving a triangle's normal errs by a few `ε L²`, so
/// below this its direction is rounding noise (at the threshold it is still within about
/// 1/64 rad); such a triangle is refused as degenerate, together with every triangle of
/// zero area.
pub const DEGENERATE_TRIANGLE: Real = 64.0 * EPSILON;

/// Below this sine of a triangle's largest corner angle (the angle between its two
/// shorter edges; about `√ε`), the closest point of the triangle to a point in its face
/// region is taken from its edges rather than by projecting on its plane: the plane's
/// normal, the cross product of those edges, errs by about `ε / sin θ` rad, the nearest
/// edge point by at most the triangle's height, below `sin θ L / 4`, and both come to
/// about `√ε L` here. A right-angled sliver (`sin θ = 1`) always projects
/// (`query/pair/point_triangle.rs`). 2⁻¹² (f32), 2⁻²⁶ (f64).
#[cfg(not(minkowski_f64))]
pub const SLIVER_TRIANGLE: Real = 1.0 / 4096.0;
/// Below this sine of a triangle's largest corner angle (the angle between its two
/// shorter edges; about `√ε`), the closest point of the triangle to a point in its face
/// region is taken from its edges rather than by projecting on its plane: the plane's
/// normal, the cross product of those edges, errs by about `ε / sin θ` rad, the nearest
/// edge point by at most the triangle's height, below `sin θ L / 4`, and both come to
/// about `√ε L` here. A right-angled sliver (`sin θ = 1`) always projects
/// (`query/pair/point_triangle.rs`). 2⁻¹² (f32), 2⁻²⁶ (f64).
#[cfg(minkowski_f64)]
pub const SLIVER_TRIANGLE: Real = 1.0 / 67_108_864.0;

/// Below this `|d̂ · n|` (the cosine between a ray and a face's normal) a ray grazes the
/// face: which side it meets, and where, is decided by rounding. A closed
/// [`crate::shape::TriMesh`] then does not trust the ray's first crossing to tell whether
/// its origin is inside, and asks the point-projection test instead
/// ([`crate::query::cast_ray_trimesh`]). About `√ε`: 3.5e-4 (f32), 1.5e-8 (f64) — far
/// above rounding, and rare enough among real rays that the extra test costs nothing on
/// average.
#[cfg(not(minkowski_f64))]
pub const RAY_GRAZING: Real = 3.5e-4;
/// Below this `|d̂ · n|` a ray grazes a face (see the f32 build's documentation):
/// 1.5e-8.
#[cfg(minkowski_f64)]
pub const RAY_GRAZING: Real = 1.5e-8;

/// How far (relative to a hull's size, the diagonal of its box) the corners of the
/// polyhedron bounded by a [`crate::shape::ConvexPolyhedron`]'s rounded face planes may
/// provably lie from its vertices for the ray cast to clip against those planes; beyond
/// it (hulls flat to rounding, knife edges, needle tips, where faces fold back on each
/// other) the planes are dropped and the GJK ray cast answers. 2⁻¹² (f32, about `√ε`),
/// 2⁻³⁰ (f64, well below the accuracy f64 answers are held to); on ordinary hulls the
/// bound is a few `ε`, far below either.
#[cfg(not(minkowski_f64))]
pub const PLANE_CLIP_DRIFT: Real = 1.0 / 4096.0;
/// How far the corners of a hull's rounded face planes may lie from its vertices for
/// the ray cast to clip against them (see the f32 build's documentation): 2⁻³⁰.
#[cfg(minkowski_f64)]
pub const PLANE_CLIP_DRIFT: Real = 1.0 / 1_073_741_824.0;

/// How far `‖q‖²` may be from `r²` (relative, `8 ε`) for a round surface's normal at
/// the offset `q` from its centre or axis to be taken as `q / r` (unit within `4 ε`;
/// `1 / r` is worked out off the chain of dependent square roots and divisions) rather
/// than normalised: the ray casts' closed forms (`query/ray.rs`), whose `q` carries the
/// rounding of a far origin only when that origin is far.
pub const RADIAL_BY_RADIUS: Real = 8.0 * EPSILON;

/// The steepest and flattest cones the closed-form ray cast takes
/// ([`crate::query::cast_ray`]): their slope `k = radius / (2 half_height)` must satisfy
/// `1/K ≤ k ≤ K` with `K` this bound (1e6). Beyond it (needles, discs, and the
/// degenerate `half_height = 0` or `radius = 0`) the quadric's coefficient `k²` spans 24
/// decades against the line's, which overflows f32 and leaves the shape's extent to
/// rounding; the GJK ray cast answers them instead.
pub const CONE_RAY_MAX_SLOPE: Real = 1e6;

/// How flat a base triangle of displaced terrain ([`crate::terrain::BaseTriangle`]) may be,
/// and how close to its plane a projection direction may lie, before it is refused: the
/// sine of the angle between its edges (`|E1 × E2| / (|E1| |E2|)`), and of the angle
/// between a direction and the plane, must exceed `64 ε`. Anything flatter is rounding
/// noise: the aligned plane divides by `N_i · Nb`, and the alpha plane's cubic loses its
/// leading terms.
pub const TERRAIN_MIN_SINE: Real = 64.0 * EPSILON;

/// How far outside the base triangle (in barycentric units) a backward projection's
/// `(u, v)` may fall and still count as inside (`64 ε`): a point on an edge shared by
/// two base triangles must be inside at least one of them despite rounding.
pub const BACKPROJECTION_INSIDE_SLACK: Real = 64.0 * EPSILON;

/// The largest miss, relative to the problem's scale σ (the triangle's longest edge, the
/// point's distance from the triangle and the length `|t n(u, v)|`, whichever is
/// largest), between a point and the forward projection of its backward projection for
/// the answer to count as a solution (`1024 ε`: about 1.2e-4 in f32, 2.3e-13 in f64).
/// The alpha plane and BFGS reach a few ε σ away from folds of the projection (where two
/// base points project to one point); the aligned plane misses by far more whenever the
/// directions are not parallel.
pub const BACKPROJECTION_RESIDUAL: Real = 1024.0 * EPSILON;

/// The farthest a point may be from a base triangle's first vertex, in units of the
/// triangle's longest edge, for a backward projection (2²⁰ ≈ 1.05e6). Terrain queries
/// are points near the triangle; the alpha plane's cubic has coefficients that grow
/// with this distance (and its roots with it), and BFGS's objective with its square.
pub const BACKPROJECTION_MAX_REACH: Real = 1_048_576.0;

/// The most Newton (or, when Newton would leave the bracket, bisection) steps spent on
/// one root of the alpha plane's cubic inside its monotone bracket; the steps actually
/// taken are reported (`iterations`). Newton from the bracket's Fourier end converges
/// monotonically, so the bound is reached only on pathological input.
pub const ALPHA_PLANE_MAX_ITERATIONS: u32 = 100;

/// The most Newton steps that polish a root of the alpha plane's cubic on the
/// determinant of Eq 3.4 evaluated directly (not through the expanded coefficients).
pub const ALPHA_PLANE_POLISH_ITERATIONS: u32 = 4;

/// The most BFGS iterations of one run of the aligned-projection-direction method
/// (Alg 5) from one start.
pub const BFGS_MAX_ITERATIONS: u32 = 64;

/// The most step halvings of one backtracking line search of the BFGS method.
pub const BFGS_MAX_BACKTRACKS: u32 = 60;

/// The sufficient-decrease (Armijo) constant of the BFGS line search: a step `a p` is
/// taken when `f(x + a p) ≤ f(x) + c a ∇f·p`.
pub const BFGS_ARMIJO: Real = 1e-4;

/// How far the early-out planes of a displaced-terrain base triangle
/// ([`crate::terrain::EarlyOutPlanes`]) are moved outward, relative to the problem's
/// scale (the largest of `P0`'s largest coordinate, the distances of the triangle's
/// forward-projected nodes from `P0`, and the planes' heights): `64 ε`. The heights they bound are computed with a few
/// roundings each (a forward projection, a dot product); moving the planes by this keeps
/// every surface point computed by the library between them.
pub const EARLY_OUT_SLACK: Real = 64.0 * EPSILON;

/// How far the bounding volumes of multiresolution terrain detection
/// ([`crate::terrain::multires_detection`]) are grown, relative to the volume's scale
/// (the largest coordinate magnitude of its points, floor included): `1024 ε`. It covers
/// the rounding of the volumes' points, of GJK's answer, and the `64 ε` by which the
/// alpha-plane backward projection lets `(u, v)` stray outside a triangle
/// ([`BACKPROJECTION_INSIDE_SLACK`]) times the triangle's size.
pub const TERRAIN_DETECTION_SLACK: Real = 1024.0 * EPSILON;

/// The relative precision to which the synthetic terrain generator
/// ([`crate::terrain::synthetic`]) ray-casts its analytic surface: a crossing is
/// bisected until its bracket (in units of the displacement `d`) is below this times
/// the larger of `|d|` and 1. `1e-6` in f32 builds is below their rounding (the bisection then stops
/// when the midpoint no longer moves); `1e-12` in f64 builds.
#[cfg(not(minkowski_f64))]
pub const SYNTHETIC_RAY_TOLERANCE: Real = 1e-6;
/// The relative precision of the synthetic generator's ray casts (see the f32 build's
/// documentation): `1e-12`.
#[cfg(minkowski_f64)]
pub const SYNTHETIC_RAY_TOLERANCE: Real = 1e-12;
/// The CCSA solver's default relative step tolerance ([`crate::optimize::CcsaOptions`]):
/// it stops when no variable moved by more than `1e-10 |x_j|` (plus the absolute
/// tolerance) in an accepted outer iteration. Tight enough that objectives agree with
/// exact solvers to 1e-7 relative or better on the terrain's bounding-volume problems.
pub const CCSA_X_TOLERANCE_REL: f64 = 1e-10;

/// The CCSA solver's default absolute step tolerance (1e-12, in the variables' units).
pub const CCSA_X_TOLERANCE_ABS: f64 = 1e-12;

/// The CCSA solver's default relative objective tolerance: it also stops when the
/// objective changed by at most `1e-14 |f0|` in an accepted outer iteration.
pub const CCSA_F_TOLERANCE_REL: f64 = 1e-14;

/// The largest constraint value `f_i(x)` (in the constraints' own units) a CCSA answer
/// may have and still count as feasible (1e-9). Callers scale their constraints so that
/// this means something (the terrain's volumes use signed distances in metres).
pub const CCSA_FEASIBILITY: f64 = 1e-9;

/// The relative accuracy to which each CCSA subproblem's dual is maximised (1e-13 of
/// the constraint's scale): Newton's method on the dual reaches it in a few steps, and
/// the outer tolerances above need subproblem answers about this accurate.
pub const CCSA_DUAL_TOLERANCE: f64 = 1e-13;

/// The half-width of each length's bounds in
/// [`crate::terrain::multires_volume`], in units of `max(5, spread of l + extent of
/// the quad / shortest r)`: 64. The optimum is normally within a few metres of `l`
/// (§3.5.7); far beyond means Fig 3.14's extreme case.
pub const MULTIRES_LENGTH_BOUND: f64 = 64.0;

/// How far a sample node may lie outside its cell's hull in
/// [`crate::terrain::multires_volume`]'s containment check and still count as inside,
/// relative to the quad's size (the largest coordinate magnitude of its nodes and
/// bounding vertices):
/// `1e-6` in `f32` (rounding of the stored lengths and positions), `1e-10` in `f64`.
#[cfg(not(minkowski_f64))]
pub const MULTIRES_CONTAINMENT_SLACK: f64 = 1e-6;
/// See the `f32` build: `1e-10` in `f64`.
#[cfg(minkowski_f64)]
pub const MULTIRES_CONTAINMENT_SLACK: f64 = 1e-10;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floors_and_rounding_to_zero() {
        assert_eq!(abs_tolerance(0.0), MIN_ABS_TOLERANCE);
        assert_eq!(abs_tolerance(Real::NAN), MIN_ABS_TOLERANCE);
        assert_eq!(abs_tolerance(-1.0), MIN_ABS_TOLERANCE);
        assert_eq!(abs_tolerance(Real::INFINITY), MAX_ABS_TOLERANCE);
        assert_eq!(rel_tolerance(Real::NAN), 0.0);
        assert_eq!(rel_tolerance(Real::NEG_INFINITY), 0.0);
        assert_eq!(rel_tolerance(Real::INFINITY), MAX_REL_TOLERANCE);
        assert_eq!(rel_tolerance(1e-5), 1e-5);
        assert_eq!(abs_tolerance(DEFAULT_ABS_TOLERANCE), DEFAULT_ABS_TOLERANCE);
        let floor = touch_floor(DEFAULT_ABS_TOLERANCE, 1e3);
        assert_eq!(touching_as_zero(floor * 0.5, floor), 0.0);
        assert_eq!(touching_as_zero(floor * 2.0, floor), floor * 2.0);
        assert_eq!(touching_as_zero(-1.0, floor), -1.0);
    }

    #[test]
    fn active_edge_cosine_matches_the_angle() {
        assert!((ACTIVE_EDGE_ANGLE.cos() - ACTIVE_EDGE_COS).abs() <= 2.0 * EPSILON);
    }
}
