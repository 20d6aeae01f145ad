import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchStore

/// The rowids of a time range read from the store's time index (SPEC §5, §20) against a scan of
/// every row, after bulk and row-by-row ingests with updates, for ranges on, between and beyond
/// the rows' times.
@Suite("Store time ranges")
struct StoreTimeRangeTests {
    @Test("equal to a scan of every row, after bulk and row-by-row ingests with updates")
    func matchesScan() throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: dir.path + "/s.db", create: true)
        var all: [GeneratedRow] = []
        var rng = SplitMix64(seed: 20)
        for k in 0..<3 {
            let (path, rows) = try ColumnSnapshotStoreTests.file(
                dir, "f\(k).csv", count: [800, 200, 150][k], seed: 40 + UInt64(k), editing: all)
            try ingestFile(path, into: store)
            all += rows
            let (columns, dense) = try store.scanColumns()
            try #require(dense)
            let times = columns.time
            for _ in 0..<40 {
                // Bounds on a row's time (inclusive above, exclusive below), a second off, or anywhere.
                func bound() -> Int64 {
                    let t = times[Int(rng.next() % UInt64(times.count))]
                    return rng.next() % 3 == 0 ? t + Int64(rng.next() % 3) - 1 : t
                }
                var (low, high) = (bound(), bound())
                if rng.next() % 8 == 0 { (low, high) = (Int64.min + 1, Int64.max) }
                let got = try store.rowids(timeAfter: low, through: high).sorted()
                let expected = times.indices.filter { times[$0] > low && times[$0] <= high }.map { Int64($0 + 1) }
                #expect(got == expected, "file \(k), (\(low), \(high)]")
            }
        }
    }
}
