//! Cast and slide: seed 004's mover for several planes, with step up.
//!
//! ```text
//! v ← clip(v, walkable planes touched at the start);  t ← dt
//! repeat at most max_iterations times:
//!     m ← v t;  stop when ‖m‖ is below the smallest move
//!     hit ← cast(shape, m, skin)              the first obstacle within the skin
//!     a hit at time 0 on a plane m glides along: cast again with half the skin
//!     no hit: move by m, done
//!     move by toi · m;  t ← (1 − toi) t       a skin short of the obstacle
//!     a wall (or steep slope) while supported: try a step up with the horizontal part
//!         of v t: success moves onto the step and goes on
//!     planes ← planes ∪ {hit normal};  v ← clip(v, planes)
//! ```
//!
//! `clip` is the nearest velocity that moves into no plane of the set
//! ([`super::plane_solver::clip_velocity`]), after two rules for slopes:
//! * on walkable ground (a walkable plane in the set) the velocity's downward part is
//!   dropped first, unless [`super::CharacterConfig::slide_on_walkable`]: gravity does
//!   not make a character creep down a slope it can stand on;
//! * a steep slope also puts a vertical wall in the set (its normal with the `up` part
//!   removed): the horizontal part into the slope is clipped by those walls first, so
//!   that walking into the slope never climbs it, and what is left is clipped by all the
//!   planes (gravity slides the character down the slope).
//!
//! # Step up
//!
//! From where the hit stopped the character: cast up by the step height (a ceiling may
//! stop it), cast forward by the horizontal motion left, cast down by as much as it
//! rose (plus the skin). The step succeeds when the forward cast travelled more than
//! half a skin and the down cast lands on walkable ground; when it lands on a steeper
//! spot (a rounded bottom on the step's edge), the ground [`super::CharacterConfig::step_probe`]
//! further on is tried instead and, if walkable, the character lands there (it may move
//! up to `step_probe` beyond its motion then). A step higher than the step height
//! blocks the forward cast; the character then stays against it.

// Negated comparisons (`!(x > y)`) are meant: NaN takes the safe branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use minkowski::query::compound::Collider;
use minkowski::{Real, Rotation, Vector};

use super::ground::{classify, SlopeClass};
use super::plane_solver::{clip_velocity, MAX_PLANES};
use super::recovery::pose_at;
use super::scene::{CharacterHit, CharacterWorld};
use super::tolerance::{
    GLIDE_COSINE, MIN_FACING_UP, MIN_MOVE_FRACTION, RECOVERY_FRACTION, SLIDE_SAME_PLANE_COSINE,
};
use super::{CharacterConfig, CharacterError};

/// Step ups per update, at most.
pub const MAX_STEPS_PER_UPDATE: u32 = 4;

/// Casts of a step's forward move, at most.
const FORWARD_CASTS: u32 = 3;

/// `v` without its part along `up`.
pub(crate) fn horizontal(v: Vector, up: Vector) -> Vector {
    v - up * v.dot(up)
}

/// Adds a normal to the set, replacing one nearly the same (at most [`MAX_PLANES`] / 2:
/// each may bring a steep slope's wall).
pub(crate) fn add_normal(normals: &mut Vec<Vector>, n: Vector) {
    let Some(n) = n.try_normalize() else {
        return;
    };
    if let Some(m) = normals
        .iter_mut()
        .find(|m| m.dot(n) >= SLIDE_SAME_PLANE_COSINE)
    {
        *m = n;
        return;
    }
    if normals.len() < MAX_PLANES / 2 {
        normals.push(n);
    } else if let Some(last) = normals.last_mut() {
        // Full: the newest plane matters most for the motion left.
        *last = n;
    }
}

/// The velocity nearest `v` that moves into none of `normals`, after the slope rules
/// of the module notes.
pub fn clip(v: Vector, normals: &[Vector], config: &CharacterConfig) -> Vector {
    let up = config.up;
    let mut v = v;
    let mut walls = [Vector::ZERO; MAX_PLANES];
    let mut all = [Vector::ZERO; MAX_PLANES];
    let (mut nw, mut na) = (0, 0);
    let mut walkable = false;
    for &n in normals.iter().take(MAX_PLANES / 2) {
        all[na] = n;
        na += 1;
        match classify(n, config) {
            SlopeClass::Walkable => walkable = true,
            SlopeClass::Steep => {
                if let Some(w) = horizontal(n, up).try_normalize() {
                    walls[nw] = w;
                    nw += 1;
                    all[na] = w;
                    na += 1;
                }
            }
            SlopeClass::Wall => {}
        }
    }
    if walkable && !config.slide_on_walkable {
        let d = v.dot(up);
        if d < 0.0 {
            v -= up * d;
        }
    }
    if nw > 0 {
        v = clip_velocity(v, &walls[..nw]);
    }
    clip_velocity(v, &all[..na])
}

/// Whether `normal` is (nearly) a plane of the set and `motion` does not move into it
/// beyond rounding.
fn gliding_along(normal: Vector, motion: Vector, normals: &[Vector]) -> bool {
    normals
        .iter()
        .any(|n| n.dot(normal) >= SLIDE_SAME_PLANE_COSINE)
        && normal.dot(motion) >= -GLIDE_COSINE * motion.length()
}

/// A hit met while sliding, with the character's velocity just before it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlideHit<T> {
    /// The hit.
    pub hit: CharacterHit<T>,
    /// The character's velocity when it met the obstacle (length per time, world frame).
    pub velocity: Vector,
}

/// What a slide did.
#[derive(Debug, Clone, PartialEq)]
pub struct SlideOutcome<T> {
    /// The velocity after the last clip (length per time, world frame).
    pub velocity: Vector,
    /// The hits, in order.
    pub hits: Vec<SlideHit<T>>,
    /// Height climbed by step ups (length).
    pub stepped: Real,
    /// Casts run (step ups' included).
    pub iterations: u32,
    /// Whether the whole time step was used up (else the iteration bound stopped it).
    pub complete: bool,
    /// Whether walkable ground was touched (at the start or on the way).
    pub supported: bool,
}

/// The state a slide starts from.
#[derive(Debug, Clone, Copy)]
pub struct SlideStart<'s> {
    /// The character's shape.
    pub shape: &'s Collider,
    /// Its fixed orientation.
    pub rotation: Rotation,
    /// The configuration.
    pub config: &'s CharacterConfig,
    /// Whether the character stands on walkable ground (stepping is allowed).
    pub supported: bool,
}

/// Moves the character at `position` with `velocity` for `dt` (see the module notes),
/// starting with the planes in `normals` (those it touches), which it extends.
///
/// # Errors
/// As the world's [`CharacterWorld::cast`]; [`CharacterError::InvalidInput`] when the
/// motion would leave the magnitude limit.
pub fn slide<W: CharacterWorld>(
    world: &W,
    start: &SlideStart<'_>,
    position: &mut Vector,
    velocity: Vector,
    dt: Real,
    normals: &mut Vec<Vector>,
) -> Result<SlideOutcome<W::Target>, CharacterError> {
    let config = start.config;
    let skin = config.skin;
    let mut out = SlideOutcome {
        velocity: clip(velocity, normals, config),
        hits: Vec::new(),
        stepped: 0.0,
        iterations: 0,
        complete: false,
        supported: start.supported,
    };
    let mut t_left = dt;
    let mut steps = 0;
    let min_move = skin * MIN_MOVE_FRACTION;
    while out.iterations < config.max_iterations {
        let motion = out.velocity * t_left;
        if !(motion.length() > min_move) {
            out.complete = true;
            return Ok(out);
        }
        out.iterations += 1;
        let pose = pose_at(start.rotation, *position)?;
        let mut hit = world.cast(start.shape, &pose, motion, skin)?;
        if let Some(h) = hit {
            if h.toi == 0.0 && gliding_along(h.normal, motion, normals) {
                // A hit at time 0 on a plane the motion already glides along: rounding
                // where the shape crosses from one triangle of a field or mesh to the
                // next (the new triangle's edge is met within the skin). Cast again
                // allowing half the skin; a real obstacle is still hit.
                out.iterations += 1;
                hit = world.cast(start.shape, &pose, motion, skin * RECOVERY_FRACTION)?;
            }
        }
        let Some(hit) = hit else {
            *position += motion;
            out.complete = true;
            return Ok(out);
        };
        *position += motion * hit.toi;
        t_left *= 1.0 - hit.toi;
        out.hits.push(SlideHit {
            hit,
            velocity: out.velocity,
        });
        let class = classify(hit.normal, config);
        let facing = hit.normal.dot(config.up);
        if config.step_height > 0.0
            && out.supported
            && class != SlopeClass::Walkable
            && facing > -MIN_FACING_UP
            && steps < MAX_STEPS_PER_UPDATE
        {
            let forward = horizontal(out.velocity * t_left, config.up);
            if let Some(step) = try_step(world, start, *position, forward, &mut out.iterations)? {
                steps += 1;
                out.stepped += (step.position - *position).dot(config.up).max(0.0);
                *position = step.position;
                t_left *= 1.0 - step.fraction;
                continue;
            }
        }
        if class == SlopeClass::Walkable {
            out.supported = true;
        }
        add_normal(normals, hit.normal);
        out.velocity = clip(out.velocity, normals, config);
    }
    // The bound: whatever motion is left is dropped.
    out.complete = (out.velocity * t_left).length() <= min_move;
    Ok(out)
}

/// A successful step up.
#[derive(Debug, Clone, Copy)]
struct Step {
    /// Where the character lands (world frame).
    position: Vector,
    /// The fraction of the forward motion used.
    fraction: Real,
}

/// The step up of the module notes from `position` with the horizontal motion
/// `forward`; `None` when it fails.
fn try_step<W: CharacterWorld>(
    world: &W,
    start: &SlideStart<'_>,
    position: Vector,
    forward: Vector,
    iterations: &mut u32,
) -> Result<Option<Step>, CharacterError> {
    let config = start.config;
    let (up, skin) = (config.up, config.skin);
    let Some(dir) = forward.try_normalize() else {
        return Ok(None);
    };
    let length = forward.length();
    let cast = |from: Vector, by: Vector, iterations: &mut u32| {
        *iterations += 1;
        world.cast(start.shape, &pose_at(start.rotation, from)?, by, skin)
    };
    // Up, as far as a ceiling allows.
    let rise = cast(position, up * config.step_height, iterations)?.map_or(1.0, |h| h.toi)
        * config.step_height;
    if !(rise > 0.5 * skin) {
        return Ok(None);
    }
    let raised = position + up * rise;
    // Forward, gliding along walls met on the way (a wall beside the stairs).
    let mut ahead = raised;
    let mut motion = forward;
    let mut walls: Vec<Vector> = Vec::new();
    for _ in 0..FORWARD_CASTS {
        let Some(h) = cast(ahead, motion, iterations)? else {
            ahead += motion;
            break;
        };
        ahead += motion * h.toi;
        add_normal(&mut walls, horizontal(h.normal, up));
        motion = clip_velocity(motion * (1.0 - h.toi), &walls);
        if !(motion.length() > 0.5 * skin) {
            break;
        }
    }
    let progress = (ahead - raised).dot(dir);
    if !(progress > 0.5 * skin) {
        return Ok(None);
    }
    let fraction = (progress / length).min(1.0);
    // Down, onto walkable ground no lower than where the character was.
    let land = |from: Vector, iterations: &mut u32| -> Result<Option<Vector>, CharacterError> {
        let down = -up * (rise + skin);
        Ok(match cast(from, down, iterations)? {
            Some(h) if classify(h.normal, config) == SlopeClass::Walkable => {
                Some(from + down * h.toi)
            }
            _ => None,
        })
    };
    let down = -up * (rise + skin);
    let Some(first) = cast(ahead, down, iterations)? else {
        return Ok(None);
    };
    if classify(first.normal, config) == SlopeClass::Walkable {
        return Ok(Some(Step {
            position: ahead + down * first.toi,
            fraction,
        }));
    }
    // The edge of the step: try the ground a probe further on.
    if !(config.step_probe > 0.0) {
        return Ok(None);
    }
    let probe = match (ahead - raised).try_normalize() {
        Some(d) => d * config.step_probe,
        None => dir * config.step_probe,
    };
    let free = cast(ahead, probe, iterations)?.map_or(1.0, |h| h.toi);
    if free < 1.0 {
        return Ok(None);
    }
    Ok(land(ahead + probe, iterations)?.map(|p| Step {
        position: p,
        fraction,
    }))
}
