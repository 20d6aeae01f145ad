import Foundation
import AreaWatchTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// SPEC §8: `--out DIR` replaces DIR only when it is absent, empty or a report folder areawatch
/// wrote; anything else — and any folder holding the store, the inbox, the rejects file or an
/// input — is refused with exit 1 and left exactly as it was. Each case is an attack that
/// deleted data before (`report --db p/x.db --out p` wiped the store and exited 0).
@Suite("--out never deletes what areawatch did not write", .timeLimit(.minutes(5)))
struct OutFolderSafetyTests {
    /// One small input, for stores and `--input` runs.
    static let csv = "id,lat,lon,time,category\na,53.72,-1.86,2018-05-01,Burglary\nb,53.73,-1.87,2018-06-01,Burglary\n"

    @Test("report --db p/x.db --out p: refused, the store and the other files intact")
    func storeInsideOut() throws {
        let tmp = try TempDir()
        let input = try tmp.file("in.csv", Self.csv)
        try areawatchOK(["ingest", input, "--db", tmp.sub("p/x.db"), "--quiet"])
        try tmp.file("p/notes.txt", "keep me")
        let before = try readTree(tmp.sub("p"))
        let r = try areawatch(["report", "--db", tmp.sub("p/x.db"), "--out", tmp.sub("p"), "--as-of", Datasets.asOf])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("refusing to replace") && r.stderr.contains("x.db"), "\(r)")
        #expect(try readTree(tmp.sub("p")) == before)
    }

    @Test("report --input d/in.csv --out d: refused, the input intact")
    func inputInsideOut() throws {
        let tmp = try TempDir()
        let input = try tmp.file("d/in.csv", Self.csv)
        let r = try areawatch(["report", "--input", input, "--out", tmp.sub("d"), "--as-of", Datasets.asOf])
        #expect(r.status == 1 && r.stderr.contains("in.csv"), "\(r)")
        #expect(try readText(input) == Self.csv)
        #expect(listFolder(tmp.sub("d")) == ["in.csv"])
    }

    @Test("a folder of other files, or a symbolic link: refused; an empty folder: written")
    func foreignFolders() throws {
        let tmp = try TempDir()
        let input = try tmp.file("in.csv", Self.csv)
        try tmp.file("photos/cat.jpg", "not a report")
        let r = try areawatch(["report", "--input", input, "--out", tmp.sub("photos"), "--as-of", Datasets.asOf])
        #expect(r.status == 1 && r.stderr.contains("not a report folder areawatch wrote"), "\(r)")
        #expect(listFolder(tmp.sub("photos")) == ["cat.jpg"])

        #expect(symlink(tmp.sub("photos"), tmp.sub("link")) == 0)
        let link = try areawatch(["report", "--input", input, "--out", tmp.sub("link"), "--as-of", Datasets.asOf])
        #expect(link.status == 1 && link.stderr.contains("symbolic link"), "\(link)")
        #expect(listFolder(tmp.sub("photos")) == ["cat.jpg"])

        try tmp.folder("empty")
        try areawatchOK(["report", "--input", input, "--out", tmp.sub("empty"), "--as-of", Datasets.asOf, "--quiet"])
        #expect(exists(tmp.sub("empty/grid.csv")) && exists(tmp.sub("empty/.areawatch-report")))
        // Its own folder is replaced on the next run; a file dropped into it makes it foreign.
        try areawatchOK(["report", "--input", input, "--out", tmp.sub("empty"), "--as-of", Datasets.asOf, "--quiet"])
        try tmp.file("empty/mine.txt", "analyst's notes")
        let again = try areawatch(["report", "--input", input, "--out", tmp.sub("empty"), "--as-of", Datasets.asOf])
        #expect(again.status == 0, "a report folder with the marker is areawatch's: \(again)")
    }

    @Test("a report folder of an earlier version (no marker, only report files) is replaced")
    func legacyReportFolder() throws {
        let tmp = try TempDir()
        let input = try tmp.file("in.csv", Self.csv)
        try areawatchOK(["report", "--input", input, "--out", tmp.sub("old"), "--as-of", Datasets.asOf, "--quiet"])
        removeItem(tmp.sub("old/.areawatch-report"))
        try areawatchOK(["report", "--input", input, "--out", tmp.sub("old"), "--as-of", Datasets.asOf, "--quiet"])
        #expect(exists(tmp.sub("old/.areawatch-report")))
    }

    @Test("run: out holding the store, the inbox or the rejects file is refused before anything changes", arguments: [
        ("store = \"data/x.db\"\nout = \"data\"\n[inbox]\nfolder = \"inbox\"\n", "data"),
        ("store = \"x.db\"\nout = \"inbox\"\n[inbox]\nfolder = \"inbox\"\n", "inbox"),
        ("store = \"x.db\"\nout = \"out\"\n[inbox]\nfolder = \"inbox\"\n[ingest]\nrejects = \"out/rejects.csv\"\n", "out"),
    ])
    func runConfigs(_ config: String, _ out: String) throws {
        let tmp = try TempDir()
        try tmp.file("inbox/a.csv", Self.csv)
        try tmp.file("data/keep.txt", "keep")
        try tmp.folder("out")
        try tmp.file("out/keep.txt", "keep")
        let before = try readTree(tmp.path)
        let path = try tmp.file("job.toml", config + "[query]\nas_of = \"\(Datasets.asOf)\"\n")
        let r = try areawatch(["run", "--config", path])
        #expect(r.status == 1 && r.stderr.contains("refusing to replace"), "\(r)")
        var after = try readTree(tmp.path)
        after.removeValue(forKey: "job.toml")
        var expected = before
        expected.removeValue(forKey: "job.toml")
        #expect(after == expected, "the refused run changed files")
    }
}

/// SPEC §8: work is bounded before it starts — a grid estimated above `--max-cells` and a radius
/// outside (0, 50000] m are refused with a message naming the estimate or the limit.
@Suite("bounded work for any input", .timeLimit(.minutes(5)))
struct BoundedWorkTests {
    @Test("one incident at the pole (7.3M cells at precision 8), at precision 12, or above a lower --max-cells: refused at once", arguments: [
        ["--precision", "8"], ["--precision", "12", "--radius", "1"], ["--precision", "7", "--max-cells", "1000000"],
    ])
    func pole(_ options: [String]) throws {
        let tmp = try TempDir()
        let input = try tmp.file("pole.csv", "id,lat,lon,time\np,90,0,2018-07-01\n")
        let started = monotonicNow()
        let r = try areawatch(["report", "--input", input, "--out", tmp.sub("out"), "--as-of", Datasets.asOf] + options)
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("--max-cells") && r.stderr.contains("cells at precision"), "\(r)")
        #expect(!exists(tmp.sub("out")))
        #expect(monotonicNow() - started < 30, "the refusal took the time of the work it refuses")
    }

    @Test("the same grid is written when --max-cells allows it (precision 5 at the pole)")
    func allowed() throws {
        let tmp = try TempDir()
        let input = try tmp.file("pole.csv", "id,lat,lon,time\np,90,0,2018-07-01\n")
        try areawatchOK(["report", "--input", input, "--out", tmp.sub("out"), "--as-of", Datasets.asOf, "--precision", "5",
                         "--tile-zooms", "none", "--quiet"])
        #expect(exists(tmp.sub("out/grid.csv")))
    }

    @Test("radius outside (0, 50000] m and hex coordinates are usage errors", arguments: [
        ["report", "--radius", "1e9"], ["report", "--radius", "0"], ["report", "--radius", "-5"], ["report", "--radius", "inf"],
        ["query", "--lat", "0x10", "--lon", "0"], ["query", "--lat", "53.7", "--lon", "nan"],
    ])
    func limits(_ arguments: [String]) throws {
        let tmp = try TempDir()
        let input = try tmp.file("in.csv", "id,lat,lon,time\na,53.72,-1.86,2018-05-01\n")
        let r = try areawatch(arguments + ["--input", input, "--as-of", Datasets.asOf], cwd: tmp.path)
        #expect(r.status == 1 && !r.stderr.isEmpty, "\(r)")
        #expect(!exists(tmp.sub("reports")))
    }
}
