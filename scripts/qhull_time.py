"""Times Qhull (scipy.spatial.ConvexHull) on the point files written by
`hull-bench --write DIR` and prints them beside minkowski's timings.

Usage: python qhull_time.py DIR OURS.tsv RUNS
"""
import sys
import time

import numpy as np
from scipy.spatial import ConvexHull


def main():
    directory, ours_path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rows = [line.rstrip("\n").split("\t") for line in open(ours_path)][1:]
    print("| cloud | points | hull vertices (ours / Qhull) | minkowski quickhull3d ms | Qhull ms | Qhull / ours |")
    print("|---|---|---|---|---|---|")
    for cloud, n, vertices, _faces, ours_ms in rows:
        pts = np.fromfile(f"{directory}/{cloud}-{n}.f64", dtype="<f8").reshape(-1, 3)
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            hull = ConvexHull(pts)
            times.append((time.perf_counter() - t) * 1e3)
        times.sort()
        qhull_ms = times[len(times) // 2]
        print(
            f"| {cloud} | {int(n):,} | {vertices} / {len(hull.vertices)} | {float(ours_ms):.1f} "
            f"| {qhull_ms:.1f} | {qhull_ms / float(ours_ms):.2f}x |"
        )


if __name__ == "__main__":
    main()
