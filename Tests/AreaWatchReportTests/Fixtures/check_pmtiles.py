#!/usr/bin/env python3
"""Independent check of a report folder's grid.pmtiles (SPEC §14) with PyPI's readers.

Reads the archive with `pmtiles` (header, metadata, every tile through its directories), decodes
each tile with `mapbox-vector-tile`, and checks that every tile lists exactly the cells of the
JSON tiles of its zoom whose rectangle overlaps the tile's extent grown by 256 units, with the
JSON tile's values (a withheld count: null in JSON, absent in the vector tile), that the archive
holds exactly those tiles, and that each cell's polygon is its geohash rectangle projected and
rounded on the zoom's global grid (4096 units a tile) and clipped to the tile plus 256 units
(exterior ring with positive area in y-down tile coordinates).

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


def global_rect(text, z):
    """The cell's rectangle on zoom z's global grid (4096 units a tile, y down), rounded half up
    (the coordinates are never negative), at least one unit wide and high."""
    s, w, n, e = geohash_bounds(text)
    size = 2 ** z * 4096

    def gx(lon):
        return math.floor((lon + 180) / 360 * size + 0.5)

    def gy(lat):
        phi = math.radians(min(max(lat, -MAX_LAT), MAX_LAT))
        return math.floor((1 - math.log(math.tan(phi) + 1 / math.cos(phi)) / math.pi) / 2 * size + 0.5)

    def widen(lo, hi):
        if hi > lo:
            return lo, hi
        return (lo, lo + 1) if lo < size else (size - 1, size)

    x0, x1 = widen(gx(w), gx(e))
    y0, y1 = widen(gy(n), gy(s))
    return x0, y0, x1, y1


def expected_tiles(json_tiles, tiles_dir):
    """{(z, x, y): {geohash: (values, ring)}} by brute force over every tile near each cell."""
    out = {}
    for z, x, y in json_tiles:
        cells = json.load(open(os.path.join(tiles_dir, str(z), str(x), f"{y}.json")))["cells"]
        for geohash, values in cells.items():
            x0, y0, x1, y1 = global_rect(geohash, z)
            n = 2 ** z
            for ty in range(max(0, y0 // 4096 - 1), min(n, y1 // 4096 + 2)):
                for tx in range(max(0, x0 // 4096 - 1), min(n, x1 // 4096 + 2)):
                    lo_x, lo_y = tx * 4096 - 256, ty * 4096 - 256
                    hi_x, hi_y = (tx + 1) * 4096 + 256, (ty + 1) * 4096 + 256
                    cx0, cy0, cx1, cy1 = max(x0, lo_x), max(y0, lo_y), min(x1, hi_x), min(y1, hi_y)
                    if cx0 >= cx1 or cy0 >= cy1:
                        continue
                    a, b, c, d = cx0 - tx * 4096, cy0 - ty * 4096, cx1 - tx * 4096, cy1 - ty * 4096
                    ring = [[a, b], [c, b], [c, d], [a, d], [a, b]]
                    out.setdefault((z, tx, ty), {})[geohash] = (values, ring)
    return out


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

        expected_all = expected_tiles(json_tiles, tiles_dir)
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
            if (z, x, y) not in expected_all:
                problems.append(f"{z}/{x}/{y}: in the archive, no cell overlaps it")
                continue
            expected = {k: v[0] for k, v in expected_all[(z, x, y)].items()}
            got = {}
            for feature in layer["features"]:
                p = feature["properties"]
                # The JSON tile's entry: [r_current, r_previous, class, change] (SPEC §12).
                got[p["geohash"]] = [p.get("r_current"), p.get("r_previous"), p["class"], p.get("change")]
                if p.get("change") not in ("rise", "fall", "none"):
                    problems.append(f"{z}/{x}/{y} {p['geohash']}: change {p.get('change')!r}")
                geometry = feature["geometry"]
                if feature["type"] != 3 or geometry["type"] != "Polygon" or len(geometry["coordinates"]) != 1:
                    problems.append(f"{z}/{x}/{y} {p['geohash']}: geometry {geometry['type']}")
                    continue
                ring = geometry["coordinates"][0]
                area = sum(ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1] for i in range(len(ring) - 1))
                want = expected_all[(z, x, y)].get(p["geohash"], (None, None))[1]
                if area <= 0 or [list(point) for point in ring] != want:
                    problems.append(f"{z}/{x}/{y} {p['geohash']}: ring {ring}, expected {want}")
            cells += len(got)
            if got != expected:
                missing = sorted(set(expected) - set(got))[:5]
                extra = sorted(set(got) - set(expected))[:5]
                differ = sorted(k for k in set(got) & set(expected) if got[k] != expected[k])[:5]
                problems.append(f"{z}/{x}/{y}: missing {missing} extra {extra} differ {[(k, got[k], expected[k]) for k in differ]}")
            if list(got) != sorted(got):
                problems.append(f"{z}/{x}/{y}: features not in geohash order")
        for t in sorted(set(expected_all) - seen)[:10]:
            problems.append(f"{t}: a tile cells overlap is missing from the archive")
        if not json_tiles <= seen:
            problems.append("a JSON tile has no vector tile")
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
