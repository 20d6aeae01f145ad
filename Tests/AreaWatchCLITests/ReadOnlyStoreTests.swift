import AreaWatchTestSupport
import Foundation
import Testing

/// The safety review found a store on a read-only mount could not be read at all. `stats`,
/// `check`, `query` and `report` open the store read-only (immutable when SQLite cannot make
/// its shared-memory file). Tested on a real read-only bind mount, which needs root and the
/// `mount` command; elsewhere the test says it skipped.
@Suite("a store on a read-only mount", .timeLimit(.minutes(60)))
struct ReadOnlyStoreTests {
    @Test("stats, check, query and report read it; nothing is written there")
    func readOnlyMount() throws {
        guard let mount = findTool("mount"), let umount = findTool("umount"), getuid() == 0 else {
            print("skipped: a read-only bind mount needs root and mount(8)")
            return
        }
        let tmp = try TempDir()
        let db = tmp.sub("rw/s.db")
        try areawatchOK(["ingest", Datasets.police[2], "--db", db, "--quiet"])
        removeItem(db + ".lock")
        let ro = try tmp.folder("ro")
        guard try runTool(mount, ["--bind", tmp.sub("rw"), ro]).status == 0 else {
            print("skipped: mount --bind is not permitted here")
            return
        }
        defer { _ = try? runTool(umount, [ro]) }
        guard try runTool(mount, ["-o", "remount,ro,bind", ro]).status == 0 else {
            print("skipped: a read-only remount is not permitted here")
            return
        }
        let before = listFolder(ro)
        let store = ro + "/s.db"
        let stats = try areawatchOK(["stats", "--db", store, "--json"])
        #expect(try JSON.parse(stats.stdout)["incidents"]?.int == 2559, "\(stats)")
        let check = try areawatchOK(["check", "--db", store])
        #expect(check.stdout.contains("ok"), "\(check)")
        let query = try areawatchOK([
            "query", "--db", store, "--lat", "53.72", "--lon", "-1.86", "--as-of", Datasets.asOf, "--json"
        ])
        #expect(try JSON.parse(query.stdout)["current"]?.int ?? 0 > 0, "\(query)")
        try areawatchOK(["report", "--db", store, "--out", tmp.sub("out"), "--as-of", Datasets.asOf, "--quiet"])
        #expect(exists(tmp.sub("out/grid.csv")))
        #expect(listFolder(ro) == before, "files appeared on the read-only mount")
    }
}
