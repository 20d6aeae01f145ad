import Foundation

/// `GET /`: the map of the grid (SPEC §14), one HTML page that loads nothing but the server's own
/// URLs: MapLibre GL JS from `/static/`, the vector tiles through `/tilejson.json`, answers from
/// `/v1/safety`. `?probe=LAT,LON` runs the click's code path for that location on load and writes
/// the answer into `#answer` (how the headless-browser test checks a click without a mouse).
enum MapPage {
    static func html(hasMapLibre: Bool, hasEHSA: Bool) -> String {
        let head =
            hasMapLibre
            ? "<link rel=\"stylesheet\" href=\"/static/maplibre-gl.css\"><script src=\"/static/maplibre-gl.js\"></script>"
            : ""
        let missing =
            hasMapLibre
            ? "" : "<p class=\"missing\">\(WebAssets.missingMessage.replacingOccurrences(of: "`", with: ""))</p>"
        let ehsaToggle =
            hasEHSA ? "<label><input type=\"radio\" name=\"layer\" value=\"ehsa\"> EHSA labels</label>" : ""
        return
            template
            .replacingOccurrences(of: "{{head}}", with: head)
            .replacingOccurrences(of: "{{missing}}", with: missing)
            .replacingOccurrences(of: "{{ehsa-toggle}}", with: ehsaToggle)
            .replacingOccurrences(of: "{{has-ehsa}}", with: String(hasEHSA))
    }

    /// The page with four places filled in by `html`: `{{head}}` (MapLibre's files), `{{missing}}`
    /// (the note shown without them), `{{ehsa-toggle}}` and `{{has-ehsa}}` (the EHSA layer).
    static let template = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>areawatch map</title>{{head}}
        <style>
        html,body{margin:0;height:100%;font:14px system-ui,sans-serif;background:#f4f4f2;color:#222}
        #map{position:absolute;inset:0}
        .panel{position:absolute;top:10px;left:10px;background:#fff;padding:8px 10px;border-radius:6px;box-shadow:0 1px 4px #0004;z-index:2;max-width:260px}
        .panel h1{font-size:15px;margin:0 0 6px}
        .legend span{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle;border:1px solid #0003}
        .legend div{margin:2px 0}
        #answer{white-space:pre-wrap;font:11px ui-monospace,monospace;max-height:220px;overflow:auto;margin:6px 0 0}
        .missing{position:absolute;top:40%;left:0;right:0;text-align:center;font-size:16px;padding:0 20px}
        </style></head><body>
        <div id="map">{{missing}}</div>
        <div class="panel"><h1>areawatch</h1>
        <div id="asof"></div>
        <div><label><input type="radio" name="layer" value="class" checked> class</label>
        <label><input type="radio" name="layer" value="change"> change</label>
        {{ehsa-toggle}}</div>
        <div class="legend" id="legend"></div>
        <div><a href="/report.html">report</a></div>
        <pre id="answer"></pre></div>
        <script>
        "use strict";
        const LEGENDS = {
          class: [["safe", "#2e9e5b"], ["medium", "#f0a030"], ["dangerous", "#d7263d"]],
          change: [["rise", "#d7263d"], ["fall", "#2b7bb9"], ["none", "#bbbbbb"]],
          ehsa: [["hot spot", "#d7263d"], ["cold spot", "#2b7bb9"], ["no pattern", "#dddddd"]]
        };
        const answerBox = document.getElementById("answer");
        let map = null, popup = null;

        function legend(kind) {
          document.getElementById("legend").innerHTML = LEGENDS[kind].map(
            ([name, colour]) => `<div><span style="background:${colour}"></span>${name}</div>`).join("");
        }

        // The click's code path: the cell's answer from /v1/safety, shown in the panel and a popup.
        async function showAnswer(lat, lon) {
          const response = await fetch(`/v1/safety?lat=${lat}&lon=${lon}`);
          const text = await response.text();
          answerBox.textContent = text;
          answerBox.dataset.status = String(response.status);
          if (map && window.maplibregl && response.ok) {
            const a = JSON.parse(text);
            const body = document.createElement("div");
            // SPEC §7.1: outside the data's box there is no class to show, only that there is no data.
            body.textContent = a.coverage === "none"
              ? `${a.label}: this report holds no incident within ${a.radius_m} m of here, as of ${a.as_of}`
              : `${a.label} (${a.class}) — current ${a.current ?? "withheld"}, previous ${a.previous ?? "withheld"}` +
                (a.text ? `: ${a.text}` : "") + ` — cell ${a.geohash}, as of ${a.as_of}`;
            if (popup) popup.remove();
            popup = new maplibregl.Popup().setLngLat([lon, lat]).setDOMContent(body).addTo(map);
          }
          return text;
        }

        function setLayer(kind) {
          legend(kind);
          if (!map) return;
          const show = (id, on) => map.getLayer(id) && map.setLayoutProperty(id, "visibility", on ? "visible" : "none");
          show("cells-class", kind === "class");
          show("cells-change", kind === "change");
          show("ehsa", kind === "ehsa");
        }

        async function start() {
          legend("class");
          const tilejson = await (await fetch("/tilejson.json")).json();
          const aw = tilejson.areawatch || {};
          document.getElementById("asof").textContent = aw.as_of ? `as of ${aw.as_of}` : "";
          const probe = new URLSearchParams(location.search).get("probe");
          if (window.maplibregl) {
            const b = tilejson.bounds || [-180, -85, 180, 85];
            map = new maplibregl.Map({
              container: "map", bounds: [[b[0], b[1]], [b[2], b[3]]], fitBoundsOptions: { padding: 20 },
              attributionControl: { compact: false },
              style: { version: 8, sources: {
                  cells: { type: "vector", tiles: tilejson.tiles, minzoom: tilejson.minzoom, maxzoom: tilejson.maxzoom,
                           attribution: tilejson.attribution || "" } },
                layers: [
                  { id: "background", type: "background", paint: { "background-color": "#f4f4f2" } },
                  { id: "cells-class", type: "fill", source: "cells", "source-layer": "cells",
                    paint: { "fill-opacity": 0.75, "fill-outline-color": "#ffffff",
                      "fill-color": ["match", ["get", "class"], "dangerous", "#d7263d", "medium", "#f0a030", "#2e9e5b"] } },
                  { id: "cells-change", type: "fill", source: "cells", "source-layer": "cells", layout: { visibility: "none" },
                    paint: { "fill-opacity": 0.75, "fill-outline-color": "#ffffff",
                      "fill-color": ["match", ["get", "change"], "rise", "#d7263d", "fall", "#2b7bb9", "#bbbbbb"] } }
                ] } });
            map.addControl(new maplibregl.NavigationControl());
            map.on("load", async () => {
              if ({{has-ehsa}}) {
                map.addSource("ehsa", { type: "geojson", data: "/ehsa.geojson" });
                map.addLayer({ id: "ehsa", type: "fill", source: "ehsa", layout: { visibility: "none" },
                  paint: { "fill-opacity": 0.6, "fill-color": ["case",
                    ["in", "hot spot", ["get", "label"]], "#d7263d", ["in", "cold spot", ["get", "label"]], "#2b7bb9", "#dddddd"] } });
              }
              map.on("click", (e) => showAnswer(e.lngLat.lat, e.lngLat.lng));
            });
            map.on("idle", () => { document.body.dataset.idle = "1"; });
          }
          for (const input of document.querySelectorAll("input[name=layer]")) {
            input.addEventListener("change", () => setLayer(input.value));
          }
          if (probe) {
            const [lat, lon] = probe.split(",").map(Number);
            await showAnswer(lat, lon);
          }
        }
        start().catch((e) => { answerBox.textContent = "error: " + e; });
        </script></body></html>

        """
}
