import AreaWatchCore
import AreaWatchFuzzing
import AreaWatchQuery
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// Bugs found by fuzzing (docs/RELIABILITY.md), each with the input that showed it.
@Suite("Fuzzing regressions")
struct FuzzRegressionTests {
    /// Ingests bytes in memory; `window` and `readLimit` make records fall across many refills.
    private func read(
        _ bytes: [UInt8], name: String, window: Int = 1 << 20, readLimit: Int = .max,
        maxRecordBytes: Int = 1 << 20
    ) throws -> (report: FileIngestReport, keys: [String]) {
        var options = IngestOptions()
        options.pipelined = false
        options.reader.readWindowBytes = window
        options.reader.maxRecordBytes = maxRecordBytes
        var sink = CollectingSink()
        let report = try FileIngester.ingest(
            bytes: bytes, name: name, options: options, into: &sink, rejects: nil,
            readLimit: readLimit)
        return (report, sink.incidents.map(\.key))
    }

    /// The first position where two key lists differ, for short failure messages.
    private func firstDifference(_ got: [String], _ expected: [String]) -> String? {
        if got == expected { return nil }
        let i = (0..<min(got.count, expected.count)).first { got[$0] != expected[$0] } ?? min(got.count, expected.count)
        return
            "at \(i): got \(got.dropFirst(i).prefix(3)), expected \(expected.dropFirst(i).prefix(3)) (\(got.count) of \(expected.count) keys)"
    }

    @Test(
        "the read window shrinking back after a long record loses no record (CSV, NDJSON)",
        arguments: [(3, 1), (8, 3), (16, 5), (40, 7), (64, 64)])
    func windowShrinksBack(window: Int, readLimit: Int) throws {
        // A record longer than four windows makes the window grow; it shrinks back later, when a
        // record ends exactly at the end of the bytes read. That used to move the buffer's bytes
        // under the reader's positions, so records were skipped or read from the wrong place.
        var csv = "id,latitude,longitude,timestamp,description\n"
        csv += "long,53.7,-1.8,1530000000,\(String(repeating: "x", count: 400))\n"
        var ndjson =
            #"{"id": "long", "latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000, "d": "\#(String(repeating: "x", count: 400))"}"#
            + "\n"
        var keys = ["long"]
        for i in 0..<300 {
            csv += "r\(i),53.7,-1.8,\(1_530_000_000 + i),\(String(repeating: "d", count: i % 11))\n"
            ndjson +=
                #"{"id": "r\#(i)", "latitude": 53.7, "longitude": -1.8, "timestamp": \#(1_530_000_000 + i)}"# + "\n"
            keys.append("r\(i)")
        }
        for (name, text) in [("shrink.csv", csv), ("shrink.ndjson", ndjson)] {
            let whole = try read(Array(text.utf8), name: name)
            #expect(firstDifference(whole.keys, keys) == nil, "\(name) read whole")
            let pieces = try read(Array(text.utf8), name: name, window: window, readLimit: readLimit)
            #expect(pieces.report.records == keys.count, "\(name): window \(window), reads of \(readLimit)")
            #expect(firstDifference(pieces.keys, keys) == nil, "\(name): window \(window), reads of \(readLimit)")
        }
    }

    @Test("fuzz input: reasons.csv read in pieces of a few bytes equals reading it whole")
    func reasonsInPieces() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: try fixture("reasons.csv"))))
        let whole = try read(bytes, name: "reasons.csv")
        for (window, limit) in [(1, 1), (2, 3), (7, 5), (13, 13), (61, 12)] {
            let pieces = try read(bytes, name: "reasons.csv", window: window, readLimit: limit)
            #expect(pieces.report == whole.report, "window \(window), reads of \(limit)")
            #expect(firstDifference(pieces.keys, whole.keys) == nil, "window \(window), reads of \(limit)")
        }
    }

    @Test("escaped surrogate pairs in member names are one character: two emoji ids stay two posts")
    func surrogatePairIDs() throws {
        // Member names were decoded one \u escape at a time, so both ids became "\u{FFFD}\u{FFFD}"
        // and the second post overwrote the first.
        let result = try ingest(try fixture("fuzz/json/surrogate-pair-ids.json"))
        #expect(result.incidents.map(\.key) == ["\u{1F600}", "\u{1F601}"])
        #expect(result.report.inserted == 2)

        // The same ids as array members (decoded by the record parser) give the same keys.
        let dir = try TempDir()
        let array = try dir.file(
            "a.json", #"[{"id": "\ud83d\ude00", "latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000}]"#)
        #expect(try ingest(array).incidents.map(\.key) == ["\u{1F600}"])

        // A lone surrogate is U+FFFD in both places; an escaped backslash before "u" is not an escape.
        let lone = try dir.file(
            "m.json",
            #"{"\ud83d": {"latitude": 1, "longitude": 1, "timestamp": 1530000000}, "\\u0041": {"latitude": 1, "longitude": 1, "timestamp": 1530000000}}"#
        )
        #expect(try ingest(lone).incidents.map(\.key) == ["\u{FFFD}", "\\u0041"])
    }

    @Test("in-memory NDJSON whose first line is broken is read from memory, not from a file of that name")
    func ndjsonDetectionReadsTheSameBytes() throws {
        // Detection re-opened the input by its name to look at the second line: an in-memory
        // ingest (fuzzing, tests) then failed with "no such file", or read another file.
        let text =
            "{\"id\": \"n1\", \"latitude\": 53.7,, \"longitude\": -1.8}\n"
            + #"{"id": "n2", "latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000}"# + "\n"
        let result = try read(Array(text.utf8), name: "no-such-folder/in-memory.ndjson")
        #expect(result.report.format == "json/ndjson")
        #expect(result.report.records == 2 && result.keys == ["n2"])
    }

    @Test("an input error is one line, even when it quotes a header with CR or LF, and stays short")
    func oneLineInputErrors() throws {
        // Found by FuzzCSV: a header whose names hold a bare CR (a classic-Mac line end) was
        // quoted raw into "no latitude/longitude columns (columns: …)", breaking the line.
        let path = try fixture("fuzz/csv/header-carriage-return.csv")
        let error = try #require(inputError(path))
        #expect(
            !error.description.contains("\r") && !error.description.contains("\n"),
            "\(error.description.debugDescription)")
        // A first line of one field is no header anyone wrote: it is not quoted at all.
        #expect(!error.description.contains("Crame"), "\(error)")
        #expect(error.description.contains("line 1: not a CSV file of incidents"), "\(error)")
        let crDir = try TempDir()
        let quotedCR = try crDir.file("cr.csv", "Crame e tep1y\rx,lat\n1,2\n")
        let listed = try #require(inputError(quotedCR))
        #expect(listed.description.contains("Crame e tep1y\\rx"), "the CR is shown as an escape: \(listed)")

        let dir = try TempDir()
        // A line feed inside a quoted header name, and 10,000 columns: one line of bounded length.
        let quoted = try dir.file("quoted.csv", "\"a\nb\",c\n1,2\n")
        let wide = try dir.file("wide.csv", (0..<10_000).map { "column\($0)" }.joined(separator: ",") + "\n")
        for path in [quoted, wide] {
            let error = try #require(inputError(path))
            #expect(
                !error.description.contains("\n") && error.description.count < 1000, "\(error.description.prefix(300))")
        }
        // A file name with a line break is escaped too.
        let named = InputError(file: "in\nbox/x.csv", position: "line 1", message: "m")
        #expect(named.description == "in\\nbox/x.csv: line 1: m")
    }

    /// The committed seeds (`Fuzz/corpus/<target>/`) and the regression inputs
    /// (`Fixtures/fuzz/<target>/`) pass every invariant of their fuzz target.
    @Test("fuzz corpus and regression inputs keep every invariant", arguments: FuzzTarget.allCases)
    func corpus(target: FuzzTarget) throws {
        let folders = [
            packageRoot().path + "/Fuzz/corpus/" + target.rawValue,
            (try fixture("fuzz")) + "/" + target.rawValue
        ]
        var checked = 0
        for folder in folders {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for name in names.sorted() where !name.hasPrefix(".") {
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
                let failures = target.check(bytes)
                #expect(failures.isEmpty, "\(target.rawValue) \(name): \(failures.joined(separator: "; "))")
                checked += 1
            }
        }
        #expect(checked >= 5, "\(target.rawValue): \(checked) inputs")
    }
}
