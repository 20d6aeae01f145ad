import AreaWatchCore
import AreaWatchIngest
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchStore

/// docs/SCHEMA.md `rejects`: a file's rejects are committed in its transaction, replaced when
/// the same bytes are read again, and gone with a rolled-back file.
@Suite("store rejects table")
struct StoreRejectsTests {
    static func rejects(_ file: String, _ n: Int) -> [StoredReject] {
        (0..<n).map { k in
            StoredReject(
                source: file, record: "\(k + 2)", id: k % 3 == 0 ? nil : "id-\(k)",
                reason: k % 2 == 0 ? "missing_coordinates" : "invalid_time",
                excerpt: "=cmd|' /C calc'!A0,\"quoted\"\nline \(k) é🚨")
        }
    }

    static func commit(
        _ store: IncidentStore, sha256: String, file: String, rejects: [StoredReject],
        incidents: Int
    ) throws {
        let transaction = try FileTransaction(store: store, source: file, expectedRows: 0)
        for k in 0..<incidents {
            let incident = Incident(key: "\(file)-\(k)", time: 1_500_000_000, precision: .second, lat: 53.7, lon: -1.8)
            _ = try transaction.write(incident)
        }
        let entry = IngestLogEntry(
            file: file, sha256: sha256, bytes: 1, records: incidents + rejects.count,
            accepted: incidents, updated: 0, duplicates: 0, rejected: rejects.count,
            startedAt: 0, finishedAt: 0, inserted: incidents, format: "csv",
            rejectsByReason: "{}")
        try transaction.commit(entry, rejects: { add in for reject in rejects { try add(reject) } })
    }

    static func all(_ store: IncidentStore) throws -> [StoredReject] {
        var out: [StoredReject] = []
        try store.forEachReject { out.append($0) }
        return out
    }

    @Test("committed with the file, in file order, text kept exactly; a re-read of the same bytes replaces them")
    func committedAndReplaced() throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: dir.path + "/s.db", create: true)
        #expect(try store.hasRejectsTables())
        let a = Self.rejects("a.csv", 40), b = Self.rejects("b.csv", 7)
        try Self.commit(store, sha256: "aaaa", file: "a.csv", rejects: a, incidents: 5)
        try Self.commit(store, sha256: "bbbb", file: "b.csv", rejects: b, incidents: 3)
        #expect(try Self.all(store) == a + b)
        let again = Self.rejects("a-renamed.csv", 2)
        try Self.commit(store, sha256: "aaaa", file: "a-renamed.csv", rejects: again, incidents: 5)
        #expect(try Self.all(store) == b + again)
        let counts = try #require(try store.rejectCounts())
        #expect(
            counts == [
                StoredRejectCounts(
                    source: "b.csv", sha256: "bbbb",
                    byReason: ["missing_coordinates": 4, "invalid_time": 3]),
                StoredRejectCounts(
                    source: "a-renamed.csv", sha256: "aaaa",
                    byReason: ["missing_coordinates": 1, "invalid_time": 1])
            ])
        try store.recordRejectsFilePath("s-rejects.csv")
        #expect(try store.rejectsFilePath() == "s-rejects.csv")
    }

    @Test("a rolled-back file leaves no reject")
    func rolledBack() throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: dir.path + "/s.db", create: true)
        let transaction = try FileTransaction(store: store, source: "x.csv", expectedRows: 0)
        _ = try transaction.write(Incident(key: "k", time: 1, precision: .second, lat: 1, lon: 1))
        transaction.rollback()
        #expect(try Self.all(store).isEmpty)
        #expect(try count(store, "SELECT count(*) FROM rejects") == 0)
    }

    @Test("a store without the tables (made before 1.2) gets them with the imported rows, in one transaction")
    func addedToOlderStore() throws {
        let dir = try TempDir()
        let path = dir.path + "/old.db"
        do {
            let store = try IncidentStore(path: path, create: true)
            try Self.commit(store, sha256: "aaaa", file: "a.csv", rejects: [], incidents: 2)
            try store.db.execute("DROP TABLE rejects; DROP TABLE rejects_file")
        }
        let store = try IncidentStore(path: path, mode: .readWrite)
        #expect(try !store.hasRejectsTables())
        #expect(try store.rejectCounts() == nil)
        #expect(try store.rejectsFilePath() == nil)
        // A failing import adds nothing.
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.addRejectsTables { add in
                try add("aaaa", Self.rejects("a.csv", 1)[0])
                throw Stop()
            }
        }
        #expect(try !store.hasRejectsTables())
        try store.addRejectsTables { add in for r in Self.rejects("a.csv", 3) { try add("aaaa", r) } }
        #expect(try Self.all(store) == Self.rejects("a.csv", 3))
        try store.addRejectsTables { _ in Issue.record("imported twice") }
    }
}
