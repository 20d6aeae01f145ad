import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchFormats

/// Two small files written by the writer, checked in under Fixtures/ after pyarrow and
/// GeoPandas read them (Fixtures/check_parquet_golden.py, run here when they are installed):
/// the writer must keep producing exactly these bytes. `AREAWATCH_WRITE_GOLDEN=1` rewrites them
/// (then run the script and review the diff before committing).
@Suite("Parquet golden files")
struct ParquetGoldenTests {
    /// Every physical type, REQUIRED and OPTIONAL, a dictionary column, a group, two row groups.
    static func typesFile() throws -> [UInt8] {
        let schema = ParquetSchema([
            .leaf(.int64("id")), .leaf(ParquetSchema.Leaf("flag", .boolean)),
            .leaf(ParquetSchema.Leaf("small", .int32, isOptional: true)), .leaf(.double("ratio", optional: true)),
            .leaf(.string("name")), .leaf(.string("note", optional: true)),
            .leaf(ParquetSchema.Leaf("blob", .byteArray)),
            .group("box", [.double("lo"), .double("hi")])
        ])
        let small: [Int32?] = [7, nil, -3, .max, nil, .min]
        let ratio: [Double?] = [0.5, -0.0, nil, 1e-300, 2.25, nil]
        let names = ["safe", "safe", "medium", "safe", "dangerous", "dangerous"]
        let notes: [String?] = ["é café", nil, "", nil, "x", "émoji 🚲"]
        let blobs: [[UInt8]] = [[], [0], [1, 2, 3], [255], [0, 0], [9]]
        var groups: [[ParquetColumnData]] = []
        for rows in [0..<4, 4..<6] {
            var c = schema.leaves.map { ParquetColumnData($0.leaf) }
            for r in rows {
                c[0].append(Int64(r + 1))
                c[1].append([true, false, true, true, false, false][r])
                c[2].append(small[r])
                c[3].append(ratio[r])
                c[4].append(names[r])
                c[5].append(notes[r])
                c[6].append(bytes: blobs[r])
                c[7].append(Double(r + 1) * 1.5)
                c[8].append(Double(r + 1) * 1.5 + 1)
            }
            groups.append(c)
        }
        return try ParquetWriterTests.write(
            schema, groups: groups, compression: .gzip(level: 6),
            keyValues: [("note", "golden")])
    }

    /// A GeoParquet table: a rectangle, a polygon with a hole, a multipolygon; two rows a group.
    static func polygonsFile() throws -> [UInt8] {
        var bytes: [UInt8] = []
        let table = try GeoParquetTable(
            attributes: [
                .string("geohash"), .int64("n", optional: true),
                .double("pct", optional: true), .string("class")
            ],
            createdBy: "areawatch test", rowGroupRows: 2
        ) { bytes += $0 }
        func row(_ geohash: String, _ n: Int?, _ pct: Double?, _ cls: String) {
            table.add(geohash)
            table.add(n)
            table.add(pct)
            table.add(cls)
        }
        row("gcw2j", 3, 0.25, "safe")
        try table.endRow(rectangle: -1.5, 53.5, -1.25, 53.75)
        row("gcw2k", nil, nil, "medium")
        try table.endRow(polygons: [
            [
                [(0, 0), (4, 0), (4, 4), (0, 4), (0, 0)],
                [(1, 1), (1, 2), (2, 2), (2, 1), (1, 1)]
            ]
        ])
        row("gcw2m", 0, -12.5, "dangerous")
        try table.endRow(polygons: [
            [[(10, 10), (11, 10), (11, 11), (10, 11), (10, 10)]],
            [[(12, 10), (13, 10), (13, 12), (12, 12), (12, 10)]]
        ])
        try table.finish()
        return bytes
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func compareOrWrite(_ bytes: [UInt8], _ name: String) throws {
        if ProcessInfo.processInfo.environment["AREAWATCH_WRITE_GOLDEN"] == "1" {
            try Data(bytes).write(to: fixtures.appendingPathComponent(name))
            print("wrote \(name): check it with Fixtures/check_parquet_golden.py")
        }
        let path = try #require(Bundle.module.path(forResource: name, ofType: nil, inDirectory: "Fixtures"))
        let golden = Array(try #require(FileManager.default.contents(atPath: path)))
        let firstDifference = zip(bytes, golden).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(
            bytes.count == golden.count && firstDifference == nil,
            "\(name): \(bytes.count) bytes written, \(golden.count) golden, first difference at \(firstDifference ?? -1)"
        )
    }

    @Test("types.parquet: the same bytes as the golden file, and what the tests' reader reads")
    func types() throws {
        let bytes = try Self.typesFile()
        try Self.compareOrWrite(bytes, "types.parquet")
        let read = try ReadParquet(bytes)
        #expect(read.rowGroupSizes == [4, 2])
        #expect(read.leafPaths == ["id", "flag", "small", "ratio", "name", "note", "blob", "box.lo", "box.hi"])
        #expect(read.columns[2] == [.int(7), nil, .int(-3), .int(Int64(Int32.max)), nil, .int(Int64(Int32.min))])
        let notes: [String?] = ["é café", nil, "", nil, "x", "émoji 🚲"]
        #expect(read.columns[5] == notes.map { $0.map { ReadValue.bytes(Array($0.utf8)) } })
    }

    @Test("polygons.parquet: the same bytes as the golden file; WKB and the geo metadata as written")
    func polygons() throws {
        let bytes = try Self.polygonsFile()
        try Self.compareOrWrite(bytes, "polygons.parquet")
        let read = try ReadParquet(bytes)
        #expect(read.rowGroupSizes == [2, 1])
        #expect(
            read.leafPaths == [
                "geohash", "n", "pct", "class", "geometry", "bbox.xmin", "bbox.ymin", "bbox.xmax",
                "bbox.ymax"
            ])
        // Rectangle: byte order 1, type 3, one ring of five points from the south-west corner.
        var rectangle: [UInt8] = [1, 3, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0]
        for v in [-1.5, 53.5, -1.25, 53.5, -1.25, 53.75, -1.5, 53.75, -1.5, 53.5] {
            withUnsafeBytes(of: v.bitPattern.littleEndian) { rectangle += $0 }
        }
        #expect(read.columns[4][0] == .bytes(rectangle))
        #expect(read.columns[5] == [-1.5, 0, 10].map { ReadValue.double($0.bitPattern) })
        #expect(read.columns[8] == [53.75, 4, 12].map { ReadValue.double($0.bitPattern) })
        let geo = try #require(read.keyValues.first { $0.0 == "geo" }?.1)
        #expect(
            geo == """
                {"version":"1.1.0","primary_column":"geometry","columns":{"geometry":{"encoding":"WKB",\
                "geometry_types":["Polygon","MultiPolygon"],"bbox":[-1.5,0,13,53.75],"covering":{"bbox":{\
                "xmin":["bbox","xmin"],"ymin":["bbox","ymin"],"xmax":["bbox","xmax"],"ymax":["bbox","ymax"]}}}}}
                """)
    }

    @Test("an empty MultiPolygon: WKB with no member, a NaN covering, nothing added to the extent")
    func emptyGeometry() throws {
        var bytes: [UInt8] = []
        let table = try GeoParquetTable(attributes: [.string("id")], createdBy: "areawatch test") { bytes += $0 }
        table.add("empty")
        try table.endRow(polygons: [])
        table.add("box")
        try table.endRow(rectangle: 1, 2, 3, 4)
        try table.finish()
        let read = try ReadParquet(bytes)
        #expect(read.columns[1][0] == .bytes([1, 6, 0, 0, 0, 0, 0, 0, 0]))
        guard case .double(let xmin) = read.columns[2][0] else {
            Issue.record("no xmin: \(String(describing: read.columns[2][0]))")
            return
        }
        #expect(Double(bitPattern: xmin).isNaN)
        let geo = try #require(read.keyValues.first { $0.0 == "geo" }?.1)
        #expect(geo.contains("\"geometry_types\":[\"Polygon\",\"MultiPolygon\"],\"bbox\":[1,2,3,4]"), "\(geo)")
    }

    @Test("pyarrow and GeoPandas read the golden files as the script expects them")
    func pythonReaders() throws {
        guard
            let script = Bundle.module.path(
                forResource: "check_parquet_golden", ofType: "py",
                inDirectory: "Fixtures")
        else {
            Issue.record("check_parquet_golden.py not bundled")
            return
        }
        let check = PythonCheck.run([script, (script as NSString).deletingLastPathComponent])
        guard let check, check.missing == nil else {
            print("skipped: \(check?.missing ?? "python3 could not be started") (make test-deps installs it)")
            return
        }
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.hasPrefix("ok: "), "\(check.output)")
    }
}
