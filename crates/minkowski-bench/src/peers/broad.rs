//! Broad phases side by side: minkowski's grid, sweep and prune and dynamic tree against
//! Bullet's `btDbvtBroadphase` and parry's `Bvh`, fed the same boxes frame by frame.
//!
//! Each method answers with the exact set of overlapping pairs of the frame's boxes.
//! Every method runs on one thread except [`GRID_TWO_THREADS`], the grid with its pair
//! search split over two (neither peer has a parallel broad phase).
//! Bullet and parry keep fattened boxes (and Bullet stale pairs for a few frames), so
//! their candidate pairs are filtered with the exact boxes inside their timed frame, as
//! a physics step must before its narrow phase.

use minkowski::bounding::Aabb;
use minkowski::broadphase::{BroadPhase, DynamicTree, Grid, SweepAndPrune};
use minkowski::Real;

/// One broad phase of the comparison.
pub trait BroadMethod {
    /// Name in tables.
    fn name(&self) -> &'static str;
    /// One frame: `boxes[i]` is object `i`'s box (the same objects every frame). Replaces
    /// `out` with the overlapping pairs `(a, b)`, `a < b`, in any order.
    fn frame(&mut self, boxes: &[Aabb], out: &mut Vec<(u32, u32)>);
}

struct Ours<B: BroadPhase> {
    name: &'static str,
    bp: B,
    started: bool,
    /// The pool the pair search runs in, if not the calling thread (the grid splits its
    /// search over a pool's threads).
    pool: Option<rayon::ThreadPool>,
}

impl<B: BroadPhase + Send> Ours<B> {
    /// A method on the calling thread, or in a pool of `threads` if given.
    fn boxed(name: &'static str, bp: B, threads: Option<usize>) -> Box<Self> {
        let pool = threads.map(|t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap_or_else(|e| panic!("cannot start a {t}-thread pool: {e}"))
        });
        Box::new(Ours {
            name,
            bp,
            started: false,
            pool,
        })
    }
}

/// The name of the method that runs minkowski's grid on two threads; every other method
/// runs on one.
pub const GRID_TWO_THREADS: &str = "minkowski grid (2 threads)";

impl<B: BroadPhase + Send> BroadMethod for Ours<B> {
    fn name(&self) -> &'static str {
        self.name
    }
    fn frame(&mut self, boxes: &[Aabb], out: &mut Vec<(u32, u32)>) {
        for (i, b) in boxes.iter().enumerate() {
            // The boxes come from finite poses: neither call can fail here.
            let _ = if self.started {
                self.bp.update(i as u32, *b)
            } else {
                self.bp.insert(i as u32, *b)
            };
        }
        self.started = true;
        match &self.pool {
            Some(pool) => {
                let bp = &mut self.bp;
                pool.install(|| bp.overlapping_pairs(out));
            }
            None => self.bp.overlapping_pairs(out),
        }
    }
}

/// Every broad phase of this build; `cell` is the grid's cell size and `margin` the fat
/// margin of the trees that take one (parry's; ours is relative, see the scene command).
pub fn broad_methods(cell: Real, margin: Real) -> Vec<Box<dyn BroadMethod>> {
    let mut sequential_grid = Grid::new(cell);
    sequential_grid.set_parallel(false);
    #[allow(unused_mut)]
    let mut m: Vec<Box<dyn BroadMethod>> = vec![
        Ours::boxed("minkowski grid", sequential_grid, None),
        Ours::boxed("minkowski sap", SweepAndPrune::new(), None),
        Ours::boxed("minkowski tree", DynamicTree::new(0.5, 0.0), None),
        Ours::boxed(GRID_TWO_THREADS, Grid::new(cell), Some(2)),
    ];
    #[cfg(feature = "bullet")]
    m.push(Box::new(bullet::Dbvt::new()));
    #[cfg(feature = "parry")]
    m.push(Box::new(parry::ParryBvh::new(margin)));
    let _ = margin;
    m
}

#[cfg(feature = "bullet")]
mod bullet {
    #![allow(unsafe_code)]
    use super::{Aabb, BroadMethod};
    use minkowski::Real;
    use std::os::raw::{c_int, c_long, c_void};

    extern "C" {
        fn mk_bullet_dbvt_new() -> *mut c_void;
        fn mk_bullet_dbvt_free(p: *mut c_void);
        fn mk_bullet_dbvt_set(p: *mut c_void, id: c_int, mins: *const Real, maxs: *const Real);
        fn mk_bullet_dbvt_pairs(p: *mut c_void, out: *mut c_int, cap: c_long) -> c_long;
    }

    /// Bullet's btDbvtBroadphase.
    pub struct Dbvt {
        ptr: *mut c_void,
        buf: Vec<c_int>,
    }

    impl Dbvt {
        pub fn new() -> Dbvt {
            // SAFETY: no arguments; the shim returns an owned broad phase.
            Dbvt {
                ptr: unsafe { mk_bullet_dbvt_new() },
                buf: Vec::new(),
            }
        }
    }

    impl Drop for Dbvt {
        fn drop(&mut self) {
            // SAFETY: `ptr` came from mk_bullet_dbvt_new and is freed once.
            unsafe { mk_bullet_dbvt_free(self.ptr) }
        }
    }

    impl BroadMethod for Dbvt {
        fn name(&self) -> &'static str {
            "bullet dbvt"
        }
        fn frame(&mut self, boxes: &[Aabb], out: &mut Vec<(u32, u32)>) {
            for (i, b) in boxes.iter().enumerate() {
                let (lo, hi) = (b.mins.to_array(), b.maxs.to_array());
                // SAFETY: live broad phase; three numbers each.
                unsafe { mk_bullet_dbvt_set(self.ptr, i as c_int, lo.as_ptr(), hi.as_ptr()) };
            }
            loop {
                let cap = self.buf.len() / 2;
                // SAFETY: `buf` holds 2 × cap ints; the shim writes at most that many.
                let n =
                    unsafe { mk_bullet_dbvt_pairs(self.ptr, self.buf.as_mut_ptr(), cap as c_long) }
                        as usize;
                if n <= cap {
                    out.clear();
                    for k in 0..n {
                        let (a, b) = (self.buf[2 * k] as u32, self.buf[2 * k + 1] as u32);
                        if boxes[a as usize].intersects(&boxes[b as usize]) {
                            out.push((a.min(b), a.max(b)));
                        }
                    }
                    return;
                }
                // Too small: grow and ask again (the second call finds no new pairs).
                self.buf.resize(4 * n, 0);
            }
        }
    }
}

#[cfg(feature = "parry")]
mod parry {
    use super::{Aabb, BroadMethod};
    use p::bounding_volume::Aabb as PAabb;
    use p::math::{Real, Vector};
    use p::partitioning::{Bvh, BvhWorkspace};
    #[cfg(not(feature = "f64"))]
    use parry3d as p;
    #[cfg(feature = "f64")]
    use parry3d_f64 as p;

    /// parry's Bvh used as rapier uses it: partial updates with a change-detection
    /// margin, refit, self traversal, incremental optimisation.
    pub struct ParryBvh {
        bvh: Bvh,
        ws: BvhWorkspace,
        margin: Real,
    }

    impl ParryBvh {
        pub fn new(margin: minkowski::Real) -> ParryBvh {
            ParryBvh {
                bvh: Bvh::new(),
                ws: BvhWorkspace::default(),
                margin: margin as Real,
            }
        }
    }

    impl BroadMethod for ParryBvh {
        fn name(&self) -> &'static str {
            "parry bvh"
        }
        fn frame(&mut self, boxes: &[Aabb], out: &mut Vec<(u32, u32)>) {
            let v = |a: minkowski::Vector| Vector::new(a.x as Real, a.y as Real, a.z as Real);
            for (i, b) in boxes.iter().enumerate() {
                self.bvh.insert_or_update_partially(
                    PAabb::new(v(b.mins), v(b.maxs)),
                    i as u32,
                    self.margin,
                );
            }
            self.bvh.refit(&mut self.ws);
            out.clear();
            self.bvh
                .traverse_bvtt_single_tree::<false>(&mut self.ws, &mut |a, b| {
                    if boxes[a as usize].intersects(&boxes[b as usize]) {
                        out.push((a.min(b), a.max(b)));
                    }
                });
            self.bvh.optimize_incremental(&mut self.ws);
        }
    }
}
