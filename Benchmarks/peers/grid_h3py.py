#!/usr/bin/env python3
"""SPEC §7.2 grid heatmap on H3 cells (SPEC §18) computed with h3-py and a SciPy cKDTree.

The job as an analyst with h3-py would write it:
  1. read and validate the CSVs with pandas, SPEC §4 keys, last version wins, the two windows
     (the same reading as grid_geopandas.py, which this script imports);
  2. every incident's own cell with h3's `latlng_to_cell` at the resolution, `n_current` and
     `n_previous` summed per cell;
  3. candidate cells: the occupied cells grown ring by ring with `grid_disk(cell, 1)` until the
     rings cover every centre that can lie within the radius of an incident (the radius plus the
     largest centre-to-vertex distance, over the smallest centre spacing seen, with a 20 % margin
     for H3's distortion); the outermost ring must come out empty, or the script stops;
  4. the candidates' centres (`cell_to_latlng`) and the incidents as 3-D unit vectors; one cKDTree
     per count (current, previous, current and handled) answers "how many within the chord of the
     radius" for every centre, once with the chord shrunk and once grown by 1e-9; a centre whose
     two answers differ is recounted with the SPEC haversine (Python's math module, the C
     library's sin/cos/asin), so `d <= radius` is decided exactly as the SPEC says;
  5. grid.csv's first eleven columns with `h3` first, rows in ascending 64-bit index.

Usage: grid_h3py.py --input FILE... --as-of ISO --resolution R --radius M --out-csv PATH
                    [--compare ENGINE_GRID_CSV]
"""

import math
import os
import sys
import time

import numpy as np
from h3.api import basic_int as h3
from scipy.spatial import cKDTree

import gridcommon as gc
from grid_geopandas import load_incidents

K = gc.DEG
R_EARTH = gc.EARTH_RADIUS_M
MARGIN = 1e-9  # relative width of the chord band recounted with the exact haversine


def haversine_m(lat1, lon1, lat2, lon2):
    """SPEC §7: a = sin²(Δφ/2) + cos φ1 · cos φ2 · sin²(Δλ/2), d = 2R · asin(√a)."""
    s_phi = math.sin((lat2 * K - lat1 * K) / 2)
    s_lam = math.sin((lon2 * K - lon1 * K) / 2)
    a = s_phi * s_phi + math.cos(lat1 * K) * math.cos(lat2 * K) * (s_lam * s_lam)
    return 2 * R_EARTH * math.asin(math.sqrt(a))


def unit_vectors(lat, lon):
    phi, lam = np.asarray(lat) * K, np.asarray(lon) * K
    c = np.cos(phi)
    return np.column_stack((c * np.cos(lam), c * np.sin(lam), np.sin(phi)))


def ring_count(occupied, radius):
    """Rings of grid_disk around the occupied cells that reach every centre within `radius` of
    an incident: (radius + largest centre-to-vertex distance) / smallest spacing across a ring."""
    reach, spacing = 0.0, math.inf
    for cell in occupied:
        lat, lon = h3.cell_to_latlng(cell)
        for vlat, vlon in h3.cell_to_boundary(cell):
            reach = max(reach, haversine_m(lat, lon, vlat, vlon))
        for other in h3.grid_disk(cell, 1):
            if other != cell:
                spacing = min(spacing, haversine_m(lat, lon, *h3.cell_to_latlng(other)))
    # A cell k rings away has its centre at least k · spacing · √3/2 away on a hexagonal lattice.
    return max(1, math.ceil((radius + reach) / (0.8 * spacing * math.sqrt(3) / 2)))


def candidate_cells(occupied, rings):
    """The occupied cells grown by `rings` rings; also the cells of the last ring."""
    seen = set(occupied)
    front = seen
    for _ in range(rings):
        grown = set()
        for cell in front:
            grown.update(h3.grid_disk(cell, 1))
        front = grown - seen
        seen |= front
    return np.array(sorted(seen), dtype=np.uint64), front


def counts_within(lat, lon, centres, clat, clon, radius):
    """Incidents (lat, lon) within `radius` of each centre: cKDTree on chords, the band at the
    chord's edge recounted with the SPEC haversine."""
    if len(lat) == 0:
        return np.zeros(len(centres), dtype=np.int64)
    tree = cKDTree(unit_vectors(lat, lon))
    chord = 2 * math.sin(radius / R_EARTH / 2)
    low = tree.query_ball_point(centres, chord * (1 - MARGIN), return_length=True, workers=-1)
    high = tree.query_ball_point(centres, chord * (1 + MARGIN), return_length=True, workers=-1)
    counts = np.asarray(low, dtype=np.int64).copy()
    for i in np.flatnonzero(np.asarray(high) != np.asarray(low)):
        near = tree.query_ball_point(centres[i], chord * (1 + MARGIN))
        counts[i] = sum(haversine_m(lat[j], lon[j], clat[i], clon[i]) <= radius for j in near)
    return counts


def grid(inc, resolution, radius):
    """The SPEC §7.2 rows as arrays: cells (ascending), centres and the five counts."""
    lat, lon = inc["lat"].to_numpy(), inc["lon"].to_numpy()
    cur, prev, hand = (inc[c].to_numpy() > 0 for c in ("nc", "np", "nh"))
    own = np.fromiter((h3.latlng_to_cell(a, o, resolution) for a, o in zip(lat, lon)),
                      dtype=np.uint64, count=len(lat))
    occupied = np.unique(own)
    if len(occupied) == 0:
        return {}
    rings = ring_count(occupied.tolist(), radius)
    cells, last_ring = candidate_cells(occupied.tolist(), rings)
    centre = np.array([h3.cell_to_latlng(int(c)) for c in cells])
    clat, clon = centre[:, 0], centre[:, 1]
    xyz = unit_vectors(clat, clon)
    out = {"cell": cells, "lat": clat, "lon": clon}
    for name, sel in (("r_current", cur), ("r_previous", prev), ("handled", hand)):
        out[name] = counts_within(lat[sel], lon[sel], xyz, clat, clon, radius)
    pos = np.searchsorted(cells, own)
    out["n_current"] = np.bincount(pos[cur], minlength=len(cells))
    out["n_previous"] = np.bincount(pos[prev], minlength=len(cells))
    edge = np.isin(cells, np.array(sorted(last_ring), dtype=np.uint64))
    if (out["r_current"][edge] + out["r_previous"][edge]).any():
        raise SystemExit(f"grid_h3py: {rings} rings do not cover the radius (a cell of the last ring "
                         "has an incident within the radius of its centre)")
    keep = (out["r_current"] + out["r_previous"] + out["n_current"] + out["n_previous"]) > 0
    return {k: v[keep] for k, v in out.items()}


def write_csv(rows, path, thresholds):
    lo, hi = thresholds
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        fh.write("h3,lat,lon,n_current,n_previous,r_current,r_previous,delta,pct,handled,class\n")
        lines = []
        for c, la, lo_, nc, npv, rc, rp, h in zip(*(rows.get(k, []) for k in (
                "cell", "lat", "lon", "n_current", "n_previous", "r_current", "r_previous", "handled"))):
            delta = int(rc) - int(rp)
            pct = "%.4f" % (delta / rp) if rp > 0 else ""
            lines.append(f"{int(c):015x},{la:.6f},{lo_:.6f},{nc},{npv},{rc},{rp},{delta},{pct},{h},"
                         f"{gc.class_of(rc, (lo, hi))}\n")
        fh.write("".join(lines))
    os.replace(tmp, path)
    return len(lines)


def compare(ours, engine, columns=11):
    """Exits non-zero naming the first line where the two CSVs' first `columns` columns differ."""
    def rows(path):
        with open(path, encoding="utf-8") as f:
            return [",".join(line.rstrip("\n").split(",")[:columns]) for line in f]
    a, b = rows(ours), rows(engine)
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            raise SystemExit(f"grid_h3py: DIFFERENT at line {i + 1}:\n  h3-py:     {x}\n  areawatch: {y}")
    if len(a) != len(b):
        raise SystemExit(f"grid_h3py: DIFFERENT: {len(a) - 1} cells from h3-py, {len(b) - 1} from areawatch")


def main():
    p = gc.make_parser(__doc__.splitlines()[0])
    p.add_argument("--resolution", type=int, default=9, help="H3 resolution 0…15 (default 9)")
    p.add_argument("--compare", metavar="GRID_CSV", help="the engine's grid.csv: exit 1 unless identical")
    args = p.parse_args()
    t0 = time.time()
    T, T1, T2 = gc.windows(args.as_of)
    inc = load_incidents(args.input, gc.column_overrides(args), T, T1, T2)
    t_read = time.time() - t0
    rows = grid(inc, args.resolution, args.radius)
    n = write_csv(rows, args.out_csv, gc.parse_thresholds(args.thresholds))
    if not args.quiet:
        print(f"grid_h3py: {n} cells, H3 resolution {args.resolution}, radius {args.radius:g} m, "
              f"read {t_read:.2f} s, {time.time() - t0:.2f} s", file=sys.stderr)
    if args.compare:
        compare(args.out_csv, args.compare)
        if not args.quiet:
            print(f"grid_h3py: identical to {args.compare}", file=sys.stderr)


if __name__ == "__main__":
    main()
