//! parry3d 0.31 as a [`CastMethod`]: `RayCast::cast_ray_and_get_normal` (solid) and
//! `query::cast_shapes` with `ShapeCastOptions` (target distance 0, stop at
//! penetration, impact geometry on penetration), the f64 crate in the f64 build. The
//! shapes are parry.rs's (hulls from the same vertices and faces).

use super::cast::{CastHit, CastMethod, CastOutcome, CastRunner, Prepared, RayInput, RayRunner};
use super::parry::{pose, shape};
use super::{PoseArray, Spec};
use crate::cast_suite::{CastCase, RayCase};
#[cfg(not(feature = "f64"))]
use parry3d as p;
#[cfg(feature = "f64")]
use parry3d_f64 as p;

use p::math::{Pose, Real, Vector};
use p::query::{self, Ray, ShapeCastOptions};
use p::shape::Shape;

/// parry3d.
pub struct Parry;

struct One(Box<dyn Shape>);

struct Two(Box<dyn Shape>, Box<dyn Shape>);

fn v(a: &[minkowski::Real; 3]) -> Vector {
    Vector::new(a[0] as Real, a[1] as Real, a[2] as Real)
}

fn f(v: Vector) -> [f64; 3] {
    [v.x as f64, v.y as f64, v.z as f64]
}

impl CastMethod for Parry {
    fn name(&self) -> &'static str {
        "parry3d"
    }
    fn load_ray(&self, s: &Spec) -> Option<Box<dyn RayRunner>> {
        Some(Box::new(One(shape(s)?)))
    }
    fn load_cast(&self, a: &Spec, b: &Spec) -> Option<Box<dyn CastRunner>> {
        Some(Box::new(Two(shape(a)?, shape(b)?)))
    }
}

/// A ray query's answer in the common convention.
fn ray_outcome(ray: &Ray, hit: Option<p::query::RayIntersection>) -> CastOutcome {
    match hit {
        Some(i) => CastOutcome::Hit(CastHit {
            toi: i.time_of_impact as f64,
            normal: f(i.normal),
            point_a: f(ray.point_at(i.time_of_impact)),
            point_b: [f64::NAN; 3],
        }),
        None => CastOutcome::Miss,
    }
}

impl RayRunner for One {
    fn ray(&self, p: &PoseArray, r: &RayInput) -> CastOutcome {
        let ray = Ray::new(v(&r.origin), v(&r.dir));
        let hit = self
            .0
            .cast_ray_and_get_normal(&pose(p), &ray, r.max_toi as Real, true);
        ray_outcome(&ray, hit)
    }
    fn prepare<'a>(&'a self, cases: &'a [RayCase]) -> Prepared<'a> {
        let inputs: Vec<(Pose, Ray, Real)> = cases
            .iter()
            .map(|c| {
                let r = &c.ray;
                (
                    pose(&c.pose),
                    Ray::new(v(&r.origin), v(&r.dir)),
                    r.max_toi as Real,
                )
            })
            .collect();
        Box::new(move |i| {
            let (pose, ray, max_toi) = &inputs[i];
            ray_outcome(
                ray,
                self.0.cast_ray_and_get_normal(pose, ray, *max_toi, true),
            )
        })
    }
}

impl Two {
    fn cast_posed(&self, pa: Pose, pb: Pose, vel: Vector, max_toi: minkowski::Real) -> CastOutcome {
        let options = ShapeCastOptions {
            max_time_of_impact: max_toi as Real,
            target_distance: 0.0,
            stop_at_penetration: true,
            compute_impact_geometry_on_penetration: true,
        };
        match query::cast_shapes(&pa, Vector::ZERO, &*self.0, &pb, vel, &*self.1, options) {
            // Witnesses and normals come in each shape's local frame at the time of
            // impact (A does not move; B has moved by vel · toi).
            Ok(Some(h)) => CastOutcome::Hit(CastHit {
                toi: h.time_of_impact as f64,
                normal: f(pa.rotation * h.normal1),
                point_a: f(pa * h.witness1),
                point_b: f(pb * h.witness2 + vel * h.time_of_impact),
            }),
            Ok(None) => CastOutcome::Miss,
            Err(_) => CastOutcome::NoAnswer,
        }
    }
}

impl CastRunner for Two {
    fn cast(
        &self,
        pa: &PoseArray,
        pb: &PoseArray,
        vel: &[minkowski::Real; 3],
        max_toi: minkowski::Real,
    ) -> CastOutcome {
        self.cast_posed(pose(pa), pose(pb), v(vel), max_toi)
    }
    fn prepare<'a>(&'a self, cases: &'a [CastCase]) -> Prepared<'a> {
        let inputs: Vec<(Pose, Pose, Vector)> = cases
            .iter()
            .map(|c| (pose(&c.a), pose(&c.b), v(&c.velocity)))
            .collect();
        Box::new(move |i| {
            let (pa, pb, vel) = inputs[i];
            self.cast_posed(pa, pb, vel, cases[i].max_toi)
        })
    }
}
