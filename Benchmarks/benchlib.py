"""Shared plumbing of the benchmarks: data generation (cached), timed runs with peak RSS,
medians over alternating runs, and plain-text tables.

Every measurement runs a whole command under /usr/bin/time -v: wall time and peak RSS of the
process tree as the kernel counts them, the same way for areawatch and for its peers.
"""

import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "Benchmarks", "work")
# AREAWATCH_BIN measures another build of the binary (default: the release build of `make build`).
BIN = os.environ.get("AREAWATCH_BIN") or os.path.join(ROOT, ".build", "release", "areawatch")
PEERS = os.path.join(ROOT, "Benchmarks", "peers")
AS_OF = "2018-07-31T23:59:59Z"


def log(message):
    print(f"bench: {message}", file=sys.stderr, flush=True)


def rel(path):
    return os.path.relpath(path, ROOT)


# Data shapes of the CSV benchmarks: the generator's default (ISO 8601 UTC times), and `mixed`,
# the same city with every SPEC §2.4 time form the generator writes (offsets, spaces, slashes,
# epoch seconds and milliseconds), so a figure does not hold for one kind of file only; and
# `region`, the same incidents spread over a region 150 km wide instead of a 40 km city.
SHAPES = {"iso": [], "mixed": ["--time-forms", "mixed"], "region": ["--width-km", "150"],
          # Ten years up to the as-of, and the day after it (issue 33's national store and night).
          "10y": ["--start", "2008-08-01", "--end", "2018-07-31"],
          "nextday": ["--start", "2018-08-01", "--end", "2018-08-01"]}


def dataset(rows, kind="csv", seed=42, shape="iso"):
    """The generator's CSV (or WatchMe export) with `rows` incidents, generated once and cached."""
    os.makedirs(WORK, exist_ok=True)
    suffix = "" if shape == "iso" else f"-{shape}"
    name = f"incidents-{rows}-s{seed}{suffix}.{'csv' if kind == 'csv' else 'json'}"
    path = os.path.join(WORK, name)
    if not os.path.exists(path):
        log(f"generating {rel(path)}")
        option = "--csv" if kind == "csv" else "--watchme"
        tmp = path + ".tmp"
        subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "generate_incidents.py"),
                        "--rows", str(rows), "--seed", str(seed), *SHAPES[shape], option, tmp], check=True)
        os.replace(tmp, path)
    return path


def json_forms(watchme_path):
    """The export's posts as a JSON array, NDJSON and a GeoJSON FeatureCollection
    (`json_forms.py`), written once beside it: {"json_array": …, "ndjson": …, "geojson": …}."""
    prefix = watchme_path[:-5] + "-forms"
    paths = {"json_array": prefix + ".array.json", "ndjson": prefix + ".ndjson", "geojson": prefix + ".geojson"}
    if not all(os.path.exists(p) for p in paths.values()):
        log(f"writing the JSON forms of {rel(watchme_path)}")
        tmp = prefix + ".tmp"
        subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "json_forms.py"), watchme_path, tmp], check=True)
        for suffix, path in (("array.json", paths["json_array"]), ("ndjson", paths["ndjson"]), ("geojson", paths["geojson"])):
            os.replace(f"{tmp}.{suffix}", path)
    return paths


def portal_dataset(csv_path):
    """The CSV with its times rewritten the way Chicago's portal writes them
    (`2017-03-04T21:15:09Z` → `03/04/2017 09:15:09 PM`); other time texts are kept."""
    path = csv_path[:-4] + "-chicago.csv"
    if os.path.exists(path):
        return path
    log(f"writing {rel(path)}")
    tmp = path + ".tmp"
    with open(csv_path, encoding="utf-8") as src, open(tmp, "w", encoding="utf-8", newline="") as dst:
        dst.write(src.readline())
        for line in src:
            parts = line.split(",", 2)
            t = parts[1]
            if len(t) == 20 and t[4] == "-" and t[10] == "T" and t[19] == "Z":
                hour = int(t[11:13])
                parts[1] = (f"{t[5:7]}/{t[8:10]}/{t[0:4]} {(hour % 12) or 12:02d}:{t[14:16]}:{t[17:19]} "
                            f"{'AM' if hour < 12 else 'PM'}")
            dst.write(",".join(parts))
    os.replace(tmp, path)
    return path


class Result:
    def __init__(self, wall, rss_kb, stdout, stderr, code):
        self.wall = wall
        self.rss_mb = rss_kb / 1024
        self.stdout = stdout
        self.stderr = stderr
        self.code = code

    def json(self):
        return json.loads(self.stdout)


def timed(cmd, cwd=ROOT, env=None, check=True):
    """Runs `cmd` under /usr/bin/time -v; returns wall seconds, peak RSS, output."""
    full = ["/usr/bin/time", "-v"] + [str(c) for c in cmd]
    start = time.monotonic()
    p = subprocess.run(full, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    if check and p.returncode != 0:
        raise SystemExit(f"bench: command failed ({p.returncode}): {' '.join(map(str, cmd))}\n{p.stderr[-2000:]}")
    return Result(wall, int(rss.group(1)) if rss else 0, p.stdout, p.stderr, p.returncode)


def alternating(jobs, runs):
    """Runs each job `runs` times, alternating A B C A B C…; returns {name: [Result]}.

    `jobs` is a list of (name, prepare, command): `prepare()` (may be None) runs untimed before
    each run (e.g. removing a database), `command` is the argv to time.
    """
    results = {name: [] for name, _, _ in jobs}
    for r in range(runs):
        for name, prepare, cmd in jobs:
            if prepare:
                prepare()
            log(f"run {r + 1}/{runs}: {name}")
            results[name].append(timed(cmd))
    return results


def median(values):
    return statistics.median(values)


def remove(*paths):
    for p in paths:
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)
        for suffix in ("-wal", "-shm", "-journal", ".lock"):
            if os.path.exists(p + suffix):
                os.remove(p + suffix)


def table(rows, header):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    out = ["  ".join(str(c).ljust(widths[i]) if i == 0 else str(c).rjust(widths[i]) for i, c in enumerate(header))]
    out.append("  ".join("-" * w for w in widths))
    for r in rows:
        out.append("  ".join(str(c).ljust(widths[i]) if i == 0 else str(c).rjust(widths[i]) for i, c in enumerate(r)))
    return "\n".join(out)


def machine():
    cpu = "unknown cpu"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = 0
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) // 1024 // 1024
    except OSError:
        pass
    # Kernel major.minor only: enough to compare machines, nothing of the host's own build names.
    kernel = ".".join(platform.release().split(".")[:2])
    return f"{cpu}, {os.cpu_count()} cores, {mem} GiB, {platform.system()} {kernel}"


def ratio(slow, fast):
    return f"{slow / fast:.1f}x" if fast > 0 else "n/a"


def same_grid(a_csv, b_csv, columns=11):
    """Whether two grid CSVs hold the same cells with the same first `columns` columns."""
    def rows(path):
        with open(path) as f:
            return [",".join(line.rstrip("\n").split(",")[:columns]) for line in f]
    # The WKT column quotes commas, but the first eleven columns never contain one.
    return rows(a_csv) == rows(b_csv)


# Machine-readable results: each script records its figures in RESULTS/<script>.json (a folder
# git ignores), merged by key with what an earlier run of the same script recorded, so a run of
# one section updates only its own figures. Tools/perf_table.py turns them into the one results
# table of docs/PERFORMANCE.md (and the README's figures).
RESULTS = os.path.join(ROOT, ".build-bench", "results")


def figure(key, stage, job, tool, value, unit, rss_mb=None, peer_of=None, headline=None):
    """One measured figure. `peer_of` names the key of the areawatch figure a peer's figure is
    compared with (the table prints the ratio); `headline` is the README's label for it."""
    f = {"key": key, "stage": stage, "job": job, "tool": tool, "value": value, "unit": unit}
    if rss_mb is not None:
        f["rss_mb"] = round(rss_mb)
    if peer_of:
        f["peer_of"] = peer_of
    if headline:
        f["headline"] = headline
    return f


def record_results(script, command, figures):
    """Merges `figures` (dicts from `figure`) into RESULTS/<script>.json, each stamped with
    today's date, this machine and `command`; returns the path."""
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, f"{script}.json")
    kept = {}
    if os.path.exists(path):
        with open(path) as f:
            kept = {x["key"]: x for x in json.load(f).get("figures", [])}
    run = {"date": time.strftime("%Y-%m-%d"), "machine": machine(), "command": command}
    for x in figures:
        kept[x["key"]] = dict(x, **run)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"script": script, "figures": list(kept.values())}, f, indent=1)
    os.replace(tmp, path)
    log(f"figures in {rel(path)}")
    return path


def command_line(default):
    """The command that reproduces this run: `default` (the make target) plus any options."""
    return default + ("" if len(sys.argv) == 1 else " (" + " ".join(sys.argv[1:]) + ")")
