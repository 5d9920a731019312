//! parry3d 0.31 as a [`Method`]: `intersection_test`, `closest_points` (unbounded
//! margin) and `contact` (prediction 0), the f64 crate in the f64 build. Hulls are built
//! with `ConvexPolyhedron::from_convex_mesh` from the same vertices and (fanned) faces
//! every method gets.

use super::{Answer, Method, Outcome, PairRunner, PoseArray, Query, Spec};
#[cfg(not(feature = "f64"))]
use parry3d as p;
#[cfg(feature = "f64")]
use parry3d_f64 as p;

use p::math::{Pose, Real, Rotation, Vector};
use p::query::{self, ClosestPoints};
use p::shape::{Ball, Capsule, Cone, ConvexPolyhedron, Cuboid, Cylinder, Shape};

/// parry3d.
pub struct Parry;

struct Loaded {
    a: Box<dyn Shape>,
    b: Box<dyn Shape>,
}

pub(super) fn shape(s: &Spec) -> Option<Box<dyn Shape>> {
    let v = |a: [minkowski::Real; 3]| Vector::new(a[0] as Real, a[1] as Real, a[2] as Real);
    Some(match s {
        Spec::Sphere(r) => Box::new(Ball::new(*r as Real)),
        Spec::Box(h) => Box::new(Cuboid::new(v(*h))),
        Spec::Capsule(h, r) => Box::new(Capsule::new_y(*h as Real, *r as Real)),
        Spec::Cylinder(h, r) => Box::new(Cylinder::new(*h as Real, *r as Real)),
        Spec::Cone(h, r) => Box::new(Cone::new(*h as Real, *r as Real)),
        Spec::Hull { vertices, faces } => {
            let pts: Vec<Vector> = vertices.iter().map(|x| v(*x)).collect();
            let tris: Vec<[u32; 3]> = faces
                .iter()
                .flat_map(|f| (1..f.len().saturating_sub(1)).map(move |j| [f[0], f[j], f[j + 1]]))
                .collect();
            Box::new(ConvexPolyhedron::from_convex_mesh(pts, &tris)?)
        }
    })
}

pub(super) fn pose(p: &PoseArray) -> Pose {
    Pose::from_parts(
        Vector::new(p[0] as Real, p[1] as Real, p[2] as Real),
        Rotation::from_xyzw(p[3] as Real, p[4] as Real, p[5] as Real, p[6] as Real),
    )
}

fn f(v: Vector) -> [f64; 3] {
    [v.x as f64, v.y as f64, v.z as f64]
}

impl Method for Parry {
    fn name(&self) -> &'static str {
        "parry3d"
    }
    fn supports(&self, _: Query) -> bool {
        true
    }
    fn load(&self, a: &Spec, b: &Spec) -> Option<Box<dyn PairRunner>> {
        Some(Box::new(Loaded {
            a: shape(a)?,
            b: shape(b)?,
        }))
    }
}

impl PairRunner for Loaded {
    fn run(&self, q: Query, pa: &PoseArray, pb: &PoseArray) -> Outcome {
        let (pa, pb) = (pose(pa), pose(pb));
        let (a, b) = (&*self.a, &*self.b);
        match q {
            Query::Intersect => match query::intersection_test(&pa, a, &pb, b) {
                Ok(r) => Outcome::Hit(r.intersecting),
                Err(_) => Outcome::NoAnswer,
            },
            Query::Distance => match query::closest_points(&pa, a, &pb, b, Real::MAX) {
                Ok(ClosestPoints::WithinMargin(x, y)) => {
                    let d = y - x;
                    Outcome::Answer(Answer {
                        distance: d.length() as f64,
                        normal: f(d.normalize_or_zero()),
                        point_a: f(x),
                        point_b: f(y),
                    })
                }
                Ok(ClosestPoints::Intersecting) => Outcome::Answer(Answer {
                    distance: 0.0,
                    normal: [0.0; 3],
                    point_a: [f64::NAN; 3],
                    point_b: [f64::NAN; 3],
                }),
                _ => Outcome::NoAnswer,
            },
            Query::Penetration => match query::contact(&pa, a, &pb, b, 0.0) {
                Ok(Some(c)) => Outcome::Answer(Answer {
                    distance: c.dist as f64,
                    normal: f(c.normal1),
                    point_a: f(c.point1),
                    point_b: f(c.point2),
                }),
                _ => Outcome::NoAnswer,
            },
        }
    }
}
