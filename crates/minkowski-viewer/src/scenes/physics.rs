//! The dynamics crate's scenes (`minkowski_dynamics::scenes`, the scenes of
//! `minkowski sim`): the pyramid, the card house, the tumbler, the stack, the high mass
//! ratio, the friction ramp and the large pyramid, built by
//! [`minkowski_dynamics::scenes::build`] and stepped by its world.
//!
//! Each frame advances the world by one fixed step of the scene's `dt` (1/60 s),
//! whatever the frame took: below 60 frames per second the scene runs in slow motion,
//! and a scripted run gives the same pictures on any machine. Space pauses and N steps
//! once (the window's keys).
//!
//! Bodies are drawn lit per face: dynamic bodies awake in [`BODY`], asleep in
//! [`ASLEEP`], kinematic ones in [`KINEMATIC`] — the tumbler's drum, whose front wall
//! (the part facing +z, towards the starting camera) is drawn as edges only, so that
//! its contents can be seen. Half-spaces are drawn as a square of [`GROUND_SIDE`], a
//! heightfield or triangle mesh as its triangles.
//!
//! `C` draws the contact points (white) and normals (yellow). The dynamics world keeps
//! its manifolds to itself (no public accessor), so the viewer asks the dynamics
//! crate's own narrow phase ([`minkowski_dynamics::contact_manifold`]) for the
//! manifolds of the drawn poses, candidates from its sweep and prune: the same
//! functions the step calls, after the step rather than before it, kept to points no
//! more than [`CONTACT_SHOWN`] apart (the world's speculative points farther out are
//! left out).

use std::time::Instant;

use minkowski::query::compound::Collider;
use minkowski::shape::{Shape, StaticShape};
use minkowski::{Pose, Real, Vector};
use minkowski_dynamics::contact_manifold::{body_pair, static_pair};
use minkowski_dynamics::scenes::{self as dynamics_scenes, Scene};
use minkowski_dynamics::world::{sweep_and_prune, StepStats};
use minkowski_dynamics::BodyKind;

use super::{
    CameraStart, Draw, Rgb, SceneOptions, SceneStats, ViewerScene, ASLEEP, BODY, GROUND, KINEMATIC,
    NORMAL, TERRAIN, WITNESS,
};
use crate::mesh::{Detail, FaceMesh, MeshId, MeshStore};
use crate::script::{FrameInput, Key};
use crate::ViewerError;

/// Side of the square a half-space is drawn as (length), at least: four times the
/// bodies' largest horizontal distance from the origin when that is more.
pub const GROUND_SIDE: Real = 80.0;
/// Contact points drawn with `C`: at most this far apart along the normal (length;
/// negative distances are penetrations).
pub const CONTACT_SHOWN: Real = 0.01;
/// Length of a drawn contact normal.
const NORMAL_LENGTH: Real = 0.35;

/// One drawn piece of a body: a mesh at a pose in the collider's frame, or a cuboid
/// part drawn as its edges (its local box).
#[derive(Debug, Clone, Copy)]
struct Piece {
    mesh: MeshId,
    local: Pose,
    edges: Option<(Vector, Vector)>,
}

/// A contact point to draw: the middle of its two witnesses and the normal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactMark {
    /// The middle of the two witness points (world frame).
    pub point: Vector,
    /// The manifold's unit normal (from A to B).
    pub normal: Vector,
    /// Signed separation (length; negative: penetration).
    pub distance: Real,
}

/// A dynamics scene in the viewer (see the module notes).
pub struct PhysicsScene {
    scene: Scene,
    pieces: Vec<Vec<Piece>>,
    statics: Vec<(MeshId, Rgb)>,
    show_contacts: bool,
    contacts: Vec<ContactMark>,
    last: StepStats,
    step_ms: f64,
    error: Option<String>,
    camera: CameraStart,
}

/// Where the camera starts for each scene: (dynamics name, eye, target).
const CAMERAS: &[(&str, [Real; 3], [Real; 3])] = &[
    ("pyramid", [8.0, 11.0, 42.0], [0.0, 9.5, 0.0]),
    ("large_pyramid", [40.0, 55.0, 200.0], [0.0, 50.0, 0.0]),
    ("card_house", [1.4, 2.0, 6.2], [0.0, 1.35, 0.0]),
    ("tumbler", [0.0, 6.5, 13.5], [0.0, 3.6, 0.0]),
    ("stack", [9.0, 10.0, 44.0], [0.0, 10.5, 0.0]),
    ("mass_ratio", [3.0, 3.0, 7.0], [0.0, 1.4, 0.0]),
    ("friction_ramp", [-3.0, 7.0, 16.0], [0.5, 0.5, 3.75]),
];

fn boxed(s: PhysicsScene) -> Box<dyn ViewerScene> {
    Box::new(s)
}

macro_rules! scene_builder {
    ($(#[$doc:meta])* $fn_name:ident, $name:literal) => {
        $(#[$doc])*
        ///
        /// # Errors
        /// As [`PhysicsScene::named`].
        pub fn $fn_name(
            _options: &SceneOptions,
            store: &mut MeshStore,
        ) -> Result<Box<dyn ViewerScene>, ViewerError> {
            PhysicsScene::named($name, store).map(boxed)
        }
    };
}

scene_builder!(
    /// `minkowski sim`'s pyramid: 20 rows of unit boxes (210) on the ground.
    build_pyramid,
    "pyramid"
);
scene_builder!(
    /// `minkowski sim`'s large pyramid: 100 rows (5050 boxes).
    build_large_pyramid,
    "large_pyramid"
);
scene_builder!(
    /// The card house: three storeys of leaning card pairs with flat cards across.
    build_card_house,
    "card_house"
);
scene_builder!(
    /// The tumbler: 200 small boxes and balls in a turning hollow kinematic box.
    build_tumbler,
    "tumbler"
);
scene_builder!(
    /// A vertical stack of 20 unit boxes.
    build_stack,
    "stack"
);
scene_builder!(
    /// Three boxes of density 1, 10 and 100, the heaviest on top.
    build_mass_ratio,
    "mass_ratio"
);
scene_builder!(
    /// Six boxes on a 30° ramp with friction 0 to 0.7.
    build_friction_ramp,
    "friction_ramp"
);

/// The meshes already registered, by shape and detail (bodies share them).
#[derive(Default)]
struct MeshCache {
    known: Vec<(Shape, Detail, MeshId)>,
}

impl MeshCache {
    fn mesh(
        &mut self,
        shape: &Shape,
        detail: Detail,
        store: &mut MeshStore,
    ) -> Result<MeshId, ViewerError> {
        if let Some((_, _, id)) = self
            .known
            .iter()
            .find(|(s, d, _)| *d == detail && s == shape)
        {
            return Ok(*id);
        }
        let id = store.add_shape(shape, detail)?;
        self.known.push((shape.clone(), detail, id));
        Ok(id)
    }
}

/// The drawn mesh of static geometry in the world frame (a half-space as a square of
/// side `side`).
fn static_mesh(shape: &StaticShape, pose: &Pose, side: Real) -> FaceMesh {
    let local = match shape {
        StaticShape::HalfSpace(h) => FaceMesh::square(h.normal() * h.offset(), h.normal(), side),
        StaticShape::HeightField(f) => FaceMesh::of_heightfield(f),
        StaticShape::TriMesh(m) => FaceMesh::of_trimesh(m),
    };
    FaceMesh {
        triangles: local
            .triangles
            .iter()
            .map(|t| t.map(|p| pose.transform_point(p)))
            .collect(),
        normals: local
            .normals
            .iter()
            .map(|n| pose.transform_vector(*n))
            .collect(),
    }
}

impl PhysicsScene {
    /// The dynamics scene `name` ([`minkowski_dynamics::scenes::SCENE_NAMES`]) on
    /// rayon's pool (its step is the same for any thread count), its meshes registered
    /// in `store`, the camera from the viewer's table (or a default).
    ///
    /// # Errors
    /// [`ViewerError::World`] if the dynamics crate refuses the scene, or
    /// [`ViewerError::Mesh`] for a body without a solid surface (neither happens for
    /// its scenes).
    pub fn named(name: &str, store: &mut MeshStore) -> Result<PhysicsScene, ViewerError> {
        let scene = dynamics_scenes::build(name, 0)
            .map_err(|e| ViewerError::World(format!("dynamics scene {name}: {e}")))?;
        let (eye, target) = CAMERAS
            .iter()
            .find(|c| c.0 == name)
            .map_or(([0.0, 8.0, 25.0], [0.0, 2.0, 0.0]), |c| (c.1, c.2));
        let camera = CameraStart {
            position: Vector::from_array(eye),
            target: Vector::from_array(target),
        };
        PhysicsScene::new(scene, camera, store)
    }

    /// Wraps a built dynamics scene, registering its bodies' and statics' meshes.
    ///
    /// # Errors
    /// [`ViewerError::Mesh`] for a body shape without a solid surface.
    pub fn new(
        scene: Scene,
        camera: CameraStart,
        store: &mut MeshStore,
    ) -> Result<PhysicsScene, ViewerError> {
        let bodies = scene.world.bodies();
        // Curved bodies: finely sampled when few, less when hundreds.
        let detail = if bodies.len() > 50 {
            Detail::Medium
        } else {
            Detail::Fine
        };
        let mut cache = MeshCache::default();
        let mut pieces = Vec::with_capacity(bodies.len());
        for b in bodies {
            let mut mine = Vec::new();
            match b.collider() {
                Collider::Convex(s) => mine.push(Piece {
                    mesh: cache.mesh(s, detail, store)?,
                    local: Pose::IDENTITY,
                    edges: None,
                }),
                Collider::Compound(c) => {
                    for (local, s) in c.parts() {
                        // A kinematic container's part facing the camera (+z) is drawn
                        // as its edges, so that what it holds is seen.
                        let offset = local.translation();
                        let front = b.kind() == BodyKind::Kinematic
                            && offset.z > 0.7 * offset.length()
                            && offset.length() > 0.0;
                        let bx = s.local_aabb();
                        mine.push(Piece {
                            mesh: cache.mesh(s, detail, store)?,
                            local: *local,
                            edges: front.then_some((bx.mins, bx.maxs)),
                        });
                    }
                }
            }
            pieces.push(mine);
        }
        let reach = bodies
            .iter()
            .map(|b| Vector::new(b.position().x, 0.0, b.position().z).length())
            .fold(0.0, Real::max);
        let side = GROUND_SIDE.max(4.0 * reach);
        let statics = scene
            .world
            .statics()
            .iter()
            .map(|g| {
                let colour = match g.shape {
                    StaticShape::HalfSpace(_) => GROUND,
                    _ => TERRAIN,
                };
                (store.add_mesh(static_mesh(&g.shape, &g.pose, side)), colour)
            })
            .collect();
        Ok(PhysicsScene {
            scene,
            pieces,
            statics,
            show_contacts: false,
            contacts: Vec::new(),
            last: StepStats::default(),
            step_ms: 0.0,
            error: None,
            camera,
        })
    }

    /// The contact points shown with `C` at the bodies' current poses (module notes).
    pub fn contact_marks(&self) -> Vec<ContactMark> {
        let world = &self.scene.world;
        let bodies = world.bodies();
        let margin = CONTACT_SHOWN;
        let mut poses = Vec::with_capacity(bodies.len());
        let mut boxes = Vec::with_capacity(bodies.len());
        let mut index = Vec::with_capacity(bodies.len());
        for (i, b) in bodies.iter().enumerate() {
            if let Ok(p) = b.collider_pose() {
                boxes.push(b.collider().local_aabb().transformed(&p).loosened(margin));
                poses.push(p);
                index.push(i);
            }
        }
        let mut out = Vec::new();
        let mut keep = |ms: Vec<minkowski_dynamics::contact_manifold::PairManifold>| {
            for pm in ms {
                let m = pm.manifold;
                for p in m.points() {
                    if p.distance <= margin {
                        out.push(ContactMark {
                            point: 0.5 * (p.point_a + p.point_b),
                            normal: m.normal,
                            distance: p.distance,
                        });
                    }
                }
            }
        };
        for (i, j) in sweep_and_prune(&boxes) {
            let (a, b) = (&bodies[index[i]], &bodies[index[j]]);
            if !(a.is_dynamic() || b.is_dynamic()) {
                continue;
            }
            keep(body_pair(
                a.collider(),
                &poses[i],
                b.collider(),
                &poses[j],
                margin,
            ));
        }
        for g in world.statics() {
            for (k, &i) in index.iter().enumerate() {
                if bodies[i].is_dynamic() {
                    keep(static_pair(
                        &g.shape,
                        &g.pose,
                        bodies[i].collider(),
                        &poses[k],
                        margin,
                    ));
                }
            }
        }
        out
    }

    /// The bodies: (dynamic, asleep) counts.
    fn census(&self) -> (usize, usize) {
        let dynamic = self.scene.world.bodies().iter().filter(|b| b.is_dynamic());
        let (mut n, mut asleep) = (0, 0);
        for b in dynamic {
            n += 1;
            asleep += b.is_asleep() as usize;
        }
        (n, asleep)
    }

    /// The wrapped dynamics scene.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The last step's figures.
    pub fn last_step(&self) -> &StepStats {
        &self.last
    }
}

impl ViewerScene for PhysicsScene {
    fn update(&mut self, input: &FrameInput, _dt: Real) {
        if input.was_pressed(Key::C) {
            self.show_contacts = !self.show_contacts;
        }
        self.scene.before_step();
        let t = Instant::now();
        match self.scene.world.step(self.scene.dt) {
            Ok(s) => self.last = s,
            Err(e) => self.error = Some(e.to_string()),
        }
        self.step_ms = t.elapsed().as_secs_f64() * 1e3;
        self.contacts = if self.show_contacts {
            self.contact_marks()
        } else {
            Vec::new()
        };
    }

    fn draw(&self, out: &mut dyn Draw) {
        let identity = Pose::IDENTITY;
        for &(m, colour) in &self.statics {
            out.shape(m, &identity, colour);
        }
        for (b, pieces) in self.scene.world.bodies().iter().zip(&self.pieces) {
            let Ok(pose) = b.collider_pose() else {
                continue;
            };
            let colour = match b.kind() {
                BodyKind::Dynamic if b.is_asleep() => ASLEEP,
                BodyKind::Dynamic => BODY,
                BodyKind::Kinematic => KINEMATIC,
                BodyKind::Static => GROUND,
            };
            for p in pieces {
                let world = pose.mul(&p.local);
                match p.edges {
                    None => out.shape(p.mesh, &world, colour),
                    Some((lo, hi)) => {
                        let corner = |i: usize| {
                            world.transform_point(Vector::new(
                                if i & 1 == 0 { lo.x } else { hi.x },
                                if i & 2 == 0 { lo.y } else { hi.y },
                                if i & 4 == 0 { lo.z } else { hi.z },
                            ))
                        };
                        for i in 0..8usize {
                            for bit in [1usize, 2, 4] {
                                if i & bit == 0 {
                                    out.line(corner(i), corner(i | bit), colour);
                                }
                            }
                        }
                    }
                }
            }
        }
        for c in &self.contacts {
            out.line(c.point, c.point + c.normal * NORMAL_LENGTH, NORMAL);
            out.marker(c.point, 0.05, WITNESS);
        }
    }

    fn stats(&self) -> SceneStats {
        SceneStats {
            broad_ms: 0.0,
            narrow_ms: 0.0,
            pairs: self.last.manifolds,
            contacts: self.last.points,
            step_ms: self.step_ms,
        }
    }

    fn hud(&self, lines: &mut Vec<String>) {
        let (n, asleep) = self.census();
        lines.push(format!(
            "{}: step {}, {n} dynamic bodies ({} awake, {asleep} asleep), max penetration {:.4}",
            self.scene.name,
            self.scene.world.steps(),
            n - asleep,
            self.last.max_penetration,
        ));
        lines.push(format!(
            "C contacts: {}   hash {:016x}   drift {:.3}   one 1/60 s step a frame",
            if self.show_contacts {
                format!("{} points", self.contacts.len())
            } else {
                "off".to_string()
            },
            self.last.hash,
            self.scene.max_drift(),
        ));
        if let Some(e) = &self.error {
            lines.push(format!("the world refused a step: {e}"));
        }
    }

    fn keys(&self) -> &'static str {
        "C contact points and normals"
    }

    fn camera(&self) -> CameraStart {
        self.camera
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenes::Rgb;

    const DT: Real = 1.0 / 60.0;

    #[derive(Default)]
    struct Record {
        shapes: Vec<(MeshId, Pose, Rgb)>,
        lines: usize,
        markers: usize,
    }

    impl Draw for Record {
        fn shape(&mut self, m: MeshId, p: &Pose, c: Rgb) {
            self.shapes.push((m, *p, c));
        }
        fn line(&mut self, _: Vector, _: Vector, _: Rgb) {
            self.lines += 1;
        }
        fn wire_box(&mut self, _: Vector, _: Vector, _: Rgb) {}
        fn marker(&mut self, _: Vector, _: Real, _: Rgb) {
            self.markers += 1;
        }
    }

    fn scene(name: &str) -> PhysicsScene {
        PhysicsScene::named(name, &mut MeshStore::new()).unwrap_or_else(|e| panic!("{e}"))
    }

    fn press(k: Key) -> FrameInput {
        FrameInput {
            pressed: vec![k],
            held: vec![k],
            ..FrameInput::default()
        }
    }

    fn drawn(s: &PhysicsScene) -> Record {
        let mut r = Record::default();
        s.draw(&mut r);
        r
    }

    /// The pyramid: 210 boxes and the ground drawn; awake (orange) at first, all asleep
    /// (lavender) by two seconds, the colours following the bodies' own flags; the top
    /// box within 1 cm of where it started. With `C` the contact points shown are those
    /// of a pyramid at rest, checked against its analytic layout: normals ±Y on the box
    /// interfaces `y = k` (k = 0 … 19, the ground included, every one present) or ±X
    /// between neighbours of a row, at a face `x = centre ± 0.5` of a box of that row
    /// (of either row, for a point on the edge where two rows meet).
    #[test]
    fn the_pyramid_stands_sleeps_and_shows_its_resting_contacts() {
        let mut s = scene("pyramid");
        let r = drawn(&s);
        assert_eq!(r.shapes.len(), 211);
        assert_eq!(r.shapes[0].2, GROUND);
        assert!(r.shapes[1..].iter().all(|x| x.2 == BODY));
        for _ in 0..120 {
            s.update(&FrameInput::default(), DT);
        }
        let r = drawn(&s);
        for (b, (_, _, c)) in s.scene().world.bodies().iter().zip(&r.shapes[1..]) {
            assert_eq!(*c == ASLEEP, b.is_asleep());
        }
        assert!(r.shapes[1..].iter().all(|x| x.2 == ASLEEP), "asleep by 2 s");
        let top = s.scene().world.bodies().len() - 1;
        let moved = s.scene().world.bodies()[top].position() - s.scene().start[top];
        assert!(moved.length() < 0.01, "top box moved {moved}");
        assert_eq!(r.markers, 0, "no contacts drawn before C");

        s.update(&press(Key::C), DT);
        let marks = s.contact_marks();
        let r = drawn(&s);
        assert_eq!(r.markers, marks.len());
        assert!(marks.len() > 400, "{}", marks.len());
        let mut levels = [false; 20];
        for m in &marks {
            assert!(m.distance.abs() <= CONTACT_SHOWN + 1e-4, "{m:?}");
            let n = m.normal;
            if n.y.abs() > 0.999 {
                let k = m.point.y.round();
                assert!(
                    (m.point.y - k).abs() < 0.01 && (0.0..20.0).contains(&k),
                    "{m:?}"
                );
                levels[k as usize] = true;
            } else {
                assert!(n.x.abs() > 0.999, "{m:?}");
                // The row(s) the point's height is in (a point on a row's top edge
                // is on both).
                let rows = [m.point.y - 0.02, m.point.y + 0.02]
                    .map(|y| y.floor().clamp(0.0, 19.0) as usize);
                let near = rows.iter().any(|&row| {
                    let count = 20 - row;
                    (0..count)
                        .map(|i| i as Real - 0.5 * (count as Real - 1.0))
                        .flat_map(|c| [c - 0.5, c + 0.5])
                        .any(|f| (f - m.point.x).abs() < 0.01)
                });
                assert!(near, "{m:?}");
            }
        }
        assert!(
            levels.iter().all(|&l| l),
            "every interface touches: {levels:?}"
        );
        s.update(&press(Key::C), DT);
        assert_eq!(drawn(&s).markers, 0, "C again hides them");
    }

    /// The tumbler: 200 bodies and five solid walls drawn, the wall facing the camera
    /// as its 12 edges; the drum (kinematic) in its own colour; it turns.
    #[test]
    fn the_tumbler_draws_its_front_wall_as_edges() {
        let mut s = scene("tumbler");
        let r = drawn(&s);
        assert_eq!(r.lines, 12);
        assert_eq!(r.shapes.iter().filter(|x| x.2 == KINEMATIC).count(), 5);
        assert_eq!(r.shapes.iter().filter(|x| x.2 == BODY).count(), 200);
        let before = s.scene().world.bodies()[0].rotation();
        for _ in 0..30 {
            s.update(&FrameInput::default(), DT);
        }
        let after = s.scene().world.bodies()[0].rotation();
        // 0.5 rad/s for half a second.
        assert!((before.angle_between(after) - 0.25).abs() < 1e-3);
        assert!(s.stats().step_ms > 0.0);
    }
}
