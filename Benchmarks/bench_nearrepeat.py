#!/usr/bin/env python3
"""`make bench` (near repeat, SPEC §16): `areawatch report --near-repeat` against the analyst's
numpy + cKDTree script (Benchmarks/peers/nearrepeat_peer.py), on one machine in one run, medians
of alternating runs, on two shapes of data:

  city-year   the bundled synthetic city's current window (~30k incidents, clustered streets),
              999 permutations;
  uniform     incidents spread evenly over a 12 km square with near repeats seeded in (shape two,
              sparser pairs per incident), 999 permutations;
  40km-1M     1M incidents of a year over a 40 km city, the default bands and 99 permutations:
              areawatch alone (the peer would need hours), time and peak memory.

The near-repeat stage's own time is read from each run's summary.json (`timings_s.near-repeat`, the
median of the runs); the peer's is
its whole run (reading a CSV of the same incidents is a small part). Both observed tables must be
equal cell for cell.

Usage: bench_nearrepeat.py [--runs 3] [--only city-year,uniform,40km-1M]
"""

import argparse
import csv
import datetime
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as b  # noqa: E402

CITY = os.path.join(b.ROOT, "datasets", "synthetic-city", "incidents-2016-08-to-2018-07.csv")
AS_OF_EPOCH = 1533081599  # 2018-07-31T23:59:59Z


def current_window(path, out):
    """The city's current-window incidents as time,lat,lon (the peer's input; the engine reads it too)."""
    if os.path.exists(out):
        return out
    # Rows the engine rejects (no coordinates, out of range, null island) are left out, and a
    # repeated id keeps its last row, as one ingest does.
    rows = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            try:
                lat, lon = float(row["latitude"]), float(row["longitude"])
            except ValueError:
                continue
            if not (-90 <= lat <= 90 and -180 <= lon <= 180) or (lat == 0 and lon == 0):
                continue
            try:
                t = int(datetime.datetime.fromisoformat(row["occurred_at"].replace("Z", "+00:00")).timestamp())
            except ValueError:
                continue  # the engine's invalid_time
            if AS_OF_EPOCH - 365 * 86400 < t <= AS_OF_EPOCH:
                rows[row["incident_id"]] = [row["incident_id"], t, row["latitude"], row["longitude"]]
    with open(out, "w", newline="") as g:
        w = csv.writer(g)
        w.writerow(["id", "time", "lat", "lon"])
        w.writerows(rows.values())
    return out


def uniform(rows, side_km, out, seed=16):
    """`rows` incidents of one year over a square of `side_km`, one in five a near repeat of an
    earlier one (within ~80 m and 10 days)."""
    if os.path.exists(out):
        return out
    rng = random.Random(seed)
    dlat = side_km / 111.2
    dlon = dlat / 0.6
    points = []
    with open(out, "w", newline="") as g:
        w = csv.writer(g)
        w.writerow(["id", "time", "lat", "lon"])
        for n in range(rows):
            if points and rng.random() < 0.2:
                t, lat, lon = points[rng.randrange(len(points))]
                t = min(AS_OF_EPOCH, t + rng.randrange(10 * 86400))
                lat += (rng.random() - 0.5) * 0.0014
                lon += (rng.random() - 0.5) * 0.0024
            else:
                t = AS_OF_EPOCH - rng.randrange(364 * 86400)
                lat = 53.6 + rng.random() * dlat
                lon = -1.9 + rng.random() * dlon
            if len(points) < 200_000:
                points.append((t, lat, lon))
            w.writerow([f"u{n}", t, f"{lat:.6f}", f"{lon:.6f}"])
    return out


def engine(data, out, permutations):
    return [b.BIN, "report", "--input", data, "--as-of", b.AS_OF, "--precision", "5", "--tile-zooms", "none",
            "--near-repeat", "--nr-permutations", str(permutations), "--out", out, "--quiet"]


def peer(data, out, permutations):
    return [sys.executable, os.path.join(b.PEERS, "nearrepeat_peer.py"), data,
            "--permutations", str(permutations), "--out", out]


def observed(path):
    with open(path, newline="") as f:
        return [int(r["observed"]) for r in csv.DictReader(f)]


def compare(name, data, runs, permutations):
    out = os.path.join(b.WORK, f"nr-{name}")
    peer_csv = os.path.join(b.WORK, f"nr-{name}-peer.csv")
    stages = []

    def stage_of_last_run():
        """The near-repeat stage of the run that wrote `out` (summary.json's timing), then `out` removed."""
        if os.path.exists(os.path.join(out, "summary.json")):
            with open(os.path.join(out, "summary.json")) as f:
                stages.append(json.load(f)["timings_s"]["near-repeat"])
        b.remove(out)

    b.remove(out)
    results = b.alternating([("areawatch", stage_of_last_run, engine(data, out, permutations)),
                             ("peer", None, peer(data, peer_csv, permutations))], runs)
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    stage = b.median(stages + [summary["timings_s"]["near-repeat"]])
    nr = summary["near_repeat"]
    same = observed(os.path.join(out, "nearrepeat.csv")) == observed(peer_csv)
    engine_wall = b.median([r.wall for r in results["areawatch"]])
    peer_wall = b.median([r.wall for r in results["peer"]])
    job = f"near repeat, {name}: {nr['incidents']:,} incidents, {nr['pairs']:,} pairs, {permutations} permutations"
    figures = [b.figure(f"nearrepeat-{name}", "near repeat", job, "areawatch", round(stage, 2), "s",
                        headline=f"near repeat ({name}, {permutations} permutations)" if name == "city-year" else None),
               b.figure(f"nearrepeat-{name}-peer", "near repeat", job, "numpy + cKDTree", round(peer_wall, 2), "s",
                        peer_of=f"nearrepeat-{name}")]
    row = [name, f"{nr['incidents']:,}", f"{nr['pairs']:,}", permutations, f"{stage:.2f}", f"{engine_wall:.2f}",
           f"{peer_wall:.2f}", b.ratio(peer_wall, stage), "yes" if same else "NO"]
    return row, figures


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--only", default="city-year,uniform,40km-1M")
    a = p.parse_args()
    only = set(a.only.split(","))
    os.makedirs(b.WORK, exist_ok=True)
    print(f"near repeat (SPEC §16): {b.machine()}; medians of {a.runs} alternating runs")
    rows = []
    figures = []
    if "city-year" in only:
        rows.append(compare("city-year", current_window(CITY, os.path.join(b.WORK, "nr-city-year.csv")), a.runs, 999))
        figures += rows[-1][1]
    if "uniform" in only:
        rows.append(compare("uniform", uniform(60_000, 12, os.path.join(b.WORK, "nr-uniform-60k.csv")), a.runs, 999))
        figures += rows[-1][1]
    if rows:
        print(b.table([r[0] for r in rows], ["data", "incidents", "pairs", "perms", "areawatch stage s", "areawatch job s",
                             "peer s", "peer / stage", "same observed"]))
    if "40km-1M" in only:
        data = uniform(1_000_000, 40, os.path.join(b.WORK, "nr-uniform-1M-40km.csv"), seed=17)
        out = os.path.join(b.WORK, "nr-40km-1M")
        b.remove(out)
        r = b.timed(engine(data, out, 99))
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
        nr = summary["near_repeat"]
        stage = summary["timings_s"]["near-repeat"]
        per_pair = r.rss_mb * 2**20 / max(1, nr["pairs"])
        figures.append(b.figure("nearrepeat-40km-1M", "near repeat",
                                f"near repeat, 40 km city: {nr['incidents']:,} incidents, {nr['pairs']:,} pairs, "
                                "99 permutations (peak RSS)", "areawatch", round(stage, 1), "s", rss_mb=r.rss_mb))
        print(b.table([["40km-1M", f"{nr['incidents']:,}", f"{nr['pairs']:,}", 99, f"{stage:.1f}", f"{r.wall:.1f}",
                        f"{r.rss_mb:,.0f}", f"{per_pair:.1f}"]],
                      ["data", "incidents", "pairs", "perms", "stage s", "job s", "peak MB", "peak bytes / pair"]))

    if figures:
        b.record_results("bench_nearrepeat", b.command_line("python3 Benchmarks/bench_nearrepeat.py"), figures)


if __name__ == "__main__":
    main()
