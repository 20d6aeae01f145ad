import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// SPEC §2: the format comes from the content, not the name; `--format` overrides; `.gz` (and
/// gzip content under any name) is decompressed on the fly.
@Suite("Format detection and gzip")
struct FormatDetectionTests {
    @Test("a .txt file holding a JSON array is JSON")
    func jsonInTxt() throws {
        let result = try ingest(try fixture("json-array.txt"))
        #expect(result.report.format == "json/array")
        #expect(result.incidents.map(\.key) == ["txt-1"])
    }

    @Test("a .json file holding CSV is CSV")
    func csvInJSON() throws {
        let result = try ingest(try fixture("csv-content.json"))
        #expect(result.report.format == "csv")
        #expect(result.incidents.map(\.key) == ["csv-1"])
    }

    @Test("leading whitespace and a BOM before JSON")
    func whitespaceBeforeJSON() throws {
        let dir = try TempDir()
        let text = "\u{FEFF}\n\n   \t[{\"id\": \"w\", \"latitude\": 1, \"longitude\": 2, \"timestamp\": 1530000000}]"
        let result = try ingest(try dir.file("ws.data", text))
        #expect(result.report.format == "json/array")
        #expect(result.incidents.map(\.key) == ["w"])
    }

    @Test("--format csv reads a CSV whose first byte looks like JSON")
    func formatCSVOverride() throws {
        let path = try fixture("bracket-header.csv")
        // Detected as JSON: not a JSON document, an input error.
        #expect(inputError(path) != nil)
        var options = IngestOptions()
        options.reader.format = .csv
        let result = try ingest(path, options: options)
        #expect(result.report.format == "csv")
        #expect(result.incidents.first?.attributes == #"{"[note]":"bracketed"}"#)
    }

    @Test("--format json on a JSON file named .csv")
    func formatJSONOverride() throws {
        let dir = try TempDir()
        let path = try dir.file(
            "mislabelled.csv", #"{"posts": {"p": {"latitude": 1, "longitude": 2, "timestamp": 1530000000}}}"#)
        var options = IngestOptions()
        options.reader.format = .json
        #expect(try ingest(path, options: options).incidents.map(\.key) == ["p"])
        #expect(try ingest(path).incidents.map(\.key) == ["p"], "detection agrees")
    }

    @Test(".gz of CSV (compressed by a real gzip)")
    func gzipCSV() throws {
        let result = try ingest(try fixture("incidents.csv.gz"))
        #expect(result.report.format == "csv+gzip")
        #expect(result.incidents.map(\.key) == ["g1", "g2"])
        #expect(result.reasons == ["4": "missing_coordinates"])
        #expect(result.incident("g2")?.category == "theft")
    }

    @Test(".gz of a WatchMe export")
    func gzipJSON() throws {
        let result = try ingest(try fixture("export.json.gz"))
        #expect(result.report.format == "json/watchme-export+gzip")
        #expect(result.incidents.map(\.key) == ["-Lgz0000000000000001", "-Lgz0000000000000002"])
        #expect(result.incident("-Lgz0000000000000002")?.handled == true)
    }

    @Test("gzip content under a name without .gz is recognised by its magic bytes")
    func gzipByMagic() throws {
        let dir = try TempDir()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try fixture("incidents.csv.gz")))
        let result = try ingest(try dir.file("incidents.csv", bytes: Array(bytes)))
        #expect(result.report.format == "csv+gzip")
        #expect(result.incidents.count == 2)
    }

    @Test("several concatenated gzip members are one content")
    func multiMember() throws {
        let dir = try TempDir()
        let a = Array("id,latitude,longitude,timestamp\nm1,53.7,-1.8,1530000000\nm2,53.7".utf8)
        let b = Array(",-1.8,1530000000\nm3,53.7,-1.8,1530000000\n".utf8)
        let path = try dir.file("multi.csv.gz", bytes: StoredGzip.member(a) + StoredGzip.member(b))
        #expect(try ingest(path).incidents.map(\.key) == ["m1", "m2", "m3"])
    }

    @Test("the stored-block gzip writer of these tests is valid (CRC-32 check value)")
    func storedGzipWriter() {
        #expect(StoredGzip.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test("a large gzip JSON file streams across many read chunks")
    func largeGzipJSON() throws {
        let dir = try TempDir()
        var text = "["
        for i in 0..<15_000 {
            if i > 0 { text += ",\n" }
            text +=
                #"{"id": "big-\#(i)", "latitude": 53.\#(i % 1000), "longitude": -1.\#(i % 977), "timestamp": \#(1_500_000_000 + i)}"#
        }
        text += "]"
        let path = try dir.file("big.json.gz", bytes: StoredGzip.member(Array(text.utf8)))
        let result = try ingest(path)
        #expect(result.report.format == "json/array+gzip")
        #expect(result.report.accepted == 15_000)
        #expect(result.incidents.last?.key == "big-14999")
        #expect(result.incidents.last?.time == 1_500_014_999)
    }

    @Test("the file's SHA-256 and size are those of the bytes on disk (compressed for .gz)")
    func digest() throws {
        let path = try fixture("incidents.csv.gz")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let digest = try FileDigest.sha256(path: path)
        #expect(digest.bytes == Int64(bytes.count))
        #expect(digest.hex == sha256Hex(Array(bytes)))
        let result = try ingest(path)
        #expect(result.report.sha256 == digest.hex)
        #expect(result.report.bytes == Int64(bytes.count))
    }
}
