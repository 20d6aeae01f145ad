import AreaWatchCore
import Testing

@testable import AreaWatchQuery

/// The figures an incremental night takes from the columns without an index (SPEC §20) against
/// the index's own: the totals and the `--max-cells` estimate, on random data with filters,
/// future, older and duplicate incidents, in one part and in several.
@Suite("Column figures")
struct ColumnFiguresTests {
    struct Scenario: Sendable, CustomTestStringConvertible {
        var grid: GridSystem
        var seed: UInt64
        var count: Int
        var radius: Double
        var handled: Bool? = nil
        var categories: Set<String> = []
        var testDescription: String { "\(grid) seed \(seed), \(count) incidents, radius \(radius)" }
    }

    static let scenarios: [Scenario] = [
        Scenario(grid: .geohash(precision: 7), seed: 1, count: 2_000, radius: 500),
        Scenario(grid: .geohash(precision: 6), seed: 2, count: 130_000, radius: 1_000, handled: true),
        Scenario(grid: .geohash(precision: 8), seed: 3, count: 120_000, radius: 250, categories: ["Robbery"]),
        Scenario(grid: .h3(resolution: 9), seed: 4, count: 110_000, radius: 400),
        Scenario(grid: .h3(resolution: 7), seed: 5, count: 3_000, radius: 5_000, handled: false),
        Scenario(grid: .geohash(precision: 7), seed: 6, count: 0, radius: 500)
    ]

    @Test("equal to the index's totals and estimate", arguments: scenarios)
    func matchesIndex(_ scenario: Scenario) {
        var generator = IncidentGenerator(rng: SplitMix64(seed: scenario.seed))
        let asOf = epoch("2024-02-29T12:00:00Z")
        let live = (0..<scenario.count).map { _ in generator.incident(asOf: asOf) }
        let parameters = QueryParameters(
            asOf: asOf, radius: scenario.radius, categories: scenario.categories, handled: scenario.handled)
        let columns = live.columns
        let index = IncidentIndex(columns: columns, parameters: parameters, threads: 2, pointQueries: false)
        for threads in [1, 2, 3] {
            let figures = ColumnFigures(columns: columns, parameters: parameters, grid: scenario.grid, threads: threads)
            #expect(figures.totals == index.totals(), "\(threads) threads")
            #expect(figures.estimatedCells == GridCellEstimate.cells(index, grid: scenario.grid), "\(threads) threads")
        }
        if scenario.count > 0 {
            #expect(index.totals().excludedFuture > 0 && index.totals().older > 0 && index.totals().current > 0)
        }
    }
}
