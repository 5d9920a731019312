//! Convex hulls: quickhull in 3D and six algorithms in 2D.
//!
//! * [`quickhull3d`]: the hull of a 3D point set as a polytope with merged (polygonal)
//!   faces and vertex adjacency ([`ConvexHull`]), or its true lower dimension for
//!   degenerate input. [`ConvexHull::validate`] checks the result.
//! * 2D, each algorithm in its own file and all returning the *same* answer (see
//!   [`Hull2d`] for the convention): [`graham`] (Graham scan), [`jarvis`] (Jarvis march),
//!   [`chan`] (Chan's output-sensitive algorithm), [`melkman`] (Melkman's algorithm for
//!   simple polylines, on point sets after sorting), [`divide_conquer`] (divide and
//!   conquer with common tangents) and [`monotone_chain`] (Andrew's monotone chain, the
//!   reference).
//!
//! Every builder decides orientations with exact predicates (see the `predicates`
//! module notes), so all of them agree exactly on every finite input, including
//! collinear, duplicated and integer-grid points, and none of them can be driven into an
//! inconsistent state by rounding.
//!
//! Input coordinates must be finite and at most [`crate::shape::MAX_MAGNITUDE`] in
//! magnitude ([`MAX_MAGNITUDE_F64`] for the `f64` entry points); anything else is a
//! [`HullError`], never a panic.
//!
//! # Subnormal and wide-range coordinates
//!
//! Within those limits the hull is the exact hull of the coordinates as given, whatever
//! their range: subnormals, ±0.0 (equal to each other), and sets that put 1e-300 beside
//! 1e60. Nothing is flushed or snapped: a point 1e-310 off the line through the others
//! makes a [`Dimension::Polygon`] 1e-310 wide, and two points that differ by one
//! subnormal step are two points. The hull tolerates no error (see
//! [`crate::tolerance`], which says so for the queries' side). What the range costs is
//! speed only: an orientation test that involves a coordinate below about 2⁻⁵⁵⁰ of the
//! set's largest magnitude (possible only in `f64`, e.g. 1e-200 beside 1) is evaluated
//! in exact integer arithmetic, about a microsecond instead of a few nanoseconds.
//! [`ConvexHull::normal`] and the other measured quantities (volume, area) are rounded
//! from exact values or summed in floating point, so they are not exact.

mod chan;
mod convex_hull;
mod divide_conquer;
mod exact;
mod graham;
mod jarvis;
mod melkman;
mod monotone;
pub(crate) mod predicates;
mod quickhull3d;

pub use chan::chan;
pub use convex_hull::{ConvexHull, Dimension, HullDefect};
pub use divide_conquer::divide_conquer;
pub use graham::graham;
pub use jarvis::jarvis;
pub use melkman::{melkman, melkman_polyline};
pub use monotone::monotone_chain;
pub use predicates::MAX_MAGNITUDE_F64;
pub use quickhull3d::{quickhull3d, quickhull3d_f64};

use glam::DVec2;

use crate::math::{Real, Vector2};
use predicates::{bottom_cmp, lex_cmp, orient2};

/// Why a hull could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HullError {
    /// The point set is empty.
    #[error("the point set is empty")]
    Empty,
    /// A coordinate is NaN or infinite.
    #[error("points[{index}] has a coordinate that is NaN or infinite")]
    NonFinitePoint {
        /// Index of the first offending point.
        index: usize,
    },
    /// A coordinate's magnitude is above [`crate::shape::MAX_MAGNITUDE`].
    #[error("points[{index}] has a coordinate of magnitude {value}, above the limit {max}")]
    OutOfRange {
        /// Index of the first offending point.
        index: usize,
        /// The offending coordinate.
        value: Real,
        /// The limit.
        max: Real,
    },
    /// A polyline given to [`melkman_polyline`] names a point that does not exist.
    #[error("polyline index {index} is out of range for {len} points")]
    BadIndex {
        /// The offending index.
        index: usize,
        /// Number of points.
        len: usize,
    },
    /// The builder found its own state inconsistent. This is a bug (please report the
    /// input); it is reported instead of a wrong hull or a panic.
    #[error("internal hull error: {reason}")]
    Internal {
        /// What was inconsistent.
        reason: String,
    },
    /// An OBJ file could not be read or holds no vertices.
    #[error("cannot read OBJ {path}: {reason}")]
    Obj {
        /// The file.
        path: String,
        /// What went wrong.
        reason: String,
    },
}

/// The answer of every 2D hull algorithm: indices into the input points.
///
/// * Counter-clockwise, starting at the lowest point (smallest `y`, then smallest `x`).
/// * Only extreme points: points in the interior of an edge (collinear boundary points)
///   are excluded, and each location appears once even when the input repeats it (which
///   of several equal input points is named is unspecified).
/// * Degenerate sets keep their true dimension: one index when all points are equal, the
///   two end points (lowest first) when all points are collinear.
pub type Hull2d = Vec<usize>;

/// The 2D hull algorithms, by the names the `minkowski hull --2d --algorithm` flag uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm2d {
    /// [`graham`]: Graham scan, O(n log n).
    Graham,
    /// [`jarvis`]: Jarvis march (gift wrapping), O(n h).
    Jarvis,
    /// [`chan`]: Chan's algorithm, O(n log h).
    Chan,
    /// [`melkman`]: Melkman's algorithm on the points sorted by `x`, O(n log n).
    Melkman,
    /// [`divide_conquer`]: divide and conquer with common tangents, O(n log n).
    DivideConquer,
    /// [`monotone_chain`]: Andrew's monotone chain, O(n log n); the reference.
    MonotoneChain,
}

impl Algorithm2d {
    /// Every algorithm, in a fixed order.
    pub const ALL: [Algorithm2d; 6] = [
        Algorithm2d::Graham,
        Algorithm2d::Jarvis,
        Algorithm2d::Chan,
        Algorithm2d::Melkman,
        Algorithm2d::DivideConquer,
        Algorithm2d::MonotoneChain,
    ];

    /// The protocol name: `graham`, `jarvis`, `chan`, `melkman`, `divide` or `monotone`.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm2d::Graham => "graham",
            Algorithm2d::Jarvis => "jarvis",
            Algorithm2d::Chan => "chan",
            Algorithm2d::Melkman => "melkman",
            Algorithm2d::DivideConquer => "divide",
            Algorithm2d::MonotoneChain => "monotone",
        }
    }

    /// The algorithm with protocol name `name`, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.name() == name)
    }

    /// Runs the algorithm on `f64` points whatever the build's precision (the
    /// predicates are exact in `f64` either way, so no rounding to `f32` happens).
    /// Coordinates may be up to [`MAX_MAGNITUDE_F64`] in magnitude.
    ///
    /// # Errors
    /// As [`run`](Self::run).
    pub fn run_f64(self, points: &[DVec2]) -> Result<Hull2d, HullError> {
        let p = predicates::prepare2_f64(points)?;
        match self {
            Algorithm2d::Graham => graham::graham_prepared(p),
            Algorithm2d::Jarvis => jarvis::jarvis_prepared(p),
            Algorithm2d::Chan => chan::chan_prepared(p),
            Algorithm2d::Melkman => melkman::melkman_prepared(p),
            Algorithm2d::DivideConquer => divide_conquer::divide_conquer_prepared(p),
            Algorithm2d::MonotoneChain => monotone::monotone_chain_prepared(p),
        }
    }

    /// Runs the algorithm on `points`.
    ///
    /// # Errors
    /// As the algorithm's own function: [`HullError::Empty`],
    /// [`HullError::NonFinitePoint`] or [`HullError::OutOfRange`].
    pub fn run(self, points: &[Vector2]) -> Result<Hull2d, HullError> {
        match self {
            Algorithm2d::Graham => graham(points),
            Algorithm2d::Jarvis => jarvis(points),
            Algorithm2d::Chan => chan(points),
            Algorithm2d::Melkman => melkman(points),
            Algorithm2d::DivideConquer => divide_conquer(points),
            Algorithm2d::MonotoneChain => monotone_chain(points),
        }
    }
}

/// Indices of `p` sorted lexicographically (x, then y) with repeated locations removed.
pub(crate) fn sorted_unique(p: &[DVec2]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..p.len()).collect();
    idx.sort_unstable_by(|&i, &j| lex_cmp(p[i], p[j]));
    idx.dedup_by(|a, b| p[*a] == p[*b]);
    idx
}

/// The lower and upper chains of lexicographically sorted, distinct points (both from
/// the lexicographically smallest point to the largest, strictly convex: collinear
/// points are dropped). Andrew's monotone chain; the other builders use it on small
/// pieces.
pub(crate) fn monotone_chains(p: &[DVec2], sorted: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let mut lower: Vec<usize> = Vec::with_capacity(sorted.len().min(64));
    let mut upper: Vec<usize> = Vec::with_capacity(sorted.len().min(64));
    for &i in sorted {
        while lower.len() >= 2
            && orient2(p[lower[lower.len() - 2]], p[lower[lower.len() - 1]], p[i]) <= 0.0
        {
            lower.pop();
        }
        lower.push(i);
        while upper.len() >= 2
            && orient2(p[upper[upper.len() - 2]], p[upper[upper.len() - 1]], p[i]) >= 0.0
        {
            upper.pop();
        }
        upper.push(i);
    }
    (lower, upper)
}

/// Joins a lower and an upper chain (both from the lexicographic minimum to the maximum)
/// into the canonical counter-clockwise hull.
pub(crate) fn join_chains(p: &[DVec2], lower: &[usize], upper: &[usize]) -> Hull2d {
    let mut ccw: Vec<usize> = lower.to_vec();
    if upper.len() > 2 {
        ccw.extend(upper[1..upper.len() - 1].iter().rev());
    }
    canonical_start(p, ccw)
}

/// Rotates a counter-clockwise cycle so that it starts at its lowest (then leftmost)
/// point.
pub(crate) fn canonical_start(p: &[DVec2], mut ccw: Vec<usize>) -> Hull2d {
    if let Some(start) = (0..ccw.len()).min_by(|&a, &b| bottom_cmp(p[ccw[a]], p[ccw[b]])) {
        ccw.rotate_left(start);
    }
    ccw
}
