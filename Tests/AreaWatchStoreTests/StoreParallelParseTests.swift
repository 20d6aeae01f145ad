import AreaWatchCore
import AreaWatchIngest
import AreaWatchTestSupport
import Testing

@testable import AreaWatchStore

/// A store written from a CSV parsed on 1, 2 or 8 threads is the same store: every row, in the
/// same rowid order, every column (SPEC §4 keys and ordinals included).
@Suite("Stores from a parallel parse")
struct StoreParallelParseTests {
    @Test func sameStoreForOneTwoAndEightThreads() throws {
        let dir = try TempDir()
        let path = try dir.file("incidents.csv", csvText(generatedRows(count: 20_000, seed: 16)))
        var dumps: [[[SQLValue]]] = []
        for threads in [1, 2, 8] {
            let store = try IncidentStore(path: dir.path + "/store-\(threads).db", create: true)
            var options = IngestOptions()
            options.pipelined = threads > 1
            options.parseThreads = threads
            options.parallelBlockBytes = 8192 // ~100 blocks
            let (report, _) = try ingestFile(path, into: store, options: options)
            #expect(report.accepted > 19_000)
            dumps.append(try rows(store, "SELECT rowid, key FROM incidents ORDER BY rowid", columns: 2) + dump(store))
        }
        #expect(dumps[1] == dumps[0])
        #expect(dumps[2] == dumps[0])
    }
}
