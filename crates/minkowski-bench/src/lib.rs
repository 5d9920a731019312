//! Seeded benchmark scenarios for minkowski, shared by the criterion benches and the
//! `bench-table` report.
//!
//! A scenario is a pair of shapes and a fixed list of pose pairs in one configuration:
//! separated (0.25 apart), touching, or penetrating (0.1 deep), for shapes about one unit
//! in size. Poses are random rotations and directions from a seeded generator; the
//! placement along the contact normal uses the library's own `contact` query, which is
//! fine for timing (correctness is the tests' job).
// Casts to and from `Real` are no-ops in the f64 build.
#![allow(clippy::unnecessary_cast)]

// The `f64` feature measures the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use minkowski::query;
use minkowski::shape::{
    tessellation, Capsule, Cone, ConvexPolyhedron, Cuboid, Cylinder, Ellipsoid, PointShape,
    Pyramid, RoundedShape, Segment, Shape, Sphere, Triangle,
};
use minkowski::{Pose, Real, Rotation, Vector};

/// A small seeded generator (splitmix64).
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
    /// Uniform in [-1, 1).
    pub fn signed(&mut self) -> Real {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) as Real
    }
    /// A random unit vector.
    pub fn dir(&mut self) -> Vector {
        loop {
            let v = Vector::new(self.signed(), self.signed(), self.signed());
            let l = v.length();
            if l > 0.1 && l <= 1.0 {
                return v / l;
            }
        }
    }
    /// A random rotation.
    pub fn rotation(&mut self) -> Rotation {
        loop {
            let q = Rotation::from_xyzw(self.signed(), self.signed(), self.signed(), self.signed());
            let n = q.length();
            if n > 0.1 && n <= 1.0 {
                return q / n;
            }
        }
    }
}

/// How the two shapes of a scenario are placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Config {
    /// 0.25 apart.
    Separated,
    /// In contact (distance 0 within the tolerance).
    Touching,
    /// 0.1 deep.
    Penetrating,
}

impl Config {
    /// All three, in report order.
    pub const ALL: [Config; 3] = [Config::Separated, Config::Touching, Config::Penetrating];

    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            Config::Separated => "separated",
            Config::Touching => "touching",
            Config::Penetrating => "penetrating",
        }
    }

    fn target(self) -> Real {
        match self {
            Config::Separated => 0.25,
            Config::Touching => 0.0,
            Config::Penetrating => -0.1,
        }
    }
}

/// One shape of every registered type of the query protocol ([`Shape::TYPE_NAMES`]),
/// each about one unit in size, with its name in the tables: the hand-picked instances
/// below for the twelve types the committed tables were measured on (their names and
/// sizes are the tables' rows), then the
/// [`ConvexShape::example`](minkowski::shape::ConvexShape::example) of every type
/// registered since, under its protocol name.
pub fn primitive_shapes() -> Vec<(&'static str, Shape)> {
    let v = Vector::new;
    let cloud: Vec<Vector> = {
        let mut rng = Rng::new(32);
        (0..32).map(|_| rng.dir() * 0.5).collect()
    };
    let shapes: Vec<(&'static str, Result<Shape, minkowski::shape::ShapeError>)> = vec![
        ("sphere", Sphere::new(0.5).map(Shape::from)),
        ("cuboid", Cuboid::new(v(0.5, 0.4, 0.3)).map(Shape::from)),
        ("capsule", Capsule::new(0.4, 0.25).map(Shape::from)),
        ("cylinder", Cylinder::new(0.5, 0.4).map(Shape::from)),
        ("cone", Cone::new(0.5, 0.4).map(Shape::from)),
        ("pyramid", Pyramid::new(v(0.5, 0.5, 0.4)).map(Shape::from)),
        (
            "ellipsoid",
            Ellipsoid::new(v(0.5, 0.35, 0.25)).map(Shape::from),
        ),
        (
            "segment",
            Segment::new(v(-0.5, 0.0, 0.0), v(0.5, 0.1, 0.0)).map(Shape::from),
        ),
        (
            "triangle",
            Triangle::new(v(-0.5, 0.0, -0.3), v(0.5, 0.0, -0.3), v(0.0, 0.0, 0.5)).map(Shape::from),
        ),
        ("point", PointShape::new(Vector::ZERO).map(Shape::from)),
        ("convex32", ConvexPolyhedron::new(cloud).map(Shape::from)),
        (
            "rounded_box",
            Cuboid::new(v(0.4, 0.3, 0.2))
                .and_then(|c| RoundedShape::new(c.into(), 0.1))
                .map(Shape::from),
        ),
    ];
    let mut shapes: Vec<(&'static str, Shape)> = shapes
        .into_iter()
        .filter_map(|(n, s)| s.ok().map(|s| (n, s)))
        .collect();
    for example in Shape::examples() {
        if !shapes
            .iter()
            .any(|(_, s)| s.type_name() == example.type_name())
        {
            shapes.push((example.type_name(), example));
        }
    }
    shapes
}

/// Seed 000's meshes as point clouds: cube 8, cone 33, cylinder 64, sphere 482 vertices.
pub fn seed000_shapes() -> Vec<(&'static str, Shape)> {
    tessellation::seed000_shapes()
        .into_iter()
        .filter_map(|(n, pts)| ConvexPolyhedron::new(pts).ok().map(|c| (n, c.into())))
        .collect()
}

/// `n` pose pairs placing `b` relative to `a` in the given configuration.
pub fn poses(a: &Shape, b: &Shape, config: Config, n: usize, seed: u64) -> Vec<(Pose, Pose)> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let pa = Pose::new(rng.rotation(), Vector::ZERO).expect("valid pose");
            let mut pb = Pose::new(rng.rotation(), rng.dir() * 3.0).expect("valid pose");
            let c = query::contact(a, &pa, b, &pb);
            pb = pb
                .translated(c.normal * (config.target() - c.distance))
                .expect("valid pose");
            (pa, pb)
        })
        .collect()
}

/// Median nanoseconds per call of `f` over `poses`, from `rounds` timed passes.
pub fn median_ns(rounds: usize, poses: &[(Pose, Pose)], mut f: impl FnMut(&Pose, &Pose)) -> f64 {
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t = std::time::Instant::now();
        for (pa, pb) in poses {
            f(pa, pb);
        }
        samples.push(t.elapsed().as_nanos() as f64 / poses.len().max(1) as f64);
    }
    samples.sort_by(|x, y| x.total_cmp(y));
    samples.get(samples.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Seeded 3D point distributions for the hull benchmarks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cloud {
    /// Uniform in the unit ball: most points are interior (about n^(1/3) of them are
    /// on the hull).
    Ball,
    /// On the unit sphere: every point is a hull vertex.
    Sphere,
}

impl Cloud {
    /// Name used in tables and file names.
    pub fn name(self) -> &'static str {
        match self {
            Cloud::Ball => "ball",
            Cloud::Sphere => "sphere",
        }
    }

    /// `n` points of this distribution from `seed`.
    pub fn points(self, n: usize, seed: u64) -> Vec<Vector> {
        let mut rng = Rng::new(seed);
        (0..n)
            .map(|_| {
                let d = rng.dir();
                match self {
                    Cloud::Sphere => d,
                    Cloud::Ball => {
                        let u = (rng.signed() as f64 * 0.5 + 0.5).cbrt() as Real;
                        d * u
                    }
                }
            })
            .collect()
    }
}

/// Seeded 2D point distributions of seed 003's Figure 11.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cloud2d {
    /// Uniform in the unit disc.
    Disc,
    /// On the unit circle: every point is a hull vertex.
    Circle,
    /// Uniform in the square [-1, 1]².
    Square,
}

impl Cloud2d {
    /// Every distribution.
    pub const ALL: [Cloud2d; 3] = [Cloud2d::Disc, Cloud2d::Circle, Cloud2d::Square];

    /// Name used in tables, plots and file names.
    pub fn name(self) -> &'static str {
        match self {
            Cloud2d::Disc => "uniform disc",
            Cloud2d::Circle => "on circle",
            Cloud2d::Square => "square",
        }
    }

    /// `n` points of this distribution from `seed`.
    pub fn points(self, n: usize, seed: u64) -> Vec<minkowski::math::Vector2> {
        use minkowski::math::Vector2;
        let mut rng = Rng::new(seed);
        (0..n)
            .map(|_| {
                let a = rng.signed() as f64 * std::f64::consts::PI;
                match self {
                    Cloud2d::Disc => {
                        let r = (rng.signed() as f64 * 0.5 + 0.5).sqrt();
                        Vector2::new((r * a.cos()) as Real, (r * a.sin()) as Real)
                    }
                    Cloud2d::Circle => Vector2::new(a.cos() as Real, a.sin() as Real),
                    Cloud2d::Square => Vector2::new(rng.signed(), rng.signed()),
                }
            })
            .collect()
    }
}

pub mod cast_suite;
pub mod peers;
pub mod reference;
pub mod static_oracle;
pub mod static_suite;
pub mod suite;
pub mod terrain_suite;
