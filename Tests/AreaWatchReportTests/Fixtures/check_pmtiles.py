#!/usr/bin/env python3
"""Independent check of a report folder's grid.pmtiles (SPEC §14) with PyPI's readers.

Reads the archive with `pmtiles` (header, metadata, every tile through its directories), decodes
each tile with `mapbox-vector-tile`, and checks that every tile lists exactly the cells of the
JSON tile tiles/{z}/{x}/{y}.json with the same values (a withheld count: null in JSON, absent in
the vector tile), that the archive holds exactly the JSON tiles, and that each cell's polygon is
its geohash rectangle projected into the tile (extent 4096, clamped to a 256-unit buffer, exterior
ring with positive area in y-down tile coordinates).

Usage: check_pmtiles.py REPORT_DIR. Exit 0 and "ok: …" when everything matches; exit 1 with the
differences otherwise; exit 3 when a package is missing.
"""

import gzip
import json
import math
import os
import sys

try:
    import mapbox_vector_tile
    from pmtiles.reader import MmapSource, Reader, all_tiles
    from pmtiles.tile import Compression, TileType
except ImportError as error:
    print(f"missing Python package: {error}")
    sys.exit(3)

BASE32 = "0123456789bcdefghjkmnpqrstuvwxyz"
MAX_LAT = 85.05112877980659


def geohash_bounds(text):
    lat, lon = [-90.0, 90.0], [-180.0, 180.0]
    even = True
    for ch in text:
        bits = BASE32.index(ch)
        for shift in range(4, -1, -1):
            half = lon if even else lat
            mid = (half[0] + half[1]) / 2
            if bits >> shift & 1:
                half[0] = mid
            else:
                half[1] = mid
            even = not even
    return lat[0], lon[0], lat[1], lon[1]


def tile_xy(lon, lat, z, x, y):
    """Tile coordinates (extent 4096, y down) of a position, clamped to the 256-unit buffer."""
    n = 2 ** z
    phi = math.radians(min(max(lat, -MAX_LAT), MAX_LAT))
    fx = ((lon + 180) / 360 * n - x) * 4096
    fy = ((1 - math.log(math.tan(phi) + 1 / math.cos(phi)) / math.pi) / 2 * n - y) * 4096
    return min(max(fx, -256), 4352), min(max(fy, -256), 4352)


def main():
    folder = sys.argv[1]
    problems = []
    with open(os.path.join(folder, "grid.pmtiles"), "rb") as f:
        source = MmapSource(f)
        reader = Reader(source)
        header = reader.header()
        meta = reader.metadata()
        tilejson = json.load(open(os.path.join(folder, "tiles", "tilejson.json")))
        if header["tile_type"] != TileType.MVT:
            problems.append(f"tile type {header['tile_type']}")
        if header["tile_compression"] != Compression.GZIP or header["internal_compression"] != Compression.GZIP:
            problems.append("compression is not gzip")
        if not header["clustered"]:
            problems.append("not clustered")
        if (header["min_zoom"], header["max_zoom"]) != (tilejson["minzoom"], tilejson["maxzoom"]):
            problems.append(f"zooms {header['min_zoom']}-{header['max_zoom']} vs TileJSON {tilejson['minzoom']}-{tilejson['maxzoom']}")
        if header["root_offset"] + header["root_length"] > 16384:
            problems.append("root directory past 16 KiB")
        layers = meta.get("vector_layers", [])
        if [l.get("id") for l in layers] != ["cells"] or set(layers[0].get("fields", {})) != {"geohash", "r_current", "r_previous", "class", "change"}:
            problems.append(f"vector_layers {layers}")
        if meta.get("as_of") != tilejson["areawatch"]["as_of"] or meta.get("type") != "overlay":
            problems.append(f"metadata as_of/type {meta.get('as_of')} {meta.get('type')}")

        json_tiles = set()
        tiles_dir = os.path.join(folder, "tiles")
        for z in os.listdir(tiles_dir):
            if not z.isdigit():
                continue
            for x in os.listdir(os.path.join(tiles_dir, z)):
                for name in os.listdir(os.path.join(tiles_dir, z, x)):
                    json_tiles.add((int(z), int(x), int(name[:-5])))

        seen = set()
        cells = 0
        for (z, x, y), data in all_tiles(source):
            seen.add((z, x, y))
            # A direct lookup finds the same bytes as the traversal.
            if reader.get(z, x, y) != data:
                problems.append(f"{z}/{x}/{y}: lookup and traversal disagree")
            decoded = mapbox_vector_tile.decode(gzip.decompress(data), default_options={"y_coord_down": True, "geojson": False})
            layer = decoded.get("cells")
            if layer is None or set(decoded) != {"cells"} or layer["extent"] != 4096 or layer["version"] != 2:
                problems.append(f"{z}/{x}/{y}: layers {list(decoded)}")
                continue
            path = os.path.join(tiles_dir, str(z), str(x), f"{y}.json")
            if not os.path.exists(path):
                problems.append(f"{z}/{x}/{y}: in the archive, no JSON tile")
                continue
            expected = json.load(open(path))["cells"]
            got = {}
            for feature in layer["features"]:
                p = feature["properties"]
                got[p["geohash"]] = [p.get("r_current"), p.get("r_previous"), p["class"]]
                if p.get("change") not in ("rise", "fall", "none"):
                    problems.append(f"{z}/{x}/{y} {p['geohash']}: change {p.get('change')!r}")
                geometry = feature["geometry"]
                if feature["type"] != 3 or geometry["type"] != "Polygon" or len(geometry["coordinates"]) != 1:
                    problems.append(f"{z}/{x}/{y} {p['geohash']}: geometry {geometry['type']}")
                    continue
                ring = geometry["coordinates"][0]
                area = sum(ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1] for i in range(len(ring) - 1))
                s, w, n, e = geohash_bounds(p["geohash"])
                x0, y0 = tile_xy(w, n, z, x, y)
                x1, y1 = tile_xy(e, s, z, x, y)
                want = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
                if area <= 0 or len(ring) != 5 or any(abs(a[0] - b[0]) > 1 or abs(a[1] - b[1]) > 1 for a, b in zip(ring, want)):
                    problems.append(f"{z}/{x}/{y} {p['geohash']}: ring {ring}, expected about {want}")
            cells += len(got)
            if got != expected:
                missing = sorted(set(expected) - set(got))[:5]
                extra = sorted(set(got) - set(expected))[:5]
                differ = sorted(k for k in set(got) & set(expected) if got[k] != expected[k])[:5]
                problems.append(f"{z}/{x}/{y}: missing {missing} extra {extra} differ {[(k, got[k], expected[k]) for k in differ]}")
            if list(got) != sorted(got):
                problems.append(f"{z}/{x}/{y}: features not in geohash order")
        for t in sorted(json_tiles - seen)[:10]:
            problems.append(f"{t}: JSON tile missing from the archive")
        if header["addressed_tiles_count"] != len(seen):
            problems.append(f"addressed tiles {header['addressed_tiles_count']} vs {len(seen)} read")

    if problems:
        print(f"{len(problems)} problem(s):")
        for p in problems[:40]:
            print("  " + p)
        sys.exit(1)
    print(f"ok: {len(seen)} tiles, {cells} cells, zooms {header['min_zoom']}-{header['max_zoom']}")


if __name__ == "__main__":
    main()
