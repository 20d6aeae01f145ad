import AreaWatchCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import Synchronization

/// `areawatch serve`'s settings (the CLI's options).
public struct ServeConfiguration: Sendable {
    public var folder: String
    public var host: String
    public var port: Int
    public var corsOrigin: String?
    public var webDirectory: String?
    /// How often DIR's identity is checked for a newly published report folder.
    public var reloadInterval: Duration
    public var accessLog: Bool
    public var limits: ServeLimits
    /// `--public-url`: the base of the TileJSON's URLs (checked by `PublicURL`).
    public var publicURL: String?
    /// `--trust-proxy`: take the base from X-Forwarded-Proto and X-Forwarded-Host.
    public var trustProxy = false
    /// `--basemap`: a MapLibre style URL the map draws the grid over (checked by `BasemapURL`).
    public var basemap: String?

    public init(
        folder: String, host: String = "127.0.0.1", port: Int = 8080, corsOrigin: String? = nil,
        webDirectory: String? = nil, reloadInterval: Duration = .milliseconds(250), accessLog: Bool = true,
        limits: ServeLimits = ServeLimits()
    ) {
        self.folder = folder
        self.host = host
        self.port = port
        self.corsOrigin = corsOrigin
        self.webDirectory = webDirectory
        self.reloadInterval = reloadInterval
        self.accessLog = accessLog
        self.limits = limits
    }
}

/// The request context: Hummingbird's, plus the connection (its peer's address for the access
/// log, its channel for the pace of a streamed body).
struct ServeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let peer: String
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress?.ipAddress ?? "-"
        channel = source.channel
    }
}

/// The HTTP server: Hummingbird as the transport around `ServeHandler`, with `ConnectionGuard`
/// on every connection (timeouts, the connection cap, the answers to requests the handler must
/// not see), the reload poller beside it, and SIGTERM/SIGINT as a graceful shutdown (requests in
/// flight finish, then exit 0).
public enum Server {
    public static func run(_ config: ServeConfiguration) async throws {
        let store = try SnapshotStore(folder: config.folder)
        let web = WebAssets.locate(option: config.webDirectory)
        if !web.available { log("warning: \(WebAssets.missingMessage); the map page says so") }
        let openFiles = OpenFiles.raiseSoftLimit(), inUse = OpenFiles.inUse()
        let cap = config.limits.maxConnections ?? OpenFiles.defaultMaxConnections(limit: openFiles, inUse: inUse)
        let handler = {
            var handler = ServeHandler(
                corsOrigin: config.corsOrigin, web: web, defaultHost: "\(config.host):\(config.port)")
            handler.publicURL = config.publicURL
            handler.trustProxy = config.trustProxy
            handler.basemap = config.basemap
            return handler
        }()
        let accessLog = config.accessLog ? AccessLog() : nil
        let policy = ConnectionPolicy(
            limits: config.limits, maxConnections: cap, corsOrigin: config.corsOrigin,
            accessLog: accessLog)
        let responder = CallbackResponder<ServeContext> { request, context in
            let started = ContinuousClock.now
            let answer = handler.respond(Self.serveRequest(request), snapshot: store.current)
            let logged: (@Sendable (Int) -> Void)? = accessLog.map { log in
                let peer = context.peer, method = request.method.rawValue
                let target = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
                return { bytes in
                    log.append(
                        AccessLog.line(
                            peer: peer, method: method, target: target, status: answer.status,
                            bytes: bytes, microseconds: Self.microseconds(since: started)))
                }
            }
            return ResponseBodies.response(answer, channel: context.channel, logged: logged)
        }
        let listening = Atomic<Bool>(false)
        let app = Application(
            responder: responder,
            server: .http1(configuration: Self.http1(policy)),
            configuration: .init(address: .hostname(config.host, port: config.port), serverName: nil),
            onServerRunning: { channel in
                listening.store(true, ordering: .relaxed)
                log(
                    "serving \(config.folder) (as of \(store.current.asOf ?? "?"); "
                        + (store.current.archive == nil ? "no grid.pmtiles" : "grid.pmtiles present") + ")")
                log(
                    "at most \(cap) connections at once (open-files limit \(openFiles), \(inUse) in use at start); "
                        + "timeouts: \(config.limits.timeoutsDescription)")
                log("listening on http://\(config.host):\(channel.localAddress?.port ?? config.port)")
            })
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: config.reloadInterval)
                    accessLog?.flush()
                    if let message = store.refresh() { log(message) }
                }
            }
            do { try await app.runService() } catch {
                group.cancelAll()
                if listening.load(ordering: .relaxed) {
                    throw SnapshotError(path: "\(config.host):\(config.port)", message: "stopped: \(error)")
                }
                throw ListenFailure(host: config.host, port: config.port, error: error)
            }
            group.cancelAll()
        }
        accessLog?.flush()
        log("stopped")
    }

    /// Hummingbird's HTTP/1.1 channel with the guard after the parser, and the parser's limits.
    static func http1(_ policy: ConnectionPolicy) -> HTTP1Channel.Configuration {
        HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionGuard(policy: policy)], idleTimeout: nil,
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: ServeLimits.maxLineBytes,
                maxHeaderListSize: ServeLimits.maxHeadBytes,
                maxHeaderFieldCount: ServeLimits.maxHeaderFields))
    }

    static func serveRequest(_ r: Request) -> ServeRequest {
        ServeRequest(
            method: r.method.rawValue, path: r.uri.path, query: r.uri.query ?? "",
            acceptEncoding: r.headers[.acceptEncoding], ifNoneMatch: r.headers[.ifNoneMatch], host: r.head.authority,
            forwardedProto: HTTPField.Name("X-Forwarded-Proto").flatMap { r.headers[$0] },
            forwardedHost: HTTPField.Name("X-Forwarded-Host").flatMap { r.headers[$0] })
    }

    static func microseconds(since started: ContinuousClock.Instant) -> Int64 {
        let elapsed = started.duration(to: .now).components
        return elapsed.seconds * 1_000_000 + elapsed.attoseconds / 1_000_000_000_000
    }

    /// One line on stderr (the server's messages; the access log goes through `AccessLog`). The
    /// folder and host come from the command line: escaped like data.
    static func log(_ line: String) {
        FileHandle.standardError.write(Data((TerminalText.escaped(line) + "\n").utf8))
    }
}

/// Why the server could not listen, in one sentence (`serve` exits with status 2 and it).
struct ListenFailure: Error, CustomStringConvertible {
    let description: String

    init(host: String, port: Int, error: any Error) {
        let place = "cannot listen on \(host):\(port)"
        if let io = error as? IOError {
            switch io.errnoCode {
            case EADDRINUSE:
                description = "\(place): the port is in use by another program (choose another with --port)"
            case EACCES:
                description = "\(place): ports below 1024 need administrator rights (choose another with --port)"
            case EADDRNOTAVAIL:
                description = "\(place): the address is not one of this machine's (check --host)"
            default: description = "\(place): \(String(cString: strerror(io.errnoCode)).lowercased())"
            }
        } else if error is SocketAddressError {
            description = "\(place): no such host name (check --host)"
        } else {
            description = "\(place): \(error)"
        }
    }
}
