import AreaWatchCore
import AreaWatchQuery
import Foundation
import Testing

/// SPEC §7.2 grids against the brute force of `ReferenceGrid` (every windowed incident against
/// every cell centre of a generous box around it, `Haversine.distance(…) <= radius`, cells by
/// bisection), for both strategies and 1 and 2 threads, on seeded random data and on the bundled
/// Calderdale sample, at precisions 6, 7, 8 and radii 250, 1000, 2500 m.
///
/// Sizes: debug builds spend some 10–30 µs per reported cell in each engine run and in the
/// brute force, and the cells per incident grow with radius², 32× from precision 6 to 8, and
/// with 1/cos(latitude). So each (data, precision, radius) takes its distinct points in a fixed
/// order until their reference boxes hold `budget` cells (`TestData.withinBudget`,
/// deterministic): the cheap combinations (precision 6 and 7, small radii) use all or most of the
/// data, the expensive ones a subset, down to a single point for precision 8 with 2500 m (one
/// circle there covers ~40,000 cells). Near the pole at precision 8 with 2500 m no point fits
/// (> 400,000 cells each), so that one combination has nothing to compare. Calderdale keeps the
/// points nearest Halifax town centre, each with all its incidents, with a larger budget.
/// When the subset's boxes exceed `rtreeBothThreads` cells, the R-tree strategy (~4× slower per
/// cell than the scatter in debug) runs with 2 threads only; the 1-thread run of it is compared
/// on every smaller combination.
@Suite("Grid equals brute force (SPEC §7.2)")
struct GridBruteForceTests {
    static let radii: [Double] = [250, 1000, 2500]
    static let budget = 8_000
    static let calderdaleBudget = 16_000
    static let single = 100_000
    static let rtreeBothThreads = 8_000
    static let halifax = (lat: 53.7248, lon: -1.8658)

    @Test("every field of every reported cell, and the set of cells", arguments: DataKind.allCases, [6, 7, 8])
    func grid(kind: DataKind, precision: Int) throws {
        let all = try TestData.incidents(kind)
        for radius in Self.radii {
            let (rows, boxCells) = TestData.withinBudget(
                all, radius: radius, precision: precision,
                budget: kind == .calderdale ? Self.calderdaleBudget : Self.budget, single: Self.single,
                nearestTo: kind == .calderdale ? Self.halifax : nil)
            let windowed = rows.filter { [.current, .previous].contains(TestData.windows.window($0.time)) }.count
            if !(kind == .pole && precision == 8 && radius == 2500) {
                #expect(windowed >= 1, "\(kind) p\(precision) r\(radius): the budget leaves no windowed incident")
            }
            Self.check(
                rows, radius: radius, precision: precision,
                label: "\(kind) p\(precision) r\(Int(radius)) (\(windowed) windowed)",
                rtreeOneThread: boxCells <= Self.rtreeBothThreads)
        }
    }

    /// Incidents one Double inside and one Double outside the radius of a cell centre: every
    /// decision at a run's end or a row's reach is a close call, which random data almost never
    /// makes.
    @Test("incidents exactly at the radius of cell centres", arguments: [6, 7, 8])
    func radiusEdges(precision: Int) throws {
        for radius in Self.radii {
            let data = TestData.boundary(precision: precision, radius: radius)
            let windows = TestData.windows
            // The pairs straddle the radius of their centre (as the reference measures it).
            for (k, c) in data.centres.enumerated() {
                let a = data.incidents[2 * k], b = data.incidents[2 * k + 1]
                #expect(Haversine.distance(lat1: a.lat, lon1: a.lon, lat2: c.lat, lon2: c.lon) <= radius)
                #expect(Haversine.distance(lat1: b.lat, lon1: b.lon, lat2: c.lat, lon2: c.lon) > radius)
            }
            let (rows, boxCells) = TestData.withinBudget(
                data.incidents, radius: radius, precision: precision,
                budget: 2 * Self.budget, single: Self.single, minimumPoints: 2)
            let windowed = rows.filter { [.current, .previous].contains(windows.window($0.time)) }.count
            #expect(windowed >= 2)
            Self.check(
                rows, radius: radius, precision: precision,
                label: "edges p\(precision) r\(Int(radius)) (\(windowed) windowed)",
                rtreeOneThread: boxCells <= Self.rtreeBothThreads)
        }
    }

    /// The reference grid, then the engine's with every strategy and thread count.
    static func check(
        _ rows: [TestIncident], radius: Double, precision: Int, label: String,
        parameters: QueryParameters? = nil, rtreeOneThread: Bool = true
    ) {
        let windows = TestData.windows
        let expected = ReferenceGrid.grid(rows, windows: windows, radius: radius, precision: precision)
        let expectedYears = referenceYears(rows, windows: windows, precision: precision)
        let params = parameters ?? QueryParameters(asOf: windows.asOf, radius: radius)
        let index = IncidentIndex(columns: rows.columns, parameters: params)
        // Without the R-tree (no point queries) the scatter takes the incidents in geohash order.
        let withoutTree = IncidentIndex(columns: rows.columns, parameters: params, pointQueries: false)
        let current = rows.filter { windows.window($0.time) == .current }.count
        let previous = rows.filter { windows.window($0.time) == .previous }.count
        for (strategy, treeless) in GridStrategy.allCases.map({ ($0, false) }) + [(.scatter, true)] {
            for threads in [1, 2] where strategy == .scatter || threads == 2 || rtreeOneThread {
                let grid = (treeless ? withoutTree : index).grid(
                    precision: precision, strategy: strategy, threads: threads)
                let what = "\(label) \(strategy)\(treeless ? " without R-tree" : "") threads \(threads)"
                #expect(grid.precision == precision)
                let actual = grid.rows
                let diffs = gridDifferences(expected: expected, actual: actual)
                #expect(
                    diffs.isEmpty,
                    "\(what): \(diffs.count) differences vs brute force (\(expected.count) cells):\n\(diffs.joined(separator: "\n"))"
                )
                #expect(
                    zip(actual, actual.dropFirst()).allSatisfy { $0.bits < $1.bits },
                    "\(what): sorted by geohash, unique")
                // The geohash text of a sample of cells (the comparison above is on the bits).
                let texts = stride(from: 0, to: grid.cells.count, by: max(1, grid.cells.count / 50)).filter {
                    grid.cells[$0].cell.string != actual[$0].geohash
                }
                #expect(texts.isEmpty, "\(what): geohash text of \(texts.map { grid.cells[$0].cell })")
                #expect(
                    grid.cells.reduce(0) { $0 + $1.nCurrent } == current,
                    "\(what): Σ n_current is every current incident")
                #expect(grid.cells.reduce(0) { $0 + $1.nPrevious } == previous, "\(what)")
                // Calendar years inside each reported cell (SPEC §7.2 `years`); both strategies
                // share the code that counts them, so once per grid is enough.
                #expect(grid.years == expectedYears.years, "\(what): years present")
                var yearDiffs: [String] = []
                if strategy == .scatter && threads == 1 {
                    for cell in grid.cells {
                        let counts = grid.yearCounts(of: cell)
                        guard let want = expectedYears.perCell[cell.cell.prefix] else {
                            if counts.contains(where: { $0 != 0 }) && yearDiffs.count < 5 {
                                yearDiffs.append("\(cell.cell): \(counts), none expected")
                            }
                            continue
                        }
                        var got: [Int: Int] = [:]
                        for (k, n) in counts.enumerated() where n > 0 { got[grid.years[k]] = n }
                        if got != want && yearDiffs.count < 5 { yearDiffs.append("\(cell.cell): \(got) vs \(want)") }
                    }
                }
                #expect(yearDiffs.isEmpty, "\(what): years per cell: \(yearDiffs)")
            }
        }
    }

    /// Calendar years (UTC, Foundation's calendar) of the incidents inside each cell, all windows
    /// but the future.
    static func referenceYears(_ rows: [TestIncident], windows: ReferenceWindows, precision: Int)
        -> (years: [Int], perCell: [UInt64: [Int: Int]])
    {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var years: Set<Int> = []
        var perCell: [UInt64: [Int: Int]] = [:]
        for r in rows where windows.window(r.time) != .future {
            let y = calendar.component(.year, from: Date(timeIntervalSince1970: TimeInterval(r.time)))
            years.insert(y)
            let g = ReferenceGeohash.bits(
                row: ReferenceGeohash.row(lat: r.lat, precision: precision),
                column: ReferenceGeohash.column(lon: r.lon, precision: precision), precision: precision)
            perCell[g, default: [:]][y, default: 0] += 1
        }
        return (years.sorted(), perCell)
    }

    @Test("filters and other thresholds: the grid of the filtered incidents", arguments: [6, 7])
    func filtered(precision: Int) throws {
        let all = TestData.synthetic(.hotspots)
        for (categories, handled) in [
            (Set(["Burglary"]), Bool?.none), ([], true), (["Burglary", "Vehicle crime"], false)
        ] {
            let kept = all.filter { r in
                (categories.isEmpty || r.category.map(categories.contains) == true)
                    && (handled == nil || r.handled == handled)
            }
            let params = QueryParameters(asOf: TestData.asOf, radius: 1000, categories: categories, handled: handled)
            Self.check(
                all, radius: 1000, precision: precision,
                label: "filters \(categories.sorted()) \(String(describing: handled))", parameters: params,
                referenceRows: kept)
        }
        // Thresholds 2,3: classes follow r_current.
        let params = QueryParameters(asOf: TestData.asOf, radius: 250, thresholds: Thresholds(medium: 2, dangerous: 3))
        let grid = IncidentIndex(columns: all.columns, parameters: params).grid(precision: precision)
        #expect(
            grid.cells.allSatisfy {
                $0.safetyClass == ($0.rCurrent < 2 ? .safe : $0.rCurrent < 3 ? .medium : .dangerous)
            })
        #expect(Set(grid.cells.map(\.safetyClass)).count == 3)
    }

    /// `check` with the engine fed `rows` under filtering `parameters`, the reference `referenceRows`.
    static func check(
        _ rows: [TestIncident], radius: Double, precision: Int, label: String,
        parameters: QueryParameters, referenceRows: [TestIncident]
    ) {
        let windows = TestData.windows
        let expected = ReferenceGrid.grid(referenceRows, windows: windows, radius: radius, precision: precision)
        let index = IncidentIndex(columns: rows.columns, parameters: parameters)
        for strategy in GridStrategy.allCases {
            let grid = index.grid(precision: precision, strategy: strategy, threads: 2)
            let diffs = gridDifferences(expected: expected, actual: grid.rows)
            #expect(diffs.isEmpty, "\(label) \(strategy): \(diffs.joined(separator: "\n"))")
            #expect(grid.years == referenceYears(referenceRows, windows: windows, precision: precision).years)
        }
    }

    /// Circles that cover whole lattice rows: around the poles (every longitude within the
    /// radius) and radii of thousands of kilometres up to more than half the globe (πR ≈
    /// 20,015 km, where every centre is within reach). Coarse precisions keep the rows short.
    @Test("polar caps and global radii: whole rows", arguments: [2, 3, 5])
    func wholeRows(precision: Int) {
        var rng = SplitMix64(seed: 0xC0FFEE + UInt64(precision))
        var rows: [TestIncident] = []
        let radii: [Double]
        if precision == 5 {
            for (lat, lon) in [
                (90.0, 0.0), (90, 77.7), (89.99, 45), (89.97, -120), (89.9, 179.99), (-90, 10),
                (-89.98, 170), (-89.95, -180)
            ] {
                rows.append(TestData.incident(&rng, lat: lat, lon: lon))
                rows.append(TestIncident(lat: lat, lon: lon, time: TestData.asOf - 3600, handled: true, category: nil))
            }
            // The first row's centres are 2.44 km from the pole, the second's 7.3 km.
            radii = [1000, 2500, 6000]
        } else {
            for _ in 0..<(precision == 2 ? 40 : 12) {
                rows.append(TestData.incident(&rng, lat: rng.uniform(-90...90), lon: rng.uniform(-180...180)))
            }
            rows.append(TestIncident(lat: 90, lon: 0, time: TestData.asOf, handled: true, category: nil))
            rows.append(TestIncident(lat: -33.8, lon: 180, time: TestData.asOf, handled: false, category: nil))
            radii =
                precision == 2
                ? [500_000, 3_000_000, 10_000_000, 19_000_000, 20_015_114, 30_000_000] : [1_000_000, 5_000_000]
        }
        for radius in radii {
            Self.check(
                rows, radius: radius, precision: precision, label: "whole rows p\(precision) r\(Int(radius))",
                rtreeOneThread: precision == 2)
        }
    }

    @Test("tiny and empty inputs")
    func tiny() {
        let empty = IncidentIndex(columns: IncidentColumns(), parameters: QueryParameters(asOf: TestData.asOf))
        for strategy in GridStrategy.allCases {
            #expect(empty.grid(precision: 7, strategy: strategy).cells.isEmpty)
        }
        // Only older and future incidents: nothing reported.
        let outside = [
            TestIncident(lat: 1, lon: 2, time: TestData.windows.previousStart, handled: nil),
            TestIncident(lat: 1, lon: 2, time: TestData.asOf + 1, handled: nil)
        ]
        let index = IncidentIndex(columns: outside.columns, parameters: QueryParameters(asOf: TestData.asOf))
        for strategy in GridStrategy.allCases {
            #expect(index.grid(precision: 7, strategy: strategy).cells.isEmpty)
        }
        // One incident; radius 0 reports its own cell only (its centre is not at distance 0).
        let one = [TestIncident(lat: 10.123, lon: 20.456, time: TestData.asOf, handled: true)]
        for radius in [0.0, 1, 250] {
            Self.check(one, radius: radius, precision: 7, label: "one incident r\(radius)")
        }
        // An incident exactly at a cell centre with radius 0 is counted there.
        let centre = ReferenceGeohash.centre(row: 100_000, column: 200_000, precision: 7)
        Self.check(
            [TestIncident(lat: centre.lat, lon: centre.lon, time: TestData.asOf, handled: true)],
            radius: 0, precision: 7, label: "at a centre r0")
    }

    @Test("the reference's per-incident boxes lose nothing: same as one box around everything")
    func referenceBoxes() {
        // A test of the test: on a small set the per-incident boxes give the grid that every
        // cell of one box around all incidents (widened by 3 radii) gives.
        var rng = SplitMix64(seed: 99)
        var rows: [TestIncident] = []
        for _ in 0..<12 {
            rows.append(TestData.incident(&rng, lat: rng.uniform(60.0...60.02), lon: rng.uniform(5.0...5.04)))
        }
        rows.append(TestIncident(lat: 60.01, lon: 5.02, time: TestData.asOf, handled: true))
        let p = 7, radius = 1000.0
        let fast = ReferenceGrid.grid(rows, windows: TestData.windows, radius: radius, precision: p)
        var cells: [UInt64: GridRow] = [:]
        let h = ReferenceGeohash.cellHeight(p), w = ReferenceGeohash.cellWidth(p)
        let rowRange =
            ReferenceGeohash.row(lat: 60 - 0.03, precision: p)...ReferenceGeohash.row(lat: 60.02 + 0.03, precision: p)
        let colRange =
            ReferenceGeohash.column(
                lon: 5 - 0.06, precision: p)...ReferenceGeohash.column(lon: 5.04 + 0.06, precision: p)
        #expect(h > 0 && w > 0)
        for row in rowRange {
            for col in colRange {
                let c = ReferenceGeohash.centre(row: row, column: col, precision: p)
                var g = GridRow(
                    bits: ReferenceGeohash.bits(row: row, column: col, precision: p), precision: p, lat: c.lat,
                    lon: c.lon,
                    nCurrent: 0, nPrevious: 0, rCurrent: 0, rPrevious: 0, handled: 0, safetyClass: "")
                for r in rows {
                    let win = TestData.windows.window(r.time)
                    guard win == .current || win == .previous else { continue }
                    let inside =
                        ReferenceGeohash.row(lat: r.lat, precision: p) == row
                        && ReferenceGeohash.column(lon: r.lon, precision: p) == col
                    let near = Haversine.distance(lat1: r.lat, lon1: r.lon, lat2: c.lat, lon2: c.lon) <= radius
                    if win == .current {
                        if inside { g.nCurrent += 1 }
                        if near {
                            g.rCurrent += 1
                            if r.handled == true { g.handled += 1 }
                        }
                    } else {
                        if inside { g.nPrevious += 1 }
                        if near { g.rPrevious += 1 }
                    }
                }
                g.safetyClass = referenceClass(g.rCurrent)
                if g.nCurrent + g.nPrevious + g.rCurrent + g.rPrevious > 0 { cells[g.bits] = g }
            }
        }
        let slow = cells.values.sorted { $0.bits < $1.bits }
        #expect(!slow.isEmpty)
        #expect(gridDifferences(expected: slow, actual: fast).isEmpty)
    }
}
