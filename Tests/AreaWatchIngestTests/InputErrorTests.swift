import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// SPEC §3 input errors (exit-2 class): a file that is not CSV or JSON, unreadable, or truncated
/// mid-structure throws `InputError` naming the file and a sensible position.
@Suite("Input errors")
struct InputErrorTests {
    /// Common checks: the file is named, the message is one line and names file and position.
    private func check(
        _ error: InputError?, file: String, position expected: String?, messageContains words: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error else { return }
        #expect(error.file == file, sourceLocation: sourceLocation)
        if let expected { #expect(error.position == expected, sourceLocation: sourceLocation) }
        let text = error.description
        #expect(!text.contains("\n"), "one line: \(text)", sourceLocation: sourceLocation)
        #expect(text.hasPrefix(file + ": "), sourceLocation: sourceLocation)
        if !error.position.isEmpty { #expect(text.contains(": \(error.position): "), sourceLocation: sourceLocation) }
        for word in words {
            #expect(
                error.message.lowercased().contains(word.lowercased()), "«\(error.message)» mentions \(word)",
                sourceLocation: sourceLocation)
        }
    }

    /// `byte N` with 0 ≤ N ≤ limit.
    private func bytePosition(_ error: InputError?, atMost limit: Int) -> Int? {
        guard let position = error?.position, position.hasPrefix("byte "), let n = Int(position.dropFirst(5)) else {
            Issue.record("position «\(error?.position ?? "nil")» is not `byte N`")
            return nil
        }
        #expect(n >= 0 && n <= limit)
        return n
    }

    @Test("binary garbage is not CSV or JSON")
    func binaryGarbage() throws {
        let dir = try TempDir()
        var rng = SplitMix64(seed: 42)
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] // a PNG signature
        for _ in 0..<4096 { bytes.append(UInt8(truncatingIfNeeded: rng.next())) }
        let png = try dir.file("image.csv", bytes: bytes)
        check(inputError(png), file: png, position: "line 1", messageContains: ["not a CSV or JSON"])

        // Random bytes with NULs but valid-looking ASCII around them.
        let nul = try dir.file("nul.dat", bytes: Array("latitude,longitude\u{0}\u{1}\u{2},x\n1,2,3\n".utf8))
        check(inputError(nul), file: nul, position: "line 1", messageContains: ["not a CSV or JSON"])
    }

    @Test("binary garbage that starts with '{' is a JSON syntax error with line and column")
    func garbageStartingLikeJSON() throws {
        let dir = try TempDir()
        let path = try dir.file("brace.bin", bytes: [UInt8(ascii: "{"), 0x00, 0xFF, 0x13, 0x37])
        let error = inputError(path)
        check(error, file: path, position: "line 1, column 2", messageContains: ["expected"])
    }

    @Test("a text file without latitude/longitude columns")
    func textWithoutCoordinates() throws {
        let dir = try TempDir()
        let path = try dir.file("notes.txt", "Dear diary,\ntoday nothing happened.\n")
        check(inputError(path), file: path, position: "line 1", messageContains: ["latitude", "longitude"])
        let csv = try dir.file("other.csv", "name,street,town\nA,High St,Halifax\n")
        check(inputError(csv), file: csv, position: "line 1", messageContains: ["latitude"])
    }

    @Test(
        "an unreadable file (permission 000)",
        .disabled(if: geteuid() == 0, "running as root: a mode-000 file stays readable, nothing to test"))
    func unreadable() throws {
        let dir = try TempDir()
        let path = try dir.file("secret.csv", "id,latitude,longitude,timestamp\na,1,1,1530000000\n")
        chmod(path, 0)
        defer { chmod(path, 0o644) }
        guard access(path, R_OK) != 0 else {
            // Root-like capabilities without uid 0: the file is still readable, nothing to test.
            print("skipped: the process can read a mode-000 file")
            return
        }
        check(inputError(path), file: path, position: "", messageContains: ["permission denied"])
    }

    @Test("a directory, a missing file")
    func directoryAndMissing() throws {
        let dir = try TempDir()
        check(inputError(dir.path), file: dir.path, position: "", messageContains: ["directory"])
        let missing = dir.path + "/nope.csv"
        check(inputError(missing), file: missing, position: "", messageContains: ["no such file"])
    }

    @Test("empty files: zero bytes, whitespace only, a BOM only, gzip of nothing")
    func emptyFiles() throws {
        let dir = try TempDir()
        for (name, bytes) in [
            ("empty.csv", [UInt8]()), ("blank.json", Array(" \n\r\n\t\n".utf8)),
            ("bom.csv", [0xEF, 0xBB, 0xBF]), ("nothing.csv.gz", StoredGzip.member([]))
        ] {
            let path = try dir.file(name, bytes: bytes)
            check(inputError(path), file: path, position: "", messageContains: ["empty"])
        }
    }

    @Test("a truncated JSON document")
    func truncatedJSON() throws {
        let dir = try TempDir()
        let post = #"{"latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000}"#
        // Inside a post of the `posts` map: one post was already read.
        let inPosts = try dir.file("export.json", "{\"posts\": {\n\"a\": \(post),\n\"b\": {\"latitude\": 5")
        let e1 = inputError(inPosts)
        check(e1, file: inPosts, position: nil, messageContains: ["truncated"])
        #expect(e1?.position.hasPrefix("line 3, column ") == true, "\(e1?.position ?? "")")
        #expect(e1?.message.contains("line 3") == true, "names the line where the cut-off value starts")

        // Inside an array, between elements.
        let inArray = try dir.file("array.json", "[\(post),\n\(post)")
        let e2 = inputError(inArray)
        check(e2, file: inArray, position: nil, messageContains: ["truncated"])
        #expect(e2?.position.hasPrefix("line 2, column ") == true, "\(e2?.position ?? "")")

        // Inside a member that is skipped (the `timeline` fan-out copies) before `posts`.
        let inSkipped = try dir.file("skipped.json", "{\"timeline\": {\"u\": {\"p\": \(post)")
        check(inputError(inSkipped), file: inSkipped, position: nil, messageContains: ["truncated"])

        // Inside a string, inside a GeoJSON feature, and a single object without its closing brace.
        let inString = try dir.file("string.json", "{\"posts\": {\"a\": {\"description\": \"cut")
        check(inputError(inString), file: inString, position: nil, messageContains: ["truncated"])
        let inFeature = try dir.file(
            "features.geojson", "{\"type\": \"FeatureCollection\", \"features\": [{\"type\": \"Feature\"")
        check(inputError(inFeature), file: inFeature, position: nil, messageContains: ["truncated"])
        let single = try dir.file("single.json", "{\"latitude\": 53.7, \"longitude\": -1.8, \"timestamp\": 1")
        check(inputError(single), file: single, position: nil, messageContains: ["truncated"])

        // Every error above carries a `line L, column C` position.
        for path in [inPosts, inArray, inSkipped, inString, inFeature, single] {
            let position = inputError(path)?.position ?? ""
            #expect(
                position.range(of: #"^line \d+, column \d+$"#, options: .regularExpression) != nil,
                "\(path): \(position)")
        }
    }

    @Test("content after the end of a JSON array is an input error")
    func trailingContent() throws {
        let dir = try TempDir()
        let path = try dir.file("trailing.json", "[{\"latitude\": 1, \"longitude\": 1, \"timestamp\": 1}]\n]")
        check(inputError(path), file: path, position: "line 2, column 1", messageContains: ["after the JSON document"])
    }

    @Test("a cut-off last NDJSON line; a complete last line without newline is fine")
    func cutOffNDJSON() throws {
        let dir = try TempDir()
        let line = #"{"id": "n1", "latitude": 53.7, "longitude": -1.8, "timestamp": 1530000000}"#
        let cut = try dir.file("cut.ndjson", line + "\n\n" + line + "\n" + #"{"id": "n3", "latitude": 53"#)
        check(inputError(cut), file: cut, position: "line 4", messageContains: ["truncated"])

        let complete = try dir.file("complete.ndjson", line + "\n" + line.replacingOccurrences(of: "n1", with: "n2"))
        let result = try ingest(complete)
        #expect(result.incidents.map(\.key) == ["n1", "n2"])
    }

    @Test("a CSV file that ends inside a quoted field names the line where the record starts")
    func csvOpenQuote() throws {
        let dir = try TempDir()
        let path = try dir.file(
            "open.csv", "id,latitude,longitude,timestamp,d\na,1,1,1530000000,x\n\nb,1,1,1530000000,\"open\nmore\n")
        check(inputError(path), file: path, position: "line 4", messageContains: ["quoted field"])
        // The same for a header that never closes its quote.
        let header = try dir.file("openheader.csv", "id,\"latitude,longitude\n")
        check(inputError(header), file: header, position: "line 1", messageContains: ["quoted field"])
    }

    @Test("a .gz file that is not gzip")
    func gzNotGzip() throws {
        let dir = try TempDir()
        let text = "id,latitude,longitude,timestamp\na,53.7,-1.8,1530000000\n"
        let path = try dir.file("plain.csv.gz", text)
        let error = inputError(path)
        check(error, file: path, position: nil, messageContains: ["gzip"])
        _ = bytePosition(error, atMost: text.utf8.count)

        // A zlib stream (not gzip) behind a gzip name.
        let zlib = try dir.file("zlib.json.gz", bytes: [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        check(inputError(zlib), file: zlib, position: nil, messageContains: ["gzip"])
    }

    @Test("a truncated .gz file: cut in the deflate stream, or missing its trailer")
    func truncatedGzip() throws {
        let dir = try TempDir()
        var rng = SplitMix64(seed: 7)
        var csv = "id,latitude,longitude,timestamp\n"
        for i in 0..<2000 {
            csv +=
                "r\(i),\(53 + Double(rng.next() % 1000) / 1000),-1.\(rng.next() % 1000),\(1_500_000_000 + Int(rng.next() % 1_000_000))\n"
        }
        let real = try Data(contentsOf: URL(fileURLWithPath: try fixture("incidents.csv.gz")))
        // A real (deflate-compressed) member cut in the middle.
        let cutReal = try dir.file("cut-real.csv.gz", bytes: Array(real.prefix(real.count / 2)))
        let e1 = inputError(cutReal)
        check(e1, file: cutReal, position: nil, messageContains: ["truncated", "gzip"])
        #expect(bytePosition(e1, atMost: real.count / 2) == real.count / 2, "the error is at the end of what exists")

        // A stored-block member of 60 kB cut after 30 kB.
        let member = StoredGzip.member(Array(csv.utf8))
        let cutStored = try dir.file("cut-stored.csv.gz", bytes: Array(member.prefix(30_000)))
        let e2 = inputError(cutStored)
        check(e2, file: cutStored, position: nil, messageContains: ["truncated"])
        #expect(bytePosition(e2, atMost: 30_000) == 30_000)

        // All the content is there, only the CRC/size trailer is missing.
        let noTrailer = try dir.file("no-trailer.csv.gz", bytes: Array(member.dropLast(8)))
        check(inputError(noTrailer), file: noTrailer, position: nil, messageContains: ["truncated"])

        // A wrong CRC is corrupt data, not a silent success.
        var badCRC = member
        badCRC[badCRC.count - 8] ^= 0xFF
        let corrupt = try dir.file("bad-crc.csv.gz", bytes: badCRC)
        check(inputError(corrupt), file: corrupt, position: nil, messageContains: ["gzip"])

        // The intact member reads fine.
        let whole = try ingest(try dir.file("whole.csv.gz", bytes: member))
        #expect(whole.report.accepted == 2000)
        #expect(whole.report.format == "csv+gzip")
    }

    @Test("--format json on a CSV file")
    func formatJSONOnCSV() throws {
        let path = try fixture("csv-content.json")
        var options = IngestOptions()
        options.reader.format = .json
        check(inputError(path, options: options), file: path, position: "line 1", messageContains: ["not JSON"])
    }
}
