//! Static level geometry: the shapes that are placed once and never move — a
//! heightfield (and, with the issues that add them, half-spaces and triangle meshes).
//! They are not convex and have no support map, so they are not [`super::Shape`]s; the
//! queries against them are in [`crate::query::static_dispatch`].

use super::HeightField;
use crate::bounding::Aabb;
use std::sync::Arc;

/// A piece of static level geometry (shared: cloning does not copy the data).
#[derive(Debug, Clone, PartialEq)]
pub enum StaticShape {
    /// A depth-map heightfield ([`HeightField`]): one-sided, the solid below.
    HeightField(Arc<HeightField>),
}

impl StaticShape {
    /// The protocol's name of the type (`"heightfield"`).
    pub fn type_name(&self) -> &'static str {
        match self {
            StaticShape::HeightField(_) => "heightfield",
        }
    }

    /// The bounding box in the local frame, `None` when the shape has none (nothing to
    /// collide with, or unbounded).
    pub fn local_aabb(&self) -> Option<Aabb> {
        use super::TriangleSet;
        match self {
            StaticShape::HeightField(h) => h.local_aabb(),
        }
    }
}

impl From<HeightField> for StaticShape {
    fn from(h: HeightField) -> Self {
        StaticShape::HeightField(Arc::new(h))
    }
}
