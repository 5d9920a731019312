//! Seed 000's demo, finished: a player shape among a field of shapes, moved with the
//! arrow keys and Q/E, switched with 1–5 (cube, sphere, cone, cylinder from the seed's
//! OBJ meshes, and a capsule); shapes in contact turn the collision colour. Beyond the
//! seed: the selected pair's contact (normal, signed distance or depth, the two closest
//! or deepest points) is drawn, and the player is swept and slides along what it meets
//! ([`crate::player`]) instead of passing through — `G` turns that off (ghost mode,
//! the seed's behaviour) to show penetration depths.
//!
//! `J` shows GJK's iterations on the selected pair (field shape A, player B; the run of
//! [`gjk::distance_traced`]) and `K` steps through them: the step's simplex of the
//! Minkowski difference `A ⊖ B` (magenta points and edges), its closest point to the
//! origin `v` (white) and the step's search direction (yellow), drawn around a marked
//! origin at [`GJK_INSET`] (the difference's vectors along the world axes, scaled so
//! that the trace's furthest point is drawn [`GJK_RADIUS`] from that origin), with a
//! HUD line for the step.

use std::time::Instant;

use minkowski::query::gjk::{self, GjkOptions, GjkTrace};
use minkowski::query::{self, Contact, QueryOptions};
use minkowski::shape::{tessellation, Capsule, ConvexPolyhedron, Shape};
use minkowski::{Pose, Real, Rotation, Vector};

use super::{
    CameraStart, Draw, SceneOptions, SceneStats, ViewerScene, COLLIDING, FIELD, NORMAL, PLAYER,
    SIMPLEX, WITNESS,
};
use crate::mesh::{Detail, MeshId, MeshStore};
use crate::player::{move_and_slide, Obstacle, CONTACT_DISTANCE};
use crate::script::{FrameInput, Key};
use crate::ViewerError;

/// The player's speed (length units per second).
pub const SPEED: Real = 3.0;
/// The player's size relative to the field's shapes.
pub const PLAYER_SCALE: Real = 0.75;
/// Where the player starts: in front of the field's centre cube.
pub const PLAYER_START: Vector = Vector::new(0.0, 0.0, 5.0);

/// Where the origin of the Minkowski difference is drawn for the GJK trace (world
/// point, right of the player and in front of the field as seen from the start camera).
pub const GJK_INSET: Vector = Vector::new(4.0, -0.6, 5.5);
/// How far from [`GJK_INSET`] the trace's furthest point (of any step's simplex, `v`
/// or support point) is drawn (world length): the drawing's scale is set per trace.
pub const GJK_RADIUS: Real = 1.4;

/// The five kinds, in the order of keys 1–5.
const KINDS: [&str; 5] = ["cube", "sphere", "cone", "cylinder", "capsule"];

struct Body {
    kind: usize,
    pose: Pose,
}

/// The demo scene.
pub struct Demo {
    /// Field shapes by kind (index into [`KINDS`]) and their meshes.
    shapes: Vec<Shape>,
    meshes: Vec<MeshId>,
    players: Vec<Shape>,
    player_meshes: Vec<MeshId>,
    field: Vec<Body>,
    player_kind: usize,
    position: Vector,
    ghost: bool,
    /// `None`: the nearest shape; `Some(i)`: field shape `i` (Tab cycles).
    selected: Option<usize>,
    contacts: Vec<Contact>,
    /// The GJK trace of the shown pair while `J` shows it, and the step shown (`K`).
    gjk: Option<GjkTrace>,
    gjk_shown: bool,
    gjk_step: usize,
    stats: SceneStats,
    source: &'static str,
    options: QueryOptions,
}

fn seed_meshes(models: &std::path::Path) -> (Vec<Shape>, &'static str) {
    let from_files: Result<Vec<Shape>, _> = ["cube", "sphere", "cone", "cylinder"]
        .iter()
        .map(|n| ConvexPolyhedron::from_obj(models.join(format!("{n}.obj"))).map(Shape::from))
        .collect();
    if let Ok(v) = from_files {
        return (v, "examples/models/*.obj");
    }
    // The same point sets, rebuilt by the library (when the OBJ files are not at hand).
    let by_name = tessellation::seed000_shapes();
    let v = ["cube", "sphere", "cone", "cylinder"]
        .iter()
        .filter_map(|n| by_name.iter().find(|(m, _)| m == n))
        .filter_map(|(_, p)| ConvexPolyhedron::new(p.clone()).ok().map(Shape::from))
        .collect();
    (v, "built-in tessellation (OBJ files not found)")
}

/// Builds the demo (see the module notes).
///
/// # Errors
/// [`ViewerError::Shape`], [`ViewerError::Pose`] or [`ViewerError::Mesh`] if a built-in
/// shape or pose is refused (a bug).
pub fn build(
    options: &SceneOptions,
    store: &mut MeshStore,
) -> Result<Box<dyn super::ViewerScene>, ViewerError> {
    let (mut shapes, source) = seed_meshes(&options.models);
    shapes.push(Capsule::new(0.6, 0.6)?.into());
    if shapes.len() != KINDS.len() {
        return Err(ViewerError::Mesh("seed meshes missing".into()));
    }
    let players = shapes
        .iter()
        .map(|s| s.scaled(PLAYER_SCALE))
        .collect::<Result<Vec<_>, _>>()?;
    let mut meshes = Vec::new();
    let mut player_meshes = Vec::new();
    for (s, p) in shapes.iter().zip(&players) {
        meshes.push(store.add_shape(s, Detail::Fine)?);
        player_meshes.push(store.add_shape(p, Detail::Fine)?);
    }
    let turn = |axis: Vector, angle: Real| Rotation::from_axis_angle(axis.normalize(), angle);
    // Front row: the five kinds upright, the cube straight ahead of the player; back
    // row: the same kinds turned.
    let mut field = Vec::new();
    for (i, kind) in [1, 2, 0, 3, 4].into_iter().enumerate() {
        let x = 3.5 * i as Real - 7.0;
        field.push(Body {
            kind,
            pose: Pose::new(Rotation::IDENTITY, Vector::new(x, 0.0, 0.0))?,
        });
    }
    for (i, kind) in [4, 0, 2, 3, 1].into_iter().enumerate() {
        let x = 3.5 * i as Real - 7.0;
        let r = turn(
            Vector::new(1.0, 0.3 * i as Real, 0.5),
            0.9 + 0.4 * i as Real,
        );
        field.push(Body {
            kind,
            pose: Pose::new(r, Vector::new(x, 0.5, -4.5))?,
        });
    }
    let mut demo = Demo {
        shapes,
        meshes,
        players,
        player_meshes,
        field,
        player_kind: 0,
        position: PLAYER_START,
        ghost: false,
        selected: None,
        contacts: Vec::new(),
        gjk: None,
        gjk_shown: false,
        gjk_step: 0,
        stats: SceneStats::default(),
        source,
        options: QueryOptions::default(),
    };
    demo.measure();
    Ok(Box::new(demo))
}

impl Demo {
    fn obstacles(&self) -> Vec<Obstacle<'_>> {
        self.field
            .iter()
            .map(|b| Obstacle {
                shape: &self.shapes[b.kind],
                pose: b.pose,
            })
            .collect()
    }

    fn player_pose(&self) -> Pose {
        Pose::from_translation(self.position).unwrap_or(Pose::IDENTITY)
    }

    /// The contact of every field shape (A) with the player (B).
    fn measure(&mut self) {
        let at = self.player_pose();
        let player = &self.players[self.player_kind];
        self.contacts = self
            .field
            .iter()
            .map(|b| query::contact(&self.shapes[b.kind], &b.pose, player, &at))
            .collect();
        self.gjk = None;
        if self.gjk_shown {
            if let Some(i) = self.shown_pair() {
                let b = &self.field[i];
                self.gjk = Some(gjk::distance_traced(
                    &self.shapes[b.kind],
                    &b.pose,
                    player,
                    &at,
                    &GjkOptions::default(),
                ));
            }
        }
    }

    /// The step of the trace shown (wrapping), with its number from 1 and the count.
    fn gjk_step(&self) -> Option<(&gjk::GjkStep, usize, usize)> {
        let t = self.gjk.as_ref()?;
        let n = t.steps.len();
        let i = self.gjk_step.checked_rem(n)?;
        Some((&t.steps[i], i + 1, n))
    }

    fn shown_pair(&self) -> Option<usize> {
        self.selected.or_else(|| {
            (0..self.contacts.len()).min_by(|&i, &j| {
                self.contacts[i]
                    .distance
                    .total_cmp(&self.contacts[j].distance)
            })
        })
    }

    fn colliding(&self, i: usize) -> bool {
        self.contacts
            .get(i)
            .is_some_and(|c| c.distance <= CONTACT_DISTANCE)
    }
}

impl ViewerScene for Demo {
    fn update(&mut self, input: &FrameInput, dt: Real) {
        for (k, key) in [Key::Key1, Key::Key2, Key::Key3, Key::Key4, Key::Key5]
            .into_iter()
            .enumerate()
        {
            if input.was_pressed(key) {
                self.player_kind = k;
            }
        }
        if input.was_pressed(Key::G) {
            self.ghost = !self.ghost;
        }
        if input.was_pressed(Key::J) {
            self.gjk_shown = !self.gjk_shown;
            self.gjk_step = 0;
        }
        if input.was_pressed(Key::K) {
            let n = self.gjk.as_ref().map_or(0, |t| t.steps.len());
            self.gjk_step = if n == 0 { 0 } else { (self.gjk_step + 1) % n };
        }
        if input.was_pressed(Key::Tab) {
            self.selected = match self.selected {
                None => Some(0),
                Some(i) if i + 1 < self.field.len() => Some(i + 1),
                Some(_) => None,
            };
        }
        let axis = |plus: Key, minus: Key| {
            (input.is_held(plus) as i32 - input.is_held(minus) as i32) as Real
        };
        let dir = Vector::new(
            axis(Key::Right, Key::Left),
            axis(Key::Q, Key::E),
            axis(Key::Down, Key::Up),
        );
        let motion = dir.normalize_or_zero() * SPEED * dt;
        let started = Instant::now();
        if self.ghost {
            self.position += motion;
        } else {
            let obstacles = self.obstacles();
            let out = move_and_slide(
                &self.players[self.player_kind],
                self.position,
                motion,
                &obstacles,
                &self.options,
            );
            self.position = out.position;
        }
        self.measure();
        self.stats = SceneStats {
            broad_ms: 0.0,
            narrow_ms: started.elapsed().as_secs_f64() * 1e3,
            pairs: self.field.len(),
            contacts: (0..self.field.len()).filter(|&i| self.colliding(i)).count(),
            step_ms: 0.0,
        };
    }

    fn draw(&self, out: &mut dyn Draw) {
        for (i, b) in self.field.iter().enumerate() {
            let c = if self.colliding(i) { COLLIDING } else { FIELD };
            out.shape(self.meshes[b.kind], &b.pose, c);
        }
        let any = (0..self.field.len()).any(|i| self.colliding(i));
        let pc = if any { COLLIDING } else { PLAYER };
        out.shape(
            self.player_meshes[self.player_kind],
            &self.player_pose(),
            pc,
        );
        if let Some(c) = self.shown_pair().and_then(|i| self.contacts.get(i)) {
            out.line(c.point_a, c.point_b, WITNESS);
            out.marker(c.point_a, 0.08, WITNESS);
            out.marker(c.point_b, 0.08, WITNESS);
            out.line(c.point_a, c.point_a + c.normal, NORMAL);
            out.marker(c.point_a + c.normal, 0.05, NORMAL);
        }
        if let (Some((s, _, _)), Some(t)) = (self.gjk_step(), self.gjk.as_ref()) {
            let far = t
                .steps
                .iter()
                .flat_map(|s| s.simplex.iter().chain([&s.v, &s.support]))
                .map(|p| p.length())
                .fold(0.0, Real::max);
            let scale = if far > 0.0 { GJK_RADIUS / far } else { 1.0 };
            let at = |p: Vector| GJK_INSET + p * scale;
            // The origin: a small white cross and marker.
            out.marker(GJK_INSET, 0.06, WITNESS);
            for axis in [Vector::X, Vector::Y, Vector::Z] {
                out.line(GJK_INSET - axis * 0.2, GJK_INSET + axis * 0.2, WITNESS);
            }
            for (k, &p) in s.simplex.iter().enumerate() {
                out.marker(at(p), 0.09, SIMPLEX);
                for &q in &s.simplex[k + 1..] {
                    out.line(at(p), at(q), SIMPLEX);
                }
            }
            // v, and the search direction (unit length on screen) from the origin.
            out.line(GJK_INSET, at(s.v), WITNESS);
            out.marker(at(s.v), 0.05, WITNESS);
            let d = s.direction.normalize_or_zero();
            out.line(GJK_INSET, GJK_INSET + d * 0.5, NORMAL);
            out.marker(GJK_INSET + d * 0.5, 0.05, NORMAL);
            // The new support point (it may have been dropped by the reduction).
            out.marker(at(s.support), 0.05, NORMAL);
        }
    }

    fn stats(&self) -> SceneStats {
        self.stats
    }

    fn hud(&self, lines: &mut Vec<String>) {
        lines.push(format!(
            "player: {} (1-5)  at ({:.2}, {:.2}, {:.2})  {}",
            KINDS[self.player_kind],
            self.position.x,
            self.position.y,
            self.position.z,
            if self.ghost {
                "GHOST: passes through (G)"
            } else {
                "swept, slides (G: ghost)"
            }
        ));
        if let Some(i) = self.shown_pair() {
            if let Some(c) = self.contacts.get(i) {
                let what = if c.distance < 0.0 {
                    format!("depth {:.3}", -c.distance)
                } else {
                    format!("distance {:.3}", c.distance)
                };
                lines.push(format!(
                    "pair ({}): {} #{i} - player: {what}, normal ({:.2}, {:.2}, {:.2}), {} via {}, {} it.",
                    if self.selected.is_some() { "Tab" } else { "nearest, Tab" },
                    KINDS[self.field[i].kind],
                    c.normal.x,
                    c.normal.y,
                    c.normal.z,
                    c.status.as_str(),
                    c.method.as_str(),
                    c.iterations
                ));
            }
        }
        if let Some((s, i, n)) = self.gjk_step() {
            lines.push(format!(
                "GJK step {i}/{n}: simplex {} points, |v| = {:.4}, lower bound {:.4} (J hide, K next)",
                s.simplex.len(),
                s.upper,
                s.lower
            ));
        } else if self.gjk_shown {
            lines.push("GJK: no pair selected (Tab)".into());
        }
        lines.push(format!("meshes: {}", self.source));
    }

    fn keys(&self) -> &'static str {
        "player: arrows, Q/E, 1-5   G ghost  Tab pair  J gjk  K gjk step"
    }

    fn camera(&self) -> CameraStart {
        CameraStart {
            position: Vector::new(0.0, 3.5, 11.5),
            target: Vector::new(0.0, 0.0, 4.0),
        }
    }
}
