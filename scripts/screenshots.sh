#!/usr/bin/env bash
# Regenerates the viewer's pictures in docs/viewer/ (one per scene script in
# crates/minkowski-viewer/scripts/) and their frame times, under Xvfb with Mesa's
# software OpenGL: the same pictures whether or not this machine has a display.
#
#   scripts/screenshots.sh            # release build, every script
#
# Writes docs/viewer/*.png and docs/viewer/frame-times.md (the `--report` line of each
# run: median frame time, update and draw, broad and narrow ms, pairs, contacts).
# Needs Xvfb (`apt-get install xvfb`; scripts/viewer-ci.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v Xvfb >/dev/null || { echo "screenshots.sh: Xvfb not found (apt-get install xvfb)" >&2; exit 2; }

cargo build --release --locked -p minkowski-viewer
bin="${CARGO_TARGET_DIR:-target}/release"
bin="$(cd "$bin" && pwd)/minkowski-viewer"
out=docs/viewer
mkdir -p "$out"

# A display number of our own, and the server stopped by its pid on exit.
display=$((300 + $$ % 300))
while [ -e "/tmp/.X11-unix/X$display" ] || [ -e "/tmp/.X$display-lock" ]; do display=$((display + 1)); done
Xvfb ":$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill "$xvfb" 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -e "/tmp/.X11-unix/X$display" ] && break; sleep 0.1; done

times="$out/frame-times.md"
{
    echo "# Viewer frame times"
    echo
    echo "Software rendering (Xvfb, Mesa llvmpipe), 960 × 600, release build, \`scripts/screenshots.sh\`"
    echo "on $(nproc) cores; median over each script's frames (the first tenth left out). \`update\`: the"
    echo "scene's simulation (broad + narrow phase, the player's casts; the dynamics world's step,"
    echo "\`step ms\`; the character controller's update, also \`step ms\`, in the terrain scenes);"
    echo "\`draw\`: lighting the triangles and handing them to GL; the rest of each frame is Mesa's"
    echo "software rasteriser and the swap. The displaced terrain's bounding volumes are built once"
    echo "before the first frame (the HUD gives the time). The dynamics scenes step once a frame;"
    echo "with C on (pyramid, card house, mass ratio) \`update\` includes finding the drawn contacts."
    echo "Other jobs may share the cores: figures vary by a third or more from run to run."
    echo
    echo '```'
} > "$times"
scripts_dir=$(pwd)/crates/minkowski-viewer/scripts
for script in demo demo-ghost demo-gjk seed000 crowd crowd-tree \
    pyramid card-house tumbler stack mass-ratio friction-ramp large-pyramid terrain displaced; do
    scene=$script
    case $script in demo-*) scene=demo ;; esac
    echo "screenshots.sh: $script" >&2
    (cd "$out" && DISPLAY=":$display" "$bin" --scene "$scene" --script "$scripts_dir/$script.txt" --report) \
        | sed "s/^/$script: /" | tee -a "$times"
done
echo '```' >> "$times"
echo "screenshots.sh: wrote $out/*.png and $times" >&2
