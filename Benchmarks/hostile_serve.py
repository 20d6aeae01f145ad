#!/usr/bin/env python3
"""`make hostile-serve`: `areawatch serve` against hostile clients, on loopback only
(docs/RELIABILITY.md, "serve against hostile clients").

Writes a report of the bundled police data with the release binary, adds a large generated
ehsa.geojson (HOSTILE_SERVE_EHSA_MB, default 256), starts `serve` on a free 127.0.0.1 port with
short timeouts, and runs the attacks one after another while a probe asks `/v1/safety` on a new
connection every 0.2 s (an answer later than 5 s counts as a failure):

  - HEAD against GET (Content-Length, no body) on the large files and an error;
  - slow readers: 10 clients of ehsa.geojson and 1,500 of report.html that read nothing;
  - 1,100 idle sockets, and 200 slow-loris heads (a byte every 0.5 s);
  - a storm of 2,000 malformed requests whose clients never close; two Host headers;
  - oversized heads and bodies (1 MiB header, Content-Length 1 GiB, an endless chunked body);
  - a second server under `ulimit -n 64`: the 400 storm and 120 idle sockets beyond its
    connection cap, a keep-alive client answered throughout, a new one after the timeouts.

Server RSS, open descriptors and CPU are read from /proc while each attack runs. Every attack
asserts what it must (RSS and descriptors bounded, answers as docs/FORMATS.md says, the probe
answered throughout, descriptors back after the timeouts); the table says each outcome; exit
status 1 when one fails. `--no-assert` only measures (for a binary without these defences:
unknown options are left out and attacks time-boxed; a watchdog kills a server past 8 GB).

    python3 Benchmarks/hostile_serve.py [--bin .build/release/areawatch] [--no-assert] [--json OUT]
    HOSTILE_SERVE_ONLY=slow python3 Benchmarks/hostile_serve.py   # only the attacks named "…slow…"
"""

import argparse
import json
import os
import re
import resource
import select
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as b  # noqa: E402

EHSA_MB = int(os.environ.get("HOSTILE_SERVE_EHSA_MB", "256"))
ONLY = os.environ.get("HOSTILE_SERVE_ONLY", "")  # run only the attacks whose name contains this
RSS_WATCHDOG_MB = 8192
HEADER_S, IDLE_S, WRITE_S = 2, 3, 3
PROBE_PATH = "/v1/safety?lat=53.7248&lon=-1.8612"
# An answer later than this is a failure; the table shows the slowest answer of each attack.
PROBE_TIMEOUT_S = 5


# --- the server's resources, read from /proc ----------------------------------------------------

def server_stats(pid):
    """(RSS MB, open descriptors, CPU seconds) of a process."""
    with open(f"/proc/{pid}/status") as f:
        rss = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)) / 1024
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return rss, fds, cpu


class Sampler:
    """Peak RSS and descriptors of the server every 50 ms while an attack runs; kills the server
    past the watchdog (a server without the defences would take the machine's memory)."""

    def __init__(self, server):
        self.server, self.peak_rss, self.peak_fds, self.killed = server, 0.0, 0, False
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop.is_set():
            try:
                rss, fds, _ = server_stats(self.server.pid)
            except (OSError, AttributeError):
                return
            self.peak_rss, self.peak_fds = max(self.peak_rss, rss), max(self.peak_fds, fds)
            if rss > RSS_WATCHDOG_MB:
                self.killed = True
                self.server.kill()
                return
            time.sleep(0.05)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


# --- HTTP over raw sockets ------------------------------------------------------------------------

def connect(port, rcvbuf=None, timeout=5.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(timeout)
    s.connect(("127.0.0.1", port))
    return s


class Conn:
    """One client connection: requests written raw, responses read by Content-Length."""

    def __init__(self, port, rcvbuf=None, timeout=5.0):
        self.sock = connect(port, rcvbuf, timeout)
        self.buffer = b""

    def send(self, raw):
        self.sock.sendall(raw)
        return self

    def _fill(self, what):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise ConnectionError(f"closed by the server {what}")
        self.buffer += chunk

    def response(self, head_only=False):
        """(status, headers as lists by lower-case name, body)."""
        while b"\r\n\r\n" not in self.buffer:
            self._fill("before a response head")
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers.setdefault(name.strip().lower(), []).append(value.strip())
        length = 0 if head_only or status in (204, 304) else int(headers.get("content-length", ["0"])[0])
        parts, have = [self.buffer], len(self.buffer)
        while have < length:
            chunk = self.sock.recv(min(1 << 22, length - have))
            if not chunk:
                raise ConnectionError(f"closed by the server after {have} of {length} body bytes")
            parts.append(chunk)
            have += len(chunk)
        data = b"".join(parts)
        self.buffer = data[length:]
        return status, headers, data[:length]

    def closed_by_server(self, within):
        """True when the server closes the connection (EOF or reset) within `within` seconds;
        whatever it sent first is read and dropped."""
        deadline = time.monotonic() + within
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.sock.settimeout(left)
            try:
                if not self.sock.recv(1 << 20):
                    return True
            except socket.timeout:
                return False
            except OSError:
                return True

    def close(self):
        self.sock.close()


def request(port, raw, head_only=False, timeout=5.0):
    c = Conn(port, timeout=timeout)
    try:
        return c.send(raw).response(head_only)
    finally:
        c.close()


def get(path, host="127.0.0.1", method="GET", extra=""):
    return f"{method} {path} HTTP/1.1\r\nHost: {host}\r\n{extra}\r\n".encode()


def eof_count(socks, within):
    """How many of the sockets the server closed within `within` seconds (poll, any number of
    sockets); data the server sent first is read and dropped."""
    poller = select.poll()
    by_fd = {s.fileno(): s for s in socks}
    for fd in by_fd:
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    closed, deadline = set(), time.monotonic() + within
    while len(closed) < len(by_fd) and time.monotonic() < deadline:
        for fd, _ in poller.poll(100):
            try:
                data = by_fd[fd].recv(1 << 16, socket.MSG_DONTWAIT)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                closed.add(fd)
                poller.unregister(fd)
    return len(closed)


# --- the probe ------------------------------------------------------------------------------------

class Probe:
    """Asks /v1/safety on a new connection every 0.2 s (or, `keep_alive`, on one connection
    opened before the attack): answers, failures and the slowest answer, per attack window."""

    def __init__(self, port, keep_alive=False):
        self.port, self.keep_alive = port, keep_alive
        self.lock = threading.Lock()
        self.ok, self.failed, self.slowest, self.errors = 0, 0, 0.0, []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.conn = Conn(port, timeout=PROBE_TIMEOUT_S) if keep_alive else None

    def reset(self):
        with self.lock:
            self.ok, self.failed, self.slowest, self.errors = 0, 0, 0.0, []

    def once(self):
        started = time.monotonic()
        try:
            if self.keep_alive:
                status, _, body = self.conn.send(get(PROBE_PATH)).response()
            else:
                status, _, body = request(self.port, get(PROBE_PATH), timeout=PROBE_TIMEOUT_S)
            good = status == 200 and json.loads(body).get("class") is not None
            error = None if good else f"status {status}"
        except (OSError, ValueError) as e:
            good, error = False, f"{type(e).__name__}: {e}"
        with self.lock:
            self.slowest = max(self.slowest, time.monotonic() - started)
            if good:
                self.ok += 1
            else:
                self.failed += 1
                self.errors.append(error)

    def run(self):
        while not self.stop.is_set():
            self.once()
            self.stop.wait(0.2)

    def start(self):
        self.thread.start()
        return self

    def finish(self):
        self.stop.set()
        self.thread.join()
        if self.conn:
            self.conn.close()

    def summary(self):
        with self.lock:
            return self.ok, self.failed, self.slowest, list(self.errors[:3])


# --- the server -----------------------------------------------------------------------------------

def write_report(binary, folder):
    police = sorted(os.path.join(b.ROOT, "datasets", "police-uk", n)
                    for n in os.listdir(os.path.join(b.ROOT, "datasets", "police-uk")) if n.endswith(".csv"))
    subprocess.run([binary, "report", "--input", *police, "--out", folder, "--as-of", b.AS_OF, "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    feature = (b'{"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[-1.87, 53.72], '
               b'[-1.86, 53.72], [-1.86, 53.73], [-1.87, 53.72]]]}, "properties": {"geohash": "gcwcx", '
               b'"label": "No pattern detected"}},\n')
    block = feature * ((1 << 20) // len(feature))
    with open(os.path.join(folder, "ehsa.geojson"), "wb") as f:
        f.write(b'{"type": "FeatureCollection", "features": [\n')
        for _ in range(EHSA_MB):
            f.write(block)
        f.write(feature.rstrip(b",\n") + b"\n]}\n")


def start_server(binary, folder, log_path, options, nofile=None):
    def limit():
        if nofile:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    log = open(log_path, "wb")
    p = subprocess.Popen([binary, "serve", folder, "--port", "0", "--host", "127.0.0.1", *options],
                         stdout=subprocess.DEVNULL, stderr=log, preexec_fn=limit)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with open(log_path, "rb") as f:
            m = re.search(rb"listening on http://127\.0\.0\.1:(\d+)", f.read())
        if m:
            return p, int(m.group(1))
        if p.poll() is not None:
            break
        time.sleep(0.05)
    p.kill()
    raise SystemExit(f"hostile-serve: serve did not start; see {log_path}")


def known_options(binary):
    """The defence options this binary has (a binary from before them is measured without)."""
    text = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True).stdout
    wanted = {"--header-timeout": str(HEADER_S), "--idle-timeout": str(IDLE_S), "--write-timeout": str(WRITE_S)}
    return [x for k, v in wanted.items() if k in text for x in (k, v)]


def wait_for_fds(pid, at_most, within):
    deadline = time.monotonic() + within
    while True:
        fds = server_stats(pid)[1]
        if fds <= at_most or time.monotonic() > deadline:
            return fds
        time.sleep(0.1)


# --- the attacks ----------------------------------------------------------------------------------
# Each returns (outcome, passed): what it observed in words, and whether that is what it must be.

class Context:
    def __init__(self, server, port, probe, log_path, enforce):
        self.server, self.port, self.probe, self.log_path, self.enforce = server, port, probe, log_path, enforce
        self.baseline_fds = server_stats(server.pid)[1]


def many(port, count, raw=b"", rcvbuf=None):
    socks = []
    for _ in range(count):
        s = connect(port, rcvbuf)
        if raw:
            s.sendall(raw)
        socks.append(s)
    return socks


def close_all(socks):
    for s in socks:
        s.close()


def head_equals_get(ctx):
    problems = []
    for path in ["/report.html", "/ehsa.geojson", "/summary.json", PROBE_PATH, "/tiles/99/0/0.json", "/nothing"]:
        c = Conn(ctx.port, timeout=30)
        # HEAD then GET on one connection: the GET's answer parses only if HEAD sent no body.
        c.send(get(path, method="HEAD") + get(path))
        hs, hh, _ = c.response(head_only=True)
        gs, gh, body = c.response()
        c.close()
        if hs != gs or hh.get("content-length") != [str(len(body))]:
            problems.append(f"{path}: HEAD {hs} length {hh.get('content-length')}, GET {gs} body {len(body)}")
        if {k: v for k, v in hh.items() if k != "date"} != {k: v for k, v in gh.items() if k != "date"}:
            problems.append(f"{path}: HEAD and GET headers differ")
    return ("HEAD: GET's headers and Content-Length, no body, on 6 resources" if not problems
            else "; ".join(problems[:2])), not problems


def slow_readers(path, count, hold):
    def attack(ctx):
        socks = many(ctx.port, count, get(path), rcvbuf=4096)
        time.sleep(hold)
        after = wait_for_fds(ctx.server.pid, ctx.baseline_fds + 4, WRITE_S + 4)
        close_all(socks)
        recovered = after <= ctx.baseline_fds + 4
        return (f"{count} readers that read nothing; closed at the write timeout: {'yes' if recovered else 'no'}"
                f" ({after} fds)"), recovered
    return attack


def idle_sockets(count):
    def attack(ctx):
        socks = many(ctx.port, count)
        closed = eof_count(socks, HEADER_S + 3)
        close_all(socks)
        return f"{closed} of {count} closed by the server at the header timeout", closed == count
    return attack


def slow_loris(count):
    def attack(ctx):
        socks = many(ctx.port, count, b"GET / HTTP/1.1\r\nHost: x\r\n")
        deadline, closed = time.monotonic() + HEADER_S + 3, set()
        while time.monotonic() < deadline and len(closed) < count:
            for i, s in enumerate(socks):
                if i not in closed:
                    try:
                        s.send(b"X")
                    except OSError:
                        closed.add(i)
            time.sleep(0.5)
        closed_count = len(closed) + eof_count([s for i, s in enumerate(socks) if i not in closed], 1)
        close_all(socks)
        return f"{closed_count} of {count} heads sent a byte per 0.5 s closed", closed_count == count
    return attack


def bad_request_storm(count):
    def attack(ctx):
        log_before = access_lines(ctx.log_path, '"- -" 400')
        socks = many(ctx.port, count, b"GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n")
        time.sleep(0.5)
        json_400 = 0
        for s in socks:
            c = Conn.__new__(Conn)
            c.sock, c.buffer = s, b""
            s.settimeout(5)
            try:
                status, headers, body = c.response()
                good = status == 400 and "error" in json.loads(body) and headers.get("connection") == ["close"]
                json_400 += good and c.closed_by_server(2)
            except (OSError, ValueError):
                pass
        close_all(socks)
        time.sleep(0.6)  # the access log is written in blocks, at least every --reload-ms
        logged = access_lines(ctx.log_path, '"- -" 400') - log_before
        passed = json_400 == count and logged >= count
        return f"{json_400} of {count}: 400 + JSON error + closed; {logged} access-log lines", passed
    return attack


def access_lines(path, needle):
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "replace").count(needle)


def host_headers(ctx):
    checks = {
        "two Host": (get("/summary.json", extra="Host: other\r\n"), 400),
        "two Host, one empty": (get("/summary.json", extra="Host:\r\n"), 400),
        "no Host (1.0)": (b"GET /summary.json HTTP/1.0\r\n\r\n", 200),
    }
    wrong = []
    for name, (raw, want) in checks.items():
        status, headers, body = request(ctx.port, raw)
        if status != want or (want == 400 and "error" not in json.loads(body)):
            wrong.append(f"{name}: {status}")
    return ("two Host headers 400 (also when one is empty); HTTP/1.0 without Host 200" if not wrong
            else "; ".join(wrong)), not wrong


def oversized(ctx):
    wrong = []
    huge_head = get("/summary.json", extra="X-Big: " + "a" * (1 << 20) + "\r\n")
    huge_body = get("/summary.json", method="POST", extra="Content-Length: 1073741824\r\n")
    for name, raw, want in [("1 MiB header", huge_head, 431), ("Content-Length 1 GiB", huge_body, 413)]:
        c = Conn(ctx.port)
        try:
            c.send(raw)
            status, _, body = c.response()
            if status != want or "error" not in json.loads(body) or not c.closed_by_server(2):
                wrong.append(f"{name}: {status}")
        except (OSError, ValueError) as e:
            wrong.append(f"{name}: {e}")
        c.close()
    # An endless chunked body: the server stops reading and closes.
    c = Conn(ctx.port)
    c.send(get("/summary.json", extra="Transfer-Encoding: chunked\r\n"))
    sent, deadline = 0, time.monotonic() + 5
    c.sock.settimeout(0.2)
    try:
        while time.monotonic() < deadline:
            sent += c.sock.send(b"4000\r\n" + b"z" * 0x4000 + b"\r\n")
    except socket.timeout:
        pass
    except OSError:
        deadline = 0
    endless_closed = deadline == 0 or c.closed_by_server(WRITE_S + 2)
    c.close()
    if not endless_closed:
        wrong.append("endless chunked body not closed")
    return ("431 for a 1 MiB header, 413 for 1 GiB announced, an endless chunked body closed" if not wrong
            else "; ".join(wrong)), not wrong


def small_server_storm(count):
    def attack(ctx):
        socks = many(ctx.port, count, b"\x16\x03\x01\x02\x00 not http\r\n\r\n")
        answered = eof_count(socks, 5)
        # The attacker still holds every socket open: a new client must be answered all the same.
        try:
            fresh = request(ctx.port, get(PROBE_PATH), timeout=3)[0] == 200
        except OSError:
            fresh = False
        close_all(socks)
        return (f"{answered} of {count} closed; a new client then answered: {'yes' if fresh else 'no'}",
                answered == count and fresh)
    return attack


def beyond_the_cap(count):
    def attack(ctx):
        _, _, cpu0 = server_stats(ctx.server.pid)
        t0 = time.monotonic()
        socks = many(ctx.port, count)
        refused = 0
        for s in socks:
            s.settimeout(0.05)
            try:
                refused += s.recv(64).startswith(b"HTTP/1.1 503")
            except OSError:
                pass
        time.sleep(1.5)
        _, _, cpu1 = server_stats(ctx.server.pid)
        cpu = (cpu1 - cpu0) / (time.monotonic() - t0)
        closed = eof_count(socks, HEADER_S + 3)
        try:
            fresh = request(ctx.port, get(PROBE_PATH), timeout=3)[0] == 200
        except OSError:
            fresh = False
        close_all(socks)
        with open(ctx.log_path) as f:
            cap = re.search(r"at most (\d+) connections", f.read())
        # The kept-alive probe holds one of the places.
        expected = count - (int(cap.group(1)) - 1) if cap else -1
        passed = refused == expected and cpu < 0.2 and fresh and closed == count
        return (f"cap {cap.group(1) if cap else '?'}: {refused} refused with 503 at once, the rest closed at the "
                f"header timeout; server CPU "
                f"{cpu * 100:.0f}% of a core meanwhile; a new client then answered: {'yes' if fresh else 'no'}"), passed
    return attack


# --- running them ---------------------------------------------------------------------------------

ROW_HEADER = ["attack", "RSS MB before", "peak", "fds before", "peak", "after", "server CPU s", "probe ok/failed",
              "slowest s", "outcome", "pass"]


def measure(ctx, name, attack, rss_growth_mb=None, fd_ceiling=None):
    """Runs one attack with the server sampled and the probe counted; returns a table row."""
    rss0, fds0, cpu0 = server_stats(ctx.server.pid)
    ctx.probe.reset()
    b.log(name)
    with Sampler(ctx.server) as sampler:
        try:
            outcome, passed = attack(ctx)
        except OSError as e:
            outcome, passed = f"client error: {e}", False
    time.sleep(0.3)
    alive = ctx.server.poll() is None
    _, fds_after, cpu1 = server_stats(ctx.server.pid) if alive else (0, "-", cpu0)
    ok, failed, slowest, errors = ctx.probe.summary()
    checks = [passed, alive, failed == 0 and ok > 0]
    if rss_growth_mb is not None:
        checks.append(sampler.peak_rss - rss0 <= rss_growth_mb)
        outcome += f"; RSS +{sampler.peak_rss - rss0:.0f} MB (bound {rss_growth_mb})"
    if fd_ceiling is not None:
        checks.append(sampler.peak_fds <= fd_ceiling)
    if not alive:
        outcome += "; SERVER GONE" + (" (killed past the watchdog)" if sampler.killed else "")
    if errors:
        outcome += f"; probe: {errors[0]}"
    return [name, f"{rss0:.0f}", f"{sampler.peak_rss:.0f}", fds0, sampler.peak_fds, fds_after, f"{cpu1 - cpu0:.1f}",
            f"{ok}/{failed}", f"{slowest:.2f}", outcome, "yes" if all(checks) else "NO"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default=b.BIN)
    p.add_argument("--no-assert", action="store_true", help="measure only (exit 0 whatever happens)")
    p.add_argument("--json", default=os.path.join(b.WORK, "hostile-serve.json"))
    a = p.parse_args()
    started = time.monotonic()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 4500:
        raise SystemExit(f"hostile-serve: needs an open-files hard limit of 4500 for its clients (it is {hard})")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    os.makedirs(b.WORK, exist_ok=True)
    options = known_options(a.bin)
    rows = []
    with tempfile.TemporaryDirectory(prefix="hostile-serve-") as scratch:
        folder = os.path.join(scratch, "report")
        b.log(f"writing a report with a {EHSA_MB} MB ehsa.geojson")
        write_report(a.bin, folder)
        log_path = os.path.join(b.WORK, "hostile-serve-stderr.log")
        server, port = start_server(a.bin, folder, log_path, options)
        probe = Probe(port).start()
        try:
            ctx = Context(server, port, probe, log_path, not a.no_assert)
            for name, attack, growth, ceiling in [
                ("HEAD against GET", head_equals_get, None, None),
                ("10 slow readers of ehsa.geojson", slow_readers("/ehsa.geojson", 10, 2), 64, None),
                ("1,500 slow readers of report.html", slow_readers("/report.html", 1500, 2), 160, None),
                ("1,100 idle sockets", idle_sockets(1100), 96, None),
                ("200 slow-loris heads", slow_loris(200), 64, None),
                ("2,000 malformed requests, never closed", bad_request_storm(2000), 64, 400),
                ("Host headers", host_headers, None, None),
                ("oversized heads and bodies", oversized, 64, None),
            ]:
                if server.poll() is not None:
                    break
                if ONLY in name:
                    rows.append(measure(ctx, name, attack, growth, ceiling))
        finally:
            stop(server, probe)
        if ONLY in "ulimit -n 64":
            rows.extend(small_server_rows(a.bin, folder, options))
    print(b.table(rows, ROW_HEADER))
    seconds = time.monotonic() - started
    print(f"\n{len(rows)} attacks in {seconds:.0f} s; server log {b.rel(log_path)}")
    with open(a.json, "w") as f:
        json.dump({"machine": b.machine(), "ehsa_mb": EHSA_MB, "seconds": round(seconds, 1),
                   "rows": [dict(zip(ROW_HEADER[:3] + ["fds before", "fds peak", "fds after"] + ROW_HEADER[6:], r))
                            for r in rows]}, f, indent=2)
    failed = [r[0] for r in rows if r[-1] != "yes"]
    if failed and not a.no_assert:
        raise SystemExit(f"hostile-serve: failed: {', '.join(failed)}")


def small_server_rows(binary, folder, options):
    """The storm and the connection cap against a server under `ulimit -n 64`."""
    log_path = os.path.join(b.WORK, "hostile-serve-64-stderr.log")
    server, port = start_server(binary, folder, log_path, options, nofile=64)
    probe = Probe(port, keep_alive=True).start()
    rows = []
    try:
        ctx = Context(server, port, probe, log_path, True)
        for name, attack in [("ulimit -n 64: 300 malformed requests", small_server_storm(300)),
                             ("ulimit -n 64: 120 idle sockets beyond the cap", beyond_the_cap(120))]:
            if server.poll() is not None:
                break
            rows.append(measure(ctx, name, attack, 64, 64))
    finally:
        stop(server, probe)
    return rows


def stop(server, probe):
    """Ends the probe, then the server (SIGTERM, SIGKILL after 30 s)."""
    probe.finish()
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()


if __name__ == "__main__":
    main()
