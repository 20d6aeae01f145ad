import AreaWatchCore
import AreaWatchIngest
import AreaWatchTestSupport
import Foundation
import Glibc
import Testing

@testable import AreaWatchStore

/// Store errors carry SQLite's result code and read as one line; a store can be read where it
/// cannot be written; `check` writes nothing and does not wait for a running ingest.
@Suite("Store errors and read-only access")
struct StoreAccessTests {
    /// A store of `count` generated incidents, closed (its WAL checkpointed into the file).
    private func makeStore(_ dir: TempDir, _ name: String, count: Int = 600, seed: UInt64 = 5) throws -> String {
        let path = dir.path + "/" + name
        let store = try IncidentStore(path: path, create: true)
        try ingestFile(try dir.file(name + ".csv", csvText(generatedRows(count: count, seed: seed))), into: store)
        return path
    }

    private func storeError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> StoreError?
    {
        do {
            try body()
            Issue.record("expected a StoreError", sourceLocation: sourceLocation)
        } catch let error as StoreError {
            return error
        } catch {
            Issue.record("expected a StoreError, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    @Test("a result code matches its primary code and itself; extended codes keep their detail")
    func resultCodes() {
        let primaryKey = ResultCode.constraintPrimaryKey
        #expect(primaryKey.primary == .constraint)
        #expect(ResultCode.constraint ~= primaryKey)
        #expect(!(ResultCode.busy ~= primaryKey))
        #expect(!(primaryKey ~= ResultCode.constraint), "an extended pattern matches only itself")
        #expect(ResultCode.busy ~= ResultCode.busySnapshot)
        #expect(ResultCode.readonly ~= ResultCode.readonlyCantInit)
        #expect(
            primaryKey.description.contains("constraint failed") && primaryKey.description.contains("1555"),
            "\(primaryKey.description)")
    }

    @Test("a failing statement: its code, its SQL on one line, its arguments (text cut at 32 characters)")
    func errorsAreOneLine() throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: try makeStore(dir, "e.db"), mode: .readWrite)
        let key = try #require(try rows(store, "SELECT key FROM incidents LIMIT 1").first?.first)
        guard case .text(let existing) = key else {
            Issue.record("a text key")
            return
        }
        let long = String(repeating: "private description ", count: 20)
        let insert = try store.db.prepare(
            """
            INSERT INTO incidents(key, time, time_precision, lat, lon, geohash, description)
            VALUES (?, ?, 'second',
                    ?, ?, 'gcw', ?)
            """)
        let error = storeError {
            try insert.bind([.text(existing), .integer(1_530_000_000), .real(53.5), .real(-1.5), .text(long)])
            try insert.run()
        }
        let e = try #require(error)
        #expect(ResultCode.constraint ~= e.code && e.code == ResultCode.constraintPrimaryKey, "\(e.code)")
        let text = e.description
        #expect(!text.contains("\n") && !text.contains("  "), "one line, spaces collapsed: \(text)")
        #expect(text.contains("VALUES (?, ?, 'second', ?, ?, 'gcw', ?)"), "\(text)")
        #expect(
            text.contains(
                "with arguments ['\(existing)', 1530000000, 53.5, -1.5, 'private description private desc…']"),
            "\(text)")
        #expect(!text.contains(long), "long text is cut")
        // SQL from `execute` (several statements over several lines), cut at 160 characters.
        let many = storeError {
            try store.db.execute(
                "CREATE TABLE ingests(\n    x INTEGER,\n    y TEXT);\n" + String(repeating: "SELECT 1;\n", count: 40))
        }
        let m = try #require(many)
        #expect(ResultCode.error ~= m.code && !m.description.contains("\n"), "\(m.description)")
        #expect(
            m.description.contains("(while executing: CREATE TABLE ingests( x INTEGER, y TEXT); SELECT 1;"),
            "\(m.description)")
        #expect(m.description.count < m.path.count + m.message.count + 200, "\(m.description)")
    }

    @Test("a read-only store reads as the store it is and refuses writes with .readonly")
    func readOnlyMode() throws {
        let dir = try TempDir()
        let path = try makeStore(dir, "r.db")
        let expected = try dump(try IncidentStore(path: path, mode: .readWrite))
        let reader = try IncidentStore(path: path, mode: .readOnly)
        #expect(try dump(reader) == expected)
        #expect(try reader.stats().incidents == expected.count)
        #expect(try reader.check() == [])
        let write = try #require(storeError { try reader.db.execute("DELETE FROM incidents") })
        #expect(ResultCode.readonly ~= write.code, "\(write)")
        #expect(try count(reader, "SELECT count(*) FROM incidents") == Int64(expected.count))
        let missing = try #require(storeError { _ = try IncidentStore(path: dir.path + "/none.db", mode: .readOnly) })
        #expect(missing.code == .cantopen && !FileManager.default.fileExists(atPath: dir.path + "/none.db"))
    }

    /// Root passes permission bits, so a read-only folder is simulated where it matters to
    /// SQLite: the `-shm` file can be neither created nor opened (its name is a dangling
    /// symbolic link, which SQLite does not follow), as in a folder without write permission.
    @Test("where the -shm file cannot be made, a read-only store is opened immutable; not with commits in its WAL")
    func readOnlyWithoutSharedMemory() throws {
        let dir = try TempDir()
        let path = try makeStore(dir, "i.db")
        let expected = try dump(try IncidentStore(path: path, mode: .readWrite))
        func blockSharedMemory(_ store: String) throws {
            try? FileManager.default.removeItem(atPath: store + "-shm")
            try FileManager.default.createSymbolicLink(
                atPath: store + "-shm", withDestinationPath: dir.path + "/missing/shm")
        }
        try blockSharedMemory(path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // What the fallback is for: neither a read-write nor a plain read-only connection reads.
        let refused = try #require(storeError { _ = try IncidentStore(path: path, mode: .readWrite) })
        #expect(ResultCode.cantopen ~= refused.code, "\(refused)")
        let plain = try SQLiteDatabase(path: path, create: false, readOnly: true)
        let plainRefused = try #require(storeError { _ = try plain.integer("SELECT count(*) FROM incidents") })
        #expect(ResultCode.cantopen ~= plainRefused.code || ResultCode.readonly ~= plainRefused.code, "\(plainRefused)")
        try? FileManager.default.removeItem(atPath: path + "-wal") // the read-write attempt made an empty one
        let store = try IncidentStore(path: path, mode: .readOnly)
        #expect(try dump(store) == expected)
        #expect(try store.check() == [])
        // (SQLite's failed read-only attempt leaves an empty -wal where the folder allows it.)
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(wal == 0 && after == bytes, "nothing written")
        #expect(try count(store, "SELECT count(*) FROM incidents") == Int64(expected.count))

        // A store whose WAL holds commits (a writer that has not checkpointed) copied beside a
        // blocked -shm: immutable would miss those commits, so it is an error.
        let copy = dir.path + "/w.db"
        let writer = try IncidentStore(path: dir.path + "/source.db", mode: .create)
        try writer.db.execute("PRAGMA wal_autocheckpoint=0")
        try ingestFile(try dir.file("more.csv", csvText(generatedRows(count: 50, seed: 9))), into: writer)
        let walSize = (try FileManager.default.attributesOfItem(atPath: writer.path + "-wal")[.size] as? Int) ?? 0
        try #require(walSize > 0, "the writer's WAL holds its commits")
        try FileManager.default.copyItem(atPath: writer.path, toPath: copy)
        try FileManager.default.copyItem(atPath: writer.path + "-wal", toPath: copy + "-wal")
        try blockSharedMemory(copy)
        let stale = try #require(storeError { _ = try IncidentStore(path: copy, mode: .readOnly) })
        #expect(
            stale.path == copy && stale.description.contains("write-ahead log") && !stale.description.contains("\n"),
            "\(stale)")
    }

    @Test(
        "a folder without write permission (as a non-root user)",
        .enabled(if: getuid() != 0, "root passes permission bits; the -shm test above stands in"))
    func readOnlyFolder() throws {
        let dir = try TempDir()
        let path = try makeStore(dir, "p.db")
        let expected = try dump(try IncidentStore(path: path, mode: .readWrite))
        chmod(dir.path, 0o555)
        defer { chmod(dir.path, 0o755) }
        #expect(try dump(try IncidentStore(path: path, mode: .readOnly)) == expected)
        #expect(throws: StoreError.self) {
            _ = try IncidentStore(path: path, mode: .readWrite).db.execute("DELETE FROM incidents")
        }
    }

    @Test("check beside a running ingest: no wait for its lock, nothing written, the index checked")
    func checkBesideAWriter() throws {
        let dir = try TempDir()
        let path = try makeStore(dir, "c.db")
        let history = try count(
            try IncidentStore(path: path, mode: .readWrite), "SELECT count(*) FROM spatialite_history")
        // Another connection holds the write lock, as an ingest does for a whole file.
        let writer = try SQLiteDatabase(path: path, create: false)
        try writer.execute("BEGIN IMMEDIATE; UPDATE ingests SET records = records")
        defer { try? writer.execute("ROLLBACK") }
        for mode in [IncidentStore.Mode.readWrite, .readOnly] {
            let store = try IncidentStore(path: path, mode: mode)
            let start = MonotonicClock.now()
            #expect(try store.check() == [])
            // Before: SpatiaLite's history insert waited the 5 s busy timeout, then printed
            // "database is locked" while the check passed.
            #expect(MonotonicClock.now() - start < 4, "\(mode): no wait for the writer's lock")
            #expect(
                try count(store, "SELECT count(*) FROM main.spatialite_history") == history, "\(mode): nothing written")
        }
        // The check still finds a damaged index.
        try writer.execute("ROLLBACK; BEGIN")
        try writer.execute("UPDATE idx_incidents_geom SET xmin = xmin + 1, xmax = xmax + 1 WHERE pkid = 1")
        try writer.execute("COMMIT")
        let problems = try IncidentStore(path: path, mode: .readOnly).check()
        #expect(problems.contains { $0.contains("idx_incidents_geom") }, "\(problems)")
    }
}
