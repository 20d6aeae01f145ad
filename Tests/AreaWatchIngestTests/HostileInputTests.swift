import Foundation
import Testing
import AreaWatchCore
import AreaWatchQuery
@testable import AreaWatchIngest

/// Inputs a nightly job over app exports must survive (docs/RELIABILITY.md): each gives a clear
/// outcome — reject rows, or an `InputError` naming file and position — never a crash, never a
/// partial file kept. Large inputs are generated on the fly in a scratch folder.
///
/// `AREAWATCH_HOSTILE_LARGE=1` (`make hostile`) makes the single-line CSV 2 GiB instead of
/// 48 MiB; its peak memory is measured through the built CLI either way.
@Suite("Hostile inputs")
struct HostileInputTests {
    private let post = #"{"latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000}"#

    /// The outcome of ingesting one file: its reject reasons by locator, or its input error.
    private func outcome(_ path: String, options: IngestOptions = IngestOptions()) throws -> Result<IngestResult, InputError> {
        do {
            return .success(try ingest(path, options: options))
        } catch let error as InputError {
            return .failure(error)
        }
    }

    /// An input error is one line naming the file (and a position unless the whole file is meant).
    private func expectInputError(_ path: String, options: IngestOptions = IngestOptions(), position: Bool = true,
                                  mentioning words: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error = inputError(path, options: options, sourceLocation: sourceLocation) else { return }
        #expect(error.file == path, sourceLocation: sourceLocation)
        #expect(!error.description.contains("\n"), "one line: \(error)", sourceLocation: sourceLocation)
        if position { #expect(!error.position.isEmpty, "a position: \(error)", sourceLocation: sourceLocation) }
        for word in words {
            #expect(error.message.lowercased().contains(word.lowercased()), "«\(error)» mentions \(word)", sourceLocation: sourceLocation)
        }
    }

    @Test("JSON cut at every byte: an input error with a position, never records of half a file")
    func truncatedEverywhere() throws {
        let dir = try TempDir()
        let documents = [
            "watchme.json": #"{"users": {"u1": {"name": "A"}}, "posts": {"p1": \#(post), "p2": {"latitude": "53.8", "longitude": "-1.9", "timestamp": "2018-07-01T10:00:00Z"}}, "timeline": {"u1": {"p1": \#(post)}}}"#,
            "array.json": "[\(post),\n \(post),\n 7]",
            "features.geojson": #"{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [-1.8, 53.7]}, "properties": {"time": 1530000000}}]}"#,
            // Features before type, one feature a line: the lines after the first look like NDJSON.
            "features-first.geojson": "{\"features\": [\n" + #"{"type": "Feature", "id": "f1", "geometry": {"type": "Point", "coordinates": [-1.8, 53.7]}, "properties": {"time": 1530000000}},"# + "\n"
                + #"{"type": "Feature", "id": "f2", "geometry": {"type": "Point", "coordinates": [-1.9, 53.8]}, "properties": {"time": 1530000000}}"# + "\n], \"type\": \"FeatureCollection\"}",
            "id-map.json": "{\"a\": \(post),\n\"b\": \(post)}",
            "single.json": post,
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
                    #expect(error.file == path && !error.position.isEmpty && !error.description.contains("\n"),
                            "\(name) cut at \(cut): \(error)")
                case .success(let result):
                    Issue.record("\(name) cut at \(cut) bytes was read as \(result.report.format) with \(result.report.records) records: «\(String(decoding: prefix.suffix(40), as: UTF8.self))»")
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

    @Test("a member name over the record limit: its post is malformed_record, a top-level one is skipped")
    func hugeMemberNames() throws {
        let dir = try TempDir()
        var options = IngestOptions()
        options.reader.maxRecordBytes = 1000
        let long = String(repeating: "k", count: 5000)
        let posts = try ingest(try dir.file("posts.json", #"{"posts": {"\#(long)": \#(post), "p2": \#(post)}}"#), options: options)
        #expect(posts.report.records == 2 && posts.report.accepted == 1)
        #expect(posts.rejects.map(\.reason) == ["malformed_record"])
        #expect(posts.rejects.first?.record == "posts." + String(repeating: "k", count: 64) + "…")
        #expect(posts.incidents.map(\.key) == ["p2"])
        // An escaped name is measured as written; a bare id map the same.
        let escaped = String(repeating: #"\u006b"#, count: 200)
        let map = try ingest(try dir.file("map.json", #"{"\#(escaped)": \#(post), "p2": \#(post)}"#), options: options)
        #expect(map.report.records == 2 && map.incidents.map(\.key) == ["p2"])
        // At the top level a long name is none of posts, type or a coordinate: skipped.
        let top = try ingest(try dir.file("top.json", #"{"\#(String(repeating: "x", count: 2 << 20))": 1, "posts": {"p": \#(post)}}"#))
        #expect(top.report.format == "json/watchme-export" && top.incidents.map(\.key) == ["p"])
    }

    @Test("whitespace before the first byte: skipped in bounded memory, line numbers kept")
    func leadingWhitespace() throws {
        let dir = try TempDir()
        // Blank lines (spaces, CR) before a CSV header: the header is the first line with text,
        // its delimiter detected there, and rejects keep the file's own line numbers.
        let csv = try ingest(try dir.file("lead.csv", "\n  \r\n\t\n\nid;latitude;longitude;timestamp\na;53.7;-1.8;1530000000\nb;;-1.8;1530000000\n"))
        #expect(csv.report.accepted == 1 && csv.reasons == ["7": "missing_coordinates"])
        // Blanks before the header's first name on its own line stay part of it (trimmed).
        let indented = try ingest(try dir.file("indent.csv", "\n   latitude,longitude,timestamp\n53.7,-1.8,1530000000\n"))
        #expect(indented.report.accepted == 1)
        // NDJSON and JSON documents after blank lines: lines and columns count them.
        let ndjson = try ingest(try dir.file("lead.ndjson", "\n\n \(post)\n{\"latitude\": 1, \"longitude\": 1}\n"))
        #expect(ndjson.reasons == ["4": "missing_time"])
        #expect(inputError(try dir.file("lead.json", "\n\n  [\(post)]\n ]"))?.position == "line 4, column 2")
        #expect(inputError(try dir.file("text.json", "\n\n  hello"), options: { var o = IngestOptions(); o.reader.format = .json; return o }())?.position == "line 3")
        // More blanks than a record may hold before a CSV header: not a readable header.
        var small = IngestOptions()
        small.reader.maxRecordBytes = 100
        expectInputError(try dir.file("wide.csv", String(repeating: " ", count: 500) + "latitude,longitude\n1,1\n"), options: small,
                         mentioning: ["not a readable CSV header"])
        let json = try ingest(try dir.file("wide.json", String(repeating: " ", count: 500) + "[\(post)]"), options: small)
        #expect(json.report.accepted == 1)
    }

    /// Inputs whose size is all in one place — one line, one member name, leading blanks — are
    /// ingested through the CLI in memory that does not grow with them.
    @Test("bounded memory through the CLI: a huge member name, leading blanks, a huge NDJSON line",
          .enabled(if: CLI.binary != nil, "the areawatch binary is not built beside the tests"),
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "/usr/bin/time (package time) is missing"))
    func boundedMemory() throws {
        let large = ProcessInfo.processInfo.environment["AREAWATCH_HOSTILE_LARGE"] == "1"
        let size = large ? 1 << 30 : 40 << 20
        let dir = try TempDir()
        let cases: [(String, [UInt8], [UInt8], [UInt8], String)] = [
            ("name.json", Array(#"{"posts": {""#.utf8), [UInt8(ascii: "k")], Array(#"": \#(post), "p2": \#(post)}}"#.utf8), "malformed_record=1"),
            ("blank.json", [], [32], Array("\n[\(post)]".utf8), "json/array"),
            ("blank.csv", [], [10], Array("latitude,longitude,timestamp\n53.7,-1.8,1530000000\n".utf8), "csv"),
            ("line.ndjson", Array((post + "\n" + #"{"d": ""#).utf8), [UInt8(ascii: "x")], Array(("\"}\n" + post + "\n").utf8), "malformed_record=1"),
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
            #expect(run.status == 0 && run.stdout.contains(expected), "\(name): \(run.stdout) \(run.stderr.suffix(300))")
            let peak = try #require(run.peakRSSKiB)
            print("peak RSS of ingesting \(name) (\(size >> 20) MiB): \(peak / 1024) MiB")
            #expect(peak < 90 * 1024, "\(name): peak RSS \(peak / 1024) MiB for \(size >> 20) MiB of input")
            unlink(path)
        }
    }

    @Test("-0 and 0 are the same coordinate: same key, same content, no update when an export changes the sign")
    func negativeZero() throws {
        let dir = try TempDir()
        let minus = try dir.file("minus.csv", "latitude,longitude,timestamp\n51.4779,-0,1530000000\n51.4779,-0.000,1530000000\n")
        let plus = try dir.file("plus.csv", "latitude,longitude,timestamp\n51.4779,0,1530000000\n51.4779,0.0,1530000000\n")
        var table = IncidentColumnsBuilder()
        let first = try ingest(minus, into: &table)
        let second = try ingest(plus, into: &table)
        #expect(first.report.inserted == 2)
        #expect(second.report.inserted == 0 && second.report.updated == 0 && second.report.duplicates == 2,
                "the same places written with +0 are the same incidents")
        let a = try ingest(minus), b = try ingest(plus)
        #expect(a.incidents.map(\.key) == b.incidents.map(\.key))
        #expect(a.incidents.allSatisfy { $0.lon.sign == .plus })
    }

    @Test("empty files, a directory, a FIFO, a read error: input errors naming the file")
    func unusableFiles() throws {
        let dir = try TempDir()
        for (name, bytes) in [("empty.json", [UInt8]()), ("spaces.csv", Array("   \n\t\r\n".utf8)),
                              ("empty.csv.gz", StoredGzip.member([]))] {
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
}

/// Ingests one file into a given table (key semantics across files).
private func ingest(_ path: String, into table: inout IncidentColumnsBuilder) throws -> IngestResult {
    try ingest(path, options: IngestOptions(), into: &table)
}

/// Large files written in chunks, and gzip through zlib's own tool-free API.
enum LargeFile {
    static func write(_ path: String, _ body: ((([UInt8]) throws -> Void)) throws -> Void) throws {
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try body { bytes in try handle.write(contentsOf: bytes) }
    }

    /// `path.gz`, compressed with the system's gzip.
    static func gzip(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "gzip -c -1 \"$0\" > \"$0.gz\"", path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "gzip failed")
        return path + ".gz"
    }
}

/// The `areawatch` binary built beside the test bundle.
enum CLI {
    static let binary: String? = {
        guard let products = Bundle.module.bundleURL.deletingLastPathComponent().path.removingPercentEncoding else { return nil }
        for candidate in [products + "/areawatch", products + "/../debug/areawatch"] where FileManager.default.isExecutableFile(atPath: candidate) {
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
        FileManager.default.createFile(atPath: scratch.path + "/out", contents: nil)
        FileManager.default.createFile(atPath: scratch.path + "/err", contents: nil)
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
        if measure, let line = stderr.split(separator: "\n").first(where: { $0.contains("Maximum resident set size") }) {
            peak = Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "")
        }
        return Run(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self), stderr: stderr, peakRSSKiB: peak)
    }
}
