#!/usr/bin/env bash
# Installs what the peer benchmark (crates/minkowski-bench, feature `peers`) needs on a
# fresh Debian machine, and nothing when it is already there (idempotent):
#
#   - Debian packages: libccd-dev (libccd 2.1, double), libfcl-dev (FCL 0.7, pulls Eigen
#     and octomap), libbullet-dev (Bullet 3.24, float and float64 builds), pkg-config, g++,
#     cmake (the `nlopt` crate of the bench crate's `nlopt` feature builds NLopt with it);
#   - coal 3 from PyPI (`libcoal` + `cmeel-eigen`, C++ library and headers only) into the
#     virtualenv target/peers-venv.
#
# parry3d comes from crates.io through Cargo.lock like every other Rust dependency.
#
# Prints the environment the build needs (PKG_CONFIG_PATH for coal) as `export` lines on
# stdout, so `eval "$(scripts/setup-peers.sh)"` sets it; progress goes to stderr.
# Exit status: 0 when every peer is installed, 2 when a package registry could not be
# reached (nothing is half-installed then: rerun later), 1 on any other failure.
#
#   scripts/setup-peers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "setup-peers: $*" >&2; }

apt_packages=(pkg-config g++ cmake libccd-dev libfcl-dev libbullet-dev)
missing=()
for p in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    say "installing Debian packages: ${missing[*]}"
    if ! $sudo apt-get update -qq >&2; then
        say "UNREACHABLE: apt-get update failed (Debian's package registry)"
        exit 2
    fi
    if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >&2; then
        say "UNREACHABLE or failed: apt-get install ${missing[*]}"
        exit 2
    fi
else
    say "Debian packages present: ${apt_packages[*]}"
fi

venv=target/peers-venv
if [ ! -x "$venv/bin/python" ]; then
    say "creating $venv"
    python3 -m venv "$venv" >&2
fi
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
prefix="$site/cmeel.prefix"
if [ ! -f "$prefix/lib/pkgconfig/coal.pc" ] || [ ! -d "$prefix/include/eigen3" ]; then
    say "installing coal (libcoal, cmeel-eigen) from PyPI into $venv"
    if ! "$venv/bin/pip" install --quiet --disable-pip-version-check libcoal cmeel-eigen >&2; then
        say "UNREACHABLE or failed: pip install libcoal cmeel-eigen (PyPI)"
        exit 2
    fi
else
    say "coal present in $venv"
fi

for pc in ccd fcl bullet bullet-float64; do
    pkg-config --exists "$pc" || { say "pkg-config cannot find $pc after install"; exit 1; }
done
PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
    pkg-config --exists coal || { say "pkg-config cannot find coal in $prefix"; exit 1; }

say "all peers installed"
echo "export MINKOWSKI_COAL_PREFIX='$prefix'"
echo "export PKG_CONFIG_PATH='$prefix/lib/pkgconfig:$prefix/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}'"
