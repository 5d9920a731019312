//! The viewer under Xvfb: scripted runs write screenshots, and colours in pixel regions
//! are checked — never exact bytes (software GL may shade a pixel differently).
//!
//! Each test starts its own `Xvfb` on a free display number. Where Xvfb is not
//! installed or does not start, the test prints a loud `SKIPPED` line and returns
//! (`scripts/viewer-ci.sh` installs it in CI).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_minkowski-viewer");

/// An Xvfb server this test started; stopped (by its own pid) when dropped.
struct Xvfb {
    child: Child,
    display: String,
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes to the process's stderr directly: the test harness captures `eprintln!` of
/// passing tests, and a skip must be seen.
fn loud(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

static NEXT: AtomicU32 = AtomicU32::new(0);

fn start_xvfb(test: &str) -> Option<Xvfb> {
    // 32 display numbers per test process (more than its tests run at once), tried in
    // turn; distinct processes get distinct blocks (by pid).
    for _ in 0..32 {
        let n = 200 + (std::process::id() % 200) * 32 + NEXT.fetch_add(1, Ordering::SeqCst) % 32;
        if Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
            || Path::new(&format!("/tmp/.X{n}-lock")).exists()
        {
            continue;
        }
        let child = Command::new("Xvfb")
            .args([
                &format!(":{n}"),
                "-screen",
                "0",
                "1280x800x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let Ok(mut child) = child else {
            loud(&format!(
                "!!! SKIPPED {test}: Xvfb is not installed (apt-get install xvfb)"
            ));
            return None;
        };
        let socket = format!("/tmp/.X11-unix/X{n}");
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if Path::new(&socket).exists() {
                return Some(Xvfb {
                    child,
                    display: format!(":{n}"),
                });
            }
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    loud(&format!(
        "!!! SKIPPED {test}: no X server could be started (Xvfb failed)"
    ));
    None
}

fn out_dir(test: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("viewer")
        .join(test);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs the viewer with `script` (shots named relative to `dir`) and extra arguments.
fn run(x: &Xvfb, dir: &Path, scene: &str, script: &str, extra: &[&str]) -> String {
    let path = dir.join("script.txt");
    std::fs::write(&path, script).unwrap();
    let out = Command::new(BIN)
        .current_dir(dir)
        .env("DISPLAY", &x.display)
        .args(["--scene", scene, "--script"])
        .arg(&path)
        .args(["--report"])
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "viewer failed: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

struct Image {
    w: usize,
    h: usize,
    rgb: Vec<u8>,
}

impl Image {
    fn load(path: &Path) -> Image {
        let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut reader = png::Decoder::new(std::io::BufReader::new(file))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!(info.color_type, png::ColorType::Rgb);
        buf.truncate(info.buffer_size());
        Image {
            w: info.width as usize,
            h: info.height as usize,
            rgb: buf,
        }
    }
    fn px(&self, x: usize, y: usize) -> [i32; 3] {
        let i = (y * self.w + x) * 3;
        [
            self.rgb[i] as i32,
            self.rgb[i + 1] as i32,
            self.rgb[i + 2] as i32,
        ]
    }
    /// Pixels below the HUD (top 120 rows) and above the key line (bottom 30) where
    /// `f` holds.
    fn mask(&self, f: impl Fn([i32; 3]) -> bool) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for y in 120..self.h - 30 {
            for x in 0..self.w {
                if f(self.px(x, y)) {
                    v.push((x, y));
                }
            }
        }
        v
    }
}

/// The player's blue (lit or in shade): blue well above red and above green.
fn blue(p: [i32; 3]) -> bool {
    p[2] > p[0] + 40 && p[2] > p[1] + 20
}

/// The collision colour: red well above green and blue.
fn red(p: [i32; 3]) -> bool {
    p[0] > p[1] + 60 && p[0] > p[2] + 60
}

/// The field's olive: green and red above blue.
fn olive(p: [i32; 3]) -> bool {
    p[1] > p[2] + 30 && p[0] > p[2] + 20
}

/// How far the mask's outline is from a circle: (max − min) / mean of its radius from
/// the centroid (its farthest pixel in each of 90 directions) (0 for a disc; a square gives about 0.35).
fn out_of_round(mask: &[(usize, usize)]) -> f64 {
    let n = mask.len() as f64;
    let cx = mask.iter().map(|p| p.0 as f64).sum::<f64>() / n;
    let cy = mask.iter().map(|p| p.1 as f64).sum::<f64>() / n;
    let set: std::collections::HashSet<(usize, usize)> = mask.iter().copied().collect();
    let radii: Vec<f64> = (0..90)
        .map(|k| {
            let a = k as f64 * std::f64::consts::TAU / 90.0;
            // The farthest mask pixel along the ray (overlay lines and markers drawn
            // over the player leave holes inside, not beyond, its outline).
            let mut last = 0.0;
            let mut r = 0.0;
            while r < 400.0 {
                r += 0.5;
                let (x, y) = (cx + r * a.cos(), cy + r * a.sin());
                if x < 0.0 || y < 0.0 {
                    break;
                }
                if set.contains(&(x.round() as usize, y.round() as usize)) {
                    last = r;
                }
            }
            last
        })
        .collect();
    let max = radii.iter().copied().fold(f64::MIN, f64::max);
    let min = radii.iter().copied().fold(f64::MAX, f64::min);
    let mean = radii.iter().sum::<f64>() / radii.len() as f64;
    (max - min) / mean
}

/// The player (a cube) is driven at the field's centre cube (3.25 units of gap at 0.05
/// per frame: contact at frame 65). It is blue and nothing is red before; at and after
/// the contact it and the cube are red, and it has stopped in front of the cube.
#[test]
fn the_player_turns_the_collision_colour_when_pushed_into_a_shape_not_before() {
    let test = "collision_colour";
    let Some(x) = start_xvfb(test) else { return };
    let dir = out_dir(test);
    run(
        &x,
        &dir,
        "demo",
        "0..120 hold Up\n0 shot start.png\n55 shot before.png\n90 shot after.png\n120 shot pushed.png\n",
        &[],
    );
    let start = Image::load(&dir.join("start.png"));
    let before = Image::load(&dir.join("before.png"));
    let after = Image::load(&dir.join("after.png"));
    let pushed = Image::load(&dir.join("pushed.png"));
    for (name, im) in [("start", &start), ("before", &before)] {
        assert!(
            im.mask(red).len() < 30,
            "{name}: red pixels before any contact"
        );
        assert!(
            im.mask(blue).len() > 3000,
            "{name}: the player is drawn blue"
        );
        assert!(im.mask(olive).len() > 10_000, "{name}: the field is drawn");
    }
    for (name, im) in [("after", &after), ("pushed", &pushed)] {
        assert!(
            im.mask(blue).len() < 30,
            "{name}: the player is no longer blue"
        );
        assert!(
            im.mask(red).len() > 6000,
            "{name}: player and cube in the collision colour"
        );
    }
    // Stopped in front of the cube: the red region's lowest row (the player's front
    // edge) did not move between frames 90 and 120 though Up was held all along, and
    // the player did come towards the cube.
    let lowest =
        |im: &Image, f: fn([i32; 3]) -> bool| im.mask(f).iter().map(|p| p.1).max().unwrap_or(0);
    let (a, b) = (lowest(&after, red), lowest(&pushed, red));
    assert!(a.abs_diff(b) <= 2, "stopped: {a} vs {b}");
    let player_bottom_start = lowest(&start, blue);
    assert!(b + 40 < player_bottom_start, "moved towards the cube");
}

/// Key 2 switches the player from the cube to the sphere: its silhouette becomes round
/// (out-of-roundness below 0.1; the cube's is above 0.15), and stays blue.
#[test]
fn key_2_shows_a_sphere_silhouette() {
    let test = "sphere_silhouette";
    let Some(x) = start_xvfb(test) else { return };
    let dir = out_dir(test);
    run(
        &x,
        &dir,
        "demo",
        "1 shot cube.png\n2 press 2\n3 shot sphere.png\n4 press 1\n5 shot cube-again.png\n",
        &[],
    );
    let cube = Image::load(&dir.join("cube.png")).mask(blue);
    let sphere = Image::load(&dir.join("sphere.png")).mask(blue);
    let again = Image::load(&dir.join("cube-again.png")).mask(blue);
    assert!(cube.len() > 3000 && sphere.len() > 3000);
    let (rc, rs, ra) = (
        out_of_round(&cube),
        out_of_round(&sphere),
        out_of_round(&again),
    );
    eprintln!("out of round: cube {rc}, sphere {rs}, cube again {ra}");
    assert!(rc > 0.15, "the cube is not round: {rc}");
    assert!(rs < 0.1, "the sphere is: {rs}");
    assert!(
        (rc - ra).abs() < 0.02,
        "key 1 brings the cube back: {rc} vs {ra}"
    );
}

/// Every registered scene renders under a script: the picture is not empty, seed 000's
/// forced overlap shows its shapes in the collision colour, the crowd scenes draw
/// their objects and their broad-phase overlay (cyan), the dynamics scenes their awake
/// bodies (orange), the terrain scenes their ground (green) and character (blue), and
/// `--report` prints the frame time.
#[test]
fn every_scene_renders_and_reports() {
    let test = "every_scene";
    let Some(x) = start_xvfb(test) else { return };
    let dir = out_dir(test);
    let list = Command::new(BIN).arg("--list").output().unwrap();
    let names: Vec<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(names.len() >= 4, "{names:?}");
    for name in &names {
        let shot = format!("{name}.png");
        let report = run(
            &x,
            &dir,
            name,
            &format!("0..9 hold W\n9 shot {shot}\n"),
            &["--objects", "2000"],
        );
        assert!(report.contains("frame ms median"), "{report}");
        let im = Image::load(&dir.join(&shot));
        let background =
            im.mask(|p| (p[0] - 28).abs() + (p[1] - 30).abs() + (p[2] - 34).abs() < 12);
        let all = im.w * (im.h - 150);
        assert!(
            background.len() < all * 95 / 100,
            "{name}: something is drawn"
        );
        match name.as_str() {
            "seed000" => assert!(im.mask(red).len() > 5000, "seed000: every pair overlaps"),
            "crowd" | "crowd-tree" => {
                assert!(
                    im.mask(|p| p[1] > p[0] + 60 && p[2] > p[0] + 60).len() > 500,
                    "{name}: overlay"
                );
                assert!(
                    im.mask(red).len() > 100 && im.mask(olive).len() > 1000,
                    "{name}: objects"
                );
            }
            "pyramid" | "large-pyramid" | "card-house" | "tumbler" | "stack" | "mass-ratio"
            | "friction-ramp" => {
                assert!(im.mask(orange).len() > 500, "{name}: bodies awake")
            }
            "terrain" | "displaced" => {
                assert!(im.mask(green).len() > 50_000, "{name}: terrain");
                assert!(im.mask(blue).len() > 60, "{name}: character");
            }
            _ => {}
        }
    }
    assert!(
        names.len() >= 13,
        "the dynamics and terrain scenes are listed: {names:?}"
    );
}

/// A bad script is refused before any window opens, with its line number.
#[test]
fn a_bad_script_is_refused_with_its_line() {
    let dir = out_dir("bad_script");
    let path = dir.join("bad.txt");
    std::fs::write(&path, "0 hold Up\n3 jump\n").unwrap();
    let out = Command::new(BIN)
        .arg("--script")
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 2"));
    let out = Command::new(BIN)
        .args(["--scene", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Space pauses: with Up held, the player's silhouette does not move while paused; N
/// steps one frame (a small move), and Space again resumes (a large one).
#[test]
fn space_pauses_and_n_steps() {
    let test = "pause_step";
    let Some(x) = start_xvfb(test) else { return };
    let dir = out_dir(test);
    run(
        &x,
        &dir,
        "demo",
        "0 press Space\n0..60 hold Up\n1 shot a.png\n30 shot b.png\n31 press N\n32 shot c.png\n\
         33 press Space\n60 shot d.png\n",
        &[],
    );
    // The lowest row of the player (its near edge): it rises on screen as it moves away.
    let front = |name: &str| {
        let m = Image::load(&dir.join(name)).mask(blue);
        assert!(m.len() > 1000, "{name}: the player is drawn");
        m.iter().map(|p| p.1).max().unwrap_or(0)
    };
    let (a, b, c, d) = (
        front("a.png"),
        front("b.png"),
        front("c.png"),
        front("d.png"),
    );
    assert_eq!(a, b, "paused: the player stays");
    assert!(c < b && b - c <= 3, "one step: {b} -> {c}");
    assert!(d + 10 < c, "resumed: {c} -> {d}");
}

/// The Minkowski difference's magenta simplex (red and blue both far above green; the
/// collision red and the player's blue are not).
fn magenta(p: [i32; 3]) -> bool {
    p[0] > p[1] + 80 && p[2] > p[1] + 80
}

/// `J` shows the GJK trace of the selected pair (Tab: the first field shape) and `K`
/// steps through it: no magenta before `J`, the simplex's magenta points and edges after
/// it and after a step, none once `J` hides it again.
#[test]
fn j_shows_the_gjk_simplex_and_k_steps() {
    let test = "gjk_trace";
    let Some(x) = start_xvfb(test) else { return };
    let dir = out_dir(test);
    run(
        &x,
        &dir,
        "demo",
        "1 press Tab\n2 shot off.png\n3 press J\n5 shot on.png\n6 press K\n8 shot step.png\n\
         9 press J\n11 shot hidden.png\n",
        &[],
    );
    let count = |name: &str| Image::load(&dir.join(name)).mask(magenta).len();
    let (off, on, step, hidden) = (
        count("off.png"),
        count("on.png"),
        count("step.png"),
        count("hidden.png"),
    );
    eprintln!("magenta pixels: off {off}, on {on}, step {step}, hidden {hidden}");
    assert!(off < 10 && hidden < 10, "no simplex drawn: {off}, {hidden}");
    assert!(on > 40, "J draws the simplex: {on}");
    assert!(step > 40, "K shows the next step: {step}");
}

/// Awake dynamic bodies' orange (lit or in shade): red far above blue and green.
fn orange(p: [i32; 3]) -> bool {
    p[0] > p[2] + 50 && p[0] > p[1] + 25
}

/// Sleeping bodies' lavender: blue above red above (or level with) green.
fn lavender(p: [i32; 3]) -> bool {
    p[2] > p[0] + 15 && p[2] > p[1] + 25 && p[0] >= p[1]
}

/// Contact normals' yellow (drawn unlit).
fn yellow(p: [i32; 3]) -> bool {
    p[0] > 200 && p[1] > 180 && p[2] < 120
}

/// Bounding-volume edges' pink (drawn unlit).
fn pink(p: [i32; 3]) -> bool {
    p[0] > 200 && p[2] > 150 && p[1] < 140
}

/// Terrain green: green above red above blue.
fn green(p: [i32; 3]) -> bool {
    p[1] > p[0] + 10 && p[0] > p[2] + 10
}

fn centroid(mask: &[(usize, usize)]) -> (f64, f64) {
    let n = mask.len().max(1) as f64;
    (
        mask.iter().map(|p| p.0 as f64).sum::<f64>() / n,
        mask.iter().map(|p| p.1 as f64).sum::<f64>() / n,
    )
}

/// The pyramid of 20 rows: orange (awake) at frame 1, lavender (asleep) by frame 150
/// with no orange left; still standing — its top row and its bottom row on screen are
/// where they were, and the top box's pixels of frame 1 are nearly all lavender at
/// frame 150. C then draws the contact normals (yellow, none before).
#[test]
fn the_pyramid_stands_falls_asleep_and_shows_its_contacts() {
    let test = "pyramid";
    let Some(x) = start_xvfb(test) else { return };
    let dir = out_dir(test);
    run(
        &x,
        &dir,
        "pyramid",
        "1 shot awake.png\n150 shot asleep.png\n151 press C\n153 shot contacts.png\n",
        &[],
    );
    let awake = Image::load(&dir.join("awake.png"));
    let asleep = Image::load(&dir.join("asleep.png"));
    let contacts = Image::load(&dir.join("contacts.png"));
    let (o1, l1) = (awake.mask(orange), awake.mask(lavender));
    let (o2, l2) = (asleep.mask(orange), asleep.mask(lavender));
    eprintln!(
        "orange {} -> {}, lavender {} -> {}",
        o1.len(),
        o2.len(),
        l1.len(),
        l2.len()
    );
    assert!(o1.len() > 20_000 && l1.len() < 50, "awake at frame 1");
    assert!(l2.len() > 20_000 && o2.len() < 50, "asleep by frame 150");
    let top = |m: &[(usize, usize)]| m.iter().map(|p| p.1).min().unwrap_or(0);
    let bottom = |m: &[(usize, usize)]| m.iter().map(|p| p.1).max().unwrap_or(0);
    assert!(top(&o1).abs_diff(top(&l2)) <= 2, "top row stays");
    assert!(bottom(&o1).abs_diff(bottom(&l2)) <= 2, "bottom row stays");
    // The top box: the orange pixels of frame 1 in the 12 rows under the pyramid's top.
    let t = top(&o1);
    let top_box: Vec<(usize, usize)> = o1.iter().copied().filter(|p| p.1 < t + 12).collect();
    assert!(top_box.len() > 60, "top box drawn: {}", top_box.len());
    let kept = top_box
        .iter()
        .filter(|p| lavender(asleep.px(p.0, p.1)))
        .count();
    assert!(
        kept * 10 >= top_box.len() * 9,
        "top box still there: {kept} of {}",
        top_box.len()
    );
    let (y1, y2) = (asleep.mask(yellow).len(), contacts.mask(yellow).len());
    eprintln!("yellow before C {y1}, after {y2}");
    assert!(
        y1 < 20 && y2 > 300,
        "C draws the contact normals: {y1} -> {y2}"
    );
}

/// The tumbler: its bodies (orange) are seen inside the grey drum, and they move: the
/// orange region differs between frames 10 and 90 as the drum turns.
#[test]
fn the_tumbler_shows_its_bodies_moving_in_the_drum() {
    let test = "tumbler";
    let Some(x) = start_xvfb(test) else { return };
    let dir = out_dir(test);
    run(&x, &dir, "tumbler", "10 shot a.png\n90 shot b.png\n", &[]);
    let a = Image::load(&dir.join("a.png"));
    let b = Image::load(&dir.join("b.png"));
    let grey = |p: [i32; 3]| {
        (p[0] - p[1]).abs() < 8 && (p[1] - p[2]).abs() < 10 && p[0] > 50 && p[0] < 200
    };
    assert!(a.mask(grey).len() > 5000, "the drum");
    let (oa, ob) = (a.mask(orange), b.mask(orange));
    assert!(oa.len() > 3000 && ob.len() > 3000, "the bodies");
    let sa: std::collections::HashSet<_> = oa.iter().collect();
    let moved = ob.iter().filter(|p| !sa.contains(p)).count();
    assert!(
        moved * 5 > ob.len(),
        "they tumble: {moved} of {} new",
        ob.len()
    );
}

/// The heightfield: the character (blue) stands on the green terrain and walks its
/// circle (its centroid moves on screen); held, Right drives it to the right.
#[test]
fn the_character_walks_on_the_heightfield_and_right_drives_it() {
    let test = "terrain";
    let Some(x) = start_xvfb(test) else { return };
    let dir = out_dir(test);
    run(
        &x,
        &dir,
        "terrain",
        "5 shot a.png\n60 shot b.png\n61..120 hold Right\n120 shot c.png\n",
        &[],
    );
    let [a, b, c] = ["a.png", "b.png", "c.png"].map(|n| Image::load(&dir.join(n)));
    assert!(a.mask(green).len() > 100_000, "the terrain");
    let (ba, bb, bc) = (a.mask(blue), b.mask(blue), c.mask(blue));
    eprintln!("blue {} {} {}", ba.len(), bb.len(), bc.len());
    assert!(
        ba.len() > 150 && bb.len() > 150 && bc.len() > 150,
        "the character"
    );
    let (ca, cb, cc) = (centroid(&ba), centroid(&bb), centroid(&bc));
    let d = ((ca.0 - cb.0).powi(2) + (ca.1 - cb.1).powi(2)).sqrt();
    assert!(d > 20.0, "it walks: {ca:?} -> {cb:?}");
    assert!(
        cc.0 > cb.0 + 30.0,
        "Right drives it right: {cb:?} -> {cc:?}"
    );
}

/// The displaced terrain: green surface and the blue character; no pink before V; V
/// draws the coarsest level's bounding cells, two more presses the finest (more edges),
/// a fourth turns them off.
#[test]
fn v_shows_the_displaced_terrains_bounding_volumes_level_by_level() {
    let test = "displaced";
    let Some(x) = start_xvfb(test) else { return };
    let dir = out_dir(test);
    run(
        &x,
        &dir,
        "displaced",
        "2 shot off.png\n3 press V\n5 shot coarse.png\n6 press V\n8 press V\n10 shot fine.png\n\
         11 press V\n13 shot again-off.png\n",
        &[],
    );
    let count = |n: &str, f: fn([i32; 3]) -> bool| Image::load(&dir.join(n)).mask(f).len();
    let off = Image::load(&dir.join("off.png"));
    assert!(off.mask(green).len() > 50_000, "the terrain");
    assert!(off.mask(blue).len() > 60, "the character");
    let (p0, p8, p2, p_off) = (
        count("off.png", pink),
        count("coarse.png", pink),
        count("fine.png", pink),
        count("again-off.png", pink),
    );
    eprintln!("pink: off {p0}, coarsest {p8}, finest {p2}, off again {p_off}");
    assert!(p0 < 20 && p_off < 20, "no volumes drawn");
    assert!(p8 > 1500, "V draws the coarsest cells");
    assert!(p2 > p8 + 1000, "the finest level has more cells");
}

/// Space pauses a dynamics scene and N steps it once: the tumbler's tumbling bodies
/// (orange) are drawn the same while paused, and differently after one step.
#[test]
fn space_pauses_the_dynamics_and_n_steps_it() {
    let test = "pause_dynamics";
    let Some(x) = start_xvfb(test) else { return };
    let dir = out_dir(test);
    run(
        &x,
        &dir,
        "tumbler",
        "60 press Space\n62 shot a.png\n75 shot b.png\n76 press N\n78 shot c.png\n",
        &[],
    );
    let mask = |n: &str| Image::load(&dir.join(n)).mask(orange);
    let (a, b, c) = (mask("a.png"), mask("b.png"), mask("c.png"));
    assert!(a.len() > 3000);
    assert_eq!(a, b, "paused: nothing moves");
    let sb: std::collections::HashSet<_> = b.iter().collect();
    let changed = c.iter().filter(|p| !sb.contains(p)).count();
    assert!(changed > 100, "N steps once: {changed} pixels changed");
}
