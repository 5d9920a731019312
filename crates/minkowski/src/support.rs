//! Support maps and the small adapters that compose them.
//!
//! A convex set `C` is fully described, for GJK and EPA, by its *support map*
//! `s_C(d) = argmax_{x ∈ C} x · d`: the point of `C` furthest along the direction `d`.
//! Every shape implements the one required method, [`SupportMap::local_support`], in its
//! own local frame; everything else is an adapter that wraps a support map into another:
//!
//! | adapter | set it describes | support |
//! |---|---|---|
//! | [`Transformed`] | `pose(C)` | `pose(s_C(R⁻¹ d))` — the *direction* is moved into the local frame, never the shape |
//! | [`Rounded`] | `C ⊕ ball(r)` | `s_C(d) + r d/‖d‖` |
//! | [`MinkowskiDifference`] | `A ⊖ B = {a − b}` | `s_A(d) − s_B(−d)`, keeping both source points |
//! | [`Swept`] | `conv(C ∪ (C + m))` | `s_C(d) + m` when `m · d > 0`, else `s_C(d)` |
//!
//! Adapters take their inner map by value; pass a reference (`&shape`) to borrow, since
//! `&S` is itself a support map.

use crate::math::{Matrix3, Point, Pose, Real, Vector};

/// A convex set given by its support function.
///
/// Implementors need only [`local_support`](SupportMap::local_support). The direction
/// need not be unit length. For a zero direction any point of the set is a valid answer;
/// implementations return some point of the set and never NaN.
pub trait SupportMap {
    /// A point of the set, in the set's local frame, maximising `p · dir`.
    fn local_support(&self, dir: Vector) -> Point;

    /// A point inside the set (its centre where it has one), in the local frame. GJK
    /// uses the difference of two centres as its first search direction.
    ///
    /// The default is the local origin, which every built-in shape contains.
    fn local_center(&self) -> Point {
        Point::ZERO
    }

    /// The support value `h(dir) = max_{x ∈ C} x · dir` (a length times `‖dir‖`).
    fn support_value(&self, dir: Vector) -> Real {
        self.local_support(dir).dot(dir)
    }

    /// [`local_support`](SupportMap::local_support) with a caller-held hint: shapes
    /// whose support search can start anywhere (hill climbing on
    /// [`crate::shape::ConvexPolyhedron`]) start from `*hint` and leave their answer's
    /// index there for the next call. GJK keeps one hint per shape across its iterations,
    /// and [`crate::query::gjk::GjkCache`] keeps them across frames.
    ///
    /// Any value is a valid hint (`u32::MAX` to start cold); the answer does not depend
    /// on it, only the time taken. The default ignores the hint.
    #[inline]
    fn local_support_hinted(&self, dir: Vector, hint: &mut u32) -> Point {
        let _ = hint;
        self.local_support(dir)
    }

    /// The point of the set that a hint left by
    /// [`local_support_hinted`](SupportMap::local_support_hinted) names, found without a
    /// search (a vertex index), or `None` when the map cannot name points by hints.
    ///
    /// Whatever the hint (stale, from another shape, `u32::MAX`), an answer must be a
    /// point of the set: GJK's warm start builds a simplex from these points and trusts
    /// it to lie inside `A ⊖ B`. The default names none.
    #[inline]
    fn hinted_point(&self, hint: u32) -> Option<Point> {
        let _ = hint;
        None
    }
}

impl<S: SupportMap + ?Sized> SupportMap for &S {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        (**self).local_support(dir)
    }
    #[inline]
    fn local_support_hinted(&self, dir: Vector, hint: &mut u32) -> Point {
        (**self).local_support_hinted(dir, hint)
    }
    #[inline]
    fn hinted_point(&self, hint: u32) -> Option<Point> {
        (**self).hinted_point(hint)
    }
    #[inline]
    fn local_center(&self) -> Point {
        (**self).local_center()
    }
}

impl<S: SupportMap + ?Sized> SupportMap for Box<S> {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        (**self).local_support(dir)
    }
    #[inline]
    fn local_support_hinted(&self, dir: Vector, hint: &mut u32) -> Point {
        (**self).local_support_hinted(dir, hint)
    }
    #[inline]
    fn hinted_point(&self, hint: u32) -> Option<Point> {
        (**self).hinted_point(hint)
    }
    #[inline]
    fn local_center(&self) -> Point {
        (**self).local_center()
    }
}

/// A support map placed in space by a [`Pose`]: `pose(C)`.
///
/// Its "local" frame is the frame the pose maps into: the world frame, or, inside GJK
/// and EPA, the frame of the other shape (see [`MinkowskiDifference::relative`]). The
/// rotation is kept as a matrix and its transpose: one support call moves the
/// direction into the inner set's frame and the point back, two matrix products, which
/// is cheaper than rotating by a quaternion twice.
#[derive(Debug, Clone, Copy)]
pub struct Transformed<S> {
    inner: S,
    rot: Matrix3,
    rot_t: Matrix3,
    translation: Vector,
}

impl<S> Transformed<S> {
    /// Places `inner` at `pose`.
    pub fn new(inner: S, pose: &Pose) -> Self {
        let rot = Matrix3::from_quat(pose.rotation());
        Self {
            inner,
            rot,
            rot_t: rot.transpose(),
            translation: pose.translation(),
        }
    }

    /// The wrapped set, in its own local frame.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// The translation of the placement (length units, this adapter's frame).
    pub fn translation(&self) -> Vector {
        self.translation
    }

    /// The rotation of the placement as a matrix: its columns are the wrapped set's
    /// local axes, in this adapter's frame.
    pub fn rotation_matrix(&self) -> Matrix3 {
        self.rot
    }

    /// The same set moved by a further `offset` (this adapter's frame).
    pub fn translated(&self, offset: Vector) -> Self
    where
        S: Copy,
    {
        Self {
            translation: self.translation + offset,
            ..*self
        }
    }
}

impl<S: SupportMap> SupportMap for Transformed<S> {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        self.rot * self.inner.local_support(self.rot_t * dir) + self.translation
    }
    #[inline]
    fn local_support_hinted(&self, dir: Vector, hint: &mut u32) -> Point {
        self.rot * self.inner.local_support_hinted(self.rot_t * dir, hint) + self.translation
    }
    #[inline]
    fn hinted_point(&self, hint: u32) -> Option<Point> {
        Some(self.rot * self.inner.hinted_point(hint)? + self.translation)
    }
    #[inline]
    fn local_center(&self) -> Point {
        self.rot * self.inner.local_center() + self.translation
    }
}

/// The Minkowski sum of a set and a ball of radius `radius`: every point of the set
/// "inflated" by `radius` (a sphere is a rounded point, a capsule a rounded segment).
#[derive(Debug, Clone, Copy)]
pub struct Rounded<S> {
    /// The core set.
    pub inner: S,
    /// Radius of the ball added to the core (length, ≥ 0).
    pub radius: Real,
}

impl<S> Rounded<S> {
    /// Inflates `inner` by `radius`. The caller guarantees `radius` is finite and ≥ 0
    /// (the validated shape [`crate::shape::RoundedShape`] checks it).
    pub fn new(inner: S, radius: Real) -> Self {
        Self { inner, radius }
    }
}

impl<S: SupportMap> SupportMap for Rounded<S> {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        self.inner.local_support(dir) + dir.normalize_or_zero() * self.radius
    }
    #[inline]
    fn local_support_hinted(&self, dir: Vector, hint: &mut u32) -> Point {
        self.inner.local_support_hinted(dir, hint) + dir.normalize_or_zero() * self.radius
    }
    #[inline]
    fn local_center(&self) -> Point {
        self.inner.local_center()
    }
}

/// The convex hull of a set and its copy translated by `motion`: the volume swept by a
/// linear motion without rotation (seed 004's swept support).
#[derive(Debug, Clone, Copy)]
pub struct Swept<S> {
    /// The set at the start of the motion.
    pub inner: S,
    /// Translation over the motion, in the inner set's frame.
    pub motion: Vector,
}

impl<S> Swept<S> {
    /// The volume swept by `inner` translated by `motion`.
    pub fn new(inner: S, motion: Vector) -> Self {
        Self { inner, motion }
    }
}

impl<S: SupportMap> SupportMap for Swept<S> {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        let p = self.inner.local_support(dir);
        self.swept(p, dir)
    }
    #[inline]
    fn local_support_hinted(&self, dir: Vector, hint: &mut u32) -> Point {
        let p = self.inner.local_support_hinted(dir, hint);
        self.swept(p, dir)
    }
    #[inline]
    fn local_center(&self) -> Point {
        self.inner.local_center() + self.motion * 0.5
    }
}

impl<S> Swept<S> {
    #[inline]
    fn swept(&self, p: Point, dir: Vector) -> Point {
        if self.motion.dot(dir) > 0.0 {
            p + self.motion
        } else {
            p
        }
    }
}

/// A point of a Minkowski difference `A ⊖ B` together with the two points it came from
/// (seed 001's "Minkowski vectors"): `w = a − b`. Closest points and contact witnesses
/// are recovered from `a` and `b` with the simplex's barycentric coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SupportPoint {
    /// The point of the difference, `a − b`.
    pub w: Vector,
    /// The source point on A.
    pub a: Point,
    /// The source point on B.
    pub b: Point,
}

/// The Minkowski difference `A ⊖ B = {a − b : a ∈ A, b ∈ B}` of two sets given in one
/// common frame. The origin lies in `A ⊖ B` exactly when A and B intersect, and the
/// distance from the origin to `A ⊖ B` is the distance between A and B.
#[derive(Debug, Clone, Copy)]
pub struct MinkowskiDifference<A, B> {
    /// The first set.
    pub a: A,
    /// The second set, in the same frame as `a`.
    pub b: B,
}

impl<A: SupportMap, B: SupportMap> MinkowskiDifference<A, B> {
    /// `a ⊖ b`; both must be expressed in the same frame (wrap one in [`Transformed`]).
    pub fn new(a: A, b: B) -> Self {
        Self { a, b }
    }

    /// The support point of the difference along `dir`, with its sources:
    /// `a = s_A(dir)`, `b = s_B(−dir)`.
    #[inline]
    pub fn support_point(&self, dir: Vector) -> SupportPoint {
        let a = self.a.local_support(dir);
        let b = self.b.local_support(-dir);
        SupportPoint { w: a - b, a, b }
    }

    /// [`support_point`](Self::support_point) with the two sets' search hints (see
    /// [`SupportMap::local_support_hinted`]): `hints[0]` for A, `hints[1]` for B, each
    /// left at its answer for the next call.
    #[inline]
    pub fn support_point_hinted(&self, dir: Vector, hints: &mut [u32; 2]) -> SupportPoint {
        let a = self.a.local_support_hinted(dir, &mut hints[0]);
        let b = self.b.local_support_hinted(-dir, &mut hints[1]);
        SupportPoint { w: a - b, a, b }
    }

    /// The point of the difference whose sources the hints name (see
    /// [`SupportMap::hinted_point`]), when both sets can name them.
    #[inline]
    pub fn hinted_point(&self, [ha, hb]: [u32; 2]) -> Option<SupportPoint> {
        let a = self.a.hinted_point(ha)?;
        let b = self.b.hinted_point(hb)?;
        Some(SupportPoint { w: a - b, a, b })
    }
}

/// `A ⊖ B` with B placed in A's frame: what GJK and EPA run on (built by
/// [`MinkowskiDifference::relative`]).
pub type Relative<A, B> = MinkowskiDifference<A, Transformed<B>>;

impl<'s, A: SupportMap + ?Sized, B: SupportMap + ?Sized> Relative<&'s A, &'s B> {
    /// `A ⊖ B` in A's local frame, for A placed at `pose_a` and B at `pose_b`: A as it
    /// is, B through the relative pose `pose_a⁻¹ · pose_b`. This is the form GJK and EPA
    /// work on: A's support map is called with no transform at all, and the answers
    /// are moved to the world frame once, by `pose_a`.
    pub fn relative(a: &'s A, pose_a: &Pose, b: &'s B, pose_b: &Pose) -> Self {
        Self {
            a,
            b: Transformed::new(b, &pose_a.inv_mul(pose_b)),
        }
    }
}

impl<A: Copy, B: Copy> Relative<A, B> {
    /// The same difference with B moved by `offset` (the difference's frame): every
    /// point of the difference moves by `−offset`.
    pub fn with_b_translated(&self, offset: Vector) -> Self {
        Self {
            a: self.a,
            b: self.b.translated(offset),
        }
    }
}

impl<A, B> Relative<A, B> {
    /// The largest coordinate of B's placement: B's support points are `R b + t`, so
    /// their rounding is set by `|t|` even where the sum comes out small.
    pub fn translation_magnitude(&self) -> Real {
        self.b.translation().abs().max_element()
    }
}

impl<A: SupportMap, B: SupportMap> SupportMap for MinkowskiDifference<A, B> {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        self.support_point(dir).w
    }
    #[inline]
    fn local_center(&self) -> Point {
        self.a.local_center() - self.b.local_center()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::{Cuboid, Segment, Sphere};

    #[test]
    fn swept_box_support_is_hull_of_start_and_end() {
        let b = Cuboid::new(Vector::splat(1.0)).unwrap();
        let s = Swept::new(&b, Vector::new(3.0, 0.0, 0.0));
        assert_eq!(s.local_support(Vector::X), Vector::new(4.0, 1.0, 1.0));
        // Ties (zero direction components) may pick any face point: compare values.
        assert_eq!(s.local_support(-Vector::X).x, -1.0);
        assert_eq!(s.support_value(Vector::new(-1.0, 1.0, 0.0)), 1.0 + 1.0);
    }

    #[test]
    fn rounded_segment_is_a_capsule() {
        let seg = Segment::new(Vector::new(0.0, -1.0, 0.0), Vector::new(0.0, 1.0, 0.0)).unwrap();
        let r = Rounded::new(&seg, 0.5);
        let p = r.local_support(Vector::new(1.0, 1.0, 0.0));
        let expected = Vector::new(0.0, 1.0, 0.0) + Vector::new(1.0, 1.0, 0.0).normalize() * 0.5;
        assert!((p - expected).length() < 1e-6);
    }

    #[test]
    fn transformed_and_difference_agree_with_definitions() {
        let s = Sphere::new(2.0).unwrap();
        let pose = Pose::from_translation(Vector::new(5.0, 0.0, 0.0)).expect("valid pose");
        let t = Transformed::new(&s, &pose);
        assert!((t.local_support(Vector::X) - Vector::new(7.0, 0.0, 0.0)).length() < 1e-6);
        let d = MinkowskiDifference::new(t, &s);
        let sp = d.support_point(Vector::X);
        assert!((sp.w - Vector::new(9.0, 0.0, 0.0)).length() < 1e-6);
        assert!((sp.b - Vector::new(-2.0, 0.0, 0.0)).length() < 1e-6);
    }
}
