//! Bounding volumes.

mod aabb;

pub use aabb::Aabb;
