import AreaWatchCore
import AreaWatchQuery
import Testing

/// The grid is assembled in parts split at cell prefixes, one per thread: cell for cell, with
/// every calendar year's count, it must be the grid of one part. (The brute-force tests' grids
/// are mostly too small to be split.)
struct GridAssemblyTests {
    @Test("2 and 3 parts give the 1-part grid", arguments: [7])
    func partsJoinToOneGrid(precision: Int) {
        var rng = SplitMix64(seed: 0x6A55_E3B1)
        var rows: [TestIncident] = []
        for _ in 0..<3_000 {
            // Around Leeds, some incidents in every window and older years.
            rows.append(
                TestIncident(
                    lat: 53.8 + (rng.unit() - 0.5) * 0.3, lon: -1.55 + (rng.unit() - 0.5) * 0.5,
                    time: TestData.time(&rng), handled: rng.next() % 3 == 0, category: nil))
        }
        let parameters = QueryParameters(asOf: TestData.asOf, radius: 1000)
        let index = IncidentIndex(columns: rows.columns, parameters: parameters, pointQueries: false)
        let one = index.grid(precision: precision, threads: 1)
        #expect(one.cells.count > 3 * 2_000, "too few cells to be split into 3 parts")
        for threads in [2, 3] {
            let split = index.grid(precision: precision, threads: threads)
            #expect(split.years == one.years)
            // Counted, not compared whole: a failure would print every cell.
            #expect(split.cells.count == one.cells.count)
            let differing = zip(split.cells, one.cells).count {
                $0.0 != $0.1 || split.yearCounts(of: $0.0) != one.yearCounts(of: $0.1)
            }
            #expect(differing == 0, "\(threads) parts")
        }
    }
}
