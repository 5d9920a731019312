//! The double-precision build of the `minkowski` sources: every `Real` is `f64`.
//!
//! The sources (`src`, `tests`) are the `minkowski` crate's, linked; this script
//! sets the `minkowski_f64` configuration that switches the scalar type, so the two
//! precisions are two crates that can live in one build (a Cargo feature would be
//! unified across the whole build: one dependency turning it on would switch everyone).
fn main() {
    println!("cargo::rustc-check-cfg=cfg(minkowski_f64)");
    println!("cargo::rustc-cfg=minkowski_f64");
}
