import AreaWatchTestSupport
import Foundation
import Glibc
import Testing

/// Smaller attacks of the safety review: escape sequences from inputs reaching the terminal, and
/// the config accepting what the command line accepts.
@Suite("terminal escapes and config parity", .timeLimit(.minutes(60)))
struct TerminalAndConfigTests {
    /// ESC ] 0 ; … BEL retitles a terminal window; ESC [ 2 J clears it; U+009B is a one-byte CSI.
    static let hostile = "Burglary\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}31m"

    @Test("categories and file names with ANSI/OSC sequences are printed escaped by ingest, stats and query --list")
    func escaped() throws {
        let tmp = try TempDir()
        let csv = try tmp.file(
            "evil\u{1B}[31m.csv", "id,lat,lon,time,category\na,53.72,-1.86,2018-05-01,\"\(Self.hostile)\"\n")
        let db = tmp.sub("s.db")
        let ingest = try areawatchOK(["ingest", csv, "--db", db])
        let stats = try areawatchOK(["stats", "--db", db])
        let list = try areawatchOK([
            "query", "--db", db, "--lat", "53.72", "--lon", "-1.86", "--as-of", Datasets.asOf, "--list"
        ])
        for r in [ingest, stats, list] {
            for control in ["\u{1B}", "\u{07}", "\u{9B}"] {
                #expect(!r.stdout.contains(control) && !r.stderr.contains(control), "raw control character in \(r)")
            }
        }
        #expect(stats.stdout.contains("Burglary\\u{1B}]0;pwned\\u{7}"), "\(stats)")
        #expect(list.stdout.contains("\\u{9B}31m"), "\(list)")
        #expect(ingest.stdout.contains("evil\\u{1B}[31m.csv"), "\(ingest)")
        // JSON output carries the value itself, JSON-escaped.
        let json = try areawatchOK(["stats", "--db", db, "--json"])
        #expect(!json.stdout.contains("\u{1B}"), "\(json)")
        let parsed = try JSON.parse(json.stdout)
        #expect(parsed["categories"]?[Self.hostile]?.int == 1, "\(json)")
    }

    /// Before: values from the arguments and the config reached the terminal raw in messages
    /// (ArgumentParser's "the value '…' is invalid", the job's errors, serve's log).
    @Test("values of --timezone, --column, --db, --out, lookup --tiles, serve DIR and a config's folder are escaped")
    func argumentsEscaped() throws {
        let tmp = try TempDir()
        let evil = "x\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}31m"
        let shown = "x\\u{1B}]0;pwned\\u{7}\\u{1B}[2J\\u{9B}31m"
        let csv = try tmp.file("a.csv", "id,lat,lon,time\na,53.72,-1.86,2018-05-01\n")
        let db = tmp.sub("s.db")
        try areawatchOK(["ingest", csv, "--db", db, "--quiet"])
        try areawatchOK([
            "report", "--db", db, "--out", tmp.sub("rep"), "--as-of", Datasets.asOf, "--tile-zooms", "14",
            "--quiet"
        ])
        let evilFolder = try tmp.folder("cfg" + evil)
        let config = try tmp.file("cfg" + evil + "/job.toml", "store = \"s.db\"\nout = \"out\"\ncolour = 1\n")
        let runs: [(args: [String], status: Int32)] = [
            (["ingest", csv, "--db", db, "--timezone", evil], 1),
            (["ingest", csv, "--db", db, "--column", "id=" + evil], 1),
            (["ingest", csv, "--db", db, "--column", evil + "=id"], 1),
            (["stats", "--db", tmp.sub(evil + ".db")], 2),
            (["report", "--db", db, "--out", evilFolder, "--as-of", Datasets.asOf, "--tile-zooms", "none"], 1),
            (
                [
                    "report", "--db", db, "--out", tmp.sub("new" + evil), "--as-of", Datasets.asOf, "--tile-zooms",
                    "none"
                ],
                0
            ),
            (["lookup", "--tiles", tmp.sub(evil), "--lat", "53.72", "--lon", "-1.86"], 2),
            (["serve", tmp.sub(evil), "--port", "0"], 2),
            (["run", "--config", config], 1)
        ]
        for (args, status) in runs {
            let r = try areawatch(args)
            #expect(r.status == status, "\(r)")
            for control in ["\u{1B}", "\u{07}", "\u{9B}"] {
                #expect(!r.stdout.contains(control) && !r.stderr.contains(control), "raw control character in \(r)")
            }
            #expect(r.stdout.contains(shown) || r.stderr.contains(shown), "the value is not shown escaped: \(r)")
        }
        // A report folder whose name holds the sequence, served: the log line shows it escaped.
        try copyItem(tmp.sub("rep"), tmp.sub("served" + evil))
        let server = try Spawned(["serve", tmp.sub("served" + evil), "--port", "0", "--no-access-log"])
        let deadline = monotonicNow() + 30
        var log = ""
        while monotonicNow() < deadline && !log.contains("listening on") && server.poll() == nil {
            log = (try? String(contentsOfFile: server.errPath, encoding: .utf8)) ?? ""
            usleep(20_000)
        }
        server.kill(SIGTERM)
        let ended = server.wait(timeout: 20)
        #expect(ended.stderr.contains("serving " + tmp.sub("served" + shown)), "\(ended)")
        #expect(!ended.stderr.contains("\u{1B}") && !ended.stderr.contains("\u{9B}"), "\(ended)")
    }

    @Test("the config takes tile_zooms = \"none\" as the command line does; keys are the options' names")
    func configParity() throws {
        let tmp = try TempDir()
        try tmp.file(
            "inbox/a.csv",
            "id,lat,lon,time,category\na,53.72,-1.86,2018-05-01,Burglary\nb,53.72,-1.86,2018-05-02,Drugs\n")
        let config = try tmp.file(
            "job.toml",
            """
            store = "s.db"
            out = "out"
            [query]
            as_of = "\(Datasets.asOf)"
            categories = ["Burglary"]
            thresholds = [1, 2]
            [report]
            tile_zooms = "none"
            max_cells = 1000
            precision = 6
            """)
        try areawatchOK(["run", "--config", config, "--quiet"])
        let summary = try JSON.parse(try readBytes(tmp.sub("out/summary.json")))
        #expect(summary["tiles"]?.int == 0 && summary["parameters"]?["tile_zooms"] == .null, "\(summary)")
        #expect(summary["parameters"]?["categories"] == .array([.string("Burglary")]))
        #expect(summary["totals"]?["current"]?.int == 1)
        #expect(!exists(tmp.sub("out/tiles")))
    }
}

/// The safety review: a POI file of 1M points gave a 226 MB report.html. The page lists at most
/// 500 and points to poi.csv, which holds every one.
@Suite("report.html stays small for large POI files", .timeLimit(.minutes(60)))
struct LargePOITests {
    @Test("2,000 points of interest: 500 rows in the page, all 2,000 in poi.csv")
    func capped() throws {
        let tmp = try TempDir()
        let input = try tmp.file("in.csv", "id,lat,lon,time\na,53.72,-1.86,2018-05-01\n")
        var poi = "name,lat,lon\n"
        for k in 0..<2000 { poi += "p\(k),\(53.7 + Double(k % 50) * 0.001),\(-1.86 + Double(k / 50) * 0.001)\n" }
        let poiPath = try tmp.file("poi.csv", poi)
        try areawatchOK([
            "report", "--input", input, "--poi", poiPath, "--out", tmp.sub("out"), "--as-of", Datasets.asOf,
            "--tile-zooms", "none", "--quiet"
        ])
        let html = try readText(tmp.sub("out/report.html"))
        let section = html.components(separatedBy: "<section id=\"poi\">")[1].components(separatedBy: "</section>")[0]
        #expect(section.components(separatedBy: "<tr>").count - 2 == 500)
        #expect(section.contains("The first 500 of 2,000 points of interest"))
        #expect(try readText(tmp.sub("out/poi.csv")).split(separator: "\n").count == 2001)
    }
}
