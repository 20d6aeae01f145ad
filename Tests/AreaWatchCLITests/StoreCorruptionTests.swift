import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

/// `check` (SPEC §5, docs/SCHEMA.md) and damaged stores: a truncated store or a file that is
/// not SQLite at all is an input/store error (exit 2) with one clear line, and nothing changes.
@Suite("store corruption and check", .timeLimit(.minutes(60)))
struct StoreCorruptionTests {
    /// A small healthy store (the 2018 police sample), closed and checkpointed; made once.
    private static let pristine = Result { () throws -> String in
        let dir = try TempDir("areawatch-cli-pristine", keepUntilExit: true)
        let db = dir.sub("store.db")
        try areawatchOK(["ingest", Datasets.police[2], "--db", db, "--quiet"])
        return db
    }

    /// A copy of the small healthy store in `tmp`.
    static func smallStore(in tmp: TempDir, name: String = "store.db") throws -> String {
        let db = tmp.sub(name)
        try copyItem(try pristine.get(), db)
        return db
    }

    @Test("check passes on a healthy store")
    func healthy() throws {
        let tmp = try TempDir()
        let db = try Self.smallStore(in: tmp)
        let r = try areawatch("check", "--db", db)
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("ok"), "\(r)")
    }

    @Test(
        "check reports a damaged spatial index",
        arguments: [
            "DELETE FROM idx_incidents_geom WHERE pkid IN (SELECT pkid FROM idx_incidents_geom ORDER BY pkid LIMIT 5)",
            "UPDATE idx_incidents_geom SET xmin = xmin + 0.5, xmax = xmax + 0.5 WHERE pkid = (SELECT min(pkid) FROM idx_incidents_geom)",
            "DELETE FROM idx_incidents_geom"
        ])
    func damagedSpatialIndex(_ damage: String) throws {
        let tmp = try TempDir()
        let db = try Self.smallStore(in: tmp)
        try StoreProbe.execute(db, damage)
        let r = try areawatch("check", "--db", db)
        #expect(r.status == 2, "\(r)")
        #expect(r.stdout.contains("spatial index"), "\(r)")
        #expect(r.stderrLines.contains { $0.contains(db) && $0.contains("problem") }, "\(r)")
    }

    @Test("check reports a corrupted store file")
    func corruptedFile() throws {
        let tmp = try TempDir()
        let db = try Self.smallStore(in: tmp)
        try #require(!exists(db + "-wal") || (try readBytes(db + "-wal")).isEmpty, "the store was not checkpointed")
        var bytes = try readBytes(db)
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let pages = bytes.count / max(pageSize, 512)
        try #require(pages > 20)
        // Garbage over a run of pages in the middle of the file (table and index b-tree pages).
        var rng = SplitMix64(seed: 5)
        for page in (pages / 2)..<(pages / 2 + 8) {
            for k in (page * pageSize)..<((page + 1) * pageSize) { bytes[k] = UInt8(truncatingIfNeeded: rng.next()) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: db))
        let r = try areawatch("check", "--db", db)
        #expect(r.status == 2, "\(r)")
        #expect(
            r.stdout.contains("integrity") || r.stderr.contains("not a valid store") || r.stderr.contains("malformed"),
            "\(r)")
    }

    enum Damage: String, CaseIterable, Sendable {
        case truncated, notSQLite
    }

    @Test(
        "a truncated store or a non-SQLite --db: exit 2, one clear line, the file unchanged",
        arguments: Damage.allCases, ["stats", "check", "query", "report", "ingest"])
    func damagedStore(_ damage: Damage, _ command: String) throws {
        let tmp = try TempDir()
        let db: String
        switch damage {
        case .truncated:
            db = try Self.smallStore(in: tmp)
            let bytes = try readBytes(db)
            try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: db))
        case .notSQLite:
            db = try tmp.file("store.db", "key,lat,lon\nthis is not a database,1,2\n")
        }
        let before = try readBytes(db)
        let input = try tmp.file("in.csv", "id,lat,lon,time\na,53.72,-1.86,2018-05-01\n")
        let out = tmp.sub("out")
        let arguments: [String]
        switch command {
        case "query": arguments = ["query", "--db", db, "--lat", "53.72", "--lon", "-1.86", "--as-of", Datasets.asOf]
        case "report": arguments = ["report", "--db", db, "--out", out, "--as-of", Datasets.asOf]
        case "ingest": arguments = ["ingest", input, "--db", db]
        default: arguments = [command, "--db", db]
        }
        let r = try areawatch(arguments)
        #expect(r.status == 2, "\(r)")
        let lines = r.stderrLines.filter { $0.contains(db) }
        #expect(lines.count == 1, "one line naming the store expected: \(r)")
        #expect(lines.first?.hasPrefix("areawatch: \(db): not a valid store") == true, "\(r)")
        #expect(try readBytes(db) == before, "\(command) changed the damaged store")
        #expect(!exists(out), "a report was published from a damaged store")
    }
}
