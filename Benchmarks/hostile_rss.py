#!/usr/bin/env python3
"""Peak memory of `areawatch ingest` on hostile inputs (docs/RELIABILITY.md).

Generates each input in a temporary folder (streamed: nothing large is held in memory here),
ingests it with the built CLI under `/usr/bin/time -v`, prints one row per input: peak resident
set size, exit status, wall time and the ingest summary, then deletes the input.

    python3 Benchmarks/hostile_rss.py                  # 2 GiB single line, 512 MiB for the rest
    HOSTILE_BIG_MB=256 HOSTILE_MB=64 python3 Benchmarks/hostile_rss.py   # quicker
    AREAWATCH=.build/debug/areawatch python3 Benchmarks/hostile_rss.py

Exit status 1 when an input exceeds its peak RSS limit (HOSTILE_LIMIT_MB, default 200; inputs of
many records HOSTILE_STORE_LIMIT_MB, default 400, for the store's 256 MiB page cache) or ends
with an unexpected exit status.
"""
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

MiB = 1 << 20
BIG = int(os.environ.get("HOSTILE_BIG_MB", "2048")) * MiB
SIZE = int(os.environ.get("HOSTILE_MB", "512")) * MiB
LIMIT_MB = int(os.environ.get("HOSTILE_LIMIT_MB", "200"))
# Inputs of many records fill the store's SQLite page cache (PRAGMA cache_size: 256 MiB) inside
# the file's transaction, by design; their limit is that cache plus the process.
STORE_LIMIT_MB = int(os.environ.get("HOSTILE_STORE_LIMIT_MB", "400"))
POST = b'{"latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000}'
CHUNK = 8 * MiB


def repeat(f, byte, n):
    block = byte * min(CHUNK, n)
    while n > 0:
        k = min(len(block), n)
        f.write(block[:k])
        n -= k


def nested(f, n, opener=b"[", closer=b"]"):
    repeat(f, opener, n)
    repeat(f, closer, n)


# name, file name, writer, expected exit status, what the outcome should be[, peak RSS limit in MiB]
CASES = [
    ("csv-single-line", "one-line.csv", lambda f: (
        f.write(b"id,latitude,longitude,timestamp,description\nbefore,53.7,-1.8,1530000000,ok\nhuge,53.7,-1.8,1530000000,"),
        repeat(f, b"x", BIG), f.write(b"\nafter,53.8,-1.9,1530000001,ok\n")), 0, "malformed_record=1, 2 kept"),
    ("csv-quoted-field-with-newlines", "quoted.csv", lambda f: (
        f.write(b'id,latitude,longitude,timestamp,description\nhuge,53.7,-1.8,1530000000,"'),
        repeat(f, b"ab,c\n", SIZE // 5), f.write(b'"\nafter,53.8,-1.9,1530000001,ok\n')), 0, "malformed_record=1, 1 kept"),
    ("csv-gzip-bomb", "bomb.csv.gz", None, 0, "malformed_record=1, 1 kept"),
    ("csv-10000-columns", "wide.csv", lambda f: (  # 160 MiB of attributes: the store's page cache fills
        f.write(b",".join([b"id", b"latitude", b"longitude", b"timestamp"] + [b"c%d" % i for i in range(4, 10000)]) + b"\n"),
        [f.write(b",".join([b"r%d" % r, b"53.7", b"-1.8", b"1530000000"] + [b"v%d" % i for i in range(4, 10000)]) + b"\n")
         for r in range(2000)]), 0, "2000 kept", STORE_LIMIT_MB),
    ("ndjson-single-line", "one-line.ndjson", lambda f: (
        f.write(POST + b"\n" + b'{"latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000, "d": "'),
        repeat(f, b"x", SIZE), f.write(b'"}\n' + POST + b"\n")), 0, "malformed_record=1, 2 kept"),
    ("json-array-huge-record", "huge-record.json", lambda f: (
        f.write(b'[' + POST + b', {"latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000, "d": "'),
        repeat(f, b"x", SIZE), f.write(b'"}, ' + POST + b"]")), 0, "malformed_record=1, 2 kept"),
    # A file whose only record is rejected is an input error (exit 2, SPEC §2.5), as it should be.
    ("json-nested-100000", "deep.json", lambda f: nested(f, 100_000), 2, "malformed_record=1, every record rejected"),
    ("json-nested-in-skipped-member", "deep-skipped.json", lambda f: (
        f.write(b'{"timeline": '), nested(f, SIZE // 2, b"[", b"]"), f.write(b', "posts": {"p": ' + POST + b"}}")),
     0, "1 kept"),
    ("json-posts-nested-to-the-size", "deep-posts.json", lambda f: (
        f.write(b'{"posts": {"p": '), nested(f, SIZE // 2, b"[", b"]"), f.write(b"}}")), 2,
     "malformed_record=1, every record rejected"),
    ("json-huge-member-name", "huge-name.json", lambda f: (
        f.write(b'{"posts": {"'), repeat(f, b"k", SIZE), f.write(b'": ' + POST + b', "p2": ' + POST + b"}}")),
     0, "malformed_record=1, 1 kept"),
    ("json-huge-top-level-name", "huge-top-name.json", lambda f: (
        f.write(b'{"'), repeat(f, b"k", SIZE), f.write(b'": 1, "posts": {"p": ' + POST + b"}}")), 0, "1 kept"),
    ("json-leading-whitespace", "blank-start.json", lambda f: (
        repeat(f, b" ", SIZE), f.write(b"[" + POST + b"]")), 0, "1 kept"),
    ("csv-leading-blank-lines", "blank-start.csv", lambda f: (
        repeat(f, b"\n", SIZE), f.write(b"latitude,longitude,timestamp\n53.7,-1.8,1530000000\n")), 0, "1 kept"),
    ("json-truncated", "truncated.json", lambda f: (
        f.write(b'{"posts": {'), [f.write(b'"p%d": ' % i + POST + b", ") for i in range(SIZE // 80)], f.write(b'"last": {"lat')),
     2, "input error, nothing kept", STORE_LIMIT_MB),
]


def write_bomb(path):
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(b"latitude,longitude,timestamp,d\n53.7,-1.8,1530000000,")
        repeat(f, b"A", BIG)
        f.write(b"\n53.7,-1.8,1530000000,ok\n")


def find_binary():
    given = os.environ.get("AREAWATCH")
    for candidate in [given, ".build/release/areawatch", ".build/debug/areawatch"]:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    sys.exit("build areawatch first (make build), or set AREAWATCH=path")


def main():
    binary = find_binary()
    if not os.access("/usr/bin/time", os.X_OK):
        sys.exit("/usr/bin/time is needed (Debian package time)")
    selected = set(sys.argv[1:])
    work = tempfile.mkdtemp(prefix="areawatch-hostile-")
    failures = 0
    print(f"binary {binary}; single line {BIG // MiB} MiB, other large inputs {SIZE // MiB} MiB; limit {LIMIT_MB} MiB")
    print(f"{'input':34} {'size':>10} {'peak RSS':>10} {'exit':>4} {'time':>8}  outcome (expected)")
    try:
        for name, file_name, writer, expected_status, expected, *limit in CASES:
            limit_mb = limit[0] if limit else LIMIT_MB
            if selected and name not in selected:
                continue
            path = os.path.join(work, file_name)
            if writer is None:
                write_bomb(path)
            else:
                with open(path, "wb") as f:
                    writer(f)
            size = os.path.getsize(path)
            db = os.path.join(work, "store.db")
            started = time.time()
            run = subprocess.run(["/usr/bin/time", "-v", binary, "ingest", path, "--db", db, "--quiet",
                                  "--rejects", os.path.join(work, "rejects.csv")],
                                 capture_output=True, text=True, errors="replace")
            elapsed = time.time() - started
            peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr)
            peak_mb = int(peak.group(1)) / 1024 if peak else float("nan")
            status = run.returncode
            summary = ""
            for line in run.stdout.splitlines():
                if line.startswith(path):
                    fields = line[len(path):].split()
                    summary = " ".join(fields)
            if status == 2:
                errors = [l for l in run.stderr.splitlines() if l.startswith("areawatch: ") and "warning" not in l]
                summary = errors[-1][len("areawatch: "):] if errors else "input error"
                summary = summary.replace(path, file_name)
            ok = status == expected_status and peak_mb < limit_mb
            failures += 0 if ok else 1
            print(f"{name:34} {size / MiB:8.0f}Mi {peak_mb:8.1f}Mi {status:4d} {elapsed:7.1f}s  "
                  f"{summary[:90]} ({expected}){'' if ok else '  <-- FAIL'}", flush=True)
            for leftover in [path, db, db + "-wal", db + "-shm"]:
                if os.path.exists(leftover):
                    os.remove(leftover)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
