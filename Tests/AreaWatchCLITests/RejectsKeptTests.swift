import AreaWatchTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SPEC §3: the rejects file holds every reject of every file the store holds, made from the
/// store's `rejects` table after each ingest or run; rejects are committed with their file's
/// records, so neither a later command nor a kill loses one.
@Suite("rejects kept", .timeLimit(.minutes(60)))
struct RejectsKeptTests {
    /// The rows of a rejects file (StrictCSV), checked to be well formed with the SPEC header.
    static func rows(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: String]] {
        let csv = StrictCSV.parse(try readBytes(path))
        #expect(csv.violations.isEmpty, "\(csv.violations)", sourceLocation: sourceLocation)
        #expect(csv.header == ["source", "record", "id", "reason", "excerpt"], sourceLocation: sourceLocation)
        return csv.dictionaries
    }

    /// The generated files' rejects as an independent reading counts them (rows without a latitude).
    static func expectedRejects(_ files: [(path: String, file: GeneratedData.File)]) -> Int {
        files.reduce(0) { $0 + $1.file.rows - $1.file.accepted }
    }

    /// Temporary rejects files left beside `path`.
    static func leftovers(beside path: String) -> [String] {
        let name = (path as NSString).lastPathComponent
        return listFolder((path as NSString).deletingLastPathComponent).filter { $0.hasPrefix(name + ".tmp-") }
    }

    /// First-hour item 3: a second `ingest` emptied the rejects file (149 lines → 1).
    @Test("a second ingest adds to the rejects file, one reading nothing new leaves it, --force replaces a file's rows")
    func secondIngestKeepsRejects() throws {
        let tmp = try TempDir()
        let files = try GeneratedData.write([("a", 900), ("b", 600)], into: tmp.sub("in"), seed: 11)
        let db = tmp.sub("s.db"), rejects = tmp.sub("s-rejects.csv")
        try areawatchOK(["ingest", files[0].path, "--db", db, "--quiet"])
        let first = try Self.rows(rejects)
        #expect(first.count == Self.expectedRejects([files[0]]) && first.count > 0)
        #expect(first.allSatisfy { $0["source"] == files[0].path && $0["reason"] == "missing_coordinates" })

        let second = try areawatchOK(["ingest", files[1].path, "--db", db])
        let both = try Self.rows(rejects)
        #expect(both.count == Self.expectedRejects(files), "\(second)")
        #expect(Array(both.prefix(first.count)) == first, "the first file's rejects changed")
        let line = IngestTable(second.stdout).rejectsLine ?? ""
        #expect(line.hasPrefix("rejects: \(both.count) written to \(rejects)"), "\(second)")

        let bytes = try readBytes(rejects)
        try areawatchOK(["ingest", files[0].path, files[1].path, "--db", db, "--quiet"])
        #expect(try readBytes(rejects) == bytes, "an ingest that skipped every file changed the rejects file")

        try areawatchOK(["ingest", files[0].path, "--db", db, "--force", "--quiet"])
        let forced = try Self.rows(rejects)
        #expect(forced.count == both.count, "a forced re-read doubled or dropped rejects")
        #expect(forced.map { $0["record"] ?? "" }.sorted() == both.map { $0["record"] ?? "" }.sorted())
        #expect(try StoreProbe.integer(db, "SELECT count(*) FROM rejects") == both.count)
        #expect(Self.leftovers(beside: rejects).isEmpty)
    }

    @Test("run: a second run with nothing new keeps the rejects file whole")
    func secondRunKeepsRejects() throws {
        let tmp = try TempDir()
        let files = try GeneratedData.write([("r1", 700), ("r2", 500)], into: tmp.sub("inbox"), seed: 5)
        let config = try tmp.file(
            "job.toml",
            """
            store = "store.db"
            out = "reports/latest"
            [inbox]
            folder = "inbox"
            [query]
            as_of = "\(Datasets.asOf)"
            [report]
            tile_zooms = "none"

            """)
        try areawatchOK(["run", "--config", config, "--quiet"])
        let rejects = tmp.sub("store-rejects.csv")
        let first = try readBytes(rejects)
        #expect(try Self.rows(rejects).count == Self.expectedRejects(files))
        try areawatchOK(["run", "--config", config, "--quiet"])
        #expect(try readBytes(rejects) == first)
        let summary = try JSON.parse(try readBytes(tmp.sub("reports/latest/summary.json")))
        #expect(summary["rejects"]?["path"]?.string == rejects, "\(summary["rejects"]?.description ?? "-")")
        #expect(summary["rejects"]?["rejected"]?.int == Self.expectedRejects(files))
    }

    /// The third data-loss item: after kill -9 a re-run wrote a header-only rejects file while the
    /// rejects of the committed file survived only in an orphan `*.tmp-PID`.
    @Test("ingest killed after a commit or mid-file: the re-run writes the uninterrupted rejects, no temporary file")
    func killedIngestKeepsRejects() throws {
        let tmp = try TempDir()
        let files = try GeneratedData.write([("k1", 2500), ("k2", 1500), ("k3", 2000)], into: tmp.sub("in"), seed: 77)
        let paths = files.map(\.path)
        let reference = tmp.sub("reference-rejects.csv")
        try areawatchOK(["ingest"] + paths + ["--db", tmp.sub("reference.db"), "--rejects", reference, "--quiet"])
        let expected = try readBytes(reference)
        #expect(try Self.rows(reference).count == Self.expectedRejects(files))

        let db = tmp.sub("store.db"), rejects = tmp.sub("rejects.csv")
        var afterCommit = 0
        for trial in 0..<8 {
            CrashSafetyTests.removeStore(db)
            removeItem(rejects)
            let child = try Spawned(["ingest"] + paths + ["--db", db, "--rejects", rejects, "--quiet"])
            if trial < 4 {
                // Right after the first file's commit: a new store is put in place by it (built
                // beside its name until then), and the second file is being read when the kill lands.
                while child.poll() == nil && !exists(db) { usleep(200) }
            } else {
                sleepSeconds(killFractions(trials: 4, seed: 3)[trial - 4] * 0.6)
            }
            child.kill()
            let killed = child.wait()
            let filesIn = exists(db) ? try StoreProbe.integer(db, "SELECT count(*) FROM ingests") : 0
            if killed.killed && filesIn > 0 && filesIn < files.count { afterCommit += 1 }
            let rerun = try areawatch(["ingest"] + paths + ["--db", db, "--rejects", rejects, "--quiet"])
            #expect(rerun.status == 0, "trial \(trial): \(rerun)")
            let count = try Self.rows(rejects).count
            let wanted = Self.expectedRejects(files)
            #expect(
                try readBytes(rejects) == expected,
                "trial \(trial) (\(filesIn) file(s) in at the kill): \(count) rejects, expected \(wanted)")
            #expect(Self.leftovers(beside: rejects).isEmpty, "trial \(trial): \(Self.leftovers(beside: rejects))")
        }
        #expect(afterCommit > 0, "no kill landed between two files")
    }

    @Test("temporary rejects files of ended processes are removed at the next start; a live process's is kept")
    func orphansRemoved() throws {
        let tmp = try TempDir()
        let input = try tmp.file("in.csv", "id,lat,lon,time\na,53.72,-1.86,2018-05-01\nb,,-1.86,2018-05-01\n")
        let rejects = tmp.sub("s-rejects.csv")
        let pidMax = try SpareFolderTests.pidMax()
        let dead = try tmp.file("s-rejects.csv.tmp-\(pidMax + 1)", "source,record,id,reason,excerpt\n")
        let live = try tmp.file("s-rejects.csv.tmp-\(getpid())", "source,record,id,reason,excerpt\n")
        try areawatchOK(["ingest", input, "--db", tmp.sub("s.db"), "--quiet"])
        #expect(!exists(dead))
        #expect(exists(live))
        #expect(try Self.rows(rejects).map { $0["id"] ?? "" } == ["b"])
    }

    /// A store made before the rejects table: the first ingest adds it with the rejects the
    /// earlier version left — its rejects file and a killed run's orphan, which alone held the
    /// rejects of a file that run committed (the file was then skipped by every re-run).
    @Test("a store from before the rejects table gets it, with the rows of its rejects file and a killed run's orphan")
    func olderStoreMigrated() throws {
        let tmp = try TempDir()
        let files = try GeneratedData.write([("m1", 800), ("m2", 600), ("m3", 500)], into: tmp.sub("in"), seed: 19)
        let reference = tmp.sub("reference-rejects.csv")
        try areawatchOK(
            ["ingest"] + files.map(\.path)
                + ["--db", tmp.sub("reference.db"), "--rejects", reference, "--quiet"])

        // m1 and m2 in the store; the older version's rejects file held only m2's rows (its
        // re-run skipped m1) and its orphan m1's rows and the first of m2's, cut mid-row.
        let db = tmp.sub("s.db"), rejects = tmp.sub("s-rejects.csv")
        try areawatchOK(["ingest", files[0].path, files[1].path, "--db", db, "--quiet"])
        let lines = try readText(rejects).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = lines[0], m1Count = files[0].file.rows - files[0].file.accepted
        let m1 = Array(lines[1...m1Count]), m2 = lines[(m1Count + 1)...].filter { !$0.isEmpty }
        #expect(m1.allSatisfy { $0.hasPrefix(files[0].path) } && m2.allSatisfy { $0.hasPrefix(files[1].path) })
        try StoreProbe.execute(db, "DROP TABLE rejects; DROP TABLE rejects_file")
        try ([header] + m2).joined(separator: "\n").appending("\n")
            .write(toFile: rejects, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -600)],
            ofItemAtPath: rejects)
        let pidMax = try SpareFolderTests.pidMax()
        let orphan = tmp.sub("s-rejects.csv.tmp-\(pidMax + 1)")
        try (([header] + m1 + [m2[0]]).joined(separator: "\n") + "\n" + m2[1].prefix(12))
            .write(toFile: orphan, atomically: false, encoding: .utf8)

        let r = try areawatchOK(["ingest", files[2].path, "--db", db])
        #expect(r.stderr.contains("rejects table added"), "\(r)")
        let count = try Self.rows(rejects).count
        #expect(try readBytes(rejects) == (try readBytes(reference)), "\(count) rows")
        #expect(!exists(orphan))
        #expect(try StoreProbe.integer(db, "SELECT count(*) FROM rejects") == Self.expectedRejects(files))
    }

    /// First-hour item 3: `report --input` wrote its rejects nowhere.
    @Test("report --input --rejects writes what an ingest of the files writes; summary.json lists the rejects by file")
    func adHocRejects() throws {
        let tmp = try TempDir()
        let files = try GeneratedData.write([("h1", 900), ("h2", 700)], into: tmp.sub("in"), seed: 23)
        let paths = files.map(\.path)
        let db = tmp.sub("s.db"), stored = tmp.sub("s-rejects.csv"), adHoc = tmp.sub("adhoc/rejects.csv")
        try areawatchOK(["ingest"] + paths + ["--db", db, "--quiet"])
        let report = ["--as-of", Datasets.asOf, "--tile-zooms", "none", "--quiet"]
        try areawatchOK(["report", "--input"] + paths + ["--rejects", adHoc, "--out", tmp.sub("r1")] + report)
        #expect(try readBytes(adHoc) == (try readBytes(stored)), "the ad-hoc rejects differ from the ingest's")
        #expect(Self.leftovers(beside: adHoc).isEmpty)

        func rejectsMember(_ folder: String) throws -> JSON {
            try #require(try JSON.parse(try readBytes(folder + "/summary.json"))["rejects"])
        }
        let expected = Self.expectedRejects(files)
        for (folder, path) in [("r1", adHoc), ("r3", stored)] {
            if folder == "r3" { try areawatchOK(["report", "--db", db, "--out", tmp.sub(folder)] + report) }
            let member = try rejectsMember(tmp.sub(folder))
            #expect(member["path"]?.string == path, "\(folder): \(member)")
            #expect(member["rejected"]?.int == expected, "\(folder): \(member)")
            let listed = member["files"]?.array ?? []
            #expect(listed.compactMap { $0["path"]?.string } == paths, "\(folder): \(member)")
            for (entry, file) in zip(listed, files) {
                #expect(entry["rejects_by_reason"]?["missing_coordinates"]?.int == file.file.rows - file.file.accepted)
                #expect(entry["sha256"]?.string?.count == 64)
            }
        }
        // Without --rejects nothing is written, and the summary says so.
        try areawatchOK(["report", "--input"] + paths + ["--out", tmp.sub("r2")] + report)
        let none = try rejectsMember(tmp.sub("r2"))
        #expect(none["path"] == .null && none["rejected"]?.int == expected, "\(none)")
    }

    @Test(
        "report --rejects: refused with --db, over an input or inside the report folder; a refused report: none",
        arguments: ["db", "input", "inside", "refused"])
    func adHocRejectsRefused(_ kind: String) throws {
        let tmp = try TempDir()
        let input = try tmp.file("in.csv", "id,lat,lon,time\na,53.72,-1.86,2018-05-01\nb,,-1.86,2018-05-01\n")
        var arguments = ["report", "--out", tmp.sub("out"), "--as-of", Datasets.asOf, "--tile-zooms", "none"]
        switch kind {
        case "db": arguments += ["--db", tmp.sub("s.db"), "--rejects", tmp.sub("r.csv")]
        case "input": arguments += ["--input", input, "--rejects", input]
        case "inside": arguments += ["--input", input, "--rejects", tmp.sub("out/r.csv")]
        default: arguments += ["--input", input, "--rejects", tmp.sub("r.csv"), "--precision", "12", "--max-cells", "1"]
        }
        let before = try readTree(tmp.path)
        let r = try areawatch(arguments)
        #expect(r.status == 1 && !r.stderr.isEmpty, "\(r)")
        #expect(try readTree(tmp.path) == before, "\(kind): files changed: \(listFolder(tmp.path))")
    }

    /// The rejects file is rewritten whole: it may not be an input, the store or a file beside it.
    @Test(
        "ingest --rejects naming an input, the store or its lock: exit 1, nothing changed",
        arguments: ["input", "store", "lock"])
    func ingestRejectsOverAFile(_ kind: String) throws {
        let tmp = try TempDir()
        let input = try tmp.file("in.csv", "id,lat,lon,time\na,53.72,-1.86,2018-05-01\nb,,-1.86,2018-05-01\n")
        let db = tmp.sub("s.db")
        try areawatchOK(["ingest", input, "--db", db, "--quiet"])
        let target = kind == "input" ? input : kind == "store" ? db : db + ".lock"
        let before = try readTree(tmp.path)
        let r = try areawatch(["ingest", input, "--db", db, "--force", "--rejects", target])
        #expect(r.status == 1 && r.stderr.contains("would overwrite"), "\(r)")
        #expect(try readTree(tmp.path) == before)
    }
}
