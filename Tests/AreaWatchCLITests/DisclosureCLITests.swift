import AreaWatchTestSupport
import Foundation
import Testing

/// Hostile-input attacks on public outputs, end to end through the built binary: the isolated
/// incident of SPEC §10 and spreadsheet formulas in CSV text cells (SPEC §8).
@Suite("disclosure control and CSV injection, end to end", .timeLimit(.minutes(60)))
struct DisclosureCLITests {
    /// The sections of report.html that SPEC §10's property covers.
    static func geographicSections(_ html: [UInt8]?) -> [String] {
        let page = String(decoding: html ?? [], as: UTF8.self)
        return ["heatmap", "top-cells", "areas", "poi"].map { id in
            guard let start = page.range(of: "<section id=\"\(id)\">") else { return "" }
            return page[start.lowerBound...].components(separatedBy: "</section>")[0]
        }
    }

    /// Files of the geographic outputs that differ between two report folders.
    static func differences(_ a: [String: [UInt8]], _ b: [String: [UInt8]]) -> [String] {
        var out: [String] = []
        for path in Set(a.keys).union(b.keys).sorted()
        where !["summary.json", "breakdown.csv", "report.html", "timeseries.csv"].contains(path)
            && a[path] != b[path]
        {
            out.append(path)
        }
        if geographicSections(a["report.html"]) != geographicSections(b["report.html"]) {
            out.append("report.html (map or tables)")
        }
        if areaSeries(a["timeseries.csv"]) != areaSeries(b["timeseries.csv"]) {
            out.append("timeseries.csv (area rows)")
        }
        return out
    }

    /// timeseries.csv as SPEC §10's property covers it: the named areas' shown counts. The `all`
    /// rows are whole-data totals (like the calendar-year trend), and an empty area count is
    /// "nothing there" whatever month span the whole data gives the file.
    static func areaSeries(_ bytes: [UInt8]?) -> [String] {
        String(decoding: bytes ?? [], as: UTF8.self).split(separator: "\n").dropFirst()
            .filter { !$0.hasPrefix("all,") && !$0.hasSuffix(",") }.map(String.init)
    }

    @Test("one isolated incident changes no geographic output with --min-cell-count 3 (and shows without it)")
    func isolatedIncidentLeavesNoTrace() throws {
        let tmp = try TempDir()
        let original = try readText(Datasets.police[2])
        // 53.30 N 2.60 W: tens of kilometres from every Calderdale incident, area and POI.
        let lone =
            ",2018-05,West Yorkshire Police,West Yorkshire Police,-2.600000,53.300000,On or near Nowhere,E0,X,Burglary,,\n"
        let withLone = try tmp.file("with.csv", original + lone)
        let without = try tmp.file("without.csv", original)
        func report(_ input: String, _ k: Int, _ name: String) throws -> [String: [UInt8]] {
            let out = tmp.sub(name)
            try areawatchOK([
                "report", "--input", input, "--out", out, "--as-of", Datasets.asOf, "--areas", Datasets.areas,
                "--area-id", "name", "--poi", Datasets.poi, "--group-by", "category", "--tile-zooms", "11-14",
                "--min-cell-count", String(k), "--quiet"
            ])
            return try readTree(out)
        }
        let a = try report(without, 3, "a"), b = try report(withLone, 3, "b")
        #expect(a.count > 50 && a["grid.csv"] != nil)
        let diff = Self.differences(a, b)
        #expect(diff.isEmpty, "the isolated incident shows in \(diff.prefix(10))")
        // Without disclosure control the same incident is visible: the test can fail.
        let exactA = try report(without, 1, "exact-a"), exactB = try report(withLone, 1, "exact-b")
        #expect(!Self.differences(exactA, exactB).isEmpty)
        // summary.json is the operators' record: exact, so it counts the incident.
        let sa = try JSON.parse(try #require(a["summary.json"])), sb = try JSON.parse(try #require(b["summary.json"]))
        #expect(sb["totals"]?["current"]?.int == (sa["totals"]?["current"]?.int ?? 0) + 1)
        #expect((sa["grid"]?["withheld_cells"]?.int ?? 0) > 0)
    }

    @Test(
        "text cells starting with = + - @ tab or CR are written with a leading ' in every CSV output and the rejects file"
    )
    func formulasAreNeutralised() throws {
        let tmp = try TempDir()
        let input = try tmp.file(
            "hostile.csv",
            """
            id,lat,lon,time,category
            a1,53.72,-1.86,2018-05-01,"=HYPERLINK(""http://x"",""y"")"
            a2,53.7201,-1.8601,2018-05-02,+cmd
            a3,53.7202,-1.8602,2018-05-03,-2+3
            a4,53.7203,-1.8603,2018-05-04,@SUM(A1)
            a5,53.7204,-1.8604,2018-05-05,"\tTab"
            a6,53.7205,-1.8605,2018-05-06,"\rReturn"
            a7,53.7206,-1.8606,2018-05-07,Burglary
            =1+1,,-1.86,2018-05-08,Theft

            """)
        let areas = try tmp.file(
            "areas.geojson",
            """
            {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"=A1*2"},"geometry":{"type":"Polygon",
            "coordinates":[[[-1.87,53.71],[-1.85,53.71],[-1.85,53.73],[-1.87,53.73],[-1.87,53.71]]]}}]}
            """)
        let poi = try tmp.file("poi.csv", "name,lat,lon\n@evil,53.72,-1.86\n-negative,53.73,-1.87\nplain,53.74,-1.88\n")
        let db = tmp.sub("s.db")
        try areawatch(["ingest", input, "--db", db, "--quiet"])
        let rejects = StrictCSV.parse(try readBytes(tmp.sub("s-rejects.csv")))
        #expect(rejects.dictionaries.first?["id"] == "'=1+1", "\(rejects.dictionaries)")
        let out = tmp.sub("out")
        try areawatchOK([
            "report", "--db", db, "--out", out, "--as-of", Datasets.asOf, "--areas", areas, "--area-id", "name",
            "--poi", poi, "--group-by", "category", "--tile-zooms", "none", "--quiet"
        ])
        let breakdown = StrictCSV.parse(try readBytes(out + "/breakdown.csv")).records.map { $0.fields[0] }
        #expect(
            breakdown == [
                "'\tTab", "'\rReturn", "'+cmd", "'-2+3", "'=HYPERLINK(\"http://x\",\"y\")", "'@SUM(A1)", "Burglary"
            ], "\(breakdown)")
        #expect(StrictCSV.parse(try readBytes(out + "/areas.csv")).records.first?.fields.first == "'=A1*2")
        let poiRows = StrictCSV.parse(try readBytes(out + "/poi.csv")).dictionaries
        #expect(poiRows.map { $0["name"] ?? "" } == ["'@evil", "'-negative", "plain"])
        // Numeric columns are never prefixed: a negative longitude stays a number.
        #expect(poiRows.allSatisfy { $0["lon"]?.hasPrefix("-1.8") == true })
        // The GeoJSON keeps names as they are (not a spreadsheet format).
        #expect(try readText(out + "/areas.geojson").contains("\"=A1*2\""))
    }
}
