//! The scene registry: every scene the viewer can show, by name.
//!
//! A scene owns its objects and its simulation, and knows nothing of the window: it
//! advances on a [`FrameInput`], draws through the [`Draw`] trait (meshes named in a
//! [`MeshStore`] at build time, lines, boxes, markers) and reports [`SceneStats`] and
//! HUD lines. Adding a scene (the dynamics crate's pyramid, card house and tumbler, the
//! terrain scenes) is one file implementing [`ViewerScene`] and one [`SceneEntry`] in
//! [`SCENES`].

use std::path::PathBuf;

use minkowski::{Pose, Real, Vector};

use crate::mesh::{MeshId, MeshStore};
use crate::script::FrameInput;
use crate::ViewerError;

pub mod demo;
pub mod layouts;

/// An sRGB colour.
pub type Rgb = [u8; 3];

/// The player's colour.
pub const PLAYER: Rgb = [70, 130, 235];
/// Shapes that collide (the player included).
pub const COLLIDING: Rgb = [235, 60, 45];
/// Shapes of the field that touch nothing.
pub const FIELD: Rgb = [175, 190, 120];
/// The contact normal.
pub const NORMAL: Rgb = [255, 220, 40];
/// Closest points and the segment between them.
pub const WITNESS: Rgb = [250, 250, 250];
/// Broad-phase cells and boxes.
pub const CELLS: Rgb = [90, 200, 200];

/// Where a scene draws: implemented by the window's renderer, and by counting or
/// recording stand-ins in tests.
pub trait Draw {
    /// The mesh `mesh` at `pose` (world from local), lit per face, in `color`.
    fn shape(&mut self, mesh: MeshId, pose: &Pose, color: Rgb);
    /// A segment (world frame).
    fn line(&mut self, a: Vector, b: Vector, color: Rgb);
    /// The twelve edges of the box `[mins, maxs]` (world frame).
    fn wire_box(&mut self, mins: Vector, maxs: Vector, color: Rgb);
    /// A small solid cube of side `size` centred at `at`: a point made visible.
    fn marker(&mut self, at: Vector, size: Real, color: Rgb);
}

/// What the last update cost and found.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SceneStats {
    /// Broad phase (ms; 0 for scenes that test every pair).
    pub broad_ms: f64,
    /// Narrow phase: contact, distance and cast queries (ms).
    pub narrow_ms: f64,
    /// Pairs tested by the narrow phase.
    pub pairs: usize,
    /// Pairs in contact.
    pub contacts: usize,
}

/// Where the free camera starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CameraStart {
    /// Eye position (world frame).
    pub position: Vector,
    /// The point looked at.
    pub target: Vector,
}

/// A scene of the viewer (see the module notes).
pub trait ViewerScene {
    /// Advances one frame of `dt` seconds with this frame's input (camera keys are the
    /// window's; a scene reads the rest).
    fn update(&mut self, input: &FrameInput, dt: Real);
    /// Draws the scene.
    fn draw(&self, out: &mut dyn Draw);
    /// The last update's figures.
    fn stats(&self) -> SceneStats;
    /// Scene-specific HUD lines (the player's shape, the selected pair, ...).
    fn hud(&self, lines: &mut Vec<String>);
    /// Where the camera starts.
    fn camera(&self) -> CameraStart;
}

/// Options every scene may read.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneOptions {
    /// The folder of seed 000's OBJ meshes (`examples/models`).
    pub models: PathBuf,
    /// Seed of the scene's randomness.
    pub seed: u64,
    /// Object count of the moving scenes.
    pub objects: usize,
}

impl Default for SceneOptions {
    fn default() -> Self {
        Self {
            models: PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../examples/models"
            )),
            seed: 1,
            objects: 10_000,
        }
    }
}

/// Builds a scene, registering its meshes in the store.
pub type BuildScene =
    fn(&SceneOptions, &mut MeshStore) -> Result<Box<dyn ViewerScene>, ViewerError>;

/// One entry of the registry.
#[derive(Clone, Copy)]
pub struct SceneEntry {
    /// The name given to `--scene`.
    pub name: &'static str,
    /// One line for `--list` and the HUD.
    pub about: &'static str,
    /// Its constructor.
    pub build: BuildScene,
}

/// Every scene, the default first.
pub const SCENES: &[SceneEntry] = &[
    SceneEntry {
        name: "demo",
        about: "seed 000's demo: the player (1-5, arrows, Q/E) among the four seed meshes and capsules",
        build: demo::build,
    },
    SceneEntry {
        name: "seed000",
        about: "seed 000's forced-overlap layout: 4 copies of each seed mesh jittering at one spot",
        build: layouts::build_seed000,
    },
    SceneEntry {
        name: "crowd",
        about: "`minkowski scene`: moving objects (--objects, 10^4) in a grid broad phase, occupied cells drawn",
        build: layouts::build_crowd_grid,
    },
    SceneEntry {
        name: "crowd-tree",
        about: "the same objects in the dynamic AABB tree, the boxes of its leaves drawn",
        build: layouts::build_crowd_tree,
    },
];

/// The entry named `name`.
pub fn find(name: &str) -> Option<&'static SceneEntry> {
    SCENES.iter().find(|e| e.name == name)
}
