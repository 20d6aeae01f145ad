import AreaWatchTestSupport
import Foundation
import Testing

/// The column snapshot beside the store, end to end: reports made from it are byte-identical
/// to reports made from the store (except `timings_s`); a missing, damaged, truncated or stale
/// one is refused with a note and the store is read instead; `report` never writes it; the
/// nightly job makes it when there is none and keeps it in step.
@Suite("column snapshot (CLI)", .timeLimit(.minutes(60)))
struct ColumnSnapshotCLITests {
    static func report(_ db: String, _ out: String) -> [String] {
        [
            "report", "--db", db, "--out", out, "--as-of", Datasets.asOf, "--precision", "7", "--tile-zooms", "12-13",
            "--poi", Datasets.poi, "--group-by", "category", "--areas", Datasets.areas, "--area-id", "name"
        ]
    }

    @Test("report from the snapshot the ingests kept == report from the store, whatever happened to the snapshot")
    func sameReport() throws {
        let tmp = try TempDir()
        let db = tmp.sub("s.db"), columns = db + ".columns"
        // One ingest per file: the snapshot is applied file by file, the WatchMe edits included.
        for file in Datasets.all {
            let r = try areawatchOK(["ingest", file, "--db", db])
            #expect(r.stderrLines.contains { $0.contains("column snapshot:") && $0.contains("written") }, "\(r)")
        }
        let fromSnapshot = try areawatchOK(Self.report(db, tmp.sub("a")))
        #expect(
            fromSnapshot.stderrLines.contains { $0.contains("column snapshot:") && $0.contains("incidents") },
            "\(fromSnapshot)")
        let reference = try readTree(tmp.sub("a"))
        let intact = try readBytes(columns)

        var cases: [(String, [UInt8]?, String)] = [("missing", nil, "no column snapshot")]
        var flipped = intact
        flipped[intact.count / 2] ^= 0x20
        cases.append(("a flipped byte", flipped, "checksum mismatch"))
        cases.append(("truncated", Array(intact[0..<(intact.count * 2 / 3)]), "truncated"))
        cases.append(("empty", [], "shorter than its header"))
        var stale = intact
        stale[48] ^= 1 // the stamp's generation
        cases.append(("stale", stale, "stale"))
        for (k, (name, bytes, note)) in cases.enumerated() {
            removeItem(columns)
            if let bytes { _ = try tmp.file("s.db.columns", bytes: bytes) }
            let r = try areawatchOK(Self.report(db, tmp.sub("x\(k)")))
            #expect(r.stderrLines.contains { $0.contains(note) }, "\(name): \(r)")
            let differences = reportDifferences(reference, try readTree(tmp.sub("x\(k)")))
            #expect(differences.isEmpty, "\(name): \(differences)")
            // `report` reads; it does not repair the snapshot (nor make one).
            #expect(
                bytes == nil ? !exists(columns) : (try readBytes(columns)) == bytes,
                "\(name): the report wrote the snapshot")
        }
    }

    @Test("run: makes the snapshot when there is none, keeps it the next night, reports equal to the store's")
    func nightly() throws {
        let tmp = try TempDir()
        let inbox = try tmp.folder("inbox")
        let config = try tmp.file(
            "job.toml",
            """
            store = "s.db"
            out = "out"
            [inbox]
            folder = "inbox"
            include = ["*.csv", "*.json"]
            [query]
            as_of = "\(Datasets.asOf)"
            [report]
            precision = 7
            tile_zooms = "12-13"
            """)
        let db = tmp.sub("s.db"), columns = db + ".columns"
        try copyItem(Datasets.police[0], inbox + "/a.csv")
        try areawatchOK(["run", "--config", config])
        #expect(exists(columns))

        // A night without the snapshot (deleted, or never made by an older areawatch): the
        // ingest reads the store once and writes it again.
        removeItem(columns)
        try copyItem(Datasets.police[1], inbox + "/b.csv")
        let second = try areawatchOK(["run", "--config", config])
        #expect(second.stderrLines.contains { $0.contains("column snapshot rebuilt") }, "\(second)")
        #expect(exists(columns))

        // An empty night without the snapshot: the report stage reads the store and writes it.
        removeItem(columns)
        let empty = try areawatchOK(["run", "--config", config])
        #expect(empty.stderrLines.contains { $0.contains("column snapshot rebuilt") }, "\(empty)")

        // The usual night: applied, not rebuilt; the WatchMe edits update incidents in place.
        for file in Datasets.watchme { try copyItem(file, inbox + "/" + URL(fileURLWithPath: file).lastPathComponent) }
        try copyItem(Datasets.police[2], inbox + "/c.csv")
        let usual = try areawatchOK(["run", "--config", config])
        #expect(!usual.stderrLines.contains { $0.contains("rebuilt") || $0.contains("not used") }, "\(usual)")
        let job = try readTree(tmp.sub("out"))

        removeItem(columns)
        try areawatchOK([
            "report", "--db", db, "--out", tmp.sub("plain"), "--as-of", Datasets.asOf, "--precision", "7",
            "--tile-zooms", "12-13", "--quiet"
        ])
        let differences = reportDifferences(job, try readTree(tmp.sub("plain")))
        #expect(differences.isEmpty, "\(differences)")
    }
}
