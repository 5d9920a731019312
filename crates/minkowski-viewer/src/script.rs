//! Scripted input: key presses, mouse moves and screenshots by frame number, so the
//! viewer runs the same way with or without a person at the keyboard.
//!
//! A script is a text file of lines `FRAMES ACTION ARGS`, `#` starting a comment.
//! Frames count from 0 (the first frame drawn); `FRAMES` is one frame `N` or a closed
//! range `N..M`:
//!
//! ```text
//! # move the player right for a second, switch it to a sphere, take a picture
//! 0..59   hold Right          # Right is down in frames 0 to 59 (pressed in frame 0)
//! 60      press 2             # 2 goes down in frame 60 and up in frame 61
//! 70      mouse 40 -10        # the camera turns as if the mouse moved 40, -10 pixels
//! 80      shot sphere.png     # a screenshot of frame 80 (path relative to the cwd)
//! ```
//!
//! `hold` and `press` take one or more key names (see [`Key::from_name`]); a key held
//! over a range is "pressed" (the event that switches shapes, pauses, steps) only in
//! the first frame of the range. Frames advance the simulation by a fixed 1/60 s in
//! scripted mode, so a script gives the same pictures on any machine.

use std::collections::BTreeMap;

use crate::ViewerError;

/// The keys the viewer reacts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// Camera forward.
    W,
    /// Camera left.
    A,
    /// Camera back.
    S,
    /// Camera right.
    D,
    /// Camera up.
    R,
    /// Camera down.
    F,
    /// Player up (+y).
    Q,
    /// Player down (−y).
    E,
    /// Player towards −z (away from the starting camera).
    Up,
    /// Player towards +z.
    Down,
    /// Player towards −x.
    Left,
    /// Player towards +x.
    Right,
    /// Player: cube.
    Key1,
    /// Player: sphere.
    Key2,
    /// Player: cone.
    Key3,
    /// Player: cylinder.
    Key4,
    /// Player: capsule.
    Key5,
    /// Pause or resume.
    Space,
    /// One frame while paused.
    N,
    /// Ghost: the player passes through shapes (no push-out), as in the seed.
    G,
    /// Broad-phase cells or boxes on or off.
    B,
    /// Next pair for the contact display.
    Tab,
    /// The HUD on or off.
    H,
    /// The GJK trace of the selected pair on or off.
    J,
    /// The GJK trace's next step (wrapping).
    K,
    /// Contact points and normals on or off (dynamics scenes).
    C,
    /// The next level of the terrain's bounding volumes (displaced terrain).
    V,
    /// Quit (live mode).
    Escape,
}

impl Key {
    /// Every key, in a fixed order.
    pub const ALL: [Key; 28] = [
        Key::W,
        Key::A,
        Key::S,
        Key::D,
        Key::R,
        Key::F,
        Key::Q,
        Key::E,
        Key::Up,
        Key::Down,
        Key::Left,
        Key::Right,
        Key::Key1,
        Key::Key2,
        Key::Key3,
        Key::Key4,
        Key::Key5,
        Key::Space,
        Key::N,
        Key::G,
        Key::B,
        Key::Tab,
        Key::H,
        Key::J,
        Key::K,
        Key::C,
        Key::V,
        Key::Escape,
    ];

    /// The key named `name` in a script: `W A S D R F Q E N G B H J K C V` (either case), `Up
    /// Down Left Right Space Tab Escape`, `1` … `5`.
    pub fn from_name(name: &str) -> Option<Key> {
        let k = match name.to_ascii_lowercase().as_str() {
            "w" => Key::W,
            "a" => Key::A,
            "s" => Key::S,
            "d" => Key::D,
            "r" => Key::R,
            "f" => Key::F,
            "q" => Key::Q,
            "e" => Key::E,
            "up" => Key::Up,
            "down" => Key::Down,
            "left" => Key::Left,
            "right" => Key::Right,
            "1" => Key::Key1,
            "2" => Key::Key2,
            "3" => Key::Key3,
            "4" => Key::Key4,
            "5" => Key::Key5,
            "space" => Key::Space,
            "n" => Key::N,
            "g" => Key::G,
            "b" => Key::B,
            "tab" => Key::Tab,
            "h" => Key::H,
            "j" => Key::J,
            "k" => Key::K,
            "c" => Key::C,
            "v" => Key::V,
            "escape" | "esc" => Key::Escape,
            _ => return None,
        };
        Some(k)
    }
}

/// What the keyboard and mouse did in one frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameInput {
    /// Keys down in this frame.
    pub held: Vec<Key>,
    /// Keys that went down in this frame.
    pub pressed: Vec<Key>,
    /// Mouse motion that turns the camera (pixels; x right, y down).
    pub mouse: (f32, f32),
}

impl FrameInput {
    /// Whether `k` is down.
    pub fn is_held(&self, k: Key) -> bool {
        self.held.contains(&k)
    }
    /// Whether `k` went down in this frame.
    pub fn was_pressed(&self, k: Key) -> bool {
        self.pressed.contains(&k)
    }
}

/// A parsed script: per frame, its input and the screenshots to take.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Script {
    frames: BTreeMap<usize, FrameInput>,
    shots: BTreeMap<usize, Vec<String>>,
}

/// Largest frame number a script may name (about 4.6 hours at 60 frames per second).
pub const MAX_FRAME: usize = 1_000_000;

impl Script {
    /// Parses a script (see the module notes).
    ///
    /// # Errors
    /// [`ViewerError::Script`] with the line number for an unknown action or key, a bad
    /// frame number or range (`M < N`, beyond [`MAX_FRAME`]), or a missing argument.
    pub fn parse(text: &str) -> Result<Script, ViewerError> {
        let mut script = Script::default();
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let err = |what: String| ViewerError::Script {
                line: line_no,
                what,
            };
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut words = line.split_whitespace();
            let (Some(frames), Some(action)) = (words.next(), words.next()) else {
                return Err(err("expected `FRAMES ACTION ARGS`".into()));
            };
            let (first, last) = parse_frames(frames).map_err(err)?;
            let args: Vec<&str> = words.collect();
            match action {
                "hold" | "press" => {
                    if args.is_empty() {
                        return Err(err(format!("`{action}` needs at least one key")));
                    }
                    if action == "press" && last != first {
                        return Err(err("`press` takes one frame, not a range".into()));
                    }
                    for name in args {
                        let key = Key::from_name(name)
                            .ok_or_else(|| err(format!("unknown key `{name}`")))?;
                        for f in first..=last {
                            let input = script.frames.entry(f).or_default();
                            if !input.held.contains(&key) {
                                input.held.push(key);
                            }
                        }
                        let prev_held = first > 0
                            && script
                                .frames
                                .get(&(first - 1))
                                .is_some_and(|p| p.held.contains(&key));
                        let input = script.frames.entry(first).or_default();
                        if !prev_held && !input.pressed.contains(&key) {
                            input.pressed.push(key);
                        }
                    }
                }
                "mouse" => {
                    let [dx, dy] = args.as_slice() else {
                        return Err(err("`mouse` takes DX DY (pixels)".into()));
                    };
                    let parse = |s: &str| {
                        s.parse::<f32>()
                            .ok()
                            .filter(|v| v.is_finite() && v.abs() <= 1e4)
                            .ok_or_else(|| err(format!("bad mouse motion `{s}`")))
                    };
                    let (dx, dy) = (parse(dx)?, parse(dy)?);
                    for f in first..=last {
                        let m = &mut script.frames.entry(f).or_default().mouse;
                        m.0 += dx;
                        m.1 += dy;
                    }
                }
                "shot" => {
                    let [path] = args.as_slice() else {
                        return Err(err("`shot` takes one PNG path".into()));
                    };
                    for f in first..=last {
                        script.shots.entry(f).or_default().push((*path).to_string());
                    }
                }
                other => return Err(err(format!("unknown action `{other}`"))),
            }
        }
        Ok(script)
    }

    /// The input of frame `frame` (nothing held for a frame the script does not name).
    pub fn input(&self, frame: usize) -> FrameInput {
        self.frames.get(&frame).cloned().unwrap_or_default()
    }

    /// The screenshots to take after drawing frame `frame`.
    pub fn shots(&self, frame: usize) -> &[String] {
        self.shots.get(&frame).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The last frame the script names (0 for an empty script).
    pub fn last_frame(&self) -> usize {
        let a = self.frames.keys().next_back().copied().unwrap_or(0);
        let b = self.shots.keys().next_back().copied().unwrap_or(0);
        a.max(b)
    }
}

fn parse_frames(s: &str) -> Result<(usize, usize), String> {
    let num = |t: &str| {
        t.parse::<usize>()
            .ok()
            .filter(|&n| n <= MAX_FRAME)
            .ok_or_else(|| format!("bad frame number `{t}` (0 … {MAX_FRAME})"))
    };
    match s.split_once("..") {
        Some((a, b)) => {
            let (a, b) = (num(a)?, num(b)?);
            if b < a {
                return Err(format!("empty frame range `{s}`"));
            }
            Ok((a, b))
        }
        None => num(s).map(|n| (n, n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_example_parses_as_described() {
        let s = Script::parse(
            "# move\n0..59 hold Right\n60 press 2\n70 mouse 40 -10\n80 shot sphere.png\n",
        )
        .unwrap();
        assert!(s.input(0).was_pressed(Key::Right));
        assert!(s.input(59).is_held(Key::Right));
        assert!(
            !s.input(30).was_pressed(Key::Right),
            "pressed only at the start"
        );
        assert!(!s.input(60).is_held(Key::Right));
        assert!(s.input(60).was_pressed(Key::Key2) && s.input(60).is_held(Key::Key2));
        assert!(!s.input(61).is_held(Key::Key2));
        assert_eq!(s.input(70).mouse, (40.0, -10.0));
        assert_eq!(s.shots(80), ["sphere.png".to_string()]);
        assert_eq!(s.last_frame(), 80);
        assert_eq!(s.input(1000), FrameInput::default());
    }

    #[test]
    fn bad_lines_are_typed_errors_with_their_line() {
        for (text, line) in [
            ("0 hold", 1),
            ("\n\n5 jump Up", 3),
            ("9..3 hold W", 1),
            ("0 hold Banana", 1),
            ("x press 1", 1),
            ("0..4 press 1", 1),
            ("1 mouse 3", 1),
            ("1 mouse NaN 0", 1),
            ("99999999999 press 1", 1),
            ("1 shot", 1),
        ] {
            match Script::parse(text) {
                Err(ViewerError::Script { line: l, .. }) => assert_eq!(l, line, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    #[test]
    fn every_key_has_a_name_that_parses_back() {
        let names = [
            "w", "a", "s", "d", "r", "f", "q", "e", "Up", "Down", "Left", "Right", "1", "2", "3",
            "4", "5", "Space", "n", "g", "b", "Tab", "h", "j", "k", "c", "V", "Escape",
        ];
        assert_eq!(names.len(), Key::ALL.len());
        for (k, n) in Key::ALL.iter().zip(names) {
            assert_eq!(Key::from_name(n), Some(*k));
        }
    }
}
