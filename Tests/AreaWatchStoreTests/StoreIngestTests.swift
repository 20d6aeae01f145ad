import AreaWatchCore
import AreaWatchIngest
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchStore

/// SPEC §4–§5 through the SQLite store: one transaction per file, duplicates and updates, the
/// ingests log, stats, the column loader, and the bundled datasets end to end.
@Suite("Store ingest")
struct StoreIngestTests {
    static let datasets = packageRoot().appendingPathComponent("datasets")

    private func newStore(_ dir: TempDir, _ name: String = "store.db") throws -> IncidentStore {
        try IncidentStore(path: dir.path + "/" + name, create: true)
    }

    @Test("an input error mid-file rolls the file back: counts and ingests log unchanged", arguments: [0, 10_000])
    func inputErrorRollsBack(expectedRows: Int) throws {
        let dir = try TempDir()
        let store = try newStore(dir)
        let generated = generatedRows(count: 500, seed: 81)
        try ingestFile(try dir.file("good.csv", csvText(generated)), into: store)
        let before = try dump(store)
        let triggers = try schemaObjects(store, type: "trigger")
        let indexes = try schemaObjects(store, type: "index")

        // Five new posts and an edit of an existing incident, then the document is cut off.
        var text = "{\"posts\": {\n"
        for i in 0..<5 {
            text += "\"new-\(i)\": {\"latitude\": 53.7, \"longitude\": -1.8, \"timestamp\": \(1_530_000_000 + i)},\n"
        }
        text +=
            "\"\(generated.first { !$0.id.isEmpty }!.id)\": {\"latitude\": 1, \"longitude\": 1, \"timestamp\": 1},\n"
        text += "\"cut\": {\"latitude\": 53.7, \"longitude\": -1."
        let broken = try dir.file("broken.json", text)
        var thrown: InputError?
        do {
            let outcome = try ingestFile(broken, into: store, expectedRows: expectedRows)
            Issue.record("ingested a truncated file: \(outcome.report)")
        } catch let error as InputError {
            thrown = error
        }
        #expect(thrown?.file == broken)
        #expect(!store.db.isInTransaction)
        #expect(try dump(store) == before)
        #expect(try count(store, "SELECT count(*) FROM ingests") == 1)
        #expect(try store.hasIngested(sha256: try FileDigest.sha256(path: broken).hex) == false)
        #expect(try schemaObjects(store, type: "trigger") == triggers, "bulk mode's dropped triggers come back")
        #expect(try schemaObjects(store, type: "index") == indexes)
        #expect(try store.check() == [])
        #expect(try count(store, "SELECT count(*) FROM idx_incidents_geom") == 500)
    }

    @Test("a transaction dropped without commit leaves nothing")
    func droppedTransaction() throws {
        let dir = try TempDir()
        let store = try newStore(dir)
        do {
            let transaction = try FileTransaction(store: store, source: "x", expectedRows: 0)
            #expect(try transaction.write(Incident(key: "k", time: 1, precision: .second, lat: 1, lon: 1)) == .inserted)
            #expect(try count(store, "SELECT count(*) FROM incidents") == 1, "visible inside the transaction")
        }
        #expect(!store.db.isInTransaction)
        #expect(try count(store, "SELECT count(*) FROM incidents") == 0)
        #expect(try count(store, "SELECT count(*) FROM idx_incidents_geom") == 0)
        // The same after an explicit rollback.
        let transaction = try FileTransaction(store: store, source: "x", expectedRows: 0)
        _ = try transaction.write(Incident(key: "k", time: 1, precision: .second, lat: 1, lon: 1))
        transaction.rollback()
        #expect(try count(store, "SELECT count(*) FROM incidents") == 0)
    }

    @Test("re-ingesting identical content counts duplicates and changes nothing")
    func reingestIdentical() throws {
        let dir = try TempDir()
        let store = try newStore(dir)
        let path = try dir.file("same.csv", csvText(generatedRows(count: 1000, seed: 91)))
        let first = try ingestFile(path, into: store).report
        #expect(first.inserted == 1000)
        let before = try dump(store)
        let second = try ingestFile(path, into: store).report
        #expect(second.duplicates == 1000 && second.inserted == 0 && second.updated == 0)
        #expect(try dump(store) == before)
        // The same content under another file name: still duplicates; the source stays the first file's.
        let copy = try dir.file("copy.csv", csvText(generatedRows(count: 1000, seed: 91)))
        let third = try ingestFile(copy, into: store).report
        #expect(third.duplicates == 1000)
        #expect(try dump(store) == before)
        #expect(try count(store, "SELECT count(*) FROM incidents WHERE source = 'same.csv'") == 1000)
    }

    @Test("edited content counts updates and stores the new values")
    func editedContent() throws {
        let dir = try TempDir()
        let store = try newStore(dir)
        var generated = generatedRows(count: 600, seed: 101).filter { !$0.id.isEmpty }
        try ingestFile(try dir.file("v1.csv", csvText(generated)), into: store)
        var edited: Set<String> = []
        for i in stride(from: 0, to: generated.count, by: 5) {
            generated[i].description = "edited, \"later\""
            generated[i].handled = generated[i].handled == "Y" ? "N" : "Y"
            generated[i].outcome = "Charged"
            edited.insert(generated[i].id)
        }
        let report = try ingestFile(try dir.file("v2.csv", csvText(generated)), into: store).report
        #expect(report.updated == edited.count)
        #expect(report.duplicates == generated.count - edited.count)
        for row in generated where edited.contains(row.id) {
            let stored = try rows(
                store, "SELECT description, handled, attrs, source FROM incidents WHERE key = ?", [.text(row.id)],
                columns: 4)
            #expect(stored.first?[0] == .text("edited, \"later\""))
            #expect(stored.first?[1] == .integer(row.handled == "Y" ? 1 : 0))
            #expect(stored.first?[2] == .text(#"{"Outcome":"Charged"}"#))
            #expect(stored.first?[3] == .text("v2.csv"), "an update records the file that made it")
        }
        #expect(
            try count(store, "SELECT count(*) FROM incidents WHERE source = 'v1.csv'")
                == Int64(generated.count - edited.count))

        // Moving an incident moves its point in the spatial index.
        let moved = try dir.file(
            "v3.csv", "id,latitude,longitude,timestamp\n\(generated[0].id),10.5,20.5,\(generated[0].time)\n")
        #expect(try ingestFile(moved, into: store).report.updated == 1)
        #expect(try spatialIndexCount(store, lon: 20.5, lat: 10.5, radius: 0.01) == 1)
        #expect(try store.check() == [])
    }

    @Test("hasIngested(sha256:) after a commit only")
    func hasIngested() throws {
        let dir = try TempDir()
        let store = try newStore(dir)
        let path = try dir.file("h.csv", csvText(generatedRows(count: 10, seed: 111)))
        let sha = try FileDigest.sha256(path: path).hex
        #expect(try store.hasIngested(sha256: sha) == false)
        try ingestFile(path, into: store)
        #expect(try store.hasIngested(sha256: sha) == true)
        #expect(try store.hasIngested(sha256: String(repeating: "0", count: 64)) == false)
    }

    @Test("stats(): incidents, time range, bounds, categories, ingests with reject reasons")
    func stats() throws {
        let dir = try TempDir()
        let store = try newStore(dir)
        let empty = try store.stats()
        #expect(empty.incidents == 0 && empty.firstTime == nil && empty.bounds == nil)
        #expect(empty.categories.isEmpty && empty.ingests.isEmpty && empty.spatialIndexEntries == 0)
        let generated = generatedRows(count: 400, seed: 121)
        let text =
            csvText(generated) + "bad-1,,-1.8,1530000000,,,,\nbad-2,0,0,1530000000,,,,\nbad-3,53.7,-1.8,never,,,,\n"
        let path = try dir.file("s.csv", text)
        let report = try ingestFile(path, into: store).report
        let stats = try store.stats()
        #expect(stats.incidents == 400)
        #expect(stats.firstTime == generated.map(\.time).min())
        #expect(stats.lastTime == generated.map(\.time).max())
        let bounds = try #require(stats.bounds)
        #expect(bounds.minLat == generated.map(\.lat).min() && bounds.maxLat == generated.map(\.lat).max())
        #expect(bounds.minLon == generated.map(\.lon).min() && bounds.maxLon == generated.map(\.lon).max())
        #expect(stats.spatialIndexEntries == 400)

        // Categories by count (descending), then name; absent as "".
        var expected: [String: Int] = [:]
        for row in generated { expected[row.category, default: 0] += 1 }
        let ordered = expected.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        #expect(stats.categories.map(\.name) == ordered.map(\.key))
        #expect(stats.categories.map(\.count) == ordered.map(\.value))

        let ingest = try #require(stats.ingests.first)
        #expect(stats.ingests.count == 1)
        #expect(ingest.file == path)
        #expect(ingest.sha256 == report.sha256)
        #expect(ingest.bytes == Int64(text.utf8.count))
        #expect(ingest.records == 403 && ingest.accepted == 400 && ingest.inserted == 400)
        #expect(ingest.updated == 0 && ingest.duplicates == 0 && ingest.rejected == 3)
        #expect(ingest.format == "csv")
        #expect(ingest.rejectsByReason == ["missing_coordinates": 1, "null_island": 1, "invalid_time": 1])
        #expect(ingest.finishedAt == "2020-09-13T12:26:41Z")

        // categories: false skips the scans.
        let light = try store.stats(categories: false)
        #expect(light.categories.isEmpty && light.ingests.count == 1)
    }

    @Test("loadColumns returns the stored incidents, and the group-by attribute's values")
    func loadColumns() throws {
        let dir = try TempDir()
        let store = try newStore(dir)
        let generated = generatedRows(count: 700, seed: 131)
        try ingestFile(try dir.file("l.csv", csvText(generated)), into: store)

        let columns = try store.loadColumns(groupBy: "Outcome", keepKeys: true)
        #expect(columns.count == generated.count)
        #expect(Set(columns.groupValues) == ["Under investigation", "No further action"])
        for (i, row) in generated.enumerated() {
            #expect(columns.lat[i] == row.lat && columns.lon[i] == row.lon && columns.time[i] == row.time)
            let group = columns.group[i] < 0 ? "" : columns.groupValues[Int(columns.group[i])]
            #expect(group == row.outcome, "row \(i)")
            let category = columns.category[i] < 0 ? "" : columns.categories[Int(columns.category[i])]
            #expect(category == row.category)
            #expect(columns.handled[i] == (row.handled == "Y" ? 1 : row.handled == "N" ? 0 : -1))
            if !row.id.isEmpty { #expect(columns.keys[i] == row.id) }
        }
        // `category` needs no attribute; no group-by loads no group; keys only on request.
        let byCategory = try store.loadColumns(groupBy: "category")
        #expect(byCategory.groupValues.isEmpty && byCategory.group.allSatisfy { $0 == -1 })
        #expect(byCategory.keys.isEmpty)
        let unknown = try store.loadColumns(groupBy: "No such column")
        #expect(unknown.group.allSatisfy { $0 == -1 })
    }

    // MARK: Bundled datasets through the store

    /// key → [description, handled]
    private func descriptionsAndHandled(_ store: IncidentStore) throws -> [String: [SQLValue]] {
        var out: [String: [SQLValue]] = [:]
        for row in try rows(store, "SELECT key, description, handled FROM incidents", columns: 3) {
            guard case .text(let key) = row[0] else { continue }
            out[key] = [row[1], row[2]]
        }
        return out
    }

    @Test("WatchMe: the first export then the edits export, as the manifest says")
    func watchMe() throws {
        let dir = try TempDir()
        let store = try newStore(dir)
        let manifestData = try Data(contentsOf: Self.datasets.appendingPathComponent("watchme/manifest.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: manifestData) as? [String: Any])
        let files = try #require(manifest["files"] as? [String: Any])
        let firstEntry = try #require(files["watchme-export-2018-07-31.json"] as? [String: Any])
        let editsEntry = try #require(files["watchme-export-2018-08-01-edits.json"] as? [String: Any])
        let intoEmpty = try #require(firstEntry["ingest_into_empty_store"] as? [String: Int])
        let afterFirst = try #require(editsEntry["ingest_after_first_file"] as? [String: Int])
        let edits = try #require(editsEntry["edits"] as? [[String: String]])

        let firstPath = Self.datasets.appendingPathComponent("watchme/watchme-export-2018-07-31.json").path
        let editsPath = Self.datasets.appendingPathComponent("watchme/watchme-export-2018-08-01-edits.json").path
        let a = try ingestFile(firstPath, into: store).report
        #expect(a.inserted == intoEmpty["new"] && a.updated == intoEmpty["updated"])
        #expect(a.duplicates == intoEmpty["duplicate"] && a.rejected == intoEmpty["rejected"])
        let before = try descriptionsAndHandled(store)

        let b = try ingestFile(editsPath, into: store).report
        #expect(b.inserted == afterFirst["new"])
        #expect(b.updated == afterFirst["updated"])
        #expect(b.duplicates == afterFirst["duplicate"])
        #expect(b.rejected == afterFirst["rejected"])
        #expect(try count(store, "SELECT count(*) FROM incidents") == Int64(editsEntry["accepted"] as? Int ?? -1))

        let after = try descriptionsAndHandled(store)
        for edit in edits {
            let key = edit["push_id"]!
            let old = try #require(before[key]), new = try #require(after[key])
            #expect((old[0] != new[0]) == edit["edit"]!.contains("description"), "\(key) \(edit["edit"]!)")
            if edit["edit"]!.contains("policeArrived") {
                #expect(old[1] == .integer(0) && new[1] == .integer(1), "\(key)")
            } else {
                #expect(old[1] == new[1])
            }
        }
        let newIDs = try #require(editsEntry["new_post_ids"] as? [String])
        for id in newIDs {
            #expect(
                try count(
                    store, "SELECT count(*) FROM incidents WHERE key = ? AND source = ?",
                    [.text(id), .text("watchme-export-2018-08-01-edits.json")]) == 1)
        }
        let stats = try store.stats()
        #expect(stats.ingests.map(\.format) == ["json/watchme-export", "json/watchme-export"])
        #expect(stats.ingests.map(\.rejected) == [14, 14])
        #expect(
            stats.ingests.map(\.sha256) == [
                firstEntry["sha256"] as? String ?? "", editsEntry["sha256"] as? String ?? ""
            ])
        #expect(try store.check() == [])
    }

    @Test("Calderdale: the three samples in bulk mode, re-ingest adds nothing")
    func calderdale() throws {
        let dir = try TempDir()
        let store = try newStore(dir)
        let accepted = [2125, 2345, 2559]
        for (i, name) in ["2016-07", "2017-07", "2018-07"].enumerated() {
            let path = Self.datasets.appendingPathComponent("police-uk/\(name)-calderdale-street.csv").path
            let (report, bulk) = try ingestFile(path, into: store, expectedRows: 10_000)
            #expect(bulk)
            #expect(report.inserted == accepted[i] && report.rejected == 40)
            #expect(report.rejectsByReason == [.missingCoordinates: 40])
        }
        #expect(try count(store, "SELECT count(*) FROM incidents") == 7029)
        #expect(try count(store, "SELECT count(*) FROM incidents WHERE time_precision = 'month'") == 7029)
        #expect(
            try count(store, "SELECT count(*) FROM incidents WHERE key LIKE 'h:%' AND key NOT LIKE '%:1'") == 119 + 147
                + 93)
        let before = try dump(store)
        let again = try ingestFile(
            Self.datasets.appendingPathComponent("police-uk/2017-07-calderdale-street.csv").path,
            into: store
        ).report
        #expect(again.duplicates == 2345 && again.inserted == 0)
        #expect(try dump(store) == before)
        #expect(try store.check() == [])
    }
}
