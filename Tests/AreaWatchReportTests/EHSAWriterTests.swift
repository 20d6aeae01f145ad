import AreaWatchCore
import AreaWatchQuery
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchReport

/// ehsa.csv, ehsa.geojson and the report section (SPEC §13) on a hand-made cube: a 3 × 3 block
/// of cells that fills up in the last two months over a scattered background.
@Suite("emerging hot spot outputs")
struct EHSAWriterTests {
    static let steps = 12
    static let asOf = UTCTime.epochSeconds(CivilTime(year: 2024, month: 3, day: 31, hour: 12))

    /// The analysis of the cube; background cells get 1…6 incidents at seeded random steps.
    static func report() -> EHSAReport {
        let precision = 6
        let centre = GeohashCell(lat: 53.72, lon: -1.86, precision: precision)
        var rows: [UInt64: [Int32]] = [:]
        for dx in -1...1 {
            for dy in -1...1 {
                let cell = GeohashCell(
                    lonIndex: UInt64(Int64(centre.lonIndex) + Int64(dx)),
                    latIndex: UInt64(Int64(centre.latIndex) + Int64(dy)), precision: precision)
                var row = [Int32](repeating: 0, count: steps)
                row[steps - 2] = 12
                row[steps - 1] = 20
                rows[cell.prefix] = row
            }
        }
        var rng = SplitMix64(seed: 0xE45A)
        for k in 0..<80 {
            let cell = GeohashCell(
                lonIndex: centre.lonIndex + 6 + UInt64(k % 10) * 2, latIndex: centre.latIndex + UInt64(k / 10) * 2,
                precision: precision)
            var row = [Int32](repeating: 0, count: steps)
            for _ in 0..<(1 + k % 6) { row[Int(rng.unit() * Double(steps))] += 1 }
            rows[cell.prefix] = row
        }
        let cells = rows.keys.sorted()
        let cube = HotSpotCube(
            grid: .geohash(precision: precision), steps: steps, cells: cells, counts: cells.flatMap { rows[$0]! })
        let parameters = EmergingHotSpotParameters(grid: .geohash(precision: precision), steps: steps, alpha: 0.05)
        let result = EmergingHotSpots.analyse(cube, alpha: parameters.alpha)
        return EHSAReport(parameters: parameters, locations: result.locations, summary: result.summary)
    }

    static func fixed6(_ v: Double) -> String { String(format: "%.6f", v) }

    @Test func csvColumnsOrderAndNumbers() throws {
        let report = Self.report()
        let tmp = try TempDir()
        try EHSACSV.write(report, to: tmp.sub("ehsa.csv"))
        let lines = try String(contentsOfFile: tmp.sub("ehsa.csv"), encoding: .utf8).split(separator: "\n").map(
            String.init)
        #expect(
            lines[0] == "geohash,lat,lon,label,trend_z,trend_p,tau,hot_steps,cold_steps,z_last,q_last,"
                + "z01,z02,z03,z04,z05,z06,z07,z08,z09,z10,z11,z12,wkt")
        #expect(lines.count == report.locations.count + 1)
        var previous = ""
        for (line, l) in zip(lines.dropFirst(), report.locations) {
            let cut = try #require(line.range(of: ",\"POLYGON (("))
            let fields = line[..<cut.lowerBound].split(separator: ",", omittingEmptySubsequences: false).map(
                String.init)
            #expect(fields.count == 11 + Self.steps)
            #expect(fields[0] == l.cell.string && fields[0] > previous)
            previous = fields[0]
            #expect(fields[1] == Self.fixed6(l.cell.centre.lat) && fields[2] == Self.fixed6(l.cell.centre.lon))
            #expect(fields[3] == l.label.rawValue)
            // Statistics read back exactly (the shortest round-trip text: at least 7 digits).
            let stats = [l.trend.z, l.trend.p, l.trend.tau]
            #expect(fields[4...6].map { Double($0)! } == stats)
            #expect(Int(fields[7]) == l.hotSteps && Int(fields[8]) == l.coldSteps)
            #expect(Double(fields[9]) == l.zLast && Double(fields[10]) == l.qLast)
            #expect(fields[11...].map { Double($0)! } == l.z)
            let b = l.cell.bounds
            let ring = [
                (b.minLon, b.minLat), (b.maxLon, b.minLat), (b.maxLon, b.maxLat), (b.minLon, b.maxLat),
                (b.minLon, b.minLat)
            ]
            #expect(
                line[cut.upperBound...] == ring.map { "\(Self.fixed6($0.0)) \(Self.fixed6($0.1))" }.joined(
                    separator: ", ") + "))\"")
        }
        // The block that filled up in the last months is a hot spot with its last step hot.
        let hot = report.locations.filter { $0.label.rawValue.hasSuffix("hot spot") }
        #expect(hot.count >= 1 && hot.allSatisfy { $0.qLast <= 0.05 && $0.zLast > 0 })
    }

    @Test func zColumnsAreZeroPadded() {
        #expect(EHSACSV.header(steps: 10).contains(",z01,z02,") && EHSACSV.header(steps: 10).contains(",z10,wkt"))
        let long = EHSACSV.header(steps: 120)
        #expect(long.contains(",z001,") && long.contains(",z099,z100,") && long.hasSuffix(",z120,wkt\n"))
    }

    @Test func minCellCountLeavesSmallLocationsOut() throws {
        let report = Self.report()
        let k = 4
        let shown = Disclosure(minCellCount: k).publicEHSA(report)
        let expected = report.locations.filter { $0.incidents >= k }.map(\.cell.string)
        #expect(shown.locations.map(\.cell.string) == expected)
        #expect(expected.count < report.locations.count && !expected.isEmpty)
        // The statistics of the kept rows are those of the full cube (the others still count).
        let tmp = try TempDir()
        try EHSACSV.write(shown, to: tmp.sub("ehsa.csv"))
        let written = try String(contentsOfFile: tmp.sub("ehsa.csv"), encoding: .utf8).split(separator: "\n")
            .dropFirst()
            .map { String($0.prefix { $0 != "," }) }
        #expect(written == expected)
        #expect(Disclosure().publicEHSA(report).locations.count == report.locations.count)
    }

    @Test func geoJSONHoldsTheSameRows() throws {
        let report = Self.report()
        let tmp = try TempDir()
        try EHSAGeoJSON.write(report, asOf: Self.asOf, to: tmp.sub("ehsa.geojson"))
        let data = try #require(FileManager.default.contents(atPath: tmp.sub("ehsa.geojson")))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(root["type"] as? String == "FeatureCollection" && root["crs"] == nil)
        #expect(root["as_of"] as? String == "2024-03-31T12:00:00Z" && root["steps"] as? Int == Self.steps)
        let features = try #require(root["features"] as? [[String: Any]])
        #expect(features.count == report.locations.count)
        for (feature, l) in zip(features, report.locations) {
            let geometry = try #require(feature["geometry"] as? [String: Any])
            #expect(geometry["type"] as? String == "Polygon")
            let ring = try #require((geometry["coordinates"] as? [[[Double]]])?.first)
            #expect(ring.count == 5 && ring.first == ring.last)
            // Counter-clockwise (RFC 7946 §3.1.6): positive shoelace area.
            let area = zip(ring, ring.dropFirst()).reduce(0.0) { $0 + $1.0[0] * $1.1[1] - $1.1[0] * $1.0[1] }
            #expect(area > 0)
            let p = try #require(feature["properties"] as? [String: Any])
            #expect(p["geohash"] as? String == l.cell.string && feature["id"] as? String == l.cell.string)
            #expect(p["label"] as? String == l.label.rawValue)
            // Foundation reads some numbers as decimals; the exact text is checked in ehsa.csv.
            func number(_ key: String) -> Double? { (p[key] as? NSNumber)?.doubleValue }
            func close(_ a: Double?, _ b: Double) -> Bool { a.map { abs($0 - b) <= 1e-12 * max(1, abs(b)) } ?? false }
            #expect(
                close(number("trend_z"), l.trend.z) && close(number("trend_p"), l.trend.p)
                    && close(number("q_last"), l.qLast))
            #expect(p["hot_steps"] as? Int == l.hotSteps && (p["z"] as? [Double])?.count == Self.steps)
        }
    }

    @Test func reportSectionHasMapLegendAndCappedTables() throws {
        let report = Self.report()
        let html = HTMLEHSA.section(report, asOf: Self.asOf)
        #expect(html.hasPrefix("<section id=\"ehsa\">"))
        for (label, count) in report.labelCounts where count > 0 {
            #expect(
                html.contains(
                    "<g class=\"cells \(HTMLEHSA.slug(label))\" fill=\"\(HTMLEHSA.colour(label))\" data-cells=\"\(count)\">"
                ))
            #expect(html.contains("\(label.rawValue) (\(count))"))
            #expect(html.contains("<h3 id=\"ehsa-\(HTMLEHSA.slug(label))\">"))
        }
        // Tables stop at 50 rows and point to the file.
        let big = report.labelCounts.first { $0.1 > HTMLEHSA.maxRows }
        if let big {
            let table = HTMLEHSA.table(
                big.0, count: big.1, report.locations.filter { $0.label == big.0 }, grid: report.parameters.grid)
            #expect(table.components(separatedBy: "<tr><td").count - 1 == HTMLEHSA.maxRows)
            #expect(table.contains("ehsa.csv"))
        }
        #expect(HTMLEHSA.section(report, asOf: Self.asOf) == html, "deterministic")
        // Every hot spot colour is a red and every cold one a blue (red or blue channel leads).
        for label in HotSpotLabel.allCases where label != .noPattern {
            let hex = HTMLEHSA.colour(label).dropFirst()
            let r = Int(hex.prefix(2), radix: 16)!, b = Int(hex.suffix(2), radix: 16)!
            #expect(label.rawValue.hasSuffix("hot spot") ? r > b : b > r, "\(label)")
        }
    }

    @Test func pageParsesWithTheSectionAfterTheSummary() throws {
        let fixture = Fixture.self
        var content = fixture.content(minCellCount: 3)
        content.ehsa = Self.report()
        let page = HTMLReport.render(content)
        let root = try XMLTree.parse(page)
        let sections = root.descendants("section").compactMap { $0.attributes["id"] }
        #expect(Array(sections.prefix(4)) == ["changes", "summary", "ehsa", "heatmap"], "\(sections)")
        let section = try #require(root.descendants("section").first { $0.attributes["id"] == "ehsa" })
        let public_ = Disclosure(minCellCount: 3).publicEHSA(Self.report())
        // Map: one rect per written location (K = 3 leaves the smaller ones out).
        let map = try #require(section.descendants("svg").first)
        #expect(map.attributes["data-cells"] == String(public_.locations.count))
        #expect(map.descendants("rect").filter { $0.attributes["width"] == "1" }.count == public_.locations.count)
        // Tables: one per label present, rows ordered by incidents.
        let tables = section.descendants("table")
        #expect(tables.count == public_.labelCounts.filter { $0.1 > 0 }.count)
        for table in tables {
            let incidents = table.descendants("tr").dropFirst().map {
                Int($0.children[3].text.replacingOccurrences(of: ",", with: ""))!
            }
            #expect(
                incidents == incidents.sorted(by: >) && incidents.allSatisfy { $0 >= 3 }
                    && incidents.count <= HTMLEHSA.maxRows)
        }
    }
}
