#!/usr/bin/env python3
"""`make bench-e2e`: areawatch against DuckDB and GeoPandas end to end, 1M → 10M incidents.

Three jobs, each measured side by side in one run, alternating A B C, medians of >= 3 runs, wall
time and peak RSS (/usr/bin/time -v):

  1. ad-hoc analyst job, no store: `areawatch report --input FILE.csv` (grid p7 r1000 →
     grid.geojson, grid.csv, tiles z10-14, summary) against the DuckDB and GeoPandas scripts
     writing the same grid as CSV and GeoJSON; the grids must be identical cell for cell.
  2. bulk load: `areawatch ingest` into an empty store against the spatialite CLI (table with
     POINT geometry and spatial index), with areawatch's split into read+insert and index rebuild.
  3. incremental nightly (SPEC §20): a store holding 5M incidents with the night before's grid
     count state, plus an inbox of 20k new ones: `areawatch run` end to end, beside the same night
     without the state (a full recompute) and `report --input` over the same rows.

Prints the tables; records the figures in .build-bench/results/bench_e2e.json and (unless
--no-doc) runs Tools/perf_table.py, which rewrites the results table of docs/PERFORMANCE.md and
the README's figures. The raw walls of every run go to Benchmarks/work/bench-e2e-results.json.

The ad-hoc job runs its first size a second time on another data shape (`--shapes`): the same
city with mixed time forms (offsets, spaces, epoch seconds and milliseconds).

Usage: bench_e2e.py [--runs 3] [--sizes 1000000,5000000,10000000] [--peers-max 1000000]
                    [--only adhoc,load,nightly] [--shapes iso,mixed] [--no-doc]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as b  # noqa: E402

FIGURES = []  # for Tools/perf_table.py (benchlib.record_results)


def adhoc(sizes, runs, peers_max, lines, results, shapes):
    lines.append("### 1. Ad-hoc analyst job (no store): grid p7 r1000, grid.geojson + grid.csv\n")
    rows = []
    parse_share = []
    # Every size in the generator's shape; the first size in each other shape too.
    for n, shape in [(n, "iso") for n in sizes] + [(sizes[0], s) for s in shapes if s != "iso"]:
        csv = b.dataset(n, shape=shape)
        tag = f"{n}" if shape == "iso" else f"{n}-{shape}"
        label = f"{n:,}" if shape == "iso" else f"{n:,} ({shape} times)"
        aw_dir = os.path.join(b.WORK, f"e2e-aw-{tag}")
        duck = os.path.join(b.WORK, f"e2e-duckdb-{tag}")
        geo = os.path.join(b.WORK, f"e2e-geopandas-{tag}")
        # Not --quiet: the stage lines carry each stage's peak memory (stderr, parsed below).
        jobs = [("areawatch", None, [b.BIN, "report", "--input", csv, "--out", aw_dir, "--as-of", b.AS_OF,
                                      "--precision", "7", "--radius", "1000", "--tile-zooms", "10-14"])]
        if n <= peers_max:
            jobs.append(("DuckDB", None, [sys.executable, os.path.join(b.PEERS, "grid_duckdb.py"), "--input", csv,
                                          "--as-of", b.AS_OF, "--precision", "7", "--radius", "1000",
                                          "--out-csv", duck + ".csv", "--out-geojson", duck + ".geojson", "--quiet"]))
            jobs.append(("GeoPandas", None, [sys.executable, os.path.join(b.PEERS, "grid_geopandas.py"), "--input", csv,
                                             "--as-of", b.AS_OF, "--precision", "7", "--radius", "1000",
                                             "--out-csv", geo + ".csv", "--out-geojson", geo + ".geojson", "--quiet"]))
        timed = b.alternating(jobs, runs)
        aw = b.median([r.wall for r in timed["areawatch"]])
        identical = {}
        if n <= peers_max:
            identical = {"DuckDB": b.same_grid(os.path.join(aw_dir, "grid.csv"), duck + ".csv"),
                         "GeoPandas": b.same_grid(os.path.join(aw_dir, "grid.csv"), geo + ".csv")}
        for name, rs in timed.items():
            wall = b.median([r.wall for r in rs])
            rows.append([label, name, f"{wall:.2f}", f"{b.median([r.rss_mb for r in rs]):.0f}",
                         "1.0x" if name == "areawatch" else b.ratio(wall, aw),
                         "" if name == "areawatch" else ("identical" if identical.get(name) else "DIFFERENT")])
            same = "" if name == "areawatch" else (", same grid" if identical.get(name) else ", DIFFERENT grid")
            FIGURES.append(b.figure(f"adhoc-{tag}-{name}", "whole job", f"ad-hoc job, {label} incidents{same}", name,
                                    round(wall, 2), "s", b.median([r.rss_mb for r in rs]),
                                    peer_of=None if name == "areawatch" else f"adhoc-{tag}-areawatch",
                                    headline=f"ad-hoc job, {label} incidents" if name == "areawatch" else None))
        # The parse share: the same file read, validated and keyed on one core (and on all), nothing else.
        parsed = b.timed([b.BIN, "benchmark", "parse", "--input", csv]).json()
        parse = parsed["seconds"]
        with open(os.path.join(aw_dir, "summary.json")) as f:
            t = json.load(f)["timings_s"]
        after = sum(v for k, v in t.items() if k != "ingest")
        # Peak memory per incident after each stage, from the last run's stage lines.
        per_incident = dict(re.findall(r"areawatch: (\w+): [\d.]+ s, peak memory \d+ MB \((\d+) bytes per incident\)",
                                       timed["areawatch"][-1].stderr))
        parse_share.append([label, f"{parse:.2f}", f"{parsed['all_cores_seconds']:.2f}", f"{t.get('ingest', 0):.2f}",
                            f"{t.get('index', 0):.2f}", f"{t.get('grid', 0):.2f}", f"{t.get('report', 0):.2f}",
                            f"{after / parse:.2f}",
                            " / ".join(per_incident.get(k, "-") for k in ("ingest", "index", "grid"))])
        FIGURES.append(b.figure(f"adhoc-{tag}-stages", "whole job", f"ad-hoc job, {label} incidents: stages (last run)",
                                "areawatch", " / ".join(f"{k} {t.get(k, 0):.2f}" for k in ("ingest", "index", "grid", "report")),
                                "s"))
        results[f"adhoc_{tag}"] = {k: [r.wall for r in v] for k, v in timed.items()}
    lines.append(md_table(rows, ["incidents", "tool", "wall s (median)", "peak RSS MB", "tool / areawatch", "grid"]))
    lines.append("\nareawatch stages (last run, from summary.json; `parse` is `areawatch benchmark parse`, on one core "
                 "and on all; peak memory is the process's peak RSS after the stage over the incidents):\n")
    lines.append(md_table(parse_share, ["incidents", "parse only s (1 core)", "parse only s (all cores)", "ingest s",
                                        "index s", "grid s", "report s", "(index+grid+queries+report) / parse",
                                        "peak bytes per incident after ingest / index / grid"]))


def bulk_load(sizes, runs, peers_max, lines, results):
    lines.append("\n### 2. Bulk load into an empty store\n")
    rows = []
    for n in sizes:
        csv = b.dataset(n)
        db = os.path.join(b.WORK, f"e2e-load-{n}.db")
        sl = os.path.join(b.WORK, f"e2e-load-{n}.sqlite")
        jobs = [("areawatch ingest", lambda: b.remove(db),
                 [b.BIN, "ingest", csv, "--db", db, "--rejects", db + ".rejects.csv"])]
        if n <= peers_max:  # the spatialite CLI takes ~3 minutes a run at 5M
            jobs.append(("spatialite CLI", lambda: b.remove(sl),
                         ["bash", os.path.join(b.PEERS, "load_spatialite.sh"), csv, sl]))
        timed = b.alternating(jobs, runs)
        aw = b.median([r.wall for r in timed["areawatch ingest"]])
        split = re.search(r"read\+insert ([\d.]+) s, index rebuild \+ commit ([\d.]+) s(?: \((.*)\))?", timed["areawatch ingest"][-1].stderr)
        for name, rs in timed.items():
            wall = b.median([r.wall for r in rs])
            detail = (f"read+insert {split.group(1)} s, index rebuild+commit {split.group(2)} s"
                      + (f" ({split.group(3)})" if split.group(3) else "")) if split and name == "areawatch ingest" else ""
            rows.append([f"{n:,}", name, f"{wall:.2f}", f"{n / wall:,.0f}", f"{b.median([r.rss_mb for r in rs]):.0f}",
                         "1.0x" if name == "areawatch ingest" else b.ratio(wall, aw), detail])
            ours = name == "areawatch ingest"
            FIGURES.append(b.figure(f"load-{n}-{name}", "store", f"bulk load into an empty store, {n:,} incidents",
                                    name, round(wall, 2), "s", b.median([r.rss_mb for r in rs]),
                                    peer_of=None if ours else f"load-{n}-areawatch ingest",
                                    headline=f"bulk load, {n:,} incidents" if ours else None))
        results[f"load_{n}"] = {k: [r.wall for r in v] for k, v in timed.items()}
    lines.append(md_table(rows, ["incidents", "tool", "wall s (median)", "rows/s", "peak RSS MB", "tool / areawatch",
                                 "where the time goes"]))


def nightly(runs, lines, results, stored=5_000_000, aged_nights=0):
    """SPEC §20 against issue 33's first goal: a store of `stored` incidents with the state of the
    night before, plus an inbox of 20k new ones, side by side with the same night recomputed in
    full (no state) and with `report --input` over the same rows (the ad-hoc job).

    `aged_nights`: the store has taken that many nights of 20k new incidents since its bulk load
    (a store in use), instead of coming straight from the bulk load, whose indexes' pages are
    packed full so that its first night splits a page on almost every insert."""
    steady = aged_nights > 0
    title = (f"store with {stored:,} incidents that has taken {aged_nights} nights of 20k" if steady
             else f"store with {stored:,} incidents straight from its bulk load")
    lines.append(f"\n### 3{'b' if steady else ''}. Incremental nightly: {title} + inbox of 20k new\n")
    big = b.dataset(stored)
    new = b.dataset(20_000, seed=7)
    earlier = [b.dataset(20_000, seed=100 + k) for k in range(aged_nights)]
    loaded = os.path.join(b.WORK, f"nightly-base-{stored}.db")
    base = loaded if not steady else os.path.join(b.WORK, f"nightly-base-{stored}-aged{aged_nights}.db")
    work = os.path.join(b.WORK, "nightly")
    inbox = os.path.join(work, "inbox")
    config = os.path.join(work, "nightly.toml")
    store = os.path.join(work, "store.db")

    def prepare(night_file=True, state=True, incremental=True, source=None):
        # Every night but the first finds the previous night's report (and the spare it left):
        # everything else of the work folder is made again from the store of the night before.
        os.makedirs(work, exist_ok=True)
        for name in os.listdir(work):
            if name not in ("report", ".report.spare"):
                b.remove(os.path.join(work, name))
        os.makedirs(inbox)
        for suffix in ("", ".columns") + ((".gridstate",) if state else ()):
            shutil.copyfile((source or base) + suffix, store + suffix)
        if night_file:
            shutil.copyfile(new, os.path.join(inbox, "new-20k.csv"))
        with open(config, "w") as f:
            f.write('store = "store.db"\nout = "report"\n' + f"incremental = {str(incremental).lower()}\n"
                    + '[inbox]\nfolder = "inbox"\ninclude = ["*.csv"]\n'
                    f'[query]\nas_of = "{b.AS_OF}"\n[report]\nprecision = 7\ntile_zooms = "10-14"\n')

    # The store of the night before with its column snapshot (which the ingest writes) and its grid
    # count state (which a night without files writes), made once; a cached store without them is
    # made again.
    if not all(os.path.exists(loaded + suffix) for suffix in (".columns", ".gridstate")):
        b.remove(loaded, loaded + ".columns", loaded + ".gridstate")
        b.log(f"building the {stored:,} store once")
        built = b.timed([b.BIN, "ingest", big, "--db", loaded, "--quiet", "--rejects", loaded + ".rejects.csv"])
        prepare(night_file=False, state=False, source=loaded)
        b.timed([b.BIN, "run", "--config", config])
        # The night before is the store as that night left it, with the state bound to it.
        for suffix in ("", ".columns", ".gridstate"):
            shutil.copyfile(store + suffix, loaded + suffix)
        lines.append(f"The {stored:,}-incident store was built once in {built.wall:.1f} s (`areawatch ingest`).\n")
    # Made again whenever the store it grows from is newer (rebuilt by another binary or data).
    aged_is_stale = steady and not (
        all(os.path.exists(base + suffix) for suffix in ("", ".columns"))
        and os.path.getmtime(base) >= os.path.getmtime(loaded))
    if aged_is_stale:
        b.log(f"the {stored:,} store after {aged_nights} nights of 20k, made once")
        for suffix in ("", ".columns"):
            shutil.copyfile(loaded + suffix, base + suffix)
        for path in earlier:
            b.timed([b.BIN, "ingest", path, "--db", base, "--quiet", "--rejects", base + ".rejects.csv"])
    refresh_state(prepare, [b.BIN, "run", "--config", config], store, base)
    adhoc_out = os.path.join(b.WORK, "nightly-adhoc")
    timed = b.alternating([
        ("nightly, incremental = true", prepare, [b.BIN, "run", "--config", config]),
        ("nightly, incremental = false (recomputed, no state)", lambda: prepare(state=False, incremental=False),
         [b.BIN, "run", "--config", config]),
        ("report --input, same rows", lambda: b.remove(adhoc_out),
         [b.BIN, "report", "--input", big, *earlier, new, "--as-of", b.AS_OF, "--precision", "7",
          "--tile-zooms", "10-14", "--out", adhoc_out, "--quiet"]),
    ], runs)
    said = [line for line in timed["nightly, incremental = true"][-1].stderr.splitlines() if "incremental:" in line]
    ingest = [line.split(": ", 2)[-1] for line in timed["nightly, incremental = true"][-1].stderr.splitlines()
              if "read+insert" in line]
    same = b.same_grid(os.path.join(work, "report", "grid.csv"), os.path.join(adhoc_out, "grid.csv"))
    walls = {name: b.median([r.wall for r in rs]) for name, rs in timed.items()}
    adhoc_wall = walls["report --input, same rows"]
    rows = [[name, f"{walls[name]:.2f}", f"{b.median([r.rss_mb for r in rs]):.0f}", b.ratio(adhoc_wall, walls[name])]
            for name, rs in timed.items()]
    lines.append(md_table(rows, ["job", "wall s (median)", "peak RSS MB", "ad-hoc / job"]))
    lines.append(f"\n{said[-1].strip() if said else 'the incremental night did not say incremental'}; "
                 f"its ingest: {ingest[-1] if ingest else '?'}; "
                 f"grid.csv equal to the ad-hoc job's: {'yes' if same else 'NO'}. Goal: the nightly >= 2x faster "
                 f"than the ad-hoc job ({'met' if adhoc_wall >= 2 * walls['nightly, incremental = true'] else 'not met'}).\n")
    key = "nightly-5M+20k" + ("-steady" if steady else "")
    results[key] = {name: [r.wall for r in rs] for name, rs in timed.items()}
    rs = timed["nightly, incremental = true"]
    recompute = "nightly, incremental = false (recomputed, no state)"
    what = f"nightly run: 20,000 new into a store of 5,000,000{' that has taken earlier nights' if steady else ''}"
    FIGURES.append(b.figure(key, "whole job", what, "areawatch run (default: incremental, SPEC §20)",
                            round(walls["nightly, incremental = true"], 2), "s", b.median([r.rss_mb for r in rs]),
                            headline=None if steady else "nightly, 20k new into 5M"))
    FIGURES.append(b.figure(key + "-recompute", "whole job", what, "areawatch run (incremental = false)",
                            round(walls[recompute], 2), "s", b.median([r.rss_mb for r in timed[recompute]])))
    FIGURES.append(b.figure(key + "-adhoc", "whole job", what, "areawatch report --input over the same rows",
                            round(adhoc_wall, 2), "s", b.median([r.rss_mb for r in timed["report --input, same rows"]]),
                            peer_of=key))


def refresh_state(prepare, command, store, base):
    """The grid count state of the night before, made again by this binary on every bench run (a
    night without files, no state): a state kept from an older binary may be of another format
    version, which the night would refuse and recompute, timing the wrong path."""
    b.log("the night before's grid count state, made by this binary")
    prepare(night_file=False, state=False)
    b.timed(command)
    shutil.copyfile(store + ".gridstate", base + ".gridstate")


def national(runs, lines, results, stored=50_000_000, new_rows=100_000):
    """Issue 33's second and third goals: a store of `stored` incidents over ten years plus an
    inbox of `new_rows` from the day after, the as-of one day later than the state's; the
    incremental night, a recomputing night and `report --input` over the same rows side by side.
    The store is built once and kept (its build time is printed); every run starts from a copy."""
    lines.append(f"\n### 4. National scale: store with {stored:,} incidents (ten years) + {new_rows:,} new, "
                 "as-of one day later\n")
    big = b.dataset(stored, shape="10y")
    new = b.dataset(new_rows, seed=8, shape="nextday")
    base = os.path.join(b.WORK, f"national-base-{stored}.db")
    work = os.path.join(b.WORK, "national")
    store = os.path.join(work, "store.db")
    before, after = "2018-07-31T23:59:59Z", "2018-08-01T23:59:59Z"

    def prepare(night_file=True, state=True, incremental=True, as_of=after):
        b.remove(work)
        os.makedirs(os.path.join(work, "inbox"))
        for suffix in ("", ".columns") + ((".gridstate",) if state else ()):
            shutil.copyfile(base + suffix, store + suffix)
        if night_file:
            shutil.copyfile(new, os.path.join(work, "inbox", "new.csv"))
        with open(os.path.join(work, "night.toml"), "w") as f:
            f.write('store = "store.db"\nout = "report"\n' + f"incremental = {str(incremental).lower()}\n"
                    + '[inbox]\nfolder = "inbox"\ninclude = ["*.csv"]\n'
                    f'[query]\nas_of = "{as_of}"\n[report]\nprecision = 7\ntile_zooms = "10-14"\n')

    config = [b.BIN, "run", "--config", os.path.join(work, "night.toml")]
    if not all(os.path.exists(base + suffix) for suffix in ("", ".columns")):
        b.remove(base, base + ".columns", base + ".gridstate")
        b.log(f"building the {stored:,} store once")
        built = b.timed([b.BIN, "ingest", big, "--db", base, "--quiet", "--rejects", base + ".rejects.csv"])
        lines.append(f"The {stored:,}-incident store was built once in {built.wall:.0f} s (`areawatch ingest`, "
                     f"peak {built.rss_mb:.0f} MB).\n")
        results["national_build"] = {"wall_s": built.wall, "rss_mb": built.rss_mb}
    refresh_state(lambda **kw: prepare(as_of=before, **kw), config, store, base)
    disk = {suffix or ".db": os.path.getsize(base + suffix) for suffix in ("", ".columns", ".gridstate")}
    lines.append("On disk, bytes per stored incident: " + ", ".join(
        f"{name} {size / stored:.1f}" for name, size in disk.items()) + ".\n")
    adhoc_out = os.path.join(b.WORK, "national-adhoc")
    timed = b.alternating([
        ("nightly, incremental = true", prepare, config),
        ("nightly, incremental = false (recomputed, no state)", lambda: prepare(state=False, incremental=False), config),
        ("report --input, same rows", lambda: b.remove(adhoc_out),
         [b.BIN, "report", "--input", big, new, "--as-of", after, "--precision", "7", "--tile-zooms", "10-14",
          "--out", adhoc_out, "--quiet"]),
    ], runs)
    said = [line for line in timed["nightly, incremental = true"][-1].stderr.splitlines()
            if "incremental:" in line or "full recompute" in line]
    same = b.same_grid(os.path.join(work, "report", "grid.csv"), os.path.join(adhoc_out, "grid.csv"))
    walls = {name: b.median([r.wall for r in rs]) for name, rs in timed.items()}
    rss = {name: b.median([r.rss_mb for r in rs]) for name, rs in timed.items()}
    adhoc_wall = walls["report --input, same rows"]
    rows = [[name, f"{walls[name]:.2f}", f"{rss[name]:.0f}", f"{1e6 * rss[name] / stored:.0f}",
             b.ratio(adhoc_wall, walls[name])] for name in timed]
    lines.append(md_table(rows, ["job", "wall s (median)", "peak RSS MB", "bytes in RAM per stored incident",
                                 "ad-hoc / job"]))
    incremental = walls["nightly, incremental = true"]
    lines.append(f"\n{said[-1].strip() if said else 'the incremental night said neither'}; grid.csv equal to the "
                 f"ad-hoc job's: {'yes' if same else 'NO'}. Goals: the nightly <= 5 s "
                 f"({'met' if incremental <= 5 else 'not met'}) and >= 10x faster than the ad-hoc job "
                 f"({'met' if adhoc_wall >= 10 * incremental else 'not met'}), peak <= 6 GB "
                 f"({'met' if rss['nightly, incremental = true'] <= 6000 else 'not met'}); the ad-hoc job <= 30 s "
                 f"({'met' if adhoc_wall <= 30 else 'not met'}) and <= 4 GB "
                 f"({'met' if rss['report --input, same rows'] <= 4000 else 'not met'}).\n")
    results["national"] = {name: {"wall_s": [r.wall for r in rs], "rss_mb": [r.rss_mb for r in rs]}
                           for name, rs in timed.items()}
    job = f"nightly run: {new_rows:,} new into a store of {stored:,} (ten years)"
    FIGURES.append(b.figure("national-50M+100k-incremental", "whole job", job,
                            "areawatch run (default: incremental, SPEC §20)", round(incremental, 2), "s",
                            rss["nightly, incremental = true"]))
    FIGURES.append(b.figure("national-50M+100k-recompute", "whole job", job, "areawatch run (incremental = false)",
                            round(walls["nightly, incremental = false (recomputed, no state)"], 2), "s",
                            rss["nightly, incremental = false (recomputed, no state)"]))
    FIGURES.append(b.figure("national-50M+100k-adhoc", "whole job", job,
                            "areawatch report --input over the same rows", round(adhoc_wall, 2), "s",
                            rss["report --input, same rows"], peer_of="national-50M+100k-incremental"))


def md_table(rows, header):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--sizes", default="1000000,5000000,10000000")
    p.add_argument("--peers-max", type=int, default=1_000_000, help="largest size the peer scripts run at")
    p.add_argument("--load-peers-max", type=int, default=5_000_000, help="largest size the spatialite CLI loads")
    p.add_argument("--only", default="adhoc,load,nightly",
                   help="sections; 'national' (50M stored, issue 33) is run only when named")
    p.add_argument("--national-runs", type=int, default=1,
                   help="runs of each national-scale job (each starts from a copy of a 50M store)")
    p.add_argument("--shapes", default="iso,mixed",
                   help="data shapes of the ad-hoc job (benchlib.SHAPES); the first size runs in each")
    p.add_argument("--no-doc", action="store_true", help="record the figures, leave docs/PERFORMANCE.md and README.md alone")
    a = p.parse_args()
    if not os.path.exists(b.BIN):
        raise SystemExit("bench: build first (make build)")
    sizes = [int(s) for s in a.sizes.split(",")]
    only = set(a.only.split(","))
    lines, results = [], {"machine": b.machine()}
    if "adhoc" in only:
        adhoc(sizes, a.runs, a.peers_max, lines, results, a.shapes.split(","))
    if "load" in only:
        bulk_load([s for s in sizes if s <= 5_000_000], a.runs, a.load_peers_max, lines, results)
    if "nightly" in only:
        nightly(a.runs, lines, results)
        nightly(a.runs, lines, results, aged_nights=2)
    if "national" in only:
        national(a.national_runs, lines, results)
    print("\n".join(lines))
    with open(os.path.join(b.WORK, "bench-e2e-results.json"), "w") as f:
        json.dump(results, f, indent=2)
    b.record_results("bench_e2e", b.command_line("make bench-e2e"), FIGURES)
    if not a.no_doc:
        subprocess.run([sys.executable, os.path.join(b.ROOT, "Tools", "perf_table.py")], check=True)


if __name__ == "__main__":
    main()
