//! Contact manifolds between a displaced terrain and the parts of an object, from a
//! detection pass's vertices in the terrain (seed 002 §2.4.2 gives only the test "is
//! this vertex below the surface"; a rigid-body solver needs a normal and depths).
//!
//! Per part with contacts ([`TerrainDetection`]), one [`Manifold`] with the terrain as
//! `A` and the part as `B`:
//!
//! * **Normal**: the unit normal of the Eq 2.2 surface `S(u, v) = p(u, v) + d(u, v)
//!   n(u, v)` at the deepest vertex's `(u, v)` ([`surface_normal`]): `∂S/∂u × ∂S/∂v`
//!   (derived: `∂S/∂u = (P1 − P0) + d (N1 − N0) + (∂d/∂u) n`, with `∂d/∂u` from the
//!   map's bilinear cell through `∂s/∂u`, `∂t/∂u`), oriented along `n(u, v)` (out of
//!   the terrain, toward the part). Depth of a vertex is `(d − t)` in units of `|n|`;
//!   "deepest" compares `(d − t) (n(u, v) · n̂)`, the depth along its own normal.
//! * **Points**: each contact vertex `q` (the part's point, `point_b`) with `S` its
//!   surface point over the same `(u, v)` gives `distance = (q − S) · n̂` (negative:
//!   penetrating) and `point_a = q − distance n̂` (the foot on the tangent plane at
//!   `S`, so that `point_b − point_a = distance × normal`). Vertices whose own surface
//!   normal is more than 60° from `n̂` are left out (they touch another face of the
//!   terrain, e.g. the far side of a cliff or an overhang's underside, and would give
//!   the wrong sign along `n̂`).
//! * **Reduction to four** ([`MAX_MANIFOLD_POINTS`]): the deepest; the farthest from it
//!   in the tangent plane; the one making the largest triangle with those; the one
//!   adding the most area outside that triangle; then sorted by distance, the deepest
//!   first. Feature ids name the part's vertex
//!   (bits 11–21, bits 24–31 set and 0–10 `0x7ff` as a single unclipped vertex), so a
//!   solver can warm-start while the same vertices touch.
//!
//! The normal is that of the surface at one point: for a part lying across a crease or
//! a cliff the other points' depths are measured along it all the same (a manifold has
//! one normal); the points left out by the 60° rule are the sign of such a case.

use super::displaced_terrain::DisplacedTerrain;
use super::terrain_contact::{TerrainDetection, VertexContact};
use crate::math::{Real, Vector};
use crate::query::manifold::MAX_MANIFOLD_POINTS;
use crate::query::{Manifold, ManifoldPoint, QueryStatus};

/// A part's manifold against the terrain.
#[derive(Debug, Clone, PartialEq)]
pub struct TerrainManifold {
    /// The part (index in the detection's input).
    pub part: usize,
    /// The base triangle under the deepest vertex.
    pub triangle: usize,
    /// Terrain as `A`, part as `B`: the normal points out of the terrain; distances are
    /// negative (penetrating); at most four points, the deepest first.
    pub manifold: Manifold,
}

/// Cosine of the largest angle between a vertex's own surface normal and the
/// manifold's for the vertex to be kept (60°).
const SAME_FACE_COS: Real = 0.5;

/// The unit normal of the Eq 2.2 surface of triangle `triangle` at `(u, v)`, pointing
/// along the projection direction (out of the terrain); see the module notes. `None`
/// for an index out of range, a non-finite `(u, v)`, or a degenerate surface there
/// (its tangents parallel).
pub fn surface_normal(
    terrain: &DisplacedTerrain,
    triangle: usize,
    u: Real,
    v: Real,
) -> Option<Vector> {
    if !(u.is_finite() && v.is_finite()) {
        return None;
    }
    let tri = terrain.triangles().get(triangle)?;
    let quad = terrain.layout().quads()[tri.quad()];
    let base = tri.base();
    let [p0, p1, p2] = base.vertices();
    let [n0, n1, n2] = base.directions();
    let d = terrain.displacement(triangle, u, v)?;
    let n = base.direction(u, v);
    // The map's bilinear gradient in the cell holding (s, t), clamped to the quad.
    let (s, t) = tri.map_coordinates(u, v);
    let (lo_s, lo_t) = (quad.s as Real, quad.t as Real);
    let (hi_s, hi_t) = (lo_s + quad.size as Real, lo_t + quad.size as Real);
    let (s, t) = (s.clamp(lo_s, hi_s), t.clamp(lo_t, hi_t));
    let i = (s.floor() as u32).clamp(quad.s, quad.s + quad.size - 1);
    let j = (t.floor() as u32).clamp(quad.t, quad.t + quad.size - 1);
    let (fa, fb) = (s - i as Real, t - j as Real);
    let map = terrain.map();
    let at = |di: u32, dj: u32| map.sample((i + di) as usize, (j + dj) as usize);
    let (d00, d10, d01, d11) = (at(0, 0)?, at(1, 0)?, at(0, 1)?, at(1, 1)?);
    let dd_ds = (1.0 - fb) * (d10 - d00) + fb * (d11 - d01);
    let dd_dt = (1.0 - fa) * (d01 - d00) + fa * (d11 - d10);
    let [q0, q1, q2] = tri.nodes().map(|q| [q[0] as Real, q[1] as Real]);
    let dd_du = dd_ds * (q1[0] - q0[0]) + dd_dt * (q1[1] - q0[1]);
    let dd_dv = dd_ds * (q2[0] - q0[0]) + dd_dt * (q2[1] - q0[1]);
    let su = (p1 - p0) + d * (n1 - n0) + dd_du * n;
    let sv = (p2 - p0) + d * (n2 - n0) + dd_dv * n;
    let normal = su.cross(sv).try_normalize()?;
    Some(if normal.dot(n) < 0.0 { -normal } else { normal })
}

/// One manifold per part with contacts in `detection` (see the module notes), in the
/// parts' order. A part whose deepest vertex has no surface normal (a degenerate
/// surface there) gets its projection direction as normal instead.
pub fn terrain_manifolds(
    terrain: &DisplacedTerrain,
    detection: &TerrainDetection,
) -> Vec<TerrainManifold> {
    let mut out = Vec::new();
    let contacts = &detection.contacts;
    let mut start = 0;
    while start < contacts.len() {
        let part = contacts[start].part;
        let end = start
            + contacts[start..]
                .iter()
                .take_while(|c| c.part == part)
                .count();
        if let Some(m) = part_manifold(terrain, &contacts[start..end]) {
            out.push(m);
        }
        start = end;
    }
    out
}

/// A contact's surface point, own normal and projection direction.
fn geometry(terrain: &DisplacedTerrain, c: &VertexContact) -> Option<(Vector, Vector, Vector)> {
    let tri = terrain.triangles().get(c.triangle)?;
    let surface = tri.base().forward_project(c.u, c.v, c.d);
    let n = tri.base().direction(c.u, c.v);
    let own = surface_normal(terrain, c.triangle, c.u, c.v).or_else(|| n.try_normalize())?;
    Some((surface, own, n))
}

fn part_manifold(
    terrain: &DisplacedTerrain,
    contacts: &[VertexContact],
) -> Option<TerrainManifold> {
    // The deepest along its own normal.
    let mut best: Option<(usize, Real, Vector)> = None;
    let mut geo = Vec::with_capacity(contacts.len());
    for (k, c) in contacts.iter().enumerate() {
        let g = geometry(terrain, c);
        if let Some((_, own, n)) = g {
            let depth = c.depth_parameter() * n.dot(own);
            if best.is_none_or(|(_, b, _)| depth > b) {
                best = Some((k, depth, own));
            }
        }
        geo.push(g);
    }
    let (deepest, _, normal) = best?;
    // Candidates: (contact index, distance, point_b, point_a).
    let mut cand = Vec::with_capacity(contacts.len());
    for (k, c) in contacts.iter().enumerate() {
        let Some((surface, own, _)) = geo[k] else {
            continue;
        };
        if k != deepest && own.dot(normal) < SAME_FACE_COS {
            continue;
        }
        let distance = (c.point - surface).dot(normal);
        if !(distance.is_finite() && distance <= 0.0) {
            continue;
        }
        cand.push((k, distance, c.point, c.point - distance * normal));
    }
    let first = cand.iter().position(|x| x.0 == deepest)?;
    let mut chosen = vec![first];
    let tangent = |a: Vector, b: Vector| {
        let d = b - a;
        d - normal * d.dot(normal)
    };
    // Second: farthest from the deepest in the tangent plane.
    let a0 = cand[first].3;
    if let Some(k) = argmax(&cand, &chosen, |c| tangent(a0, c.3).length_squared()) {
        chosen.push(k);
        // Third: largest triangle.
        let a1 = cand[k].3;
        if let Some(k2) = argmax(&cand, &chosen, |c| {
            tangent(a0, a1).cross(tangent(a0, c.3)).length_squared()
        }) {
            chosen.push(k2);
            // Fourth: the most area outside the triangle (largest positive signed area
            // against an edge, oriented by the triangle).
            let a2 = cand[k2].3;
            let orient = tangent(a0, a1).cross(tangent(a0, a2)).dot(normal).signum();
            let outside = |p: Vector| {
                [(a0, a1), (a1, a2), (a2, a0)]
                    .iter()
                    .map(|&(x, y)| -orient * tangent(x, y).cross(tangent(x, p)).dot(normal))
                    .fold(0.0, Real::max)
            };
            if let Some(k3) = argmax(&cand, &chosen, |c| outside(c.3)) {
                chosen.push(k3);
            }
        }
    }
    chosen.truncate(MAX_MANIFOLD_POINTS);
    chosen.sort_by(|&x, &y| cand[x].1.total_cmp(&cand[y].1));
    let mut manifold = Manifold::empty(normal, QueryStatus::Converged);
    for &k in &chosen {
        let (ci, distance, point_b, point_a) = cand[k];
        let vertex = (contacts[ci].vertex as u32) & 0x7ff;
        manifold.push(ManifoldPoint {
            point_a,
            point_b,
            distance,
            feature: 0xff00_0000 | (vertex << 11) | 0x7ff,
        });
    }
    Some(TerrainManifold {
        part: contacts[deepest].part,
        triangle: contacts[deepest].triangle,
        manifold,
    })
}

/// The index of the candidate not yet chosen with the largest positive `score`.
fn argmax<T>(cand: &[T], chosen: &[usize], score: impl Fn(&T) -> Real) -> Option<usize> {
    let mut best: Option<(usize, Real)> = None;
    for (k, c) in cand.iter().enumerate() {
        if chosen.contains(&k) {
            continue;
        }
        let s = score(c);
        if s > 0.0 && best.is_none_or(|(_, b)| s > b) {
            best = Some((k, s));
        }
    }
    best.map(|(k, _)| k)
}
