#!/usr/bin/env python3
"""areawatch's H3 cells and centres against h3-py: 10,000 random points per resolution 0…15.

For each resolution R the points (uniform on the sphere, seeded, written with every digit of the
double, plus both poles, the antimeridian on both sides and the twelve pentagons' centres) go
through `areawatch report --grid h3:R` and through grid_h3py.py's grid (h3-py's `latlng_to_cell`
and `cell_to_latlng`, radius about one cell edge). The two grid.csv files must be identical in
their first eleven columns: every cell with its incidents (`n_current`, each point's own cell),
its centre as grid.csv prints it (6 decimals) and its radius counts. Exits 1 at the first
difference.

Usage: h3_cells.py [--binary PATH] [--points 10000] [--resolutions 0-15] [--work DIR]
"""

import argparse
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

import h3

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gridcommon as gc  # noqa: E402
import grid_h3py  # noqa: E402
from grid_geopandas import load_incidents  # noqa: E402

AS_OF = "2018-07-31T23:59:59Z"
WHEN = "2018-03-01T12:00:00Z"  # inside the current window of AS_OF


def points(resolution, count):
    rng = random.Random(9000 + resolution)
    out = [(math.degrees(math.asin(rng.uniform(-1.0, 1.0))), rng.uniform(-180.0, 180.0)) for _ in range(count)]
    out += [(90.0, 0.0), (-90.0, 0.0), (12.5, 180.0), (-12.5, -180.0), (-17.5, 179.95), (-17.5, -179.95)]
    out += [h3.cell_to_latlng(p) for p in sorted(h3.get_pentagons(resolution))]
    return out


def write_points(path, pts):
    with open(path, "w", encoding="utf-8") as f:
        f.write("incident_id,occurred_at,latitude,longitude,category,handled\n")
        for i, (lat, lon) in enumerate(pts):
            f.write(f"p{i},{WHEN},{lat!r},{lon!r},Test,{'true' if i % 3 == 0 else 'false'}\n")


def check(binary, resolution, count, work):
    csv = os.path.join(work, f"points-r{resolution}.csv")
    write_points(csv, points(resolution, count))
    radius = min(50000, max(1, round(h3.average_hexagon_edge_length(resolution, "m"))))
    folder = os.path.join(work, f"report-r{resolution}")
    shutil.rmtree(folder, ignore_errors=True)
    subprocess.run([binary, "report", "--input", csv, "--out", folder, "--as-of", AS_OF, "--grid",
                    f"h3:{resolution}", "--radius", str(radius), "--formats", "csv", "--tile-zooms", "none",
                    "--quiet"], check=True, stdout=subprocess.DEVNULL)
    T, T1, T2 = gc.windows(AS_OF)
    inc = load_incidents([csv], {}, T, T1, T2)
    ours = os.path.join(work, f"h3py-r{resolution}.csv")
    cells = grid_h3py.write_csv(grid_h3py.grid(inc, resolution, radius), ours, (5, 10))
    grid_h3py.compare(ours, os.path.join(folder, "grid.csv"))
    return cells, radius


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", default=os.environ.get("AREAWATCH_BIN", ".build/release/areawatch"))
    p.add_argument("--points", type=int, default=10000)
    p.add_argument("--resolutions", default="0-15", help="e.g. 0-15 or 9")
    p.add_argument("--work", help="keep the files here (default: a temporary folder)")
    a = p.parse_args()
    lo, _, hi = a.resolutions.partition("-")
    work = a.work or tempfile.mkdtemp(prefix="h3-cells-")
    os.makedirs(work, exist_ok=True)
    try:
        for r in range(int(lo), int(hi or lo) + 1):
            t0 = time.monotonic()
            cells, radius = check(a.binary, r, a.points, work)
            print(f"h3_cells: resolution {r}: {a.points:,} random points + poles, antimeridian, pentagons; "
                  f"{cells:,} cells (radius {radius} m) identical ({time.monotonic() - t0:.1f} s)", file=sys.stderr)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    print(f"h3_cells: areawatch and h3-py agree at resolutions {a.resolutions}", file=sys.stderr)


if __name__ == "__main__":
    main()
