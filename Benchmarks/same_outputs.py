#!/usr/bin/env python3
"""Byte-identity of two areawatch binaries' reports: the same `report --input` runs with each,
then every output file compared (summary.json without `timings_s`; a GeoPackage whose bytes
differ, table by table; the report folder marker, which versions before it do not write, is
ignored).

    python3 Benchmarks/same_outputs.py OLD_BINARY NEW_BINARY [--input FILE...]

Without --input it uses the bundled datasets (all options: areas, POI, breakdown, two precisions,
withheld counts, emerging hot spots and near repeats, an H3 grid). Exit 0 when every run is byte-identical, 1 otherwise (differences listed).
"""
import argparse, filecmp, json, os, sqlite3, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUNDLED = [os.path.join(ROOT, "datasets", p) for p in (
    "police-uk/2016-07-calderdale-street.csv", "police-uk/2017-07-calderdale-street.csv",
    "police-uk/2018-07-calderdale-street.csv", "watchme/watchme-export-2018-07-31.json",
    "watchme/watchme-export-2018-08-01-edits.json")]
EXTRA = ["--areas", os.path.join(ROOT, "datasets/areas/calderdale-areas.geojson"),
         "--poi", os.path.join(ROOT, "datasets/poi.csv"), "--group-by", "category"]
RUNS = [[], ["--precision", "6", "--min-cell-count", "3", "--tile-zooms", "9-12"],
        ["--ehsa", "--near-repeat", "--ehsa-steps", "12", "--nr-permutations", "19"],
        ["--grid", "h3:9", "--min-cell-count", "2", "--tile-zooms", "10-12"]]
# A large --input has more near pairs than --nr-max-pairs allows: its third run has hot spots only.
RUNS_INPUT = RUNS[:2] + [["--ehsa", "--ehsa-steps", "12"]] + RUNS[3:]
IGNORED = {".areawatch-report"}


def tree(folder):
    out = {}
    for base, _, files in os.walk(folder):
        for f in files:
            rel = os.path.relpath(os.path.join(base, f), folder)
            if rel not in IGNORED:
                out[rel] = os.path.join(base, f)
    return out


def gpkg_tables(path):
    """A GeoPackage's content: every table's rows in rowid order (the R-tree's shadow tables
    included; sqlite_sequence by name), and the schema's statements. Its bytes also depend on SQLite's page layout, which
    a change in how the rows are inserted may move without changing any row."""
    db = sqlite3.connect(path)
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        # sqlite_sequence gets a table's row at its first insert, which batching may reorder.
        rows = {t: db.execute(f'SELECT * FROM "{t}" ORDER BY {"name" if t == "sqlite_sequence" else "rowid"}').fetchall()
                for t in tables}
        schema = db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name").fetchall()
        return rows, schema
    finally:
        db.close()


def same_file(a, b, rel):
    if rel == "summary.json":
        return summary(a) == summary(b)
    if filecmp.cmp(a, b, shallow=False):
        return True
    return rel.endswith(".gpkg") and gpkg_tables(a) == gpkg_tables(b)


def summary(path):
    data = json.load(open(path))
    data.pop("timings_s", None)
    return data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--input", nargs="+")
    ap.add_argument("--as-of", default="2018-07-31T23:59:59Z")
    args = ap.parse_args()
    inputs = args.input or BUNDLED
    extra = [] if args.input else EXTRA
    differences = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, options in enumerate(RUNS_INPUT if args.input else RUNS):
            folders = []
            for name, binary in (("old", args.old), ("new", args.new)):
                out = os.path.join(tmp, f"{name}{k}")
                subprocess.run([binary, "report", "--input", *inputs, "--as-of", args.as_of, "--out", out, "--quiet",
                                *extra, *options], check=True, stdout=subprocess.DEVNULL)
                folders.append(tree(out))
            old, new = folders
            if set(old) != set(new):
                differences.append(f"run {k}: files differ: {sorted(set(old) ^ set(new))}")
            for rel in sorted(set(old) & set(new)):
                if not same_file(old[rel], new[rel], rel):
                    differences.append(f"run {k}: {rel} differs")
            print(f"run {k} {' '.join(options) or '(defaults)'}: {len(old)} files compared", file=sys.stderr)
    for d in differences:
        print(d)
    print("byte-identical (GeoPackages: table by table)" if not differences else f"{len(differences)} difference(s)")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
