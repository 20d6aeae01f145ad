import AreaWatchTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SPEC §8: `--out DIR` replaces DIR only when it is absent, empty or a report folder areawatch
/// wrote; anything else — and any folder holding the store, the inbox, the rejects file or an
/// input — is refused with exit 1 and left exactly as it was. Each case is an attack that
/// deleted data before (`report --db p/x.db --out p` wiped the store and exited 0).
@Suite("--out never deletes what areawatch did not write", .timeLimit(.minutes(60)))
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

    @Test("a folder of other files, a link, or a report folder holding a user's file: refused; an empty one: written")
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
        // Its own folder is replaced on the next run; a file dropped into it is not areawatch's:
        // the folder is then refused, the file and the report left as they were.
        try areawatchOK(["report", "--input", input, "--out", tmp.sub("empty"), "--as-of", Datasets.asOf, "--quiet"])
        try tmp.file("empty/mine.txt", "analyst's notes")
        let before = try readTree(tmp.sub("empty"))
        let again = try areawatch(["report", "--input", input, "--out", tmp.sub("empty"), "--as-of", Datasets.asOf])
        #expect(
            again.status == 1 && again.stderr.contains("mine.txt") && again.stderr.contains("does not write"),
            "\(again)")
        #expect(try readTree(tmp.sub("empty")) == before)
    }

    /// The attack of the first data-loss item: a folder of the user's own files named like report
    /// files, with no marker, was replaced (exit 0) and the files were gone, no spare left.
    @Test("a folder without the marker is refused whatever names it holds (summary.json, tiles/ with other files)")
    func reportLikeFolderWithoutMarker() throws {
        let tmp = try TempDir()
        let input = try tmp.file("in.csv", Self.csv)
        try tmp.file("mine/summary.json", "{\"my\": \"own summary\"}\n")
        try tmp.file("mine/grid.csv", "my,own,grid\n")
        try tmp.file("mine/tiles/12/2000/1300.json", "{}")
        try tmp.file("mine/tiles/holiday.jpg", "a photo")
        let before = try readTree(tmp.path)
        let r = try areawatch(["report", "--input", input, "--out", tmp.sub("mine"), "--as-of", Datasets.asOf])
        #expect(r.status == 1 && r.stderr.contains("no .areawatch-report marker"), "\(r)")
        #expect(try readTree(tmp.path) == before, "the refused report changed files")
        #expect(listFolder(tmp.path) == ["in.csv", "mine"], "a spare or work folder was left: \(listFolder(tmp.path))")

        // Only report files, but still no marker (what earlier versions accepted): refused too.
        removeItem(tmp.sub("mine/tiles/holiday.jpg"))
        let reportNames = try areawatch([
            "report", "--input", input, "--out", tmp.sub("mine"),
            "--as-of", Datasets.asOf
        ])
        #expect(reportNames.status == 1, "\(reportNames)")
        #expect(try readText(tmp.sub("mine/summary.json")) == "{\"my\": \"own summary\"}\n")
    }

    @Test("a marker that is a symbolic link or a folder does not make a folder areawatch's")
    func markerMustBeAPlainFile() throws {
        let tmp = try TempDir()
        let input = try tmp.file("in.csv", Self.csv)
        let elsewhere = try tmp.file("elsewhere-marker", "Written by areawatch\n")
        try tmp.file("linked/notes.txt", "keep")
        #expect(symlink(elsewhere, tmp.sub("linked/.areawatch-report")) == 0)
        try tmp.file("nested/notes.txt", "keep")
        try tmp.folder("nested/.areawatch-report")
        for name in ["linked", "nested"] {
            let before = try readTree(tmp.sub(name))
            let r = try areawatch(["report", "--input", input, "--out", tmp.sub(name), "--as-of", Datasets.asOf])
            #expect(r.status == 1 && r.stderr.contains("marker"), "\(name): \(r)")
            #expect(try readTree(tmp.sub(name)) == before)
        }
    }

    @Test(
        "run: out holding the store, the inbox or the rejects file is refused before anything changes",
        arguments: [
            ("store = \"data/x.db\"\nout = \"data\"\n[inbox]\nfolder = \"inbox\"\n", "data"),
            ("store = \"x.db\"\nout = \"inbox\"\n[inbox]\nfolder = \"inbox\"\n", "inbox"),
            (
                "store = \"x.db\"\nout = \"out\"\n[inbox]\nfolder = \"inbox\"\n[ingest]\nrejects = \"out/rejects.csv\"\n",
                "out"
            )
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
@Suite("bounded work for any input", .timeLimit(.minutes(60)))
struct BoundedWorkTests {
    @Test(
        "one incident at the pole (7.3M cells at precision 8), at precision 12, or above a lower --max-cells: refused at once",
        arguments: [
            ["--precision", "8"], ["--precision", "12", "--radius", "1"], ["--precision", "7", "--max-cells", "1000000"]
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
        try areawatchOK([
            "report", "--input", input, "--out", tmp.sub("out"), "--as-of", Datasets.asOf, "--precision", "5",
            "--tile-zooms", "none", "--quiet"
        ])
        #expect(exists(tmp.sub("out/grid.csv")))
    }

    @Test(
        "radius outside (0, 50000] m and hex coordinates are usage errors",
        arguments: [
            ["report", "--radius", "1e9"], ["report", "--radius", "0"], ["report", "--radius", "-5"],
            ["report", "--radius", "inf"],
            ["query", "--lat", "0x10", "--lon", "0"], ["query", "--lat", "53.7", "--lon", "nan"]
        ])
    func limits(_ arguments: [String]) throws {
        let tmp = try TempDir()
        let input = try tmp.file("in.csv", "id,lat,lon,time\na,53.72,-1.86,2018-05-01\n")
        let r = try areawatch(arguments + ["--input", input, "--as-of", Datasets.asOf], cwd: tmp.path)
        #expect(r.status == 1 && !r.stderr.isEmpty, "\(r)")
        #expect(!exists(tmp.sub("reports")))
    }
}
