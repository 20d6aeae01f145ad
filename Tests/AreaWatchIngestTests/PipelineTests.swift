import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import Testing

@testable import AreaWatchIngest

/// The pipelined ingest (parsing on a second thread) must hand the sink exactly what the
/// one-thread path hands it, in the same order, with the same counts and rejects.
@Suite("Pipelined ingest equals the one-thread path")
struct PipelineTests {
    /// Every bundled incident file, and a large generated one that spans many batches and
    /// read-ahead chunks.
    static func inputs(_ scratch: TempDir) throws -> [String] {
        let root = packageRoot().path
        var files = ["2016-07", "2017-07", "2018-07"].map { "\(root)/datasets/police-uk/\($0)-calderdale-street.csv" }
        files += ["watchme-export-2018-07-31.json", "watchme-export-2018-08-01-edits.json"].map {
            "\(root)/datasets/watchme/\($0)"
        }
        var text = "id,time,lat,lon,category\n"
        var state: UInt64 = 12345
        for i in 0..<60_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let lat = 53.5 + Double(state >> 40) / Double(1 << 24) * 0.5
            let lon = -1.9 + Double((state >> 16) & 0xFFFFFF) / Double(1 << 24) * 0.5
            let id = i % 7 == 0 ? "" : "r\(i % 50_000)" // id-less rows and repeated ids (updates)
            let time = i % 97 == 0 ? "garbage" : "2018-0\(1 + i % 9)-1\(i % 10)T12:00:00Z"
            text += "\(id),\(time),\(lat),\(lon),c\(i % 5)\n"
        }
        files.append(try scratch.file("large.csv", text))
        return files
    }

    @Test func sameIncidentsCountsAndRejects() throws {
        let scratch = try TempDir()
        for path in try PipelineTests.inputs(scratch) {
            var results: [(FileIngestReport, [Incident], String)] = []
            for pipelined in [false, true] {
                var options = IngestOptions()
                options.pipelined = pipelined
                let rejectsPath = scratch.path + "/rejects-\(pipelined).csv"
                let rejects = try RejectsWriter(path: rejectsPath)
                var sink = CollectingSink()
                let (sha, bytes) = try FileDigest.sha256(path: path)
                let report = try FileIngester.ingest(
                    path: path, sha256: sha, bytes: bytes, options: options,
                    into: &sink, rejects: rejects)
                try rejects.commit()
                results.append((report, sink.incidents, try String(contentsOfFile: rejectsPath, encoding: .utf8)))
            }
            let (one, two) = (results[0], results[1])
            #expect(one.0 == two.0, "report differs for \(path)")
            #expect(one.1 == two.1, "incidents differ (content or order) for \(path)")
            #expect(one.2 == two.2, "rejects differ for \(path)")
            #expect(one.0.records > 0)
        }
    }

    /// A sink that fails midway stops the parsing thread and surfaces the sink's error.
    @Test func sinkErrorStopsTheParser() throws {
        struct Failing: IncidentSink {
            struct Stop: Error {}
            var seen = 0
            mutating func write(_ batch: borrowing IncidentBatch, outcome: (WriteOutcome) -> Void) throws {
                try batch.forEach { _ in
                    seen += 1
                    if seen == 10_000 { throw Stop() }
                    outcome(.inserted)
                }
            }
        }
        let scratch = try TempDir()
        let path = try PipelineTests.inputs(scratch).last!
        var options = IngestOptions()
        options.pipelined = true
        var sink = Failing()
        #expect(throws: Failing.Stop.self) {
            _ = try FileIngester.ingest(path: path, sha256: "", bytes: 0, options: options, into: &sink, rejects: nil)
        }
        #expect(sink.seen == 10_000)
    }

    /// An input error found by the parsing thread reaches the caller as the same InputError.
    @Test func inputErrorFromTheParserThread() throws {
        let scratch = try TempDir()
        var text = "id,time,lat,lon\n"
        for i in 0..<20_000 { text += "\(i),2018-01-01,53.1,-1.5\n" }
        text += "x,2018-01-01,\"53.1,-1.5\n" // ends inside a quoted field
        let path = try scratch.file("cut.csv", text)
        for pipelined in [false, true] {
            var options = IngestOptions()
            options.pipelined = pipelined
            var sink = CollectingSink()
            let error = #expect(throws: InputError.self) {
                _ = try FileIngester.ingest(
                    path: path, sha256: "", bytes: 0, options: options, into: &sink, rejects: nil)
            }
            #expect(error?.position == "line 20002")
        }
    }
}
