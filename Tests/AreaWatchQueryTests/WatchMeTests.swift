import AreaWatchCore
import AreaWatchIngest
import AreaWatchQuery
import Foundation
import Testing

/// WatchMe Firebase exports through `FileIngester` → `IncidentColumnsBuilder` → `IncidentIndex`.
@Suite("WatchMe exports")
struct WatchMeTests {
    static let asOf = epoch("2018-07-31T23:59:59Z")
    static let halifax = (lat: 53.7248, lon: -1.8658)

    /// Fixtures/watchme-special-posts.json (see Fixtures/README.md): ten posts and their fan-out
    /// copies in `timeline` and `users-posts`, which must not be counted again.
    @Test("special posts: window bounds, future, (0, 0), milliseconds, string coordinates")
    func specialPosts() throws {
        let path = try Paths.fixture("watchme-special-posts.json")
        let dir = try Paths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rejectsPath = dir.appendingPathComponent("rejects.csv").path
        let rejects = try RejectsWriter(path: rejectsPath)
        var builder = IncidentColumnsBuilder(keepKeys: true)
        let (sha, bytes) = try FileDigest.sha256(path: path)
        let report = try FileIngester.ingest(
            path: path, sha256: sha, bytes: bytes, options: IngestOptions(),
            into: &builder, rejects: rejects)
        try rejects.endFile()
        try rejects.commit()

        #expect(report.records == 10, "only the posts node is read")
        #expect(report.accepted == 9)
        #expect(report.inserted == 9)
        #expect(report.rejected == 1)
        #expect(report.rejectsByReason == [.nullIsland: 1])

        let rejectRows = try readCSVRecords(rejectsPath)
        #expect(rejectRows.header == ["source", "record", "id", "reason", "excerpt"])
        #expect(rejectRows.records.count == 1)
        if let row = rejectRows.records.first {
            #expect(row[1] == "posts.-LnullIslandNoPermiss")
            #expect(row[3] == "null_island")
        }

        let columns = builder.columns
        #expect(columns.count == 9)
        func time(of key: String) -> Int64? { columns.keys.firstIndex(of: key).map { columns.time[$0] } }
        func position(of key: String) -> (Double, Double)? {
            columns.keys.firstIndex(of: key).map { (columns.lat[$0], columns.lon[$0]) }
        }
        #expect(time(of: "-LmillisecondStamp000") == epoch("2018-07-10T14:56:07Z"), "1531234567890 is milliseconds")
        #expect(time(of: "-LfractionalSeconds00") == 1_520_000_000, "fractional seconds are floored")
        #expect(time(of: "-LprevExactlyTminus1y") == epoch("2017-07-31T23:59:59Z"))
        #expect(position(of: "-LstringCoordinates00").map { $0 == (53.7205, -1.8605) } == true)
        #expect(columns.keys.contains("-LnullIslandNoPermiss") == false)

        let index = IncidentIndex(columns: columns, parameters: QueryParameters(asOf: Self.asOf, radius: 1000))
        #expect(index.excludedFuture == 1)
        let totals = index.totals()
        // current: T − 1 y + 1 s, milliseconds, string coordinates, exactly T, fractional, Leeds.
        #expect(totals.current == 6)
        #expect(totals.previous == 1, "the post exactly at T − 1 year is previous")
        #expect(totals.older == 1, "the post exactly at T − 2 years is older")
        #expect(totals.years == [2016, 2017, 2018], "the future post's 2019 is not a year present")
        #expect(totals.yearCounts == [1, 2, 5])

        let a = index.pointAnswer(lat: Self.halifax.lat, lon: Self.halifax.lon)
        #expect(a.current == 5)
        #expect(a.previous == 1)
        #expect(a.delta == 4)
        #expect(a.pct == 4.0)
        #expect(a.handled == 2, "policeArrived true: T − 1 y + 1 s and exactly T")
        #expect(a.safetyClass == .medium, "5 current incidents: c < 5 is safe, so 5 is medium")
        #expect(a.label == "Medium Safety Area")
        #expect(a.text == "4 event(s) more than previous year")
        #expect(a.asOf == Self.asOf && a.radius == 1000)

        // The same against brute force over what was ingested.
        let expected = referencePoint(
            testIncidents(of: columns), windows: ReferenceWindows(asOf: Self.asOf),
            lat: Self.halifax.lat, lon: Self.halifax.lon, radius: 1000)
        #expect(ReferencePoint(current: a.current, previous: a.previous, handled: a.handled) == expected)

        let leeds = index.pointAnswer(lat: 53.7997, lon: -1.5492)
        #expect(leeds.current == 1 && leeds.previous == 0 && leeds.handled == 1)
        #expect(leeds.text == "1 event(s) more than previous year")
        #expect(leeds.pct == nil)
        let nowhere = index.pointAnswer(lat: 0, lon: 0)
        #expect(nowhere.current == 0 && nowhere.previous == 0, "the (0, 0) post is not an incident")
    }

    struct Manifest {
        var json: [String: Any]
        init() throws {
            let data = try Data(contentsOf: URL(fileURLWithPath: Paths.dataset("watchme/manifest.json")))
            json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        func file(_ name: String) throws -> [String: Any] {
            let files = try #require(json["files"] as? [String: Any])
            return try #require(files[name] as? [String: Any])
        }
    }

    /// datasets/watchme: the generator's manifest holds the expected windows and point answers.
    @Test("bundled exports: window counts and point answers of the manifest")
    func bundledExports() throws {
        let manifest = try Manifest()
        let first = "watchme-export-2018-07-31.json", second = "watchme-export-2018-08-01-edits.json"
        let firstOnly = try loadFiles([Paths.dataset("watchme/" + first)])
        let both = try loadFiles([Paths.dataset("watchme/" + first), Paths.dataset("watchme/" + second)])
        for (name, loaded) in [(first, firstOnly), (second, both)] {
            let entry = try manifest.file(name)
            let report = try #require(loaded.reports.last)
            #expect(report.records == entry["posts_members"] as? Int, "\(name)")
            #expect(report.accepted == entry["accepted"] as? Int, "\(name)")
            #expect(report.rejected == entry["rejected"] as? Int, "\(name)")
            let windows = try #require(entry["windows"] as? [[String: Any]])
            for w in windows {
                let asOf = epoch(try #require(w["as_of"] as? String))
                let index = IncidentIndex(columns: loaded.columns, parameters: QueryParameters(asOf: asOf))
                let totals = index.totals()
                #expect(totals.current == w["current"] as? Int, "\(name) as-of \(UTCTime.iso8601(asOf))")
                #expect(totals.previous == w["previous"] as? Int, "\(name) as-of \(UTCTime.iso8601(asOf))")
                #expect(totals.older == w["older_than_previous"] as? Int, "\(name) as-of \(UTCTime.iso8601(asOf))")
                #expect(totals.excludedFuture == w["excluded_future"] as? Int, "\(name) as-of \(UTCTime.iso8601(asOf))")
            }
            let queries = try #require(entry["point_queries"] as? [[String: Any]])
            #expect(queries.count == 9)
            for q in queries {
                let asOf = epoch(try #require(q["as_of"] as? String))
                let radius = try #require(q["radius_m"] as? Double)
                let index = IncidentIndex(
                    columns: loaded.columns, parameters: QueryParameters(asOf: asOf, radius: radius))
                let lat = try #require(q["lat"] as? Double), lon = try #require(q["lon"] as? Double)
                let a = index.pointAnswer(lat: lat, lon: lon)
                let label = "\(name) \(q["name"] ?? "")"
                #expect(a.current == q["current"] as? Int, "\(label)")
                #expect(a.previous == q["previous"] as? Int, "\(label)")
                #expect(a.delta == q["delta"] as? Int, "\(label)")
                #expect(a.handled == q["handled"] as? Int, "\(label)")
                #expect(a.safetyClass.rawValue == q["class"] as? String, "\(label)")
                // pct = delta / previous exactly. (The manifest's pct is that same Double, but
                // JSONSerialization on Linux may read a double a few ulps off, so the parsed value
                // is compared with a tolerance and the exact value is recomputed from the counts.)
                if let pct = q["pct"] as? Double, let delta = q["delta"] as? Int, let previous = q["previous"] as? Int {
                    #expect(a.pct == Double(delta) / Double(previous), "\(label)")
                    #expect(abs((a.pct ?? .nan) - pct) <= 1e-14 * max(1, abs(pct)), "\(label)")
                } else {
                    #expect(a.pct == nil, "\(label)")
                }
            }
        }
        // Calendar years of the first export: every accepted post but the one in the future.
        let totals = IncidentIndex(columns: firstOnly.columns, parameters: QueryParameters(asOf: Self.asOf)).totals()
        let years = try #require(try manifest.file(first)["calendar_years_all_accepted"] as? [String: Int])
        #expect(totals.years == [2015, 2016, 2017, 2018])
        #expect(totals.yearCounts == [2015, 2016, 2017, 2018].map { years[String($0)] ?? -1 })
        #expect(years["2019"] == 1 && totals.excludedFuture == 1)
    }
}
