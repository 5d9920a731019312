//! A static triangle mesh: vertices and index triples, validated once, with per-triangle
//! normals, edge adjacency and active edges, and a bounding-volume tree over its
//! triangles.
//!
//! # Orientation and flags
//!
//! Triangle `[i, j, k]` is counter-clockwise seen from the outside: its unit normal
//! `(v_j − v_i) × (v_k − v_i) / ‖…‖` points outside. [`TriMeshFlags`] says how the mesh is
//! used:
//!
//! * `one_sided`: only the outside of each triangle collides (rays ignore back faces;
//!   the contact queries push a shape behind a face out along the face's normal);
//! * `closed`: the mesh is checked to be watertight and consistently oriented — every
//!   edge shared by exactly two triangles, which run along it in opposite directions —
//!   and then bounds a solid: rays starting inside hit at 0 (or leave it, hollow), and
//!   point projection reports `inside` and a negative distance.
//!
//! # Adjacency
//!
//! Edges are matched by their end points' *positions* (coordinates equal bit for bit,
//! `−0` and `+0` alike), not only by index, so a soup that repeats each vertex for every
//! triangle (as STL files and many OBJ exports do) still gets its adjacency. An edge is
//!
//! * **interior** when exactly two triangles share it in opposite directions: each is the
//!   other's neighbour across it, and the edge is active when the crease between them is
//!   convex and sharper than [`crate::tolerance::ACTIVE_EDGE_ANGLE`]
//!   ([`super::triangle_set::crease_is_active`]);
//! * **boundary** when one triangle has it: active, no neighbour;
//! * **non-manifold** when three or more triangles share it, or two run along it in the
//!   same direction (inconsistent orientation): active, no neighbour for any of them. A
//!   neighbour's normal is only meaningful when the two faces agree on which side is
//!   outside, and an active edge can only cost a contact its smoothness, never miss it.
//!   A `closed` mesh refuses both cases.
//!
//! # Degenerate triangles
//!
//! A triangle whose doubled area is at most [`crate::tolerance::DEGENERATE_TRIANGLE`]
//! times its longest edge squared (its height is rounding-level next to its length) has
//! no reliable normal and is refused, as is one with two corners at the same position.
//!
//! # Pseudo-normals (closed meshes)
//!
//! For the inside test of point projection, a closed mesh also keeps each vertex's
//! angle-weighted pseudo-normal, `Σ α_i n_i` over the triangles around it (`α_i` the
//! triangle's angle at the vertex), normalised (Bærentzen and Aanæs, "Signed distance
//! computation using the angle weighted pseudonormal", IEEE TVCG 11(3), 2005); an edge's
//! pseudo-normal is the sum of its two faces' normals. With `q` the closest point of the
//! mesh to `p` and `n` the pseudo-normal of the feature (face, edge or vertex) that holds
//! `q`, `p` is inside exactly when `(p − q) · n < 0`.
//!
//! # The tree
//!
//! A [`SahTree`] over the triangles' boxes, built once by the binned surface area
//! heuristic: depth at most [`SahTree::MAX_DEPTH`], walked without allocation.

use super::triangle_set::{crease_is_active, MeshEdge, MeshTriangle, TriangleSet};
use super::MAX_MAGNITUDE;
use crate::bounding::{Aabb, SahTree};
use crate::math::{Point, Real, Vector};
use crate::tolerance::DEGENERATE_TRIANGLE;
use std::ops::ControlFlow;
use std::path::Path;

/// How a [`TriMesh`] is used (see the module notes). The default is neither: a
/// two-sided, possibly open surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TriMeshFlags {
    /// Only the outside (the side the normals point to) collides.
    pub one_sided: bool,
    /// The mesh must be watertight and consistently oriented; it then bounds a solid
    /// (inside tests for rays and point projection).
    pub closed: bool,
}

impl TriMeshFlags {
    /// Two-sided, open: every triangle collides from both sides.
    pub const NONE: Self = Self {
        one_sided: false,
        closed: false,
    };
    /// One-sided, open.
    pub const ONE_SIDED: Self = Self {
        one_sided: true,
        closed: false,
    };
    /// Closed (a solid), two-sided.
    pub const CLOSED: Self = Self {
        one_sided: false,
        closed: true,
    };
}

/// Why a [`TriMesh`] could not be built. Indices of vertices and triangles are those of
/// the input (for an OBJ file, after its models are merged and its faces triangulated).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TriMeshError {
    /// No triangle was given.
    #[error("a triangle mesh needs at least one triangle")]
    Empty,
    /// More than [`TriMesh::MAX_TRIANGLES`] triangles were given.
    #[error("a triangle mesh holds at most {max} triangles, got {got}")]
    TooManyTriangles {
        /// Triangles given.
        got: usize,
        /// The limit.
        max: usize,
    },
    /// A vertex has a NaN or infinite coordinate, or one of magnitude above
    /// [`MAX_MAGNITUDE`].
    #[error("triangle mesh vertex {index} must be finite with coordinates of magnitude <= {max:?}, got {value:?}", max = MAX_MAGNITUDE)]
    BadVertex {
        /// The vertex's index.
        index: usize,
        /// Its coordinates.
        value: [Real; 3],
    },
    /// A triangle refers to a vertex that does not exist.
    #[error("triangle {triangle} refers to vertex {index}, but there are {vertex_count} vertices")]
    IndexOutOfRange {
        /// The triangle's index.
        triangle: usize,
        /// The vertex index it gives.
        index: u32,
        /// The number of vertices.
        vertex_count: usize,
    },
    /// A triangle has (nearly) no area: two corners at the same position, or a height
    /// below [`crate::tolerance::DEGENERATE_TRIANGLE`] times its longest edge.
    #[error("triangle {triangle} is degenerate (no area beyond rounding)")]
    DegenerateTriangle {
        /// The triangle's index.
        triangle: usize,
    },
    /// A `closed` mesh has an edge of a single triangle (a hole).
    #[error("the mesh is not closed: edge {edge:?} of triangle {triangle} has no neighbour")]
    OpenEdge {
        /// The edge's vertices, as the triangle gives them.
        edge: [u32; 2],
        /// The triangle.
        triangle: usize,
    },
    /// A `closed` mesh has an edge shared by three or more triangles.
    #[error("the mesh is not closed: edge {edge:?} is shared by {triangles} triangles")]
    NonManifoldEdge {
        /// The edge's vertices, as the first triangle having it gives them.
        edge: [u32; 2],
        /// How many triangles share it.
        triangles: usize,
    },
    /// A `closed` mesh has two triangles running along an edge in the same direction:
    /// their orientations disagree.
    #[error("the mesh is not consistently oriented: triangles {triangles:?} both run along edge {edge:?} in the same direction")]
    MisorientedEdge {
        /// The edge's vertices, as the first triangle gives them.
        edge: [u32; 2],
        /// The two triangles.
        triangles: [usize; 2],
    },
    /// The OBJ file could not be read or parsed.
    #[error("OBJ file {path}: {reason}")]
    Obj {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

/// No neighbour across an edge.
const NO_NEIGHBOUR: u32 = u32::MAX;

/// A static triangle mesh (see the module notes): triangles counter-clockwise seen from
/// outside, in the mesh's local frame, with normals, adjacency, active edges and a
/// bounding-volume tree. Built once by [`TriMesh::new`] or [`TriMesh::from_obj`];
/// queried through [`TriangleSet`], [`crate::query::cast_ray_trimesh`] and
/// [`crate::query::project_point_trimesh`].
#[derive(Clone, PartialEq)]
pub struct TriMesh {
    vertices: Vec<Point>,
    indices: Vec<[u32; 3]>,
    /// Per triangle: its outward unit normal.
    normals: Vec<Vector>,
    /// Per triangle and edge `k` (vertex `k` to `k + 1`): the triangle across it, or
    /// [`NO_NEIGHBOUR`].
    neighbours: Vec<[u32; 3]>,
    /// Per triangle: bit `k` set when edge `k` is active.
    active: Vec<u8>,
    /// Closed meshes only (else empty): per vertex, its unit angle-weighted pseudo-normal.
    vertex_normals: Vec<Vector>,
    tree: SahTree,
    flags: TriMeshFlags,
}

impl std::fmt::Debug for TriMesh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TriMesh")
            .field("vertices", &self.vertices.len())
            .field("triangles", &self.indices.len())
            .field("flags", &self.flags)
            .field("tree_depth", &self.tree.depth())
            .finish_non_exhaustive()
    }
}

impl TriMesh {
    /// The most triangles a mesh holds (2³¹, the limit of its tree).
    pub const MAX_TRIANGLES: usize = SahTree::MAX_ITEMS;

    /// The mesh of `indices` (triangles, each three indices into `vertices`,
    /// counter-clockwise seen from outside) over `vertices` (local frame), used as
    /// `flags` says. Vertices no triangle uses are kept (and checked) but play no part.
    /// Time about `O(n log n)` for `n` triangles.
    ///
    /// ```
    /// use minkowski::shape::{TriMesh, TriMeshFlags, TriangleSet};
    /// use minkowski::Vector;
    ///
    /// // A unit square in the xz plane, facing +y, as two triangles.
    /// let v = vec![
    ///     Vector::new(0.0, 0.0, 0.0),
    ///     Vector::new(1.0, 0.0, 0.0),
    ///     Vector::new(1.0, 0.0, 1.0),
    ///     Vector::new(0.0, 0.0, 1.0),
    /// ];
    /// let mesh = TriMesh::new(v, vec![[0, 2, 1], [0, 3, 2]], TriMeshFlags::NONE).unwrap();
    /// let t = mesh.triangle(0).unwrap();
    /// assert_eq!(t.normal, Vector::Y);
    /// // The diagonal is flat: inactive. The square's sides are boundary: active.
    /// assert!(!t.edges[0].active && t.edges[1].active);
    /// ```
    ///
    /// # Errors
    /// [`TriMeshError::Empty`] for no triangle, [`TriMeshError::TooManyTriangles`],
    /// [`TriMeshError::BadVertex`] for a non-finite or too large coordinate,
    /// [`TriMeshError::IndexOutOfRange`], [`TriMeshError::DegenerateTriangle`], and for a
    /// `closed` mesh [`TriMeshError::OpenEdge`], [`TriMeshError::NonManifoldEdge`] or
    /// [`TriMeshError::MisorientedEdge`]. The first problem found is reported, in that
    /// order of checks.
    pub fn new(
        vertices: Vec<Point>,
        indices: Vec<[u32; 3]>,
        flags: TriMeshFlags,
    ) -> Result<Self, TriMeshError> {
        if indices.is_empty() {
            return Err(TriMeshError::Empty);
        }
        if indices.len() > Self::MAX_TRIANGLES {
            return Err(TriMeshError::TooManyTriangles {
                got: indices.len(),
                max: Self::MAX_TRIANGLES,
            });
        }
        if let Some(index) = vertices
            .iter()
            .position(|v| !(v.is_finite() && v.abs().max_element() <= MAX_MAGNITUDE))
        {
            return Err(TriMeshError::BadVertex {
                index,
                value: vertices[index].to_array(),
            });
        }
        for (triangle, tri) in indices.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| i as usize >= vertices.len()) {
                return Err(TriMeshError::IndexOutOfRange {
                    triangle,
                    index,
                    vertex_count: vertices.len(),
                });
            }
        }
        let mut normals = Vec::with_capacity(indices.len());
        for (triangle, tri) in indices.iter().enumerate() {
            let [a, b, c] = tri.map(|i| vertices[i as usize]);
            normals
                .push(face_normal(a, b, c).ok_or(TriMeshError::DegenerateTriangle { triangle })?);
        }
        let canon = canonical_vertices(&vertices);
        let (neighbours, active) = adjacency(&vertices, &indices, &normals, &canon, flags.closed)?;
        let vertex_normals = if flags.closed {
            pseudo_normals(&vertices, &indices, &normals, &canon)
        } else {
            Vec::new()
        };
        let boxes: Vec<Aabb> = indices
            .iter()
            .map(|t| triangle_box(t.map(|i| vertices[i as usize])))
            .collect();
        // Every box is finite and ordered and there is at least one, within the limit.
        let tree = SahTree::new(&boxes).map_err(|_| TriMeshError::Empty)?;
        Ok(Self {
            vertices,
            indices,
            normals,
            neighbours,
            active,
            vertex_normals,
            tree,
            flags,
        })
    }

    /// The mesh of a Wavefront OBJ file: every model's faces, triangulated (a polygon of
    /// `k` corners becomes `k − 2` triangles fanned from its first corner, as the `tobj`
    /// reader does), all models merged into one mesh (their vertices appended in file
    /// order); lines, points, normals, texture coordinates and materials are ignored.
    ///
    /// # Errors
    /// [`TriMeshError::Obj`] for a file that cannot be opened or parsed (a malformed
    /// number, a face index out of range, ...); then as [`TriMesh::new`] (a file without
    /// faces is [`TriMeshError::Empty`]).
    pub fn from_obj(path: impl AsRef<Path>, flags: TriMeshFlags) -> Result<Self, TriMeshError> {
        let path = path.as_ref();
        let obj_error = |reason: String| TriMeshError::Obj {
            path: path.display().to_string(),
            reason,
        };
        // `tobj` has more options behind its own features (merging, reordering): keep
        // their defaults whichever are compiled in.
        #[allow(clippy::needless_update)]
        let options = tobj::LoadOptions {
            triangulate: true,
            single_index: false,
            ignore_points: true,
            ignore_lines: true,
            ..tobj::LoadOptions::default()
        };
        let (models, _materials) =
            tobj::load_obj(path, &options).map_err(|e| obj_error(e.to_string()))?;
        let mut vertices = Vec::new();
        let mut indices = Vec::new();
        for m in &models {
            let base = vertices.len();
            let offset = u32::try_from(base)
                .map_err(|_| obj_error("more vertices than 32-bit indices can name".into()))?;
            vertices.extend(
                m.mesh
                    .positions
                    .chunks_exact(3)
                    .map(|c| Vector::new(c[0] as Real, c[1] as Real, c[2] as Real)),
            );
            for t in m.mesh.indices.chunks_exact(3) {
                let mut tri = [0u32; 3];
                for (slot, &i) in tri.iter_mut().zip(t) {
                    *slot = i
                        .checked_add(offset)
                        .ok_or_else(|| obj_error("vertex index overflows 32 bits".into()))?;
                }
                indices.push(tri);
            }
        }
        Self::new(vertices, indices, flags)
    }

    /// The vertices (local frame), as given.
    pub fn vertices(&self) -> &[Point] {
        &self.vertices
    }

    /// The triangles, as indices into [`vertices`](Self::vertices), as given.
    pub fn indices(&self) -> &[[u32; 3]] {
        &self.indices
    }

    /// The number of triangles (see also [`TriangleSet::triangle_count`], the same).
    pub fn triangle_count(&self) -> usize {
        self.indices.len()
    }

    /// How the mesh is used.
    pub fn flags(&self) -> TriMeshFlags {
        self.flags
    }

    /// Whether the mesh was validated closed and bounds a solid.
    pub fn is_closed(&self) -> bool {
        self.flags.closed
    }

    /// The outward unit normal of triangle `index` (local frame), `None` out of range.
    pub fn normal(&self, index: u32) -> Option<Vector> {
        self.normals.get(index as usize).copied()
    }

    /// The triangle across edge `k` (vertex `k` to `k + 1`) of triangle `index`: `None`
    /// on a boundary or non-manifold edge, or out of range.
    pub fn neighbour(&self, index: u32, k: usize) -> Option<u32> {
        let n = *self.neighbours.get(index as usize)?.get(k)?;
        (n != NO_NEIGHBOUR).then_some(n)
    }

    /// The angle-weighted pseudo-normal of vertex `index` (unit, local frame; see the
    /// module notes): `None` for a mesh that is not closed, or out of range.
    pub fn vertex_pseudo_normal(&self, index: u32) -> Option<Vector> {
        self.vertex_normals.get(index as usize).copied()
    }

    /// The tree over the triangles' boxes (item `i` is triangle `i`).
    pub fn tree(&self) -> &SahTree {
        &self.tree
    }

    /// The heap memory the mesh holds, tree included (bytes).
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        self.vertices.capacity() * size_of::<Point>()
            + self.indices.capacity() * size_of::<[u32; 3]>()
            + self.normals.capacity() * size_of::<Vector>()
            + self.neighbours.capacity() * size_of::<[u32; 3]>()
            + self.active.capacity()
            + self.vertex_normals.capacity() * size_of::<Vector>()
            + self.tree.memory_bytes()
    }

    /// Triangle `t`'s corners (local frame). `t` must be in range.
    #[inline]
    pub(crate) fn corners(&self, t: u32) -> [Point; 3] {
        self.indices[t as usize].map(|i| self.vertices[i as usize])
    }

    /// Triangle `t`'s outward unit normal. `t` must be in range.
    #[inline]
    pub(crate) fn face_normal(&self, t: u32) -> Vector {
        self.normals[t as usize]
    }

    /// The pseudo-normal (not normalised) of edge `k` of triangle `t` of a closed mesh:
    /// the sum of its two faces' normals.
    pub(crate) fn edge_pseudo_normal(&self, t: u32, k: usize) -> Vector {
        let n = self.normals[t as usize];
        match self.neighbour(t, k) {
            Some(m) => n + self.normals[m as usize],
            None => n,
        }
    }

    /// The pseudo-normal of corner `k` of triangle `t` of a closed mesh (its face's
    /// normal for a mesh that is not closed).
    pub(crate) fn corner_pseudo_normal(&self, t: u32, k: usize) -> Vector {
        let v = self.indices[t as usize][k] as usize;
        self.vertex_normals
            .get(v)
            .copied()
            .unwrap_or(self.normals[t as usize])
    }

    /// Checks the mesh's invariants: unit normals agreeing with the corners, symmetric
    /// adjacency (a triangle's neighbour has it as a neighbour across the same edge, run
    /// the other way), active flags as [`crease_is_active`] gives them, unit pseudo-normals
    /// for a closed mesh, and the tree well formed over the triangles' boxes
    /// ([`SahTree::assert_well_formed`]).
    ///
    /// # Errors
    /// A description of the first broken invariant.
    pub fn assert_well_formed(&self) -> Result<(), String> {
        let eps = 1e3 * crate::math::EPSILON;
        let n = self.indices.len();
        if self.normals.len() != n || self.neighbours.len() != n || self.active.len() != n {
            return Err("per-triangle arrays of different lengths".into());
        }
        for t in 0..n as u32 {
            let [a, b, c] = self.corners(t);
            let nt = self.normals[t as usize];
            if (nt.length() - 1.0).abs() > eps || face_normal(a, b, c) != Some(nt) {
                return Err(format!("triangle {t}: normal {nt:?} is not its face's"));
            }
            for k in 0..3 {
                let active = self.active[t as usize] >> k & 1 == 1;
                match self.neighbour(t, k) {
                    None if !active => {
                        return Err(format!("triangle {t}: edge {k} without neighbour inactive"))
                    }
                    None => {}
                    Some(m) => {
                        let back = (0..3).find(|&j| self.neighbour(m, j) == Some(t));
                        let Some(j) = back else {
                            return Err(format!("triangle {t}: neighbour {m} does not see it"));
                        };
                        let p = self.corners(t);
                        let q = self.corners(m);
                        if p[k] != q[(j + 1) % 3] || p[(k + 1) % 3] != q[j] {
                            return Err(format!(
                                "triangle {t}: edge {k} and {m}'s edge {j} differ"
                            ));
                        }
                        let edge = p[(k + 1) % 3] - p[k];
                        let want = crease_is_active(nt, self.normals[m as usize], edge);
                        if want != active {
                            return Err(format!("triangle {t}: edge {k} active flag wrong"));
                        }
                    }
                }
            }
        }
        if self.flags.closed {
            if self.vertex_normals.len() != self.vertices.len() {
                return Err("pseudo-normals missing".into());
            }
            for tri in &self.indices {
                for &v in tri {
                    let pn = self.vertex_normals[v as usize];
                    if (pn.length() - 1.0).abs() > eps {
                        return Err(format!("vertex {v}: pseudo-normal {pn:?} not unit"));
                    }
                }
            }
        }
        let boxes: Vec<Aabb> = (0..n as u32)
            .map(|t| triangle_box(self.corners(t)))
            .collect();
        self.tree.assert_well_formed(&boxes)
    }

    /// Triangle `t` as the queries see it. `t` must be in range.
    fn mesh_triangle(&self, t: u32) -> MeshTriangle {
        let bits = self.active[t as usize];
        let nb = self.neighbours[t as usize];
        MeshTriangle {
            index: t,
            vertices: self.corners(t),
            normal: self.normals[t as usize],
            edges: [0, 1, 2].map(|k| MeshEdge {
                active: bits >> k & 1 == 1,
                neighbour_normal: (nb[k] != NO_NEIGHBOUR).then(|| self.normals[nb[k] as usize]),
            }),
        }
    }
}

impl TriangleSet for TriMesh {
    fn triangle_count(&self) -> usize {
        self.indices.len()
    }

    fn local_aabb(&self) -> Option<Aabb> {
        Some(self.tree.root_aabb())
    }

    /// Through the tree: exactly the triangles whose own box meets `aabb`.
    fn triangles_in(&self, aabb: &Aabb, f: &mut dyn FnMut(&MeshTriangle) -> ControlFlow<()>) {
        self.triangles_in_where(aabb, &mut |_| true, &mut |_| true, f);
    }

    /// Through the tree, its nodes pruned by `aabb` and offered to `keep_box` (each node's
    /// box holds its triangles); a triangle's neighbours are looked up only when `keep`
    /// accepts its corners.
    fn triangles_in_where(
        &self,
        aabb: &Aabb,
        keep_box: &mut dyn FnMut(&Aabb) -> bool,
        keep: &mut dyn FnMut(&[Point; 3]) -> bool,
        f: &mut dyn FnMut(&MeshTriangle) -> ControlFlow<()>,
    ) {
        let _ = self.tree.query_aabb_where(
            aabb,
            |b| keep_box(b),
            |t| {
                let corners = self.corners(t);
                if triangle_box(corners).intersects(aabb) && keep(&corners) {
                    f(&self.mesh_triangle(t))
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
    }

    /// Through the tree (its nodes offered to `keep_box`, as above), the corners only.
    fn corners_in(
        &self,
        aabb: &Aabb,
        keep_box: &mut dyn FnMut(&Aabb) -> bool,
        f: &mut dyn FnMut(u32, &[Point; 3]) -> ControlFlow<()>,
    ) {
        let _ = self.tree.query_aabb_where(
            aabb,
            |b| keep_box(b),
            |t| {
                let corners = self.corners(t);
                if triangle_box(corners).intersects(aabb) {
                    f(t, &corners)
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
    }

    /// The normal stored at build.
    fn face_normal(&self, index: u32) -> Option<Vector> {
        self.normals.get(index as usize).copied()
    }

    fn triangle(&self, index: u32) -> Option<MeshTriangle> {
        ((index as usize) < self.indices.len()).then(|| self.mesh_triangle(index))
    }

    fn one_sided(&self) -> bool {
        self.flags.one_sided
    }
}

/// The box of a triangle's corners.
pub(crate) fn triangle_box([a, b, c]: [Point; 3]) -> Aabb {
    Aabb::new(a.min(b).min(c), a.max(b).max(c))
}

/// The outward unit normal of the triangle `a, b, c` (counter-clockwise), or `None` when
/// it is degenerate (see the module notes). The edges are scaled by the longest one's
/// inverse first, so that large triangles do not overflow; a tiny one (edges below
/// [`crate::tolerance::RESCALE_BELOW`], whose squared lengths underflow: 1e-25 in
/// `f32`) is first brought to about unit size by a power of two.
fn face_normal(a: Point, b: Point, c: Point) -> Option<Vector> {
    let (e1, e2, e3) = (b - a, c - a, c - b);
    let m = e1.abs().max(e2.abs()).max(e3.abs()).max_element();
    if !(m.is_finite() && m > 0.0) {
        return None;
    }
    let (e1, e2, e3) = match crate::tolerance::rescale_factor(m) {
        Some(s) => (e1 * s, e2 * s, e3 * s),
        None => (e1, e2, e3),
    };
    let longest = e1.length().max(e2.length()).max(e3.length());
    let s = 1.0 / longest;
    let cross = (e1 * s).cross(e2 * s);
    let twice_area = cross.length();
    if twice_area.is_nan() || twice_area <= DEGENERATE_TRIANGLE {
        return None;
    }
    Some(cross / twice_area)
}

/// For each vertex, the first vertex (by index) at the same position: edges are matched
/// on these (see the module notes).
fn canonical_vertices(vertices: &[Point]) -> Vec<u32> {
    // `+ 0.0` turns −0 into +0, so both are one position.
    let key = |v: &Point| {
        let v = *v + Vector::ZERO;
        [
            v.x.to_bits() as u64,
            v.y.to_bits() as u64,
            v.z.to_bits() as u64,
        ]
    };
    let mut order: Vec<u32> = (0..vertices.len() as u32).collect();
    order.sort_unstable_by(|&i, &j| {
        key(&vertices[i as usize])
            .cmp(&key(&vertices[j as usize]))
            .then(i.cmp(&j))
    });
    let mut canon = vec![0u32; vertices.len()];
    let mut first = 0u32;
    for (n, &i) in order.iter().enumerate() {
        if n == 0 || key(&vertices[i as usize]) != key(&vertices[order[n - 1] as usize]) {
            first = i;
        }
        canon[i as usize] = first;
    }
    canon
}

/// Per triangle, the neighbour across each edge and the active bits (see the module
/// notes); for a `closed` mesh, the first edge that is not shared by exactly two
/// oppositely running triangles is an error.
#[allow(clippy::type_complexity)]
fn adjacency(
    vertices: &[Point],
    indices: &[[u32; 3]],
    normals: &[Vector],
    canon: &[u32],
    closed: bool,
) -> Result<(Vec<[u32; 3]>, Vec<u8>), TriMeshError> {
    let n = indices.len();
    // (edge key of its canonical ends, low first; triangle · 4 + edge).
    let mut edges: Vec<(u64, u64)> = Vec::with_capacity(3 * n);
    let ends = |t: usize, k: usize| {
        let tri = indices[t];
        (canon[tri[k] as usize], canon[tri[(k + 1) % 3] as usize])
    };
    for t in 0..n {
        for k in 0..3 {
            let (a, b) = ends(t, k);
            let key = ((a.min(b) as u64) << 32) | a.max(b) as u64;
            edges.push((key, (t as u64) << 2 | k as u64));
        }
    }
    edges.sort_unstable();
    let mut neighbours = vec![[NO_NEIGHBOUR; 3]; n];
    let mut active = vec![0u8; n];
    let given = |t: usize, k: usize| [indices[t][k], indices[t][(k + 1) % 3]];
    let mut start = 0;
    while start < edges.len() {
        let mut end = start + 1;
        while end < edges.len() && edges[end].0 == edges[start].0 {
            end += 1;
        }
        let run = &edges[start..end];
        let split = |e: u64| ((e >> 2) as usize, (e & 3) as usize);
        let (t1, k1) = split(run[0].1);
        let mut paired = false;
        if let [_, (_, e2)] = run {
            let (t2, k2) = split(*e2);
            if ends(t1, k1).0 == ends(t2, k2).1 {
                paired = true;
                neighbours[t1][k1] = t2 as u32;
                neighbours[t2][k2] = t1 as u32;
                for (t, k, m) in [(t1, k1, t2), (t2, k2, t1)] {
                    let [a, b] = given(t, k).map(|i| vertices[i as usize]);
                    if crease_is_active(normals[t], normals[m], b - a) {
                        active[t] |= 1 << k;
                    }
                }
            } else if closed {
                return Err(TriMeshError::MisorientedEdge {
                    edge: given(t1, k1),
                    triangles: [t1, t2],
                });
            }
        }
        if !paired {
            if closed {
                return Err(if run.len() == 1 {
                    TriMeshError::OpenEdge {
                        edge: given(t1, k1),
                        triangle: t1,
                    }
                } else {
                    TriMeshError::NonManifoldEdge {
                        edge: given(t1, k1),
                        triangles: run.len(),
                    }
                });
            }
            for &(_, e) in run {
                let (t, k) = split(e);
                active[t] |= 1 << k;
            }
        }
        start = end;
    }
    Ok((neighbours, active))
}

/// Per vertex, the unit angle-weighted pseudo-normal of its position (see the module
/// notes): every vertex at one position gets the same.
fn pseudo_normals(
    vertices: &[Point],
    indices: &[[u32; 3]],
    normals: &[Vector],
    canon: &[u32],
) -> Vec<Vector> {
    let mut sum = vec![Vector::ZERO; vertices.len()];
    for (tri, &n) in indices.iter().zip(normals) {
        let p = tri.map(|i| vertices[i as usize]);
        for k in 0..3 {
            let (e1, e2) = (p[(k + 1) % 3] - p[k], p[(k + 2) % 3] - p[k]);
            // The products of tiny edges (1e-23 in `f32`) underflow: those are brought
            // to about unit size first (a power of two; the angle does not change).
            let m = e1.abs().max(e2.abs()).max_element();
            let (e1, e2) = match crate::tolerance::rescale_factor(m) {
                Some(s) => (e1 * s, e2 * s),
                None => (e1, e2),
            };
            let angle = e1.cross(e2).length().atan2(e1.dot(e2));
            sum[canon[tri[k] as usize] as usize] += n * angle;
        }
    }
    (0..vertices.len())
        .map(|v| sum[canon[v] as usize].normalize_or_zero())
        .collect()
}
