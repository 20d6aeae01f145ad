#!/usr/bin/env python3
"""SPEC §7.2 grid heatmap computed with DuckDB SQL (plain SQL, no spatial extension).

The job as a DuckDB user would write it:
  1. read each CSV with read_csv (all columns as text), parse coordinates and times in SQL and
     drop what the SPEC rejects (missing/invalid coordinates, (0, 0), unparseable time);
  2. give every record its SPEC §4 key (the id, or content + ordinal among identical id-less rows
     of the same file) and keep the last version of each key;
  3. keep the current and previous windows and collapse incidents that share a point;
  4. integer geohash row/column of each point (exact bisection semantics);
  5. cell-bucket join: for each point, the candidate rows within the radius' latitude span and, per
     row, the columns within that row's longitude span (from the haversine bound), then the exact
     haversine against each candidate centre, and a GROUP BY cell;
  6. geohash strings from the integer indices, formatting, COPY to CSV (and GeoJSON text).

Usage: grid_duckdb.py --input FILE... --as-of ISO --precision P --radius M --out-csv PATH
                      [--out-geojson PATH] [--threads N] [--memory-limit 4GB]
"""

import math
import os
import sys
import time

import duckdb

import gridcommon as gc


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def raw_select(index, path, header, delim, cols):
    names = [f"c{i}" for i in range(len(header))]
    columns = "{" + ", ".join(f"'{n}': 'VARCHAR'" for n in names) + "}"

    def col(field):
        i = cols[field]
        return "NULL::VARCHAR" if i is None else f"c{i}"

    return (f"SELECT {index} AS f, row_number() OVER () AS rn, {col('id')} AS id, "
            f"{col('time')} AS tm, {col('lat')} AS la, {col('lon')} AS lo, "
            f"{col('category')} AS cat, {col('handled')} AS hd "
            f"FROM read_csv({sql_str(path)}, header = true, auto_detect = false, "
            f"columns = {columns}, delim = {sql_str(delim)}, quote = '\"', escape = '\"', "
            f"ignore_errors = true)")


def geohash_sql(precision, row, col):
    """SQL text building the geohash string from integer latitude row / longitude column."""
    lon_bits, lat_bits = gc.geohash_bits(precision)
    chars = []
    for i in range(precision):
        terms = []
        for k in range(5):
            j = 5 * i + k  # position in the interleaved bit string, longitude first
            if j % 2 == 0:
                shift = lon_bits - 1 - j // 2
                terms.append(f"((({col}) >> {shift}) & 1) * {1 << (4 - k)}")
            else:
                shift = lat_bits - 1 - j // 2
                terms.append(f"((({row}) >> {shift}) & 1) * {1 << (4 - k)}")
        chars.append(f"substr('{gc.GEOHASH_ALPHABET}', 1 + ({' + '.join(terms)})::INTEGER, 1)")
    return " || ".join(chars)


def main():
    p = gc.make_parser(__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=None, help="DuckDB threads (default: all cores)")
    p.add_argument("--memory-limit", default=None, help="DuckDB memory_limit, e.g. 4GB")
    args = p.parse_args()
    t0 = time.time()
    T, T1, T2 = gc.windows(args.as_of)
    lo_thr, hi_thr = gc.parse_thresholds(args.thresholds)
    P = args.precision
    lon_bits, lat_bits = gc.geohash_bits(P)
    NC, NR = 1 << lon_bits, 1 << lat_bits
    W = 360.0 / NC  # exact binary fractions
    H = 180.0 / NR
    delta = args.radius / gc.EARTH_RADIUS_M  # angular radius, radians
    s2 = math.sin(delta / 2) ** 2
    dlat_deg = delta / gc.DEG * (1 + 1e-9) + 1e-12

    con = duckdb.connect()
    if args.threads:
        con.execute(f"SET threads = {int(args.threads)}")
    if args.memory_limit:
        con.execute(f"SET memory_limit = {sql_str(args.memory_limit)}")
    con.execute("SET preserve_insertion_order = true")
    con.execute("SET enable_progress_bar = false")

    # 1. raw text rows of every file, with file index and line order
    selects = []
    for i, path in enumerate(args.input):
        header, delim = gc.read_header(path)
        cols = gc.detect_columns(header, gc.column_overrides(args))
        selects.append(raw_select(i, path, header, delim, cols))
    con.execute("CREATE TEMP TABLE raw AS " + " UNION ALL ".join(selects))

    D = "::DOUBLE"
    K = f"(pi() / 180.0{D})"  # degrees -> radians factor, as in the SPEC
    R = f"6371008.8{D}"

    # 2. parse and validate (SPEC §2.4, §3), then keys and last-version-wins (SPEC §4)
    con.execute(f"""
    CREATE TEMP TABLE parsed AS
    WITH p AS (
      SELECT f, rn, nullif(trim(id), '') AS id,
             CASE WHEN regexp_full_match(la, '{gc.NUMBER_RE}') THEN CAST(trim(la) AS DOUBLE) END AS lat,
             CASE WHEN regexp_full_match(lo, '{gc.NUMBER_RE}') THEN CAST(trim(lo) AS DOUBLE) END AS lon,
             tm, fast,
             -- the general SPEC §2.4 parser only for what the fast paths did not take
             CASE WHEN fast IS NULL THEN
               regexp_extract(tm, '{gc.TIME_RE}', ['y', 'mo', 'd', 'h', 'mi', 's', 'fr', 'z']) END AS g,
             CAST(nullif(cat, '') AS VARCHAR) AS cat,
             CASE WHEN lower(trim(hd)) IN ('true', '1', 'yes', 'y') THEN true
                  WHEN lower(trim(hd)) IN ('false', '0', 'no', 'n') THEN false END AS handled
      FROM (
        SELECT *,
          -- fast paths for the two common shapes (generator ISO 'Z' times, police 'YYYY-MM')
          CASE WHEN regexp_full_match(tm, '[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}T[0-9]{{2}}:[0-9]{{2}}:[0-9]{{2}}Z')
                 THEN epoch(try_strptime(tm, '%Y-%m-%dT%H:%M:%SZ'))::BIGINT
               WHEN regexp_full_match(tm, '[0-9]{{4}}-[0-9]{{2}}')
                 THEN epoch(try_strptime(tm, '%Y-%m'))::BIGINT END AS fast
        FROM raw)
    ), t AS (
      SELECT f, rn, id, lat, lon, cat, handled,
        CASE
          WHEN fast IS NOT NULL THEN fast
          WHEN regexp_full_match(tm, '{gc.EPOCH_RE}') THEN
            CASE WHEN abs(CAST(trim(tm) AS DOUBLE)) >= 1e11
                 THEN floor(CAST(trim(tm) AS DOUBLE) / 1000.0)
                 ELSE floor(CAST(trim(tm) AS DOUBLE)) END::BIGINT
          WHEN g.y <> '' AND coalesce(nullif(g.h, ''), '00') <= '23'
               AND coalesce(nullif(g.mi, ''), '00') <= '59' AND coalesce(nullif(g.s, ''), '00') <= '59'
               AND (g.z = '' OR upper(g.z) = 'Z' OR (g.z[2:3] <= '23'
                    AND coalesce(nullif(replace(g.z[4:], ':', ''), ''), '00') <= '59')) THEN
            epoch(try_cast(g.y || '-' || g.mo || '-' || coalesce(nullif(g.d, ''), '01') || ' ' ||
                           coalesce(nullif(g.h, ''), '00') || ':' || coalesce(nullif(g.mi, ''), '00') || ':' ||
                           coalesce(nullif(g.s, ''), '00') AS TIMESTAMP))::BIGINT
            - CASE WHEN g.z = '' OR upper(g.z) = 'Z' THEN 0
                   ELSE (CASE WHEN g.z[1] = '-' THEN -1 ELSE 1 END) *
                        (CAST(g.z[2:3] AS BIGINT) * 3600 +
                         coalesce(CAST(nullif(replace(g.z[4:], ':', ''), '') AS BIGINT), 0) * 60) END
        END AS t
      FROM p
    )
    SELECT * FROM t
    WHERE lat IS NOT NULL AND lon IS NOT NULL AND isfinite(lat) AND isfinite(lon)
      AND lat BETWEEN -90 AND 90 AND lon BETWEEN -180 AND 180
      AND NOT (lat = 0 AND lon = 0)
      AND t IS NOT NULL AND t BETWEEN {gc.MIN_EPOCH} AND {gc.MAX_EPOCH}
    """)

    con.execute(f"""
    CREATE TEMP TABLE inc AS
    WITH with_id AS (
      SELECT * FROM parsed WHERE id IS NOT NULL
      QUALIFY row_number() OVER (PARTITION BY id ORDER BY f DESC, rn DESC) = 1
    ), idless AS (
      SELECT *, row_number() OVER (PARTITION BY f, t, lat, lon, cat ORDER BY rn) AS ord
      FROM parsed WHERE id IS NULL
    ), idless_last AS (
      SELECT * EXCLUDE (ord) FROM idless
      QUALIFY row_number() OVER (PARTITION BY t, lat, lon, cat, ord ORDER BY f DESC, rn DESC) = 1
    )
    SELECT lat, lon, t > {T1} AS cur, coalesce(handled, false) AS handled
    FROM (SELECT * FROM with_id UNION ALL SELECT * FROM idless_last)
    WHERE t > {T2} AND t <= {T}
    """)

    # 3-4. incidents collapsed per point, with the point's own cell (exact geohash bisection:
    # floor() of the scaled coordinate, corrected against the exact split values)
    con.execute(f"""
    CREATE TEMP TABLE pts AS
    WITH g AS (
      SELECT lat, lon, count(*) FILTER (WHERE cur) AS nc, count(*) FILTER (WHERE NOT cur) AS np,
             count(*) FILTER (WHERE cur AND handled) AS nh
      FROM inc GROUP BY lat, lon
    ), f AS (
      SELECT *, least(greatest(floor((lon + 180.0{D}) / 360.0{D} * {NC})::BIGINT, 0), {NC - 1}) AS c0,
                least(greatest(floor((lat + 90.0{D}) / 180.0{D} * {NR})::BIGINT, 0), {NR - 1}) AS r0
      FROM g
    )
    SELECT lat, lon, nc, np, nh,
      c0 - (c0 > 0 AND lon < -180.0{D} + c0 * {W!r}{D})::BIGINT
         + (c0 < {NC - 1} AND lon >= -180.0{D} + (c0 + 1) * {W!r}{D})::BIGINT AS col,
      r0 - (r0 > 0 AND lat < -90.0{D} + r0 * {H!r}{D})::BIGINT
         + (r0 < {NR - 1} AND lat >= -90.0{D} + (r0 + 1) * {H!r}{D})::BIGINT AS row,
      lat * {K} AS phi, cos(lat * {K}) AS cphi, lon * {K} AS lam
    FROM f
    """)

    # 5. cell-bucket join: candidate rows, per-row candidate columns, exact haversine, GROUP BY
    con.execute(f"""
    CREATE TEMP TABLE within AS
    WITH rows_ AS (
      SELECT nc, np, nh, phi, cphi, lam, lon,
        unnest(range(greatest(floor((lat - {dlat_deg!r}{D} + 90.0{D}) / {H!r}{D} - 0.5)::BIGINT - 1, 0),
                     least(ceil((lat + {dlat_deg!r}{D} + 90.0{D}) / {H!r}{D} - 0.5)::BIGINT + 1, {NR - 1}) + 1)) AS r
      FROM pts
    ), rowspan AS (
      -- per candidate row: the latitude term of the haversine, cos φ1 · cos φ2, and the bound
      -- sin²(Δλ/2) <= q that a centre of this row must meet to be within the radius
      SELECT *, (sdphi * sdphi) AS a_phi, cphi * cos(cphi_r) AS cc,
             ({s2!r}{D} - sdphi * sdphi) / (cphi * cos(cphi_r)) AS q
      FROM (SELECT *, sin((cphi_r - phi) / 2) AS sdphi
            FROM (SELECT *, (-90.0{D} + (r + 0.5) * {H!r}{D}) * {K} AS cphi_r FROM rows_))
    ), colspan AS (
      SELECT *, CASE WHEN q >= 1 THEN 360.0{D} ELSE 2 * asin(sqrt(greatest(q, 0))) / {K} END AS dlon
      FROM rowspan WHERE q > -1e-12
    ), cells AS (
      SELECT nc, np, nh, lam, r, a_phi, cc,
        unnest(CASE WHEN dlon >= 180 OR 2 * dlon / {W!r}{D} + 4 >= {NC} THEN range(0, {NC})
                    ELSE range(floor((lon - dlon + 180.0{D}) / {W!r}{D} - 0.5)::BIGINT - 1,
                               ceil((lon + dlon + 180.0{D}) / {W!r}{D} - 0.5)::BIGINT + 2) END) AS c
      FROM colspan
    ), dist AS (
      SELECT nc, np, nh, r, cw, a_phi, cc,
        sin(((-180.0{D} + (cw + 0.5) * {W!r}{D}) * {K} - lam) / 2) AS sdlam
      FROM (SELECT *, ((c % {NC}) + {NC}) % {NC} AS cw FROM cells)
    )
    -- exact SPEC haversine: a = sin²(Δφ/2) + cos φ1 cos φ2 sin²(Δλ/2), d = 2R asin(√a) <= radius
    SELECT r AS row, cw AS col, sum(nc) AS r_current, sum(np) AS r_previous, sum(nh) AS handled
    FROM dist
    WHERE 2 * {R} * asin(sqrt(a_phi + cc * (sdlam * sdlam))) <= {args.radius!r}{D}
    GROUP BY r, cw
    """)

    # 6. report: own-cell counts + radius counts, geohash, formatting
    gh = geohash_sql(P, "row", "col")
    con.execute(f"""
    CREATE TEMP TABLE grid AS
    WITH own AS (
      SELECT row, col, sum(nc) AS n_current, sum(np) AS n_previous FROM pts GROUP BY row, col
    ), j AS (
      SELECT coalesce(w.row, o.row) AS row, coalesce(w.col, o.col) AS col,
             coalesce(o.n_current, 0) AS n_current, coalesce(o.n_previous, 0) AS n_previous,
             coalesce(w.r_current, 0) AS r_current, coalesce(w.r_previous, 0) AS r_previous,
             coalesce(w.handled, 0) AS handled
      FROM within w FULL OUTER JOIN own o ON w.row = o.row AND w.col = o.col
    )
    SELECT {gh} AS geohash, row, col,
           -90.0{D} + (row + 0.5) * {H!r}{D} AS clat, -180.0{D} + (col + 0.5) * {W!r}{D} AS clon,
           n_current::BIGINT AS n_current, n_previous::BIGINT AS n_previous,
           r_current::BIGINT AS r_current, r_previous::BIGINT AS r_previous,
           (r_current - r_previous)::BIGINT AS delta,
           CASE WHEN r_previous > 0 THEN (r_current - r_previous)::DOUBLE / r_previous END AS pct,
           handled::BIGINT AS handled,
           CASE WHEN r_current < {lo_thr} THEN 'safe' WHEN r_current < {hi_thr} THEN 'medium'
                ELSE 'dangerous' END AS class
    FROM j
    """)

    con.execute(f"""
    COPY (
      SELECT geohash, printf('%.6f', clat) AS lat, printf('%.6f', clon) AS lon,
             n_current, n_previous, r_current, r_previous, delta,
             CASE WHEN pct IS NOT NULL THEN printf('%.4f', pct) END AS pct, handled, class
      FROM grid ORDER BY geohash
    ) TO {sql_str(args.out_csv)} (FORMAT csv, HEADER true, QUOTE '', NULLSTR '')
    """)

    if args.out_geojson:
        write_geojson(con, args.out_geojson, W, H)

    n = con.execute("SELECT count(*) FROM grid").fetchone()[0]
    if not args.quiet:
        print(f"grid_duckdb: {n} cells, precision {P}, radius {args.radius:g} m, "
              f"{time.time() - t0:.2f} s", file=sys.stderr)


def fmt6(expr):
    """SQL: a number with at most 6 decimals, trailing zeros removed (for GeoJSON)."""
    return (f"regexp_replace(regexp_replace(printf('%.6f', {expr}), '0+$', ''), '\\.$', '')")


def write_geojson(con, path, W, H):
    D = "::DOUBLE"
    x0, x1 = f"(-180.0{D} + col * {W!r}{D})", f"(-180.0{D} + (col + 1) * {W!r}{D})"
    y0, y1 = f"(-90.0{D} + row * {H!r}{D})", f"(-90.0{D} + (row + 1) * {H!r}{D})"
    ring = " || ',' || ".join(
        f"'[' || {fmt6(x)} || ',' || {fmt6(y)} || ']'"
        for x, y in ((x1, y0), (x1, y1), (x0, y1), (x0, y0), (x1, y0)))
    cur = con.execute(f"""
      SELECT '{{"type":"Feature","geometry":{{"type":"Polygon","coordinates":[[' || {ring} || ']]}},'
          || '"properties":{{"geohash":"' || geohash || '","lat":' || {fmt6('clat')}
          || ',"lon":' || {fmt6('clon')} || ',"n_current":' || n_current
          || ',"n_previous":' || n_previous || ',"r_current":' || r_current
          || ',"r_previous":' || r_previous || ',"delta":' || delta
          || ',"pct":' || coalesce(regexp_replace(regexp_replace(printf('%.4f', pct), '0+$', ''), '\\.$', ''), 'null')
          || ',"handled":' || handled || ',"class":"' || class || '"}}}}'
      FROM grid ORDER BY geohash
    """)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        out.write('{"type":"FeatureCollection","features":[\n')
        first = True
        while True:
            rows = cur.fetchmany(50000)
            if not rows:
                break
            chunk = ",\n".join(r[0] for r in rows)
            out.write(chunk if first else ",\n" + chunk)
            first = False
        out.write("\n]}\n")
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
