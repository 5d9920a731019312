//! Compound shapes: several convex parts, each placed by a local pose, with an internal
//! bounding-volume tree over the parts (seed 001 part 2: objects as trees of convex
//! models).

use std::sync::Arc;

use super::{Shape, ShapeError};
use crate::bounding::Aabb;
use crate::broadphase::{BroadPhase, DynamicTree};
use crate::math::Pose;

/// A rigid union of convex parts. Parts are [`Shape`]s placed in the compound's local
/// frame by their own poses; queries between compounds (or a compound and a convex
/// shape) are answered part by part, pruned by a tree over the parts' boxes, and say
/// which parts answered (see [`crate::query::compound`]).
#[derive(Debug, Clone)]
pub struct Compound {
    // Shared, like the tree: clones (one per object placed in a world) share the parts.
    parts: Arc<[(Pose, Shape)]>,
    boxes: Arc<[Aabb]>,
    tree: Arc<DynamicTree>,
    aabb: Aabb,
}

impl PartialEq for Compound {
    fn eq(&self, other: &Self) -> bool {
        self.parts == other.parts
    }
}

impl Compound {
    /// A compound of `parts` (at least one), each a convex shape at a pose in the
    /// compound's frame.
    ///
    /// # Errors
    /// [`ShapeError::EmptyPointSet`] for no parts; [`ShapeError::OutOfRange`] if a part's
    /// pose puts its box beyond [`super::MAX_MAGNITUDE`].
    pub fn new(parts: Vec<(Pose, Shape)>) -> Result<Self, ShapeError> {
        if parts.is_empty() {
            return Err(ShapeError::EmptyPointSet { shape: "compound" });
        }
        let mut tree = DynamicTree::new(0.0, 0.0);
        let mut boxes = Vec::with_capacity(parts.len());
        for (i, (pose, shape)) in parts.iter().enumerate() {
            let b = shape.local_aabb().transformed(pose);
            let m = b.mins.abs().max(b.maxs.abs()).max_element();
            if !m.is_finite() || m > super::MAX_MAGNITUDE {
                return Err(ShapeError::OutOfRange {
                    shape: "compound",
                    field: "part pose",
                    value: m,
                    max: super::MAX_MAGNITUDE,
                });
            }
            tree.insert(i as u32, b)
                .map_err(|_| ShapeError::OutOfRange {
                    shape: "compound",
                    field: "part pose",
                    value: m,
                    max: super::MAX_MAGNITUDE,
                })?;
            boxes.push(b);
        }
        let aabb = boxes.iter().skip(1).fold(boxes[0], |acc, b| acc.merged(b));
        Ok(Self {
            parts: parts.into(),
            boxes: boxes.into(),
            tree: Arc::new(tree),
            aabb,
        })
    }

    /// The parts, in the order given.
    pub fn parts(&self) -> &[(Pose, Shape)] {
        &self.parts
    }

    /// Part `i`'s box in the compound's frame.
    pub fn part_aabb(&self, i: usize) -> Aabb {
        self.boxes[i]
    }

    /// Bounding box in the compound's frame.
    pub fn local_aabb(&self) -> Aabb {
        self.aabb
    }

    /// Calls `f(i)` for every part whose box (compound frame) overlaps `aabb`.
    pub fn parts_near(&self, aabb: &Aabb, f: impl FnMut(u32)) {
        self.tree.query_aabb(aabb, f);
    }
}
