#!/usr/bin/env python3
"""Regenerate the Calderdale sample of the data.police.uk West Yorkshire street-level files.

Usage:
    python3 make_sample.py SOURCE_DIR [OUT_DIR]

SOURCE_DIR holds the files as published by data.police.uk:
    2016-07-west-yorkshire-street.csv, 2017-07-west-yorkshire-street.csv,
    2018-07-west-yorkshire-street.csv
OUT_DIR defaults to the folder of this script. For each month it writes
    YYYY-MM-calderdale-street.csv
and then README.md with the provenance, the selection rule and facts computed from the written
samples.

Selection rule (applied to every data row, in source order):
  * keep the row when its `LSOA name` starts with "Calderdale ", and
  * keep the first 40 rows of the file that have no coordinates (empty Longitude or Latitude),
    so that `missing_coordinates` rejects are exercised.
Kept rows are copied byte for byte (header line, quoting, line endings, order), so the samples
are exact excerpts of the published files. Python 3 standard library only; deterministic.
"""

import collections
import csv
import hashlib
import io
import os
import sys

MONTHS = ("2016-07", "2017-07", "2018-07")
SOURCE_NAME = "{month}-west-yorkshire-street.csv"
SAMPLE_NAME = "{month}-calderdale-street.csv"
DISTRICT_PREFIX = "Calderdale "
NO_COORDINATE_ROWS = 40


def split_records(data):
    """Split CSV bytes into raw records (each with its own line ending), RFC 4180 aware:
    a line break inside a quoted field does not end the record."""
    records = []
    start = 0
    pos = 0
    quotes = 0
    n = len(data)
    while pos < n:
        nl = data.find(b"\n", pos)
        end = n if nl < 0 else nl + 1
        quotes += data.count(b'"', pos, end)
        pos = end
        if quotes % 2 == 0:
            records.append(data[start:end])
            start = end
            quotes = 0
    if start < n:  # a last record that ends inside quotes: keep it whole
        records.append(data[start:])
    return records


def parse_record(raw):
    text = raw.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    return rows[0] if rows else []


def sample(source_path):
    with open(source_path, "rb") as f:
        data = f.read()
    records = split_records(data)
    header_raw, body = records[0], records[1:]
    header = parse_record(header_raw)
    col = {name: i for i, name in enumerate(header)}
    lsoa, lon, lat = col["LSOA name"], col["Longitude"], col["Latitude"]
    kept = []
    no_coord_taken = 0
    for raw in body:
        if not raw.strip(b"\r\n"):
            continue  # a blank line is not a record
        row = parse_record(raw)
        in_district = len(row) > lsoa and row[lsoa].startswith(DISTRICT_PREFIX)
        no_coords = len(row) <= max(lon, lat) or row[lon] == "" or row[lat] == ""
        take_no_coord = no_coords and no_coord_taken < NO_COORDINATE_ROWS
        if take_no_coord:
            no_coord_taken += 1
        if in_district or take_no_coord:
            kept.append(raw)
    return data, header_raw, kept


def facts(header_raw, kept):
    """Facts with the definitions of the project's data notes:
    rows without coordinates = Longitude or Latitude empty; rows without Crime ID = Crime ID empty;
    identical located id-less rows beyond the first = among rows with no Crime ID and both
    coordinates, the rows whose (Month, Latitude, Longitude, Crime type) already occurred earlier
    in the file, coordinates compared as numbers (the content of the id-less key)."""
    header = parse_record(header_raw)
    col = {name: i for i, name in enumerate(header)}
    rows = [parse_record(raw) for raw in kept]
    no_coords = sum(1 for r in rows if r[col["Longitude"]] == "" or r[col["Latitude"]] == "")
    no_id = [r for r in rows if r[col["Crime ID"]] == ""]
    located = [r for r in no_id if r[col["Longitude"]] != "" and r[col["Latitude"]] != ""]
    seen = collections.Counter(
        (r[col["Month"]], float(r[col["Latitude"]]), float(r[col["Longitude"]]), r[col["Crime type"]])
        for r in located)
    whole_rows = collections.Counter(tuple(r) for r in located)
    dup_key = sum(c - 1 for c in seen.values())
    dup_row = sum(c - 1 for c in whole_rows.values())
    assert dup_key == dup_row, "whole-row and key-content duplicates differ"
    district = sum(1 for r in rows if r[col["LSOA name"]].startswith(DISTRICT_PREFIX))
    with_coords = [r for r in rows if r[col["Longitude"]] != "" and r[col["Latitude"]] != ""]
    return {
        "rows": len(rows),
        "district_rows": district,
        "no_coordinates": no_coords,
        "no_crime_id": len(no_id),
        "identical_idless_beyond_first": dup_key,
        "distinct_points": len({(r[col["Latitude"]], r[col["Longitude"]]) for r in with_coords}),
        "crime_types": len({r[col["Crime type"]] for r in rows}),
    }


README = """\
# data.police.uk sample: Calderdale, July 2016 / 2017 / 2018

Street-level crime records published by [data.police.uk](https://data.police.uk/) for
**West Yorkshire Police**, months **2016-07**, **2017-07** and **2018-07**, reduced to one
district so that a year-over-year comparison is meaningful in a small file:

| file | source file (as published) | source SHA-256 |
|---|---|---|
{sources}

Contains public sector information licensed under the Open Government Licence v3.0.
(<https://www.nationalarchives.gov.uk/doc/open-government-licence/version/3/>)

## Selection rule

From each source file, in source order, every data row whose `LSOA name` starts with
`Calderdale ` is kept, plus the first {n} rows of the file that have no coordinates
(empty `Longitude` or `Latitude`) so that `missing_coordinates` rejects are
exercised. Kept rows are byte-for-byte copies of the published rows: same header line, same
quoting, same CRLF line endings, same order. Nothing is edited, added or reordered.

Regenerate (deterministic; writes the three samples and this README):

    python3 make_sample.py SOURCE_DIR [OUT_DIR]

where `SOURCE_DIR` holds the three `YYYY-07-west-yorkshire-street.csv` files from
data.police.uk and `OUT_DIR` defaults to this folder.

## Facts (computed by make_sample.py from the written samples)

| file | rows | Calderdale rows | no coordinates | no Crime ID | identical located id-less rows beyond the first | expected accepted |
|---|---|---|---|---|---|---|
{facts}

Definitions, as in the facts of the full files: *no coordinates* = `Longitude` or `Latitude`
empty (these rows are `missing_coordinates` rejects); *no Crime ID* = `Crime ID` empty (anti-social
behaviour reports); *identical located id-less rows beyond the first* = among rows with no
Crime ID and with coordinates, the rows identical to an earlier row of the same file (the same
count whether rows are compared whole or by their id-less key content `Month|Latitude|Longitude|
Crime type`). Identical id-less rows are distinct incidents and must all be kept.

So a correct ingest of a sample reports `rows − no coordinates` accepted records (last column) and
`no coordinates` rejects, all with reason `missing_coordinates`.

Other notes:
- Columns: Crime ID, Month (`YYYY-MM`, time precision `month`), Reported by, Falls within,
  Longitude, Latitude, Location, LSOA code, LSOA name, Crime type, Last outcome category, Context.
- Coordinates are anonymised by data.police.uk (snapped to a fixed set of map points), so many
  incidents share a point: {points}.
- With as-of `2018-07-31T23:59:59Z` the current window holds the 2018-07 records and the previous
  window the 2017-07 records; the 2016-07 records fall in neither window but count in the
  calendar-year totals.
"""


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 1
    source_dir = argv[1]
    out_dir = argv[2] if len(argv) == 3 else os.path.dirname(os.path.abspath(__file__))
    source_lines, fact_lines, point_notes = [], [], []
    for month in MONTHS:
        src_name = SOURCE_NAME.format(month=month)
        out_name = SAMPLE_NAME.format(month=month)
        data, header_raw, kept = sample(os.path.join(source_dir, src_name))
        out_bytes = header_raw + b"".join(kept)
        with open(os.path.join(out_dir, out_name), "wb") as f:
            f.write(out_bytes)
        fa = facts(header_raw, kept)
        source_lines.append("| `{}` | `{}` ({:,} bytes) | `{}` |".format(
            out_name, src_name, len(data), hashlib.sha256(data).hexdigest()))
        fact_lines.append("| `{}` | {:,} | {:,} | {:,} | {:,} | {:,} | {:,} |".format(
            out_name, fa["rows"], fa["district_rows"], fa["no_coordinates"], fa["no_crime_id"],
            fa["identical_idless_beyond_first"], fa["rows"] - fa["no_coordinates"]))
        point_notes.append("{:,} distinct points in {}".format(fa["distinct_points"], month))
        print("{}: {:,} rows, {:,} bytes, {:,} without coordinates".format(
            out_name, fa["rows"], len(out_bytes), fa["no_coordinates"]))
    readme = README.format(sources="\n".join(source_lines), n=NO_COORDINATE_ROWS,
                           facts="\n".join(fact_lines), points=", ".join(point_notes))
    with open(os.path.join(out_dir, "README.md"), "w", encoding="utf-8", newline="\n") as f:
        f.write(readme)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
