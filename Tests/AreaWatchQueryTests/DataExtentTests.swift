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

    /// SPEC §18: on an H3 grid the published box is the union of the boxes of the boundary
    /// vertices of the cells holding at least K incidents (every occupied cell for K = 1), a cell
    /// across the antimeridian or holding a pole widening it to every longitude; shards split by
    /// the shard rule (the shard holding the centre of each incident's cell) merge to the whole.
    @Test(arguments: DataKind.synthetic)
    func h3PublishedBoxIsTheUnionOfCellBoundaries(_ kind: DataKind) throws {
        let incidents = TestData.synthetic(kind)
        let parameters = QueryParameters(asOf: TestData.asOf)
        for (resolution, k) in [(9, 1), (7, 2), (5, 5), (2, 1)] {
            let grid = GridSystem.h3(resolution: resolution)
            let extent = try #require(
                DataExtent(columns: incidents.columns, parameters: parameters, grid: grid, minCellCount: k))
            var perCell: [H3Cell: Int] = [:]
            for i in incidents { perCell[H3.cell(lat: i.lat, lon: i.lon, resolution: resolution), default: 0] += 1 }
            var expected: GeoBox?
            for (cell, n) in perCell where n >= k {
                let ring = cell.boundary
                var box = GeoBox(
                    minLat: ring.map(\.lat).min()!, minLon: ring.map(\.lon).min()!,
                    maxLat: ring.map(\.lat).max()!, maxLon: ring.map(\.lon).max()!)
                if box.maxLon - box.minLon > 180 || cell == H3.cell(lat: 90, lon: 0, resolution: resolution)
                    || cell == H3.cell(lat: -90, lon: 0, resolution: resolution)
                {
                    box.minLon = -180
                    box.maxLon = 180
                }
                if cell == H3.cell(lat: 90, lon: 0, resolution: resolution) { box.maxLat = 90 }
                if cell == H3.cell(lat: -90, lon: 0, resolution: resolution) { box.minLat = -90 }
                expected = GeoBox.union(expected, box)
            }
            #expect(extent.publishedBox == expected, "\(kind) h3:\(resolution) K\(k)")
            if let box = extent.publishedBox {
                for (cell, n) in perCell where n >= k {
                    #expect(cell.boundary.allSatisfy { box.contains(lat: $0.lat, lon: $0.lon) })
                }
            }
            for shardPrecision in [2, 4] {
                let rule = ShardRule(precision: shardPrecision, grid: grid)
                let shards = Set(incidents.map { rule.home(lat: $0.lat, lon: $0.lon) })
                var merged: DataExtent?
                for shard in shards {
                    merged.add(
                        DataExtent(
                            columns: incidents.columns, parameters: parameters, grid: grid, minCellCount: k,
                            shards: [shard]))
                }
                #expect(merged == extent, "\(kind) h3:\(resolution) shards of precision \(shardPrecision)")
            }
        }
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
