#!/usr/bin/env bash
# Regenerates the side-by-side report, docs/benchmarks.md and its plots
# (docs/benchmarks-{f64,f32}-{times,ratios,vertices}.svg): installs the peers
# (scripts/setup-peers.sh), builds `peer-report` in both precisions and runs each once,
# on this machine. Takes about ten minutes on 2 cores.
#
#   scripts/bench-report.sh [CASES [ROUNDS]]
set -euo pipefail
cd "$(dirname "$0")/.."
cases="${1:-100}"
rounds="${2:-9}"
out=target/peer-report
mkdir -p "$out"

scripts/setup-peers.sh >/dev/null
for precision in f64 f32; do
    features=peers
    [ "$precision" = f64 ] && features=peers,f64
    cargo build --release --locked -p minkowski-bench --features "$features" --bin peer-report
    cp target/release/peer-report "$out/peer-report-$precision"
done
for precision in f64 f32; do
    echo "== peer-report ($precision)" >&2
    "$out/peer-report-$precision" --cases "$cases" --rounds "$rounds" \
        --md "$out/$precision.md" --svg "docs/benchmarks-$precision-" >/dev/null
done

ver() { pkg-config --modversion "$1" 2>/dev/null || echo "?"; }
coal_prefix=$(ls -d target/peers-venv/lib/python3*/site-packages/cmeel.prefix | head -1)
coal_version=$(PKG_CONFIG_PATH="$coal_prefix/lib/pkgconfig" pkg-config --modversion coal)
parry_version=$(grep -A1 '^name = "parry3d"$' Cargo.lock | sed -n 's/version = "\(.*\)"/\1/p')
{
    cat docs/benchmarks-intro.md
    echo
    echo "## This run"
    echo
    echo "- date: $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD)"
    echo "- machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
    echo "- peers: parry3d $parry_version (crates.io), Bullet $(ver bullet), libccd $(ver ccd) (Debian), FCL $(ver fcl) (Debian), coal $coal_version (PyPI wheel)"
    echo "- command: \`scripts/bench-report.sh $cases $rounds\` ($cases cases per class and placement, 48 for the 1024-vertex hulls; $rounds interleaved rounds)"
    echo
    echo "## Double precision (minkowski f64 against parry3d-f64, Bullet double, libccd, FCL, coal)"
    echo
    cat "$out/f64.md"
    echo
    echo "![times](benchmarks-f64-times.svg)"
    echo
    echo "![ratios](benchmarks-f64-ratios.svg)"
    echo
    echo "![vertices](benchmarks-f64-vertices.svg)"
    echo
    echo "## Single precision (minkowski f32 against parry3d and Bullet float)"
    echo
    cat "$out/f32.md"
    echo
    echo "![times](benchmarks-f32-times.svg)"
    echo
    echo "![ratios](benchmarks-f32-ratios.svg)"
    echo
    echo "![vertices](benchmarks-f32-vertices.svg)"
} > docs/benchmarks.md
echo "wrote docs/benchmarks.md" >&2
