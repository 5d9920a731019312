//! minkowski's `query::cast_ray` (solid) and linear `query::cast_shapes` (target
//! distance 0, default options) as a [`CastMethod`].

use super::cast::{CastHit, CastMethod, CastOutcome, CastRunner, RayInput, RayRunner};
use super::{pose, to_f64, PoseArray, Spec};
use minkowski::query::{self, CastInput, Motion, QueryOptions, Ray, RayOptions, ShapePair};
use minkowski::shape::Shape;
use minkowski::{Real, Vector};

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

impl RayRunner for One {
    fn ray(&self, p: &PoseArray, r: &RayInput) -> CastOutcome {
        let ray = Ray::new(Vector::from_array(r.origin), Vector::from_array(r.dir));
        let options = RayOptions {
            max_toi: r.max_toi,
            solid: true,
        };
        match query::cast_ray(&self.0, &pose(p), &ray, &options) {
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
}

impl CastRunner for Two {
    fn cast(&self, pa: &PoseArray, pb: &PoseArray, v: &[Real; 3], max_toi: Real) -> CastOutcome {
        let pair = ShapePair::new(&self.0, pose(pa), &self.1, pose(pb));
        let mut input = CastInput::new(pair, Motion::ZERO, Motion::linear(Vector::from_array(*v)));
        input.max_toi = max_toi;
        match query::cast_shapes(&input, &QueryOptions::default()) {
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
}
