"""Helpers shared by the grid peers (grid_duckdb.py, grid_geopandas.py).

Only argument handling, header detection, the as-of windows and a few constants live here; each
peer does the actual parsing, cell assignment, radius join and aggregation its own way.
"""

import argparse
import csv
import datetime as dt
import gzip
import io
import math
import re

GEOHASH_ALPHABET = "0123456789bcdefghjkmnpqrstuvwxyz"
EARTH_RADIUS_M = 6371008.8
DEG = math.pi / 180.0  # degrees are converted by multiplying with this constant

# SPEC §2.3: accepted names per field, in priority order (earlier name wins).
FIELD_NAMES = {
    "lat": ["latitude", "lat", "y"],
    "lon": ["longitude", "lon", "lng", "long", "x"],
    "time": ["timestamp", "time", "datetime", "date", "occurredat", "occurrencedate",
             "reportedat", "month"],
    "id": ["id", "_id", "crimeid", "incidentid", "postid", "eventid"],
    "category": ["category", "type", "crimetype", "offense", "offence", "mci"],
    "handled": ["handled", "policearrived"],
}

# A coordinate given as text must look like a plain decimal number.
NUMBER_RE = r"^\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*$"

# SPEC §2.4 time strings. Groups: 1 year, 2 month, 3 day, 4 hour, 5 minute, 6 second,
# 7 fraction, 8 zone. The date separator is '-' or '/', the date/time separator 'T' or ' '.
TIME_RE = (r"^\s*([0-9]{4})[-/]([0-9]{2})(?:[-/]([0-9]{2})(?:[Tt ]([0-9]{2}):([0-9]{2})"
           r"(?::([0-9]{2})(\.[0-9]+)?)?\s*([Zz]|[+-][0-9]{2}(?::?[0-9]{2})?)?)?)?\s*$")
EPOCH_RE = r"^\s*[+-]?[0-9]+(\.[0-9]+)?\s*$"

# Epoch seconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z (SPEC §2.4 bounds).
MIN_EPOCH = -62135596800
MAX_EPOCH = 253402300799


def normalise_name(name):
    return re.sub(r"[\s_\-]", "", name.strip().lstrip("\ufeff")).lower()


def _open_text(path):
    if path.endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8-sig", newline="")
    return open(path, "r", encoding="utf-8-sig", newline="")


def read_header(path):
    """Returns (column names, delimiter) of a CSV file; the delimiter is taken from the header."""
    with _open_text(path) as fh:
        line = ""
        while not line.strip():
            line = fh.readline()
            if line == "":
                raise SystemExit(f"{path}: empty file")
    counts = {d: line.count(d) for d in (",", ";", "\t")}
    delim = max(counts, key=lambda d: (counts[d], d == ","))
    header = next(csv.reader([line], delimiter=delim))
    return header, delim


def detect_columns(header, overrides):
    """Maps each field to a column index (or None) following SPEC §2.3; overrides are names."""
    norm = [normalise_name(h) for h in header]
    result = {}
    for field, names in FIELD_NAMES.items():
        wanted = overrides.get(field)
        if wanted is not None:
            if wanted == "":
                result[field] = None
                continue
            if wanted in header:
                result[field] = header.index(wanted)
                continue
            key = normalise_name(wanted)
            if key in norm:
                result[field] = norm.index(key)
                continue
            raise SystemExit(f"column {wanted!r} for {field} not found in header {header}")
        result[field] = None
        for name in names:
            if name in norm:
                result[field] = norm.index(name)
                break
    for field in ("lat", "lon", "time"):
        if result[field] is None:
            raise SystemExit(f"no {field} column found in header {header}")
    return result


def parse_as_of(text):
    """ISO 8601 instant -> integer epoch seconds (fraction floored, no zone = UTC)."""
    s = text.strip().replace("z", "Z")
    if s.endswith("Z"):
        s = s[:-1] + "+00:00"
    t = dt.datetime.fromisoformat(s)
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.timezone.utc)
    return math.floor(t.timestamp())


def minus_years(epoch, years):
    """Calendar subtraction in UTC: 2020-02-29 - 1 year = 2019-02-28."""
    t = dt.datetime.fromtimestamp(epoch, dt.timezone.utc)
    y = t.year - years
    day = t.day
    while True:
        try:
            r = t.replace(year=y, day=day)
            break
        except ValueError:
            day -= 1
    return int(r.timestamp())


def windows(as_of_text):
    """(T, T - 1 year, T - 2 years) as epoch seconds: current = (T1, T], previous = (T2, T1]."""
    t = parse_as_of(as_of_text)
    return t, minus_years(t, 1), minus_years(t, 2)


def geohash_bits(precision):
    """(longitude bits, latitude bits) of a geohash of this precision."""
    bits = 5 * precision
    return (bits + 1) // 2, bits // 2


def class_of(n, thresholds):
    lo, hi = thresholds
    return "safe" if n < lo else ("medium" if n < hi else "dangerous")


def make_parser(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--input", nargs="+", required=True, metavar="FILE",
                   help="incident CSV files, ingested in this order")
    p.add_argument("--as-of", required=True, help="as-of instant T, ISO 8601 (e.g. 2018-07-31T23:59:59Z)")
    p.add_argument("--precision", type=int, default=7, help="geohash precision (default 7)")
    p.add_argument("--radius", type=float, default=1000.0, help="radius in metres (default 1000)")
    p.add_argument("--thresholds", default="5,10", help="class bounds safe<A, medium<B (default 5,10)")
    p.add_argument("--out-csv", required=True, help="grid CSV to write")
    p.add_argument("--out-geojson", help="grid GeoJSON FeatureCollection to write")
    for field, default_names in (("lat", "Latitude/latitude"), ("lon", "Longitude/longitude"),
                                 ("time", "Month/occurred_at"), ("id", "Crime ID/incident_id"),
                                 ("category", "Crime type/category"), ("handled", "handled")):
        p.add_argument(f"--{field}-col", dest=f"{field}_col", default=None,
                       help=f"column holding {field} (default: detected from the header, e.g. "
                            f"{default_names}; '' for none)")
    p.add_argument("--quiet", action="store_true", help="no timing line on stderr")
    return p


def column_overrides(args):
    return {f: getattr(args, f"{f}_col") for f in FIELD_NAMES}


def parse_thresholds(text):
    a, b = (int(x) for x in text.split(","))
    return a, b


def fmt_coord(x):
    """A GeoJSON coordinate with at most 6 decimals and no trailing zeros."""
    s = "%.6f" % x
    s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s
