import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// Ingest progress counts what was parsed: each call's bytes are those of the records counted
/// so far (not the blocks or chunks read ahead of them), its records never exceed the file's,
/// and the last call is the file's size and every record.
@Suite("Ingest progress follows the records")
struct IngestProgressTests {
    struct Call: Equatable {
        var bytes: Int64
        var total: Int64
        var records: Int
    }

    /// A CSV of `rows` records (every 97th without a latitude: rejected) and the content offset
    /// where each record's line ends (`ends[k]`: after the header and k records).
    static func csv(rows: Int) -> (text: String, ends: [Int64]) {
        var random = SplitMix64(seed: 0x9_2028)
        var text = "id,time,lat,lon,category\n"
        var ends: [Int64] = [Int64(text.utf8.count)]
        var offset = ends[0]
        for n in 0..<rows {
            let lat = n % 97 == 96 ? "" : String(format: "%.5f", 53.7 + random.unit() * 0.1)
            let lon = String(format: "%.5f", -1.8 + random.unit() * 0.1)
            let line =
                "r\(n),2018-0\(1 + n % 9)-1\(n % 10)T10:00:00Z,\(lat),\(lon),"
                + "Burglary\(String(repeating: "x", count: Int(random.next() % 40)))\n"
            text += line
            offset += Int64(line.utf8.count)
            ends.append(offset)
        }
        return (text, ends)
    }

    static func calls(_ path: String, threads: Int, pipelined: Bool, blockBytes: Int = 1 << 16) throws -> [Call] {
        var options = IngestOptions()
        options.pipelined = pipelined
        options.parseThreads = threads
        options.parallelBlockBytes = blockBytes
        var sink = CollectingSink()
        let calls = CallLog()
        _ = try FileIngester.ingest(
            path: path, sha256: String(repeating: "cd", count: 32), bytes: 0, options: options,
            into: &sink, rejects: nil
        ) { bytes, total, records in
            calls.append(Call(bytes: bytes, total: total, records: records))
        }
        return calls.calls
    }

    /// The common rules: sizes, order, bounds, a last call on the real total, calls on the way.
    static func expectTruthful(_ calls: [Call], size: Int64, records: Int, _ comment: String) {
        #expect(calls.count >= 2, "\(comment): \(calls.count) calls")
        #expect(calls.allSatisfy { $0.total == size }, "\(comment)")
        #expect(calls.allSatisfy { $0.records <= records && $0.bytes <= size }, "\(comment)")
        #expect(
            zip(calls, calls.dropFirst()).allSatisfy { $0.bytes <= $1.bytes && $0.records <= $1.records },
            "\(comment)")
        #expect(calls.last == Call(bytes: size, total: size, records: records), "\(comment)")
        #expect(calls.dropLast().contains { $0.bytes < size && $0.records < records }, "\(comment): no call on the way")
    }

    @Test("CSV: parallel blocks and one streaming thread report the bytes of the records counted")
    func csvBytesAreTheRecords() throws {
        let scratch = try TempDir()
        let rows = 150_000
        let (text, ends) = Self.csv(rows: rows)
        let path = try scratch.file("progress.csv", text)
        let size = Int64(text.utf8.count)
        for (threads, pipelined) in [(2, true), (4, true), (1, true), (1, false)] {
            let calls = try Self.calls(path, threads: threads, pipelined: pipelined)
            let comment = "\(threads) threads, pipelined \(pipelined)"
            Self.expectTruthful(calls, size: size, records: rows, comment)
            let wrong = calls.filter { $0.bytes != ends[$0.records] }
            #expect(wrong.isEmpty, "\(comment): bytes not at the end of the last record counted: \(wrong.prefix(3))")
        }
    }

    @Test("gzip: the estimate stays with the records and ends on the file's size")
    func gzipFollowsTheRecords() throws {
        let scratch = try TempDir()
        let rows = 120_000
        let (text, ends) = Self.csv(rows: rows)
        let bytes = StoredGzip.member(Array(text.utf8))
        let path = try scratch.file("progress.csv.gz", bytes: bytes)
        let size = Int64(bytes.count)
        for (threads, pipelined) in [(2, true), (1, false)] {
            let calls = try Self.calls(path, threads: threads, pipelined: pipelined)
            let comment = "gzip, \(threads) threads, pipelined \(pipelined)"
            Self.expectTruthful(calls, size: size, records: rows, comment)
            // Stored blocks: compressed and content offsets differ by a few bytes per 64 KiB.
            let far = calls.filter { abs($0.bytes - ends[$0.records]) > size / 100 }
            #expect(far.isEmpty, "\(comment): estimate far from the records: \(far.prefix(3))")
        }
    }

    @Test("NDJSON: the bytes are those of the lines before the record counted")
    func ndjsonLines() throws {
        let scratch = try TempDir()
        let rows = 100_000
        var text = ""
        var ends: [Int64] = [0]
        for n in 0..<rows {
            text += "{\"id\": \"n\(n)\", \"time\": \"2018-07-0\(1 + n % 9)T10:00:00Z\", \"lat\": 53.7, \"lon\": -1.8}\n"
            ends.append(Int64(text.utf8.count))
        }
        let path = try scratch.file("progress.ndjson", text)
        let calls = try Self.calls(path, threads: 1, pipelined: false)
        Self.expectTruthful(calls, size: Int64(text.utf8.count), records: rows, "ndjson")
        let wrong = calls.dropLast().filter { $0.bytes != ends[$0.records - 1] }
        #expect(wrong.isEmpty, "ndjson: \(wrong.prefix(3))")
    }

    @Test("fileBytes(coveringContent:): the offset itself for a plain file, within what was read for gzip")
    func coveringContent() throws {
        let plain = ByteSource(bytes: Array(repeating: 65, count: 1000), name: "a.csv")
        #expect(plain.fileBytes(coveringContent: 0) == 0)
        #expect(plain.fileBytes(coveringContent: 400) == 400)
        #expect(plain.fileBytes(coveringContent: 5000) == 1000)
        let content = Array(repeating: UInt8(66), count: 200_000)
        let gzip = ByteSource(bytes: StoredGzip.member(content), name: "a.csv.gz", readLimit: 70_000)
        #expect(gzip.fileBytes(coveringContent: 10) == 0, "nothing read yet")
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 20)
        defer { buffer.deallocate() }
        var read: Int64 = 0
        while true {
            let n = try gzip.read(into: buffer, capacity: 1 << 20)
            if n == 0 { break }
            read += Int64(n)
            let estimate = gzip.fileBytes(coveringContent: read / 2)
            #expect(estimate <= gzip.fileBytesRead && estimate >= read / 2 - 1000, "\(estimate) for \(read / 2)")
        }
        #expect(read == 200_000 && gzip.contentBytesRead == 200_000)
        #expect(gzip.fileBytes(coveringContent: read) == gzip.fileSize)
    }
}

/// Calls of a progress closure (it may be called on the parsing thread).
final class CallLog: @unchecked Sendable {
    private let lock = NSLock()
    private var log: [IngestProgressTests.Call] = []

    func append(_ call: IngestProgressTests.Call) {
        lock.lock()
        log.append(call)
        lock.unlock()
    }

    var calls: [IngestProgressTests.Call] {
        lock.lock()
        defer { lock.unlock() }
        return log
    }
}
