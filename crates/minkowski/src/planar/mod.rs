//! 2D convex shapes and 2D GJK (seed 003).
//!
//! * [`Shape2d`]: a convex polygon (the hull of any points), a circle or a segment, in
//!   world coordinates (2D shapes carry no pose; move them with
//!   [`Shape2d::translated`], [`Shape2d::scaled`] and [`Shape2d::rotated`], the seed's
//!   translation and scaling functions).
//! * [`gjk2d::distance`] and [`gjk2d::intersects`]: GJK in the plane, started from the
//!   difference of the shapes' area centroids as seed 003 prescribes (its eq. 2–3).

pub mod gjk2d;
mod shape2d;

pub use shape2d::{Core2d, Shape2d};
