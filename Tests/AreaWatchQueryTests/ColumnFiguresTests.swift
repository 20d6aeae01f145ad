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

/// The month counter in both its modes (the index's, over the years known first, and the column
/// figures', grown while counting) against a plain count per month.
@Suite("Month counter")
struct MonthCounterTests {
    @Test("grown while counting, in parts merged in any order, equals the count over known years", arguments: 0..<6)
    func grownEqualsKnownYears(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed))
        // A random walk over the months, so that a part's span grows at both ends and parts
        // merged later start before or end after what was merged first; seed 0 counts nothing.
        let count = seed == 0 ? 0 : 5_000 + Int(rng.next() % 15_000)
        var month = MonthSeries.number(year: 2010, month: 6)
        var months: [Int] = []
        for _ in 0..<count {
            month += Int(rng.next() % 13) - 6
            months.append(month)
        }
        var expected: [Int: Int] = [:]
        for m in months { expected[m, default: 0] += 1 }
        let years = Set(months.map { MonthSeries.year(ofMonth: $0) }).sorted()

        var known = MonthCounter(years: years)
        var parts: [MonthCounter] = [MonthCounter()]
        for m in months {
            known.add(year: Int16(MonthSeries.year(ofMonth: m)), month: UInt8(MonthSeries.monthOfYear(m)))
            parts[parts.count - 1].add(month: m)
            if rng.next() % 500 == 0 { parts.append(MonthCounter()) }
        }
        parts.shuffle(using: &rng)
        var grown = MonthCounter()
        for part in parts { grown.add(part) }
        var knownMerged = MonthCounter(years: years)
        knownMerged.add(known)

        #expect(known.series == MonthSeries(sparse: expected))
        #expect(grown.series == MonthSeries(sparse: expected))
        #expect(knownMerged.series == known.series)
        if count > 0 { #expect(parts.count > 1 && grown.series.counts.count > 24) }
    }
}
