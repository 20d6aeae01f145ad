import AreaWatchJobs
import AreaWatchReport
import AreaWatchServe
import ArgumentParser
import Foundation

extension AreaWatch {
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve a report folder over HTTP: lookups, tiles, TileJSON, the map and the report.",
            discussion: """
                Endpoints (docs/FORMATS.md, "HTTP API (serve)"): /v1/safety?lat=&lon=, /tiles/{z}/{x}/{y}.json and .mvt, \
                /tilejson.json, / (the map) and /report.html. A report published in DIR's place is served without a \
                restart. SIGTERM or SIGINT: requests in flight finish, then exit 0. A client that is too slow (see the \
                timeouts) is disconnected; beyond --max-connections a new connection is answered 503.
                """)

        @Argument(help: "The report folder (written by `areawatch report --out DIR`).")
        var dir: String

        @Option(help: "TCP port to listen on (0: any free port, printed on stderr).")
        var port = 8080

        @Option(help: "Address to listen on.")
        var host = "127.0.0.1"

        @Option(help: "Send Access-Control-Allow-Origin with this origin (or *). Default: none.")
        var corsOrigin: String?

        @Option(
            help:
                "Folder holding maplibre-gl.js and maplibre-gl.css for the map (default: $AREAWATCH_WEB_DIR, else .build-web/maplibre, else share/areawatch/maplibre of an installed binary)."
        )
        var webDir: String?

        @Option(
            help: ArgumentHelp(
                "The URL clients reach this server at, e.g. https://tiles.example.org/safety: the "
                    + "base of /tilejson.json's URLs (SPEC §19). Default: http:// and the request's Host."),
            transform: PublicURL.checked)
        var publicURL: String?

        @Option(
            help: ArgumentHelp(
                "A MapLibre style URL (http or https) the map draws the grid over, e.g. a "
                    + "self-hosted Protomaps or OpenFreeMap style. Default: none (no network needed)."),
            transform: BasemapURL.checked)
        var basemap: String?

        @Flag(
            help:
                "Take the base of /tilejson.json's URLs from X-Forwarded-Proto and X-Forwarded-Host (behind a proxy you run)."
        )
        var trustProxy = false

        @Option(help: "Milliseconds between checks for a newly published report folder.")
        var reloadMs = 250

        @Flag(help: "No access log line per request on stderr.")
        var noAccessLog = false

        @Option(
            help: ArgumentHelp(
                "Connections open at once; beyond, a new one is answered 503 and closed.",
                discussion: "Default: the open-files limit less a reserve (printed at start)."))
        var maxConnections: Int?

        @Option(help: "Seconds a client has to send a request head (from connecting, or its first byte after idling).")
        var headerTimeout = AreaWatchJobs.Decimal(10)

        @Option(help: "Seconds a kept-alive connection may wait for its next request.")
        var idleTimeout = AreaWatchJobs.Decimal(75)

        @Option(help: "Seconds a response may wait for the client to take its next 64 KiB before it is cut off.")
        var writeTimeout = AreaWatchJobs.Decimal(30)

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be within 0…65535") }
            guard (10...60_000).contains(reloadMs) else { throw ValidationError("--reload-ms must be within 10…60000") }
            if let corsOrigin, corsOrigin.isEmpty || corsOrigin.contains(where: { $0.isNewline || $0 == " " }) {
                throw ValidationError("--cors-origin must be * or one origin such as https://example.org")
            }
            let timeouts = [
                ("--header-timeout", headerTimeout), ("--idle-timeout", idleTimeout),
                ("--write-timeout", writeTimeout)
            ]
            for (name, value) in timeouts where !(0.1...3600).contains(value.value) {
                throw ValidationError("\(name) must be within 0.1…3600 seconds")
            }
            if let maxConnections {
                // serve raises its soft open-files limit to the hard one; each connection takes a descriptor.
                let hard = OpenFiles.hardLimit(), allowed = OpenFiles.maxConnectionsAllowed(limit: hard)
                guard (1...allowed).contains(maxConnections) else {
                    throw ValidationError(
                        "--max-connections must be within 1…\(allowed) "
                            + "(the open-files limit is \(hard); raise it with ulimit -n)")
                }
            }
        }

        var limits: ServeLimits {
            func duration(_ seconds: AreaWatchJobs.Decimal) -> Duration {
                .milliseconds(Int64((seconds.value * 1000).rounded()))
            }
            return ServeLimits(
                headerTimeout: duration(headerTimeout), idleTimeout: duration(idleTimeout),
                writeTimeout: duration(writeTimeout), maxConnections: maxConnections)
        }

        func run() throws {
            var config = ServeConfiguration(
                folder: dir, host: host, port: port, corsOrigin: corsOrigin, webDirectory: webDir,
                reloadInterval: .milliseconds(reloadMs), accessLog: !noAccessLog,
                limits: limits)
            config.publicURL = publicURL
            config.trustProxy = trustProxy
            config.basemap = basemap
            // The commands are synchronous; the server runs on Swift's concurrency pool meanwhile.
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var failure: (any Error)?
            Task {
                do { try await Server.run(config) } catch { failure = error }
                done.signal()
            }
            done.wait()
            if let failure { throw JobError(.inputOrStore, String(describing: failure)) }
        }
    }
}
