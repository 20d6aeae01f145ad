import AreaWatchTestSupport
import Foundation
import Testing

/// First-hour item 5: inputs are checked before anything is created, each error is printed
/// once, and a negative number is an option's value (with the option's range message).
@Suite("errors once, files untouched", .timeLimit(.minutes(60)))
struct InputCheckTests {
    @Test(
        "ingest of only unreadable files into a new store: exit 2, no store, lock or rejects file",
        arguments: [["nosuch.csv"], ["nosuch.csv", "folder"]])
    func nothingCreated(_ inputs: [String]) throws {
        let tmp = try TempDir()
        try tmp.folder("folder")
        let before = listFolder(tmp.path)
        let r = try areawatch(["ingest"] + inputs + ["--db", "new.db"], cwd: tmp.path)
        #expect(r.status == 2, "\(r)")
        #expect(listFolder(tmp.path) == before, "files were created: \(listFolder(tmp.path))")
        for bad in inputs {
            #expect(r.stderrLines.filter { $0.contains(bad) }.count == 1, "\(bad) is not named exactly once: \(r)")
            #expect(r.stderrLines.contains { $0.hasPrefix("areawatch: \(bad): ") }, "\(r)")
        }
        #expect(r.stderr.contains("nothing was ingested"), "\(r)")
    }

    @Test("an existing store is left exactly as it was when no input can be read")
    func existingStoreUntouched() throws {
        let tmp = try TempDir()
        let good = try tmp.file("good.csv", "id,lat,lon,time\na,53.72,-1.86,2018-05-01\nb,,-1.86,2018-05-01\n")
        let db = tmp.sub("s.db")
        try areawatchOK(["ingest", good, "--db", db, "--quiet"])
        let before = try readTree(tmp.path)
        let r = try areawatch(["ingest", tmp.sub("nosuch.csv"), tmp.sub("nosuch-either.json"), "--db", db])
        #expect(r.status == 2, "\(r)")
        #expect(try readTree(tmp.path) == before)
    }

    @Test("a missing file beside a good one: the good one is ingested, the missing one named once (SPEC §5)")
    func missingBesideGood() throws {
        let tmp = try TempDir()
        let r = try areawatch(["ingest", "good.csv", "nosuch.csv", "--db", "new.db"], cwd: tmp.path)
        #expect(r.status == 2, "\(r)")
        try tmp.file("good.csv", "id,lat,lon,time\na,53.72,-1.86,2018-05-01\n")
        let again = try areawatch(["ingest", "good.csv", "nosuch.csv", "--db", "new.db"], cwd: tmp.path)
        #expect(again.status == 2, "\(again)")
        #expect(again.stderrLines.filter { $0.contains("nosuch.csv") }.count == 1, "\(again)")
        #expect(try StoreProbe.snapshot(tmp.sub("new.db")).ingestedFiles == ["good.csv"])
        #expect(IngestTable(again.stdout).rows["nosuch.csv"]?.first == "INPUT ERROR", "\(again)")
    }

    @Test("ingest: the error of a file read in vain (every record rejected) and its hint are printed once")
    func allRejectedOnce() throws {
        let tmp = try TempDir()
        let good = try tmp.file("good.csv", "id,lat,lon,time\na,53.72,-1.86,2018-05-01\n")
        let portal = try tmp.file(
            "portal.csv",
            "id,lat,lon,time\na,53.72,-1.86,07/31/2018 11:00:00 PM\n"
                + "b,53.7,-1.8,08/01/2018 01:00:00 AM\n")
        let r = try areawatch(["ingest", good, portal, "--db", tmp.sub("s.db")])
        #expect(r.status == 2, "\(r)")
        let lines = r.stderrLines.filter { $0.contains("every record was rejected") }
        #expect(lines.count == 1, "\(r)")
        #expect(lines.first?.contains("--time-format '%m/%d/%Y %I:%M:%S %p'") == true, "\(r)")
        let hints = r.stderrLines.filter { $0.contains("--time-format") }
        #expect(hints.count == 1, "the hint appears outside the error line: \(r)")
        #expect(IngestTable(r.stdout).rows[portal]?.first == "INPUT ERROR", "\(r)")
    }

    @Test("report --input of a missing file: exit 2, nothing written")
    func reportInputMissing() throws {
        let tmp = try TempDir()
        let r = try areawatch([
            "report", "--input", tmp.sub("nosuch.csv"), "--out", tmp.sub("out"),
            "--rejects", tmp.sub("r.csv"), "--as-of", Datasets.asOf
        ])
        #expect(r.status == 2 && r.stderrLines.filter { $0.contains("nosuch.csv") }.count == 1, "\(r)")
        #expect(listFolder(tmp.path).isEmpty, "\(listFolder(tmp.path))")
    }

    @Test(
        "a negative number is the option's value: the range message, not 'Missing value'",
        arguments: [
            (["report", "--radius", "-5"], "--radius must be within (0, 50000]"),
            (["query", "--lat", "53.7", "--lon", "-1.8", "--radius", "-5"], "--radius must be within (0, 50000]"),
            (["report", "--radius=-5"], "--radius must be within (0, 50000]"),
            (["report", "--precision", "-1"], "--precision must be within 1…12"),
            (["report", "--min-cell-count", "-2"], "--min-cell-count must be at least 1"),
            (["report", "--max-cells", "-1"], "--max-cells must be at least 1"),
            (["report", "--fdr", "-0.5"], "--fdr must be within (0, 1)"),
            (["report", "--threads", "-1"], "--threads must be at least 1"),
            (["report", "--ehsa-precision", "-1"], "--ehsa-precision must be 1…12"),
            (["report", "--ehsa-steps", "-24"], "--ehsa-steps must be at least 10"),
            (["report", "--ehsa-alpha", "-0.05"], "--ehsa-alpha must be in (0, 1)"),
            (["report", "--thresholds", "-5,10"], "--thresholds"),
            (["report", "--tile-zooms", "-1-14"], "--tile-zooms"),
            (["ingest", "in.csv", "--max-reject-rate", "-0.1"], "--max-reject-rate must be within 0…1"),
            (
                ["ingest", "in.csv", "--max-record-bytes", "-1"],
                "--max-record-bytes and --max-json-depth must be positive"
            ),
            (["ingest", "in.csv", "--max-json-depth", "-1"], "--max-record-bytes and --max-json-depth must be positive")
        ])
    func negativeValues(_ arguments: [String], _ message: String) throws {
        let tmp = try TempDir()
        let input = try tmp.file("in.csv", "id,lat,lon,time\na,53.72,-1.86,2018-05-01\n")
        let source = arguments[0] == "ingest" ? [] : ["--input", input]
        let r = try areawatch(
            arguments + source + ["--as-of", Datasets.asOf].filter { _ in arguments[0] != "ingest" },
            cwd: tmp.path)
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains(message), "\(r)")
        #expect(!r.stderr.contains("Missing value"), "\(r)")
        #expect(listFolder(tmp.path) == ["in.csv"], "\(listFolder(tmp.path))")
    }
}
