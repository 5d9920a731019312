//! The methods of the side-by-side report behind one trait: minkowski itself, parry3d
//! (a Rust dependency) and Bullet, libccd, FCL and coal (C/C++ shims built by build.rs,
//! one cargo feature each; `peers` enables all).
//!
//! Precision is like for like: the f64 build runs parry3d-f64, Bullet's double build,
//! libccd, FCL and coal (all double); the f32 build runs parry3d and Bullet's float build
//! (libccd, FCL and coal have no single-precision build here and are left out).
//!
//! Every method is handed the same shapes ([`Spec`]) and the same poses, and answers in
//! one convention ([`Outcome`]): signed distance, unit normal from A towards B, and the
//! points on A and B, world frame.
//!
//! The rigid-body table (`dynamics-report`) has its own harness in the `dynamics`
//! module: minkowski-dynamics, rapier3d (feature `rapier`) and Bullet's dynamics world
//! (feature `bullet`) on the same scenes, f32 only.

pub mod broad;
pub mod cast;
#[cfg(feature = "bullet")]
mod cast_ffi;
mod cast_ours;
#[cfg(feature = "parry")]
mod cast_parry;
// The rigid-body table (`dynamics-report`): minkowski-dynamics is single precision, so
// none of it is in the f64 build.
#[cfg(not(feature = "f64"))]
pub mod dynamics;
#[cfg(all(feature = "bullet", not(feature = "f64")))]
pub mod dynamics_bullet;
#[cfg(not(feature = "f64"))]
pub mod dynamics_ours;
#[cfg(all(feature = "rapier", not(feature = "f64")))]
pub mod dynamics_rapier;
#[cfg(any(feature = "bullet", feature = "ccd", feature = "fcl", feature = "coal"))]
mod ffi;
mod ours;
#[cfg(feature = "parry")]
mod parry;
#[cfg(feature = "bullet")]
mod static_ffi;
mod static_ours;
#[cfg(feature = "parry")]
mod static_parry;
pub mod statics;

use minkowski::shape::{Capsule, Cone, ConvexPolyhedron, Cuboid, Cylinder, Shape, Sphere};
use minkowski::{Real, Vector};

/// A shape as every method receives it: minkowski's conventions (half extents, half
/// heights, axis +y, centred at mid-height), in the build's precision.
#[derive(Debug, Clone)]
pub enum Spec {
    /// Radius.
    Sphere(Real),
    /// Half extents.
    Box([Real; 3]),
    /// Half height of the segment, radius.
    Capsule(Real, Real),
    /// Half height, radius.
    Cylinder(Real, Real),
    /// Half height, base radius; apex at +y.
    Cone(Real, Real),
    /// A convex hull: its vertices and its faces (CCW from outside).
    Hull {
        /// Hull vertices.
        vertices: Vec<[Real; 3]>,
        /// Faces as vertex index lists.
        faces: Vec<Vec<u32>>,
    },
}

impl Spec {
    /// The hull of `points` (vertices and faces from minkowski's quickhull).
    pub fn hull(points: Vec<Vector>) -> Option<Spec> {
        let c = ConvexPolyhedron::new(points).ok()?;
        let h = c.hull();
        Some(Spec::Hull {
            vertices: h.vertices().iter().map(|v| v.to_array()).collect(),
            faces: h.faces().map(|f| f.to_vec()).collect(),
        })
    }

    /// minkowski's shape for this spec.
    pub fn shape(&self) -> Shape {
        let built: Result<Shape, _> = match self {
            Spec::Sphere(r) => Sphere::new(*r).map(Shape::from),
            Spec::Box(h) => Cuboid::new(Vector::from_array(*h)).map(Shape::from),
            Spec::Capsule(h, r) => Capsule::new(*h, *r).map(Shape::from),
            Spec::Cylinder(h, r) => Cylinder::new(*h, *r).map(Shape::from),
            Spec::Cone(h, r) => Cone::new(*h, *r).map(Shape::from),
            Spec::Hull { vertices, .. } => {
                ConvexPolyhedron::new(vertices.iter().map(|v| Vector::from_array(*v)).collect())
                    .map(Shape::from)
            }
        };
        // Specs are made from valid shapes; a failure here is a bug of the bench itself.
        built.unwrap_or_else(|e| panic!("invalid bench shape {self:?}: {e}"))
    }
}

/// A pose: translation x y z and unit quaternion x y z w (world from local).
pub type PoseArray = [Real; 7];

/// minkowski's pose for a [`PoseArray`].
pub fn pose(p: &PoseArray) -> minkowski::Pose {
    minkowski::Pose::new(
        minkowski::Rotation::from_xyzw(p[3], p[4], p[5], p[6]),
        Vector::new(p[0], p[1], p[2]),
    )
    .expect("valid pose")
}

/// The three timed queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Query {
    /// Boolean overlap test.
    Intersect,
    /// Separation distance and closest points.
    Distance,
    /// Signed distance with penetration depth, normal and deepest points.
    Penetration,
}

impl Query {
    /// Name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Query::Intersect => "intersect",
            Query::Distance => "distance",
            Query::Penetration => "penetration",
        }
    }
}

/// A geometric answer in the common convention (world frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Answer {
    /// Signed distance: > 0 apart, < 0 penetration depth.
    pub distance: f64,
    /// Unit normal from A towards B (zero if the method gave none).
    pub normal: [f64; 3],
    /// Point on A.
    pub point_a: [f64; 3],
    /// Point on B.
    pub point_b: [f64; 3],
}

/// What a method said.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// Intersection test result.
    Hit(bool),
    /// A geometric answer.
    Answer(Answer),
    /// The method ran but gave no answer (solver failure, or "apart" from a
    /// penetration-only method).
    NoAnswer,
}

/// A method with the two shapes of a pair class loaded.
pub trait PairRunner {
    /// Runs `query` at the given poses.
    fn run(&self, query: Query, pose_a: &PoseArray, pose_b: &PoseArray) -> Outcome;
}

/// One method of the report.
pub trait Method {
    /// Name in tables and plots.
    fn name(&self) -> &'static str;
    /// Whether the method answers `query` at all (libccd has no distance query).
    fn supports(&self, query: Query) -> bool;
    /// Loads two shapes; `None` if the method cannot represent one of them.
    fn load(&self, a: &Spec, b: &Spec) -> Option<Box<dyn PairRunner>>;
}

/// Every method this build has: minkowski first, then the enabled peers.
pub fn methods() -> Vec<Box<dyn Method>> {
    #[allow(unused_mut)]
    let mut m: Vec<Box<dyn Method>> = vec![Box::new(ours::Minkowski)];
    #[cfg(feature = "parry")]
    m.push(Box::new(parry::Parry));
    #[cfg(any(feature = "bullet", feature = "ccd", feature = "fcl", feature = "coal"))]
    m.extend(ffi::methods());
    m
}

/// The name of the method that everything is compared against.
pub const OURS: &str = "minkowski";

/// The peers this build was made with (feature names), for the report's header.
pub fn enabled_peers() -> Vec<&'static str> {
    let mut p = Vec::new();
    if cfg!(feature = "parry") {
        p.push("parry");
    }
    if cfg!(feature = "bullet") {
        p.push("bullet");
    }
    if cfg!(all(feature = "ccd", feature = "f64")) {
        p.push("ccd");
    }
    if cfg!(all(feature = "fcl", feature = "f64")) {
        p.push("fcl");
    }
    if cfg!(all(feature = "coal", feature = "f64")) {
        p.push("coal");
    }
    p
}

pub(crate) fn to_f64(v: [Real; 3]) -> [f64; 3] {
    [v[0] as f64, v[1] as f64, v[2] as f64]
}

/// Ends the process with `code` once standard output and error are flushed.
///
/// With both FCL (Debian's build) and coal (its wheel) loaded, each brings its own
/// `liboctomap`, and the C++ global destructors of the two copies free the same objects
/// at exit: glibc then aborts ("double free"), turning a finished report into a crash.
/// With those peers built in this skips the C/C++ exit handlers (`_exit`); the report is
/// already written and flushed, and nothing else is pending.
pub fn exit(code: i32) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    #[cfg(all(feature = "fcl", feature = "coal"))]
    {
        #[allow(unsafe_code)]
        {
            extern "C" {
                fn _exit(status: std::os::raw::c_int) -> !;
            }
            // SAFETY: `_exit` only ends the process; every Rust value's destructor that
            // matters (files, the report) has run or been flushed above.
            unsafe { _exit(code) }
        }
    }
    #[allow(unreachable_code)]
    std::process::exit(code)
}
