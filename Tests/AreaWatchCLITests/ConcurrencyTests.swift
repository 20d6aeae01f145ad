import AreaWatchTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SPEC §9 and docs/SCHEMA.md: one writer per store (a second `run` or `ingest` exits 4 at
/// once), and readers see the store before or after a file, never between.
@Suite("concurrency", .timeLimit(.minutes(60)))
struct ConcurrencyTests {
    /// Waits until `child` holds the store's lock (it writes its pid into `<store>.lock` once
    /// the flock is taken).
    static func waitForLock(_ db: String, held by: Spawned, timeout: Double = 30) throws {
        let started = monotonicNow()
        while monotonicNow() - started < timeout {
            if by.poll() != nil { break }
            if let text = try? readText(db + ".lock"),
                text.trimmingCharacters(in: .whitespacesAndNewlines) == String(by.pid)
            {
                return
            }
            usleep(2000)
        }
        Issue.record("the first writer never held the lock: \(by.poll().map(\.description) ?? "still running")")
        throw CancellationError()
    }

    @Test("a second ingest or run on a store being written exits 4 at once (< 2 s) with a clear message")
    func secondWriterLocked() throws {
        let tmp = try TempDir()
        let files = try GeneratedData.write([("c1", 4000), ("c2", 4000), ("c3", 4000)], into: tmp.sub("in"), seed: 3)
        let db = tmp.sub("store.db")
        let config = try tmp.file("job.toml", "store = \"store.db\"\nout = \"out\"\n[inbox]\nfolder = \"in\"\n")
        let first = try Spawned(["ingest"] + files.map(\.path) + ["--db", db, "--quiet"])
        try Self.waitForLock(db, held: first)

        let ingest = try areawatch(["ingest", files[0].path, "--db", db])
        #expect(first.poll() == nil, "the first ingest ended before the second tried: make it longer")
        #expect(ingest.status == 4, "\(ingest)")
        #expect(ingest.seconds < 2, "the second ingest waited \(ingest.seconds) s")
        #expect(
            ingest.stderrLines.contains {
                $0.contains(db) && $0.contains("another areawatch run or ingest") && $0.contains(".lock")
            }, "\(ingest)")

        let run = try areawatch(["run", "--config", config])
        #expect(first.poll() == nil, "the first ingest ended before the run tried: make it longer")
        #expect(run.status == 4, "\(run)")
        #expect(run.seconds < 2, "the run waited \(run.seconds) s")
        #expect(run.stderrLines.contains { $0.contains("another areawatch run or ingest") }, "\(run)")
        #expect(!exists(tmp.sub("out")), "the locked run wrote reports")

        // Readers take no lock. Before the first file commits, a new store is still being built
        // beside its path: there is no store yet.
        let stats = try areawatch(["stats", "--db", db, "--json"])
        #expect(stats.status == 0 || stats.stderr.contains("no store here"), "\(stats)")

        let done = first.wait()
        #expect(done.status == 0, "\(done)")
        #expect(try StoreProbe.snapshot(db).count == files.reduce(0) { $0 + $1.file.accepted })
        // The lock went with the process: the next writer runs.
        let after = try areawatch(["run", "--config", config, "--quiet"])
        #expect(after.status == 0, "\(after)")
    }

    @Test("a killed writer leaves no stale lock")
    func killedWriterReleasesLock() throws {
        let tmp = try TempDir()
        let files = try GeneratedData.write([("d1", 3000)], into: tmp.sub("in"), seed: 4)
        let db = tmp.sub("store.db")
        let first = try Spawned(["ingest", files[0].path, "--db", db, "--quiet"])
        try Self.waitForLock(db, held: first)
        first.kill()
        _ = first.wait()
        #expect(exists(db + ".lock"))
        let next = try areawatch(["ingest", files[0].path, "--db", db, "--quiet"])
        #expect(next.status == 0, "\(next)")
    }

    @Test("readers during a multi-file ingest see whole files only (stats and query)")
    func readersSeeWholeFiles() throws {
        let tmp = try TempDir()
        // Distinct sizes, every incident in the current window near Halifax, so a count names
        // the files it holds.
        let files = try GeneratedData.write(
            [("w1", 1200), ("w2", 1800), ("w3", 1500), ("w4", 2000), ("w5", 1300), ("w6", 1700)],
            into: tmp.sub("in"), seed: 11, days: 300)
        let seed = try tmp.file("seed.csv", "id,lat,lon,time\nseed,53.72,-1.86,2018-07-01T00:00:00Z\n")
        let db = tmp.sub("store.db")
        try areawatchOK(["ingest", seed, "--db", db, "--quiet"])
        var allowed: Set<Int> = [1]
        var total = 1
        for f in files {
            total += f.file.accepted
            allowed.insert(total)
        }

        let writer = try Spawned(["ingest"] + files.map(\.path) + ["--db", db, "--quiet"])
        var observed: [Int] = []
        var reads = 0
        while writer.poll() == nil {
            let useQuery = reads % 2 == 1
            reads += 1
            let r =
                useQuery
                ? try areawatch([
                    "query", "--db", db, "--lat", "53.72", "--lon", "-1.86", "--radius", "50000", "--as-of",
                    Datasets.asOf, "--json"
                ])
                : try areawatch(["stats", "--db", db, "--json"])
            #expect(r.status == 0, "a reader failed during the ingest: \(r)")
            guard r.status == 0, let json = try? JSON.parse(r.stdout) else { continue }
            let count = useQuery ? json["current"]?.int : json["incidents"]?.int
            if let count {
                #expect(
                    allowed.contains(count),
                    "\(useQuery ? "query" : "stats") saw \(count) incidents: not a sum of whole files \(allowed.sorted())"
                )
                observed.append(count)
            }
        }
        let done = writer.wait()
        #expect(done.status == 0, "\(done)")
        #expect(try StoreProbe.snapshot(db).count == total)
        #expect(observed == observed.sorted(), "counts went backwards: \(observed)")
        #expect(
            observed.contains { $0 > 1 && $0 < total },
            "no read landed between two files (\(observed)): the ingest was too short to test")
    }
}
