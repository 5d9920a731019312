//! Bullet's ray test and convex casts (`shims/bullet_cast.cpp`) as [`CastMethod`]s:
//! `bullet-subsimplex` (rays: `rayTestSingle`, Bullet's default `btSubsimplexConvexCast`
//! of a point; casts: `btSubsimplexConvexCast`), `bullet-gjkcast` (rays: `rayTestSingle`
//! with `kF_UseGjkConvexCastRaytest`; casts: `btGjkConvexCast`) and `bullet-ccc` (casts
//! only: `btContinuousConvexCollision` without rotation).
#![allow(unsafe_code)]

use super::cast::{CastHit, CastMethod, CastOutcome, CastRunner, RayInput, RayRunner};
use super::ffi::{bullet_shape, Handle};
use super::{PoseArray, Spec};
use minkowski::Real;
use std::os::raw::{c_int, c_void};

extern "C" {
    fn mk_bullet_ray_target_new(shape: *mut c_void) -> *mut c_void;
    fn mk_bullet_ray_target_free(target: *mut c_void);
    fn mk_bullet_ray(
        variant: c_int,
        target: *mut c_void,
        pose: *const Real,
        origin: *const Real,
        dir: *const Real,
        max_toi: Real,
        out: *mut Real,
    ) -> c_int;
    fn mk_bullet_cast(
        variant: c_int,
        a: *const c_void,
        pa: *const Real,
        b: *const c_void,
        pb: *const Real,
        vel: *const Real,
        max_toi: Real,
        out: *mut Real,
    ) -> c_int;
}

const HIT: c_int = 0;
const MISS: c_int = 3;

struct Bullet {
    name: &'static str,
    variant: c_int,
    rays: bool,
}

/// The Bullet cast methods.
pub fn methods() -> Vec<Box<dyn CastMethod>> {
    vec![
        Box::new(Bullet {
            name: "bullet-subsimplex",
            variant: 0,
            rays: true,
        }),
        Box::new(Bullet {
            name: "bullet-gjkcast",
            variant: 1,
            rays: true,
        }),
        Box::new(Bullet {
            name: "bullet-ccc",
            variant: 2,
            rays: false,
        }),
    ]
}

/// A shape with its collision object (declared after the shape: dropped first).
struct RayTarget {
    variant: c_int,
    target: *mut c_void,
    _shape: Handle,
}

impl Drop for RayTarget {
    fn drop(&mut self) {
        // SAFETY: `target` came from mk_bullet_ray_target_new and is freed once, before
        // the shape it refers to.
        unsafe { mk_bullet_ray_target_free(self.target) }
    }
}

struct Pair {
    variant: c_int,
    a: Handle,
    b: Handle,
}

impl CastMethod for Bullet {
    fn name(&self) -> &'static str {
        self.name
    }
    fn load_ray(&self, s: &Spec) -> Option<Box<dyn RayRunner>> {
        if !self.rays {
            return None;
        }
        let shape = bullet_shape(s)?;
        // SAFETY: a live shape of the Bullet shim; the target is freed before it.
        let target = unsafe { mk_bullet_ray_target_new(shape.ptr()) };
        (!target.is_null()).then(|| {
            Box::new(RayTarget {
                variant: self.variant,
                target,
                _shape: shape,
            }) as Box<dyn RayRunner>
        })
    }
    fn load_cast(&self, a: &Spec, b: &Spec) -> Option<Box<dyn CastRunner>> {
        Some(Box::new(Pair {
            variant: self.variant,
            a: bullet_shape(a)?,
            b: bullet_shape(b)?,
        }))
    }
}

fn outcome(status: c_int, out: &[Real; 10]) -> CastOutcome {
    let o = out.map(|x| x as f64);
    match status {
        HIT => CastOutcome::Hit(CastHit {
            toi: o[0],
            normal: [o[1], o[2], o[3]],
            point_a: [o[4], o[5], o[6]],
            point_b: [o[7], o[8], o[9]],
        }),
        MISS => CastOutcome::Miss,
        _ => CastOutcome::NoAnswer,
    }
}

impl RayRunner for RayTarget {
    fn ray(&self, pose: &PoseArray, r: &RayInput) -> CastOutcome {
        let mut out: [Real; 10] = [0.0; 10];
        // SAFETY: a live target; the pose has 7 numbers, origin and dir 3, out 10.
        let s = unsafe {
            mk_bullet_ray(
                self.variant,
                self.target,
                pose.as_ptr(),
                r.origin.as_ptr(),
                r.dir.as_ptr(),
                r.max_toi,
                out.as_mut_ptr(),
            )
        };
        outcome(s, &out)
    }
}

impl CastRunner for Pair {
    fn cast(&self, pa: &PoseArray, pb: &PoseArray, v: &[Real; 3], max_toi: Real) -> CastOutcome {
        let mut out: [Real; 10] = [0.0; 10];
        // SAFETY: live shapes of the Bullet shim; poses 7 numbers, velocity 3, out 10.
        let s = unsafe {
            mk_bullet_cast(
                self.variant,
                self.a.ptr(),
                pa.as_ptr(),
                self.b.ptr(),
                pb.as_ptr(),
                v.as_ptr(),
                max_toi,
                out.as_mut_ptr(),
            )
        };
        outcome(s, &out)
    }
}
