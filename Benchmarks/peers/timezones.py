#!/usr/bin/env python3
"""Every zone of the system's tzdata, read by areawatch and by Python's zoneinfo (SPEC §2.5).

For each zone name under the zoneinfo folder (the names `--timezone` accepts: TZif files and
their links, without posix/, right/, posixrules and localtime), 1,000 local wall times are
written to one CSV: wall times of seeded instants from 1800 to 2500 (the table of the file and
the footer rule after it), wall times around the zone's changes of offset (the last second
before, the first after, inside every gap and every repeated interval) and, for a few days,
the date alone. One `areawatch run` ingests them all, each file with its zone from an
`[[inbox.files]]` table; the store's instants and the rejects are then compared with what SPEC
§2.5 says, computed with zoneinfo:

- a wall time shown at one instant is that instant; at two (clocks going back), the earlier;
- a wall time that does not exist (clocks going forward) is `invalid_time`;
- a date is its first instant: local midnight, or when midnight is skipped the instant the gap ends.

Usage: python3 Benchmarks/peers/timezones.py [--binary PATH] [--per-zone 1000] [--zones A,B]
Exit status 0 when every value agrees; the first disagreements are printed otherwise.
"""
import argparse
import csv
import datetime as dt
import os
import random
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time
import zoneinfo

ROOT = os.environ.get("TZDIR") or "/usr/share/zoneinfo"
EXCLUDED_TOP = {"posix", "right", "posixrules", "localtime"}
UTC = dt.timezone.utc


def zone_names():
    """The zone names areawatch accepts: every TZif file or link under ROOT but the exclusions."""
    names = []
    for folder, dirs, files in os.walk(ROOT):
        rel = os.path.relpath(folder, ROOT)
        if rel == ".":
            dirs[:] = [d for d in dirs if d not in EXCLUDED_TOP]
        for name in files:
            path = os.path.join(folder, name)
            zone = name if rel == "." else f"{rel}/{name}"
            if zone in EXCLUDED_TOP or name.startswith("."):
                continue
            try:
                with open(path, "rb") as f:
                    if f.read(4) == b"TZif":
                        names.append(zone)
            except OSError:
                pass
    return sorted(names)


def transitions(zone):
    """The file's transition instants (version 2+ table), only to choose where to look."""
    with open(os.path.join(ROOT, zone), "rb") as f:
        data = f.read()
    counts = struct.unpack(">6l", data[20:44])
    isut, isstd, leap, timecnt, typecnt, charcnt = counts
    v1 = timecnt * 5 + typecnt * 6 + charcnt + leap * 8 + isstd + isut
    if data[4:5] in (b"\0",):
        return list(struct.unpack(f">{timecnt}l", data[44:44 + 4 * timecnt]))
    second = 44 + v1
    isut, isstd, leap, timecnt, typecnt, charcnt = struct.unpack(">6l", data[second + 20:second + 44])
    return list(struct.unpack(f">{timecnt}q", data[second + 44:second + 44 + 8 * timecnt]))


def wall_of(u, tz):
    """The local wall time of instant u, as naive seconds since 1970."""
    local = dt.datetime.fromtimestamp(u, tz)
    return u + int(local.utcoffset().total_seconds())


def naive(w):
    return dt.datetime(1970, 1, 1) + dt.timedelta(seconds=w)


def expected_instant(w, tz):
    """SPEC §2.5 for a wall time with seconds: the earliest instant showing it, or None."""
    shown = []
    for fold in (0, 1):
        u = int(naive(w).replace(tzinfo=tz, fold=fold).timestamp())
        if wall_of(u, tz) == w:
            shown.append(u)
    return min(shown) if shown else None


def expected_day(w, tz):
    """A date: the first instant whose wall time is at or after its midnight."""
    exact = expected_instant(w, tz)
    if exact is not None:
        return exact
    lo = int(naive(w).replace(tzinfo=tz, fold=1).timestamp())
    hi = int(naive(w).replace(tzinfo=tz, fold=0).timestamp())
    lo, hi = min(lo, hi), max(lo, hi)
    while lo < hi:
        mid = (lo + hi) // 2
        if wall_of(mid, tz) >= w:
            hi = mid
        else:
            lo = mid + 1
    return lo


LOW = int(dt.datetime(1800, 1, 1, tzinfo=UTC).timestamp())
TABLE_END = int(dt.datetime(2100, 1, 1, tzinfo=UTC).timestamp())
HIGH = int(dt.datetime(2500, 1, 1, tzinfo=UTC).timestamp())


def values(zone, count, rng):
    """(text, expected) pairs for one zone: expected is epoch seconds or None (invalid_time)."""
    tz = zoneinfo.ZoneInfo(zone)
    walls = set()
    days = set()
    changes = [t for t in transitions(zone) if LOW < t < HIGH]
    # Later changes from the footer rule: found where the offset of consecutive half-years differs.
    probe = max([LOW] + changes)
    step = 86400 * 30
    while probe < TABLE_END + 20 * 365 * 86400 and len(changes) < 4000:
        nxt = probe + step
        if wall_of(nxt, tz) - nxt != wall_of(probe, tz) - probe:
            lo, hi = probe, nxt
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if wall_of(mid, tz) - mid == wall_of(lo, tz) - lo:
                    lo = mid
                else:
                    hi = mid
            changes.append(hi)
        probe = nxt
    rng.shuffle(changes)
    for t in changes:
        if len(walls) >= count // 2:
            break
        before = wall_of(t - 1, tz) - (t - 1)
        after = wall_of(t, tz) - t
        a, b = t + min(before, after), t + max(before, after)
        walls.update({t + before - 1, t + after, a, b - 1, (a + b) // 2, b})
        if len(days) < 20:
            days.add((t + after) // 86400 * 86400)
            days.add((t + before) // 86400 * 86400)
    while len(walls) < count - len(days):
        if rng.random() < 0.8:
            u = rng.randrange(LOW, TABLE_END)
        else:
            u = rng.randrange(TABLE_END, HIGH)
        walls.add(wall_of(u, tz))
    out = []
    for w in sorted(walls)[: count - len(days)]:
        out.append((naive(w).strftime("%Y-%m-%d %H:%M:%S"), expected_instant(w, tz)))
    for d in sorted(days):
        out.append((naive(d).strftime("%Y-%m-%d"), expected_day(d, tz)))
    return out


def find_binary(given):
    for candidate in [given, os.environ.get("AREAWATCH_BIN"), ".build/release/areawatch", ".build/debug/areawatch"]:
        if candidate and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    sys.exit("no areawatch binary: run `swift build -c release --product areawatch` or give --binary")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary")
    parser.add_argument("--per-zone", type=int, default=1000)
    parser.add_argument("--zones", help="comma-separated names (default: every zone)")
    parser.add_argument("--seed", type=int, default=2025)
    parser.add_argument("--keep", help="write the job into this folder and keep it")
    args = parser.parse_args()
    binary = find_binary(args.binary)
    started = time.monotonic()

    names = args.zones.split(",") if args.zones else zone_names()
    if not args.zones:
        # zoneinfo also lists `localtime` (a link to /etc/localtime, the machine's own zone), which
        # is no zone name and which areawatch refuses.
        python = zoneinfo.available_timezones() - {"localtime"}
        if set(names) != python:
            only_here, only_there = sorted(set(names) - python)[:10], sorted(python - set(names))[:10]
            print(f"zone names differ from zoneinfo.available_timezones(): areawatch only {only_here}, "
                  f"zoneinfo only {only_there}")
            return 1

    work = args.keep or tempfile.mkdtemp(prefix="areawatch-zones-")
    os.makedirs(os.path.join(work, "inbox"), exist_ok=True)
    rng = random.Random(args.seed)
    expected = {}
    tables = []
    for k, zone in enumerate(names):
        rows = values(zone, args.per_zone, rng)
        name = f"z{k:04d}.csv"
        with open(os.path.join(work, "inbox", name), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["id", "lat", "lon", "time"])
            for n, (text, instant) in enumerate(rows):
                w.writerow([f"v{n}", "53.72", "-1.86", text])
                expected[(f"z{k}", f"v{n}")] = (zone, text, instant)
        tables.append(f'[[inbox.files]]\npattern = "{name}"\nsource = "z{k}"\ntimezone = "{zone}"\n')
    generated = time.monotonic() - started
    with open(os.path.join(work, "job.toml"), "w") as f:
        f.write('store = "zones.db"\nout = "out"\n[inbox]\nfolder = "inbox"\ninclude = ["*.csv"]\n' + "\n".join(tables)
                + '[query]\nas_of = "2500-01-01T00:00:00Z"\n[report]\ntile_zooms = "none"\nprecision = 3\n')

    run_started = time.monotonic()
    run = subprocess.run([binary, "run", "--config", os.path.join(work, "job.toml"), "--quiet"],
                         capture_output=True, text=True)
    run_seconds = time.monotonic() - run_started
    if run.returncode != 0:
        print(f"areawatch run exited {run.returncode}:\n{run.stderr[-3000:]}")
        return 1

    got = {}
    db = sqlite3.connect(os.path.join(work, "zones.db"))
    for key, seconds in db.execute("SELECT key, time FROM incidents"):
        source, ident = key.split(":", 1)
        got[(source, ident)] = seconds
    with open(os.path.join(work, "zones-rejects.csv"), newline="") as f:
        for row in csv.DictReader(f):
            source = "z" + str(int(os.path.basename(row["source"])[1:5]))
            got[(source, row["id"])] = row["reason"]

    wrong = []
    for key, (zone, text, instant) in expected.items():
        answer = got.get(key)
        want = instant if instant is not None else "invalid_time"
        if answer != want:
            wrong.append((zone, text, want, answer))
    total = len(expected)
    gaps = sum(1 for v in expected.values() if v[2] is None)
    print(f"{len(names)} zones, {total} values ({gaps} in gaps), generated in {generated:.1f} s, "
          f"areawatch run {run_seconds:.1f} s, total {time.monotonic() - started:.1f} s: {len(wrong)} disagree")
    for zone, text, want, answer in wrong[:20]:
        print(f"  {zone} {text}: zoneinfo {want}, areawatch {answer}")
    return 0 if not wrong else 1


if __name__ == "__main__":
    sys.exit(main())
