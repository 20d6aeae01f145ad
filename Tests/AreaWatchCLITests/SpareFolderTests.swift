import AreaWatchTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The replaced report is kept as `.NAME.spare` and written over by the next run to the same
/// folder (docs/DECISIONS.md, "Report folders"): what is published must be exactly what a fresh
/// run publishes, and nothing outside the spare may change through it.
@Suite("the spare report folder", .timeLimit(.minutes(60)))
struct SpareFolderTests {
    /// Three reports of different shapes (precision, radius, zooms, optional outputs).
    static func wide(_ out: String) -> [String] {
        [
            "report", "--input", Datasets.police[2], "--out", out, "--as-of", Datasets.asOf, "--precision", "7",
            "--tile-zooms", "10-14", "--ehsa", "--poi", Datasets.poi, "--group-by", "category", "--quiet"
        ]
    }

    /// Process ids above the kernel's limit belong to no process.
    static func pidMax() throws -> Int {
        Int(try readText("/proc/sys/kernel/pid_max").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 4_194_304
    }

    static func narrow(_ out: String) -> [String] {
        [
            "report", "--input", Datasets.police[2], "--out", out, "--as-of", Datasets.asOf, "--precision", "6",
            "--radius", "500", "--tile-zooms", "12-13", "--quiet"
        ]
    }

    @Test(
        "each run publishes what a fresh run does; the previous report becomes the spare, and the spare's extra files and folders go"
    )
    func publishesWhatAFreshRunDoes() throws {
        let tmp = try TempDir()
        let parent = tmp.sub("reports"), out = parent + "/latest", spare = parent + "/.latest.spare"
        try areawatchOK(Self.wide(tmp.sub("fresh-wide")))
        try areawatchOK(Self.narrow(tmp.sub("fresh-narrow")))
        let freshWide = try readTree(tmp.sub("fresh-wide")), freshNarrow = try readTree(tmp.sub("fresh-narrow"))
        #expect(freshWide.count > freshNarrow.count + 100, "the two shapes must differ in their files")

        try areawatchOK(Self.wide(out))
        #expect(!exists(spare), "a first run leaves no spare")
        // The spare a run takes is the report from two runs before: wide, wide, narrow, narrow,
        // wide has each kind of run write over a spare of the other kind, and of its own.
        var shapes = [true]
        for wide in [true, false, false, true, true] {
            try areawatchOK(wide ? Self.wide(out) : Self.narrow(out))
            let run = "run \(shapes.count + 1)"
            let published = reportDifferences(try readTree(out), wide ? freshWide : freshNarrow)
            #expect(published.isEmpty, "\(run): \(published.prefix(5))")
            let kept = reportDifferences(try readTree(spare), shapes.last! ? freshWide : freshNarrow)
            #expect(kept.isEmpty, "\(run), the spare: \(kept.prefix(5))")
            #expect(listFolder(parent) == [".latest.spare", "latest"], "\(listFolder(parent))")
            shapes.append(wide)
        }
    }

    @Test("a file of the spare with another hard link, or a symbolic link in it, is never written through")
    func neverWritesThroughLinks() throws {
        let tmp = try TempDir()
        let parent = tmp.sub("reports"), out = parent + "/latest", spare = parent + "/.latest.spare"
        try areawatchOK(Self.wide(out))
        try areawatchOK(Self.wide(out))
        // The spare now holds a wide report, which the narrow one below writes over.
        // A backup made with hard links, and a planted symbolic link to a file outside.
        let backup = tmp.sub("backup-grid.csv"), victim = try tmp.file("victim.txt", "not a report\n")
        #expect(link(spare + "/grid.csv", backup) == 0)
        let backupBefore = try readBytes(backup)
        // The marker too, with other content through the link.
        let markerLink = tmp.sub("marker-link")
        #expect(link(spare + "/.areawatch-report", markerLink) == 0)
        try "mine\n".write(toFile: markerLink, atomically: false, encoding: .utf8)
        removeItem(spare + "/summary.json")
        try FileManager.default.createSymbolicLink(atPath: spare + "/summary.json", withDestinationPath: victim)
        let elsewhere = tmp.sub("elsewhere")
        #expect(mkdir(elsewhere, 0o755) == 0)
        removeItem(spare + "/tiles/12")
        try FileManager.default.createSymbolicLink(atPath: spare + "/tiles/12", withDestinationPath: elsewhere)

        try areawatchOK(Self.narrow(out))
        #expect(try readBytes(backup) == backupBefore, "the hard-linked copy changed")
        #expect(try readText(victim) == "not a report\n", "written through a symbolic link")
        #expect(try readText(markerLink) == "mine\n", "the marker was written through a hard link")
        try areawatchOK(Self.narrow(tmp.sub("fresh")))
        let differences = reportDifferences(try readTree(out), try readTree(tmp.sub("fresh")))
        #expect(differences.isEmpty, "\(differences.prefix(5))")
        var info = stat()
        #expect(lstat(out + "/summary.json", &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG)
        #expect(lstat(out + "/tiles/12", &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR)
        #expect(listFolder(elsewhere).isEmpty, "tiles written through a symbolic link: \(listFolder(elsewhere))")
    }

    @Test(
        "a folder under the spare's name that areawatch did not leave (no marker, even an empty one) is neither used nor replaced"
    )
    func leavesForeignFoldersAlone() throws {
        let tmp = try TempDir()
        let parent = tmp.sub("reports"), out = parent + "/latest", spare = parent + "/.latest.spare"
        try areawatchOK(Self.wide(tmp.sub("fresh")))
        let fresh = try readTree(tmp.sub("fresh"))
        try tmp.file("reports/.latest.spare/notes.txt", "mine\n")
        try areawatchOK(Self.narrow(out))
        try areawatchOK(Self.wide(out))
        #expect(try readText(spare + "/notes.txt") == "mine\n")
        #expect(listFolder(spare) == ["notes.txt"])
        #expect(reportDifferences(try readTree(out), fresh).isEmpty)

        removeItem(spare)
        #expect(mkdir(spare, 0o755) == 0)
        try areawatchOK(Self.narrow(out))
        #expect(
            exists(spare) && listFolder(spare).isEmpty,
            "an empty folder of the user's was replaced: \(listFolder(spare))")
    }

    /// The second data-loss item: a store inside the spare (`.DIR.spare/store.db`, used with
    /// --db) was deleted by the next report to DIR (exit 0).
    @Test("a store inside the spare: a report naming it is refused; one that does not is written, the spare left alone")
    func storeInsideTheSpare() throws {
        let tmp = try TempDir()
        let parent = tmp.sub("reports"), out = parent + "/latest", spare = parent + "/.latest.spare"
        try areawatchOK(Self.narrow(out))
        try areawatchOK(Self.narrow(out))
        #expect(exists(spare + "/.areawatch-report"), "the second run left no spare")
        let db = spare + "/store.db"
        try areawatchOK(["ingest", Datasets.police[2], "--db", db, "--quiet"])
        let store = try StoreProbe.snapshot(db)
        let before = try readTree(parent)

        let refused = try areawatch([
            "report", "--db", db, "--out", out, "--as-of", Datasets.asOf,
            "--tile-zooms", "12-13"
        ])
        #expect(refused.status == 1 && refused.stderr.contains(".latest.spare"), "\(refused)")
        #expect(try readTree(parent) == before, "the refused report changed files")

        // A report that does not name the store: the spare holds files a report does not write,
        // so it is neither taken nor removed; the report is what a fresh run publishes.
        try areawatchOK(Self.narrow(out))
        #expect(try StoreProbe.snapshot(db) == store)
        #expect(
            listFolder(spare).contains("store.db") && listFolder(spare).contains("store-rejects.csv"),
            "\(listFolder(spare))")
        try areawatchOK(Self.narrow(tmp.sub("fresh")))
        #expect(reportDifferences(try readTree(out), try readTree(tmp.sub("fresh"))).isEmpty)
        #expect(listFolder(parent) == [".latest.spare", "latest"], "\(listFolder(parent))")
        let check = try areawatch(["check", "--db", db])
        #expect(check.status == 0, "\(check)")
    }

    /// The nightly job's store, inbox or rejects file inside the spare its report would take.
    @Test(
        "run: a store, inbox or rejects file inside the spare is refused before anything changes",
        arguments: ["store", "inbox", "rejects"])
    func runPathsInsideTheSpare(_ kind: String) throws {
        let tmp = try TempDir()
        let out = tmp.sub("reports/latest"), spare = tmp.sub("reports/.latest.spare")
        try areawatchOK(Self.narrow(out))
        try areawatchOK(Self.narrow(out))
        #expect(exists(spare + "/.areawatch-report"), "no spare to take")
        let files = try GeneratedData.write([("s1", 300)], into: tmp.sub("inbox"), seed: 4)
        let store = kind == "store" ? "reports/.latest.spare/x.db" : "x.db"
        let inbox = kind == "inbox" ? "reports/.latest.spare/inbox" : "inbox"
        if kind == "inbox" { try copyItem(tmp.sub("inbox"), spare + "/inbox") }
        try areawatchOK(["ingest", files[0].path, "--db", tmp.sub(store), "--quiet"])
        let rejects = kind == "rejects" ? "rejects = \"reports/.latest.spare/r.csv\"\n" : ""
        if kind == "rejects" { try tmp.file("reports/.latest.spare/r.csv", "source,record,id,reason,excerpt\n") }
        let config = try tmp.file(
            "job.toml",
            """
            store = "\(store)"
            out = "reports/latest"
            [inbox]
            folder = "\(inbox)"
            [ingest]
            \(rejects)[query]
            as_of = "\(Datasets.asOf)"
            [report]
            precision = 6
            tile_zooms = "12-13"

            """)
        let before = try readTree(tmp.path)
        let r = try areawatch(["run", "--config", config])
        #expect(r.status == 1 && r.stderr.contains(".latest.spare"), "\(r)")
        #expect(try readTree(tmp.path) == before, "the refused run changed files")
    }

    @Test("an input or areas file inside a work folder's name (.DIR.tmp-*) or the spare: refused, nothing touched")
    func inputsInsideWorkFolders() throws {
        let tmp = try TempDir()
        let parent = tmp.sub("reports"), out = parent + "/latest"
        let csv = "id,lat,lon,time\na,53.72,-1.86,2018-05-01\n"
        let inWork = try tmp.file("reports/.latest.tmp-kept/in.csv", csv)
        let inSpare = try tmp.file("reports/.latest.spare/in.csv", csv)
        let before = try readTree(tmp.path)
        for input in [inWork, inSpare] {
            let r = try areawatch(["report", "--input", input, "--out", out, "--as-of", Datasets.asOf])
            #expect(r.status == 1 && r.stderr.contains("refusing to replace"), "\(r)")
            let areas = try areawatch([
                "report", "--input", Datasets.police[2], "--areas", input, "--out", out,
                "--as-of", Datasets.asOf
            ])
            #expect(areas.status == 1 && areas.stderr.contains("refusing to replace"), "\(areas)")
        }
        #expect(try readTree(tmp.path) == before)
        #expect(!exists(out))
    }

    @Test("a leftover work folder of an ended process is removed only when it holds nothing but report files")
    func leftoversOfEndedRuns() throws {
        let tmp = try TempDir()
        let parent = tmp.sub("reports"), out = parent + "/latest"
        let pidMax = try Self.pidMax()
        try areawatchOK(Self.narrow(tmp.sub("fresh")))
        try tmp.folder("reports")
        let reportOnly = parent + "/.latest.tmp-\(pidMax + 1)", mixed = parent + "/.latest.tmp-\(pidMax + 2)"
        try copyItem(tmp.sub("fresh"), reportOnly)
        try copyItem(tmp.sub("fresh"), mixed)
        try tmp.file("reports/.latest.tmp-\(pidMax + 2)/tiles/notes.txt", "mine\n")
        try areawatchOK(Self.narrow(out))
        #expect(!exists(reportOnly), "a leftover of report files only was kept")
        #expect(try readText(mixed + "/tiles/notes.txt") == "mine\n", "a leftover holding another file was removed")
        #expect(exists(mixed + "/grid.csv"), "the leftover was emptied around the user's file")
    }
}
