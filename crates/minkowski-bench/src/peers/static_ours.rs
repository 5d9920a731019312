//! minkowski's columns of the static report. Each capability is one function below;
//! the report shows a column's cells only where the function answers.
//!
//! Now: heightfield rays ([`field_ray`], `query::cast_ray_heightfield`, solid) and
//! contacts ([`field_prober`], `query::static_geometry::manifolds`).
//!
//! To come, as minkowski's `TriMesh` and the convex-vs-triangles contacts land (one
//! function each; nothing else changes):
//! - `fn build_mesh(mesh: &Mesh) -> Option<Built>`: build the `TriMesh` from the suite's
//!   vertices and indices (world frame, identity pose) and return an [`Ours`] holding it;
//! - `fn mesh_ray(mesh: &TriMesh, ray: &RayInput) -> Option<RayAnswer>`;
//! - `fn field_prober` / `fn mesh_prober`: a [`Prober`] for a [`Spec`] whose `contacts`
//!   fills a buffer of [`ContactPoint`](super::statics::ContactPoint)s (distance ≤ 0 only, normal out of the static
//!   geometry) from minkowski's manifold query. The ghost counts come for free: the
//!   report runs every prober on the slides.

use super::cast::RayInput;
use super::statics::ContactPoint;
use super::statics::{Built, Prober, RayAnswer, StaticHit, StaticMethod, StaticTarget};
use super::Spec;
use super::{pose, PoseArray};
use crate::static_suite::{Field, Geometry, Mesh};
use minkowski::query::static_geometry as sg;
use minkowski::query::{
    cast_ray_heightfield, cast_ray_trimesh, CastError, QueryOptions, Ray, RayCast, RayOptions,
};
use minkowski::shape::{HeightField, Shape, TriMesh, TriMeshFlags, TriangleSet};
use minkowski::{Pose, Vector};

/// minkowski itself.
pub struct Minkowski;

/// The methods of this file (one).
pub fn methods() -> Vec<Box<dyn StaticMethod>> {
    vec![Box::new(Minkowski)]
}

/// What minkowski built.
enum Ours {
    Field(HeightField),
    Mesh(TriMesh),
    /// Fields side by side, queried together (their seams stitched).
    Fields(Vec<HeightField>),
}

impl StaticMethod for Minkowski {
    fn name(&self) -> &'static str {
        super::OURS
    }
    fn build(&self, geo: Geometry<'_>) -> Option<Built> {
        let target: Box<dyn StaticTarget> = match geo {
            Geometry::Field(f) => Box::new(Ours::Field(build_field(f)?)),
            Geometry::Mesh(m) => build_mesh(m)?,
        };
        Some(Built {
            target,
            native_bytes: 0,
        })
    }
    fn build_scene(&self, geos: &[Geometry<'_>]) -> Option<Built> {
        let fields = geos
            .iter()
            .map(|g| match g {
                Geometry::Field(f) => build_field(f),
                Geometry::Mesh(_) => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Built {
            target: Box::new(Ours::Fields(fields)),
            native_bytes: 0,
        })
    }
}

impl StaticTarget for Ours {
    fn ray(&self, ray: &RayInput) -> Option<RayAnswer> {
        match self {
            Ours::Field(f) => field_ray(f, ray),
            Ours::Mesh(m) => mesh_ray(m, ray),
            Ours::Fields(_) => None,
        }
    }
    fn prober(&self, shape: &Spec) -> Option<Box<dyn Prober + '_>> {
        match self {
            Ours::Field(f) => field_prober(f, shape),
            Ours::Mesh(m) => Some(Box::new(SetProber {
                sets: vec![m],
                shape: shape.shape(),
                out: Vec::new(),
            })),
            Ours::Fields(fs) => Some(Box::new(SetProber {
                sets: fs.iter().map(|f| f as &dyn TriangleSet).collect(),
                shape: shape.shape(),
                out: Vec::new(),
            })),
        }
    }
}

/// The suite's field as minkowski's `HeightField` (no holes), at the identity pose.
fn build_field(f: &Field) -> Option<HeightField> {
    let samples: Vec<Option<minkowski::Real>> = f.heights.iter().map(|&h| Some(h)).collect();
    HeightField::new(
        f.rows,
        f.cols,
        &samples,
        f.cell,
        Vector::from_array(f.origin),
    )
    .ok()
}

/// The suite's mesh as minkowski's `TriMesh` (two-sided, not declared closed: the
/// peers' meshes are surfaces too).
fn build_mesh(m: &Mesh) -> Option<Box<dyn StaticTarget>> {
    let vertices = m.vertices.iter().map(|v| Vector::from_array(*v)).collect();
    let mesh = TriMesh::new(vertices, m.indices.clone(), TriMeshFlags::NONE).ok()?;
    Some(Box::new(Ours::Mesh(mesh)))
}

/// A solid ray at the mesh; errors (invalid input) count as no answer.
fn mesh_ray(m: &TriMesh, r: &RayInput) -> Option<RayAnswer> {
    solid_ray(r, |ray, options| {
        cast_ray_trimesh(m, &Pose::IDENTITY, ray, options)
    })
}

/// A solid ray at the field; errors (invalid input) count as no answer.
fn field_ray(f: &HeightField, r: &RayInput) -> Option<RayAnswer> {
    solid_ray(r, |ray, options| {
        cast_ray_heightfield(f, &Pose::IDENTITY, ray, options)
    })
}

/// The suite's ray as a solid minkowski ray, cast by `cast`.
fn solid_ray(
    r: &RayInput,
    cast: impl FnOnce(&Ray, &RayOptions) -> Result<RayCast, CastError>,
) -> Option<RayAnswer> {
    let ray = Ray::new(Vector::from_array(r.origin), Vector::from_array(r.dir));
    let options = RayOptions {
        max_toi: r.max_toi,
        solid: true,
    };
    let c = cast(&ray, &options).ok()?;
    Some(match c.hit {
        Some(h) => RayAnswer::Hit(StaticHit {
            toi: h.toi as f64,
            normal: super::to_f64(h.normal.to_array()),
        }),
        None => RayAnswer::Miss,
    })
}

/// Contacts through `query::static_geometry::manifolds` (the ghost-free manifolds, one
/// per touching region): every manifold point within the margin 0.
fn field_prober<'a>(f: &'a HeightField, s: &Spec) -> Option<Box<dyn Prober + 'a>> {
    Some(Box::new(SetProber {
        sets: vec![f],
        shape: s.shape(),
        out: Vec::new(),
    }))
}

/// A prober of triangle sets (heightfields or meshes) at the identity pose, queried
/// together.
struct SetProber<'a> {
    sets: Vec<&'a dyn TriangleSet>,
    shape: Shape,
    out: Vec<ContactPoint>,
}

impl Prober for SetProber<'_> {
    fn contacts(&mut self, p: &PoseArray) -> &[ContactPoint] {
        self.out.clear();
        let sets: Vec<sg::Placed<'_>> = self.sets.iter().map(|s| (*s, Pose::IDENTITY)).collect();
        let ms = sg::manifolds(&sets, &self.shape, &pose(p), 0.0, &QueryOptions::default());
        for m in &ms {
            for q in m.points().iter().filter(|q| q.distance <= 0.0) {
                self.out.push(ContactPoint {
                    dist: q.distance as f64,
                    normal: super::to_f64(m.normal.to_array()),
                    point: super::to_f64(q.point_a.to_array()),
                });
            }
        }
        &self.out
    }
}
