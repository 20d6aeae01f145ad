import AreaWatchStore
import AreaWatchTestSupport
import Foundation
import Testing

/// SPEC §19 end to end: grid.gpkg against the CSVs and GeoJSON beside it, read by GDAL (ogrinfo,
/// ogr2ogr, the GeoPackage validator) and through SQLite; its QGIS styles against the page's
/// legend. A GDAL tool that is not installed is named as skipped.
@Suite("GeoPackage output end to end", .timeLimit(.minutes(60)))
struct GeoPackageCLITests {
    @Test("ogrinfo lists the bundled report's grid, areas and poi layers with the CSVs' rows, fields and extent")
    func bundledLayers() throws {
        let run = try BundledRun.get()
        let path = run.out + "/grid.gpkg"
        guard let ogrinfo = GDAL.tool("ogrinfo") else { return }
        let list = try runTool(ogrinfo, ["-ro", "-q", path])
        #expect(list.status == 0, "\(list)")
        // The bundled areas include one of several parts; the styles are QGIS's attribute table.
        #expect(
            list.stdoutLines.map { $0.trimmingCharacters(in: .whitespaces) }
                == ["1: grid (Polygon)", "2: areas (Multi Polygon)", "3: poi (Point)", "4: layer_styles (None)"],
            "\(list.stdout)")
        for (layer, csv) in [("grid", "grid.csv"), ("areas", "areas.csv"), ("poi", "poi.csv")] {
            let info = try runTool(ogrinfo, ["-ro", "-so", path, layer])
            #expect(info.status == 0 && info.stderr.isEmpty, "\(info)")
            let problems = GDAL.summaryProblems(info.stdout, csv: StrictCSV.parse(try run.file(csv)), layer: layer)
            #expect(problems.isEmpty, "\(problems)")
        }
        let types = String(decoding: try run.file("grid.csvt"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
            .map { $0.replacingOccurrences(of: "\"", with: "") }
        let declared = GDAL.fields(try runTool(ogrinfo, ["-ro", "-so", path, "grid"]).stdout)
        let csvt = types.dropLast().map {
            $0.hasPrefix("Integer") ? "Integer64" : $0.hasPrefix("Real") ? "Real" : "String"
        }
        #expect(declared.map(\.type) == csvt, "ogrinfo's types \(declared), grid.csvt \(types)")
    }

    @Test("every value of the bundled grid.gpkg's layers is the CSV's (NULL where the CSV is empty)")
    func bundledValues() throws {
        let run = try BundledRun.get()
        let db = try SQLiteDatabase(path: run.out + "/grid.gpkg", create: false, readOnly: true, spatiaLite: false)
        for (layer, csv) in [("grid", "grid.csv"), ("areas", "areas.csv"), ("poi", "poi.csv")] {
            let problems = try GeoPackageValues.problems(db, layer: layer, csv: StrictCSV.parse(try run.file(csv)))
            #expect(problems.isEmpty, "\(problems.prefix(10))")
            #expect(try db.scalar("SELECT rtreecheck('rtree_\(layer)_geom')") == .text("ok"), "\(layer)'s R-tree")
        }
        let summary = try JSON.parse(try run.file("summary.json"))
        #expect(summary["files"]?["grid.gpkg"]?.int == run.report["grid.gpkg"]?.count, "summary.json's files lack it")
    }

    @Test("ogr2ogr converts the bundled grid.gpkg to GeoJSON with grid.geojson's and areas.geojson's features")
    func bundledConversion() throws {
        let run = try BundledRun.get()
        guard let ogr2ogr = GDAL.tool("ogr2ogr") else { return }
        let tmp = try TempDir()
        for (layer, geojson) in [("grid", "grid.geojson"), ("areas", "areas.geojson")] {
            let out = tmp.sub("\(layer).geojson")
            let r = try runTool(
                ogr2ogr,
                [
                    "-f", "GeoJSON", "-lco", "COORDINATE_PRECISION=15", out,
                    run.out + "/grid.gpkg", layer
                ], timeout: 300)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r)")
            let problems = GeoJSONCompare.problems(
                try JSON.parse(try readBytes(out)),
                expected: try JSON.parse(try run.file(geojson)), name: layer)
            #expect(problems.isEmpty, "\(problems.prefix(10))")
        }
    }

    @Test("GDAL's GeoPackage validator accepts the bundled report's grid.gpkg")
    func bundledValidates() throws {
        try GDAL.validate(try BundledRun.get().out + "/grid.gpkg")
    }

    @Test("the stored QML and SLD colour the grid, areas and points by class and the EHSA cells by label as the page")
    func styles() throws {
        let run = try BundledRun.get()
        let db = try SQLiteDatabase(path: run.out + "/grid.gpkg", create: false, readOnly: true, spatiaLite: false)
        let legend = PageLegend.classes(try run.text("report.html"))
        try #require(legend.count == 3, "the page's legend: \(legend)")
        for layer in ["grid", "areas", "poi"] {
            let problems = try StyleCheck.problems(db, layer: layer, attribute: "class", expected: legend)
            #expect(problems.isEmpty, "\(problems)")
        }
        let tmp = try TempDir()
        let input = try EHSACLITests.input(tmp)
        let out = tmp.sub("out")
        try areawatchOK([
            "report", "--input", input, "--out", out, "--as-of", EHSACLITests.asOf,
            "--tile-zooms", "none", "--ehsa", "--quiet"
        ])
        let ehsa = try SQLiteDatabase(path: out + "/grid.gpkg", create: false, readOnly: true, spatiaLite: false)
        let labels = PageLegend.hotSpotLabels(try String(contentsOfFile: out + "/report.html", encoding: .utf8))
        try #require(labels.count >= 2, "the page's EHSA labels: \(labels)")
        let problems = try StyleCheck.problems(ehsa, layer: "ehsa", attribute: "label", expected: labels)
        #expect(problems.isEmpty, "\(problems)")
        let values = try GeoPackageValues.problems(
            ehsa, layer: "ehsa",
            csv: StrictCSV.parse(try readBytes(out + "/ehsa.csv")))
        #expect(values.isEmpty, "\(values.prefix(10))")
        try GDAL.validate(out + "/grid.gpkg")
    }

    @Test("--min-cell-count 3: every withheld figure is NULL in grid.gpkg where the CSVs are empty")
    func disclosure() throws {
        let tmp = try TempDir()
        let out = tmp.sub("report")
        try areawatchOK(
            ["report", "--input"] + Array(Datasets.police.suffix(2)) + [
                "--out", out, "--as-of", Datasets.asOf, "--areas", Datasets.areas, "--area-id", "name",
                "--min-cell-count", "3", "--tile-zooms", "none", "--formats", "csv,gpkg", "--quiet"
            ])
        let db = try SQLiteDatabase(path: out + "/grid.gpkg", create: false, readOnly: true, spatiaLite: false)
        for layer in ["grid", "areas"] {
            let problems = try GeoPackageValues.problems(
                db, layer: layer,
                csv: StrictCSV.parse(try readBytes(out + "/\(layer).csv")))
            #expect(problems.isEmpty, "\(problems.prefix(10))")
        }
        #expect(
            try db.integer("SELECT count(*) FROM grid WHERE n_current IS NULL") ?? 0 > 0,
            "no n_current withheld: the test data no longer exercises disclosure control")
        try GDAL.validate(out + "/grid.gpkg")
    }

    @Test("an id property named like another column but for case (Class), FID or Geom: the id column is area_id")
    func areaIDColumn() throws {
        let tmp = try TempDir()
        let box = "[[[-1.9,53.7],[-1.8,53.7],[-1.8,53.75],[-1.9,53.75],[-1.9,53.7]]]"
        for property in ["Class", "FID", "Geom"] {
            let areas = try tmp.file(
                "areas-\(property).geojson",
                """
                {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"\(property)":"Box"},
                "geometry":{"type":"Polygon","coordinates":\(box)}}]}
                """)
            let out = tmp.sub("out-\(property)")
            try areawatchOK([
                "report", "--input", Datasets.police.last!, "--as-of", Datasets.asOf, "--areas", areas,
                "--area-id", property, "--out", out, "--tile-zooms", "none", "--formats", "gpkg",
                "--quiet"
            ])
            let db = try SQLiteDatabase(path: out + "/grid.gpkg", create: false, readOnly: true, spatiaLite: false)
            #expect(try db.scalar("SELECT name FROM pragma_table_info('areas') WHERE cid = 2") == .text("area_id"))
            #expect(try db.integer("SELECT count(*) FROM areas WHERE area_id = 'Box' AND class IS NOT NULL") == 1)
            try GDAL.validate(out + "/grid.gpkg")
        }
    }

    @Test("a report written three times into one folder (the third over the first's spare) has the same grid.gpkg")
    func rewritten() throws {
        let tmp = try TempDir()
        let out = tmp.sub("report")
        var written: [[UInt8]] = []
        for _ in 0..<3 {
            try areawatchOK([
                "report", "--input", Datasets.police.last!, "--out", out, "--as-of", Datasets.asOf,
                "--tile-zooms", "none", "--formats", "csv,gpkg", "--quiet"
            ])
            written.append(try readBytes(out + "/grid.gpkg"))
        }
        #expect(written[1] == written[0] && written[2] == written[0], "grid.gpkg differs between the runs")
        try GDAL.validate(out + "/grid.gpkg")
    }

    @Test("a grid of no cell: a valid grid.gpkg whose grid layer has no row and no extent")
    func emptyGrid() throws {
        let tmp = try TempDir()
        let out = tmp.sub("report")
        let input = try tmp.file("one.csv", "id,lat,lon,time,category\n1,53.72,-1.86,2018-07-01T10:00:00Z,Burglary\n")
        try areawatchOK([
            "report", "--input", input, "--out", out, "--as-of", "2010-01-01T00:00:00Z",
            "--tile-zooms", "none", "--formats", "csv,gpkg", "--quiet"
        ])
        #expect(StrictCSV.parse(try readBytes(out + "/grid.csv")).records.isEmpty, "the grid is not empty")
        let db = try SQLiteDatabase(path: out + "/grid.gpkg", create: false, readOnly: true, spatiaLite: false)
        #expect(try db.integer("SELECT count(*) FROM grid") == 0)
        #expect(try db.integer("SELECT count(*) FROM gpkg_contents WHERE table_name = 'grid' AND min_x IS NULL") == 1)
        if let ogrinfo = GDAL.tool("ogrinfo") {
            let info = try runTool(ogrinfo, ["-ro", "-so", out + "/grid.gpkg", "grid"])
            #expect(info.status == 0 && info.stdout.contains("Feature Count: 0"), "\(info)")
        }
        try GDAL.validate(out + "/grid.gpkg")
    }
}
