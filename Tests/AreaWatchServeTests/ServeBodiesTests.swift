import AreaWatchCore
import AreaWatchTestSupport
import Foundation
import NIOCore
import Testing

@testable import AreaWatchServe

/// The handler's bodies: HEAD describes the GET exactly; report files are answered with the
/// snapshot's own bytes (shared, never copied per request).
@Suite struct ServeBodiesTests {
    let scratch: TempDir
    let snapshot: ReportSnapshot
    let handler = ServeHandler(corsOrigin: "*", web: WebAssets(folder: nil), defaultHost: "127.0.0.1:8080")

    init() throws {
        scratch = try TempDir("serve-bodies")
        try ServeFixture.write(to: scratch.sub("report"))
        snapshot = try ReportSnapshot(folder: scratch.sub("report"))
    }

    func respond(_ method: String, _ path: String, _ query: String = "", ifNoneMatch: String? = nil) -> ServeResponse {
        let request = ServeRequest(method: method, path: path, query: query, ifNoneMatch: ifNoneMatch)
        return handler.respond(request, snapshot: snapshot)
    }

    @Test func headHasTheHeadersAndLengthOfGet() throws {
        let tile = try #require(snapshot.jsonTiles.keys.first)
        for (path, query) in [
            ("/report.html", ""), ("/summary.json", ""), ("/v1/safety", "lat=53.72&lon=-1.86"),
            ("/v1/safety", "lat=91&lon=0"), ("/tiles/\(tile.z)/\(tile.x)/\(tile.y).json", ""),
            ("/tilejson.json", ""), ("/", ""), ("/nothing", "")
        ] {
            let get = respond("GET", path, query), head = respond("HEAD", path, query)
            #expect(!get.headOnly && head.headOnly, "\(path)")
            #expect(head.status == get.status, "\(path)")
            #expect(head.headers.map { "\($0.0): \($0.1)" } == get.headers.map { "\($0.0): \($0.1)" }, "\(path)")
            #expect(head.body.readableBytes == get.body.readableBytes && get.body.readableBytes > 0, "\(path)")
        }
        let etag = try #require(respond("GET", "/summary.json").header("ETag"))
        let notModified = respond("HEAD", "/summary.json", ifNoneMatch: etag)
        #expect(notModified.status == 304 && notModified.body.readableBytes == 0)
    }

    @Test func reportFilesAreTheSnapshotsBytesNotCopies() throws {
        let stored = try #require(snapshot.reportHTML)
        let first = respond("GET", "/report.html").body, second = respond("GET", "/report.html").body
        #expect(first == stored && second == stored)
        let address = { (b: ByteBuffer) in b.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) } }
        #expect(address(first) == address(stored) && address(second) == address(stored))
        // Tiles are slices of one buffer holding them all, one after the other.
        let places = snapshot.jsonTiles.values.map { (address($0), $0.readableBytes) }.sorted { $0.0 < $1.0 }
        #expect(places.count > 3)
        #expect(zip(places, places.dropFirst()).allSatisfy { $0.0 + UInt($0.1) == $1.0 })
        let tile = try #require(snapshot.jsonTiles.first)
        let served = respond("GET", "/tiles/\(tile.key.z)/\(tile.key.x)/\(tile.key.y).json").body
        #expect(address(served) == address(tile.value))
    }
}
