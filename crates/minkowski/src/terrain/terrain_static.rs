//! A displacement-mapped terrain ready for collision: the terrain, its multiresolution
//! volumes and the detection's options in one value ([`TerrainStatic`]), queried with any
//! [`Collider`] — a convex shape or a compound — for contact manifolds. This is what the
//! [`World`](crate::world::World) holds for a terrain
//! ([`World::insert_terrain`](crate::world::World::insert_terrain)).
//!
//! # Frames and units
//!
//! The terrain has no pose: its quad frames are given in the world frame (length
//! units), and so are the manifolds. A collider at `pose` is tested by the points of
//! [`contact_vertices`] (its vertices, or the inscribed polytope of a curved shape),
//! placed in the world.
//!
//! # What a contact is
//!
//! As in the thesis (§2.4.2, §3.6), a part touches the terrain where one of its points
//! lies *under* the surface: contacts are penetrations only (no margin: a part hovering
//! a millimetre above the surface has none), and a part whose points are all above the
//! surface while the terrain pokes through one of its faces is not in contact (the
//! vertex-based method's blind spot, §5). Each part with a point under the surface gets
//! one [`TerrainManifold`] ([`terrain_manifolds`]): the surface normal at its deepest
//! point, at most four points, the terrain as `A` and the part as `B`, distances
//! negative.
//!
//! # Oracle
//!
//! [`TerrainStatic::brute_force_manifolds`] answers the same question with
//! [`brute_force_detect`] (every point located against every triangle, no bounds): the
//! set of parts in contact and their points agree with [`TerrainStatic::manifolds`]; the
//! triangle a point is reported on can differ where two triangles' solids overlap.

use super::contact_vertices::contact_vertices;
use super::displaced_terrain::DisplacedTerrain;
use super::multires_detection::{detect_multires, MultiresDetectionError, MultiresOptions};
use super::per_vertex_baseline::{brute_force_detect, PerVertexError};
use super::terrain_contact::TerrainDetection;
use super::terrain_manifold::{terrain_manifolds, TerrainManifold};
use super::terrain_volumes::{TerrainVolumes, TerrainVolumesError, TerrainVolumesOptions};
use crate::math::{Point, Pose};
use crate::query::compound::Collider;

/// A displacement-mapped terrain with its bounding volumes, for collision (see the
/// module notes).
#[derive(Debug, Clone)]
pub struct TerrainStatic {
    terrain: DisplacedTerrain,
    volumes: TerrainVolumes,
    options: MultiresOptions,
}

impl TerrainStatic {
    /// The terrain with volumes built for it ([`TerrainVolumes::build`]) and the
    /// detection's options.
    ///
    /// # Errors
    /// [`MultiresDetectionError::VolumesMismatch`] when `volumes` were built for another
    /// terrain.
    pub fn new(
        terrain: DisplacedTerrain,
        volumes: TerrainVolumes,
        options: MultiresOptions,
    ) -> Result<Self, MultiresDetectionError> {
        if !volumes.matches(&terrain) {
            return Err(MultiresDetectionError::VolumesMismatch);
        }
        Ok(Self {
            terrain,
            volumes,
            options,
        })
    }

    /// The terrain with its volumes built now with `volume_options` (which can take
    /// seconds for optimised volumes of a large terrain; see [`TerrainVolumesOptions`]),
    /// and the default detection options.
    ///
    /// # Errors
    /// As [`TerrainVolumes::build`].
    pub fn build(
        terrain: DisplacedTerrain,
        volume_options: &TerrainVolumesOptions,
    ) -> Result<Self, TerrainVolumesError> {
        let volumes = TerrainVolumes::build(&terrain, volume_options)?;
        Ok(Self {
            terrain,
            volumes,
            options: MultiresOptions::default(),
        })
    }

    /// The terrain.
    pub fn terrain(&self) -> &DisplacedTerrain {
        &self.terrain
    }

    /// Its bounding volumes.
    pub fn volumes(&self) -> &TerrainVolumes {
        &self.volumes
    }

    /// The detection's options.
    pub fn options(&self) -> &MultiresOptions {
        &self.options
    }

    /// The contact manifolds of `collider` at `pose` (local to world) with the terrain,
    /// by the multiresolution detection ([`detect_multires`]): one per part with a point
    /// under the surface, in part order (a convex shape is part 0), each with at most
    /// four points, distances negative. Empty when nothing is under the surface.
    ///
    /// # Errors
    /// [`MultiresDetectionError`] when a point of the collider is beyond the magnitude
    /// limit (nothing is detected then).
    pub fn manifolds(
        &self,
        collider: &Collider,
        pose: &Pose,
    ) -> Result<Vec<TerrainManifold>, MultiresDetectionError> {
        let found = self.detect(collider, pose)?;
        Ok(terrain_manifolds(&self.terrain, &found))
    }

    /// The detection behind [`manifolds`](Self::manifolds): the points under the surface
    /// (keys `(part, point)` into [`contact_vertices`]' lists) and the pass's counters.
    ///
    /// # Errors
    /// As [`manifolds`](Self::manifolds).
    pub fn detect(
        &self,
        collider: &Collider,
        pose: &Pose,
    ) -> Result<TerrainDetection, MultiresDetectionError> {
        let points = collider_points(collider, pose);
        let parts: Vec<&[Point]> = points.iter().map(Vec::as_slice).collect();
        detect_multires(&self.terrain, &self.volumes, &parts, &self.options)
    }

    /// [`manifolds`](Self::manifolds) by brute force ([`brute_force_detect`]: no
    /// volumes), the oracle (see the module notes).
    ///
    /// # Errors
    /// [`PerVertexError`] for a point that is not finite or beyond the magnitude limit.
    pub fn brute_force_manifolds(
        &self,
        collider: &Collider,
        pose: &Pose,
    ) -> Result<Vec<TerrainManifold>, PerVertexError> {
        let points = collider_points(collider, pose);
        let parts: Vec<&[Point]> = points.iter().map(Vec::as_slice).collect();
        let found = brute_force_detect(&self.terrain, &parts)?;
        Ok(terrain_manifolds(&self.terrain, &found))
    }
}

/// The world-frame test points of each part of `collider` at `pose`.
fn collider_points(collider: &Collider, pose: &Pose) -> Vec<Vec<Point>> {
    match collider {
        Collider::Convex(s) => {
            let mut v = Vec::new();
            contact_vertices(s, pose, &mut v);
            vec![v]
        }
        Collider::Compound(c) => c
            .parts()
            .iter()
            .map(|(p, s)| {
                let mut v = Vec::new();
                contact_vertices(s, &pose.mul(p), &mut v);
                v
            })
            .collect(),
    }
}
