#!/usr/bin/env python3
"""What an analyst does to get grid.parquet without areawatch: GeoPandas reads grid.geojson and
writes it as GeoParquet (GeoParquet 1.1 with the bbox covering, as areawatch writes it).

Usage: geojson_to_parquet.py GRID.geojson OUT.parquet
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
    frame.to_parquet(out, compression="gzip", schema_version="1.1.0", write_covering_bbox=True)
    write = time.monotonic() - start
    print(json.dumps({"read_s": round(read, 3), "write_s": round(write, 3), "rows": len(frame),
                      "bytes": os.path.getsize(out)}))


main()
