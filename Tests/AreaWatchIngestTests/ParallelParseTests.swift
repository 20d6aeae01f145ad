import AreaWatchCore
import AreaWatchQuery
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// The parallel CSV parse (blocks cut at line feeds outside quotes, parsed on 2 or 8 threads)
/// must give exactly what one thread gives: the same incidents in the same order (so the same
/// SPEC §4 keys and ordinals), counts, rejects with their lines, errors, and grids.
@Suite("Parallel CSV parse equals one thread")
struct ParallelParseTests {
    struct Outcome: Equatable {
        var report: FileIngestReport?
        var incidents: [Incident]
        var rejects: String
        var error: String?
    }

    /// One thread with no pipelining is the reference; `threads` > 1 takes the parallel path.
    static func ingest(
        _ path: String, threads: Int, blockBytes: Int = 2 << 20, reader: ReaderOptions = ReaderOptions(),
        scratch: TempDir
    ) throws -> Outcome {
        var options = IngestOptions(reader: reader)
        options.pipelined = threads > 1
        options.parseThreads = threads
        options.parallelBlockBytes = blockBytes
        let rejectsPath = scratch.path + "/rejects-\(threads)-\(blockBytes).csv"
        let rejects = try RejectsWriter(path: rejectsPath)
        var sink = CollectingSink()
        do {
            let report = try FileIngester.ingest(
                path: path, sha256: String(repeating: "ab", count: 32), bytes: 0,
                options: options, into: &sink, rejects: rejects)
            try rejects.commit()
            return Outcome(
                report: report, incidents: sink.incidents,
                rejects: try String(contentsOfFile: rejectsPath, encoding: .utf8), error: nil)
        } catch let error as InputError {
            return Outcome(report: nil, incidents: [], rejects: "", error: error.description)
        }
    }

    /// The same file through every configuration: 2 and 8 threads, blocks from one byte (every
    /// block grows or falls back) to the default.
    static func expectSame(
        _ path: String, reader: ReaderOptions = ReaderOptions(), scratch: TempDir,
        blocks: [Int] = [1, 97, 4096, 2 << 20]
    ) throws {
        let one = try ingest(path, threads: 1, reader: reader, scratch: scratch)
        for threads in [2, 8] {
            for block in blocks {
                let many = try ingest(path, threads: threads, blockBytes: block, reader: reader, scratch: scratch)
                #expect(many.error == one.error, "\(threads) threads, \(block)-byte blocks: \(path)")
                #expect(many.report == one.report, "\(threads) threads, \(block)-byte blocks: \(path)")
                #expect(many.incidents == one.incidents, "\(threads) threads, \(block)-byte blocks: \(path)")
                #expect(many.rejects == one.rejects, "\(threads) threads, \(block)-byte blocks: \(path)")
            }
        }
    }

    @Test func bundledAndGeneratedFiles() throws {
        let scratch = try TempDir()
        for path in try PipelineTests.inputs(scratch) where path.hasSuffix(".csv") {
            try Self.expectSame(path, scratch: scratch, blocks: [97, 4096, 65536, 2 << 20])
        }
    }

    /// Seeded random CSVs full of what makes cutting hard: quoted fields with line feeds and
    /// doubled quotes, stray quotes, text after a closing quote, CRLF, blank lines, wrong field
    /// counts, oversized records, NULs, id-less duplicates (ordinals), bad values, no final LF,
    /// and files that end inside a quoted field.
    @Test func randomHostileCSVs() throws {
        let scratch = try TempDir()
        var random = SplitMix64(seed: 0xC5F_0016)
        for n in 0..<60 {
            let text = Self.randomCSV(&random, rows: Int(random.next() % 300))
            let path = try scratch.file("random-\(n).csv", text)
            let reader = ReaderOptions(maxRecordBytes: n % 3 == 0 ? 120 : 1 << 20)
            try Self.expectSame(path, reader: reader, scratch: scratch, blocks: [1, 13, 64, 333])
        }
    }

    static func randomCSV(_ random: inout SplitMix64, rows: Int) -> String {
        func pick<T>(_ options: [T]) -> T { options[Int(random.next() % UInt64(options.count))] }
        var text = pick(["id,time,lat,lon,category,note\n", "id,time,lat,lon,category,note\r\n"])
        let ids = ["", "", "a1", "a2", "\"a\"\"3\"", "a4"]
        let times = ["2018-07-01T10:00:00Z", "2017-07-02", "\"2016-07-03 12:00\"", "garbage", "", "2018-13-40"]
        let coordinates = ["53.7,-1.8", "\"53.71\",\"-1.81\"", "0,0", "91,0", ",", "53.72,-1.79"]
        let notes = [
            "plain", "\"quoted, with comma\"", "\"multi\nline\"", "\"crlf\r\ninside\"", "\"doubled \"\" quote\"",
            "stray\"quote", "\"closed\"after", String(repeating: "x", count: 150), "nul\u{0}byte", ""
        ]
        let ends = ["\n", "\n", "\r\n", "\n\n", "\r\n\r\n"]
        for _ in 0..<rows {
            var fields = [
                pick(ids), pick(times), pick(coordinates), pick(["burglary", "\"theft\"", "", "vehicle-crime"]),
                pick(notes)
            ]
            if random.next() % 17 == 0 { fields.append("extra") }
            if random.next() % 19 == 0 { fields.removeLast(2) }
            text += fields.joined(separator: ",") + pick(ends)
        }
        switch random.next() % 6 {
        case 0: text += "a9,2018-07-01,53.7,-1.8,burglary,no final line feed"
        case 1: text += "a9,2018-07-01,53.7,-1.8,burglary,\"ends inside a quoted field\n"
        default: break
        }
        return text
    }

    /// Grids from the parallel parse equal the one-thread grids, cell by cell.
    @Test func sameGrids() throws {
        let scratch = try TempDir()
        let path = try PipelineTests.inputs(scratch).last!
        var grids: [[GridCell]] = []
        for threads in [1, 2, 8] {
            var options = IngestOptions()
            options.pipelined = threads > 1
            options.parseThreads = threads
            options.parallelBlockBytes = 4096
            var builder = IncidentColumnsBuilder()
            _ = try FileIngester.ingest(
                path: path, sha256: "", bytes: 0, options: options, into: &builder, rejects: nil)
            let parameters = QueryParameters(asOf: 1_546_300_799) // 2018-12-31T23:59:59Z
            let index = IncidentIndex(columns: builder.columns, parameters: parameters)
            grids.append(index.grid(precision: 6).cells)
        }
        #expect(!grids[0].isEmpty)
        #expect(grids[1] == grids[0])
        #expect(grids[2] == grids[0])
    }

    /// The cut is the end of the last line feed with an even number of quotes before it.
    @Test func cutsAgreeWithABruteForceScan() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let bytes = (0..<Int(random.next() % 40)).map { _ in [UInt8(ascii: "a"), 34, 10, 44][Int(random.next() % 4)]
            }
            var expected: Int?
            var quotes = 0
            for (i, b) in bytes.enumerated() {
                if b == 34 { quotes += 1 }
                if b == 10 && quotes % 2 == 0 { expected = i + 1 }
            }
            let got = bytes.withUnsafeBufferPointer {
                BlockCutter.lastLineEndOutsideQuotes($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: $0.count)
            }
            #expect(got == expected, "\(bytes)")
        }
    }
}
