//! minkowski's own queries, as a [`Method`]: `intersects`, `closest_points` and `contact`
//! from the shape dispatcher, cold (no warm-start cache), default options.

use super::{pose, to_f64, Answer, Method, Outcome, PairRunner, PoseArray, Query, Spec};
use minkowski::query;
use minkowski::shape::Shape;

/// minkowski itself.
pub struct Minkowski;

struct Loaded {
    a: Shape,
    b: Shape,
}

impl Method for Minkowski {
    fn name(&self) -> &'static str {
        super::OURS
    }
    fn supports(&self, _: Query) -> bool {
        true
    }
    fn load(&self, a: &Spec, b: &Spec) -> Option<Box<dyn PairRunner>> {
        Some(Box::new(Loaded {
            a: a.shape(),
            b: b.shape(),
        }))
    }
}

impl PairRunner for Loaded {
    fn run(&self, q: Query, pa: &PoseArray, pb: &PoseArray) -> Outcome {
        let (pa, pb) = (pose(pa), pose(pb));
        match q {
            Query::Intersect => Outcome::Hit(query::intersects(&self.a, &pa, &self.b, &pb)),
            Query::Distance => {
                let c = query::closest_points(&self.a, &pa, &self.b, &pb);
                Outcome::Answer(Answer {
                    distance: c.distance as f64,
                    normal: to_f64(c.normal.to_array()),
                    point_a: to_f64(c.point_a.to_array()),
                    point_b: to_f64(c.point_b.to_array()),
                })
            }
            Query::Penetration => {
                let c = query::contact(&self.a, &pa, &self.b, &pb);
                Outcome::Answer(Answer {
                    distance: c.distance as f64,
                    normal: to_f64(c.normal.to_array()),
                    point_a: to_f64(c.point_a.to_array()),
                    point_b: to_f64(c.point_b.to_array()),
                })
            }
        }
    }
}
