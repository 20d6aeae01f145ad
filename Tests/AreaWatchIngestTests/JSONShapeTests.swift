import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// SPEC §2.1: every JSON input shape, detected from content.
@Suite("JSON input shapes")
struct JSONShapeTests {
    @Test("WatchMe whole-database export: only posts are read, not the timeline or users-posts copies")
    func wholeExport() throws {
        let result = try ingest(try fixture("watchme-whole.json"))
        #expect(result.report.format == "json/watchme-export")
        #expect(
            result.report.records == 4, "4 posts; the 5 fan-out copies and users-follow coordinates are not records")
        #expect(result.report.accepted == 2)
        #expect(result.incidents.map(\.key) == ["-Lpost0000000000001", "-Lpost0000000000002"])
        let first = try #require(result.incident("-Lpost0000000000001"))
        #expect(first.time == 1_530_000_000 && first.precision == .second)
        #expect(first.lat == 53.7248 && first.lon == -1.8658)
        #expect(first.handled == false)
        #expect(first.description == nil, "an empty description is absent")
        #expect(first.user == "uid-a")
        #expect(first.attributes == nil, "every post member maps to a field")
        #expect(first.category == nil)
        let second = try #require(result.incident("-Lpost0000000000002"))
        #expect(second.lat == 53.72 && second.lon == -1.86, "numeric strings")
        #expect(second.handled == true)
        #expect(second.description == "followed home")
    }

    @Test("WatchMe export with posts after the other members")
    func postsLast() throws {
        let result = try ingest(try fixture("watchme-posts-last.json"))
        #expect(result.report.format == "json/watchme-export")
        #expect(result.report.records == 2)
        #expect(result.incidents.map(\.key) == ["-Lpost0000000000001", "-Lpost0000000000002"])
        #expect(result.rejects.isEmpty)
    }

    @Test("WatchMe export whose posts node is null or empty has no records")
    func emptyPosts() throws {
        let dir = try TempDir()
        for text in [
            #"{"users": {"u": {"name": "x"}}, "posts": null}"#, #"{"posts": {}, "timeline": {}}"#, #"{"posts": []}"#
        ] {
            let result = try ingest(try dir.file("e.json", text))
            #expect(result.report.format == "json/watchme-export")
            #expect(result.report.records == 0)
        }
    }

    @Test("posts as an array")
    func postsArray() throws {
        let result = try ingest(try fixture("posts-array.json"))
        #expect(result.report.format == "json/watchme-export")
        #expect(result.incidents.map(\.key) == ["a1", "a3"])
        #expect(result.incident("a3")?.precision == .day)
        #expect(result.incident("a3")?.time == epoch(2018, 7, 1))
    }

    @Test("bare id → post map: the member name is the id")
    func idMap() throws {
        let result = try ingest(try fixture("id-map.json"))
        #expect(result.report.format == "json/id-map")
        #expect(result.report.records == 3)
        #expect(result.incidents.map(\.key) == ["-Kid00000000000001", "-Kid00000000000003"])
        #expect(result.incident("-Kid00000000000001")?.description == "one")
        #expect(result.incident("-Kid00000000000001")?.handled == true)
        // An `id` member inside the post does not replace the map's id; it is kept as an attribute.
        #expect(result.incident("-Kid00000000000003")?.attributes == #"{"id":"ignored-inner-id"}"#)
    }

    @Test("an empty or blank member name of an id → post map is no id: the post gets a derived key")
    func blankMemberNames() throws {
        let dir = try TempDir()
        let post = #"{"lat": 53.72, "lng": -1.86, "timestamp": 1530000000, "type": "theft"}"#
        let result = try ingest(try dir.file("blank-ids.json", #"{"": \#(post), "  ": \#(post), "k1": \#(post)}"#))
        #expect(result.report.format == "json/id-map")
        #expect(result.report.accepted == 3)
        let keys = result.incidents.map(\.key)
        #expect(keys.count == 3 && keys[2] == "k1")
        // The two id-less posts have the same content: ordinals 1 and 2 of one derived key.
        #expect(keys[0].hasPrefix("h:") && keys[0].hasSuffix(":1"), "\(keys)")
        #expect(keys[1] == keys[0].dropLast() + "2", "\(keys)")
    }

    @Test("JSON array of incident objects, with alias names")
    func array() throws {
        let result = try ingest(try fixture("array.json"))
        let e0 = try #require(result.incident("e0"))
        #expect(e0.lat == 53.7 && e0.lon == -1.8)
        #expect(e0.time == epoch(2018, 7, 1, 10))
        #expect(e0.category == "theft")
        let idless = try #require(result.incidents.last)
        #expect(idless.key.hasPrefix("h:") && idless.key.hasSuffix(":1"))
    }

    @Test("NDJSON: blank lines skipped, a bad middle line is malformed_record")
    func ndjson() throws {
        let result = try ingest(try fixture("incidents.ndjson"))
        #expect(result.report.format == "json/ndjson")
        #expect(result.report.records == 5, "3 good lines and 2 bad ones; blank lines are not records")
        #expect(result.incidents.map(\.key) == ["n1", "n5", "n8"])
        #expect(result.incident("n5")?.category == "Assault", "mci is a category name")
    }

    /// SPEC §2.2: in NDJSON a line that does not parse is malformed_record — the first line too.
    @Test("NDJSON whose first line does not parse: malformed_record, the other lines read")
    func ndjsonBadFirstLine() throws {
        let dir = try TempDir()
        let good = #"{"id": "n2", "latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000}"#
        for (name, first) in [
            ("syntax", #"{"id": "n1", "latitude": 53.7,, "longitude": -1.8}"#),
            ("unclosed", #"{"id": "n1", "latitude": 53.7"#),
            ("bad string", #"{"id": "n1", "latit"#)
        ] {
            let result = try ingest(try dir.file(name + ".ndjson", first + "\n\n" + good + "\n"))
            #expect(result.report.format == "json/ndjson", "\(name)")
            #expect(result.reasons == ["1": "malformed_record"], "\(name)")
            #expect(result.incidents.map(\.key) == ["n2"], "\(name)")
        }
        // One broken line alone is a truncated document, not NDJSON.
        #expect(inputError(try dir.file("alone.ndjson", #"{"id": "n1", "latitude": 53.7"# + "\n")) != nil)
    }

    @Test("NDJSON with CRLF line ends and a BOM")
    func ndjsonCRLF() throws {
        let dir = try TempDir()
        let line = #"{"id": "c1", "latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000}"#
        let text =
            "\u{FEFF}" + line + "\r\n\r\n" + line.replacingOccurrences(of: "c1", with: "c2") + "\r\n"
            + "not json\r\n" + line.replacingOccurrences(of: "c1", with: "c4") + "\r\n"
        let result = try ingest(try dir.file("crlf.ndjson", text))
        #expect(result.report.format == "json/ndjson")
        #expect(result.incidents.map(\.key) == ["c1", "c2", "c4"])
        #expect(result.reasons == ["4": "malformed_record"])
    }

    @Test("GeoJSON FeatureCollection: Point features, ids from the feature or its properties")
    func featureCollection() throws {
        let result = try ingest(try fixture("features.geojson"))
        #expect(result.report.format == "json/geojson")
        #expect(result.report.records == 8)
        #expect(result.report.accepted == 4)
        let f0 = try #require(result.incident("f-0"))
        #expect(f0.lat == 53.7248 && f0.lon == -1.8658, "GeoJSON positions are [lon, lat]")
        #expect(f0.category == "burglary")
        #expect(f0.attributes == #"{"ward":"Town"}"#)
        #expect(result.incident("from-properties")?.lat == 53.8)
        // A feature id wins over a properties id; properties latitude/longitude do not replace the geometry.
        let f4 = try #require(result.incident("4"))
        #expect(f4.lat == 53.85 && f4.lon == -1.95)
        #expect(result.incident("loses-to-feature-id") == nil)
        let idless = try #require(result.incidents.first { $0.key.hasPrefix("h:") })
        #expect(idless.lat == 53.86 && idless.lon == -1.96)
    }

    @Test("GeoJSON with features before type, and Point coordinates that are bad or missing")
    func featureCollectionOddities() throws {
        let dir = try TempDir()
        let text = """
            {"features": [
              {"type": "Feature", "id": "a", "geometry": {"type": "Point", "coordinates": [-1.8, 53.7]}, "properties": {"time": 1530000000}},
              {"type": "Feature", "id": "b", "geometry": {"type": "Point", "coordinates": []}, "properties": {"time": 1530000000}},
              {"type": "Feature", "id": "c", "geometry": {"type": "Point", "coordinates": [-1.8, 95]}, "properties": {"time": 1530000000}},
              {"type": "Feature", "id": "d", "geometry": {"type": "Point", "coordinates": ["x", "y"]}, "properties": {"time": 1530000000}},
              {"type": "Feature", "id": "e", "properties": {"time": 1530000000}},
              {"type": "Feature", "id": "f", "geometry": {"type": "Point", "coordinates": [-1.8, 53.7]}},
              "not a feature"
            ], "type": "FeatureCollection"}
            """
        let result = try ingest(try dir.file("late-type.json", text))
        #expect(result.report.format == "json/geojson")
        #expect(result.incidents.map(\.key) == ["a"])
        #expect(
            result.reasons == [
                "features[1]": "missing_coordinates", "features[2]": "invalid_coordinates",
                "features[3]": "invalid_coordinates", "features[4]": "missing_coordinates",
                "features[5]": "missing_time", "features[6]": "malformed_record"
            ])
    }

    @Test("a single top-level incident object")
    func singleObject() throws {
        let result = try ingest(try fixture("single.json"))
        #expect(result.report.format == "json/single-object")
        #expect(result.report.records == 1)
        let incident = try #require(result.incident("single-1"))
        #expect(incident.time == epoch(2018, 7, 1, 9), "10:00+01:00 is 09:00Z")
        #expect(incident.category == "robbery")
        #expect(incident.handled == true)
        #expect(incident.attributes == #"{"weather":"rain"}"#)
    }

    @Test("a top-level object without posts, type or coordinates is an id → post map")
    func objectShapeDecision() throws {
        let dir = try TempDir()
        // Only a longitude member: still one incident (and a missing_coordinates reject).
        let lonOnly = try ingest(try dir.file("lon.json", #"{"lng": -1.8, "time": 1530000000, "ref": "x"}"#))
        #expect(lonOnly.report.format == "json/single-object")
        #expect(lonOnly.report.records == 1)
        #expect(lonOnly.rejects.map(\.reason) == ["missing_coordinates"])
        // `type` that is not FeatureCollection does not make GeoJSON.
        let typed = try ingest(
            try dir.file("typed.json", #"{"type": "Feature", "k1": {"lat": 1, "lon": 2, "time": 1530000000}}"#))
        #expect(typed.report.format == "json/id-map")
        #expect(typed.reasons == ["type": "malformed_record"])
        #expect(typed.incidents.map(\.key) == ["k1"])
    }

    @Test("an empty array or object has no records and is not an error")
    func emptyContainers() throws {
        let dir = try TempDir()
        #expect(try ingest(try dir.file("a.json", "[]")).report.records == 0)
        #expect(try ingest(try dir.file("o.json", " {\n} ")).report.records == 0)
    }

    @Test("brackets, braces, commas and escaped quotes inside strings do not end a record")
    func structureInsideStrings() throws {
        let dir = try TempDir()
        let text = #"""
            {"posts": {
              "a": {"latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000, "description": "}]},{\"[ \\"},
              "b": {"latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000, "description": "line
            break"},
              "c": {"latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000, "description": "ok"}
            }}
            """#
        let result = try ingest(try dir.file("strings.json", text))
        #expect(result.incident("a")?.description == #"}]},{"[ \"#)
        // A raw newline inside a string is invalid JSON: that record only is malformed.
        #expect(result.reasons == ["posts.b": "malformed_record"])
        #expect(result.incident("c")?.description == "ok")
    }

    @Test("escaped member names and string values are decoded")
    func escapes() throws {
        let dir = try TempDir()
        let text =
            #"{"posts": {"p\u002d1": {"lat\u0069tude": 53.7, "longitude": -1.8, "timestamp": 1530000000, "description": "tab\there \"quoted\" \u00e9 \ud83d\udea8"}}}"#
        let result = try ingest(try dir.file("esc.json", text))
        let incident = try #require(result.incident("p-1"))
        #expect(incident.lat == 53.7)
        #expect(incident.description == "tab\there \"quoted\" é 🚨")
    }
}
