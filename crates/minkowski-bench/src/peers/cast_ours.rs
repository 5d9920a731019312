//! minkowski's `query::cast_ray` (solid) and linear `query::cast_shapes` (target
//! distance 0, default options) as a [`CastMethod`]. Prepared cases
//! ([`RayRunner::prepare`]) hold checked [`Pose`]s, built once as a caller keeps them.

use super::cast::{CastHit, CastMethod, CastOutcome, CastRunner, Prepared, RayInput, RayRunner};
use super::{pose, to_f64, PoseArray, Spec};
use crate::cast_suite::{CastCase, RayCase};
use minkowski::query::{
    self, CastError, CastInput, Motion, QueryOptions, Ray, RayCast, RayOptions, ShapeCast,
    ShapePair,
};
use minkowski::shape::Shape;
use minkowski::{Pose, Real, Vector};

/// minkowski itself.
pub struct Minkowski;

struct One(Shape);

struct Two(Shape, Shape);

impl CastMethod for Minkowski {
    fn name(&self) -> &'static str {
        super::OURS
    }
    fn load_ray(&self, s: &Spec) -> Option<Box<dyn RayRunner>> {
        Some(Box::new(One(s.shape())))
    }
    fn load_cast(&self, a: &Spec, b: &Spec) -> Option<Box<dyn CastRunner>> {
        Some(Box::new(Two(a.shape(), b.shape())))
    }
}

/// A ray query's input, built once.
fn ray_input(p: &PoseArray, r: &RayInput) -> (Pose, Ray, RayOptions) {
    let ray = Ray::new(Vector::from_array(r.origin), Vector::from_array(r.dir));
    let options = RayOptions {
        max_toi: r.max_toi,
        solid: true,
    };
    (pose(p), ray, options)
}

/// A ray query's answer in the common convention.
fn ray_outcome(answer: Result<RayCast, CastError>) -> CastOutcome {
    match answer {
        Ok(c) => match c.hit {
            Some(h) => CastOutcome::Hit(CastHit {
                toi: h.toi as f64,
                normal: to_f64(h.normal.to_array()),
                point_a: to_f64(h.point.to_array()),
                point_b: [f64::NAN; 3],
            }),
            None => CastOutcome::Miss,
        },
        Err(_) => CastOutcome::NoAnswer,
    }
}

impl RayRunner for One {
    fn ray(&self, p: &PoseArray, r: &RayInput) -> CastOutcome {
        let (pose, ray, options) = ray_input(p, r);
        ray_outcome(query::cast_ray(&self.0, &pose, &ray, &options))
    }
    fn prepare<'a>(&'a self, cases: &'a [RayCase]) -> Prepared<'a> {
        let inputs: Vec<_> = cases.iter().map(|c| ray_input(&c.pose, &c.ray)).collect();
        Box::new(move |i| {
            let (pose, ray, options) = &inputs[i];
            ray_outcome(query::cast_ray(&self.0, pose, ray, options))
        })
    }
}

/// A linear cast's answer in the common convention.
fn cast_outcome(answer: Result<ShapeCast, CastError>) -> CastOutcome {
    match answer {
        Ok(c) if c.hit => CastOutcome::Hit(CastHit {
            toi: c.toi as f64,
            normal: to_f64(c.normal.to_array()),
            point_a: to_f64(c.point_a.to_array()),
            point_b: to_f64(c.point_b.to_array()),
        }),
        Ok(_) => CastOutcome::Miss,
        Err(_) => CastOutcome::NoAnswer,
    }
}

impl Two {
    fn cast_posed(&self, pa: Pose, pb: Pose, v: &[Real; 3], max_toi: Real) -> CastOutcome {
        let pair = ShapePair::new(&self.0, pa, &self.1, pb);
        let mut input = CastInput::new(pair, Motion::ZERO, Motion::linear(Vector::from_array(*v)));
        input.max_toi = max_toi;
        cast_outcome(query::cast_shapes(&input, &QueryOptions::default()))
    }
}

impl CastRunner for Two {
    fn cast(&self, pa: &PoseArray, pb: &PoseArray, v: &[Real; 3], max_toi: Real) -> CastOutcome {
        self.cast_posed(pose(pa), pose(pb), v, max_toi)
    }
    fn prepare<'a>(&'a self, cases: &'a [CastCase]) -> Prepared<'a> {
        let poses: Vec<(Pose, Pose)> = cases.iter().map(|c| (pose(&c.a), pose(&c.b))).collect();
        Box::new(move |i| {
            let c = &cases[i];
            self.cast_posed(poses[i].0, poses[i].1, &c.velocity, c.max_toi)
        })
    }
}
