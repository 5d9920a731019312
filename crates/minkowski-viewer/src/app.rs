//! The window: macroquad's loop, the free camera, drawing lit meshes, the HUD, live or
//! scripted input, screenshots and the timing report.

use std::time::Instant;

use macroquad::models::{draw_mesh, Mesh, Vertex};
use macroquad::prelude::{
    clear_background, draw_line_3d, draw_rectangle, draw_text, is_key_down, is_key_pressed,
    is_mouse_button_down, mouse_position, next_frame, screen_height, set_camera,
    set_default_camera, vec2, vec3, vec4, Camera, Camera3D, Color, KeyCode, Mat4, MouseButton,
    RenderPass,
};
use minkowski::{Pose, Real, Vector};

use minkowski_viewer::mesh::{MeshId, MeshStore};
use minkowski_viewer::scenes::{CameraStart, Draw, Rgb, SceneEntry, SceneStats, ViewerScene};
use minkowski_viewer::script::{FrameInput, Key, Script};
use minkowski_viewer::ViewerError;

/// The fixed step of scripted runs (seconds).
pub const SCRIPT_DT: Real = 1.0 / 60.0;

/// Background colour (dark grey: neither the player's blue nor the collision red).
pub const BACKGROUND: Rgb = [28, 30, 34];

/// Direction towards the light (world frame, unnormalised).
const LIGHT: Vector = Vector::new(0.45, 1.0, 0.7);
/// Ambient and diffuse parts of the per-face shading.
const AMBIENT: Real = 0.35;
const DIFFUSE: Real = 0.65;
/// Vertices per flush to macroquad (its draw calls are sized for more).
const FLUSH: usize = 60_000;

/// How the viewer is run.
pub struct RunOptions {
    /// The scene.
    pub scene: &'static SceneEntry,
    /// Scene options.
    pub scene_options: minkowski_viewer::scenes::SceneOptions,
    /// Scripted input; `None` for the keyboard and mouse.
    pub script: Option<Script>,
    /// Frames to run before exiting (scripted mode; `None`: until Escape).
    pub frames: Option<usize>,
    /// A screenshot of the last frame.
    pub screenshot: Option<String>,
    /// Print the frame-time report at exit.
    pub report: bool,
}

fn v3(v: Vector) -> macroquad::prelude::Vec3 {
    vec3(v.x, v.y, v.z)
}

fn color(c: Rgb) -> Color {
    Color::from_rgba(c[0], c[1], c[2], 255)
}

/// Draws scenes with macroquad: meshes lit per face into batched triangles, with
/// depth test; lines, boxes and markers are kept for an overlay drawn over them
/// (contact normals and closest points stay visible inside or behind shapes).
pub struct Renderer<'m> {
    store: &'m MeshStore,
    batch: Mesh,
    light: Vector,
    overlay_lines: Vec<(Vector, Vector, Rgb)>,
    overlay_markers: Vec<(Vector, Real, Rgb)>,
    /// Triangles drawn this frame.
    pub triangles: usize,
}

/// The scene's camera with the depth test off: for the overlay.
struct OverlayCamera(Mat4);

impl Camera for OverlayCamera {
    fn matrix(&self) -> Mat4 {
        self.0
    }
    fn depth_enabled(&self) -> bool {
        false
    }
    fn render_pass(&self) -> Option<RenderPass> {
        None
    }
    fn viewport(&self) -> Option<(i32, i32, i32, i32)> {
        None
    }
}

impl<'m> Renderer<'m> {
    fn new(store: &'m MeshStore) -> Self {
        Self {
            store,
            batch: Mesh {
                vertices: Vec::with_capacity(FLUSH + 3),
                indices: Vec::with_capacity(FLUSH + 3),
                texture: None,
            },
            light: LIGHT.normalize(),
            overlay_lines: Vec::new(),
            overlay_markers: Vec::new(),
            triangles: 0,
        }
    }

    /// Draws what is batched, then the overlay over it with `camera` minus its depth
    /// test.
    fn finish(&mut self, camera: &Camera3D) {
        self.flush();
        set_camera(&OverlayCamera(camera.matrix()));
        for (a, b, c) in std::mem::take(&mut self.overlay_lines) {
            draw_line_3d(v3(a), v3(b), color(c));
        }
        for (at, size, c) in std::mem::take(&mut self.overlay_markers) {
            self.cube(at, size, c);
        }
        self.flush();
    }

    fn cube(&mut self, at: Vector, size: Real, c: Rgb) {
        let h = size * 0.5;
        let col = [c[0], c[1], c[2], 255];
        let corner = |i: usize| {
            at + Vector::new(
                if i & 1 == 0 { -h } else { h },
                if i & 2 == 0 { -h } else { h },
                if i & 4 == 0 { -h } else { h },
            )
        };
        // Six faces, unlit: a marker reads as a flat dot.
        for (a, b, cc, d) in [
            (0, 1, 3, 2),
            (4, 6, 7, 5),
            (0, 4, 5, 1),
            (2, 3, 7, 6),
            (0, 2, 6, 4),
            (1, 5, 7, 3),
        ] {
            self.triangle([corner(a), corner(b), corner(cc)], col);
            self.triangle([corner(a), corner(cc), corner(d)], col);
        }
    }

    fn flush(&mut self) {
        if !self.batch.vertices.is_empty() {
            draw_mesh(&self.batch);
            self.batch.vertices.clear();
            self.batch.indices.clear();
        }
    }

    fn triangle(&mut self, t: [Vector; 3], c: [u8; 4]) {
        if self.batch.vertices.len() + 3 > FLUSH {
            self.flush();
        }
        let base = self.batch.vertices.len() as u16;
        for p in t {
            self.batch.vertices.push(Vertex {
                position: v3(p),
                uv: vec2(0.0, 0.0),
                color: c,
                normal: vec4(0.0, 0.0, 0.0, 0.0),
            });
        }
        self.batch.indices.extend([base, base + 1, base + 2]);
        self.triangles += 1;
    }

    fn lit(&self, normal: Vector, c: Rgb) -> [u8; 4] {
        let k = AMBIENT + DIFFUSE * normal.dot(self.light).max(0.0);
        let s = |x: u8| ((x as Real) * k).round().clamp(0.0, 255.0) as u8;
        [s(c[0]), s(c[1]), s(c[2]), 255]
    }
}

impl Draw for Renderer<'_> {
    fn shape(&mut self, mesh: MeshId, pose: &Pose, c: Rgb) {
        let store = self.store;
        let m = store.get(mesh);
        for (t, n) in m.triangles.iter().zip(&m.normals) {
            let world = t.map(|p| pose.transform_point(p));
            let col = self.lit(pose.transform_vector(*n), c);
            self.triangle(world, col);
        }
    }

    fn line(&mut self, a: Vector, b: Vector, c: Rgb) {
        self.overlay_lines.push((a, b, c));
    }

    fn wire_box(&mut self, lo: Vector, hi: Vector, c: Rgb) {
        let corner = |i: usize| {
            Vector::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            )
        };
        for i in 0..8usize {
            for bit in [1usize, 2, 4] {
                if i & bit == 0 {
                    self.overlay_lines.push((corner(i), corner(i | bit), c));
                }
            }
        }
    }

    fn marker(&mut self, at: Vector, size: Real, c: Rgb) {
        self.overlay_markers.push((at, size, c));
    }
}

/// The free camera: position, yaw and pitch.
#[derive(Debug, Clone, Copy)]
struct FreeCamera {
    position: Vector,
    yaw: Real,
    pitch: Real,
    speed: Real,
}

impl FreeCamera {
    fn new(start: CameraStart) -> Self {
        let d = (start.target - start.position).normalize_or(Vector::NEG_Z);
        Self {
            position: start.position,
            yaw: d.x.atan2(-d.z),
            pitch: d.y.clamp(-1.0, 1.0).asin(),
            speed: (start.target - start.position).length().max(1.0) * 0.6,
        }
    }

    fn forward(&self) -> Vector {
        Vector::new(
            self.pitch.cos() * self.yaw.sin(),
            self.pitch.sin(),
            -self.pitch.cos() * self.yaw.cos(),
        )
    }

    fn update(&mut self, input: &FrameInput, dt: Real) {
        let (dx, dy) = input.mouse;
        self.yaw += dx * 0.004;
        self.pitch = (self.pitch - dy * 0.004).clamp(-1.5, 1.5);
        let f = self.forward();
        let right = f.cross(Vector::Y).normalize_or_zero();
        let axis = |p: Key, m: Key| (input.is_held(p) as i32 - input.is_held(m) as i32) as Real;
        let v = f * axis(Key::W, Key::S)
            + right * axis(Key::D, Key::A)
            + Vector::Y * axis(Key::R, Key::F);
        self.position += v * self.speed * dt;
    }

    fn camera(&self) -> Camera3D {
        Camera3D {
            position: v3(self.position),
            target: v3(self.position + self.forward()),
            up: vec3(0.0, 1.0, 0.0),
            fovy: 50f32.to_radians(),
            ..Default::default()
        }
    }
}

fn key_code(k: Key) -> KeyCode {
    match k {
        Key::W => KeyCode::W,
        Key::A => KeyCode::A,
        Key::S => KeyCode::S,
        Key::D => KeyCode::D,
        Key::R => KeyCode::R,
        Key::F => KeyCode::F,
        Key::Q => KeyCode::Q,
        Key::E => KeyCode::E,
        Key::Up => KeyCode::Up,
        Key::Down => KeyCode::Down,
        Key::Left => KeyCode::Left,
        Key::Right => KeyCode::Right,
        Key::Key1 => KeyCode::Key1,
        Key::Key2 => KeyCode::Key2,
        Key::Key3 => KeyCode::Key3,
        Key::Key4 => KeyCode::Key4,
        Key::Key5 => KeyCode::Key5,
        Key::Space => KeyCode::Space,
        Key::N => KeyCode::N,
        Key::G => KeyCode::G,
        Key::B => KeyCode::B,
        Key::Tab => KeyCode::Tab,
        Key::H => KeyCode::H,
        Key::J => KeyCode::J,
        Key::K => KeyCode::K,
        Key::C => KeyCode::C,
        Key::V => KeyCode::V,
        Key::Escape => KeyCode::Escape,
    }
}

/// The keyboard and mouse of this frame (the mouse turns the camera while the right
/// button is down).
struct LiveInput {
    last_mouse: Option<(f32, f32)>,
}

impl LiveInput {
    fn read(&mut self) -> FrameInput {
        let mut input = FrameInput::default();
        for k in Key::ALL {
            if is_key_down(key_code(k)) {
                input.held.push(k);
            }
            if is_key_pressed(key_code(k)) {
                input.pressed.push(k);
            }
        }
        let now = mouse_position();
        if is_mouse_button_down(MouseButton::Right) {
            if let Some(last) = self.last_mouse {
                input.mouse = (now.0 - last.0, now.1 - last.1);
            }
            self.last_mouse = Some(now);
        } else {
            self.last_mouse = None;
        }
        input
    }
}

/// The frame-time figures of a run.
#[derive(Debug, Default)]
struct Timings {
    frame_ms: Vec<f64>,
    update_ms: Vec<f64>,
    draw_ms: Vec<f64>,
    stats: Vec<SceneStats>,
    triangles: usize,
}

fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return 0.0;
    }
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

impl Timings {
    fn report(&self, scene: &str) -> String {
        // The first frames build GL state and caches: left out of the figures.
        let skip = (self.frame_ms.len() / 10).min(10);
        let f = &self.frame_ms[skip.min(self.frame_ms.len())..];
        let st = &self.stats[skip.min(self.stats.len())..];
        let broad: Vec<f64> = st.iter().map(|s| s.broad_ms).collect();
        let narrow: Vec<f64> = st.iter().map(|s| s.narrow_ms).collect();
        let step: Vec<f64> = st.iter().map(|s| s.step_ms).collect();
        let last = self.stats.last().copied().unwrap_or_default();
        format!(
            "viewer report: scene {scene}, frames {}, frame ms median {:.2} (update {:.2}, draw {:.2}), broad ms {:.3}, narrow ms {:.3}, step ms {:.3}, pairs {}, contacts {}, triangles {}",
            self.frame_ms.len(),
            median(f),
            median(&self.update_ms[skip.min(self.update_ms.len())..]),
            median(&self.draw_ms[skip.min(self.draw_ms.len())..]),
            median(&broad),
            median(&narrow),
            median(&step),
            last.pairs,
            last.contacts,
            self.triangles,
        )
    }
}

/// Writes the current frame as an RGB PNG (top row first).
fn screenshot(path: &str) -> Result<(), ViewerError> {
    let img = macroquad::texture::get_screen_data();
    let (w, h) = (img.width as usize, img.height as usize);
    let mut rgb = Vec::with_capacity(w * h * 3);
    // The GL framebuffer is bottom-up.
    for y in (0..h).rev() {
        for x in 0..w {
            let i = (y * w + x) * 4;
            rgb.extend_from_slice(&img.bytes[i..i + 3]);
        }
    }
    let io = |source| ViewerError::Io {
        path: path.to_string(),
        source,
    };
    let file = std::fs::File::create(path).map_err(io)?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w as u32, h as u32);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let png_err = |e: png::EncodingError| ViewerError::Png {
        path: path.to_string(),
        what: e.to_string(),
    };
    let mut writer = enc.write_header().map_err(png_err)?;
    writer.write_image_data(&rgb).map_err(png_err)?;
    writer.finish().map_err(png_err)
}

fn hud(name: &str, scene: &dyn ViewerScene, frame_ms: f64, paused: bool, frame: usize) {
    let s = scene.stats();
    let mut lines = vec![
        format!(
            "minkowski-viewer: {name}   frame {frame}{}",
            if paused {
                "   PAUSED (Space; N: step)"
            } else {
                ""
            }
        ),
        if s.step_ms > 0.0 {
            format!(
                "frame {:.1} ms   step {:.2} ms   pairs {}   contacts {}",
                frame_ms, s.step_ms, s.pairs, s.contacts
            )
        } else {
            format!(
                "frame {:.1} ms   broad {:.2} ms   narrow {:.2} ms   pairs {}   contacts {}",
                frame_ms, s.broad_ms, s.narrow_ms, s.pairs, s.contacts
            )
        },
    ];
    scene.hud(&mut lines);
    let h = 20.0 * lines.len() as f32 + 8.0;
    draw_rectangle(0.0, 0.0, 900.0, h, Color::from_rgba(0, 0, 0, 150));
    for (i, l) in lines.iter().enumerate() {
        draw_text(
            l,
            8.0,
            18.0 + 20.0 * i as f32,
            20.0,
            Color::from_rgba(235, 235, 235, 255),
        );
    }
    draw_text(
        format!(
            "camera: WASD, R/F, right mouse drag   {}   H hud  Space pause  N step",
            scene.keys()
        ),
        8.0,
        screen_height() - 10.0,
        18.0,
        Color::from_rgba(200, 200, 200, 255),
    );
}

/// Runs the viewer until Escape, or for the scripted frames; returns the process's
/// exit status.
pub async fn run(opts: RunOptions) -> i32 {
    let mut store = MeshStore::new();
    let mut scene = match (opts.scene.build)(&opts.scene_options, &mut store) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("minkowski-viewer: {e}");
            return 1;
        }
    };
    let mut camera = FreeCamera::new(scene.camera());
    let mut live = LiveInput { last_mouse: None };
    let mut timings = Timings::default();
    let mut paused = false;
    let mut show_hud = true;
    let mut last = Instant::now();
    let mut avg_ms = 0.0;
    let scripted = opts.script.is_some();
    let last_frame = match (opts.frames, &opts.script) {
        (Some(n), _) => Some(n.max(1) - 1),
        (None, Some(s)) => Some(s.last_frame()),
        (None, None) => None,
    };
    let mut frame = 0usize;
    loop {
        let input = match &opts.script {
            Some(s) => s.input(frame),
            None => live.read(),
        };
        if !scripted && input.was_pressed(Key::Escape) {
            break;
        }
        let dt = if scripted {
            SCRIPT_DT
        } else {
            (macroquad::time::get_frame_time() as Real).min(0.1)
        };
        if input.was_pressed(Key::Space) {
            paused = !paused;
        }
        if input.was_pressed(Key::H) {
            show_hud = !show_hud;
        }
        camera.update(&input, dt);
        let t0 = Instant::now();
        if !paused || input.was_pressed(Key::N) {
            scene.update(&input, dt);
        }
        let update_ms = t0.elapsed().as_secs_f64() * 1e3;

        let t1 = Instant::now();
        clear_background(color(BACKGROUND));
        let cam = camera.camera();
        set_camera(&cam);
        let mut r = Renderer::new(&store);
        scene.draw(&mut r);
        r.finish(&cam);
        timings.triangles = r.triangles;
        set_default_camera();
        if show_hud {
            hud(opts.scene.name, scene.as_ref(), avg_ms, paused, frame);
        }
        timings.draw_ms.push(t1.elapsed().as_secs_f64() * 1e3);
        timings.update_ms.push(update_ms);
        timings.stats.push(scene.stats());

        if let Some(s) = &opts.script {
            for path in s.shots(frame) {
                if let Err(e) = screenshot(path) {
                    eprintln!("minkowski-viewer: {e}");
                    return 1;
                }
            }
        }
        let done = last_frame.is_some_and(|l| frame >= l);
        if done {
            if let Some(path) = &opts.screenshot {
                if let Err(e) = screenshot(path) {
                    eprintln!("minkowski-viewer: {e}");
                    return 1;
                }
            }
        }
        next_frame().await;
        let ms = last.elapsed().as_secs_f64() * 1e3;
        last = Instant::now();
        timings.frame_ms.push(ms);
        avg_ms = if frame == 0 {
            ms
        } else {
            0.9 * avg_ms + 0.1 * ms
        };
        frame += 1;
        if done {
            break;
        }
    }
    if opts.report {
        println!("{}", timings.report(opts.scene.name));
    }
    0
}
