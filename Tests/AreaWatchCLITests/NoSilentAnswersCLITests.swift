import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Answers that used to be silently empty or silently wrong, end to end through the binary:
/// an as-of that leaves both windows empty (SPEC §7: `--as-of latest`, the warning and the
/// report's banner), a year read as a time (SPEC §2.4), and "Safe Area" where there is no data
/// (SPEC §7.1 `coverage`, through query, lookup and `/v1/safety`).
@Suite("no silent empty answers", .timeLimit(.minutes(60)))
struct NoSilentAnswersCLITests {
    static let police2018 = Datasets.police[2]
    static let london = (lat: "51.5074", lon: "-0.1278")
    static let halifax = (lat: "53.7248", lon: "-1.8658")

    @Test("report of last year's file without --as-of: a warning naming the range and --as-of latest, a banner on top")
    func reportWarnsWhenBothWindowsAreEmpty() throws {
        let tmp = try TempDir()
        let r = try areawatchOK(["report", "--input", Self.police2018, "--out", tmp.sub("out"), "--tile-zooms", "none"])
        let warning = try #require(r.stderrLines.first { $0.contains("warning:") }, "no warning: \(r.stderr)")
        #expect(warning.contains("2,559") || warning.contains("2559"), "\(warning)")
        #expect(
            warning.contains("2018-07-01T00:00:00Z to 2018-07-01T00:00:00Z") && warning.contains("--as-of latest"),
            "\(warning)")
        #expect(r.stdout.contains("grid: 0 cells"))
        let html = try readText(tmp.sub("out/report.html"))
        let banner = try #require(
            html.range(of: "<p class=\"banner\" id=\"empty-windows\" role=\"alert\">"),
            "no banner")
        #expect(banner.lowerBound < html.range(of: "<header>")!.lowerBound, "the banner comes first")
        #expect(html.contains("--as-of latest"))
        let summary = try JSON.parse(try readBytes(tmp.sub("out/summary.json")))
        #expect(summary["warnings"]?[0]?.string?.contains("--as-of latest") == true)

        // --as-of latest: the newest incident's time, stated in every output; no warning.
        let latest = try areawatchOK([
            "report", "--input", Self.police2018, "--out", tmp.sub("latest"),
            "--as-of", "latest"
        ])
        #expect(!latest.stderr.contains("warning:"), "\(latest.stderr)")
        #expect(
            latest.stdout.contains("as of 2018-07-01T00:00:00Z") && latest.stdout.contains("current 2559"),
            "\(latest.stdout)")
        let latestSummary = try JSON.parse(try readBytes(tmp.sub("latest/summary.json")))
        #expect(latestSummary["as_of"]?.string == "2018-07-01T00:00:00Z" && latestSummary["warnings"] == nil)
        let tileJSON = try JSON.parse(try readBytes(tmp.sub("latest/tiles/tilejson.json")))
        #expect(tileJSON["areawatch"]?["as_of"]?.string == "2018-07-01T00:00:00Z")
        let latestHTML = try readText(tmp.sub("latest/report.html"))
        #expect(!latestHTML.contains("id=\"empty-windows\"") && latestHTML.contains("as of 2018-07-01T00:00:00Z"))
    }

    @Test("the nightly config takes as_of = \"latest\" and max_ehsa_bins, as the command line does")
    func configLatest() throws {
        let tmp = try TempDir()
        _ = try tmp.folder("inbox")
        try copyItem(Self.police2018, tmp.sub("inbox/2018-07.csv"))
        let config = try tmp.file(
            "job.toml",
            """
            store = "s.db"
            out = "out"
            [query]
            as_of = "latest"
            [report]
            tile_zooms = "none"
            ehsa = true
            ehsa_steps = 12
            max_ehsa_bins = 1
            """)
        let refused = try areawatch(["run", "--config", config, "--quiet"])
        #expect(refused.status == 1 && refused.stderr.contains("--max-ehsa-bins 1;"), "\(refused)")
        let relaxed = try tmp.file(
            "relaxed.toml",
            try readText(config).replacingOccurrences(
                of: "max_ehsa_bins = 1",
                with: "max_ehsa_bins = 3060"))
        let run = try areawatchOK(["run", "--config", relaxed, "--quiet"])
        let summary = try JSON.parse(try readBytes(tmp.sub("out/summary.json")))
        #expect(
            summary["as_of"]?.string == "2018-07-01T00:00:00Z" && summary["totals"]?["current"]?.int == 2559,
            "\(run)")
        #expect(summary["warnings"] == nil)
    }

    @Test("query: the same warning; --as-of latest counts the file's incidents; a non-empty window warns of nothing")
    func queryWarnsAndLatestCounts() throws {
        let empty = try areawatchOK([
            "query", "--input", Self.police2018, "--lat", Self.halifax.lat,
            "--lon", Self.halifax.lon
        ])
        #expect(empty.stderr.contains("warning: no incident lies in the current or previous window"), "\(empty.stderr)")
        #expect(empty.stderr.contains("--as-of latest"))
        let latest = try JSON.parse(
            try areawatchOK([
                "query", "--input", Self.police2018, "--lat", Self.halifax.lat,
                "--lon", Self.halifax.lon, "--as-of", "latest", "--json"
            ]).stdout)
        #expect(latest["as_of"]?.string == "2018-07-01T00:00:00Z")
        #expect((latest["current"]?.int ?? 0) > 0 && latest["coverage"]?.string == "data", "\(latest)")
        // A window holds incidents: no warning, whatever the point.
        let quiet = try areawatchOK([
            "query", "--input", Self.police2018, "--lat", "53.70", "--lon", "-2.10",
            "--as-of", "2018-07-31T23:59:59Z"
        ])
        #expect(!quiet.stderr.contains("warning:"), "\(quiet.stderr)")
    }

    @Test("--column time=Year over \"2018\": invalid_time, exit 2, \"a year, not a time\"; --time-format %Y reads it")
    func yearsAreNotTimes() throws {
        let tmp = try TempDir()
        var text = "id,Year,lat,lon\n"
        for k in 0..<40 { text += "y\(k),2018,53.72\(k % 10),-1.86\(k % 7)\n" }
        let file = try tmp.file("years.csv", "\(text)")
        let refused = try areawatch(["report", "--input", file, "--column", "time=Year", "--out", tmp.sub("out")])
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr.contains("years.csv") && refused.stderr.contains("invalid_time 40"), "\(refused.stderr)")
        #expect(refused.stderr.contains("a year, not a time: use --time-format %Y"), "\(refused.stderr)")
        #expect(!exists(tmp.sub("out")))

        let read = try areawatchOK([
            "report", "--input", file, "--column", "time=Year", "--time-format", "%Y",
            "--out", tmp.sub("read"), "--as-of", "2018-12-31T00:00:00Z",
            "--tile-zooms", "none"
        ])
        let summary = try JSON.parse(try readBytes(tmp.sub("read/summary.json")))
        let years = summary["totals"]?["years"]
        #expect(years?["2018"]?.int == 40 && years?["1970"] == nil, "\(read)")
    }

    @Test("numeric times: 99999, 2018, -5 are invalid_time; 100000, 1530000000 are seconds (JSON numbers, CSV text)")
    func yearBoundaries() throws {
        let tmp = try TempDir()
        let json = try tmp.file(
            "t.json",
            """
            [{"id":"a","lat":53.72,"lon":-1.86,"timestamp":2018},
             {"id":"b","lat":53.72,"lon":-1.86,"timestamp":99999},
             {"id":"c","lat":53.72,"lon":-1.86,"timestamp":100000},
             {"id":"d","lat":53.72,"lon":-1.86,"timestamp":-5},
             {"id":"e","lat":53.72,"lon":-1.86,"timestamp":1530000000}]
            """)
        let csv = try tmp.file("t.csv", "id,lat,lon,timestamp\nf,53.72,-1.86,2018\ng,53.72,-1.86,100000\n")
        let db = tmp.sub("s.db")
        let ingest = try areawatchOK(["ingest", json, csv, "--db", db])
        let rejects = try readText(tmp.sub("s-rejects.csv"))
        for (locator, id) in [("[0]", "a"), ("[1]", "b"), ("[3]", "d"), ("2", "f")] {
            #expect(rejects.contains(",\(locator),\(id),invalid_time,"), "\(id) not rejected: \(rejects)\n\(ingest)")
        }
        let stats = try JSON.parse(try areawatchOK(["stats", "--db", db, "--json"]).stdout)
        #expect(stats["incidents"]?.int == 3)
        #expect(stats["first_time"]?.string == "1970-01-02T03:46:40Z")
        #expect(stats["last_time"]?.string == "2018-06-26T08:00:00Z")
    }

    @Test("coverage: London against Calderdale data is \"No data for this location\" in query, lookup and /v1/safety")
    func noDataIsNeverSafe() throws {
        let run = try BundledRun.get()
        let at = ["--lat", Self.london.lat, "--lon", Self.london.lon]
        let asOf = ["--as-of", Datasets.asOf]
        let query = try JSON.parse(try areawatchOK(["query", "--db", run.store] + at + asOf + ["--json"]).stdout)
        #expect(query["coverage"]?.string == "none" && query["class"]?.isNull == true, "\(query)")
        #expect(query["label"]?.string == "No data for this location" && query["text"]?.isNull == true)
        #expect(query["current"]?.int == 0 && query["previous"]?.int == 0)
        let text = try areawatchOK(["query", "--db", run.store] + at + asOf)
        #expect(
            text.stdoutLines.first == "No data for this location" && !text.stdout.contains("Safe Area"),
            "\(text.stdout)")

        let tiles = run.out + "/tiles"
        let lookup = try areawatchOK(["lookup", "--tiles", tiles] + at + ["--json"])
        let answer = try JSON.parse(lookup.stdout)
        #expect(answer["coverage"]?.string == "none" && answer["class"]?.isNull == true, "\(answer)")
        #expect(answer["label"]?.string == "No data for this location")
        let lookupText = try areawatchOK(["lookup", "--tiles", tiles] + at)
        #expect(lookupText.stdoutLines.first == "No data for this location", "\(lookupText.stdout)")

        let server = try Spawned(["serve", run.out, "--port", "0"])
        defer { server.kill(SIGKILL) }
        let base = try ServeCommandTests().waitForListening(server)
        let served = try HTTP.get(base + "/v1/safety?lat=\(Self.london.lat)&lon=\(Self.london.lon)")
        #expect(served.status == 200 && served.body == lookup.stdout, "\(served.body)")
    }

    @Test("coverage: inside the data with nothing near stays Safe Area; the grown box's edges, exact on the sphere")
    func coverageEdges() throws {
        let tmp = try TempDir()
        // Two incidents: the box is 50.0…50.01 N, 0.0…0.02 E.
        let file = try tmp.file(
            "two.csv",
            "id,lat,lon,time\na,50.0,0.0,2018-07-01T00:00:00Z\nb,50.01,0.02,2018-07-02T00:00:00Z\n")
        let d = 1000 / Haversine.earthRadius / Haversine.radiansPerDegree
        let rad = Haversine.radiansPerDegree
        let reach = asin(sin(1000 / Haversine.earthRadius) / cos(50.01 * rad)) / rad
        func coverage(_ lat: Double, _ lon: Double) throws -> (String?, String?) {
            let r = try areawatchOK([
                "query", "--input", file, "--lat", "\(lat)", "--lon", "\(lon)",
                "--as-of", "latest", "--json"
            ])
            let j = try JSON.parse(r.stdout)
            return (j["coverage"]?.string, j["label"]?.string)
        }
        // Inside the box, more than the radius from both incidents: data, Safe Area.
        #expect(try coverage(50.0, 0.02) == ("data", "Safe Area"))
        #expect(try coverage(50.01 + d - 1e-6, 0.01) == ("data", "Safe Area"))
        #expect(try coverage(50.01 + d + 1e-6, 0.01).0 == "none")
        #expect(try coverage(50.0 - d + 1e-6, 0.01).0 == "data")
        #expect(try coverage(50.0 - d - 1e-6, 0.01).0 == "none")
        #expect(try coverage(50.005, 0.02 + reach - 1e-6).0 == "data")
        #expect(try coverage(50.005, 0.02 + reach + 1e-6).0 == "none")
        #expect(try coverage(50.005, -reach - 1e-6).0 == "none")
    }
}
