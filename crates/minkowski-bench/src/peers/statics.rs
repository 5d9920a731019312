//! The methods of the static-geometry report (`static-report`): a heightfield or a
//! triangle mesh built once, then rays and contact queries against it, each method
//! answering in one convention (world frame).
//!
//! One [`StaticMethod`] per column: minkowski ([`super::static_ours`]), parry3d with and
//! without its internal-edge fix and its single-contact `query::contact`, Bullet with and
//! without `btAdjustInternalEdgeContacts`. A method returns `None` for what it does not
//! (yet) have: the report then leaves the cell out.

use super::cast::RayInput;
use super::{PoseArray, Spec};
use crate::static_suite::Geometry;

/// A ray hit, world frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StaticHit {
    /// Time of impact (units of the ray's direction).
    pub toi: f64,
    /// Unit normal of the surface at the hit, facing the ray's origin.
    pub normal: [f64; 3],
}

/// What a ray query said.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RayAnswer {
    /// First hit in `[0, max_toi]`.
    Hit(StaticHit),
    /// No hit.
    Miss,
}

/// One contact point, world frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactPoint {
    /// Signed distance along the normal: < 0 penetration depth.
    pub dist: f64,
    /// Unit normal out of the static geometry, towards the convex shape.
    pub normal: [f64; 3],
    /// The point on the static geometry.
    pub point: [f64; 3],
}

/// A static geometry built by one method.
pub trait StaticTarget {
    /// Casts `ray` (world frame; the geometry sits where the suite put it). `None` if
    /// the method has no ray query for this geometry.
    fn ray(&self, ray: &RayInput) -> Option<RayAnswer>;
    /// A contact prober for `shape` against this geometry; `None` if the method has no
    /// contact query for it.
    fn prober(&self, shape: &Spec) -> Option<Box<dyn Prober + '_>>;
}

/// Contact queries of one convex shape against one static geometry.
pub trait Prober {
    /// The contact points with the shape at `pose` (a fresh query: nothing is kept from
    /// earlier calls), points with distance ≤ 0 only.
    fn contacts(&mut self, pose: &PoseArray) -> &[ContactPoint];
}

/// A geometry as built, with what the method itself says about its memory.
pub struct Built {
    /// The geometry.
    pub target: Box<dyn StaticTarget>,
    /// Bytes the method allocated outside Rust's allocator during the build (C/C++
    /// peers: glibc's `mallinfo2` delta), added to what the report's counting allocator
    /// saw.
    pub native_bytes: usize,
}

/// One column of the static report.
pub trait StaticMethod {
    /// Name in tables.
    fn name(&self) -> &'static str;
    /// Builds `geo`; `None` if the method has no such geometry (yet).
    fn build(&self, geo: Geometry<'_>) -> Option<Built>;
    /// Whether this method's build is another column's (same object, different query):
    /// its build row is left out.
    fn shares_build(&self) -> bool {
        false
    }
    /// Builds several geometries placed side by side as one scene queried at once (the
    /// seam slide's two fields), when the method has such a query; `None` (the default)
    /// builds and queries each on its own.
    fn build_scene(&self, geos: &[Geometry<'_>]) -> Option<Built> {
        let _ = geos;
        None
    }
}

/// Every static method this build has: minkowski first, then the enabled peers.
pub fn static_methods() -> Vec<Box<dyn StaticMethod>> {
    #[allow(unused_mut)]
    let mut m: Vec<Box<dyn StaticMethod>> = super::static_ours::methods();
    #[cfg(feature = "parry")]
    m.extend(super::static_parry::methods());
    #[cfg(feature = "bullet")]
    m.extend(super::static_ffi::methods());
    m
}
