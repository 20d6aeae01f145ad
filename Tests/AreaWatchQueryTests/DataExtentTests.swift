import AreaWatchCore
import AreaWatchQuery
import Testing

/// The data's extent (SPEC §7, §7.1, §8) against a direct computation over the incidents: the
/// filters apply, the as-of does not (older and future incidents count), and the published box
/// is the union of the cells holding at least K incidents; shards merged give the whole.
@Suite struct DataExtentTests {
    @Test(arguments: DataKind.synthetic)
    func extentAgreesWithBruteForce(_ kind: DataKind) throws {
        let incidents = TestData.synthetic(kind)
        for category in [nil, "Burglary"] as [String?] {
            let parameters = QueryParameters(asOf: TestData.asOf, categories: category.map { [$0] } ?? [])
            let kept = incidents.filter { category == nil || $0.category == category }
            for (precision, k) in [(7, 1), (6, 2), (5, 5)] {
                let extent = try #require(
                    DataExtent(
                        columns: incidents.columns, parameters: parameters,
                        cellPrecision: precision, minCellCount: k))
                #expect(extent.count == kept.count)
                #expect(extent.firstTime == kept.map(\.time).min() && extent.lastTime == kept.map(\.time).max())
                #expect(
                    extent.box
                        == GeoBox(
                            minLat: kept.map(\.lat).min()!, minLon: kept.map(\.lon).min()!,
                            maxLat: kept.map(\.lat).max()!, maxLon: kept.map(\.lon).max()!))
                var perCell: [String: Int] = [:]
                for i in kept { perCell[Geohash.encode(lat: i.lat, lon: i.lon, precision: precision), default: 0] += 1 }
                var expected: GeoBox?
                for (cell, n) in perCell where n >= k { expected = GeoBox.union(expected, GeohashCell(cell)!.bounds) }
                #expect(extent.publishedBox == expected, "\(kind) p\(precision) K\(k)")

                // Split into shards of precision 2 and merged: the same extent.
                let shards = Set(kept.map { GeohashCell(lat: $0.lat, lon: $0.lon, precision: 2) })
                var merged: DataExtent?
                for shard in shards {
                    merged.add(
                        DataExtent(
                            columns: incidents.columns, parameters: parameters, cellPrecision: precision,
                            minCellCount: k, shards: [shard]))
                }
                #expect(merged == extent, "\(kind) shards")
            }
        }
        #expect(DataExtent(columns: IncidentColumns(), parameters: QueryParameters(asOf: 0), cellPrecision: 7) == nil)
    }

    @Test func emptyWindowsWarningNamesTheRangeAndTheOption() throws {
        var columns = IncidentColumns()
        let t = UTCTime.epochSeconds(CivilTime(year: 2018, month: 7, day: 1))
        columns.append(lat: 53.7, lon: -1.8, time: t, handled: nil, category: nil)
        let extent = try #require(DataExtent(columns: columns, parameters: QueryParameters(asOf: 0), cellPrecision: 7))
        let warning = try #require(extent.emptyWindowsWarning(current: 0, previous: 0, asOf: t + 3 * 365 * 86_400))
        #expect(warning.contains("1 incident(s) from 2018-07-01T00:00:00Z to 2018-07-01T00:00:00Z"), "\(warning)")
        #expect(warning.contains("--as-of latest"))
        #expect(extent.emptyWindowsWarning(current: 0, previous: 1, asOf: t) == nil)
    }
}
