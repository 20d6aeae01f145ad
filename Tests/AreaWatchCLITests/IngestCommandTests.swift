import AreaWatchTestSupport
import Foundation
import Testing

/// The per-file table `ingest` and `run` print: cells are separated by two or more spaces.
struct IngestTable {
    var header: [String]
    var rows: [String: [String]]
    var rejectsLine: String?

    init(_ stdout: String) {
        var header: [String] = []
        var rows: [String: [String]] = [:]
        for line in stdout.split(separator: "\n").map(String.init) {
            if line.hasPrefix("rejects: ") {
                rejectsLine = line
                continue
            }
            let cells = IngestTable.cells(line)
            if cells.first == "file" && header.isEmpty {
                header = cells
                continue
            }
            if !header.isEmpty, let file = cells.first, cells.count >= 8 { rows[file] = Array(cells.dropFirst()) }
        }
        self.header = header
        self.rows = rows
    }

    static func cells(_ line: String) -> [String] {
        var cells: [String] = []
        var current = ""
        var spaces = 0
        for ch in line {
            if ch == " " {
                spaces += 1
                continue
            }
            if spaces >= 2 {
                cells.append(current)
                current = ""
            } else if spaces == 1 {
                current += " "
            }
            spaces = 0
            current.append(ch)
        }
        cells.append(current)
        return cells.filter { !$0.isEmpty }
    }

    /// format, records, accepted, new, updated, unchanged, rejected, reasons (reason → count).
    func row(_ file: String) -> (format: String, numbers: [Int], reasons: [String: Int])? {
        guard let cells = rows[file] else { return nil }
        let numbers = cells.dropFirst().prefix(6).compactMap { Int($0) }
        var reasons: [String: Int] = [:]
        if cells.count > 7 {
            for part in cells[7].split(separator: " ") {
                let kv = part.split(separator: "=")
                if kv.count == 2, let n = Int(kv[1]) { reasons[String(kv[0])] = n }
            }
        }
        return (cells[0], numbers, reasons)
    }
}

@Suite("ingest", .timeLimit(.minutes(60)))
struct IngestCommandTests {
    static let tableHeader = [
        "file", "format", "records", "accepted", "new", "updated", "unchanged", "rejected", "rejects by reason"
    ]

    @Test("per-file table and rejects file agree with the inputs; a second run skips by SHA-256; --force re-reads")
    func tableRejectsSkipAndForce() throws {
        let tmp = try TempDir()
        let db = tmp.sub("store.db")
        let police = try Model.police()[0]
        let watchme = try Model.watchme()[0]
        let first = try areawatchOK(["ingest", police.path, watchme.path, "--db", db])

        // The table: one row per file with the counts an independent reading of the inputs gives.
        let table = IngestTable(first.stdout)
        #expect(table.header == Self.tableHeader, "\(first)")
        let p = try #require(table.row(police.path), "\(first)")
        #expect(p.format == "csv")
        #expect(
            p.numbers == [
                police.rows, police.incidents.count, police.incidents.count, 0, 0, police.rejectedLines.count
            ], "\(first)")
        #expect(p.reasons == ["missing_coordinates": police.rejectedLines.count], "\(first)")
        let w = try #require(table.row(watchme.path), "\(first)")
        let postCount = watchme.posts.count + watchme.rejected.count
        #expect(w.format.hasPrefix("json"), "\(first)")
        #expect(
            w.numbers == [postCount, watchme.posts.count, watchme.posts.count, 0, 0, watchme.rejected.count], "\(first)"
        )
        var expectedReasons: [String: Int] = [:]
        for (_, reason) in watchme.rejected { expectedReasons[reason, default: 0] += 1 }
        #expect(w.reasons == expectedReasons, "\(first)")

        // The rejects file: beside the store, RFC 4180, one row per rejected record.
        let rejectsPath = tmp.sub("store-rejects.csv")
        let totalRejects = police.rejectedLines.count + watchme.rejected.count
        #expect(
            table.rejectsLine == "rejects: \(totalRejects) written to \(rejectsPath) (every file the store holds)",
            "\(first)")
        let rejects = StrictCSV.parse(try readBytes(rejectsPath))
        #expect(rejects.violations.isEmpty, "\(rejects.violations)")
        #expect(rejects.header == ["source", "record", "id", "reason", "excerpt"])
        let rows = rejects.dictionaries
        #expect(rows.count == totalRejects)
        let policeRejects = rows.filter { $0["source"] == police.path }
        #expect(policeRejects.compactMap { $0["record"].flatMap(Int.init) } == police.rejectedLines)
        #expect(
            policeRejects.allSatisfy { $0["reason"] == "missing_coordinates" && ($0["excerpt"]?.count ?? 0) <= 200 })
        var watchmeRejects: [String: String] = [:]
        for row in rows where row["source"] == watchme.path { watchmeRejects[row["record"] ?? ""] = row["reason"] }
        #expect(
            watchmeRejects == Dictionary(uniqueKeysWithValues: watchme.rejected.map { ("posts.\($0.key)", $0.value) }))

        let stored = try StoreProbe.snapshot(db)
        #expect(stored.count == police.incidents.count + watchme.posts.count)
        #expect(stored.ingestedFiles == [police.path, watchme.path])

        // Second run: both files skipped at once, nothing changes.
        let second = try areawatchOK(["ingest", police.path, watchme.path, "--db", db])
        let again = IngestTable(second.stdout)
        #expect(again.rows[police.path]?.first == "skipped (already ingested)", "\(second)")
        #expect(again.rows[watchme.path]?.first == "skipped (already ingested)", "\(second)")
        #expect(try StoreProbe.snapshot(db) == stored)

        // --force re-reads: every accepted record is unchanged, nothing new.
        let forced = try areawatchOK(["ingest", police.path, watchme.path, "--db", db, "--force"])
        let f = IngestTable(forced.stdout)
        #expect(
            f.row(police.path)?.numbers == [
                police.rows, police.incidents.count, 0, 0, police.incidents.count, police.rejectedLines.count
            ], "\(forced)")
        #expect(
            f.row(watchme.path)?.numbers == [
                postCount, watchme.posts.count, 0, 0, watchme.posts.count, watchme.rejected.count
            ], "\(forced)")
        let afterForce = try StoreProbe.snapshot(db)
        #expect(afterForce.count == stored.count && afterForce.digest == stored.digest)
    }

    @Test("the later WatchMe export updates edited posts and adds new ones (manifest counts)")
    func editsExport() throws {
        let tmp = try TempDir()
        let db = tmp.sub("s.db")
        let r = try areawatchOK(["ingest"] + Datasets.watchme + ["--db", db])
        let table = IngestTable(r.stdout)
        let manifest = try JSON.parse(try readBytes(dataset("watchme/manifest.json")))
        let files = try #require(manifest["files"])
        let a = try #require(files["watchme-export-2018-07-31.json"]?["ingest_into_empty_store"])
        let b = try #require(files["watchme-export-2018-08-01-edits.json"]?["ingest_after_first_file"])
        let rowA = try #require(table.row(Datasets.watchme[0])), rowB = try #require(table.row(Datasets.watchme[1]))
        #expect(
            Array(rowA.numbers[2...5])
                == [a["new"]?.int, a["updated"]?.int, a["duplicate"]?.int, a["rejected"]?.int].compactMap { $0 }, "\(r)"
        )
        #expect(
            Array(rowB.numbers[2...5])
                == [b["new"]?.int, b["updated"]?.int, b["duplicate"]?.int, b["rejected"]?.int].compactMap { $0 }, "\(r)"
        )
    }

    @Test("--source namespaces every key, derived keys too")
    func sourceOption() throws {
        let tmp = try TempDir()
        let csv = try tmp.file(
            "feed.csv",
            """
            id,lat,lon,time,category
            A1,53.72,-1.86,2018-05-01T10:00:00Z,Burglary
            ,53.7201,-1.8601,2018-05-02T10:00:00Z,Robbery

            """)
        let db = tmp.sub("s.db")
        try areawatchOK(["ingest", csv, "--db", db, "--source", "feedA"])
        let keys = try StoreProbe.strings(db, "SELECT key FROM incidents ORDER BY key")
        #expect(keys.count == 2)
        #expect(keys.contains("feedA:A1"), "\(keys)")
        #expect(keys.contains { $0.hasPrefix("feedA:h:") && $0.hasSuffix(":1") }, "\(keys)")
        #expect(try StoreProbe.strings(db, "SELECT DISTINCT source FROM incidents") == ["feedA"])

        // The analyst listing shows the namespaced keys.
        let q = try areawatchOK([
            "query", "--db", db, "--lat", "53.72", "--lon", "-1.86", "--as-of", Datasets.asOf, "--list", "--json"
        ])
        let listed = try #require(try JSON.parse(q.stdout)["incidents"]?.array)
        #expect(Set(listed.compactMap { $0["key"]?.string }) == Set(keys))

        // The same records without --source are other incidents (--force: same bytes).
        try areawatchOK(["ingest", csv, "--db", db, "--force"])
        let all = try StoreProbe.strings(db, "SELECT key FROM incidents ORDER BY key")
        #expect(all.count == 4 && all.contains("A1"), "\(all)")
    }

    @Test("--max-reject-rate: exit 3 after a completed ingest, the store committed")
    func maxRejectRate() throws {
        let tmp = try TempDir()
        let csv = try tmp.file(
            "half-bad.csv",
            """
            id,lat,lon,time
            a,53.72,-1.86,2018-05-01
            b,,-1.86,2018-05-01
            c,53.73,-1.87,2018-05-02
            d,53.74,-1.88,someday

            """)
        let db = tmp.sub("s.db")
        let r = try areawatch(["ingest", csv, "--db", db, "--max-reject-rate", "0.25"])
        #expect(r.status == 3, "\(r)")
        #expect(r.stderrLines.contains { $0.contains("reject rate") && $0.contains("50.0%") }, "\(r)")
        let stored = try StoreProbe.snapshot(db)
        #expect(stored.count == 2 && stored.ingestedFiles == [csv], "\(stored)")
        let rejects = StrictCSV.parse(try readBytes(tmp.sub("s-rejects.csv"))).dictionaries
        #expect(rejects.map { $0["reason"] ?? "" } == ["missing_coordinates", "invalid_time"])

        // At the limit is not above it.
        let same = try tmp.file("half-bad-2.csv", try readText(csv).replacingOccurrences(of: "a,", with: "e,"))
        let ok = try areawatch(["ingest", same, "--db", db, "--max-reject-rate", "0.5"])
        #expect(ok.status == 0, "\(ok)")
    }

    @Test("an input error: exit 2, file and position in one stderr line, nothing of it kept, the other files ingested")
    func inputErrorKeepsOtherFiles() throws {
        let tmp = try TempDir()
        let g0 = try tmp.file("g0.csv", "id,lat,lon,time\nz,53.70,-1.80,2018-01-03\n")
        let g1 = try tmp.file("g1.csv", "id,lat,lon,time\na,53.71,-1.81,2018-01-01\n")
        let g2 = try tmp.file("g2.csv", "id,lat,lon,time\nb,53.72,-1.82,2018-01-02\n")
        // A rejected record first, then the file ends inside a JSON value (truncated export).
        let bad = try tmp.file(
            "bad.json",
            "[{\"id\":\"n\",\"lat\":0,\"lon\":0,\"time\":\"2018-01-01\"},\n{\"id\":\"m\",\"lat\":53.7,\"lon\":")
        let db = tmp.sub("s.db")
        try areawatchOK(["ingest", g0, "--db", db, "--quiet"])
        let before = try StoreProbe.snapshot(db)

        let r = try areawatch(["ingest", g1, bad, g2, "--db", db])
        #expect(r.status == 2, "\(r)")
        let errorLine = r.stderrLines.first { $0.contains(bad) && !$0.contains("warning") }
        #expect(errorLine != nil, "\(r)")
        #expect(errorLine?.contains("line 2, column") == true, "the position is missing: \(r)")
        #expect(IngestTable(r.stdout).rows[bad]?.first == "INPUT ERROR", "\(r)")

        // g1 and g2 are in, nothing of bad.json (not its rejected record either).
        let after = try StoreProbe.snapshot(db)
        #expect(after.ingestedFiles == [g0, g1, g2], "\(after)")
        let reference = tmp.sub("reference.db")
        try areawatchOK(["ingest", g0, g1, g2, "--db", reference, "--quiet"])
        let expected = try StoreProbe.snapshot(reference)
        #expect(after.count == expected.count && after.digest == expected.digest, "\(after) vs \(expected)")
        #expect(after.count == before.count + 2)
        let rejects = try readText(tmp.sub("s-rejects.csv"))
        #expect(!rejects.contains("bad.json"), "rejects of a failed file were kept: \(rejects)")
    }

    @Test(
        "input errors of every kind leave the store exactly as it was",
        arguments: [
            ("truncated.csv", "id,lat,lon,time\nx,53.7,-1.8,\"2018-01-01\n", "line 2"),
            ("binary.dat", "\u{1}\u{2}\u{3}\u{0}\u{FF}garbage\u{0}\u{0}", "line 1"),
            (
                "cut.ndjson",
                "{\"id\":\"a\",\"lat\":53.7,\"lon\":-1.8,\"time\":\"2018-01-01\"}\n{\"id\":\"b\",\"lat\":53.7,",
                "line 2"
            ),
            (
                "unbalanced.json",
                "{\"posts\":{\"a\":{\"latitude\":53.7,\"longitude\":-1.8,\"timestamp\":1500000000}}}}", "line 1"
            )
        ])
    func inputErrorsLeaveStore(_ name: String, _ content: String, _ position: String) throws {
        let tmp = try TempDir()
        let good = try tmp.file("good.csv", "id,lat,lon,time\nz,53.70,-1.80,2018-01-03\n")
        let db = tmp.sub("s.db")
        try areawatchOK(["ingest", good, "--db", db, "--quiet"])
        let before = try StoreProbe.snapshot(db)
        let bad = try tmp.file(name, content)
        let r = try areawatch(["ingest", bad, "--db", db])
        #expect(r.status == 2, "\(r)")
        #expect(r.stderrLines.contains { $0.hasPrefix("areawatch: \(bad): \(position)") }, "\(r)")
        #expect(try StoreProbe.snapshot(db) == before)
        // A missing file is an input error too.
        let missing = try areawatch(["ingest", tmp.sub("no-such-file.csv"), "--db", db])
        #expect(missing.status == 2 && missing.stderr.contains("no-such-file.csv"), "\(missing)")
        #expect(try StoreProbe.snapshot(db) == before)
    }
}
