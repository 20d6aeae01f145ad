import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchStore

/// The GeoPackage writer read back through SQLite: the required tables and pragmas, each
/// geometry's header and envelope, the R-tree against the geometries' bounds, the styles.
@Suite("GeoPackage writer")
struct GeoPackageFileTests {
    /// Rectangles of random size and place, some rows with an empty geometry.
    static func rectangles(seed: UInt64, count: Int) -> [GeoPackageEnvelope?] {
        var rng = SplitMix64(seed: seed)
        func unit() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        return (0..<count).map { _ in
            if rng.next() % 10 == 0 { return nil }
            let x = unit() * 360 - 180, y = unit() * 170 - 85
            return GeoPackageEnvelope(minX: x, maxX: x + unit() * 0.01, minY: y, maxY: y + unit() * 0.01)
        }
    }

    /// A ring-of-five polygon WKB of `e`, or an empty MultiPolygon.
    static func wkb(_ e: GeoPackageEnvelope?, into out: inout [UInt8]) {
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        func f64(_ v: Double) { withUnsafeBytes(of: v.bitPattern.littleEndian) { out += $0 } }
        out.append(1)
        guard let e else {
            u32(6)
            u32(0)
            return
        }
        u32(3)
        u32(1)
        u32(5)
        for (x, y) in [(e.minX, e.minY), (e.maxX, e.minY), (e.maxX, e.maxY), (e.minX, e.maxY), (e.minX, e.minY)] {
            f64(x)
            f64(y)
        }
    }

    static func write(_ shapes: [GeoPackageEnvelope?], to path: String) throws {
        let file = try GeoPackageFile(path: path, lastChange: "2024-03-01T00:00:00.000Z")
        let layer = try file.addLayer(
            "cells", geometry: .polygon,
            columns: [.init("name", .text), .init("n", .integer), .init("v", .real)],
            description: "test cells")
        for (k, e) in shapes.enumerated() {
            layer.add("cell \(k)")
            layer.add(k % 3 == 0 ? nil : k)
            layer.add(Double(k) / 4)
            try layer.endRow(envelope: e) { wkb(e, into: &$0) }
        }
        _ = try file.addLayer("nothing", geometry: .point, columns: [.init("a", .text)], description: "")
        try file.addStyle(layer: "cells", name: "cells", qml: "<qgis/>", sld: "<sld/>", description: "d")
        try file.finish()
    }

    @Test("the pragmas, required tables, contents and extent of a written file")
    func tables() throws {
        let tmp = try TempDir()
        let shapes = Self.rectangles(seed: 7, count: 500)
        try Self.write(shapes, to: tmp.sub("a.gpkg"))
        let db = try SQLiteDatabase(path: tmp.sub("a.gpkg"), create: false, readOnly: true, spatiaLite: false)
        #expect(try db.integer("PRAGMA application_id") == 0x4750_4B47)
        #expect(try db.integer("PRAGMA user_version") == 10300)
        #expect(try db.integer("PRAGMA page_size") == 4096)
        #expect(try db.integer("SELECT count(*) FROM gpkg_spatial_ref_sys WHERE srs_id IN (-1, 0, 4326)") == 3)
        let present = shapes.compactMap { $0 }
        let contents = try db.prepare(
            "SELECT data_type, last_change, min_x, min_y, max_x, max_y, srs_id "
                + "FROM gpkg_contents WHERE table_name = 'cells'")
        #expect(try contents.step())
        #expect(contents.string(0) == "features" && contents.string(1) == "2024-03-01T00:00:00.000Z")
        #expect(contents.double(2) == present.map(\.minX).min() && contents.double(3) == present.map(\.minY).min())
        #expect(contents.double(4) == present.map(\.maxX).max() && contents.double(5) == present.map(\.maxY).max())
        #expect(contents.int64(6) == 4326)
        #expect(
            try db.integer(
                "SELECT count(*) FROM gpkg_contents WHERE table_name = 'nothing' "
                    + "AND min_x IS NULL") == 1)
        #expect(
            try db.integer(
                "SELECT count(*) FROM gpkg_geometry_columns WHERE table_name = 'cells' "
                    + "AND column_name = 'geom' AND geometry_type_name = 'POLYGON' AND srs_id = 4326") == 1)
        #expect(
            try db.integer(
                "SELECT count(*) FROM gpkg_extensions WHERE extension_name = 'gpkg_rtree_index' "
                    + "AND scope = 'write-only'") == 2)
        #expect(
            try db.integer(
                "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' "
                    + "AND name LIKE 'rtree_cells_geom_%'") == 6)
        #expect(
            try db.integer(
                "SELECT count(*) FROM layer_styles WHERE f_table_name = 'cells' AND f_table_schema = '' "
                    + "AND f_geometry_column = 'geom' AND useAsDefault = 1") == 1)
        #expect(try db.integer("SELECT count(*) FROM cells WHERE n IS NULL") == Int64((shapes.count + 2) / 3))
    }

    @Test("each geometry: GP header, flags, srs_id, envelope, WKB; the R-tree holds every non-empty bound")
    // 2,000 rows: a packed tree of several levels.
    func geometriesAndIndex() throws {
        let tmp = try TempDir()
        let shapes = Self.rectangles(seed: 11, count: 2_000)
        try Self.write(shapes, to: tmp.sub("a.gpkg"))
        let db = try SQLiteDatabase(path: tmp.sub("a.gpkg"), create: false, readOnly: true, spatiaLite: false)
        let rows = try db.prepare("SELECT fid, geom FROM cells ORDER BY fid")
        var k = 0
        while try rows.step() {
            #expect(rows.int64(0) == Int64(k + 1))
            let blob = rows.blob(1) ?? []
            let e = shapes[k]
            #expect(Array(blob.prefix(3)) == [0x47, 0x50, 0])
            #expect(blob[3] == (e == nil ? 0x11 : 0x03), "row \(k) flags \(blob[3])")
            #expect(blob[4..<8].elementsEqual([0xE6, 0x10, 0, 0]))
            var expected: [UInt8] = []
            if let e {
                for v in [e.minX, e.maxX, e.minY, e.maxY] {
                    withUnsafeBytes(of: v.bitPattern.littleEndian) { expected += $0 }
                }
            }
            Self.wkb(e, into: &expected)
            #expect(Array(blob.dropFirst(8)) == expected, "row \(k)")
            k += 1
        }
        #expect(k == shapes.count)
        let index = try db.prepare("SELECT id, minx, maxx, miny, maxy FROM rtree_cells_geom ORDER BY id")
        var indexed: [Int64] = []
        while try index.step() {
            let id = index.int64(0)
            indexed.append(id)
            guard let e = shapes[Int(id) - 1] else {
                Issue.record("row \(id) is empty and indexed")
                continue
            }
            // The R-tree stores 32-bit floats rounded outwards.
            let (minx, maxx, miny, maxy) = (index.double(1), index.double(2), index.double(3), index.double(4))
            #expect(minx <= e.minX && maxx >= e.maxX && miny <= e.minY && maxy >= e.maxY, "row \(id)")
            #expect(e.minX - minx < 1e-4 && maxx - e.maxX < 1e-4 && e.minY - miny < 1e-4 && maxy - e.maxY < 1e-4)
        }
        #expect(indexed == shapes.indices.filter { shapes[$0] != nil }.map { Int64($0 + 1) })
        // SQLite's own check of the packed tree: nodes, parents, rowids and bounds consistent.
        #expect(try db.scalar("SELECT rtreecheck('rtree_cells_geom')") == .text("ok"))
    }

    @Test("every row's fid and attributes read back, for 0, 1, 31, 32, 33 and 65 rows")
    func batchBoundaries() throws {
        for count in [0, 1, 31, 32, 33, 65] {
            let tmp = try TempDir()
            let file = try GeoPackageFile(path: tmp.sub("b.gpkg"), lastChange: "2024-03-01T00:00:00.000Z")
            let layer = try file.addLayer(
                "t", geometry: .polygon,
                columns: [.init("s", .text), .init("n", .integer), .init("v", .real), .init("u", .text)],
                description: "")
            let shapes = Self.rectangles(seed: UInt64(count), count: count)
            for (k, e) in shapes.enumerated() {
                layer.add(k % 4 == 0 ? "" : (k % 6 == 1 ? nil : "row \(k) é"))
                layer.add(k % 5 == 0 ? nil : Int64(-k))
                layer.add(k % 7 == 0 ? Double.nan : Double(k) / 3)
                layer.add(utf8: Array("u\(k)".utf8))
                try layer.endRow(envelope: e) { Self.wkb(e, into: &$0) }
            }
            try file.finish()
            let db = try SQLiteDatabase(path: tmp.sub("b.gpkg"), create: false, readOnly: true, spatiaLite: false)
            let rows = try db.prepare("SELECT fid, s, n, v, u, geom FROM t ORDER BY fid")
            var k = 0
            while try rows.step() {
                #expect(rows.int64(0) == Int64(k + 1))
                #expect(rows.string(1) == (k % 4 == 0 ? "" : (k % 6 == 1 ? nil : "row \(k) é")), "row \(k)")
                #expect(rows.isNull(2) == (k % 5 == 0) && (k % 5 == 0 || rows.int64(2) == Int64(-k)), "row \(k)")
                #expect(rows.isNull(3) == (k % 7 == 0) && (k % 7 == 0 || rows.double(3) == Double(k) / 3))
                #expect(rows.string(4) == "u\(k)")
                var expected: [UInt8] = []
                Self.wkb(shapes[k], into: &expected)
                #expect(rows.blob(5).map { Array($0.suffix(expected.count)) } == expected, "row \(k)")
                k += 1
            }
            #expect(k == count)
            #expect(
                try db.integer("SELECT seq FROM sqlite_sequence WHERE name = 't'") == (count == 0 ? nil : Int64(count)))
        }
    }

    @Test("the same rows give the same bytes; a file that already holds a database is refused")
    func deterministicAndNew() throws {
        let tmp = try TempDir()
        let shapes = Self.rectangles(seed: 3, count: 300)
        try Self.write(shapes, to: tmp.sub("a.gpkg"))
        try Self.write(shapes, to: tmp.sub("b.gpkg"))
        let a = try Data(contentsOf: URL(fileURLWithPath: tmp.sub("a.gpkg")))
        #expect(a == (try Data(contentsOf: URL(fileURLWithPath: tmp.sub("b.gpkg")))))
        #expect(throws: StoreError.self) { try Self.write(shapes, to: tmp.sub("a.gpkg")) }
        #expect(a == (try Data(contentsOf: URL(fileURLWithPath: tmp.sub("a.gpkg")))), "the existing file changed")
    }
}
