#!/usr/bin/env python3
"""Independent readers of a report folder's GeoParquet files (SPEC §19): grid.parquet and, where
the folder has them, areas.parquet and ehsa.parquet, each against the CSV and GeoJSON beside it.

- pyarrow: the schema (the CSV's columns in its order, `wkt` replaced by a WKB `geometry`, then
  the `bbox` struct; integers int64, decimals double, text string) and every value equal to the
  CSV's (an empty CSV field is a null); the `geo` metadata; the bbox column against each
  geometry's bounds.
- GeoPandas `read_parquet`: the geometries equal to the GeoJSON's (shapely `equals_exact`, no
  tolerance), the CRS OGC:CRS84.
- DuckDB: `SELECT class, count(*) ... GROUP BY class` (`label` for ehsa) equal to the CSV's counts.

Usage: check_parquet.py REPORT_DIR. Prints "ok: ..." and one "missing: MODULE" line per reader
that is not installed, exit 0; exit 3 when none is installed; exit 1 on any difference.
"""
import csv
import importlib
import json
import math
import os
import sys
from collections import Counter

readers = {}
for name in ("pyarrow", "geopandas", "duckdb", "shapely"):
    try:
        readers[name] = importlib.import_module(name)
    except ImportError:
        pass
if "pyarrow" in readers:
    import pyarrow.parquet as pq
missing = [n for n in ("pyarrow", "geopandas", "duckdb") if n not in readers]
if "shapely" not in readers:
    missing.append("shapely")
if len(missing) >= 3:
    print("python3 lacks " + ", ".join(missing))
    sys.exit(3)

problems = []
checked = []

INTEGERS = {"n_current", "n_previous", "r_current", "r_previous", "delta", "handled", "hot_steps", "cold_steps"}
TEXTS = {"geohash", "class", "change", "label", "population_note"}


def expect(condition, message):
    if not condition and len(problems) < 50:
        problems.append(message)


def kind(column, id_column):
    if column == id_column or column in TEXTS:
        return "string"
    if column in INTEGERS or (column.startswith("y") and column[1:].isdigit()):
        return "int64"
    return "double"


def csv_value(text, k):
    if text == "":
        return None
    if k == "int64":
        return int(text)
    if k == "double":
        return float(text)
    return text


def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b and type(a) is type(b)


def check_pyarrow(name, folder, header, rows, id_column, geojson):
    pa = readers["pyarrow"]
    path = os.path.join(folder, name + ".parquet")
    f = pq.ParquetFile(path)
    table = f.read()
    columns = [c for c in header if c != "wkt"]
    # The id column keeps the id property's name unless another column has it (docs/DECISIONS.md).
    parquet_id = id_column
    if id_column is not None and (id_column in header[1:] or id_column in ("geometry", "bbox")):
        parquet_id = "area_id"
    names = [parquet_id if c == id_column else c for c in columns]
    expect(table.schema.names == names + ["geometry", "bbox"], f"{name}: columns {table.schema.names}")
    for c, n in zip(columns, names):
        want = {"string": pa.string(), "int64": pa.int64(), "double": pa.float64()}[kind(c, id_column)]
        got = table.schema.field(n).type if n in table.schema.names else None
        expect(got == want, f"{name}: {n} is {got}, expected {want}")
    geometry_type = table.schema.field("geometry").type
    expect(geometry_type == pa.binary(), f"{name}: geometry {geometry_type}")
    bbox_type = pa.struct([pa.field(k, pa.float64(), nullable=False) for k in ("xmin", "ymin", "xmax", "ymax")])
    expect(table.schema.field("bbox").type == bbox_type, f"{name}: bbox {table.schema.field('bbox').type}")
    codecs = {f.metadata.row_group(g).column(c).compression
              for g in range(f.metadata.num_row_groups) for c in range(f.metadata.num_columns)}
    expect(codecs <= {"ZSTD"}, f"{name}: codecs {sorted(codecs)}, not ZSTD")
    expect(all(f.metadata.row_group(k).num_rows <= 65536 for k in range(f.metadata.num_row_groups)),
           f"{name}: a row group over 65,536 rows")
    values = table.to_pydict()
    expect(table.num_rows == len(rows), f"{name}: {table.num_rows} rows, the CSV {len(rows)}")
    for r, row in enumerate(rows[:table.num_rows]):
        for c, n in zip(columns, names):
            if c == id_column:
                want = geojson["features"][r]["properties"][c]  # the CSV's is made spreadsheet-safe
            else:
                want = csv_value(row[c], kind(c, id_column))
            got = values[n][r] if n in values else "absent"
            expect(same(got, want), f"{name}: row {r} {n} = {got!r}, the CSV {row[c]!r}")
    geo = json.loads(f.schema_arrow.metadata[b"geo"])
    column = geo["columns"]["geometry"]
    expect(geo["version"] == "1.1.0" and geo["primary_column"] == "geometry" and column["encoding"] == "WKB",
           f"{name}: geo {geo}")
    expect("crs" not in column, f"{name}: crs given, the default OGC:CRS84 expected")
    expect(column["covering"] == {"bbox": {k: ["bbox", k] for k in ("xmin", "ymin", "xmax", "ymax")}},
           f"{name}: covering {column.get('covering')}")
    if "shapely" in readers and table.num_rows:
        shapely = readers["shapely"]
        geometries = shapely.from_wkb(values["geometry"])
        kinds = sorted({g.geom_type for g in geometries})
        expect(sorted(column["geometry_types"]) == kinds, f"{name}: geometry_types {column['geometry_types']}")
        for r, (g, box) in enumerate(zip(geometries, values["bbox"])):
            expect(list(g.bounds) == [box["xmin"], box["ymin"], box["xmax"], box["ymax"]],
                   f"{name}: row {r} bbox {box}")
            if "wkt" in header:
                expect(g.equals_exact(shapely.from_wkt(rows[r]["wkt"]), tolerance=0), f"{name}: row {r} WKB vs WKT")
        total = shapely.total_bounds(geometries).tolist()
        expect(column["bbox"] == total, f"{name}: geo bbox {column['bbox']}, the geometries' {total}")
    checked.append(f"{name}.parquet by pyarrow ({table.num_rows} rows)")


def check_geopandas(name, folder, geojson_path):
    gpd = readers["geopandas"]
    frame = gpd.read_parquet(os.path.join(folder, name + ".parquet"))
    reference = gpd.read_file(geojson_path)
    expect(frame.crs is not None and frame.crs.to_string() == "OGC:CRS84", f"{name}: CRS {frame.crs}")
    expect(len(frame) == len(reference), f"{name}: {len(frame)} rows, the GeoJSON {len(reference)}")
    for r, (a, b) in enumerate(zip(frame.geometry, reference.geometry)):
        expect(a.equals_exact(b, tolerance=0), f"{name}: row {r} {a.wkt[:80]} vs the GeoJSON's {b.wkt[:80]}")
    if "geohash" in frame.columns:
        expect(list(frame["geohash"]) == list(reference["geohash"]), f"{name}: geohash differs from the GeoJSON's")
    checked.append(f"{name}.parquet by GeoPandas")


def check_duckdb(name, folder, rows, group):
    duckdb = readers["duckdb"]
    path = os.path.join(folder, name + ".parquet").replace("'", "''")
    got = dict(duckdb.sql(f"SELECT {group}, count(*) FROM '{path}' GROUP BY {group}").fetchall())
    want = dict(Counter(row[group] for row in rows))
    expect(got == want, f"{name}: DuckDB counts {got}, the CSV {want}")
    checked.append(f"{name}.parquet by DuckDB")


def main():
    folder = sys.argv[1]
    for name, group in (("grid", "class"), ("areas", "class"), ("ehsa", "label")):
        csv_path = os.path.join(folder, name + ".csv")
        if not os.path.exists(csv_path):
            continue
        expect(os.path.exists(os.path.join(folder, name + ".parquet")), f"{name}.parquet is missing")
        with open(csv_path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            header, rows = reader.fieldnames, list(reader)
        geojson_path = os.path.join(folder, name + ".geojson")
        with open(geojson_path, encoding="utf-8") as f:
            geojson = json.load(f)
        id_column = header[0] if name == "areas" else None
        if "pyarrow" in readers:
            check_pyarrow(name, folder, header, rows, id_column, geojson)
        if "geopandas" in readers:
            check_geopandas(name, folder, geojson_path)
        if "duckdb" in readers:
            check_duckdb(name, folder, rows, group)
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print("ok: " + "; ".join(checked))
    for name in missing:
        print(f"missing: {name}")


main()
