import AreaWatchCore
import AreaWatchQuery
import Testing

/// SPEC §8's bounded work: the estimate a report checks against `--max-cells` before the grid,
/// against the grid's real cell count on seeded random data (all the synthetic kinds: uniform,
/// hotspots, snapped, antimeridian, pole) at several precisions and radii. It must never be
/// lower than the real count (a refusal that lets a huge grid through is the attack) and not
/// wildly higher (it would refuse ordinary work).
@Suite("Grid cell estimate (SPEC §8 --max-cells)")
struct GridCellEstimateTests {
    @Test("never below the real cell count, at most 16× above it", arguments: DataKind.synthetic, [5, 6, 7])
    func bounds(kind: DataKind, precision: Int) throws {
        let all = try TestData.incidents(kind)
        for radius in [100.0, 1000] {
            let (rows, _) = TestData.withinBudget(
                all, radius: radius, precision: precision, budget: 20_000, single: 100_000)
            let index = IncidentIndex(
                columns: rows.columns, parameters: QueryParameters(asOf: TestData.asOf, radius: radius))
            let real = Double(index.grid(precision: precision).cells.count)
            let estimate = GridCellEstimate.cells(index, precision: precision)
            #expect(estimate >= real, "\(kind) p\(precision) r\(radius): estimate \(estimate) < real \(real)")
            #expect(
                estimate <= max(16 * real, 64), "\(kind) p\(precision) r\(radius): estimate \(estimate) vs real \(real)"
            )
        }
    }

    /// The attack: one incident at the north pole covers every longitude.
    @Test("one incident at the pole: the whole ring of cells around it")
    func pole() {
        let asOf = TestData.asOf
        var columns = IncidentColumns()
        columns.append(lat: 90, lon: 0, time: asOf - 86_400, handled: nil, category: nil)
        let index = IncidentIndex(columns: columns, parameters: QueryParameters(asOf: asOf, radius: 1000))
        let real = Double(index.grid(precision: 5).cells.count)
        let estimate = GridCellEstimate.cells(index, precision: 5)
        #expect(estimate >= real)
        #expect(estimate <= 4 * real)
        // Precision 7 would hold ~1.8M cells: the estimate says so without building them.
        #expect(GridCellEstimate.cells(index, precision: 7) > 1_500_000)
    }

    @Test("the same estimate on 1, 2, 3 and 8 cores (parts never split a group)")
    func sameOnEveryCoreCount() {
        // Hot spots at a shard corner, the antimeridian, a pole and a city: groups of every size.
        let columns = ShardedGridTests.incidents(seed: 77, count: 160_000)
        let index = IncidentIndex(
            columns: columns, parameters: QueryParameters(asOf: ShardedGridTests.asOf, radius: 1000))
        for precision in [3, 6, 7] {
            let one = GridCellEstimate.cells(index, precision: precision, threads: 1)
            #expect(one > 0)
            for threads in [2, 3, 8] {
                #expect(
                    GridCellEstimate.cells(index, precision: precision, threads: threads) == one,
                    "p\(precision) \(threads) threads")
            }
        }
    }

    @Test("no windowed incident: no cell")
    func empty() {
        let index = IncidentIndex(columns: IncidentColumns(), parameters: QueryParameters(asOf: TestData.asOf))
        #expect(GridCellEstimate.cells(index, precision: 7) == 0)
    }
}
