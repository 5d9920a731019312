//! An independent f64 oracle for a box's penetration of static geometry (the static
//! report's contact rows), written from the separating-axis theorem alone: it shares no
//! code with minkowski or its peers.
//!
//! Two quantities, for a box (centre, three unit axes, half extents; world frame) and a
//! list of triangles (world frame, counter-clockwise from the front):
//!
//! - [`pair_depth`]: the box's penetration depth with one triangle taken as a solid
//!   (two-sided): the smallest overlap of their projections on the 13 candidate axes (the
//!   box's 3 face normals, the triangle's normal, the 9 edge × edge directions). Exact for
//!   two convex polytopes. Its maximum over the triangles is what a per-triangle query
//!   without ghost-edge handling calls the deepest contact (parry3d's `query::contact`
//!   on a composite shape).
//! - [`set_depth`]: the box's penetration depth with the whole set: the shortest
//!   translation, towards the front (`d · up > 0`), after which the box meets no
//!   triangle. For one direction `d` the box must move [`push`] along it to clear one
//!   triangle (the smallest ratio over the 26 signed axes, exact), and the largest of
//!   these over the triangles to clear them all; `set_depth` minimises that over
//!   directions (a dense spherical grid, every triangle normal, then a shrinking local
//!   search), so it is an upper bound within the search's resolution (about 1e-6 rad).
//!   This is the depth of the one-sided set as a solid: the translation that resolves the
//!   contact.

use crate::static_suite::{dv, Field};
use glam::{DQuat, DVec3};

/// A box in the world frame.
#[derive(Debug, Clone, Copy)]
pub struct OrientedBox {
    /// Centre.
    pub centre: DVec3,
    /// Unit axes (the columns of the rotation).
    pub axes: [DVec3; 3],
    /// Half extents along the axes.
    pub half: [f64; 3],
}

impl OrientedBox {
    /// The box of half extents `half` at a suite pose `[x, y, z, qx, qy, qz, qw]`.
    pub fn at(half: [f64; 3], pose: &[f64; 7]) -> Self {
        let q = DQuat::from_xyzw(pose[3], pose[4], pose[5], pose[6]).normalize();
        OrientedBox {
            centre: DVec3::new(pose[0], pose[1], pose[2]),
            axes: [q * DVec3::X, q * DVec3::Y, q * DVec3::Z],
            half,
        }
    }

    /// The box's bounding box: (min, max).
    fn bounds(&self) -> (DVec3, DVec3) {
        let r = DVec3::new(
            self.project(DVec3::X).1 - self.centre.x,
            self.project(DVec3::Y).1 - self.centre.y,
            self.project(DVec3::Z).1 - self.centre.z,
        );
        (self.centre - r, self.centre + r)
    }

    /// The box's projection on `n`: (min, max).
    fn project(&self, n: DVec3) -> (f64, f64) {
        let c = self.centre.dot(n);
        let r: f64 = (0..3)
            .map(|k| self.half[k] * self.axes[k].dot(n).abs())
            .sum();
        (c - r, c + r)
    }
}

fn project_triangle(t: &[DVec3; 3], n: DVec3) -> (f64, f64) {
    let p = [t[0].dot(n), t[1].dot(n), t[2].dot(n)];
    (p[0].min(p[1]).min(p[2]), p[0].max(p[1]).max(p[2]))
}

/// The 13 candidate axes of a box–triangle pair (unit; degenerate cross products left out).
fn axes(b: &OrientedBox, t: &[DVec3; 3]) -> Vec<DVec3> {
    let e = [t[1] - t[0], t[2] - t[1], t[0] - t[2]];
    let mut out: Vec<DVec3> = b.axes.to_vec();
    out.push(e[0].cross(e[1]));
    for a in b.axes {
        for ek in e {
            out.push(a.cross(ek));
        }
    }
    out.into_iter()
        .filter(|v| v.length() > 1e-9 * (1.0 + e[0].length() * e[1].length()))
        .map(DVec3::normalize)
        .collect()
}

/// The box's two-sided penetration depth with triangle `t` (module notes); `None` when
/// they are apart or touch.
pub fn pair_depth(b: &OrientedBox, t: &[DVec3; 3]) -> Option<f64> {
    let mut depth = f64::INFINITY;
    for n in axes(b, t) {
        let (b0, b1) = b.project(n);
        let (t0, t1) = project_triangle(t, n);
        depth = depth.min((b1 - t0).min(t1 - b0));
        if depth <= 0.0 {
            return None;
        }
    }
    Some(depth)
}

/// How far the box must move along unit `d` to be apart from triangle `t` (0 when it
/// already is).
pub fn push(b: &OrientedBox, t: &[DVec3; 3], d: DVec3) -> f64 {
    let mut best = f64::INFINITY;
    for a in axes(b, t) {
        for n in [a, -a] {
            let along = n.dot(d);
            if along <= 1e-12 {
                continue;
            }
            let (b0, _) = b.project(n);
            let (_, t1) = project_triangle(t, n);
            best = best.min((t1 - b0) / along);
            if best <= 0.0 {
                return 0.0;
            }
        }
    }
    best.max(0.0)
}

/// The box's penetration depth with the whole set and its direction (module notes);
/// `None` when it meets no triangle. `up`: the front side of the set.
pub fn set_depth(b: &OrientedBox, tris: &[[DVec3; 3]], up: DVec3) -> Option<(f64, DVec3)> {
    if !tris.iter().any(|t| pair_depth(b, t).is_some()) {
        return None;
    }
    let cost = |d: DVec3| -> f64 { tris.iter().map(|t| push(b, t, d)).fold(0.0, f64::max) };
    // A frame around `up` for the grid.
    let u = up.normalize();
    let side = if u.x.abs() < 0.9 { DVec3::X } else { DVec3::Y };
    let e1 = u.cross(side).normalize();
    let e2 = u.cross(e1);
    let mut best = (cost(u), u);
    let consider = |d: DVec3, best: &mut (f64, DVec3)| {
        if d.dot(u) > 1e-9 {
            let d = d.normalize();
            let c = cost(d);
            if c < best.0 {
                *best = (c, d);
            }
        }
    };
    // A Fibonacci grid over the front hemisphere.
    let n = 20_000;
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    for k in 0..n {
        let z = 1.0 - (k as f64 + 0.5) / n as f64;
        let r = (1.0 - z * z).sqrt();
        let phi = golden * k as f64;
        consider(
            u * z + e1 * (r * phi.cos()) + e2 * (r * phi.sin()),
            &mut best,
        );
    }
    for t in tris {
        consider((t[1] - t[0]).cross(t[2] - t[0]), &mut best);
    }
    // Local search: shrinking steps around the best direction.
    let mut step = 0.02;
    while step > 1e-7 {
        let mut moved = false;
        for k in 0..16 {
            let a = k as f64 * std::f64::consts::TAU / 16.0;
            let d0 = best.1;
            let s = if d0.x.abs() < 0.9 { DVec3::X } else { DVec3::Y };
            let t1 = d0.cross(s).normalize();
            let t2 = d0.cross(t1);
            let before = best.0;
            consider(d0 + (t1 * a.cos() + t2 * a.sin()) * step, &mut best);
            moved |= best.0 < before;
        }
        if !moved {
            step *= 0.5;
        }
    }
    Some(best)
}

/// The triangles of `field`'s cells ([`Field::cell_triangles`]) whose cell is within `reach` of the box's bounding box in x and z.
pub fn field_triangles_near(field: &Field, b: &OrientedBox, reach: f64) -> Vec<[DVec3; 3]> {
    let (lo, hi) = b.bounds();
    let o = dv(field.origin);
    let (cx, cz) = (field.cell[0] as f64, field.cell[1] as f64);
    let span = |lo: f64, hi: f64, o: f64, c: f64, n: usize| {
        let a = (((lo - reach - o) / c).floor().max(0.0) as usize).min(n - 1);
        let b = (((hi + reach - o) / c).ceil().max(0.0) as usize).min(n - 1);
        (a, b)
    };
    let (j0, j1) = span(lo.x, hi.x, o.x, cx, field.cols);
    let (i0, i1) = span(lo.z, hi.z, o.z, cz, field.rows);
    (i0..i1)
        .flat_map(|i| (j0..j1).flat_map(move |j| field.cell_triangles(i, j)))
        .collect()
}

/// The box's penetration depth with the one-sided triangulated surface of `field`
/// ([`set_depth`] with `up` = +y over the cells it can reach), `None` when it meets no
/// triangle. Every translation shorter than straight up by the depth along +y is
/// covered: the triangles are gathered that far around the box.
pub fn field_box_depth(field: &Field, b: &OrientedBox) -> Option<(f64, DVec3)> {
    let near = field_triangles_near(field, b, 0.0);
    let up = near
        .iter()
        .map(|t| push(b, t, DVec3::Y))
        .fold(0.0, f64::max);
    if up <= 0.0 {
        return None;
    }
    set_depth(b, &field_triangles_near(field, b, up), DVec3::Y)
}
