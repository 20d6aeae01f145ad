import AreaWatchCore
import AreaWatchStore
import AreaWatchTestSupport
import Foundation
import Testing

/// `report --ehsa --ehsa-grid h3:R` end to end (SPEC §13, §18) through the built binary, on the
/// bundled police files: the locations against the test's own reading of the inputs, every
/// format's `h3` column and hexagons, the summary, the page, and the option's refusals.
@Suite("emerging hot spots on H3 (SPEC §18)", .timeLimit(.minutes(60)))
struct EHSAH3CLITests {
    static let inputs = Array(Datasets.police.suffix(2))

    @discardableResult
    static func report(_ out: String, _ options: [String]) throws -> CommandResult {
        try areawatchOK(
            ["report", "--input"] + Self.inputs
                + ["--out", out, "--as-of", Datasets.asOf, "--tile-zooms", "none", "--ehsa"] + options)
    }

    /// Counter-clockwise rings have positive area in the lon/lat plane.
    static func signedArea(_ ring: [[Double]]) -> Double {
        var twice = 0.0
        for k in 0..<(ring.count - 1) { twice += ring[k][0] * ring[k + 1][1] - ring[k + 1][0] * ring[k][1] }
        return twice / 2
    }

    @Test("--ehsa-grid h3:7: ehsa.csv, geojson, parquet, gpkg, summary and page name H3 cells, one per occupied cell")
    func h3Outputs() throws {
        let tmp = try TempDir()
        let out = tmp.sub("out")
        let r = try Self.report(out, ["--ehsa-grid", "h3:7"])
        #expect(r.stderr.contains("emerging hot spots: H3 resolution 7 cells × 24 months"), "\(r.stderr)")

        // The locations: every resolution-7 cell holding an incident of the 24 months before the as-of.
        let asOf = Civil.parseISO(Datasets.asOf)!, start = Civil.parseISO("2016-07-31T23:59:59Z")!
        let incidents = try Model.police().flatMap(\.incidents).filter { $0.time > start && $0.time <= asOf }
        let expected = Set(incidents.map { H3.cell(lat: $0.lat, lon: $0.lon, resolution: 7).text })
        #expect(expected.count > 10)

        let bytes = try readBytes(out + "/ehsa.csv")
        let csv = StrictCSV.parse(bytes)
        #expect(csv.violations.isEmpty, "\(csv.violations)")
        #expect(
            Array(csv.header.prefix(11)) == [
                "h3", "lat", "lon", "label", "trend_z", "trend_p", "tau", "hot_steps", "cold_steps", "z_last", "q_last"
            ])
        #expect(csv.header.count == 11 + 24 + 1 && csv.header.last == "wkt")
        let ids = csv.records.map { $0.fields[0] }
        #expect(ids == expected.sorted(), "every occupied cell once, ascending index (= text) order")
        for row in csv.dictionaries {
            let id = row["h3"] ?? ""
            let cell = try #require(H3Cell(id))
            #expect(id.count == 15 && id == id.lowercased() && cell.resolution == 7)
            #expect(row["lat"] == String(format: "%.6f", cell.centre.lat))
            #expect(row["lon"] == String(format: "%.6f", cell.centre.lon))
            let wkt = row["wkt"] ?? ""
            #expect(wkt.hasPrefix("POLYGON ((") && wkt.hasSuffix("))"), "\(id): \(wkt)")
            let points = ParquetCheck.wktPoints(wkt)
            #expect(points.count == cell.boundary.count + 1 && points.first == points.last, "\(id): closed")
            #expect(Self.signedArea(points) > 0, "\(id): counter-clockwise")
        }

        let geo = try JSON.parse(try readBytes(out + "/ehsa.geojson"))
        #expect(geo["grid"]?.string == "h3:7" && geo["precision"] == nil && geo["steps"]?.int == 24)
        let features = try #require(geo["features"]?.array)
        #expect(features.map { $0["id"]?.string ?? "" } == ids)
        #expect(features.map { $0["properties"]?["h3"]?.string ?? "" } == ids)
        #expect(features.allSatisfy { $0["properties"]?["geohash"] == nil })
        for (f, row) in zip(features, csv.dictionaries) {
            #expect(f["geometry"]?["type"]?.string == "Polygon")
            let ring = (f["geometry"]?["coordinates"]?[0]?.array ?? []).map { ($0.array ?? []).compactMap(\.double) }
            #expect(ring == ParquetCheck.wktPoints(row["wkt"] ?? ""), "the polygon of ehsa.csv and grid.geojson")
            #expect(f["properties"]?["label"]?.string == row["label"])
        }

        let summary = try JSON.parse(try readBytes(out + "/summary.json"))
        let ehsa = summary["ehsa"]
        #expect(ehsa?["grid"]?.string == "h3:7" && ehsa?["precision"] == nil, "\(summary)")
        #expect(ehsa?["locations"]?.int == ids.count && ehsa?["bins"]?.int == ids.count * 24)
        let mean = try #require(ehsa?["mean"]?.double)
        #expect(abs(mean - Double(incidents.count) / Double(ids.count * 24)) < 1e-12)

        let parquet = ParquetCheck.problems(try readBytes(out + "/ehsa.parquet"), csv: bytes, name: "ehsa")
        #expect(parquet.isEmpty, "\(parquet.prefix(10))")
        let db = try SQLiteDatabase(path: out + "/grid.gpkg", create: false, readOnly: true, spatiaLite: false)
        let gpkg = try GeoPackageValues.problems(db, layer: "ehsa", csv: csv)
        #expect(gpkg.isEmpty, "\(gpkg.prefix(10))")

        let html = try readText(out + "/report.html")
        #expect(html.contains("H3 resolution 7 cells × 24 monthly steps"))
        // The map draws every location as its hexagon, in the colour of its label.
        #expect(html.contains("class=\"ehsa-map\" data-cells=\"\(ids.count)\""))
        #expect(html.contains("Emerging hot spots by H3 resolution 7 cell"))
        let drawn = html.matches(of: #/<path d="M-?\d+ -?\d+l[-\d ]*z"><title>([0-9a-f]{15}) · ([^·<]+) · /#)
        #expect(drawn.map { String($0.1) }.sorted() == ids.sorted(), "every location drawn once")
        let labelOf = Dictionary(uniqueKeysWithValues: csv.dictionaries.map { ($0["h3"] ?? "", $0["label"] ?? "") })
        #expect(drawn.allSatisfy { labelOf[String($0.1)] == String($0.2) }, "each in its label")
        #expect(html.contains("<th>h3</th>") && html.contains("<td class=\"mono\">\(ids[0])</td>") || ids.count > 50)
    }

    @Test("--ehsa-precision 5 and --ehsa-grid geohash:5 (either case, or both) write the same bytes")
    func geohashForms() throws {
        let tmp = try TempDir()
        var files: [[UInt8]] = []
        let forms = [
            ["--ehsa-precision", "5"], ["--ehsa-grid", "geohash:5"],
            ["--ehsa-grid", "GEOHASH:5", "--ehsa-precision", "5"]
        ]
        for (k, options) in forms.enumerated() {
            let out = tmp.sub("g\(k)")
            try Self.report(out, options + ["--quiet"])
            files.append(try readBytes(out + "/ehsa.csv") + readBytes(out + "/ehsa.geojson"))
            let summary = try JSON.parse(try readBytes(out + "/summary.json"))
            #expect(summary["ehsa"]?["precision"]?.int == 5 && summary["ehsa"]?["grid"] == nil)
        }
        #expect(StrictCSV.parse(Array(files[0])).header.first == "geohash")
        #expect(files.dropFirst().allSatisfy { $0 == files[0] })
    }

    @Test(
        "bad --ehsa-grid values and contradictions are usage errors naming the option; nothing is written",
        arguments: [
            (["--ehsa-grid", "h3:16"], "0…15"), (["--ehsa-grid", "h3:-1"], "0…15"),
            (["--ehsa-grid", "geohash:13"], "1…12"), (["--ehsa-grid", "7"], "geohash:P"),
            (["--ehsa-grid", "s2:10"], "h3:R"), (["--ehsa-grid", "h3:7", "--ehsa-precision", "6"], "different grids"),
            (["--ehsa-grid", "geohash:7", "--ehsa-precision", "6"], "different grids")
        ])
    func refusals(_ options: [String], _ mentioned: String) throws {
        let tmp = try TempDir()
        let out = tmp.sub("out")
        let r = try areawatch(
            ["report", "--input", Self.inputs[1], "--out", out, "--as-of", Datasets.asOf, "--ehsa"] + options)
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains(mentioned) && r.stderr.contains("--ehsa-grid"), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("--max-ehsa-bins bounds an H3 cube before any work: exactly the bound is accepted, one bin more refused")
    func boundedCube() throws {
        let tmp = try TempDir()
        try Self.report(tmp.sub("all"), ["--ehsa-grid", "h3:9", "--quiet"])
        let locations = StrictCSV.parse(try readBytes(tmp.sub("all/ehsa.csv"))).records.count
        #expect(locations > 50)
        try Self.report(tmp.sub("exact"), ["--ehsa-grid", "h3:9", "--max-ehsa-bins", "\(locations * 24)", "--quiet"])
        let over = try areawatch(
            ["report", "--input"] + Self.inputs + [
                "--out", tmp.sub("over"), "--as-of", Datasets.asOf, "--tile-zooms", "none", "--ehsa",
                "--ehsa-grid", "h3:9", "--max-ehsa-bins", "\(locations * 24 - 1)"
            ])
        #expect(over.status == 1, "\(over)")
        #expect(
            over.stderr.contains("\(locations * 24) bins (\(locations) cells of H3 resolution 9 × 24 months)")
                && over.stderr.contains("--ehsa-grid resolution"), "\(over.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tmp.sub("over")))
    }

    @Test("H3 locations across the antimeridian and round the pole: grid.geojson's polygons in every file")
    func antimeridianAndPole() throws {
        let tmp = try TempDir()
        // Fiji on both sides of 180° (resolution 2 cells there cross it) and the north pole's cell.
        var text = "id,lat,lon,time,category\n"
        for (k, (lat, lon)) in [(-17.5, 179.95), (-17.5, -179.95), (-17.4, 179.5), (89.9, 10.0)].enumerated() {
            text += "p\(k),\(lat),\(lon),2018-0\(k + 3)-05T10:00:00Z,burglary\n"
        }
        let input = try tmp.file("edges.csv", text)
        let out = tmp.sub("out")
        try areawatchOK([
            "report", "--input", input, "--out", out, "--as-of", "2018-12-31T00:00:00Z", "--grid", "h3:2",
            "--ehsa", "--ehsa-grid", "h3:2", "--ehsa-steps", "12", "--tile-zooms", "none",
            "--formats", "csv,geojson,parquet,gpkg", "--quiet"
        ])
        let bytes = try readBytes(out + "/ehsa.csv")
        let csv = StrictCSV.parse(bytes)
        let rows = csv.dictionaries
        let fiji = H3.cell(lat: -17.5, lon: 179.95, resolution: 2).text
        let pole = H3.cell(lat: 89.9, lon: 10, resolution: 2).text
        #expect(Set(rows.map { $0["h3"] ?? "" }).isSuperset(of: [fiji, pole]), "\(rows.map { $0["h3"] ?? "" })")
        let fijiRow = try #require(rows.first { $0["h3"] == fiji })
        #expect((fijiRow["wkt"] ?? "").hasPrefix("MULTIPOLYGON ((("), "\(fijiRow)")
        let poleRow = try #require(rows.first { $0["h3"] == pole })
        let poleWKT = poleRow["wkt"] ?? ""
        #expect(poleWKT.hasPrefix("POLYGON ((") && poleWKT.contains("180.000000 90.000000"), "a polar cap: \(poleWKT)")

        // The same geometry as grid.geojson writes for the cell (SPEC §18).
        let cells = try #require(JSON.parse(try readBytes(out + "/grid.geojson"))["features"]?.array)
        let features = try #require(JSON.parse(try readBytes(out + "/ehsa.geojson"))["features"]?.array)
        for id in [fiji, pole] {
            let cell = try #require(cells.first { $0["id"]?.string == id })
            let location = try #require(features.first { $0["id"]?.string == id })
            #expect(location["geometry"] == cell["geometry"], "\(id)")
        }
        #expect(features.first { $0["id"]?.string == fiji }?["geometry"]?["type"]?.string == "MultiPolygon")

        let parquet = ParquetCheck.problems(try readBytes(out + "/ehsa.parquet"), csv: bytes, name: "ehsa")
        #expect(parquet.isEmpty, "\(parquet.prefix(10))")
        let db = try SQLiteDatabase(path: out + "/grid.gpkg", create: false, readOnly: true, spatiaLite: false)
        #expect(
            try db.scalar("SELECT geometry_type_name FROM gpkg_geometry_columns WHERE table_name = 'ehsa'")
                == .text("MULTIPOLYGON"))
        let gpkg = try GeoPackageValues.problems(db, layer: "ehsa", csv: csv)
        #expect(gpkg.isEmpty, "\(gpkg.prefix(10))")
    }

    @Test("[report] ehsa_grid = \"h3:8\" in the nightly configuration does what --ehsa-grid does")
    func config() throws {
        let tmp = try TempDir()
        _ = try tmp.folder("inbox")
        for (k, input) in Self.inputs.enumerated() { try copyItem(input, tmp.sub("inbox/police\(k).csv")) }
        let config = try tmp.file(
            "job.toml",
            """
            store = "s.db"
            out = "out"
            [query]
            as_of = "\(Datasets.asOf)"
            [report]
            tile_zooms = "none"
            ehsa = true
            ehsa_grid = "h3:8"
            """)
        try areawatchOK(["run", "--config", config, "--quiet"])
        let summary = try JSON.parse(try readBytes(tmp.sub("out/summary.json")))
        #expect(summary["ehsa"]?["grid"]?.string == "h3:8", "\(summary)")
        let csv = StrictCSV.parse(try readBytes(tmp.sub("out/ehsa.csv")))
        #expect(csv.header.first == "h3" && csv.records.allSatisfy { H3Cell($0.fields[0])?.resolution == 8 })
        try Self.report(tmp.sub("direct"), ["--ehsa-grid", "h3:8", "--quiet"])
        #expect(try readBytes(tmp.sub("out/ehsa.csv")) == readBytes(tmp.sub("direct/ehsa.csv")))

        let bad = try tmp.file("bad.toml", try readText(config).replacingOccurrences(of: "h3:8", with: "h3:16"))
        let r = try areawatch(["run", "--config", bad])
        #expect(r.status == 1 && r.stderr.contains("ehsa"), "\(r)")
    }
}
