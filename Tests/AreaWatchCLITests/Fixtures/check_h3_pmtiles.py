#!/usr/bin/env python3
"""Independent check of the grid.pmtiles of an H3 report (SPEC §18) with PyPI's readers and h3-py.

Reads every tile with `pmtiles`, decodes it with `mapbox-vector-tile`, and checks against the
JSON tiles of the same folder: every JSON tile's cell is a feature of the vector tile holding its
centre (h3-py's cell_to_latlng) with the JSON tile's values; every feature's property `h3` is a
cell of its zoom's JSON tiles; every ring has a positive area in y-down tile coordinates; and a
hexagon that lies inside its tile plus 256 units is drawn with exactly the vertices of h3-py's
cell_to_boundary projected and rounded on the zoom's global grid (4096 units a tile).

Usage: check_h3_pmtiles.py REPORT_DIR. Exit 0 and "ok: …" when everything matches; exit 1 with the
differences otherwise; exit 3 when a package is missing.
"""

import gzip
import json
import math
import os
import sys

try:
    import h3
    import mapbox_vector_tile
    from pmtiles.reader import MmapSource, Reader, all_tiles
except ImportError as error:
    print(f"missing Python package: {error}")
    sys.exit(3)

MAX_LAT = 85.05112877980659


def global_point(lat, lon, z):
    size = 2 ** z * 4096
    phi = math.radians(min(max(lat, -MAX_LAT), MAX_LAT))
    x = math.floor((lon + 180) / 360 * size + 0.5)
    y = math.floor((1 - math.log(math.tan(phi) + 1 / math.cos(phi)) / math.pi) / 2 * size + 0.5)
    return x, y


def tile_of(lat, lon, z):
    """The XYZ tile holding a location (Web Mercator, latitudes beyond its edge on the edge)."""
    n = 2 ** z
    phi = math.radians(min(max(lat, -MAX_LAT), MAX_LAT))
    x = math.floor((lon + 180) / 360 * n)
    y = math.floor((1 - math.log(math.tan(phi) + 1 / math.cos(phi)) / math.pi) / 2 * n)
    return min(max(x, 0), n - 1), min(max(y, 0), n - 1)


def main():
    folder = sys.argv[1]
    problems = []
    json_cells = {}  # (z, x, y) -> {h3: values}
    tiles_dir = os.path.join(folder, "tiles")
    for z in os.listdir(tiles_dir):
        if not z.isdigit():
            continue
        for x in os.listdir(os.path.join(tiles_dir, z)):
            for name in os.listdir(os.path.join(tiles_dir, z, x)):
                tile = json.load(open(os.path.join(tiles_dir, z, x, name)))
                json_cells[(int(z), int(x), int(name[:-5]))] = tile["cells"]
    by_zoom = {}
    for (z, _, _), cells in json_cells.items():
        by_zoom.setdefault(z, {}).update(cells)

    vector = {}
    with open(os.path.join(folder, "grid.pmtiles"), "rb") as f:
        source = MmapSource(f)
        meta = Reader(source).metadata()
        fields = set(meta.get("vector_layers", [{}])[0].get("fields", {}))
        if fields != {"h3", "r_current", "r_previous", "class", "change"}:
            problems.append(f"vector_layers fields {sorted(fields)}")
        if meta.get("areawatch", {}).get("grid", "").split(":")[0] != "h3":
            problems.append(f"metadata areawatch {meta.get('areawatch')}")
        for (z, x, y), data in all_tiles(source):
            decoded = mapbox_vector_tile.decode(gzip.decompress(data), default_options={"y_coord_down": True, "geojson": False})
            vector[(z, x, y)] = {f["properties"]["h3"]: f for f in decoded["cells"]["features"]}

    whole = 0
    for (z, x, y), features in vector.items():
        for key, feature in features.items():
            if key not in by_zoom.get(z, {}):
                problems.append(f"{z}/{x}/{y} {key}: not a cell of zoom {z}'s JSON tiles")
            geometry = feature["geometry"]
            polygons = [geometry["coordinates"]] if geometry["type"] == "Polygon" else geometry["coordinates"]
            for polygon in polygons:
                ring = polygon[0]
                area = sum(ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1] for i in range(len(ring) - 1))
                if area <= 0:
                    problems.append(f"{z}/{x}/{y} {key}: ring area {area}")
    for (z, x, y), cells in json_cells.items():
        for key, values in cells.items():
            lat, lon = h3.cell_to_latlng(key)
            if (x, y) != tile_of(lat, lon, z):
                problems.append(f"{z}/{x}/{y} {key}: its centre is in tile {tile_of(lat, lon, z)}")
            feature = vector.get((z, x, y), {}).get(key)
            if feature is None:
                problems.append(f"{z}/{x}/{y} {key}: no feature in the vector tile of its centre")
                continue
            p = feature["properties"]
            got = [p.get("r_current"), p.get("r_previous"), p["class"], p.get("change")]
            if got != values:
                problems.append(f"{z}/{x}/{y} {key}: {got}, the JSON tile {values}")
            ring = [global_point(a, b, z) for a, b in h3.cell_to_boundary(key)]
            local = [(gx - x * 4096, gy - y * 4096) for gx, gy in ring]
            if all(-256 <= a <= 4352 and -256 <= b <= 4352 for a, b in local):
                drawn = feature["geometry"]["coordinates"][0]
                if feature["geometry"]["type"] != "Polygon" or set(map(tuple, drawn)) != set(local):
                    problems.append(f"{z}/{x}/{y} {key}: drawn {drawn}, h3-py's hexagon {local}")
                whole += 1

    if problems:
        print(f"{len(problems)} problem(s):")
        for p in problems[:40]:
            print("  " + p)
        sys.exit(1)
    print(f"ok: {len(vector)} tiles, {sum(map(len, json_cells.values()))} cells, {whole} whole hexagons checked")


if __name__ == "__main__":
    main()
