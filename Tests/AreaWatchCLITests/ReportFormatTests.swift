import AreaWatchTestSupport
import Foundation
import Testing

/// SPEC §8 and docs/FORMATS.md on the report of the bundled nightly job: RFC 7946 GeoJSON,
/// RFC 4180 CSV, the tiles, the summary, and every figure against an independent recomputation.
@Suite("report formats", .timeLimit(.minutes(60)))
struct ReportFormatTests {
    static let attribution =
        "Police data: data.police.uk, contains public sector information licensed under the Open Government Licence v3.0. WatchMe sample: synthetic. Populations: GeoNames (CC BY 4.0)."

    private static let modelGrid = Result {
        try ModelGrid(incidents: Model.all(), asOf: Model.asOf, precision: 7, radius: 1000)
    }

    private static let csv = Result { GridCSV(try BundledRun.get().file("grid.csv"), precision: 7) }
    static func bundledCSV() throws -> GridCSV { try csv.get() }

    private static let geojson = Result {
        GeoJSONCheck.gridProblems(try BundledRun.get().file("grid.geojson"), csv: try bundledCSV(), precision: 7)
    }

    @Test("the report folder holds every output, and nothing else")
    func everyOutput() throws {
        let run = try BundledRun.get()
        let top = Set(run.report.keys.map { String($0.split(separator: "/")[0]) })
        #expect(
            top == [
                "grid.geojson", "grid.csv", "grid.csvt", "grid.prj", "grid.parquet", "areas.geojson",
                "areas.csv", "areas.parquet", "poi.csv", "breakdown.csv", "tiles", "grid.pmtiles",
                "summary.json", "report.html", "timeseries.csv", "nearrepeat.csv", "grid.gpkg",
                ".areawatch-report"
            ])
        #expect(run.report["tiles/tilejson.json"] != nil)
        // Beside it at most the previous report, kept as the spare the next run writes over.
        #expect(
            listFolder(run.dir + "/reports").filter { $0.hasPrefix(".") && !$0.hasSuffix(".spare") }.isEmpty,
            "work folders left: \(listFolder(run.dir + "/reports"))")
        let html = try run.text("report.html")
        #expect(html.hasPrefix("<!DOCTYPE html>") || html.lowercased().hasPrefix("<!doctype html>"))
        #expect(html.contains("<svg"), "no inline SVG heatmap")
        for external in ["src=\"http", "src='http", "<link", "url(http", "@import", "<script src"] {
            #expect(!html.contains(external), "report.html is not self-contained: it has \(external)")
        }
        #expect(html.contains(Datasets.asOf), "report.html does not state the as-of")
    }

    @Test("grid.csv: SPEC §8 columns in order, RFC 4180, sorted, every row consistent; grid.csvt")
    func gridCSV() throws {
        let run = try BundledRun.get()
        let csv = try Self.bundledCSV()
        #expect(csv.problems.isEmpty, "\(csv.problems.prefix(20))")
        #expect(csv.header == GridCSV.specColumns + GridCSV.changeColumns + ["y2015", "y2016", "y2017", "y2018", "wkt"])
        let csvt = csv.csvtProblems(try run.file("grid.csvt"))
        #expect(csvt.isEmpty, "\(csvt)")
        for name in ["areas.csv", "poi.csv", "breakdown.csv"] {
            let problems = StrictCSV.outputProblems(try run.file(name), name: name)
            #expect(problems.isEmpty, "\(problems)")
        }
        // The POI name with a comma is quoted, the others are not.
        let poi = try run.text("poi.csv")
        #expect(poi.contains("\n\"Halifax bus station, Winding Road\","), "\(poi)")
    }

    @Test("grid.geojson: RFC 7946 (checked here), §7.2 properties, the same cells and figures as grid.csv")
    func gridGeoJSON() throws {
        let run = try BundledRun.get()
        let csv = try Self.bundledCSV()
        let (problems, features) = try Self.geojson.get()
        #expect(problems.isEmpty, "\(problems.prefix(20))")
        #expect(features == csv.rows.count)
        let areas = try JSON.parse(try run.file("areas.geojson"))
        #expect(areas["type"]?.string == "FeatureCollection" && areas["crs"] == nil)
        for (k, feature) in (areas["features"]?.array ?? []).enumerated() {
            let p = GeoJSONCheck.geometryProblems(
                feature["geometry"] ?? .null, at: "areas.geojson feature \(k)", allowMulti: true)
            #expect(p.isEmpty, "\(p)")
        }
    }

    @Test("the RFC 7946 check fails on what RFC 7946 forbids")
    func rfc7946CheckBites() throws {
        func problems(_ coordinates: String, type: String = "Polygon") throws -> [String] {
            GeoJSONCheck.geometryProblems(
                try JSON.parse("{\"type\":\"\(type)\",\"coordinates\":\(coordinates)}"), at: "g")
        }
        #expect(try problems("[[[0,0],[1,0],[1,1],[0,1],[0,0]]]").isEmpty)
        #expect(try !problems("[[[0,0],[0,1],[1,1],[1,0],[0,0]]]").isEmpty, "clockwise exterior")
        #expect(try !problems("[[[0,0],[1,0],[1,1],[0,1]]]").isEmpty, "open ring")
        #expect(try !problems("[[[0,0],[1,0],[1,1],[0,1],[0,0.0000001]]]").isEmpty, "7 decimals")
        #expect(try !problems("[[[0,0],[181,0],[181,1],[0,1],[0,0]]]").isEmpty, "out of range")
        #expect(try !problems("[[0,0]]", type: "Point").isEmpty, "not a polygon")
        #expect(
            try !GeoJSONCheck.geometryProblems(
                JSON.parse("{\"type\":\"Polygon\",\"crs\":{},\"coordinates\":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]}"),
                at: "g"
            ).isEmpty)
    }

    @Test(
        "grid.geojson loads with Python's json module",
        .enabled(if: findTool("python3") != nil, "python3 is not installed"))
    func pythonLoads() throws {
        let run = try BundledRun.get()
        let python = try #require(findTool("python3"))
        let script = """
            import json, sys
            def no_constants(name): raise ValueError("non-standard JSON constant " + name)
            counts = []
            for path in sys.argv[1:]:
                with open(path, encoding="utf-8") as f:
                    doc = json.load(f, parse_constant=no_constants)
                counts.append(str(len(doc["features"])) if "features" in doc else "-")
            print(" ".join(counts))
            """
        let files = ["grid.geojson", "areas.geojson", "summary.json", "tiles/tilejson.json"].map { run.out + "/" + $0 }
        let r = try runTool(python, ["-c", script] + files)
        #expect(r.status == 0, "\(r)")
        let csv = try Self.bundledCSV()
        #expect(r.stdout.split(separator: " ").first.map(String.init) == String(csv.rows.count), "\(r)")
    }

    @Test(
        "grid.geojson and grid.csv open in GDAL (ogrinfo) as polygon layers with every cell",
        .enabled(
            if: findTool("ogrinfo") != nil,
            "ogrinfo is not installed (Debian package gdal-bin; `make test-deps` installs it)"))
    func ogrinfo() throws {
        let run = try BundledRun.get()
        let ogrinfo = try #require(findTool("ogrinfo"))
        let cells = try Self.bundledCSV().rows.count
        let layers = try runTool(ogrinfo, ["-ro", "-so", run.out + "/grid.geojson"])
        #expect(layers.status == 0 && layers.stdout.contains("grid (Polygon)"), "\(layers)")
        let geojson = try runTool(ogrinfo, ["-ro", "-so", "-al", run.out + "/grid.geojson"])
        #expect(geojson.status == 0, "\(geojson)")
        #expect(geojson.stdoutLines.contains("Geometry: Polygon"), "\(geojson)")
        #expect(geojson.stdoutLines.contains("Feature Count: \(cells)"), "\(geojson)")
        #expect(!geojson.stderr.contains("ERROR") && !geojson.stderr.contains("Warning"), "\(geojson)")

        let csv = try runTool(ogrinfo, ["-ro", "-so", "-al", run.out + "/grid.csv"])
        #expect(csv.status == 0, "\(csv)")
        #expect(csv.stdoutLines.contains("Feature Count: \(cells)"), "\(csv)")
        // The WKT column is read as the geometry (thanks to grid.csvt); the CSV driver does not
        // scan rows for the layer type, so ask GDAL the type of every row's geometry.
        #expect(csv.stdout.contains("Geometry Column = "), "grid.csv's WKT is not read as geometry: \(csv)")
        // grid.prj declares the coordinate system, longitude first for the data.
        #expect(
            csv.stdout.contains("ID[\"EPSG\",4326]") && csv.stdoutLines.contains("Data axis to CRS axis mapping: 2,1"),
            "GDAL does not read EPSG:4326 from grid.prj: \(csv)")
        #expect(
            csv.stdoutLines.contains("n_current: Integer (0.0)") && csv.stdoutLines.contains("pct: Real (0.0)"),
            "\(csv)")
        let types = try runTool(
            ogrinfo,
            [
                "-ro", run.out + "/grid.csv", "-dialect", "sqlite", "-sql",
                "SELECT GeometryType(geom_wkt) AS t, count(*) AS n FROM grid GROUP BY t"
            ])
        #expect(types.status == 0, "\(types)")
        #expect(
            types.stdoutLines.contains("  t (String) = POLYGON")
                && types.stdoutLines.contains("  n (Integer) = \(cells)"),
            "not every grid.csv row is a polygon for GDAL: \(types)")
    }

    @Test(
        "tiles: TileJSON 3.0.0, every tile parses, precision p at max zoom and merged below, a merged cell is the max of its children"
    )
    func tiles() throws {
        let run = try BundledRun.get()
        let csv = try Self.bundledCSV()
        let problems = TileCheck.problems(
            report: run.report, csv: csv, precision: 7, zooms: 10...14, asOf: Datasets.asOf,
            attribution: Self.attribution)
        #expect(problems.isEmpty, "\(problems.prefix(20))")
        #expect(
            run.report.keys.contains { $0.hasPrefix("tiles/14/") }
                && run.report.keys.contains { $0.hasPrefix("tiles/10/") })
    }

    @Test("summary.json: totals, grid counts and file sizes equal grid.csv, grid.geojson and the inputs")
    func summary() throws {
        let run = try BundledRun.get()
        let csv = try Self.bundledCSV()
        let model = try Self.modelGrid.get()
        let features = try Self.geojson.get().1
        let problems = summaryProblems(
            try run.file("summary.json"), csv: csv, features: features, model: model, report: run.report)
        #expect(problems.isEmpty, "\(problems)")
        let s = try JSON.parse(try run.file("summary.json"))
        #expect(s["as_of"]?.string == Datasets.asOf)
        #expect(s["inputs"]?.array?.count == 5)
        let years = s["totals"]?["years"]?.members.map { ($0.0, $0.1.int ?? -1) } ?? []
        var modelYears: [Int: Int] = [:]
        for i in try Model.all() where i.time <= Model.asOf { modelYears[Civil.year(i.time), default: 0] += 1 }
        #expect(
            years.map(\.0) == modelYears.keys.sorted().map(String.init)
                && years.map(\.1) == modelYears.keys.sorted().map { modelYears[$0]! })
        let rejects = s["rejects_by_reason"]?.members.map(\.0) ?? []
        #expect(
            Set(rejects) == [
                "malformed_record", "missing_coordinates", "invalid_coordinates", "null_island", "missing_time",
                "invalid_time"
            ])
    }

    @Test("every cell and figure of grid.csv equals an independent recomputation from the bundled inputs")
    func gridAgainstModel() throws {
        let model = try Self.modelGrid.get()
        let csv = try Self.bundledCSV()
        let problems = modelProblems(csv: csv, model: model)
        #expect(problems.isEmpty, "\(problems.prefix(20))")
        #expect(csv.rows.reduce(0) { $0 + $1.nCurrent } == model.current)
        // Pairs closer to the radius than 1e-6 m could go either way; there are none here.
        #expect(model.undecidedPairs == 0, "undecidable pairs: \(model.undecidedPairs)")

        // The comparison bites: one count off, one cell lost.
        var changed = csv
        changed.rows[0].nCurrent += 1
        #expect(!modelProblems(csv: changed, model: model).isEmpty)
        changed = csv
        changed.rows.remove(at: changed.rows.count / 2)
        #expect(!modelProblems(csv: changed, model: model).isEmpty)
    }

    @Test(
        "the WatchMe exports alone: cells, classes and sums agree across grid.csv, grid.geojson, summary.json, the manifest and the model"
    )
    func watchmeOnly() throws {
        let tmp = try TempDir()
        let out = tmp.sub("watchme")
        try areawatchOK(
            ["report", "--input"] + Datasets.watchme + [
                "--out", out, "--as-of", Datasets.asOf, "--tile-zooms", "13-14", "--quiet"
            ])
        let report = try readTree(out)
        let csv = GridCSV(try #require(report["grid.csv"]), precision: 7)
        #expect(csv.problems.isEmpty, "\(csv.problems.prefix(10))")
        let (geoProblems, features) = GeoJSONCheck.gridProblems(
            try #require(report["grid.geojson"]), csv: csv, precision: 7)
        #expect(geoProblems.isEmpty, "\(geoProblems.prefix(10))")
        var posts: [String: ModelIncident] = [:]
        for export in try Model.watchme() { for (id, p) in export.posts { posts[id] = p } }
        let model = ModelGrid(incidents: Array(posts.values), asOf: Model.asOf, precision: 7, radius: 1000)
        let summary = summaryProblems(
            try #require(report["summary.json"]), csv: csv, features: features, model: model, report: report)
        #expect(summary.isEmpty, "\(summary)")
        let modelIssues = modelProblems(csv: csv, model: model)
        #expect(modelIssues.isEmpty, "\(modelIssues.prefix(20))")
        // The manifest's windows for the later export at the as-of.
        let manifest = try JSON.parse(try readBytes(dataset("watchme/manifest.json")))
        let windows = manifest["files"]?["watchme-export-2018-08-01-edits.json"]?["windows"]?.array?.first {
            $0["as_of"]?.string == Datasets.asOf
        }
        let s = try JSON.parse(try #require(report["summary.json"]))
        #expect(
            s["totals"]?["current"] == windows?["current"] && s["totals"]?["previous"] == windows?["previous"]
                && s["excluded_future"] == windows?["excluded_future"]
                && s["totals"]?["older"] == windows?["older_than_previous"],
            "\(s["totals"]?.description ?? "-") vs \(windows?.description ?? "-")")
        let tiles = TileCheck.problems(report: report, csv: csv, precision: 7, zooms: 13...14, asOf: Datasets.asOf)
        #expect(tiles.isEmpty, "\(tiles.prefix(10))")
    }
}
