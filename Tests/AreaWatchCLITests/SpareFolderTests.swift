import Foundation
import AreaWatchTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The replaced report is kept as `.NAME.spare` and written over by the next run to the same
/// folder (docs/DECISIONS.md, "Report folders"): what is published must be exactly what a fresh
/// run publishes, and nothing outside the spare may change through it.
@Suite("the spare report folder", .timeLimit(.minutes(3)))
struct SpareFolderTests {
    /// Three reports of different shapes (precision, radius, zooms, optional outputs).
    static func wide(_ out: String) -> [String] {
        ["report", "--input", Datasets.police[2], "--out", out, "--as-of", Datasets.asOf, "--precision", "7",
         "--tile-zooms", "10-14", "--ehsa", "--poi", Datasets.poi, "--group-by", "category", "--quiet"]
    }

    static func narrow(_ out: String) -> [String] {
        ["report", "--input", Datasets.police[2], "--out", out, "--as-of", Datasets.asOf, "--precision", "6",
         "--radius", "500", "--tile-zooms", "12-13", "--quiet"]
    }

    @Test("each run publishes what a fresh run does; the previous report becomes the spare, and the spare's extra files and folders go")
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

    @Test("a folder under the spare's name that areawatch did not leave (no marker, even an empty one) is neither used nor replaced")
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
        #expect(exists(spare) && listFolder(spare).isEmpty, "an empty folder of the user's was replaced: \(listFolder(spare))")
    }
}
