//! Bounding volumes: axis-aligned boxes, and a static tree of them (a compound's parts).

mod aabb;
mod tree;

pub use aabb::Aabb;
pub use tree::{AabbTree, TreeError};
