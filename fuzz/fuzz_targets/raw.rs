//! Arbitrary shapes and poses for the fuzz targets: sizes from 1e-3 to 1e3 on a log
//! scale (and zero), point sets on a grid in units of the largest size, every shape type
//! of the registry and rounded versions of them.

use arbitrary::Arbitrary;
use minkowski::shape::{
    Capsule, Cone, ConvexPolyhedron, Cuboid, Cylinder, Ellipsoid, PointShape, Pyramid,
    RoundedShape, Segment, Shape, Sphere, Triangle,
};
use minkowski::{Pose, Real, Rotation, Vector};

/// A shape as the fuzzer writes it.
#[derive(Debug, Arbitrary)]
pub struct RawShape {
    pub kind: u8,
    /// Lengths: each byte is a size from 1e-3 to 1e3 (log scale), 0 meaning zero.
    pub sizes: [u8; 3],
    /// Points, in units of the largest size.
    pub points: Vec<(i8, i8, i8)>,
    pub rounding: u8,
}

/// A pose as the fuzzer writes it.
#[derive(Debug, Arbitrary)]
pub struct RawPose {
    pub quat: (i8, i8, i8, i8),
    pub offset: (i8, i8, i8),
}

/// A length from a byte: 0, or 1e-3 to 1e3 on a log scale.
pub fn size(b: u8) -> Real {
    if b == 0 {
        0.0
    } else {
        (10.0 as Real).powf((b as Real / 255.0) * 6.0 - 3.0)
    }
}

/// The shape `r` describes (`None` when its numbers are refused); `depth` 0 allows one
/// level of rounding.
pub fn shape(r: &RawShape, depth: u32) -> Option<Shape> {
    let [x, y, z] = r.sizes.map(size);
    let unit = x.max(y).max(z).max(1e-3);
    let p =
        |&(a, b, c): &(i8, i8, i8)| Vector::new(a as Real, b as Real, c as Real) * (unit / 64.0);
    let pts: Vec<Vector> = r.points.iter().take(64).map(p).collect();
    let s: Shape = match r.kind % 12 {
        0 => Sphere::new(x).ok()?.into(),
        1 => Cuboid::new(Vector::new(x, y, z)).ok()?.into(),
        2 => Capsule::new(x, y).ok()?.into(),
        3 => Cylinder::new(x, y).ok()?.into(),
        4 => Cone::new(x, y).ok()?.into(),
        5 => Pyramid::new(Vector::new(x, y, z)).ok()?.into(),
        6 => Ellipsoid::new(Vector::new(x, y, z)).ok()?.into(),
        7 => Segment::new(*pts.first()?, *pts.get(1)?).ok()?.into(),
        8 => Triangle::new(*pts.first()?, *pts.get(1)?, *pts.get(2)?)
            .ok()?
            .into(),
        9 => PointShape::new(*pts.first()?).ok()?.into(),
        10 => ConvexPolyhedron::new(pts).ok()?.into(),
        _ if depth == 0 => {
            let inner = RawShape {
                kind: r.kind / 12,
                sizes: r.sizes,
                points: r.points.clone(),
                rounding: 0,
            };
            RoundedShape::new(shape(&inner, 1)?, size(r.rounding))
                .ok()?
                .into()
        }
        _ => return None,
    };
    Some(s)
}

/// The pose `r` describes, its offset in units of `scale / 32`.
pub fn pose(r: &RawPose, scale: Real) -> Option<Pose> {
    let (a, b, c, d) = r.quat;
    let q = Rotation::from_xyzw(a as Real, b as Real, c as Real, d as Real);
    let q = if q.length() > 0.0 {
        q.normalize()
    } else {
        Rotation::IDENTITY
    };
    let (x, y, z) = r.offset;
    Pose::new(
        q,
        Vector::new(x as Real, y as Real, z as Real) * (scale / 32.0),
    )
    .ok()
}
