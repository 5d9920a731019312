//! Compound queries equal the union / minimum over their parts, by brute force over every
//! part pair.

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::{random_pose, random_shape, Rng, ALL_KINDS};
use minkowski::query::compound::{self, Collider};
use minkowski::query::{self, QueryOptions};
use minkowski::shape::{Compound, Shape};
use minkowski::{Pose, Real, Vector};

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

/// The smallest-ranking part pair over all of them, by the rule of
/// `minkowski::query::compound`: least value (NaN after every number), then smallest
/// `(part_a, part_b)`; `None` if `f` answers no pair.
fn brute_min<T>(
    xa: &[(Option<u32>, Shape, Pose)],
    xb: &[(Option<u32>, Shape, Pose)],
    mut f: impl FnMut(&Shape, &Pose, &Shape, &Pose) -> Option<(Real, T)>,
) -> Option<(Real, compound::PartAnswer<T>)> {
    let mut best: Option<(Real, compound::PartAnswer<T>)> = None;
    // Lexicographic order: a strictly smaller value is needed to replace the best, so
    // ties go to the smaller pair.
    for (ia, sa, qa) in xa {
        for (ib, sb, qb) in xb {
            let Some((value, answer)) = f(sa, qa, sb, qb) else {
                continue;
            };
            let value = if value.is_nan() {
                Real::INFINITY
            } else {
                value
            };
            if best.as_ref().is_none_or(|b| value < b.0) {
                let answer = compound::PartAnswer {
                    answer,
                    part_a: *ia,
                    part_b: *ib,
                };
                best = Some((value, answer));
            }
        }
    }
    best
}

/// A compound of `n` random parts of every kind, of size about `scale`, within
/// `spread × scale` of its origin.
fn many_parts(rng: &mut Rng, n: usize, spread: f64, scale: f64) -> Collider {
    let parts: Vec<(Pose, Shape)> = (0..n)
        .map(|_| {
            let kind = ALL_KINDS[rng.below(ALL_KINDS.len())];
            let t = rng.dir() * rng.range(0.0, spread) * scale;
            let pose = Pose::new(rng.rotation(), common::v3(t)).unwrap();
            (pose, random_shape(rng, kind, 0.5 * scale).0)
        })
        .collect();
    let c = Compound::new(parts).unwrap();
    c.tree().assert_well_formed().unwrap();
    c.into()
}

/// Unit cubes (times `scale`) at the cells of an `nx × ny × nz` block from `corner`
/// (cells dropped at random, one kept): faces of neighbouring cubes touch exactly.
fn cube_block(rng: &mut Rng, corner: [i32; 3], n: [i32; 3], scale: f64) -> Collider {
    let cube: Shape = minkowski::shape::Cuboid::new(Vector::splat((0.5 * scale) as Real))
        .unwrap()
        .into();
    let mut parts = Vec::new();
    for x in 0..n[0] {
        for y in 0..n[1] {
            for z in 0..n[2] {
                if !parts.is_empty() && rng.below(4) == 0 {
                    continue;
                }
                let c = [corner[0] + x, corner[1] + y, corner[2] + z].map(|k| k as f64 * scale);
                let t = Vector::new(c[0] as Real, c[1] as Real, c[2] as Real);
                parts.push((Pose::from_translation(t).unwrap(), cube.clone()));
            }
        }
    }
    let c = Compound::new(parts).unwrap();
    c.tree().assert_well_formed().unwrap();
    c.into()
}

/// The trees' branch and bound gives exactly the answers — values, points and parts —
/// of a scan over all part pairs with the convex queries, for every query kind:
/// compounds of 1 to 64 parts of every kind, and blocks of cubes whose faces touch
/// exactly or within a few units in the last place (many part pairs tie at distance 0:
/// the smallest pair must answer), placed overlapping, near, touching and far, at
/// scales 1e-2 to 1e2, compound–compound and compound–convex both ways.
#[test]
fn tree_descent_equals_a_scan_over_all_part_pairs() {
    let mut rng = Rng::new(0x7e5c);
    let opts = QueryOptions::default();
    let sizes = [1, 2, 3, 5, 9, 16, 33, 64];
    let (mut overlapping, mut ties, mut apart, mut convex) = (0, 0, 0, 0);
    let cases = 700;
    for case in 0..cases {
        let scale = 10f64.powf(rng.range(-2.0, 2.0));
        let placement = case % 5;
        let (a, b, local_b) = if placement == 4 {
            // Blocks of cubes side by side along x, flush (or a hair in or out), and
            // shifted along y and z by whole cells so that many faces meet.
            let na = [
                1 + rng.below(3) as i32,
                1 + rng.below(4) as i32,
                1 + rng.below(3) as i32,
            ];
            let nb = [
                1 + rng.below(3) as i32,
                1 + rng.below(4) as i32,
                1 + rng.below(3) as i32,
            ];
            let a = cube_block(&mut rng, [0, 0, 0], na, scale);
            let b = cube_block(&mut rng, [0, 0, 0], nb, scale);
            let gap = [0.0, 0.0, 1e-7, -1e-7, 1e-5][rng.below(5)];
            let shift = |rng: &mut Rng| rng.below(3) as f64 - 1.0;
            let t = Vector::new(
                ((na[0] as f64 + gap) * scale) as Real,
                (shift(&mut rng) * scale) as Real,
                (shift(&mut rng) * scale) as Real,
            );
            (a, b, Pose::from_translation(t).unwrap())
        } else {
            let pick = |rng: &mut Rng| sizes[rng.below(sizes.len())];
            let (na, nb) = (pick(&mut rng), pick(&mut rng));
            let spread = |n: usize| 0.5 + (n as f64).cbrt();
            let a = many_parts(&mut rng, na, spread(na), scale);
            let mut b = many_parts(&mut rng, nb, spread(nb), scale);
            if case % 7 == 0 {
                // Compound–convex (the convex side first on odd cases, below).
                let kind = ALL_KINDS[rng.below(ALL_KINDS.len())];
                b = Collider::Convex(random_shape(&mut rng, kind, scale).0);
                convex += 1;
            }
            let reach = (spread(na) + spread(nb) + 1.0) * scale;
            let distance = match placement {
                0 => rng.range(0.0, 0.3) * reach,
                1 => rng.range(0.3, 0.7) * reach,
                2 => rng.range(0.7, 1.1) * reach,
                _ => rng.range(2.0, 20.0) * reach,
            };
            let t = common::v3(rng.dir() * distance);
            (a, b, Pose::new(rng.rotation(), t).unwrap())
        };
        let (a, b) = if case % 2 == 1 { (b, a) } else { (a, b) };
        // The scene placed anywhere: axis-aligned (cube faces meet exactly) on half the
        // cases, turned on the others.
        let mut pa = random_pose(&mut rng, 5.0 * scale);
        if case % 4 < 2 {
            pa = Pose::from_translation(pa.translation()).unwrap();
        }
        let pb = pa.mul(&local_b);
        let (xa, xb) = (pieces(&a, &pa), pieces(&b, &pb));
        let label = format!("case {case} (placement {placement}, scale {scale:.3e})");

        let want = brute_min(&xa, &xb, |sa, qa, sb, qb| {
            query::intersects_with(sa, qa, sb, qb, &opts, None).then_some((0.0, ()))
        })
        .map(|x| x.1);
        assert_eq!(
            compound::intersects(&a, &pa, &b, &pb, &opts),
            want,
            "{label}: intersects"
        );

        let (_, want) = brute_min(&xa, &xb, |sa, qa, sb, qb| {
            let d = query::distance_with(sa, qa, sb, qb, &opts, None).distance;
            Some((d, d))
        })
        .unwrap();
        assert_eq!(
            compound::distance(&a, &pa, &b, &pb, &opts),
            want,
            "{label}: distance"
        );

        let (least, want) = brute_min(&xa, &xb, |sa, qa, sb, qb| {
            let c = query::closest_points_with(sa, qa, sb, qb, &opts, None);
            Some((c.distance, c))
        })
        .unwrap();
        assert_eq!(
            compound::closest_points(&a, &pa, &b, &pb, &opts),
            want,
            "{label}: closest points"
        );

        let (_, want) = brute_min(&xa, &xb, |sa, qa, sb, qb| {
            let c = query::contact_with(sa, qa, sb, qb, &opts, None);
            Some((c.distance, c))
        })
        .unwrap();
        assert_eq!(
            compound::contact(&a, &pa, &b, &pb, &opts),
            want,
            "{label}: contact"
        );

        // What the cases exercise: overlaps, ties at the least distance, separations.
        let at_least = xa
            .iter()
            .flat_map(|(_, sa, qa)| xb.iter().map(move |(_, sb, qb)| (sa, qa, sb, qb)))
            .filter(|(sa, qa, sb, qb)| {
                query::closest_points_with(sa, qa, sb, qb, &opts, None).distance == least
            })
            .count();
        ties += usize::from(at_least > 1);
        overlapping += usize::from(want.answer.distance < 0.0);
        apart += usize::from(least > 0.0);
    }
    eprintln!("{overlapping} overlapping, {ties} with ties, {apart} apart, {convex} convex");
    assert!(overlapping > cases / 6, "{overlapping} overlapping");
    assert!(ties > cases / 10, "{ties} with tied part pairs");
    assert!(apart > cases / 3, "{apart} apart");
    assert!(convex > cases / 10, "{convex} compound-convex");
}

/// The `_with` queries with the caller's part caches, over 60 pairs of compounds
/// moving coherently through each other for 25 steps: every kind agrees with the cold
/// query within the convex queries' tolerance (an intersection may differ only where
/// the pair touches within it), the caches stay within their capacity, and warm
/// closest-point runs take fewer GJK iterations than cold ones.
#[test]
fn warm_started_queries_agree_with_cold_ones() {
    let mut rng = Rng::new(0x3a7);
    let opts = QueryOptions::default();
    let tol = 10.0 * common::REL_TOL as Real;
    let (mut warm_iterations, mut cold_iterations, mut hits, mut steps) = (0, 0, 0, 0);
    for case in 0..60 {
        let (na, nb) = (2 + rng.below(20), 2 + rng.below(20));
        let a = many_parts(&mut rng, na, 1.5, 1.0);
        let b = if case % 5 == 0 {
            let kind = ALL_KINDS[rng.below(ALL_KINDS.len())];
            Collider::Convex(random_shape(&mut rng, kind, 1.0).0)
        } else {
            many_parts(&mut rng, nb, 1.5, 1.0)
        };
        let pa = random_pose(&mut rng, 1.0);
        let start = common::v3(rng.dir() * 5.0);
        let step = -start / 20.0;
        let spin = minkowski::Rotation::from_axis_angle(common::v3(rng.dir()), 0.02);
        let mut pb = Pose::new(rng.rotation(), pa.translation() + start).unwrap();
        let mut caches = compound::PartCaches::new();
        for k in 0..25 {
            let label = format!("case {case}, step {k}");
            let warm_hit = compound::intersects_with(&a, &pa, &b, &pb, &opts, Some(&mut caches));
            let warm_d = compound::distance_with(&a, &pa, &b, &pb, &opts, Some(&mut caches));
            let warm_cp = compound::closest_points_with(&a, &pa, &b, &pb, &opts, Some(&mut caches));
            let warm_c = compound::contact_with(&a, &pa, &b, &pb, &opts, Some(&mut caches));
            let cold_d = compound::distance(&a, &pa, &b, &pb, &opts).answer;
            let cold_cp = compound::closest_points(&a, &pa, &b, &pb, &opts);
            let cold_c = compound::contact(&a, &pa, &b, &pb, &opts).answer;
            let cold_hit = compound::intersects(&a, &pa, &b, &pb, &opts);
            if warm_hit.is_some() != cold_hit.is_some() {
                assert!(
                    cold_d <= tol,
                    "{label}: intersects differ at distance {cold_d}"
                );
            }
            let near = |x: Real, y: Real| (x - y).abs() <= tol * (1.0 + y.abs());
            assert!(
                near(warm_d.answer, cold_d),
                "{label}: distance {} vs {cold_d}",
                warm_d.answer
            );
            assert!(
                near(warm_cp.answer.distance, cold_cp.answer.distance),
                "{label}: closest points"
            );
            assert!(
                near(warm_c.answer.distance, cold_c.distance),
                "{label}: contact {} vs {}",
                warm_c.answer.distance,
                cold_c.distance
            );
            assert!(caches.len() <= compound::PartCaches::CAPACITY);
            warm_iterations += warm_cp.answer.iterations;
            cold_iterations += cold_cp.answer.iterations;
            hits += usize::from(cold_hit.is_some());
            steps += 1;
            pb = Pose::new((spin * pb.rotation()).normalize(), pb.translation() + step).unwrap();
        }
    }
    assert!(
        hits > steps / 5 && hits < steps * 4 / 5,
        "{hits} of {steps} intersect"
    );
    assert!(
        warm_iterations < cold_iterations,
        "warm {warm_iterations} iterations, cold {cold_iterations}"
    );
    eprintln!("iterations of closest points: warm {warm_iterations}, cold {cold_iterations}");
}
