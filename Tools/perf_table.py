#!/usr/bin/env python3
"""The one results table of docs/PERFORMANCE.md and the README's performance figures, written
from the benchmarks' machine-readable results.

Sources, later ones replacing earlier ones figure by figure (by key):
  Benchmarks/results/last-measured.json  the figures the table showed when they were last
                                         committed (`--save` writes it from the merged figures);
  .build-bench/results/*.json            what Benchmarks/bench.py, bench_e2e.py and bench_serve.py
                                         recorded (benchlib.record_results; git ignores the folder);
  Benchmarks/results/spark.json          what Benchmarks/bench_spark.py measured (scale-out rows).

Each figure carries the run it comes from (date, machine, command); the table names the runs in a
list above it and gives each peer's figure as a ratio to areawatch's (the peer's time over
areawatch's, or areawatch's rate over the peer's: above 1 means areawatch is faster).

Rewrites the text between `<!-- results:begin -->` and `<!-- results:end -->` in
docs/PERFORMANCE.md and between `<!-- results:readme:begin -->` and `<!-- results:readme:end -->`
in README.md; `--check` only says whether they are current (exit 1 if not).

Usage: perf_table.py [--check] [--save]
"""

import argparse
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAST = os.path.join(ROOT, "Benchmarks", "results", "last-measured.json")
RECORDED = os.path.join(ROOT, ".build-bench", "results")
SPARK = os.path.join(ROOT, "Benchmarks", "results", "spark.json")
PERFORMANCE = os.path.join(ROOT, "docs", "PERFORMANCE.md")
README = os.path.join(ROOT, "README.md")

STAGES = ["ingest", "store", "index", "query", "grid", "report", "serve", "statistics", "near repeat", "whole job",
          "scale-out"]
# Units where less is better; in every other unit (rates) more is.
TIMES = {"s", "ms"}


def spark_figures(path):
    """The scale-out job against one machine at each size bench_spark.py measured."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        spark = json.load(f)
    run = {"date": spark.get("date", "undated"), "machine": spark.get("machine", "unknown machine"),
           "command": "make bench-spark"}
    figures = []
    for size in spark.get("sizes", []):
        n = size["incidents"]
        job = f"`report --input`, {n:,} incidents"
        one = f"spark-{n}-one"
        figures.append(dict(run, key=one, stage="scale-out", job=job, tool="areawatch, one machine",
                            value=size["one_machine"]["wall_s"], unit="s", rss_mb=round(size["one_machine"]["peak_rss_mb"])))
        figures.append(dict(run, key=f"spark-{n}-local2", stage="scale-out", job=job, tool="Spark local[2] (same bytes)"
                            if size.get("identical") else "Spark local[2]", value=size["spark_local2"]["wall_s"], unit="s",
                            rss_mb=round(size["spark_local2"]["process_tree_peak_rss_mb"]), peer_of=one))
    return figures


def merged_figures():
    figures = {}
    sources = [LAST] + sorted(glob.glob(os.path.join(RECORDED, "*.json")))
    for path in sources:
        if os.path.exists(path):
            with open(path) as f:
                for x in json.load(f)["figures"]:
                    figures[x["key"]] = x
    for x in spark_figures(SPARK):
        figures[x["key"]] = x
    return list(figures.values())


def number(value, unit):
    if isinstance(value, str):
        return f"{value} {unit}"
    if unit in TIMES:
        return f"{value:.3f}".rstrip("0").rstrip(".") + f" {unit}" if value < 1 else f"{value:,.2f} {unit}"
    return f"{value:,.0f} {unit}" if value >= 100 else f"{value:,.1f} {unit}"


def ratio(figure, by_key):
    ours = by_key.get(figure.get("peer_of"))
    if not ours or isinstance(figure["value"], str) or isinstance(ours["value"], str) or figure["unit"] != ours["unit"]:
        return ""
    if figure["unit"] in TIMES:
        r = figure["value"] / ours["value"] if ours["value"] else 0
    else:
        r = ours["value"] / figure["value"] if figure["value"] else 0
    return f"{r:.1f}×" if r >= 0.95 else f"{r:.2f}×"


def runs_of(figures):
    """Labels A, B, … for the distinct (date, machine, command) runs, newest first."""
    def newest_first(run):
        date = run[0] if run[0][:1].isdigit() else "0"  # undated runs last
        return (date, run[2])
    runs = sorted({(x["date"], x["machine"], x["command"]) for x in figures}, key=newest_first, reverse=True)
    return {run: chr(ord("A") + i) for i, run in enumerate(runs)}


def ordered(figures):
    def place(x):
        stage = STAGES.index(x["stage"]) if x["stage"] in STAGES else len(STAGES)
        return (stage, x["_order"])
    for i, x in enumerate(figures):
        x["_order"] = i
    return sorted(figures, key=place)


def table(figures):
    by_key = {x["key"]: x for x in figures}
    labels = runs_of(figures)
    out = ["<!-- Written by Tools/perf_table.py from the benchmarks' results; edits here are overwritten. -->",
           "Runs (the last column of the table names them):", ""]
    for (date, machine, command), label in sorted(labels.items(), key=lambda kv: kv[1]):
        out.append(f"- **{label}**: {date}, {machine}, `{command}`")
    out += ["", "| stage | job | tool | figure | peak RSS MB | peer / areawatch | run |",
            "|---|---|---|---:|---:|---:|---|"]
    for x in ordered(figures):
        rss = f"{x['rss_mb']:,}" if x.get("rss_mb") is not None else ""
        out.append(f"| {x['stage']} | {x['job']} | {x['tool']} | {number(x['value'], x['unit'])} | {rss} | "
                   f"{ratio(x, by_key)} | {labels[(x['date'], x['machine'], x['command'])]} |")
    return "\n".join(out)


def readme_lines(figures):
    by_key = {x["key"]: x for x in figures}
    peers = {}
    for x in figures:
        if x.get("peer_of"):
            peers.setdefault(x["peer_of"], []).append(x)
    out = ["<!-- Written by Tools/perf_table.py (see docs/PERFORMANCE.md, \"Results\"); edits here are overwritten. -->"]
    for x in ordered([x for x in figures if x.get("headline")]):
        against = ", ".join(f"{p['tool']} {ratio(p, by_key)}" for p in peers.get(x["key"], []) if ratio(p, by_key))
        out.append(f"- {x['headline']}: {number(x['value'], x['unit'])}"
                   + (f" (peer / areawatch: {against})" if against else "")
                   + f"; {x['date']}, {x['machine'].split(',')[0]}, {x['machine'].split(',')[1].strip()}")
    return "\n".join(out)


def replace_block(text, name, block):
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    if begin not in text or end not in text:
        raise SystemExit(f"perf_table: the markers {begin} … {end} are missing")
    return text[:text.index(begin) + len(begin)] + "\n" + block + "\n" + text[text.index(end):]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="exit 1 if a file is not what the results give")
    p.add_argument("--save", action="store_true", help=f"write the merged figures to {os.path.relpath(LAST, ROOT)}")
    a = p.parse_args()
    figures = merged_figures()
    if not figures:
        raise SystemExit("perf_table: no results (run make bench or make bench-e2e first)")
    stale = []
    for path, name, block in ((PERFORMANCE, "results", table(figures)), (README, "results:readme", readme_lines(figures))):
        with open(path) as f:
            text = f.read()
        new = replace_block(text, name, block)
        if new != text:
            stale.append(os.path.relpath(path, ROOT))
            if not a.check:
                with open(path + ".tmp", "w") as f:
                    f.write(new)
                os.replace(path + ".tmp", path)
    if a.save:
        keep = [{k: v for k, v in x.items() if k != "_order"} for x in figures if x["stage"] != "scale-out"]
        with open(LAST + ".tmp", "w") as f:
            json.dump({"figures": keep}, f, indent=1, ensure_ascii=False)
            f.write("\n")
        os.replace(LAST + ".tmp", LAST)
    if a.check:
        if stale:
            print(f"perf_table: not current: {', '.join(stale)}", file=sys.stderr)
            sys.exit(1)
    else:
        print(f"perf_table: {len(figures)} figures; rewrote {', '.join(stale) or 'nothing (already current)'}",
              file=sys.stderr)


if __name__ == "__main__":
    main()
