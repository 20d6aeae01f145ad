import AreaWatchCore
import AreaWatchReport
import Foundation

/// `GET /`: the map of the grid (SPEC §14), one HTML page that loads nothing but the server's own
/// URLs: MapLibre GL JS from `/static/`, the vector tiles through `/tilejson.json`, answers from
/// `/v1/safety` — and, only with `--basemap`, that MapLibre style and what it names.
/// `?probe=LAT,LON` runs the click's code path for that location on load and writes the answer
/// into `#answer` (how the headless-browser test checks a click without a mouse).
enum MapPage {
    static func html(
        hasMapLibre: Bool, hasEHSA: Bool, counts: MapLegendCounts = MapLegendCounts(),
        basemap: String? = nil
    ) -> String {
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
            .replacingOccurrences(of: "{{config}}", with: config(hasEHSA: hasEHSA, counts: counts, basemap: basemap))
    }

    /// What the page's script is given: whether there is an EHSA layer, the basemap's style URL,
    /// and per colour mode its legend rows `[name, colour, count]` in the report's colours. EHSA
    /// counts are `null` here: the page counts the locations of ehsa.geojson, which it draws.
    /// `<` is escaped so that no value can end the script element.
    static func config(hasEHSA: Bool, counts: MapLegendCounts, basemap: String?) -> String {
        func rows(_ colours: [(name: String, colour: String)], _ count: [String: Int]?) -> JSONValue {
            .array(
                colours.map { row in
                    .array([.string(row.name), .string(row.colour), count.map { .int($0[row.name] ?? 0) } ?? .null])
                })
        }
        let value = JSONValue.object([
            ("has_ehsa", .bool(hasEHSA)),
            ("basemap", basemap.map { .string($0) } ?? .null),
            (
                "legend",
                .object([
                    ("class", rows(MapColours.classes, counts.classes)),
                    ("change", rows(MapColours.changes, counts.changes)),
                    ("ehsa", rows(MapColours.hotSpotLabels, nil))
                ])
            )
        ])
        return value.serialized().replacingOccurrences(of: "<", with: "\\u003c")
    }

    /// The page with four places filled in by `html`: `{{head}}` (MapLibre's files), `{{missing}}`
    /// (the note shown without them), `{{ehsa-toggle}}` (the EHSA colour mode) and `{{config}}`.
    /// The view opens fitted to the data's bounds (TileJSON `areawatch.data_bounds`, else
    /// `bounds`), never below the tiles' minzoom nor above their maxzoom; once drawn, the page
    /// writes the fitted box and the view's bounds and zoom into `body`'s data attributes (what the
    /// headless-browser test reads).
    static let template = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>areawatch map</title>{{head}}
        <style>
        html,body{margin:0;height:100%;font:14px system-ui,sans-serif;background:#f4f4f2;color:#222}
        #map{position:absolute;inset:0}
        .panel{position:absolute;top:10px;left:10px;background:#fff;padding:8px 10px;border-radius:6px;box-shadow:0 1px 4px #0004;z-index:2;max-width:260px}
        .panel h1{font-size:15px;margin:0 0 6px}
        .legend .swatch{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle;
          border:1px solid #0003}
        .legend div{margin:2px 0}
        .legend .count{float:right;margin-left:12px;font-variant-numeric:tabular-nums;color:#555}
        .legend .what{font-size:11px;color:#666}
        #answer{white-space:pre-wrap;font:11px ui-monospace,monospace;max-height:220px;overflow:auto;margin:6px 0 0}
        .missing{position:absolute;top:40%;left:0;right:0;text-align:center;font-size:16px;padding:0 20px}
        </style></head><body>
        <div id="map">{{missing}}</div>
        <div class="panel"><h1>areawatch</h1>
        <div id="asof"></div>
        <div>Colour by <label><input type="radio" name="layer" value="class" checked> class</label>
        <label><input type="radio" name="layer" value="change"> change</label>
        {{ehsa-toggle}}</div>
        <div class="legend" id="legend"></div>
        <div><a href="/report.html">report</a></div>
        <pre id="answer"></pre></div>
        <script>
        "use strict";
        const CONFIG = {{config}};
        const LAYERS = { class: "cells-class", change: "cells-change", ehsa: "ehsa" };
        const answerBox = document.getElementById("answer");
        let map = null, popup = null, shown = "class";

        // Cells of the report (highest zoom) per class or change; EHSA locations per label (those
        // with none are left out: there are seventeen labels).
        function legend(kind) {
          const rows = CONFIG.legend[kind].filter((row) => kind !== "ehsa" || row[2] > 0);
          const what = kind === "ehsa" ? "locations" : "cells";
          const per = kind === "ehsa" ? "label" : kind;
          document.getElementById("legend").innerHTML = `<div class="what">${what} per ${per}</div>` +
            rows.map(([name, colour, count]) =>
              `<div data-name="${name}"><span class="swatch" style="background:${colour}"></span>${name}` +
              `<span class="count">${count === null ? "" : count.toLocaleString("en")}</span></div>`).join("");
        }

        // A MapLibre colour expression painting `property` with the legend's colours.
        function paint(kind, property) {
          const expression = ["match", ["get", property]];
          for (const [name, colour] of CONFIG.legend[kind]) expression.push(name, colour);
          expression.push("#bbbbbb");
          return expression;
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
                (a.text ? `: ${a.text}` : "") + ` — cell ${a.geohash ?? a.h3}, as of ${a.as_of}`;
            if (popup) popup.remove();
            popup = new maplibregl.Popup().setLngLat([lon, lat]).setDOMContent(body).addTo(map);
          }
          return text;
        }

        function setLayer(kind) {
          shown = kind;
          legend(kind);
          if (!map) return;
          for (const [mode, id] of Object.entries(LAYERS)) {
            if (map.getLayer(id)) map.setLayoutProperty(id, "visibility", mode === kind ? "visible" : "none");
          }
        }

        // The grid over the basemap (or the plain background): seen through where there is a basemap.
        async function addLayers(tilejson) {
          const opacity = CONFIG.basemap ? 0.6 : 0.75;
          map.addSource("cells", { type: "vector", tiles: tilejson.tiles, minzoom: tilejson.minzoom,
                                   maxzoom: tilejson.maxzoom, attribution: tilejson.attribution || "" });
          for (const kind of ["class", "change"]) {
            map.addLayer({ id: LAYERS[kind], type: "fill", source: "cells", "source-layer": "cells",
              layout: { visibility: kind === shown ? "visible" : "none" },
              paint: { "fill-opacity": opacity, "fill-outline-color": "#ffffff", "fill-color": paint(kind, kind) } });
          }
          if (CONFIG.has_ehsa) {
            const data = await (await fetch("/ehsa.geojson")).json();
            const counts = {};
            for (const f of data.features || []) counts[f.properties.label] = (counts[f.properties.label] || 0) + 1;
            for (const row of CONFIG.legend.ehsa) row[2] = counts[row[0]] || 0;
            map.addSource("ehsa", { type: "geojson", data });
            map.addLayer({ id: "ehsa", type: "fill", source: "ehsa",
              layout: { visibility: shown === "ehsa" ? "visible" : "none" },
              paint: { "fill-opacity": opacity, "fill-color": paint("ehsa", "label") } });
            if (shown === "ehsa") legend("ehsa");
          }
        }

        async function start() {
          legend("class");
          const tilejson = await (await fetch("/tilejson.json")).json();
          const aw = tilejson.areawatch || {};
          document.getElementById("asof").textContent = aw.as_of ? `as of ${aw.as_of}` : "";
          const probe = new URLSearchParams(location.search).get("probe");
          if (window.maplibregl) {
            const b = Array.isArray(aw.data_bounds) ? aw.data_bounds : (tilejson.bounds || [-180, -85, 180, 85]);
            const minZoom = tilejson.minzoom ?? 0, maxZoom = tilejson.maxzoom ?? 22;
            const style = CONFIG.basemap || { version: 8, sources: {},
              layers: [{ id: "background", type: "background", paint: { "background-color": "#f4f4f2" } }] };
            // The panel covers the top left: the data is fitted into the rest when the window is wide.
            const left = window.innerWidth > 700 ? 290 : 20;
            map = new maplibregl.Map({ container: "map", style, minZoom, bounds: [[b[0], b[1]], [b[2], b[3]]],
              fitBoundsOptions: { padding: { top: 20, bottom: 30, left, right: 50 }, maxZoom },
              attributionControl: { compact: false } });
            window.areawatchMap = map;
            map.addControl(new maplibregl.NavigationControl());
            map.on("load", async () => {
              await addLayers(tilejson);
              map.on("click", (e) => showAnswer(e.lngLat.lat, e.lngLat.lng));
              document.body.dataset.layers = "1";
            });
            map.on("idle", () => {
              if (document.body.dataset.layers !== "1") return;
              const v = map.getBounds();
              document.body.dataset.fit = JSON.stringify(b);
              document.body.dataset.view = JSON.stringify([v.getWest(), v.getSouth(), v.getEast(), v.getNorth()]);
              document.body.dataset.zoom = String(map.getZoom());
              document.body.dataset.idle = "1";
            });
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

/// The legend's counts (SPEC §14): the report's cells, those of the highest zoom's tiles (the
/// report's precision, withheld counts included), per class and per change.
public struct MapLegendCounts: Sendable, Equatable {
    public var classes: [String: Int] = [:]
    public var changes: [String: Int] = [:]

    public init() {}

    init(cells: [TileID: [String: TileCell]]) {
        for tile in cells.values {
            for cell in tile.values {
                if let c = cell.safetyClass { classes[c.rawValue, default: 0] += 1 }
                changes[(cell.change ?? ChangeDirection.none).rawValue, default: 0] += 1
            }
        }
    }
}
