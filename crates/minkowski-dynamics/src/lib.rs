//! Rigid-body dynamics and a character controller built on the `minkowski` collision
//! library (issue 22): bodies and mass properties, persistent contacts, a soft-step
//! solver, continuous collision for fast bodies, and a kinematic character that glides
//! along what it touches (seed 004).
//!
//! Units are the library's: lengths in the caller's length unit, time in seconds, mass
//! in the caller's mass unit; frames are right-handed with +Y up unless a scene says
//! otherwise.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod body;
pub mod box_box_manifold;
pub mod character;
pub mod contact_cache;
pub mod contact_manifold;
pub mod graph_colouring;
pub mod hash;
pub mod integrate;
pub mod island;
pub mod mass_properties;
pub mod persistent_manifold;
pub mod scenes;
pub mod solver;
pub mod world;

pub use body::{Body, BodyDesc, BodyError, BodyKind};
pub use mass_properties::{MassError, MassProperties};
pub use solver::SolverSettings;
pub use world::{BodyId, PhaseTimes, StepStats, World, WorldError, WorldSettings};
