//! The side-by-side suite: pair classes, placements, seeded cases, and the agreement
//! check of every method's answer against [`crate::reference`].

use crate::peers::{Answer, Method, Outcome, PairRunner, PoseArray, Query, Spec};
use crate::reference::{self, Geo, Placed, Reference};
use crate::Rng;
use glam::DVec3;
use minkowski::shape::tessellation;
use minkowski::{query, Pose, Real, Vector};

/// A pair of shapes, every case of which uses the same two shapes.
pub struct PairClass {
    /// Name in tables (`box–box`, `hull 128`, …).
    pub name: String,
    /// Shape A.
    pub a: Spec,
    /// Shape B.
    pub b: Spec,
    /// Both shapes are polytopes (the reference is exact in contact).
    pub polytopes: bool,
}

/// How the two shapes of a case are placed (signed distance targets for unit-size shapes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Placement {
    /// 0.25 apart.
    Separated,
    /// 1e-5 apart.
    NearTouching,
    /// 0.01 deep.
    Shallow,
    /// 0.2 deep.
    Deep,
}

impl Placement {
    /// All four, in report order.
    pub const ALL: [Placement; 4] = [
        Placement::Separated,
        Placement::NearTouching,
        Placement::Shallow,
        Placement::Deep,
    ];
    /// Name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Placement::Separated => "separated",
            Placement::NearTouching => "near-touching",
            Placement::Shallow => "shallow",
            Placement::Deep => "deep",
        }
    }
    /// Target signed distance.
    pub fn target(self) -> Real {
        match self {
            Placement::Separated => 0.25,
            Placement::NearTouching => 1e-5,
            Placement::Shallow => -0.01,
            Placement::Deep => -0.2,
        }
    }
    /// The queries timed and checked for this placement: the intersection test always,
    /// then distance with closest points apart, penetration depth overlapping.
    pub fn queries(self) -> [Query; 2] {
        match self {
            Placement::Separated | Placement::NearTouching => [Query::Intersect, Query::Distance],
            Placement::Shallow | Placement::Deep => [Query::Intersect, Query::Penetration],
        }
    }
}

/// Points on a sphere of radius 0.5 (all of them hull vertices).
pub fn sphere_points(n: usize, seed: u64) -> Vec<Vector> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.dir() * 0.5).collect()
}

/// Hull–hull class with `n`-vertex hulls.
pub fn hull_class(n: usize) -> PairClass {
    let a = Spec::hull(sphere_points(n, 1000 + n as u64));
    let b = Spec::hull(sphere_points(n, 2000 + n as u64));
    PairClass {
        name: format!("hull {n}"),
        a: a.unwrap_or(Spec::Sphere(0.5)),
        b: b.unwrap_or(Spec::Sphere(0.5)),
        polytopes: true,
    }
}

/// Every pair class of the report: five primitive pairs, hulls of 8 … 1024 vertices and
/// the seed-000 meshes (each against itself).
pub fn classes() -> Vec<PairClass> {
    let prim = |name: &str, a: Spec, b: Spec, polytopes: bool| PairClass {
        name: name.to_string(),
        a,
        b,
        polytopes,
    };
    let mut c = vec![
        prim(
            "box–box",
            Spec::Box([0.5, 0.4, 0.3]),
            Spec::Box([0.45, 0.35, 0.4]),
            true,
        ),
        prim(
            "sphere–box",
            Spec::Sphere(0.5),
            Spec::Box([0.5, 0.4, 0.3]),
            false,
        ),
        prim(
            "capsule–capsule",
            Spec::Capsule(0.4, 0.25),
            Spec::Capsule(0.3, 0.3),
            false,
        ),
        prim(
            "cylinder–cone",
            Spec::Cylinder(0.5, 0.4),
            Spec::Cone(0.5, 0.4),
            false,
        ),
    ];
    for n in [8, 32, 128, 1024] {
        c.push(hull_class(n));
    }
    for (name, pts) in tessellation::seed000_shapes() {
        if let Some(s) = Spec::hull(pts) {
            c.push(PairClass {
                name: format!("seed {name}"),
                a: s.clone(),
                b: s,
                polytopes: true,
            });
        }
    }
    c
}

/// One case: two poses.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// Pose of A.
    pub a: PoseArray,
    /// Pose of B.
    pub b: PoseArray,
}

fn pose_array(p: &Pose) -> PoseArray {
    let (t, q) = (p.translation(), p.rotation());
    [t.x, t.y, t.z, q.x, q.y, q.z, q.w]
}

/// `n` seeded cases of a class in a placement: random rotations, B in a random direction,
/// then moved along minkowski's contact normal to the target distance (placement only;
/// the check uses the independent reference).
pub fn cases(class: &PairClass, placement: Placement, n: usize, seed: u64) -> Vec<Case> {
    let (sa, sb) = (class.a.shape(), class.b.shape());
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let pa = Pose::new(rng.rotation(), Vector::ZERO).expect("valid pose");
            let mut pb = Pose::new(rng.rotation(), rng.dir() * 3.0).expect("valid pose");
            for _ in 0..3 {
                let c = query::contact(&sa, &pa, &sb, &pb);
                pb = pb
                    .translated(c.normal * (placement.target() - c.distance))
                    .expect("valid pose");
            }
            Case {
                a: pose_array(&pa),
                b: pose_array(&pb),
            }
        })
        .collect()
}

/// Agreement tolerance on signed distances, relative to the pair's size: 1e-6 in f64,
/// 1e-4 in f32 (about 800 units in the last place at unit size).
pub fn tolerance(scale: f64) -> f64 {
    let rel = if cfg!(feature = "f64") { 1e-6 } else { 1e-4 };
    rel * scale.max(1.0)
}

/// Why an answer disagrees with the reference.
#[derive(Debug, Clone, PartialEq)]
pub enum Disagreement {
    /// The intersection test says the opposite of the reference (beyond the tolerance).
    Intersection {
        /// What the method said.
        said: bool,
    },
    /// The signed distance is off.
    Distance {
        /// What the method said.
        said: f64,
    },
    /// The reported normal does not attain the reported distance (its gap falls short).
    Normal {
        /// The gap along the reported normal.
        gap: f64,
    },
    /// The witness points are not the reported distance apart.
    Witnesses {
        /// Their distance.
        apart: f64,
    },
    /// No answer where the reference has one.
    NoAnswer,
}

/// Gross errors: off by more than 1e-3 × size (what a game or robot would notice).
pub fn gross_tolerance(scale: f64) -> f64 {
    1e-3 * scale.max(1.0)
}

/// Checks one outcome against the reference with tolerance `tol` on signed distances
/// ([`tolerance`] or [`gross_tolerance`]).
pub fn check(
    q: Query,
    out: &Outcome,
    r: &Reference,
    a: &Placed,
    b: &Placed,
    tol: f64,
) -> Option<Disagreement> {
    match (q, out) {
        (_, Outcome::Hit(hit)) => {
            let truth = r.distance <= 0.0;
            (*hit != truth && r.distance.abs() > tol)
                .then_some(Disagreement::Intersection { said: *hit })
        }
        (_, Outcome::NoAnswer) => Some(Disagreement::NoAnswer),
        (Query::Distance, Outcome::Answer(ans)) => {
            let truth = r.distance.max(0.0);
            if !within(ans.distance - truth, tol) {
                return Some(Disagreement::Distance { said: ans.distance });
            }
            if truth > tol {
                let apart = (v(ans.point_b) - v(ans.point_a)).length();
                if !within(apart - ans.distance, tol) {
                    return Some(Disagreement::Witnesses { apart });
                }
            }
            None
        }
        (_, Outcome::Answer(ans)) => {
            if !within(ans.distance - r.distance, tol) {
                return Some(Disagreement::Distance { said: ans.distance });
            }
            let n = v(ans.normal);
            if r.distance.abs() > tol {
                let g = if (n.length() - 1.0).abs() < 1e-3 {
                    reference::gap(a, b, n.normalize())
                } else {
                    f64::NEG_INFINITY
                };
                if !within((g - ans.distance).min(0.0), tol) {
                    return Some(Disagreement::Normal { gap: g });
                }
            }
            None
        }
    }
}

/// `|x| ≤ tol`, false for NaN (a NaN answer disagrees).
fn within(x: f64, tol: f64) -> bool {
    x.abs() <= tol
}

fn v(a: [f64; 3]) -> DVec3 {
    DVec3::from_array(a)
}

/// Every method's outcome on one case, with the reference built from all of them.
pub struct CaseResult {
    /// The reference.
    pub reference: Reference,
    /// Outcome per method and query, in `methods` order (None: method or query unsupported).
    pub outcomes: Vec<Vec<Option<Outcome>>>,
}

/// Runs every loaded method on `case` for `queries`, builds the reference from their
/// normals and witnesses, and returns both.
pub fn evaluate(
    runners: &[Option<Box<dyn PairRunner>>],
    methods: &[Box<dyn Method>],
    queries: &[Query],
    ga: &Geo,
    gb: &Geo,
    case: &Case,
) -> CaseResult {
    let outcomes: Vec<Vec<Option<Outcome>>> = runners
        .iter()
        .zip(methods)
        .map(|(r, m)| {
            queries
                .iter()
                .map(|&q| match r {
                    Some(r) if m.supports(q) => Some(r.run(q, &case.a, &case.b)),
                    _ => None,
                })
                .collect()
        })
        .collect();
    let answers: Vec<&Answer> = outcomes
        .iter()
        .flatten()
        .filter_map(|o| match o {
            Some(Outcome::Answer(a)) => Some(a),
            _ => None,
        })
        .collect();
    let hints: Vec<DVec3> = answers.iter().map(|a| v(a.normal)).collect();
    let witnesses: Vec<(DVec3, DVec3)> = answers
        .iter()
        .map(|a| (v(a.point_a), v(a.point_b)))
        .collect();
    let (pa, pb) = (Placed::new(ga, &case.a), Placed::new(gb, &case.b));
    CaseResult {
        reference: reference::reference(&pa, &pb, &hints, &witnesses),
        outcomes,
    }
}
