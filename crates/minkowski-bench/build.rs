//! Compiles the C/C++ shims of the peer libraries that the enabled features ask for
//! (`bullet`, `ccd`, `fcl`, `coal`), each against its own library found by pkg-config.
//! With none of those features this does nothing, so the default build needs no system
//! packages. `scripts/setup-peers.sh` installs the libraries; coal comes from a PyPI
//! wheel whose prefix is `MINKOWSKI_COAL_PREFIX`, or by default the one the script makes
//! under the workspace's `target/peers-venv`.

use std::env;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=shims");
    println!("cargo:rerun-if-env-changed=MINKOWSKI_COAL_PREFIX");
    let on = |f: &str| env::var_os(format!("CARGO_FEATURE_{}", f.to_uppercase())).is_some();
    let f64 = on("f64");
    if on("bullet") {
        // Never link the float and the double builds into one process.
        let lib = probe(if f64 { "bullet-float64" } else { "bullet" }, None);
        let mut b = cc::Build::new();
        b.cpp(true)
            .file("shims/bullet.cpp")
            .file("shims/bullet_cast.cpp")
            .file("shims/bullet_static.cpp")
            .file("shims/bullet_dynamics.cpp")
            .warnings(false);
        b.define("MK_REAL", if f64 { "double" } else { "float" });
        add(&mut b, &lib);
        // pkg-config's -D flags (BT_USE_DOUBLE_PRECISION) are not in `defines` for all
        // versions of the crate: pass it explicitly.
        if f64 {
            b.define("BT_USE_DOUBLE_PRECISION", None);
        }
        b.compile("mk_bullet");
    }
    // libccd, FCL and coal are double precision only: like-for-like means f64 builds.
    if on("ccd") && f64 {
        let lib = probe("ccd", None);
        let mut b = cc::Build::new();
        b.file("shims/ccd.c").warnings(false);
        add(&mut b, &lib);
        b.compile("mk_ccd");
    }
    if on("fcl") && f64 {
        // Debian's FCL and Eigen, never coal's (a PKG_CONFIG_PATH that names the coal
        // prefix would also hand FCL the wheel's octomap).
        let lib = probe("fcl", Some(""));
        let mut b = cc::Build::new();
        b.cpp(true)
            .file("shims/fcl.cpp")
            .std("c++17")
            .warnings(false);
        add(&mut b, &lib);
        b.compile("mk_fcl");
    }
    if on("coal") && f64 {
        let prefix = coal_prefix();
        let pc = format!(
            "{}:{}",
            prefix.join("lib/pkgconfig").display(),
            prefix.join("share/pkgconfig").display()
        );
        let lib = probe("coal", Some(&pc));
        let mut b = cc::Build::new();
        b.cpp(true)
            .file("shims/coal.cpp")
            .std("c++17")
            .warnings(false);
        add(&mut b, &lib);
        b.compile("mk_coal");
        for dir in &lib.link_paths {
            println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
        }
    }
}

/// The library as pkg-config describes it; `path`, when given, replaces the search path.
fn probe(name: &str, path: Option<&str>) -> pkg_config::Library {
    if let Some(p) = path {
        // Build scripts run single-threaded; the variable is read back by pkg-config.
        env::set_var("PKG_CONFIG_PATH", p);
    }
    pkg_config::Config::new()
        .cargo_metadata(true)
        .probe(name)
        .unwrap_or_else(|e| {
            panic!("peer library `{name}` not found ({e}); run scripts/setup-peers.sh first")
        })
}

fn add(b: &mut cc::Build, lib: &pkg_config::Library) {
    b.include("shims");
    for p in &lib.include_paths {
        b.include(p);
    }
    for (k, v) in &lib.defines {
        b.define(k, v.as_deref());
    }
}

fn coal_prefix() -> PathBuf {
    if let Some(p) = env::var_os("MINKOWSKI_COAL_PREFIX") {
        return PathBuf::from(p);
    }
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let venv = manifest.join("../../target/peers-venv/lib");
    let found = std::fs::read_dir(&venv).ok().and_then(|dirs| {
        dirs.filter_map(Result::ok)
            .map(|d| d.path().join("site-packages/cmeel.prefix"))
            .find(|p| p.join("lib/pkgconfig/coal.pc").exists())
    });
    found.unwrap_or_else(|| {
        panic!(
            "coal not found under {}; run scripts/setup-peers.sh (or set MINKOWSKI_COAL_PREFIX)",
            Path::new(&venv).display()
        )
    })
}
