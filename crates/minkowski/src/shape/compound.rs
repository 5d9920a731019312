//! Compound shapes: several convex parts, each placed by a local pose, with an internal
//! bounding-volume tree over the parts (seed 001 part 2: objects as trees of convex
//! models).

use std::sync::Arc;

use super::{Shape, ShapeError};
use crate::bounding::{Aabb, AabbTree, TreeError};
use crate::math::{Pose, Real};

/// A rigid union of convex parts. Parts are [`Shape`]s placed in the compound's local
/// frame by their own poses; queries between compounds (or a compound and a convex
/// shape) are answered part by part, pruned by a tree over the parts' boxes
/// ([`AabbTree`], depth `⌈log₂ parts⌉`), and say which parts answered (see
/// [`crate::query::compound`]).
#[derive(Debug, Clone)]
pub struct Compound {
    // Shared, like the tree: clones (one per object placed in a world) share the parts.
    parts: Arc<[(Pose, Shape)]>,
    tree: Arc<AabbTree>,
    /// The largest `|part translation| + part bounding radius` (length units): no point
    /// of a part, and no part's local origin, is farther from the compound's origin.
    reach: Real,
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
    /// pose puts its box beyond [`super::MAX_MAGNITUDE`] (field `"part pose"`), or for
    /// more than [`AabbTree::MAX_ITEMS`] parts (field `"part count"`).
    pub fn new(parts: Vec<(Pose, Shape)>) -> Result<Self, ShapeError> {
        if parts.is_empty() {
            return Err(ShapeError::EmptyPointSet { shape: "compound" });
        }
        let out_of_range = |field, value, max| ShapeError::OutOfRange {
            shape: "compound",
            field,
            value,
            max,
        };
        let mut boxes = Vec::with_capacity(parts.len());
        let mut reach: Real = 0.0;
        for (pose, shape) in &parts {
            let b = shape.local_aabb().transformed(pose);
            let m = b.mins.abs().max(b.maxs.abs()).max_element();
            if !m.is_finite() || m > super::MAX_MAGNITUDE {
                return Err(out_of_range("part pose", m, super::MAX_MAGNITUDE));
            }
            reach = reach.max(pose.translation().length() + shape.bounding_radius());
            boxes.push(b);
        }
        let tree = AabbTree::new(&boxes).map_err(|e| match e {
            TreeError::TooMany { got, max } => out_of_range("part count", got as Real, max as Real),
            // Not reached: the boxes were checked finite above, and a placed box is
            // ordered; refused all the same.
            TreeError::Empty | TreeError::BadBox { .. } => {
                out_of_range("part pose", Real::NAN, super::MAX_MAGNITUDE)
            }
        })?;
        Ok(Self {
            parts: parts.into(),
            tree: Arc::new(tree),
            reach: reach * (1.0 + 4.0 * crate::math::EPSILON),
        })
    }

    /// The parts, in the order given: part `i` is `(pose in the compound's frame,
    /// shape)`.
    pub fn parts(&self) -> &[(Pose, Shape)] {
        &self.parts
    }

    /// Part `i`'s box in the compound's frame (the part's local box placed by its pose).
    ///
    /// # Panics
    /// If `i` is not a part index (`i >= parts().len()`), like slice indexing.
    pub fn part_aabb(&self, i: usize) -> Aabb {
        // Leaves hold the parts' boxes; the part → leaf map is not kept, so place it.
        let (pose, shape) = &self.parts[i];
        shape.local_aabb().transformed(pose)
    }

    /// Bounding box in the compound's frame: the union of the parts' boxes.
    pub fn local_aabb(&self) -> Aabb {
        self.tree.root_aabb()
    }

    /// The tree over the parts' boxes (compound frame): item `i` is part `i`.
    pub fn tree(&self) -> &AabbTree {
        &self.tree
    }

    /// The largest distance from the compound's origin to a point of a part or to a
    /// part's local origin (length units): what scales the rounding of the part queries.
    pub(crate) fn reach(&self) -> Real {
        self.reach
    }

    /// Calls `f(i)` for every part whose box (compound frame) overlaps `aabb` (touching
    /// counts), in the tree's depth-first order. No allocation.
    pub fn parts_near(&self, aabb: &Aabb, f: impl FnMut(u32)) {
        self.tree.query_aabb(aabb, f);
    }
}
