//! Bullet's `btHeightfieldTerrainShape` and `btBvhTriangleMeshShape`
//! (`shims/bullet_static.cpp`) as [`StaticMethod`]s: `bullet` (Bullet's defaults, zero
//! margins) and `bullet-fix` (with `btGenerateInternalEdgeInfo` at build and
//! `btAdjustInternalEdgeContacts` on every new contact; contacts only, its rays are
//! `bullet`'s). Rays: `btCollisionWorld::rayTestSingle` on the static object (the
//! heightfield's own `performRaycast` after `buildAccelerator()`, the mesh's BVH ray
//! walk). Contacts: the convex-concave collision algorithm a collision world would run,
//! made once per shape and reused with its manifold cleared before each query.
#![allow(unsafe_code)]

use super::cast::RayInput;
use super::ffi::{bullet_shape, Handle};
use super::statics::{
    Built, ContactPoint, Prober, RayAnswer, StaticHit, StaticMethod, StaticTarget,
};
use super::{PoseArray, Spec};
use crate::static_suite::Geometry;
use minkowski::Real;
use std::os::raw::{c_int, c_void};

extern "C" {
    fn mk_bullet_static_heap() -> usize;
    fn mk_bullet_static_field_new(
        rows: c_int,
        cols: c_int,
        heights: *const Real,
        sx: Real,
        sz: Real,
        origin: *const Real,
        fix: c_int,
    ) -> *mut c_void;
    fn mk_bullet_static_mesh_new(
        verts: *const Real,
        nverts: c_int,
        idx: *const c_int,
        ntris: c_int,
        fix: c_int,
    ) -> *mut c_void;
    fn mk_bullet_static_free(s: *mut c_void);
    fn mk_bullet_static_ray(
        s: *mut c_void,
        origin: *const Real,
        dir: *const Real,
        max_toi: Real,
        out: *mut Real,
    ) -> c_int;
    fn mk_bullet_static_prober_new(s: *mut c_void, shape: *mut c_void) -> *mut c_void;
    fn mk_bullet_static_prober_free(p: *mut c_void);
    fn mk_bullet_static_contacts(
        p: *mut c_void,
        pose: *const Real,
        out: *mut Real,
        cap: c_int,
    ) -> c_int;
}

/// Most points a query returns (Bullet's persistent manifold keeps 4; the
/// convex-concave algorithm uses one manifold).
const CAP: usize = 16;

struct Bullet {
    name: &'static str,
    fix: bool,
}

/// The Bullet static methods.
pub fn methods() -> Vec<Box<dyn StaticMethod>> {
    vec![
        Box::new(Bullet {
            name: "bullet",
            fix: false,
        }),
        Box::new(Bullet {
            name: "bullet-fix",
            fix: true,
        }),
    ]
}

struct Target {
    ptr: *mut c_void,
    fix: bool,
}

impl Drop for Target {
    fn drop(&mut self) {
        // SAFETY: from mk_bullet_static_*_new, freed once; probers borrow the target and
        // are dropped before it.
        unsafe { mk_bullet_static_free(self.ptr) }
    }
}

impl StaticMethod for Bullet {
    fn name(&self) -> &'static str {
        self.name
    }
    fn build(&self, geo: Geometry<'_>) -> Option<Built> {
        let fix = self.fix as c_int;
        // The inputs in the shim's layout, made before the measured window.
        let (flat, idx): (Vec<Real>, Vec<c_int>) = match geo {
            Geometry::Field(f) => (f.heights.clone(), Vec::new()),
            Geometry::Mesh(m) => (
                m.vertices.iter().flatten().copied().collect(),
                m.indices.iter().flatten().map(|&i| i as c_int).collect(),
            ),
        };
        // SAFETY: plain reads of glibc's counters.
        let before = unsafe { mk_bullet_static_heap() };
        // SAFETY: the arrays hold what the shim reads (rows · cols heights, or nverts
        // points and ntris triples) and live across the call; the shim copies them.
        let ptr = unsafe {
            match geo {
                Geometry::Field(f) => mk_bullet_static_field_new(
                    f.rows as c_int,
                    f.cols as c_int,
                    flat.as_ptr(),
                    f.cell[0],
                    f.cell[1],
                    f.origin.as_ptr(),
                    fix,
                ),
                Geometry::Mesh(m) => mk_bullet_static_mesh_new(
                    flat.as_ptr(),
                    m.vertices.len() as c_int,
                    idx.as_ptr(),
                    m.indices.len() as c_int,
                    fix,
                ),
            }
        };
        // SAFETY: as above.
        let after = unsafe { mk_bullet_static_heap() };
        if ptr.is_null() {
            return None;
        }
        Some(Built {
            target: Box::new(Target { ptr, fix: self.fix }),
            native_bytes: after.saturating_sub(before),
        })
    }
}

impl StaticTarget for Target {
    fn ray(&self, r: &RayInput) -> Option<RayAnswer> {
        if self.fix {
            return None;
        }
        let mut out: [Real; 4] = [0.0; 4];
        // SAFETY: a live target; origin and dir hold 3 numbers, out 4.
        let s = unsafe {
            mk_bullet_static_ray(
                self.ptr,
                r.origin.as_ptr(),
                r.dir.as_ptr(),
                r.max_toi,
                out.as_mut_ptr(),
            )
        };
        let o = out.map(|x| x as f64);
        Some(if s == 0 {
            RayAnswer::Hit(StaticHit {
                toi: o[0],
                normal: [o[1], o[2], o[3]],
            })
        } else {
            RayAnswer::Miss
        })
    }
    fn prober(&self, s: &Spec) -> Option<Box<dyn Prober + '_>> {
        let shape = bullet_shape(s)?;
        // SAFETY: a live target and shape; the prober is freed before both (field order).
        let ptr = unsafe { mk_bullet_static_prober_new(self.ptr, shape.ptr()) };
        (!ptr.is_null()).then(|| {
            Box::new(BulletProber {
                ptr,
                _shape: shape,
                _target: self,
                buf: [0.0; 7 * CAP],
                out: Vec::with_capacity(CAP),
            }) as Box<dyn Prober + '_>
        })
    }
}

/// A prober (declared before the shape it uses: dropped first).
struct BulletProber<'a> {
    ptr: *mut c_void,
    _shape: Handle,
    _target: &'a Target,
    buf: [Real; 7 * CAP],
    out: Vec<ContactPoint>,
}

impl Drop for BulletProber<'_> {
    fn drop(&mut self) {
        // SAFETY: from mk_bullet_static_prober_new, freed once.
        unsafe { mk_bullet_static_prober_free(self.ptr) }
    }
}

impl Prober for BulletProber<'_> {
    fn contacts(&mut self, pose: &PoseArray) -> &[ContactPoint] {
        // SAFETY: a live prober; the pose has 7 numbers, the buffer room for CAP points.
        let n = unsafe {
            mk_bullet_static_contacts(self.ptr, pose.as_ptr(), self.buf.as_mut_ptr(), CAP as c_int)
        };
        self.out.clear();
        for k in 0..n.max(0) as usize {
            let o = &self.buf[7 * k..7 * k + 7];
            let g = |i: usize| o[i] as f64;
            self.out.push(ContactPoint {
                dist: g(0),
                normal: [g(1), g(2), g(3)],
                point: [g(4), g(5), g(6)],
            });
        }
        &self.out
    }
}
