//! `minkowski scene`'s layouts (`minkowski::scene::Scene`) through the collision world:
//! seed 000's forced-overlap array, and N objects moving in a cube with a grid or a
//! dynamic-tree broad phase. Objects in contact take the collision colour; in the
//! forced-overlap layout every contact's normal is drawn at its point on A.
//!
//! Both draw their overlay for the objects meeting the slab |y| ≤ [`SLAB`] only (all
//! 10^4 would hide the scene). The grid scene draws the level-0 cells (side = the world's cell size, twice the
//! mean object size as in `minkowski scene`) that some object's box overlaps — the cells
//! the grid files objects under; the tree scene draws each object's box, the tree's
//! leaves before their fat margin (the world does not expose the tree's inner nodes).

use std::collections::HashSet;

use minkowski::scene::{Scene, SceneLayout};
use minkowski::world::{object_box, BroadPhaseKind, ObjectHandle, World, WorldOptions};
use minkowski::{Pose, Real, Vector};

use super::{
    CameraStart, Draw, SceneOptions, SceneStats, ViewerScene, CELLS, COLLIDING, FIELD, NORMAL,
};
use crate::mesh::{Detail, MeshId, MeshStore};
use crate::script::{FrameInput, Key};
use crate::ViewerError;

/// Half thickness of the horizontal slab whose objects' cells or boxes are drawn
/// (length units).
pub const SLAB: Real = 1.0;

/// What the scene draws of its broad phase.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Overlay {
    /// Nothing.
    None,
    /// Occupied level-0 grid cells of this side.
    Cells(Real),
    /// The objects' boxes.
    Boxes,
}

/// A moving `minkowski::scene::Scene` in a collision world.
pub struct LayoutScene {
    scene: Scene,
    world: World,
    handles: Vec<ObjectHandle>,
    meshes: Vec<MeshId>,
    colliding: Vec<bool>,
    moves: Vec<(ObjectHandle, Pose)>,
    overlay: Overlay,
    show_overlay: bool,
    draw_normals: bool,
    camera: CameraStart,
    error: Option<String>,
}

/// Seed 000's forced-overlap layout with 4 copies of each seed mesh.
///
/// # Errors
/// A built-in shape refused, or the world full (neither happens).
pub fn build_seed000(
    options: &SceneOptions,
    store: &mut MeshStore,
) -> Result<Box<dyn ViewerScene>, ViewerError> {
    let scene = Scene::new(SceneLayout::Seed000 { array: 4 }, options.seed)?;
    let camera = CameraStart {
        position: Vector::new(0.0, 2.5, 6.5),
        target: Vector::ZERO,
    };
    let s = LayoutScene::new(
        scene,
        BroadPhaseKind::SweepAndPrune,
        Overlay::None,
        true,
        camera,
        Detail::Fine,
        store,
    )?;
    Ok(Box::new(s))
}

fn crowd(
    options: &SceneOptions,
    store: &mut MeshStore,
    tree: bool,
) -> Result<Box<dyn ViewerScene>, ViewerError> {
    let scene = Scene::new(
        SceneLayout::Random {
            objects: options.objects,
        },
        options.seed,
    )?;
    let cell = (2.0 * scene.mean_side) as Real;
    let (kind, overlay) = if tree {
        (BroadPhaseKind::Tree { fat_factor: 0.1 }, Overlay::Boxes)
    } else {
        (
            BroadPhaseKind::Grid { cell_size: cell },
            Overlay::Cells(cell),
        )
    };
    let l = scene.side.max(4.0);
    let camera = CameraStart {
        position: Vector::new(0.4 * l, 0.75 * l, 1.45 * l),
        target: Vector::ZERO,
    };
    let s = LayoutScene::new(scene, kind, overlay, false, camera, Detail::Coarse, store)?;
    Ok(Box::new(s))
}

/// `--objects` moving objects in a grid broad phase.
///
/// # Errors
/// As [`build_seed000`].
pub fn build_crowd_grid(
    options: &SceneOptions,
    store: &mut MeshStore,
) -> Result<Box<dyn ViewerScene>, ViewerError> {
    crowd(options, store, false)
}

/// `--objects` moving objects in a dynamic AABB tree.
///
/// # Errors
/// As [`build_seed000`].
pub fn build_crowd_tree(
    options: &SceneOptions,
    store: &mut MeshStore,
) -> Result<Box<dyn ViewerScene>, ViewerError> {
    crowd(options, store, true)
}

impl LayoutScene {
    #[allow(
        clippy::too_many_arguments,
        reason = "one private constructor for the layouts"
    )]
    fn new(
        scene: Scene,
        kind: BroadPhaseKind,
        overlay: Overlay,
        draw_normals: bool,
        camera: CameraStart,
        detail: Detail,
        store: &mut MeshStore,
    ) -> Result<LayoutScene, ViewerError> {
        let mut world = World::new(kind, WorldOptions::default());
        let handles = scene
            .insert_into(&mut world)
            .map_err(|(i, e)| ViewerError::World(format!("object {i}: {e}")))?;
        let meshes = scene
            .shapes
            .iter()
            .map(|(_, s)| store.add_shape(s, detail))
            .collect::<Result<Vec<_>, _>>()?;
        let mut s = LayoutScene {
            colliding: vec![false; handles.len()],
            scene,
            world,
            handles,
            meshes,
            moves: Vec::new(),
            overlay,
            show_overlay: overlay != Overlay::None,
            draw_normals,
            camera,
            error: None,
        };
        s.world.update();
        s.mark();
        Ok(s)
    }

    fn mark(&mut self) {
        self.colliding.iter_mut().for_each(|c| *c = false);
        for c in self.world.contacts() {
            for h in [c.a, c.b] {
                if let Some(x) = self.colliding.get_mut(h.index() as usize) {
                    *x = true;
                }
            }
        }
    }
}

impl ViewerScene for LayoutScene {
    fn update(&mut self, input: &FrameInput, _dt: Real) {
        if input.was_pressed(Key::B) {
            self.show_overlay = !self.show_overlay;
        }
        self.scene.step();
        self.scene.moves(&self.handles, &mut self.moves);
        if let Err((i, e)) = self.world.set_poses(&self.moves) {
            self.error = Some(format!("move {i}: {e}"));
        }
        self.world.update();
        self.mark();
    }

    fn draw(&self, out: &mut dyn Draw) {
        for (i, o) in self.scene.objects.iter().enumerate() {
            let c = if self.colliding[i] { COLLIDING } else { FIELD };
            out.shape(self.meshes[o.shape], &o.pose, c);
        }
        if self.draw_normals {
            for c in self.world.contacts() {
                if let Some(k) = c.contact {
                    out.line(k.point_a, k.point_a + k.normal * 0.5, NORMAL);
                }
            }
        }
        if !self.show_overlay {
            return;
        }
        let boxes = self.scene.objects.iter().filter_map(|o| {
            object_box(&self.scene.shapes[o.shape].1.local_aabb(), &o.pose, 0.0).ok()
        });
        match self.overlay {
            Overlay::None => {}
            Overlay::Boxes => boxes.for_each(|b| out.wire_box(b.mins, b.maxs, CELLS)),
            Overlay::Cells(side) => {
                let mut cells = HashSet::new();
                for b in boxes {
                    let lo = (b.mins / side).floor();
                    let hi = (b.maxs / side).floor();
                    for x in lo.x as i64..=hi.x as i64 {
                        for y in lo.y as i64..=hi.y as i64 {
                            for z in lo.z as i64..=hi.z as i64 {
                                cells.insert((x, y, z));
                            }
                        }
                    }
                }
                for (x, y, z) in cells {
                    let mins = Vector::new(x as Real, y as Real, z as Real) * side;
                    out.wire_box(mins, mins + Vector::splat(side), CELLS);
                }
            }
        }
    }

    fn stats(&self) -> SceneStats {
        let t = self.world.timings();
        SceneStats {
            broad_ms: t.broad_ms,
            narrow_ms: t.narrow_ms,
            pairs: t.pairs,
            contacts: self.world.contacts().len(),
            step_ms: 0.0,
        }
    }

    fn hud(&self, lines: &mut Vec<String>) {
        let side = if self.scene.side > 0.0 {
            format!(", in a cube of side {:.1}", self.scene.side)
        } else {
            String::new()
        };
        lines.push(format!(
            "{} objects{side}; B: broad-phase overlay (objects meeting |y| <= {SLAB}) {}",
            self.handles.len(),
            match (self.overlay, self.show_overlay) {
                (Overlay::None, _) => "(none here)",
                (_, true) => "on",
                (_, false) => "off",
            }
        ));
        if let Some(e) = &self.error {
            lines.push(format!("world refused a move: {e}"));
        }
    }

    fn keys(&self) -> &'static str {
        "B broad-phase cells or boxes"
    }

    fn camera(&self) -> CameraStart {
        self.camera
    }
}
