import AreaWatchTestSupport
import Foundation
import Testing

/// Even-odd point-in-polygon in (lon, lat) (RFC 7946 edges), holes by the same rule.
func inside(_ lon: Double, _ lat: Double, rings: [[(Double, Double)]]) -> Bool {
    var count = 0
    for ring in rings {
        var j = ring.count - 1
        for i in 0..<ring.count {
            let (xi, yi) = ring[i], (xj, yj) = ring[j]
            if (yi > lat) != (yj > lat) && lon < (xj - xi) * (lat - yi) / (yj - yi) + xi { count += 1 }
            j = i
        }
    }
    return count % 2 == 1
}

/// Area on the sphere of R = 6,371,008.8 m (FORMATS.md): Σ Δλ·(2 + sin φ1 + sin φ2)·R²/2 over
/// each ring, holes subtracted; km².
func sphericalAreaKm2(_ polygons: [[[(Double, Double)]]]) -> Double {
    let r = Double.pi / 180
    var total = 0.0
    for rings in polygons {
        for (k, ring) in rings.enumerated() {
            var sum = 0.0
            for i in 0..<(ring.count - 1) {
                sum += (ring[i + 1].0 - ring[i].0) * r * (2 + sin(ring[i].1 * r) + sin(ring[i + 1].1 * r))
            }
            let a = abs(sum * Sphere.radius * Sphere.radius / 2)
            total += k == 0 ? a : -a
        }
    }
    return total / 1e6
}

/// The bundled named areas: (name, id, polygons of rings of (lon, lat)).
func bundledAreas() throws -> [(name: String, id: String, polygons: [[[(Double, Double)]]])] {
    let doc = try JSON.parse(try readBytes(Datasets.areas))
    return try (doc["features"]?.array ?? []).map { f in
        let geometry = try #require(f["geometry"])
        func ring(_ j: JSON) -> [(Double, Double)] {
            (j.array ?? []).compactMap { p in
                p.array.flatMap { $0.count >= 2 ? ($0[0].double ?? 0, $0[1].double ?? 0) : nil }
            }
        }
        let polygons: [[[(Double, Double)]]] =
            geometry["type"]?.string == "Polygon"
            ? [(geometry["coordinates"]?.array ?? []).map(ring)]
            : (geometry["coordinates"]?.array ?? []).map { ($0.array ?? []).map(ring) }
        return (try #require(f["properties"]?["name"]?.string), f["id"]?.numberText ?? f["id"]?.string ?? "", polygons)
    }
}

@Suite("report and run commands", .timeLimit(.minutes(60)))
struct ReportCommandTests {
    static let inputs = Array(Datasets.police.suffix(2))

    static func policeIncidents() throws -> [ModelIncident] {
        try Model.police().suffix(2).flatMap(\.incidents)
    }

    // --min-cell-count has its own end-to-end tests (DisclosureCLITests); here every figure is exact.
    @Test("report --areas/--area-id, --poi, --group-by, --tile-zooms: every output, every figure")
    func reportOptions() throws {
        let tmp = try TempDir()
        let out = tmp.sub("reports/options")
        let r = try areawatchOK(
            ["report", "--input"] + Self.inputs + [
                "--out", out, "--as-of", Datasets.asOf, "--precision", "6", "--areas", Datasets.areas, "--area-id",
                "name",
                "--poi", Datasets.poi, "--group-by", "category", "--tile-zooms", "11-13"
            ])
        #expect(r.stdout.contains("report: \(out)"), "\(r)")
        let report = try readTree(out)
        let top = Set(report.keys.map { String($0.split(separator: "/")[0]) })
        #expect(
            top == [
                "grid.geojson", "grid.csv", "grid.csvt", "grid.prj", "grid.parquet", "areas.geojson",
                "areas.csv", "areas.parquet", "poi.csv", "breakdown.csv", "tiles", "grid.pmtiles",
                "summary.json", "report.html", "timeseries.csv", "grid.gpkg", ".areawatch-report"
            ])
        let incidents = try Self.policeIncidents()
        let model = ModelGrid(incidents: incidents, asOf: Model.asOf, precision: 6, radius: 1000)

        // Grid: the same cells and counts in the CSV, the GeoJSON and the tiles.
        let csv = GridCSV(try #require(report["grid.csv"]), precision: 6)
        #expect(csv.problems.isEmpty, "\(csv.problems.prefix(10))")
        let modelIssues = modelProblems(csv: csv, model: model)
        #expect(modelIssues.isEmpty, "\(modelIssues.prefix(10))")
        let (geo, features) = GeoJSONCheck.gridProblems(try #require(report["grid.geojson"]), csv: csv, precision: 6)
        #expect(geo.isEmpty, "\(geo.prefix(10))")
        let summary = summaryProblems(
            try #require(report["summary.json"]), csv: csv, features: features, model: model, report: report)
        #expect(summary.isEmpty, "\(summary)")
        let tiles = TileCheck.problems(report: report, csv: csv, precision: 6, zooms: 11...13, asOf: Datasets.asOf)
        #expect(tiles.isEmpty, "\(tiles.prefix(10))")
        #expect(
            Set(
                report.keys.filter { $0.hasPrefix("tiles/") && $0 != "tiles/tilejson.json" }.map {
                    $0.split(separator: "/")[1]
                }) == ["11", "12", "13"])
        let s = try JSON.parse(try #require(report["summary.json"]))
        #expect(s["parameters"]?["min_cell_count"]?.int == 1 && s["parameters"]?["precision"]?.int == 6)
        #expect(s["parameters"]?["tile_zooms"] == .array([.number("11"), .number("13")]))
        let current = try #require(s["totals"]?["current"]?.int)

        // Areas: input order, spherical area, density-equivalent class, counts by point-in-polygon.
        let areas = try bundledAreas()
        let areasCSV = StrictCSV.parse(try #require(report["areas.csv"]))
        #expect(
            areasCSV.header == [
                "name", "n_current", "n_previous", "delta", "pct", "handled", "area_km2", "density_equivalent", "class",
                "p_change", "q_change", "change", "y2017", "y2018"
            ])
        let windows = Windows(asOf: Model.asOf)
        var assigned = 0
        for (row, area) in zip(areasCSV.dictionaries, areas) {
            #expect(row["name"] == area.name)
            let mine = incidents.filter { i in area.polygons.contains { inside(i.lon, i.lat, rings: $0) } }
            let nc = mine.filter { windows.window($0.time) == .current }.count
            let np = mine.filter { windows.window($0.time) == .previous }.count
            assigned += nc
            #expect(row["n_current"] == String(nc) && row["n_previous"] == String(np), "\(area.name): \(row)")
            let km2 = sphericalAreaKm2(area.polygons)
            #expect(
                abs((Double(row["area_km2"] ?? "") ?? 0) - km2) <= 0.00005 + 1e-9,
                "\(area.name): area \(row["area_km2"] ?? "-") vs \(km2)")
            let density = Double(nc) * Double.pi * 1e6 / (km2 * 1e6)
            #expect(
                abs((Double(row["density_equivalent"] ?? "") ?? 0) - density) <= 0.005 + 1e-6, "\(area.name): density")
            #expect(row["class"] == (density < 5 ? "safe" : density < 10 ? "medium" : "dangerous"), "\(area.name)")
        }
        #expect(areasCSV.records.count == areas.count)
        let areasGeo = try JSON.parse(try #require(report["areas.geojson"]))
        #expect(areasGeo["features"]?.array?.count == areas.count)
        #expect(
            areasGeo["unassigned"]?["current"]?.int == current - assigned,
            "areas do not overlap: current = Σ areas + unassigned")

        // Points of interest: the §7.1 answer at each, in input order.
        let poiRows = StrictCSV.parse(try #require(report["poi.csv"]))
        #expect(
            poiRows.header == [
                "name", "lat", "lon", "radius_m", "as_of", "current", "previous", "delta", "pct", "handled", "class",
                "p_change", "q_change", "change", "label", "text"
            ])
        let poiInput = StrictCSV.parse(try readBytes(Datasets.poi)).dictionaries
        #expect(poiRows.records.count == poiInput.count)
        for (row, poi) in zip(poiRows.dictionaries, poiInput) {
            #expect(row["name"] == poi["name"])
            let lat = try #require(Double(poi["lat"] ?? "")), lon = try #require(Double(poi["lon"] ?? ""))
            let answer = ModelAnswer(incidents: incidents, lat: lat, lon: lon, asOf: Model.asOf)
            let c = Int(row["current"] ?? "") ?? -1, p = Int(row["previous"] ?? "") ?? -1
            #expect(
                answer.current.contains(c) && answer.previous.contains(p)
                    && answer.handled.contains(Int(row["handled"] ?? "") ?? -1),
                "\(poi["name"] ?? ""): \(row) vs \(answer)")
            #expect(
                row["class"] == classify(c) && row["label"] == label(of: classify(c)) && row["as_of"] == Datasets.asOf
                    && row["radius_m"] == "1000")
        }

        // Breakdown by category: the window counts per value, sorted by value.
        let breakdown = StrictCSV.parse(try #require(report["breakdown.csv"]))
        #expect(
            breakdown.header == [
                "category", "current", "previous", "delta", "pct", "p_change", "q_change", "change", "y2017", "y2018"
            ])
        var byCategory: [String: (Int, Int)] = [:]
        for i in incidents {
            var v = byCategory[i.category ?? ""] ?? (0, 0)
            switch windows.window(i.time) {
            case .current: v.0 += 1
            case .previous: v.1 += 1
            default: break
            }
            byCategory[i.category ?? ""] = v
        }
        let values = breakdown.records.map { $0.fields[0] }
        #expect(values == byCategory.keys.sorted())
        for row in breakdown.dictionaries {
            let expected = byCategory[row["category"] ?? ""] ?? (-1, -1)
            #expect(row["current"] == String(expected.0) && row["previous"] == String(expected.1), "\(row)")
        }
    }

    @Test("report --area-id id names areas by the id property; --tile-zooms none writes no tiles")
    func areaIdAndNoTiles() throws {
        let tmp = try TempDir()
        let out = tmp.sub("out")
        // Feature ids are feature members here, not properties: --area-id falls back to the id.
        try areawatchOK([
            "report", "--input", Self.inputs[1], "--out", out, "--as-of", Datasets.asOf, "--precision", "5",
            "--areas", Datasets.areas, "--area-id", "id", "--tile-zooms", "none", "--quiet"
        ])
        let areas = StrictCSV.parse(try readBytes(out + "/areas.csv"))
        #expect(areas.header.first == "id")
        #expect(
            areas.records.map { $0.fields[0] } == (try bundledAreas()).map(\.id),
            "\(areas.records.map { $0.fields[0] })")
        #expect(!exists(out + "/tiles"))
        let s = try JSON.parse(try readBytes(out + "/summary.json"))
        #expect(s["tiles"]?.int == 0 && s["parameters"]?["tile_zooms"] == .null)
    }

    @Test("a bad --areas or --poi file: exit 2 naming it, nothing published", arguments: ["--areas", "--poi"])
    func badAuxiliaryFile(_ option: String) throws {
        let tmp = try TempDir()
        let bad = try tmp.file("bad.geojson", "{\"type\":\"FeatureCollection\",\"features\":[")
        let out = tmp.sub("out")
        let r = try areawatch(["report", "--input", Self.inputs[1], "--out", out, "--as-of", Datasets.asOf, option, bad]
        )
        #expect(r.status == 2, "\(r)")
        #expect(r.stderrLines.contains { $0.contains(bad) }, "\(r)")
        #expect(!exists(out))
        #expect(listFolder(tmp.path) == ["bad.geojson"], "\(listFolder(tmp.path))")
    }

    @Test("run: the second run ingests nothing and rewrites byte-identical reports (except timings_s)")
    func runTwice() throws {
        let run = try BundledRun.get()
        let first = IngestTable(run.first.stdout), second = IngestTable(run.second.stdout)
        #expect(first.rows.count == 5, "\(run.first)")
        #expect(first.rows.values.allSatisfy { $0.first != "skipped (already ingested)" })
        #expect(
            second.rows.count == 5 && second.rows.values.allSatisfy { $0.first == "skipped (already ingested)" },
            "\(run.second)")
        #expect(run.second.stdout.contains("report: "), "\(run.second)")
        let differences = reportDifferences(run.firstReport, run.report)
        #expect(differences.isEmpty, "\(differences)")
        #expect(!run.report.isEmpty)
        let stored = try StoreProbe.snapshot(run.store)
        #expect(stored.count == (try Model.all()).count && stored.ingestedFiles.count == 5, "\(stored)")
        #expect(exists(run.rejects))
    }

    @Test(
        "run: configuration errors are usage errors (exit 1) naming the problem",
        arguments: [
            ("store = \"s.db\"\nout = \"out\"\ncolour = \"blue\"\n", "colour"),
            ("store = \"s.db\"\nout = \"out\"\n[report]\nprecison = 7\n", "precison"),
            ("store = \"s.db\"\nout = \"out\"\n[query]\nradius = \"far\"\n", "radius"),
            ("store = \"s.db\"\nout = \"out\"\n[query]\nthresholds = [10, 5]\n", "thresholds"),
            ("store = \"s.db\"\nout = \"out\"\n[report]\ntile_zooms = \"ten\"\n", "tile_zooms"),
            ("out = \"out\"\n", "store"),
            ("store = \"s.db\"\nout = \"out\"\n[inbox\n", "line")
        ])
    func configErrors(_ config: String, _ mentioned: String) throws {
        let tmp = try TempDir()
        try tmp.folder("inbox")
        let path = try tmp.file("job.toml", config)
        let r = try areawatch(["run", "--config", path])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderrLines.contains { $0.contains(mentioned) && $0.contains("job.toml") }, "\(r)")
        #expect(!exists(tmp.sub("s.db")) && !exists(tmp.sub("out")), "\(listFolder(tmp.path))")
    }

    @Test("run: a missing config file is exit 2; an input error in the inbox is exit 2 with the reports still written")
    func runInputError() throws {
        let tmp = try TempDir()
        let missing = try areawatch(["run", "--config", tmp.sub("nope.toml")])
        #expect(missing.status == 2 && missing.stderr.contains("nope.toml"), "\(missing)")

        try tmp.file("inbox/a.csv", "id,lat,lon,time\na,53.72,-1.86,2018-05-01\n")
        try tmp.file("inbox/b.json", "[{\"id\":\"b\",\"lat\":53.7,")
        try tmp.file("inbox/c.csv", "id,lat,lon,time\nc,53.73,-1.87,2018-05-02\n")
        let config = try tmp.file(
            "job.toml",
            "store = \"s.db\"\nout = \"out\"\n[query]\nas_of = \"\(Datasets.asOf)\"\n[report]\ntile_zooms = \"14\"\n")
        let r = try areawatch(["run", "--config", config])
        #expect(r.status == 2, "\(r)")
        #expect(r.stderrLines.contains { $0.hasPrefix("areawatch: \(tmp.sub("inbox/b.json")): line 1") }, "\(r)")
        let stored = try StoreProbe.snapshot(tmp.sub("s.db"))
        #expect(
            stored.count == 2 && stored.ingestedFiles == [tmp.sub("inbox/a.csv"), tmp.sub("inbox/c.csv")], "\(stored)")
        let s = try JSON.parse(try readBytes(tmp.sub("out/summary.json")))
        #expect(s["totals"]?["current"]?.int == 2)
    }
}
