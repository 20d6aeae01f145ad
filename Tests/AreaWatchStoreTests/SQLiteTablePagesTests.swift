import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchStore

/// A table's pages laid out by `SQLiteTablePages` read back through SQLite: `integrity_check`
/// passes and every row equals the same row inserted by SQLite, for trees of one leaf, of two
/// and three interior levels (small pages), and payloads that spill to overflow chains.
@Suite("SQLite table pages")
struct SQLiteTablePagesTests {
    /// A row: an integer of any width, a real (sometimes whole), a text, a blob of 0…`maxBlob`
    /// bytes, some values NULL.
    static func rows(seed: UInt64, count: Int, maxBlob: Int) -> [(values: [SQLValue], blob: [UInt8])] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { k in
            let shift = rng.next() % 64
            let int = Int64(bitPattern: rng.next() >> shift) * (rng.next() % 2 == 0 ? 1 : -1)
            let integer: SQLValue = rng.next() % 7 == 0 ? .null : .integer([0, 1, int][Int(rng.next() % 3)])
            let real: SQLValue = rng.next() % 5 == 0 ? .real(Double(k)) : .real(Double(rng.next() % 1_000_000) / 7)
            let text: SQLValue =
                rng.next() % 9 == 0 ? .null : .text("row \(k) " + String(repeating: "é", count: k % 13))
            let blob = (0..<Int(rng.next() % UInt64(maxBlob + 1))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            return ([integer, real, text], blob)
        }
    }

    static let schema = "CREATE TABLE t (id INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT, b BLOB)"

    /// The rows written by SQLite's INSERT at `sqlitePath` and as pages at `pagesPath`.
    static func write(
        _ rows: [(values: [SQLValue], blob: [UInt8])], pageSize: Int, sqlitePath: String, pagesPath: String
    ) throws {
        for path in [sqlitePath, pagesPath] {
            let db = try SQLiteDatabase(path: path, create: true, spatiaLite: false)
            try db.execute("PRAGMA page_size = \(pageSize); PRAGMA journal_mode = OFF; BEGIN; \(schema)")
            if path == sqlitePath {
                let insert = try db.prepare("INSERT INTO t (i, r, s, b) VALUES (?, ?, ?, ?)")
                for row in rows {
                    try insert.bind(row.values)
                    try row.blob.withUnsafeBufferPointer { blob in
                        insert.bind(4, borrowedBlob: blob)
                        try insert.run()
                    }
                }
            }
            let root = try #require(try db.integer("SELECT rootpage FROM sqlite_schema WHERE name = 't'"))
            try db.execute("COMMIT")
            db.close()
            guard path == pagesPath else { continue }
            let pages = SQLiteTablePages(pageSize: pageSize)
            var head = SQLiteRecord(), record = SQLiteRecord()
            for row in rows {
                head.appendNull()
                for value in row.values {
                    switch value {
                    case .null: record.appendNull()
                    case .integer(let v): record.append(v)
                    case .real(let v): record.append(v)
                    case .text(let v): record.appendText(Array(v.utf8).span.bytes)
                    }
                }
                record.appendBlob(row.blob.span.bytes)
                pages.appendRecord(size: record.size(after: head)) { record.finish(after: &head, to: $0) }
            }
            try SQLiteFilePages.append([(pages, Int(root))], toFile: path)
        }
    }

    static func contents(_ path: String) throws -> (check: String, rows: [[SQLValue]]) {
        let db = try SQLiteDatabase(path: path, create: false, spatiaLite: false)
        defer { db.close() }
        guard case .text(let check)? = try db.scalar("PRAGMA integrity_check") else { return ("no answer", []) }
        let select = try db.prepare("SELECT id, i, r, s, hex(b) FROM t ORDER BY id")
        var rows: [[SQLValue]] = []
        while try select.step() { rows.append((0..<5).map { select.value(Int32($0)) }) }
        return (check, rows)
    }

    @Test(
        "pages equal SQLite's own table, row for row, and pass integrity_check",
        arguments: [
            (rows: 1, pageSize: 4096, maxBlob: 40), (rows: 20, pageSize: 4096, maxBlob: 40),
            (rows: 3_000, pageSize: 4096, maxBlob: 300), (rows: 20_000, pageSize: 512, maxBlob: 30),
            (rows: 400, pageSize: 512, maxBlob: 3_000), (rows: 300, pageSize: 4096, maxBlob: 20_000)
        ])
    func sameAsSQLite(rows count: Int, pageSize: Int, maxBlob: Int) throws {
        let tmp = try TempDir()
        let rows = Self.rows(seed: UInt64(count * pageSize + maxBlob), count: count, maxBlob: maxBlob)
        let (a, b) = (tmp.sub("sqlite.db"), tmp.sub("pages.db"))
        try Self.write(rows, pageSize: pageSize, sqlitePath: a, pagesPath: b)
        let (expected, actual) = (try Self.contents(a), try Self.contents(b))
        #expect(actual.check == "ok")
        #expect(actual.rows.count == count)
        #expect(actual.rows == expected.rows)
        // The layout being tested: more than one level of interior pages on small pages.
        if count == 20_000 {
            let db = try SQLiteDatabase(path: b, create: false, spatiaLite: false)
            defer { db.close() }
            #expect(try db.integer("PRAGMA page_count").map { $0 > 2_000 } == true)
        }
    }

    @Test("a single leaf with an overflow chain is the root, its chain before it")
    func oneLeafWithOverflow() throws {
        let tmp = try TempDir()
        var rows = Self.rows(seed: 5, count: 2, maxBlob: 10)
        rows[0].blob = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let (a, b) = (tmp.sub("sqlite.db"), tmp.sub("pages.db"))
        try Self.write(rows, pageSize: 4096, sqlitePath: a, pagesPath: b)
        let (expected, actual) = (try Self.contents(a), try Self.contents(b))
        #expect(actual.check == "ok")
        #expect(actual.rows == expected.rows)
        // Two overflow pages (10 000 bytes past the local part need two of 4 092), no leaf beside the root.
        let db = try SQLiteDatabase(path: b, create: false, spatiaLite: false)
        defer { db.close() }
        let sqlite = try SQLiteDatabase(path: a, create: false, spatiaLite: false)
        defer { sqlite.close() }
        #expect(try db.integer("PRAGMA page_count") == sqlite.integer("PRAGMA page_count"))
    }

    @Test("varints of 1 to 9 bytes as SQLite reads them back as rowids and sizes")
    func varints() {
        /// SQLite's reading of a varint (sqlite3GetVarint).
        func read(_ bytes: ArraySlice<UInt8>) -> UInt64 {
            var v: UInt64 = 0
            for (j, byte) in bytes.enumerated() {
                if j == 8 { return v << 8 | UInt64(byte) }
                v = v << 7 | UInt64(byte & 0x7F)
                if byte & 0x80 == 0 { return v }
            }
            return v
        }
        for (v, length) in [(0, 1), (127, 1), (128, 2), (16_383, 2), (16_384, 3), (1 << 56 - 1, 8), (1 << 56, 9)] {
            #expect(SQLiteVarint.length(UInt64(v)) == length)
            var placed = [UInt8](repeating: 0, count: 11)
            #expect(placed.withUnsafeMutableBytes { SQLiteVarint.put(UInt64(v), at: 1, in: $0) } == length)
            #expect(read(placed[1...]) == UInt64(v))
            #expect(placed[1 + length] == 0)
        }
        var out = [UInt8](repeating: 0, count: 9)
        #expect(out.withUnsafeMutableBytes { SQLiteVarint.put(UInt64.max, at: 0, in: $0) } == 9)
        #expect(out == [UInt8](repeating: 0xFF, count: 9))
    }
}
