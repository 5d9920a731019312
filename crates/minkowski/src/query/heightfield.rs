//! Rays against a [`HeightField`]: the block hierarchy to find the cells the ray can
//! touch, in the order the ray crosses them, and the exact first crossing of the cell's
//! bilinear patch.
//!
//! # The crossing in a cell
//!
//! Inside a cell, with `u, v` the cell coordinates of the ray point `t'` after it enters
//! (`u = u₀ + u' t'`, `v = v₀ + v' t'`), the height above the patch,
//!
//! ```text
//! f(t') = y₀ + y' t' − (a + b u + c v + e u v),
//! a = h00, b = h10 − h00, c = h01 − h00, e = h00 − h10 − h01 + h11,
//! ```
//!
//! is a quadratic `A t'² + B t' + C` with `A = −e u' v'`,
//! `B = y' − b u' − c v' − e (u₀ v' + v₀ u')`, `C = f(0)`. The ray meets the surface at
//! its least root in the cell's interval; the roots are taken in the cancellation-free
//! form `q = −(B + sign(B) √(B² − 4AC))/2`, roots `q/A` and `C/q`. Working from the cell's
//! corner keeps `u, v` in `[0, 1]`, whatever the field's size.
//!
//! # The order of the cells
//!
//! Blocks at every level are disjoint in x and z, and the ray crosses them in the order
//! of its entry into their rectangles; descending nearest first and stopping at the first
//! crossing gives the first hit. A block is entered only when the ray's box over the
//! block's rectangle meets the block's height range.
//!
//! A ray from outside the solid first walks the cells it crosses one by one, from where
//! it comes down to the field's highest sample (a 2D DDA, Amanatides & Woo 1987): a
//! vertical ray needs the one cell under it, a steep one a few, where the hierarchy
//! descends all its levels. After a bounded number of cells without a hit (a long,
//! grazing ray) the hierarchy takes over from the start. Each cell is decided by the same
//! crossing as in the hierarchy, over the same interval, so both give the same hit.

use super::cast::{check_max_toi, CastError};
use super::ray::{Ray, RayCast, RayHit, RayOptions};
use super::QueryStatus;
use crate::math::{Pose, Real, Vector};
use crate::shape::heightfield::bilinear;
use crate::shape::HeightField;

/// The interval of `o + t d` over `[lo, hi]` on one axis: `None` when it misses (a
/// parallel ray outside), `(−∞, ∞)` for a parallel ray inside.
fn axis_span(o: Real, d: Real, lo: Real, hi: Real) -> Option<(Real, Real)> {
    if d == 0.0 {
        return (lo <= o && o <= hi).then_some((Real::NEG_INFINITY, Real::INFINITY));
    }
    let (t1, t2) = ((lo - o) / d, (hi - o) / d);
    Some(if d > 0.0 { (t1, t2) } else { (t2, t1) })
}

/// The rectangle `[x0, x1] × [z0, z1]` on the ray, within `[t_lo, t_hi]`: the entry and
/// exit times and whether the entry is through an x face (else a z face).
fn rect_span(
    o: Vector,
    d: Vector,
    [x0, x1, z0, z1]: [Real; 4],
    t_lo: Real,
    t_hi: Real,
) -> Option<(Real, Real, bool)> {
    let (ax, bx) = axis_span(o.x, d.x, x0, x1)?;
    let (az, bz) = axis_span(o.z, d.z, z0, z1)?;
    let t0 = ax.max(az).max(t_lo);
    let t1 = bx.min(bz).min(t_hi);
    (t0 <= t1).then_some((t0, t1, ax >= az))
}

/// Casts `ray` (world frame) at `field` placed at `pose`. A ray starting inside the
/// solid (below the surface, over a cell without holes) hits at 0 when the field is
/// solid, else where it leaves the solid (through the surface, or through the side of the
/// field's rectangle or of a hole). Normals point out of the solid: the surface's upward
/// normal, or a side's.
///
/// # Errors
/// As [`super::cast_ray`].
pub fn cast_ray_heightfield(
    field: &HeightField,
    pose: &Pose,
    ray: &Ray,
    options: &RayOptions,
) -> Result<RayCast, CastError> {
    ray.check()?;
    check_max_toi(options.max_toi)?;
    if super::ray::is_tiny(ray) {
        return super::ray::solve_at_unit_scale(ray, options, |r, o| {
            cast_ray_heightfield(field, pose, r, o)
        });
    }
    // In the field's frame, from its origin.
    let o = pose.inverse_transform_point(ray.origin) - field.origin();
    let d = pose.inverse_transform_vector(ray.dir);
    let hit = cast_local(field, o, d, options).map(|(t, n, inside)| RayHit {
        toi: t,
        point: ray.point_at(t),
        normal: pose.transform_vector(n),
        inside,
    });
    Ok(RayCast {
        hit,
        status: QueryStatus::Converged,
        iterations: 0,
    })
}

/// The surface's upward unit normal in cell `(i, j)` at `(u, v)`.
fn surface_normal(field: &HeightField, i: usize, j: usize, u: Real, v: Real) -> Vector {
    let [h00, h10, h01, h11] = field.corners(i, j);
    let [sx, sz] = field.cell_size();
    let gx = (h10 - h00) * (1.0 - v) + (h11 - h01) * v;
    let gz = (h01 - h00) * (1.0 - u) + (h11 - h10) * u;
    let n = Vector::new(-gx / sx, 1.0, -gz / sz);
    if n.length_squared().is_finite() {
        n.normalize()
    } else {
        // A steep slope over a tiny cell: the scaled form ([`HeightField::slope_normal`]).
        HeightField::slope_normal(gx, gz, sx, sz)
    }
}

fn cast_local(
    field: &HeightField,
    o: Vector,
    d: Vector,
    options: &RayOptions,
) -> Option<(Real, Vector, bool)> {
    let [w, dep] = field.extent();
    // Starting inside the solid?
    let inside = (0.0..=w).contains(&o.x)
        && (0.0..=dep).contains(&o.z)
        && field
            .height_at(o.x + field.origin().x, o.z + field.origin().z)
            .ok()
            .flatten()
            .is_some_and(|h| o.y <= h - field.origin().y);
    if inside && options.solid {
        return Some((0.0, -d.normalize(), true));
    }
    // From outside, a short stretch of cells is walked; the hierarchy takes the rest.
    if !inside {
        if let Some(answer) = walk_cells(field, o, d, options.max_toi) {
            return answer;
        }
    }
    let [sx, sz] = field.cell_size();
    let top = field.level_count() - 1;
    // Depth-first, at most 3 siblings waiting per level: a small stack.
    let mut stack: Vec<(usize, usize, usize)> = Vec::with_capacity(4 * (top + 1));
    stack.push((top, 0, 0));
    while let Some((level, bi, bj)) = stack.pop() {
        let cells = 1usize << level;
        let (i0, j0) = (bi * cells, bj * cells);
        let i1 = (i0 + cells).min(field.rows() - 1);
        let j1 = (j0 + cells).min(field.cols() - 1);
        let rect = [
            j0 as Real * sx,
            j1 as Real * sx,
            i0 as Real * sz,
            i1 as Real * sz,
        ];
        let Some((t0, t1, x_face)) = rect_span(o, d, rect, 0.0, options.max_toi) else {
            continue;
        };
        let [lo, hi] = field.block_range(level, bi, bj);
        if !inside {
            // The ray's height range over the block against the block's range.
            let (y0, y1) = (o.y + d.y * t0, o.y + d.y * t1);
            if lo > hi || y0.min(y1) > hi {
                continue;
            }
        }
        if level > 0 {
            // Children, pushed far first so that the nearest pops first.
            let (rows, cols) = field.level_dims(level - 1);
            let mut kids = [(0.0 as Real, 0usize, 0usize); 4];
            let mut count = 0;
            for (di, dj) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                let (ci, cj) = (bi * 2 + di, bj * 2 + dj);
                if ci >= rows || cj >= cols {
                    continue;
                }
                let kc = cells / 2;
                let (ki0, kj0) = (ci * kc, cj * kc);
                let ki1 = (ki0 + kc).min(field.rows() - 1);
                let kj1 = (kj0 + kc).min(field.cols() - 1);
                let r = [
                    kj0 as Real * sx,
                    kj1 as Real * sx,
                    ki0 as Real * sz,
                    ki1 as Real * sz,
                ];
                if let Some((k0, _, _)) = rect_span(o, d, r, 0.0, options.max_toi) {
                    kids[count] = (k0, ci, cj);
                    count += 1;
                }
            }
            let kids = &mut kids[..count];
            kids.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
            stack.extend(kids.iter().map(|&(_, ci, cj)| (level - 1, ci, cj)));
            continue;
        }
        // A cell.
        if let Some(hit) = cell_crossing(field, o, d, (bi, bj), (t0, t1, x_face), inside) {
            return Some(hit);
        }
    }
    // From inside, never crossing the surface: the ray leaves through a side of the
    // field's rectangle, the one whose slab it leaves first.
    if inside {
        let (_, xo) = axis_span(o.x, d.x, 0.0, w)?;
        let (_, zo) = axis_span(o.z, d.z, 0.0, dep)?;
        let (t1, n) = if xo <= zo {
            (xo, Vector::new(d.x.signum(), 0.0, 0.0))
        } else {
            (zo, Vector::new(0.0, 0.0, d.z.signum()))
        };
        // (A ray straight down from inside never leaves: `t1` is infinite, no hit.)
        return (t1.is_finite() && t1 <= options.max_toi).then_some((t1, n, true));
    }
    None
}

/// The first point of cell `(i, j)` (entered at `t0` through an x face when `x_face`,
/// left at `t1`) where the ray is on the sought side of the surface: below it from
/// outside, above it from `inside` (a hollow field). `None` when there is none in the
/// cell (or it is a hole, seen from outside). The hit is `(time, outward normal,
/// inside)`.
fn cell_crossing(
    field: &HeightField,
    o: Vector,
    d: Vector,
    (i, j): (usize, usize),
    (t0, t1, x_face): (Real, Real, bool),
    inside: bool,
) -> Option<(Real, Vector, bool)> {
    // Looking for the first point where the ray is below the surface (from outside) or
    // above it (from inside, a hollow field): `sign · f ≤ 0`.
    let sign: Real = if inside { -1.0 } else { 1.0 };
    let [sx, sz] = field.cell_size();
    let [lo, hi] = field.block_range(0, i, j);
    // The side of the cell the ray enters through, as the outward normal of a solid
    // beyond it (facing the ray).
    let wall = |x_face: bool| {
        if x_face {
            Vector::new(-d.x.signum(), 0.0, 0.0)
        } else {
            Vector::new(0.0, 0.0, -d.z.signum())
        }
    };
    if lo > hi {
        // A hole: from inside, the ray leaves the solid where it enters the hole.
        return inside.then(|| (t0, -wall(x_face), true));
    }
    let [h00, h10, h01, h11] = field.corners(i, j);
    let p0 = o + d * t0;
    let (u0, v0) = (
        (p0.x / sx - j as Real).clamp(0.0, 1.0),
        (p0.z / sz - i as Real).clamp(0.0, 1.0),
    );
    let (du, dv) = (d.x / sx, d.z / sz);
    let b = h10 - h00;
    let c = h01 - h00;
    let e = h00 - h10 - h01 + h11;
    let qa = -e * du * dv;
    let qb = d.y - b * du - c * dv - e * (u0 * dv + v0 * du);
    let qc = p0.y - bilinear(h00, h10, h01, h11, u0, v0);
    let len = t1 - t0;
    let (fa, fb, fc) = (sign * qa, sign * qb, sign * qc);
    if fc <= 0.0 {
        // Already on the sought side at the cell's entry: entering through a side of
        // the field (or of a hole) from outside, or leaving the surface at once.
        let n = if inside {
            surface_normal(field, i, j, u0, v0)
        } else if t0 > 0.0 {
            wall(x_face)
        } else {
            -d.normalize()
        };
        return Some((t0, n, inside));
    }
    let s = first_root(fa, fb, fc, len)?;
    let (u, v) = ((u0 + du * s).clamp(0.0, 1.0), (v0 + dv * s).clamp(0.0, 1.0));
    Some((t0 + s, surface_normal(field, i, j, u, v), inside))
}

/// The most cells [`walk_cells`] visits before it leaves the ray to the block hierarchy.
/// Vertical rays cross one cell, steep ones a few: walking them costs a few cells where
/// the hierarchy descends every level; a long grazing ray is the hierarchy's.
const WALK_CELLS: usize = 64;

/// The cells the ray crosses, walked one after the next in its order (a 2D DDA: from
/// the cell of the entry point, to the neighbour across whichever side the ray leaves
/// first, Amanatides & Woo, "A fast voxel traversal algorithm for ray tracing", 1987),
/// from where it first comes down to the field's highest sample. For a ray from outside
/// the solid. `None` when the walk does not apply (more than [`WALK_CELLS`] cells, or a
/// cell the ray should cross that rounding says it misses): the caller's hierarchy decides then;
/// else the answer, `Some(None)` for a miss. Each cell is decided as in the hierarchy
/// ([`cell_crossing`], the same interval), so both give the same hit.
fn walk_cells(
    field: &HeightField,
    o: Vector,
    d: Vector,
    max_toi: Real,
) -> Option<Option<(Real, Vector, bool)>> {
    let [w, dep] = field.extent();
    let [sx, sz] = field.cell_size();
    let top = field.level_count() - 1;
    let [lo, hi] = field.block_range(top, 0, 0);
    if lo > hi {
        return Some(None);
    }
    // Below the highest sample only (from outside, the ray is above the surface
    // elsewhere), within the field's rectangle.
    let Some((_, below_top)) = axis_span(o.y, d.y, Real::NEG_INFINITY, hi) else {
        return Some(None);
    };
    let Some((t_lo, t_hi, _)) = rect_span(o, d, [0.0, w, 0.0, dep], 0.0, max_toi) else {
        return Some(None);
    };
    let t_lo = match axis_span(o.y, d.y, hi, Real::INFINITY) {
        // Still above the highest sample until the ray comes down to it.
        Some((_, t)) if d.y < 0.0 => t_lo.max(t),
        _ => t_lo,
    };
    let t_hi = t_hi.min(below_top);
    if t_lo > t_hi || t_lo.is_nan() || t_hi.is_nan() {
        return Some(None);
    }
    let (cells_x, cells_z) = (field.cols() - 1, field.rows() - 1);
    let p = o + d * t_lo;
    let index = |x: Real, n: usize| (x.floor().max(0.0) as usize).min(n - 1);
    let (mut i, mut j) = (index(p.z / sz, cells_z), index(p.x / sx, cells_x));
    // A ray along a grid line (not moving across it) touches the cells on both sides of
    // it: the hierarchy visits both.
    let on_line = |x: Real, dir: Real, k: usize, s: Real, n: usize| {
        dir == 0.0 && (k > 0 && k as Real * s >= x || k + 1 < n && (k + 1) as Real * s <= x)
    };
    if on_line(o.x, d.x, j, sx, cells_x) || on_line(o.z, d.z, i, sz, cells_z) {
        return None;
    }
    for _ in 0..WALK_CELLS {
        let rect = [
            j as Real * sx,
            (j + 1) as Real * sx,
            i as Real * sz,
            (i + 1) as Real * sz,
        ];
        let (t0, t1, x_face) = rect_span(o, d, rect, 0.0, max_toi)?;
        let [clo, chi] = field.block_range(0, i, j);
        let (y0, y1) = (o.y + d.y * t0, o.y + d.y * t1);
        if clo <= chi && y0.min(y1) <= chi {
            if let Some(hit) = cell_crossing(field, o, d, (i, j), (t0, t1, x_face), false) {
                return Some(Some(hit));
            }
        }
        if t1 >= t_hi {
            return Some(None);
        }
        // To the neighbour across the side the ray leaves first (both at a corner).
        let (_, bx) = axis_span(o.x, d.x, rect[0], rect[1])?;
        let (_, bz) = axis_span(o.z, d.z, rect[2], rect[3])?;
        if bx <= bz {
            j = step(j, d.x, cells_x)?;
        }
        if bz <= bx {
            i = step(i, d.z, cells_z)?;
        }
    }
    None
}

/// The index after `k` in the direction of `dir`'s sign, `None` past `[0, n)`. (A
/// step is only taken along an axis the ray moves on.)
fn step(k: usize, dir: Real, n: usize) -> Option<usize> {
    let next = if dir > 0.0 {
        k.checked_add(1)?
    } else {
        k.checked_sub(1)?
    };
    (next < n).then_some(next)
}

/// The least `s` in `[0, len]` with `A s² + B s + C ≤ 0`, given `C > 0`.
fn first_root(a: Real, b: Real, c: Real, len: Real) -> Option<Real> {
    let f = |s: Real| (a * s + b) * s + c;
    let scale = a.abs() * len * len + b.abs() * len + c.abs();
    let mut best: Option<Real> = None;
    let mut consider = |s: Real| {
        if s.is_finite() && (0.0..=len).contains(&s) && best.is_none_or(|b| s < b) {
            best = Some(s);
        }
    };
    if a.abs() * len * len <= Real::EPSILON * scale {
        if b < 0.0 {
            consider(-c / b);
        }
    } else {
        let disc = b * b - 4.0 * a * c;
        if disc >= 0.0 {
            let q = -0.5 * (b + b.signum() * disc.sqrt());
            if q != 0.0 {
                consider(q / a);
                consider(c / q);
            }
        }
    }
    if best.is_none() && f(len) <= 0.0 {
        // Rounding lost the root: bisect the sign change.
        let (mut lo, mut hi) = (0.0, len);
        for _ in 0..64 {
            let mid = 0.5 * (lo + hi);
            if f(mid) <= 0.0 {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        best = Some(hi);
    }
    best
}
