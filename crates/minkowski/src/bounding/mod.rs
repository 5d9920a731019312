//! Bounding volumes: axis-aligned boxes, and static trees of them (a compound's parts,
//! a triangle mesh's triangles).

mod aabb;
mod binned_sah;
mod tree;

pub use aabb::Aabb;
pub use binned_sah::SahTree;
pub use tree::{AabbTree, TreeError};
