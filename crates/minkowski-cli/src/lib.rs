//! The `minkowski` tool's pieces, as a library: the binary (`src/main.rs`) and the fuzz
//! targets (`fuzz/`) call the same code. Not a stable API: the protocol
//! (`docs/query-protocol.md`) is the contract. Its line handlers live in the library
//! crate, [`minkowski::protocol`] (feature `protocol`), re-exported here under the names
//! the fuzz targets use.
// Casts to and from `Real` are no-ops in the f64 build and conversions in the f32 build.
#![allow(clippy::unnecessary_cast)]

pub use minkowski::protocol;
pub use minkowski::protocol::hull as hull_protocol;
/// The protocol's line handlers in double precision (`minkowski query --f64`).
pub use minkowski_f64::protocol as protocol_f64;
pub mod progress;
pub mod scene;
pub mod sim;
