#!/usr/bin/env python3
"""Writes the H3 golden values the Swift tests compare the vendored H3 library against.

h3-py (`pip install h3`, version 4.x) computes, for 200 seeded points and resolutions, the cell
(latLngToCell), its centre (cellToLatLng) and its boundary (cellToBoundary). The points mix
uniform ones on the sphere with the hard places: the poles, the antimeridian, the equator, the
twelve pentagons' centres, and points a hair away from a cell's vertex. The Swift tests read the
file; they never run Python.

    python3 Tools/h3_golden.py > Tests/AreaWatchCoreTests/Fixtures/h3-golden.tsv

Each line: lat, lon, resolution, cell, centre lat, centre lon, and the boundary as
`lat lon;lat lon;...`, tab-separated. Floats are Python's repr, which reads back to the same
double.
"""
import math
import random
import sys

import h3


def points(rng):
    out = []
    for _ in range(120):
        z = rng.uniform(-1, 1)  # uniform on the sphere
        out.append((math.degrees(math.asin(z)), rng.uniform(-180, 180), rng.randint(0, 15)))
    for lat, lon in [(90, 0), (-90, 0), (90, 180), (-90, -180), (0, 180), (0, -180), (0, 0),
                     (89.9999, 179.9999), (-89.9999, -179.9999), (53.741022, -1.888982),
                     (51.5074, -0.1278), (-33.8688, 151.2093), (64.1466, -21.9426), (71.0, -179.99)]:
        out.append((lat, lon, rng.randint(0, 15)))
    for res in (0, 5, 9, 15):
        for p in sorted(h3.get_pentagons(res))[::3]:
            lat, lon = h3.cell_to_latlng(p)
            out.append((lat, lon, res))
    while len(out) < 200:
        res = rng.randint(0, 15)
        cell = h3.latlng_to_cell(rng.uniform(-80, 80), rng.uniform(-180, 180), res)
        lat, lon = rng.choice(h3.cell_to_boundary(cell))
        out.append((lat + rng.choice([-1e-12, 0.0, 1e-12]), lon + rng.choice([-1e-12, 0.0, 1e-12]), res))
    return out


def main():
    rng = random.Random(20261127)
    w = sys.stdout
    w.write(f"# h3-py {h3.__version__} (H3 C {h3.versions()['c']}), written by Tools/h3_golden.py\n")
    for lat, lon, res in points(rng):
        cell = h3.latlng_to_cell(lat, lon, res)
        clat, clon = h3.cell_to_latlng(cell)
        ring = ";".join(f"{a!r} {b!r}" for a, b in h3.cell_to_boundary(cell))
        w.write(f"{lat!r}\t{lon!r}\t{res}\t{cell}\t{clat!r}\t{clon!r}\t{ring}\n")


if __name__ == "__main__":
    main()
