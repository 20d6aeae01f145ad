import AreaWatchCore
import AreaWatchFormats
import AreaWatchReport
import Foundation
import NIOCore

/// One request as the handler needs it (the HTTP library's types stay in `Server.swift`; bodies
/// are NIO's `ByteBuffer`, so a report file is shared by every response that sends it).
public struct ServeRequest: Sendable {
    public var method: String
    public var path: String
    public var query: String
    public var acceptEncoding: String?
    public var ifNoneMatch: String?
    public var host: String?
    /// X-Forwarded-Proto and X-Forwarded-Host, used only with `--trust-proxy`.
    public var forwardedProto: String?
    public var forwardedHost: String?

    public init(
        method: String = "GET", path: String, query: String = "", acceptEncoding: String? = nil,
        ifNoneMatch: String? = nil, host: String? = nil, forwardedProto: String? = nil,
        forwardedHost: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.acceptEncoding = acceptEncoding
        self.ifNoneMatch = ifNoneMatch
        self.host = host
        self.forwardedProto = forwardedProto
        self.forwardedHost = forwardedHost
    }
}

public struct ServeResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    /// The body a GET gets: a slice of the snapshot's bytes or bytes made for this answer.
    public var body: ByteBuffer
    /// HEAD: the headers and `Content-Length` of the GET, and no body.
    public var headOnly = false

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The body's bytes (a copy, for tests and tools).
    public var bytes: [UInt8] { Array(body.readableBytesView) }
}

/// The server's answers (docs/FORMATS.md "HTTP API (serve)"), a pure function of the request,
/// one snapshot and the configuration: `Server` adds nothing but the transport and the log.
public struct ServeHandler: Sendable {
    public var corsOrigin: String?
    public var web: WebAssets
    /// The address the server listens on, for the TileJSON's URLs when the Host header is unusable.
    public var defaultHost: String
    /// `--public-url`: the TileJSON's URLs are under it whatever the request says.
    public var publicURL: String?
    /// `--trust-proxy`: a request's X-Forwarded-Proto and X-Forwarded-Host give the URLs' base.
    public var trustProxy = false
    /// `--basemap`: the MapLibre style the map draws the grid over (checked by `BasemapURL`).
    public var basemap: String?

    public init(corsOrigin: String?, web: WebAssets, defaultHost: String) {
        self.corsOrigin = corsOrigin
        self.web = web
        self.defaultHost = defaultHost
    }

    static let dataCache = "public, max-age=300"
    static let pageCache = "no-cache"
    static let errorCache = "no-store"

    public func respond(_ request: ServeRequest, snapshot: ReportSnapshot) -> ServeResponse {
        var response: ServeResponse
        var etagKey = request.path + "?" + request.query
        if request.method != "GET" && request.method != "HEAD" {
            response = error(405, "only GET and HEAD are served")
            response.headers.append(("Allow", "GET, HEAD"))
        } else {
            (response, etagKey) = route(request, snapshot: snapshot, etagKey: etagKey)
        }
        // Strong validator: the folder generation plus what selects the representation.
        let etag = "\"\(snapshot.generation)-\(String(FNV1a.hash(etagKey.utf8), radix: 16))\""
        response.headers.append(("ETag", etag))
        if let corsOrigin {
            response.headers.append(("Access-Control-Allow-Origin", corsOrigin))
            if corsOrigin != "*" { response.headers.append(("Vary", "Origin")) }
        }
        if response.status == 200, let tags = request.ifNoneMatch, Self.matches(tags, etag) {
            response.status = 304
            response.body = ByteBuffer()
            response.headers.removeAll { ["content-type", "content-encoding"].contains($0.0.lowercased()) }
        }
        response.headOnly = request.method == "HEAD"
        return response
    }

    private func route(_ r: ServeRequest, snapshot s: ReportSnapshot, etagKey: String) -> (ServeResponse, String) {
        switch r.path {
        case "/v1/safety": return (safety(r.query, s), etagKey)
        case "/tilejson.json":
            let base = base(of: r)
            return (
                ok(ServerTileJSON.build(s, base: base).serialized(pretty: true), "application/json", Self.dataCache),
                etagKey + "|" + base
            )
        case "/", "/index.html":
            let page = MapPage.html(
                hasMapLibre: web.available, hasEHSA: s.ehsa != nil, counts: s.legendCounts,
                basemap: basemap)
            return (ok(page, "text/html; charset=utf-8", Self.pageCache), etagKey)
        case "/report.html":
            return (
                s.reportHTML.map { ok($0, "text/html; charset=utf-8", Self.pageCache) }
                    ?? error(404, "this report has no report.html"), etagKey
            )
        case "/ehsa.geojson":
            return (
                s.ehsa.map { ok($0, "application/geo+json", Self.dataCache) }
                    ?? error(404, "this report has no ehsa.geojson"), etagKey
            )
        case "/summary.json":
            return (
                s.summary.map { ok($0, "application/json", Self.dataCache) }
                    ?? error(404, "this report has no summary.json"), etagKey
            )
        default:
            if r.path.hasPrefix("/static/") {
                guard let asset = web.asset(String(r.path.dropFirst(8))) else {
                    return (error(404, web.available ? "no such file" : WebAssets.missingMessage), etagKey)
                }
                return (ok(asset.bytes, asset.contentType, "public, max-age=86400"), etagKey)
            }
            if r.path.hasPrefix("/tiles/") { return tile(r, s, etagKey: etagKey) }
            return (error(404, "no such resource"), etagKey)
        }
    }

    /// A finite decimal number as `lookup`'s `--lat` and `--lon` read one (`0x10`, `inf` and `nan`
    /// are not numbers here either).
    private static func decimal(_ text: String) -> Double? {
        guard let v = DecimalParsing.parse(text), v.isFinite else { return nil }
        return v
    }

    /// `/v1/safety?lat=&lon=`: the bytes `areawatch lookup --json` prints for the same location.
    private func safety(_ query: String, _ s: ReportSnapshot) -> ServeResponse {
        var lat: Double?, lon: Double?
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count == 2 ? String(parts[1]).removingPercentEncoding : nil
            switch parts[0] {
            case "lat": lat = value.flatMap(Self.decimal) ?? .nan
            case "lon": lon = value.flatMap(Self.decimal) ?? .nan
            default: continue
            }
        }
        guard let lat, let lon else {
            return error(400, "lat and lon are required, e.g. /v1/safety?lat=53.72&lon=-1.86")
        }
        guard !lat.isNaN, !lon.isNaN else {
            return error(400, "lat and lon must be decimal numbers (digits, an optional sign, point and exponent)")
        }
        guard (-90...90).contains(lat), (-180...180).contains(lon) else {
            return error(400, "lat must be within -90…90 and lon within -180…180")
        }
        guard let answer = s.answer(lat: lat, lon: lon) else { return error(503, "this report has no widget tiles") }
        return ok(AnswerJSON.lookup(answer).serialized(pretty: true), "application/json", Self.dataCache)
    }

    /// `/tiles/{z}/{x}/{y}.json|.mvt`: 200 with the tile, 204 for a tile of the set that holds no
    /// cell (it is not written), 404 for an address outside the set's zooms or the zoom's grid.
    private func tile(_ r: ServeRequest, _ s: ReportSnapshot, etagKey: String) -> (ServeResponse, String) {
        let parts = r.path.dropFirst(7).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let dot = parts[2].lastIndex(of: "."),
            let z = Self.smallInt(parts[0]), let x = Self.smallInt(parts[1]), let y = Self.smallInt(parts[2][..<dot]),
            z <= 30, x < 1 << z, y < 1 << z
        else { return (error(404, "not a tile address: /tiles/{z}/{x}/{y}.json or .mvt"), etagKey) }
        let id = TileID(z: z, x: x, y: y)
        switch parts[2][dot...] {
        case ".json":
            guard let meta = s.meta else { return (error(404, "this report has no widget tiles"), etagKey) }
            guard (s.minZoom...meta.maxZoom).contains(z) else {
                return (error(404, "zoom \(z) is outside the tiles' zooms \(s.minZoom)-\(meta.maxZoom)"), etagKey)
            }
            return (s.jsonTiles[id].map { ok($0, "application/json", Self.dataCache) } ?? empty(), etagKey)
        case ".mvt":
            guard let archive = s.archive else { return (error(404, "this report has no grid.pmtiles"), etagKey) }
            guard (Int(archive.header.minZoom)...Int(archive.header.maxZoom)).contains(z) else {
                return (
                    error(
                        404,
                        "zoom \(z) is outside the vector tiles' zooms \(archive.header.minZoom)-\(archive.header.maxZoom)"
                    ), etagKey
                )
            }
            guard let stored = archive.tile(z: z, x: x, y: y) else { return (empty(), etagKey) }
            var response = ok(ByteBuffer(stored), "application/vnd.mapbox-vector-tile", Self.dataCache)
            response.headers.append(("Vary", "Accept-Encoding"))
            guard archive.header.tileCompression == PMTiles.Compression.gzip.rawValue else {
                return (response, etagKey)
            }
            if Gzip.accepted(by: r.acceptEncoding) {
                response.headers.append(("Content-Encoding", "gzip"))
                return (response, etagKey + "|gzip")
            }
            guard let plain = try? Gzip.inflate(stored, limit: 64 << 20) else {
                return (error(500, "tile \(id) in grid.pmtiles is not valid gzip data"), etagKey)
            }
            response.body = ByteBuffer(bytes: plain)
            return (response, etagKey)
        default:
            return (error(404, "tiles are served as .json and .mvt"), etagKey)
        }
    }

    private func ok(_ body: String, _ type: String, _ cache: String) -> ServeResponse {
        ok(ByteBuffer(string: body), type, cache)
    }

    private func ok(_ body: ByteBuffer, _ type: String, _ cache: String) -> ServeResponse {
        ServeResponse(status: 200, headers: [("Content-Type", type), ("Cache-Control", cache)], body: body)
    }

    private func empty() -> ServeResponse {
        ServeResponse(status: 204, headers: [("Cache-Control", Self.dataCache)], body: ByteBuffer())
    }

    private func error(_ status: Int, _ message: String) -> ServeResponse {
        let headers = [("Content-Type", "application/json"), ("Cache-Control", Self.errorCache)]
        return ServeResponse(status: status, headers: headers, body: Self.errorBody(status: status, message: message))
    }

    /// Every error's body (`ConnectionGuard`'s answers too): `{"error": MESSAGE, "status": N}`.
    static func errorBody(status: Int, message: String) -> ByteBuffer {
        let object = JSONValue.object([("error", .string(message)), ("status", .int(status))])
        return ByteBuffer(string: object.serialized(pretty: true))
    }

    /// Digits only, at most 10 (no sign, no `+`, no hex).
    static func smallInt(_ s: Substring) -> Int? {
        guard !s.isEmpty, s.count <= 10, s.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(s)
    }

    /// A Host header safe to write into URLs: a name or address and an optional port.
    /// The base of the URLs a response carries (SPEC §19): `--public-url`; else, with
    /// `--trust-proxy`, the first X-Forwarded-Proto (`http` or `https`) and X-Forwarded-Host
    /// values; else `http://` and the Host header, or the listening address when it is unusable.
    func base(of r: ServeRequest) -> String {
        if let publicURL { return publicURL }
        if trustProxy, let host = Self.usableHost(Self.firstValue(r.forwardedHost)) {
            let proto = Self.firstValue(r.forwardedProto)?.lowercased()
            return (proto == "https" ? "https" : "http") + "://" + host
        }
        return "http://" + (Self.usableHost(r.host) ?? defaultHost)
    }

    /// The first of a comma-separated header's values (a proxy chain appends its own), trimmed.
    static func firstValue(_ header: String?) -> String? {
        guard let first = header?.split(separator: ",", omittingEmptySubsequences: false).first else { return nil }
        return first.trimmingCharacters(in: .whitespaces)
    }

    static func usableHost(_ host: String?) -> String? {
        guard let host, !host.isEmpty, host.count <= 255,
            host.utf8.allSatisfy({ b in
                (b >= 48 && b <= 58) || (b >= 65 && b <= 93 && b != 92) || (b >= 97 && b <= 122) || b == 45 || b == 46
            })
        else { return nil }
        return host
    }

    /// If-None-Match: `*` or a list of entity tags (weak ones compared weakly, RFC 9110 §13.1.2).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { item in
            let t = item.trimmingCharacters(in: .whitespaces)
            return t == "*" || t == etag || t == "W/" + etag
        }
    }
}
