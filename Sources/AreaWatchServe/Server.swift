import AreaWatchCore
import Foundation
import HTTPTypes
import Hummingbird

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

    public init(folder: String, host: String = "127.0.0.1", port: Int = 8080, corsOrigin: String? = nil,
                webDirectory: String? = nil, reloadInterval: Duration = .milliseconds(250), accessLog: Bool = true) {
        self.folder = folder; self.host = host; self.port = port; self.corsOrigin = corsOrigin
        self.webDirectory = webDirectory; self.reloadInterval = reloadInterval; self.accessLog = accessLog
    }
}

/// The request context: Hummingbird's, plus the peer's address for the access log.
struct ServeContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let peer: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress?.ipAddress ?? "-"
    }
}

/// The HTTP server: Hummingbird as the transport around `ServeHandler`, the reload poller beside
/// it, and SIGTERM/SIGINT as a graceful shutdown (requests in flight finish, then exit 0).
public enum Server {
    public static func run(_ config: ServeConfiguration) async throws {
        let store = try SnapshotStore(folder: config.folder)
        let web = WebAssets.locate(option: config.webDirectory)
        log("serving \(config.folder) (as of \(store.current.asOf ?? "?"); "
            + (store.current.archive == nil ? "no grid.pmtiles" : "grid.pmtiles present") + ")")
        if !web.available { log("warning: \(WebAssets.missingMessage); the map page says so") }
        let handler = ServeHandler(corsOrigin: config.corsOrigin, web: web, defaultHost: "\(config.host):\(config.port)")
        let accessLog = config.accessLog ? AccessLog() : nil
        let responder = CallbackResponder<ServeContext> { request, context in
            let started = ContinuousClock.now
            let answer = handler.respond(Self.serveRequest(request), snapshot: store.current)
            var headers = HTTPFields()
            for (name, value) in answer.headers {
                if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
            }
            if let accessLog {
                let target = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
                let elapsed = started.duration(to: .now).components
                let micros = elapsed.seconds * 1_000_000 + elapsed.attoseconds / 1_000_000_000_000
                let fraction = String(micros % 1000)
                accessLog.append("\(context.peer) \"\(request.method) \(TerminalText.escaped(String(target.prefix(2048))))\" \(answer.status) "
                    + "\(answer.body.count) \(micros / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)ms")
            }
            return Response(status: .init(code: answer.status), headers: headers,
                            body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
        }
        let app = Application(
            responder: responder,
            configuration: .init(address: .hostname(config.host, port: config.port), serverName: nil),
            onServerRunning: { channel in
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
                throw SnapshotError(path: "\(config.host):\(config.port)", message: "cannot serve: \(error)")
            }
            group.cancelAll()
        }
        accessLog?.flush()
        log("stopped")
    }

    static func serveRequest(_ r: Request) -> ServeRequest {
        ServeRequest(method: r.method.rawValue, path: r.uri.path, query: r.uri.query ?? "",
                     acceptEncoding: r.headers[.acceptEncoding], ifNoneMatch: r.headers[.ifNoneMatch], host: r.head.authority)
    }

    /// One line on stderr (the server's messages; the access log goes through `AccessLog`). The
    /// folder and host come from the command line: escaped like data.
    static func log(_ line: String) {
        FileHandle.standardError.write(Data((TerminalText.escaped(line) + "\n").utf8))
    }
}
