import AreaWatchCore
import AreaWatchQuery
import Foundation
import Testing

@testable import AreaWatchIngest

/// The bundled datasets: the Calderdale data.police.uk samples (facts recomputed here from the
/// raw CSV by `SimpleCSV`) and the synthetic WatchMe exports (counts from their manifest).
@Suite("Bundled datasets")
struct BundledDataTests {
    static let datasets = packageRoot().appendingPathComponent("datasets")

    /// What an independent read of a data.police.uk file says.
    struct PoliceFacts {
        var rows = 0
        var noCoordinates = 0
        var noCrimeID = 0
        /// Among located rows without Crime ID, the rows identical to an earlier one.
        var identicalIdless = 0
        /// Lines of the rows without coordinates.
        var noCoordinateLines: [String] = []
    }

    static func policeFacts(_ path: String) throws -> PoliceFacts {
        let rows = SimpleCSV.rows(try String(contentsOfFile: path, encoding: .utf8))
        let header = try #require(rows.first).fields
        let id = try #require(header.firstIndex(of: "Crime ID"))
        let lon = try #require(header.firstIndex(of: "Longitude"))
        let lat = try #require(header.firstIndex(of: "Latitude"))
        var facts = PoliceFacts()
        var seen = Set<[String]>()
        for row in rows.dropFirst() {
            try #require(row.fields.count == header.count, "line \(row.line)")
            facts.rows += 1
            let located = !row.fields[lon].isEmpty && !row.fields[lat].isEmpty
            if !located {
                facts.noCoordinates += 1
                facts.noCoordinateLines.append(String(row.line))
            }
            if row.fields[id].isEmpty {
                facts.noCrimeID += 1
                if located && !seen.insert(row.fields).inserted { facts.identicalIdless += 1 }
            }
        }
        return facts
    }

    /// The table of datasets/police-uk/README.md.
    static let calderdale:
        [(file: String, rows: Int, noCoordinates: Int, noCrimeID: Int, identical: Int, accepted: Int)] = [
            ("2016-07-calderdale-street.csv", 2165, 40, 598, 119, 2125),
            ("2017-07-calderdale-street.csv", 2385, 40, 529, 147, 2345),
            ("2018-07-calderdale-street.csv", 2599, 40, 437, 93, 2559)
        ]

    @Test(
        "Calderdale samples: accepted = rows − rows without coordinates, all identical id-less rows kept",
        arguments: BundledDataTests.calderdale.map(\.file))
    func calderdaleFile(_ file: String) throws {
        let path = Self.datasets.appendingPathComponent("police-uk/" + file).path
        let facts = try Self.policeFacts(path)
        let readme = try #require(Self.calderdale.first { $0.file == file })
        // The independent count agrees with the README.
        #expect(facts.rows == readme.rows)
        #expect(facts.noCoordinates == readme.noCoordinates)
        #expect(facts.noCrimeID == readme.noCrimeID)
        #expect(facts.identicalIdless == readme.identical)
        #expect(facts.rows - facts.noCoordinates == readme.accepted)

        var builder = IncidentColumnsBuilder(keepKeys: true)
        let result = try ingest(path, into: &builder)
        #expect(result.report.format == "csv")
        #expect(result.report.records == facts.rows)
        #expect(result.report.accepted == facts.rows - facts.noCoordinates)
        #expect(result.report.inserted == result.report.accepted, "identical id-less rows are distinct incidents")
        #expect(result.report.rejected == facts.noCoordinates)
        #expect(result.report.rejectsByReason == [.missingCoordinates: facts.noCoordinates])
        #expect(result.rejects.map(\.record) == facts.noCoordinateLines)
        #expect(result.rejects.allSatisfy { $0.reason == "missing_coordinates" && $0.source == path })
        #expect(builder.columns.count == readme.accepted)

        // Keys: Crime IDs as they are, id-less rows derived, ordinals ≥ 2 for the identical ones.
        let keys = builder.columns.keys
        let derived = keys.filter { $0.hasPrefix("h:") }
        #expect(derived.count == facts.noCrimeID - result.rejects.filter { $0.id.isEmpty }.count)
        #expect(derived.filter { !$0.hasSuffix(":1") }.count == facts.identicalIdless)
        #expect(Set(keys).count == keys.count)
        // Every time is the first of the file's month, precision month.
        let month = Int(file.prefix(4))!
        #expect(Set(builder.columns.time) == [epoch(month, 7, 1)])

        // Re-ingesting the file adds nothing (snapshot semantics).
        let again = try ingest(path, into: &builder)
        #expect(again.report.duplicates == readme.accepted)
        #expect(again.report.inserted == 0 && again.report.updated == 0)
        #expect(builder.columns.count == readme.accepted)
    }

    /// Row by row against the raw file: key, coordinates, category, precision, and the other
    /// columns as attributes (empty ones dropped).
    @Test("Calderdale 2018-07: every incident equals its raw row")
    func calderdaleRowContent() throws {
        let path = Self.datasets.appendingPathComponent("police-uk/2018-07-calderdale-street.csv").path
        let rows = SimpleCSV.rows(try String(contentsOfFile: path, encoding: .utf8))
        let header = rows[0].fields
        let column = { (name: String) in header.firstIndex(of: name)! }
        let located = rows.dropFirst().filter {
            !$0.fields[column("Longitude")].isEmpty && !$0.fields[column("Latitude")].isEmpty
        }
        let mapped: Set<String> = ["Crime ID", "Month", "Longitude", "Latitude", "Crime type"]

        let result = try ingest(path)
        try #require(result.incidents.count == located.count)
        for (incident, row) in zip(result.incidents, located) {
            let f = row.fields
            let id = f[column("Crime ID")]
            if id.isEmpty {
                #expect(incident.key.hasPrefix("h:"), "line \(row.line)")
            } else {
                #expect(incident.key == id, "line \(row.line)")
            }
            #expect(
                incident.lat == Double(f[column("Latitude")]) && incident.lon == Double(f[column("Longitude")]),
                "line \(row.line)")
            #expect(incident.category == f[column("Crime type")], "line \(row.line)")
            #expect(incident.time == epoch(2018, 7, 1) && incident.precision == .month)
            #expect(incident.handled == nil && incident.description == nil && incident.user == nil)
            var expected: [String: String] = [:]
            for (name, value) in zip(header, f) where !mapped.contains(name) && !value.isEmpty {
                expected[name] = value
            }
            let attributes = try #require(incident.attributes, "line \(row.line)")
            let parsed = try JSONSerialization.jsonObject(with: Data(attributes.utf8)) as? [String: String]
            #expect(parsed == expected, "line \(row.line)")
            #expect(attributes.hasPrefix("{\"Falls within\":"), "keys in byte order")
        }
    }

    @Test("the three Calderdale files into one table: no key collides across months")
    func calderdaleAll() throws {
        var builder = IncidentColumnsBuilder()
        var total = 0
        for entry in Self.calderdale {
            let result = try ingest(
                Self.datasets.appendingPathComponent("police-uk/" + entry.file).path, into: &builder)
            #expect(result.report.inserted == entry.accepted)
            total += entry.accepted
        }
        #expect(builder.columns.count == total)
        #expect(total == 7029)
    }

    // MARK: WatchMe

    struct Manifest {
        let json: [String: Any]

        init() throws {
            let data = try Data(contentsOf: BundledDataTests.datasets.appendingPathComponent("watchme/manifest.json"))
            json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }

        func file(_ name: String) throws -> [String: Any] {
            let files = try #require(json["files"] as? [String: Any])
            return try #require(files[name] as? [String: Any])
        }

        var specialPosts: [[String: Any]] { json["special_posts"] as? [[String: Any]] ?? [] }
    }

    static let firstExport = "watchme-export-2018-07-31.json"
    static let editsExport = "watchme-export-2018-08-01-edits.json"

    static func watchMePath(_ name: String) -> String {
        datasets.appendingPathComponent("watchme/" + name).path
    }

    /// The manifest's `rejected_by_reason` as the report's type.
    static func reasons(_ entry: [String: Any]) throws -> [RejectReason: Int] {
        let raw = try #require(entry["rejected_by_reason"] as? [String: Int])
        return Dictionary(
            uniqueKeysWithValues: try raw.map { (try #require(RejectReason(rawValue: $0.key)), $0.value) })
    }

    @Test(
        "WatchMe exports: accepted and rejected by reason exactly as the manifest says",
        arguments: [BundledDataTests.firstExport, BundledDataTests.editsExport])
    func watchMeCounts(_ name: String) throws {
        let manifest = try Manifest()
        let entry = try manifest.file(name)
        let path = Self.watchMePath(name)
        let digest = try FileDigest.sha256(path: path)
        #expect(digest.hex == entry["sha256"] as? String)
        #expect(digest.bytes == Int64(entry["bytes"] as? Int ?? -1))

        let result = try ingest(path)
        #expect(result.report.format == "json/watchme-export")
        #expect(result.report.records == entry["posts_members"] as? Int)
        #expect(result.report.accepted == entry["accepted"] as? Int)
        #expect(result.report.rejected == entry["rejected"] as? Int)
        let expectedReasons = try Self.reasons(entry)
        #expect(result.report.rejectsByReason == expectedReasons)
        // Firebase push ids begin with "-": the rejects file writes them spreadsheet-safe (SPEC §8).
        #expect(
            result.rejects.allSatisfy {
                $0.record.hasPrefix("posts.") && $0.id == CSVText.spreadsheetSafe(String($0.record.dropFirst(6)))
            })
        #expect(result.rejects.allSatisfy { $0.id.hasPrefix("'-") })
        #expect(Set(result.incidents.map(\.key)).count == result.incidents.count)
    }

    /// `YYYY-MM-DDThh:mm:ssZ` → epoch seconds, without the engine's parser.
    static func utc(_ text: String) -> Int64? {
        let parts = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard parts.count == 6, text.hasSuffix("Z") else { return nil }
        return epoch(parts[0], parts[1], parts[2], parts[3], parts[4], parts[5])
    }

    @Test("WatchMe special posts: each rejected with its reason, or accepted with its time")
    func watchMeSpecialPosts() throws {
        let manifest = try Manifest()
        let result = try ingest(Self.watchMePath(Self.firstExport))
        #expect(manifest.specialPosts.count >= 20)
        for post in manifest.specialPosts {
            let id = try #require(post["push_id"] as? String)
            let expected = try #require(post["expected"] as? [String: Any])
            let record = try #require(post["record"] as? String)
            #expect(record == "posts." + id)
            if expected["accepted"] as? Bool == true {
                let incident = try #require(result.incident(id), "\(id) accepted")
                let timeText = try #require(expected["time"] as? String)
                let time = try #require(Self.utc(timeText))
                #expect(incident.time == time, "\(id): \(post["exercises"] ?? "")")
                #expect(incident.precision == .second)
                #expect(result.reject(at: record) == nil)
            } else {
                #expect(result.incident(id) == nil)
                let reject = try #require(result.reject(at: record), "\(id) rejected")
                #expect(reject.reason == expected["reason"] as? String, "\(id): \(post["exercises"] ?? "")")
                #expect(reject.id == "'" + id) // a push id begins with "-" (SPEC §8)
            }
        }
        // The numeric-string post keeps its coordinates.
        let strings = try #require(result.incident("-LEa6bP6o41ejSsZivIF"))
        #expect(strings.lat == 53.72 && strings.lon == -1.86)
    }

    @Test("WatchMe: the edits export after the first gives the manifest's new / updated / unchanged")
    func watchMeEdits() throws {
        let manifest = try Manifest()
        let first = try manifest.file(Self.firstExport)
        let edits = try manifest.file(Self.editsExport)
        let intoEmpty = try #require(first["ingest_into_empty_store"] as? [String: Int])
        let afterFirst = try #require(edits["ingest_after_first_file"] as? [String: Int])

        var builder = IncidentColumnsBuilder(keepKeys: true)
        let a = try ingest(Self.watchMePath(Self.firstExport), into: &builder)
        #expect(a.report.inserted == intoEmpty["new"])
        #expect(a.report.updated == intoEmpty["updated"])
        #expect(a.report.duplicates == intoEmpty["duplicate"])
        #expect(a.report.rejected == intoEmpty["rejected"])
        let handledBefore = Dictionary(uniqueKeysWithValues: zip(builder.columns.keys, builder.columns.handled))

        let b = try ingest(Self.watchMePath(Self.editsExport), into: &builder)
        #expect(b.report.inserted == afterFirst["new"])
        #expect(b.report.updated == afterFirst["updated"])
        #expect(b.report.duplicates == afterFirst["duplicate"])
        #expect(b.report.rejected == afterFirst["rejected"])
        #expect(builder.columns.count == edits["accepted"] as? Int)

        // The new posts are the manifest's; a policeArrived edit is visible in the table.
        let newIDs = try #require(edits["new_post_ids"] as? [String])
        let keys = builder.columns.keys
        #expect(Set(keys.suffix(newIDs.count)) == Set(newIDs))
        let handledAfter = Dictionary(uniqueKeysWithValues: zip(keys, builder.columns.handled))
        let editList = try #require(edits["edits"] as? [[String: String]])
        #expect(editList.count == afterFirst["updated"])
        for edit in editList where edit["edit"]!.contains("policeArrived") {
            let id = edit["push_id"]!
            #expect(handledBefore[id] == 0 && handledAfter[id] == 1, "\(id): policeArrived false → true")
        }
        for edit in editList where edit["edit"] == "description" {
            let id = edit["push_id"]!
            #expect(handledBefore[id] == handledAfter[id], "\(id): only the description changed")
        }
    }

    // MARK: The full West Yorkshire files (optional)

    /// `../shared/data/police-uk` beside the package root, or beside one of its ancestors (the
    /// package may be checked out in a nested work folder); nil when absent.
    static let fullData: URL? = {
        var dir = packageRoot()
        for _ in 0..<3 {
            let candidate = dir.deletingLastPathComponent().appendingPathComponent("shared/data/police-uk")
            if FileManager.default.fileExists(
                atPath: candidate.appendingPathComponent("2016-07-west-yorkshire-street.csv").path)
            {
                return candidate
            }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }()

    @Test(
        "full West Yorkshire files: 25,829 / 26,996 / 30,752 accepted, 83,577 incidents, rejects all missing_coordinates",
        .enabled(
            if: BundledDataTests.fullData != nil,
            "skipped: to run it, put the West Yorkshire police data in ../shared/data/police-uk beside the package root"
        ))
    func westYorkshire() throws {
        let dir = try #require(Self.fullData)
        let facts: [(file: String, rows: Int, noCoordinates: Int, accepted: Int)] = [
            ("2016-07-west-yorkshire-street.csv", 27_176, 1_347, 25_829),
            ("2017-07-west-yorkshire-street.csv", 28_537, 1_541, 26_996),
            ("2018-07-west-yorkshire-street.csv", 31_635, 883, 30_752)
        ]
        var builder = IncidentColumnsBuilder()
        for fact in facts {
            let result = try ingest(dir.appendingPathComponent(fact.file).path, into: &builder)
            #expect(result.report.records == fact.rows, "\(fact.file)")
            #expect(result.report.accepted == fact.accepted, "\(fact.file)")
            #expect(result.report.inserted == fact.accepted, "\(fact.file)")
            #expect(result.report.rejectsByReason == [.missingCoordinates: fact.noCoordinates], "\(fact.file)")
        }
        #expect(builder.columns.count == 83_577)
    }
}
