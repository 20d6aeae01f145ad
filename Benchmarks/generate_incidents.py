#!/usr/bin/env python3
"""Seeded, reproducible generator of realistic synthetic incident data for benchmarks.

The same arguments always give byte-identical files. The model:
  * a city about --width-km wide centred at --center (default 53.80,-1.55);
  * --hotspots Gaussian clusters (elliptic, 120 m .. 2.5 km, skewed weights), each with its own
    year-over-year growth or decline and its own category mix, plus a uniform background;
  * times from --start to --end (UTC) with a summer peak, busier weekends and a night-time peak;
  * 14 categories with skewed frequencies, a handled flag (probability by category, ~3 % unknown);
  * about --bad-rate (0.5 %) bad rows: empty coordinates, out-of-range latitude, unparseable
    time, exactly (0, 0).

Outputs (one or both):
  --csv PATH      header incident_id,occurred_at,latitude,longitude,category,handled;
                  occurred_at like 2017-03-04T21:15:09Z (--time-forms mixed: six forms of the
                  same instant); --idless-rate (20 %) rows without id.
  --watchme PATH  a WatchMe Firebase export: {"posts": {pushId: {user, timestamp, latitude,
                  longitude, description, policeArrived}}, "timeline": {friendUid: {pushId: copy}},
                  "users": {uid: {name, email, profileImageUrl}}}. The same incidents as the CSV
                  (no category; handled -> policeArrived; each post copied into the timeline of
                  each of its author's friends).

Rows are generated in fixed-size chunks, each from its own seeded stream, so memory stays small
for the CSV; the WatchMe export keeps ~45 bytes per post and ~16 per timeline copy for the fan-out.

Example: generate_incidents.py --rows 1000000 --seed 42 --csv incidents.csv --watchme export.json
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np

CHUNK = 1 << 18  # rows per generation chunk: part of the output definition, do not change
TEXT_BATCH = 1 << 15  # rows formatted to text at a time (memory only, no effect on output)
M_PER_DEG = 6371008.8 * math.pi / 180.0

CATEGORIES = [
    # name, relative frequency, P(handled)
    ("anti-social-behaviour", 30.0, 0.22),
    ("violence-and-sexual-offences", 24.0, 0.55),
    ("criminal-damage-arson", 9.0, 0.30),
    ("public-order", 7.5, 0.50),
    ("other-theft", 6.5, 0.18),
    ("burglary", 6.0, 0.42),
    ("vehicle-crime", 5.5, 0.20),
    ("shoplifting", 4.5, 0.62),
    ("drugs", 2.2, 0.88),
    ("theft-from-the-person", 1.2, 0.28),
    ("other-crime", 1.0, 0.40),
    ("robbery", 0.8, 0.60),
    ("bicycle-theft", 0.7, 0.12),
    ("possession-of-weapons", 0.4, 0.82),
]

# hour-of-day weights (00..23): quiet early morning, evening/night peak
HOUR_WEIGHTS = np.array([5.0, 4.2, 3.4, 2.6, 1.9, 1.5, 1.6, 2.3, 3.2, 3.8, 4.1, 4.4,
                         4.8, 4.9, 5.0, 5.3, 5.8, 6.2, 6.4, 6.6, 6.9, 7.2, 7.0, 6.1])

DESCRIPTIONS = ["Someone is following me", "Car window smashed", "Fight outside the pub",
                "Man shouting \"help\" near the station", "Suspicious van circling the block",
                "Break-in next door", "Group harassing people at the bus stop",
                "Café window smashed", "Bike stolen from the rack", "Drunk driver, swerving",
                "Loud bang, people running", "Phone snatched on the high street",
                "Aggressive dog off the lead", "Fire in the bins behind the shops",
                "Stranger trying door handles", "Street lights out, feel unsafe",
                "Shop being robbed", "Knife seen \u2014 called 999", "Vandals in the park",
                "Police arrived, all OK now"]
FIRST = ["Amira", "Ben", "Chloe", "Daniel", "Ella", "Farhan", "Grace", "Harry", "Isla", "Jack",
         "Kai", "Layla", "Mohammed", "Niamh", "Oliver", "Priya", "Rory", "Sophie", "Tom", "Zara"]
LAST = ["Ahmed", "Brown", "Clarke", "Davies", "Evans", "Hussain", "Jones", "Khan", "Lee",
        "Patel", "Roberts", "Shaw", "Smith", "Taylor", "Walker", "Wilson", "Wood", "Wright"]
PUSH_CHARS = np.frombuffer(b"-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz",
                           dtype=np.uint8)
HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
ALNUM = np.frombuffer(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                      dtype=np.uint8)

# compact per-post columns kept for the timeline fan-out of the WatchMe export
KEEP_TYPES = {"secs": np.int64, "lat": np.float64, "lon": np.float64, "user": np.int32,
              "desc": np.int8, "handled": np.int8, "bad": np.int8, "bad_lat": np.float64,
              "bad_pick": np.int32, "lon_only": np.bool_, "ms": np.int16}

BAD_NONE, BAD_NO_COORDS, BAD_LAT_RANGE, BAD_TIME, BAD_NULL_ISLAND = 0, 1, 2, 3, 4
BAD_TIMES_CSV = np.array(["", "N/A", "2017-13-45T25:61:00Z", "yesterday evening",
                          "31/12/2017 25:00", "2016-02-30T10:00:00Z", "--"], dtype=object)
BAD_TIMES_JSON = ['"unknown"', '""', '"2017-13-45 25:61"', '"NaN"', "null"]


def splitmix64(x):
    """Bijective 64-bit mixer (vectorised, wrapping uint64 arithmetic)."""
    x = x.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def ascii_rows(codes):
    """(n, k) uint8 ASCII codes -> object array of n Python strings."""
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    return codes.view(f"S{codes.shape[1]}").ravel().astype(f"U{codes.shape[1]}").astype(object)


class Model:
    """Everything drawn once from the seed: hotspots, category mixes, users, friends."""

    def __init__(self, args):
        rng = np.random.default_rng([args.seed, 0])
        self.args = args
        self.lat0, self.lon0 = args.center
        self.half_m = args.width_km * 500.0
        self.m_per_deg_lon = M_PER_DEG * math.cos(math.radians(self.lat0))
        K = args.hotspots
        # hotspot centres: denser towards the city centre, within the city
        rad = np.minimum(np.abs(rng.normal(0.0, 0.3 * self.half_m, K)), 0.85 * self.half_m)
        ang = rng.uniform(0, 2 * math.pi, K)
        self.hx, self.hy = rad * np.cos(ang), rad * np.sin(ang)  # east, north metres
        self.sig_major = np.exp(rng.uniform(math.log(120.0), math.log(2500.0), K))
        self.sig_minor = self.sig_major / rng.uniform(1.0, 2.5, K)
        self.rot = rng.uniform(0, math.pi, K)
        weights = rng.lognormal(0.0, 1.0, K) * (self.sig_major / 800.0) ** 0.5
        self.growth = np.clip(np.exp(rng.normal(0.0, 0.2, K)), 0.55, 1.7)  # per year
        # background: uniform over the city square, ~18 % of incidents, slight growth
        bg_weight = weights.sum() * 0.18 / 0.82
        self.comp_weight = np.append(weights, bg_weight)
        self.comp_growth = np.append(self.growth, 1.02)
        # category mix per component: Dirichlet around the global skewed frequencies
        base = np.array([c[1] for c in CATEGORIES])
        base = base / base.sum()
        mixes = rng.dirichlet(base * 60.0, K)
        self.cat_cdf = np.cumsum(np.vstack([mixes, base]), axis=1)
        self.cat_cdf[:, -1] = 1.0
        self.p_handled = np.array([c[2] for c in CATEGORIES])
        self.cat_names = np.array([c[0] for c in CATEGORIES], dtype=object)

        # joint distribution over (component, day)
        self.start = np.datetime64(args.start, "D")
        end = np.datetime64(args.end, "D")
        self.ndays = int((end - self.start).astype(int)) + 1
        days = np.arange(self.ndays)
        dates = self.start + days
        doy = (dates - dates.astype("datetime64[Y]")).astype(int)
        season = 1.0 + 0.12 * np.cos(2 * math.pi * (doy - 196) / 365.25)
        weekday = (dates.astype(int) + 3) % 7  # 0 = Monday
        week = np.array([0.93, 0.92, 0.94, 0.97, 1.12, 1.16, 1.04])[weekday]
        years = days / 365.25
        inten = (self.comp_weight[:, None] * self.comp_growth[:, None] ** years[None, :]
                 * (season * week)[None, :])
        self.joint_cdf = np.cumsum(inten.ravel())
        self.joint_cdf /= self.joint_cdf[-1]
        self.hour_cdf = np.cumsum(HOUR_WEIGHTS) / HOUR_WEIGHTS.sum()

        # WatchMe users: Zipf-like activity, 0..max_friends friends each
        n_users = args.users or max(50, args.rows // 40)
        self.n_users = n_users
        act = 1.0 / np.arange(1, n_users + 1) ** 0.8
        rng.shuffle(act)
        self.user_cdf = np.cumsum(act) / act.sum()
        self.n_friends = rng.integers(0, args.max_friends + 1, n_users)
        self.friend_off = np.concatenate([[0], np.cumsum(self.n_friends)])
        f = rng.integers(0, n_users - 1, self.friend_off[-1])
        owner = np.repeat(np.arange(n_users), self.n_friends)
        self.friends = f + (f >= owner)  # never oneself
        self.uids = ascii_rows(ALNUM[rng.integers(0, len(ALNUM), (n_users, 28))])
        self.user_first = rng.integers(0, len(FIRST), n_users)
        self.user_last = rng.integers(0, len(LAST), n_users)

    def chunk(self, ci, n):
        """Rows ci*CHUNK .. ci*CHUNK+n-1 as a dict of arrays (deterministic per chunk)."""
        a = self.args
        rng = np.random.default_rng([a.seed, 1, ci])
        first = ci * CHUNK
        idx = np.searchsorted(self.joint_cdf, rng.random(n), side="right")
        idx = np.minimum(idx, len(self.joint_cdf) - 1)
        comp, day = idx // self.ndays, idx % self.ndays
        hour = np.searchsorted(self.hour_cdf, rng.random(n), side="right").clip(0, 23)
        secs = ((self.start.astype("datetime64[s]").astype(np.int64)) + day * 86400 + hour * 3600
                + rng.integers(0, 3600, n))
        K = len(self.hx)
        hot = comp < K
        kk = np.where(hot, comp, 0)
        u = rng.normal(0.0, 1.0, n) * self.sig_major[kk]
        v = rng.normal(0.0, 1.0, n) * self.sig_minor[kk]
        cr, sr = np.cos(self.rot[kk]), np.sin(self.rot[kk])
        east = np.where(hot, self.hx[kk] + u * cr - v * sr, rng.uniform(-self.half_m, self.half_m, n))
        north = np.where(hot, self.hy[kk] + u * sr + v * cr, rng.uniform(-self.half_m, self.half_m, n))
        lat = self.lat0 + north / M_PER_DEG
        lon = self.lon0 + east / self.m_per_deg_lon
        cu = rng.random(n)
        cat = (cu[:, None] > self.cat_cdf[comp]).sum(axis=1).clip(0, len(CATEGORIES) - 1)
        handled = (rng.random(n) < self.p_handled[cat]).astype(np.int8)
        handled[rng.random(n) < 0.03] = -1  # unknown
        has_id = rng.random(n) >= a.idless_rate
        bad = np.zeros(n, dtype=np.int8)
        isbad = rng.random(n) < a.bad_rate
        bad[isbad] = rng.choice([BAD_NO_COORDS, BAD_LAT_RANGE, BAD_TIME, BAD_NULL_ISLAND],
                                p=[0.35, 0.15, 0.25, 0.25], size=int(isbad.sum()))
        bad_lat = np.where(rng.random(n) < 0.5, 1.0, -1.0) * rng.uniform(90.5, 150.0, n)
        bad_pick = rng.integers(0, 1 << 30, n)
        lon_only = rng.random(n) < 0.3  # some rows lose only the longitude
        user = np.searchsorted(self.user_cdf, rng.random(n), side="right").clip(0, self.n_users - 1)
        desc = np.where(rng.random(n) < 0.15, rng.integers(0, len(DESCRIPTIONS), n), -1)
        ms = rng.integers(0, 1000, n)
        gidx = np.arange(first, first + n, dtype=np.uint64)
        return dict(n=n, first=first, secs=secs, lat=lat, lon=lon, cat=cat, handled=handled,
                    has_id=has_id, bad=bad, bad_lat=bad_lat, bad_pick=bad_pick, lon_only=lon_only,
                    user=user, desc=desc, ms=ms, gidx=gidx)


def incident_ids(seed, gidx):
    h = splitmix64(gidx ^ np.uint64(seed * 0x2545F4914F6CDD1D % (1 << 64)))
    shifts = np.arange(60, -4, -4, dtype=np.uint64)
    digits = ((h[:, None] >> shifts[None, :]) & np.uint64(15)).astype(np.intp)
    return ascii_rows(HEX[digits])


def push_ids(seed, gidx, ms_time):
    """Firebase-style push ids: 8 chars of the millisecond time + 12 chars unique per row."""
    t = ms_time.astype(np.int64)
    tchars = np.empty((len(t), 8), dtype=np.intp)
    for i in range(7, -1, -1):
        tchars[:, i] = t % 64
        t //= 64
    h = splitmix64(gidx ^ np.uint64((seed * 0x9E3779B97F4A7C15 + 12345) % (1 << 64)))
    shifts = np.arange(60, -6, -6, dtype=np.uint64)  # 11 chars of 6 bits (bijective in gidx)
    rchars = ((h[:, None] >> shifts[None, :]) & np.uint64(63)).astype(np.intp)
    extra = (splitmix64(gidx + np.uint64(7)) & np.uint64(63)).astype(np.intp)[:, None]
    return ascii_rows(PUSH_CHARS[np.hstack([tchars, rchars, extra])])


def rows_of(c, a, b):
    """Rows a..b-1 of a chunk."""
    return {k: (v[a:b] if isinstance(v, np.ndarray) else v) for k, v in c.items()}


def time_texts(secs, gidx, forms):
    """occurred_at texts: ISO 8601 UTC (`2017-03-04T21:15:09Z`), or with --time-forms mixed the
    same instant in one of six SPEC §2.4 forms chosen by the row's index: Z, a +01:00 offset,
    a space and no offset, a slash date with +00, epoch seconds, epoch milliseconds."""
    def iso(s):
        return np.datetime_as_string(s.astype("datetime64[s]"), unit="s").astype(object)
    when = iso(secs) + "Z"
    if forms == "iso":
        return when
    form = gidx.astype(np.int64) % 6
    plus1 = iso(secs + 3600) + "+01:00"
    spaced = np.char.replace(iso(secs).astype(str), "T", " ").astype(object)
    slashed = np.char.replace(spaced.astype(str), "-", "/").astype(object) + "+00"
    epoch = secs.astype(np.int64).astype(str).astype(object)
    millis = (secs.astype(np.int64) * 1000 + (gidx % 1000).astype(np.int64)).astype(str).astype(object)
    for k, texts in ((1, plus1), (2, spaced), (3, slashed), (4, epoch), (5, millis)):
        when = np.where(form == k, texts, when)
    return when


def csv_lines(model, c):
    args = model.args
    ids = np.where(c["has_id"], incident_ids(args.seed, c["gidx"]), "")
    when = time_texts(c["secs"], c["gidx"], args.time_forms)
    lat = [f"{x:.6f}" for x in c["lat"]]
    lon = [f"{x:.6f}" for x in c["lon"]]
    cat = model.cat_names[c["cat"]]
    hnd = np.array(["", "false", "true"], dtype=object)[c["handled"] + 1]
    for i in np.flatnonzero(c["bad"]):
        kind = c["bad"][i]
        if kind == BAD_NO_COORDS:
            lon[i] = ""
            if not c["lon_only"][i]:
                lat[i] = ""
        elif kind == BAD_LAT_RANGE:
            lat[i] = f"{c['bad_lat'][i]:.6f}"
        elif kind == BAD_TIME:
            when[i] = BAD_TIMES_CSV[c["bad_pick"][i] % len(BAD_TIMES_CSV)]
        elif kind == BAD_NULL_ISLAND:
            lat[i] = lon[i] = "0" if c["bad_pick"][i] % 2 else "0.000000"
    return "".join(f"{a},{b},{la},{lo},{k},{h}\n"
                   for a, b, la, lo, k, h in zip(ids, when, lat, lon, cat, hnd))


DESC_JSON = [json.dumps(d, ensure_ascii=False) for d in DESCRIPTIONS]


def post_texts(model, secs, lat, lon, user, desc, handled, bad, bad_lat, bad_pick, lon_only):
    """JSON object texts of posts (vectorised inputs, Python formatting)."""
    uids = model.uids[user]
    out = []
    for i in range(len(secs)):
        b = bad[i]
        ts = str(int(secs[i]))
        la, lo = repr(float(lat[i])), repr(float(lon[i]))
        coords = f'"latitude":{la},"longitude":{lo},'
        if b == BAD_NO_COORDS:
            coords = "" if not lon_only[i] else f'"latitude":{la},'
        elif b == BAD_LAT_RANGE:
            coords = f'"latitude":{float(bad_lat[i])!r},"longitude":{lo},'
        elif b == BAD_TIME:
            ts = BAD_TIMES_JSON[bad_pick[i] % len(BAD_TIMES_JSON)]
        elif b == BAD_NULL_ISLAND:
            coords = '"latitude":0,"longitude":0,'
        d = DESC_JSON[desc[i]] if desc[i] >= 0 else '""'
        pa = "true" if handled[i] == 1 else "false"
        out.append(f'{{"description":{d},{coords}"policeArrived":{pa},'
                   f'"timestamp":{ts},"user":"{uids[i]}"}}')
    return out


def write_csv(model, path, n_rows):
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        fh.write("incident_id,occurred_at,latitude,longitude,category,handled\n")
        stats = [0, 0]
        for ci in range((n_rows + CHUNK - 1) // CHUNK):
            n = min(CHUNK, n_rows - ci * CHUNK)
            c = model.chunk(ci, n)
            stats[0] += int((c["bad"] > 0).sum())
            stats[1] += int((~c["has_id"]).sum())
            for a in range(0, n, TEXT_BATCH):
                fh.write(csv_lines(model, rows_of(c, a, a + TEXT_BATCH)))
    os.replace(tmp, path)
    return stats


def write_watchme(model, path, n_rows):
    tmp = path + ".part"
    posts = {k: np.empty(n_rows, dtype=t) for k, t in KEEP_TYPES.items()}
    bad = 0
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        fh.write('{"posts":{\n')
        sep = ""
        for ci in range((n_rows + CHUNK - 1) // CHUNK):
            n = min(CHUNK, n_rows - ci * CHUNK)
            c = model.chunk(ci, n)
            bad += int((c["bad"] > 0).sum())
            for a in range(0, n, TEXT_BATCH):
                r = rows_of(c, a, a + TEXT_BATCH)
                pid = push_ids(model.args.seed, r["gidx"], r["secs"] * 1000 + r["ms"])
                texts = post_texts(model, r["secs"], r["lat"], r["lon"], r["user"], r["desc"],
                                   r["handled"], r["bad"], r["bad_lat"], r["bad_pick"],
                                   r["lon_only"])
                fh.write(sep + ",\n".join(f'"{p}":{t}' for p, t in zip(pid, texts)))
                sep = ",\n"
            for k in posts:
                posts[k][c["first"]:c["first"] + n] = c[k]
        fh.write("\n},\n")

        # timeline: a copy of every post for each friend of its author, grouped by friend
        m = model
        # (friend, post) pairs as one int64 key per copy, built and split chunk by chunk
        nf = m.n_friends[posts["user"]].astype(np.int32)
        total = int(nf.sum(dtype=np.int64))
        key = np.empty(total, dtype=np.int64)
        scale = max(n_rows, 1)
        pos = 0
        for a in range(0, n_rows, CHUNK):
            f = nf[a:a + CHUNK].astype(np.int64)
            k = int(f.sum())
            within = np.arange(k, dtype=np.int64) - np.repeat(np.cumsum(f) - f, f)
            friend = m.friends[np.repeat(m.friend_off[posts["user"][a:a + CHUNK]], f) + within]
            key[pos:pos + k] = friend * scale + np.repeat(np.arange(a, a + len(f), dtype=np.int64), f)
            pos += k
        del nf
        key.sort()  # by friend, then post
        copy_friend = np.empty(total, dtype=np.int32)
        copy_post = np.empty(total, dtype=np.int32)
        for a in range(0, total, CHUNK):
            copy_friend[a:a + CHUNK] = key[a:a + CHUNK] // scale
            copy_post[a:a + CHUNK] = key[a:a + CHUNK] % scale
        del key
        fh.write('"timeline":{\n')
        starts = np.concatenate([[0], np.flatnonzero(np.diff(copy_friend)) + 1, [total]])
        n_groups = len(starts) - 1 if total else 0
        gi = 0
        while gi < n_groups:
            # a batch of whole friend groups holding about TEXT_BATCH copies
            gj = int(np.searchsorted(starts, starts[gi] + TEXT_BATCH, side="left"))
            gj = min(max(gj, gi + 1), n_groups)
            lo, hi = int(starts[gi]), int(starts[gj])
            pidx = copy_post[lo:hi]
            pid = push_ids(model.args.seed, pidx.astype(np.uint64),
                           posts["secs"][pidx] * 1000 + posts["ms"][pidx])
            texts = post_texts(model, posts["secs"][pidx], posts["lat"][pidx],
                               posts["lon"][pidx], posts["user"][pidx], posts["desc"][pidx],
                               posts["handled"][pidx], posts["bad"][pidx], posts["bad_lat"][pidx],
                               posts["bad_pick"][pidx], posts["lon_only"][pidx])
            parts = []
            for g in range(gi, gj):
                a, b = int(starts[g]) - lo, int(starts[g + 1]) - lo
                body = ",".join(f'"{pid[j]}":{texts[j]}' for j in range(a, b))
                parts.append(f'"{m.uids[copy_friend[starts[g]]]}":{{{body}}}')
            fh.write(("" if gi == 0 else ",\n") + ",\n".join(parts))
            gi = gj
        fh.write("\n},\n")

        # users
        fh.write('"users":{\n')
        lines = []
        for u in range(m.n_users):
            first, last = FIRST[m.user_first[u]], LAST[m.user_last[u]]
            uid = m.uids[u]
            lines.append(f'"{uid}":{{"email":"{first.lower()}.{last.lower()}{u}@example.com",'
                         f'"name":"{first} {last}",'
                         f'"profileImageUrl":"https://example.com/profile_images/{uid}.jpg"}}')
        fh.write(",\n".join(lines))
        fh.write("\n}\n}\n")
    os.replace(tmp, path)
    return bad, total


def parse_center(text):
    a, b = text.split(",")
    return float(a), float(b)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=1_000_000, help="number of incidents (default 1,000,000)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--csv", help="write the incident CSV here")
    p.add_argument("--watchme", help="write a WatchMe Firebase export (JSON) here")
    p.add_argument("--center", type=parse_center, default=(53.80, -1.55), help="LAT,LON")
    p.add_argument("--width-km", type=float, default=40.0)
    p.add_argument("--hotspots", type=int, default=36)
    p.add_argument("--start", default="2014-01-01", help="first day (UTC)")
    p.add_argument("--end", default="2018-07-31", help="last day (UTC, inclusive)")
    p.add_argument("--bad-rate", type=float, default=0.005)
    p.add_argument("--idless-rate", type=float, default=0.20)
    p.add_argument("--time-forms", choices=["iso", "mixed"], default="iso",
                   help="CSV occurred_at: ISO 8601 UTC only, or six SPEC §2.4 forms mixed by row")
    p.add_argument("--users", type=int, default=0, help="WatchMe users (default rows/40)")
    p.add_argument("--max-friends", type=int, default=3)
    args = p.parse_args()
    if not args.csv and not args.watchme:
        p.error("give --csv PATH and/or --watchme PATH")
    if args.seed < 0:
        p.error("--seed must be >= 0")
    t0 = time.time()
    model = Model(args)
    parts = []
    bad = idless = 0
    if args.csv:
        bad, idless = write_csv(model, args.csv, args.rows)
        parts.append(f"{args.csv} ({os.path.getsize(args.csv) / 1e6:.1f} MB)")
    copies = 0
    if args.watchme:
        bad, copies = write_watchme(model, args.watchme, args.rows)
        parts.append(f"{args.watchme} ({os.path.getsize(args.watchme) / 1e6:.1f} MB, "
                     f"{model.n_users} users, {copies} timeline copies)")
    extra = f", {idless} without id" if args.csv else ""
    print(f"generate_incidents: {args.rows} rows, {bad} bad{extra}, seed {args.seed} -> "
          f"{', '.join(parts)} in {time.time() - t0:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
