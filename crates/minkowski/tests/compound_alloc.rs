//! Compound queries allocate nothing once warmed up: a counting global allocator (its own
//! test binary, so that it counts nothing else) watches every query kind on
//! compound–compound and compound–convex pairs, cold and with warm-start caches, at
//! overlapping, touching and separated placements, and a collision world's steady-state
//! updates over moving compounds.
//!
//! The allocator counts only on the thread that asked for it (the harness runs tests on
//! several threads), and only between `start` and `stop`.

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use minkowski::query::compound::{self, Collider, PartCaches};
use minkowski::query::QueryOptions;
use minkowski::shape::{Capsule, Compound, ConvexPolyhedron, Cuboid, Shape, Sphere};
use minkowski::world::{BroadPhaseKind, World, WorldOptions};
use minkowski::{Pose, Real, Rotation, Vector};

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

fn note() {
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; counting touches
// only an atomic and a const-initialised thread local (neither allocates).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations (and reallocations) made by `f` on this thread.
fn allocations(f: impl FnOnce()) -> usize {
    ALLOCATIONS.store(0, Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.load(Ordering::Relaxed)
}

fn v(x: f64, y: f64, z: f64) -> Vector {
    Vector::new(x as Real, y as Real, z as Real)
}

fn at(x: f64, y: f64, z: f64, turn: f64) -> Pose {
    Pose::new(Rotation::from_rotation_y(turn as Real), v(x, y, z)).expect("valid pose")
}

/// A compound of `n` parts of four kinds (the hull exercises hill-climbing supports),
/// spread along x and y.
fn compound(n: usize) -> Collider {
    let hull: Shape = ConvexPolyhedron::new(vec![
        v(0.3, 0.0, 0.0),
        v(-0.3, 0.1, 0.0),
        v(0.0, 0.3, 0.1),
        v(0.0, -0.2, 0.3),
        v(0.1, 0.0, -0.3),
        v(-0.2, -0.2, -0.2),
    ])
    .expect("hull")
    .into();
    let parts = (0..n)
        .map(|k| {
            let shape: Shape = match k % 4 {
                0 => Sphere::new(0.3).expect("sphere").into(),
                1 => Cuboid::new(v(0.3, 0.2, 0.25)).expect("box").into(),
                2 => Capsule::new(0.2, 0.15).expect("capsule").into(),
                _ => hull.clone(),
            };
            let (x, y) = ((k % 5) as f64 * 0.5, (k / 5) as f64 * 0.5);
            (at(x, y, 0.1 * (k % 3) as f64, 0.3 * k as f64), shape)
        })
        .collect();
    Compound::new(parts).expect("compound").into()
}

#[test]
fn warmed_up_compound_queries_allocate_nothing() {
    let opts = QueryOptions::default();
    let big = compound(40);
    let small = compound(7);
    let ball: Collider = Shape::from(Sphere::new(0.4).expect("sphere")).into();
    let block: Collider = Shape::from(Cuboid::new(v(0.5, 0.5, 0.5)).expect("box")).into();
    let pairs = [
        (&big, &small),
        (&small, &big),
        (&big, &ball),
        (&block, &big),
    ];
    // Overlapping, touching (flush along z: the boxes' faces meet), near and far.
    let placements = [
        at(0.6, 0.4, 0.1, 0.5),
        at(0.0, 0.0, 0.8, 0.0),
        at(1.0, 1.0, 1.2, 1.0),
        at(9.0, -4.0, 3.0, 2.0),
    ];
    let pa = at(0.1, -0.2, 0.05, 0.2);
    let mut caches: Vec<PartCaches> = (0..pairs.len() * placements.len())
        .map(|_| PartCaches::new())
        .collect();
    let run_all = |caches: &mut [PartCaches]| {
        let (mut k, mut hits) = (0, 0);
        for (a, b) in pairs {
            for pb in &placements {
                let c = &mut caches[k];
                k += 1;
                hits += usize::from(compound::intersects(a, &pa, b, pb, &opts).is_some());
                compound::distance(a, &pa, b, pb, &opts);
                compound::closest_points(a, &pa, b, pb, &opts);
                compound::contact(a, &pa, b, pb, &opts);
                compound::intersects_with(a, &pa, b, pb, &opts, Some(&mut *c));
                compound::distance_with(a, &pa, b, pb, &opts, Some(&mut *c));
                compound::closest_points_with(a, &pa, b, pb, &opts, Some(&mut *c));
                compound::contact_with(a, &pa, b, pb, &opts, Some(&mut *c));
            }
        }
        hits
    };
    // Warm-up: the caches take their memory, EPA's per-thread buffers grow.
    let hits = run_all(&mut caches);
    assert!(hits >= 6, "{hits} of 16 placements intersect");
    assert!(caches.iter().all(|c| !c.is_empty()));
    let n = allocations(|| {
        run_all(&mut caches);
    });
    assert_eq!(n, 0, "allocations in warmed-up compound queries");
    // The same queries with caches that keep evicting (more part pairs than room).
    let mut tight = PartCaches::new();
    let crowd = |c: &mut PartCaches| {
        for pb in &placements {
            compound::contact_with(&big, &pa, &big, pb, &opts, Some(&mut *c));
            compound::distance_with(&big, &pa, &big, pb, &opts, Some(&mut *c));
        }
    };
    crowd(&mut tight);
    assert_eq!(tight.len(), PartCaches::CAPACITY, "the caches filled up");
    assert_eq!(allocations(|| crowd(&mut tight)), 0, "evicting allocates");
}

/// A world's update over moving compounds (sequential narrow phase, sweep and prune)
/// reuses its buffers and the pairs' part caches: no allocation once the pairs exist.
/// The frames are played twice and counted the second time, as EPA's per-thread buffers
/// grow to the largest polytope met so far (amortised, and not the compound code's).
#[test]
fn steady_world_updates_over_compounds_allocate_nothing() {
    let mut w = World::new(
        BroadPhaseKind::SweepAndPrune,
        WorldOptions {
            parallel: false,
            ..Default::default()
        },
    );
    let shapes = [compound(9), compound(4), compound(1)];
    let start = |k: usize| at((k % 4) as f64 * 1.6, (k / 4) as f64 * 1.5, 0.0, 0.0);
    let handles: Vec<_> = (0..12)
        .map(|k| w.insert(shapes[k % 3].clone(), start(k)).expect("insert"))
        .collect();
    // Object k at frame f: turned and shifted a little, back and forth.
    let pose = |k: usize, frame: usize| {
        let s = start(k);
        let wobble = 0.002 * (frame % 4) as f64;
        Pose::new(
            Rotation::from_rotation_z((0.003 * frame as f64) as Real) * s.rotation(),
            s.translation() + v(wobble, -wobble, 0.0),
        )
        .expect("valid pose")
    };
    let frames = |w: &mut World, range: std::ops::Range<usize>| {
        for frame in range {
            for (k, h) in handles.iter().enumerate() {
                w.set_pose(*h, pose(k, frame)).expect("move");
            }
            w.update();
        }
    };
    frames(&mut w, 0..10);
    frames(&mut w, 0..1);
    assert!(w.contacts().len() >= 4, "{} contacts", w.contacts().len());
    let n = allocations(|| frames(&mut w, 1..10));
    assert_eq!(n, 0, "allocations in steady world updates");
}
