//! Bullet's `btDiscreteDynamicsWorld` (`shims/bullet_dynamics.cpp`, Debian's float
//! build) as an [`Engine`], built from a [`SceneSpec`].
//!
//! Step budget: Bullet's sequential-impulse solver does not substep, so its one step of
//! `dt` gets `numIterations` = minkowski's velocity iterations per step (substeps × (1 +
//! relax iterations) = 12 for every scene here), with Bullet's split-impulse position
//! correction. Single-threaded: the table reports it at one thread only. The shim's
//! notes say how shapes, margins, friction, sleeping and kinematic bodies are mapped.
#![allow(unsafe_code)]

use super::dynamics::{Engine, PartShape, SceneSpec};
use super::PoseArray;
use minkowski::Real;
use minkowski_dynamics::BodyKind;
use std::os::raw::{c_int, c_void};

extern "C" {
    fn mk_bullet_dyn_new(
        gravity: *const Real,
        dt: Real,
        iterations: c_int,
        sleep: c_int,
        lin_sleep: Real,
        ang_sleep: Real,
        time_to_sleep: Real,
    ) -> *mut c_void;
    fn mk_bullet_dyn_free(w: *mut c_void);
    fn mk_bullet_dyn_add_plane(
        w: *mut c_void,
        normal: *const Real,
        offset: Real,
        friction: Real,
        restitution: Real,
    ) -> c_int;
    fn mk_bullet_dyn_add_body(
        w: *mut c_void,
        kind: c_int,
        nparts: c_int,
        kinds: *const c_int,
        params: *const Real,
        poses: *const Real,
        compound: c_int,
        pose: *const Real,
        mass: Real,
        linvel: *const Real,
        angvel: *const Real,
        friction: Real,
        restitution: Real,
    ) -> c_int;
    fn mk_bullet_dyn_step(w: *mut c_void);
    fn mk_bullet_dyn_count(w: *mut c_void) -> c_int;
    fn mk_bullet_dyn_body(
        w: *mut c_void,
        i: c_int,
        pose: *mut Real,
        mass: *mut Real,
        awake: *mut c_int,
    );
}

/// The shim's kind codes (shim.h) and parameters of a part.
fn code(s: PartShape) -> (c_int, [Real; 3]) {
    match s {
        PartShape::Sphere(r) => (0, [r, 0.0, 0.0]),
        PartShape::Box(h) => (1, h),
        PartShape::Capsule(h, r) => (2, [h, r, 0.0]),
    }
}

/// Bullet on one scene.
pub struct Bullet {
    world: *mut c_void,
    local_centers: Vec<[Real; 3]>,
}

impl Drop for Bullet {
    fn drop(&mut self) {
        // SAFETY: made by mk_bullet_dyn_new, freed once.
        unsafe { mk_bullet_dyn_free(self.world) }
    }
}

impl Bullet {
    /// The scene in a Bullet world.
    ///
    /// # Errors
    /// A message when the shim refuses a body.
    pub fn new(spec: &SceneSpec) -> Result<Bullet, String> {
        let st = &spec.step;
        // SAFETY: `gravity` holds 3 numbers; the shim copies everything it is given.
        let world = unsafe {
            mk_bullet_dyn_new(
                st.gravity.as_ptr(),
                st.dt,
                st.velocity_iterations() as c_int,
                st.enable_sleep as c_int,
                st.sleep_linear,
                st.sleep_angular,
                st.time_to_sleep,
            )
        };
        let me = Bullet {
            world,
            local_centers: spec.bodies.iter().map(|b| b.local_center).collect(),
        };
        for p in &spec.planes {
            // SAFETY: a live world; `normal` holds 3 numbers.
            unsafe {
                mk_bullet_dyn_add_plane(
                    me.world,
                    p.normal.as_ptr(),
                    p.offset,
                    p.friction,
                    p.restitution,
                );
            }
        }
        for (i, b) in spec.bodies.iter().enumerate() {
            let kinds: Vec<c_int> = b.parts.iter().map(|p| code(p.shape).0).collect();
            let params: Vec<Real> = b.parts.iter().flat_map(|p| code(p.shape).1).collect();
            let poses: Vec<Real> = b.parts.iter().flat_map(|p| p.pose).collect();
            let kind = match b.kind {
                BodyKind::Dynamic => 0,
                BodyKind::Kinematic => 1,
                BodyKind::Static => 2,
            };
            // SAFETY: a live world; `kinds` holds nparts codes, `params` 3 and `poses` 7
            // numbers per part, `pose` 7, the velocities 3 each; the shim copies them.
            let got = unsafe {
                mk_bullet_dyn_add_body(
                    me.world,
                    kind,
                    kinds.len() as c_int,
                    kinds.as_ptr(),
                    params.as_ptr(),
                    poses.as_ptr(),
                    b.compound as c_int,
                    b.pose.as_ptr(),
                    b.mass,
                    b.linear_velocity.as_ptr(),
                    b.angular_velocity.as_ptr(),
                    b.friction,
                    b.restitution,
                )
            };
            if got != i as c_int {
                return Err(format!("Bullet refused body {i} ({:?})", b.parts));
            }
        }
        Ok(me)
    }

    fn body(&self, i: usize) -> (PoseArray, Real, bool) {
        let mut pose = [0.0; 7];
        let mut mass = 0.0;
        let mut awake: c_int = 0;
        // SAFETY: a live world and an index below its count; the out arrays are large
        // enough (7, 1, 1).
        unsafe {
            mk_bullet_dyn_body(
                self.world,
                i as c_int,
                pose.as_mut_ptr(),
                &mut mass,
                &mut awake,
            )
        };
        (pose, mass, awake != 0)
    }

    fn count(&self) -> usize {
        // SAFETY: a live world.
        unsafe { mk_bullet_dyn_count(self.world) as usize }
    }
}

impl Engine for Bullet {
    fn name(&self) -> &'static str {
        "bullet"
    }
    fn threads(&self) -> usize {
        1
    }
    fn step(&mut self) -> Result<(), String> {
        // SAFETY: a live world.
        unsafe { mk_bullet_dyn_step(self.world) };
        Ok(())
    }
    fn poses(&self) -> Vec<PoseArray> {
        (0..self.count()).map(|i| self.body(i).0).collect()
    }
    fn centers(&self) -> Vec<[Real; 3]> {
        (0..self.count())
            .map(|i| {
                // Not through `Pose::new`: a pose that blew up is reported, not refused.
                let p = self.body(i).0;
                let q = minkowski::Rotation::from_xyzw(p[3], p[4], p[5], p[6]);
                let c = self.local_centers.get(i).copied().unwrap_or([0.0; 3]);
                (q * minkowski::Vector::from_array(c) + minkowski::Vector::new(p[0], p[1], p[2]))
                    .to_array()
            })
            .collect()
    }
    fn masses(&self) -> Vec<Real> {
        (0..self.count()).map(|i| self.body(i).1).collect()
    }
    fn awake(&self) -> usize {
        (0..self.count()).filter(|&i| self.body(i).2).count()
    }
}
