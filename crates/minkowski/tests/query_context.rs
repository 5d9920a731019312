//! The caller-owned [`QueryContext`] answers exactly as the free functions do, reusing
//! its buffers across queries of every pair kind; and the free functions' per-thread
//! buffers survive re-entry (a support map that runs a query inside a query).

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::{random_pose, random_shape, Rng, ALL_KINDS};
use minkowski::query::{self, epa, QueryContext, QueryOptions, ShapePair};
use minkowski::shape::{Cylinder, Shape, Sphere};
use minkowski::support::SupportMap;
use minkowski::{Point, Pose, Vector};

#[test]
fn context_answers_exactly_as_the_free_functions() {
    let mut rng = Rng::new(0xC0_7E_47);
    // One context for every query: its polytope grows on deep curved pairs and is
    // reused, and must never carry anything from one query into the next.
    let mut ctx = QueryContext::new(QueryOptions::default());
    let options = QueryOptions::default();
    let mut cases = 0;
    for &ka in ALL_KINDS.iter() {
        for &kb in ALL_KINDS.iter() {
            for _ in 0..12 {
                let (a, _) = random_shape(&mut rng, ka, 1.0);
                let (b, _) = random_shape(&mut rng, kb, 1.0);
                let pa = random_pose(&mut rng, 1.0);
                // Deep, shallow and separated placements.
                let extent = [0.2, 1.5, 4.0][rng.below(3)];
                let pb = random_pose(&mut rng, extent);
                let pair = ShapePair::new(&a, pa, &b, pb);
                assert_eq!(
                    ctx.contact(&pair, None),
                    query::contact_with(&a, &pa, &b, &pb, &options, None),
                    "{ka} {kb}"
                );
                assert_eq!(
                    ctx.manifold(&pair, 0.05),
                    query::manifold_with(&a, &pa, &b, &pb, 0.05, &options),
                    "{ka} {kb}"
                );
                assert_eq!(
                    ctx.closest_points(&pair, None),
                    query::closest_points_with(&a, &pa, &b, &pb, &options, None),
                    "{ka} {kb}"
                );
                assert_eq!(
                    ctx.distance(&pair, None),
                    query::distance_with(&a, &pa, &b, &pb, &options, None),
                    "{ka} {kb}"
                );
                assert_eq!(
                    ctx.intersects(&pair, None),
                    query::intersects_with(&a, &pa, &b, &pb, &options, None),
                    "{ka} {kb}"
                );
                cases += 1;
            }
        }
    }
    assert_eq!(cases, ALL_KINDS.len() * ALL_KINDS.len() * 12);
}

/// A cylinder whose support function runs a contact query of its own (as a user's
/// support map might, e.g. to decide a level of detail) before answering.
struct Meddling {
    inner: Cylinder,
}

impl SupportMap for Meddling {
    fn local_support(&self, dir: Vector) -> Point {
        let s = Shape::from(Sphere::new(0.5).unwrap());
        let at = Pose::from_translation(Vector::new(0.3, 0.0, 0.0)).unwrap();
        // Deep enough to run EPA, on this thread's buffers, inside the outer EPA.
        let c = query::contact(&s, &Pose::IDENTITY, &Shape::from(self.inner), &at);
        assert!(c.distance < 0.0);
        self.inner.local_support(dir)
    }
}

#[test]
fn nested_queries_on_the_thread_buffers_do_not_panic_and_agree() {
    let inner = Cylinder::new(1.0, 0.8).unwrap();
    let meddling = Meddling { inner };
    let b = Cylinder::new(0.7, 0.5).unwrap();
    let at = Pose::new(
        minkowski::Rotation::from_axis_angle(Vector::new(1.0, 0.0, 1.0).normalize(), 0.7),
        Vector::new(0.4, 0.2, -0.1),
    )
    .unwrap();
    let nested = epa::penetration(&meddling, &Pose::IDENTITY, &b, &at);
    let plain = epa::penetration(&inner, &Pose::IDENTITY, &b, &at);
    assert_eq!(nested.status, epa::EpaStatus::Converged);
    // The same support points, so the same answer, whatever the nested calls did to
    // the thread's buffers.
    assert_eq!(nested, plain);
}
