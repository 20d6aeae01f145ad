import AreaWatchCore
import AreaWatchQuery
import AreaWatchTestSupport
import Testing

@testable import AreaWatchIngest

/// The ad-hoc columns take keys as hashes made where each record is parsed (the parallel CSV
/// path, `KeyIdentity.hash`); every other path hashes the key's text. Both must
/// tell the same keys apart: the same inserted, updated and duplicate counts and the same rows.
@Suite("Keys hashed where parsed equal keys hashed from their text")
struct HashedKeysTests {
    struct Loaded: Equatable {
        var report: FileIngestReport
        var lat: [Double], lon: [Double], time: [Int64], handled: [Int8], category: [String?]
    }

    static func options(threads: Int, blockBytes: Int, source: String?, idless: IdlessMode) -> IngestOptions {
        var options = IngestOptions(source: source, idless: idless)
        options.pipelined = threads > 1
        options.parseThreads = threads
        options.parallelBlockBytes = blockBytes
        return options
    }

    static func ingest(_ path: String, _ options: IngestOptions, into builder: inout IncidentColumnsBuilder) throws
        -> FileIngestReport
    {
        try FileIngester.ingest(
            path: path, sha256: String(repeating: "cd", count: 32), bytes: 0,
            options: options, into: &builder, rejects: nil)
    }

    static func load(
        _ path: String, threads: Int, blockBytes: Int, source: String?, idless: IdlessMode,
        keepKeys: Bool
    ) throws -> Loaded {
        var builder = IncidentColumnsBuilder(keepKeys: keepKeys)
        #expect(builder.keyIdentity == (keepKeys ? .text : .hash))
        let report = try ingest(
            path, options(threads: threads, blockBytes: blockBytes, source: source, idless: idless),
            into: &builder)
        let c = builder.columns
        return Loaded(
            report: report, lat: c.lat, lon: c.lon, time: c.time, handled: c.handled,
            category: c.category.map { $0 < 0 ? nil : c.categories[Int($0)] })
    }

    /// Ids that are the same key or not only by their bytes: trailing spaces, composed and
    /// decomposed "é" (two keys), invalid UTF-8 (repaired to U+FFFD as the text path reads it, so
    /// two such ids may be one key), blank (id-less), quoted; repeated with changed and unchanged
    /// content (updates and duplicates), and identical id-less rows (ordinals).
    static func randomCSV(_ random: inout SplitMix64, rows: Int) -> [UInt8] {
        func pick<T>(_ options: [T]) -> T { options[Int(random.next() % UInt64(options.count))] }
        let ids: [[UInt8]] = [
            [], [], Array("a1".utf8), Array("a1 ".utf8), Array("caf\u{E9}".utf8),
            Array("cafe\u{301}".utf8), [0x62, 0xFF], [0x62, 0xFE], [0x62, 0xC3], Array("  ".utf8),
            Array("\"a,1\"".utf8), Array("f12363a29a07c40b".utf8), Array("longer-than-fifteen-bytes-id".utf8)
        ]
        var text = Array("id,time,lat,lon,category,handled\n".utf8)
        for _ in 0..<rows {
            text += pick(ids)
            text += Array(",\(pick(["2018-07-01T10:00:00Z", "2017-07-02", "2016-07-03 12:00"]))".utf8)
            text += Array(",\(pick(["53.7,-1.8", "53.71,-1.81", "53.72,-1.79", "0,0"]))".utf8)
            text += Array(",\(pick(["burglary", "", "vehicle-crime"])),\(pick(["true", "", "no"]))\n".utf8)
        }
        return text
    }

    @Test func sameCountsAndRows() throws {
        let scratch = try TempDir()
        var random = SplitMix64(seed: 0x4A5E_D0C5)
        for n in 0..<24 {
            let path = try scratch.file(
                "keys-\(n).csv", bytes: Self.randomCSV(&random, rows: 50 + Int(random.next() % 400)))
            let source = n % 3 == 0 ? "police" : nil
            let idless: IdlessMode = n % 2 == 0 ? .snapshot : .append
            let reference = try Self.load(
                path, threads: 1, blockBytes: 1 << 20, source: source, idless: idless, keepKeys: false)
            #expect(reference.report.updated + reference.report.duplicates > 0, "the file repeats keys")
            for (threads, block) in [(2, 13), (2, 4096), (8, 97)] {
                let hashed = try Self.load(
                    path, threads: threads, blockBytes: block, source: source, idless: idless, keepKeys: false)
                let text = try Self.load(
                    path, threads: threads, blockBytes: block, source: source, idless: idless, keepKeys: true)
                #expect(hashed == reference, "\(n): \(threads) threads, \(block)-byte blocks, keys hashed where parsed")
                #expect(text == reference, "\(n): \(threads) threads, \(block)-byte blocks, keys as text")
            }
            // Within one run, a file read with its keys hashed where parsed and then read on one
            // thread (keys hashed from their text), or the other way round, meets its own keys again
            // exactly as when both reads hash the text.
            let parallel = Self.options(threads: 2, blockBytes: 97, source: source, idless: idless)
            let single = Self.options(threads: 1, blockBytes: 1 << 20, source: source, idless: idless)
            func twice(_ first: IngestOptions, _ second: IngestOptions) throws -> [FileIngestReport] {
                var builder = IncidentColumnsBuilder()
                return [try Self.ingest(path, first, into: &builder), try Self.ingest(path, second, into: &builder)]
            }
            let textTwice = try twice(single, single)
            #expect(textTwice[1].inserted == 0)
            #expect(try twice(parallel, single) == textTwice, "\(n)")
            #expect(try twice(single, parallel) == textTwice, "\(n)")
        }
    }
}
