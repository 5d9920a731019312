//! The C/C++ peers through the interface of `shims/shim.h`, one set of four functions
//! per library, and the [`Method`]s built on them.
#![allow(unsafe_code)]

use super::{Answer, Method, Outcome, PairRunner, PoseArray, Query, Spec};
use minkowski::Real;
use std::os::raw::{c_int, c_void};

/// The four entry points of one shim.
#[derive(Clone, Copy)]
struct Shim {
    shape_new: unsafe extern "C" fn(
        c_int,
        *const Real,
        *const Real,
        c_int,
        *const c_int,
        c_int,
    ) -> *mut c_void,
    shape_free: unsafe extern "C" fn(*mut c_void),
    intersect: unsafe extern "C" fn(
        c_int,
        *const c_void,
        *const Real,
        *const c_void,
        *const Real,
        *mut c_int,
    ) -> c_int,
    query: unsafe extern "C" fn(
        c_int,
        c_int,
        *const c_void,
        *const Real,
        *const c_void,
        *const Real,
        *mut Real,
    ) -> c_int,
}

macro_rules! shim {
    ($new:ident, $free:ident, $inter:ident, $query:ident) => {{
        // Linked by build.rs (cc emits the static library and the C++ runtime).
        extern "C" {
            fn $new(
                kind: c_int,
                params: *const Real,
                verts: *const Real,
                nverts: c_int,
                faces: *const c_int,
                nfaces: c_int,
            ) -> *mut c_void;
            fn $free(shape: *mut c_void);
            fn $inter(
                variant: c_int,
                a: *const c_void,
                pa: *const Real,
                b: *const c_void,
                pb: *const Real,
                hit: *mut c_int,
            ) -> c_int;
            fn $query(
                variant: c_int,
                query: c_int,
                a: *const c_void,
                pa: *const Real,
                b: *const c_void,
                pb: *const Real,
                out: *mut Real,
            ) -> c_int;
        }
        Shim {
            shape_new: $new,
            shape_free: $free,
            intersect: $inter,
            query: $query,
        }
    }};
}

const ANSWERED: c_int = 0;
const UNSUPPORTED: c_int = 2;

/// A shape owned by a shim.
pub(super) struct Handle {
    shim: Shim,
    ptr: *mut c_void,
}

impl Handle {
    fn new(shim: Shim, s: &Spec) -> Option<Handle> {
        let (kind, params, verts, faces, nfaces): (c_int, [Real; 3], Vec<Real>, Vec<c_int>, usize) =
            match s {
                Spec::Sphere(r) => (0, [*r, 0.0, 0.0], vec![], vec![], 0),
                Spec::Box(h) => (1, *h, vec![], vec![], 0),
                Spec::Capsule(h, r) => (2, [*h, *r, 0.0], vec![], vec![], 0),
                Spec::Cylinder(h, r) => (3, [*h, *r, 0.0], vec![], vec![], 0),
                Spec::Cone(h, r) => (4, [*h, *r, 0.0], vec![], vec![], 0),
                Spec::Hull { vertices, faces } => {
                    let mut list = Vec::new();
                    for f in faces {
                        list.push(f.len() as c_int);
                        list.extend(f.iter().map(|&i| i as c_int));
                    }
                    (
                        5,
                        [0.0; 3],
                        vertices.iter().flatten().copied().collect(),
                        list,
                        faces.len(),
                    )
                }
            };
        // SAFETY: the arrays live across the call and hold what shim.h describes (three
        // parameters, nverts points, a count-prefixed list of nfaces faces); the shim
        // copies what it keeps.
        let ptr = unsafe {
            (shim.shape_new)(
                kind,
                params.as_ptr(),
                verts.as_ptr(),
                (verts.len() / 3) as c_int,
                faces.as_ptr(),
                nfaces as c_int,
            )
        };
        (!ptr.is_null()).then_some(Handle { shim, ptr })
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from this shim's shape_new and is freed once.
        unsafe { (self.shim.shape_free)(self.ptr) }
    }
}

struct FfiMethod {
    name: &'static str,
    shim: Shim,
    variant: c_int,
    distance: bool,
}

struct Loaded {
    shim: Shim,
    variant: c_int,
    a: Handle,
    b: Handle,
}

impl Method for FfiMethod {
    fn name(&self) -> &'static str {
        self.name
    }
    fn supports(&self, q: Query) -> bool {
        q != Query::Distance || self.distance
    }
    fn load(&self, a: &Spec, b: &Spec) -> Option<Box<dyn PairRunner>> {
        Some(Box::new(Loaded {
            shim: self.shim,
            variant: self.variant,
            a: Handle::new(self.shim, a)?,
            b: Handle::new(self.shim, b)?,
        }))
    }
}

impl PairRunner for Loaded {
    fn run(&self, q: Query, pa: &PoseArray, pb: &PoseArray) -> Outcome {
        if q == Query::Intersect {
            let mut hit: c_int = 0;
            // SAFETY: handles are live shapes of this shim; poses are 7 numbers.
            let r = unsafe {
                (self.shim.intersect)(
                    self.variant,
                    self.a.ptr,
                    pa.as_ptr(),
                    self.b.ptr,
                    pb.as_ptr(),
                    &mut hit,
                )
            };
            return if r == ANSWERED {
                Outcome::Hit(hit != 0)
            } else {
                Outcome::NoAnswer
            };
        }
        let mut out: [Real; 10] = [0.0; 10];
        let which = if q == Query::Distance { 0 } else { 1 };
        // SAFETY: as above; `out` has the 10 numbers the shim writes.
        let r = unsafe {
            (self.shim.query)(
                self.variant,
                which,
                self.a.ptr,
                pa.as_ptr(),
                self.b.ptr,
                pb.as_ptr(),
                out.as_mut_ptr(),
            )
        };
        if r != ANSWERED {
            // `supports` keeps queries a peer lacks from being asked.
            debug_assert!(r != UNSUPPORTED, "{q:?} asked of a peer without it");
            return Outcome::NoAnswer;
        }
        let o = out.map(|x| x as f64);
        Outcome::Answer(Answer {
            distance: o[0],
            normal: [o[1], o[2], o[3]],
            point_a: [o[4], o[5], o[6]],
            point_b: [o[7], o[8], o[9]],
        })
    }
}

/// The C/C++ methods of this build.
pub fn methods() -> Vec<Box<dyn Method>> {
    #[allow(unused_mut)]
    let mut m: Vec<Box<dyn Method>> = Vec::new();
    #[cfg(feature = "bullet")]
    {
        let s = shim!(
            mk_bullet_shape_new,
            mk_bullet_shape_free,
            mk_bullet_intersect,
            mk_bullet_query
        );
        m.push(Box::new(FfiMethod {
            name: "bullet-gjk",
            shim: s,
            variant: 0,
            distance: true,
        }));
        m.push(Box::new(FfiMethod {
            name: "bullet-gjkepa2",
            shim: s,
            variant: 1,
            distance: true,
        }));
    }
    #[cfg(all(feature = "coal", feature = "f64"))]
    {
        let s = shim!(
            mk_coal_shape_new,
            mk_coal_shape_free,
            mk_coal_intersect,
            mk_coal_query
        );
        m.push(Box::new(FfiMethod {
            name: "coal",
            shim: s,
            variant: 0,
            distance: true,
        }));
        m.push(Box::new(FfiMethod {
            name: "coal-nesterov",
            shim: s,
            variant: 1,
            distance: true,
        }));
    }
    #[cfg(all(feature = "fcl", feature = "f64"))]
    {
        let s = shim!(
            mk_fcl_shape_new,
            mk_fcl_shape_free,
            mk_fcl_intersect,
            mk_fcl_query
        );
        m.push(Box::new(FfiMethod {
            name: "fcl",
            shim: s,
            variant: 0,
            distance: true,
        }));
    }
    #[cfg(all(feature = "ccd", feature = "f64"))]
    {
        let s = shim!(
            mk_ccd_shape_new,
            mk_ccd_shape_free,
            mk_ccd_intersect,
            mk_ccd_query
        );
        m.push(Box::new(FfiMethod {
            name: "libccd",
            shim: s,
            variant: 0,
            distance: false,
        }));
    }
    m
}

/// A Bullet shape (bullet.cpp's conventions and margins), for the cast methods.
#[cfg(feature = "bullet")]
pub(super) fn bullet_shape(s: &Spec) -> Option<Handle> {
    let shim = shim!(
        mk_bullet_shape_new,
        mk_bullet_shape_free,
        mk_bullet_intersect,
        mk_bullet_query
    );
    Handle::new(shim, s)
}

#[cfg(feature = "bullet")]
impl Handle {
    /// The shim's shape.
    pub(super) fn ptr(&self) -> *mut c_void {
        self.ptr
    }
}
