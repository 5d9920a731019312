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
    .unwrap()
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
    // A part pose beyond the magnitude limit cannot be built (Pose::new refuses it), so
    // the compound never sees one; a part whose box reaches beyond the limit is still
    // refused.
    assert!(Pose::from_translation(Vector::splat(Real::MAX)).is_err());
    let big: Shape = minkowski::shape::Sphere::new(minkowski::shape::MAX_MAGNITUDE)
        .unwrap()
        .into();
    let edge = Pose::from_translation(Vector::splat(minkowski::shape::MAX_MAGNITUDE)).unwrap();
    assert!(Compound::new(vec![(edge, big)]).is_err());
}

/// Parts that touch, overlap or are apart by a few units in the last place, under random
/// rigid motions of the whole scene and sizes from 1e-2 to 1e2: the compound's pruning
/// by part boxes never changes the answer of the union over parts.
#[test]
fn touching_parts_equal_brute_force_over_parts() {
    let mut rng = Rng::new(0x70c4);
    let opts = QueryOptions::default();
    let cube = |h: f64| -> Shape {
        minkowski::shape::Cuboid::new(Vector::splat(h as Real))
            .unwrap()
            .into()
    };
    let (mut touching, mut differ) = (0, 0);
    for case in 0..3000 {
        let scale = 10f64.powf(rng.range(-2.0, 2.0));
        // Gaps (relative to the size) from overlap by about a unit in the last place,
        // through exact touching, to clear separation.
        // (In f32 gaps up to a few 1e-6 are within the rounding floor and count as
        // touching; the last two are beyond it.)
        let gap = [0.0, 1e-7, -1e-7, 3e-7, 1e-6, 3e-6, 3e-5, 1e-4][(case / 8) % 8] * scale;
        let part_a = (Pose::IDENTITY, cube(0.5 * scale));
        let a: Collider = Compound::new(vec![
            part_a,
            (
                Pose::from_translation(Vector::new(0.0, (3.0 * scale) as Real, 0.0)).unwrap(),
                cube(0.5 * scale),
            ),
        ])
        .unwrap()
        .into();
        let b: Collider = Compound::new(vec![(Pose::IDENTITY, cube(0.5 * scale))])
            .unwrap()
            .into();
        let local_b = Pose::from_translation(Vector::new((scale + gap) as Real, 0.0, 0.0)).unwrap();
        // Half the scenes axis-aligned (quarter turns): there the part boxes are tight
        // and touching faces give touching boxes, which the pruning must keep.
        let mut world = random_pose(&mut rng, 3.0 * scale);
        if case % 8 < 4 {
            let quarter = minkowski::Rotation::from_rotation_z(std::f64::consts::FRAC_PI_2 as Real);
            let rotation = if case % 16 < 8 {
                minkowski::Rotation::IDENTITY
            } else {
                quarter
            };
            world = Pose::new(rotation, world.translation()).unwrap();
        }
        let (pa, pb) = (world, world.mul(&local_b));
        let (xa, xb) = (pieces(&a, &pa), pieces(&b, &pb));
        let any = xa.iter().any(|(_, sa, qa)| {
            xb.iter()
                .any(|(_, sb, qb)| query::intersects_with(sa, qa, sb, qb, &opts, None))
        });
        let got = compound::intersects(&a, &pa, &b, &pb, &opts).is_some();
        touching += usize::from(any);
        if got != any {
            differ += 1;
            eprintln!("case {case}: scale {scale}, gap {gap}: parts {any}, compound {got}");
        }
    }
    assert_eq!(differ, 0, "{touching} touching");
    // Both sides of the edge are reached (exact touching goes either way by rounding).
    assert!(
        (600..2400).contains(&touching),
        "{touching} of 3000 touching"
    );
}
