#!/usr/bin/env python3
"""Runs the Swift test command and prints what a reader of `make test` needs.

    python3 Tools/test_summary.py --log .build/test-output.log -- swift test --skip-build

The whole output goes to the log file. The terminal gets: every failure, error and skipped test
as Swift Testing prints it (a skip says what would run it), a line a minute while the run goes
on, then one line per test target (passed, failed, skipped) and the total with the wall time, read
from the run's xUnit report (the tests run in parallel: a target's own time is not meaningful). The exit status is the test command's.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET

# Swift Testing's symbols: a failed test or issue, a skipped test; `error:` from the build or a crash.
SHOWN = re.compile(r"(✘|􀢄|skipped|error:|Fatal error|Assertion failed|Crash:|signal \d+)")
PASSED = re.compile(r"^(✔|􁁛) Test .* passed")
STARTED = "◇"  # a test or suite starting: never shown (its name may hold any word)


def xunit_path(base):
    """Swift Testing writes its xUnit report beside the given name, with this suffix."""
    root, ext = os.path.splitext(base)
    return root + "-swift-testing" + ext


def summarise(xml_file):
    """(target, passed, failed, skipped) per test target, from the xUnit report."""
    groups = collections.OrderedDict()
    for case in ET.parse(xml_file).getroot().iter("testcase"):
        target = case.get("classname", "?").split(".")[0]
        g = groups.setdefault(target, [0, 0, 0])
        if case.find("failure") is not None or case.find("error") is not None:
            g[1] += 1
        elif case.find("skipped") is not None:
            g[2] += 1
        else:
            g[0] += 1
    return [(name, *values) for name, values in sorted(groups.items())]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--log", required=True, help="where the whole output goes")
    p.add_argument("command", nargs=argparse.REMAINDER, help="the test command, after --")
    a = p.parse_args()
    command = [c for c in a.command if c != "--"]
    xml_base = os.path.splitext(a.log)[0] + ".xml"
    xml_file = xunit_path(xml_base)
    for stale in (xml_base, xml_file):
        if os.path.exists(stale):
            os.remove(stale)
    os.makedirs(os.path.dirname(os.path.abspath(a.log)), exist_ok=True)

    started = time.monotonic()
    passed, started_count = [0], [0]
    done = threading.Event()

    def heartbeat():
        while not done.wait(60):
            print(f"tests: {started_count[0]} started, {passed[0]} passed so far, {time.monotonic() - started:.0f} s",
                  flush=True)

    threading.Thread(target=heartbeat, daemon=True).start()
    details = False
    with open(a.log, "w", encoding="utf-8", errors="replace") as log:
        process = subprocess.Popen(command + ["--xunit-output", xml_base], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, errors="replace")
        for line in process.stdout:
            log.write(line)
            if line.startswith(STARTED):
                started_count[0] += 1
                details = False
            elif PASSED.search(line):
                passed[0] += 1
                details = False
            elif SHOWN.search(line) or (details and not line.startswith(("✔", "➜", "􀟈"))):
                # A failure's details follow it on lines of their own (`↳`, indented text).
                details = details or line.startswith(("✘", "􀢄"))
                sys.stdout.write(line)
                sys.stdout.flush()
        status = process.wait()
    done.set()

    if not os.path.exists(xml_file):
        print(f"tests: no xUnit report (the run ended with status {status}); the end of {a.log}:")
        with open(a.log, encoding="utf-8", errors="replace") as f:
            sys.stdout.write("".join(f.readlines()[-60:]))
        return status or 1
    rows = summarise(xml_file)
    width = max(len(r[0]) for r in rows) if rows else 5
    for name, ok, failed, skipped in rows:
        print(f"{name:<{width}}  {ok:4d} passed  {failed:3d} failed  {skipped:3d} skipped")
    total = [sum(r[i] for r in rows) for i in (1, 2, 3)]
    print(f"{'total':<{width}}  {total[0]:4d} passed  {total[1]:3d} failed  {total[2]:3d} skipped  "
          f"{time.monotonic() - started:7.1f} s wall (whole output: {a.log})")
    if status == 0 and total[1]:
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
