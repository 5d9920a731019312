//! The scene registry: every scene the viewer can show, by name.
//!
//! A scene owns its objects and its simulation, and knows nothing of the window: it
//! advances on a [`FrameInput`], draws through the [`Draw`] trait (meshes named in a
//! [`MeshStore`] at build time, lines, boxes, markers) and reports [`SceneStats`] and
//! HUD lines. Adding a scene is one file implementing [`ViewerScene`] and one
//! [`SceneEntry`] in [`SCENES`]: the seed's demo ([`demo`]), the collision world's
//! layouts ([`layouts`]), the dynamics crate's scenes ([`physics`]: pyramid, card house,
//! tumbler, ...), and the terrain scenes with the character controller walking on them
//! ([`terrain`]: a heightfield, and the displacement-mapped terrain with its bounding
//! volumes).

use std::path::PathBuf;

use minkowski::{Pose, Real, Vector};

use crate::mesh::{MeshId, MeshStore};
use crate::script::FrameInput;
use crate::ViewerError;

pub mod demo;
pub mod layouts;
pub mod physics;
pub mod terrain;
pub mod walker;

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
/// The GJK simplex of the selected pair (magenta: no other colour has red and blue
/// both far above green).
pub const SIMPLEX: Rgb = [235, 50, 235];
/// Dynamic bodies awake (orange: red far above blue).
pub const BODY: Rgb = [230, 140, 50];
/// Dynamic bodies asleep (lavender: blue above red above green).
pub const ASLEEP: Rgb = [140, 120, 205];
/// Kinematic bodies (grey): the tumbler's drum.
pub const KINEMATIC: Rgb = [165, 165, 170];
/// Static ground planes (dark olive).
pub const GROUND: Rgb = [85, 100, 75];
/// Terrain surfaces (green: green above red above blue).
pub const TERRAIN: Rgb = [120, 150, 85];
/// Terrain bounding volumes' edges (pink: red and blue far above green).
pub const VOLUME: Rgb = [255, 90, 200];

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
    /// Pairs in contact (dynamics scenes: contact points).
    pub contacts: usize,
    /// A simulation step or a character update (ms; 0 for scenes without one).
    pub step_ms: f64,
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
    /// The scene's own keys, for the window's key line (the camera's, H, Space and N
    /// are the window's).
    fn keys(&self) -> &'static str {
        ""
    }
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
    SceneEntry {
        name: "pyramid",
        about: "dynamics: a pyramid of 20 rows (210 unit boxes) settling and falling asleep (C: contacts)",
        build: physics::build_pyramid,
    },
    SceneEntry {
        name: "card-house",
        about: "dynamics: a three-storey house of thin cards leaning in pairs, flat cards across",
        build: physics::build_card_house,
    },
    SceneEntry {
        name: "tumbler",
        about: "dynamics: 200 boxes and balls in a hollow kinematic box turning at 0.5 rad/s",
        build: physics::build_tumbler,
    },
    SceneEntry {
        name: "stack",
        about: "dynamics: a vertical stack of 20 unit boxes",
        build: physics::build_stack,
    },
    SceneEntry {
        name: "mass-ratio",
        about: "dynamics: three boxes of density 1, 10, 100, the heaviest on top",
        build: physics::build_mass_ratio,
    },
    SceneEntry {
        name: "friction-ramp",
        about: "dynamics: six boxes on a 30-degree ramp, friction 0 to 0.7 (only 0.7 > tan 30 holds)",
        build: physics::build_friction_ramp,
    },
    SceneEntry {
        name: "large-pyramid",
        about: "dynamics: a pyramid of 100 rows (5050 boxes)",
        build: physics::build_large_pyramid,
    },
    SceneEntry {
        name: "terrain",
        about: "a heightfield with crates; the character controller walks a circle (arrows drive it)",
        build: terrain::build_heightfield,
    },
    SceneEntry {
        name: "displaced",
        about: "the displacement-mapped synthetic terrain, its bounding volumes (V: level), the character on it",
        build: terrain::build_displaced,
    },
];

/// The entry named `name`.
pub fn find(name: &str) -> Option<&'static SceneEntry> {
    SCENES.iter().find(|e| e.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::Key;
    use std::collections::HashSet;

    /// Records what a scene draws.
    #[derive(Default)]
    struct Record {
        shapes: Vec<(MeshId, Pose, Rgb)>,
        lines: usize,
        boxes: usize,
        markers: usize,
    }

    impl Draw for Record {
        fn shape(&mut self, mesh: MeshId, pose: &Pose, color: Rgb) {
            self.shapes.push((mesh, *pose, color));
        }
        fn line(&mut self, _: Vector, _: Vector, _: Rgb) {
            self.lines += 1;
        }
        fn wire_box(&mut self, _: Vector, _: Vector, _: Rgb) {
            self.boxes += 1;
        }
        fn marker(&mut self, _: Vector, _: Real, _: Rgb) {
            self.markers += 1;
        }
    }

    fn build(name: &str, objects: usize) -> (Box<dyn ViewerScene>, MeshStore) {
        let mut store = MeshStore::new();
        let options = SceneOptions {
            objects,
            ..SceneOptions::default()
        };
        let scene = find(name).map(|e| (e.build)(&options, &mut store));
        match scene {
            Some(Ok(s)) => (s, store),
            Some(Err(e)) => panic!("{name}: {e}"),
            None => panic!("no scene {name}"),
        }
    }

    fn hold(keys: &[Key]) -> FrameInput {
        FrameInput {
            held: keys.to_vec(),
            pressed: Vec::new(),
            mouse: (0.0, 0.0),
        }
    }

    /// Every scene builds, updates and draws meshes it registered.
    #[test]
    fn every_registered_scene_builds_and_draws() {
        for e in SCENES {
            let (mut s, store) = build(e.name, 300);
            s.update(&FrameInput::default(), 1.0 / 60.0);
            let mut r = Record::default();
            s.draw(&mut r);
            assert!(!r.shapes.is_empty(), "{}", e.name);
            for (m, _, _) in &r.shapes {
                assert!(!store.get(*m).is_empty(), "{}: mesh registered", e.name);
            }
            let mut hud = Vec::new();
            s.hud(&mut hud);
            assert!(!hud.is_empty());
        }
        let names: HashSet<&str> = SCENES.iter().map(|e| e.name).collect();
        assert_eq!(names.len(), SCENES.len(), "names are unique");
    }

    /// The demo's player is drawn in the player's colour while apart and in the
    /// collision colour from the frame it reaches the cube ahead (3.25 units of gap at
    /// 0.05 per frame), and it stops there: oracle `query::contact` of the drawn poses.
    #[test]
    fn the_demo_player_is_highlighted_exactly_when_in_contact() {
        let (mut s, _store) = build("demo", 0);
        let mut became = None;
        for frame in 0..120 {
            s.update(&hold(&[Key::Up]), 1.0 / 60.0);
            let mut r = Record::default();
            s.draw(&mut r);
            let Some(&(_, player_pose, colour)) = r.shapes.last() else {
                panic!("the player is drawn last");
            };
            let touching = s.stats().contacts > 0;
            assert_eq!(colour == COLLIDING, touching, "frame {frame}");
            assert_eq!(colour == PLAYER, !touching, "frame {frame}");
            if touching && became.is_none() {
                became = Some((frame, player_pose.translation().z));
            }
            assert_eq!(r.markers, 3, "two witness points and the normal's tip");
        }
        let Some((frame, z)) = became else {
            panic!("the player never reached the cube")
        };
        assert!((62..=66).contains(&frame), "contact at frame {frame}");
        // The cube's face is z = 1, the player's half side 0.75: it rests a skin away.
        assert!((z - (1.0 + 0.75 + crate::player::SKIN)).abs() < 0.01, "{z}");
    }

    /// The layout scenes' colours agree with brute force: an object is drawn in the
    /// collision colour exactly when some other object's shape touches it
    /// (`query::intersects` over all pairs at the drawn poses).
    #[test]
    fn layout_colours_match_a_brute_force_pair_scan() {
        for (name, objects) in [("seed000", 0), ("crowd", 400), ("crowd-tree", 400)] {
            let (mut s, _store) = build(name, objects);
            for _ in 0..3 {
                s.update(&FrameInput::default(), 1.0 / 60.0);
            }
            let mut r = Record::default();
            s.draw(&mut r);
            // The same scene rebuilt from the library: its shapes, by the mesh ids the
            // viewer registered in shape order in a fresh store.
            let scene = minkowski::scene::Scene::new(
                match name {
                    "seed000" => minkowski::scene::SceneLayout::Seed000 { array: 4 },
                    _ => minkowski::scene::SceneLayout::Random { objects },
                },
                SceneOptions::default().seed,
            )
            .unwrap_or_else(|e| panic!("{e}"));
            let n = scene.objects.len();
            assert_eq!(r.shapes.len(), n);
            let kind_of_mesh = |m: MeshId| m.0; // meshes registered in shape order
            let mut hits = 0;
            for i in 0..n {
                let (mi, pi, ci) = r.shapes[i];
                let si = &scene.shapes[kind_of_mesh(mi)].1;
                let touching = (0..n).filter(|&j| j != i).any(|j| {
                    let (mj, pj, _) = r.shapes[j];
                    minkowski::query::intersects(si, &pi, &scene.shapes[kind_of_mesh(mj)].1, &pj)
                });
                assert_eq!(ci == COLLIDING, touching, "{name}: object {i}");
                hits += touching as usize;
            }
            assert!(hits > 0, "{name}: some objects touch");
            if name != "seed000" {
                assert!(hits < n, "{name}: and some do not");
            }
        }
    }
}
