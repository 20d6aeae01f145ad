import AreaWatchTestSupport
import Foundation
import Testing

/// SPEC §11: usage errors exit 1 with a message on stderr and change nothing; `--help` and
/// `--version` exit 0.
@Suite("usage, help and version", .timeLimit(.minutes(60)))
struct UsageTests {
    @Test("--help exits 0 and lists every subcommand")
    func help() throws {
        let r = try areawatch("--help")
        #expect(r.status == 0, "\(r)")
        for command in ["ingest", "stats", "query", "report", "lookup", "run", "check"] {
            #expect(r.stdout.contains(command), "--help does not mention \(command)")
        }
        #expect(r.stdout.contains("USAGE"), "\(r)")
        let sub = try areawatch("query", "--help")
        #expect(sub.status == 0, "\(sub)")
        for option in [
            "--lat", "--lon", "--json", "--list", "--category", "--handled", "--input", "--db", "--as-of",
            "--thresholds"
        ] {
            #expect(sub.stdout.contains(option), "query --help does not mention \(option)")
        }
    }

    @Test("--version prints the engine version and exits 0")
    func version() throws {
        let r = try areawatch("--version")
        #expect(r.status == 0, "\(r)")
        let v = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            v.split(separator: ".").count == 3 && v.split(separator: ".").allSatisfy { Int($0) != nil },
            "not a version: \(v)")
    }

    @Test("SpatiaLite is loaded with the first store, not at start: --version and an ad-hoc report never load it")
    func spatiaLiteLoadedWithTheStore() throws {
        let binary = try Binary.require()
        let env = try #require(findTool("env"), "no env tool")
        let tmp = try TempDir()
        let input = dataset("police-uk/2018-07-calderdale-street.csv")
        // glibc's loader names every library it initialises on stderr under LD_DEBUG=libs.
        func librariesLoaded(_ arguments: [String]) throws -> String {
            let r = try runTool(env, ["LD_DEBUG=libs", binary] + arguments)
            #expect(r.status == 0, "\(r)")
            #expect(r.stderr.contains("libsqlite3"), "LD_DEBUG shows no libraries: \(r)")
            return r.stderr
        }
        #expect(!(try librariesLoaded(["--version"])).contains("libspatialite"))
        #expect(
            !(try librariesLoaded([
                "report", "--input", input, "--out", tmp.sub("adhoc"), "--as-of", "2018-08-01",
                "--quiet"
            ])).contains("libspatialite"))
        #expect(try librariesLoaded(["ingest", "--db", tmp.sub("s.db"), input, "--quiet"]).contains("libspatialite"))
    }

    @Test(
        "usage errors exit 1 with a message on stderr and create no store",
        arguments: [
            ["ingest", "--bogus-option", "x.csv"],
            ["ingest"],
            ["frobnicate"],
            ["query", "--lat", "95", "--lon", "0"],
            ["query", "--lat", "53.7", "--lon", "181"],
            ["query", "--lat", "abc", "--lon", "0"],
            ["query", "--lat", "53.7", "--lon", "-1.8", "--thresholds", "5"],
            ["query", "--lat", "53.7", "--lon", "-1.8", "--thresholds", "10,5"],
            ["query", "--lat", "53.7", "--lon", "-1.8", "--thresholds", "five,ten"],
            ["query", "--lat", "53.7", "--lon", "-1.8", "--as-of", "yesterday"],
            ["query", "--lat", "53.7", "--lon", "-1.8", "--handled", "maybe"],
            ["query", "--lat", "53.7"],
            ["report", "--tile-zooms", "14-10"],
            ["report", "--precision", "13"],
            ["report", "--min-cell-count", "0"],
            ["ingest", "x.csv", "--max-reject-rate", "1.5"],
            ["ingest", "x.csv", "--format", "xml"],
            ["lookup", "--tiles", "t", "--lat", "-91", "--lon", "0"],
            ["ingest", "x.csv", "--column", "time=+"],
            ["ingest", "x.csv", "--column", "colour=Red"],
            ["ingest", "x.csv", "--timezone", "posix/Europe/London"]
        ])
    func usageError(_ arguments: [String]) throws {
        let tmp = try TempDir()
        // Every command points at a store in the scratch folder, which must not appear.
        let db = tmp.sub("store.db")
        let args = arguments.first == "lookup" || arguments.first == "frobnicate" ? arguments : arguments + ["--db", db]
        let r = try areawatch(args, cwd: tmp.path)
        #expect(r.status == 1, "\(r)")
        #expect(!r.stderr.isEmpty, "no message: \(r)")
        #expect(r.stdout.isEmpty || !r.stdout.contains("report:"), "\(r)")
        #expect(!exists(db), "a usage error created the store")
        #expect(
            listFolder(tmp.path).allSatisfy { $0.hasSuffix(".lock") == false },
            "a usage error took the lock: \(listFolder(tmp.path))")
    }

    @Test("a negative longitude or latitude is a value, not an option (README's own example)")
    func negativeCoordinates() throws {
        let tmp = try TempDir()
        let csv = try tmp.file("one.csv", "id,lat,lon,time\na,-33.8688,-151.2093,2018-05-01\n")
        let db = tmp.sub("s.db")
        try areawatchOK(["ingest", csv, "--db", db, "--quiet"])
        let r = try areawatch(
            "query", "--db", db, "--lat", "-33.8688", "--lon", "-151.2093", "--as-of", Datasets.asOf, "--json")
        #expect(r.status == 0, "\(r)")
        let answer = try JSON.parse(r.stdout)
        #expect(answer["current"]?.int == 1, "\(r)")
        #expect(answer["lat"]?.double == -33.8688 && answer["lon"]?.double == -151.2093, "\(r)")
    }
}
