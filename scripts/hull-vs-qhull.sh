#!/usr/bin/env bash
# Quickhull 3D against Qhull (scipy.spatial.ConvexHull) on the same seeded points, in one
# run: uniform ball and on-sphere clouds of 10^5 and 10^6 points, median of RUNS runs
# each (default 3). Installs numpy + scipy into a virtualenv under target/ (idempotent;
# needs PyPI). Not part of the default build or of CI.
#
#   scripts/hull-vs-qhull.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
venv=target/qhull-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -c "import scipy" 2>/dev/null || "$venv/bin/pip" install --quiet numpy scipy
dir=target/hull-points
mkdir -p "$dir"
cargo build --release --locked -p minkowski-bench --bin hull-bench
target/release/hull-bench --write "$dir" --runs "$runs" | tee "$dir/ours.tsv"
echo
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "Qhull: scipy $("$venv/bin/python" -c 'import scipy; print(scipy.__version__)')"
"$venv/bin/python" scripts/qhull_time.py "$dir" "$dir/ours.tsv" "$runs"
