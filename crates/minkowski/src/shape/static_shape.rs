//! Static level geometry: the shapes that are placed once and never move — a
//! half-space, a heightfield and a triangle mesh.
//! They are not convex and have no support map, so they are not [`super::Shape`]s; the
//! queries against them are in [`crate::query::static_dispatch`].

use super::{HalfSpace, HeightField, TriMesh};
use crate::bounding::Aabb;
use std::sync::Arc;

/// A piece of static level geometry (shared: cloning does not copy the data).
#[derive(Debug, Clone, PartialEq)]
pub enum StaticShape {
    /// A half-space (a ground plane): unbounded.
    HalfSpace(HalfSpace),
    /// A depth-map heightfield ([`HeightField`]): one-sided, the solid below.
    HeightField(Arc<HeightField>),
    /// A triangle mesh ([`TriMesh`]): a surface (one- or two-sided), or the solid it
    /// bounds when closed.
    TriMesh(Arc<TriMesh>),
}

impl StaticShape {
    /// The protocol's name of the type (`"halfspace"`, `"heightfield"`, `"trimesh"`).
    pub fn type_name(&self) -> &'static str {
        match self {
            StaticShape::HalfSpace(_) => "halfspace",
            StaticShape::HeightField(_) => "heightfield",
            StaticShape::TriMesh(_) => "trimesh",
        }
    }

    /// Whether the shape has no surface at all (a heightfield whose every cell is a
    /// hole).
    pub fn is_empty(&self) -> bool {
        match self {
            StaticShape::HalfSpace(_) => false,
            StaticShape::HeightField(h) => h.local_bounds().is_none(),
            StaticShape::TriMesh(_) => false,
        }
    }

    /// The bounding box in the local frame, `None` when the shape has none (nothing to
    /// collide with, or unbounded).
    pub fn local_aabb(&self) -> Option<Aabb> {
        use super::TriangleSet;
        match self {
            StaticShape::HalfSpace(_) => None,
            StaticShape::HeightField(h) => h.local_aabb(),
            StaticShape::TriMesh(m) => m.local_aabb(),
        }
    }
}

impl From<HeightField> for StaticShape {
    fn from(h: HeightField) -> Self {
        StaticShape::HeightField(Arc::new(h))
    }
}

impl From<HalfSpace> for StaticShape {
    fn from(h: HalfSpace) -> Self {
        StaticShape::HalfSpace(h)
    }
}

impl From<TriMesh> for StaticShape {
    fn from(m: TriMesh) -> Self {
        StaticShape::TriMesh(Arc::new(m))
    }
}
