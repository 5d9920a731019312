//! Compound queries equal the union / minimum over their parts, by brute force over every
//! part pair.

mod common;

use common::{random_shape, Rng, ALL_KINDS};
use minkowski::query::compound::{self, Collider};
use minkowski::query::{self, QueryOptions};
use minkowski::shape::{Compound, Shape};
use minkowski::{Pose, Real, Vector};

fn random_pose(rng: &mut Rng, extent: f64) -> Pose {
    let t = rng.dir() * rng.range(0.0, extent);
    Pose::new(
        rng.rotation(),
        Vector::new(t.x as Real, t.y as Real, t.z as Real),
    )
}

fn random_collider(rng: &mut Rng) -> Collider {
    if rng.below(4) == 0 {
        let kind = ALL_KINDS[rng.below(ALL_KINDS.len())];
        return Collider::Convex(random_shape(rng, kind, 0.6).0);
    }
    let n = 1 + rng.below(6);
    let parts: Vec<(Pose, Shape)> = (0..n)
        .map(|_| {
            let kind = ALL_KINDS[rng.below(ALL_KINDS.len())];
            (random_pose(rng, 1.5), random_shape(rng, kind, 0.5).0)
        })
        .collect();
    Compound::new(parts).unwrap().into()
}

fn pieces(c: &Collider, pose: &Pose) -> Vec<(Option<u32>, Shape, Pose)> {
    match c {
        Collider::Convex(s) => vec![(None, s.clone(), *pose)],
        Collider::Compound(k) => k
            .parts()
            .iter()
            .enumerate()
            .map(|(i, (p, s))| (Some(i as u32), s.clone(), pose.mul(p)))
            .collect(),
    }
}

#[test]
fn compound_queries_equal_brute_force_over_parts() {
    let mut rng = Rng::new(0xc0b);
    let opts = QueryOptions::default();
    let (mut hits, mut misses) = (0, 0);
    for case in 0..2500 {
        let (a, b) = (random_collider(&mut rng), random_collider(&mut rng));
        let (pa, pb) = (random_pose(&mut rng, 1.5), random_pose(&mut rng, 1.5));
        let (xa, xb) = (pieces(&a, &pa), pieces(&b, &pb));
        let mut any = false;
        let mut min_d = Real::INFINITY;
        let mut deepest: Option<(Real, Option<u32>, Option<u32>)> = None;
        for (ia, sa, qa) in &xa {
            for (ib, sb, qb) in &xb {
                any |= query::intersects(sa, qa, sb, qb);
                min_d = min_d.min(query::distance(sa, qa, sb, qb).distance);
                let c = query::contact(sa, qa, sb, qb);
                if c.distance <= 0.0 && deepest.is_none_or(|d| c.distance < d.0) {
                    deepest = Some((c.distance, *ia, *ib));
                }
            }
        }
        let label = format!("case {case}");
        let hit = compound::intersects(&a, &pa, &b, &pb, &opts);
        assert_eq!(hit.is_some(), any, "{label}: intersects");
        if let Some(h) = hit {
            // The reported parts really intersect.
            let (sa, qa) = xa
                .iter()
                .find(|x| x.0 == h.part_a)
                .map(|x| (&x.1, x.2))
                .unwrap();
            let (sb, qb) = xb
                .iter()
                .find(|x| x.0 == h.part_b)
                .map(|x| (&x.1, x.2))
                .unwrap();
            assert!(
                query::intersects(sa, &qa, sb, &qb),
                "{label}: reported parts do not touch"
            );
        }
        let d = compound::distance(&a, &pa, &b, &pb, &opts);
        // `distance` and `closest_points` may differ in the last bit (different paths).
        let close = |x: Real| (x - min_d).abs() <= 1e-6 * (1.0 + min_d);
        assert!(close(d.answer), "{label}: distance {} vs {min_d}", d.answer);
        let cp = compound::closest_points(&a, &pa, &b, &pb, &opts);
        assert!(
            close(cp.answer.distance),
            "{label}: closest points {} vs {min_d}",
            cp.answer.distance
        );
        let c = compound::contact(&a, &pa, &b, &pb, &opts);
        match deepest {
            Some((depth, ia, ib)) => {
                assert_eq!(c.answer.distance, depth, "{label}: contact depth");
                assert_eq!((c.part_a, c.part_b), (ia, ib), "{label}: contact parts");
                hits += 1;
            }
            None => {
                assert!(c.answer.distance > 0.0, "{label}");
                assert!(
                    (c.answer.distance - min_d).abs() <= 1e-4 * (1.0 + min_d),
                    "{label}: separated contact"
                );
                misses += 1;
            }
        }
    }
    assert!(hits > 300 && misses > 300, "hits {hits}, misses {misses}");
}

#[test]
fn compound_construction_errors() {
    assert!(Compound::new(Vec::new()).is_err());
    let s: Shape = minkowski::shape::Sphere::new(1.0).unwrap().into();
    let far = Pose::from_translation(Vector::splat(Real::MAX));
    assert!(Compound::new(vec![(far, s)]).is_err());
}
