//! What the character stands on: the contacts of its final pose within the skin (and
//! the touch band), classified by the angle of their normal to `up`.
//!
//! A normal `n` (from the obstacle towards the character) is
//! * **walkable** when `n · up ≥ cos(max_slope)`;
//! * **steep** when [`MIN_FACING_UP`]` < n · up < cos(max_slope)`: a slope the character
//!   cannot climb, which gravity slides it down;
//! * otherwise a wall (`n · up` about 0) or a ceiling (`n · up < 0`).
//!
//! The ground is the walkable contact whose normal is closest to `up` (ties: the
//! nearest), else the steep one closest to `up`, else none.

use minkowski::{Point, Real, Vector};

use super::scene::CharacterContact;
use super::tolerance::{GROUND_TIE, MIN_FACING_UP};
use super::CharacterConfig;

/// How a plane's normal stands to `up`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlopeClass {
    /// Ground the character can stand and walk on.
    Walkable,
    /// A slope steeper than the limit, facing up.
    Steep,
    /// A wall or a ceiling.
    Wall,
}

/// The class of `normal` (unit, from the obstacle towards the character) under
/// `config`'s up and slope limit.
pub fn classify(normal: Vector, config: &CharacterConfig) -> SlopeClass {
    let c = normal.dot(config.up);
    if c >= config.walkable_cosine() {
        SlopeClass::Walkable
    } else if c > MIN_FACING_UP {
        SlopeClass::Steep
    } else {
        SlopeClass::Wall
    }
}

/// The contact the character stands on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroundContact<T> {
    /// What it stands on.
    pub target: T,
    /// The point of the ground (world frame).
    pub point: Point,
    /// The ground's unit normal, towards the character (world frame).
    pub normal: Vector,
    /// The ground's velocity at the point (length per time, world frame; zero for
    /// geometry that does not move).
    pub velocity: Vector,
    /// The distance from the character to the ground (length; about the skin at rest).
    pub distance: Real,
}

/// What the character stands on after an update.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GroundState<T> {
    /// On walkable ground.
    OnGround(GroundContact<T>),
    /// Touching only slopes steeper than the limit (sliding down them) below it.
    OnSteepGround(GroundContact<T>),
    /// Touching nothing below it.
    InAir,
}

impl<T> GroundState<T> {
    /// Whether the character stands on walkable ground.
    pub fn is_on_ground(&self) -> bool {
        matches!(self, GroundState::OnGround(_))
    }

    /// The ground contact, walkable or steep.
    pub fn contact(&self) -> Option<&GroundContact<T>> {
        match self {
            GroundState::OnGround(c) | GroundState::OnSteepGround(c) => Some(c),
            GroundState::InAir => None,
        }
    }
}

/// The ground among `contacts` within `reach` (length: the skin plus the touch band),
/// see the module notes; `velocity` gives a target's velocity at a point.
pub fn find_ground<T: Copy>(
    contacts: &[CharacterContact<T>],
    reach: Real,
    config: &CharacterConfig,
    velocity: impl Fn(T, Point) -> Vector,
) -> GroundState<T> {
    let mut best: Option<(SlopeClass, &CharacterContact<T>)> = None;
    for c in contacts.iter().filter(|c| c.distance <= reach) {
        let class = classify(c.normal, config);
        if class == SlopeClass::Wall {
            continue;
        }
        let better = match best {
            None => true,
            Some((bc, b)) => {
                let rank = |k: SlopeClass| (k == SlopeClass::Walkable) as u8;
                let (up_c, up_b) = (c.normal.dot(config.up), b.normal.dot(config.up));
                rank(class) > rank(bc)
                    || (rank(class) == rank(bc)
                        && (up_c > up_b + GROUND_TIE
                            || ((up_c - up_b).abs() <= GROUND_TIE && c.distance < b.distance)))
            }
        };
        if better {
            best = Some((class, c));
        }
    }
    match best {
        None => GroundState::InAir,
        Some((class, c)) => {
            let g = GroundContact {
                target: c.target,
                point: c.point,
                normal: c.normal,
                velocity: velocity(c.target, c.point),
                distance: c.distance,
            };
            if class == SlopeClass::Walkable {
                GroundState::OnGround(g)
            } else {
                GroundState::OnSteepGround(g)
            }
        }
    }
}
