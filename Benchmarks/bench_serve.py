#!/usr/bin/env python3
"""`make bench` (serve section): `areawatch serve` under load on loopback.

  - the bundled job's report (reports/calderdale, written by `areawatch run` when missing);
  - wrk (Debian) with Benchmarks/serve_lookup.lua: GET /v1/safety at locations spread over the
    report's bounds, 2 threads, --connections keep-alive connections (default 16), only
    127.0.0.1;
  - a warm-up, then a measured run of --seconds, then more runs until 1,000,000 requests in all:
    lookups/s, p50/p90/p99 latency, errors; the server's RSS before the first and after the last;
  - a sample of answers compared byte for byte with `areawatch lookup --json` at the same points.

Usage: bench_serve.py [--seconds 20] [--total 1000000] [--sample 100] [--connections 16] [--json OUT]
The figures of docs/PERFORMANCE.md's results table go to .build-bench/results/bench_serve.json.
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as b  # noqa: E402

REPORT = os.path.join(b.ROOT, "reports", "calderdale")
CONNECTIONS = 16
LOAD_BEFORE = 0.0
EXTRA = os.environ.get("SERVE_ARGS", "").split()
LUA = os.path.join(b.ROOT, "Benchmarks", "serve_lookup.lua")


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)) / 1024


def start_server():
    """The server on a free port; its stderr (messages and access log) goes to a file."""
    log_path = os.path.join(b.WORK, "serve-stderr.log")
    log = open(log_path, "wb")
    p = subprocess.Popen([b.BIN, "serve", REPORT, "--port", "0", "--host", "127.0.0.1"] + EXTRA,
                         stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with open(log_path) as f:
            m = re.search(r"listening on (http://127\.0\.0\.1:\d+)", f.read())
        if m:
            return p, m.group(1)
        if p.poll() is not None:
            break
        time.sleep(0.05)
    p.kill()
    raise SystemExit("bench: serve did not start")


def wrk(base, seconds, bounds, threads=2):
    connections = CONNECTIONS
    env = dict(os.environ, BOUNDS=",".join(str(v) for v in bounds))
    out = subprocess.run(["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "-s", LUA, base],
                         capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def check_sample(base, bounds, n):
    rng = random.Random(5)
    mismatches = 0
    for _ in range(n):
        lat = f"{bounds[1] + rng.random() * (bounds[3] - bounds[1]):.6f}"
        lon = f"{bounds[0] + rng.random() * (bounds[2] - bounds[0]):.6f}"
        served = urllib.request.urlopen(f"{base}/v1/safety?lat={lat}&lon={lon}").read().decode()
        cli = subprocess.run([b.BIN, "lookup", "--tiles", os.path.join(REPORT, "tiles"), "--lat", lat, "--lon", lon, "--json"],
                             capture_output=True, text=True, check=True).stdout
        mismatches += served != cli
    return mismatches


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=int, default=20)
    p.add_argument("--total", type=int, default=1_000_000)
    p.add_argument("--sample", type=int, default=100)
    p.add_argument("--connections", type=int, default=16, help="wrk connections (keep-alive)")
    p.add_argument("--json", default=os.path.join(b.WORK, "bench-serve.json"))
    a = p.parse_args()
    global CONNECTIONS
    CONNECTIONS = a.connections
    os.makedirs(b.WORK, exist_ok=True)
    if not os.path.exists(os.path.join(REPORT, "tiles", "tilejson.json")):
        b.log("writing the bundled report (areawatch run --config areawatch.toml)")
        b.timed([b.BIN, "run", "--config", os.path.join(b.ROOT, "areawatch.toml")])
    with open(os.path.join(REPORT, "tiles", "tilejson.json")) as f:
        bounds = json.load(f)["bounds"]
    global LOAD_BEFORE
    with open("/proc/loadavg") as f:
        LOAD_BEFORE = float(f.read().split()[0])  # other work on the machine skews the latency tail
    server, base = start_server()
    try:
        before = rss_mb(server.pid)
        mismatches = check_sample(base, bounds, a.sample)
        b.log("warm-up 3 s")
        warm = wrk(base, 3, bounds)
        b.log(f"measured run {a.seconds} s")
        measured = wrk(base, a.seconds, bounds)
        total = warm["requests"] + measured["requests"] + a.sample
        errors = sum(measured[k] for k in measured if k.startswith("errors_"))
        while total < a.total:
            rate = measured["requests"] / (measured["duration_us"] / 1e6)
            extra = wrk(base, max(2, min(120, int((a.total - total) / rate) + 1)), bounds)
            total += extra["requests"]
            errors += sum(extra[k] for k in extra if k.startswith("errors_"))
        after = rss_mb(server.pid)
        server.terminate()
        code = server.wait(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
    rate = measured["requests"] / (measured["duration_us"] / 1e6)
    result = {
        "machine": b.machine(), "load_average_1m_before": LOAD_BEFORE, "connections": a.connections, "wrk_threads": 2, "seconds": a.seconds,
        "lookups_per_s": round(rate), "p50_ms": measured["p50_us"] / 1000, "p90_ms": measured["p90_us"] / 1000,
        "p99_ms": measured["p99_us"] / 1000, "p999_ms": measured["p999_us"] / 1000, "max_ms": measured["max_us"] / 1000,
        "errors_measured": sum(measured[k] for k in measured if k.startswith("errors_")), "errors_all_runs": errors,
        "requests_all_runs": total, "rss_mb_before": round(before, 1), "rss_mb_after": round(after, 1),
        "sample_checked": a.sample, "sample_mismatches": mismatches, "sigterm_exit": code,
    }
    print(b.table([[k, v] for k, v in result.items()], ["serve", "value"]))
    with open(a.json, "w") as f:
        json.dump(result, f, indent=2)
    b.log(f"results in {b.rel(a.json)}")
    job = f"lookups on loopback, {a.connections} connections"
    b.record_results("bench_serve", b.command_line("make bench-serve"), [
        b.figure("serve-lookups", "serve", job, "areawatch serve", result["lookups_per_s"], "lookups/s",
                 headline="serve, lookups"),
        b.figure("serve-p99", "serve", job + ": p99 latency", "areawatch serve", result["p99_ms"], "ms"),
    ])
    if mismatches:
        raise SystemExit(f"bench: {mismatches} of {a.sample} served answers differ from `areawatch lookup --json`")


if __name__ == "__main__":
    main()
