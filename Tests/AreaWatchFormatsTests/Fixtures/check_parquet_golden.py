#!/usr/bin/env python3
"""Reads the Parquet golden files with pyarrow and GeoPandas and checks every value against the
table written out here by hand (the same rows ParquetGoldenTests.swift writes).

Usage: check_parquet_golden.py FIXTURES_DIR. Prints "ok: ..." and exits 0, exits 3 with a
one-line reason when pyarrow or GeoPandas is missing, 1 on any difference.
"""
import json
import math
import os
import sys

try:
    import pyarrow as pa
    import pyarrow.parquet as pq
    import geopandas
    import shapely
except ImportError as error:
    print(f"python3 lacks {error.name}")
    sys.exit(3)

problems = []


def expect(condition, message):
    if not condition:
        problems.append(message)


def same(a, b):
    """Equal, a NaN equal to a NaN, -0.0 told from 0.0."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    return a == b


def check_types(path):
    f = pq.ParquetFile(path)
    expect(f.metadata.num_row_groups == 2, f"types: {f.metadata.num_row_groups} row groups")
    expect([f.metadata.row_group(k).num_rows for k in range(2)] == [4, 2], "types: row group sizes")
    expect(f.metadata.row_group(0).column(0).compression == "GZIP", "types: not GZIP")
    name = f.metadata.row_group(0).column(4)
    expect("RLE_DICTIONARY" in name.encodings and name.dictionary_page_offset is not None,
           "types: name not a dictionary")
    table = f.read()
    expected_schema = pa.schema([
        pa.field("id", pa.int64(), nullable=False), pa.field("flag", pa.bool_(), nullable=False),
        pa.field("small", pa.int32()), pa.field("ratio", pa.float64()),
        pa.field("name", pa.string(), nullable=False), pa.field("note", pa.string()),
        pa.field("blob", pa.binary(), nullable=False),
        pa.field("box", pa.struct([pa.field("lo", pa.float64(), nullable=False),
                                   pa.field("hi", pa.float64(), nullable=False)]), nullable=False),
    ])
    expect(table.schema.remove_metadata().equals(expected_schema), f"types: schema {table.schema}")
    expect(f.schema_arrow.metadata.get(b"note") == b"golden", "types: key-value metadata")
    rows = table.to_pylist()
    expected = [
        (1, True, 7, 0.5, "safe", "é café", b""),
        (2, False, None, -0.0, "safe", None, b"\x00"),
        (3, True, -3, None, "medium", "", b"\x01\x02\x03"),
        (4, True, 2147483647, 1e-300, "safe", None, b"\xff"),
        (5, False, None, 2.25, "dangerous", "x", b"\x00\x00"),
        (6, False, -2147483648, None, "dangerous", "émoji 🚲", b"\x09"),
    ]
    expect(len(rows) == 6, f"types: {len(rows)} rows")
    keys = ["id", "flag", "small", "ratio", "name", "note", "blob"]
    for row, want in zip(rows, expected):
        for key, value in zip(keys, want):
            expect(same(row[key], value), f"types: row {want[0]} {key} = {row[key]!r}, expected {value!r}")
        expect(row["box"] == {"lo": want[0] * 1.5, "hi": want[0] * 1.5 + 1}, f"types: row {want[0]} box {row['box']}")
    stats = f.metadata.row_group(0).column(2).statistics
    expect(stats.has_min_max and stats.min == -3 and stats.max == 2147483647 and stats.null_count == 1,
           f"types: small's statistics {stats}")
    stats = f.metadata.row_group(0).column(3).statistics
    expect(stats.min == 0.0 and math.copysign(1, stats.min) == -1 and stats.max == 0.5 and stats.null_count == 1,
           f"types: ratio's statistics {stats}")


def check_polygons(path):
    f = pq.ParquetFile(path)
    expect([f.metadata.row_group(k).num_rows for k in range(f.metadata.num_row_groups)] == [2, 1],
           "polygons: row group sizes")
    expect(f.metadata.row_group(0).column(0).compression == "ZSTD", "polygons: not ZSTD")
    geo = json.loads(f.schema_arrow.metadata[b"geo"])
    expect(geo == {
        "version": "1.1.0", "primary_column": "geometry",
        "columns": {"geometry": {
            "encoding": "WKB", "geometry_types": ["Polygon", "MultiPolygon"], "bbox": [-1.5, 0, 13, 53.75],
            "covering": {"bbox": {"xmin": ["bbox", "xmin"], "ymin": ["bbox", "ymin"],
                                  "xmax": ["bbox", "xmax"], "ymax": ["bbox", "ymax"]}}}},
    }, f"polygons: geo metadata {geo}")
    frame = geopandas.read_parquet(path)
    # No `crs` in the metadata: GeoParquet's default, OGC:CRS84 (EPSG:4326 with longitude first).
    expect(frame.crs is not None and frame.crs.to_string() == "OGC:CRS84", f"polygons: CRS {frame.crs}")
    expect(list(frame["geohash"]) == ["gcw2j", "gcw2k", "gcw2m"], "polygons: geohash")
    expect(list(frame["class"]) == ["safe", "medium", "dangerous"], "polygons: class")
    expect(frame["n"].tolist()[0] == 3 and frame["n"].isna().tolist() == [False, True, False], "polygons: n")
    expected = [
        "POLYGON ((-1.5 53.5, -1.25 53.5, -1.25 53.75, -1.5 53.75, -1.5 53.5))",
        "POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 1 2, 2 2, 2 1, 1 1))",
        "MULTIPOLYGON (((10 10, 11 10, 11 11, 10 11, 10 10)), ((12 10, 13 10, 13 12, 12 12, 12 10)))",
    ]
    for k, (geometry, wkt) in enumerate(zip(frame.geometry, expected)):
        expect(geometry.equals_exact(shapely.from_wkt(wkt), tolerance=0), f"polygons: row {k} {geometry.wkt}")
    boxes = pq.read_table(path, columns=["bbox"]).column("bbox").to_pylist()
    expect(boxes[1] == {"xmin": 0, "ymin": 0, "xmax": 4, "ymax": 4}, f"polygons: bbox {boxes[1]}")


def main():
    folder = sys.argv[1]
    check_types(os.path.join(folder, "types.parquet"))
    check_polygons(os.path.join(folder, "polygons.parquet"))
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print(f"ok: types.parquet and polygons.parquet read by pyarrow {pa.__version__}, GeoPandas {geopandas.__version__}")


main()
