//! `minkowski-viewer`: the interactive demo of minkowski.
//!
//! Seed 000's demo finished — a player shape among the seed's meshes, moved with the
//! arrow keys and Q/E, switched with 1–5, colliding shapes highlighted — with the
//! contact (normal, depth, closest points) drawn and the player swept and sliding
//! instead of passing through; the collision world's scenes (`minkowski scene`'s
//! layouts); the dynamics crate's scenes (pyramid, card house, tumbler, ...: bodies
//! stepped at 1/60 s, sleeping ones in their own colour, contact points on a key); and
//! the terrain scenes — a heightfield and seed 002's displacement-mapped terrain with
//! its multiresolution bounding volumes — with the character controller walking on
//! them. A scripted mode plays key presses from a file and writes screenshots, so the
//! demo runs in tests and without a display (under Xvfb).
//!
//! The window and drawing are in `app` (macroquad); everything a scene does — meshes,
//! motion, queries, the scene registry, scripts — is in this library, free of the
//! window, and tested without one.

pub mod mesh;
pub mod player;
pub mod scenes;
pub mod script;

/// What can go wrong before or while the viewer runs.
#[derive(Debug, thiserror::Error)]
pub enum ViewerError {
    /// A script line could not be read.
    #[error("script line {line}: {what}")]
    Script {
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        what: String,
    },
    /// A shape was refused by the library.
    #[error("shape: {0}")]
    Shape(#[from] minkowski::shape::ShapeError),
    /// A pose was refused by the library.
    #[error("pose: {0}")]
    Pose(#[from] minkowski::PoseError),
    /// A shape has no solid surface to draw.
    #[error("mesh: {0}")]
    Mesh(String),
    /// The collision world refused an object.
    #[error("world: {0}")]
    World(String),
    /// No scene of that name.
    #[error("no scene `{0}` (see --list)")]
    UnknownScene(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A screenshot could not be encoded.
    #[error("PNG {path}: {what}")]
    Png {
        /// The file.
        path: String,
        /// Why.
        what: String,
    },
}
