import AreaWatchCore
import AreaWatchIngest
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchStore

/// The fast paths of a bulk load (docs/PERFORMANCE.md): a new store built beside its path and put
/// in place at its first commit, keys inserted in sorted chunks into an empty store, geometry
/// bytes bound directly. Each must leave exactly the store the plain row-by-row path leaves.
@Suite("Store bulk load")
struct StoreBulkLoadTests {
    /// Ingests `path` through one transaction with sorted chunks of `chunkSize` rows.
    @discardableResult
    private func ingest(_ path: String, into store: IncidentStore, expectedRows: Int, chunkSize: Int) throws
        -> FileIngestReport
    {
        let digest = try FileDigest.sha256(path: path)
        let transaction = try FileTransaction(
            store: store, source: URL(fileURLWithPath: path).lastPathComponent,
            expectedRows: expectedRows, chunkSize: chunkSize)
        var sink = transaction
        let report = try FileIngester.ingest(
            path: path, sha256: digest.hex, bytes: digest.bytes, options: IngestOptions(),
            into: &sink, rejects: nil)
        try transaction.commit(testLogEntry(path, digest, report))
        return report
    }

    /// Rows with keys repeated inside the file: edits (later content wins), identical repeats,
    /// and repeats across chunk boundaries; keys sharing long prefixes.
    private func rowsWithRepeats(count: Int, seed: UInt64) -> [GeneratedRow] {
        var rows = generatedRows(count: count, seed: seed)
        var rng = SplitMix64(seed: seed ^ 0x5EED)
        for i in rows.indices where !rows[i].id.isEmpty { rows[i].id = "SAME-PREFIX-\(rows[i].id)" }
        for _ in 0..<count / 10 {
            var row = rows[Int(rng.next() % UInt64(rows.count))]
            guard !row.id.isEmpty else { continue }
            if rng.next() % 2 == 0 {
                row.description = "edited \(rng.next() % 1000)"
                row.handled = "Y"
            }
            rows.append(row)
        }
        return rows
    }

    @Test(
        "sorted chunks into an empty store: the counts and the store of row-by-row, repeated keys included",
        arguments: [7, 64, 1 << 17])
    func sortedChunksEqualRowByRow(chunkSize: Int) throws {
        let dir = try TempDir()
        let generated = rowsWithRepeats(count: 3000, seed: 61)
        let path = try dir.file("repeats.csv", csvText(generated))
        let plain = try IncidentStore(path: dir.path + "/plain.db", create: true)
        let sorted = try IncidentStore(path: dir.path + "/sorted.db", create: true)
        let expected = try ingest(path, into: plain, expectedRows: 0, chunkSize: chunkSize)
        let report = try ingest(path, into: sorted, expectedRows: 20_000, chunkSize: chunkSize)
        #expect(expected.updated > 0 && expected.duplicates > 0, "the file repeats keys: \(expected)")
        #expect(report == expected)
        #expect(try dump(sorted) == (try dump(plain)))
        #expect(try sorted.check() == [])
        #expect(try count(sorted, "SELECT count(*) FROM idx_incidents_geom") == Int64(expected.inserted))
        // The rows of each chunk went in in key order: rowid order is key order within a chunk.
        let keys = try rows(sorted, "SELECT key FROM incidents ORDER BY rowid").map { value -> String in
            if case .text(let key) = value[0] { return key } else { return "" }
        }
        let firstChunk = Array(keys.prefix(min(chunkSize, keys.count) - 1))
        #expect(firstChunk == firstChunk.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    @Test("keyOrder sorts keys in SQLite's byte order, with shared prefixes, unequal lengths and non-ASCII keys")
    func keyOrderIsByteOrder() {
        var rng = SplitMix64(seed: 7)
        let alphabet = Array("ab\u{e9}Z0:-")
        for trial in 0..<50 {
            let shared = trial % 3 == 0 ? "" : String(repeating: "p", count: Int(rng.next() % 12))
            let incidents = (0..<Int(rng.next() % 300)).map { _ in
                let length = Int(rng.next() % 14)
                let key = shared + String((0..<length).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
                return Incident(key: key, time: 0, precision: .second, lat: 0, lon: 0)
            }
            let order = SortedChunkInserter.keyOrder(incidents).map { incidents[Int($0)].key }
            let expected = incidents.map(\.key).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            #expect(order == expected, "trial \(trial)")
        }
    }

    @Test("KeyDigestSet: new digests are new, repeats are not, across growth")
    func keyDigestSet() {
        var set = KeyDigestSet(expected: 10)
        var rng = SplitMix64(seed: 3)
        let digests = (0..<50_000).map { _ in rng.next() | 1 }
        let fresh = digests.filter { set.insert(digest: $0) }.count
        #expect(fresh == digests.count)
        let again = digests.prefix(1000).filter { set.insert(digest: $0) }.count
        #expect(again == 0)
        #expect(KeyDigestSet.digest("a") == KeyDigestSet.digest("a"))
        #expect(KeyDigestSet.digest("a") != KeyDigestSet.digest("b"))
    }

    @Test("the bound geometry is MakePoint's, byte for byte")
    func pointBlobIsMakePoint() throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: dir.path + "/p.db", create: true)
        var rng = SplitMix64(seed: 11)
        var points: [(lat: Double, lon: Double)] = [
            (0, 0), (-0.0, -0.0), (90, 180), (-90, -180), (53.810478, -1.585442),
            (1e-300, -1e-300), (45.000000000000007, 7.1)
        ]
        for _ in 0..<500 {
            points.append(
                (Double(rng.next() % 1_800_000_001) / 1e7 - 90, Double(rng.next() % 3_600_000_001) / 1e7 - 180))
        }
        let compare = try store.db.prepare("SELECT MakePoint(?, ?, 4326) = ?, hex(MakePoint(?, ?, 4326)), hex(?)")
        for p in points {
            compare.bind(1, p.lon)
            compare.bind(2, p.lat)
            compare.bind(4, p.lon)
            compare.bind(5, p.lat)
            PointBlob.with(lat: p.lat, lon: p.lon) {
                compare.bind(3, blob: $0)
                compare.bind(6, blob: $0)
            }
            #expect(try compare.step())
            #expect(compare.int64(0) == 1, "\(p): \(compare.string(1) ?? "") vs \(compare.string(2) ?? "")")
            compare.reset()
        }
        // And what an ingest stores.
        try ingestFile(
            try dir.file("g.csv", csvText(generatedRows(count: 300, seed: 12))), into: store, expectedRows: 20_000)
        #expect(try count(store, "SELECT count(*) FROM incidents WHERE geom IS NOT MakePoint(lon, lat, 4326)") == 0)
        #expect(try count(store, "SELECT count(*) FROM incidents") == 300)
    }

    @Test("a staged store is absent until its first commit, then in place in WAL mode, its build file gone")
    func stagedStoreIsPublishedAtCommit() throws {
        let dir = try TempDir()
        let path = dir.path + "/sub/staged.db"
        let csv = try dir.file("s.csv", csvText(generatedRows(count: 400, seed: 21)))
        // A build file left by a killed run is replaced.
        try FileManager.default.createDirectory(atPath: dir.path + "/sub", withIntermediateDirectories: true)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: path + ".new"))
        let store = try IncidentStore(path: path, mode: .create, staged: true)
        #expect(store.stagingPath == path + ".new")
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(throws: StoreError.self) { try IncidentStore(path: path, mode: .readOnly) }
        try ingestFile(csv, into: store, expectedRows: 20_000)
        #expect(store.stagingPath == nil)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + ".new"))
        #expect(try store.db.scalar("PRAGMA journal_mode") == .text("wal"))
        #expect(try store.db.scalar("PRAGMA synchronous") == .integer(2))
        // The store keeps working where it is, and another connection reads it.
        try ingestFile(try dir.file("t.csv", csvText(generatedRows(count: 50, seed: 22))), into: store)
        let reader = try IncidentStore(path: path, mode: .readOnly)
        #expect(try count(reader, "SELECT count(*) FROM incidents") == 450)
        #expect(try reader.check() == [])
    }

    @Test("a staged store whose first file fails stays absent; publishing it empty puts an empty store in place")
    func stagedStoreAfterAFailedFile() throws {
        let dir = try TempDir()
        let path = dir.path + "/failed.db"
        let store = try IncidentStore(path: path, mode: .create, staged: true)
        let broken = try dir.file("broken.csv", "id,latitude,longitude,timestamp\na,53.7,-1.8,1530000000\n\"b,53")
        #expect(throws: InputError.self) { try ingestFile(broken, into: store, expectedRows: 20_000) }
        #expect(!FileManager.default.fileExists(atPath: path))
        try store.publishIfStaged()
        let reader = try IncidentStore(path: path, mode: .readOnly)
        #expect(try count(reader, "SELECT count(*) FROM incidents") == 0)
        #expect(try reader.check() == [])
    }

    @Test("a staged store never replaces a file that appeared at its path; dropped unpublished, it leaves nothing")
    func stagedStoreDoesNotReplace() throws {
        let dir = try TempDir()
        let path = dir.path + "/raced.db"
        let csv = try dir.file("r.csv", csvText(generatedRows(count: 100, seed: 23)))
        do {
            let store = try IncidentStore(path: path, mode: .create, staged: true)
            try Data("someone else's".utf8).write(to: URL(fileURLWithPath: path))
            #expect(throws: StoreError.self) { try ingestFile(csv, into: store) }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "someone else's")
        }
        #expect(!FileManager.default.fileExists(atPath: path + ".new"))
        try FileManager.default.removeItem(atPath: path)
        do { _ = try IncidentStore(path: path, mode: .create, staged: true) }
        #expect(!FileManager.default.fileExists(atPath: path + ".new"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
