import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

/// US daylight saving time since 2007, written here from the rule itself (second Sunday of
/// March 02:00 standard → daylight, first Sunday of November 02:00 daylight → standard), so
/// that the engine's zone database is checked against an independent model.
struct USZone {
    /// Standard offset, seconds east of UTC (Chicago −6 h, New York −5 h).
    let standard: Int64

    /// The n-th Sunday (1-based) of a month, as a day number.
    static func sunday(_ year: Int, _ month: Int, _ n: Int) -> Int {
        let first = Civil.days(year: year, month: month, day: 1)
        let weekday = ((first % 7) + 11) % 7 // 0 = Sunday (1970-01-01 was a Thursday)
        return first + (7 - weekday) % 7 + 7 * (n - 1)
    }

    /// The UTC instants when daylight time starts and ends in a year.
    func changes(_ year: Int) -> (start: Int64, end: Int64) {
        let start = Int64(USZone.sunday(year, 3, 2)) * 86_400 + 7200 - standard
        let end = Int64(USZone.sunday(year, 11, 1)) * 86_400 + 7200 - (standard + 3600)
        return (start, end)
    }

    func offset(at t: Int64) -> Int64 {
        let (start, end) = changes(Civil.year(t))
        return t >= start && t < end ? standard + 3600 : standard
    }

    /// Whether the instant's wall time is the second showing of the repeated hour: read back,
    /// it is the earlier instant (SPEC §2.5), so such instants cannot have a wall-time twin.
    func isSecondShowing(_ t: Int64) -> Bool {
        let end = changes(Civil.year(t)).end
        return t >= end && t < end + 3600
    }
}

/// Seeded Chicago- and New-York-shaped exports of the same incidents as a UTC ISO file.
enum PortalFiles {
    struct Incident {
        var t: Int64
        var lat: Double
        var lon: Double
        var handled: Bool
    }

    static func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    /// Incidents over 2015–2018: a third within hours of a change of offset, a third within
    /// hours of the window bounds of `asOf` (where an hour's error moves an incident between
    /// windows), the rest spread out; none at a second showing of a repeated hour.
    static func incidents(_ zone: USZone, asOf: Int64, count: Int, seed: UInt64, center: (Double, Double)) -> [Incident]
    {
        var rng = SplitMix64(seed: seed)
        var bounds: [Int64] = [asOf, Civil.minusYears(asOf, 1), Civil.minusYears(asOf, 2)]
        for year in 2015...2018 {
            let (start, end) = zone.changes(year)
            bounds += [start, end]
        }
        var out: [Incident] = []
        while out.count < count {
            let t: Int64
            switch rng.next() % 3 {
            case 0, 1: t = bounds[Int(rng.next() % UInt64(bounds.count))] + Int64(rng.next() % 21_600) - 10_800
            default:
                t =
                    Civil.epoch(2015, 1, 1)
                    + Int64(rng.next() % UInt64(Civil.epoch(2018, 12, 31) - Civil.epoch(2015, 1, 1)))
            }
            if zone.isSecondShowing(t) { continue }
            // A few hundred hotspot cells, so that the grid has cells with several incidents.
            let lat = center.0 + Double(rng.next() % 40) * 0.0021 + rng.unit() * 0.0004
            let lon = center.1 + Double(rng.next() % 40) * 0.0027 + rng.unit() * 0.0004
            out.append(Incident(t: t, lat: lat, lon: lon, handled: rng.next() % 3 == 0))
        }
        return out
    }

    static func wall(_ t: Int64, _ zone: USZone) -> (date: String, hour: Int, minute: Int, second: Int) {
        let local = t + zone.offset(at: t)
        let day = Int((local >= 0 ? local : local - 86_399) / 86_400)
        let s = Int(local - Int64(day) * 86_400)
        let (y, m, d) = Civil.civil(days: day)
        return ("\(two(m))/\(two(d))/\(y)", s / 3600, s / 60 % 60, s % 60)
    }

    static func utcTwin(_ incidents: [Incident]) -> String {
        var text = "id,time,lat,lon,handled\n"
        for (n, i) in incidents.enumerated() {
            text +=
                "\(n + 1),\(Civil.iso(i.t)),\(String(format: "%.6f", i.lat)),\(String(format: "%.6f", i.lon)),\(i.handled)\n"
        }
        return text
    }

    static func chicago(_ incidents: [Incident], _ zone: USZone) -> String {
        var text = "ID,Case Number,Date,Primary Type,Latitude,Longitude,Arrest\n"
        for (n, i) in incidents.enumerated() {
            let w = wall(i.t, zone)
            let twelve = w.hour % 12 == 0 ? 12 : w.hour % 12
            let clock = "\(two(twelve)):\(two(w.minute)):\(two(w.second)) \(w.hour < 12 ? "AM" : "PM")"
            text +=
                "\(n + 1),JA\(100_000 + n),\(w.date) \(clock),THEFT,\(String(format: "%.6f", i.lat)),\(String(format: "%.6f", i.lon)),\(i.handled)\n"
        }
        return text
    }

    /// New York's shape: date and time of day in two columns (the time left empty for
    /// incidents at local midnight), the point in one `(lat, lon)` column.
    static func newYork(_ incidents: [Incident], _ zone: USZone) -> String {
        var text = "CMPLNT_NUM,CMPLNT_FR_DT,CMPLNT_FR_TM,OFNS_DESC,Lat_Lon\n"
        for (n, i) in incidents.enumerated() {
            let w = wall(i.t, zone)
            let time =
                w.hour == 0 && w.minute == 0 && w.second == 0 ? "" : "\(two(w.hour)):\(two(w.minute)):\(two(w.second))"
            text +=
                "\(n + 1),\(w.date),\(time),ROBBERY,\"(\(String(format: "%.6f", i.lat)), \(String(format: "%.6f", i.lon)))\"\n"
        }
        return text
    }

    /// Moves every 50th incident to its local midnight (the empty time part of New York's export).
    static func withMidnights(_ incidents: [Incident], _ zone: USZone) -> [Incident] {
        incidents.enumerated().map { n, i in
            guard n % 50 == 0 else { return i }
            var copy = i
            let local = i.t + zone.offset(at: i.t)
            let midnight = local - (local % 86_400 + 86_400) % 86_400
            copy.t = midnight - zone.offset(at: midnight - zone.standard)
            return copy
        }
    }
}

@Suite(.serialized) struct PortalFormatCLITests {
    static let chicagoZone = USZone(standard: -6 * 3600)
    static let newYorkZone = USZone(standard: -5 * 3600)
    static let rows = 3000 * GeneratedData.scale

    func report(_ input: String, asOf: String, _ options: [String], into dir: String) throws -> [String: [UInt8]] {
        let out = dir + "/report-\(UUID().uuidString.prefix(8))"
        try areawatchOK(
            [
                "report", "--input", input, "--out", out, "--as-of", asOf, "--precision", "7", "--radius", "500",
                "--tile-zooms", "none"
            ] + options)
        return ["grid.csv": try readBytes(out + "/grid.csv"), "grid.geojson": try readBytes(out + "/grid.geojson")]
    }

    /// Chicago's export read with its pattern and zone gives the grid of its UTC twin, byte for
    /// byte; the as-of sits in the repeated hour, so an hour's error would move incidents
    /// between windows (and without the zone the grid does differ).
    @Test func chicagoShapeEqualsItsUTCTwin() throws {
        let tmp = try TempDir()
        let asOf = "2017-11-05T06:30:00Z" // 01:30 CDT, the first showing of the repeated hour
        let incidents = PortalFiles.incidents(
            Self.chicagoZone, asOf: Civil.parseISO(asOf)!, count: Self.rows, seed: 1871,
            center: (41.80, -87.75))
        try PortalFiles.chicago(incidents, Self.chicagoZone).write(
            toFile: tmp.path + "/crimes.csv", atomically: false, encoding: .utf8)
        try PortalFiles.utcTwin(incidents).write(toFile: tmp.path + "/utc.csv", atomically: false, encoding: .utf8)
        let options = [
            "--time-format", "%m/%d/%Y %I:%M:%S %p", "--timezone", "America/Chicago", "--column", "handled=Arrest"
        ]
        let local = try report(tmp.path + "/crimes.csv", asOf: asOf, options, into: tmp.path)
        let utc = try report(tmp.path + "/utc.csv", asOf: asOf, [], into: tmp.path)
        #expect(local["grid.csv"] == utc["grid.csv"])
        #expect(local["grid.geojson"] == utc["grid.geojson"])
        #expect(String(decoding: utc["grid.csv"]!, as: UTF8.self).split(separator: "\n").count > 100)
        // The test can fail: read as UTC, the same export gives another grid.
        let naive = try report(
            tmp.path + "/crimes.csv", asOf: asOf, Array(options.prefix(2)) + ["--column", "handled=Arrest"],
            into: tmp.path)
        #expect(naive["grid.csv"] != utc["grid.csv"])
    }

    @Test func newYorkShapeEqualsItsUTCTwin() throws {
        let tmp = try TempDir()
        let asOf = "2018-03-11T07:30:00Z" // 03:30 EDT, just after the skipped hour
        let incidents = PortalFiles.withMidnights(
            PortalFiles.incidents(
                Self.newYorkZone, asOf: Civil.parseISO(asOf)!, count: Self.rows, seed: 1624, center: (40.68, -73.99)),
            Self.newYorkZone)
        try PortalFiles.newYork(incidents, Self.newYorkZone).write(
            toFile: tmp.path + "/complaints.csv", atomically: false, encoding: .utf8)
        try PortalFiles.utcTwin(incidents).write(toFile: tmp.path + "/utc.csv", atomically: false, encoding: .utf8)
        let options = [
            "--time-format", "%m/%d/%Y %H:%M:%S", "--timezone", "America/New_York",
            "--column", "time=CMPLNT_FR_DT+CMPLNT_FR_TM", "--column", "point=Lat_Lon"
        ]
        // The twin's handled flags are not in New York's shape: compare without them.
        var twin = try String(contentsOfFile: tmp.path + "/utc.csv", encoding: .utf8)
        twin = twin.replacingOccurrences(of: ",true\n", with: ",\n").replacingOccurrences(of: ",false\n", with: ",\n")
        try twin.write(toFile: tmp.path + "/utc.csv", atomically: false, encoding: .utf8)
        let local = try report(tmp.path + "/complaints.csv", asOf: asOf, options, into: tmp.path)
        let utc = try report(tmp.path + "/utc.csv", asOf: asOf, [], into: tmp.path)
        #expect(local["grid.csv"] == utc["grid.csv"])
        #expect(local["grid.geojson"] == utc["grid.geojson"])
        #expect(String(decoding: utc["grid.csv"]!, as: UTF8.self).split(separator: "\n").count > 100)
    }

    /// One inbox holding two portals' exports: `[[inbox.files]]` tables give each its pattern,
    /// zone and columns, and the nightly job's store equals one built from the UTC twins.
    @Test func nightlyInboxOfTwoPortals() throws {
        let tmp = try TempDir()
        let asOf = "2018-03-11T07:30:00Z"
        let chicago = PortalFiles.incidents(
            Self.chicagoZone, asOf: Civil.parseISO(asOf)!, count: 500, seed: 7, center: (41.80, -87.75))
        let newYork = PortalFiles.incidents(
            Self.newYorkZone, asOf: Civil.parseISO(asOf)!, count: 500, seed: 8, center: (40.68, -73.99))
        try tmp.folder("inbox/chicago")
        try tmp.folder("inbox/nyc")
        try PortalFiles.chicago(chicago, Self.chicagoZone).write(
            toFile: tmp.sub("inbox/chicago/crimes.csv"), atomically: false, encoding: .utf8)
        try PortalFiles.newYork(newYork, Self.newYorkZone).write(
            toFile: tmp.sub("inbox/nyc/complaints.csv"), atomically: false, encoding: .utf8)
        let config = try tmp.file(
            "job.toml",
            """
            store = "s.db"
            out = "out"
            [inbox]
            folder = "inbox"
            include = ["chicago/*.csv", "nyc/*.csv"]
            [[inbox.files]]
            pattern = "chicago/*.csv"
            source = "chicago"
            time_format = "%m/%d/%Y %I:%M:%S %p"
            timezone = "America/Chicago"
            [[inbox.files]]
            pattern = "nyc/*.csv"
            source = "nyc"
            time_format = "%m/%d/%Y %H:%M:%S"
            timezone = "America/New_York"
            columns = ["time=CMPLNT_FR_DT+CMPLNT_FR_TM", "point=Lat_Lon"]
            [query]
            as_of = "\(asOf)"
            [report]
            tile_zooms = "none"
            """)
        try areawatchOK(["run", "--config", config, "--quiet"])
        // The same incidents given in UTC, ingested with the same sources: the same report.
        for (name, incidents) in [("chicago", chicago), ("nyc", newYork)] {
            let twin = PortalFiles.utcTwin(incidents).replacingOccurrences(of: ",true\n", with: ",\n")
                .replacingOccurrences(of: ",false\n", with: ",\n")
            let path = tmp.sub("\(name)-utc.csv")
            try twin.write(toFile: path, atomically: false, encoding: .utf8)
            try areawatchOK(["ingest", path, "--db", tmp.sub("twin.db"), "--source", name, "--quiet"])
        }
        try areawatchOK([
            "report", "--db", tmp.sub("twin.db"), "--out", tmp.sub("twin"), "--as-of", asOf, "--tile-zooms", "none",
            "--quiet"
        ])
        let nightly = try JSON.parse(try readBytes(tmp.sub("out/summary.json")))
        let twin = try JSON.parse(try readBytes(tmp.sub("twin/summary.json")))
        #expect(nightly["totals"] == twin["totals"] && nightly["excluded_future"] == twin["excluded_future"])
        #expect((nightly["totals"]?["incidents"]?.int ?? 0) + (nightly["excluded_future"]?.int ?? 0) == 1000)
        #expect(try readBytes(tmp.sub("out/grid.csv")) == readBytes(tmp.sub("twin/grid.csv")))
        #expect(try readBytes(tmp.sub("out/grid.geojson")) == readBytes(tmp.sub("twin/grid.geojson")))
    }

    /// The issue's file: every record rejected → exit 2, the reason, an example and the
    /// options in the message, nothing stored (the same file then ingests in full).
    @Test func everyRecordRejectedExitsTwoAndStoresNothing() throws {
        let tmp = try TempDir()
        let incidents = PortalFiles.incidents(
            Self.chicagoZone, asOf: Civil.epoch(2018, 7, 31), count: 200, seed: 5, center: (41.80, -87.75))
        let file = tmp.path + "/crimes.csv"
        try PortalFiles.chicago(incidents, Self.chicagoZone).write(toFile: file, atomically: false, encoding: .utf8)

        let report = try areawatch([
            "report", "--input", file, "--out", tmp.path + "/out", "--as-of", "2018-07-31T23:59:59Z"
        ])
        #expect(report.status == 2, "\(report)")
        #expect(
            report.stderr.contains(
                "crimes.csv: every record was rejected (200 records): invalid_time 200, e.g. time \""), "\(report)")
        #expect(report.stderr.contains("--time-format '%m/%d/%Y %I:%M:%S %p'"), "\(report)")
        #expect(report.stderr.contains("--timezone ZONE"), "\(report)")
        #expect(!exists(tmp.path + "/out"))

        let db = tmp.path + "/store.db"
        let ingest = try areawatch(["ingest", file, "--db", db])
        #expect(ingest.status == 2, "\(ingest)")
        #expect(ingest.stderr.contains("every record was rejected"), "\(ingest)")
        let again = try areawatchOK([
            "ingest", file, "--db", db, "--time-format", "%m/%d/%Y %I:%M:%S %p", "--timezone", "America/Chicago"
        ])
        let row = again.stdoutLines.first { $0.contains("crimes.csv") }?.split(separator: " ").map(String.init) ?? []
        #expect(row.count > 4 && row[2] == "200" && row[3] == "200" && row[4] == "200", "\(again)")
    }

    /// Local times in the skipped hour do not exist: `invalid_time` in the rejects file.
    @Test func skippedHourIsInvalidTime() throws {
        let tmp = try TempDir()
        let file = tmp.path + "/crimes.csv"
        try """
        ID,Case Number,Date,Primary Type,Latitude,Longitude,Arrest
        1,JA1,03/11/2018 01:59:59 AM,THEFT,41.80,-87.75,false
        2,JA2,03/11/2018 02:00:00 AM,THEFT,41.80,-87.75,false
        3,JA3,03/11/2018 02:59:59 AM,THEFT,41.80,-87.75,false
        4,JA4,03/11/2018 03:00:00 AM,THEFT,41.80,-87.75,false

        """.write(toFile: file, atomically: false, encoding: .utf8)
        let rejects = tmp.path + "/rejects.csv"
        try areawatchOK([
            "ingest", file, "--db", tmp.path + "/s.db", "--rejects", rejects,
            "--time-format", "%m/%d/%Y %I:%M:%S %p", "--timezone", "America/Chicago"
        ])
        let rows = try readText(rejects).split(separator: "\n").map(String.init)
        #expect(
            rows == [
                "source,record,id,reason,excerpt",
                "\(file),3,2,invalid_time,\"2,JA2,03/11/2018 02:00:00 AM,THEFT,41.80,-87.75,false\"",
                "\(file),4,3,invalid_time,\"3,JA3,03/11/2018 02:59:59 AM,THEFT,41.80,-87.75,false\""
            ])
    }

    /// Before: `UTC`, `Etc/UTC`, `Asia/Kolkata` and `US/Eastern` were "unknown time zone" while
    /// the deprecated `Asia/Calcutta` worked. Every zone of the system's tzdata is a name now;
    /// the instants are checked against the zones' laws written in this test (USZone).
    @Test(arguments: [
        "UTC", "Etc/UTC", "Asia/Kolkata", "Asia/Calcutta", "US/Eastern", "America/New_York",
        "us/eastern"
    ])
    func systemZonesAndTheirLinks(_ zone: String) throws {
        let tmp = try TempDir()
        let walls = [
            "2018-03-11 01:59:59", "2018-03-11 02:30:00", "2018-03-11 03:00:00", "2018-07-04 12:00:00",
            "2018-11-04 01:30:00", "2018-11-04 02:00:00", "2045-03-12 02:30:00", "2100-07-01 12:00:00",
            "1999-12-31 23:59:59"
        ]
        var text = "id,lat,lon,time\n"
        for (k, wall) in walls.enumerated() { text += "w\(k),53.72,-1.86,\(wall)\n" }
        let file = try tmp.file("local.csv", text)
        let db = tmp.sub("s.db"), rejects = tmp.sub("rejects.csv")
        try areawatchOK(["ingest", file, "--db", db, "--timezone", zone, "--rejects", rejects, "--quiet"])
        let eastern = zone.lowercased().contains("eastern") || zone.contains("New_York")
        let fixed: Int64 = zone.contains("UTC") ? 0 : 19_800
        var expected: [String: Int64] = [:], rejected: [String] = []
        for (k, wall) in walls.enumerated() {
            let w = Civil.parseISO(wall.replacingOccurrences(of: " ", with: "T") + "Z")!
            let shown = [w + 18_000, w + 14_400].filter { w - $0 == Self.newYorkZone.offset(at: $0) }
            let instants = eastern ? shown : [w - fixed]
            if let first = instants.min() { expected["w\(k)"] = first } else { rejected.append("w\(k)") }
        }
        #expect(rejected == (eastern ? ["w1", "w6"] : []))
        let stored = try StoreProbe.strings(db, "SELECT key || ' ' || time FROM incidents ORDER BY key")
        #expect(stored == expected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }, "\(zone)")
        let reasons = try readText(rejects).split(separator: "\n").dropFirst().map { row in
            let fields = row.split(separator: ",")
            return fields[2] + " " + fields[3]
        }
        #expect(reasons == rejected.map { "\($0) invalid_time" })
    }

    @Test func badOptionsAreUsageErrors() throws {
        let file = Datasets.police[0]
        for options in [
            ["--time-format", "%m/%d/%Y %"], ["--time-format", "%m/%d/%Y %Q"],
            ["--time-format", String(repeating: "%Y", count: 400)],
            ["--timezone", "Mars/Olympus_Mons"], ["--column", "point=Location", "--column", "lat=Latitude"]
        ] {
            let r = try areawatch(["report", "--input", file, "--out", "/nonexistent/x"] + options)
            #expect(r.status == 1, "\(r)")
            #expect(r.stderr.contains("Error: --"), "\(r)")
        }
    }
}
