#!/usr/bin/env python3
"""The near-repeat Knox table (SPEC §16) as an analyst writes it: numpy + scipy's cKDTree.

    nearrepeat_peer.py INCIDENTS.csv [--distances 100,200,300,400] [--days 14]
        [--time-bands 4] [--permutations 99] [--seed 1] [--exact-rng] [--out nearrepeat.csv]

INCIDENTS.csv has the columns time (epoch seconds or ISO 8601 with Z), lat, lon — the current
window's incidents after the filters, one per stored key (the engine's benchmark writes them).
The spatial pairs come from cKDTree on unit vectors (chord distance, a little wider than the last
edge), then the haversine of SPEC §7 decides each pair's band in float64. Each permutation
shuffles the times and counts every band cell with vectorised numpy.

Two random number modes:
- default: numpy's `default_rng(seed).permutation` — what an analyst would write; the observed
  table is identical to areawatch's, expected and p-values agree statistically, not bit for bit;
- `--exact-rng`: SPEC §16's xoshiro256** seeded by splitmix64 and its Fisher–Yates, in pure
  Python integers (slow: for checking small inputs digit for digit, not for timing).
"""
import argparse
import csv
import datetime as dt
import sys

import numpy as np
from scipy.spatial import cKDTree

R = 6_371_008.8
MASK = (1 << 64) - 1


def read_incidents(path):
    times, lats, lons = [], [], []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            t = row["time"]
            if t.lstrip("-").isdigit():
                times.append(int(t))
            else:
                times.append(int(dt.datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()))
            lats.append(float(row["lat"]))
            lons.append(float(row["lon"]))
    order = sorted(range(len(times)), key=lambda i: (times[i], lats[i], lons[i]))
    return (np.array([times[i] for i in order], dtype=np.int64), np.array([lats[i] for i in order]),
            np.array([lons[i] for i in order]))


def spatial_pairs(lat, lon, edges):
    """(i, j, band) for i < j within the last edge; band 0 for d = 0."""
    phi, lam = np.radians(lat), np.radians(lon)
    xyz = np.column_stack((np.cos(phi) * np.cos(lam), np.cos(phi) * np.sin(lam), np.sin(phi)))
    chord = 2 * np.sin(edges[-1] * (1 + 1e-6) / (2 * R)) + 1e-12
    pairs = cKDTree(xyz).query_pairs(chord, output_type="ndarray")
    if len(pairs) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    i, j = np.minimum(pairs[:, 0], pairs[:, 1]), np.maximum(pairs[:, 0], pairs[:, 1])
    a = (np.sin((lat[j] - lat[i]) * (np.pi / 180) / 2) ** 2
         + np.cos(lat[i] * (np.pi / 180)) * np.cos(lat[j] * (np.pi / 180))
         * np.sin((lon[j] - lon[i]) * (np.pi / 180) / 2) ** 2)
    d = 2 * R * np.arcsin(np.minimum(1, np.sqrt(a)))
    keep = d <= edges[-1]
    i, j, d = i[keep], j[keep], d[keep]
    band = np.where(d == 0, 0, np.searchsorted(np.array(edges), d, side="left") + 1)
    return i, j, band


def counts(times, i, j, band, bands_d, w, k_bands):
    dtimes = np.abs(times[i] - times[j])
    keep = dtimes <= w * k_bands
    k = np.maximum(1, -(-dtimes[keep] // w))
    cell = band[keep] * k_bands + (k - 1)
    return np.bincount(cell, minlength=bands_d * k_bands)


class Xoshiro:
    """SPEC §16's generator, in Python integers."""

    def __init__(self, seed):
        s = seed
        self.s = []
        for _ in range(4):
            s = (s + 0x9E3779B97F4A7C15) & MASK
            z = s
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
            self.s.append(z ^ (z >> 31))

    def next(self):
        s = self.s
        rot = lambda x, k: ((x << k) | (x >> (64 - k))) & MASK
        result = (rot((s[1] * 5) & MASK, 7) * 9) & MASK
        t = (s[1] << 17) & MASK
        s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t
        s[3] = rot(s[3], 45)
        return result

    def shuffle(self, values):
        for i in range(len(values) - 1, 0, -1):
            j = ((self.next() >> 11) * (i + 1)) >> 53
            values[i], values[j] = values[j], values[i]


def knox(times, lat, lon, edges, days, k_bands, permutations, seed, exact_rng):
    w = days * 86_400
    i, j, band = spatial_pairs(lat, lon, edges)
    bands_d = len(edges) + 1
    observed = counts(times, i, j, band, bands_d, w, k_bands)
    sums = np.zeros_like(observed)
    at_least = np.zeros_like(observed)
    if exact_rng:
        gen = Xoshiro(seed)
        base = [int(t) for t in times]
        for _ in range(permutations):
            shuffled = base[:]
            gen.shuffle(shuffled)
            c = counts(np.array(shuffled, dtype=np.int64), i, j, band, bands_d, w, k_bands)
            sums += c
            at_least += c >= observed
    else:
        rng = np.random.default_rng(seed)
        for _ in range(permutations):
            c = counts(rng.permutation(times), i, j, band, bands_d, w, k_bands)
            sums += c
            at_least += c >= observed
    return observed, sums, at_least, len(i)


def compact(x):
    """SPEC §16's numbers: integers without a fraction, others in shortest round-trip form."""
    x = float(x)
    return str(int(x)) if x == int(x) and abs(x) < 1e15 else repr(x)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("incidents")
    p.add_argument("--distances", default="100,200,300,400")
    p.add_argument("--days", type=int, default=14)
    p.add_argument("--time-bands", type=int, default=4)
    p.add_argument("--permutations", type=int, default=99)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--exact-rng", action="store_true")
    p.add_argument("--out", default="-")
    a = p.parse_args()
    edges = [float(x) for x in a.distances.split(",")]
    times, lat, lon = read_incidents(a.incidents)
    observed, sums, at_least, n_pairs = knox(times, lat, lon, edges, a.days, a.time_bands, a.permutations,
                                             a.seed, a.exact_rng)
    out = sys.stdout if a.out == "-" else open(a.out, "w", newline="")
    out.write("d_from_m,d_to_m,t_from_days,t_to_days,observed,expected,knox_ratio,p_value,significant\n")
    lower = [0.0] + edges
    for s in range(len(edges) + 1):
        for k in range(1, a.time_bands + 1):
            c = s * a.time_bands + k - 1
            expected = sums[c] / a.permutations
            ratio = observed[c] / expected if expected else None
            pv = (1 + at_least[c]) / (a.permutations + 1)
            d_from, d_to = (0.0, 0.0) if s == 0 else (lower[s - 1], lower[s])
            sig = ratio is not None and pv <= a.alpha and ratio > 1
            out.write(",".join([compact(d_from), compact(d_to), str((k - 1) * a.days), str(k * a.days),
                                str(int(observed[c])), compact(expected), "" if ratio is None else compact(ratio),
                                compact(pv), "true" if sig else "false"]) + "\n")
    print(f"{len(times)} incidents, {n_pairs} pairs", file=sys.stderr)


if __name__ == "__main__":
    main()
