import AreaWatchCore
import AreaWatchStore
import AreaWatchTestSupport
import Foundation
import Testing

/// `report --grid h3:R` end to end (SPEC §18) through the built binary, on the bundled police
/// files: grid.csv and grid.geojson against a brute force over the test's own reading of the
/// inputs. H3's cells and centres come from the vendored library (checked against h3-py in the
/// Core tests); which cells are reported and every count are the brute force's own.
@Suite("report --grid h3:R (SPEC §18)", .timeLimit(.minutes(60)))
struct H3GridCLITests {
    static let inputs = Array(Datasets.police.suffix(2))

    struct Expected: Equatable {
        var nCurrent = 0, nPrevious = 0, rCurrent = 0, rPrevious = 0, handled = 0
    }

    /// Every cell holding an incident, or whose centre is within the radius of a windowed one,
    /// with its counts, by comparing each distinct location with each such cell.
    static func bruteForce(_ incidents: [ModelIncident], resolution: Int, radius: Double) -> [String: Expected] {
        let windows = Windows(asOf: Model.asOf)
        var cells = Set<H3Cell>()
        let test = RadiusTest(radius: radius)
        var located: [String: [ModelIncident]] = [:]
        for i in incidents where windows.window(i.time) != .future {
            located["\(i.lat) \(i.lon)", default: []].append(i)
        }
        for group in located.values {
            let (lat, lon) = (group[0].lat, group[0].lon)
            cells.insert(H3.cell(lat: lat, lon: lon, resolution: resolution))
            if group.contains(where: { [.current, .previous].contains(windows.window($0.time)) }) {
                cells.formUnion(H3.cells(withCentreWithin: test, ofLat: lat, lon: lon, resolution: resolution))
            }
        }
        let groups = Array(located.values)
        let home = groups.map { H3.cell(lat: $0[0].lat, lon: $0[0].lon, resolution: resolution) }
        var out: [String: Expected] = [:]
        for cell in cells {
            let centre = cell.centre
            var e = Expected()
            for (group, own) in zip(groups, home) {
                let inside = own == cell
                let d = Haversine.distance(lat1: centre.lat, lon1: centre.lon, lat2: group[0].lat, lon2: group[0].lon)
                let near = d <= radius
                for i in group {
                    switch windows.window(i.time) {
                    case .current:
                        if inside { e.nCurrent += 1 }
                        if near {
                            e.rCurrent += 1
                            if i.handled == true { e.handled += 1 }
                        }
                    case .previous:
                        if inside { e.nPrevious += 1 }
                        if near { e.rPrevious += 1 }
                    default: break
                    }
                }
            }
            if e.nCurrent + e.nPrevious + e.rCurrent + e.rPrevious > 0 { out[cell.text] = e }
        }
        return out
    }

    @Test("grid.csv and grid.geojson: h3 first, ascending index, every count, closed counter-clockwise hexagons")
    func h3Report() throws {
        let tmp = try TempDir()
        let out = tmp.sub("h3")
        let r = try areawatchOK(
            ["report", "--input"] + Self.inputs + [
                "--out", out, "--as-of", Datasets.asOf, "--grid", "h3:9", "--tile-zooms", "none", "--quiet"
            ])
        #expect(r.stdout.contains(" cells at H3 resolution 9: "), "\(r)")
        let incidents = try Model.police().suffix(2).flatMap(\.incidents)
        let expected = Self.bruteForce(incidents, resolution: 9, radius: 1000)

        let csv = StrictCSV.parse(try readBytes(out + "/grid.csv"))
        #expect(
            Array(csv.header.prefix(11)) == [
                "h3", "lat", "lon", "n_current", "n_previous", "r_current",
                "r_previous", "delta", "pct", "handled", "class"
            ])
        let ids = csv.records.map { $0.fields[0] }
        #expect(ids == expected.keys.sorted(), "the reported cells, in ascending index (= text) order")
        #expect(ids.map { UInt64($0, radix: 16)! } == ids.map { UInt64($0, radix: 16)! }.sorted())
        for row in csv.dictionaries {
            let id = row["h3"] ?? ""
            let cell = try #require(H3Cell(id))
            #expect(id.count == 15 && id == id.lowercased() && cell.resolution == 9)
            let e = expected[id] ?? Expected(nCurrent: -1)
            func count(_ column: String) -> Int { Int(row[column] ?? "") ?? -2 }
            let got = Expected(
                nCurrent: count("n_current"), nPrevious: count("n_previous"),
                rCurrent: count("r_current"), rPrevious: count("r_previous"), handled: count("handled"))
            #expect(got == e, "\(id)")
            #expect(row["class"] == classify(got.rCurrent))
            #expect(row["lat"] == String(format: "%.6f", cell.centre.lat))
            #expect(row["lon"] == String(format: "%.6f", cell.centre.lon))
            let wkt = row["wkt"] ?? ""
            #expect(wkt.hasPrefix("POLYGON ((") && wkt.hasSuffix("))"), "\(id): \(wkt)")
            let points = wkt.dropFirst("POLYGON ((".count).dropLast(2).split(separator: ",").map {
                $0.split(separator: " ").compactMap { Double($0) }
            }
            #expect(points.count == cell.boundary.count + 1 && points.first == points.last, "\(id): closed ring")
            #expect(signedArea(points) > 0, "\(id): counter-clockwise")
        }
        // Every current-window incident is inside exactly one cell.
        let current = incidents.filter { Windows(asOf: Model.asOf).window($0.time) == .current }.count
        #expect(csv.dictionaries.reduce(0) { $0 + (Int($1["n_current"] ?? "") ?? 0) } == current)

        let geo = try JSON.parse(try readBytes(out + "/grid.geojson"))
        #expect(geo["grid"]?.string == "h3:9" && geo["precision"] == nil)
        let features = try #require(geo["features"]?.array)
        #expect(features.map { $0["properties"]?["h3"]?.string ?? "" } == ids)
        #expect(features.map { $0["id"]?.string ?? "" } == ids)
        for f in features.prefix(200) {
            #expect(f["geometry"]?["type"]?.string == "Polygon")
            let ring = (f["geometry"]?["coordinates"]?[0]?.array ?? []).map { ($0.array ?? []).compactMap(\.double) }
            #expect(ring.count >= 7 && ring.first == ring.last && signedArea(ring) > 0)
        }
        let summary = try JSON.parse(try readBytes(out + "/summary.json"))
        #expect(summary["parameters"]?["grid"]?.string == "h3:9" && summary["parameters"]?["precision"] == nil)
    }

    @Test("report.html's heatmap draws every reported H3 cell as its own ring, filled by its class")
    func h3Heatmap() throws {
        let tmp = try TempDir()
        let out = tmp.sub("h3")
        try areawatchOK(
            ["report", "--input"] + Self.inputs + [
                "--out", out, "--as-of", Datasets.asOf, "--grid", "h3:9", "--tile-zooms", "none", "--quiet"
            ])
        let csv = StrictCSV.parse(try readBytes(out + "/grid.csv")).dictionaries
        let classOf = Dictionary(uniqueKeysWithValues: csv.map { ($0["h3"] ?? "", $0["class"] ?? "") })
        let page = String(decoding: try readBytes(out + "/report.html"), as: UTF8.self)
        #expect(page.contains("class=\"heatmap\" data-cells=\"\(csv.count)\""))
        #expect(page.contains("Area danger by H3 resolution 9 cell"))
        // Each cell: `<path d="Mx yl dx dy … z"><title>index · … · class</title>` with one step per
        // further vertex of its cellToBoundary ring, so the drawn rings close on themselves.
        let drawn = page.matches(
            of: #/<path d="M(-?\d+) (-?\d+)l([-\d ]*)z"><title>([0-9a-f]{15}) · [^<]* · (\w+)<\/title>/#)
        #expect(drawn.map { String($0.4) }.sorted() == classOf.keys.sorted(), "every reported cell drawn once")
        for m in drawn {
            let id = String(m.4)
            let steps = m.3.split(separator: " ").compactMap { Int($0) }
            let cell = try #require(H3Cell(id))
            #expect(steps.count == 2 * (cell.boundary.count - 1), "\(id): one step per vertex")
            #expect(String(m.5) == classOf[id], "\(id): drawn in its class")
            #expect(
                abs(stride(from: 0, to: steps.count, by: 2).reduce(0) { $0 + steps[$1] }) <= 12, "\(id): a small ring")
        }
    }

    @Test("the bundled H3 job (calderdale-h3.toml, as `make run` runs it): the hexagon heatmap of the bundled data")
    func bundledH3Job() throws {
        let tmp = try TempDir()
        let config = tmp.path + "/calderdale-h3.toml"
        try copyItem(packageRoot + "/calderdale-h3.toml", config)
        try FileManager.default.createSymbolicLink(
            atPath: tmp.path + "/datasets", withDestinationPath: packageRoot + "/datasets")
        try tmp.folder("reports")
        let r = try areawatch(["run", "--config", config])
        #expect(r.status == 0, "\(r)")
        let out = tmp.path + "/reports/calderdale-h3"
        let csv = StrictCSV.parse(try readBytes(out + "/grid.csv"))
        #expect(csv.header.first == "h3" && csv.records.count > 1000, "\(csv.records.count) cells")
        let page = String(decoding: try readBytes(out + "/report.html"), as: UTF8.self)
        #expect(page.contains("class=\"heatmap\" data-cells=\"\(csv.records.count)\""))
        #expect(page.matches(of: #/<path d="M[^"]*z"><title>[0-9a-f]{15} · /#).count == csv.records.count)
        // The geohash job's settings but the grid: the same incidents in the current window.
        let summary = try JSON.parse(try readBytes(out + "/summary.json"))
        let geohash = try BundledRun.get()
        let geohashSummary = try JSON.parse(try geohash.file("summary.json"))
        #expect(summary["totals"] != nil && summary["totals"] == geohashSummary["totals"])
        #expect(summary["parameters"]?["grid"]?.string == "h3:9")
    }

    @Test("--grid geohash:7 and --precision 7 write the grid the default writes, byte for byte")
    func geohashForms() throws {
        let tmp = try TempDir()
        var files: [[UInt8]] = []
        let forms = [[], ["--grid", "geohash:7"], ["--precision", "7"], ["--grid", "GEOHASH:7", "--precision", "7"]]
        for (k, options) in forms.enumerated() {
            let out = tmp.sub("g\(k)")
            try areawatchOK(
                ["report", "--input"] + Self.inputs
                    + ["--out", out, "--as-of", Datasets.asOf, "--tile-zooms", "none", "--quiet"] + options)
            files.append(try readBytes(out + "/grid.csv") + readBytes(out + "/grid.geojson"))
        }
        #expect(files.dropFirst().allSatisfy { $0 == files[0] })
    }

    @Test(
        "bad --grid values and contradictions are usage errors naming the option; nothing is written",
        arguments: [
            (["--grid", "h3:16"], "0…15"), (["--grid", "h3:-1"], "0…15"), (["--grid", "geohash:13"], "1…12"),
            (["--grid", "9"], "geohash:P"), (["--grid", "s2:10"], "h3:R"),
            (["--grid", "h3:9", "--precision", "7"], "different grids")
        ])
    func refusals(_ options: [String], _ mentioned: String) throws {
        let tmp = try TempDir()
        let out = tmp.sub("out")
        let r = try areawatch(["report", "--input", Self.inputs[1], "--out", out, "--as-of", Datasets.asOf] + options)
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains(mentioned), "\(r)")
        #expect(r.stderr.contains("--grid"), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("an H3 grid too fine for --max-cells is refused before any work, naming the estimate")
    func maxCells() throws {
        let tmp = try TempDir()
        let out = tmp.sub("out")
        let r = try areawatch([
            "report", "--input", Self.inputs[1], "--out", out, "--as-of", Datasets.asOf,
            "--grid", "h3:15", "--tile-zooms", "none"
        ])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("at H3 resolution 15") && r.stderr.contains("--max-cells 5000000"), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("grid.parquet and grid.gpkg of an H3 grid: the h3 column and grid.csv's values, the hexagons as WKB")
    func h3ParquetAndGeoPackage() throws {
        let tmp = try TempDir()
        let out = tmp.sub("h3")
        try areawatchOK(
            ["report", "--input"] + Self.inputs + [
                "--out", out, "--as-of", Datasets.asOf, "--grid", "h3:9", "--tile-zooms", "none",
                "--formats", "csv,parquet,gpkg", "--quiet"
            ])
        let csv = try readBytes(out + "/grid.csv")
        #expect(StrictCSV.parse(csv).header.first == "h3")
        let parquet = ParquetCheck.problems(try readBytes(out + "/grid.parquet"), csv: csv, name: "grid")
        #expect(parquet.isEmpty, "\(parquet.prefix(10))")
        let db = try SQLiteDatabase(path: out + "/grid.gpkg", create: false, readOnly: true, spatiaLite: false)
        let gpkg = try GeoPackageValues.problems(db, layer: "grid", csv: StrictCSV.parse(csv))
        #expect(gpkg.isEmpty, "\(gpkg.prefix(10))")
        #expect(try db.scalar("SELECT geometry_type_name FROM gpkg_geometry_columns") == .text("POLYGON"))
        #expect(
            try db.scalar("SELECT description FROM gpkg_contents WHERE table_name = 'grid'")
                == .text("grid.csv's cells (h3 9)"))
    }

    @Test("an H3 cell across the antimeridian: grid.csv's MULTIPOLYGON, grid.parquet's and grid.gpkg's MultiPolygon")
    func h3AntimeridianFormats() throws {
        let tmp = try TempDir()
        // Fiji's longitudes on both sides of 180°: resolution 2 cells there cross the antimeridian.
        var text = "id,lat,lon,time,category\n"
        for (k, lon) in [179.95, -179.95, 179.5, -179.6].enumerated() {
            text += "f\(k),-17.5,\(lon),2018-05-0\(k + 1)T10:00:00Z,burglary\n"
        }
        let input = try tmp.file("fiji.csv", text)
        let out = tmp.sub("out")
        try areawatchOK([
            "report", "--input", input, "--out", out, "--as-of", "2018-12-31T00:00:00Z", "--grid", "h3:2",
            "--radius", "50000", "--tile-zooms", "none", "--formats", "csv,geojson,parquet,gpkg", "--quiet"
        ])
        let csv = try readBytes(out + "/grid.csv")
        let rows = StrictCSV.parse(csv).dictionaries
        #expect(rows.contains { ($0["wkt"] ?? "").hasPrefix("MULTIPOLYGON (((") }, "\(rows.map { $0["wkt"] ?? "" })")
        let parquet = ParquetCheck.problems(try readBytes(out + "/grid.parquet"), csv: csv, name: "grid")
        #expect(parquet.isEmpty, "\(parquet.prefix(10))")
        let db = try SQLiteDatabase(path: out + "/grid.gpkg", create: false, readOnly: true, spatiaLite: false)
        #expect(try db.scalar("SELECT geometry_type_name FROM gpkg_geometry_columns") == .text("MULTIPOLYGON"))
        let gpkg = try GeoPackageValues.problems(db, layer: "grid", csv: StrictCSV.parse(csv))
        #expect(gpkg.isEmpty, "\(gpkg.prefix(10))")
    }
}

/// Twice the signed area of a closed [lon, lat] ring: positive when counter-clockwise.
private func signedArea(_ ring: [[Double]]) -> Double {
    zip(ring, ring.dropFirst()).reduce(0) { $0 + $1.0[0] * $1.1[1] - $1.1[0] * $1.0[1] }
}
