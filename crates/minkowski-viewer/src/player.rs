//! The player's motion against a field of fixed shapes: sweep, stop a skin short,
//! glide along what was hit, and push out of whatever it already overlaps.
//!
//! Each frame the player wants to move by `m`. A linear shape cast of the player along
//! `m` against every shape (`query::cast_shapes`, target distance = [`SKIN`]) gives the
//! first time of impact `t` and the normal `n` there (from the shape towards the
//! player). The player advances by `t m`; what is left, `r = (1 − t) m`, loses its
//! component into the surface, `r' = r − min(r·n, 0) n`, and is cast again, at most
//! [`MAX_SLIDES`] times: against a wall it glides, into a corner it stops.
//!
//! A player that overlaps a shape anyway (it changed shape in place, or ghost mode was
//! switched off inside one) is pushed out along each contact normal by its depth plus
//! the skin (`query::contact`: signed distance `d < 0`, translate by `−d n`), again at
//! most [`MAX_SLIDES`] rounds.

use minkowski::query::{self, cast_shapes, CastInput, Motion, QueryOptions, ShapePair};
use minkowski::shape::Shape;
use minkowski::{Pose, Real, Vector};

/// The gap the player keeps from what it touches (length units).
pub const SKIN: Real = 0.01;

/// Distance below which the player and a shape count as in contact (and are
/// highlighted): twice the skin, so a player resting against a shape shows the contact.
pub const CONTACT_DISTANCE: Real = 2.0 * SKIN;

/// Most casts (or push-out rounds) per frame.
pub const MAX_SLIDES: usize = 4;

/// A fixed shape the player collides with.
#[derive(Debug, Clone, Copy)]
pub struct Obstacle<'s> {
    /// Its shape.
    pub shape: &'s Shape,
    /// Its pose (world from local).
    pub pose: Pose,
}

/// What one frame of motion did.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SlideOutcome {
    /// The player's new position (world frame; the player does not turn).
    pub position: Vector,
    /// Casts that hit something.
    pub hits: usize,
    /// Push-out rounds that moved the player.
    pub pushes: usize,
    /// Whether the motion was cut short (a corner, or the slide limit).
    pub blocked: bool,
}

/// Moves `player` from `position` by `motion` among `obstacles` (see the module notes).
/// A cast that fails (a motion too large for the library's limits) leaves the player
/// where it is for the rest of the frame, with `blocked` set.
pub fn move_and_slide(
    player: &Shape,
    position: Vector,
    motion: Vector,
    obstacles: &[Obstacle<'_>],
    options: &QueryOptions,
) -> SlideOutcome {
    let mut out = SlideOutcome {
        position,
        ..SlideOutcome::default()
    };
    out.position = push_out(player, out.position, obstacles, &mut out.pushes);
    let mut rest = motion;
    for _ in 0..MAX_SLIDES {
        if rest.length_squared() == 0.0 {
            return out;
        }
        let Ok(from) = Pose::from_translation(out.position) else {
            out.blocked = true;
            return out;
        };
        let mut first: Option<(Real, Vector)> = None;
        for o in obstacles {
            let pair = ShapePair::new(o.shape, o.pose, player, from);
            let mut input = CastInput::new(pair, Motion::ZERO, Motion::linear(rest));
            input.max_toi = 1.0;
            input.target_distance = SKIN;
            match cast_shapes(&input, options) {
                Ok(hit) if hit.hit => {
                    if first.is_none_or(|(t, _)| hit.toi < t) {
                        first = Some((hit.toi, hit.normal));
                    }
                }
                Ok(_) => {}
                Err(_) => {
                    out.blocked = true;
                    return out;
                }
            }
        }
        let Some((toi, normal)) = first else {
            out.position += rest;
            return out;
        };
        out.hits += 1;
        out.position += rest * toi;
        let left = rest * (1.0 - toi);
        rest = left - normal * left.dot(normal).min(0.0);
    }
    out.blocked = rest.length_squared() > 0.0;
    out
}

/// `position` moved out of every obstacle it penetrates (at most [`MAX_SLIDES`]
/// rounds); `pushes` counts the rounds that moved it.
pub fn push_out(
    player: &Shape,
    mut position: Vector,
    obstacles: &[Obstacle<'_>],
    pushes: &mut usize,
) -> Vector {
    for _ in 0..MAX_SLIDES {
        let Ok(at) = Pose::from_translation(position) else {
            return position;
        };
        let mut fix = Vector::ZERO;
        for o in obstacles {
            let c = query::contact(o.shape, &o.pose, player, &at);
            if c.distance < 0.0 && c.normal.is_finite() {
                // Deepest push per axis direction would double-count overlapping
                // shapes; the sum converges over the rounds.
                fix += c.normal * (SKIN - c.distance);
            }
        }
        if fix == Vector::ZERO {
            break;
        }
        *pushes += 1;
        position += fix;
    }
    position
}

#[cfg(test)]
mod tests {
    use super::*;
    use minkowski::shape::{tessellation, Capsule, ConvexPolyhedron, Cuboid};

    fn shapes() -> Vec<Shape> {
        let mut v: Vec<Shape> = tessellation::seed000_shapes()
            .into_iter()
            .map(|(_, p)| ConvexPolyhedron::new(p).map(Shape::from).unwrap())
            .collect();
        v.push(Capsule::new(0.6, 0.4).map(Shape::from).unwrap());
        v
    }

    /// splitmix64 for the seeded cases.
    struct Rng(u64);
    impl Rng {
        fn unit(&mut self) -> Real {
            self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
            ((z ^ (z >> 31)) >> 11) as Real / (1u64 << 53) as Real
        }
        fn signed(&mut self) -> Real {
            2.0 * self.unit() - 1.0
        }
    }

    /// A wall at x = 2 (its face): the player, a capsule of radius 0.3, driven
    /// diagonally into it, stops a skin short and glides the full tangential distance
    /// (the analytic answer).
    #[test]
    fn glides_along_a_wall() {
        let wall = Shape::from(Cuboid::new(Vector::new(0.5, 3.0, 50.0)).unwrap());
        let obstacles = [Obstacle {
            shape: &wall,
            pose: Pose::from_translation(Vector::new(2.5, 0.0, 0.0)).unwrap(),
        }];
        let player = Shape::from(Capsule::new(0.5, 0.3).unwrap());
        let mut at = Vector::ZERO;
        for _ in 0..30 {
            let o = move_and_slide(
                &player,
                at,
                Vector::new(0.2, 0.0, 0.1),
                &obstacles,
                &QueryOptions::default(),
            );
            at = o.position;
        }
        assert!((at.x - (2.0 - 0.3 - SKIN)).abs() < 2e-3, "{at}");
        assert!((at.z - 3.0).abs() < 1e-3, "glided the whole 3 units: {at}");
    }

    /// Oracle: after every frame of seeded random motion through a field of the five
    /// kinds, the player (each kind in turn) penetrates no shape (`query::contact`
    /// distance ≥ 0 up to rounding), and a frame that hit nothing moved it by the whole
    /// motion. Counts that the field was actually hit.
    #[test]
    fn random_walks_never_end_inside_a_shape() {
        let field = shapes();
        let mut obstacles = Vec::new();
        let mut rng = Rng(7);
        for (i, s) in field.iter().enumerate() {
            for j in 0..3 {
                let p = Vector::new(3.0 * i as Real - 6.0, 0.0, 3.0 * j as Real - 3.0);
                let r = minkowski::Rotation::from_axis_angle(
                    Vector::new(rng.signed(), rng.signed(), 0.5).normalize(),
                    rng.unit() * 3.0,
                );
                obstacles.push(Obstacle {
                    shape: s,
                    pose: Pose::new(r, p).unwrap(),
                });
            }
        }
        let mut hits = 0;
        let mut free_frames = 0;
        for (k, player) in shapes().iter().enumerate() {
            let player = player.scaled(0.6).unwrap();
            let mut at = Vector::new(0.0, 0.0, 7.0 + k as Real * 0.1);
            for _ in 0..300 {
                let m = Vector::new(rng.signed(), 0.2 * rng.signed(), rng.signed() - 0.3) * 0.4;
                let o = move_and_slide(&player, at, m, &obstacles, &QueryOptions::default());
                if o.hits == 0 && o.pushes == 0 {
                    assert!((o.position - (at + m)).length() < 1e-5);
                    free_frames += 1;
                }
                hits += o.hits;
                at = o.position;
                let pose = Pose::from_translation(at).unwrap();
                for ob in &obstacles {
                    let c = query::contact(ob.shape, &ob.pose, &player, &pose);
                    assert!(c.distance > -1e-3, "inside: {c:?}");
                }
            }
        }
        assert!(hits > 100, "the walks hit the field: {hits}");
        assert!(free_frames > 100, "and also moved freely: {free_frames}");
    }

    /// A cube switched in place to a larger shape overlaps its neighbour: push-out
    /// leaves it a skin away, along the contact normal.
    #[test]
    fn push_out_separates_an_overlap() {
        let block = Shape::from(Cuboid::new(Vector::splat(1.0)).unwrap());
        let obstacles = [Obstacle {
            shape: &block,
            pose: Pose::IDENTITY,
        }];
        let player = Shape::from(Cuboid::new(Vector::splat(0.5)).unwrap());
        let mut pushes = 0;
        let at = push_out(&player, Vector::new(1.2, 0.0, 0.0), &obstacles, &mut pushes);
        assert!(pushes >= 1);
        assert!((at.x - (1.5 + SKIN)).abs() < 1e-4, "{at}");
    }
}
