//! The cast report's reference and check machinery, without peers (CI runs this in both
//! precisions): the bisection against closed forms, minkowski's rays and casts against
//! the reference on a few seeded cases, and wrong answers caught.
#![allow(clippy::unnecessary_cast)]

#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use glam::DVec3;
use minkowski_bench::cast_suite::{
    cast_band, cast_cases, cast_classes, check_cast, check_ray, ray_band, ray_cases, ray_classes,
    CastDisagreement,
};
use minkowski_bench::peers::cast::{cast_methods, CastHit, CastOutcome};
use minkowski_bench::peers::Spec;
use minkowski_bench::reference::Geo;

fn dv(a: [minkowski::Real; 3]) -> DVec3 {
    DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64)
}

#[test]
fn ray_bisection_matches_the_closed_forms() {
    for class in ray_classes() {
        let geo = Geo::new(&class.shape);
        let closed = !matches!(class.shape, Spec::Cone(..) | Spec::Hull { .. });
        let (mut hits, mut inside) = (0, 0);
        for c in ray_cases(40, 11) {
            let b = ray_band(&class.shape, &geo, &c);
            if closed {
                match (b.toi, b.bisected) {
                    (Some(x), Some(y)) => {
                        assert!((x - y).abs() < 1e-9, "{}: {x} vs {y}", class.name)
                    }
                    (x, y) => assert_eq!(x.is_some(), y.is_some(), "{}: {c:?}", class.name),
                }
            }
            hits += b.toi.is_some() as usize;
            inside += b.starts_inside() as usize;
        }
        // The cases exercise hits, misses and starts inside.
        assert!(
            (20..40).contains(&hits),
            "{}: {hits} hits of 40",
            class.name
        );
        assert!(inside >= 2, "{}: {inside} inside", class.name);
    }
}

#[test]
fn cast_bisection_matches_the_sphere_sphere_closed_form() {
    let class = &cast_classes()[0];
    let (Spec::Sphere(ra), Spec::Sphere(rb)) = (&class.a, &class.b) else {
        panic!("the first cast class is sphere–sphere");
    };
    let r = (*ra + *rb) as f64;
    let (ga, gb) = (Geo::new(&class.a), Geo::new(&class.b));
    for c in cast_cases(6, 3) {
        let p = DVec3::new(c.b[0] as f64, c.b[1] as f64, c.b[2] as f64);
        let v = dv(c.velocity);
        // |p + v t| = r, first root.
        let (a, b, k) = (v.dot(v), p.dot(v), p.dot(p) - r * r);
        let disc = b * b - a * k;
        let truth = (disc >= 0.0)
            .then(|| (-b - disc.sqrt()) / a)
            .filter(|t| (0.0..=c.max_toi as f64).contains(t));
        let band = cast_band(&ga, &gb, &c);
        match (truth, band.toi) {
            (Some(x), Some(y)) => assert!((x - y).abs() < 1e-9, "{x} vs {y}"),
            (x, y) => assert_eq!(x.is_some(), y.is_some()),
        }
    }
}

/// minkowski's disagreements with the reference on the cases of
/// [`minkowski_agrees_with_the_reference_on_a_few_cases`]: none. (In f32 one
/// capsule–capsule cast, seed 22 case 2, had its normal 6e-3 rad off until the linear
/// cast went on with GJK at the time of impact to the closest features; the case stays
/// here as the regression.)
const KNOWN: &[(&str, usize)] = &[];

#[test]
fn minkowski_agrees_with_the_reference_on_a_few_cases() {
    let ours = &cast_methods()[0];
    let mut wrong: Vec<(String, usize, String)> = Vec::new();
    for class in ray_classes() {
        let geo = Geo::new(&class.shape);
        let r = ours.load_ray(&class.shape).expect("minkowski casts rays");
        for (i, c) in ray_cases(12, 21).iter().enumerate() {
            let band = ray_band(&class.shape, &geo, c);
            let out = r.ray(&c.pose, &c.ray);
            if let Some(d) = check_ray(&out, &band, &geo, c, false) {
                wrong.push((class.name.clone(), i, format!("{c:?} {out:?} {d:?}")));
            }
        }
    }
    for class in cast_classes()
        .into_iter()
        .filter(|c| ["sphere–sphere", "box–box", "capsule–capsule"].contains(&c.name.as_str()))
    {
        let (ga, gb) = (Geo::new(&class.a), Geo::new(&class.b));
        let r = ours.load_cast(&class.a, &class.b).expect("minkowski casts");
        for (i, c) in cast_cases(4, 22).iter().enumerate() {
            let out = r.cast(&c.a, &c.b, &c.velocity, c.max_toi);
            let band = cast_band(&ga, &gb, c);
            if let Some(d) = check_cast(&out, &band, &ga, &gb, c, false) {
                wrong.push((class.name.clone(), i, format!("{c:?} {out:?} {d:?}")));
            }
        }
    }
    let found: Vec<(&str, usize)> = wrong.iter().map(|(n, i, _)| (n.as_str(), *i)).collect();
    assert_eq!(found, KNOWN, "{wrong:#?}");
}

#[test]
fn wrong_answers_are_caught() {
    let class = &ray_classes()[1];
    let geo = Geo::new(&class.shape);
    let mut seen = [false; 3];
    for c in ray_cases(20, 31) {
        let band = ray_band(&class.shape, &geo, &c);
        match band.toi {
            Some(t) if !band.starts_inside() => {
                let late = CastOutcome::Hit(CastHit::at(t + 0.01));
                assert!(matches!(
                    check_ray(&late, &band, &geo, &c, false),
                    Some(CastDisagreement::Toi { .. })
                ));
                assert_eq!(
                    check_ray(&CastOutcome::Miss, &band, &geo, &c, false),
                    Some(CastDisagreement::Missed)
                );
                let mut tilted = CastHit::at(t);
                tilted.normal = dv(c.ray.dir).normalize().to_array();
                assert!(matches!(
                    check_ray(&CastOutcome::Hit(tilted), &band, &geo, &c, false),
                    Some(CastDisagreement::Normal { .. })
                ));
                seen[0] = true;
            }
            Some(_) => seen[1] = true,
            None => {
                let hit = CastOutcome::Hit(CastHit::at(1.0));
                assert!(check_ray(&hit, &band, &geo, &c, false).is_some());
                seen[2] = true;
            }
        }
    }
    assert_eq!(seen, [true; 3]);
    let class = &cast_classes()[2];
    let (ga, gb) = (Geo::new(&class.a), Geo::new(&class.b));
    let c = cast_cases(8, 41)
        .into_iter()
        .find(|c| cast_band(&ga, &gb, c).toi.is_some())
        .expect("a hit");
    let band = cast_band(&ga, &gb, &c);
    let t = band.toi.unwrap_or_default();
    let early = CastOutcome::Hit(CastHit::at(t - 0.01));
    assert!(matches!(
        check_cast(&early, &band, &ga, &gb, &c, false),
        Some(CastDisagreement::Toi { .. })
    ));
    assert!(check_cast(
        &CastOutcome::Hit(CastHit::at(t)),
        &band,
        &ga,
        &gb,
        &c,
        false
    )
    .is_none());
}
