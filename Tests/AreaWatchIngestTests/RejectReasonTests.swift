import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// SPEC §3: every reject reason from hand-made records, the first reason in table order winning
/// for a record with several problems, and records over 1 MiB.
@Suite("Reject reasons")
struct RejectReasonTests {
    /// `reasons.csv`: one row per reason (and per way of getting it), then rows with several problems.
    @Test("every CSV reject reason, first reason in SPEC order wins")
    func csvReasons() throws {
        let path = try fixture("reasons.csv")
        let result = try ingest(path)
        // line → (id, reason); line 1 is the header.
        let expected: [(line: Int, id: String, reason: String)] = [
            (3, "", "malformed_record"), // 4 fields for a 6-column header
            (4, "no-lat", "missing_coordinates"),
            (5, "no-lon", "missing_coordinates"),
            (6, "blank-lat", "missing_coordinates"), // spaces only = empty
            (7, "text-lat", "invalid_coordinates"),
            (8, "lat-91", "invalid_coordinates"),
            (9, "lon-181", "invalid_coordinates"),
            (10, "nan-lon", "invalid_coordinates"),
            (11, "null-island", "null_island"),
            (12, "null-island-2", "null_island"), // 0.000 and -0.0 are exactly 0
            (13, "no-time", "missing_time"),
            (14, "bad-time", "invalid_time"),
            (15, "year-0", "invalid_time"), // before 0001-01-01
            (16, "after-9999", "invalid_time"), // 9999-12-31T23:59:59-01:00 is in year 10000 UTC
            (17, "multi-1", "missing_coordinates"), // + invalid time
            (18, "multi-2", "invalid_coordinates"), // + missing time
            (19, "multi-3", "null_island"), // + invalid time
            (20, "multi-4", "missing_coordinates"), // + invalid lon + missing time
            (21, "", "malformed_record"), // quoting error + invalid lat + missing time
            (22, "", "malformed_record") // 7 fields + missing everything
        ]
        #expect(result.rejects.map(\.record) == expected.map { String($0.line) })
        #expect(result.rejects.map(\.reason) == expected.map(\.reason))
        #expect(result.rejects.map(\.id) == expected.map(\.id))
        #expect(result.rejects.allSatisfy { $0.source == path })

        #expect(result.report.records == 24)
        #expect(result.report.accepted == 4)
        #expect(result.report.rejected == 20)
        #expect(
            result.report.rejectsByReason == [
                .malformedRecord: 3, .missingCoordinates: 5, .invalidCoordinates: 5, .nullIsland: 3,
                .missingTime: 1, .invalidTime: 3
            ])
        #expect(result.incidents.map(\.key) == ["ok-1", "ok-2", "ok-3", "ok-4"])
        // The bounds themselves are valid: ±90, ±180, 0001-01-01T00:00:00Z, 9999-12-31T23:59:59Z.
        let ok2 = try #require(result.incident("ok-2"))
        #expect(ok2.lat == -90 && ok2.lon == 180 && ok2.time == 1_530_000_000)
        let ok3 = try #require(result.incident("ok-3"))
        #expect(ok3.lat == 90 && ok3.lon == -180 && ok3.time == epoch(1, 1, 1))
        #expect(ok3.time == -62_135_596_800)
        let ok4 = try #require(result.incident("ok-4"))
        #expect(ok4.lat == 0 && ok4.lon == 5, "lat 0 alone is not null island")
        #expect(ok4.time == epoch(9999, 12, 31, 23, 59, 59))
    }

    /// The same reasons from JSON records, with JSON-only causes: an element that is not an
    /// object, a boolean or null coordinate.
    @Test("JSON reject reasons and locators in arrays")
    func jsonArrayReasons() throws {
        let result = try ingest(try fixture("array.json"))
        #expect(result.report.format == "json/array")
        #expect(result.report.records == 9)
        let expected: [String: String] = [
            "[1]": "malformed_record", "[2]": "missing_coordinates", "[3]": "malformed_record",
            "[4]": "malformed_record", "[5]": "malformed_record", "[7]": "invalid_coordinates",
            "[8]": "missing_coordinates"
        ]
        #expect(result.reasons == expected)
        #expect(result.reject(at: "[2]")?.id == "e2")
        #expect(result.reject(at: "[7]")?.id == "7", "a numeric id is reported as its text")
        #expect(result.reject(at: "[1]")?.excerpt == "42")
        #expect(result.reject(at: "[3]")?.excerpt == "\"a string\"")
        #expect(result.reject(at: "[4]")?.excerpt == "null")
        #expect(result.reject(at: "[5]")?.excerpt == "[1, 2]")
        #expect(result.incidents.count == 2)
        #expect(result.incidents.first?.key == "e0")
    }

    @Test("JSON: several problems in one record get the first reason in table order")
    func jsonFirstReasonWins() throws {
        let dir = try TempDir()
        let path = try dir.file(
            "multi.json",
            """
            [
              {"id": "a", "longitude": "east", "timestamp": "never"},
              {"id": "b", "latitude": 100, "longitude": 0},
              {"id": "c", "latitude": 0, "longitude": 0, "timestamp": "never"},
              {"id": "d", "latitude": 0, "longitude": 0},
              {"id": "e", "latitude": 1, "longitude": 1, "timestamp": null},
              {"id": "f", "latitude": 1, "longitude": 1, "timestamp": {"seconds": 5}},
              {"id": "g", "latitude": 1, "longitude": 1, "timestamp": true},
              {"id": "h", "latitude": "", "longitude": 1, "timestamp": "2018-01-01"},
              {"id": "i", "latitude": [1], "longitude": 1, "timestamp": "2018-01-01"}
            ]
            """)
        let result = try ingest(path)
        #expect(
            result.reasons == [
                "[0]": "missing_coordinates", "[1]": "invalid_coordinates", "[2]": "null_island",
                "[3]": "null_island", "[4]": "missing_time", "[5]": "invalid_time", "[6]": "invalid_time",
                "[7]": "missing_coordinates", "[8]": "invalid_coordinates"
            ])
        #expect(result.rejects.map(\.id) == ["a", "b", "c", "d", "e", "f", "g", "h", "i"])
        #expect(result.report.accepted == 0)
    }

    /// SPEC §3: a record over 1 MiB is `malformed_record`; the records around it are read normally.
    @Test("a CSV record over 1 MiB is malformed_record, one under it is kept")
    func oversizedCSVRecord() throws {
        let dir = try TempDir()
        let big = String(repeating: "x", count: 1_200_000)
        let fine = String(repeating: "y", count: 900_000)
        let text =
            "id,latitude,longitude,timestamp,description\n"
            + "before,53.7,-1.8,1530000000,short\n"
            + "huge,53.7,-1.8,1530000000,\(big)\n"
            + "after,53.7,-1.8,1530000000,short\n"
            + "large,53.7,-1.8,1530000000,\(fine)\n"
            + "last,53.7,-1.8,1530000000,short\n"
        let result = try ingest(try dir.file("big.csv", text))
        #expect(result.reasons == ["3": "malformed_record"])
        #expect(result.incidents.map(\.key) == ["before", "after", "large", "last"])
        #expect(result.incident("large")?.description?.count == 900_000)
        let excerpt = try #require(result.reject(at: "3")?.excerpt)
        #expect(excerpt.count == 200 && excerpt.hasPrefix("huge,53.7,-1.8,1530000000,xxx"))
    }

    @Test("a CSV record over 1 MiB inside a quoted field with delimiters and newlines")
    func oversizedQuotedCSVRecord() throws {
        let dir = try TempDir()
        let chunk = String(repeating: "ab,\"\"cd\n", count: 1 << 17) // 1 MiB of commas, quotes, newlines
        let text =
            "id,latitude,longitude,timestamp,description\n"
            + "huge,53.7,-1.8,1530000000,\"\(chunk)\"\n"
            + "after,53.7,-1.8,1530000000,short\n"
        let result = try ingest(try dir.file("bigquoted.csv", text))
        #expect(result.reasons == ["2": "malformed_record"])
        #expect(result.incidents.map(\.key) == ["after"])
    }

    /// Records longer than the reader's window (several MiB) are skipped to their end without
    /// being kept; the fields after the first MiB and the next records are still read right.
    @Test("CSV records of several MiB, unquoted and quoted, are malformed_record")
    func hugeCSVRecords() throws {
        let dir = try TempDir()
        let unquoted = String(repeating: "u", count: 5_000_000)
        let quoted = String(repeating: "q,\"\"\n", count: 1_000_000)
        let text =
            "id,latitude,longitude,timestamp,description,category\n"
            + "first,53.7,-1.8,1530000000,\(unquoted),cat\n" // 2
            + "second,53.7,-1.8,1530000000,\"\(quoted)\",cat\n" // 3 … 1,000,003
            + "third,53.7,-1.8,1530000000,short,cat\n" // 1,000,004
            + "fourth,,-1.8,1530000000,\(unquoted)\n" // 1,000,005
            + "fifth,53.7,-1.8,1530000000,short,cat\n" // 1,000,006
        let result = try ingest(try dir.file("huge.csv", text))
        #expect(result.reasons == ["2": "malformed_record", "3": "malformed_record", "1000005": "malformed_record"])
        #expect(result.incidents.map(\.key) == ["third", "fifth"])
        #expect(result.incidents.allSatisfy { $0.category == "cat" && $0.description == "short" })
        #expect(result.rejects.allSatisfy { $0.excerpt.count == 200 })
        #expect(result.reject(at: "2")?.excerpt.hasPrefix("first,53.7,-1.8,1530000000,uuu") == true)
    }

    @Test("an NDJSON line of several MiB is malformed_record")
    func hugeNDJSONLine() throws {
        let dir = try TempDir()
        let post = #"{"latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000, "description": "DESC"}"#
        let lines =
            [
                post.replacingOccurrences(of: "DESC", with: "a"),
                post.replacingOccurrences(of: "DESC", with: String(repeating: "z", count: 5_000_000)),
                post.replacingOccurrences(of: "DESC", with: "c")
            ].joined(separator: "\n") + "\n"
        let result = try ingest(try dir.file("huge.ndjson", lines))
        #expect(result.reasons == ["2": "malformed_record"])
        #expect(result.incidents.map(\.description) == ["a", "c"])
    }

    @Test("a JSON record over 1 MiB is malformed_record, in arrays, maps and NDJSON")
    func oversizedJSONRecords() throws {
        let dir = try TempDir()
        let big = String(repeating: "z", count: 1_200_000)
        let post = #"{"latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000, "description": "DESC"}"#
        let array =
            "[" + post.replacingOccurrences(of: "DESC", with: "a") + ",\n"
            + post.replacingOccurrences(of: "DESC", with: big) + ",\n"
            + post.replacingOccurrences(of: "DESC", with: "c") + "]"
        let arrayResult = try ingest(try dir.file("big.json", array))
        #expect(arrayResult.reasons == ["[1]": "malformed_record"])
        #expect(arrayResult.incidents.count == 2)

        let map =
            "{\"posts\": {\"p1\": " + post.replacingOccurrences(of: "DESC", with: "a") + ", \"p2\": "
            + post.replacingOccurrences(of: "DESC", with: big) + ", \"p3\": "
            + post.replacingOccurrences(of: "DESC", with: "c") + "}}"
        let mapResult = try ingest(try dir.file("bigmap.json", map))
        #expect(mapResult.reasons == ["posts.p2": "malformed_record"])
        #expect(mapResult.reject(at: "posts.p2")?.id == "p2")
        #expect(mapResult.incidents.map(\.key) == ["p1", "p3"])

        let lines =
            [
                post.replacingOccurrences(of: "DESC", with: "a"), post.replacingOccurrences(of: "DESC", with: big),
                post.replacingOccurrences(of: "DESC", with: "c")
            ].joined(separator: "\n") + "\n"
        let ndjson = try ingest(try dir.file("big.ndjson", lines))
        #expect(ndjson.report.format == "json/ndjson")
        #expect(ndjson.reasons == ["2": "malformed_record"])
        #expect(ndjson.incidents.count == 2)
        #expect(ndjson.incidents.allSatisfy { ($0.description ?? "").count == 1 })
    }

    @Test("a deeply nested JSON record is malformed_record, not a crash")
    func deeplyNestedRecord() throws {
        let dir = try TempDir()
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let text = """
            [{"id": "ok", "latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000},
             {"id": "deep", "latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000, "extra": \(deep)}]
            """
        let result = try ingest(try dir.file("deep.json", text))
        #expect(result.reasons == ["[1]": "malformed_record"])
        #expect(result.incidents.map(\.key) == ["ok"])
    }
}
