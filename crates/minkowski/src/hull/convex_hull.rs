//! The result of the 3D hull builder: a convex polytope (or its lower-dimensional
//! degenerate forms) with polygonal faces and vertex adjacency, and its checker.

use std::collections::HashMap;

use glam::{DVec2, DVec3};

use super::predicates::{collinear3, orient2, orient3, prepare3, prepare3_f64};
use super::HullError;
use crate::math::{Point, Real, Vector};

/// The true dimension of a point set's hull.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dimension {
    /// All points are equal: one vertex, no faces.
    Point = 0,
    /// All points are collinear: the two end points, no faces.
    Segment = 1,
    /// All points are coplanar: one face, the polygon.
    Polygon = 2,
    /// A solid polytope.
    Polyhedron = 3,
}

/// A convex hull in 3D: vertices (a subset of the input), faces as convex polygons and
/// vertex adjacency, all in the input's frame and units.
///
/// * Vertices are the *extreme* points only: no vertex lies inside a face or inside an
///   edge, and every location appears once even if the input repeats it.
/// * Faces index into [`vertices`](Self::vertices). Coplanar triangles are merged, so a
///   cube has six quadrilaterals. Each face is counter-clockwise seen from outside the
///   hull, with no three consecutive vertices collinear.
/// * [`Dimension::Polygon`]: one face, counter-clockwise about [`normal`](Self::normal).
///   [`Dimension::Segment`]: the two end points (lexicographically smallest first), no
///   faces. [`Dimension::Point`]: one vertex, no faces.
/// * [`neighbors`](Self::neighbors)`(v)`: the vertices joined to `v` by a hull edge (for
///   a segment, the other end).
///
/// Build one with [`super::quickhull3d`]; check one with [`validate`](Self::validate).
#[derive(Debug, Clone, PartialEq)]
pub struct ConvexHull {
    pub(crate) dimension: Dimension,
    pub(crate) vertices: Vec<Point>,
    pub(crate) source: Vec<usize>,
    pub(crate) face_start: Vec<u32>,
    pub(crate) face_vertices: Vec<u32>,
    pub(crate) adj_start: Vec<u32>,
    pub(crate) adjacency: Vec<u32>,
    pub(crate) normal: Vector,
}

/// What [`ConvexHull::validate`] found wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HullDefect {
    /// The input given to `validate` cannot be read (empty, non-finite, too large).
    #[error("input: {0}")]
    Input(HullError),
    /// A vertex is not the input point it claims to come from, or two vertices coincide.
    #[error("vertex {vertex} does not match its input point or repeats another vertex")]
    BadVertex {
        /// The vertex.
        vertex: usize,
    },
    /// The face list does not fit the dimension (faces on a segment, several polygons, ...).
    #[error("{0}")]
    Shape(String),
    /// A face has fewer than three vertices, repeats one, or names a missing vertex.
    #[error("face {face} is malformed")]
    BadFace {
        /// The face.
        face: usize,
    },
    /// A face's vertices are not coplanar.
    #[error("face {face} is not planar")]
    NonPlanarFace {
        /// The face.
        face: usize,
    },
    /// A face has a collinear or reflex corner, or is wound clockwise seen from outside.
    #[error("face {face} has a corner that is not strictly convex at vertex {vertex}")]
    NonConvexCorner {
        /// The face.
        face: usize,
        /// The corner.
        vertex: u32,
    },
    /// A directed edge is not matched by exactly one opposite edge.
    #[error("edge {from} -> {to} is not shared by exactly two faces in opposite directions")]
    OpenEdge {
        /// Edge start.
        from: u32,
        /// Edge end.
        to: u32,
    },
    /// Two faces sharing an edge are coplanar (they should have been merged).
    #[error("faces {0} and {1} are coplanar neighbours")]
    UnmergedFaces(usize, usize),
    /// V − E + F ≠ 2.
    #[error("Euler characteristic V - E + F = {0}, expected 2")]
    Euler(i64),
    /// A vertex belongs to no face.
    #[error("vertex {vertex} belongs to no face")]
    UnusedVertex {
        /// The vertex.
        vertex: usize,
    },
    /// The adjacency lists do not equal the faces' edges.
    #[error("adjacency of vertex {vertex} does not match the face edges")]
    Adjacency {
        /// The vertex.
        vertex: usize,
    },
    /// An input point lies outside the hull.
    #[error("input point {index} lies outside the hull (beyond face {face})")]
    PointOutside {
        /// Index of the input point.
        index: usize,
        /// The face (or, for lower dimensions, `usize::MAX`).
        face: usize,
    },
}

impl ConvexHull {
    /// The hull's true dimension.
    pub fn dimension(&self) -> Dimension {
        self.dimension
    }

    /// Vertex positions (copies of input points).
    pub fn vertices(&self) -> &[Point] {
        &self.vertices
    }

    /// For each vertex, the index of the input point it is.
    pub fn source_indices(&self) -> &[usize] {
        &self.source
    }

    /// Number of faces (0 for a point or segment, 1 for a polygon).
    pub fn num_faces(&self) -> usize {
        self.face_start.len().saturating_sub(1)
    }

    /// Face `f` as vertex indices, counter-clockwise seen from outside.
    ///
    /// # Panics
    /// If `f >= self.num_faces()`.
    pub fn face(&self, f: usize) -> &[u32] {
        &self.face_vertices[self.face_start[f] as usize..self.face_start[f + 1] as usize]
    }

    /// All faces, in order.
    pub fn faces(&self) -> impl ExactSizeIterator<Item = &[u32]> + '_ {
        (0..self.num_faces()).map(|f| self.face(f))
    }

    /// The vertices joined to vertex `v` by an edge.
    ///
    /// # Panics
    /// If `v >= self.vertices().len()`.
    pub fn neighbors(&self, v: usize) -> &[u32] {
        &self.adjacency[self.adj_start[v] as usize..self.adj_start[v + 1] as usize]
    }

    /// The unit normal of a [`Dimension::Polygon`] hull, about which its face is
    /// counter-clockwise: the plane's exact normal rounded to [`Real`], with the sign that
    /// makes its largest-magnitude component positive. "Largest" is read on the returned
    /// vector (the first of equal components, as `abs().max_position()` does), so that
    /// the rule holds for the numbers the caller sees even when two components are equal
    /// only after rounding. Zero for other dimensions.
    pub fn normal(&self) -> Vector {
        self.normal
    }

    /// Number of edges.
    pub fn num_edges(&self) -> usize {
        self.adjacency.len() / 2
    }

    /// Enclosed volume (cubic length units; 0 below dimension 3), summed in `f64` about the
    /// vertex centroid.
    pub fn volume(&self) -> Real {
        if self.dimension != Dimension::Polyhedron {
            return 0.0;
        }
        let v: Vec<DVec3> = self.vertices.iter().map(|p| to_f64(*p)).collect();
        let c = v.iter().copied().sum::<DVec3>() / v.len() as f64;
        let mut six_vol = 0.0;
        for f in self.faces() {
            let a = v[f[0] as usize] - c;
            for w in f[1..].windows(2) {
                let (b, d) = (v[w[0] as usize] - c, v[w[1] as usize] - c);
                six_vol += a.dot(b.cross(d));
            }
        }
        (six_vol / 6.0) as Real
    }

    /// Surface area (square length units): the polygon's area for
    /// [`Dimension::Polygon`] (one side), 0 for a point or segment.
    pub fn area(&self) -> Real {
        let v: Vec<DVec3> = self.vertices.iter().map(|p| to_f64(*p)).collect();
        let mut total = 0.0;
        for f in self.faces() {
            let a = v[f[0] as usize];
            let mut n = DVec3::ZERO;
            for w in f[1..].windows(2) {
                n += (v[w[0] as usize] - a).cross(v[w[1] as usize] - a);
            }
            total += 0.5 * n.length();
        }
        total as Real
    }

    /// The hull as a Wavefront OBJ document: one `v` line per vertex, one `f` line per
    /// face (1-based, counter-clockwise from outside). Points and segments have no faces
    /// and give vertices only.
    pub fn to_obj(&self) -> String {
        use std::fmt::Write;
        let mut out = String::from("# convex hull written by minkowski\n");
        for v in &self.vertices {
            let _ = writeln!(out, "v {} {} {}", v.x, v.y, v.z);
        }
        for f in self.faces() {
            out.push('f');
            for i in f {
                let _ = write!(out, " {}", i + 1);
            }
            out.push('\n');
        }
        out
    }

    /// Checks the hull against the points it was built from, exactly (with the same exact
    /// predicates the builder uses, so the tolerance is zero):
    ///
    /// * every vertex is the input point it names, and no two vertices coincide;
    /// * faces fit the dimension; each face is planar, strictly convex at every corner and
    ///   counter-clockwise from outside (about [`normal`](Self::normal) for a polygon);
    /// * for a polyhedron: every edge is shared by exactly two faces in opposite
    ///   directions (closed, oriented surface), neighbouring faces are not coplanar,
    ///   V − E + F = 2, every vertex is on a face, and adjacency equals the face edges;
    /// * every input point is inside or on the hull (on the segment, in the polygon).
    ///
    /// O(n · F); meant for tests and debugging.
    ///
    /// # Errors
    /// The first [`HullDefect`] found.
    pub fn validate(&self, input: &[Point]) -> Result<(), HullDefect> {
        let p = prepare3(input).map_err(HullDefect::Input)?;
        self.validate_prepared(&p, &|s| input[s])
    }

    /// [`validate`](Self::validate) for a hull built by [`super::quickhull3d_f64`]: the
    /// same checks, exactly, on the `f64` points (each vertex must be its input point
    /// rounded to [`Real`], as that builder returns them).
    ///
    /// # Errors
    /// The first [`HullDefect`] found.
    pub fn validate_f64(&self, input: &[DVec3]) -> Result<(), HullDefect> {
        let p = prepare3_f64(input).map_err(HullDefect::Input)?;
        self.validate_prepared(&p, &|s| {
            let q = input[s];
            Point::new(q.x as Real, q.y as Real, q.z as Real)
        })
    }

    /// The checks of [`validate`](Self::validate) on prepared input `p`; `point(s)` is
    /// what vertex `s` must equal.
    fn validate_prepared(
        &self,
        p: &[DVec3],
        point: &dyn Fn(usize) -> Point,
    ) -> Result<(), HullDefect> {
        let nv = self.vertices.len();
        if nv == 0 || self.source.len() != nv || self.adj_start.len() != nv + 1 {
            return Err(HullDefect::Shape("vertex arrays are inconsistent".into()));
        }
        let mut seen = HashMap::new();
        for (i, (&s, v)) in self.source.iter().zip(&self.vertices).enumerate() {
            if s >= p.len()
                || point(s) != *v
                || seen.insert(p[s].to_array().map(f64::to_bits), i).is_some()
            {
                return Err(HullDefect::BadVertex { vertex: i });
            }
        }
        let x: Vec<DVec3> = self.source.iter().map(|&s| p[s]).collect();
        for (f, face) in self.faces().enumerate() {
            let mut sorted = face.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            if face.len() < 3
                || sorted.len() != face.len()
                || face.iter().any(|&i| i as usize >= nv)
            {
                return Err(HullDefect::BadFace { face: f });
            }
        }
        match self.dimension {
            Dimension::Point => {
                if nv != 1 || self.num_faces() != 0 {
                    return Err(HullDefect::Shape(
                        "a point hull has one vertex, no faces".into(),
                    ));
                }
                if let Some(i) = p.iter().position(|q| *q != x[0]) {
                    return Err(HullDefect::PointOutside {
                        index: i,
                        face: usize::MAX,
                    });
                }
                Ok(())
            }
            Dimension::Segment => {
                if nv != 2 || self.num_faces() != 0 {
                    return Err(HullDefect::Shape(
                        "a segment hull has two vertices, no faces".into(),
                    ));
                }
                let (a, b) = (x[0], x[1]);
                let lex = |q: DVec3| (q.x, q.y, q.z);
                if lex(a) > lex(b) {
                    return Err(HullDefect::BadVertex { vertex: 0 });
                }
                for (i, &q) in p.iter().enumerate() {
                    // Collinear, and between the ends in lexicographic order (which is
                    // the order along the line).
                    if !collinear3(a, b, q) || lex(q) < lex(a) || lex(q) > lex(b) {
                        return Err(HullDefect::PointOutside {
                            index: i,
                            face: usize::MAX,
                        });
                    }
                }
                self.check_adjacency_of_cycle(&[0, 1])
            }
            Dimension::Polygon => {
                if self.num_faces() != 1 {
                    return Err(HullDefect::Shape(
                        "a polygon hull has exactly one face".into(),
                    ));
                }
                let face = self.face(0);
                if face.len() != nv {
                    return Err(HullDefect::Shape(
                        "the polygon must use every vertex".into(),
                    ));
                }
                let (a, b, c) = (
                    x[face[0] as usize],
                    x[face[1] as usize],
                    x[face[2] as usize],
                );
                for (i, &q) in p.iter().enumerate() {
                    if orient3(a, b, c, q) != 0.0 {
                        return Err(HullDefect::PointOutside { index: i, face: 0 });
                    }
                }
                // Project along the normal's dominant axis, keeping the cyclic order of
                // the other two so that counter-clockwise is preserved.
                let k = self.normal.abs().max_position();
                if self.normal[k] <= 0.0 {
                    return Err(HullDefect::Shape("polygon normal is not canonical".into()));
                }
                let proj = |q: DVec3| DVec2::new(q[(k + 1) % 3], q[(k + 2) % 3]);
                let m = face.len();
                for i in 0..m {
                    let (u, v, w) = (face[i], face[(i + 1) % m], face[(i + 2) % m]);
                    if orient2(
                        proj(x[u as usize]),
                        proj(x[v as usize]),
                        proj(x[w as usize]),
                    ) <= 0.0
                    {
                        return Err(HullDefect::NonConvexCorner { face: 0, vertex: v });
                    }
                }
                for (idx, &q) in p.iter().enumerate() {
                    for i in 0..m {
                        let (u, v) = (face[i], face[(i + 1) % m]);
                        if orient2(proj(x[u as usize]), proj(x[v as usize]), proj(q)) < 0.0 {
                            return Err(HullDefect::PointOutside {
                                index: idx,
                                face: 0,
                            });
                        }
                    }
                }
                self.check_adjacency_of_cycle(face)
            }
            Dimension::Polyhedron => self.validate_polyhedron(p, &x),
        }
    }

    fn check_adjacency_of_cycle(&self, cycle: &[u32]) -> Result<(), HullDefect> {
        let m = cycle.len();
        for i in 0..m {
            let v = cycle[i] as usize;
            let mut want = if m == 2 {
                vec![cycle[1 - i]]
            } else {
                vec![cycle[(i + m - 1) % m], cycle[(i + 1) % m]]
            };
            let mut got = self.neighbors(v).to_vec();
            want.sort_unstable();
            got.sort_unstable();
            if want != got {
                return Err(HullDefect::Adjacency { vertex: v });
            }
        }
        Ok(())
    }

    fn validate_polyhedron(&self, p: &[DVec3], x: &[DVec3]) -> Result<(), HullDefect> {
        let nv = x.len();
        // Edges: each directed edge once, its reverse once; remember the face of each.
        let mut edge_face: HashMap<(u32, u32), usize> = HashMap::new();
        for (f, face) in self.faces().enumerate() {
            let m = face.len();
            for i in 0..m {
                let e = (face[i], face[(i + 1) % m]);
                if edge_face.insert(e, f).is_some() {
                    return Err(HullDefect::OpenEdge { from: e.0, to: e.1 });
                }
            }
        }
        for &(u, v) in edge_face.keys() {
            if !edge_face.contains_key(&(v, u)) {
                return Err(HullDefect::OpenEdge { from: u, to: v });
            }
        }
        let (v_count, e_count, f_count) = (
            nv as i64,
            edge_face.len() as i64 / 2,
            self.num_faces() as i64,
        );
        if v_count - e_count + f_count != 2 {
            return Err(HullDefect::Euler(v_count - e_count + f_count));
        }
        let mut used = vec![false; nv];
        for face in self.faces() {
            for &i in face {
                used[i as usize] = true;
            }
        }
        if let Some(v) = used.iter().position(|u| !u) {
            return Err(HullDefect::UnusedVertex { vertex: v });
        }
        for v in 0..nv {
            let mut want: Vec<u32> = edge_face
                .keys()
                .filter(|e| e.0 as usize == v)
                .map(|e| e.1)
                .collect();
            let mut got = self.neighbors(v).to_vec();
            want.sort_unstable();
            got.sort_unstable();
            if want != got {
                return Err(HullDefect::Adjacency { vertex: v });
            }
        }
        for (f, face) in self.faces().enumerate() {
            let (a, b, c) = (
                x[face[0] as usize],
                x[face[1] as usize],
                x[face[2] as usize],
            );
            for &i in &face[3..] {
                if orient3(a, b, c, x[i as usize]) != 0.0 {
                    return Err(HullDefect::NonPlanarFace { face: f });
                }
            }
            // A vertex strictly below the face: every corner must turn the same way as
            // seen from it (strictly convex, counter-clockwise from outside).
            let Some(below) = x.iter().copied().find(|&q| orient3(a, b, c, q) != 0.0) else {
                return Err(HullDefect::Shape("all vertices are coplanar".into()));
            };
            let m = face.len();
            for i in 0..m {
                let (u, v, w) = (face[i], face[(i + 1) % m], face[(i + 2) % m]);
                if orient3(x[u as usize], x[v as usize], x[w as usize], below) >= 0.0 {
                    return Err(HullDefect::NonConvexCorner { face: f, vertex: v });
                }
            }
            // Neighbours across each edge are not coplanar with this face.
            for i in 0..m {
                let (u, v) = (face[i], face[(i + 1) % m]);
                let g = edge_face[&(v, u)];
                let other = self.face(g);
                if other
                    .iter()
                    .all(|&j| j == u || j == v || orient3(a, b, c, x[j as usize]) == 0.0)
                {
                    return Err(HullDefect::UnmergedFaces(f, g));
                }
            }
            for (idx, &q) in p.iter().enumerate() {
                if orient3(a, b, c, q) > 0.0 {
                    return Err(HullDefect::PointOutside {
                        index: idx,
                        face: f,
                    });
                }
            }
        }
        Ok(())
    }
}

/// Builds the CSR adjacency from polygon faces (each directed edge adds its end to its
/// start's list) or from a vertex cycle.
pub(crate) fn adjacency_from_faces(
    nv: usize,
    faces: &[Vec<u32>],
    polyhedron: bool,
) -> (Vec<u32>, Vec<u32>) {
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); nv];
    for face in faces {
        let m = face.len();
        for i in 0..m {
            let (u, v) = (face[i], face[(i + 1) % m]);
            lists[u as usize].push(v);
            if !polyhedron {
                // A lone polygon's edges are not matched by a reverse edge.
                lists[v as usize].push(u);
            }
        }
    }
    let mut start = Vec::with_capacity(nv + 1);
    let mut adj = Vec::new();
    start.push(0);
    for l in lists {
        adj.extend(l);
        start.push(adj.len() as u32);
    }
    (start, adj)
}

/// Assembles a hull from input indices and faces (in those indices' positions).
pub(crate) fn assemble(
    dimension: Dimension,
    point_of: &dyn Fn(usize) -> Point,
    source: Vec<usize>,
    faces: Vec<Vec<u32>>,
    normal: Vector,
) -> ConvexHull {
    let nv = source.len();
    let (adj_start, adjacency) = match dimension {
        Dimension::Point => (vec![0, 0], Vec::new()),
        Dimension::Segment => (vec![0, 1, 2], vec![1, 0]),
        Dimension::Polygon => adjacency_from_faces(nv, &faces, false),
        Dimension::Polyhedron => adjacency_from_faces(nv, &faces, true),
    };
    let mut face_start = vec![0u32];
    let mut face_vertices = Vec::new();
    for f in &faces {
        face_vertices.extend_from_slice(f);
        face_start.push(face_vertices.len() as u32);
    }
    ConvexHull {
        dimension,
        vertices: source.iter().map(|&s| point_of(s)).collect(),
        source,
        face_start,
        face_vertices,
        adj_start,
        adjacency,
        normal,
    }
}

/// A point in `f64` (exact in both builds).
#[inline]
pub(crate) fn to_f64(p: Point) -> DVec3 {
    DVec3::new(p.x as f64, p.y as f64, p.z as f64)
}
