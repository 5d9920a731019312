//! Static test geometry shared by the static-geometry suites: grid fields and meshes
//! centred on the local origin, and one far-away triangle that, queried beside another
//! set, turns the single-set fast paths off and adds nothing.

use minkowski::shape::{HeightField, TriMesh, TriMeshFlags};
use minkowski::{Real, Vector};

/// A field of `n × n` cells of size `s` centred on the local origin, heights
/// `h(i, j) · s` (`None`: a hole).
pub fn grid_field(n: usize, s: Real, h: impl Fn(usize, usize) -> Option<Real>) -> HeightField {
    let samples: Vec<Option<Real>> = (0..(n + 1) * (n + 1))
        .map(|k| h(k / (n + 1), k % (n + 1)).map(|y| y * s))
        .collect();
    let o = -(n as Real) * s * 0.5;
    HeightField::new(n + 1, n + 1, &samples, [s, s], Vector::new(o, 0.0, o)).unwrap()
}

/// How a grid mesh splits its cells into triangles.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Cells {
    /// Every cell along the same diagonal, the vertices shared (welded).
    Welded,
    /// Every cell along the same diagonal, each triangle with its own three vertices
    /// (duplicates at the same positions).
    Split,
    /// Cells along alternating diagonals, the vertices shared.
    Alternating,
}

/// A grid mesh of `n × n` cells of size `s` centred on the local origin, height
/// `h(x, z)`, its cells split as `cells` says.
pub fn grid_mesh(n: usize, s: Real, cells: Cells, h: impl Fn(Real, Real) -> Real) -> TriMesh {
    let o = -(n as Real) * s * 0.5;
    grid_mesh_at(n, s, (o, o), cells, h)
}

/// A grid mesh of `n × n` cells of size `s` over `[x0, x0 + n·s] × [z0, z0 + n·s]`,
/// height `h(x, z)`, its cells split as `cells` says (counter-clockwise seen from
/// above: normals up).
pub fn grid_mesh_at(
    n: usize,
    s: Real,
    (x0, z0): (Real, Real),
    cells: Cells,
    h: impl Fn(Real, Real) -> Real,
) -> TriMesh {
    let mut vertices = Vec::new();
    for i in 0..=n {
        for j in 0..=n {
            let (x, z) = (x0 + j as Real * s, z0 + i as Real * s);
            vertices.push(Vector::new(x, h(x, z), z));
        }
    }
    let at = |i: usize, j: usize| (i * (n + 1) + j) as u32;
    let mut indices = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let (a, b, c, d) = (at(i, j), at(i, j + 1), at(i + 1, j), at(i + 1, j + 1));
            if cells == Cells::Alternating && (i + j) % 2 == 1 {
                indices.extend([[a, c, d], [a, d, b]]);
            } else {
                indices.extend([[a, c, b], [b, c, d]]);
            }
        }
    }
    if cells == Cells::Split {
        let welded = std::mem::take(&mut vertices);
        for t in &mut indices {
            for k in t.iter_mut() {
                vertices.push(welded[*k as usize]);
                *k = vertices.len() as u32 - 1;
            }
        }
    }
    TriMesh::new(vertices, indices, TriMeshFlags::NONE).unwrap()
}

/// One triangle far from everything (about `10⁴ · scale` from the origin, `scale` in
/// size): queried beside another set, it turns the single-set paths off and adds nothing.
pub fn far_away(scale: Real) -> TriMesh {
    let f = 1e4 * scale;
    let v = vec![
        Vector::new(f, f, f),
        Vector::new(f + scale, f, f),
        Vector::new(f, f, f + scale),
    ];
    TriMesh::new(v, vec![[0, 2, 1]], TriMeshFlags::NONE).unwrap()
}

/// A closed mesh: the octahedron of unit radius (vertices ±x, ±y, ±z), faces outward.
pub fn octahedron() -> TriMesh {
    let v = vec![
        Vector::X,
        -Vector::X,
        Vector::Y,
        -Vector::Y,
        Vector::Z,
        -Vector::Z,
    ];
    let faces = vec![
        [0, 2, 4],
        [2, 1, 4],
        [1, 3, 4],
        [3, 0, 4],
        [2, 0, 5],
        [1, 2, 5],
        [3, 1, 5],
        [0, 3, 5],
    ];
    TriMesh::new(v, faces, TriMeshFlags::NONE).expect("a valid mesh")
}
