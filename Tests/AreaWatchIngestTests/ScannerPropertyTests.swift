import AreaWatchCore
import Foundation
import Testing

@testable import AreaWatchIngest

/// Property tests of the ingest hot paths against plain reference code: the CSV scanner (its
/// eight-bytes-at-a-time search) against `SimpleCSV`, the ordinal table against a Dictionary.
@Suite("Scanner and ordinal table against references")
struct ScannerPropertyTests {
    /// Field text drawn to sit stop bytes at every offset of an eight-byte word, next to bytes
    /// that differ from them by one bit or one value (`+` `-` `!` `#` `:` `<` VT), and beside
    /// multi-byte UTF-8 (bytes ≥ 0x80, which the zero-byte test must not mark).
    private static let plain: [String] = [
        "a", "Z", "0", "+", "-", "!", "#", ":", "<", "\u{0B}", "\r", " ", "é", "€", "\u{7F}"
    ]

    private static func randomField(_ rng: inout SplitMix64, delimiter: String) -> (text: String, raw: String) {
        let length = Int(rng.next() % 20)
        let quoted = rng.next() % 4 == 0
        var text = ""
        for _ in 0..<length {
            if quoted {
                switch rng.next() % 8 {
                case 0: text += "\""
                case 1: text += delimiter
                case 2: text += "\n"
                default: text += plain[Int(rng.next() % UInt64(plain.count))]
                }
            } else {
                text += plain[Int(rng.next() % UInt64(plain.count))]
            }
        }
        // An unquoted field cannot end in CR (it would read as part of a CRLF line end).
        if !quoted { while text.hasSuffix("\r") { text.removeLast() } }
        let raw = quoted ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        return (text, raw)
    }

    @Test(
        "CSV scanner fields equal an independent reader: random fields, three delimiters, LF and CRLF, reads of 1–97 bytes"
    )
    func scannerAgainstReference() throws {
        var rng = SplitMix64(seed: 0x5CA7)
        for round in 0..<60 {
            let delimiter = [",", ";", "\t"][round % 3]
            var text = ""
            for _ in 0..<(40 + Int(rng.next() % 60)) {
                let count = 1 + Int(rng.next() % 12)
                text += (0..<count).map { _ in ScannerPropertyTests.randomField(&rng, delimiter: delimiter).raw }
                    .joined(separator: delimiter)
                text += rng.next() % 2 == 0 ? "\n" : "\r\n"
            }
            let expected = SimpleCSV.rows(text, delimiter: Unicode.Scalar(delimiter)!)
            let readLimit = round < 20 ? 1 + Int(rng.next() % 16) : 1 + Int(rng.next() % 97)
            let source = ByteSource(bytes: Array(text.utf8), name: "random.csv", readLimit: readLimit)
            let scanner = CSVScanner(
                buffer: ChunkBuffer(source: source, chunkSize: 64), delimiter: delimiter.utf8.first!,
                maxRecordBytes: 1 << 20)
            var got: [SimpleCSV.Row] = []
            while try scanner.next() {
                #expect(!scanner.quotingError, "round \(round), line \(scanner.recordLine)")
                let fields = (0..<scanner.fieldCount).map { String(decoding: scanner.field($0), as: UTF8.self) }
                got.append(SimpleCSV.Row(line: scanner.recordLine, fields: fields))
            }
            #expect(got.map(\.fields) == expected.map(\.fields), "round \(round), reads of \(readLimit) bytes")
            #expect(got.map(\.line) == expected.map(\.line), "round \(round)")
        }
    }

    @Test("ordinal table counts equal a Dictionary's, with colliding low bits, digest 0 and growth past huge-page size")
    func ordinalsAgainstDictionary() {
        var rng = SplitMix64(seed: 0x0D1A)
        let table = OrdinalTable(capacity: 8)
        var reference: [UInt64: UInt32] = [:]
        var seen: [UInt64] = []
        for i in 0..<400_000 {
            let digest: UInt64
            switch rng.next() % 10 {
            case 0 where !seen.isEmpty: digest = seen[Int(rng.next() % UInt64(seen.count))] // a repeat
            case 1: digest = (rng.next() << 24) | 0x55_5555 // shares its low 24 bits with many others
            case 2: digest = i % 1000 == 0 ? 0 : rng.next()
            default: digest = rng.next()
            }
            if digest != 0 && reference[digest] == nil { seen.append(digest) }
            reference[digest, default: 0] += 1
            let ordinal = table.increment(digest)
            if ordinal != reference[digest]! {
                Issue.record("digest \(digest): ordinal \(ordinal), expected \(reference[digest]!)")
                return
            }
        }
        #expect(seen.count > 200_000) // over 131,072 digests the table reaches 4 MiB: the huge-page path ran
    }
}
