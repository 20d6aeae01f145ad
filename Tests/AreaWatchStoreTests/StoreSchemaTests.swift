import AreaWatchCore
import AreaWatchIngest
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchStore

/// SPEC §5: the store is a real SpatiaLite database with a working spatial index, and bulk
/// loading (indexes and triggers dropped and rebuilt) leaves exactly the store row-by-row gives.
@Suite("Store schema and spatial index")
struct StoreSchemaTests {
    @Test("a new store is a SpatiaLite database: geometry_columns, SRID 4326 POINT, spatial index")
    func newStoreIsSpatiaLite() throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: dir.path + "/new.db", create: true)
        let registered = try rows(
            store,
            """
            SELECT f_table_name, f_geometry_column, srid, geometry_type, coord_dimension, spatial_index_enabled
            FROM geometry_columns
            """, columns: 6)
        // geometry_type 1 = POINT (XY), coord_dimension 2, spatial_index_enabled 1 = R*Tree.
        #expect(
            registered == [[.text("incidents"), .text("geom"), .integer(4326), .integer(1), .integer(2), .integer(1)]])
        #expect(try count(store, "SELECT count(*) FROM spatial_ref_sys WHERE srid = 4326") == 1)
        #expect(try count(store, "SELECT CheckSpatialIndex('incidents', 'geom')") == 1)
        #expect(
            try count(store, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'idx_incidents_geom'")
                == 1)
        // The columns of SPEC §5.
        let columns = try rows(store, "SELECT name FROM pragma_table_info('incidents') ORDER BY cid").map { $0[0] }
        #expect(
            columns
                == [
                    "key", "time", "time_precision", "lat", "lon", "geohash", "category", "handled", "description",
                    "user", "attrs", "source", "geom"
                ].map { SQLValue.text($0) })
        let ingestColumns = try rows(store, "SELECT name FROM pragma_table_info('ingests') ORDER BY cid").map { $0[0] }
        #expect(
            Array(ingestColumns.prefix(10))
                == [
                    "file", "sha256", "bytes", "records", "accepted", "updated", "duplicates",
                    "rejected", "started_at", "finished_at"
                ].map { SQLValue.text($0) })
        #expect(try schemaObjects(store, type: "index").contains("incidents_geohash"))
        #expect(try schemaObjects(store, type: "index").contains("incidents_time"))
        #expect(try store.check() == [])
    }

    @Test("stored geometries are SRID 4326 points at (lon, lat); geohash has precision 12")
    func geometries() throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: dir.path + "/g.db", create: true)
        let generated = generatedRows(count: 300, seed: 11)
        try ingestFile(try dir.file("g.csv", csvText(generated)), into: store)
        #expect(try count(store, "SELECT count(*) FROM incidents") == 300)
        #expect(try count(store, "SELECT count(*) FROM incidents WHERE geom IS NULL") == 0)
        #expect(
            try count(
                store,
                "SELECT count(*) FROM incidents WHERE ST_X(geom) = lon AND ST_Y(geom) = lat AND ST_SRID(geom) = 4326 AND GeometryType(geom) = 'POINT'"
            ) == 300)
        #expect(try count(store, "SELECT count(*) FROM incidents WHERE length(geohash) = 12") == 300)
        for row in try rows(store, "SELECT lat, lon, geohash FROM incidents LIMIT 20", columns: 3) {
            guard case .real(let lat) = row[0], case .real(let lon) = row[1] else {
                Issue.record("\(row)")
                continue
            }
            #expect(row[2] == .text(Geohash.encode(lat: lat, lon: lon, precision: 12)))
        }
        #expect(try count(store, "SELECT count(*) FROM idx_incidents_geom") == 300)
        #expect(try store.check() == [])
    }

    /// Frames with edges on half-grid positions: no point is within 5e-5° of an edge, far more
    /// than the R*Tree's float32 rounding, so the index and the brute force must agree exactly.
    static func frames() -> [(lon: Double, lat: Double, radius: Double)] {
        var rng = SplitMix64(seed: 5)
        return (0..<25).map { _ in
            (
                lon: -1.95 + (Double(rng.next() % 2000) + 0.5) * 1e-4,
                lat: 53.60 + (Double(rng.next() % 2000) + 0.5) * 1e-4,
                radius: Double(1 + rng.next() % 600) * 1e-4
            )
        }
    }

    static func bruteForce(_ rows: [GeneratedRow], _ f: (lon: Double, lat: Double, radius: Double)) -> Int64 {
        Int64(rows.filter { abs($0.lon - f.lon) <= f.radius && abs($0.lat - f.lat) <= f.radius }.count)
    }

    @Test("SpatialIndex frame queries equal a brute-force count over the stored rows")
    func spatialIndexEqualsBruteForce() throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: dir.path + "/s.db", create: true)
        let generated = generatedRows(count: 3000, seed: 21)
        let (report, bulk) = try ingestFile(try dir.file("s.csv", csvText(generated)), into: store, expectedRows: 0)
        #expect(!bulk)
        #expect(report.inserted == 3000)
        var nonEmpty = 0
        for frame in Self.frames() {
            let indexed = try spatialIndexCount(store, lon: frame.lon, lat: frame.lat, radius: frame.radius)
            let sql = try count(
                store, "SELECT count(*) FROM incidents WHERE lon BETWEEN ? AND ? AND lat BETWEEN ? AND ?",
                [
                    .real(frame.lon - frame.radius), .real(frame.lon + frame.radius),
                    .real(frame.lat - frame.radius), .real(frame.lat + frame.radius)
                ])
            #expect(indexed == sql, "\(frame)")
            #expect(indexed == Self.bruteForce(generated, frame), "\(frame)")
            if indexed > 0 { nonEmpty += 1 }
        }
        #expect(nonEmpty >= 15, "the frames are not all empty")
    }

    @Test("bulk mode and row-by-row mode give identical stores, triggers and indexes restored")
    func bulkEqualsRowByRow() throws {
        let dir = try TempDir()
        let first = generatedRows(count: 2500, seed: 31)
        // The second file: a third of the rows edited, the rest unchanged, and new rows.
        var second = first
        for i in stride(from: 0, to: second.count, by: 3) {
            second[i].description = "edited \(i)"
            second[i].handled = "Y"
        }
        second += generatedRows(count: 800, seed: 32)
        let firstPath = try dir.file("first.csv", csvText(first))
        let secondPath = try dir.file("second.csv", csvText(second))

        let rowStore = try IncidentStore(path: dir.path + "/row.db", create: true)
        let bulkStore = try IncidentStore(path: dir.path + "/bulk.db", create: true)
        let triggersBefore = try schemaObjects(bulkStore, type: "trigger")
        let triggerSQL = try rows(
            bulkStore, "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name", columns: 2)
        let indexesBefore = try schemaObjects(bulkStore, type: "index")
        #expect(!triggersBefore.isEmpty, "SpatiaLite maintains the geometry and its index with triggers")
        #expect(triggersBefore.contains { $0.hasPrefix("gii_") || $0.contains("geom") })

        let r1 = try ingestFile(firstPath, into: rowStore, expectedRows: 0)
        let r2 = try ingestFile(secondPath, into: rowStore, expectedRows: 0)
        let b1 = try ingestFile(firstPath, into: bulkStore, expectedRows: 10_000)
        let b2 = try ingestFile(secondPath, into: bulkStore, expectedRows: 10_000)
        #expect(!r1.bulk && !r2.bulk)
        #expect(b1.bulk && b2.bulk)
        #expect(r1.report == b1.report)
        #expect(r2.report == b2.report)
        #expect(r2.report.updated == 834 && r2.report.inserted == 800)

        #expect(try dump(rowStore) == (try dump(bulkStore)))
        #expect(try schemaObjects(bulkStore, type: "trigger") == triggersBefore)
        #expect(
            try rows(bulkStore, "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name", columns: 2)
                == triggerSQL)
        #expect(try schemaObjects(bulkStore, type: "index") == indexesBefore)
        #expect(try schemaObjects(rowStore, type: "trigger") == triggersBefore)
        #expect(try count(bulkStore, "SELECT count(*) FROM idx_incidents_geom") == 3300)
        #expect(try rowStore.check() == [])
        #expect(try bulkStore.check() == [])
        let everything = first + generatedRows(count: 800, seed: 32)
        for frame in Self.frames() {
            let a = try spatialIndexCount(rowStore, lon: frame.lon, lat: frame.lat, radius: frame.radius)
            let b = try spatialIndexCount(bulkStore, lon: frame.lon, lat: frame.lat, radius: frame.radius)
            #expect(a == b, "\(frame)")
            #expect(a == Self.bruteForce(everything, frame), "\(frame)")
        }

        // After a bulk load the restored triggers work: a row-by-row file keeps the index in step.
        let third = try dir.file("third.csv", csvText(generatedRows(count: 50, seed: 33)))
        let b3 = try ingestFile(third, into: bulkStore, expectedRows: 0)
        #expect(!b3.bulk && b3.report.inserted == 50)
        #expect(try count(bulkStore, "SELECT count(*) FROM idx_incidents_geom") == 3350)
        #expect(try count(bulkStore, "SELECT CheckSpatialIndex('incidents', 'geom')") == 1)
    }

    @Test("bulk mode is chosen only for a file large next to the store")
    func bulkChoice() throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: dir.path + "/c.db", create: true)
        let path = try dir.file("c.csv", csvText(generatedRows(count: 10, seed: 41)))
        #expect(try ingestFile(path, into: store, expectedRows: 9_999).bulk == false, "a small file")
        #expect(try ingestFile(path, into: store, expectedRows: 10_000).bulk == true, "a large file into a small store")
    }

    @Test("check() on a healthy store is empty and reports a damaged spatial index")
    func check() throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: dir.path + "/k.db", create: true)
        try ingestFile(try dir.file("k.csv", csvText(generatedRows(count: 200, seed: 51))), into: store)
        #expect(try store.check() == [])
        try store.db.execute("DELETE FROM idx_incidents_geom WHERE pkid = (SELECT min(rowid) FROM incidents)")
        let problems = try store.check()
        #expect(problems.count == 3)
        #expect(problems.contains { $0.contains("199 entries for 200 incidents") })
        #expect(problems.contains { $0.contains("1 incident(s) without an entry holding their point") })
    }

    @Test("check() reports an index entry moved away from its point (CheckSpatialIndex passes it)")
    func checkMovedEntry() throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: dir.path + "/m.db", create: true)
        try ingestFile(try dir.file("m.csv", csvText(generatedRows(count: 50, seed: 52))), into: store)
        try store.db.execute(
            "UPDATE idx_incidents_geom SET xmin = xmin + 0.5, xmax = xmax + 0.5 WHERE pkid = (SELECT min(pkid) FROM idx_incidents_geom)"
        )
        #expect(
            try store.check() == [
                "spatial index: 1 incident(s) without an entry holding their point in idx_incidents_geom (run RecoverSpatialIndex)"
            ])
    }

    @Test("a store reopens with everything it held")
    func reopen() throws {
        let dir = try TempDir()
        let path = dir.path + "/r.db"
        let before: [[SQLValue]]
        do {
            let store = try IncidentStore(path: path, create: true)
            try ingestFile(try dir.file("r.csv", csvText(generatedRows(count: 100, seed: 61))), into: store)
            before = try dump(store)
        }
        let reopened = try IncidentStore(path: path, create: false)
        #expect(try dump(reopened) == before)
        #expect(try reopened.stats().ingests.count == 1)
        #expect(try reopened.check() == [])
    }

    /// The `spatialite` command-line tool (package spatialite-bin), when it is on PATH.
    static let spatialiteTool: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { $0 + "/spatialite" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    /// SPEC §5: "The database opens in the spatialite command-line tool". Runs only where the
    /// tool is installed; everything else here goes through the store's own connection.
    @Test(
        "the store opens in the spatialite command-line tool",
        .enabled(
            if: StoreSchemaTests.spatialiteTool != nil, "skipped: the spatialite command-line tool is not installed"))
    func opensInSpatialiteTool() throws {
        let tool = try #require(Self.spatialiteTool)
        let dir = try TempDir()
        let path = dir.path + "/cli.db"
        do {
            let store = try IncidentStore(path: path, create: true)
            try ingestFile(try dir.file("cli.csv", csvText(generatedRows(count: 250, seed: 141))), into: store)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = [
            "-bail", path,
            """
            SELECT count(*) FROM incidents;
            SELECT CheckSpatialIndex('incidents', 'geom');
            SELECT f_table_name || ',' || f_geometry_column || ',' || srid FROM geometry_columns;
            SELECT count(*) FROM incidents WHERE ST_X(geom) = lon AND ST_Y(geom) = lat;
            """
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.suffix(4) == ["250", "1", "incidents,geom,4326", "250"])
    }

    // MARK: Opening what is not a store

    private func expectStoreError(
        _ path: String, create: Bool, mentioning words: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try IncidentStore(path: path, create: create)
            Issue.record("opened \(path) as a store", sourceLocation: sourceLocation)
        } catch let error as StoreError {
            #expect(error.path == path, sourceLocation: sourceLocation)
            for word in words {
                #expect(
                    error.description.lowercased().contains(word), "«\(error)» mentions \(word)",
                    sourceLocation: sourceLocation)
            }
        } catch {
            Issue.record("expected a StoreError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("a file that is not SQLite is a StoreError, with or without create")
    func notSQLite() throws {
        let dir = try TempDir()
        let text = try dir.file("text.db", String(repeating: "this is not a database\n", count: 200))
        expectStoreError(text, create: false, mentioning: ["not a valid store"])
        expectStoreError(text, create: true, mentioning: ["not a valid store"])
        #expect(try String(contentsOfFile: text, encoding: .utf8).hasPrefix("this is not"), "left as it was")
        var rng = SplitMix64(seed: 3)
        let binary = try dir.file("binary.db", bytes: (0..<8192).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        expectStoreError(binary, create: false)
    }

    @Test("a truncated store is a StoreError, not a crash")
    func truncated() throws {
        let dir = try TempDir()
        let path = dir.path + "/t.db"
        do {
            let store = try IncidentStore(path: path, create: true)
            try ingestFile(try dir.file("t.csv", csvText(generatedRows(count: 2000, seed: 71))), into: store)
        }
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(whole.count > 100_000)
        // Closing the last connection checkpoints the WAL: the database file holds everything.
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
        #expect(wal == 0)
        for keep in [whole.count / 2, 4096, 1000, 50] {
            let cut = try dir.file("cut-\(keep).db", bytes: Array(whole.prefix(keep)))
            expectStoreError(cut, create: false, mentioning: ["not a valid store"])
        }
    }

    @Test("a missing store without create, and an SQLite database that is not an areawatch store")
    func missingAndForeign() throws {
        let dir = try TempDir()
        expectStoreError(dir.path + "/missing.db", create: false, mentioning: ["no store here"])
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/missing.db"), "nothing created")
        let foreign = dir.path + "/foreign.db"
        do {
            let db = try SQLiteDatabase(path: foreign, create: true)
            try db.execute("CREATE TABLE incidents(x); CREATE TABLE other(y)")
        }
        expectStoreError(foreign, create: false, mentioning: ["not an areawatch store"])
    }
}
