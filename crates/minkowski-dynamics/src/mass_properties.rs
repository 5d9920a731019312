//! Mass, centre of mass and inertia tensor of every shape of the library.
//!
//! # Closed forms (uniform density ρ, mass m, the shape's local frame, axes along +Y)
//!
//! | shape | volume | inertia about the centroid (diagonal) |
//! |---|---|---|
//! | sphere radius r | 4/3·π·r³ | 2/5·m·r² on every axis |
//! | ellipsoid radii a, b, c | 4/3·π·a·b·c | m/5·(b²+c², a²+c², a²+b²) |
//! | cuboid half extents x, y, z | 8·x·y·z | m/3·(y²+z², x²+z², x²+y²) |
//! | cylinder radius r, height H = 2h | π·r²·H | m/12·(3r²+H²) about X and Z, m·r²/2 about Y |
//! | cone radius r, height H = 2h | π·r²·H/3 | 3/20·m·r² + 3/80·m·H² about X and Z, 3/10·m·r² about Y; centroid H/4 above the base |
//! | pyramid base 2x × 2z, height H = 2y | 4·x·z·H/3 | m·((2z)²/20 + 3H²/80), m·((2x)²+(2z)²)/20, m·((2x)²/20 + 3H²/80); centroid H/4 above the base |
//! | capsule radius r, half height h | π·r²·2h + 4/3·π·r³ | the cylinder plus two hemispheres moved by the parallel-axis rule (each hemisphere's centroid 3r/8 from its flat face) |
//!
//! (Seed 001 prints the sphere's factor wrongly; it is 2/5.)
//!
//! # Polyhedra (point-cloud hulls)
//!
//! The volume integrals of a closed polyhedron are sums over its faces (Mirtich, "Fast
//! and accurate computation of polyhedral mass properties", JGT 1(2), 1996; Eberly,
//! "Polyhedral Mass Properties (Revisited)", Geometric Tools, 2002). We use the
//! equivalent decomposition into signed tetrahedra `(o, a, b, c)`, one per triangle of a
//! fan over each counter-clockwise face, with `o` a reference point inside (the vertex
//! mean, which keeps the terms small): a tetrahedron with one vertex at the origin and
//! `D = det[a b c]` has volume `D/6`, first moment `D/24·(a+b+c)` and second moments
//! `∫ x xᵀ dV = D/120·(a aᵀ + b bᵀ + c cᵀ + (a+b+c)(a+b+c)ᵀ)` (Tonon, "Explicit exact
//! formulas for the 3-D tetrahedron inertia tensor in terms of its vertex coordinates",
//! J. Math. Stat. 1(1), 2004). The inertia is `I = tr(C)·𝟙 − C` with `C` the second-moment
//! matrix about the centroid. The sums run in `f64` whatever [`Real`] is.
//!
//! # Compounds
//!
//! Each part's tensor is rotated into the compound's frame (`R I Rᵀ`) and moved from its
//! centroid to the compound's by the parallel-axis rule `I + m·(|d|²𝟙 − d dᵀ)`.
//!
//! # Rounded shapes
//!
//! A rounded point is a sphere, a rounded segment along an axis a capsule (exact); any
//! other rounded shape is measured as the polyhedron spanned by its support points in
//! [`ROUNDED_DIRECTIONS`] directions (a Fibonacci sphere), which is inside the true shape
//! and converges to it (relative error about 10⁻³ in volume at the default count).

use minkowski::math::Matrix3;
use minkowski::query::compound::Collider;
use minkowski::shape::{Compound, ConvexPolyhedron, Shape};
use minkowski::support::SupportMap;
use minkowski::{Pose, Real, Rotation, Vector};

/// The number of support directions that measure a rounded shape other than a rounded
/// point or segment (see the module notes).
pub const ROUNDED_DIRECTIONS: usize = 512;

/// Why mass properties could not be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MassError {
    /// The density is not finite and strictly positive (mass per cubic length unit).
    #[error("density must be finite and > 0, got {0}")]
    InvalidDensity(Real),
    /// The shape encloses no volume (a point, segment, triangle, or a flat or collinear
    /// point cloud): it has no mass and no inertia at any density.
    #[error("a {0} encloses no volume: it has no mass")]
    ZeroVolume(&'static str),
    /// A compound with no parts, or one whose total mass is zero.
    #[error("the compound has no massive part")]
    EmptyCompound,
    /// The result is not finite (a shape so large that its moments overflow).
    #[error("the mass properties of a {0} are not finite (the shape is too large)")]
    NotFinite(&'static str),
}

/// A body's mass properties in its collider's local frame: mass (mass units), centre of
/// mass (length, local frame) and the inertia tensor about the centre of mass, in axes
/// parallel to the local frame (mass·length²; symmetric, positive definite).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassProperties {
    /// The mass (> 0).
    pub mass: Real,
    /// The centre of mass in the local frame.
    pub center: Vector,
    /// The inertia tensor about [`center`](Self::center), local axes.
    pub inertia: Matrix3,
}

impl MassProperties {
    /// The principal moments and the rotation whose columns are the principal axes (local
    /// frame): `inertia = R · diag(moments) · Rᵀ`. Found by cyclic Jacobi rotations
    /// (at most 32 sweeps; the tensor is symmetric 3×3, so a few suffice).
    pub fn principal(&self) -> (Vector, Rotation) {
        let (d, v) = jacobi_eigen(self.inertia);
        let mut r = v;
        if r.determinant() < 0.0 {
            r.z_axis = -r.z_axis;
        }
        (d, Rotation::from_mat3(&r).normalize())
    }

    /// The tensor about a point `p` of the local frame (parallel-axis rule).
    pub fn inertia_about(&self, p: Vector) -> Matrix3 {
        parallel_axis(self.inertia, self.mass, self.center - p)
    }

    /// These properties seen from a frame in which the collider has pose `pose`
    /// (a part placed in a compound).
    pub fn transformed(&self, pose: &Pose) -> MassProperties {
        let r = Matrix3::from_quat(pose.rotation());
        MassProperties {
            mass: self.mass,
            center: pose.transform_point(self.center),
            inertia: r * self.inertia * r.transpose(),
        }
    }
}

/// The mass properties of `shape` at uniform `density` (mass per cubic length unit).
///
/// # Errors
/// [`MassError::InvalidDensity`] for a density that is NaN, infinite, zero or negative;
/// [`MassError::ZeroVolume`] for a shape without volume (point, segment, triangle,
/// flat hull, or a primitive with a zero extent); [`MassError::NotFinite`] on overflow.
pub fn of_shape(shape: &Shape, density: Real) -> Result<MassProperties, MassError> {
    check_density(density)?;
    let name = shape.type_name();
    let pi = std::f64::consts::PI;
    let d = density as f64;
    let (mass, center, diag): (f64, Vector, [f64; 3]) = match shape {
        Shape::Sphere(s) => {
            let r = s.radius() as f64;
            let m = d * 4.0 / 3.0 * pi * r * r * r;
            (m, Vector::ZERO, [0.4 * m * r * r; 3])
        }
        Shape::Ellipsoid(e) => {
            let [a, b, c] = e.radii().to_array().map(|v| v as f64);
            let m = d * 4.0 / 3.0 * pi * a * b * c;
            let k = m / 5.0;
            (
                m,
                Vector::ZERO,
                [
                    k * (b * b + c * c),
                    k * (a * a + c * c),
                    k * (a * a + b * b),
                ],
            )
        }
        Shape::Cuboid(c) => {
            let [x, y, z] = c.half_extents().to_array().map(|v| v as f64);
            let m = d * 8.0 * x * y * z;
            let k = m / 3.0;
            (
                m,
                Vector::ZERO,
                [
                    k * (y * y + z * z),
                    k * (x * x + z * z),
                    k * (x * x + y * y),
                ],
            )
        }
        Shape::Cylinder(c) => {
            let (h, r) = (c.half_height() as f64, c.radius() as f64);
            let big_h = 2.0 * h;
            let m = d * pi * r * r * big_h;
            let side = m / 12.0 * (3.0 * r * r + big_h * big_h);
            (m, Vector::ZERO, [side, 0.5 * m * r * r, side])
        }
        Shape::Cone(c) => {
            let (h, r) = (c.half_height() as f64, c.radius() as f64);
            let big_h = 2.0 * h;
            let m = d * pi * r * r * big_h / 3.0;
            let side = 3.0 / 20.0 * m * r * r + 3.0 / 80.0 * m * big_h * big_h;
            // The centroid is H/4 above the base at y = -h: y = -h/2.
            let center = Vector::new(0.0, (-0.5 * h) as Real, 0.0);
            (m, center, [side, 0.3 * m * r * r, side])
        }
        Shape::Pyramid(p) => {
            let [x, y, z] = p.half_extents().to_array().map(|v| v as f64);
            let (a, b, big_h) = (2.0 * x, 2.0 * z, 2.0 * y);
            let m = d * a * b * big_h / 3.0;
            let hh = 3.0 * big_h * big_h / 80.0;
            let center = Vector::new(0.0, (-0.5 * y) as Real, 0.0);
            (
                m,
                center,
                [
                    m * (b * b / 20.0 + hh),
                    m * (a * a + b * b) / 20.0,
                    m * (a * a / 20.0 + hh),
                ],
            )
        }
        Shape::Capsule(c) => {
            let (h, r) = (c.half_height() as f64, c.radius() as f64);
            let (m, diag) = capsule(d, h, r);
            (m, Vector::ZERO, diag)
        }
        Shape::Convex(p) => return polyhedron(p, density),
        Shape::Segment(_) | Shape::Triangle(_) | Shape::Point(_) => {
            return Err(MassError::ZeroVolume(name))
        }
        Shape::Rounded(r) => return rounded(shape, r.inner(), r.radius(), density),
    };
    if mass <= 0.0 {
        return Err(MassError::ZeroVolume(name));
    }
    finish(
        name,
        mass,
        center,
        Matrix3::from_diagonal(Vector::new(
            diag[0] as Real,
            diag[1] as Real,
            diag[2] as Real,
        )),
    )
}

/// The mass properties of a collider (a shape or a compound) at uniform `density`.
///
/// # Errors
/// As [`of_shape`]; a compound as [`of_compound`].
pub fn of_collider(collider: &Collider, density: Real) -> Result<MassProperties, MassError> {
    match collider {
        Collider::Convex(s) => of_shape(s, density),
        Collider::Compound(c) => of_compound(c, density),
    }
}

/// The mass properties of a compound at uniform `density`: the parts' masses summed,
/// their centres averaged by mass, their tensors rotated into the compound's frame and
/// moved to the common centre (parallel-axis rule). Parts without volume (segments,
/// triangles, points) add nothing; overlapping parts are counted twice (the compound is
/// a union, but its mass is taken as the sum of its parts', as every engine does).
///
/// # Errors
/// [`MassError::InvalidDensity`]; [`MassError::EmptyCompound`] when no part has volume;
/// any part's other error.
pub fn of_compound(compound: &Compound, density: Real) -> Result<MassProperties, MassError> {
    check_density(density)?;
    let mut parts = Vec::with_capacity(compound.parts().len());
    for (pose, shape) in compound.parts() {
        match of_shape(shape, density) {
            Ok(mp) => parts.push(mp.transformed(pose)),
            Err(MassError::ZeroVolume(_)) => {}
            Err(e) => return Err(e),
        }
    }
    combine(&parts)
}

/// Several mass properties (in one frame) combined into one: the masses summed, the
/// centre by mass, the tensors by the parallel-axis rule.
///
/// # Errors
/// [`MassError::EmptyCompound`] for an empty list or a zero total mass;
/// [`MassError::NotFinite`] on overflow.
pub fn combine(parts: &[MassProperties]) -> Result<MassProperties, MassError> {
    let mass: f64 = parts.iter().map(|p| p.mass as f64).sum();
    if parts.is_empty() || mass <= 0.0 {
        return Err(MassError::EmptyCompound);
    }
    let mut c = [0.0f64; 3];
    for p in parts {
        for (k, ck) in c.iter_mut().enumerate() {
            *ck += p.mass as f64 * p.center[k] as f64;
        }
    }
    let center = Vector::new(
        (c[0] / mass) as Real,
        (c[1] / mass) as Real,
        (c[2] / mass) as Real,
    );
    let mut inertia = Matrix3::ZERO;
    for p in parts {
        inertia += parallel_axis(p.inertia, p.mass, p.center - center);
    }
    finish("compound", mass, center, inertia)
}

/// `I + m (|d|² 𝟙 − d dᵀ)`: a tensor about a centroid moved to a point at `−d` from it.
pub fn parallel_axis(inertia: Matrix3, mass: Real, d: Vector) -> Matrix3 {
    let outer = Matrix3::from_cols(d * d.x, d * d.y, d * d.z);
    inertia + (Matrix3::from_diagonal(Vector::splat(d.length_squared())) - outer) * mass
}

fn check_density(density: Real) -> Result<(), MassError> {
    if density.is_finite() && density > 0.0 {
        Ok(())
    } else {
        Err(MassError::InvalidDensity(density))
    }
}

fn finish(
    name: &'static str,
    mass: f64,
    center: Vector,
    inertia: Matrix3,
) -> Result<MassProperties, MassError> {
    let m = mass as Real;
    let finite = m.is_finite()
        && center.is_finite()
        && inertia.to_cols_array().iter().all(|v| v.is_finite());
    if !finite {
        return Err(MassError::NotFinite(name));
    }
    if m <= 0.0 {
        return Err(MassError::ZeroVolume(name));
    }
    Ok(MassProperties {
        mass: m,
        center,
        inertia,
    })
}

/// The capsule's mass and diagonal tensor: a cylinder of height `2h` and two
/// hemispheres whose centroids lie `h + 3r/8` from the centre.
fn capsule(density: f64, h: f64, r: f64) -> (f64, [f64; 3]) {
    let pi = std::f64::consts::PI;
    let mc = density * pi * r * r * 2.0 * h;
    let ms = density * 4.0 / 3.0 * pi * r * r * r; // both hemispheres
    let m = mc + ms;
    let cyl_side = mc / 12.0 * (3.0 * r * r + 4.0 * h * h);
    // One hemisphere (mass ms/2): about its flat face's centre, 2/5·(ms/2)·r² on every
    // axis; about its own centroid (3r/8 away) less (ms/2)(3r/8)²; moved to the capsule's
    // centre (h + 3r/8 away) by the parallel-axis rule.
    let mh = 0.5 * ms;
    let off = 3.0 * r / 8.0;
    let hemi_side = 0.4 * mh * r * r - mh * off * off + mh * (h + off) * (h + off);
    let side = cyl_side + 2.0 * hemi_side;
    let axial = 0.5 * mc * r * r + 0.4 * ms * r * r;
    (m, [side, axial, side])
}

/// A point cloud's hull by the face integrals of the module notes.
fn polyhedron(p: &ConvexPolyhedron, density: Real) -> Result<MassProperties, MassError> {
    let hull = p.hull();
    let verts = hull.vertices();
    if hull.num_faces() < 4 || verts.len() < 4 {
        return Err(MassError::ZeroVolume("convex"));
    }
    let n = verts.len() as f64;
    let mut o = [0.0f64; 3];
    for v in verts {
        for (k, ok) in o.iter_mut().enumerate() {
            *ok += v[k] as f64 / n;
        }
    }
    let local = |i: u32| -> [f64; 3] {
        let v = verts[i as usize];
        [v.x as f64 - o[0], v.y as f64 - o[1], v.z as f64 - o[2]]
    };
    let mut vol = 0.0f64;
    let mut first = [0.0f64; 3];
    let mut second = [[0.0f64; 3]; 3];
    for face in hull.faces() {
        if face.len() < 3 {
            continue;
        }
        let a = local(face[0]);
        for w in face[1..].windows(2) {
            let (b, c) = (local(w[0]), local(w[1]));
            let det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                + a[2] * (b[0] * c[1] - b[1] * c[0]);
            vol += det / 6.0;
            let s = [a[0] + b[0] + c[0], a[1] + b[1] + c[1], a[2] + b[2] + c[2]];
            for i in 0..3 {
                first[i] += det / 24.0 * s[i];
                for j in 0..3 {
                    second[i][j] +=
                        det / 120.0 * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
                }
            }
        }
    }
    // Counter-clockwise faces seen from outside give a positive volume; a flat hull
    // gives (about) zero.
    let extent = verts
        .iter()
        .map(|v| (v.as_dvec3() - glam::DVec3::from(o)).length())
        .fold(0.0f64, f64::max);
    if vol <= 1e-9 * extent * extent * extent || !vol.is_finite() {
        return Err(MassError::ZeroVolume("convex"));
    }
    let c = [first[0] / vol, first[1] / vol, first[2] / vol];
    let d = density as f64;
    // Second moments about the centroid: ∫ x xᵀ − V c cᵀ.
    let mut cov = [[0.0f64; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            cov[i][j] = d * (second[i][j] - vol * c[i] * c[j]);
        }
    }
    let tr = cov[0][0] + cov[1][1] + cov[2][2];
    let col = |j: usize| {
        Vector::new(
            ((if j == 0 { tr } else { 0.0 }) - cov[0][j]) as Real,
            ((if j == 1 { tr } else { 0.0 }) - cov[1][j]) as Real,
            ((if j == 2 { tr } else { 0.0 }) - cov[2][j]) as Real,
        )
    };
    let center = Vector::new(
        (c[0] + o[0]) as Real,
        (c[1] + o[1]) as Real,
        (c[2] + o[2]) as Real,
    );
    finish(
        "convex",
        d * vol,
        center,
        Matrix3::from_cols(col(0), col(1), col(2)),
    )
}

/// A rounded shape (module notes).
fn rounded(
    whole: &Shape,
    inner: &Shape,
    radius: Real,
    density: Real,
) -> Result<MassProperties, MassError> {
    let (core, margin) = whole.core();
    use minkowski::shape::CoreShape;
    match core {
        CoreShape::Point(p) => {
            let s = minkowski::shape::Sphere::new(margin)
                .map_err(|_| MassError::NotFinite("rounded"))?;
            let mp = of_shape(&Shape::from(s), density)?;
            return Ok(MassProperties {
                center: p.point(),
                ..mp
            });
        }
        CoreShape::Segment(s) => {
            let axis = s.b() - s.a();
            let len = axis.length();
            let cap = minkowski::shape::Capsule::new(0.5 * len, margin)
                .map_err(|_| MassError::NotFinite("rounded"))?;
            let mp = of_shape(&Shape::from(cap), density)?;
            let rot = if len > 0.0 {
                Rotation::from_rotation_arc(Vector::Y, axis / len)
            } else {
                Rotation::IDENTITY
            };
            let pose = Pose::new(rot, 0.5 * (s.a() + s.b()))
                .map_err(|_| MassError::NotFinite("rounded"))?;
            return Ok(mp.transformed(&pose));
        }
        _ => {}
    }
    let _ = (inner, radius);
    let n = ROUNDED_DIRECTIONS;
    let golden = std::f64::consts::PI * (3.0 - 5.0f64.sqrt());
    let points: Vec<Vector> = (0..n)
        .map(|i| {
            let y = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
            let r = (1.0 - y * y).max(0.0).sqrt();
            let t = golden * i as f64;
            let dir = Vector::new((r * t.cos()) as Real, y as Real, (r * t.sin()) as Real);
            whole.local_support(dir)
        })
        .collect();
    let hull = ConvexPolyhedron::new(points).map_err(|_| MassError::ZeroVolume("rounded"))?;
    polyhedron(&hull, density).map_err(|e| match e {
        MassError::ZeroVolume(_) => MassError::ZeroVolume("rounded"),
        MassError::NotFinite(_) => MassError::NotFinite("rounded"),
        other => other,
    })
}

/// Eigen-decomposition of a symmetric 3×3 matrix by cyclic Jacobi rotations: the
/// eigenvalues and a matrix whose columns are the eigenvectors.
fn jacobi_eigen(m: Matrix3) -> (Vector, Matrix3) {
    let mut a = [[0.0f64; 3]; 3];
    for (j, col) in [m.x_axis, m.y_axis, m.z_axis].iter().enumerate() {
        for i in 0..3 {
            a[i][j] = col[i] as f64;
        }
    }
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0f64]];
    for _sweep in 0..32 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        let scale = a[0][0].abs() + a[1][1].abs() + a[2][2].abs();
        if off <= 1e-15 * scale || off == 0.0 {
            break;
        }
        for (p, q) in [(0usize, 1usize), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            for row in a.iter_mut() {
                let (akp, akq) = (row[p], row[q]);
                row[p] = c * akp - s * akq;
                row[q] = s * akp + c * akq;
            }
            let (rp, rq) = (a[p], a[q]);
            for (k, (x, y)) in rp.iter().zip(rq).enumerate() {
                a[p][k] = c * x - s * y;
                a[q][k] = s * x + c * y;
            }
            for row in &mut v {
                let (vkp, vkq) = (row[p], row[q]);
                row[p] = c * vkp - s * vkq;
                row[q] = s * vkp + c * vkq;
            }
        }
    }
    let d = Vector::new(a[0][0] as Real, a[1][1] as Real, a[2][2] as Real);
    let col = |j: usize| Vector::new(v[0][j] as Real, v[1][j] as Real, v[2][j] as Real);
    (d, Matrix3::from_cols(col(0), col(1), col(2)))
}
