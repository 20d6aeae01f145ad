import AreaWatchTestSupport
import Foundation
import Testing

/// SPEC §19 end to end: the report folder's GeoParquet files against the CSV and GeoJSON beside
/// them, read by the tests' own Parquet reader and by the independent readers (pyarrow,
/// GeoPandas, DuckDB) through Fixtures/check_parquet.py.
@Suite("GeoParquet outputs end to end", .timeLimit(.minutes(60)))
struct ParquetCLITests {
    @Test("the bundled report's grid.parquet and areas.parquet hold the CSVs' columns and values")
    func bundledReport() throws {
        let run = try BundledRun.get()
        let grid = ParquetCheck.problems(try run.file("grid.parquet"), csv: try run.file("grid.csv"), name: "grid")
        #expect(grid.isEmpty, "\(grid.prefix(10))")
        let areas = ParquetCheck.problems(try run.file("areas.parquet"), csv: try run.file("areas.csv"), name: "areas")
        #expect(areas.isEmpty, "\(areas.prefix(10))")
        let parquet = try run.file("grid.parquet").count, geojson = try run.file("grid.geojson").count
        print("grid.parquet \(parquet) bytes, grid.geojson \(geojson) bytes: \(Double(parquet) / Double(geojson))")
        #expect(
            parquet * 4 <= geojson,
            "grid.parquet \(parquet) bytes is more than a quarter of grid.geojson's \(geojson)")
        let summary = try JSON.parse(try run.file("summary.json"))
        for name in ["grid.parquet", "areas.parquet"] {
            #expect(summary["files"]?[name]?.int == run.report[name]?.count, "summary.json's files lack \(name)")
        }
    }

    @Test("pyarrow, GeoPandas and DuckDB read the bundled report's Parquet files as its CSV and GeoJSON")
    func bundledReportPeers() throws {
        try Self.peerCheck(try BundledRun.get().out)
    }

    @Test("--min-cell-count 3: every withheld figure is a null where the CSVs have an empty field")
    func disclosure() throws {
        let tmp = try TempDir()
        let out = tmp.sub("report")
        try areawatchOK(
            ["report", "--input"] + Array(Datasets.police.suffix(2)) + [
                "--out", out, "--as-of", Datasets.asOf, "--areas", Datasets.areas, "--area-id", "name",
                "--min-cell-count", "3", "--tile-zooms", "none", "--quiet"
            ])
        let gridCSV = try readBytes(out + "/grid.csv")
        let grid = ParquetCheck.problems(try readBytes(out + "/grid.parquet"), csv: gridCSV, name: "grid")
        #expect(grid.isEmpty, "\(grid.prefix(10))")
        let nulls = try ReadParquet(try readBytes(out + "/grid.parquet")).columns[3].filter { $0 == nil }.count
        #expect(nulls > 0, "no n_current withheld: the test data no longer exercises disclosure control")
        let areas = ParquetCheck.problems(
            try readBytes(out + "/areas.parquet"), csv: try readBytes(out + "/areas.csv"),
            name: "areas")
        #expect(areas.isEmpty, "\(areas.prefix(10))")
        try Self.peerCheck(out)
    }

    @Test("report --ehsa writes ehsa.parquet with ehsa.csv's columns and values")
    func ehsa() throws {
        let tmp = try TempDir()
        let input = try EHSACLITests.input(tmp)
        try areawatchOK([
            "report", "--input", input, "--out", tmp.sub("out"), "--as-of", EHSACLITests.asOf,
            "--tile-zooms", "none", "--ehsa", "--quiet"
        ])
        let problems = ParquetCheck.problems(
            try readBytes(tmp.sub("out/ehsa.parquet")),
            csv: try readBytes(tmp.sub("out/ehsa.csv")), name: "ehsa")
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        try Self.peerCheck(tmp.sub("out"))
    }

    @Test("an areas file with a MultiPolygon of no part is an input error naming the file and feature, not a crash")
    func emptyMultiPolygon() throws {
        let tmp = try TempDir()
        let box = "[[[-1.9,53.7],[-1.8,53.7],[-1.8,53.75],[-1.9,53.75],[-1.9,53.7]]]"
        let areas = try tmp.file(
            "areas.geojson",
            """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"name":"Box"},"geometry":{"type":"Polygon","coordinates":\(box)}},
            {"type":"Feature","properties":{"name":"Nothing"},"geometry":{"type":"MultiPolygon","coordinates":[]}}]}
            """)
        let r = try areawatch([
            "report", "--input", Datasets.police.last!, "--as-of", Datasets.asOf, "--areas", areas,
            "--area-id", "name", "--out", tmp.sub("out"), "--tile-zooms", "none", "--quiet"
        ])
        #expect(r.status == 2, "\(r)")
        let message = r.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            !message.contains("\n") && message.contains(areas) && message.contains("features[1]")
                && message.contains("zero area"), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: tmp.sub("out")), "a report was written")
    }

    /// Runs check_parquet.py over a report folder; a reader that is not installed is named as skipped.
    static func peerCheck(_ folder: String) throws {
        guard let python = findTool("python3") else {
            print("skipped: python3 is not installed")
            return
        }
        let script = packageRoot + "/Tests/AreaWatchCLITests/Fixtures/check_parquet.py"
        let r = try runTool(python, [script, folder], timeout: 300)
        if r.status == 3 {
            print("skipped: \(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) (make test-deps installs them)")
            return
        }
        #expect(r.status == 0 && r.stdout.hasPrefix("ok: "), "\(r)")
        for line in r.stdoutLines where line.hasPrefix("missing: ") {
            print("skipped: the \(line.dropFirst(9)) reader of check_parquet.py is not installed (make test-deps)")
        }
    }
}

/// A Parquet report file against its CSV: the same columns in the same order (`wkt` replaced
/// by `geometry`, then the `bbox` covering), every value equal to the CSV field read as the
/// column's type (an empty field a null), the WKB polygon equal to the WKT's, the covering
/// equal to the polygon's bounds.
enum ParquetCheck {
    static func problems(_ parquet: [UInt8], csv: [UInt8], name: String) -> [String] {
        let read: ReadParquet
        do { read = try ReadParquet(parquet) } catch { return ["\(name).parquet: \(error)"] }
        let table = StrictCSV.parse(csv)
        let columns = table.header.filter { $0 != "wkt" }
        let covering = ["bbox.xmin", "bbox.ymin", "bbox.xmax", "bbox.ymax"]
        guard read.leafPaths == columns + ["geometry"] + covering else {
            return ["\(name).parquet columns \(read.leafPaths), the CSV's \(table.header)"]
        }
        var problems: [String] = []
        let types = read.schema.dropFirst().filter { $0[1] != nil }.map { $0[1]?.int ?? -1 }
        let rows = Array(table.records)
        if read.rowCount != rows.count {
            problems.append("\(name).parquet: \(read.rowCount) rows, the CSV \(rows.count)")
        }
        for (r, row) in rows.enumerated() where r < read.rowCount && problems.count < 20 {
            for (k, column) in columns.enumerated() {
                let isID = column == table.header.first && name == "areas"
                let got = read.columns[k][r]
                if got != value(row.fields[k], type: types[k], text: isID) {
                    problems.append("\(name) row \(r) \(column): \(String(describing: got)), the CSV \(row.fields[k])")
                }
            }
            guard case .bytes(let wkb) = read.columns[columns.count][r], let polygons = WKBPolygons(wkb) else {
                problems.append("\(name) row \(r): the geometry is not a WKB Polygon or MultiPolygon")
                continue
            }
            if let wkt = table.header.firstIndex(of: "wkt"), polygons.wktPoints != wktPoints(row.fields[wkt]) {
                problems.append("\(name) row \(r): WKB \(polygons.wktPoints), WKT \(row.fields[wkt])")
            }
            let points = polygons.rings.joined().joined()
            let bounds = [points.map(\.0).min(), points.map(\.1).min(), points.map(\.0).max(), points.map(\.1).max()]
            let box = (0..<4).map { read.columns[columns.count + 1 + $0][r] }
            if box != bounds.map({ $0.map { ReadValue.double($0.bitPattern) } }) {
                problems.append("\(name) row \(r): bbox \(box), the geometry's bounds \(bounds)")
            }
        }
        return problems
    }

    /// A CSV field as the Parquet column of physical `type` holds it.
    static func value(_ field: String, type: Int, text: Bool) -> ReadValue? {
        if field.isEmpty && !text { return nil }
        switch type {
        case 2: return Int64(field).map { ReadValue.int($0) } ?? .bytes(Array(field.utf8))
        case 5: return Double(field).map { ReadValue.double($0.bitPattern) } ?? .bytes(Array(field.utf8))
        default:
            // A text the CSV made spreadsheet-safe (a leading ' before = + - @) is the raw text.
            let raw =
                text && field.hasPrefix("'") && "=+-@\t\r".contains(field.dropFirst().first ?? " ")
                ? String(field.dropFirst()) : field
            return .bytes(Array(raw.utf8))
        }
    }

    /// The points of `POLYGON ((x y, x y, …))`, as Doubles.
    static func wktPoints(_ wkt: String) -> [[Double]] {
        let inner = wkt.drop { $0 != "(" }.filter { $0 != "(" && $0 != ")" }
        return inner.split(separator: ",").map { $0.split(separator: " ").compactMap { Double($0) } }
    }
}

/// A WKB Polygon or MultiPolygon, little-endian, 2D.
struct WKBPolygons {
    var rings: [[[(Double, Double)]]] = []

    init?(_ bytes: [UInt8]) {
        var c = ByteCursor(bytes: bytes, at: 0)
        func polygon() throws -> [[(Double, Double)]]? {
            guard try c.byte() == 1, try c.littleEndian(4) == 3 else { return nil }
            return try (0..<c.littleEndian(4)).map { _ in
                try (0..<c.littleEndian(4)).map { _ in
                    (Double(bitPattern: try c.littleEndian(8)), Double(bitPattern: try c.littleEndian(8)))
                }
            }
        }
        do {
            guard try c.byte() == 1 else { return nil }
            switch try c.littleEndian(4) {
            case 3:
                c.at = 0
                guard let p = try polygon() else { return nil }
                rings = [p]
            case 6:
                for _ in 0..<(try c.littleEndian(4)) {
                    guard let p = try polygon() else { return nil }
                    rings.append(p)
                }
            default: return nil
            }
            guard c.at == bytes.count else { return nil }
        } catch {
            return nil
        }
    }

    /// Every ring's points in order, as `wktPoints` reads them from the WKT of the same Polygon
    /// or MultiPolygon (an H3 cell split at the antimeridian is one).
    var wktPoints: [[Double]] { rings.joined().joined().map { [$0.0, $0.1] } }
}
