#!/usr/bin/env python3
"""What an analyst does to get grid.gpkg without areawatch: GeoPandas reads grid.geojson and
writes it as a GeoPackage layer (GDAL's GPKG driver, with its R-tree spatial index).

Usage: geojson_to_gpkg.py GRID.geojson OUT.gpkg
Prints JSON: {"read_s", "write_s", "rows", "bytes"} (the two steps' wall seconds in-process).
"""
import json
import os
import sys
import time

import geopandas


def main():
    source, out = sys.argv[1], sys.argv[2]
    start = time.monotonic()
    frame = geopandas.read_file(source)
    read = time.monotonic() - start
    start = time.monotonic()
    frame.to_file(out, driver="GPKG", layer="grid")
    write = time.monotonic() - start
    print(json.dumps({"read_s": round(read, 3), "write_s": round(write, 3), "rows": len(frame),
                      "bytes": os.path.getsize(out)}))


main()
