import AreaWatchCore
import Foundation
import Testing

@testable import AreaWatchQuery
@testable import AreaWatchReport

/// The page stays small for a national-scale grid: 130,000 cells in the worst case for run
/// merging (no two neighbours in a row share a class).
@Suite struct HTMLReportLargeGridTests {
    static let rows = 325, cols = 400

    static func worstCaseContent() -> ReportContent {
        let parameters = QueryParameters(asOf: UTCTime.epochSeconds(CivilTime(year: 2024, month: 1, day: 1)))
        let origin = GeohashCell(lat: 51.0, lon: -3.0, precision: 7)
        var cells: [GridCell] = []
        cells.reserveCapacity(rows * cols)
        for row in 0..<rows {
            for col in 0..<cols {
                // 3 is safe and, with K = 3, still published: three classes side by side.
                let r = [3, 7, 12][(row + col) % 3]
                cells.append(
                    GridCell(
                        cell: GeohashCell(
                            lonIndex: origin.lonIndex + UInt64(col), latIndex: origin.latIndex + UInt64(row),
                            precision: 7),
                        nCurrent: r, nPrevious: 1, rCurrent: r, rPrevious: 2, handled: 0,
                        safetyClass: parameters.thresholds.classify(r), yearStart: 0, yearCount: 0))
            }
        }
        // One precision: prefix order is geohash order.
        cells.sort { $0.cell.prefix < $1.cell.prefix }
        let grid = GridResult(precision: 7, parameters: parameters, cells: cells, years: [2023], yearEntries: [])
        let totals = Totals(
            years: [2023], yearCounts: [1_000_000], current: 900_000, previous: 100_000, older: 0, excludedFuture: 0)
        return ReportContent(
            parameters: parameters, grid: grid, totals: totals, tileZooms: nil, disclosure: Disclosure(minCellCount: 3),
            areas: nil, pointsOfInterest: nil, breakdown: nil, sourceKind: "store", sourcePath: "areawatch.db",
            inputs: [], timings: [], attribution: "", engineVersion: "0")
    }

    @Test func worstCaseGridStaysUnderFifteenMegabytes() throws {
        let content = Self.worstCaseContent()
        let html = HTMLReport.render(content)
        #expect(html.utf8.count < 15_000_000)
        #expect(!html.contains("<rect x=\"0\" y=\"0\" width=\"1\" height=\"1\">"))
        var drawn = 0
        for line in html.split(separator: "\n") where line.hasPrefix("<path class=\"cells ") {
            let d = try #require(line.range(of: "d=\"")).upperBound
            let data = line[d...].prefix { $0 != "\"" }
            drawn += Fixture.runs(String(data)).reduce(0) { $0 + $1.width }
        }
        #expect(drawn == Self.rows * Self.cols)
    }
}
