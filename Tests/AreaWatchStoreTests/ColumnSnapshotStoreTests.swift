import AreaWatchCore
import AreaWatchIngest
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchStore

/// The column snapshot against the store it stands for (docs/DECISIONS.md, "column snapshot"):
/// kept in step by each ingest (new rows, updated rows, bulk and row-by-row), always equal to a
/// scan of the store when it is used, and refused as stale after any write it did not see — an
/// older areawatch's ingest (row by row or bulk), a hand edit, a deletion, another store.
@Suite("Column snapshot and the store")
struct ColumnSnapshotStoreTests {
    /// Ingests one file as `areawatch ingest` does, with the column snapshot kept in step.
    @discardableResult
    static func ingest(
        _ path: String, into store: IncidentStore, keeper: ColumnSnapshotKeeper,
        expectedRows: Int? = nil
    ) throws -> FileIngestReport {
        let digest = try FileDigest.sha256(path: path)
        let transaction = try FileTransaction(
            store: store, source: URL(fileURLWithPath: path).lastPathComponent,
            expectedRows: expectedRows ?? Int(digest.bytes / 150))
        keeper.begin()
        transaction.beforeCommit = { keeper.prepareCommit($0) }
        do {
            var sink = transaction
            let report = try FileIngester.ingest(
                path: path, sha256: digest.hex, bytes: digest.bytes, options: IngestOptions(),
                into: &sink, rejects: nil)
            try transaction.commit(testLogEntry(path, digest, report))
            keeper.committed()
            return report
        } catch {
            transaction.rollback()
            keeper.rolledBack()
            throw error
        }
    }

    /// `ingest`, then the snapshot written, as at the end of `areawatch ingest`.
    static func ingestAndSave(_ path: String, into store: IncidentStore) throws {
        let keeper = ColumnSnapshotKeeper(store: store)
        try ingest(path, into: store, keeper: keeper)
        #expect(keeper.save() != nil)
    }

    /// The snapshot file is valid for the store's state and gives exactly the columns a scan gives.
    static func expectSnapshotMatches(
        _ store: IncidentStore, _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let stamp = try #require(try store.stamp(), sourceLocation: sourceLocation)
        guard
            case .valid(let snapshot) = ColumnSnapshotFile.read(
                path: ColumnSnapshotFile.path(forStore: store.path), expecting: stamp)
        else {
            Issue.record("\(context): no valid snapshot", sourceLocation: sourceLocation)
            return
        }
        let a = snapshot.incidentColumns()
        let b = try store.loadColumns()
        #expect(a.count == b.count, "\(context)", sourceLocation: sourceLocation)
        #expect(
            a.lat == b.lat && a.lon == b.lon && a.time == b.time && a.handled == b.handled, "\(context)",
            sourceLocation: sourceLocation)
        #expect(a.category == b.category, "\(context)", sourceLocation: sourceLocation)
        #expect(
            a.categories.map { Array($0.utf8) } == b.categories.map { Array($0.utf8) }, "\(context)",
            sourceLocation: sourceLocation)
        #expect(a.group == b.group && a.keys.isEmpty, "\(context)", sourceLocation: sourceLocation)
    }

    /// Stale: the snapshot's file is there but does not match the store any more.
    static func expectStale(
        _ store: IncidentStore, _ context: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let stamp = try #require(try store.stamp(), sourceLocation: sourceLocation)
        switch ColumnSnapshotFile.read(path: ColumnSnapshotFile.path(forStore: store.path), expecting: stamp) {
        case .invalid(let reason):
            #expect(reason.contains("stale"), "\(context): \(reason)", sourceLocation: sourceLocation)
        case .valid:
            Issue.record(
                "\(context): a snapshot that missed a write was taken as valid", sourceLocation: sourceLocation)
        case .missing: Issue.record("\(context): the snapshot disappeared", sourceLocation: sourceLocation)
        }
    }

    /// A file of `count` new seeded rows, plus edits of rows of earlier files: moved, recategorised
    /// (new categories, and "café" in its two Unicode forms), and unchanged repeats.
    static func file(_ dir: TempDir, _ name: String, count: Int, seed: UInt64, editing earlier: [GeneratedRow]) throws
        -> (String, [GeneratedRow])
    {
        var rows = generatedRows(count: count, seed: seed)
        var rng = SplitMix64(seed: seed &* 31)
        let categories = ["caf\u{E9}", "cafe\u{301}", "Robbery \(seed)", "Burglary"]
        for old in earlier.filter({ !$0.id.isEmpty }).prefix(40) {
            var edited = old
            switch rng.next() % 3 {
            case 0: edited.category = categories[Int(rng.next() % UInt64(categories.count))]
            case 1:
                edited.lat += 0.001
                edited.handled = "Y"
            default: break // the same record again: a duplicate
            }
            rows.append(edited)
        }
        return (try dir.file(name, csvText(rows)), rows)
    }

    @Test(
        "kept in step file after file: new rows, updates, duplicates, bulk and row by row", arguments: [UInt64(1), 2, 3]
    )
    func keptInStep(seed: UInt64) throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: dir.path + "/s.db", create: true)
        var all: [GeneratedRow] = []
        for k in 0..<5 {
            let (path, rows) = try Self.file(
                dir, "f\(k).csv", count: [600, 80, 300, 5, 150][k], seed: seed * 10 + UInt64(k), editing: all)
            let keeper = ColumnSnapshotKeeper(store: store)
            // The first file goes in bulk mode (an empty store); so does the third, told it is large.
            let report = try Self.ingest(path, into: store, keeper: keeper, expectedRows: k == 2 ? 1_000_000 : nil)
            #expect(keeper.save() != nil)
            #expect(!keeper.takeNotes().contains { $0.contains("rebuilt") }, "file \(k) was applied, not rebuilt")
            if k > 0 { #expect(report.updated > 0, "file \(k) updates incidents") }
            try Self.expectSnapshotMatches(store, "seed \(seed), after file \(k)")
            all += rows
        }
    }

    @Test("stale after an older areawatch's ingest, row by row or bulk, or a hand edit; the next ingest rebuilds it")
    func staleAfterForeignWrites() throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: dir.path + "/s.db", create: true)
        let (first, _) = try Self.file(dir, "a.csv", count: 300, seed: 5, editing: [])
        try Self.ingestAndSave(first, into: store)
        try Self.expectSnapshotMatches(store, "after the first ingest")
        func run(_ db: IncidentStore, _ sql: String, _ key: String) throws {
            let statement = try db.db.prepare(sql)
            try statement.bind([.text(key)])
            try statement.run()
        }
        let insert = """
            INSERT INTO incidents(key, time, time_precision, lat, lon, geohash, category, handled, source, geom)
            VALUES(?, 1500000000, 'second', 53.7, -1.85, 'gcwc', 'Burglary', 1, 'old', MakePoint(-1.85, 53.7, 4326))
            """
        let logRow = """
            INSERT INTO ingests(file, sha256, bytes, records, accepted, updated, duplicates, rejected, started_at, finished_at)
            VALUES('old.csv', ?, 1, 1, 1, 0, 0, 0, '2020-01-01T00:00:00Z', '2020-01-01T00:00:00Z')
            """

        // An older areawatch, row by row: its inserts fire the stamp's triggers, its log row counts.
        let copy1 = try copyStore(store, dir, "old-rows.db")
        try copy1.db.execute("BEGIN")
        try run(copy1, insert, "old-1")
        try run(copy1, logRow, "sha-1")
        try copy1.db.execute("COMMIT")
        try Self.expectStale(copy1, "older areawatch, row by row")

        // An older areawatch in bulk mode: every trigger on incidents dropped while it inserts,
        // restored verbatim, the stamp not advanced — the new rowids and its log row still show.
        let copy2 = try copyStore(store, dir, "old-bulk.db")
        try copy2.db.execute("BEGIN")
        let triggers = try copy2.beginBulkLoad()
        #expect(triggers.contains { $0.contains("store_state") })
        try run(copy2, insert, "old-2")
        for sql in triggers { try copy2.db.execute(sql) }
        try run(copy2, logRow, "sha-2")
        try copy2.db.execute("COMMIT")
        try Self.expectStale(copy2, "older areawatch, bulk mode")

        // By hand: an update in place (same rows, same log), a deletion.
        let copy3 = try copyStore(store, dir, "edited.db")
        try copy3.db.execute("UPDATE incidents SET category = 'Edited' WHERE rowid = 2")
        try Self.expectStale(copy3, "hand edit")
        let copy4 = try copyStore(store, dir, "deleted.db")
        try copy4.db.execute("DELETE FROM incidents WHERE rowid = 3")
        try Self.expectStale(copy4, "hand deletion")

        // The next ingest through areawatch finds the snapshot stale and reads the store instead.
        for (copy, name) in [(copy1, "row by row"), (copy2, "bulk"), (copy3, "edit"), (copy4, "deletion")] {
            let (more, _) = try Self.file(dir, "more-\(name).csv", count: 50, seed: 6, editing: [])
            let keeper = ColumnSnapshotKeeper(store: copy)
            try Self.ingest(more, into: copy, keeper: keeper)
            keeper.save()
            let notes = keeper.takeNotes()
            #expect(
                notes.contains { $0.contains("stale") } && notes.contains { $0.contains("rebuilt") },
                "\(name): \(notes)")
            try Self.expectSnapshotMatches(copy, "\(name), then a new ingest")
        }
        // With a row deleted the rowids have a gap: the snapshot says so, and the next ingest
        // reads the store again rather than patch rows by position.
        guard
            case .valid(let gapped) = ColumnSnapshotFile.read(
                path: ColumnSnapshotFile.path(forStore: copy4.path),
                expecting: try #require(try copy4.stamp()))
        else {
            Issue.record("no snapshot after the deletion")
            return
        }
        #expect(!gapped.rowidsAreDense)
        let (last, _) = try Self.file(dir, "last.csv", count: 20, seed: 7, editing: [])
        let again = ColumnSnapshotKeeper(store: copy4)
        try Self.ingest(last, into: copy4, keeper: again)
        again.save()
        #expect(again.takeNotes().contains { $0.contains("rebuilt") })
        try Self.expectSnapshotMatches(copy4, "gapped rowids, then another ingest")
    }

    /// A copy of the store and its snapshot under another name (the store closed meanwhile
    /// holds no uncommitted state: each write above is its own transaction).
    func copyStore(_ store: IncidentStore, _ dir: TempDir, _ name: String) throws -> IncidentStore {
        try store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let target = dir.path + "/" + name
        try FileManager.default.copyItem(atPath: store.path, toPath: target)
        try FileManager.default.copyItem(
            atPath: ColumnSnapshotFile.path(forStore: store.path),
            toPath: ColumnSnapshotFile.path(forStore: target))
        let copy = try IncidentStore(path: target, mode: .readWrite)
        try Self.expectSnapshotMatches(copy, "a fresh copy")
        return copy
    }

    @Test("another store's snapshot is refused even when both hold the same incidents")
    func foreignSnapshot() throws {
        let dir = try TempDir()
        let (path, _) = try Self.file(dir, "a.csv", count: 200, seed: 11, editing: [])
        let a = try IncidentStore(path: dir.path + "/a.db", create: true)
        let b = try IncidentStore(path: dir.path + "/b.db", create: true)
        try Self.ingestAndSave(path, into: a)
        try Self.ingestAndSave(path, into: b)
        let aStamp = try #require(try a.stamp()), bStamp = try #require(try b.stamp())
        #expect(aStamp.generation == bStamp.generation && aStamp.lastIncidentRowid == bStamp.lastIncidentRowid)
        guard
            case .invalid(let reason) = ColumnSnapshotFile.read(
                path: ColumnSnapshotFile.path(forStore: a.path), expecting: bStamp)
        else {
            Issue.record("a's snapshot was taken for b's store")
            return
        }
        #expect(reason.contains("stale"))
    }

    @Test("a file rolled back leaves the snapshot of the state before it")
    func rolledBack() throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: dir.path + "/s.db", create: true)
        let (first, rows) = try Self.file(dir, "a.csv", count: 120, seed: 12, editing: [])
        let keeper = ColumnSnapshotKeeper(store: store)
        try Self.ingest(first, into: store, keeper: keeper)
        let before = try #require(keeper.save())
        var text =
            "{\"posts\": {\n\"\(rows.first { !$0.id.isEmpty }!.id)\": {\"latitude\": 1, \"longitude\": 1, \"timestamp\": 1},\n"
        text += "\"cut\": {\"latitude\": 53.7, \"longitude\": -1."
        let broken = try dir.file("broken.json", text)
        #expect(throws: InputError.self) { try Self.ingest(broken, into: store, keeper: keeper) }
        #expect(keeper.current == before)
        try Self.expectSnapshotMatches(store, "after the rollback")
        let (second, _) = try Self.file(dir, "b.csv", count: 30, seed: 13, editing: rows)
        try Self.ingest(second, into: store, keeper: keeper)
        keeper.save()
        #expect(!keeper.takeNotes().contains { $0.contains("rebuilt") })
        try Self.expectSnapshotMatches(store, "after the next file")
    }

    @Test("a store made before the stamp: none read-only, added by the next writer")
    func storeWithoutStamp() throws {
        let dir = try TempDir()
        let path = dir.path + "/s.db"
        do {
            let store = try IncidentStore(path: path, create: true)
            try ingestFile(try dir.file("a.csv", csvText(generatedRows(count: 50, seed: 14))), into: store)
            try store.db.execute(
                """
                DROP TRIGGER store_state_insert; DROP TRIGGER store_state_update; DROP TRIGGER store_state_delete;
                DROP TABLE store_state
                """)
        }
        #expect(try IncidentStore(path: path, mode: .readOnly).stamp() == nil)
        let store = try IncidentStore(path: path, mode: .readWrite)
        let stamp = try #require(try store.stamp())
        #expect(stamp.lastIncidentRowid == (try count(store, "SELECT count(*) FROM incidents")))
        #expect(try schemaObjects(store, type: "trigger").filter { $0.hasPrefix("store_state") }.count == 3)
    }
}
