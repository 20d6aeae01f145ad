import AreaWatchCore
import AreaWatchIngest
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchStore

/// A bulk load hands the column snapshot the rows it inserted, captured as they went in
/// (`FileTransaction.takeInsertedColumns`), instead of the snapshot reading them back from the
/// store. The captured snapshot must be exactly the one reading them back gives (a second
/// keeper of the same store, handed nothing, reads them back inside the same transaction):
/// every column, the category numbering and the bytes of the written file.
@Suite("Column snapshot captured by a bulk load")
struct ColumnSnapshotCaptureTests {
    /// Seeded rows with what a real export holds: repeated keys (edited and identical), rejects,
    /// -0.0 coordinates, a category in two Unicode forms, one longer than the interner keeps and
    /// more distinct categories than it holds.
    static func text(count: Int, seed: UInt64, editing earlier: [GeneratedRow] = []) -> (String, [GeneratedRow]) {
        var rows = generatedRows(count: count, seed: seed)
        var rng = SplitMix64(seed: seed ^ 0xC0FFEE)
        let long = String(repeating: "Other crime, not elsewhere classified; ", count: 5)
        for i in rows.indices {
            switch rng.next() % 50 {
            case 0: rows[i].lat = -0.0
            case 1: rows[i].lon = -0.0
            case 2: rows[i].category = rng.next() % 2 == 0 ? "caf\u{E9}" : "cafe\u{301}"
            case 3: rows[i].category = long
            case 4...15: rows[i].category = "kind \(rng.next() % 400)"
            default: break
            }
        }
        // Repeats of this file's and of earlier files' rows: edits (the later content wins, so
        // a row inserted by this file is updated by it) and identical copies.
        let pool = (rows + earlier).filter { !$0.id.isEmpty }
        for _ in 0..<count / 8 {
            var row = pool[Int(rng.next() % UInt64(pool.count))]
            if rng.next() % 2 == 0 {
                row.category = "edited \(rng.next() % 3)"
                row.lat += 0.001
                row.handled = "Y"
            }
            rows.append(row)
        }
        var text = csvText(rows)
        for k in 0..<count / 20 {
            text +=
                [
                    "bad-\(seed)-\(k),north,-1.9,1500000000,Burglary,Y,,\n",
                    "late-\(seed)-\(k),53.7,-1.9,,Burglary,N,,\n",
                    "far-\(seed)-\(k),95,-1.9,1500000000,,,,\n"
                ][k % 3]
        }
        return (text, rows)
    }

    /// The snapshot of the whole table read back in rowid order (what a keeper builds for a
    /// store that was empty).
    static func readBack(_ store: IncidentStore) throws -> ColumnSnapshot {
        var snapshot = ColumnSnapshot(stamp: try #require(try store.stamp()))
        #expect(try store.appendRows(after: 0, to: &snapshot))
        return snapshot
    }

    static func fileBytes(_ snapshot: ColumnSnapshot, _ path: String) throws -> Data {
        try ColumnSnapshotFile.write(snapshot, to: path)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @Test("equals the read-back snapshot, into an empty store and in a second bulk load", arguments: [7, 64, 1 << 17])
    func capturedEqualsReadBack(chunkSize: Int) throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: dir.path + "/s.db", create: true)
        let keeper = ColumnSnapshotKeeper(store: store)
        let readingBack = ColumnSnapshotKeeper(store: store)
        var earlier: [GeneratedRow] = []
        for (k, count) in [2400, 1500].enumerated() {
            let (text, rows) = Self.text(count: count, seed: 70 + UInt64(k), editing: earlier)
            earlier += rows
            let path = try dir.file("f\(k).csv", text)
            let digest = try FileDigest.sha256(path: path)
            // Both files in bulk mode: the first into the empty store (sorted chunks), the second
            // told it is large (row by row with the indexes dropped).
            let transaction = try FileTransaction(
                store: store, source: "f\(k).csv", expectedRows: k == 0 ? 20_000 : 1_000_000,
                chunkSize: chunkSize)
            #expect(transaction.bulk)
            var captured: InsertedColumns?
            keeper.begin()
            readingBack.begin()
            transaction.beforeCommit = { t in
                captured = t.takeInsertedColumns()
                keeper.prepareCommit(updatedRowids: t.updatedRowids, inserted: captured)
                readingBack.prepareCommit(updatedRowids: t.updatedRowids)
            }
            var sink = transaction
            let report = try FileIngester.ingest(
                path: path, sha256: digest.hex, bytes: digest.bytes, options: IngestOptions(),
                into: &sink, rejects: nil)
            try transaction.commit(testLogEntry(path, digest, report))
            keeper.committed()
            readingBack.committed()
            #expect(report.rejected > 0 && report.updated > 0 && report.duplicates > 0, "file \(k): \(report)")
            #expect(captured?.count == report.inserted, "file \(k): the inserted rows were captured")
            #expect(!keeper.takeNotes().contains { $0.contains("rebuilt") }, "file \(k): applied, not rebuilt")

            let kept = try #require(keeper.current)
            let reference = try #require(readingBack.current)
            if k == 0 { #expect(try Self.readBack(store) == reference, "a store that was empty: the whole table") }
            #expect(kept.count == reference.count)
            #expect(kept == reference, "file \(k), chunks of \(chunkSize): captured and read-back snapshots differ")
            func firstDifference<T: Equatable>(_ a: [T], _ b: [T]) -> String {
                guard let i = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset else {
                    return a.count == b.count ? "" : "lengths \(a.count), \(b.count)"
                }
                return "row \(i): \(a[i]) against \(b[i])"
            }
            #expect(firstDifference(kept.lat.map(\.bitPattern), reference.lat.map(\.bitPattern)) == "", "lat")
            #expect(firstDifference(kept.lon.map(\.bitPattern), reference.lon.map(\.bitPattern)) == "", "lon")
            #expect(firstDifference(kept.time, reference.time) == "", "time")
            #expect(firstDifference(kept.handled, reference.handled) == "", "handled")
            #expect(firstDifference(kept.category, reference.category) == "", "category")
            #expect(
                firstDifference(
                    kept.categoryTexts.map { Array($0.utf8) }, reference.categoryTexts.map { Array($0.utf8) }) == "",
                "texts")
            #expect(
                kept.lat.contains { $0 == 0 } && !kept.lat.contains { $0.bitPattern == (-0.0 as Double).bitPattern },
                "-0.0 is kept as +0.0, as SQLite reads it back")
            #expect(kept.categoryTexts.count > 256, "more categories than the interner holds")
            #expect(
                try Self.fileBytes(kept, dir.path + "/kept.columns")
                    == (try Self.fileBytes(reference, dir.path + "/read.columns")))
        }
    }

    @Test(
        "captured only when a snapshot can take them: not into a store holding rows without one",
        arguments: [false, true])
    func capturedOnlyWhenUsable(withSnapshot: Bool) throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: dir.path + "/s.db", create: true)
        let (first, rows) = Self.text(count: 600, seed: 80)
        let firstPath = try dir.file("a.csv", first)
        if withSnapshot {
            try ColumnSnapshotStoreTests.ingestAndSave(firstPath, into: store)
        } else {
            try ingestFile(firstPath, into: store)
        }
        let (second, _) = Self.text(count: 900, seed: 81, editing: rows)
        let path = try dir.file("b.csv", second)
        let digest = try FileDigest.sha256(path: path)
        let transaction = try FileTransaction(store: store, source: "b.csv", expectedRows: 1_000_000)
        let keeper = ColumnSnapshotKeeper(store: store)
        keeper.begin()
        #expect(keeper.mayUseInsertedColumns == withSnapshot)
        transaction.capturesColumns = keeper.mayUseInsertedColumns
        var captured: InsertedColumns?
        transaction.beforeCommit = { t in
            captured = t.takeInsertedColumns()
            keeper.prepareCommit(updatedRowids: t.updatedRowids, inserted: captured)
        }
        var sink = transaction
        let report = try FileIngester.ingest(
            path: path, sha256: digest.hex, bytes: digest.bytes, options: IngestOptions(),
            into: &sink, rejects: nil)
        try transaction.commit(testLogEntry(path, digest, report))
        keeper.committed()
        #expect(transaction.bulk && report.inserted > 0 && report.updated > 0)
        #expect((captured != nil) == withSnapshot)
        #expect(keeper.takeNotes().contains { $0.contains("rebuilt") } == !withSnapshot)
        #expect(keeper.save() != nil)
        try ColumnSnapshotStoreTests.expectSnapshotMatches(store, "with a snapshot before: \(withSnapshot)")
    }

    @Test(
        "coordinates as SQLite reads them back: -0.0 becomes +0.0, every other value unchanged, the array shared when none is -0.0"
    )
    func asStored() {
        let values: [Double] = [-0.0, 1.5, 0, -2.25, .infinity, -0.0]
        #expect(
            InsertedColumns.asStored(values).map(\.bitPattern) == [0, 1.5, 0, -2.25, .infinity, 0].map(\.bitPattern))
        let plain: [Double] = [0, 53.7, -1.9]
        InsertedColumns.asStored(plain).withUnsafeBufferPointer { copy in
            plain.withUnsafeBufferPointer { #expect(copy.baseAddress == $0.baseAddress) }
        }
    }
}
