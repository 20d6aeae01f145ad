#!/usr/bin/env python3
"""Loads an incident CSV (generate_incidents.py format:
incident_id,occurred_at,latitude,longitude,category,handled) into a new DuckDB database, table
`incidents` with the CSV's columns, using read_csv with explicit column types (the same columns and
types as load_spatialite.sh, without a geometry: DuckDB's spatial extension is not used).

Usage: load_duckdb.py INCIDENTS.csv OUT.duckdb [--threads N]
"""

import argparse
import os
import sys
import time

import duckdb


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv", help="incident CSV (generator format)")
    p.add_argument("db", help="DuckDB database file to create (replaced if it exists)")
    p.add_argument("--threads", type=int, default=None, help="DuckDB threads (default: all cores)")
    args = p.parse_args()
    if not os.access(args.csv, os.R_OK):
        sys.exit(f"load_duckdb: cannot read {args.csv}")
    t0 = time.time()
    for suffix in ("", ".wal"):
        if os.path.exists(args.db + suffix):
            os.remove(args.db + suffix)
    con = duckdb.connect(args.db)
    con.execute("SET enable_progress_bar = false")
    if args.threads:
        con.execute(f"SET threads = {int(args.threads)}")
    con.execute("""
        CREATE TABLE incidents AS
        SELECT * FROM read_csv(?, header = true, auto_detect = false, delim = ',', quote = '"',
                               escape = '"',
                               columns = {'incident_id': 'VARCHAR', 'occurred_at': 'VARCHAR',
                                          'latitude': 'DOUBLE', 'longitude': 'DOUBLE',
                                          'category': 'VARCHAR', 'handled': 'BOOLEAN'})
    """, [args.csv])
    con.execute("CHECKPOINT")
    n, located = con.execute(
        "SELECT count(*), count(*) FILTER (WHERE latitude IS NOT NULL AND longitude IS NOT NULL) "
        "FROM incidents").fetchone()
    con.close()
    print(f"load_duckdb: {n} rows, {located} with coordinates, {time.time() - t0:.2f} s",
          file=sys.stderr)


if __name__ == "__main__":
    main()
