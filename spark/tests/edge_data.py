"""Generated inputs for the scale-out tests (SPEC §15): incidents exactly on shard edges and
corners, at 999.9 / 1000 / 1000.1 m from the grid cell centres across those edges, across the
antimeridian and near both poles; ids repeated across files (a later file's edit wins, identical
content is a duplicate) and identical id-less rows; times in every window and after the as-of.

Everything is derived from a seed, so a failing case can be regenerated exactly.
"""

import csv
import math
import random

R = 6371008.8  # SPEC §7
AS_OF = "2018-07-31T23:59:59Z"
# A corner of the precision-3 shard lattice (hence of every finer one): lat = -90 + 102·180/2^7,
# lon = -180 + 127·360/2^8.
CORNER = (53.4375, -1.40625)
TIMES = ["2018-07-31T23:59:59Z", "2018-01-15T10:00:00Z", "2017-07-31T23:59:59Z", "2017-03-01T00:00:00Z",
         "2016-07-31T23:59:59Z", "2015-05-05T05:05:05Z", "2018-08-01T00:00:00Z", "2018-07", "2017-12-24"]
CATEGORIES = ["burglary", "vehicle-crime", "anti-social-behaviour", ""]


def destination(lat, lon, bearing_deg, metres):
    """The point `metres` from (lat, lon) along the great circle of the bearing."""
    d = metres / R
    p1, l1, b = math.radians(lat), math.radians(lon), math.radians(bearing_deg)
    p2 = math.asin(math.sin(p1) * math.cos(d) + math.cos(p1) * math.sin(d) * math.cos(b))
    l2 = l1 + math.atan2(math.sin(b) * math.sin(d) * math.cos(p1), math.cos(d) - math.sin(p1) * math.sin(p2))
    lon2 = (math.degrees(l2) + 540) % 360 - 180
    return max(-90.0, min(90.0, math.degrees(p2))), lon2


def cell_centre(lat, lon, precision):
    """Centre of the geohash cell of a point (SPEC §6), from the cell's row and column."""
    lon_bits, lat_bits = (5 * precision + 1) // 2, 5 * precision // 2
    w, h = 360 / 2 ** lon_bits, 180 / 2 ** lat_bits
    col = min(2 ** lon_bits - 1, int((lon + 180) // w))
    row = min(2 ** lat_bits - 1, int((lat + 90) // h))
    return -90 + (row + 0.5) * h, -180 + (col + 0.5) * w


def edge_points(grid_precision):
    """Points on and across the shard edges at the corner, the antimeridian and the poles."""
    clat, clon = CORNER
    points = [(clat, clon), (clat, clon + 0.01), (clat, clon - 0.01), (clat + 0.01, clon), (clat - 0.01, clon)]
    h = 180 / 2 ** (5 * grid_precision // 2)
    w = 360 / 2 ** ((5 * grid_precision + 1) // 2)
    # Cell centres next to the corner on each side; incidents at the boundary distances from
    # them in the four directions and diagonally, so that they land across the edges.
    for dlat in (-0.5, 0.5, 1.5):
        for dlon in (-0.5, 0.5, -1.5):
            centre = (clat + dlat * h, clon + dlon * w)
            for bearing in (0, 45, 90, 135, 180, 225, 270, 315):
                for metres in (999.9, 1000.0, 1000.1):
                    points.append(destination(centre[0], centre[1], bearing, metres))
    # The antimeridian: on it, beside it, and at the boundary distances across it.
    for lat in (0.0, 10.0, -33.0, 60.0):
        points += [(lat, 180.0), (lat, -180.0), (lat, 179.9999), (lat, -179.9999)]
        centre = cell_centre(lat, 179.9999, grid_precision)
        for metres in (999.9, 1000.0, 1000.1):
            points.append(destination(centre[0], centre[1], 90, metres))
            points.append(destination(centre[0], -centre[1], 270, metres))
    # Near the poles (close enough that the radius spans many shards' longitudes).
    points += [(89.95, 0.0), (89.95, 179.99), (-89.9, -45.0), (-89.9, 120.0)]
    return points


# Beside Fiji, where H3 cells straddle the antimeridian (SPEC §18's boundary case).
FIJI = (-17.8, 179.95)


def h3_edge_points(resolution):
    """Points for an H3 grid (SPEC §18) from h3-py, the reference the engine's H3 is checked
    against: on and beside the shard corner, at 999.9 / 1000 / 1000.1 m from the centres of the
    H3 cells around it and around Fiji (across the antimeridian), and near both poles. At coarse
    resolutions a cell's centre is often in another shard than some of its incidents."""
    import h3

    clat, clon = CORNER
    points = [(clat, clon), (clat, clon + 0.01), (clat, clon - 0.01), (clat + 0.01, clon), (clat - 0.01, clon)]
    for lat, lon in ((clat, clon), FIJI, (FIJI[0], -FIJI[1])):
        for cell in sorted(h3.grid_disk(h3.latlng_to_cell(lat, lon, resolution), 1)):
            centre = h3.cell_to_latlng(cell)
            points.append(centre)
            for bearing in (0, 60, 90, 150, 210, 270, 330):
                for metres in (999.9, 1000.0, 1000.1):
                    points.append(destination(centre[0], centre[1], bearing, metres))
            # A vertex: an incident on it is inside one of the cells meeting there.
            points.append(h3.cell_to_boundary(cell)[0])
    for lat in (FIJI[0], 0.0, 60.0):
        points += [(lat, 180.0), (lat, -180.0), (lat, 179.9999), (lat, -179.9999)]
    points += [(89.95, 0.0), (89.95, 179.99), (-89.9, -45.0), (-89.9, 120.0)]
    return points


def write_files(folder, grid_precision=6, seed=15, per_point=3, points=None):
    """Writes three CSV exports and returns their paths, in ingest order. `points` replaces the
    geohash edge points (`edge_points(grid_precision)`)."""
    rng = random.Random(seed)
    points = edge_points(grid_precision) if points is None else points
    rows = []
    for k, (lat, lon) in enumerate(points):
        for j in range(per_point):
            rows.append({"id": "e%d-%d" % (k, j), "lat": repr(lat), "lon": repr(lon), "timestamp": rng.choice(TIMES),
                         "category": rng.choice(CATEGORIES), "handled": rng.choice(["true", "false", ""])})
    rng.shuffle(rows)
    third = len(rows) // 3
    a, b, c = rows[:third], rows[third:2 * third], rows[2 * third:]
    # File b repeats some of a's ids: half edited (moved across an edge, new time), half identical.
    for row in a[: len(a) // 4]:
        copy = dict(row)
        if rng.random() < 0.5:
            lat, lon = destination(float(row["lat"]), float(row["lon"]), rng.choice([0, 90, 180, 270]), 1500.0)
            copy.update(lat=repr(lat), lon=repr(lon), timestamp=rng.choice(TIMES))
        b.append(copy)
    # Identical id-less rows: three in c, two of them again in b (SPEC §4 snapshot ordinals).
    idless = {"id": "", "lat": repr(CORNER[0]), "lon": repr(CORNER[1]), "timestamp": TIMES[1], "category": "burglary",
              "handled": ""}
    c += [dict(idless) for _ in range(3)]
    b += [dict(idless) for _ in range(2)]
    # A reject of every coordinate kind, so the rejects counts are compared too.
    c += [{"id": "bad1", "lat": "", "lon": "1", "timestamp": TIMES[0], "category": "", "handled": ""},
          {"id": "bad2", "lat": "91", "lon": "1", "timestamp": TIMES[0], "category": "", "handled": ""},
          {"id": "bad3", "lat": "0", "lon": "0", "timestamp": TIMES[0], "category": "", "handled": ""},
          {"id": "bad4", "lat": "1", "lon": "1", "timestamp": "yesterday", "category": "", "handled": ""}]
    paths = []
    for name, part in (("edges-a.csv", a), ("edges-b.csv", b), ("edges-c.csv", c)):
        path = "%s/%s" % (folder, name)
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=["id", "lat", "lon", "timestamp", "category", "handled"])
            writer.writeheader()
            writer.writerows(part)
        paths.append(path)
    return paths
