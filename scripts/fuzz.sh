#!/usr/bin/env bash
# Runs the fuzz targets of fuzz/ (cargo fuzz, libFuzzer; needs a nightly toolchain):
#
#   scripts/fuzz.sh [--f64] [--replay | --runs N | SECONDS] [TARGET...]
#
# SECONDS per target (default 60); or exactly N inputs per target with a fixed seed
# (--runs); or --replay: run the committed seed corpus once, no mutation (what CI's
# smoke does: deterministic, and it proves the targets build and the seeds pass). Targets: query_line (raw bytes into the
# CLI's line handlers), queries (the library's pair queries with their invariants
# asserted), casts (rays, projections and shape casts with theirs), hulls (the 2D
# algorithms agree, the 3D hull validates), statics (the queries against heightfields,
# triangle meshes and half-spaces, with a triangle-by-triangle oracle); all by default.
# New corpus entries go to fuzz/corpus/TARGET (not committed); fuzz/seeds/TARGET is the
# committed seed corpus. A failing input is saved under fuzz/artifacts/TARGET and the
# script exits non-zero. Exit 2: no nightly toolchain (nothing was run).
set -euo pipefail
cd "$(dirname "$0")/.."

features=()
if [ "${1:-}" = "--f64" ]; then
    features=(--features f64)
    shift
fi
limit=(-max_total_time=60)
if [ "${1:-}" = "--replay" ]; then
    limit=(-runs=0)
    shift
elif [ "${1:-}" = "--runs" ]; then
    limit=("-runs=$2" -seed=1)
    shift 2
elif [ -n "${1:-}" ] && [[ "$1" =~ ^[0-9]+$ ]]; then
    limit=("-max_total_time=$1")
    shift
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(query_line queries casts hulls statics)
fi

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "!!! FUZZING SKIPPED: no nightly toolchain (rustup toolchain install nightly)"
    exit 2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    if ! cargo install cargo-fuzz --locked; then
        echo "!!! FUZZING SKIPPED: cargo-fuzz could not be installed"
        exit 2
    fi
fi
for t in "${targets[@]}"; do
    echo "== fuzz $t ${features[*]} ${limit[*]}"
    if [ "${limit[0]}" = "-runs=0" ]; then
        # Replay: the seeds only, nothing written back.
        dirs=("fuzz/seeds/$t")
    else
        mkdir -p "fuzz/corpus/$t"
        dirs=("fuzz/corpus/$t" "fuzz/seeds/$t")
    fi
    # The whole output goes to fuzz/artifacts/TARGET.log (not committed); shown here are
    # a failure's panic message and the final statistics.
    mkdir -p fuzz/artifacts
    log="fuzz/artifacts/$t.log"
    status=0
    cargo +nightly fuzz run "${features[@]}" "$t" "${dirs[@]}" -- \
        "${limit[@]}" -max_len=4096 -print_final_stats=1 >"$log" 2>&1 || status=$?
    grep -A 3 "panicked at" "$log" | head -n 20 || true
    grep -E "^(stat::|Done|INFO: Running)|Test unit written|SUMMARY" "$log" | tail -n 12 || true
    if [ "$status" -ne 0 ]; then
        echo "!!! fuzz target $t failed (exit $status); full output in $log"
        exit "$status"
    fi
done
