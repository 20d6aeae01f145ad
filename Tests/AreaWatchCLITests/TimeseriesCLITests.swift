import AreaWatchTestSupport
import Foundation
import Testing

/// `timeseries.csv` (SPEC §8.1) end to end through the built binary, checked against counts the
/// test makes itself from the bundled input files.
@Suite("timeseries.csv, end to end", .timeLimit(.minutes(60)))
struct TimeseriesCLITests {
    /// `YYYY-MM` of an instant, by the test support's calendar.
    static func monthLabel(_ t: Int64) -> String {
        let iso = Civil.iso(t)
        return String(iso.prefix(7))
    }

    /// Every month from `first` to `last` (`YYYY-MM`), both included.
    static func months(from first: String, to last: String) -> [String] {
        var (y, m) = (Int(first.prefix(4))!, Int(first.suffix(2))!)
        var out: [String] = []
        while true {
            let label = String(format: "%04d-%02d", y, m)
            out.append(label)
            if label == last { return out }
            (y, m) = m == 12 ? (y + 1, 1) : (y, m + 1)
        }
    }

    static func report(
        _ tmp: TempDir, inputs: [String], name: String,
        extra: [String] = []
    ) throws -> StrictCSV.Parsed {
        let out = tmp.sub(name)
        try areawatchOK(
            ["report", "--input"] + inputs + [
                "--out", out, "--as-of", Datasets.asOf, "--areas", Datasets.areas, "--area-id", "name",
                "--tile-zooms", "none", "--quiet"
            ] + extra)
        let csv = StrictCSV.parse(try readBytes(out + "/timeseries.csv"))
        #expect(csv.violations.isEmpty, "\(csv.violations)")
        #expect(csv.header == ["area", "month", "count"])
        return csv
    }

    @Test("the three bundled Julys: all and per-area rows for 2016-07…2018-07, zeros between, counts from the files")
    func bundledPoliceData() throws {
        let tmp = try TempDir()
        let csv = try Self.report(tmp, inputs: Datasets.police, name: "out")
        let incidents = try Model.police().flatMap(\.incidents)
        let areas = try bundledAreas()
        let months = Self.months(from: "2016-07", to: "2018-07")
        #expect(months.count == 25)
        var expected: [[String]] = []
        func rows(_ name: String, _ members: [ModelIncident]) {
            var byMonth: [String: Int] = [:]
            for i in members { byMonth[Self.monthLabel(i.time), default: 0] += 1 }
            expected += months.map { [name, $0, String(byMonth[$0] ?? 0)] }
        }
        rows("all", incidents)
        for area in areas {
            rows(area.name, incidents.filter { i in area.polygons.contains { inside(i.lon, i.lat, rings: $0) } })
        }
        let got = csv.records.map(\.fields)
        #expect(got.count == expected.count)
        for (g, e) in zip(got, expected) where g != e { Issue.record("row \(g), expected \(e)") }
        // Only the three Julys hold incidents; the 22 months between are written as 0.
        let all = got.filter { $0[0] == "all" }
        #expect(all.filter { $0[2] != "0" }.map { $0[1] } == ["2016-07", "2017-07", "2018-07"])
        #expect(all.filter { $0[2] == "0" }.count == 22)
        #expect(Int(all[0][2]) == incidents.filter { Self.monthLabel($0.time) == "2016-07" }.count)
    }

    @Test("--min-cell-count K: counts below K are empty, and months only below K do not widen the span")
    func withheldBelowK() throws {
        let tmp = try TempDir()
        // Two incidents in January 2015, inside no area and far from the rest.
        let early = try tmp.file(
            "early.csv",
            "id,lat,lon,time\ne1,53.30,-2.60,2015-01-10T00:00:00Z\n"
                + "e2,53.31,-2.61,2015-01-11T00:00:00Z\n")
        let exact = try Self.report(tmp, inputs: [early] + Datasets.police, name: "exact")
        #expect(exact.records.first?.fields == ["all", "2015-01", "2"])
        let exactRows = exact.records.map(\.fields)
        let k = 100 // Sowerby Bridge holds 83 and 106: one July withheld, one shown
        let withK = ["--min-cell-count", String(k)]
        let withheld = try Self.report(tmp, inputs: [early] + Datasets.police, name: "k", extra: withK)
        let rows = withheld.records.map(\.fields)
        // The span starts at the first month with at least K incidents: 2015-01 looks like nothing there.
        #expect(rows.first?[1] == "2016-07" && rows.last?[1] == "2018-07")
        let exactByKey = Dictionary(exactRows.map { ($0[0] + "|" + $0[1], $0[2]) }, uniquingKeysWith: { a, _ in a })
        var someWithheld = false
        for row in rows {
            let n = Int(exactByKey[row[0] + "|" + row[1]] ?? "") ?? -1
            #expect(row[2] == (n >= k ? String(n) : ""), "\(row) vs exact \(n)")
            if n > 0 && n < k { someWithheld = true }
        }
        #expect(someWithheld, "no count below K: the test would not show withholding")
        // Without the early incidents the area rows are the same (they hold none of them).
        let without = try Self.report(tmp, inputs: Datasets.police, name: "k-without", extra: withK)
        #expect(without.records.map(\.fields) == rows)
    }

    @Test("a report with every option re-run into its own folder succeeds, timeseries.csv included")
    func rerunInPlace() throws {
        let tmp = try TempDir()
        let out = tmp.sub("full")
        let arguments =
            ["report", "--input"] + Datasets.all + [
                "--out", out, "--as-of", Datasets.asOf, "--areas", Datasets.areas, "--area-id", "name",
                "--poi", Datasets.poi,
                "--group-by", "category", "--tile-zooms", "11-13", "--ehsa", "--min-cell-count", "2", "--quiet"
            ]
        try areawatchOK(arguments)
        let first = try readTree(out)
        #expect(first["timeseries.csv"] != nil && first["ehsa.csv"] != nil && first["areas.csv"] != nil)
        let again = try areawatch(arguments)
        #expect(again.status == 0, "\(again)")
        let second = try readTree(out)
        #expect(Set(second.keys) == Set(first.keys))
        #expect(second["timeseries.csv"] == first["timeseries.csv"])
    }

    @Test("months at a year's edge and before 1970 are UTC months; nothing passing the filters is the header alone")
    func edgesAndEmpty() throws {
        let tmp = try TempDir()
        let input = try tmp.file(
            "edges.csv",
            """
            id,lat,lon,time,category
            a,53.72,-1.86,2016-12-31T23:59:59Z,Burglary
            b,53.72,-1.86,2017-01-01T00:00:00Z,Burglary
            c,53.72,-1.86,1969-12-31T23:59:59Z,Burglary
            d,53.72,-1.86,2016-12-31T23:30:00-01:00,Burglary

            """)
        let out = tmp.sub("out")
        try areawatchOK([
            "report", "--input", input, "--out", out, "--as-of", "2017-06-30T00:00:00Z",
            "--tile-zooms", "none", "--quiet"
        ])
        let rows = StrictCSV.parse(try readBytes(out + "/timeseries.csv")).records.map(\.fields)
        let months = Self.months(from: "1969-12", to: "2017-01")
        #expect(rows.map { $0[1] } == months && rows.allSatisfy { $0[0] == "all" })
        // d is 2017-01-01T00:30:00Z in UTC.
        let held = rows.filter { $0[2] != "0" }.map { $0[1] + "=" + $0[2] }
        #expect(held == ["1969-12=1", "2016-12=1", "2017-01=2"], "\(held)")
        let none = tmp.sub("none")
        try areawatchOK([
            "report", "--input", input, "--out", none, "--as-of", "2017-06-30T00:00:00Z",
            "--tile-zooms", "none", "--category", "Robbery", "--quiet"
        ])
        #expect(try readText(none + "/timeseries.csv") == "area,month,count\n")
    }
}
