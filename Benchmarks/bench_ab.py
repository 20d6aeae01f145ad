#!/usr/bin/env python3
"""Two areawatch binaries side by side, on the jobs of `make bench` and `make bench-e2e` that both
can run: the parse stage per input form, the ad-hoc job stage by stage (the generator's city at
each size, and its first size with mixed time forms), the bulk load of a store, and a night that
recomputes that store's report. One machine, one run, the binaries alternating, medians; the table
gives new ÷ old, so 1.03 is 3 % slower.

    python3 Benchmarks/bench_ab.py OLD_BINARY [NEW_BINARY] [--runs 5] [--sizes 1000000,5000000,10000000]
                                   [--only parse,adhoc,load,nightly]
    make bench-ab OLD=path/to/areawatch

NEW_BINARY defaults to the release build. A binary that has no `report --formats` writes the
formats it always wrote; the other is then asked for those only, so both do the same work (files
only one writes are listed after the first run). Every ad-hoc run's grid.csv must be the same for both.
"""
import argparse, hashlib, json, os, shutil, subprocess, sys

import benchlib as b

# The kinds of file written by a binary older than `report --formats` (SPEC §19).
FORMATS_BEFORE_OPTION = "csv,geojson,tiles,pmtiles,html"
NIGHT_ROWS = 20_000


def has_formats_option(binary):
    help_text = subprocess.run([binary, "report", "--help"], capture_output=True, text=True).stdout
    return "--formats" in help_text


def report_options(binaries):
    """Each binary's extra `report` options, so that both write the same files."""
    with_option = {name: has_formats_option(path) for name, path in binaries.items()}
    if all(with_option.values()) or not any(with_option.values()):
        return {name: [] for name in binaries}
    return {name: ["--formats", FORMATS_BEFORE_OPTION] if with_option[name] else [] for name in binaries}


def files_under(folder):
    return sorted(os.path.relpath(os.path.join(base, f), folder) for base, _, fs in os.walk(folder) for f in fs
                  if not f.startswith("."))


def parse_jobs(binaries, size):
    watchme = b.dataset(size, kind="watchme")
    forms = {"CSV": b.dataset(size), "WatchMe JSON": watchme, **{
        {"json_array": "JSON array", "ndjson": "NDJSON", "geojson": "GeoJSON"}[k]: p
        for k, p in b.json_forms(watchme).items()}}
    return [(f"parse {size:,} {form}", name, None, [path_, "benchmark", "parse", "--input", path])
            for form, path in forms.items() for name, path_ in binaries.items()]


def adhoc_jobs(binaries, options, sizes):
    jobs = []
    for size, shape in [(n, "iso") for n in sizes] + [(sizes[0], "mixed")]:
        csv = b.dataset(size, shape=shape)
        label = f"ad-hoc {size:,}" + ("" if shape == "iso" else f" ({shape} times)")
        for name, binary in binaries.items():
            out = os.path.join(b.WORK, f"ab-{name}-{size}-{shape}")
            jobs.append((label, name, lambda out=out: b.remove(out),
                         [binary, "report", "--input", csv, "--out", out, "--as-of", b.AS_OF, "--precision", "7",
                          "--radius", "1000", "--tile-zooms", "10-14", "--quiet", *options[name]]))
    return jobs


def store_path(binary, size):
    """The store `binary` loaded in this run, named after that build (path, size and time), so
    that a store another build made, perhaps in another format, is never taken for it."""
    st = os.stat(binary)
    build = hashlib.sha1(f"{os.path.realpath(binary)}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()[:10]
    return os.path.join(b.WORK, f"ab-store-{build}-{size}.db")


def load_jobs(binaries, size):
    csv = b.dataset(size)
    return [(f"bulk load {size:,} (ingest)", name, lambda db=store_path(binary, size): b.remove(db, db + ".columns"),
             [binary, "ingest", csv, "--db", store_path(binary, size), "--quiet", "--rejects",
              store_path(binary, size) + ".rejects.csv"]) for name, binary in binaries.items()]


def night_jobs(binaries, options, size):
    """A night of 20k new rows into the store each binary loaded, recomputed in full (no state):
    the work both binaries share, whichever of them keeps an incremental state."""
    night = b.dataset(NIGHT_ROWS, seed=7)
    jobs = []
    for name, binary in binaries.items():
        base = store_path(binary, size)
        if not os.path.exists(base):
            b.log(f"loading the {size:,} store of {name} once")
            b.timed([binary, "ingest", b.dataset(size), "--db", base, "--quiet", "--rejects", base + ".rejects.csv"])
        work = os.path.join(b.WORK, f"ab-{name}-night")
        knows_incremental = knows_config_key(binary, "incremental = false")

        def prepare(base=base, work=work, knows_incremental=knows_incremental, formats=options[name]):
            b.remove(work)
            os.makedirs(os.path.join(work, "inbox"))
            for suffix in ("", ".columns"):
                if os.path.exists(base + suffix):
                    shutil.copyfile(base + suffix, os.path.join(work, "store.db" + suffix))
            shutil.copyfile(night, os.path.join(work, "inbox", "night.csv"))
            with open(os.path.join(work, "night.toml"), "w") as f:
                f.write('store = "store.db"\nout = "report"\n' + ("incremental = false\n" if knows_incremental else "")
                        + '[inbox]\nfolder = "inbox"\ninclude = ["*.csv"]\n'
                        f'[query]\nas_of = "{b.AS_OF}"\n[report]\nprecision = 7\ntile_zooms = "10-14"\n'
                        + (f"formats = {json.dumps(formats[1].split(','))}\n" if formats else ""))

        jobs.append((f"night {NIGHT_ROWS // 1000}k into {size:,}, recomputed", name, prepare,
                     [binary, "run", "--config", os.path.join(work, "night.toml"), "--quiet"]))
    return jobs


def knows_config_key(binary, line):
    """Whether the binary's `run` accepts a config line (an older one refuses an unknown key)."""
    probe = os.path.join(b.WORK, "ab-probe")
    b.remove(probe)
    os.makedirs(os.path.join(probe, "inbox"))
    with open(os.path.join(probe, "probe.toml"), "w") as f:
        f.write(f'store = "probe.db"\nout = "report"\n{line}\n[inbox]\nfolder = "inbox"\n')
    said = subprocess.run([binary, "run", "--config", os.path.join(probe, "probe.toml"), "--quiet"],
                          capture_output=True, text=True).stderr
    b.remove(probe)
    return "unknown key" not in said


def measure(jobs, runs):
    """Runs every job `runs` times, old and new alternating; {(label, name): [Result]}, each
    Result with the stage timings of the report it wrote, if any."""
    results = {}
    for r in range(runs):
        for label, name, prepare, cmd in jobs:
            if prepare:
                prepare()
            b.log(f"run {r + 1}/{runs}: {label}, {name}")
            result = b.timed(cmd)
            result.stages = stage_timings(cmd[cmd.index("--out") + 1]) if "--out" in cmd else {}
            results.setdefault((label, name), []).append(result)
    return results


def figures(label, result_list):
    """{figure: median} of one job's runs: wall and peak RSS, plus a parse's own seconds or an
    ad-hoc job's stage timings."""
    out = {"wall s": b.median([r.wall for r in result_list]), "peak RSS MB": b.median([r.rss_mb for r in result_list])}
    if label.startswith("parse"):
        out["parse s (1 thread)"] = b.median([r.json()["seconds"] for r in result_list])
        out["parse s (all cores)"] = b.median([r.json()["all_cores_seconds"] for r in result_list])
    return out


def stage_figures(result_list):
    stages = {}
    for result in result_list:
        for stage, seconds in result.stages.items():
            stages.setdefault(f"stage {stage} s", []).append(seconds)
    return {k: b.median(v) for k, v in stages.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old")
    p.add_argument("new", nargs="?", default=b.BIN)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--sizes", default="1000000,5000000,10000000")
    p.add_argument("--only", default="parse,adhoc,load,nightly")
    p.add_argument("--json", default=os.path.join(b.WORK, "bench-ab.json"))
    a = p.parse_args()
    binaries = {"old": os.path.abspath(a.old), "new": os.path.abspath(a.new)}
    sizes = [int(s) for s in a.sizes.split(",")]
    only = a.only.split(",")
    options = report_options(binaries)
    for name, path in binaries.items():
        b.log(f"{name}: {path} {' '.join(options[name])}")

    groups = []
    if "parse" in only:
        groups.append(parse_jobs(binaries, sizes[0]))
    if "adhoc" in only:
        groups.append(adhoc_jobs(binaries, options, sizes))
    if "load" in only:
        groups.append(load_jobs(binaries, sizes[min(1, len(sizes) - 1)]))
    if "nightly" in only:
        groups.append(night_jobs(binaries, options, sizes[min(1, len(sizes) - 1)]))

    rows, record, problems = [], {}, []
    for jobs in groups:
        # One untimed run of each job first: files cached, and the two binaries' outputs compared.
        measure(jobs, 1)
        problems += compare_outputs(jobs)
        results = measure(jobs, a.runs)
        for label in dict.fromkeys(label for label, _, _, _ in jobs):
            per = {}
            for name in binaries:
                per[name] = figures(label, results[(label, name)]) | stage_figures(results[(label, name)])
            record[label] = per
            for figure in per["old"]:
                if figure in per["new"]:
                    old, new = per["old"][figure], per["new"][figure]
                    rows.append([label, figure, f"{old:.3f}", f"{new:.3f}", f"{new / old:.3f}" if old else "-"])

    print(f"\nA/B on {b.machine()}: medians of {a.runs} runs, alternating\nold: {binaries['old']}\n"
          f"new: {binaries['new']}\n")
    print(b.table(rows, ["job", "figure", "old", "new", "new / old"]))
    for problem in problems:
        print(f"DIFFERENT: {problem}")
    # A store serves one run: the next run is likely another build, which would load its own.
    for name in os.listdir(b.WORK):
        if name.startswith("ab-store-"):
            os.remove(os.path.join(b.WORK, name))
    with open(a.json, "w") as f:
        json.dump({"old": binaries["old"], "new": binaries["new"], "runs": a.runs, "jobs": record,
                   "problems": problems}, f, indent=1)
    return 1 if problems else 0


def stage_timings(out):
    """The stage timings of the last run that wrote `out` (summary.json's `timings_s`)."""
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f).get("timings_s", {})


def compare_outputs(jobs):
    """The report jobs whose grid.csv differs between the two binaries' last runs (and, on stderr,
    the files only one of them writes)."""
    problems = []
    outs = {}
    for label, name, _, cmd in jobs:
        if "--out" in cmd:
            outs.setdefault(label, {})[name] = cmd[cmd.index("--out") + 1]
        elif "--config" in cmd:
            outs.setdefault(label, {})[name] = os.path.join(os.path.dirname(cmd[cmd.index("--config") + 1]), "report")
    for label, folders in outs.items():
        old, new = folders["old"], folders["new"]
        only_one = sorted(set(files_under(old)) ^ set(files_under(new)))
        if only_one:
            b.log(f"{label}: written by one binary only (a feature the other lacks?): {', '.join(only_one)}")
        if not b.same_grid(os.path.join(old, "grid.csv"), os.path.join(new, "grid.csv")):
            problems.append(f"{label}: grid.csv")
    return problems


if __name__ == "__main__":
    sys.exit(main())
