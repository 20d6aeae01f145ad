#!/usr/bin/env python3
"""SPEC §7.2 grid heatmap computed with GeoPandas / shapely (STRtree) and numpy.

The job as a GeoPandas user would write it:
  1. pandas reads each CSV as text; coordinates and times are parsed vectorised and what the SPEC
     rejects is dropped (missing/invalid coordinates, (0, 0), unparseable time);
  2. SPEC §4 keys (the id, or content + ordinal among identical id-less rows of the same file),
     last version of each key kept;
  3. current and previous windows; incidents sharing a point are collapsed into one weighted point;
  4. a GeoDataFrame of the points and its spatial index (shapely STRtree);
  5. candidate cells: the geohash cells around the occupied cells (dilated by the radius); for
     each candidate cell centre the STRtree returns the points in the bounding box of the radius
     (the exact longitude extent of the spherical cap), and the exact haversine decides;
  6. counts per cell with numpy bincount, geohash strings from the integer indices, CSV written
     with Python formatting, GeoJSON with GeoDataFrame.to_file (RFC 7946 mode).

Usage: grid_geopandas.py --input FILE... --as-of ISO --precision P --radius M --out-csv PATH
                         [--out-geojson PATH] [--chunk-cells N]
"""

import math
import os
import sys
import time

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely

import gridcommon as gc

K = gc.DEG
R = gc.EARTH_RADIUS_M


def read_one(index, path, overrides):
    header, delim = gc.read_header(path)
    cols = gc.detect_columns(header, overrides)
    wanted = {f: i for f, i in cols.items() if i is not None}
    usecols = sorted(set(wanted.values()))
    df = pd.read_csv(path, sep=delim, header=0, usecols=usecols, dtype=object,
                     keep_default_na=False, na_filter=False, on_bad_lines="skip",
                     encoding="utf-8-sig", engine="c")
    names = list(df.columns)  # in file order of usecols
    by_index = dict(zip(usecols, names))
    out = pd.DataFrame({"f": np.full(len(df), index, dtype=np.int32),
                        "rn": np.arange(len(df), dtype=np.int64)})
    for field in ("id", "time", "lat", "lon", "category", "handled"):
        i = cols[field]
        out[field] = df[by_index[i]].to_numpy(dtype=object) if i is not None else None
    return out


def parse_number(s):
    """Text -> float64 (NaN when not a plain decimal number); Python's correctly rounded parser."""
    s = pd.Series(s, dtype=object).fillna("")
    ok = s.str.fullmatch(gc.NUMBER_RE).fillna(False).to_numpy(dtype=bool)
    out = np.full(len(s), np.nan)
    out[ok] = s.to_numpy(dtype=object)[ok].astype(np.float64)
    return out


def days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (vectorised, int64)."""
    y = y - (m <= 2)
    era = np.floor_divide(y, 400)
    yoe = y - era * 400
    mp = (m + 9) % 12
    doy = (153 * mp + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def parse_time(s):
    """Text -> epoch seconds (int64) and validity mask, SPEC §2.4."""
    s = pd.Series(s, dtype=object).fillna("")
    n = len(s)
    t = np.zeros(n, dtype=np.int64)
    valid = np.zeros(n, dtype=bool)

    num = s.str.fullmatch(gc.EPOCH_RE).fillna(False).to_numpy(dtype=bool)
    if num.any():
        v = s.to_numpy(dtype=object)[num].astype(np.float64)
        v = np.where(np.abs(v) >= 1e11, np.floor(v / 1000.0), np.floor(v))
        t[num] = v.astype(np.int64)
        valid[num] = True

    g = s[~num].str.extract(gc.TIME_RE)
    m = g[0].notna().to_numpy()
    if m.any():
        idx = np.flatnonzero(~num)[m]
        g = g[m]

        def ints(col, default):
            return pd.to_numeric(g[col].replace("", np.nan), errors="coerce").fillna(default) \
                .to_numpy(dtype=np.int64)

        y, mo, d = ints(0, 0), ints(1, 0), ints(2, 1)
        hh, mi, ss = ints(3, 0), ints(4, 0), ints(5, 0)
        z = g[7].fillna("").str.upper()
        zsign = np.where(z.str[:1] == "-", -1, 1)
        zh = pd.to_numeric(z.str[1:3], errors="coerce").fillna(0).to_numpy(dtype=np.int64)
        zm = pd.to_numeric(z.str[3:].str.replace(":", ""), errors="coerce").fillna(0) \
            .to_numpy(dtype=np.int64)
        leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
        dim = np.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])[np.clip(mo - 1, 0, 11)]
        dim = dim + ((mo == 2) & leap)
        ok = ((mo >= 1) & (mo <= 12) & (d >= 1) & (d <= dim) & (hh <= 23) & (mi <= 59)
              & (ss <= 59) & (zh <= 23) & (zm <= 59))
        e = days_from_civil(y, mo, d) * 86400 + hh * 3600 + mi * 60 + ss - zsign * (zh * 3600 + zm * 60)
        t[idx[ok]] = e[ok]
        valid[idx[ok]] = True
    valid &= (t >= gc.MIN_EPOCH) & (t <= gc.MAX_EPOCH)
    return t, valid


def parse_handled(s):
    if s is None:
        return np.zeros(0, dtype=bool)
    v = pd.Series(s, dtype=object).fillna("").str.strip().str.lower()
    return v.isin(["true", "1", "yes", "y"]).to_numpy()


def load_incidents(paths, overrides, T, T1, T2):
    frames = [read_one(i, p, overrides) for i, p in enumerate(paths)]
    df = pd.concat(frames, ignore_index=True)
    lat = parse_number(df["lat"])
    lon = parse_number(df["lon"])
    t, tok = parse_time(df["time"])
    handled = parse_handled(df["handled"]) if df["handled"].notna().any() else np.zeros(len(df), bool)
    ok = (np.isfinite(lat) & np.isfinite(lon) & (np.abs(lat) <= 90) & (np.abs(lon) <= 180)
          & ~((lat == 0) & (lon == 0)) & tok)
    ids = df["id"].fillna("").astype(object).str.strip()
    cat = df["category"].replace("", np.nan) if df["category"].notna().any() else \
        pd.Series(np.nan, index=df.index, dtype=object)
    inc = pd.DataFrame({"f": df["f"], "rn": df["rn"], "id": ids, "t": t, "lat": lat, "lon": lon,
                        "cat": cat, "handled": handled})[ok]
    # SPEC §4: key = id, or (content, ordinal among identical id-less rows of the same file);
    # the last version of a key wins (frames are concatenated in input and line order).
    with_id = inc[inc["id"] != ""].drop_duplicates("id", keep="last")
    idless = inc[inc["id"] == ""].copy()
    idless["ord"] = idless.groupby(["f", "t", "lat", "lon", "cat"], dropna=False, sort=False).cumcount()
    idless = idless.drop_duplicates(["t", "lat", "lon", "cat", "ord"], keep="last")
    inc = pd.concat([with_id, idless.drop(columns="ord")])
    inc = inc[(inc["t"] > T2) & (inc["t"] <= T)]
    cur = (inc["t"] > T1).to_numpy()
    return pd.DataFrame({"lat": inc["lat"].to_numpy(), "lon": inc["lon"].to_numpy(),
                         "nc": cur.astype(np.int64), "np": (~cur).astype(np.int64),
                         "nh": (cur & inc["handled"].to_numpy()).astype(np.int64)})


def cell_index(v, lo, span, n):
    """Geohash bisection index of v in [lo, lo + span) with n cells, exact at split values."""
    i = np.clip(np.floor((v - lo) / span * n).astype(np.int64), 0, n - 1)
    w = span / n
    i = i - ((i > 0) & (v < lo + i * w)) + ((i < n - 1) & (v >= lo + (i + 1) * w))
    return i


def geohash_strings(row, col, precision):
    lon_bits, lat_bits = gc.geohash_bits(precision)
    code = np.zeros(len(row), dtype=np.int64)
    for j in range(5 * precision):
        if j % 2 == 0:
            bit = (col >> (lon_bits - 1 - j // 2)) & 1
        else:
            bit = (row >> (lat_bits - 1 - j // 2)) & 1
        code = (code << 1) | bit
    alphabet = np.array(list(gc.GEOHASH_ALPHABET))
    chars = [alphabet[(code >> (5 * (precision - 1 - i))) & 31] for i in range(precision)]
    out = chars[0].astype(object)
    for c in chars[1:]:
        out = out + c.astype(object)
    return out


def dilate(keys_r, keys_c, dr, dc, NR, NC):
    """All cells within dr rows and dc columns of the given cells (separable, deduplicated)."""
    r = (keys_r[:, None] + np.arange(-dr, dr + 1)[None, :]).ravel()
    c = np.repeat(keys_c, 2 * dr + 1)
    keep = (r >= 0) & (r < NR)
    k = np.unique(r[keep] * NC + c[keep])
    r, c = k // NC, k % NC
    if 2 * dc + 1 >= NC:
        rr = np.unique(r)
        return np.repeat(rr, NC), np.tile(np.arange(NC), len(rr))
    c2 = (c[:, None] + np.arange(-dc, dc + 1)[None, :]).ravel() % NC
    r2 = np.repeat(r, 2 * dc + 1)
    k = np.unique(r2 * NC + c2)
    return k // NC, k % NC


def main():
    p = gc.make_parser(__doc__.splitlines()[0])
    p.add_argument("--chunk-cells", type=int, default=1024,
                   help="candidate cells per STRtree query batch (bounds memory)")
    args = p.parse_args()
    t0 = time.time()
    T, T1, T2 = gc.windows(args.as_of)
    thresholds = gc.parse_thresholds(args.thresholds)
    P = args.precision
    lon_bits, lat_bits = gc.geohash_bits(P)
    NC, NR = 1 << lon_bits, 1 << lat_bits
    W, H = 360.0 / NC, 180.0 / NR

    inc = load_incidents(args.input, gc.column_overrides(args), T, T1, T2)
    pts = inc.groupby(["lat", "lon"], sort=False, as_index=False)[["nc", "np", "nh"]].sum()
    lat = pts["lat"].to_numpy()
    lon = pts["lon"].to_numpy()
    nc, npv, nh = (pts[c].to_numpy(dtype=np.float64) for c in ("nc", "np", "nh"))
    gdf = gpd.GeoDataFrame(pts, geometry=gpd.points_from_xy(lon, lat), crs="EPSG:4326")
    sindex = gdf.sindex  # shapely STRtree over the points
    phi, lam, cphi = lat * K, lon * K, np.cos(lat * K)

    row = cell_index(lat, -90.0, 180.0, NR)
    col = cell_index(lon, -180.0, 360.0, NC)

    delta = args.radius / R
    dlat = delta / K * (1 + 1e-9) + 1e-12

    # candidate cells: occupied cells dilated by the radius (in rows and columns)
    occ = np.unique(row * NC + col)
    if len(occ):
        max_abs_lat = min(90.0, float(np.max(np.abs(lat))) + dlat)
        c_at = math.cos(max_abs_lat * K)
        dlon_max = 180.0 if math.sin(delta) >= c_at else math.asin(math.sin(delta) / c_at) / K
        cand_r, cand_c = dilate(occ // NC, occ % NC, int(math.ceil(dlat / H)) + 1,
                                int(math.ceil(dlon_max / W)) + 1, NR, NC)
    else:
        cand_r = cand_c = np.zeros(0, dtype=np.int64)
    n_cand = len(cand_r)
    clat = -90.0 + (cand_r + 0.5) * H
    clon = -180.0 + (cand_c + 0.5) * W
    cphic = clat * K
    lamc = clon * K
    ccos = np.cos(cphic)
    # exact longitude half-extent of the spherical cap of the radius around each centre
    sratio = math.sin(delta) / np.maximum(ccos, 1e-300)
    dlonc = np.where(sratio >= 1, 360.0, np.arcsin(np.minimum(sratio, 1.0)) / K * (1 + 1e-9) + 1e-12)

    r_cur = np.zeros(n_cand)
    r_prev = np.zeros(n_cand)
    r_hand = np.zeros(n_cand)
    step = max(1, args.chunk_cells)
    for s in range(0, n_cand, step):
        e = min(n_cand, s + step)
        x0 = clon[s:e] - dlonc[s:e]
        x1 = clon[s:e] + dlonc[s:e]
        full = (x1 - x0) >= 360.0  # the cap reaches every longitude (near a pole)
        x0 = np.where(full, -180.0, x0)
        x1 = np.where(full, 180.0, x1)
        boxes = [shapely.box(np.maximum(x0, -180.0), clat[s:e] - dlat,
                             np.minimum(x1, 180.0), clat[s:e] + dlat)]
        owners = [np.arange(s, e)]
        # boxes crossing the antimeridian continue on the other side
        for sel, shift in ((x0 < -180.0, 360.0), (x1 > 180.0, -360.0)):
            if sel.any():
                ii = np.flatnonzero(sel)
                boxes.append(shapely.box(np.maximum(x0[ii] + shift, -180.0), clat[s:e][ii] - dlat,
                                         np.minimum(x1[ii] + shift, 180.0), clat[s:e][ii] + dlat))
                owners.append(s + ii)
        for bx, own in zip(boxes, owners):
            ci, pi = sindex.query(bx)
            ci = own[ci]
            sdphi = np.sin((cphic[ci] - phi[pi]) / 2)
            sdlam = np.sin((lamc[ci] - lam[pi]) / 2)
            a = sdphi * sdphi + cphi[pi] * ccos[ci] * (sdlam * sdlam)
            inside = 2 * R * np.arcsin(np.sqrt(a)) <= args.radius
            ci, pi = ci[inside] - s, pi[inside]
            r_cur[s:e] += np.bincount(ci, weights=nc[pi], minlength=e - s)
            r_prev[s:e] += np.bincount(ci, weights=npv[pi], minlength=e - s)
            r_hand[s:e] += np.bincount(ci, weights=nh[pi], minlength=e - s)

    # incidents inside each cell
    cand_key = cand_r * NC + cand_c
    pos = np.searchsorted(cand_key, row * NC + col)
    n_cur = np.bincount(pos, weights=nc, minlength=n_cand)
    n_prev = np.bincount(pos, weights=npv, minlength=n_cand)

    keep = (r_cur + r_prev + n_cur + n_prev) > 0
    rr, cc = cand_r[keep], cand_c[keep]
    out = pd.DataFrame({
        "geohash": geohash_strings(rr, cc, P),
        "lat": clat[keep], "lon": clon[keep],
        "n_current": n_cur[keep].astype(np.int64), "n_previous": n_prev[keep].astype(np.int64),
        "r_current": r_cur[keep].astype(np.int64), "r_previous": r_prev[keep].astype(np.int64),
    })
    out["delta"] = out["r_current"] - out["r_previous"]
    prev = out["r_previous"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["pct"] = np.where(prev > 0, out["delta"].to_numpy() / np.where(prev > 0, prev, 1), np.nan)
    out["handled"] = r_hand[keep].astype(np.int64)
    lo_t, hi_t = thresholds
    rc = out["r_current"].to_numpy()
    out["class"] = np.where(rc < lo_t, "safe", np.where(rc < hi_t, "medium", "dangerous"))
    out = out.sort_values("geohash", kind="stable").reset_index(drop=True)

    write_csv(out, args.out_csv)
    if args.out_geojson:
        write_geojson(out, args.out_geojson, W, H)
    if not args.quiet:
        print(f"grid_geopandas: {len(out)} cells, precision {P}, radius {args.radius:g} m, "
              f"{time.time() - t0:.2f} s", file=sys.stderr)


def write_csv(out, path):
    cols = ["geohash", "lat", "lon", "n_current", "n_previous", "r_current", "r_previous",
            "delta", "pct", "handled", "class"]
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        fh.write(",".join(cols) + "\n")
        recs = zip(out["geohash"], out["lat"], out["lon"], out["n_current"], out["n_previous"],
                   out["r_current"], out["r_previous"], out["delta"], out["pct"], out["handled"],
                   out["class"])
        lines = []
        for g, la, lo, a, b, c, d, e, pc, h, k in recs:
            pcs = "" if pc != pc else "%.4f" % pc
            lines.append(f"{g},{la:.6f},{lo:.6f},{a},{b},{c},{d},{e},{pcs},{h},{k}\n")
            if len(lines) >= 100000:
                fh.write("".join(lines))
                lines = []
        fh.write("".join(lines))
    os.replace(tmp, path)


def write_geojson(out, path, W, H):
    x0 = out["lon"].to_numpy() - W / 2
    y0 = out["lat"].to_numpy() - H / 2
    geom = shapely.box(x0, y0, x0 + W, y0 + H, ccw=True)
    props = out.copy()
    # the same decimal rounding as the CSV (printf-style, not numpy's scaled round)
    props["lat"] = [float("%.6f" % v) for v in props["lat"]]
    props["lon"] = [float("%.6f" % v) for v in props["lon"]]
    props["pct"] = [float("%.4f" % v) if v == v else np.nan for v in props["pct"]]
    gdf = gpd.GeoDataFrame(props, geometry=geom, crs="EPSG:4326")
    tmp = path + ".tmp.geojson"
    if os.path.exists(tmp):
        os.remove(tmp)
    gdf.to_file(tmp, driver="GeoJSON", engine="pyogrio", RFC7946="YES",
                COORDINATE_PRECISION=6, WRITE_NAME="NO")
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
