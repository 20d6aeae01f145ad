import AreaWatchCore
import AreaWatchQuery
import Testing

@testable import AreaWatchReport

/// SPEC §8's saturation rule at its boundary: at least 80 % of the written cells `dangerous`.
@Suite("classes saturate")
struct SaturationTests {
    /// A grid of `cells` cells in a row, the first `dangerous` of them with r_current 10 (dangerous
    /// at the standard thresholds), the others 2 (safe).
    static func grid(cells: Int, dangerous: Int) -> GridResult {
        let parameters = QueryParameters(asOf: UTCTime.epochSeconds(CivilTime(year: 2024, month: 1, day: 1)))
        let west = GeohashCell(lat: 53.72, lon: -1.86, precision: 7)
        let shardCells = (0..<cells).map { k in
            let cell = GeohashCell(lonIndex: west.lonIndex + UInt64(k), latIndex: west.latIndex, precision: 7)
            let r = k < dangerous ? 10 : 2
            return ShardCell(
                prefix: cell.prefix, nCurrent: 1, nPrevious: 0, rCurrent: r, rPrevious: 0, handled: 0,
                years: [(year: 2023, count: 1)])
        }
        return GridResult(merging: shardCells, precision: 7, parameters: parameters, years: [2023])
    }

    @Test("80 of 100 cells saturate, 79 do not; 1 of 1 does; an empty grid does not")
    func boundary() throws {
        let at = try #require(ReportContent.saturationWarning(Self.grid(cells: 100, dangerous: 80)))
        #expect(
            at == "classes saturate here: 80 of the 100 cells (80.0%) are classed dangerous; "
                + "use the change and hot-spot sections, or `--thresholds`")
        #expect(ReportContent.saturationWarning(Self.grid(cells: 100, dangerous: 79)) == nil)
        #expect(ReportContent.saturationWarning(Self.grid(cells: 1, dangerous: 1)) != nil)
        #expect(ReportContent.saturationWarning(Self.grid(cells: 0, dangerous: 0)) == nil)
        let large = try #require(ReportContent.saturationWarning(Self.grid(cells: 34_706, dangerous: 31_340)))
        #expect(large.hasPrefix("classes saturate here: 31,340 of the 34,706 cells (90.3%) are classed dangerous;"))
    }

    @Test("a share is written without a sign; a change keeps its sign")
    func shareIsUnsigned() {
        #expect(HTMLText.share(0.438) == "43.8%")
        #expect(HTMLText.share(0) == "0.0%")
        #expect(HTMLText.percent(0.438) == "+43.8%")
        #expect(HTMLText.percent(-0.1) == "-10.0%")
    }
}
