import AreaWatchCore
import AreaWatchQuery
import AreaWatchReport
import AreaWatchTestSupport
import Foundation

/// Report folders written by the real query stage and report writer from seeded incidents around
/// Halifax (UK): clusters of different sizes and scattered incidents, so tiles hold safe, medium
/// and dangerous cells and many tiles of the highest zoom hold none.
enum ServeFixture {
    static let asOf = UTCTime.epochSeconds(CivilTime(year: 2024, month: 6, day: 30, hour: 12))
    static let year: Int64 = 365 * 86_400
    static let box = (minLat: 53.66, maxLat: 53.76, minLon: -1.98, maxLon: -1.78)

    static func columns(seed: UInt64, asOf: Int64) -> IncidentColumns {
        var random = SplitMix64(seed: seed)
        var columns = IncidentColumns()
        func add(lat: Double, lon: Double, spread: Double, count: Int) {
            for _ in 0..<count {
                let age = Int64(random.unit() * Double(2 * year - 2 * 86_400)) + 86_400
                columns.append(
                    lat: lat + (random.unit() - 0.5) * spread, lon: lon + (random.unit() - 0.5) * spread * 1.6,
                    time: asOf - age, handled: nil, category: "Burglary")
            }
        }
        add(lat: 53.72, lon: -1.86, spread: 0.004, count: 60)
        add(lat: 53.745, lon: -1.80, spread: 0.003, count: 18)
        for _ in 0..<150 {
            add(
                lat: box.minLat + random.unit() * (box.maxLat - box.minLat),
                lon: box.minLon + random.unit() * (box.maxLon - box.minLon), spread: 0, count: 1)
        }
        return columns
    }

    /// Writes a report (precision 7, radius 300 m, tile zooms 12-14) to `path`, replacing it.
    static func write(to path: String, seed: UInt64 = 7, asOf: Int64 = asOf, attribution: String = "Test attribution")
        throws
    {
        let parameters = QueryParameters(asOf: asOf, radius: 300)
        let index = IncidentIndex(columns: columns(seed: seed, asOf: asOf), parameters: parameters)
        let content = ReportContent(
            parameters: parameters, grid: index.grid(precision: 7), totals: index.totals(), tileZooms: 12...14,
            disclosure: Disclosure(minCellCount: 1), areas: nil, pointsOfInterest: nil, breakdown: nil,
            sourceKind: "files", sourcePath: nil, inputs: [], timings: [], attribution: attribution,
            engineVersion: "9.9.9-test")
        _ = try ReportWriter.write(content, to: path, clock: { 0 })
    }

    /// Random locations over the fixture's area and a margin around it.
    static func locations(seed: UInt64, count: Int) -> [(lat: Double, lon: Double)] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            (
                box.minLat - 0.02 + random.unit() * (box.maxLat - box.minLat + 0.04),
                box.minLon - 0.03 + random.unit() * (box.maxLon - box.minLon + 0.06)
            )
        }
    }
}
