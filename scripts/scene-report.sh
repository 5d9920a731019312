#!/usr/bin/env bash
# Times `minkowski scene` for 10^3, 10^4 and 10^5 moving objects with every broad phase,
# 1 and 2 threads (full contacts), and 2 threads with touch-only contacts; then seed 000's
# forced-overlap layout for A = 2..18. Prints Markdown tables (median ms per frame).
#
#   scripts/scene-report.sh            (about five minutes on the 2-core CI machine)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -q -p minkowski-cli
bin=target/release/minkowski
summary() { "$bin" scene "$@" --json | tail -1; }
field() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print('%.2f' % d[sys.argv[2]])" "$1" "$2"; }
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo
echo "| objects | broad phase | 1 thread: frame (broad + narrow) | 2 threads: frame (broad + narrow) | 2 threads, touch only: frame (broad + narrow) |"
echo "|---|---|---|---|---|"
for n in 1000 10000 100000; do
    case $n in 1000) frames=100 ;; 10000) frames=30 ;; *) frames=8 ;; esac
    for bp in grid sap bvh; do
        row="| $n | $bp |"
        for args in "--threads 1" "--threads 2" "--threads 2 --contacts touch"; do
            # shellcheck disable=SC2086
            s=$(summary --objects "$n" --frames "$frames" --broadphase "$bp" $args)
            row="$row $(field "$s" median_frame_ms) ($(field "$s" median_broad_ms) + $(field "$s" median_narrow_ms)) |"
        done
        echo "$row"
    done
done
echo
echo "Seed 000's layout (A of each of the four shapes at one spot, every pair overlapping; bvh, 2 threads, full contacts):"
echo
echo "| A | objects | pairs | frame ms | broad ms | narrow ms |"
echo "|---|---|---|---|---|---|"
for a in 2 4 6 8 10 12 14 16 18; do
    first=$("$bin" scene --layout seed000 --array "$a" --frames 20 --json | head -1)
    s=$(summary --layout seed000 --array "$a" --frames 20)
    pairs=$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['pairs'])" "$first")
    echo "| $a | $((4 * a)) | $pairs | $(field "$s" median_frame_ms) | $(field "$s" median_broad_ms) | $(field "$s" median_narrow_ms) |"
done
