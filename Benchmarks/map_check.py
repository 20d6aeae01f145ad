#!/usr/bin/env python3
"""The map page of `areawatch serve` in headless Chromium (`make screenshot`, and the test
ServeMapTests): WebGL by SwiftShader, a screenshot whose map area must hold pixels other than the
background, `/?probe=LAT,LON` (the click's code path) whose answer in `#answer` must equal
`areawatch lookup --json` for the same location, the opening view fitted to the data's bounds,
and no seam at tile edges: at the highest zoom, with a tile corner in the middle of the window,
the pixels on the two sides of each tile edge are compared, and a cell drawn on one side with the
background on the other is a seam (SPEC §14: a cell crossing a tile edge is in both tiles).

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

    size = (1200, 800)

    def __init__(self, width=size[0], height=size[1]):
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


def is_background(px):
    return all(abs(a - b) <= 4 for a, b in zip(px, BACKGROUND))


def is_cell(px):
    return max(px) - min(px) > 40


def edge_pairs(page, clip):
    """The two pixel rows (or columns) on either side of the middle of a 4-pixel-thick strip."""
    shot = page.call("Page.captureScreenshot", {"format": "png", "clip": dict(clip, scale=1)}, session=True)
    path = os.path.join(tempfile.mkdtemp(prefix="map-check-strip-"), "strip.png")
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    width, height, rows = read_png(path)
    shutil.rmtree(os.path.dirname(path), ignore_errors=True)
    if height == 4:
        return list(zip(rows[1], rows[2]))
    return [(row[1], row[2]) for row in rows]


def check_fit(page):
    """The opening view holds the data's box, and the box fills most of the view along one axis
    (the fit's limiting one), unless the tiles' minzoom stops the view from zooming out so far."""
    fit = json.loads(page.evaluate("document.body.dataset.fit"))
    view = json.loads(page.evaluate("document.body.dataset.view"))
    zoom = float(page.evaluate("document.body.dataset.zoom"))
    minzoom = page.evaluate("areawatchMap.getMinZoom()")

    def my(lat):
        return math.log(math.tan(math.radians(45 + lat / 2)))

    share_x = (fit[2] - fit[0]) / (view[2] - view[0])
    share_y = (my(fit[3]) - my(fit[1])) / (my(view[3]) - my(view[1]))
    slack = 1e-6
    inside = view[0] <= fit[0] + slack and view[1] <= fit[1] + slack and fit[2] <= view[2] + slack and fit[3] <= view[3] + slack
    print(f"map check: fit: data box {fit} in view {[round(v, 6) for v in view]} at zoom {zoom:.2f}: "
          f"{share_x:.0%} of the width, {share_y:.0%} of the height")
    if abs(zoom - minzoom) < 1e-6 and not inside:
        cx, cy = (view[0] + view[2]) / 2, (view[1] + view[3]) / 2
        if not (fit[0] <= cx <= fit[2] and fit[1] <= cy <= fit[3]):
            raise SystemExit("map check: at the tiles' minzoom the view is not centred on the data")
        return
    if not inside:
        raise SystemExit("map check: the opening view does not hold the data's bounds")
    if max(share_x, share_y) < 0.5:
        raise SystemExit("map check: the data's bounds fill less than half the view along either axis")


def check_seams(page, tilejson, width, height):
    """Tile corners near the data's centre, at the highest zoom (+0.3, so the tiles of that zoom
    are drawn a little enlarged), put in the middle of the window: the rows (columns) either side
    of the horizontal (vertical) tile edge. Returns (edge pixels with a cell on both sides, seams)."""
    z = tilejson["maxzoom"]
    b = tilejson["areawatch"].get("data_bounds") or tilejson["bounds"]
    lat, lon = (b[1] + b[3]) / 2, (b[0] + b[2]) / 2
    n = 2 ** z
    fx = (lon + 180) / 360 * n
    fy = (1 - math.log(math.tan(math.radians(lat)) + 1 / math.cos(math.radians(lat))) / math.pi) / 2 * n
    page.evaluate("document.querySelectorAll('.maplibregl-popup').forEach((p) => p.remove())")
    panel = page.evaluate("JSON.stringify(document.querySelector('.panel').getBoundingClientRect())")
    panel_right = math.ceil(json.loads(panel)["right"]) + 10
    both = seams = 0
    for dx, dy in ((0, 0), (1, 0), (0, 1), (1, 1), (-1, 0), (0, -1)):
        cx, cy = round(fx) + dx, round(fy) + dy
        corner_lon = cx / n * 360 - 180
        corner_lat = math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * cy / n))))
        page.evaluate("document.body.dataset.idle = ''; "
                      f"areawatchMap.jumpTo({{center: [{corner_lon!r}, {corner_lat!r}], zoom: {z + 0.3}}}); true")
        page.wait_for("document.body.dataset.idle === '1'", "the map never became idle at a tile corner")
        across = edge_pairs(page, {"x": 0, "y": height // 2 - 2, "width": width, "height": 4})[panel_right:width - 60]
        down = edge_pairs(page, {"x": width // 2 - 2, "y": 0, "width": 4, "height": height})[60:height - 40]
        for a, c in across + down:
            if is_cell(a) and is_cell(c):
                both += 1
            elif (is_cell(a) and is_background(c)) or (is_background(a) and is_cell(c)):
                seams += 1
    return both, seams


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
        server, base = start_serve(a, report)
        try:
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
                check_fit(page)
                with open(os.path.join(report, "tiles", "tilejson.json")) as f:
                    tilejson = json.load(f)
                both, seams = check_seams(page, tilejson, *Browser.size)
                print(f"map check: tile edges: {both} edge pixels with a cell on both sides, {seams} with a cell on "
                      "one side and the background on the other")
                if both < 50:
                    raise SystemExit("map check: too few cells across the tile edges to tell whether there are seams")
                if seams > 0:
                    raise SystemExit(f"map check: {seams} seam pixels at tile edges")
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
        check_basemap(a, report)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def start_serve(a, report, *extra):
    """`areawatch serve` on a free port (no access log: nobody reads its pipe); returns it and its base URL."""
    server = subprocess.Popen([a.bin, "serve", report, "--port", "0", "--web-dir", a.web_dir, "--no-access-log", *extra],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    while True:
        line = server.stderr.readline()
        if not line:
            raise SystemExit("map check: serve ended before listening")
        m = re.search(r"listening on (http://[\d.]+:\d+)", line)
        if m:
            return server, m.group(1)


BASEMAP_COLOUR = (0x20, 0x30, 0x40)


def check_basemap(a, report):
    """`--basemap STYLE_URL`: a MapLibre style served here (one background layer of a colour the
    grid never has) is the map's base, the grid's layers are drawn over it at opacity 0.6, and
    the basemap's colour shows in the map area between cells."""
    import http.server
    import threading

    style = json.dumps({"version": 8, "sources": {}, "layers": [
        {"id": "basemap-background", "type": "background", "paint": {"background-color": "#203040"}}]}).encode()

    class Style(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Content-Length", str(len(style)))
            self.end_headers()
            self.wfile.write(style)

        def log_message(self, *args):
            pass

    host = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Style)
    threading.Thread(target=host.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{host.server_address[1]}/style.json?key=test"
    server, base = start_serve(a, report, "--basemap", url)
    try:
        page = Browser()
        try:
            page.call("Page.navigate", {"url": base + "/"}, session=True)
            page.wait_for("document.body.dataset.idle === '1'", "the map with a basemap never became idle")
            layers = page.evaluate("JSON.stringify(areawatchMap.getStyle().layers.map((l) => l.id))")
            opacity = page.evaluate("areawatchMap.getPaintProperty('cells-class', 'fill-opacity')")
            shot = page.call("Page.captureScreenshot", {"format": "png"}, session=True)
            path = os.path.join(tempfile.mkdtemp(prefix="map-check-basemap-"), "map.png")
            with open(path, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        finally:
            page.close()
        width, height, rows = read_png(path)
        shutil.rmtree(os.path.dirname(path), ignore_errors=True)
        area = [px for row in rows[height // 4: 3 * height // 4] for px in row[width // 3:]]
        basemap = sum(1 for px in area if all(abs(p - q) <= 3 for p, q in zip(px, BASEMAP_COLOUR)))
        coloured = sum(1 for px in area if is_cell(px))
        print(f"map check: basemap: layers {layers}, grid opacity {opacity}, {basemap} basemap pixels and "
              f"{coloured} cell pixels in the map area")
        ids = json.loads(layers)
        if not ids or ids[0] != "basemap-background" or "cells-class" not in ids:
            raise SystemExit("map check: the basemap style is not the base with the grid over it")
        if opacity != 0.6 or basemap < 500 or coloured < 500:
            raise SystemExit("map check: the grid is not drawn over the basemap")
    finally:
        server.terminate()
        server.wait(timeout=30)
        host.shutdown()


if __name__ == "__main__":
    sys.exit(main())
