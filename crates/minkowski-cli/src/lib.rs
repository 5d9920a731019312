//! The `minkowski` tool's line handlers, as a library: the binary (`src/main.rs`) and
//! the fuzz targets (`fuzz/`) call the same code. Not a stable API: the protocol
//! (`query-protocol.md`) is the contract, these functions are its implementation.
// Casts to and from `Real` are no-ops in the f64 build and conversions in the f32 build.
#![allow(clippy::unnecessary_cast)]

pub mod hull_protocol;
pub mod protocol;
pub mod scene;
