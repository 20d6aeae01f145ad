import AreaWatchCore
import AreaWatchTestSupport
import Crypto
import Foundation
import Testing

@testable import AreaWatchIngest

// Shared helpers of the ingest tests: scratch folders, fixtures, an ingest that collects
// everything it produced, an independent RFC 4180 reader, SHA-256 hex and a gzip writer.

/// A fixture of `Tests/AreaWatchIngestTests/Fixtures`, as copied into the test bundle.
func fixture(_ name: String) throws -> String {
    let base = try #require(Bundle.module.resourcePath, "the test bundle has no resources")
    let path = base + "/Fixtures/" + name
    try #require(FileManager.default.fileExists(atPath: path), "missing fixture \(name)")
    return path
}

/// The package root, found from this file's place in `Tests/AreaWatchIngestTests/`.
func packageRoot(_ file: String = #filePath) -> URL {
    URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

/// A sink that keeps every incident it is given, in order (no key semantics).
struct CollectingSink: IncidentSink {
    var incidents: [Incident] = []

    mutating func write(_ batch: borrowing IncidentBatch, outcome: (WriteOutcome) -> Void) {
        batch.forEach { incident in
            incidents.append(incident)
            outcome(.inserted)
        }
    }
}

/// One row of a rejects file.
struct RejectRow: Equatable, CustomStringConvertible {
    var source: String
    var record: String
    var id: String
    var reason: String
    var excerpt: String

    var description: String { "\(record) \(id) \(reason) «\(excerpt)»" }
}

/// Everything one file's ingest produced.
struct IngestResult {
    var report: FileIngestReport
    var incidents: [Incident]
    /// The rejects file, as written.
    var rejectsText: String
    /// The rejects file read back by `SimpleCSV`, header removed.
    var rejects: [RejectRow]

    func incident(_ key: String) -> Incident? {
        incidents.first { $0.key == key }
    }

    func reject(at record: String) -> RejectRow? {
        rejects.first { $0.record == record }
    }

    /// Reject reason by record locator.
    var reasons: [String: String] {
        Dictionary(rejects.map { ($0.record, $0.reason) }, uniquingKeysWith: { a, _ in a })
    }
}

extension IngestOptions {
    /// The defaults, except that a file of rejects only is kept as such instead of being an input
    /// error: most tests here check single records' reasons, excerpts and locators. The SPEC §2.5
    /// file rule has its own tests, which pass `IngestOptions()`.
    static var recordLevel: IngestOptions {
        var options = IngestOptions()
        options.allRejectedIsError = false
        return options
    }
}

/// Ingests one file as the ingest command does (digest, reader, keys, rejects file) into a
/// collecting sink.
func ingest(_ path: String, options: IngestOptions = .recordLevel) throws -> IngestResult {
    var sink = CollectingSink()
    return try ingest(path, options: options, into: &sink, keeping: { $0.incidents })
}

/// Ingests one file into any sink; `keeping` extracts the incidents to report (or none).
func ingest<Sink: IncidentSink>(
    _ path: String, options: IngestOptions = .recordLevel, into sink: inout Sink,
    keeping: (Sink) -> [Incident] = { _ in [] }
) throws -> IngestResult {
    let digest = try FileDigest.sha256(path: path)
    let rejectsDir = try TempDir()
    let rejectsPath = rejectsDir.path + "/rejects.csv"
    let writer = try RejectsWriter(path: rejectsPath)
    let report = try FileIngester.ingest(
        path: path, sha256: digest.hex, bytes: digest.bytes, options: options,
        into: &sink, rejects: writer)
    try writer.endFile()
    try writer.commit()
    let text = try String(contentsOfFile: rejectsPath, encoding: .utf8)
    let rows = SimpleCSV.rows(text)
    try #require(rows.first?.fields == ["source", "record", "id", "reason", "excerpt"], "rejects header")
    var rejects: [RejectRow] = []
    for row in rows.dropFirst() {
        try #require(row.fields.count == 5, "a rejects row has 5 fields: \(row.fields)")
        rejects.append(
            RejectRow(
                source: row.fields[0], record: row.fields[1], id: row.fields[2],
                reason: row.fields[3], excerpt: row.fields[4]))
    }
    return IngestResult(report: report, incidents: keeping(sink), rejectsText: text, rejects: rejects)
}

/// The `InputError` an ingest of `path` throws (the test fails when it throws none or another).
func inputError(
    _ path: String, options: IngestOptions = IngestOptions(),
    sourceLocation: SourceLocation = #_sourceLocation
) -> InputError? {
    do {
        let result = try ingest(path, options: options)
        Issue.record("expected an input error, got \(result.report.records) records", sourceLocation: sourceLocation)
        return nil
    } catch let error as InputError {
        return error
    } catch {
        Issue.record("expected an InputError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A deliberately plain RFC 4180 reader, independent of the engine's scanner: quoted fields
/// with `""`, embedded delimiters and newlines, CRLF or LF; blank lines are not rows.
enum SimpleCSV {
    struct Row {
        /// 1-based line where the row starts.
        var line: Int
        var fields: [String]
    }

    static func rows(_ text: String, delimiter: Unicode.Scalar = ",") -> [Row] {
        let s = Array(text.unicodeScalars)
        var rows: [Row] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var inQuotes = false
        var sawAnything = false
        var line = 1
        var startLine = 1
        var i = 0
        func endRow() {
            fields.append(String(field))
            if sawAnything || fields.count > 1 || !fields[0].isEmpty {
                rows.append(Row(line: startLine, fields: fields))
            }
            fields = []
            field = String.UnicodeScalarView()
            sawAnything = false
        }
        if s.first == "\u{FEFF}" { i = 1 }
        while i < s.count {
            let c = s[i]
            if inQuotes {
                if c == "\"" {
                    if i + 1 < s.count && s[i + 1] == "\"" {
                        field.append("\"")
                        i += 2
                        continue
                    }
                    inQuotes = false
                } else {
                    if c == "\n" { line += 1 }
                    field.append(c)
                }
                i += 1
                continue
            }
            switch c {
            case "\"":
                inQuotes = true
                sawAnything = true
            case delimiter:
                fields.append(String(field))
                field = String.UnicodeScalarView()
                sawAnything = true
            case "\r" where i + 1 < s.count && s[i + 1] == "\n":
                break
            case "\n":
                endRow()
                line += 1
                startLine = line
            default:
                field.append(c)
            }
            i += 1
        }
        if sawAnything || !field.isEmpty { endRow() }
        return rows
    }
}

/// Lower-case hex of SHA-256 (swift-crypto).
func sha256Hex(_ bytes: [UInt8]) -> String {
    SHA256.hash(data: bytes).map { byte in
        let s = String(byte, radix: 16)
        return s.count == 1 ? "0" + s : s
    }.joined()
}

func sha256Hex(_ text: String) -> String { sha256Hex(Array(text.utf8)) }

/// A minimal gzip writer (RFC 1952 with RFC 1951 *stored* blocks), written here so that the
/// tests can make gzip members of any shape (several members, cut-off streams) without a tool.
enum StoredGzip {
    static func member(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        var offset = 0
        repeat {
            let n = min(65_535, data.count - offset)
            let final: UInt8 = offset + n == data.count ? 1 : 0
            out.append(final)
            out.append(contentsOf: le16(UInt16(n)))
            out.append(contentsOf: le16(~UInt16(n)))
            out.append(contentsOf: data[offset..<(offset + n)])
            offset += n
        } while offset < data.count
        out.append(contentsOf: le32(crc32(data)))
        out.append(contentsOf: le32(UInt32(truncatingIfNeeded: data.count)))
        return out
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in data {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * UInt32($0))) & 0xFF) } }
}

/// Epoch seconds of a UTC civil time, computed independently of the engine.
func epoch(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Int64 {
    Civil.epoch(year, month, day, hour, minute, second)
}
