import AreaWatchCore
import AreaWatchQuery
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// Inputs a nightly job over app exports must survive (docs/RELIABILITY.md): each gives a clear
/// outcome — reject rows, or an `InputError` naming file and position — never a crash, never a
/// partial file kept. Large inputs are generated on the fly in a scratch folder.
///
/// `AREAWATCH_HOSTILE_LARGE=1` (`make hostile`) makes the single-line CSV 2 GiB instead of
/// 48 MiB, and the huge member name, leading blanks and NDJSON line 1 GiB instead of 40 MiB;
/// their peak memory is measured through the built CLI either way.
@Suite("Hostile inputs")
struct HostileInputTests {
    private let post = #"{"latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000}"#

    /// The outcome of ingesting one file: its reject reasons by locator, or its input error.
    private func outcome(_ path: String, options: IngestOptions = IngestOptions()) throws -> Result<
        IngestResult, InputError
    > {
        do {
            return .success(try ingest(path, options: options))
        } catch let error as InputError {
            return .failure(error)
        }
    }

    /// An input error is one line naming the file (and a position unless the whole file is meant).
    private func expectInputError(
        _ path: String, options: IngestOptions = IngestOptions(), position: Bool = true,
        mentioning words: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error = inputError(path, options: options, sourceLocation: sourceLocation) else { return }
        #expect(error.file == path, sourceLocation: sourceLocation)
        #expect(!error.description.contains("\n"), "one line: \(error)", sourceLocation: sourceLocation)
        if position { #expect(!error.position.isEmpty, "a position: \(error)", sourceLocation: sourceLocation) }
        for word in words {
            #expect(
                error.message.lowercased().contains(word.lowercased()), "«\(error)» mentions \(word)",
                sourceLocation: sourceLocation)
        }
    }

    // MARK: Truncation

    @Test("JSON cut at every byte: an input error with a position, never records of half a file")
    func truncatedEverywhere() throws {
        let dir = try TempDir()
        let documents = [
            "watchme.json":
                #"{"users": {"u1": {"name": "A"}}, "posts": {"p1": \#(post), "p2": {"latitude": "53.8", "longitude": "-1.9", "timestamp": "2018-07-01T10:00:00Z"}}, "timeline": {"u1": {"p1": \#(post)}}}"#,
            "array.json": "[\(post),\n \(post),\n 7]",
            "features.geojson":
                #"{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [-1.8, 53.7]}, "properties": {"time": 1530000000}}]}"#,
            // Features before type, one feature a line: the lines after the first look like NDJSON.
            "features-first.geojson": "{\"features\": [\n"
                + #"{"type": "Feature", "id": "f1", "geometry": {"type": "Point", "coordinates": [-1.8, 53.7]}, "properties": {"time": 1530000000}},"#
                + "\n"
                + #"{"type": "Feature", "id": "f2", "geometry": {"type": "Point", "coordinates": [-1.9, 53.8]}, "properties": {"time": 1530000000}}"#
                + "\n], \"type\": \"FeatureCollection\"}",
            "id-map.json": "{\"a\": \(post),\n\"b\": \(post)}",
            "single.json": post
        ]
        for (name, text) in documents.sorted(by: { $0.key < $1.key }) {
            let bytes = Array(text.utf8)
            let whole = try ingest(try dir.file(name, bytes: bytes))
            #expect(whole.report.records > 0, "\(name) whole")
            for cut in 1..<bytes.count {
                let prefix = Array(bytes[..<cut])
                if prefix.allSatisfy({ $0 == 32 || $0 == 10 }) { continue }
                let path = try dir.file("cut-\(cut)-" + name, bytes: prefix)
                switch try outcome(path) {
                case .failure(let error):
                    #expect(
                        error.file == path && !error.position.isEmpty && !error.description.contains("\n"),
                        "\(name) cut at \(cut): \(error)")
                case .success(let result):
                    Issue.record(
                        "\(name) cut at \(cut) bytes was read as \(result.report.format) with \(result.report.records) records: «\(String(decoding: prefix.suffix(40), as: UTF8.self))»"
                    )
                }
                unlink(path)
            }
        }
    }

    @Test("NDJSON cut at every byte of its last line: an input error, also inside a number (53.|)")
    func truncatedNDJSON() throws {
        let dir = try TempDir()
        let last = #"{"id": "n2", "latitude": -53.7e+1, "longitude": -1.8, "timestamp": 1530000000}"#
        let head = #"{"id": "n1", "latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000}"# + "\n"
        for cut in 1..<last.utf8.count {
            let path = try dir.file("cut-\(cut).ndjson", bytes: Array(head.utf8) + Array(last.utf8.prefix(cut)))
            guard let error = inputError(path) else { continue }
            #expect(error.position == "line 2" && error.message.contains("truncated"), "cut at \(cut): \(error)")
        }
    }

    // MARK: Depth

    @Test("JSON nested 100,000 levels: as the document, as posts, inside one record, on an NDJSON line")
    func deepNesting() throws {
        let dir = try TempDir()
        let depth = 100_000
        let deepArray = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let deepObject = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)

        // The whole document: an array whose one element is 99,999 levels deep.
        let whole = try ingest(try dir.file("whole.json", deepArray))
        #expect(whole.report.records == 1 && whole.reasons == ["[0]": "malformed_record"])
        // An object document 100,000 deep: an id → post map whose member "a" is too deep.
        let object = try ingest(try dir.file("object.json", deepObject))
        #expect(object.report.records == 1 && object.reasons == ["a": "malformed_record"])
        // As the value of posts: the map's one post is too deep; then as an array of one.
        let posts = try ingest(try dir.file("posts.json", #"{"posts": "# + deepObject + "}"))
        #expect(posts.report.format == "json/watchme-export" && posts.reasons == ["posts.a": "malformed_record"])
        let postsArray = try ingest(try dir.file("posts-array.json", #"{"posts": "# + deepArray + "}"))
        #expect(postsArray.reasons == ["posts[0]": "malformed_record"])
        // Inside one record, beside valid fields; the record after it is read.
        let inside = try ingest(
            try dir.file(
                "inside.json",
                "[" + post.dropLast() + #", "extra": "# + deepArray + "}, " + post + "]"))
        #expect(inside.reasons == ["[0]": "malformed_record"] && inside.report.accepted == 1)
        // Skipped members (timeline) of any depth cost nothing.
        let skipped = try ingest(
            try dir.file("skipped.json", #"{"timeline": "# + deepObject + #", "posts": {"p": "# + post + "}}"))
        #expect(skipped.report.records == 1 && skipped.report.accepted == 1)
        // An NDJSON line.
        let ndjson = try ingest(try dir.file("deep.ndjson", post + "\n" + deepObject + "\n" + post + "\n"))
        #expect(ndjson.reasons == ["2": "malformed_record"] && ndjson.report.accepted == 2)
        // 1,000,000 levels (2 MB) is over 1 MiB as well: still one malformed record.
        let huge = try ingest(
            try dir.file(
                "huge.json", String(repeating: "[", count: 1_000_000) + String(repeating: "]", count: 1_000_000)))
        #expect(huge.reasons == ["[0]": "malformed_record"])
    }

    @Test("--max-json-depth is honoured: a deep record is kept when the limit allows it")
    func maxJSONDepth() throws {
        let dir = try TempDir()
        // The record object is level 1, "extra" holds 5 more levels: depth 6.
        let record = post.dropLast() + #", "extra": [[[[[1]]]]]}"#
        let path = try dir.file("depth.json", "[" + record + "]")
        var options = IngestOptions.recordLevel
        for (limit, accepted) in [(5, false), (6, true), (64, true)] {
            options.reader.maxJSONDepth = limit
            let result = try ingest(path, options: options)
            #expect(result.report.accepted == (accepted ? 1 : 0), "limit \(limit)")
            #expect(result.reasons == (accepted ? [:] : ["[0]": "malformed_record"]), "limit \(limit)")
        }
        // 100,000 levels with a limit above them: parsed without recursion, kept as an attribute.
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        options.reader.maxJSONDepth = 100_001
        let kept = try ingest(
            try dir.file("deep.json", "[" + post.dropLast() + #", "extra": "# + deep + "}]"), options: options)
        #expect(kept.report.accepted == 1)
        #expect(kept.incidents.first?.attributes?.count == 100_000 * 2 + #"{"extra":""}"#.count)
    }

    // MARK: Size

    @Test("--max-record-bytes is honoured for CSV, JSON arrays and maps, NDJSON")
    func maxRecordBytes() throws {
        let dir = try TempDir()
        let filler = String(repeating: "x", count: 2000)
        let csv = try dir.file(
            "wide.csv",
            "id,latitude,longitude,timestamp,d\nbig,53.7,-1.8,1530000000,\(filler)\nsmall,53.7,-1.8,1530000000,y\n")
        let bigPost = post.dropLast() + #", "d": "\#(filler)"}"#
        let array = try dir.file("wide.json", "[\(bigPost), \(post)]")
        let map = try dir.file("map.json", #"{"posts": {"big": \#(bigPost), "small": \#(post)}}"#)
        let ndjson = try dir.file("wide.ndjson", "\(bigPost)\n\(post)\n")
        var options = IngestOptions()
        for (limit, bigKept) in [(1000, false), (3000, true)] {
            options.reader.maxRecordBytes = limit
            for (path, locator) in [(csv, "2"), (array, "[0]"), (map, "posts.big"), (ndjson, "1")] {
                let result = try ingest(path, options: options)
                #expect(result.report.records == 2, "\(path) limit \(limit)")
                #expect(result.report.accepted == (bigKept ? 2 : 1), "\(path) limit \(limit)")
                #expect(result.reasons == (bigKept ? [:] : [locator: "malformed_record"]), "\(path) limit \(limit)")
            }
        }
    }

    @Test("a CSV with 10,000 columns: attributes kept, a short row malformed, time linear")
    func tenThousandColumns() throws {
        let dir = try TempDir()
        let columns = 10_000
        let header = (["id", "latitude", "longitude", "timestamp"] + (4..<columns).map { "c\($0)" }).joined(
            separator: ",")
        func row(_ id: String, fields: Int) -> String {
            ([id, "53.7", "-1.8", "1530000000"] + (4..<fields).map { "v\($0)" }).joined(separator: ",")
        }
        var text = header + "\n"
        for i in 0..<20 { text += row("r\(i)", fields: columns) + "\n" }
        text += row("short", fields: columns - 1) + "\n"
        let started = Date()
        let result = try ingest(try dir.file("wide.csv", text))
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(result.report.records == 21 && result.report.accepted == 20)
        #expect(result.reasons == ["22": "malformed_record"])
        let attributes = try #require(result.incidents.first?.attributes)
        let parsed = try JSONSerialization.jsonObject(with: Data(attributes.utf8)) as? [String: String]
        #expect(parsed?.count == columns - 4 && parsed?["c9999"] == "v9999")

        // The same record as JSON with 10,000 members.
        var members = ["\"id\": \"j\"", "\"latitude\": 53.7", "\"longitude\": -1.8", "\"timestamp\": 1530000000"]
        members += (4..<columns).map { "\"c\($0)\": \"v\($0)\"" }
        let json = try ingest(try dir.file("wide.json", "[{" + members.joined(separator: ", ") + "}]"))
        #expect(json.report.accepted == 1 && json.incidents.first?.attributes == attributes)
    }

    /// The single-line CSV: one record of `size` bytes between two good ones, ingested through the
    /// built CLI under `/usr/bin/time -v`. The line is malformed_record and peak memory stays low.
    @Test(
        "a single CSV line of 48 MiB (2 GiB with AREAWATCH_HOSTILE_LARGE=1): malformed_record, bounded memory",
        .enabled(if: CLI.binary != nil, "the areawatch binary is not built beside the tests"),
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "/usr/bin/time (package time) is missing"
        ))
    func hugeCSVLine() throws {
        let size: Int64 = ProcessInfo.processInfo.environment["AREAWATCH_HOSTILE_LARGE"] == "1" ? 2 << 30 : 48 << 20
        let dir = try TempDir()
        let path = dir.path + "/one-line.csv"
        try LargeFile.write(path) { out in
            try out(
                Array(
                    "id,latitude,longitude,timestamp,description\nbefore,53.7,-1.8,1530000000,ok\nhuge,53.7,-1.8,1530000000,"
                        .utf8))
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
            var written: Int64 = 0
            while written < size {
                let n = Int(min(Int64(chunk.count), size - written))
                try out(Array(chunk[..<n]))
                written += Int64(n)
            }
            try out(Array("\nafter,53.8,-1.9,1530000001,ok\n".utf8))
        }
        let run = try CLI.run(["ingest", path, "--db", dir.path + "/s.db", "--quiet"], measure: true)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("records") && run.stdout.contains("malformed_record=1"), "\(run.stdout)")
        let rejects = try String(contentsOfFile: dir.path + "/s-rejects.csv", encoding: .utf8)
        #expect(rejects.contains(",3,,malformed_record,"), "\(rejects.prefix(300))")
        let stats = try CLI.run(["stats", "--db", dir.path + "/s.db", "--json"])
        #expect(stats.stdout.contains("\"incidents\": 2"), "\(stats.stdout.prefix(200))")
        let peak = try #require(run.peakRSSKiB, "no peak RSS in: \(run.stderr.suffix(500))")
        print("peak RSS of ingesting a \(size >> 20) MiB single-line CSV: \(peak / 1024) MiB")
        #expect(peak < 200 * 1024, "peak RSS \(peak / 1024) MiB")
    }

    @Test("a member name over the record limit: its post is malformed_record, a top-level one is skipped")
    func hugeMemberNames() throws {
        let dir = try TempDir()
        var options = IngestOptions.recordLevel
        options.reader.maxRecordBytes = 1000
        let long = String(repeating: "k", count: 5000)
        let posts = try ingest(
            try dir.file("posts.json", #"{"posts": {"\#(long)": \#(post), "p2": \#(post)}}"#), options: options)
        #expect(posts.report.records == 2 && posts.report.accepted == 1)
        #expect(posts.rejects.map(\.reason) == ["malformed_record"])
        #expect(posts.rejects.first?.record == "posts." + String(repeating: "k", count: 64) + "…")
        #expect(posts.incidents.map(\.key) == ["p2"])
        // An escaped name is measured as written; a bare id map the same.
        let escaped = String(repeating: #"\u006b"#, count: 200)
        let map = try ingest(try dir.file("map.json", #"{"\#(escaped)": \#(post), "p2": \#(post)}"#), options: options)
        #expect(map.report.records == 2 && map.incidents.map(\.key) == ["p2"])
        // The locator shows a true prefix of the name: nothing after an escape that did not fit.
        options.reader.maxRecordBytes = 10
        let cut = try ingest(
            try dir.file("cut.json", #"{"posts": {"abcde\u0041fghijkl": 1, "p": \#(post)}}"#), options: options)
        #expect(cut.rejects.map(\.record) == ["posts.abcde…", "posts.p"])
        // At the top level a long name is none of posts, type or a coordinate: skipped.
        let top = try ingest(
            try dir.file("top.json", #"{"\#(String(repeating: "x", count: 2 << 20))": 1, "posts": {"p": \#(post)}}"#))
        #expect(top.report.format == "json/watchme-export" && top.incidents.map(\.key) == ["p"])
    }

    @Test("whitespace before the first byte: skipped in bounded memory, line numbers kept")
    func leadingWhitespace() throws {
        let dir = try TempDir()
        // Blank lines (spaces, CR) before a CSV header: the header is the first line with text,
        // its delimiter detected there, and rejects keep the file's own line numbers.
        let csv = try ingest(
            try dir.file(
                "lead.csv",
                "\n  \r\n\t\n\nid;latitude;longitude;timestamp\na;53.7;-1.8;1530000000\nb;;-1.8;1530000000\n"))
        #expect(csv.report.accepted == 1 && csv.reasons == ["7": "missing_coordinates"])
        // Blanks before the header's first name on its own line stay part of it (trimmed).
        let indented = try ingest(
            try dir.file("indent.csv", "\n   latitude,longitude,timestamp\n53.7,-1.8,1530000000\n"))
        #expect(indented.report.accepted == 1)
        // NDJSON and JSON documents after blank lines: lines and columns count them.
        let ndjson = try ingest(try dir.file("lead.ndjson", "\n\n \(post)\n{\"latitude\": 1, \"longitude\": 1}\n"))
        #expect(ndjson.reasons == ["4": "missing_time"])
        #expect(inputError(try dir.file("lead.json", "\n\n  [\(post)]\n ]"))?.position == "line 4, column 2")
        #expect(
            inputError(
                try dir.file("text.json", "\n\n  hello"),
                options: {
                    var o = IngestOptions()
                    o.reader.format = .json
                    return o
                }())?.position == "line 3")
        // More blanks than a record may hold before a CSV header: not a readable header.
        var small = IngestOptions()
        small.reader.maxRecordBytes = 100
        expectInputError(
            try dir.file("wide.csv", String(repeating: " ", count: 500) + "latitude,longitude\n1,1\n"), options: small,
            mentioning: ["not a readable CSV header"])
        let json = try ingest(
            try dir.file("wide.json", String(repeating: " ", count: 500) + "[\(post)]"), options: small)
        #expect(json.report.accepted == 1)
    }

    /// Inputs whose size is all in one place — one line, one member name, leading blanks — are
    /// ingested through the CLI in memory that does not grow with them.
    @Test(
        "bounded memory through the CLI: a huge member name, leading blanks, a huge NDJSON line",
        .enabled(if: CLI.binary != nil, "the areawatch binary is not built beside the tests"),
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "/usr/bin/time (package time) is missing"
        ))
    func boundedMemory() throws {
        let large = ProcessInfo.processInfo.environment["AREAWATCH_HOSTILE_LARGE"] == "1"
        let size = large ? 1 << 30 : 40 << 20
        let dir = try TempDir()
        let cases: [(String, [UInt8], [UInt8], [UInt8], String)] = [
            (
                "name.json", Array(#"{"posts": {""#.utf8), [UInt8(ascii: "k")],
                Array(#"": \#(post), "p2": \#(post)}}"#.utf8), "malformed_record=1"
            ),
            ("blank.json", [], [32], Array("\n[\(post)]".utf8), "json/array"),
            ("blank.csv", [], [10], Array("latitude,longitude,timestamp\n53.7,-1.8,1530000000\n".utf8), "csv"),
            (
                "line.ndjson", Array((post + "\n" + #"{"d": ""#).utf8), [UInt8(ascii: "x")],
                Array(("\"}\n" + post + "\n").utf8), "malformed_record=1"
            )
        ]
        for (name, head, fill, tail, expected) in cases {
            let path = dir.path + "/" + name
            try LargeFile.write(path) { out in
                try out(head)
                let chunk = [UInt8](repeating: fill[0], count: 1 << 20)
                for _ in 0..<(size >> 20) { try out(chunk) }
                try out(tail)
            }
            let run = try CLI.run(["ingest", path, "--db", dir.path + "/\(name).db", "--quiet"], measure: true)
            #expect(
                run.status == 0 && run.stdout.contains(expected), "\(name): \(run.stdout) \(run.stderr.suffix(300))")
            let peak = try #require(run.peakRSSKiB)
            print("peak RSS of ingesting \(name) (\(size >> 20) MiB): \(peak / 1024) MiB")
            #expect(peak < 90 * 1024, "\(name): peak RSS \(peak / 1024) MiB for \(size >> 20) MiB of input")
            unlink(path)
        }
    }

    /// Records whose member names are all different and each nearly the record limit: the
    /// reader's cache of names seen must not keep them (it kept up to 256 names of any length:
    /// 189 MiB peak for this file of 118 MiB).
    @Test(
        "128 records with distinct member names of 950 kB each: bounded memory through the CLI",
        .enabled(if: CLI.binary != nil, "the areawatch binary is not built beside the tests"),
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "/usr/bin/time (package time) is missing"
        ))
    func distinctHugeMemberNames() throws {
        let dir = try TempDir()
        let path = dir.path + "/names.ndjson"
        try LargeFile.write(path) { out in
            let fill = [UInt8](repeating: UInt8(ascii: "x"), count: 950_000)
            for i in 0..<128 {
                try out(Array("{\"n\(i)".utf8))
                try out(fill)
                try out(Array("\":1,\"timestamp\":1500000000}\n".utf8))
            }
            try out(Array("{\"latitude\":53.8,\"longitude\":-1.5,\"timestamp\":1500000000}\n".utf8))
        }
        let run = try CLI.run(["ingest", path, "--db", dir.path + "/names.db", "--quiet"], measure: true)
        #expect(
            run.status == 0 && run.stdout.contains("missing_coordinates=128"), "\(run.stdout) \(run.stderr.suffix(300))"
        )
        let peak = try #require(run.peakRSSKiB)
        print("peak RSS of ingesting 128 distinct 950 kB member names: \(peak / 1024) MiB")
        #expect(peak < 100 * 1024, "peak RSS \(peak / 1024) MiB")
        unlink(path)
    }

    // MARK: Bytes

    @Test("invalid UTF-8: an unreadable header is an input error; in records it is repaired, in values it is invalid")
    func invalidUTF8() throws {
        let dir = try TempDir()
        let header = try dir.file(
            "header.csv", bytes: Array("id,".utf8) + [0xC3, 0x28] + Array(",longitude,latitude,timestamp\n".utf8))
        expectInputError(header, mentioning: ["not a CSV or JSON"])
        // Latin-1 text in a description (0xE9 = é): the record is kept, the byte becomes U+FFFD.
        let latin1 =
            Array("id,latitude,longitude,timestamp,description\na,53.7,-1.8,1530000000,caf".utf8) + [0xE9]
            + Array("\n".utf8)
        let csv = try ingest(try dir.file("latin1.csv", bytes: latin1))
        #expect(csv.incidents.first?.description == "caf\u{FFFD}")
        let json = try ingest(
            try dir.file(
                "latin1.json",
                bytes: Array(
                    #"[{"latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000, "description": "caf"#.utf8) + [
                        0xE9
                    ] + Array(#"", "k"#.utf8) + [0xFF] + Array(#"": "v"}]"#.utf8)))
        #expect(json.incidents.first?.description == "caf\u{FFFD}")
        #expect(json.incidents.first?.attributes == "{\"k\u{FFFD}\":\"v\"}")
        // In a coordinate or a time, bytes that are not text are not numbers either.
        let values = try ingest(
            try dir.file(
                "values.csv",
                bytes: Array("id,latitude,longitude,timestamp\nlat,53.".utf8) + [0xFF]
                    + Array(",-1.8,1530000000\ntime,53.7,-1.8,2018-07-0".utf8) + [0xC0] + Array("\n".utf8)))
        #expect(values.reasons == ["2": "invalid_coordinates", "3": "invalid_time"])
        // A member name that is not UTF-8 in an id → post map: the id is repaired, the post kept.
        let map = try ingest(
            try dir.file("map.json", bytes: Array(#"{"p"#.utf8) + [0xFE] + Array(#"": \#(post)}"#.utf8)))
        #expect(map.incidents.map(\.key) == ["p\u{FFFD}"])
    }

    @Test(
        "NUL bytes: malformed_record in a CSV row, a JSON record and an NDJSON line; an input error between JSON tokens"
    )
    func nulBytes() throws {
        let dir = try TempDir()
        let csv = try ingest(
            try dir.file(
                "nul.csv",
                bytes: Array(
                    "id,latitude,longitude,timestamp\na,53.7,-1.8,1530000000\nb,53.7,-1.8,15300\u{0}00000\nc,53.7,-1.8,1530000000\n"
                        .utf8)))
        #expect(csv.reasons == ["3": "malformed_record"] && csv.report.accepted == 2)
        // A raw NUL inside a JSON string is not JSON; an escaped one is a character of the text.
        let raw = try ingest(
            try dir.file(
                "nul.json",
                bytes: Array(
                    "[{\"latitude\": 53.7, \"longitude\": -1.8, \"timestamp\": 1530000000, \"d\": \"a\u{0}b\"}, \(post)]"
                        .utf8)))
        #expect(raw.reasons == ["[0]": "malformed_record"] && raw.report.accepted == 1)
        let escaped = try ingest(
            try dir.file(
                "escaped.json",
                #"[{"latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000, "description": "a\u0000b"}]"#))
        #expect(escaped.incidents.first?.description == "a\u{0}b")
        let escapedCoordinate = try ingest(
            try dir.file(
                "coordinate.json", #"[{"latitude": "53.7\u0000", "longitude": -1.8, "timestamp": 1530000000}]"#))
        #expect(escapedCoordinate.reasons == ["[0]": "invalid_coordinates"])
        let ndjson = try ingest(
            try dir.file(
                "nul.ndjson",
                bytes: Array(
                    "\(post)\n{\"latitude\": 53.7,\u{0} \"longitude\": -1.8, \"timestamp\": 1}\n\(post)\n".utf8)))
        #expect(ndjson.reasons == ["2": "malformed_record"] && ndjson.report.accepted == 2)
        // Between the tokens of the document's structure: the file is not JSON.
        expectInputError(
            try dir.file("between.json", bytes: Array("{\"posts\": {}\u{0}}".utf8)), mentioning: ["expected"])
        // A file of NUL bytes only.
        expectInputError(
            try dir.file("zeros.csv", bytes: [UInt8](repeating: 0, count: 4096)), mentioning: ["not a CSV or JSON"])
    }

    // MARK: Values

    @Test("1e400, NaN, Infinity, -0 and 0x10 as coordinates, in CSV and in JSON")
    func hostileNumbers() throws {
        let dir = try TempDir()
        let csv = try ingest(
            try dir.file(
                "numbers.csv",
                """
                id,latitude,longitude,timestamp
                overflow,1e400,-1.8,1530000000
                nan,NaN,-1.8,1530000000
                inf,53.7,Infinity,1530000000
                hex,0x10,-1.8,1530000000
                underflow,1e-400,-1.8,1530000000
                negzero,-0,-0.0,1530000000
                negzerolat,-0,-1.8,1530000000
                bigtime,53.7,-1.8,1e400

                """))
        #expect(
            csv.reasons == [
                "2": "invalid_coordinates", "3": "invalid_coordinates", "4": "invalid_coordinates",
                "5": "invalid_coordinates", "7": "null_island", "9": "invalid_time"
            ])
        // 1e-400 underflows to 0: a valid latitude (not null island: the longitude is not 0).
        #expect(csv.incident("underflow")?.lat == 0)
        #expect(csv.incident("negzerolat").map { $0.lat == 0 && $0.lon == -1.8 } == true)

        let json = try ingest(
            try dir.file(
                "numbers.json",
                """
                [{"id": "overflow", "latitude": 1e400, "longitude": -1.8, "timestamp": 1530000000},
                 {"id": "nan-string", "latitude": "NaN", "longitude": -1.8, "timestamp": 1530000000},
                 {"id": "negzero", "latitude": -0, "longitude": -0.0, "timestamp": 1530000000},
                 {"id": "negzerolat", "latitude": -0, "longitude": -1.8, "timestamp": 1530000000},
                 {"id": "bigtime", "latitude": 53.7, "longitude": -1.8, "timestamp": -1e400}]
                """))
        #expect(
            json.reasons == [
                "[0]": "invalid_coordinates", "[1]": "invalid_coordinates", "[2]": "null_island", "[4]": "invalid_time"
            ])
        // NaN and Infinity are not JSON: the record is malformed, the file still read.
        let bare = try ingest(
            try dir.file(
                "bare.json",
                "[{\"latitude\": NaN, \"longitude\": -1.8, \"timestamp\": 1}, {\"latitude\": Infinity, \"longitude\": 1, \"timestamp\": 1}, \(post)]"
            ))
        #expect(bare.reasons == ["[0]": "malformed_record", "[1]": "malformed_record"] && bare.report.accepted == 1)
    }

    @Test("-0 and 0 are the same coordinate: same key, same content, no update when an export changes the sign")
    func negativeZero() throws {
        let dir = try TempDir()
        let minus = try dir.file(
            "minus.csv", "latitude,longitude,timestamp\n51.4779,-0,1530000000\n51.4779,-0.000,1530000000\n")
        let plus = try dir.file(
            "plus.csv", "latitude,longitude,timestamp\n51.4779,0,1530000000\n51.4779,0.0,1530000000\n")
        var table = IncidentColumnsBuilder()
        let first = try ingest(minus, into: &table)
        let second = try ingest(plus, into: &table)
        #expect(first.report.inserted == 2)
        #expect(
            second.report.inserted == 0 && second.report.updated == 0 && second.report.duplicates == 2,
            "the same places written with +0 are the same incidents")
        let a = try ingest(minus), b = try ingest(plus)
        #expect(a.incidents.map(\.key) == b.incidents.map(\.key))
        #expect(a.incidents.allSatisfy { $0.lon.sign == .plus })
    }

    @Test(
        "duplicate JSON keys: the first wins, the later one is kept as an attribute; duplicate posts ids are one incident"
    )
    func duplicateKeys() throws {
        let dir = try TempDir()
        let record = try ingest(
            try dir.file(
                "dup.json",
                #"[{"id": "d", "latitude": 53.7, "latitude": 10, "longitude": -1.8, "timestamp": 1530000000, "timestamp": 1}]"#
            ))
        let incident = try #require(record.incidents.first)
        #expect(incident.lat == 53.7 && incident.time == 1_530_000_000)
        #expect(incident.attributes == #"{"latitude":"10","timestamp":"1"}"#)
        // The same push id twice in posts: two records, one incident (the later content wins).
        var table = IncidentColumnsBuilder()
        let posts = try ingest(
            try dir.file(
                "posts.json",
                #"{"posts": {"p": \#(post), "p": {"latitude": 53.9, "longitude": -1.8, "timestamp": 1530000000}}}"#),
            into: &table)
        #expect(posts.report.records == 2 && posts.report.inserted == 1 && posts.report.updated == 1)
        #expect(table.columns.count == 1)
        // posts twice at the top level: both maps are read, in order.
        let twice = try ingest(
            try dir.file("twice.json", #"{"posts": {"a": \#(post)}, "users": {}, "posts": {"b": \#(post)}}"#))
        #expect(twice.incidents.map(\.key) == ["a", "b"])
    }

    // MARK: Shapes

    @Test("WatchMe posts as an array, as a scalar, with non-object posts")
    func postsShapes() throws {
        let dir = try TempDir()
        let array = try ingest(
            try dir.file("array.json", #"{"posts": [\#(post), null, 3, "x", [], \#(post)], "users": {}}"#))
        #expect(array.report.format == "json/watchme-export" && array.report.accepted == 2)
        #expect(
            array.reasons == [
                "posts[1]": "malformed_record", "posts[2]": "malformed_record",
                "posts[3]": "malformed_record", "posts[4]": "malformed_record"
            ])
        for scalar in ["\"posts\"", "42", "true"] {
            expectInputError(try dir.file("scalar.json", #"{"posts": \#(scalar)}"#), mentioning: ["posts"])
        }
    }

    @Test("GeoJSON features that are not Points: invalid_coordinates; a null geometry: missing_coordinates")
    func nonPointFeatures() throws {
        let dir = try TempDir()
        func feature(_ geometry: String) -> String {
            #"{"type": "Feature", "geometry": \#(geometry), "properties": {"time": 1530000000}}"#
        }
        let geometries = [
            #"{"type": "Point", "coordinates": [-1.8, 53.7]}"#,
            #"{"type": "Point", "coordinates": [-1.8, 53.7, 120.5]}"#,
            #"{"type": "LineString", "coordinates": [[-1.8, 53.7], [-1.9, 53.8]]}"#,
            #"{"type": "Polygon", "coordinates": [[[-1.8, 53.7], [-1.9, 53.8], [-1.7, 53.8], [-1.8, 53.7]]]}"#,
            #"{"type": "MultiPoint", "coordinates": [[-1.8, 53.7]]}"#,
            #"{"type": "GeometryCollection", "geometries": [{"type": "Point", "coordinates": [-1.8, 53.7]}]}"#,
            #"{"coordinates": [-1.8, 53.7]}"#,
            #""POINT (-1.8 53.7)""#,
            "null",
            #"{"type": "Point", "coordinates": [-1.8]}"#,
            #"{"type": "Point", "coordinates": []}"#
        ]
        let text =
            #"{"type": "FeatureCollection", "features": ["# + geometries.map(feature).joined(separator: ",\n") + "]}"
        let result = try ingest(try dir.file("mixed.geojson", text))
        #expect(result.report.accepted == 2)
        #expect(
            result.reasons == [
                "features[2]": "invalid_coordinates", "features[3]": "invalid_coordinates",
                "features[4]": "invalid_coordinates", "features[5]": "invalid_coordinates",
                "features[6]": "invalid_coordinates", "features[7]": "invalid_coordinates",
                "features[8]": "missing_coordinates", "features[9]": "invalid_coordinates",
                "features[10]": "missing_coordinates"
            ])
        expectInputError(
            try dir.file("object.geojson", #"{"type": "FeatureCollection", "features": {"a": 1}}"#),
            mentioning: ["features"])
    }

    // MARK: Files

    @Test("empty files, a directory, a FIFO, a read error: input errors naming the file")
    func unusableFiles() throws {
        let dir = try TempDir()
        for (name, bytes) in [
            ("empty.json", [UInt8]()), ("spaces.csv", Array("   \n\t\r\n".utf8)),
            ("empty.csv.gz", StoredGzip.member([]))
        ] {
            expectInputError(try dir.file(name, bytes: bytes), position: false, mentioning: ["empty"])
        }
        let folder = dir.path + "/folder.csv"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        expectInputError(folder, position: false, mentioning: ["directory"])
        // Root reads mode-000 files, so unreadability is shown with a FIFO (opening one for reading
        // used to wait forever for a writer) and with a regular file whose read fails
        // (/proc/self/mem at offset 0).
        let fifo = dir.path + "/pipe.csv"
        #expect(mkfifo(fifo, 0o600) == 0)
        expectInputError(fifo, position: false, mentioning: ["not a regular file"])
        if FileManager.default.fileExists(atPath: "/proc/self/mem") {
            expectInputError("/proc/self/mem", position: true, mentioning: ["error"])
        }
    }

    @Test("a .gz that is not gzip, is cut short, or is a gzip bomb of one line: an input error or one malformed record")
    func badGzip() throws {
        let dir = try TempDir()
        expectInputError(try dir.file("text.csv.gz", "latitude,longitude,timestamp\n1,1,1\n"), mentioning: ["gzip"])
        let member = StoredGzip.member(Array("latitude,longitude,timestamp\n53.7,-1.8,1530000000\n".utf8))
        for cut in [1, 5, 10, 20, member.count - 9, member.count - 1] {
            expectInputError(try dir.file("cut-\(cut).csv.gz", bytes: Array(member.prefix(cut))), mentioning: ["gzip"])
        }
        // 40 MiB of one line, compressed by zlib to a few kB: read in bounded memory, one reject.
        let csv = try dir.file("bomb.csv", "")
        try LargeFile.write(csv) { out in
            try out(Array("latitude,longitude,timestamp,d\n53.7,-1.8,1530000000,".utf8))
            for _ in 0..<40 { try out([UInt8](repeating: 0x41, count: 1 << 20)) }
            try out(Array("\n53.7,-1.8,1530000000,ok\n".utf8))
        }
        let gz = try LargeFile.gzip(csv)
        let result = try ingest(gz)
        #expect(
            result.report.format == "csv+gzip" && result.reasons == ["2": "malformed_record"]
                && result.report.accepted == 1)
    }

    @Test(
        "a gzip of blank lines: read at one compare a byte with the lines counted, a linear cost; over 1000× it is refused"
    )
    func gzipOfBlankLines() throws {
        let dir = try TempDir()
        let mib = 1 << 20
        let lf = [UInt8](repeating: 10, count: mib), crlf = (0..<mib).map { UInt8($0 & 1 == 0 ? 13 : 10) }
        // Blank lines between two records; the last one is rejected, so its line number shows
        // that the skipped lines were counted. gzip -1 keeps these under the expansion limit.
        func blanks(_ name: String, head: String, tail: String, mebibytes: Int, crlfLines: Bool = false, level: Int = 1)
            throws -> String
        {
            let path = try dir.file(name, "")
            try LargeFile.write(path) { out in
                try out(Array(head.utf8))
                for _ in 0..<mebibytes { try out(crlfLines ? crlf : lf) }
                try out(Array(tail.utf8))
            }
            return try LargeFile.gzip(path, level: level)
        }
        let header = "latitude,longitude,timestamp\n53.7,-1.8,1530000000\n"
        func csvLines(_ n: Int, crlf: Bool = false) -> Int { crlf ? n * mib / 2 : n * mib }
        var seconds: [Int: Double] = [:]
        for n in [8, 32] {
            let gz = try blanks("csv-\(n).csv", head: header, tail: "91,-1.8,1530000000\n", mebibytes: n)
            let clock = ContinuousClock()
            var best = Duration.seconds(1000)
            for _ in 0..<2 {
                let start = clock.now
                let result = try ingest(gz)
                best = min(best, clock.now - start)
                #expect(
                    result.report.accepted == 1 && result.reasons == ["\(csvLines(n) + 3)": "invalid_coordinates"],
                    "\(n) MiB: \(result.reasons)")
            }
            seconds[n] = Double(best.components.seconds) + Double(best.components.attoseconds) * 1e-18
        }
        // Four times the bytes, about four times the time (a per-line cost that grew with the
        // lines before it would be 16×); generous for a shared machine.
        #expect(seconds[32]! < 10 * seconds[8]! + 0.05, "8 MiB: \(seconds[8]!) s, 32 MiB: \(seconds[32]!) s")

        let crlfCSV = try blanks(
            "crlf.csv", head: header, tail: "91,-1.8,1530000000\r\n", mebibytes: 4, crlfLines: true)
        #expect(try ingest(crlfCSV).reasons == ["\(csvLines(4, crlf: true) + 3)": "invalid_coordinates"])
        let post = #"{"latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000}"#
        for crlfLines in [false, true] {
            let ndjson = try blanks(
                "lines-\(crlfLines).json", head: post + "\n" + post + "\n", tail: "[]\n", mebibytes: 4,
                crlfLines: crlfLines)
            let result = try ingest(ndjson)
            #expect(
                result.report.accepted == 2
                    && result.reasons == ["\(csvLines(4, crlf: crlfLines) + 3)": "malformed_record"],
                "\(result.reasons)")
        }

        // 72 MiB of blank lines at gzip -9 (~1000:1): refused once past the first 64 MiB, naming
        // the file and the decompressed offset.
        for (name, head) in [("bomb.csv", header), ("bomb.json", post + "\n" + post + "\n"), ("bomb-only.csv", "")] {
            let bomb = try blanks(name, head: head, tail: "", mebibytes: 72, level: 9)
            let error = try #require(inputError(bomb), "\(name) is refused")
            #expect(error.file == bomb && error.position.hasPrefix("decompressed byte "), "\(error)")
            let offset = try #require(Int64(error.position.dropFirst("decompressed byte ".count)))
            #expect(offset > GzipExpansion.graceBytes && offset < GzipExpansion.graceBytes + 8 * Int64(mib), "\(error)")
            #expect(error.message.contains("1000 times") && error.message.contains("decompression bomb"), "\(error)")
        }
    }

    @Test(
        "the expansion limit: over 1000× past the grace is refused, also after other members; under the grace all is read"
    )
    func gzipExpansionLimit() throws {
        let dir = try TempDir()
        let plain = try dir.file("runs.csv", bytes: [UInt8](repeating: 10, count: 8 << 20))
        let dense = Array(try Data(contentsOf: URL(fileURLWithPath: try LargeFile.gzip(plain, level: 9))))
        try #require(dense.count * 1010 < 8 << 20, "gzip -9 of one repeated byte is over 1000:1 (\(dense.count) bytes)")
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        func drain(_ source: ByteSource) throws(InputError) -> Int {
            var total = 0
            while true {
                let n = try buffer.withUnsafeMutableBufferPointer { (b) throws(InputError) -> Int in
                    try source.read(into: b.baseAddress!, capacity: b.count)
                }
                if n == 0 { return total }
                total += n
            }
        }
        #expect(try drain(ByteSource(bytes: dense, name: "d.gz")) == 8 << 20)
        // A stored member first (ratio below 1) does not buy the dense one a pass.
        let stored = StoredGzip.member([UInt8](repeating: 65, count: 10))
        for bytes in [dense, stored + dense] {
            do {
                _ = try drain(ByteSource(bytes: bytes, name: "d.gz", gzipGraceBytes: 1 << 20))
                Issue.record("expected the expansion limit to refuse \(bytes.count) bytes")
            } catch {
                #expect(
                    error.file == "d.gz" && error.position.hasPrefix("decompressed byte ")
                        && error.message.contains("bomb"), "\(error)")
            }
        }
        #expect(try drain(ByteSource(bytes: stored + stored, name: "s.gz", gzipGraceBytes: 0)) == 20)
    }

    // MARK: End to end

    @Test(
        "through the CLI: hostile files beside a good one give exit 2, one line each, and only the good file stored",
        .enabled(if: CLI.binary != nil, "the areawatch binary is not built beside the tests"))
    func cliKeepsNothingOfABadFile() throws {
        let dir = try TempDir()
        let good = try dir.file("good.csv", "id,lat,lon,time\ng1,53.7,-1.8,1530000000\ng2,53.8,-1.9,1530000001\n")
        let truncated = try dir.file("truncated.json", #"{"posts": {"a": \#(post), "b": \#(post), "c": {"latitude": 5"#)
        let notGzip = try dir.file("plain.csv.gz", "latitude,longitude,timestamp\n1,1,1\n")
        let empty = try dir.file("empty.csv", "")
        let fifo = dir.path + "/pipe.json"
        mkfifo(fifo, 0o600)
        let db = dir.path + "/s.db"
        let run = try CLI.run(["ingest", truncated, good, notGzip, empty, fifo, "--db", db, "--quiet"])
        #expect(run.status == 2, "exit status: \(run.status)")
        let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("areawatch:") || $0.contains(": ") }
        for bad in [truncated, notGzip, empty, fifo] {
            #expect(errors.contains { $0.contains(bad) }, "stderr names \(bad): \(run.stderr)")
        }
        let stats = try CLI.run(["stats", "--db", db, "--json"])
        #expect(stats.stdout.contains("\"incidents\": 2"), "only the good file is kept: \(stats.stdout.prefix(300))")
        // Ingesting again with --max-json-depth and --max-record-bytes from the command line.
        let deep = try dir.file("deep.json", "[" + post.dropLast() + #", "extra": [[[[1]]]]}]"#)
        let strict = try CLI.run([
            "ingest", deep, "--db", db, "--quiet", "--max-json-depth", "3", "--rejects", dir.path + "/r1.csv"
        ])
        // Its one record rejected, the file is an input error (SPEC §2.5): exit 2, nothing kept.
        #expect(
            strict.status == 2 && strict.stderr.contains("every record was rejected (1 records): malformed_record 1"),
            "\(strict.stderr)")
        let lenient = try CLI.run([
            "ingest", deep, "--db", db, "--quiet", "--max-json-depth", "5", "--force", "--rejects", dir.path + "/r2.csv"
        ])
        #expect(lenient.status == 0 && !lenient.stdout.contains("malformed_record"), "\(lenient.stdout)")
        let small = try CLI.run([
            "ingest", good, "--db", db, "--quiet", "--max-record-bytes", "20", "--force", "--rejects",
            dir.path + "/r3.csv"
        ])
        #expect(
            small.status == 2 && small.stderr.contains("every record was rejected (2 records): malformed_record 2"),
            "\(small.stderr)")
    }
}

/// Ingests one file into a given table (key semantics across files).
private func ingest(_ path: String, into table: inout IncidentColumnsBuilder) throws -> IngestResult {
    try ingest(path, options: IngestOptions(), into: &table)
}

/// Large files written in chunks, and gzip through zlib's own tool-free API.
enum LargeFile {
    static func write(_ path: String, _ body: ((([UInt8]) throws -> Void)) throws -> Void) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try body { bytes in try handle.write(contentsOf: bytes) }
    }

    /// `path.gz`, compressed with the system's gzip at `level` (1 fastest … 9 smallest).
    static func gzip(_ path: String, level: Int = 1) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "gzip -c -\(level) \"$0\" > \"$0.gz\"", path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "gzip failed")
        return path + ".gz"
    }
}

/// The `areawatch` binary built beside the test bundle.
enum CLI {
    static let binary: String? = {
        guard let products = Bundle.module.bundleURL.deletingLastPathComponent().path.removingPercentEncoding else {
            return nil
        }
        for candidate in [products + "/areawatch", products + "/../debug/areawatch"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return nil
    }()

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
        /// `Maximum resident set size` of `/usr/bin/time -v`, in KiB.
        var peakRSSKiB: Int?
    }

    static func run(_ arguments: [String], measure: Bool = false) throws -> Run {
        let binary = try #require(binary)
        let process = Process()
        if measure {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
            process.arguments = ["-v", binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
        }
        // Output goes to files: no pipe can fill up and block the child.
        let scratch = try TempDir()
        guard FileManager.default.createFile(atPath: scratch.path + "/out", contents: nil),
            FileManager.default.createFile(atPath: scratch.path + "/err", contents: nil)
        else { throw CocoaError(.fileWriteUnknown) }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path + "/out"))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path + "/err"))
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        let stdoutData = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/out"))
        let stderrData = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/err"))
        let stderr = String(decoding: stderrData, as: UTF8.self)
        var peak: Int?
        if measure, let line = stderr.split(separator: "\n").first(where: { $0.contains("Maximum resident set size") })
        {
            peak = Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "")
        }
        return Run(
            status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self), stderr: stderr,
            peakRSSKiB: peak)
    }
}
