//! The methods of the ray and shape-cast report (`cast-report`) behind a second pair of
//! runner traits, next to the pair queries' [`super::Method`]: minkowski, parry3d and
//! Bullet (the shim's convex casts), each loading a shape for rays or two shapes for
//! linear casts, and answering in one convention ([`CastOutcome`], world frame).
//!
//! A ray is `origin + t · dir` for `t` in `[0, max_toi]`, solid shapes (a ray starting
//! inside hits at 0). A cast moves B at `velocity` for `t` in `[0, max_toi]`, A still,
//! to contact (target distance 0).

use super::{PoseArray, Spec};
use crate::cast_suite::{CastCase, RayCase};
use minkowski::Real;

/// A hit in the common convention (world frame). Fields a method does not give are NaN.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CastHit {
    /// Time of impact (units of the ray's `dir`, or of the velocity's time unit).
    pub toi: f64,
    /// Rays: the outward unit normal of the shape at the hit. Casts: the unit normal from
    /// A towards B at the time of impact.
    pub normal: [f64; 3],
    /// Rays: the hit point. Casts: the point of A at the time of impact.
    pub point_a: [f64; 3],
    /// Casts: the point of B (moved to the time of impact). Rays: NaN.
    pub point_b: [f64; 3],
}

impl CastHit {
    /// A hit at `toi` with nothing else given.
    pub fn at(toi: f64) -> CastHit {
        CastHit {
            toi,
            normal: [f64::NAN; 3],
            point_a: [f64::NAN; 3],
            point_b: [f64::NAN; 3],
        }
    }
}

/// What a method said.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CastOutcome {
    /// A hit in the interval.
    Hit(CastHit),
    /// No hit in the interval.
    Miss,
    /// The method ran but gave no answer (solver failure).
    NoAnswer,
}

/// A ray, world frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayInput {
    /// Start.
    pub origin: [Real; 3],
    /// Direction (unit length in the report's cases; times are in its units).
    pub dir: [Real; 3],
    /// End of the interval searched.
    pub max_toi: Real,
}

/// Case `i` of a prepared set, answered: see [`RayRunner::prepare`].
pub type Prepared<'a> = Box<dyn Fn(usize) -> CastOutcome + 'a>;

/// A method with one shape loaded, casting rays at it.
pub trait RayRunner {
    /// Casts `ray` at the shape placed at `pose`.
    fn ray(&self, pose: &PoseArray, ray: &RayInput) -> CastOutcome;

    /// The cases turned once into the method's own poses and rays (what a caller keeps
    /// stored: the report times the query, not building its inputs), and the function
    /// answering case `i` from them as [`ray`](Self::ray) would. The default keeps the
    /// arrays (for a method whose query takes them as they are).
    fn prepare<'a>(&'a self, cases: &'a [RayCase]) -> Prepared<'a> {
        Box::new(move |i| self.ray(&cases[i].pose, &cases[i].ray))
    }
}

/// A method with two shapes loaded, casting B (moving at `velocity`) against A (still).
pub trait CastRunner {
    /// The first time of contact in `[0, max_toi]`.
    fn cast(
        &self,
        pose_a: &PoseArray,
        pose_b: &PoseArray,
        velocity: &[Real; 3],
        max_toi: Real,
    ) -> CastOutcome;

    /// The cases turned once into the method's own poses and velocities, as
    /// [`RayRunner::prepare`]; the default keeps the arrays.
    fn prepare<'a>(&'a self, cases: &'a [CastCase]) -> Prepared<'a> {
        Box::new(move |i| {
            let c = &cases[i];
            self.cast(&c.a, &c.b, &c.velocity, c.max_toi)
        })
    }
}

/// One method of the cast report.
pub trait CastMethod {
    /// Name in tables.
    fn name(&self) -> &'static str;
    /// Loads a shape for rays; `None` if the method has no ray cast or cannot represent
    /// the shape.
    fn load_ray(&self, shape: &Spec) -> Option<Box<dyn RayRunner>>;
    /// Loads two shapes for linear casts; `None` if the method has no such cast or
    /// cannot represent a shape.
    fn load_cast(&self, a: &Spec, b: &Spec) -> Option<Box<dyn CastRunner>>;
}

/// Every cast method this build has: minkowski first, then the enabled peers.
pub fn cast_methods() -> Vec<Box<dyn CastMethod>> {
    #[allow(unused_mut)]
    let mut m: Vec<Box<dyn CastMethod>> = vec![Box::new(super::cast_ours::Minkowski)];
    #[cfg(feature = "parry")]
    m.push(Box::new(super::cast_parry::Parry));
    #[cfg(feature = "bullet")]
    m.extend(super::cast_ffi::methods());
    m
}
