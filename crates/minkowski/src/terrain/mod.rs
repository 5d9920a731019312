//! Displacement-mapped terrain (seed 002: Wang, *Collision detection between rigid
//! objects and displacement-mapped terrain*, MSc thesis, KTH / Avalanche Studios).
//!
//! The terrain is a mesh of base triangles, each with a projection direction per vertex;
//! the surface is every base point pushed along its interpolated direction by a
//! displacement read from a map (§2.2.4, Eq 2.1–2.2). Collision against it asks the
//! inverse question for each vertex of an object: over which base point, and how far
//! along its direction, does the vertex lie (§2.4, *backward projection*)? The vertex is
//! under the surface when that distance is below the displacement there (§2.4.2).
//!
//! * [`BaseTriangle`]: a validated base triangle, with [`BaseTriangle::forward_project`]
//!   (Eq 2.2).
//! * [`backward_project`]: the three backward projections behind one call, chosen by
//!   [`BackProjectionMethod`]: the aligned plane (§2.4.1, closed form, approximate with
//!   skewed directions), the aligned projection direction by BFGS (§3.2.1–3.2.2), and the
//!   alpha plane (§3.2.3), here made robust by solving its cubic completely. Answers
//!   are [`BackProjection`]s with a [`BackProjectionStatus`]; which solution is reported
//!   when there are several, or none inside, is in [`backward_projection`]'s notes.
//! * [`multires_volume`]: Alg 8's multiresolution bounding volumes of one quad, by
//!   constrained optimisation ([`crate::optimize::ccsa`]), checked to hold every sample.
//! * [`aligned_plane`], [`aligned_projection`], [`alpha_plane`]: each method's
//!   derivation, and where it departs from the thesis.
//! * [`DisplacedTerrain`]: a [`DisplacementMap`] (arrays or 16-bit PNG) read through
//!   base triangles organised by a [`QuadLayout`] (§3.5.1); forward projection, the
//!   surface as [`BilinearPatch`]es (Eq 3.5), and the point-in-terrain test (§2.4.2).
//! * Bounds: [`EarlyOutPlanes`] per base triangle (Alg 6, [`early_out`]), and the
//!   [`bounding_triangles()`] of a bilinear patch (§3.4.2); a [`BilinearPatch`] is a
//!   support map (its tetrahedron) for GJK.
//! * [`terrain_volumes`]: Alg 8's volumes wired to a whole terrain ([`TerrainVolumes`]:
//!   per quad and level, optimised or a closed-form slab, each holding the solid
//!   below the surface down to a floor, indexed by a [`FootprintGrid`], with
//!   [`upper_planes`](mod@upper_planes) per cell), and [`multires_detection`]: §3.6's
//!   detection (Alg 9–13) of an object's vertices in the terrain ([`detect_multires`];
//!   per-vertex map bounds at the texel level, [`map_footprint`]);
//!   [`terrain_manifold`]: contact manifolds for a solver from those vertices (normal
//!   of the surface at the deepest, at most four points per part).
//! * [`TerrainStatic`]: a terrain, its volumes and the detection's options in one value,
//!   queried with any collider ([`terrain_static`]; the points a shape is tested with:
//!   [`contact_vertices`](mod@contact_vertices)); what the world holds for a terrain.
//! * [`terrain_contact`]: what a detection pass reports ([`TerrainDetection`]: the
//!   vertices in the terrain and the counters of Tables 4.4/4.5).
//! * [`synthetic`]: a seeded terrain with fBm, a cliff, an overhang and a region of
//!   skewed directions, its displacement map filled by ray casting an analytic surface;
//!   [`synthetic_objects`]: a seeded warship-like compound, small objects, and the
//!   frames of the experiment (Tables 4.4/4.5) over such a terrain.
//! * [`per_vertex_baseline`]: the thesis's old detection (every vertex of every part
//!   against its candidate triangles, aligned plane), and [`brute_force_detect`]
//!   ([`DisplacedTerrain::locate`] on every vertex), the oracle.
//!
//! Which method: the alpha plane is exact (to rounding) wherever a solution exists and
//! says `inside: false` where none does inside the triangle; BFGS usually agrees but is
//! a local method (several starts, more iterations); the aligned plane costs one small
//! linear solve and is exact only when the three directions are parallel.
//!
//! ```
//! use minkowski::terrain::{BackProjectionMethod, BackProjectionStatus, BaseTriangle};
//! use minkowski::Vector;
//!
//! // The thesis's common case (§4.2.1, Table 4.1).
//! let tri = BaseTriangle::new(
//!     [Vector::new(0.0, 0.0, 0.0), Vector::new(4.0, 0.0, 1.0), Vector::new(2.0, 4.0, 2.0)],
//!     [Vector::new(0.5, 0.0, 1.0), Vector::new(1.0, 0.0, 1.0), Vector::new(0.0, 1.0, 1.0)],
//! )
//! .unwrap();
//! let vertex = tri.forward_project(0.3, 0.2, 1.0);
//! let old = tri.backward_project(vertex, BackProjectionMethod::AlignedPlane).unwrap();
//! assert_eq!(old.status, BackProjectionStatus::Approximate); // u ≈ 0.3055, v ≈ 0.1901
//! let new = tri.backward_project(vertex, BackProjectionMethod::AlphaPlane).unwrap();
//! assert_eq!(new.status, BackProjectionStatus::Converged);
//! assert!((new.u - 0.3).abs() < 1e-5 && (new.v - 0.2).abs() < 1e-5 && new.inside);
//! ```

pub mod aligned_plane;
pub mod aligned_projection;
pub mod alpha_plane;
pub mod backward_projection;
mod base_triangle;
pub mod bilinear_patch;
pub mod bounding_triangles;
pub mod contact_vertices;
mod cubic;
pub mod displaced_terrain;
pub mod displacement_map;
pub mod early_out;
pub mod footprint_grid;
pub mod map_footprint;
pub mod multires_detection;
pub mod multires_volume;
pub mod per_vertex_baseline;
pub mod quad_layout;
pub mod synthetic;
pub mod synthetic_objects;
pub mod terrain_contact;
pub mod terrain_manifold;
pub mod terrain_static;
pub mod terrain_volumes;
pub mod upper_planes;

#[doc(inline)]
pub use backward_projection::{
    backward_project, BackProjectError, BackProjection, BackProjectionMethod, BackProjectionStatus,
};
pub use base_triangle::{BaseTriangle, BaseTriangleError};
pub use bilinear_patch::BilinearPatch;
pub use bounding_triangles::{bounding_triangles, BoundingTriangles};
pub use contact_vertices::contact_vertices;
pub use displaced_terrain::{
    DisplacedTerrain, DisplacedTerrainError, PointLocation, QuadFrame, TerrainTriangle,
};
pub use displacement_map::{DisplacementMap, DisplacementMapError, MAX_MAP_SAMPLES, MAX_MAP_SIDE};
pub use early_out::{EarlyOutPlanes, PlaneSide};
pub use footprint_grid::FootprintGrid;
pub use map_footprint::{MapBox, MapFootprint};
pub use multires_detection::{
    detect_multires, detect_multires_staged, MultiresDetectionError, MultiresOptions,
    MultiresStages,
};
pub use per_vertex_baseline::{
    brute_force_detect, BaselineConfig, PerVertexBaseline, PerVertexError,
};
pub use quad_layout::{Quad, QuadLayout, QuadLayoutError, QUAD_SIZES};
pub use synthetic::{
    SyntheticMode, SyntheticTerrain, SyntheticTerrainConfig, SyntheticTerrainError,
};
pub use synthetic_objects::{
    CompoundObject, FrameKind, ObjectKind, PlacedObject, Placement, Region, SceneFrame,
    SyntheticObjectError, TerrainScene,
};
pub use terrain_contact::{DetectionCounters, TerrainDetection, VertexContact};
pub use terrain_manifold::{surface_normal, terrain_manifolds, TerrainManifold};
pub use terrain_static::TerrainStatic;
pub use terrain_volumes::{
    LevelBound, PointHull, QuadIndex, QuadTerrainVolumes, TerrainLevel, TerrainVolumes,
    TerrainVolumesError, TerrainVolumesOptions, VolumeCell, INDEX_TIERS,
};
pub use upper_planes::{upper_planes, UpperPlane};
