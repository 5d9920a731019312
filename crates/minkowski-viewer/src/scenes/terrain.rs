//! The terrain scenes, each with the character controller walking on it
//! ([`super::walker`]: a capsule walking a scripted circle, driven with the arrows while
//! they are held).
//!
//! * `terrain`: the library's static-geometry heightfield ([`HeightField`], 65 × 65
//!   samples 0.5 apart: gentle hills and one walkable mound) in a collision
//!   [`World`], with four crates (world objects) on the circle; the character glides
//!   along them, and a crate it hits takes the collision colour for that frame.
//! * `displaced`: the displacement-mapped terrain of seed 002 —
//!   [`minkowski::terrain::synthetic`] on 16 × 16 cells of 2 (its cliff and its overhang
//!   strip included), split into quads of 8, 4 and 2 cells by roughness — drawn as its
//!   bilinear surface (each cell's patch, Eq 3.5, sampled [`PATCH_STEPS`]² times). Its
//!   multiresolution bounding volumes ([`quad_volumes`]: Alg 8, by constrained
//!   optimisation) are built once at start-up for every quad of at most 8 cells (a
//!   16-cell quad would take some 20 s; this layout has none, and any would be left
//!   out and counted in the HUD); `V` cycles the level drawn — none, then bounding
//!   cells of 8, 4 and 2 (a quad smaller than the level shows its own coarsest) — each
//!   bounding cell as the twelve edges of its eight bounding vertices
//!   ([`cell_vertices`]).
//!
//!   The collision world cannot hold a `DisplacedTerrain` as static geometry (its
//!   statics are half-spaces, heightfields and triangle meshes), so the character walks
//!   on a **proxy**: the triangle mesh of the forward-projected sample nodes (two
//!   triangles per cell, the corners of the drawn patches). Where a patch is twisted the
//!   proxy departs from the drawn surface by up to the patch's twist; the HUD says so.

use std::time::Instant;

use minkowski::query::{Ray, RayOptions};
use minkowski::shape::{Cuboid, HeightField, Shape, TriMesh, TriMeshFlags};
use minkowski::terrain::multires_volume::{cell_vertices, quad_volumes, QuadSamples};
use minkowski::terrain::synthetic::{SyntheticTerrain, SyntheticTerrainConfig};
use minkowski::terrain::DisplacedTerrain;
use minkowski::world::{BroadPhaseKind, ObjectHandle, QueryFilter, Target, World, WorldOptions};
use minkowski::{Pose, Real, Rotation, Vector};

use super::walker::{CirclePath, Walker};
use super::{
    CameraStart, Draw, SceneOptions, SceneStats, ViewerScene, COLLIDING, FIELD, NORMAL, PLAYER,
    TERRAIN, VOLUME,
};
use crate::mesh::{Detail, FaceMesh, MeshId, MeshStore};
use crate::script::{FrameInput, Key};
use crate::ViewerError;

/// Samples per side of the `terrain` scene's heightfield.
pub const FIELD_SAMPLES: usize = 65;
/// Spacing of its samples (length).
pub const FIELD_CELL: Real = 0.5;
/// Steps per side each bilinear patch of the displaced terrain is drawn with.
pub const PATCH_STEPS: usize = 4;
/// The largest quad whose bounding volumes are built at start-up (cells).
pub const MAX_VOLUME_QUAD: u32 = 8;

/// The `terrain` scene's ground height at world `(x, z)`.
pub fn hills(x: Real, z: Real) -> Real {
    let mound = 2.2 * (-((x - 5.0).powi(2) + (z + 5.0).powi(2)) / 10.0).exp();
    0.8 * (0.35 * x).sin() * (0.3 * z).cos() + mound
}

fn world_err(e: impl std::fmt::Display) -> ViewerError {
    ViewerError::World(e.to_string())
}

/// The highest surface point under `(x, z)` (a ray cast down from high above), or
/// `None` if the ray misses every static.
fn ground_height(world: &World, x: Real, z: Real) -> Option<Real> {
    let ray = Ray::new(Vector::new(x, 1e3, z), Vector::NEG_Y);
    let hit = world
        .cast_ray(&ray, &RayOptions::default(), &QueryFilter::new())
        .ok()??;
    Some(hit.hit.point.y)
}

/// Draws the character and the ground normal under it.
fn draw_walker(walker: &Walker, mesh: MeshId, out: &mut dyn Draw) {
    out.shape(mesh, &walker.pose(), PLAYER);
    if let Some((p, n)) = walker.ground_normal() {
        out.line(p, p + n * 0.8, NORMAL);
    }
}

// ---------------------------------------------------------------------------------
// The heightfield.

/// The `terrain` scene (module notes).
pub struct HeightfieldScene {
    world: World,
    walker: Walker,
    ground: MeshId,
    player: MeshId,
    crates: Vec<(ObjectHandle, MeshId, Pose)>,
}

/// Builds the `terrain` scene.
///
/// # Errors
/// [`ViewerError::World`], [`ViewerError::Shape`] or [`ViewerError::Pose`] if the
/// library refuses the built-in field, crates or capsule (none is).
pub fn build_heightfield(
    _options: &SceneOptions,
    store: &mut MeshStore,
) -> Result<Box<dyn ViewerScene>, ViewerError> {
    Ok(Box::new(HeightfieldScene::new(store)?))
}

impl HeightfieldScene {
    /// The scene, its meshes registered in `store`.
    ///
    /// # Errors
    /// As [`build_heightfield`].
    pub fn new(store: &mut MeshStore) -> Result<HeightfieldScene, ViewerError> {
        let n = FIELD_SAMPLES;
        let half = 0.5 * (n - 1) as Real * FIELD_CELL;
        let origin = Vector::new(-half, 0.0, -half);
        let samples: Vec<Option<Real>> = (0..n * n)
            .map(|k| {
                let (row, col) = ((k / n) as Real, (k % n) as Real);
                Some(hills(
                    origin.x + col * FIELD_CELL,
                    origin.z + row * FIELD_CELL,
                ))
            })
            .collect();
        let field = HeightField::new(n, n, &samples, [FIELD_CELL, FIELD_CELL], origin)
            .map_err(world_err)?;
        let ground = store.add_mesh(FaceMesh::of_heightfield(&field));
        let mut world = World::new(BroadPhaseKind::SweepAndPrune, WorldOptions::default());
        world
            .insert_static(field, Pose::IDENTITY)
            .map_err(world_err)?;
        let path = CirclePath {
            centre: Vector::ZERO,
            radius: 8.0,
        };
        // Crates just outside the circle, turned: the walk meets their inner halves and
        // glides round them.
        let crate_shape = Shape::from(Cuboid::new(Vector::splat(0.5))?);
        let crate_mesh = store.add_shape(&crate_shape, Detail::Fine)?;
        let mut crates = Vec::new();
        for (k, angle) in [0.9 as Real, 2.4, 3.9, 5.4].into_iter().enumerate() {
            let r = path.radius + 0.7;
            let (x, z) = (r * angle.cos(), -r * angle.sin());
            let turn = Rotation::from_rotation_y(0.5 + 0.3 * k as Real);
            let pose = Pose::new(turn, Vector::new(x, hills(x, z) + 0.4, z))?;
            let h = world.insert(crate_shape.clone(), pose).map_err(world_err)?;
            crates.push((h, crate_mesh, pose));
        }
        world.update();
        let x = path.radius;
        let start = Vector::new(x, hills(x, 0.0) + 1.0, 0.0);
        let walker = Walker::new(start, path, -20.0)?;
        let player = store.add_shape(walker.shape(), Detail::Fine)?;
        Ok(HeightfieldScene {
            world,
            walker,
            ground,
            player,
            crates,
        })
    }

    /// The character.
    pub fn walker(&self) -> &Walker {
        &self.walker
    }
}

impl ViewerScene for HeightfieldScene {
    fn update(&mut self, input: &FrameInput, dt: Real) {
        self.walker.update(&self.world, input, dt);
    }

    fn draw(&self, out: &mut dyn Draw) {
        out.shape(self.ground, &Pose::IDENTITY, TERRAIN);
        for (h, mesh, pose) in &self.crates {
            let hit = self.walker.touched().contains(&Target::Object(*h));
            out.shape(*mesh, pose, if hit { COLLIDING } else { FIELD });
        }
        draw_walker(&self.walker, self.player, out);
    }

    fn stats(&self) -> SceneStats {
        SceneStats {
            contacts: self.walker.touched().len() + self.walker.grounded() as usize,
            step_ms: self.walker.update_ms(),
            ..SceneStats::default()
        }
    }

    fn hud(&self, lines: &mut Vec<String>) {
        lines.push(format!(
            "heightfield {FIELD_SAMPLES} x {FIELD_SAMPLES} samples {FIELD_CELL} apart, {} crates (world objects)",
            self.crates.len()
        ));
        lines.push(self.walker.hud());
    }

    fn keys(&self) -> &'static str {
        "arrows: drive the character"
    }

    fn camera(&self) -> CameraStart {
        CameraStart {
            position: Vector::new(2.0, 13.0, 23.0),
            target: Vector::new(0.0, 0.0, 0.5),
        }
    }
}

// ---------------------------------------------------------------------------------
// The displaced terrain.

/// One quad's bounding volumes: per level, its bounding size and each bounding cell's
/// eight vertices (upper `00, 10, 01, 11`, then lower).
#[derive(Debug, Clone)]
struct QuadView {
    size: u32,
    levels: Vec<(usize, Vec<[Vector; 8]>)>,
}

/// The `displaced` scene (module notes).
pub struct DisplacedScene {
    world: World,
    walker: Walker,
    surface: MeshId,
    player: MeshId,
    proxy_triangles: usize,
    quads: Vec<QuadView>,
    /// The bounding sizes present, coarsest first.
    sizes: Vec<usize>,
    /// Index into `sizes` of the level drawn (`None`: no volumes).
    shown: Option<usize>,
    volumes_s: f64,
    skipped: usize,
    extra_nodes: usize,
    camera: CameraStart,
}

/// The synthetic terrain of the `displaced` scene: seed 2, 16 × 16 cells of 2, skewed
/// directions round the overhang, split while the surface departs from a quad's
/// bilinear interpolation by more than 2 (1 quad of 8 cells, 7 of 4, 20 of 2).
pub fn displaced_config() -> SyntheticTerrainConfig {
    SyntheticTerrainConfig {
        cells_s: 16,
        cells_t: 16,
        roughness: 2.0,
        ..SyntheticTerrainConfig::default()
    }
}

/// The sample nodes of quad `q` as [`QuadSamples`] wants them: base positions,
/// directions and displacements, row-major.
fn quad_nodes(terrain: &DisplacedTerrain, q: usize) -> (Vec<Vector>, Vec<Vector>, Vec<Real>) {
    let quad = terrain.layout().quads()[q];
    let side = quad.size + 1;
    let (mut p, mut r, mut l) = (Vec::new(), Vec::new(), Vec::new());
    for b in 0..side {
        for a in 0..side {
            let (i, j) = (quad.s + a, quad.t + b);
            let tri = &terrain.triangles()[2 * q + quad.triangle_at(i as Real, j as Real)];
            let (u, v) = tri.parameters(i as Real, j as Real);
            p.push(tri.base().base_point(u, v));
            r.push(tri.base().direction(u, v));
            l.push(terrain.map().sample(i as usize, j as usize).unwrap_or(0.0));
        }
    }
    (p, r, l)
}

/// The forward-projected node `(i, j)` of the map (through the first cell holding it).
fn node(terrain: &DisplacedTerrain, i: u32, j: u32) -> Option<Vector> {
    let (cs, ct) = (terrain.layout().cells_s(), terrain.layout().cells_t());
    let (ci, cj) = (i.min(cs - 1), j.min(ct - 1));
    let q = terrain.layout().quad_of_cell(ci, cj)?;
    terrain.node_point(q, i, j)
}

/// The drawn surface (each cell's patch in `PATCH_STEPS²` quads) and the collision
/// proxy (two triangles per cell through its forward-projected nodes).
fn surface_and_proxy(terrain: &DisplacedTerrain) -> Result<(FaceMesh, TriMesh), ViewerError> {
    let (cs, ct) = (terrain.layout().cells_s(), terrain.layout().cells_t());
    let mut surface = FaceMesh::default();
    let k = PATCH_STEPS;
    for j in 0..ct {
        for i in 0..cs {
            let Some(patch) = terrain.cell_patch(i, j) else {
                continue;
            };
            let at = |a: usize, b: usize| patch.point(a as Real / k as Real, b as Real / k as Real);
            for b in 0..k {
                for a in 0..k {
                    // `a` along x (s), `b` along z (t): this winding faces up.
                    surface.push_wound([at(a, b), at(a, b + 1), at(a + 1, b)]);
                    surface.push_wound([at(a + 1, b), at(a, b + 1), at(a + 1, b + 1)]);
                }
            }
        }
    }
    let w = cs + 1;
    let mut vertices = Vec::with_capacity(((cs + 1) * (ct + 1)) as usize);
    for j in 0..=ct {
        for i in 0..=cs {
            vertices.push(node(terrain, i, j).ok_or_else(|| {
                ViewerError::World(format!("terrain node ({i}, {j}) has no point"))
            })?);
        }
    }
    let mut indices = Vec::with_capacity((2 * cs * ct) as usize);
    for j in 0..ct {
        for i in 0..cs {
            let v = |a: u32, b: u32| (j + b) * w + i + a;
            indices.push([v(0, 0), v(0, 1), v(1, 0)]);
            indices.push([v(1, 0), v(0, 1), v(1, 1)]);
        }
    }
    let proxy = TriMesh::new(vertices, indices, TriMeshFlags::NONE).map_err(world_err)?;
    Ok((surface, proxy))
}

/// Builds the `displaced` scene: the terrain, its proxy, the volumes of every quad of at
/// most [`MAX_VOLUME_QUAD`] cells (timed), the character.
///
/// # Errors
/// [`ViewerError::World`] if the library refuses the terrain, its proxy or a quad's
/// volumes (none is), or the capsule.
pub fn build_displaced(
    _options: &SceneOptions,
    store: &mut MeshStore,
) -> Result<Box<dyn ViewerScene>, ViewerError> {
    Ok(Box::new(DisplacedScene::new(store)?))
}

impl DisplacedScene {
    /// The scene, its meshes registered in `store` (see [`build_displaced`]).
    ///
    /// # Errors
    /// As [`build_displaced`].
    pub fn new(store: &mut MeshStore) -> Result<DisplacedScene, ViewerError> {
        let synthetic = SyntheticTerrain::generate(displaced_config()).map_err(world_err)?;
        let terrain = &synthetic.terrain;
        let (surface, proxy) = surface_and_proxy(terrain)?;
        let proxy_triangles = proxy.triangle_count();
        let surface = store.add_mesh(surface);
        let mut world = World::new(BroadPhaseKind::SweepAndPrune, WorldOptions::default());
        world
            .insert_static(proxy, Pose::IDENTITY)
            .map_err(world_err)?;
        world.update();

        let started = Instant::now();
        let mut quads = Vec::new();
        let (mut skipped, mut extra_nodes) = (0, 0);
        for (q, quad) in terrain.layout().quads().iter().enumerate() {
            if quad.size > MAX_VOLUME_QUAD {
                skipped += 1;
                continue;
            }
            let (p, r, l) = quad_nodes(terrain, q);
            let samples = QuadSamples {
                size: quad.size as usize,
                positions: &p,
                directions: &r,
                lengths: &l,
            };
            let v = quad_volumes(&samples, MAX_VOLUME_QUAD as usize).map_err(world_err)?;
            let levels = v
                .levels
                .iter()
                .map(|level| {
                    extra_nodes += level.extra_nodes.len();
                    let cells = (level.points_per_side - 1).pow(2);
                    let verts = (0..cells)
                        .map(|c| cell_vertices(&samples, level, c))
                        .collect();
                    (level.bounding_size, verts)
                })
                .collect();
            quads.push(QuadView {
                size: quad.size,
                levels,
            });
        }
        let volumes_s = started.elapsed().as_secs_f64();
        let mut sizes: Vec<usize> = quads
            .iter()
            .flat_map(|q| q.levels.iter().map(|l| l.0))
            .collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        sizes.dedup();

        let (cs, ct) = (terrain.layout().cells_s(), terrain.layout().cells_t());
        let h = synthetic.config.cell_size;
        let (width, depth) = (cs as Real * h, ct as Real * h);
        // The walk: a circle on the plateau beyond the cliff, round the overhang's end.
        let path = CirclePath {
            centre: Vector::new(0.62 * width, 0.0, 0.58 * depth),
            radius: 0.2 * width,
        };
        let sx = path.centre.x + path.radius;
        let sz = path.centre.z;
        let start_y = ground_height(&world, sx, sz)
            .ok_or_else(|| ViewerError::World("no terrain under the walk's start".into()))?;
        let walker = Walker::new(Vector::new(sx, start_y + 1.0, sz), path, -30.0)?;
        let player = store.add_shape(walker.shape(), Detail::Fine)?;
        let camera = CameraStart {
            position: Vector::new(0.45 * width, 0.72 * width, 1.75 * depth),
            target: Vector::new(0.52 * width, 2.5, 0.42 * depth),
        };
        Ok(DisplacedScene {
            world,
            walker,
            surface,
            player,
            proxy_triangles,
            quads,
            sizes,
            shown: None,
            volumes_s,
            skipped,
            extra_nodes,
            camera,
        })
    }

    /// The character.
    pub fn walker(&self) -> &Walker {
        &self.walker
    }

    /// The bounding size drawn (`None`: no volumes).
    pub fn shown_level(&self) -> Option<usize> {
        self.shown.and_then(|i| self.sizes.get(i).copied())
    }

    /// Bounding cells drawn at the level shown (each a wireframe of 12 edges).
    pub fn cells_shown(&self) -> usize {
        let Some(b) = self.shown_level() else {
            return 0;
        };
        self.quads
            .iter()
            .filter_map(|q| level_of(q, b))
            .map(|l| l.1.len())
            .sum()
    }
}

/// The level of `q` drawn when bounding size `b` is asked for: `b`, or the quad's own
/// coarsest when it is smaller than `b`.
fn level_of(q: &QuadView, b: usize) -> Option<&(usize, Vec<[Vector; 8]>)> {
    let want = b.min(q.size as usize);
    q.levels.iter().find(|l| l.0 == want)
}

impl ViewerScene for DisplacedScene {
    fn update(&mut self, input: &FrameInput, dt: Real) {
        if input.was_pressed(Key::V) {
            self.shown = match self.shown {
                None if !self.sizes.is_empty() => Some(0),
                Some(i) if i + 1 < self.sizes.len() => Some(i + 1),
                _ => None,
            };
        }
        self.walker.update(&self.world, input, dt);
    }

    fn draw(&self, out: &mut dyn Draw) {
        out.shape(self.surface, &Pose::IDENTITY, TERRAIN);
        draw_walker(&self.walker, self.player, out);
        let Some(b) = self.shown_level() else {
            return;
        };
        // Upper 00 10 01 11 (0..4), lower likewise (4..8): two quads and four uprights.
        const EDGES: [(usize, usize); 12] = [
            (0, 1),
            (1, 3),
            (3, 2),
            (2, 0),
            (4, 5),
            (5, 7),
            (7, 6),
            (6, 4),
            (0, 4),
            (1, 5),
            (2, 6),
            (3, 7),
        ];
        for q in &self.quads {
            if let Some((_, cells)) = level_of(q, b) {
                for v in cells {
                    for (a, c) in EDGES {
                        out.line(v[a], v[c], VOLUME);
                    }
                }
            }
        }
    }

    fn stats(&self) -> SceneStats {
        SceneStats {
            contacts: self.walker.touched().len() + self.walker.grounded() as usize,
            step_ms: self.walker.update_ms(),
            ..SceneStats::default()
        }
    }

    fn hud(&self, lines: &mut Vec<String>) {
        let counts = |s: u32| self.quads.iter().filter(|q| q.size == s).count();
        lines.push(format!(
            "16x16 cells, quads 8:{} 4:{} 2:{}{}, volumes {:.2} s (+{} nodes); V: {}",
            counts(8),
            counts(4),
            counts(2),
            if self.skipped > 0 {
                format!(" (16: {} left out)", self.skipped)
            } else {
                String::new()
            },
            self.volumes_s,
            self.extra_nodes,
            match self.shown_level() {
                None => "volumes off".to_string(),
                Some(b) => format!("cells of {b} ({} drawn)", self.cells_shown()),
            },
        ));
        lines.push(format!(
            "collision: proxy mesh of the projected nodes ({} tris); no DisplacedTerrain in World",
            self.proxy_triangles
        ));
        lines.push(self.walker.hud());
    }

    fn keys(&self) -> &'static str {
        "arrows: drive the character   V bounding volumes: next level"
    }

    fn camera(&self) -> CameraStart {
        self.camera
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenes::walker::CAPSULE;

    const DT: Real = 1.0 / 60.0;

    fn hold(keys: &[Key]) -> FrameInput {
        FrameInput {
            held: keys.to_vec(),
            ..FrameInput::default()
        }
    }

    fn press(k: Key) -> FrameInput {
        FrameInput {
            pressed: vec![k],
            held: vec![k],
            ..FrameInput::default()
        }
    }

    fn heightfield() -> HeightfieldScene {
        HeightfieldScene::new(&mut MeshStore::new()).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Unwrapped angle advance of the walk.
    fn advance(path: &CirclePath, from: Real, to: Vector) -> Real {
        let mut d = path.angle(to) - from;
        while d < -std::f32::consts::PI as Real {
            d += std::f32::consts::TAU as Real;
        }
        while d > std::f32::consts::PI as Real {
            d -= std::f32::consts::TAU as Real;
        }
        d
    }

    /// The character walks its circle on the heightfield: 15 s at 2.5 make 37.5 of the
    /// circle's 50.3 (4.7 rad; the crates and slopes cost some), standing on walkable
    /// ground nearly always, never below the analytic surface (its bottom point stays
    /// above `hills` at its own (x, z), to the field's bilinear error and the skin),
    /// within 1 of the circle.
    #[test]
    fn the_heightfield_character_walks_its_circle_above_the_ground() {
        let mut s = heightfield();
        let path = *s.walker().path();
        let mut angle = path.angle(s.walker().pose().translation());
        let mut travelled = 0.0;
        let mut grounded = 0;
        for frame in 0..900 {
            s.update(&FrameInput::default(), DT);
            let p = s.walker().pose().translation();
            travelled += advance(&path, angle, p);
            angle = path.angle(p);
            let bottom = p.y - CAPSULE.0 - CAPSULE.1;
            assert!(
                bottom > hills(p.x, p.z) - 0.03,
                "frame {frame}: sunk at {p}"
            );
            let r = Vector::new(p.x, 0.0, p.z).length();
            assert!(
                (r - path.radius).abs() < 1.0,
                "frame {frame}: off the circle, r {r}"
            );
            grounded += s.walker().grounded() as usize;
        }
        assert!(travelled > 3.5, "walked {travelled} rad");
        assert!(grounded > 850, "grounded {grounded} of 900 frames");
    }

    /// The arrows take over: a second of Right moves the character 2.5 along +x (less
    /// what the slopes take), hardly along z; released, it heads back to its circle.
    #[test]
    fn the_arrows_drive_the_character() {
        let mut s = heightfield();
        for _ in 0..30 {
            s.update(&FrameInput::default(), DT);
        }
        let a = s.walker().pose().translation();
        for _ in 0..60 {
            s.update(&hold(&[Key::Right]), DT);
        }
        let b = s.walker().pose().translation();
        assert!((b.x - a.x) > 2.0 && (b.x - a.x) < 2.55, "{a} -> {b}");
        assert!((b.z - a.z).abs() < 0.1, "{a} -> {b}");
        let off = |p: Vector| (Vector::new(p.x, 0.0, p.z).length() - 8.0).abs();
        for _ in 0..180 {
            s.update(&FrameInput::default(), DT);
        }
        let c = s.walker().pose().translation();
        assert!(
            off(b) > 2.0 && off(c) < 0.6,
            "back to the circle: {b} -> {c}"
        );
    }

    fn displaced() -> DisplacedScene {
        DisplacedScene::new(&mut MeshStore::new()).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Counts what a scene draws.
    #[derive(Default)]
    struct Count {
        shapes: usize,
        lines: Vec<(Vector, Vector, crate::scenes::Rgb)>,
    }

    impl Draw for Count {
        fn shape(&mut self, _: MeshId, _: &Pose, _: crate::scenes::Rgb) {
            self.shapes += 1;
        }
        fn line(&mut self, a: Vector, b: Vector, c: crate::scenes::Rgb) {
            self.lines.push((a, b, c));
        }
        fn wire_box(&mut self, _: Vector, _: Vector, _: crate::scenes::Rgb) {}
        fn marker(&mut self, _: Vector, _: Real, _: crate::scenes::Rgb) {}
    }

    /// `V` cycles none → 8 → 4 → 2 → none, and each level draws the bounding cells the
    /// layout implies — a quad of `s` cells at level `b` has `(s / min(b, s))²` — counted
    /// here from the library's layout: at 8 one cell per quad, at 2 the cells tile the
    /// 16 × 16 map in 8 × 8. Each cell is 12 pink edges; nothing pink with volumes off.
    #[test]
    fn v_cycles_the_volume_levels_with_the_cells_the_layout_implies() {
        let mut s = displaced();
        let synthetic = SyntheticTerrain::generate(displaced_config()).unwrap();
        let quads = synthetic.terrain.layout().quads().to_vec();
        assert!(
            quads.iter().all(|q| q.size <= MAX_VOLUME_QUAD),
            "no 16-cell quad"
        );
        let expected = |b: u32| -> usize {
            quads
                .iter()
                .map(|q| ((q.size / b.min(q.size)) as usize).pow(2))
                .sum()
        };
        let pink = |s: &DisplacedScene| {
            let mut c = Count::default();
            s.draw(&mut c);
            assert_eq!(c.shapes, 2, "surface and character");
            c.lines.iter().filter(|l| l.2 == VOLUME).count()
        };
        assert_eq!(s.shown_level(), None);
        assert_eq!(pink(&s), 0);
        for b in [8usize, 4, 2] {
            s.update(&press(Key::V), DT);
            assert_eq!(s.shown_level(), Some(b));
            assert_eq!(s.cells_shown(), expected(b as u32), "level {b}");
            assert_eq!(pink(&s), 12 * expected(b as u32), "level {b}");
        }
        assert_eq!(expected(2), 64);
        assert_eq!(expected(8), quads.len());
        s.update(&press(Key::V), DT);
        assert_eq!(s.shown_level(), None);
        assert_eq!(pink(&s), 0);
    }

    /// The samples handed to Alg 8 are the terrain's: each node's `p + r l` is the
    /// library's forward projection of that node in its quad (`node_point`), and every
    /// drawn bounding cell holds its sample nodes between its lower and upper vertices
    /// along the corner directions (the corners themselves: `lower ≤ l ≤ upper`).
    #[test]
    fn the_volumes_are_built_from_the_terrains_own_nodes_and_hold_them() {
        let synthetic = SyntheticTerrain::generate(displaced_config()).unwrap();
        let t = &synthetic.terrain;
        for (q, quad) in t.layout().quads().iter().enumerate() {
            let (p, r, l) = quad_nodes(t, q);
            let side = quad.size + 1;
            assert_eq!(p.len(), (side * side) as usize);
            for b in 0..side {
                for a in 0..side {
                    let k = (b * side + a) as usize;
                    let want = t.node_point(q, quad.s + a, quad.t + b).unwrap();
                    let got = p[k] + r[k] * l[k];
                    assert!(
                        (got - want).length() < 1e-4,
                        "quad {q} node {k}: {got} vs {want}"
                    );
                }
            }
        }
        let s = displaced();
        for (qv, quad) in s.quads.iter().zip(t.layout().quads()) {
            let q = t.layout().quads().iter().position(|x| x == quad).unwrap();
            let (p, r, l) = quad_nodes(t, q);
            let side = quad.size as usize + 1;
            for (b, cells) in &qv.levels {
                let per = quad.size as usize / b;
                for (c, v) in cells.iter().enumerate() {
                    let (cx, cy) = (c % per, c / per);
                    for (k, (dx, dy)) in [(0, 0), (1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
                        let n = (cy * b + dy * b) * side + cx * b + dx * b;
                        // The vertices lie on the node's line p + r x.
                        let dir = r[n].normalize();
                        for w in [v[k], v[k + 4]] {
                            let off = w - p[n];
                            assert!((off - dir * off.dot(dir)).length() < 1e-3);
                        }
                        let along = |w: Vector| (w - p[n]).dot(r[n]) / r[n].length_squared();
                        let (up, lo) = (along(v[k]), along(v[k + 4]));
                        assert!(
                            lo <= l[n] + 1e-4 && l[n] <= up + 1e-4,
                            "quad {q} level {b} cell {c}: {lo} {} {up}",
                            l[n]
                        );
                    }
                }
            }
        }
    }

    /// The character walks its circle on the proxy: ten seconds make more than 2 rad,
    /// it stays on the terrain (never put back), above the proxy under it and on
    /// walkable ground nearly always.
    #[test]
    fn the_character_walks_on_the_displaced_terrain() {
        let mut s = displaced();
        let path = *s.walker().path();
        let mut angle = path.angle(s.walker().pose().translation());
        let mut travelled = 0.0;
        let mut grounded = 0;
        for frame in 0..600 {
            s.update(&FrameInput::default(), DT);
            let p = s.walker().pose().translation();
            travelled += advance(&path, angle, p);
            angle = path.angle(p);
            let ground = ground_height(&s.world, p.x, p.z).unwrap_or(Real::NEG_INFINITY);
            assert!(
                p.y - CAPSULE.0 - CAPSULE.1 > ground - 0.02,
                "frame {frame}: {p} under {ground}"
            );
            grounded += s.walker().grounded() as usize;
        }
        assert!(!s.walker().hud().contains("fell off"));
        assert!(travelled > 2.0, "walked {travelled} rad");
        assert!(grounded > 560, "grounded {grounded} of 600 frames");
    }
}
