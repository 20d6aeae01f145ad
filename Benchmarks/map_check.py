#!/usr/bin/env python3
"""The map page of `areawatch serve` in headless Chromium (`make screenshot`, and the test
ServeMapTests): WebGL by SwiftShader, a screenshot whose map area must hold pixels other than the
background, and `/?probe=LAT,LON` (the click's code path) whose answer in `#answer` must equal
`areawatch lookup --json` for the same location.

  map_check.py [--report DIR] [--out PNG] [--bin AREAWATCH] [--web-dir DIR]

A report without grid.pmtiles (written before vector tiles existed) is served from a copy given one
built here from its JSON tiles with the PyPI packages mapbox-vector-tile and pmtiles, so the page
has something to draw; exit 0 when every check passes, 1 with the reason otherwise.
"""

import argparse
import base64
import gzip
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BACKGROUND = (0xF4, 0xF4, 0xF2)
BASE32 = "0123456789bcdefghjkmnpqrstuvwxyz"


def geohash_box(g):
    lat, lon, even = [-90.0, 90.0], [-180.0, 180.0], True
    for ch in g:
        bits = BASE32.index(ch)
        for shift in range(4, -1, -1):
            r = lon if even else lat
            mid = (r[0] + r[1]) / 2
            r[0 if (bits >> shift) & 1 else 1] = mid
            even = not even
    return lon[0], lat[0], lon[1], lat[1]


def build_pmtiles(report, out):
    """grid.pmtiles from tiles/{z}/{x}/{y}.json: one polygon per cell, layer `cells`."""
    import mapbox_vector_tile
    from pmtiles.tile import Compression, TileType, zxy_to_tileid
    from pmtiles.writer import Writer

    def to_tile(lon, lat, z, x, y):
        n = 2 ** z
        fx = (lon + 180) / 360 * n
        lat = max(min(lat, 85.0511), -85.0511)
        fy = (1 - math.log(math.tan(math.radians(lat)) + 1 / math.cos(math.radians(lat))) / math.pi) / 2 * n
        return ((fx - x) * 4096, (1 - (fy - y)) * 4096)  # y up: the encoder flips to MVT's y down

    tiles = []
    base = os.path.join(report, "tiles")
    for z in sorted(int(d) for d in os.listdir(base) if d.isdigit()):
        for x in os.listdir(os.path.join(base, str(z))):
            for name in os.listdir(os.path.join(base, str(z), x)):
                y = int(name[:-5])
                with open(os.path.join(base, str(z), x, name)) as f:
                    cells = json.load(f)["cells"]
                features = []
                for g, (rc, rp, cls) in cells.items():
                    w, s, e, n = geohash_box(g)
                    ring = [to_tile(lo, la, z, int(x), y) for lo, la in ((w, s), (e, s), (e, n), (w, n), (w, s))]
                    wkt = "POLYGON((" + ",".join(f"{px:.1f} {py:.1f}" for px, py in ring) + "))"
                    change = "none" if rc is None or rp is None or rc == rp else ("rise" if rc > rp else "fall")
                    features.append({"geometry": wkt, "properties": {"geohash": g, "r_current": rc or 0, "r_previous": rp or 0,
                                                                     "class": cls, "change": change}})
                data = mapbox_vector_tile.encode([{"name": "cells", "features": features}])
                tiles.append((zxy_to_tileid(z, int(x), y), gzip.compress(data, mtime=0)))
    tiles.sort()
    zooms = sorted(int(d) for d in os.listdir(base) if d.isdigit())
    with open(out, "wb") as f:
        w = Writer(f)
        for tid, data in tiles:
            w.write_tile(tid, data)
        w.finalize({"tile_type": TileType.MVT, "tile_compression": Compression.GZIP, "min_zoom": zooms[0], "max_zoom": zooms[-1],
                    "min_lon_e7": -1800000000, "min_lat_e7": -850000000, "max_lon_e7": 1800000000, "max_lat_e7": 850000000,
                    "center_zoom": zooms[0], "center_lon_e7": 0, "center_lat_e7": 0},
                   {"vector_layers": [{"id": "cells", "fields": {"geohash": "String", "r_current": "Number",
                                                                  "r_previous": "Number", "class": "String", "change": "String"}}]})


def read_png(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG, as Chromium writes them."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), f"PNG depth {depth} colour type {color}"
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for r in range(height):
        ftype, line = raw[r * (stride + 1)], bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if ftype == 1: line[i] = (line[i] + a) & 255
            elif ftype == 2: line[i] = (line[i] + b) & 255
            elif ftype == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[k:k + 3]) for k in range(0, stride, channels)])
        prev = line
    return width, height, rows


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
    JSON messages separated by NUL, commands on the child's fd 3, answers on its fd 4), so the check
    waits for the page's own signals (the map's `idle` event) instead of a fixed time budget, which
    a loaded machine can outrun."""

    def __init__(self, width=1200, height=800):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()

        def wire():
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        args = [chromium(), "--headless=new", "--no-sandbox", "--use-gl=angle", "--use-angle=swiftshader",
                "--enable-unsafe-swiftshader", "--hide-scrollbars", "--no-first-run", "--disable-extensions",
                "--remote-debugging-pipe", f"--window-size={width},{height}",
                f"--user-data-dir={tempfile.mkdtemp(prefix='map-check-')}", "about:blank"]
        self.process = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=wire, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self.pending = b""
        self.next_id = 0
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t["targetId"] for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", {"targetId": page, "flatten": True})["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=True)

    def call(self, method, params=None, session=False, timeout=60):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self.to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" not in self.pending:
                if time.monotonic() > deadline:
                    raise SystemExit(f"map check: Chromium did not answer {method} in {timeout} s")
                chunk = os.read(self.from_child, 1 << 16)
                if not chunk:
                    raise SystemExit(f"map check: Chromium ended during {method}")
                self.pending += chunk
            raw, self.pending = self.pending.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise SystemExit(f"map check: {method}: {answer['error']}")
                return answer.get("result", {})

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True)
        return result.get("result", {}).get("value")

    def wait_for(self, expression, what, timeout=150):
        """Polls `expression` until it is truthy: the page's state, not a timer, ends the wait."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.25)
        raise SystemExit(f"map check: {what} after {timeout} s")

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except SystemExit:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--report", default=os.path.join(ROOT, "reports", "calderdale"))
    p.add_argument("--out", default=None)
    p.add_argument("--bin", default=os.path.join(ROOT, ".build", "release", "areawatch"))
    p.add_argument("--web-dir", default=os.path.join(ROOT, ".build-web", "maplibre"))
    a = p.parse_args()
    if not chromium():
        print("skipped: chromium is not installed (apt-get install chromium)")
        return 0
    report = a.report
    work = tempfile.mkdtemp(prefix="map-check-report-")
    try:
        if not os.path.exists(os.path.join(report, "grid.pmtiles")):
            copy = os.path.join(work, "report")
            shutil.copytree(report, copy)
            build_pmtiles(copy, os.path.join(copy, "grid.pmtiles"))
            report = copy
        server = subprocess.Popen([a.bin, "serve", report, "--port", "0", "--web-dir", a.web_dir],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            base = None
            while base is None:
                line = server.stderr.readline()
                if not line:
                    raise SystemExit("map check: serve ended before listening")
                m = re.search(r"listening on (http://[\d.]+:\d+)", line)
                base = m.group(1) if m else None
            with open(os.path.join(report, "tiles", "tilejson.json")) as f:
                b = json.load(f)["bounds"]
            lat, lon = f"{(b[1] + b[3]) / 2:.6f}", f"{(b[0] + b[2]) / 2:.6f}"
            # The click's code path: the page answers the probe and the map reports `idle` once
            # every tile it shows is drawn; then the screenshot (with the probe's popup).
            png = a.out or os.path.join(work, "map.png")
            os.makedirs(os.path.dirname(os.path.abspath(png)), exist_ok=True)
            page = Browser()
            try:
                page.call("Page.navigate", {"url": f"{base}/?probe={lat},{lon}"}, session=True)
                answer = page.wait_for("(document.getElementById('answer') || {}).textContent", "#answer is empty after the probe")
                page.wait_for("document.body.dataset.idle === '1'", "the map never became idle")
                shot = page.call("Page.captureScreenshot", {"format": "png"}, session=True)
                with open(png, "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
            finally:
                page.close()
            lookup = subprocess.run([a.bin, "lookup", "--tiles", os.path.join(report, "tiles"), "--lat", lat, "--lon", lon, "--json"],
                                    capture_output=True, text=True, check=True).stdout
            if json.loads(answer) != json.loads(lookup):
                raise SystemExit(f"map check: the page's answer differs from lookup:\n{answer}\n{lookup}")
            width, height, rows = read_png(png)
            # The map area right of the panel: pixels neither background nor white/grey text.
            coloured = sum(1 for row in rows[height // 4: 3 * height // 4] for px in row[width // 3:]
                           if max(px) - min(px) > 40)
            print(f"map check: answer equals lookup at {lat},{lon}; {coloured} coloured pixels in the map area; {png}")
            if coloured < 500:
                raise SystemExit("map check: the map area is (nearly) empty")
        finally:
            server.terminate()
            server.wait(timeout=30)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
