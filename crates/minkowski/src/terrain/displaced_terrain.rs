//! Displacement-mapped terrain: a displacement map read through base triangles
//! organised by quads (seed 002 §2.2.3–2.2.4, §2.4.2, §3.4.1, §3.5.1).
//!
//! # Data
//!
//! * a [`DisplacementMap`] of `(cells_s + 1) × (cells_t + 1)` samples (or more);
//! * a [`QuadLayout`] of the map area: quads of 16², 8², 4², 2² cells, each split along
//!   its diagonal into two base triangles whose vertices are the quad's corner nodes
//!   ([`Quad::triangles`]): no triangle crosses a quad;
//! * per quad, a [`QuadFrame`]: the world position `P` and projection direction `N` of
//!   its four corners. Quads adjacent in the map need not be adjacent in the world
//!   (Fig 3.8): each quad carries its own corners, and a node on the boundary of two
//!   quads has one world point per quad.
//!
//! Triangle `k` of quad `q` is triangle `2q + k` of the terrain, a [`BaseTriangle`] with
//! the map coordinates `(s_i, t_i)` of its vertices. Its parameters `(u, v)` interpolate
//! position, direction and map coordinates alike (Eq 2.1): `s(u, v) = s0 + u (s1 − s0) +
//! v (s2 − s0)`, likewise `t`.
//!
//! # The surface
//!
//! * **Forward projection** (Eq 2.2): `p'(u, v) = p(u, v) + d(s(u, v), t(u, v)) n(u, v)`
//!   with `d` the map's bilinear interpolation
//!   ([`DisplacedTerrain::forward_project`]). At a sample node this is the node's
//!   forward projection ([`DisplacedTerrain::node_point`]).
//! * **Bilinear patches** (Eq 3.5): between nodes the thesis's surface is, per map cell,
//!   the bilinear patch over the cell's four forward-projected nodes
//!   ([`DisplacedTerrain::cell_patch`]). A cell lies in one quad, so its patch is that
//!   quad's; cells cut by a quad's diagonal belong to both of its triangles
//!   ([`DisplacedTerrain::triangle_cells`]). The two descriptions agree at the nodes and
//!   differ inside a cell by a second-order term (`d` and `n` both varying across it);
//!   the early-out planes bound both ([`crate::terrain::early_out`]).
//!
//! # Point in terrain (§2.4.2)
//!
//! A point is backward-projected ([`backward_project`], alpha plane) onto each base
//! triangle; where `(u, v)` is inside the triangle, the point is **below** the surface
//! (in the terrain) when its parameter `t` along `n(u, v)` is below `d(u, v)`. The
//! terrain is solid below its surface along the projection lines, without a floor. The
//! thesis leaves open what happens when `(u, v)` falls outside every triangle; here the
//! point is then [`PointLocation::OutsideFootprint`]: not in the terrain (the terrain
//! ends at the boundary of its base mesh, as a heightfield ends at its edges). Where
//! prisms overlap (skewed or converging directions), a point below the surface in any
//! triangle is in the terrain.
//!
//! ```
//! use minkowski::terrain::{DisplacedTerrain, DisplacementMap, QuadFrame, QuadLayout};
//! use minkowski::Vector;
//!
//! // One quad of 2 × 2 cells, 1 m each, flat, directions up; a bump of 0.5 in the middle.
//! let mut d = vec![0.0; 9];
//! d[4] = 0.5; // node (1, 1)
//! let map = DisplacementMap::new(3, 3, d).unwrap();
//! let layout = QuadLayout::uniform(2, 2, 2).unwrap();
//! let corners = layout.quads()[0].corners();
//! let frame = QuadFrame {
//!     p: corners.map(|[i, j]| Vector::new(i as _, 0.0, j as _)),
//!     n: [Vector::Y; 4],
//! };
//! let terrain = DisplacedTerrain::new(map, layout, vec![frame]).unwrap();
//! // The node (1, 1) is lifted: its cell patches meet at (1, 0.5, 1).
//! assert_eq!(terrain.cell_patch(0, 0).unwrap().p11, Vector::new(1.0, 0.5, 1.0));
//! assert!(terrain.contains(Vector::new(1.0, 0.4, 1.0)).unwrap());
//! assert!(!terrain.contains(Vector::new(1.0, 0.6, 1.0)).unwrap());
//! assert!(!terrain.contains(Vector::new(5.0, -1.0, 1.0)).unwrap()); // outside the footprint
//! ```

use super::backward_projection::{backward_project, BackProjectError, BackProjectionMethod};
use super::base_triangle::{BaseTriangle, BaseTriangleError};
use super::bilinear_patch::BilinearPatch;
use super::displacement_map::DisplacementMap;
use super::quad_layout::{Quad, QuadLayout};
use crate::math::{Point, Real, Vector};

/// The world corners of one quad, in the order of [`Quad::corners`]: `(s0, t0)`,
/// `(s1, t0)`, `(s0, t1)`, `(s1, t1)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuadFrame {
    /// Base positions `P` of the four corners (world frame, length units).
    pub p: [Point; 4],
    /// Projection directions `N` of the four corners (not normalised: a displacement
    /// `d` moves `d |N|`).
    pub n: [Vector; 4],
}

/// One base triangle of a [`DisplacedTerrain`]: the [`BaseTriangle`], its vertices'
/// map nodes, and its quad.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TerrainTriangle {
    base: BaseTriangle,
    nodes: [[u32; 2]; 3],
    quad: usize,
}

impl TerrainTriangle {
    /// The base triangle (positions and directions of its vertices).
    pub fn base(&self) -> &BaseTriangle {
        &self.base
    }

    /// The map nodes `(s_i, t_i)` of its vertices `P0, P1, P2`.
    pub fn nodes(&self) -> [[u32; 2]; 3] {
        self.nodes
    }

    /// The index of its quad in the layout.
    pub fn quad(&self) -> usize {
        self.quad
    }

    /// The map coordinates `(s(u, v), t(u, v))` (Eq 2.1).
    pub fn map_coordinates(&self, u: Real, v: Real) -> (Real, Real) {
        let [q0, q1, q2] = self.nodes.map(|q| [q[0] as Real, q[1] as Real]);
        (
            q0[0] + u * (q1[0] - q0[0]) + v * (q2[0] - q0[0]),
            q0[1] + u * (q1[1] - q0[1]) + v * (q2[1] - q0[1]),
        )
    }

    /// The parameters `(u, v)` of map point `(s, t)` (the inverse of
    /// [`TerrainTriangle::map_coordinates`]; exact at nodes: the quad's size is a power
    /// of two).
    pub fn parameters(&self, s: Real, t: Real) -> (Real, Real) {
        let [q0, q1, q2] = self.nodes.map(|q| [q[0] as Real, q[1] as Real]);
        let (x1, y1) = (q1[0] - q0[0], q1[1] - q0[1]);
        let (x2, y2) = (q2[0] - q0[0], q2[1] - q0[1]);
        let (ds, dt) = (s - q0[0], t - q0[1]);
        let det = x1 * y2 - x2 * y1;
        ((ds * y2 - x2 * dt) / det, (x1 * dt - y1 * ds) / det)
    }
}

/// Why a [`DisplacedTerrain`] could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DisplacedTerrainError {
    /// The map has fewer samples than the layout's nodes.
    #[error(
        "displacement map of {width} x {height} samples is smaller than the layout's \
         {nodes_s} x {nodes_t} nodes"
    )]
    MapTooSmall {
        /// The map's samples per row.
        width: usize,
        /// The map's rows.
        height: usize,
        /// Nodes the layout needs along `s` (`cells_s + 1`).
        nodes_s: usize,
        /// Nodes along `t`.
        nodes_t: usize,
    },
    /// There is not one frame per quad.
    #[error("{got} quad frames for {expected} quads")]
    FrameCount {
        /// The number of quads.
        expected: usize,
        /// The number of frames given.
        got: usize,
    },
    /// A quad's triangle is not a valid [`BaseTriangle`].
    #[error("quad {quad}, triangle {triangle}: {source}")]
    BadTriangle {
        /// The quad's index.
        quad: usize,
        /// 0 or 1 (see [`Quad::TRIANGLE_CORNERS`]).
        triangle: usize,
        /// Why.
        source: BaseTriangleError,
    },
}

/// Where a point is with respect to a [`DisplacedTerrain`] (see the module notes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PointLocation {
    /// Below the surface of `triangle`: in the terrain. `point ≈ p(u, v) + t n(u, v)` with
    /// `t < d`, `d` the displacement at `(u, v)`.
    Below {
        /// The first triangle (by index) the point is below the surface of.
        triangle: usize,
        /// Barycentric parameter.
        u: Real,
        /// Barycentric parameter.
        v: Real,
        /// The point's parameter along `n(u, v)`.
        t: Real,
        /// The displacement at `(u, v)`.
        d: Real,
    },
    /// Inside the prism of at least one triangle and above (or on) the surface in each:
    /// not in the terrain. The fields are those of the first such triangle.
    Above {
        /// The first triangle whose prism holds the point.
        triangle: usize,
        /// Barycentric parameter.
        u: Real,
        /// Barycentric parameter.
        v: Real,
        /// The point's parameter along `n(u, v)` (`≥ d`).
        t: Real,
        /// The displacement at `(u, v)`.
        d: Real,
    },
    /// No triangle's backward projection of the point is inside it: not in the terrain.
    OutsideFootprint,
}

impl PointLocation {
    /// Whether the point is in the terrain ([`PointLocation::Below`]).
    pub fn is_inside(&self) -> bool {
        matches!(self, PointLocation::Below { .. })
    }
}

/// Displacement-mapped terrain (see the module notes): a [`DisplacementMap`], a
/// [`QuadLayout`] of its area and a [`QuadFrame`] per quad, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct DisplacedTerrain {
    map: DisplacementMap,
    layout: QuadLayout,
    frames: Vec<QuadFrame>,
    triangles: Vec<TerrainTriangle>,
}

impl DisplacedTerrain {
    /// The terrain of `map` read through `layout`, with `frames[q]` the corners of
    /// quad `q`.
    ///
    /// # Errors
    /// [`DisplacedTerrainError::MapTooSmall`], [`DisplacedTerrainError::FrameCount`], or
    /// [`DisplacedTerrainError::BadTriangle`] for the first triangle [`BaseTriangle::new`]
    /// refuses (degenerate, directions along the plane or opposed, non-finite).
    pub fn new(
        map: DisplacementMap,
        layout: QuadLayout,
        frames: Vec<QuadFrame>,
    ) -> Result<Self, DisplacedTerrainError> {
        let (nodes_s, nodes_t) = (layout.cells_s() as usize + 1, layout.cells_t() as usize + 1);
        if map.width() < nodes_s || map.height() < nodes_t {
            return Err(DisplacedTerrainError::MapTooSmall {
                width: map.width(),
                height: map.height(),
                nodes_s,
                nodes_t,
            });
        }
        if frames.len() != layout.quads().len() {
            return Err(DisplacedTerrainError::FrameCount {
                expected: layout.quads().len(),
                got: frames.len(),
            });
        }
        let mut triangles = Vec::with_capacity(2 * frames.len());
        for (q, (quad, frame)) in layout.quads().iter().zip(&frames).enumerate() {
            let nodes = quad.triangles();
            for (k, corners) in Quad::TRIANGLE_CORNERS.iter().enumerate() {
                let base =
                    BaseTriangle::new(corners.map(|c| frame.p[c]), corners.map(|c| frame.n[c]))
                        .map_err(|source| DisplacedTerrainError::BadTriangle {
                            quad: q,
                            triangle: k,
                            source,
                        })?;
                triangles.push(TerrainTriangle {
                    base,
                    nodes: nodes[k],
                    quad: q,
                });
            }
        }
        Ok(Self {
            map,
            layout,
            frames,
            triangles,
        })
    }

    /// The displacement map.
    pub fn map(&self) -> &DisplacementMap {
        &self.map
    }

    /// The quad layout.
    pub fn layout(&self) -> &QuadLayout {
        &self.layout
    }

    /// The quads' frames.
    pub fn frames(&self) -> &[QuadFrame] {
        &self.frames
    }

    /// The base triangles: triangle `k` of quad `q` at index `2q + k`.
    pub fn triangles(&self) -> &[TerrainTriangle] {
        &self.triangles
    }

    /// The displacement at `(u, v)` of triangle `triangle`: the map's bilinear value at
    /// `(s(u, v), t(u, v))`, the map coordinates clamped to the triangle's quad (so that
    /// `(u, v)` a rounding outside the triangle still reads its quad's samples). `None`
    /// for an index out of range or a NaN parameter.
    pub fn displacement(&self, triangle: usize, u: Real, v: Real) -> Option<Real> {
        let tri = self.triangles.get(triangle)?;
        let quad = self.layout.quads()[tri.quad];
        let (s, t) = tri.map_coordinates(u, v);
        let (lo_s, lo_t) = (quad.s as Real, quad.t as Real);
        let (hi_s, hi_t) = (lo_s + quad.size as Real, lo_t + quad.size as Real);
        if s.is_nan() || t.is_nan() {
            return None;
        }
        self.map.bilinear(s.clamp(lo_s, hi_s), t.clamp(lo_t, hi_t))
    }

    /// The forward projection `p(u, v) + d(s(u, v), t(u, v)) n(u, v)` (Eq 2.1–2.2) on
    /// triangle `triangle`, in the world frame; `None` as for
    /// [`DisplacedTerrain::displacement`].
    pub fn forward_project(&self, triangle: usize, u: Real, v: Real) -> Option<Point> {
        let d = self.displacement(triangle, u, v)?;
        Some(self.triangles[triangle].base.forward_project(u, v, d))
    }

    /// The triangle holding map point `(s, t)`: the quad of the cell containing it (the
    /// last row and column of nodes belong to the cells before them), then the side of
    /// the quad's diagonal (on the diagonal: triangle 0). `None` outside the layout's
    /// area.
    pub fn triangle_at(&self, s: Real, t: Real) -> Option<usize> {
        let (w, h) = (self.layout.cells_s() as Real, self.layout.cells_t() as Real);
        if !((0.0..=w).contains(&s) && (0.0..=h).contains(&t)) {
            return None;
        }
        let i = (s.floor() as u32).min(self.layout.cells_s() - 1);
        let j = (t.floor() as u32).min(self.layout.cells_t() - 1);
        let q = self.layout.quad_of_cell(i, j)?;
        Some(2 * q + self.layout.quads()[q].triangle_at(s, t))
    }

    /// The forward projection of node `(i, j)` as a point of quad `quad` (the node on
    /// the quad's boundary or inside it): through the quad's triangle holding it, with
    /// the node's sample as displacement. `None` when the node is not in the quad.
    pub fn node_point(&self, quad: usize, i: u32, j: u32) -> Option<Point> {
        let q = *self.layout.quads().get(quad)?;
        if !q.contains_node(i, j) {
            return None;
        }
        let tri = &self.triangles[2 * quad + q.triangle_at(i as Real, j as Real)];
        let (u, v) = tri.parameters(i as Real, j as Real);
        let d = self.map.sample(i as usize, j as usize)?;
        Some(tri.base.forward_project(u, v, d))
    }

    /// The bilinear patch (Eq 3.5) of cell `(i, j)`: its four nodes forward-projected in
    /// the cell's quad, `p00` at node `(i, j)`, `p10` at `(i + 1, j)`, `p01` at
    /// `(i, j + 1)`, `p11` at `(i + 1, j + 1)`. `None` outside the layout's area.
    pub fn cell_patch(&self, i: u32, j: u32) -> Option<BilinearPatch> {
        let q = self.layout.quad_of_cell(i, j)?;
        Some(BilinearPatch {
            p00: self.node_point(q, i, j)?,
            p01: self.node_point(q, i, j + 1)?,
            p10: self.node_point(q, i + 1, j)?,
            p11: self.node_point(q, i + 1, j + 1)?,
        })
    }

    /// The cells whose patches make up the surface of triangle `triangle`: the quad's
    /// cells on its side of the diagonal, the cells the diagonal cuts included (they
    /// belong to both triangles of the quad). Empty for an index out of range.
    pub fn triangle_cells(&self, triangle: usize) -> Vec<[u32; 2]> {
        let Some(tri) = self.triangles.get(triangle) else {
            return Vec::new();
        };
        let q = self.layout.quads()[tri.quad];
        let lower = triangle % 2 == 0;
        let mut cells = Vec::with_capacity((q.size * (q.size + 1) / 2) as usize);
        for b in 0..q.size {
            for a in 0..q.size {
                if (lower && b <= a) || (!lower && b >= a) {
                    cells.push([q.s + a, q.t + b]);
                }
            }
        }
        cells
    }

    /// The cells of quad `quad` (its `size²` patches, row by row). Empty for an index out
    /// of range.
    pub fn quad_cells(&self, quad: usize) -> Vec<[u32; 2]> {
        let Some(q) = self.layout.quads().get(quad) else {
            return Vec::new();
        };
        (q.t..q.t + q.size)
            .flat_map(|j| (q.s..q.s + q.size).map(move |i| [i, j]))
            .collect()
    }

    /// Where `point` (world frame) is with respect to triangle `triangle` alone: `None`
    /// when its backward projection (alpha plane) is not a converged solution inside the
    /// triangle, or the point is too far from it to be projected (see
    /// [`BackProjectError::PointTooFar`]); otherwise [`PointLocation::Below`] or
    /// [`PointLocation::Above`].
    ///
    /// # Errors
    /// [`BackProjectError::NonFinitePoint`] or [`BackProjectError::PointOutOfRange`].
    pub fn locate_in_triangle(
        &self,
        triangle: usize,
        point: Point,
    ) -> Result<Option<PointLocation>, BackProjectError> {
        let Some(tri) = self.triangles.get(triangle) else {
            return Ok(None);
        };
        let b = match backward_project(&tri.base, point, BackProjectionMethod::AlphaPlane) {
            Ok(b) => b,
            Err(BackProjectError::PointTooFar { .. } | BackProjectError::NotRepresentable) => {
                return Ok(None)
            }
            Err(e) => return Err(e),
        };
        if !b.inside || b.status != super::BackProjectionStatus::Converged {
            return Ok(None);
        }
        let Some(d) = self.displacement(triangle, b.u, b.v) else {
            return Ok(None);
        };
        let (u, v, t) = (b.u, b.v, b.t);
        Ok(Some(if t < d {
            PointLocation::Below {
                triangle,
                u,
                v,
                t,
                d,
            }
        } else {
            PointLocation::Above {
                triangle,
                u,
                v,
                t,
                d,
            }
        }))
    }

    /// Where `point` (world frame) is with respect to the terrain (§2.4.2, see the module
    /// notes): every triangle is tried (a caller with a broad phase calls
    /// [`DisplacedTerrain::locate_in_triangle`] on its candidates, after the early-out
    /// planes of [`crate::terrain::early_out`], instead).
    ///
    /// # Errors
    /// [`BackProjectError::NonFinitePoint`] or [`BackProjectError::PointOutOfRange`].
    pub fn locate(&self, point: Point) -> Result<PointLocation, BackProjectError> {
        let mut above = None;
        for k in 0..self.triangles.len() {
            match self.locate_in_triangle(k, point)? {
                Some(found @ PointLocation::Below { .. }) => return Ok(found),
                Some(found) => {
                    above.get_or_insert(found);
                }
                None => {}
            }
        }
        Ok(above.unwrap_or(PointLocation::OutsideFootprint))
    }

    /// Whether `point` is in the terrain: [`DisplacedTerrain::locate`] is
    /// [`PointLocation::Below`].
    ///
    /// # Errors
    /// As [`DisplacedTerrain::locate`].
    pub fn contains(&self, point: Point) -> Result<bool, BackProjectError> {
        Ok(self.locate(point)?.is_inside())
    }
}
