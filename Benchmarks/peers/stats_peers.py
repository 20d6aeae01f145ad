#!/usr/bin/env python3
"""Independent checks of the statistics of SPEC §12 and §13 with SciPy, statsmodels, esda, libpysal
and pymannkendall.

  etest CSV              CSV rows k1,k2,n1,n2,p (areawatch's E-test p-values, any header-less
                         CSV of that shape): compares every p with scipy.stats.poisson_means_test
                         (within 1e-9 absolute or 1e-6 relative); exit 1 on any mismatch.
  gistar [--seed S]      esda.G_Local(y, w, transform='B', star=True) on a random space-time cube
                         flattened to one step (every bin an observation, binary weights with the
                         bin itself) against SPEC §13's formula; prints the largest difference.
  ehsa CSV --as-of T     the whole §13 computation with esda + libpysal + statsmodels +
                         pymannkendall on a generator CSV (incident_id,occurred_at,latitude,
                         longitude,...), timed; --compare FILE checks an areawatch ehsa.csv
                         (geohash,...,label,trend_z,trend_p,tau,hot_steps,cold_steps,z_last,
                         q_last,z01…) location by location; --out FILE writes the peer's rows.

Example:
  python3 Benchmarks/peers/stats_peers.py ehsa incidents-1m.csv --as-of 2018-08-01T00:00:00Z \\
      --precision 7 --steps 24 --compare report/ehsa.csv
"""

import argparse
import calendar
import csv
import math
import sys
import time
from datetime import datetime, timezone

import numpy as np

BASE32 = "0123456789bcdefghjkmnpqrstuvwxyz"


def agrees(a, b):
    return abs(a - b) <= 1e-9 or abs(a - b) <= 1e-6 * abs(b)


def cmd_etest(args):
    from scipy.stats import poisson_means_test
    rows = bad = 0
    worst = 0.0
    with open(args.csv) as f:
        for rec in csv.reader(f):
            if not rec or not rec[0].strip().isdigit():
                continue  # header or blank
            k1, k2, n1, n2, p = int(rec[0]), int(rec[1]), float(rec[2]), float(rec[3]), float(rec[4])
            ref = 1.0 if k1 + k2 == 0 else float(poisson_means_test(k1, n1, k2, n2).pvalue)
            rows += 1
            worst = max(worst, abs(p - ref))
            if not agrees(p, ref):
                bad += 1
                if bad <= 20:
                    print(f"MISMATCH k1={k1} k2={k2} n1={n1:g} n2={n2:g}: areawatch {p!r} SciPy {ref!r}")
    print(f"etest: {rows} rows, {bad} mismatches, largest absolute difference {worst:.3g}")
    return 1 if bad or rows == 0 else 0


def spec_gi_star(y, focal, neighbour):
    """SPEC §13: z = (Σ_nb x − x̄·W) / (S·√((n·W − W²)/(n − 1))), S the population deviation."""
    n = len(y)
    sums = np.bincount(focal, weights=y[neighbour], minlength=n)
    w = np.bincount(focal, minlength=n).astype(float)
    mean = y.sum() / n
    sd = math.sqrt((y * y).sum() / n - mean * mean)
    if sd == 0:
        return np.zeros(n)
    return (sums - mean * w) / (sd * np.sqrt((n * w - w * w) / (n - 1)))


def esda_gi_star(y, focal, neighbour):
    from esda.getisord import G_Local
    from libpysal.graph import Graph
    graph = Graph.from_arrays(focal, neighbour, np.ones(len(focal)))
    g = G_Local(y.astype(float), graph, transform="B", star=True, permutations=0)
    return np.asarray(g.Zs), np.asarray(g.p_norm)


def cube_graph(rows, cols, present, steps):
    """Directed space-time neighbour pairs (focal bin, neighbour bin) of SPEC §13 over a lattice
    block: locations are the present (row, col) cells, bins l·N + s, neighbours the location and its
    8 adjacent present cells in step s and s − 1. Longitude (col) wraps at `cols`."""
    index = {cell: i for i, cell in enumerate(present)}
    focal, neighbour = [], []
    for l, (r, c) in enumerate(present):
        near = [index[(r + dr, (c + dc) % cols)] for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                if (r + dr, (c + dc) % cols) in index and 0 <= r + dr < rows]
        for s in range(steps):
            for k in near:
                for t in (s - 1, s):
                    if t >= 0:
                        focal.append(l * steps + s)
                        neighbour.append(k * steps + t)
    return np.array(focal), np.array(neighbour)


def cmd_gistar(args):
    rng = np.random.default_rng(args.seed)
    rows, cols, steps = 12, 12, 10
    present = sorted({(int(r), int(c)) for r, c in rng.integers(0, 12, size=(90, 2))})
    focal, neighbour = cube_graph(rows, cols, present, steps)
    y = rng.poisson(rng.choice([0.3, 2, 8], size=len(present) * steps)).astype(float)
    spec = spec_gi_star(y, focal, neighbour)
    z, p_one_sided = esda_gi_star(y, focal, neighbour)
    diff = np.max(np.abs(z - spec))
    from scipy.stats import norm
    p_two = 2 * norm.sf(np.abs(spec))
    print(f"gistar: {len(y)} bins; max |z_esda − z_SPEC| = {diff:.3g}; "
          f"max |2·p_norm(esda) − p_SPEC| = {np.max(np.abs(2 * p_one_sided - p_two)):.3g}")
    print("  esda with transform='B', star=True and the bin itself among its neighbours computes the SPEC")
    print("  z (same moments: population variance, N − 1 in the variance of the sum); its p_norm is")
    print("  one-sided (norm.sf(|z|)), SPEC's p is two-sided = 2·p_norm. transform='R' (the default)")
    print("  row-standardises the weights and gives other z.")
    return 0 if diff <= 1e-9 else 1


def subtract_months(t, months):
    index = t.year * 12 + (t.month - 1) - months
    year, month = divmod(index, 12)
    day = min(t.day, calendar.monthrange(year, month + 1)[1])
    return t.replace(year=year, month=month + 1, day=day)


def geohash(row, col, precision):
    lon_bits, lat_bits = (5 * precision + 1) // 2, 5 * precision // 2
    bits = 0
    for i in range(5 * precision):
        # bits interleaved from the most significant, longitude first
        if i % 2 == 0:
            b = (col >> (lon_bits - 1 - i // 2)) & 1
        else:
            b = (row >> (lat_bits - 1 - i // 2)) & 1
        bits = (bits << 1) | b
    return "".join(BASE32[(bits >> (5 * (precision - 1 - k))) & 31] for k in range(precision))


def label_of(hot, cold, trend_z, trend_p):
    n = len(hot)

    def rules(h, c, rising, falling, side):
        count = int(h.sum())
        last = bool(h[-1])
        mostly = 10 * count >= 9 * n
        run = 0
        while run < n and h[n - 1 - run]:
            run += 1
        if last and count == 1:
            return f"new {side} spot"
        if last and run == count and run >= 2 and not mostly:
            return f"consecutive {side} spot"
        if mostly and last and rising:
            return f"intensifying {side} spot"
        if mostly and last and trend_p > 0.05:
            return f"persistent {side} spot"
        if mostly and last and falling:
            return f"diminishing {side} spot"
        if last and not mostly and not c.any():
            return f"sporadic {side} spot"
        if last and not mostly:
            return f"oscillating {side} spot"
        if not last and mostly:
            return f"historical {side} spot"
        return None

    sig = trend_p <= 0.05
    return (rules(hot, cold, trend_z > 0 and sig, trend_z < 0 and sig, "hot")
            or rules(cold, hot, trend_z < 0 and sig, trend_z > 0 and sig, "cold") or "no pattern")


def cmd_ehsa(args):
    import pandas as pd
    import pymannkendall as mk
    from statsmodels.stats.multitest import multipletests
    from scipy.stats import norm

    started = time.perf_counter()
    df = pd.read_csv(args.csv, usecols=["occurred_at", "latitude", "longitude"])
    t = pd.to_datetime(df["occurred_at"], format="%Y-%m-%dT%H:%M:%SZ", errors="coerce", utc=True)
    lat, lon = df["latitude"].to_numpy(float), df["longitude"].to_numpy(float)
    ok = t.notna().to_numpy() & np.isfinite(lat) & np.isfinite(lon) & (np.abs(lat) <= 90) & (np.abs(lon) <= 180) \
        & ~((lat == 0) & (lon == 0))
    # whole seconds whatever resolution pandas parsed the times at
    secs = ((t[ok] - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(seconds=1)).to_numpy(np.int64)
    lat, lon = lat[ok], lon[ok]
    loaded = time.perf_counter()

    as_of = datetime.strptime(args.as_of, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    n_steps, p = args.steps, args.precision
    bounds = np.array([int(subtract_months(as_of, n_steps - s).timestamp()) for s in range(n_steps + 1)])
    inside = (secs > bounds[0]) & (secs <= bounds[-1])
    step = np.searchsorted(bounds, secs[inside], side="left") - 1  # (b[s−1], b[s]] → s − 1
    lon_bits, lat_bits = (5 * p + 1) // 2, 5 * p // 2
    cols, rows = 1 << lon_bits, 1 << lat_bits
    col = np.minimum(np.floor((lon[inside] + 180) / 360 * cols).astype(np.int64), cols - 1)
    row = np.minimum(np.floor((lat[inside] + 90) / 180 * rows).astype(np.int64), rows - 1)
    key = row * cols + col
    cells, loc = np.unique(key, return_inverse=True)
    counts = np.zeros((len(cells), n_steps))
    np.add.at(counts, (loc, step), 1)
    present = [(int(k // cols), int(k % cols)) for k in cells]
    focal, neighbour = cube_graph(rows, cols, present, n_steps)
    y = counts.ravel()
    cubed = time.perf_counter()

    z, p_one = esda_gi_star(y, focal, neighbour)
    pvals = 2 * p_one
    q = multipletests(pvals, method="fdr_bh")[1]
    hot = ((q <= args.alpha) & (z > 0)).reshape(-1, n_steps)
    cold = ((q <= args.alpha) & (z < 0)).reshape(-1, n_steps)
    zs, qs = z.reshape(-1, n_steps), q.reshape(-1, n_steps)
    peer = {}
    for l, (r, c) in enumerate(present):
        trend = mk.original_test(zs[l])
        name = geohash(r, c, p)
        peer[name] = dict(label=label_of(hot[l], cold[l], trend.z, trend.p), trend_z=float(trend.z),
                          trend_p=float(trend.p), tau=float(trend.Tau), hot_steps=int(hot[l].sum()),
                          cold_steps=int(cold[l].sum()), z_last=float(zs[l, -1]), q_last=float(qs[l, -1]),
                          z=[float(v) for v in zs[l]])
    done = time.perf_counter()
    print(f"ehsa (esda + pymannkendall): {len(secs)} incidents, {len(cells)} locations, {len(y)} bins; "
          f"read {loaded - started:.2f} s, cube + weights {cubed - loaded:.2f} s, "
          f"Gi* + BH + MK + labels {done - cubed:.2f} s, total after reading {done - loaded:.2f} s")
    labels = {}
    for v in peer.values():
        labels[v["label"]] = labels.get(v["label"], 0) + 1
    for k in sorted(labels):
        print(f"  {k}: {labels[k]}")
    if args.out:
        with open(args.out, "w") as f:
            f.write("geohash,label,trend_z,trend_p,tau,hot_steps,cold_steps,z_last,q_last\n")
            for name in sorted(peer):
                v = peer[name]
                f.write(f"{name},{v['label']},{v['trend_z']!r},{v['trend_p']!r},{v['tau']!r},"
                        f"{v['hot_steps']},{v['cold_steps']},{v['z_last']!r},{v['q_last']!r}\n")
    if not args.compare:
        return 0
    bad = 0
    with open(args.compare) as f:
        theirs = list(csv.DictReader(f))
    if sorted(r["geohash"] for r in theirs) != sorted(peer):
        print(f"MISMATCH locations: areawatch {len(theirs)}, peer {len(peer)}")
        bad += 1
    for r in theirs:
        v = peer.get(r["geohash"])
        if v is None:
            continue
        problems = [k for k in ("label",) if r[k] != v[k]]
        problems += [k for k in ("hot_steps", "cold_steps") if int(r[k]) != v[k]]
        problems += [k for k in ("trend_z", "trend_p", "tau", "z_last", "q_last") if not agrees(float(r[k]), v[k])]
        problems += [f"z{s + 1:02d}" for s in range(n_steps) if not agrees(float(r[f"z{s + 1:02d}"]), v["z"][s])]
        if problems:
            bad += 1
            if bad <= 20:
                print(f"MISMATCH {r['geohash']}: {', '.join(problems)} (areawatch {r['label']}, peer {v['label']})")
    print(f"compare: {len(theirs)} locations, {bad} mismatches")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    e = sub.add_parser("etest")
    e.add_argument("csv")
    g = sub.add_parser("gistar")
    g.add_argument("--seed", type=int, default=7)
    h = sub.add_parser("ehsa")
    h.add_argument("csv")
    h.add_argument("--as-of", required=True)
    h.add_argument("--precision", type=int, default=6)
    h.add_argument("--steps", type=int, default=24)
    h.add_argument("--alpha", type=float, default=0.05)
    h.add_argument("--compare")
    h.add_argument("--out")
    args = ap.parse_args()
    return {"etest": cmd_etest, "gistar": cmd_gistar, "ehsa": cmd_ehsa}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
