import AreaWatchCore
import AreaWatchFormats
import AreaWatchReport
import AreaWatchTestSupport
import Foundation
import NIOCore
import Testing

@testable import AreaWatchServe

/// The HTTP answers of `serve` (docs/FORMATS.md "HTTP API (serve)") from a report folder written
/// by the real report writer, without a socket: `ServeHandler` is what the server runs per request.
@Suite struct ServeHandlerTests {
    let scratch: TempDir
    let folder: String
    let snapshot: ReportSnapshot
    let handler = ServeHandler(corsOrigin: nil, web: WebAssets(folder: nil), defaultHost: "127.0.0.1:8080")

    init() throws {
        scratch = try TempDir("serve")
        folder = scratch.sub("report")
        try ServeFixture.write(to: folder)
        snapshot = try ReportSnapshot(folder: folder)
    }

    func get(
        _ path: String, _ query: String = "", handler: ServeHandler? = nil, acceptEncoding: String? = nil,
        ifNoneMatch: String? = nil, host: String? = nil
    ) -> ServeResponse {
        (handler ?? self.handler).respond(
            ServeRequest(
                path: path, query: query, acceptEncoding: acceptEncoding,
                ifNoneMatch: ifNoneMatch, host: host), snapshot: snapshot)
    }

    @Test func safetyIsTheLookupAnswerForEveryLocation() throws {
        var found = 0
        for (lat, lon) in ServeFixture.locations(seed: 3, count: 400) {
            let response = get("/v1/safety", "lat=\(lat)&lon=\(lon)")
            #expect(response.status == 200)
            let expected = AnswerJSON.lookup(try TileLookup.answer(tiles: folder + "/tiles", lat: lat, lon: lon))
                .serialized(pretty: true)
            #expect(String(buffer: response.body) == expected)
            if expected.contains("\"found\": true") { found += 1 }
        }
        // Both kinds occur: cells listed in a tile, and locations with no cell (safe, counts 0).
        #expect(found > 20 && found < 380, "found \(found) of 400")
    }

    @Test func badCoordinatesAre400WithAJSONError() throws {
        for query in [
            "", "lat=53.7", "lon=-1.8", "lat=91&lon=0", "lat=0&lon=180.5", "lat=-90.0001&lon=0", "lat=0x10&lon=0",
            "lat=inf&lon=0", "lat=nan&lon=0", "lat=abc&lon=1", "lat=&lon=1", "lat=1e400&lon=0", "lat=53.7%00&lon=0",
            "lat=%ZZ&lon=0", "lat= 53&lon=0"
        ] {
            let response = get("/v1/safety", query)
            #expect(response.status == 400, "\(query)")
            let object = try JSONSerialization.jsonObject(with: Data(response.bytes)) as? [String: Any]
            #expect((object?["error"] as? String)?.isEmpty == false, "\(query)")
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("Cache-Control") == "no-store")
        }
        // The edges are inside; percent-encoded signs and exponents are numbers as on the command line.
        for query in ["lat=90&lon=180", "lat=-90&lon=-180", "lat=%2D53.7&lon=1", "lat=5.37e1&lon=-1.8&extra=1"] {
            #expect(get("/v1/safety", query).status == 200, "\(query)")
        }
    }

    @Test func jsonTilesAreTheFilesAnd204WhenEmpty() throws {
        let tiles = try FileManager.default.subpathsOfDirectory(atPath: folder + "/tiles").filter {
            $0.hasSuffix(".json") && $0 != "tilejson.json"
        }
        #expect(tiles.count > 3)
        for tile in tiles {
            let response = get("/tiles/" + tile)
            #expect(response.status == 200)
            #expect(response.bytes == Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/tiles/" + tile))))
        }
        // An empty tile of the set (far from every incident) is 204; addresses outside it are 404.
        let empty = TileID(lat: 0, lon: 0, zoom: 14)
        #expect(get("/tiles/\(empty.z)/\(empty.x)/\(empty.y).json").status == 204)
        for path in [
            "/tiles/11/0/0.json", "/tiles/15/0/0.json", "/tiles/14/16384/0.json", "/tiles/14/-1/0.json",
            "/tiles/14/0x1/0.json", "/tiles/14/0/0.png", "/tiles/14/0.json", "/tiles/14/0/0/0.json", "/nothing"
        ] {
            #expect(get(path).status == 404, "\(path)")
        }
        // The report writes grid.pmtiles: an empty vector tile of the set is 204 as well.
        #expect(get("/tiles/\(empty.z)/\(empty.x)/\(empty.y).mvt").status == 204)
    }

    @Test func vectorTilesFromGridPMTilesWithGzipPassthrough() throws {
        guard let python = PythonTools.withPMTiles() else {
            print("skipped: python3 with the PyPI package pmtiles is not installed (make test-deps installs it)")
            return
        }
        let tiles = [(14, 8107, 5281), (14, 8108, 5281), (13, 4053, 2640)]
        let spec = [
            "tiles": tiles.map { [PMTiles.tileID(z: $0.0, x: $0.1, y: $0.2)!, "mvt \($0.0)/\($0.1)/\($0.2)"] as [Any] }
        ]
        let specPath = try scratch.file("spec.json", bytes: Array(try JSONSerialization.data(withJSONObject: spec)))
        try python.run([PMTilesTests.fixtures + "/build_pmtiles.py", folder + "/grid.pmtiles", specPath])
        let withArchive = try ReportSnapshot(folder: folder)
        func mvt(_ path: String, _ encoding: String?) -> ServeResponse {
            handler.respond(ServeRequest(path: path, acceptEncoding: encoding), snapshot: withArchive)
        }
        for (z, x, y) in tiles {
            let path = "/tiles/\(z)/\(x)/\(y).mvt"
            let zipped = mvt(path, "br, gzip;q=0.8")
            #expect(zipped.status == 200 && zipped.header("Content-Encoding") == "gzip")
            #expect(zipped.header("Content-Type") == "application/vnd.mapbox-vector-tile")
            #expect(zipped.bytes == Array(withArchive.archive!.tile(z: z, x: x, y: y)!))
            #expect(
                String(decoding: try Gzip.inflate(zipped.bytes, limit: 1 << 20), as: UTF8.self) == "mvt \(z)/\(x)/\(y)")
            for encoding in [nil, "identity", "gzip;q=0", "deflate"] {
                let plain = mvt(path, encoding)
                #expect(plain.header("Content-Encoding") == nil, "\(encoding ?? "none")")
                #expect(String(buffer: plain.body) == "mvt \(z)/\(x)/\(y)")
                #expect(plain.header("ETag") != zipped.header("ETag"), "two representations, two tags")
            }
        }
        #expect(mvt("/tiles/14/0/0.mvt", "gzip").status == 204)
        #expect(mvt("/tiles/12/0/0.mvt", "gzip").status == 404, "below the archive's minzoom 13")
        let tileJSON =
            try JSONSerialization.jsonObject(
                with: Data(handler.respond(ServeRequest(path: "/tilejson.json"), snapshot: withArchive).bytes))
            as? [String: Any]
        #expect(tileJSON?["minzoom"] as? Int == 13 && tileJSON?["maxzoom"] as? Int == 14)
    }

    @Test func everyAnswerHasAnETagAndCacheControlAnd304() throws {
        let paths = [
            ("/v1/safety", "lat=53.72&lon=-1.86"), ("/v1/safety", "lat=99&lon=0"), ("/tilejson.json", ""), ("/", ""),
            ("/report.html", ""), ("/summary.json", ""), ("/nothing", ""), ("/static/maplibre-gl.js", "")
        ]
        var tags = Set<String>()
        for (path, query) in paths {
            let response = get(path, query)
            let etag = try #require(response.header("ETag"), "\(path)")
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"))
            #expect(response.header("Cache-Control") != nil)
            tags.insert(etag)
            if response.status == 200 {
                let again = get(path, query, ifNoneMatch: "\"other\", " + etag)
                #expect(again.status == 304 && again.body.readableBytes == 0 && again.header("ETag") == etag)
                #expect(get(path, query, ifNoneMatch: "\"other\"").status == 200)
            }
        }
        #expect(tags.count == paths.count, "each resource has its own tag")
        #expect(get("/", "").header("Access-Control-Allow-Origin") == nil)
        let cors = ServeHandler(corsOrigin: "https://example.org", web: WebAssets(folder: nil), defaultHost: "x")
        #expect(
            get("/v1/safety", "lat=1&lon=1", handler: cors).header("Access-Control-Allow-Origin")
                == "https://example.org")
        #expect(handler.respond(ServeRequest(method: "POST", path: "/v1/safety"), snapshot: snapshot).status == 405)
    }

    @Test func tileJSONPointsAtTheServersVectorTiles() throws {
        let response = get("/tilejson.json", host: "maps.example.org:9000")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.bytes)) as? [String: Any])
        #expect(object["tilejson"] as? String == "3.0.0")
        #expect(object["tiles"] as? [String] == ["http://maps.example.org:9000/tiles/{z}/{x}/{y}.mvt"])
        #expect(object["attribution"] as? String == "Test attribution")
        #expect((object["vector_layers"] as? [[String: Any]])?.first?["id"] as? String == "cells")
        #expect((object["areawatch"] as? [String: Any])?["as_of"] as? String == "2024-06-30T12:00:00Z")
        // A Host header that is not a host is not written into URLs.
        let hostile =
            try JSONSerialization.jsonObject(with: Data(get("/tilejson.json", host: "evil\"/><script>").bytes))
            as? [String: Any]
        #expect(hostile?["tiles"] as? [String] == ["http://127.0.0.1:8080/tiles/{z}/{x}/{y}.mvt"])
    }

    /// The URLs of /tilejson.json (`tiles`, `lookup`) with this handler and request.
    func tileJSONURLs(
        _ handler: ServeHandler, host: String? = "internal:8080", proto: String? = nil,
        forwardedHost: String? = nil
    ) throws -> [String] {
        let request = ServeRequest(
            path: "/tilejson.json", host: host, forwardedProto: proto, forwardedHost: forwardedHost)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(handler.respond(request, snapshot: snapshot).bytes))
                as? [String: Any])
        return (object["tiles"] as? [String] ?? []) + [object["lookup"] as? String ?? ""]
    }

    @Test func behindAProxyTheURLsAreThePublicOnes() throws {
        var published = handler
        published.publicURL = "https://tiles.example.org/safety"
        #expect(
            try tileJSONURLs(published, proto: "http", forwardedHost: "evil.example") == [
                "https://tiles.example.org/safety/tiles/{z}/{x}/{y}.mvt",
                "https://tiles.example.org/safety/v1/safety?lat={lat}&lon={lon}"
            ])
        // Forwarded headers count only with --trust-proxy; the first value of a proxy chain is the client's.
        #expect(
            try tileJSONURLs(handler, proto: "https", forwardedHost: "maps.example.org")
                == ["http://internal:8080/tiles/{z}/{x}/{y}.mvt", "http://internal:8080/v1/safety?lat={lat}&lon={lon}"])
        var trusting = handler
        trusting.trustProxy = true
        #expect(
            try tileJSONURLs(trusting, proto: "https, http", forwardedHost: "maps.example.org, proxy.internal")
                == [
                    "https://maps.example.org/tiles/{z}/{x}/{y}.mvt",
                    "https://maps.example.org/v1/safety?lat={lat}&lon={lon}"
                ])
        #expect(
            try tileJSONURLs(trusting, proto: "gopher", forwardedHost: "maps.example.org:8443").first
                == "http://maps.example.org:8443/tiles/{z}/{x}/{y}.mvt", "an unknown scheme is http")
        #expect(
            try tileJSONURLs(trusting, proto: "https", forwardedHost: "evil\"/><script>").first
                == "http://internal:8080/tiles/{z}/{x}/{y}.mvt", "a forwarded host that is not a host is ignored")
        #expect(try tileJSONURLs(trusting, proto: "https").first == "http://internal:8080/tiles/{z}/{x}/{y}.mvt")
        // Two bases, two representations: each has its own ETag.
        let a = trusting.respond(
            ServeRequest(path: "/tilejson.json", host: "h", forwardedProto: "https", forwardedHost: "a.example"),
            snapshot: snapshot)
        let b = trusting.respond(
            ServeRequest(path: "/tilejson.json", host: "h", forwardedProto: "https", forwardedHost: "b.example"),
            snapshot: snapshot)
        #expect(a.header("ETag") != b.header("ETag"))
    }

    @Test func theTileJSONDescribesFourElementsPerCellAndTheTileSetsVersion() throws {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(get("/tilejson.json").bytes)) as? [String: Any])
        let areawatch = try #require(object["areawatch"] as? [String: Any])
        #expect(areawatch["cell_format"] as? String == "cells: {geohash: [r_current, r_previous, class, change]}")
        let folderBytes = try #require(FileManager.default.contents(atPath: folder + "/tiles/tilejson.json"))
        let folderTileJSON = try #require(try JSONSerialization.jsonObject(with: folderBytes) as? [String: Any])
        #expect(object["version"] as? String == folderTileJSON["version"] as? String)
        #expect((object["version"] as? String)?.wholeMatch(of: /1\.[0-9]+\.0/) != nil, "\(object["version"] ?? "")")
    }

    /// The page's legend (SPEC §14): the report's class and change colours, and as counts the
    /// cells per class and per change that grid.csv lists (written by other code than the tiles).
    @Test func theMapLegendCountsTheReportsCells() throws {
        let page = String(buffer: get("/").body)
        let prefix = "const CONFIG = "
        let line = try #require(page.split(separator: "\n").first { $0.hasPrefix(prefix) && $0.hasSuffix(";") })
        let json = line.dropFirst(prefix.count).dropLast()
        let config = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let legend = try #require(config["legend"] as? [String: [[Any]]])
        let csvBytes = try #require(FileManager.default.contents(atPath: folder + "/grid.csv"))
        let csv = String(decoding: csvBytes, as: UTF8.self)
        let rows = csv.split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let header = rows[0]
        let classColumn = try #require(header.firstIndex(of: "class")),
            changeColumn = try #require(header.firstIndex(of: "change"))
        for (kind, column, names) in [
            ("class", classColumn, ["safe", "medium", "dangerous"]),
            ("change", changeColumn, ["rise", "fall", "none"])
        ] {
            let got = try #require(legend[kind])
            #expect(got.map { $0[0] as? String } == names, "\(kind)")
            for row in got {
                let expected = rows.dropFirst().filter { $0.count > column && $0[column] == row[0] as? String }.count
                #expect((row[2] as? NSNumber)?.intValue == expected, "\(kind) \(row[0])")
            }
        }
        #expect(legend["class"]?.map { $0[1] as? String } == ["#2e9e44", "#f39c12", "#d62728"], "report.html's colours")
        #expect(
            (legend["class"] ?? []).reduce(0) { $0 + (($1[2] as? NSNumber)?.intValue ?? 0) } == rows.count - 1,
            "every cell once (the rows less the header)")
        #expect(legend["ehsa"]?.count == 17 && legend["ehsa"]?.allSatisfy { $0[2] is NSNull } == true)
        #expect(config["basemap"] is NSNull)
    }

    @Test func theMapPageSaysSoWhenMapLibreIsMissing() throws {
        let page = String(buffer: get("/").body)
        #expect(page.contains("MapLibre GL JS is not installed"))
        #expect(!page.contains("/static/maplibre-gl.js"))
        #expect(get("/static/maplibre-gl.js").status == 404)
        let web = try TempDir("web")
        try web.file("maplibre-gl.js", "/* js */")
        try web.file("maplibre-gl.css", "/* css */")
        let withWeb = ServeHandler(corsOrigin: nil, web: WebAssets(folder: web.path), defaultHost: "x")
        #expect(String(buffer: get("/", handler: withWeb).body).contains("<script src=\"/static/maplibre-gl.js\">"))
        #expect(get("/static/maplibre-gl.js", handler: withWeb).bytes == Array("/* js */".utf8))
        #expect(get("/static/../report.html", handler: withWeb).status == 404)
    }
}
