import AreaWatchCore
import AreaWatchIngest
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchStore

/// A row-by-row file suspends the per-row triggers and applies their effect at the end
/// (`DeferredRowTriggers`): the store must be exactly the one the triggers make, with the same
/// spatial index entries in a valid R*Tree, and the triggers back for every other writer.
@Suite("Deferred per-row triggers")
struct DeferredRowTriggerTests {
    /// A trigger areawatch does not know: its presence keeps every trigger running row by row.
    static let unknownTrigger =
        "CREATE TRIGGER audit_incidents AFTER INSERT ON incidents BEGIN SELECT NEW.key; END"

    /// The spatial index's entries, and its nodes.
    static let entries = "SELECT pkid, xmin, xmax, ymin, ymax FROM idx_incidents_geom ORDER BY pkid"
    static let nodes = "SELECT nodeno, data FROM idx_incidents_geom_node ORDER BY nodeno"

    @Test("the store, spatial index entries and triggers equal those the per-row triggers make")
    func sameStoreAsTriggers() throws {
        let dir = try TempDir()
        let first = generatedRows(count: 1500, seed: 61)
        // The second file: a third of the rows moved (the spatial index entry moves too), new
        // rows, and one new row written twice with another point (inserted, then moved).
        var second = first
        var movedCount = 0
        for i in stride(from: 0, to: second.count, by: 3) where !second[i].id.isEmpty {
            second[i].lat += 0.0123
            second[i].lon -= 0.0071
            movedCount += 1
        }
        var fresh = generatedRows(count: 400, seed: 62).filter { !$0.id.isEmpty }
        var moved = fresh[7]
        moved.lat -= 0.05
        fresh.append(moved)
        second += fresh
        let firstPath = try dir.file("first.csv", csvText(first))
        let secondPath = try dir.file("second.csv", csvText(second))

        let perRow = try IncidentStore(path: dir.path + "/per-row.db", create: true)
        try perRow.db.execute(Self.unknownTrigger)
        let deferred = try IncidentStore(path: dir.path + "/deferred.db", create: true)
        let triggers = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
        let triggersBefore = try rows(deferred, triggers, columns: 2)
        let timesBefore = try rows(deferred, "SELECT last_insert, last_update FROM geometry_columns_time", columns: 2)

        var reports: [FileIngestReport] = []
        for path in [firstPath, secondPath] {
            let a = try ingestFile(path, into: perRow, expectedRows: 0)
            let b = try ingestFile(path, into: deferred, expectedRows: 0)
            #expect(!a.bulk && !b.bulk)
            #expect(a.report == b.report)
            reports.append(b.report)
        }
        #expect(
            reports[1].updated >= movedCount && movedCount > 300 && reports[1].inserted == fresh.count - 1,
            "moved, added")

        #expect(try dump(perRow) == (try dump(deferred)))
        #expect(try rows(perRow, Self.entries, columns: 5) == (try rows(deferred, Self.entries, columns: 5)))
        #expect(try count(deferred, "SELECT count(*) FROM idx_incidents_geom") > 1500)
        #expect(try rows(deferred, "SELECT rtreecheck('idx_incidents_geom')") == [[.text("ok")]])
        #expect(try rows(deferred, triggers, columns: 2) == triggersBefore)
        #expect(try count(deferred, "SELECT CheckSpatialIndex('incidents', 'geom')") == 1)
        #expect(try deferred.check() == [])
        let timesAfter = try rows(deferred, "SELECT last_insert, last_update FROM geometry_columns_time", columns: 2)
        #expect(timesAfter.count == 1 && timesAfter != timesBefore, "the last insert and update times are set")
        #expect(!timesAfter.joined().contains(.null))

        // The restored triggers keep the index in step with a write from outside areawatch.
        try deferred.db.execute("UPDATE incidents SET geom = MakePoint(lon + 0.5, lat, 4326) WHERE rowid <= 10")
        #expect(try count(deferred, "SELECT CheckSpatialIndex('incidents', 'geom')") == 1)
    }

    @Test("a file that fails leaves the triggers and the spatial index as they were")
    func rollbackRestoresTriggers() throws {
        let dir = try TempDir()
        let store = try IncidentStore(path: dir.path + "/r.db", create: true)
        try ingestFile(try dir.file("a.csv", csvText(generatedRows(count: 300, seed: 71))), into: store)
        let triggers = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
        let before = try rows(store, triggers, columns: 2)
        let index = try rows(store, Self.nodes, columns: 2)
        let transaction = try FileTransaction(store: store, source: "b.csv", expectedRows: 0)
        #expect(!transaction.bulk)
        #expect(
            try count(store, "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'incidents'")
                == 0)
        _ = try transaction.write(
            Incident(key: "new-1", time: 1_600_000_000, precision: .second, lat: 53.7, lon: -1.8))
        transaction.rollback()
        #expect(try rows(store, triggers, columns: 2) == before)
        #expect(try rows(store, Self.nodes, columns: 2) == index)
        #expect(try count(store, "SELECT CheckSpatialIndex('incidents', 'geom')") == 1)
    }
}
