import AreaWatchTestSupport
import Foundation
import Testing

/// report.html's trend (SPEC §8): the months the data covers in words, a monthly series, partial
/// years marked, a monthly series per named area; checked against timeseries.csv and the inputs.
@Suite("report.html monthly trend, end to end", .timeLimit(.minutes(60)))
struct MonthlyTrendCLITests {
    static func trendSection(_ html: String) throws -> String {
        let start = try #require(html.range(of: "<section id=\"trend\">"))
        return html[start.lowerBound...].components(separatedBy: "</section>")[0]
    }

    /// `data-month="…" data-count="…"` of the monthly bars, in order.
    static func monthlyBars(_ section: String) -> [[String]] {
        let pattern = try! NSRegularExpression(
            pattern: #"<g class="month-bar" data-month="([0-9]{4}-[0-9]{2})" data-count="([0-9]+)">"#)
        let range = NSRange(section.startIndex..., in: section)
        return pattern.matches(in: section, range: range).map { m in
            (1...2).map { String(section[Range(m.range(at: $0), in: section)!]) }
        }
    }

    @Test("three bundled Julys: said in words, 25 month bars as timeseries.csv, every year partial, area sparklines")
    func bundledJulys() throws {
        let tmp = try TempDir()
        let out = tmp.sub("out")
        try areawatchOK(
            ["report", "--input"] + Datasets.police + [
                "--out", out, "--as-of", Datasets.asOf, "--areas", Datasets.areas, "--area-id", "name",
                "--tile-zooms", "none", "--quiet"
            ])
        let section = try Self.trendSection(try readText(out + "/report.html"))
        #expect(
            section.contains(
                "<p id=\"months-covered\"><strong>The data holds July 2016, July 2017 and July 2018.</strong></p>"))
        let series = StrictCSV.parse(try readBytes(out + "/timeseries.csv")).records.map(\.fields)
        let all = series.filter { $0[0] == "all" }.map { [$0[1], $0[2]] }
        #expect(all.count == 25)
        #expect(Self.monthlyBars(section) == all)
        #expect(
            section.contains(
                "Partial years (marked *): 2016 (partial: July), 2017 (partial: July), 2018 (partial: July)."))
        for year in ["2016", "2017", "2018"] { #expect(section.contains(">\(year)*</text>"), "\(year) not marked") }
        // Per area: one sparkline bar per month holding incidents, titled with timeseries.csv's count.
        for area in try bundledAreas() {
            let rows = series.filter { $0[0] == area.name && $0[2] != "0" }
            #expect(rows.count == 3)
            for row in rows {
                let name = ["2016-07": "July 2016", "2017-07": "July 2017", "2018-07": "July 2018"][row[1]]!
                #expect(section.contains("<title>\(name): \(row[2])</title>"), "\(area.name) \(row[1])")
            }
        }
        #expect(section.contains("<h3>Per month, by named area</h3>"))
    }

    @Test("a year covered month by month is not partial; a year of three months is, with their names")
    func fullAndPartialYears() throws {
        let tmp = try TempDir()
        var text = "id,lat,lon,time\n"
        for month in 1...15 {
            let (year, m) = month <= 12 ? (2017, month) : (2018, month - 12)
            let day = String(format: "%04d-%02d", year, m) + "-15T12:00:00Z"
            for k in 0..<(month % 4 + 1) { text += "m\(month)-\(k),53.72,-1.86,\(day)\n" }
        }
        let input = try tmp.file("months.csv", text)
        let out = tmp.sub("out")
        try areawatchOK([
            "report", "--input", input, "--out", out, "--as-of", "2018-12-31T23:59:59Z",
            "--tile-zooms", "none", "--quiet"
        ])
        let section = try Self.trendSection(try readText(out + "/report.html"))
        #expect(section.contains("The data holds January 2017 to March 2018."))
        #expect(section.contains("Partial years (marked *): 2018 (partial: January to March)."))
        #expect(!section.contains("2017 (partial"))
        #expect(section.contains(">2017</text>") && section.contains(">2018*</text>"))
        let bars = Self.monthlyBars(section)
        #expect(bars.count == 15 && bars.first == ["2017-01", "2"] && bars.last == ["2018-03", "4"])
    }
}
