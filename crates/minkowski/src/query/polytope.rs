//! EPA's polytope: a convex triangle mesh around the origin, inside `D = A ⊖ B`, that
//! grows one support point at a time (see [`crate::query::epa`] for the algorithm that
//! drives it).
//!
//! Faces are triangles listed counter-clockwise seen from outside, each with its
//! neighbours across its three edges, its outward unit normal `n` and plane offset
//! `d = n · x`. Three operations:
//!
//! * **best face** ([`Polytope::nearest_face`]): the live face nearest the origin, by a
//!   linear scan of the live faces' keys, each the plane offset (a lower bound of the
//!   distance to the triangle) until the face is the front-runner, when the exact
//!   distance to the triangle is computed;
//! * **expand** ([`Polytope::expand`]): add a support point `w`: remove the connected
//!   patch of faces that `w` is not clearly below, found by a depth-first walk over
//!   adjacency from the face it was found for, whose boundary (the *horizon*) comes out
//!   as one loop of edges; fan new faces from the horizon to `w`; then check, before
//!   using them, that no new face is inverted, the fan closes, and no live face borders
//!   a removed one;
//! * **answer** ([`Polytope::answer`]): depth, normal and witness points of a face.
//!
//! All arithmetic is in double precision whatever [`Real`] is (EPA's module doc says
//! why). Buffers are kept between runs: no allocation once they have grown. Faces
//! removed are not reclaimed within a run, so the face count measures the work done.

use crate::math::{Point, Real, Vector};
use crate::support::SupportPoint;
use crate::tolerance;
use glam::DVec3;

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Face {
    v: [u32; 3],
    /// Face across edge `e` (edge `e` runs from `v[e]` to `v[(e + 1) % 3]`).
    adj: [u32; 3],
    /// Which edge of that neighbour is shared.
    adj_edge: [u8; 3],
    pub n: DVec3,
    /// Plane offset `n · x` of the face's points (negative when the origin is outside
    /// the plane): the depth along `n` if this face is the nearest.
    pub plane: f64,
    /// Selection key: the distance from the origin to the triangle once `exact`, and
    /// until then the plane offset (a lower bound of it).
    pub key: f64,
    /// Whether `key` is the triangle distance (computed lazily for the front-runner).
    exact: bool,
    alive: bool,
    /// Where the face's entry is in the live-face list (while alive).
    slot: u32,
    /// Last expansion pass that visited this face.
    pass: u32,
}

/// A face's place in the selection order, as one integer: its key in the high bits,
/// transformed as [`f64::total_cmp`] does (flip the magnitude bits of negative numbers)
/// so that integers order as keys do, and the face's index in the low 32 bits, so that
/// among equal keys the older face comes first. The scan for the nearest face then
/// compares single integers, without branching on ties.
fn rank(key: f64, face: u32) -> i128 {
    let bits = key.to_bits() as i64;
    let ordered = bits ^ (((bits >> 63) as u64) >> 1) as i64;
    (i128::from(ordered) << 32) | i128::from(face)
}

/// The polytope and its scratch buffers (see the module documentation).
#[derive(Debug, Default, Clone)]
pub(crate) struct Polytope {
    verts: Vec<SupportPoint>,
    /// `verts[i].w` in double precision.
    wide: Vec<DVec3>,
    faces: Vec<Face>,
    horizon: Vec<(u32, u8)>,
    stack: Vec<(u32, u8)>,
    /// The live-face list, in any order (a removed face's entry is replaced by the last
    /// one): each live face's rank, see [`rank`].
    live: Vec<i128>,
    /// Expansion passes so far (marks the faces each pass visits).
    pass: u32,
    /// A point strictly inside the polytope for good (the first tetrahedron's centroid;
    /// the polytope only grows): every face must have it below its plane, which catches
    /// an inverted face before it is used.
    interior: DVec3,
}

/// Adjacency of the first tetrahedron, fixed by the face list of [`Polytope::start`]:
/// entry `[f][e]` is the (face, edge) across edge `e` of face `f` (edge `e` runs from
/// `v[e]` to `v[e + 1]`).
const TETRA_FACES: [[u32; 3]; 4] = [[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]];
const TETRA_ADJ: [[(u32, u8); 3]; 4] = [
    [(3, 2), (2, 0), (1, 0)],
    [(0, 2), (2, 2), (3, 0)],
    [(0, 1), (3, 1), (1, 1)],
    [(1, 2), (2, 1), (0, 0)],
];

impl Polytope {
    /// Empty buffers (no allocation until first used).
    pub const EMPTY: Polytope = Polytope {
        verts: Vec::new(),
        wide: Vec::new(),
        faces: Vec::new(),
        horizon: Vec::new(),
        stack: Vec::new(),
        live: Vec::new(),
        pass: 0,
        interior: DVec3::ZERO,
    };

    /// Starts a new polytope: the tetrahedron `pts`, oriented so that its faces point
    /// outwards. `false` when a face has no area (the tetrahedron is flat within
    /// rounding); the vertices are kept for [`Self::flat_normal`].
    pub fn start(&mut self, pts: [SupportPoint; 4]) -> bool {
        self.verts.clear();
        self.wide.clear();
        self.faces.clear();
        self.live.clear();
        self.pass = 0;
        for p in pts {
            self.push_vertex(p);
        }
        // Orient the tetrahedron so that faces listed counter-clockwise face outwards.
        let [p0, p1, p2, p3] = [0, 1, 2, 3].map(|i| self.wide[i]);
        if (p1 - p0).dot((p2 - p0).cross(p3 - p0)) < 0.0 {
            self.verts.swap(1, 2);
            self.wide.swap(1, 2);
        }
        for f in TETRA_FACES {
            if self.add_face(f).is_none() {
                return false;
            }
        }
        for (f, adj) in TETRA_ADJ.iter().enumerate() {
            for (e, &(g, ge)) in adj.iter().enumerate() {
                self.faces[f].adj[e] = g;
                self.faces[f].adj_edge[e] = ge;
            }
        }
        self.interior = (self.wide[0] + self.wide[1] + self.wide[2] + self.wide[3]) * 0.25;
        true
    }

    /// The normal of the first tetrahedron's best-conditioned face: the answer's normal
    /// when the polytope cannot be built or expanded because `D` is flat within
    /// rounding.
    pub fn flat_normal(&self) -> Vector {
        let [a, b, c, d] = [0, 1, 2, 3].map(|i| self.wide[i]);
        [
            (b - a).cross(c - a),
            (b - a).cross(d - a),
            (c - a).cross(d - a),
        ]
        .into_iter()
        .max_by(|x, y| x.length_squared().total_cmp(&y.length_squared()))
        .and_then(DVec3::try_normalize)
        .map(narrow)
        .unwrap_or(Vector::Y)
    }

    /// Vertices so far.
    pub fn vertex_count(&self) -> usize {
        self.verts.len()
    }

    /// Faces ever created in this run (removed ones included).
    pub fn face_count(&self) -> usize {
        self.faces.len()
    }

    /// The face `f`.
    pub fn face(&self, f: u32) -> Face {
        self.faces[f as usize]
    }

    /// The live face nearest the origin, by the distance from the origin to the
    /// triangle (Bullet's EPA ranks its faces the same way), or `None` when no face is
    /// left (only reachable through non-finite arithmetic). Ties go to the oldest face.
    ///
    /// On a convex polytope that is the face with the least plane offset, which the
    /// origin projects into; ranking by the triangle keeps a sliver face, whose plane
    /// passes near the origin far from the triangle itself, from winning after
    /// rounding. The plane offset is a lower bound of the triangle distance, so the
    /// exact distance is only computed for the front-runner (usually once).
    ///
    /// A linear scan of the live-face list rather than a priority queue: EPA's polytope
    /// has a few dozen live faces (about twice its vertices, bounded by
    /// [`crate::query::epa::EpaOptions::max_vertices`]) and each expansion replaces a
    /// handful of them, so one pass over a contiguous array of keys costs less than
    /// a queue's pushes and the pops of its stale entries. Removed faces leave the
    /// list as they are removed, so the scan never looks at a face record.
    pub fn nearest_face(&mut self) -> Option<u32> {
        let (mut best, mut second) = least_two(&self.live)?;
        loop {
            let f = self.live[best] as u32;
            if self.faces[f as usize].exact {
                return Some(f);
            }
            // The front-runner's key rises to the triangle distance; it still leads if
            // it stays before the runner-up, else rank again.
            let r = rank(self.settle_key(f as usize), f);
            self.live[best] = r;
            if second.is_none_or(|s| r < self.live[s]) {
                return Some(f);
            }
            (best, second) = least_two(&self.live)?;
        }
    }

    /// Adds the support point `w`, found along face `f`'s normal: removes the faces that
    /// `w` is not below by more than `vis_tol` (a length), and fans new faces from the
    /// horizon to `w`. `false` when rounding broke the polytope (an inverted new face,
    /// a fan that does not close, a live face bordering a removed one); the polytope is
    /// then not to be expanded further, but its faces' answers stay valid bounds.
    pub fn expand(&mut self, f: u32, w: SupportPoint, vis_tol: f64) -> bool {
        self.pass += 1;
        let pass = self.pass;
        let ww = wide(w.w);
        let wi = self.verts.len() as u32;
        self.push_vertex(w);
        self.horizon.clear();
        self.stack.clear();
        self.remove(f);
        self.faces[f as usize].pass = pass;
        // Depth-first walk over the faces seen from w, in edge order so that the
        // horizon edges come out as one consecutive loop.
        for e in (0..3u8).rev() {
            self.stack.push((f, e));
        }
        while let Some((f, e)) = self.stack.pop() {
            let g = self.faces[f as usize].adj[e as usize];
            let ge = self.faces[f as usize].adj_edge[e as usize];
            let gface = &self.faces[g as usize];
            if gface.pass == pass {
                continue;
            }
            // A face is kept only when w is clearly below its plane (Bullet's rule).
            // Keeping a face that w is slightly above would fan a new face across their
            // shared edge, folded over when w lies beyond it (seen: a face inverted by a
            // third of the shapes' size, after which EPA wandered to its bound);
            // removing a face that w is slightly below only dents the polytope by at
            // most `vis_tol`, which `answer` handles.
            if gface.n.dot(ww) - gface.plane > -vis_tol {
                self.remove(g);
                self.faces[g as usize].pass = pass;
                self.stack.push((g, (ge + 2) % 3));
                self.stack.push((g, (ge + 1) % 3));
            } else {
                self.horizon.push((g, ge));
            }
        }
        // Fan new faces: horizon edge (a, b) of the removed region is edge (b, a) of
        // the kept neighbour g; the new face is (a, b, w).
        let first_new = self.faces.len() as u32;
        let count = self.horizon.len();
        if count < 3 {
            return false;
        }
        for i in 0..count {
            let (g, ge) = self.horizon[i];
            let gv = self.faces[g as usize].v;
            let a = gv[(ge as usize + 1) % 3];
            let b = gv[ge as usize];
            match self.add_face([a, b, wi]) {
                Some(nf) => self.link(nf, 0, g, ge),
                None => return false,
            }
        }
        let interior = self.interior;
        if !self.faces[first_new as usize..]
            .iter()
            .all(|f| f.n.dot(interior) < f.plane)
        {
            return false;
        }
        // Consecutive new faces share the edge through w; check the loop closes.
        for i in 0..count {
            let f = first_new + i as u32;
            let nxt = first_new + ((i + 1) % count) as u32;
            if self.faces[f as usize].v[1] != self.faces[nxt as usize].v[0] {
                return false;
            }
            self.link(f, 1, nxt, 2);
        }
        // Topology guard: no face that is still alive may border a removed one. The walk
        // examined every neighbour of every removed face, so the only live faces that
        // can border one are the horizon faces and the new faces.
        let borders_removed = |f: u32| {
            self.faces[f as usize]
                .adj
                .iter()
                .any(|&g| g == u32::MAX || !self.faces[g as usize].alive)
        };
        let broken = self.horizon.iter().any(|&(g, _)| borders_removed(g))
            || (first_new..self.faces.len() as u32).any(borders_removed);
        !broken
    }

    /// Largest height of a vertex above a live face (0 when convex).
    #[cfg(test)]
    pub fn convexity_violation(&self) -> Real {
        let mut worst: f64 = 0.0;
        for f in self.faces.iter().filter(|f| f.alive) {
            for v in &self.wide {
                worst = worst.max(f.n.dot(*v) - f.plane);
            }
        }
        worst as Real
    }
    fn push_vertex(&mut self, p: SupportPoint) {
        self.verts.push(p);
        self.wide.push(wide(p.w));
    }

    /// Unit outward normal and plane offset of the face `v`, or `None` when it has no
    /// area.
    fn face_plane(&self, v: [u32; 3]) -> Option<(DVec3, f64)> {
        let [a, b, c] = v.map(|i| self.wide[i as usize]);
        // Cross the two edges at the corner opposite the longest edge (least cancellation).
        let (lab, lbc, lca) = (
            (b - a).length_squared(),
            (c - b).length_squared(),
            (a - c).length_squared(),
        );
        let n = if lab >= lbc && lab >= lca {
            (a - c).cross(b - c)
        } else if lbc >= lca {
            (b - a).cross(c - a)
        } else {
            (c - b).cross(a - b)
        };
        let len = n.length();
        if !(len.is_finite() && len > 0.0) {
            return None;
        }
        let n = n / len;
        let plane = (n.dot(a) + n.dot(b) + n.dot(c)) / 3.0;
        Some((n, plane))
    }

    /// Makes face `f`'s key exact, and returns it: the plane offset when the origin
    /// projects inside the triangle (or lies outside the plane), otherwise the distance
    /// to the nearest edge.
    fn settle_key(&mut self, f: usize) -> f64 {
        let face = self.faces[f];
        let [a, b, c] = face.v.map(|i| self.wide[i as usize]);
        if face.plane >= 0.0 && projection_weights(a, b, c, face.n, face.plane).is_none() {
            let (q, _) = closest_on_edges(a, b, c);
            self.faces[f].key = q.length().max(face.plane);
        }
        self.faces[f].exact = true;
        self.faces[f].key
    }

    fn add_face(&mut self, v: [u32; 3]) -> Option<u32> {
        let (n, plane) = self.face_plane(v)?;
        self.faces.push(Face {
            v,
            adj: [u32::MAX; 3],
            adj_edge: [0; 3],
            n,
            plane,
            key: plane,
            exact: plane < 0.0,
            alive: true,
            slot: self.live.len() as u32,
            pass: 0,
        });
        let f = self.faces.len() as u32 - 1;
        self.live.push(rank(plane, f));
        Some(f)
    }

    /// Marks face `f` removed and takes its entry out of the live-face list (the last
    /// entry moves into its place). A face already removed is left as it is.
    fn remove(&mut self, f: u32) {
        let face = &mut self.faces[f as usize];
        if !face.alive {
            return;
        }
        face.alive = false;
        let slot = face.slot as usize;
        self.live.swap_remove(slot);
        if let Some(&moved) = self.live.get(slot) {
            self.faces[moved as u32 as usize].slot = slot as u32;
        }
    }

    fn link(&mut self, f: u32, e: u8, g: u32, ge: u8) {
        self.faces[f as usize].adj[e as usize] = g;
        self.faces[f as usize].adj_edge[e as usize] = ge;
        self.faces[g as usize].adj[ge as usize] = f;
        self.faces[g as usize].adj_edge[ge as usize] = e;
    }

    /// The answer carried by face `f`: depth, unit normal and witnesses, consistent by
    /// construction (`point_a − point_b = depth × normal`).
    ///
    /// Normally the origin projects inside the nearest face: the depth is its plane
    /// offset, the normal its normal, and the witnesses the projection's barycentric
    /// coordinates applied to the vertices' source points. Should rounding have left a
    /// dent, so that the nearest point of the polytope lies on an edge of the face, that
    /// point `q` gives the answer instead (depth `‖q‖`, normal `q / ‖q‖`, or the face's
    /// normal when `‖q‖` is within the polytope's rounding, [`tolerance::EPA_VISIBILITY`]
    /// times its coordinates, where `q`'s direction is noise). Only for an
    /// origin inside the face's plane (EPA's `run` handles the other side).
    pub fn answer(&self, f: &Face) -> (f64, DVec3, Point, Point) {
        let [a, b, c] = f.v.map(|i| self.wide[i as usize]);
        let (depth, normal, l) = match projection_weights(a, b, c, f.n, f.plane) {
            Some(l) => (f.plane, f.n, l),
            None => {
                let (q, l) = closest_on_edges(a, b, c);
                let len = q.length();
                // `q` errs by the polytope's rounding: below that its direction is noise
                // (f32: a triangle's corner on a hull's edge, `‖q‖` 3e-15 beside
                // coordinates of 1200, pointed the normal into the hull, along which the
                // shapes overlapped by 24), and the face's normal is the answer's.
                let noise = tolerance::EPA_VISIBILITY * a.length().max(b.length()).max(c.length());
                if len > noise {
                    (len, q / len, l)
                } else {
                    (len, f.n, l)
                }
            }
        };
        let [va, vb, vc] = f.v.map(|i| self.verts[i as usize]);
        let combine = |x: Vector, y: Vector, z: Vector| {
            narrow(wide(x) * l[0] + wide(y) * l[1] + wide(z) * l[2])
        };
        (
            depth,
            normal,
            combine(va.a, vb.a, vc.a),
            combine(va.b, vb.b, vc.b),
        )
    }
}

/// Positions in the live-face list of the least and the second least rank, or `None`
/// when the list is empty.
fn least_two(live: &[i128]) -> Option<(usize, Option<usize>)> {
    let mut best = (*live.first()?, 0);
    let mut second = (i128::MAX, usize::MAX);
    for (i, &r) in live.iter().enumerate().skip(1) {
        if r < best.0 {
            second = best;
            best = (r, i);
        } else if r < second.0 {
            second = (r, i);
        }
    }
    Some((best.1, (second.1 != usize::MAX).then_some(second.1)))
}

/// The point of the edges of triangle `abc` closest to the origin, with its barycentric
/// coordinates (used when the origin's projection falls outside the triangle, where the
/// closest point of the triangle is on an edge).
fn closest_on_edges(a: DVec3, b: DVec3, c: DVec3) -> (DVec3, [f64; 3]) {
    let on = |p: DVec3, q: DVec3| {
        let e = q - p;
        let t = (-p.dot(e) / e.length_squared()).clamp(0.0, 1.0);
        let t = if t.is_finite() { t } else { 0.0 };
        (p + e * t, t)
    };
    let (ab, t1) = on(a, b);
    let (bc, t2) = on(b, c);
    let (ca, t3) = on(c, a);
    let cands = [
        (ab, [1.0 - t1, t1, 0.0]),
        (bc, [0.0, 1.0 - t2, t2]),
        (ca, [t3, 0.0, 1.0 - t3]),
    ];
    let mut best = cands[0];
    for cand in &cands[1..] {
        if cand.0.length_squared() < best.0.length_squared() {
            best = *cand;
        }
    }
    best
}

pub(crate) fn wide(v: Vector) -> DVec3 {
    DVec3::new(v.x as f64, v.y as f64, v.z as f64)
}

pub(crate) fn narrow(v: DVec3) -> Vector {
    Vector::new(v.x as Real, v.y as Real, v.z as Real)
}

/// Barycentric coordinates of the origin's projection `plane × n` on triangle `abc`
/// (unit normal `n`), or `None` when the projection falls outside the triangle.
fn projection_weights(a: DVec3, b: DVec3, c: DVec3, n: DVec3, plane: f64) -> Option<[f64; 3]> {
    let p = n * plane;
    let la = (b - p).cross(c - p).dot(n);
    let lb = (c - p).cross(a - p).dot(n);
    let lc = (a - p).cross(b - p).dot(n);
    let sum = la + lb + lc;
    (la >= 0.0 && lb >= 0.0 && lc >= 0.0 && sum > 0.0).then(|| [la / sum, lb / sum, lc / sum])
}
