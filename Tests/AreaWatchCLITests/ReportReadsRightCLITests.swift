import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

/// report.html reads right (SPEC §8): shares carry no sign, saturated classes are said first.
@Suite("report.html reads right, end to end", .timeLimit(.minutes(60)))
struct ReportReadsRightCLITests {
    static let saturationPrefix = "classes saturate here: "

    /// `n` incidents in the current window, uniform in a box of ±0.004° around Halifax: every cell
    /// within the radius sees most of them.
    static func denseInput(_ tmp: TempDir, count n: Int) throws -> String {
        var state: UInt64 = 28
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        var text = "id,lat,lon,time\n"
        for k in 0..<n {
            let lat = 53.72 + (next() - 0.5) * 0.008, lon = -1.86 + (next() - 0.5) * 0.008
            let day = 1 + Int(next() * 27)
            let position = String(format: "%.6f,%.6f", lat, lon)
            text += "d\(k),\(position),2018-05-\(String(format: "%02d", day))T12:00:00Z\n"
        }
        return try tmp.file("dense.csv", text)
    }

    /// (cells, dangerous cells) of a report's grid.csv.
    static func classCounts(_ out: String) throws -> (cells: Int, dangerous: Int) {
        let rows = StrictCSV.parse(try readBytes(out + "/grid.csv")).dictionaries
        return (rows.count, rows.filter { $0["class"] == "dangerous" }.count)
    }

    @Test("a share of cells is printed without a sign, and equals grid.csv's classes")
    func shareHasNoSign() throws {
        let tmp = try TempDir()
        let out = tmp.sub("out")
        try areawatchOK(
            ["report", "--input"] + Datasets.police + [
                "--out", out, "--as-of", Datasets.asOf,
                "--tile-zooms", "none", "--quiet"
            ])
        let html = try readText(out + "/report.html")
        let (cells, dangerous) = try Self.classCounts(out)
        let share = String(format: "%.1f", Double(dangerous) / Double(cells) * 100)
        #expect(html.contains(" \(share)% of the cells are classed dangerous"), "share \(share) not found")
        #expect(!html.contains("+\(share)%"))
        #expect(html.range(of: #"\+[0-9.]+% of the cells"#, options: .regularExpression) == nil)
        // 9,065 of 19,578 cells: below the saturation share, so no banner and no warning.
        #expect(Double(dangerous) / Double(cells) < 0.8)
        #expect(!html.contains("id=\"saturated\"") && !html.contains(Self.saturationPrefix))
        let summary = try JSON.parse(try readBytes(out + "/summary.json"))
        #expect(summary["warnings"] == nil)
    }

    @Test("saturated classes: the banner opens the page and summary.json warns, with the share")
    func saturationBanner() throws {
        let tmp = try TempDir()
        let input = try Self.denseInput(tmp, count: 3000)
        let out = tmp.sub("out")
        try areawatchOK([
            "report", "--input", input, "--out", out, "--as-of", Datasets.asOf, "--tile-zooms", "none",
            "--quiet"
        ])
        let (cells, dangerous) = try Self.classCounts(out)
        #expect(Double(dangerous) >= 0.8 * Double(cells), "\(dangerous) of \(cells): the data does not saturate")
        let share = String(format: "%.1f", Double(dangerous) / Double(cells) * 100)
        func grouped(_ n: Int) -> String {
            let formatter = NumberFormatter()
            formatter.numberStyle = .decimal
            formatter.groupingSeparator = ","
            formatter.usesGroupingSeparator = true
            return formatter.string(from: NSNumber(value: n))!
        }
        let sentence =
            "classes saturate here: \(grouped(dangerous)) of the \(grouped(cells)) cells (\(share)%) "
            + "are classed "
            + "dangerous; use the change and hot-spot sections, or `--thresholds`"
        let summary = try JSON.parse(try readBytes(out + "/summary.json"))
        #expect(summary["warnings"]?.array?.map(\.string) == [sentence])
        let html = try readText(out + "/report.html")
        let main = try #require(html.range(of: "<main>\n"))
        #expect(
            html[main.upperBound...].hasPrefix(
                "<p class=\"banner\" id=\"saturated\" role=\"note\">classes saturate here: "))
        #expect(html.contains("or <code>--thresholds</code></p>"))
        // Thresholds the data does not saturate: no banner.
        let relaxed = tmp.sub("relaxed")
        try areawatchOK([
            "report", "--input", input, "--out", relaxed, "--as-of", Datasets.asOf, "--tile-zooms", "none",
            "--thresholds", "100,2000", "--quiet"
        ])
        let (relaxedCells, relaxedDangerous) = try Self.classCounts(relaxed)
        #expect(Double(relaxedDangerous) < 0.8 * Double(relaxedCells))
        #expect(!(try readText(relaxed + "/report.html")).contains("id=\"saturated\""))
        #expect(try JSON.parse(try readBytes(relaxed + "/summary.json"))["warnings"] == nil)
    }

    @Test("the widget answer is the geohash-7 cell centre's: lookup equals query there, and may differ at the point")
    func widgetAnswersTheCellCentre() throws {
        let run = try BundledRun.get()
        let lattice = Lattice(precision: 7)
        // Half the diagonal of a geohash-7 cell at 53.72° N, the most a location lies from its centre.
        let metresPerDegree = 111_195.08
        let north = lattice.height * metresPerDegree, east = lattice.width * metresPerDegree * cos(53.72 * .pi / 180)
        let halfDiagonal = 0.5 * (north * north + east * east).squareRoot()
        #expect(abs(halfDiagonal - 88.7) < 0.1)
        var rng = SplitMix64(seed: 20)
        var differing = 0
        for _ in 0..<20 {
            let lat = 53.70 + Double(rng.next() % 50_000) / 1e6, lon = -1.90 + Double(rng.next() % 80_000) / 1e6
            let point = ["--lat", exact(lat), "--lon", exact(lon)]
            let centre = lattice.centre(lattice.cell(lat: lat, lon: lon))
            let atCentre = ["--lat", exact(centre.lat), "--lon", exact(centre.lon)]
            #expect(Sphere.distance(lat, lon, centre.lat, centre.lon) <= halfDiagonal)
            let query = ["query", "--db", run.store, "--as-of", Datasets.asOf, "--json"]
            let q = try JSON.parse(try areawatchOK(query + point).stdout)
            let qCentre = try JSON.parse(try areawatchOK(query + atCentre).stdout)
            let l = try JSON.parse(try areawatchOK(["lookup", "--tiles", run.out + "/tiles", "--json"] + point).stdout)
            for field in ["current", "previous", "class"] {
                #expect(l[field] == qCentre[field], "\(lat),\(lon) \(field): lookup \(l) vs query at the centre")
            }
            if l["current"] != q["current"] || l["previous"] != q["previous"] { differing += 1 }
        }
        // What README and FORMATS.md say: near the radius's edge the two answers differ.
        #expect(differing > 0, "no point where the centre's answer differs from the point's")
        print("widget vs query: \(differing) of 20 points differ")
    }
}
