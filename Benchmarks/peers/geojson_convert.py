#!/usr/bin/env python3
"""What an analyst does to get grid.parquet or grid.gpkg without areawatch: GeoPandas reads
grid.geojson and writes it as GeoParquet 1.1 (with the bbox covering, as areawatch writes it) or
as a GeoPackage layer (GDAL's GPKG driver, with its R-tree spatial index).

Usage: geojson_convert.py parquet|gpkg GRID.geojson OUT
Prints JSON: {"read_s", "write_s", "rows", "bytes"} (the two steps' wall seconds in-process).
"""
import json
import os
import sys
import time

import geopandas

WRITERS = {
    "parquet": lambda frame, out: frame.to_parquet(out, compression="gzip", schema_version="1.1.0",
                                                   write_covering_bbox=True),
    "gpkg": lambda frame, out: frame.to_file(out, driver="GPKG", layer="grid"),
}


def main():
    kind, source, out = sys.argv[1], sys.argv[2], sys.argv[3]
    start = time.monotonic()
    frame = geopandas.read_file(source)
    read = time.monotonic() - start
    start = time.monotonic()
    WRITERS[kind](frame, out)
    write = time.monotonic() - start
    print(json.dumps({"read_s": round(read, 3), "write_s": round(write, 3), "rows": len(frame),
                      "bytes": os.path.getsize(out)}))


if __name__ == "__main__":
    main()
