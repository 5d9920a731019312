//! Quickhull in 3D (C. B. Barber, D. P. Dobkin and H. Huhdanpaa, "The quickhull
//! algorithm for convex hulls", ACM TOMS 22(4), 1996), with exact predicates.
//!
//! Start from a tetrahedron of four extreme points and give every other point to one
//! face it lies strictly above (its *conflict list*); points above no face are inside
//! and dropped for good. Then, while some face has conflicts, take its furthest point
//! (the *eye*), find the faces the eye sees (strictly above), walk their boundary (the
//! *horizon*, a simple cycle of edges), replace the visible faces by a cone of new
//! triangles from the horizon to the eye, and hand the orphaned points to the first new
//! face they lie above. A point above a visible face that is above no new face is inside
//! the new hull (Barber et al., Lemma 3), so it is dropped too.
//!
//! Departures from the paper:
//!
//! * **Exact decisions, no thick facets.** Qhull handles rounding with "thick" facets and
//!   post-merging. Here "strictly above" is Shewchuk's exact `orient3d`, so the visible
//!   set is exactly the set of faces whose plane separates the eye from the hull, the
//!   horizon is always a simple cycle, and no new triangle is ever degenerate (an eye
//!   collinear with a horizon edge would lie in the plane of the visible face across
//!   that edge). Floating point is used only to pick the furthest point, which affects
//!   speed, never correctness.
//! * **Merging after the fact.** The triangulated hull may hold exactly coplanar
//!   neighbours (a cube's faces, or a point that landed exactly on a face's plane
//!   outside it). They are merged into polygons by flood fill, and vertices left on a
//!   straight polygon side (or inside a merged face) are dropped, so the output has
//!   extreme points only.
//! * **Lower dimensions are answers, not errors.** Fewer than four affinely independent
//!   points give a [`Dimension::Polygon`] (2D hull in the plane), a [`Dimension::Segment`]
//!   or a [`Dimension::Point`].
//!
//! Cost: O(n log n) expected for points in general position (each point is tested
//! against O(log n) faces on average), O(n h) in the worst case.

use std::collections::BinaryHeap;

use glam::{DVec2, DVec3};

use super::convex_hull::{assemble, ConvexHull, Dimension};
use super::predicates::{collinear3, lex3_cmp, orient3, prepare3, prepare3_f64, UNDERFLOW};
use super::{exact, join_chains, monotone_chains, sorted_unique, HullError};
use crate::math::{Point, Real, Vector};

const NONE: u32 = u32::MAX;

/// Conflict lists shorter than this are processed depth first (see `Builder::schedule`).
const SMALL_FACE: u32 = 1024;

/// The convex hull of a 3D point set.
///
/// Returns the hull in the input's frame and units: see [`ConvexHull`] for the
/// conventions (extreme points only, merged counter-clockwise polygon faces, adjacency)
/// and [`Dimension`] for degenerate input. Duplicated, coplanar and collinear points, and
/// coordinates of very different magnitudes (subnormals beside the largest accepted), are
/// all handled exactly: see the [module notes](super#subnormal-and-wide-range-coordinates).
///
/// # Errors
/// [`HullError::Empty`] for no points, [`HullError::NonFinitePoint`] /
/// [`HullError::OutOfRange`] naming the first bad point. Never panics.
///
/// ```
/// use minkowski::{hull::{quickhull3d, Dimension}, Real, Vector};
/// let mut pts = Vec::new();
/// for i in 0..8 {
///     let bit = |k: i32| ((i >> k) & 1) as Real;
///     pts.push(Vector::new(bit(0), bit(1), bit(2)));
/// }
/// pts.push(Vector::splat(0.5)); // inside
/// pts.push(Vector::new(0.5, 0.5, 1.0)); // on the top face
/// let hull = quickhull3d(&pts).unwrap();
/// assert_eq!(hull.dimension(), Dimension::Polyhedron);
/// assert_eq!((hull.vertices().len(), hull.num_faces()), (8, 6)); // six quadrilaterals
/// assert!((hull.volume() - 1.0).abs() < 1e-6);
/// hull.validate(&pts).unwrap();
/// ```
pub fn quickhull3d(points: &[Point]) -> Result<ConvexHull, HullError> {
    quickhull3d_prepared(prepare3(points)?, &|i| points[i])
}

/// [`quickhull3d`] on `f64` points whatever the build's precision: the decisions are
/// exact for the `f64` coordinates given (no rounding to `f32` first). Coordinates may be
/// up to [`super::MAX_MAGNITUDE_F64`] in magnitude. In the `f32` build the hull's
/// [`vertices`](ConvexHull::vertices) are the inputs rounded to `f32`; use
/// [`source_indices`](ConvexHull::source_indices) for the exact ones.
///
/// # Errors
/// As [`quickhull3d`].
pub fn quickhull3d_f64(points: &[DVec3]) -> Result<ConvexHull, HullError> {
    quickhull3d_prepared(prepare3_f64(points)?, &|i| {
        let q = points[i];
        Point::new(q.x as Real, q.y as Real, q.z as Real)
    })
}

fn quickhull3d_prepared(
    p: Vec<DVec3>,
    points: &dyn Fn(usize) -> Point,
) -> Result<ConvexHull, HullError> {
    let lex = |a: &usize, b: &usize| lex3_cmp(p[*a], p[*b]);
    let idx = 0..p.len();
    let lo = idx.clone().min_by(lex).ok_or(HullError::Empty)?;
    let hi = idx.max_by(lex).ok_or(HullError::Empty)?;
    if p[lo] == p[hi] {
        return Ok(assemble(
            Dimension::Point,
            points,
            vec![lo],
            Vec::new(),
            Vector::ZERO,
        ));
    }
    let Some((i0, i1, i2)) = triangle(&p) else {
        return Ok(assemble(
            Dimension::Segment,
            points,
            vec![lo, hi],
            Vec::new(),
            Vector::ZERO,
        ));
    };
    let Some(i3) = apex(&p, i0, i1, i2) else {
        return planar(points, &p, i0, i1, i2);
    };
    let mut b = Builder::new(&p);
    b.run([i0, i1, i2, i3])?;
    b.finish(points)
}

/// Three affinely independent points, the first two far apart; `None` if all points are
/// collinear.
fn triangle(p: &[DVec3]) -> Option<(usize, usize, usize)> {
    // The extreme points along the axes; the pair furthest apart spans the first edge.
    let mut ext = [0usize; 6];
    for (i, q) in p.iter().enumerate() {
        for k in 0..3 {
            if q[k] < p[ext[2 * k]][k] {
                ext[2 * k] = i;
            }
            if q[k] > p[ext[2 * k + 1]][k] {
                ext[2 * k + 1] = i;
            }
        }
    }
    let (mut i0, mut i1, mut best) = (0, 0, -1.0);
    for &a in &ext {
        for &b in &ext {
            let d = p[a].distance_squared(p[b]);
            if d > best {
                (i0, i1, best) = (a, b, d);
            }
        }
    }
    if p[i0] == p[i1] {
        // Cannot happen for a set with two distinct points (some axis separates them),
        // kept as a guard.
        i1 = (0..p.len()).find(|&i| p[i] != p[i0])?;
    }
    let dir = p[i1] - p[i0];
    // (The L1 norm of the cross product: degree two, so that it stays finite for the
    // rescaled coordinates, up to 2³⁰¹.)
    let far = (0..p.len())
        .max_by(|&a, &b| {
            let da = dir.cross(p[a] - p[i0]).abs().element_sum();
            let db = dir.cross(p[b] - p[i0]).abs().element_sum();
            da.total_cmp(&db)
        })
        .filter(|&i| !collinear3(p[i0], p[i1], p[i]));
    let i2 = match far {
        Some(i) => i,
        None => (0..p.len()).find(|&i| !collinear3(p[i0], p[i1], p[i]))?,
    };
    Some((i0, i1, i2))
}

/// A point off the plane of the triangle, as far from it as possible; `None` if all
/// points are coplanar.
fn apex(p: &[DVec3], i0: usize, i1: usize, i2: usize) -> Option<usize> {
    let n = (p[i1] - p[i0]).cross(p[i2] - p[i0]);
    let far = (0..p.len())
        .max_by(|&a, &b| {
            let da = n.dot(p[a] - p[i0]).abs();
            let db = n.dot(p[b] - p[i0]).abs();
            da.total_cmp(&db)
        })
        .filter(|&i| orient3(p[i0], p[i1], p[i2], p[i]) != 0.0);
    match far {
        Some(i) => Some(i),
        None => (0..p.len()).find(|&i| orient3(p[i0], p[i1], p[i2], p[i]) != 0.0),
    }
}

/// The hull of a coplanar set: its 2D hull in the plane.
///
/// The normal is the exact normal of the plane rounded to [`Real`], made canonical *after*
/// rounding: its largest-magnitude component (the first of equal ones) is positive, and
/// the polygon is counter-clockwise about that axis, which is decided exactly. Deciding
/// on the unrounded vector broke near ties: with exact components (−27499, 189000627,
/// −189000630), z was made positive, but in `f32` the returned |y| and |z| were equal,
/// and the normal's "largest component" was then y, negative (fuzz finding
/// `quickhull-polygon-normal-not-canonical`). Newell's floating-point sum also lost the
/// normal altogether (zero) for a triangle 1e-310 high.
fn planar(
    points: &dyn Fn(usize) -> Point,
    p: &[DVec3],
    i0: usize,
    i1: usize,
    i2: usize,
) -> Result<ConvexHull, HullError> {
    let exact_normal =
        exact::normal(p[i0], p[i1], p[i2]).ok_or_else(|| internal("the plane has no normal"))?;
    let unit = exact_normal.normalize();
    let mut normal = Vector::new(unit.x as Real, unit.y as Real, unit.z as Real);
    let k = normal.abs().max_position();
    if normal[k] < 0.0 {
        normal = -normal;
    }
    // No −0.0 components (a zero negated, or a negative one too small to represent).
    normal += Vector::ZERO;
    // The rounded component `k` is the largest of a unit vector, so the exact one is not
    // zero: the projection along axis k (keeping the other two in cyclic order, which
    // preserves orientation) is not flat, and a counter-clockwise ring in it is
    // counter-clockwise about the normal, whose k component is positive.
    let proj = |q: DVec3| DVec2::new(q[(k + 1) % 3], q[(k + 2) % 3]);
    let q: Vec<DVec2> = p.iter().map(|&x| proj(x)).collect();
    let sorted = sorted_unique(&q);
    let (lower, upper) = monotone_chains(&q, &sorted);
    let mut ring = join_chains(&q, &lower, &upper);
    // Start at the lexicographically smallest vertex.
    let first = (0..ring.len())
        .min_by(|&a, &b| lex3_cmp(p[ring[a]], p[ring[b]]))
        .unwrap_or(0);
    ring.rotate_left(first);
    let face: Vec<u32> = (0..ring.len() as u32).collect();
    Ok(assemble(
        Dimension::Polygon,
        points,
        ring,
        vec![face],
        normal,
    ))
}

#[derive(Clone)]
struct Face {
    v: [u32; 3],
    adj: [u32; 3],
    /// Unnormalised outward normal `(b − a) × (c − a)` as computed in floating point,
    /// and the componentwise sums of the absolute products it came from (for the
    /// filter's error bound; see [`Builder::above`]).
    n: DVec3,
    n_abs: DVec3,
    a: DVec3,
    head: u32,
    count: u32,
    best: u32,
    best_dist: f64,
    alive: bool,
    mark: u32,
    visible: bool,
}

struct Builder<'a> {
    p: &'a [DVec3],
    faces: Vec<Face>,
    free: Vec<u32>,
    /// Conflict lists: `next[q]` is the point after `q` in its face's list.
    next: Vec<u32>,
    /// Faces with many conflicts, largest conflict list first.
    pending: BinaryHeap<(u32, u32)>,
    /// Faces with few conflicts, last in first out.
    pending_small: Vec<u32>,
    epoch: u32,
    visible: Vec<u32>,
    horizon: Vec<(u32, u8)>,
    stack: Vec<(u32, u8, u8)>,
    cone: Vec<u32>,
    orphans: Vec<u32>,
}

impl<'a> Builder<'a> {
    fn new(p: &'a [DVec3]) -> Self {
        Self {
            p,
            faces: Vec::new(),
            free: Vec::new(),
            next: vec![NONE; p.len()],
            pending: BinaryHeap::new(),
            pending_small: Vec::new(),
            epoch: 0,
            visible: Vec::new(),
            horizon: Vec::new(),
            stack: Vec::new(),
            cone: Vec::new(),
            orphans: Vec::new(),
        }
    }

    /// Whether point `q` is strictly above face `f` — exactly.
    ///
    /// A floating-point filter decides first: with `u = b − a`, `v = c − a`, `w = q − a`
    /// and `n = u × v` all computed in floating point, `d = n · w` differs from the exact
    /// determinant by less than `16 ε Σᵢ Nᵢ |wᵢ|`, where `Nᵢ` is the sum of the absolute
    /// values of the two products forming `nᵢ` (each subtraction, product and sum adds at
    /// most one relative rounding of its operands' absolute values, about 8ε in all; 16
    /// is a safe round-up). The rescaled coordinates are below 2³⁰¹, so nothing overflows
    /// (`Nᵢ |wᵢ|` < 2⁹¹⁰). Underflow adds at most half the smallest subnormal,
    /// `η = 2⁻¹⁰⁷⁵`, to each product (subnormal sums and differences are exact): at most
    /// `2η` to each `nᵢ`, which `d` multiplies by `|wᵢ|`, and `η` to each `nᵢ wᵢ`, so at most
    /// `2η (Σ|wᵢ| + 2)` in all; the absolute term [`UNDERFLOW`]` (1 + Σ|wᵢ|)` covers it
    /// with room to spare. (A fixed term does not: with `|w|` up to 2³⁰¹ the underflow of
    /// `n` is amplified far beyond it.) When `|d|` is above the bound its sign is the
    /// exact sign; otherwise the exact predicate decides.
    #[inline]
    fn above(&self, f: u32, q: u32) -> bool {
        match filtered_side(&self.faces[f as usize], self.p[q as usize]) {
            Some(s) => s > 0.0,
            None => self.above_exact(f, q),
        }
    }

    /// [`above`](Self::above) when the filter cannot tell. Out of line, reading the
    /// points again: keeping them live across the call from `above` cost a stack round
    /// trip (a store-forwarding stall) on every side test, and quickhull twice its time.
    #[inline(never)]
    fn above_exact(&self, f: u32, q: u32) -> bool {
        let (v, p) = (&self.faces[f as usize].v, self.p);
        orient3(
            p[v[0] as usize],
            p[v[1] as usize],
            p[v[2] as usize],
            p[q as usize],
        ) > 0.0
    }

    fn new_face(&mut self, a: u32, b: u32, c: u32) -> u32 {
        let p = self.p;
        let (pa, pb, pc) = (p[a as usize], p[b as usize], p[c as usize]);
        let (u, w) = (pb - pa, pc - pa);
        let n = u.cross(w);
        let (ua, wa) = (u.abs(), w.abs());
        let n_abs = DVec3::new(
            ua.y * wa.z + ua.z * wa.y,
            ua.z * wa.x + ua.x * wa.z,
            ua.x * wa.y + ua.y * wa.x,
        );
        let face = Face {
            v: [a, b, c],
            adj: [NONE; 3],
            n,
            n_abs,
            a: pa,
            head: NONE,
            count: 0,
            best: NONE,
            best_dist: f64::NEG_INFINITY,
            alive: true,
            mark: 0,
            visible: false,
        };
        if let Some(f) = self.free.pop() {
            self.faces[f as usize] = face;
            f
        } else {
            self.faces.push(face);
            (self.faces.len() - 1) as u32
        }
    }

    /// Queues the faces of `faces` that have conflicts. Faces with many conflicts go
    /// first, largest first: their eyes discard the most interior points early, which on
    /// a uniform ball cuts the number of side tests threefold against depth-first order.
    /// Faces with few conflicts are then taken depth first, which keeps the work local
    /// (and the caches warm) when most points are on the hull.
    fn schedule(&mut self, faces: &[u32]) {
        for &f in faces {
            let c = self.faces[f as usize].count;
            if c >= SMALL_FACE {
                self.pending.push((c, f));
            } else if c > 0 {
                self.pending_small.push(f);
            }
        }
    }

    fn next_face(&mut self) -> Option<u32> {
        match self.pending.pop() {
            Some((_, f)) => Some(f),
            None => self.pending_small.pop(),
        }
    }

    #[inline]
    fn add_conflict(&mut self, f: u32, q: u32) {
        let dist = {
            let face = &self.faces[f as usize];
            face.n.dot(self.p[q as usize] - face.a)
        };
        let face = &mut self.faces[f as usize];
        face.count += 1;
        self.next[q as usize] = face.head;
        face.head = q;
        if dist > face.best_dist {
            face.best_dist = dist;
            face.best = q;
        }
    }

    fn run(&mut self, [i0, i1, i2, i3]: [usize; 4]) -> Result<(), HullError> {
        let (a, b, c, d) = (i0 as u32, i1 as u32, i2 as u32, i3 as u32);
        let p = self.p;
        // Orient so that the fourth point is below the base (outward normals).
        let (b, c) = if orient3(p[i0], p[i1], p[i2], p[i3]) > 0.0 {
            (c, b)
        } else {
            (b, c)
        };
        let base = [
            self.new_face(a, b, c),
            self.new_face(a, d, b),
            self.new_face(b, d, c),
            self.new_face(c, d, a),
        ];
        self.link(&base);
        for q in 0..p.len() as u32 {
            if q == a || q == b || q == c || q == d {
                continue;
            }
            if let Some(&f) = base.iter().find(|&&f| self.above(f, q)) {
                self.add_conflict(f, q);
            }
        }
        self.schedule(&base);
        // Every iteration makes one point a hull vertex and removes it from the conflict
        // lists, so there are at most n iterations.
        let mut iterations = 0usize;
        while let Some(f) = self.next_face() {
            let face = &self.faces[f as usize];
            if !face.alive || face.head == NONE {
                continue;
            }
            iterations += 1;
            if iterations > p.len() {
                return Err(internal("more iterations than points"));
            }
            let eye = face.best;
            self.add_point(f, eye)?;
        }
        Ok(())
    }

    /// Sets the adjacency of faces that share edges (used for the first tetrahedron).
    fn link(&mut self, faces: &[u32]) {
        for &f in faces {
            for e in 0..3 {
                let (u, v) = (
                    self.faces[f as usize].v[e],
                    self.faces[f as usize].v[(e + 1) % 3],
                );
                for &g in faces {
                    let gv = self.faces[g as usize].v;
                    if (0..3).any(|j| gv[j] == v && gv[(j + 1) % 3] == u) {
                        self.faces[f as usize].adj[e] = g;
                    }
                }
            }
        }
    }

    fn add_point(&mut self, start: u32, eye: u32) -> Result<(), HullError> {
        self.epoch = self.epoch.wrapping_add(1).max(1);
        let epoch = self.epoch;
        self.visible.clear();
        self.horizon.clear();
        self.stack.clear();
        {
            let f = &mut self.faces[start as usize];
            f.mark = epoch;
            f.visible = true;
        }
        self.visible.push(start);
        // Depth-first walk over the visible faces, each face's edges taken in
        // counter-clockwise order from the one it was entered by: the horizon edges come
        // out in order around the visible region.
        self.stack.push((start, 3, 0));
        while let Some(top) = self.stack.last_mut() {
            let (f, entry, k) = *top;
            let limit = if entry == 3 { 3 } else { 2 };
            if k == limit {
                self.stack.pop();
                continue;
            }
            top.2 += 1;
            let e = if entry == 3 { k } else { (entry + 1 + k) % 3 };
            let g = self.faces[f as usize].adj[e as usize];
            let gf = &self.faces[g as usize];
            if gf.mark == epoch {
                if !gf.visible {
                    self.horizon.push((f, e));
                }
                continue;
            }
            let vis = self.above(g, eye);
            let gf = &mut self.faces[g as usize];
            gf.mark = epoch;
            gf.visible = vis;
            if vis {
                let j = (0..3u8)
                    .find(|&j| gf.adj[j as usize] == f)
                    .ok_or_else(|| internal("adjacency is not symmetric"))?;
                self.visible.push(g);
                self.stack.push((g, j, 0));
            } else {
                self.horizon.push((f, e));
            }
        }
        // The horizon must be a closed chain.
        let h = self.horizon.len();
        if h < 3 {
            return Err(internal("horizon shorter than three edges"));
        }
        let edge = |s: &Self, (f, e): (u32, u8)| {
            let v = s.faces[f as usize].v;
            (v[e as usize], v[(e as usize + 1) % 3])
        };
        for i in 0..h {
            if edge(self, self.horizon[i]).1 != edge(self, self.horizon[(i + 1) % h]).0 {
                return Err(internal("horizon is not a cycle"));
            }
        }
        // Orphaned points of the visible faces; the faces die.
        self.orphans.clear();
        for i in 0..self.visible.len() {
            let f = self.visible[i];
            let mut q = self.faces[f as usize].head;
            while q != NONE {
                if q != eye {
                    self.orphans.push(q);
                }
                q = self.next[q as usize];
            }
        }
        // The cone of new faces (created before the visible faces are freed, so that no
        // slot is reused while the horizon still refers to it).
        self.cone.clear();
        for i in 0..h {
            let (f, e) = self.horizon[i];
            let (u, v) = edge(self, (f, e));
            let other = self.faces[f as usize].adj[e as usize];
            let nf = self.new_face(u, v, eye);
            self.faces[nf as usize].adj[0] = other;
            let o = &mut self.faces[other as usize];
            let j = (0..3)
                .find(|&j| o.v[j] == v && o.v[(j + 1) % 3] == u)
                .ok_or_else(|| internal("horizon neighbour lacks the edge"))?;
            o.adj[j] = nf;
            self.cone.push(nf);
        }
        for i in 0..h {
            let nf = self.cone[i] as usize;
            self.faces[nf].adj[1] = self.cone[(i + 1) % h];
            self.faces[nf].adj[2] = self.cone[(i + h - 1) % h];
        }
        for i in 0..self.visible.len() {
            let f = self.visible[i];
            self.faces[f as usize].alive = false;
            self.faces[f as usize].head = NONE;
            self.free.push(f);
        }
        // Consecutive orphans tend to lie above the same new face: start each search
        // where the last one succeeded.
        let mut last = 0;
        for i in 0..self.orphans.len() {
            let q = self.orphans[i];
            if let Some(j) = (0..h)
                .map(|k| (last + k) % h)
                .find(|&j| self.above(self.cone[j], q))
            {
                self.add_conflict(self.cone[j], q);
                last = j;
            }
        }
        let cone = std::mem::take(&mut self.cone);
        self.schedule(&cone);
        self.cone = cone;
        Ok(())
    }

    /// Merges coplanar neighbours into polygons, drops non-extreme vertices and assembles
    /// the hull.
    fn finish(self, points: &dyn Fn(usize) -> Point) -> Result<ConvexHull, HullError> {
        let p = self.p;
        let alive: Vec<u32> = (0..self.faces.len() as u32)
            .filter(|&f| self.faces[f as usize].alive)
            .collect();
        // Union-find over coplanar neighbours.
        let mut parent: Vec<u32> = (0..self.faces.len() as u32).collect();
        fn root(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                parent[x as usize] = parent[parent[x as usize] as usize];
                x = parent[x as usize];
            }
            x
        }
        for &f in &alive {
            let face = &self.faces[f as usize];
            for e in 0..3 {
                let g = face.adj[e];
                if g < f {
                    continue;
                }
                let gv = self.faces[g as usize].v;
                let apex = gv
                    .iter()
                    .copied()
                    .find(|&x| x != face.v[e] && x != face.v[(e + 1) % 3])
                    .ok_or_else(|| internal("neighbour shares all vertices"))?;
                let [a, b, c] = face.v.map(|i| p[i as usize]);
                let x = p[apex as usize];
                if filtered_side(face, x).is_none() && orient3(a, b, c, x) == 0.0 {
                    let (rf, rg) = (root(&mut parent, f), root(&mut parent, g));
                    parent[rf as usize] = rg;
                }
            }
        }
        // Triangles with no coplanar neighbour are faces as they are; the others are
        // traced: boundary edges of each merged region, grouped by region.
        let mut region_size = vec![0u32; self.faces.len()];
        for &f in &alive {
            region_size[root(&mut parent, f) as usize] += 1;
        }
        let mut polygons: Vec<Vec<u32>> = Vec::with_capacity(alive.len());
        let mut boundary: Vec<(u32, u32, u32)> = Vec::new();
        for &f in &alive {
            let face = &self.faces[f as usize];
            let rf = root(&mut parent, f);
            if region_size[rf as usize] == 1 {
                polygons.push(face.v.to_vec());
                continue;
            }
            for e in 0..3 {
                if root(&mut parent, face.adj[e]) != rf {
                    boundary.push((rf, face.v[e], face.v[(e + 1) % 3]));
                }
            }
        }
        boundary.sort_unstable();
        let mut i = 0;
        while i < boundary.len() {
            let region = boundary[i].0;
            let mut j = i;
            while j < boundary.len() && boundary[j].0 == region {
                j += 1;
            }
            let edges = &boundary[i..j];
            // Follow the cycle: each vertex starts exactly one boundary edge.
            let mut ring = Vec::with_capacity(edges.len());
            let start = edges[0].1;
            let mut cur = start;
            for _ in 0..edges.len() {
                ring.push(cur);
                let k = edges
                    .binary_search_by(|x| x.1.cmp(&cur))
                    .map_err(|_| internal("face boundary is open"))?;
                cur = edges[k].2;
                if cur == start {
                    break;
                }
            }
            if cur != start || ring.len() != edges.len() {
                return Err(internal("face boundary is not one cycle"));
            }
            // Drop corners that are not corners (on a straight side).
            let m = ring.len();
            let corners: Vec<u32> = (0..m)
                .filter(|&k| {
                    let (u, v, w) = (ring[(k + m - 1) % m], ring[k], ring[(k + 1) % m]);
                    !collinear3(p[u as usize], p[v as usize], p[w as usize])
                })
                .map(|k| ring[k])
                .collect();
            if corners.len() < 3 {
                return Err(internal("a face collapsed"));
            }
            polygons.push(corners);
            i = j;
        }
        // Vertices: the corners, numbered in input order.
        let mut used: Vec<u32> = polygons.iter().flatten().copied().collect();
        used.sort_unstable();
        used.dedup();
        let mut index = vec![NONE; p.len()];
        for (k, &v) in used.iter().enumerate() {
            index[v as usize] = k as u32;
        }
        let faces: Vec<Vec<u32>> = polygons
            .into_iter()
            .map(|poly| poly.into_iter().map(|v| index[v as usize]).collect())
            .collect();
        let source: Vec<usize> = used.into_iter().map(|v| v as usize).collect();
        Ok(assemble(
            Dimension::Polyhedron,
            points,
            source,
            faces,
            Vector::ZERO,
        ))
    }
}

/// The sign of `orient3(face, x)` if the floating-point filter can certify it (see
/// [`Builder::above`]), as ±1; `None` when it cannot (zero is always left to the exact
/// predicate).
#[inline]
fn filtered_side(face: &Face, x: DVec3) -> Option<f64> {
    let w = x - face.a;
    let d = face.n.dot(w);
    let wa = w.abs();
    let bound = 16.0 * f64::EPSILON * face.n_abs.dot(wa) + UNDERFLOW * (1.0 + wa.element_sum());
    if d > bound {
        Some(1.0)
    } else if d < -bound {
        Some(-1.0)
    } else {
        None
    }
}

fn internal(what: &str) -> HullError {
    HullError::Internal {
        reason: what.to_string(),
    }
}
