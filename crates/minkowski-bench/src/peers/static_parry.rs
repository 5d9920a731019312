//! parry3d 0.31's `HeightField` and `TriMesh` as [`StaticMethod`]s (the f64 crate in
//! the f64 build):
//!
//! - `parry3d`: no flags; rays with `cast_ray_and_get_normal` (solid), contacts with the
//!   persistent dispatcher's `contact_manifolds` (prediction 0; every manifold's points
//!   cleared before each query, so nothing is reused from an earlier pose);
//! - `parry3d-fix`: the same with `TriMeshFlags::FIX_INTERNAL_EDGES` /
//!   `HeightFieldFlags::FIX_INTERNAL_EDGES` (contacts only: its rays are parry3d's);
//! - `parry3d-contact`: `query::contact` (prediction 0), the single deepest contact, on
//!   parry3d's build.
//!
//! Frames: parry's heightfield is centred on its local origin, rows along z, columns
//! along x (`heights[(i, j)]`, a column-major `Array2`), scaled by `(width, 1, depth)`,
//! and split along the anti-diagonal by default: placed at the suite field's origin plus
//! half its extent, its vertices are the suite's samples. Meshes are in the world frame
//! at the identity pose.

use super::cast::RayInput;
use super::parry::{pose, shape};
use super::statics::{
    Built, ContactPoint, Prober, RayAnswer, StaticHit, StaticMethod, StaticTarget,
};
use super::{PoseArray, Spec};
use crate::static_suite::{Field, Geometry, Mesh};
#[cfg(not(feature = "f64"))]
use parry3d as p;
#[cfg(feature = "f64")]
use parry3d_f64 as p;

use p::math::{Pose, Real, Vector};
use p::query::{
    self, ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher,
    PersistentQueryDispatcher, Ray,
};
use p::shape::{HeightField, HeightFieldFlags, Shape, TriMesh, TriMeshFlags};
use p::utils::Array2;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    Plain,
    Fix,
    Contact,
}

struct Parry {
    name: &'static str,
    variant: Variant,
}

/// The parry3d methods.
pub fn methods() -> Vec<Box<dyn StaticMethod>> {
    vec![
        Box::new(Parry {
            name: "parry3d",
            variant: Variant::Plain,
        }),
        Box::new(Parry {
            name: "parry3d-fix",
            variant: Variant::Fix,
        }),
        Box::new(Parry {
            name: "parry3d-contact",
            variant: Variant::Contact,
        }),
    ]
}

struct Target {
    shape: Box<dyn Shape>,
    pose: Pose,
    variant: Variant,
}

fn v(a: [minkowski::Real; 3]) -> Vector {
    Vector::new(a[0] as Real, a[1] as Real, a[2] as Real)
}

fn f(v: Vector) -> [f64; 3] {
    [v.x as f64, v.y as f64, v.z as f64]
}

fn field(fd: &Field, fix: bool) -> (Box<dyn Shape>, Pose) {
    let (rows, cols) = (fd.rows, fd.cols);
    // Column-major: element (i, j) at i + j · rows.
    let mut data = Vec::with_capacity(rows * cols);
    for j in 0..cols {
        for i in 0..rows {
            data.push(fd.heights[i * cols + j] as Real);
        }
    }
    let [w, d] = fd.extent();
    let flags = if fix {
        HeightFieldFlags::FIX_INTERNAL_EDGES
    } else {
        HeightFieldFlags::empty()
    };
    let hf = HeightField::with_flags(
        Array2::new(rows, cols, data),
        Vector::new(w as Real, 1.0, d as Real),
        flags,
    );
    let o = fd.origin;
    let at = Vector::new(
        o[0] as Real + (w / 2.0) as Real,
        o[1] as Real,
        o[2] as Real + (d / 2.0) as Real,
    );
    (Box::new(hf), Pose::from_translation(at))
}

fn mesh(m: &Mesh, fix: bool) -> Option<Box<dyn Shape>> {
    let flags = if fix {
        TriMeshFlags::FIX_INTERNAL_EDGES
    } else {
        TriMeshFlags::empty()
    };
    let tm = TriMesh::with_flags(
        m.vertices.iter().map(|x| v(*x)).collect(),
        m.indices.clone(),
        flags,
    )
    .ok()?;
    Some(Box::new(tm))
}

impl StaticMethod for Parry {
    fn name(&self) -> &'static str {
        self.name
    }
    fn build(&self, geo: Geometry<'_>) -> Option<Built> {
        let fix = self.variant == Variant::Fix;
        let (shape, pose) = match geo {
            Geometry::Field(fd) => field(fd, fix),
            Geometry::Mesh(m) => (mesh(m, fix)?, Pose::IDENTITY),
        };
        Some(Built {
            target: Box::new(Target {
                shape,
                pose,
                variant: self.variant,
            }),
            native_bytes: 0,
        })
    }
    fn shares_build(&self) -> bool {
        self.variant == Variant::Contact
    }
}

impl StaticTarget for Target {
    fn ray(&self, r: &RayInput) -> Option<RayAnswer> {
        if self.variant != Variant::Plain {
            return None;
        }
        let ray = Ray::new(v(r.origin), v(r.dir));
        Some(
            match self
                .shape
                .cast_ray_and_get_normal(&self.pose, &ray, r.max_toi as Real, true)
            {
                Some(i) => RayAnswer::Hit(StaticHit {
                    toi: i.time_of_impact as f64,
                    normal: f(i.normal),
                }),
                None => RayAnswer::Miss,
            },
        )
    }
    fn prober(&self, s: &Spec) -> Option<Box<dyn Prober + '_>> {
        Some(Box::new(ParryProber {
            target: self,
            shape: shape(s)?,
            manifolds: Vec::new(),
            workspace: None,
            out: Vec::new(),
        }))
    }
}

struct ParryProber<'a> {
    target: &'a Target,
    shape: Box<dyn Shape>,
    manifolds: Vec<ContactManifold<(), ()>>,
    workspace: Option<ContactManifoldsWorkspace>,
    out: Vec<ContactPoint>,
}

impl Prober for ParryProber<'_> {
    fn contacts(&mut self, p: &PoseArray) -> &[ContactPoint] {
        let (pos1, pos2) = (self.target.pose, pose(p));
        self.out.clear();
        if self.target.variant == Variant::Contact {
            if let Ok(Some(c)) =
                query::contact(&pos1, &*self.target.shape, &pos2, &*self.shape, 0.0)
            {
                self.out.push(ContactPoint {
                    dist: c.dist as f64,
                    normal: f(c.normal1),
                    point: f(c.point1),
                });
            }
            return &self.out;
        }
        let pos12 = pos1.inv_mul(&pos2);
        // A fresh query: no cached point may be carried over from another pose.
        for m in &mut self.manifolds {
            m.points.clear();
        }
        let r = DefaultQueryDispatcher.contact_manifolds(
            &pos12,
            &*self.target.shape,
            &*self.shape,
            0.0,
            &mut self.manifolds,
            &mut self.workspace,
        );
        if r.is_err() {
            return &self.out;
        }
        for m in &self.manifolds {
            // Points and normal in the frame of the sub-shape of shape 1 (the triangle's
            // own frame when parry gives one, else the static shape's).
            let sub = m.subshape_pos1().copied().unwrap_or(Pose::IDENTITY);
            let frame = pos1 * sub;
            let n = frame.rotation * m.local_n1;
            for pt in &m.points {
                if pt.dist <= 0.0 {
                    self.out.push(ContactPoint {
                        dist: pt.dist as f64,
                        normal: f(n),
                        point: f(frame * pt.local_p1),
                    });
                }
            }
        }
        &self.out
    }
}
